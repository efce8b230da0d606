/*
 * cuda_sim.h -- a CPU simulator for the subset of CUDA C that Parallel Rooms teaches.
 *
 * Included first (g++ -include) by grading/sim/simcc, which also rewrites kernel launches
 * (see simpp.c).  Header-only, C++17, x86-64 (a ucontext fallback elsewhere).
 *
 * Model: a launch runs its blocks one after another (in a shuffled order) on the
 * calling thread; the threads of a block are fibers on small stacks that run in a
 * shuffled order (seeded: CUDA_SIM_SEED) between barriers.  __shared__ variables are
 * static storage (one block at a time), poisoned (0xff bytes) at the start of every
 * block.  Device memory is mmap'ed, PROT_NONE outside kernels and copies, each
 * allocation ending exactly at a PROT_NONE guard page.  Host threads (OpenMP's, for one)
 * may call the runtime at the same time: the calls take one lock (api_mutex) and run one
 * after another, a kernel that runs inside one included.
 *
 * Asynchrony: kernel launches, cudaMemcpyAsync, cudaMemset(Async), event records and host
 * functions are queued on their stream and run when something waits for them: a
 * synchronize call, a blocking cudaMemcpy (after the legacy default stream and the blocking
 * streams, as on a GPU), a stream or event query, cudaFree.  Queued work runs after the
 * work it depends on (its stream's earlier work, an event waited for with
 * cudaStreamWaitEvent, the legacy default stream's implicit synchronization), and no
 * sooner: a host that reads an asynchronous copy's target, or a second stream's result
 * without an event, before synchronizing gets the old data, as a GPU may give it.  Managed
 * memory is PROT_NONE while a kernel (or a copy of it) is queued, so touching it from
 * the host without synchronizing stops with a message naming the missing
 * synchronization.  Work never synchronized is reported at exit.
 *
 * The work record: with PR_SIM_WORK=PREFIX in the environment, the program writes at exit
 * (PREFIX.PID) how its kernels spread their work: launches, threads, the fewest threads that
 * did half of it (a thread's work: 1 plus its ticks, which simpp puts in every loop, label
 * and function body of the .cu file), the largest launch, and the bytes copied to the GPU, back and within it.
 * The grader reads it (grading/src/work.h, method = gpu).
 *
 * Races: simcc --racecheck builds the race checker in, on the profiler's accesses
 * (cuda_sim_profile.h, CUDA_SIM_RACECHECK): races between a block's threads within a
 * barrier interval, on shared or global memory, and between blocks on global memory, are
 * reported with both lines and both threads' indices, whatever order the threads ran in.
 *
 * The profiler: simcc --profile builds the program with ThreadSanitizer's instrumentation
 * and cuda_sim_profile.h answering its calls (CUDA_SIM_PROFILE): each kernel's global and
 * shared memory requests per warp, the 32-byte sectors and the bank wavefronts they need,
 * and its atomics, printed at exit, one line a kernel.  The rules are in that file.
 *
 * A launch calls its kernel as a function call would (simpp puts it in a lambda), so
 * kernel templates (deduced or explicit arguments, non-type parameters), overloaded
 * kernels and default arguments work.  Offered besides the runtime API: atomics, warp
 * shuffles and votes, the bit-casts (__float_as_int, __double_as_longlong ...), the
 * fast-math intrinsics (__expf, __sincosf ... computed precisely), the integer ones
 * (__umul24, __umulhi, umin, __brev, __byte_perm, the funnel shifts ...) and the
 * rounding-mode ones (__fadd_rd, __fsqrt_ru, __frcp_rz, __fmaf_rn ...); NCCL, on MPI, in
 * nccl.h, cuBLAS's v2 API in part, in cublas_v2.h, cooperative groups for the block and
 * its tiles, in cooperative_groups.h, cuRAND's device API (another generator), in
 * curand_kernel.h, and __half / __nv_bfloat16 in cuda_fp16.h and cuda_bf16.h, beside this
 * file; a cooperative launch's grid-wide sync (run_cooperative: up to 1024 threads in
 * all, the simulated GPU's one multiprocessor).  Not simulated: the other CUDA libraries,
 * the rest of cooperative groups and FP8, for which simcc stops with status 77; a grid-wide
 * sync under --profile or --racecheck (status 77 when the kernel reaches it); dynamic
 * parallelism (a fatal error at run time).
 */
#ifndef CUDA_SIM_H
#define CUDA_SIM_H

#ifndef __cplusplus
#error "cuda_sim.h is C++: build CUDA sources with grading/sim/simcc"
#endif

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <csignal>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cerrno> /* program_invocation_short_name */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#define CUDA_SIM 1
#ifndef CUDART_VERSION
#define CUDART_VERSION 13000
#endif

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))
#define CUDART_CB /* the calling convention of callbacks: nothing to say on Linux */
#define __launch_bounds__(...)
#define __grid_constant__ /* a kernel parameter read in place: a plain const parameter here */
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ __attribute__((section("cuda_sim_shared"), aligned(16))) static
#define __sim_extern_shared__ __attribute__((aligned(16)))

/* simcc --profile and --racecheck: the .cu files get ThreadSanitizer's instrumentation,
 * answered by cuda_sim_profile.h; the simulator's own machinery is not instrumented. */
/* The runtime's larger functions (the scheduler, the queues, the API calls) are marked
 * CUDA_SIM_RT (in namespace cuda_sim) or CUDA_SIM_API_FN (the API's).  Each is an inline
 * function of the program's own, unless simcc keeps a compiled copy of them (grading/bin/simrt/,
 * one per build flavour): it then compiles this header alone, with CUDA_SIM_RUNTIME_OBJECT,
 * into an object of ordinary definitions, and builds programs against a copy of this header
 * whose marked functions are declarations only (CUDA_SIM_RUNTIME_LINKED).  That saves
 * compiling the runtime again for every program.  The device functions a kernel calls are
 * not marked: they stay inline either way. */
#if defined(CUDA_SIM_RUNTIME_OBJECT) || defined(CUDA_SIM_RUNTIME_LINKED)
#define CUDA_SIM_RT
#define CUDA_SIM_API_FN
#else
#define CUDA_SIM_RT inline
#define CUDA_SIM_API_FN static inline
#endif
#if defined(__SANITIZE_THREAD__) || defined(CUDA_SIM_PROFILE)
#define CUDA_SIM_NOTSAN __attribute__((no_sanitize_thread))
#else
#define CUDA_SIM_NOTSAN
#endif

/* ------------------------------------------------------------------------- */
/* Vector types                                                              */
/* ------------------------------------------------------------------------- */
/* Every vector type of vector_types.h (1 to 4 components of char ... double), with CUDA's
 * alignments (the 2- and 4-component types are aligned to their size, up to 16 bytes), and
 * their make_ functions. */
#define CUDA_SIM_VECTOR_TYPES(T, N, A1, A2, A4)                                                    \
    struct __attribute__((aligned(A1))) N##1 { T x; };                                             \
    struct __attribute__((aligned(A2))) N##2 { T x, y; };                                          \
    struct N##3 { T x, y, z; };                                                                    \
    struct __attribute__((aligned(A4))) N##4 { T x, y, z, w; };                                    \
    static inline constexpr N##1 make_##N##1(T x) { return {x}; }                                  \
    static inline constexpr N##2 make_##N##2(T x, T y) { return {x, y}; }                          \
    static inline constexpr N##3 make_##N##3(T x, T y, T z) { return {x, y, z}; }                 \
    static inline constexpr N##4 make_##N##4(T x, T y, T z, T w) { return {x, y, z, w}; }
CUDA_SIM_VECTOR_TYPES(signed char, char, 1, 2, 4)
CUDA_SIM_VECTOR_TYPES(unsigned char, uchar, 1, 2, 4)
CUDA_SIM_VECTOR_TYPES(short, short, 2, 4, 8)
CUDA_SIM_VECTOR_TYPES(unsigned short, ushort, 2, 4, 8)
CUDA_SIM_VECTOR_TYPES(int, int, 4, 8, 16)
CUDA_SIM_VECTOR_TYPES(unsigned int, uint, 4, 8, 16)
CUDA_SIM_VECTOR_TYPES(long, long, 8, 16, 16)
CUDA_SIM_VECTOR_TYPES(unsigned long, ulong, 8, 16, 16)
CUDA_SIM_VECTOR_TYPES(long long, longlong, 8, 16, 16)
CUDA_SIM_VECTOR_TYPES(unsigned long long, ulonglong, 8, 16, 16)
CUDA_SIM_VECTOR_TYPES(float, float, 4, 8, 16)
CUDA_SIM_VECTOR_TYPES(double, double, 8, 16, 16)
/* CUDA 13's 4-component types of 8-byte elements with an explicit alignment */
#define CUDA_SIM_VECTOR4_ALIGNED(T, N)                                                             \
    struct __attribute__((aligned(16))) N##4_16a { T x, y, z, w; };                                \
    struct __attribute__((aligned(32))) N##4_32a { T x, y, z, w; };                                \
    static inline constexpr N##4_16a make_##N##4_16a(T x, T y, T z, T w) { return {x, y, z, w}; }  \
    static inline constexpr N##4_32a make_##N##4_32a(T x, T y, T z, T w) { return {x, y, z, w}; }
CUDA_SIM_VECTOR4_ALIGNED(long, long)
CUDA_SIM_VECTOR4_ALIGNED(unsigned long, ulong)
CUDA_SIM_VECTOR4_ALIGNED(long long, longlong)
CUDA_SIM_VECTOR4_ALIGNED(unsigned long long, ulonglong)
CUDA_SIM_VECTOR4_ALIGNED(double, double)
#undef CUDA_SIM_VECTOR_TYPES
#undef CUDA_SIM_VECTOR4_ALIGNED

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

/* The built-in variables: set by the scheduler each time a fiber runs. */
inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
constexpr int warpSize = 32;

/* ------------------------------------------------------------------------- */
/* Runtime API types                                                         */
/* ------------------------------------------------------------------------- */
enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorAssert = 710,
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
    cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

namespace cuda_sim {
struct Op;
}
/* A stream: the last operation issued on it (later ones wait for it), its flags. */
struct CUstream_st {
    int id;
    unsigned flags;
    std::shared_ptr<cuda_sim::Op> last;
};
/* An event: the marker operation its last cudaEventRecord queued, and when that ran. */
struct CUevent_st {
    double t;
    int recorded;
    std::shared_ptr<cuda_sim::Op> op;
};
typedef CUstream_st *cudaStream_t;
typedef CUevent_st *cudaEvent_t;
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaMemAttachGlobal 0x01
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamLegacy ((cudaStream_t)0x1)

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem, sharedMemPerBlock;
    int regsPerBlock, warpSize;
    size_t memPitch;
    int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
    int clockRate;
    size_t totalConstMem;
    int major, minor;
    size_t textureAlignment;
    int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory,
        computeMode, concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, asyncEngineCount,
        unifiedAddressing, memoryClockRate, memoryBusWidth, l2CacheSize, maxThreadsPerMultiProcessor,
        managedMemory, isMultiGpuBoard, concurrentManagedAccess, regsPerMultiprocessor;
    size_t sharedMemPerMultiprocessor, sharedMemPerBlockOptin;
    int maxBlocksPerMultiProcessor;
    /* what the simulated device does not do (0): the host's pageable memory and native
     * host atomics; cooperative launches it does (1) */
    int pageableMemoryAccess, pageableMemoryAccessUsesHostPageTables, hostNativeAtomicSupported,
        directManagedMemAccessFromHost, cooperativeLaunch, computePreemptionSupported, streamPrioritiesSupported,
        globalL1CacheSupported, localL1CacheSupported;
    int persistingL2CacheMaxSize, accessPolicyMaxWindowSize;
};

enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrClockRate = 13,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeMode = 20,
    cudaDevAttrGpuOverlap = 15,
    cudaDevAttrMemoryPoolsSupported = 115,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrConcurrentManagedAccess = 89,
    cudaDevAttrCooperativeLaunch = 95
};
enum cudaComputeMode {
    cudaComputeModeDefault = 0,
    cudaComputeModeExclusive = 1,
    cudaComputeModeProhibited = 2,
    cudaComputeModeExclusiveProcess = 3
};
/* The runtime's own header guards: code written for nvcc (cuda-samples' helper_cuda.h)
 * tests them before using the runtime's types. */
#define __DRIVER_TYPES_H__
#define __CUDA_RUNTIME_H__
#define __VECTOR_TYPES_H__
/* device flags, managed-memory attachment, host allocation flags */
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04

/* ------------------------------------------------------------------------- */
/* The simulator                                                             */
/* ------------------------------------------------------------------------- */
extern "C" char __start_cuda_sim_shared[] __attribute__((weak));
extern "C" char __stop_cuda_sim_shared[] __attribute__((weak));

namespace cuda_sim {

constexpr size_t kMaxDynamicShared = 228 * 1024; /* the buffer; launches may use 48 KiB */
constexpr size_t kSharedPerBlock = 48 * 1024;
constexpr int kExitError = 70; /* exit status of an error the simulator reports */
}

/* extern __shared__ arrays all name this buffer (simpp gives them this asm label). */
alignas(256) inline unsigned char cuda_sim_dynamic_shared_storage[cuda_sim::kMaxDynamicShared] __asm__(
    "cuda_sim_dynamic_shared");

