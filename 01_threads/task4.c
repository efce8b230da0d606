/*
 * Room 01, task 4: uneven work, static and dynamic schedules.
 *
 * Solve n equations a*x + b = 0 (x = -b/a; a is never 0).  The catch: item i
 * then "polishes" its answer with work[i] Newton steps, and work[i] grows with
 * i (with some random jitter), so late items cost far more than early ones.
 * The answers stay the same; only the cost is uneven, as in real programs
 * where some items need many more iterations than others.
 *
 *   TODO 1: all the items, shared out in advance: every thread gets one
 *           contiguous block of them (checksum_static, static_threads_used).
 *   TODO 2: all the items again, but handed out while the loop runs, to
 *           whichever thread is free next (checksum_dynamic).
 *
 * Both are timed against the serial loop, and the program prints how the work
 * was spread over the threads.  Which schedule wins, and why?
 *
 * Read first: README.md, "OpenMP: fork-join with pragmas", "Schedules: sharing out uneven work".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task4 task4.c -lm -pthread -fopenmp
 *   ./task4 threads=4 n=20000
 * Grade it from the top folder:  make grade TASK=01_threads/task4
 */
#include "pr.h"

#include <omp.h>

#define MAX_THREADS 64

typedef struct {
    long n;
    const double *a, *b; /* the equations a[i]*x + b[i] = 0 */
    const long *work;    /* how many Newton steps item i takes */
    double *x;           /* the answers */
    int *owner;          /* which thread solved item i */
} items_t;

/* Solves a*x + b = 0, then takes `steps` Newton steps x -= f(x)/f'(x) with
 * f(x) = a*x + b.  The first answer is already right, so the steps change it
 * by a rounding error at most; they only cost time: one division each. */
static double solve(double a, double b, long steps)
{
    double x = -b / a;
    for (long k = 0; k < steps; k++)
        x -= (a * x + b) / a;
    return x;
}

/* Item i: solve it and note which thread did.  Every item writes only its
 * own x[i] and owner[i], so items can run in any order, on any thread. */
static void do_item(const items_t *d, long i)
{
    d->x[i] = solve(d->a[i], d->b[i], d->work[i]);
    d->owner[i] = omp_get_thread_num();
}

static void run_static(const items_t *d)
{
    // TODO 1: Process every item exactly once with a team of threads, the
    //         iterations divided into one block per thread before the loop
    //         starts.  Name that schedule explicitly, not by default.
    (void)d; /* TODO 1: the loop, blocks fixed in advance */
}

static void run_dynamic(const items_t *d)
{
    // TODO 2: The same work, but the items go out while the loop runs: a
    //         thread that finishes takes the next item not yet taken.  Once it
    //         passes, try a few chunk sizes and compare the timings.
    (void)d; /* TODO 2: the loop, items handed out as threads free up */
}

/* ---- no need to change below ---- */

static void run_serial(const items_t *d)
{
    for (long i = 0; i < d->n; i++)
        do_item(d, i);
}

typedef struct {
    const items_t *d;
    void (*run)(const items_t *);
} run_t;

static void run_one(void *ctx)
{
    run_t *r = ctx;
    r->run(r->d);
}

/* Clears the answers, times one version (a warm-up, then the best of 3), and
 * leaves the answers and owners of its last run in d. */
static double time_version(const items_t *d, void (*run)(const items_t *))
{
    for (long i = 0; i < d->n; i++) {
        d->x[i] = 0.0;
        d->owner[i] = -1;
    }
    run_t r = { d, run };
    return pr_best_of(3, run_one, &r);
}

/* Adds up the answers in index order: the same sum whatever the schedule. */
static double checksum(const items_t *d)
{
    double sum = 0.0;
    for (long i = 0; i < d->n; i++)
        sum += d->x[i];
    return sum;
}

/* Prints each thread's share of the work and returns how many threads
 * solved at least one item. */
