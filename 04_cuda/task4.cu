/*
 * Room 04, task 4: timing a GPU honestly, and when the GPU starts to win.
 *
 * The row sums of a matrix (100000 rows of 10 by default):
 *
 *   TODO 1: the kernel: one thread per row adds up that row;
 *   TODO 2: time the kernel RIGHTLY, on the GPU's own clock (CUDA events), so
 *           that the time covers the kernel's work and nothing but it.
 *
 * Read first: README.md, "Timing a GPU honestly", "Moving data: why transfers can eat the gain".
 *
 * The program also times it WRONGLY, with a host clock stopped straight after
 * the launch: a launch only queues the kernel and returns, so that clock
 * measures the queueing, not the work.  On small work both times are a few
 * microseconds and the wrong one looks just as plausible: compare them (the
 * lesson gives an H100's pair).  Then a small table: CPU time against
 * GPU time including the copies to and from the GPU, for growing sizes --
 * where (if at all) does the GPU start to win?
 *
 * Only the sums are graded (they are integers, exact in float); the times and
 * the crossover size differ from machine to machine, and mean nothing in the
 * CPU simulator.
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O2 -arch=native -I../grading/include -o task4 task4.cu
 *   anywhere:  ../grading/sim/simcc -O2 -I../grading/include -o task4 task4.cu
 *   ./task4 rows=100000 cols=10 maxrows=10000000
 * Grade it from the top folder:  make grade TASK=04_cuda/task4
 */
#include "pr.h"

#include <cuda_runtime.h>

#define TPB 256

/* sums[r] = M[r][0] + ... + M[r][cols-1]; M is row-major. */
__global__ void rowsum_kernel(const float *M, float *sums, long rows, int cols)
{
    // TODO 1: What the CPU version below does for one row, done by one thread
    //         for its own row; threads without a row do nothing.  The sums must
    //         equal the CPU's exactly (add in the same order).  Result lines
    //         wrong and total.
    (void)M; (void)sums; (void)rows; (void)cols; /* TODO 1 */
}

static void rowsum_launch(const float *M, float *sums, long rows, int cols)
{
    rowsum_kernel<<<(unsigned)((rows + TPB - 1) / TPB), TPB>>>(M, sums, rows, cols);
    CHECK(cudaGetLastError());
}

/* Returns the kernel's time in seconds, measured with events. */
static double time_right(const float *dM, float *dsums, long rows, int cols)
{
    float ms = 0;
    // TODO 2: Time one launch (use the launch helper above) with CUDA events,
    //         as "Timing a GPU honestly" teaches, leaving the milliseconds in ms.
    //         Must hold: the time covers the whole kernel and nothing of what the
    //         host does before or after; the value is read only once the GPU has
    //         got there; every CUDA call is checked; nothing is leaked.  Not
    //         graded (times vary), but the "timed rightly" line depends on it.
    (void)dM; (void)dsums; (void)rows; (void)cols; /* TODO 2 */
    return ms * 1e-3;
}

/* ---- no need to change below ---- */

static void rowsum_cpu(const float *M, float *sums, long rows, int cols)
{
    for (long r = 0; r < rows; r++) {
        float s = 0;
        for (int c = 0; c < cols; c++)
            s += M[r * cols + c];
        sums[r] = s;
    }
}

/* WRONG on purpose: the launch returns before the kernel has run. */
static double time_wrong(const float *dM, float *dsums, long rows, int cols)
{
    double t0 = pr_now();
    rowsum_launch(dM, dsums, rows, cols);
    double t = pr_now() - t0;
    CHECK(cudaDeviceSynchronize()); /* (only so the next measurement starts clean) */
    return t;
}

