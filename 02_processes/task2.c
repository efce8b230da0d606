/*
 * Room 02, task 2: a process pool with map, starmap and apply_async.
 *
 * A pool of `workers` child processes, started once and then used for many
 * calls, shaped like Python's multiprocessing.Pool:
 *
 *   pool_map(pool, f, xs)          f(x) for every x, results in input order
 *   pool_starmap(pool, g, pairs)   g(a, b) for every pair (a, b)
 *   h = pool_apply_async(pool, f, x); ...; pool_get(pool, h)
 *                                  one call, started now, collected later
 *
 * Every worker has two pipes: requests go down one ("run function 1 on these
 * arguments; this is job 17"), replies come back up the other ("job 17 gave
 * 42").  The parent hands a job to whichever worker is free,
 * watches all reply pipes at once with poll(), and stores each reply under the
 * job number it carries, so results land in input order whatever order they
 * arrive in.
 *
 * One input of the map is bad on purpose: f(0) crashes its worker with
 * SIGSEGV (think of a NULL pointer dereference in f).  A thread would take the
 * whole program down with it; a worker process only takes itself.  The pool
 * sees end-of-file on that worker's reply pipe, reaps it with waitpid(), which
 * tells it that SIGSEGV ended the worker, reports that one item as failed,
 * starts a replacement worker, and finishes everything else.
 *
 *   TODO 1: a worker's whole life: serve requests until the pool closes.
 *   TODO 2: a reply lands where it belongs, or the pool refuses it.
 *   TODO 3: a worker died: the pool learns how, and carries on at full strength.
 *
 * The rest of the pool (starting workers, dispatch, the poll() loop, map,
 * starmap, closing) is in pool.h, written for you: read it too.
 *
 * Read first: README.md, "Waiting for a child: waitpid", "Isolation, concretely",
 *             "A pipe between parent and child", "A process pool: map, starmap, apply_async".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task2 task2.c -pthread -lm
 *   ./task2 workers=4
 * Grade it from the top folder:  make grade TASK=02_processes/task2
 */
#include "pr.h"
#include "procs.h" /* MAX_WORKERS, die, read_full, write_full, signal_name: the room's plumbing */

/* ---- The functions the pool runs ---- */

/* A pipe carries bytes, not C functions, so a request names its function by
 * number, an index into call()'s table (Python's multiprocessing does the
 * same in spirit: it pickles a function as its module and name). */
enum { FN_SIGMA, FN_POWMOD };

/* How much work one call does.  main sets it before the pool starts; every
 * worker, forked afterwards, gets a copy of it with the rest of the memory. */
static long g_work = 1;

/* sigma(x): the sum of the divisors of x (sigma(12) = 1+2+3+4+6+12 = 28). */
static int64_t sigma(int64_t x)
{
    int64_t s = 0;
    for (int64_t d = 1; d * d <= x; d++)
        if (x % d == 0)
            s += d == x / d ? d : d + x / d;
    return s;
}

/* f(x) for the map: sigma(x) + sigma(x+1) + ... over g_work numbers.  It was
 * only ever meant for x >= 1, and it has a bug: for x <= 0 it crashes.  A real
 * bug would dereference a NULL pointer here; raise(SIGSEGV) does what that
 * does, without the undefined behaviour. */
static int64_t f_sigma(int64_t x)
{
    if (x <= 0) {
        raise(SIGSEGV);
        return -1; /* not reached: SIGSEGV ends the process */
    }
    int64_t s = 0;
    for (long k = 0; k < g_work; k++)
        s += sigma(x + k);
    return s;
}

/* g(a, b) for the starmap: a^b mod P (P = 2^32 - 5, a prime), summed over
 * g_work bases a, a+1, ...  Every product stays below 2^64. */
#define P 4294967291u
static int64_t g_powmod(int64_t a, int64_t b)
{
    uint64_t s = 0;
    for (long k = 0; k < g_work; k++) {
        uint64_t base = (uint64_t)(a + k) % P, e = (uint64_t)b, r = 1;
        while (e > 0) {
            if (e & 1)
                r = r * base % P;
            base = base * base % P;
            e >>= 1;
        }
        s += r;
    }
    return (int64_t)s;
}

/* Runs function number fn on (a, b), in a worker. */
static int64_t call(int64_t fn, int64_t a, int64_t b)
{
    return fn == FN_SIGMA ? f_sigma(a) : g_powmod(a, b);
}

/* ---- Messages ---- */

typedef struct {
    int64_t id;   /* the job number: the reply carries it back */
    int64_t fn;   /* FN_SIGMA or FN_POWMOD */
    int64_t a, b; /* the arguments (b is unused by f) */
} request_t;

typedef struct {
    int64_t id;    /* the job number of the request it answers: its tag */
    int64_t value; /* what the function returned */
} reply_t;

/* ---- The pool's state ---- */

enum job_state { JOB_QUEUED, JOB_RUNNING, JOB_DONE, JOB_FAILED };

typedef struct {
    int64_t fn, a, b;     /* what to run */
    enum job_state state; /* QUEUED -> RUNNING -> DONE or FAILED */
    int64_t value;        /* DONE: the function's value */
    int signal;           /* FAILED: the signal that killed its worker, or 0 */
    int exit_code;        /* FAILED without a signal: the worker's exit status, or -1 */
} job_t;

