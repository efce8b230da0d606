/*
 * gpubench.cu -- the GPU ceilings for make bench, and two advanced kernels to
 * hold up against them (grading/bench/bench.sh runs it on a GPU).
 *
 *   what=copy   n=ELEMS reps=R  the device-to-device copy bandwidth, two ways:
 *                               cudaMemcpy (the driver's copy engine path) and a
 *                               float4 copy kernel; bytes moved = 2 * 4 * n
 *   what=reduce n=ELEMS reps=R  the sum of n unsigned values 0..255 (room 04 task 2's
 *                               problem) by a fast hand kernel and by CUB's
 *                               DeviceReduce; bytes read = 4 * n
 *   what=sgemm  n=SIZE  reps=R  C = A*B (n x n floats, row-major) by a register-tiled
 *                               kernel and by cuBLAS SGEMM; flops = 2 * n^3
 *   what=check                  the two hand kernels against the CPU at awkward sizes
 *                               (runs in the CUDA CPU simulator too: make check-sim)
 *
 * Each timed mode does one warm-up and then R timed repetitions, each bracketed by
 * CUDA events and synchronized before the timer is read, and prints one line per
 * way:   bench what=W way=NAME best_s=... median_s=... rate=... unit=GB/s|GFLOP/s ok=1
 * (rate from the best repetition: a ceiling is what the hardware can do, and the
 * kernels held against it get the same treatment).  Every result is checked; a
 * wrong one prints ok=0 and the program exits 1.
 *
 * The two advanced kernels, for the curious (room 04's README points here):
 *   - sum_fast: a grid-stride loop over 16-byte loads (uint4), one running sum per
 *     thread, warp shuffles and one atomicAdd per block.  Enough blocks to fill
 *     the GPU and no more, so almost every instruction is a load.
 *   - sgemm_reg: 128x128 tiles of C per block of 256 threads, each thread
 *     computing an 8x8 patch in registers from an 8-deep slice of A (stored
 *     transposed in shared memory) and of B.  Every value read from shared memory
 *     is used 8 times from a register -- task 3's tiled kernel uses each once.
 *     Two shared buffers: the next slice loads while this one is multiplied.
 *
 * Build:  nvcc -O3 -arch=native -Igrading/include -o gpubench grading/bench/gpubench.cu -lcublas
 *         grading/sim/simcc -O2 -Igrading/include -o gpubench grading/bench/gpubench.cu   (what=check only)
 */
#include "pr.h"

#include <cuda_runtime.h>
#ifndef CUDA_SIM
#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>
#include <cuda/std/functional>
#endif

/* ---- the fast reduction ------------------------------------------------------ */

#define SUM_TPB 256

/* Every thread keeps a 32-bit running sum: with at least 256 threads and n < 2^32,
 * a thread adds at most 2^24 values of at most 255, below 2^32. */
__global__ void __launch_bounds__(SUM_TPB) sum_fast(const unsigned *__restrict__ x, long n,
                                                    unsigned long long *total)
{
    long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long stride = (long)gridDim.x * blockDim.x;
    long n4 = n / 4; /* cudaMalloc'd memory is 256-byte aligned: x as uint4 is fine */
    const uint4 *x4 = (const uint4 *)x;
    unsigned s = 0;
    long i = tid;
    for (; i + stride < n4; i += 2 * stride) { /* two loads in flight per thread */
        uint4 a = x4[i], b = x4[i + stride];
        s += a.x + a.y + a.z + a.w + b.x + b.y + b.z + b.w;
    }
    if (i < n4) {
        uint4 a = x4[i];
        s += a.x + a.y + a.z + a.w;
    }
    if (tid < n - 4 * n4) /* the last n % 4 values */
        s += x[4 * n4 + tid];

    unsigned long long v = s;
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, d);
    __shared__ unsigned long long warp_sum[SUM_TPB / 32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        warp_sum[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_sum[lane] : 0ull;
        for (int d = 16; d > 0; d >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, d);
        if (lane == 0)
            atomicAdd(total, v);
    }
}

/* Blocks for sum_fast: as many as can be resident at once, or fewer for small n.
 * The device is asked once (not inside the timed repetitions). */
