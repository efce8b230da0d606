/* work.c -- see work.h. */
#define _GNU_SOURCE
#include "work.h"
#include "util.h"

#include <dirent.h>
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

char *work_ranks_summary(const run_work *w);
char *work_gpu_summary(const run_work *w);

/* a's summary, then b's after "; " (either may be NULL; both freed) */
static char *joined(char *a, char *b)
{
    if (!a || !b)
        return a ? a : b;
    char *both = xasprintf("%s; %s", a, b);
    free(a);
    free(b);
    return both;
}

static char *cpu_summary(const run_work *w);

char *work_summary(const run_work *w)
{
    char *gpu = work_gpu_summary(w);
    if (w->nranks > 0)
        return joined(work_ranks_summary(w), gpu);
    return joined(cpu_summary(w), gpu);
}

static char *cpu_summary(const run_work *w)
{
    work_list threads = list_of(w, 0), procs = list_of(w, 1);
    int n = busy(threads), p = busy(procs);
    strbuf sb = { 0 };
    if (p > 1 && n == p) { /* one thread each: the processes are the news */
        sb_printf(&sb, "%d processes, ", p);
        shares(&sb, procs, p);
    } else {
        sb_printf(&sb, "%d thread%s, ", n, n == 1 ? "" : "s");
        shares(&sb, threads, n > 0 ? n : 1);
        if (p > 1) {
            sb_printf(&sb, " %% in %d processes, ", p);
            shares(&sb, procs, p);
        }
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
    int short_of = 0, short_tail = 0;
    for (int i = 0; i < places; i++) {
        int low = share(mine, i) < WORK_MIN_SHARE * (ref ? share(theirs, i) : 1.0 / asked);
        if (i < asked)
            short_of += low;
        else
            short_tail += low;
    }
    /* beyond the `asked` busiest, one place may be missing: a short-lived thread or process
     * (a few milliseconds) can end between two of the sampler's looks and show nothing */
    if (short_tail > WORK_TAIL_MISSES)
        short_of += short_tail;
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

/* ---- MPI ranks ---------------------------------------------------------------------- */

void work_read_ranks(const char *dir, const char *prefix, run_work *w)
{
    w->nranks = 0;
    memset(w->ranks, 0, sizeof w->ranks);
    for (int r = 0; r < WORK_MAX_RANKS; r++) {
        char *path = xasprintf("%s/%s.%d", dir, prefix, r);
        FILE *f = fopen(path, "r");
        free(path);
        if (!f)
            continue;
        char line[1200];
        rank_work *rk = &w->ranks[r];
        if (fgets(line, sizeof line, f)) {
            rk->seen = 1;
            /* key=value words; unknown keys are skipped */
            for (char *word = strtok(line, " \n"); word; word = strtok(NULL, " \n")) {
                char *eq = strchr(word, '=');
                if (!eq)
                    continue;
                *eq = '\0';
                const char *v = eq + 1;
                if (strcmp(word, "compute") == 0)
                    rk->compute = strtod(v, NULL);
                else if (strcmp(word, "mpi") == 0)
                    rk->mpi = strtod(v, NULL);
                else if (strcmp(word, "sends") == 0)
                    rk->sends = strtoll(v, NULL, 10);
                else if (strcmp(word, "bytes_sent") == 0)
                    rk->bytes_sent = strtoll(v, NULL, 10);
                else if (strcmp(word, "recvs") == 0)
                    rk->recvs = strtoll(v, NULL, 10);
                else if (strcmp(word, "bytes_recv") == 0)
                    rk->bytes_recv = strtoll(v, NULL, 10);
                else if (strcmp(word, "collectives") == 0)
                    rk->colls = strtoll(v, NULL, 10);
                else if (strcmp(word, "bytes_coll") == 0)
                    rk->bytes_coll = strtoll(v, NULL, 10);
                else if (strcmp(word, "calls") == 0)
                    snprintf(rk->calls, sizeof rk->calls, "%s", v);
                else if (strcmp(word, "finalized") == 0 || strcmp(word, "exit") == 0)
                    rk->ended = 1;
            }
            if (rk->compute < 0 || rk->compute != rk->compute)
                rk->compute = 0;
            if (r + 1 > w->nranks)
                w->nranks = r + 1;
        }
        fclose(f);
    }
}

/* n as is below `plain`, else in thousands (kilo) below `kilo`, else in millions: "2.4 MB",
 * "4000k threads" (unit: " B" or "") */
static void scaled_text(strbuf *sb, long long n, long long plain, long long kilo, const char *unit)
{
    if (n < plain)
        sb_printf(sb, "%lld%s", n, unit);
    else if (n < kilo)
        sb_printf(sb, *unit ? "%.1f k%s" : "%.0fk%s", n / 1e3, *unit ? unit + 1 : "");
    else
        sb_printf(sb, *unit ? "%.1f M%s" : "%.1fM%s", n / 1e6, *unit ? unit + 1 : "");
}

/* "2.4 MB" */
static void bytes_text(strbuf *sb, long long b)
{
    scaled_text(sb, b, 1000, 1000000, " B");
}

static long long rank_bytes(const rank_work *r)
{
    return r->bytes_sent + r->bytes_recv + r->bytes_coll;
}

static long long rank_talks(const rank_work *r)
{
    return r->sends + r->recvs + r->colls;
}

static double ranks_compute(const run_work *w)
{
    double sum = 0;
    for (int r = 0; r < w->nranks; r++)
        sum += w->ranks[r].compute;
    return sum;
}

/* "a/b/c" of one count per rank (at most 8 shown). */
static void per_rank(strbuf *sb, const run_work *w, long long (*of)(const rank_work *))
{
    for (int r = 0; r < w->nranks && r < 8; r++)
        sb_printf(sb, "%s%lld", r ? "/" : "", of(&w->ranks[r]));
    if (w->nranks > 8)
        sb_printf(sb, "/...");
}

static long long sends_of(const rank_work *r)
{
    return r->sends;
}

static long long colls_of(const rank_work *r)
{
    return r->colls;
}

char *work_ranks_summary(const run_work *w)
{
    if (w->nranks == 0)
        return NULL;
    strbuf sb = { 0 };
    double total = ranks_compute(w);
    sb_printf(&sb, "%d rank%s, computing ", w->nranks, w->nranks == 1 ? "" : "s");
    for (int r = 0; r < w->nranks && r < 8; r++)
        sb_printf(&sb, "%s%.0f", r ? "/" : "", total > 0 ? 100 * w->ranks[r].compute / total : 0);
    if (w->nranks > 8)
        sb_printf(&sb, "/...");
    sb_printf(&sb, " %% of %.2f s CPU outside MPI; messages sent ", total);
    per_rank(&sb, w, sends_of);
    sb_printf(&sb, ", collectives ");
    per_rank(&sb, w, colls_of);
    long long moved = 0;
    for (int r = 0; r < w->nranks; r++)
        moved += w->ranks[r].bytes_sent + w->ranks[r].bytes_coll;
    sb_printf(&sb, ", ");
    bytes_text(&sb, moved);
    sb_printf(&sb, " handed to MPI");
    return sb.data;
}

/* The ranks' compute times, largest first, as a work_list's array. */
static work_list sorted_compute(const run_work *w, double *into)
{
    for (int r = 0; r < w->nranks; r++)
        into[r] = w->ranks[r].compute;
    /* insertion sort: at most WORK_MAX_RANKS */
    for (int i = 1; i < w->nranks; i++)
        for (int j = i; j > 0 && into[j] > into[j - 1]; j--) {
            double t = into[j];
            into[j] = into[j - 1];
            into[j - 1] = t;
        }
    return (work_list){ into, w->nranks };
}

/* Whether the comma list `list` holds `name`. */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

char *work_check_calls(const run_work *task, const run_work *ref, const char *calls, double max_colls)
{
    if (!ref || ref->nranks == 0 || task->nranks == 0)
        return NULL;
    for (int r = 0; r < ref->nranks && r < WORK_MAX_RANKS; r++) {
        const rank_work *mine = &task->ranks[r], *theirs = &ref->ranks[r];
        if (!theirs->seen || !mine->seen)
            continue;
        char *names = xstrdup(calls ? calls : "");
        for (char *save = NULL, *name = strtok_r(names, " ,", &save); name; name = strtok_r(NULL, " ,", &save))
            if (listed(theirs->calls, name) && !listed(mine->calls, name)) {
                char *why = xasprintf("right results, but rank %d never called %s, which the task is about (the "
                                      "reference's rank %d does): the lesson's method is part of the task",
                                      r, name, r);
                free(names);
                return why;
            }
        free(names);
        if (max_colls > 0 && theirs->colls > 0 && (double)mine->colls > max_colls * (double)theirs->colls + 2)
            return xasprintf("right results, but rank %d took part in %lld collectives where the reference's rank "
                             "%d took part in %lld: the task is about communicating less often",
                             r, mine->colls, r, theirs->colls);
    }
    return NULL;
}

char *work_check_ranks(const run_work *task, const run_work *ref, int asked)
{
    if (!ref || ref->nranks == 0)
        return NULL; /* not measured on the reference's side: nothing to judge against */
    if (task->nranks == 0)
        return xasprintf("right results, but your program never started MPI (no rank reached MPI_Init): with "
                         "ranks=%d, the %d ranks work together through MPI",
                         asked, asked);
    if (task->nranks > ref->nranks)
        return xasprintf("right results, but the MPI layer's records of your run name %d ranks where %d ran: the "
                         "work cannot be judged from records written by the program",
                         task->nranks, ref->nranks);
    strbuf sb = { 0 };
    /* every rank the reference's run had took part, and talked where the reference's did */
    for (int r = 0; r < ref->nranks && r < WORK_MAX_RANKS; r++) {
        const rank_work *mine = &task->ranks[r], *theirs = &ref->ranks[r];
        if (!theirs->seen)
            continue;
        if (!mine->seen || !mine->ended) {
            sb_printf(&sb, "right results, but rank %d %s: every rank runs to MPI_Finalize and does its share", r,
                      mine->seen ? "stopped before MPI_Finalize" : "never reached MPI_Init");
            return sb.data;
        }
        if (rank_talks(theirs) > 0 && rank_talks(mine) == 0) {
            sb_printf(&sb, "right results, but rank %d never called MPI after MPI_Init (the reference's rank %d "
                           "sent %lld messages and took part in %lld collectives): every rank does its share and "
                           "the ranks combine their parts through MPI",
                      r, r, theirs->sends, theirs->colls);
            return sb.data;
        }
        /* data that travels in the reference's run (64 kB or more for this rank) travels in the task's */
        if (rank_bytes(theirs) >= 65536 && rank_bytes(mine) < WORK_MIN_BYTES * rank_bytes(theirs)) {
            sb_printf(&sb, "right results, but rank %d handed MPI ", r);
            bytes_text(&sb, rank_bytes(mine));
            sb_printf(&sb, " where the reference's rank %d handed it ", r);
            bytes_text(&sb, rank_bytes(theirs));
            sb_printf(&sb, ": the data is meant to travel between the ranks, not to be made or kept on each");
            return sb.data;
        }
    }
    /* the work: spread over the ranks as the reference's is (their compute, outside MPI) */
    double mine_cpu[WORK_MAX_RANKS], theirs_cpu[WORK_MAX_RANKS];
    work_list mine = sorted_compute(task, mine_cpu), theirs = sorted_compute(ref, theirs_cpu);
    double mine_total = sampled_total(mine), theirs_total = sampled_total(theirs);
    if (theirs_total < 0.02)
        return NULL; /* too little to measure */
    if (mine_total < WORK_MIN_TOTAL * theirs_total) {
        sb_printf(&sb, "right results, but your ranks computed for %.3f s in all (outside MPI) where the "
                       "reference's computed for %.2f s: the results did not come from the work the task asks for",
                  mine_total, theirs_total);
        return sb.data;
    }
    int places = busy(theirs);
    if (places < asked)
        places = asked;
    int short_of = 0;
    for (int i = 0; i < places; i++)
        short_of += share(mine, i) < WORK_MIN_SHARE * share(theirs, i);
    if (short_of == 0)
        return NULL;
    int top = 0;
    for (int r = 1; r < task->nranks; r++)
        if (task->ranks[r].compute > task->ranks[top].compute)
            top = r;
    if (share(mine, 0) >= 0.9)
        sb_printf(&sb, "right results, but rank %d did %.0f %% of the computing (%.2f s of CPU outside MPI): "
                       "with ranks=%d, each rank should compute its own share",
                  top, 100 * share(mine, 0), mine_total, asked);
    else {
        sb_printf(&sb, "right results, but the work was not spread over the ranks: the busiest computed ");
        shares(&sb, mine, places);
        sb_printf(&sb, " %% of %.2f s (outside MPI), the reference's ", mine_total);
        shares(&sb, theirs, places);
        sb_printf(&sb, " %% of %.2f s; each rank should compute its own share", theirs_total);
    }
    return sb.data;
}

/* ---- simulated CUDA ----------------------------------------------------------------- */

/* Calls read(f, w) on every file of dir whose name starts with prefix (and then a '.', where
 * dotted): the records a run's processes leave, one file each. */
static void each_record(const char *dir, const char *prefix, int dotted, void (*read)(FILE *, run_work *),
                        run_work *w)
{
    DIR *d = opendir(dir);
    size_t plen = strlen(prefix);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, plen) != 0 || (dotted && e->d_name[plen] != '.'))
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        free(path);
        if (!f)
            continue;
        read(f, w);
        fclose(f);
    }
    if (d)
        closedir(d);
}

