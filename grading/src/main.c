/* grade -- the Parallel Rooms grader's command line.
 *
 * Builds each selected task and its reference solution, runs both in every
 * configuration the room's tasks.ini declares, compares their result lines, and
 * reports on the terminal, in build/grade-report.json and in JUnit XML.
 * Exit status: 0 every graded task passed or was skipped; 1 otherwise; 2 usage. */
#define _GNU_SOURCE
#include "grader.h"
#include "kinds.h"
#include "launchers.h"
#include "meta.h"
#include "perf.h"
#include "progress.h"
#include "report.h"
#include "results.h"
#include "runner.h"
#include "sandbox.h"
#include "toolchain.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ctype.h>
#include <stdint.h>
#include <sys/random.h>
#include <time.h>

static void usage(FILE *f)
{
    fputs("usage: grade [options]\n"
          "  --room NN            grade one room (01 or 01_threads)\n"
          "  --task NN_room/taskK grade one task (or several: A,B,...)\n"
          "  --tasks-from DIR     take the task files from DIR/NN_room/ (default: the workbook)\n"
          "  --expect pass|fail   check mode for maintainers: exit 0 only if every graded task\n"
          "                       (and, for fail, every run) ended with that status, or SKIP\n"
          "                       because there is no GPU; any other SKIP is a failed check\n"
          "  --werror             compile with warnings as errors\n"
          "  --json FILE          JSON report (default build/grade-report.json)\n"
          "  --junit FILE         JUnit XML report (default build/grade-report.xml)\n"
          "  --root DIR           the workbook (default .)\n"
          "  --list               list rooms and tasks, and exit\n"
          "  --launch N -- PROG ARGS  run PROG ARGS as N MPI ranks, started as the grader starts a\n"
          "                       task's ranks (its launcher, options, hosts, environment); the exit\n"
          "                       status is the launcher's.  --launcher: that launcher's name, the\n"
          "                       MPI and its version, and its command for R ranks, tab-separated\n"
          "                       (\"hydra<TAB>MPICH 4.0.2<TAB>mpiexec -n R\")\n"
          "  --sandbox            whether the learner's builds and runs would be sandboxed here, and\n"
          "                       why not (GRADE_SANDBOX=auto|on|off): exit 0 when they would be\n"
          "  --describe           what scripts need to know of the selected tasks, and exit: a\n"
          "                       header line, then one tab-separated line per run configuration\n"
          "                       (task source solution kind mpi cuda sim libs line config perf\n"
          "                       perf_time method method_run; sim: the CUDA CPU simulator can build\n"
          "                       it; libs, perf, perf_time, method and method_run are - when none;\n"
          "                       line is the tasks.ini runs line the config comes from; sizes and\n"
          "                       seeds as drawn for --seed)\n"
          "  --print-build task|solution  the commands that build the selected tasks (the learner's\n"
          "                       file, from --tasks-from, or the reference solution), as the grader\n"
          "                       builds them here, and exit: one line a task, tab-separated: task,\n"
          "                       executable (under --build-dir), then the command's words\n"
          "  --hint TASK          print the next level of a task's hint ladder (remembered in\n"
          "                       build/progress.json), and exit; with --level N that level,\n"
          "                       with --all every level, with --no-record nothing is remembered\n"
          "  --quiet              no progress lines\n"
          "  --verbose            print every command the grader runs (make V=1)\n"
          "  --gradescope FILE    also write Gradescope's results.json\n"
          "  --progress           print the record of your grading runs (make progress), and exit\n"
          "  --build-dir DIR      executables and logs go under DIR (default ROOT/build)\n"
          "  --ref-dir DIR        reference executables go under DIR and are kept while up to date,\n"
          "                       and their outputs at each configuration of a draw, so that each\n"
          "                       reference runs once (class grading: graders side by side share one set)\n"
          "  --seed N             the draw of sizes and seeds (tasks.ini's lo..hi values): N from 1\n"
          "                       to 999999999 repeats a grading's draw (make grade SEED=N); default:\n"
          "                       GRADE_SEED, else a fresh draw at every grading\n"
          "  --tasks-overlay FILE a private tasks.ini overlay ([NN_room/taskK] sections whose runs,\n"
          "                       timeout, perf, perf_limit, perf_repeats, method and method_run\n"
          "                       replace the workbook's); default: GRADE_TASKS_OVERLAY\n"
          "  --max-ranks N        leave out the configurations at more than N MPI ranks, and\n"
          "  --reuse-builds       (maintainers) keep a task's executable under --build-dir while it is\n"
          "                       newer than its source and headers, as --ref-dir keeps references:\n"
          "                       the later draws of make check-solutions grade the same files again\n"
          "  --first-config       grade each task's first configuration only: shorter gradings for a\n"
          "                       short slot on a GPU machine (make gpu-session); the report counts\n"
          "                       the tasks as overlaid\n"
          "  --hide-expected      FAIL messages name the wrong or missing result lines but never the\n"
          "                       expected values (nor do the logs); default: GRADE_HIDE_EXPECTED=1\n"
          "  --perf off|on|required  the perf verdict: after a task passes, its time against the\n"
          "                       reference's at the task's perf size (\"PASS perf 1.08x\", SLOW above\n"
          "                       its limit); required: SLOW fails the task.  Default: GRADE_PERF,\n"
          "                       else on, and off under --expect\n"
          "environment: GRADE_TIMEOUT_SCALE (multiplies every timeout), GRADE_OUTPUT_LIMIT (bytes kept\n"
          "  per run), CC, MPICC, MPICXX, MPIEXEC, MPIEXEC_FLAGS, NVCC, CUDA_ARCH, GRADE_CFLAGS, NO_COLOR,\n"
          "  GRADE_HOSTS=a,b or GRADE_HOSTFILE=f (mpiexec's ranks on other machines), GRADE_PERF, GRADE_SEED,\n"
          "  GRADE_TASKS_OVERLAY, GRADE_HIDE_EXPECTED\n",
          f);
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("grade: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    return 2;
}

/* Prints the rooms and tasks that exist (for errors and --list). */
static void list_workbook(FILE *f, const workbook *wb)
{
    for (int r = 0; r < wb->nrooms; r++) {
        fprintf(f, "  %s -- %s\n", wb->rooms[r].dir, wb->rooms[r].title);
        for (int i = 0; i < wb->rooms[r].ntasks; i++)
            fprintf(f, "    %-22s %s\n", wb->rooms[r].tasks[i].id, wb->rooms[r].tasks[i].title);
    }
}

/* --describe: the tasks as scripts need them (sanitizers, stress, the cluster tests, the
 * checks), so that no script parses tasks.ini again.  One line per run configuration. */
static void describe_tasks(FILE *f, const task_meta *const *tasks, int ntasks)
{
    fputs("task\tsource\tsolution\tkind\tmpi\tcuda\tsim\tlibs\tline\tconfig\tperf\tperf_time\tmethod\tmethod_run\n", f);
    for (int i = 0; i < ntasks; i++) {
        const task_meta *t = tasks[i];
        int simulable = (task_kind(t)->flags & KIND_SIMULABLE) != 0;
        for (int c = 0; c < t->nconfigs; c++)
            fprintf(f, "%s\t%s/%s\tsolutions/%s/%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", t->id, t->room,
                    t->source, t->room, t->source, t->kind, task_uses_launcher(t) ? "yes" : "no",
                    task_uses_cuda(t) ? "yes" : "no", simulable ? "yes" : "no", t->libs && *t->libs ? t->libs : "-",
                    t->configs[c].line, t->configs[c].label, t->perf ? t->perf->label : "-",
                    t->perf_time ? t->perf_time : "-", t->method ? t->method : "-",
                    t->method ? task_method_config(t)->label : "-");
    }
}

/* --print-build task|solution: each selected task's build command as the grader runs it on
 * this machine (toolchain, simulator or nvcc, CC, GRADE_CFLAGS, --werror), for scripts that
 * build the workbook's programs their own way (the sanitizers add their flags to it). */
static void print_builds(FILE *f, const toolchain *tc, const char *root, const char *tasks_root,
                         const char *build_dir, int solution, const task_meta *const *tasks, int ntasks)
{
    for (int i = 0; i < ntasks; i++) {
        const task_meta *t = tasks[i];
        char *src = solution ? xasprintf("%s/solutions/%s/%s", root, t->room, t->source)
                             : xasprintf("%s/%s/%s", tasks_root, t->room, t->source);
        char *exe = xasprintf("%s/bin/%s/%s", build_dir, solution ? "ref" : "task", t->id);
        strlist argv = { 0 };
        build_command(tc, t, src, exe, &argv);
        fprintf(f, "%s\t%s", t->id, exe);
        for (int w = 0; w < argv.count; w++)
            fprintf(f, "\t%s", argv.items[w]);
        fputc('\n', f);
        sl_free(&argv);
        free(src), free(exe);
    }
}

/* --launch N -- PROG ARGS: PROG as N ranks, the way the grader starts a task's ranks,
 * for scripts (make bench) that run MPI programs of their own.  Replaces this process. */
static int launch_ranks(const char *root, const char *ranks_text, char **cmd)
{
    char *end = NULL;
    long ranks = strtol(ranks_text, &end, 10);
    if (end == ranks_text || *end != '\0' || ranks < 1 || ranks > 4096)
        return usage_error("--launch %s: the rank count must be a whole number from 1 to 4096", ranks_text);
    if (!cmd[0])
        return usage_error("--launch %s: name the program after --, e.g. grade --launch 2 -- ./a.out", ranks_text);
    toolchain tc;
    toolchain_detect(&tc, root);
    if (!tc.have_mpi) {
        fprintf(stderr, "grade: --launch: no MPI here (%s / %s not found): `make deps` installs MPICH\n", tc.mpicc,
                tc.mpiexec);
        return 2;
    }
    strlist argv = { 0 }, env = { 0 };
    char count[32];
    snprintf(count, sizeof count, "%ld", ranks);
    launcher_prefix(&tc, count, &argv, &env);
    for (int i = 0; cmd[i]; i++)
        sl_push(&argv, cmd[i]);
    for (int i = 0; i < env.count; i++)
        putenv(env.items[i]); /* env's strings stay alive: exec follows */
    fflush(NULL);
    char **words = sl_argv(&argv);
    execvp(words[0], words);
    fprintf(stderr, "grade: --launch: cannot run %s: %s\n", argv.items[0], strerror(errno));
    return 127;
}

/* "01", "1", "01_threads", "01_threads/" all name room 01_threads. */
static int room_matches(const room_meta *room, const char *want)
{
    size_t n = strlen(want);
    while (n > 0 && want[n - 1] == '/')
        n--;
    if (strlen(room->dir) == n && strncmp(room->dir, want, n) == 0)
        return 1;
    char *end = NULL;
    long number = strtol(want, &end, 10);
    return end != want && (size_t)(end - want) == n && number == strtol(room->dir, NULL, 10);
}

/* "01_threads/task2", "01/task2", "01_threads/task2.c" all name that task. */
static int task_matches(const room_meta *room, const task_meta *task, const char *want)
{
    const char *slash = strchr(want, '/');
    if (!slash)
        return 0;
    char *room_part = xstrndup(want, (size_t)(slash - want));
    int ok = room_matches(room, room_part);
    free(room_part);
    const char *name = slash + 1;
    size_t n = strcspn(name, ".");
    return ok && strlen(task->name) == n && strncmp(task->name, name, n) == 0;
}

/* What each rung of the ladder is for (the last one may be close to the answer). */
static const char *hint_rung(int level, int nhints)
{
    if (level == nhints && nhints >= 3)
        return "nearly the code";
    return level == 1 ? "the idea" : level == 2 ? "the structure" : "closer";
}

/* make hint: prints the next level of task's ladder (or `level_text`, or all of
 * them) and remembers in the progress file how far the learner has read. */
static int show_hint(const task_meta *task, const char *progress_path, const char *level_text, int all,
                     int record)
{
    int opened = progress_hints_opened(progress_path, task->id);
    int first, last;
    if (all) {
        first = 1, last = task->nhints;
    } else if (level_text) {
        char *end = NULL;
        long level = strtol(level_text, &end, 10);
        if (end == level_text || *end != '\0' || level < 1 || level > task->nhints) {
            fprintf(stderr, "grade: LEVEL=%s: %s has hints 1 to %d\n", level_text, task->id, task->nhints);
            return 2;
        }
        first = last = (int)level;
    } else {
        first = last = opened < task->nhints ? opened + 1 : task->nhints;
    }
    printf("%s -- %s\n", task->id, task->title);
    for (int level = first; level <= last; level++)
        printf("hint %d of %d (%s): %s\n", level, task->nhints, hint_rung(level, task->nhints),
               task->hints[level - 1]);
    if (last < task->nhints)
        printf("still stuck? make hint TASK=%s shows hint %d of %d\n", task->id, last + 1, task->nhints);
    else
        printf("that is the last hint: the lesson (%s/README.md) and the program's own output say the rest\n",
               task->room);
    if (record && last > opened && progress_record_hints(progress_path, task->id, last) != 0)
        fprintf(stderr, "grade: could not write %s\n", progress_path);
    return 0;
}

/* main's steps answer GO_ON to go on, or the exit status to return at once. */
enum { GO_ON = -1 };

/* The command line. */
typedef struct {
    const char *room_filter, *task_filter, *tasks_from, *expect;
    const char *json_path, *junit_path;
    const char *root_arg, *hint_task, *build_arg, *ref_dir_arg;
    const char *gradescope_path;
    const char *hint_level, *launch_ranks_text, *print_build, *perf, *seed_text, *overlay, *max_ranks_text;
    int max_ranks, first_config; /* --max-ranks, --first-config: a shorter grading (0: all) */
    int reuse_builds;            /* --reuse-builds */
    uint64_t seed; /* the draw's seed: --seed, GRADE_SEED, or drawn from the system's random source */
    char **launch_cmd; /* what follows --, or NULL */
    int hide_expected;
    int werror, list_only, describe, show_sandbox, show_launcher, quiet, verbose, show_progress, hint_all, hint_record;
} options;

/* The draw's seed into opt->seed: --seed, else GRADE_SEED (make grade SEED=N), else a fresh
 * one from the system's random source.  Returns GO_ON, or 2 when the one given is not a
 * whole number from 1 to SEED_MAX. */
#define SEED_MAX 999999999ULL
static int parse_seed(options *opt)
{
    const char *from = "--seed";
    const char *text = opt->seed_text;
    if (!text && getenv("GRADE_SEED") && *getenv("GRADE_SEED")) {
        text = getenv("GRADE_SEED");
        from = "SEED (make grade SEED=...; GRADE_SEED)";
    }
    if (text) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(text, &end, 10);
        if (!isdigit((unsigned char)text[0]) || *end != '\0' || errno != 0 || v < 1 || v > SEED_MAX) {
            fprintf(stderr, "grade: %s must be a whole number from 1 to %llu, not '%s'\n", from, SEED_MAX, text);
            return 2;
        }
        opt->seed = v;
        return GO_ON;
    }
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        r = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
    opt->seed = 1 + r % SEED_MAX;
    return GO_ON;
}

