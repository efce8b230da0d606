/* report.c -- see report.h. */
#define _GNU_SOURCE
#include "report.h"
#include "util.h"
#include "work.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* ---- terminal ------------------------------------------------------------------ */

static int use_colour = 0, on_tty = 0, be_quiet = 0;
static char progress_prefix[160]; /* "[2/5] 01_threads/task2" while a task is graded */

void term_init(int quiet)
{
    const char *no_colour = getenv("NO_COLOR");
    on_tty = isatty(STDOUT_FILENO);
    use_colour = on_tty && !(no_colour && *no_colour) && !(getenv("TERM") && !strcmp(getenv("TERM"), "dumb"));
    be_quiet = quiet;
}

static const char *colour_of(grade_status st)
{
    if (!use_colour)
        return "";
    switch (st) {
    case ST_PASS:
        return "\033[32m";
    case ST_SKIP:
    case ST_NOT_STARTED:
        return "\033[33m";
    default:
        return "\033[31m";
    }
}

static const char *reset(void)
{
    return use_colour ? "\033[0m" : "";
}

static const char *bold(void)
{
    return use_colour ? "\033[1m" : "";
}

/* "PASS", "PASS (simulated)", "PASS perf 1.08x", "PASS SLOW 2.31x", ... (in a static buffer) */
static const char *status_label(const task_report *tr)
{
    static char label[40];
    if (tr->status == ST_PASS && tr->mode == MODE_SIM)
        return tr->perf.verdict == PERF_SLOW ? "PASS SLOW (simulated)" : "PASS (simulated)";
    if (tr->status == ST_NOT_STARTED)
        return "NOT STARTED";
    if (tr->status == ST_PASS && tr->perf.verdict == PERF_OK && tr->perf.noisy)
        return "PASS perf ok";
    if (tr->status == ST_PASS && (tr->perf.verdict == PERF_OK || tr->perf.verdict == PERF_SLOW)) {
        snprintf(label, sizeof label, "PASS %s %.2fx", tr->perf.verdict == PERF_SLOW ? "SLOW" : "perf",
                 tr->perf.ratio);
        return label;
    }
    if (tr->status == ST_PASS && tr->perf.verdict == PERF_FAILED)
        return "PASS perf failed";
    return status_name(tr->status);
}

/* A SLOW (or failed perf) PASS is shown in yellow. */
static const char *label_colour(const task_report *tr)
{
    if (tr->status == ST_PASS && (tr->perf.verdict == PERF_SLOW || tr->perf.verdict == PERF_FAILED))
        return colour_of(ST_SKIP);
    return colour_of(tr->status);
}

/* The width of n in decimal: "[ 9/31]" lines up with "[10/31]". */
static int digits(int n)
{
    int d = 1;
    while (n >= 10)
        n /= 10, d++;
    return d;
}

static void clear_line(void)
{
    if (on_tty)
        fputs("\r\033[K", stdout);
}

void term_task_start(int index, int total, const task_meta *task)
{
    if (be_quiet)
        return;
    snprintf(progress_prefix, sizeof progress_prefix, "[%*d/%d] %s", digits(total), index, total, task->id);
    if (on_tty) {
        printf("%s  building...", progress_prefix);
        fflush(stdout);
    }
}

void term_run_progress(const task_meta *task, int run, int nruns, const char *config)
{
    (void)task;
    if (be_quiet || !on_tty)
        return;
    clear_line();
    printf("%s  run %d/%d  %s", progress_prefix, run, nruns, config);
    fflush(stdout);
}

static int passed_runs(const task_report *tr)
{
    int n = 0;
    for (int i = 0; i < tr->nruns; i++)
        n += tr->runs[i].ran && tr->runs[i].status == ST_PASS;
    return n;
}

void term_perf_progress(const task_meta *task)
{
    if (be_quiet || !on_tty)
        return;
    clear_line();
    printf("%s  perf: timing task and reference at %s", progress_prefix, task->perf->label);
    fflush(stdout);
}

