/*
 * cublas_v2.h -- the CUDA CPU simulator's cuBLAS: the v2 API subset the workbook and
 * typical course code use, computed on the CPU (grading/sim/simcc puts this folder on the
 * include path, so `#include <cublas_v2.h>` finds it; -lcublas is accepted and needs
 * nothing more).
 *
 * Offered: cublasCreate/Destroy, Set/GetStream, Set/GetMathMode (remembered; the math is
 * always full precision, TF32 modes included), Set/GetPointerMode, GetVersion,
 * GetStatusString/Name, Set/GetVector, Set/GetMatrix, and for float and double: gemm,
 * gemv, axpy, dot, scal.  Semantics are cuBLAS's (column-major; CUBLAS_OP_T and _C are
 * the same for real types; beta == 0 never reads C or y; alpha == 0 never reads A, B, x;
 * argument checks give CUBLAS_STATUS_INVALID_VALUE as cuBLAS does).  Every result is
 * the plain loop's: each entry summed from 0 along the inner dimension in increasing
 * order, in the type's own precision, then times alpha, plus beta times the old value.
 * Calls run when they are made, after the work queued before them on the handle's stream
 * (cublasSetStream); cublasSet/GetMatrix and Vector after the legacy default stream's, as
 * a blocking cudaMemcpy does.  Matrices and vectors must be
 * device memory (cudaMalloc, or cudaMallocManaged/Host): a host pointer or an extent
 * past the end of an allocation is a fatal error, as a kernel's would be.
 * Not offered: cublasLt, the legacy <cublas.h> API, complex and half types, batched and
 * Ex routines (simcc refuses -lcublasLt; an unknown function is a compile error).
 */
#ifndef CUDA_SIM_CUBLAS_V2_H
#define CUDA_SIM_CUBLAS_V2_H
#define CUBLAS_API_H_ /* the real header's guard, which code written for nvcc tests (cuda-samples' helper_cuda.h) */

#include "cuda_sim.h"

#define CUBLAS_VER_MAJOR 13
#define CUBLAS_VER_MINOR 0
#define CUBLAS_VER_PATCH 0
#define CUBLAS_VERSION (CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH)

typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;

typedef enum {
    CUBLAS_OP_N = 0,
    CUBLAS_OP_T = 1,
    CUBLAS_OP_C = 2,
    CUBLAS_OP_HERMITAN = 2,
    CUBLAS_OP_CONJG = 3
} cublasOperation_t;

typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 } cublasAtomicsMode_t;

typedef enum {
    CUBLAS_DEFAULT_MATH = 0,
    CUBLAS_TENSOR_OP_MATH = 1,
    CUBLAS_PEDANTIC_MATH = 2,
    CUBLAS_TF32_TENSOR_OP_MATH = 3,
    CUBLAS_FP32_EMULATED_BF16X9_MATH = 4,
    CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
} cublasMath_t;

struct cublasContext {
    cudaStream_t stream;
    cublasMath_t math;
    cublasPointerMode_t pointer_mode;
    cublasAtomicsMode_t atomics;
};
typedef struct cublasContext *cublasHandle_t;

