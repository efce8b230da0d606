/*
 * Room 03, task 1: a distributed sum with MPI_Reduce.
 *
 * Add up 0.001 * i for i = 0, 1, ..., n-1 with several MPI ranks.  Every rank
 * runs this same program (SPMD): each one adds up its own contiguous block of
 * the index range, and the partial sums are combined into one sum on rank 0.
 * n need not be a multiple of the number of ranks: the blocks may differ in
 * length, but by one index at most.
 *
 *   TODO 1: which indices this rank adds up.
 *   TODO 2: the partial sums of all ranks combined into one sum on rank 0.
 *
 * Read first: README.md, "SPMD: one program, many ranks", "Running MPI programs", "Collectives", "Blocks of an uneven split".
 *
 * The exact answer is 0.001 * n(n-1)/2.  The ranks add in a different order
 * from the serial loop, so the last few digits may differ (and they differ
 * between rank counts): the sum is compared with a small relative tolerance.
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task1 task1.c -lm
 *   mpiexec -n 4 ./task1 n=1000003
 * Grade it from the top folder:  make grade TASK=03_mpi/task1
 */
#define PR_MPI
#include "pr.h"
#include "mpi_tools.h" /* best_of_all: the room's shared helpers */

/* Sets [*lo, *hi) to rank `rank`'s block of the indices [0, n) split over
 * `size` ranks: contiguous, in rank order, sizes differing by at most one. */
static void my_block(long n, int size, int rank, long *lo, long *hi)
{
    //@ TODO 1: Set [*lo, *hi) to this rank's block of [0, n).  What must hold:
    //@         the blocks of all ranks, taken in rank order, follow each other
    //@         with no gap and no overlap and cover [0, n) exactly; no block is
    //@         more than one index longer than another; the longer blocks come
    //@         first.  A rank works this out on its own, from its arguments
    //@         alone (result lines blocks_tile and largest_block).  The rule is
    //@         in the lesson, "Uneven splits: counts and displacements"; here
    //@         you need the start of a block without a loop over the others.
    //@ placeholder: *lo = 0; /* TODO 1: this rank's block */
    //@ placeholder: *hi = 0;
    //@ placeholder: (void)n, (void)size, (void)rank; /* (only silences "unused" warnings) */
    //@ solution {
    /* every rank gets at least `base`, and the first `extra` ranks one more */
    long base = n / size;
    long extra = n % size;
    *lo = rank * base + (rank < extra ? rank : extra);
    *hi = *lo + base + (rank < extra ? 1 : 0);
    //@ }
}

/* Every rank sums its block; returns the total on rank 0 (0 on the others). */
static double distributed_sum(long n)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long lo, hi;
    my_block(n, size, rank, &lo, &hi);
    double local = 0.0;
    for (long i = lo; i < hi; i++)
        local += 0.001 * (double)i;

    //@ TODO 2: Combine the partial sums of all ranks so that rank 0 ends up
    //@         with the sum of all of them (what the other ranks end up with
    //@         does not matter; result line sum).  One collective does it; see
    //@         "Collectives" for which one, and for who must call it.
    //@ placeholder: double total = 0.0; /* TODO 2: reduce the partial sums onto rank 0 */
    //@ placeholder: (void)local;        /* (only silences an "unused" warning) */
    //@ solution {
    double total = 0.0;
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    //@ }
    return rank == 0 ? total : 0.0;
}

/* ---- no need to change below ---- */

static double sum_serial(long n)
{
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += 0.001 * (double)i;
    return sum;
}

typedef struct {
    volatile long n;
    volatile double sum;
} run_t;

static void run_serial(void *ctx)
{
    run_t *r = ctx;
    r->sum = sum_serial(r->n);
}

static void run_distributed(void *ctx)
{
    run_t *r = ctx;
    r->sum = distributed_sum(r->n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 50000000, 10, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("task1: sum of 0.001*i for i in [0, %ld) on %d rank%s\n", n, size,
               size == 1 ? "" : "s");

    /* Every rank's block, collected on rank 0 to check that they tile [0, n). */
    long mine[2];
    my_block(n, size, rank, &mine[0], &mine[1]);
    long *blocks = rank == 0 ? malloc(2 * (size_t)size * sizeof *blocks) : NULL;
    if (rank == 0 && !blocks) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(mine, 2, MPI_LONG, blocks, 2, MPI_LONG, 0, MPI_COMM_WORLD);

    run_t serial = { .n = n }, dist = { .n = n };
    double t_serial = 0.0;
    if (rank == 0)
        t_serial = pr_best_of(3, run_serial, &serial);
    quiet_barrier();
    double t_dist = best_of_all(3, run_distributed, &dist);

    if (rank == 0) {
        long expect_lo = 0, largest = 0;
        int tiled = 1;
        for (int r = 0; r < size; r++) {
            long lo = blocks[2 * r], hi = blocks[2 * r + 1];
            if (size <= 8)
                printf("  rank %d: block [%ld, %ld)  %ld indices\n", r, lo, hi, hi - lo);
            if (lo != expect_lo || hi < lo)
                tiled = 0;
            expect_lo = hi;
            if (hi - lo > largest)
                largest = hi - lo;
        }
        if (expect_lo != n)
            tiled = 0;
        long long tri = (long long)n * (n - 1) / 2;
        double exact = 0.001 * (double)tri; /* exact in integers, rounded once */
        /* Another order of additions moves the sum by far less than 1e-9 of
         * itself (about 1e-13 in practice); a wrong answer moves it far more. */
        const double tol = 1e-9;
        printf("  serial sum                   %.17g (exact %.17g)\n", serial.sum, exact);
        pr_check_int("blocks tile [0, n)", tiled, 1);
        pr_check_int("largest block", largest, (n + size - 1) / size);
        pr_check_double("distributed sum", dist.sum, exact, tol);
        pr_result_int("blocks_tile", tiled);
        pr_result_int("largest_block", largest);
        pr_result_double("sum", dist.sum, tol);
        pr_print_time("serial (rank 0 alone)", t_serial, 0, NULL);
        char what[64];
        snprintf(what, sizeof what, "%d rank%s", size, size == 1 ? "" : "s");
        pr_print_time(what, t_dist, t_serial, "serial");
    }
    free(blocks);

    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