static unsigned sum_blocks(long n)
{
    static long most = 0; /* blocks resident at once on the whole device */
    if (most == 0) {
        int dev = 0, sms = 1, per_sm = 0;
        CHECK(cudaGetDevice(&dev));
        CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
#ifdef CUDA_SIM
        per_sm = 2;
#else
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_fast, SUM_TPB, 0));
#endif
        most = (long)sms * (per_sm > 0 ? per_sm : 1);
    }
    long want = (n / 4 + SUM_TPB - 1) / SUM_TPB;
    return (unsigned)(want < 1 ? 1 : want < most ? want : most);
}

static void run_sum_fast(const unsigned *dx, long n, unsigned long long *dtotal)
{
    CHECK(cudaMemsetAsync(dtotal, 0, sizeof *dtotal));
    sum_fast<<<sum_blocks(n), SUM_TPB>>>(dx, n, dtotal);
    CHECK(cudaGetLastError());
}

/* ---- the register-tiled SGEMM -------------------------------------------------- */

#define BM 128 /* rows of C per block */
#define BN 128 /* columns of C per block */
#define BK 8   /* depth of the A and B slices per step */
#define TM 8   /* rows of C per thread */
#define TN 8   /* columns of C per thread */
#define SGEMM_TPB ((BM / TM) * (BN / TN)) /* 256 */

/* C = A*B, A m x k, B k x n, C m x n, all row-major.  FULL: m and n are multiples
 * of 128 and k of 8 (no bounds checks, 16-byte loads and stores).
 *
 * Each thread computes 8x8 values of C, as four 4x4 quarters: rows tr*4.. and
 * 64 + tr*4.., columns tc*4.. and 64 + tc*4...  Split so, the 16 threads of a warp
 * that read a row of Bs read 16 consecutive float4s: no shared-memory bank conflict
 * (with 8 consecutive columns a thread, they would read every other 32 bytes).
 * As is padded by 4 floats a row so that the transposed stores of two threads
 * that write rows 4 apart land in different banks.
 *
 * Two buffers of each slice: while the block multiplies the slice in one, every
 * thread's loads of the next slice from global memory are already in flight (into
 * registers), and go to the other buffer afterwards; so one __syncthreads a slice,
 * and the memory latency hides behind the arithmetic.  On an H100 (2026-11-23, n =
 * 4096) this took the kernel from 0.65 of cuBLAS (one buffer, two barriers a slice)
 * to 0.91; a 16-deep slice was slower (more registers: fewer blocks an SM). */
