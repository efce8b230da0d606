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
 * per MPI rank).  CUDA_SIM_PROFILE=0 switches the profiler off: nothing is recorded or
 * printed, and the program runs nearly as fast as without --profile (the grader builds a
 * task once with it, and switches it on for one run only).  The lines:
 *   profile KERNEL launches=N ld_requests=N ld_sectors=N st_requests=N st_sectors=N
 *     shared_ld_requests=N shared_ld_wavefronts=N shared_st_requests=N
 *     shared_st_wavefronts=N atomics=N atomic_conflicts=N ld_bytes=N st_bytes=N barriers=N
 *     partial_requests=N worst=FILE:LINE
 *     block=N shared_dynamic=N registers=N shared_static=N gpu=NAME blocks_per_sm=N
 *     occupancy=F occupancy_limit=WHAT
 * block, shared_dynamic: the threads of a block and the dynamic shared bytes of the kernel's
 * last launch.  registers, shared_static: per thread and per block, as ptxas compiled the
 * kernel for sm_90 (simcc links them in where it finds nvcc; else "registers=- occupancy=-"
 * ends the line).  occupancy: the warps of the blocks that fit on one multiprocessor of the
 * GPU named by CUDA_SIM_GPU (H100 by default; A100, L4, T4), over the most it holds, and
 * occupancy_limit what stops more blocks: threads, blocks, registers or shared_memory.
 * barriers: the __syncthreads() each warp ran, every warp's together; partial_requests: the
 * requests (global, shared or atomic) in which some lanes of the warp took no part: the
 * lanes a divergent branch or a loop's tail left out.
 * worst: the source line of the instruction with the most sectors (global) or wavefronts
 * (shared) per request beyond the least it could need, or "-" (addr2line names it).
 */
#ifndef CUDA_SIM_PROFILE_H
#define CUDA_SIM_PROFILE_H

#include <dlfcn.h>
#include <strings.h>
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
    uint32_t epoch; /* the __syncthreads() its thread had passed (the race checker) */
    uint32_t wepoch; /* the warp-synchronous calls its thread had made (the race checker) */
};
constexpr uint8_t kStore = 1, kShared = 2, kAtomic = 4;

struct ProfCounts {
    uint64_t launches = 0, ld_requests = 0, ld_sectors = 0, st_requests = 0, st_sectors = 0;
    uint64_t sh_ld_requests = 0, sh_ld_wavefronts = 0, sh_st_requests = 0, sh_st_wavefronts = 0;
    uint64_t atomics = 0, atomic_conflicts = 0, ld_bytes = 0, st_bytes = 0;
    uint64_t barriers = 0;         /* __syncthreads() a warp ran, every warp's together */
    uint64_t partial_requests = 0; /* requests some of the warp's lanes took no part in */
    int block = 0;          /* the threads of a block, at the kernel's last launch */
    size_t dyn_shared = 0;  /* its dynamic shared bytes, at that launch */
    /* the worst instruction: its excess (units beyond the least possible), requests, pc */
    std::map<uintptr_t, std::pair<uint64_t, uint64_t>> excess; /* pc -> (excess units, requests) */
    int order = 0;
};

