/* runner.c -- see runner.h. */
#define _GNU_SOURCE
#include "runner.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested = 0;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

int runner_init(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -1;
}

int runner_interrupted(void)
{
    return stop_requested != 0;
}

static const struct {
    int sig;
    const char *name;
} signal_names[] = {
    { SIGHUP, "SIGHUP" },   { SIGINT, "SIGINT" },   { SIGQUIT, "SIGQUIT" }, { SIGILL, "SIGILL" },
    { SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" }, { SIGBUS, "SIGBUS" },   { SIGFPE, "SIGFPE" },
    { SIGKILL, "SIGKILL" }, { SIGUSR1, "SIGUSR1" }, { SIGSEGV, "SIGSEGV" }, { SIGUSR2, "SIGUSR2" },
    { SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" }, { SIGTERM, "SIGTERM" }, { SIGXCPU, "SIGXCPU" },
    { SIGXFSZ, "SIGXFSZ" }, { SIGSYS, "SIGSYS" },
};

const char *signal_name(int sig)
{
    static char other[32];
    for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
        if (signal_names[i].sig == sig)
            return signal_names[i].name;
    snprintf(other, sizeof other, "signal %d", sig);
    return other;
}

char *run_describe(const run_result *res, double timeout)
{
    switch (res->outcome) {
    case RUN_EXITED:
        return xasprintf("exited with status %d", res->exit_code);
    case RUN_SIGNALED:
        return xasprintf("killed by %s (%s)", signal_name(res->signal), strsignal(res->signal));
    case RUN_TIMEOUT:
        return xasprintf("still running after %.1f s: stopped (timeout)", timeout);
    case RUN_OUTPUT_LIMIT:
        return xasprintf("printed more than %zu KiB of output: stopped", (res->out_len + res->err_len) / 1024);
    case RUN_START_FAILED:
        return xasprintf("could not start: %s", res->start_error);
    case RUN_INTERRUPTED:
        return xstrdup("interrupted");
    }
    return xstrdup("?");
}

/* ---- the leftover sweep ---------------------------------------------------- */

/* Lists the processes whose parent is `parent` or whose session is `session`
 * (0: none), skipping zombies unless want_zombies.  Returns how many went into pids. */
static int find_processes(pid_t parent, pid_t session, int want_zombies, pid_t *pids, int max)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(proc)) != NULL && count < max) {
        if (!isdigit((unsigned char)entry->d_name[0]))
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", entry->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        /* pid (comm) state ppid pgrp session ...: comm may hold spaces and ')'. */
        char *close_paren = strrchr(buf, ')');
        if (!close_paren)
            continue;
        char state = 0;
        int ppid = 0, pgrp = 0, sid = 0;
        if (sscanf(close_paren + 1, " %c %d %d %d", &state, &ppid, &pgrp, &sid) != 4)
            continue;
        if (state == 'Z' && !want_zombies)
            continue;
        if (ppid == parent || (session > 0 && sid == session))
            pids[count++] = (pid_t)atoi(entry->d_name);
    }
    closedir(proc);
    return count;
}

int runner_sweep(void)
{
    int found = 0;
    double give_up = now_seconds() + 5.0;
    for (;;) {
        /* Reap whatever has already died (zombies re-parented to us included). */
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        pid_t pids[256];
        int n = find_processes(getpid(), 0, 1, pids, 256);
        if (n == 0 || now_seconds() > give_up)
            break;
        for (int i = 0; i < n; i++) {
            /* Its whole group too: a daemon's own children go with it. */
            kill(pids[i], SIGKILL);
            pid_t group = getpgid(pids[i]);
            if (group > 1 && group != getpgrp())
                kill(-group, SIGKILL);
        }
        found += n;
        struct timespec pause = { 0, 5 * 1000 * 1000 };
        nanosleep(&pause, NULL);
        /* Killing a process re-parents its children to us: loop until none is left. */
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
    }
    return found;
}

/* ---- one run ---------------------------------------------------------------- */

static void child_exec(const run_request *req, int out_fd, int err_fd, int status_fd)
{
    setsid();
    /* Default signal dispositions: the grader's handlers must not leak into the run. */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    if (req->env_extra)
        for (char *const *e = req->env_extra; *e; e++)
            putenv(*e);
    const char *failed = NULL;
    if (req->cwd && chdir(req->cwd) != 0)
        failed = "chdir";
    else {
        execvp(req->argv[0], req->argv);
        failed = "exec";
    }
    char msg[256];
    int len = snprintf(msg, sizeof msg, "%s %s: %s", failed, failed[0] == 'c' ? req->cwd : req->argv[0],
                       strerror(errno));
    if (write(status_fd, msg, (size_t)len) < 0) {
        /* nothing more we can do */
    }
    _exit(127);
}

