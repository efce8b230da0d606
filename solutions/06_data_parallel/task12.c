/*
 * Room 06, task 12 (stretch): ZeRO stage 1, the optimizer's state sharded.
 *
 * Task 3's DDP, trained with SGD with momentum (mlp_momentum.h): an optimizer
 * with state, one number per parameter kept from step to step.  In DDP every
 * rank would keep all of it and make the same update as every other rank.
 * Here each rank owns one contiguous shard of the parameters and keeps the
 * state of its shard only.  A step on every rank:
 *
 *   1. forward and backward on its part of the minibatch: a gradient sum;
 *   2. one MPI_Reduce_scatter: the sum over the ranks, of its own shard only;
 *   3. the update of its own shard of parameters, with its own shard of state;
 *   4. one MPI_Allgatherv: every rank gets every shard of the new parameters.
 *
 * A reduce-scatter plus an allgather moves as many bytes as one allreduce
 * (that is how a ring allreduce works, task 4), and each rank updates and
 * stores 1/p of the state.
 *
 *   TODO 1: the shards: which parameters each rank owns.
 *   TODO 2: the gradient of this rank's shard, summed over the ranks, and its update.
 *   TODO 3: every rank's updated shard to every rank.
 *
 * Checked: that the shards cover the parameters once, in order, with sizes
 * that differ by at most one; that the replicas are identical on every rank
 * (the spread of a checksum over the ranks is 0, to 1e-12); and that the
 * training equals the serial run with momentum (rank 0 runs it too) to 1e-9:
 * the loss of every epoch and the final parameters.  It prints the state each
 * rank keeps, against the state of an unsharded optimizer.
 *
 * Read first: README.md, "One step of DDP", "The ring allreduce, again", "ZeRO: sharding the optimizer's state".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task12 task12.c -lm
 *   mpiexec -n 3 ./task12
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task12
 */
#define PR_MPI
#include "pr.h"
#include "mlp_mpi.h"
#include "mlp_momentum.h" /* MOMENTUM, momentum_update(), train_serial_momentum() */

/* The shards of the parameters over the ranks: rank r owns counts[r]
 * parameters, from number displs[r] on (int: MPI's counts are ints). */
static void make_shards(long count, int ranks, int *counts, int *displs)
{
    //@ TODO 1: Give each rank one contiguous shard of the `count` parameters,
    //@         rank 0's first, then rank 1's, and so on: counts[r] numbers from
    //@         displs[r] on.  Every parameter in exactly one shard, and the
    //@         shards' sizes differ by at most one (count is not a multiple of
    //@         the number of ranks).  A helper in the room's headers can do it.
    //@ placeholder: (void)count;
    //@ placeholder: for (int r = 0; r < ranks; r++) counts[r] = displs[r] = 0; /* TODO 1 */
    //@ solution {
    for (int r = 0; r < ranks; r++) {
        long lo, hi;
        split(count, ranks, r, &lo, &hi);
        displs[r] = (int)lo;
        counts[r] = (int)(hi - lo);
    }
    //@ }
}

/* One rank's part of the training. */
typedef struct {
    int rank, *counts, *displs;
    double *local; /* count: this rank's gradient sum over its samples */
    double *mine;  /* counts[rank]: its shard of the gradient, summed over the ranks */
    double *state; /* counts[rank]: its shard of the optimizer's state */
    double *h;     /* H hidden activations */
} zero_t;

/* One step on the minibatch idx[0..batch-1], on every rank; returns this
 * rank's squared errors (the scaffolding adds them up over the ranks). */
static double zero_step(double *p, const layout_t *L, const dataset_t *data, const long *idx, long batch, zero_t *z)
{
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    long lo, hi;
    split(batch, ranks, z->rank, &lo, &hi); /* this rank's samples */
    double sse = 0.0;
    memset(z->local, 0, (size_t)L->count * sizeof(double));
    for (long b = lo; b < hi; b++) {
        const double *x = data->x + idx[b] * D;
        double err = mlp_forward(p, L, x, z->h) - data->y[idx[b]];
        sse += err * err;
        mlp_backward(p, L, x, z->h, 2.0 * err, z->local); /* a sum: not divided yet */
    }

    //@ TODO 2: This rank's shard of the minibatch's mean gradient, in z->mine:
    //@         the ranks' sums added up with one MPI_Reduce_scatter, each rank
    //@         receiving only its own shard, then divided as in task 3.  Then
    //@         the update of this rank's shard of the parameters with its shard
    //@         of the state (momentum_update).  The other shards are not yours.
    //@ placeholder: (void)batch; /* TODO 2: the shard's gradient, then its update */
    //@ solution {
    int mine = z->counts[z->rank];
    MPI_Reduce_scatter(z->local, z->mine, z->counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < mine; i++)
        z->mine[i] /= (double)batch;
    momentum_update(p + z->displs[z->rank], z->state, z->mine, mine, L->lr);
    //@ }

    //@ TODO 3: Every rank must end the step with all the new parameters: each
    //@         rank's updated shard sent to every rank, in place in p, with one
    //@         MPI_Allgatherv.
    //@ placeholder: /* TODO 3: every shard to every rank */
    //@ solution {
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, p, z->counts, z->displs, MPI_DOUBLE, MPI_COMM_WORLD);
    //@ }
    return sse;
}

/* ---- no need to change below ---- */

