/*
 * Room 06, task 1: the serial baseline -- SGD, forward and backward by hand.
 *
 * A synthetic data set made from the seed (two inputs, one noisy target: the
 * README gives the formula; nothing is downloaded), and two models trained on
 * it with minibatch SGD, minimising the mean squared error of each minibatch:
 * linear regression (its gradient is written out below, as a worked example)
 * and an MLP with one layer of H tanh units (both described in the README).
 * The data set, the MLP's layout and forward pass, and the epoch's shuffle
 * come from mlp_model.h and mlp_common.h (room headers, beside this file).
 *
 *   TODO 1: the MLP's backward pass for one sample: its contribution to the
 *           gradient of every parameter, found with the chain rule.
 *   TODO 2: the SGD update shared by both models.
 *
 * Checked: your gradient against a finite-difference estimate (central
 * differences, computed here from the loss alone), the linear model's loss
 * against the best any linear model can do (least squares, solved exactly),
 * and the MLP's final loss against a target.  Every later task of this room
 * trains this same MLP in parallel and compares itself with this serial run.
 *
 * Read first: README.md, "Training: SGD on minibatches", "Forward and backward by hand", "Checking a gradient: finite differences".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task1 task1.c -lm
 *   ./task1 n=1001 epochs=300
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task1
 */
#include "pr.h"
#include "mlp_model.h" /* the MLP without its backward pass: that one is yours to write */

#define MLP_LOSS_TARGET 0.05 /* the MLP must get its loss below this (the largest of 800 drawn
                              * data sets: 0.036; an untrained MLP: about 0.3 or more) */

/* The MLP's parameters (mlp_model.h: make_layout, mlp_init) live in one flat array,
 *     [ W1 (H x D, row j = hidden unit j) | b1 (H) | W2 (H) | b2 (1) ]
 * W1[j][k] is p[j * D + k]; b1, W2 and b2 start at L->b1, L->w2 and L->b2.
 * mlp_forward(p, L, x, h) (mlp_model.h) returns yhat for the sample x and keeps its
 * hidden activations h[0..H-1], which the backward pass needs. */

/* Backward pass for one sample.  `dout` is dL/dyhat for this sample (the loss
 * gradient flowing in from the top); x and h are the sample's input and the
 * hidden activations its forward pass kept.  ADDS this sample's gradient to
 * grad[] (same layout as p), so a loop over a minibatch sums them. */
static void mlp_backward(const double *p, const layout_t *L, const double *x, const double *h,
                         double dout, double *grad)
{
    //@ TODO 1: Add this one sample's share of the loss gradient, for all four
    //@         parameter groups, in the flat layout above.  Work from the output
    //@         towards the inputs, reusing what the forward pass kept; each group's
    //@         term is the gradient arriving at it times one local derivative.
    //@         Must hold: the gradient check below agrees on every component.
    //@ placeholder: (void)p, (void)L, (void)x, (void)h, (void)dout, (void)grad; /* TODO 1 */
    //@ solution {
    grad[L->b2] += dout;
    for (int j = 0; j < L->hidden; j++) {
        grad[L->w2 + j] += dout * h[j];
        double dz = dout * p[L->w2 + j] * (1.0 - h[j] * h[j]); /* back through tanh */
        grad[L->b1 + j] += dz;
        for (int k = 0; k < D; k++)
            grad[j * D + k] += dz * x[k];
    }
    //@ }
}

/* One SGD step: p -= lr * grad, for all `count` parameters. */
static void sgd_update(double *p, const double *grad, long count, double lr)
{
    //@ TODO 2: Gradient descent: every parameter takes a small step, of the
    //@         size the learning rate sets, downhill.
    //@ placeholder: (void)p, (void)grad, (void)count, (void)lr; /* TODO 2: the SGD update */
    //@ solution {
    for (long i = 0; i < count; i++)
        p[i] -= lr * grad[i];
    //@ }
}

/* ---- no need to change below ---- */

/* The MLP's minibatch gradient: grad = dL/dp for L = (1/B) sum (yhat - y)^2 over
 * the B samples idx[0..B-1].  Returns the loss.  h: room for H numbers. */
static double mlp_gradient(const double *p, const layout_t *L, const dataset_t *data,
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
    return sse / (double)batch;
}

