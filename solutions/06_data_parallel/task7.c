/*
 * Room 06, task 7 (stretch): a tiny GAN, trained data-parallel with DDP.
 *
 * A generative adversarial network is two MLPs trained against each other:
 *
 *   the generator     G: noise z (2 numbers) -> a point x = G(z) of the plane
 *   the discriminator D: a point x -> a logit; sigmoid(D(x)) = "x is real"
 *
 * The real data: points on a ring of 8 small Gaussian clusters (radius 2).
 * Each training step has two halves, each a DDP step of its own (task 3):
 *
 *   D step: D learns to tell real points (label 1) from G's points (label 0):
 *           L_D = mean of softplus(-D(x_real)) + softplus(D(G(z)))
 *   G step: G learns to fool the updated D:
 *           L_G = mean of softplus(-D(G(z)))
 *           Its gradient flows from D's logit back THROUGH D into D's input
 *           x = G(z), and from there through G: D's parameters are not
 *           changed during this half, but D's backward pass is needed.
 *
 * Every rank takes its shard of each minibatch of real points and of noise
 * (the noise of a whole minibatch is made from the seed on every rank, so the
 * run does not depend on the number of ranks), and the gradient sums of both
 * networks become minibatch means over all ranks, as with task 3.
 *
 *   TODO 1: the gradient of a network's output with respect to its INPUT
 *           (what the G step needs from D).
 *   TODO 2: the DDP step's communication and mean, shared by both halves.
 *
 * Checked: D's input gradient against finite differences; the replicas of
 * both networks identical on every rank (checksum spread 0); and the whole
 * training equal to the serial run of the same GAN (rank 0 trains it too):
 * every epoch's D and G losses, and the final parameters, to 1e-9.  Whether
 * the GAN learns the ring is only printed (how many of the 8 clusters its
 * points land near): after the grader's few steps, it has not.
 *
 * Read first: README.md, "Forward and backward by hand", "DDP: equal ranks and one allreduce", "Task 7 (stretch): a tiny GAN trained with DDP".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading -o task7 task7.c -lm
 *   mpiexec -n 2 ./task7 epochs=300
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task7
 */
#define PR_MPI
#include "pr.h"

#define MODES 8        /* clusters on the ring */
#define RADIUS 2.0     /* of the ring */
#define SPREAD 0.1     /* standard deviation of each cluster */
#define LEARNING_RATE 0.05
#define PI 3.14159265358979323846 /* M_PI is not in C11 */

/* A one-hidden-layer tanh MLP with `in` inputs and `out` outputs, its
 * parameters in one flat array:
 *     [ W1 (hidden x in) | b1 (hidden) | W2 (out x hidden) | b2 (out) ]
 * W1[j][k] is p[j * in + k], W2[o][j] is p[w2 + o * hidden + j]. */
typedef struct {
    int in, hidden, out;
    long b1, w2, b2, count;
} net_t;

/* Forward: y[0..out-1] from x[0..in-1]; keeps the activations h[0..hidden-1]. */
static void net_forward(const double *p, const net_t *N, const double *x, double *h, double *y)
{
    for (int j = 0; j < N->hidden; j++) {
        double z = p[N->b1 + j];
        for (int k = 0; k < N->in; k++)
            z += p[j * N->in + k] * x[k];
        h[j] = tanh(z);
    }
    for (int o = 0; o < N->out; o++) {
        y[o] = p[N->b2 + o];
        for (int j = 0; j < N->hidden; j++)
            y[o] += p[N->w2 + o * N->hidden + j] * h[j];
    }
}

/* Backward for one sample: dy[o] is dL/dy[o].  ADDS the sample's gradient to
 * grad[] and, when dx is not NULL, sets dx[k] = dL/dx[k], the gradient with
 * respect to the network's input (the parameters' gradient is the same
 * either way). */
