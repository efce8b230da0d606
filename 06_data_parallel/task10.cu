/*
 * Room 06, task 10 (stretch): task 7's tiny GAN, trained on one GPU.
 *
 * The same generator G (noise z -> a point) and discriminator D (a point -> a
 * logit), the same ring of 8 clusters, noise and minibatches as task 7; the
 * arithmetic of every step moves to the GPU.  A step is two halves, D's and
 * then G's, and each half is two kernels on the GPU:
 *
 *   rows:    one thread per position b of the minibatch computes that sample's
 *            gradient of the half's loss and writes it (and the sample's loss)
 *            into its own row of a matrix: no two threads write the same number;
 *   update:  one thread per parameter adds up its column of the rows, in row
 *            order (the same bits every run: no atomicAdd), divides by the
 *            minibatch's size and takes the SGD step; the last column's thread
 *            stores the half's loss.
 *
 * The host only shuffles and makes the noise, once per epoch, copies that up,
 * launches the kernels, and copies the epoch's losses back.  G's half must see
 * D's update: kernels on one stream run in order, so no synchronisation is
 * needed between the halves.
 *
 *   TODO 1: a sample's G gradient: from D's logit back through D into D's
 *           input (which is G's output), then through G.
 *   TODO 2: one training step on the GPU: the four kernel launches.
 *
 * Checked: G's gradient (TODO 1) against central differences of the G loss;
 * the GPU's training against the same training on the CPU, the same row and
 * update functions run in a loop on one core (every epoch's D and G losses and
 * the final parameters, to 1e-9: the GPU's exp and tanh may differ from the
 * CPU's in the last bit); the OpenMP run on all cores against the one-core run.
 *
 * Read first: README.md, "Forward and backward by hand", "Task 7 (stretch): a tiny GAN trained with DDP",
 * "Task 10 (stretch): the GAN on the GPU".
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O2 -arch=native -Xcompiler -fopenmp -I../grading/include -o task10 task10.cu
 *   anywhere:  ../grading/sim/simcc -O2 -fopenmp -I../grading/include -o task10 task10.cu
 *   ./task10 n=1001 epochs=20
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task10
 */
#include "pr.h"
#include "mlp_gan_gpu.h" /* the GAN (task 7's) and its GPU tools: gan_mem, d_row() */
#ifdef _OPENMP
#include <omp.h> /* the CPU run on all cores */
#endif

#define LEARNING_RATE 0.05
#define TPB 128 /* threads per block */

/* A network's flat layout (mlp_gan.h's net_t), as in task 7:
 *     [ W1 (hidden x in) | b1 (hidden) | W2 (out x hidden) | b2 (out) ]
 * W1[j][k] is p[j * in + k], W2[o][j] is p[w2 + o * hidden + j].  A row of
 * gradients has one number more, last: the sample's loss. */

/* The G half's row for one sample with noise z: row[0 .. G.count-1] = the
 * gradient of softplus(-D(G(z))) with respect to G's parameters (D is only
 * read), row[G.count] = that loss.  On the CPU and on the GPU alike. */
static MLP_HOST_DEVICE void g_row(const double *g, const double *d, const net_t *G, const net_t *D, const double *z,
                                  double *row)
{
    double hg[GAN_MAX_HIDDEN], hd[GAN_MAX_HIDDEN], fake[2], logit;
    for (long i = 0; i <= G->count; i++)
        row[i] = 0.0;
    net_forward(g, G, z, hg, fake);
    net_forward(d, D, fake, hd, &logit);
    row[G->count] = softplus(-logit); /* G wants D to say "real" */
    double dlogit = sigmoid(logit) - 1.0;
    // TODO 1: G's gradient for this sample.  The loss reaches G only through
    //         the point G made: first find the loss's gradient with respect
    //         to D's input (the chain rule through D's output layer, its tanh
    //         and its first layer: D's parameters are read, not changed), then
    //         hand that to G's backward pass so G's parameter gradient lands in
    //         this sample's row.  Check: G's gradient check, below, must pass.
    (void)dlogit, (void)hd; /* TODO 1 */
}

/* ---- no need to change the code from here to gpu_step: the update and the kernels ---- */

/* Column i of `count` rows of `width` numbers: its sum in row order, divided
 * by count (the minibatch's mean); the last column is the loss (to *loss), the
 * others are gradients (an SGD step of p[i]). */
static MLP_HOST_DEVICE void update_column(double *p, const double *rows, long count, long width, double *loss, long i)
{
    double sum = 0.0;
    for (long b = 0; b < count; b++)
        sum += rows[b * width + i];
    if (i == width - 1)
        *loss = sum / (double)count;
    else
        p[i] -= LEARNING_RATE * (sum / (double)count);
}