/* Parses argv into opt (the defaults where an option is absent).  Returns GO_ON, 0 after
 * --help, or 2 after a usage error (said on stderr). */
static int parse_options(int argc, char **argv, options *opt)
{
    *opt = (options){ .json_path = "build/grade-report.json", .junit_path = "build/grade-report.xml",
                      .root_arg = ".", .hint_record = 1 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
#define VALUE_OPTION(flag, var)                                                                       \
    if (strcmp(a, flag) == 0) {                                                                       \
        if (!has_value)                                                                               \
            return usage_error("%s needs a value (see grade --help)", flag);                         \
        var = argv[++i];                                                                              \
        continue;                                                                                     \
    }
        VALUE_OPTION("--room", opt->room_filter)
        VALUE_OPTION("--task", opt->task_filter)
        VALUE_OPTION("--tasks-from", opt->tasks_from)
        VALUE_OPTION("--expect", opt->expect)
        VALUE_OPTION("--json", opt->json_path)
        VALUE_OPTION("--junit", opt->junit_path)
        VALUE_OPTION("--root", opt->root_arg)
        VALUE_OPTION("--hint", opt->hint_task)
        VALUE_OPTION("--level", opt->hint_level)
        VALUE_OPTION("--build-dir", opt->build_arg)
        VALUE_OPTION("--ref-dir", opt->ref_dir_arg)
        VALUE_OPTION("--gradescope", opt->gradescope_path)
        VALUE_OPTION("--launch", opt->launch_ranks_text)
        VALUE_OPTION("--print-build", opt->print_build)
        VALUE_OPTION("--perf", opt->perf)
        VALUE_OPTION("--seed", opt->seed_text)
        VALUE_OPTION("--tasks-overlay", opt->overlay)
        VALUE_OPTION("--max-ranks", opt->max_ranks_text)
        if (strcmp(a, "--") == 0) {
            opt->launch_cmd = argv + i + 1; /* the rest is --launch's program and its arguments */
            break;
        }
#undef VALUE_OPTION
        if (strcmp(a, "--werror") == 0)
            opt->werror = 1;
        else if (strcmp(a, "--hide-expected") == 0)
            opt->hide_expected = 1;
        else if (strcmp(a, "--first-config") == 0)
            opt->first_config = 1;
        else if (strcmp(a, "--reuse-builds") == 0)
            opt->reuse_builds = 1;
        else if (strcmp(a, "--list") == 0)
            opt->list_only = 1;
        else if (strcmp(a, "--describe") == 0)
            opt->describe = 1;
        else if (strcmp(a, "--launcher") == 0)
            opt->show_launcher = 1;
        else if (strcmp(a, "--sandbox") == 0)
            opt->show_sandbox = 1;
        else if (strcmp(a, "--quiet") == 0)
            opt->quiet = 1;
        else if (strcmp(a, "--verbose") == 0)
            opt->verbose = 1;
        else if (strcmp(a, "--all") == 0)
            opt->hint_all = 1;
        else if (strcmp(a, "--no-record") == 0)
            opt->hint_record = 0;
        else if (strcmp(a, "--progress") == 0)
            opt->show_progress = 1;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else
            return usage_error("unknown option '%s' (see grade --help)", a);
    }
    if (opt->max_ranks_text) {
        char *end = NULL;
        long v = strtol(opt->max_ranks_text, &end, 10);
        if (!isdigit((unsigned char)opt->max_ranks_text[0]) || *end != '\0' || v < 1 || v > 64)
            return usage_error("--max-ranks must be a whole number from 1 to 64, not '%s'", opt->max_ranks_text);
        opt->max_ranks = (int)v;
    }
    if (opt->expect && strcmp(opt->expect, "pass") != 0 && strcmp(opt->expect, "fail") != 0)
        return usage_error("--expect must be pass or fail, not '%s'", opt->expect);
    if (opt->print_build && strcmp(opt->print_build, "task") != 0 && strcmp(opt->print_build, "solution") != 0)
        return usage_error("--print-build must be task or solution, not '%s'", opt->print_build);
    if (!opt->perf && getenv("GRADE_PERF") && *getenv("GRADE_PERF")) {
        opt->perf = getenv("GRADE_PERF");
        if (perf_mode_parse(opt->perf) < 0)
            return usage_error("GRADE_PERF (make grade PERF=...) must be on, off or required, not '%s'", opt->perf);
    }
    if (opt->perf && perf_mode_parse(opt->perf) < 0)
        return usage_error("--perf must be on, off or required, not '%s'", opt->perf);
    if (!opt->overlay && getenv("GRADE_TASKS_OVERLAY") && *getenv("GRADE_TASKS_OVERLAY"))
        opt->overlay = getenv("GRADE_TASKS_OVERLAY");
    if (opt->overlay && !file_exists(opt->overlay))
        return usage_error("--tasks-overlay (GRADE_TASKS_OVERLAY) %s: no such file", opt->overlay);
    const char *hide = getenv("GRADE_HIDE_EXPECTED");
    if (hide && *hide && strcmp(hide, "0") != 0 && strcmp(hide, "1") != 0)
        return usage_error("GRADE_HIDE_EXPECTED (HIDE_EXPECTED=) must be 0 or 1, not '%s'", hide);
    if (hide && strcmp(hide, "1") == 0)
        opt->hide_expected = 1;
    meta_set_overlay(opt->overlay);
    results_hide_expected(opt->hide_expected);
    return parse_seed(opt);
}