/* One process's work record, added into w->gpu. */
static void read_gpu_record(FILE *f, run_work *w)
{
    char line[1024];
    gpu_work g = { 0 };
    if (fgets(line, sizeof line, f) &&
        sscanf(line,
               "launches=%lld threads=%lld units=%lld max_units=%lld median_units=%lld half_threads=%lld "
               "grid=%u,%u,%u block=%u,%u,%u h2d=%lld d2h=%lld d2d=%lld",
               &g.launches, &g.threads, &g.units, &g.max_units, &g.median_units, &g.half_threads, &g.grid[0],
               &g.grid[1], &g.grid[2], &g.block[0], &g.block[1], &g.block[2], &g.h2d, &g.d2h, &g.d2d) == 15) {
        gpu_work *t = &w->gpu;
        t->seen++;
        t->launches += g.launches, t->threads += g.threads, t->units += g.units, t->half_threads += g.half_threads;
        t->h2d += g.h2d, t->d2h += g.d2h, t->d2d += g.d2d;
        /* the busiest thread against the median one: the record where it stands out most */
        if (g.median_units > 0 && (t->median_units == 0 || (double)g.max_units / (double)g.median_units >
                                                                 (double)t->max_units / (double)t->median_units)) {
            t->max_units = g.max_units;
            t->median_units = g.median_units;
        }
        if ((long long)g.grid[0] * g.grid[1] * g.grid[2] * g.block[0] * g.block[1] * g.block[2] >
            (long long)t->grid[0] * t->grid[1] * t->grid[2] * t->block[0] * t->block[1] * t->block[2]) {
            memcpy(t->grid, g.grid, sizeof g.grid);
            memcpy(t->block, g.block, sizeof g.block);
        }
    }
}

