/*
 * nccl.h for the CUDA CPU simulator (grading/sim/simcc): NCCL's collectives, done with MPI.
 *
 * In the simulator every rank of a run is an MPI process of its own (simcc -ccbin mpicxx,
 * started by mpiexec), with a simulated device of its own whose memory is the process's
 * memory.  So NCCL's communicator is an MPI communicator and each collective is the MPI
 * collective that computes the same thing.  The program must have called MPI_Init first,
 * as an NCCL program started by mpiexec does (it hands out the unique id with MPI_Bcast).
 *
 * Offered: ncclGetUniqueId, ncclCommInitRank, ncclCommInitAll (one device: the simulator
 * has one), ncclCommDestroy/Finalize/Abort, ncclCommCount, ncclCommUserRank,
 * ncclCommCuDevice, ncclCommGetAsyncError, ncclAllReduce, ncclBroadcast and the older
 * ncclBcast, ncclReduce, ncclAllGather, ncclReduceScatter, ncclGroupStart/ncclGroupEnd,
 * ncclGetErrorString, ncclGetLastError, ncclGetVersion.  Types: the integers, float and
 * double; ncclFloat16 and ncclBfloat16 are refused (ncclInvalidArgument), as the simulator
 * has no half precision.  Ops: sum, prod, max, min, and avg (MPI has none: the sum, then
 * divided by the rank count, in the element type).
 *
 * How it differs from NCCL, and why it still computes the same:
 *   - ncclCommInitRank splits MPI_COMM_WORLD (colour: a hash of the id's bytes, key: the
 *     NCCL rank asked for), so every process of the run must call it -- as every process
 *     does where the run's ranks make one communicator, or several with different ids.
 *     The size is checked against nranks and the rank against the one asked for.
 *   - Streams: the simulator queues a stream's work and runs it when something waits for
 *     it (cuda_sim.h).  A collective first runs what was queued before it on its stream
 *     (cudaStreamSynchronize), then runs to completion before it returns: the stream's
 *     later work sees its result.  (Reading the result on the host still takes a
 *     synchronization, as on a GPU, when later work on the stream writes it.)
 *   - Groups: the calls between ncclGroupStart and ncclGroupEnd are performed at once, in
 *     order, instead of being launched together at ncclGroupEnd.  That gives the same
 *     results for collectives, which every rank must issue in the same order anyway
 *     (there are no ncclSend/ncclRecv here, whose grouping this would break).
 *   - Buffers must lie in memory from cudaMalloc (or cudaMallocHost/cudaMallocManaged),
 *     all count elements inside the allocation: otherwise ncclInvalidArgument, with a
 *     line on stderr.  Device memory is out of the host's reach outside kernels in the
 *     simulator (to catch a device pointer handed to plain MPI); the collectives open it
 *     for the length of the MPI call, as cudaMemcpy does.
 *   - In place works as in NCCL: sendbuff == recvbuff (all-reduce, broadcast, reduce),
 *     sendbuff == recvbuff + rank * count (all-gather), recvbuff == sendbuff + rank *
 *     recvcount (reduce-scatter): MPI_IN_PLACE for the all-reduce, a copy of the input
 *     for the others (MPICH 4.0's MPI_Reduce crashes with MPI_IN_PLACE at a root other
 *     than 0).
 */
#ifndef CUDA_SIM_NCCL_H
#define CUDA_SIM_NCCL_H

#include "cuda_sim.h"

#if defined(__has_include)
#if !__has_include(<mpi.h>)
#error "the simulator's NCCL runs on MPI: build with simcc -ccbin mpicxx (mpi.h not found)"
#endif
#endif
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>
#include <unistd.h>

#define NCCL_MAJOR 2
#define NCCL_MINOR 21
#define NCCL_PATCH 5
#define NCCL_SUFFIX "-sim"
#define NCCL_VERSION(X, Y, Z) (((X) <= 2 && (Y) <= 8) ? (X) * 1000 + (Y) * 100 + (Z) : (X) * 10000 + (Y) * 100 + (Z))
#define NCCL_VERSION_CODE NCCL_VERSION(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH)
#define NCCL_UNIQUE_ID_BYTES 128

