/*
 * Room 03, task 6: your own reductions, from MPI_Send and MPI_Recv.
 *
 * Every rank has a vector of m 64-bit integers.  Two ways of adding them up,
 * element by element:
 *
 *   (a) a binomial-tree reduce to rank 0, the way MPI_Reduce does it for
 *       small messages: log2(p) rounds; in each, half of the ranks still
 *       active hand their partial sums to the other half.
 *
 *           round 1:  1 -> 0    3 -> 2    5 -> 4    7 -> 6
 *           round 2:  2 -> 0              6 -> 4
 *           round 3:  4 -> 0
 *
 *   (b) a ring allreduce, the bandwidth-optimal algorithm behind data-parallel
 *       deep learning (Horovod, NCCL): the vector is cut into p chunks; a
 *       reduce-scatter of p-1 steps around the ring leaves every rank with one
 *       chunk fully summed, and an allgather of p-1 more steps passes the
 *       summed chunks round until every rank has all of them.
 *
 *   TODO 1: the tree reduce, with MPI_Send and MPI_Recv.
 *   TODO 2: the reduce-scatter phase of the ring, with MPI_Sendrecv.
 *   TODO 3: the allgather phase of the ring, with MPI_Sendrecv.
 *
 * Read first: README.md, "Point-to-point: send and receive", "MPI_Sendrecv", "What a message costs".
 *
 * Both are compared with MPI_Reduce and MPI_Allreduce: integer sums are exact
 * in any order, so the results must be identical.  Then a table compares the
 * four for vectors from 8 bytes to m * 8 bytes.
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task6 task6.c -lm
 *   mpiexec -n 4 ./task6 m=1000000
 * Grade it from the top folder:  make grade TASK=03_mpi/task6
 */
#define PR_MPI
#include "pr.h"
#include "mpi_tools.h" /* xcalloc: the room's shared helpers */

#define TAG_TREE 1
#define TAG_REDUCE_SCATTER 2
#define TAG_ALLGATHER 3

/* dst[i] += src[i] for i < count.  (PR_UNUSED: the untouched task does not
 * call it yet, and the compiler would say so.) */
static PR_UNUSED void add_into(int64_t *dst, const int64_t *src, long count)
{
    for (long i = 0; i < count; i++)
        dst[i] += src[i];
}

/* i modulo p, always in [0, p): wrap(-1, 4) is 3 (in C, -1 % 4 is -1). */
static PR_UNUSED int wrap(int i, int p)
{
    return ((i % p) + p) % p;
}

/* (a) Binomial-tree reduce.  On return, acc[] on rank 0 holds the element-wise
 * sum of every rank's `mine` (acc on other ranks: scratch).  acc and tmp have
 * room for m numbers; acc starts as all zeros. */
static void tree_reduce(const int64_t *mine, int64_t *acc, int64_t *tmp, long m)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    // TODO 1: The tree of the diagram above, for any number of ranks (not
    //         only powers of two): at the end, rank 0's accumulator holds the
    //         sum of every rank's vector, each added exactly once (result
    //         lines tree_wrong and tree_checksum).  Every message sent must be
    //         received by the rank meant for it, and a rank that has handed
    //         on its partial sum takes no further part.  Work out from a
    //         rank's number alone, in each round, whether it sends, receives
    //         or is idle, and its partner.  (The accumulator starts as zeros.)
    //         See "What a message costs".
    (void)mine, (void)acc, (void)tmp, (void)m, (void)rank, (void)size; /* TODO 1 */
}

/* (b) Ring allreduce.  On return, buf[] on every rank holds the element-wise
 * sum of every rank's `mine`.  buf and tmp have room for m numbers; buf starts
 * as all zeros. */