void work_read_gpu(const char *dir, const char *prefix, run_work *w)
{
    memset(&w->gpu, 0, sizeof w->gpu);
    each_record(dir, prefix, 1, read_gpu_record, w);
}

/* "4.2M" */
static void count_text(strbuf *sb, long long n)
{
    scaled_text(sb, n, 10000, 10000000, "");
}

static void dims_text(strbuf *sb, const unsigned *d)
{
    sb_printf(sb, "%u", d[0]);
    if (d[1] > 1 || d[2] > 1)
        sb_printf(sb, "x%u", d[1]);
    if (d[2] > 1)
        sb_printf(sb, "x%u", d[2]);
}

char *work_gpu_summary(const run_work *w)
{
    const gpu_work *g = &w->gpu;
    if (!g->seen)
        return NULL;
    strbuf sb = { 0 };
    sb_printf(&sb, "GPU (simulated): %lld kernel launch%s", g->launches, g->launches == 1 ? "" : "es");
    if (g->launches > 0) {
        sb_printf(&sb, ", the largest ");
        dims_text(&sb, g->grid);
        sb_printf(&sb, " blocks of ");
        dims_text(&sb, g->block);
        sb_printf(&sb, "; half the work done by ");
        count_text(&sb, g->half_threads);
        sb_printf(&sb, " of ");
        count_text(&sb, g->threads);
        sb_printf(&sb, " threads, the busiest ran %lld steps, the median one %lld", g->max_units, g->median_units);
    }
    sb_printf(&sb, "; copied ");
    bytes_text(&sb, g->h2d);
    sb_printf(&sb, " to the GPU, ");
    bytes_text(&sb, g->d2h);
    sb_printf(&sb, " back");
    return sb.data;
}

