/*
 * Room 02, task 6: bug hunt.  A histogram in child processes.
 *
 * n values, each in [0, bins), are counted into a histogram of `bins` bins by
 * `workers` child processes.  Child w counts its own contiguous chunk of the
 * values into a histogram of its own and sends the whole histogram back to the
 * parent, bins counts of 8 bytes each, through its own pipe.  The parent reads
 * every child's histogram, reaps every child, and adds the histograms up.
 *
 * The program checks itself against a histogram counted serially: an
 * order-sensitive checksum of the bins (a count in the wrong bin changes it),
 * the sum of all counts (it must be n), and for every child, that the counts
 * it sent add up to the length of its chunk.  It also checks that every child
 * exited cleanly and that none was left unreaped.
 *
 * The program has ONE bug, and it fails grading: find it, fix it.  There is no
 * TODO and no marker; the fix is small.
 *
 * Read first: README.md, "A pipe between parent and child", "Reading and writing a whole message",
 *             "Messages larger than the pipe", "Task 6: bug hunt".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task6 task6.c -pthread -lm
 *   ./task6 workers=4
 * Grade it from the top folder:  make grade TASK=02_processes/task6
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "pr.h"

#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_WORKERS 64

/* Writes all len bytes of buf to fd, however many write() calls that takes.
 * Returns 0, or -1 on an error. */
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

/* Reads len bytes from fd into buf, fewer only at end-of-file.  Returns how
 * many bytes it read, or -1 on an error. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        //@ bug: ssize_t n = read(fd, p, len - got);
        //@ solution {
        /* (The bug hunt's bug: each read started at the buffer's start.  It shows only when a
         * message is larger than a pipe's buffer (64 KiB on Linux): bins=10007 makes each
         * child's message 80 056 bytes.) */
        ssize_t n = read(fd, p + got, len - got);
        //@ }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0)
            break; /* end-of-file */
        got += (size_t)n;
    }
    return (ssize_t)got;
}

/* Counts v[lo..hi-1] into hist[0..bins-1] (which it zeroes first). */
static void count(const int32_t *v, long lo, long hi, int64_t *hist, long bins)
{
    memset(hist, 0, (size_t)bins * sizeof *hist);
    for (long i = lo; i < hi; i++)
        hist[v[i]]++;
}

/* Runs in child w only: counts its chunk, sends the histogram, ends. */
static void child_part(const int32_t *v, long lo, long hi, long bins, int fd)
{
    int64_t *hist = malloc((size_t)bins * sizeof *hist);
    if (!hist)
        _exit(1);
    count(v, lo, hi, hist, bins);
    int failed = write_full(fd, hist, (size_t)bins * sizeof *hist) != 0;
    close(fd);
    free(hist);
    _exit(failed ? 1 : 0);
}

typedef struct {
    const int32_t *v;
    long n, bins;
    int workers;
    int64_t *hist;   /* the result: bins counts */
    int64_t *part;   /* room for one child's histogram */
    int ok;          /* children that sent a histogram of the right total and exited with 0 */
    int unreaped;    /* children still unreaped after the collection */
    int runs;        /* collections so far (the timing repeats them): a child's trouble is
                      * printed in the first only */
} run_t;

