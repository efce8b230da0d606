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
 * Read first: README.md, "Isolation, concretely", "File descriptors and pipes", "A process pool: map, starmap, apply_async".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading -o task2 task2.c -pthread -lm
 *   ./task2 workers=4
 * Grade it from the top folder:  make grade TASK=02_processes/task2
 */
#include "pr.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_WORKERS 64

/* ------------------------------------------------------------------------- */
/* The functions the pool runs                                                */
/* ------------------------------------------------------------------------- */

/* A pipe carries bytes, not C functions, so a request names its function by
 * number, an index into call()'s table (Python's multiprocessing does the
 * same in spirit: it pickles a function as its module and name). */
enum { FN_SIGMA, FN_POWMOD };

/* How much work one call does.  main sets it before the pool starts; every
 * worker, forked afterwards, gets a copy of it with the rest of the memory. */
static long g_work = 1;

/* sigma(x): the sum of the divisors of x (sigma(12) = 1+2+3+4+6+12 = 28), by
 * trial division up to sqrt(x). */
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

/* ------------------------------------------------------------------------- */
/* Messages, and pipes that always move whole messages                        */
/* ------------------------------------------------------------------------- */

typedef struct {
    int64_t id;   /* the job number: the reply carries it back */
    int64_t fn;   /* FN_SIGMA or FN_POWMOD */
    int64_t a, b; /* the arguments (b is unused by f) */
} request_t;

typedef struct {
    int64_t id;    /* the job number of the request it answers: its tag */
    int64_t value; /* what the function returned */
} reply_t;

/* Writes all len bytes (a write may be short, or interrupted: write the rest).
 * Returns 0, or -1 on an error such as EPIPE: nobody reads the pipe any more. */
static int write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads len bytes, fewer only at end-of-file.  Returns the count, or -1. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, p + got, len - got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

/* ------------------------------------------------------------------------- */
/* The pool                                                                   */
/* ------------------------------------------------------------------------- */

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

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* Runs in a worker: answer requests until the request pipe says end-of-file
 * (the parent closed it: no more work), then return, which ends the worker. */
static void worker_main(int req_fd, int rep_fd)
{
    //@ TODO 1: Serve requests one at a time, each answered by exactly one
    //@         reply that carries the request's job number back (its tag) and
    //@         the function's value, until the parent closes the request pipe
    //@         (then return: the caller ends the process).  If a reply cannot
    //@         be sent, the parent is gone: stop as well.  The message types and
    //@         the function table are above; see "A process pool: map,
    //@         starmap, apply_async".
    //@ placeholder: (void)req_fd; /* TODO 1: serve requests until the pool closes */
    //@ placeholder: (void)rep_fd;
    //@ placeholder: (void)call;   /* (only silences an "unused" warning) */
    //@ solution {
    request_t rq;
    while (read_full(req_fd, &rq, sizeof rq) == (ssize_t)sizeof rq) {
        reply_t rp = { rq.id, call(rq.fn, rq.a, rq.b) };
        if (write_full(rep_fd, &rp, sizeof rp) != 0)
            break;
    }
    //@ }
}

/* Starts a worker in slot s: two pipes, fork.  The child keeps the read end of
 * the request pipe and the write end of the reply pipe, and nothing else. */
static void spawn_worker(pool_t *p, int s)
{
    int req[2], rep[2];
    if (pipe(req) != 0 || pipe(rep) != 0)
        die("pipe");
    fflush(stdout); /* or the child would inherit, and later print, pending output */
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        close(req[1]);
        close(rep[0]);
        /* The parent's ends of the OTHER workers' pipes were copied into this
         * child too.  Close them: a worker holding another worker's request
         * pipe open would keep that worker from ever seeing end-of-file. */
        for (int k = 0; k < p->nworkers; k++)
            if (k != s && p->w[k].pid > 0) {
                close(p->w[k].req_fd);
                close(p->w[k].rep_fd);
            }
        /* The crash is on purpose: do not leave a core file for it. */
        struct rlimit no_core = { 0, 0 };
        setrlimit(RLIMIT_CORE, &no_core);
        worker_main(req[0], rep[1]);
        _exit(0); /* never return into the parent's code; never flush its stdio */
    }
    close(req[0]);
    close(rep[1]);
    p->w[s] = (worker_t){ pid, req[1], rep[0], -1 };
    pid_t *grown = realloc(p->forked, (size_t)(p->nforked + 1) * sizeof *grown);
    if (!grown)
        die("realloc");
    p->forked = grown;
    p->forked[p->nforked++] = pid;
}

