// Races for the race checker (simcc --racecheck): a block's threads reading shared memory
// that other threads of the block write with no __syncthreads() between, and every block's
// thread 0 adding into the same global total without an atomic.  Built without
// --racecheck it runs as usual; which of the two runs is argv[1] (shared, global, none).
#include "common.h"
#include <string.h>

#define N 128

__global__ void reverse(int *out, const int *in, int sync)
{
    __shared__ int buf[N];
    int t = threadIdx.x;
    buf[t] = in[blockIdx.x * N + t];
    if (sync)
        __syncthreads();
    out[blockIdx.x * N + t] = buf[N - 1 - t];
}

__global__ void total(int *sum, const int *in, int atomic)
{
    if (threadIdx.x == 0) {
        if (atomic)
            atomicAdd(sum, in[blockIdx.x]);
        else
            *sum += in[blockIdx.x];
    }
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "none";
    int *in, *out, *sum;
    CHECK(cudaMalloc(&in, 4 * N * sizeof(int)));
    CHECK(cudaMalloc(&out, 4 * N * sizeof(int)));
    CHECK(cudaMalloc(&sum, sizeof(int)));
    CHECK(cudaMemset(in, 0, 4 * N * sizeof(int)));
    CHECK(cudaMemset(sum, 0, sizeof(int)));
    reverse<<<4, N>>>(out, in, strcmp(which, "shared") != 0);
    total<<<4, 32>>>(sum, in, strcmp(which, "global") != 0);
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
