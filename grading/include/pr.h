/*
 * pr.h -- the one small header every Parallel Rooms task includes.
 *
 * No need to change anything here: it is scaffolding shared by all tasks.
 *
 * What it gives a task:
 *   - arguments of the form name=value, range-checked:
 *         long n = pr_arg_long(argc, argv, "n", 1000000, 1, 100000000);
 *         pr_args_done(argc, argv);    // rejects unknown arguments
 *     A bad value prints one line naming the argument and its allowed range on
 *     stderr and exits with status 2.  "help" lists the arguments.
 *   - the output protocol the grader reads (everything else on stdout is for people):
 *         result <name> = <integer>
 *         result <name> = <string>
 *         result <name> = <float> tol <relative tolerance>
 *     printed with pr_result_int / pr_result_str / pr_result_double.
 *   - self-checks that print the expected value beside the computed one and
 *     remember a wrong result for the exit status: pr_check_int / pr_check_double,
 *     then  return pr_finish();
 *   - wall-clock timers: pr_now(), pr_best_of() (one warm-up, then the best of
 *     several runs) and pr_print_time() (the time and the speedup beside it: the line
 *     "  time <name> <seconds> s ..." that the grader's perf verdict reads, never
 *     compared for correctness);
 *   - deterministic data from a seed: pr_rng_seed(), pr_rng_next(), pr_rng_range(),
 *     pr_rng_double().
 *
 * MPI programs: write  #define PR_MPI  before  #include "pr.h"  (which then
 * includes <mpi.h>), and call MPI_Init before anything from pr.h.  Then only
 * rank 0 prints result lines, times, checks and argument errors (another
 * rank prints only a WRONG check, tagged with its rank); a bad argument ends
 * every rank with MPI_Finalize and exit status 2; and pr_finish() is collective:
 * it adds up every rank's wrong results, so all ranks return the same verdict.
 * Call it on every rank, then MPI_Finalize().  quiet_barrier() is a barrier whose
 * waiting ranks sleep instead of spinning (MPICH's blocking calls busy-poll).
 * pr_mpi_cuda_aware() says whether MPI takes GPU (device) pointers (room 05), and
 * pr_mpi_gpu_path() how: a CUDA-aware MPI, the staging layer of pr_mpi_gpu.h (included
 * here in CUDA programs), or the simulator.  In CUDA code CHECK(call) stops the program (every
 * rank, under MPI) when a CUDA call fails.
 *
 * Everything is static so the header needs no separate library.
 */
#ifndef PARALLEL_ROOMS_PR_H
#define PARALLEL_ROOMS_PR_H

/* clock_gettime and friends under -std=c11; include pr.h before other headers. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef PR_MPI
/* C only: no MPI C++ bindings, also when nvcc compiles a .cu file as C++. */
#define MPICH_SKIP_MPICXX 1
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* Open MPI's MPIX_Query_cuda_support */
#endif
#endif
#endif

/* CUDA (rooms 04, 05, 06): CHECK(call) stops the program with the file, the line and the
 * call when a CUDA call does not return cudaSuccess (room 04's README, "Checking errors",
 * shows it).  With MPI it ends every rank (MPI_Abort): one rank exiting alone would leave
 * the others waiting in their next collective. */
#if defined(__CUDACC__) || defined(CUDA_SIM)
#include <cuda_runtime.h>
#ifdef PR_MPI
#define PR_CUDA_STOP() MPI_Abort(MPI_COMM_WORLD, 1)
#else
#define PR_CUDA_STOP() exit(1)
#endif
#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorString(e_));                                         \
            PR_CUDA_STOP();                                                          \
        }                                                                            \
    } while (0)
#ifdef PR_MPI
/* NCCL_CHECK(call): the same for an NCCL call, in a program that includes <nccl.h>
 * (rooms 05 and 06). */
#define NCCL_CHECK(call)                                                             \
    do {                                                                             \
        ncclResult_t r_ = (call);                                                    \
        if (r_ != ncclSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
                    ncclGetErrorString(r_));                                         \
            MPI_Abort(MPI_COMM_WORLD, 1);                                            \
        }                                                                            \
    } while (0)
#endif
#endif

#if defined(__GNUC__)
#define PR_UNUSED __attribute__((unused))
#else
#define PR_UNUSED
#endif

