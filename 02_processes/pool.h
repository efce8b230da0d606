/*
 * pool.h -- the process pool of room 02's task 2, all of it but its three holes,
 * and the program's inputs, reference and checks.
 *
 * task2.c includes procs.h (read_full, write_full, ...), defines the functions
 * the pool runs, the messages (request_t, reply_t) and the pool's state (job_t,
 * worker_t, pool_t), then includes this header, then writes the three functions declared
 * below.  This header is made for that place in task2.c and uses what comes
 * before it.
 *
 *   spawn_worker, pool_open   a worker in slot s: two pipes, fork, the child's ends
 *   submit, dispatch    queue jobs; hand the oldest to an idle worker
 *   pool_step           poll() on the busy workers' reply pipes; handle_reply
 *   pool_wait           steps until the jobs asked for are finished
 *   pool_map, pool_starmap, pool_apply_async, pool_get   the calls of the API
 *   pool_close          close every request pipe, then reap every worker
 *   children_left, sweep   no worker outlives the program
 *   make_inputs, run_serial, report   the inputs, the serial reference, the checks
 *
 * You need not edit it; reading it is the other half of the task.  README.md,
 * "A process pool: map, starmap, apply_async", explains the design, and
 * "Isolation, concretely" what happens when a worker crashes.
 */
#ifndef PARALLEL_ROOMS_POOL_H
#define PARALLEL_ROOMS_POOL_H

#include <poll.h>
#include <sys/wait.h>

/* The three holes, written in task2.c after this header. */
static void worker_main(int req_fd, int rep_fd);             /* TODO 1 */
static void store_reply(pool_t *p, int s, const reply_t *rp); /* TODO 2 */
static void on_worker_died(pool_t *p, int s);                 /* TODO 3 */

/* Starts a worker in slot s: two pipes, fork.  The child keeps the read end of
 * the request pipe and the write end of the reply pipe, and nothing else. */
