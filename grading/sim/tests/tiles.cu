// Tiles of more than a warp (cooperative groups: block_tile_memory, tiled_partition<128>):
// a tile's sync orders its threads' shared-memory writes and reads, cg::reduce sums a tile,
// meta_group_rank and meta_group_size count the tiles.  With argument "early", one thread
// of a tile returns before the tile's sync: an error that says so.
#include "common.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <string.h>
namespace cg = cooperative_groups;

__global__ void tiles(const int *x, int *sums, int *shifted, int *bad, int early)
{
    __shared__ cg::block_tile_memory<256> scratch;
    __shared__ int buf[256];
    cg::thread_block block = cg::this_thread_block(scratch);
    cg::thread_block_tile<128> tile = cg::tiled_partition<128>(block);
    int v = x[blockIdx.x * blockDim.x + threadIdx.x];
    int total = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0)
        sums[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = total;
    if (early && threadIdx.x == 200)
        return;
    buf[threadIdx.x] = v;
    tile.sync();
    /* each thread reads its tile's next thread's value (wrapping within the tile) */
    unsigned base = (unsigned)(threadIdx.x / 128 * 128), next = base + (tile.thread_rank() + 1) % 128;
    shifted[blockIdx.x * blockDim.x + threadIdx.x] = buf[next];
    if (tile.size() != 128 || tile.meta_group_size() != 2 || total != cg::reduce(tile, v, cg::plus<int>()))
        atomicAdd(bad, 1);
}

int main(int argc, char **argv)
{
    const int blocks = 3, threads = 256, n = blocks * threads;
    int early = argc > 1 && strcmp(argv[1], "early") == 0;
    int hx[768], hs[6], hsh[768], hbad = 0;
    for (int i = 0; i < n; i++)
        hx[i] = (i * 37) % 101;
    int *x, *sums, *shifted, *bad;
    CHECK(cudaMalloc(&x, sizeof hx));
    CHECK(cudaMalloc(&sums, sizeof hs));
    CHECK(cudaMalloc(&shifted, sizeof hsh));
    CHECK(cudaMalloc(&bad, sizeof(int)));
    CHECK(cudaMemset(bad, 0, sizeof(int)));
    CHECK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    tiles<<<blocks, threads>>>(x, sums, shifted, bad, early);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hsh, shifted, sizeof hsh, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hbad, bad, sizeof hbad, cudaMemcpyDeviceToHost));
    int wrong_sums = 0, wrong_shift = 0;
    for (int t = 0; t < 6; t++) {
        int s = 0;
        for (int i = t * 128; i < t * 128 + 128; i++)
            s += hx[i];
        wrong_sums += hs[t] != s;
    }
    for (int i = 0; i < n; i++)
        wrong_shift += hsh[i] != hx[i / 128 * 128 + (i % 128 + 1) % 128];
    printf("tile sums wrong %d, neighbours wrong %d, checks failed %d, first sum %d\n", wrong_sums, wrong_shift, hbad,
           hs[0]);
    return 0;
}
