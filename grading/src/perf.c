/* perf.c -- see perf.h. */
#define _GNU_SOURCE
#include "perf.h"
#include "report.h"
#include "results.h"
#include "util.h"
#include "work.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int perf_mode_parse(const char *text)
{
    if (!text)
        return -1;
    if (strcmp(text, "off") == 0)
        return PERF_MODE_OFF;
    if (strcmp(text, "on") == 0)
        return PERF_MODE_ON;
    if (strcmp(text, "required") == 0)
        return PERF_MODE_REQUIRED;
    return -1;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double perf_median(double *v, int n, double *spread)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    double median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    *spread = median > 0 ? (v[n - 1] - v[0]) / median : 0;
    return median;
}

/* The sum of the task's named timings ("a | b") in out; 1 when every one was printed, else
 * 0 with the first missing name in *missing (a new string). */
static int sum_timings(const task_meta *task, const char *out, double *sum, char **missing)
{
    *sum = 0;
    char *names = xstrdup(task->perf_time);
    int ok = 1;
    for (char *save = NULL, *name = strtok_r(names, "|", &save); name && ok; name = strtok_r(NULL, "|", &save)) {
        while (*name == ' ')
            name++;
        size_t n = strlen(name);
        while (n > 0 && name[n - 1] == ' ')
            name[--n] = '\0';
        double seconds;
        if (results_timing(out, name, &seconds))
            *sum += seconds;
        else {
            *missing = xstrdup(name);
            ok = 0;
        }
    }
    free(names);
    return ok;
}

/* Sets the verdict and its note (a new string, or NULL). */
static void set_verdict(perf_report *p, perf_verdict v, char *note)
{
    p->verdict = v;
    free(p->note);
    p->note = note;
}

/* One run of the reference (learner 0) or the task at the perf configuration: its timing sum
 * in *seconds, and for the reference its results in *expected.  Returns NULL, or why the run
 * gives no timing (a new string). */
static char *perf_run(const grade_context *ctx, const task_meta *task, const char *exe, int learner,
                      result_set *expected, double *seconds, double *wall, int *timed_out)
{
    double timeout = task->timeout * ctx->policy->timeout_scale;
    run_result res;
    grade_run_program(ctx, task, task->perf, exe, learner, timeout, &res);
    *wall = res.seconds; /* the grader's own clock, from start to exit */
    *timed_out = res.outcome == RUN_TIMEOUT;
    char *why = NULL, *missing = NULL;
    if (res.outcome == RUN_INTERRUPTED) {
        why = xstrdup("interrupted");
    } else if (!learner && res.outcome == RUN_TIMEOUT) {
        why = xasprintf("this machine is busy: the reference itself took more than the %.1f s limit at the perf size",
                        timeout);
    } else if (!learner) {
        char parse_err[300] = "";
        if (res.outcome != RUN_EXITED || res.exit_code != 0 ||
            results_parse(res.out, expected, parse_err, sizeof parse_err) != 0) {
            char *how = run_describe(&res, timeout);
            why = xasprintf("the reference failed at the perf size (a bug in the workbook): %s%s%s", how,
                            parse_err[0] ? "; " : "", parse_err);
            free(how);
        }
    } else {
        char *message = NULL;
        grade_status st = judge_run(&res, timeout, expected, ctx->plan->launcher, &message);
        if (st == ST_TIMEOUT) /* it passed every graded run: slow here, or stuck; the caller compares */
            why = xasprintf("your program, run at the perf size (%s), was still running after %.1f s: far slower "
                            "than the reference there, or stuck", task->perf->label, timeout);
        else if (st != ST_PASS)
            why = xasprintf("your program, run at the perf size (%s): %s: %s", task->perf->label, status_name(st),
                            message ? message : "?");
        free(message);
    }
    if (!why && !sum_timings(task, res.out, seconds, &missing))
        why = xasprintf("%s printed no 'time %s ... s' line at the perf size", learner ? "your program" : "the reference",
                        missing);
    free(missing);
    run_result_free(&res);
    return why;
}

/* The task's time as far as the grader's own clock confirms it.  Both sides run the same
 * scaffolding (the data, the serial check, the warm-up and repetitions), so the difference of
 * their wall times is the difference of their timed code, run `repeats` times.  So the task's
 * time is at least the reference's plus that difference over `repeats` (less a margin for the
 * sandbox's start-up and a busy machine).  Where tasks.ini does not say how many times the
 * timed code runs, the most it can be is assumed (every second of the reference's run timed):
 * then the task's wall time over the reference's, W, is the bound: a task whose timed part is
 * r times slower (r >= 1) takes between 1 and r times as long in all.  An honest program is
 * never changed: its printed time is within the margin of both bounds.  The wall times are each
 * side's fastest of its runs so far (a machine busy now and then slows a run down, never
 * speeds one up: one slowed run of the task's must not make its honest printed time look
 * too short).  Sets *corrected when the printed time was too short. */
