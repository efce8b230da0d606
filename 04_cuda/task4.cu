/*
 * Room 04, task 4: timing a GPU honestly, and when the GPU starts to win.
 *
 * The row sums of a matrix (100000 rows of 10 by default):
 *
 *   TODO 1: the kernel: one thread per row adds up that row;
 *   TODO 2: time the kernel RIGHTLY, on the GPU's own clock (CUDA events), so
 *           that the time covers the kernel's work and nothing but it.  One
 *           short kernel alone would mostly measure the wait for its launch,
 *           so time batches of launches back to back, each twice as long as
 *           the one before, until a batch lasts long enough.
 *
 * Read first: README.md, "Timing a GPU honestly", "Moving data: why transfers can eat the gain".
 *
 * The program also times it WRONGLY, with a host clock stopped straight after
 * the launch: a launch only queues the kernel and returns, so that clock
 * measures the queueing, not the work.  On small work both times are a few
 * microseconds and the wrong one looks just as plausible: compare them (the
 * lesson gives an H200's pair).  Then the copy bandwidth from pageable (malloc)
 * and from pinned (cudaMallocHost) memory, and a small table: CPU time, on 1 core
 * and on all of them with OpenMP (cpu_baseline.h), against GPU time including
 * the copies to and from the GPU, pageable and pinned (asynchronous copies on a
 * stream), for growing sizes -- where does the GPU start to win?
 *
 * Only the sums are graded (they are integers, exact in float); the times and
 * the crossover size differ from machine to machine, and mean nothing in the
 * CPU simulator.
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O2 -arch=native -Xcompiler -fopenmp -I../grading/include -o task4 task4.cu
 *   anywhere:  ../grading/sim/simcc -O2 -fopenmp -I../grading/include -o task4 task4.cu
 *   ./task4 rows=100000 cols=10 maxrows=10000000
 * Grade it from the top folder:  make grade TASK=04_cuda/task4
 */
#include "pr.h"
#include "cpu_baseline.h" /* cpu_threads(), print_cpu_times(), print_vs_cpu() */

#include <cuda_runtime.h>
#include <string.h>

#define TPB 256
#define BATCH_MS 2.0f   /* time_right's batches grow until one lasts this long */
#define BATCH_MAX 1024  /* ... or holds this many launches */

/* sums[r] = M[r][0] + ... + M[r][cols-1]; M is row-major. */
__global__ void rowsum_kernel(const float *M, float *sums, long rows, int cols)
{
    // TODO 1: What the CPU version below does for one row, done by one thread
    //         for its own row; threads without a row do nothing.  The sums must
    //         equal the CPU's exactly (add in the same order).  The result
    //         lines "wrong" and "total" check it.
    (void)M; (void)sums; (void)rows; (void)cols; /* TODO 1 */
}

/* On stream s (0: the default stream). */
static void rowsum_launch(const float *M, float *sums, long rows, int cols, cudaStream_t s)
{
    rowsum_kernel<<<(unsigned)((rows + TPB - 1) / TPB), TPB, 0, s>>>(M, sums, rows, cols);
    CHECK(cudaGetLastError());
}

/* Returns the kernel's time in seconds: one launch's share of a batch of launches
 * timed with events.  Leaves the batch's number of launches in *launches. */
static double time_right(const float *dM, float *dsums, long rows, int cols, int *launches)
{
    float ms = 0;
    int reps = 1;
    // TODO 2: Time a batch of reps launches in a row (use the launch helper
    //         above, on the default stream) with CUDA events, as "Timing a GPU
    //         honestly" teaches, leaving the batch's milliseconds in ms.  You
    //         choose the batch: start at 1 launch and double it until a batch
    //         lasts at least BATCH_MS milliseconds or holds BATCH_MAX launches;
    //         the last batch timed is the one returned.  Must hold: each time
    //         covers the whole of every kernel in its batch and nothing of what
    //         the host does before or after; a value is read only once the GPU
    //         has got there; every CUDA call is checked; nothing is leaked.  Not
    //         graded (times vary), but the "timed rightly" lines depend on it.
    (void)dM; (void)dsums; (void)rows; (void)cols; /* TODO 2 */
    *launches = reps;
    return ms * 1e-3 / reps;
}

/* ---- no need to change below ---- */