/* The MLP's loss over the samples idx[0..count-1] (the forward pass only). */
static double mlp_loss(const double *p, const layout_t *L, const dataset_t *data,
                       const long *idx, long count, double *h)
{
    double sse = 0.0;
    for (long b = 0; b < count; b++) {
        double err = mlp_forward(p, L, data->x + idx[b] * D, h) - data->y[idx[b]];
        sse += err * err;
    }
    return sse / (double)count;
}

/* Linear regression, p = [w0, w1, c]: its loss and its gradient (given, as a
 * worked example of a backward pass: dL/dw_k = (1/B) sum 2 (yhat - y) x_k). */
static double linear_gradient(const double *p, const dataset_t *data, const long *idx, long batch,
                              double *grad)
{
    double sse = 0.0;
    memset(grad, 0, (D + 1) * sizeof *grad);
    for (long b = 0; b < batch; b++) {
        const double *x = data->x + idx[b] * D;
        double err = p[D] - data->y[idx[b]];
        for (int k = 0; k < D; k++)
            err += p[k] * x[k];
        sse += err * err;
        double dout = 2.0 * err / (double)batch;
        for (int k = 0; k < D; k++)
            grad[k] += dout * x[k];
        grad[D] += dout;
    }
    return sse / (double)batch;
}

/* The best linear model (least squares): solves the 3x3 normal equations
 * (X^T X) p = X^T y by Gaussian elimination, and returns its mean squared error. */
static double linear_optimum_loss(const dataset_t *data)
{
    double a[D + 1][D + 2] = { { 0 } };
    for (long i = 0; i < data->n; i++) {
        double row[D + 1] = { data->x[i * D], data->x[i * D + 1], 1.0 };
        for (int r = 0; r <= D; r++) {
            for (int c = 0; c <= D; c++)
                a[r][c] += row[r] * row[c];
            a[r][D + 1] += row[r] * data->y[i];
        }
    }
    for (int col = 0; col <= D; col++) /* X^T X is positive definite: no pivoting needed */
        for (int r = col + 1; r <= D; r++) {
            double f = a[r][col] / a[col][col];
            for (int c = col; c <= D + 1; c++)
                a[r][c] -= f * a[col][c];
        }
    double w[D + 1];
    for (int r = D; r >= 0; r--) {
        w[r] = a[r][D + 1];
        for (int c = r + 1; c <= D; c++)
            w[r] -= a[r][c] * w[c];
        w[r] /= a[r][r];
    }
    double sse = 0.0;
    for (long i = 0; i < data->n; i++) {
        double err = w[0] * data->x[i * D] + w[1] * data->x[i * D + 1] + w[2] - data->y[i];
        sse += err * err;
    }
    return sse / (double)data->n;
}

/* The finite-difference check: every component of the MLP's minibatch gradient
 * against (L(p + eps e_i) - L(p - eps e_i)) / (2 eps).  Returns the largest
 * difference and prints a few components side by side. */
static double gradient_check(const layout_t *L, const dataset_t *data, const long *idx, long batch,
                             uint64_t seed)
{
    const double eps = 1e-5;
    double *p = xcalloc((size_t)L->count, sizeof *p);
    double *grad = xcalloc((size_t)L->count, sizeof *grad);
    double *h = xcalloc((size_t)L->hidden, sizeof *h);
    mlp_init(p, L, seed);
    mlp_gradient(p, L, data, idx, batch, grad, h);
    double worst = 0.0;
    long show[4] = { 0, L->b1, L->w2, L->b2 }; /* one of W1, b1, W2, b2 */
    printf("  gradient check on %ld samples (central differences, eps %g):\n", batch, eps);
    for (long i = 0; i < L->count; i++) {
        double keep = p[i];
        p[i] = keep + eps;
        double up = mlp_loss(p, L, data, idx, batch, h);
        p[i] = keep - eps;
        double down = mlp_loss(p, L, data, idx, batch, h);
        p[i] = keep;
        double numeric = (up - down) / (2.0 * eps);
        double diff = fabs(grad[i] - numeric);
        if (diff > worst || isnan(diff))
            worst = isnan(diff) ? INFINITY : diff;
        for (int s = 0; s < 4; s++)
            if (show[s] == i)
                printf("    dL/dp[%3ld] %-3s  backward %14.10f   finite difference %14.10f\n", i,
                       s == 0 ? "W1" : s == 1 ? "b1" : s == 2 ? "W2" : "b2", grad[i], numeric);
    }
    free(p), free(grad), free(h);
    return worst;
}