/* A reply arrived from worker s (the worker in p->w[s]); rp is the reply. */
static void store_reply(pool_t *p, int s, const reply_t *rp)
{
    //@ TODO 2: A reply belongs in the job its tag names, never in the order
    //@         replies arrive (the map's checksum depends on it).  It must also
    //@         answer the job this worker was given: any other tag is a protocol
    //@         error the pool cannot repair, so report it on the error stream
    //@         and end the program with a failure.  Afterwards the job is
    //@         finished, with its value (the pool marks the worker idle itself).
    //@ placeholder: (void)p;  /* TODO 2: the reply into the job it names */
    //@ placeholder: (void)s;
    //@ placeholder: (void)rp;
    //@ solution {
    if (rp->id != p->w[s].job) {
        fprintf(stderr, "pool: worker %d answered job %lld, but it was running job %ld\n", s,
                (long long)rp->id, p->w[s].job);
        exit(1);
    }
    job_t *job = &p->jobs[rp->id];
    job->value = rp->value;
    job->state = JOB_DONE;
    //@ }
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

    //@ TODO 3: The job is marked failed already; the worker is dead but not
    //@         yet reaped.  Reap it (an interrupted wait is retried), and record
    //@         in the job how it ended: killed by a signal, or exited with a
    //@         code (the job's fields say where each goes; the result
    //@         map_failed_how is made from them).  Then the slot gets a fresh
    //@         worker, counted as a restart (result workers_restarted).  See
    //@         "fork, exit and wait" and "Isolation, concretely".
    //@ placeholder: (void)pid; /* TODO 3: the dead worker: reaped, its end recorded, replaced */
    //@ solution {
    int status = 0;
    pid_t r;
    do
        r = waitpid(pid, &status, 0);
    while (r < 0 && errno == EINTR);
    if (r == pid) {
        if (WIFSIGNALED(status))
            job->signal = WTERMSIG(status);
        else if (WIFEXITED(status))
            job->exit_code = WEXITSTATUS(status);
    }
    spawn_worker(p, s);
    p->restarts++;
    //@ }
}

/* ---- no need to change below ---- */

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS:  return "SIGBUS";
    case SIGFPE:  return "SIGFPE";
    case SIGILL:  return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGPIPE: return "SIGPIPE";
    case SIGINT:  return "SIGINT";
    default:      return "another_signal";
    }
}

/* How a failed job's worker ended, in words: "SIGSEGV", "exit 3", "unknown". */
static void describe_failure(const job_t *job, char *buf, size_t len)
{
    if (job->signal > 0)
        snprintf(buf, len, "%s", signal_name(job->signal));
    else if (job->exit_code >= 0)
        snprintf(buf, len, "exit_%d", job->exit_code);
    else
        snprintf(buf, len, "unknown");
}

static void pool_open(pool_t *p, int nworkers)
{
    memset(p, 0, sizeof *p);
    /* Writing to a pipe whose reader has died raises SIGPIPE, which would end
     * the parent.  Ignored, the write fails with EPIPE instead, and the pool
     * learns of the death from the reply pipe's end-of-file. */
    signal(SIGPIPE, SIG_IGN);
    p->nworkers = nworkers;
    for (int s = 0; s < nworkers; s++)
        p->w[s] = (worker_t){ 0, -1, -1, -1 };
    for (int s = 0; s < nworkers; s++)
        spawn_worker(p, s);
}

/* Queues a job and returns its id. */
static long submit(pool_t *p, int64_t fn, int64_t a, int64_t b)
{
    if (p->njobs == p->capacity) {
        p->capacity = p->capacity ? 2 * p->capacity : 256;
        job_t *grown = realloc(p->jobs, (size_t)p->capacity * sizeof *grown);
        if (!grown)
            die("realloc");
        p->jobs = grown;
    }
    p->jobs[p->njobs] = (job_t){ fn, a, b, JOB_QUEUED, 0, 0, -1 };
    return p->njobs++;
}

static int live_workers(const pool_t *p)
{
    int live = 0;
    for (int s = 0; s < p->nworkers; s++)
        live += p->w[s].pid > 0;
    return live;
}

static int busy_workers(const pool_t *p)
{
    int busy = 0;
    for (int s = 0; s < p->nworkers; s++)
        busy += p->w[s].pid > 0 && p->w[s].job >= 0;
    return busy;
}

/* Hands queued jobs, oldest first, to idle workers: one job per worker at a
 * time, so a worker that finishes early simply gets the next one (dynamic
 * scheduling, as in room 01). */
