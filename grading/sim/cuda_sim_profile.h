/*
 * cuda_sim_profile.h -- the simulator's profiler (simcc --profile): what a GPU's memory
 * system would see of each kernel, counted from the accesses the kernel's code makes as
 * compiled.  Included at the end of cuda_sim.h when CUDA_SIM_PROFILE is defined.
 *
 * How the accesses are seen: simcc --profile compiles the program with GCC's
 * ThreadSanitizer instrumentation (-fsanitize=thread) but links none of TSan's run time.
 * The instrumentation calls __tsan_read4(addr), __tsan_write8(addr) ... before every load
 * and store; this file defines those functions.  Outside a kernel they return at once.
 * Inside one, an access to device memory (cudaMalloc, cudaMallocManaged) or to shared
 * memory is recorded with its instruction (the call's return address), its address and
 * size and the simulated thread that made it.  The simulator's own code is not
 * instrumented (CUDA_SIM_NOTSAN); atomics are counted where they are called.
 *
 * The rules (a GPU's, as the CUDA C++ Programming Guide gives them):
 *   - a warp is 32 consecutive threads of a block (thread index x + y*bx + z*bx*by);
 *   - the k-th execution of one instruction by the lanes of a warp is one request;
 *   - a global request touches 32-byte sectors: the distinct addr/32 of every byte the
 *     lanes access (a coalesced float load: 4 sectors; a stride-32 one: 32), addresses
 *     counted from a 256-byte aligned start of their allocation, as cudaMalloc gives it;
 *   - a shared request needs wavefronts: shared memory has 32 banks of 4-byte words
 *     (bank = (addr/4) mod 32); lanes that read the same word share it (a broadcast);
 *     the request takes as many wavefronts as the most distinct words any one bank
 *     holds (1: no bank conflict; 32: a 32-way conflict);
 *   - an atomic is one operation per lane; lanes of one request on the same address
 *     serialise (atomic_conflicts: the largest such group, summed over requests).
 *
 * At exit, one line per kernel (in the order of their first launch) on stderr, or into
 * the file named by CUDA_SIM_PROFILE_OUT (where "%p" in it becomes the process id: one file
 * per MPI rank):
 *   profile KERNEL launches=N ld_requests=N ld_sectors=N st_requests=N st_sectors=N
 *     shared_ld_requests=N shared_ld_wavefronts=N shared_st_requests=N
 *     shared_st_wavefronts=N atomics=N atomic_conflicts=N ld_bytes=N st_bytes=N worst=FILE:LINE
 * worst: the source line of the instruction with the most sectors (global) or wavefronts
 * (shared) per request beyond the least it could need, or "-" (addr2line names it).
 */
#ifndef CUDA_SIM_PROFILE_H
#define CUDA_SIM_PROFILE_H

#include <dlfcn.h>
#include <map>
#include <string>

