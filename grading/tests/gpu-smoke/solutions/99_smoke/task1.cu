#include "pr.h"
#include <cuda_runtime.h>

__global__ void saxpy(long n, float a, const float *x, float *y)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 1 << 24, 1, 1 << 28);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
    pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
    for (long i = 0; i < n; i++) { x[i] = (float)pr_rng_double(&rng, -1, 1); y[i] = (float)pr_rng_double(&rng, -1, 1); }
    double expect = 0;
    for (long i = 0; i < n; i++) expect += 2.0f * x[i] + y[i];
    float *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start)); CHECK(cudaEventCreate(&stop));
    double t0 = pr_now();
    CHECK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaEventRecord(start));
    //@ TODO: launch saxpy with a = 2
    //@ placeholder: /* no launch yet */
    //@ solution {
    saxpy<<<1024, 256>>>(n, 2.0f, dx, dy);
    //@ }
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    double t_total = pr_now() - t0;
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    double sum = 0;
    for (long i = 0; i < n; i++) sum += y[i];
    pr_check_double("sum of y", sum, expect, 1e-6);
    pr_result_double("sum", sum, 1e-6);
    printf("  kernel %.3f ms (%.1f GB/s), with transfers %.3f ms\n", ms, 12.0 * n / (ms * 1e6), t_total * 1e3);
    CHECK(cudaFree(dx)); CHECK(cudaFree(dy)); free(x); free(y);
    return pr_finish();
}
