/*
 * Room 02, task 4: shared memory between processes.
 *
 * For each of n numbers, count the steps of its Collatz sequence (x -> x/2 if
 * x is even, 3x+1 if odd, until x = 1), with several child processes.  They
 * write straight into one region of memory, made before the fork, that the
 * parent sees too: the output array, where each child fills its own chunk (no
 * locking needed), and a running sum that every child adds to, block by block,
 * under a lock that works between processes: a POSIX semaphore in the region.
 *
 *   TODO 1: a region the children and the parent really share, with its lock.
 *   TODO 2: one block's contribution to the running sum, never lost.
 *
 * Read first: README.md, "What fork copies: copy-on-write", "Shared memory: mmap and a process-shared semaphore".
 *
 * Untouched, the region is private (MAP_PRIVATE): the parent sees only zeros.
 * The program also shows that on purpose, and a race between processes.
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task4 task4.c -pthread -lm
 *   ./task4 workers=4 n=1000003
 * Grade it from the top folder:  make grade TASK=02_processes/task4
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS; it must come before every #include */
#include "pr.h"
#include "procs.h" /* MAX_WORKERS, chunk_of, die, fork_child...: the room's plumbing */

#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <sys/mman.h>

/* Everything the processes share, in one mapping.  The atomics are lock-free
 * (checked below), so they work between processes too. */
typedef struct {
    sem_t lock;            /* a semaphore used as a lock: 1 = free, 0 = taken */
    int64_t total;         /* the sum of all step counts: updated under `lock` */
    long updates;          /* how many times `total` was updated: under `lock` */
    _Atomic long finished; /* children that finished their chunk: a C11 atomic */
    _Atomic long racy;     /* the race demonstration's counter: NO lock, on purpose */
    _Atomic long gate;     /* the race demonstration: children at its start line */
    _Atomic long tried;    /* the race demonstration: increments the children made */
    int64_t out[];         /* out[i]: the step count of in[i]; child w fills its chunk */
} shared_t;

_Static_assert(ATOMIC_LONG_LOCK_FREE == 2, "lock-free atomics are needed between processes");

/* A private region of the same layout: what fork gives every child by default.
 * Used by the demonstration below (and by the untouched TODO 1). */
static shared_t *map_private(size_t bytes)
{
    shared_t *sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        die("mmap");
    return sh;
}

/* Returns a new region of `bytes` bytes (zero-filled, as mmap gives it) that
 * the parent and every child forked afterwards share, with sh->lock ready. */
static shared_t *create_shared(size_t bytes)
{
    //@ TODO 1: As it stands, each child writes into its own copy of the
    //@         region and the parent sees zeros (run it and see).  Make a
    //@         region of the requested size that every process forked later
    //@         shares with the parent, and ready its semaphore as a lock, free
    //@         at the start, valid between processes.  A failure of either
    //@         step ends the program with a message.  The lesson's "Shared
    //@         memory: mmap and a process-shared semaphore" shows how.
    //@ placeholder: shared_t *sh = map_private(bytes); /* TODO 1: not yet a region the parent sees */
    //@ placeholder: sem_init(&sh->lock, 0, 1);        /* TODO 1: not yet a lock between processes */
    //@ solution {
    shared_t *sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        die("mmap");
    if (sem_init(&sh->lock, 1, 1) != 0)
        die("sem_init");
    //@ }
    return sh;
}

/* Adds one block's partial sum to the shared total.  Every child calls it
 * once per block, so children really do arrive here at the same time. */
static void add_to_total(shared_t *sh, int64_t partial)
{
    //@ TODO 2: Add the block's sum to the shared running sum and count the
    //@         update, so that no update is ever lost when children arrive at
    //@         once (the results and the check "updates of the total" depend
    //@         on it): the read-add-write must happen under the region's lock,
    //@         taken and given back around it.  Taking it can be interrupted
    //@         by a signal: that is no error, try again; a real error ends the
    //@         child with a failure.
    //@ placeholder: (void)sh;      /* TODO 2: the block's sum into the shared sum, under the lock */
    //@ placeholder: (void)partial;
    //@ solution {
    while (sem_wait(&sh->lock) != 0)
        if (errno != EINTR) {
            perror("sem_wait");
            _exit(1);
        }
    sh->total += partial;
    sh->updates++;
    sem_post(&sh->lock);
    //@ }
}

