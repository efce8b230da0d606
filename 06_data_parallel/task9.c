/*
 * Room 06, task 9: pipeline (model) parallelism -- the network split over two ranks.
 *
 * Data parallelism (tasks 2 to 8) gives every worker a whole copy of the model;
 * one that does not fit a device must be split instead.  Here the MLP of task 1
 * is cut between its layers, and each of two ranks holds one part, a *stage*:
 *
 *   stage 0 (rank 0): W1, b1 and tanh       x -> h = tanh(W1 x + b1)
 *   stage 1 (rank 1): W2, b2 and the loss   h -> yhat = W2 . h + b2 -> (yhat - y)^2
 *
 * Each minibatch is cut into micro-batches, in GPipe's schedule: all the forwards
 * (stage 0 passes a micro-batch's activations on and goes on with the next one),
 * then all the backwards, the last micro-batch first (stage 1 passes dL/dh back;
 * stage 0 finishes the chain rule with it).  Each stage adds up its parameters'
 * gradient over the micro-batches and updates them: parameters never travel.
 *
 *   TODO 1: the forward link: a micro-batch's activations from stage 0 to stage 1.
 *   TODO 2: the backward link: the loss gradient with respect to them, back.
 *   TODO 3: the micro-batches' gradients added up into the minibatch's.
 *
 * Checked: the training against the serial run of task 1 (rank 0 runs it too) to
 * 1e-9: every epoch's loss, the final loss, a checksum and every parameter.  Not
 * to the last bit: the gradient is the same sum, added in another order.  It
 * prints the time per epoch and each stage's busy share.  It needs 2 ranks.
 *
 * Read first: README.md, "Forward and backward by hand", "Cutting the MLP into two stages", "Micro-batches",
 * "The GPipe schedule and its bubble", "Messages between the stages", "Task 9: a two-stage pipeline".
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task9 task9.c -lm
 *   mpiexec -n 2 ./task9 micro=4
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task9
 */
#define PR_MPI
#include "pr.h"
#include "mlp_mpi.h"
#include "mlp_train.h"
#include "mlp_pipeline.h" /* the stages: stage_t, make_stage(), ... */

#define TAG_ACTIVATIONS 1 /* stage 0 -> stage 1 (forward): h */
#define TAG_GRADIENTS 2   /* stage 1 -> stage 0 (backward): dL/dh */
#define TAG_RESULTS 3     /* stage 1 -> rank 0 after training: its parameters, losses, time */

/* The forward link: `rows` samples' activations, h[0 .. rows*H - 1], go from
 * stage 0 (which computed them) to stage 1 (which needs them).  Called by both
 * stages, once per micro-batch, in the same order. */
static void pass_activations(const stage_t *s, double *h, long rows)
{
    // TODO 1: The forward link.  Stage 0 has just computed these rows of
    //         activations, and stage 1 needs exactly these numbers, in the same
    //         place of its own array, before it can compute the outputs: one
    //         point-to-point message per micro-batch, from stage to stage.
    //         Must hold: stage 1 computes with stage 0's values, for any size
    //         of micro-batch (an empty one too), and neither stage waits forever.
    (void)s, (void)h, (void)rows; /* TODO 1: stage 0's activations to stage 1 */
}

/* The backward link: `rows` samples' dL/dh, dh[0 .. rows*H - 1], go from stage 1
 * (which computed them from the loss) to stage 0 (which needs them to finish the
 * chain rule).  Called by both stages, once per micro-batch, in the same order. */
static void pass_gradients(const stage_t *s, double *dh, long rows)
{
    // TODO 2: The backward link, the forward one's mirror: the gradient with
    //         respect to a micro-batch's activations, computed by the stage that
    //         holds the loss, must reach the stage that made the activations.
    //         Must hold: stage 0 gets stage 1's numbers for the same samples, and
    //         no message of one link can be taken for a message of the other.
    (void)s, (void)dh, (void)rows; /* TODO 2: stage 1's dL/dh back to stage 0 */
}

/* Adds the micro-batch just finished (`rows` samples; its gradient in micro_grad)
 * into the stage's gradient of the whole minibatch of `batch` samples. */
static void accumulate(stage_t *s, long rows, long batch)
{
    // TODO 3: micro_grad is the gradient of the micro-batch's OWN mean loss (a
    //         mean over its rows, as a loss function run on the micro-batch alone
    //         gives it).  The update needs the gradient of the minibatch's mean
    //         loss: add this micro-batch's share into the stage's gradient so that,
    //         after the last micro-batch, it is exactly that.  The micro-batches
    //         differ in size, and some may be empty.
    (void)s, (void)rows, (void)batch; /* TODO 3: this micro-batch's share */
}

