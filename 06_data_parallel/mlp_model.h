/*
 * mlp_model.h -- the MLP that room 06's tasks 1 to 6, 8, 9, 11 and 12 train: its step
 * size (LEARNING_RATE), its flat layout (layout_t, make_layout()), the initial
 * model (mlp_init()) and the forward pass (mlp_forward(), on the GPU too).  It
 * brings the data set (mlp_data.h).  Task 1 includes it; the other tasks get
 * it through mlp_train.h.
 *
 * No need to change anything here.  README.md, "Training: SGD on minibatches"
 * explains the MLP and its layout, "Forward and backward by hand" its passes.
 */
#ifndef PARALLEL_ROOMS_MLP_MODEL_H
#define PARALLEL_ROOMS_MLP_MODEL_H

#include "mlp_data.h"

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

#endif /* PARALLEL_ROOMS_MLP_MODEL_H */
