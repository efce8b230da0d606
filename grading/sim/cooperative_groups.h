/*
 * cooperative_groups.h for the CUDA CPU simulator: the block and its tiles.
 *
 *   namespace cg = cooperative_groups;
 *   cg::thread_block b = cg::this_thread_block();      b.sync(), thread_rank(), size() ...
 *   cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);
 *       w.sync(), thread_rank(), size(), meta_group_rank(), meta_group_size(),
 *       shfl, shfl_up, shfl_down, shfl_xor, any, all, ballot
 *   cg::thread_group t = cg::tiled_partition(b, 16);  sync(), thread_rank(), size()
 *   __shared__ cg::block_tile_memory<256> m; cg::tiled_partition<128>(cg::this_thread_block(m))
 *   cg::reduce(tile, value, cg::plus<T>()) (<cooperative_groups/reduce.h>)
 *
 * A tile is 1, 2, 4, 8, 16 or 32 threads of one warp: its sync and shuffles are the warp's,
 * on the tile's lanes.  A tile of 64 to 1024 threads (a power of two; CUDA asks for a
 * block_tile_memory, accepted here) has sync(), thread_rank(), size(), meta_group_rank(),
 * meta_group_size() and cg::reduce, but no shuffles or votes, as on a GPU: its sync waits
 * for the tile's threads (cuda_sim::tile_barrier).  The grid (this_grid()): size, thread_rank, num_blocks, block_rank,
 * and sync() in a kernel launched with cudaLaunchCooperativeKernel, where every block is
 * resident at once (cuda_sim.h, run_cooperative; a launch with <<<...>>> that syncs its grid
 * is an error, as it may hang a GPU; under simcc --profile or --racecheck the sync is not
 * simulated: status 77, named).  Not simulated: multi-grid groups, coalesced_threads(),
 * larger tiles, memcpy_async: a fatal error naming them.
 */
#ifndef CUDA_SIM_COOPERATIVE_GROUPS_H
#define CUDA_SIM_COOPERATIVE_GROUPS_H

