/*
 * mlp_gpu.h -- task 6's tools for DDP on GPUs: NCCL's communicator (HAVE_NCCL,
 * nccl_start(), nccl_stop()), the CPU baselines (time_train_openmp(),
 * print_cpu_baselines(), print_ddp_time()), pick_gpu(), and a rank's replica
 * on its GPU (replica_t, replica_init(), replica_free()).  CUDA and MPI: built
 * by nvcc or by the simulator, after #define PR_MPI.  CHECK() is pr.h's.
 *
 * No need to change anything here.  README.md, "Task 6: DDP on GPUs" explains
 * them.
 */
#ifndef PARALLEL_ROOMS_MLP_GPU_H
#define PARALLEL_ROOMS_MLP_GPU_H

#include "mlp_train.h"

#if !defined(PR_MPI) || (!defined(__CUDACC__) && !defined(CUDA_SIM))
#error "mlp_gpu.h is CUDA and MPI: #define PR_MPI before pr.h; build with nvcc or the simulator"
#endif

#ifdef _OPENMP
#include <omp.h> /* task 6's CPU baseline on all cores (built with OpenMP as a CUDA program) */
#endif
#include <cuda_runtime.h>

/* NCCL where it is installed, and in the CUDA CPU simulator (its nccl.h, on
 * MPI): then HAVE_NCCL is defined, NCCL_CHECK(call) (pr.h) does for NCCL what
 * CHECK does for CUDA, and nccl_start() and nccl_stop() make and end NCCL's
 * communicator. */
#if defined(__has_include)
#if __has_include(<nccl.h>)
#include <nccl.h>
#define HAVE_NCCL 1
/* NCCL's communicator of all the ranks, made with MPI's help (rank 0 makes a
 * unique id, MPI_Bcast hands it to every rank, and each joins with it), and a
 * stream for NCCL's work.  nccl_start() makes both, nccl_stop() ends them. */
static ncclComm_t nccl_comm;
static cudaStream_t nccl_stream;

static inline void nccl_start(void)
{
    int rank = pr_rank(), size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ncclUniqueId id;
    if (rank == 0)
        NCCL_CHECK(ncclGetUniqueId(&id));
    PR_SCAFFOLD(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
    NCCL_CHECK(ncclCommInitRank(&nccl_comm, size, id, rank));
    CHECK(cudaStreamCreate(&nccl_stream));
}

static inline void nccl_stop(void)
{
    NCCL_CHECK(ncclCommDestroy(nccl_comm));
    CHECK(cudaStreamDestroy(nccl_stream));
}
#endif
#endif

/* Task 6's CPU baseline on all cores: the serial training with each minibatch's
 * gradient shared out among OpenMP's threads, each summing into a gradient of its own,
 * added up in thread order (room 01's reduction by hand).  Returns the seconds it took
 * (its model is thrown away: only its time is compared); 0 when built without OpenMP. */
static inline double time_train_openmp(const dataset_t *data, const layout_t *L, long batch, int epochs,
                                       uint64_t seed)
{
#ifdef _OPENMP
    int nt = omp_get_max_threads();
    long count = L->count;
    long *perm = (long *)xcalloc((size_t)data->n, sizeof(long));
    double *p = (double *)xcalloc((size_t)count, sizeof(double));
    double *grads = (double *)xcalloc((size_t)nt * (size_t)count, sizeof(double));
    double *hs = (double *)xcalloc((size_t)nt * (size_t)L->hidden, sizeof(double));
#pragma omp parallel
    { /* (OpenMP starts its threads here, before the clock) */
    }
    double start = pr_now();
    mlp_init(p, L, seed);
    for (int epoch = 0; epoch < epochs; epoch++) {
        shuffle(perm, data->n, seed, epoch);
        for (long first = 0; first < data->n; first += batch) {
            long size = data->n - first < batch ? data->n - first : batch;
            const long *idx = perm + first;
            memset(grads, 0, (size_t)nt * (size_t)count * sizeof *grads);
#pragma omp parallel
            {
                double *g = grads + (long)omp_get_thread_num() * count;
                double *h = hs + (long)omp_get_thread_num() * L->hidden;
#pragma omp for schedule(static)
                for (long b = 0; b < size; b++) {
                    const double *x = data->x + idx[b] * D;
                    double err = mlp_forward(p, L, x, h) - data->y[idx[b]];
                    mlp_backward(p, L, x, h, 2.0 * err / (double)size, g);
                }
            }
            for (long i = 0; i < count; i++) {
                double sum = 0.0;
                for (int t = 0; t < nt; t++)
                    sum += grads[(long)t * count + i];
                p[i] -= L->lr * sum;
            }
        }
    }
    double seconds = pr_now() - start;
    free(perm), free(p), free(grads), free(hs);
    return seconds;
#else
    (void)data, (void)L, (void)batch, (void)epochs, (void)seed;
    return 0.0;
#endif
}

/* The CPU baselines' times per epoch (t_serial, t_omp for all epochs): the serial run on
 * one core, and the same training with OpenMP on all cores (0: built without OpenMP). */
static inline void print_cpu_baselines(double t_serial, double t_omp, int epochs)
{
    pr_print_time("serial CPU / epoch", t_serial / epochs, 0, NULL);
#ifdef _OPENMP
    char what[80];
    snprintf(what, sizeof what, "CPU, %d OpenMP thr / epoch", omp_get_max_threads());
    pr_print_time(what, t_omp / epochs, t_serial / epochs, "1 core");
#else
    (void)t_omp;
#endif
}

/* A way's time per epoch (t for all epochs), its speedup over the serial run on one core
 * and over the OpenMP run on all cores (when there is one), and the parallel efficiency
 * on size ranks. */
static inline void print_ddp_time(const char *way, double t, double t_serial, double t_omp, int epochs,
                                  int size)
{
    char what[80];
    snprintf(what, sizeof what, "%s / epoch", way);
    pr_print_time(what, t / epochs, t_serial / epochs, "1 core (serial CPU)");
#ifdef _OPENMP
    if (pr_rank() == 0 && t_omp > 0 && t > 0)
        printf("       %.2fx speedup vs %d OpenMP threads (the CPU baseline on all cores)\n", t_omp / t,
               omp_get_max_threads());
#else
    (void)t_omp;
#endif
    if (pr_rank() == 0)
        printf("       parallel efficiency t_serial / (p * t) = %.3f with p = %d\n", t_serial / (size * t),
               size);
}

/* Picks this rank's GPU, round-robin over the GPUs it sees, and returns its
 * number; also says how many ranks share this node and how many different GPUs
 * they use.  Device numbers cannot tell that: a scheduler that shows each rank
 * only its own GPU makes it "device 0" in every rank.  The GPU's PCI address
 * can, so the node's ranks compare theirs (room 05, "One GPU per rank"). */
static inline int pick_gpu(int *ranks_on_node, int *gpus_used)
{
    MPI_Comm node;
    int local_rank, seen = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_size(node, ranks_on_node);
    CHECK(cudaGetDeviceCount(&seen));
    int device = seen > 0 ? local_rank % seen : 0;
    CHECK(cudaSetDevice(device));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, device));
    int mine[3] = { prop.pciDomainID, prop.pciBusID, prop.pciDeviceID };
    int *all = (int *)xcalloc((size_t)*ranks_on_node, sizeof mine);
    PR_SCAFFOLD(MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, node));
    *gpus_used = 0;
    for (int i = 0; i < *ranks_on_node; i++) { /* count each address at its first rank */
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = memcmp(all + 3 * i, all + 3 * j, sizeof mine) != 0;
        *gpus_used += first;
    }
    free(all);
    MPI_Comm_free(&node);
    return device;
}

