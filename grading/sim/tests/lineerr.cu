// A compile error after a launch: the compiler must name this file and line 11.
#include "common.h"

__global__ void k(int *x) { x[threadIdx.x] = 0; }

int main(void)
{
    int *d;
    CHECK(cudaMalloc(&d, 32 * sizeof(int)));
    k<<<dim3(1, 1), dim3(32)>>>(d);
    int oops = "not an int";
    return oops;
}
