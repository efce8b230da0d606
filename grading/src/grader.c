/* grader.c -- see grader.h. */
#define _GNU_SOURCE
#include "grader.h"
#include "gen.h"
#include "perf.h"
#include "report.h"
#include "results.h"
#include "util.h"
#include "work.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERROR_LINES 20


/* make V=1: the command, as one could paste it into a shell (environment first). */
static void show_command(const grade_context *ctx, const strlist *cmd, const strlist *env)
{
    if (!ctx->verbose)
        return;
    printf("    $");
    for (int i = 0; env && i < env->count; i++)
        printf(" %s", env->items[i]);
    for (int i = 0; i < cmd->count; i++) {
        const char *w = cmd->items[i];
        int plain = w[0] && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:+@%") ==
                                 strlen(w);
        printf(plain ? " %s" : " '%s'", w);
    }
    printf("\n");
    fflush(stdout);
}

/* Runs cmd in a fresh scratch folder (removed afterwards); under the policy's process and
 * memory limits for a program (limits: LIMITS_CPU, or LIMITS_CUDA without the address-space
 * cap; LIMITS_NONE: none); the learner's side (view not NULL, the
 * sandbox active) in the sandbox, with view's paths and the scratch folder. */
static void run_limited(const grade_context *ctx, strlist *cmd, strlist *env, double timeout, size_t cap,
                        int limits, const sandbox_view *view, run_result *res)
{
    const char *tmp = getenv("TMPDIR");
    char *scratch = xasprintf("%s/pr-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        free(scratch);
        scratch = NULL;
    }
    strlist boxed = { 0 };
    int in_sandbox = view && ctx->sandbox && ctx->sandbox->active;
    if (in_sandbox) {
        sandbox_view v = *view;
        v.cwd = scratch;
        sandbox_command(ctx->sandbox, &v, cmd, env, &boxed);
    }
    run_request req = { .argv = sl_argv(in_sandbox ? &boxed : cmd), .env_extra = env ? sl_argv(env) : NULL,
                        .cwd = scratch, .timeout = timeout, .kill_grace = POLICY_KILL_GRACE, .output_cap = cap };
    if (limits != LIMITS_NONE) {
        policy_limit_program(ctx->policy, limits == LIMITS_CUDA, &req);
        req.measure_work = 1; /* a program: how its work was spread (work.h) */
    }
    run_process(&req, res);
    if (in_sandbox)
        sandbox_take_status(res);
    sl_free(&boxed);
    if (scratch) {
        remove_tree(scratch);
        free(scratch);
    }
}

/* What a learner's build sees in the sandbox: its source's folder, pr.h's, the room's
 * headers (each file: not the room's task files, nor a .backups/ folder) and, for
 * simulated CUDA, the simulator's and its compiled runtime, read-only; the executable's
 * folder, writable. */
static void build_view(const grade_context *ctx, const task_meta *task, const char *source, const char *exe,
                       sandbox_view *v)
{
    memset(v, 0, sizeof *v);
    char *dir = xstrdup(source);
    *strrchr(dir, '/') = '\0';
    sl_push_owned(&v->ro, dir);
    sl_push(&v->ro, ctx->tc->include_dir);
    char *room = xasprintf("%s/%s", ctx->root, task->room);
    DIR *d = opendir(room);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > 2 && e->d_name[0] != '.' && strcmp(e->d_name + n - 2, ".h") == 0)
            sl_push_owned(&v->ro, xasprintf("%s/%s", room, e->d_name));
    }
    if (d)
        closedir(d);
    free(room);
    if (ctx->plan->mode == MODE_SIM) {
        sl_push_owned(&v->ro, xasprintf("%s/sim", ctx->tc->grading_dir));
        sl_push_owned(&v->ro, xasprintf("%s/bin/simpp", ctx->tc->grading_dir));
        char *rt = xasprintf("%s/bin/simrt", ctx->tc->grading_dir); /* (see build) */
        if (file_exists(rt))
            sl_push(&v->ro, rt);
        free(rt);
    }
    dir = xstrdup(exe);
    *strrchr(dir, '/') = '\0';
    sl_push_owned(&v->rw, dir);
    v->gpu = ctx->plan->gpu_in_sandbox;
}

/* What a learner's program sees in the sandbox: itself, read-only (and the GPU natively). */
static void run_view(const grade_context *ctx, const char *exe, sandbox_view *v)
{
    memset(v, 0, sizeof *v);
    sl_push(&v->ro, exe);
    v->gpu = ctx->plan->gpu_in_sandbox;
}

/* The exit status with which grading/sim/simcc says "this needs what the simulator lacks". */
#define SIMCC_NOT_SIMULATED 77

/* Compiles source into exe (the learner's: in the sandbox); returns NULL, or the reason it
 * failed (new string).  *not_simulated is set when the CUDA simulator refused the program
 * (a SKIP). */
static char *build(const grade_context *ctx, const task_meta *task, const char *source, const char *exe,
                   int learner, int *not_simulated)
{
    *not_simulated = 0;
    if (!file_exists(source))
        return xasprintf("%s: no such file", source);
    char *dir = xstrdup(exe);
    *strrchr(dir, '/') = '\0';
    make_dirs(dir);
    free(dir);
    strlist cmd = { 0 };
    build_command(ctx->tc, task, source, exe, &cmd);
    run_result res;
    if (learner && ctx->plan->mode == MODE_SIM) {
        /* simcc keeps the simulator's runtime compiled (grading/bin/simrt/), which the
         * sandboxed build can read but not write: make this build's flavour of it first,
         * outside (quick once made; a failure leaves the build to compile its own) */
        strlist prep = { 0 };
        for (int i = 0; i < cmd.count; i++)
            sl_push(&prep, cmd.items[i]);
        sl_push(&prep, "--prepare");
        run_limited(ctx, &prep, NULL, policy_build_timeout(ctx->policy), POLICY_BUILD_OUTPUT_CAP, LIMITS_NONE, NULL,
                    &res);
        run_result_free(&res);
        sl_free(&prep);
    }
    show_command(ctx, &cmd, NULL);
    sandbox_view view;
    build_view(ctx, task, source, exe, &view);
    /* the learner's build: under the process and memory limits of a CUDA program (no
     * address-space cap: nvcc reserves much), as a build of `#include "/dev/zero"` must stop */
    run_limited(ctx, &cmd, NULL, policy_build_timeout(ctx->policy), POLICY_BUILD_OUTPUT_CAP,
                learner ? LIMITS_CUDA : LIMITS_NONE, learner ? &view : NULL, &res);
    sandbox_view_free(&view);
    char *failure = NULL;
    if (res.outcome == RUN_EXITED && res.exit_code == SIMCC_NOT_SIMULATED && ctx->plan->mode == MODE_SIM) {
        *not_simulated = 1;
        failure = first_lines(res.err, 1, 300);
        failure[strcspn(failure, "\n")] = '\0';
    } else if (res.outcome != RUN_EXITED || res.exit_code != 0) {
        char *how = run_describe(&res, policy_build_timeout(ctx->policy));
        const char *text = res.err_len ? res.err : res.out;
        char *head = first_lines(text, ERROR_LINES, 4000);
        failure = xasprintf("it does not compile (%s %s):\n%s", cmd.items[0], how, head);
        free(head);
        free(how);
    }
    run_result_free(&res);
    sl_free(&cmd);
    return failure;
}

