/*
 * pr_mpi_work.c -- the grader's MPI work layer: what each rank did, seen from the MPI calls.
 *
 * The grader builds this file with the MPI's own compiler wrapper into a shared library and
 * loads it into every rank of a graded run (LD_PRELOAD, with PR_MPI_WORK naming where each
 * rank writes).  Nothing to include or link by hand: a program built by hand runs without it.
 *
 * It uses MPI's profiling interface.  It defines the MPI calls (MPI_Send ...) and their
 * profiling names (PMPI_Send ...).  MPI_X calls PMPI_X, which counts and then calls the MPI
 * library's PMPI_X (the next definition, dlsym RTLD_NEXT).  A program that defines MPI_X
 * itself (pr_mpi_gpu.h's staging layer) reaches the library through PMPI_X, so through this
 * file too.  Only the outermost call counts: a call the library makes into itself does not.
 *
 * Per rank (MPI_COMM_WORLD's numbering), from MPI_Init to MPI_Finalize (or exit):
 *   compute      CPU seconds of the process spent outside MPI calls.  Ranks that wait in MPI
 *                spin on a core, so CPU time in all says little; this part is the work.
 *   mpi          CPU seconds spent inside MPI calls (waiting included).
 *   sends/recvs  point-to-point messages sent to and received from another rank, and
 *                their bytes: a send's count, a blocking receive's status, a non-blocking
 *                receive's posted count.
 *   collectives  collective calls (blocking or not) on communicators of two ranks or more, and
 *                the bytes this rank handed in or took out of them: the root's whole array of a
 *                scatter or gather, the others' part.
 * The record is one line, rewritten as the rank ends: "rank=R started=1" after MPI_Init,
 * then the counts with finalized=1 at MPI_Finalize or exit=1 at exit without it.  A rank
 * that ends otherwise (_exit, a signal) leaves its start line only.
 *
 * It runs inside the program's process, so a program written to forge its records could;
 * the grader reads them as the layer wrote them.  See grading/src/work.h for how they are
 * judged.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

static struct {
    int inited, done, fd, rank;
    double start, in_mpi;
    long long sends, recvs, colls, bytes_sent, bytes_recv, bytes_coll;
} pw = { .fd = -1 };

static __thread int pw_depth;

/* The collective functions this rank called (on two ranks or more), each once: the
 * wrappers' __func__ ("PMPI_Allreduce"), compared by address. */
#define PW_MAX_KINDS 16
static const char *pw_kinds[PW_MAX_KINDS];
static int pw_nkinds;

static void pw_kind(const char *pname)
{
    for (int i = 0; i < pw_nkinds; i++)
        if (pw_kinds[i] == pname)
            return;
    if (pw_nkinds < PW_MAX_KINDS)
        pw_kinds[pw_nkinds++] = pname;
}


static double pw_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The library's definition of a profiling name. */
static void *pw_real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "pr_mpi_work: the MPI library has no %s\n", name);
        abort();
    }
    return f;
}

