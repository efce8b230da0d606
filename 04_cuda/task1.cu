/*
 * Room 04, task 1: the first kernel.
 *
 * Solve n linear equations, one unknown each (the coefficient of the unknown
 * is never 0), once on the CPU and once on the GPU, one thread per equation:
 *
 *   TODO 1: the kernel body: each thread finds its own equation and solves it;
 *           threads that have no equation must touch nothing;
 *   TODO 2: the launch: enough threads, in blocks of the requested size, that
 *           every equation gets one, whatever the number of equations.
 *
 * Read first: README.md, "A kernel and its launch", "Memory: host and device",
 *             "The four steps of porting CPU code to CUDA", "Checking errors".  The timings it
 *             prints are written for you; task 4's sections explain them.
 *
 * Both sides divide in IEEE single precision, which rounds correctly on the
 * CPU and the GPU alike, so every solution must match the CPU's exactly.
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O2 -arch=native -Xcompiler -fopenmp -I../grading/include -o task1 task1.cu
 *   anywhere:  ../grading/sim/simcc -O2 -fopenmp -I../grading/include -o task1 task1.cu
 *   ./task1 n=10000000 tpb=256
 * Grade it from the top folder:  make grade TASK=04_cuda/task1
 */
#include "pr.h" /* with CHECK(call): a CUDA call that fails stops the program (README: "Checking errors") */
#include "cpu_baseline.h" /* the CPU on 1 core and on all: print_cpu_times(), print_vs_cpu() */

#include <cuda_runtime.h>
#include <string.h>

#define REPS 10 /* kernel launches timed together */

/* x[i] = -b[i] / a[i] for every i < n. */
__global__ void solve_kernel(const float *a, const float *b, float *x, long n)
{
    // TODO 1: Give every thread of the grid its own equation, numbered from its
    //         position in the grid, so that the threads together cover them all,
    //         each exactly once.  Threads whose number is not an equation (the
    //         last block usually has some) must not read or write anything.
    //         The number can exceed what an int holds for large launches.
    //         Both result lines (wrong, sum_x) depend on this and on TODO 2.
    (void)a; (void)b; (void)x; (void)n; /* TODO 1: the kernel body */
}

static void solve_launch(const float *a, const float *b, float *x, long n, int tpb)
{
    // TODO 2: Launch the kernel above with the requested block size and just
    //         enough blocks that no equation is left without a thread, also when
    //         the count is not a multiple of the block size (the grader's are not).
    (void)a; (void)b; (void)x; (void)n; (void)tpb; /* TODO 2: launch */
    CHECK(cudaGetLastError()); /* a bad launch configuration shows up here */
}

/* ---- no need to change below ---- */