namespace cuda_sim {

struct Alloc {
    char *base;     /* mapping: front guard page, data pages, back guard page */
    size_t map_len;
    char *ptr;      /* what cudaMalloc returned; ptr + size == the back guard page */
    size_t size;
    int host;       /* 1 cudaMallocHost (always accessible), 2 cudaMallocManaged (not while
                     * work that may use it is queued), 0 device */
};

/* Work queued on a stream and not yet run: kernels, asynchronous copies and memsets, event
 * markers, host functions.  It runs when something synchronizes (a sync call, a blocking
 * copy, an event or stream query or wait), after the operations it depends on: the one
 * before it on its stream, an event it waits for, and the legacy default stream's
 * implicit synchronization with the blocking streams. */
struct Op {
    std::function<void()> run;
    std::vector<std::shared_ptr<Op>> deps;
    const char *what; /* "the kernel launched", "cudaMemcpyAsync" ... */
    const char *file;
    int line;
    bool uses_managed; /* a kernel, or a copy or memset of managed memory */
    bool done;
    double host_fn_at; /* a host function (cudaLaunchHostFunc, a stream callback): when it was queued */
};
using OpRef = std::shared_ptr<Op>;

enum { RUNNABLE, WAIT_BLOCK, WAIT_WARP, WAIT_GRID, WAIT_TILE, DONE };

struct Fiber {
    void *sp;
    int state;
    unsigned warp_mask;
    const char *file;
    int line;
    int pred;
    uint3 tid;
    bool started;
};

struct State {
    bool inited = false;
    size_t page = 4096;
    std::vector<Alloc> allocs;
    cudaError_t last_error = cudaSuccess;
    int device_accessible = 0; /* while > 0, device memory is readable and writable */
    int draining = 0;          /* while > 0, queued work is running (managed memory open) */
    bool dev_open = false, managed_open = true; /* the protection the allocations have now */
    /* queued work, in issue order; the legacy default stream (0), the per-thread one;
     * the streams created and not destroyed; the last work of destroyed streams */
    std::deque<OpRef> queued;
    int queued_managed = 0; /* queued operations that may use managed memory */
    CUstream_st legacy{0, 0, {}}, per_thread{1, 0, {}};
    std::vector<CUstream_st *> streams;
    std::vector<OpRef> orphans;
    bool exit_check = false;
    bool eager = false; /* work runs as it is issued (a program that uses Thrust) */
    cudaError_t sticky = cudaSuccess; /* a device-side assert failed: the context is unusable */
    bool kernel_aborted = false;      /* ... in the kernel now running: stop it */
    size_t shared_optin = 0; /* cudaFuncSetAttribute(..., MaxDynamicSharedMemorySize, n): launches may use n */
    size_t limits[8] = {};   /* cudaDeviceSetLimit */
    /* __shared__ variables outside the shared section (a template kernel's: GCC puts a
     * template's static locals in .bss), as simpp's shared_seen() calls found them */
    void *shared_extra[256] = {};   /* (plain arrays: the race checker must not see these) */
    size_t shared_extra_len[256] = {};
    int nshared_extra = 0;
    /* the launch in progress */
    bool in_kernel = false;
    const char *launch_file = "?";
    int launch_line = 0;
    uint3 cur_block{0, 0, 0};
    bool cooperative = false; /* a cooperative launch (cudaLaunchCooperativeKernel): its grid may sync */
    /* fibers */
    int slot_base = 0; /* fiber i runs on stack slot slot_base + i (a cooperative launch's blocks: their own) */
    size_t stack_size = 64 * 1024;
    char *stacks = nullptr;
    size_t stacks_len = 0;
    Fiber fibers[1024];
    const int *round_order = nullptr; /* the threads of this round, in their shuffled order */
    int round_len = 0, round_pos = 0;  /* (run_block; fiber_main takes fresh ones from it) */
    int nthreads = 0;
    int cur = -1;
    void *sched_sp = nullptr;
    void (*thunk)(void *) = nullptr;
    void *thunk_arg = nullptr;
    uint64_t rng = 0;
    uint64_t seed = 0;
    uint64_t launches = 0;
    /* warp exchange buffers: [warp][parity][lane] */
    uint64_t xbuf[32][2][32];
    unsigned xparity[1024];
    char altstack[64 * 1024];
#if !defined(__x86_64__)
    ucontext_t sched_uc;
    ucontext_t fiber_uc[1024];
#endif
};
inline State S;

/* Host threads (OpenMP's, std::thread's) may call the runtime at the same time, as they may
 * with CUDA's.  Each call that reads or changes the state above, and each launch, holds this
 * lock, so the calls run one after another; a kernel that runs at a synchronization runs to
 * its end inside the call.  Recursive: a call made inside another (a host function run at a
 * synchronization, cudaMemcpy waiting for queued work) takes it again. */
inline std::recursive_mutex api_mutex;
#define CUDA_SIM_API std::lock_guard<std::recursive_mutex> cuda_sim_api_lock(cuda_sim::api_mutex)

/* ---- the work record: how the program's kernels spread their work (for the grader) ----
 * simpp puts a tick() in every loop of the program's .cu file: a simulated thread's work
 * is 1 plus its ticks: simpp puts one in every loop (each pass), at every label (each pass:
 * a goto loop) and at the start of every function body (each call: recursion), in the .cu
 * file.  Per
 * program: the threads launched, their work, the fewest threads that did half of it (from
 * a histogram of powers of two), the largest launch, and the bytes copied each way.  With
 * PR_SIM_WORK=PREFIX in the environment, written at exit to PREFIX.PID as one line. */
struct WorkRecord {
    uint64_t ticks[1024];   /* the running block's threads' ticks */
    uint64_t launches = 0, threads = 0, units = 0, max_units = 0;
    uint64_t hist_threads[64] = {}, hist_units[64] = {}; /* by floor(log2(units)) */
    dim3 grid{0, 0, 0}, block{0, 0, 0};                 /* the launch with the most threads */
    uint64_t most_threads = 0;
    uint64_t h2d = 0, d2h = 0, d2d = 0, h2h_unused = 0;
};
inline WorkRecord W;

/* The profiler (simcc --profile, cuda_sim_profile.h): a launch, a block done, an atomic. */
#if defined(CUDA_SIM_PROFILE)
CUDA_SIM_RT void prof_launch(const char *name, size_t dyn);
CUDA_SIM_RT void prof_block_done();
inline void prof_access(uintptr_t pc, const void *p, size_t size, uint8_t flags);
inline void prof_barrier();
inline void prof_warp_sync();
#else
inline void prof_launch(const char *, size_t) {}
inline void prof_block_done() {}
inline void prof_barrier() {}
inline void prof_warp_sync() {}
#endif

/* One step of the running simulated thread (simpp's ticks; nothing on the host).  The
 * count is the simulator's, not an access of the kernel's: the race checker does not see it. */
CUDA_SIM_NOTSAN inline void tick_counted()
{
    if (S.cur >= 0)
        W.ticks[S.cur]++;
}
constexpr inline void tick()
{
#if defined(CUDA_SIM_PROFILE)
    if (!__builtin_is_constant_evaluated())
        tick_counted();
#else
    if (!__builtin_is_constant_evaluated() && S.cur >= 0)
        W.ticks[S.cur]++;
#endif
}

CUDA_SIM_RT void work_block_done(int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t u = 1 + W.ticks[i];
        W.ticks[i] = 0;
        int b = 63 - __builtin_clzll(u);
        W.hist_threads[b]++;
        W.hist_units[b] += u;
        W.units += u;
        if (u > W.max_units)
            W.max_units = u;
    }
    W.threads += (uint64_t)n;
}

/* The fewest threads that did half the work: the busiest first, bucket by bucket (within a
 * bucket, its mean). */
CUDA_SIM_RT uint64_t work_half_threads()
{
    uint64_t need = (W.units + 1) / 2, done = 0, threads = 0;
    for (int b = 63; b >= 0 && done < need; b--) {
        if (!W.hist_threads[b])
            continue;
        if (done + W.hist_units[b] <= need) {
            done += W.hist_units[b];
            threads += W.hist_threads[b];
        } else {
            double mean = (double)W.hist_units[b] / (double)W.hist_threads[b];
            threads += (uint64_t)((double)(need - done) / mean + 0.999999);
            done = need;
        }
    }
    return threads;
}

/* The median thread's work: the mean of the bucket that holds the middle thread. */
CUDA_SIM_RT uint64_t work_median_units()
{
    uint64_t half = (W.threads + 1) / 2, seen = 0;
    for (int b = 0; b < 64; b++) {
        seen += W.hist_threads[b];
        if (W.hist_threads[b] && seen >= half)
            return W.hist_units[b] / W.hist_threads[b];
    }
    return 0;
}

CUDA_SIM_RT void work_write()
{
    const char *prefix = getenv("PR_SIM_WORK");
    if (!prefix || !*prefix)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", prefix, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f,
            "launches=%llu threads=%llu units=%llu max_units=%llu median_units=%llu half_threads=%llu "
            "grid=%u,%u,%u block=%u,%u,%u h2d=%llu d2h=%llu d2d=%llu\n",
            (unsigned long long)W.launches, (unsigned long long)W.threads, (unsigned long long)W.units,
            (unsigned long long)W.max_units, (unsigned long long)work_median_units(),
            (unsigned long long)work_half_threads(), W.grid.x, W.grid.y, W.grid.z,
            W.block.x, W.block.y, W.block.z, (unsigned long long)W.h2d, (unsigned long long)W.d2h,
            (unsigned long long)W.d2d);
    fclose(f);
}
/* at exit, whether or not the program used CUDA at all */
inline int work_at_exit = (atexit(work_write), 0);

[[noreturn]] CUDA_SIM_RT void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
CUDA_SIM_RT void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fprintf(stderr, "cuda-sim: error: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(kExitError);
}

/* What the simulator cannot do, asked for at run time: says so, exits with status 77 (as simcc
 * does at build time). */
