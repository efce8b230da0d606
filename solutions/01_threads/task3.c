/*
 * Room 01, task 3: a race condition, and three ways to fix it.
 *
 * Count how many of n random numbers are multiples of 3.  The program first
 * runs a naive parallel loop in which every thread increments one shared
 * counter: that is a race, and it loses updates (the program shows you how
 * many).  It is racy on purpose; you do not have to fix it.
 *
 * Then it is your turn, three times: the same count, made correct in
 * parallel by three different means that OpenMP offers, one per TODO (the
 * result lines count_atomic, count_critical and count_reduction).  Each is
 * timed against the serial loop.  Look at the speedups: all three are
 * correct, but they are not equally fast.  Why?
 *
 * Read first: README.md, "OpenMP: fork-join with pragmas", "Reductions", "Race conditions and three fixes".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task3 task3.c -lm -pthread -fopenmp
 *   ./task3 threads=4 n=1000000
 * Grade it from the top folder:  make grade TASK=01_threads/task3
 */
#include "pr.h"

#include <omp.h>
#include <stdatomic.h>

/* The serial version: the reference result and the baseline time. */
static long long count_serial(const int *v, long n)
{
    long long count = 0;
    for (long i = 0; i < n; i++)
        if (v[i] % 3 == 0)
            count++;
    return count;
}

/* The naive parallel version: RACY ON PURPOSE.
 *
 * `count++` on a shared variable is three steps: load count into a register,
 * add one, store it back.  Two threads that load the same old value both store
 * old+1, and one increment is lost.  In plain C such a data race is undefined
 * behaviour and the optimiser may hide or change it, so this demonstration
 * writes the three steps out with relaxed atomic loads and stores: every step
 * really happens, one at a time, exactly as in the timeline in the README,
 * and race detectors such as ThreadSanitizer accept it as intended.  The
 * read-modify-write as a whole is still not atomic, which is the bug. */
static long long count_naive(const int *v, long n)
{
    _Atomic long long count = 0;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        if (v[i] % 3 == 0) {
            long long old = atomic_load_explicit(&count, memory_order_relaxed); /* load  */
            atomic_store_explicit(&count, old + 1, memory_order_relaxed);       /* store */
        }
    }
    return atomic_load(&count);
}

static long long count_atomic(const int *v, long n)
{
    //@ TODO 1: Count in parallel into the one shared counter, and make each
    //@         update of it a single indivisible step with OpenMP's atomic
    //@         construct, so that no two threads' updates can interleave.
    //@ placeholder: long long count = 0; /* TODO 1: the parallel loop with omp atomic */
    //@ placeholder: (void)v;             /* (these two lines only silence */
    //@ placeholder: (void)n;             /*  "unused" warnings)           */
    //@ solution {
    long long count = 0;
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        if (v[i] % 3 == 0) {
#pragma omp atomic
            count++;
        }
    //@ }
    return count;
}

static long long count_critical(const int *v, long n)
{
    //@ TODO 2: The same shared counter, protected this time by a critical
    //@         section: at most one thread at a time may run the protected code.
    //@         Protect as little as is needed for a correct count.
    //@ placeholder: long long count = 0; /* TODO 2: the parallel loop with omp critical */
    //@ placeholder: (void)v;
    //@ placeholder: (void)n;
    //@ solution {
    long long count = 0;
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        if (v[i] % 3 == 0) {
#pragma omp critical
            count++;
        }
    //@ }
    return count;
}

static long long count_reduction(const int *v, long n)
{
    //@ TODO 3: No shared update inside the loop at all: each thread counts
    //@         into a private copy, and OpenMP combines the copies once at the
    //@         end.  No lock and no atomic step is needed here.
    //@ placeholder: long long count = 0; /* TODO 3: the parallel loop with a reduction */
    //@ placeholder: (void)v;
    //@ placeholder: (void)n;
    //@ solution {
    long long count = 0;
#pragma omp parallel for reduction(+ : count)
    for (long i = 0; i < n; i++)
        if (v[i] % 3 == 0)
            count++;
    //@ }
    return count;
}

/* ---- no need to change below ---- */

typedef struct {
    const int *v;
    long n;
    long long (*count)(const int *, long);
    volatile long long result; /* volatile: every timed run really happens */
} run_t;

static void run_one(void *ctx)
{
    run_t *r = ctx;
    r->result = r->count(r->v, r->n);
}

/* Times one version: a warm-up, then the best of 3 runs.  r->result is the
 * count from the last run. */
static double time_version(run_t *r, long long (*count)(const int *, long))
{
    r->count = count;
    return pr_best_of(3, run_one, r);
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 2000000, 100, 100000000);
    int threads = (int)pr_arg_long(argc, argv, "threads", omp_get_num_procs(), 1, 64);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    int race = (int)pr_arg_long(argc, argv, "race", 1, 0, 1);
    pr_args_done(argc, argv);
    omp_set_dynamic(0);
    omp_set_num_threads(threads);

    int *v = malloc((size_t)n * sizeof *v);
    if (!v) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed(seed, 3);
    for (long i = 0; i < n; i++)
        v[i] = (int)pr_rng_range(&rng, 0, 999);

    printf("task3: counting multiples of 3 among n=%ld numbers with threads=%d (seed %llu)\n", n,
           threads, (unsigned long long)seed);

    run_t r = { .v = v, .n = n };
    double t_serial = time_version(&r, count_serial);
    long long expected = r.result;

    /* The race, for people to look at (never graded: it changes from run to
     * run).  race=0 skips it, for instance under a race detector. */
    if (race) {
        double t_naive = time_version(&r, count_naive);
        long long lost = expected - r.result;
        printf("  naive shared count++        got %lld, expected %lld: %lld updates lost (%.1f%%)\n",
               r.result, expected, lost, expected > 0 ? 100.0 * (double)lost / (double)expected : 0.0);
        if (threads == 1)
            printf("  (with one thread nothing can be lost: try threads=2 or more)\n");
        pr_print_time("naive (wrong!)", t_naive, t_serial, "serial");
    }

    double t_atomic = time_version(&r, count_atomic);
    long long c_atomic = r.result;
    double t_critical = time_version(&r, count_critical);
    long long c_critical = r.result;
    double t_reduction = time_version(&r, count_reduction);
    long long c_reduction = r.result;

    pr_check_int("count with atomic", c_atomic, expected);
    pr_check_int("count with critical", c_critical, expected);
    pr_check_int("count with reduction", c_reduction, expected);
    pr_result_int("count_atomic", c_atomic);
    pr_result_int("count_critical", c_critical);
    pr_result_int("count_reduction", c_reduction);

    pr_print_time("serial", t_serial, 0, NULL);
    pr_print_time("atomic", t_atomic, t_serial, "serial");
    pr_print_time("critical", t_critical, t_serial, "serial");
    pr_print_time("reduction", t_reduction, t_serial, "serial");

    free(v);
    return pr_finish();
}
