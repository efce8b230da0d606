/* runner.h -- runs one program under the grader's limits.
 *
 * Every run gets its own session (so its process group can be signalled as a
 * whole), stdin from /dev/null, a working directory, a wall-clock timeout
 * (SIGTERM to the group, then SIGKILL after a grace period), a cap on captured
 * output (exceeding it kills the run at once, so the grader's memory stays
 * bounded), and afterwards a sweep that kills and reaps every process the run
 * left behind -- also descendants that called setsid() to leave the group: the
 * grader is a child subreaper (prctl), so orphans are re-parented to it.
 *
 * Limits against runaway programs: a process limit (a pids cgroup where the
 * grader may make one, as root; RLIMIT_NPROC otherwise; and a watchdog that
 * counts the run's processes either way) and a memory limit (a watchdog that
 * adds up the resident memory of the run's processes every 50 ms, plus
 * RLIMIT_AS as a backstop for CPU programs).  Exceeding either kills the run.
 *
 * Runs are sequential: while one runs, the grader has no other children. */
#ifndef PR_RUNNER_H
#define PR_RUNNER_H

#include <stddef.h>
#include <sys/types.h>

typedef struct {
    char *const *argv;       /* argv[0] is looked up in PATH */
    char *const *env_extra;  /* "NAME=VALUE" strings added to the environment, or NULL */
    const char *cwd;         /* working directory, or NULL for the grader's */
    double timeout;          /* seconds of wall-clock time */
    double kill_grace;       /* seconds between SIGTERM and SIGKILL */
    size_t output_cap;       /* bytes of stdout + stderr kept; more kills the run */
    int max_procs;           /* processes (and, where a pids cgroup enforces it, threads) at once; 0: no limit */
    size_t max_memory;       /* bytes of resident memory of all the run's processes together; 0: no limit */
    int measure_work;        /* sample every thread's CPU time (run_work) every 4 ms */
    int limit_address_space; /* also cap each process's address space (RLIMIT_AS) at twice max_memory:
                              * not for CUDA, whose runtime reserves huge address ranges */
} run_request;

typedef enum {
    RUN_EXITED,        /* exit_code is valid */
    RUN_SIGNALED,      /* signal is valid */
    RUN_TIMEOUT,       /* killed at the deadline */
    RUN_OUTPUT_LIMIT,  /* killed for printing more than output_cap bytes */
    RUN_MEMORY_LIMIT,  /* killed for using more than max_memory */
    RUN_PROCESS_LIMIT, /* killed for starting more than max_procs processes (a fork bomb) */
    RUN_START_FAILED,  /* could not start: start_error says why */
    RUN_INTERRUPTED    /* the grader was interrupted (Ctrl-C) while it ran */
} run_outcome;

/* How the run's work was spread, measured from outside the program: the kernel's CPU time
 * of every process the grader reaped (exact), and each thread's and process's CPU time as
 * last seen in /proc (sampled while it ran: a thread's last few milliseconds before it ends
 * are not seen).  Threads and processes of the run's session; the sandbox's own two are
 * among them, with next to no CPU time. */
/* One MPI rank's part, from the grader's MPI layer (grading/layer/pr_mpi_work.c): between
 * MPI_Init and MPI_Finalize, the CPU time outside MPI calls (the rank's own work) and inside
 * them (waiting spins), and what it exchanged.  Bytes: what the rank handed to MPI or took out. */
#define WORK_MAX_RANKS 64
typedef struct {
    int seen;              /* the rank reached MPI_Init */
    int ended;             /* it reached MPI_Finalize or exit: the counts are its whole run's */
    double compute;        /* CPU seconds outside MPI calls */
    double mpi;            /* CPU seconds inside them */
    long long sends, bytes_sent, recvs, bytes_recv, colls, bytes_coll;
    char calls[400];       /* the collectives it called, "MPI_Allreduce,MPI_Bcast" ("" or "-": none) */
} rank_work;

