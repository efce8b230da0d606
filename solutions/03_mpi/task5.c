/*
 * Room 03, task 5: a halo exchange with non-blocking messages.
 *
 * Heat flowing along a rod of n cells: in every time step each cell moves
 * towards the average of its two neighbours,
 *
 *     new value = old + ALPHA * (neighbour before - 2 old + neighbour after)
 *
 * (the explicit scheme for the 1-D diffusion equation).  The rod's two ends
 * are held at fixed temperatures: LEFT_END beyond cell 0, RIGHT_END beyond
 * cell n-1.  The rod is cut into one block of cells per rank.  A rank can
 * update every cell of its block except the two at its edges, which need a
 * value from the neighbouring rank's block.  So every block has one extra
 * "ghost" cell at each end, which holds a copy of the neighbour's edge cell
 * and must be refreshed in every step:
 *
 *     a rank's array:  [ghost | its first cell ... its last cell | ghost]
 *
 * Each step: start the messages that refresh both ghosts (they return at
 * once); update the inner cells, which need no ghost, while the messages
 * travel; wait for the messages; then update the two edge cells.
 *
 *   TODO 1: start the messages, with MPI_Irecv and MPI_Isend.
 *   TODO 2: wait for them (MPI_Waitall), then update the edge cells.
 *
 * Read first: README.md, "Point-to-point: send and receive", "Non-blocking messages and overlap".
 *
 * At the ends of the rod there is no neighbour: the ranks there talk to
 * MPI_PROC_NULL, a "nobody" rank for which sends and receives do nothing, so
 * the ghost keeps its fixed end temperature.  Every cell is computed with the
 * same arithmetic on the same values as in the serial loop, so the result is
 * the serial one exactly, on any number of ranks.
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task5 task5.c -lm
 *   mpiexec -n 4 ./task5 n=100003 steps=500
 * Grade it from the top folder:  make grade TASK=03_mpi/task5
 */
#define PR_MPI
#include "pr.h"
#include "mpi_tools.h" /* xcalloc: the room's shared helpers */

#define ALPHA 0.25    /* the explicit scheme is stable for ALPHA <= 0.5 */
#define LEFT_END 1.0  /* the fixed temperature beyond cell 0 */
#define RIGHT_END 0.0 /* ... and beyond cell n-1 */
#define TAG_TO_LEFT 1  /* a message travelling to the rank on the left */
#define TAG_TO_RIGHT 2 /* ... and to the rank on the right */

/* The new value of a cell from its old value and its two neighbours'. */
static double heat(double left, double mid, double right)
{
    return mid + ALPHA * (left - 2.0 * mid + right);
}

/* One time step on this rank's block.  u[1..count] are its cells, u[0] and
 * u[count+1] the ghosts; the new values go to v[1..count].  left and right are
 * the neighbouring ranks (MPI_PROC_NULL at the ends of the rod).  count >= 1. */
