/*
 * mlp_gan_gpu.h -- task 10's tools for the GAN on one GPU: backward_params()
 * and d_row() (the D half's row, CPU and GPU), a run's arrays (gan_mem,
 * gan_mem_host(), gan_mem_gpu(), gan_mem_free()), gan_epoch_inputs(),
 * gan_epoch_loss(), g_gradient_check().  Task 10 itself holds the G half and
 * the kernels.  CUDA: built by nvcc or by the simulator.
 *
 * No need to change anything here.  README.md, "Task 10 (stretch): the GAN on
 * the GPU" explains them.
 */
#ifndef PARALLEL_ROOMS_MLP_GAN_GPU_H
#define PARALLEL_ROOMS_MLP_GAN_GPU_H

#include "mlp_gan.h"

#if !defined(__CUDACC__) && !defined(CUDA_SIM)
#error "mlp_gan_gpu.h is CUDA: build with nvcc or with the simulator (grading/sim/simcc)"
#endif

#define GAN_MAX_HIDDEN 32 /* a GPU thread keeps a network's hidden layer in registers */

/* ADDS to grad[] one sample's gradient of a network's parameters, for
 * dy[o] = dL/dy[o]; x and h are the input and the activations its forward pass
 * kept.  (Task 7's net_backward without the input gradient.)  CPU and GPU. */
static inline MLP_HOST_DEVICE void backward_params(const double *p, const net_t *N, const double *x, const double *h,
                                                   const double *dy, double *grad)
{
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
    }
}

/* The D half's row for one sample (task 7's d_step, one sample): the real
 * point `real` (label 1) and the fake point G(z) (label 0).  row[0 ..
 * D.count-1] = the gradient of softplus(-D(real)) + softplus(D(G(z))) with
 * respect to D's parameters, row[D.count] = that loss.  CPU and GPU. */
static inline MLP_HOST_DEVICE void d_row(const double *g, const double *d, const net_t *G, const net_t *D,
                                         const double *real, const double *z, double *row)
{
    double hg[GAN_MAX_HIDDEN], hd[GAN_MAX_HIDDEN], fake[2], logit, dlogit;
    for (long i = 0; i <= D->count; i++)
        row[i] = 0.0;
    net_forward(d, D, real, hd, &logit);
    row[D->count] += softplus(-logit);
    dlogit = sigmoid(logit) - 1.0;
    backward_params(d, D, real, hd, &dlogit, row);
    net_forward(g, G, z, hg, fake);
    net_forward(d, D, fake, hd, &logit);
    row[D->count] += softplus(logit);
    dlogit = sigmoid(logit);
    backward_params(d, D, fake, hd, &dlogit, row);
}

/* Where a training run's arrays live: in CPU memory (gan_mem_host) or on the
 * GPU (gan_mem_gpu, the same sizes); gan_mem_free() frees either. */
typedef struct {
    net_t G, D;
    long n, batch, steps;      /* real points; the minibatch; minibatches an epoch */
    double *g, *d;             /* the parameters: one array of G's then D's (d = g + G.count) */
    double *x;                 /* the real points, 2 numbers each */
    long *perm;                /* the epoch's order of the real points */
    double *noise_d, *noise_g; /* the epoch's noise for D's and G's halves, 2 numbers a position */
    double *rows;              /* batch rows of the wider network's width */
    double *step_loss;         /* the epoch's losses: D's and G's for each step */
} gan_mem;

/* The CPU side: params (G.count + D.count numbers) and data->x are the
 * caller's; the rest is allocated here. */
static inline gan_mem gan_mem_host(int hidden, const dataset_t *data, long batch, double *params)
{
    gan_mem m;
    m.G = make_net(2, hidden, 2);
    m.D = make_net(2, hidden, 1);
    m.n = data->n;
    m.batch = batch;
    m.steps = (data->n + batch - 1) / batch;
    long width = (m.G.count > m.D.count ? m.G.count : m.D.count) + 1;
    m.g = params;
    m.d = params + m.G.count;
    m.x = data->x;
    m.perm = (long *)xcalloc((size_t)m.n, sizeof(long));
    m.noise_d = (double *)xcalloc(2 * (size_t)m.n, sizeof(double));
    m.noise_g = (double *)xcalloc(2 * (size_t)m.n, sizeof(double));
    m.rows = (double *)xcalloc((size_t)(batch * width), sizeof(double));
    m.step_loss = (double *)xcalloc(2 * (size_t)m.steps, sizeof(double));
    return m;
}

/* The same arrays on the GPU, allocated, not filled (the copies are the
 * caller's, to be timed); step_loss is zeroed. */
