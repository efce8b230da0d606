/*
 * Room 06, task 6: DDP on GPUs -- one replica per GPU, gradients all-reduced
 * with NCCL (or staged through MPI).
 *
 * Task 3's DDP, with the arithmetic moved to the GPUs, the way PyTorch's
 * DistributedDataParallel runs on a GPU cluster.  Every rank owns a GPU (or
 * shares one) holding the whole data set and a replica of the model; for
 * every minibatch:
 *
 *   1. the distributed sampler (task 3) picks the rank's shard on the host and
 *      copies its indices to the GPU (a few bytes);
 *   2. kernel per_sample_grad: one thread per sample of the shard runs the
 *      forward and backward pass and writes that sample's gradient (and its
 *      squared error) into its own row of a matrix G;
 *   3. kernel sum_columns: the shard's gradient adds up G's rows; one
 *      thread per parameter adds up its column, always in the same order, so
 *      the result does not depend on how threads are scheduled (atomicAdd on
 *      doubles would: the last bits would change from run to run);
 *   4. the allreduce of the gradient, device to device: NCCL where every rank
 *      has a GPU of its own (ncclAllReduce on a stream), staged through pinned
 *      CPU memory and MPI_Allreduce elsewhere (room 05, task 3);
 *   5. kernel sgd_update: every rank divides by the global minibatch size and
 *      makes the same update: the replicas stay identical.
 *
 *   TODO 1: sum_columns, the shard's gradient from the per-sample gradients;
 *   TODO 2: the staged allreduce.
 *
 * Read first: README.md, "One step of DDP", "Task 6: DDP on GPUs"; ../05_cuda_mpi/README.md, "Host staging: the portable way".
 *
 * Training runs with the staged allreduce always, again with MPI handed the
 * device arrays where it can take them (a CUDA-aware MPI, pr.h's staging layer
 * on a GPU, the simulator's stand-in: room 05), and again with NCCL where it
 * can run (a real GPU per rank and NCCL installed, or the CUDA CPU simulator,
 * whose NCCL runs on MPI: grading/sim/nccl.h).  Each is checked against the serial run (rank 0 runs it on
 * the CPU): every epoch's loss and the final parameters to 1e-9, and the
 * replicas against each other (a checksum, its spread over the ranks).
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -ccbin mpicxx -O2 -arch=native -Xcompiler -fopenmp -I../grading/include -o task6 task6.cu -lnccl
 *              (-lnccl wherever NCCL is installed; without NCCL leave it out: NCCL says SKIP)
 *   anywhere:  ../grading/sim/simcc -ccbin mpicxx -O2 -fopenmp -I../grading/include -o task6 task6.cu -lnccl
 *   mpiexec -n 2 ./task6 n=100003 batch=4096 epochs=5 hidden=32
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task6
 */
#define PR_MPI
#include "pr.h"
#include "mlp_mpi.h"
#include "mlp_gpu.h" /* the MLP, and the GPU's tools: pick_gpu, replica_t, NCCL's (HAVE_NCCL) */

#define MAX_HIDDEN 64 /* a kernel thread keeps its hidden layer in registers */
#define TPB 128       /* threads per block */

/* The MLP's flat layout (mlp_model.h), as in tasks 1-5:
 *     [ W1 (H x D) | b1 (H) | W2 (H) | b2 (1) ]     W1[j][k] is p[j * D + k].
 * A gradient row has one more number: the sample's squared error. */

/* Step 2: thread b runs sample shard[b] forward and backward, with mlp_train.h's
 * functions (compiled for the GPU too), and writes its gradient (dL/dyhat =
 * 2 (yhat - y), not divided by anything yet) and its squared error into row b
 * of G (L.count + 1 numbers per row). */
__global__ void per_sample_grad(const double *p, layout_t L, const double *x, const double *y,
                                const long *shard, long count, double *G)
{
    long b = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= count)
        return;
    const double *xs = x + shard[b] * D;
    double h[MAX_HIDDEN], *g = G + b * (L.count + 1);
    double err = mlp_forward(p, &L, xs, h) - y[shard[b]];
    for (long i = 0; i < L.count; i++) /* mlp_backward adds to what is there */
        g[i] = 0.0;
    mlp_backward(p, &L, xs, h, 2.0 * err, g);
    g[L.count] = err * err;
}

/* Step 3: local[i] = G[0][i] + G[1][i] + ... + G[count-1][i] for the `width`
 * columns i of G (rows of `width` numbers). */
__global__ void sum_columns(const double *G, long count, long width, double *local)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    //@ TODO 1: This thread owns one column of G: its total over the shard's
    //@         rows goes to the column's place in the output.  Add the rows in
    //@         row order, always the same, so the bits never depend on how the
    //@         GPU schedules threads.  Threads past the last column do nothing,
    //@         and an empty shard gives zeros.
    //@ placeholder: (void)G, (void)count, (void)width, (void)local, (void)&i; /* TODO 1 */
    //@ solution {
    if (i >= width)
        return;
    double sum = 0.0;
    for (long b = 0; b < count; b++)
        sum += G[b * width + i];
    local[i] = sum;
    //@ }
}