/* The environment's settings: the grading policy (GRADE_* limits) into policy, and the MPI
 * hosts (GRADE_HOSTS, GRADE_HOSTFILE).  Returns GO_ON, or 2 when one is wrong (said on stderr). */
static int load_settings(grade_policy *policy)
{
    char *policy_error = NULL;
    if (policy_load(policy, &policy_error) != 0) {
        usage_error("%s", policy_error);
        free(policy_error);
        return 2;
    }
    char *hosts_error = toolchain_check_hosts();
    if (hosts_error) {
        fprintf(stderr, "grade: %s\n", hosts_error);
        free(hosts_error);
        return 2;
    }
    return GO_ON;
}

/* --launcher: the MPI launcher the grader uses, the MPI's version, and the launcher's command
 * for R ranks (its variables first), tab-separated.  Returns 0. */
static int print_launcher(const char *root)
{
    toolchain tc;
    toolchain_detect(&tc, root);
    strlist words = { 0 }, env = { 0 };
    launcher_prefix(&tc, "R", &words, &env);
    printf("%s\t%s\t", tc.launcher ? tc.launcher->name : "none", tc.mpi_version);
    for (int i = 0; i < env.count; i++)
        printf("%s ", env.items[i]);
    for (int i = 0; i < words.count; i++)
        printf("%s%s", i ? " " : "", words.items[i]);
    printf("\n");
    sl_free(&words), sl_free(&env);
    toolchain_free(&tc);
    return 0;
}

