/*
 * Room 03, task 3: MPI_Scatterv and MPI_Gatherv, for an array that does not
 * divide evenly.
 *
 * Rank 0 holds n readings (as if it had read them from a file).  They are to
 * be rescaled to [0, 1]: each reading minus the smallest, divided by the
 * difference between the largest and the smallest, where smallest and largest
 * are over ALL n readings.  The work is shared out:
 *
 *   1. rank 0 hands every rank its own block of the array;
 *   2. every rank finds the min and max of its block, and MPI_Allreduce
 *      (MPI_MIN, MPI_MAX) turns those into the global min and max, on every rank;
 *   3. every rank rescales its block;
 *   4. rank 0 collects the blocks back into one array, in order.
 *
 * n is not a multiple of the number of ranks, so the blocks differ in size:
 * MPI_Scatter and MPI_Gather (one size for all) cannot do it, their "v"
 * versions (MPI_Scatterv, MPI_Gatherv) can.
 *
 *   TODO 1: counts[] and displs[]: the split, for every rank.
 *   TODO 2: step 1.
 *   TODO 3: step 4.
 *
 * Read first: README.md, "Collectives", "Uneven splits: counts and displacements", "Why results can differ in the last bits".
 *
 * Steps 2 and 3 are written for you.  min, max and one subtraction and one
 * division per value do not depend on how the array was cut, so the result is
 * exactly the serial one, bit for bit, on any number of ranks.
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task3 task3.c -lm
 *   mpiexec -n 4 ./task3 n=100003
 * Grade it from the top folder:  make grade TASK=03_mpi/task3
 */
#define PR_MPI
#include "pr.h"
#include "mpi_tools.h" /* best_of_all, xcalloc: the room's shared helpers */

/* counts[r]: how many values rank r gets; displs[r]: where its block starts
 * in the whole array.  The same split as in task 1. */
static void split(long n, int size, int *counts, int *displs)
{
    //@ TODO 1: Fill counts[] and displs[] for every rank (not only this one).
    //@         What must hold: rank r's block is counts[r] values starting at
    //@         index displs[r]; the blocks, in rank order, cover [0, n) with no
    //@         gap or overlap; the counts differ by one at most, larger ones
    //@         first (the split of task 1; result lines blocks_tile and
    //@         largest_count).  See "Uneven splits: counts and displacements".
    //@ placeholder: (void)n, (void)size, (void)counts, (void)displs; /* TODO 1: the split */
    //@ solution {
    long base = n / size, extra = n % size;
    int start = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = (int)(base + (r < extra ? 1 : 0));
        displs[r] = start;
        start += counts[r];
    }
    //@ }
}

/* Room for `count` doubles, zeroed (defined below with the scaffolding). */
static double *alloc_block(int count);

/* x and y: n values each, used on rank 0 only (NULL elsewhere).  Rescales x
 * into y, sharing the work over all ranks.  counts, displs: room for `size`
 * ints, on every rank. */
