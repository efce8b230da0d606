#!/usr/bin/env bash
# gpu-session.sh [--debs DIR] [--part grade|sanitize|bench|all] -- everything a lent GPU machine is for, in one
# call (device time is scarce: few, full calls).  For maintainers; make gpu-session.
#
#   1. inventory: GPU, driver, nvcc, MPI flavour, NCCL, compute-sanitizer, cores;
#   2. the grader built and its unit tests;
#   3. rooms 04, 05 and 06 graded natively (CUDA_ARCH=native unless set): the
#      solutions must PASS (05 and 06 at 1..4 ranks sharing the GPU), the untouched
#      tasks must FAIL; check-gpu (the smoke fixture, native + compute-sanitizer);
#   4. make sanitize-gpu: memcheck, racecheck, synccheck over every CUDA solution;
#   5. make bench ROOM=04 (the GPU half: copy, CUB, cuBLAS and the kernels against
#      them) and ROOM=06 (with 06 task6's GPU DDP at 1..4 ranks: time per epoch).
# --part picks steps 3, 4 or 5 (1 and 2 always run; default all).  The device tool
# cuts a command at 10 minutes: call it once per part there.  --debs DIR: Debian .debs of libraries the machine lacks
# (jansson, inih, CUnit), unpacked beside the repo (.gpu-carry/root), not into /.
# Everything is printed and kept under $OUT (the device tool's folder) or
# build/gpu-session/: log-PART.txt, the reports, build/bench/.  Each step says ok or FAILED;
# the last line counts them.  Exit 0 when every step was ok, 1 otherwise, 2 on misuse,
# 3 when there is no GPU (nothing checked).
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
out=${OUT:-build/gpu-session}
mkdir -p "$out"
exec > >(tee "$out/log-$part.txt") 2>&1
export NO_COLOR=1 LC_ALL=C CUDA_ARCH=${CUDA_ARCH:-native}
ok=0 failed=0 started=$SECONDS
step() { echo; echo "== $* ($((SECONDS - started)) s)"; }
verdict() { # verdict RC WHAT
    if [ "$1" -eq 0 ]; then ok=$((ok + 1)); echo "gpu-session: ok: $2"
    else failed=$((failed + 1)); echo "gpu-session: FAILED: $2 (exit $1)"; fi
}

step "inventory"
date -u
if ! nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv; then
    echo "gpu-session: no NVIDIA GPU here (nvidia-smi fails): nothing checked"
    exit 3
fi
for p in gcc make nvcc mpicc mpicxx mpiexec compute-sanitizer; do printf '  %-18s %s\n' "$p" "$(command -v "$p" || echo MISSING)"; done
nvcc --version 2>/dev/null | tail -2
mpiexec --version 2>&1 | head -2
echo "  NCCL: $( (ldconfig -p 2>/dev/null | grep -m1 -o 'libnccl.so[.0-9]*') || echo 'no libnccl in ldconfig')," \
     "header: $(ls /usr/include/nccl.h /usr/local/cuda/include/nccl.h 2>/dev/null | head -1 || true)"
echo "  cores: $(nproc), $(head -1 /etc/os-release)"

if [ -n "$debs" ]; then
    root=$PWD/.gpu-carry/root
    mkdir -p "$root"
    for f in "$debs"/*.deb; do dpkg -x "$f" "$root"; done
    export CPATH=$root/usr/include${CPATH:+:$CPATH}
    export LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
    export LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    echo "  libraries from $debs unpacked into $root"
fi

step "build and unit tests"
make -s all > "$out/build.txt" 2>&1; rc=$?
tail -5 "$out/build.txt"
verdict $rc "make all"
[ $rc -eq 0 ] || { echo "gpu-session: $ok ok, $failed FAILED (nothing more can run)"; exit 1; }
make -s unit-test 2>&1 | tail -4; verdict "${PIPESTATUS[0]}" "unit tests"

wants() { [ "$part" = all ] || [ "$part" = "$1" ]; }
wants grade && for room in 04 05 06; do
    step "room $room natively: solutions PASS"
    make -s check-solutions ROOM=$room 2>&1 | grep -vE '^ +(ok|PASS)'; verdict "${PIPESTATUS[0]}" "room $room solutions"
    cp build/check-solutions.json "$out/room$room-solutions.json" 2>/dev/null
    step "room $room natively: untouched tasks FAIL"
    make -s check-tasks ROOM=$room 2>&1 | tail -12; verdict "${PIPESTATUS[0]}" "room $room untouched tasks"
done
if wants grade; then
    step "check-gpu (the smoke fixture natively, compute-sanitizer on it)"
    make -s check-gpu 2>&1 | tail -8; verdict "${PIPESTATUS[0]}" "check-gpu"
fi

if wants sanitize; then
    step "sanitize-gpu"
    make -s sanitize-gpu 2>&1 | tail -40; verdict "${PIPESTATUS[0]}" "sanitize-gpu"
fi

if wants bench; then
    step "bench ROOM=04 (GPU)"
    make -s bench ROOM=04 2>&1 | tail -25; verdict "${PIPESTATUS[0]}" "bench ROOM=04"
    mkdir -p "$out/bench" && cp build/bench/bench.* build/bench/gpu*.txt "$out/bench/" 2>/dev/null

    step "bench ROOM=06 (DDP on the CPU, and 06 task6's GPU DDP at 1..4 ranks)"
    make -s bench ROOM=06 2>&1 | tail -16; verdict "${PIPESTATUS[0]}" "bench ROOM=06"
    mkdir -p "$out/bench06" && cp build/bench/bench.* build/bench/gpuddp*.txt "$out/bench06/" 2>/dev/null
fi

echo
echo "gpu-session: $ok ok, $failed FAILED, $((SECONDS - started)) s; log in $out/log-$part.txt"
[ $failed -eq 0 ]
