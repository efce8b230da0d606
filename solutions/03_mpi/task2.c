/*
 * Room 03, task 2: a distributed mean and standard deviation with MPI_Allreduce.
 *
 * n measurements are split over the ranks, each rank holding only its own
 * block (it makes its block itself from the seed: nothing is sent).  Every
 * rank needs the mean and the standard deviation of ALL n values, for example
 * to standardise its own values afterwards.  MPI_Allreduce is a reduction
 * whose result arrives on every rank.
 *
 *   TODO 1: the mean of all n values, on every rank.
 *   TODO 2: the standard deviation of all n values, on every rank, by the
 *           two-pass method.
 *
 * Read first: README.md, "SPMD: one program, many ranks", "Collectives", "Why results can differ in the last bits".
 *
 * The values are about one million, with a spread of about one.  The one-pass
 * shortcut, mean(v^2) - mean(v)^2, subtracts two numbers of about 1e12 that
 * agree in their first 13 digits, and loses almost all of them: the program
 * prints what it gives, beside the two-pass answer.  (The lesson explains.)
 *
 * Every rank checks its own answer; a rank that got it wrong says so.
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task2 task2.c -lm
 *   mpiexec -n 4 ./task2 n=1000003
 * Grade it from the top folder:  make grade TASK=03_mpi/task2
 */
#define PR_MPI
#include "pr.h"
#include "mpi_tools.h" /* best_of_all: the room's shared helpers */

/* x[0..count-1] is this rank's block; n is the number of values on all ranks
 * together.  Every rank gets the mean and the (population) standard deviation
 * sqrt(sum of (x - mean)^2 / n) of all n values. */
