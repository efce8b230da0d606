#!/usr/bin/env bash
# run.sh -- end-to-end tests of the CUDA CPU simulator (grading/sim/simcc, grading/sim/).
# Builds every test program here with grading/sim/simcc, runs it and checks its exact
# output, exit status and (for the bugs it must catch) its message (nccl.cu under
# mpiexec -n 3; mpi_aware.cu, MPI on device buffers, under 1 to 4 ranks; cublas.cu: the
# simulated cuBLAS against plain loops); times the 2^20
# reduction; and, when nvcc is installed, compiles every .cu with it (no GPU needed).
# Exit 0 when every check passed.
set -u
cd "$(dirname "$0")" || exit 2
root=$(cd ../../.. && pwd)
simcc=$root/grading/sim/simcc
T_NAME=simulator-tests
. "$root/grading/tests/lib-test.sh"
t_tmpdir simtests; out=$T_TMP

build() { # name -> $out/name (already there when the builds up front made it)
    [ -e "$out/$1.ok" ] && return 0
    local libs=(); [ "$1" = cublas ] && libs=(-lcublas)
    if ! "$simcc" -O2 -I"$root/grading/include" -o "$out/$1" "$1.cu" ${libs[@]+"${libs[@]}"} >"$out/$1.build" 2>&1; then
        t_fail "$1: does not build with simcc:"; sed 's/^/        /' "$out/$1.build" | head -20; return 1
    fi
}

# name, expected exit status, expected stdout (exact), [regex the stderr must match]
expect() {
    local name=$1 want_rc=$2 want_out=$3 want_err=${4:-} rc
    build "$name" || return
    # (an inner shell, so that "Segmentation fault" from bash does not clutter the log)
    bash -c 'timeout 60 "$0" >"$1" 2>"$2"; exit $?' "$out/$name" "$out/$name.out" "$out/$name.err" 2>/dev/null; rc=$?
    local got_out; got_out=$(cat "$out/$name.out")
    if [ "$rc" != "$want_rc" ]; then
        t_fail "$name: exit status $rc, expected $want_rc"; sed 's/^/        /' "$out/$name.out" "$out/$name.err" | head -10
    elif [ "$got_out" != "$want_out" ]; then
        t_fail "$name: output differs"; diff <(echo "$want_out") "$out/$name.out" | sed 's/^/        /' | head -10
    elif [ -n "$want_err" ] && ! grep -Eq -- "$want_err" "$out/$name.err"; then
        t_fail "$name: stderr does not match /$want_err/:"; sed 's/^/        /' "$out/$name.err" | head -5
    else
        t_pass "$name"
    fi
}

# The builds first, two at a time (the machine's cores, at most 4): every program the
# checks below build plainly (build), those they build with --racecheck, and every .cu
# through the real nvcc.  A build that fails here is built again where its check is, and
# reported there.
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null 2>&1 || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
race_names="vecadd matmul dynshared atomics shuffle templates bitcast streams async reduce coop"
prebuild_one() { # KIND NAME
    case $1 in
        plain)
            local libs=(); [ "$2" = cublas ] && libs=(-lcublas)
            "$simcc" -O2 -I"$root/grading/include" -o "$out/$2" "$2.cu" ${libs[@]+"${libs[@]}"} >"$out/$2.build" 2>&1 &&
                : >"$out/$2.ok" ;;
        race)
            "$simcc" --racecheck -O2 -I"$root/grading/include" -o "$out/$2-race" "$2.cu" >"$out/$2-race.build" 2>&1 &&
                : >"$out/$2-race.ok" ;;
        nvcc)
            local ccbin=(); [ "$2" = mpi_aware.cu ] && ccbin=(-ccbin "${MPICXX:-mpicxx}")
            # --ptx: nvcc's C++ front end over the whole file and its device compiler, without
            # the host compiler's pass (simcc's builds are that) or ptxas: a third of -c's time
            "$nvcc" ${ccbin[@]+"${ccbin[@]}"} -arch=sm_75 -Wno-deprecated-gpu-targets -I"$root/grading/include" \
                --ptx -o /dev/null "$2" >"$out/nvcc-$2.log" 2>&1
            echo $? >"$out/nvcc-$2.rc" ;;
    esac
    return 0
}
export -f prebuild_one
export simcc root out nvcc
{
    sed -nE 's/^[[:space:]]*(expect|if build) ([a-z_0-9]+) .*/plain \2/p' "$root/grading/sim/tests/run.sh" | sort -u
    for n in $race_names; do echo "race $n"; done
    if command -v "$nvcc" >/dev/null 2>&1; then
        for f in *.cu; do
            case $f in lineerr.cu|nccl.cu) ;; *) echo "nvcc $f" ;; esac
        done
    fi
} > "$out/prebuild.jobs"
cores=$(nproc 2>/dev/null || echo 2); [ "$cores" -gt 4 ] && cores=4; [ "$cores" -lt 1 ] && cores=1
# shellcheck disable=SC2016  # (the inner shell expands them)
xargs -P "$cores" -L 1 bash -c 'prebuild_one "$0" "$1"' < "$out/prebuild.jobs"

t_say "the test programs, built with grading/sim/simcc:"
expect vecadd 0 "wrong 0 sum 20001100015"
expect reduce 0 "  sum                          got 262138               expected 262138               ok
result sum = 262138 tol 0
verdict: all results correct"
expect matmul 0 "wrong 0 trace -716"
expect dynshared 0 "wrong 0 first 95 last 960"
expect atomics 0 "histogram wrong 0 bin0 6250
max 999 min -523 cas 1 exch 524800 ull 8796093022208 f 512.0 d 256.00"
expect streams 0 "sum 32437632 elapsed positive 1"
# a host thread that waits for a stream callback, never synchronizing (the progress thread)
expect hostfn_wait 0 "callback 42 sum 500500"
# (what the CUDA 13 runtime on an H100 printed for the same program)
expect badlaunch 0 "2048 threads: 1 invalid argument (peek 1)
after: 0 no error
zero blocks: 1 invalid argument
32x32x2 threads: 1 invalid argument
1024 threads: 0 no error"
expect shuffle 0 "sum 294900 xor-wrong 0"
expect templates 0 "sum 11250.0 double 3000.0 stale -1 -1 -1 -1 -1 -1"
expect bitcast 0 "sum 10240.00
3ff0000000000000 3f800000 c0000000 1 1 1"
expect fastmath 0 "1.649 -0.693 0.479 0.878 0.125 0.333 1.500 3.162 -1.000 -0.301 0.546 1.000"
expect devquery 0 "count>=1 1 device 0 warpSize 32 maxThreadsPerBlock 1024 maxThreadsDim 1024 1024 64 sharedMemPerBlock 49152
bad device: invalid device ordinal" "^name: CUDA CPU simulator$"
# cuBLAS (grading/sim/cublas_v2.h) against plain loops; built with -lcublas
expect cublas 0 "stream 1 tf32 1 pointer-mode-host 1
sgemm NN 0 NT 0 TN 0 TT 0 CN 0 CC 0 frac 0
dgemm NN 0 NT 0 TN 0 TT 0 CN 0 CC 0 frac 0
sgemv N 0 10 20 -18 -44 T 20 40 0 20
axpy+scal -4.5 -2.5 5 dot 11984.0 11984.0 strided 5990.0 dscal -4.5 -5
invalid: m<0 7 k<0 7 lda 7 ldb 7 ldc 7 ldaT 7 op 7 gemv-incx 7
CUBLAS_STATUS_INVALID_VALUE: an invalid numeric value was used as an argument
empty: gemm 0 dot 0 result 0"
expect divergent 70 "" \
    '^cuda-sim: error: __syncthreads\(\) at divergent\.cu:8 not reached by all threads of block \([01],0,0\): 64 of 128 threads returned'
