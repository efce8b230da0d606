// MPI handed device pointers (pr.h's pr_mpi_gpu.h: the staging layer, which in the
// simulator stands in for a CUDA-aware MPI): every wrapped call, on 3 ranks, checked
// element by element against what MPI does with host memory.  Received counts below
// the buffer's size, gaps of v-collectives and of a strided datatype must keep what the
// device buffer held (-1).  Prints one line per call: "<call>: wrong <n>" (over all ranks).
#define PR_MPI
#include "pr.h"

static int rank_, size_;
enum { N = 37 };

static double *dev_make(long n, double fill)
{
    double *d, *h = (double *)malloc((size_t)n * sizeof *h);
    for (long i = 0; i < n; i++)
        h[i] = fill;
    CHECK(cudaMalloc(&d, (size_t)n * sizeof *d));
    CHECK(cudaMemcpy(d, h, (size_t)n * sizeof *d, cudaMemcpyHostToDevice));
    free(h);
    return d;
}

// device array whose element i is value(rank, i)
static double val(int r, long i) { return 1000.0 * r + (double)i; }
static double *dev_vals(int r, long n)
{
    double *d, *h = (double *)malloc((size_t)n * sizeof *h);
    for (long i = 0; i < n; i++)
        h[i] = val(r, i);
    CHECK(cudaMalloc(&d, (size_t)n * sizeof *d));
    CHECK(cudaMemcpy(d, h, (size_t)n * sizeof *d, cudaMemcpyHostToDevice));
    free(h);
    return d;
}