/* A simulated CUDA program's kernels, from the simulator's record (grading/sim/cuda_sim.h,
 * PR_SIM_WORK): every process of the run together.  A thread's work is 1 plus its steps: the
 * loop passes, labels passed and function calls simpp counts. */
typedef struct {
    int seen;                      /* records read (0: not measured) */
    long long launches, threads, units, max_units;
    long long median_units;        /* the median thread's work (of the record where the busiest
                                    * thread stands out most from it) */
    long long half_threads;        /* the fewest threads that did half the work */
    unsigned grid[3], block[3];    /* the launch with the most threads */
    long long h2d, d2h, d2d;       /* bytes copied to the GPU, back, and within it */
    /* the profiler's counts (simcc --profile, CUDA_SIM_PROFILE_OUT), every kernel together */
    int mem_seen;                  /* profile lines read (0: not profiled) */
    long long ld_requests, ld_sectors, st_requests, st_sectors, sh_ld_requests, sh_ld_wavefronts;
    long long sh_st_requests, sh_st_wavefronts, atomics, atomic_conflicts, ld_bytes, st_bytes;
    char worst[160];               /* the source line of the worst access ("" when none) */
    int nkernels;                  /* each kernel's own global sectors, by name (the first 16 named) */
    struct {
        char name[96];
        long long sectors;
    } kernel[16];
} gpu_work;

#define WORK_MAX 512  /* threads and processes followed in one run */
#define WORK_KEEP 64  /* of which the busiest are kept in the result */
typedef struct {
    double cpu;            /* seconds of CPU, every process of the run together (exact) */
    int nthreads;          /* threads seen (at most WORK_KEEP), largest CPU time first */
    double thread_cpu[WORK_KEEP];
    int nprocs;            /* processes seen (at most WORK_KEEP), largest CPU time first (each:
                            * its threads, those ended included; not its children) */
    double proc_cpu[WORK_KEEP];
    int samples;           /* how many times /proc was read */
    int nranks;            /* MPI ranks with a record (0: not measured): ranks[r] is rank r's */
    rank_work ranks[WORK_MAX_RANKS];
    gpu_work gpu;          /* simulated CUDA: the simulator's record */
} run_work;

typedef struct {
    run_outcome outcome;
    int exit_code;
    int signal;
    double seconds;
    char *out;            /* captured stdout, NUL-terminated (never NULL after run_process) */
    size_t out_len;
    char *err;            /* captured stderr */
    size_t err_len;
    int leftovers;        /* processes still alive after the program ended (all killed) */
    size_t peak_memory;   /* largest resident memory seen, all processes together (sampled) */
    int peak_procs;       /* most processes seen at once (sampled) */
    size_t max_memory;    /* the limits it ran under, for the messages */
    int max_procs;
    char start_error[256];
    run_work *work;       /* how the work was spread (measure_work), or NULL; run_result_free frees it */
} run_result;

/* Makes the grader a child subreaper and installs SIGINT/SIGTERM/SIGHUP handlers
 * that stop the current run.  Call once before the first run; returns 0 or -1. */
int runner_init(void);
/* True once the grader has been asked to stop (Ctrl-C). */
int runner_interrupted(void);

/* Forks a helper of the grader's own (fork's return value): no run counts it among its
 * leftovers or sweeps it away.  In the helper, it is a child subreaper with no helpers.
 * The grader waits for it with runner_helper_done. */
pid_t runner_fork_helper(void);
void runner_helper_done(pid_t pid);

void run_process(const run_request *req, run_result *res);
void run_result_free(run_result *res);

/* "SIGSEGV" for 11, or "signal 42". */
const char *signal_name(int sig);
/* One line describing how the run ended, e.g. "killed by SIGSEGV (Segmentation fault)". */
char *run_describe(const run_result *res, double timeout);

/* Kills and reaps every remaining child of the grader (the leftover sweep);
 * returns how many processes it found. */
int runner_sweep(void);

#endif
