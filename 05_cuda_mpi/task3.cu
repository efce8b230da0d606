/*
 * Room 05, task 3: an allreduce of a GPU buffer, three ways.
 *
 * Every rank has a vector of doubles on its GPU -- think of the gradients of
 * a model (room 06) -- and every rank needs the element-wise sum over all
 * ranks, on its GPU, in a second buffer.  Three ways to get it:
 *
 *   staged:      GPU -> pinned host buffer -> MPI_Allreduce on the host ->
 *                back to the GPU.  Two extra copies of the vector, but any MPI.
 *                The pinned buffer is smaller than the vector (chunk doubles).
 *   CUDA-aware:  MPI_Allreduce handed the device pointer.  MPI moves the data
 *                (and may still stage internally, in pipelined chunks).  With
 *                a CUDA-aware MPI; elsewhere with pr.h's staging layer on a
 *                GPU (PR_MPI_STAGE=1, correct but no faster than staged) or
 *                the simulator's stand-in for a CUDA-aware MPI.
 *   NCCL:        NVIDIA's collective library: ncclAllReduce on a CUDA stream,
 *                ring or tree algorithms running as GPU kernels over NVLink,
 *                PCIe or the network.  MPI is only used to hand out NCCL's id.
 *                Needs a GPU of its own for every rank.  In the CUDA CPU simulator
 *                NCCL runs on MPI (grading/sim/nccl.h), every rank a process with
 *                a simulated GPU of its own: the NCCL way runs and is checked there.
 *
 * A way that cannot run here says so and why (SKIP); every way that runs is
 * checked element by element and timed.  The sums are of whole numbers below
 * 2^53, which doubles add exactly in any order: every way must give the same
 * bits.
 *
 *   TODO 1: the staged allreduce, through a pinned buffer of `chunk` doubles.
 *
 * Read first: README.md, "Pageable and pinned host memory", "Host staging: the portable way",
 *             "A staging buffer smaller than the message", "Task 3: an allreduce of GPU buffers, three ways".
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -ccbin mpicxx -O2 -arch=native -I../grading/include -o task3 task3.cu -lnccl
 *              (-lnccl wherever NCCL is installed; without NCCL leave it out: NCCL says SKIP)
 *   anywhere:  ../grading/sim/simcc -ccbin mpicxx -O2 -I../grading/include -o task3 task3.cu -lnccl
 *   mpiexec -n 2 ./task3          (the default size: 4194304 doubles, 32 MB)
 * Grade it from the top folder:  make grade TASK=05_cuda_mpi/task3
 */
#define PR_MPI
#include "pr.h"

#include "cuda_mpi.h" /* pick_gpu, gpus_on_node...: the room's scaffolding */

/* NCCL where it is installed, and in the simulator (its nccl.h, on MPI). */
#if defined(__has_include)
#if __has_include(<nccl.h>)
#include <nccl.h>
#define HAVE_NCCL 1
#endif
#endif

/* Rank r's value i: a whole number in [0, 1000). */
__host__ __device__ static inline double value_of(long i, int rank)
{
    return (double)((i * 7 + (long)rank * 13) % 1000);
}

__global__ void fill(double *x, long m, int rank)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m)
        x[i] = value_of(i, rank);
}

/* Staged: out (m doubles on the GPU) becomes the sum over all ranks of in (m
 * doubles on the GPU), through the pinned host buffer pinned, which has room
 * for only `chunk` doubles: fewer than m, or more. */
static void allreduce_staged(const double *in, double *out, long m, double *pinned, long chunk)
{
    // TODO 1: When this function returns, the result vector on the GPU must
    //         hold, on every rank, the element-wise sum over all ranks of
    //         their input vectors; the input is left as it was.  MPI only
    //         ever sees host memory, and the only host memory you may use is
    //         the pinned buffer, whatever m and chunk are.  Every rank has the
    //         same m and chunk.
    //         README: "Host staging: the portable way", "A staging buffer
    //         smaller than the message".
    (void)in, (void)out, (void)m, (void)pinned, (void)chunk; /* TODO 1 */
}

/* ---- no need to change below ---- */

typedef struct {
    double *dev, *dev_sum, *host; /* m doubles on the GPU, twice; m pinned doubles on the host */
    double *pinned;               /* chunk pinned doubles: the staged way's buffer */
    long m, chunk;
    int rank, size;
} vectors;