#define AS_PAD 4
template <bool FULL>
__global__ void __launch_bounds__(SGEMM_TPB, 2)
    sgemm_reg(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
              int m, int n, int k)
{
    __shared__ __align__(16) float As[2][BK][BM + AS_PAD]; /* A's slice, transposed: As[.][p][row] */
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int t = threadIdx.x;
    const int tr = t / (BN / TN), tc = t % (BN / TN); /* this thread's quarters: see above */
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int ar = t / 2, ac = (t % 2) * 4;   /* A slice: 128 rows x 8, 4 values a thread */
    const int br = t / 32, bc = (t % 32) * 4; /* B slice: 8 rows x 128, 4 values a thread */
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;
    float4 na, nb; /* the next slice's 4 values of A and of B, on their way */
    auto load = [&](int k0) {
        if (FULL) {
            na = *(const float4 *)&A[(long)(row0 + ar) * k + k0 + ac];
            nb = *(const float4 *)&B[(long)(k0 + br) * n + col0 + bc];
        } else {
            float va[4], vb[4];
            for (int j = 0; j < 4; j++) {
                int r = row0 + ar, c = k0 + ac + j;
                va[j] = r < m && c < k ? A[(long)r * k + c] : 0.0f;
                int rr = k0 + br, cc = col0 + bc + j;
                vb[j] = rr < k && cc < n ? B[(long)rr * n + cc] : 0.0f;
            }
            na = make_float4(va[0], va[1], va[2], va[3]);
            nb = make_float4(vb[0], vb[1], vb[2], vb[3]);
        }
    };
    auto store = [&](int buf) {
        As[buf][ac + 0][ar] = na.x;
        As[buf][ac + 1][ar] = na.y;
        As[buf][ac + 2][ar] = na.z;
        As[buf][ac + 3][ar] = na.w;
        *(float4 *)&Bs[buf][br][bc] = nb;
    };

    load(0);
    store(0);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < k; k0 += BK) {
        const bool more = k0 + BK < k;
        if (more)
            load(k0 + BK); /* in flight while this slice is multiplied */
#pragma unroll
        for (int p = 0; p < BK; p++) {
            float4 a0 = *(const float4 *)&As[buf][p][tr * 4], a1 = *(const float4 *)&As[buf][p][BM / 2 + tr * 4];
            float4 b0 = *(const float4 *)&Bs[buf][p][tc * 4], b1 = *(const float4 *)&Bs[buf][p][BN / 2 + tc * 4];
            float ra[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float rb[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += ra[i] * rb[j];
        }
        /* The other buffer was last read in the previous slice, before the barrier
         * that ended it: free to fill.  This barrier makes it readable for all. */
        if (more)
            store(buf ^ 1);
        __syncthreads();
        buf ^= 1;
    }

    for (int i = 0; i < TM; i++) {
        int r = row0 + (i < 4 ? tr * 4 + i : BM / 2 + tr * 4 + i - 4);
        int c0 = col0 + tc * 4, c1 = col0 + BN / 2 + tc * 4; /* acc[i][0..3], acc[i][4..7] */
        if (FULL) {
            *(float4 *)&C[(long)r * n + c0] = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
            *(float4 *)&C[(long)r * n + c1] = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
        } else if (r < m) {
            for (int j = 0; j < 4; j++) {
                if (c0 + j < n)
                    C[(long)r * n + c0 + j] = acc[i][j];
                if (c1 + j < n)
                    C[(long)r * n + c1 + j] = acc[i][4 + j];
            }
        }
    }
}

static void run_sgemm_reg(const float *dA, const float *dB, float *dC, int m, int n, int k)
{
    dim3 grid((unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM));
    if (m % BM == 0 && n % BN == 0 && k % BK == 0)
        sgemm_reg<true><<<grid, SGEMM_TPB>>>(dA, dB, dC, m, n, k);
    else
        sgemm_reg<false><<<grid, SGEMM_TPB>>>(dA, dB, dC, m, n, k);
    CHECK(cudaGetLastError());
}

/* ---- host helpers ------------------------------------------------------------------ */

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, bytes));
    return p;
}

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "gpubench: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Small integers (-4..4): every product and sum of the checks is exact in float. */
static void fill_small(float *v, long count, pr_rng *rng)
{
    for (long i = 0; i < count; i++)
        v[i] = (float)pr_rng_range(rng, -4, 4);
}

static void fill_bytes(unsigned *v, long count, pr_rng *rng)
{
    for (long i = 0; i < count; i++)
        v[i] = (unsigned)pr_rng_range(rng, 0, 255);
}