namespace cuda_sim {
namespace blas {

/* The bytes a column-major rows x cols matrix with leading dimension ld spans. */
inline size_t matrix_bytes(long rows, long cols, long ld, size_t elem)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    return ((size_t)(cols - 1) * (size_t)ld + (size_t)rows) * elem;
}
/* The bytes a vector of n elements inc apart spans (from its first element in memory). */
inline size_t vector_bytes(long n, long inc, size_t elem)
{
    if (n <= 0)
        return 0;
    return ((size_t)(n - 1) * (size_t)(inc < 0 ? -inc : inc) + 1) * elem;
}

/* What cuBLAS reads or writes must be device memory, all of it inside one allocation. */
inline void check_memory(const char *fn, const char *what, const void *p, size_t bytes)
{
    if (bytes == 0)
        return;
    int where = cuda_sim_where(p, bytes);
    if (where == 1)
        return;
    const Alloc *a = find_alloc(p, false);
    if (where == 0 && a && a->host) {
        if ((const char *)p + bytes <= a->ptr + a->size)
            return;
        where = -1;
    }
    if (where < 0)
        fatal("%s: %s (%p, %zu bytes with the sizes and leading dimension given) runs past the end of "
              "its allocation of %zu bytes at %p", fn, what, p, bytes, a ? a->size : (size_t)0,
              a ? (const void *)a->ptr : p);
    fatal("%s: %s (%p) is not device memory: cuBLAS works on memory from cudaMalloc (copy host data there "
          "with cudaMemcpy or cublasSetMatrix/cublasSetVector)", fn, what, p);
}

/* A scalar argument: read from the host, or from device memory in device pointer mode. */
template <class T> inline T scalar(cublasHandle_t h, const char *fn, const char *what, const T *p)
{
    if (h->pointer_mode == CUBLAS_POINTER_MODE_HOST)
        return *p;
    check_memory(fn, what, p, sizeof(T));
    open_device();
    T v = *p;
    close_device();
    return v;
}

inline bool op_ok(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }
inline long lmax1(long a) { return a > 1 ? a : 1; }

template <class T>
inline cublasStatus_t gemm(const char *fn, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const T *alpha_p, const T *A, int lda, const T *B, int ldb,
                           const T *beta_p, T *C, int ldc)
{
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!op_ok(ta) || !op_ok(tb) || m < 0 || n < 0 || k < 0 || !alpha_p || !beta_p)
        return CUBLAS_STATUS_INVALID_VALUE;
    const bool an = ta == CUBLAS_OP_N, bn = tb == CUBLAS_OP_N;
    const long arows = an ? m : k, acols = an ? k : m, brows = bn ? k : n, bcols = bn ? n : k;
    if (lda < lmax1(arows) || ldb < lmax1(brows) || ldc < lmax1(m))
        return CUBLAS_STATUS_INVALID_VALUE;
    init();
    cudaStreamSynchronize(h->stream); /* the stream's earlier work first */
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    const T alpha = scalar(h, fn, "alpha", alpha_p), beta = scalar(h, fn, "beta", beta_p);
    const bool use_ab = alpha != T(0) && k > 0;
    if (!use_ab && beta == T(1))
        return CUBLAS_STATUS_SUCCESS;
    if (use_ab) {
        check_memory(fn, "A", A, matrix_bytes(arows, acols, lda, sizeof(T)));
        check_memory(fn, "B", B, matrix_bytes(brows, bcols, ldb, sizeof(T)));
    }
    check_memory(fn, "C", C, matrix_bytes(m, n, ldc, sizeof(T)));
    open_device();
    std::vector<T> acc((size_t)m);
    for (long j = 0; j < n; j++) {
        T *c = C + j * (long)ldc;
        if (use_ab) {
            if (an) {
                /* acc[i] = sum over p of A(i,p) * op(B)(p,j), p increasing: p outside, i inside. */
                std::fill(acc.begin(), acc.end(), T(0));
                for (long p = 0; p < k; p++) {
                    const T b = bn ? B[p + j * (long)ldb] : B[j + p * (long)ldb];
                    const T *a = A + p * (long)lda;
                    for (long i = 0; i < m; i++)
                        acc[i] += a[i] * b;
                }
            } else {
                /* op(A)(i,p) = A(p,i): column i of A is contiguous along p. */
                for (long i = 0; i < m; i++) {
                    const T *a = A + i * (long)lda;
                    T s = T(0);
                    if (bn) {
                        const T *b = B + j * (long)ldb;
                        for (long p = 0; p < k; p++)
                            s += a[p] * b[p];
                    } else {
                        for (long p = 0; p < k; p++)
                            s += a[p] * B[j + p * (long)ldb];
                    }
                    acc[i] = s;
                }
            }
        }
        for (long i = 0; i < m; i++) {
            T v = use_ab ? alpha * acc[i] : T(0);
            c[i] = beta == T(0) ? v : v + beta * c[i];
        }
    }
    close_device();
    return CUBLAS_STATUS_SUCCESS;
}

