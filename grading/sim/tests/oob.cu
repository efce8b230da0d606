// A kernel writing one element past the end of its allocation (n = 1001 ints, not a
// multiple of anything): caught, with a clear message.
#include "common.h"

__global__ void fill(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) /* the bug: <= */
        x[i] = i;
}

int main(void)
{
    const int n = 1001;
    int *d;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    fill<<<(n + 255) / 256, 256>>>(d, n);
    CHECK(cudaDeviceSynchronize());
    printf("not caught\n");
    return 0;
}