/* The hand kernels against the CPU at sizes that are not multiples of anything. */
static int check_kernels(void)
{
    int bad = 0;
    pr_rng rng = pr_rng_seed(7, 0);
    static const long sums[] = {1, 3, 4, 5, 1001, 4096, 100003};
    for (size_t s = 0; s < sizeof sums / sizeof *sums; s++) {
        long n = sums[s];
        unsigned *x = (unsigned *)host_alloc((size_t)n * sizeof *x);
        fill_bytes(x, n, &rng);
        unsigned long long want = 0, got = 0;
        for (long i = 0; i < n; i++)
            want += x[i];
        unsigned *dx = (unsigned *)dev_alloc((size_t)n * sizeof *dx);
        unsigned long long *dt = (unsigned long long *)dev_alloc(sizeof *dt);
        CHECK(cudaMemcpy(dx, x, (size_t)n * sizeof *x, cudaMemcpyHostToDevice));
        run_sum_fast(dx, n, dt);
        CHECK(cudaMemcpy(&got, dt, sizeof got, cudaMemcpyDeviceToHost));
        printf("check sum_fast n=%ld: %llu (expected %llu) %s\n", n, got, want, got == want ? "ok" : "WRONG");
        bad += got != want;
        CHECK(cudaFree(dx));
        CHECK(cudaFree(dt));
        free(x);
    }
    static const int mnk[][3] = {{1, 1, 1}, {67, 45, 83}, {130, 97, 64}, {128, 128, 8}, {256, 128, 24}, {129, 255, 9}};
    for (size_t s = 0; s < sizeof mnk / sizeof *mnk; s++) {
        int m = mnk[s][0], n = mnk[s][1], k = mnk[s][2];
        long sa = (long)m * k, sb = (long)k * n, sc = (long)m * n;
        float *A = (float *)host_alloc(sa * sizeof(float)), *B = (float *)host_alloc(sb * sizeof(float));
        float *C = (float *)host_alloc(sc * sizeof(float)), *W = (float *)host_alloc(sc * sizeof(float));
        fill_small(A, sa, &rng);
        fill_small(B, sb, &rng);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                float v = 0;
                for (int p = 0; p < k; p++)
                    v += A[(long)i * k + p] * B[(long)p * n + j];
                W[(long)i * n + j] = v;
            }
        float *dA = (float *)dev_alloc(sa * sizeof(float)), *dB = (float *)dev_alloc(sb * sizeof(float));
        float *dC = (float *)dev_alloc(sc * sizeof(float));
        CHECK(cudaMemcpy(dA, A, sa * sizeof(float), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dB, B, sb * sizeof(float), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(dC, 0xff, sc * sizeof(float))); /* NaN: a missed element shows */
        run_sgemm_reg(dA, dB, dC, m, n, k);
        CHECK(cudaMemcpy(C, dC, sc * sizeof(float), cudaMemcpyDeviceToHost));
        long wrong = 0;
        for (long i = 0; i < sc; i++)
            wrong += C[i] != W[i];
        printf("check sgemm_reg %dx%dx%d (%s path): %ld of %ld entries wrong %s\n", m, n, k,
               m % BM == 0 && n % BN == 0 && k % BK == 0 ? "full-tile" : "edge", wrong, sc,
               wrong ? "WRONG" : "ok");
        bad += wrong != 0;
        CHECK(cudaFree(dA));
        CHECK(cudaFree(dB));
        CHECK(cudaFree(dC));
        free(A);
        free(B);
        free(C);
        free(W);
    }
    printf("check: %s\n", bad ? "FAILED" : "all ok");
    return bad ? 1 : 0;
}

#ifndef CUDA_SIM
/* ---- timing ---------------------------------------------------------------------- */

typedef void (*work_fn)(void *ctx);

/* One warm-up, then reps timed runs; best and median seconds. */
static void time_it(work_fn fn, void *ctx, int reps, double *best, double *median)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    fn(ctx);
    CHECK(cudaDeviceSynchronize());
    double *t = (double *)host_alloc((size_t)reps * sizeof *t);
    for (int r = 0; r < reps; r++) {
        CHECK(cudaEventRecord(a));
        fn(ctx);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t[r] = ms * 1e-3;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    *best = t[0];
    *median = t[reps / 2];
    free(t);
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
}

static void report(const char *what, const char *way, double best, double median, double amount,
                   const char *unit, int ok)
{
    printf("bench what=%s way=%s best_s=%.6e median_s=%.6e rate=%.2f unit=%s ok=%d\n", what, way, best,
           median, amount / best / 1e9, unit, ok);
}

struct copy_ctx {
    float *src, *dst;
    long n;
};

__global__ void copy_kernel(const float4 *__restrict__ src, float4 *__restrict__ dst, long n4)
{
    long stride = (long)gridDim.x * blockDim.x;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride)
        dst[i] = src[i];
}

static void copy_memcpy(void *p)
{
    struct copy_ctx *c = (struct copy_ctx *)p;
    CHECK(cudaMemcpyAsync(c->dst, c->src, (size_t)c->n * sizeof(float), cudaMemcpyDeviceToDevice));
}

static void copy_by_kernel(void *p)
{
    struct copy_ctx *c = (struct copy_ctx *)p;
    static int sms = 0; /* asked once, not inside the timed repetitions */
    if (sms == 0) {
        int dev = 0;
        CHECK(cudaGetDevice(&dev));
        CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    }
    copy_kernel<<<sms * 8, 256>>>((const float4 *)c->src, (float4 *)c->dst, c->n / 4);
    CHECK(cudaGetLastError());
}

