#!/usr/bin/env bash
# sanitize-gpu.sh -- every CUDA solution under NVIDIA's compute-sanitizer on a real GPU
# (the GPU half of issue 12; grading/tests/sanitize.sh is the CPU half).
#
# Each solutions/NN_room/taskK.cu is built with nvcc (-ccbin mpicxx for the kinds that
# use MPI; the -l libraries of its tasks.ini `libs` that are installed, as the grader
# does; what each task is, grade --describe says) and run at the small sizes of the last configuration of its first `runs`
# line under
#     compute-sanitizer --tool memcheck|racecheck|synccheck --error-exitcode 1
# (MPI programs as  mpiexec -n 2 compute-sanitizer ... : every rank is checked).
# A run is clean when it exits 0 and compute-sanitizer's ERROR SUMMARY says 0 errors.
# Without a working NVIDIA GPU (nvidia-smi) it says SKIP and exits 0: nothing checked.
#
# Environment: NVCC (default nvcc, else /usr/local/cuda/bin/nvcc), CUDA_ARCH (default
# native), MPICC (mpicc), MPICXX and MPIEXEC (the ones beside MPICC), COMPUTE_SANITIZER, SANITIZE_GPU_TOOLS
# (default "memcheck racecheck synccheck"), SANITIZE_GPU_TIMEOUT (seconds per run, 300).
# Lines: "sanitize-gpu: ok: <tool> <task> [config]: clean" / "sanitize-gpu: FAILED: ...";
# the end, grading/tests/lib-test.sh's summary line: "sanitize-gpu: ok: N passed: all
# clean (N runs) ..." and exit 0, or "sanitize-gpu: FAILED: K of N" and exit 1.
# Works in build/sanitize-gpu/.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
start=$(date +%s)
export NO_COLOR=1 LC_ALL=C

if ! nvidia-smi -L >/dev/null 2>&1; then
    t_skip "no NVIDIA GPU here (nvidia-smi fails): nothing checked"
    t_summary; exit
fi
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
command -v "$NVCC" >/dev/null 2>&1 || t_abort "a GPU but no nvcc (install the CUDA toolkit, or set NVCC)"
nvcc_path=$(command -v "$NVCC")
cuda_root=$(cd "$(dirname "$nvcc_path")/.." && pwd)
CS=${COMPUTE_SANITIZER:-}
[ -n "$CS" ] || CS=$(command -v compute-sanitizer 2>/dev/null || true)
[ -n "$CS" ] || { [ -x "$cuda_root/bin/compute-sanitizer" ] && CS=$cuda_root/bin/compute-sanitizer; }
[ -n "$CS" ] || { [ -x "$cuda_root/compute-sanitizer/compute-sanitizer" ] && CS=$cuda_root/compute-sanitizer/compute-sanitizer; }
[ -n "$CS" ] || t_abort "nvcc at $nvcc_path but no compute-sanitizer (part of the CUDA toolkit; or set COMPUTE_SANITIZER)"
. grading/tools/lib.sh
mpi_defaults  # the mpicxx and mpiexec that belong to MPICC, as the grader's
# Open MPI refuses to start as root without these (GPU nodes and containers often run everything
# as root, with Open MPI); MPICH ignores them.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ARCH=${CUDA_ARCH:-native}
TOOLS=${SANITIZE_GPU_TOOLS:-memcheck racecheck synccheck}
LIMIT=${SANITIZE_GPU_TIMEOUT:-300}
W=build/sanitize-gpu
{ rm -rf "$W" && mkdir -p "$W/bin" "$W/log"; } || t_abort "cannot make $W" 2
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
t_say "$gpu, $("$NVCC" --version | grep -o 'release [0-9.]*'), $CS"