struct Prof {
    /* this block's accesses (a plain buffer: the profiler's own code is not instrumented,
     * and GCC inlines no instrumented library code into it) */
    ProfAccess *acc = nullptr;
    size_t nacc = 0, cap = 0;
    std::map<std::string, ProfCounts> kernels;
    ProfCounts *cur = nullptr;
    int nkernels = 0;
    size_t dyn = 0; /* this launch's dynamic shared bytes */
    const char *name = ""; /* the kernel running */
    uint32_t epoch[1024] = {}, wepoch[1024] = {}; /* each thread's barriers and warp calls so far */
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
inline size_t prof_last_alloc = 0; /* where the last access was found: most hit it again */
CUDA_SIM_NOTSAN inline uintptr_t prof_global(uintptr_t a)
{
    size_t n = S.allocs.size();
    const Alloc *x = S.allocs.data();
    size_t c = prof_last_alloc;
    if (c < n && x[c].host != 1 && a >= (uintptr_t)x[c].ptr && a < (uintptr_t)x[c].ptr + x[c].size)
        return ((uintptr_t)(c + 1) << 40) + (a - (uintptr_t)x[c].ptr);
    for (size_t i = 0; i < n; i++)
        if (x[i].host != 1 && a >= (uintptr_t)x[i].ptr && a < (uintptr_t)x[i].ptr + x[i].size) {
            prof_last_alloc = i;
            return ((uintptr_t)(i + 1) << 40) + (a - (uintptr_t)x[i].ptr);
        }
    return 0;
}

/* (the library code this calls, std::vector's, is instrumented too: its accesses come back
 * here while one is recorded, and are not the kernel's) */
inline bool prof_busy = false;
/* CUDA_SIM_PROFILE=0 in the environment: nothing is recorded or printed (the program runs
 * almost as fast as one built without --profile) */
inline bool prof_off = [] {
    const char *e = getenv("CUDA_SIM_PROFILE");
    return e && strcmp(e, "0") == 0;
}();
CUDA_SIM_NOTSAN inline void prof_access(uintptr_t pc, const void *p, size_t size, uint8_t flags)
{
    if (prof_off || prof_busy || !S.in_kernel || S.cur < 0 || !P.cur)
        return;
    prof_busy = true;
    uintptr_t a = (uintptr_t)p;
    if (prof_shared(a))
        flags |= kShared;
    else if ((a = prof_global(a)) == 0)
        flags = 0xff; /* a local variable, a constant, host memory: not counted */
    if (flags != 0xff)
    {
        if (P.nacc == P.cap) {
            size_t cap = P.cap ? 2 * P.cap : 1 << 16;
            ProfAccess *bigger = (ProfAccess *)realloc(P.acc, cap * sizeof *bigger);
            if (!bigger) {
                fprintf(stderr, "cuda_sim: the profiler ran out of memory\n");
                abort();
            }
            P.acc = bigger, P.cap = cap;
        }
        P.acc[P.nacc++] = ProfAccess{pc, a, (uint16_t)S.cur, (uint8_t)(size > 255 ? 255 : size), flags,
                                     P.epoch[S.cur], P.wepoch[S.cur]};
    }
    prof_busy = false;
}

/* A __syncthreads() by the running thread: counted once a warp (its first lane's). */
CUDA_SIM_NOTSAN inline void prof_barrier()
{
    if (prof_off || !P.cur || S.cur < 0)
        return;
    if (S.cur % 32 == 0)
        P.cur->barriers++;
    P.epoch[S.cur]++;
}

/* A warp-synchronous call (__syncwarp, a shuffle, a vote) by the running thread. */
CUDA_SIM_NOTSAN inline void prof_warp_sync()
{
    if (!prof_off && P.cur && S.cur >= 0)
        P.wepoch[S.cur]++;
}

#if defined(CUDA_SIM_RACECHECK)
/* ---- the race checker (simcc --racecheck): the same accesses, checked for races ----
 * Within a block: two accesses to the same byte of shared or global memory by two threads,
 * at least one a write, neither an atomic, between the same two __syncthreads() of their
 * threads, are a race, unless the two threads are lanes of one warp that a warp-synchronous
 * call (__syncwarp, a shuffle, a vote) separated.  Found from every access of the block
 * after it ran, so whatever order its threads ran in.  Between blocks (global memory, one
 * launch): a word written by one block and read or written by another, a word's first
 * access and first write kept (at most kRaceWords words a launch).  A race is reported
 * once per pair of source lines, on stderr, with both lines and both threads; the program
 * then exits with status 66. */
struct RaceKey {
    uint64_t word;  /* addr / 4, shared memory's tagged apart from global's */
    uint32_t epoch; /* the barrier interval */
    uint32_t i;     /* the access (an index into the block's) */
};
struct RaceWord { /* between blocks: one word of global memory in this launch */
    uint64_t word;
    uintptr_t pc1, pcw;         /* its first access's instruction, its first write's */
    uint32_t stamp;             /* the launch that filled it (0: empty) */
    uint32_t b1, bw;            /* their blocks (bw: ~0u, none) */
    uint16_t t1, tw;            /* their threads */
    uint8_t m1, mw;             /* the bytes of the word each touched */
    uint8_t w1;                 /* the first access was a write */
};
constexpr size_t kRaceWords = (size_t)1 << 20;
CUDA_SIM_RT std::string prof_where(uintptr_t pc);
struct Race {
    std::vector<RaceKey> keys;
    std::vector<RaceWord> words;  /* open addressing, a power of two; grows up to 2 * kRaceWords */
    size_t nwords = 0;
    uint32_t stamp = 0, block = 0; /* block: the running one's linear index */
    bool words_full = false;
    int reports = 0;
    std::vector<std::pair<uintptr_t, uintptr_t>> seen; /* the pairs of lines reported */
    std::vector<std::string> full_noted; /* the kernels whose words passed kRaceWords, told once */
};
inline Race R;

CUDA_SIM_NOTSAN CUDA_SIM_RT void race_launch()
{
    if (++R.stamp == 0) {
        for (RaceWord &w : R.words)
            w.stamp = 0;
        R.stamp = 1;
    }
    R.nwords = 0;
    R.words_full = false;
}

/* "(x,y,z)" of a thread's linear index in its block */
CUDA_SIM_NOTSAN CUDA_SIM_RT std::string race_thread(unsigned tid)
{
    unsigned bx = blockDim.x ? blockDim.x : 1, by = blockDim.y ? blockDim.y : 1;
    char buf[64];
    snprintf(buf, sizeof buf, "(%u,%u,%u)", tid % bx, tid / bx % by, tid / (bx * by));
    return buf;
}

CUDA_SIM_NOTSAN CUDA_SIM_RT void race_report(bool shared, uintptr_t pc1, bool w1, unsigned size1, const std::string &who1,
                                        uintptr_t pc2, bool w2, unsigned size2, const std::string &who2,
                                        const char *between)
{
    uintptr_t a = pc1 < pc2 ? pc1 : pc2, b = pc1 < pc2 ? pc2 : pc1;
    for (auto &p : R.seen)
        if (p.first == a && p.second == b)
            return;
    R.seen.push_back({a, b});
    if (R.reports++ >= 20)
        return;
    std::string l1 = prof_where(pc1), l2 = prof_where(pc2);
    char s1[32] = "", s2[32] = "";
    if (size1)
        snprintf(s1, sizeof s1, " of %u bytes", size1);
    if (size2)
        snprintf(s2, sizeof s2, " of %u bytes", size2);
    fflush(stdout);
    fprintf(stderr,
            "cuda-sim: racecheck: a race on %s memory in kernel %s: %s%s by %s at %s, %s%s by %s at %s, with no %s\n",
            shared ? "shared" : "global", P.name, w1 ? "a write" : "a read", s1, who1.c_str(), l1.c_str(),
            w2 ? "a write" : "a read", s2, who2.c_str(), l2.c_str(), between);
}

/* the bytes of word w that access x touches, as bits 0 to 3 */
CUDA_SIM_NOTSAN inline unsigned race_mask(const ProfAccess &x, uint64_t w)
{
    uintptr_t lo = x.addr, hi = x.addr + x.size; /* [lo, hi) */
    uintptr_t w0 = (uintptr_t)(w & ((1ull << 60) - 1)) * 4;
    unsigned m = 0;
    for (unsigned k = 0; k < 4; k++)
        if (w0 + k >= lo && w0 + k < hi)
            m |= 1u << k;
    return m;
}

/* "thread (x,y,z) of block (x,y,z)" of a thread's index and its block's linear index */
CUDA_SIM_NOTSAN CUDA_SIM_RT std::string race_who(unsigned tid, uint32_t block)
{
    unsigned gx = gridDim.x ? gridDim.x : 1, gy = gridDim.y ? gridDim.y : 1;
    char buf[64];
    snprintf(buf, sizeof buf, " of block (%u,%u,%u)", block % gx, block / gx % gy, block / (gx * gy));
    return "thread " + race_thread(tid) + buf;
}

/* Between blocks: this block's access x to global word w. */
CUDA_SIM_NOTSAN CUDA_SIM_RT void race_between(const ProfAccess &x, uint64_t w, unsigned m)
{
    if (R.words_full)
        return;
    if (R.words.size() < 2 * R.nwords + 2) {
        if (R.words.size() >= 2 * kRaceWords) {
            R.words_full = true;
            for (const std::string &k : R.full_noted)
                if (k == P.name)
                    return;
            R.full_noted.push_back(P.name);
            fprintf(stderr,
                    "cuda-sim: note: the race checker: kernel %s touched more than %zu words of global memory: races between "
                    "blocks are checked on the first %zu only\n",
                    P.name, kRaceWords, kRaceWords);
            return;
        }
        std::vector<RaceWord> bigger(R.words.empty() ? 1 << 16 : 2 * R.words.size(), RaceWord{});
        size_t mask = bigger.size() - 1;
        for (const RaceWord &o : R.words)
            if (o.stamp == R.stamp) {
                size_t h = (size_t)(o.word * 0x9E3779B97F4A7C15ull >> 17) & mask;
                while (bigger[h].stamp == R.stamp)
                    h = (h + 1) & mask;
                bigger[h] = o;
            }
        R.words.swap(bigger);
    }
    size_t mask = R.words.size() - 1, h = (size_t)(w * 0x9E3779B97F4A7C15ull >> 17) & mask;
    RaceWord *e = R.words.data();
    while (e[h].stamp == R.stamp && e[h].word != w)
        h = (h + 1) & mask;
    RaceWord &r = e[h];
    bool write = x.flags & kStore;
    if (r.stamp != R.stamp) {
        r = RaceWord{w, x.pc, write ? x.pc : 0, R.stamp, R.block, write ? R.block : ~0u, x.tid, x.tid,
                     (uint8_t)m, (uint8_t)(write ? m : 0), (uint8_t)write};
        R.nwords++;
        return;
    }
    std::string me = race_who(x.tid, R.block);
    const char *between = "synchronization between the two blocks";
    if (r.bw != ~0u && r.bw != R.block && (r.mw & m))
        race_report(false, r.pcw, true, 0, race_who(r.tw, r.bw), x.pc, write, 0, me, between);
    else if (write && r.b1 != R.block && (r.m1 & m))
        race_report(false, r.pc1, r.w1, 0, race_who(r.t1, r.b1), x.pc, true, 0, me, between);
    if (write && r.bw == ~0u) {
        r.bw = R.block;
        r.pcw = x.pc;
        r.tw = x.tid;
        r.mw = (uint8_t)m;
    }
}

/* The block's accesses (v[0..n)), after it ran. */
CUDA_SIM_NOTSAN CUDA_SIM_RT void race_block(const ProfAccess *v, size_t n)
{
    prof_busy = true; /* (the library code below is instrumented: not the kernel's) */
    R.keys.clear();
    R.block = S.cur_block.x + gridDim.x * (S.cur_block.y + gridDim.y * S.cur_block.z);
    for (size_t i = 0; i < n; i++) {
        if (v[i].flags & kAtomic)
            continue;
        uint64_t tag = v[i].flags & kShared ? 1ull << 60 : 0;
        for (uintptr_t w = v[i].addr / 4; w <= (v[i].addr + v[i].size - 1) / 4; w++)
            R.keys.push_back(RaceKey{w | tag, v[i].epoch, (uint32_t)i});
    }
    std::sort(R.keys.begin(), R.keys.end(), [](const RaceKey &a, const RaceKey &b) {
        return a.word != b.word ? a.word < b.word : a.epoch != b.epoch ? a.epoch < b.epoch : a.i < b.i;
    });
    char blk[64];
    snprintf(blk, sizeof blk, " of block (%u,%u,%u)", S.cur_block.x, S.cur_block.y, S.cur_block.z);
    const RaceKey *k = R.keys.data();
    size_t nk = R.keys.size();
    for (size_t s = 0, e; s < nk; s = e) {
        e = s + 1;
        while (e < nk && k[e].word == k[s].word && k[e].epoch == k[s].epoch)
            e++;
        /* within the interval: each of the first few writers against every other access */
        int writers = 0;
        unsigned done[4];
        for (size_t a = s; a < e && writers < 4; a++) {
            const ProfAccess &x = v[k[a].i];
            if (!(x.flags & kStore))
                continue;
            bool again = false;
            for (int q = 0; q < writers; q++)
                again |= done[q] == x.tid;
            if (again)
                continue;
            done[writers++] = x.tid;
            unsigned mx = race_mask(x, k[a].word);
            for (size_t b = s; b < e; b++) {
                const ProfAccess &y = v[k[b].i];
                if (y.tid == x.tid || !(race_mask(y, k[b].word) & mx))
                    continue;
                if (y.tid / 32 == x.tid / 32 && y.wepoch != x.wepoch)
                    continue; /* lanes of one warp, a warp-synchronous call between them */
                race_report(x.flags & kShared, x.pc, true, x.size, "thread " + race_thread(x.tid) + blk, y.pc,
                            y.flags & kStore, y.size, "thread " + race_thread(y.tid),
                            y.tid / 32 == x.tid / 32 ? "__syncwarp() or __syncthreads() between them"
                                                     : "__syncthreads() between them");
                break;
            }
        }
        /* between blocks: global memory's words, once each per block */
        if (!(k[s].word >> 60)) {
            unsigned m = 0;
            const ProfAccess *first = &v[k[s].i], *wr = nullptr;
            for (size_t a = s; a < e; a++) {
                const ProfAccess &x = v[k[a].i];
                m |= race_mask(x, k[a].word);
                if ((x.flags & kStore) && !wr)
                    wr = &x;
            }
            race_between(wr ? *wr : *first, k[s].word, m);
        }
    }
    prof_busy = false;
}

CUDA_SIM_NOTSAN CUDA_SIM_RT void race_at_exit()
{
    if (R.reports == 0)
        return;
    if (R.reports > 20)
        fprintf(stderr, "cuda-sim: racecheck: %d more races not shown\n", R.reports - 20);
    fflush(stdout);
    fflush(stderr);
    _exit(66);
}
inline int race_exit_registered = (atexit(race_at_exit), 0);
#endif

CUDA_SIM_NOTSAN CUDA_SIM_RT void prof_launch(const char *name, size_t dyn)
{
    std::string key = name && *name ? name : "kernel";
    auto it = P.kernels.find(key);
    if (it == P.kernels.end()) {
        it = P.kernels.emplace(key, ProfCounts{}).first;
        it->second.order = P.nkernels++;
    }
    P.cur = &it->second;
    P.cur->launches++;
    P.cur->block = S.nthreads;
    P.cur->dyn_shared = dyn;
    P.dyn = dyn;
    P.name = it->first.c_str();
#if defined(CUDA_SIM_RACECHECK)
    race_launch();
#endif
}

/* The block's accesses, grouped into requests and counted (see the rules above).  Linear in
 * the accesses: each is given its group (warp, instruction, kind) through a hash table, the
 * groups are laid out one after another by a counting sort that keeps each lane's order,
 * and within a group the k-th execution of each lane goes into request k the same way. */
struct ProfSlot {
    uint64_t key; /* pc << 3 | flags (flags < 8) */
    uint32_t warp, gid, stamp;
};
struct ProfWork {
    std::vector<ProfAccess> sorted, req;
    std::vector<uint32_t> gid, count, lane_k;
    std::vector<size_t> start, at, rs;
    std::vector<ProfSlot> table, groups;
    uint32_t stamp = 0;
};
inline ProfWork PW;

CUDA_SIM_NOTSAN CUDA_SIM_RT void prof_request(ProfCounts &c, uint8_t flags, const ProfAccess *r, size_t m,
                                         uint64_t &units, uint64_t &least)
{
    if (flags & kAtomic) {
        c.atomics += m;
        /* lanes on one address serialise: the largest group */
        size_t most = 1;
        for (size_t a = 0; a < m; a++) {
            size_t same = 0;
            for (size_t b = 0; b < m; b++)
                same += r[b].addr == r[a].addr;
            if (same > most)
                most = same;
        }
        c.atomic_conflicts += most - 1;
        return;
    }
    if (flags & kShared) {
        /* distinct 4-byte words per bank; the request takes the most any bank holds */
        uint64_t words[32][32]; /* each bank's distinct words */
        int per_bank[32] = {};
        int nw = 0, most = 1;
        for (size_t k = 0; k < m; k++)
            for (uintptr_t w = r[k].addr / 4; w <= (r[k].addr + r[k].size - 1) / 4; w++) {
                int b = (int)(w % 32), q = per_bank[b] - 1;
                while (q >= 0 && words[b][q] != w)
                    q--;
                if (q >= 0 || per_bank[b] == 32)
                    continue;
                words[b][per_bank[b]++] = w;
                nw++;
                if (per_bank[b] > most)
                    most = per_bank[b];
            }
        /* the least: every word in its own bank, 32 a wavefront */
        units += (uint64_t)most;
        least += (uint64_t)(nw + 31) / 32;
        if (flags & kStore) {
            c.sh_st_requests++;
            c.sh_st_wavefronts += (uint64_t)most;
        } else {
            c.sh_ld_requests++;
            c.sh_ld_wavefronts += (uint64_t)most;
        }
        return;
    }
    /* distinct 32-byte sectors of every byte the lanes access */
    uint64_t secs[32 * 8];
    int ns = 0;
    uint64_t bytes = 0;
    for (size_t k = 0; k < m; k++) {
        bytes += r[k].size;
        for (uintptr_t s = r[k].addr / 32; s <= (r[k].addr + r[k].size - 1) / 32 && ns < 32 * 8; s++) {
            bool dup = false;
            for (int q = ns - 1; q >= 0 && !dup; q--)
                dup = secs[q] == s;
            if (!dup)
                secs[ns++] = s;
        }
    }
    units += (uint64_t)ns;
    least += (bytes + 31) / 32 < (uint64_t)ns ? (bytes + 31) / 32 : (uint64_t)ns;
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

CUDA_SIM_NOTSAN inline size_t prof_hash(uint64_t key, uint32_t warp, size_t mask)
{
    return (size_t)((key ^ (uint64_t)warp * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull >> 20) & mask;
}

/* (raw pointers into the vectors: their instrumented operators are not inlined here) */
CUDA_SIM_NOTSAN CUDA_SIM_RT void prof_block_done()
{
    if (P.cur) {
        size_t nt = (size_t)blockDim.x * blockDim.y * blockDim.z;
        memset(P.epoch, 0, (nt < 1024 ? nt : 1024) * sizeof P.epoch[0]);
        memset(P.wepoch, 0, (nt < 1024 ? nt : 1024) * sizeof P.wepoch[0]);
    }
    if (!P.cur || P.nacc == 0) {
        P.nacc = 0;
        return;
    }
#if defined(CUDA_SIM_RACECHECK)
    race_block(P.acc, P.nacc);
#endif
    ProfCounts &c = *P.cur;
    const ProfAccess *v = P.acc;
    size_t n = P.nacc;
    ProfWork &w = PW;
    /* 1. each access's group: (warp, instruction, kind) */
    if (w.table.size() < 1024)
        w.table.assign(1024, ProfSlot{0, 0, 0, 0});
    if (++w.stamp == 0) { /* the stamps wrapped: start clean */
        std::fill(w.table.begin(), w.table.end(), ProfSlot{0, 0, 0, 0});
        w.stamp = 1;
    }
    const uint32_t stamp = w.stamp;
    if (w.gid.size() < n)
        w.gid.resize(n);
    uint32_t *gid = w.gid.data();
    w.count.clear();
    w.groups.clear();
    ProfSlot *table = w.table.data();
    size_t mask = w.table.size() - 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = (uint64_t)v[i].pc << 3 | (v[i].flags & 7);
        uint32_t warp = v[i].tid / 32;
        size_t h = prof_hash(key, warp, mask);
        while (table[h].stamp == stamp && (table[h].key != key || table[h].warp != warp))
            h = (h + 1) & mask;
        uint32_t g = table[h].gid;
        if (table[h].stamp != stamp) {
            g = (uint32_t)w.groups.size();
            table[h] = ProfSlot{key, warp, g, stamp};
            w.groups.push_back(ProfSlot{key, warp, g, stamp});
            w.count.push_back(0);
            if (w.groups.size() * 2 > w.table.size()) { /* grow: this block's groups again */
                std::vector<ProfSlot> bigger(w.table.size() * 2, ProfSlot{0, 0, 0, 0});
                mask = bigger.size() - 1;
                for (const ProfSlot &x : w.groups) {
                    size_t q = prof_hash(x.key, x.warp, mask);
                    while (bigger.data()[q].stamp == stamp)
                        q = (q + 1) & mask;
                    bigger.data()[q] = x;
                }
                w.table.swap(bigger);
                table = w.table.data();
            }
        }
        gid[i] = g;
        w.count.data()[g]++;
    }
    /* 2. the groups one after another, each lane's executions in their order */
    size_t ng = w.groups.size();
    w.start.assign(ng + 1, 0);
    size_t *start = w.start.data();
    const uint32_t *count = w.count.data();
    for (size_t g = 0; g < ng; g++)
        start[g + 1] = start[g] + count[g];
    w.at.assign(w.start.begin(), w.start.end() - 1);
    size_t *at = w.at.data();
    if (w.sorted.size() < n)
        w.sorted.resize(n);
    ProfAccess *sorted = w.sorted.data();
    for (size_t i = 0; i < n; i++)
        sorted[at[gid[i]]++] = v[i];
    /* 3. within a group, request k: the k-th execution of each lane; a request with fewer
     * lanes than its warp has took place in a divergent branch or a loop's tail */
    const long nthreads = (long)blockDim.x * blockDim.y * blockDim.z;
    if (w.lane_k.size() < n)
        w.lane_k.resize(n);
    if (w.req.size() < n)
        w.req.resize(n);
    for (size_t g = 0; g < ng; g++) {
        const ProfAccess *a = sorted + start[g];
        size_t m = start[g + 1] - start[g];
        uint8_t flags = a[0].flags;
        unsigned seen[32] = {};
        unsigned nreq = 0;
        uint32_t *lane_k = w.lane_k.data();
        for (size_t k = 0; k < m; k++) {
            lane_k[k] = seen[a[k].tid % 32]++;
            if (lane_k[k] + 1 > nreq)
                nreq = lane_k[k] + 1;
        }
        uint64_t units = 0, least = 0;
        long first = (long)a[0].tid / 32 * 32;
        size_t lanes = (size_t)(nthreads - first < 32 ? nthreads - first : 32);
        if (nreq == 1) {
            prof_request(c, flags, a, m, units, least);
            c.partial_requests += m < lanes;
        } else {
            w.rs.assign(nreq + 1, 0);
            size_t *rs = w.rs.data();
            for (size_t k = 0; k < m; k++)
                rs[lane_k[k] + 1]++;
            for (unsigned q = 0; q < nreq; q++)
                rs[q + 1] += rs[q];
            w.at.assign(w.rs.begin(), w.rs.end() - 1);
            size_t *rat = w.at.data();
            ProfAccess *req = w.req.data();
            for (size_t k = 0; k < m; k++)
                req[rat[lane_k[k]]++] = a[k];
            for (unsigned q = 0; q < nreq; q++) {
                prof_request(c, flags, req + rs[q], rs[q + 1] - rs[q], units, least);
                c.partial_requests += rs[q + 1] - rs[q] < lanes;
            }
        }
        if (!(flags & kAtomic)) {
            auto &e = c.excess[a[0].pc];
            e.first += units - least;
            e.second += nreq;
        }
    }
    P.nacc = 0;
}

/* "file:line" of an instruction (addr2line on this executable), or "-". */
CUDA_SIM_RT std::string prof_where(uintptr_t pc)
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

/* Registers and static shared memory per kernel, as ptxas compiled it for sm_90: simcc
 * --profile links in cuda_sim_kernel_resources(), "NAME REGISTERS SHARED_BYTES" a line (NAME
 * demangled), where it found the CUDA toolkit's nvcc.  Without it nothing is known. */
extern "C" __attribute__((weak)) const char *cuda_sim_kernel_resources(void);

/* A kernel's name as a launch names it: "void ns::k<16>(float*, int)" gives "ns::k<16>". */
CUDA_SIM_RT std::string prof_launch_name(const std::string &full)
{
    std::string s = full;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); i++) { /* cut at the argument list, outside <...> */
        if (s[i] == '<')
            depth++;
        else if (s[i] == '>')
            depth--;
        else if (s[i] == ' ' && depth == 0)
            start = i + 1; /* after the return type */
        else if (s[i] == '(' && depth == 0) {
            s.resize(i);
            break;
        }
    }
    return s.substr(std::min(start, s.size()));
}