void term_task_done(int index, int total, const task_report *tr)
{
    if (be_quiet)
        return;
    clear_line();
    printf("[%*d/%d] %-22s %s%-16s%s ", digits(total), index, total, tr->meta->id, label_colour(tr),
           status_label(tr), reset());
    if (tr->status == ST_NOT_STARTED)
        printf("%-16s %8s  %s\n", "not built or run", "", tr->meta->title);
    else
        printf("%2d/%-2d runs passed %6.1f s  %s\n", passed_runs(tr), tr->nruns, tr->seconds, tr->meta->title);
    fflush(stdout);
}

/* Prints text with every line indented. */
static void print_indented(const char *text, const char *indent)
{
    const char *p = text;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        printf("%s%.*s\n", indent, n, p);
        p = nl ? nl + 1 : NULL;
    }
}

void report_counts(const grade_report *rep, int counts[ST_COUNT])
{
    memset(counts, 0, ST_COUNT * sizeof counts[0]);
    for (int i = 0; i < rep->ntasks; i++)
        counts[rep->tasks[i].status]++;
}

/* After a task that did not pass: where the next rung of its hint ladder is (never
 * the hint itself, which a learner asks for, one rung at a time), as a new string. */
static char *hint_pointer(const task_report *tr)
{
    const task_meta *t = tr->meta;
    if (tr->hints_opened < t->nhints)
        return xasprintf("stuck? make hint TASK=%s (hint %d of %d)", t->id, tr->hints_opened + 1, t->nhints);
    return xasprintf("stuck? every hint is open: make hint TASK=%s ALL=1", t->id);
}

/* The room's closing line: escaped only when every task of the room was graded
 * in this run and passes. */
static void print_room_line(const room_meta *room, int graded, int passed, int skipped, const task_report *next)
{
    int ungraded = room->ntasks - graded;
    char not_graded[96] = "";
    if (ungraded > 0)
        snprintf(not_graded, sizeof not_graded, "; %d of %d not graded in this run", ungraded, room->ntasks);
    if (next)
        printf("  %s: not escaped yet -- %d of %d graded tasks pass%s; next: make grade TASK=%s\n\n", room->dir,
               passed, graded, not_graded, next->meta->id);
    else if (skipped)
        printf("  %s: %d of %d graded tasks pass, %d skipped (see the reasons above)%s\n\n", room->dir, passed,
               graded, skipped, not_graded);
    else if (ungraded > 0)
        printf("  %s: %d graded task%s pass%s%s (make grade ROOM=%.2s grades them all)\n\n", room->dir, passed,
               passed == 1 ? "" : "s", passed == 1 ? "es" : "", not_graded, room->dir);
    else
        printf("  %s%s: escaped!%s every task passes (%d of %d)\n\n", colour_of(ST_PASS), room->dir, reset(),
               passed, room->ntasks);
}

/* text (one paragraph) after `first`, broken at spaces into lines of at most width
 * characters (a new string). */
static char *wrapped(const char *first, const char *text, int width)
{
    strbuf out = { 0 };
    sb_printf(&out, "%s", first);
    int col = (int)strlen(first), at_start = 1;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        int n = (int)strcspn(p, " ");
        if (n == 0)
            break;
        if (!at_start && col + 1 + n > width) {
            sb_printf(&out, "\n");
            col = 0;
        } else if (!at_start) {
            sb_printf(&out, " ");
            col++;
        }
        sb_printf(&out, "%.*s", n, p);
        col += n;
        at_start = 0;
        p += n;
    }
    return out.data;
}

/* What the table says under a task about its perf verdict (a new string), or NULL: the
 * figures behind a ratio, and for SLOW or failed the reason and the lesson's hint. */
