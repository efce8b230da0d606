/* work.c -- see work.h. */
#define _GNU_SOURCE
#include "work.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CPU times of a run's threads, or of its processes: which of the two a method judges. */
typedef struct {
    const double *cpu;
    int n;
} work_list;

static work_list list_of(const run_work *w, int processes)
{
    return processes ? (work_list){ w->proc_cpu, w->nprocs } : (work_list){ w->thread_cpu, w->nthreads };
}

/* The CPU seconds of the threads (processes) seen (sampled: a little under the exact total). */
static double sampled_total(work_list l)
{
    double sum = 0;
    for (int i = 0; i < l.n; i++)
        sum += l.cpu[i];
    return sum;
}

/* Entries that did at least 2 % of the sampled work (and 5 ms): the sandbox's own and a
 * launcher's, nearly idle, are not counted. */
static int busy(work_list l)
{
    double total = sampled_total(l);
    int n = 0;
    while (n < l.n && l.cpu[n] >= 0.005 && l.cpu[n] >= 0.02 * total)
        n++;
    return n;
}

/* Entry i's share of the sampled work (0 for one not there). */
static double share(work_list l, int i)
{
    double total = sampled_total(l);
    return i < l.n && total > 0 ? l.cpu[i] / total : 0;
}

/* "67/33" for the first n entries (absent ones as 0), at most 8 shown. */
static void shares(strbuf *sb, work_list l, int n)
{
    for (int i = 0; i < n && i < 8; i++)
        sb_printf(sb, "%s%.0f", i ? "/" : "", 100 * share(l, i));
    if (n > 8)
        sb_printf(sb, "/...");
}

char *work_summary(const run_work *w)
{
    work_list threads = list_of(w, 0), procs = list_of(w, 1);
    int n = busy(threads), p = busy(procs);
    strbuf sb = { 0 };
    sb_printf(&sb, "%d thread%s, ", n, n == 1 ? "" : "s");
    shares(&sb, threads, n > 0 ? n : 1);
    if (p > 1) {
        sb_printf(&sb, " %% in %d processes, ", p);
        shares(&sb, procs, p);
    }
    sb_printf(&sb, " %% of %.2f s CPU", w->cpu);
    return sb.data;
}

char *work_check(const run_work *task, const run_work *ref, int asked, int processes)
{
    const char *unit = processes ? "process" : "thread";
    work_list mine = list_of(task, processes), theirs = ref ? list_of(ref, processes) : (work_list){ NULL, 0 };
    /* The work done at all: a program that prints what it did not compute uses next to no CPU. */
    int no_work = ref && task->cpu < WORK_MIN_TOTAL * ref->cpu;
    /* Every place where the reference's work shows (and at least the `asked` busiest): the
     * task's i-th busiest share against the reference's i-th (without the reference's
     * figures: against an even share). */
    int places = ref ? busy(theirs) : asked;
    if (places < asked)
        places = asked;
    int short_of = 0;
    for (int i = 0; i < places; i++)
        short_of += share(mine, i) < WORK_MIN_SHARE * (ref ? share(theirs, i) : 1.0 / asked);
    if (!no_work && short_of == 0)
        return NULL;
    strbuf sb = { 0 };
    if (no_work) {
        sb_printf(&sb, "right results, but your program used %.3f s of CPU in all where the reference used %.2f s: "
                       "the results did not come from the work the task asks for",
                  task->cpu, ref->cpu);
    } else if (share(mine, 0) >= 0.9) {
        sb_printf(&sb, "right results, but one %s did %.0f %% of the work (%.2f s of CPU): the work ran "
                       "serially; with %s=%d, each of the %d %s should do a share",
                  unit, 100 * share(mine, 0), task->cpu, processes ? "workers" : "threads", asked, asked,
                  processes ? "processes" : "threads");
    } else {
        sb_printf(&sb, "right results, but the work was not spread as asked (%s=%d): the busiest %s did ",
                  processes ? "workers" : "threads", asked, processes ? "processes" : "threads");
        shares(&sb, mine, places);
        sb_printf(&sb, " %% of %.2f s of CPU", task->cpu);
        if (ref) {
            sb_printf(&sb, ", the reference's ");
            shares(&sb, theirs, places);
            sb_printf(&sb, " %% of %.2f s", ref->cpu);
        }
        sb_printf(&sb, "; each %s should do a share of the work", unit);
    }
    return sb.data;
}