static void net_backward(const double *p, const net_t *N, const double *x, const double *h,
                         const double *dy, double *grad, double *dx)
{
    if (dx)
        memset(dx, 0, (size_t)N->in * sizeof *dx);
    for (int o = 0; o < N->out; o++)
        grad[N->b2 + o] += dy[o];
    for (int j = 0; j < N->hidden; j++) {
        double dh = 0.0;
        for (int o = 0; o < N->out; o++) {
            grad[N->w2 + o * N->hidden + j] += dy[o] * h[j];
            dh += dy[o] * p[N->w2 + o * N->hidden + j];
        }
        double dz = dh * (1.0 - h[j] * h[j]); /* back through tanh */
        grad[N->b1 + j] += dz;
        for (int k = 0; k < N->in; k++)
            grad[j * N->in + k] += dz * x[k];
        //@ TODO 1: The input gradient, when the caller asked for one: each
        //@         input feeds every hidden unit through one weight of W1, so
        //@         its gradient collects a term from every unit.  Add this
        //@         unit's terms (the chain rule one step past the first layer).
        //@ placeholder: (void)dx; /* TODO 1: the input gradient */
        //@ solution {
        if (dx)
            for (int k = 0; k < N->in; k++)
                dx[k] += dz * p[j * N->in + k];
        //@ }
    }
}

/* DDP: global[i] = (the sum over all ranks of local[i]) / batch, for the
 * `count` numbers (a network's gradient sums, and its loss sum last). */