static double confirmed_time(double task_printed, double task_wall, double ref_printed, double ref_wall,
                             int repeats, int *corrected)
{
    if (!(ref_wall > 0))
        return task_printed;
    double margin = PERF_WALL_SLACK + PERF_WALL_SLACK_SHARE * ref_wall;
    double least = ref_printed * ((task_wall - margin) / ref_wall); /* any number of repeats */
    if (repeats > 0) {
        double known = ref_printed + (task_wall - ref_wall - margin) / repeats;
        if (known > least)
            least = known;
    }
    if (least <= ref_printed || task_printed >= least)
        return task_printed;
    *corrected = 1;
    return least;
}

/* Every run's confirmed time (confirmed_time) into t_task, from the task's printed times and both
 * sides' fastest wall times of the n runs so far; the reference's printed time is that of its
 * fastest run.  *corrected is set when any was too short. */
static void confirm_times(const double *printed, const double *walls_task, const double *t_ref,
                          const double *walls_ref, int n, int repeats, double *t_task, int *corrected)
{
    int fast_task = 0, fast_ref = 0;
    for (int i = 1; i < n; i++) {
        if (walls_task[i] < walls_task[fast_task])
            fast_task = i;
        if (walls_ref[i] < walls_ref[fast_ref])
            fast_ref = i;
    }
    *corrected = 0;
    for (int i = 0; i < n; i++)
        t_task[i] = confirmed_time(printed[i], walls_task[fast_task], t_ref[fast_ref], walls_ref[fast_ref], repeats,
                                   corrected);
}

/* Whether n runs of each side say SLOW: the task's median over the limit times the
 * reference's median, and its fastest run too (a machine busy now and then slows some runs
 * down, never speeds one up: one fast run shows what the task can do). */
static int looks_slow(const double *t_task, const double *t_ref, int n, double limit)
{
    double a[PERF_MAX_RUNS], b[PERF_MAX_RUNS], sa, sb;
    memcpy(a, t_task, (size_t)n * sizeof *a);
    memcpy(b, t_ref, (size_t)n * sizeof *b);
    double mt = perf_median(a, n, &sa), mr = perf_median(b, n, &sb);
    return mr > 0 && mt > limit * mr && a[0] > limit * mr; /* a[] is sorted: a[0] the fastest */
}

int perf_judge(const double *t_task, const double *t_ref, int n, double limit)
{
    if (!looks_slow(t_task, t_ref, n, limit))
        return PERF_OK;
    double a[PERF_MAX_RUNS], b[PERF_MAX_RUNS], spread_a, spread_b;
    memcpy(a, t_task, (size_t)n * sizeof *a);
    memcpy(b, t_ref, (size_t)n * sizeof *b);
    perf_median(a, n, &spread_a);
    perf_median(b, n, &spread_b); /* both sorted now */
    if (a[0] > limit * b[n - 1])
        return PERF_SLOW; /* the task's fastest run over the limit of the reference's slowest: no noise explains it */
    return spread_b > PERF_BUSY_SPREAD ? PERF_NA : PERF_SLOW;
}

/* Whether n runs of each side put the task's median below PERF_PLAUSIBLE times the
 * reference's: more likely a machine that was busy during the reference's runs than a task
 * more than twice as fast as the reference. */
static int implausible(const double *t_task, const double *t_ref, int n)
{
    double a[PERF_MAX_RUNS], b[PERF_MAX_RUNS], sa, sb;
    memcpy(a, t_task, (size_t)n * sizeof *a);
    memcpy(b, t_ref, (size_t)n * sizeof *b);
    double mt = perf_median(a, n, &sa), mr = perf_median(b, n, &sb);
    return mr > 0 && mt < PERF_PLAUSIBLE * mr;
}

void perf_from_counts(const grade_context *ctx, const task_meta *task, const gpu_work *t, const gpu_work *r,
                      const char *config, task_report *tr)
{
    if (ctx->perf == PERF_MODE_OFF || !task->perf || !t->mem_seen || !r->mem_seen)
        return;
    perf_report *p = &tr->perf;
    int slow = work_counts_slow(t, r, task->perf_limit, &p->measure, &p->ratio);
    p->counted = 1;
    p->config = config;
    free(p->worst);
    p->worst = t->worst[0] ? xstrdup(t->worst) : NULL;
    set_verdict(p, slow ? PERF_SLOW : PERF_OK, NULL);
}

