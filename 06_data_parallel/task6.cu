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
 * Read first: README.md, "DDP: equal ranks and one allreduce", "Why the replicas never drift apart", "Task 6: DDP on GPUs".
 *
 * Training runs with the staged allreduce always, and again with NCCL where it
 * can run (a real GPU per rank and NCCL installed); in the CUDA CPU simulator
 * NCCL says SKIP.  Each is checked against the serial run (rank 0 runs it on
 * the CPU): every epoch's loss and the final parameters to 1e-9, and the
 * replicas against each other (a checksum, its spread over the ranks).
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -ccbin mpicxx -O2 -arch=native -I../grading -o task6 task6.cu -lnccl
 *              (-lnccl wherever NCCL is installed; without NCCL leave it out: NCCL says SKIP)
 *   anywhere:  ../grading/simcc -ccbin mpicxx -O2 -I../grading -o task6 task6.cu
 *   mpiexec -n 2 ./task6 n=100003 batch=4096 epochs=5 hidden=32
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task6
 */
#define PR_MPI
#include "pr.h"

#include <cuda_runtime.h>

/* NCCL where it is installed and this is a real GPU build. */
#if !defined(CUDA_SIM) && defined(__has_include)
#if __has_include(<nccl.h>)
#include <nccl.h>
#define HAVE_NCCL 1
#endif
#endif

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorString(e_));                                         \
            MPI_Abort(MPI_COMM_WORLD, 1);                                            \
        }                                                                            \
    } while (0)

#define D 2               /* inputs per sample */
#define LEARNING_RATE 0.1 /* the SGD step size (for wider MLPs: see make_layout) */
#define MAX_HIDDEN 64     /* a kernel thread keeps its hidden layer in registers */
#define TPB 128           /* threads per block */

/* The parameters in one flat array, as in tasks 1-5:
 *     [ W1 (H x D) | b1 (H) | W2 (H) | b2 (1) ]     W1[j][k] is p[j * D + k].
 * A gradient row has one more number: the sample's squared error. */
typedef struct {
    int hidden; /* H */
    long b1, w2, b2;
    long count; /* H*D + H + H + 1 parameters */
    double lr;  /* the MLP's SGD step size */
} layout_t;

/* Step 2: thread b runs sample shard[b] forward and backward, and writes its
 * gradient (dL/dyhat = 2 (yhat - y), not divided by anything yet) and its
 * squared error into row b of G (L.count + 1 numbers per row). */
__global__ void per_sample_grad(const double *p, layout_t L, const double *x, const double *y,
                                const long *shard, long count, double *G)
{
    long b = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= count)
        return;
    const double *xs = x + shard[b] * D;
    double h[MAX_HIDDEN];
    double out = p[L.b2];
    for (int j = 0; j < L.hidden; j++) {
        double z = p[L.b1 + j];
        for (int k = 0; k < D; k++)
            z += p[j * D + k] * xs[k];
        h[j] = tanh(z);
        out += p[L.w2 + j] * h[j];
    }
    double err = out - y[shard[b]];
    double dout = 2.0 * err;
    double *g = G + b * (L.count + 1);
    g[L.b2] = dout;
    for (int j = 0; j < L.hidden; j++) {
        g[L.w2 + j] = dout * h[j];
        double dz = dout * p[L.w2 + j] * (1.0 - h[j] * h[j]);
        g[L.b1 + j] = dz;
        for (int k = 0; k < D; k++)
            g[j * D + k] = dz * xs[k];
    }
    g[L.count] = err * err;
}

/* Step 3: local[i] = G[0][i] + G[1][i] + ... + G[count-1][i] for the `width`
 * columns i of G (rows of `width` numbers). */
__global__ void sum_columns(const double *G, long count, long width, double *local)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    // TODO 1: This thread owns one column of G: its total over the shard's
    //         rows goes to the column's place in the output.  Add the rows in
    //         row order, always the same, so the bits never depend on how the
    //         GPU schedules threads.  Threads past the last column do nothing,
    //         and an empty shard gives zeros.
    (void)G, (void)count, (void)width, (void)local, (void)&i; /* TODO 1 */
}

/* Staged: grad (width doubles on the GPU) becomes the sum over all ranks of
 * local (width doubles on the GPU), through the pinned host buffer host. */
static void allreduce_staged(const double *local, double *grad, double *host, long width)
{
    // TODO 2: Room 05's staged allreduce: the device array's totals over
    //         all ranks must end up in the other device array, travelling
    //         through the pinned buffer in CPU memory and one MPI_Allreduce.
    //         Check every CUDA call's error with the macro above.
    (void)local, (void)grad, (void)host, (void)width; /* TODO 2 */
}