static inline void spawn_worker(pool_t *p, int s)
{
    int req[2], rep[2];
    make_pipe(req);
    make_pipe(rep);
    pid_t pid = fork_child();
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
        no_core_files(); /* the crash is on purpose: no core file for it */
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

static inline void pool_open(pool_t *p, int nworkers)
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
static inline long submit(pool_t *p, int64_t fn, int64_t a, int64_t b)
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

static inline int live_workers(const pool_t *p)
{
    int live = 0;
    for (int s = 0; s < p->nworkers; s++)
        live += p->w[s].pid > 0;
    return live;
}

static inline int busy_workers(const pool_t *p)
{
    int busy = 0;
    for (int s = 0; s < p->nworkers; s++)
        busy += p->w[s].pid > 0 && p->w[s].job >= 0;
    return busy;
}

/* Hands queued jobs, oldest first, to idle workers: one job per worker at a
 * time, so a worker that finishes early simply gets the next one (dynamic
 * scheduling, as in room 01). */
static inline void dispatch(pool_t *p)
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

/* Reads one reply from worker s, or learns that it died: TODO 2 or TODO 3. */
static inline void handle_reply(pool_t *p, int s)
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
static inline void pool_step(pool_t *p)
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

static inline int job_finished(const job_t *job)
{
    return job->state == JOB_DONE || job->state == JOB_FAILED;
}

/* Works until jobs first .. last-1 are finished, or nothing is left that could
 * finish them (no job queued, no worker busy): then it returns anyway, so a
 * broken pool ends instead of waiting forever. */
static inline void pool_wait(pool_t *p, long first, long last)
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

/* How a failed job's worker ended, in words: "SIGSEGV", "exit_3", "unknown". */
static inline void describe_failure(const job_t *job, char *buf, size_t len)
{
    if (job->signal > 0)
        snprintf(buf, len, "%s", signal_name(job->signal));
    else if (job->exit_code >= 0)
        snprintf(buf, len, "exit_%d", job->exit_code);
    else
        snprintf(buf, len, "unknown");
}

static inline void take_outcome(const pool_t *p, long id, outcome_t *out)
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
static inline void pool_map(pool_t *p, int64_t fn, const int64_t *xs, long n, outcome_t *out)
{
    long first = p->njobs;
    for (long i = 0; i < n; i++)
        submit(p, fn, xs[i], 0);
    pool_wait(p, first, first + n);
    for (long i = 0; i < n; i++)
        take_outcome(p, first + i, &out[i]);
}

/* starmap(g, pairs): out[i] = g(a[i], b[i]). */
static inline void pool_starmap(pool_t *p, int64_t fn, const int64_t *a, const int64_t *b, long n,
                                outcome_t *out)
{
    long first = p->njobs;
    for (long i = 0; i < n; i++)
        submit(p, fn, a[i], b[i]);
    pool_wait(p, first, first + n);
    for (long i = 0; i < n; i++)
        take_outcome(p, first + i, &out[i]);
}

/* apply_async(f, x): starts one call and returns a handle at once. */
static inline long pool_apply_async(pool_t *p, int64_t fn, int64_t x)
{
    long id = submit(p, fn, x, 0);
    dispatch(p); /* a free worker starts on it right away */
    return id;
}

/* get(handle): waits for that call, if it has not finished already. */
static inline void pool_get(pool_t *p, long handle, outcome_t *out)
{
    pool_wait(p, handle, handle + 1);
    take_outcome(p, handle, out);
}

/* Closing a worker's request pipe is its signal to stop: its next read
 * returns end-of-file, its loop ends and it exits.  Close every request pipe
 * first, then wait for every worker. */
static inline void pool_close(pool_t *p)
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
static inline int children_left(void)
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
static inline void sweep(pool_t *p)
{
    for (long i = 0; i < p->nforked; i++)
        if (waitpid(p->forked[i], NULL, WNOHANG) == 0) {
            kill(p->forked[i], SIGKILL);
            waitpid(p->forked[i], NULL, 0);
        }
    free(p->forked);
    p->forked = NULL;
}

/* ---- The program around the pool: inputs, the serial reference, checks ---- */

typedef struct {
    long items, crash;                 /* crash: the bad item of the map, or -1 */
    int64_t *xs, *a, *b, async_x;      /* the inputs of map, starmap, apply_async */
    outcome_t *map_out, *star_out, async_out; /* what the pool gave */
    outcome_t *map_ref, *star_ref;     /* what the serial reference gave */
    long restarts;                     /* the pool's count of replaced workers */
    int left;                          /* children left after pool_close */
    double t_serial, t_open, t_pool;
} run_t;

/* The inputs from the seed; item crash of the map (if >= 0) becomes 0, f's bad input. */
static inline void make_inputs(run_t *r, long items, long crash, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    r->items = items;
    r->crash = crash;
    r->xs = calloc_or_die((size_t)items, sizeof *r->xs);
    r->a = calloc_or_die((size_t)items, sizeof *r->a);
    r->b = calloc_or_die((size_t)items, sizeof *r->b);
    r->map_ref = calloc_or_die((size_t)items, sizeof *r->map_ref);
    r->star_ref = calloc_or_die((size_t)items, sizeof *r->star_ref);
    r->map_out = calloc_or_die((size_t)items, sizeof *r->map_out);
    r->star_out = calloc_or_die((size_t)items, sizeof *r->star_out);
    pr_rng rng = pr_rng_seed(seed, 1);
    for (long i = 0; i < items; i++) {
        r->xs[i] = pr_rng_range(&rng, 1, 100000);
        r->a[i] = pr_rng_range(&rng, 2, 1000000000);
        r->b[i] = pr_rng_range(&rng, 1, 1000000000000LL);
    }
    if (crash >= 0)
        r->xs[crash] = 0; /* the bad input: f(0) crashes its worker */
    r->async_x = pr_rng_range(&rng, 1, 100000);
}

/* The serial reference: the same functions, called directly.  It must skip
 * the bad item: f(0) here would crash this very program. */
static inline void run_serial(void *ctx)
{
    run_t *r = ctx;
    for (long i = 0; i < r->items; i++) {
        r->map_ref[i].ok = i != r->crash;
        r->map_ref[i].value = i != r->crash ? f_sigma(r->xs[i]) : 0;
        r->star_ref[i].ok = 1;
        r->star_ref[i].value = g_powmod(r->a[i], r->b[i]);
    }
}

/* An order-sensitive checksum of the items that worked: moving a value to
 * another position changes it. */
static inline long long checksum(const outcome_t *o, long n)
{
    uint64_t h = 0;
    for (long i = 0; i < n; i++)
        if (o[i].ok)
            h = h * 1000003u + (uint64_t)o[i].value + (uint64_t)i;
    return (long long)(h >> 1);
}

/* Checks what the pool gave against the reference, prints the result lines
 * and the timings. */
static inline void report(const run_t *r)
{
    long items = r->items, crash = r->crash;
    long map_ok = 0, map_failed = 0, failed_index = -1, star_ok = 0;
    const char *failed_how = "none";
    for (long i = 0; i < items; i++) {
        map_ok += r->map_out[i].ok;
        star_ok += r->star_out[i].ok;
        if (!r->map_out[i].ok) {
            map_failed++;
            if (failed_index < 0) {
                failed_index = i;
                failed_how = r->map_out[i].how;
            }
        }
    }
    if (failed_index >= 0)
        printf("  map item %ld failed: its worker ended with %s; the pool went on\n", failed_index,
               failed_how);
    printf("  children left after pool_close: %d%s\n", r->left,
           r->left == 0 ? " (waitpid(-1, WNOHANG) said ECHILD: every worker was reaped)" : "");

    long expect_failed = crash >= 0 ? 1 : 0;
    long long async_value = r->async_out.ok ? r->async_out.value : -1;
    pr_check_int("map items ok", map_ok, items - expect_failed);
    pr_check_int("map checksum", checksum(r->map_out, items), checksum(r->map_ref, items));
    pr_check_int("map items failed", map_failed, expect_failed);
    pr_check_int("map failed index", failed_index, crash);
    check_str("map failed how", failed_how, crash >= 0 ? "SIGSEGV" : "none");
    pr_check_int("starmap items ok", star_ok, items);
    pr_check_int("starmap checksum", checksum(r->star_out, items), checksum(r->star_ref, items));
    pr_check_int("async value", async_value, f_sigma(r->async_x));
    pr_check_int("workers restarted", r->restarts, expect_failed);
    pr_check_int("children left", r->left, 0);

    pr_result_int("map_ok", map_ok);
    pr_result_int("map_checksum", checksum(r->map_out, items));
    pr_result_int("map_failed", map_failed);
    pr_result_int("map_failed_index", failed_index);
    pr_result_str("map_failed_how", failed_how);
    pr_result_int("starmap_ok", star_ok);
    pr_result_int("starmap_checksum", checksum(r->star_out, items));
    pr_result_int("async_value", async_value);
    pr_result_int("workers_restarted", r->restarts);
    pr_result_int("children_left", r->left);

    /* The pool's calls are timed once: the map includes the crash and the
     * restart, and repeating it would crash again.  The serial time is the
     * best of 3 after a warm-up, and covers both map and starmap. */
    pr_print_time("serial map + starmap", r->t_serial, 0, NULL);
    pr_print_time("pool start (fork)", r->t_open, 0, NULL);
    pr_print_time("pool map + starmap", r->t_pool, r->t_serial, "serial");
    printf("  per item through the pool: %.1f us (serial: %.1f us)\n",
           1e6 * r->t_pool / (2.0 * (double)items), 1e6 * r->t_serial / (2.0 * (double)items));
}

static inline void free_run(run_t *r)
{
    free(r->xs), free(r->a), free(r->b);
    free(r->map_ref), free(r->star_ref), free(r->map_out), free(r->star_out);
}

#endif