typedef struct { char internal[NCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;

typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
    ncclNumResults = 8
} ncclResult_t;

typedef enum {
    ncclInt8 = 0, ncclChar = 0,
    ncclUint8 = 1,
    ncclInt32 = 2, ncclInt = 2,
    ncclUint32 = 3,
    ncclInt64 = 4,
    ncclUint64 = 5,
    ncclFloat16 = 6, ncclHalf = 6,
    ncclFloat32 = 7, ncclFloat = 7,
    ncclFloat64 = 8, ncclDouble = 8,
    ncclBfloat16 = 9,
    ncclNumTypes = 10
} ncclDataType_t;

typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4, ncclNumOps = 5 } ncclRedOp_t;

struct ncclComm {
    MPI_Comm comm;
    int rank, nranks;
};
typedef struct ncclComm *ncclComm_t;
#define NCCL_COMM_NULL NULL

namespace cuda_sim_nccl {

inline int group_depth = 0;
inline char last_error[256] = "";

inline ncclResult_t complain(ncclResult_t r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
inline ncclResult_t complain(ncclResult_t r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "nccl-sim: %s\n", last_error);
    return r;
}

inline ncclResult_t mpi_ready(const char *what)
{
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (!inited || finalized)
        return complain(ncclInvalidUsage, "%s: MPI is not running (the simulator's NCCL runs on MPI: call "
                                          "MPI_Init first)", what);
    return ncclSuccess;
}

/* The MPI type and size of an NCCL type; 0 for the types the simulator lacks. */
inline size_t type_size(ncclDataType_t t, MPI_Datatype *m)
{
    switch (t) {
    case ncclInt8: *m = MPI_INT8_T; return 1;
    case ncclUint8: *m = MPI_UINT8_T; return 1;
    case ncclInt32: *m = MPI_INT32_T; return 4;
    case ncclUint32: *m = MPI_UINT32_T; return 4;
    case ncclInt64: *m = MPI_INT64_T; return 8;
    case ncclUint64: *m = MPI_UINT64_T; return 8;
    case ncclFloat32: *m = MPI_FLOAT; return 4;
    case ncclFloat64: *m = MPI_DOUBLE; return 8;
    default: return 0;
    }
}

inline MPI_Op mpi_op(ncclRedOp_t op)
{
    switch (op) {
    case ncclSum: case ncclAvg: return MPI_SUM;
    case ncclProd: return MPI_PROD;
    case ncclMax: return MPI_MAX;
    case ncclMin: return MPI_MIN;
    default: return MPI_OP_NULL;
    }
}

template <class T> inline void divide(void *buf, size_t n, int by)
{
    T *x = (T *)buf;
    for (size_t i = 0; i < n; i++)
        x[i] = (T)(x[i] / (T)by);
}
/* ncclAvg: the sum, divided by the rank count in the element's own type. */
inline void average(void *buf, size_t n, ncclDataType_t t, int nranks)
{
    switch (t) {
    case ncclInt8: divide<int8_t>(buf, n, nranks); break;
    case ncclUint8: divide<uint8_t>(buf, n, nranks); break;
    case ncclInt32: divide<int32_t>(buf, n, nranks); break;
    case ncclUint32: divide<uint32_t>(buf, n, nranks); break;
    case ncclInt64: divide<int64_t>(buf, n, nranks); break;
    case ncclUint64: divide<uint64_t>(buf, n, nranks); break;
    case ncclFloat32: divide<float>(buf, n, nranks); break;
    case ncclFloat64: divide<double>(buf, n, nranks); break;
    default: break;
    }
}

/* [p, p + n bytes) must lie inside one allocation of the simulator's. */
inline ncclResult_t check_buffer(const char *call, const char *name, const void *p, size_t n)
{
    if (n == 0)
        return ncclSuccess;
    if (!p)
        return complain(ncclInvalidArgument, "%s: %s is NULL", call, name);
    const cuda_sim::Alloc *a = cuda_sim::find_alloc(p, false);
    if (!a)
        return complain(ncclInvalidArgument, "%s: %s (%p) is not device memory: give NCCL buffers from cudaMalloc",
                        call, name, p);
    if ((const char *)p + n > a->ptr + a->size)
        return complain(ncclInvalidArgument, "%s: %s (%p) holds %zu bytes from there to the end of its "
                        "%zu-byte allocation: the call needs %zu", call, name, p,
                        (size_t)(a->ptr + a->size - (const char *)p), a->size, n);
    return ncclSuccess;
}

/* What every collective checks first; *m and *size get the element's MPI type and size. */
inline ncclResult_t check_call(const char *call, ncclComm_t comm, size_t count, ncclDataType_t t, MPI_Datatype *m,
                               size_t *size, cudaStream_t stream)
{
    ncclResult_t r = mpi_ready(call);
    if (r != ncclSuccess)
        return r;
    if (!comm)
        return complain(ncclInvalidArgument, "%s: the communicator is NULL", call);
    *size = type_size(t, m);
    if (*size == 0)
        return complain(ncclInvalidArgument, "%s: data type %d is not simulated (no half precision in the CUDA CPU "
                        "simulator)", call, (int)t);
    if (count > (size_t)INT_MAX / (size_t)comm->nranks)
        return complain(ncclInvalidArgument, "%s: count %zu is more than the simulator's NCCL handles", call, count);
    /* The stream's earlier work first: the collective comes after it, as on a GPU. */
    cudaStreamSynchronize(stream);
    return ncclSuccess;
}

inline bool overlap(const void *a, size_t na, const void *b, size_t nb)
{
    const char *x = (const char *)a, *y = (const char *)b;
    return na && nb && x < y + nb && y < x + na;
}

/* Device memory opened to the host for the length of one MPI call. */
struct Open {
    Open() { cuda_sim::open_device(); }
    ~Open() { cuda_sim::close_device(); }
    Open(const Open &) = delete;
    Open &operator=(const Open &) = delete;
};

} // namespace cuda_sim_nccl