template <class T>
inline cublasStatus_t gemv(const char *fn, cublasHandle_t h, cublasOperation_t trans, int m, int n,
                           const T *alpha_p, const T *A, int lda, const T *x, int incx, const T *beta_p, T *y,
                           int incy)
{
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!op_ok(trans) || m < 0 || n < 0 || lda < lmax1(m) || incx == 0 || incy == 0 || !alpha_p || !beta_p)
        return CUBLAS_STATUS_INVALID_VALUE;
    init();
    cudaStreamSynchronize(h->stream); /* the stream's earlier work first */
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    const T alpha = scalar(h, fn, "alpha", alpha_p), beta = scalar(h, fn, "beta", beta_p);
    if (alpha == T(0) && beta == T(1))
        return CUBLAS_STATUS_SUCCESS;
    const bool tn = trans == CUBLAS_OP_N;
    const long lenx = tn ? n : m, leny = tn ? m : n;
    if (alpha != T(0)) {
        check_memory(fn, "A", A, matrix_bytes(m, n, lda, sizeof(T)));
        check_memory(fn, "x", x, vector_bytes(lenx, incx, sizeof(T)));
    }
    check_memory(fn, "y", y, vector_bytes(leny, incy, sizeof(T)));
    open_device();
    std::vector<T> acc((size_t)leny, T(0));
    if (alpha != T(0)) {
        const long kx = incx > 0 ? 0 : (1 - lenx) * (long)incx;
        if (tn) {
            for (long j = 0; j < n; j++) {
                const T xj = x[kx + j * (long)incx];
                const T *a = A + j * (long)lda;
                for (long i = 0; i < m; i++)
                    acc[i] += a[i] * xj;
            }
        } else {
            for (long i = 0; i < n; i++) {
                const T *a = A + i * (long)lda;
                T s = T(0);
                for (long p = 0; p < m; p++)
                    s += a[p] * x[kx + p * (long)incx];
                acc[i] = s;
            }
        }
    }
    const long ky = incy > 0 ? 0 : (1 - leny) * (long)incy;
    for (long i = 0; i < leny; i++) {
        T *yi = y + ky + i * (long)incy;
        T v = alpha != T(0) ? alpha * acc[i] : T(0);
        *yi = beta == T(0) ? v : v + beta * *yi;
    }
    close_device();
    return CUBLAS_STATUS_SUCCESS;
}

template <class T>
inline cublasStatus_t axpy(const char *fn, cublasHandle_t h, int n, const T *alpha_p, const T *x, int incx, T *y,
                           int incy)
{
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!alpha_p)
        return CUBLAS_STATUS_INVALID_VALUE;
    init();
    cudaStreamSynchronize(h->stream); /* the stream's earlier work first */
    if (n <= 0)
        return CUBLAS_STATUS_SUCCESS;
    const T alpha = scalar(h, fn, "alpha", alpha_p);
    if (alpha == T(0))
        return CUBLAS_STATUS_SUCCESS;
    check_memory(fn, "x", x, vector_bytes(n, incx, sizeof(T)));
    check_memory(fn, "y", y, vector_bytes(n, incy, sizeof(T)));
    const long kx = incx >= 0 ? 0 : (1 - (long)n) * incx, ky = incy >= 0 ? 0 : (1 - (long)n) * incy;
    open_device();
    for (long i = 0; i < n; i++)
        y[ky + i * (long)incy] += alpha * x[kx + i * (long)incx];
    close_device();
    return CUBLAS_STATUS_SUCCESS;
}

template <class T>
inline cublasStatus_t dot(const char *fn, cublasHandle_t h, int n, const T *x, int incx, const T *y, int incy,
                          T *result)
{
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!result)
        return CUBLAS_STATUS_INVALID_VALUE;
    init();
    cudaStreamSynchronize(h->stream); /* the stream's earlier work first */
    T s = T(0);
    if (n > 0) {
        check_memory(fn, "x", x, vector_bytes(n, incx, sizeof(T)));
        check_memory(fn, "y", y, vector_bytes(n, incy, sizeof(T)));
        const long kx = incx >= 0 ? 0 : (1 - (long)n) * incx, ky = incy >= 0 ? 0 : (1 - (long)n) * incy;
        open_device();
        for (long i = 0; i < n; i++)
            s += x[kx + i * (long)incx] * y[ky + i * (long)incy];
        close_device();
    }
    if (h->pointer_mode == CUBLAS_POINTER_MODE_HOST) {
        *result = s;
    } else {
        check_memory(fn, "result", result, sizeof(T));
        open_device();
        *result = s;
        close_device();
    }
    return CUBLAS_STATUS_SUCCESS;
}

