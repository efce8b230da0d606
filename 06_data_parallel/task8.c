/*
 * Room 06, task 8: bug hunt -- DDP training that does not match its serial run.
 *
 * The MLP of task 1, trained on its seeded data set by p MPI ranks with DDP,
 * as in task 3: every rank makes the same data, the same initial model and
 * the same shuffled order from the seed; every rank takes its strided shard
 * of each minibatch, runs forward and backward on it, the ranks add up their
 * gradients with one MPI_Allreduce, and every rank makes the same SGD step on
 * its own replica.  Rank 0 also trains the serial baseline (task 1's loop).
 * The model, the data, the serial baseline and the checks come from the room's
 * headers (mlp_train.h, mlp_mpi.h), as in the other tasks; the DDP training is
 * all written out here.
 *
 * It checks itself: the replicas identical on every rank (the spread of a
 * parameter checksum over the ranks must be 0), and every epoch's loss and
 * the final parameters equal to the serial run's, to 1e-9.
 *
 * The program is complete and runs quickly, but it has ONE bug that makes it
 * fail grading.  Find it, explain it, fix it: the output and the lesson are
 * your clues.
 *
 * Read first: README.md, "DDP: equal ranks and one allreduce", "Why the replicas never drift apart", "Task 8: bug hunt".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task8 task8.c -lm
 *   mpiexec -n 2 ./task8
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task8
 */
#define PR_MPI
#include "pr.h"
#include "mlp_mpi.h"
#include "mlp_train.h"

/* Scratch arrays: a shard, two gradients (plus the squared errors), H activations. */
typedef struct {
    long *shard;
    double *local, *global, *h;
} work_t;

/* One DDP step, on every rank, on the minibatch that starts at position `start` of the
 * epoch's shuffled order perm: `batch` samples, fewer at the end of the epoch.  Returns
 * the sum of the minibatch's squared errors. */
static double ddp_step(double *p, const layout_t *L, const dataset_t *data, const long *perm,
                       long start, long batch, work_t *w)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long m = data->n - start < batch ? data->n - start : batch; /* this minibatch's size */
    long count = 0;
    for (long b = rank; b < m; b += size) /* the distributed sampler */
        w->shard[count++] = perm[b];

    /* local[]: the shard's gradient and squared errors, summed over its samples */
    memset(w->local, 0, (size_t)(L->count + 1) * sizeof(double));
    for (long b = 0; b < count; b++) {
        const double *x = data->x + w->shard[b] * D;
        double err = mlp_forward(p, L, x, w->h) - data->y[w->shard[b]];
        w->local[L->count] += err * err;
        mlp_backward(p, L, x, w->h, 2.0 * err, w->local);
    }
    MPI_Allreduce(w->local, w->global, (int)L->count + 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    /* The minibatch's mean gradient, and the same update on every replica. */
    for (long i = 0; i < L->count; i++)
        p[i] -= L->lr * (w->global[i] / (double)m);
    return w->global[L->count];
}

/* Trains `epochs` epochs with DDP from the seed's initial model; fills loss[epoch]. */
static void train_ddp(double *p, const layout_t *L, const dataset_t *data, long batch, int epochs,
                      uint64_t seed, double *loss)
{
    long n = data->n;
    long *perm = xcalloc((size_t)n, sizeof *perm);
    work_t w = { xcalloc((size_t)batch, sizeof(long)),
                 xcalloc((size_t)L->count + 1, sizeof(double)),
                 xcalloc((size_t)L->count + 1, sizeof(double)),
                 xcalloc((size_t)L->hidden, sizeof(double)) };
    mlp_init(p, L, seed);
    for (int epoch = 0; epoch < epochs; epoch++) {
        shuffle(perm, n, seed, epoch);
        double sum = 0.0;
        for (long start = 0; start < n; start += batch)
            sum += ddp_step(p, L, data, perm, start, batch, &w);
        loss[epoch] = sum / (double)n;
    }
    free(perm), free(w.shard), free(w.local), free(w.global), free(w.h);
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
        printf("task8: DDP on %d rank%s, n=%ld, minibatch %ld, %d epochs, %d hidden units"
               " (%ld parameters), seed %llu\n",
               size, size == 1 ? "" : "s", n, batch, epochs, hidden, L.count,
               (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);
    double *serial = xcalloc((size_t)L.count, sizeof(double));
    double *serial_loss = xcalloc((size_t)epochs, sizeof(double));
    double *ddp = xcalloc((size_t)L.count, sizeof(double));
    double *ddp_loss = xcalloc((size_t)epochs, sizeof(double));

    double t_serial = pr_now();
    if (rank == 0)
        train_serial(&data, &L, batch, epochs, seed, serial, serial_loss);
    t_serial = pr_now() - t_serial;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    train_ddp(ddp, &L, &data, batch, epochs, seed, ddp_loss);
    double mine = MPI_Wtime() - start, t_ddp;
    MPI_Allreduce(&mine, &t_ddp, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    print_loss_curves("serial loss", serial_loss, "DDP loss", ddp_loss, epochs);
    double checksum = checksum_of(ddp, L.count);
    int identical = check_replicas_identical("replica spread (relative)", checksum);
    if (rank == 0) {
        int matches = check_same_training("DDP", "serial", ddp, ddp_loss, serial, serial_loss,
                                          L.count, epochs);
        pr_result_int("replicas_identical", identical);
        pr_result_double("final_loss", ddp_loss[epochs - 1], 1e-6);
        pr_result_double("checksum", checksum, 1e-6);
        pr_result_int("matches_serial", matches);
        pr_print_time("serial, per epoch", t_serial / epochs, 0, NULL);
        pr_print_time("DDP, per epoch", t_ddp / epochs, t_serial / epochs, "serial");
    }

    free(serial), free(serial_loss), free(ddp), free(ddp_loss), free(data.x), free(data.y);
    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