/* ------------------------------------------------------------------------- */
/* Ranks (MPI) -- without PR_MPI there is one "rank", 0                       */
/* ------------------------------------------------------------------------- */

/* 1 while MPI is initialised and not yet finalised. */
static PR_UNUSED int pr_mpi_active(void)
{
#ifdef PR_MPI
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
#else
    return 0;
#endif
}

#ifdef PR_MPI
/* The grader loads an MPI layer into every rank it starts (grading/layer/pr_mpi_work.c): it
 * counts the messages and collectives of each rank, and its CPU time outside MPI.  What pr.h
 * and the rooms' headers do with MPI for their own ends (timing barriers, the verdict) is
 * not the task's: PR_SCAFFOLD(code) marks it, and the layer counts its calls and its time as
 * neither the task's messages nor its work.  Without the layer (a program run by hand) it
 * only runs the code. */
#ifdef __cplusplus
extern "C" void pr_mpi_work_scaffold(int begin) __attribute__((weak));
#else
extern void pr_mpi_work_scaffold(int begin) __attribute__((weak));
#endif
#define PR_SCAFFOLD(...)                                                                               \
    do {                                                                                               \
        if (pr_mpi_work_scaffold)                                                                      \
            pr_mpi_work_scaffold(1);                                                                   \
        __VA_ARGS__;                                                                                   \
        if (pr_mpi_work_scaffold)                                                                      \
            pr_mpi_work_scaffold(0);                                                                   \
    } while (0)

/* A barrier that waits without spinning: MPI_Ibarrier, then test and sleep.  MPICH
 * busy-polls inside blocking calls; a rank that waits here sleeps instead, so the ranks
 * still at work (rank 0 timing the serial version, the two ranks of a ping-pong) have the
 * cores to themselves even with more ranks than cores. */
static PR_UNUSED void pr_quiet_barrier_wait(void)
{
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        struct timespec ts = { 0, 200000 }; /* 0.2 ms */
        nanosleep(&ts, NULL);
    }
}

static PR_UNUSED void quiet_barrier(void)
{
    PR_SCAFFOLD(pr_quiet_barrier_wait());
}
#endif

#ifdef PR_MPI
/* At exit: a rank that returns from main without MPI_Finalize is an error the
 * MPI library may not report (MPICH does not), while its output may be lost.
 * Say so, and fail. */
static void pr_check_finalized(void)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
        fprintf(stderr, "pr.h: this rank ended without calling MPI_Finalize (every rank must, "
                        "after its last MPI call)\n");
        fflush(NULL);
        _Exit(1);
    }
}
#endif

/* This process's rank in MPI_COMM_WORLD (0 without MPI). */
static PR_UNUSED int pr_rank(void)
{
#ifdef PR_MPI
    static int exit_check_registered = 0;
    if (pr_mpi_active() && !exit_check_registered) {
        exit_check_registered = 1;
        atexit(pr_check_finalized);
    }
    if (pr_mpi_active()) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        return rank;
    }
#endif
    return 0;
}

/* exit(), after MPI_Finalize when MPI is active (every rank reaches it together). */
static PR_UNUSED void pr_exit(int status)
{
#ifdef PR_MPI
    if (pr_mpi_active())
        MPI_Finalize();
#endif
    exit(status);
}

#ifdef PR_MPI
/* The MPI library's own answer, without the layer: 1 when it is CUDA-aware.  MPICH 4
 * answers MPIX_GPU_query_support, Open MPI MPIX_Query_cuda_support. */
static PR_UNUSED int pr_mpi_library_cuda_aware(const char **why)
{
#if defined(CUDA_SIM)
    /* The simulator's device memory is not readable outside kernels and copies, as on a
     * GPU: no MPI library can read it. */
    *why = "the CUDA CPU simulator's device memory is not host-accessible, whatever MPI says";
    return 0;
#elif defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000 && defined(MPIX_GPU_SUPPORT_CUDA)
    int supported = 0;
    MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported);
    *why = supported ? "MPIX_GPU_query_support(CUDA) says yes" : "MPIX_GPU_query_support(CUDA) says no";
    return supported != 0;
#elif defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    int supported = MPIX_Query_cuda_support();
    *why = supported ? "MPIX_Query_cuda_support() says yes" : "MPIX_Query_cuda_support() says no";
    return supported != 0;
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
    /* Open MPI's mpi-ext.h says so at compile time: 0 when built without CUDA. */
    *why = "this Open MPI was built without CUDA support (mpi-ext.h: MPIX_CUDA_AWARE_SUPPORT 0)";
    return 0;
