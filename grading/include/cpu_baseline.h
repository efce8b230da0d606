/*
 * cpu_baseline.h -- the CPU baselines a GPU program compares itself with, on one core
 * and on all of them: what room 04's tasks 1 to 6 (the bug hunt too) and room 05's tasks 2 and 4
 * share.  Each includes it after pr.h.
 *
 *   cpu_threads()                        OpenMP's thread count; 0 when built without it
 *   cpu_warm_up()                        starts OpenMP's threads before anything is timed
 *   print_cpu_times(what, t1, tn)        the CPU loop on 1 core and on all of them
 *   print_vs_cpu(what, t, t1, tn)        a GPU time, with its speedup against each
 *
 * A GPU's speedup against one CPU core says little: room 01 ran the same loops on
 * every core with OpenMP, and a server has dozens.  So the tasks time their CPU loop
 * twice, on one core and with OpenMP on all of them (OMP_NUM_THREADS limits it; under MPI,
 * the cores the other ranks leave: cpu_warm_up), and
 * label every speedup with its baseline.  The grader builds CUDA programs, with MPI
 * or without, with OpenMP (nvcc -Xcompiler -fopenmp; simcc -fopenmp); a build without
 * it prints the one-core figures only.  In the CPU simulator no GPU figure means anything.
 *
 * You need not edit it; reading it is optional.  Room 04's README.md: "Moving data: why
 * transfers can eat the gain" and "Timing a GPU honestly".
 */
#ifndef PARALLEL_ROOMS_CPU_BASELINE_H
#define PARALLEL_ROOMS_CPU_BASELINE_H

#include "pr.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* The threads an OpenMP loop gets here, or 0 when the program was built without OpenMP. */
static inline int cpu_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 0;
#endif
}

/* OpenMP starts its threads at the first parallel loop: do that before timing one.  In an
 * MPI program (room 05) rank 0 times the CPU while the other ranks wait in MPI, and a
 * waiting rank spins on a core: OpenMP gets the cores the others leave (measured on a GPU
 * machine, 16 threads beside 2 spinning ranks ran 8 times slower than one core). */
static inline void cpu_warm_up(void)
{
#ifdef _OPENMP
#ifdef MPI_VERSION
    int up = 0, ranks = 1;
    if (MPI_Initialized(&up) == MPI_SUCCESS && up)
        MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int cores = omp_get_num_procs(); /* those this process may run on */
    int want = cores - (ranks - 1) > 1 ? cores - (ranks - 1) : 1;
    if (want < omp_get_max_threads()) /* OMP_NUM_THREADS may ask for fewer */
        omp_set_num_threads(want);
#endif
#pragma omp parallel
    {
    }
#endif
}

/* The CPU loop's time on one core (t1) and on cpu_threads() threads (tn, when built
 * with OpenMP), with the second's speedup over the first. */
static inline void print_cpu_times(const char *what, double t1, double tn)
{
    char label[80];
    snprintf(label, sizeof label, "%s, 1 core", what);
    pr_print_time(label, t1, 0, NULL);
    if (cpu_threads() > 0) {
        snprintf(label, sizeof label, "%s, %d OpenMP thread%s", what, cpu_threads(), cpu_threads() == 1 ? "" : "s");
        pr_print_time(label, tn, t1, "1 core");
    } else {
        printf("  (built without OpenMP: no multi-threaded CPU baseline; add -Xcompiler -fopenmp)\n");
    }
}

/* A GPU time with its speedup against the CPU on one core (t1) and on all (tn). */
static inline void print_vs_cpu(const char *what, double t, double t1, double tn)
{
    printf("  time %-23s %10.6f s", what, t);
    if (t > 0 && t1 > 0)
        printf("   (%.2fx speedup vs 1 core", t1 / t);
    if (t > 0 && t1 > 0 && tn > 0 && cpu_threads() > 0)
        printf(", %.2fx vs %d OpenMP thread%s", tn / t, cpu_threads(), cpu_threads() == 1 ? "" : "s");
    printf("%s\n", t > 0 && t1 > 0 ? ")" : "");
}

#endif /* PARALLEL_ROOMS_CPU_BASELINE_H */
