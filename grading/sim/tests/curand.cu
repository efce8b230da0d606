// cuRAND's device API: pi by Monte Carlo, one state per thread (curand_init with the
// thread's subsequence), uniform in (0, 1], normals with mean 0 and variance 1.
#include "common.h"
#include <curand_kernel.h>

__global__ void darts(unsigned long long seed, int per_thread, unsigned long long *inside, double *moments, int *bad)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState s;
    curand_init(seed, id, 0, &s);
    unsigned long long hits = 0;
    double sum = 0, sq = 0;
    for (int k = 0; k < per_thread; k++) {
        float x = curand_uniform(&s), y = curand_uniform(&s);
        if (x <= 0.0f || x > 1.0f || y <= 0.0f || y > 1.0f)
            atomicAdd(bad, 1);
        hits += x * x + y * y <= 1.0f;
        double z = curand_normal_double(&s);
        sum += z;
        sq += z * z;
    }
    atomicAdd(inside, hits);
    atomicAdd(&moments[0], sum);
    atomicAdd(&moments[1], sq);
}

int main(void)
{
    const int blocks = 64, threads = 128, per = 200;
    unsigned long long *inside;
    double *m;
    int *bad;
    CHECK(cudaMallocManaged(&inside, sizeof *inside));
    CHECK(cudaMallocManaged(&m, 2 * sizeof *m));
    CHECK(cudaMallocManaged(&bad, sizeof *bad));
    *inside = 0;
    m[0] = m[1] = 0;
    *bad = 0;
    darts<<<blocks, threads>>>(1234, per, inside, m, bad);
    CHECK(cudaDeviceSynchronize());
    double n = (double)blocks * threads * per, pi = 4.0 * (double)*inside / n;
    double mean = m[0] / n, var = m[1] / n - mean * mean;
    printf("pi within 0.02 %d, normal mean within 0.02 %d, variance within 0.02 %d, out of (0,1] %d\n",
           pi > 3.1216 && pi < 3.1616, mean > -0.02 && mean < 0.02, var > 0.98 && var < 1.02, *bad);
    return 0;
}
