/*
 * Room 06, task 3: distributed data parallel (DDP) with MPI -- no coordinator.
 *
 * The MLP of task 1 again, now trained by p MPI ranks, the way PyTorch's
 * DistributedDataParallel does it.  Every rank holds a full replica of the
 * model and the whole (small) data set, and for every minibatch:
 *
 *   1. the distributed sampler gives it its own shard of the minibatch: every
 *      rank shuffles the data with the same seed, so all agree on the
 *      minibatch without a message, and each picks its part by its rank;
 *   2. forward and backward on its shard: a gradient summed over its samples;
 *   3. one MPI_Allreduce adds up these sums, and every rank turns the total
 *      into the minibatch's mean gradient;
 *   4. every rank makes the same SGD update on its own replica.
 *
 * Nobody gathers outputs, computes the loss for the others or sends the model
 * around: the only message is the gradient, and every rank ends the step with
 * the same parameters.
 *
 *   TODO 1: the sampler: this rank's shard of a minibatch.
 *   TODO 2: the gradient summed over all ranks, then made a mean.
 *
 * Checked: that the shards cover a minibatch exactly once; that the replicas
 * are identical on every rank (a checksum of the parameters, its MAX and MIN
 * over the ranks: the spread must be 0, to 1e-12); and that the training
 * equals the serial run of task 1 (rank 0 runs it too) to 1e-9: the loss of
 * every epoch and the final parameters.  Then the time per epoch and the
 * parallel efficiency t_serial / (p * t_parallel).
 *
 * Read first: README.md, "Data parallelism: split the minibatch, add the gradients", "DDP: equal ranks and one allreduce", "Why the replicas never drift apart".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading -o task3 task3.c -lm
 *   mpiexec -n 2 ./task3
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task3
 */
#define PR_MPI
#include "pr.h"

#define D 2               /* inputs per sample */
#define LEARNING_RATE 0.1 /* the SGD step size (for wider MLPs: see make_layout) */

/* The parameters, in one flat array (as in task 1):
 *     [ W1 (H x D) | b1 (H) | W2 (H) | b2 (1) ]     W1[j][k] is p[j * D + k]. */
typedef struct {
    int hidden; /* H */
    long b1, w2, b2;
    long count; /* H*D + H + H + 1 numbers in all */
    double lr;  /* the MLP's SGD step size */
} layout_t;

typedef struct {
    long n;
    double *x; /* n x D, row-major */
    double *y; /* n */
} dataset_t;

/* The scratch arrays of one rank's training. */
typedef struct {
    long *shard;   /* this rank's samples of the current minibatch */
    double *local; /* count + 1: the shard's gradient sum, then its squared-error sum */
    double *grad;  /* count + 1: the same, summed over all ranks */
    double *h;     /* H hidden activations */
} work_t;

static double mlp_forward(const double *p, const layout_t *L, const double *x, double *h);
static void mlp_backward(const double *p, const layout_t *L, const double *x, const double *h,
                         double dout, double *grad);

/* The distributed sampler: stores in shard[] this rank's samples of the
 * minibatch batch_idx[0..batch-1] and returns how many there are. */
static long my_shard(const long *batch_idx, long batch, int rank, int size, long *shard)
{
    // TODO 1: The distributed sampler, with no message: fill the shard with
    //         this rank's samples of the minibatch, as the README's strided
    //         scheme assigns them, and return how many there are.  Over all
    //         ranks, every sample of the minibatch must land in exactly one
    //         shard; with more ranks than samples some shards stay empty.
    (void)batch_idx, (void)batch, (void)rank, (void)size, (void)shard;
    long count = 0; /* TODO 1: this rank's shard */
    return count;
}

/* One DDP step on the minibatch batch_idx[0..batch-1], on every rank; returns
 * the minibatch's loss (the same on every rank). */
static double ddp_step(double *p, const layout_t *L, const dataset_t *data, const long *batch_idx,
                       long batch, work_t *w)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long count = my_shard(batch_idx, batch, rank, size, w->shard);

    /* Forward and backward on the shard.  local[] is a SUM over the shard's
     * samples (dL/dyhat = 2 (yhat - y), not yet divided by anything), and
     * local[L->count] the sum of the squared errors: one more number in the
     * same message is cheaper than a second allreduce for the loss. */
    memset(w->local, 0, (size_t)(L->count + 1) * sizeof(double));
    for (long b = 0; b < count; b++) {
        const double *x = data->x + w->shard[b] * D;
        double err = mlp_forward(p, L, x, w->h) - data->y[w->shard[b]];
        w->local[L->count] += err * err;
        mlp_backward(p, L, x, w->h, 2.0 * err, w->local);
    }

    memset(w->grad, 0, (size_t)(L->count + 1) * sizeof(double));
    // TODO 2: Every rank must end with the same numbers: the shards' sums
    //         (gradient and squared errors together) added up over all ranks
    //         with one MPI_Allreduce, then turned into the minibatch's mean.
    //         Think about what to divide by: the shards differ in size, and
    //         the result must equal the serial run's gradient and loss.
    (void)batch; /* TODO 2: the sum over the ranks, then the mean */

    /* The same update on every rank: same parameters, same gradient. */
    for (long i = 0; i < L->count; i++)
        p[i] -= L->lr * w->grad[i];
    return w->grad[L->count];
}