/* PERF=required: a SLOW or failed verdict fails the task. */
static void perf_required(const grade_context *ctx, const task_meta *task, task_report *tr)
{
    const perf_report *p = &tr->perf;
    if (ctx->perf != PERF_MODE_REQUIRED || tr->status != ST_PASS || (p->verdict != PERF_SLOW && p->verdict != PERF_FAILED))
        return;
    tr->status = ST_FAIL;
    free(tr->message);
    if (p->verdict == PERF_SLOW && p->counted)
        tr->message = xasprintf("too slow (PERF=required): %.2fx the reference's %s (simulated), the limit is %.2gx",
                                p->ratio, p->measure, task->perf_limit);
    else if (p->verdict == PERF_SLOW)
        tr->message = xasprintf("too slow (PERF=required): %.2fx the reference's time, the limit is %.2gx", p->ratio,
                                task->perf_limit);
    else
        tr->message = xasprintf("perf check failed (PERF=required): %s", p->note);
}

void perf_measure(const grade_context *ctx, const task_meta *task, const char *ref_exe, const char *task_exe,
                  task_report *tr)
{
    perf_report *p = &tr->perf;
    if (ctx->perf == PERF_MODE_OFF || !task->perf || tr->status != ST_PASS || runner_interrupted())
        return;
    if (tr->mode == MODE_SIM) {
        /* judged from the memory counts already (perf_from_counts), or not at all */
        if (!p->counted)
            set_verdict(p, PERF_NA, xstrdup("simulated: the CUDA CPU simulator's timings say nothing about a GPU"));
        perf_required(ctx, task, tr);
        return;
    }
    double t_task[PERF_MAX_RUNS], t_ref[PERF_MAX_RUNS], wall_task, wall_ref;
    double printed[PERF_MAX_RUNS], walls_task[PERF_MAX_RUNS], walls_ref[PERF_MAX_RUNS];
    double timeout = task->timeout * ctx->policy->timeout_scale;
    int n = 0, corrected = 0;
    char *why = NULL;
    int task_side_failed = 0;
    term_perf_progress(task);
    /* alternately, so that a machine busy for a while slows both sides alike */
    while (n < PERF_MAX_RUNS && !why) {
        result_set expected = { 0 };
        int timed_out = 0;
        why = perf_run(ctx, task, ref_exe, 0, &expected, &t_ref[n], &wall_ref, &timed_out);
        if (!why) {
            why = perf_run(ctx, task, task_exe, 1, &expected, &t_task[n], &wall_task, &timed_out);
            task_side_failed = why != NULL;
            if (timed_out && wall_ref >= timeout / 3) {
                /* the reference was slow too: the machine, not the task */
                free(why);
                why = xasprintf("this machine is busy: the task ran out of its %.1f s at the perf size, but the "
                                "reference took %.1f s there too", timeout, wall_ref);
                task_side_failed = 0;
            }
            if (!why) {
                printed[n] = t_task[n];
                walls_task[n] = wall_task;
                walls_ref[n] = wall_ref;
            }
        }
        results_free(&expected);
        if (why)
            break;
        n++;
        confirm_times(printed, walls_task, t_ref, walls_ref, n, task->perf_repeats, t_task, &corrected);
        if (n >= PERF_MIN_RUNS && !looks_slow(t_task, t_ref, n, task->perf_limit) &&
            !implausible(t_task, t_ref, n))
            break; /* not slow, and not implausibly fast: no need for more runs */
    }
    if (why) {
        int interrupted = runner_interrupted();
        set_verdict(p, task_side_failed && !interrupted ? PERF_FAILED : PERF_NA, why);
    } else {
        p->runs = n;
        p->task_median = perf_median(t_task, n, &p->task_spread);
        p->ref_median = perf_median(t_ref, n, &p->ref_spread);
        if (!(p->ref_median > 0))
            set_verdict(p, PERF_NA, xstrdup("the reference's time is 0 s at the perf size: too small to compare"));
        else {
            p->ratio = p->task_median / p->ref_median;
            p->noisy = p->ratio < PERF_PLAUSIBLE;
            int judged = perf_judge(t_task, t_ref, n, task->perf_limit);
            if (judged == PERF_NA)
                set_verdict(p, PERF_NA,
                            xasprintf("not judged: this machine was too busy to time (the reference's own times "
                                      "varied by %.0f%% over %d runs); grade again when it is quieter",
                                      100 * p->ref_spread, n));
            else
                set_verdict(p, judged,
                            corrected ? xstrdup("the times your program printed were shorter than the grader's "
                                                "clock measured (a printout that cannot be trusted, or a busy "
                                                "machine): the ratio is of the grader's own clock")
                            : p->noisy ? xasprintf("%.2fx the reference's median time in %d runs each: more than "
                                                   "twice as fast is more likely a busy machine than speed, so it "
                                                   "is reported as ok, not as a win", p->ratio, n)
                                       : NULL);
        }
    }
    perf_required(ctx, task, tr);
}
