// A shared-memory tree reduction of 2^20 floats in 256-thread blocks, block sums
// added with atomicAdd; compared with a CPU sum.  Also the simulator's speed figure.
#include "pr.h"
#include <cuda_runtime.h>

#define THREADS 256

__global__ void reduce(const float *x, long n, float *total)
{
    __shared__ float part[THREADS];
    unsigned t = threadIdx.x;
    long i = blockIdx.x * (long)blockDim.x + t;
    part[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(total, part[0]);
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 1 << 20, 1, 1 << 26);
    pr_args_done(argc, argv);
    float *x = (float *)malloc(n * sizeof(float));
    double expect = 0;
    for (long i = 0; i < n; i++) {
        x[i] = (float)(i % 7) - 3.0f + 0.25f; /* exact in float, sums exactly */
        expect += x[i];
    }
    float *dx, *dtotal, total = 0;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dtotal, sizeof(float)));
    CHECK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dtotal, 0, sizeof(float)));
    double t0 = pr_now();
    reduce<<<(unsigned)((n + THREADS - 1) / THREADS), THREADS>>>(dx, n, dtotal);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double t = pr_now() - t0;
    CHECK(cudaMemcpy(&total, dtotal, sizeof(float), cudaMemcpyDeviceToHost));
    pr_check_double("sum", total, expect, 0);
    pr_result_double("sum", total, 0);
    fprintf(stderr, "reduce: n=%ld kernel %.3f s\n", n, t);
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dtotal));
    free(x);
    return pr_finish();
}