/* ---- no need to change below ---- */

/* The number of Collatz steps from x (>= 1) down to 1. */
static int64_t steps(int64_t x)
{
    int64_t s = 0;
    for (; x != 1; s++)
        x = (x & 1) ? 3 * x + 1 : x / 2;
    return s;
}

typedef struct {
    const int64_t *in;
    long n, block;
    int workers;
    int racy; /* 1: the race demonstration instead of the real work */
} job_t;

/* A child's work: its chunk of out[], with one shared update per block. */
static void child_work(const job_t *jb, shared_t *sh, long lo, long hi)
{
    if (jb->racy) {
        /* RACY ON PURPOSE (room 01's task 3): a separate load and store, so updates are lost
         * when processes interleave.  The children start together (waiting a second at most)
         * and go on for 20 ms, longer than a time slice: a busy machine switches them too. */
        (void)lo, (void)hi;
        atomic_fetch_add(&sh->gate, 1);
        for (double until = pr_now() + 1.0; atomic_load(&sh->gate) < jb->workers && pr_now() < until;)
            sched_yield();
        long mine = 0;
        double until = pr_now() + 0.02;
        do {
            for (int k = 0; k < 1024; k++) {
                long old = atomic_load_explicit(&sh->racy, memory_order_relaxed);
                atomic_store_explicit(&sh->racy, old + 1, memory_order_relaxed);
            }
            mine += 1024;
        } while (pr_now() < until);
        atomic_fetch_add(&sh->tried, mine);
        return;
    }
    for (long start = lo; start < hi; start += jb->block) {
        long end = start + jb->block < hi ? start + jb->block : hi;
        int64_t partial = 0;
        for (long i = start; i < end; i++) {
            sh->out[i] = steps(jb->in[i]);
            partial += sh->out[i];
        }
        add_to_total(sh, partial);
    }
}

/* A clean region: every count and every output 0. */
static void reset(shared_t *sh, long n)
{
    sh->total = 0;
    sh->updates = 0;
    atomic_store(&sh->finished, 0);
    atomic_store(&sh->racy, 0);
    atomic_store(&sh->gate, 0);
    atomic_store(&sh->tried, 0);
    memset(sh->out, 0, (size_t)n * sizeof sh->out[0]);
}

/* Cleans the region, forks one child per chunk (the chunks of room 01's task
 * 1), waits for them all, and returns how many exited cleanly.  The children
 * start together: each first waits for end-of-file on a "starting gun" pipe,
 * which comes when the parent, having forked them all, closes its write end
 * (or the first child could be done before the last one is even forked). */
static int run_children(const job_t *jb, shared_t *sh)
{
    pid_t pid[MAX_WORKERS];
    int gun[2];
    reset(sh, jb->n);
    make_pipe(gun);
    for (int w = 0; w < jb->workers; w++) {
        long lo, hi;
        chunk_of(jb->n, jb->workers, w, &lo, &hi);
        pid[w] = fork_child();
        if (pid[w] == 0) {
            char c;
            close(gun[1]); /* its own copy of the write end would keep the pipe open */
            while (read(gun[0], &c, 1) < 0 && errno == EINTR)
                continue; /* returns 0, end-of-file, when the parent closes its end */
            close(gun[0]);
            child_work(jb, sh, lo, hi);
            atomic_fetch_add(&sh->finished, 1); /* one indivisible step: no lock needed */
            _exit(0);
        }
    }
    close(gun[0]);
    close(gun[1]); /* bang: every child's read returns */
    /* After waitpid returns, everything the child wrote to shared memory is
     * visible to the parent, just as after pthread_join. */
    int clean = 0;
    for (int w = 0; w < jb->workers; w++) {
        int status = 0;
        if (waitpid(pid[w], &status, 0) == pid[w] && WIFEXITED(status) && WEXITSTATUS(status) == 0)
            clean++;
    }
    return clean;
}

/* For pr_best_of. */
typedef struct {
    job_t jb;
    shared_t *sh;
    int64_t *ref; /* the serial version's output */
    volatile int clean;
} run_t;

