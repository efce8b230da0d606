/*
 * Room 03, task 7: bug hunt.  A cellular automaton on a ring of cells.
 *
 * n cells, each 0 or 1, stand in a ring: cell n-1 and cell 0 are neighbours,
 * like every other pair of consecutive cells.  In every step each cell gets a
 * new value from its own and its two neighbours' old values, by Wolfram's
 * rule 30:  new = before XOR (self OR after).  The pattern that grows is
 * chaotic: change one cell, and within a few steps many cells differ.
 *
 * The ring is cut into one block of cells per rank (the uneven split of
 * task 1).  Every block has a ghost cell at each end, refreshed before every
 * step by a halo exchange with MPI_Sendrecv between neighbouring ranks; a
 * Cartesian communicator tells each rank who its neighbours are.  After
 * `steps` steps rank 0 gathers the ring and compares it with the same
 * automaton run serially, on rank 0 alone: the number of cells that differ
 * (and where the first and the last of them are), the number of live cells
 * and a checksum.
 *
 * This program has ONE bug, which makes it fail grading: it runs to the end,
 * on any number of ranks, and prints wrong results beside the expected ones.
 * Find it and fix it; nothing else needs to change.
 *
 * Read first: README.md, "Neighbours on a ring", "MPI_Sendrecv", "Task 7: bug hunt".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task7 task7.c -lm
 *   mpiexec -n 4 ./task7 n=1009 steps=12
 * Grade it from the top folder:  make grade TASK=03_mpi/task7
 */
#define PR_MPI
#include "pr.h"
#include "mpi_tools.h" /* xcalloc: the room's shared helpers */

#define TAG_FORWARD 1  /* a cell travelling to the next rank round the ring */
#define TAG_BACKWARD 2 /* ... and to the previous one */

/* Rule 30: the new value of a cell from its neighbour before, itself and its
 * neighbour after. */
static uint8_t rule30(uint8_t before, uint8_t self, uint8_t after)
{
    return (uint8_t)(before ^ (self | after));
}

/* Rank `rank`'s block [lo, hi) of [0, n): sizes differ by at most one. */
static void block_range(long n, int size, int rank, long *lo, long *hi)
{
    long base = n / size, extra = n % size;
    *lo = rank * base + (rank < extra ? rank : extra);
    *hi = *lo + base + (rank < extra ? 1 : 0);
}

/* The starting value of cell i: from the seed and i alone. */
static uint8_t initial(uint64_t seed, long i)
{
    pr_rng rng = pr_rng_seed(seed, (uint64_t)i);
    return (uint8_t)pr_rng_range(&rng, 0, 1);
}

/* A communicator in which the ranks form a ring, and each rank's two
 * neighbours in it. */
static MPI_Comm make_ring(int *prev, int *next)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[1] = { size };
    //@ bug: int periods[1] = { 0 };
    //@ solution {
    /* (The bug hunt's bug: a ring that did not wrap round.  Even on 1 rank the rank is its
     * own neighbour on both sides, so the cells next to the seam between cell n-1 and
     * cell 0 went wrong whatever the rank count.) */
    int periods[1] = { 1 };
    //@ }
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Cart_shift(ring, 0, 1, prev, next);
    return ring;
}

/* `steps` steps on this rank's block.  u and v: count + 2 cells each, u[1 ..
 * count] the block, u[0] and u[count + 1] the ghosts.  Returns the array that
 * holds the last step. */
static uint8_t *run_distributed(MPI_Comm ring, int prev, int next, uint8_t *u, uint8_t *v,
                                int count, int steps)
{
    for (int s = 0; s < steps; s++) {
        /* My last cell goes forward, into the next rank's front ghost; my
         * front ghost gets the previous rank's last cell.  Then the same
         * backward: my first cell into the previous rank's back ghost. */
        MPI_Sendrecv(&u[count], 1, MPI_UINT8_T, next, TAG_FORWARD, &u[0], 1, MPI_UINT8_T, prev,
                     TAG_FORWARD, ring, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1], 1, MPI_UINT8_T, prev, TAG_BACKWARD, &u[count + 1], 1, MPI_UINT8_T,
                     next, TAG_BACKWARD, ring, MPI_STATUS_IGNORE);
        for (int i = 1; i <= count; i++)
            v[i] = rule30(u[i - 1], u[i], u[i + 1]);
        uint8_t *t = u;
        u = v;
        v = t;
    }
    return u;
}

