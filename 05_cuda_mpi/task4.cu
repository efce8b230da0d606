/*
 * Room 05, task 4: bug hunt -- heat on a ring of GPUs.
 *
 * A ring of n cells (cell n-1 and cell 0 are neighbours) starts with random
 * temperatures; every step each cell becomes a weighted mean of itself and its
 * two neighbours:
 *
 *     new[i] = (u[i-1] + 2 u[i] + u[i+1]) / 4          (indices modulo n)
 *
 * The ring is cut into uneven blocks, one per rank, each on its GPU with a
 * ghost cell at each end: copies of the neighbours' end cells.  The ring is
 * closed, so every rank has two neighbours, and with one rank both are the
 * rank itself.  A step runs in the overlapped order of task 2: the two end
 * cells first, on one stream; the rest of the block on a second stream while
 * the host exchanges the end cells (staged through pinned buffers, with
 * MPI_Sendrecv) and copies the received ones into the ghost cells.
 *
 * It checks itself twice: rank 0 gathers the ring and compares it with a
 * serial run of the same additions (every cell must agree bit for bit),
 * and the total heat, which this update keeps, must still be the total it
 * started with.  The serial run is timed on one core and with OpenMP on all of
 * them (cpu_baseline.h), and the GPUs' speedup printed against each.
 *
 * This program has ONE bug, and it makes the program fail grading.  Find it
 * and fix it; nothing else needs to change.
 * Read first: README.md, "Streams: overlapping copies, kernels and messages", "A halo exchange on GPUs, overlapped", "Stream bugs: wrong order and missing waits", "Task 4: bug hunt, heat on a ring of GPUs".
 *
 * Build and run by hand, from the room's folder:
 *   anywhere:  ../grading/sim/simcc -ccbin mpicxx -O2 -fopenmp -I../grading/include -o task4 task4.cu
 *   on a GPU:  nvcc -ccbin mpicxx -O2 -arch=native -Xcompiler -fopenmp -I../grading/include -o task4 task4.cu
 *   mpiexec -n 3 ./task4 n=1001 steps=50
 * Grade it from the top folder:  make grade TASK=05_cuda_mpi/task4
 */
#define PR_MPI
#include "pr.h"

#include "cuda_mpi.h" /* pick_gpu, block_of...: the room's scaffolding */
#include "cpu_baseline.h" /* the CPU on 1 core and on all: print_cpu_times(), print_vs_cpu() */

#define TO_LEFT 1  /* a cell travelling to the rank on the left */
#define TO_RIGHT 2 /* a cell travelling to the rank on the right */

/* One update of cells [lo, hi) of a block stored with its ghost cells: cell c
 * of the block is u[c + 1]; u[0] and u[count + 1] are the ghosts. */
__global__ void heat_cells(const double *u, double *unew, int lo, int hi)
{
    int c = lo + blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= hi)
        return;
    int at = c + 1;
    unew[at] = 0.25 * (u[at - 1] + 2.0 * u[at] + u[at + 1]);
}

/* What a rank holds on its GPU and in pinned host memory. */
typedef struct {
    int count;                      /* my cells */
    int left, right;                /* neighbour ranks around the ring */
    double *u, *unew;               /* count + 2 cells on the GPU, ghosts included */
    double *send_left, *send_right; /* pinned: my first and last cell, to send */
    double *recv_left, *recv_right; /* pinned: the neighbours' cells, received */
    cudaStream_t edge, inner;
} block;

/* Launches heat_cells for cells [lo, hi) of b on stream s (nothing when empty). */
static void update_cells(const block *b, int lo, int hi, cudaStream_t s)
{
    if (hi <= lo)
        return;
    unsigned blocks = (unsigned)((hi - lo + 127) / 128);
    heat_cells<<<blocks, 128, 0, s>>>(b->u, b->unew, lo, hi);
    CHECK(cudaGetLastError());
}

/* The rank's two end cells of unew, queued on the edge stream for the pinned send buffers. */
static void ends_to_host(block *b)
{
    const size_t cell_bytes = sizeof(double);
    CHECK(cudaMemcpyAsync(b->send_left, b->unew + 1, cell_bytes, cudaMemcpyDeviceToHost, b->edge));
    CHECK(cudaMemcpyAsync(b->send_right, b->unew + b->count, cell_bytes, cudaMemcpyDeviceToHost, b->edge));
}

