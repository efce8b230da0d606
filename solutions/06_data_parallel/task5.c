/*
 * Room 06, task 5: gradient buckets -- overlap the allreduce with the backward pass.
 *
 * In tasks 3 and 4 every rank finished its whole backward pass, then sent
 * the gradient: while the network was busy, the cores were idle, and while
 * the cores were busy, the network was idle.  But the backward pass produces
 * the gradient layer by layer, the LAST layer first: its gradients are final
 * long before the first layer's.  PyTorch's DDP packs the gradients into
 * buckets and starts a non-blocking allreduce on each bucket as soon as it is
 * ready, while the backward pass goes on; before the update it waits for all.
 *
 * Here the buckets are the MLP's two layers:
 *
 *     bucket 0 = the output layer [ W2 | b2 ]   ready first
 *     bucket 1 = the hidden layer [ W1 | b1 ]   ready last (and the bigger job)
 *
 *   TODO 1: when a bucket is ready, start MPI_Iallreduce on it.
 *   TODO 2: wait for every bucket's allreduce before the update.
 *
 * The program trains the model twice on every rank: the plain way (the whole
 * backward pass, then one MPI_Allreduce, as in task 3) and with your buckets.
 * Checked: both give the same parameters (to 1e-9: MPI may add up in another
 * order), the replicas are identical on every rank, and the same losses.  Then
 * the time per step of each and the time spent waiting for communication;
 * with tiny messages on an oversubscribed laptop expect no gain at all, and
 * the program says so.
 *
 * Read first: README.md, "DDP: equal ranks and one allreduce", "Gradient buckets: overlapping communication with the backward pass".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading -o task5 task5.c -lm
 *   mpiexec -n 2 ./task5 hidden=400 n=4001 batch=501
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task5
 */
#define PR_MPI
#include "pr.h"

#include <unistd.h> /* sysconf: the number of cores */

#define D 2               /* inputs per sample */
#define LEARNING_RATE 0.1 /* the SGD step size (for wider MLPs: see make_layout) */
#define BUCKETS 2

/* One bucket: the gradients local[first .. first + count - 1], summed over the
 * ranks into the same place of global[]. */
typedef struct {
    long first, count;
} bucket_t;

/* One rank's scratch arrays for the bucketed step. */
typedef struct {
    double *local;  /* this rank's gradient, summed over its shard */
    double *global; /* the sum over all ranks */
    bucket_t bucket[BUCKETS];
    MPI_Request req[BUCKETS]; /* req[k]: bucket k's allreduce, once started */
    double t_wait;            /* seconds spent waiting for the buckets' allreduces */
} buckets_t;

/* Called by the backward pass as soon as bucket k's gradients in local[] are
 * final: starts summing them over the ranks, without waiting. */
static void bucket_ready(buckets_t *bk, int k)
{
    bucket_t *b = &bk->bucket[k];
    //@ TODO 1: Start adding up this bucket's gradients over the ranks and
    //@         return at once (MPI_Iallreduce): this bucket's piece only, into
    //@         the same place of the result array, and keep the request where
    //@         the wait below will find it.  Until that wait, neither buffer
    //@         may be read or written.
    //@ placeholder: (void)b; /* TODO 1: start this bucket's allreduce */
    //@ solution {
    MPI_Iallreduce(bk->local + b->first, bk->global + b->first, (int)b->count, MPI_DOUBLE, MPI_SUM,
                   MPI_COMM_WORLD, &bk->req[k]);
    //@ }
}

/* Called before the update: every bucket's sums must have arrived. */
static void wait_for_buckets(buckets_t *bk)
{
    double start = MPI_Wtime();
    MPI_Status status[BUCKETS];
    //@ TODO 2: Return only when every bucket's allreduce has completed, with
    //@         one MPI_Waitall (a request never started is MPI_REQUEST_NULL and
    //@         completes at once).  gcc 12 wrongly warns about
    //@         MPI_STATUSES_IGNORE here: use the array above.
    //@ placeholder: (void)status; /* TODO 2: wait for every bucket */
    //@ solution {
    MPI_Waitall(BUCKETS, bk->req, status);
    //@ }
    bk->t_wait += MPI_Wtime() - start;
}

