/*
 * Room 06, task 11 (stretch): gradient accumulation, one allreduce per group.
 *
 * Task 3's DDP, with a minibatch too big to run at once.  The epoch is cut
 * into micro-batches of `batch` samples, and every `accum` micro-batches make
 * one group: the minibatch that one update uses.  Each rank runs forward and
 * backward on its shard of each micro-batch, ADDING the shard's gradient sum
 * into the same local array: no message between the micro-steps.  When a
 * group ends, one allreduce sums the ranks' arrays, every rank divides, and
 * every rank makes the same update.  That is PyTorch DDP's no_sync(): it
 * trains exactly as a minibatch `accum` times larger would, with an
 * allreduce for every `accum` micro-steps instead of every one.
 *
 *   TODO 1: does this micro-step end a group?
 *   TODO 2: the group's gradient, summed over the ranks, made a mean.
 *
 * Checked: that the replicas are identical on every rank (the spread of a
 * checksum over the ranks is 0, to 1e-12), and that the training equals the
 * serial run with minibatches of accum * batch samples (rank 0 runs it too)
 * to 1e-9: the loss of every epoch and the final parameters.  The program
 * also prints how many MPI_Allreduce calls the training made, beside the
 * number of groups and of micro-steps.  An allreduce on every micro-step gives
 * the same numbers and defeats the point: the grader counts each rank's
 * collectives from outside the program, and more than 1.2 times the
 * reference's FAIL.
 *
 * Read first: README.md, "DDP: equal ranks and one allreduce", "Gradient accumulation: fewer allreduces".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task11 task11.c -lm
 *   mpiexec -n 2 ./task11
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task11
 */
#define PR_MPI
#include "pr.h"
#include "mlp_mpi.h"
#include "mlp_train.h"

/* The scratch arrays of one rank's training. */
typedef struct {
    double *acc;  /* count + 1: the group's gradient sum on this rank, then its squared errors */
    double *grad; /* count + 1: the same, summed over all ranks, then divided */
    double *h;    /* H hidden activations */
} work_t;

/* One micro-step on every rank: forward and backward on this rank's
 * contiguous part of the micro-batch idx[0..size-1] (room 03's uneven split:
 * a part may be empty).  It ADDS the part's gradient sum (dL/dyhat = 2 (yhat -
 * y), not divided by anything) and its squared errors to w->acc.  No message. */
static void micro_step(const double *p, const layout_t *L, const dataset_t *data, const long *idx, long size, work_t *w)
{
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    long lo, hi;
    split(size, ranks, rank, &lo, &hi);
    for (long b = lo; b < hi; b++) {
        const double *x = data->x + idx[b] * D;
        double err = mlp_forward(p, L, x, w->h) - data->y[idx[b]];
        w->acc[L->count] += err * err;
        mlp_backward(p, L, x, w->h, 2.0 * err, w->acc);
    }
}

/* One epoch in the order perm[0..n-1]: micro-batches of `batch` samples (the
 * last one may be shorter), an update after every group of `accum` of them.
 * Returns the epoch's loss: its squared errors over n. */
static double train_epoch(double *p, const layout_t *L, const dataset_t *data, const long *perm, long batch, long accum,
                          work_t *w)
{
    long n = data->n, in_group = 0; /* samples of the group so far, over all ranks */
    double sse = 0.0;
    memset(w->acc, 0, (size_t)(L->count + 1) * sizeof(double));
    for (long start = 0, micro = 0; start < n; start += batch, micro++) {
        long size = n - start < batch ? n - start : batch;
        micro_step(p, L, data, perm + start, size, w);
        in_group += size;

        //@ TODO 1: Decide whether this micro-step ends a group.  A group is
        //@         `accum` micro-steps.  The epoch's last micro-step ends its
        //@         group too, however few micro-steps that group holds: the
        //@         serial run's last minibatch of an epoch is short as well, and
        //@         no gradient may be carried into the next epoch.
        //@ placeholder: (void)accum;
        //@ placeholder: int ends_group = 0; /* TODO 1 */
        //@ solution {
        int ends_group = (micro + 1) % accum == 0 || start + size == n;
        //@ }
        if (!ends_group)
            continue;

        //@ TODO 2: The group's step.  Every rank must end with the same numbers:
        //@         the group's sums (gradient and squared errors together) added
        //@         up over the ranks with one MPI_Allreduce into w->grad, then
        //@         turned into the group's mean.  Think about what to divide by:
        //@         the result must equal the serial run's gradient for a minibatch
        //@         of this group's samples, the last, short group included.
        //@ placeholder: (void)w->grad; /* TODO 2: the sum over the ranks, then the mean */
        //@ solution {
        MPI_Allreduce(w->acc, w->grad, (int)L->count + 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (long i = 0; i <= L->count; i++)
            w->grad[i] /= (double)in_group;
        //@ }

        /* The same update on every rank, then a fresh group. */
        for (long i = 0; i < L->count; i++)
            p[i] -= L->lr * w->grad[i];
        sse += w->grad[L->count] * (double)in_group;
        memset(w->acc, 0, (size_t)(L->count + 1) * sizeof(double));
        memset(w->grad, 0, (size_t)(L->count + 1) * sizeof(double));
        in_group = 0;
    }
    return sse / (double)n;
}

/* ---- no need to change below ---- */

/* How many times the training called MPI_Allreduce, counted through MPI's
 * profiling interface: this definition takes the place of the library's, and
 * PMPI_Allreduce is the library's own.  Only calls while `counting` is set are
 * counted (the checks below use MPI_Allreduce too). */
static long allreduce_calls;
static int counting;
int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (counting)
        allreduce_calls++;
    return PMPI_Allreduce(send, recv, count, type, op, comm);
}

