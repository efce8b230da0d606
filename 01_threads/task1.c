/*
 * Room 01, task 1: a parallel map with pthreads.
 *
 * Square every element of an array of 64-bit integers with several POSIX
 * threads.  Each thread gets one contiguous chunk of the array.  The length
 * need not be a multiple of the thread count, yet the chunks must cover every
 * index exactly once and be as equal as possible: no chunk may be more than
 * one element larger than another.
 *
 *   TODO 1: where each thread's chunk begins and ends (the result lines
 *           chunk_layout_errors and largest_chunk check it).
 *   TODO 2: make the threads do their chunks at the same time, and return only
 *           once every one of them has finished (sum_of_squares, mismatches).
 *
 * Read first: README.md, "pthreads: create, join and chunks", "Splitting items into equal chunks".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task1 task1.c -lm -pthread -fopenmp
 *   ./task1 threads=4 n=1000003
 * Grade it from the top folder:  make grade TASK=01_threads/task1
 */
#include "pr.h"

#include <pthread.h>
#include <unistd.h>

#define MAX_THREADS 64

/* What one thread needs to know: where the data is and which part is its own. */
typedef struct {
    const int64_t *in;
    int64_t *out;
    long lo, hi; /* this thread's chunk: indices lo, lo+1, ..., hi-1 */
} chunk_t;

/* The body of every thread: square its own chunk.  A thread writes only
 * out[lo..hi-1], so no two threads ever write the same element and no locking
 * is needed.  The signature void *f(void *) is the one pthread_create wants. */
static void *square_chunk(void *arg)
{
    chunk_t *c = arg;
    for (long i = c->lo; i < c->hi; i++)
        c->out[i] = c->in[i] * c->in[i];
    return NULL;
}

/* Squares in[0..n-1] into out[0..n-1] with `threads` threads.  The chunk
 * bounds are left in chunk[] so that main can check them. */
static void parallel_square(const int64_t *in, int64_t *out, long n, int threads, chunk_t *chunk)
{
    pthread_t tid[MAX_THREADS];

    for (int t = 0; t < threads; t++) {
        // TODO 1: Replace the two placeholder bounds with this thread's chunk:
        //         the first index it owns and one past its last.  Taken in
        //         thread order the chunks must follow each other without gap or
        //         overlap, start at index 0, end at the array's end, and no two
        //         may differ in size by more than one.  Try your rule by hand on
        //         10 items and 4 threads before you type it.
        long lo = 0, hi = 0; /* TODO 1: this thread's chunk */
        (void)n;             /* (only silences an "unused" warning) */
        chunk[t].in = in;
        chunk[t].out = out;
        chunk[t].lo = lo;
        chunk[t].hi = hi;
    }

    // TODO 2: Square every chunk, each in a thread of its own, with all the
    //         threads running at the same time (pthread_create and
    //         pthread_join).  When this function returns, every thread must
    //         have finished and its output must be visible.  A thread that
    //         fails to start must end the program with a message.
    (void)tid;          /* TODO 2: the chunks, squared in parallel */
    (void)square_chunk; /* (these two lines only silence "unused" warnings) */
}

/* ---- no need to change below ---- */

/* The serial version: the reference result and the baseline time. */
static void serial_square(const int64_t *in, int64_t *out, long n)
{
    for (long i = 0; i < n; i++)
        out[i] = in[i] * in[i];
}

typedef struct {
    const int64_t *in;
    int64_t *out;
    long n;
    int threads;
    chunk_t chunk[MAX_THREADS];
} run_t;

static void run_serial(void *ctx)
{
    run_t *r = ctx;
    serial_square(r->in, r->out, r->n);
}

static void run_parallel(void *ctx)
{
    run_t *r = ctx;
    parallel_square(r->in, r->out, r->n, r->threads, r->chunk);
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long default_threads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : cores;
    long n = (long)pr_arg_long(argc, argv, "n", 5000000, 1, 20000000);
    int threads = (int)pr_arg_long(argc, argv, "threads", default_threads, 1, MAX_THREADS);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int64_t *in = malloc((size_t)n * sizeof *in);
    int64_t *expected = malloc((size_t)n * sizeof *expected);
    int64_t *out = calloc((size_t)n, sizeof *out);
    if (!in || !expected || !out) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    /* |value| <= 500000, so a square is <= 2.5e11 and the sum of 20 million
     * of them still fits in 64 bits. */
    pr_rng rng = pr_rng_seed(seed, 1);
    for (long i = 0; i < n; i++)
        in[i] = pr_rng_range(&rng, -500000, 500000);

    printf("task1: squaring n=%ld integers with threads=%d (seed %llu)\n", n, threads,
           (unsigned long long)seed);

    run_t serial = { .in = in, .out = expected, .n = n, .threads = 1 };
    double t_serial = pr_best_of(3, run_serial, &serial);

    run_t par = { .in = in, .out = out, .n = n, .threads = threads };
    double t_parallel = pr_best_of(3, run_parallel, &par);

    /* The chunks: printed for people, checked for the grader. */
    long largest = 0, layout_errors = 0, next = 0;
    for (int t = 0; t < threads; t++) {
        const chunk_t *c = &par.chunk[t];
        if (threads <= 8)
            printf("  thread %d: [%ld, %ld)  %ld elements\n", t, c->lo, c->hi, c->hi - c->lo);
        if (c->lo != next || c->hi < c->lo)
            layout_errors++; /* a gap, an overlap or a chunk out of order */
        if (c->hi - c->lo > largest)
            largest = c->hi - c->lo;
        next = c->hi;
    }
    if (next != n)
        layout_errors++; /* the last chunk must end at n */

    long long sum = 0, sum_expected = 0, mismatches = 0;
    for (long i = 0; i < n; i++) {
        sum += out[i];
        sum_expected += expected[i];
        if (out[i] != expected[i])
            mismatches++;
    }

    pr_check_int("sum of squares", sum, sum_expected);
    pr_check_int("elements wrong", mismatches, 0);
    pr_check_int("chunk layout errors", layout_errors, 0);
    pr_check_int("largest chunk", largest, (n + threads - 1) / threads);
    pr_result_int("sum_of_squares", sum);
    pr_result_int("mismatches", mismatches);
    pr_result_int("chunk_layout_errors", layout_errors);
    pr_result_int("largest_chunk", largest);

    pr_print_time("serial", t_serial, 0, NULL);
    pr_print_time("pthreads", t_parallel, t_serial, "serial");

    free(in);
    free(expected);
    free(out);
    return pr_finish();
}