#define PW_REAL(name) \
    static __typeof__(&name) real_##name; \
    if (!real_##name) \
        real_##name = (__typeof__(&name))pw_real(#name)

static int pw_type_size(MPI_Datatype t)
{
    PW_REAL(PMPI_Type_size);
    int s = 0;
    if (real_PMPI_Type_size(t, &s) != MPI_SUCCESS)
        return 0;
    return s;
}

static int pw_comm_size(MPI_Comm c)
{
    PW_REAL(PMPI_Comm_size);
    int s = 1;
    real_PMPI_Comm_size(c, &s);
    return s;
}

static int pw_comm_rank(MPI_Comm c)
{
    PW_REAL(PMPI_Comm_rank);
    int r = 0;
    real_PMPI_Comm_rank(c, &r);
    return r;
}

static long long pw_bytes(long long count, MPI_Datatype t)
{
    return count > 0 ? count * pw_type_size(t) : 0;
}

static long long pw_sum(const int *counts, int n)
{
    long long s = 0;
    for (int i = 0; counts && i < n; i++)
        s += counts[i];
    return s;
}

static void pw_write(const char *how)
{
    if (pw.fd < 0)
        return;
    char line[1000], calls[400] = "-";
    for (int i = 0, at = 0; i < pw_nkinds; i++) { /* "MPI_Allreduce,MPI_Bcast" */
        int w = snprintf(calls + at, sizeof calls - (size_t)at, "%s%s", i ? "," : "", pw_kinds[i] + 1);
        if (w < 0 || (size_t)(at + w) >= sizeof calls)
            break;
        at += w;
    }
    double compute = pw_cpu() - pw.start - pw.in_mpi;
    int n = snprintf(line, sizeof line,
                     "rank=%d compute=%.6f mpi=%.6f sends=%lld bytes_sent=%lld recvs=%lld bytes_recv=%lld "
                     "collectives=%lld bytes_coll=%lld calls=%s %s=1\n",
                     pw.rank, compute > 0 ? compute : 0, pw.in_mpi, pw.sends, pw.bytes_sent, pw.recvs, pw.bytes_recv,
                     pw.colls, pw.bytes_coll, calls, how);
    if (ftruncate(pw.fd, 0) == 0 && n > 0 && pwrite(pw.fd, line, (size_t)n, 0) == n) {
    }
    close(pw.fd);
    pw.fd = -1;
    pw.done = 1;
}

static void pw_at_exit(void)
{
    if (pw.inited && !pw.done)
        pw_write("exit");
}

static void pw_started(void)
{
    pw.rank = pw_comm_rank(MPI_COMM_WORLD);
    const char *dir = getenv("PR_MPI_WORK");
    if (dir && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", dir, pw.rank);
        pw.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (pw.fd >= 0) {
            char line[64];
            int n = snprintf(line, sizeof line, "rank=%d started=1\n", pw.rank);
            if (write(pw.fd, line, (size_t)n) != n) {
            }
        }
        atexit(pw_at_exit);
    }
    pw.inited = 1;
    pw.start = pw_cpu();
}

/* Around a call: the CPU time inside the outermost one. */
static double pw_enter(void)
{
    return pw_depth++ == 0 && pw.inited && !pw.done ? pw_cpu() : -1;
}

static void pw_leave(double t0)
{
    if (--pw_depth == 0 && t0 >= 0)
        pw.in_mpi += pw_cpu() - t0;
}

/* pr.h's PR_SCAFFOLD(code): what pr.h and the rooms' headers do with MPI for their own ends
 * (a timing barrier and its wait, the verdict) is MPI's time, and its calls are not counted:
 * they are nested in this one. */
static __thread double pw_scaffold_t0;
static __thread int pw_scaffold_depth;
void pr_mpi_work_scaffold(int begin)
{
    if (begin) {
        if (pw_scaffold_depth++ == 0)
            pw_scaffold_t0 = pw_enter();
        else
            pw_depth++;
    } else if (pw_scaffold_depth > 0) {
        if (--pw_scaffold_depth == 0)
            pw_leave(pw_scaffold_t0);
        else
            pw_depth--;
    }
}

#define OUTER (pw_depth == 1)
/* Another rank of comm: not MPI_PROC_NULL, not this rank itself.  Only messages between two
 * ranks, and collectives of two ranks or more, count: data that stays in the rank travels
 * nowhere (MPI_COMM_SELF). */
static int pw_other(MPI_Comm comm, int peer)
{
    return peer != MPI_PROC_NULL && peer != MPI_ANY_SOURCE && pw_comm_size(comm) > 1 && peer != pw_comm_rank(comm);
}
#define SEND(dest, n, t) \
    do { \
        if (OUTER && pw_other(comm, (dest))) \
            pw.sends++, pw.bytes_sent += pw_bytes((n), (t)); \
    } while (0)
#define RECV(src, n, t) \
    do { \
        if (OUTER && ((src) == MPI_ANY_SOURCE ? pw_comm_size(comm) > 1 : pw_other(comm, (src)))) \
            pw.recvs++, pw.bytes_recv += pw_bytes((n), (t)); \
    } while (0)
#define COLL(bytes) \
    do { \
        if (OUTER && pw_comm_size(comm) > 1) \
            pw.colls++, pw.bytes_coll += (bytes), pw_kind(__func__); \
    } while (0)

/* PMPI_name counts (before) and calls the library; MPI_name calls PMPI_name. */
#define WRAP(name, params, args, before) \
    int P##name params \
    { \
        PW_REAL(P##name); \
        double t0 = pw_enter(); \
        before; \
        int rc = real_P##name args; \
        pw_leave(t0); \
        return rc; \
    } \
    int name params \
    { \
        return P##name args; \
    }

/* ---- start and end ---- */

int PMPI_Init(int *argc, char ***argv)
{
    PW_REAL(PMPI_Init);
    pw_depth++;
    int rc = real_PMPI_Init(argc, argv);
    pw_depth--;
    if (rc == MPI_SUCCESS && !pw.inited)
        pw_started();
    return rc;
}
int MPI_Init(int *argc, char ***argv)
{
    return PMPI_Init(argc, argv);
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    PW_REAL(PMPI_Init_thread);
    pw_depth++;
    int rc = real_PMPI_Init_thread(argc, argv, required, provided);
    pw_depth--;
    if (rc == MPI_SUCCESS && !pw.inited)
        pw_started();
    return rc;
}
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return PMPI_Init_thread(argc, argv, required, provided);
}

int PMPI_Finalize(void)
{
    PW_REAL(PMPI_Finalize);
    if (pw.inited && !pw.done && pw_depth == 0)
        pw_write("finalized");
    pw_depth++;
    int rc = real_PMPI_Finalize();
    pw_depth--;
    return rc;
}
int MPI_Finalize(void)
{
    return PMPI_Finalize();
}

/* ---- point to point ---- */

#define SEND_CALL(name) \
    WRAP(name, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm), \
         (buf, count, type, dest, tag, comm), SEND(dest, count, type))