static char *perf_lines(const task_report *tr)
{
    const perf_report *p = &tr->perf;
    const task_meta *t = tr->meta;
    if (p->verdict == PERF_SLOW && p->counted) {
        char *why = t->perf_hint ? wrapped("why: ", t->perf_hint, 100) : NULL;
        char *text = xasprintf("SLOW (simulated): %.2fx the reference's %s (the limit is %.2gx), counted by the\n"
                               "simulator at %s%s%s%s%s",
                               p->ratio, p->measure, t->perf_limit, p->config,
                               p->worst ? "; your costliest access: " : "", p->worst ? p->worst : "",
                               why ? "\n" : "", why ? why : "");
        free(why);
        return text;
    }
    if (p->verdict == PERF_SLOW) {
        char *why = t->perf_hint ? wrapped("why: ", t->perf_hint, 100) : NULL;
        char *text = xasprintf("SLOW: %.2fx the reference's time (the limit is %.2gx): %s took %.4g s against %.4g s,\n"
                               "medians of %d runs each at %s (spreads %.0f%% and %.0f%%)%s%s",
                               p->ratio, t->perf_limit, t->perf_time, p->task_median, p->ref_median, p->runs,
                               t->perf->label, 100 * p->task_spread, 100 * p->ref_spread, why ? "\n" : "",
                               why ? why : "");
        free(why);
        if (p->note) {
            char *more = xasprintf("%s\n%s", text, p->note);
            free(text);
            text = more;
        }
        return text;
    }
    if (p->verdict == PERF_OK && p->ratio > t->perf_limit)
        return xasprintf("perf: %.2fx the reference's median time, over the limit of %.2gx, but your fastest run was\n"
                         "within it: runs on a busy machine vary, so it is not marked SLOW (medians of %d runs each)",
                         p->ratio, t->perf_limit, p->runs);
    if (p->verdict == PERF_FAILED)
        return xasprintf("perf not measured: %s", p->note);
    if (p->verdict == PERF_OK && p->note)
        return xasprintf("perf: %s", p->note);
    return NULL;
}

/* The work of the task's method run (work.h), as the grader measured it, or NULL. */
static char *work_line(const task_report *tr)
{
    for (int i = 0; i < tr->nruns; i++) {
        const run_report *rr = &tr->runs[i];
        if (rr->method && rr->ran && rr->work && rr->status == ST_PASS) {
            char *summary = work_summary(rr->work);
            char *line = rr->profile ? xasprintf("work: %s at %s (measured by the grader)\nmemory (simulated, "
                                                 "counted by the grader): %s",
                                                 summary, rr->config, rr->profile)
                                     : xasprintf("work: %s at %s (measured by the grader)", summary, rr->config);
            free(summary);
            return line;
        }
    }
    return NULL;
}

void term_summary(const grade_report *rep, const workbook *wb, const char *json_path, const char *junit_path)
{
    printf("\n");
    for (int r = 0; r < wb->nrooms; r++) {
        const room_meta *room = &wb->rooms[r];
        int graded = 0, passed = 0, skipped = 0;
        const task_report *next = NULL;
        for (int i = 0; i < rep->ntasks; i++) {
            const task_report *tr = &rep->tasks[i];
            if (strcmp(tr->meta->room, room->dir) != 0)
                continue;
            if (graded++ == 0)
                printf("%s%s -- %s%s\n", bold(), room->dir, room->title, reset());
            printf("  %-8s %s%-16s%s %s\n", tr->meta->name, label_colour(tr), status_label(tr), reset(),
                   tr->meta->title);
            char *perf = perf_lines(tr);
            if (perf)
                print_indented(perf, "             ");
            free(perf);
            char *work = work_line(tr);
            if (work)
                print_indented(work, "             ");
            free(work);
            if (tr->status == ST_PASS)
                passed++;
            else if (tr->status == ST_SKIP)
                skipped++;
            else if (!next)
                next = tr;
            if (tr->status == ST_PASS || tr->status == ST_NOT_STARTED)
                continue; /* a task not started yet needs no more than its line */
            if (tr->message)
                print_indented(tr->message, "             ");
            if (tr->status != ST_SKIP) {
                char *pointer = hint_pointer(tr);
                printf("             %s\n", pointer);
                free(pointer);
                if (tr->log_path)
                    printf("             full output: %s\n", tr->log_path);
            }
        }
        if (graded > 0)
            print_room_line(room, graded, passed, skipped, next);
    }
    int counts[ST_COUNT];
    report_counts(rep, counts);
    printf("%d task%s in %.1f s:", rep->ntasks, rep->ntasks == 1 ? "" : "s", rep->seconds);
    for (int s = 0; s < ST_COUNT; s++)
        if (counts[s])
            printf(" %d %s", counts[s], status_name((grade_status)s));
    printf("\nreports: %s  %s\n", json_path, junit_path);
    fflush(stdout);
}

/* ---- JSON ------------------------------------------------------------------------ */

/* The machine: cores, MPI, what CUDA tasks run on, the compilers, and whether the learner's
 * side ran in the sandbox ("on (bubblewrap 0.8.0)", "off (why)"). */
