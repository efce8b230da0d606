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
 * Read first: README.md, "Forward and backward by hand", "Data parallelism: split the minibatch, add
 * the gradients", "DDP: equal ranks and one allreduce", "Task 7 (stretch): a tiny GAN trained with DDP".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task7 task7.c -lm
 *   mpiexec -n 2 ./task7 epochs=300
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task7
 */
#define PR_MPI
#include "pr.h"
#include "mlp_mpi.h"
#include "mlp_gan.h" /* the GAN's networks, data and checks, not task 1's MLP */

#define LEARNING_RATE 0.05

/* A network (net_t, net_forward: mlp_gan.h) keeps its parameters in one flat array,
 *     [ W1 (hidden x in) | b1 (hidden) | W2 (out x hidden) | b2 (out) ]
 * W1[j][k] is p[j * in + k], W2[o][j] is p[w2 + o * hidden + j]. */

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
    double *params; /* the trained networks: G's parameters, then D's */
    double *loss;   /* each epoch's mean minibatch losses: D's (epochs of them), then G's */
} run_t;

static void train(void *ctx)
{
    run_t *r = ctx;
    int rank = 0, size = 1;
    if (r->distributed) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    long n = r->data->n;
    gan_t m = gan_alloc(r->hidden, r->batch, r->params); /* G's parameters, then D's */
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
        r->loss[epoch] = d_sum / (double)n;
        r->loss[r->epochs + epoch] = g_sum / (double)n;
    }
    gan_free(&m);
    free(perm), free(noise);
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

    double worst_grad = input_gradient_check(hidden, seed, net_backward);
    const double grad_tol = 1e-6;

    long both = G.count + D.count; /* the two networks' parameters */
    run_t serial = { &data, hidden, epochs, 0, batch, seed, xcalloc((size_t)both, sizeof(double)),
                     xcalloc(2 * (size_t)epochs, sizeof(double)) };
    run_t ddp = { &data, hidden, epochs, 1, batch, seed, xcalloc((size_t)both, sizeof(double)),
                  xcalloc(2 * (size_t)epochs, sizeof(double)) };
    double t_serial = time_on_rank0(train, &serial); /* while the other ranks sleep */
    double start = MPI_Wtime();
    train(&ddp);
    double mine = MPI_Wtime() - start, t_ddp;
    MPI_Allreduce(&mine, &t_ddp, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    double g_checksum = checksum_of(ddp.params, G.count);
    double d_checksum = checksum_of(ddp.params + G.count, D.count), highest, lowest;
    double spread_g = spread_over_ranks(g_checksum, &highest, &lowest);
    double spread_d = spread_over_ranks(d_checksum, &highest, &lowest);
    double spread = spread_g > spread_d ? spread_g : spread_d;

    if (rank == 0) {
        const double *sl = serial.loss, *dl = ddp.loss; /* D's losses, then G's */
        printf("  %7s %14s %14s %14s %14s\n", "epoch", "serial D loss", "DDP D loss",
               "serial G loss", "DDP G loss");
        int every = epochs >= 10 ? epochs / 10 : 1;
        for (int e = 0; e < epochs; e++)
            if ((e + 1) % every == 0 || e == 0)
                printf("  %7d %14.10f %14.10f %14.10f %14.10f\n", e + 1, sl[e], dl[e],
                       sl[epochs + e], dl[epochs + e]);
        const double tol = 1e-9;
        double worst = max_rel_diff(dl, sl, 2 * (long)epochs);
        double w = max_rel_diff(ddp.params, serial.params, both);
        worst = w > worst ? w : worst;
        int matches = worst <= tol;
        int modes_hit;
        double share;
        coverage(ddp.params, hidden, seed, &modes_hit, &share);
        printf("  largest |backward - finite difference| %.3g (allowed %g)\n", worst_grad,
               grad_tol);
        printf("  largest difference from the serial run (losses, parameters): %.3g (allowed %g)\n",
               worst, tol);
        printf("  G's points: %d of %d clusters hit, %.0f%% of its points near a cluster"
               " (not checked)\n", modes_hit, MODES, 100 * share);
        pr_check_int("input gradient check passed", worst_grad <= grad_tol, 1);
        pr_check_double("replica spread (relative)", spread, 0.0, 1e-12);
        pr_check_double("final D loss (DDP vs serial)", dl[epochs - 1], sl[epochs - 1], tol);
        pr_check_double("final G loss (DDP vs serial)", dl[2 * epochs - 1], sl[2 * epochs - 1],
                        tol);
        pr_check_int("every loss, parameter equal", matches, 1);
        pr_result_int("input_gradient_check", worst_grad <= grad_tol);
        pr_result_int("replicas_identical", spread <= 1e-12);
        pr_result_double("d_loss", dl[epochs - 1], 1e-6);
        pr_result_double("g_loss", dl[2 * epochs - 1], 1e-6);
        pr_result_double("g_checksum", g_checksum, 1e-6);
        pr_result_double("d_checksum", d_checksum, 1e-6);
        pr_result_int("matches_serial", matches);
        pr_print_time("serial training", t_serial, 0, NULL);
        char what[64];
        snprintf(what, sizeof what, "DDP training, %d rank%s", size, size == 1 ? "" : "s");
        pr_print_time(what, t_ddp, t_serial, "serial");
    }

    free(serial.params), free(serial.loss), free(ddp.params), free(ddp.loss), free(data.x);
    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
