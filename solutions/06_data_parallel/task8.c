/*
 * Room 06, task 8: bug hunt -- DDP training that does not match its serial run.
 *
 * The MLP of task 1, trained on its seeded data set by p MPI ranks with DDP,
 * as in task 3: every rank makes the same data, the same initial model and
 * the same shuffled order from the seed; every rank takes its strided shard
 * of each minibatch, runs forward and backward on it, the ranks add up their
 * gradients with one MPI_Allreduce, and every rank makes the same SGD step on
 * its own replica.  Rank 0 also trains the serial baseline (task 1's loop).
 *
 * It checks itself: the replicas identical on every rank (the spread of a
 * parameter checksum over the ranks must be 0), and every epoch's loss and
 * the final parameters equal to the serial run's, to 1e-9.
 *
 * The program is complete and runs quickly, but it has ONE bug that makes it
 * fail grading.  Find it, explain it, fix it: the output and the lesson are
 * your clues.
 *
 * Read first: README.md, "DDP: equal ranks and one allreduce", "Why the replicas never drift apart", "Task 8: bug hunt".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading -o task8 task8.c -lm
 *   mpiexec -n 2 ./task8
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task8
 */
#define PR_MPI
#include "pr.h"

#define D 2               /* inputs per sample */
#define LEARNING_RATE 0.1 /* the SGD step size (smaller for wide MLPs) */

/* [ W1 (H x D) | b1 (H) | W2 (H) | b2 (1) ]     W1[j][k] is p[j * D + k]. */
typedef struct {
    int hidden;
    long b1, w2, b2, count;
    double lr;
} layout_t;

typedef struct {
    long n;
    double *x, *y; /* n x D inputs, n targets */
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
    layout_t L = { .hidden = hidden };
    L.b1 = (long)hidden * D;
    L.w2 = L.b1 + hidden;
    L.b2 = L.w2 + hidden;
    L.count = L.b2 + 1;
    L.lr = hidden <= 12 ? LEARNING_RATE : LEARNING_RATE * 12.0 / hidden;
    return L;
}

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

/* ADDS one sample's gradient to grad[]; dout is dL/dyhat for the sample. */
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

