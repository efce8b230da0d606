// cunit_sim.cu -- CUnit tests of the CUDA CPU simulator, built with grading/sim/simcc
// (a CUDA source: kernels, launches and runtime calls go through the simulator).
// Correct results for a shared-memory reduction with atomics, a tiled matmul on a
// 2-D grid, dynamic shared memory, a histogram with atomics of several types, warp
// shuffles, streams and events, launch-configuration errors, device queries and
// copies; and, run under different shuffle seeds (CUDA_SIM_SEED), the reduction
// without its barriers gives a wrong sum.  (What kills the process -- a divergent
// barrier, a host dereference of a device pointer, an out-of-bounds write -- is
// tested end to end by run.sh.)  Exit status: 0 when no assertion failed.
#include <CUnit/Basic.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OK(call) CU_ASSERT_EQUAL_FATAL((call), cudaSuccess)

#define THREADS 256

__global__ void reduce_sum(const float *x, long n, float *total, int with_barriers)
{
    __shared__ float part[THREADS];
    unsigned t = threadIdx.x;
    long i = blockIdx.x * (long)blockDim.x + t;
    part[t] = i < n ? x[i] : 0.0f;
    if (with_barriers)
        __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        if (with_barriers)
            __syncthreads();
    }
    if (t == 0)
        atomicAdd(total, part[0]);
}

static float run_reduction(long n, int with_barriers)
{
    float *x = (float *)malloc(n * sizeof(float)), *dx, *dt, total = -1;
    for (long i = 0; i < n; i++)
        x[i] = 1.0f;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dt, sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dt, 0, sizeof(float));
    reduce_sum<<<(unsigned)((n + THREADS - 1) / THREADS), THREADS>>>(dx, n, dt, with_barriers);
    cudaMemcpy(&total, dt, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dt);
    free(x);
    return total;
}

static void test_reduction(void)
{
    CU_ASSERT_EQUAL(run_reduction(1 << 20, 1), (float)(1 << 20));
    CU_ASSERT_EQUAL(run_reduction(100003, 1), 100003.0f); /* a partial last block */
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess);
}

#define TILE 16

__global__ void matmul_tiled(const float *a, const float *b, float *c, int n)
{
    __shared__ float ta[TILE][TILE], tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        ta[threadIdx.y][threadIdx.x] = row < n && k0 + threadIdx.x < n ? a[row * n + k0 + threadIdx.x] : 0;
        tb[threadIdx.y][threadIdx.x] = col < n && k0 + threadIdx.y < n ? b[(k0 + threadIdx.y) * n + col] : 0;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        c[row * n + col] = sum;
}

static void test_tiled_matmul(void)
{
    const int n = 37; /* not a multiple of the tile */
    size_t bytes = n * n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    for (int i = 0; i < n * n; i++) {
        a[i] = (float)(i % 5) - 2;
        b[i] = (float)(i % 3) - 1;
    }
    float *da, *db, *dc;
    OK(cudaMalloc(&da, bytes));
    OK(cudaMalloc(&db, bytes));
    OK(cudaMalloc(&dc, bytes));
    OK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    OK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(da, db, dc, n);
    OK(cudaGetLastError());
    OK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            wrong += c[i * n + j] != s; /* small integers: exact */
        }
    CU_ASSERT_EQUAL(wrong, 0);
    cudaFree(da), cudaFree(db), cudaFree(dc);
    free(a), free(b), free(c);
}

__global__ void reverse_dynamic(int *v, int n)
{
    extern __shared__ int buf[];
    int t = threadIdx.x;
    if (t < n)
        buf[t] = v[t];
    __syncthreads();
    if (t < n)
        v[t] = buf[n - 1 - t];
}

static void test_dynamic_shared(void)
{
    const int n = 300;
    int h[n], *d;
    for (int i = 0; i < n; i++)
        h[i] = i * 3;
    OK(cudaMalloc(&d, sizeof h));
    OK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    reverse_dynamic<<<1, 320, n * sizeof(int)>>>(d, n);
    OK(cudaGetLastError());
    OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += h[i] != (n - 1 - i) * 3;
    CU_ASSERT_EQUAL(wrong, 0);
    cudaFree(d);
}