static int bench_copy(long n, int reps)
{
    n -= n % 4;
    struct copy_ctx c = {(float *)dev_alloc((size_t)n * sizeof(float)), (float *)dev_alloc((size_t)n * sizeof(float)), n};
    CHECK(cudaMemset(c.src, 0x3f, (size_t)n * sizeof(float)));
    double best, median, bytes = 2.0 * sizeof(float) * (double)n;
    int all_ok = 1;
    work_fn ways[] = {copy_memcpy, copy_by_kernel};
    const char *names[] = {"cudaMemcpy", "copy_kernel"};
    for (int w = 0; w < 2; w++) {
        CHECK(cudaMemset(c.dst, 0, (size_t)n * sizeof(float)));
        time_it(ways[w], &c, reps, &best, &median);
        /* the last element and one in the middle must have arrived */
        float probe[2];
        CHECK(cudaMemcpy(&probe[0], c.dst + n / 2, sizeof(float), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&probe[1], c.dst + n - 1, sizeof(float), cudaMemcpyDeviceToHost));
        unsigned char want[4] = {0x3f, 0x3f, 0x3f, 0x3f};
        int ok = memcmp(&probe[0], want, 4) == 0 && memcmp(&probe[1], want, 4) == 0;
        all_ok &= ok;
        report("copy", names[w], best, median, bytes, "GB/s", ok);
    }
    CHECK(cudaFree(c.src));
    CHECK(cudaFree(c.dst));
    return all_ok ? 0 : 1;
}

struct sum_ctx {
    unsigned *x;
    long n;
    unsigned long long *total;
    void *temp;
    size_t temp_bytes;
};

static void sum_by_hand(void *p)
{
    struct sum_ctx *c = (struct sum_ctx *)p;
    run_sum_fast(c->x, c->n, c->total);
}

static void sum_by_cub(void *p)
{
    struct sum_ctx *c = (struct sum_ctx *)p;
    CHECK(cub::DeviceReduce::Reduce(c->temp, c->temp_bytes, c->x, c->total, c->n,
                                    cuda::std::plus<unsigned long long>(), 0ull));
}

static int bench_reduce(long n, int reps)
{
    unsigned *x = (unsigned *)host_alloc((size_t)n * sizeof *x);
    pr_rng rng = pr_rng_seed(1, 0);
    fill_bytes(x, n, &rng);
    unsigned long long want = 0;
    for (long i = 0; i < n; i++)
        want += x[i];
    struct sum_ctx c = {(unsigned *)dev_alloc((size_t)n * sizeof *x), n,
                        (unsigned long long *)dev_alloc(sizeof(unsigned long long)), NULL, 0};
    CHECK(cudaMemcpy(c.x, x, (size_t)n * sizeof *x, cudaMemcpyHostToDevice));
    CHECK(cub::DeviceReduce::Reduce(NULL, c.temp_bytes, c.x, c.total, c.n,
                                    cuda::std::plus<unsigned long long>(), 0ull));
    c.temp = dev_alloc(c.temp_bytes);
    double best, median, bytes = sizeof(unsigned) * (double)n;
    int all_ok = 1;
    work_fn ways[] = {sum_by_hand, sum_by_cub};
    const char *names[] = {"sum_fast", "cub_DeviceReduce"};
    for (int w = 0; w < 2; w++) {
        time_it(ways[w], &c, reps, &best, &median);
        unsigned long long got = 0;
        CHECK(cudaMemcpy(&got, c.total, sizeof got, cudaMemcpyDeviceToHost));
        int ok = got == want;
        if (!ok)
            fprintf(stderr, "gpubench: %s: sum %llu, expected %llu\n", names[w], got, want);
        all_ok &= ok;
        report("reduce", names[w], best, median, bytes, "GB/s", ok);
    }
    CHECK(cudaFree(c.x));
    CHECK(cudaFree(c.total));
    CHECK(cudaFree(c.temp));
    free(x);
    return all_ok ? 0 : 1;
}

struct gemm_ctx {
    float *A, *B, *C;
    int n;
    cublasHandle_t handle;
};

static void gemm_by_hand(void *p)
{
    struct gemm_ctx *c = (struct gemm_ctx *)p;
    run_sgemm_reg(c->A, c->B, c->C, c->n, c->n, c->n);
}

static void gemm_by_cublas(void *p)
{
    struct gemm_ctx *c = (struct gemm_ctx *)p;
    const float one = 1.0f, zero = 0.0f;
    /* row-major C = A*B is column-major C^T = B^T * A^T (as in room 04 task 3) */
    if (cublasSgemm(c->handle, CUBLAS_OP_N, CUBLAS_OP_N, c->n, c->n, c->n, &one, c->B, c->n, c->A, c->n,
                    &zero, c->C, c->n) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "gpubench: cublasSgemm failed\n");
        exit(1);
    }
}

