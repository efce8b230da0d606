/*
 * pr_mpi_gpu.h -- GPU buffers handed to MPI, where the MPI library cannot take them.
 * Included by pr.h in CUDA programs that use MPI (#define PR_MPI, built with nvcc or
 * grading/sim/simcc); nothing to include or link by hand.  No need to change it.
 *
 * A CUDA-aware MPI takes device pointers: MPI_Send(dev, ...) reads GPU memory itself.
 * An MPI that is not CUDA-aware reads the address as host memory and the rank dies.
 * This header holds the staging layer: MPI functions defined here under their own names
 * (the MPI profiling interface: a program's MPI_Send replaces the library's, and reaches
 * the library as PMPI_Send), which look at every buffer with cudaPointerGetAttributes
 * and, for device memory, copy it through pinned host memory around the library's call:
 *
 *   send side:    device --cudaMemcpy--> pinned host buffer --PMPI_Send-->
 *   receive side: --PMPI_Recv--> pinned host buffer --cudaMemcpy--> device
 *
 * Non-blocking calls (MPI_Isend, MPI_Irecv, MPI_Ibcast, MPI_Iallreduce) stage what they
 * send at the call and copy what they received at their completion: MPI_Wait, MPI_Waitall,
 * MPI_Waitany, MPI_Test or MPI_Testall.  (Other ways to complete one leave a received
 * buffer on the host; MPI_Finalize says so.)  Host and managed memory pass straight through.
 *
 * When it works (PR_MPI_STAGE in the environment):
 *   on a GPU:  PR_MPI_STAGE=1 turns it on, where the MPI library is not CUDA-aware (make
 *              grade does so for room 05's tasks); a CUDA-aware MPI is never staged.
 *   simulated: on unless PR_MPI_STAGE=0: the CUDA CPU simulator stands in for a CUDA-aware
 *              MPI this way (its device memory is readable only inside kernels and copies).
 * Off, every call goes straight to the library.  pr_mpi_gpu_path() (pr.h) says which it was:
 * a CUDA-aware MPI, this staging layer, the simulator's, or none.  The staging layer makes
 * CUDA-aware code run correctly; it is not fast (every call waits for its copies), and its
 * times are not those of a CUDA-aware MPI.
 */
#ifndef PARALLEL_ROOMS_PR_MPI_GPU_H
#define PARALLEL_ROOMS_PR_MPI_GPU_H

#if !defined(PARALLEL_ROOMS_PR_H) || !defined(PR_MPI) || !(defined(__CUDACC__) || defined(CUDA_SIM))
#error "pr_mpi_gpu.h is included by pr.h, in CUDA programs with #define PR_MPI"
#endif

#include <stddef.h>

/* 1 while the staging layer works on this process's MPI calls (decided once). */
static int pr_stage_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("PR_MPI_STAGE");
#ifdef CUDA_SIM
        on = !(v && strcmp(v, "0") == 0);
#else
        const char *why;
        on = v && strcmp(v, "1") == 0 && !pr_mpi_library_cuda_aware(&why);
#endif
    }
    return on;
}

/* ---- pinned host buffers, kept for reuse ---- */
#define PR_STAGE_POOL 16
typedef struct {
    char *ptr;
    size_t cap;
    int used;
} pr_stage_pinned;
static pr_stage_pinned pr_stage_pool[PR_STAGE_POOL];