static inline const char *ncclGetErrorString(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}
static inline const char *ncclGetLastError(ncclComm_t) { return cuda_sim_nccl::last_error; }

static inline ncclResult_t ncclGetVersion(int *version)
{
    if (!version)
        return cuda_sim_nccl::complain(ncclInvalidArgument, "ncclGetVersion: version is NULL");
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

/* A fresh id: the process, the time and a counter, mixed into all 128 bytes. */
static inline ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    if (!id)
        return cuda_sim_nccl::complain(ncclInvalidArgument, "ncclGetUniqueId: id is NULL");
    static uint64_t counter = 0;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t s = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
                 (++counter * 0x9E3779B97F4A7C15ULL);
    for (size_t i = 0; i < NCCL_UNIQUE_ID_BYTES; i += 8) {
        uint64_t z = cuda_sim::splitmix(s);
        memcpy(id->internal + i, &z, 8);
    }
    return ncclSuccess;
}

/* The processes that pass the same id make one communicator, numbered by the ranks
 * they ask for: a split of MPI_COMM_WORLD, which every process of the run must join. */
static inline ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
    using namespace cuda_sim_nccl;
    ncclResult_t r = mpi_ready("ncclCommInitRank");
    if (r != ncclSuccess)
        return r;
    if (!comm)
        return complain(ncclInvalidArgument, "ncclCommInitRank: comm is NULL");
    *comm = NULL;
    uint32_t h = 2166136261u; /* FNV-1a of the id */
    for (size_t i = 0; i < NCCL_UNIQUE_ID_BYTES; i++)
        h = (h ^ (unsigned char)id.internal[i]) * 16777619u;
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, (int)(h & 0x7fffffff), rank, &c);
    int got_rank, got_size;
    MPI_Comm_rank(c, &got_rank);
    MPI_Comm_size(c, &got_size);
    if (nranks < 1 || got_size != nranks || rank < 0 || rank >= nranks || got_rank != rank) {
        MPI_Comm_free(&c);
        return complain(ncclInvalidArgument, "ncclCommInitRank: rank %d of %d asked for, but %d processes passed "
                        "this id (and this one is number %d among them)", rank, nranks, got_size, got_rank);
    }
    *comm = new ncclComm{c, rank, nranks};
    return ncclSuccess;
}

/* One process, one communicator per device: the simulator has one device. */
static inline ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    using namespace cuda_sim_nccl;
    ncclResult_t r = mpi_ready("ncclCommInitAll");
    if (r != ncclSuccess)
        return r;
    if (!comms || ndev != 1 || (devlist && devlist[0] != 0))
        return complain(ncclInvalidArgument, "ncclCommInitAll: the CUDA CPU simulator has one device (ndev must "
                        "be 1, device 0)");
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_SELF, &c);
    comms[0] = new ncclComm{c, 0, 1};
    return ncclSuccess;
}