/* The kernels: one thread per sample (rows), one per column (update). */
__global__ void d_rows(const double *g, const double *d, net_t G, net_t D, const double *x, const long *idx,
                       const double *z, long count, double *rows)
{
    long b = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b < count)
        d_row(g, d, &G, &D, x + 2 * idx[b], z + 2 * b, rows + b * (D.count + 1));
}

__global__ void g_rows(const double *g, const double *d, net_t G, net_t D, const double *z, long count, double *rows)
{
    long b = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b < count)
        g_row(g, d, &G, &D, z + 2 * b, rows + b * (G.count + 1));
}

__global__ void update(double *p, const double *rows, long count, long width, double *loss)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width)
        update_column(p, rows, count, width, loss, i);
}

unsigned blocks_for(long threads) /* not static: the untouched task does not call it */
{
    return (unsigned)((threads + TPB - 1) / TPB);
}

/* One step on the GPU, for the positions first .. first+size-1 of the epoch's
 * order: D's half, then G's half; their losses go to loss[0] and loss[1]. */
static void gpu_step(gan_mem *m, long first, long size, double *loss)
{
    // TODO 2: The step's four kernels, each launched over as many threads
    //         as it has things to do: D's half (its per-sample gradients for
    //         these positions of the epoch's order, with their real points
    //         and the D half's noise, then D's SGD step and loss from them),
    //         then G's half the same way, with the G half's noise.  G's half
    //         must see the D that was just updated.  Check each launch for
    //         errors, as room 04 taught.
    (void)m, (void)first, (void)size, (void)loss; /* TODO 2 */
}

/* ---- no need to change below ---- */

/* The same step on the CPU: the same functions, one loop per kernel; with
 * parallel set, OpenMP shares each loop out among all the cores. */
static void cpu_step(gan_mem *m, long first, long size, double *loss, int parallel)
{
    long dw = m->D.count + 1, gw = m->G.count + 1;
    (void)parallel;
#ifdef _OPENMP
#pragma omp parallel if (parallel)
#endif
    { /* each omp for ends with a barrier: the next loop sees all it wrote, as the next kernel does */
#ifdef _OPENMP
#pragma omp for
#endif
        for (long b = 0; b < size; b++)
            d_row(m->g, m->d, &m->G, &m->D, m->x + 2 * m->perm[first + b], m->noise_d + 2 * (first + b),
                  m->rows + b * dw);
#ifdef _OPENMP
#pragma omp for
#endif
        for (long i = 0; i < dw; i++)
            update_column(m->d, m->rows, size, dw, loss, i);
#ifdef _OPENMP
#pragma omp for
#endif
        for (long b = 0; b < size; b++)
            g_row(m->g, m->d, &m->G, &m->D, m->noise_g + 2 * (first + b), m->rows + b * gw);
#ifdef _OPENMP
#pragma omp for
#endif
        for (long i = 0; i < gw; i++)
            update_column(m->g, m->rows, size, gw, loss + 1, i);
    }
}

/* Trains the GAN from its initial networks: on the GPU (parallel < 0), on one
 * core (0) or on all cores (1).  Leaves both networks in params (G's, then
 * D's), each epoch's mean D losses and then G's in loss; returns the seconds it
 * took, the copies to and from the GPU included. */