static dataset_t make_dataset(long n, uint64_t seed)
{
    dataset_t data = { n, xcalloc((size_t)n * D, sizeof(double)),
                       xcalloc((size_t)n, sizeof(double)) };
    pr_rng rng = pr_rng_seed(seed, 1);
    for (long i = 0; i < n; i++) {
        double *x = data.x + i * D;
        for (int k = 0; k < D; k++)
            x[k] = pr_rng_double(&rng, -1.5, 1.5);
        data.y[i] = sin(2.0 * x[0]) + 0.5 * x[0] * x[1] + 0.05 * pr_rng_double(&rng, -1.0, 1.0);
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

/* The epoch's order of [0, n), from the seed and the epoch (Fisher-Yates). */
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

/* Scratch arrays: a shard, two gradients (plus the squared errors), H activations. */
typedef struct {
    long *shard;
    double *local, *global, *h;
} work_t;

/* The serial baseline's step (task 1): the whole minibatch on this rank. */
static double serial_step(double *p, const layout_t *L, const dataset_t *data, const long *idx,
                          long batch, work_t *w)
{
    double sse = 0.0;
    memset(w->global, 0, (size_t)L->count * sizeof(double));
    for (long b = 0; b < batch; b++) {
        const double *x = data->x + idx[b] * D;
        double err = mlp_forward(p, L, x, w->h) - data->y[idx[b]];
        sse += err * err;
        mlp_backward(p, L, x, w->h, 2.0 * err / (double)batch, w->global);
    }
    for (long i = 0; i < L->count; i++)
        p[i] -= L->lr * w->global[i];
    return sse / (double)batch;
}

/* One DDP step on the minibatch idx[0..batch-1], on every rank; returns its loss. */
static double ddp_step(double *p, const layout_t *L, const dataset_t *data, const long *idx,
                       long batch, work_t *w)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long count = 0;
    for (long b = rank; b < batch; b += size) /* the distributed sampler */
        w->shard[count++] = idx[b];

    /* local[]: the shard's gradient and squared errors, summed over its samples */
    memset(w->local, 0, (size_t)(L->count + 1) * sizeof(double));
    for (long b = 0; b < count; b++) {
        const double *x = data->x + w->shard[b] * D;
        double err = mlp_forward(p, L, x, w->h) - data->y[w->shard[b]];
        w->local[L->count] += err * err;
        mlp_backward(p, L, x, w->h, 2.0 * err, w->local);
    }
    MPI_Allreduce(w->local, w->global, (int)L->count + 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    /* The mean over the minibatch, and the same update on every replica. */
    for (long i = 0; i <= L->count; i++)
        //@ bug: w->global[i] /= (double)size;
        //@ solution {
        w->global[i] /= (double)batch;
        //@ }
    for (long i = 0; i < L->count; i++)
        p[i] -= L->lr * w->global[i];
    return w->global[L->count];
}

/* Trains `epochs` epochs from the seed's initial model; fills loss[epoch]. */
static void train(double *p, const layout_t *L, const dataset_t *data, long batch, int epochs,
                  uint64_t seed, int distributed, double *loss)
{
    long n = data->n;
    long *perm = xcalloc((size_t)n, sizeof *perm);
    work_t w = { xcalloc((size_t)batch, sizeof(long)),
                 xcalloc((size_t)L->count + 1, sizeof(double)),
                 xcalloc((size_t)L->count + 1, sizeof(double)),
                 xcalloc((size_t)L->hidden, sizeof(double)) };
    mlp_init(p, L, seed);
    for (int epoch = 0; epoch < epochs; epoch++) {
        shuffle(perm, n, seed, epoch);
        double sum = 0.0;
        for (long start = 0; start < n; start += batch) {
            long m = n - start < batch ? n - start : batch;
            double loss = distributed ? ddp_step(p, L, data, perm + start, m, &w)
                                      : serial_step(p, L, data, perm + start, m, &w);
            sum += loss * (double)m;
        }
        loss[epoch] = sum / (double)n;
    }
    free(perm), free(w.shard), free(w.local), free(w.global), free(w.h);
}

static double checksum_of(const double *p, long count)
{
    double sum = 0.0;
    for (long i = 0; i < count; i++)
        sum += (double)(i + 1) * p[i];
    return sum;
}

/* The largest |a[i] - b[i]| / max(1, |b[i]|); infinite for NaN. */
static double max_rel_diff(const double *a, const double *b, long count)
{
    double worst = 0.0;
    for (long i = 0; i < count; i++) {
        double d = fabs(a[i] - b[i]) / (fabs(b[i]) > 1.0 ? fabs(b[i]) : 1.0);
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
        printf("task8: DDP on %d rank%s, n=%ld, minibatch %ld, %d epochs, %d hidden units"
               " (%ld parameters), seed %llu\n",
               size, size == 1 ? "" : "s", n, batch, epochs, hidden, L.count,
               (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);
    double *serial = xcalloc((size_t)L.count, sizeof(double));
    double *serial_loss = xcalloc((size_t)epochs, sizeof(double));
    double *ddp = xcalloc((size_t)L.count, sizeof(double));
    double *ddp_loss = xcalloc((size_t)epochs, sizeof(double));

    double t_serial = pr_now();
    if (rank == 0)
        train(serial, &L, &data, batch, epochs, seed, 0, serial_loss);
    t_serial = pr_now() - t_serial;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    train(ddp, &L, &data, batch, epochs, seed, 1, ddp_loss);
    double mine = MPI_Wtime() - start, t_ddp;
    MPI_Allreduce(&mine, &t_ddp, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    /* Identical replicas: the checksum's spread over the ranks. */
    double checksum = checksum_of(ddp, L.count), highest, lowest;
    MPI_Allreduce(&checksum, &highest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&checksum, &lowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    double spread = (highest - lowest) / (fabs(highest) > 1.0 ? fabs(highest) : 1.0);

    if (rank == 0) {
        printf("  %7s %18s %18s\n", "epoch", "serial loss", "DDP loss");
        for (int e = 0; e < epochs; e++)
            if (epochs <= 10 || (e + 1) % (epochs / 10) == 0 || e == 0)
                printf("  %7d %18.12f %18.12f\n", e + 1, serial_loss[e], ddp_loss[e]);
        const double tol = 1e-9; /* other orders of additions: ~1e-16 in practice */
        double worst_loss = max_rel_diff(ddp_loss, serial_loss, epochs);
        double worst_param = max_rel_diff(ddp, serial, L.count);
        int matches = worst_loss <= tol && worst_param <= tol;
        printf("  checksum of the parameters: max %.17g, min %.17g over the ranks\n", highest, lowest);
        printf("  largest difference from the serial run: losses %.3g, parameters %.3g"
               " (allowed %g)\n",
               worst_loss, worst_param, tol);
        pr_check_double("replica spread (relative)", spread, 0.0, 1e-12);
        pr_check_double("final loss (DDP vs serial)", ddp_loss[epochs - 1],
                        serial_loss[epochs - 1], tol);
        pr_check_double("checksum (DDP vs serial)", checksum, checksum_of(serial, L.count), tol);
        pr_check_int("every loss, parameter equal", matches, 1);
        pr_result_int("replicas_identical", spread <= 1e-12);
        pr_result_double("final_loss", ddp_loss[epochs - 1], 1e-6);
        pr_result_double("checksum", checksum, 1e-6);
        pr_result_int("matches_serial", matches);
        pr_print_time("serial, per epoch", t_serial / epochs, 0, NULL);
        pr_print_time("DDP, per epoch", t_ddp / epochs, t_serial / epochs, "serial");
    }

    free(serial), free(serial_loss), free(ddp), free(ddp_loss), free(data.x), free(data.y);
    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
