/*
 * Room 05, task 2: a Jacobi iteration on GPUs, with a halo exchange that
 * overlaps the interior update.
 *
 * A plate of points (rows by columns); the edges are held at fixed temperatures
 * (top 1.0, the rest 0.0) and every other point becomes the mean of its four
 * neighbours, again and again (Jacobi):
 *
 *     new[i][j] = (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1]) / 4
 *
 * The rows between the top and bottom edges are cut into uneven blocks, one
 * per rank, each on its GPU.
 * A rank keeps two ghost rows, copies of its neighbours' edge rows (room 03,
 * task 5, now in two dimensions and on the GPU):
 *
 *     ghost row   <- bottom row of the rank above   (or the plate's top edge)
 *     my row 0        edge row: needs the ghost above
 *     my row 1..      interior rows: need only my own rows
 *     my bottom row   edge row: needs the ghost below
 *     ghost row   <- top row of the rank below      (or the plate's bottom edge)
 *
 * Each step, in the order that lets communication hide behind computation:
 *   1. on the edge stream: update my two edge rows, copy them to pinned buffers;
 *   2. on the other stream: start the interior update -- it needs no ghost,
 *      so it runs on the GPU while ...
 *   3. ... the host waits for the edge stream and exchanges the edge rows with
 *      the neighbours (MPI on the pinned buffers: staging, which works with any
 *      MPI), then copies the received rows into the ghost rows (edge stream);
 *   4. both streams finish; new and old swap.
 *
 *   TODO 1: step 2, the interior update, overlapped with step 3;
 *   TODO 2: step 3, the exchange of edge rows with the neighbours.
 *
 * Read first: README.md, "Host staging: the portable way", "Streams: overlapping copies, kernels and messages", "A halo exchange on GPUs, overlapped", "Task 2: a halo exchange on GPUs, overlapped with the interior".
 *
 * Rank 0 gathers the plate at the end and compares it with a serial CPU run:
 * the same additions in the same order, so it must match bit for bit.  It times
 * that CPU run on one core and with OpenMP on all of them (cpu_baseline.h), and
 * prints the GPUs' speedup against each.
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -ccbin mpicxx -O2 -arch=native -Xcompiler -fopenmp -I../grading/include -o task2 task2.cu
 *   anywhere:  ../grading/sim/simcc -ccbin mpicxx -O2 -fopenmp -I../grading/include -o task2 task2.cu
 *   mpiexec -n 4 ./task2 rows=4098 steps=200
 * Grade it from the top folder:  make grade TASK=05_cuda_mpi/task2
 */
#define PR_MPI
#include "pr.h"

#include "cuda_mpi.h" /* pick_gpu, block_of...: the room's scaffolding */
#include "cpu_baseline.h" /* the CPU on 1 core and on all: print_cpu_times(), print_vs_cpu() */

#define TAG_UP 1   /* a row travelling to the rank above */
#define TAG_DOWN 2 /* a row travelling to the rank below */

/* One Jacobi update of rows [row_lo, row_hi) of a block stored with its ghost
 * rows: row r of the block is u[(r + 1) * cols ...]; columns 0 and cols-1 are
 * the plate's fixed side edges and are not updated. */
__global__ void jacobi_rows(const double *u, double *unew, int row_lo, int row_hi, int cols)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int r = row_lo + blockIdx.y;
    if (r >= row_hi || j < 1 || j >= cols - 1)
        return;
    long at = (long)(r + 1) * cols + j;
    unew[at] = 0.25 * (u[at - cols] + u[at + cols] + u[at - 1] + u[at + 1]);
}

/* What a rank holds on its GPU and in pinned host memory. */
typedef struct {
    int rows_mine, cols;         /* my inner rows; columns of the plate */
    int up, down;                /* neighbour ranks, or MPI_PROC_NULL at the plate's edges */
    double *u, *unew;            /* (rows_mine + 2) x cols on the GPU, ghost rows included */
    double *send_up, *send_down; /* pinned: my first and last rows, to send */
    double *recv_up, *recv_down; /* pinned: the neighbours' rows, received */
    cudaStream_t edge, inner;
} block;

/* Launches jacobi_rows for rows [lo, hi) of b on stream s (nothing when empty). */
static void update_rows(const block *b, int lo, int hi, cudaStream_t s)
{
    if (hi <= lo)
        return;
    dim3 threads(128, 1);
    dim3 grid((unsigned)((b->cols + 127) / 128), (unsigned)(hi - lo));
    jacobi_rows<<<grid, threads, 0, s>>>(b->u, b->unew, lo, hi, b->cols);
    CHECK(cudaGetLastError());
}

