/*
 * Room 06, task 4: your own ring allreduce, for the gradients of DDP.
 *
 * Task 3's DDP, with its MPI_Allreduce replaced by a ring allreduce written
 * with MPI_Sendrecv: the algorithm of room 03's task 6, now on doubles, and on
 * a gradient whose length (4H + 1 numbers) does not divide by the number of
 * ranks.  The gradient is cut into p chunks of nearly equal size (the split is
 * given).
 *
 *   reduce-scatter, p-1 steps: each rank passes one chunk on round the ring
 *     and adds the chunk it receives into its own copy; afterwards each rank
 *     holds one chunk added up over all ranks.
 *   allgather, p-1 more steps: the finished chunks travel round the ring and
 *     replace the partial ones, until every rank has every finished chunk.
 *
 *   TODO 1: the reduce-scatter phase.
 *   TODO 2: the allgather phase.
 *
 * Every step, the program also sums the same local gradients with
 * MPI_Allreduce and compares (to 1e-12: another order of additions), and
 * times both.  Checked besides: the replicas are identical on every rank (the
 * spread of a checksum over the ranks: the ring gives every rank the same
 * bits), and the training equals the serial run of task 1 to 1e-9.
 *
 * Read first: README.md, "The ring allreduce, again", "Why the replicas never drift apart".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading -o task4 task4.c -lm
 *   mpiexec -n 3 ./task4
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task4
 */
#define PR_MPI
#include "pr.h"

#define D 2               /* inputs per sample */
#define LEARNING_RATE 0.1 /* the SGD step size (for wider MLPs: see make_layout) */
#define TAG_REDUCE_SCATTER 1
#define TAG_ALLGATHER 2

/* dst[i] += src[i] for i < count.  (PR_UNUSED: the untouched task does not
 * call it yet, and the compiler would say so.) */
static PR_UNUSED void add_into(double *dst, const double *src, long count)
{
    for (long i = 0; i < count; i++)
        dst[i] += src[i];
}

/* i modulo p, always in [0, p): wrap(-1, 4) is 3 (in C, -1 % 4 is -1). */
static PR_UNUSED int wrap(int i, int p)
{
    return ((i % p) + p) % p;
}

/* The ring allreduce: on return global[] on every rank holds the element-wise
 * sum of every rank's local[] (m numbers).  global starts as all zeros; tmp
 * has room for the largest chunk; first[c] and count[c] describe chunk c. */
