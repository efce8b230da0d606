/* cooperative_groups/reduce.h for the CUDA CPU simulator: cg::reduce over a tile, a
 * butterfly of shfl_xor steps, so every thread of the tile gets the result. */
#ifndef CUDA_SIM_COOPERATIVE_GROUPS_REDUCE_H
#define CUDA_SIM_COOPERATIVE_GROUPS_REDUCE_H
#include <cooperative_groups.h>
namespace cooperative_groups {
template <unsigned N, class T, class Op> static inline T reduce(const thread_block_tile<N> &g, T value, Op op)
{
    for (unsigned d = N / 2; d > 0; d /= 2)
        value = op(value, g.shfl_xor(value, d));
    return value;
}
} // namespace cooperative_groups
#endif