/* One Jacobi step of the whole plate, overlapped as described at the top. */
static void step(block *b)
{
    size_t row_bytes = (size_t)b->cols * sizeof(double);
    int last = b->rows_mine - 1;
    double *first_row = b->unew + b->cols;                      /* block row 0 */
    double *last_row = b->unew + (size_t)(last + 1) * b->cols;  /* block row rows_mine-1 */
    double *ghost_up = b->unew;
    double *ghost_down = b->unew + (size_t)(b->rows_mine + 1) * b->cols;

    /* 1. The edge rows first, then down to the pinned send buffers. */
    update_rows(b, 0, 1, b->edge);
    update_rows(b, last, last + 1, b->edge);
    CHECK(cudaMemcpyAsync(b->send_up, first_row, row_bytes, cudaMemcpyDeviceToHost, b->edge));
    CHECK(cudaMemcpyAsync(b->send_down, last_row, row_bytes, cudaMemcpyDeviceToHost, b->edge));

    //@ TODO 1: Step 2: start the update of every block row that needs no
    //@         ghost row, so that the GPU works on it while the host does step
    //@         3.  Every row of the block is updated exactly once per step: the
    //@         edge kernels above already did theirs.  Queued where it would
    //@         wait for the edge work, it could not overlap with anything.
    //@         README: "Streams: overlapping copies, kernels and messages".
    //@ placeholder: /* TODO 1: start the interior update, overlapped with the exchange */
    //@ solution {
    update_rows(b, 1, last, b->inner);
    //@ }

    /* 3. The exchange, once the edge rows have reached the host. */
    CHECK(cudaStreamSynchronize(b->edge));

    //@ TODO 2: Step 3, the exchange, with MPI_Sendrecv on the pinned buffers.
    //@         Afterwards the receive buffers must hold, for the ghost row
    //@         above, the bottom edge row of the rank above and, for the ghost
    //@         row below, the top edge row of the rank below.  It must neither
    //@         deadlock nor mix up the rows for any number of ranks, 1 included;
    //@         a rank with no neighbour on one side needs no special case.
    //@         README: "A halo exchange on GPUs, overlapped"
    //@         (the exchange is two shifts).
    //@ placeholder: /* TODO 2: the edge rows to the neighbours, theirs into the receive buffers */
    //@ solution {
    MPI_Sendrecv(b->send_up, b->cols, MPI_DOUBLE, b->up, TAG_UP, b->recv_down, b->cols, MPI_DOUBLE,
                 b->down, TAG_UP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(b->send_down, b->cols, MPI_DOUBLE, b->down, TAG_DOWN, b->recv_up, b->cols,
                 MPI_DOUBLE, b->up, TAG_DOWN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    //@ }

    /* The received rows become the new ghost rows; at the plate's top and
     * bottom the ghost row is the fixed edge, already in place. */
    if (b->up != MPI_PROC_NULL)
        CHECK(cudaMemcpyAsync(ghost_up, b->recv_up, row_bytes, cudaMemcpyHostToDevice, b->edge));
    if (b->down != MPI_PROC_NULL)
        CHECK(cudaMemcpyAsync(ghost_down, b->recv_down, row_bytes, cudaMemcpyHostToDevice, b->edge));

    /* 4. Both streams done: the new plate is complete. */
    CHECK(cudaStreamSynchronize(b->edge));
    CHECK(cudaStreamSynchronize(b->inner));
    double *t = b->u;
    b->u = b->unew;
    b->unew = t;
}

/* ---- no need to change below ---- */

/* The plate's starting values: the top edge 1.0, everything else 0.0. */
static void initial_row(double *row, int global_row, int cols)
{
    for (int j = 0; j < cols; j++)
        row[j] = global_row == 0 ? 1.0 : 0.0;
}

/* The reference on the CPU: the whole plate, rows x cols, `steps` steps; on one
 * core, or with omp != 0 on OpenMP's threads (the same result: each point apart). */
static double *jacobi_serial(int rows, int cols, int steps, int omp)
{
    double *u = (double *)host_alloc((size_t)rows * cols * sizeof(double));
    double *unew = (double *)host_alloc((size_t)rows * cols * sizeof(double));
    for (int i = 0; i < rows; i++) {
        initial_row(u + (size_t)i * cols, i, cols);
        initial_row(unew + (size_t)i * cols, i, cols);
    }
    for (int s = 0; s < steps; s++) {
#pragma omp parallel for if (omp)
        for (int i = 1; i < rows - 1; i++)
            for (int j = 1; j < cols - 1; j++) {
                size_t at = (size_t)i * cols + j;
                unew[at] = 0.25 * (u[at - cols] + u[at + cols] + u[at - 1] + u[at + 1]);
            }
        double *t = u;
        u = unew;
        unew = t;
    }
    free(unew);
    return u;
}

/* Sets up b for inner rows [first, first + count) of the plate (plate row
 * first + 1 is block row 0), ghost rows included, on the GPU. */
static void block_init(block *b, int rows, int cols, long first, long count)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    b->rows_mine = (int)count;
    b->cols = cols;
    b->up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    b->down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    size_t row_bytes = (size_t)cols * sizeof(double);
    size_t bytes = (size_t)(count + 2) * row_bytes;
    double *host = (double *)host_alloc(bytes);
    for (long r = 0; r < count + 2; r++) /* block row r - 1 is plate row first + r */
        initial_row(host + r * cols, (int)(first + r), cols);
    (void)rows;
    CHECK(cudaMalloc(&b->u, bytes));
    CHECK(cudaMalloc(&b->unew, bytes));
    CHECK(cudaMemcpy(b->u, host, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b->unew, host, bytes, cudaMemcpyHostToDevice)); /* fixed edges in both */
    free(host);
    CHECK(cudaMallocHost(&b->send_up, 4 * row_bytes));
    b->send_down = b->send_up + cols;
    b->recv_up = b->send_up + 2 * cols;
    b->recv_down = b->send_up + 3 * cols;
    memset(b->send_up, 0, 4 * row_bytes);
    CHECK(cudaStreamCreateWithFlags(&b->edge, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b->inner, cudaStreamNonBlocking));
    /* A cudaMemcpy from pageable memory may return before the data is on the device,
     * and non-blocking streams do not wait for the default stream: wait here. */
    CHECK(cudaDeviceSynchronize());
}

static void block_free(block *b)
{
    CHECK(cudaFree(b->u));
    CHECK(cudaFree(b->unew));
    CHECK(cudaFreeHost(b->send_up));
    CHECK(cudaStreamDestroy(b->edge));
    CHECK(cudaStreamDestroy(b->inner));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rows = (int)pr_arg_long(argc, argv, "rows", 1026, 5, 1 << 15);
    int cols = (int)pr_arg_long(argc, argv, "cols", 1024, 3, 1 << 15);
    int steps = (int)pr_arg_long(argc, argv, "steps", 100, 1, 100000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long inner = rows - 2;
    if (inner < 3L * size) { /* every rank needs two edge rows and an interior one */
        if (rank == 0)
            fprintf(stderr, "%s: bad argument rows=%d: with %d ranks rows must be at least %d (3 inner rows per rank, plus 2 edges)\n",
                    pr_program_name(argv[0]), rows, size, 3 * size + 2);
        pr_exit(2);
    }
    int device = pick_gpu();
    long first, count;
    block_of(inner, size, rank, &first, &count);
    if (rank == 0)
        printf("task2: Jacobi on a %d x %d plate, %d steps, %d rank%s (rank 0 on GPU %d)\n", rows,
               cols, steps, size, size == 1 ? "" : "s", device);

    block b;
    block_init(&b, rows, cols, first, count);
    step(&b); /* warm-up: the first launches and copies pay for set-up */
    block_free(&b);
    block_init(&b, rows, cols, first, count);

    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int s = 0; s < steps; s++)
        step(&b);
    CHECK(cudaDeviceSynchronize());
    double t_gpu = slowest(MPI_Wtime() - start);

    /* Gather the inner rows on rank 0: block row 0 is plate row first + 1. */
    double *plate = rank == 0 ? (double *)host_alloc((size_t)rows * cols * sizeof(double)) : NULL;
    gather_blocks(b.u + cols, inner, cols, 1, plate);

    if (rank == 0) {
        double t0 = pr_now();
        double *expect = jacobi_serial(rows, cols, steps, 0);
        double t_cpu = pr_now() - t0;
        cpu_warm_up(); /* the same on every core, with OpenMP */
        t0 = pr_now();
        free(jacobi_serial(rows, cols, steps, 1));
        double t_omp = pr_now() - t0;
        double max_diff = 0.0, sum = 0.0, expect_sum = 0.0;
        for (int i = 1; i < rows - 1; i++)
            for (int j = 1; j < cols - 1; j++) {
                size_t at = (size_t)i * cols + j;
                double d = fabs(plate[at] - expect[at]);
                max_diff = d > max_diff || d != d ? d : max_diff;
                sum += plate[at];
                expect_sum += expect[at];
            }
        pr_check_double("sum of the inner points", sum, expect_sum, 1e-12);
        pr_check_double("largest difference from CPU", max_diff, 0.0, 1e-12);
        pr_result_double("heat", sum, 1e-10);
        print_cpu_times("CPU", t_cpu, t_omp);
        print_vs_cpu("GPUs with halo exchange", t_gpu, t_cpu, t_omp);
        printf("  per step: %.3f ms; each rank sends 2 rows of %zu bytes per step\n",
               1e3 * t_gpu / steps, (size_t)cols * sizeof(double));
#ifdef CUDA_SIM
        printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif
        free(expect);
    }
    free(plate);
    block_free(&b);
    int status = pr_finish();
    MPI_Finalize();
    return status;
}