/* The forward pass of the micro-batch idx[lo .. hi-1] on this stage, as
 * mlp_forward() computes it, the same operations in the same order.  Returns
 * the sum of its squared errors on stage 1 (0 on stage 0). */
static double forward_micro(stage_t *s, const dataset_t *data, const long *idx, long lo, long hi)
{
    const int H = s->L->hidden;
    double sse = 0.0, start = pr_now();
    if (s->stage == 0) {
        for (long b = lo; b < hi; b++) {
            const double *x = data->x + idx[b] * D;
            for (int j = 0; j < H; j++) {
                double z = s->p[s->L->b1 + j]; /* stage 0 starts at the flat array's 0 */
                for (int k = 0; k < D; k++)
                    z += s->p[j * D + k] * x[k];
                s->h[b * H + j] = tanh(z);
            }
        }
        s->busy += pr_now() - start;
        pass_activations(s, s->h + lo * H, hi - lo);
    } else {
        pass_activations(s, s->h + lo * H, hi - lo);
        start = pr_now();
        const double *w2 = s->p, b2 = s->p[H]; /* stage 1 holds [ W2 (H) | b2 ] */
        for (long b = lo; b < hi; b++) {
            double out = b2;
            for (int j = 0; j < H; j++)
                out += w2[j] * s->h[b * H + j];
            s->err[b] = out - data->y[idx[b]];
            sse += s->err[b] * s->err[b];
        }
        s->busy += pr_now() - start;
    }
    return sse;
}

/* The backward pass of the micro-batch idx[lo .. hi-1] on this stage: the
 * gradient of the micro-batch's own mean loss, (1/rows) sum (yhat - y)^2, with
 * respect to this stage's parameters, into micro_grad (the README's chain rule,
 * cut where the stages meet: dL/dh_j = dout W2[j] crosses from stage 1 to 0). */
static void backward_micro(stage_t *s, const dataset_t *data, const long *idx, long lo, long hi)
{
    const int H = s->L->hidden;
    long rows = hi - lo;
    double start = pr_now();
    memset(s->micro_grad, 0, (size_t)s->count * sizeof(double));
    if (s->stage == 1) {
        const double *w2 = s->p;
        for (long b = lo; b < hi; b++) {
            double dout = 2.0 * s->err[b] / (double)rows; /* dL/dyhat */
            s->micro_grad[H] += dout;                     /* b2 */
            for (int j = 0; j < H; j++) {
                s->micro_grad[j] += dout * s->h[b * H + j]; /* W2[j] */
                s->dh[b * H + j] = dout * w2[j];            /* dL/dh_j, for stage 0 */
            }
        }
        s->busy += pr_now() - start;
        pass_gradients(s, s->dh + lo * H, rows);
    } else {
        pass_gradients(s, s->dh + lo * H, rows);
        start = pr_now();
        for (long b = lo; b < hi; b++) {
            const double *x = data->x + idx[b] * D;
            for (int j = 0; j < H; j++) {
                double hj = s->h[b * H + j];
                double dz = s->dh[b * H + j] * (1.0 - hj * hj); /* back through tanh */
                s->micro_grad[s->L->b1 + j] += dz;
                for (int k = 0; k < D; k++)
                    s->micro_grad[j * D + k] += dz * x[k];
            }
        }
        s->busy += pr_now() - start;
    }
}

/* One training step on the minibatch idx[0 .. batch-1] in `micro` micro-batches
 * (sizes differing by one at most: mlp_common.h's split()), GPipe's schedule.  Returns
 * the minibatch's loss on stage 1 (0 on stage 0, which never sees the targets). */
static double pipeline_step(stage_t *s, const dataset_t *data, const long *idx, long batch, int micro)
{
    long lo, hi;
    double sse = 0.0;
    memset(s->grad, 0, (size_t)s->count * sizeof(double));
    for (int m = 0; m < micro; m++) { /* all the forwards, in order */
        split(batch, micro, m, &lo, &hi);
        sse += forward_micro(s, data, idx, lo, hi);
    }
    for (int m = micro - 1; m >= 0; m--) { /* then all the backwards, the last one first */
        split(batch, micro, m, &lo, &hi);
        backward_micro(s, data, idx, lo, hi);
        accumulate(s, hi - lo, batch);
    }
    for (long i = 0; i < s->count; i++) /* each stage updates its own parameters */
        s->p[i] -= s->L->lr * s->grad[i];
    return sse / (double)batch;
}

/* ---- no need to change below ---- */

typedef struct {
    const dataset_t *data;
    const layout_t *L;
    long batch;
    int epochs, micro;
    uint64_t seed;
    double *params;     /* the trained model, whole (on rank 0) */
    double *epoch_loss; /* the mean minibatch loss of each epoch, weighted by size (rank 0) */
    double busy[STAGES];
} run_t;