static inline ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    if (!comm)
        return ncclSuccess;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Comm_free(&comm->comm);
    delete comm;
    return ncclSuccess;
}
static inline ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    return comm ? ncclSuccess : cuda_sim_nccl::complain(ncclInvalidArgument, "ncclCommFinalize: comm is NULL");
}
static inline ncclResult_t ncclCommAbort(ncclComm_t comm) { return ncclCommDestroy(comm); }
static inline ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *err)
{
    if (!comm || !err)
        return cuda_sim_nccl::complain(ncclInvalidArgument, "ncclCommGetAsyncError: NULL argument");
    *err = ncclSuccess;
    return ncclSuccess;
}
static inline ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    if (!comm || !count)
        return cuda_sim_nccl::complain(ncclInvalidArgument, "ncclCommCount: NULL argument");
    *count = comm->nranks;
    return ncclSuccess;
}
static inline ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (!comm || !rank)
        return cuda_sim_nccl::complain(ncclInvalidArgument, "ncclCommUserRank: NULL argument");
    *rank = comm->rank;
    return ncclSuccess;
}
static inline ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    if (!comm || !device)
        return cuda_sim_nccl::complain(ncclInvalidArgument, "ncclCommCuDevice: NULL argument");
    *device = 0;
    return ncclSuccess;
}

/* Groups: each call is performed when it is made (see the top of this file). */
static inline ncclResult_t ncclGroupStart(void)
{
    cuda_sim_nccl::group_depth++;
    return ncclSuccess;
}
static inline ncclResult_t ncclGroupEnd(void)
{
    if (cuda_sim_nccl::group_depth == 0)
        return cuda_sim_nccl::complain(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
    cuda_sim_nccl::group_depth--;
    return ncclSuccess;
}

static inline ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                         ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    using namespace cuda_sim_nccl;
    MPI_Datatype m;
    size_t size;
    ncclResult_t r = check_call("ncclAllReduce", comm, count, datatype, &m, &size, stream);
    if (r == ncclSuccess && mpi_op(op) == MPI_OP_NULL)
        r = complain(ncclInvalidArgument, "ncclAllReduce: reduction op %d is not one of NCCL's", (int)op);
    if (r == ncclSuccess) r = check_buffer("ncclAllReduce", "sendbuff", sendbuff, count * size);
    if (r == ncclSuccess) r = check_buffer("ncclAllReduce", "recvbuff", recvbuff, count * size);
    if (r != ncclSuccess || count == 0)
        return r;
    Open open;
    if (sendbuff == recvbuff) {
        MPI_Allreduce(MPI_IN_PLACE, recvbuff, (int)count, m, mpi_op(op), comm->comm);
    } else if (overlap(sendbuff, count * size, recvbuff, count * size)) {
        std::vector<char> copy((const char *)sendbuff, (const char *)sendbuff + count * size);
        MPI_Allreduce(copy.data(), recvbuff, (int)count, m, mpi_op(op), comm->comm);
    } else {
        MPI_Allreduce(sendbuff, recvbuff, (int)count, m, mpi_op(op), comm->comm);
    }
    if (op == ncclAvg)
        average(recvbuff, count, datatype, comm->nranks);
    return ncclSuccess;
}

static inline ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                         int root, ncclComm_t comm, cudaStream_t stream)
{
    using namespace cuda_sim_nccl;
    MPI_Datatype m;
    size_t size;
    ncclResult_t r = check_call("ncclBroadcast", comm, count, datatype, &m, &size, stream);
    if (r == ncclSuccess && (root < 0 || root >= comm->nranks))
        r = complain(ncclInvalidArgument, "ncclBroadcast: root %d is not a rank of the communicator (0..%d)", root,
                     comm->nranks - 1);
    if (r == ncclSuccess && comm->rank == root) r = check_buffer("ncclBroadcast", "sendbuff", sendbuff, count * size);
    if (r == ncclSuccess) r = check_buffer("ncclBroadcast", "recvbuff", recvbuff, count * size);
    if (r != ncclSuccess || count == 0)
        return r;
    Open open;
    if (comm->rank == root && sendbuff != recvbuff)
        memmove(recvbuff, sendbuff, count * size);
    MPI_Bcast(recvbuff, (int)count, m, root, comm->comm);
    return ncclSuccess;
}

/* The older in-place broadcast. */
static inline ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                                     cudaStream_t stream)
{
    return ncclBroadcast(buff, buff, count, datatype, root, comm, stream);
}