static char *pr_stage_get(size_t bytes)
{
    int best = -1, spare = -1;
    for (int i = 0; i < PR_STAGE_POOL; i++) {
        pr_stage_pinned *p = &pr_stage_pool[i];
        if (!p->used && p->ptr && p->cap >= bytes && (best < 0 || p->cap < pr_stage_pool[best].cap))
            best = i;
        if (!p->used && (spare < 0 || !p->ptr || (pr_stage_pool[spare].ptr && p->cap < pr_stage_pool[spare].cap)))
            spare = i;
    }
    if (best < 0) {
        if (spare < 0) {
            fprintf(stderr, "pr.h staging layer: more than %d MPI calls on device buffers at once\n", PR_STAGE_POOL);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        pr_stage_pinned *p = &pr_stage_pool[spare];
        if (p->ptr)
            CHECK(cudaFreeHost(p->ptr));
        size_t cap = 4096;
        while (cap < bytes)
            cap *= 2;
        CHECK(cudaMallocHost((void **)&p->ptr, cap));
        p->cap = cap;
        best = spare;
    }
    pr_stage_pool[best].used = 1;
    return pr_stage_pool[best].ptr;
}

static void pr_stage_put(char *ptr)
{
    for (int i = 0; i < PR_STAGE_POOL; i++)
        if (pr_stage_pool[i].ptr == ptr)
            pr_stage_pool[i].used = 0;
}

/* ---- one staged buffer ---- */
typedef struct {
    char *host;      /* the pinned copy (NULL: not staged) */
    char *dev;       /* the device buffer, at the datatype's true lower bound */
    MPI_Datatype type;
    ptrdiff_t lb;    /* the datatype's true lower bound */
} pr_staged;

/* Does p point into device memory (not host, not managed)? */
static int pr_stage_is_device(const void *p)
{
    if (!p || p == MPI_IN_PLACE || p == MPI_BOTTOM || !pr_stage_on())
        return 0;
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* an unknown host pointer, on old runtimes */
        return 0;
    }
    return a.type == cudaMemoryTypeDevice;
}

/* Bytes from the first to the last byte of count elements of t. */
static size_t pr_stage_span(long count, MPI_Datatype t, ptrdiff_t *true_lb)
{
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &tlb, &textent);
    *true_lb = (ptrdiff_t)tlb;
    return count > 0 ? (size_t)((count - 1) * extent + textent) : 0;
}

/* Stages count elements of t at buf when buf is device memory: returns the buffer to hand
 * the library (buf itself when not staged).  fill: copy the device contents down first
 * (what is sent, or a receive buffer with gaps or an in-place input). */
static void *pr_stage_in(const void *buf, long count, MPI_Datatype t, int fill, pr_staged *s)
{
    s->host = NULL;
    if (!pr_stage_is_device(buf))
        return (void *)buf;
    ptrdiff_t lb;
    size_t span = pr_stage_span(count, t, &lb);
    s->dev = (char *)buf + lb;
    s->type = t;
    s->lb = lb;
    s->host = pr_stage_get(span);
    if (!fill) { /* a receive: copy down first anyway where the datatype has gaps */
        int size;
        MPI_Aint tlb, textent;
        MPI_Type_size(t, &size);
        MPI_Type_get_true_extent(t, &tlb, &textent);
        fill = (MPI_Aint)size != textent;
    }
    if (fill && span > 0)
        CHECK(cudaMemcpy(s->host, s->dev, span, cudaMemcpyDeviceToHost));
    return s->host - lb;
}

/* After the library's call: count elements received go up to the device (count 0: none),
 * and the pinned buffer is free again. */
static void pr_stage_out(pr_staged *s, long count)
{
    if (!s->host)
        return;
    ptrdiff_t lb;
    size_t span = pr_stage_span(count, s->type, &lb);
    if (span > 0)
        CHECK(cudaMemcpy(s->dev, s->host, span, cudaMemcpyHostToDevice));
    pr_stage_put(s->host);
    s->host = NULL;
}

/* The elements a receive got, from its status (count when the status cannot say). */
static long pr_stage_received(const MPI_Status *st, MPI_Datatype t, long count)
{
    int got = MPI_UNDEFINED;
    MPI_Get_count(st, t, &got);
    return got == MPI_UNDEFINED ? count : got;
}