static void step(double *u, double *v, int count, int left, int right)
{
    MPI_Request req[4] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                           MPI_REQUEST_NULL };
    MPI_Status status[4]; /* what arrived: source, tag, size (unused here) */

    //@ TODO 1: Start the four messages of this step's halo exchange, each
    //@         with its own request.  What must hold once they are complete:
    //@         the ghost in front of this block holds the last cell of the
    //@         block before it, the ghost behind it the first cell of the block
    //@         after it (their values at the start of the step), and the
    //@         neighbours' ghosts likewise hold this block's two edge cells.
    //@         Two messages cross between every pair of neighbours: the tags
    //@         (defined at the top) must keep them apart.  The ends of the rod
    //@         need no special case.  See "Non-blocking messages and overlap"
    //@         (the diagram) and "Point-to-point: send and receive" (tags).
    //@ placeholder: (void)left, (void)right; /* TODO 1: post the halo receives and sends */
    //@ solution {
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, TAG_TO_RIGHT, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u[count + 1], 1, MPI_DOUBLE, right, TAG_TO_LEFT, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, TAG_TO_LEFT, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u[count], 1, MPI_DOUBLE, right, TAG_TO_RIGHT, MPI_COMM_WORLD, &req[3]);
    //@ }

    /* The inner cells need no ghost: they are updated while the messages are
     * on their way.  (Reading the edge cells here is fine: a send buffer may be
     * read, never written, before its send completes.  The ghosts are not
     * touched until the receives are complete.) */
    for (int i = 2; i < count; i++)
        v[i] = heat(u[i - 1], u[i], u[i + 1]);

    //@ TODO 2: Complete all four requests; only then may the ghosts be read.
    //@         Then give the two edge cells their new values the way the loop
    //@         above does for the inner ones.  A block may hold a single cell.
    //@         Result lines cells_off, checksum and middle_cell depend on it.
    //@         See "Non-blocking messages and overlap" (and its note on gcc 12).
    //@ placeholder: (void)req, (void)status; /* TODO 2: wait, then the edge cells */
    //@ solution {
    MPI_Waitall(4, req, status);
    v[1] = heat(u[0], u[1], u[2]);
    if (count > 1)
        v[count] = heat(u[count - 1], u[count], u[count + 1]);
    //@ }
}

/* ---- no need to change below ---- */

/* Rank `rank`'s block [lo, hi) of [0, n): sizes differ by at most one (task 1). */
static void block_range(long n, int size, int rank, long *lo, long *hi)
{
    long base = n / size, extra = n % size;
    *lo = rank * base + (rank < extra ? rank : extra);
    *hi = *lo + base + (rank < extra ? 1 : 0);
}

/* The starting temperature of cell i: from the seed and i alone. */
static double initial(uint64_t seed, long i)
{
    pr_rng rng = pr_rng_seed(seed, (uint64_t)i);
    return pr_rng_double(&rng, 0.0, 1.0);
}

static void serial_heat(double *u, double *v, long n, int steps)
{
    u[0] = v[0] = LEFT_END;
    u[n + 1] = v[n + 1] = RIGHT_END;
    for (int s = 0; s < steps; s++) {
        for (long i = 1; i <= n; i++)
            v[i] = heat(u[i - 1], u[i], u[i + 1]);
        double *t = u;
        u = v;
        v = t;
    }
}

typedef struct {
    uint64_t seed;
    long n, lo;
    int count, steps, left, right;
    double *a, *b;   /* this rank's two arrays of count + 2 */
    double *result;  /* after a run: the one holding the last step */
    double *su, *sv; /* rank 0: the serial arrays of n + 2 */
} run_t;

/* Sets this rank's cells to their starting values; ghosts at the ends of the
 * rod hold the fixed end temperatures. */
static void reset(run_t *r)
{
    for (int i = 1; i <= r->count; i++)
        r->a[i] = r->b[i] = initial(r->seed, r->lo + i - 1);
    r->a[0] = r->b[0] = r->left == MPI_PROC_NULL ? LEFT_END : 0.0;
    r->a[r->count + 1] = r->b[r->count + 1] = r->right == MPI_PROC_NULL ? RIGHT_END : 0.0;
}

static void run_distributed(void *ctx)
{
    run_t *r = ctx;
    double *u = r->a, *v = r->b;
    for (int s = 0; s < r->steps; s++) {
        step(u, v, r->count, r->left, r->right);
        double *t = u;
        u = v;
        v = t;
    }
    r->result = u;
}