SEND_CALL(MPI_Send)
SEND_CALL(MPI_Ssend)
SEND_CALL(MPI_Bsend)
SEND_CALL(MPI_Rsend)

#define ISEND_CALL(name) \
    WRAP(name, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req), \
         (buf, count, type, dest, tag, comm, req), SEND(dest, count, type))
ISEND_CALL(MPI_Isend)
ISEND_CALL(MPI_Issend)
ISEND_CALL(MPI_Ibsend)
ISEND_CALL(MPI_Irsend)

int PMPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status *status)
{
    PW_REAL(PMPI_Recv);
    PW_REAL(PMPI_Get_count);
    double t0 = pw_enter();
    int outer = OUTER;
    MPI_Status mine;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &mine : status;
    int rc = real_PMPI_Recv(buf, count, type, src, tag, comm, st);
    if (outer && rc == MPI_SUCCESS && (src == MPI_ANY_SOURCE ? pw_comm_size(comm) > 1 : pw_other(comm, src))) {
        int got = count;
        if (real_PMPI_Get_count(st, type, &got) != MPI_SUCCESS || got == MPI_UNDEFINED)
            got = count;
        pw.recvs++, pw.bytes_recv += pw_bytes(got, type);
    }
    pw_leave(t0);
    return rc;
}
int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status *status)
{
    return PMPI_Recv(buf, count, type, src, tag, comm, status);
}

WRAP(MPI_Irecv, (void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req),
     (buf, count, type, src, tag, comm, req), RECV(src, count, type))

WRAP(MPI_Sendrecv,
     (const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount, MPI_Datatype rtype,
      int src, int rtag, MPI_Comm comm, MPI_Status *status),
     (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status),
     SEND(dest, scount, stype); RECV(src, rcount, rtype))

WRAP(MPI_Sendrecv_replace,
     (void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag, MPI_Comm comm,
      MPI_Status *status),
     (buf, count, type, dest, stag, src, rtag, comm, status), SEND(dest, count, type); RECV(src, count, type))

/* ---- completion and probing: their time is MPI's, not the program's ---- */

WRAP(MPI_Wait, (MPI_Request *req, MPI_Status *status), (req, status), (void)0)
WRAP(MPI_Waitall, (int n, MPI_Request reqs[], MPI_Status statuses[]), (n, reqs, statuses), (void)0)
WRAP(MPI_Waitany, (int n, MPI_Request reqs[], int *index, MPI_Status *status), (n, reqs, index, status), (void)0)
WRAP(MPI_Waitsome, (int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]),
     (n, reqs, outcount, indices, statuses), (void)0)
WRAP(MPI_Test, (MPI_Request *req, int *flag, MPI_Status *status), (req, flag, status), (void)0)
WRAP(MPI_Testall, (int n, MPI_Request reqs[], int *flag, MPI_Status statuses[]), (n, reqs, flag, statuses), (void)0)
WRAP(MPI_Testany, (int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status),
     (n, reqs, index, flag, status), (void)0)
WRAP(MPI_Testsome, (int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]),
     (n, reqs, outcount, indices, statuses), (void)0)
WRAP(MPI_Probe, (int src, int tag, MPI_Comm comm, MPI_Status *status), (src, tag, comm, status), (void)0)
WRAP(MPI_Iprobe, (int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status), (src, tag, comm, flag, status),
     (void)0)
WRAP(MPI_Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *out), (comm, color, key, out), (void)0)
WRAP(MPI_Comm_split_type, (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out),
     (comm, type, key, info, out), (void)0)
WRAP(MPI_Comm_dup, (MPI_Comm comm, MPI_Comm *out), (comm, out), (void)0)
WRAP(MPI_Cart_create, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *out),
     (comm, ndims, dims, periods, reorder, out), (void)0)

/* ---- collectives ---- */

#define ROOT_OR(comm, root, at_root, elsewhere) (pw_comm_rank(comm) == (root) ? (at_root) : (elsewhere))

WRAP(MPI_Barrier, (MPI_Comm comm), (comm), COLL(0))
WRAP(MPI_Ibarrier, (MPI_Comm comm, MPI_Request *req), (comm, req), COLL(0))
WRAP(MPI_Bcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm), (buf, count, type, root, comm),
     COLL(pw_bytes(count, type)))