expect half 0 "1.0 3c00  2049 6800  2051 6802  65520 7c00  1e-7 0002  -0.5 b800
back 0.33325195 5.9604645e-08
axpy sum 3250.0 half2 3.000 -0.500 bf16 3.14062"
expect devassert 0 "launch cudaSuccess, sync cudaErrorAssert, then cudaErrorAssert, copy device-side assert triggered" \
    "^devassert.cu:11: void check_positive\\(const int\\*, int\\): block: \\[1,0,0\\], thread: \\[13,0,0\\] Assertion .a\\[i\\] > 0. failed"
if [ -x "$out/devassert" ]; then
    "$out/devassert" host >/dev/null 2>"$out/devassert.host"; rc=$?
    if [ $rc -eq 134 ] && grep -q "^devassert: devassert.cu:30: int main(int, char\*\*): Assertion .n < 0. failed" "$out/devassert.host"; then
        t_pass "a host assert is glibc's (abort)"
    else
        t_fail "host assert: status $rc:"; head -3 "$out/devassert.host" | sed 's/^/        /'
    fi
fi
expect intrinsics 0 "3 -35 -16777216 6 4261412865 4294967294 -1 2 -1 35 -28 1099511627776 2147483647 2 2147483648 17 8 2147483648 8 6333 1122867 2003195204 31 268435456 4026531840 1
rounded 1 1 1 1 1 1"
expect cooplaunch 0 "cooperative launch 1: x[999] 2997"
if [ -x "$out/cooplaunch" ]; then
    "$out/cooplaunch" sync >"$out/cooplaunch.sync" 2>&1; rc=$?
    if [ $rc -eq 0 ] && [ "$(cat "$out/cooplaunch.sync")" = "cooperative launch 1: x[999] 2997" ]; then
        t_pass "a cooperative launch's grid-wide sync runs, nothing else said"
    else
        t_fail "a grid-wide sync: status $rc:"; head -3 "$out/cooplaunch.sync" | sed 's/^/        /'
    fi
fi
# Grid-wide syncs: a sum and 20 smoothing steps across blocks, each block's shared memory and
# warp exchanges kept across the syncs; too many blocks, a <<<...>>> launch and a block that
# returns early are errors that say so.
expect gridsync 0 "blocks 4 total 80023 expected 80023 smoothing differs 0 shared lost 0"
if [ -x "$out/gridsync" ]; then
    # mode, status, stdout (exact), stderr (a regex; its only line)
    for spec in "big|0|5 blocks: cudaErrorCooperativeLaunchTooLarge|" \
        "plain|70||^cuda-sim: error: gridsync\.cu:40: a grid-wide sync \(this_grid\(\)\.sync\(\)\) in a kernel launched at gridsync\.cu:[0-9]+ without cudaLaunchCooperativeKernel" \
        "early|70||^cuda-sim: error: the grid-wide sync at gridsync\.cu:40 of the kernel launched at gridsync\.cu:[0-9]+ was not reached by every block: 1 of 4 blocks ended without reaching it"; do
        IFS='|' read -r mode want_rc want_out want_err <<<"$spec"
        "$out/gridsync" "$mode" >"$out/gridsync.$mode" 2>"$out/gridsync.$mode.err"; rc=$?
        ok=1
        [ "$rc" = "$want_rc" ] && [ "$(cat "$out/gridsync.$mode")" = "$want_out" ] || ok=0
        if [ -z "$want_err" ]; then
            [ ! -s "$out/gridsync.$mode.err" ] || ok=0
        else # (the error alone: no warning after it)
            [ "$(wc -l <"$out/gridsync.$mode.err")" -eq 1 ] && grep -Eq -- "$want_err" "$out/gridsync.$mode.err" || ok=0
        fi
        if [ $ok = 1 ]; then
            t_pass "gridsync $mode: status $rc${want_out:+, $want_out}"
        else
            t_fail "gridsync $mode: status $rc:"; head -3 "$out/gridsync.$mode" "$out/gridsync.$mode.err" | sed 's/^/        /'
        fi
    done
fi
if "$simcc" --racecheck -O2 -I"$root/grading/include" -o "$out/cooplaunch-race" cooplaunch.cu >"$out/cooplaunch-race.build" 2>&1; then
    "$out/cooplaunch-race" sync >"$out/cooplaunch-race.sync" 2>&1; rc=$?
    if [ $rc -eq 77 ] && grep -q "^cuda-sim: not simulated: cooplaunch.cu:15: cooperative_groups grid sync under simcc --profile or --racecheck" "$out/cooplaunch-race.sync"; then
        t_pass "a grid-wide sync under --racecheck: status 77, named"
    else
        t_fail "a grid-wide sync under --racecheck: status $rc:"; head -3 "$out/cooplaunch-race.sync" | sed 's/^/        /'
    fi
else
    t_fail "cooplaunch.cu does not build with --racecheck:"; head -5 "$out/cooplaunch-race.build" | sed 's/^/        /'
fi
expect curand 0 "pi within 0.02 1, normal mean within 0.02 1, variance within 0.02 1, out of (0,1] 0"
expect coop 0 "sum 299995 expected 299995 failed checks 0"
# tiles of 128 threads (block_tile_memory): their sync, cg::reduce, meta_group_*; a thread
# that returns before its tile's sync is an error that says so
expect tiles 0 "tile sums wrong 0, neighbours wrong 0, checks failed 0, first sum 6321"
if [ -x "$out/tiles" ]; then
    "$out/tiles" early >"$out/tiles.early" 2>&1; rc=$?
    if [ $rc -eq 70 ] && [ "$(wc -l <"$out/tiles.early")" -eq 1 ] &&
        grep -q "^cuda-sim: error: the sync of a tile of 128 threads at tiles.cu:24 (thread (128,0,0) of block ([0-9],0,0) of the kernel launched at tiles.cu:[0-9]*) not reached by all threads of its tile" "$out/tiles.early"; then
        t_pass "a tile of 128 whose thread returns before the sync: status 70, named"
    else
        t_fail "tiles early: status $rc:"; head -3 "$out/tiles.early" | sed 's/^/        /'
    fi
