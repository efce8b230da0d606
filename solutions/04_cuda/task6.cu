/*
 * Room 04, task 6: bug hunt -- window sums with a shared-memory tile.
 *
 * For a signal of n integers, out[i] is the sum of the 2r + 1 values centred
 * on i (values outside the signal count as 0): a box filter, the simplest
 * stencil.  Every value is read by 2r + 1 threads, so each block stages its
 * part of the signal in shared memory first, together with the r values on
 * each side of it that its edge threads also need (the halo), and every
 * thread then adds up its window from shared memory.
 *
 * The program computes the same sums on the CPU, compares every one of them,
 * prints the number that differ and a checksum beside the expected values,
 * and exits non-zero when anything differs.
 *
 * This program has ONE bug, and it makes grading fail.  Nothing marks where
 * it is.  Find it, explain it, fix it: the fix is small.
 *
 * Read first: README.md, "Blocks, SMs and shared memory", "Stencils: a tile with a halo", "What the simulator checks",
 *             "The race checker".
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O2 -arch=native -Xcompiler -fopenmp -I../grading/include -o task6 task6.cu
 *   anywhere:  ../grading/sim/simcc -O2 -fopenmp -I../grading/include -o task6 task6.cu
 *   ./task6 n=10000000 tpb=256 r=3
 * Grade it from the top folder:  make grade TASK=04_cuda/task6
 */
#include "pr.h"
#include "cpu_baseline.h" /* the CPU on 1 core and on all: print_cpu_times(), print_vs_cpu() */

#include <cuda_runtime.h>

#define MAX_R 32 /* the halo is loaded by the first r threads: r <= the block size */

/* out[i] = x[i - r] + ... + x[i + r] for every i < n (x is 0 outside 0..n-1).
 * tile[] (dynamic shared memory, blockDim.x + 2r ints) holds the block's part
 * of x with its halo: tile[j] is x[first - r + j], first being the block's
 * first element. */
__global__ void window_kernel(const int *x, int *out, long n, int r)
{
    extern __shared__ int tile[];
    int t = threadIdx.x;
    long first = (long)blockIdx.x * blockDim.x;
    long i = first + t;

    tile[r + t] = i < n ? x[i] : 0; /* my own element (0 past the end) */
    //@ bug: __syncthreads();
    //@ bug: if (t < r) { /* the first r threads also load the halo on both sides */
    //@ bug:     long left = first - r + t, right = first + blockDim.x + t;
    //@ bug:     tile[t] = left >= 0 ? x[left] : 0;
    //@ bug:     tile[r + blockDim.x + t] = right < n ? x[right] : 0;
    //@ bug: }
    //@ solution {
    /* (The bug hunt's bug: the halo was loaded after the barrier, so a block's edge threads
     * could add up halo entries not yet loaded: wrong sums at block edges.  In the
     * simulator's shuffled order that is certain for several blocks and r >= 3.) */
    if (t < r) { /* the first r threads also load the halo on both sides */
        long left = first - r + t, right = first + blockDim.x + t;
        tile[t] = left >= 0 ? x[left] : 0;
        tile[r + blockDim.x + t] = right < n ? x[right] : 0;
    }
    __syncthreads();
    //@ }

    if (i < n) {
        int s = 0;
        for (int j = 0; j <= 2 * r; j++) /* tile[t .. t + 2r] is x[i - r .. i + r] */
            s += tile[t + j];
        out[i] = s;
    }
}

/* ---- no need to change below ---- */

static void window_cpu(const int *x, int *out, long n, int r, int omp)
{
#pragma omp parallel for if (omp)
    for (long i = 0; i < n; i++) {
        int s = 0;
        for (long j = i - r; j <= i + r; j++)
            if (j >= 0 && j < n)
                s += x[j];
        out[i] = s;
    }
}

/* One number that changes when any sum does (or moves). */
static long long checksum(const int *v, long n)
{
    long long s = 0;
    for (long i = 0; i < n; i++)
        s += (long long)v[i] * (i % 7 + 1);
    return s;
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 1L << 24, 1, 1L << 27);
    int tpb = (int)pr_arg_long(argc, argv, "tpb", 256, 32, 1024);
    int r = (int)pr_arg_long(argc, argv, "r", 3, 1, MAX_R);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    printf("task6: window sums of %ld values, radius %d (windows of %d), tpb=%d\n", n, r,
           2 * r + 1, tpb);

    size_t bytes = (size_t)n * sizeof(int);
    int *x = (int *)malloc(bytes), *out_cpu = (int *)malloc(bytes);
    int *out = (int *)calloc((size_t)n, sizeof(int));
    if (!x || !out_cpu || !out) {
        fprintf(stderr, "task6: out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
    for (long i = 0; i < n; i++)
        x[i] = (int)pr_rng_range(&rng, -100, 100);

    double t0 = pr_now();
    window_cpu(x, out_cpu, n, r, 0);
    double t_cpu = pr_now() - t0;
    cpu_warm_up(); /* the same sums on every core (OpenMP), for the fair comparison */
    t0 = pr_now();
    window_cpu(x, out_cpu, n, r, 1);
    double t_omp = pr_now() - t0;

    int *dx, *dout;
    CHECK(cudaMalloc(&dx, bytes));
    CHECK(cudaMalloc(&dout, bytes));
    CHECK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, bytes));
    unsigned blocks = (unsigned)((n + tpb - 1) / tpb);
    size_t shmem = (size_t)(tpb + 2 * r) * sizeof(int);

    /* Warm-up launch, then a timed one. */
    window_kernel<<<blocks, tpb, shmem>>>(dx, dout, n, r);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    window_kernel<<<blocks, tpb, shmem>>>(dx, dout, n, r);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));

    long wrong = 0, first_wrong = -1;
    for (long i = 0; i < n; i++)
        if (out[i] != out_cpu[i]) {
            if (first_wrong < 0)
                first_wrong = i;
            wrong++;
        }
    pr_check_int("sums that differ from the CPU", wrong, 0);
    pr_check_int("checksum", checksum(out, n), checksum(out_cpu, n));
    if (first_wrong >= 0)
        printf("  first wrong sum: out[%ld] = %d, expected %d (block %ld, thread %ld)\n",
               first_wrong, out[first_wrong], out_cpu[first_wrong], first_wrong / tpb,
               first_wrong % tpb);
    if (wrong > 0) {
        /* Where the wrong sums sit inside their blocks: a clue to which threads' data it was. */
        long near_start = 0, near_end = 0, elsewhere = 0;
        for (long i = 0; i < n; i++) {
            if (out[i] == out_cpu[i])
                continue;
            long t = i % tpb;
            if (t < r)
                near_start++;
            else if (t >= tpb - r)
                near_end++;
            else
                elsewhere++;
        }
        printf("  wrong sums by thread in their block: %ld among the first r threads, %ld among the last r, "
               "%ld elsewhere\n", near_start, near_end, elsewhere);
    }
    pr_result_int("wrong", wrong);
    pr_result_int("checksum", checksum(out, n));

    double secs = ms * 1e-3;
    print_cpu_times("CPU", t_cpu, t_omp);
    print_vs_cpu("GPU kernel", secs, t_cpu, t_omp);
#ifdef CUDA_SIM
    printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dout));
    free(x), free(out_cpu), free(out);
    return pr_finish();
}
