// What NVIDIA's cuda-samples need beyond the rooms: a clock spin that ends, stream-ordered
// allocation, zero-copy, extern TYPE __shared__, __grid_constant__, __half2 arithmetic and
// structs declared with __align__(N) (the brace after it opens a type, not a function).
#include "common.h"
#include <cuda_fp16.h>

__global__ void spin(long long *out, long long cycles)
{
    long long start = clock64(), t = 0;
    while (t < cycles) t = clock64() - start;
    unsigned s = (unsigned)clock(), e = s;
    while (e - s < 5000u) e = (unsigned)clock();
    out[0] = t;
    out[1] = e - s;
}
__global__ void reverse(const int *in, int *out, int n)
{
    extern int __shared__ tile[];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[n - 1 - threadIdx.x];
}
struct params { int add[8]; };
__global__ void add_params(__grid_constant__ const params p, int *out) { out[threadIdx.x] += p.add[threadIdx.x]; }
__global__ void halves(__half2 *h) { h[0] = h[0] * h[1] + __half2(1.0f, -1.0f); }
typedef struct __align__(16)
{
    unsigned int x, y, z;
} padded3;
typedef struct __align__(8) { unsigned short lo, hi; } pair8;
__global__ void fill3(padded3 *a, pair8 *b)
{
    a[threadIdx.x].z = 3 * threadIdx.x;
    b[threadIdx.x].hi = (unsigned short)(a[threadIdx.x].z + 1);
}

int main(void)
{
    long long *t;
    CHECK(cudaMallocManaged(&t, 2 * sizeof(long long)));
    spin<<<2, 2>>>(t, 1000000000LL);
    CHECK(cudaDeviceSynchronize());
    printf("clock spin ends: %d %d\n", t[0] >= 1000000000LL, t[1] >= 5000);

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    unsigned long long keep = ~0ULL, got = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
    int *in, *out, *host_mapped, *dev_view;
    const int n = 8;
    CHECK(cudaMallocAsync(&in, n * sizeof(int), s));
    CHECK(cudaMallocAsync(&out, n * sizeof(int), s));
    CHECK(cudaHostAlloc(&host_mapped, n * sizeof(int), cudaHostAllocMapped));
    for (int i = 0; i < n; i++) host_mapped[i] = i * i;
    CHECK(cudaHostGetDevicePointer(&dev_view, host_mapped, 0));
    CHECK(cudaMemcpyAsync(in, dev_view, n * sizeof(int), cudaMemcpyDeviceToDevice, s));
    reverse<<<1, n, n * sizeof(int), s>>>(in, out, n);
    params p;
    for (int i = 0; i < n; i++) p.add[i] = 100;
    add_params<<<1, n, 0, s>>>(p, out);
    CHECK(cudaMemcpyAsync(host_mapped, out, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(in, s));
    CHECK(cudaFreeAsync(out, s));
    CHECK(cudaStreamSynchronize(s));
    printf("pool threshold kept %d; reversed + 100: %d %d %d\n", got == keep, host_mapped[0], host_mapped[1],
           host_mapped[7]);
    printf("freed at the stream's turn: %s\n", cudaGetErrorName(cudaFree(in)));
    (void)cudaGetLastError();

    __half2 *h;
    CHECK(cudaMallocManaged(&h, 2 * sizeof(__half2)));
    h[0] = __floats2half2_rn(2.0f, 3.0f);
    h[1] = __floats2half2_rn(0.5f, 4.0f);
    halves<<<1, 1>>>(h);
    CHECK(cudaDeviceSynchronize());
    printf("half2 %g %g\n", __low2float(h[0]), __high2float(h[0]));
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, halves));
    printf("kernel attributes: max threads %d\n", fa.maxThreadsPerBlock);
    padded3 *a3;
    pair8 *b8;
    CHECK(cudaMallocManaged(&a3, 8 * sizeof(padded3)));
    CHECK(cudaMallocManaged(&b8, 8 * sizeof(pair8)));
    fill3<<<1, 8>>>(a3, b8);
    CHECK(cudaDeviceSynchronize());
    printf("__align__ structs: size %zu align %zu, size %zu align %zu; z[5] %u hi[7] %u\n", sizeof(padded3),
           alignof(padded3), sizeof(pair8), alignof(pair8), a3[5].z, (unsigned)b8[7].hi);
    CHECK(cudaFree(a3));
    CHECK(cudaFree(b8));
    CHECK(cudaFreeHost(host_mapped));
    CHECK(cudaFree(t));
    CHECK(cudaFree(h));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