namespace cuda_sim {

/* One access of a simulated thread to device or shared memory. */
struct ProfAccess {
    uintptr_t pc;   /* the instruction: the instrumentation call's return address */
    uintptr_t addr;
    uint16_t tid;   /* the thread's linear index in its block */
    uint8_t size;   /* bytes */
    uint8_t flags;  /* kStore, kShared, kAtomic */
};
constexpr uint8_t kStore = 1, kShared = 2, kAtomic = 4;

struct ProfCounts {
    uint64_t launches = 0, ld_requests = 0, ld_sectors = 0, st_requests = 0, st_sectors = 0;
    uint64_t sh_ld_requests = 0, sh_ld_wavefronts = 0, sh_st_requests = 0, sh_st_wavefronts = 0;
    uint64_t atomics = 0, atomic_conflicts = 0, ld_bytes = 0, st_bytes = 0;
    /* the worst instruction: its excess (units beyond the least possible), requests, pc */
    std::map<uintptr_t, std::pair<uint64_t, uint64_t>> excess; /* pc -> (excess units, requests) */
    int order = 0;
};

struct Prof {
    std::vector<ProfAccess> acc;  /* this block's */
    std::map<std::string, ProfCounts> kernels;
    ProfCounts *cur = nullptr;
    int nkernels = 0;
    size_t dyn = 0; /* this launch's dynamic shared bytes */
};
inline Prof P;

CUDA_SIM_NOTSAN inline bool prof_shared(uintptr_t a)
{
    uintptr_t s0 = (uintptr_t)__start_cuda_sim_shared, s1 = (uintptr_t)__stop_cuda_sim_shared;
    if (s0 && a >= s0 && a < s1)
        return true;
    uintptr_t d = (uintptr_t)cuda_sim_dynamic_shared_storage;
    if (a >= d && a < d + P.dyn)
        return true;
    for (int i = 0; i < S.nshared_extra; i++)
        if (a >= (uintptr_t)S.shared_extra[i] && a < (uintptr_t)S.shared_extra[i] + S.shared_extra_len[i])
            return true;
    return false;
}
/* A device address as a GPU would have it, or 0 when a is not device memory.  The
 * simulator's allocations end at a guard page, so their start is aligned only as their
 * size is; a GPU's start at a multiple of 256 bytes.  Sectors are counted on the offset
 * from the allocation's start, the allocation's number above it (no two alias). */
CUDA_SIM_NOTSAN inline uintptr_t prof_global(uintptr_t a)
{
    size_t n = S.allocs.size();
    const Alloc *x = S.allocs.data();
    for (size_t i = 0; i < n; i++)
        if (x[i].host != 1 && a >= (uintptr_t)x[i].ptr && a < (uintptr_t)x[i].ptr + x[i].size)
            return ((uintptr_t)(i + 1) << 40) + (a - (uintptr_t)x[i].ptr);
    return 0;
}

/* (the library code this calls, std::vector's, is instrumented too: its accesses come back
 * here while one is recorded, and are not the kernel's) */
inline bool prof_busy = false;
CUDA_SIM_NOTSAN inline void prof_access(uintptr_t pc, const void *p, size_t size, uint8_t flags)
{
    if (prof_busy || !S.in_kernel || S.cur < 0 || !P.cur)
        return;
    prof_busy = true;
    uintptr_t a = (uintptr_t)p;
    if (prof_shared(a))
        flags |= kShared;
    else if ((a = prof_global(a)) == 0)
        flags = 0xff; /* a local variable, a constant, host memory: not counted */
    if (flags != 0xff)
        P.acc.push_back(ProfAccess{pc, a, (uint16_t)S.cur, (uint8_t)(size > 255 ? 255 : size), flags});
    prof_busy = false;
}

CUDA_SIM_NOTSAN inline void prof_launch(const char *name, size_t dyn)
{
    std::string key = name && *name ? name : "kernel";
    auto it = P.kernels.find(key);
    if (it == P.kernels.end()) {
        it = P.kernels.emplace(key, ProfCounts{}).first;
        it->second.order = P.nkernels++;
    }
    P.cur = &it->second;
    P.cur->launches++;
    P.dyn = dyn;
}

/* The block's accesses, grouped into requests and counted (see the rules above). */
CUDA_SIM_NOTSAN inline void prof_block_done()
{
    if (!P.cur || P.acc.empty()) {
        P.acc.clear();
        return;
    }
    ProfCounts &c = *P.cur;
    std::vector<ProfAccess> &v = P.acc;
    /* by warp, instruction, space and kind; each lane's executions keep their order */
    std::stable_sort(v.begin(), v.end(), [](const ProfAccess &x, const ProfAccess &y) {
        if (x.tid / 32 != y.tid / 32)
            return x.tid / 32 < y.tid / 32;
        if (x.pc != y.pc)
            return x.pc < y.pc;
        return x.flags < y.flags;
    });
    size_t i = 0;
    std::vector<std::vector<const ProfAccess *>> reqs;
    while (i < v.size()) {
        size_t j = i;
        while (j < v.size() && v[j].tid / 32 == v[i].tid / 32 && v[j].pc == v[i].pc && v[j].flags == v[i].flags)
            j++;
        /* the k-th execution by each lane: request k */
        unsigned seen[32] = {};
        reqs.clear();
        for (size_t k = i; k < j; k++) {
            unsigned n = seen[v[k].tid % 32]++;
            if (n >= reqs.size())
                reqs.resize(n + 1);
            reqs[n].push_back(&v[k]);
        }
        uint8_t flags = v[i].flags;
        uint64_t units = 0, least = 0;
        for (auto &r : reqs) {
            if (flags & kAtomic) {
                c.atomics += r.size();
                /* lanes on one address serialise: the largest group */
                size_t most = 1;
                for (size_t a = 0; a < r.size(); a++) {
                    size_t same = 0;
                    for (size_t b = 0; b < r.size(); b++)
                        same += r[b]->addr == r[a]->addr;
                    most = std::max(most, same);
                }
                c.atomic_conflicts += most - 1;
                continue;
            }
            if (flags & kShared) {
                /* distinct 4-byte words per bank; the request takes the most any bank holds */
                uint64_t words[32 * 32];
                int nw = 0;
                for (auto *x : r)
                    for (uintptr_t w = x->addr / 4; w <= (x->addr + x->size - 1) / 4 && nw < 32 * 32; w++) {
                        bool dup = false;
                        for (int q = 0; q < nw && !dup; q++)
                            dup = words[q] == w;
                        if (!dup)
                            words[nw++] = w;
                    }
                int per_bank[32] = {};
                int most = 1;
                for (int q = 0; q < nw; q++)
                    most = std::max(most, ++per_bank[words[q] % 32]);
                /* the least: every word in its own bank, 32 a wavefront */
                uint64_t need = (uint64_t)(nw + 31) / 32;
                units += (uint64_t)most;
                least += need;
                if (flags & kStore) {
                    c.sh_st_requests++;
                    c.sh_st_wavefronts += (uint64_t)most;
                } else {
                    c.sh_ld_requests++;
                    c.sh_ld_wavefronts += (uint64_t)most;
                }
            } else {
                /* distinct 32-byte sectors of every byte the lanes access */
                uint64_t secs[32 * 8];
                int ns = 0;
                uint64_t bytes = 0;
                for (auto *x : r) {
                    bytes += x->size;
                    for (uintptr_t s = x->addr / 32; s <= (x->addr + x->size - 1) / 32 && ns < 32 * 8; s++) {
                        bool dup = false;
                        for (int q = 0; q < ns && !dup; q++)
                            dup = secs[q] == s;
                        if (!dup)
                            secs[ns++] = s;
                    }
                }
                uint64_t need = (bytes + 31) / 32;
                units += (uint64_t)ns;
                least += std::min<uint64_t>(need, (uint64_t)ns);
                if (flags & kStore) {
                    c.st_requests++;
                    c.st_sectors += (uint64_t)ns;
                    c.st_bytes += bytes;
                } else {
                    c.ld_requests++;
                    c.ld_sectors += (uint64_t)ns;
                    c.ld_bytes += bytes;
                }
            }
        }
        if (!(flags & kAtomic)) {
            auto &e = c.excess[v[i].pc];
            e.first += units - least;
            e.second += reqs.size();
        }
        i = j;
    }
    v.clear();
}

/* "file:line" of an instruction (addr2line on this executable), or "-". */
inline std::string prof_where(uintptr_t pc)
{
    Dl_info info;
    if (!dladdr((void *)pc, &info) || !info.dli_fname)
        return "-";
    char cmd[4400];
    /* the call's return address is the next instruction: one byte back is inside the call */
    snprintf(cmd, sizeof cmd, "addr2line -e '%s' 0x%lx 2>/dev/null", info.dli_fname,
             (unsigned long)(pc - 1 - (uintptr_t)info.dli_fbase));
    FILE *f = popen(cmd, "r");
    if (!f)
        return "-";
    char line[4096] = "";
    char *got = fgets(line, sizeof line, f);
    pclose(f);
    if (!got || line[0] == '?')
        return "-";
    line[strcspn(line, "\n (")] = '\0';
    const char *base = strrchr(line, '/');
    return base ? base + 1 : line;
}

inline void prof_write()
{
    if (P.kernels.empty())
        return;
    const char *path = getenv("CUDA_SIM_PROFILE_OUT");
    std::string file = path ? path : "";
    size_t at = file.find("%p"); /* a process's own file: %p is its process id (MPI ranks) */
    if (at != std::string::npos)
        file.replace(at, 2, std::to_string((long)getpid()));
    FILE *f = !file.empty() ? fopen(file.c_str(), "w") : stderr;
    if (!f)
        f = stderr;
    std::vector<std::pair<int, const std::pair<const std::string, ProfCounts> *>> order;
    for (auto &k : P.kernels)
        order.push_back({k.second.order, &k});
    std::sort(order.begin(), order.end());
    for (auto &o : order) {
        const std::string &name = o.second->first;
        const ProfCounts &c = o.second->second;
        uintptr_t worst = 0;
        uint64_t worst_excess = 0;
        for (auto &e : c.excess)
            if (e.second.first > worst_excess) {
                worst_excess = e.second.first;
                worst = e.first;
            }
        std::string where = worst ? prof_where(worst) : "-";
        std::string shown = name;
        for (char &ch : shown)
            if (ch == ' ' || ch == '\t')
                ch = '_';
        fprintf(f,
                "profile %s launches=%llu ld_requests=%llu ld_sectors=%llu st_requests=%llu st_sectors=%llu "
                "shared_ld_requests=%llu shared_ld_wavefronts=%llu shared_st_requests=%llu "
                "shared_st_wavefronts=%llu atomics=%llu atomic_conflicts=%llu ld_bytes=%llu st_bytes=%llu worst=%s\n",
                shown.c_str(), (unsigned long long)c.launches, (unsigned long long)c.ld_requests,
                (unsigned long long)c.ld_sectors, (unsigned long long)c.st_requests,
                (unsigned long long)c.st_sectors, (unsigned long long)c.sh_ld_requests,
                (unsigned long long)c.sh_ld_wavefronts, (unsigned long long)c.sh_st_requests,
                (unsigned long long)c.sh_st_wavefronts, (unsigned long long)c.atomics,
                (unsigned long long)c.atomic_conflicts, (unsigned long long)c.ld_bytes,
                (unsigned long long)c.st_bytes, where.c_str());
    }
    if (f != stderr)
        fclose(f);
}
inline int prof_at_exit = (atexit(prof_write), 0);

} // namespace cuda_sim

