/*
 * mlp_pipeline.h -- task 9's pipeline stages: the MLP of mlp_model.h cut in
 * two, one stage per rank (STAGES, stage_t, make_stage(), free_stage(),
 * collect_on_rank0()).  For MPI: #define PR_MPI before pr.h.
 *
 * No need to change anything here.  README.md, "Pipeline parallelism:
 * splitting the model" explains the stages.
 */
#ifndef PARALLEL_ROOMS_MLP_PIPELINE_H
#define PARALLEL_ROOMS_MLP_PIPELINE_H

#include "mlp_model.h"

#ifndef PR_MPI
#error "mlp_pipeline.h is for MPI tasks: #define PR_MPI before #include \"pr.h\""
#endif

#define STAGES 2 /* one rank per stage */

/* One rank's pipeline stage: its part of the MLP's flat parameter array,
 *     [ W1 (H x D) | b1 (H) | W2 (H) | b2 ],
 * stage 0 the first two blocks (it computes h = tanh(W1 x + b1)), stage 1 the
 * last two (yhat = W2 . h + b2, and the loss), and what it keeps for one
 * minibatch.  Row b of h and of dh belongs to sample b of the minibatch. */
typedef struct {
    int stage;          /* 0 or 1: the same as the rank */
    const layout_t *L;  /* the whole MLP's layout: H, and where each block starts */
    long first, count;  /* this stage's parameters: the flat array's first .. first+count-1 */
    double *p;          /* count of them: p[i] is the flat array's number first + i */
    double *grad;       /* count: their gradient, accumulated over a minibatch's micro-batches */
    double *micro_grad; /* count: one micro-batch's gradient (of its own mean loss) */
    double *h;          /* batch x H: the hidden activations (stage 0 computes, stage 1 gets them) */
    double *dh;         /* batch x H: dL/dh, the gradient with respect to them (the other way) */
    double *err;        /* batch: yhat - y (stage 1) */
    double busy;        /* seconds spent computing (not sending, nor waiting for a message) */
} stage_t;

/* This rank's stage, for minibatches of up to `batch` samples, holding its part
 * of the initial model (the serial run's, from the same seed).  A real pipeline
 * would initialise only its own layers: this MLP is small enough to make whole. */
static inline stage_t make_stage(int rank, const layout_t *L, long batch, uint64_t seed)
{
    stage_t s = { .stage = rank, .L = L };
    s.first = rank == 0 ? 0 : L->w2;
    s.count = rank == 0 ? L->w2 : L->count - L->w2;
    s.p = xcalloc((size_t)s.count, sizeof(double));
    s.grad = xcalloc((size_t)s.count, sizeof(double));
    s.micro_grad = xcalloc((size_t)s.count, sizeof(double));
    s.h = xcalloc((size_t)batch * (size_t)L->hidden, sizeof(double));
    s.dh = xcalloc((size_t)batch * (size_t)L->hidden, sizeof(double));
    s.err = xcalloc((size_t)batch, sizeof(double));
    double *whole = xcalloc((size_t)L->count, sizeof(double));
    mlp_init(whole, L, seed);
    memcpy(s.p, whole + s.first, (size_t)s.count * sizeof(double));
    free(whole);
    return s;
}

static inline void free_stage(stage_t *s)
{
    free(s->p), free(s->grad), free(s->micro_grad), free(s->h), free(s->dh), free(s->err);
}

/* After training, on both ranks: stage 1 sends rank 0 its parameters, its
 * epochs' losses (only the last stage sees the targets) and its busy time, in
 * one message of tag `tag`; rank 0 puts the whole model together in params
 * (L->count numbers), the losses in epoch_loss and both stages' times in busy. */
static inline void collect_on_rank0(const stage_t *s, int epochs, int tag, double *params, double *epoch_loss,
                                    double busy[STAGES])
{
    long theirs = s->stage == 0 ? s->L->count - s->count : s->count;
    long length = theirs + epochs + 1; /* [ stage 1's parameters | losses | busy ] */
    double *msg = xcalloc((size_t)length, sizeof(double));
    if (s->stage == 1) {
        memcpy(msg, s->p, (size_t)s->count * sizeof(double));
        memcpy(msg + s->count, epoch_loss, (size_t)epochs * sizeof(double));
        msg[length - 1] = s->busy;
        PR_SCAFFOLD(MPI_Send(msg, (int)length, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD));
    } else {
        PR_SCAFFOLD(MPI_Recv(msg, (int)length, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        memcpy(params, s->p, (size_t)s->count * sizeof(double));
        memcpy(params + s->count, msg, (size_t)theirs * sizeof(double));
        memcpy(epoch_loss, msg + theirs, (size_t)epochs * sizeof(double));
        busy[0] = s->busy;
        busy[1] = msg[length - 1];
    }
    free(msg);
}

#endif /* PARALLEL_ROOMS_MLP_PIPELINE_H */
