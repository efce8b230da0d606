// The simulator's NCCL (grading/sim/nccl.h) under mpiexec -n 3: every collective's exact
// result (whole numbers), in place, a group, avg, a communicator numbered differently from
// MPI_COMM_WORLD, two communicators side by side, and the calls it must refuse.
// Rank 0 prints what every rank found (the wrong elements summed over the ranks).
#include <mpi.h>
#include <nccl.h>
#include <stdint.h>
#include <vector>
#include "common.h"

#define NCHECK(call) do { ncclResult_t r_ = (call); if (r_ != ncclSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

static int world_rank, world_size;

__global__ void fill(int32_t *x, int n, int base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = base + i;
}

template <class T> static T *to_device(const std::vector<T> &h)
{
    T *d;
    CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}
template <class T> static std::vector<T> to_host(const T *d, size_t n)
{
    std::vector<T> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}
/* Prints (on rank 0) how many elements were wrong on all the ranks together. */
static void report(const char *what, long wrong)
{
    long total = 0;
    MPI_Reduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("%s: wrong %ld\n", what, total);
}
template <class T, class F> static long count_wrong(const std::vector<T> &got, F want)
{
    long wrong = 0;
    for (size_t i = 0; i < got.size(); i++)
        wrong += got[i] != want(i);
    return wrong;
}
static ncclComm_t comm_from(int id_root, MPI_Comm among, int nranks, int rank)
{
    ncclUniqueId id;
    int me;
    MPI_Comm_rank(among, &me);
    if (me == id_root)
        NCHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, id_root, among);
    ncclComm_t c;
    NCHECK(ncclCommInitRank(&c, nranks, id, rank));
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const int r = world_rank, p = world_size, n = 1000;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    ncclComm_t comm = comm_from(0, MPI_COMM_WORLD, p, r);
    int count = -1, rank = -1, dev = -1, version = 0;
    NCHECK(ncclCommCount(comm, &count));
    NCHECK(ncclCommUserRank(comm, &rank));
    NCHECK(ncclCommCuDevice(comm, &dev));
    NCHECK(ncclGetVersion(&version));
    report("count, rank, device", (count != p) + (rank != r) + (dev != 0));
    if (r == 0)
        printf("ranks %d version >= 2.0: %d\n", count, version >= 2000);

    { // all-reduce, sum, int32, out of place: the stream's kernel wrote the input
        int32_t *x, *y;
        CHECK(cudaMalloc(&x, n * sizeof *x));
        CHECK(cudaMalloc(&y, n * sizeof *y));
        fill<<<(n + 255) / 256, 256, 0, s>>>(x, n, 100 * r);
        NCHECK(ncclAllReduce(x, y, n, ncclInt32, ncclSum, comm, s));
        CHECK(cudaStreamSynchronize(s));
        std::vector<int32_t> h = to_host(y, n);
        report("allreduce sum int32", count_wrong(h, [&](size_t i) { return (int32_t)(p * i + 100 * p * (p - 1) / 2); }));
        if (r == 0)
            printf("  y[0] %d y[999] %d\n", h[0], h[999]);
        report("allreduce left its input alone", count_wrong(to_host(x, n), [&](size_t i) { return (int32_t)(100 * r + i); }));
        CHECK(cudaFree(x)); CHECK(cudaFree(y));
    }
    { // in place, max, int64
        std::vector<int64_t> h(n);
        for (int i = 0; i < n; i++) h[i] = ((int64_t)r << 33) - i * (r + 1);
        int64_t *x = to_device(h);
        NCHECK(ncclAllReduce(x, x, n, ncclInt64, ncclMax, comm, s));
        report("allreduce max int64 in place", count_wrong(to_host(x, n), [&](size_t i) {
            return ((int64_t)(p - 1) << 33) - (int64_t)i * p; }));
        CHECK(cudaFree(x));
    }
    { // prod uint32, min float, avg double and int32
        uint32_t *a = to_device(std::vector<uint32_t>(7, (uint32_t)(r + 2)));
        NCHECK(ncclAllReduce(a, a, 7, ncclUint32, ncclProd, comm, s));
        uint32_t prod = 1;
        for (int k = 0; k < p; k++) prod *= (uint32_t)(k + 2);
        report("allreduce prod uint32", count_wrong(to_host(a, 7), [&](size_t) { return prod; }));
        float *f = to_device(std::vector<float>(5, r + 0.5f));
        NCHECK(ncclAllReduce(f, f, 5, ncclFloat, ncclMin, comm, s));
        report("allreduce min float", count_wrong(to_host(f, 5), [&](size_t) { return 0.5f; }));
        std::vector<double> hd(n);
        for (int i = 0; i < n; i++) hd[i] = 3.0 * r + i;
        double *d = to_device(hd);
        NCHECK(ncclAllReduce(d, d, n, ncclDouble, ncclAvg, comm, s));
        std::vector<double> avg = to_host(d, n);
        report("allreduce avg double", count_wrong(avg, [&](size_t i) { return 3.0 * (p - 1) / 2 + i; }));
        int32_t *q = to_device(std::vector<int32_t>(3, 10 * r));
        NCHECK(ncclAllReduce(q, q, 3, ncclInt, ncclAvg, comm, s));
        report("allreduce avg int32", count_wrong(to_host(q, 3), [&](size_t) { return (int32_t)(10 * (p - 1) / 2); }));
        if (r == 0)
            printf("  avg[0] %.1f avg[999] %.1f\n", avg[0], avg[999]);
        CHECK(cudaFree(a)); CHECK(cudaFree(f)); CHECK(cudaFree(d)); CHECK(cudaFree(q));
    }
    { // broadcast (from rank 1, int8) and the older in-place ncclBcast (from the last, uint8)
        std::vector<int8_t> h(n);
        for (int i = 0; i < n; i++) h[i] = (int8_t)(r == 1 ? i % 100 - 50 : 99);
        int8_t *x = to_device(h), *y = to_device(std::vector<int8_t>(n, 7));
        NCHECK(ncclBroadcast(x, y, n, ncclInt8, 1 % p, comm, s));
        report("broadcast int8", count_wrong(to_host(y, n), [&](size_t i) { return (int8_t)(p > 1 ? (int)(i % 100) - 50 : 99); }));
        uint8_t *b = to_device(std::vector<uint8_t>(n, (uint8_t)(200 + r)));
        NCHECK(ncclBcast(b, n, ncclUint8, p - 1, comm, s));
        report("bcast uint8 in place", count_wrong(to_host(b, n), [&](size_t) { return (uint8_t)(200 + p - 1); }));
        CHECK(cudaFree(x)); CHECK(cudaFree(y)); CHECK(cudaFree(b));
    }
    { // reduce to the last rank: sum uint64 out of place, then min int32 in place
        const int root = p - 1;
        std::vector<uint64_t> h(n);
        for (int i = 0; i < n; i++) h[i] = ((uint64_t)(r + 1) << 40) + (uint64_t)i;
        uint64_t *x = to_device(h), *y = to_device(std::vector<uint64_t>(n, 0));
        NCHECK(ncclReduce(x, y, n, ncclUint64, ncclSum, root, comm, s));
        std::vector<uint64_t> got = to_host(y, n);
        report("reduce sum uint64", count_wrong(got, [&](size_t i) {
            return r == root ? ((uint64_t)(p * (p + 1) / 2) << 40) + (uint64_t)(p * i) : (uint64_t)0; }));
        int32_t *z = to_device(std::vector<int32_t>(n, 5 - r));
        NCHECK(ncclReduce(z, z, n, ncclInt32, ncclMin, root, comm, s));
        report("reduce min int32 in place", count_wrong(to_host(z, n), [&](size_t) { return (int32_t)(r == root ? 5 - (p - 1) : 5 - r); }));
        CHECK(cudaFree(x)); CHECK(cudaFree(y)); CHECK(cudaFree(z));
    }
    { // all-gather: out of place, and in place (sendbuff = recvbuff + rank * count)
        const int k = 37;
        std::vector<int32_t> h(k);
        for (int i = 0; i < k; i++) h[i] = 1000 * r + i;
        int32_t *x = to_device(h), *y = to_device(std::vector<int32_t>(k * p, -1));
        NCHECK(ncclAllGather(x, y, k, ncclInt32, comm, s));
        auto want = [&](size_t j) { return (int32_t)(1000 * (j / k) + j % k); };
        report("allgather int32", count_wrong(to_host(y, k * p), want));
        std::vector<int32_t> all(k * p, -1);
        for (int i = 0; i < k; i++) all[r * k + i] = 1000 * r + i;
        int32_t *z = to_device(all);
        NCHECK(ncclAllGather(z + r * k, z, k, ncclInt32, comm, s));
        report("allgather int32 in place", count_wrong(to_host(z, k * p), want));
        CHECK(cudaFree(x)); CHECK(cudaFree(y)); CHECK(cudaFree(z));
    }
    { // reduce-scatter: out of place (sum), and in place (recvbuff = sendbuff + rank * count, max)
        const int k = 41;
        std::vector<int64_t> h(k * p);
        for (int j = 0; j < k * p; j++) h[j] = j + 10 * r;
        int64_t *x = to_device(h), *y = to_device(std::vector<int64_t>(k, -1));
        NCHECK(ncclReduceScatter(x, y, k, ncclInt64, ncclSum, comm, s));
        report("reducescatter sum int64", count_wrong(to_host(y, k), [&](size_t i) {
            return (int64_t)p * (r * k + (int64_t)i) + 10 * p * (p - 1) / 2; }));
        NCHECK(ncclReduceScatter(x, x + r * k, k, ncclInt64, ncclMax, comm, s));
        report("reducescatter max int64 in place", count_wrong(to_host(x + r * k, k), [&](size_t i) {
            return (int64_t)(r * k + i) + 10 * (p - 1); }));
        CHECK(cudaFree(x)); CHECK(cudaFree(y));
    }
    { // a group of two collectives
        int32_t *a = to_device(std::vector<int32_t>(n, r + 1));
        int32_t *b = to_device(std::vector<int32_t>(n, r == 0 ? 42 : 0));
        NCHECK(ncclGroupStart());
        NCHECK(ncclAllReduce(a, a, n, ncclInt32, ncclSum, comm, s));
        NCHECK(ncclBroadcast(b, b, n, ncclInt32, 0, comm, s));
        NCHECK(ncclGroupEnd());
        CHECK(cudaStreamSynchronize(s));
        report("group: allreduce", count_wrong(to_host(a, n), [&](size_t) { return (int32_t)(p * (p + 1) / 2); }));
        report("group: broadcast", count_wrong(to_host(b, n), [&](size_t) { return (int32_t)42; }));
        report("ncclGroupEnd unmatched", ncclGroupEnd() != ncclInvalidUsage);
        CHECK(cudaFree(a)); CHECK(cudaFree(b));
    }
    { // NCCL's ranks numbered backwards from MPI_COMM_WORLD's; its rank 0 (the last process) makes the id
        ncclComm_t back = comm_from(p - 1, MPI_COMM_WORLD, p, p - 1 - r);
        int br = -1;
        NCHECK(ncclCommUserRank(back, &br));
        int32_t *x = to_device(std::vector<int32_t>(1, r)), *y = to_device(std::vector<int32_t>(p, -1));
        NCHECK(ncclAllGather(x, y, 1, ncclInt32, back, s));
        std::vector<int32_t> got = to_host(y, p);
        report("reversed ranks: allgather", (br != p - 1 - r) + count_wrong(got, [&](size_t j) { return (int32_t)(p - 1 - j); }));
        NCHECK(ncclBcast(x, 1, ncclInt32, 0, back, s)); /* NCCL's rank 0: the last process */
        report("reversed ranks: bcast from rank 0", count_wrong(to_host(x, 1), [&](size_t) { return (int32_t)(p - 1); }));
        if (r == 0) {
            printf("  gathered");
            for (int j = 0; j < p; j++) printf(" %d", got[j]);
            printf("\n");
        }
        NCHECK(ncclCommDestroy(back));
        CHECK(cudaFree(x)); CHECK(cudaFree(y));
    }
    { // two communicators at once: the even processes and the odd ones, each with its own id
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
        int hsize;
        MPI_Comm_size(half, &hsize);
        ncclComm_t c = comm_from(0, half, hsize, r / 2);
        int32_t *x = to_device(std::vector<int32_t>(3, r));
        NCHECK(ncclAllReduce(x, x, 3, ncclInt32, ncclSum, c, s));
        int32_t want = 0;
        for (int k = r % 2; k < p; k += 2) want += k;
        report("two communicators: allreduce", count_wrong(to_host(x, 3), [&](size_t) { return want; }));
        NCHECK(ncclCommDestroy(c));
        MPI_Comm_free(&half);
        CHECK(cudaFree(x));
    }
    { // what it refuses: half precision, a buffer too short, host memory, a wrong rank count
        int32_t *x = to_device(std::vector<int32_t>(10, 1));
        std::vector<int32_t> host(10, 1);
        long bad = 0;
        bad += ncclAllReduce(x, x, 5, ncclFloat16, ncclSum, comm, s) != ncclInvalidArgument;
        bad += ncclAllReduce(x, x, 11, ncclInt32, ncclSum, comm, s) != ncclInvalidArgument;
        bad += ncclAllReduce(host.data(), host.data(), 10, ncclInt32, ncclSum, comm, s) != ncclInvalidArgument;
        bad += ncclAllReduce(x, x, 10, ncclInt32, (ncclRedOp_t)9, comm, s) != ncclInvalidArgument;
        ncclUniqueId id;
        if (r == 0)
            NCHECK(ncclGetUniqueId(&id));
        MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
        ncclComm_t c = NULL;
        bad += ncclCommInitRank(&c, p + 1, id, r) != ncclInvalidArgument || c != NULL;
        report("refused: float16, too long, host memory, bad op, nranks", bad);
        if (r == 0)
            printf("%s / %s\n", ncclGetErrorString(ncclInvalidArgument), ncclGetErrorString(ncclSuccess));
        CHECK(cudaFree(x));
    }
    NCHECK(ncclCommDestroy(comm));
    CHECK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
