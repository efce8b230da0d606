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
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* The grader's helpers (runner_fork_helper): its own forks, never a run's leftovers. */
#define MAX_HELPERS 4
static pid_t helpers[MAX_HELPERS];
static int nhelpers;

static int is_helper(pid_t pid)
{
    for (int i = 0; i < nhelpers; i++)
        if (helpers[i] == pid)
            return 1;
    return 0;
}

pid_t runner_fork_helper(void)
{
    if (nhelpers == MAX_HELPERS)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        nhelpers = 0;
        /* its runs' orphans come back to it, not to the grader beside it */
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    } else if (pid > 0) {
        helpers[nhelpers++] = pid;
    }
    return pid;
}

void runner_helper_done(pid_t pid)
{
    /* (a run's sweep may have reaped it already: ECHILD) */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    for (int i = 0; i < nhelpers; i++)
        if (helpers[i] == pid)
            helpers[i--] = helpers[--nhelpers];
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
    case RUN_MEMORY_LIMIT:
        return xasprintf("used more than %zu MiB of memory (all its processes together): stopped "
                         "(GRADE_MEMORY_LIMIT sets the limit)", res->max_memory >> 20);
    case RUN_PROCESS_LIMIT:
        return xasprintf("started %d or more processes at once: stopped, a fork bomb? "
                         "(GRADE_PROCESS_LIMIT sets the limit)", res->max_procs);
    case RUN_START_FAILED:
        return xasprintf("could not start: %s", res->start_error);
    case RUN_INTERRUPTED:
        return xstrdup("interrupted");
    }
    return xstrdup("?");
}

/* ---- the leftover sweep ---------------------------------------------------- */

/* Reads a small /proc file (at most size - 1 bytes) into buf, NUL-terminated: its length, or
 * 0 when it cannot be read or is empty. */
static size_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return (size_t)n;
}

/* Lists the processes whose parent is `parent` or whose session (or process group) is `session`
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
        if (!read_small(path, buf, sizeof buf))
            continue;
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
        if (nhelpers && is_helper((pid_t)atoi(entry->d_name)))
            continue;
        if (ppid == parent || (session > 0 && (sid == session || pgrp == session)))
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

/* ---- limits ------------------------------------------------------------------ */

/* The run's processes (those in its session) and their resident memory. */
static void session_usage(pid_t session, size_t *rss, int *procs)
{
    static pid_t pids[8192];
    int n = find_processes(-2, session, 0, pids, 8192);
    long page = sysconf(_SC_PAGESIZE);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/statm", (int)pids[i]);
        FILE *f = fopen(path, "re");
        unsigned long size = 0, resident = 0;
        if (f && fscanf(f, "%lu %lu", &size, &resident) == 2)
            total += (size_t)resident * (size_t)(page > 0 ? page : 4096);
        if (f)
            fclose(f);
    }
    *rss = total;
    *procs = n;
}

/* Tasks (processes and threads) this user runs now: RLIMIT_NPROC counts them all. */
static long user_tasks(void)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    long count = 0;
    uid_t me = getuid();
    struct dirent *entry;
    while ((entry = readdir(proc)) != NULL) {
        if (!isdigit((unsigned char)entry->d_name[0]))
            continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/%s/status", entry->d_name);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        long uid = -1, threads = 0;
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "Uid:", 4) == 0)
                uid = strtol(line + 4, NULL, 10);
            else if (strncmp(line, "Threads:", 8) == 0)
                threads = strtol(line + 8, NULL, 10);
        }
        fclose(f);
        if (uid == (long)me)
            count += threads;
    }
    closedir(proc);
    return count;
}

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* As root: a pids cgroup of its own for the run (v1 or v2), holding at most
 * max_procs tasks and, where cgroup v2 offers the memory controller, at most twice
 * max_memory bytes: a backstop behind the watchdog for what resident memory does not show
 * (socket buffers, tmpfs pages), whose excess the kernel kills.  Fills dir and returns 1,
 * or returns 0 where none can be made. */