/* par: on every core with OpenMP (when built with it), else on this one. */
static void rowsum_cpu(const float *M, float *sums, long rows, int cols, int par)
{
    (void)par;
#ifdef _OPENMP
#pragma omp parallel for if (par) schedule(static)
#endif
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
    rowsum_launch(dM, dsums, rows, cols, 0);
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
    rowsum_launch(dM, dsums, rows, cols, 0);
    CHECK(cudaDeviceSynchronize());
    double t_wrong = time_wrong(dM, dsums, rows, cols);
    int launches = 0;
    double t_right = time_right(dM, dsums, rows, cols, &launches);
    rowsum_cpu(M, sums_cpu, rows, cols, 1); /* (warm-up: OpenMP starts its threads) */
    double t0 = pr_now();
    rowsum_cpu(M, sums_cpu, rows, cols, 1);
    double t_omp = pr_now() - t0;
    t0 = pr_now();
    rowsum_cpu(M, sums_cpu, rows, cols, 0);
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

    print_cpu_times("CPU", t_cpu, t_omp);
    print_vs_cpu("GPU timed WRONGLY", t_wrong, t_cpu, t_omp);
    print_vs_cpu("GPU timed rightly", t_right, t_cpu, t_omp);
    if (launches == 1)
        printf("  (rightly: one launch between two events; it lasted %.0f ms or more)\n", (double)BATCH_MS);
    else
        printf("  (rightly: the last batch, %d launches back to back between two events, divided by %d)\n",
               launches, launches);

    /* Part 2: the copies, from pageable memory (malloc) and from pinned memory
     * (cudaMallocHost), the second asynchronous on a stream of its own. */
    float *Mp, *sums_p;
    CHECK(cudaMallocHost(&Mp, mbytes));
    CHECK(cudaMallocHost(&sums_p, sbytes));
    memcpy(Mp, M, mbytes);
    cudaStream_t st;
    CHECK(cudaStreamCreate(&st));
    double best_pg = 1e30, best_pn = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        t0 = pr_now();
        CHECK(cudaMemcpy(dM, M, mbytes, cudaMemcpyHostToDevice));
        double t = pr_now() - t0;
        best_pg = t < best_pg ? t : best_pg;
        t0 = pr_now();
        CHECK(cudaMemcpyAsync(dM, Mp, mbytes, cudaMemcpyHostToDevice, st));
        CHECK(cudaStreamSynchronize(st));
        t = pr_now() - t0;
        best_pn = t < best_pn ? t : best_pn;
    }
    printf("  copy of %.1f MB to the GPU: pageable %.2f GB/s, pinned %.2f GB/s (best of 3)\n", mbytes / 1e6,
           mbytes / best_pg / 1e9, mbytes / best_pn / 1e9);

    /* Part 3: once the copies count.  Best of 3 for each, each size. */
    int nt = cpu_threads();
    char omp_col[32];
    snprintf(omp_col, sizeof omp_col, "CPU %d thr (s)", nt);
    printf("  %10s %15s %15s %17s %15s\n", "rows", "CPU 1 core (s)", nt ? omp_col : "(no OpenMP)",
           "GPU+pageable (s)", "GPU+pinned (s)");
    long cross[2][2] = { { 0, 0 }, { 0, 0 } }; /* [pageable, pinned][vs 1 core, vs all] */
    for (long r = 1000; r <= maxrows; r *= 10) {
        size_t in = (size_t)r * cols * sizeof(float), out = (size_t)r * sizeof(float);
        double best[4] = { 1e30, 1e30, 1e30, 1e30 }; /* CPU 1 core, CPU all, pageable, pinned */
        for (int rep = 0; rep < 3; rep++) {
            double t[4];
            for (int par = 0; par < 2; par++) {
                t0 = pr_now();
                rowsum_cpu(M, sums_cpu, r, cols, par);
                t[par] = pr_now() - t0;
            }
            t0 = pr_now();
            CHECK(cudaMemcpy(dM, M, in, cudaMemcpyHostToDevice));
            rowsum_launch(dM, dsums, r, cols, 0);
            CHECK(cudaMemcpy(sums, dsums, out, cudaMemcpyDeviceToHost));
            t[2] = pr_now() - t0; /* the copy back waited for the kernel */
            t0 = pr_now();
            CHECK(cudaMemcpyAsync(dM, Mp, in, cudaMemcpyHostToDevice, st));
            rowsum_launch(dM, dsums, r, cols, st);
            CHECK(cudaMemcpyAsync(sums_p, dsums, out, cudaMemcpyDeviceToHost, st));
            CHECK(cudaStreamSynchronize(st)); /* the host waits here, and only here */
            t[3] = pr_now() - t0;
            for (int i = 0; i < 4; i++)
                best[i] = t[i] < best[i] ? t[i] : best[i];
        }
        printf("  %10ld %15.6f %15.6f %17.6f %15.6f\n", r, best[0], nt ? best[1] : 0.0, best[2], best[3]);
        for (int g = 0; g < 2; g++)
            for (int c = 0; c < 1 + (nt > 0); c++)
                if (!cross[g][c] && best[2 + g] < best[c])
                    cross[g][c] = r;
    }
    for (int g = 0; g < 2; g++)
        for (int c = 0; c < 1 + (nt > 0); c++) {
            char who[40];
            snprintf(who, sizeof who, c ? "%d OpenMP threads" : "1 core", nt);
            if (cross[g][c])
                printf("  GPU with %s copies vs %s: first wins at %ld rows\n", g ? "pinned" : "pageable", who,
                       cross[g][c]);
            else
                printf("  GPU with %s copies vs %s: did not win up to %ld rows\n", g ? "pinned" : "pageable", who,
                       maxrows);
        }
#ifdef CUDA_SIM
    printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    CHECK(cudaStreamDestroy(st));
    CHECK(cudaFreeHost(Mp));
    CHECK(cudaFreeHost(sums_p));
    CHECK(cudaFree(dM));
    CHECK(cudaFree(dsums));
    free(M), free(sums_cpu), free(sums);
    return pr_finish();
}