/* The largest displs[i] + counts[i]: the span of a v-collective's buffer, in elements. */
static long pr_stage_vspan(const int *counts, const int *displs, MPI_Comm comm)
{
    int size;
    long top = 0;
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < size; i++)
        if (counts[i] > 0 && (long)displs[i] + counts[i] > top)
            top = (long)displs[i] + counts[i];
    return top;
}

static int pr_stage_rank(MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

static int pr_stage_size(MPI_Comm comm)
{
    int size;
    MPI_Comm_size(comm, &size);
    return size;
}

/* ---- non-blocking calls: what to copy up when a request completes ---- */
#define PR_STAGE_PENDING 64
typedef struct {
    MPI_Request req;
    pr_staged recv, send; /* recv copied up at completion; send only freed */
    long count;
    int is_recv; /* the count comes from the status */
} pr_stage_pending;
static pr_stage_pending pr_stage_waiting[PR_STAGE_PENDING];
static int pr_stage_nwaiting;

static void pr_stage_remember(MPI_Request req, const pr_staged *recv, const pr_staged *send, long count, int is_recv)
{
    if (!recv->host && !send->host)
        return;
    if (pr_stage_nwaiting == PR_STAGE_PENDING) {
        fprintf(stderr, "pr.h staging layer: more than %d non-blocking MPI calls on device buffers pending\n",
                PR_STAGE_PENDING);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pr_stage_pending *p = &pr_stage_waiting[pr_stage_nwaiting++];
    p->req = req;
    p->recv = *recv;
    p->send = *send;
    p->count = count;
    p->is_recv = is_recv;
}

/* The request (its handle before completion) has completed with status st. */
static void pr_stage_complete(MPI_Request req, const MPI_Status *st)
{
    for (int i = 0; i < pr_stage_nwaiting; i++) {
        pr_stage_pending *p = &pr_stage_waiting[i];
        if (memcmp(&p->req, &req, sizeof req) != 0)
            continue;
        long count = p->count;
        if (p->is_recv && st != MPI_STATUS_IGNORE && st != MPI_STATUSES_IGNORE)
            count = pr_stage_received(st, p->recv.type, count);
        pr_stage_out(&p->recv, count);
        if (p->send.host)
            pr_stage_put(p->send.host);
        pr_stage_waiting[i] = pr_stage_waiting[--pr_stage_nwaiting];
        return;
    }
}

/* ---- the MPI functions.  Weak: one copy wins when several files include pr.h. ---- */
#define PR_STAGE_FN extern "C" __attribute__((weak))

PR_STAGE_FN int MPI_Send(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    pr_staged s;
    void *b = pr_stage_in(buf, count, t, 1, &s);
    int rc = PMPI_Send(b, count, t, dest, tag, comm);
    pr_stage_out(&s, 0);
    return rc;
}

PR_STAGE_FN int MPI_Ssend(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    pr_staged s;
    void *b = pr_stage_in(buf, count, t, 1, &s);
    int rc = PMPI_Ssend(b, count, t, dest, tag, comm);
    pr_stage_out(&s, 0);
    return rc;
}

PR_STAGE_FN int MPI_Recv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    pr_staged s;
    MPI_Status mine;
    void *b = pr_stage_in(buf, count, t, 0, &s);
    if (!s.host)
        return PMPI_Recv(buf, count, t, src, tag, comm, st);
    int rc = PMPI_Recv(b, count, t, src, tag, comm, &mine);
    pr_stage_out(&s, pr_stage_received(&mine, t, count));
    if (st != MPI_STATUS_IGNORE)
        *st = mine;
    return rc;
}

PR_STAGE_FN int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                             int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st)
{
    pr_staged s, r;
    MPI_Status mine;
    void *sb = pr_stage_in(sbuf, scount, stype, 1, &s);
    void *rb = pr_stage_in(rbuf, rcount, rtype, 0, &r);
    int rc = PMPI_Sendrecv(sb, scount, stype, dest, stag, rb, rcount, rtype, src, rtag, comm, &mine);
    pr_stage_out(&s, 0);
    pr_stage_out(&r, pr_stage_received(&mine, rtype, rcount));
    if (st != MPI_STATUS_IGNORE)
        *st = mine;
    return rc;
}