/* A kernel's plain name: "void k<16>(float*, int)", "ns::k<16>" and "k" all give "k". */
CUDA_SIM_RT std::string prof_base_name(const std::string &full)
{
    std::string s = prof_launch_name(full);
    while (!s.empty() && s.back() == '>') { /* drop the template arguments at the end */
        int d = 0;
        size_t i = s.size();
        while (i-- > 0) {
            if (s[i] == '>')
                d++;
            else if (s[i] == '<' && --d == 0)
                break;
        }
        if (i == (size_t)-1)
            break;
        s.resize(i);
    }
    size_t cut = s.find_last_of(" :*&");
    return cut == std::string::npos ? s : s.substr(cut + 1);
}

/* The limits of one GPU's multiprocessor (the CUDA C++ Programming Guide's technical
 * specifications per compute capability). */
struct GpuLimits {
    const char *name;
    int threads, blocks, regs, reg_unit; /* per SM; reg_unit: registers a warp is given at a time */
    int shared, reserved;                /* shared bytes per SM; bytes the system keeps per block */
};
inline const GpuLimits prof_gpus[] = {
    { "H100", 2048, 32, 65536, 256, 233472, 1024 }, /* compute capability 9.0 */
    { "A100", 2048, 32, 65536, 256, 167936, 1024 }, /* 8.0 */
    { "L4", 1536, 24, 65536, 256, 102400, 1024 },   /* 8.9 */
    { "T4", 1024, 16, 65536, 256, 65536, 0 },       /* 7.5 */
};

