/* sandbox_init.c -- grading/bin/sandbox-init: the first program the grader starts inside
 * its sandbox (sandbox.h), in a pid namespace of its own.
 *
 *   sandbox-init PROGRAM [ARGS...]
 *
 * Runs PROGRAM and waits for it.  When it ends, every other process of the namespace (a
 * worker it forgot, a daemon it started) is counted and killed; then one last line on
 * stderr, after a newline of its own, says how it went:
 *     pr-sandbox: left=N signal=S
 * (N processes were left running; PROGRAM was killed by signal S, 0 when it exited: bwrap
 * would turn that into an exit status of 128 + S).  The grader reads that line alone, the
 * last one, and takes it off stderr.  Nothing of PROGRAM's can write after it (every
 * process is gone), nor trace or change this process (it is not dumpable).
 * Exit status: PROGRAM's, 128 + S for a signal, 127 when it cannot be started. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The namespace's processes other than pid 1 (bwrap's) and this one, zombies aside. */
static int others_alive(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0;
    pid_t self = getpid();
    for (struct dirent *e; (e = readdir(d));) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid == 1 || pid == self)
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        const char *close = strrchr(buf, ')'); /* "pid (comm) S ...": the state after the name */
        if (close && close[1] == ' ' && close[2] != 'Z' && close[2] != 'X')
            n++;
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sandbox-init PROGRAM [ARGS...]\n");
        return 2;
    }
    /* PROGRAM runs as the same user: it must not ptrace this process nor read its memory
     * (the flag is this process's own: exec resets it for the child) */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    pid_t child = fork();
    if (child < 0) {
        perror("sandbox-init: fork");
        return 127;
    }
    if (child == 0) {
        execvp(argv[1], argv + 1);
        fprintf(stderr, "sandbox-init: cannot run %s: %s\n", argv[1], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    /* A process that is just ending (its parent gone a moment ago) is not a leftover: look
     * again for up to 0.2 s before counting. */
    int left = others_alive();
    for (int i = 0; i < 20 && left > 0; i++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        left = others_alive();
    }
    if (left > 0) {
        /* every process of the namespace but pid 1 and this one */
        for (int i = 0; i < 50 && others_alive() > 0; i++) {
            kill(-1, SIGKILL);
            struct timespec ts = { 0, 10 * 1000 * 1000 };
            nanosleep(&ts, NULL);
        }
    }
    int signaled = WIFSIGNALED(status);
    fprintf(stderr, "\npr-sandbox: left=%d signal=%d\n", left, signaled ? WTERMSIG(status) : 0);
    return signaled ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
