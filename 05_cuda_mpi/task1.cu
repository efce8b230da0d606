/*
 * Room 05, task 1: scatter, sum on the GPUs, reduce -- staged or CUDA-aware.
 *
 * Rank 0 holds n numbers (values 0..255).  It scatters them in uneven blocks
 * (room 03, task 3), every rank adds up its block with a kernel on its GPU
 * (room 04, task 2), and the block sums are added up on rank 0:
 *
 *   rank 0: x[0..n) --MPI_Scatterv--> a block on every rank --> GPU kernel
 *           --> the block's sum --MPI_Reduce--> the sum of all n on rank 0
 *
 * MPI moves bytes between the ranks; the GPU holds the numbers.  Two ways to
 * hand one to the other:
 *
 *   staged:      MPI works on pinned host buffers; copies move the data
 *                between them and the GPU.  Works with every MPI.
 *   CUDA-aware:  MPI is handed the device pointers themselves and moves the
 *                data itself (GPUDirect where the hardware allows).  Only with
 *                an MPI built for it: pr_mpi_gpu_path() asks the library.
 *
 *   TODO 1: the staged scatter: each rank's block ends up in its GPU buffer;
 *   TODO 2: the staged reduce: rank 0 gets the sum of every rank's block sum;
 *   TODO 3: the same scatter, CUDA-aware: MPI is handed GPU memory;
 *   TODO 4: the same reduce, CUDA-aware: the total lands in rank 0's GPU memory.
 *
 * Read first: README.md, "Two worlds: MPI moves bytes, the GPU holds the numbers", "Host staging: the portable way", "CUDA-aware MPI", "Task 1: scatter, sum on the GPUs, reduce".
 *
 * Both paths run wherever device pointers may go to MPI: a CUDA-aware MPI, the
 * CUDA CPU simulator (which stands in for one), or pr.h's staging layer on a
 * GPU whose MPI is not CUDA-aware (PR_MPI_STAGE=1; make grade turns it on).
 * Integers add exactly in any order: each result must equal rank 0's own sum.
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -ccbin mpicxx -O2 -arch=native -I../grading/include -o task1 task1.cu
 *   anywhere:  ../grading/sim/simcc -ccbin mpicxx -O2 -I../grading/include -o task1 task1.cu
 *   mpiexec -n 4 ./task1 n=10000000
 * Try PR_MPI_STAGE=0 PR_CUDA_AWARE=1 mpiexec -n 2 ./task1 n=1000 with the simulator build.
 * Grade it from the top folder:  make grade TASK=05_cuda_mpi/task1
 */
#define PR_MPI
#include "pr.h"

#include "cuda_mpi.h" /* pick_gpu, block_of...: the room's scaffolding */

#define TPB 256 /* threads per block of the sum kernel */

/* Adds up x[0..n) into *total: a tree in shared memory per block, then one
 * atomicAdd per block (room 04, task 2). */
__global__ void sum_kernel(const unsigned *x, long n, unsigned long long *total)
{
    __shared__ unsigned part[TPB];
    unsigned t = threadIdx.x;
    long i = (long)blockIdx.x * blockDim.x + t;
    part[t] = i < n ? x[i] : 0u;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(total, (unsigned long long)part[0]);
}

/* What each rank holds.  Host buffers are pinned (cudaMallocHost): the GPU's
 * copy engine reads and writes them directly, so copies are faster and can run
 * asynchronously; pageable malloc memory is first copied through a pinned
 * bounce buffer by the driver. */
typedef struct {
    long n, count;                  /* all numbers; this rank's block */
    int *counts, *displs;           /* every rank's block (for MPI_Scatterv) */
    unsigned *host_all;             /* rank 0: all n numbers, pinned */
    unsigned *host_block;           /* this rank's block, pinned */
    unsigned *dev_all;              /* rank 0: all n numbers on the GPU (CUDA-aware path) */
    unsigned *dev_block;            /* this rank's block on the GPU */
    unsigned long long *dev_partial; /* this rank's sum, on the GPU */
    unsigned long long *dev_total;  /* rank 0: the total, on the GPU (CUDA-aware path) */
} buffers;