typedef struct {
    const dataset_t *data;
    const layout_t *L;
    long batch;
    int epochs;
    uint64_t seed;
    double *mlp;    /* the trained MLP's parameters */
    double lin[D + 1];
    double mlp_loss, lin_loss; /* over the whole data set, after training */
} run_t;

/* Trains both models with minibatch SGD for `epochs` passes over the data,
 * each in a fresh random order; the last minibatch of an epoch may be smaller.
 * Prints the MLP's loss over the whole data set now and then when `verbose`. */
static void train(run_t *r, int verbose)
{
    const layout_t *L = r->L;
    long n = r->data->n;
    long *perm = xcalloc((size_t)n, sizeof *perm);
    double *grad = xcalloc((size_t)L->count, sizeof *grad);
    double *h = xcalloc((size_t)L->hidden, sizeof *h);
    double lin_grad[D + 1];
    mlp_init(r->mlp, L, r->seed);
    memset(r->lin, 0, sizeof r->lin);
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        for (long start = 0; start < n; start += r->batch) {
            long batch = n - start < r->batch ? n - start : r->batch;
            mlp_gradient(r->mlp, L, r->data, perm + start, batch, grad, h);
            sgd_update(r->mlp, grad, L->count, L->lr);
            linear_gradient(r->lin, r->data, perm + start, batch, lin_grad);
            sgd_update(r->lin, lin_grad, D + 1, LEARNING_RATE);
        }
        int every = r->epochs >= 10 ? r->epochs / 10 : 1;
        if (verbose && ((epoch + 1) % every == 0 || epoch == 0))
            printf("    epoch %4d   MLP loss %.6f\n", epoch + 1,
                   mlp_loss(r->mlp, L, r->data, perm, n, h));
    }
    shuffle(perm, n, r->seed, 0); /* any order: the loss over all samples */
    r->mlp_loss = mlp_loss(r->mlp, L, r->data, perm, n, h);
    r->lin_loss = linear_gradient(r->lin, r->data, perm, n, lin_grad);
    free(perm), free(grad), free(h);
}

static void train_quietly(void *ctx)
{
    train(ctx, 0);
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 1000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 29, 1, n);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 300, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 12, 1, 1000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    layout_t L = make_layout(hidden);
    printf("task1: serial SGD, n=%ld samples, minibatch %ld, %d epochs, MLP with %d hidden units"
           " (%ld parameters), seed %llu\n",
           n, batch, epochs, hidden, L.count, (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    /* The gradient check, on the first minibatch of the first epoch. */
    long *perm = xcalloc((size_t)n, sizeof *perm);
    shuffle(perm, n, seed, 0);
    double worst = gradient_check(&L, &data, perm, batch, seed);
    const double grad_tol = 1e-6; /* central differences are good to ~1e-9 here */
    printf("    largest |backward - finite difference| %.3g (allowed %g)\n", worst, grad_tol);

    run_t run = { .data = &data, .L = &L, .batch = batch, .epochs = epochs, .seed = seed,
                  .mlp = xcalloc((size_t)L.count, sizeof(double)) };
    printf("  training (MLP loss over all %ld samples):\n", n);
    train(&run, 1);
    double t_train = pr_best_of(2, train_quietly, &run);

    double best_linear = linear_optimum_loss(&data);
    double checksum = checksum_of(run.mlp, L.count);
    printf("  linear regression: loss %.6f  (the best linear model: %.6f)\n", run.lin_loss,
           best_linear);
    printf("  MLP:               loss %.6f  (target: below %g)\n", run.mlp_loss, MLP_LOSS_TARGET);
    pr_check_int("gradient check passed", worst <= grad_tol, 1);
    pr_check_int("linear within 15% of best", run.lin_loss <= 1.15 * best_linear, 1); /* 800 draws: 1.09 at most */
    pr_check_int("MLP loss below target", run.mlp_loss < MLP_LOSS_TARGET, 1);
    pr_result_int("gradient_check", worst <= grad_tol);
    pr_result_double("linear_loss", run.lin_loss, 1e-6);
    pr_result_double("mlp_loss", run.mlp_loss, 1e-6);
    pr_result_double("mlp_checksum", checksum, 1e-6);
    pr_print_time("training, both models", t_train, 0, NULL);
    printf("  time per epoch                  %10.6f s\n", t_train / epochs);

    free(perm), free(run.mlp), free(data.x), free(data.y);
    return pr_finish();
}
