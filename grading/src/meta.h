/* meta.h -- rooms and their task metadata (NN_room/tasks.ini, read with inih).
 *
 *   [room]
 *   title   = Threads: pthreads and OpenMP
 *
 *   [task2]
 *   title   = Sum of 0.001*i with an OpenMP reduction
 *   source  = task2.c
 *   kind    = openmp        ; c pthreads openmp processes mpi cuda cuda_mpi nccl (kinds.h)
 *   runs    = threads=1,2,3,4 n=1000003,999 seed=7,11
 *   timeout = 10            ; seconds per run, times GRADE_TIMEOUT_SCALE
 *   hint1   = The idea: what the solution rests on ...
 *   hint2   = The structure: which steps, in which order ...
 *   hint3   = Nearly the code ...
 *   libs    = -lcublas      ; linked in native builds (where installed); in the CUDA simulator
 *                           ; only -lcublas and -lnccl (simulated): the task must leave out
 *                           ; the parts that need the others (#ifdef CUDA_SIM)
 *   perf       = threads=2 n=4000003  ; the perf configuration: ONE larger run (no lists)
 *   perf_time  = reduction | by hand  ; the program's `time` lines compared (their sum)
 *   perf_limit = 1.5                  ; SLOW above this ratio to the reference (default 1.5)
 *   perf_hint  = What the lesson says about why such a version is slow ...
 *   perf_repeats = 4                  ; how many times a run of the program at the perf size
 *                                     ; runs the code its timings time (pr_best_of(3): a
 *                                     ; warm-up and 3), so that the grader's clock can check
 *                                     ; the printed times closely (perf.h); default: unknown
 *
 *   method     = threads              ; what must hold of how the work was done, measured by the
 *                                      ; grader (work.h): threads (threads=T), processes
 *                                      ; (workers=T) or MPI ranks (ranks=T): spread over them
 *                                      ; as the reference spreads it; gpu: a simulated CUDA
 *                                      ; task's kernels spread their work over many threads
 *   method_run = threads=2 n=20000003  ; where it is judged: ONE run large enough to measure
 *                                      ; (default: the perf configuration)
 *
 * A task with perf and perf_time gets a perf verdict after it passes (perf.h).
 *
 * Hints form a ladder, hint1 (the idea) to hintN (nearly the code), N <= 9,
 * with no gaps; `make hint` shows one level at a time.
 *
 * `runs` is a cartesian product of the values listed for each key; several
 * `runs` lines add more configurations.  `ranks` is the MPI rank count (the
 * launcher's business); every other key is passed to the program as key=value.
 *
 * A value `lo..hi` (0 <= lo, lo + 5 <= hi <= DRAW_MAX) is drawn anew at every grading:
 * an integer in [lo, hi] that neither 2 nor 3 divides (a drawn size never splits evenly
 * over 2, 3 or 4 workers).  `seed=1..999999999,1..999999999` draws two seeds.  The draw
 * depends on the grading's seed (make grade SEED=N repeats it), the task, the runs line,
 * the key and the value's place in its list: workbook_draw. */
#ifndef PR_META_H
#define PR_META_H

#include "kinds.h"

#include <stddef.h>
#include <stdint.h>

#define DRAW_MAX 999999999999LL

#define MAX_HINTS 9

typedef struct {
    char *label;   /* "threads=3 n=999 seed=7" */
    int nkeys;
    char **keys;
    char **values;
    int line;      /* the runs line it comes from: 1 for the task's first; 0 for perf */
    int *slots;    /* per key, the value's place in its list (which draw it is) */
} run_config;