/* ThreadSanitizer's instrumentation entry points, defined here instead of by libtsan. */
#define CUDA_SIM_PROF_HOOK __attribute__((weak, used, no_sanitize_thread, noinline))
#define CUDA_SIM_PROF_RW(n)                                                                          \
    extern "C" CUDA_SIM_PROF_HOOK void __tsan_read##n(void *p)                                       \
    {                                                                                                \
        cuda_sim::prof_access((uintptr_t)__builtin_return_address(0), p, n, 0);                      \
    }                                                                                                \
    extern "C" CUDA_SIM_PROF_HOOK void __tsan_write##n(void *p)                                      \
    {                                                                                                \
        cuda_sim::prof_access((uintptr_t)__builtin_return_address(0), p, n, cuda_sim::kStore);       \
    }                                                                                                \
    extern "C" CUDA_SIM_PROF_HOOK void __tsan_unaligned_read##n(void *p)                             \
    {                                                                                                \
        cuda_sim::prof_access((uintptr_t)__builtin_return_address(0), p, n, 0);                      \
    }                                                                                                \
    extern "C" CUDA_SIM_PROF_HOOK void __tsan_unaligned_write##n(void *p)                            \
    {                                                                                                \
        cuda_sim::prof_access((uintptr_t)__builtin_return_address(0), p, n, cuda_sim::kStore);       \
    }                                                                                                \
    extern "C" CUDA_SIM_PROF_HOOK void __tsan_volatile_read##n(void *p)                              \
    {                                                                                                \
        cuda_sim::prof_access((uintptr_t)__builtin_return_address(0), p, n, 0);                      \
    }                                                                                                \
    extern "C" CUDA_SIM_PROF_HOOK void __tsan_volatile_write##n(void *p)                             \
    {                                                                                                \
        cuda_sim::prof_access((uintptr_t)__builtin_return_address(0), p, n, cuda_sim::kStore);       \
    }