static double train(const dataset_t *data, int hidden, long batch, int epochs, uint64_t seed, int parallel,
                    double *params, double *loss)
{
    gan_mem host = gan_mem_host(hidden, data, batch, params), dev = host;
    int gpu = parallel < 0;
    size_t n = (size_t)data->n, both = (size_t)(host.G.count + host.D.count);
    if (gpu)
        dev = gan_mem_gpu(&host);
    net_init(host.g, &host.G, seed, 2);
    net_init(host.d, &host.D, seed, 3);
    double start = pr_now();
    if (gpu) { /* the data and the initial networks up, once */
        CHECK(cudaMemcpy(dev.x, host.x, 2 * n * sizeof(double), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dev.g, host.g, both * sizeof(double), cudaMemcpyHostToDevice));
    }
    for (int epoch = 0, step = 0; epoch < epochs; epoch++) {
        gan_epoch_inputs(&host, seed, epoch, &step); /* the epoch's order and noise, on the CPU */
        if (gpu) {                                   /* ... and up to the GPU, once an epoch */
            CHECK(cudaMemcpy(dev.perm, host.perm, n * sizeof(long), cudaMemcpyHostToDevice));
            CHECK(cudaMemcpy(dev.noise_d, host.noise_d, 2 * n * sizeof(double), cudaMemcpyHostToDevice));
            CHECK(cudaMemcpy(dev.noise_g, host.noise_g, 2 * n * sizeof(double), cudaMemcpyHostToDevice));
        }
        for (long first = 0, s = 0; first < data->n; first += batch, s++) {
            long size = data->n - first < batch ? data->n - first : batch;
            if (gpu)
                gpu_step(&dev, first, size, dev.step_loss + 2 * s);
            else
                cpu_step(&host, first, size, host.step_loss + 2 * s, parallel);
        }
        if (gpu) /* the epoch's losses back: this copy waits for the last kernel */
            CHECK(cudaMemcpy(host.step_loss, dev.step_loss, 2 * (size_t)host.steps * sizeof(double),
                             cudaMemcpyDeviceToHost));
        gan_epoch_loss(&host, &loss[epoch], &loss[epochs + epoch]);
    }
    if (gpu) {
        CHECK(cudaMemcpy(host.g, dev.g, both * sizeof(double), cudaMemcpyDeviceToHost));
        CHECK(cudaDeviceSynchronize()); /* nothing left running on the GPU when the clock stops */
    }
    double seconds = pr_now() - start;
    if (gpu)
        gan_mem_free(&dev, 1);
    gan_mem_free(&host, 0);
    return seconds;
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 1000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 64, 1, n);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 20, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 16, 1, GAN_MAX_HIDDEN);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    net_t G = make_net(2, hidden, 2), D = make_net(2, hidden, 1);
    long both = G.count + D.count;
    printf("task10: a GAN trained on one GPU, n=%ld real points, minibatch %ld, %d epochs,"
           " G and D with %d hidden units (%ld and %ld parameters), seed %llu\n",
           n, batch, epochs, hidden, G.count, D.count, (unsigned long long)seed);
    CHECK(cudaFree(0)); /* the GPU's context is made here, not inside the timing */
    dataset_t data = make_dataset(n, seed);

    double worst_grad = g_gradient_check(hidden, seed, g_row);
    const double grad_tol = 1e-6;
    printf("  largest |G's row - finite difference| %.3g (allowed %g)\n", worst_grad, grad_tol);

    double *cpu_params = (double *)xcalloc((size_t)both, sizeof(double));
    double *cpu_loss = (double *)xcalloc(2 * (size_t)epochs, sizeof(double));
    double *omp_params = (double *)xcalloc((size_t)both, sizeof(double));
    double *omp_loss = (double *)xcalloc(2 * (size_t)epochs, sizeof(double));
    double *params = (double *)xcalloc((size_t)both, sizeof(double));
    double *loss = (double *)xcalloc(2 * (size_t)epochs, sizeof(double));
#ifdef _OPENMP
#pragma omp parallel /* OpenMP starts its threads here, before a clock runs */
    {
    }
#endif
    double t_cpu = train(&data, hidden, batch, epochs, seed, 0, cpu_params, cpu_loss);
    double t_omp = train(&data, hidden, batch, epochs, seed, 1, omp_params, omp_loss);
    double t_gpu = train(&data, hidden, batch, epochs, seed, -1, params, loss);

    print_loss_curves("CPU D loss", cpu_loss, "GPU D loss", loss, epochs);
    print_loss_curves("CPU G loss", cpu_loss + epochs, "GPU G loss", loss + epochs, epochs);
    pr_check_int("G's gradient check passed", worst_grad <= grad_tol, 1);
    int matches = check_same_training("GPU", "one-core CPU", params, loss, cpu_params, cpu_loss, both, 2 * epochs);
    pr_check_double("OpenMP run vs one-core run (checksum)", checksum_of(omp_params, both),
                    checksum_of(cpu_params, both), 1e-12);
    int modes_hit;
    double share;
    coverage(params, hidden, seed, &modes_hit, &share);
    printf("  G's points: %d of %d clusters hit, %.0f%% of its points near a cluster (not checked)\n", modes_hit, MODES,
           100 * share);
    pr_result_int("gradient_check", worst_grad <= grad_tol);
    pr_result_double("d_loss", loss[epochs - 1], 1e-6);
    pr_result_double("g_loss", loss[2 * epochs - 1], 1e-6);
    pr_result_double("g_checksum", checksum_of(params, G.count), 1e-6);
    pr_result_double("d_checksum", checksum_of(params + G.count, D.count), 1e-6);
    pr_result_int("matches_cpu", matches);

    pr_print_time("1 CPU core, per epoch", t_cpu / epochs, 0, NULL);
#ifdef _OPENMP
    char what[80];
    snprintf(what, sizeof what, "%d OpenMP thr, per epoch", omp_get_max_threads());
    pr_print_time(what, t_omp / epochs, t_cpu / epochs, "1 core");
#endif
    pr_print_time("GPU+copies, per epoch", t_gpu / epochs, t_cpu / epochs, "1 core");
#ifdef _OPENMP
    if (t_gpu > 0 && t_omp > 0)
        printf("       %.2fx speedup vs %d OpenMP threads (the CPU on all cores)\n", t_omp / t_gpu,
               omp_get_max_threads());
#endif
#ifdef CUDA_SIM
    printf("  (CUDA CPU simulator: the GPU's time says nothing about a GPU)\n");
#endif
    free(cpu_params), free(cpu_loss), free(omp_params), free(omp_loss), free(params), free(loss), free(data.x);
    return pr_finish();
}
