#!/usr/bin/env bash
# gpu-session.sh [--debs DIR] [--part grade|sanitize|bench|all] -- what only a machine with an NVIDIA GPU can
# check, in one command per part.  For maintainers; make gpu-session.
#
#   1. inventory: GPU, driver, nvcc, MPI flavour, NCCL, compute-sanitizer, cores;
#   2. the grader built and its unit tests;
#   3. rooms 04, 05 and 06 graded natively (CUDA_ARCH=native unless set): the
#      solutions must PASS (05 and 06 at 1..4 ranks sharing the GPU), the untouched
#      tasks must FAIL; room 05's solutions at their default sizes, 1..4 ranks (the
#      figures: the grader keeps no output of a passing run; the CUDA-aware paths through
#      the staging layer where the MPI is not CUDA-aware); pr.h's staging layer on its own
#      (grading/sim/tests/mpi_aware.cu, 1..4 ranks); check-gpu (the smoke fixture, native +
#      compute-sanitizer);
#   4. make sanitize-gpu: memcheck, racecheck, synccheck over every CUDA solution;
#   5. make bench ROOM=04 (the GPU half: copy, CUB, cuBLAS and the kernels against
#      them) and ROOM=06 (with 06 task6's GPU DDP at 1..4 ranks: time per epoch).
# --part picks steps 3, 4 or 5 (1 and 2 always run; default all); each part is short enough
# for a short batch job (on an H100: grade 6 min, sanitize 1, bench 2).  --debs DIR: Debian .debs of libraries the machine lacks
# (jansson, inih, CUnit), unpacked into build/debs-root, not into /.
# The log streams to $OUT/log-PART.txt ($OUT: the folder to copy back from a
# remote GPU node; else build/gpu-session); each step's whole output, its reports, sanitizer logs and bench
# tables go to build/gpu-session/PART/, packed after every step into
# $OUT/gpu-session-PART.tgz: two files, easy to copy back from a remote node.  Each step says ok or FAILED; the last line counts
# them (grading/tests/lib-test.sh's summary line).  Exit 0 when every step was ok, 1 otherwise, 2 on misuse, 3 when there is no
# GPU (nothing checked).
set -u
cd "$(dirname "$0")/../.." || exit 2
debs="" part=all
while [ $# -gt 0 ]; do
    case "$1" in
        --debs) [ $# -ge 2 ] || { echo "gpu-session: --debs needs a folder" >&2; exit 2; }; debs=$2; shift ;;
        --part) [ $# -ge 2 ] || { echo "gpu-session: --part needs grade, sanitize, bench or all" >&2; exit 2; }
                case "$2" in grade|sanitize|bench|all) part=$2 ;;
                    *) echo "gpu-session: bad --part '$2': one of grade, sanitize, bench, all" >&2; exit 2 ;; esac
                shift ;;
        *) echo "usage: gpu-session.sh [--debs DIR] [--part grade|sanitize|bench|all]" >&2; exit 2 ;;
    esac
    shift
done
. grading/tests/lib-test.sh
out=${OUT:-build/gpu-session}
keep=build/gpu-session/$part
{ rm -rf "$keep" && mkdir -p "$out" "$keep"; } || t_abort "cannot make $keep and $out" 2
# pack: everything under $keep so far into $out/gpu-session-PART.tgz (again after each
# step: a call cut short at its time limit still brings back what was done)
pack() { tar czf "$out/gpu-session-$part.tgz.new" -C build/gpu-session "$part" &&
         mv "$out/gpu-session-$part.tgz.new" "$out/gpu-session-$part.tgz"; }
exec > >(tee "$out/log-$part.txt") 2>&1
tee_pid=$!
export NO_COLOR=1 LC_ALL=C CUDA_ARCH=${CUDA_ARCH:-native}
started=$SECONDS
step() { echo; echo "== $* ($((SECONDS - started)) s)"; }
verdict() { # verdict RC WHAT
    if [ "$1" -eq 0 ]; then t_pass "$2"; else t_fail "$2 (exit $1)"; fi
    pack
}
# run NAME LINES WHAT -- COMMAND...: COMMAND's whole output kept in $keep/NAME.txt as it
# comes (a step cut short by the call's time limit still leaves what it printed), its
# last LINES shown, its exit status judged
run() {
    local name=$1 lines=$2 what=$3; shift 4
    "$@" > "$keep/$name.txt" 2>&1
    local rc=$?
    tail -n "$lines" "$keep/$name.txt"
    verdict $rc "$what"
}

step "inventory"
date -u
if ! nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,compute_mode --format=csv; then
    t_skip "no NVIDIA GPU here (nvidia-smi fails): nothing checked"
    t_summary
    exit 3
fi
for p in gcc make nvcc mpicc mpicxx mpiexec compute-sanitizer; do printf '  %-18s %s\n' "$p" "$(command -v "$p" || echo MISSING)"; done
nvcc --version 2>/dev/null | tail -2
mpiexec --version 2>&1 | head -2
echo "  NCCL: $( (ldconfig -p 2>/dev/null | grep -m1 -o 'libnccl.so[.0-9]*') || echo 'no libnccl in ldconfig')," \
     "header: $(for h in /usr/include/nccl.h /usr/local/cuda/include/nccl.h; do if [ -e "$h" ]; then echo "$h"; break; fi; done)"
echo "  cores: $(nproc), $(head -1 /etc/os-release)"