fi
expect smallapi 0 "pitch>=width 1 pitch%128 0 wrong 0
scoped atomics 192 384
occupancy block>0 1 grid>0 1 blocks>0 1
printf fifo 4194304
cudaLaunchKernel 40
rounding 1 1.00000012 0 1"
# What NVIDIA's samples use beyond the rooms: a clock64/clock spin ends, stream-ordered
# allocation freed at the stream's turn, zero-copy, extern TYPE __shared__, __grid_constant__, __half2,
# cudaFuncGetAttributes, structs declared with __align__(N).
expect sampleapi 0 "clock spin ends: 1 1
pool threshold kept 1; reversed + 100: 149 136 100
freed at the stream's turn: cudaErrorInvalidDevicePointer
half2 2 11
kernel attributes: max threads 1024
__align__ structs: size 16 align 16, size 8 align 8; z[5] 15 hi[7] 22"
# Asynchrony: queued work runs at synchronizations, in stream, event and legacy-stream order;
# a copy or a second stream not waited for shows old data, an unsynchronized event has no time
# yet, and work never synchronized is reported at exit.
expect async 0 "copy not waited for: sum 0
after cudaStreamSynchronize: sum 3000
cudaMemcpy after a blocking stream's kernel: sum 5000
cudaMemcpy after a non-blocking stream's kernel: sum 5000
without cudaStreamWaitEvent: sum 0
with cudaStreamWaitEvent: sum 1000
elapsed time before cudaEventSynchronize: cudaErrorNotReady
after cudaEventSynchronize: a time
host, before cudaStreamSynchronize
kernel printf 1
host function: after the kernel
host, after it
main returns" \
    '^cuda-sim: warning: the program ended with 1 operation queued on the GPU and never synchronized \(the first: the kernel launched at async\.cu:107\)'
expect managed 139 "synchronized: x[9] = 81
reading x[9] without synchronizing" \
    '^cuda-sim: error: host code read managed memory at 0x[0-9a-f]+ \(a cudaMallocManaged allocation of 400 bytes at 0x[0-9a-f]+\) while the kernel launched at managed\.cu:22 has not finished.*Missing synchronization: call cudaDeviceSynchronize\(\)'
expect hostderef 139 "reading d[3] on the host" \
    '^cuda-sim: error: host code dereferenced device pointer 0x[0-9a-f]+ \(inside a cudaMalloc allocation of 400 bytes'
expect oob 139 "" \
    '^cuda-sim: error: kernel wrote past the end of a cudaMalloc allocation: address 0x[0-9a-f]+ is 0 bytes past the end of the 4004-byte allocation at 0x[0-9a-f]+ \(thread \(233,0,0\) of block \(3,0,0\), kernel launched at oob\.cu:17\)'

# NCCL (grading/sim/nccl.h, on MPI): every collective's exact result on 3 ranks, built
# with -ccbin mpicxx and -lnccl as a real NCCL program is.
if command -v "${MPICXX:-mpicxx}" >/dev/null 2>&1 && command -v mpiexec >/dev/null 2>&1; then
    if "$simcc" -ccbin "${MPICXX:-mpicxx}" -O2 -o "$out/nccl" nccl.cu -lnccl >"$out/nccl.build" 2>&1; then
        want="count, rank, device: wrong 0
ranks 3 version >= 2.0: 1
allreduce sum int32: wrong 0
  y[0] 300 y[999] 3297
allreduce left its input alone: wrong 0
allreduce max int64 in place: wrong 0
allreduce prod uint32: wrong 0
allreduce min float: wrong 0
allreduce avg double: wrong 0
allreduce avg int32: wrong 0
  avg[0] 3.0 avg[999] 1002.0
broadcast int8: wrong 0
bcast uint8 in place: wrong 0
reduce sum uint64: wrong 0
reduce min int32 in place: wrong 0
allgather int32: wrong 0
allgather int32 in place: wrong 0
reducescatter sum int64: wrong 0
reducescatter max int64 in place: wrong 0
group: allreduce: wrong 0
group: broadcast: wrong 0
ncclGroupEnd unmatched: wrong 0
reversed ranks: allgather: wrong 0
reversed ranks: bcast from rank 0: wrong 0
  gathered 2 1 0
two communicators: allreduce: wrong 0
refused: float16, too long, host memory, bad op, nranks: wrong 0
invalid argument (run with NCCL_DEBUG=WARN for details) / no error"
        timeout 120 mpiexec -n 3 "$out/nccl" >"$out/nccl.out" 2>"$out/nccl.err"; rc=$?
        if [ $rc -ne 0 ]; then
            t_fail "nccl (mpiexec -n 3): exit status $rc"; sed 's/^/        /' "$out/nccl.out" "$out/nccl.err" | tail -10
        elif [ "$(cat "$out/nccl.out")" != "$want" ]; then
            t_fail "nccl (mpiexec -n 3): output differs"; diff <(echo "$want") "$out/nccl.out" | sed 's/^/        /' | head -10
        elif ! grep -q "^nccl-sim: ncclAllReduce: sendbuff (0x[0-9a-f]*) is not device memory" "$out/nccl.err"; then
            t_fail "nccl: no complaint about host memory on stderr"; head -5 "$out/nccl.err" | sed 's/^/        /'
        else
            t_pass "nccl (mpiexec -n 3): every collective exact, in place, group, avg, renumbered and split communicators"
        fi
    else
        t_fail "nccl.cu does not build with simcc -ccbin mpicxx -lnccl:"; sed 's/^/        /' "$out/nccl.build" | head -20
    fi
else
    t_skip "nccl: no mpicxx / mpiexec"
fi

