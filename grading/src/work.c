/* work.c -- see work.h. */
#define _GNU_SOURCE
#include "work.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CPU seconds of the threads seen (sampled: a little under the exact total). */
static double sampled_total(const run_work *w)
{
    double sum = 0;
    for (int i = 0; i < w->nthreads; i++)
        sum += w->thread_cpu[i];
    return sum;
}

/* Threads that did at least 2 % of the sampled work (and 5 ms): the sandbox's own and a
 * launcher's, nearly idle, are not counted. */
static int busy_threads(const run_work *w)
{
    double total = sampled_total(w);
    int n = 0;
    while (n < w->nthreads && w->thread_cpu[n] >= 0.005 && w->thread_cpu[n] >= 0.02 * total)
        n++;
    return n;
}

/* "67/33" for the first n threads (absent ones as 0), at most 8 shown. */
static void shares(strbuf *sb, const run_work *w, int n)
{
    double total = sampled_total(w);
    for (int i = 0; i < n && i < 8; i++) {
        double cpu = i < w->nthreads ? w->thread_cpu[i] : 0;
        sb_printf(sb, "%s%.0f", i ? "/" : "", total > 0 ? 100 * cpu / total : 0);
    }
    if (n > 8)
        sb_printf(sb, "/...");
}

char *work_summary(const run_work *w)
{
    int n = busy_threads(w);
    strbuf sb = { 0 };
    sb_printf(&sb, "%d thread%s, ", n, n == 1 ? "" : "s");
    shares(&sb, w, n > 0 ? n : 1);
    sb_printf(&sb, " %% of %.2f s CPU", w->cpu);
    return sb.data;
}

char *work_check_threads(const run_work *task, const run_work *ref, int threads)
{
    /* The i-th busiest thread against the reference's i-th busiest (or, without the
     * reference's figures, against a fair share of the task's own CPU time). */
    int short_of = 0;
    for (int i = 0; i < threads; i++) {
        double mine = i < task->nthreads ? task->thread_cpu[i] : 0;
        double want = ref ? (i < ref->nthreads ? ref->thread_cpu[i] : 0) : task->cpu / threads;
        short_of += mine < WORK_MIN_SHARE * want;
    }
    if (short_of == 0)
        return NULL;
    double total = sampled_total(task);
    strbuf sb = { 0 };
    if (ref && task->cpu < WORK_MIN_SHARE * ref->cpu) {
        sb_printf(&sb, "right results, but your program used %.3f s of CPU in all where the reference used %.2f s: "
                       "the results did not come from the work the task asks for",
                  task->cpu, ref->cpu);
    } else if (total > 0 && task->nthreads > 0 && task->thread_cpu[0] >= 0.9 * total) {
        sb_printf(&sb, "right results, but one thread did %.0f %% of the work (%.2f s of CPU): the work ran "
                       "serially; with threads=%d, each of the %d threads should do a share",
                  100 * task->thread_cpu[0] / total, task->cpu, threads, threads);
    } else {
        sb_printf(&sb, "right results, but the work was not spread over the %d threads asked for: ", threads);
        shares(&sb, task, threads);
        sb_printf(&sb, " %% of %.2f s of CPU", task->cpu);
        if (ref) {
            sb_printf(&sb, " (the reference: ");
            shares(&sb, ref, threads);
            sb_printf(&sb, " %% of %.2f s)", ref->cpu);
        }
        sb_printf(&sb, "; each thread should do a share of the work");
    }
    return sb.data;
}
