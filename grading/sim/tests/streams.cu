// Streams, async copies into pinned memory, events with an elapsed time.
#include "common.h"

__global__ void scale(float *x, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

int main(void)
{
    const int n = 1 << 18, half = n / 2;
    float *h, *d;
    CHECK(cudaMallocHost(&h, n * sizeof(float)));
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    for (int i = 0; i < n; i++) h[i] = (float)(i % 100);
    cudaStream_t s[2];
    cudaEvent_t start, stop;
    CHECK(cudaStreamCreate(&s[0]));
    CHECK(cudaStreamCreate(&s[1]));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, 0));
    for (int k = 0; k < 2; k++) {
        float *hp = h + k * half, *dp = d + k * half;
        CHECK(cudaMemcpyAsync(dp, hp, half * sizeof(float), cudaMemcpyHostToDevice, s[k]));
        scale<<<(half + 255) / 256, 256, 0, s[k]>>>(dp, half, k + 2.0f);
        CHECK(cudaMemcpyAsync(hp, dp, half * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
    }
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaStreamSynchronize(s[0]));
    CHECK(cudaStreamSynchronize(s[1]));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    double sum = 0;
    for (int i = 0; i < n; i++) sum += h[i];
    printf("sum %.0f elapsed positive %d\n", sum, ms > 0.0f);
    CHECK(cudaEventDestroy(start)); CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(s[0])); CHECK(cudaStreamDestroy(s[1]));
    CHECK(cudaFree(d)); CHECK(cudaFreeHost(h));
    return 0;
}