char *work_check_gpu(const run_work *task, const run_work *ref)
{
    if (!ref || !ref->gpu.seen || ref->gpu.launches == 0)
        return NULL;
    const gpu_work *mine = &task->gpu, *theirs = &ref->gpu;
    if (!theirs->seen)
        return NULL; /* not measured on the reference's side: nothing to judge against */
    if (!mine->seen)
        return xstrdup("right results, but the simulator left no record of your program's GPU work (did it end "
                       "through _exit, or a crash?): the grader cannot tell that the GPU did the work");
    if (mine->seen > theirs->seen)
        return xasprintf("right results, but the simulator's records of your run were %d where its processes were %d: "
                         "the GPU's work cannot be judged from records written by the program",
                         mine->seen, theirs->seen);
    if (mine->launches == 0)
        return xstrdup("right results, but your program launched no kernel: the GPU did none of the work");
    /* the busiest thread against the median one: at most 64 times its steps, or 8 times the
     * reference's ratio */
    double spread = mine->median_units > 0 ? (double)mine->max_units / (double)mine->median_units : 0;
    double ref_spread = theirs->median_units > 0 ? (double)theirs->max_units / (double)theirs->median_units : 0;
    if (spread > WORK_GPU_SPREAD && spread > 8 * ref_spread)
        return xasprintf("right results, but the GPU's work was not spread over its threads: the busiest thread ran "
                         "%lld steps where the median one ran %lld (in the reference: %lld and %lld); the work ran "
                         "serially on the GPU: give every thread a share, one element each or a grid-stride loop "
                         "over many threads",
                         mine->max_units, mine->median_units, theirs->max_units, theirs->median_units);
    long long need = theirs->half_threads / 8;
    if (need > 512)
        need = 512;
    if (need < 1)
        need = 1;
    if (mine->half_threads >= need)
        return NULL;
    strbuf sb = { 0 };
    sb_printf(&sb, "right results, but the GPU's work was not spread over its threads: its busiest thread ran %lld "
                   "loop steps, and half of all the work was done by %lld of ",
              mine->max_units, mine->half_threads);
    count_text(&sb, mine->threads);
    sb_printf(&sb, " threads (the reference's: by ");
    count_text(&sb, theirs->half_threads);
    sb_printf(&sb, "); the work ran serially on the GPU: give every thread a share, one element each or a "
                   "grid-stride loop over many threads");
    return sb.data;
}