/* ---- no need to change below ---- */

/* Step 5: the same update on every rank; grad holds sums over the minibatch. */
__global__ void sgd_update(double *p, const double *grad, long count, long batch, double lr)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        p[i] -= lr * (grad[i] / (double)batch);
}

typedef struct {
    long n;
    double *x; /* n x D, row-major */
    double *y; /* n */
} dataset_t;

static void *xcalloc(size_t count, size_t each)
{
    void *p = calloc(count ? count : 1, each);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static layout_t make_layout(int hidden)
{
    layout_t L;
    L.hidden = hidden;
    L.b1 = (long)hidden * D;
    L.w2 = L.b1 + hidden;
    L.b2 = L.w2 + hidden;
    L.count = L.b2 + 1;
    /* As in tasks 1-5: wider layers need smaller steps, or training diverges. */
    L.lr = hidden <= 12 ? LEARNING_RATE : LEARNING_RATE * 12.0 / hidden;
    return L;
}

/* The data set, the initial model, the epoch's order: exactly as in task 3. */
static double target_fn(const double *x)
{
    return sin(2.0 * x[0]) + 0.5 * x[0] * x[1];
}

static dataset_t make_dataset(long n, uint64_t seed)
{
    dataset_t data = { n, (double *)xcalloc((size_t)n * D, sizeof(double)),
                       (double *)xcalloc((size_t)n, sizeof(double)) };
    pr_rng rng = pr_rng_seed(seed, 1);
    for (long i = 0; i < n; i++) {
        double *x = data.x + i * D;
        for (int k = 0; k < D; k++)
            x[k] = pr_rng_double(&rng, -1.5, 1.5);
        data.y[i] = target_fn(x) + 0.05 * pr_rng_double(&rng, -1.0, 1.0);
    }
    return data;
}

static void mlp_init(double *p, const layout_t *L, uint64_t seed)
{
    pr_rng rng = pr_rng_seed(seed, 2);
    memset(p, 0, (size_t)L->count * sizeof *p);
    for (long i = 0; i < L->b1; i++)
        p[i] = pr_rng_double(&rng, -1.0, 1.0);
    for (int j = 0; j < L->hidden; j++)
        p[L->w2 + j] = pr_rng_double(&rng, -1.0, 1.0) / sqrt((double)L->hidden);
}

static void shuffle(long *perm, long n, uint64_t seed, int epoch)
{
    pr_rng rng = pr_rng_seed(seed, 1000 + (uint64_t)epoch);
    for (long i = 0; i < n; i++)
        perm[i] = i;
    for (long i = n - 1; i > 0; i--) {
        long j = (long)pr_rng_range(&rng, 0, i);
        long t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* The serial baseline on the CPU (task 1): forward, backward, update. */
static double mlp_forward(const double *p, const layout_t *L, const double *x, double *h)
{
    double out = p[L->b2];
    for (int j = 0; j < L->hidden; j++) {
        double z = p[L->b1 + j];
        for (int k = 0; k < D; k++)
            z += p[j * D + k] * x[k];
        h[j] = tanh(z);
        out += p[L->w2 + j] * h[j];
    }
    return out;
}

static void mlp_backward(const double *p, const layout_t *L, const double *x, const double *h,
                         double dout, double *grad)
{
    grad[L->b2] += dout;
    for (int j = 0; j < L->hidden; j++) {
        grad[L->w2 + j] += dout * h[j];
        double dz = dout * p[L->w2 + j] * (1.0 - h[j] * h[j]);
        grad[L->b1 + j] += dz;
        for (int k = 0; k < D; k++)
            grad[j * D + k] += dz * x[k];
    }
}

static double serial_step(double *p, const layout_t *L, const dataset_t *data, const long *idx,
                          long batch, double *grad, double *h)
{
    double sse = 0.0;
    memset(grad, 0, (size_t)L->count * sizeof *grad);
    for (long b = 0; b < batch; b++) {
        const double *x = data->x + idx[b] * D;
        double err = mlp_forward(p, L, x, h) - data->y[idx[b]];
        sse += err * err;
        mlp_backward(p, L, x, h, 2.0 * err / (double)batch, grad);
    }
    for (long i = 0; i < L->count; i++)
        p[i] -= L->lr * grad[i];
    return sse / (double)batch;
}

static void train_serial(const dataset_t *data, const layout_t *L, long batch, int epochs,
                         uint64_t seed, double *params, double *epoch_loss)
{
    long *perm = (long *)xcalloc((size_t)data->n, sizeof(long));
    double *grad = (double *)xcalloc((size_t)L->count, sizeof(double));
    double *h = (double *)xcalloc((size_t)L->hidden, sizeof(double));
    mlp_init(params, L, seed);
    for (int epoch = 0; epoch < epochs; epoch++) {
        shuffle(perm, data->n, seed, epoch);
        double loss_sum = 0.0;
        for (long start = 0; start < data->n; start += batch) {
            long size = data->n - start < batch ? data->n - start : batch;
            loss_sum += serial_step(params, L, data, perm + start, size, grad, h) * (double)size;
        }
        epoch_loss[epoch] = loss_sum / (double)data->n;
    }
    free(perm);
    free(grad);
    free(h);
}

/* The distributed sampler of task 3: positions rank, rank + p, ... of the minibatch. */
static long my_shard(const long *batch_idx, long batch, int rank, int size, long *shard)
{
    long count = 0;
    for (long b = rank; b < batch; b += size)
        shard[count++] = batch_idx[b];
    return count;
}

typedef void (*allreduce_fn)(const double *local, double *grad, double *host, long width);

#ifdef HAVE_NCCL
static ncclComm_t nccl_comm;
static cudaStream_t nccl_stream;

#define NCCL_CHECK(call)                                                             \
    do {                                                                             \
        ncclResult_t r_ = (call);                                                    \
        if (r_ != ncclSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
                    ncclGetErrorString(r_));                                         \
            MPI_Abort(MPI_COMM_WORLD, 1);                                            \
        }                                                                            \
    } while (0)

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

/* Device to device, no host copy: NCCL's kernels move the data themselves. */
static void allreduce_nccl(const double *local, double *grad, double *host, long width)
{
    (void)host;
    NCCL_CHECK(ncclAllReduce(local, grad, (size_t)width, ncclDouble, ncclSum, nccl_comm, nccl_stream));
    CHECK(cudaStreamSynchronize(nccl_stream));
}

static void nccl_stop(void)
{
    NCCL_CHECK(ncclCommDestroy(nccl_comm));
    CHECK(cudaStreamDestroy(nccl_stream));
}
#endif

/* What a rank holds on its GPU, and its pinned staging buffer. */
typedef struct {
    layout_t L;
    double *p, *x, *y;     /* the replica; the whole data set */
    long *shard;           /* this step's shard (indices), batch of them at most */
    double *G;             /* batch x (count + 1) per-sample gradients */
    double *local, *grad;  /* count + 1: the shard's sums; the minibatch's sums */
    double *host;          /* count + 1, pinned */
    long *shard_host;      /* batch, pinned */
} replica_t;

static void replica_init(replica_t *r, const layout_t *L, const dataset_t *data, long batch)
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

static void replica_free(replica_t *r)
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
    long width = r->L.count + 1;
    long count = my_shard(batch_idx, batch, rank, size, r->shard_host);
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

static double checksum_of(const double *p, long count)
{
    double sum = 0.0;
    for (long i = 0; i < count; i++)
        sum += (double)(i + 1) * p[i];
    return sum;
}

/* The largest |a[i] - b[i]| / max(1, |b[i]|): 0 when a equals b. */
static double max_rel_diff(const double *a, const double *b, long count)
{
    double worst = 0.0;
    for (long i = 0; i < count; i++) {
        double scale = fabs(b[i]) > 1.0 ? fabs(b[i]) : 1.0;
        double d = fabs(a[i] - b[i]) / scale;
        if (d > worst || isnan(d))
            worst = isnan(d) ? INFINITY : d;
    }
    return worst;
}

/* A barrier that waits without spinning (room 03): while rank 0 times the
 * serial run, the other ranks sleep here and leave it a core. */
static void quiet_barrier(void)
{
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        struct timespec ts = { 0, 200000 }; /* 0.2 ms */
        nanosleep(&ts, NULL);
    }
}

/* Ranks on this node, the GPU this rank uses (round-robin over the GPUs it sees), and
 * how many different GPUs the node's ranks use.  Device numbers cannot tell that: a
 * scheduler that shows each rank only its own GPU makes it "device 0" in every rank.
 * The GPU's PCI address can, so the node's ranks compare theirs. */
static int pick_gpu(int *ranks_on_node, int *gpus_used)
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
    int *all = (int *)malloc((size_t)*ranks_on_node * sizeof mine);
    if (!all) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, node);
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