/* --sandbox: "on (bubblewrap 0.8.0)" or "off (why)".  Returns 0 when on, 1 when off, 2 when
 * GRADE_SANDBOX is wrong or on without a sandbox (said on stderr). */
static int print_sandbox(const char *root)
{
    toolchain tc;
    toolchain_detect(&tc, root);
    sandbox sb;
    char *error = NULL;
    int rc = sandbox_setup(&sb, &tc, &error);
    if (rc != 0) {
        fprintf(stderr, "grade: %s\n", error);
        free(error);
    } else {
        printf("%s%s%s\n", sandbox_describe(&sb), sb.cuda_probe && !sb.cuda_outside ? "; CUDA: " : "",
               sb.cuda_probe && !sb.cuda_outside ? sb.cuda_probe : "");
    }
    int active = sb.active;
    sandbox_free(&sb);
    toolchain_free(&tc);
    return rc != 0 ? 2 : active ? 0 : 1;
}

/* The modes that need no workbook: --launch N -- PROG (which replaces this process),
 * --launcher and --sandbox.  Returns GO_ON when none was asked for, or the mode's exit status. */
static int launch_modes(const options *opt, const char *root)
{
    if (opt->launch_ranks_text)
        return launch_ranks(root, opt->launch_ranks_text, opt->launch_cmd ? opt->launch_cmd : (char *[]){ NULL });
    if (opt->launch_cmd)
        return usage_error("%s", "-- comes only after --launch N (see grade --help)");
    if (opt->show_launcher)
        return print_launcher(root);
    if (opt->show_sandbox)
        return print_sandbox(root);
    return GO_ON;
}