/* Staged: grad (width doubles on the GPU) becomes the sum over all ranks of
 * local (width doubles on the GPU), through the pinned host buffer host. */
static void allreduce_staged(const double *local, double *grad, double *host, long width)
{
    //@ TODO 2: Room 05's staged allreduce: the device array's totals over
    //@         all ranks must end up in the other device array, travelling
    //@         through the pinned buffer in CPU memory and one MPI_Allreduce.
    //@         Check every CUDA call's error with pr.h's CHECK.
    //@ placeholder: (void)local, (void)grad, (void)host, (void)width; /* TODO 2 */
    //@ solution {
    size_t bytes = (size_t)width * sizeof(double);
    CHECK(cudaMemcpy(host, local, bytes, cudaMemcpyDeviceToHost));
    MPI_Allreduce(MPI_IN_PLACE, host, (int)width, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(cudaMemcpy(grad, host, bytes, cudaMemcpyHostToDevice));
    //@ }
}

/* ---- no need to change below ---- */

/* Step 5: the same update on every rank; grad holds sums over the minibatch. */
__global__ void sgd_update(double *p, const double *grad, long count, long batch, double lr)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        p[i] -= lr * (grad[i] / (double)batch);
}

typedef void (*allreduce_fn)(const double *local, double *grad, double *host, long width);

/* CUDA-aware: MPI is handed the device arrays (a CUDA-aware MPI, pr.h's staging
 * layer, or the simulator's stand-in: room 05, "CUDA-aware MPI"). */
static void allreduce_cuda_aware(const double *local, double *grad, double *host, long width)
{
    (void)host;
    MPI_Allreduce(local, grad, (int)width, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

#ifdef HAVE_NCCL
/* Device to device, no host copy: NCCL's kernels move the data themselves. */
static void allreduce_nccl(const double *local, double *grad, double *host, long width)
{
    (void)host;
    NCCL_CHECK(ncclAllReduce(local, grad, (size_t)width, ncclDouble, ncclSum, nccl_comm, nccl_stream));
    CHECK(cudaStreamSynchronize(nccl_stream));
}

#endif

static unsigned blocks_for(long threads)
{
    return (unsigned)((threads + TPB - 1) / TPB);
}

/* One DDP step on the GPU; returns the minibatch's loss (the same on every rank). */
static double gpu_step(replica_t *r, const long *batch_idx, long batch, allreduce_fn allreduce)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long width = r->L.count + 1, count = 0;
    for (long b = rank; b < batch; b += size) /* the distributed sampler of task 3 */
        r->shard_host[count++] = batch_idx[b];
    CHECK(cudaMemset(r->local, 0, (size_t)width * sizeof(double)));
    CHECK(cudaMemset(r->grad, 0, (size_t)width * sizeof(double)));
    if (count > 0) {
        CHECK(cudaMemcpy(r->shard, r->shard_host, (size_t)count * sizeof(long), cudaMemcpyHostToDevice));
        per_sample_grad<<<blocks_for(count), TPB>>>(r->p, r->L, r->x, r->y, r->shard, count, r->G);
        CHECK(cudaGetLastError());
    }
    sum_columns<<<blocks_for(width), TPB>>>(r->G, count, width, r->local);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize()); /* the local gradient is complete before anyone sends it */
    allreduce(r->local, r->grad, r->host, width);
    sgd_update<<<blocks_for(r->L.count), TPB>>>(r->p, r->grad, r->L.count, batch, r->L.lr);
    CHECK(cudaGetLastError());
    double sse = 0.0;
    CHECK(cudaMemcpy(&sse, r->grad + r->L.count, sizeof sse, cudaMemcpyDeviceToHost));
    return sse / (double)batch;
}

/* Trains from the initial model; returns the time (the slowest rank's), and the
 * trained replica (this rank's) in params. */
static double train_gpu(replica_t *r, const dataset_t *data, long batch, int epochs, uint64_t seed,
                        allreduce_fn allreduce, double *params, double *epoch_loss)
{
    long *perm = (long *)xcalloc((size_t)data->n, sizeof(long));
    mlp_init(params, &r->L, seed);
    CHECK(cudaMemcpy(r->p, params, (size_t)r->L.count * sizeof(double), cudaMemcpyHostToDevice));
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int epoch = 0; epoch < epochs; epoch++) {
        shuffle(perm, data->n, seed, epoch);
        double loss_sum = 0.0;
        for (long s = 0; s < data->n; s += batch) {
            long size = data->n - s < batch ? data->n - s : batch;
            loss_sum += gpu_step(r, perm + s, size, allreduce) * (double)size;
        }
        epoch_loss[epoch] = loss_sum / (double)data->n;
    }
    CHECK(cudaDeviceSynchronize());
    double mine = MPI_Wtime() - start, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(cudaMemcpy(params, r->p, (size_t)r->L.count * sizeof(double), cudaMemcpyDeviceToHost));
    free(perm);
    return slowest;
}

