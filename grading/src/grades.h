/* grades.h -- what grading found, as data: the statuses, and the reports of one run, one
 * task and one grading run.  grader.c fills them; report.c shows them (terminal, JSON,
 * JUnit, Gradescope); progress.c remembers them. */
#ifndef PR_GRADES_H
#define PR_GRADES_H

#include "meta.h"
#include "runner.h"
#include "toolchain.h"

/* Ordered by severity: a task's status is the worst of its runs'.  NOT_STARTED is a
 * task's alone: its file is still as generated, so it was neither built nor run. */
typedef enum { ST_PASS, ST_SKIP, ST_FAIL, ST_TIMEOUT, ST_CRASH, ST_BUILD_ERROR, ST_NOT_STARTED, ST_COUNT } grade_status;

/* "PASS", "BUILD_ERROR", ...: the name the reports use; "?" for no status. */
const char *status_name(grade_status st);

typedef struct {
    char *config;        /* "threads=3 n=999 seed=7" */
    grade_status status;
    int ran;             /* 0 when it was not run (stopped early) */
    double seconds;
    char *message;       /* NULL when it passed */
    run_work *work;      /* how the work was spread, as the grader measured it (work.h), or NULL */
    const char *method;  /* the method checked at this run (tasks.ini's method), or NULL */
    char *profile;       /* a simulated CUDA task's memory counts beside the reference's
                          * (work_profile_summary), or NULL */
    int reference_failed; /* the reference's run failed here: the verdict is not the task's */
} run_report;

/* The perf verdict (perf.h): after a PASS, the task's time against the reference's at the
 * task's perf configuration.  PERF_NONE: not measured (no perf configuration, PERF=off, or
 * the task did not pass); PERF_NA: not meaningful (simulated, interrupted, the reference
 * printed no timing); PERF_FAILED: the task's own perf runs failed or printed no timing. */
typedef enum { PERF_NONE, PERF_OK, PERF_SLOW, PERF_NA, PERF_FAILED } perf_verdict;

typedef struct {
    perf_verdict verdict;
    double ratio;                    /* the task's median time / the reference's (OK, SLOW) */
    double task_median, ref_median;  /* seconds: the sum of the named timings, median over runs */
    double task_spread, ref_spread;  /* (max - min) / median over the runs */
    int runs;                        /* runs of each side */
    int noisy;                       /* OK with a ratio below PERF_PLAUSIBLE: noise, not a win */
    char *note;                      /* why n/a or failed; NULL otherwise */
    /* a simulated CUDA task: judged from the profiler's memory counts (perf_from_counts) */
    int counted;                     /* 1: ratio is the measure's, not a time's; no seconds */
    const char *measure;             /* the measure the ratio is of (work_counts_slow) */
    const char *config;              /* the configuration counted (the method run's) */
    char *worst;                     /* the task's costliest access, "FILE:LINE", or NULL */
} perf_report;

/* "ok", "slow", "n/a", "failed"; NULL for PERF_NONE. */
const char *perf_verdict_name(perf_verdict v);

typedef struct {
    const task_meta *meta;
    grade_status status;
    run_mode mode;       /* MODE_NATIVE, or MODE_SIM: the CUDA CPU simulator ran it */
    double seconds;      /* wall time spent on the task, builds included */
    char *message;       /* why it did not pass (or the skip reason), or NULL */
    int skip_needs_gpu;  /* SKIP only because this machine lacks a GPU (or what the simulator lacks) */
    char *log_path;      /* full output of the first failing run, or NULL */
    run_report *runs;
    int nruns;
    int hints_opened;    /* rungs of the hint ladder the learner has read (build/progress.json) */
    perf_report perf;    /* the perf verdict (PERF_NONE when not measured) */
    int reference_failed; /* the reference did not build, or one of its runs failed: the task's
                           * status says nothing of the learner's work (class grading grades
                           * the student again, alone) */
} task_report;

typedef struct {
    task_report *tasks;
    int ntasks;
    double seconds;
    const toolchain *tc;
    const char *sandbox; /* sandbox_describe's: "on (bubblewrap 0.8.0)", "off (why)" */
    unsigned long long seed; /* the draw's seed (meta.h: workbook_draw): SEED=N repeats it */
    int overlay;             /* a private tasks.ini overlay changed the configurations */
    int expected_hidden;     /* --hide-expected */
} grade_report;

#endif
