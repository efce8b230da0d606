/*
 * Room 06, task 2: data parallel (DP) with threads -- one coordinator, T replicas.
 *
 * The MLP of task 1, trained on the same data in the same order, but every
 * minibatch is split over T replicas (threads standing in for T GPUs, each
 * with its own copy of everything it uses), the way PyTorch's DataParallel
 * does it.  The coordinator (the main thread: "GPU 0") holds the one true
 * model and, for every minibatch, runs these steps:
 *
 *   step 1  scatter the minibatch: each replica gets its piece of the samples
 *   step 2  replicate the model: copy the parameters to every replica
 *   step 3  parallel forward: each replica computes yhat for its piece
 *   step 4  gather the outputs on the coordinator
 *   step 5  the loss, and its gradient dL/dyhat, on the coordinator
 *   step 6  scatter the loss gradients: each replica gets those of its piece
 *   step 7  parallel backward: each replica computes its piece's gradient
 *   step 8  reduce the gradients onto the coordinator (sum them)
 *   then    the SGD update, on the coordinator alone
 *
 *   TODO 1: step 2, replicate the model.
 *   TODO 2: step 5, the loss and the loss gradient of every sample.
 *   TODO 3: step 8, reduce the replicas' gradients.
 *
 * Checked: the program also trains the serial baseline (task 1's loop) and
 * compares: the loss of every epoch and the final parameters must equal the
 * serial run's to 1e-9 (not exactly: the replicas add up their samples'
 * gradients in pieces, a different order of additions).  The minibatches do
 * not split evenly over the replicas, and a last minibatch with fewer samples
 * than replicas leaves some replicas with nothing to do.
 *
 * Read first: README.md, "Data parallelism: split the minibatch, add the gradients", "DP: one coordinator and its replicas".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading -o task2 task2.c -lm -pthread
 *   ./task2 threads=3
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task2
 */
#include "pr.h"

#include <pthread.h>

#define D 2               /* inputs per sample */
#define LEARNING_RATE 0.1 /* the SGD step size (for wider MLPs: see make_layout) */
#define MAX_REPLICAS 64

/* The parameters, in one flat array (as in task 1):
 *     [ W1 (H x D) | b1 (H) | W2 (H) | b2 (1) ]     W1[j][k] is p[j * D + k]. */
typedef struct {
    int hidden; /* H */
    long b1, w2, b2;
    long count; /* H*D + H + H + 1 numbers in all */
    double lr;  /* the MLP's SGD step size */
} layout_t;

/* A replica: a thread with its own memory, as a GPU would have.  Everything
 * it reads or writes is its own; the coordinator copies data in and out. */
typedef struct {
    const layout_t *L;
    double *params; /* step 2: its copy of the model */
    double *x;      /* step 1: its piece of the minibatch, count x D inputs */
    long count;     /* how many samples its piece holds (maybe 0) */
    double *hidden; /* count x H activations, kept by forward for backward */
    double *out;    /* step 3: count outputs yhat */
    double *dout;   /* step 6: count loss gradients dL/dyhat */
    double *grad;   /* step 7: its piece's gradient, L->count numbers */
} replica_t;

/* The coordinator: the model itself and the whole minibatch's arrays. */
typedef struct {
    const layout_t *L;
    int replicas;
    replica_t rep[MAX_REPLICAS];
    double *params;    /* the model: the one true copy */
    double *outputs;   /* step 4: every sample's yhat, in minibatch order */
    double *dout;      /* step 5: every sample's dL/dyhat */
    double *grad;      /* step 8: the minibatch's gradient */
    long bytes_copied; /* coordinator <-> replica traffic, for the report */
} coordinator_t;

static void run_replicas(coordinator_t *dp, void *(*phase)(void *));
static void *forward_phase(void *arg);
static void *backward_phase(void *arg);
static void split(long count, int parts, int part, long *lo, long *hi);

