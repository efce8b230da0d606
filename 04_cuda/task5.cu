/*
 * Room 04, task 5: one step of gradient descent on the GPU (over all samples: full-batch).
 *
 * A linear model predicts a target from d features: the prediction is the
 * features' dot product with the weights, plus a bias.  One step of gradient
 * descent on the mean squared error over n samples (residual = prediction -
 * target; loss = mean of the squared residuals) computes the gradient
 *     of each weight:  (2/n) * sum over the samples of residual * that feature
 *     of the bias:     (2/n) * sum over the samples of residual
 * and moves every parameter against it, by the learning rate (0.1) times it.
 *
 * The forward kernel (one thread per sample computes its residual) is given.
 *   TODO 1: the gradient kernel: one thread per sample has a term of every
 *           sum (and of the sum of squared residuals, for the loss); the block
 *           adds its threads' terms together first, and only then adds each of
 *           its sums into the gradient array, safely although all blocks add at once;
 *   TODO 2: the update kernel: one thread per parameter.
 *
 * Read first: README.md, "One step of SGD on a linear model", "Reductions: shared memory and atomics".
 *
 * The gradient is accumulated in double (atomicAdd on doubles), but the
 * residuals are floats, the blocks add in another order than the CPU, and
 * atomics add in whatever order the blocks arrive, so the GPU's results differ
 * from the CPU's in the last digits: they are compared with a relative
 * tolerance of 1e-4.
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O2 -arch=native -Xcompiler -fopenmp -I../grading/include -o task5 task5.cu
 *   anywhere:  ../grading/sim/simcc -O2 -fopenmp -I../grading/include -o task5 task5.cu
 *   ./task5 n=4000000 d=16
 * Grade it from the top folder:  make grade TASK=04_cuda/task5
 */
#include "pr.h"
#include "cpu_baseline.h" /* the CPU on 1 core and on all: print_cpu_times(), print_vs_cpu() */

#include <cuda_runtime.h>

#define TPB 256
#define GTPB 64  /* the gradient kernel's block: its shared array holds GTPB terms of each sum */
#define MAXD 64  /* the most features (d) */

/* r[i] = X_i . w + w[d] - y[i]   (w[d] is the bias); X is n x d, row-major. */
__global__ void forward_kernel(const float *X, const float *y, const float *w, float *r,
                               long n, int d)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float pred = w[d];
        for (int j = 0; j < d; j++)
            pred += X[i * d + j] * w[j];
        r[i] = pred - y[i];
    }
}

/* grad[j] += r_i * X_ij (j < d), grad[d] += r_i, grad[d+1] += r_i^2, summed over all
 * samples; grad[] was zeroed before the launch.  (The 2/n comes in the update.)
 * Launched with GTPB threads a block. */
__global__ void gradient_kernel(const float *X, const float *r, double *grad, long n, int d)
{
    // TODO 1: The d + 2 sums described in the comment above, in double
    //         precision.  Every thread of every block would hit the same few
    //         entries of grad: decide how the block's threads combine their
    //         terms first, so that the block touches each entry of grad once,
    //         and how that last add stays safe with all blocks at it.  Threads
    //         without a sample add nothing, but take part.  The loss line
    //         depends on the last entry, the others on the rest.
    (void)X; (void)r; (void)grad; (void)n; (void)d; /* TODO 1 */
}

/* w[j] -= lr * (2/n) * grad[j] for the d + 1 parameters (bias included). */
__global__ void update_kernel(float *w, const double *grad, int d, float lr, long n)
{
    // TODO 2: Each parameter's thread (the weights and the bias: the launch
    //         below has more threads than parameters) takes one gradient
    //         descent step, as the comment above and the CPU version below say.
    //         The result lines "bias" and "w_weighted_sum" check it.
    (void)w; (void)grad; (void)d; (void)lr; (void)n; /* TODO 2 */
}

/* ---- no need to change below ---- */

/* The same step on the CPU, summing in double, on one core or (omp) on all.  Returns the
 * loss. */
static double step_cpu(const float *X, const float *y, float *w, long n, int d, float lr, int omp)
{
    double grad[65] = { 0 }, loss = 0;
#pragma omp parallel for reduction(+ : grad[:65], loss) if (omp)
    for (long i = 0; i < n; i++) {
        double pred = w[d];
        for (int j = 0; j < d; j++)
            pred += (double)X[i * d + j] * w[j];
        double ri = pred - y[i];
        for (int j = 0; j < d; j++)
            grad[j] += ri * X[i * d + j];
        grad[d] += ri;
        loss += ri * ri;
    }
    for (int j = 0; j <= d; j++)
        w[j] = (float)(w[j] - lr * (2.0 / n) * grad[j]);
    return loss / n;
}