[[noreturn]] CUDA_SIM_RT void not_simulated(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
CUDA_SIM_RT void not_simulated(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fprintf(stderr, "cuda-sim: not simulated: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    fflush(stderr);
    _exit(77); /* (not exit: the work left queued is not the program's to be warned about) */
}

inline uint64_t splitmix(uint64_t &s)
{
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* ---- device memory protection ----
 * Device memory is readable and writable only inside kernels and copies; managed memory
 * also while nothing that may use it (a kernel, a copy or memset of it) is queued. */
CUDA_SIM_RT void protect_kind(int host, bool open)
{
    for (auto &a : S.allocs)
        if (a.host == host)
            mprotect(a.base + S.page, a.map_len - 2 * S.page, open ? PROT_READ | PROT_WRITE : PROT_NONE);
}
CUDA_SIM_RT void refresh_protection()
{
    bool dev = S.device_accessible > 0;
    bool managed = dev || S.draining > 0 || S.queued_managed == 0;
    if (dev != S.dev_open)
        protect_kind(0, S.dev_open = dev);
    if (managed != S.managed_open)
        protect_kind(2, S.managed_open = managed);
}
CUDA_SIM_RT void open_device() { if (S.device_accessible++ == 0) refresh_protection(); }
CUDA_SIM_RT void close_device() { if (--S.device_accessible == 0) refresh_protection(); }

CUDA_SIM_RT const Alloc *find_alloc(const void *p, bool with_guards)
{
    const char *c = (const char *)p;
    for (auto &a : S.allocs) {
        if (with_guards ? (c >= a.base && c < a.base + a.map_len) : (c >= a.ptr && c < a.ptr + a.size))
            return &a;
    }
    return nullptr;
}

/* ---- SIGSEGV: say what happened, then die of the signal ---- */
CUDA_SIM_RT void say(const char *text) { ssize_t r = write(2, text, strlen(text)); (void)r; }

CUDA_SIM_RT void on_segv(int sig, siginfo_t *info, void *uctx)
{
    char msg[1024];
    const char *addr = (const char *)info->si_addr;
    bool write_access = false;
#if defined(__x86_64__)
    write_access = (((ucontext_t *)uctx)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)uctx;
#endif
    const char *rw = write_access ? "wrote" : "read";
    char where[300] = "";
    if (S.in_kernel && S.cur >= 0)
        snprintf(where, sizeof where, " (thread (%u,%u,%u) of block (%u,%u,%u), kernel launched at %s:%d)",
                 S.fibers[S.cur].tid.x, S.fibers[S.cur].tid.y, S.fibers[S.cur].tid.z, S.cur_block.x,
                 S.cur_block.y, S.cur_block.z, S.launch_file, S.launch_line);
    const Alloc *a = nullptr, *managed = nullptr;
    for (auto &x : S.allocs) {
        if (!x.host && addr >= x.base && addr < x.base + x.map_len)
            a = &x;
        if (x.host == 2 && addr >= x.ptr && addr < x.ptr + x.size)
            managed = &x;
    }
    fflush(stdout);
    const Op *busy = nullptr; /* the first queued work that may use managed memory */
    for (auto &op : S.queued)
        if (!busy && !op->done && op->uses_managed)
            busy = op.get();
    if (managed && !S.in_kernel && !S.managed_open && busy) {
        snprintf(msg, sizeof msg,
                 "cuda-sim: error: host code %s managed memory at %p (a cudaMallocManaged allocation of %zu "
                 "bytes at %p) while %s at %s:%d has not finished: the GPU may still be using it. Missing "
                 "synchronization: call cudaDeviceSynchronize() (or cudaStreamSynchronize on its stream) before "
                 "the host touches the memory\n",
                 rw, (const void *)addr, managed->size, (const void *)managed->ptr, busy->what, busy->file,
                 busy->line);
    } else if (a && !S.in_kernel && S.device_accessible == 0 && addr >= a->ptr && addr < a->ptr + a->size) {
        snprintf(msg, sizeof msg,
                 "cuda-sim: error: host code dereferenced device pointer %p (inside a cudaMalloc allocation of "
                 "%zu bytes at %p): device memory is only accessible in kernels; copy it with cudaMemcpy\n",
                 (const void *)addr, a->size, (const void *)a->ptr);
    } else if (a && addr >= a->ptr + a->size) {
        snprintf(msg, sizeof msg,
                 "cuda-sim: error: %s past the end of a cudaMalloc allocation: address %p is %zu bytes past the "
                 "end of the %zu-byte allocation at %p%s\n",
                 S.in_kernel ? (write_access ? "kernel wrote" : "kernel read") : (write_access ? "host code wrote" : "host code read"),
                 (const void *)addr, (size_t)(addr - (a->ptr + a->size)), a->size, (const void *)a->ptr, where);
    } else if (a) {
        snprintf(msg, sizeof msg,
                 "cuda-sim: error: %s %s address %p, %zu bytes before the start of a cudaMalloc allocation of %zu "
                 "bytes at %p%s\n",
                 S.in_kernel ? "kernel" : "host code", rw, (const void *)addr, (size_t)(a->ptr - addr), a->size,
                 (const void *)a->ptr, where);
    } else if (S.in_kernel && S.stacks && addr >= S.stacks && addr < S.stacks + S.stacks_len) {
        snprintf(msg, sizeof msg,
                 "cuda-sim: error: a kernel thread overflowed its stack of %zu KiB%s: use less local memory, "
                 "or set CUDA_SIM_STACK_KB\n",
                 S.stack_size / 1024, where);
    } else if (S.in_kernel) {
        snprintf(msg, sizeof msg, "cuda-sim: error: kernel %s invalid address %p%s (a host pointer or a bad index?)\n",
                 rw, (const void *)addr, where);
    } else {
        msg[0] = '\0';
    }
    say(msg);
    signal(sig, SIG_DFL); /* returning re-runs the access: the process dies of SIGSEGV */
}

CUDA_SIM_RT void init()
{
    if (S.inited)
        return;
    S.inited = true;
    long pg = sysconf(_SC_PAGESIZE);
    S.page = pg > 0 ? (size_t)pg : 4096;
    const char *seed = getenv("CUDA_SIM_SEED");
    S.seed = seed && *seed ? strtoull(seed, nullptr, 0) : 1;
    const char *kb = getenv("CUDA_SIM_STACK_KB");
    if (kb && atol(kb) >= 16)
        S.stack_size = (size_t)atol(kb) * 1024;
    S.stack_size = (S.stack_size + S.page - 1) / S.page * S.page;
    stack_t ss;
    ss.ss_sp = S.altstack;
    ss.ss_size = sizeof S.altstack;
    ss.ss_flags = 0;
    sigaltstack(&ss, nullptr);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
}

/* ---- fibers ---- */
/* Under AddressSanitizer (simcc -Xcompiler -fsanitize=address) every switch between
 * the scheduler's stack and a fiber's stack is announced to ASan, so that it knows
 * which stack is running (its reports, exit() or a throw in a kernel thread, the fake
 * frames of detect_stack_use_after_return).  Without ASan these macros are empty. */
#if defined(__SANITIZE_ADDRESS__)
#define CUDA_SIM_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUDA_SIM_ASAN_FIBERS 1
#endif
#endif
#if defined(CUDA_SIM_ASAN_FIBERS)
#include <sanitizer/common_interface_defs.h>
inline const void *cuda_sim_asan_sched_bottom = nullptr; /* the scheduler's stack, learnt on the first switch */
inline size_t cuda_sim_asan_sched_size = 0;
inline void *cuda_sim_asan_sched_fake = nullptr;
inline void *cuda_sim_asan_fiber_fake[1024];
/* Leaving the scheduler for fiber i (save: where ASan keeps the scheduler's fake stack). */
#define CUDA_SIM_ASAN_TO_FIBER(i)                                                                 \
    __sanitizer_start_switch_fiber(&cuda_sim_asan_sched_fake,                                     \
                                   S.stacks + (size_t)(S.slot_base + (i)) * (S.stack_size + S.page) + S.page, \
                                   S.stack_size)
#define CUDA_SIM_ASAN_BACK_IN_SCHEDULER() __sanitizer_finish_switch_fiber(cuda_sim_asan_sched_fake, nullptr, nullptr)
/* Leaving fiber i for the scheduler; a finished fiber (save = nullptr) frees its fake stack. */
#define CUDA_SIM_ASAN_TO_SCHEDULER(save) \
    __sanitizer_start_switch_fiber((save), cuda_sim_asan_sched_bottom, cuda_sim_asan_sched_size)
#define CUDA_SIM_ASAN_FIBER_STARTED() \
    __sanitizer_finish_switch_fiber(nullptr, &cuda_sim_asan_sched_bottom, &cuda_sim_asan_sched_size)
#define CUDA_SIM_ASAN_FIBER_RESUMED(i) __sanitizer_finish_switch_fiber(cuda_sim_asan_fiber_fake[S.slot_base + (i)], nullptr, nullptr)
#else
#define CUDA_SIM_ASAN_TO_FIBER(i) ((void)0)
#define CUDA_SIM_ASAN_BACK_IN_SCHEDULER() ((void)0)
#define CUDA_SIM_ASAN_TO_SCHEDULER(save) ((void)0)
#define CUDA_SIM_ASAN_FIBER_STARTED() ((void)0)
#define CUDA_SIM_ASAN_FIBER_RESUMED(i) ((void)0)
#endif

#if defined(__x86_64__)
/* The switch saves the callee-saved registers on the old stack and takes them from the new
 * one.  It goes on with a jmp, not a ret: a ret to another stack's caller would miss the
 * CPU's return-address prediction at every switch, and make the next rets miss too (twice
 * as slow on a kernel with barriers).  The floating-point control words (rounding, FTZ) are
 * not switched: every thread runs with the host's, which the simulator's rounding-mode
 * intrinsics restore after each operation.  Each stack starts a few cache lines lower than
 * the one before (fiber_prepare): stacks the same distance apart would all start in one
 * cache set. */
extern "C" void cuda_sim_switch(void **save_sp, void *new_sp);
extern "C" void cuda_sim_fiber_entry();
__asm__(".text\n"
        ".weak cuda_sim_switch\n"
        ".type cuda_sim_switch,@function\n"
        "cuda_sim_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  popq %rcx\n  jmpq *%rcx\n"
        ".weak cuda_sim_fiber_entry\n"
        ".type cuda_sim_fiber_entry,@function\n"
        "cuda_sim_fiber_entry:\n"
        "  call *%r12\n"
        "  ud2\n");
#endif

[[noreturn]] CUDA_SIM_NOTSAN CUDA_SIM_RT void fiber_exit();
/* A thread that ends without having waited leaves its stack free: when the next thread of
 * the round has not started yet, it runs here at once, on the same stack, without going
 * back to the scheduler (a kernel without barriers then costs no switch a thread). */
CUDA_SIM_NOTSAN CUDA_SIM_RT void fiber_main()
{
    CUDA_SIM_ASAN_FIBER_STARTED();
    for (;;) {
        S.thunk(S.thunk_arg);
        if (S.kernel_aborted || S.round_pos >= S.round_len)
            break;
        int next = S.round_order[S.round_pos];
        Fiber &n = S.fibers[next];
        if (n.started || n.state != RUNNABLE)
            break;
        S.round_pos++;
        S.fibers[S.cur].state = DONE;
        S.cur = next;
        n.started = true;
        threadIdx = n.tid;
    }
    fiber_exit();
}

/* Ends the running fiber (its thread of the block is done) and goes back to the scheduler. */
[[noreturn]] CUDA_SIM_NOTSAN CUDA_SIM_RT void fiber_exit()
{
    S.fibers[S.cur].state = DONE;
    CUDA_SIM_ASAN_TO_SCHEDULER(nullptr);
#if defined(__x86_64__)
    cuda_sim_switch(&S.fibers[S.cur].sp, S.sched_sp);
#else
    swapcontext(&S.fiber_uc[S.slot_base + S.cur], &S.sched_uc);
#endif
    __builtin_unreachable();
}

CUDA_SIM_NOTSAN CUDA_SIM_RT void fiber_prepare(int i)
{
    const int slot = S.slot_base + i;
    char *top = S.stacks + (size_t)slot * (S.stack_size + S.page) + S.page + S.stack_size;
    top -= (size_t)(slot % 64) * 64; /* (see cuda_sim_switch) */
#if defined(__x86_64__)
    uint64_t *sp = (uint64_t *)top;
    *--sp = 0; *--sp = 0;               /* padding: rsp is 16-aligned after the jmp, so fiber_main */
                                        /* starts with rsp = 8 mod 16 as the x86-64 ABI says */
    *--sp = (uint64_t)cuda_sim_fiber_entry;
    *--sp = 0;                          /* rbp */
    *--sp = 0;                          /* rbx */
    *--sp = (uint64_t)(void (*)())fiber_main; /* r12 */
    *--sp = 0; *--sp = 0; *--sp = 0;    /* r13 r14 r15 */
    S.fibers[i].sp = sp;
#else
    getcontext(&S.fiber_uc[slot]);
    S.fiber_uc[slot].uc_stack.ss_sp = top - S.stack_size;
    S.fiber_uc[slot].uc_stack.ss_size = S.stack_size;
    S.fiber_uc[slot].uc_link = nullptr;
    makecontext(&S.fiber_uc[slot], (void (*)())fiber_main, 0);
#endif
}

CUDA_SIM_NOTSAN CUDA_SIM_RT void run_fiber(int i)
{
    S.cur = i;
    if (!S.fibers[i].started) {
        S.fibers[i].started = true;
        fiber_prepare(i);
    }
    threadIdx = S.fibers[i].tid;
    CUDA_SIM_ASAN_TO_FIBER(i);
#if defined(__x86_64__)
    cuda_sim_switch(&S.sched_sp, S.fibers[i].sp);
#else
    swapcontext(&S.sched_uc, &S.fiber_uc[S.slot_base + i]);
#endif
    CUDA_SIM_ASAN_BACK_IN_SCHEDULER();
}

CUDA_SIM_NOTSAN inline void yield_to_scheduler()
{
    Fiber &f = S.fibers[S.cur];
#if defined(CUDA_SIM_ASAN_FIBERS)
    const int me = S.cur;
#endif
    CUDA_SIM_ASAN_TO_SCHEDULER(&cuda_sim_asan_fiber_fake[S.slot_base + me]);
#if defined(__x86_64__)
    cuda_sim_switch(&f.sp, S.sched_sp);
#else
    swapcontext(&S.fiber_uc[S.slot_base + S.cur], &S.sched_uc);
#endif
    CUDA_SIM_ASAN_FIBER_RESUMED(me);
}

CUDA_SIM_RT void ensure_stacks(int n)
{
    if (S.stacks)
        return;
    (void)n;
    S.stacks_len = 1024 * (S.stack_size + S.page);
    void *m = mmap(nullptr, S.stacks_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        fatal("cannot map the stacks of the simulated threads");
    S.stacks = (char *)m;
    for (int i = 0; i < 1024; i++) /* a guard page below every stack */
        mprotect(S.stacks + (size_t)i * (S.stack_size + S.page), S.page, PROT_NONE);
}

/* (a loop, not memset: under the race checker the poisoning is not an access of any thread) */
CUDA_SIM_NOTSAN inline void poison_bytes(void *p, size_t n)
{
    volatile unsigned char *c = (volatile unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        c[i] = 0xff;
}

CUDA_SIM_RT bool shared_poison_on()
{
    static int poison = -1;
    if (poison < 0) {
        const char *p = getenv("CUDA_SIM_SHARED_POISON");
        poison = !(p && strcmp(p, "0") == 0);
    }
    return poison;
}

CUDA_SIM_NOTSAN CUDA_SIM_RT void poison_shared(size_t dyn_bytes)
{
    if (!shared_poison_on())
        return;
    if (__start_cuda_sim_shared && __stop_cuda_sim_shared)
        poison_bytes(__start_cuda_sim_shared, (size_t)(__stop_cuda_sim_shared - __start_cuda_sim_shared));
    for (int i = 0; i < S.nshared_extra; i++)
        poison_bytes(S.shared_extra[i], S.shared_extra_len[i]);
    poison_bytes(cuda_sim_dynamic_shared_storage, dyn_bytes);
}

/* simpp puts a call after every __shared__ declaration in a function: a variable outside
 * the shared section (a template kernel's) is remembered, poisoned now (no thread of the
 * block can have written it: it was not in scope before this statement) and at the start
 * of every block from then on, as the others are. */
CUDA_SIM_NOTSAN inline void shared_seen(void *p, size_t n)
{
    char *c = (char *)p;
    if (__start_cuda_sim_shared && c >= __start_cuda_sim_shared && c < __stop_cuda_sim_shared)
        return;
    for (int i = 0; i < S.nshared_extra; i++)
        if (S.shared_extra[i] == p)
            return;
    if (S.nshared_extra == 256)
        return; /* (more than 256 such variables: the rest is not poisoned) */
    S.shared_extra[S.nshared_extra] = p;
    S.shared_extra_len[S.nshared_extra++] = n;
    if (shared_poison_on())
        poison_bytes(p, n);
}

CUDA_SIM_RT void describe_block(char *buf, size_t n)
{
    snprintf(buf, n, "block (%u,%u,%u) of the kernel launched at %s:%d", S.cur_block.x, S.cur_block.y,
             S.cur_block.z, S.launch_file, S.launch_line);
}

/* Sets up one block: its threads runnable, from their start. */
CUDA_SIM_NOTSAN CUDA_SIM_RT void start_block(unsigned bx, unsigned by, unsigned bz, size_t dyn)
{
    int n = S.nthreads;
    S.cur_block = uint3{bx, by, bz};
    blockIdx = S.cur_block;
    poison_shared(dyn);
    for (int i = 0; i < n; i++) {
        Fiber &f = S.fibers[i];
        f.state = RUNNABLE;
        f.tid = uint3{(unsigned)i % blockDim.x, (unsigned)i / blockDim.x % blockDim.y,
                      (unsigned)i / (blockDim.x * blockDim.y)};
        f.file = nullptr;
        f.line = 0;
        f.warp_mask = 0;
        f.started = false; /* (its first frame is made when it first runs: run_fiber) */
        S.xparity[i] = 0;
    }
}

/* Runs the block set up by start_block: every thread to completion, releasing barriers as
 * they fill.  Returns true when every thread waits at a grid-wide sync instead (a
 * cooperative launch: run_cooperative goes on with the other blocks). */
CUDA_SIM_NOTSAN CUDA_SIM_RT bool block_loop()
{
    int n = S.nthreads;
    static int order[1024];
    for (;;) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (S.fibers[i].state == RUNNABLE)
                order[m++] = i;
        for (int i = m - 1; i > 0; i--) {
            /* j uniform in 0..i: the high half of a 64x64-bit product (no division) */
            int j = (int)(((unsigned __int128)splitmix(S.rng) * (unsigned)(i + 1)) >> 64);
            std::swap(order[i], order[j]);
        }
        S.round_order = order;
        S.round_len = m;
        S.round_pos = 0;
        while (S.round_pos < m) { /* (a thread that ends may run the next ones: fiber_main) */
            int k = S.round_pos++;
            if (k + 1 < m) { /* the next thread's saved registers and the frames above them */
                const char *next = (const char *)S.fibers[order[k + 1]].sp;
                __builtin_prefetch(next);
                __builtin_prefetch(next + 64);
                __builtin_prefetch(next + 128);
            }
            run_fiber(order[k]);
        }
        S.cur = -1;
        if (S.kernel_aborted) { /* a device-side assert: the block's other threads stop too */
            return false;
        }
        /* warp groups first: release every warp whose waiting lanes' masks are all waiting */
        bool released = false;
        int nwarps = (n + 31) / 32;
        for (int w = 0; w < nwarps; w++) {
            unsigned need = 0, waiting = 0;
            int lanes = std::min(32, n - w * 32);
            for (int l = 0; l < lanes; l++) {
                Fiber &f = S.fibers[w * 32 + l];
                if (f.state == WAIT_WARP) {
                    need |= f.warp_mask;
                    waiting |= 1u << l;
                }
            }
            unsigned existing = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1);
            if (waiting && (need & existing & ~waiting) == 0) {
                for (int l = 0; l < lanes; l++)
                    if (waiting & (1u << l))
                        S.fibers[w * 32 + l].state = RUNNABLE;
                released = true;
            }
        }
        /* tiles of more than a warp (thread_block_tile<64> ...): release every tile whose
         * threads all wait at its sync (warp_mask holds the tile's size) */
        for (int i = 0; i < n; i++) {
            if (S.fibers[i].state != WAIT_TILE)
                continue;
            const int size = (int)S.fibers[i].warp_mask, base = i / size * size, end = std::min(n, base + size);
            bool all = true;
            for (int j = base; j < end && all; j++)
                all = S.fibers[j].state == WAIT_TILE && (int)S.fibers[j].warp_mask == size;
            if (all) {
                for (int j = base; j < end; j++)
                    S.fibers[j].state = RUNNABLE;
                released = true;
            }
            i = std::max(i, end - 1);
        }
        if (released)
            continue;
        int done = 0, at_block = 0, at_warp = 0, at_grid = 0, at_tile = 0, first_block = -1, first_done = -1,
            first_warp = -1, first_grid = -1, first_tile = -1;
        for (int i = 0; i < n; i++) {
            Fiber &f = S.fibers[i];
            if (f.state == DONE) {
                done++;
                if (first_done < 0) first_done = i;
            } else if (f.state == WAIT_GRID) {
                at_grid++;
                if (first_grid < 0) first_grid = i;
            } else if (f.state == WAIT_TILE) {
                at_tile++;
                if (first_tile < 0) first_tile = i;
            } else if (f.state == WAIT_BLOCK) {
                at_block++;
                if (first_block < 0) first_block = i;
            } else if (f.state == WAIT_WARP) {
                at_warp++;
                if (first_warp < 0) first_warp = i;
            }
        }
        if (done == n) {
            return false;
        }
        char blk[400];
        describe_block(blk, sizeof blk);
        if (at_grid == n)
            return true;
        if (at_tile > 0) { /* (a tile whose threads all waited was released above) */
            const Fiber &ft = S.fibers[first_tile];
            fatal("the sync of a tile of %u threads at %s:%d (thread (%u,%u,%u) of %s) not reached by all threads of "
                  "its tile: one returned or waits elsewhere", ft.warp_mask, ft.file, ft.line, ft.tid.x, ft.tid.y,
                  ft.tid.z, blk);
        }
        if (at_grid > 0) {
            const Fiber &fg = S.fibers[first_grid];
            if (done)
                fatal("grid-wide sync at %s:%d not reached by all threads of %s: %d of %d threads returned without "
                      "reaching it (thread (%u,%u,%u) for one; every thread of every block must reach it)",
                      fg.file, fg.line, blk, done, n, S.fibers[first_done].tid.x, S.fibers[first_done].tid.y,
                      S.fibers[first_done].tid.z);
            const Fiber &fo = S.fibers[first_block >= 0 ? first_block : first_warp];
            fatal("threads of %s wait at different barriers: thread (%u,%u,%u) at the grid-wide sync at %s:%d, thread "
                  "(%u,%u,%u) at %s:%d", blk, fg.tid.x, fg.tid.y, fg.tid.z, fg.file, fg.line, fo.tid.x, fo.tid.y,
                  fo.tid.z, fo.file, fo.line);
        }
        if (at_block == n) {
            const Fiber &f0 = S.fibers[first_block];
            for (int i = 0; i < n; i++) {
                const Fiber &f = S.fibers[i];
                if (f.line != f0.line || (f.file != f0.file && strcmp(f.file, f0.file) != 0))
                    fatal("threads of %s wait at different __syncthreads(): thread (%u,%u,%u) at %s:%d, "
                          "thread (%u,%u,%u) at %s:%d (every thread must reach the same barrier)",
                          blk, f0.tid.x, f0.tid.y, f0.tid.z, f0.file, f0.line, f.tid.x, f.tid.y, f.tid.z, f.file,
                          f.line);
            }
            int count = 0;
            for (int i = 0; i < n; i++)
                count += S.fibers[i].pred != 0;
            for (int i = 0; i < n; i++) {
                S.fibers[i].state = RUNNABLE;
                S.fibers[i].pred = count;
            }
            continue;
        }
        if (at_block > 0 && at_warp == 0) {
            const Fiber &f0 = S.fibers[first_block];
            const Fiber &fd = S.fibers[first_done];
            fatal("__syncthreads() at %s:%d not reached by all threads of block (%u,%u,%u): %d of %d threads "
                  "returned without reaching it (thread (%u,%u,%u) for one; kernel launched at %s:%d)",
                  f0.file, f0.line, S.cur_block.x, S.cur_block.y, S.cur_block.z, done, n, fd.tid.x, fd.tid.y,
                  fd.tid.z, S.launch_file, S.launch_line);
        }
        const Fiber &fw = S.fibers[first_warp];
        fatal("warp-synchronous call at %s:%d (thread (%u,%u,%u) of %s) not reached by all lanes of its mask "
              "0x%08x: a lane returned or waits elsewhere",
              fw.file, fw.line, fw.tid.x, fw.tid.y, fw.tid.z, blk, fw.warp_mask);
    }
}

/* Runs one block: every thread to completion. */
CUDA_SIM_NOTSAN CUDA_SIM_RT void run_block(unsigned bx, unsigned by, unsigned bz, size_t dyn)
{
    start_block(bx, by, bz, dyn);
    if (block_loop())
        fatal("a grid-wide sync in a kernel not launched with cudaLaunchCooperativeKernel (%s:%d)", S.launch_file,
              S.launch_line);
}

/* cooperative_groups' this_grid().sync(): every thread of every block waits here until all
 * have arrived.  Only a cooperative launch (cudaLaunchCooperativeKernel) may do it: there
 * every block is resident at once, as the grid is small enough (run_cooperative). */
CUDA_SIM_NOTSAN CUDA_SIM_RT void grid_barrier(const char *file, int line)
{
    if (!S.in_kernel || S.cur < 0)
        fatal("a grid-wide sync called outside a kernel (%s:%d)", file, line);
#if defined(CUDA_SIM_PROFILE)
    not_simulated("%s:%d: cooperative_groups grid sync under simcc --profile or --racecheck (a plain simcc build "
                  "runs it)", file, line);
#endif
    if (!S.cooperative)
        fatal("%s:%d: a grid-wide sync (this_grid().sync()) in a kernel launched at %s:%d without "
              "cudaLaunchCooperativeKernel: only a cooperative launch keeps every block resident at once, so on a "
              "GPU it may hang or fail", file, line, S.launch_file, S.launch_line);
    Fiber &f = S.fibers[S.cur];
    f.state = WAIT_GRID;
    f.file = file;
    f.line = line;
    yield_to_scheduler();
}

/* thread_block_tile<N>::sync() for N > 32 (cooperative_groups.h): the N threads of the
 * calling thread's tile (consecutive thread ranks) wait for each other. */
CUDA_SIM_NOTSAN CUDA_SIM_RT void tile_barrier(unsigned size, const char *file, int line)
{
    if (!S.in_kernel || S.cur < 0)
        fatal("a tile's sync() called outside a kernel (%s:%d)", file, line);
#if defined(CUDA_SIM_RACECHECK)
    not_simulated("%s:%d: the sync of a tile of more than 32 threads under simcc --racecheck (a plain simcc build "
                  "runs it)", file, line);
#endif
    Fiber &f = S.fibers[S.cur];
    f.state = WAIT_TILE;
    f.warp_mask = size;
    f.file = file;
    f.line = line;
    yield_to_scheduler();
}

CUDA_SIM_NOTSAN inline void block_barrier(const char *file, int line, int pred)
{
    if (!S.in_kernel || S.cur < 0)
        fatal("__syncthreads() called outside a kernel (%s:%d)", file, line);
    Fiber &f = S.fibers[S.cur];
    f.state = WAIT_BLOCK;
    f.file = file;
    f.line = line;
    f.pred = pred;
    prof_barrier();
    yield_to_scheduler();
}

CUDA_SIM_NOTSAN inline void warp_wait(unsigned mask, const char *file, int line)
{
    if (!S.in_kernel || S.cur < 0)
        fatal("warp-synchronous call outside a kernel (%s:%d)", file, line);
    Fiber &f = S.fibers[S.cur];
    int lane = S.cur % 32;
    if (!(mask & (1u << lane)))
        fatal("%s:%d: a warp-synchronous call's mask 0x%08x does not include the calling lane %d", file, line, mask,
              lane);
    f.state = WAIT_WARP;
    f.warp_mask = mask;
    f.file = file;
    f.line = line;
    prof_warp_sync();
    yield_to_scheduler();
}

/* Every lane in mask puts 8 bytes in; returns the exchange row after all have. */
template <class T> CUDA_SIM_NOTSAN inline const uint64_t *warp_exchange(unsigned mask, T value, const char *file, int line)
{
    static_assert(sizeof(T) <= 8, "warp shuffles of values larger than 8 bytes are not supported");
    int i = S.cur, w = i / 32, lane = i % 32;
    unsigned par = S.xparity[i]++ & 1;
    uint64_t bits = 0;
    memcpy(&bits, &value, sizeof(T));
    S.xbuf[w][par][lane] = bits;
    warp_wait(mask, file, line);
    return S.xbuf[w][par];
}

CUDA_SIM_NOTSAN inline int lane_count_in_warp(int i) { return std::min(32, S.nthreads - (i / 32) * 32); }

template <class T> CUDA_SIM_NOTSAN inline T shfl_generic(unsigned mask, T var, int src, const char *file, int line)
{
    const uint64_t *row = warp_exchange(mask, var, file, line);
    int lane = S.cur % 32;
    if (src < 0 || src >= lane_count_in_warp(S.cur))
        src = lane;
    T out;
    memcpy(&out, &row[src], sizeof(T));
    return out;
}

/* ---- the launch ---- */
struct cfg;
/* What a bad launch configuration gives: the CUDA 13 runtime on an H100 returned
 * cudaErrorInvalidValue ("invalid argument") for a 2048-thread block, a 32x32x2 block
 * and a zero grid (older runtimes said cudaErrorInvalidConfiguration). */
constexpr cudaError_t kBadConfig = cudaErrorInvalidValue;
CUDA_SIM_RT cudaError_t check_config(dim3 g, dim3 b, size_t shmem)
{
    if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0)
        return kBadConfig;
    if (b.x > 1024 || b.y > 1024 || b.z > 64 || (unsigned long long)b.x * b.y * b.z > 1024)
        return kBadConfig;
    if (g.x > 2147483647u || g.y > 65535 || g.z > 65535)
        return kBadConfig;
    if (shmem > (S.shared_optin > kSharedPerBlock ? S.shared_optin : kSharedPerBlock))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

/* A cooperative launch's blocks (at most 1024 threads in all: launch_cooperative checks):
 * each runs until all its threads wait at a grid-wide sync, or end.  A block that waits is
 * put aside (its threads, its shared memory, its warps' exchanges) and the next one runs,
 * on stack slots of its own.  When every block waits, each is brought back in turn and
 * runs on to the next sync.  Between two syncs the blocks run one after another, which is
 * one of the orders a GPU may give them. */
CUDA_SIM_NOTSAN CUDA_SIM_RT void run_cooperative(dim3 g, uint64_t nb, uint64_t a, uint64_t c, size_t shmem)
{
    const int n = S.nthreads, nwarps = (n + 31) / 32;
    char *sec = __start_cuda_sim_shared;
    const size_t sec_len = sec && __stop_cuda_sim_shared ? (size_t)(__stop_cuda_sim_shared - sec) : 0;
    struct Parked {
        bool waiting = false;
        uint3 block{0, 0, 0};
        std::vector<Fiber> fibers;
        std::vector<unsigned> xparity;
        std::vector<uint64_t> xbuf, ticks;
        std::vector<unsigned char> shared;
    };
    std::vector<Parked> P(nb);
    auto park = [&](Parked &p) {
        p.waiting = true;
        p.block = S.cur_block;
        p.fibers.assign(S.fibers, S.fibers + n);
        p.xparity.assign(S.xparity, S.xparity + n);
        p.xbuf.assign(&S.xbuf[0][0][0], &S.xbuf[0][0][0] + (size_t)nwarps * 64);
        p.ticks.assign(W.ticks, W.ticks + n);
        std::fill(W.ticks, W.ticks + n, 0);
        p.shared.clear();
        p.shared.insert(p.shared.end(), (unsigned char *)sec, (unsigned char *)sec + sec_len);
        p.shared.insert(p.shared.end(), cuda_sim_dynamic_shared_storage, cuda_sim_dynamic_shared_storage + shmem);
        for (int i = 0; i < S.nshared_extra; i++) {
            const unsigned char *x = (const unsigned char *)S.shared_extra[i];
            p.shared.insert(p.shared.end(), x, x + S.shared_extra_len[i]);
        }
    };
    auto unpark = [&](Parked &p) {
        p.waiting = false;
        S.cur_block = p.block;
        blockIdx = p.block;
        std::copy(p.fibers.begin(), p.fibers.end(), S.fibers);
        for (int i = 0; i < n; i++)
            S.fibers[i].state = RUNNABLE; /* (every one waited at the sync) */
        std::copy(p.xparity.begin(), p.xparity.end(), S.xparity);
        std::copy(p.xbuf.begin(), p.xbuf.end(), &S.xbuf[0][0][0]);
        std::copy(p.ticks.begin(), p.ticks.end(), W.ticks);
        const unsigned char *q = p.shared.data(), *end = q + p.shared.size();
        if (sec_len)
            memcpy(sec, q, sec_len);
        q += sec_len;
        memcpy(cuda_sim_dynamic_shared_storage, q, shmem);
        q += shmem;
        /* (a variable first seen while this block was put aside was poisoned then: it stays so) */
        for (int i = 0; i < S.nshared_extra && q + S.shared_extra_len[i] <= end; q += S.shared_extra_len[i], i++)
            memcpy(S.shared_extra[i], q, S.shared_extra_len[i]);
    };
    auto finished = [&]() { /* the block now in the scheduler ended */
        work_block_done(n);
        prof_block_done();
    };
    uint64_t waiting = 0, ended = 0;
    const char *sync_file = "?";
    int sync_line = 0;
    for (uint64_t i = 0; i < nb && !S.kernel_aborted; i++) {
        uint64_t k = (unsigned __int128)a * i % nb;
        k = (k + c) % nb;
        S.slot_base = (int)(i * (uint64_t)n);
        start_block((unsigned)(k % g.x), (unsigned)(k / g.x % g.y), (unsigned)(k / ((uint64_t)g.x * g.y)), shmem);
        if (block_loop()) {
            sync_file = S.fibers[0].file;
            sync_line = S.fibers[0].line;
            park(P[i]);
            waiting++;
        } else {
            finished();
            ended++;
        }
    }
    while (waiting > 0 && !S.kernel_aborted) {
        if (ended > 0) {
            uint64_t i = 0;
            while (P[i].waiting)
                i++;
            fatal("the grid-wide sync at %s:%d of the kernel launched at %s:%d was not reached by every block: "
                  "%llu of %llu blocks ended without reaching it (every thread of every block must reach it; on a "
                  "GPU the others wait for ever)", sync_file, sync_line, S.launch_file, S.launch_line,
                  (unsigned long long)ended, (unsigned long long)nb);
        }
        waiting = 0;
        for (uint64_t i = 0; i < nb && !S.kernel_aborted; i++) {
            if (!P[i].waiting)
                continue;
            S.slot_base = (int)(i * (uint64_t)n);
            unpark(P[i]);
            if (block_loop()) {
                sync_file = S.fibers[0].file;
                sync_line = S.fibers[0].line;
                park(P[i]);
                waiting++;
            } else {
                finished();
                ended++;
            }
        }
    }
    S.slot_base = 0;
}

CUDA_SIM_NOTSAN CUDA_SIM_RT void launch(dim3 g, dim3 b, size_t shmem, const char *file, int line, void (*thunk)(void *), void *arg,
                                   const char *name = nullptr, bool coop = false)
{
    init();
    cudaError_t e = check_config(g, b, shmem);
    if (e != cudaSuccess) {
        S.last_error = e;
        return;
    }
    if (S.in_kernel)
        fatal("%s:%d: a kernel launch inside a kernel (dynamic parallelism) is not simulated", file, line);
    ensure_stacks((int)(b.x * b.y * b.z));
    S.launches++;
    uint64_t r = S.seed * 0x9E3779B97F4A7C15ULL ^ (S.launches * 0xD1B54A32D192ED03ULL);
    splitmix(r);
    S.rng = r;
    S.launch_file = file;
    S.launch_line = line;
    S.thunk = thunk;
    S.thunk_arg = arg;
    S.nthreads = (int)(b.x * b.y * b.z);
    gridDim = g;
    blockDim = b;
    open_device();
    S.in_kernel = true;
    /* blocks in a shuffled order: i -> (a*i + c) mod N with a coprime to N */
    uint64_t nb = (uint64_t)g.x * g.y * g.z;
    uint64_t a = nb > 1 ? (splitmix(S.rng) % nb) | 1 : 1;
    while (nb > 1 && std::__gcd(a, nb) != 1)
        a = (a + 2) % nb ? (a + 2) % nb : 1;
    uint64_t c = nb > 1 ? splitmix(S.rng) % nb : 0;
    S.kernel_aborted = false;
    prof_launch(name, shmem);
    W.launches++;
    if (nb * (uint64_t)S.nthreads > W.most_threads) {
        W.most_threads = nb * (uint64_t)S.nthreads;
        W.grid = g;
        W.block = b;
    }
    S.cooperative = coop;
    if (coop) {
        run_cooperative(g, nb, a, c, shmem);
    } else {
        for (uint64_t i = 0; i < nb && !S.kernel_aborted; i++) {
            uint64_t k = (unsigned __int128)a * i % nb;
            k = (k + c) % nb;
            run_block((unsigned)(k % g.x), (unsigned)(k / g.x % g.y), (unsigned)(k / ((uint64_t)g.x * g.y)), shmem);
            work_block_done(S.nthreads);
            prof_block_done();
        }
    }
    S.cooperative = false;
    S.in_kernel = false;
    close_device();
    threadIdx = uint3{0, 0, 0};
    blockIdx = uint3{0, 0, 0};
}

/* ---- queued work ---- */
CUDA_SIM_RT CUstream_st *stream_of(cudaStream_t s)
{
    if (s == nullptr || s == cudaStreamLegacy)
        return &S.legacy;
    if (s == cudaStreamPerThread)
        return &S.per_thread;
    return s;
}
CUDA_SIM_RT bool blocking(const CUstream_st *st) { return !(st->flags & cudaStreamNonBlocking); }

/* Runs x after everything it depends on (nothing when it is done). */
CUDA_SIM_RT void complete(const OpRef &x)
{
    if (!x || x->done)
        return;
    S.draining++;
    refresh_protection();
    std::vector<Op *> todo{x.get()};
    while (!todo.empty()) {
        Op *o = todo.back();
        if (o->done) {
            todo.pop_back();
            continue;
        }
        bool ready = true;
        for (auto &d : o->deps)
            if (!d->done) {
                todo.push_back(d.get());
                ready = false;
            }
        if (!ready)
            continue;
        todo.pop_back();
        std::function<void()> run = std::move(o->run);
        o->deps.clear();
        run();
        o->done = true;
        if (o->uses_managed)
            S.queued_managed--;
    }
    while (!S.queued.empty() && S.queued.front()->done)
        S.queued.pop_front();
    S.draining--;
    refresh_protection();
}

/* Runs all queued work, in issue order (cudaDeviceSynchronize). */
CUDA_SIM_RT void complete_all()
{
    while (!S.queued.empty()) {
        OpRef first = S.queued.front();
        complete(first);
        if (!S.queued.empty() && S.queued.front() == first)
            S.queued.pop_front();
    }
    S.orphans.clear();
}

/* Everything the legacy default stream's next operation would wait for: its own work and
 * that of every blocking stream (a blocking cudaMemcpy waits for the same). */
CUDA_SIM_RT void complete_legacy()
{
    complete(S.legacy.last);
    complete(S.per_thread.last);
    for (auto *st : S.streams)
        if (blocking(st))
            complete(st->last);
    for (auto &o : S.orphans)
        complete(o);
    S.orphans.clear();
}

/* At exit: work that was queued and never synchronized.  A GPU need not run it (and a
 * kernel's printf output appears only at a synchronization): say so. */
inline bool progress_started = false, progress_stop = false; /* (the progress thread: see progress_loop) */
CUDA_SIM_RT void check_at_exit()
{
    /* (another host thread may be inside a call: wait for it a while, not for ever) */
    std::unique_lock<std::recursive_mutex> lock(api_mutex, std::defer_lock);
    for (int i = 0; i < 200 && !lock.try_lock(); i++) {
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, nullptr);
    }
    progress_stop = true;
    if (!lock.owns_lock() || S.in_kernel) /* (an error inside a kernel ended it: said already) */
        return;
    int left = 0;
    const Op *first = nullptr;
    for (auto &op : S.queued)
        if (!op->done && op->file) {
            left++;
            if (!first)
                first = op.get();
        }
    if (left > 0)
        fprintf(stderr,
                "cuda-sim: warning: the program ended with %d operation%s queued on the GPU and never synchronized "
                "(the first: %s at %s:%d); on a GPU its results, and a kernel's printf output, may never appear: "
                "call cudaDeviceSynchronize() before the end\n",
                left, left == 1 ? "" : "s", first->what, first->file, first->line);
}

/* Queues run on stream s after what it must wait for; returns the operation. */
CUDA_SIM_RT OpRef enqueue(cudaStream_t s, const char *what, const char *file, int line, bool uses_managed,
                     std::function<void()> run)
{
    init();
    if (!S.exit_check) {
        S.exit_check = true;
        atexit(check_at_exit);
    }
    CUstream_st *st = stream_of(s);
    OpRef op = std::make_shared<Op>();
    op->run = std::move(run);
    op->what = what;
    op->file = file;
    op->line = line;
    op->uses_managed = uses_managed;
    op->done = false;
    op->host_fn_at = 0;
    auto after = [&](const OpRef &d) {
        if (d && !d->done)
            op->deps.push_back(d);
    };
    after(st->last);
    if (st == &S.legacy) {
        after(S.per_thread.last);
        for (auto *o : S.streams)
            if (blocking(o))
                after(o->last);
        for (auto &o : S.orphans)
            after(o);
    } else if (blocking(st)) {
        after(S.legacy.last);
    }
    st->last = op;
    S.queued.push_back(op);
    if (uses_managed && S.queued_managed++ == 0)
        refresh_protection();
    if (S.eager)
        complete(op);
    return op;
}

/* A program that uses Thrust (simcc builds its files with CUDA_SIM_THRUST): Thrust's CPU
 * back end runs its algorithms on the host, on device memory too, and does not queue them
 * in streams.  So that they see what earlier kernels wrote, as on a GPU where both are in
 * the default stream, such a program runs its work as it is issued, and its device memory
 * is open to the host: the checks for a missing synchronization and for the host's use of
 * a device pointer are off in it. */
CUDA_SIM_RT bool thrust_mode()
{
    init();
    S.eager = true;
    open_device();
    return true;
}

template <class... A> struct pending {
    const cfg *c;
    std::tuple<A...> args;
};

struct cfg {
    dim3 grid, block;
    size_t shmem;
    cudaStream_t stream;
    const char *file;
    int line;
    cfg(dim3 g, dim3 b, size_t sh = 0, cudaStream_t s = 0, const char *f = __builtin_FILE(), int l = __builtin_LINE())
        : grid(g), block(b), shmem(sh), stream(s), file(f), line(l)
    {
    }
    template <class... A> pending<std::decay_t<A>...> operator()(A &&...a) const
    {
        return pending<std::decay_t<A>...>{this, std::tuple<std::decay_t<A>...>(std::forward<A>(a)...)};
    }
};

template <class... P, class... A, size_t... I>
inline void call_kernel(void (*k)(P...), std::tuple<A...> &args, std::index_sequence<I...>)
{
    k(std::get<I>(args)...);
}

/* A launch: its configuration is checked now (cudaGetLastError sees a bad one at once),
 * and the kernel, with copies of its arguments, queued on its stream. */
template <class Call> inline void queue_launch(const cfg &c, Call call, const char *name = nullptr, bool coop = false)
{
    CUDA_SIM_API;
    init();
    cudaError_t e = check_config(c.grid, c.block, c.shmem);
    if (e != cudaSuccess) {
        S.last_error = e;
        return;
    }
    if (S.in_kernel)
        fatal("%s:%d: a kernel launch inside a kernel (dynamic parallelism) is not simulated", c.file, c.line);
    dim3 g = c.grid, b = c.block;
    size_t shmem = c.shmem;
    const char *file = c.file;
    int line = c.line;
    enqueue(c.stream, "the kernel launched", file, line, true, [=]() mutable {
        struct box {
            Call *call;
            static void run(void *v) { (*((box *)v)->call)(); }
        } bx{&call};
        launch(g, b, shmem, file, line, &box::run, &bx, name, coop);
    });
}

template <class... P, class... A> inline void operator<<(void (*k)(P...), pending<A...> &&p)
{
    static_assert(sizeof...(P) == sizeof...(A), "kernel launch: wrong number of arguments for the kernel");
    queue_launch(*p.c, [k, args = std::move(p.args)]() mutable {
        call_kernel(k, args, std::index_sequence_for<A...>{});
    });
}

/* What simpp makes of a launch's kernel: a lambda that calls it with the stored arguments,
 * so that a kernel template's arguments are deduced (scale<<<g, b>>>(x, 2.0f, n)), an
 * overloaded kernel is chosen and the arguments convert to its parameters as in a call. */
template <class F> struct kernel_of {
    F call;
    const char *name; /* the kernel as the launch names it (the profiler's lines) */
    explicit kernel_of(F f, const char *n = nullptr) : call(f), name(n) {}
};

template <class F, class... A> inline void operator<<(kernel_of<F> &&k, pending<A...> &&p)
{
    queue_launch(
        *p.c, [call = std::move(k.call), args = std::move(p.args)]() mutable { std::apply(call, args); }, k.name);
}

CUDA_SIM_RT double now()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

CUDA_SIM_RT cudaError_t fail(cudaError_t e)
{
    S.last_error = e;
    return e;
}

/* Queued work runs at a synchronization.  A program may instead wait for a host function it
 * queued (a stream callback that wakes its host threads, as NVIDIA's simpleCallback does)
 * without ever synchronizing: on a GPU the work runs anyway.  So from the first host function
 * on, a progress thread looks every 10 ms for one queued 50 ms ago or more and runs the work
 * up to it (and so the function itself, on that thread, as CUDA runs callbacks on a thread
 * of its own), under the API lock.  Work without host functions still runs only at a
 * synchronization. */
CUDA_SIM_RT void *progress_loop(void *)
{
    for (;;) {
        struct timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, nullptr);
        CUDA_SIM_API;
        if (progress_stop)
            return nullptr;
        double t = now();
        for (auto &op : S.queued)
            if (!op->done && op->host_fn_at > 0 && t - op->host_fn_at >= 0.05) {
                OpRef keep = op; /* (complete() may pop it from the queue) */
                complete(keep);
                break;
            }
    }
}
CUDA_SIM_RT void queued_host_fn(const OpRef &op) /* (the API lock held) */
{
    op->host_fn_at = now();
    if (progress_started || S.eager)
        return;
    progress_started = true;
    pthread_t t;
    if (pthread_create(&t, nullptr, progress_loop, nullptr) == 0)
        pthread_detach(t);
}
/* What a synchronizing call returns once its work has run: cudaErrorAssert for good after a
 * device-side assert failed (a sticky error: the context cannot be used any more). */
CUDA_SIM_RT cudaError_t synced() { return S.sticky != cudaSuccess ? fail(S.sticky) : cudaSuccess; }

} // namespace cuda_sim

