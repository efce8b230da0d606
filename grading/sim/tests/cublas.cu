// cuBLAS (v2 API) against plain loops: gemm in every transpose combination on non-square
// sizes with padded leading dimensions (the padding NaN: never read, never written),
// beta == 0 over a C full of NaN, beta != 0, gemv, axpy, dot, scal, the handle's modes
// and the argument checks.  Small integers, so every result is exact on a GPU too;
// the last case (fractions) must match the loop bit for bit in the simulator.
#include "common.h"
#include <cublas_v2.h>
#include <math.h>
#include <string.h>

#define CB(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cublasGetStatusString(s_)); exit(1); } } while (0)

static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta,
                           float *C, int ldc)
{
    return cublasSgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const double *alpha, const double *A, int lda, const double *B, int ldb,
                           const double *beta, double *C, int ldc)
{
    return cublasDgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <class T> static T *to_device(const T *h, size_t n)
{
    T *d;
    CHECK(cudaMalloc(&d, n * sizeof(T)));
    CHECK(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

/* C = alpha*op(A)*op(B) + beta*C on m x n x k, leading dimensions 3 past the rows; the
 * number of wrong entries (padding of C changed counts too).  frac: values with fractions. */
template <class T> static int gemm_case(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, T alpha,
                                        T beta, int c_nan, int frac)
{
    const int m = 37, n = 29, k = 23;
    const bool an = ta == CUBLAS_OP_N, bn = tb == CUBLAS_OP_N;
    const int ar = an ? m : k, ac = an ? k : m, br = bn ? k : n, bc = bn ? n : k;
    const int lda = ar + 3, ldb = br + 3, ldc = m + 3;
    const size_t sa = (size_t)lda * ac, sb = (size_t)ldb * bc, sc = (size_t)ldc * n;
    T *A = (T *)malloc(sa * sizeof(T)), *B = (T *)malloc(sb * sizeof(T));
    T *C = (T *)malloc(sc * sizeof(T)), *C0 = (T *)malloc(sc * sizeof(T));
    for (size_t i = 0; i < sa; i++)
        A[i] = (int)(i % lda) >= ar ? (T)NAN : frac ? (T)((i * 37) % 101) / (T)7 : (T)((int)((i * 7) % 11) - 5);
    for (size_t i = 0; i < sb; i++)
        B[i] = (int)(i % ldb) >= br ? (T)NAN : frac ? (T)((i * 53) % 97) / (T)3 : (T)((int)((i * 5) % 13) - 6);
    for (size_t i = 0; i < sc; i++)
        C0[i] = (int)(i % ldc) >= m || c_nan ? (T)NAN : (T)((int)(i % 9) - 4);
    T *dA = to_device(A, sa), *dB = to_device(B, sb), *dC = to_device(C0, sc);
    CB(gemm(h, ta, tb, m, n, k, &alpha, dA, lda, dB, ldb, &beta, dC, ldc));
    CHECK(cudaMemcpy(C, dC, sc * sizeof(T), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < m; i++) {
            T s = 0;
            for (int p = 0; p < k; p++)
                s += (an ? A[i + (size_t)p * lda] : A[p + (size_t)i * lda]) *
                     (bn ? B[p + (size_t)j * ldb] : B[j + (size_t)p * ldb]);
            T want = alpha * s;
            if (beta != 0)
                want = want + beta * C0[i + (size_t)j * ldc];
            T got = C[i + (size_t)j * ldc];
#ifdef CUDA_SIM
            wrong += memcmp(&got, &want, sizeof(T)) != 0; /* the same loop: bit for bit */
#else
            wrong += !(fabs((double)(got - want)) <= 1e-5 * (1 + fabs((double)want)));
#endif
        }
        for (int i = m; i < ldc; i++)
            wrong += !isnan((double)C[i + (size_t)j * ldc]);
    }
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    free(A), free(B), free(C), free(C0);
    return wrong;
}

template <class T> static void gemm_all(cublasHandle_t h, const char *name)
{
    static const cublasOperation_t ops[] = { CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C };
    static const char *const opname = "NTC";
    printf("%s", name);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            if ((a == 2) != (b == 2) && !(a == 2 && b == 0)) /* NN NT TN TT CN CC */
                continue;
            int w = gemm_case<T>(h, ops[a], ops[b], (T)2, (T)0, 1, 0) + gemm_case<T>(h, ops[a], ops[b], (T)1, (T)-3, 0, 0);
            printf(" %c%c %d", opname[a], opname[b], w);
        }
    printf(" frac %d\n", gemm_case<T>(h, CUBLAS_OP_T, CUBLAS_OP_N, (T)0.75, (T)0.5, 0, 1) +
                            gemm_case<T>(h, CUBLAS_OP_N, CUBLAS_OP_T, (T)1, (T)0, 1, 1));
}

int main(void)
{
    cublasHandle_t h;
    CB(cublasCreate(&h));

    /* the handle's settings: accepted and remembered */
    cudaStream_t st, got_st;
    CHECK(cudaStreamCreate(&st));
    CB(cublasSetStream(h, st));
    CB(cublasGetStream(h, &got_st));
    cublasMath_t mm;
    CB(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    CB(cublasGetMathMode(h, &mm));
    int tf32 = mm == CUBLAS_TF32_TENSOR_OP_MATH;
    CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    cublasPointerMode_t pm;
    CB(cublasGetPointerMode(h, &pm));
    printf("stream %d tf32 %d pointer-mode-host %d\n", got_st == st, tf32, pm == CUBLAS_POINTER_MODE_HOST);

    gemm_all<float>(h, "sgemm");
    gemm_all<double>(h, "dgemm");

    /* gemv: y = 2*op(A)*x - y, A 5x4 with lda 7 */
    {
        float A[7 * 4], x[5], y[5], r[5];
        for (int i = 0; i < 28; i++) A[i] = (float)(i % 7 < 5 ? i % 6 - 2 : 0);
        for (int i = 0; i < 5; i++) x[i] = (float)(i + 1), y[i] = (float)(10 * i);
        float *dA = to_device(A, 28), *dx = to_device(x, 5), *dy = to_device(y, 5);
        const float two = 2, minus1 = -1;
        CB(cublasSgemv(h, CUBLAS_OP_N, 5, 4, &two, dA, 7, dx, 1, &minus1, dy, 1));
        CHECK(cudaMemcpy(r, dy, sizeof r, cudaMemcpyDeviceToHost));
        printf("sgemv N %g %g %g %g %g", r[0], r[1], r[2], r[3], r[4]);
        CB(cublasSgemv(h, CUBLAS_OP_T, 5, 4, &two, dA, 7, dx, 1, &minus1, dy, 1));
        CHECK(cudaMemcpy(r, dy, 4 * sizeof(float), cudaMemcpyDeviceToHost));
        printf(" T %g %g %g %g\n", r[0], r[1], r[2], r[3]);
        CHECK(cudaFree(dA)); CHECK(cudaFree(dx)); CHECK(cudaFree(dy));
    }

    /* axpy, dot, scal (strided too); dot's result to a host pointer */
    {
        const int n = 1000;
        float xs[n], ys[n];
        double xd[n], yd[n];
        for (int i = 0; i < n; i++) xs[i] = (float)(i % 7 - 3), ys[i] = (float)(i % 5), xd[i] = xs[i], yd[i] = ys[i];
        float *dxs = to_device(xs, n), *dys = to_device(ys, n);
        double *dxd = to_device(xd, n), *dyd = to_device(yd, n);
        const float a3 = 3, half = 0.5f;
        const double d3 = 3, dhalf = 0.5;
        CB(cublasSaxpy(h, n, &a3, dxs, 1, dys, 1));
        CB(cublasDaxpy(h, n, &d3, dxd, 1, dyd, 1));
        float sdot = 0, sdot2 = 0;
        double ddot = 0;
        CB(cublasSdot(h, n, dxs, 1, dys, 1, &sdot));
        CB(cublasDdot(h, n, dxd, 1, dyd, 1, &ddot));
        CB(cublasSdot(h, n / 2, dxs, 2, dys, 2, &sdot2));
        CB(cublasSscal(h, n, &half, dys, 1));
        CB(cublasDscal(h, n / 2, &dhalf, dyd, 2));
        CHECK(cudaMemcpy(ys, dys, sizeof ys, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(yd, dyd, sizeof yd, cudaMemcpyDeviceToHost));
        printf("axpy+scal %g %g %g dot %.1f %.1f strided %.1f dscal %g %g\n", ys[0], ys[1], ys[n - 1], sdot, ddot,
               sdot2, yd[0], yd[1]);
        CHECK(cudaFree(dxs)); CHECK(cudaFree(dys)); CHECK(cudaFree(dxd)); CHECK(cudaFree(dyd));
    }

    /* argument checks: CUBLAS_STATUS_INVALID_VALUE (7), nothing touched */
    {
        float *d;
        CHECK(cudaMalloc(&d, 64 * sizeof(float)));
        const float one = 1, zero = 0;
        printf("invalid: m<0 %d k<0 %d lda %d ldb %d ldc %d ldaT %d op %d gemv-incx %d\n",
               (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 2, 2, &one, d, 2, d, 2, &zero, d, 2),
               (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, -1, &one, d, 2, d, 2, &zero, d, 2),
               (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 2, 2, &one, d, 3, d, 4, &zero, d, 4),
               (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 5, &one, d, 2, d, 4, &zero, d, 2),
               (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 3, 2, 2, &one, d, 3, d, 2, &zero, d, 2),
               (int)cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, 2, 2, 5, &one, d, 4, d, 5, &zero, d, 2),
               (int)cublasSgemm(h, (cublasOperation_t)7, CUBLAS_OP_N, 2, 2, 2, &one, d, 2, d, 2, &zero, d, 2),
               (int)cublasSgemv(h, CUBLAS_OP_N, 2, 2, &one, d, 2, d, 0, &zero, d, 1));
        printf("%s: %s\n", cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE),
               cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE));
        /* empty products are no work, and fine */
        float r0 = 5;
        int st_gemm = (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 0, 0, 0, &one, d, 1, d, 1, &zero, d, 1);
        int st_dot = (int)cublasSdot(h, 0, d, 1, d, 1, &r0);
        printf("empty: gemm %d dot %d result %g\n", st_gemm, st_dot, r0);
        CHECK(cudaFree(d));
    }

    CB(cublasDestroy(h));
    CHECK(cudaStreamDestroy(st));
    return 0;
}
