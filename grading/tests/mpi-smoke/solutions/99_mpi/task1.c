/* The MPI fixture's reference: each rank sums every size-th number, rank 0 reduces. */
#define PR_MPI
#include "pr.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long n = pr_arg_long(argc, argv, "n", 1000, 1, 1000000000);
    pr_args_done(argc, argv);
    long long local = 0, total = 0;
    for (long long i = rank; i < n; i += size)
        local += i;
    //@ TODO: add the ranks' sums on rank 0
    //@ placeholder: (void)local;
    //@ solution {
    MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    //@ }
    if (rank == 0) {
        pr_check_int("sum", total, n * (n - 1) / 2);
        pr_result_int("sum", total);
    }
    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
