// A launch and an extern __shared__ array in a local header (cuh_kernels.cuh).
#include "common.h"
#include "cuh_kernels.cuh"

int main(void)
{
    const int blocks = 8, threads = 64, n = blocks * threads;
    int *x, *out;
    CHECK(cudaMallocManaged(&x, n * sizeof(int)));
    CHECK(cudaMallocManaged(&out, blocks * sizeof(int)));
    for (int i = 0; i < n; i++)
        x[i] = i;
    launch_block_sums(x, out, blocks, threads);
    CHECK(cudaDeviceSynchronize());
    long total = 0;
    for (int b = 0; b < blocks; b++)
        total += out[b];
    printf("block sums from a header: %ld (expected %d)\n", total, n * (n - 1) / 2);
    return 0;
}