#else
    *why = "this MPI offers no query for CUDA support (set PR_CUDA_AWARE=1 if it is CUDA-aware)";
    return 0;
#endif
}

#if defined(__CUDACC__) || defined(CUDA_SIM)
#include "pr_mpi_gpu.h" /* the staging layer: device buffers handed to an MPI that is not CUDA-aware */
#endif

/* How device (GPU) pointers handed to MPI get where they go (room 05). */
enum {
    PR_MPI_HOST_ONLY = 0,     /* they do not: the MPI library reads only host memory */
    PR_MPI_CUDA_AWARE = 1,    /* the MPI library is CUDA-aware and reads GPU memory itself */
    PR_MPI_STAGING_LAYER = 2, /* pr_mpi_gpu.h copies them through pinned host memory */
    PR_MPI_SIMULATED = 3      /* the CUDA CPU simulator stands in for a CUDA-aware MPI */
};

/* Which of the four this program has, and (*why, when not NULL) how that was decided.  The
 * MPI library is asked at run time, since the same mpi.h can come with a CUDA-aware build or
 * not: MPICH 4 answers MPIX_GPU_query_support, Open MPI MPIX_Query_cuda_support.  In CUDA
 * programs the staging layer comes first (PR_MPI_STAGE, pr_mpi_gpu.h).  PR_CUDA_AWARE=1 or 0
 * in the environment overrides the library's answer (for an MPI whose query says no although
 * it is CUDA-aware, or the reverse); PR_CUDA_AWARE=0 also keeps device pointers away from the
 * staging layer. */
static PR_UNUSED int pr_mpi_gpu_path(const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    const char *force = getenv("PR_CUDA_AWARE");
    if (force && strcmp(force, "0") == 0) {
        *why = "PR_CUDA_AWARE=0 says so (not asked of MPI)";
        return PR_MPI_HOST_ONLY;
    }
#if defined(__CUDACC__) || defined(CUDA_SIM)
    if (pr_stage_on()) {
#ifdef CUDA_SIM
        *why = "the CUDA CPU simulator stands in for a CUDA-aware MPI with pr_mpi_gpu.h (PR_MPI_STAGE=0: off)";
        return PR_MPI_SIMULATED;
#else
        *why = "PR_MPI_STAGE=1 and the MPI library is not CUDA-aware: pr_mpi_gpu.h copies device buffers "
               "through pinned host memory around each MPI call";
        return PR_MPI_STAGING_LAYER;
#endif
    }
#endif
    if (force && strcmp(force, "1") == 0) {
        *why = "PR_CUDA_AWARE=1 says so (not asked of MPI)";
        return PR_MPI_CUDA_AWARE;
    }
    return pr_mpi_library_cuda_aware(why) ? PR_MPI_CUDA_AWARE : PR_MPI_HOST_ONLY;
}

/* 1 when device pointers may be handed to MPI (any path but PR_MPI_HOST_ONLY). */
static PR_UNUSED int pr_mpi_cuda_aware(const char **why)
{
    return pr_mpi_gpu_path(why) != PR_MPI_HOST_ONLY;
}

/* A path's name, for what a program prints beside a time: the staging layer's times are
 * not a CUDA-aware MPI's. */
static PR_UNUSED const char *pr_mpi_gpu_path_name(int path)
{
    switch (path) {
    case PR_MPI_CUDA_AWARE: return "CUDA-aware MPI";
    case PR_MPI_STAGING_LAYER: return "staging layer";
    case PR_MPI_SIMULATED: return "simulated CUDA-aware MPI";
    default: return "host memory only";
    }
}
#endif

/* ------------------------------------------------------------------------- */
/* Arguments: name=value                                                      */
/* ------------------------------------------------------------------------- */

#define PR_MAX_ARGS 64

/* What the program declared so far, for "help" and for unknown-argument errors. */
static struct {
    const char *name[PR_MAX_ARGS];
    long long lo[PR_MAX_ARGS], hi[PR_MAX_ARGS], dflt[PR_MAX_ARGS];
    int count;
    unsigned char used[PR_MAX_ARGS]; /* argv[i] consumed (index i, 1..) */
} pr_args PR_UNUSED;

