/*
 * mlp.h -- room 06's shared scaffolding: the model the tasks train, its data,
 * the serial baseline, and the checks that compare a parallel run with it.
 *
 * No need to change anything here.  It is lesson code all the same, worth one
 * read: README.md, "Training: SGD on minibatches" explains the data set, the
 * MLP and its flat layout, "Forward and backward by hand" its two passes, and
 * "Why the replicas never drift apart" the checks.  Every task includes it
 * after pr.h (an MPI task after #define PR_MPI, which adds the MPI parts):
 *
 *     #include "pr.h"
 *     #include "mlp.h"
 *
 * What it holds, section by section:
 *   every task    xcalloc(), shuffle(), split(), checksum_of(), max_rel_diff(),
 *                 print_loss_curves(), check_same_training()
 *   MPI tasks     time_on_rank0() (with pr.h's quiet_barrier()), spread_over_ranks(),
 *                 check_replicas_identical()
 *   the MLP       D, LEARNING_RATE, layout_t, make_layout(), dataset_t,
 *   (not 7, 10)   make_dataset(), mlp_init(), mlp_forward()
 *   the pipeline  STAGES, stage_t, make_stage(), free_stage(), collect_on_rank0()
 *   (task 9)
 *   the GAN       net_t, make_net(), net_init(), net_forward(), sigmoid(),
 *   (tasks 7, 10) softplus(), the ring data set, make_noise(), gan_t,
 *                 input_gradient_check(), coverage()
 *   the GAN on    GAN_MAX_HIDDEN, backward_params(), d_row() (CPU and GPU), gan_mem
 *   a GPU         and gan_mem_host(), gan_mem_gpu(), gan_mem_free(), gan_epoch_inputs(),
 *   (task 10)     gan_epoch_loss(), g_gradient_check()
 *   the GPUs      NCCL's communicator (HAVE_NCCL), pick_gpu(), print_cpu_baselines(),
 *   (task 6)      print_ddp_time() (CHECK() is pr.h's), replica_t; mlp_forward() and
 *                 mlp_backward() run on the GPU too
 *   the MLP's     mlp_backward() (in two halves, one per layer), serial_step(),
 *   backward      train_serial(), time_train_openmp() (task 6's CPU baseline on all
 *   pass          cores): the last section, because it is task 1's answer (see below)
 *
 * A task that needs a section differently says so before the #include: task
 * 7 and task 10 define MLP_GAN (the GAN's two networks and data instead of the MLP), task 9
 * MLP_PIPELINE (the section on the pipeline's stages), and
 * task 1 defines MLP_OWN_BACKWARD: task 1 asks you to write mlp_backward()
 * yourself, so this file then leaves out its last section.  Working on task 1,
 * stop reading at the line that says "Task 1's answer".
 *
 * Every function is static inline: a task that does not call one gets no
 * warning about it.  Tasks 6 and 10 are CUDA C++, so the code they use casts
 * what xcalloc() returns and initialises structs field by field; the GAN's
 * net_forward(), sigmoid() and softplus() run on the GPU too (task 10).
 */
#ifndef PARALLEL_ROOMS_MLP_H
#define PARALLEL_ROOMS_MLP_H

#include "pr.h"

#ifdef _OPENMP
#include <omp.h> /* task 6's CPU baseline on all cores (built with OpenMP as a CUDA program) */
#endif

/* Task 6 runs the MLP's forward and backward passes on the GPU too: compiled
 * as CUDA (by nvcc, or by the simulator) they are __host__ __device__. */
#if defined(__CUDACC__) || defined(CUDA_SIM)
#define MLP_HOST_DEVICE __host__ __device__
#else
#define MLP_HOST_DEVICE
#endif

/* ------------------------------------------------------------------------- */
/* For every task                                                            */
/* ------------------------------------------------------------------------- */

/* calloc() that never returns NULL: running out of memory ends the program (in
 * an MPI task every rank, with MPI_Abort).  A count of 0 still gives a pointer
 * that free() takes: a rank's shard may be empty. */
