/*
 * Room 06, task 2: data parallel (DP) with threads -- one coordinator, T replicas.
 *
 * The MLP of task 1 (mlp_train.h), trained on the same minibatches, but each one is
 * split over T replicas (threads standing in for T GPUs, each with its own
 * copy of everything it uses), the way PyTorch's DataParallel does it.  The
 * coordinator (the main thread: "GPU 0") holds the one true model and, for
 * every minibatch, runs these steps:
 *
 *   step 1  scatter the minibatch: each replica gets its piece of the samples
 *   step 2  replicate the model: copy the parameters to every replica
 *   step 3  parallel forward: each replica computes yhat for its piece
 *   step 4  gather the outputs on the coordinator
 *   step 5  the loss, and its gradient dL/dyhat, on the coordinator
 *   step 6  scatter the loss gradients: each replica gets those of its piece
 *   step 7  parallel backward: each replica computes its piece's gradient
 *   step 8  reduce the gradients onto the coordinator (sum them)
 *   then    the SGD update, on the coordinator alone
 *
 *   TODO 1: step 2, replicate the model.
 *   TODO 2: step 5, the loss and the loss gradient of every sample.
 *   TODO 3: step 8, reduce the replicas' gradients.
 *
 * Checked: every epoch's loss and the final parameters equal the serial
 * baseline's (task 1's loop, trained here too) to 1e-9 (the replicas add up in
 * pieces: another order of additions).  Minibatches split unevenly, and a last
 * one smaller than T leaves some replicas with nothing to do.
 *
 * Read first: README.md, "Forward and backward by hand", "Data parallelism: split the minibatch,
 * add the gradients", "DP: one coordinator and its replicas".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task2 task2.c -lm -pthread
 *   ./task2 threads=3
 * Grade it from the top folder:  make grade TASK=06_data_parallel/task2
 */
#include "pr.h"
#include "mlp_train.h"
#include <pthread.h>

#define MAX_REPLICAS 64

/* A replica: a thread with its own memory, as a GPU would have.  Everything
 * it reads or writes is its own; the coordinator copies data in and out. */
typedef struct {
    const layout_t *L;
    double *params; /* step 2: its copy of the model */
    double *x;      /* step 1: its piece of the minibatch, count x D inputs */
    long first;     /* where its piece starts in the minibatch */
    long count;     /* how many samples its piece holds (maybe 0) */
    double *h;      /* count x H activations, kept by forward for backward */
    double *out;    /* step 3: count outputs yhat */
    double *dout;   /* step 6: count loss gradients dL/dyhat */
    double *grad;   /* step 7: its piece's gradient, L->count numbers */
} replica_t;

/* The coordinator: the model itself and the whole minibatch's arrays. */
typedef struct {
    const layout_t *L;
    int replicas;
    replica_t rep[MAX_REPLICAS];
    double *params;    /* the model: the one true copy */
    double *outputs;   /* step 4: every sample's yhat, in minibatch order */
    double *dout;      /* step 5: every sample's dL/dyhat */
    double *grad;      /* step 8: the minibatch's gradient */
    long bytes_copied; /* coordinator <-> replica traffic, for the report */
} coordinator_t;

/* Step 3 on one replica: forward over its piece, keeping the activations. */
static void *forward_phase(void *arg)
{
    replica_t *rep = arg;
    for (long b = 0; b < rep->count; b++)
        rep->out[b] = mlp_forward(rep->params, rep->L, rep->x + b * D, rep->h + b * rep->L->hidden);
    return NULL;
}

/* Step 7 on one replica: backward over its piece, from the loss gradients
 * the coordinator sent; its gradient is the sum over its samples. */
static void *backward_phase(void *arg)
{
    replica_t *rep = arg;
    memset(rep->grad, 0, (size_t)rep->L->count * sizeof(double));
    for (long b = 0; b < rep->count; b++)
        mlp_backward(rep->params, rep->L, rep->x + b * D, rep->h + b * rep->L->hidden, rep->dout[b],
                     rep->grad);
    return NULL;
}

/* Runs `phase` on every replica at once, one thread each, and waits for all:
 * fork-join, as PyTorch's DataParallel does for every forward call. */