template <class T>
inline cublasStatus_t scal(const char *fn, cublasHandle_t h, int n, const T *alpha_p, T *x, int incx)
{
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!alpha_p)
        return CUBLAS_STATUS_INVALID_VALUE;
    init();
    cudaStreamSynchronize(h->stream); /* the stream's earlier work first */
    if (n <= 0 || incx <= 0)
        return CUBLAS_STATUS_SUCCESS;
    const T alpha = scalar(h, fn, "alpha", alpha_p);
    check_memory(fn, "x", x, vector_bytes(n, incx, sizeof(T)));
    open_device();
    for (long i = 0; i < n; i++)
        x[i * (long)incx] *= alpha;
    close_device();
    return CUBLAS_STATUS_SUCCESS;
}

/* cublasSetMatrix and the like: a strided copy between host and device memory. */
inline cublasStatus_t copy_matrix(int rows, int cols, int elem, const void *src, int lds, void *dst, int ldd)
{
    if (rows < 0 || cols < 0 || elem <= 0 || lds <= 0 || ldd <= 0 || lds < rows || ldd < rows)
        return CUBLAS_STATUS_INVALID_VALUE;
    init();
    complete_legacy(); /* blocking, as cudaMemcpy */
    if (rows == 0 || cols == 0)
        return CUBLAS_STATUS_SUCCESS;
    open_device();
    for (long j = 0; j < cols; j++)
        memmove((char *)dst + (size_t)j * ldd * elem, (const char *)src + (size_t)j * lds * elem, (size_t)rows * elem);
    close_device();
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t copy_vector(int n, int elem, const void *src, int incs, void *dst, int incd)
{
    if (n < 0 || elem <= 0 || incs <= 0 || incd <= 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    init();
    complete_legacy(); /* blocking, as cudaMemcpy */
    open_device();
    for (long i = 0; i < n; i++)
        memmove((char *)dst + (size_t)i * incd * elem, (const char *)src + (size_t)i * incs * elem, (size_t)elem);
    close_device();
    return CUBLAS_STATUS_SUCCESS;
}

} // namespace blas
} // namespace cuda_sim

static inline cublasStatus_t cublasCreate(cublasHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    cuda_sim::init();
    *handle = new cublasContext{nullptr, CUBLAS_DEFAULT_MATH, CUBLAS_POINTER_MODE_HOST, CUBLAS_ATOMICS_NOT_ALLOWED};
    return CUBLAS_STATUS_SUCCESS;
}
#define cublasCreate_v2 cublasCreate
static inline cublasStatus_t cublasDestroy(cublasHandle_t handle)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}
#define cublasDestroy_v2 cublasDestroy
static inline cublasStatus_t cublasGetVersion(cublasHandle_t handle, int *version)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!version)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!stream)
        return CUBLAS_STATUS_INVALID_VALUE;
    *stream = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int base = (int)mode & ~(int)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    if (base < 0 || base > (int)CUBLAS_FP32_EMULATED_BF16X9_MATH)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->math;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t *mode)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->atomics = mode;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->atomics;
    return CUBLAS_STATUS_SUCCESS;
}

static inline const char *cublasGetStatusName(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}
static inline const char *cublasGetStatusString(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "the operation completed successfully";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "an error was detected when checking the current licensing";
    }
    return "unknown error";
}