static int show_spread(const items_t *d, const char *name, int threads)
{
    long long share[MAX_THREADS] = { 0 }, total = 0;
    long items[MAX_THREADS] = { 0 };
    int used = 0;
    for (long i = 0; i < d->n; i++) {
        int t = d->owner[i];
        if (t >= 0 && t < MAX_THREADS) {
            items[t]++;
            share[t] += d->work[i];
            total += d->work[i];
        }
    }
    printf("  %-8s share of the work per thread:", name);
    for (int t = 0; t < threads; t++) {
        if (items[t] > 0)
            used++;
        if (threads <= 8)
            printf(" %5.1f%%", total > 0 ? 100.0 * (double)share[t] / (double)total : 0.0);
    }
    if (threads > 8)
        printf(" (not shown for more than 8 threads)");
    printf("\n");
    return used;
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 20000, 1, 10000000);
    long max_work = (long)pr_arg_long(argc, argv, "work", 1000, 0, 1000000);
    int threads = (int)pr_arg_long(argc, argv, "threads", omp_get_num_procs(), 1, MAX_THREADS);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    omp_set_dynamic(0);
    omp_set_num_threads(threads);

    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    double *x = malloc((size_t)n * sizeof *x);
    long *work = malloc((size_t)n * sizeof *work);
    int *owner = malloc((size_t)n * sizeof *owner);
    if (!a || !b || !x || !work || !owner) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    /* a in [1, 10) or (-10, -1], never 0; b in [-100, 100).  The work ramps
     * up from 0 to about max_work along the items, times a random 0.5 .. 1.5. */
    pr_rng rng = pr_rng_seed(seed, 4);
    long long total_work = 0;
    for (long i = 0; i < n; i++) {
        double magnitude = pr_rng_double(&rng, 1.0, 10.0);
        a[i] = pr_rng_range(&rng, 0, 1) ? magnitude : -magnitude;
        b[i] = pr_rng_double(&rng, -100.0, 100.0);
        long ramp = (long)((double)max_work * (double)i / (double)n);
        work[i] = ramp * pr_rng_range(&rng, 50, 150) / 100;
        total_work += work[i];
    }
    items_t d = { n, a, b, work, x, owner };

    printf("task4: n=%ld equations, up to about %ld Newton steps each (%lld in all), threads=%d "
           "(seed %llu)\n",
           n, max_work, total_work, threads, (unsigned long long)seed);

    double t_serial = time_version(&d, run_serial);
    double expected = checksum(&d);

    double t_static = time_version(&d, run_static);
    double sum_static = checksum(&d);
    int static_used = show_spread(&d, "static", threads);

    double t_dynamic = time_version(&d, run_dynamic);
    double sum_dynamic = checksum(&d);
    int dynamic_used = show_spread(&d, "dynamic", threads);
    printf("  threads that solved items: static %d, dynamic %d\n", static_used, dynamic_used);

    /* Every item is computed the same way on any thread, and the checksum
     * adds in index order, so the sums agree exactly; the tolerance is only
     * a safety margin. */
    const double tol = 1e-12;
    pr_check_double("checksum static", sum_static, expected, tol);
    pr_check_double("checksum dynamic", sum_dynamic, expected, tol);
    /* schedule(static) gives every thread a block when n >= threads; which
     * threads take part under schedule(dynamic) depends on timing, so that
     * one is shown above but not checked. */
    pr_check_int("threads used by static", static_used, n < threads ? n : threads);
    pr_result_double("checksum_static", sum_static, tol);
    pr_result_double("checksum_dynamic", sum_dynamic, tol);
    pr_result_int("static_threads_used", static_used);

    pr_print_time("serial", t_serial, 0, NULL);
    pr_print_time("schedule(static)", t_static, t_serial, "serial");
    pr_print_time("schedule(dynamic)", t_dynamic, t_serial, "serial");

    free(a);
    free(b);
    free(x);
    free(work);
    free(owner);
    return pr_finish();
}