/* ------------------------------------------------------------------------- */
/* Device functions                                                          */
/* ------------------------------------------------------------------------- */
#define __syncthreads() cuda_sim::block_barrier(__FILE__, __LINE__, 0)
CUDA_SIM_NOTSAN static inline int cuda_sim_sync_count(int pred, const char *f, int l)
{
    cuda_sim::block_barrier(f, l, pred);
    return cuda_sim::S.fibers[cuda_sim::S.cur].pred;
}
#define __syncthreads_count(p) cuda_sim_sync_count((p) != 0, __FILE__, __LINE__)
#define __syncthreads_and(p) (cuda_sim_sync_count((p) != 0, __FILE__, __LINE__) == (int)(blockDim.x * blockDim.y * blockDim.z))
#define __syncthreads_or(p) (cuda_sim_sync_count((p) != 0, __FILE__, __LINE__) != 0)
CUDA_SIM_NOTSAN static inline unsigned cuda_sim_full_mask_of_warp()
{
    int lanes = cuda_sim::lane_count_in_warp(cuda_sim::S.cur);
    return lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1);
}
#define __syncwarp(...) cuda_sim_syncwarp(__FILE__, __LINE__, ##__VA_ARGS__)
CUDA_SIM_NOTSAN static inline void cuda_sim_syncwarp(const char *f, int l, unsigned mask = 0xffffffffu)
{
    cuda_sim::warp_wait(mask & cuda_sim_full_mask_of_warp(), f, l);
}