static void run_replicas(coordinator_t *dp, void *(*phase)(void *))
{
    pthread_t tid[MAX_REPLICAS];
    for (int r = 0; r < dp->replicas; r++)
        if (pthread_create(&tid[r], NULL, phase, &dp->rep[r]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(1);
        }
    for (int r = 0; r < dp->replicas; r++)
        pthread_join(tid[r], NULL);
}

/* One DP step on the minibatch idx[0..batch-1]; returns its loss. */
static double dp_step(coordinator_t *dp, const double *data_x, const double *data_y,
                      const long *idx, long batch)
{
    const layout_t *L = dp->L;
    size_t model_bytes = (size_t)L->count * sizeof(double);

    /* step 1: scatter the minibatch (the inputs only: the targets stay here) */
    for (int r = 0; r < dp->replicas; r++) {
        replica_t *rep = &dp->rep[r];
        long end;
        split(batch, dp->replicas, r, &rep->first, &end);
        rep->count = end - rep->first;
        for (long b = 0; b < rep->count; b++)
            memcpy(rep->x + b * D, data_x + idx[rep->first + b] * D, D * sizeof(double));
        dp->bytes_copied += rep->count * D * (long)sizeof(double);
    }

    /* step 2: replicate the model */
    //@ TODO 1: After this step every replica holds, in its own memory, the
    //@         coordinator's current model: the last update changed it, and a
    //@         replica never reads the coordinator's copy.  Add what it moved to
    //@         the coordinator's tally of copied bytes.
    //@ placeholder: (void)model_bytes; /* TODO 1: replicate the model */
    //@ solution {
    for (int r = 0; r < dp->replicas; r++)
        memcpy(dp->rep[r].params, dp->params, model_bytes);
    dp->bytes_copied += dp->replicas * (long)model_bytes;
    //@ }

    /* step 3: parallel forward */
    run_replicas(dp, forward_phase);

    /* step 4: gather the outputs on the coordinator */
    for (int r = 0; r < dp->replicas; r++) {
        replica_t *rep = &dp->rep[r];
        memcpy(dp->outputs + rep->first, rep->out, (size_t)rep->count * sizeof(double));
        dp->bytes_copied += rep->count * (long)sizeof(double);
    }

    /* step 5: the loss and its gradient, on the coordinator */
    //@ TODO 2: On the coordinator alone, from the gathered outputs and the
    //@         targets: the minibatch's mean squared error (this function returns
    //@         it), and for every sample the derivative of that mean with respect
    //@         to the sample's output, stored where step 6 scatters from.  A mean
    //@         over the WHOLE minibatch, whichever replica the sample went to.
    //@ placeholder: double loss = 0.0; /* TODO 2: the loss, and its gradient per sample */
    //@ placeholder: (void)data_y, (void)idx;
    //@ solution {
    double loss = 0.0;
    for (long b = 0; b < batch; b++) {
        double err = dp->outputs[b] - data_y[idx[b]];
        loss += err * err;
        dp->dout[b] = 2.0 * err / (double)batch;
    }
    loss /= (double)batch;
    //@ }

    /* step 6: scatter the loss gradients */
    for (int r = 0; r < dp->replicas; r++) {
        replica_t *rep = &dp->rep[r];
        memcpy(rep->dout, dp->dout + rep->first, (size_t)rep->count * sizeof(double));
        dp->bytes_copied += rep->count * (long)sizeof(double);
    }

    /* step 7: parallel backward */
    run_replicas(dp, backward_phase);

    /* step 8: reduce the gradients onto the coordinator */
    //@ TODO 3: The coordinator's gradient becomes the element-wise total of
    //@         the replicas' gradients.  It must come out bit for bit the same
    //@         whichever thread finished first, so add them in a fixed order.
    //@         Count these bytes too.
    //@ placeholder: memset(dp->grad, 0, model_bytes); /* TODO 3: reduce the gradients */
    //@ solution {
    memset(dp->grad, 0, model_bytes);
    for (int r = 0; r < dp->replicas; r++)
        for (long i = 0; i < L->count; i++)
            dp->grad[i] += dp->rep[r].grad[i];
    dp->bytes_copied += dp->replicas * (long)model_bytes;
    //@ }

    /* the update, on the coordinator alone: the replicas get the new model in step 2 */
    for (long i = 0; i < L->count; i++)
        dp->params[i] -= L->lr * dp->grad[i];
    return loss;
}

/* ---- no need to change below ---- */

typedef struct {
    const dataset_t *data;
    const layout_t *L;
    long batch;
    int epochs, threads; /* threads 0: the serial baseline (mlp_train.h) */
    uint64_t seed;
    double *params;      /* the trained model */
    double *epoch_loss;  /* the mean minibatch loss of each epoch, weighted by size */
    long bytes_per_step; /* DP only: coordinator traffic in the first step */
} run_t;

static void init_coordinator(coordinator_t *dp, const layout_t *L, int replicas, long batch)
{
    *dp = (coordinator_t){ .L = L, .replicas = replicas,
                           .params = xcalloc((size_t)L->count, sizeof(double)),
                           .grad = xcalloc((size_t)L->count, sizeof(double)),
                           .outputs = xcalloc((size_t)batch, sizeof(double)),
                           .dout = xcalloc((size_t)batch, sizeof(double)) };
    long most = (batch + replicas - 1) / replicas; /* the largest piece a minibatch gives one */
    for (int r = 0; r < replicas; r++)
        dp->rep[r] = (replica_t){ .L = L, .params = xcalloc((size_t)L->count, sizeof(double)),
                                  .grad = xcalloc((size_t)L->count, sizeof(double)),
                                  .x = xcalloc((size_t)most * D, sizeof(double)),
                                  .h = xcalloc((size_t)most * (size_t)L->hidden, sizeof(double)),
                                  .out = xcalloc((size_t)most, sizeof(double)),
                                  .dout = xcalloc((size_t)most, sizeof(double)) };
}

/* Trains for r->epochs epochs, serially or with DP, on the same minibatches. */
static void train(void *ctx)
{
    run_t *r = ctx;
    if (r->threads == 0) {
        train_serial(r->data, r->L, r->batch, r->epochs, r->seed, r->params, r->epoch_loss);
        return;
    }
    long n = r->data->n;
    long *perm = xcalloc((size_t)n, sizeof *perm);
    coordinator_t dp;
    init_coordinator(&dp, r->L, r->threads, r->batch);
    mlp_init(dp.params, r->L, r->seed);
    for (int epoch = 0; epoch < r->epochs; epoch++) {
        shuffle(perm, n, r->seed, epoch);
        double loss_sum = 0.0;
        for (long start = 0; start < n; start += r->batch) {
            long batch = n - start < r->batch ? n - start : r->batch;
            loss_sum += dp_step(&dp, r->data->x, r->data->y, perm + start, batch) * (double)batch;
            if (start == 0 && epoch == 0) /* the tally starts at 0 */
                r->bytes_per_step = dp.bytes_copied;
        }
        r->epoch_loss[epoch] = loss_sum / (double)n;
    }
    memcpy(r->params, dp.params, (size_t)r->L->count * sizeof(double));
    for (int k = 0; k < dp.replicas; k++) {
        replica_t *rep = &dp.rep[k];
        free(rep->params), free(rep->grad), free(rep->x), free(rep->h), free(rep->out);
        free(rep->dout);
    }
    free(dp.params), free(dp.grad), free(dp.outputs), free(dp.dout), free(perm);
}

int main(int argc, char **argv)
{
    int threads = (int)pr_arg_long(argc, argv, "threads", 4, 1, MAX_REPLICAS);
    long n = (long)pr_arg_long(argc, argv, "n", 1001, 10, 1000000);
    long batch = (long)pr_arg_long(argc, argv, "batch", 29, 1, n);
    int epochs = (int)pr_arg_long(argc, argv, "epochs", 20, 1, 100000);
    int hidden = (int)pr_arg_long(argc, argv, "hidden", 12, 1, 1000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    layout_t L = make_layout(hidden);
    printf("task2: DP with %d replica thread%s, n=%ld, minibatch %ld, %d epochs, %d hidden units"
           " (%ld parameters), seed %llu\n", threads, threads == 1 ? "" : "s", n, batch, epochs,
           hidden, L.count, (unsigned long long)seed);
    dataset_t data = make_dataset(n, seed);

    run_t serial = { &data, &L, batch, epochs, 0, seed, xcalloc((size_t)L.count, sizeof(double)),
                     xcalloc((size_t)epochs, sizeof(double)), 0 };
    run_t dp = { &data, &L, batch, epochs, threads, seed, xcalloc((size_t)L.count, sizeof(double)),
                 xcalloc((size_t)epochs, sizeof(double)), 0 };
    train(&serial);
    train(&dp);

    print_loss_curves("serial loss", serial.epoch_loss, "DP loss", dp.epoch_loss, epochs);
    int matches = check_same_training("DP", "serial", dp.params, dp.epoch_loss, serial.params,
                                      serial.epoch_loss, L.count, epochs);
    pr_result_double("final_loss", dp.epoch_loss[epochs - 1], 1e-6);
    pr_result_double("checksum", checksum_of(dp.params, L.count), 1e-6);
    pr_result_int("matches_serial", matches);

    printf("  the coordinator copied %ld bytes in the first step (the model is %ld bytes)\n",
           dp.bytes_per_step, L.count * (long)sizeof(double));
    double t_serial = pr_best_of(2, train, &serial);
    double t_dp = pr_best_of(2, train, &dp);
    pr_print_time("serial", t_serial, 0, NULL);
    char what[64];
    snprintf(what, sizeof what, "DP, %d thread%s", threads, threads == 1 ? "" : "s");
    pr_print_time(what, t_dp, t_serial, "serial");

    free(serial.params), free(serial.epoch_loss), free(dp.params), free(dp.epoch_loss);
    free(data.x), free(data.y);
    return pr_finish();
}