int main(int argc, char **argv)
{
    long rows = (long)pr_arg_long(argc, argv, "rows", 100000, 1, 10000000);
    int cols = (int)pr_arg_long(argc, argv, "cols", 10, 1, 1000);
    long maxrows = (long)pr_arg_long(argc, argv, "maxrows", 10000000, 1000, 20000000);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    printf("task4: row sums of a %ld x %d matrix; table up to %ld rows\n", rows, cols, maxrows);

    long big = rows > maxrows ? rows : maxrows;
    size_t mbytes = (size_t)big * cols * sizeof(float), sbytes = (size_t)big * sizeof(float);
    float *M = (float *)malloc(mbytes), *sums_cpu = (float *)malloc(sbytes);
    float *sums = (float *)calloc((size_t)big, sizeof(float));
    if (!M || !sums_cpu || !sums) {
        fprintf(stderr, "task4: out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
    for (long i = 0; i < (long)big * cols; i++)
        M[i] = (float)pr_rng_range(&rng, -9, 9); /* integers: every sum is exact */

    float *dM, *dsums;
    CHECK(cudaMalloc(&dM, mbytes));
    CHECK(cudaMalloc(&dsums, sbytes));
    CHECK(cudaMemset(dsums, 0, sbytes));
    CHECK(cudaMemcpy(dM, M, (size_t)rows * cols * sizeof(float), cudaMemcpyHostToDevice));

    /* Part 1: the same kernel timed wrongly and rightly (after a warm-up). */
    rowsum_launch(dM, dsums, rows, cols);
    CHECK(cudaDeviceSynchronize());
    double t_wrong = time_wrong(dM, dsums, rows, cols);
    double t_right = time_right(dM, dsums, rows, cols);
    double t0 = pr_now();
    rowsum_cpu(M, sums_cpu, rows, cols);
    double t_cpu = pr_now() - t0;
    CHECK(cudaMemcpy(sums, dsums, (size_t)rows * sizeof(float), cudaMemcpyDeviceToHost));

    long wrong = 0;
    long long total = 0, expect = 0;
    for (long r = 0; r < rows; r++) {
        wrong += sums[r] != sums_cpu[r];
        total += (long long)sums[r];
        expect += (long long)sums_cpu[r];
    }
    pr_check_int("row sums wrong", wrong, 0);
    pr_check_int("total", total, expect);
    pr_result_int("wrong", wrong);
    pr_result_int("total", total);

    pr_print_time("CPU", t_cpu, 0, NULL);
    pr_print_time("GPU timed WRONGLY", t_wrong, t_cpu, "CPU");
    pr_print_time("GPU timed rightly", t_right, t_cpu, "CPU");

    /* Part 2: once the copies count.  Best of 3 for each side, each size. */
    printf("  %12s %14s %22s\n", "rows", "CPU (s)", "GPU incl. copies (s)");
    long crossover = 0;
    for (long r = 1000; r <= maxrows; r *= 10) {
        double best_cpu = 1e30, best_gpu = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            t0 = pr_now();
            rowsum_cpu(M, sums_cpu, r, cols);
            double t = pr_now() - t0;
            best_cpu = t < best_cpu ? t : best_cpu;
            t0 = pr_now();
            CHECK(cudaMemcpy(dM, M, (size_t)r * cols * sizeof(float), cudaMemcpyHostToDevice));
            rowsum_launch(dM, dsums, r, cols);
            CHECK(cudaMemcpy(sums, dsums, (size_t)r * sizeof(float), cudaMemcpyDeviceToHost));
            t = pr_now() - t0; /* the copy back waited for the kernel */
            best_gpu = t < best_gpu ? t : best_gpu;
        }
        printf("  %12ld %14.6f %22.6f%s\n", r, best_cpu, best_gpu,
               best_gpu < best_cpu ? "   GPU wins" : "");
        if (!crossover && best_gpu < best_cpu)
            crossover = r;
    }
    if (crossover)
        printf("  the GPU (copies included) first wins at %ld rows\n", crossover);
    else
        printf("  the GPU (copies included) did not win up to %ld rows\n", maxrows);
#ifdef CUDA_SIM
    printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    CHECK(cudaFree(dM));
    CHECK(cudaFree(dsums));
    free(M), free(sums_cpu), free(sums);
    return pr_finish();
}