CUDA_SIM_PROF_RW(1)
CUDA_SIM_PROF_RW(2)
CUDA_SIM_PROF_RW(4)
CUDA_SIM_PROF_RW(8)
CUDA_SIM_PROF_RW(16)
#undef CUDA_SIM_PROF_RW
extern "C" CUDA_SIM_PROF_HOOK void __tsan_read_range(void *p, long n)
{
    cuda_sim::prof_access((uintptr_t)__builtin_return_address(0), p, (size_t)n, 0);
}
extern "C" CUDA_SIM_PROF_HOOK void __tsan_write_range(void *p, long n)
{
    cuda_sim::prof_access((uintptr_t)__builtin_return_address(0), p, n, cuda_sim::kStore);
}
extern "C" CUDA_SIM_PROF_HOOK void __tsan_init(void) {}
extern "C" CUDA_SIM_PROF_HOOK void __tsan_func_entry(void *) {}
extern "C" CUDA_SIM_PROF_HOOK void __tsan_func_exit(void *) {}
extern "C" CUDA_SIM_PROF_HOOK void __tsan_vptr_update(void *, void *) {}
extern "C" CUDA_SIM_PROF_HOOK void __tsan_vptr_read(void *) {}
extern "C" CUDA_SIM_PROF_HOOK void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" CUDA_SIM_PROF_HOOK void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
/* atomics the host code uses (libstdc++'s shared_ptr, std::atomic): done, not counted */
#define CUDA_SIM_PROF_ATOMICS(n, T)                                                                  \
    extern "C" CUDA_SIM_PROF_HOOK T __tsan_atomic##n##_load(const volatile void *a, int)             \
    {                                                                                                \
        return __atomic_load_n((const volatile T *)a, __ATOMIC_SEQ_CST);                             \
    }                                                                                                \
    extern "C" CUDA_SIM_PROF_HOOK void __tsan_atomic##n##_store(volatile void *a, T v, int)          \
    {                                                                                                \
        __atomic_store_n((volatile T *)a, v, __ATOMIC_SEQ_CST);                                      \
    }                                                                                                \
    CUDA_SIM_PROF_RMW(n, T, exchange, __atomic_exchange_n)                                           \
    CUDA_SIM_PROF_RMW(n, T, fetch_add, __atomic_fetch_add)                                           \
    CUDA_SIM_PROF_RMW(n, T, fetch_sub, __atomic_fetch_sub)                                           \
    CUDA_SIM_PROF_RMW(n, T, fetch_and, __atomic_fetch_and)                                           \
    CUDA_SIM_PROF_RMW(n, T, fetch_or, __atomic_fetch_or)                                             \
    CUDA_SIM_PROF_RMW(n, T, fetch_xor, __atomic_fetch_xor)                                           \
    CUDA_SIM_PROF_RMW(n, T, fetch_nand, __atomic_fetch_nand)                                         \
    extern "C" CUDA_SIM_PROF_HOOK bool __tsan_atomic##n##_compare_exchange_strong(volatile void *a, void *c, T v, \
                                                                                  int, int)         \
    {                                                                                                \
        return __atomic_compare_exchange_n((volatile T *)a, (T *)c, v, false, __ATOMIC_SEQ_CST,      \
                                           __ATOMIC_SEQ_CST);                                        \
    }                                                                                                \
    extern "C" CUDA_SIM_PROF_HOOK bool __tsan_atomic##n##_compare_exchange_weak(volatile void *a, void *c, T v, \
                                                                                int, int)           \
    {                                                                                                \
        return __atomic_compare_exchange_n((volatile T *)a, (T *)c, v, true, __ATOMIC_SEQ_CST,       \
                                           __ATOMIC_SEQ_CST);                                        \
    }                                                                                                \
    extern "C" CUDA_SIM_PROF_HOOK T __tsan_atomic##n##_compare_exchange_val(volatile void *a, T c, T v, int, int) \
    {                                                                                                \
        __atomic_compare_exchange_n((volatile T *)a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        return c;                                                                                    \
    }
#define CUDA_SIM_PROF_RMW(n, T, op, builtin)                                                         \
    extern "C" CUDA_SIM_PROF_HOOK T __tsan_atomic##n##_##op(volatile void *a, T v, int)              \
    {                                                                                                \
        return builtin((volatile T *)a, v, __ATOMIC_SEQ_CST);                                        \
    }
CUDA_SIM_PROF_ATOMICS(8, unsigned char)
CUDA_SIM_PROF_ATOMICS(16, unsigned short)
CUDA_SIM_PROF_ATOMICS(32, unsigned int)
CUDA_SIM_PROF_ATOMICS(64, unsigned long)
#undef CUDA_SIM_PROF_RMW
#undef CUDA_SIM_PROF_ATOMICS

#endif
