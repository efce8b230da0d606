/* cooperative_groups/reduce.h for the CUDA CPU simulator: cg::reduce over a tile, a
 * butterfly of shfl_xor steps, so every thread of the tile gets the result (a tile of more
 * than a warp: each warp's, then the warps' results added in order). */
#ifndef CUDA_SIM_COOPERATIVE_GROUPS_REDUCE_H
#define CUDA_SIM_COOPERATIVE_GROUPS_REDUCE_H
#include <cooperative_groups.h>
namespace cooperative_groups {
template <unsigned N, class T, class Op> static inline T reduce(const thread_block_tile<N> &g, T value, Op op)
{
    if constexpr (N <= 32) {
        for (unsigned d = N / 2; d > 0; d /= 2)
            value = op(value, g.shfl_xor(value, d));
        return value;
    } else {
        /* a tile of several warps: each warp's butterfly, then the warps' results in order,
         * through a slot per warp of the block, between two syncs of the tile */
        static T slot[32];
        thread_block_tile<32> warp;
        T mine = reduce(warp, value, op);
        unsigned long long rank = thread_block().thread_rank(), first = rank / N * (N / 32);
        if (warp.thread_rank() == 0)
            slot[rank / 32] = mine;
        g.sync();
        T all = slot[first];
        for (unsigned k = 1; k < N / 32; k++)
            all = op(all, slot[first + k]);
        g.sync();
        return all;
    }
}
} // namespace cooperative_groups
#endif
