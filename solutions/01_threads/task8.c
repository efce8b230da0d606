/*
 * Room 01, task 8: false sharing, counters that share a cache line.
 *
 * Count how many of n random numbers are multiples of 3, with a team of
 * threads in which every thread has a counter of its own and adds to it at
 * every number (0 or 1).  No two threads ever write the same counter, so
 * there is no race; and yet the layout of the counters decides the speed:
 *
 *   packed  (written for you): the counters side by side in one array, so
 *           several of them share one cache line (result hits_packed);
 *   TODO 1: a counter type laid out so that, in an array of them, no two
 *           counters share a cache line (result counters_per_line);
 *   TODO 2: the same count, with every thread's counter of that type
 *           (result hits_padded).
 *
 * Both are timed against one thread counting alone.  The counts are checked,
 * exactly; the times are only printed: compare them for 1, 2 and 4 threads.
 *
 * Read first: README.md, "OpenMP: fork-join with pragmas", "False sharing: one cache line, two cores".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task8 task8.c -lm -pthread -fopenmp
 *   ./task8 threads=2 n=20000000
 * Grade it from the top folder:  make grade TASK=01_threads/task8
 */
#include "pr.h"

#include <omp.h>
#include <stdalign.h>

#define MAX_THREADS 64
#define CACHE_LINE 64 /* bytes: x86-64 and most ARM64 cores (Apple's M chips: 128) */

//@ TODO 1: A type for one thread's counter, holding a volatile long named
//@         value (the code below reads it), laid out so that in an array of
//@         these counters no two values ever share a CACHE_LINE-byte line.
//@ placeholder: typedef struct { volatile long value; } padded_counter; /* TODO 1: one per cache line */
//@ solution {
typedef struct {
    alignas(CACHE_LINE) volatile long value; /* the struct is aligned, so its size is CACHE_LINE too */
} padded_counter;
//@ }

/* The counters.  volatile: every addition really loads the counter from memory
 * and stores it back, as shared state that another thread may read must be;
 * without it the compiler could keep a count in a register until the end.
 * packed starts on a cache line, so up to 8 counters share its first line. */
static alignas(CACHE_LINE) volatile long packed[MAX_THREADS];
static padded_counter padded[MAX_THREADS];

/* The packed version: thread t adds into counts[t], at every number. */
static void count_packed(const uint32_t *v, long n, volatile long *counts)
{
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++)
            counts[t] += v[i] % 3 == 0;
    }
}

static void count_padded(const uint32_t *v, long n, padded_counter *counts)
{
    //@ TODO 2: The count of count_packed, with thread t's counter in counts[t]
    //@         (one of your padded counters).  Every thread adds to its own
    //@         counter only, at every number, as the packed version does.
    //@ placeholder: (void)v, (void)n, (void)counts; /* TODO 2: the count with padded counters */
    //@ solution {
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++)
            counts[t].value += v[i] % 3 == 0;
    }
    //@ }
}

/* ---- no need to change below ---- */

/* One thread, one counter: the reference count and the baseline time. */
static long count_serial(const uint32_t *v, long n)
{
    volatile long count = 0;
    for (long i = 0; i < n; i++)
        count += v[i] % 3 == 0;
    return count;
}

typedef struct {
    const uint32_t *v;
    long n;
    int threads;
    long total;
} run_t;

static void run_serial(void *ctx)
{
    run_t *r = ctx;
    r->total = count_serial(r->v, r->n);
}

/* Each run starts from zeroed counters and adds up the threads' counts. */
static void run_packed(void *ctx)
{
    run_t *r = ctx;
    for (int t = 0; t < MAX_THREADS; t++)
        packed[t] = 0;
    count_packed(r->v, r->n, packed);
    r->total = 0;
    for (int t = 0; t < r->threads; t++)
        r->total += packed[t];
}

static void run_padded(void *ctx)
{
    run_t *r = ctx;
    for (int t = 0; t < MAX_THREADS; t++)
        padded[t].value = 0;
    count_padded(r->v, r->n, padded);
    r->total = 0;
    for (int t = 0; t < r->threads; t++)
        r->total += padded[t].value;
}

/* How many counters of an array share the line of the first one's value. */
static int counters_per_line(void)
{
    uintptr_t first = (uintptr_t)&padded[0].value / CACHE_LINE;
    int same = 0;
    for (int t = 0; t < MAX_THREADS; t++)
        if ((uintptr_t)&padded[t].value / CACHE_LINE == first)
            same++;
    return same;
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 20000000, 1, 100000000);
    int threads = (int)pr_arg_long(argc, argv, "threads", omp_get_num_procs(), 1, MAX_THREADS);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    omp_set_dynamic(0);
    omp_set_num_threads(threads);

    uint32_t *v = malloc((size_t)n * sizeof *v);
    if (!v) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed(seed, 8);
    for (long i = 0; i < n; i++)
        v[i] = (uint32_t)pr_rng_next(&rng);

    int per_line = counters_per_line();
    printf("task8: multiples of 3 among n=%ld numbers, threads=%d (seed %llu); a padded counter takes "
           "%zu bytes, %d per %d-byte line\n",
           n, threads, (unsigned long long)seed, sizeof(padded_counter), per_line, CACHE_LINE);

    run_t serial = { v, n, threads, 0 }, pk = serial, pd = serial;
    double t_serial = pr_best_of(3, run_serial, &serial);
    double t_packed = pr_best_of(3, run_packed, &pk);
    double t_padded = pr_best_of(3, run_padded, &pd);

    pr_check_int("hits, packed counters", pk.total, serial.total);
    pr_check_int("hits, padded counters", pd.total, serial.total);
    pr_check_int("padded counters per line", per_line, 1);
    pr_result_int("hits_packed", pk.total);
    pr_result_int("hits_padded", pd.total);
    pr_result_int("counters_per_line", per_line);

    pr_print_time("one thread, one counter", t_serial, 0, NULL);
    pr_print_time("packed counters", t_packed, t_serial, "one thread");
    pr_print_time("padded counters", t_padded, t_serial, "one thread");
    if (t_padded > 0)
        printf("  packed takes %.2fx the time of padded\n", t_packed / t_padded);

    free(v);
    return pr_finish();
}