static json_t *machine_json(const toolchain *tc, const char *sandbox)
{
    /* the design's "none|sim|<gpu name>": what CUDA tasks run on */
    const char *cuda = tc->have_gpu && !tc->force_sim ? tc->gpu_name : tc->simcc ? run_mode_name(MODE_SIM) : "none";
    /* cuda_aware_mpi: asked of the MPI where CUDA tasks run on a GPU; null when it
     * could not be asked.  mpi_gpu_path: how room 05/06's device pointers reached MPI:
     * the MPI itself ("cuda-aware"), pr_mpi_gpu.h ("staging-layer"), "simulator", "none". */
    return json_pack("{s:i, s:s, s:s, s:o, s:s, s:s, s:b, s:s}", "cores", tc->cores, "mpi", tc->mpi_version,
                     "cuda", cuda, "cuda_aware_mpi", tc->cuda_aware < 0 ? json_null() : json_boolean(tc->cuda_aware),
                     "mpi_gpu_path", tc->mpi_gpu_path ? tc->mpi_gpu_path : "none", "cc", tc->cc, "nvcc",
                     tc->have_nvcc, "sandbox", sandbox ? sandbox : "off");
}

static json_t *opt_string(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* The perf verdict (perf.h): null when not measured; seconds are the medians of the sum of
 * the named timings. */
static json_t *perf_json(const task_report *tr)
{
    const perf_report *p = &tr->perf;
    if (p->verdict == PERF_NONE)
        return json_null();
    int measured = p->verdict == PERF_OK || p->verdict == PERF_SLOW;
    json_t *o = json_pack("{s:s, s:s, s:s, s:f}", "verdict", perf_verdict_name(p->verdict), "config",
                          p->counted ? p->config : tr->meta->perf->label, "timing", tr->meta->perf_time, "limit",
                          tr->meta->perf_limit);
    /* "time": the grader's clock; "counts": a simulated task's memory counts (perf.h) */
    json_object_set_new(o, "basis", json_string(p->counted ? "counts" : "time"));
    json_object_set_new(o, "measure", p->counted ? json_string(p->measure) : json_null());
    json_object_set_new(o, "worst", opt_string(p->counted ? p->worst : NULL));
    json_object_set_new(o, "ratio", measured ? json_real(p->ratio) : json_null());
    json_object_set_new(o, "noisy", json_boolean(p->noisy));
    int timed = measured && !p->counted;
    json_object_set_new(o, "task_seconds", timed ? json_real(p->task_median) : json_null());
    json_object_set_new(o, "reference_seconds", timed ? json_real(p->ref_median) : json_null());
    json_object_set_new(o, "task_spread", timed ? json_real(p->task_spread) : json_null());
    json_object_set_new(o, "reference_spread", timed ? json_real(p->ref_spread) : json_null());
    json_object_set_new(o, "runs", json_integer(p->runs));
    json_object_set_new(o, "note", opt_string(p->note));
    return o;
}

/* How a run's work was spread, as the grader measured it (work.h): null when not measured. */
static json_t *work_json(const run_report *rr)
{
    const run_work *w = rr->work;
    if (!w)
        return json_null();
    json_t *threads = json_array(), *procs = json_array();
    for (int i = 0; i < w->nthreads; i++)
        if (w->thread_cpu[i] >= 0.0005)
            json_array_append_new(threads, json_real(w->thread_cpu[i]));
    for (int i = 0; i < w->nprocs; i++)
        if (w->proc_cpu[i] >= 0.0005)
            json_array_append_new(procs, json_real(w->proc_cpu[i]));
    char *summary = work_summary(w);
    json_t *o = json_pack("{s:f, s:s, s:o, s:o, s:i}", "cpu_seconds", w->cpu, "summary", summary,
                          "thread_cpu_seconds", threads, "process_cpu_seconds", procs, "samples", w->samples);
    free(summary);
    json_object_set_new(o, "method", opt_string(rr->method));
    /* MPI ranks, from the grader's MPI layer (runner.h's rank_work): [] when not measured */
    json_t *ranks = json_array();
    for (int r = 0; r < w->nranks; r++) {
        const rank_work *k = &w->ranks[r];
        json_array_append_new(ranks, json_pack("{s:i, s:b, s:b, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:I}", "rank", r,
                                               "seen", k->seen, "ended", k->ended, "compute_seconds", k->compute,
                                               "mpi_seconds", k->mpi, "messages_sent", (json_int_t)k->sends,
                                               "bytes_sent", (json_int_t)k->bytes_sent, "messages_received",
                                               (json_int_t)k->recvs, "bytes_received", (json_int_t)k->bytes_recv,
                                               "collectives", (json_int_t)k->colls, "bytes_collective",
                                               (json_int_t)k->bytes_coll));
    }
    json_object_set_new(o, "ranks", ranks);
    /* simulated CUDA, from the simulator's record: null when not measured */
    const gpu_work *g = &w->gpu;
    json_object_set_new(o, "gpu",
                        !g->seen ? json_null()
                                 : json_pack("{s:I, s:I, s:I, s:I, s:I, s:[i,i,i], s:[i,i,i], s:I, s:I, s:I}",
                                             "launches", (json_int_t)g->launches, "threads", (json_int_t)g->threads,
                                             "work_units", (json_int_t)g->units, "busiest_thread_units",
                                             (json_int_t)g->max_units, "half_work_threads",
                                             (json_int_t)g->half_threads, "largest_grid", g->grid[0], g->grid[1],
                                             g->grid[2], "largest_block", g->block[0], g->block[1], g->block[2],
                                             "bytes_to_gpu", (json_int_t)g->h2d, "bytes_from_gpu",
                                             (json_int_t)g->d2h, "bytes_within_gpu", (json_int_t)g->d2d));
    /* the profiler's counts (simcc --profile), every kernel together: null when not profiled */
    json_t *mem = json_null();
    if (g->seen && g->mem_seen) {
        mem = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "ld_requests",
                        (json_int_t)g->ld_requests, "ld_sectors", (json_int_t)g->ld_sectors, "st_requests",
                        (json_int_t)g->st_requests, "st_sectors", (json_int_t)g->st_sectors, "shared_ld_requests",
                        (json_int_t)g->sh_ld_requests, "shared_ld_wavefronts", (json_int_t)g->sh_ld_wavefronts,
                        "shared_st_requests", (json_int_t)g->sh_st_requests, "shared_st_wavefronts",
                        (json_int_t)g->sh_st_wavefronts, "atomics", (json_int_t)g->atomics, "atomic_conflicts",
                        (json_int_t)g->atomic_conflicts, "ld_bytes", (json_int_t)g->ld_bytes, "st_bytes",
                        (json_int_t)g->st_bytes);
        json_object_set_new(mem, "worst", opt_string(g->worst[0] ? g->worst : NULL));
    }
    if (json_is_object(json_object_get(o, "gpu")))
        json_object_set_new(json_object_get(o, "gpu"), "memory", mem);
    else
        json_decref(mem);
    return o;
}

