/*
 * mlp_momentum.h -- an optimizer with state for room 06's MLP: SGD with
 * momentum (MOMENTUM, momentum_update()) and its serial baseline
 * (train_serial_momentum()).  Task 12 includes it.
 *
 * No need to change anything here.  README.md, "ZeRO: sharding the
 * optimizer's state" explains why the state matters.
 */
#ifndef PARALLEL_ROOMS_MLP_MOMENTUM_H
#define PARALLEL_ROOMS_MLP_MOMENTUM_H

#include "mlp_train.h"

#define MOMENTUM 0.5 /* how much of the last step each step keeps */

/* SGD with momentum on `count` numbers, as PyTorch's SGD(momentum=...) does it:
 *     v = MOMENTUM * v + g      p = p - lr * v
 * v is the optimizer's state, one number per parameter, kept from step to
 * step (all zeros before the first step).  The three arrays are in step: the
 * i-th number of each belongs to the same parameter. */
static inline void momentum_update(double *p, double *v, const double *g, long count, double lr)
{
    for (long i = 0; i < count; i++) {
        v[i] = MOMENTUM * v[i] + g[i];
        p[i] -= lr * v[i];
    }
}

/* The serial baseline with momentum: mlp_train.h's train_serial(), the same
 * minibatches, each step's mean gradient given to momentum_update() over all
 * the parameters.  Leaves the trained model in params and the mean loss of
 * each epoch in epoch_loss. */
static inline void train_serial_momentum(const dataset_t *data, const layout_t *L, long batch, int epochs,
                                         uint64_t seed, double *params, double *epoch_loss)
{
    long *perm = (long *)xcalloc((size_t)data->n, sizeof(long));
    double *grad = (double *)xcalloc((size_t)L->count, sizeof(double));
    double *state = (double *)xcalloc((size_t)L->count, sizeof(double));
    double *h = (double *)xcalloc((size_t)L->hidden, sizeof(double));
    mlp_init(params, L, seed);
    for (int epoch = 0; epoch < epochs; epoch++) {
        shuffle(perm, data->n, seed, epoch);
        double sse = 0.0;
        for (long start = 0; start < data->n; start += batch) {
            long size = data->n - start < batch ? data->n - start : batch;
            memset(grad, 0, (size_t)L->count * sizeof *grad);
            for (long b = 0; b < size; b++) {
                long i = perm[start + b];
                double err = mlp_forward(params, L, data->x + i * D, h) - data->y[i];
                sse += err * err;
                mlp_backward(params, L, data->x + i * D, h, 2.0 * err / (double)size, grad);
            }
            momentum_update(params, state, grad, L->count, L->lr);
        }
        epoch_loss[epoch] = sse / (double)data->n;
    }
    free(perm);
    free(grad);
    free(state);
    free(h);
}

#endif /* PARALLEL_ROOMS_MLP_MOMENTUM_H */