static const char *pr_program_name(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    return slash ? slash + 1 : argv0;
}

/* Returns the value of argument `name` (given as name=value), or `dflt` when it is
 * absent.  A value that is not an integer in [lo, hi] ends the program with status 2. */
static PR_UNUSED long long pr_arg_long(int argc, char **argv, const char *name,
                                       long long dflt, long long lo, long long hi)
{
    size_t len = strlen(name);
    long long value = dflt;
    if (pr_args.count < PR_MAX_ARGS) {
        int k = pr_args.count++;
        pr_args.name[k] = name;
        pr_args.lo[k] = lo;
        pr_args.hi[k] = hi;
        pr_args.dflt[k] = dflt;
    }
    for (int i = 1; i < argc && i < PR_MAX_ARGS; i++) {
        if (strncmp(argv[i], name, len) != 0 || argv[i][len] != '=')
            continue;
        const char *text = argv[i] + len + 1;
        char *end = NULL;
        errno = 0;
        long long parsed = strtoll(text, &end, 10);
        if (errno != 0 || end == text || *end != '\0' || parsed < lo || parsed > hi) {
            if (pr_rank() == 0)
                fprintf(stderr, "%s: bad argument %s=%s: %s must be an integer from %lld to %lld\n",
                        pr_program_name(argv[0]), name, text, name, lo, hi);
            pr_exit(2);
        }
        value = parsed;
        pr_args.used[i] = 1;
    }
    return value;
}

/* Call after the last pr_arg_long: rejects anything not declared (exit 2) and
 * answers "help" / "--help" with the list of arguments (exit 0). */
static PR_UNUSED void pr_args_done(int argc, char **argv)
{
    const char *prog = pr_program_name(argv[0]);
    for (int i = 1; i < argc; i++) {
        if (i < PR_MAX_ARGS && pr_args.used[i])
            continue;
        int help = strcmp(argv[i], "help") == 0 || strcmp(argv[i], "--help") == 0 ||
                   strcmp(argv[i], "-h") == 0;
        FILE *out = help ? stdout : stderr;
        if (pr_rank() != 0)
            pr_exit(help ? 0 : 2); /* rank 0 says it, once */
        if (!help)
            fprintf(out, "%s: unknown argument '%s' (allowed:", prog, argv[i]);
        else
            fprintf(out, "usage: %s [name=value ...]\narguments:", prog);
        for (int k = 0; k < pr_args.count; k++) {
            if (help)
                fprintf(out, "\n  %s=<%lld..%lld>  (default %lld)", pr_args.name[k],
                        pr_args.lo[k], pr_args.hi[k], pr_args.dflt[k]);
            else
                fprintf(out, " %s=<%lld..%lld>", pr_args.name[k], pr_args.lo[k], pr_args.hi[k]);
        }
        fprintf(out, help ? "\n" : ")\n");
        fflush(out);
        pr_exit(help ? 0 : 2);
    }
}

/* ------------------------------------------------------------------------- */
/* Output protocol: the lines the grader reads                               */
/* ------------------------------------------------------------------------- */

static PR_UNUSED void pr_result_int(const char *name, long long value)
{
    if (pr_rank() == 0)
        printf("result %s = %lld\n", name, value);
}

static PR_UNUSED void pr_result_str(const char *name, const char *value)
{
    if (pr_rank() == 0)
        printf("result %s = %s\n", name, value);
}

/* rel_tol: the grader accepts |got - expected| <= rel_tol * max(1, |expected|). */
static PR_UNUSED void pr_result_double(const char *name, double value, double rel_tol)
{
    if (pr_rank() == 0)
        printf("result %s = %.17g tol %g\n", name, value, rel_tol);
}

/* ------------------------------------------------------------------------- */
/* Self-checks: the expected value beside the computed one                    */
/* ------------------------------------------------------------------------- */

static int pr_wrong_results PR_UNUSED = 0;

static PR_UNUSED int pr_check_int(const char *what, long long got, long long expected)
{
    int ok = got == expected;
    int rank = pr_rank();
    if (rank == 0)
        printf("  %-28s got %-20lld expected %-20lld %s\n", what, got, expected, ok ? "ok" : "WRONG");
    else if (!ok)
        printf("  [rank %d] %-19s got %-20lld expected %-20lld WRONG\n", rank, what, got, expected);
    if (!ok)
        pr_wrong_results++;
    return ok;
}