# Is -lNAME installed (the loader's cache, or the toolkit's own library folders)?
lib_found() {
    local name=${1#-l} d
    ldconfig -p 2>/dev/null | grep -q "lib$name\.so" && return 0
    for d in "$cuda_root/lib64" "$cuda_root/lib" "$cuda_root"/targets/*/lib; do
        [ -e "$d/lib$name.so" ] && return 0
    done
    return 1
}

# gpu_tasks: "id<TAB>solution<TAB>mpi<TAB>libs<TAB>config" for the CUDA tasks, from the
# grader's own reading of tasks.ini (grade --describe); config = the last configuration
# of the first runs line (its small sizes); libs "-" for none.
gpu_tasks() {
    grading/bin/grade --describe | awk -F'\t' -v OFS='\t' '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }   # the columns by name
    $c["cuda"] == "yes" && $c["line"] == 1 {
        t = $c["task"]
        if (!(t in last)) { order[++n] = t; sol[t] = $c["solution"]; mpi[t] = $c["mpi"]; libs[t] = $c["libs"] }
        last[t] = $c["config"]
    }
    END { for (i = 1; i <= n; i++) { t = order[i]; print t, sol[t], mpi[t], libs[t], last[t] } }'
}

runs=0  # builds that failed and sanitizer runs (for the last line; lib-test.sh counts the verdicts)
fail() {  # label log why
    t_fail "$1 ($3; log: $2)"
    local first
    first=$(grep -m1 -n -E '^========= +(Invalid|Race|Barrier|Program hit|Error|Leaked|Uninitialized|Malformed|Unspecified)|ERROR SUMMARY: [1-9]' "$2" | cut -d: -f1)
    if [ -n "$first" ]; then sed -n "${first},$((first + 9))p" "$2"; else tail -n 8 "$2"; fi | sed -e 's/^/    /'
}

while IFS=$'\t' read -r id sol uses_mpi libs cfg; do
    [ -e "$sol" ] || continue
    exe=$W/bin/${id//\//_}
    build=("$NVCC" -O2 -g -lineinfo "-arch=$ARCH" -Igrading/include -I"${id%%/*}")
    mpi=0
    if [ "$uses_mpi" = yes ]; then
        mpi=1
        build+=(-ccbin "$MPICXX")
    fi
    build+=(-o "$exe" "$sol")
    for l in $libs; do
        case "$l" in -) ;; -l*) lib_found "$l" && build+=("$l") ;; *) build+=("$l") ;; esac
    done
    build+=(-lm)
    blog=$W/log/${id//\//_}.build.log
    if ! "${build[@]}" >"$blog" 2>&1; then
        runs=$((runs + 1))
        fail "build $id" "$blog" "nvcc failed: ${build[*]}"
        continue
    fi
    args=()
    for w in $cfg; do [ "${w%%=*}" = ranks ] || args+=("$w"); done
    shown="${args[*]}"
    for tool in $TOOLS; do
        runs=$((runs + 1))
        log=$W/log/${id//\//_}.$tool.log
        cs=("$CS" --tool "$tool" --error-exitcode 1)
        if [ $mpi -eq 1 ]; then
            label="compute-sanitizer $tool $id [ranks=2 $shown]"
            timeout -k 10 "$LIMIT" "$MPIEXEC" -n 2 "${cs[@]}" "$exe" "${args[@]}" </dev/null >"$log" 2>&1
        else
            label="compute-sanitizer $tool $id [$shown]"
            timeout -k 10 "$LIMIT" "${cs[@]}" "$exe" "${args[@]}" </dev/null >"$log" 2>&1
        fi
        rc=$?
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            fail "$label" "$log" "timed out after $LIMIT s"
        elif [ $rc -ne 0 ]; then
            fail "$label" "$log" "exit status $rc"
        elif grep -qE 'ERROR SUMMARY: [1-9]' "$log"; then
            fail "$label" "$log" "errors reported"
        else
            t_pass "$label: clean"
        fi
    done
done < <(gpu_tasks)

secs=$(( $(date +%s) - start ))
if [ $runs -eq 0 ]; then
    t_fail "no CUDA solution found: nothing checked"
else
    t_say "$runs runs in $secs s; logs in $W/log"
fi
t_summary sanitize-gpu "all clean ($runs runs) in $secs s"
