// Cooperative groups: the block, warp tiles and smaller tiles (sync, ranks, shuffles,
// votes, cg::reduce), the block sum of the CUDA Programming Guide's example.
#include "common.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void block_sum(const int *x, int n, int *out, int *checks)
{
    __shared__ int warp_sums[32];
    cg::thread_block b = cg::this_thread_block();
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);
    int i = blockIdx.x * blockDim.x + (int)b.thread_rank();
    int v = i < n ? x[i] : 0;
    for (int d = 16; d > 0; d /= 2)
        v += w.shfl_down(v, d);
    if (w.thread_rank() == 0)
        warp_sums[w.meta_group_rank()] = v;
    b.sync();
    if (w.meta_group_rank() == 0) {
        int s = w.thread_rank() < w.meta_group_size() ? warp_sums[w.thread_rank()] : 0;
        s = cg::reduce(w, s, cg::plus<int>());
        if (w.thread_rank() == 0)
            atomicAdd(out, s);
    }
    // a tile of 8: its ranks, a vote, a reduce everyone gets
    cg::thread_block_tile<8> t = cg::tiled_partition<8>(b);
    int r = cg::reduce(t, (int)t.thread_rank(), cg::plus<int>());
    unsigned votes = t.ballot(t.thread_rank() % 2 == 0);
    if (r != 28 || votes != 0x55u || t.size() != 8 || !t.any(t.thread_rank() == 7) || t.all(t.thread_rank() < 7))
        atomicAdd(checks, 1);
    cg::thread_group g = cg::tiled_partition(b, 4);
    g.sync();
    if (g.size() != 4 || g.thread_rank() != b.thread_rank() % 4)
        atomicAdd(checks, 1);
}

int main(void)
{
    const int n = 100000;
    int *x, *out, *checks;
    CHECK(cudaMallocManaged(&x, n * sizeof(int)));
    CHECK(cudaMallocManaged(&out, sizeof(int)));
    CHECK(cudaMallocManaged(&checks, sizeof(int)));
    long want = 0;
    for (int i = 0; i < n; i++) {
        x[i] = i % 7;
        want += x[i];
    }
    *out = 0;
    *checks = 0;
    block_sum<<<(n + 255) / 256, 256>>>(x, n, out, checks);
    CHECK(cudaDeviceSynchronize());
    printf("sum %d expected %ld failed checks %d\n", *out, want, *checks);
    return 0;
}
