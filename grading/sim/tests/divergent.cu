// A barrier only half the threads of a block reach: reported, not a hang.
#include "common.h"

__global__ void half_sync(int *x)
{
    if (threadIdx.x < 64) {
        x[threadIdx.x] = 1;
        __syncthreads();
    }
}

int main(void)
{
    int *d;
    CHECK(cudaMalloc(&d, 128 * sizeof(int)));
    half_sync<<<2, 128>>>(d);
    CHECK(cudaDeviceSynchronize());
    printf("no error reported\n");
    return 0;
}