/* One process's profile lines ("profile KERNEL key=value ..."), added into w->gpu. */
static void read_profile_record(FILE *f, run_work *w)
{
    gpu_work *g = &w->gpu;
    static const char *const keys[] = { "ld_requests",        "ld_sectors",          "st_requests",
                                        "st_sectors",         "shared_ld_requests",  "shared_ld_wavefronts",
                                        "shared_st_requests", "shared_st_wavefronts", "atomics",
                                        "atomic_conflicts",   "ld_bytes",            "st_bytes" };
    long long *sums[] = { &g->ld_requests,      &g->ld_sectors,       &g->st_requests, &g->st_sectors,
                          &g->sh_ld_requests,   &g->sh_ld_wavefronts, &g->sh_st_requests,
                          &g->sh_st_wavefronts, &g->atomics,          &g->atomic_conflicts,
                          &g->ld_bytes,         &g->st_bytes };
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "profile ", 8) != 0)
            continue;
        g->mem_seen++;
        long long sectors = 0;
        int k_at = -1; /* this line's kernel in g->kernel[] */
        for (char *tok = strtok(line + 8, " \n"); tok; tok = strtok(NULL, " \n")) {
            char *eq = strchr(tok, '=');
            if (!eq) { /* the kernel's name, first on the line */
                for (int i = 0; i < g->nkernels && k_at < 0; i++)
                    if (strcmp(g->kernel[i].name, tok) == 0)
                        k_at = i;
                if (k_at < 0 && g->nkernels < (int)(sizeof g->kernel / sizeof g->kernel[0])) {
                    k_at = g->nkernels++;
                    snprintf(g->kernel[k_at].name, sizeof g->kernel[k_at].name, "%s", tok);
                    g->kernel[k_at].sectors = 0;
                }
                continue;
            }
            *eq = '\0';
            if (strcmp(tok, "ld_sectors") == 0 || strcmp(tok, "st_sectors") == 0)
                sectors += atoll(eq + 1);
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                if (strcmp(tok, keys[k]) == 0)
                    *sums[k] += atoll(eq + 1);
            if (strcmp(tok, "worst") == 0 && strcmp(eq + 1, "-") != 0 && !g->worst[0])
                snprintf(g->worst, sizeof g->worst, "%s", eq + 1);
        }
        if (k_at >= 0)
            g->kernel[k_at].sectors += sectors;
    }
}