static inline ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                      ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream)
{
    using namespace cuda_sim_nccl;
    MPI_Datatype m;
    size_t size;
    ncclResult_t r = check_call("ncclReduce", comm, count, datatype, &m, &size, stream);
    if (r == ncclSuccess && mpi_op(op) == MPI_OP_NULL)
        r = complain(ncclInvalidArgument, "ncclReduce: reduction op %d is not one of NCCL's", (int)op);
    if (r == ncclSuccess && (root < 0 || root >= comm->nranks))
        r = complain(ncclInvalidArgument, "ncclReduce: root %d is not a rank of the communicator (0..%d)", root,
                     comm->nranks - 1);
    bool at_root = r == ncclSuccess && comm->rank == root;
    if (r == ncclSuccess) r = check_buffer("ncclReduce", "sendbuff", sendbuff, count * size);
    if (r == ncclSuccess && at_root) r = check_buffer("ncclReduce", "recvbuff", recvbuff, count * size);
    if (r != ncclSuccess || count == 0)
        return r;
    Open open;
    /* In place through a copy: MPI_IN_PLACE at a root other than 0 crashes MPICH 4.0's MPI_Reduce. */
    if (at_root && overlap(sendbuff, count * size, recvbuff, count * size)) {
        std::vector<char> copy((const char *)sendbuff, (const char *)sendbuff + count * size);
        MPI_Reduce(copy.data(), recvbuff, (int)count, m, mpi_op(op), root, comm->comm);
    } else {
        MPI_Reduce(sendbuff, at_root ? recvbuff : NULL, (int)count, m, mpi_op(op), root, comm->comm);
    }
    if (at_root && op == ncclAvg)
        average(recvbuff, count, datatype, comm->nranks);
    return ncclSuccess;
}

/* recvbuff gets every rank's sendcount elements, rank 0's first. */
static inline ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                         ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    using namespace cuda_sim_nccl;
    MPI_Datatype m;
    size_t size;
    ncclResult_t r = check_call("ncclAllGather", comm, sendcount, datatype, &m, &size, stream);
    if (r != ncclSuccess)
        return r;
    size_t part = sendcount * size, all = part * (size_t)comm->nranks;
    if (r == ncclSuccess) r = check_buffer("ncclAllGather", "sendbuff", sendbuff, part);
    if (r == ncclSuccess) r = check_buffer("ncclAllGather", "recvbuff", recvbuff, all);
    if (r != ncclSuccess || sendcount == 0)
        return r;
    Open open;
    /* In place (sendbuff == recvbuff + rank * sendcount) or overlapping otherwise: through a copy. */
    if (overlap(sendbuff, part, recvbuff, all)) {
        std::vector<char> copy((const char *)sendbuff, (const char *)sendbuff + part);
        MPI_Allgather(copy.data(), (int)sendcount, m, recvbuff, (int)sendcount, m, comm->comm);
    } else {
        MPI_Allgather(sendbuff, (int)sendcount, m, recvbuff, (int)sendcount, m, comm->comm);
    }
    return ncclSuccess;
}

/* sendbuff holds nranks blocks of recvcount elements; rank i gets the reduction of block i. */
static inline ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                             ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                             cudaStream_t stream)
{
    using namespace cuda_sim_nccl;
    MPI_Datatype m;
    size_t size;
    ncclResult_t r = check_call("ncclReduceScatter", comm, recvcount, datatype, &m, &size, stream);
    if (r == ncclSuccess && mpi_op(op) == MPI_OP_NULL)
        r = complain(ncclInvalidArgument, "ncclReduceScatter: reduction op %d is not one of NCCL's", (int)op);
    if (r != ncclSuccess)
        return r;
    size_t part = recvcount * size, all = part * (size_t)comm->nranks;
    if (r == ncclSuccess) r = check_buffer("ncclReduceScatter", "sendbuff", sendbuff, all);
    if (r == ncclSuccess) r = check_buffer("ncclReduceScatter", "recvbuff", recvbuff, part);
    if (r != ncclSuccess || recvcount == 0)
        return r;
    Open open;
    if (overlap(sendbuff, all, recvbuff, part)) { /* in place (recvbuff = sendbuff + rank * recvcount) or not */
        std::vector<char> copy((const char *)sendbuff, (const char *)sendbuff + all);
        MPI_Reduce_scatter_block(copy.data(), recvbuff, (int)recvcount, m, mpi_op(op), comm->comm);
    } else {
        MPI_Reduce_scatter_block(sendbuff, recvbuff, (int)recvcount, m, mpi_op(op), comm->comm);
    }
    if (op == ncclAvg)
        average(recvbuff, recvcount, datatype, comm->nranks);
    return ncclSuccess;
}

#endif /* CUDA_SIM_NCCL_H */
