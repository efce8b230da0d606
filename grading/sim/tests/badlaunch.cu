// Launch-configuration errors as a GPU reports them: 2048 threads, a zero grid.
#include "common.h"

__global__ void touch(int *x) { x[threadIdx.x] = 1; }

int main(void)
{
    int *d;
    CHECK(cudaMalloc(&d, 4096 * sizeof(int)));
    touch<<<1, 2048>>>(d);
    cudaError_t peek = cudaPeekAtLastError();
    cudaError_t e = cudaGetLastError();
    printf("2048 threads: %d %s (peek %d)\n", (int)e, cudaGetErrorString(e), (int)peek);
    e = cudaGetLastError();
    printf("after: %d %s\n", (int)e, cudaGetErrorString(e));
    touch<<<0, 32>>>(d);
    e = cudaGetLastError();
    printf("zero blocks: %d %s\n", (int)e, cudaGetErrorString(e));
    touch<<<1, dim3(32, 32, 2)>>>(d);
    e = cudaGetLastError();
    printf("32x32x2 threads: %d %s\n", (int)e, cudaGetErrorString(e));
    touch<<<1, 1024>>>(d);
    e = cudaGetLastError();
    printf("1024 threads: %d %s\n", (int)e, cudaGetErrorString(e));
    CHECK(cudaFree(d));
    return 0;
}