/* One DP step on the minibatch idx[0..batch-1]; returns its loss. */
static double dp_step(coordinator_t *dp, const double *data_x, const double *data_y,
                      const long *idx, long batch)
{
    const layout_t *L = dp->L;
    size_t model_bytes = (size_t)L->count * sizeof(double);

    /* step 1: scatter the minibatch (the inputs only: the targets stay here) */
    for (int r = 0; r < dp->replicas; r++) {
        long lo, hi;
        split(batch, dp->replicas, r, &lo, &hi);
        replica_t *rep = &dp->rep[r];
        rep->count = hi - lo;
        for (long b = lo; b < hi; b++)
            memcpy(rep->x + (b - lo) * D, data_x + idx[b] * D, D * sizeof(double));
        dp->bytes_copied += rep->count * D * (long)sizeof(double);
    }

    /* step 2: replicate the model */
    // TODO 1: After this step every replica holds, in its own memory, the
    //         coordinator's current model: the last update changed it, and a
    //         replica never reads the coordinator's copy.  Add what it moved to
    //         the coordinator's tally of copied bytes.
    (void)model_bytes; /* TODO 1: replicate the model */

    /* step 3: parallel forward */
    run_replicas(dp, forward_phase);

    /* step 4: gather the outputs on the coordinator */
    for (int r = 0; r < dp->replicas; r++) {
        long lo, hi;
        split(batch, dp->replicas, r, &lo, &hi);
        memcpy(dp->outputs + lo, dp->rep[r].out, (size_t)(hi - lo) * sizeof(double));
        dp->bytes_copied += (hi - lo) * (long)sizeof(double);
    }

    /* step 5: the loss and its gradient, on the coordinator */
    // TODO 2: On the coordinator alone, from the gathered outputs and the
    //         targets: the minibatch's mean squared error (this function returns
    //         it), and for every sample the derivative of that mean with respect
    //         to the sample's output, stored where step 6 scatters from.  A mean
    //         over the WHOLE minibatch, whichever replica the sample went to.
    double loss = 0.0; /* TODO 2: the loss, and its gradient per sample */
    (void)data_y, (void)idx;

    /* step 6: scatter the loss gradients */
    for (int r = 0; r < dp->replicas; r++) {
        long lo, hi;
        split(batch, dp->replicas, r, &lo, &hi);
        memcpy(dp->rep[r].dout, dp->dout + lo, (size_t)(hi - lo) * sizeof(double));
        dp->bytes_copied += (hi - lo) * (long)sizeof(double);
    }

    /* step 7: parallel backward */
    run_replicas(dp, backward_phase);

    /* step 8: reduce the gradients onto the coordinator */
    // TODO 3: The coordinator's gradient becomes the element-wise total of
    //         the replicas' gradients.  It must come out bit for bit the same
    //         whichever thread finished first, so add them in a fixed order.
    //         Count these bytes too.
    memset(dp->grad, 0, model_bytes); /* TODO 3: reduce the gradients */

    /* the update, on the coordinator alone: the replicas get the new model in step 2 */
    for (long i = 0; i < L->count; i++)
        dp->params[i] -= L->lr * dp->grad[i];
    return loss;
}

/* ---- no need to change below ---- */

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
        exit(1);
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

/* Samples lo..hi-1 of `count`, split into `parts` contiguous pieces whose
 * sizes differ by at most one (the first count % parts pieces one larger). */
