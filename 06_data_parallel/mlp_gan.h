/*
 * mlp_gan.h -- the GAN of tasks 7 and 10: a one-hidden-layer network for any
 * number of inputs and outputs (net_t, make_net(), net_init(), net_forward()),
 * sigmoid(), softplus(), the ring data set (its own dataset_t and
 * make_dataset()), make_noise(), coverage(), gan_t, input_gradient_check().
 * It takes the place of mlp_data.h and mlp_model.h: never include both.
 *
 * No need to change anything here.  README.md, "Task 7 (stretch): a tiny GAN
 * trained with DDP" explains the GAN.
 */
#ifndef PARALLEL_ROOMS_MLP_GAN_H
#define PARALLEL_ROOMS_MLP_GAN_H

#include "mlp_common.h"

#define MODES 8                   /* clusters on the ring */
#define RADIUS 2.0                /* of the ring */
#define SPREAD 0.1                /* standard deviation of each cluster */
#define PI 3.14159265358979323846 /* M_PI is not in C11 */

/* A one-hidden-layer tanh MLP with `in` inputs and `out` outputs (task 1's
 * MLP, for any number of them), its parameters in one flat array:
 *     [ W1 (hidden x in) | b1 (hidden) | W2 (out x hidden) | b2 (out) ]
 * W1[j][k] is p[j * in + k], W2[o][j] is p[w2 + o * hidden + j]. */
typedef struct {
    int in, hidden, out;
    long b1, w2, b2, count;
} net_t;

static inline net_t make_net(int in, int hidden, int out)
{
    net_t N = { in, hidden, out, 0, 0, 0, 0 };
    N.b1 = (long)hidden * in;
    N.w2 = N.b1 + hidden;
    N.b2 = N.w2 + (long)out * hidden;
    N.count = N.b2 + out;
    return N;
}

/* Small random weights (biases 0) from the seed; `stream` tells the networks
 * apart.  The same on every rank. */
static inline void net_init(double *p, const net_t *N, uint64_t seed, uint64_t stream)
{
    pr_rng rng = pr_rng_seed(seed, stream);
    memset(p, 0, (size_t)N->count * sizeof *p);
    for (long i = 0; i < N->b1; i++)
        p[i] = pr_rng_double(&rng, -1.0, 1.0);
    for (long i = N->w2; i < N->b2; i++)
        p[i] = pr_rng_double(&rng, -1.0, 1.0) / sqrt((double)N->hidden);
}

/* Forward: y[0..out-1] from x[0..in-1]; keeps the activations h[0..hidden-1]. */
static inline MLP_HOST_DEVICE void net_forward(const double *p, const net_t *N, const double *x, double *h, double *y)
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

static inline MLP_HOST_DEVICE double sigmoid(double t)
{
    return 1.0 / (1.0 + exp(-t));
}

/* log(1 + e^t), without overflow for large t. */
static inline MLP_HOST_DEVICE double softplus(double t)
{
    return t > 0 ? t + log1p(exp(-t)) : log1p(exp(t));
}

