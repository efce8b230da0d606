/*
 * stream.c -- the bench's ceiling for memory-bound CPU work (make bench).
 *
 * STREAM-style kernels over arrays much larger than the caches, with OpenMP:
 *   copy   c[i] = a[i]              2 x 8 bytes per element (read a, write c)
 *   triad  a[i] = b[i] + s * c[i]   3 x 8 bytes
 *   sum    s += a[i]                1 x 8 bytes (an OpenMP reduction, simd)
 * For each thread count from 1 to `threads`, each kernel runs once to warm up,
 * then `reps` times; one line per kernel and thread count:
 *   bench kernel=copy threads=2 bytes=268435456 median=0.0312 min=0.0309 max=0.0330
 * (seconds).  Bandwidth = bytes / time; the copy bandwidth is the ceiling that
 * the bench compares memory-bound solutions with.  The arrays are first touched
 * in parallel, so their pages lie near the threads that use them.
 *
 *   stream n=16777216 threads=2 reps=10
 */
#include "pr.h"

#include <omp.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile double sink; /* keeps the sum from being optimised away */

static void run_kernel(int kernel, double *a, double *b, double *c, long n)
{
    const double s = 3.0;
    if (kernel == 0) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            c[i] = a[i];
    } else if (kernel == 1) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
    } else {
        /* simd: lets each thread keep several partial sums in a vector register;
         * with one running sum per thread the loop would wait on every add's
         * latency instead of on memory (the bench's README note says more). */
        double sum = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
        for (long i = 0; i < n; i++)
            sum += a[i];
        sink = sum;
    }
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 1L << 24, 1000, 1L << 30);
    int max_threads = (int)pr_arg_long(argc, argv, "threads", omp_get_num_procs(), 1, 256);
    int reps = (int)pr_arg_long(argc, argv, "reps", 10, 1, 1000);
    pr_args_done(argc, argv);
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b),
           *c = malloc((size_t)n * sizeof *c);
    double *times = malloc((size_t)reps * sizeof *times);
    if (!a || !b || !c || !times) {
        fprintf(stderr, "stream: out of memory for 3 arrays of %ld doubles\n", n);
        return 1;
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.5;
    }
    static const char *const names[] = { "copy", "triad", "sum" };
    static const int bytes_per[] = { 16, 24, 8 };
    for (int t = 1; t <= max_threads; t++) {
        omp_set_num_threads(t);
        for (int k = 0; k < 3; k++) {
            run_kernel(k, a, b, c, n); /* warm-up */
            for (int r = 0; r < reps; r++) {
                double start = omp_get_wtime();
                run_kernel(k, a, b, c, n);
                times[r] = omp_get_wtime() - start;
            }
            qsort(times, (size_t)reps, sizeof *times, compare_doubles);
            printf("bench kernel=%s threads=%d bytes=%ld median=%.6g min=%.6g max=%.6g\n", names[k], t,
                   (long)bytes_per[k] * n, times[reps / 2], times[0], times[reps - 1]);
        }
    }
    free(a), free(b), free(c), free(times);
    return 0;
}