/* Reads what is available on fd into sb, up to `room` bytes; returns 0 at EOF. */
static int drain(int fd, strbuf *sb, size_t *total, size_t cap, int *over)
{
    char buf[16384];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? 1 : 0;
    if (n == 0)
        return 0;
    size_t keep = (size_t)n;
    if (*total + keep > cap) {
        keep = cap > *total ? cap - *total : 0;
        *over = 1;
    }
    sb_append(sb, buf, keep);
    *total += keep;
    return 1;
}

void run_process(const run_request *req, run_result *res)
{
    memset(res, 0, sizeof *res);
    strbuf out = { 0 }, err = { 0 };
    sb_append(&out, "", 0);
    sb_append(&err, "", 0);
    int out_pipe[2], err_pipe[2], status_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
        pipe2(status_pipe, O_CLOEXEC) != 0) {
        res->outcome = RUN_START_FAILED;
        snprintf(res->start_error, sizeof res->start_error, "pipe: %s", strerror(errno));
        res->out = out.data;
        res->err = err.data;
        return;
    }
    double start = now_seconds();
    pid_t pid = fork();
    if (pid < 0) {
        res->outcome = RUN_START_FAILED;
        snprintf(res->start_error, sizeof res->start_error, "fork: %s", strerror(errno));
        for (int i = 0; i < 2; i++)
            close(out_pipe[i]), close(err_pipe[i]), close(status_pipe[i]);
        res->out = out.data;
        res->err = err.data;
        return;
    }
    if (pid == 0)
        child_exec(req, out_pipe[1], err_pipe[1], status_pipe[1]);

    close(out_pipe[1]);
    close(err_pipe[1]);
    close(status_pipe[1]);
    /* The child calls setsid(); set its group here too so killpg works at once. */
    setpgid(pid, pid);

    /* Did exec succeed?  The status pipe closes on exec (EOF) or carries the error. */
    char start_msg[256];
    ssize_t got;
    do
        got = read(status_pipe[0], start_msg, sizeof start_msg - 1);
    while (got < 0 && errno == EINTR);
    close(status_pipe[0]);
    int start_failed = got > 0;
    if (start_failed) {
        start_msg[got] = '\0';
        snprintf(res->start_error, sizeof res->start_error, "%s", start_msg);
    }

    fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
    int fds_open[2] = { 1, 1 };
    size_t total = 0;
    int over_cap = 0, timed_out = 0, exited = 0, wstatus = 0;
    double deadline = start + req->timeout;
    double term_sent = 0, exit_time = 0;

    for (;;) {
        if (!exited) {
            pid_t w = waitpid(pid, &wstatus, WNOHANG);
            if (w == pid) {
                exited = 1;
                exit_time = now_seconds();
            }
        }
        double now = now_seconds();
        /* After the program ended, give its pipes a moment to drain: a leftover
         * process may hold them open, and it must not keep us waiting. */
        if (exited && ((!fds_open[0] && !fds_open[1]) || now - exit_time > 0.2))
            break;
        if (stop_requested || over_cap) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
        } else if (!exited && now >= deadline) {
            if (!timed_out) {
                timed_out = 1;
                term_sent = now;
                kill(-pid, SIGTERM);
                kill(pid, SIGTERM);
            } else if (now - term_sent >= req->kill_grace) {
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
            }
        }
        struct pollfd pfd[2] = { { fds_open[0] ? out_pipe[0] : -1, POLLIN, 0 },
                                 { fds_open[1] ? err_pipe[0] : -1, POLLIN, 0 } };
        int ready = poll(pfd, 2, 20);
        if (ready > 0) {
            if (pfd[0].revents && !drain(out_pipe[0], &out, &total, req->output_cap, &over_cap))
                fds_open[0] = 0;
            if (pfd[1].revents && !drain(err_pipe[0], &err, &total, req->output_cap, &over_cap))
                fds_open[1] = 0;
        }
    }
    close(out_pipe[0]);
    close(err_pipe[0]);
    res->seconds = (exit_time > 0 ? exit_time : now_seconds()) - start;

    /* A program that ended by itself must leave nothing behind: anything alive in
     * its session, or re-parented to us (it left the session), is a leftover.
     * When the grader killed the run, what is left is being killed anyway. */
    if (!timed_out && !over_cap && !stop_requested) {
        pid_t pids[256];
        res->leftovers = find_processes(getpid(), pid, 0, pids, 256);
    }
    kill(-pid, SIGKILL);
    runner_sweep();

    res->out = out.data;
    res->out_len = out.len;
    res->err = err.data;
    res->err_len = err.len;
    if (start_failed)
        res->outcome = RUN_START_FAILED;
    else if (stop_requested)
        res->outcome = RUN_INTERRUPTED;
    else if (over_cap)
        res->outcome = RUN_OUTPUT_LIMIT;
    else if (timed_out)
        res->outcome = RUN_TIMEOUT;
    else if (WIFSIGNALED(wstatus)) {
        res->outcome = RUN_SIGNALED;
        res->signal = WTERMSIG(wstatus);
    } else {
        res->outcome = RUN_EXITED;
        res->exit_code = WEXITSTATUS(wstatus);
    }
}

void run_result_free(run_result *res)
{
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
}
