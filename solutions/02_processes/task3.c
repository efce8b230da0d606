/*
 * Room 02, task 3: "five one-second jobs finish in about one second".
 *
 * A job here solves a batch of equations a*x + b = 0 and then sleeps
 * delay_ms milliseconds, standing in for waiting on a disk, a database or a
 * network.  Run one after another, `jobs` jobs take about jobs * delay_ms.  Run
 * on a pool of `workers` processes, they wait at the same time, in rounds of
 * `workers` jobs: ceil(jobs / workers) rounds.  So the best possible speedup is
 *
 *     jobs / ceil(jobs / workers)       12 jobs, 4 workers: 12 / 3 = 4x
 *                                        5 jobs, 4 workers:  5 / 2 = 2.5x
 *
 * and the program prints it beside the speedup it measured.
 *
 * This pool is simpler than task 2's.  All workers share ONE request pipe and
 * ONE reply pipe.  The parent writes every job number into the request pipe
 * and closes it; each worker reads a job number (whichever worker reads first
 * gets it), runs the job, and writes a reply tagged with the job number into
 * the reply pipe.  A worker stops when the request pipe is empty and closed
 * (end-of-file).  Messages this small (8 and 16 bytes) are written in one
 * piece: two workers' replies never mix, and no job number is ever split
 * between two readers (see the README).
 *
 *   TODO 1: a worker's life: take job numbers until there are none left.
 *   TODO 2: the parent's side: every answer in its place, every worker reaped.
 *
 * Read first: README.md, "Waiting for a child: waitpid", "A pipe between parent and child",
 *             "Atomic writes: one pipe, several workers", "Five one-second jobs: a worked example".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task3 task3.c -pthread -lm
 *   ./task3                      (12 jobs of 50 ms on 4 workers)
 *   ./task3 jobs=5 delay_ms=1000 (the title's five one-second jobs)
 * Grade it from the top folder:  make grade TASK=02_processes/task3
 */
#include "pr.h"
#include "procs.h" /* MAX_WORKERS, make_pipe, fork_child, read_full, write_full: the room's plumbing */

#define MAX_JOBS 1000

typedef struct {
    long jobs, batch, delay_ms;
    uint64_t seed;
} params_t;

typedef struct {
    int64_t job; /* the tag: which job this answers */
    int64_t sum; /* the sum of that job's solutions x */
} reply_t;

/* Sleeps ms milliseconds (nanosleep resumes after an interrupting signal). */
static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        continue;
}

/* One job: solve `batch` equations a*x + b = 0 made from (seed, job), then
 * wait delay_ms.  Returns the sum of the solutions.  The equations are made
 * from whole numbers a (never 0) and x, so every solution -b/a is a whole
 * number, computed exactly, and the sum is exact too. */
static int64_t run_job(const params_t *pp, int64_t job)
{
    pr_rng rng = pr_rng_seed(pp->seed, 100 + (uint64_t)job);
    int64_t sum = 0;
    for (long k = 0; k < pp->batch; k++) {
        double a = (double)pr_rng_range(&rng, 1, 1000);
        double b = -a * (double)pr_rng_range(&rng, -1000, 1000);
        double x = -b / a; /* the solution of a*x + b = 0 */
        sum += (int64_t)x;
    }
    sleep_ms(pp->delay_ms); /* the "I/O": a process that sleeps needs no core */
    return sum;
}

/* A worker: req_fd is the read end of the shared request pipe, rep_fd the
 * write end of the shared reply pipe.  Returning ends the worker. */
static void worker_loop(const params_t *pp, int req_fd, int rep_fd)
{
    //@ TODO 1: Take one job number at a time from the shared request pipe,
    //@         run that job, and answer with one tagged reply, until the pipe
    //@         says no more will come.  An incomplete message means the end,
    //@         too; so does a reply that cannot be sent.  Why one message per
    //@         call keeps workers from tearing each other's messages apart:
    //@         "File descriptors and pipes", on atomic writes.
    //@ placeholder: (void)pp;      /* TODO 1: serve job numbers until there are none left */
    //@ placeholder: (void)req_fd;
    //@ placeholder: (void)rep_fd;
    //@ solution {
    int64_t job;
    while (read_full(req_fd, &job, sizeof job) == (ssize_t)sizeof job) {
        reply_t rp = { job, run_job(pp, job) };
        if (write_full(rep_fd, &rp, sizeof rp) != 0)
            break;
    }
    //@ }
}

/* The parent, after it has handed out every job: rep_fd is the read end of
 * the reply pipe, pid[] the workers.  Stores job j's sum in sums[j] and sets
 * got[j] = 1; returns how many replies arrived. */