#define __shfl_sync(mask, var, src, ...) cuda_sim_shfl(0, mask, var, src, __FILE__, __LINE__, ##__VA_ARGS__)
#define __shfl_up_sync(mask, var, d, ...) cuda_sim_shfl(1, mask, var, d, __FILE__, __LINE__, ##__VA_ARGS__)
#define __shfl_down_sync(mask, var, d, ...) cuda_sim_shfl(2, mask, var, d, __FILE__, __LINE__, ##__VA_ARGS__)
#define __shfl_xor_sync(mask, var, d, ...) cuda_sim_shfl(3, mask, var, d, __FILE__, __LINE__, ##__VA_ARGS__)
#define __ballot_sync(mask, p) cuda_sim_ballot(mask, p, __FILE__, __LINE__)
#define __all_sync(mask, p) ((cuda_sim_ballot(mask, p, __FILE__, __LINE__) & (mask)) == ((mask) & cuda_sim_full_mask_of_warp()))
#define __any_sync(mask, p) (cuda_sim_ballot(mask, p, __FILE__, __LINE__) != 0)

template <class T> CUDA_SIM_NOTSAN static inline T cuda_sim_shfl(int how, unsigned mask, T var, int d, const char *f, int l, int width = 32)
{
    int lane = cuda_sim::S.cur % 32;
    int base = lane / width * width, src;
    switch (how) {
    case 0: src = base + ((d % width) + width) % width; break;
    case 1: src = lane - d < base ? lane : lane - d; break;
    case 2: src = lane + d >= base + width ? lane : lane + d; break;
    default: src = lane ^ d; if (src >= base + width || src < base) src = lane; break;
    }
    return cuda_sim::shfl_generic(mask & cuda_sim_full_mask_of_warp(), var, src, f, l);
}

CUDA_SIM_NOTSAN static inline unsigned cuda_sim_ballot(unsigned mask, int pred, const char *f, int l)
{
    const uint64_t *row = cuda_sim::warp_exchange(mask & cuda_sim_full_mask_of_warp(), (int)(pred != 0), f, l);
    unsigned bits = 0;
    for (int i = 0; i < 32; i++)
        if ((mask & cuda_sim_full_mask_of_warp() & (1u << i)) && row[i])
            bits |= 1u << i;
    return bits;
}
static inline unsigned __activemask() { return cuda_sim_full_mask_of_warp(); }

static inline void __threadfence() {}
static inline void __threadfence_block() {}
static inline void __threadfence_system() {}
template <class T> static inline T __ldg(const T *p) { return *p; }
/* The SM's cycle counter, in kernels: a count that moves on by 1009 cycles (about 1000, and
 * no round number) at every reading (one device-wide count: the simulated threads run one at
 * a time), so a kernel that spins until N cycles have passed (NVIDIA's clock_block) ends after
 * about N/1000 readings instead of spinning, thread after thread, for the GPU's time.
 * clock() in a kernel is the same count, 32 bits wide; on the host it is the C library's. */
inline unsigned long long cuda_sim_sm_cycles = 0;
static inline long long clock64() { return (long long)(cuda_sim_sm_cycles += 1009); }
static inline clock_t cuda_sim_clock()
{
    if (cuda_sim::S.in_kernel)
        return (clock_t)(unsigned)clock64();
    return (::clock)();
}
namespace std {
using ::cuda_sim_clock;
}
#define clock() cuda_sim_clock()

/* Atomics: the simulated threads of a process never preempt one another. */
#if defined(CUDA_SIM_PROFILE)
#define CUDA_SIM_PROF_ATOMIC(addr) \
    cuda_sim::prof_access((uintptr_t)__builtin_return_address(0), (addr), sizeof *(addr), 4 /* kAtomic */)
#else
#define CUDA_SIM_PROF_ATOMIC(addr) (void)0
#endif
#define CUDA_SIM_ATOMIC(name, T, expr) \
    CUDA_SIM_NOTSAN static inline T name(T *addr, T val) { CUDA_SIM_PROF_ATOMIC(addr); T old = *addr; *addr = (expr); return old; }
CUDA_SIM_ATOMIC(atomicAdd, int, old + val)
CUDA_SIM_ATOMIC(atomicAdd, unsigned int, old + val)
CUDA_SIM_ATOMIC(atomicAdd, unsigned long long int, old + val)
CUDA_SIM_ATOMIC(atomicAdd, float, old + val)
CUDA_SIM_ATOMIC(atomicAdd, double, old + val)
CUDA_SIM_ATOMIC(atomicSub, int, old - val)
CUDA_SIM_ATOMIC(atomicSub, unsigned int, old - val)
CUDA_SIM_ATOMIC(atomicExch, int, val)
CUDA_SIM_ATOMIC(atomicExch, unsigned int, val)
CUDA_SIM_ATOMIC(atomicExch, unsigned long long int, val)
CUDA_SIM_ATOMIC(atomicExch, float, val)
CUDA_SIM_ATOMIC(atomicMax, int, old > val ? old : val)
CUDA_SIM_ATOMIC(atomicMax, unsigned int, old > val ? old : val)
CUDA_SIM_ATOMIC(atomicMax, unsigned long long int, old > val ? old : val)
CUDA_SIM_ATOMIC(atomicMax, long long int, old > val ? old : val)
CUDA_SIM_ATOMIC(atomicMin, int, old < val ? old : val)
CUDA_SIM_ATOMIC(atomicMin, unsigned int, old < val ? old : val)
CUDA_SIM_ATOMIC(atomicMin, unsigned long long int, old < val ? old : val)
CUDA_SIM_ATOMIC(atomicMin, long long int, old < val ? old : val)
CUDA_SIM_ATOMIC(atomicAnd, int, old & val)
CUDA_SIM_ATOMIC(atomicAnd, unsigned int, old & val)
CUDA_SIM_ATOMIC(atomicAnd, unsigned long long int, old & val)
CUDA_SIM_ATOMIC(atomicOr, int, old | val)
CUDA_SIM_ATOMIC(atomicOr, unsigned int, old | val)
CUDA_SIM_ATOMIC(atomicOr, unsigned long long int, old | val)
CUDA_SIM_ATOMIC(atomicXor, int, old ^ val)
CUDA_SIM_ATOMIC(atomicXor, unsigned int, old ^ val)
CUDA_SIM_ATOMIC(atomicXor, unsigned long long int, old ^ val)
CUDA_SIM_ATOMIC(atomicInc, unsigned int, old >= val ? 0u : old + 1)
CUDA_SIM_ATOMIC(atomicDec, unsigned int, (old == 0 || old > val) ? val : old - 1)
#undef CUDA_SIM_ATOMIC
#define CUDA_SIM_CAS(T) \
    CUDA_SIM_NOTSAN static inline T atomicCAS(T *addr, T cmp, T val) { CUDA_SIM_PROF_ATOMIC(addr); T old = *addr; if (old == cmp) *addr = val; return old; }