typedef struct {
    const dataset_t *data;
    const layout_t *L;
    long batch;
    int epochs;
    uint64_t seed;
    double *params;     /* the trained model */
    double *epoch_loss; /* the mean loss of each epoch */
} run_t;

static void train_reference(void *ctx)
{
    run_t *r = ctx;
    train_serial_momentum(r->data, r->L, r->batch, r->epochs, r->seed, r->params, r->epoch_loss);
}

/* The sharded training, on every rank; z holds the shards. */
static void train_zero(run_t *r, zero_t *z)
{
    long n = r->data->n;
    long *perm = xcalloc((size_t)n, sizeof *perm);
    mlp_init(r->params, r->L, r->seed);
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        double sse = 0.0, total;
        for (long start = 0; start < n; start += r->batch) {
            long batch = n - start < r->batch ? n - start : r->batch;
            sse += zero_step(r->params, r->L, r->data, perm + start, batch, z);
        }
        MPI_Allreduce(&sse, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* once an epoch */
        r->epoch_loss[epoch] = total / (double)n;
    }
    free(perm);
}

/* Rank 0 checks the shards: in order, each parameter once, balanced. */
static int shards_ok(const int *counts, const int *displs, int ranks, long count)
{
    int ok = 1, lo = counts[0], hi = counts[0];
    long next = 0;
    for (int r = 0; r < ranks; r++) {
        ok = ok && displs[r] == next && counts[r] >= 0;
        next += counts[r];
        lo = counts[r] < lo ? counts[r] : lo;
        hi = counts[r] > hi ? counts[r] : hi;
    }
    return ok && next == count && hi - lo <= 1;
}

/* Each rank's optimizer state, against one unsharded optimizer's (rank 0 prints). */
static void print_state_memory(long mine, long count)
{
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    long *all = xcalloc((size_t)ranks, sizeof *all);
    PR_SCAFFOLD(MPI_Gather(&mine, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        printf("  optimizer state: unsharded %ld numbers (%ld bytes) on every rank; sharded:\n", count,
               count * (long)sizeof(double));
        for (int r = 0; r < ranks; r++)
            printf("    rank %d keeps %ld numbers (%ld bytes, %.0f %% of unsharded)\n", r, all[r],
                   all[r] * (long)sizeof(double), 100.0 * (double)all[r] / (double)count);
    }
    free(all);
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

    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    layout_t L = make_layout(hidden);
    if (rank == 0)
        printf("task12: ZeRO-1 (SGD with momentum %g) on %d rank%s, n=%ld, minibatch %ld, %d epochs, %d hidden"
               " units (%ld parameters), seed %llu\n",
               MOMENTUM, ranks, ranks == 1 ? "" : "s", n, batch, epochs, hidden, L.count, (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    zero_t z = { rank,
                 xcalloc((size_t)ranks, sizeof(int)),
                 xcalloc((size_t)ranks, sizeof(int)),
                 xcalloc((size_t)L.count, sizeof(double)),
                 NULL,
                 NULL,
                 xcalloc((size_t)L.hidden, sizeof(double)) };
    make_shards(L.count, ranks, z.counts, z.displs);
    int covered = shards_ok(z.counts, z.displs, ranks, L.count);
    long mine = covered ? z.counts[rank] : 0;
    z.mine = xcalloc((size_t)mine, sizeof(double));
    z.state = xcalloc((size_t)mine, sizeof(double)); /* this rank's shard of the state, zeros */
    print_state_memory(mine, L.count);

    /* The serial baseline, on rank 0 alone, timed while the others sleep. */
    run_t serial = { &data,
                     &L,
                     batch,
                     epochs,
                     seed,
                     xcalloc((size_t)L.count, sizeof(double)),
                     xcalloc((size_t)epochs, sizeof(double)) };
    double t_serial = time_on_rank0(train_reference, &serial);

    run_t zero = serial;
    zero.params = xcalloc((size_t)L.count, sizeof(double));
    zero.epoch_loss = xcalloc((size_t)epochs, sizeof(double));
    double t_zero = 0.0;
    if (covered) { /* wrong shards would make the collectives overrun their buffers */
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        train_zero(&zero, &z);
        double took = MPI_Wtime() - start;
        MPI_Allreduce(&took, &t_zero, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    print_loss_curves("serial loss", serial.epoch_loss, "ZeRO-1 loss", zero.epoch_loss, epochs);
    double checksum = checksum_of(zero.params, L.count);
    int identical = check_replicas_identical("replica spread (relative)", checksum);
    if (rank == 0) {
        pr_check_int("shards cover the parameters", covered, 1);
        int matches = check_same_training("ZeRO-1", "serial", zero.params, zero.epoch_loss, serial.params,
                                          serial.epoch_loss, L.count, epochs);
        pr_result_int("shards_cover", covered);
        pr_result_int("replicas_identical", identical);
        pr_result_double("final_loss", zero.epoch_loss[epochs - 1], 1e-6);
        pr_result_double("checksum", checksum, 1e-6);
        pr_result_int("matches_serial", matches);

        pr_print_time("serial, per epoch", t_serial / epochs, 0, NULL);
        pr_print_time("ZeRO-1, per epoch", t_zero / epochs, t_serial / epochs, "serial");
    }

    free(z.counts);
    free(z.displs);
    free(z.local);
    free(z.mine);
    free(z.state);
    free(z.h);
    free(serial.params);
    free(serial.epoch_loss);
    free(zero.params);
    free(zero.epoch_loss);
    free(data.x);
    free(data.y);
    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
