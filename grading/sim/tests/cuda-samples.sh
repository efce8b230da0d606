#!/usr/bin/env bash
# cuda-samples.sh DIR [SAMPLE...] -- NVIDIA's cuda-samples, unchanged, in the CUDA CPU simulator.
#
# DIR is a checkout of https://github.com/NVIDIA/cuda-samples (its Samples/*/NAME folders and
# Common/), or a folder holding NAME/ folders and Common/ side by side.  Each sample named
# (default: the runtime-API, one-GPU samples listed below, those that DIR has) is built with
# grading/sim/simcc from all its .cu and .cpp files, with -I Common (and -Xcompiler -fopenmp
# where its sources include <omp.h>, as its CMakeLists adds OpenMP), nothing changed, and run
# from its own folder (SAMPLE_TIMEOUT seconds, default 300).  A sample passes when it builds,
# exits 0 and prints no failure.  One line per sample, then the count.  Not part of make test
# (the samples are not in this repository); the figures it gave are in docs/benchmarks.md.
set -u
here=$(cd "$(dirname "$0")" && pwd)
simcc=$here/../simcc
dir=${1:-}
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    echo "usage: cuda-samples.sh DIR [SAMPLE...] (DIR: a cuda-samples checkout)" >&2
    exit 2
fi
dir=$(cd "$dir" && pwd)
shift
common=$dir/Common
[ -d "$common" ] || { echo "cuda-samples.sh: $dir has no Common/ folder" >&2; exit 2; }
timeout_s=${SAMPLE_TIMEOUT:-300}

# The runtime-API samples for one GPU of the introductory, concepts-and-techniques and
# performance sections, without graphics, textures, the driver API, NVRTC or libraries.
default=(vectorAdd clock simplePrintf asyncAPI template simpleAssert simpleVoteIntrinsics simpleAtomicIntrinsics
    matrixMul simpleTemplates simpleOccupancy cppOverload fp16ScalarProduct simpleCallback c++11_cuda simpleStreams
    concurrentKernels simpleZeroCopy simpleHyperQ simpleAttributes simpleCooperativeGroups systemWideAtomics
    simpleMultiCopy cppIntegration scan convolutionSeparable streamOrderedAllocation threadFenceReduction
    alignedTypes LargeKernelParameter cudaOpenMP)
[ $# -gt 0 ] && default=("$@")

find_sample() {  # NAME: its folder in DIR
    local d
    for d in "$dir/$1" "$dir"/Samples/*/"$1"; do
        [ -d "$d" ] && { echo "$d"; return 0; }
    done
    return 1
}

out=$(mktemp -d) || exit 2
trap 'rm -rf "$out"' EXIT
tried=0 passed=0
for s in "${default[@]}"; do
    d=$(find_sample "$s") || continue
    tried=$((tried + 1))
    mapfile -t files < <(cd "$d" && ls -- *.cu *.cpp 2>/dev/null)
    # a sample whose sources include <omp.h> is built with OpenMP, as its CMakeLists does
    omp=()
    (cd "$d" && grep -qsE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<omp\.h>' -- *.cu *.cpp *.h *.cuh) &&
        omp=(-Xcompiler -fopenmp)
    start=$SECONDS
    if ! (cd "$d" && "$simcc" -O2 ${omp[@]+"${omp[@]}"} -I"$common" -o "$out/$s" "${files[@]}") >"$out/$s.build" 2>&1; then
        printf '%-26s BUILD FAILED  %s\n' "$s" "$(grep -m1 -E 'error|simcc:' "$out/$s.build" | cut -c1-110)"
        continue
    fi
    (cd "$d" && timeout "$timeout_s" "$out/$s" >"$out/$s.log" 2>&1)
    rc=$?
    secs=$((SECONDS - start))
    # (case matters: simpleAssert prints "Device assert failed as expected" when it passes)
    if [ $rc -eq 0 ] && ! grep -qE '[Tt]est failed|FAILED|Result = FAIL' "$out/$s.log"; then
        passed=$((passed + 1))
        printf '%-26s PASS          %4d s\n' "$s" "$secs"
    elif [ $rc -eq 124 ]; then
        printf '%-26s TIMEOUT       %4d s (SAMPLE_TIMEOUT=%s)\n' "$s" "$secs" "$timeout_s"
    else
        printf '%-26s FAIL          exit %d: %s\n' "$s" "$rc" "$(grep -m1 -iE 'error|fail|cannot|waiv' "$out/$s.log" | cut -c1-100)"
    fi
done
echo "cuda-samples: $passed of $tried pass in the simulator"
[ "$tried" -gt 0 ]
