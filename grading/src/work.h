/* work.h -- how a run's work was spread, as the grader measured it (runner.h's run_work),
 * and the method checks that tasks.ini's `method` names.
 *
 * The numbers come from outside the program: the kernel's CPU time of the run's processes
 * and of each thread, read from /proc while it runs.  Nothing a program prints enters them.
 *
 * method = threads (or processes): at the task's method configuration (a run large enough
 * to measure, with threads=T or workers=T, T >= 2), the task's run is set against the
 * reference's at the same configuration.  Its CPU time in all must be at least
 * WORK_MIN_TOTAL of the reference's (a program that prints results it did not compute uses
 * next to none).  And wherever the reference's work shows (its i-th busiest thread or
 * process did 2 % of it or more; at least T places), the task's i-th busiest must have at
 * least WORK_MIN_SHARE of the reference's share.  Shares, not seconds: the reference's share
 * out includes its serial parts (the data, the serial check), the same in the task, and a
 * machine that makes every thread's work dearer (a busy memory, page faults) changes both
 * sides' seconds but not their shares.  Every place, not the T busiest only: a program that
 * starts a thread (a process) a run, as the tasks do, and gives one of them all the work
 * shows the busy one and then nothing (beyond the T busiest, WORK_TAIL_MISSES places may be
 * missing: a worker of a few milliseconds can end unseen).  A serial loop (one thread busy) and threads that sit
 * idle fall short.  CPU time does not depend on how busy the machine is, so load cannot fail
 * a correct program; the margins cover what sampling misses (a thread's last few
 * milliseconds).  OpenMP's waiting threads would spin and count as busy: the method's runs
 * wait passively (grader.c).  A process's CPU time is its own threads', not its children's. */
#ifndef PR_WORK_H
#define PR_WORK_H

#include "runner.h"

#define WORK_MIN_SHARE 0.25
#define WORK_MIN_TOTAL 0.10
/* places beyond the T busiest that may fall short: one (a short-lived worker the sampler
 * never saw; CI's 02 task1 once missed one of its many 12 ms workers) */
#define WORK_TAIL_MISSES 1
/* method = ranks: the least share of the reference's bytes a rank hands MPI (its data may
 * not be made on every rank instead, which leaves only the gather's half) */
#define WORK_MIN_BYTES 0.6
/* method = gpu: the most steps the busiest GPU thread may run per step of the median one */
#define WORK_GPU_SPREAD 64

/* "2 threads, 67/33 % of 0.41 s CPU": the threads that did a visible part of the work (at
 * least 2 % of it) and their shares of it (a new string). */
char *work_summary(const run_work *w);

/* The method check for `asked` threads (method = threads) or worker processes (processes):
 * NULL when it holds, else what fell short, in words a learner can act on (a new string).
 * ref: the reference's run at the same configuration, or NULL. */
char *work_check(const run_work *task, const run_work *ref, int asked, int processes);

/* method = ranks (MPI): the records of the grader's MPI layer (runner.h's rank_work), at a
 * configuration with ranks=T, T >= 2, against the reference's at the same one.  Every rank the
 * reference's run had reaches MPI_Finalize; a rank that calls MPI in the reference's run calls
 * it in the task's; a rank that hands MPI 64 kB or more in the reference's run hands it at
 * least WORK_MIN_BYTES of that, to other ranks (the data travels; it is not made again on
 * every rank, and a collective on MPI_COMM_SELF moves nothing); and
 * the ranks' compute (CPU time outside MPI calls) is spread like the reference's, by the same
 * rule as threads.  Outside MPI: a rank waiting in MPI spins on its core, so CPU time in all
 * would show a rank that does nothing as busy. */
char *work_check_ranks(const run_work *task, const run_work *ref, int asked);
/* tasks.ini's method_calls and method_collectives, at the same run: every rank calls each of
 * `calls` (MPI collectives, space-separated) that the reference's same rank calls, and takes
 * part in at most max_colls times the reference's collectives, plus 2 (0: no limit).  NULL
 * when it holds, else why not. */
char *work_check_calls(const run_work *task, const run_work *ref, const char *calls, double max_colls);
/* "4 ranks, computing 26/25/25/24 % of 0.31 s CPU outside MPI; messages sent 0/1/1/1,
 * collectives 2/2/2/2, 24 B handed to MPI" (a new string), or NULL when not measured. */