/* The block's sum, computed on the GPU into b->dev_partial. */
static void sum_block_on_gpu(const buffers *b)
{
    CHECK(cudaMemset(b->dev_partial, 0, sizeof *b->dev_partial));
    unsigned blocks = (unsigned)((b->count + TPB - 1) / TPB);
    if (blocks > 0)
        sum_kernel<<<blocks, TPB>>>(b->dev_block, b->count, b->dev_partial);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
}

/* The staged path: MPI only ever sees host memory.  Returns the total on rank 0. */
static unsigned long long staged_sum(const buffers *b)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned long long partial = 0, total = 0;
    CHECK(cudaMemset(b->dev_block, 0, (size_t)b->count * sizeof *b->dev_block));

    // TODO 1: Stage the scatter.  Rank 0's n numbers wait in pinned host
    //         memory.  When this hole is done, every rank's own share of the
    //         uneven split (the struct already describes every rank's share)
    //         must sit in the GPU buffer that the kernel below reads.  Only
    //         host memory may be handed to MPI here, and every rank takes part
    //         in the collective, rank 0 included.
    //         README: "Host staging: the portable way".
    /* TODO 1: this rank's share of the numbers into its GPU buffer, staged through pinned memory */

    sum_block_on_gpu(b);

    // TODO 2: The kernel has left this rank's block sum in GPU memory.  Rank 0
    //         must return the sum of all ranks' block sums (what the other
    //         ranks return is not used).  Stage it: MPI sees host memory only,
    //         and must see the finished sum.  The MPI datatype must match the
    //         C type of the variables it reads and writes.
    //         README: "Host staging: the portable way".
    (void)&partial; /* TODO 2: every rank's block sum, added up on rank 0, staged */
    return rank == 0 ? total : 0;
}

/* The CUDA-aware path: the same scatter and reduce, with no staging code at
 * all.  Rank 0's numbers are already on its GPU (b->dev_all); the host buffers
 * are NULL here.  With an MPI that is not CUDA-aware, handing it device
 * pointers kills the rank (SIGSEGV). */
static unsigned long long cuda_aware_sum(const buffers *b)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned long long total = 0;
    CHECK(cudaMemset(b->dev_block, 0, (size_t)b->count * sizeof *b->dev_block));
    if (rank == 0)
        CHECK(cudaMemset(b->dev_total, 0, sizeof *b->dev_total));

    // TODO 3: The scatter of TODO 1 again, without staging.  Rank 0's n numbers
    //         sit in its GPU memory this time; every rank's own share must end
    //         up in the GPU buffer the kernel reads, with no copy of the numbers
    //         by your code: MPI alone moves them, and it is given only GPU
    //         memory (the struct's host buffers are NULL here).
    //         README: "CUDA-aware MPI".
    /* TODO 3: this rank's share, from rank 0's GPU straight into this rank's GPU buffer */

    sum_block_on_gpu(b);

    // TODO 4: The reduce of TODO 2 again, without staging: every rank's block
    //         sum goes from its GPU to the total in rank 0's GPU memory, which
    //         the copy below reads.  Again MPI alone moves the numbers and sees
    //         only GPU memory.
    //         README: "CUDA-aware MPI".
    /* TODO 4: every rank's block sum, added up into rank 0's b->dev_total */
    if (rank == 0)
        CHECK(cudaMemcpy(&total, b->dev_total, sizeof total, cudaMemcpyDeviceToHost));
    return total;
}

/* ---- no need to change below ---- */

typedef unsigned long long (*sum_fn)(const buffers *);

/* Runs fn on all ranks: one warm-up, then the best of `reps` (the slowest rank's
 * time of each), and its result on rank 0. */
