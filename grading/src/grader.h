/* grader.h -- grading one task: build both sides, run every configuration,
 * compare the task's result lines with the reference's. */
#ifndef PR_GRADER_H
#define PR_GRADER_H

#include "grades.h"
#include "meta.h"
#include "policy.h"
#include "results.h"
#include "runner.h"
#include "sandbox.h"
#include "toolchain.h"

/* The limits a command runs under (run_limited): none (the grader's own builds), a CPU
 * program's, or a CUDA program's (no address-space cap: its runtime reserves huge ranges). */
enum { LIMITS_NONE, LIMITS_CPU, LIMITS_CUDA };

/* How the work of a run is judged (tasks.ini's method, work.h). */
typedef enum { METHOD_NONE, METHOD_THREADS, METHOD_PROCESSES, METHOD_RANKS, METHOD_GPU } method_kind;

/* A task's grading plan: what the steps of grade_task need to know of the task on this
 * machine, resolved once (plan_make) and read by every step. */
typedef struct {
    const kind_info *kind;       /* its kind (kinds.h) */
    int overlaid;                /* its configurations come from a private tasks.ini overlay */
    run_mode mode;               /* MODE_NATIVE, or MODE_SIM: CUDA code built with simcc */
    int launcher;                /* its ranks start through the MPI launcher */
    int cuda;                    /* CUDA code */
    int limits;                  /* LIMITS_CPU or LIMITS_CUDA: its programs' */
    int gpu_in_sandbox;          /* the sandbox shows the GPU (native CUDA) */
    int runs_outside;            /* runs not in the sandbox: ranks that Slurm or ssh start
                                  * elsewhere, native CUDA where the probe failed inside (sandbox.h) */
    const char *mpi_layer;       /* the MPI work layer its ranks load, or NULL (work.h) */
    int sim_record;              /* the simulator writes its work record (work.h) */
    int profiled;                /* built with the simulator's profiler (toolchain_profiles): the
                                  * method run records its memory counts, the others switch it off */
    int race_hint;               /* the race checker can run it (race_check: RACECHECK=1) */
    method_kind method;          /* how its work is judged */
    const char *method_key;      /* the configuration key that says how many: threads, workers, ranks */
    const run_config *method_cfg; /* where the method is judged, or NULL */
} task_plan;

typedef struct {
    const char *root;        /* absolute path of the workbook */
    const char *tasks_from;  /* absolute folder holding NN_room/taskK.c for the task side */
    const char *build_dir;   /* absolute path of build/ */
    const toolchain *tc;
    const grade_policy *policy; /* timeouts, output cap, process and memory limits, when to stop */
    const char *ref_dir;     /* where reference executables go (NULL: build_dir/bin/ref) */
    int reuse_refs;          /* keep a reference executable newer than its source and pr.h
                              * (class grading: many students, one set of references) */
    int verbose;             /* print every command the grader runs (make V=1) */
    int detect_untouched;    /* a task file still as generated is NOT_STARTED, neither built nor run
                              * (off for the maintainers' check that untouched tasks fail) */
    const sandbox *sandbox;  /* the learner's side builds and runs in it when active (sandbox.h);
                              * NULL: no sandbox */
    int perf;                /* PERF_MODE_OFF, _ON or _REQUIRED (perf.h) */
    int method_run;          /* the runs judge the method (work.h): OpenMP's threads wait without
                              * spinning (OMP_WAIT_POLICY=passive), so that CPU time is work */
    int hide_expected;       /* --hide-expected: no expected value in messages or logs */
    const char *ref_outputs; /* where the references' outputs are kept per configuration (with
                              * --ref-dir: a class's graders, or check-solutions and check-tasks
                              * on one draw, run each reference once), or NULL */
    const task_plan *plan;   /* the task being graded: its plan (grade_task sets it) */
    int reuse_task_builds;   /* --reuse-builds (maintainers): keep the task's executable while it is
                              * newer than its source and headers, as reuse_refs does (the later
                              * draws of check-solutions grade the same files again) */
    int profile_run;         /* the method run of a profiled task (plan->profiled): the counts are
                              * read (CUDA_SIM_PROFILE_OUT) into the run's gpu_work */
} grade_context;

/* The task's plan on this machine (its toolchain, sandbox and launcher). */
void plan_make(const grade_context *ctx, const task_meta *task, task_plan *plan);

/* Grades one task into tr (index/total are for the progress display). */
void grade_task(const grade_context *ctx, const task_meta *task, int index, int total, task_report *tr);
void task_report_free(task_report *tr);

/* Runs exe (a task's program: the reference, or the learner's side when `learner`, in the
 * sandbox where it is on) at configuration cfg, under the task's limits, into res. */
void grade_run_program(const grade_context *ctx, const task_meta *task, const run_config *cfg, const char *exe,
                       int learner, double timeout, run_result *res);

/* The status a finished run of the task deserves, given the reference's results
 * (NULL when the reference itself failed); via_launcher: it ran under the MPI
 * launcher, which turns a rank's signal into an exit status (and says which signal:
 * launcher_reported_signal, launchers.h).  *message gets a new string or NULL.
 * Exposed for the unit tests. */
grade_status judge_run(const run_result *task_run, double timeout, const result_set *expected,
                       int via_launcher, char **message);
/* Why CUDA programs fail on this machine whatever their code, read from what a run
 * printed (a driver older than the toolkit; a GPU that takes one process at a time):
 * a fixed string, or NULL when the output names neither. */
const char *gpu_failure_cause(const char *out, const char *err);

#endif
