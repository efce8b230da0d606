/*
 * Room 06, task 3: distributed data parallel (DDP) with MPI -- no coordinator.
 *
 * The MLP of task 1 again, now trained by p MPI ranks, the way PyTorch's
 * DistributedDataParallel does it.  Every rank holds a full replica of the
 * model and the whole (small) data set, and for every minibatch:
 *
 *   1. the distributed sampler gives it its own shard of the minibatch: every
 *      rank shuffles the data with the same seed, so all agree on the
 *      minibatch without a message, and each picks its part by its rank;
 *   2. forward and backward on its shard: a gradient summed over its samples;
 *   3. one MPI_Allreduce adds up these sums, and every rank turns the total
 *      into the minibatch's mean gradient;
 *   4. every rank makes the same SGD update on its own replica.
 *
 * Nobody gathers outputs, computes the loss for the others or sends the model
 * around: the only message is the gradient, and every rank ends the step with
 * the same parameters.
 *
 *   TODO 1: the sampler: this rank's shard of a minibatch.
 *   TODO 2: the gradient summed over all ranks, then made a mean.
 *
 * Checked: that the shards cover a minibatch exactly once; that the replicas
 * are identical on every rank (a checksum of the parameters, its MAX and MIN
 * over the ranks: the spread must be 0, to 1e-12); and that the training
 * equals the serial run of task 1 (rank 0 runs it too) to 1e-9: the loss of
 * every epoch and the final parameters.  Then the time per epoch and the
 * parallel efficiency t_serial / (p * t_parallel).
 *
 * Read first: README.md, "Data parallelism: split the minibatch, add the gradients", "DDP: equal ranks and one allreduce", "Why the replicas never drift apart".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task3 task3.c -lm
 *   mpiexec -n 2 ./task3
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task3
 */
#define PR_MPI
#include "pr.h"
#include "mlp_mpi.h"
#include "mlp_train.h"

/* The scratch arrays of one rank's training. */
typedef struct {
    long *shard;   /* this rank's samples of the current minibatch */
    double *local; /* count + 1: the shard's gradient sum, then its squared-error sum */
    double *grad;  /* count + 1: the same, summed over all ranks */
    double *h;     /* H hidden activations */
} work_t;

/* The distributed sampler: stores in shard[] this rank's samples of the
 * minibatch batch_idx[0..batch-1] and returns how many there are. */
static long my_shard(const long *batch_idx, long batch, int rank, int size, long *shard)
{
    //@ TODO 1: The distributed sampler, with no message: fill the shard with
    //@         this rank's samples of the minibatch, by a rule you choose, and
    //@         return how many there are.  Over all ranks, every sample of the
    //@         minibatch must land in exactly one shard, and the shards' sizes
    //@         differ by at most one; with more ranks than samples some shards
    //@         stay empty.  README: "The distributed sampler".
    //@ placeholder: (void)batch_idx, (void)batch, (void)rank, (void)size, (void)shard;
    //@ placeholder: long count = 0; /* TODO 1: this rank's shard */
    //@ solution {
    long count = 0;
    for (long b = rank; b < batch; b += size)
        shard[count++] = batch_idx[b];
    //@ }
    return count;
}

/* One DDP step on the minibatch batch_idx[0..batch-1], on every rank; returns
 * the minibatch's loss (the same on every rank). */
static double ddp_step(double *p, const layout_t *L, const dataset_t *data, const long *batch_idx,
                       long batch, work_t *w)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long count = my_shard(batch_idx, batch, rank, size, w->shard);

    /* Forward and backward on the shard.  local[] is a SUM over the shard's
     * samples (dL/dyhat = 2 (yhat - y), not yet divided by anything), and
     * local[L->count] the sum of the squared errors: one more number in the
     * same message is cheaper than a second allreduce for the loss. */
    memset(w->local, 0, (size_t)(L->count + 1) * sizeof(double));
    for (long b = 0; b < count; b++) {
        const double *x = data->x + w->shard[b] * D;
        double err = mlp_forward(p, L, x, w->h) - data->y[w->shard[b]];
        w->local[L->count] += err * err;
        mlp_backward(p, L, x, w->h, 2.0 * err, w->local);
    }

    memset(w->grad, 0, (size_t)(L->count + 1) * sizeof(double));
    //@ TODO 2: Every rank must end with the same numbers: the shards' sums
    //@         (gradient and squared errors together) added up over all ranks
    //@         with one MPI_Allreduce, then turned into the minibatch's mean.
    //@         Think about what to divide by: the shards differ in size, and
    //@         the result must equal the serial run's gradient and loss.
    //@ placeholder: (void)batch; /* TODO 2: the sum over the ranks, then the mean */
    //@ solution {
    MPI_Allreduce(w->local, w->grad, (int)L->count + 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (long i = 0; i <= L->count; i++)
        w->grad[i] /= (double)batch;
    //@ }

    /* The same update on every rank: same parameters, same gradient. */
    for (long i = 0; i < L->count; i++)
        p[i] -= L->lr * w->grad[i];
    return w->grad[L->count];
}

/* ---- no need to change below ---- */