static PR_UNUSED int pr_close_enough(double got, double expected, double rel_tol)
{
    double scale = fabs(expected) > 1.0 ? fabs(expected) : 1.0;
    return fabs(got - expected) <= rel_tol * scale; /* false for NaN, as it should be */
}

static PR_UNUSED int pr_check_double(const char *what, double got, double expected, double rel_tol)
{
    int ok = pr_close_enough(got, expected, rel_tol);
    int rank = pr_rank();
    if (rank == 0)
        printf("  %-28s got %-20.10g expected %-20.10g %s\n", what, got, expected, ok ? "ok" : "WRONG");
    else if (!ok)
        printf("  [rank %d] %-19s got %-20.10g expected %-20.10g WRONG\n", rank, what, got, expected);
    if (!ok)
        pr_wrong_results++;
    return ok;
}

/* The exit status: 0 when every check passed, 1 otherwise.  With MPI it is
 * collective: every rank returns the same verdict, and rank 0 prints how many
 * ranks there were ("ranks: 4"): the grader checks that against the ranks it
 * asked the launcher for, so that a launcher that starts fewer, or starts them
 * as separate one-rank jobs, cannot pass. */
static PR_UNUSED int pr_finish(void)
{
    int size = 0;
#ifdef PR_MPI
    if (pr_mpi_active()) {
        int mine = pr_wrong_results, all = 0;
        PR_SCAFFOLD(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        pr_wrong_results = all;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
#endif
    if (pr_rank() != 0)
        return pr_wrong_results > 0 ? 1 : 0;
    if (size > 0)
        printf("ranks: %d\n", size);
    if (pr_wrong_results > 0)
        printf("verdict: %d wrong result%s\n", pr_wrong_results, pr_wrong_results == 1 ? "" : "s");
    else
        printf("verdict: all results correct\n");
    fflush(stdout);
    return pr_wrong_results > 0 ? 1 : 0;
}

/* ------------------------------------------------------------------------- */
/* Timers                                                                     */
/* ------------------------------------------------------------------------- */

/* Wall-clock seconds from an arbitrary fixed point (a monotonic clock: never jumps). */
static PR_UNUSED double pr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs fn(ctx) once to warm up (page faults, caches, thread start-up), then
 * `reps` more times, and returns the best (smallest) time in seconds. */
static PR_UNUSED double pr_best_of(int reps, void (*fn)(void *), void *ctx)
{
    double best = INFINITY;
    fn(ctx);
    for (int r = 0; r < reps; r++) {
        double start = pr_now();
        fn(ctx);
        double elapsed = pr_now() - start;
        if (elapsed < best)
            best = elapsed;
    }
    return best;
}

/* Prints a time and, when a baseline is given (> 0), the speedup beside it. */
static PR_UNUSED void pr_print_time(const char *what, double seconds, double baseline_seconds,
                                    const char *baseline_name)
{
    if (pr_rank() != 0)
        return;
    printf("  time %-23s %10.6f s", what, seconds);
    if (baseline_seconds > 0 && seconds > 0)
        printf("   (%.2fx speedup vs %s)", baseline_seconds / seconds, baseline_name);
    printf("\n");
}

/* ------------------------------------------------------------------------- */
/* Deterministic data from a seed (splitmix64: small, fast, good enough)      */
/* ------------------------------------------------------------------------- */

typedef struct {
    uint64_t state;
} pr_rng;

/* `stream` lets different arrays (or threads, or ranks) draw independent sequences. */
static PR_UNUSED pr_rng pr_rng_seed(uint64_t seed, uint64_t stream)
{
    pr_rng rng = { seed * 0x9E3779B97F4A7C15ULL + stream * 0xD1B54A32D192ED03ULL + 1 };
    return rng;
}

static PR_UNUSED uint64_t pr_rng_next(pr_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A whole number in [lo, hi]. */
static PR_UNUSED long long pr_rng_range(pr_rng *rng, long long lo, long long hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (long long)(span ? pr_rng_next(rng) % span : pr_rng_next(rng));
}

/* A double in [lo, hi). */
static PR_UNUSED double pr_rng_double(pr_rng *rng, double lo, double hi)
{
    double unit = (double)(pr_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
    return lo + (hi - lo) * unit;
}

#endif /* PARALLEL_ROOMS_PR_H */