int report_write_json(const grade_report *rep, const char *path)
{
    json_t *tasks = json_array();
    for (int i = 0; i < rep->ntasks; i++) {
        const task_report *tr = &rep->tasks[i];
        json_t *runs = json_array();
        for (int r = 0; r < tr->nruns; r++) {
            const run_report *rr = &tr->runs[r];
            json_t *run = json_pack("{s:s, s:s, s:f, s:b}", "config", rr->config, "status",
                                    rr->ran ? status_name(rr->status) : "NOT_RUN", "seconds", rr->seconds,
                                    "ran", rr->ran);
            json_object_set_new(run, "message", opt_string(rr->message));
            json_object_set_new(run, "work", work_json(rr));
            json_object_set_new(run, "profile", opt_string(rr->profile));
            json_array_append_new(runs, run);
        }
        json_t *task = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f}", "id", tr->meta->id, "title",
                                 tr->meta->title, "kind", tr->meta->kind, "status", status_name(tr->status),
                                 "mode", run_mode_name(tr->mode), "seconds", tr->seconds);
        json_object_set_new(task, "message", opt_string(tr->message));
        json_object_set_new(task, "hints", json_integer(tr->meta->nhints));
        json_object_set_new(task, "hints_opened", json_integer(tr->hints_opened));
        json_object_set_new(task, "log", opt_string(tr->log_path));
        /* the reference failed: the status is not the learner's (grade-class grades again) */
        int ref_failed = tr->reference_failed;
        for (int r = 0; r < tr->nruns; r++)
            ref_failed |= tr->runs[r].reference_failed;
        json_object_set_new(task, "reference_failed", json_boolean(ref_failed));
        json_object_set_new(task, "runs", runs);
        json_object_set_new(task, "perf", perf_json(tr));
        json_array_append_new(tasks, task);
    }
    int counts[ST_COUNT];
    report_counts(rep, counts);
    json_t *summary = json_pack("{s:i}", "total", rep->ntasks);
    for (int s = 0; s < ST_COUNT; s++)
        json_object_set_new(summary, status_name((grade_status)s), json_integer(counts[s]));
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage); /* ru_maxrss: the grader's own peak memory, KiB on Linux */
    json_t *grader = json_pack("{s:I}", "max_rss_kib", (json_int_t)usage.ru_maxrss);
    json_t *root = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:f}", "schema", "parallel-rooms/grade-report/1",
                             "created", stamp, "machine", machine_json(rep->tc, rep->sandbox), "tasks", tasks, "summary",
                             summary, "grader", grader, "seconds", rep->seconds);
    /* the draw (make grade SEED=N repeats it) */
    json_object_set_new(root, "draw", json_pack("{s:I, s:b, s:b}", "seed", (json_int_t)rep->seed, "overlay",
                                                rep->overlay, "expected_hidden", rep->expected_hidden));
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        make_dirs(dir);
    }
    free(dir);
    int rc = json_dump_file(root, path, JSON_INDENT(2) | JSON_ENSURE_ASCII) == 0 ? 0 : -1;
    json_decref(root);
    return rc;
}