typedef struct {
    char *id;      /* "01_threads/task2" */
    char *room;    /* "01_threads" */
    char *name;    /* "task2" */
    char *title;
    char *source;  /* "task2.c", relative to the room folder */
    char *kind;    /* "openmp", a name in the kinds table */
    const kind_info *kind_entry; /* that name's row (kinds.h), set with it at load */
    char *hints[MAX_HINTS]; /* hints[0] is hint1; the ladder's levels in order */
    int nhints;
    char *libs;    /* extra libraries ("-lcublas"; the simulator takes -lcublas and -lnccl); NULL for none */
    double timeout;
    char *runs_text;  /* every runs line, joined by " | " (for messages) */
    run_config *configs;
    int nconfigs;
    int nrun_lines; /* how many runs lines the task has */
    int overlaid;   /* a private tasks.ini overlay changed its configurations (meta_set_overlay) */
    run_config *perf;  /* the perf configuration, or NULL: no perf verdict for this task */
    char *perf_time;   /* the names of the timings compared, "a | b"; set with perf */
    double perf_limit; /* SLOW when the task's time is more than this times the reference's */
    int perf_repeats;  /* times a perf run runs its timed code, or 0: not said (perf.h) */
    char *perf_hint;   /* why such a version is slow (the lesson's words), or NULL */
    char *method;      /* what must hold of how the work was spread ("threads", "processes", "ranks", "gpu"), or NULL */
    run_config *method_run; /* where the method is judged, or NULL: the perf configuration */
    char *method_calls;     /* method = ranks: MPI collectives every rank must call (as the reference's), or NULL */
    double method_collectives; /* method = ranks: at most this many times the reference's collectives (0: any) */
} task_meta;

typedef struct {
    char *dir;     /* "01_threads" */
    char *title;
    task_meta *tasks;
    int ntasks;
} room_meta;

typedef struct {
    room_meta *rooms;
    int nrooms;
} workbook;

/* Loads every room (folders named NN_something holding tasks.ini) under root,
 * sorted by name.  Returns 0, or -1 with a message (file:line: what) in err. */
int workbook_load(const char *root, workbook *wb, char *err, size_t errlen);
/* A private tasks.ini overlay for the loads that follow (NULL or "": none).  Its sections
 * are [NN_room/taskK]; the keys runs, timeout, perf, perf_limit, perf_repeats, method and
 * method_run replace the task's own (its runs lines all of the task's).  An instructor keeps
 * it outside the workbook, so that learners do not know the graded sizes and ranges. */
void meta_set_overlay(const char *path);
/* Loads one tasks.ini into room (dir = room folder name).  Returns 0 or -1. */
int room_load(const char *ini_path, const char *dir, room_meta *room, char *err, size_t errlen);
/* Expands one runs line ("threads=1,2 n=5,6") into configurations, appended
 * to *configs.  Returns 0 or -1 with a message. */
int expand_runs(const char *spec, run_config **configs, int *nconfigs, char *err, size_t errlen);
/* The row of task's kind in the kinds table: the one found at load, or looked up by
 * name for a task_meta made by hand (the unit tests, the CUDA-aware probe).  A name
 * that is in no row (only possible by hand) ends the program with a message. */
const kind_info *task_kind(const task_meta *task);
/* Every `lo..hi` value of every task's configurations (runs and perf) replaced by its draw
 * for this seed, labels rewritten.  Call once, after loading, before anything reads them. */
void workbook_draw(workbook *wb, uint64_t seed);
/* A shorter grading, for a short slot on a GPU machine (make gpu-session): configurations at
 * more than max_ranks MPI ranks left out (0: none), and with first_only each task's first
 * configuration alone.  A task whose every configuration is left out is graded in none
 * (SKIP).  The perf and method configurations stay.  The tasks changed count as overlaid. */
void workbook_select_configs(workbook *wb, int max_ranks, int first_only);
/* One drawn value (exposed for the unit tests): see the comment above run_config. */
long long draw_value(uint64_t seed, const char *task_id, int line, const char *key, int slot, long long lo,
                     long long hi);
/* 1 when some value of cfg is still a range (not drawn yet). */
int config_has_draw(const run_config *cfg);
/* The configuration a task's method is judged at: method_run, else perf (NULL: neither). */
const run_config *task_method_config(const task_meta *task);
/* The value of key in a configuration, or NULL. */
const char *config_get(const run_config *cfg, const char *key);
void workbook_free(workbook *wb);

#endif