/* The same automaton on the whole ring, on one rank: c[0 .. n-1] in, the
 * result back in c; w is scratch of n cells. */
static void run_serial(uint8_t *c, uint8_t *w, long n, int steps)
{
    for (int s = 0; s < steps; s++) {
        for (long i = 0; i < n; i++)
            w[i] = rule30(c[(i - 1 + n) % n], c[i], c[(i + 1) % n]);
        memcpy(c, w, (size_t)n);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 1000003, 1, 100000000);
    int steps = (int)pr_arg_long(argc, argv, "steps", 100, 1, 1000000);
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
        printf("task7: rule 30 on a ring of %ld cells, %d steps, %d rank%s (seed %llu)\n", n,
               steps, size, size == 1 ? "" : "s", (unsigned long long)seed);

    /* The serial reference, on rank 0 alone; the other ranks wait quietly. */
    uint8_t *c = NULL, *w = NULL;
    double t_serial = 0.0;
    if (rank == 0) {
        c = xcalloc((size_t)n, 1);
        w = xcalloc((size_t)n, 1);
        for (long i = 0; i < n; i++)
            c[i] = initial(seed, i);
        double t0 = pr_now();
        run_serial(c, w, n, steps);
        t_serial = pr_now() - t0;
    }
    quiet_barrier();

    int prev, next;
    MPI_Comm ring = make_ring(&prev, &next);
    long lo, hi;
    block_range(n, size, rank, &lo, &hi);
    int count = (int)(hi - lo);
    uint8_t *u = xcalloc((size_t)count + 2, 1), *v = xcalloc((size_t)count + 2, 1);
    for (int i = 1; i <= count; i++)
        u[i] = initial(seed, lo + i - 1);

    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    uint8_t *mine = run_distributed(ring, prev, next, u, v, count, steps);
    double t = MPI_Wtime() - start, t_dist;
    MPI_Allreduce(&t, &t_dist, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    /* Rank 0 gathers the blocks (task 3) to compare them with the serial run. */
    int *counts = xcalloc((size_t)size, sizeof(int)), *displs = xcalloc((size_t)size, sizeof(int));
    for (int q = 0; q < size; q++) {
        long qlo, qhi;
        block_range(n, size, q, &qlo, &qhi);
        counts[q] = (int)(qhi - qlo);
        displs[q] = (int)qlo;
    }
    uint8_t *all = rank == 0 ? xcalloc((size_t)n, 1) : NULL;
    MPI_Gatherv(mine + 1, count, MPI_UINT8_T, all, counts, displs, MPI_UINT8_T, 0,
                MPI_COMM_WORLD);

    if (rank == 0) {
        long off = 0, live = 0, expect_live = 0;
        int64_t checksum = 0, expect_checksum = 0;
        for (long i = 0; i < n; i++) {
            if (all[i] != c[i] && off++ < 20)
                printf("%s %ld", off == 1 ? "  indices of the cells that differ from the serial run:" : "", i);
            live += all[i];
            expect_live += c[i];
            checksum += all[i] ? i : 0;
            expect_checksum += c[i] ? i : 0;
        }
        if (off > 0)
            printf("%s\n", off > 20 ? " ..." : "");
        if (size <= 8)
            for (int q = 0; q < size; q++)
                printf("  rank %d: cells [%d, %d)\n", q, displs[q], displs[q] + counts[q]);
        pr_check_int("cells differing from serial", off, 0);
        pr_check_int("live cells", live, expect_live);
        pr_check_int("checksum of live indices", checksum, expect_checksum);
        pr_result_int("cells_off", off);
        pr_result_int("live", live);
        pr_result_int("checksum", checksum);
        pr_print_time("serial (rank 0 alone)", t_serial, 0, NULL);
        char what[64];
        snprintf(what, sizeof what, "%d rank%s", size, size == 1 ? "" : "s");
        pr_print_time(what, t_dist, t_serial, "serial");
    }
    free(c);
    free(w);
    free(all);
    free(counts);
    free(displs);
    free(u);
    free(v);
    MPI_Comm_free(&ring);

    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