static inline gan_mem gan_mem_gpu(const gan_mem *host)
{
    gan_mem m = *host;
    long width = (m.G.count > m.D.count ? m.G.count : m.D.count) + 1;
    CHECK(cudaMalloc(&m.g, (size_t)(m.G.count + m.D.count) * sizeof(double)));
    m.d = m.g + m.G.count;
    CHECK(cudaMalloc(&m.x, 2 * (size_t)m.n * sizeof(double)));
    CHECK(cudaMalloc(&m.perm, (size_t)m.n * sizeof(long)));
    CHECK(cudaMalloc(&m.noise_d, 2 * (size_t)m.n * sizeof(double)));
    CHECK(cudaMalloc(&m.noise_g, 2 * (size_t)m.n * sizeof(double)));
    CHECK(cudaMalloc(&m.rows, (size_t)(m.batch * width) * sizeof(double)));
    CHECK(cudaMalloc(&m.step_loss, 2 * (size_t)m.steps * sizeof(double)));
    CHECK(cudaMemset(m.step_loss, 0, 2 * (size_t)m.steps * sizeof(double)));
    return m;
}

static inline void gan_mem_free(gan_mem *m, int on_gpu)
{
    if (on_gpu) {
        void *arrays[] = { m->g, m->x, m->perm, m->noise_d, m->noise_g, m->rows, m->step_loss };
        for (int i = 0; i < 7; i++)
            CHECK(cudaFree(arrays[i]));
    } else {
        free(m->perm), free(m->noise_d), free(m->noise_g), free(m->rows), free(m->step_loss);
    }
}

/* An epoch's order of the real points and its noise, made on the CPU as in
 * task 7 (the noise from the seed and the step; *step counts the steps). */
static inline void gan_epoch_inputs(gan_mem *host, uint64_t seed, int epoch, int *step)
{
    shuffle(host->perm, host->n, seed, epoch);
    for (long first = 0; first < host->n; first += host->batch, (*step)++) {
        long size = host->n - first < host->batch ? host->n - first : host->batch;
        make_noise(host->noise_d + 2 * first, size, seed, *step, 0);
        make_noise(host->noise_g + 2 * first, size, seed, *step, 1);
    }
}

/* The epoch's mean D and G losses from its steps' (weighted by their sizes). */
static inline void gan_epoch_loss(const gan_mem *host, double *d_loss, double *g_loss)
{
    double d_sum = 0.0, g_sum = 0.0;
    for (long first = 0, s = 0; first < host->n; first += host->batch, s++) {
        long size = host->n - first < host->batch ? host->n - first : host->batch;
        d_sum += (double)size * host->step_loss[2 * s];
        g_sum += (double)size * host->step_loss[2 * s + 1];
    }
    *d_loss = d_sum / (double)host->n;
    *g_loss = g_sum / (double)host->n;
}

/* softplus(-D(G(z))) for one noise z: the G loss. */
static inline double gan_g_loss(const double *g, const double *d, const net_t *G, const net_t *D, const double *z)
{
    double hg[GAN_MAX_HIDDEN], hd[GAN_MAX_HIDDEN], fake[2], logit;
    net_forward(g, G, z, hg, fake);
    net_forward(d, D, fake, hd, &logit);
    return softplus(-logit);
}

/* Task 10's G row (the gradient of G's loss for one noise z, and the loss). */
typedef void (*g_row_fn)(const double *g, const double *d, const net_t *G, const net_t *D, const double *z,
                         double *row);

/* Checks a G row against central differences of the G loss, for every G
 * parameter and three noises; prints one.  Returns the largest difference. */
static inline double g_gradient_check(int hidden, uint64_t seed, g_row_fn g_row)
{
    net_t G = make_net(2, hidden, 2), D = make_net(2, hidden, 1);
    double *g = (double *)xcalloc((size_t)G.count, sizeof(double));
    double *d = (double *)xcalloc((size_t)D.count, sizeof(double));
    double *row = (double *)xcalloc((size_t)G.count + 1, sizeof(double));
    net_init(g, &G, seed, 2);
    net_init(d, &D, seed, 3);
    double worst = 0.0, z[2];
    const double eps = 1e-5;
    for (int t = 0; t < 3; t++) {
        make_noise(z, 1, seed, 777 + t, 0);
        g_row(g, d, &G, &D, z, row);
        for (long i = 0; i < G.count; i++) {
            double keep = g[i];
            g[i] = keep + eps;
            double up = gan_g_loss(g, d, &G, &D, z);
            g[i] = keep - eps;
            double down = gan_g_loss(g, d, &G, &D, z);
            g[i] = keep;
            double numeric = (up - down) / (2.0 * eps), diff = fabs(row[i] - numeric);
            if (t == 0 && i == G.b2)
                printf("  dL_G/d(G's first output bias): row %.9f, finite difference %.9f\n", row[i], numeric);
            if (diff > worst || isnan(diff))
                worst = isnan(diff) ? INFINITY : diff;
        }
    }
    free(g), free(d), free(row);
    return worst;
}

#endif /* PARALLEL_ROOMS_MLP_GAN_GPU_H */