/* Reads the workbook's rooms and tasks into wb.  Returns GO_ON, or 2 when there are none. */
static int load_workbook(const char *root, workbook *wb)
{
    char err[600];
    if (workbook_load(root, wb, err, sizeof err) != 0) {
        fprintf(stderr, "grade: %s\n", err);
        return 2;
    }
    if (wb->nrooms == 0) {
        fprintf(stderr, "grade: no rooms (NN_name/tasks.ini) under %s\n", root);
        return 2;
    }
    return GO_ON;
}

/* --progress: the record of the learner's grading runs.  Returns progress_print's status. */
static int print_progress(const char *root, workbook *wb)
{
    char *path = xasprintf("%s/build/progress.json", root);
    int rc = progress_print(wb, path);
    free(path);
    workbook_free(wb);
    return rc;
}

/* The modes that need the workbook but no selection: --list and --progress.  Returns GO_ON
 * when neither was asked for, or the mode's exit status. */
static int workbook_modes(const options *opt, const char *root, workbook *wb)
{
    if (opt->list_only) {
        list_workbook(stdout, wb);
        return 0;
    }
    if (opt->show_progress)
        return print_progress(root, wb);
    return GO_ON;
}

/* The tasks that --room, --task (or --hint) name, in the workbook's order, into *selected (a
 * new array).  Returns GO_ON, or 2 when they name nothing (the workbook listed on stderr). */
/* --task A,B,...: whether the task is one of them. */
static int task_matches_any(const room_meta *room, const task_meta *task, const char *list)
{
    char *copy = xstrdup(list);
    int match = 0;
    for (char *save = NULL, *one = strtok_r(copy, ",", &save); one && !match; one = strtok_r(NULL, ",", &save))
        match = task_matches(room, task, one);
    free(copy);
    return match;
}