/* ---- no need to change below ---- */

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
    layout_t L = { .hidden = hidden };
    L.b1 = (long)hidden * D;
    L.w2 = L.b1 + hidden;
    L.b2 = L.w2 + hidden;
    L.count = L.b2 + 1;
    /* A step moves yhat by about lr * H * dout through the H output weights,
     * so wider layers need smaller steps, or training diverges. */
    L.lr = hidden <= 12 ? LEARNING_RATE : LEARNING_RATE * 12.0 / hidden;
    return L;
}

/* The MLP of task 1: forward and backward for one sample. */
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

static double target_fn(const double *x)
{
    return sin(2.0 * x[0]) + 0.5 * x[0] * x[1];
}

/* Every rank makes the whole data set from the seed: the same on all. */
static dataset_t make_dataset(long n, uint64_t seed)
{
    dataset_t data = { n, xcalloc((size_t)n * D, sizeof(double)),
                       xcalloc((size_t)n, sizeof(double)) };
    pr_rng rng = pr_rng_seed(seed, 1);
    for (long i = 0; i < n; i++) {
        double *x = data.x + i * D;
        for (int k = 0; k < D; k++)
            x[k] = pr_rng_double(&rng, -1.5, 1.5);
        data.y[i] = target_fn(x) + 0.05 * pr_rng_double(&rng, -1.0, 1.0);
    }
    return data;
}

/* The same initial model on every rank: same seed, same numbers. */
static void mlp_init(double *p, const layout_t *L, uint64_t seed)
{
    pr_rng rng = pr_rng_seed(seed, 2);
    memset(p, 0, (size_t)L->count * sizeof *p);
    for (long i = 0; i < L->b1; i++)
        p[i] = pr_rng_double(&rng, -1.0, 1.0);
    for (int j = 0; j < L->hidden; j++)
        p[L->w2 + j] = pr_rng_double(&rng, -1.0, 1.0) / sqrt((double)L->hidden);
}

/* The epoch's order, the same on every rank (seeded by the epoch, as
 * PyTorch's DistributedSampler.set_epoch does). */
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

/* The serial baseline's step (task 1); returns the minibatch's loss. */
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

typedef struct {
    const dataset_t *data;
    const layout_t *L;
    long batch;
    int epochs, distributed; /* 0: the serial baseline, on this rank alone */
    uint64_t seed;
    double *params;     /* the trained model */
    double *epoch_loss; /* the mean minibatch loss of each epoch, weighted by size */
} run_t;

/* Trains for r->epochs epochs, serially or with DDP, on the same minibatches. */
static void train(run_t *r)
{
    const layout_t *L = r->L;
    long n = r->data->n;
    long *perm = xcalloc((size_t)n, sizeof *perm);
    work_t w = { xcalloc((size_t)r->batch, sizeof(long)),
                 xcalloc((size_t)L->count + 1, sizeof(double)),
                 xcalloc((size_t)L->count + 1, sizeof(double)),
                 xcalloc((size_t)L->hidden, sizeof(double)) };
    mlp_init(r->params, L, r->seed);
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        double loss_sum = 0.0;
        for (long start = 0; start < n; start += r->batch) {
            long batch = n - start < r->batch ? n - start : r->batch;
            double loss;
            if (r->distributed)
                loss = ddp_step(r->params, L, r->data, perm + start, batch, &w);
            else
                loss = serial_step(r->params, L, r->data, perm + start, batch, w.grad, w.h);
            loss_sum += loss * (double)batch;
        }
        r->epoch_loss[epoch] = loss_sum / (double)n;
    }
    free(perm);
    free(w.shard);
    free(w.local);
    free(w.grad);
    free(w.h);
}

/* A barrier that waits without spinning (see room 03): while rank 0 times
 * the serial run, the other ranks sleep here and leave it a core. */
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

/* Checks on all ranks together that the shards of the minibatch idx[0..batch-1]
 * hold each of its samples exactly once: every rank counts its shard's samples
 * per index, and MPI_Allreduce adds the counts.  Returns 1 when they do. */