static void allreduce_mean(const double *local, double *global, long count, long batch)
{
    memset(global, 0, (size_t)count * sizeof *global);
    //@ TODO 2: What task 3's TODO 2 did, for any array of gradient sums: on
    //@         return every rank holds the minibatch's means, computed from all
    //@         ranks' sums with one MPI_Allreduce.
    //@ placeholder: (void)local, (void)batch; /* TODO 2: allreduce, then the mean */
    //@ solution {
    MPI_Allreduce(local, global, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (long i = 0; i < count; i++)
        global[i] /= (double)batch;
    //@ }
}

/* ---- no need to change below ---- */

typedef struct {
    long n;
    double *x; /* n x 2 real points */
} dataset_t;

/* Both networks, their gradients and scratch space, on one rank. */
typedef struct {
    net_t G, D;
    double *g, *d;           /* the parameters */
    double *g_local, *d_local; /* gradient sums over this rank's shard, + the loss sum */
    double *g_mean, *d_mean;   /* the same over all ranks, divided by the batch */
    double *d_scratch;         /* D's parameter gradient in the G step (not used) */
    double *hg, *hd;           /* hidden activations of G and of D */
    long *pos;                 /* this rank's positions in the minibatch */
} gan_t;

static void *xcalloc(size_t count, size_t each)
{
    void *p = calloc(count ? count : 1, each);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static net_t make_net(int in, int hidden, int out)
{
    net_t N = { in, hidden, out, 0, 0, 0, 0 };
    N.b1 = (long)hidden * in;
    N.w2 = N.b1 + hidden;
    N.b2 = N.w2 + (long)out * hidden;
    N.count = N.b2 + out;
    return N;
}

static void net_init(double *p, const net_t *N, uint64_t seed, uint64_t stream)
{
    pr_rng rng = pr_rng_seed(seed, stream);
    memset(p, 0, (size_t)N->count * sizeof *p);
    for (long i = 0; i < N->b1; i++)
        p[i] = pr_rng_double(&rng, -1.0, 1.0);
    for (long i = N->w2; i < N->b2; i++)
        p[i] = pr_rng_double(&rng, -1.0, 1.0) / sqrt((double)N->hidden);
}

/* A standard normal number (Box-Muller), from the generator. */
static double normal(pr_rng *rng)
{
    double u = pr_rng_double(rng, 1e-12, 1.0), v = pr_rng_double(rng, 0.0, 1.0);
    return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

static dataset_t make_dataset(long n, uint64_t seed)
{
    dataset_t data = { n, xcalloc(2 * (size_t)n, sizeof(double)) };
    pr_rng rng = pr_rng_seed(seed, 1);
    for (long i = 0; i < n; i++) {
        double angle = 2.0 * PI * (double)pr_rng_range(&rng, 0, MODES - 1) / MODES;
        data.x[2 * i] = RADIUS * cos(angle) + SPREAD * normal(&rng);
        data.x[2 * i + 1] = RADIUS * sin(angle) + SPREAD * normal(&rng);
    }
    return data;
}

/* The noise of one minibatch, 2 numbers per position, made from the seed, the
 * step and the half (D or G), the same on every rank. */
static void make_noise(double *z, long batch, uint64_t seed, long step, int half)
{
    pr_rng rng = pr_rng_seed(seed, 100000 + 2 * (uint64_t)step + (uint64_t)half);
    for (long i = 0; i < 2 * batch; i++)
        z[i] = normal(&rng);
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

static double sigmoid(double t)
{
    return 1.0 / (1.0 + exp(-t));
}

/* log(1 + e^t), without overflow for large t. */
static double softplus(double t)
{
    return t > 0 ? t + log1p(exp(-t)) : log1p(exp(t));
}

/* The mean over the minibatch: allreduced (DDP), or just divided (serial). */
static void mean_of(const double *local, double *mean, long count, long batch, int distributed)
{
    if (distributed) {
        allreduce_mean(local, mean, count, batch);
        return;
    }
    for (long i = 0; i < count; i++)
        mean[i] = local[i] / (double)batch;
}

/* The D step on the shard: real points real[pos[b]] and fake points
 * G(noise[pos[b]]).  Returns the minibatch's D loss. */
static double d_step(gan_t *m, const dataset_t *data, const long *batch_idx, const double *noise,
                     long batch, long count, int distributed)
{
    const net_t *G = &m->G, *D = &m->D;
    memset(m->d_local, 0, (size_t)(D->count + 1) * sizeof(double));
    for (long b = 0; b < count; b++) {
        double fake[2], logit, dlogit;
        const double *real = data->x + 2 * batch_idx[m->pos[b]];
        net_forward(m->d, D, real, m->hd, &logit); /* label 1 */
        m->d_local[D->count] += softplus(-logit);
        dlogit = sigmoid(logit) - 1.0;
        net_backward(m->d, D, real, m->hd, &dlogit, m->d_local, NULL);

        net_forward(m->g, G, noise + 2 * m->pos[b], m->hg, fake); /* label 0 */
        net_forward(m->d, D, fake, m->hd, &logit);
        m->d_local[D->count] += softplus(logit);
        dlogit = sigmoid(logit);
        net_backward(m->d, D, fake, m->hd, &dlogit, m->d_local, NULL);
    }
    mean_of(m->d_local, m->d_mean, D->count + 1, batch, distributed);
    for (long i = 0; i < D->count; i++)
        m->d[i] -= LEARNING_RATE * m->d_mean[i];
    return m->d_mean[D->count];
}

/* The G step on the shard: fake points G(noise[pos[b]]), judged by the
 * updated D; the gradient goes back through D's input into G.  Returns the
 * minibatch's G loss. */
static double g_step(gan_t *m, const double *noise, long batch, long count, int distributed)
{
    const net_t *G = &m->G, *D = &m->D;
    memset(m->g_local, 0, (size_t)(G->count + 1) * sizeof(double));
    for (long b = 0; b < count; b++) {
        const double *z = noise + 2 * m->pos[b];
        double fake[2], logit, dfake[2];
        net_forward(m->g, G, z, m->hg, fake);
        net_forward(m->d, D, fake, m->hd, &logit);
        m->g_local[G->count] += softplus(-logit); /* G wants D to say "real" */
        double dlogit = sigmoid(logit) - 1.0;
        net_backward(m->d, D, fake, m->hd, &dlogit, m->d_scratch, dfake);
        net_backward(m->g, G, z, m->hg, dfake, m->g_local, NULL);
    }
    mean_of(m->g_local, m->g_mean, G->count + 1, batch, distributed);
    for (long i = 0; i < G->count; i++)
        m->g[i] -= LEARNING_RATE * m->g_mean[i];
    return m->g_mean[G->count];
}

typedef struct {
    const dataset_t *data;
    int hidden, epochs, distributed; /* distributed 0: the serial run, this rank alone */
    long batch;
    uint64_t seed;
    double *g, *d;                /* the trained networks (G.count and D.count numbers) */
    double *d_loss, *g_loss;      /* each epoch's mean minibatch losses */
} run_t;

static void train(run_t *r)
{
    int rank = 0, size = 1;
    if (r->distributed) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    long n = r->data->n;
    gan_t m = { .G = make_net(2, r->hidden, 2), .D = make_net(2, r->hidden, 1) };
    m.g = r->g;
    m.d = r->d;
    m.g_local = xcalloc((size_t)m.G.count + 1, sizeof(double));
    m.g_mean = xcalloc((size_t)m.G.count + 1, sizeof(double));
    m.d_local = xcalloc((size_t)m.D.count + 1, sizeof(double));
    m.d_mean = xcalloc((size_t)m.D.count + 1, sizeof(double));
    m.d_scratch = xcalloc((size_t)m.D.count, sizeof(double));
    m.hg = xcalloc((size_t)r->hidden, sizeof(double));
    m.hd = xcalloc((size_t)r->hidden, sizeof(double));
    m.pos = xcalloc((size_t)r->batch, sizeof(long));
    long *perm = xcalloc((size_t)n, sizeof *perm);
    double *noise = xcalloc(2 * (size_t)r->batch, sizeof(double));
    net_init(m.g, &m.G, r->seed, 2);
    net_init(m.d, &m.D, r->seed, 3);
    long step = 0;
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        double d_sum = 0.0, g_sum = 0.0;
        for (long start = 0; start < n; start += r->batch, step++) {
            long batch = n - start < r->batch ? n - start : r->batch, count = 0;
            for (long b = rank; b < batch; b += size) /* the sampler of task 3 */
                m.pos[count++] = b;
            make_noise(noise, batch, r->seed, step, 0);
            d_sum += batch * d_step(&m, r->data, perm + start, noise, batch, count, r->distributed);
            make_noise(noise, batch, r->seed, step, 1);
            g_sum += batch * g_step(&m, noise, batch, count, r->distributed);
        }
        r->d_loss[epoch] = d_sum / (double)n;
        r->g_loss[epoch] = g_sum / (double)n;
    }
    free(m.g_local);
    free(m.g_mean);
    free(m.d_local);
    free(m.d_mean);
    free(m.d_scratch);
    free(m.hg);
    free(m.hd);
    free(m.pos);
    free(perm);
    free(noise);
}

/* D's input gradient (TODO 1) against central differences of D's logit, at a
 * few points near the ring.  Returns the largest difference. */
static double input_gradient_check(int hidden, uint64_t seed)
{
    net_t D = make_net(2, hidden, 1);
    double *p = xcalloc((size_t)D.count, sizeof(double));
    double *grad = xcalloc((size_t)D.count, sizeof(double));
    double *h = xcalloc((size_t)hidden, sizeof(double));
    net_init(p, &D, seed, 3);
    pr_rng rng = pr_rng_seed(seed, 7);
    const double eps = 1e-5;
    double worst = 0.0, one = 1.0;
    for (int t = 0; t < 5; t++) {
        double x[2] = { pr_rng_double(&rng, -2.5, 2.5), pr_rng_double(&rng, -2.5, 2.5) }, dx[2];
        double logit, up, down;
        net_forward(p, &D, x, h, &logit);
        net_backward(p, &D, x, h, &one, grad, dx);
        for (int k = 0; k < 2; k++) {
            double keep = x[k];
            x[k] = keep + eps;
            net_forward(p, &D, x, h, &up);
            x[k] = keep - eps;
            net_forward(p, &D, x, h, &down);
            x[k] = keep;
            double numeric = (up - down) / (2.0 * eps), diff = fabs(dx[k] - numeric);
            if (t == 0 && pr_rank() == 0)
                printf("    dD/dx[%d] at (%.3f, %.3f): backward %13.9f   finite difference"
                       " %13.9f\n", k, x[0], x[1], dx[k], numeric);
            if (diff > worst || isnan(diff))
                worst = isnan(diff) ? INFINITY : diff;
        }
    }
    free(p);
    free(grad);
    free(h);
    return worst;
}

/* How many of the MODES clusters G's points land near (within 3 SPREAD),
 * and what share of its points land near any cluster. */
static void coverage(const double *g, int hidden, uint64_t seed, int *modes_hit, double *share)
{
    net_t G = make_net(2, hidden, 2);
    double *h = xcalloc((size_t)hidden, sizeof(double));
    int hits[MODES] = { 0 };
    long near = 0, samples = 2000;
    pr_rng rng = pr_rng_seed(seed, 9);
    for (long i = 0; i < samples; i++) {
        double z[2] = { normal(&rng), normal(&rng) }, x[2];
        net_forward(g, &G, z, h, x);
        for (int c = 0; c < MODES; c++) {
            double angle = 2.0 * PI * c / MODES;
            double dx = x[0] - RADIUS * cos(angle), dy = x[1] - RADIUS * sin(angle);
            if (dx * dx + dy * dy < 9.0 * SPREAD * SPREAD) {
                hits[c]++;
                near++;
            }
        }
    }
    *modes_hit = 0;
    for (int c = 0; c < MODES; c++)
        *modes_hit += hits[c] >= samples / (10 * MODES); /* at least a tenth of its share */
    *share = (double)near / (double)samples;
    free(h);
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

/* The spread of x over the ranks, relative to its largest value. */
static double spread_over_ranks(double x)
{
    double highest, lowest;
    MPI_Allreduce(&x, &highest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&x, &lowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    return (highest - lowest) / (fabs(highest) > 1.0 ? fabs(highest) : 1.0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 1000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 64, 1, n);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 20, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 16, 1, 10000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    net_t G = make_net(2, hidden, 2), D = make_net(2, hidden, 1);
    if (rank == 0)
        printf("task7: a GAN trained with DDP on %d rank%s, n=%ld real points, minibatch %ld,"
               " %d epochs, G and D with %d hidden units (%ld and %ld parameters), seed %llu\n",
               size, size == 1 ? "" : "s", n, batch, epochs, hidden, G.count, D.count,
               (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    if (rank == 0)
        printf("  D's input gradient (central differences, eps 1e-5):\n");
    double worst_grad = input_gradient_check(hidden, seed);
    const double grad_tol = 1e-6;

    run_t serial = { &data, hidden, epochs, 0, batch, seed,
                     xcalloc((size_t)G.count, sizeof(double)),
                     xcalloc((size_t)D.count, sizeof(double)),
                     xcalloc((size_t)epochs, sizeof(double)),
                     xcalloc((size_t)epochs, sizeof(double)) };
    run_t ddp = serial;
    ddp.distributed = 1;
    ddp.g = xcalloc((size_t)G.count, sizeof(double));
    ddp.d = xcalloc((size_t)D.count, sizeof(double));
    ddp.d_loss = xcalloc((size_t)epochs, sizeof(double));
    ddp.g_loss = xcalloc((size_t)epochs, sizeof(double));
    double t_serial = 0.0;
    if (rank == 0) { /* the serial run, timed while the other ranks sleep */
        double start = pr_now();
        train(&serial);
        t_serial = pr_now() - start;
    }
    quiet_barrier();
    double start = MPI_Wtime();
    train(&ddp);
    double mine = MPI_Wtime() - start, t_ddp;
    MPI_Allreduce(&mine, &t_ddp, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    double g_checksum = checksum_of(ddp.g, G.count), d_checksum = checksum_of(ddp.d, D.count);
    double spread_g = spread_over_ranks(g_checksum), spread_d = spread_over_ranks(d_checksum);
    double spread = spread_g > spread_d ? spread_g : spread_d;

    if (rank == 0) {
        printf("  %7s %14s %14s %14s %14s\n", "epoch", "serial D loss", "DDP D loss",
               "serial G loss", "DDP G loss");
        int every = epochs >= 10 ? epochs / 10 : 1;
        for (int e = 0; e < epochs; e++)
            if ((e + 1) % every == 0 || e == 0)
                printf("  %7d %14.10f %14.10f %14.10f %14.10f\n", e + 1, serial.d_loss[e],
                       ddp.d_loss[e], serial.g_loss[e], ddp.g_loss[e]);
        const double tol = 1e-9;
        double worst = max_rel_diff(ddp.d_loss, serial.d_loss, epochs);
        double w;
        if ((w = max_rel_diff(ddp.g_loss, serial.g_loss, epochs)) > worst || isnan(w))
            worst = isnan(w) ? INFINITY : w;
        if ((w = max_rel_diff(ddp.g, serial.g, G.count)) > worst || isnan(w))
            worst = isnan(w) ? INFINITY : w;
        if ((w = max_rel_diff(ddp.d, serial.d, D.count)) > worst || isnan(w))
            worst = isnan(w) ? INFINITY : w;
        int matches = worst <= tol;
        int modes_hit;
        double share;
        coverage(ddp.g, hidden, seed, &modes_hit, &share);
        printf("  largest |backward - finite difference| %.3g (allowed %g)\n", worst_grad,
               grad_tol);
        printf("  largest difference from the serial run (losses, parameters): %.3g (allowed %g)\n",
               worst, tol);
        printf("  G's points: %d of %d clusters hit, %.0f%% of its points near a cluster"
               " (not checked)\n", modes_hit, MODES, 100 * share);
        pr_check_int("input gradient check passed", worst_grad <= grad_tol, 1);
        pr_check_double("replica spread (relative)", spread, 0.0, 1e-12);
        pr_check_double("final D loss (DDP vs serial)", ddp.d_loss[epochs - 1],
                        serial.d_loss[epochs - 1], tol);
        pr_check_double("final G loss (DDP vs serial)", ddp.g_loss[epochs - 1],
                        serial.g_loss[epochs - 1], tol);
        pr_check_int("every loss, parameter equal", matches, 1);
        pr_result_int("input_gradient_check", worst_grad <= grad_tol);
        pr_result_int("replicas_identical", spread <= 1e-12);
        pr_result_double("d_loss", ddp.d_loss[epochs - 1], 1e-6);
        pr_result_double("g_loss", ddp.g_loss[epochs - 1], 1e-6);
        pr_result_double("g_checksum", g_checksum, 1e-6);
        pr_result_double("d_checksum", d_checksum, 1e-6);
        pr_result_int("matches_serial", matches);
        pr_print_time("serial training", t_serial, 0, NULL);
        char what[64];
        snprintf(what, sizeof what, "DDP training, %d rank%s", size, size == 1 ? "" : "s");
        pr_print_time(what, t_ddp, t_serial, "serial");
    }

    free(serial.g);
    free(serial.d);
    free(serial.d_loss);
    free(serial.g_loss);
    free(ddp.g);
    free(ddp.d);
    free(ddp.d_loss);
    free(ddp.g_loss);
    free(data.x);
    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
