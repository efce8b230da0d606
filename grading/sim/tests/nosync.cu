// The reduction of reduce.cu with its __syncthreads() removed: must come out wrong.
#include "common.h"
#define THREADS 256

__global__ void reduce(const float *x, long n, float *total)
{
    __shared__ float part[THREADS];
    unsigned t = threadIdx.x;
    long i = blockIdx.x * (long)blockDim.x + t;
    part[t] = i < n ? x[i] : 0.0f;
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
    }
    if (t == 0)
        atomicAdd(total, part[0]);
}

int main(void)
{
    const long n = 1 << 20;
    float *x = (float *)malloc(n * sizeof(float)), *dx, *dt, total = 0;
    for (long i = 0; i < n; i++) x[i] = 1.0f;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dt, sizeof(float)));
    CHECK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dt, 0, sizeof(float)));
    reduce<<<n / THREADS, THREADS>>>(dx, n, dt);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&total, dt, sizeof(float), cudaMemcpyDeviceToHost));
    printf("sum %g expected %ld: %s\n", total, n, total == (float)n ? "right" : "WRONG");
    return total == (float)n ? 0 : 1;
}