PR_STAGE_FN int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
    pr_staged s;
    int me = pr_stage_rank(comm) == root;
    void *b = pr_stage_in(buf, count, t, me, &s);
    int rc = PMPI_Bcast(b, count, t, root, comm);
    pr_stage_out(&s, me ? 0 : count);
    return rc;
}

PR_STAGE_FN int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm)
{
    pr_staged s, r;
    int me = pr_stage_rank(comm) == root, in_place = sbuf == MPI_IN_PLACE;
    void *sb = pr_stage_in(sbuf, count, t, 1, &s);
    void *rb = me ? pr_stage_in(rbuf, count, t, in_place, &r) : rbuf;
    if (!me)
        r.host = NULL;
    int rc = PMPI_Reduce(sb, rb, count, t, op, root, comm);
    pr_stage_out(&s, 0);
    pr_stage_out(&r, count);
    return rc;
}

PR_STAGE_FN int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    pr_staged s, r;
    void *sb = pr_stage_in(sbuf, count, t, 1, &s);
    void *rb = pr_stage_in(rbuf, count, t, sbuf == MPI_IN_PLACE, &r);
    int rc = PMPI_Allreduce(sb, rb, count, t, op, comm);
    pr_stage_out(&s, 0);
    pr_stage_out(&r, count);
    return rc;
}

PR_STAGE_FN int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                            MPI_Datatype rtype, int root, MPI_Comm comm)
{
    pr_staged s, r;
    int me = pr_stage_rank(comm) == root;
    s.host = NULL;
    void *sb = me ? pr_stage_in(sbuf, (long)scount * pr_stage_size(comm), stype, 1, &s) : (void *)sbuf;
    void *rb = pr_stage_in(rbuf, rcount, rtype, 0, &r);
    int rc = PMPI_Scatter(sb, scount, stype, rb, rcount, rtype, root, comm);
    pr_stage_out(&s, 0);
    pr_stage_out(&r, rcount);
    return rc;
}

PR_STAGE_FN int MPI_Scatterv(const void *sbuf, const int counts[], const int displs[], MPI_Datatype stype, void *rbuf,
                             int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    pr_staged s, r;
    int me = pr_stage_rank(comm) == root;
    s.host = NULL;
    void *sb = me ? pr_stage_in(sbuf, pr_stage_vspan(counts, displs, comm), stype, 1, &s) : (void *)sbuf;
    void *rb = pr_stage_in(rbuf, rcount, rtype, 0, &r);
    int rc = PMPI_Scatterv(sb, counts, displs, stype, rb, rcount, rtype, root, comm);
    pr_stage_out(&s, 0);
    pr_stage_out(&r, rcount);
    return rc;
}

PR_STAGE_FN int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, int root, MPI_Comm comm)
{
    pr_staged s, r;
    int me = pr_stage_rank(comm) == root;
    long all = (long)rcount * pr_stage_size(comm);
    r.host = NULL;
    void *sb = pr_stage_in(sbuf, scount, stype, 1, &s);
    void *rb = me ? pr_stage_in(rbuf, all, rtype, sbuf == MPI_IN_PLACE, &r) : rbuf;
    int rc = PMPI_Gather(sb, scount, stype, rb, rcount, rtype, root, comm);
    pr_stage_out(&s, 0);
    pr_stage_out(&r, all);
    return rc;
}

PR_STAGE_FN int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int counts[],
                            const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
    pr_staged s, r;
    int me = pr_stage_rank(comm) == root;
    long all = me ? pr_stage_vspan(counts, displs, comm) : 0;
    r.host = NULL;
    void *sb = pr_stage_in(sbuf, scount, stype, 1, &s);
    /* filled first: the gaps between the blocks keep what they held */
    void *rb = me ? pr_stage_in(rbuf, all, rtype, 1, &r) : rbuf;
    int rc = PMPI_Gatherv(sb, scount, stype, rb, counts, displs, rtype, root, comm);
    pr_stage_out(&s, 0);
    pr_stage_out(&r, all);
    return rc;
}

