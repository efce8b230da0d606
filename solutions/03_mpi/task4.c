/*
 * Room 03, task 4: point-to-point messages.  A ring with MPI_Sendrecv, and a
 * ping-pong with MPI_Send and MPI_Recv that measures latency and bandwidth.
 *
 * Part 1, the ring.  The ranks stand in a circle: each has a neighbour on
 * either side, and the last rank and rank 0 are neighbours too.  Every rank
 * starts with a vector of numbers of its own.  In each of p steps (p ranks),
 * every rank passes the vector it holds to the next rank round the circle,
 * gets a vector from the rank before it in exchange, and adds what it got
 * into its running sum.  After p steps every vector has gone all the way
 * round: each rank's sum holds every rank's vector, and the vector it holds
 * is its own again (it came home).
 *
 *   TODO 1: one step of the ring, with MPI_Sendrecv.
 *
 * Why not a plain MPI_Send, then MPI_Recv?  Try it, with len=1 and then
 * len=100000 (the lesson explains what you see).
 *
 * Part 2, the ping-pong.  Ranks 0 and 1 bounce a message back and forth
 * many times, for message sizes from 1 byte up to max_bytes.  Half the time
 * of a round trip is the time of one message: the program prints a table of
 * it, and the bandwidth it implies.  The other ranks wait.
 *
 *   TODO 2: the round trips, with MPI_Send and MPI_Recv.
 *
 * Read first: README.md, "Point-to-point: send and receive", "Blocking, eager and rendezvous, and the deadlock", "MPI_Sendrecv", "Neighbour ranks by hand", "Latency and bandwidth".
 *
 * The timings are only printed; what is checked is that every vector arrives
 * and that every echo comes back intact.
 *
 * Build and run by hand, from the room's folder:
 *   mpicc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task4 task4.c -lm
 *   mpiexec -n 4 ./task4
 *   mpiexec -n 2 ./task4 max_bytes=67108864 trips=20
 * Grade it from the top folder:  make grade TASK=03_mpi/task4
 */
#define PR_MPI
#include "pr.h"
#include "mpi_tools.h" /* xcalloc: the room's shared helpers */

#define TAG_RING 1
#define TAG_PING 2
#define TAG_PONG 3

/* One trip around the ring.  mine: this rank's vector; sum, carry, incoming:
 * room for len numbers each.  On return sum[] holds the element-wise sum of
 * every rank's vector, and carry[] this rank's own vector again. */
static void ring_trip(const int64_t *mine, int64_t *sum, int64_t *carry, int64_t *incoming,
                      long len)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t bytes = (size_t)len * sizeof(int64_t);

    memcpy(carry, mine, bytes);
    memset(sum, 0, bytes);
    for (int step = 0; step < size; step++) {
        memset(incoming, 0, bytes); /* nothing received yet */

        //@ TODO 1: One step of the ring.  What must hold after it, on every
        //@         rank: `incoming` holds the vector that the previous rank
        //@         round the circle held at the start of the step, and the next
        //@         rank has got the vector this rank held.  It must work for
        //@         rank 0 and the last rank, with 1 rank (its neighbours are
        //@         itself) and for vectors too big to be sent eagerly
        //@         (len=10007): no deadlock.  The tags are defined at the top.
        //@         See "Neighbours on a ring" and "MPI_Sendrecv".
        //@ placeholder: (void)rank; /* TODO 1: one step of the ring */
        //@ solution {
        int right = (rank + 1) % size;
        int left = (rank - 1 + size) % size;
        MPI_Sendrecv(carry, (int)len, MPI_INT64_T, right, TAG_RING, incoming, (int)len,
                     MPI_INT64_T, left, TAG_RING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        //@ }

        memcpy(carry, incoming, bytes); /* pass on in the next step what arrived in this one */
        for (long k = 0; k < len; k++)
            sum[k] += carry[k];
    }
}

/* `trips` round trips of a message of `bytes` bytes between ranks 0 and 1.
 * Rank 0 sends `out` and receives the echo into `back`; rank 1 receives into
 * its `back` and sends that straight back.  Only ranks 0 and 1 call this. */