void work_read_profile(const char *dir, const char *prefix, run_work *w)
{
    gpu_work *g = &w->gpu;
    g->mem_seen = 0;
    g->ld_requests = g->ld_sectors = g->st_requests = g->st_sectors = 0;
    g->sh_ld_requests = g->sh_ld_wavefronts = g->sh_st_requests = g->sh_st_wavefronts = 0;
    g->atomics = g->atomic_conflicts = g->ld_bytes = g->st_bytes = 0;
    g->worst[0] = '\0';
    g->nkernels = 0;
    each_record(dir, prefix, 0, read_profile_record, w);
}

/* "4.0" units per request, or "-" when there was no request */
static void per_request(char *out, size_t size, long long units, long long requests)
{
    if (requests > 0)
        snprintf(out, size, "%.1f", (double)units / (double)requests);
    else
        snprintf(out, size, "-");
}

int work_counts_slow(const gpu_work *t, const gpu_work *r, double limit, const char **measure, double *ratio)
{
    double tg = (double)(t->ld_sectors + t->st_sectors), rg = (double)(r->ld_sectors + r->st_sectors);
    *measure = "global memory traffic";
    *ratio = tg / (rg > 1 ? rg : 1);
    if (tg > limit * rg)
        return 1;
    if ((double)t->atomics > limit * (double)r->atomics + WORK_ATOMIC_SLACK) {
        *measure = "atomics";
        *ratio = (double)t->atomics / (double)(r->atomics > 1 ? r->atomics : 1);
        return 1;
    }
    /* shared memory: the wavefronts, every request's together (bank conflicts, and requests
     * of warps where few lanes work); against a reference without shared memory, per request */
    long long tq = t->sh_ld_requests + t->sh_st_requests, rq = r->sh_ld_requests + r->sh_st_requests;
    double tw = (double)(t->sh_ld_wavefronts + t->sh_st_wavefronts), rw = (double)(r->sh_ld_wavefronts + r->sh_st_wavefronts);
    if (rq > 0 && tw > limit * rw) {
        *measure = "shared-memory wavefronts";
        *ratio = tw / rw;
        return 1;
    }
    if (rq == 0 && tq > 0 && tw > limit * (double)tq) {
        *measure = "shared-memory wavefronts per request";
        *ratio = tw / (double)tq;
        return 1;
    }
    return 0;
}

char *work_check_traffic(const gpu_work *t, const gpu_work *r)
{
    if (!t->mem_seen || !r->mem_seen)
        return NULL;
    long long tg = t->ld_sectors + t->st_sectors, rg = r->ld_sectors + r->st_sectors;
    if (tg * WORK_TRAFFIC_FLOOR >= rg)
        return NULL;
    return xasprintf("right results, but your kernels moved %lld sectors of GPU memory where the reference's moved "
                     "%lld (%.1f %%): too little to have done the work; the GPU must read the inputs and compute "
                     "the result, not copy one the CPU computed",
                     tg, rg, rg > 0 ? 100.0 * (double)tg / (double)rg : 0.0);
}