static void dispatch(pool_t *p)
{
    for (int s = 0; s < p->nworkers && p->next < p->njobs; s++) {
        worker_t *wk = &p->w[s];
        if (wk->pid <= 0 || wk->job >= 0)
            continue; /* an empty slot, or busy */
        long id = p->next++;
        job_t *job = &p->jobs[id];
        request_t rq = { id, job->fn, job->a, job->b };
        job->state = JOB_RUNNING;
        wk->job = id;
        /* If this fails (EPIPE), the worker has died already; its reply pipe
         * will say end-of-file and on_worker_died will record the failure. */
        (void)write_full(wk->req_fd, &rq, sizeof rq);
    }
    /* Without a single live worker, queued jobs would wait forever: fail them. */
    if (live_workers(p) == 0)
        while (p->next < p->njobs)
            p->jobs[p->next++].state = JOB_FAILED;
}

/* Reads one reply from worker s, or learns that it died. */
static void handle_reply(pool_t *p, int s)
{
    reply_t rp;
    ssize_t got = read_full(p->w[s].rep_fd, &rp, sizeof rp);
    if (got != (ssize_t)sizeof rp) {
        on_worker_died(p, s);
        return;
    }
    store_reply(p, s, &rp);
    p->w[s].job = -1; /* idle: dispatch gives it the next job */
}

/* One round: hand out jobs, wait until some worker has something to say (a
 * reply, or end-of-file because it died), and handle what it said. */
static void pool_step(pool_t *p)
{
    dispatch(p);
    struct pollfd pfd[MAX_WORKERS];
    int slot[MAX_WORKERS], k = 0;
    for (int s = 0; s < p->nworkers; s++)
        if (p->w[s].pid > 0 && p->w[s].job >= 0) {
            pfd[k] = (struct pollfd){ p->w[s].rep_fd, POLLIN, 0 };
            slot[k++] = s;
        }
    if (k == 0)
        return;
    if (poll(pfd, (nfds_t)k, -1) < 0) {
        if (errno == EINTR)
            return;
        die("poll");
    }
    for (int i = 0; i < k; i++)
        if (pfd[i].revents != 0) /* POLLIN: a reply; POLLHUP: end-of-file */
            handle_reply(p, slot[i]);
}

static int job_finished(const job_t *job)
{
    return job->state == JOB_DONE || job->state == JOB_FAILED;
}

/* Works until jobs first .. last-1 are finished, or nothing is left that could
 * finish them (no job queued, no worker busy): then it returns anyway, so a
 * broken pool ends instead of waiting forever. */
static void pool_wait(pool_t *p, long first, long last)
{
    for (;;) {
        long open = 0;
        for (long id = first; id < last; id++)
            open += !job_finished(&p->jobs[id]);
        if (open == 0 || (p->next == p->njobs && busy_workers(p) == 0))
            return;
        pool_step(p);
    }
}

/* What a caller gets back for one item. */
typedef struct {
    int ok;        /* 1: value is the function's value; 0: the item failed */
    int64_t value;
    char how[32];  /* when it failed: how its worker ended */
} outcome_t;

static void take_outcome(const pool_t *p, long id, outcome_t *out)
{
    const job_t *job = &p->jobs[id];
    out->ok = job->state == JOB_DONE;
    out->value = out->ok ? job->value : 0;
    if (job->state == JOB_FAILED)
        describe_failure(job, out->how, sizeof out->how);
    else
        snprintf(out->how, sizeof out->how, out->ok ? "ok" : "no_answer");
}

/* map(f, xs): out[i] = f(xs[i]) for i in [0, n), in input order. */
static void pool_map(pool_t *p, int64_t fn, const int64_t *xs, long n, outcome_t *out)
{
    long first = p->njobs;
    for (long i = 0; i < n; i++)
        submit(p, fn, xs[i], 0);
    pool_wait(p, first, first + n);
    for (long i = 0; i < n; i++)
        take_outcome(p, first + i, &out[i]);
}

/* starmap(g, pairs): out[i] = g(a[i], b[i]). */
static void pool_starmap(pool_t *p, int64_t fn, const int64_t *a, const int64_t *b, long n, outcome_t *out)
{
    long first = p->njobs;
    for (long i = 0; i < n; i++)
        submit(p, fn, a[i], b[i]);
    pool_wait(p, first, first + n);
    for (long i = 0; i < n; i++)
        take_outcome(p, first + i, &out[i]);
}

/* apply_async(f, x): starts one call and returns a handle at once. */
static long pool_apply_async(pool_t *p, int64_t fn, int64_t x)
{
    long id = submit(p, fn, x, 0);
    dispatch(p); /* a free worker starts on it right away */
    return id;
}

/* get(handle): waits for that call, if it has not finished already. */
static void pool_get(pool_t *p, long handle, outcome_t *out)
{
    pool_wait(p, handle, handle + 1);
    take_outcome(p, handle, out);
}