static void split(long count, int parts, int part, long *lo, long *hi)
{
    long base = count / parts, extra = count % parts;
    *lo = part * base + (part < extra ? part : extra);
    *hi = *lo + base + (part < extra ? 1 : 0);
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

/* Step 3 on one replica: forward over its piece, keeping the activations. */
static void *forward_phase(void *arg)
{
    replica_t *rep = arg;
    for (long b = 0; b < rep->count; b++)
        rep->out[b] = mlp_forward(rep->params, rep->L, rep->x + b * D,
                                  rep->hidden + b * rep->L->hidden);
    return NULL;
}

/* Step 7 on one replica: backward over its piece, from the loss gradients
 * the coordinator sent; its gradient is the sum over its samples. */
static void *backward_phase(void *arg)
{
    replica_t *rep = arg;
    memset(rep->grad, 0, (size_t)rep->L->count * sizeof(double));
    for (long b = 0; b < rep->count; b++)
        mlp_backward(rep->params, rep->L, rep->x + b * D, rep->hidden + b * rep->L->hidden,
                     rep->dout[b], rep->grad);
    return NULL;
}

/* Runs `phase` on every replica at once, one thread each, and waits for all:
 * fork-join, as PyTorch's DataParallel does for every forward call. */
static void run_replicas(coordinator_t *dp, void *(*phase)(void *))
{
    pthread_t tid[MAX_REPLICAS];
    for (int r = 0; r < dp->replicas; r++)
        if (pthread_create(&tid[r], NULL, phase, &dp->rep[r]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(1);
        }
    for (int r = 0; r < dp->replicas; r++)
        pthread_join(tid[r], NULL);
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

/* The serial baseline's step (task 1): the whole minibatch's gradient, then
 * the update.  Returns the minibatch's loss. */
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
    int epochs, threads; /* threads 0: the serial baseline */
    uint64_t seed;
    double *params;      /* the trained model */
    double *epoch_loss;  /* the mean minibatch loss of each epoch, weighted by size */
    long bytes_per_step; /* DP only: coordinator traffic in the first step */
} run_t;

static void init_coordinator(coordinator_t *dp, const layout_t *L, int replicas, long batch)
{
    memset(dp, 0, sizeof *dp);
    dp->L = L;
    dp->replicas = replicas;
    dp->params = xcalloc((size_t)L->count, sizeof(double));
    dp->grad = xcalloc((size_t)L->count, sizeof(double));
    dp->outputs = xcalloc((size_t)batch, sizeof(double));
    dp->dout = xcalloc((size_t)batch, sizeof(double));
    for (int r = 0; r < replicas; r++) {
        long lo, hi;
        split(batch, replicas, r, &lo, &hi); /* the largest piece any minibatch gives it */
        long most = hi - lo;
        replica_t *rep = &dp->rep[r];
        rep->L = L;
        rep->params = xcalloc((size_t)L->count, sizeof(double));
        rep->grad = xcalloc((size_t)L->count, sizeof(double));
        rep->x = xcalloc((size_t)most * D, sizeof(double));
        rep->hidden = xcalloc((size_t)most * (size_t)L->hidden, sizeof(double));
        rep->out = xcalloc((size_t)most, sizeof(double));
        rep->dout = xcalloc((size_t)most, sizeof(double));
    }
}

static void free_coordinator(coordinator_t *dp)
{
    for (int r = 0; r < dp->replicas; r++) {
        replica_t *rep = &dp->rep[r];
        free(rep->params);
        free(rep->grad);
        free(rep->x);
        free(rep->hidden);
        free(rep->out);
        free(rep->dout);
    }
    free(dp->params);
    free(dp->grad);
    free(dp->outputs);
    free(dp->dout);
}

/* Trains for r->epochs epochs, serially or with DP, on the same minibatches. */
static void train(run_t *r)
{
    const layout_t *L = r->L;
    long n = r->data->n;
    long *perm = xcalloc((size_t)n, sizeof *perm);
    double *grad = xcalloc((size_t)L->count, sizeof *grad);
    double *h = xcalloc((size_t)L->hidden, sizeof *h);
    coordinator_t dp;
    if (r->threads > 0) {
        init_coordinator(&dp, L, r->threads, r->batch);
        mlp_init(dp.params, L, r->seed);
    } else {
        mlp_init(r->params, L, r->seed);
    }
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        double loss_sum = 0.0;
        for (long start = 0; start < n; start += r->batch) {
            long batch = n - start < r->batch ? n - start : r->batch;
            double loss;
            if (r->threads > 0) {
                long before = dp.bytes_copied;
                loss = dp_step(&dp, r->data->x, r->data->y, perm + start, batch);
                if (start == 0 && epoch == 0)
                    r->bytes_per_step = dp.bytes_copied - before;
            } else {
                loss = serial_step(r->params, L, r->data, perm + start, batch, grad, h);
            }
            loss_sum += loss * (double)batch;
        }
        r->epoch_loss[epoch] = loss_sum / (double)n;
    }
    if (r->threads > 0) {
        memcpy(r->params, dp.params, (size_t)L->count * sizeof(double));
        free_coordinator(&dp);
    }
    free(perm);
    free(grad);
    free(h);
}

static void train_run(void *ctx)
{
    train(ctx);
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
    int threads = (int)pr_arg_long(argc, argv, "threads", 4, 1, MAX_REPLICAS);
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 1000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 29, 1, n);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 20, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 12, 1, 1000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    layout_t L = make_layout(hidden);
    printf("task2: DP with %d replica thread%s, n=%ld, minibatch %ld, %d epochs, %d hidden units"
           " (%ld parameters), seed %llu\n",
           threads, threads == 1 ? "" : "s", n, batch, epochs, hidden, L.count,
           (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    run_t serial = { &data, &L, batch, epochs, 0, seed, xcalloc((size_t)L.count, sizeof(double)),
                     xcalloc((size_t)epochs, sizeof(double)), 0 };
    run_t dp = serial;
    dp.threads = threads;
    dp.params = xcalloc((size_t)L.count, sizeof(double));
    dp.epoch_loss = xcalloc((size_t)epochs, sizeof(double));
    train(&serial);
    train(&dp);

    printf("  %7s %18s %18s\n", "epoch", "serial loss", "DP loss");
    int every = epochs >= 10 ? epochs / 10 : 1;
    double worst_loss = max_rel_diff(dp.epoch_loss, serial.epoch_loss, epochs);
    for (int e = 0; e < epochs; e++)
        if ((e + 1) % every == 0 || e == 0)
            printf("  %7d %18.12f %18.12f\n", e + 1, serial.epoch_loss[e], dp.epoch_loss[e]);

    /* Not exactly equal: the replicas sum their pieces, then step 8 sums the sums. */
    const double tol = 1e-9;
    double worst_param = max_rel_diff(dp.params, serial.params, L.count);
    double checksum = checksum_of(dp.params, L.count);
    printf("  largest difference from the serial run: losses %.3g, parameters %.3g (allowed %g)\n",
           worst_loss, worst_param, tol);
    pr_check_double("final loss (DP vs serial)", dp.epoch_loss[epochs - 1],
                    serial.epoch_loss[epochs - 1], tol);
    pr_check_double("checksum (DP vs serial)", checksum, checksum_of(serial.params, L.count), tol);
    pr_check_int("every loss, parameter equal", worst_loss <= tol && worst_param <= tol, 1);
    pr_result_double("final_loss", dp.epoch_loss[epochs - 1], 1e-6);
    pr_result_double("checksum", checksum, 1e-6);
    pr_result_int("matches_serial", worst_loss <= tol && worst_param <= tol);

    printf("  the coordinator copied %ld bytes in the first step (the model is %ld bytes)\n",
           dp.bytes_per_step, L.count * (long)sizeof(double));
    double t_serial = pr_best_of(2, train_run, &serial);
    double t_dp = pr_best_of(2, train_run, &dp);
    pr_print_time("serial", t_serial, 0, NULL);
    char what[64];
    snprintf(what, sizeof what, "DP, %d thread%s", threads, threads == 1 ? "" : "s");
    pr_print_time(what, t_dp, t_serial, "serial");

    free(serial.params);
    free(serial.epoch_loss);
    free(dp.params);
    free(dp.epoch_loss);
    free(data.x);
    free(data.y);
    return pr_finish();
}
