/* report.h -- the ways what grading found (grades.h) is shown: the terminal
 * (progress, table, per-room "escaped" line), build/grade-report.json
 * (schema parallel-rooms/grade-report/1), JUnit XML and Gradescope. */
#ifndef PR_REPORT_H
#define PR_REPORT_H

#include "grades.h"
#include "meta.h"
#include "toolchain.h"

/* Terminal output: colour only on a tty and when NO_COLOR is unset. */
void term_init(int quiet);
void term_task_start(int index, int total, const task_meta *task);
void term_run_progress(const task_meta *task, int run, int nruns, const char *config);
/* The perf runs after a PASS are under way (perf.h). */
void term_perf_progress(const task_meta *task);
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