# MPI handed simulated device pointers (pr.h's pr_mpi_gpu.h, which the simulator uses as its
# CUDA-aware MPI): every wrapped call exact on 1 to 4 ranks; off (PR_MPI_STAGE=0), the first
# device pointer MPI reads kills the rank with the simulator's message, as a real MPI that is
# not CUDA-aware would.
if command -v "${MPICXX:-mpicxx}" >/dev/null 2>&1 && command -v mpiexec >/dev/null 2>&1; then
    if "$simcc" -ccbin "${MPICXX:-mpicxx}" -O2 -I"$root/grading/include" -o "$out/mpi_aware" mpi_aware.cu >"$out/mpi_aware.build" 2>&1; then
        want=$(grep -oE '^ +say\("[^"]*"' mpi_aware.cu | sed -E 's/^ +say\("//; s/"$/: wrong 0/' | awk '!seen[$0]++'; echo "path: simulated CUDA-aware MPI")
        for n in 1 2 3 4; do
            timeout 120 mpiexec -n $n "$out/mpi_aware" >"$out/mpi_aware.out" 2>"$out/mpi_aware.err"; rc=$?
            if [ $rc -ne 0 ]; then
                t_fail "mpi_aware (mpiexec -n $n): exit status $rc"; sed 's/^/        /' "$out/mpi_aware.out" "$out/mpi_aware.err" | tail -10
            elif [ "$(cat "$out/mpi_aware.out")" != "$want" ]; then
                t_fail "mpi_aware (mpiexec -n $n): output differs"; diff <(echo "$want") "$out/mpi_aware.out" | sed 's/^/        /' | head -10
            else
                t_pass "mpi_aware (mpiexec -n $n): $(($(wc -l <<<"$want") - 1)) kinds of MPI call on device buffers, exact"
            fi
        done
        PR_MPI_STAGE=0 timeout 120 mpiexec -n 2 "$out/mpi_aware" >"$out/mpi_aware.out" 2>&1; rc=$?
        if [ $rc -ne 0 ] && grep -q 'cuda-sim: error: host code dereferenced device pointer' "$out/mpi_aware.out"; then
            t_pass "mpi_aware with PR_MPI_STAGE=0: the rank dies in MPI, with the simulator's message"
        else
            t_fail "mpi_aware with PR_MPI_STAGE=0: exit $rc, without the simulator's message"; tail -5 "$out/mpi_aware.out" | sed 's/^/        /'
        fi
    else
        t_fail "mpi_aware.cu does not build with simcc -ccbin mpicxx:"; sed 's/^/        /' "$out/mpi_aware.build" | head -20
    fi
else
    t_skip "mpi_aware: no mpicxx / mpiexec"
fi

# The race checker (simcc --racecheck, on the profiler's accesses): each race of racy.cu
# (a missing __syncthreads(), a write after a read, a write after a write, lanes without
# __syncwarp(), two blocks on one global word) is reported with both threads and both lines,
# exit 66, under three thread orders (CUDA_SIM_SEED); the fixed twins, barriers, warp
# shuffles, atomics and neighbouring bytes included, report nothing; the build prints no
# warning.
if "$simcc" --racecheck -O2 -o "$out/racy" racy.cu >"$out/racy.build" 2>&1; then
    if [ -s "$out/racy.build" ]; then t_fail "simcc --racecheck warns: $(head -3 "$out/racy.build")"; else t_pass; fi
    T='thread \([0-9]+,0,0\)'
    for seed in 1 2 3; do
        for mode in none shared war global waw warp between; do
            CUDA_SIM_SEED=$seed "$out/racy" "$mode" >"$out/racy.out" 2>&1; rc=$?
            case $mode in
                none) want_rc=0 want='' ;;
                shared) want="a race on shared memory in kernel reverse: a write of 4 bytes by $T of block \([0-3],0,0\) at racy\.cu:20, a read of 4 bytes by $T at racy\.cu:23, with no (__syncwarp\(\) or )?__syncthreads\(\) between them" ;;
                war) want="a race on shared memory in kernel shift: a write of 4 bytes by $T of block \([0-3],0,0\) at racy\.cu:35, a read of 4 bytes by $T at racy\.cu:32, with no (__syncwarp\(\) or )?__syncthreads\(\) between them" ;;
                global) want="a race on global memory in kernel total: a write by thread \(0,0,0\) of block \(([0-3]),0,0\) at racy\.cu:46, a write by thread \(0,0,0\) of block \([0-3],0,0\) at racy\.cu:46, with no synchronization between the two blocks" ;;
                waw) want="a race on global memory in kernel slot: a write of 4 bytes by $T of block \([0-3],0,0\) at racy\.cu:53, a write of 4 bytes by $T at racy\.cu:53, with no (__syncwarp\(\) or )?__syncthreads\(\) between them" ;;
                warp) want="a race on shared memory in kernel lanes: a write of 4 bytes by $T of block \([0-3],0,0\) at racy\.cu:60, a read of 4 bytes by $T at racy\.cu:63, with no __syncwarp\(\) or __syncthreads\(\) between them" ;;
                between) want="a race on global memory in kernel chain: a (write|read) by thread \([0-9]+,0,0\) of block \([0-3],0,0\) at racy\.cu:7[01], a (write|read) by thread \([0-9]+,0,0\) of block \([0-3],0,0\) at racy\.cu:7[01], with no synchronization between the two blocks" ;;
            esac
            [ -z "$want" ] || want_rc=66
            races=$(grep -c '^cuda-sim: racecheck: ' "$out/racy.out")
            if [ "$rc" != "$want_rc" ]; then
                t_fail "racecheck, $mode, seed $seed: exit status $rc, expected $want_rc"; head -3 "$out/racy.out" | sed 's/^/        /'
            elif [ -z "$want" ] && [ "$races" != 0 ]; then
                t_fail "racecheck, $mode, seed $seed: a race reported in a program without one"; grep -m3 'racecheck' "$out/racy.out" | sed 's/^/        /'
            elif [ -n "$want" ] && { [ "$races" != 1 ] || ! grep -Eq "^cuda-sim: racecheck: $want$" "$out/racy.out"; }; then
                t_fail "racecheck, $mode, seed $seed: not the one report naming both threads and lines:"; grep -m3 'racecheck' "$out/racy.out" | sed 's/^/        /'
            elif [ "$seed" = 1 ]; then
                t_pass "racecheck, $mode${want:+: $(grep -m1 -oE 'in kernel [a-z]+' "$out/racy.out"), both lines named}"
            else
                t_pass
            fi
        done
    done
    for name in $race_names; do
        [ -e "$out/$name-race.ok" ] || prebuild_one race "$name"
        if [ ! -e "$out/$name-race.ok" ]; then
            t_fail "racecheck: $name.cu does not build with --racecheck"; head -5 "$out/$name-race.build" | sed 's/^/        /'
        elif "$out/$name-race" >"$out/$name-race.out" 2>&1 && ! grep -q 'racecheck:' "$out/$name-race.out"; then
            t_pass "racecheck: $name, no race reported"
        else
            t_fail "racecheck: $name reports a race or fails"; grep -m3 'racecheck\|error' "$out/$name-race.out" | sed 's/^/        /'
        fi
    done
else
    t_fail "racy.cu does not build with simcc --racecheck:"; sed 's/^/        /' "$out/racy.build" | head -10
fi

# The reduction without its barriers: wrong (or refused) with every seed.
if build nosync; then
    wrong=0
    for seed in 1 2 3 4 5; do
        CUDA_SIM_SEED=$seed timeout 60 "$out/nosync" >"$out/nosync.$seed" 2>&1 && continue
        grep -q "WRONG" "$out/nosync.$seed" && wrong=$((wrong + 1))
    done
    if [ $wrong -eq 5 ]; then t_pass "nosync: wrong with each of 5 seeds"; else t_fail "nosync: wrong with only $wrong of 5 seeds"; fi
    # With poisoning off the shuffled order alone must still break it.
    wrong=0
    for seed in 1 2 3 4 5; do
        CUDA_SIM_SHARED_POISON=0 CUDA_SIM_SEED=$seed timeout 60 "$out/nosync" >"$out/nosync.p$seed" 2>&1 && continue
        grep -q "WRONG" "$out/nosync.p$seed" && wrong=$((wrong + 1))
    done
    if [ $wrong -eq 5 ]; then
        t_pass "nosync: wrong with each of 5 seeds without shared-memory poisoning"
    else
        t_fail "nosync: without poisoning wrong with only $wrong of 5 seeds"
    fi