typedef struct {
    const dataset_t *data;
    const layout_t *L;
    long batch;
    int epochs, distributed; /* 0: the serial baseline (mlp_train.h), on this rank alone */
    uint64_t seed;
    double *params;     /* the trained model */
    double *epoch_loss; /* the mean minibatch loss of each epoch, weighted by size */
} run_t;

/* Trains for r->epochs epochs, serially or with DDP, on the same minibatches. */
static void train(void *ctx)
{
    run_t *r = ctx;
    if (!r->distributed) {
        train_serial(r->data, r->L, r->batch, r->epochs, r->seed, r->params, r->epoch_loss);
        return;
    }
    const layout_t *L = r->L;
    long n = r->data->n;
    long *perm = xcalloc((size_t)n, sizeof *perm);
    work_t w = { xcalloc((size_t)r->batch, sizeof(long)),
                 xcalloc((size_t)L->count + 1, sizeof(double)),
                 xcalloc((size_t)L->count + 1, sizeof(double)),
                 xcalloc((size_t)L->hidden, sizeof(double)) };
    mlp_init(r->params, L, r->seed);
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        double loss_sum = 0.0;
        for (long start = 0; start < n; start += r->batch) {
            long batch = n - start < r->batch ? n - start : r->batch;
            loss_sum += ddp_step(r->params, L, r->data, perm + start, batch, &w) * (double)batch;
        }
        r->epoch_loss[epoch] = loss_sum / (double)n;
    }
    free(perm);
    free(w.shard);
    free(w.local);
    free(w.grad);
    free(w.h);
}

/* Checks on all ranks together that the shards of the minibatch idx[0..batch-1]
 * hold each of its samples exactly once: every rank counts its shard's samples
 * per index, and MPI_Allreduce adds the counts.  Returns 1 when they do. */
static int shards_cover(const long *idx, long batch, long n)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *shard = xcalloc((size_t)batch, sizeof *shard);
    int *mine = xcalloc((size_t)n, sizeof *mine), *all = xcalloc((size_t)n, sizeof *all);
    long count = my_shard(idx, batch, rank, size, shard);
    for (long b = 0; b < count && b < batch; b++)
        if (shard[b] >= 0 && shard[b] < n)
            mine[shard[b]]++;
    MPI_Allreduce(mine, all, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (long b = 0; b < batch; b++)
        all[idx[b]]--; /* every sample of the minibatch once: all zeros now */
    int ok = 1;
    for (long i = 0; i < n; i++)
        ok = ok && all[i] == 0;
    free(shard);
    free(mine);
    free(all);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 1000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 29, 1, n);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 20, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 12, 1, 1000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    layout_t L = make_layout(hidden);
    if (rank == 0)
        printf("task3: DDP on %d rank%s, n=%ld, minibatch %ld, %d epochs, %d hidden units"
               " (%ld parameters), seed %llu\n",
               size, size == 1 ? "" : "s", n, batch, epochs, hidden, L.count,
               (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    /* The sampler on the first and on the last (smallest) minibatch of epoch 0. */
    long *perm = xcalloc((size_t)n, sizeof *perm);
    shuffle(perm, n, seed, 0);
    long last_start = (n - 1) / batch * batch;
    int covered = shards_cover(perm, batch, n) & shards_cover(perm + last_start, n - last_start, n);

    /* The serial baseline, on rank 0 alone, timed while the others sleep. */
    run_t serial = { &data, &L, batch, epochs, 0, seed, xcalloc((size_t)L.count, sizeof(double)),
                     xcalloc((size_t)epochs, sizeof(double)) };
    double t_serial = time_on_rank0(train, &serial);

    run_t ddp = serial;
    ddp.distributed = 1;
    ddp.params = xcalloc((size_t)L.count, sizeof(double));
    ddp.epoch_loss = xcalloc((size_t)epochs, sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    train(&ddp);
    double mine = MPI_Wtime() - start, t_ddp;
    MPI_Allreduce(&mine, &t_ddp, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    print_loss_curves("serial loss", serial.epoch_loss, "DDP loss", ddp.epoch_loss, epochs);
    double checksum = checksum_of(ddp.params, L.count);
    int identical = check_replicas_identical("replica spread (relative)", checksum);
    if (rank == 0) {
        pr_check_int("shards cover each minibatch", covered, 1);
        int matches = check_same_training("DDP", "serial", ddp.params, ddp.epoch_loss,
                                          serial.params, serial.epoch_loss, L.count, epochs);
        pr_result_int("shards_cover", covered);
        pr_result_int("replicas_identical", identical);
        pr_result_double("final_loss", ddp.epoch_loss[epochs - 1], 1e-6);
        pr_result_double("checksum", checksum, 1e-6);
        pr_result_int("matches_serial", matches);

        pr_print_time("serial, per epoch", t_serial / epochs, 0, NULL);
        char what[64];
        snprintf(what, sizeof what, "DDP, %d rank%s, per epoch", size, size == 1 ? "" : "s");
        pr_print_time(what, t_ddp / epochs, t_serial / epochs, "serial");
        printf("  parallel efficiency t_serial / (p * t_DDP) = %.3f with p = %d\n",
               t_serial / (size * t_ddp), size);
    }

    free(perm);
    free(serial.params);
    free(serial.epoch_loss);
    free(ddp.params);
    free(ddp.epoch_loss);
    free(data.x);
    free(data.y);
    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