static void run_serial(void *ctx)
{
    run_t *r = ctx;
    for (long i = 0; i < r->jb.n; i++)
        r->ref[i] = steps(r->jb.in[i]);
}

static void run_shared(void *ctx)
{
    run_t *r = ctx;
    r->clean = run_children(&r->jb, r->sh);
}

/* An order-sensitive checksum of an output array. */
static long long checksum(const int64_t *v, long n)
{
    long long h = 0;
    for (long i = 0; i < n; i++)
        h += (long long)(i + 1) * v[i];
    return h;
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 1000000, 1, 20000000);
    int workers = (int)pr_arg_long(argc, argv, "workers", default_workers(), 1, MAX_WORKERS);
    long block = (long)pr_arg_long(argc, argv, "block", 1000, 1, 20000000);
    int race = (int)pr_arg_long(argc, argv, "race", 1, 0, 1);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int64_t *in = calloc_or_die((size_t)n, sizeof *in);
    int64_t *ref = calloc_or_die((size_t)n, sizeof *ref);
    pr_rng rng = pr_rng_seed(seed, 1);
    for (long i = 0; i < n; i++)
        in[i] = pr_rng_range(&rng, 1, 1000000);

    printf("task4: Collatz steps of n=%ld numbers, workers=%d processes sharing memory, "
           "block=%ld (seed %llu)\n", n, workers, block, (unsigned long long)seed);

    size_t bytes = sizeof(shared_t) + (size_t)n * sizeof(int64_t);
    run_t r = { { in, n, block, workers, 0 }, NULL, ref, 0 };
    double t_serial = pr_best_of(3, run_serial, &r);

    shared_t *sh = r.sh = create_shared(bytes);
    double t_shared = pr_best_of(3, run_shared, &r);

    /* What the last run left in the region, seen from the parent; the reference. */
    long long sum_out = 0, ref_total = 0;
    for (long i = 0; i < n; i++) {
        sum_out += sh->out[i];
        ref_total += ref[i];
    }
    long expected_updates = 0;
    for (int w = 0; w < workers; w++) {
        long lo, hi;
        chunk_of(n, workers, w, &lo, &hi);
        expected_updates += (hi - lo + block - 1) / block; /* one per block begun */
    }
    pr_check_int("output checksum", checksum(sh->out, n), checksum(ref, n));
    pr_check_int("shared total", sh->total, ref_total);
    pr_check_int("shared total = sum of out[]", sh->total, sum_out);
    pr_check_int("updates of the total", sh->updates, expected_updates);
    pr_check_int("children finished", atomic_load(&sh->finished), workers);
    pr_check_int("children exited cleanly", r.clean, workers);
    pr_result_int("out_checksum", checksum(sh->out, n));
    pr_result_int("total", sh->total);

    pr_print_time("serial", t_serial, 0, NULL);
    char what[64];
    snprintf(what, sizeof what, "%d process%s, shared", workers, workers == 1 ? "" : "es");
    pr_print_time(what, t_shared, t_serial, "serial");

    /* Demonstration 1: the same children on a PRIVATE mapping. */
    shared_t *priv = map_private(bytes);
    sem_init(&priv->lock, 0, 1); /* each child gets its own copy anyway */
    run_children(&r.jb, priv);
    printf("  with MAP_PRIVATE instead: the parent sees total = %lld, out checksum = %lld, "
           "finished = %ld\n    (every child wrote into its own copy-on-write copy, and the "
           "copies vanished with the children)\n",
           (long long)priv->total, checksum(priv->out, n), atomic_load(&priv->finished));
    sem_destroy(&priv->lock);
    munmap(priv, bytes);

    /* Demonstration 2: a race between processes (printed, never a result). */
    if (race) {
        r.jb.racy = 1;
        run_children(&r.jb, sh);
        long got = atomic_load(&sh->racy), tried = atomic_load(&sh->tried);
        printf("  race: %ld unprotected increments of one shared counter (20 ms a child) gave %ld: "
               "%ld lost\n", tried, got, tried - got);
    }

    sem_destroy(&sh->lock);
    munmap(sh, bytes);
    free(in);
    free(ref);
    return pr_finish();
}