/* --task A,B,...: the first name in the list that names no task of wb, or NULL (a new string). */
static char *unknown_task(const workbook *wb, const char *list)
{
    char *copy = xstrdup(list), *unknown = NULL;
    for (char *save = NULL, *one = strtok_r(copy, ",", &save); one && !unknown; one = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int r = 0; r < wb->nrooms && !found; r++)
            for (int i = 0; i < wb->rooms[r].ntasks && !found; i++)
                found = task_matches(&wb->rooms[r], &wb->rooms[r].tasks[i], one);
        if (!found)
            unknown = xstrdup(one);
    }
    free(copy);
    return unknown;
}

static int select_tasks(const options *opt, const workbook *wb, const task_meta ***selected, int *nselected)
{
    *selected = NULL;
    *nselected = 0;
    int room_seen = 0;
    for (int r = 0; r < wb->nrooms; r++) {
        const room_meta *room = &wb->rooms[r];
        if (opt->room_filter && !room_matches(room, opt->room_filter))
            continue;
        room_seen = 1;
        for (int i = 0; i < room->ntasks; i++) {
            const char *want = opt->hint_task ? opt->hint_task : opt->task_filter;
            if (want && !task_matches_any(room, &room->tasks[i], want))
                continue;
            *selected = xrealloc(*selected, (size_t)(*nselected + 1) * sizeof **selected);
            (*selected)[(*nselected)++] = &room->tasks[i];
        }
    }
    char *unknown = opt->task_filter && !opt->hint_task && *nselected > 0 ? unknown_task(wb, opt->task_filter) : NULL;
    if ((opt->room_filter && !room_seen) || *nselected == 0 || unknown) {
        const char *what = unknown ? unknown : opt->hint_task ? opt->hint_task : opt->task_filter ? opt->task_filter
                                                                                               : opt->room_filter;
        fprintf(stderr, "grade: no %s '%s'. These exist:\n", opt->task_filter || opt->hint_task ? "task" : "room",
                what ? what : "");
        list_workbook(stderr, wb);
        free(unknown);
        free(*selected);
        *selected = NULL;
        return 2;
    }
    return GO_ON;
}

/* --hint: the task's next hint, remembered in ROOT/build/progress.json unless --no-record.
 * Returns show_hint's status. */
static int hint_mode(const options *opt, const char *root, const task_meta *task)
{
    char *build = xasprintf("%s/build", root);
    if (opt->hint_record)
        make_dirs(build);
    char *path = xasprintf("%s/progress.json", build);
    free(build);
    int rc = show_hint(task, path, opt->hint_level, opt->hint_all, opt->hint_record);
    free(path);
    return rc;
}

/* --print-build: the selected tasks' build commands (print_builds).  Returns 0, or 2 when
 * --tasks-from names no folder. */
static int print_build_mode(const options *opt, const char *root, const task_meta **selected, int nselected)
{
    char tasks_root[4096];
    if (!realpath(opt->tasks_from ? opt->tasks_from : root, tasks_root))
        return usage_error("--tasks-from %s: no such folder", opt->tasks_from);
    char *build = opt->build_arg ? xstrdup(opt->build_arg) : xasprintf("%s/build", root);
    toolchain tc;
    toolchain_detect(&tc, root);
    tc.werror = opt->werror;
    print_builds(stdout, &tc, root, tasks_root, build, strcmp(opt->print_build, "solution") == 0, selected,
                 nselected);
    toolchain_free(&tc);
    free(build);
    return 0;
}

/* The modes on the selected tasks that grade nothing: --describe, --print-build and --hint.
 * Frees selected and wb when one ran.  Returns GO_ON when none was asked for, or the mode's
 * exit status. */
static int selection_modes(const options *opt, const char *root, workbook *wb, const task_meta **selected,
                           int nselected)
{
    int rc = GO_ON;
    if (opt->describe) {
        describe_tasks(stdout, selected, nselected);
        rc = 0;
    } else if (opt->print_build) {
        rc = print_build_mode(opt, root, selected, nselected);
    } else if (opt->hint_task) {
        rc = hint_mode(opt, root, selected[0]);
    }
    if (rc != GO_ON) {
        free(selected);
        workbook_free(wb);
    }
    return rc;
}

/* The folders a grading run needs: the task side's (--tasks-from) into tasks_root, and build/
 * and the references' (--ref-dir), made and absolute, into *build_dir and *ref_dir (new
 * strings; *ref_dir NULL without --ref-dir).  Returns GO_ON, or 2 when one cannot be had. */
static int grading_dirs(const options *opt, const char *root, char *tasks_root, char **build_dir, char **ref_dir)
{
    if (!realpath(opt->tasks_from ? opt->tasks_from : root, tasks_root))
        return usage_error("--tasks-from %s: no such folder", opt->tasks_from);
    char *build = opt->build_arg ? xstrdup(opt->build_arg) : xasprintf("%s/build", root);
    make_dirs(build);
    *ref_dir = NULL;
    if (opt->ref_dir_arg) {
        make_dirs(opt->ref_dir_arg);
        *ref_dir = realpath(opt->ref_dir_arg, NULL);
        if (!*ref_dir)
            return usage_error("--ref-dir %s: cannot create it", opt->ref_dir_arg);
    }
    *build_dir = realpath(build, NULL);
    if (!*build_dir)
        return usage_error("--build-dir %s: cannot create it", build);
    free(build);
    return GO_ON;
}