__global__ void histogram(const int *v, int n, unsigned *bins, unsigned long long *total, double *dsum,
                          int *maxv, int *minv)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        atomicAdd(&bins[v[i] % 10], 1u);
        atomicAdd(total, (unsigned long long)v[i]);
        atomicAdd(dsum, 0.5 * v[i]);
        atomicMax(maxv, v[i]);
        atomicMin(minv, v[i]);
    }
}

static void test_atomics(void)
{
    const int n = 10007;
    int *v = (int *)malloc(n * sizeof(int)), *dv, *dmax, *dmin, hmax = -1, hmin = 1 << 30;
    unsigned *dbins, bins[10] = { 0 }, want[10] = { 0 };
    unsigned long long *dtotal, total = 0, want_total = 0;
    double *dsum, sum = 0;
    for (int i = 0; i < n; i++) {
        v[i] = (i * 7919) % 1000;
        want[v[i] % 10]++;
        want_total += v[i];
    }
    OK(cudaMalloc(&dv, n * sizeof(int)));
    OK(cudaMalloc(&dbins, sizeof bins));
    OK(cudaMalloc(&dtotal, sizeof total));
    OK(cudaMalloc(&dsum, sizeof sum));
    OK(cudaMalloc(&dmax, sizeof(int)));
    OK(cudaMalloc(&dmin, sizeof(int)));
    OK(cudaMemcpy(dv, v, n * sizeof(int), cudaMemcpyHostToDevice));
    OK(cudaMemset(dbins, 0, sizeof bins));
    OK(cudaMemset(dtotal, 0, sizeof total));
    OK(cudaMemset(dsum, 0, sizeof sum));
    OK(cudaMemcpy(dmax, &hmax, sizeof(int), cudaMemcpyHostToDevice));
    OK(cudaMemcpy(dmin, &hmin, sizeof(int), cudaMemcpyHostToDevice));
    histogram<<<7, 128>>>(dv, n, dbins, dtotal, dsum, dmax, dmin);
    OK(cudaGetLastError());
    OK(cudaMemcpy(bins, dbins, sizeof bins, cudaMemcpyDeviceToHost));
    OK(cudaMemcpy(&total, dtotal, sizeof total, cudaMemcpyDeviceToHost));
    OK(cudaMemcpy(&sum, dsum, sizeof sum, cudaMemcpyDeviceToHost));
    OK(cudaMemcpy(&hmax, dmax, sizeof(int), cudaMemcpyDeviceToHost));
    OK(cudaMemcpy(&hmin, dmin, sizeof(int), cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(memcmp(bins, want, sizeof bins), 0);
    CU_ASSERT_EQUAL(total, want_total);
    CU_ASSERT_DOUBLE_EQUAL(sum, 0.5 * (double)want_total, 1e-9);
    CU_ASSERT_EQUAL(hmax, 999);
    CU_ASSERT_EQUAL(hmin, 0);
    cudaFree(dv), cudaFree(dbins), cudaFree(dtotal), cudaFree(dsum), cudaFree(dmax), cudaFree(dmin);
    free(v);
}

__global__ void warp_sums(const int *v, int *out)
{
    int x = v[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = 16; offset > 0; offset >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, offset);
    int y = v[blockIdx.x * blockDim.x + threadIdx.x];
    for (int mask = 16; mask > 0; mask >>= 1)
        y += __shfl_xor_sync(0xffffffffu, y, mask);
    if (threadIdx.x % 32 == 0)
        out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = x;
    if (threadIdx.x % 32 == 5) /* after xor every lane holds the warp's sum */
        out[64 + (blockIdx.x * blockDim.x + threadIdx.x) / 32] = y;
}

static void test_warp_shuffles(void)
{
    int v[2048], out[128], *dv, *dout;
    for (int i = 0; i < 2048; i++)
        v[i] = i % 37;
    OK(cudaMalloc(&dv, sizeof v));
    OK(cudaMalloc(&dout, sizeof out));
    OK(cudaMemcpy(dv, v, sizeof v, cudaMemcpyHostToDevice));
    warp_sums<<<8, 256>>>(dv, dout);
    OK(cudaGetLastError());
    OK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int w = 0; w < 64; w++) {
        int s = 0;
        for (int l = 0; l < 32; l++)
            s += v[w * 32 + l];
        wrong += out[w] != s;
        wrong += out[64 + w] != s;
    }
    CU_ASSERT_EQUAL(wrong, 0);
    cudaFree(dv), cudaFree(dout);
}

__global__ void scale(float *v, int n, float f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] *= f;
}

