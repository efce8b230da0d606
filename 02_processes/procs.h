/*
 * procs.h -- room 02's process plumbing: small helpers that tasks 2 to 5 would
 * otherwise each carry a copy of.  Each task includes it after pr.h.
 *
 *   MAX_WORKERS, default_workers()   how many children a program may start
 *   chunk_of(n, parts, w, &lo, &hi)  child w's share of n items
 *   die(what), calloc_or_die(n, size), make_pipe(fd), fork_child()
 *                                    a failed system call ends the program
 *   write_full(fd, buf, len)         send a whole message through a pipe
 *   read_full(fd, buf, len)          receive one (what task 1 asks you to write)
 *   signal_name(sig)                 "SIGSEGV" for 11, and so on
 *   no_core_files()                  a crash on purpose leaves no core file
 *   check_str(what, got, expected)   pr_check_int's line, for a word
 *
 * You need not edit it; reading it is optional.  README.md explains the ideas:
 * "File descriptors and pipes" and its "Reading and writing a whole message"
 * (write_full), "fork, exit and wait" (fork_child, and the signal that ended a
 * child).
 *
 * read_full is task 1's first TODO: do task 1 before you read on.  Tasks 1
 * and 6 include none of this: task 1 shows write_full beside the read_full
 * you write, and the bug hunt is one whole program.
 */
#ifndef PARALLEL_ROOMS_PROCS_H
#define PARALLEL_ROOMS_PROCS_H

#include "pr.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_WORKERS 64

/* The default number of workers: one per core, at least 1, at most MAX_WORKERS. */
static inline long default_workers(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > MAX_WORKERS ? MAX_WORKERS : cores;
}

/* Child w's share of n items split into `parts` chunks: [*lo, *hi).  The first
 * n % parts chunks are one item longer (the split of room 01's task 1). */
static inline void chunk_of(long n, int parts, int w, long *lo, long *hi)
{
    long base = n / parts, extra = n % parts;
    *lo = w * base + (w < extra ? w : extra);
    *hi = *lo + base + (w < extra ? 1 : 0);
}

/* Ends the program after a failed system call, saying which one and why
 * (perror prints `what` and the reason errno holds). */
static inline void die(const char *what)
{
    perror(what);
    exit(1);
}

/* calloc, zero-filled; no memory ends the program. */
static inline void *calloc_or_die(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p)
        die("calloc");
    return p;
}

/* pipe(fd): fd[0] the read end, fd[1] the write end; no pipe ends the program. */
static inline void make_pipe(int fd[2])
{
    if (pipe(fd) != 0)
        die("pipe");
}

/* fork(), after fflush(stdout): pending output would be copied into the child
 * and printed twice ("fork, exit and wait": why _exit).  No child ends the
 * program.  Returns what fork returns: 0 in the child, its pid in the parent. */
static inline pid_t fork_child(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    return pid;
}

/* Writes all len bytes of buf to fd.  A single write() to a pipe may write
 * fewer bytes than asked (a "short write") or be interrupted by a signal
 * (EINTR); both just mean "write the rest".  Returns 0, or -1 on an error
 * (errno says which: EPIPE when nobody holds the read end any more). */
static inline int write_full(int fd, const void *buf, size_t len)
{
    const char *p = (const char *)buf;
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
static inline ssize_t read_full(int fd, void *buf, size_t len)
{
    char *p = (char *)buf;
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

/* The name of a signal that can end a worker, as the programs print it. */
static inline const char *signal_name(int sig)
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

/* Called in a child that is meant to crash: a crash on purpose needs no core
 * file (a core size limit of 0 bytes). */
static inline void no_core_files(void)
{
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
}

/* Checks a word as pr_check_int checks a number: one line, got and expected,
 * and a wrong one counts against the verdict. */
static inline void check_str(const char *what, const char *got, const char *expected)
{
    int ok = strcmp(got, expected) == 0;
    printf("  %-28s got %-20s expected %-20s %s\n", what, got, expected, ok ? "ok" : "WRONG");
    if (!ok)
        pr_wrong_results++;
}

#endif
