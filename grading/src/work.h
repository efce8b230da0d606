/* work.h -- how a run's work was spread, as the grader measured it (runner.h's run_work),
 * and the method checks that tasks.ini's `method` names.
 *
 * The numbers come from outside the program: the kernel's CPU time of the run's processes
 * and of each thread, read from /proc while it runs.  Nothing a program prints enters them.
 *
 * method = threads: at the task's method configuration (a run large enough to measure,
 * with threads=T, T >= 2), the task's T busiest threads are set against the reference's,
 * run at the same configuration: the i-th busiest must have done at least WORK_MIN_SHARE of
 * what the reference's i-th busiest did.  The reference's share out of the work includes its
 * serial parts (the data, the serial check), so the comparison is fair to them.  A serial
 * loop (one thread busy), threads that sit idle, and a program that skips the work
 * altogether (printing results it did not compute) all fall short.  CPU time does not
 * depend on how busy the machine is, so load cannot fail a correct program; the margin
 * covers what sampling misses (a thread's last few milliseconds). */
#ifndef PR_WORK_H
#define PR_WORK_H

#include "runner.h"

#define WORK_MIN_SHARE 0.25

/* "2 threads, 67/33 % of 0.41 s CPU": the threads that did a visible part of the work (at
 * least 2 % of it) and their shares of it (a new string). */
char *work_summary(const run_work *w);

/* The method check `threads` for `threads` threads asked for: NULL when it holds, else what
 * fell short, in words a learner can act on (a new string).  ref: the reference's run at the
 * same configuration, or NULL. */
char *work_check_threads(const run_work *task, const run_work *ref, int threads);

#endif