static inline void *xcalloc(size_t count, size_t each)
{
    void *p = calloc(count ? count : 1, each);
    if (!p) {
        fprintf(stderr, "out of memory\n");
#ifdef PR_MPI
        MPI_Abort(MPI_COMM_WORLD, 1);
#endif
        exit(1);
    }
    return p;
}

/* A fresh random order of [0, n) for each epoch (Fisher-Yates), from the seed
 * and the epoch: the same on every rank, as PyTorch's DistributedSampler makes
 * it with set_epoch(). */
static inline void shuffle(long *perm, long n, uint64_t seed, int epoch)
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

/* sum_i (i+1) p[i]: one number that changes when any parameter does. */
static inline double checksum_of(const double *p, long count)
{
    double sum = 0.0;
    for (long i = 0; i < count; i++)
        sum += (double)(i + 1) * p[i];
    return sum;
}

/* The largest |a[i] - b[i]| / max(1, |b[i]|): 0 when a equals b, infinite
 * when a holds a NaN. */
static inline double max_rel_diff(const double *a, const double *b, long count)
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

/* Splits `count` things (samples, numbers) into `parts` contiguous pieces
 * whose sizes differ by at most one, the first count % parts pieces one larger
 * (room 03's uneven split): piece number `part` is things lo..hi-1. */
static inline void split(long count, int parts, int part, long *lo, long *hi)
{
    long base = count / parts, extra = count % parts;
    *lo = part * base + (part < extra ? part : extra);
    *hi = *lo + base + (part < extra ? 1 : 0);
}

/* Two runs' loss curves side by side, about ten epochs of them (rank 0). */
static inline void print_loss_curves(const char *left, const double *a, const char *right,
                                     const double *b, int epochs)
{
    if (pr_rank() != 0)
        return;
    printf("  %7s %18s %18s\n", "epoch", left, right);
    int every = epochs >= 10 ? epochs / 10 : 1;
    for (int e = 0; e < epochs; e++)
        if ((e + 1) % every == 0 || e == 0)
            printf("  %7d %18.12f %18.12f\n", e + 1, a[e], b[e]);
}

/* Checks that a run trained the same model as the reference run `ref` (the
 * serial one, as a rule): every epoch's loss and every final parameter equal
 * to 1e-9 relative.  Not exactly: the parallel run adds up the same numbers in
 * another order (about 1e-16 apart in practice).  Rank 0 prints the largest
 * differences and checks the final loss, a checksum of the parameters and all
 * of them; it returns 1 when they agree (the other ranks, which may not hold
 * the reference, return 0). */
static inline int check_same_training(const char *way, const char *ref, const double *params,
                                      const double *loss, const double *ref_params,
                                      const double *ref_loss, long count, int epochs)
{
    if (pr_rank() != 0)
        return 0;
    const double tol = 1e-9;
    double worst_loss = max_rel_diff(loss, ref_loss, epochs);
    double worst_param = max_rel_diff(params, ref_params, count);
    int matches = worst_loss <= tol && worst_param <= tol;
    printf("  largest difference from the %s run: losses %.3g, parameters %.3g (allowed %g)\n", ref,
           worst_loss, worst_param, tol);
    char what[80];
    snprintf(what, sizeof what, "final loss (%s vs %s)", way, ref);
    pr_check_double(what, loss[epochs - 1], ref_loss[epochs - 1], tol);
    snprintf(what, sizeof what, "checksum (%s vs %s)", way, ref);
    pr_check_double(what, checksum_of(params, count), checksum_of(ref_params, count), tol);
    pr_check_int("every loss, parameter equal", matches, 1);
    return matches;
}

/* ------------------------------------------------------------------------- */
/* MPI tasks (#define PR_MPI)                                                */
/* ------------------------------------------------------------------------- */
#ifdef PR_MPI

/* Runs fn(ctx) on rank 0 alone and returns the seconds it took there (0 on the
 * other ranks, which sleep in quiet_barrier() meanwhile, so that the serial
 * run is timed on a core of its own). */