typedef struct {
    const dataset_t *data;
    const layout_t *L;
    long batch, accum;
    int epochs;
    uint64_t seed;
    double *params;     /* the trained model */
    double *epoch_loss; /* the mean loss of each epoch */
} run_t;

/* The serial baseline (mlp_train.h), one minibatch per group: accum * batch samples. */
static void train_reference(void *ctx)
{
    run_t *r = ctx;
    train_serial(r->data, r->L, r->accum * r->batch, r->epochs, r->seed, r->params, r->epoch_loss);
}

/* The accumulated training, on every rank. */
static void train_accumulated(run_t *r)
{
    const layout_t *L = r->L;
    long n = r->data->n;
    long *perm = xcalloc((size_t)n, sizeof *perm);
    work_t w = { xcalloc((size_t)L->count + 1, sizeof(double)), xcalloc((size_t)L->count + 1, sizeof(double)),
                 xcalloc((size_t)L->hidden, sizeof(double)) };
    mlp_init(r->params, L, r->seed);
    counting = 1;
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        r->epoch_loss[epoch] = train_epoch(r->params, L, r->data, perm, r->batch, r->accum, &w);
    }
    counting = 0;
    free(perm);
    free(w.acc);
    free(w.grad);
    free(w.h);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 1000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 13, 1, n);
    long accum = (long)pr_arg_long(argc, argv, "accum", 5, 1, 10000);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 20, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 12, 1, 1000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    layout_t L = make_layout(hidden);
    long micro_per_epoch = (n + batch - 1) / batch;
    long groups_per_epoch = (micro_per_epoch + accum - 1) / accum;
    if (rank == 0)
        printf("task11: DDP with gradient accumulation on %d rank%s, n=%ld, micro-batches of %ld, %ld per"
               " update (%ld samples), %d epochs, %d hidden units (%ld parameters), seed %llu\n",
               size, size == 1 ? "" : "s", n, batch, accum, accum * batch, epochs, hidden, L.count,
               (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    /* The serial baseline, on rank 0 alone, timed while the others sleep. */
    run_t serial = { &data,
                     &L,
                     batch,
                     accum,
                     epochs,
                     seed,
                     xcalloc((size_t)L.count, sizeof(double)),
                     xcalloc((size_t)epochs, sizeof(double)) };
    double t_serial = time_on_rank0(train_reference, &serial);

    run_t acc = serial;
    acc.params = xcalloc((size_t)L.count, sizeof(double));
    acc.epoch_loss = xcalloc((size_t)epochs, sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    train_accumulated(&acc);
    double mine = MPI_Wtime() - start, t_acc;
    MPI_Allreduce(&mine, &t_acc, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    char serial_name[64];
    snprintf(serial_name, sizeof serial_name, "serial, batch %ld", accum * batch);
    print_loss_curves(serial_name, serial.epoch_loss, "accumulated", acc.epoch_loss, epochs);
    double checksum = checksum_of(acc.params, L.count);
    int identical = check_replicas_identical("replica spread (relative)", checksum);
    if (rank == 0) {
        printf("  MPI_Allreduce calls in training on rank 0: %ld, for %ld groups of up to %ld micro-steps"
               " (%ld micro-steps)\n",
               allreduce_calls, groups_per_epoch * epochs, accum, micro_per_epoch * epochs);
        int matches = check_same_training("accumulated", "serial", acc.params, acc.epoch_loss, serial.params,
                                          serial.epoch_loss, L.count, epochs);
        pr_result_int("replicas_identical", identical);
        pr_result_double("final_loss", acc.epoch_loss[epochs - 1], 1e-6);
        pr_result_double("checksum", checksum, 1e-6);
        pr_result_int("matches_serial", matches);

        pr_print_time("serial, per epoch", t_serial / epochs, 0, NULL);
        pr_print_time("accumulation, per epoch", t_acc / epochs, t_serial / epochs, "serial");
    }

    free(serial.params);
    free(serial.epoch_loss);
    free(acc.params);
    free(acc.epoch_loss);
    free(data.x);
    free(data.y);
    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