PR_STAGE_FN int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                              MPI_Datatype rtype, MPI_Comm comm)
{
    pr_staged s, r;
    long all = (long)rcount * pr_stage_size(comm);
    void *sb = pr_stage_in(sbuf, scount, stype, 1, &s);
    void *rb = pr_stage_in(rbuf, all, rtype, sbuf == MPI_IN_PLACE, &r);
    int rc = PMPI_Allgather(sb, scount, stype, rb, rcount, rtype, comm);
    pr_stage_out(&s, 0);
    pr_stage_out(&r, all);
    return rc;
}

PR_STAGE_FN int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int counts[],
                               const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    pr_staged s, r;
    long all = pr_stage_vspan(counts, displs, comm);
    void *sb = pr_stage_in(sbuf, scount, stype, 1, &s);
    void *rb = pr_stage_in(rbuf, all, rtype, 1, &r);
    int rc = PMPI_Allgatherv(sb, scount, stype, rb, counts, displs, rtype, comm);
    pr_stage_out(&s, 0);
    pr_stage_out(&r, all);
    return rc;
}

PR_STAGE_FN int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                             MPI_Datatype rtype, MPI_Comm comm)
{
    pr_staged s, r;
    int size = pr_stage_size(comm);
    void *sb = pr_stage_in(sbuf, (long)scount * size, stype, 1, &s);
    void *rb = pr_stage_in(rbuf, (long)rcount * size, rtype, sbuf == MPI_IN_PLACE, &r);
    int rc = PMPI_Alltoall(sb, scount, stype, rb, rcount, rtype, comm);
    pr_stage_out(&s, 0);
    pr_stage_out(&r, (long)rcount * size);
    return rc;
}

PR_STAGE_FN int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype t, MPI_Op op,
                                         MPI_Comm comm)
{
    pr_staged s, r;
    int in_place = sbuf == MPI_IN_PLACE;
    long all = (long)rcount * pr_stage_size(comm);
    void *sb = pr_stage_in(sbuf, all, t, 1, &s);
    void *rb = pr_stage_in(rbuf, in_place ? all : rcount, t, in_place, &r);
    int rc = PMPI_Reduce_scatter_block(sb, rb, rcount, t, op, comm);
    pr_stage_out(&s, 0);
    pr_stage_out(&r, rcount);
    return rc;
}

PR_STAGE_FN int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
                          MPI_Request *req)
{
    pr_staged s, none;
    none.host = NULL;
    void *b = pr_stage_in(buf, count, t, 1, &s);
    int rc = PMPI_Isend(b, count, t, dest, tag, comm, req);
    pr_stage_remember(*req, &none, &s, 0, 0);
    return rc;
}

PR_STAGE_FN int MPI_Irecv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
    pr_staged r, none;
    none.host = NULL;
    void *b = pr_stage_in(buf, count, t, 0, &r);
    int rc = PMPI_Irecv(b, count, t, src, tag, comm, req);
    pr_stage_remember(*req, &r, &none, count, 1);
    return rc;
}

PR_STAGE_FN int MPI_Ibcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request *req)
{
    pr_staged s, none;
    none.host = NULL;
    int me = pr_stage_rank(comm) == root;
    void *b = pr_stage_in(buf, count, t, me, &s);
    int rc = PMPI_Ibcast(b, count, t, root, comm, req);
    if (me)
        pr_stage_remember(*req, &none, &s, 0, 0);
    else
        pr_stage_remember(*req, &s, &none, count, 0);
    return rc;
}