typedef struct {
    pid_t pid;  /* 0: no worker in this slot */
    int req_fd; /* the parent writes requests here */
    int rep_fd; /* the parent reads replies here */
    long job;   /* the job it is running, or -1 when idle */
} worker_t;

typedef struct {
    int nworkers;
    worker_t w[MAX_WORKERS];
    job_t *jobs;   /* every job ever submitted; its index is its id */
    long njobs, capacity;
    long next;     /* jobs[next .. njobs-1] are queued, in submission order */
    long restarts; /* workers started to replace dead ones */
    pid_t *forked; /* every worker ever forked, for the final safety sweep */
    long nforked;
} pool_t;

/* The rest of the pool, made for the types above (spawn_worker, dispatch, the
 * poll() loop, map, starmap, pool_close...); it calls the three functions below. */
#include "pool.h"

/* Runs in a worker: answer requests until the request pipe says end-of-file
 * (the parent closed it: no more work), then return, which ends the worker. */
static void worker_main(int req_fd, int rep_fd)
{
    // TODO 1: Serve requests one at a time, each answered by exactly one
    //         reply that carries the request's job number back (its tag) and
    //         the function's value, until the parent closes the request pipe
    //         (then return: the caller ends the process).  If a reply cannot
    //         be sent, the parent is gone: stop as well.  The message types and
    //         the function table are above; see "A process pool: map,
    //         starmap, apply_async".
    (void)req_fd; /* TODO 1: serve requests until the pool closes */
    (void)rep_fd;
    (void)call;   /* (only silences an "unused" warning) */
}

/* A reply arrived from worker s (the worker in p->w[s]); rp is the reply. */
static void store_reply(pool_t *p, int s, const reply_t *rp)
{
    // TODO 2: A reply belongs in the job its tag names, never in the order
    //         replies arrive (the map's checksum depends on it).  It must also
    //         answer the job this worker was given: any other tag is a protocol
    //         error the pool cannot repair, so report it on the error stream
    //         and end the program with a failure.  Afterwards the job is
    //         finished, with its value (the pool marks the worker idle itself).
    (void)p;  /* TODO 2: the reply into the job it names */
    (void)s;
    (void)rp;
}

/* Worker s's reply pipe said end-of-file: the worker died (every descriptor of
 * a process that ends is closed by the kernel, and its pipe's write end was
 * held by nobody else).  It died while running job p->w[s].job. */
static void on_worker_died(pool_t *p, int s)
{
    worker_t *wk = &p->w[s];
    job_t *job = &p->jobs[wk->job];
    pid_t pid = wk->pid;
    close(wk->req_fd);
    close(wk->rep_fd);
    *wk = (worker_t){ 0, -1, -1, -1 }; /* the slot is empty now */
    job->state = JOB_FAILED;
    job->signal = 0;
    job->exit_code = -1;

    // TODO 3: The job is marked failed already; the worker is dead but not
    //         yet reaped.  Reap it (an interrupted wait is retried), and record
    //         in the job how it ended: killed by a signal, or exited with a
    //         code (the job's fields say where each goes; the result
    //         map_failed_how is made from them).  Then the slot gets a fresh
    //         worker, counted as a restart (result workers_restarted).  See
    //         "fork, exit and wait" and "Isolation, concretely".
    (void)pid; /* TODO 3: the dead worker: reaped, its end recorded, replaced */
}

/* ---- no need to change below ---- */

int main(int argc, char **argv)
{
    int workers = (int)pr_arg_long(argc, argv, "workers", default_workers(), 1, MAX_WORKERS);
    long items = (long)pr_arg_long(argc, argv, "items", 1000, 1, 100000);
    g_work = (long)pr_arg_long(argc, argv, "work", 200, 1, 100000); /* before the fork */
    long crash = (long)pr_arg_long(argc, argv, "crash", 5, -1, 100000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    run_t r; /* inputs, outcomes, reference, timings: see pool.h */
    make_inputs(&r, items, crash < items ? crash : -1, seed); /* -1: no bad item */
    printf("task2: a pool of %d worker process%s; map and starmap over %ld items, work=%ld "
           "(seed %llu)\n", workers, workers == 1 ? "" : "es", items, g_work, (unsigned long long)seed);
    if (r.crash >= 0)
        printf("  item %ld of the map is 0: f(0) will crash the worker that runs it\n", r.crash);
    r.t_serial = pr_best_of(3, run_serial, &r);

    pool_t pool;
    double t0 = pr_now();
    pool_open(&pool, workers);
    r.t_open = pr_now() - t0;
    long h = pool_apply_async(&pool, FN_SIGMA, r.async_x);
    printf("  apply_async(f, %lld) returned handle %ld at once; a worker is on it\n",
           (long long)r.async_x, h);
    t0 = pr_now();
    pool_map(&pool, FN_SIGMA, r.xs, items, r.map_out);
    pool_starmap(&pool, FN_POWMOD, r.a, r.b, items, r.star_out);
    r.t_pool = pr_now() - t0;
    pool_get(&pool, h, &r.async_out);
    r.restarts = pool.restarts;
    pool_close(&pool);
    r.left = children_left();
    sweep(&pool);

    report(&r);
    free_run(&r);
    return pr_finish();
}