fi

# The same seed gives the same order: a racy result is reproducible.
if [ -x "$out/nosync" ]; then
    a=$(CUDA_SIM_SHARED_POISON=0 CUDA_SIM_SEED=3 "$out/nosync" 2>&1); b=$(CUDA_SIM_SHARED_POISON=0 CUDA_SIM_SEED=3 "$out/nosync" 2>&1)
    if [ "$a" = "$b" ]; then t_pass "nosync: same seed, same result ($a)"; else t_fail "nosync: seed 3 gave '$a' then '$b'"; fi
fi

# Compiler errors point at the user's file and line.
if "$simcc" -o "$out/lineerr" lineerr.cu >"$out/lineerr.build" 2>&1; then
    t_fail "lineerr: built"
elif grep -q "^lineerr\.cu:11:" "$out/lineerr.build"; then
    t_pass "lineerr: the error names lineerr.cu:11"
else
    t_fail "lineerr: no error at lineerr.cu:11:"; head -5 "$out/lineerr.build" | sed 's/^/        /'
fi

# nvcc's own flags that mean nothing to the simulator are accepted, -lineinfo among them
# (it begins with -l, as libraries do).
if "$simcc" -O2 -lineinfo --lineinfo -I"$root/grading/include" -o "$out/vecadd_li" vecadd.cu >"$out/lineinfo.err" 2>&1 &&
   [ -x "$out/vecadd_li" ]; then
    t_pass "-lineinfo is accepted and ignored"
else
    t_fail "-lineinfo:"; head -5 "$out/lineinfo.err" | sed 's/^/        /'
fi

# cuBLAS on host memory is the learner's bug, said as such (as a GPU would fail).
printf '#include <cublas_v2.h>\nint main(void) { float x[4] = {0}, y[4] = {0}, a = 1; cublasHandle_t h; cublasCreate(&h);\n  return (int)cublasSaxpy(h, 4, &a, x, 1, y, 1); }\n' >"$out/blashost.cu"
if "$simcc" -o "$out/blashost" "$out/blashost.cu" -l cublas >"$out/blashost.err" 2>&1; then
    "$out/blashost" >>"$out/blashost.err" 2>&1; rc=$?
    if [ $rc -eq 70 ] && grep -q "^cuda-sim: error: cublasSaxpy: x (0x[0-9a-f]*) is not device memory" "$out/blashost.err"; then
        t_pass "cuBLAS on host memory: a clear error (70)"
    else
        t_fail "cuBLAS on host memory: status $rc:"; head -3 "$out/blashost.err" | sed 's/^/        /'
    fi
else
    t_fail "-l cublas (two words) not accepted:"; head -3 "$out/blashost.err" | sed 's/^/        /'
fi

# What the simulator cannot offer is refused with status 77.
for l in -lcublasLt -lcufft -lcusparse -lcusolver; do
    "$simcc" -o "$out/x" vecadd.cu "$l" >"$out/lib.err" 2>&1; rc=$?
    if [ $rc -eq 77 ] && grep -q "^simcc: not simulated: .*($l)" "$out/lib.err"; then t_pass "$l refused (77)"; else t_fail "$l: status $rc"; fi
done
# ... and so is an #include of their headers, with simcc's message, not the compiler's error.
for h in cuda_fp8.h cooperative_groups/memcpy_async.h curand.h cub/cub.cuh cublasLt.h cublas.h; do
    printf '#include <cstdio>\n#include <%s>\nint main(void) { return 0; }\n' "$h" >"$out/inc.cu"
    "$simcc" -o "$out/inc" "$out/inc.cu" >"$out/inc.err" 2>&1; rc=$?
    if [ $rc -eq 77 ] && grep -q "^simcc: not simulated: the program includes <$h>" "$out/inc.err" &&
       ! grep -q "error" "$out/inc.err"; then
        t_pass "#include <$h> refused (77)"
    else
        t_fail "#include <$h>: status $rc:"; head -3 "$out/inc.err" | sed 's/^/        /'
    fi
done

# Thrust runs on its own CPU back end where the toolkit ships it (beside kernels, on
# device_vector and on cudaMalloc'd memory), with -fopenmp on its OpenMP one, and sorts
# random data right (negative ints too: simcc corrects CCCL 3.0's radix sort); where no
# toolkit is found it is refused with status 77.
want_thrust="thrust: ok (sum 999000, 499500, scan 500500)
sort 5000 random ints -49998..49899: wrong int 0 float 0 greater 0 by_key 0 host 0"
for mode in cpp omp; do
    fl=(); [ $mode = omp ] && fl=(-Xcompiler -fopenmp)
    "$simcc" -O2 ${fl[@]+"${fl[@]}"} -o "$out/thrust_$mode" thrust.cu >"$out/thrust.build" 2>&1; rc=$?
    if [ $rc -eq 77 ]; then
        t_skip "Thrust ($mode): no CUDA toolkit with Thrust here"
    elif [ $rc -ne 0 ]; then
        t_fail "thrust.cu ($mode) does not build with simcc:"; sed 's/^/        /' "$out/thrust.build" | head -10
    elif got=$(timeout 60 "$out/thrust_$mode" 2>&1) && [ "$got" = "$want_thrust" ]; then
        t_pass "Thrust on its $mode back end"
    else
        t_fail "Thrust ($mode): printed '$got'"
    fi
