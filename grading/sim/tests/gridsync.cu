// Grid-wide syncs in a cooperative launch (cudaLaunchCooperativeKernel, cooperative_groups'
// this_grid().sync()): a sum whose blocks' partial sums are added after a grid sync, and 20
// steps of a 1-D smoothing whose every step reads its neighbours' values of the step before,
// across blocks, after a grid sync.  Each block keeps values in static and dynamic shared
// memory and a warp's shuffles across the syncs, so a block put aside at a sync must come
// back with its own.  Arguments: "big" launches too many blocks (a clear error), "plain"
// launches with <<<...>>> (an error: only a cooperative launch may sync its grid), "early"
// lets block 1 return before the sync (an error: the others would wait for ever).
#include "common.h"
#include <cooperative_groups.h>
#include <string.h>
namespace cg = cooperative_groups;

__global__ void sum_smooth(const float *x, int n, float *partial, float *total, float *a, float *b, int steps, int early,
                           int *bad)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ float part[256];
    __shared__ unsigned me;
    extern __shared__ int mine[];
    if (threadIdx.x == 0)
        me = blockIdx.x;
    mine[threadIdx.x] = (int)(blockIdx.x * 1000 + threadIdx.x);
    float s = 0;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
        s += x[i];
    part[threadIdx.x] = s;
    block.sync();
    for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h)
            part[threadIdx.x] += part[threadIdx.x + h];
        block.sync();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = part[0];
    if (early && blockIdx.x == 1)
        return;
    float lane_value = (float)(threadIdx.x % 32);
    grid.sync();
    if (grid.thread_rank() == 0) {
        float t = 0;
        for (unsigned long long k = 0; k < grid.num_blocks(); k++)
            t += partial[k];
        *total = t;
    }
    for (int step = 0; step < steps; step++) {
        const float *src = step % 2 ? b : a;
        float *dst = step % 2 ? a : b;
        for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) {
            float l = i > 0 ? src[i - 1] : src[i], r = i + 1 < (unsigned long long)n ? src[i + 1] : src[i];
            dst[i] = 0.25f * l + 0.5f * src[i] + 0.25f * r;
        }
        grid.sync();
        if (me != blockIdx.x || mine[threadIdx.x] != (int)(blockIdx.x * 1000 + threadIdx.x))
            atomicAdd(bad, 1);
    }
    float sum = lane_value;
    for (int d = 16; d > 0; d /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, d);
    if (threadIdx.x % 32 == 0 && sum != 496.0f)
        atomicAdd(bad, 1);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const int n = 10007, steps = 20, threads = 256;
    int blocks = 0, per_sm = 0;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_smooth, threads, threads * sizeof(int)));
    blocks = per_sm * prop.multiProcessorCount;
    static float hx[10007], ha[10007];
    double expect = 0;
    for (int i = 0; i < n; i++) {
        hx[i] = (float)(i % 17);
        expect += hx[i];
        ha[i] = i == n / 2 ? 1024.0f : 0.0f;
    }
    float *x, *partial, *total, *a, *b;
    int *bad, early = strcmp(mode, "early") == 0;
    CHECK(cudaMalloc(&x, sizeof hx));
    CHECK(cudaMalloc(&a, sizeof ha));
    CHECK(cudaMalloc(&b, sizeof ha));
    CHECK(cudaMalloc(&partial, (blocks + 1) * sizeof(float)));
    CHECK(cudaMalloc(&total, sizeof(float)));
    CHECK(cudaMalloc(&bad, sizeof(int)));
    CHECK(cudaMemset(bad, 0, sizeof(int)));
    CHECK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice));
    int nn = n, st = steps;
    void *args[] = { &x, &nn, &partial, &total, &a, &b, &st, &early, &bad };
    if (strcmp(mode, "big") == 0) {
        cudaError_t e = cudaLaunchCooperativeKernel(sum_smooth, dim3(blocks + 1), dim3(threads), args,
                                                    threads * sizeof(int));
        printf("%d blocks: %s\n", blocks + 1, cudaGetErrorName(e));
        return 0;
    }
    if (strcmp(mode, "plain") == 0)
        sum_smooth<<<blocks, threads, threads * sizeof(int)>>>(x, n, partial, total, a, b, steps, 0, bad);
    else
        CHECK(cudaLaunchCooperativeKernel(sum_smooth, dim3(blocks), dim3(threads), args, threads * sizeof(int)));
    CHECK(cudaDeviceSynchronize());
    float got_total;
    int got_bad;
    CHECK(cudaMemcpy(&got_total, total, sizeof got_total, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&got_bad, bad, sizeof got_bad, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ha, steps % 2 ? b : a, sizeof ha, cudaMemcpyDeviceToHost));
    /* the same smoothing on the host */
    static float ca[10007], cb[10007];
    for (int i = 0; i < n; i++)
        ca[i] = i == n / 2 ? 1024.0f : 0.0f;
    for (int step = 0; step < steps; step++) {
        const float *src = step % 2 ? cb : ca;
        float *dst = step % 2 ? ca : cb;
        for (int i = 0; i < n; i++) {
            float l = i > 0 ? src[i - 1] : src[i], r = i + 1 < n ? src[i + 1] : src[i];
            dst[i] = 0.25f * l + 0.5f * src[i] + 0.25f * r;
        }
    }
    const float *want = steps % 2 ? cb : ca;
    int differ = 0;
    for (int i = 0; i < n; i++)
        differ += ha[i] != want[i];
    printf("blocks %d total %.0f expected %.0f smoothing differs %d shared lost %d\n", blocks, got_total, expect, differ,
           got_bad);
    return 0;
}
