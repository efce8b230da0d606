/*
 * Room 02, task 5: threads or processes?  What each costs, and what each buys.
 *
 * `tasks` tiny tasks (each computes one byte from its number, a few hundred
 * nanoseconds of work) are run three ways, at most `workers` at a time:
 *
 *   1. a new thread per task, started and then joined
 *   2. a new process per task, started and then reaped; the child hands its
 *      byte back as its exit code (0..255: just enough)
 *   3. one process that is already running, fed through a pipe: one
 *      request and one reply per task (what a pool pays per task)
 *
 * and timed: the cost per task, in microseconds, is almost all start-up and
 * hand-over, since the work itself is tiny.  `mem_mb` makes the parent touch
 * that many megabytes first: watch what that does to fork, and not to threads.
 *
 * Then the other side of the trade: a child process crashes with SIGSEGV, on
 * purpose, and the parent reads how it ended and carries on.  (A crashed thread
 * would end the whole program: that side is only described, not shown.)
 *
 *   TODO 1: one group of tasks on new threads, all finished before the next.
 *   TODO 2: one group of tasks on new processes, their bytes collected.
 *
 * Read first: README.md, "fork, exit and wait", "Isolation, concretely", "Threads or processes: when each wins";
 *             ../01_threads/README.md, "pthreads: create, join and chunks".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task5 task5.c -pthread -lm
 *   ./task5 workers=4 tasks=500 mem_mb=16
 * Grade it from the top folder:  make grade TASK=02_processes/task5
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MADV_NOHUGEPAGE; it must come before every #include */
#include "pr.h"
#include "procs.h" /* MAX_WORKERS, die, read_full, write_full, signal_name...: the room's plumbing */

#include <pthread.h>
#include <sys/mman.h>

/* The tiny task: one byte from (seed, i), after a little mixing. */
static int tiny_task(uint64_t seed, long i)
{
    pr_rng rng = pr_rng_seed(seed, 1000 + (uint64_t)i);
    uint64_t h = 0;
    for (int k = 0; k < 64; k++)
        h ^= pr_rng_next(&rng);
    return (int)(h & 0xFF);
}

typedef struct {
    uint64_t seed;
    long tasks;
    int workers;
    int *result; /* result[i]: task i's byte, or -1 if it did not come back */
} batch_t;

/* What one thread needs: the batch, and its task number. */
typedef struct {
    const batch_t *b;
    long i;
} slot_t;

static void *thread_body(void *arg)
{
    slot_t *s = arg;
    s->b->result[s->i] = tiny_task(s->b->seed, s->i);
    return NULL;
}

/* One new thread per task, at most b->workers alive at a time. */
static void run_threads(const batch_t *b)
{
    pthread_t tid[MAX_WORKERS];
    slot_t slot[MAX_WORKERS];
    for (long first = 0; first < b->tasks; first += b->workers) {
        long m = b->tasks - first < b->workers ? b->tasks - first : b->workers;
        //@ TODO 1: This group's tasks, one new thread each, running side by
        //@         side, and every one of them finished before the next group
        //@         starts.  Each thread needs its own argument that stays valid
        //@         while it runs (the arrays above are for that).  A thread
        //@         that cannot be started ends the program with the reason
        //@         (pthread_create returns it; it does not set errno).
        //@         Room 01 taught the calls.
        //@ placeholder: (void)m;   /* TODO 1: this group on new threads, all finished */
        //@ placeholder: (void)tid;
        //@ placeholder: (void)slot;
        //@ placeholder: (void)thread_body;
        //@ solution {
        for (long k = 0; k < m; k++) {
            slot[k] = (slot_t){ b, first + k };
            int err = pthread_create(&tid[k], NULL, thread_body, &slot[k]);
            if (err != 0) {
                fprintf(stderr, "pthread_create: %s\n", strerror(err));
                exit(1);
            }
        }
        for (long k = 0; k < m; k++)
            pthread_join(tid[k], NULL);
        //@ }
    }
}

/* One new process per task, at most b->workers alive at a time.  A child's
 * exit status carries its task's byte back: WEXITSTATUS gives 0..255. */
static void run_processes(const batch_t *b)
{
    pid_t pid[MAX_WORKERS];
    fflush(stdout); /* nothing pending may be copied into the children */
    for (long first = 0; first < b->tasks; first += b->workers) {
        long m = b->tasks - first < b->workers ? b->tasks - first : b->workers;
        //@ TODO 2: This group's tasks, one new child process each, running
        //@         side by side.  A child does its task and nothing else: its
        //@         byte travels back as its exit code, and it must never run on
        //@         into the parent's code.  Then the parent reaps every child of
        //@         the group and keeps a byte only from a child that ended
        //@         normally (a task whose byte never came stays missing).  A
        //@         failed fork ends the program.  See "fork, exit and wait".
        //@ placeholder: (void)m;  /* TODO 2: this group on new processes, reaped, bytes kept */
        //@ placeholder: (void)pid;
        //@ solution {
        for (long k = 0; k < m; k++) {
            pid[k] = fork();
            if (pid[k] < 0) {
                perror("fork");
                exit(1);
            }
            if (pid[k] == 0)
                _exit(tiny_task(b->seed, first + k));
        }
        for (long k = 0; k < m; k++) {
            int status = 0;
            if (waitpid(pid[k], &status, 0) == pid[k] && WIFEXITED(status))
                b->result[first + k] = WEXITSTATUS(status);
        }
        //@ }
    }
}

/* ---- no need to change below ---- */

