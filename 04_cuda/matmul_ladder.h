/*
 * matmul_ladder.h -- what the matmul ladder's programs (tasks 7 and 8) share: the CPU's
 * product, the check of a GPU's product against it, and an honest GPU timing of one way
 * of computing C = A*B.  Each includes it after pr.h.
 *
 *   gemm_fn                                 a way to compute C = A*B on the GPU:
 *                                           run(A, B, C, m, n, k), device pointers, row-major
 *   matmul_cpu(A, B, C, m, n, k)            the CPU's C = A*B, on every core with OpenMP
 *   ladder_time_best(run, A, B, C, m, n, k, reps)
 *                                           C filled with NaNs, one warm-up run, then reps
 *                                           runs each between two events: the best, in s
 *   check_product(name, got, want, count)   entries wrong, a checksum beside the CPU's and
 *                                           the largest error; result line C_<name>_checksum
 *   ladder_run(name, run, m, n, k, reps, seed, below)
 *                                           the rest of a task's main: A and B from the seed,
 *                                           the CPU's product, `run` and cuBLAS timed and
 *                                           checked, their GFLOP/s and the fraction; `below`
 *                                           names the tasks with the rungs below
 *
 * No need to change anything here; reading it is optional.  README.md: "Timing a GPU
 * honestly"; further.md: "The matmul ladder: registers, strips and tiles".
 */
#ifndef PARALLEL_ROOMS_MATMUL_LADDER_H
#define PARALLEL_ROOMS_MATMUL_LADDER_H

#include "pr.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

typedef void (*gemm_fn)(const float *A, const float *B, float *C, int m, int n, int k);

/* The CPU's C = A*B, every matrix row-major, on every core (OpenMP, when built with it);
 * a row's terms in i-p-j order, which reads B and C along their rows. */
static inline void matmul_cpu(const float *A, const float *B, float *C, int m, int n, int k)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++)
            C[(long)i * n + j] = 0;
        for (int p = 0; p < k; p++)
            for (int j = 0; j < n; j++)
                C[(long)i * n + j] += A[(long)i * k + p] * B[(long)p * n + j];
    }
}

/* One way's C = A*B into a C full of NaNs (0xff bytes: an entry it never writes is
 * wrong), a warm-up run, then reps runs, each between two events recorded on the
 * default stream and waited for; returns the best time in seconds. */
static inline double ladder_time_best(gemm_fn run, const float *A, const float *B, float *C, int m, int n,
                                      int k, int reps)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaMemset(C, 0xff, (size_t)m * n * sizeof(float)));
    run(A, B, C, m, n, k);
    CHECK(cudaGetLastError());
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        float ms = 0;
        CHECK(cudaEventRecord(start));
        run(A, B, C, m, n, k);
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaGetLastError());
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (ms * 1e-3 < best)
            best = ms * 1e-3;
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return best;
}

/* A way's C against the CPU's: the entries that differ (all must be equal: the values are
 * small integers, so every sum is exact in float), a weighted sum of the entries beside
 * the CPU's, the largest error; and the weighted sum as the result line C_<name>_checksum. */
static inline void check_product(const char *name, const float *got, const float *want, long count)
{
    long wrong = 0;
    double max_err = 0, sum = 0, sum_want = 0;
    for (long i = 0; i < count; i++) {
        double err = fabs((double)got[i] - want[i]);
        wrong += !(err == 0); /* a NaN counts as wrong */
        if (err > max_err || isnan(err))
            max_err = err; /* a NaN stays */
        sum += (double)got[i] * (i % 7 + 1);
        sum_want += (double)want[i] * (i % 7 + 1);
    }
    char what[64];
    snprintf(what, sizeof what, "C %s: entries wrong", name);
    pr_check_int(what, wrong, 0);
    snprintf(what, sizeof what, "C %s: checksum", name);
    pr_check_double(what, sum, sum_want, 1e-12);
    printf("  C %-8s largest |error| %g\n", name, max_err);
    snprintf(what, sizeof what, "C_%s_checksum", name);
    pr_result_double(what, sum, 1e-12);
}

static cublasHandle_t ladder_cublas;

/* cuBLAS is column-major: row-major C = A*B is column-major C^T = B^T * A^T (task 3). */
static inline void run_cublas(const float *A, const float *B, float *C, int m, int n, int k)
{
    const float one = 1.0f, zero = 0.0f;
    if (cublasSgemm(ladder_cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n) !=
        CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s:%d: cublasSgemm failed\n", __FILE__, __LINE__);
        exit(1);
    }
}

/* A task's main after its arguments: small integers in A (m x k) and B (k x n) from the
 * seed, the CPU's product, then `run` (named `name`) and cuBLAS each timed and checked
 * against it, their GFLOP/s and run's fraction of cuBLAS.  Returns pr_finish()'s status. */
static inline int ladder_run(const char *name, gemm_fn run, int m, int n, int k, int reps, long long seed,
                             const char *below)
{
    long sa = (long)m * k, sb = (long)k * n, sc = (long)m * n;
    float *A = (float *)malloc(sa * sizeof(float)), *B = (float *)malloc(sb * sizeof(float));
    float *C = (float *)malloc(sc * sizeof(float)), *C_cpu = (float *)malloc(sc * sizeof(float));
    if (!A || !B || !C || !C_cpu) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
    for (long i = 0; i < sa; i++)
        A[i] = (float)pr_rng_range(&rng, -4, 4);
    for (long i = 0; i < sb; i++)
        B[i] = (float)pr_rng_range(&rng, -4, 4);
    matmul_cpu(A, B, C_cpu, m, n, k);

    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, sa * sizeof(float)));
    CHECK(cudaMalloc(&dB, sb * sizeof(float)));
    CHECK(cudaMalloc(&dC, sc * sizeof(float)));
    CHECK(cudaMemcpy(dA, A, sa * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B, sb * sizeof(float), cudaMemcpyHostToDevice));
    if (cublasCreate(&ladder_cublas) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s:%d: cublasCreate failed\n", __FILE__, __LINE__);
        return 1;
    }
    cublasSetMathMode(ladder_cublas, CUBLAS_DEFAULT_MATH); /* plain FP32, as the kernels: no TF32 */

    const char *names[2] = { name, "cuBLAS" };
    gemm_fn ways[2] = { run, run_cublas };
    double gflops[2];
    for (int w = 0; w < 2; w++) {
        double t = ladder_time_best(ways[w], dA, dB, dC, m, n, k, reps);
        gflops[w] = 2.0 * m * n * k / t / 1e9;
        CHECK(cudaMemcpy(C, dC, sc * sizeof(float), cudaMemcpyDeviceToHost));
        check_product(names[w], C, C_cpu, sc);
    }
    printf("  A*B: %s %.2f GFLOP/s, cuBLAS %.2f GFLOP/s (best of %d runs each)\n", name, gflops[0], gflops[1], reps);
    printf("  %s: %.2f of cuBLAS (the rungs below: %s at the same m, n, k)\n", name, gflops[0] / gflops[1], below);
#ifdef CUDA_SIM
    printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    if (cublasDestroy(ladder_cublas) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s:%d: cublasDestroy failed\n", __FILE__, __LINE__);
        return 1;
    }
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    free(A), free(B), free(C), free(C_cpu);
    return pr_finish();
}

#endif /* PARALLEL_ROOMS_MATMUL_LADDER_H */