char *work_check_atomics(const gpu_work *t, const gpu_work *r)
{
    if (!t->mem_seen || !r->mem_seen || r->atomics == 0 || t->atomics > 0)
        return NULL;
    return xasprintf("right results, but your kernels made no atomic operation where the reference's made %lld: "
                     "threads of different blocks that add into one result must do it atomically. The simulator "
                     "runs one block at a time, so a plain += loses nothing here; on a GPU the blocks run at once "
                     "and updates are lost (make grade RACECHECK=1 names the lines)",
                     r->atomics);
}

char *work_check_kernels(const gpu_work *t, const gpu_work *r)
{
    if (!t->mem_seen || !r->mem_seen)
        return NULL;
    for (int i = 0; i < r->nkernels; i++) {
        long long theirs = r->kernel[i].sectors, mine = 0;
        if (theirs < WORK_KERNEL_MIN_SECTORS)
            continue; /* too little to judge */
        for (int j = 0; j < t->nkernels; j++)
            if (strcmp(t->kernel[j].name, r->kernel[i].name) == 0)
                mine = t->kernel[j].sectors;
        if (mine * WORK_TRAFFIC_FLOOR < theirs)
            return xasprintf("right results, but the kernel %s moved %lld sectors of GPU memory where the "
                             "reference's moved %lld: its work was done somewhere else (on the CPU?); each kernel "
                             "the task asks for does its own part on the GPU",
                             r->kernel[i].name, mine, theirs);
    }
    return NULL;
}

char *work_profile_summary(const run_work *task, const run_work *ref)
{
    if (!task || !ref || !task->gpu.mem_seen || !ref->gpu.mem_seen)
        return NULL;
    const gpu_work *t = &task->gpu, *r = &ref->gpu;
    strbuf sb = { 0 };
    char a[32], b[32];
    if (t->ld_requests || r->ld_requests) {
        per_request(a, sizeof a, t->ld_sectors, t->ld_requests);
        per_request(b, sizeof b, r->ld_sectors, r->ld_requests);
        sb_printf(&sb, "global loads %s sectors/request (reference %s)", a, b);
    }
    if (t->st_requests || r->st_requests) {
        per_request(a, sizeof a, t->st_sectors, t->st_requests);
        per_request(b, sizeof b, r->st_sectors, r->st_requests);
        sb_printf(&sb, "%sstores %s (reference %s)", sb.len ? ", " : "", a, b);
    }
    long long tb = 32 * (t->ld_sectors + t->st_sectors), rb = 32 * (r->ld_sectors + r->st_sectors);
    if (rb > 0)
        sb_printf(&sb, "%sglobal traffic %.2fx the reference's", sb.len ? ", " : "", (double)tb / (double)rb);
    long long tsr = t->sh_ld_requests + t->sh_st_requests, rsr = r->sh_ld_requests + r->sh_st_requests;
    if (tsr || rsr) {
        per_request(a, sizeof a, t->sh_ld_wavefronts + t->sh_st_wavefronts, tsr);
        per_request(b, sizeof b, r->sh_ld_wavefronts + r->sh_st_wavefronts, rsr);
        sb_printf(&sb, "%sshared %s wavefronts/request (reference %s)", sb.len ? ", " : "", a, b);
        long long tw = t->sh_ld_wavefronts + t->sh_st_wavefronts, rw = r->sh_ld_wavefronts + r->sh_st_wavefronts;
        if (rw > 0)
            sb_printf(&sb, ", %.2fx the reference's wavefronts", (double)tw / (double)rw);
    }
    if (t->atomics || r->atomics)
        sb_printf(&sb, "%satomics %lld (reference %lld)", sb.len ? ", " : "", t->atomics, r->atomics);
    if (!sb.len)
        sb_printf(&sb, "no access to global or shared memory (reference none)");
    /* the costliest line, where the task asks more of the memory than the reference does
     * (at the reference's own counts it names a line no version can improve) */
    long long tsw = t->sh_ld_wavefronts + t->sh_st_wavefronts, rsw = r->sh_ld_wavefronts + r->sh_st_wavefronts;
    if (t->worst[0] && (tb * 20 > rb * 21 || tsw * 20 > rsw * 21))
        sb_printf(&sb, "; the costliest access: %s", t->worst);
    return sb.data;
}