/* One worker process, started once; every task is a request (its number) down
 * one pipe and a reply (its byte) up the other.  This is the per-task cost of
 * a process pool (task 2), without the start-up. */
static void run_worker_pipe(const batch_t *b)
{
    int req[2], rep[2];
    make_pipe(req);
    make_pipe(rep);
    pid_t pid = fork_child();
    if (pid == 0) {
        close(req[1]);
        close(rep[0]);
        long i;
        while (read_full(req[0], &i, sizeof i) == (ssize_t)sizeof i) {
            int byte = tiny_task(b->seed, i);
            if (write_full(rep[1], &byte, sizeof byte) != 0)
                break;
        }
        _exit(0);
    }
    close(req[0]);
    close(rep[1]);
    for (long i = 0; i < b->tasks; i++) {
        int byte;
        if (write_full(req[1], &i, sizeof i) != 0 || read_full(rep[0], &byte, sizeof byte) != (ssize_t)sizeof byte)
            break;
        b->result[i] = byte;
    }
    close(req[1]); /* end-of-file: the worker's loop ends */
    close(rep[0]);
    waitpid(pid, NULL, 0);
}

/* The isolation demonstration: a child crashes; the parent finds out how. */
static const char *crash_a_child(void)
{
    pid_t pid = fork_child();
    if (pid == 0) {
        no_core_files();  /* a crash on purpose needs no core file */
        raise(SIGSEGV);   /* what a NULL pointer dereference does */
        _exit(0);         /* not reached */
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return "not_reaped";
    return WIFSIGNALED(status) ? signal_name(WTERMSIG(status)) : "no_crash";
}

typedef struct {
    batch_t *b;
    void (*run)(const batch_t *);
} run_t;

static void run_one(void *ctx)
{
    run_t *r = ctx;
    for (long i = 0; i < r->b->tasks; i++)
        r->b->result[i] = -1;
    r->run(r->b);
}

/* Times one way (a warm-up, then the best of 3), checks it, prints it. */
static double measure(const char *label, const char *key, batch_t *b, void (*run)(const batch_t *),
                      const int *expected, double baseline)
{
    run_t r = { b, run };
    double t = pr_best_of(3, run_one, &r);
    long long done = 0, sum = 0, sum_expected = 0; /* order-sensitive checksums */
    for (long i = 0; i < b->tasks; i++) {
        sum_expected += (long long)(i + 1) * expected[i];
        if (b->result[i] >= 0) {
            done++;
            sum += (long long)(i + 1) * b->result[i];
        }
    }
    char what[80];
    printf("  %s:\n", label);
    snprintf(what, sizeof what, "%s tasks done", key);
    pr_check_int(what, done, b->tasks);
    snprintf(what, sizeof what, "%s checksum", key);
    pr_check_int(what, sum, sum_expected);
    snprintf(what, sizeof what, "%s_done", key);
    pr_result_int(what, done);
    snprintf(what, sizeof what, "%s_checksum", key);
    pr_result_int(what, sum);
    printf("  time %-23s %10.6f s   %8.1f us per task", key, t, 1e6 * t / (double)b->tasks);
    if (baseline > 1e-6 && t > 1e-6)
        printf("   (%.1fx the cost of a thread)", t / baseline);
    printf("\n");
    return t;
}

int main(int argc, char **argv)
{
    int workers = (int)pr_arg_long(argc, argv, "workers", 4, 1, MAX_WORKERS);
    long tasks = (long)pr_arg_long(argc, argv, "tasks", 500, 1, 100000);
    long mem_mb = (long)pr_arg_long(argc, argv, "mem_mb", 16, 0, 8192);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int *result = calloc_or_die((size_t)tasks, sizeof *result);
    int *expected = calloc_or_die((size_t)tasks, sizeof *expected);
    /* mem_mb MiB in ordinary 4 KiB pages, every page touched: every fork must
     * copy the mem_mb * 256 page-table entries that map them.  (Huge pages of
     * 2 MiB would need 512 times fewer and hide the effect: turned off here.) */
    size_t ballast_bytes = (size_t)mem_mb << 20;
    char *ballast = NULL;
    if (mem_mb > 0) {
        ballast = mmap(NULL, ballast_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (ballast == MAP_FAILED)
            die("mmap");
#ifdef MADV_NOHUGEPAGE
        madvise(ballast, ballast_bytes, MADV_NOHUGEPAGE);
#endif
        memset(ballast, 1, ballast_bytes);
    }
    for (long i = 0; i < tasks; i++)
        expected[i] = tiny_task(seed, i);

    printf("task5: %ld tiny tasks, at most %d at a time; the parent owns %ld MiB (seed %llu)\n",
           tasks, workers, mem_mb, (unsigned long long)seed);

    batch_t b = { seed, tasks, workers, result };
    double t_threads = measure("a new thread per task (pthread_create + pthread_join)", "threads",
                               &b, run_threads, expected, 0);
    measure("a new process per task (fork + waitpid)", "processes", &b, run_processes, expected,
            t_threads);
    measure("one running worker process, a pipe round trip per task", "pipe", &b, run_worker_pipe,
            expected, t_threads);

    const char *how = crash_a_child();
    printf("  isolation: a child process crashed (%s); the parent reaped it and carries on.\n"
           "  A thread that crashed would have ended this whole program, every thread in it.\n",
           how);
    check_str("crashed child ended by", how, "SIGSEGV");
    pr_result_str("crashed_child", how);

    if (ballast)
        munmap(ballast, ballast_bytes);
    free(result);
    free(expected);
    return pr_finish();
}
