// Managed memory: the host reads a kernel's results after cudaDeviceSynchronize (right),
// then once without it: the simulator stops there and names the missing synchronization.
#include "common.h"

__global__ void square(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = i * i;
}

int main(void)
{
    const int n = 100;
    int *x;
    CHECK(cudaMallocManaged(&x, n * sizeof(int)));
    for (int i = 0; i < n; i++)
        x[i] = -1;
    square<<<1, 128>>>(x, n);
    CHECK(cudaDeviceSynchronize());
    printf("synchronized: x[9] = %d\n", x[9]);
    square<<<1, 128>>>(x, n);
    printf("reading x[9] without synchronizing\n");
    fflush(stdout);
    volatile int v = x[9];
    printf("read %d: not caught\n", v);
    return 0;
}
