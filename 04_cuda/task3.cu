/*
 * Room 04, task 3: matrix-vector and matrix-matrix products; naive, tiled, cuBLAS.
 *
 * A matrix times a vector plus a bias vector, and a matrix times a matrix,
 * every matrix stored row by row:
 *
 *   TODO 1: the matrix-vector kernel, one thread per row of the result;
 *   TODO 2: the tiled matrix-matrix kernel: each block of 16x16 threads
 *           computes a 16x16 tile of the product, reading the two input
 *           matrices only through tiles staged in shared memory, one pair of
 *           tiles at a time along the inner dimension:
 *
 *                             [tile of the          each element staged in
 *                              right matrix]        shared memory is loaded
 *                                   |               from GPU memory once and
 *     [tile of the left matrix] --- [tile of the    used 16 times from there
 *                                    product]
 *
 *           Sizes need not be multiples of 16.
 *
 * Read first: README.md, "Blocks, SMs and shared memory", "Warps and memory: coalescing and bank conflicts",
 *             "The memory hierarchy and occupancy", "Matrix multiply: tiling and cuBLAS".
 *
 * The naive matrix-matrix kernel (one thread per entry of the product, all reads from
 * global memory) is given, for comparison; cuBLAS's cublasSgemm too (the CPU simulator
 * has it as well, computed on the CPU: grading/sim/cublas_v2.h).
 * All values are small integers, so every product and sum is exact in float:
 * every result must match the CPU's exactly.
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O2 -arch=native -Xcompiler -fopenmp -I../grading/include -o task3 task3.cu -lcublas
 *   anywhere:  ../grading/sim/simcc -O2 -fopenmp -I../grading/include -o task3 task3.cu -lcublas
 *   ./task3 m=2048 n=2048 k=2048
 * Grade it from the top folder:  make grade TASK=04_cuda/task3
 */
#include "pr.h"
#include "cpu_baseline.h" /* the CPU on 1 core and on all: print_cpu_times(), print_vs_cpu() */

#include <cuda_runtime.h>
#include <cublas_v2.h>

#define TILE 16

/* y = W*x + b; W is m x k, row-major (W[i][j] is W[i * k + j]). */
__global__ void matvec_kernel(const float *W, const float *x, const float *b, float *y,
                              int m, int k)
{
    // TODO 1: Each thread computes one entry of the result: the inner product
    //         of its row of the matrix with the vector, plus that row's bias
    //         (the layout is in the comment above).  A thread without a row does
    //         nothing.  Result line y_checksum; it must match the CPU exactly.
    (void)W; (void)x; (void)b; (void)y; (void)m; (void)k; /* TODO 1 */
}

/* C = A*B; A is m x k, B is k x n, C is m x n, all row-major.  2-D grid:
 * x runs along the columns of C, y along its rows. */
__global__ void matmul_naive(const float *A, const float *B, float *C, int m, int n, int k)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        float sum = 0;
        for (int p = 0; p < k; p++)
            sum += A[(long)row * k + p] * B[(long)p * n + col];
        C[(long)row * n + col] = sum;
    }
}

/* The same with TILE x TILE blocks and shared memory. */
__global__ void matmul_tiled(const float *A, const float *B, float *C, int m, int n, int k)
{
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0;
    // TODO 2: Compute this thread's entry of the product, as the naive kernel
    //         above does, but read the two input matrices only through tiles
    //         staged in shared memory, as "Matrix multiply: tiling and cuBLAS"
    //         describes.  Must hold: elements outside a matrix count as 0; no
    //         thread reads a tile entry before it is written, nor overwrites one
    //         that another thread may still need; every thread of the block
    //         reaches every barrier, also a thread whose entry lies outside the
    //         product; only entries inside it are stored.  Result line
    //         C_tiled_checksum (C_naive_checksum must come out the same).
    (void)A; (void)B; (void)C; (void)m; (void)n; (void)k; /* TODO 2: the tiled product */
    (void)(row + col + tx + ty + sum); /* (only so that the untouched task compiles cleanly) */
}