static void test_streams_and_events(void)
{
    const int n = 1 << 16;
    float *h, *d;
    OK(cudaMallocHost(&h, n * sizeof(float)));
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    OK(cudaMalloc(&d, n * sizeof(float)));
    cudaStream_t s;
    cudaEvent_t start, stop;
    OK(cudaStreamCreate(&s));
    OK(cudaEventCreate(&start));
    OK(cudaEventCreate(&stop));
    OK(cudaEventRecord(start, s));
    OK(cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s));
    scale<<<(n + 255) / 256, 256, 0, s>>>(d, n, 2.0f);
    OK(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    OK(cudaEventRecord(stop, s));
    OK(cudaStreamSynchronize(s));
    OK(cudaEventSynchronize(stop));
    float ms = -1;
    OK(cudaEventElapsedTime(&ms, start, stop));
    CU_ASSERT(ms > 0);
    int wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += h[i] != 2.0f * i;
    CU_ASSERT_EQUAL(wrong, 0);
    cudaEventDestroy(start), cudaEventDestroy(stop), cudaStreamDestroy(s);
    cudaFree(d), cudaFreeHost(h);
}

static void test_launch_errors_and_queries(void)
{
    float *d;
    OK(cudaMalloc(&d, 16 * sizeof(float)));
    scale<<<1, 2048>>>(d, 16, 1.0f); /* more than 1024 threads in a block */
    cudaError_t e = cudaGetLastError();
    CU_ASSERT_NOT_EQUAL(e, cudaSuccess);
    CU_ASSERT_PTR_NOT_NULL(cudaGetErrorString(e));
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess); /* reading it clears it */
    scale<<<1, 16>>>(d, 16, 1.0f);
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess);
    int count = 0;
    OK(cudaGetDeviceCount(&count));
    CU_ASSERT_EQUAL(count, 1);
    OK(cudaSetDevice(0));
    cudaDeviceProp p;
    OK(cudaGetDeviceProperties(&p, 0));
    CU_ASSERT_EQUAL(p.warpSize, 32);
    CU_ASSERT_EQUAL(p.maxThreadsPerBlock, 1024);
    CU_ASSERT(p.sharedMemPerBlock >= 48 * 1024);
    OK(cudaFree(d));
}

/* The reduction without barriers, in a child process per seed: the shuffled order
 * must expose the missing __syncthreads() every time. */
static void test_missing_barrier_is_wrong(void)
{
    const char *self = getenv("CUNIT_SIM_SELF");
    CU_ASSERT_PTR_NOT_NULL_FATAL(self);
    int right = 0;
    for (int seed = 1; seed <= 5; seed++) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "CUDA_SIM_SEED=%d '%s' --nosync", seed, self);
        FILE *p = popen(cmd, "r");
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        float got = -1;
        int n = fscanf(p, "%f", &got);
        pclose(p);
        CU_ASSERT_EQUAL(n, 1);
        right += got == (float)(1 << 20);
    }
    CU_ASSERT_EQUAL(right, 0);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--nosync") == 0) {
        printf("%f\n", run_reduction(1 << 20, 0));
        return 0;
    }
    setenv("CUNIT_SIM_SELF", argv[0], 1);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite suite = CU_add_suite("cuda simulator", NULL, NULL);
    struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        { "shared-memory reduction with atomicAdd", test_reduction },
        { "tiled matmul on a 2-D grid", test_tiled_matmul },
        { "dynamic shared memory", test_dynamic_shared },
        { "a histogram with atomics of several types", test_atomics },
        { "warp shuffles (down and xor)", test_warp_shuffles },
        { "streams and events", test_streams_and_events },
        { "launch errors and device queries", test_launch_errors_and_queries },
        { "a missing __syncthreads() is wrong in every seed", test_missing_barrier_is_wrong },
    };
    for (size_t i = 0; suite && i < sizeof tests / sizeof tests[0]; i++)
        if (!CU_add_test(suite, tests[i].name, tests[i].fn))
            suite = NULL;
    if (!suite) {
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failures > 0 ? 1 : 0;
}