/* ---- Gradescope ------------------------------------------------------------------ */

/* The text a student sees under a task on Gradescope: status, message, where the hints are. */
static char *gradescope_output(const task_report *tr)
{
    char *text = xasprintf("%s%s%s", status_name(tr->status), tr->message ? ": " : "", tr->message ? tr->message : "");
    char *perf = perf_lines(tr);
    if (perf) {
        char *with = xasprintf("%s\n%s", text, perf);
        free(text);
        text = with;
        free(perf);
    }
    char *work = work_line(tr);
    if (work) {
        char *with = xasprintf("%s\n%s", text, work);
        free(text);
        text = with;
        free(work);
    }
    if (tr->status != ST_PASS && tr->status != ST_SKIP) {
        char *pointer = hint_pointer(tr);
        char *with = xasprintf("%s\n%s", text, pointer);
        free(pointer);
        free(text);
        text = with;
    }
    return text;
}

int report_write_gradescope(const grade_report *rep, const char *path)
{
    json_t *tests = json_array();
    int score = 0, max_score = 0;
    for (int i = 0; i < rep->ntasks; i++) {
        const task_report *tr = &rep->tasks[i];
        int worth = tr->status == ST_SKIP ? 0 : 1, got = tr->status == ST_PASS;
        score += got;
        max_score += worth;
        char *name = xasprintf("%s: %s", tr->meta->id, tr->meta->title);
        char *output = gradescope_output(tr);
        json_t *test = json_pack("{s:s, s:i, s:i, s:s, s:s, s:s}", "name", name, "score", got, "max_score",
                                 worth, "status", got || !worth ? "passed" : "failed", "output", output,
                                 "visibility", "visible");
        json_array_append_new(tests, test);
        free(name);
        free(output);
    }
    char *summary = xasprintf("%d of %d tasks pass (graded on %s; GPU: %s)\nsizes and seeds: the draw SEED=%llu%s%s",
                              score, max_score, rep->tc->mpi_version,
                              rep->tc->have_gpu ? rep->tc->gpu_name : "none, CUDA simulated", rep->seed,
                              rep->overlay ? ", at the instructor's sizes (a private tasks.ini overlay)" : "",
                              rep->expected_hidden ? "; the expected values are hidden" : "");
    json_t *root = json_pack("{s:i, s:i, s:I, s:s, s:s, s:o}", "score", score, "max_score", max_score,
                             "execution_time", (json_int_t)(rep->seconds + 0.5), "output", summary, "stdout_visibility", "visible",
                             "tests", tests);
    free(summary);
    int rc = json_dump_file(root, path, JSON_INDENT(2)) == 0 ? 0 : -1;
    json_decref(root);
    return rc;
}