CUDA_SIM_CAS(int)
CUDA_SIM_CAS(unsigned int)
CUDA_SIM_CAS(unsigned long long int)
CUDA_SIM_CAS(unsigned short int)
#undef CUDA_SIM_CAS

/* Math as CUDA's headers give it (the rest from <cmath>).  The fast-math intrinsics are the
 * precise functions (the simulator is for correctness).  glibc declares __expf, __sinf ...
 * as extern "C" without defining them for programs, so these are extern "C" inline too. */
extern "C" {
inline float __expf(float x) noexcept { return expf(x); }
inline float __exp10f(float x) noexcept { return powf(10.0f, x); }
inline float __logf(float x) noexcept { return logf(x); }
inline float __log2f(float x) noexcept { return log2f(x); }
inline float __log10f(float x) noexcept { return log10f(x); }
inline float __sinf(float x) noexcept { return sinf(x); }
inline float __cosf(float x) noexcept { return cosf(x); }
inline float __tanf(float x) noexcept { return tanf(x); }
inline void __sincosf(float x, float *s, float *c) noexcept { *s = sinf(x); *c = cosf(x); }
inline float __powf(float x, float y) noexcept { return powf(x, y); }
}
static inline float __fdividef(float x, float y) { return x / y; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
/* Bit reinterpretation, as memcpy does it. */
static inline long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, sizeof r); return r; }
static inline double __longlong_as_double(long long x) { double r; memcpy(&r, &x, sizeof r); return r; }
static inline int __float_as_int(float x) { int r; memcpy(&r, &x, sizeof r); return r; }
static inline float __int_as_float(int x) { float r; memcpy(&r, &x, sizeof r); return r; }
static inline unsigned int __float_as_uint(float x) { unsigned int r; memcpy(&r, &x, sizeof r); return r; }
static inline float __uint_as_float(unsigned int x) { float r; memcpy(&r, &x, sizeof r); return r; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
/* 24-bit products: the low 24 bits of each operand (signed: sign-extended), the low 32 bits
 * of the product */
static inline int __mul24(int a, int b)
{
    long long x = (long long)(int)((unsigned)a << 8) >> 8, y = (long long)(int)((unsigned)b << 8) >> 8;
    return (int)(unsigned)(x * y);
}
static inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffffu) * (b & 0xffffffu); }
/* the high halves of full products */
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned int __umulhi(unsigned int a, unsigned int b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
/* min and max by name and type */
static inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
static inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
/* averages without overflow, sums of absolute differences, bit reversal and friends */
static inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
static inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
static inline unsigned int __uhadd(unsigned int a, unsigned int b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
static inline unsigned int __urhadd(unsigned int a, unsigned int b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
static inline unsigned int __sad(int a, int b, unsigned int c) { return c + (unsigned)(a > b ? (long long)a - b : (long long)b - a); }
static inline unsigned int __usad(unsigned int a, unsigned int b, unsigned int c) { return c + (a > b ? a - b : b - a); }
static inline unsigned int __brev(unsigned int x)
{
    unsigned int r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
static inline unsigned long long __brevll(unsigned long long x)
{
    return (unsigned long long)__brev((unsigned)x) << 32 | __brev((unsigned)(x >> 32));
}
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
/* bytes of (y:x) picked by the low 3 bits of each nibble of s */
static inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    unsigned long long v = (unsigned long long)y << 32 | x;
    unsigned int r = 0;
    for (int i = 0; i < 4; i++)
        r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
static inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = (unsigned long long)hi << 32 | lo;
    return (unsigned)((v << (shift & 31)) >> 32);
}
static inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = (unsigned long long)hi << 32 | lo;
    return (unsigned)((v << (shift > 32 ? 32 : shift)) >> 32);
}
static inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = (unsigned long long)hi << 32 | lo;
    return (unsigned)(v >> (shift & 31));
}
static inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = (unsigned long long)hi << 32 | lo;
    return (unsigned)(v >> (shift > 32 ? 32 : shift));
}
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
static inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }

/* ------------------------------------------------------------------------- */
/* Runtime API                                                               */
/* ------------------------------------------------------------------------- */
CUDA_SIM_API_FN const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    default: return "unknown error";
    }
}
CUDA_SIM_API_FN const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorAssert: return "cudaErrorAssert";
    case cudaErrorCooperativeLaunchTooLarge: return "cudaErrorCooperativeLaunchTooLarge";
    default: return "cudaErrorUnknown";
    }
}
CUDA_SIM_API_FN cudaError_t cudaGetLastError(void)
{
    CUDA_SIM_API;
    cudaError_t e = cuda_sim::S.last_error;
    cuda_sim::S.last_error = cuda_sim::S.sticky; /* a sticky error is never cleared */
    return e;
}
CUDA_SIM_API_FN cudaError_t cudaPeekAtLastError(void) { CUDA_SIM_API; return cuda_sim::S.last_error; }

/* assert() in a kernel: as on a GPU, the thread prints where and which (with its block and
 * thread), the kernel stops, and the context is left with the sticky cudaErrorAssert, which
 * every later synchronization returns.  On the host it is glibc's assert. */
extern "C" [[noreturn]] inline void __assert_fail(const char *expr, const char *file, unsigned int line,
                                                 const char *func) noexcept
{
    using namespace cuda_sim;
    if (!S.in_kernel || S.cur < 0) {
        fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file, line, func,
                expr);
        abort();
    }
    const uint3 &t = S.fibers[S.cur].tid;
    fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line, func,
            S.cur_block.x, S.cur_block.y, S.cur_block.z, t.x, t.y, t.z, expr);
    S.sticky = S.last_error = cudaErrorAssert;
    S.kernel_aborted = true;
    fiber_exit();
}

CUDA_SIM_API_FN cudaError_t cuda_sim_malloc(void **p, size_t size, int host)
{
    CUDA_SIM_API;
    using namespace cuda_sim;
    init();
    if (!p)
        return fail(cudaErrorInvalidValue);
    *p = nullptr;
    if (size == 0)
        return cudaSuccess;
    size_t data = (size + S.page - 1) / S.page * S.page;
    size_t len = data + 2 * S.page;
    void *m = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return fail(cudaErrorMemoryAllocation);
    Alloc a;
    a.base = (char *)m;
    a.map_len = len;
    a.size = size;
    a.ptr = a.base + S.page + data - size; /* ends exactly at the back guard page */
    a.host = host;
    if (host == 1 || (host == 2 && S.managed_open) || (host == 0 && S.dev_open))
        mprotect(a.base + S.page, data, PROT_READ | PROT_WRITE);
    S.allocs.push_back(a);
    *p = a.ptr;
    return cudaSuccess;
}
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t size) { return cuda_sim_malloc((void **)p, size, 0); }
template <class T> static inline cudaError_t cudaMallocHost(T **p, size_t size) { return cuda_sim_malloc((void **)p, size, 1); }
template <class T> static inline cudaError_t cudaHostAlloc(T **p, size_t size, unsigned) { return cuda_sim_malloc((void **)p, size, 1); }
template <class T> static inline cudaError_t cudaMallocManaged(T **p, size_t size, unsigned = 1) { return cuda_sim_malloc((void **)p, size, 2); }

CUDA_SIM_API_FN cudaError_t cuda_sim_free(void *p, int host, bool wait = true)
{
    CUDA_SIM_API;
    using namespace cuda_sim;
    init();
    if (!p)
        return cudaSuccess;
    if (wait)
        complete_all(); /* cudaFree waits for the device's queued work */
    for (size_t i = 0; i < S.allocs.size(); i++) {
        if (S.allocs[i].ptr == (char *)p) {
            if (S.allocs[i].host != host && !(host == 0 && S.allocs[i].host))
                return fail(cudaErrorInvalidValue);
            munmap(S.allocs[i].base, S.allocs[i].map_len);
            S.allocs.erase(S.allocs.begin() + (long)i);
            return cudaSuccess;
        }
    }
    return fail(host ? cudaErrorInvalidValue : cudaErrorInvalidDevicePointer);
}
CUDA_SIM_API_FN cudaError_t cudaFree(void *p) { return cuda_sim_free(p, 0); }
CUDA_SIM_API_FN cudaError_t cudaFreeHost(void *p) { return cuda_sim_free(p, 1); }

/* Stream-ordered allocation: cudaMallocAsync allocates at once (the memory is ready for the
 * stream's later work, and for the host only after a synchronization, as on a GPU);
 * cudaFreeAsync frees when the stream reaches it.  One memory pool per device, whose
 * attributes are kept and read back but change nothing. */
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
enum cudaMemPoolAttr {
    cudaMemPoolReuseFollowEventDependencies = 1,
    cudaMemPoolReuseAllowOpportunistic = 2,
    cudaMemPoolReuseAllowInternalDependencies = 3,
    cudaMemPoolAttrReleaseThreshold = 4,
    cudaMemPoolAttrReservedMemCurrent = 5,
    cudaMemPoolAttrReservedMemHigh = 6,
    cudaMemPoolAttrUsedMemCurrent = 7,
    cudaMemPoolAttrUsedMemHigh = 8
};
inline unsigned long long cuda_sim_pool_attrs[9];
CUDA_SIM_API_FN cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device)
{
    CUDA_SIM_API;
    if (!pool)
        return cuda_sim::fail(cudaErrorInvalidValue);
    if (device != 0)
        return cuda_sim::fail(cudaErrorInvalidDevice);
    *pool = (cudaMemPool_t)cuda_sim_pool_attrs;
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device) { return cudaDeviceGetDefaultMemPool(pool, device); }
CUDA_SIM_API_FN cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void *value)
{
    CUDA_SIM_API;
    if (!pool || !value || attr < 1 || attr > 8)
        return cuda_sim::fail(cudaErrorInvalidValue);
    cuda_sim_pool_attrs[attr] = attr == cudaMemPoolAttrReleaseThreshold ? *(unsigned long long *)value : *(int *)value;
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void *value)
{
    CUDA_SIM_API;
    if (!pool || !value || attr < 1 || attr > 8)
        return cuda_sim::fail(cudaErrorInvalidValue);
    if (attr <= 3)
        *(int *)value = (int)cuda_sim_pool_attrs[attr];
    else
        *(unsigned long long *)value = cuda_sim_pool_attrs[attr];
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t) { CUDA_SIM_API; return pool ? cudaSuccess : cuda_sim::fail(cudaErrorInvalidValue); }
template <class T> static inline cudaError_t cudaMallocAsync(T **p, size_t size, cudaStream_t)
{
    CUDA_SIM_API;
    return cuda_sim_malloc((void **)p, size, 0);
}
template <class T> static inline cudaError_t cudaMallocFromPoolAsync(T **p, size_t size, cudaMemPool_t, cudaStream_t s)
{
    CUDA_SIM_API;
    return cudaMallocAsync(p, size, s);
}
CUDA_SIM_API_FN cudaError_t cudaFreeAsync(void *p, cudaStream_t stream, const char *file = __builtin_FILE(),
                                        int line = __builtin_LINE())
{
    CUDA_SIM_API;
    using namespace cuda_sim;
    init();
    if (!p)
        return cudaSuccess;
    const Alloc *a = find_alloc(p, false);
    if (!a || a->ptr != (char *)p || a->host != 0)
        return fail(cudaErrorInvalidValue);
    enqueue(stream, "cudaFreeAsync", file, line, false, [p]() { cuda_sim_free(p, 0, false); });
    return cudaSuccess;
}

/* What memory a pointer points into: device (cudaMalloc), pinned host (cudaMallocHost),
 * managed (cudaMallocManaged), or memory the runtime did not allocate (unregistered). */
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
struct cudaPointerAttributes {
    enum cudaMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
};
CUDA_SIM_API_FN cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attr, const void *p)
{
    CUDA_SIM_API;
    using namespace cuda_sim;
    init();
    if (!attr)
        return fail(cudaErrorInvalidValue);
    const Alloc *a = find_alloc(p, false);
    attr->device = 0;
    attr->type = !a ? cudaMemoryTypeUnregistered : a->host == 2 ? cudaMemoryTypeManaged
                 : a->host ? cudaMemoryTypeHost : cudaMemoryTypeDevice;
    attr->devicePointer = a && a->host != 1 ? (void *)p : nullptr;
    attr->hostPointer = !a || a->host ? (void *)p : nullptr;
    if (!a)
        attr->device = -2;
    return cudaSuccess;
}

/* Is [p, p+n) device memory (1), host memory (0), or partly a device allocation (-1)? */
CUDA_SIM_API_FN int cuda_sim_where(const void *p, size_t n)
{
    const cuda_sim::Alloc *a = cuda_sim::find_alloc(p, true);
    if (!a || a->host)
        return 0;
    const char *c = (const char *)p;
    return (c >= a->ptr && c + n <= a->ptr + a->size) ? 1 : -1;
}

/* The checks of a copy: 0 when it may go ahead, else the error.  *managed: it touches
 * managed memory. */
CUDA_SIM_API_FN cudaError_t cuda_sim_copy_check(void *dst, const void *src, size_t n, cudaMemcpyKind kind, bool *managed)
{
    using namespace cuda_sim;
    int d = cuda_sim_where(dst, n), s = cuda_sim_where(src, n);
    if (d < 0 || s < 0 || !dst || !src)
        return cudaErrorInvalidValue;
    /* pinned and managed host memory is the device's too (unified addressing: zero-copy) */
    const Alloc *rd = find_alloc(dst, false), *rs = find_alloc(src, false);
    bool dd = d || (rd && rd->host), sd = s || (rs && rs->host);
    bool ok = kind == cudaMemcpyDefault || (kind == cudaMemcpyHostToHost && !d && !s) ||
              (kind == cudaMemcpyHostToDevice && dd && !s) || (kind == cudaMemcpyDeviceToHost && !d && sd) ||
              (kind == cudaMemcpyDeviceToDevice && dd && sd);
    if (kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (!ok)
        return cudaErrorInvalidValue;
    const Alloc *ad = find_alloc(dst, false), *as = find_alloc(src, false);
    *managed = (ad && ad->host == 2) || (as && as->host == 2);
    return cudaSuccess;
}
/* Pageable host memory: not from cudaMallocHost or cudaMallocManaged. */
CUDA_SIM_API_FN bool cuda_sim_pageable(const void *p) { return !cuda_sim::find_alloc(p, false); }

CUDA_SIM_API_FN void cuda_sim_do_copy(void *dst, const void *src, size_t n)
{
    /* the work record: device memory and pinned or managed host memory are the GPU's side */
    const cuda_sim::Alloc *ad = cuda_sim::find_alloc(dst, false), *as = cuda_sim::find_alloc(src, false);
    bool dd = ad && !ad->host, sd = as && !as->host;
    (dd && sd ? cuda_sim::W.d2d : dd ? cuda_sim::W.h2d : sd ? cuda_sim::W.d2h : cuda_sim::W.h2h_unused) += n;
    cuda_sim::open_device();
    memmove(dst, src, n);
    cuda_sim::close_device();
}

/* A blocking copy: on the legacy default stream, so after the work queued there and on the
 * blocking streams, and done when it returns. */
CUDA_SIM_API_FN cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
    CUDA_SIM_API;
    using namespace cuda_sim;
    init();
    if (n == 0)
        return cudaSuccess;
    bool managed;
    cudaError_t e = cuda_sim_copy_check(dst, src, n, kind, &managed);
    if (e != cudaSuccess)
        return fail(e);
    complete_legacy();
    if (S.sticky != cudaSuccess)
        return synced();
    cuda_sim_do_copy(dst, src, n);
    return cudaSuccess;
}
/* Queued on the stream: it reads and writes when it runs.  As on a GPU, a copy into
 * pageable host memory is done when the call returns, and one from pageable host memory
 * has taken its data by then. */