static void rescale_distributed(const double *x, double *y, long n, int *counts, int *displs)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    split(n, size, counts, displs);
    int mine = counts[rank];
    double *local = alloc_block(mine); /* this rank's block */

    //@ TODO 2: Step 1: every rank, rank 0 included, must end up with its own
    //@         block of rank 0's x in its own buffer (allocated above, room for
    //@         exactly its count; a count of 0 happens).  One collective with
    //@         root 0.  Think about which of its arguments matter on the root
    //@         only, and which on every rank.  See "Uneven splits: counts and
    //@         displacements".
    //@ placeholder: (void)x; /* TODO 2: scatter x into every rank's `local` */
    //@ solution {
    MPI_Scatterv(x, counts, displs, MPI_DOUBLE, local, mine, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    //@ }

    /* The global min and max, on every rank (an empty block adds nothing:
     * +inf and -inf are the identities of min and max). */
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < mine; i++) {
        if (local[i] < lo)
            lo = local[i];
        if (local[i] > hi)
            hi = local[i];
    }
    double gmin, gmax;
    MPI_Allreduce(&lo, &gmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&hi, &gmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double range = gmax - gmin;
    for (int i = 0; i < mine; i++)
        local[i] = range > 0 ? (local[i] - gmin) / range : 0.0;

    //@ TODO 3: Step 4, the mirror image of TODO 2: rank 0's y must end up
    //@         holding every rank's rescaled block, each where its original
    //@         values were in x (result lines mismatches and sum).  Same
    //@         section as TODO 2.
    //@ placeholder: (void)y; /* TODO 3: gather every rank's block into y on rank 0 */
    //@ solution {
    MPI_Gatherv(local, mine, MPI_DOUBLE, y, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    //@ }
    free(local);
}

/* ---- no need to change below ---- */

static void rescale_serial(const double *x, double *y, long n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (long i = 0; i < n; i++) {
        if (x[i] < lo)
            lo = x[i];
        if (x[i] > hi)
            hi = x[i];
    }
    double range = hi - lo;
    for (long i = 0; i < n; i++)
        y[i] = range > 0 ? (x[i] - lo) / range : 0.0;
}

typedef struct {
    const double *x;
    double *y;
    long n;
    int *counts, *displs;
} run_t;

static void run_serial(void *ctx)
{
    run_t *r = ctx;
    rescale_serial(r->x, r->y, r->n);
}

static void run_distributed(void *ctx)
{
    run_t *r = ctx;
    rescale_distributed(r->x, r->y, r->n, r->counts, r->displs);
}

static double *alloc_block(int count)
{
    if (count < 0) {
        fprintf(stderr, "task3: rank %d: negative count %d\n", pr_rank(), count);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return xcalloc(count > 0 ? (size_t)count : 0, sizeof(double));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 10000000, 1, 100000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("task3: rescale %ld values to [0, 1] on %d rank%s (seed %llu)\n", n, size,
               size == 1 ? "" : "s", (unsigned long long)seed);

    /* Only rank 0 has the data, and the arrays for the whole result. */
    double *x = NULL, *y = NULL, *expected = NULL;
    if (rank == 0) {
        x = xcalloc((size_t)n, sizeof *x);
        y = xcalloc((size_t)n, sizeof *y);
        expected = xcalloc((size_t)n, sizeof *expected);
        pr_rng rng = pr_rng_seed(seed, 3);
        for (long i = 0; i < n; i++)
            x[i] = pr_rng_double(&rng, -40.0, 60.0); /* readings, say in degrees */
    }
    int *counts = xcalloc((size_t)size, sizeof *counts);
    int *displs = xcalloc((size_t)size, sizeof *displs);

    run_t serial = { x, expected, n, counts, displs };
    double t_serial = 0.0;
    if (rank == 0)
        t_serial = pr_best_of(3, run_serial, &serial);
    quiet_barrier();

    run_t dist = { x, y, n, counts, displs };
    double t_dist = best_of_all(3, run_distributed, &dist);

    if (rank == 0) {
        long total = 0, largest = 0;
        int tiled = 1;
        for (int r = 0; r < size; r++) {
            if (size <= 8)
                printf("  rank %d: count %d, displacement %d\n", r, counts[r], displs[r]);
            if (displs[r] != total || counts[r] < 0)
                tiled = 0;
            total += counts[r];
            if (counts[r] > largest)
                largest = counts[r];
        }
        if (total != n)
            tiled = 0;
        long mismatches = 0;
        double sum = 0.0;
        for (long i = 0; i < n; i++) {
            if (y[i] != expected[i]) /* exact: the same arithmetic on the same values */
                mismatches++;
            sum += y[i]; /* always in index order: the same on any number of ranks */
        }
        pr_check_int("counts and displs tile [0,n)", tiled, 1);
        pr_check_int("largest count", largest, (n + size - 1) / size);
        pr_check_int("values differing from serial", mismatches, 0);
        pr_result_int("blocks_tile", tiled);
        pr_result_int("largest_count", largest);
        pr_result_int("mismatches", mismatches);
        pr_result_double("sum", sum, 1e-12);
        pr_print_time("serial (rank 0 alone)", t_serial, 0, NULL);
        char what[64];
        snprintf(what, sizeof what, "%d rank%s", size, size == 1 ? "" : "s");
        pr_print_time(what, t_dist, t_serial, "serial");
        if (size > 1)
            printf("    Scattering and gathering move 16 bytes per value for two cheap\n"
                   "    operations on it: the data movement, not the arithmetic, sets the time.\n");
    }
    free(x);
    free(y);
    free(expected);
    free(counts);
    free(displs);

    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