/* What a rank holds on its GPU, and its pinned staging buffer (the replica of
 * task 6's DDP): replica_init() allocates it for minibatches of up to `batch`
 * samples and copies the data set to the GPU; replica_free() frees it. */
typedef struct {
    layout_t L;
    double *p, *x, *y;     /* the replica; the whole data set */
    long *shard;           /* this step's shard (indices), batch of them at most */
    double *G;             /* batch x (count + 1) per-sample gradients */
    double *local, *grad;  /* count + 1: the shard's sums; the minibatch's sums */
    double *host;          /* count + 1, pinned */
    long *shard_host;      /* batch, pinned */
} replica_t;

static inline void replica_init(replica_t *r, const layout_t *L, const dataset_t *data, long batch)
{
    r->L = *L;
    size_t width = (size_t)L->count + 1;
    CHECK(cudaMalloc(&r->p, (size_t)L->count * sizeof(double)));
    CHECK(cudaMalloc(&r->x, (size_t)data->n * D * sizeof(double)));
    CHECK(cudaMalloc(&r->y, (size_t)data->n * sizeof(double)));
    CHECK(cudaMalloc(&r->shard, (size_t)batch * sizeof(long)));
    CHECK(cudaMalloc(&r->G, (size_t)batch * width * sizeof(double)));
    CHECK(cudaMalloc(&r->local, width * sizeof(double)));
    CHECK(cudaMalloc(&r->grad, width * sizeof(double)));
    CHECK(cudaMallocHost(&r->host, width * sizeof(double)));
    CHECK(cudaMallocHost(&r->shard_host, (size_t)batch * sizeof(long)));
    CHECK(cudaMemcpy(r->x, data->x, (size_t)data->n * D * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(r->y, data->y, (size_t)data->n * sizeof(double), cudaMemcpyHostToDevice));
}

static inline void replica_free(replica_t *r)
{
    CHECK(cudaFree(r->p));
    CHECK(cudaFree(r->x));
    CHECK(cudaFree(r->y));
    CHECK(cudaFree(r->shard));
    CHECK(cudaFree(r->G));
    CHECK(cudaFree(r->local));
    CHECK(cudaFree(r->grad));
    CHECK(cudaFreeHost(r->host));
    CHECK(cudaFreeHost(r->shard_host));
}

#endif /* PARALLEL_ROOMS_MLP_GPU_H */