/* The serial baseline (mlp_train.h), on rank 0 alone. */
static void train_serially(void *ctx)
{
    run_t *r = ctx;
    train_serial(r->data, r->L, r->batch, r->epochs, r->seed, r->params, r->epoch_loss);
}

/* Trains with the pipeline on both ranks; then stage 1 sends its parameters,
 * its losses (only it computes them) and its busy time to rank 0, which puts the
 * whole model together. */
static void train_pipeline(run_t *r)
{
    const layout_t *L = r->L;
    int rank = pr_rank();
    long n = r->data->n;
    long *perm = xcalloc((size_t)n, sizeof *perm);
    stage_t s = make_stage(rank, L, r->batch, r->seed);
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        double loss_sum = 0.0;
        for (long start = 0; start < n; start += r->batch) {
            long batch = n - start < r->batch ? n - start : r->batch;
            loss_sum += pipeline_step(&s, r->data, perm + start, batch, r->micro) * (double)batch;
        }
        r->epoch_loss[epoch] = loss_sum / (double)n;
    }
    collect_on_rank0(&s, r->epochs, TAG_RESULTS, r->params, r->epoch_loss, r->busy);
    free(perm), free_stage(&s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 1000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 29, 1, n < 100000 ? n : 100000);
    int micro = (int)pr_arg_long(argc, argv, "micro", 4, 1, batch);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 20, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 12, 1, 10000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != STAGES) {
        if (rank == 0)
            fprintf(stderr, "task9: needs exactly %d ranks, one per stage (mpiexec -n %d); got %d\n", STAGES, STAGES,
                    size);
        pr_exit(2);
    }
    layout_t L = make_layout(hidden);
    if (rank == 0) {
        printf("task9: a %d-stage pipeline, n=%ld, minibatch %ld in %d micro-batch%s, %d epochs,"
               " %d hidden units (%ld parameters), seed %llu\n",
               STAGES, n, batch, micro, micro == 1 ? "" : "es", epochs, hidden, L.count, (unsigned long long)seed);
        printf("  stage 0 (rank 0): W1, b1, tanh: %ld parameters; stage 1 (rank 1): W2, b2, loss: %ld\n"
               "  activations kept per step: %ld x %d numbers on each stage (every micro-batch's)\n",
               L.w2, L.count - L.w2, batch, hidden);
    }
    dataset_t data = make_dataset(n, seed);

    /* The serial baseline, on rank 0 alone, timed while rank 1 sleeps. */
    run_t serial = { &data,
                     &L,
                     batch,
                     epochs,
                     micro,
                     seed,
                     xcalloc((size_t)L.count, sizeof(double)),
                     xcalloc((size_t)epochs, sizeof(double)),
                     { 0, 0 } };
    double t_serial = time_on_rank0(train_serially, &serial);

    run_t pipe = serial;
    pipe.params = xcalloc((size_t)L.count, sizeof(double));
    pipe.epoch_loss = xcalloc((size_t)epochs, sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    train_pipeline(&pipe);
    double mine = MPI_Wtime() - start, t_pipe;
    MPI_Allreduce(&mine, &t_pipe, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    print_loss_curves("serial loss", serial.epoch_loss, "pipeline loss", pipe.epoch_loss, epochs);
    if (rank == 0) {
        double checksum = checksum_of(pipe.params, L.count);
        int matches = check_same_training("pipeline", "serial", pipe.params, pipe.epoch_loss, serial.params,
                                          serial.epoch_loss, L.count, epochs);
        pr_result_double("final_loss", pipe.epoch_loss[epochs - 1], 1e-6);
        pr_result_double("checksum", checksum, 1e-6);
        pr_result_int("matches_serial", matches);

        pr_print_time("serial, per epoch", t_serial / epochs, 0, NULL);
        pr_print_time("pipeline, 2 stages, per epoch", t_pipe / epochs, t_serial / epochs, "serial");
        for (int st = 0; st < STAGES; st++)
            printf("  stage %d computed for %5.1f%% of the pipeline's time (the rest: messages and"
                   " waiting)\n",
                   st, 100.0 * pipe.busy[st] / t_pipe);
        printf("  GPipe's bubble in theory, (S-1)/(M+S-1) with S = %d stages, M = %d: %.1f%% of a step"
               " (for equal stages and free messages)\n",
               STAGES, micro, 100.0 * (STAGES - 1) / (micro + STAGES - 1));
    }

    free(serial.params), free(serial.epoch_loss), free(pipe.params), free(pipe.epoch_loss);
    free(data.x), free(data.y);
    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