done
# Two files that use Thrust in one build: the toolkit (here a copy of its top folders, its
# contents linked) is left as it was.
tk=$(dirname "$(dirname "$(command -v "$nvcc" 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")
for inc in "$tk/include/cccl" "$tk/include"; do [ -f "$inc/thrust/version.h" ] && break; done
if [ -f "$inc/thrust/version.h" ]; then
    rm -rf "$out/tk"; mkdir -p "$out/tk/include"
    for sub in thrust cub cuda nv; do
        [ -d "$inc/$sub" ] && mkdir "$out/tk/include/$sub" && ln -s "$inc/$sub"/* "$out/tk/include/$sub/"
    done
    printf '#include <thrust/device_vector.h>\nint twice_size(int n) { thrust::device_vector<int> v(n); return 2 * (int)v.size(); }\n' >"$out/thrust2.cu"
    CUDA_HOME=$out/tk "$simcc" -O2 -o "$out/thrust_two" thrust.cu "$out/thrust2.cu" >"$out/thrust.build" 2>&1; rc=$?
    added=$(find "$out/tk/include" -mindepth 2 -maxdepth 2 -newer "$out/thrust2.cu" | head -3)
    if [ $rc -eq 0 ] && [ -z "$added" ] && [ ! -s "$out/thrust.build" ] && [ "$("$out/thrust_two" 2>&1)" = "$want_thrust" ]; then
        t_pass "Thrust in two files of one build; the toolkit untouched"
    else
        t_fail "Thrust in two files: status $rc, added to the toolkit: '$added'"; head -3 "$out/thrust.build" | sed 's/^/        /'
    fi
    rm -rf "$out/tk"
fi
CUDA_HOME=/nonexistent "$simcc" -o "$out/thrust_none" thrust.cu >"$out/thrust.err" 2>&1; rc=$?
if [ $rc -eq 77 ] && grep -q "^simcc: not simulated: Thrust" "$out/thrust.err" && ! grep -q error "$out/thrust.err"; then
    t_pass "Thrust without a toolkit refused (77)"
else
    t_fail "Thrust without a toolkit: status $rc:"; head -3 "$out/thrust.err" | sed 's/^/        /'
fi

# OpenMP beside CUDA, as nvcc builds it: -Xcompiler -fopenmp, or -fopenmp to compile and
# -lgomp to link; the threads of a parallel region call the runtime at the same time (each
# call holds the simulator's lock) and every slice comes back right.
want_omp="openmp: 4 threads, 20 rounds, 0 wrong, no error"
for how in "-Xcompiler -fopenmp" "-fopenmp, then -lgomp"; do
    if [ "$how" = "-Xcompiler -fopenmp" ]; then
        "$simcc" -O2 -Xcompiler -fopenmp -o "$out/openmp" openmp.cu
    else
        "$simcc" -O2 -fopenmp -c -o "$out/openmp.o" openmp.cu && "$simcc" -o "$out/openmp" "$out/openmp.o" -lgomp
    fi >"$out/openmp.build" 2>&1; rc=$?
    if [ $rc -ne 0 ]; then
        t_fail "openmp.cu ($how) does not build with simcc:"; sed 's/^/        /' "$out/openmp.build" | head -10
    elif got=$(env -u OMP_THREAD_LIMIT OMP_DYNAMIC=false timeout 60 "$out/openmp" 2>&1) && [ "$got" = "$want_omp" ]; then
        t_pass "OpenMP threads calling CUDA at once ($how)"
    else
        t_fail "OpenMP ($how): printed '$got'"
    fi
    rm -f "$out/openmp" "$out/openmp.o"
done

# Speed: the 2^20-float reduction in 256-thread blocks (a figure, checked against 2 s).
if [ -x "$out/reduce" ]; then
    best=""
    for _ in 1 2 3; do
        t=$("$out/reduce" 2>&1 >/dev/null | sed -n 's/.*kernel \([0-9.]*\) s/\1/p')
        [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}' && best=$t
    done
    if awk -v t="$best" 'BEGIN{exit !(t < 2.0)}'; then
        t_pass "reduce 2^20 floats, 256-thread blocks: ${best} s (best of 3; under 2 s)"
    else
        t_fail "reduce 2^20 floats: ${best} s, not under 2 s"
    fi
fi

# make bench's advanced GPU kernels (grading/bench/gpubench.cu: a fast reduction and a
# register-tiled SGEMM) against the CPU at awkward sizes, in the simulator.
bench_src=$root/grading/bench/gpubench.cu
if "$simcc" -O2 -I"$root/grading/include" -o "$out/gpubench" "$bench_src" >"$out/gpubench.build" 2>&1; then
    if timeout 120 "$out/gpubench" what=check >"$out/gpubench.out" 2>&1; then
        t_pass "gpubench what=check: $(grep -cE '^check (sum_fast|sgemm_reg) .* ok$' "$out/gpubench.out") kernel checks against the CPU"
    else
        t_fail "gpubench what=check:"; grep -v ' ok$' "$out/gpubench.out" | sed 's/^/        /' | head -10
    fi
else
    t_fail "gpubench.cu does not build with simcc:"; sed 's/^/        /' "$out/gpubench.build" | head -10
fi

# The work record (PR_SIM_WORK).  A thread's units: 1, +1 for the kernel's call, +1 a tick.
# one_does_all, 4096 threads: thread 0 also 4096 loop passes (4098), the others 2 (8190 in
# all, 12288); each_one, 4096 threads of 6 (+1 while test, +1 twice()'s call, +2 do-while
# tests: 24576); by_goto, 32 threads: thread 0 2 + 101 label passes + 11 calls of depth()
# (114), the others 2 (176 in all).  37040 units; half, 18520: 4098 + 114, then 2385 of the
# 6s: 2387 threads.  Copies: 16384 B to the GPU, 4 B back, 64 B within it; the invalid
# launch is not counted.
if build workrec; then
    rm -f "$out"/workrec-rec.*
    if PR_SIM_WORK="$out/workrec-rec" "$out/workrec" > "$out/workrec.out" 2>&1 &&
        [ "$(cat "$out/workrec.out")" = "sum 12285" ]; then
        rec=$(cat "$out"/workrec-rec.* 2>/dev/null)
        want="launches=3 threads=8224 units=37040 max_units=4098 median_units=2 half_threads=2387 grid=16,1,1 block=256,1,1 h2d=16384 d2h=4 d2d=64"
        if [ "$rec" = "$want" ]; then t_pass "the work record: $rec"; else
            t_fail "the work record: got '$rec', want '$want'"; fi
    else
        t_fail "workrec: $(head -5 "$out/workrec.out")"
    fi
    "$out/workrec" > /dev/null 2>&1
    if [ "$(find "$out" -maxdepth 1 -name 'workrec-rec.*' | wc -l)" = 1 ]; then t_pass; else
        t_fail "a record without PR_SIM_WORK, or more than one: $(find "$out" -maxdepth 1 -name 'workrec-rec.*')"; fi
fi

# The profiler (simcc --profile): the counts profile.cu's comment derives by hand from the
# CUDA C++ Programming Guide's rules, exactly, and the line of each wasteful access.
if "$simcc" --profile -O2 -o "$out/profile" profile.cu >"$out/profile.build" 2>&1; then
    if [ -s "$out/profile.build" ]; then t_fail "simcc --profile warns: $(head -3 "$out/profile.build")"; else t_pass; fi
    rm -f "$out/profile.lines"
    if CUDA_SIM_PROFILE_OUT="$out/profile.lines" "$out/profile" > "$out/profile.out" 2>&1 &&
        [ "$(cat "$out/profile.out")" = "transpose wrong 0, sums 2016 2016" ]; then
        want=$(cat <<'WANT'
profile copy_coalesced launches=1 ld_requests=2 ld_sectors=8 st_requests=2 st_sectors=8 shared_ld_requests=0 shared_ld_wavefronts=0 shared_st_requests=0 shared_st_wavefronts=0 atomics=0 atomic_conflicts=0 ld_bytes=256 st_bytes=256 barriers=0 partial_requests=0 worst=-
profile copy_strided launches=1 ld_requests=2 ld_sectors=64 st_requests=2 st_sectors=8 shared_ld_requests=0 shared_ld_wavefronts=0 shared_st_requests=0 shared_st_wavefronts=0 atomics=0 atomic_conflicts=0 ld_bytes=256 st_bytes=256 barriers=0 partial_requests=0 worst=profile.cu:22
profile copy_misaligned launches=1 ld_requests=2 ld_sectors=10 st_requests=2 st_sectors=8 shared_ld_requests=0 shared_ld_wavefronts=0 shared_st_requests=0 shared_st_wavefronts=0 atomics=0 atomic_conflicts=0 ld_bytes=256 st_bytes=256 barriers=0 partial_requests=0 worst=profile.cu:23
profile transpose_naive launches=1 ld_requests=32 ld_sectors=128 st_requests=32 st_sectors=1024 shared_ld_requests=0 shared_ld_wavefronts=0 shared_st_requests=0 shared_st_wavefronts=0 atomics=0 atomic_conflicts=0 ld_bytes=4096 st_bytes=4096 barriers=0 partial_requests=0 worst=profile.cu:29
profile transpose_tiled launches=1 ld_requests=32 ld_sectors=128 st_requests=32 st_sectors=128 shared_ld_requests=32 shared_ld_wavefronts=1024 shared_st_requests=32 shared_st_wavefronts=32 atomics=0 atomic_conflicts=0 ld_bytes=4096 st_bytes=4096 barriers=8 partial_requests=0 worst=profile.cu:40
profile transpose_padded launches=1 ld_requests=32 ld_sectors=128 st_requests=32 st_sectors=128 shared_ld_requests=32 shared_ld_wavefronts=32 shared_st_requests=32 shared_st_wavefronts=32 atomics=0 atomic_conflicts=0 ld_bytes=4096 st_bytes=4096 barriers=8 partial_requests=0 worst=-
profile sum_atomic_each launches=1 ld_requests=2 ld_sectors=8 st_requests=0 st_sectors=0 shared_ld_requests=0 shared_ld_wavefronts=0 shared_st_requests=0 shared_st_wavefronts=0 atomics=64 atomic_conflicts=62 ld_bytes=256 st_bytes=0 barriers=0 partial_requests=0 worst=-
profile sum_atomic_block launches=1 ld_requests=2 ld_sectors=8 st_requests=0 st_sectors=0 shared_ld_requests=13 shared_ld_wavefronts=13 shared_st_requests=8 shared_st_wavefronts=8 atomics=1 atomic_conflicts=0 ld_bytes=256 st_bytes=0 barriers=14 partial_requests=17 worst=-
WANT
)
        # (the launch's shape, the registers and the occupancy that end each line: below)
        if [ "$(sed 's/ block=.*//' "$out/profile.lines")" = "$want" ]; then
            t_pass "the profiler: sectors, wavefronts, atomics, barriers and partial requests of 8 kernels as computed by hand"
        else
            t_fail "the profiler's lines differ:"; diff <(echo "$want") "$out/profile.lines" | sed 's/^/        /'
        fi
    else
        t_fail "profile: $(head -5 "$out/profile.out")"
    fi
else
    t_fail "simcc --profile does not build profile.cu:"; head -10 "$out/profile.build" | sed 's/^/        /'
fi

# The runtime compiled once (simcc keeps it in grading/bin/simrt/; here in $out/rt): a build
# makes its flavour there and links the runtime's functions from it (strong symbols in the
# program; weak ones when each program compiles its own, SIMCC_RUNTIME=0); both programs
# print the same, profile lines too.  A folder simcc cannot write: it compiles its own.
rt_kind() {  # EXE: T (linked from runtime.o) or W (compiled into the program) for block_loop
    # (the scheduler's loop: large enough never to be inlined into every caller)
    nm -C "$1" 2>/dev/null | sed -nE 's/^[0-9a-f]+ ([TW]) cuda_sim::block_loop\(.*/\1/p' | head -1
}
rm -rf "$out/rt" "$out/prt.lines" "$out/pin.lines"
if SIMCC_RUNTIME_DIR=$out/rt "$simcc" --profile --no-occupancy -O2 -o "$out/profile-rt" profile.cu >"$out/profile-rt.build" 2>&1 &&
    SIMCC_RUNTIME=0 "$simcc" --profile --no-occupancy -O2 -o "$out/profile-in" profile.cu >>"$out/profile-rt.build" 2>&1; then
    CUDA_SIM_PROFILE_OUT="$out/prt.lines" "$out/profile-rt" >"$out/prt.out" 2>&1
    CUDA_SIM_PROFILE_OUT="$out/pin.lines" "$out/profile-in" >"$out/pin.out" 2>&1
    kinds="$(rt_kind "$out/profile-rt") $(rt_kind "$out/profile-in")"
    if [ "$(find "$out/rt" -name runtime.o | wc -l)" != 1 ]; then
        t_fail "the kept runtime: not one runtime.o in $out/rt: $(find "$out/rt" 2>/dev/null | head -5)"
    elif [ "$kinds" != "T W" ]; then
        t_fail "the kept runtime: block_loop is '$kinds' in the two programs, expected 'T W'"
    elif ! grep -qE '^CUDA_SIM_NOTSAN CUDA_SIM_RT void run_block\(.*\)$' "$out"/rt/*/cuda_sim.h; then
        t_fail "the kept runtime: its cuda_sim.h does not declare run_block without its body"
    elif ! cmp -s "$out/prt.out" "$out/pin.out" || ! cmp -s "$out/prt.lines" "$out/pin.lines" || [ ! -s "$out/prt.lines" ]; then
        t_fail "the kept runtime: the two programs differ:"; diff "$out/pin.lines" "$out/prt.lines" | head -5
    else
        t_pass "a --profile build linked with the runtime compiled once prints what one compiling its own does"
    fi
else
    t_fail "the kept runtime: the builds failed:"; head -10 "$out/profile-rt.build" | sed 's/^/        /'
fi
if SIMCC_RUNTIME_DIR=/proc/cuda-sim-nowhere "$simcc" -O2 -o "$out/vecadd-in" vecadd.cu >"$out/vecadd-in.build" 2>&1 &&
    [ "$("$out/vecadd-in" 2>&1)" = "wrong 0 sum 20001100015" ] && [ "$(rt_kind "$out/vecadd-in")" = W ]; then
    t_pass "a folder simcc cannot write: the program compiles its own runtime"
else
    t_fail "a folder simcc cannot write: $(head -3 "$out/vecadd-in.build") [$(rt_kind "$out/vecadd-in")]"
fi

# Occupancy: occupancy.cu's kernels with a made-up table of registers and shared bytes
# (occupancy_res.cpp; --no-occupancy keeps simcc's own out), the counts its comment works
# out by hand, on an H100 and on a T4.
occ_lines() {  # the end of each profile line, from "block="
    sed -n 's/^profile \([^ ]*\) .* \(block=.*\)$/\1 \2/p' "$1"
}
if "$simcc" --profile --no-occupancy -O2 -o "$out/occupancy" occupancy.cu occupancy_res.cpp >"$out/occupancy.build" 2>&1 &&
    CUDA_SIM_PROFILE_OUT="$out/occupancy.lines" "$out/occupancy" >"$out/occupancy.out" 2>&1 &&
    CUDA_SIM_GPU=t4 CUDA_SIM_PROFILE_OUT="$out/occupancy-t4.lines" "$out/occupancy" >/dev/null 2>&1; then
    want=$(cat <<'WANT'
k_small block=64 shared_dynamic=0 registers=16 shared_static=0 gpu=H100 blocks_per_sm=32 occupancy=1.00 occupancy_limit=blocks
k_regs block=256 shared_dynamic=0 registers=128 shared_static=0 gpu=H100 blocks_per_sm=2 occupancy=0.25 occupancy_limit=registers
k_odd block=256 shared_dynamic=0 registers=33 shared_static=0 gpu=H100 blocks_per_sm=6 occupancy=0.75 occupancy_limit=registers
k_shared block=128 shared_dynamic=0 registers=32 shared_static=48000 gpu=H100 blocks_per_sm=4 occupancy=0.25 occupancy_limit=shared_memory
k_dyn block=1024 shared_dynamic=20000 registers=32 shared_static=0 gpu=H100 blocks_per_sm=2 occupancy=1.00 occupancy_limit=threads
WANT
)
    if [ "$(occ_lines "$out/occupancy.lines")" = "$want" ]; then
        t_pass "occupancy: blocks per multiprocessor and what limits them, 5 kernels as computed by hand"
    else
        t_fail "occupancy lines differ:"; diff <(echo "$want") <(occ_lines "$out/occupancy.lines") | sed 's/^/        /'
    fi
    got=$(occ_lines "$out/occupancy-t4.lines" | grep '^k_regs ')
    if [ "$got" = "k_regs block=256 shared_dynamic=0 registers=128 shared_static=0 gpu=T4 blocks_per_sm=2 occupancy=0.50 occupancy_limit=registers" ]; then
        t_pass "occupancy on a T4 (CUDA_SIM_GPU=t4)"
    else
        t_fail "occupancy on a T4: $got"
    fi
else
    t_fail "occupancy.cu: $(cat "$out/occupancy.build" "$out/occupancy.out" 2>/dev/null | head -5)"
fi
# The registers and static shared bytes themselves come from ptxas, where nvcc is found:
# templates.cu-like kernels whose shared arrays have known sizes.
if [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ] || command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    cat >"$out/occreal.cu" <<'EOF'
#include <cstdio>
template <int B> __global__ void rev(float *x) { __shared__ float s[B]; s[threadIdx.x] = x[threadIdx.x]; __syncthreads(); x[threadIdx.x] = s[B - 1 - threadIdx.x]; }
namespace ns { __global__ void twice(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2; } }
int main() { float *x; cudaMalloc(&x, 1024 * 4); cudaMemset(x, 0, 1024 * 4); rev<256><<<1, 256>>>(x); rev<1024><<<1, 1024>>>(x); ns::twice<<<2, 96>>>(x, 100); cudaDeviceSynchronize(); puts("ok"); return 0; }
EOF
    if "$simcc" --profile -O2 -o "$out/occreal" "$out/occreal.cu" >"$out/occreal.build" 2>&1 &&
        CUDA_SIM_PROFILE_OUT="$out/occreal.lines" "$out/occreal" >/dev/null 2>&1; then
        got=$(occ_lines "$out/occreal.lines" | sed -E 's/registers=[1-9][0-9]* /registers=R /')
        want=$(cat <<'WANT'
rev<256> block=256 shared_dynamic=0 registers=R shared_static=1024 gpu=H100 blocks_per_sm=8 occupancy=1.00 occupancy_limit=threads
rev<1024> block=1024 shared_dynamic=0 registers=R shared_static=4096 gpu=H100 blocks_per_sm=2 occupancy=1.00 occupancy_limit=threads
ns::twice block=96 shared_dynamic=0 registers=R shared_static=0 gpu=H100 blocks_per_sm=21 occupancy=0.98 occupancy_limit=threads
WANT
)
        if [ "$got" = "$want" ]; then t_pass "occupancy from ptxas: each template instance's shared bytes, a kernel in a namespace"; else
            t_fail "occupancy from ptxas differs:"; diff <(echo "$want") <(echo "$got") | sed 's/^/        /'; fi
    else
        t_fail "occreal.cu: $(head -5 "$out/occreal.build")"
    fi
    if CUDA_HOME=/nonexistent "$simcc" --profile -O2 -o "$out/occnone" "$out/occreal.cu" >/dev/null 2>&1 &&
        CUDA_SIM_PROFILE_OUT="$out/occnone.lines" "$out/occnone" >/dev/null 2>&1 &&
        [ "$(grep -c ' registers=- occupancy=-$' "$out/occnone.lines")" = 3 ]; then
        t_pass "without nvcc: registers=- occupancy=-"
    else
        t_fail "without nvcc: $(head -3 "$out/occnone.lines" 2>/dev/null)"
    fi
else
    t_skip "occupancy from ptxas: nvcc not found"
fi

# The same sources compile with the real nvcc (no GPU needed; compiled with the builds up
# front, to PTX: see prebuild_one).
if command -v "$nvcc" >/dev/null 2>&1; then
    for f in *.cu; do
        [ "$f" = lineerr.cu ] && continue
        [ "$f" = nccl.cu ] && continue # needs MPI's and NCCL's headers: the rooms' NCCL tasks cover it
        [ -e "$out/nvcc-$f.rc" ] || prebuild_one nvcc "$f"
        if [ "$(cat "$out/nvcc-$f.rc")" = 0 ]; then
            t_pass "nvcc compiles $f (to PTX)"
        else
            t_fail "nvcc does not compile $f (to PTX):"; head -10 "$out/nvcc-$f.log" | sed 's/^/        /'
        fi
    done
    # CUB and cuBLAS too: the parts of gpubench.cu the simulator leaves out
    if "$nvcc" -O3 -arch=sm_90 -Werror=all-warnings -I"$root/grading/include" -o "$out/gpubench-gpu" "$bench_src" -lcublas >"$out/nvcc.log" 2>&1; then
        t_pass "nvcc compiles and links gpubench.cu (CUB, cuBLAS)"
    else
        t_fail "nvcc does not build gpubench.cu:"; head -10 "$out/nvcc.log" | sed 's/^/        /'
    fi
else
    t_skip "nvcc compile checks: nvcc not found"
fi

t_summary simulator-tests
