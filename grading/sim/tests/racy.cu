// Races for the race checker (simcc --racecheck), one per mode (argv[1]); each has a fixed
// twin in mode "none", which must report nothing.  Built without --racecheck it runs as usual.
//   shared:  threads read shared slots that other threads write, no __syncthreads() between
//   war:     each thread reads its left neighbour's slot, then writes its own (write after read)
//   global:  every block's thread 0 adds into one global total without an atomic (between blocks)
//   waw:     every thread of a block writes the block's one global slot (write after write)
//   warp:    lanes of a warp exchange through shared memory without __syncwarp()
//   between: a block reads the slot the block before it writes
// In "none": the barriers and __syncwarp() are there, the total is atomic, one thread writes
// the slot, each block reads only its own; and threads write neighbouring bytes of one word.
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

__global__ void shift(int *out, const int *in, int sync)
{
    __shared__ int buf[N];
    int t = threadIdx.x;
    buf[t] = in[blockIdx.x * N + t];
    __syncthreads();
    int left = t > 0 ? buf[t - 1] : 0;
    if (sync)
        __syncthreads();
    buf[t] = left + 1;
    __syncthreads();
    out[blockIdx.x * N + t] = buf[t];
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

__global__ void slot(int *out, int all)
{
    if (all || threadIdx.x == 0)
        out[blockIdx.x] = threadIdx.x;
}

__global__ void lanes(int *out, int sync)
{
    __shared__ int buf[32];
    int t = threadIdx.x;
    buf[t] = t * 3;
    if (sync)
        __syncwarp();
    out[blockIdx.x * 32 + t] = buf[31 - t];
}

__global__ void chain(int *data, int own)
{
    int b = blockIdx.x, t = threadIdx.x;
    int from = own || b == 0 ? b * N + t : (b - 1) * N + t;
    int v = data[from];
    data[b * N + t] = v + 1;
}

__global__ void bytes(char *c)
{
    c[blockIdx.x * N + threadIdx.x] = (char)threadIdx.x;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "none";
    int *in, *out, *sum;
    char *c;
    CHECK(cudaMalloc(&in, 4 * N * sizeof(int)));
    CHECK(cudaMalloc(&out, 4 * N * sizeof(int)));
    CHECK(cudaMalloc(&sum, sizeof(int)));
    CHECK(cudaMalloc(&c, 4 * N));
    CHECK(cudaMemset(in, 0, 4 * N * sizeof(int)));
    CHECK(cudaMemset(sum, 0, sizeof(int)));
    reverse<<<4, N>>>(out, in, strcmp(which, "shared") != 0);
    shift<<<4, N>>>(out, in, strcmp(which, "war") != 0);
    total<<<4, 32>>>(sum, in, strcmp(which, "global") != 0);
    slot<<<4, N>>>(out, strcmp(which, "waw") == 0);
    lanes<<<4, 32>>>(out, strcmp(which, "warp") != 0);
    chain<<<4, N>>>(in, strcmp(which, "between") != 0);
    bytes<<<4, N>>>(c);
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