static void ring_allreduce(const int64_t *mine, int64_t *buf, int64_t *tmp, long m)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;

    /* Chunk c is buf[first[c] .. first[c] + count[c] - 1]: the uneven split of
     * task 1, so m need not be a multiple of size. */
    long *first = malloc(2 * (size_t)size * sizeof *first);
    if (!first) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return;
    }
    long *count = first + size;
    for (int c = 0; c < size; c++) {
        long base = m / size, extra = m % size;
        first[c] = c * base + (c < extra ? c : extra);
        count[c] = base + (c < extra ? 1 : 0);
    }

    // TODO 2: Reduce-scatter, p-1 steps round the ring: in each step every
    //         rank passes one chunk on and adds the chunk it gets into its own
    //         copy of that chunk.  What must hold at the end: one chunk of
    //         this rank's buf (a different one on every rank) holds the sum of
    //         that chunk over all ranks.  Choose which chunk a rank sends in
    //         each step so that every chunk's partial sum travels round the
    //         ring and collects every rank's contribution once (buf starts as
    //         zeros; this rank's own vector counts too).  The helpers above do
    //         the adding and the modulo.  Receive into the scratch buffer: why
    //         not straight into buf?  See "What a message costs" (the diagram
    //         of the ring for 3 ranks).
    (void)mine, (void)tmp, (void)right, (void)left; /* TODO 2: reduce-scatter */

    // TODO 3: Allgather, p-1 more steps: the finished chunks travel round
    //         the ring and replace the partial ones, until every rank's buf
    //         holds the whole sum (result lines ring_wrong, ring_checksum).
    //         Which chunk does a rank send first, given which one TODO 2 left
    //         finished on it?  Here what arrives is a final value: it may go
    //         straight to its place.  See "What a message costs" (the same
    //         diagram).
    (void)buf; /* TODO 3: allgather */
    free(first);
}

/* ---- no need to change below ---- */

enum op { TREE, MPI_REDUCE, RING, MPI_ALLREDUCE, OPS };
static const char *op_name[OPS] = { "tree reduce", "MPI_Reduce", "ring allreduce",
                                    "MPI_Allreduce" };

typedef struct {
    const int64_t *mine;
    int64_t *out, *tmp;
    long m;
} vec_t;

/* Runs one of the four on the first v->m numbers; the answer goes to v->out
 * (on rank 0 only for the reduces). */