/* Closing a worker's request pipe is its signal to stop: its next read
 * returns end-of-file, its loop ends and it exits.  Close every request pipe
 * first, then wait for every worker. */
static void pool_close(pool_t *p)
{
    for (int s = 0; s < p->nworkers; s++)
        if (p->w[s].pid > 0)
            close(p->w[s].req_fd);
    for (int s = 0; s < p->nworkers; s++) {
        worker_t *wk = &p->w[s];
        if (wk->pid <= 0)
            continue;
        int status = 0;
        while (waitpid(wk->pid, &status, 0) < 0 && errno == EINTR)
            continue;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            printf("  worker %d did not exit cleanly (wait status %#x)\n", s, (unsigned)status);
        close(wk->rep_fd);
        *wk = (worker_t){ 0, -1, -1, -1 };
    }
    free(p->jobs);
    p->jobs = NULL;
}

/* How many children this process still has.  waitpid(-1, ..., WNOHANG)
 * returns a child that has ended and not been reaped (a zombie), 0 when
 * children exist but all are still running, and -1 with errno ECHILD when
 * there is no child at all: the only answer that gives 0 here. */
static int children_left(void)
{
    int left = 0;
    pid_t r;
    while ((r = waitpid(-1, NULL, WNOHANG)) > 0)
        left++;
    if (r == 0)
        left++; /* at least one is still running */
    else if (errno != ECHILD)
        perror("waitpid");
    return left;
}

/* The safety net, after the count above: stops any worker that is still
 * running, so that nothing outlives the program whatever state the pool is in.
 * (waitpid(pid, WNOHANG) == 0 proves pid is still our running child, so kill
 * cannot hit an unrelated process that reuses a reaped worker's number.) */
static void sweep(pool_t *p)
{
    for (long i = 0; i < p->nforked; i++)
        if (waitpid(p->forked[i], NULL, WNOHANG) == 0) {
            kill(p->forked[i], SIGKILL);
            waitpid(p->forked[i], NULL, 0);
        }
    free(p->forked);
    p->forked = NULL;
}

/* An order-sensitive checksum of the items that worked: moving a value to
 * another position changes it. */
static long long checksum(const outcome_t *o, long n)
{
    uint64_t h = 0;
    for (long i = 0; i < n; i++)
        if (o[i].ok)
            h = h * 1000003u + (uint64_t)o[i].value + (uint64_t)i;
    return (long long)(h >> 1);
}

typedef struct {
    const int64_t *xs, *a, *b;
    long n, crash;
    outcome_t *map, *star;
} serial_t;

/* The serial reference: the same functions, called directly.  It must skip
 * the bad item: f(0) here would crash this very program. */
