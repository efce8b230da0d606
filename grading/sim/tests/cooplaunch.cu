// A cooperative launch (cudaLaunchCooperativeKernel, as NVIDIA's samples make it): it runs as
// a launch does.  With argv[1] "sync" the kernel also syncs its grid (gridsync.cu tests that
// further); built with --profile or --racecheck, the simulator cannot: status 77, named.
#include "common.h"
#include <cooperative_groups.h>
#include <string.h>
namespace cg = cooperative_groups;

__global__ void scale(float *x, int n, float a, int grid_sync)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
    if (grid_sync)
        cg::this_grid().sync();
}

int main(int argc, char **argv)
{
    int n = 1000, sync = argc > 1 && strcmp(argv[1], "sync") == 0, coop = 0;
    float a = 3.0f, *x, h[1000];
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    CHECK(cudaMalloc(&x, sizeof h));
    CHECK(cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice));
    void *args[] = { &x, &n, &a, &sync };
    if (sync) /* the form NVIDIA's samples use: the kernel cast to void * */
        CHECK(cudaLaunchCooperativeKernel((void *)scale, dim3(4), dim3(256), args));
    else
        CHECK(cudaLaunchCooperativeKernel(scale, dim3(4), dim3(256), args));
    CHECK(cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost));
    printf("cooperative launch %d: x[999] %.0f\n", coop, h[999]);
    return 0;
}