/* ---- no need to change below ---- */

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

/* The CPU's y = W*x + b and C = A*B (rows in the cache-friendly i-p-j order); par: on
 * every core with OpenMP (when built with it), a row of the result per iteration. */
static void products_cpu(const float *A, const float *B, const float *x, const float *b, float *y, float *C,
                         int m, int n, int k, int par)
{
    (void)par;
#ifdef _OPENMP
#pragma omp parallel for if (par) schedule(static)
#endif
    for (int i = 0; i < m; i++) {
        float s = b[i];
        for (int j = 0; j < k; j++)
            s += A[(long)i * k + j] * x[j];
        y[i] = s;
        for (int j = 0; j < n; j++)
            C[(long)i * n + j] = 0;
        for (int p = 0; p < k; p++)
            for (int j = 0; j < n; j++)
                C[(long)i * n + j] += A[(long)i * k + p] * B[(long)p * n + j];
    }
}

static double gflops(double flops, double secs)
{
    return secs > 0 ? flops / secs / 1e9 : 0.0;
}

int main(int argc, char **argv)
{
    int m = (int)pr_arg_long(argc, argv, "m", 1024, 1, 8192);
    int n = (int)pr_arg_long(argc, argv, "n", 1024, 1, 8192);
    int k = (int)pr_arg_long(argc, argv, "k", 1024, 1, 8192);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    printf("task3: y = W*x + b (W %dx%d) and C = A*B (%dx%d times %dx%d)\n", m, k, m, k, k, n);

    long sa = (long)m * k, sb = (long)k * n, sc = (long)m * n;
    float *A = (float *)malloc(sa * sizeof(float)), *B = (float *)malloc(sb * sizeof(float));
    float *x = (float *)malloc(k * sizeof(float)), *b = (float *)malloc(m * sizeof(float));
    float *C_cpu = (float *)malloc(sc * sizeof(float)), *C = (float *)calloc(sc, sizeof(float));
    float *y_cpu = (float *)malloc(m * sizeof(float)), *y = (float *)calloc(m, sizeof(float));
    if (!A || !B || !x || !b || !C_cpu || !C || !y_cpu || !y) {
        fprintf(stderr, "task3: out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
    fill(A, sa, &rng); /* A doubles as W */
    fill(B, sb, &rng);
    fill(x, k, &rng);
    fill(b, m, &rng);

    /* The CPU: with OpenMP on all cores, then on one (the products take ~all the time). */
    cpu_warm_up();
    double t0 = pr_now();
    products_cpu(A, B, x, b, y_cpu, C_cpu, m, n, k, 1);
    double t_mm_omp = pr_now() - t0;
    t0 = pr_now();
    products_cpu(A, B, x, b, y_cpu, C_cpu, m, n, k, 0);
    double t_mm_cpu = pr_now() - t0;

    float *dA, *dB, *dC, *dx, *db, *dy;
    CHECK(cudaMalloc(&dA, sa * sizeof(float)));
    CHECK(cudaMalloc(&dB, sb * sizeof(float)));
    CHECK(cudaMalloc(&dC, sc * sizeof(float)));
    CHECK(cudaMalloc(&dx, k * sizeof(float)));
    CHECK(cudaMalloc(&db, m * sizeof(float)));
    CHECK(cudaMalloc(&dy, m * sizeof(float)));
    CHECK(cudaMemcpy(dA, A, sa * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B, sb * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dx, x, k * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, m * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dy, 0, m * sizeof(float)));

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    float ms = 0;
    double mm_flops = 2.0 * m * n * k;

    /* y = W*x + b: warm-up, then timed with events. */
    matvec_kernel<<<(m + 255) / 256, 256>>>(dA, dx, db, dy, m, k);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(start));
    matvec_kernel<<<(m + 255) / 256, 256>>>(dA, dx, db, dy, m, k);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    double t_mv = ms * 1e-3;
    CHECK(cudaMemcpy(y, dy, m * sizeof(float), cudaMemcpyDeviceToHost));
    pr_check_int("y: entries wrong", count_wrong(y, y_cpu, m), 0);
    pr_result_int("y_checksum", checksum(y, m));

    dim3 block(TILE, TILE);
    dim3 grid((unsigned)((n + TILE - 1) / TILE), (unsigned)((m + TILE - 1) / TILE));

    /* Naive C = A*B. */
    matmul_naive<<<grid, block>>>(dA, dB, dC, m, n, k);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(start));
    matmul_naive<<<grid, block>>>(dA, dB, dC, m, n, k);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    double t_naive = ms * 1e-3;
    CHECK(cudaMemcpy(C, dC, sc * sizeof(float), cudaMemcpyDeviceToHost));
    pr_check_int("C naive: entries wrong", count_wrong(C, C_cpu, sc), 0);
    pr_result_int("C_naive_checksum", checksum(C, sc));

    /* Tiled C = A*B, into a cleared C. */
    CHECK(cudaMemset(dC, 0, sc * sizeof(float)));
    matmul_tiled<<<grid, block>>>(dA, dB, dC, m, n, k);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(start));
    matmul_tiled<<<grid, block>>>(dA, dB, dC, m, n, k);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    double t_tiled = ms * 1e-3;
    CHECK(cudaMemcpy(C, dC, sc * sizeof(float), cudaMemcpyDeviceToHost));
    pr_check_int("C tiled: entries wrong", count_wrong(C, C_cpu, sc), 0);
    pr_result_int("C_tiled_checksum", checksum(C, sc));

    pr_print_time("W*x+b GPU kernel", t_mv, 0, NULL);
    print_cpu_times("A*B CPU", t_mm_cpu, t_mm_omp);
    print_vs_cpu("A*B GPU naive", t_naive, t_mm_cpu, t_mm_omp);
    print_vs_cpu("A*B GPU tiled", t_tiled, t_mm_cpu, t_mm_omp);
    printf("  A*B: CPU 1 core %.2f GFLOP/s, CPU OpenMP %.2f GFLOP/s, naive %.2f GFLOP/s, tiled %.2f GFLOP/s\n",
           gflops(mm_flops, t_mm_cpu), cpu_threads() ? gflops(mm_flops, t_mm_omp) : 0.0, gflops(mm_flops, t_naive),
           gflops(mm_flops, t_tiled));

    /* cuBLAS works in column-major order.  Row-major C = A*B is column-major
     * C^T = B^T * A^T, so ask for B*A with the sizes swapped. */
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s:%d: cublasCreate failed\n", __FILE__, __LINE__);
        exit(1);
    }
    const float one = 1.0f, zero = 0.0f;
    CHECK(cudaMemset(dC, 0, sc * sizeof(float)));
    for (int rep = 0; rep < 2; rep++) { /* the first is the warm-up */
        CHECK(cudaEventRecord(start));
        if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, dB, n, dA, k, &zero,
                        dC, n) != CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "%s:%d: cublasSgemm failed\n", __FILE__, __LINE__);
            exit(1);
        }
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
    }
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    double t_cublas = ms * 1e-3;
    CHECK(cudaMemcpy(C, dC, sc * sizeof(float), cudaMemcpyDeviceToHost));
    pr_check_int("C cuBLAS: entries wrong", count_wrong(C, C_cpu, sc), 0);
    pr_result_int("C_cublas_checksum", checksum(C, sc));
    print_vs_cpu("A*B cuBLAS", t_cublas, t_mm_cpu, t_mm_omp);
    printf("  A*B: cuBLAS %.2f GFLOP/s\n", gflops(mm_flops, t_cublas));
    if (cublasDestroy(handle) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s:%d: cublasDestroy failed\n", __FILE__, __LINE__);
        exit(1);
    }
#ifdef CUDA_SIM
    printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dy));
    free(A), free(B), free(x), free(b), free(C_cpu), free(C), free(y_cpu), free(y);
    return pr_finish();
}