/* Grades the selected tasks in order into rep (stopping when interrupted), with the hints
 * opened of the learner's own tasks (own_tasks) read from progress_path. */
static void grade_all(const grade_context *ctx, const task_meta **selected, int nselected, int quiet, int own_tasks,
                      const char *progress_path, grade_report *rep)
{
    const toolchain *tc = ctx->tc;
    double start = now_seconds();
    if (!quiet)
        printf("grading %d task%s (%d cores, MPI: %s, GPU: %s, sandbox: %s)\n", nselected, nselected == 1 ? "" : "s",
               tc->cores, tc->mpi_version, tc->have_gpu ? tc->gpu_name : "none",
               ctx->sandbox ? sandbox_describe(ctx->sandbox) : "off");
    if (!quiet)
        printf("draw: SEED=%llu (sizes and seeds are drawn anew at each grading; make grade SEED=%llu draws these "
               "again)%s%s\n", (unsigned long long)rep->seed, (unsigned long long)rep->seed,
               rep->overlay ? "; the sizes and ranges are the instructor's (a private tasks.ini overlay)" : "",
               rep->expected_hidden ? "; expected values are hidden" : "");
    for (int i = 0; i < nselected && !runner_interrupted(); i++) {
        grade_task(ctx, selected[i], i + 1, nselected, &rep->tasks[i]);
        if (own_tasks)
            rep->tasks[i].hints_opened = progress_hints_opened(progress_path, selected[i]->id);
        rep->ntasks++;
    }
    rep->seconds = now_seconds() - start;
}

/* The summary on the terminal, then the reports: JSON, JUnit, Gradescope (when asked for) and,
 * for the learner's own tasks, the progress record.  A file that cannot be written is said. */
static void write_reports(const options *opt, const grade_report *rep, const workbook *wb, int own_tasks,
                          const char *progress_path)
{
    term_summary(rep, wb, opt->json_path, opt->junit_path);
    if (report_write_json(rep, opt->json_path) != 0)
        fprintf(stderr, "grade: could not write %s\n", opt->json_path);
    if (report_write_junit(rep, opt->junit_path) != 0)
        fprintf(stderr, "grade: could not write %s\n", opt->junit_path);
    if (opt->gradescope_path && report_write_gradescope(rep, opt->gradescope_path) != 0)
        fprintf(stderr, "grade: could not write %s\n", opt->gradescope_path);
    if (own_tasks && progress_record(rep, progress_path) != 0)
        fprintf(stderr, "grade: could not write %s\n", progress_path);
}

/* --expect's check of one graded task (a SKIP aside), each miss said on stdout.  Returns 1 when
 * the task did not end as expected. */
static int missed_expectation(const char *expect, const task_report *tr)
{
    int missed = 0;
    if (strcmp(expect, "pass") == 0) {
        if (tr->status != ST_PASS && tr->status != ST_SKIP) {
            printf("check: %s should PASS but is %s\n", tr->meta->id, status_name(tr->status));
            missed = 1;
        }
    } else if (tr->status != ST_SKIP) {
        if (tr->status != ST_FAIL) {
            printf("check: the untouched %s should FAIL but is %s\n", tr->meta->id, status_name(tr->status));
            missed = 1;
        }
        for (int c = 0; c < tr->nruns; c++)
            if (tr->runs[c].ran && tr->runs[c].status == ST_PASS) {
                printf("check: the untouched %s passes in [%s]: its placeholder must fail in every run\n",
                       tr->meta->id, tr->runs[c].config);
                missed = 1;
            }
    }
    return missed;
}

/* The exit status of a grading run: 1 when a task did not pass (normal runs) or did not end as
 * --expect says; a SKIP fails a check unless the task needs a GPU (counted in *gpu_skips). */
static int graded_status(const char *expect, const grade_report *rep, int *gpu_skips)
{
    int exit_code = 0;
    *gpu_skips = 0;
    for (int i = 0; i < rep->ntasks; i++) {
        const task_report *tr = &rep->tasks[i];
        if (expect && tr->status == ST_SKIP) {
            /* A check that did not run is not a pass: only a missing GPU excuses it. */
            if (tr->skip_needs_gpu) {
                (*gpu_skips)++;
            } else {
                printf("check: %s was not checked (SKIP: %s)\n", tr->meta->id, tr->message ? tr->message : "?");
                exit_code = 1;
            }
            continue;
        }
        if (!expect) {
            if (tr->status != ST_PASS && tr->status != ST_SKIP)
                exit_code = 1;
        } else if (missed_expectation(expect, tr)) {
            exit_code = 1;
        }
    }
    return exit_code;
}

/* The exit status after the reports: graded_status's, or 130 when interrupted (said on
 * stdout), and --expect's verdict line when every task ended as expected. */