CUDA_SIM_API_FN cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind kind,
                                          cudaStream_t stream = 0, const char *file = __builtin_FILE(),
                                          int line = __builtin_LINE())
{
    CUDA_SIM_API;
    using namespace cuda_sim;
    init();
    if (n == 0)
        return cudaSuccess;
    bool managed;
    cudaError_t e = cuda_sim_copy_check(dst, src, n, kind, &managed);
    if (e != cudaSuccess)
        return fail(e);
    OpRef op;
    if (cuda_sim_pageable(src)) {
        auto data = std::make_shared<std::vector<char>>((const char *)src, (const char *)src + n);
        op = enqueue(stream, "cudaMemcpyAsync", file, line, managed,
                     [dst, data]() { cuda_sim_do_copy(dst, data->data(), data->size()); });
    } else {
        op = enqueue(stream, "cudaMemcpyAsync", file, line, managed, [dst, src, n]() { cuda_sim_do_copy(dst, src, n); });
    }
    if (cuda_sim_pageable(dst))
        complete(op);
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cuda_sim_memset_check(void *dst, size_t n, bool *managed)
{
    using namespace cuda_sim;
    const Alloc *a = find_alloc(dst, false);
    if (cuda_sim_where(dst, n) != 1 && !(a && a->host))
        return cudaErrorInvalidValue;
    *managed = a && a->host == 2;
    return cudaSuccess;
}
/* Asynchronous for device memory (queued on the legacy default stream), as on a GPU. */
CUDA_SIM_API_FN cudaError_t cudaMemsetAsync(void *dst, int value, size_t n, cudaStream_t stream = 0,
                                          const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    CUDA_SIM_API;
    using namespace cuda_sim;
    init();
    if (n == 0)
        return cudaSuccess;
    bool managed;
    cudaError_t e = cuda_sim_memset_check(dst, n, &managed);
    if (e != cudaSuccess)
        return fail(e);
    OpRef op = enqueue(stream, "cudaMemset", file, line, managed, [dst, value, n]() {
        open_device();
        memset(dst, value, n);
        close_device();
    });
    const Alloc *a = find_alloc(dst, false);
    if (a && a->host == 1)
        complete(op); /* pinned host memory: done when it returns */
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaMemset(void *dst, int value, size_t n, const char *file = __builtin_FILE(),
                                     int line = __builtin_LINE())
{
    CUDA_SIM_API;
    return cudaMemsetAsync(dst, value, n, 0, file, line);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(T &symbol, const void *src, size_t n, size_t offset = 0,
                                             cudaMemcpyKind = cudaMemcpyHostToDevice)
{
    CUDA_SIM_API;
    if (offset + n > sizeof(T))
        return cuda_sim::fail(cudaErrorInvalidValue);
    cuda_sim::complete_legacy();
    memcpy((char *)&symbol + offset, src, n);
    return cudaSuccess;
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t n, size_t offset = 0,
                                               cudaMemcpyKind = cudaMemcpyDeviceToHost)
{
    CUDA_SIM_API;
    if (offset + n > sizeof(T))
        return cuda_sim::fail(cudaErrorInvalidValue);
    cuda_sim::complete_legacy();
    memcpy(dst, (const char *)&symbol + offset, n);
    return cudaSuccess;
}

CUDA_SIM_API_FN cudaError_t cudaDeviceSynchronize(void) { CUDA_SIM_API; cuda_sim::complete_all(); return cuda_sim::synced(); }
CUDA_SIM_API_FN cudaError_t cudaDeviceReset(void)
{
    CUDA_SIM_API;
    cuda_sim::complete_all();
    cuda_sim::S.sticky = cuda_sim::S.last_error = cudaSuccess; /* a new context */
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaThreadSynchronize(void) { CUDA_SIM_API; cuda_sim::complete_all(); return cuda_sim::synced(); }
CUDA_SIM_API_FN cudaError_t cudaGetDeviceCount(int *n) { CUDA_SIM_API; if (!n) return cuda_sim::fail(cudaErrorInvalidValue); *n = 1; return cudaSuccess; }
CUDA_SIM_API_FN cudaError_t cudaSetDevice(int d) { CUDA_SIM_API; return d == 0 ? cudaSuccess : cuda_sim::fail(cudaErrorInvalidDevice); }
CUDA_SIM_API_FN cudaError_t cudaGetDevice(int *d) { CUDA_SIM_API; if (!d) return cuda_sim::fail(cudaErrorInvalidValue); *d = 0; return cudaSuccess; }
CUDA_SIM_API_FN cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d)
{
    CUDA_SIM_API;
    if (!p)
        return cuda_sim::fail(cudaErrorInvalidValue);
    if (d != 0)
        return cuda_sim::fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "CUDA CPU simulator");
    p->totalGlobalMem = (size_t)4 << 30;
    p->sharedMemPerBlock = 48 * 1024;
    p->sharedMemPerBlockOptin = 48 * 1024;
    p->sharedMemPerMultiprocessor = 64 * 1024;
    p->regsPerBlock = p->regsPerMultiprocessor = 65536;
    p->warpSize = 32;
    p->memPitch = (size_t)2147483647;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024; p->maxThreadsDim[1] = 1024; p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647; p->maxGridSize[1] = 65535; p->maxGridSize[2] = 65535;
    p->clockRate = 1000000;
    p->totalConstMem = 65536;
    p->major = 7;
    p->minor = 5;
    p->textureAlignment = 512;
    p->multiProcessorCount = 1;
    p->maxThreadsPerMultiProcessor = 1024;
    p->maxBlocksPerMultiProcessor = 16;
    p->concurrentKernels = 0;
    p->asyncEngineCount = 0;
    p->unifiedAddressing = 1;
    p->managedMemory = 1;
    p->cooperativeLaunch = 1;
    p->canMapHostMemory = 1;
    p->memoryBusWidth = 64;
    p->memoryClockRate = 1000000;
    p->l2CacheSize = 1 << 20;
    p->persistingL2CacheMaxSize = 3 << 18; /* 3/4 of the L2 may be set aside (no cache is simulated) */
    p->accessPolicyMaxWindowSize = 1 << 27;
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr attr, int d)
{
    CUDA_SIM_API;
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, d);
    if (e != cudaSuccess || !v)
        return e != cudaSuccess ? e : cuda_sim::fail(cudaErrorInvalidValue);
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrWarpSize: *v = 32; break;
    case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
    case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
    case cudaDevAttrClockRate: *v = p.clockRate; break;
    case cudaDevAttrIntegrated: *v = 0; break;
    case cudaDevAttrCanMapHostMemory: *v = 1; break;
    case cudaDevAttrComputeMode: *v = cudaComputeModeDefault; break;
    case cudaDevAttrConcurrentKernels: *v = 0; break;
    case cudaDevAttrGpuOverlap: *v = p.deviceOverlap; break;
    case cudaDevAttrMemoryPoolsSupported: *v = 1; break;
    case cudaDevAttrAsyncEngineCount: *v = 0; break;
    case cudaDevAttrUnifiedAddressing: *v = 1; break;
    case cudaDevAttrManagedMemory: *v = 1; break;
    case cudaDevAttrConcurrentManagedAccess: *v = 0; break;
    case cudaDevAttrCooperativeLaunch: *v = 1; break; /* (cudaLaunchCooperativeKernel, up to 1024 threads) */
    default: return cuda_sim::fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total)
{
    CUDA_SIM_API;
    if (free_b) *free_b = (size_t)4 << 30;
    if (total) *total = (size_t)4 << 30;
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaRuntimeGetVersion(int *v) { *v = CUDART_VERSION; return cudaSuccess; }
CUDA_SIM_API_FN cudaError_t cudaDriverGetVersion(int *v) { *v = CUDART_VERSION; return cudaSuccess; }

/* Streams and events: work is queued (see cuda_sim::Op) and runs when something waits
 * for it.  A query waits too (and so always answers cudaSuccess). */
CUDA_SIM_API_FN cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    CUDA_SIM_API;
    static int next = 16;
    if (!s) return cuda_sim::fail(cudaErrorInvalidValue);
    *s = new CUstream_st{next++, flags, {}};
    cuda_sim::S.streams.push_back(*s);
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, cudaStreamDefault); }
/* L2 access policies and stream attributes: accepted and kept, with no effect (the simulator
 * has no cache, and one stream's work runs no sooner than another's). */
enum cudaAccessProperty { cudaAccessPropertyNormal = 0, cudaAccessPropertyStreaming = 1, cudaAccessPropertyPersisting = 2 };
struct cudaAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    enum cudaAccessProperty hitProp, missProp;
};
enum cudaSynchronizationPolicy { cudaSyncPolicyAuto = 1, cudaSyncPolicySpin = 2, cudaSyncPolicyYield = 3, cudaSyncPolicyBlockingSync = 4 };
union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    enum cudaSynchronizationPolicy syncPolicy;
    int priority;
};
typedef union cudaLaunchAttributeValue cudaStreamAttrValue;
typedef union cudaLaunchAttributeValue cudaKernelNodeAttrValue;
enum cudaLaunchAttributeID {
    cudaLaunchAttributeAccessPolicyWindow = 1,
    cudaLaunchAttributeSynchronizationPolicy = 3,
    cudaLaunchAttributePriority = 8
};
typedef enum cudaLaunchAttributeID cudaStreamAttrID;
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributePriority cudaLaunchAttributePriority
inline cudaStreamAttrValue cuda_sim_stream_attrs[9];
CUDA_SIM_API_FN cudaError_t cudaStreamSetAttribute(cudaStream_t, cudaStreamAttrID id, const cudaStreamAttrValue *v)
{
    CUDA_SIM_API;
    if (!v || (int)id < 1 || (int)id > 8)
        return cuda_sim::fail(cudaErrorInvalidValue);
    cuda_sim_stream_attrs[id] = *v;
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaStreamGetAttribute(cudaStream_t, cudaStreamAttrID id, cudaStreamAttrValue *v)
{
    CUDA_SIM_API;
    if (!v || (int)id < 1 || (int)id > 8)
        return cuda_sim::fail(cudaErrorInvalidValue);
    *v = cuda_sim_stream_attrs[id];
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

CUDA_SIM_API_FN cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int)
{
    CUDA_SIM_API;
    return cudaStreamCreateWithFlags(s, flags);
}
CUDA_SIM_API_FN cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    CUDA_SIM_API;
    using namespace cuda_sim;
    if (!s || s == cudaStreamLegacy || s == cudaStreamPerThread) return fail(cudaErrorInvalidResourceHandle);
    auto it = std::find(S.streams.begin(), S.streams.end(), s);
    if (it == S.streams.end()) return fail(cudaErrorInvalidResourceHandle);
    S.streams.erase(it);
    if (s->last && !s->last->done && blocking(s))
        S.orphans.push_back(s->last); /* its work still runs, and the legacy stream still waits for it */
    delete s;
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    CUDA_SIM_API;
    using namespace cuda_sim;
    CUstream_st *st = stream_of(s);
    if (st == &S.legacy)
        complete_legacy();
    else
        complete(st->last);
    return synced();
}
CUDA_SIM_API_FN cudaError_t cudaStreamQuery(cudaStream_t s) { return cudaStreamSynchronize(s); }
CUDA_SIM_API_FN cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned *flags)
{
    CUDA_SIM_API;
    if (!flags) return cuda_sim::fail(cudaErrorInvalidValue);
    *flags = cuda_sim::stream_of(s)->flags;
    return cudaSuccess;
}

CUDA_SIM_API_FN cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    CUDA_SIM_API;
    if (!e) return cuda_sim::fail(cudaErrorInvalidValue);
    *e = new CUevent_st{0.0, 0, {}};
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { return cudaEventCreate(e); }
CUDA_SIM_API_FN cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
/* A marker on the stream: it takes its time when the work queued before it has run. */
CUDA_SIM_API_FN cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0, const char *file = __builtin_FILE(),
                                          int line = __builtin_LINE())
{
    CUDA_SIM_API;
    if (!e) return cuda_sim::fail(cudaErrorInvalidResourceHandle);
    e->recorded = 0;
    e->op = cuda_sim::enqueue(s, "cudaEventRecord", nullptr, line, false, [e]() {
        e->t = cuda_sim::now();
        e->recorded = 1;
    });
    (void)file;
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s = 0, unsigned = 0)
{
    CUDA_SIM_API;
    return cudaEventRecord(e, s);
}
CUDA_SIM_API_FN cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    CUDA_SIM_API;
    if (!e) return cuda_sim::fail(cudaErrorInvalidResourceHandle);
    cuda_sim::complete(e->op);
    return cuda_sim::synced();
}
CUDA_SIM_API_FN cudaError_t cudaEventQuery(cudaEvent_t e) { return cudaEventSynchronize(e); }
/* Later work on s waits for the event's marker (the work queued before it on its stream). */
CUDA_SIM_API_FN cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned = 0)
{
    CUDA_SIM_API;
    if (!e) return cuda_sim::fail(cudaErrorInvalidResourceHandle);
    cuda_sim::OpRef marker = e->op;
    cuda_sim::OpRef wait = cuda_sim::enqueue(s, "cudaStreamWaitEvent", nullptr, 0, false, []() {});
    if (marker && !marker->done)
        wait->deps.push_back(marker);
    return cudaSuccess;
}
/* As on a GPU: cudaErrorNotReady while an event's work has not run (its stream not
 * synchronized: cudaEventSynchronize(stop) before reading the time). */
CUDA_SIM_API_FN cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    CUDA_SIM_API;
    if (!ms || !a || !b) return cuda_sim::fail(cudaErrorInvalidValue);
    if (!a->op || !b->op) return cuda_sim::fail(cudaErrorInvalidResourceHandle);
    if (!a->recorded || !b->recorded) return cudaErrorNotReady; /* not an error: cudaGetLastError keeps quiet */
    *ms = (float)((b->t - a->t) * 1e3);
    return cudaSuccess;
}

/* A host function queued on a stream: it runs in order with the stream's work. */
typedef void (*cudaHostFn_t)(void *);
CUDA_SIM_API_FN cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *data)
{
    CUDA_SIM_API;
    if (!fn) return cuda_sim::fail(cudaErrorInvalidValue);
    cuda_sim::queued_host_fn(cuda_sim::enqueue(s, "cudaLaunchHostFunc", nullptr, 0, false, [fn, data]() { fn(data); }));
    return cudaSuccess;
}
typedef void (*cudaStreamCallback_t)(cudaStream_t, cudaError_t, void *);
CUDA_SIM_API_FN cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *data, unsigned)
{
    CUDA_SIM_API;
    if (!cb) return cuda_sim::fail(cudaErrorInvalidValue);
    cuda_sim::queued_host_fn(
        cuda_sim::enqueue(s, "cudaStreamAddCallback", nullptr, 0, false, [s, cb, data]() { cb(s, cudaSuccess, data); }));
    return cudaSuccess;
}

/* ---- smaller APIs ---- */
/* Pitched (2D) memory: rows padded to a pitch of a multiple of 512 bytes, as on a GPU. */
CUDA_SIM_API_FN cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height)
{
    CUDA_SIM_API;
    if (!p || !pitch)
        return cuda_sim::fail(cudaErrorInvalidValue);
    *pitch = (width + 511) / 512 * 512;
    return cuda_sim_malloc(p, *pitch * height, 0);
}
template <class T> static inline cudaError_t cudaMallocPitch(T **p, size_t *pitch, size_t width, size_t height)
{
    CUDA_SIM_API;
    return cudaMallocPitch((void **)p, pitch, width, height);
}
/* height rows of width bytes, each pitch bytes after the one before; every row checked as a
 * copy of its own, all of them one operation on the stream. */