/* 1 when every header in dir is older than t (a folder that cannot be read: 0). */
static int headers_older(const char *dir, time_t t)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int older = 1;
    for (struct dirent *e; older && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 2, ".h") != 0)
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        struct stat h;
        older = stat(path, &h) == 0 && h.st_mtime < t;
        free(path);
    }
    closedir(d);
    return older;
}

/* 1 when exe exists and is newer than every file it is made from: the source, pr.h's
 * folder and the room's own headers. */
static int up_to_date(const grade_context *ctx, const task_meta *task, const char *exe, const char *source)
{
    struct stat e, s;
    if (stat(exe, &e) != 0 || stat(source, &s) != 0 || e.st_mtime <= s.st_mtime)
        return 0;
    char *room = xasprintf("%s/%s", ctx->root, task->room);
    char *sim = xasprintf("%s/sim", ctx->tc->grading_dir);
    int fresh = headers_older(ctx->tc->include_dir, e.st_mtime) && headers_older(room, e.st_mtime) &&
                (ctx->plan->mode != MODE_SIM || headers_older(sim, e.st_mtime));
    free(room);
    free(sim);
    return fresh;
}

/* The reference executable: built as usual, or (ctx->reuse_refs) kept when up to
 * date.  Built under a temporary name and renamed, so that graders running side
 * by side (class grading) never run a half-written one. */
static char *build_reference(const grade_context *ctx, const task_meta *task, const char *source,
                             const char *exe, int *not_simulated)
{
    *not_simulated = 0;
    if (ctx->reuse_refs && up_to_date(ctx, task, exe, source))
        return NULL;
    char *tmp = xasprintf("%s.%ld.tmp", exe, (long)getpid());
    char *failure = build(ctx, task, source, tmp, 0, not_simulated);
    if (!failure && rename(tmp, exe) != 0)
        failure = xasprintf("cannot rename %s to %s", tmp, exe);
    unlink(tmp);
    free(tmp);
    return failure;
}

/* The reference's build, beside the learner's: two compilers at once, where the builds are
 * most of a task's grading (a simulated CUDA task's two take about 4 s each).  A helper
 * (runner_fork_helper) builds it and sends back a letter (K built, F failed, N not
 * simulated) and the failure's text.  Nothing is timed while both run. */
typedef struct {
    pid_t pid; /* the helper, or -1: build it in turn (reference_build_wait) */
    int fd;    /* the pipe it answers through */
} ref_build;

static void reference_build_start(const grade_context *ctx, const task_meta *task, const char *source,
                                  const char *exe, ref_build *rb)
{
    rb->pid = -1;
    rb->fd = -1;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return;
    pid_t pid = runner_fork_helper();
    if (pid == 0) {
        close(p[0]);
        int not_simulated = 0;
        char *failure = build_reference(ctx, task, source, exe, &not_simulated);
        strbuf msg = { 0 };
        sb_printf(&msg, "%c%s", not_simulated ? 'N' : failure ? 'F' : 'K', failure ? failure : "");
        for (size_t at = 0; at < msg.len;) {
            ssize_t n = write(p[1], msg.data + at, msg.len - at);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            at += (size_t)n;
        }
        _exit(0);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return;
    }
    rb->pid = pid;
    rb->fd = p[0];
}

/* The reference's build result (as build_reference's), once its helper answered; built here
 * when no helper started or it gave no answer. */
