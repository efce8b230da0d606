// Warp shuffles: a warp-level sum with __shfl_down_sync, a butterfly with __shfl_xor_sync,
// then block sums through shared memory.
#include "common.h"

__device__ float warp_sum_down(float v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

__device__ int warp_sum_xor(int v)
{
    for (int m = 16; m > 0; m >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}

__global__ void sums(const float *x, int n, float *total, int *xor_ok)
{
    __shared__ float warp_part[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float v = warp_sum_down(i < n ? x[i] : 0.0f);
    int all = warp_sum_xor(lane); /* every lane: 0+1+...+31 = 496 */
    if (all != 496) atomicAdd(xor_ok, 1);
    if (lane == 0) warp_part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float w = lane < (int)(blockDim.x / 32) ? warp_part[lane] : 0.0f;
        w = warp_sum_down(w);
        if (lane == 0) atomicAdd(total, w);
    }
}

int main(void)
{
    const int n = 1 << 16;
    float *x = (float *)malloc(n * sizeof(float)), *dx, *dt, total = 0;
    int *dbad, bad = 0;
    for (int i = 0; i < n; i++) x[i] = (float)(i % 10);
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dt, sizeof(float)));
    CHECK(cudaMalloc(&dbad, sizeof(int)));
    CHECK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dt, 0, sizeof(float)));
    CHECK(cudaMemset(dbad, 0, sizeof(int)));
    sums<<<n / 256, 256>>>(dx, n, dt, dbad);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&total, dt, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&bad, dbad, sizeof(int), cudaMemcpyDeviceToHost));
    printf("sum %.0f xor-wrong %d\n", total, bad);
    CHECK(cudaFree(dx)); CHECK(cudaFree(dt)); CHECK(cudaFree(dbad));
    free(x);
    return 0;
}