static long collect(int rep_fd, const pid_t *pid, int workers, long jobs, int64_t *sums, char *got)
{
    //@ TODO 2: Take in replies until none can come any more (when is that,
    //@         with one reply pipe shared by all?).  Replies arrive in the
    //@         order the jobs finish: each must be stored at the place its tag
    //@         names and marked as received, and a tag out of range must never
    //@         be stored.  Return how many were stored (result jobs_done).
    //@         Then reap every worker (result workers_unreaped), saying so for
    //@         one that did not end cleanly.
    //@ placeholder: (void)rep_fd; /* TODO 2: every reply stored by its tag, every worker reaped */
    //@ placeholder: (void)pid;
    //@ placeholder: (void)workers;
    //@ placeholder: (void)jobs;
    //@ placeholder: (void)sums;
    //@ placeholder: (void)got;
    //@ placeholder: (void)read_full; /* (only silences an "unused" warning) */
    //@ placeholder: return 0;
    //@ solution {
    long done = 0;
    reply_t rp;
    while (read_full(rep_fd, &rp, sizeof rp) == (ssize_t)sizeof rp) {
        if (rp.job < 0 || rp.job >= jobs)
            continue;
        sums[rp.job] = rp.sum;
        got[rp.job] = 1;
        done++;
    }
    for (int w = 0; w < workers; w++) {
        int status = 0;
        if (waitpid(pid[w], &status, 0) == pid[w] && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
            printf("  worker %d did not exit cleanly (wait status %#x)\n", w, (unsigned)status);
    }
    return done;
    //@ }
}

/* ---- no need to change below ---- */

/* Runs the jobs on a pool of `workers` processes.  Returns the number of
 * replies; *unreaped is the number of workers collect() did not reap (they are
 * reaped here, so that none is left behind). */
static long run_pool(const params_t *pp, int workers, int64_t *sums, char *got, int *unreaped)
{
    int req[2], rep[2];
    pid_t pid[MAX_WORKERS];
    make_pipe(req);
    make_pipe(rep);
    for (int w = 0; w < workers; w++) {
        pid[w] = fork_child();
        if (pid[w] == 0) {
            /* A worker reads requests and writes replies: it closes the other
             * two ends.  Closing req[1] matters most: a worker holding a write
             * end of the request pipe would never see its end-of-file, and
             * would wait for more jobs forever. */
            close(req[1]);
            close(rep[0]);
            worker_loop(pp, req[0], rep[1]);
            _exit(0);
        }
    }
    /* The parent writes requests and reads replies. */
    close(req[0]);
    close(rep[1]);

    /* Every job number, in one go: 8 bytes each, at most 8000 bytes, so the
     * pipe (64 KiB on Linux) holds them all and these writes never wait.
     * (With far more jobs the parent would have to read replies while it
     * writes, or both pipes could fill up and everyone would wait: deadlock.) */
    for (int64_t j = 0; j < pp->jobs; j++)
        if (write_full(req[1], &j, sizeof j) != 0)
            break; /* EPIPE: every worker is gone already */
    close(req[1]); /* no more jobs: once the pipe is empty, workers read end-of-file */

    long done = collect(rep[0], pid, workers, pp->jobs, sums, got);
    close(rep[0]);

    *unreaped = 0;
    while (waitpid(-1, NULL, 0) > 0)
        (*unreaped)++;
    return done;
}

int main(int argc, char **argv)
{
    params_t pp;
    pp.jobs = (long)pr_arg_long(argc, argv, "jobs", 12, 1, MAX_JOBS);
    int workers = (int)pr_arg_long(argc, argv, "workers", 4, 1, MAX_WORKERS);
    pp.delay_ms = (long)pr_arg_long(argc, argv, "delay_ms", 50, 0, 10000);
    pp.batch = (long)pr_arg_long(argc, argv, "batch", 1000, 1, 100000000);
    pp.seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    /* A worker that dies makes the parent's writes fail with EPIPE, instead of
     * killing the parent with SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);

    int64_t *sums = calloc((size_t)pp.jobs, sizeof *sums);
    int64_t *ref = calloc((size_t)pp.jobs, sizeof *ref);
    char *got = calloc((size_t)pp.jobs, 1);
    if (!sums || !ref || !got) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    printf("task3: %ld jobs (each %ld equations, then %ld ms of waiting) on %d worker process%s "
           "(seed %llu)\n", pp.jobs, pp.batch, pp.delay_ms, workers, workers == 1 ? "" : "es",
           (unsigned long long)pp.seed);

    /* Both are timed once: the jobs mostly sleep, there is nothing to warm up,
     * and running them four times would only make you wait four times longer. */
    double t0 = pr_now();
    for (long j = 0; j < pp.jobs; j++)
        ref[j] = run_job(&pp, j);
    double t_serial = pr_now() - t0;

    int unreaped = 0;
    t0 = pr_now();
    long done = run_pool(&pp, workers, sums, got, &unreaped);
    double t_pool = pr_now() - t0;

    long long x_sum = 0, x_sum_ref = 0, wrong = 0;
    for (long j = 0; j < pp.jobs; j++) {
        x_sum_ref += ref[j];
        if (got[j])
            x_sum += sums[j];
        if (!got[j] || sums[j] != ref[j])
            wrong++;
    }
    pr_check_int("jobs done", done, pp.jobs);
    pr_check_int("sum of all solutions x", x_sum, x_sum_ref);
    pr_check_int("jobs missing or wrong", wrong, 0);
    pr_check_int("workers left unreaped", unreaped, 0);
    pr_result_int("jobs_done", done);
    pr_result_int("x_sum", x_sum);
    pr_result_int("jobs_wrong", wrong);
    pr_result_int("workers_unreaped", unreaped);

    long rounds = (pp.jobs + workers - 1) / workers;
    pr_print_time("one by one", t_serial, 0, NULL);
    char what[64];
    snprintf(what, sizeof what, "%d worker%s", workers, workers == 1 ? "" : "s");
    pr_print_time(what, t_pool, t_serial, "one by one");
    printf("  ideal speedup: %ld jobs in ceil(%ld / %d) = %ld round%s of %ld ms: %ld / %ld = %.2fx\n",
           pp.jobs, pp.jobs, workers, rounds, rounds == 1 ? "" : "s", pp.delay_ms, pp.jobs, rounds,
           (double)pp.jobs / (double)rounds);

    free(sums);
    free(ref);
    free(got);
    return pr_finish();
}