static void ping_pong(int rank, const char *out, char *back, int bytes, int trips)
{
    //@ TODO 2: The round trips, each one a message from rank 0 to rank 1 and
    //@         its echo back.  What must hold: rank 1 echoes exactly what it
    //@         got, rank 0 ends with the echo of its message in its receive
    //@         buffer (result line pingpong_echoes_ok), the two directions use
    //@         different tags, and the two ranks never wait for each other at
    //@         the same time.  See "Point-to-point: send and receive".
    //@ placeholder: (void)rank, (void)out, (void)back, (void)bytes, (void)trips; /* TODO 2 */
    //@ solution {
    for (int t = 0; t < trips; t++) {
        if (rank == 0) {
            MPI_Send(out, bytes, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(back, bytes, MPI_BYTE, 1, TAG_PONG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(back, bytes, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(back, bytes, MPI_BYTE, 0, TAG_PONG, MPI_COMM_WORLD);
        }
    }
    //@ }
}

/* ---- no need to change below ---- */

/* Rank r's vector: `len` numbers from 1 to 10^9, from the seed and r alone,
 * so that every rank can work out every other rank's vector to check its sum. */
static void make_vector(int64_t *v, long len, uint64_t seed, int r)
{
    pr_rng rng = pr_rng_seed(seed, 100 + (uint64_t)r);
    for (long k = 0; k < len; k++)
        v[k] = pr_rng_range(&rng, 1, 1000000000);
}

static void ring_part(long len, uint64_t seed, int rank, int size)
{
    int64_t *mine = xcalloc((size_t)len, sizeof *mine);
    int64_t *sum = xcalloc((size_t)len, sizeof *sum);
    int64_t *carry = xcalloc((size_t)len, sizeof *carry);
    int64_t *incoming = xcalloc((size_t)len, sizeof *incoming);
    int64_t *expected = xcalloc((size_t)len, sizeof *expected);
    int64_t *other = xcalloc((size_t)len, sizeof *other);

    make_vector(mine, len, seed, rank);
    for (int r = 0; r < size; r++) {
        make_vector(other, len, seed, r);
        for (long k = 0; k < len; k++)
            expected[k] += other[k];
    }

    /* One warm-up trip, then the best of two; every trip starts afresh from
     * `mine`, and the last one is checked. */
    double best = INFINITY;
    for (int rep = 0; rep < 3; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        ring_trip(mine, sum, carry, incoming, len);
        double t = MPI_Wtime() - start, slowest;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rep > 0 && slowest < best)
            best = slowest;
    }

    long wrong = 0;
    int64_t checksum = 0;
    for (long k = 0; k < len; k++) {
        if (sum[k] != expected[k])
            wrong++;
        checksum += sum[k];
    }
    int home = memcmp(carry, mine, (size_t)len * sizeof *mine) == 0;

    if (rank == 0)
        printf("  ring: every rank checks its own sum (only rank 0's checks are shown,\n"
               "  and a wrong answer on any other rank):\n");
    pr_check_int("ring: wrong sum elements", wrong, 0);
    pr_check_int("ring: own vector came home", home, 1);
    pr_result_int("ring_checksum", checksum);
    pr_result_int("ring_came_home", home);
    if (rank == 0) {
        printf("  ring: %d step%s of %ld bytes per rank\n", size, size == 1 ? "" : "s",
               len * (long)sizeof(int64_t));
        pr_print_time("one trip around the ring", best, 0, NULL);
    }

    free(mine);
    free(sum);
    free(carry);
    free(incoming);
    free(expected);
    free(other);
}

static void pingpong_part(long max_bytes, int trips, int rank, int size)
{
    if (size < 2) {
        if (rank == 0)
            printf("  ping-pong: needs at least 2 ranks (mpiexec -n 2 ...): skipped\n");
        return;
    }
    int sizes = 0, echoes_ok = 0;
    double first_oneway = 0.0, last_bw = 0.0;
    long last_bytes = 0;
    if (rank <= 1) {
        char *out = xcalloc((size_t)max_bytes, 1);
        char *back = xcalloc((size_t)max_bytes, 1);
        if (rank == 0) {
            pr_rng rng = pr_rng_seed(7, 200);
            for (long i = 0; i < max_bytes; i++)
                out[i] = (char)(1 + pr_rng_range(&rng, 0, 254)); /* never 0 */
            printf("  ping-pong between ranks 0 and 1, %d round trips per size:\n", trips);
            printf("  %12s %16s %16s\n", "bytes", "one way (us)", "bandwidth (MB/s)");
        }
        for (long bytes = 1; bytes <= max_bytes; bytes *= 4) {
            ping_pong(rank, out, back, (int)bytes, 1); /* warm-up: the first message pays extra */
            memset(back, 0, (size_t)bytes);
            double start = MPI_Wtime();
            ping_pong(rank, out, back, (int)bytes, trips);
            double oneway = (MPI_Wtime() - start) / (2.0 * trips);
            if (rank == 0) {
                int ok = memcmp(out, back, (size_t)bytes) == 0;
                double bw = oneway > 0 ? (double)bytes / oneway / 1e6 : 0.0;
                printf("  %12ld %16.2f %16.1f%s\n", bytes, oneway * 1e6, bw,
                       ok ? "" : "   echo WRONG");
                sizes++;
                echoes_ok += ok;
                if (bytes == 1)
                    first_oneway = oneway;
                last_bw = bw;
                last_bytes = bytes;
            }
        }
        free(out);
        free(back);
    }
    quiet_barrier();
    if (rank == 0) {
        pr_check_int("ping-pong: echoes intact", echoes_ok, sizes);
        pr_result_int("pingpong_echoes_ok", echoes_ok);
        printf("  model t(bytes) = latency + bytes / bandwidth: latency about %.2f us (1 byte),\n"
               "  bandwidth about %.0f MB/s (%ld bytes)\n",
               first_oneway * 1e6, last_bw, last_bytes);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long len = (long)pr_arg_long(argc, argv, "len", 100000, 1, 10000000);
    long max_bytes = (long)pr_arg_long(argc, argv, "max_bytes", 4194304, 1, 268435456);
    int trips = (int)pr_arg_long(argc, argv, "trips", 100, 1, 1000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("task4: a ring of %d rank%s passing %ld numbers each, and a ping-pong up to %ld "
               "bytes (seed %llu)\n",
               size, size == 1 ? "" : "s", len, max_bytes, (unsigned long long)seed);

    ring_part(len, seed, rank, size);
    pingpong_part(max_bytes, trips, rank, size);

    int rc = pr_finish();
    MPI_Finalize();
    return rc;
}