PR_STAGE_FN int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                               MPI_Request *req)
{
    pr_staged s, r;
    void *sb = pr_stage_in(sbuf, count, t, 1, &s);
    void *rb = pr_stage_in(rbuf, count, t, sbuf == MPI_IN_PLACE, &r);
    int rc = PMPI_Iallreduce(sb, rb, count, t, op, comm, req);
    pr_stage_remember(*req, &r, &s, count, 0);
    return rc;
}

PR_STAGE_FN int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    MPI_Request was = *req;
    MPI_Status mine;
    int rc = PMPI_Wait(req, &mine);
    if (pr_stage_nwaiting)
        pr_stage_complete(was, &mine);
    if (st != MPI_STATUS_IGNORE)
        *st = mine;
    return rc;
}

PR_STAGE_FN int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    MPI_Request was = *req;
    MPI_Status mine;
    int rc = PMPI_Test(req, flag, &mine);
    if (*flag && pr_stage_nwaiting)
        pr_stage_complete(was, &mine);
    if (*flag && st != MPI_STATUS_IGNORE)
        *st = mine;
    return rc;
}

PR_STAGE_FN int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *st)
{
    if (!pr_stage_nwaiting)
        return PMPI_Waitany(n, reqs, index, st);
    MPI_Request *was = (MPI_Request *)malloc((size_t)(n > 0 ? n : 1) * sizeof *was);
    if (n > 0)
        memcpy(was, reqs, (size_t)n * sizeof *was);
    MPI_Status mine;
    int rc = PMPI_Waitany(n, reqs, index, &mine);
    if (*index != MPI_UNDEFINED)
        pr_stage_complete(was[*index], &mine);
    free(was);
    if (st != MPI_STATUS_IGNORE)
        *st = mine;
    return rc;
}

/* Waitall and Testall: the statuses are needed for the received counts. */
static int pr_stage_all(int n, MPI_Request reqs[], int *flag, MPI_Status sts[], int test)
{
    MPI_Request *was = (MPI_Request *)malloc((size_t)(n > 0 ? n : 1) * (sizeof *was + sizeof(MPI_Status)));
    MPI_Status *mine = (MPI_Status *)(was + (n > 0 ? n : 1));
    if (n > 0)
        memcpy(was, reqs, (size_t)n * sizeof *was);
    int done = 1;
    int rc = test ? PMPI_Testall(n, reqs, &done, mine) : PMPI_Waitall(n, reqs, mine);
    if (flag)
        *flag = done;
    if (done) {
        for (int i = 0; i < n; i++)
            pr_stage_complete(was[i], &mine[i]);
        if (sts != MPI_STATUSES_IGNORE)
            memcpy(sts, mine, (size_t)n * sizeof *mine);
    }
    free(was);
    return rc;
}

PR_STAGE_FN int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    if (!pr_stage_nwaiting)
        return PMPI_Waitall(n, reqs, sts);
    return pr_stage_all(n, reqs, NULL, sts, 0);
}

PR_STAGE_FN int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    if (!pr_stage_nwaiting)
        return PMPI_Testall(n, reqs, flag, sts);
    return pr_stage_all(n, reqs, flag, sts, 1);
}

PR_STAGE_FN int MPI_Finalize(void)
{
    if (pr_stage_nwaiting)
        fprintf(stderr, "pr.h staging layer: %d non-blocking MPI call%s on device buffers never completed through "
                        "MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Test or MPI_Testall: what %s received stayed on "
                        "the host\n",
                pr_stage_nwaiting, pr_stage_nwaiting == 1 ? "" : "s", pr_stage_nwaiting == 1 ? "it" : "they");
    for (int i = 0; i < PR_STAGE_POOL; i++)
        if (pr_stage_pool[i].ptr) {
            cudaFreeHost(pr_stage_pool[i].ptr);
            pr_stage_pool[i].ptr = NULL;
        }
    return PMPI_Finalize();
}

#undef PR_STAGE_FN
#endif
