/* An MPI task (it includes pr.h, as every task does) that prints the right result
 * and returns without MPI_Finalize.  MPICH does not report it; pr.h does. */
#define PR_MPI
#include "pr.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long long n = pr_arg_long(argc, argv, "n", 1001, 1, 1000000);
    pr_args_done(argc, argv);
    pr_result_int("sum", n * (n - 1) / 2);
    return 0; /* no MPI_Finalize */
}
