/*
 * Room 04, task 9: y = W*x + b again, with W read coalesced.
 *
 * Task 3's matrix-vector kernel gives each row of W to one thread.  It is right,
 * and it reads W badly: the 32 threads of a warp work on 32 different rows, so
 * the 32 addresses of one of their loads lie a whole row apart.  Every load
 * request then touches 32 sectors of 32 bytes to use 4 bytes of each.  Here the
 * same product is computed with the reads of W coalesced:
 *
 *   TODO 1: the kernel: y[i] = (row i of W) . x + b[i], for every row, with the
 *           lanes of a warp reading neighbouring elements of W at each load;
 *   TODO 2: its launch.
 *
 * Read first: README.md, "Warps and divergence", "Warps and memory: coalescing and bank conflicts",
 * "Within a warp: shuffles", "What the memory system sees".
 *
 * A version that is right but uncoalesced passes as SLOW: in the CPU simulator the
 * grader counts the sectors your kernel's requests touch, beside the solution's
 * (README: "What the memory system sees", in "The CUDA CPU simulator"); on a GPU it
 * times it.  All values are small integers, so every sum is exact in float, in any
 * order: y must match the CPU's exactly.
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O2 -arch=native -Xcompiler -fopenmp -I../grading/include -o task9 task9.cu
 *   anywhere:  ../grading/sim/simcc -O2 -fopenmp -I../grading/include -o task9 task9.cu
 *   ./task9 m=8192 k=4096
 * Grade it from the top folder:  make grade TASK=04_cuda/task9
 */
#include "pr.h"
#include "cpu_baseline.h" /* the CPU on 1 core and on all: print_cpu_times(), print_vs_cpu() */

#include <cuda_runtime.h>

/* y = W*x + b; W is m x k, row-major (W[i][j] is W[i * k + j]).  Launched with
 * blocks of `tpb` threads, a multiple of 32. */
__global__ void matvec_coalesced(const float *W, const float *x, const float *b, float *y,
                                 int m, int k)
{
    // TODO 1: Compute every entry of y, each one exactly once: the inner product
    //         of a row of W with x, plus that row's bias.  Decide how the
    //         threads share a row so that at every load of W the lanes of a
    //         warp read neighbouring elements, and how the partial sums of a
    //         row then meet.  Rows need not be multiples of 32 long.  Result
    //         line y_checksum; it must match the CPU exactly.
    (void)W; (void)x; (void)b; (void)y; (void)m; (void)k; /* TODO 1 */
}

/* ---- no need to change below, except for TODO 2 in main ---- */

static void fill(float *v, long count, pr_rng *rng)
{
    for (long i = 0; i < count; i++)
        v[i] = (float)pr_rng_range(rng, -4, 4);
}

/* A weighted sum of the entries: one number that changes when any entry does.
 * Exact: the entries are integers well below 2^24. */
static long long checksum(const float *v, long count)
{
    long long s = 0;
    for (long i = 0; i < count; i++)
        s += (long long)v[i] * (i % 7 + 1);
    return s;
}

static long count_wrong(const float *got, const float *want, long count)
{
    long wrong = 0;
    for (long i = 0; i < count; i++)
        wrong += got[i] != want[i];
    return wrong;
}

/* The CPU's y = W*x + b; par: on every core with OpenMP (when built with it). */
static void matvec_cpu(const float *W, const float *x, const float *b, float *y, int m, int k, int par)
{
    (void)par;
#ifdef _OPENMP
#pragma omp parallel for if (par) schedule(static)
#endif
    for (int i = 0; i < m; i++) {
        float s = b[i];
        for (int j = 0; j < k; j++)
            s += W[(long)i * k + j] * x[j];
        y[i] = s;
    }
}

int main(int argc, char **argv)
{
    int m = (int)pr_arg_long(argc, argv, "m", 8192, 1, 65536);
    int k = (int)pr_arg_long(argc, argv, "k", 4096, 1, 65536);
    int tpb = (int)pr_arg_long(argc, argv, "tpb", 256, 32, 1024);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    if (tpb % 32 != 0) {
        fprintf(stderr, "%s: bad argument tpb=%d: tpb must be a multiple of 32 from 32 to 1024\n",
                pr_program_name(argv[0]), tpb);
        return 2;
    }
    if ((long)m * k > (1L << 28)) {
        fprintf(stderr, "%s: bad arguments m=%d k=%d: m*k must be at most 268435456 (1 GiB of floats)\n",
                pr_program_name(argv[0]), m, k);
        return 2;
    }
    printf("task9: y = W*x + b (W %dx%d), W read coalesced, tpb=%d\n", m, k, tpb);

    long sw = (long)m * k;
    float *W = (float *)malloc(sw * sizeof(float)), *x = (float *)malloc(k * sizeof(float));
    float *b = (float *)malloc(m * sizeof(float));
    float *y_cpu = (float *)malloc(m * sizeof(float)), *y = (float *)calloc(m, sizeof(float));
    if (!W || !x || !b || !y_cpu || !y) {
        fprintf(stderr, "task9: out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
    fill(W, sw, &rng);
    fill(x, k, &rng);
    fill(b, m, &rng);

    cpu_warm_up();
    double t0 = pr_now();
    matvec_cpu(W, x, b, y_cpu, m, k, 1);
    double t_omp = pr_now() - t0;
    t0 = pr_now();
    matvec_cpu(W, x, b, y_cpu, m, k, 0);
    double t_cpu = pr_now() - t0;

    float *dW, *dx, *db, *dy;
    CHECK(cudaMalloc(&dW, sw * sizeof(float)));
    CHECK(cudaMalloc(&dx, k * sizeof(float)));
    CHECK(cudaMalloc(&db, m * sizeof(float)));
    CHECK(cudaMalloc(&dy, m * sizeof(float)));
    CHECK(cudaMemcpy(dW, W, sw * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dx, x, k * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, m * sizeof(float), cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    float ms = 0;
    /* a warm-up launch, then a timed one, each into a cleared y */
    for (int timed = 0; timed < 2; timed++) {
        CHECK(cudaMemset(dy, 0, m * sizeof(float)));
        CHECK(cudaEventRecord(start));
        // TODO 2: Launch matvec_coalesced over all m rows, in blocks of tpb
        //         threads, as TODO 1's kernel shares the work out.
        /* TODO 2: the launch */
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
    }
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    double secs = ms * 1e-3;
    CHECK(cudaMemcpy(y, dy, m * sizeof(float), cudaMemcpyDeviceToHost));
    pr_check_int("y: entries wrong", count_wrong(y, y_cpu, m), 0);
    pr_result_int("y_checksum", checksum(y, m));

    print_cpu_times("W*x+b CPU", t_cpu, t_omp);
    print_vs_cpu("W*x+b GPU coalesced", secs, t_cpu, t_omp);
    if (secs > 0)
        printf("  bandwidth: GPU kernel %.1f GB/s (W's bytes / time)\n",
               (double)sw * sizeof(float) / secs / 1e9);
#ifdef CUDA_SIM
    printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(dW));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dy));
    free(W), free(x), free(b), free(y_cpu), free(y);
    return pr_finish();
}