static int shards_cover(const long *idx, long batch, long n)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *shard = xcalloc((size_t)batch, sizeof *shard);
    int *mine = xcalloc((size_t)n, sizeof *mine), *all = xcalloc((size_t)n, sizeof *all);
    long count = my_shard(idx, batch, rank, size, shard);
    for (long b = 0; b < count && b < batch; b++)
        if (shard[b] >= 0 && shard[b] < n)
            mine[shard[b]]++;
    MPI_Allreduce(mine, all, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (long b = 0; b < batch; b++)
        all[idx[b]]--; /* every sample of the minibatch once: all zeros now */
    int ok = 1;
    for (long i = 0; i < n; i++)
        ok = ok && all[i] == 0;
    free(shard);
    free(mine);
    free(all);
    return ok;
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 1000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 29, 1, n);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 20, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 12, 1, 1000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    layout_t L = make_layout(hidden);
    if (rank == 0)
        printf("task3: DDP on %d rank%s, n=%ld, minibatch %ld, %d epochs, %d hidden units"
               " (%ld parameters), seed %llu\n",
               size, size == 1 ? "" : "s", n, batch, epochs, hidden, L.count,
               (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    /* The sampler on the first and on the last (smallest) minibatch of epoch 0. */
    long *perm = xcalloc((size_t)n, sizeof *perm);
    shuffle(perm, n, seed, 0);
    long last_start = (n - 1) / batch * batch;
    int covered = shards_cover(perm, batch, n) & shards_cover(perm + last_start, n - last_start, n);

    /* The serial baseline, on rank 0 alone, timed while the others sleep. */
    run_t serial = { &data, &L, batch, epochs, 0, seed, xcalloc((size_t)L.count, sizeof(double)),
                     xcalloc((size_t)epochs, sizeof(double)) };
    double t_serial = 0.0;
    if (rank == 0) {
        double start = pr_now();
        train(&serial);
        t_serial = pr_now() - start;
    }
    quiet_barrier();

    run_t ddp = serial;
    ddp.distributed = 1;
    ddp.params = xcalloc((size_t)L.count, sizeof(double));
    ddp.epoch_loss = xcalloc((size_t)epochs, sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    train(&ddp);
    double mine = MPI_Wtime() - start, t_ddp;
    MPI_Allreduce(&mine, &t_ddp, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    /* Identical replicas: the checksum's spread over the ranks. */
    double checksum = checksum_of(ddp.params, L.count), highest, lowest;
    MPI_Allreduce(&checksum, &highest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&checksum, &lowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    double spread = (highest - lowest) / (fabs(highest) > 1.0 ? fabs(highest) : 1.0);

    if (rank == 0) {
        printf("  %7s %18s %18s\n", "epoch", "serial loss", "DDP loss");
        int every = epochs >= 10 ? epochs / 10 : 1;
        for (int e = 0; e < epochs; e++)
            if ((e + 1) % every == 0 || e == 0)
                printf("  %7d %18.12f %18.12f\n", e + 1, serial.epoch_loss[e], ddp.epoch_loss[e]);
        const double tol = 1e-9; /* other orders of additions: ~1e-16 in practice */
        double worst_loss = max_rel_diff(ddp.epoch_loss, serial.epoch_loss, epochs);
        double worst_param = max_rel_diff(ddp.params, serial.params, L.count);
        int matches = worst_loss <= tol && worst_param <= tol;
        printf("  checksum of the parameters: max %.17g, min %.17g over the ranks\n", highest,
               lowest);
        printf("  largest difference from the serial run: losses %.3g, parameters %.3g"
               " (allowed %g)\n",
               worst_loss, worst_param, tol);
        pr_check_int("shards cover each minibatch", covered, 1);
        pr_check_double("replica spread (relative)", spread, 0.0, 1e-12);
        pr_check_double("final loss (DDP vs serial)", ddp.epoch_loss[epochs - 1],
                        serial.epoch_loss[epochs - 1], tol);
        pr_check_double("checksum (DDP vs serial)", checksum, checksum_of(serial.params, L.count),
                        tol);
        pr_check_int("every loss, parameter equal", matches, 1);
        pr_result_int("shards_cover", covered);
        pr_result_int("replicas_identical", spread <= 1e-12);
        pr_result_double("final_loss", ddp.epoch_loss[epochs - 1], 1e-6);
        pr_result_double("checksum", checksum, 1e-6);
        pr_result_int("matches_serial", matches);

        pr_print_time("serial, per epoch", t_serial / epochs, 0, NULL);
        char what[64];
        snprintf(what, sizeof what, "DDP, %d rank%s, per epoch", size, size == 1 ? "" : "s");
        pr_print_time(what, t_ddp / epochs, t_serial / epochs, "serial");
        printf("  parallel efficiency t_serial / (p * t_DDP) = %.3f with p = %d\n",
               t_serial / (size * t_ddp), size);
    }

    free(perm);
    free(serial.params);
    free(serial.epoch_loss);
    free(ddp.params);
    free(ddp.epoch_loss);
    free(data.x);
    free(data.y);
    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