/* One step of the whole ring. */
static void step(block *b)
{
    const size_t cell_bytes = sizeof(double);
    int last = b->count - 1;

    /* 1. The edge stream's work: the two end cells. */
    ends_to_host(b);
    update_cells(b, 0, 1, b->edge);
    update_cells(b, last, last + 1, b->edge);

    /* 2. The cells between them need no ghost: the inner stream. */
    update_cells(b, 1, last, b->inner);

    /* 3. The exchange, on the host, once the edge stream is done. */
    CHECK(cudaStreamSynchronize(b->edge));
    MPI_Sendrecv(b->send_left, 1, MPI_DOUBLE, b->left, TO_LEFT, b->recv_right, 1, MPI_DOUBLE,
                 b->right, TO_LEFT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(b->send_right, 1, MPI_DOUBLE, b->right, TO_RIGHT, b->recv_left, 1, MPI_DOUBLE,
                 b->left, TO_RIGHT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(cudaMemcpyAsync(b->unew, b->recv_left, cell_bytes, cudaMemcpyHostToDevice, b->edge));
    CHECK(cudaMemcpyAsync(b->unew + b->count + 1, b->recv_right, cell_bytes, cudaMemcpyHostToDevice,
                          b->edge));

    /* 4. Both streams done: the new ring is complete. */
    CHECK(cudaStreamSynchronize(b->edge));
    CHECK(cudaStreamSynchronize(b->inner));
    double *t = b->u;
    b->u = b->unew;
    b->unew = t;
}

/* The serial reference: the whole ring, `steps` steps, the same additions; on
 * one core, or with omp != 0 on OpenMP's threads (the same result: each cell apart). */
static void heat_serial(double *u, int n, int steps, int omp)
{
    double *unew = (double *)host_alloc((size_t)n * sizeof(double));
    for (int s = 0; s < steps; s++) {
#pragma omp parallel for if (omp)
        for (int i = 0; i < n; i++) {
            double l = u[i == 0 ? n - 1 : i - 1], r = u[i == n - 1 ? 0 : i + 1];
            unew[i] = 0.25 * (l + 2.0 * u[i] + r);
        }
        memcpy(u, unew, (size_t)n * sizeof(double));
    }
    free(unew);
}

/* Sets up b with cells [first, first + count) of the ring `all` (n cells),
 * the ghost cells filled from the neighbouring cells of the ring. */
static void block_init(block *b, const double *all, int n, long first, long count)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    b->count = (int)count;
    b->left = (rank + size - 1) % size;
    b->right = (rank + 1) % size;
    size_t bytes = (size_t)(count + 2) * sizeof(double);
    double *host = (double *)host_alloc(bytes);
    for (long c = -1; c <= count; c++) /* block cell c is ring cell first + c */
        host[c + 1] = all[(first + c + n) % n];
    CHECK(cudaMalloc(&b->u, bytes));
    CHECK(cudaMalloc(&b->unew, bytes));
    CHECK(cudaMemcpy(b->u, host, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b->unew, host, bytes, cudaMemcpyHostToDevice));
    free(host);
    CHECK(cudaMallocHost(&b->send_left, 4 * sizeof(double)));
    b->send_right = b->send_left + 1;
    b->recv_left = b->send_left + 2;
    b->recv_right = b->send_left + 3;
    memset(b->send_left, 0, 4 * sizeof(double));
    CHECK(cudaStreamCreateWithFlags(&b->edge, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b->inner, cudaStreamNonBlocking));
    CHECK(cudaDeviceSynchronize()); /* the plain copies above are done before the streams start */
}

static void block_free(block *b)
{
    CHECK(cudaFree(b->u));
    CHECK(cudaFree(b->unew));
    CHECK(cudaFreeHost(b->send_left));
    CHECK(cudaStreamDestroy(b->edge));
    CHECK(cudaStreamDestroy(b->inner));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = (int)pr_arg_long(argc, argv, "n", 1 << 20, 3, 1 << 24);
    int steps = (int)pr_arg_long(argc, argv, "steps", 100, 1, 100000);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (n < 3 * size) { /* every rank needs two end cells and one between them */
        if (rank == 0)
            fprintf(stderr, "%s: bad argument n=%d: with %d ranks n must be at least %d (3 cells per rank)\n",
                    pr_program_name(argv[0]), n, size, 3 * size);
        pr_exit(2);
    }
    int device = pick_gpu();
    if (rank == 0)
        printf("task4: heat on a ring of %d cells, %d steps, %d rank%s (rank 0 on GPU %d)\n", n,
               steps, size, size == 1 ? "" : "s", device);

    /* Every rank draws the whole ring from the seed and keeps its block. */
    double *all = (double *)host_alloc((size_t)n * sizeof(double));
    pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
    double heat0 = 0.0;
    for (int i = 0; i < n; i++) {
        all[i] = pr_rng_double(&rng, 0.0, 1.0);
        heat0 += all[i];
    }
    long first, count;
    block_of(n, size, rank, &first, &count);

    block b;
    block_init(&b, all, n, first, count);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int s = 0; s < steps; s++)
        step(&b);
    CHECK(cudaDeviceSynchronize());
    double t_gpu = slowest(MPI_Wtime() - start);

    /* Gather the ring on rank 0 (cell 0 of the block is u[1]). */
    double *ring = rank == 0 ? (double *)host_alloc((size_t)n * sizeof(double)) : NULL;
    gather_blocks(b.u + 1, n, 1, 0, ring);

    if (rank == 0) {
        double *again = (double *)host_alloc((size_t)n * sizeof(double));
        memcpy(again, all, (size_t)n * sizeof(double)); /* the start, for the OpenMP run */
        double t0 = pr_now();
        heat_serial(all, n, steps, 0); /* `all` becomes the expected ring */
        double t_cpu = pr_now() - t0;
        cpu_warm_up(); /* the same on every core, with OpenMP */
        t0 = pr_now();
        heat_serial(again, n, steps, 1);
        double t_omp = pr_now() - t0;
        free(again);
        double max_diff = 0.0, heat = 0.0, energy = 0.0, expect_energy = 0.0;
        for (int i = 0; i < n; i++) {
            double d = fabs(ring[i] - all[i]);
            max_diff = d > max_diff || d != d ? d : max_diff;
            heat += ring[i];
            energy += ring[i] * ring[i];
            expect_energy += all[i] * all[i];
        }
        pr_check_double("largest difference from CPU", max_diff, 0.0, 1e-12);
        pr_check_double("total heat (kept)", heat, heat0, 1e-9);
        pr_check_double("energy (sum of squares)", energy, expect_energy, 1e-12);
        pr_result_double("energy", energy, 1e-10);
        print_cpu_times("CPU", t_cpu, t_omp);
        print_vs_cpu("GPUs with halo exchange", t_gpu, t_cpu, t_omp);
#ifdef CUDA_SIM
        printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif
    }
    free(ring);
    free(all);
    block_free(&b);
    int status = pr_finish();
    MPI_Finalize();
    return status;
}