static void ring_allreduce(const double *local, double *global, double *tmp, long m,
                           const long *first, const long *count)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;

    //@ TODO 1: Reduce-scatter.  Start from this rank's own gradient; then p-1
    //@         steps of one MPI_Sendrecv each: pass a chunk to the next rank round
    //@         the ring, take one from the previous rank and add it into yours.
    //@         Number the chunks modulo p, as the README's schedule does, so that
    //@         each step passes on the chunk you added into one step before, and
    //@         never receive on top of numbers you still need.  Must hold after:
    //@         each rank has one chunk complete, and no two ranks the same one.
    //@ placeholder: (void)local, (void)tmp, (void)m, (void)first, (void)count; /* TODO 1 */
    //@ placeholder: (void)right, (void)left;
    //@ solution {
    memcpy(global, local, (size_t)m * sizeof *global);
    for (int s = 0; s < size - 1; s++) {
        int send_c = wrap(rank - s, size), recv_c = wrap(rank - s - 1, size);
        MPI_Sendrecv(global + first[send_c], (int)count[send_c], MPI_DOUBLE, right,
                     TAG_REDUCE_SCATTER, tmp, (int)count[recv_c], MPI_DOUBLE, left,
                     TAG_REDUCE_SCATTER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        add_into(global + first[recv_c], tmp, count[recv_c]);
    }
    //@ }

    //@ TODO 2: Allgather.  p-1 more steps round the same ring: each passes on
    //@         a complete chunk, and the one that arrives is complete too, so it
    //@         can replace the partial one in place.  Must hold at the end: every
    //@         rank has all chunks complete, with the same bits everywhere.
    //@ placeholder: (void)global; /* TODO 2: allgather */
    //@ solution {
    for (int s = 0; s < size - 1; s++) {
        int send_c = wrap(rank + 1 - s, size), recv_c = wrap(rank - s, size);
        MPI_Sendrecv(global + first[send_c], (int)count[send_c], MPI_DOUBLE, right, TAG_ALLGATHER,
                     global + first[recv_c], (int)count[recv_c], MPI_DOUBLE, left, TAG_ALLGATHER,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    //@ }
}

/* ---- no need to change below ---- */

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

/* One rank's scratch arrays and tallies. */
typedef struct {
    long *shard;                  /* this rank's samples of the current minibatch */
    double *local;                /* the shard's gradient, summed over its samples */
    double *global;               /* the sum over all ranks, from your ring */
    double *reference;            /* the same, from MPI_Allreduce */
    double *tmp;                  /* the ring's receive buffer */
    double *h;                    /* H hidden activations */
    long *first, *count;          /* the ring's chunks */
    double t_ring, t_mpi;         /* seconds in each allreduce, all steps */
    long steps;                   /* steps made so far */
    double worst_diff;            /* the largest |ring - MPI_Allreduce| / max(1, |MPI|) */
    double sse;                   /* this rank's squared errors in this epoch */
} work_t;

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

/* One DDP step (task 3's) with the sum done twice: by your ring, which the
 * update uses, and by MPI_Allreduce, to compare with. */
static void ddp_step(double *p, const layout_t *L, const dataset_t *data, const long *batch_idx,
                     long batch, work_t *w)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long m = L->count, count = 0;
    for (long b = rank; b < batch; b += size) /* the sampler of task 3 */
        w->shard[count++] = batch_idx[b];

    memset(w->local, 0, (size_t)m * sizeof(double));
    for (long b = 0; b < count; b++) {
        const double *x = data->x + w->shard[b] * D;
        double err = mlp_forward(p, L, x, w->h) - data->y[w->shard[b]];
        w->sse += err * err;
        mlp_backward(p, L, x, w->h, 2.0 * err, w->local);
    }

    memset(w->global, 0, (size_t)m * sizeof(double));
    /* The first of the two also waits for the ranks whose shards took longer:
     * take turns at going first, so that neither time gets all the waiting. */
    for (int turn = 0; turn < 2; turn++) {
        double start = MPI_Wtime();
        if ((turn + w->steps) % 2 == 0) {
            ring_allreduce(w->local, w->global, w->tmp, m, w->first, w->count);
            w->t_ring += MPI_Wtime() - start;
        } else {
            MPI_Allreduce(w->local, w->reference, (int)m, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            w->t_mpi += MPI_Wtime() - start;
        }
    }
    w->steps++;
    double diff = max_rel_diff(w->global, w->reference, m);
    if (diff > w->worst_diff || isnan(diff))
        w->worst_diff = isnan(diff) ? INFINITY : diff;

    for (long i = 0; i < m; i++) /* the mean gradient: divide by the global batch */
        p[i] -= L->lr * w->global[i] / (double)batch;
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
    double *epoch_loss; /* the mean squared error of each epoch's minibatches */
    long steps;
    double t_ring, t_mpi, worst_diff; /* DDP only, this rank's */
} run_t;

static void train(run_t *r)
{
    const layout_t *L = r->L;
    long n = r->data->n, m = L->count;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *perm = xcalloc((size_t)n, sizeof *perm);
    work_t w = { .shard = xcalloc((size_t)r->batch, sizeof(long)),
                 .local = xcalloc((size_t)m, sizeof(double)),
                 .global = xcalloc((size_t)m, sizeof(double)),
                 .reference = xcalloc((size_t)m, sizeof(double)),
                 .tmp = xcalloc((size_t)m, sizeof(double)),
                 .h = xcalloc((size_t)L->hidden, sizeof(double)),
                 .first = xcalloc(2 * (size_t)size, sizeof(long)) };
    w.count = w.first + size;
    for (int c = 0; c < size; c++) { /* the uneven split of room 03 */
        long base = m / size, extra = m % size;
        w.first[c] = c * base + (c < extra ? c : extra);
        w.count[c] = base + (c < extra ? 1 : 0);
    }
    mlp_init(r->params, L, r->seed);
    r->steps = 0;
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        double sse = 0.0;
        w.sse = 0.0;
        for (long start = 0; start < n; start += r->batch) {
            long batch = n - start < r->batch ? n - start : r->batch;
            if (r->distributed)
                ddp_step(r->params, L, r->data, perm + start, batch, &w);
            else
                sse += batch * serial_step(r->params, L, r->data, perm + start, batch, w.global,
                                           w.h);
            r->steps++;
        }
        if (r->distributed) /* the epoch's loss: one small allreduce per epoch */
            MPI_Allreduce(&w.sse, &sse, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        r->epoch_loss[epoch] = sse / (double)n;
    }
    r->t_ring = w.t_ring;
    r->t_mpi = w.t_mpi;
    r->worst_diff = w.worst_diff;
    free(perm);
    free(w.shard);
    free(w.local);
    free(w.global);
    free(w.reference);
    free(w.tmp);
    free(w.h);
    free(w.first);
}

static double checksum_of(const double *p, long count)
{
    double sum = 0.0;
    for (long i = 0; i < count; i++)
        sum += (double)(i + 1) * p[i];
    return sum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 1000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 29, 1, n);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 10, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 12, 1, 1000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    layout_t L = make_layout(hidden);
    if (rank == 0)
        printf("task4: DDP with a ring allreduce on %d rank%s, n=%ld, minibatch %ld, %d epochs,"
               " %d hidden units (%ld parameters), seed %llu\n",
               size, size == 1 ? "" : "s", n, batch, epochs, hidden, L.count,
               (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    run_t serial = { &data, &L, batch, epochs, 0, seed, xcalloc((size_t)L.count, sizeof(double)),
                     xcalloc((size_t)epochs, sizeof(double)), 0, 0, 0, 0 };
    if (rank == 0)
        train(&serial);
    run_t ddp = serial;
    ddp.distributed = 1;
    ddp.params = xcalloc((size_t)L.count, sizeof(double));
    ddp.epoch_loss = xcalloc((size_t)epochs, sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    train(&ddp);

    double checksum = checksum_of(ddp.params, L.count), highest, lowest;
    MPI_Allreduce(&checksum, &highest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&checksum, &lowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    double spread = (highest - lowest) / (fabs(highest) > 1.0 ? fabs(highest) : 1.0);
    double mine[3] = { ddp.t_ring, ddp.t_mpi, ddp.worst_diff }, most[3];
    MPI_Allreduce(mine, most, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("  %7s %18s %18s\n", "epoch", "serial loss", "DDP (ring) loss");
        int every = epochs >= 10 ? epochs / 10 : 1;
        for (int e = 0; e < epochs; e++)
            if ((e + 1) % every == 0 || e == 0)
                printf("  %7d %18.12f %18.12f\n", e + 1, serial.epoch_loss[e], ddp.epoch_loss[e]);
        const double tol = 1e-9, ring_tol = 1e-12;
        double worst_loss = max_rel_diff(ddp.epoch_loss, serial.epoch_loss, epochs);
        double worst_param = max_rel_diff(ddp.params, serial.params, L.count);
        int matches = worst_loss <= tol && worst_param <= tol;
        printf("  largest |ring - MPI_Allreduce| over %ld steps (relative): %.3g (allowed %g)\n",
               ddp.steps, most[2], ring_tol);
        printf("  checksum of the parameters: max %.17g, min %.17g over the ranks\n", highest,
               lowest);
        printf("  largest difference from the serial run: losses %.3g, parameters %.3g"
               " (allowed %g)\n",
               worst_loss, worst_param, tol);
        pr_check_int("ring equals MPI_Allreduce", most[2] <= ring_tol, 1);
        pr_check_double("replica spread (relative)", spread, 0.0, 1e-12);
        pr_check_double("final loss (DDP vs serial)", ddp.epoch_loss[epochs - 1],
                        serial.epoch_loss[epochs - 1], tol);
        pr_check_double("checksum (DDP vs serial)", checksum, checksum_of(serial.params, L.count),
                        tol);
        pr_check_int("every loss, parameter equal", matches, 1);
        pr_result_int("ring_equals_mpi", most[2] <= ring_tol);
        pr_result_int("replicas_identical", spread <= 1e-12);
        pr_result_double("final_loss", ddp.epoch_loss[epochs - 1], 1e-6);
        pr_result_double("checksum", checksum, 1e-6);
        pr_result_int("matches_serial", matches);
        printf("  per step, %ld doubles (%ld bytes), the slowest rank's mean:\n", L.count,
               L.count * (long)sizeof(double));
        printf("    MPI_Allreduce        %10.1f us\n", 1e6 * most[1] / ddp.steps);
        printf("    your ring allreduce  %10.1f us   (%.2fx the time of MPI_Allreduce)\n",
               1e6 * most[0] / ddp.steps, most[1] > 0 ? most[0] / most[1] : 0.0);
        if (size > 1)
            printf("    the ring: 2(p-1) = %d messages of about m/p = %ld doubles per rank"
                   " and step\n",
                   2 * (size - 1), (L.count + size - 1) / size);
    }

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