/* A standard normal number (Box-Muller), from the generator. */
static inline double normal(pr_rng *rng)
{
    double u = pr_rng_double(rng, 1e-12, 1.0), v = pr_rng_double(rng, 0.0, 1.0);
    return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

typedef struct {
    long n;
    double *x; /* n x 2 real points */
} dataset_t;

/* The real data: n points on a ring of MODES small clusters, from the seed. */
static inline dataset_t make_dataset(long n, uint64_t seed)
{
    dataset_t data = { n, (double *)xcalloc(2 * (size_t)n, sizeof(double)) };
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
static inline void make_noise(double *z, long batch, uint64_t seed, long step, int half)
{
    pr_rng rng = pr_rng_seed(seed, 100000 + 2 * (uint64_t)step + (uint64_t)half);
    for (long i = 0; i < 2 * batch; i++)
        z[i] = normal(&rng);
}

/* How many of the MODES clusters the generator's points (parameters g) land
 * near (within 3 SPREAD), and what share of its points land near any cluster. */
static inline void coverage(const double *g, int hidden, uint64_t seed, int *modes_hit,
                            double *share)
{
    net_t G = make_net(2, hidden, 2);
    double *h = (double *)xcalloc((size_t)hidden, sizeof(double));
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

/* Both networks, their gradients and scratch space, on one rank: the GAN's
 * state while it trains.  gan_alloc() makes it for minibatches of up to
 * `batch` positions, on the parameters in params (G's, then D's: G.count +
 * D.count numbers); gan_free() frees what gan_alloc() allocated. */
typedef struct {
    net_t G, D;
    double *g, *d;             /* the parameters */
    double *g_local, *d_local; /* gradient sums over this rank's shard, + the loss sum */
    double *g_mean, *d_mean;   /* the same over all ranks, divided by the batch */
    double *d_scratch;         /* D's parameter gradient in the G step (not used) */
    double *hg, *hd;           /* hidden activations of G and of D */
    long *pos;                 /* this rank's positions in the minibatch */
} gan_t;

static inline gan_t gan_alloc(int hidden, long batch, double *params)
{
    gan_t m;
    m.G = make_net(2, hidden, 2);
    m.D = make_net(2, hidden, 1);
    m.g = params;
    m.d = params + m.G.count;
    m.g_local = (double *)xcalloc((size_t)m.G.count + 1, sizeof(double));
    m.g_mean = (double *)xcalloc((size_t)m.G.count + 1, sizeof(double));
    m.d_local = (double *)xcalloc((size_t)m.D.count + 1, sizeof(double));
    m.d_mean = (double *)xcalloc((size_t)m.D.count + 1, sizeof(double));
    m.d_scratch = (double *)xcalloc((size_t)m.D.count, sizeof(double));
    m.hg = (double *)xcalloc((size_t)hidden, sizeof(double));
    m.hd = (double *)xcalloc((size_t)hidden, sizeof(double));
    m.pos = (long *)xcalloc((size_t)batch, sizeof(long));
    return m;
}

static inline void gan_free(gan_t *m)
{
    free(m->g_local), free(m->g_mean), free(m->d_local), free(m->d_mean), free(m->d_scratch);
    free(m->hg), free(m->hd), free(m->pos);
}

/* The backward pass of a net_t, the one task 7 writes (its TODO 1 is in it):
 * ADDS one sample's gradient to grad[] and, when dx is not NULL, sets dx to the
 * gradient with respect to the network's input. */
typedef void (*net_backward_fn)(const double *p, const net_t *N, const double *x, const double *h,
                                const double *dy, double *grad, double *dx);

/* Checks a backward pass's input gradient: D's, at a few points near the ring,
 * against central differences of D's logit (rank 0 prints the first point's).
 * Returns the largest difference. */
static inline double input_gradient_check(int hidden, uint64_t seed, net_backward_fn backward)
{
    net_t D = make_net(2, hidden, 1);
    double *p = (double *)xcalloc((size_t)D.count, sizeof(double));
    double *grad = (double *)xcalloc((size_t)D.count, sizeof(double));
    double *h = (double *)xcalloc((size_t)hidden, sizeof(double));
    net_init(p, &D, seed, 3);
    pr_rng rng = pr_rng_seed(seed, 7);
    const double eps = 1e-5;
    double worst = 0.0, one = 1.0;
    if (pr_rank() == 0)
        printf("  D's input gradient (central differences, eps 1e-5):\n");
    for (int t = 0; t < 5; t++) {
        double x[2] = { pr_rng_double(&rng, -2.5, 2.5), pr_rng_double(&rng, -2.5, 2.5) }, dx[2];
        double logit, up, down;
        net_forward(p, &D, x, h, &logit);
        backward(p, &D, x, h, &one, grad, dx);
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
    free(p), free(grad), free(h);
    return worst;
}

#endif /* PARALLEL_ROOMS_MLP_GAN_H */