/* ---- JUnit XML --------------------------------------------------------------------- */

static void xml_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\n': case '\t': case '\r': fputc(*p, f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "?"); /* control characters are not allowed in XML 1.0 */
            else
                fputc(*p, f);
        }
    }
}

int report_write_junit(const grade_report *rep, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int counts[ST_COUNT];
    report_counts(rep, counts);
    int failures = counts[ST_FAIL] + counts[ST_TIMEOUT] + counts[ST_CRASH] + counts[ST_NOT_STARTED];
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"parallel-rooms\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
            rep->ntasks, failures, counts[ST_BUILD_ERROR], counts[ST_SKIP], rep->seconds);
    int i = 0;
    while (i < rep->ntasks) {
        const char *room = rep->tasks[i].meta->room;
        int end = i;
        while (end < rep->ntasks && strcmp(rep->tasks[end].meta->room, room) == 0)
            end++;
        fprintf(f, "  <testsuite name=\"");
        xml_escaped(f, room);
        fprintf(f, "\" tests=\"%d\">\n", end - i);
        fprintf(f, "    <properties>\n      <property name=\"seed\" value=\"%llu\"/>\n    </properties>\n", rep->seed);
        for (; i < end; i++) {
            const task_report *tr = &rep->tasks[i];
            fprintf(f, "    <testcase classname=\"");
            xml_escaped(f, room);
            fprintf(f, "\" name=\"");
            xml_escaped(f, tr->meta->name);
            fprintf(f, ": ");
            xml_escaped(f, tr->meta->title);
            fprintf(f, "\" time=\"%.3f\">\n", tr->seconds);
            char *work = work_line(tr);
            if (tr->perf.verdict != PERF_NONE || work) {
                fprintf(f, "      <properties>\n");
                if (tr->perf.verdict != PERF_NONE)
                    fprintf(f, "        <property name=\"perf\" value=\"%s\"/>\n", perf_verdict_name(tr->perf.verdict));
                if (tr->perf.verdict == PERF_OK || tr->perf.verdict == PERF_SLOW)
                    fprintf(f, "        <property name=\"perf_ratio\" value=\"%.3f\"/>\n", tr->perf.ratio);
                if (tr->perf.counted)
                    fprintf(f, "        <property name=\"perf_measure\" value=\"%s (simulated)\"/>\n", tr->perf.measure);
                if (work) {
                    fprintf(f, "        <property name=\"work\" value=\"");
                    xml_escaped(f, work + strlen("work: "));
                    fprintf(f, "\"/>\n");
                }
                fprintf(f, "      </properties>\n");
            }
            free(work);
            const char *element = tr->status == ST_SKIP ? "skipped"
                                : tr->status == ST_BUILD_ERROR ? "error"
                                : tr->status == ST_PASS ? NULL : "failure";
            if (element) {
                fprintf(f, "      <%s type=\"%s\" message=\"", element, status_name(tr->status));
                xml_escaped(f, tr->message);
                fprintf(f, "\">");
                xml_escaped(f, tr->message);
                if (tr->status != ST_SKIP) {
                    char *pointer = hint_pointer(tr);
                    fprintf(f, "\n");
                    xml_escaped(f, pointer);
                    free(pointer);
                }
                fprintf(f, "</%s>\n", element);
            }
            fprintf(f, "      <system-out>");
            for (int r = 0; r < tr->nruns; r++) {
                const run_report *rr = &tr->runs[r];
                xml_escaped(f, rr->config);
                fprintf(f, ": %s (%.3f s)", rr->ran ? status_name(rr->status) : "NOT_RUN", rr->seconds);
                if (rr->work) {
                    char *summary = work_summary(rr->work);
                    fprintf(f, ", work: %s", summary);
                    free(summary);
                }
                fprintf(f, "%s\n", rr->method ? " (the method's run)" : "");
            }
            fprintf(f, "</system-out>\n    </testcase>\n");
        }
        fprintf(f, "  </testsuite>\n");
    }
    fprintf(f, "</testsuites>\n");
    return fclose(f) == 0 ? 0 : -1;
}
