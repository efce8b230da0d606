/*
 * mpi_tools.h -- two small helpers that several of room 03's programs share:
 *
 *   best_of_all(reps, fn, ctx)   times fn on every rank together, the way
 *                                README.md's "Timing an MPI program" explains:
 *                                a warm-up, then the best of reps runs, each
 *                                from a barrier and as long as its slowest rank
 *   xcalloc(count, each)         zeroed memory, or every rank stops (MPI_Abort)
 *
 * You need not edit it.  A program includes it after  #define PR_MPI  and pr.h.
 */
#ifndef PARALLEL_ROOMS_MPI_TOOLS_H
#define PARALLEL_ROOMS_MPI_TOOLS_H

#ifndef PR_MPI
#error "mpi_tools.h is for MPI programs: #define PR_MPI and #include \"pr.h\" first"
#endif
#include "pr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Times fn(ctx) on all ranks together: one warm-up, then the best of `reps`; each
 * run starts from a barrier and counts as long as its slowest rank (MPI_MAX). */
static inline double best_of_all(int reps, void (*fn)(void *), void *ctx)
{
    double best = INFINITY;
    for (int r = 0; r <= reps; r++) {
        PR_SCAFFOLD(MPI_Barrier(MPI_COMM_WORLD));
        double start = MPI_Wtime();
        fn(ctx);
        double mine = MPI_Wtime() - start, slowest;
        PR_SCAFFOLD(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        if (r > 0 && slowest < best)
            best = slowest;
    }
    return best;
}

/* calloc that never returns NULL: out of memory, every rank stops. */
static inline void *xcalloc(size_t count, size_t each)
{
    void *p = calloc(count ? count : 1, each);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

#endif