static int cgroup_make(int max_procs, size_t max_memory, char *dir, size_t size)
{
    static int serial = 0;
    static const char *const bases[] = { "/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
    if (geteuid() != 0 || max_procs <= 0)
        return 0;
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        char probe[320], limit[32];
        snprintf(probe, sizeof probe, "%s/cgroup.procs", bases[b]);
        if (access(probe, W_OK) != 0)
            continue;
        snprintf(probe, sizeof probe, "%s/cgroup.subtree_control", bases[b]);
        int v2 = access(probe, W_OK) == 0;
        if (v2) {
            write_text(probe, "+pids"); /* v2: let children limit pids (fails harmlessly if not allowed) */
            if (max_memory > 0)
                write_text(probe, "+memory");
        }
        snprintf(dir, size, "%s/parallel-rooms-%d-%d", bases[b], (int)getpid(), serial++);
        if (mkdir(dir, 0755) != 0)
            continue;
        snprintf(probe, sizeof probe, "%s/pids.max", dir);
        snprintf(limit, sizeof limit, "%d", max_procs);
        if (write_text(probe, limit) == 0) {
            snprintf(probe, sizeof probe, "%s/memory.max", dir);
            if (v2 && max_memory > 0 && access(probe, W_OK) == 0) {
                snprintf(limit, sizeof limit, "%zu", max_memory * 2);
                write_text(probe, limit);
            }
            return 1;
        }
        rmdir(dir);
    }
    dir[0] = '\0';
    return 0;
}

/* 1 once the cgroup refused a fork for being full. */
static int cgroup_limit_hit(const char *dir)
{
    char path[320], line[128];
    snprintf(path, sizeof path, "%s/pids.events", dir);
    FILE *f = fopen(path, "re");
    long hits = 0;
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "max ", 4) == 0)
                hits = strtol(line + 4, NULL, 10);
        fclose(f);
    }
    return hits > 0;
}

static void cgroup_remove(const char *dir)
{
    for (int i = 0; i < 50 && rmdir(dir) != 0 && errno == EBUSY; i++) {
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
}

/* ---- the work, sampled ---------------------------------------------------------- */

/* What the sampler keeps between readings: each thread's and process's id and largest CPU
 * time seen (seconds). */
typedef struct {
    int n;
    int id[WORK_MAX];
    double cpu[WORK_MAX];
} work_table;

typedef struct {
    work_table threads, procs;
    int samples;
    pid_t pids[WORK_MAX]; /* the run's processes at the last scan of /proc */
    int npids;
    double scanned;       /* when /proc was last scanned for them */
} work_sampler;

static void work_note(work_table *t, int id, double cpu)
{
    for (int i = 0; i < t->n; i++)
        if (t->id[i] == id) {
            if (cpu > t->cpu[i])
                t->cpu[i] = cpu;
            return;
        }
    if (t->n < WORK_MAX) {
        t->id[t->n] = id;
        t->cpu[t->n++] = cpu;
    }
}

/* Fields 14 to 17 of a /proc stat file (utime stime cutime cstime), in seconds: own, and of
 * the children it waited for.  Returns 0 when it cannot be read. */
static int stat_times(const char *path, double *own, double *children)
{
    char buf[1024];
    if (!read_small(path, buf, sizeof buf))
        return 0;
    char *p = strrchr(buf, ')');
    unsigned long long ut, st;
    long long cut, cst;
    /* after "pid (comm)": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime... */
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld", &ut, &st, &cut,
                     &cst) != 4)
        return 0;
    double tick = (double)sysconf(_SC_CLK_TCK);
    *own = (double)(ut + st) / tick;
    *children = (double)(cut + cst) / tick;
    return 1;
}

/* A thread's CPU time in seconds: the scheduler's nanoseconds (schedstat), else the ticks of
 * its stat.  -1 when it is gone. */
static double thread_cpu(int pid, int tid)
{
    char path[96], buf[128];
    snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", pid, tid);
    unsigned long long ns;
    if (read_small(path, buf, sizeof buf) && sscanf(buf, "%llu", &ns) == 1)
        return (double)ns * 1e-9;
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, tid);
    double own, children;
    return stat_times(path, &own, &children) ? own : -1;
}