static char *reference_build_wait(const grade_context *ctx, const task_meta *task, const char *source,
                                  const char *exe, ref_build *rb, int *not_simulated)
{
    *not_simulated = 0;
    strbuf msg = { 0 };
    if (rb->pid > 0) {
        char buf[4096];
        for (int told = 0;;) {
            if (!told && runner_interrupted()) {
                /* (a signal sent to the grader alone: its helper stops too) */
                kill(rb->pid, SIGTERM);
                told = 1;
            }
            ssize_t n = read(rb->fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            sb_append(&msg, buf, (size_t)n);
        }
        close(rb->fd);
        runner_helper_done(rb->pid);
    }
    if (msg.len == 0 || !strchr("KFN", msg.data[0])) {
        free(msg.data);
        return build_reference(ctx, task, source, exe, not_simulated);
    }
    char *failure = msg.data[0] == 'K' ? NULL : xstrdup(msg.data + 1);
    *not_simulated = msg.data[0] == 'N';
    free(msg.data);
    return failure;
}

/* The CUDA simulator's own explanation ("cuda-sim: error: ..."), one line, or NULL. */
static char *simulator_error(const run_result *run)
{
    const char *at = run->err ? strstr(run->err, "cuda-sim: error:") : NULL;
    if (!at)
        return NULL;
    char *line = first_lines(at, 1, 300);
    line[strcspn(line, "\n")] = '\0';
    return line;
}

/* The race checker's first report (simcc --racecheck, cuda_sim_profile.h): its line, which
 * names both accesses with their threads and source lines, from "a race" on and cut before
 * the words ", with no", or NULL. */
static char *race_report(const run_result *run)
{
    const char *at = run->err ? strstr(run->err, "cuda-sim: racecheck: ") : NULL;
    if (!at)
        return NULL;
    at += strlen("cuda-sim: racecheck: ");
    size_t n = strcspn(at, "\n");
    const char *cut = strstr(at, ", with no ");
    if (cut && (size_t)(cut - at) < n)
        n = (size_t)(cut - at);
    return xasprintf("%.*s", (int)(n < 400 ? n : 400), at);
}

grade_status judge_run(const run_result *task_run, double timeout, const result_set *expected, int via_launcher,
                       char **message)
{
    *message = NULL;
    int rank_signal = via_launcher && task_run->outcome == RUN_EXITED && task_run->exit_code != 0
                    ? launcher_reported_signal(task_run->err) : 0;
    if (!rank_signal && via_launcher && task_run->outcome == RUN_EXITED && task_run->exit_code != 0)
        rank_signal = launcher_reported_signal(task_run->out); /* Hydra prints it on stdout */
    /* SIGHUP, and SIGKILL after a rank's own pr.h complaint, are the launcher's
     * clean-up (Hydra hangs up on, then kills, the other ranks once one has exited
     * with an error): that rank's exit status is the story, not a crash. */
    if (rank_signal == SIGHUP ||
        (rank_signal == SIGKILL && task_run->err_len && strstr(task_run->err, "pr.h: ")))
        rank_signal = 0;
    if (rank_signal) {
        *message = xasprintf("a rank was killed by %s (%s), said %s", signal_name(rank_signal),
                             strsignal(rank_signal), "the MPI launcher");
        return ST_CRASH;
    }
    switch (task_run->outcome) {
    case RUN_TIMEOUT: {
        char *how = run_describe(task_run, timeout);
        /* An MPI program that stops making progress is almost always waiting for a
         * message or a collective that never comes. */
        *message = via_launcher ? xasprintf("%s; likely a deadlock: every blocking send and receive needs its "
                                            "partner (rank and tag must match), no two ranks may each wait for "
                                            "the other first, and every rank must make the same collective calls",
                                            how)
                                : xstrdup(how);
        free(how);
        return ST_TIMEOUT;
    }
    case RUN_SIGNALED: {
        char *how = run_describe(task_run, timeout);
        char *sim_error = simulator_error(task_run);
        if (sim_error) {
            /* The CUDA simulator says why it stopped the program: say it too. */
            *message = xasprintf("%s: %s", how, sim_error);
            free(sim_error);
            free(how);
        } else {
            *message = how;
        }
        return ST_CRASH;
    }
    case RUN_OUTPUT_LIMIT:
    case RUN_MEMORY_LIMIT:
    case RUN_PROCESS_LIMIT:
    case RUN_START_FAILED:
    case RUN_INTERRUPTED:
        *message = run_describe(task_run, timeout);
        return ST_FAIL;
    case RUN_EXITED:
        break;
    }
    strbuf why = { 0 };
    char *sim_error = NULL;
    result_set got = { 0 };
    char parse_err[300] = "";
    int parsed = results_parse(task_run->out, &got, parse_err, sizeof parse_err) == 0;
    if (!parsed)
        sb_printf(&why, "%s", parse_err);
    char *diff = NULL;
    if (parsed && expected && results_compare(expected, &got, &diff) > 0)
        sb_printf(&why, "%s%s", why.len ? "\n" : "", diff);
    free(diff);
    results_free(&got);
    if (task_run->exit_code == 2) {
        char *line = first_lines(task_run->err_len ? task_run->err : task_run->out, 1, 300);
        sb_printf(&why, "%sexited with status 2 (bad arguments): %s", why.len ? "\n" : "", line);
        free(line);
    } else if (task_run->exit_code != 0 && task_run->err_len && strstr(task_run->err, "pr.h: ")) {
        /* pr.h's own complaint (a rank that skipped MPI_Finalize): say it. */
        char *line = first_lines(strstr(task_run->err, "pr.h: "), 1, 300);
        sb_printf(&why, "%sexited with status %d: %s", why.len ? "\n" : "", task_run->exit_code, line);
        free(line);
    } else if (task_run->exit_code != 0 && (sim_error = race_report(task_run)) != NULL) {
        /* the race checker (make grade RACECHECK=1) found one */
        sb_printf(&why, "%sthe race checker found %s", why.len ? "\n" : "", sim_error);
        free(sim_error);
    } else if (task_run->exit_code != 0 && (sim_error = simulator_error(task_run)) != NULL) {
        /* The CUDA simulator stopped it (its own exit status), and says why. */
        sb_printf(&why, "%sstopped by the CUDA simulator: %s", why.len ? "\n" : "",
                  sim_error + strlen("cuda-sim: error: "));
        free(sim_error);
    } else if (task_run->exit_code != 0) {
        sb_printf(&why, "%sexited with status %d (its own check failed)", why.len ? "\n" : "",
                  task_run->exit_code);
    }
    /* a program that filled its writable space (sandbox.h: SANDBOX_SPACE_MIB each) */
    if (why.len && ((task_run->err_len && strstr(task_run->err, "No space left on device")) ||
                    (task_run->out && strstr(task_run->out, "No space left on device"))))
        sb_printf(&why, "\nit ran out of space (\"No space left on device\"): in the grader's sandbox a program may "
                        "write at most %d MiB into each of its working folder, /tmp and /dev/shm",
                  SANDBOX_SPACE_MIB);
    if (task_run->leftovers > 0)
        sb_printf(&why, "%sleft %d process%s running after it ended (killed by the grader)", why.len ? "\n" : "",
                  task_run->leftovers, task_run->leftovers == 1 ? "" : "es");
    if (why.len == 0)
        return ST_PASS;
    *message = why.data;
    return ST_FAIL;
}

/* Keeps the full output of a failing run under build/logs/. */
static char *write_log(const grade_context *ctx, const task_meta *task, const char *config, strlist *cmd,
                       const run_result *res, const char *why, const result_set *expected)
{
    strbuf sb = { 0 };
    sb_printf(&sb, "task:    %s\nconfig:  %s\ncommand:", task->id, config);
    for (int i = 0; i < cmd->count; i++)
        sb_printf(&sb, " %s", cmd->items[i]);
    sb_printf(&sb, "\nseconds: %.3f\nverdict: %s\n", res->seconds, why ? why : "");
    if (expected && !ctx->hide_expected) {
        sb_printf(&sb, "\n--- the reference's result lines ---\n");
        for (int i = 0; i < expected->count; i++)
            sb_printf(&sb, "result %s = %s%s\n", expected->items[i].name, expected->items[i].value,
                      expected->items[i].has_tol ? " (tolerance declared)" : "");
    }
    sb_printf(&sb, "\n--- stdout ---\n%s\n--- stderr ---\n%s\n", res->out, res->err);
    char *path = xasprintf("%s/logs/%s.log", ctx->build_dir, task->id);
    if (write_file(path, sb.data, sb.len) != 0) {
        free(path);
        path = NULL;
    }
    sb_free(&sb);
    return path;
}

static char *with_config(const char *message, const char *config)
{
    return xasprintf("[%s] %s", config, message ? message : "");
}

/* N from the first "ranks: N" line of a program's output (pr_finish prints it
 * under MPI), or -1 when there is none. */
static int reported_ranks(const char *out)
{
    for (const char *p = out; p && (p = strstr(p, "ranks: ")) != NULL; p += 7)
        if (p == out || p[-1] == '\n')
            return atoi(p + 7);
    return -1;
}

const char *gpu_failure_cause(const char *out, const char *err)
{
    /* cudaGetErrorString's words, as the programs' CHECK prints them */
    static const struct { const char *says, *cause; } known[] = {
        { "driver version is insufficient",
          "the GPU's driver is older than this CUDA toolkit needs; see make doctor" },
        { "busy or unavailable",
          "the GPU takes one process at a time (Exclusive_Process compute mode) or is taken; "
          "this task starts several ranks on one GPU: see make doctor, or GRADE_CUDA=sim" },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if ((out && strstr(out, known[i].says)) || (err && strstr(err, known[i].says)))
            return known[i].cause;
    return NULL;
}

/* Why the reference solution (tested everywhere) failed a run: the machine's GPU, the
 * learner's own settings and the machine's MPI come before "a bug in the workbook". */
static char *reference_failure_cause(const grade_context *ctx, const run_result *ref, const char *parse_err,
                                     int asked, int saw_ranks)
{
    const toolchain *tc = ctx->tc;
    const char *gpu = gpu_failure_cause(ref->out, ref->err);
    if (gpu)
        return xstrdup(gpu);
    const char *aware = getenv("PR_CUDA_AWARE");
    if (aware && strcmp(aware, "1") == 0 && (ctx->plan->kind->flags & KIND_CUDA_AWARE) &&
        (!tc->mpi_gpu_path || strcmp(tc->mpi_gpu_path, "none") == 0))
        return xstrdup("PR_CUDA_AWARE=1 is set with the staging layer off (PR_MPI_STAGE=0): with an MPI that is "
                       "not CUDA-aware, device pointers handed to MPI crash every program; unset them");
    if (ctx->plan->overlaid)
        return xstrdup("the instructor's tasks.ini overlay asks for a configuration the reference refuses, or a bug "
                       "in the workbook");
    if (!ctx->plan->launcher)
        return xstrdup("a bug in the workbook");
    /* Only rank 0 prints results: every line twice means every rank was a rank 0. */
    if (asked > 1 && (saw_ranks == 1 || strstr(parse_err, "printed twice")))
        return xasprintf("asked for %d ranks, it ran as rank 0 of 1: %s does not start %s's MPI as one job; "
                         "see make doctor; MPIEXEC, or MPIEXEC_FLAGS=--mpi=... under srun",
                         asked, tc->mpiexec, tc->mpicc);
    if (saw_ranks >= 0 && saw_ranks != asked)
        return xasprintf("asked for %d ranks, it ran with %d: %s -n %d did not start them as asked; see make doctor",
                         asked, saw_ranks, tc->mpiexec, asked);
    return xasprintf("a bug in the workbook, or this machine's MPI: %s launching what %s built; see make doctor",
                     tc->mpiexec, tc->mpicc);
}

/* Stamps the task's time and shows its line. */
static void task_done(task_report *tr, double start, int index, int total)
{
    /* what a program printed reaches the terminal and the reports only as printable text */
    text_printable(tr->message);
    for (int i = 0; i < tr->nruns; i++)
        text_printable(tr->runs[i].message);
    tr->seconds = now_seconds() - start;
    term_task_done(index, total, tr);
}

/* An empty report for task: its mode, and one run report per configuration, not yet run. */
static void report_init(const grade_context *ctx, const task_meta *task, task_report *tr)
{
    memset(tr, 0, sizeof *tr);
    tr->meta = task;
    tr->mode = ctx->plan->mode;
    tr->nruns = task->nconfigs;
    tr->runs = xmalloc((size_t)tr->nruns * sizeof *tr->runs);
    memset(tr->runs, 0, (size_t)tr->nruns * sizeof *tr->runs);
    for (int c = 0; c < tr->nruns; c++)
        tr->runs[c].config = xstrdup(task->configs[c].label);
}

/* The files one task is graded from and into: both sources, both executables. */
typedef struct {
    char *ref_src, *task_src, *ref_exe, *task_exe;
} task_files;

/* Names task's files (new strings; task_files_free frees them). */
static void task_files_make(const grade_context *ctx, const task_meta *task, task_files *f)
{
    f->ref_src = xasprintf("%s/solutions/%s/%s", ctx->root, task->room, task->source);
    f->task_src = xasprintf("%s/%s/%s", ctx->tasks_from, task->room, task->source);
    f->ref_exe = ctx->ref_dir ? xasprintf("%s/%s", ctx->ref_dir, task->id)
                              : xasprintf("%s/bin/ref/%s", ctx->build_dir, task->id);
    f->task_exe = xasprintf("%s/bin/task/%s", ctx->build_dir, task->id);
}

/* Frees the names task_files_make made. */
static void task_files_free(task_files *f)
{
    free(f->ref_src), free(f->task_src), free(f->ref_exe), free(f->task_exe);
}

/* A task "file" that is a FIFO, a device or a folder is never opened (a FIFO would block the
 * grader): BUILD_ERROR.  Returns 1 when it is one. */
static int not_a_file(const task_files *f, task_report *tr)
{
    struct stat st;
    if (stat(f->task_src, &st) != 0 || S_ISREG(st.st_mode))
        return 0; /* a missing file is the build's to say */
    tr->status = ST_BUILD_ERROR;
    tr->message = xasprintf("%s is not a regular file: a task is a source file", f->task_src);
    return 1;
}

/* The untouched check: a task file still as it came is NOT_STARTED (a bug hunt excepted: it is
 * a whole program that fails as it comes, and grading it untouched shows the failure).
 * Returns 1, with tr's status and message set, when the task is untouched. */
static int not_started(const grade_context *ctx, const task_files *f, task_report *tr)
{
    if (!ctx->detect_untouched || gen_is_bug_hunt(f->ref_src) != 0 || gen_task_untouched(f->ref_src, f->task_src) != 1)
        return 0;
    tr->status = ST_NOT_STARTED;
    tr->message = xstrdup("not started: the file is still as it came, so it was neither built nor run");
    return 1;
}

/* The skip check: what this machine lacks for the task (toolchain_skip_reason).  Returns 1,
 * with tr's status SKIP and the reason, when it cannot be graded here. */
static int skipped(const grade_context *ctx, const task_meta *task, task_report *tr)
{
    char *skip = toolchain_skip_reason(ctx->tc, task, &tr->skip_needs_gpu);
    if (!skip)
        return 0;
    tr->status = ST_SKIP;
    tr->message = skip;
    return 1;
}

/* Builds the reference and the task, side by side.  Returns 1 when the runs go ahead (both built, or the
 * build was interrupted: the runs then say so); 0 when tr's status is final: SKIP (the
 * simulator cannot run it) or BUILD_ERROR, with its message. */
static int build_both(const grade_context *ctx, const task_meta *task, const task_files *f, task_report *tr)
{
    int not_simulated = 0, task_not_simulated = 0;
    ref_build rb = { -1, -1 };
    if (!(ctx->reuse_refs && up_to_date(ctx, task, f->ref_exe, f->ref_src)))
        reference_build_start(ctx, task, f->ref_src, f->ref_exe, &rb);
    char *task_failure = NULL;
    int task_built = ctx->reuse_task_builds && up_to_date(ctx, task, f->task_exe, f->task_src);
    if (!task_built)
        task_failure = build(ctx, task, f->task_src, f->task_exe, 1, &task_not_simulated);
    char *failure = reference_build_wait(ctx, task, f->ref_src, f->ref_exe, &rb, &not_simulated);
    if (failure && not_simulated) {
        /* The reference needs what the simulator lacks (NCCL, cuFFT, ...): nothing can run here. */
        free(task_failure);
        tr->status = ST_SKIP;
        tr->skip_needs_gpu = 1;
        tr->message = xasprintf("no GPU here, and the CUDA CPU simulator cannot run it (%s)", failure);
        free(failure);
        return 0;
    }
    if (failure) {
        tr->status = ST_BUILD_ERROR;
        tr->reference_failed = 1;
        tr->message = xasprintf("the reference solution does not build (a bug in the workbook):\n%s", failure);
        free(failure);
    } else if ((failure = task_failure) != NULL) {
        task_failure = NULL;
        not_simulated = task_not_simulated;
        /* A task using what the simulator lacks cannot run here: SKIP, not the learner's error. */
        tr->status = not_simulated ? ST_SKIP : ST_BUILD_ERROR;
        tr->message = not_simulated ? xasprintf("your task cannot run in the CUDA CPU simulator (%s): grade it "
                                                "on a machine with a GPU", failure)
                                    : failure;
        if (not_simulated)
            free(failure);
    }
    free(task_failure);
    if (tr->status == ST_SKIP)
        return 0;
    if (tr->status == ST_BUILD_ERROR && runner_interrupted()) {
        /* Not the learner's fault: the build was stopped, it did not fail. */
        free(tr->message);
        tr->message = NULL;
        tr->status = ST_PASS;
    }
    return tr->status != ST_BUILD_ERROR;
}

/* The MPI work layer (grading/layer/pr_mpi_work.c) built with this MPI's compiler wrapper, once
 * per grader and again when the source is newer: its path, or NULL when it cannot be built
 * (the ranks' work is then not measured, and the grader says so once). */
static const char *mpi_work_layer(const grade_context *ctx)
{
    static char *built;
    static int tried;
    if (tried)
        return built;
    tried = 1;
    char *src = xasprintf("%s/layer/pr_mpi_work.c", ctx->tc->grading_dir);
    char *dir = xasprintf("%s/layer", ctx->build_dir);
    const char *slash = strrchr(ctx->tc->mpicc, '/');
    char *lib = xasprintf("%s/pr_mpi_work-%s.so", dir, slash ? slash + 1 : ctx->tc->mpicc);
    struct stat s_src, s_lib;
    int fresh = stat(src, &s_src) == 0 && stat(lib, &s_lib) == 0 && s_lib.st_mtime > s_src.st_mtime;
    if (!fresh && make_dirs(dir) == 0) {
        char *tmp = xasprintf("%s.%d.tmp", lib, (int)getpid());
        char *argv[] = { ctx->tc->mpicc, "-std=gnu11", "-O2", "-fPIC", "-shared", "-o", tmp, src, "-ldl", NULL };
        run_request req = { .argv = argv, .timeout = 120, .kill_grace = POLICY_KILL_GRACE, .output_cap = 1 << 16 };
        run_result res;
        run_process(&req, &res);
        if (res.outcome == RUN_EXITED && res.exit_code == 0 && rename(tmp, lib) == 0)
            fresh = 1;
        else {
            unlink(tmp);
            fprintf(stderr, "grade: the MPI work layer did not build (%s), so how the ranks shared the work is "
                            "not measured:\n%s%s",
                    src, res.out, res.err);
        }
        run_result_free(&res);
        free(tmp);
    }
    if (fresh)
        built = lib;
    else
        free(lib);
    free(src);
    free(dir);
    return built;
}

/* Runs exe at configuration cfg under the task's limits (the learner's side, `learner`, in the
 * sandbox) into res; its command line and environment are left in cmd and env.  MPI ranks
 * started here run with the MPI work layer, and their records end up in res->work. */
static void run_program(const grade_context *ctx, const task_meta *task, const run_config *cfg, const char *exe,
                        int learner, double timeout, strlist *cmd, strlist *env, run_result *res)
{
    const char *layer = ctx->plan->mpi_layer;
    int simulated = ctx->plan->sim_record;
    char *records = NULL;
    if (layer || simulated) {
        const char *tmp = getenv("TMPDIR");
        records = xasprintf("%s/pr-records-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(records)) {
            free(records);
            records = NULL;
            layer = NULL;
        }
    }
    launch_command_layer(ctx->tc, task, cfg, exe, layer, cmd, env);
    if (records && layer)
        sl_push_owned(env, xasprintf("PR_MPI_WORK=%s/rank", records));
    if (records && simulated)
        sl_push_owned(env, xasprintf("PR_SIM_WORK=%s/gpu", records)); /* grading/sim/cuda_sim.h */
    /* the profiler (grading/sim/cuda_sim_profile.h): its counts at the method run, off elsewhere */
    if (records && simulated && ctx->profile_run)
        sl_push_owned(env, xasprintf("CUDA_SIM_PROFILE_OUT=%s/profile-%%p", records));
    else if (ctx->plan->profiled)
        sl_push(env, "CUDA_SIM_PROFILE=0");
    if (ctx->method_run)
        sl_push(env, "OMP_WAIT_POLICY=passive");
    show_command(ctx, cmd, env);
    sandbox_view view;
    run_view(ctx, exe, &view);
    if (layer)
        sl_push(&view.ro, layer);
    if (records)
        sl_push(&view.rw, records);
    run_limited(ctx, cmd, env, timeout, ctx->policy->output_cap, ctx->plan->limits,
                learner && !ctx->plan->runs_outside ? &view : NULL, res);
    sandbox_view_free(&view);
    if (records) {
        if (res->work && layer)
            work_read_ranks(records, "rank", res->work);
        if (res->work && simulated)
            work_read_gpu(records, "gpu", res->work);
        if (res->work && simulated && ctx->profile_run)
            work_read_profile(records, "profile-", res->work);
        remove_tree(records);
        free(records);
    }
}

void grade_run_program(const grade_context *ctx, const task_meta *task, const run_config *cfg, const char *exe,
                       int learner, double timeout, run_result *res)
{
    strlist cmd = { 0 }, env = { 0 };
    run_program(ctx, task, cfg, exe, learner, timeout, &cmd, &env, res);
    sl_free(&cmd);
    sl_free(&env);
}

/* One configuration's reference run: its result lines are what the task must print.  Returns
 * 1 with them in *expected; or 0 with rr's verdict (FAIL) and why the reference failed. */
/* The file that keeps the reference's output at configuration cfg (ctx->ref_outputs), or NULL:
 * named by the task, and a hash of the configuration, the executable (its size and time: a
 * rebuilt reference is another), the mode and the MPI. */
static char *ref_output_path(const grade_context *ctx, const task_meta *task, const run_config *cfg, const char *exe)
{
    struct stat st;
    if (!ctx->ref_outputs || ctx->method_run || stat(exe, &st) != 0)
        return NULL;
    char *key = xasprintf("%s\n%s\n%lld.%09ld %lld\n%d\n%s", task->id, cfg->label, (long long)st.st_mtim.tv_sec,
                          st.st_mtim.tv_nsec, (long long)st.st_size, (int)ctx->plan->mode, ctx->tc->mpi_version);
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    free(key);
    char *dir = xasprintf("%s/%s", ctx->ref_outputs, task->id);
    make_dirs(dir);
    char *path = xasprintf("%s/%016llx.out", dir, (unsigned long long)h);
    free(dir);
    return path;
}

/* A kept output into res (as if the reference had just run: exit 0), 1; 0 when none. */
static int ref_output_load(const char *path, run_result *res)
{
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return 0;
    double seconds = 0;
    strbuf sb = { 0 };
    char buf[4096];
    int ok = fscanf(f, "seconds %lf\n", &seconds) == 1;
    for (size_t n; ok && (n = fread(buf, 1, sizeof buf, f)) > 0;)
        sb_append(&sb, buf, n);
    fclose(f);
    if (!ok) {
        sb_free(&sb);
        return 0;
    }
    memset(res, 0, sizeof *res);
    res->outcome = RUN_EXITED;
    res->seconds = seconds;
    res->out = sb.data ? sb.data : xstrdup("");
    res->out_len = sb.len;
    res->err = xstrdup("");
    return 1;
}

static void ref_output_keep(const char *path, const run_result *res)
{
    char *tmp = xasprintf("%s.%d.tmp", path, (int)getpid());
    char *text = xasprintf("seconds %.6f\n", res->seconds);
    FILE *f = fopen(tmp, "w");
    int ok = f && fputs(text, f) >= 0 && fwrite(res->out, 1, res->out_len, f) == res->out_len;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
    free(text);
    free(tmp);
}

static int run_reference(const grade_context *ctx, const task_meta *task, const run_config *cfg, const char *exe,
                         double timeout, run_report *rr, result_set *expected, run_work **work, double *seconds)
{
    run_result ref;
    char *kept = work ? NULL : ref_output_path(ctx, task, cfg, exe);
    int from_kept = ref_output_load(kept, &ref);
    if (!from_kept)
        grade_run_program(ctx, task, cfg, exe, 0, timeout, &ref);
    *seconds = ref.seconds;
    if (work) {
        *work = ref.work;
        ref.work = NULL;
    }
    char parse_err[300] = "";
    int ref_ok = ref.outcome == RUN_EXITED && ref.exit_code == 0 && ref.leftovers == 0 &&
                 results_parse(ref.out, expected, parse_err, sizeof parse_err) == 0 && expected->count > 0;
    /* The ranks the reference saw (pr_finish's "ranks: N") must be the ranks asked for. */
    int saw_ranks = ctx->plan->launcher ? reported_ranks(ref.out) : -1;
    const char *ranks = config_get(cfg, "ranks");
    int asked_ranks = ranks ? atoi(ranks) : 1;
    if (saw_ranks >= 0 && saw_ranks != asked_ranks)
        ref_ok = 0;
    if (!ref_ok) {
        char *how = run_describe(&ref, timeout);
        /* the reference is tested everywhere: out of time, it is the machine that is slow */
        char *why = ref.outcome == RUN_TIMEOUT
                  ? xstrdup("this machine is too busy for the time limit, or too slow: grade again when it is "
                            "quieter, or with GRADE_TIMEOUT_SCALE=3")
                  : reference_failure_cause(ctx, &ref, parse_err, asked_ranks, saw_ranks);
        rr->ran = 1;
        rr->status = ST_FAIL;
        rr->reference_failed = 1;
        rr->message = xasprintf("the reference solution failed here (%s): %s%s%s", why, how,
                                parse_err[0] ? "; " : "", parse_err);
        free(how), free(why);
    } else if (kept && !from_kept) {
        ref_output_keep(kept, &ref);
    }
    free(kept);
    run_result_free(&ref);
    return ref_ok;
}

/* One run of the task at cfg, judged against the reference's result lines into rr (the first
 * failing run's output goes to tr's log).  Returns how the run ended. */
static run_outcome task_attempt(const grade_context *ctx, const task_meta *task, const run_config *cfg,
                                const char *exe, double timeout, const result_set *expected, run_report *rr,
                                task_report *tr)
{
    strlist cmd = { 0 }, env = { 0 };
    run_result res;
    run_program(ctx, task, cfg, exe, 1, timeout, &cmd, &env, &res);
    rr->ran = res.outcome != RUN_INTERRUPTED;
    rr->seconds = res.seconds;
    free(rr->message);
    free(rr->work);
    rr->status = judge_run(&res, timeout, expected, ctx->plan->launcher, &rr->message);
    rr->work = res.work;
    res.work = NULL;
    if (rr->status != ST_PASS && !tr->log_path)
        tr->log_path = write_log(ctx, task, cfg->label, &cmd, &res, rr->message, expected);
    run_outcome outcome = res.outcome;
    run_result_free(&res);
    sl_free(&cmd);
    sl_free(&env);
    return outcome;
}

/* Whether the machine is too busy to blame a timeout on the task: the reference itself, the
 * same program as far as the grader knows, took a third of the time limit or more. */
static int machine_busy(double ref_seconds, double timeout)
{
    return ref_seconds >= timeout / 3;
}

/* One configuration's task run, judged against the reference's result lines into rr.  A
 * timeout on a machine so busy that the reference was slow too is not the task's fault: the
 * run is tried once more with three times the time, and if it times out again the message
 * says that the machine was busy, not that the program hangs.  Returns the policy's reason not
 * to run the next configurations (a hang, a fork bomb, a memory hog), or NULL. */
static const char *run_task_side(const grade_context *ctx, const task_meta *task, const run_config *cfg,
                                 const char *exe, double timeout, const result_set *expected, double ref_seconds,
                                 run_report *rr, task_report *tr)
{
    int had_log = tr->log_path != NULL;
    run_outcome outcome = task_attempt(ctx, task, cfg, exe, timeout, expected, rr, tr);
    if (outcome == RUN_TIMEOUT && machine_busy(ref_seconds, timeout) && !runner_interrupted()) {
        if (!had_log && tr->log_path) { /* the second try's output is the one to keep */
            unlink(tr->log_path);
            free(tr->log_path);
            tr->log_path = NULL;
        }
        outcome = task_attempt(ctx, task, cfg, exe, 3 * timeout, expected, rr, tr);
        if (outcome == RUN_TIMEOUT) {
            free(rr->message);
            rr->message = xasprintf("still running after %.1f s, on a second try with three times the time "
                                    "(the first stopped at %.1f s): this machine is busy (the reference took %.1f s "
                                    "of the %.1f s limit), so this may not be your program's fault; grade again when "
                                    "it is quieter, or with GRADE_TIMEOUT_SCALE=3",
                                    3 * timeout, timeout, ref_seconds, timeout);
        }
    }
    return policy_stop_reason(ctx->policy, outcome);
}

/* Every configuration: the reference, then the task, each run judged into tr's run reports;
 * once interrupted, or after a run the policy stops at, the rest are marked not run.
 * Returns the worst status of the runs. */
static grade_status run_configs(const grade_context *ctx, const task_meta *task, const task_files *f,
                                task_report *tr)
{
    double timeout = task->timeout * ctx->policy->timeout_scale;
    grade_status worst = ST_PASS;
    const char *stopped_by = NULL; /* the policy's reason not to repeat a run: a hang, a fork bomb, a memory hog */
    for (int c = 0; c < task->nconfigs; c++) {
        const run_config *cfg = &task->configs[c];
        run_report *rr = &tr->runs[c];
        if (runner_interrupted() || stopped_by) {
            rr->message = runner_interrupted() ? xstrdup("not run: interrupted")
                                               : xasprintf("not run: an earlier run %s", stopped_by);
            continue;
        }
        term_run_progress(task, c + 1, task->nconfigs, cfg->label);
        result_set expected = { 0 };
        double ref_seconds = 0;
        if (run_reference(ctx, task, cfg, f->ref_exe, timeout, rr, &expected, NULL, &ref_seconds)) {
            const char *stop = run_task_side(ctx, task, cfg, f->task_exe, timeout, &expected, ref_seconds, rr, tr);
            if (stop)
                stopped_by = stop;
        }
        results_free(&expected);
        if (rr->status > worst)
            worst = rr->status;
    }
    return worst;
}

/* The task's status from its runs' (the worst; never PASS for what did not run) and its
 * message: the first run with that status, and how many runs passed. */
static void settle_status(task_report *tr, grade_status worst)
{
    tr->status = worst;
    int not_run = 0;
    for (int c = 0; c < tr->nruns; c++)
        not_run += !tr->runs[c].ran;
    /* Never PASS what did not run. */
    if (not_run > 0 && (tr->status == ST_PASS || runner_interrupted())) {
        tr->status = ST_FAIL;
        tr->message = xasprintf("%d of %d runs did not happen (%s)", not_run, tr->nruns,
                                runner_interrupted() ? "the grader was interrupted" : "stopped early");
    }
    /* The message of the first run with the task's (worst) status. */
    for (int c = 0; c < tr->nruns && !tr->message; c++)
        if (tr->runs[c].ran && tr->runs[c].status == tr->status && tr->runs[c].message)
            tr->message = with_config(tr->runs[c].message, tr->runs[c].config);
    if (tr->status != ST_PASS) {
        int passed = 0;
        for (int c = 0; c < tr->nruns; c++)
            passed += tr->runs[c].ran && tr->runs[c].status == ST_PASS;
        char *more = xasprintf("%s\n(%d of %d runs passed)", tr->message ? tr->message : "", passed, tr->nruns);
        free(tr->message);
        tr->message = more;
    }
}

/* A simulated CUDA task of one process, after its runs.  Asked for (make grade RACECHECK=1), its
 * program is built again with the race checker and run once, on the first failing configuration
 * (the first one when all passed), with a longer limit (the race checker slows a kernel some 4
 * times).  A race it finds is added to the task's message, and fails a task that passed.  Not
 * asked, a task that failed is told that the race checker can look: the grader never names a
 * bug hunt's race unasked. */
/* Whether the file at path (its first MiB) holds one of the words: 1 when it cannot be read. */
static int source_mentions(const char *path, const char *const *words, int nwords)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return 1;
    char *text = xmalloc((1 << 20) + 1);
    size_t n = fread(text, 1, 1 << 20, in);
    fclose(in);
    text[n] = '\0';
    int found = 0;
    for (int i = 0; i < nwords && !found; i++)
        found = strstr(text, words[i]) != NULL;
    free(text);
    return found;
}

static void race_check(const grade_context *ctx, const task_meta *task, const task_files *f, task_report *tr)
{
    if (!ctx->plan->race_hint || runner_interrupted() || (tr->status != ST_FAIL && tr->status != ST_PASS))
        return;
    if (!ctx->tc->racecheck_asked) {
        /* (offered where threads share memory on purpose: shared memory, atomics) */
        static const char *const shared[] = { "__shared__", "atomic" };
        if (tr->status == ST_FAIL && source_mentions(f->task_src, shared, 2)) {
            char *more = xasprintf("%s\na race between threads? the race checker can look: make grade TASK=%s "
                                   "RACECHECK=1", tr->message ? tr->message : "", task->id);
            free(tr->message);
            tr->message = more;
        }
        return;
    }
    /* (the task's own configurations: not the method's run, appended after them) */
    int c = 0, configs = tr->nruns < task->nconfigs ? tr->nruns : task->nconfigs;
    while (c < configs && !(tr->runs[c].ran && tr->runs[c].status == ST_FAIL))
        c++;
    if (c == configs)
        c = 0;
    if (configs == 0)
        return;
    toolchain tc = *ctx->tc;
    tc.racecheck = 1;
    grade_context rctx = *ctx;
    rctx.tc = &tc;
    char *exe = xasprintf("%s-racecheck", f->task_exe);
    int not_simulated;
    char *failure = build(&rctx, task, f->task_src, exe, 1, &not_simulated);
    if (!failure) {
        strlist cmd = { 0 }, env_list = { 0 };
        launch_command(&tc, task, &task->configs[c], exe, &cmd, &env_list);
        show_command(ctx, &cmd, &env_list);
        run_result res;
        sandbox_view view;
        run_view(ctx, exe, &view);
        run_limited(ctx, &cmd, &env_list, 10 * task->timeout * ctx->policy->timeout_scale,
                    ctx->policy->output_cap, ctx->plan->limits, &view, &res);
        sandbox_view_free(&view);
        char *race = res.outcome == RUN_EXITED ? race_report(&res) : NULL;
        char *more = NULL;
        if (race) {
            more = xasprintf("%s%sthe race checker (make grade RACECHECK=1) found %s (in [%s])",
                             tr->message ? tr->message : "", tr->message ? "\n" : "", race, task->configs[c].label);
            if (tr->status == ST_PASS)
                tr->status = ST_FAIL;
            free(race);
        } else if (res.outcome == RUN_TIMEOUT && !runner_interrupted())
            more = xasprintf("%s%sthe race checker's run [%s] did not end within %.0f s: no verdict", tr->message ? tr->message : "",
                             tr->message ? "\n" : "", task->configs[c].label, 10 * task->timeout * ctx->policy->timeout_scale);
        else
            more = xasprintf("%s%sthe race checker found no race in [%s]", tr->message ? tr->message : "",
                             tr->message ? "\n" : "", task->configs[c].label);
        free(tr->message);
        tr->message = more;
        run_result_free(&res);
        sl_free(&cmd);
        sl_free(&env_list);
    } else {
        char *more = xasprintf("%s%sthe race checker's build failed: no verdict", tr->message ? tr->message : "",
                               tr->message ? "\n" : "");
        free(tr->message);
        tr->message = more;
    }
    free(failure);
    free(exe);
}

/* The method check (tasks.ini's method, work.h), after every run passed: the reference and the
 * task once more at the method configuration, the task's run judged like any, then how its
 * work was spread.  The run is added to tr's runs; a failure fails the task, with the check's
 * words. */
static void method_check(const grade_context *grading, const task_meta *task, const task_files *f,
                         task_report *tr)
{
    const task_plan *plan = grading->plan;
    if (plan->method == METHOD_NONE || !plan->method_cfg || tr->status != ST_PASS || runner_interrupted())
        return;
    grade_context method_ctx = *grading;
    method_ctx.method_run = 1;
    /* a simulated CUDA task built with the profiler: this run records its memory counts */
    method_ctx.profile_run = plan->profiled;
    const grade_context *ctx = &method_ctx;
    const run_config *cfg = plan->method_cfg;
    tr->runs = xrealloc(tr->runs, (size_t)(tr->nruns + 1) * sizeof *tr->runs);
    run_report *rr = &tr->runs[tr->nruns++];
    memset(rr, 0, sizeof *rr);
    rr->config = xstrdup(cfg->label);
    rr->method = task->method;
    term_run_progress(task, tr->nruns, tr->nruns, cfg->label);
    /* a larger run than the others: room for a busy machine */
    double timeout = 3 * task->timeout * ctx->policy->timeout_scale;
    result_set expected = { 0 };
    run_work *ref_work = NULL;
    double ref_seconds = 0;
    if (run_reference(ctx, task, cfg, f->ref_exe, timeout, rr, &expected, &ref_work, &ref_seconds)) {
        run_task_side(ctx, task, cfg, f->task_exe, timeout, &expected, ref_seconds, rr, tr);
        if (rr->status == ST_PASS && rr->work) {
            const char *text = plan->method_key ? config_get(cfg, plan->method_key) : NULL;
            int asked = text ? atoi(text) : 1;
            switch (plan->method) {
            case METHOD_GPU: /* simulated only (plan_make) */
                rr->message = work_check_gpu(rr->work, ref_work);
                if (!rr->message && ref_work)
                    rr->message = work_check_traffic(&rr->work->gpu, &ref_work->gpu);
                if (!rr->message && ref_work)
                    rr->message = work_check_kernels(&rr->work->gpu, &ref_work->gpu);
                if (!rr->message && ref_work)
                    rr->message = work_check_atomics(&rr->work->gpu, &ref_work->gpu);
                rr->profile = work_profile_summary(rr->work, ref_work);
                if (!rr->message && ref_work)
                    perf_from_counts(ctx, task, &rr->work->gpu, &ref_work->gpu, cfg->label, tr);
                break;
            case METHOD_RANKS:
                rr->message = work_check_ranks(rr->work, ref_work, asked);
                if (!rr->message && (task->method_calls || task->method_collectives > 0))
                    rr->message = work_check_calls(rr->work, ref_work, task->method_calls, task->method_collectives);
                break;
            default:
                rr->message = work_check(rr->work, ref_work, asked, plan->method == METHOD_PROCESSES);
            }
            if (rr->message)
                rr->status = ST_FAIL;
        } else if (rr->status == ST_PASS) {
            rr->status = ST_FAIL;
            rr->message = xstrdup("the grader could not measure how the work was spread (no /proc?)");
        }
    }
    results_free(&expected);
    free(ref_work);
    if (!rr->ran)
        settle_status(tr, ST_PASS); /* interrupted: never PASS what did not run */
    else if (rr->status != ST_PASS) {
        tr->status = rr->status;
        free(tr->message);
        tr->message = with_config(rr->message, rr->config);
    }
}

void plan_make(const grade_context *ctx, const task_meta *task, task_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    const toolchain *tc = ctx->tc;
    plan->kind = task_kind(task);
    plan->overlaid = task->overlaid;
    plan->mode = toolchain_mode(tc, task);
    plan->launcher = task_uses_launcher(task);
    plan->cuda = task_uses_cuda(task);
    plan->limits = plan->cuda ? LIMITS_CUDA : LIMITS_CPU;
    /* the CUDA probe failed inside the sandbox: native CUDA runs go outside (sandbox.h) */
    int cuda_outside = plan->cuda && plan->mode == MODE_NATIVE && ctx->sandbox && ctx->sandbox->cuda_outside;
    plan->gpu_in_sandbox = plan->cuda && plan->mode == MODE_NATIVE && !cuda_outside;
    plan->runs_outside = (ctx->sandbox && ctx->sandbox->mpi_outside && plan->launcher) || cuda_outside;
    plan->mpi_layer = plan->launcher && tc->have_mpi && mpi_layer_applies(tc) ? mpi_work_layer(ctx) : NULL;
    plan->sim_record = plan->mode == MODE_SIM;
    plan->profiled = toolchain_profiles(tc, task);
    /* one simulated process (under MPICH a program built with the race checker crashed at exit) */
    plan->race_hint = plan->cuda && plan->mode == MODE_SIM && !plan->launcher && !tc->racecheck;
    static const struct {
        const char *name, *key;
        method_kind kind;
    } methods[] = { { "threads", "threads", METHOD_THREADS }, { "processes", "workers", METHOD_PROCESSES },
                    { "ranks", "ranks", METHOD_RANKS }, { "gpu", NULL, METHOD_GPU } };
    for (size_t i = 0; task->method && i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(task->method, methods[i].name) == 0) {
            plan->method = methods[i].kind;
            plan->method_key = methods[i].key;
        }
    /* the GPU's work is counted by the simulator alone: natively the method run would measure
     * the CPU threads of a CUDA program, which say nothing of its kernels (and cost a run) */
    if (plan->method == METHOD_GPU && plan->mode != MODE_SIM)
        plan->method = METHOD_NONE;
    plan->method_cfg = plan->method != METHOD_NONE ? task_method_config(task) : NULL;
}

void grade_task(const grade_context *grading, const task_meta *task, int index, int total, task_report *tr)
{
    task_plan plan;
    plan_make(grading, task, &plan);
    grade_context task_ctx = *grading;
    task_ctx.plan = &plan;
    const grade_context *ctx = &task_ctx;
    report_init(ctx, task, tr);
    double start = now_seconds();
    term_task_start(index, total, task);
    task_files files;
    task_files_make(ctx, task, &files);
    if (!not_a_file(&files, tr) && !not_started(ctx, &files, tr) && !skipped(ctx, task, tr) &&
        build_both(ctx, task, &files, tr)) {
        settle_status(tr, run_configs(ctx, task, &files, tr));
        method_check(ctx, task, &files, tr);
        race_check(ctx, task, &files, tr);
        perf_measure(ctx, task, files.ref_exe, files.task_exe, tr);
    }
    task_files_free(&files);
    task_done(tr, start, index, total);
}

void task_report_free(task_report *tr)
{
    for (int i = 0; i < tr->nruns; i++) {
        free(tr->runs[i].config);
        free(tr->runs[i].message);
        free(tr->runs[i].work);
        free(tr->runs[i].profile);
    }
    free(tr->runs);
    free(tr->message);
    free(tr->log_path);
    free(tr->perf.note);
    free(tr->perf.worst);
}