static int final_status(const char *expect, const grade_report *rep, int nselected)
{
    int gpu_skips;
    int exit_code = graded_status(expect, rep, &gpu_skips);
    if (runner_interrupted()) {
        printf("grade: interrupted (%d of %d tasks graded; nothing left running)\n", rep->ntasks, nselected);
        exit_code = 130;
    }
    if (expect && exit_code == 0)
        printf("check: every task %s as expected%s\n", strcmp(expect, "pass") == 0 ? "passes" : "fails",
               gpu_skips ? " (apart from those SKIPPED for want of a GPU)" : "");
    return exit_code;
}

/* Grades the selected tasks, writes the reports and frees selected and wb.  Returns the exit
 * status (final_status's, or 2 when a folder cannot be had). */
static int grade_selected(const options *opt, const grade_policy *policy, const char *root, workbook *wb,
                          const task_meta **selected, int nselected)
{
    char tasks_root[PATH_MAX];
    char *build_dir = NULL, *ref_dir = NULL;
    int rc = grading_dirs(opt, root, tasks_root, &build_dir, &ref_dir);
    if (rc != GO_ON)
        return rc;
    if (runner_init() != 0)
        fprintf(stderr, "grade: warning: could not become a child subreaper; detached leftovers may escape\n");

    toolchain tc;
    toolchain_detect(&tc, root);
    tc.werror = opt->werror;
    sandbox sb;
    char *sandbox_error = NULL;
    if (sandbox_setup(&sb, &tc, &sandbox_error) != 0) {
        fprintf(stderr, "grade: %s\n", sandbox_error);
        free(sandbox_error);
        sandbox_free(&sb);
        toolchain_free(&tc);
        free(build_dir), free(ref_dir), free(selected);
        workbook_free(wb);
        return 2;
    }
    /* never shown to a learner's build or run, wherever a folder above them is bound */
    sandbox_hide(&sb, build_dir);
    sandbox_hide(&sb, ref_dir);
    sandbox_hide(&sb, tasks_root);
    if (opt->overlay)
        sandbox_hide(&sb, opt->overlay); /* the graded sizes stay the instructor's */
    term_init(opt->quiet);
    int perf = opt->perf ? perf_mode_parse(opt->perf) : opt->expect ? PERF_MODE_OFF : PERF_MODE_ON;
    grade_context ctx = { root, tasks_root, build_dir, &tc, policy, ref_dir, ref_dir != NULL, opt->verbose,
                          !opt->expect, &sb, perf, 0, opt->hide_expected, NULL, NULL, 0, 0 };
    char *ref_outputs = ref_dir ? xasprintf("%s/outputs", ref_dir) : NULL;
    ctx.ref_outputs = ref_outputs;
    ctx.reuse_task_builds = opt->reuse_builds;
    /* The learner's own tasks: their grades, and the hints they opened, are remembered. */
    int own_tasks = !opt->expect && strcmp(tasks_root, root) == 0 && !opt->build_arg;
    char *progress_path = xasprintf("%s/progress.json", build_dir);
    grade_report rep = { xmalloc((size_t)nselected * sizeof(task_report)), 0, 0, &tc, sandbox_describe(&sb),
                         opt->seed, opt->overlay != NULL || opt->max_ranks || opt->first_config, opt->hide_expected };
    grade_all(&ctx, selected, nselected, opt->quiet, own_tasks, progress_path, &rep);
    write_reports(opt, &rep, wb, own_tasks, progress_path);
    free(progress_path);
    int exit_code = final_status(opt->expect, &rep, nselected);

    for (int i = 0; i < rep.ntasks; i++)
        task_report_free(&rep.tasks[i]);
    free(rep.tasks);
    free(selected);
    free(build_dir);
    free(ref_dir);
    free(ref_outputs);
    sandbox_free(&sb);
    toolchain_free(&tc);
    workbook_free(wb);
    return exit_code;
}

int main(int argc, char **argv)
{
    options opt;
    int rc = parse_options(argc, argv, &opt);
    if (rc != GO_ON)
        return rc;
    grade_policy policy;
    if ((rc = load_settings(&policy)) != GO_ON)
        return rc;
    char root[PATH_MAX];
    if (!realpath(opt.root_arg, root))
        return usage_error("--root %s: no such folder", opt.root_arg);
    if ((rc = launch_modes(&opt, root)) != GO_ON)
        return rc;
    workbook wb;
    if ((rc = load_workbook(root, &wb)) != GO_ON)
        return rc;
    /* every lo..hi of tasks.ini drawn, once, before anything reads the configurations */
    workbook_draw(&wb, opt.seed);
    if (opt.max_ranks || opt.first_config)
        workbook_select_configs(&wb, opt.max_ranks, opt.first_config);
    if ((rc = workbook_modes(&opt, root, &wb)) != GO_ON)
        return rc;
    const task_meta **selected;
    int nselected;
    if ((rc = select_tasks(&opt, &wb, &selected, &nselected)) != GO_ON ||
        (rc = selection_modes(&opt, root, &wb, selected, nselected)) != GO_ON)
        return rc;
    return grade_selected(&opt, &policy, root, &wb, selected, nselected);
}