/* Adds the children of the known processes' main threads (/proc/PID/task/PID/children) to
 * the list: a worker process that lives 10 ms is seen before the next scan. */
static void work_add_children(work_sampler *w)
{
    int known = w->npids;
    for (int i = 0; i < known && w->npids < WORK_MAX; i++) {
        char path[96], buf[1024];
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)w->pids[i], (int)w->pids[i]);
        if (!read_small(path, buf, sizeof buf))
            continue;
        for (char *p = buf, *end; *p && w->npids < WORK_MAX; p = end) {
            long child = strtol(p, &end, 10);
            if (end == p)
                break;
            int seen = 0;
            for (int k = 0; k < w->npids && !seen; k++)
                seen = w->pids[k] == (pid_t)child;
            if (!seen && child > 0)
                w->pids[w->npids++] = (pid_t)child;
        }
    }
}

/* One reading of the run's processes (its session: looked for in the whole of /proc every
 * 20 ms, a cost; between the scans, those found last and their children) and their threads. */
static void work_sample(pid_t session, work_sampler *w, double now)
{
    if (now - w->scanned >= 0.02) {
        w->npids = find_processes(-2, session, 0, w->pids, WORK_MAX);
        w->scanned = now;
    } else
        work_add_children(w);
    const pid_t *pids = w->pids;
    for (int i = 0; i < w->npids; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pids[i]);
        double own, children;
        if (stat_times(path, &own, &children))
            work_note(&w->procs, (int)pids[i], own); /* its children are theirs */
        snprintf(path, sizeof path, "/proc/%d/task", (int)pids[i]);
        DIR *d = opendir(path);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (!isdigit((unsigned char)e->d_name[0]))
                continue;
            int tid = atoi(e->d_name);
            double cpu = thread_cpu((int)pids[i], tid);
            if (cpu >= 0)
                work_note(&w->threads, tid, cpu);
        }
        if (d)
            closedir(d);
    }
    w->samples++;
}

static int compare_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x > y ? -1 : x < y;
}

/* The sampler's tables into the result, largest first. */
static void work_fill(work_sampler *w, run_work *out)
{
    qsort(w->threads.cpu, (size_t)w->threads.n, sizeof(double), compare_desc);
    qsort(w->procs.cpu, (size_t)w->procs.n, sizeof(double), compare_desc);
    out->nthreads = w->threads.n < WORK_KEEP ? w->threads.n : WORK_KEEP;
    memcpy(out->thread_cpu, w->threads.cpu, (size_t)out->nthreads * sizeof(double));
    out->nprocs = w->procs.n < WORK_KEEP ? w->procs.n : WORK_KEEP;
    memcpy(out->proc_cpu, w->procs.cpu, (size_t)out->nprocs * sizeof(double));
    out->samples = w->samples;
}

/* ---- one run ---------------------------------------------------------------- */

/* The child's side of the limits: into the cgroup, or RLIMIT_NPROC; RLIMIT_AS; no file
 * larger than the memory limit (RLIMIT_FSIZE: a program filling the disk gets SIGXFSZ);
 * at most 1024 open files (RLIMIT_NOFILE). */
static void child_limits(const run_request *req, const char *cgroup, long user_tasks_now)
{
    if (cgroup[0]) {
        char path[320], pid[32];
        snprintf(path, sizeof path, "%s/cgroup.procs", cgroup);
        snprintf(pid, sizeof pid, "%d", (int)getpid());
        write_text(path, pid);
    } else if (req->max_procs > 0 && geteuid() != 0) {
        struct rlimit nproc = { (rlim_t)(user_tasks_now + req->max_procs),
                                (rlim_t)(user_tasks_now + req->max_procs) };
        setrlimit(RLIMIT_NPROC, &nproc);
    }
    if (req->max_memory > 0) {
        struct rlimit fsize = { (rlim_t)req->max_memory, (rlim_t)req->max_memory };
        setrlimit(RLIMIT_FSIZE, &fsize);
        /* the usual default: a program holding thousands of sockets is up to no good */
        struct rlimit files;
        if (getrlimit(RLIMIT_NOFILE, &files) == 0 && (files.rlim_max == RLIM_INFINITY || files.rlim_max > 1024)) {
            files.rlim_cur = files.rlim_cur < 1024 ? files.rlim_cur : 1024;
            files.rlim_max = 1024;
            setrlimit(RLIMIT_NOFILE, &files);
        }
    }
    if (req->limit_address_space && req->max_memory > 0) {
        rlim_t bytes = (rlim_t)req->max_memory * 2;
        struct rlimit as = { bytes, bytes };
        setrlimit(RLIMIT_AS, &as);
    }
}