static int bench_sgemm(int n, int reps)
{
    long s = (long)n * n;
    float *A = (float *)host_alloc(s * sizeof(float)), *B = (float *)host_alloc(s * sizeof(float));
    float *C = (float *)host_alloc(s * sizeof(float)), *R = (float *)host_alloc(s * sizeof(float));
    pr_rng rng = pr_rng_seed(1, 0);
    fill_small(A, s, &rng);
    fill_small(B, s, &rng);
    struct gemm_ctx c = {(float *)dev_alloc(s * sizeof(float)), (float *)dev_alloc(s * sizeof(float)),
                         (float *)dev_alloc(s * sizeof(float)), n, NULL};
    CHECK(cudaMemcpy(c.A, A, s * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(c.B, B, s * sizeof(float), cudaMemcpyHostToDevice));
    if (cublasCreate(&c.handle) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "gpubench: cublasCreate failed\n");
        return 1;
    }
    /* cuBLAS's default: plain FP32 for SGEMM (TF32 tensor cores only when asked
     * for), the same arithmetic as the hand kernel; its fastest algorithm for it. */
    cublasSetMathMode(c.handle, CUBLAS_DEFAULT_MATH);
    double best, median, flops = 2.0 * n * (double)n * n;
    int all_ok = 1;
    work_fn ways[] = {gemm_by_cublas, gemm_by_hand};
    const char *names[] = {"cublasSgemm", "sgemm_reg"};
    for (int w = 0; w < 2; w++) {
        CHECK(cudaMemset(c.C, 0xff, s * sizeof(float)));
        time_it(ways[w], &c, reps, &best, &median);
        CHECK(cudaMemcpy(w == 0 ? R : C, c.C, s * sizeof(float), cudaMemcpyDeviceToHost));
        int ok = 1;
        if (w == 1) { /* small integers: exact, so the two must agree exactly */
            long wrong = 0;
            for (long i = 0; i < s; i++)
                wrong += C[i] != R[i];
            ok = wrong == 0;
            if (!ok)
                fprintf(stderr, "gpubench: sgemm_reg: %ld of %ld entries differ from cuBLAS\n", wrong, s);
        }
        all_ok &= ok;
        report("sgemm", names[w], best, median, flops, "GFLOP/s", ok);
    }
    cublasDestroy(c.handle);
    CHECK(cudaFree(c.A));
    CHECK(cudaFree(c.B));
    CHECK(cudaFree(c.C));
    free(A);
    free(B);
    free(C);
    free(R);
    return all_ok ? 0 : 1;
}
#endif /* !CUDA_SIM */

int main(int argc, char **argv)
{
    const char *what = NULL;
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "what=", 5) == 0) {
            what = argv[i] + 5;
            if (i < PR_MAX_ARGS)
                pr_args.used[i] = 1; /* a word, not a number: read here, not by pr_arg_long */
        }
    long n = (long)pr_arg_long(argc, argv, "n", 1L << 26, 1, 1L << 30);
    int reps = (int)pr_arg_long(argc, argv, "reps", 20, 1, 1000);
    pr_args_done(argc, argv);
    if (!what || strcmp(what, "check") == 0)
        return check_kernels();
#ifdef CUDA_SIM
    fprintf(stderr, "gpubench: what=%s needs a GPU (the CUDA CPU simulator runs what=check only)\n", what);
    return 77;
#else
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("bench device name=\"%s\" sms=%d cc=%d.%d memory_mib=%zu\n", prop.name, prop.multiProcessorCount,
           prop.major, prop.minor, prop.totalGlobalMem >> 20);
    if (strcmp(what, "copy") == 0)
        return bench_copy(n, reps);
    if (strcmp(what, "reduce") == 0)
        return bench_reduce(n, reps);
    if (strcmp(what, "sgemm") == 0) {
        if (n > 16384) {
            fprintf(stderr, "gpubench: bad argument n=%ld: what=sgemm takes n from 1 to 16384\n", n);
            return 2;
        }
        return bench_sgemm((int)n, reps);
    }
    fprintf(stderr, "gpubench: bad argument what=%s: one of copy, reduce, sgemm, check\n", what);
    return 2;
#endif
}