static void distributed_stats(const double *x, long count, long n, double *mean, double *std)
{
    //@ TODO 1: Set *mean to the mean of all n values, the same on every rank
    //@         (result line mean).  A rank sees only its own block; what it
    //@         sends to the others must be enough to get the mean of all n,
    //@         whatever the blocks' lengths.  See "Collectives".
    //@ placeholder: *mean = 0.0; /* TODO 1: the mean of all n values, on every rank */
    //@ placeholder: (void)x, (void)count, (void)n; /* (only silences "unused" warnings) */
    //@ solution {
    double local = 0.0, total = 0.0;
    for (long i = 0; i < count; i++)
        local += x[i];
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *mean = total / (double)n;
    //@ }

    //@ TODO 2: Set *std to the population standard deviation of all n values
    //@         (the formula is above this function), on every rank (result
    //@         line std), from a second pass over the block that uses the mean
    //@         of TODO 1.  It must agree with the serial two-pass value to 1e-9
    //@         relative, which the one-pass shortcut does not: see "Why results
    //@         can differ in the last bits".
    //@ placeholder: *std = 0.0; /* TODO 2: the standard deviation, on every rank */
    //@ solution {
    double local_sq = 0.0, total_sq = 0.0;
    for (long i = 0; i < count; i++) {
        double d = x[i] - *mean;
        local_sq += d * d;
    }
    MPI_Allreduce(&local_sq, &total_sq, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *std = sqrt(total_sq / (double)n);
    //@ }
}

/* ---- no need to change below ---- */

#define OFFSET 1e6 /* every value is OFFSET + (a number in [0, 1)) */

/* Value i of the data set: depends only on the seed and i, so any rank can
 * make any part of the data without the others. */
static double value_at(uint64_t seed, long i)
{
    pr_rng rng = pr_rng_seed(seed, (uint64_t)i);
    return OFFSET + pr_rng_double(&rng, 0.0, 1.0);
}

/* Rank `rank`'s block [lo, hi) of [0, n): sizes differ by at most one (task 1). */
static void block_range(long n, int size, int rank, long *lo, long *hi)
{
    long base = n / size, extra = n % size;
    *lo = rank * base + (rank < extra ? rank : extra);
    *hi = *lo + base + (rank < extra ? 1 : 0);
}

/* The serial reference, two passes over all n values. */
static void serial_stats(const double *x, long n, double *mean, double *std)
{
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += x[i];
    *mean = sum / (double)n;
    double sq = 0.0;
    for (long i = 0; i < n; i++) {
        double d = x[i] - *mean;
        sq += d * d;
    }
    *std = sqrt(sq / (double)n);
}

/* What not to do: one pass, with the textbook formula mean(x^2) - mean(x)^2. */
static double one_pass_std(const double *x, long n)
{
    double sum = 0.0, sum_sq = 0.0;
    for (long i = 0; i < n; i++) {
        sum += x[i];
        sum_sq += x[i] * x[i];
    }
    double mean = sum / (double)n;
    double var = sum_sq / (double)n - mean * mean; /* may even come out negative */
    return var >= 0 ? sqrt(var) : -sqrt(-var);
}

typedef struct {
    const double *x;
    long count, n;
    volatile double mean, std;
} run_t;

static void run_serial(void *ctx)
{
    run_t *r = ctx;
    double mean, std;
    serial_stats(r->x, r->n, &mean, &std);
    r->mean = mean;
    r->std = std;
}

static void run_distributed(void *ctx)
{
    run_t *r = ctx;
    double mean, std;
    distributed_stats(r->x, r->count, r->n, &mean, &std);
    r->mean = mean;
    r->std = std;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 10000000, 2, 100000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("task2: mean and standard deviation of %ld values on %d rank%s (seed %llu)\n", n,
               size, size == 1 ? "" : "s", (unsigned long long)seed);

    /* Each rank makes only its own block. */
    long lo, hi;
    block_range(n, size, rank, &lo, &hi);
    run_t dist = { .count = hi - lo, .n = n };
    double *block = xmalloc((size_t)(hi - lo) * sizeof *block);
    for (long i = lo; i < hi; i++)
        block[i - lo] = value_at(seed, i);
    dist.x = block;

    /* Rank 0 alone makes all the data too, for the serial reference; the
     * other ranks wait quietly meanwhile. */
    double expected[2] = { 0.0, 0.0 }; /* mean, std */
    double t_serial = 0.0, naive = 0.0;
    if (rank == 0) {
        double *all = xmalloc((size_t)n * sizeof *all);
        for (long i = 0; i < n; i++)
            all[i] = value_at(seed, i);
        run_t serial = { .x = all, .count = n, .n = n };
        t_serial = pr_best_of(3, run_serial, &serial);
        expected[0] = serial.mean;
        expected[1] = serial.std;
        naive = one_pass_std(all, n);
        free(all);
    }
    quiet_barrier();
    /* Every rank checks its own answer, so every rank needs the reference. */
    MPI_Bcast(expected, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    double t_dist = best_of_all(3, run_distributed, &dist);

    /* Adding in another order (another rank count) moves the sums by far less
     * than 1e-9 of themselves; a wrong answer moves them far more. */
    const double tol = 1e-9;
    if (rank == 0)
        printf("  every rank checks its own answer (only rank 0's checks are shown, and a\n"
               "  wrong answer on any other rank):\n");
    pr_check_double("mean", dist.mean, expected[0], tol);
    pr_check_double("standard deviation", dist.std, expected[1], tol);
    pr_result_double("mean", dist.mean, tol);
    pr_result_double("std", dist.std, tol);
    if (rank == 0) {
        printf("  one pass, mean(x^2) - mean(x)^2, would give std %.10g: %s\n", naive,
               pr_close_enough(naive, expected[1], tol) ? "lucky this time"
                                                        : "wrong (cancellation)");
        pr_print_time("serial (rank 0 alone)", t_serial, 0, NULL);
        char what[64];
        snprintf(what, sizeof what, "%d rank%s", size, size == 1 ? "" : "s");
        pr_print_time(what, t_dist, t_serial, "serial");
    }
    free(block);

    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
