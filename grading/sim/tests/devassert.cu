// assert() in a kernel: the failing thread says where, with its block and thread; the kernel
// stops; every later synchronization returns the sticky cudaErrorAssert; a host assert is glibc's.
#include <cassert>
#include <cstdio>
#include <cstring>

__global__ void check_positive(const int *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        assert(a[i] > 0);
}

int main(int argc, char **argv)
{
    const int n = 256;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = i == 77 ? 0 : 1 + i;
    int *d;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    check_positive<<<4, 64>>>(d, n);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    cudaError_t again = cudaGetLastError();
    cudaError_t copy = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("launch %s, sync %s, then %s, copy %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync),
           cudaGetErrorName(again), cudaGetErrorString(copy));
    if (argc > 1 && strcmp(argv[1], "host") == 0)
        assert(n < 0);
    return sync == cudaErrorAssert ? 0 : 1;
}