static inline double time_on_rank0(void (*fn)(void *), void *ctx)
{
    double seconds = 0.0;
    if (pr_rank() == 0) {
        double start = pr_now();
        fn(ctx);
        seconds = pr_now() - start;
    }
    quiet_barrier();
    return seconds;
}

/* How far x differs over the ranks, relative to its largest value: 0 when every
 * rank holds the same x (a checksum: identical replicas).  *highest and *lowest
 * get the largest and the smallest x. */
static inline double spread_over_ranks(double x, double *highest, double *lowest)
{
    PR_SCAFFOLD(MPI_Allreduce(&x, highest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    PR_SCAFFOLD(MPI_Allreduce(&x, lowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
    return (*highest - *lowest) / (fabs(*highest) > 1.0 ? fabs(*highest) : 1.0);
}

/* Checks that every rank holds the same replica: the spread over the ranks of
 * its checksum must be 0 (to 1e-12, relative).  Call it on every rank; rank 0
 * prints the largest and the smallest checksum and the check `what`.  Returns 1
 * on every rank when the replicas are identical. */
static inline int check_replicas_identical(const char *what, double checksum)
{
    double highest, lowest;
    double spread = spread_over_ranks(checksum, &highest, &lowest);
    if (pr_rank() == 0) {
        printf("  checksum of the parameters: max %.17g, min %.17g over the ranks\n", highest,
               lowest);
        pr_check_double(what, spread, 0.0, 1e-12);
    }
    return spread <= 1e-12;
}

#endif /* PR_MPI */

/* ------------------------------------------------------------------------- */
/* The MLP of task 1, and its data set (every task but tasks 7 and 10)      */
/* ------------------------------------------------------------------------- */
#ifndef MLP_GAN

#define D 2 /* inputs per sample */
#ifndef LEARNING_RATE
#define LEARNING_RATE 0.1 /* the SGD step size (for wider MLPs: see make_layout) */
#endif

/* The MLP's parameters live in one flat array, so that copying, summing and
 * sending all of them is one loop or one call:
 *
 *     [ W1 (H x D, row j = hidden unit j) | b1 (H) | W2 (H) | b2 (1) ]
 *
 * W1[j][k] is p[j * D + k]; the others start at the offsets below.  A
 * gradient has the same layout. */
typedef struct {
    int hidden; /* H */
    long b1, w2, b2;
    long count; /* H*D + H + H + 1 numbers in all */
    double lr;  /* the MLP's SGD step size */
} layout_t;

static inline layout_t make_layout(int hidden)
{
    layout_t L;
    L.hidden = hidden;
    L.b1 = (long)hidden * D;
    L.w2 = L.b1 + hidden;
    L.b2 = L.w2 + hidden;
    L.count = L.b2 + 1;
    /* A step moves yhat by about lr * H * dout through the H output weights,
     * so wider layers need smaller steps, or training diverges. */
    L.lr = hidden <= 12 ? LEARNING_RATE : LEARNING_RATE * 12.0 / hidden;
    return L;
}

typedef struct {
    long n;
    double *x; /* n x D, row-major */
    double *y; /* n */
} dataset_t;

/* The function the models try to learn. */
static inline double target_fn(const double *x)
{
    return sin(2.0 * x[0]) + 0.5 * x[0] * x[1];
}

/* n samples made from the seed (nothing is downloaded): inputs uniform in
 * [-1.5, 1.5]^2, targets target_fn plus a little noise.  Every rank makes the
 * same whole data set. */
static inline dataset_t make_dataset(long n, uint64_t seed)
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

/* Small random weights (biases 0), from the seed: tanh units start in their
 * steep middle, and different units start different.  Every rank makes the
 * same initial model. */
static inline void mlp_init(double *p, const layout_t *L, uint64_t seed)
{
    pr_rng rng = pr_rng_seed(seed, 2);
    memset(p, 0, (size_t)L->count * sizeof *p);
    for (long i = 0; i < L->b1; i++)
        p[i] = pr_rng_double(&rng, -1.0, 1.0);
    for (int j = 0; j < L->hidden; j++)
        p[L->w2 + j] = pr_rng_double(&rng, -1.0, 1.0) / sqrt((double)L->hidden);
}

/* Forward pass for one sample: returns yhat and keeps the hidden activations
 * h[0..H-1], which the backward pass needs. */
static inline MLP_HOST_DEVICE double mlp_forward(const double *p, const layout_t *L,
                                                 const double *x, double *h)
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

#endif /* !MLP_GAN */

/* ------------------------------------------------------------------------- */
/* The pipeline's stages (task 9, #define MLP_PIPELINE): the MLP cut in two   */
/* ------------------------------------------------------------------------- */
#if defined(MLP_PIPELINE) && defined(PR_MPI) && !defined(MLP_GAN)

#define STAGES 2 /* one rank per stage */

/* One rank's pipeline stage: its part of the MLP's flat parameter array,
 *     [ W1 (H x D) | b1 (H) | W2 (H) | b2 ],
 * stage 0 the first two blocks (it computes h = tanh(W1 x + b1)), stage 1 the
 * last two (yhat = W2 . h + b2, and the loss), and what it keeps for one
 * minibatch.  Row b of h and of dh belongs to sample b of the minibatch. */
typedef struct {
    int stage;          /* 0 or 1: the same as the rank */
    const layout_t *L;  /* the whole MLP's layout: H, and where each block starts */
    long first, count;  /* this stage's parameters: the flat array's first .. first+count-1 */
    double *p;          /* count of them: p[i] is the flat array's number first + i */
    double *grad;       /* count: their gradient, accumulated over a minibatch's micro-batches */
    double *micro_grad; /* count: one micro-batch's gradient (of its own mean loss) */
    double *h;          /* batch x H: the hidden activations (stage 0 computes, stage 1 gets them) */
    double *dh;         /* batch x H: dL/dh, the gradient with respect to them (the other way) */
    double *err;        /* batch: yhat - y (stage 1) */
    double busy;        /* seconds spent computing (not sending, nor waiting for a message) */
} stage_t;

/* This rank's stage, for minibatches of up to `batch` samples, holding its part
 * of the initial model (the serial run's, from the same seed).  A real pipeline
 * would initialise only its own layers: this MLP is small enough to make whole. */
static inline stage_t make_stage(int rank, const layout_t *L, long batch, uint64_t seed)
{
    stage_t s = { .stage = rank, .L = L };
    s.first = rank == 0 ? 0 : L->w2;
    s.count = rank == 0 ? L->w2 : L->count - L->w2;
    s.p = xcalloc((size_t)s.count, sizeof(double));
    s.grad = xcalloc((size_t)s.count, sizeof(double));
    s.micro_grad = xcalloc((size_t)s.count, sizeof(double));
    s.h = xcalloc((size_t)batch * (size_t)L->hidden, sizeof(double));
    s.dh = xcalloc((size_t)batch * (size_t)L->hidden, sizeof(double));
    s.err = xcalloc((size_t)batch, sizeof(double));
    double *whole = xcalloc((size_t)L->count, sizeof(double));
    mlp_init(whole, L, seed);
    memcpy(s.p, whole + s.first, (size_t)s.count * sizeof(double));
    free(whole);
    return s;
}

static inline void free_stage(stage_t *s)
{
    free(s->p), free(s->grad), free(s->micro_grad), free(s->h), free(s->dh), free(s->err);
}

/* After training, on both ranks: stage 1 sends rank 0 its parameters, its
 * epochs' losses (only the last stage sees the targets) and its busy time, in
 * one message of tag `tag`; rank 0 puts the whole model together in params
 * (L->count numbers), the losses in epoch_loss and both stages' times in busy. */
static inline void collect_on_rank0(const stage_t *s, int epochs, int tag, double *params, double *epoch_loss,
                                    double busy[STAGES])
{
    long theirs = s->stage == 0 ? s->L->count - s->count : s->count;
    long length = theirs + epochs + 1; /* [ stage 1's parameters | losses | busy ] */
    double *msg = xcalloc((size_t)length, sizeof(double));
    if (s->stage == 1) {
        memcpy(msg, s->p, (size_t)s->count * sizeof(double));
        memcpy(msg + s->count, epoch_loss, (size_t)epochs * sizeof(double));
        msg[length - 1] = s->busy;
        PR_SCAFFOLD(MPI_Send(msg, (int)length, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD));
    } else {
        PR_SCAFFOLD(MPI_Recv(msg, (int)length, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        memcpy(params, s->p, (size_t)s->count * sizeof(double));
        memcpy(params + s->count, msg, (size_t)theirs * sizeof(double));
        memcpy(epoch_loss, msg + theirs, (size_t)epochs * sizeof(double));
        busy[0] = s->busy;
        busy[1] = msg[length - 1];
    }
    free(msg);
}

#endif /* MLP_PIPELINE */

/* ------------------------------------------------------------------------- */
/* The GAN of tasks 7 and 10 (#define MLP_GAN): two networks, ring data      */
/* ------------------------------------------------------------------------- */
#ifdef MLP_GAN

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

#endif /* MLP_GAN */

/* ------------------------------------------------------------------------- */
/* The GAN on one GPU (task 10, CUDA): its arrays, the D half's row, the      */
/* check of G's gradient; task 10 itself holds the G half and the kernels     */
/* ------------------------------------------------------------------------- */
#if defined(MLP_GAN) && (defined(__CUDACC__) || defined(CUDA_SIM))

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

#endif /* the GAN on one GPU */

/* ------------------------------------------------------------------------- */
/* The GPU task (task 6: CUDA and MPI, built by nvcc or by the simulator)     */
/* ------------------------------------------------------------------------- */
#if defined(PR_MPI) && (defined(__CUDACC__) || defined(CUDA_SIM))

#include <cuda_runtime.h>

/* NCCL where it is installed, and in the CUDA CPU simulator (its nccl.h, on
 * MPI): then HAVE_NCCL is defined, NCCL_CHECK(call) (pr.h) does for NCCL what
 * CHECK does for CUDA, and nccl_start() and nccl_stop() make and end NCCL's
 * communicator. */
#if defined(__has_include)
#if __has_include(<nccl.h>)
#include <nccl.h>
#define HAVE_NCCL 1
/* NCCL's communicator of all the ranks, made with MPI's help (rank 0 makes a
 * unique id, MPI_Bcast hands it to every rank, and each joins with it), and a
 * stream for NCCL's work.  nccl_start() makes both, nccl_stop() ends them. */
static ncclComm_t nccl_comm;
static cudaStream_t nccl_stream;

static inline void nccl_start(void)
{
    int rank = pr_rank(), size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ncclUniqueId id;
    if (rank == 0)
        NCCL_CHECK(ncclGetUniqueId(&id));
    PR_SCAFFOLD(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
    NCCL_CHECK(ncclCommInitRank(&nccl_comm, size, id, rank));
    CHECK(cudaStreamCreate(&nccl_stream));
}

static inline void nccl_stop(void)
{
    NCCL_CHECK(ncclCommDestroy(nccl_comm));
    CHECK(cudaStreamDestroy(nccl_stream));
}
#endif
#endif

/* The CPU baselines' times per epoch (t_serial, t_omp for all epochs): the serial run on
 * one core, and the same training with OpenMP on all cores (0: built without OpenMP). */
static inline void print_cpu_baselines(double t_serial, double t_omp, int epochs)
{
    pr_print_time("serial CPU / epoch", t_serial / epochs, 0, NULL);
#ifdef _OPENMP
    char what[80];
    snprintf(what, sizeof what, "CPU, %d OpenMP thr / epoch", omp_get_max_threads());
    pr_print_time(what, t_omp / epochs, t_serial / epochs, "1 core");
#else
    (void)t_omp;
#endif
}

/* A way's time per epoch (t for all epochs), its speedup over the serial run on one core
 * and over the OpenMP run on all cores (when there is one), and the parallel efficiency
 * on size ranks. */
static inline void print_ddp_time(const char *way, double t, double t_serial, double t_omp, int epochs,
                                  int size)
{
    char what[80];
    snprintf(what, sizeof what, "%s / epoch", way);
    pr_print_time(what, t / epochs, t_serial / epochs, "1 core (serial CPU)");
#ifdef _OPENMP
    if (pr_rank() == 0 && t_omp > 0 && t > 0)
        printf("       %.2fx speedup vs %d OpenMP threads (the CPU baseline on all cores)\n", t_omp / t,
               omp_get_max_threads());
#else
    (void)t_omp;
#endif
    if (pr_rank() == 0)
        printf("       parallel efficiency t_serial / (p * t) = %.3f with p = %d\n", t_serial / (size * t),
               size);
}

/* Picks this rank's GPU, round-robin over the GPUs it sees, and returns its
 * number; also says how many ranks share this node and how many different GPUs
 * they use.  Device numbers cannot tell that: a scheduler that shows each rank
 * only its own GPU makes it "device 0" in every rank.  The GPU's PCI address
 * can, so the node's ranks compare theirs (room 05, "One GPU per rank"). */
static inline int pick_gpu(int *ranks_on_node, int *gpus_used)
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
    int *all = (int *)xcalloc((size_t)*ranks_on_node, sizeof mine);
    PR_SCAFFOLD(MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, node));
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

/* What a rank holds on its GPU, and its pinned staging buffer (the replica of
 * task 6's DDP): replica_init() allocates it for minibatches of up to `batch`
 * samples and copies the data set to the GPU; replica_free() frees it. */
typedef struct {
    layout_t L;
    double *p, *x, *y;     /* the replica; the whole data set */
    long *shard;           /* this step's shard (indices), batch of them at most */
    double *G;             /* batch x (count + 1) per-sample gradients */
    double *local, *grad;  /* count + 1: the shard's sums; the minibatch's sums */
    double *host;          /* count + 1, pinned */
    long *shard_host;      /* batch, pinned */
} replica_t;

static inline void replica_init(replica_t *r, const layout_t *L, const dataset_t *data, long batch)
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

static inline void replica_free(replica_t *r)
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

#endif /* the GPU task */

/* ------------------------------------------------------------------------- */
/* Task 1's answer: the MLP's backward pass (task 1's TODO 1) and the serial  */
/* baseline built on it, for tasks 2 to 8.  Working on task 1?  Stop here.    */
/* ------------------------------------------------------------------------- */
#if !defined(MLP_GAN) && !defined(MLP_OWN_BACKWARD)

/* Backward pass for one sample, in two halves (one per layer, the last layer
 * first, as the chain rule runs): dout is dL/dyhat for the sample; x and h are
 * its input and the hidden activations its forward pass kept.  Each ADDS the
 * sample's gradient to grad[] (same layout as p), so a loop over a minibatch
 * sums them.  The output layer's half: the gradients of W2 and b2. */
static inline MLP_HOST_DEVICE void mlp_backward_output(const layout_t *L, const double *h,
                                                       double dout, double *grad)
{
    grad[L->b2] += dout;
    for (int j = 0; j < L->hidden; j++)
        grad[L->w2 + j] += dout * h[j];
}

/* The hidden layer's half: back through W2 and tanh, the gradients of W1, b1. */
static inline MLP_HOST_DEVICE void mlp_backward_hidden(const double *p, const layout_t *L,
                                                       const double *x, const double *h,
                                                       double dout, double *grad)
{
    for (int j = 0; j < L->hidden; j++) {
        double dz = dout * p[L->w2 + j] * (1.0 - h[j] * h[j]); /* back through tanh */
        grad[L->b1 + j] += dz;
        for (int k = 0; k < D; k++)
            grad[j * D + k] += dz * x[k];
    }
}

/* The whole backward pass for one sample: both halves. */
static inline MLP_HOST_DEVICE void mlp_backward(const double *p, const layout_t *L,
                                                const double *x, const double *h, double dout,
                                                double *grad)
{
    mlp_backward_output(L, h, dout, grad);
    mlp_backward_hidden(p, L, x, h, dout, grad);
}

/* The serial baseline's step (task 1): the gradient of the whole minibatch
 * idx[0..batch-1], then the SGD update.  Returns the minibatch's loss.
 * grad: room for L->count numbers; h: for H. */
static inline double serial_step(double *p, const layout_t *L, const dataset_t *data,
                                 const long *idx, long batch, double *grad, double *h)
{
    double sse = 0.0;
    memset(grad, 0, (size_t)L->count * sizeof *grad);
    for (long b = 0; b < batch; b++) {
        const double *x = data->x + idx[b] * D;
        double err = mlp_forward(p, L, x, h) - data->y[idx[b]];
        sse += err * err;
        mlp_backward(p, L, x, h, 2.0 * err / (double)batch, grad); /* dL/dyhat */
    }
    for (long i = 0; i < L->count; i++)
        p[i] -= L->lr * grad[i];
    return sse / (double)batch;
}

/* The serial baseline (task 1's training): `epochs` epochs from the seed's
 * initial model, each in a fresh order, the last minibatch of an epoch maybe
 * smaller.  Leaves the trained model in params and the mean loss of each
 * epoch's minibatches (weighted by their sizes) in epoch_loss. */
static inline void train_serial(const dataset_t *data, const layout_t *L, long batch, int epochs,
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

/* Task 6's CPU baseline on all cores: the serial training with each minibatch's
 * gradient shared out among OpenMP's threads, each summing into a gradient of its own,
 * added up in thread order (room 01's reduction by hand).  Returns the seconds it took
 * (its model is thrown away: only its time is compared); 0 when built without OpenMP. */
static inline double time_train_openmp(const dataset_t *data, const layout_t *L, long batch, int epochs,
                                       uint64_t seed)
{
#ifdef _OPENMP
    int nt = omp_get_max_threads();
    long count = L->count;
    long *perm = (long *)xcalloc((size_t)data->n, sizeof(long));
    double *p = (double *)xcalloc((size_t)count, sizeof(double));
    double *grads = (double *)xcalloc((size_t)nt * (size_t)count, sizeof(double));
    double *hs = (double *)xcalloc((size_t)nt * (size_t)L->hidden, sizeof(double));
#pragma omp parallel
    { /* (OpenMP starts its threads here, before the clock) */
    }
    double start = pr_now();
    mlp_init(p, L, seed);
    for (int epoch = 0; epoch < epochs; epoch++) {
        shuffle(perm, data->n, seed, epoch);
        for (long first = 0; first < data->n; first += batch) {
            long size = data->n - first < batch ? data->n - first : batch;
            const long *idx = perm + first;
            memset(grads, 0, (size_t)nt * (size_t)count * sizeof *grads);
#pragma omp parallel
            {
                double *g = grads + (long)omp_get_thread_num() * count;
                double *h = hs + (long)omp_get_thread_num() * L->hidden;
#pragma omp for schedule(static)
                for (long b = 0; b < size; b++) {
                    const double *x = data->x + idx[b] * D;
                    double err = mlp_forward(p, L, x, h) - data->y[idx[b]];
                    mlp_backward(p, L, x, h, 2.0 * err / (double)size, g);
                }
            }
            for (long i = 0; i < count; i++) {
                double sum = 0.0;
                for (int t = 0; t < nt; t++)
                    sum += grads[(long)t * count + i];
                p[i] -= L->lr * sum;
            }
        }
    }
    double seconds = pr_now() - start;
    free(perm), free(p), free(grads), free(hs);
    return seconds;
#else
    (void)data, (void)L, (void)batch, (void)epochs, (void)seed;
    return 0.0;
#endif
}

#endif /* task 1's answer */

#endif /* PARALLEL_ROOMS_MLP_H */