static void run_op(enum op op, vec_t *v)
{
    memset(v->out, 0, (size_t)v->m * sizeof *v->out);
    switch (op) {
    case TREE:
        tree_reduce(v->mine, v->out, v->tmp, v->m);
        break;
    case MPI_REDUCE:
        MPI_Reduce(v->mine, v->out, (int)v->m, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case RING:
        ring_allreduce(v->mine, v->out, v->tmp, v->m);
        break;
    default:
        MPI_Allreduce(v->mine, v->out, (int)v->m, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        break;
    }
}

/* One warm-up, then the best of `reps`; each run starts from a barrier and
 * counts as long as its slowest rank. */
static double time_op(enum op op, vec_t *v, int reps)
{
    double best = INFINITY;
    for (int r = 0; r <= reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        run_op(op, v);
        double mine = MPI_Wtime() - start, slowest;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r > 0 && slowest < best)
            best = slowest;
    }
    return best;
}

/* How many elements of a differ from b. */
static long count_wrong(const int64_t *a, const int64_t *b, long m)
{
    long wrong = 0;
    for (long i = 0; i < m; i++)
        wrong += a[i] != b[i];
    return wrong;
}

/* The sum of a's elements (no overflow: |a[i]| <= p * 10^9). */
static int64_t checksum_of(const int64_t *a, long m)
{
    int64_t sum = 0;
    for (long i = 0; i < m; i++)
        sum += a[i];
    return sum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long m = (long)pr_arg_long(argc, argv, "m", 1000000, 1, 50000000);
    int reps = (int)pr_arg_long(argc, argv, "reps", 3, 1, 100);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("task6: sum of %d vectors of %ld int64 (%ld bytes each) (seed %llu)\n", size, m,
               m * 8, (unsigned long long)seed);

    int64_t *mine = xcalloc((size_t)m, sizeof *mine);
    int64_t *mpi_sum = xcalloc((size_t)m, sizeof *mpi_sum);
    int64_t *out = xcalloc((size_t)m, sizeof *out);
    int64_t *tmp = xcalloc((size_t)m, sizeof *tmp);
    pr_rng rng = pr_rng_seed(seed, 500 + (uint64_t)rank);
    for (long i = 0; i < m; i++)
        mine[i] = pr_rng_range(&rng, -1000000000, 1000000000);
    vec_t v = { mine, out, tmp, m };
    vec_t ref = { mine, mpi_sum, tmp, m };

    /* (a) The tree against MPI_Reduce, on rank 0. */
    run_op(MPI_REDUCE, &ref);
    run_op(TREE, &v);
    if (rank == 0) {
        printf("  (a) tree reduce, on rank 0 (MPI_Reduce's sum has checksum %" PRId64 "):\n",
               checksum_of(mpi_sum, m));
        long wrong = count_wrong(out, mpi_sum, m);
        int64_t checksum = checksum_of(out, m);
        pr_check_int("tree: elements wrong", wrong, 0);
        pr_check_int("tree: checksum", checksum, checksum_of(mpi_sum, m));
        pr_result_int("tree_wrong", wrong);
        pr_result_int("tree_checksum", checksum);
    }

    /* (b) The ring against MPI_Allreduce, on every rank. */
    run_op(MPI_ALLREDUCE, &ref);
    run_op(RING, &v);
    if (rank == 0)
        printf("  (b) ring allreduce: every rank checks its own sum (only rank 0's checks are\n"
               "  shown, and a wrong answer on any other rank):\n");
    long wrong = count_wrong(out, mpi_sum, m);
    int64_t checksum = checksum_of(out, m);
    pr_check_int("ring: elements wrong", wrong, 0);
    pr_check_int("ring: checksum", checksum, checksum_of(mpi_sum, m));
    pr_result_int("ring_wrong", wrong);
    pr_result_int("ring_checksum", checksum);

    /* The table: the first `len` numbers of the vectors, len growing 64-fold. */
    if (rank == 0) {
        printf("  times in ms, best of %d (p = %d rank%s):\n", reps, size, size == 1 ? "" : "s");
        printf("  %10s %12s", "numbers", "bytes");
        for (int op = 0; op < OPS; op++)
            printf(" %15s", op_name[op]);
        printf("\n");
    }
    double t[OPS]; /* the last row's: the whole vectors */
    for (long len = 1;; len = len * 64 < m ? len * 64 : m) {
        vec_t part = { mine, out, tmp, len };
        for (int op = 0; op < OPS; op++)
            t[op] = time_op((enum op)op, &part, reps);
        if (rank == 0) {
            printf("  %10ld %12ld", len, len * 8);
            for (int op = 0; op < OPS; op++)
                printf(" %15.3f", t[op] * 1e3);
            printf("\n");
        }
        if (len == m)
            break;
    }
    pr_print_time("tree reduce, whole vectors", t[TREE], t[MPI_REDUCE], "MPI_Reduce");
    pr_print_time("ring allreduce, whole vectors", t[RING], t[MPI_ALLREDUCE], "MPI_Allreduce");
    if (rank == 0 && size > 1)
        printf("  Every rank of the ring sends 2(p-1)/p = %.2f vectors' worth in 2(p-1) = %d\n"
               "  steps; rank 0 of the tree receives a whole vector in each of ceil(log2 p) = %d\n"
               "  rounds (and a broadcast of the sum would take as many rounds again).\n",
               2.0 * (size - 1) / size, 2 * (size - 1), (int)ceil(log2((double)size)));

    free(mine);
    free(mpi_sum);
    free(out);
    free(tmp);

    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