char *work_ranks_summary(const run_work *w);
/* Reads the MPI layer's records dir/prefix.R (R = 0 .. WORK_MAX_RANKS-1) into w's ranks. */
void work_read_ranks(const char *dir, const char *prefix, run_work *w);

/* method = gpu (simulated CUDA): the simulator's record (runner.h's gpu_work), against the
 * reference's at the same configuration.  The task launches a kernel; its busiest thread runs
 * at most WORK_GPU_SPREAD times the steps of the median one (or 8 times the reference's
 * ratio), so that idle threads around one that loops over everything do not hide it; and
 * half of its kernels' work (a thread's: 1 plus its steps: loop passes, labels passed, calls) is done by at least an eighth of the
 * threads that do half of the reference's, or 512 threads: a kernel where one thread loops
 * over the whole array, or a handful of threads do it all, falls short; a grid-stride loop
 * over a smaller grid than the reference's does not.  NULL when it holds or cannot be judged. */
char *work_check_gpu(const run_work *task, const run_work *ref);
/* "GPU (simulated): 2 kernel launches, the largest 15625 blocks of 256; half the work done by
 * 2000k of 4000k threads; copied 16.0 MB to the GPU, 8 B back" (new), or NULL: not measured. */
char *work_gpu_summary(const run_work *w);
/* Reads the simulator's records dir/prefix.PID (one per process) into w->gpu, added up. */
void work_read_gpu(const char *dir, const char *prefix, run_work *w);
/* The profiler's lines (simcc --profile: "profile KERNEL launches=N ld_requests=N ..."), every
 * file in dir whose name starts with prefix, every kernel summed, into w->gpu's memory counts. */
void work_read_profile(const char *dir, const char *prefix, run_work *w);
/* "global loads 4.0 sectors/request (reference 4.0), bytes 1.00x the reference, shared 1.0
 * wavefronts/request (reference 1.0), atomics 782 (reference 782), 0 waiting on another":
 * the task's memory counts beside the reference's, or NULL when either was not profiled. */
char *work_profile_summary(const run_work *task, const run_work *ref);

/* Slow by its memory counts (both profiled, the same configuration)?  limit is the task's
 * perf_limit.  The measures, in this order:
 *   - global memory traffic, the 32-byte sectors loaded and stored: more than limit times
 *     the reference's (uncoalesced access, data read more often than it needs);
 *   - atomics: more than limit times the reference's, plus WORK_ATOMIC_SLACK (atomics on one
 *     address wait for each other, all over the GPU);
 *   - shared-memory wavefronts, every request's together: more than limit times the
 *     reference's (bank conflicts, or warps that issue requests for a few working lanes);
 *     against a reference without shared memory, more than limit wavefronts per request.
 * Returns 1 (SLOW) with the first measure over its limit, else 0 with the global traffic;
 * *measure names it ("global memory traffic", "atomics", "shared-memory wavefronts",
 * "shared-memory wavefronts per request"), *ratio is the task's over the reference's (over
 * 1 for the last). */
#define WORK_ATOMIC_SLACK 32
int work_counts_slow(const gpu_work *task, const gpu_work *ref, double limit, const char **measure, double *ratio);

/* The method check's last word on a simulated CUDA task, from the memory counts (both
 * profiled): NULL, or (a new string) why its kernels cannot have done the work: their global
 * memory traffic under 1/WORK_TRAFFIC_FLOOR of the reference's (a result computed on the CPU
 * and handed to a kernel that only copies it).  Better reuse than the reference's (larger
 * tiles, registers) stays far above that floor. */
#define WORK_TRAFFIC_FLOOR 16
/* The same floor kernel by kernel (by name), for each kernel of the reference that moved at
 * least this many sectors: a kernel left empty while the CPU does its part FAILs. */
#define WORK_KERNEL_MIN_SECTORS 256
char *work_check_traffic(const gpu_work *task, const gpu_work *ref);
/* Atomics: where the reference's kernels make atomic operations (blocks that add into one
 * result) and the task's make none, NULL is not returned: the simulator runs one block at a
 * time, so a plain += from several blocks loses no update there, while on a GPU it does. */
char *work_check_atomics(const gpu_work *task, const gpu_work *ref);
/* Kernel by kernel: each of the reference's kernels that moved WORK_KERNEL_MIN_SECTORS or more
 * moves at least 1/WORK_TRAFFIC_FLOOR of that in the task's run (a kernel of the same name);
 * NULL when it holds, else why not. */
char *work_check_kernels(const gpu_work *t, const gpu_work *r);

#endif
