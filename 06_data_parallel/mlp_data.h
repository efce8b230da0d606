/*
 * mlp_data.h -- the data set that room 06's MLP learns: D inputs per sample,
 * dataset_t, target_fn(), make_dataset().  Tasks 1 to 6, 8 and 9 get it
 * through mlp_model.h.  (The GAN of tasks 7 and 10 has its own, in mlp_gan.h.)
 *
 * No need to change anything here.  README.md, "Training: SGD on minibatches"
 * explains the data set.
 */
#ifndef PARALLEL_ROOMS_MLP_DATA_H
#define PARALLEL_ROOMS_MLP_DATA_H

#include "mlp_common.h"

#define D 2 /* inputs per sample */

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

#endif /* PARALLEL_ROOMS_MLP_DATA_H */
