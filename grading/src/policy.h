/* policy.h -- the grader's limits, in one place: every GRADE_* limit read from the
 * environment (once, at start, and checked there), the builds' timeout and output
 * cap, the kill grace, the process and memory limits a task's program runs under,
 * and the rule that stops a task's remaining runs after one that hung or hit a limit.
 *
 *   GRADE_TIMEOUT_SCALE  multiplies every run's and build's timeout: (0, 100], default 1
 *   GRADE_OUTPUT_LIMIT   bytes of stdout + stderr kept per run: 1024 to 1 GiB, default 1 MiB
 *   GRADE_PROCESS_LIMIT  processes at once per program: default 256 (a fork bomb's end)
 *   GRADE_MEMORY_LIMIT   MiB for all of a program's processes together: default 1024 for
 *                        CPU tasks (the graded sizes need under 512) and 4096 for CUDA
 *                        tasks (the runtime alone takes hundreds a process), never more
 *                        than half the machine's memory
 *
 * (The toolchain's own settings -- GRADE_CFLAGS, GRADE_CUDA, GRADE_HOSTS,
 * GRADE_HOSTFILE -- are read by toolchain_detect: they choose tools, not limits.) */
#ifndef PR_POLICY_H
#define PR_POLICY_H

#include "runner.h"

#include <stddef.h>

/* Seconds a build may take, times GRADE_TIMEOUT_SCALE. */
#define POLICY_BUILD_TIMEOUT 120.0
/* Bytes of a compiler's output kept. */
#define POLICY_BUILD_OUTPUT_CAP (256 * 1024)
/* Seconds between SIGTERM and SIGKILL when a run (or a build, or a query) is stopped. */
#define POLICY_KILL_GRACE 1.0

typedef struct {
    double timeout_scale; /* GRADE_TIMEOUT_SCALE */
    size_t output_cap;    /* GRADE_OUTPUT_LIMIT */
    int max_procs;        /* GRADE_PROCESS_LIMIT (unset, empty, or not above 0: 256) */
    long memory_mib;      /* GRADE_MEMORY_LIMIT, or 0 (unset, empty, or not above 0): the default */
    int stop_after_hang;  /* skip a task's remaining runs after one that timed out or hit the
                           * process or memory limit (a hang, a fork bomb, a memory hog) */
} grade_policy;

/* Reads every GRADE_* limit into p.  Returns 0, or -1 with *error set to the first one
 * that is out of range (a new string: "GRADE_TIMEOUT_SCALE=x: must be ..."). */
int policy_load(grade_policy *p, char **error);
/* A build's timeout in seconds. */
double policy_build_timeout(const grade_policy *p);
/* Sets req's process and memory limits for a program of a task (cuda: a CUDA task,
 * whose address space is not capped), and the kill grace. */
void policy_limit_program(const grade_policy *p, int cuda, run_request *req);
/* Why a run that ended with outcome stops the task's remaining runs ("timed out",
 * "hit the process limit", "hit the memory limit"), or NULL when it does not. */
const char *policy_stop_reason(const grade_policy *p, run_outcome outcome);

#endif