/* The GPU named by CUDA_SIM_GPU (H100, A100, L4 or T4; any case), H100 when unset. */
CUDA_SIM_RT const GpuLimits &prof_gpu()
{
    const char *want = getenv("CUDA_SIM_GPU");
    if (want && *want)
        for (const GpuLimits &g : prof_gpus)
            if (strcasecmp(want, g.name) == 0)
                return g;
    return prof_gpus[0];
}

/* The blocks of `block` threads that fit on one multiprocessor at once, each thread using
 * `regs` registers and each block `shared` bytes (static and dynamic), and what limits them:
 * the CUDA occupancy calculator's rules, without its finer allocation granularities. */
CUDA_SIM_RT int prof_blocks_per_sm(const GpuLimits &g, int block, int regs, long shared, const char **limit)
{
    int warps = (block + 31) / 32;
    if (warps <= 0)
        return *limit = "-", 0;
    int n = g.blocks;
    *limit = "blocks";
    int by_threads = (g.threads / 32) / warps;
    if (by_threads < n)
        n = by_threads, *limit = "threads";
    if (regs > 0) {
        int per_warp = (regs * 32 + g.reg_unit - 1) / g.reg_unit * g.reg_unit;
        int by_regs = (g.regs / per_warp) / warps;
        if (by_regs < n)
            n = by_regs, *limit = "registers";
    }
    long per_block = (shared + g.reserved + 127) / 128 * 128;
    if (per_block > 0 && g.shared / per_block < n)
        n = (int)(g.shared / per_block), *limit = "shared_memory";
    return n;
}

