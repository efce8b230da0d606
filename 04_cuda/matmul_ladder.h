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
 *
 * No need to change anything here; reading it is optional.  README.md: "Timing a GPU
 * honestly" and "The matmul ladder: registers, strips and tiles".
 */
#ifndef PARALLEL_ROOMS_MATMUL_LADDER_H
#define PARALLEL_ROOMS_MATMUL_LADDER_H

#include "pr.h"

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

#endif /* PARALLEL_ROOMS_MATMUL_LADDER_H */
