/*
 * Room 06, task 4: your own ring allreduce, for the gradients of DDP.
 *
 * Task 3's DDP, with its MPI_Allreduce replaced by a ring allreduce written
 * with MPI_Sendrecv: the algorithm of room 03's task 6, now on doubles, and on
 * a gradient whose length (4H + 1 numbers) does not divide by the number of
 * ranks.  The gradient is cut into p chunks of nearly equal size (the split is
 * given).
 *
 *   reduce-scatter, p-1 steps: each rank passes one chunk on round the ring
 *     and adds the chunk it receives into its own copy; afterwards each rank
 *     holds one chunk added up over all ranks.
 *   allgather, p-1 more steps: the finished chunks travel round the ring and
 *     replace the partial ones, until every rank has every finished chunk.
 *
 *   TODO 1: the reduce-scatter phase.
 *   TODO 2: the allgather phase.
 *
 * Every step, the program also sums the same local gradients with
 * MPI_Allreduce and compares (to 1e-12: another order of additions), and
 * times both.  Checked besides: the replicas are identical on every rank (the
 * spread of a checksum over the ranks: the ring gives every rank the same
 * bits), and the training equals the serial run of task 1 to 1e-9.
 *
 * Read first: README.md, "The ring allreduce, again", "Why the replicas never drift apart".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task4 task4.c -lm
 *   mpiexec -n 3 ./task4
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task4
 */
#define PR_MPI
#include "pr.h"
#include "mlp_mpi.h"
#include "mlp_train.h"

#define TAG_REDUCE_SCATTER 1
#define TAG_ALLGATHER 2

/* dst[i] += src[i] for i < count.  (PR_UNUSED: the untouched task does not
 * call it yet, and the compiler would say so.) */
static PR_UNUSED void add_into(double *dst, const double *src, long count)
{
    for (long i = 0; i < count; i++)
        dst[i] += src[i];
}

/* i modulo p, always in [0, p): wrap(-1, 4) is 3 (in C, -1 % 4 is -1). */
static PR_UNUSED int wrap(int i, int p)
{
    return ((i % p) + p) % p;
}

/* The ring allreduce: on return global[] on every rank holds the element-wise
 * sum of every rank's local[] (m numbers).  global starts as all zeros; tmp
 * has room for the largest chunk; first[c] and count[c] describe chunk c. */
