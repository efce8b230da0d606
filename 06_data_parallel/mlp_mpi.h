/*
 * mlp_mpi.h -- room 06's checks over MPI's ranks: time_on_rank0() (with pr.h's
 * quiet_barrier()), spread_over_ranks(), check_replicas_identical().  The MPI
 * tasks 3 to 9 include it, after #define PR_MPI and pr.h.
 *
 * No need to change anything here.  README.md, "Why the replicas never drift
 * apart" explains the checks.
 */
#ifndef PARALLEL_ROOMS_MLP_MPI_H
#define PARALLEL_ROOMS_MLP_MPI_H

#include "pr.h"

#ifndef PR_MPI
#error "mlp_mpi.h is for MPI tasks: #define PR_MPI before #include \"pr.h\""
#endif

/* Runs fn(ctx) on rank 0 alone and returns the seconds it took there (0 on the
 * other ranks, which sleep in quiet_barrier() meanwhile, so that the serial
 * run is timed on a core of its own). */
static inline double time_on_rank0(void (*fn)(void *), void *ctx)
{
    double seconds = 0.0;
    if (pr_rank() == 0) {
        double start = pr_now();
        fn(ctx);
        seconds = pr_now() - start;
    }
    quiet_barrier();
    return seconds;
}

/* How far x differs over the ranks, relative to its largest value: 0 when every
 * rank holds the same x (a checksum: identical replicas).  *highest and *lowest
 * get the largest and the smallest x. */
static inline double spread_over_ranks(double x, double *highest, double *lowest)
{
    PR_SCAFFOLD(MPI_Allreduce(&x, highest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    PR_SCAFFOLD(MPI_Allreduce(&x, lowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
    return (*highest - *lowest) / (fabs(*highest) > 1.0 ? fabs(*highest) : 1.0);
}

/* Checks that every rank holds the same replica: the spread over the ranks of
 * its checksum must be 0 (to 1e-12, relative).  Call it on every rank; rank 0
 * prints the largest and the smallest checksum and the check `what`.  Returns 1
 * on every rank when the replicas are identical. */
static inline int check_replicas_identical(const char *what, double checksum)
{
    double highest, lowest;
    double spread = spread_over_ranks(checksum, &highest, &lowest);
    if (pr_rank() == 0) {
        printf("  checksum of the parameters: max %.17g, min %.17g over the ranks\n", highest,
               lowest);
        pr_check_double(what, spread, 0.0, 1e-12);
    }
    return spread <= 1e-12;
}

#endif /* PARALLEL_ROOMS_MLP_MPI_H */