namespace cooperative_groups {

struct thread_group {
    unsigned tile; /* threads per tile (a thread_block: 0) */
    unsigned long long size() const
    {
        return tile ? tile : (unsigned long long)blockDim.x * blockDim.y * blockDim.z;
    }
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const
    {
        unsigned long long r = threadIdx.x + (unsigned long long)blockDim.x * (threadIdx.y + (unsigned long long)blockDim.y * threadIdx.z);
        return tile ? r % tile : r;
    }
    /* this thread's tile's lanes in its warp */
    unsigned mask() const
    {
        unsigned lane = (unsigned)(cuda_sim::S.cur % 32), t = tile ? tile : 32;
        unsigned bits = t == 32 ? 0xffffffffu : ((1u << t) - 1u) << (lane / t * t);
        return bits;
    }
    void sync(const char *f = __builtin_FILE(), int l = __builtin_LINE()) const
    {
        if (tile > 32)
            cuda_sim::tile_barrier(tile, f, l);
        else if (tile)
            cuda_sim_syncwarp(f, l, mask());
        else
            cuda_sim::block_barrier(f, l, 0);
    }
};

struct thread_block : thread_group {
    thread_block() : thread_group{0} {}
    dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};

static inline thread_block this_thread_block() { return thread_block(); }
/* The scratch memory CUDA asks for before a block is cut into tiles of more than 32 threads
 * (the simulator needs none). */
template <unsigned int MaxBlockSize = 1024> struct block_tile_memory {
    unsigned char unused[8];
};
template <unsigned int M> static inline thread_block this_thread_block(block_tile_memory<M> &) { return thread_block(); }

template <unsigned N> struct thread_block_tile : thread_group {
    static_assert(N >= 1 && N <= 1024 && (N & (N - 1)) == 0,
                  "a tile has 1 to 1024 threads, a power of two");
    thread_block_tile() : thread_group{N} {}
    unsigned long long meta_group_rank() const
    {
        unsigned long long r = threadIdx.x + (unsigned long long)blockDim.x * (threadIdx.y + (unsigned long long)blockDim.y * threadIdx.z);
        return r / N;
    }
    unsigned long long meta_group_size() const { return (thread_group{0}.size() + N - 1) / N; }
    /* any trivially copyable type, as cooperative groups allow: 8 bytes at a time */
    template <class T> T shuffle(int how, T v, int d, const char *f, int l) const
    {
        static_assert(N <= 32, "shuffles are for tiles of at most 32 threads (one warp)");
        if constexpr (sizeof(T) <= 8) {
            return cuda_sim_shfl(how, mask(), v, d, f, l, (int)N);
        } else {
            unsigned long long chunk[(sizeof(T) + 7) / 8] = {};
            memcpy(chunk, &v, sizeof(T));
            for (auto &c : chunk)
                c = cuda_sim_shfl(how, mask(), c, d, f, l, (int)N);
            T out;
            memcpy(&out, chunk, sizeof(T));
            return out;
        }
    }
    template <class T> T shfl(T v, int src, const char *f = __builtin_FILE(), int l = __builtin_LINE()) const
    {
        return shuffle(0, v, src, f, l);
    }
    template <class T> T shfl_up(T v, unsigned d, const char *f = __builtin_FILE(), int l = __builtin_LINE()) const
    {
        return shuffle(1, v, (int)d, f, l);
    }
    template <class T> T shfl_down(T v, unsigned d, const char *f = __builtin_FILE(), int l = __builtin_LINE()) const
    {
        return shuffle(2, v, (int)d, f, l);
    }
    template <class T> T shfl_xor(T v, unsigned d, const char *f = __builtin_FILE(), int l = __builtin_LINE()) const
    {
        return shuffle(3, v, (int)d, f, l);
    }
    /* the tile's votes: bit i is the tile's thread i */
    unsigned ballot(int p, const char *f = __builtin_FILE(), int l = __builtin_LINE()) const
    {
        static_assert(N <= 32, "votes are for tiles of at most 32 threads (one warp)");
        unsigned m = mask(), bits = cuda_sim_ballot(m, p, f, l) & m;
        return N == 32 ? bits : bits >> ((unsigned)(cuda_sim::S.cur % 32) / N * N);
    }
    int any(int p, const char *f = __builtin_FILE(), int l = __builtin_LINE()) const { return ballot(p, f, l) != 0; }
    int all(int p, const char *f = __builtin_FILE(), int l = __builtin_LINE()) const
    {
        return ballot(p, f, l) == (N == 32 ? 0xffffffffu : (1u << N) - 1u);
    }
};

template <unsigned N> static inline thread_block_tile<N> tiled_partition(const thread_block &)
{
    return thread_block_tile<N>();
}
template <unsigned N> static inline thread_block_tile<N> tiled_partition(const thread_group &)
{
    return thread_block_tile<N>();
}
/* the run-time form: a thread_group of n threads (1 to 32, a power of two) */
static inline thread_group tiled_partition(const thread_group &, unsigned n)
{
    if (n == 0 || n > 32 || (n & (n - 1)))
        cuda_sim::fatal("cooperative_groups::tiled_partition(group, %u): the CUDA CPU simulator has tiles of 1 to 32 "
                        "threads, a power of two", n);
    return thread_group{n};
}

template <class T> static inline void sync(const T &g, const char *f = __builtin_FILE(), int l = __builtin_LINE())
{
    g.sync(f, l);
}

struct grid_group {
    void sync(const char *f = __builtin_FILE(), int l = __builtin_LINE()) const { cuda_sim::grid_barrier(f, l); }
    unsigned long long size() const
    {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z;
    }
    unsigned long long thread_rank() const
    {
        unsigned long long b = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
        return b * blockDim.x * blockDim.y * blockDim.z + thread_block().thread_rank();
    }
    unsigned long long num_threads() const { return size(); }
    unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
    unsigned long long block_rank() const
    {
        return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    }
    dim3 group_dim() const { return gridDim; }
    dim3 dim_blocks() const { return gridDim; }
    dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    /* true in a cooperative launch's kernel, where sync() is allowed */
    bool is_valid() const { return cuda_sim::S.cooperative && cuda_sim::S.in_kernel; }
};
static inline grid_group this_grid() { return grid_group(); }

template <class T> struct plus {
    T operator()(T a, T b) const { return a + b; }
};
template <class T> struct less {
    T operator()(T a, T b) const { return a < b ? a : b; }
};
template <class T> struct greater {
    T operator()(T a, T b) const { return a > b ? a : b; }
};

} // namespace cooperative_groups

#endif