/* The child's signals as a fresh program expects them: default dispositions (the grader's
 * handlers must not leak into the run) and nothing blocked.  Async-signal-safe. */
static void child_reset_signals(void)
{
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The child's standard streams: stdin from /dev/null, stdout and stderr into the grader's pipes. */
static void child_redirect(int out_fd, int err_fd)
{
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
}

/* No descriptor of the grader's but the three streams reaches the program (nor, through
 * bwrap, which passes on what it gets, a sandboxed one): a report, a log or a script's
 * file left open would be a way out.  Every descriptor from 3 up is closed at exec. */
static void child_close_others(void)
{
#if defined(SYS_close_range)
    if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536)
        max = 65536;
    for (int fd = 3; fd < max; fd++)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* The child after fork: its own session, the limits, the streams, no core files, the extra
 * environment, the folder, then exec.  Never returns: on failure it writes why to status_fd
 * and exits 127. */
static void child_exec(const run_request *req, int out_fd, int err_fd, int status_fd, const char *cgroup,
                       long user_tasks_now)
{
    setsid();
    child_limits(req, cgroup, user_tasks_now);
    child_reset_signals();
    child_redirect(out_fd, err_fd);
    child_close_others();
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

/* The parent's view of one run: the child, its pipes and cgroup, what it printed, and why it ended. */
typedef struct {
    pid_t pid;
    int out_fd, err_fd; /* the read ends of the child's stdout and stderr */
    char cgroup[300];   /* its pids cgroup, or "" */
    int have_cgroup;
    strbuf out, err;
    double start, exit_time; /* exit_time: 0 until the child was reaped */
    int start_failed, exited, wstatus;
    int over_cap, timed_out, over_memory, over_procs; /* why the grader stopped it */
    work_sampler *work; /* the work's readings (measure_work), or NULL */
} run_state;

/* A run that never started: the outcome, why (`what`: strerror(errno)), and empty output. */
static void start_failed(run_state *st, run_result *res, const char *what)
{
    res->outcome = RUN_START_FAILED;
    snprintf(res->start_error, sizeof res->start_error, "%s: %s", what, strerror(errno));
    res->out = st->out.data;
    res->err = st->err.data;
}

/* Waits for the child's exec: the status pipe closes on exec (EOF) or carries the error,
 * which goes into res->start_error.  Closes status_fd; returns 1 when the start failed. */
static int wait_for_exec(int status_fd, run_result *res)
{
    char start_msg[256];
    ssize_t got;
    do
        got = read(status_fd, start_msg, sizeof start_msg - 1);
    while (got < 0 && errno == EINTR);
    close(status_fd);
    if (got <= 0)
        return 0;
    start_msg[got] = '\0';
    snprintf(res->start_error, sizeof res->start_error, "%s", start_msg);
    return 1;
}

/* The watchdog's sample: memory and processes of the whole run, into res's peaks; sets
 * st->over_memory or st->over_procs when the run went past the request's limits. */
static void watchdog_sample(const run_request *req, run_state *st, run_result *res)
{
    size_t rss;
    int procs;
    session_usage(st->pid, &rss, &procs);
    if (rss > res->peak_memory)
        res->peak_memory = rss;
    if (procs > res->peak_procs)
        res->peak_procs = procs;
    if (req->max_memory && rss > req->max_memory)
        st->over_memory = 1;
    if (req->max_procs && ((st->have_cgroup && cgroup_limit_hit(st->cgroup)) || procs >= req->max_procs * 9 / 10))
        st->over_procs = 1;
}

/* Signals the run's group and leader. */
static void kill_run(pid_t pid, int sig)
{
    kill(-pid, sig);
    kill(pid, sig);
}

/* The parent's wait loop: reaps the child, captures its output up to the cap, samples the
 * watchdog 20 times a second, and stops the run (Ctrl-C, a limit, the timeout: SIGTERM,
 * then SIGKILL after the grace).  Returns once the child ended and its pipes drained. */
static void watch_run(const run_request *req, run_state *st, run_result *res)
{
    fcntl(st->out_fd, F_SETFL, O_NONBLOCK);
    fcntl(st->err_fd, F_SETFL, O_NONBLOCK);
    int fds_open[2] = { 1, 1 };
    size_t total = 0;
    double deadline = st->start + req->timeout;
    double term_sent = 0, last_sample = 0, last_work = 0;

    for (;;) {
        if (!st->exited) {
            pid_t w = waitpid(st->pid, &st->wstatus, WNOHANG);
            if (w == st->pid) {
                st->exited = 1;
                st->exit_time = now_seconds();
            }
        }
        double now = now_seconds();
        /* After the program ended, give its pipes a moment to drain: a leftover
         * process may hold them open, and it must not keep us waiting. */
        if (st->exited && ((!fds_open[0] && !fds_open[1]) || now - st->exit_time > 0.2))
            break;
        if (!st->exited && (req->max_memory || req->max_procs) && now - last_sample >= 0.05) {
            last_sample = now;
            watchdog_sample(req, st, res);
        }
        if (!st->exited && st->work && now - last_work >= 0.004) {
            last_work = now;
            work_sample(st->pid, st->work, now);
        }
        if (stop_requested || st->over_cap || st->over_memory || st->over_procs) {
            kill_run(st->pid, SIGKILL);
        } else if (!st->exited && now >= deadline) {
            if (!st->timed_out) {
                st->timed_out = 1;
                term_sent = now;
                kill_run(st->pid, SIGTERM);
            } else if (now - term_sent >= req->kill_grace) {
                kill_run(st->pid, SIGKILL);
            }
        }
        struct pollfd pfd[2] = { { fds_open[0] ? st->out_fd : -1, POLLIN, 0 },
                                 { fds_open[1] ? st->err_fd : -1, POLLIN, 0 } };
        int ready = poll(pfd, 2, st->work ? 4 : 20);
        if (ready > 0) {
            if (pfd[0].revents && !drain(st->out_fd, &st->out, &total, req->output_cap, &st->over_cap))
                fds_open[0] = 0;
            if (pfd[1].revents && !drain(st->err_fd, &st->err, &total, req->output_cap, &st->over_cap))
                fds_open[1] = 0;
        }
    }
}

/* Processes the run left behind after it ended by itself: alive in its session, or
 * re-parented to us (it left the session), after a grace of 0.3 s.  Returns how many. */
static int count_leftovers(pid_t session)
{
    /* A moment's grace (0.3 s) for processes already on their way out: under
     * srun, about one run in 50 of room 03 showed a process that outlived the
     * launcher (which one, we did not catch).  What is still there after the
     * grace was left behind. */
    pid_t pids[256];
    int leftovers = 0;
    for (int tries = 0; tries < 15; tries++) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        leftovers = find_processes(getpid(), session, 0, pids, 256);
        if (leftovers == 0)
            break;
        struct timespec pause = { 0, 20 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    return leftovers;
}

/* After the run: counts its leftovers (when it ended by itself: when the grader killed it,
 * what is left is being killed anyway), kills and reaps them, and removes the cgroup
 * (noting a fork refused by it). */
static void sweep_run(run_state *st, run_result *res)
{
    if (!st->timed_out && !st->over_cap && !st->over_memory && !st->over_procs && !stop_requested)
        res->leftovers = count_leftovers(st->pid);
    kill(-st->pid, SIGKILL);
    runner_sweep();
    if (st->have_cgroup) {
        if (!st->over_procs && !st->exited)
            st->over_procs = cgroup_limit_hit(st->cgroup);
        cgroup_remove(st->cgroup);
    }
}

/* The result: the captured output (res takes st's buffers) and how the run ended. */
static void fill_result(run_state *st, run_result *res)
{
    res->out = st->out.data;
    res->out_len = st->out.len;
    res->err = st->err.data;
    res->err_len = st->err.len;
    if (st->start_failed)
        res->outcome = RUN_START_FAILED;
    else if (stop_requested)
        res->outcome = RUN_INTERRUPTED;
    else if (st->over_cap)
        res->outcome = RUN_OUTPUT_LIMIT;
    else if (st->over_procs)
        res->outcome = RUN_PROCESS_LIMIT;
    else if (st->over_memory)
        res->outcome = RUN_MEMORY_LIMIT;
    else if (st->timed_out)
        res->outcome = RUN_TIMEOUT;
    else if (WIFSIGNALED(st->wstatus)) {
        res->outcome = RUN_SIGNALED;
        res->signal = WTERMSIG(st->wstatus);
    } else {
        res->outcome = RUN_EXITED;
        res->exit_code = WEXITSTATUS(st->wstatus);
    }
}

static double rusage_seconds(const struct rusage *u)
{
    return (double)u->ru_utime.tv_sec + (double)u->ru_utime.tv_usec * 1e-6 + (double)u->ru_stime.tv_sec +
           (double)u->ru_stime.tv_usec * 1e-6;
}

void run_process(const run_request *req, run_result *res)
{
    memset(res, 0, sizeof *res);
    run_state st = { 0 };
    sb_append(&st.out, "", 0);
    sb_append(&st.err, "", 0);
    int out_pipe[2], err_pipe[2], status_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
        pipe2(status_pipe, O_CLOEXEC) != 0) {
        start_failed(&st, res, "pipe");
        return;
    }
    st.have_cgroup = cgroup_make(req->max_procs, req->max_memory, st.cgroup, sizeof st.cgroup);
    long tasks_now = !st.have_cgroup && req->max_procs > 0 && geteuid() != 0 ? user_tasks() : 0;
    res->max_memory = req->max_memory;
    res->max_procs = req->max_procs;
    struct rusage before;
    getrusage(RUSAGE_CHILDREN, &before);
    if (req->measure_work) {
        st.work = xmalloc(sizeof *st.work);
        memset(st.work, 0, sizeof *st.work);
    }
    st.start = now_seconds();
    st.pid = fork();
    if (st.pid < 0) {
        start_failed(&st, res, "fork");
        for (int i = 0; i < 2; i++)
            close(out_pipe[i]), close(err_pipe[i]), close(status_pipe[i]);
        if (st.have_cgroup)
            cgroup_remove(st.cgroup);
        free(st.work);
        return;
    }
    if (st.pid == 0)
        child_exec(req, out_pipe[1], err_pipe[1], status_pipe[1], st.cgroup, tasks_now);

    close(out_pipe[1]);
    close(err_pipe[1]);
    close(status_pipe[1]);
    /* The child calls setsid() before exec; the blocking read in wait_for_exec waits for
     * the exec, so from then on its session and process group are its pid.  (Calling
     * setpgid here as well would race with that setsid: a process that is already
     * a group leader cannot start a session, and would stay in the grader's.) */
    st.start_failed = wait_for_exec(status_pipe[0], res);
    st.out_fd = out_pipe[0];
    st.err_fd = err_pipe[0];
    watch_run(req, &st, res);
    close(st.out_fd);
    close(st.err_fd);
    res->seconds = (st.exit_time > 0 ? st.exit_time : now_seconds()) - st.start;
    sweep_run(&st, res);
    fill_result(&st, res);
    if (st.work) {
        /* every process of the run has been reaped by now (by its parent, or by the sweep) */
        struct rusage after;
        getrusage(RUSAGE_CHILDREN, &after);
        res->work = xmalloc(sizeof *res->work);
        memset(res->work, 0, sizeof *res->work);
        res->work->cpu = rusage_seconds(&after) - rusage_seconds(&before);
        work_fill(st.work, res->work);
        free(st.work);
    }
}

void run_result_free(run_result *res)
{
    free(res->out);
    free(res->err);
    free(res->work);
    res->out = res->err = NULL;
    res->work = NULL;
}
