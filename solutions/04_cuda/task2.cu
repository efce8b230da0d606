/*
 * Room 04, task 2: a parallel sum with shared memory.
 *
 * Add up n bytes (values 0..255, kept as unsigned ints) on the GPU.  Each
 * block first adds up its own values in shared memory; then the blocks' sums
 * are combined into one total in GPU memory:
 *
 *   TODO 1: reduce the block's values in shared memory to their sum;
 *   TODO 2: add each block's sum into the total, once per block.
 *
 * Read first: README.md, "Blocks, SMs and shared memory", "Reductions: shared memory and atomics".
 *
 * Integers add exactly in any order, so the GPU's total must equal the CPU's.
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O2 -arch=native -Xcompiler -fopenmp -I../grading/include -o task2 task2.cu
 *   anywhere:  ../grading/sim/simcc -O2 -fopenmp -I../grading/include -o task2 task2.cu
 *   ./task2 n=50000000 tpb=256
 * Grade it from the top folder:  make grade TASK=04_cuda/task2
 */
#include "pr.h"
#include "cpu_baseline.h" /* the CPU on 1 core and on all: print_cpu_times(), print_vs_cpu() */

#include <cuda_runtime.h>

/* blockDim.x (a power of two) threads per block; part[] has blockDim.x entries
 * (dynamic shared memory: its size is the launch's third parameter). */
__global__ void sum_kernel(const unsigned *x, long n, unsigned long long *total)
{
    extern __shared__ unsigned part[];
    unsigned t = threadIdx.x;
    long i = (long)blockIdx.x * blockDim.x + t;
    part[t] = i < n ? x[i] : 0u; /* threads past the end add 0 */
    __syncthreads();             /* every part[] written before anyone reads */

    //@ TODO 1: Reduce the block's values, now in shared memory, to their sum,
    //@         in place, with a tree reduction, so that the first entry ends up
    //@         holding the whole block's sum.  Of the two orders the lesson
    //@         shows, use the faster one.  Must hold: no thread reads an entry
    //@         before the thread that writes it has written it, and every thread
    //@         of the block reaches every barrier.  The block size is a power of
    //@         two (main refuses anything else).
    //@ placeholder: /* TODO 1: the tree reduction */
    //@ solution {
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    //@ }

    //@ TODO 2: Add the block's sum into the grand total in GPU memory (zeroed
    //@         before the launch), exactly once per block, so that no update is
    //@         lost although many blocks do this at the same time.  The result
    //@         line (sum) depends on both holes.
    //@ placeholder: (void)total; /* TODO 2: add the block's sum into *total */
    //@ solution {
    if (t == 0)
        atomicAdd(total, (unsigned long long)part[0]);
    //@ }
}

/* ---- no need to change below ---- */

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 1L << 25, 1, 1L << 28);
    int tpb = (int)pr_arg_long(argc, argv, "tpb", 256, 32, 1024);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    if ((tpb & (tpb - 1)) != 0) { /* the tree halves s: tpb must be a power of two */
        fprintf(stderr, "%s: bad argument tpb=%d: tpb must be a power of two from 32 to 1024\n",
                pr_program_name(argv[0]), tpb);
        return 2;
    }
    printf("task2: sum of %ld values with tpb=%d\n", n, tpb);

    size_t bytes = (size_t)n * sizeof(unsigned);
    unsigned *x = (unsigned *)malloc(bytes);
    if (!x) {
        fprintf(stderr, "task2: out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
    for (long i = 0; i < n; i++)
        x[i] = (unsigned)pr_rng_range(&rng, 0, 255);

    double t0 = pr_now();
    unsigned long long expect = 0;
    for (long i = 0; i < n; i++)
        expect += x[i];
    double t_cpu = pr_now() - t0;
    cpu_warm_up(); /* the same sum on every core (OpenMP), for the fair comparison */
    t0 = pr_now();
    unsigned long long expect_omp = 0;
#pragma omp parallel for reduction(+ : expect_omp)
    for (long i = 0; i < n; i++)
        expect_omp += x[i];
    double t_omp = pr_now() - t0;
    if (expect_omp != expect)
        fprintf(stderr, "task2: the OpenMP sum differs from the serial one\n");

    unsigned *dx;
    unsigned long long *dtotal, total = 0;
    CHECK(cudaMalloc(&dx, bytes));
    CHECK(cudaMalloc(&dtotal, sizeof *dtotal));
    CHECK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    unsigned blocks = (unsigned)((n + tpb - 1) / tpb);
    size_t shmem = (size_t)tpb * sizeof(unsigned);

    /* Warm-up launch, then a timed one; *total is zeroed before each. */
    CHECK(cudaMemset(dtotal, 0, sizeof *dtotal));
    sum_kernel<<<blocks, tpb, shmem>>>(dx, n, dtotal);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaMemset(dtotal, 0, sizeof *dtotal));
    CHECK(cudaEventRecord(start));
    sum_kernel<<<blocks, tpb, shmem>>>(dx, n, dtotal);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaMemcpy(&total, dtotal, sizeof total, cudaMemcpyDeviceToHost));

    pr_check_int("sum", (long long)total, (long long)expect);
    pr_result_int("sum", (long long)total);

    double secs = ms * 1e-3;
    print_cpu_times("CPU", t_cpu, t_omp);
    print_vs_cpu("GPU kernel", secs, t_cpu, t_omp);
    if (secs > 0)
        printf("  bandwidth: CPU %.1f GB/s on 1 core, %.1f GB/s with OpenMP, GPU kernel %.1f GB/s (bytes read / time)\n",
               t_cpu > 0 ? (double)bytes / t_cpu / 1e9 : 0.0, t_omp > 0 ? (double)bytes / t_omp / 1e9 : 0.0,
               (double)bytes / secs / 1e9);
#ifdef CUDA_SIM
    printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dtotal));
    free(x);
    return pr_finish();
}