/* Compares one way's training with the serial run (rank 0 prints) and checks
 * that the replicas agree (all ranks).  Returns the checksum. */
static double check_training(const char *way, const double *params, const double *loss,
                             const double *serial_params, const double *serial_loss, long count,
                             int epochs)
{
    double checksum = checksum_of(params, count), highest, lowest;
    MPI_Allreduce(&checksum, &highest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&checksum, &lowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    double spread = (highest - lowest) / (fabs(highest) > 1.0 ? fabs(highest) : 1.0);
    if (pr_rank() == 0) {
        const double tol = 1e-9; /* other orders of additions, the GPU's tanh: ~1e-15 in practice */
        double worst_loss = max_rel_diff(loss, serial_loss, epochs);
        double worst_param = max_rel_diff(params, serial_params, count);
        printf("  %s: largest difference from the serial run: losses %.3g, parameters %.3g (allowed %g)\n",
               way, worst_loss, worst_param, tol);
        char what[80];
        snprintf(what, sizeof what, "replica spread (%s)", way);
        pr_check_double(what, spread, 0.0, 1e-12);
        snprintf(what, sizeof what, "final loss (%s)", way);
        pr_check_double(what, loss[epochs - 1], serial_loss[epochs - 1], tol);
        snprintf(what, sizeof what, "checksum (%s)", way);
        pr_check_double(what, checksum, checksum_of(serial_params, count), tol);
        snprintf(what, sizeof what, "every loss, parameter (%s)", way);
        pr_check_int(what, worst_loss <= tol && worst_param <= tol, 1);
    }
    return checksum;
}

static void print_time(const char *way, double t, double t_serial, int epochs, int size)
{
    char what[80];
    snprintf(what, sizeof what, "%s / epoch", way);
    pr_print_time(what, t / epochs, t_serial / epochs, "serial CPU");
    if (pr_rank() == 0)
        printf("       parallel efficiency t_serial / (p * t) = %.3f with p = %d\n", t_serial / (size * t),
               size);
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
    double t_serial = 0.0;
    if (rank == 0) {
        double start = pr_now();
        train_serial(&data, &L, batch, epochs, seed, serial_params, serial_loss);
        t_serial = pr_now() - start;
    }
    quiet_barrier();
    MPI_Bcast(serial_params, (int)L.count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(serial_loss, epochs, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    replica_t r;
    replica_init(&r, &L, &data, batch);
    double *params = (double *)xcalloc((size_t)L.count, sizeof(double));
    double *loss = (double *)xcalloc((size_t)epochs, sizeof(double));

    double t_staged = train_gpu(&r, &data, batch, epochs, seed, allreduce_staged, params, loss);
    if (rank == 0) {
        printf("  %7s %18s %18s\n", "epoch", "serial loss", "GPU DDP loss");
        int every = epochs >= 10 ? epochs / 10 : 1;
        for (int e = 0; e < epochs; e++)
            if ((e + 1) % every == 0 || e == 0)
                printf("  %7d %18.12f %18.12f\n", e + 1, serial_loss[e], loss[e]);
    }
    double checksum = check_training("staged", params, loss, serial_params, serial_loss, L.count, epochs);
    pr_result_double("final_loss", loss[epochs - 1], 1e-6);
    pr_result_double("checksum", checksum, 1e-6);
    pr_print_time("serial CPU / epoch", t_serial / epochs, 0, NULL);
    print_time("GPU DDP, staged", t_staged, t_serial, epochs, size);

#ifdef HAVE_NCCL
    int mine_ok = ranks_on_node <= gpus_used, all_ok = 0;
    MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_ok) {
        nccl_start();
        double t_nccl = train_gpu(&r, &data, batch, epochs, seed, allreduce_nccl, params, loss);
        check_training("NCCL", params, loss, serial_params, serial_loss, L.count, epochs);
        print_time("GPU DDP, NCCL", t_nccl, t_serial, epochs, size);
        nccl_stop();
    } else if (rank == 0) {
        printf("  NCCL: SKIP (NCCL needs a GPU of its own for every rank: %d ranks share %d GPU%s)\n",
               ranks_on_node, gpus_used, gpus_used == 1 ? "" : "s");
    }
#elif defined(CUDA_SIM)
    if (rank == 0)
        printf("  NCCL: SKIP (the CUDA CPU simulator has no NCCL; the staged MPI allreduce stood in)\n");
#else
    if (rank == 0)
        printf("  NCCL: SKIP (nccl.h not found: NCCL is not installed)\n");
#endif
#ifdef CUDA_SIM
    if (rank == 0)
        printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    replica_free(&r);
    free(params);
    free(loss);
    free(serial_params);
    free(serial_loss);
    free(data.x);
    free(data.y);
    int status = pr_finish();
    MPI_Finalize();
    return status;
}
