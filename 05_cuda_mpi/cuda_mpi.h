/*
 * cuda_mpi.h -- room 05's scaffolding: what every program of this room does the
 * same way around its lesson, so that each file shows only what is its own.
 *
 *   pick_gpu()                   one GPU per rank, shared round-robin when short
 *   gpus_on_node(&ranks)         how many different GPUs this node's ranks use
 *   block_of(n, p, r, ...)       rank r's block of an uneven split of n
 *   host_alloc(bytes)            malloc, or end every rank
 *   slowest(seconds)             the slowest rank's time
 *   gather_blocks(dev, ...)      every rank's block of a split, on rank 0
 *
 * You need not edit it.  README.md explains each piece: "One GPU per rank" (pick_gpu,
 * gpus_on_node), room 03's "Uneven splits: counts and displacements"
 * (block_of), "Timing honestly" (slowest) and "Host staging: the portable way"
 * (gather_blocks, a staged gather).
 *
 * Include it after `#define PR_MPI` and `#include "pr.h"`.  It compiles with
 * nvcc (-ccbin mpicxx) and with grading/sim/simcc, the CUDA CPU simulator.
 */
#ifndef PARALLEL_ROOMS_CUDA_MPI_H
#define PARALLEL_ROOMS_CUDA_MPI_H

#if !defined(PARALLEL_ROOMS_PR_H) || !defined(PR_MPI)
#error "cuda_mpi.h: #define PR_MPI and #include \"pr.h\" first"
#endif

#include <cuda_runtime.h>

/* One GPU per rank where there are enough; ranks on the same node share them
 * round-robin.  The node-local rank comes from a communicator of the ranks
 * that share memory (one node).  Returns the device this rank now uses. */
static inline int pick_gpu(void)
{
    MPI_Comm node;
    int local_rank, gpus = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    CHECK(cudaGetDeviceCount(&gpus));
    int device = gpus > 0 ? local_rank % gpus : 0;
    CHECK(cudaSetDevice(device));
    return device;
}

/* After pick_gpu: the ranks on this node (*ranks_on_node), and how many
 * different GPUs they use.  Device numbers cannot tell that: a scheduler that
 * shows each rank only its own GPU makes it "device 0" in every rank.  The
 * GPU's PCI address can, so the node's ranks compare theirs.  Collective. */
static inline int gpus_on_node(int *ranks_on_node)
{
    MPI_Comm node;
    int device, gpus_used = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, ranks_on_node);
    CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, device));
    int mine[3] = { prop.pciDomainID, prop.pciBusID, prop.pciDeviceID };
    int *all = (int *)malloc((size_t)*ranks_on_node * sizeof mine);
    if (!all) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    PR_SCAFFOLD(MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, node));
    for (int i = 0; i < *ranks_on_node; i++) { /* count each address at its first rank */
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = memcmp(all + 3 * i, all + 3 * j, sizeof mine) != 0;
        gpus_used += first;
    }
    free(all);
    MPI_Comm_free(&node);
    return gpus_used;
}

/* Block r of n items split over p ranks: the first n % p blocks get one more. */
static inline void block_of(long n, int p, int r, long *first, long *count)
{
    long base = n / p, extra = n % p;
    *first = r * base + (r < extra ? r : extra);
    *count = base + (r < extra ? 1 : 0);
}

/* malloc (never of 0 bytes); out of memory ends every rank. */
static inline void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* The slowest rank's time (every rank gets it): a parallel step is done when
 * its last rank is. */
static inline double slowest(double mine)
{
    double all;
    PR_SCAFFOLD(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return all;
}

/* Gathers on rank 0 the blocks of n items split over the ranks by block_of,
 * each item `width` doubles: rank r's block, count * width doubles at dev on
 * its GPU, lands at all[(skip + first) * width ...] on rank 0 (all: room for
 * them on rank 0; ignored elsewhere).  Staged: down to host memory, then MPI. */
static inline void gather_blocks(const double *dev, long n, long width, long skip, double *all)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *counts = (int *)host_alloc(2 * (size_t)size * sizeof(int));
    int *displs = counts + size;
    for (int r = 0; r < size; r++) {
        long first, count;
        block_of(n, size, r, &first, &count);
        counts[r] = (int)(count * width);
        displs[r] = (int)((skip + first) * width);
    }
    double *mine = (double *)host_alloc((size_t)counts[rank] * sizeof(double));
    CHECK(cudaMemcpy(mine, dev, (size_t)counts[rank] * sizeof(double), cudaMemcpyDeviceToHost));
    PR_SCAFFOLD(MPI_Gatherv(mine, counts[rank], MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    free(mine);
    free(counts);
}

#endif