static double time_path(sum_fn fn, const buffers *b, int reps, unsigned long long *result)
{
    double best = INFINITY;
    for (int r = 0; r <= reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        *result = fn(b);
        double t = slowest(MPI_Wtime() - start);
        if (r > 0 && t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 10000000, 1, 1L << 28);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    int reps = (int)pr_arg_long(argc, argv, "reps", 3, 1, 100);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int device = pick_gpu();
    const char *why;
    int path = pr_mpi_gpu_path(&why), aware = path != PR_MPI_HOST_ONLY;
    if (rank == 0) {
        printf("task1: sum of %ld values over %d rank%s (rank 0 on GPU %d)\n", n, size,
               size == 1 ? "" : "s", device);
        printf("  device pointers to MPI: %s (%s)\n", aware ? pr_mpi_gpu_path_name(path) : "no", why);
    }

    buffers b;
    memset(&b, 0, sizeof b);
    b.n = n;
    b.counts = (int *)host_alloc(2 * (size_t)size * sizeof(int));
    b.displs = b.counts + size;
    for (int r = 0; r < size; r++) {
        long first, count;
        block_of(n, size, r, &first, &count);
        b.counts[r] = (int)count;
        b.displs[r] = (int)first;
    }
    b.count = b.counts[rank];
    /* +1: cudaMalloc(0) and friends are legal, but a zero-size block is easier to avoid. */
    CHECK(cudaMallocHost(&b.host_block, (size_t)(b.count + 1) * sizeof *b.host_block));
    CHECK(cudaMalloc(&b.dev_block, (size_t)(b.count + 1) * sizeof *b.dev_block));
    CHECK(cudaMalloc(&b.dev_partial, sizeof *b.dev_partial));

    unsigned long long expect = 0;
    if (rank == 0) {
        CHECK(cudaMallocHost(&b.host_all, (size_t)n * sizeof *b.host_all));
        pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
        for (long i = 0; i < n; i++) {
            b.host_all[i] = (unsigned)pr_rng_range(&rng, 0, 255);
            expect += b.host_all[i];
        }
        if (aware) {
            CHECK(cudaMalloc(&b.dev_all, (size_t)n * sizeof *b.dev_all));
            CHECK(cudaMalloc(&b.dev_total, sizeof *b.dev_total));
            CHECK(cudaMemcpy(b.dev_all, b.host_all, (size_t)n * sizeof *b.dev_all,
                             cudaMemcpyHostToDevice));
        }
    }

    unsigned long long staged = 0, direct = 0;
    double t_staged = time_path(staged_sum, &b, reps, &staged);
    pr_check_int("total (staged)", (long long)staged, (long long)expect);
    pr_result_int("sum", (long long)staged);
    pr_print_time("staged path", t_staged, 0, NULL);
    if (aware) {
        buffers gpu_only = b; /* the CUDA-aware path has no host buffers to use */
        gpu_only.host_all = gpu_only.host_block = NULL;
        double t_direct = time_path(cuda_aware_sum, &gpu_only, reps, &direct);
        pr_check_int("total (CUDA-aware)", (long long)direct, (long long)expect);
        pr_result_int("sum_cuda_aware", (long long)direct);
        /* the staging layer's time is not a CUDA-aware MPI's: the label says which it was */
        char label[64];
        snprintf(label, sizeof label, "CUDA-aware path (%s)", pr_mpi_gpu_path_name(path));
        pr_print_time(label, t_direct, t_staged, "staged");
    } else if (rank == 0) {
        printf("  CUDA-aware path: not run (the MPI is not CUDA-aware: handing it device pointers would crash;\n"
               "  on a GPU, PR_MPI_STAGE=1 runs it through pr.h's staging layer)\n");
    }
    if (rank == 0)
        printf("  (times include the scatter from rank 0: %.1f MB; rank 0's block is %.1f MB)\n",
               (double)n * sizeof(unsigned) / 1e6, (double)b.count * sizeof(unsigned) / 1e6);
#ifdef CUDA_SIM
    if (rank == 0)
        printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    if (rank == 0) {
        CHECK(cudaFreeHost(b.host_all));
        if (aware) {
            CHECK(cudaFree(b.dev_all));
            CHECK(cudaFree(b.dev_total));
        }
    }
    CHECK(cudaFreeHost(b.host_block));
    CHECK(cudaFree(b.dev_block));
    CHECK(cudaFree(b.dev_partial));
    free(b.counts);
    int status = pr_finish();
    MPI_Finalize();
    return status;
}
