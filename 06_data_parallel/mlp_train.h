/*
 * mlp_train.h -- task 1's answer: the MLP's backward pass (mlp_backward(), in
 * two halves, one per layer; on the GPU too) and the serial baseline built on
 * it (serial_step(), train_serial()).  Tasks 2 to 6, 8, 9 and 11 include it.
 * Task 1 asks you to write the backward pass yourself, so it includes
 * mlp_model.h alone.  Working on task 1?  Read this file once task 1 passes.
 *
 * No need to change anything here.  README.md, "Forward and backward by hand"
 * explains the backward pass.
 */
#ifndef PARALLEL_ROOMS_MLP_TRAIN_H
#define PARALLEL_ROOMS_MLP_TRAIN_H

#include "mlp_model.h"

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

#endif /* PARALLEL_ROOMS_MLP_TRAIN_H */