CUDA_SIM_RT void prof_write()
{
    if (prof_off || P.kernels.empty())
        return;
    const char *path = getenv("CUDA_SIM_PROFILE_OUT");
#if defined(CUDA_SIM_RACECHECK)
    if (!path)
        return; /* the race checker: no profile lines unless asked for */
#endif
    std::string file = path ? path : "";
    size_t at = file.find("%p"); /* a process's own file: %p is its process id (MPI ranks) */
    if (at != std::string::npos)
        file.replace(at, 2, std::to_string((long)getpid()));
    FILE *f = !file.empty() ? fopen(file.c_str(), "w") : stderr;
    if (!f)
        f = stderr;
    /* each kernel's registers and static shared bytes, where simcc linked them in: by the
     * name a launch gives ("k<16>"), and by the plain name ("k"), which keeps the largest of
     * the versions compiled (template instances, overloads) */
    std::map<std::string, std::pair<int, long>> res, res_base;
    if (cuda_sim_kernel_resources) {
        const char *t = cuda_sim_kernel_resources();
        while (t && *t) {
            const char *nl = strchr(t, '\n');
            std::string line(t, nl ? (size_t)(nl - t) : strlen(t));
            t = nl ? nl + 1 : nullptr;
            size_t b = line.rfind(' ');
            size_t a = b == std::string::npos || b == 0 ? std::string::npos : line.rfind(' ', b - 1);
            if (a == std::string::npos)
                continue;
            int regs = atoi(line.c_str() + a + 1);
            long shared = atol(line.c_str() + b + 1);
            for (auto *m : { &res, &res_base }) {
                auto &r = (*m)[m == &res ? prof_launch_name(line.substr(0, a)) : prof_base_name(line.substr(0, a))];
                r.first = std::max(r.first, regs);
                r.second = std::max(r.second, shared);
            }
        }
    }
    const GpuLimits &gpu = prof_gpu();
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
                "shared_st_wavefronts=%llu atomics=%llu atomic_conflicts=%llu ld_bytes=%llu st_bytes=%llu "
                "barriers=%llu partial_requests=%llu worst=%s",
                shown.c_str(), (unsigned long long)c.launches, (unsigned long long)c.ld_requests,
                (unsigned long long)c.ld_sectors, (unsigned long long)c.st_requests,
                (unsigned long long)c.st_sectors, (unsigned long long)c.sh_ld_requests,
                (unsigned long long)c.sh_ld_wavefronts, (unsigned long long)c.sh_st_requests,
                (unsigned long long)c.sh_st_wavefronts, (unsigned long long)c.atomics,
                (unsigned long long)c.atomic_conflicts, (unsigned long long)c.ld_bytes,
                (unsigned long long)c.st_bytes, (unsigned long long)c.barriers,
                (unsigned long long)c.partial_requests, where.c_str());
        /* the launch's shape, and what it allows on the named GPU where the compiled
         * kernel's registers are known */
        fprintf(f, " block=%d shared_dynamic=%zu", c.block, c.dyn_shared);
        const std::pair<int, long> *r = nullptr;
        auto exact = res.find(prof_launch_name(name));
        auto base = res_base.find(prof_base_name(name));
        if (exact != res.end())
            r = &exact->second;
        else if (base != res_base.end())
            r = &base->second;
        if (r) {
            const char *limit = "-";
            long shared = r->second + (long)c.dyn_shared;
            int blocks = prof_blocks_per_sm(gpu, c.block, r->first, shared, &limit);
            double occ = (double)blocks * ((c.block + 31) / 32) / (gpu.threads / 32);
            fprintf(f, " registers=%d shared_static=%ld gpu=%s blocks_per_sm=%d occupancy=%.2f occupancy_limit=%s",
                    r->first, r->second, gpu.name, blocks, occ, limit);
        } else {
            fprintf(f, " registers=- occupancy=-");
        }
        fputc('\n', f);
    }
    if (f != stderr)
        fclose(f);
}
inline int prof_at_exit = (atexit(prof_write), 0);

} // namespace cuda_sim

/* ThreadSanitizer's instrumentation entry points, defined here instead of by libtsan (in the
 * runtime object only, where simcc keeps one: see CUDA_SIM_RT in cuda_sim.h). */
#if !defined(CUDA_SIM_RUNTIME_LINKED)
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
#endif /* !CUDA_SIM_RUNTIME_LINKED */

#endif
