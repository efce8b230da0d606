/* report.h -- what grading found, and the ways it is shown: the terminal
 * (progress, table, per-room "escaped" line), build/grade-report.json
 * (schema parallel-rooms/grade-report/1) and JUnit XML. */
#ifndef PR_REPORT_H
#define PR_REPORT_H

#include "meta.h"
#include "toolchain.h"

/* Ordered by severity: a task's status is the worst of its runs'.  NOT_STARTED is a
 * task's alone: its file is still as generated, so it was neither built nor run. */
typedef enum { ST_PASS, ST_SKIP, ST_FAIL, ST_TIMEOUT, ST_CRASH, ST_BUILD_ERROR, ST_NOT_STARTED, ST_COUNT } grade_status;

const char *status_name(grade_status st);

typedef struct {
    char *config;        /* "threads=3 n=999 seed=7" */
    grade_status status;
    int ran;             /* 0 when it was not run (stopped early) */
    double seconds;
    char *message;       /* NULL when it passed */
} run_report;

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
} task_report;

typedef struct {
    task_report *tasks;
    int ntasks;
    double seconds;
    const toolchain *tc;
} grade_report;

/* Terminal output: colour only on a tty and when NO_COLOR is unset. */
void term_init(int quiet);
void term_task_start(int index, int total, const task_meta *task);
void term_run_progress(const task_meta *task, int run, int nruns, const char *config);
void term_task_done(int index, int total, const task_report *tr);
void term_summary(const grade_report *rep, const workbook *wb, const char *json_path, const char *junit_path);

/* Counts per status. */
void report_counts(const grade_report *rep, int counts[ST_COUNT]);
int report_write_json(const grade_report *rep, const char *path);
int report_write_junit(const grade_report *rep, const char *path);
/* Gradescope's autograder results.json: one test per task, 1 point for a PASS;
 * a task SKIPPED for want of a GPU is worth 0 of 0 (not the student's doing). */
int report_write_gradescope(const grade_report *rep, const char *path);

#endif