static inline cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb)
{
    return cuda_sim::blas::copy_matrix(rows, cols, elemSize, A, lda, B, ldb);
}
static inline cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb)
{
    return cuda_sim::blas::copy_matrix(rows, cols, elemSize, A, lda, B, ldb);
}
static inline cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *y, int incy)
{
    return cuda_sim::blas::copy_vector(n, elemSize, x, incx, y, incy);
}
static inline cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy)
{
    return cuda_sim::blas::copy_vector(n, elemSize, x, incx, y, incy);
}
static inline cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                                                  int ldb, cudaStream_t)
{
    return cuda_sim::blas::copy_matrix(rows, cols, elemSize, A, lda, B, ldb);
}
static inline cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                                                  int ldb, cudaStream_t)
{
    return cuda_sim::blas::copy_matrix(rows, cols, elemSize, A, lda, B, ldb);
}

static inline cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const float *alpha, const float *A, int lda, const float *B, int ldb,
                                         const float *beta, float *C, int ldc)
{
    return cuda_sim::blas::gemm("cublasSgemm", h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
static inline cublasStatus_t cublasDgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const double *alpha, const double *A, int lda, const double *B,
                                         int ldb, const double *beta, double *C, int ldc)
{
    return cuda_sim::blas::gemm("cublasDgemm", h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
static inline cublasStatus_t cublasSgemv(cublasHandle_t h, cublasOperation_t trans, int m, int n, const float *alpha,
                                         const float *A, int lda, const float *x, int incx, const float *beta,
                                         float *y, int incy)
{
    return cuda_sim::blas::gemv("cublasSgemv", h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
static inline cublasStatus_t cublasDgemv(cublasHandle_t h, cublasOperation_t trans, int m, int n, const double *alpha,
                                         const double *A, int lda, const double *x, int incx, const double *beta,
                                         double *y, int incy)
{
    return cuda_sim::blas::gemv("cublasDgemv", h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
static inline cublasStatus_t cublasSaxpy(cublasHandle_t h, int n, const float *alpha, const float *x, int incx,
                                         float *y, int incy)
{
    return cuda_sim::blas::axpy("cublasSaxpy", h, n, alpha, x, incx, y, incy);
}
static inline cublasStatus_t cublasDaxpy(cublasHandle_t h, int n, const double *alpha, const double *x, int incx,
                                         double *y, int incy)
{
    return cuda_sim::blas::axpy("cublasDaxpy", h, n, alpha, x, incx, y, incy);
}
static inline cublasStatus_t cublasSdot(cublasHandle_t h, int n, const float *x, int incx, const float *y, int incy,
                                        float *result)
{
    return cuda_sim::blas::dot("cublasSdot", h, n, x, incx, y, incy, result);
}
static inline cublasStatus_t cublasDdot(cublasHandle_t h, int n, const double *x, int incx, const double *y,
                                        int incy, double *result)
{
    return cuda_sim::blas::dot("cublasDdot", h, n, x, incx, y, incy, result);
}
static inline cublasStatus_t cublasSscal(cublasHandle_t h, int n, const float *alpha, float *x, int incx)
{
    return cuda_sim::blas::scal("cublasSscal", h, n, alpha, x, incx);
}
static inline cublasStatus_t cublasDscal(cublasHandle_t h, int n, const double *alpha, double *x, int incx)
{
    return cuda_sim::blas::scal("cublasDscal", h, n, alpha, x, incx);
}

#define cublasSgemm_v2 cublasSgemm
#define cublasDgemm_v2 cublasDgemm
#define cublasSgemv_v2 cublasSgemv
#define cublasDgemv_v2 cublasDgemv
#define cublasSaxpy_v2 cublasSaxpy
#define cublasDaxpy_v2 cublasDaxpy
#define cublasSdot_v2 cublasSdot
#define cublasDdot_v2 cublasDdot
#define cublasSscal_v2 cublasSscal
#define cublasDscal_v2 cublasDscal
#define cublasSetStream_v2 cublasSetStream
#define cublasGetStream_v2 cublasGetStream
#define cublasSetPointerMode_v2 cublasSetPointerMode
#define cublasGetPointerMode_v2 cublasGetPointerMode
#define cublasGetVersion_v2 cublasGetVersion

#endif /* CUDA_SIM_CUBLAS_V2_H */