static void run_serial(void *ctx)
{
    run_t *r = ctx;
    for (long i = 1; i <= r->n; i++)
        r->su[i] = r->sv[i] = initial(r->seed, i - 1);
    serial_heat(r->su, r->sv, r->n, r->steps);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 1000003, 1, 100000000);
    int steps = (int)pr_arg_long(argc, argv, "steps", 200, 0, 1000000);
    int reps = (int)pr_arg_long(argc, argv, "reps", 3, 1, 100);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (n < size) { /* every rank needs at least one cell */
        if (rank == 0)
            fprintf(stderr, "%s: bad argument n=%ld: n must be at least the number of ranks (%d)\n",
                    pr_program_name(argv[0]), n, size);
        pr_exit(2);
    }
    if (rank == 0)
        printf("task5: heat on a rod of %ld cells, %d steps, %d rank%s (seed %llu)\n", n, steps,
               size, size == 1 ? "" : "s", (unsigned long long)seed);

    long lo, hi;
    block_range(n, size, rank, &lo, &hi);
    run_t r = { .seed = seed, .n = n, .lo = lo, .count = (int)(hi - lo), .steps = steps };
    r.left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    r.right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    r.a = xcalloc((size_t)r.count + 2, sizeof(double));
    r.b = xcalloc((size_t)r.count + 2, sizeof(double));

    /* The serial reference and its time, on rank 0 alone. */
    double t_serial = 0.0;
    if (rank == 0) {
        r.su = xcalloc((size_t)n + 2, sizeof(double));
        r.sv = xcalloc((size_t)n + 2, sizeof(double));
        for (int rep = 0; rep <= reps; rep++) {
            double start = pr_now();
            run_serial(&r);
            double t = pr_now() - start;
            if (rep > 0 && (t_serial == 0.0 || t < t_serial))
                t_serial = t;
        }
    }
    quiet_barrier();

    /* The distributed run: one warm-up, then the best of `reps`; each run
     * starts afresh, and the last one is checked. */
    double t_dist = INFINITY;
    for (int rep = 0; rep <= reps; rep++) {
        reset(&r);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        run_distributed(&r);
        double t = MPI_Wtime() - start, slowest;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rep > 0 && slowest < t_dist)
            t_dist = slowest;
    }

    /* Gather the blocks on rank 0 (task 3) to compare them with the serial rod. */
    int *counts = xcalloc((size_t)size, sizeof(int));
    int *displs = xcalloc((size_t)size, sizeof(int));
    for (int q = 0; q < size; q++) {
        long qlo, qhi;
        block_range(n, size, q, &qlo, &qhi);
        counts[q] = (int)(qhi - qlo);
        displs[q] = (int)qlo;
    }
    double *rod = rank == 0 ? xcalloc((size_t)n, sizeof(double)) : NULL;
    MPI_Gatherv(r.result + 1, r.count, MPI_DOUBLE, rod, counts, displs, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);

    if (rank == 0) {
        const double *expect = steps % 2 == 0 ? r.su : r.sv; /* where the last step went */
        long off = 0;
        double checksum = 0.0, worst = 0.0;
        for (long i = 0; i < n; i++) {
            double d = fabs(rod[i] - expect[i + 1]);
            if (!(d <= 1e-12)) /* the same arithmetic: 0 in practice; NaN counts as off */
                off++;
            if (d > worst)
                worst = d;
            checksum += rod[i]; /* in cell order: the same on any number of ranks */
        }
        printf("  largest difference from the serial rod: %.3g\n", worst);
        pr_check_int("cells differing from serial", off, 0);
        pr_result_int("cells_off", off);
        pr_result_double("checksum", checksum, 1e-12);
        pr_result_double("middle_cell", rod[n / 2], 1e-12);
        pr_print_time("serial (rank 0 alone)", t_serial, 0, NULL);
        char what[64];
        snprintf(what, sizeof what, "%d rank%s", size, size == 1 ? "" : "s");
        pr_print_time(what, t_dist, t_serial, "serial");
        printf("    per step: %.2f us, of which each rank computes about %ld cells\n",
               t_dist / (steps > 0 ? steps : 1) * 1e6, (n + size - 1) / size);
    }
    free(rod);
    free(counts);
    free(displs);
    free(r.a);
    free(r.b);
    free(r.su);
    free(r.sv);

    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