CUDA_SIM_API_FN cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                            size_t height, cudaMemcpyKind kind, cudaStream_t stream = 0,
                                            const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    CUDA_SIM_API;
    using namespace cuda_sim;
    init();
    if (width == 0 || height == 0)
        return cudaSuccess;
    if (dpitch < width || spitch < width)
        return fail(cudaErrorInvalidValue);
    bool managed = false;
    for (size_t r = 0; r < height; r++) {
        bool m;
        cudaError_t e = cuda_sim_copy_check((char *)dst + r * dpitch, (const char *)src + r * spitch, width, kind, &m);
        if (e != cudaSuccess)
            return fail(e);
        managed = managed || m;
    }
    OpRef op = enqueue(stream, "cudaMemcpy2DAsync", file, line, managed, [=]() {
        for (size_t r = 0; r < height; r++)
            cuda_sim_do_copy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    });
    if (cuda_sim_pageable(dst) || cuda_sim_pageable(src))
        complete(op); /* (pageable host memory: done at the call, as a copy from it takes its data) */
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, cudaMemcpyKind kind)
{
    CUDA_SIM_API;
    cuda_sim::complete_legacy();
    cudaError_t e = cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, 0);
    cuda_sim::complete_legacy();
    return e;
}
CUDA_SIM_API_FN cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int value, size_t width, size_t height,
                                            cudaStream_t stream = 0)
{
    CUDA_SIM_API;
    if (pitch < width)
        return cuda_sim::fail(cudaErrorInvalidValue);
    for (size_t r = 0; r < height; r++) {
        cudaError_t e = cudaMemsetAsync((char *)p + r * pitch, value, width, stream);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaMemset2D(void *p, size_t pitch, int value, size_t width, size_t height)
{
    CUDA_SIM_API;
    return cudaMemset2DAsync(p, pitch, value, width, height, 0);
}

/* Occupancy: the simulated device has one multiprocessor of 1024 threads. */
template <class F>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block, F, size_t = 0, int limit = 0)
{
    CUDA_SIM_API;
    if (!min_grid || !block)
        return cuda_sim::fail(cudaErrorInvalidValue);
    *block = limit > 0 && limit < 1024 ? limit : 1024;
    *min_grid = 1;
    return cudaSuccess;
}
template <class F>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, F, int block_size, size_t = 0)
{
    CUDA_SIM_API;
    if (!blocks || block_size <= 0)
        return cuda_sim::fail(cudaErrorInvalidValue);
    *blocks = 1024 / block_size > 0 ? 1024 / block_size : 0;
    return cudaSuccess;
}
enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9
};
/* The dynamic shared memory a launch may use, opted into (up to 227 KiB, an H100's). */
template <class F> static inline cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute attr, int value)
{
    CUDA_SIM_API;
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || (size_t)value > 227 * 1024)
            return cuda_sim::fail(cudaErrorInvalidValue);
        if ((size_t)value > cuda_sim::S.shared_optin)
            cuda_sim::S.shared_optin = (size_t)value;
    }
    return cudaSuccess;
}
enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2, cudaFuncCachePreferEqual = 3 };
template <class F> static inline cudaError_t cudaFuncSetCacheConfig(F, cudaFuncCache) { return cudaSuccess; }
/* A kernel's attributes: what a compiled kernel would report, where the simulator has no
 * compiled kernel (no registers, no local memory; its static shared memory is not known). */
struct cudaFuncAttributes {
    size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
    int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes,
        preferredShmemCarveout, clusterDimMustBeSet, requiredClusterWidth, requiredClusterHeight,
        requiredClusterDepth, clusterSchedulingPolicyPreference, nonPortableClusterSizeAllowed, reserved[16];
};
template <class F> static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, F f)
{
    CUDA_SIM_API;
    if (!a || !f)
        return cuda_sim::fail(cudaErrorInvalidValue);
    memset(a, 0, sizeof *a);
    a->maxThreadsPerBlock = 1024;
    a->ptxVersion = a->binaryVersion = 90;
    a->maxDynamicSharedSizeBytes = (int)(48 * 1024 > cuda_sim::S.shared_optin ? 48 * 1024 : cuda_sim::S.shared_optin);
    a->preferredShmemCarveout = -1;
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
enum cudaLimit {
    cudaLimitStackSize = 0,
    cudaLimitPrintfFifoSize = 1,
    cudaLimitMallocHeapSize = 2,
    cudaLimitDevRuntimeSyncDepth = 3,
    cudaLimitDevRuntimePendingLaunchCount = 4,
    cudaLimitMaxL2FetchGranularity = 5,
    cudaLimitPersistingL2CacheSize = 6
};
CUDA_SIM_API_FN cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value)
{
    CUDA_SIM_API;
    if ((int)limit < 0 || (int)limit > 6)
        return cuda_sim::fail(cudaErrorInvalidValue);
    cuda_sim::S.limits[limit] = value;
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit)
{
    CUDA_SIM_API;
    if (!value || (int)limit < 0 || (int)limit > 6)
        return cuda_sim::fail(cudaErrorInvalidValue);
    static const size_t defaults[3] = { 1024, 1 << 20, 8 << 20 };
    *value = cuda_sim::S.limits[limit] ? cuda_sim::S.limits[limit] : defaults[limit];
    return cudaSuccess;
}
/* A launch through the runtime's call, with the kernel's own type (not cast to void *):
 * args[i] points to the i-th argument. */
template <class... P, size_t... I>
static inline std::tuple<std::decay_t<P>...> cuda_sim_launch_args(void **args, std::index_sequence<I...>)
{
    return std::tuple<std::decay_t<P>...>(*(std::decay_t<P> *)args[I]...);
}
template <class... P>
static inline cudaError_t cudaLaunchKernel(void (*f)(P...), dim3 grid, dim3 block, void **args, size_t shmem = 0,
                                           cudaStream_t stream = 0, const char *file = __builtin_FILE(),
                                           int line = __builtin_LINE())
{
    CUDA_SIM_API;
    if (sizeof...(P) > 0 && !args)
        return cuda_sim::fail(cudaErrorInvalidValue);
    auto tuple = cuda_sim_launch_args<P...>(args, std::index_sequence_for<P...>{});
    cuda_sim::S.last_error = cudaSuccess;
    cuda_sim::queue_launch(cuda_sim::cfg(grid, block, shmem, stream, file, line),
                           [f, tuple]() mutable { std::apply(f, tuple); });
    cudaError_t e = cuda_sim::S.last_error;
    cuda_sim::S.last_error = cudaSuccess;
    return e;
}
/* A cooperative launch: its kernel may sync the whole grid (cooperative_groups'
 * this_grid().sync()).  Every block must then be resident at once: on the simulated GPU (one
 * multiprocessor of 1024 threads, as cudaOccupancyMaxActiveBlocksPerMultiprocessor says) at
 * most 1024 threads in all, else cudaErrorCooperativeLaunchTooLarge, as a GPU says when the
 * grid exceeds what fits. */
template <class... P>
static inline cudaError_t cudaLaunchCooperativeKernel(void (*f)(P...), dim3 grid, dim3 block, void **args,
                                                      size_t shmem = 0, cudaStream_t stream = 0,
                                                      const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    CUDA_SIM_API;
    if (sizeof...(P) > 0 && !args)
        return cuda_sim::fail(cudaErrorInvalidValue);
    cudaError_t e = cuda_sim::check_config(grid, block, shmem);
    if (e != cudaSuccess)
        return cuda_sim::fail(e);
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if ((unsigned long long)grid.x * grid.y * grid.z > 1024 / threads)
        return cuda_sim::fail(cudaErrorCooperativeLaunchTooLarge);
    auto tuple = cuda_sim_launch_args<P...>(args, std::index_sequence_for<P...>{});
    cuda_sim::S.last_error = cudaSuccess;
    cuda_sim::queue_launch(cuda_sim::cfg(grid, block, shmem, stream, file, line),
                           [f, tuple]() mutable { std::apply(f, tuple); }, nullptr, true);
    e = cuda_sim::S.last_error;
    cuda_sim::S.last_error = cudaSuccess;
    return e;
}
/* Managed memory hints: nothing to move in one address space.  A prefetch is queued on its
 * stream (the managed memory stays closed to the host until it has run). */
CUDA_SIM_API_FN cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t stream = 0)
{
    CUDA_SIM_API;
    cuda_sim::enqueue(stream, "cudaMemPrefetchAsync", nullptr, 0, false, []() {});
    return cudaSuccess;
}
enum cudaMemoryAdvise { cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2, cudaMemAdviseSetPreferredLocation = 3,
                        cudaMemAdviseUnsetPreferredLocation = 4, cudaMemAdviseSetAccessedBy = 5, cudaMemAdviseUnsetAccessedBy = 6 };
CUDA_SIM_API_FN cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise, int) { return cudaSuccess; }
CUDA_SIM_API_FN cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void *, size_t = 0, unsigned = cudaMemAttachSingle)
{
    CUDA_SIM_API;
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaSetDeviceFlags(unsigned) { return cudaSuccess; }
CUDA_SIM_API_FN cudaError_t cudaGetDeviceFlags(unsigned *flags) { if (flags) *flags = 0; return cudaSuccess; }
/* CUDA 13's forms: a location instead of a device number */
enum cudaMemLocationType { cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeDevice = 1, cudaMemLocationTypeHost = 2,
                           cudaMemLocationTypeHostNuma = 3, cudaMemLocationTypeHostNumaCurrent = 4 };
struct cudaMemLocation {
    cudaMemLocationType type;
    int id;
};
CUDA_SIM_API_FN cudaError_t cudaMemPrefetchAsync(const void *p, size_t n, cudaMemLocation, unsigned, cudaStream_t stream = 0)
{
    CUDA_SIM_API;
    return cudaMemPrefetchAsync(p, n, 0, stream);
}
CUDA_SIM_API_FN cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise, cudaMemLocation) { return cudaSuccess; }
#define cudaCpuDeviceId (-1)
/* Pinning host memory the program allocated: nothing to do (every host page is reachable). */
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
CUDA_SIM_API_FN cudaError_t cudaHostRegister(void *p, size_t, unsigned) { CUDA_SIM_API; return p ? cudaSuccess : cuda_sim::fail(cudaErrorInvalidValue); }
/* Zero-copy: the device reaches mapped pinned host memory at the same address (as with
 * unified addressing on a GPU). */
template <class T> static inline cudaError_t cudaHostGetDevicePointer(T **dev, void *host, unsigned flags)
{
    CUDA_SIM_API;
    if (!dev || !host || flags != 0)
        return cuda_sim::fail(cudaErrorInvalidValue);
    *dev = (T *)host;
    return cudaSuccess;
}
CUDA_SIM_API_FN cudaError_t cudaHostUnregister(void *p) { CUDA_SIM_API; return p ? cudaSuccess : cuda_sim::fail(cudaErrorInvalidValue); }

/* Atomics scoped to a block or the system: the simulated threads never preempt one another,
 * so they are the plain ones. */
#define CUDA_SIM_SCOPED(name)                                                                     \
    template <class T, class V> static inline T name##_block(T *a, V v) { return name(a, (T)v); } \
    template <class T, class V> static inline T name##_system(T *a, V v) { return name(a, (T)v); }
CUDA_SIM_SCOPED(atomicAdd)
CUDA_SIM_SCOPED(atomicSub)
CUDA_SIM_SCOPED(atomicExch)
CUDA_SIM_SCOPED(atomicMax)
CUDA_SIM_SCOPED(atomicMin)
CUDA_SIM_SCOPED(atomicAnd)
CUDA_SIM_SCOPED(atomicOr)
CUDA_SIM_SCOPED(atomicXor)
CUDA_SIM_SCOPED(atomicInc)
CUDA_SIM_SCOPED(atomicDec)
#undef CUDA_SIM_SCOPED
template <class T, class C, class V> static inline T atomicCAS_block(T *a, C c, V v) { return atomicCAS(a, (T)c, (T)v); }
template <class T, class C, class V> static inline T atomicCAS_system(T *a, C c, V v) { return atomicCAS(a, (T)c, (T)v); }

/* Rounding-mode intrinsics: the operation in that IEEE rounding mode (rn nearest, rz toward
 * zero, ru up, rd down). */
static inline int cuda_sim_round_mode(char m) { return m == 'z' ? FE_TOWARDZERO : m == 'u' ? FE_UPWARD : m == 'd' ? FE_DOWNWARD : FE_TONEAREST; }
template <class T, class Op> static inline T cuda_sim_rounded(char mode, T a, T b, Op op)
{
    int was = fegetround();
    fesetround(cuda_sim_round_mode(mode));
    volatile T x = a, y = b;
    volatile T r = op(x, y);
    fesetround(was);
    return r;
}
#define CUDA_SIM_ROUNDED(suffix, mode)                                                                                 \
    static inline float __fadd_##suffix(float a, float b) { return cuda_sim_rounded(mode, a, b, [](float x, float y) { return x + y; }); } \
    static inline float __fsub_##suffix(float a, float b) { return cuda_sim_rounded(mode, a, b, [](float x, float y) { return x - y; }); } \
    static inline float __fdiv_##suffix(float a, float b) { return cuda_sim_rounded(mode, a, b, [](float x, float y) { return x / y; }); } \
    static inline double __dadd_##suffix(double a, double b) { return cuda_sim_rounded(mode, a, b, [](double x, double y) { return x + y; }); } \
    static inline double __dsub_##suffix(double a, double b) { return cuda_sim_rounded(mode, a, b, [](double x, double y) { return x - y; }); } \
    static inline double __dmul_##suffix(double a, double b) { return cuda_sim_rounded(mode, a, b, [](double x, double y) { return x * y; }); } \
    static inline double __ddiv_##suffix(double a, double b) { return cuda_sim_rounded(mode, a, b, [](double x, double y) { return x / y; }); }
CUDA_SIM_ROUNDED(rz, 'z')
CUDA_SIM_ROUNDED(ru, 'u')
CUDA_SIM_ROUNDED(rd, 'd')
#undef CUDA_SIM_ROUNDED
/* square roots, reciprocals and fused multiply-adds in each rounding mode (rn: to nearest) */
#define CUDA_SIM_ROUNDED1(suffix, mode)                                                                                \
    static inline float __fsqrt_##suffix(float a) { return cuda_sim_rounded(mode, a, a, [](float x, float) { return sqrtf(x); }); } \
    static inline float __frcp_##suffix(float a) { return cuda_sim_rounded(mode, a, a, [](float x, float) { return 1.0f / x; }); } \
    static inline double __dsqrt_##suffix(double a) { return cuda_sim_rounded(mode, a, a, [](double x, double) { return sqrt(x); }); } \
    static inline double __drcp_##suffix(double a) { return cuda_sim_rounded(mode, a, a, [](double x, double) { return 1.0 / x; }); } \
    static inline float __fmaf_##suffix(float a, float b, float c)                                                   \
    {                                                                                                                  \
        return cuda_sim_rounded(mode, a, b, [c](float x, float y) { return fmaf(x, y, c); });                        \
    }                                                                                                                  \
    static inline double __fma_##suffix(double a, double b, double c)                                                \
    {                                                                                                                  \
        return cuda_sim_rounded(mode, a, b, [c](double x, double y) { return fma(x, y, c); });                       \
    }
CUDA_SIM_ROUNDED1(rn, 'n')
CUDA_SIM_ROUNDED1(rz, 'z')
CUDA_SIM_ROUNDED1(ru, 'u')
CUDA_SIM_ROUNDED1(rd, 'd')
#undef CUDA_SIM_ROUNDED1
static inline float __fmul_rz(float a, float b) { return cuda_sim_rounded('z', a, b, [](float x, float y) { return x * y; }); }
static inline float __fmul_ru(float a, float b) { return cuda_sim_rounded('u', a, b, [](float x, float y) { return x * y; }); }
static inline float __fmul_rd(float a, float b) { return cuda_sim_rounded('d', a, b, [](float x, float y) { return x * y; }); }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }

#if defined(CUDA_SIM_THRUST) /* simcc: this file includes <thrust/...> */
namespace cuda_sim {
inline const bool thrust_mode_on = thrust_mode();
} // namespace cuda_sim
#endif

#if defined(CUDA_SIM_PROFILE) /* simcc --profile */
#include "cuda_sim_profile.h"
#endif

#endif /* CUDA_SIM_H */
