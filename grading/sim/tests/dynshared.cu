// Dynamic shared memory (extern __shared__, sized at launch): each block reverses its chunk.
#include "common.h"

__global__ void reverse_chunks(int *d, int n)
{
    extern __shared__ int s[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    if (base + t < n) s[t] = d[base + t];
    __syncthreads();
    int len = min((int)blockDim.x, n - base);
    if (t < len) d[base + t] = s[len - 1 - t];
}

int main(void)
{
    const int n = 1000, threads = 96;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = i;
    int *d;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
    reverse_chunks<<<(n + threads - 1) / threads, threads, threads * sizeof(int)>>>(d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        int base = i / threads * threads, len = n - base < threads ? n - base : threads;
        wrong += h[i] != base + len - 1 - (i - base);
    }
    printf("wrong %d first %d last %d\n", wrong, h[0], h[n - 1]);
    CHECK(cudaFree(d));
    return wrong != 0;
}