/* ---- no need to change below ---- */

/* The parameters, in one flat array (as in task 1):
 *     [ W1 (H x D) | b1 (H) | W2 (H) | b2 (1) ]     W1[j][k] is p[j * D + k].
 * The output layer [ W2 | b2 ] is the end of the array, the hidden layer
 * [ W1 | b1 ] its beginning: each bucket is one contiguous piece. */
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

/* One rank's scratch arrays for a step, plain or bucketed. */
typedef struct {
    long *shard;  /* this rank's samples of the current minibatch */
    long count;   /* how many */
    double *h;    /* count x H hidden activations, kept by the forward pass */
    double *dout; /* count loss gradients dL/dyhat = 2 (yhat - y) */
    double sse;   /* this rank's squared errors in this epoch */
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

/* The MLP of task 1: the forward pass for one sample (the backward pass is
 * split into its two layers below). */
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

/* The sampler of task 3, then the forward pass over the shard, keeping what
 * the backward pass needs. */
static void shard_and_forward(const double *p, const layout_t *L, const dataset_t *data,
                              const long *batch_idx, long batch, work_t *w)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    w->count = 0;
    for (long b = rank; b < batch; b += size)
        w->shard[w->count++] = batch_idx[b];
    for (long b = 0; b < w->count; b++) {
        long i = w->shard[b];
        double err = mlp_forward(p, L, data->x + i * D, w->h + b * L->hidden) - data->y[i];
        w->sse += err * err;
        w->dout[b] = 2.0 * err;
    }
}

/* The backward pass, first half: the output layer's gradients (bucket 0). */
static void backward_output_layer(const layout_t *L, const work_t *w, double *grad)
{
    for (long b = 0; b < w->count; b++) {
        const double *h = w->h + b * L->hidden;
        grad[L->b2] += w->dout[b];
        for (int j = 0; j < L->hidden; j++)
            grad[L->w2 + j] += w->dout[b] * h[j];
    }
}

/* The backward pass, second half: the hidden layer's gradients (bucket 1).
 * MPICH moves a non-blocking collective on only while some MPI call runs in
 * this process (it has no progress thread by default), so when buckets are
 * in flight this loop pokes it with MPI_Testall every 16 samples. */
static void backward_hidden_layer(const double *p, const layout_t *L, const dataset_t *data,
                                  const work_t *w, double *grad, MPI_Request *in_flight)
{
    for (long b = 0; b < w->count; b++) {
        const double *h = w->h + b * L->hidden, *x = data->x + w->shard[b] * D;
        for (int j = 0; j < L->hidden; j++) {
            double dz = w->dout[b] * p[L->w2 + j] * (1.0 - h[j] * h[j]);
            grad[L->b1 + j] += dz;
            for (int k = 0; k < D; k++)
                grad[j * D + k] += dz * x[k];
        }
        if (in_flight && b % 16 == 15) {
            int all_done;
            MPI_Status status[BUCKETS];
            MPI_Testall(BUCKETS, in_flight, &all_done, status);
        }
    }
}

