/*
 * mlp_common.h -- the helpers every task of room 06 uses: xcalloc(), shuffle(),
 * split(), checksum_of(), max_rel_diff(), print_loss_curves(),
 * check_same_training(), and MLP_HOST_DEVICE.  The other headers include it.
 *
 * No need to change anything here.  README.md, "Why the replicas never drift
 * apart" explains the checks.  The room's headers, one per concern (a task
 * includes, after pr.h, only those it needs; each includes what it uses):
 *
 *   mlp_common.h    these helpers                     every task
 *   mlp_data.h      the MLP's data set                tasks 1-6, 8, 9, 11, 12
 *   mlp_model.h     the MLP: layout, init, forward    task 1 (the others through mlp_train.h)
 *   mlp_train.h     backward pass, serial baseline    tasks 2-6, 8, 9, 11, 12 (task 1's answer)
 *   mlp_mpi.h       checks over the MPI ranks         tasks 3-9, 11, 12
 *   mlp_momentum.h  SGD with momentum, its baseline   task 12
 *   mlp_pipeline.h  the pipeline's stages             task 9
 *   mlp_gpu.h       GPU replicas, NCCL, baselines     task 6
 *   mlp_gan.h       the GAN: two networks, ring data  tasks 7, 10
 *   mlp_gan_gpu.h   the GAN on one GPU                task 10
 *
 * Every function is static inline: a task that does not call one gets no
 * warning about it.  Tasks 6 and 10 are CUDA C++, so the code they use casts
 * what xcalloc() returns and initialises structs field by field.
 */
#ifndef PARALLEL_ROOMS_MLP_COMMON_H
#define PARALLEL_ROOMS_MLP_COMMON_H

#include "pr.h"

/* Tasks 6 and 10 run the networks' forward and backward passes on the GPU too:
 * compiled as CUDA (by nvcc, or by the simulator) they are __host__ __device__. */
#if defined(__CUDACC__) || defined(CUDA_SIM)
#define MLP_HOST_DEVICE __host__ __device__
#else
#define MLP_HOST_DEVICE
#endif

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

#endif /* PARALLEL_ROOMS_MLP_COMMON_H */