if [ -n "$debs" ]; then
    root=$PWD/build/debs-root
    mkdir -p "$root"
    set -- "$debs"/*.deb
    [ -e "$1" ] || t_abort "no .deb files in $debs (copy them there first: they are not in git)"
    for f in "$@"; do dpkg -x "$f" "$root" || t_abort "dpkg -x $f"; done
    export CPATH=$root/usr/include${CPATH:+:$CPATH}
    export LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
    export LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    echo "  libraries from $debs unpacked into $root"
fi

step "build and unit tests"
make -s all > "$keep/build.txt" 2>&1; rc=$?
tail -5 "$keep/build.txt"
verdict $rc "make all"
[ $rc -eq 0 ] || { t_say "nothing more can run"; t_summary; exit 1; }
# DEPS=true: the machine cannot install anything (no network); what is missing shows as a failure.
run unit-tests 4 "unit tests" -- make -s unit-test DEPS=true

wants() { [ "$part" = all ] || [ "$part" = "$1" ]; }
. grading/tools/lib.sh  # mpi_defaults, mpi_run
mpi_defaults  # MPICC, and the MPICXX and MPIEXEC beside it
export MPIEXEC
wants grade && for room in 04 05 06; do
    step "room $room natively: solutions PASS"
    run "room$room-solutions" 30 "room $room solutions" -- make -s check-solutions ROOM=$room
    cp build/check-solutions.json "$keep/room$room-solutions.json" 2>/dev/null
    step "room $room natively: untouched tasks FAIL"
    run "room$room-tasks" 12 "room $room untouched tasks" -- make -s check-tasks ROOM=$room
    cp build/check-tasks.json "$keep/room$room-tasks.json" 2>/dev/null
done
if wants grade; then
    # The figures the grader does not keep (a passing run's output is not logged):
    # room 05's solutions at their default sizes, 1..4 ranks sharing the GPU(s).
    step "room 05 at its default sizes, 1..4 ranks: the programs' own figures"
    # shellcheck disable=SC2317  # run calls it (its command after --)
    room05_figures() {
        local t p libs=() rc=0
        ldconfig -p 2>/dev/null | grep -q libnccl && libs=(-lnccl)
        for t in solutions/05_cuda_mpi/task*.cu; do
            "${NVCC:-nvcc}" -O3 -arch="$CUDA_ARCH" -ccbin "$MPICXX" -Xcompiler -fopenmp -Igrading/include -o build/gpu-session/figures "$t" "${libs[@]}" || return 1
            for p in 1 2 3 4; do
                echo "-- $t, $p rank(s)"
                timeout 120 bash -c '. grading/tools/lib.sh && mpi_run "$@"' mpi_run "$p" build/gpu-session/figures || rc=1
            done
        done
        return "$rc"
    }
    # PR_MPI_STAGE=1: the CUDA-aware paths run too, through pr.h's staging layer where the
    # MPI is not CUDA-aware (their times labelled so)
    PR_MPI_STAGE=1 run room05-figures 12 "room 05 figures" -- room05_figures
    step "the staging layer natively: every MPI call on device buffers, 1..4 ranks"
    # shellcheck disable=SC2317  # run calls it (its command after --)
    staging_layer() {
        local p rc=0 want
        "${NVCC:-nvcc}" -O2 -arch="$CUDA_ARCH" -ccbin "$MPICXX" -Igrading/include -o build/gpu-session/mpi_aware \
            grading/sim/tests/mpi_aware.cu || return 1
        for p in 1 2 3 4; do
            echo "-- $p rank(s)"
            PR_MPI_STAGE=1 timeout 120 bash -c '. grading/tools/lib.sh && mpi_run "$@"' mpi_run "$p" \
                build/gpu-session/mpi_aware >build/gpu-session/mpi_aware.out 2>&1 || rc=1
            cat build/gpu-session/mpi_aware.out
            want=$(grep -c ': wrong ' build/gpu-session/mpi_aware.out)
            [ "$want" -ge 15 ] && [ "$(grep -c ': wrong 0$' build/gpu-session/mpi_aware.out)" -eq "$want" ] &&
                grep -Eq '^path: (staging layer|CUDA-aware MPI)$' build/gpu-session/mpi_aware.out || rc=1
        done
        return "$rc"
    }
    run staging-layer 6 "staging layer" -- staging_layer
    step "check-gpu (the smoke fixture natively, compute-sanitizer on it)"
    run check-gpu 8 "check-gpu" -- make -s check-gpu
    mkdir -p "$keep/gpu-smoke" && cp build/gpu-smoke/*.json "$keep/gpu-smoke/" 2>/dev/null
fi

if wants sanitize; then
    step "sanitize-gpu"
    # 120 s a run (the script's default is 300): one hung run must not eat the part's time
    run sanitize-gpu 40 "sanitize-gpu" -- env SANITIZE_GPU_TIMEOUT="${SANITIZE_GPU_TIMEOUT:-120}" make -s sanitize-gpu
    cp -r build/sanitize-gpu/log "$keep/sanitize-gpu-logs" 2>/dev/null
fi

if wants bench; then
    bench_out=${BENCH_OUT:-build/bench}
    step "bench ROOM=04 (GPU)"
    run bench04 25 "bench ROOM=04" -- make -s bench ROOM=04
    mkdir -p "$keep/bench04" && cp "$bench_out"/bench.* "$bench_out"/gpu*.txt "$keep/bench04/" 2>/dev/null

    step "bench ROOM=06 (DDP on the CPU, and 06 task6's GPU DDP at 1..4 ranks)"
    run bench06 16 "bench ROOM=06" -- make -s bench ROOM=06
    mkdir -p "$keep/bench06" && cp "$bench_out"/bench.* "$bench_out"/gpuddp*.txt "$keep/bench06/" 2>/dev/null
fi

echo
pack
t_say "$((SECONDS - started)) s; log in $out/log-$part.txt, each step's whole output in $out/gpu-session-$part.tgz"
t_summary gpu-session "part $part: every step ok"
rc=$?
exec >&- 2>&-
wait "$tee_pid" 2>/dev/null  # let tee write the last lines before the call ends
exit $rc
