/*
 * Room 02, task 1: fork, pipes and waitpid.
 *
 * Sum an array of 64-bit integers with several child processes.  Each child
 * is a copy of this program made by fork(): it sees the whole array (its own
 * copy-on-write copy of it), adds up its own contiguous chunk, and sends that
 * sum, 8 bytes, back to the parent through its own pipe.  The parent gathers
 * the sums, waits for every child, checks how each one ended, and adds up.
 *
 *   TODO 1: receive a message of known size from a pipe, completely.
 *   TODO 2: the child's whole life after fork: its sum to the parent, its end.
 *   TODO 3: the parent's side, once every child runs: gather, then reap.
 *
 * Forking the children, the pipes and the chunks (the same split as room 01's
 * task 1) are written for you.
 *
 * Read first: README.md, "fork, exit and wait", "Zombies and orphans", "A pipe between parent and child",
 *             "Reading and writing a whole message".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task1 task1.c -pthread -lm
 *   ./task1 workers=4 n=1000003
 * Grade it from the top folder:  make grade TASK=02_processes/task1
 */
#include "pr.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_WORKERS 64

/* Writes all len bytes of buf to fd.  A single write() to a pipe may write
 * fewer bytes than asked (a "short write") or be interrupted by a signal
 * (EINTR); both just mean "write the rest".  Returns 0, or -1 on an error
 * (errno says which: EPIPE when nobody holds the read end any more). */
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

/* Reads up to len bytes from fd into buf: exactly len, unless the pipe reaches
 * end-of-file first.  Returns how many bytes it read (len when all of them
 * arrived, fewer at end-of-file), or -1 on an error. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
    // TODO 1: Fill the whole buffer from the descriptor, however the bytes
    //         trickle in, and report how many came.  What must hold: fewer
    //         bytes than asked come back only when no writer is left (end-of-
    //         file); an interrupted call is not an error; a real error gives -1.
    //         The rules are in the lesson's "File descriptors and pipes".
    (void)fd;  /* TODO 1: the whole message, or what came before end-of-file */
    (void)buf;
    (void)len;
    return -1; /* "error": nothing is ever read */
}

/* Runs in the child only: sums a[lo..hi-1], sends the sum to the parent
 * through fd (the write end of this child's pipe) and ends the child.  It must
 * never return: a child that returned would carry on with the parent's code
 * (the rest of the fork loop, the timings...) as a second copy of the parent. */
static void child_part(const int64_t *a, long lo, long hi, int fd)
{
    // TODO 2: The child's chunk sum must reach the parent intact, and then
    //         the child must end right here, telling the parent by its exit
    //         code whether the sending worked.  Which way to end a child is
    //         right, and why the others are wrong: "fork, exit and wait".
    (void)a;  /* TODO 2: the child's work, its message, its end */
    (void)lo;
    (void)hi;
    (void)fd;
    (void)write_full; /* (these lines only silence "unused" warnings) */
    _exit(0); /* for now: end at once, sending nothing */
}

/* Says how child w failed: it sent too little, exited with a non-zero status,
 * or was killed by a signal. */
