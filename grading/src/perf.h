/* perf.h -- the perf verdict: after a task passes, its speed against the reference's.
 *
 * A task whose tasks.ini names a perf configuration (`perf`) and the timings to compare
 * (`perf_time`, names of the program's `time` lines: results.h) is run again at that
 * configuration, task and reference alternately, at least PERF_MIN_RUNS times each.  The
 * sum of the named timings is taken from each run; the verdict compares the medians:
 * ratio = task / reference.  Above the task's perf_limit (default 1.5) it is SLOW, but only
 * when the task's fastest run is above it too, and after more runs (up to PERF_MAX_RUNS each)
 * still say so: a busy machine slows some runs down and never speeds one up, so a noisy
 * machine gives the task the benefit of the doubt, never a SLOW from a few bad runs.  The task's perf runs are checked like any
 * run (exit status, result lines); a failure there is the verdict "failed".  The task's
 * timings count only as far as the grader's own clock confirms them: both sides run the same
 * scaffolding, so the difference of their wall times is the difference of their timed code,
 * run perf_repeats times (tasks.ini), and bounds the task's time from below; printing smaller
 * times cannot make a task look faster (confirmed_time in perf.c, with a margin of
 * PERF_WALL_SLACK s plus PERF_WALL_SLACK_SHARE of the reference's wall time).
 *
 * A simulated CUDA task is not timed: the simulator's timings say nothing about a GPU.  Where
 * its program was built with the profiler (toolchain_profiles), the verdict comes from the
 * memory counts of its method run against the reference's at the same configuration
 * (perf_from_counts, work_counts_slow): global memory traffic, atomics, bank conflicts.  The
 * counts are the same on every machine and every run.  Otherwise it gets "n/a".
 *
 * The verdict never changes a PASS, except under PERF_MODE_REQUIRED (make grade
 * PERF=required), where SLOW and failed make the task FAIL. */
#ifndef PR_PERF_H
#define PR_PERF_H

#include "grader.h"

enum { PERF_MODE_OFF, PERF_MODE_ON, PERF_MODE_REQUIRED };

#define PERF_MIN_RUNS 3
#define PERF_MAX_RUNS 7
/* A median ratio below this is implausible (a program more than twice as fast as the
 * reference, which it is meant to match): more runs are made, up to PERF_MAX_RUNS, and a
 * ratio still below it is reported as ok with a note, never as a win (perf_report.noisy). */
#define PERF_PLAUSIBLE 0.5
/* A reference whose own times spread by more than this (the slowest run minus the fastest,
 * over the median) ran on a machine too busy to judge by: a verdict that would be SLOW is
 * not given ("not judged"), so that a busy machine never reads as slow code. */
#define PERF_BUSY_SPREAD 1.0
#define PERF_WALL_SLACK 0.05
#define PERF_WALL_SLACK_SHARE 0.2

/* "off", "on", "required" -> the mode; -1 for anything else. */
int perf_mode_parse(const char *text);

/* Measures tr's perf verdict into tr->perf (a PASS of a task with a perf configuration,
 * ctx->perf not off); under PERF_MODE_REQUIRED turns a SLOW or failed verdict into FAIL. */
void perf_measure(const grade_context *ctx, const task_meta *task, const char *ref_exe, const char *task_exe,
                  task_report *tr);

/* The perf verdict of a simulated CUDA task from its memory counts at configuration `config`
 * (the method run's): task and ref are both profiled (gpu_work.mem_seen).  Sets tr->perf
 * (ok or SLOW, counted); perf_measure then applies PERF_MODE_REQUIRED. */
void perf_from_counts(const grade_context *ctx, const task_meta *task, const gpu_work *t, const gpu_work *r,
                      const char *config, task_report *tr);

/* The median and (max - min) / median of n values (sorted in place).  Exposed for the
 * unit tests. */
double perf_median(double *v, int n, double *spread);
/* The verdict of n timed runs of each side, under a limit (the task's time over the
 * reference's): PERF_SLOW when the task's median and its fastest run are over it, PERF_OK
 * otherwise, and PERF_NA where it would be SLOW but the reference's own times spread by more
 * than PERF_BUSY_SPREAD (a machine too busy to judge by) and the task's fastest run is not
 * over the limit of even the reference's slowest. */
int perf_judge(const double *t_task, const double *t_ref, int n, double limit);

#endif