/* Forks the children, reads every histogram, reaps every child. */
static void histogram_with_processes(run_t *r)
{
    pid_t pid[MAX_WORKERS];
    int rfd[MAX_WORKERS];
    long lo_of[MAX_WORKERS], len_of[MAX_WORKERS];
    long base = r->n / r->workers, extra = r->n % r->workers;
    size_t bytes = (size_t)r->bins * sizeof *r->part;

    fflush(stdout); /* nothing pending may be copied into the children */
    for (int w = 0; w < r->workers; w++) {
        lo_of[w] = w * base + (w < extra ? w : extra);
        len_of[w] = base + (w < extra ? 1 : 0);
        int fd[2];
        if (pipe(fd) != 0) {
            perror("pipe");
            exit(1);
        }
        /* 64 KiB, the size the lesson speaks of, on every machine (where pages
         * are 64 KiB, a new pipe would hold 1 MiB). */
        (void)fcntl(fd[1], F_SETPIPE_SZ, 65536);
        pid_t p = fork();
        if (p < 0) {
            perror("fork");
            exit(1);
        }
        if (p == 0) {
            close(fd[0]);
            for (int k = 0; k < w; k++)
                close(rfd[k]);
            child_part(r->v, lo_of[w], lo_of[w] + len_of[w], r->bins, fd[1]);
            _exit(99); /* not reached: child_part ends the child */
        }
        close(fd[1]);
        pid[w] = p;
        rfd[w] = fd[0];
    }

    memset(r->hist, 0, bytes);
    r->ok = 0;
    /* A child blocks in write() until its whole histogram is read: read every
     * pipe first, then reap. */
    for (int w = 0; w < r->workers; w++) {
        memset(r->part, 0, bytes);
        ssize_t got = read_full(rfd[w], r->part, bytes);
        close(rfd[w]);
        int status = 0;
        if (waitpid(pid[w], &status, 0) != pid[w]) {
            perror("waitpid");
            continue;
        }
        int64_t sent = 0;
        for (long b = 0; b < r->bins; b++)
            sent += r->part[b];
        int exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (got == (ssize_t)bytes && exited_ok && sent == len_of[w])
            r->ok++;
        else if (r->runs == 0)
            printf("  child %d: received %zd of %zu bytes, counts summing to %lld for a chunk of %ld "
                   "values, wait status %#x\n", w, got, bytes, (long long)sent, len_of[w],
                   (unsigned)status);
        if (got == (ssize_t)bytes)
            for (long b = 0; b < r->bins; b++)
                r->hist[b] += r->part[b];
    }

    r->runs++;
    /* Every child should be reaped by now.  Reap (and count) any that is not. */
    r->unreaped = 0;
    while (waitpid(-1, NULL, 0) > 0)
        r->unreaped++;
}

static void run_processes(void *ctx)
{
    histogram_with_processes(ctx);
}

typedef struct {
    const int32_t *v;
    long n, bins;
    int64_t *hist;
} serial_t;

static void run_serial(void *ctx)
{
    serial_t *s = ctx;
    count(s->v, 0, s->n, s->hist, s->bins);
}

/* An order-sensitive checksum of a histogram. */
static long long checksum(const int64_t *h, long bins)
{
    uint64_t c = 0;
    for (long b = 0; b < bins; b++)
        c = c * 1000003u + (uint64_t)h[b];
    return (long long)(c >> 1); /* an unsigned sum wraps harmlessly; >> 1 keeps it positive */
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 2000003, 1, 50000000);
    int workers = (int)pr_arg_long(argc, argv, "workers", 4, 1, MAX_WORKERS);
    long bins = (long)pr_arg_long(argc, argv, "bins", 10007, 1, 1000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int32_t *v = malloc((size_t)n * sizeof *v);
    int64_t *ref = malloc((size_t)bins * sizeof *ref);
    int64_t *hist = malloc((size_t)bins * sizeof *hist);
    int64_t *part = malloc((size_t)bins * sizeof *part);
    if (!v || !ref || !hist || !part) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed(seed, 1);
    for (long i = 0; i < n; i++)
        v[i] = (int32_t)pr_rng_range(&rng, 0, bins - 1);

    printf("task6: a histogram of n=%ld values in %ld bins (%ld bytes per child's message) "
           "with workers=%d child processes (seed %llu)\n", n, bins, bins * 8, workers,
           (unsigned long long)seed);

    serial_t s = { v, n, bins, ref };
    double t_serial = pr_best_of(3, run_serial, &s);
    run_t r = { .v = v, .n = n, .bins = bins, .workers = workers, .hist = hist, .part = part };
    double t_processes = pr_best_of(3, run_processes, &r);

    long long counted = 0;
    for (long b = 0; b < bins; b++)
        counted += hist[b];
    pr_check_int("histogram checksum", checksum(hist, bins), checksum(ref, bins));
    pr_check_int("values counted", counted, n);
    pr_check_int("children ok", r.ok, workers);
    pr_check_int("children left unreaped", r.unreaped, 0);
    pr_result_int("hist_checksum", checksum(hist, bins));
    pr_result_int("counted", counted);
    pr_result_int("children_ok", r.ok);
    pr_result_int("children_unreaped", r.unreaped);

    pr_print_time("serial", t_serial, 0, NULL);
    char what[64];
    snprintf(what, sizeof what, "%d process%s", workers, workers == 1 ? "" : "es");
    pr_print_time(what, t_processes, t_serial, "serial");

    free(v);
    free(ref);
    free(hist);
    free(part);
    return pr_finish();
}