static void way_staged(const vectors *v)
{
    allreduce_staged(v->dev, v->dev_sum, v->m, v->pinned, v->chunk);
}

/* CUDA-aware: MPI reads and writes the device buffers itself. */
static void way_cuda_aware(const vectors *v)
{
    MPI_Allreduce(v->dev, v->dev_sum, (int)v->m, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

/* For comparison, the host-only allreduce of the same size, no GPU involved:
 * what MPI alone costs, the floor under the staged and CUDA-aware ways. */
static void way_host_only(const vectors *v)
{
    MPI_Allreduce(MPI_IN_PLACE, v->host, (int)v->m, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

#ifdef HAVE_NCCL
static ncclComm_t nccl_comm;
static cudaStream_t nccl_stream;

/* NCCL: one communicator for all ranks; rank 0 makes its id and MPI hands it out. */
static void nccl_start(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ncclUniqueId id;
    if (rank == 0)
        NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    NCCL_CHECK(ncclCommInitRank(&nccl_comm, size, id, rank));
    CHECK(cudaStreamCreate(&nccl_stream));
}

static void way_nccl(const vectors *v)
{
    NCCL_CHECK(ncclAllReduce(v->dev, v->dev_sum, (size_t)v->m, ncclDouble, ncclSum, nccl_comm,
                             nccl_stream));
    CHECK(cudaStreamSynchronize(nccl_stream)); /* the time counts until the sum is there */
}

static void nccl_stop(void)
{
    NCCL_CHECK(ncclCommDestroy(nccl_comm));
    CHECK(cudaStreamDestroy(nccl_stream));
}
#endif

typedef void (*allreduce_fn)(const vectors *v);

/* Every element of dev_sum equal to the sum over ranks?  Returns the number of
 * wrong elements on this rank, and the sum of all elements (a checksum) in *total. */
static long count_wrong(const vectors *v, double *total)
{
    CHECK(cudaMemcpy(v->host, v->dev_sum, (size_t)v->m * sizeof(double), cudaMemcpyDeviceToHost));
    long wrong = 0;
    double sum = 0.0;
    for (long i = 0; i < v->m; i++) {
        double expect = 0.0;
        for (int r = 0; r < v->size; r++)
            expect += value_of(i, r);
        if (v->host[i] != expect)
            wrong++;
        sum += v->host[i];
    }
    *total = sum;
    return wrong;
}

static void refill(const vectors *v)
{
    unsigned blocks = (unsigned)((v->m + 255) / 256);
    fill<<<blocks, 256>>>(v->dev, v->m, v->rank);
    CHECK(cudaGetLastError());
    CHECK(cudaMemset(v->dev_sum, 0, (size_t)v->m * sizeof(double)));
    memset(v->host, 0, (size_t)v->m * sizeof(double));
    CHECK(cudaDeviceSynchronize());
}

/* Runs one way `reps` times after a warm-up, each from fresh data; returns the
 * best time (the slowest rank's of each run).  Afterwards dev_sum holds the result. */
static double time_way(allreduce_fn fn, const vectors *v, int reps)
{
    double best = INFINITY;
    for (int r = 0; r <= reps; r++) {
        refill(v);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        fn(v);
        double t = slowest(MPI_Wtime() - start);
        if (r > 0 && t < best)
            best = t;
    }
    return best;
}

/* Prints a way's time and bandwidths.  "bus bandwidth" is NCCL's measure: an
 * allreduce must move 2(p-1)/p of the data through each rank's link, so this
 * figure is comparable with the link's own speed whatever p is. */
static void report(const char *way, double seconds, double baseline, const vectors *v)
{
    pr_print_time(way, seconds, baseline, "staged");
    if (v->rank == 0 && v->size == 1)
        printf("       (one rank: MPI has nothing to exchange; the copies are what is left)\n");
    else if (v->rank == 0 && seconds > 0) {
        double bytes = (double)v->m * sizeof(double);
        double alg = bytes / seconds / 1e9;
        printf("       algorithm bandwidth %.2f GB/s, bus bandwidth %.2f GB/s\n", alg,
               alg * 2.0 * (v->size - 1) / v->size);
    }
}

/* Checks the result of the way just timed (all ranks) and returns the checksum. */
static double check_way(const char *way, const vectors *v)
{
    double total = 0.0;
    long wrong = count_wrong(v, &total), all_wrong = 0;
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    char what[64];
    snprintf(what, sizeof what, "wrong elements (%s)", way);
    pr_check_int(what, all_wrong, 0);
    return total;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long m = (long)pr_arg_long(argc, argv, "m", 1L << 22, 1, 1L << 28);
    long chunk = (long)pr_arg_long(argc, argv, "chunk", 1L << 20, 1, 1L << 28);
    int reps = (int)pr_arg_long(argc, argv, "reps", 3, 1, 100);
    pr_args_done(argc, argv);

    vectors v;
    v.m = m, v.chunk = chunk;
    MPI_Comm_rank(MPI_COMM_WORLD, &v.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &v.size);
    int ranks_on_node;
    int device = pick_gpu(), gpus_used = gpus_on_node(&ranks_on_node);
    const char *why;
    int path = pr_mpi_gpu_path(&why), aware = path != PR_MPI_HOST_ONLY;
    if (v.rank == 0) {
        printf("task3: allreduce of %ld doubles (%.1f MB) on %d rank%s; rank 0's node: %d rank%s on %d GPU%s (rank 0 on GPU %d)\n",
               m, m * 8 / 1e6, v.size, v.size == 1 ? "" : "s", ranks_on_node,
               ranks_on_node == 1 ? "" : "s", gpus_used, gpus_used == 1 ? "" : "s", device);
        printf("  device pointers to MPI: %s (%s)\n", aware ? pr_mpi_gpu_path_name(path) : "no", why);
        printf("  the staged way's pinned buffer: %ld doubles\n", chunk);
    }
    CHECK(cudaMalloc(&v.dev, (size_t)m * sizeof(double)));
    CHECK(cudaMalloc(&v.dev_sum, (size_t)m * sizeof(double)));
    CHECK(cudaMallocHost(&v.host, (size_t)m * sizeof(double)));
    CHECK(cudaMallocHost(&v.pinned, (size_t)chunk * sizeof(double)));

    double t_staged = time_way(way_staged, &v, reps);
    double checksum = check_way("staged", &v);
    pr_result_double("checksum", checksum, 0.0);
    report("staged", t_staged, 0, &v);

    double t_host = time_way(way_host_only, &v, reps);
    /* (on one rank it does nothing at all: no speedup to speak of) */
    report("MPI on host memory only", t_host, v.size > 1 ? t_staged : 0, &v);

    if (aware) {
        double t_aware = time_way(way_cuda_aware, &v, reps);
        pr_result_double("checksum_cuda_aware", check_way("CUDA-aware", &v), 0.0);
        /* the label says which it was: the staging layer's time is not a CUDA-aware MPI's */
        char label[64];
        snprintf(label, sizeof label, "CUDA-aware (%s)", pr_mpi_gpu_path_name(path));
        report(label, t_aware, t_staged, &v);
    } else if (v.rank == 0) {
        printf("  CUDA-aware: SKIP (%s)\n", why);
    }

#ifdef HAVE_NCCL
    /* Every rank must agree: NCCL needs a GPU per rank on every node (in the
     * simulator each rank, a process of its own, has a simulated GPU of its own). */
#ifdef CUDA_SIM
    int mine_ok = 1, all_ok = 0;
#else
    int mine_ok = ranks_on_node <= gpus_used, all_ok = 0;
#endif
    MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_ok) {
        nccl_start();
        double t_nccl = time_way(way_nccl, &v, reps);
        pr_result_double("checksum_nccl", check_way("NCCL", &v), 0.0);
        report("NCCL", t_nccl, t_staged, &v);
        nccl_stop();
    } else if (v.rank == 0) {
        printf("  NCCL: SKIP (NCCL needs a GPU of its own for every rank: %d ranks share %d GPU%s)\n",
               ranks_on_node, gpus_used, gpus_used == 1 ? "" : "s");
    }
#else
    if (v.rank == 0)
        printf("  NCCL: SKIP (nccl.h not found: NCCL is not installed)\n");
#endif
#ifdef CUDA_SIM
    if (v.rank == 0)
        printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    CHECK(cudaFree(v.dev));
    CHECK(cudaFree(v.dev_sum));
    CHECK(cudaFreeHost(v.host));
    CHECK(cudaFreeHost(v.pinned));
    int status = pr_finish();
    MPI_Finalize();
    return status;
}