static void ring_allreduce(const double *local, double *global, double *tmp, long m,
                           const long *first, const long *count)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;

    //@ TODO 1: Reduce-scatter.  Start from this rank's own gradient; then p-1
    //@         steps of one MPI_Sendrecv each: pass a chunk to the next rank round
    //@         the ring, take one from the previous rank and add it into yours.
    //@         Number the chunks modulo p, as the README's schedule does, so that
    //@         each step passes on the chunk you added into one step before, and
    //@         never receive on top of numbers you still need.  Must hold after:
    //@         each rank has one chunk complete, and no two ranks the same one.
    //@ placeholder: (void)local, (void)tmp, (void)m, (void)first, (void)count; /* TODO 1 */
    //@ placeholder: (void)right, (void)left;
    //@ solution {
    memcpy(global, local, (size_t)m * sizeof *global);
    for (int s = 0; s < size - 1; s++) {
        int send_c = wrap(rank - s, size), recv_c = wrap(rank - s - 1, size);
        MPI_Sendrecv(global + first[send_c], (int)count[send_c], MPI_DOUBLE, right,
                     TAG_REDUCE_SCATTER, tmp, (int)count[recv_c], MPI_DOUBLE, left,
                     TAG_REDUCE_SCATTER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        add_into(global + first[recv_c], tmp, count[recv_c]);
    }
    //@ }

    //@ TODO 2: Allgather.  p-1 more steps round the same ring: each passes on
    //@         a complete chunk, and the one that arrives is complete too, so it
    //@         can replace the partial one in place.  Must hold at the end: every
    //@         rank has all chunks complete, with the same bits everywhere.
    //@ placeholder: (void)global; /* TODO 2: allgather */
    //@ solution {
    for (int s = 0; s < size - 1; s++) {
        int send_c = wrap(rank + 1 - s, size), recv_c = wrap(rank - s, size);
        MPI_Sendrecv(global + first[send_c], (int)count[send_c], MPI_DOUBLE, right, TAG_ALLGATHER,
                     global + first[recv_c], (int)count[recv_c], MPI_DOUBLE, left, TAG_ALLGATHER,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    //@ }
}

/* ---- no need to change below ---- */

/* One rank's scratch arrays and tallies. */
typedef struct {
    long *shard;                  /* this rank's samples of the current minibatch */
    double *local;                /* the shard's gradient, summed over its samples */
    double *global;               /* the sum over all ranks, from your ring */
    double *reference;            /* the same, from MPI_Allreduce */
    double *tmp;                  /* the ring's receive buffer */
    double *h;                    /* H hidden activations */
    long *first, *count;          /* the ring's chunks */
    double t_ring, t_mpi;         /* seconds in each allreduce, all steps */
    long steps;                   /* steps made so far */
    double worst_diff;            /* the largest |ring - MPI_Allreduce| / max(1, |MPI|) */
    double sse;                   /* this rank's squared errors in this epoch */
} work_t;

/* One DDP step (task 3's) with the sum done twice: by your ring, which the
 * update uses, and by MPI_Allreduce, to compare with. */
static void ddp_step(double *p, const layout_t *L, const dataset_t *data, const long *batch_idx,
                     long batch, work_t *w)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long m = L->count, count = 0;
    for (long b = rank; b < batch; b += size) /* the sampler of task 3 */
        w->shard[count++] = batch_idx[b];

    memset(w->local, 0, (size_t)m * sizeof(double));
    for (long b = 0; b < count; b++) {
        const double *x = data->x + w->shard[b] * D;
        double err = mlp_forward(p, L, x, w->h) - data->y[w->shard[b]];
        w->sse += err * err;
        mlp_backward(p, L, x, w->h, 2.0 * err, w->local);
    }

    memset(w->global, 0, (size_t)m * sizeof(double));
    /* The first of the two also waits for the ranks whose shards took longer:
     * take turns at going first, so that neither time gets all the waiting. */
    for (int turn = 0; turn < 2; turn++) {
        double start = MPI_Wtime();
        if ((turn + w->steps) % 2 == 0) {
            ring_allreduce(w->local, w->global, w->tmp, m, w->first, w->count);
            w->t_ring += MPI_Wtime() - start;
        } else {
            MPI_Allreduce(w->local, w->reference, (int)m, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            w->t_mpi += MPI_Wtime() - start;
        }
    }
    w->steps++;
    double diff = max_rel_diff(w->global, w->reference, m);
    if (diff > w->worst_diff || isnan(diff))
        w->worst_diff = isnan(diff) ? INFINITY : diff;

    for (long i = 0; i < m; i++) /* the mean gradient: divide by the global batch */
        p[i] -= L->lr * w->global[i] / (double)batch;
}

typedef struct {
    const dataset_t *data;
    const layout_t *L;
    long batch;
    int epochs, distributed; /* 0: the serial baseline (mlp_train.h), on this rank alone */
    uint64_t seed;
    double *params;     /* the trained model */
    double *epoch_loss; /* the mean squared error of each epoch's minibatches */
    long steps;
    double t_ring, t_mpi, worst_diff; /* DDP only, this rank's */
} run_t;

static void train(run_t *r)
{
    if (!r->distributed) {
        train_serial(r->data, r->L, r->batch, r->epochs, r->seed, r->params, r->epoch_loss);
        return;
    }
    const layout_t *L = r->L;
    long n = r->data->n, m = L->count;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *perm = xcalloc((size_t)n, sizeof *perm);
    work_t w = { .shard = xcalloc((size_t)r->batch, sizeof(long)),
                 .local = xcalloc((size_t)m, sizeof(double)),
                 .global = xcalloc((size_t)m, sizeof(double)),
                 .reference = xcalloc((size_t)m, sizeof(double)),
                 .tmp = xcalloc((size_t)m, sizeof(double)),
                 .h = xcalloc((size_t)L->hidden, sizeof(double)),
                 .first = xcalloc(2 * (size_t)size, sizeof(long)) };
    w.count = w.first + size;
    for (int c = 0; c < size; c++) { /* the uneven split of room 03 (mlp_common.h) */
        long end;
        split(m, size, c, &w.first[c], &end);
        w.count[c] = end - w.first[c];
    }
    mlp_init(r->params, L, r->seed);
    r->steps = 0;
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        double sse = 0.0;
        w.sse = 0.0;
        for (long start = 0; start < n; start += r->batch) {
            long batch = n - start < r->batch ? n - start : r->batch;
            ddp_step(r->params, L, r->data, perm + start, batch, &w);
            r->steps++;
        }
        /* the epoch's loss: one small allreduce per epoch */
        MPI_Allreduce(&w.sse, &sse, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        r->epoch_loss[epoch] = sse / (double)n;
    }
    r->t_ring = w.t_ring;
    r->t_mpi = w.t_mpi;
    r->worst_diff = w.worst_diff;
    free(perm);
    free(w.shard);
    free(w.local);
    free(w.global);
    free(w.reference);
    free(w.tmp);
    free(w.h);
    free(w.first);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 1000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 29, 1, n);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 10, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 12, 1, 1000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    layout_t L = make_layout(hidden);
    if (rank == 0)
        printf("task4: DDP with a ring allreduce on %d rank%s, n=%ld, minibatch %ld, %d epochs,"
               " %d hidden units (%ld parameters), seed %llu\n",
               size, size == 1 ? "" : "s", n, batch, epochs, hidden, L.count,
               (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    run_t serial = { &data, &L, batch, epochs, 0, seed, xcalloc((size_t)L.count, sizeof(double)),
                     xcalloc((size_t)epochs, sizeof(double)), 0, 0, 0, 0 };
    if (rank == 0)
        train(&serial);
    run_t ddp = serial;
    ddp.distributed = 1;
    ddp.params = xcalloc((size_t)L.count, sizeof(double));
    ddp.epoch_loss = xcalloc((size_t)epochs, sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    train(&ddp);

    double mine[3] = { ddp.t_ring, ddp.t_mpi, ddp.worst_diff }, most[3];
    MPI_Allreduce(mine, most, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    print_loss_curves("serial loss", serial.epoch_loss, "DDP (ring) loss", ddp.epoch_loss, epochs);
    double checksum = checksum_of(ddp.params, L.count);
    int identical = check_replicas_identical("replica spread (relative)", checksum);
    if (rank == 0) {
        const double ring_tol = 1e-12;
        printf("  largest |ring - MPI_Allreduce| over %ld steps (relative): %.3g (allowed %g)\n",
               ddp.steps, most[2], ring_tol);
        pr_check_int("ring equals MPI_Allreduce", most[2] <= ring_tol, 1);
        int matches = check_same_training("DDP", "serial", ddp.params, ddp.epoch_loss,
                                          serial.params, serial.epoch_loss, L.count, epochs);
        pr_result_int("ring_equals_mpi", most[2] <= ring_tol);
        pr_result_int("replicas_identical", identical);
        pr_result_double("final_loss", ddp.epoch_loss[epochs - 1], 1e-6);
        pr_result_double("checksum", checksum, 1e-6);
        pr_result_int("matches_serial", matches);
        printf("  per step, %ld doubles (%ld bytes), the slowest rank's mean:\n", L.count,
               L.count * (long)sizeof(double));
        printf("    MPI_Allreduce        %10.1f us\n", 1e6 * most[1] / ddp.steps);
        printf("    your ring allreduce  %10.1f us   (%.2fx the time of MPI_Allreduce)\n",
               1e6 * most[0] / ddp.steps, most[1] > 0 ? most[0] / most[1] : 0.0);
        if (size > 1)
            printf("    the ring: 2(p-1) = %d messages of about m/p = %ld doubles per rank"
                   " and step\n",
                   2 * (size - 1), (L.count + size - 1) / size);
    }

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