static double *host_of(const double *d, long n)
{
    double *h = (double *)malloc((size_t)n * sizeof *h);
    CHECK(cudaMemcpy(h, d, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
    return h;
}

// Compares device array d (n) with want(i); frees d.  Returns the wrong elements.
template <class F> static long check(double *d, long n, F want)
{
    double *h = host_of(d, n);
    long wrong = 0;
    for (long i = 0; i < n; i++)
        wrong += h[i] != want(i);
    free(h);
    CHECK(cudaFree(d));
    return wrong;
}

static void say(const char *what, long wrong)
{
    long all = 0;
    int one = 1, ranks = 0;
    MPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD); // host memory: passes through
    MPI_Allreduce(&one, &ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0)
        printf("%s: wrong %ld\n", what, ranks == size_ ? all : -1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    const int r = rank_, p = size_, next = (r + 1) % p, prev = (r + p - 1) % p;
    MPI_Comm c = MPI_COMM_WORLD;

    { // Send / Recv around the ring, 3 elements fewer than the receive buffer holds
        double *s = dev_vals(r, N), *d = dev_make(N, -1);
        MPI_Status st;
        int got = -1;
        if (p == 1) { // a blocking send to oneself may wait for the receive (MPICH's does)
            MPI_Request req;
            MPI_Isend(s, N - 3, MPI_DOUBLE, next, 1, c, &req);
            MPI_Recv(d, N, MPI_DOUBLE, prev, 1, c, &st);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (r % 2 == 0) {
            MPI_Send(s, N - 3, MPI_DOUBLE, next, 1, c);
            MPI_Recv(d, N, MPI_DOUBLE, prev, 1, c, &st);
        } else {
            MPI_Recv(d, N, MPI_DOUBLE, prev, 1, c, &st);
            MPI_Send(s, N - 3, MPI_DOUBLE, next, 1, c);
        }
        MPI_Get_count(&st, MPI_DOUBLE, &got);
        long w = check(d, N, [&](long i) { return i < N - 3 ? val(prev, i) : -1.0; }) + (got != N - 3);
        say("MPI_Send/MPI_Recv", w);
        CHECK(cudaFree(s));
    }
    { // Sendrecv around the ring
        double *s = dev_vals(r, N), *d = dev_make(N, -1);
        MPI_Sendrecv(s, N, MPI_DOUBLE, next, 2, d, N, MPI_DOUBLE, prev, 2, c, MPI_STATUS_IGNORE);
        say("MPI_Sendrecv", check(d, N, [&](long i) { return val(prev, i); }));
        CHECK(cudaFree(s));
    }
    if (p > 1) { // Ssend (rank 0 to 1)
        double *b = r == 0 ? dev_vals(0, N) : dev_make(N, -1);
        long w = 0;
        if (r == 0)
            MPI_Ssend(b, N, MPI_DOUBLE, 1, 3, c);
        if (r == 1)
            MPI_Recv(b, N, MPI_DOUBLE, 0, 3, c, MPI_STATUS_IGNORE);
        if (r == 1)
            w = check(b, N, [&](long i) { return val(0, i); });
        else
            CHECK(cudaFree(b));
        say("MPI_Ssend", w);
    } else {
        say("MPI_Ssend", 0);
    }
    { // Bcast from the last rank
        int root = p - 1;
        double *b = r == root ? dev_vals(root, N) : dev_make(N, -1);
        MPI_Bcast(b, N, MPI_DOUBLE, root, c);
        say("MPI_Bcast", check(b, N, [&](long i) { return val(root, i); }));
    }
    double sum_i_base = 1000.0 * p * (p - 1) / 2; // sum over ranks of 1000 r
    auto sum = [&](long i) { return sum_i_base + (double)p * i; };
    { // Reduce to rank 0, then in place at rank 0
        double *s = dev_vals(r, N), *d = dev_make(N, -1);
        MPI_Reduce(s, d, N, MPI_DOUBLE, MPI_SUM, 0, c);
        long w = check(d, N, [&](long i) { return r == 0 ? sum(i) : -1.0; });
        MPI_Reduce(r == 0 ? MPI_IN_PLACE : s, r == 0 ? s : NULL, N, MPI_DOUBLE, MPI_SUM, 0, c);
        w += check(s, N, [&](long i) { return r == 0 ? sum(i) : val(r, i); });
        say("MPI_Reduce (and in place)", w);
    }
    { // Allreduce, then in place
        double *s = dev_vals(r, N), *d = dev_make(N, -1);
        MPI_Allreduce(s, d, N, MPI_DOUBLE, MPI_SUM, c);
        long w = check(d, N, sum);
        MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_SUM, c);
        w += check(s, N, sum);
        say("MPI_Allreduce (and in place)", w);
    }
    { // Scatter and Gather of 5 per rank
        double *all = r == 0 ? dev_vals(0, 5L * p) : NULL, *mine = dev_make(5, -1);
        MPI_Scatter(all, 5, MPI_DOUBLE, mine, 5, MPI_DOUBLE, 0, c);
        long w = check(mine, 5, [&](long i) { return val(0, 5L * r + i); });
        double *back = r == 0 ? dev_make(5L * p, -1) : NULL, *part = dev_vals(r, 5);
        MPI_Gather(part, 5, MPI_DOUBLE, back, 5, MPI_DOUBLE, 0, c);
        if (r == 0) {
            w += check(back, 5L * p, [&](long i) { return val((int)(i / 5), i % 5); });
            CHECK(cudaFree(all));
        }
        CHECK(cudaFree(part));
        say("MPI_Scatter/MPI_Gather", w);
    }
    int *counts = (int *)malloc(2 * (size_t)p * sizeof(int)), *displs = counts + p;
    // rank q: q + 2 elements, a gap of 3 between blocks (none before the first: MPICH
    // 4.0.2's MPI_Allgatherv on one rank ignores displs[0], host memory or not)
    for (int q = 0; q < p; q++) {
        counts[q] = q + 2;
        displs[q] = q == 0 ? 0 : displs[q - 1] + counts[q - 1] + 3;
    }
    long vlen = displs[p - 1] + counts[p - 1];
    auto owner = [&](long i) { // the rank whose block holds i, or -1 (a gap)
        for (int q = 0; q < p; q++)
            if (i >= displs[q] && i < displs[q] + counts[q])
                return q;
        return -1;
    };
    { // Scatterv and Gatherv with gaps
        double *all = r == 0 ? dev_vals(0, vlen) : NULL, *mine = dev_make(counts[r] + 2, -1);
        MPI_Scatterv(all, counts, displs, MPI_DOUBLE, mine, counts[r], MPI_DOUBLE, 0, c);
        long w = check(mine, counts[r] + 2, [&](long i) { return i < counts[r] ? val(0, displs[r] + i) : -1.0; });
        double *back = r == 0 ? dev_make(vlen, -1) : NULL, *part = dev_vals(r, counts[r]);
        MPI_Gatherv(part, counts[r], MPI_DOUBLE, back, counts, displs, MPI_DOUBLE, 0, c);
        if (r == 0) {
            w += check(back, vlen, [&](long i) {
                int q = owner(i);
                return q < 0 ? -1.0 : val(q, i - displs[q]);
            });
            CHECK(cudaFree(all));
        }
        CHECK(cudaFree(part));
        say("MPI_Scatterv/MPI_Gatherv (gaps kept)", w);
    }
    { // Allgather, in place too, and Allgatherv with gaps
        double *part = dev_vals(r, 4), *all = dev_make(4L * p, -1);
        MPI_Allgather(part, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, c);
        auto want = [&](long i) { return val((int)(i / 4), i % 4); };
        long w = check(all, 4L * p, want);
        double *inplace = dev_make(4L * p, -1);
        CHECK(cudaMemcpy(inplace + 4L * r, part, 4 * sizeof(double), cudaMemcpyDeviceToDevice));
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace, 4, MPI_DOUBLE, c);
        w += check(inplace, 4L * p, want);
        double *vall = dev_make(vlen, -1), *vpart = dev_vals(r, counts[r]);
        MPI_Allgatherv(vpart, counts[r], MPI_DOUBLE, vall, counts, displs, MPI_DOUBLE, c);
        w += check(vall, vlen, [&](long i) {
            int q = owner(i);
            return q < 0 ? -1.0 : val(q, i - displs[q]);
        });
        CHECK(cudaFree(part));
        CHECK(cudaFree(vpart));
        say("MPI_Allgather (and in place)/MPI_Allgatherv", w);
    }
    { // Alltoall: rank r sends val(r, 2q + k) to rank q
        double *s = dev_vals(r, 2L * p), *d = dev_make(2L * p, -1);
        MPI_Alltoall(s, 2, MPI_DOUBLE, d, 2, MPI_DOUBLE, c);
        say("MPI_Alltoall", check(d, 2L * p, [&](long i) { return val((int)(i / 2), 2L * r + i % 2); }));
        CHECK(cudaFree(s));
    }
    { // Reduce_scatter_block of 3 per rank
        double *s = dev_vals(r, 3L * p), *d = dev_make(3, -1);
        MPI_Reduce_scatter_block(s, d, 3, MPI_DOUBLE, MPI_SUM, c);
        say("MPI_Reduce_scatter_block", check(d, 3, [&](long i) { return sum(3L * r + i); }));
        CHECK(cudaFree(s));
    }
    { // Isend/Irecv completed by Waitall, Wait, Waitany, Test, Testall
        double *s = dev_vals(r, N), *d[4];
        for (int k = 0; k < 4; k++)
            d[k] = dev_make(N, -1);
        MPI_Request req[2];
        long w = 0;
        MPI_Irecv(d[0], N, MPI_DOUBLE, prev, 10, c, &req[0]);
        MPI_Isend(s, N - 1, MPI_DOUBLE, next, 10, c, &req[1]);
        MPI_Status sts[2];
        MPI_Waitall(2, req, sts);
        int got = -1;
        MPI_Get_count(&sts[0], MPI_DOUBLE, &got);
        w += got != N - 1;
        w += check(d[0], N, [&](long i) { return i < N - 1 ? val(prev, i) : -1.0; });
        MPI_Irecv(d[1], N, MPI_DOUBLE, prev, 11, c, &req[0]);
        MPI_Isend(s, N, MPI_DOUBLE, next, 11, c, &req[1]);
        MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        w += check(d[1], N, [&](long i) { return val(prev, i); });
        MPI_Irecv(d[2], N, MPI_DOUBLE, prev, 12, c, &req[0]);
        MPI_Isend(s, N, MPI_DOUBLE, next, 12, c, &req[1]);
        for (int left = 2; left > 0; left--) {
            int idx;
            MPI_Waitany(2, req, &idx, MPI_STATUS_IGNORE);
        }
        w += check(d[2], N, [&](long i) { return val(prev, i); });
        MPI_Irecv(d[3], N, MPI_DOUBLE, prev, 13, c, &req[0]);
        MPI_Isend(s, N, MPI_DOUBLE, next, 13, c, &req[1]);
        int done = 0;
        while (!done)
            MPI_Test(&req[0], &done, MPI_STATUS_IGNORE);
        MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        w += check(d[3], N, [&](long i) { return val(prev, i); });
        CHECK(cudaFree(s));
        say("MPI_Isend/MPI_Irecv (Waitall, Wait, Waitany, Test)", w);
    }
    { // Iallreduce completed by Wait, Ibcast by Testall
        double *s = dev_vals(r, N), *d = dev_make(N, -1);
        MPI_Request req;
        MPI_Iallreduce(s, d, N, MPI_DOUBLE, MPI_SUM, c, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        long w = check(d, N, sum);
        double *b = r == 0 ? dev_vals(0, N) : dev_make(N, -1);
        MPI_Ibcast(b, N, MPI_DOUBLE, 0, c, &req);
        int done = 0;
        while (!done)
            MPI_Testall(1, &req, &done, MPI_STATUSES_IGNORE);
        w += check(b, N, [&](long i) { return val(0, i); });
        CHECK(cudaFree(s));
        say("MPI_Iallreduce/MPI_Ibcast (Wait, Testall)", w);
    }
    { // a strided datatype: every other double; the receiver's gaps keep -1
        MPI_Datatype every_other;
        MPI_Type_vector(6, 1, 2, MPI_DOUBLE, &every_other);
        MPI_Type_commit(&every_other);
        double *s = dev_vals(r, 11), *d = dev_make(11, -1);
        MPI_Sendrecv(s, 1, every_other, next, 20, d, 1, every_other, prev, 20, c, MPI_STATUS_IGNORE);
        say("strided datatype (gaps kept)", check(d, 11, [&](long i) { return i % 2 == 0 ? val(prev, i) : -1.0; }));
        MPI_Type_free(&every_other);
        CHECK(cudaFree(s));
    }
    { // host memory and managed memory go straight through; a host send into a device receive
        double h[N], *m, *d = dev_make(N, -1);
        CHECK(cudaMallocManaged(&m, N * sizeof(double)));
        for (int i = 0; i < N; i++)
            h[i] = m[i] = val(r, i);
        MPI_Sendrecv(h, N, MPI_DOUBLE, next, 30, d, N, MPI_DOUBLE, prev, 30, c, MPI_STATUS_IGNORE);
        MPI_Allreduce(MPI_IN_PLACE, m, N, MPI_DOUBLE, MPI_SUM, c);
        long w = check(d, N, [&](long i) { return val(prev, i); });
        for (int i = 0; i < N; i++)
            w += m[i] != sum(i);
        CHECK(cudaFree(m));
        say("host and managed memory, mixed", w);
    }
    const char *why;
    int path = pr_mpi_gpu_path(&why);
    if (r == 0)
        printf("path: %s\n", pr_mpi_gpu_path_name(path));
    free(counts);
    MPI_Finalize();
    return 0;
}