/* par: on every core with OpenMP (when built with it), else on this one. */
static void solve_cpu(const float *a, const float *b, float *x, long n, int par)
{
    (void)par;
#ifdef _OPENMP
#pragma omp parallel for if (par) schedule(static)
#endif
    for (long i = 0; i < n; i++)
        x[i] = -b[i] / a[i];
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 1L << 24, 1, 1L << 27);
    int tpb = (int)pr_arg_long(argc, argv, "tpb", 256, 32, 1024);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    printf("task1: solve %ld equations a*x + b = 0 with tpb=%d\n", n, tpb);

    size_t bytes = (size_t)n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes);
    float *x_cpu = (float *)malloc(bytes), *x_gpu = (float *)calloc((size_t)n, sizeof(float));
    if (!a || !b || !x_cpu || !x_gpu) {
        fprintf(stderr, "task1: out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
    for (long i = 0; i < n; i++) {
        long long ai = pr_rng_range(&rng, 1, 100);
        a[i] = (float)(pr_rng_range(&rng, 0, 1) ? ai : -ai); /* never 0 */
        b[i] = (float)pr_rng_range(&rng, -1000, 1000);
    }

    solve_cpu(a, b, x_cpu, n, 1); /* (warm-up: OpenMP starts its threads) */
    double t0 = pr_now();
    solve_cpu(a, b, x_cpu, n, 1);
    double t_omp = pr_now() - t0;
    t0 = pr_now();
    solve_cpu(a, b, x_cpu, n, 0);
    double t_cpu = pr_now() - t0;

    float *da, *db, *dx;
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dx, bytes));
    CHECK(cudaMemset(dx, 0, bytes));

    /* Warm-up: the first launch also pays for setting up the GPU, and the first copy into
     * x_gpu for the operating system mapping its pages (calloc leaves them unmapped). */
    CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    solve_launch(da, db, dx, n, tpb);
    CHECK(cudaMemcpy(x_gpu, dx, bytes, cudaMemcpyDeviceToHost));

    /* With transfers from pageable memory (malloc): copy in, solve, copy out; the last
     * copy waits for the kernel.  The best of 3. */
    double t_with = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        t0 = pr_now();
        CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
        solve_launch(da, db, dx, n, tpb);
        CHECK(cudaMemcpy(x_gpu, dx, bytes, cudaMemcpyDeviceToHost));
        double t = pr_now() - t0;
        t_with = t < t_with ? t : t_with;
    }

    /* The same from pinned memory (cudaMallocHost): asynchronous copies, queued with the
     * kernel; the host waits once, at the end.  (Its answer is checked below too.) */
    float *pa, *pb, *px;
    CHECK(cudaMallocHost(&pa, bytes));
    CHECK(cudaMallocHost(&pb, bytes));
    CHECK(cudaMallocHost(&px, bytes));
    memcpy(pa, a, bytes);
    memcpy(pb, b, bytes);
    double t_pinned = 1e30;
    for (int rep = 0; rep < 3; rep++) { /* the best of 3 */
        t0 = pr_now();
        CHECK(cudaMemcpyAsync(da, pa, bytes, cudaMemcpyHostToDevice, 0));
        CHECK(cudaMemcpyAsync(db, pb, bytes, cudaMemcpyHostToDevice, 0));
        solve_launch(da, db, dx, n, tpb);
        CHECK(cudaMemcpyAsync(px, dx, bytes, cudaMemcpyDeviceToHost, 0));
        CHECK(cudaStreamSynchronize(0));
        double t = pr_now() - t0;
        t_pinned = t < t_pinned ? t : t_pinned;
    }

    /* Kernel only: REPS launches between two events recorded on the GPU itself. */
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    for (int rep = 0; rep < REPS; rep++)
        solve_launch(da, db, dx, n, tpb);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaMemcpy(x_gpu, dx, bytes, cudaMemcpyDeviceToHost));

    long wrong = 0;
    double sum = 0;
    for (long i = 0; i < n; i++) {
        if (x_gpu[i] != x_cpu[i] || px[i] != x_cpu[i])
            wrong++;
        sum += x_gpu[i];
    }
    double expect = 0;
    for (long i = 0; i < n; i++)
        expect += x_cpu[i];
    pr_check_int("x that differ from the CPU", wrong, 0);
    pr_check_double("sum of x", sum, expect, 1e-12);
    pr_result_int("wrong", wrong);
    pr_result_double("sum_x", sum, 1e-12);

    print_cpu_times("CPU", t_cpu, t_omp);
    print_vs_cpu("GPU kernel only", ms * 1e-3 / REPS, t_cpu, t_omp);
    print_vs_cpu("GPU + pageable copies", t_with, t_cpu, t_omp);
    print_vs_cpu("GPU + pinned copies", t_pinned, t_cpu, t_omp);
    printf("  (kernel only: %d launches between two events, divided by %d; copies: %.1f MB in, %.1f MB out)\n",
           REPS, REPS, 2.0 * bytes / 1e6, bytes / 1e6);
#ifdef CUDA_SIM
    printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dx));
    CHECK(cudaFreeHost(pa));
    CHECK(cudaFreeHost(pb));
    CHECK(cudaFreeHost(px));
    free(a), free(b), free(x_cpu), free(x_gpu);
    return pr_finish();
}