/* Checks one way's training: the replicas agree (the checksum's spread over the
 * ranks), and it equals the serial run (rank 0).  Returns the checksum. */
static double check_training(const char *way, const double *params, const double *loss,
                             const double *serial_params, const double *serial_loss, long count,
                             int epochs)
{
    double checksum = checksum_of(params, count);
    char what[80];
    snprintf(what, sizeof what, "replica spread (%s)", way);
    check_replicas_identical(what, checksum);
    check_same_training(way, "serial", params, loss, serial_params, serial_loss, count, epochs);
    return checksum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 10000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 29, 1, n);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 20, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 12, 1, MAX_HIDDEN);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ranks_on_node, gpus_used;
    int device = pick_gpu(&ranks_on_node, &gpus_used);
    layout_t L = make_layout(hidden);
    if (rank == 0)
        printf("task6: DDP on %d rank%s with GPUs (rank 0's node: %d rank%s on %d GPU%s; rank 0 on GPU %d),\n"
               "       n=%ld, minibatch %ld, %d epochs, %d hidden units (%ld parameters), seed %llu\n",
               size, size == 1 ? "" : "s", ranks_on_node, ranks_on_node == 1 ? "" : "s", gpus_used,
               gpus_used == 1 ? "" : "s", device, n, batch, epochs, hidden, L.count, (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    /* The serial baseline on the CPU, rank 0 alone, while the others sleep. */
    double *serial_params = (double *)xcalloc((size_t)L.count, sizeof(double));
    double *serial_loss = (double *)xcalloc((size_t)epochs, sizeof(double));
    double t_serial = 0.0, t_omp = 0.0;
    if (rank == 0) {
        double start = pr_now();
        train_serial(&data, &L, batch, epochs, seed, serial_params, serial_loss);
        t_serial = pr_now() - start;
        t_omp = time_train_openmp(&data, &L, batch, epochs, seed); /* the same on all cores, OpenMP */
    }
    quiet_barrier();

    replica_t r;
    replica_init(&r, &L, &data, batch);
    double *params = (double *)xcalloc((size_t)L.count, sizeof(double));
    double *loss = (double *)xcalloc((size_t)epochs, sizeof(double));

    double t_staged = train_gpu(&r, &data, batch, epochs, seed, allreduce_staged, params, loss);
    print_loss_curves("serial loss", serial_loss, "GPU DDP loss", loss, epochs);
    double checksum = check_training("staged", params, loss, serial_params, serial_loss, L.count, epochs);
    pr_result_double("final_loss", loss[epochs - 1], 1e-6);
    pr_result_double("checksum", checksum, 1e-6);
    print_cpu_baselines(t_serial, t_omp, epochs);
    print_ddp_time("GPU DDP, staged", t_staged, t_serial, t_omp, epochs, size);

    const char *why;
    int path = pr_mpi_gpu_path(&why);
    if (path != PR_MPI_HOST_ONLY) {
        double t_aware = train_gpu(&r, &data, batch, epochs, seed, allreduce_cuda_aware, params, loss);
        pr_result_double("checksum_cuda_aware",
                         check_training("CUDA-aware", params, loss, serial_params, serial_loss, L.count, epochs), 1e-6);
        char way[64]; /* the staging layer's time is not a CUDA-aware MPI's: say which it was */
        snprintf(way, sizeof way, "GPU DDP, CUDA-aware (%s)", pr_mpi_gpu_path_name(path));
        print_ddp_time(way, t_aware, t_serial, t_omp, epochs, size);
    } else if (rank == 0) {
        printf("  CUDA-aware: SKIP (%s)\n", why);
    }

#ifdef HAVE_NCCL
#ifdef CUDA_SIM
    int mine_ok = 1, all_ok = 0; /* a simulated GPU for each rank (each a process) */
#else
    int mine_ok = ranks_on_node <= gpus_used, all_ok = 0;
#endif
    MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_ok) {
        nccl_start();
        double t_nccl = train_gpu(&r, &data, batch, epochs, seed, allreduce_nccl, params, loss);
        pr_result_double("checksum_nccl",
                         check_training("NCCL", params, loss, serial_params, serial_loss, L.count, epochs), 1e-6);
        print_ddp_time("GPU DDP, NCCL", t_nccl, t_serial, t_omp, epochs, size);
        nccl_stop();
    } else if (rank == 0) {
        printf("  NCCL: SKIP (NCCL needs a GPU of its own for every rank: %d ranks share %d GPU%s)\n",
               ranks_on_node, gpus_used, gpus_used == 1 ? "" : "s");
    }
#else
    if (rank == 0)
        printf("  NCCL: SKIP (nccl.h not found: NCCL is not installed)\n");
#endif
#ifdef CUDA_SIM
    if (rank == 0)
        printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    replica_free(&r);
    free(params), free(loss), free(serial_params), free(serial_loss), free(data.x), free(data.y);
    int status = pr_finish();
    MPI_Finalize();
    return status;
}
