// The smaller runtime calls course code meets: pitched memory (cudaMallocPitch,
// cudaMemcpy2D, cudaMemset2D), block- and system-scoped atomics, occupancy,
// cudaFuncSetAttribute, device limits, cudaLaunchKernel, prefetch and advice, host
// registration, the profiler calls, rounding-mode intrinsics.
#include "common.h"
#include <cuda_profiler_api.h>

__global__ void inc(float *p, size_t pitch, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) {
        float *row = (float *)((char *)p + y * pitch);
        row[x] += 1.0f;
    }
}
__global__ void count(int *c)
{
    atomicAdd_block(c, 1);
    atomicAdd_system(c + 1, 2);
}
__global__ void addk(int *c, int v) { atomicAdd(c, v); }
__global__ void rounding(double *out)
{
    out[0] = __fadd_rd(1.0f, 1e-8f);
    out[1] = __fadd_ru(1.0f, 1e-8f);
    out[2] = __ddiv_rz(1.0, 3.0) < 1.0 / 3.0;
    out[3] = __ddiv_ru(1.0, 3.0) > 1.0 / 3.0;
}

int main(void)
{
    const int w = 100, h = 7;
    static float host[h][w], back[h][w];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            host[y][x] = (float)(y * w + x);
    float *d;
    size_t pitch;
    CHECK(cudaMallocPitch(&d, &pitch, w * sizeof(float), h));
    CHECK(cudaMemcpy2D(d, pitch, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    inc<<<dim3(1, h), 128>>>(d, pitch, w, h);
    CHECK(cudaMemcpy2D(back, w * sizeof(float), d, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            wrong += back[y][x] != host[y][x] + 1;
    CHECK(cudaMemset2D(d, pitch, 0, w * sizeof(float), h));
    CHECK(cudaMemcpy2D(back, w * sizeof(float), d, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            wrong += back[y][x] != 0.0f;
    printf("pitch>=width %d pitch%%128 %d wrong %d\n", pitch >= w * sizeof(float), (int)(pitch % 128), wrong);
    CHECK(cudaFree(d));

    int *c;
    CHECK(cudaMallocManaged(&c, 2 * sizeof(int)));
    c[0] = c[1] = 0;
    count<<<3, 64>>>(c);
    CHECK(cudaDeviceSynchronize());
    printf("scoped atomics %d %d\n", c[0], c[1]);

    int min_grid = 0, block = 0, blocks = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, count, 0, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, count, 256, 0));
    printf("occupancy block>0 %d grid>0 %d blocks>0 %d\n", block > 0, min_grid > 0, blocks > 0);
    CHECK(cudaFuncSetAttribute(count, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
    CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1 << 22));
    size_t limit = 0;
    CHECK(cudaDeviceGetLimit(&limit, cudaLimitPrintfFifoSize));
    printf("printf fifo %zu\n", limit);

    int v = 5;
    void *args[] = { &c, &v };
    c[0] = 0;
    CHECK(cudaLaunchKernel(addk, dim3(2), dim3(3), args, 0, 0));
    CHECK(cudaLaunchKernel((const void *)addk, dim3(1), dim3(2), args, 0, 0)); /* as NVIDIA's samples write it */
    cudaMemLocation here = { cudaMemLocationTypeDevice, 0 };
    CHECK(cudaMemPrefetchAsync(c, 2 * sizeof(int), here, 0, 0));
    CHECK(cudaDeviceSynchronize());
    printf("cudaLaunchKernel %d\n", c[0]);

    double *r;
    CHECK(cudaMallocManaged(&r, 4 * sizeof(double)));
    rounding<<<1, 1>>>(r);
    CHECK(cudaDeviceSynchronize());
    printf("rounding %.9g %.9g %d %d\n", r[0], r[1], (int)r[2], (int)r[3]);

    CHECK(cudaProfilerStart());
    CHECK(cudaProfilerStop());
    float hp[4];
    CHECK(cudaHostRegister(hp, sizeof hp, cudaHostRegisterDefault));
    CHECK(cudaHostUnregister(hp));
    CHECK(cudaFree(c));
    CHECK(cudaFree(r));
    return 0;
}