static void run_serial(void *ctx)
{
    serial_t *r = ctx;
    for (long i = 0; i < r->n; i++) {
        r->map[i].ok = i != r->crash;
        r->map[i].value = i != r->crash ? f_sigma(r->xs[i]) : 0;
        r->star[i].ok = 1;
        r->star[i].value = g_powmod(r->a[i], r->b[i]);
    }
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long default_workers = cores < 1 ? 1 : cores > MAX_WORKERS ? MAX_WORKERS : cores;
    int workers = (int)pr_arg_long(argc, argv, "workers", default_workers, 1, MAX_WORKERS);
    long items = (long)pr_arg_long(argc, argv, "items", 1000, 1, 100000);
    long work = (long)pr_arg_long(argc, argv, "work", 200, 1, 100000);
    long crash = (long)pr_arg_long(argc, argv, "crash", 5, -1, 100000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    g_work = work;
    if (crash >= items)
        crash = -1; /* no bad item */

    int64_t *xs = malloc((size_t)items * sizeof *xs);
    int64_t *a = malloc((size_t)items * sizeof *a);
    int64_t *b = malloc((size_t)items * sizeof *b);
    outcome_t *map_ref = malloc((size_t)items * sizeof *map_ref);
    outcome_t *star_ref = malloc((size_t)items * sizeof *star_ref);
    outcome_t *map_out = calloc((size_t)items, sizeof *map_out);
    outcome_t *star_out = calloc((size_t)items, sizeof *star_out);
    if (!xs || !a || !b || !map_ref || !star_ref || !map_out || !star_out) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed(seed, 1);
    for (long i = 0; i < items; i++) {
        xs[i] = pr_rng_range(&rng, 1, 100000);
        a[i] = pr_rng_range(&rng, 2, 1000000000);
        b[i] = pr_rng_range(&rng, 1, 1000000000000LL);
    }
    if (crash >= 0)
        xs[crash] = 0; /* the bad input: f(0) crashes its worker */
    int64_t async_x = pr_rng_range(&rng, 1, 100000);

    printf("task2: a pool of %d worker process%s; map and starmap over %ld items, work=%ld "
           "(seed %llu)\n", workers, workers == 1 ? "" : "es", items, work, (unsigned long long)seed);
    if (crash >= 0)
        printf("  item %ld of the map is 0: f(0) will crash the worker that runs it\n", crash);

    serial_t ser = { xs, a, b, items, crash, map_ref, star_ref };
    double t_serial = pr_best_of(3, run_serial, &ser);
    int64_t async_expected = f_sigma(async_x);

    pool_t pool;
    double t0 = pr_now();
    pool_open(&pool, workers);
    double t_open = pr_now() - t0;

    long h = pool_apply_async(&pool, FN_SIGMA, async_x);
    printf("  apply_async(f, %lld) returned handle %ld at once; a worker is on it\n",
           (long long)async_x, h);

    t0 = pr_now();
    pool_map(&pool, FN_SIGMA, xs, items, map_out);
    double t_map = pr_now() - t0;
    t0 = pr_now();
    pool_starmap(&pool, FN_POWMOD, a, b, items, star_out);
    double t_star = pr_now() - t0;

    outcome_t async_out;
    pool_get(&pool, h, &async_out);
    long restarts = pool.restarts;
    pool_close(&pool);
    int left = children_left();
    sweep(&pool);

    long map_ok = 0, map_failed = 0, failed_index = -1, star_ok = 0;
    const char *failed_how = "none";
    for (long i = 0; i < items; i++) {
        map_ok += map_out[i].ok;
        star_ok += star_out[i].ok;
        if (!map_out[i].ok) {
            map_failed++;
            if (failed_index < 0) {
                failed_index = i;
                failed_how = map_out[i].how;
            }
        }
    }
    if (failed_index >= 0)
        printf("  map item %ld failed: its worker ended with %s; the pool went on\n", failed_index,
               failed_how);
    printf("  children left after pool_close: %d%s\n", left,
           left == 0 ? " (waitpid(-1, WNOHANG) said ECHILD: every worker was reaped)" : "");

    long expect_failed = crash >= 0 ? 1 : 0;
    pr_check_int("map items ok", map_ok, items - expect_failed);
    pr_check_int("map checksum", checksum(map_out, items), checksum(map_ref, items));
    pr_check_int("map items failed", map_failed, expect_failed);
    pr_check_int("map failed index", failed_index, crash);
    printf("  %-28s got %-20s expected %-20s %s\n", "map failed how", failed_how,
           crash >= 0 ? "SIGSEGV" : "none",
           strcmp(failed_how, crash >= 0 ? "SIGSEGV" : "none") == 0 ? "ok" : "WRONG");
    if (strcmp(failed_how, crash >= 0 ? "SIGSEGV" : "none") != 0)
        pr_wrong_results++;
    pr_check_int("starmap items ok", star_ok, items);
    pr_check_int("starmap checksum", checksum(star_out, items), checksum(star_ref, items));
    pr_check_int("async value", async_out.ok ? async_out.value : -1, async_expected);
    pr_check_int("workers restarted", restarts, expect_failed);
    pr_check_int("children left", left, 0);

    pr_result_int("map_ok", map_ok);
    pr_result_int("map_checksum", checksum(map_out, items));
    pr_result_int("map_failed", map_failed);
    pr_result_int("map_failed_index", failed_index);
    pr_result_str("map_failed_how", failed_how);
    pr_result_int("starmap_ok", star_ok);
    pr_result_int("starmap_checksum", checksum(star_out, items));
    pr_result_int("async_value", async_out.ok ? async_out.value : -1);
    pr_result_int("workers_restarted", restarts);
    pr_result_int("children_left", left);

    /* The pool's calls are timed once: the map includes the crash and the
     * restart, and repeating it would crash again.  The serial time is the
     * best of 3 after a warm-up, and covers both map and starmap. */
    pr_print_time("serial map + starmap", t_serial, 0, NULL);
    pr_print_time("pool start (fork)", t_open, 0, NULL);
    pr_print_time("pool map + starmap", t_map + t_star, t_serial, "serial");
    printf("  per item through the pool: %.1f us (serial: %.1f us)\n",
           1e6 * (t_map + t_star) / (2.0 * (double)items), 1e6 * t_serial / (2.0 * (double)items));

    free(xs);
    free(a);
    free(b);
    free(map_ref);
    free(star_ref);
    free(map_out);
    free(star_out);
    return pr_finish();
}