static void step_gpu(const float *dX, const float *dy, float *dw, float *dr, double *dgrad,
                     long n, int d, float lr)
{
    unsigned blocks = (unsigned)((n + TPB - 1) / TPB);
    CHECK(cudaMemset(dgrad, 0, (d + 2) * sizeof(double)));
    forward_kernel<<<blocks, TPB>>>(dX, dy, dw, dr, n, d);
    CHECK(cudaGetLastError());
    gradient_kernel<<<(unsigned)((n + GTPB - 1) / GTPB), GTPB>>>(dX, dr, dgrad, n, d);
    CHECK(cudaGetLastError());
    update_kernel<<<1, 128>>>(dw, dgrad, d, lr, n);
    CHECK(cudaGetLastError());
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 1L << 22, 1, 1L << 25);
    int d = (int)pr_arg_long(argc, argv, "d", 16, 1, 64);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    const float lr = 0.1f;
    printf("task5: one SGD step, %ld samples x %d features, lr=%g\n", n, d, lr);

    size_t xbytes = (size_t)n * d * sizeof(float), wbytes = (size_t)(d + 1) * sizeof(float);
    float *X = (float *)malloc(xbytes), *y = (float *)malloc((size_t)n * sizeof(float));
    float w0[65], w_cpu[65], w_gpu[65];
    double grad[66];
    if (!X || !y) {
        fprintf(stderr, "task5: out of memory\n");
        return 1;
    }
    /* Data from a known model plus noise; the starting w is off from it. */
    pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
    float truth[65];
    for (int j = 0; j <= d; j++) {
        truth[j] = (float)pr_rng_double(&rng, -2, 2);
        w0[j] = (float)pr_rng_double(&rng, -1, 1);
    }
    for (long i = 0; i < n; i++) {
        double t = truth[d];
        for (int j = 0; j < d; j++) {
            X[i * d + j] = (float)pr_rng_double(&rng, -1, 1);
            t += (double)truth[j] * X[i * d + j];
        }
        y[i] = (float)(t + pr_rng_double(&rng, -0.1, 0.1));
    }

    memcpy(w_cpu, w0, wbytes);
    double t0 = pr_now();
    double loss_cpu = step_cpu(X, y, w_cpu, n, d, lr, 0);
    double t_cpu = pr_now() - t0;
    float w_omp[65]; /* the same step on every core (OpenMP), for the fair comparison */
    memcpy(w_omp, w0, wbytes);
    cpu_warm_up();
    t0 = pr_now();
    step_cpu(X, y, w_omp, n, d, lr, 1);
    double t_omp = pr_now() - t0;

    float *dX, *dy, *dw, *dr;
    double *dgrad;
    CHECK(cudaMalloc(&dX, xbytes));
    CHECK(cudaMalloc(&dy, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&dw, wbytes));
    CHECK(cudaMalloc(&dr, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&dgrad, (d + 2) * sizeof(double)));

    /* Warm-up step (its w is thrown away), then one timed with copies... */
    CHECK(cudaMemcpy(dX, X, xbytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dw, w0, wbytes, cudaMemcpyHostToDevice));
    step_gpu(dX, dy, dw, dr, dgrad, n, d, lr);
    CHECK(cudaDeviceSynchronize());
    t0 = pr_now();
    CHECK(cudaMemcpy(dX, X, xbytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dw, w0, wbytes, cudaMemcpyHostToDevice));
    step_gpu(dX, dy, dw, dr, dgrad, n, d, lr);
    CHECK(cudaMemcpy(w_gpu, dw, wbytes, cudaMemcpyDeviceToHost));
    double t_with = pr_now() - t0;

    /* ...and one with the data already on the GPU, timed with events. */
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaMemcpy(dw, w0, wbytes, cudaMemcpyHostToDevice));
    CHECK(cudaEventRecord(start));
    step_gpu(dX, dy, dw, dr, dgrad, n, d, lr);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaMemcpy(w_gpu, dw, wbytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(grad, dgrad, (d + 2) * sizeof(double), cudaMemcpyDeviceToHost));
    double loss_gpu = grad[d + 1] / (double)n;

    const double tol = 1e-4;
    pr_check_double("loss", loss_gpu, loss_cpu, tol);
    pr_result_double("loss", loss_gpu, tol);
    int wrong = 0;
    double wsum = 0, wsum_cpu = 0;
    for (int j = 0; j <= d; j++) {
        wrong += !pr_close_enough(w_gpu[j], w_cpu[j], tol);
        wsum += w_gpu[j] * (j + 1.0);
        wsum_cpu += w_cpu[j] * (j + 1.0);
    }
    pr_check_int("parameters off", wrong, 0);
    pr_check_double("bias after the step", w_gpu[d], w_cpu[d], tol);
    pr_check_double("weighted sum of w", wsum, wsum_cpu, tol);
    pr_result_double("bias", w_gpu[d], tol);
    pr_result_double("w_weighted_sum", wsum, tol);
    printf("  parameters moved by %.6f (sum of |change|)\n", [&] {
        double s = 0;
        for (int j = 0; j <= d; j++)
            s += fabs((double)w_gpu[j] - w0[j]);
        return s;
    }());

    print_cpu_times("CPU step", t_cpu, t_omp);
    print_vs_cpu("GPU step, data on GPU", ms * 1e-3, t_cpu, t_omp);
    print_vs_cpu("GPU step with copies", t_with, t_cpu, t_omp);
#ifdef CUDA_SIM
    printf("  (CUDA CPU simulator: these times say nothing about a GPU)\n");
#endif

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(dX));
    CHECK(cudaFree(dy));
    CHECK(cudaFree(dw));
    CHECK(cudaFree(dr));
    CHECK(cudaFree(dgrad));
    free(X), free(y);
    return pr_finish();
}