/* The plain DDP step: the whole backward pass, then one MPI_Allreduce. */
static void plain_step(double *p, const layout_t *L, const dataset_t *data, const long *batch_idx,
                       long batch, work_t *w, buckets_t *bk)
{
    shard_and_forward(p, L, data, batch_idx, batch, w);
    memset(bk->local, 0, (size_t)L->count * sizeof(double));
    backward_output_layer(L, w, bk->local);
    backward_hidden_layer(p, L, data, w, bk->local, NULL);
    double start = MPI_Wtime();
    MPI_Allreduce(bk->local, bk->global, (int)L->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    bk->t_wait += MPI_Wtime() - start;
    for (long i = 0; i < L->count; i++) /* the mean gradient: divide by the global batch */
        p[i] -= L->lr * bk->global[i] / (double)batch;
}

/* The bucketed DDP step: each layer's allreduce starts as soon as its
 * gradients are final, and runs while the backward pass goes on. */
static void bucketed_step(double *p, const layout_t *L, const dataset_t *data,
                          const long *batch_idx, long batch, work_t *w, buckets_t *bk)
{
    shard_and_forward(p, L, data, batch_idx, batch, w);
    memset(bk->local, 0, (size_t)L->count * sizeof(double));
    memset(bk->global, 0, (size_t)L->count * sizeof(double));
    for (int k = 0; k < BUCKETS; k++)
        bk->req[k] = MPI_REQUEST_NULL;
    backward_output_layer(L, w, bk->local);
    bucket_ready(bk, 0);
    backward_hidden_layer(p, L, data, w, bk->local, bk->req);
    bucket_ready(bk, 1);
    wait_for_buckets(bk);
    for (long i = 0; i < L->count; i++)
        p[i] -= L->lr * bk->global[i] / (double)batch;
}

typedef struct {
    const dataset_t *data;
    const layout_t *L;
    long batch;
    int epochs, bucketed;
    uint64_t seed;
    double *params;     /* the trained model */
    double *epoch_loss; /* the mean squared error of each epoch's minibatches */
    long steps;
    double t_total, t_wait; /* seconds: all steps (slowest rank), waiting (this rank) */
} run_t;

static void train(run_t *r)
{
    const layout_t *L = r->L;
    long n = r->data->n;
    long *perm = xcalloc((size_t)n, sizeof *perm);
    work_t w = { .shard = xcalloc((size_t)r->batch, sizeof(long)),
                 .h = xcalloc((size_t)r->batch * (size_t)L->hidden, sizeof(double)),
                 .dout = xcalloc((size_t)r->batch, sizeof(double)) };
    buckets_t bk = { .local = xcalloc((size_t)L->count, sizeof(double)),
                     .global = xcalloc((size_t)L->count, sizeof(double)),
                     .bucket = { { L->w2, L->count - L->w2 }, { 0, L->w2 } } };
    for (int k = 0; k < BUCKETS; k++)
        bk.req[k] = MPI_REQUEST_NULL;
    mlp_init(r->params, L, r->seed);
    r->steps = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        w.sse = 0.0;
        for (long first = 0; first < n; first += r->batch) {
            long batch = n - first < r->batch ? n - first : r->batch;
            if (r->bucketed)
                bucketed_step(r->params, L, r->data, perm + first, batch, &w, &bk);
            else
                plain_step(r->params, L, r->data, perm + first, batch, &w, &bk);
            r->steps++;
        }
        double sse = 0.0; /* the epoch's loss: one small allreduce per epoch */
        MPI_Allreduce(&w.sse, &sse, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        r->epoch_loss[epoch] = sse / (double)n;
    }
    double mine = MPI_Wtime() - start;
    MPI_Allreduce(&mine, &r->t_total, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    r->t_wait = bk.t_wait;
    free(perm);
    free(w.shard);
    free(w.h);
    free(w.dout);
    free(bk.local);
    free(bk.global);
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
    int reps = (int)pr_arg_long(argc, argv, "reps", 3, 1, 100);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    layout_t L = make_layout(hidden);
    if (rank == 0)
        printf("task5: DDP with gradient buckets on %d rank%s, n=%ld, minibatch %ld, %d epochs,"
               " %d hidden units (%ld parameters: buckets of %ld and %ld), seed %llu\n",
               size, size == 1 ? "" : "s", n, batch, epochs, hidden, L.count, L.count - L.w2,
               L.w2, (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    run_t plain = { &data, &L, batch, epochs, 0, seed, xcalloc((size_t)L.count, sizeof(double)),
                    xcalloc((size_t)epochs, sizeof(double)), 0, 0, 0 };
    run_t bucketed = plain;
    bucketed.bucketed = 1;
    bucketed.params = xcalloc((size_t)L.count, sizeof(double));
    bucketed.epoch_loss = xcalloc((size_t)epochs, sizeof(double));
    train(&plain); /* these two runs are checked ... */
    train(&bucketed);
    double best[2] = { plain.t_total, bucketed.t_total };
    double best_wait[2] = { plain.t_wait, bucketed.t_wait };
    for (int r = 1; r < reps; r++) { /* ... and the best of `reps` runs timed */
        run_t *runs[2] = { &plain, &bucketed };
        for (int k = 0; k < 2; k++) {
            train(runs[k]);
            if (runs[k]->t_total < best[k]) {
                best[k] = runs[k]->t_total;
                best_wait[k] = runs[k]->t_wait;
            }
        }
    }

    double checksum = checksum_of(bucketed.params, L.count), highest, lowest;
    MPI_Allreduce(&checksum, &highest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&checksum, &lowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    double spread = (highest - lowest) / (fabs(highest) > 1.0 ? fabs(highest) : 1.0);
    double longest[2];
    MPI_Allreduce(best_wait, longest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("  %7s %18s %18s\n", "epoch", "plain loss", "bucketed loss");
        int every = epochs >= 10 ? epochs / 10 : 1;
        for (int e = 0; e < epochs; e++)
            if ((e + 1) % every == 0 || e == 0)
                printf("  %7d %18.12f %18.12f\n", e + 1, plain.epoch_loss[e],
                       bucketed.epoch_loss[e]);
        const double tol = 1e-9; /* MPI_Iallreduce may add up in another order */
        double worst_loss = max_rel_diff(bucketed.epoch_loss, plain.epoch_loss, epochs);
        double worst_param = max_rel_diff(bucketed.params, plain.params, L.count);
        int matches = worst_loss <= tol && worst_param <= tol;
        printf("  checksum of the parameters: max %.17g, min %.17g over the ranks\n", highest,
               lowest);
        printf("  largest difference from the plain run: losses %.3g, parameters %.3g"
               " (allowed %g)\n",
               worst_loss, worst_param, tol);
        pr_check_double("replica spread (relative)", spread, 0.0, 1e-12);
        pr_check_double("final loss (bucketed vs plain)", bucketed.epoch_loss[epochs - 1],
                        plain.epoch_loss[epochs - 1], tol);
        pr_check_double("checksum (bucketed vs plain)", checksum,
                        checksum_of(plain.params, L.count), tol);
        pr_check_int("every loss, parameter equal", matches, 1);
        pr_result_int("replicas_identical", spread <= 1e-12);
        pr_result_double("final_loss", bucketed.epoch_loss[epochs - 1], 1e-6);
        pr_result_double("checksum", checksum, 1e-6);
        pr_result_int("matches_plain", matches);

        double per_plain = best[0] / plain.steps, per_bucketed = best[1] / bucketed.steps;
        printf("  per step (%ld steps each, the best of %d runs; waiting: the longest of any"
               " rank):\n",
               plain.steps, reps);
        printf("    plain:    %10.1f us, of which %10.1f us waiting in MPI_Allreduce\n",
               1e6 * per_plain, 1e6 * longest[0] / plain.steps);
        printf("    bucketed: %10.1f us, of which %10.1f us waiting in MPI_Waitall\n",
               1e6 * per_bucketed, 1e6 * longest[1] / bucketed.steps);
        double gain = (per_plain - per_bucketed) / per_plain;
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        if (size == 1)
            printf("  overlap gain: none possible with one rank (nothing to communicate)\n");
        else if (cores > 0 && size > cores)
            printf("  overlap gain: not measurable here (%+.0f%%): %d ranks take turns on %ld"
                   " cores,\n"
                   "  so these times are mostly the scheduler's; run 2 ranks on 2 free cores.\n",
                   100 * gain, size, cores);
        else if (gain > 0.05)
            printf("  overlap gain: the bucketed steps took %.0f%% less time\n", 100 * gain);
        else
            printf("  overlap gain: none measured here (%+.0f%%): only the first bucket's"
                   " allreduce\n  can hide behind the rest of the backward pass, and here that is"
                   " lost in the noise.\n",
                   100 * gain);
    }

    free(plain.params);
    free(plain.epoch_loss);
    free(bucketed.params);
    free(bucketed.epoch_loss);
    free(data.x);
    free(data.y);
    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