static void print_failure(int w, ssize_t got, int status)
{
    printf("  child %d: received %zd of 8 bytes; ", w, got);
    if (WIFEXITED(status))
        printf("it exited with status %d\n", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        printf("it was killed by signal %d\n", WTERMSIG(status));
    else
        printf("wait status %#x\n", (unsigned)status);
}

/* Runs in the parent after all children were started.  rfd[w] is the read end
 * of child w's pipe and pid[w] its process id.  Sets *total to the sum of the
 * partial sums and *ok to the number of children that both sent a whole
 * partial sum and exited with status 0. */
static void collect(const pid_t *pid, const int *rfd, int workers, int64_t *total, int *ok)
{
    // TODO 3: Every child, in turn: take in its sum, let go of its pipe,
    //         reap it and learn how it ended.  A child is good only if its
    //         whole message came AND it ended normally with the success code;
    //         only good children's sums count.  For any other, the printing
    //         helper above says why.  Every child gets reaped, whatever
    //         happened (result children_unreaped); mind the order of
    //         receiving and reaping ("File descriptors and pipes").
    *total = 0; /* TODO 3: every child's sum, every child reaped */
    *ok = 0;
    (void)pid;
    (void)rfd;
    (void)workers;
    (void)read_full;     /* (these lines only silence */
    (void)print_failure; /*  "unused" warnings)       */
}

/* ---- no need to change below ---- */

/* Starts one child per chunk, each with its own pipe, then lets collect() do
 * the rest.  Returns how many children collect() left unreaped: the leftovers
 * are reaped here (they are all about to end), so that none is left behind. */
static int sum_with_processes(const int64_t *a, long n, int workers, int64_t *total, int *ok)
{
    pid_t pid[MAX_WORKERS];
    int rfd[MAX_WORKERS];
    long base = n / workers, extra = n % workers;

    /* Anything still in stdout's buffer would be copied into every child: empty it first. */
    fflush(stdout);
    for (int w = 0; w < workers; w++) {
        long lo = w * base + (w < extra ? w : extra);
        long hi = lo + base + (w < extra ? 1 : 0);
        int fd[2]; /* fd[0]: the read end, fd[1]: the write end */
        if (pipe(fd) != 0) {
            perror("pipe");
            exit(1);
        }
        pid_t p = fork();
        if (p < 0) {
            perror("fork");
            exit(1);
        }
        if (p == 0) {
            /* The child: it only writes.  Close the read end, and the read ends
             * of its older siblings' pipes that it inherited. */
            close(fd[0]);
            for (int k = 0; k < w; k++)
                close(rfd[k]);
            child_part(a, lo, hi, fd[1]);
            _exit(99); /* safety net: child_part must not return */
        }
        /* The parent: it only reads.  Closing the write end matters: while the
         * parent held it, the pipe could never reach end-of-file. */
        close(fd[1]);
        pid[w] = p;
        rfd[w] = fd[0];
    }

    collect(pid, rfd, workers, total, ok);

    /* Every child has been reaped if collect() did its job, and then waitpid
     * fails at once with ECHILD ("no children").  Otherwise reap them here. */
    int unreaped = 0;
    while (waitpid(-1, NULL, 0) > 0)
        unreaped++;
    return unreaped;
}

static int64_t sum_serial(const int64_t *a, long n)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* For pr_best_of.  volatile: every timed run really stores its result. */
typedef struct {
    const int64_t *a;
    long n;
    int workers;
    volatile int64_t total;
    volatile int ok, unreaped;
} run_t;

static void run_serial(void *ctx)
{
    run_t *r = ctx;
    r->total = sum_serial(r->a, r->n);
}

static void run_processes(void *ctx)
{
    run_t *r = ctx;
    int64_t total = 0;
    int ok = 0;
    r->unreaped = sum_with_processes(r->a, r->n, r->workers, &total, &ok);
    r->total = total;
    r->ok = ok;
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long default_workers = cores < 1 ? 1 : cores > MAX_WORKERS ? MAX_WORKERS : cores;
    long n = (long)pr_arg_long(argc, argv, "n", 10000000, 1, 50000000);
    int workers = (int)pr_arg_long(argc, argv, "workers", default_workers, 1, MAX_WORKERS);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int64_t *a = malloc((size_t)n * sizeof *a);
    if (!a) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    /* Values in [1, 1000000]: the total is at least n, so 0 is never right, and
     * at most 5e13, far inside 64 bits. */
    pr_rng rng = pr_rng_seed(seed, 1);
    for (long i = 0; i < n; i++)
        a[i] = pr_rng_range(&rng, 1, 1000000);

    printf("task1: summing n=%ld integers with workers=%d child processes (seed %llu)\n", n, workers,
           (unsigned long long)seed);

    run_t serial = { .a = a, .n = n, .workers = 1 };
    double t_serial = pr_best_of(3, run_serial, &serial);
    run_t par = { .a = a, .n = n, .workers = workers };
    double t_processes = pr_best_of(3, run_processes, &par);

    pr_check_int("total", par.total, serial.total);
    pr_check_int("children ok", par.ok, workers);
    pr_check_int("children left unreaped", par.unreaped, 0);
    pr_result_int("total", par.total);
    pr_result_int("children_ok", par.ok);
    pr_result_int("children_unreaped", par.unreaped);

    pr_print_time("serial", t_serial, 0, NULL);
    char what[64];
    snprintf(what, sizeof what, "%d process%s", workers, workers == 1 ? "" : "es");
    pr_print_time(what, t_processes, t_serial, "serial");

    free(a);
    return pr_finish();
}