WRAP(MPI_Ibcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req),
     (buf, count, type, root, comm, req), COLL(pw_bytes(count, type)))
WRAP(MPI_Reduce,
     (const void *s, void *r, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm),
     (s, r, count, type, op, root, comm), COLL(pw_bytes(count, type)))
WRAP(MPI_Ireduce,
     (const void *s, void *r, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request *req),
     (s, r, count, type, op, root, comm, req), COLL(pw_bytes(count, type)))
WRAP(MPI_Allreduce, (const void *s, void *r, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (s, r, count, type, op, comm), COLL(pw_bytes(count, type)))
WRAP(MPI_Iallreduce,
     (const void *s, void *r, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req),
     (s, r, count, type, op, comm, req), COLL(pw_bytes(count, type)))
WRAP(MPI_Scan, (const void *s, void *r, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (s, r, count, type, op, comm), COLL(pw_bytes(count, type)))
WRAP(MPI_Exscan, (const void *s, void *r, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (s, r, count, type, op, comm), COLL(pw_bytes(count, type)))
WRAP(MPI_Reduce_scatter_block, (const void *s, void *r, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (s, r, count, type, op, comm), COLL(pw_bytes((long long)count * pw_comm_size(comm), type)))
WRAP(MPI_Reduce_scatter,
     (const void *s, void *r, const int counts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (s, r, counts, type, op, comm), COLL(pw_bytes(pw_sum(counts, pw_comm_size(comm)), type)))

#define SCATTER_PARAMS \
    (const void *s, int scount, MPI_Datatype stype, void *r, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
#define SCATTER_ARGS (s, scount, stype, r, rcount, rtype, root, comm)
WRAP(MPI_Scatter, SCATTER_PARAMS, SCATTER_ARGS,
     COLL(ROOT_OR(comm, root, pw_bytes((long long)scount * pw_comm_size(comm), stype), pw_bytes(rcount, rtype))))
WRAP(MPI_Gather, SCATTER_PARAMS, SCATTER_ARGS,
     COLL(ROOT_OR(comm, root, pw_bytes((long long)rcount * pw_comm_size(comm), rtype), pw_bytes(scount, stype))))

WRAP(MPI_Scatterv,
     (const void *s, const int scounts[], const int displs[], MPI_Datatype stype, void *r, int rcount,
      MPI_Datatype rtype, int root, MPI_Comm comm),
     (s, scounts, displs, stype, r, rcount, rtype, root, comm),
     COLL(ROOT_OR(comm, root, pw_bytes(pw_sum(scounts, pw_comm_size(comm)), stype), pw_bytes(rcount, rtype))))
WRAP(MPI_Gatherv,
     (const void *s, int scount, MPI_Datatype stype, void *r, const int rcounts[], const int displs[],
      MPI_Datatype rtype, int root, MPI_Comm comm),
     (s, scount, stype, r, rcounts, displs, rtype, root, comm),
     COLL(ROOT_OR(comm, root, pw_bytes(pw_sum(rcounts, pw_comm_size(comm)), rtype), pw_bytes(scount, stype))))

#define ALLGATHER_PARAMS \
    (const void *s, int scount, MPI_Datatype stype, void *r, int rcount, MPI_Datatype rtype, MPI_Comm comm)
#define ALLGATHER_ARGS (s, scount, stype, r, rcount, rtype, comm)
WRAP(MPI_Allgather, ALLGATHER_PARAMS, ALLGATHER_ARGS,
     COLL(pw_bytes((long long)rcount * pw_comm_size(comm), rtype)))
WRAP(MPI_Alltoall, ALLGATHER_PARAMS, ALLGATHER_ARGS,
     COLL(pw_bytes((long long)rcount * pw_comm_size(comm), rtype)))
WRAP(MPI_Allgatherv,
     (const void *s, int scount, MPI_Datatype stype, void *r, const int rcounts[], const int displs[],
      MPI_Datatype rtype, MPI_Comm comm),
     (s, scount, stype, r, rcounts, displs, rtype, comm), COLL(pw_bytes(pw_sum(rcounts, pw_comm_size(comm)), rtype)))
WRAP(MPI_Alltoallv,
     (const void *s, const int scounts[], const int sdispls[], MPI_Datatype stype, void *r, const int rcounts[],
      const int rdispls[], MPI_Datatype rtype, MPI_Comm comm),
     (s, scounts, sdispls, stype, r, rcounts, rdispls, rtype, comm),
     COLL(pw_bytes(pw_sum(rcounts, pw_comm_size(comm)), rtype)))

#ifdef __cplusplus
}
#endif
