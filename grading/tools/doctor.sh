#!/usr/bin/env bash
# doctor.sh -- what this machine offers the workbook.  Reports; changes nothing.
set -u
CC=${CC:-cc}
NVCC=${NVCC:-nvcc}
problems=0
. "$(dirname "$0")/lib.sh"  # mpi_sibling, mpi_defaults
mpi_defaults  # MPICC, and the MPICXX and MPIEXEC beside it

row() { printf '  %-22s %s\n' "$1" "$2"; }
first() { head -n1 | cut -c1-90; }
# The arguments that name a file (a glob that matched nothing stays as written: left out).
existing() { local f; for f in "$@"; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\n' "$f"; fi; done; }
probe_c() {  # flags... : compiles stdin-less test program from $src
    local tmp; tmp=$(mktemp -d)
    printf '%s\n' "$1" > "$tmp/t.c"; shift
    "$CC" "$tmp/t.c" -o "$tmp/t" "$@" >/dev/null 2>&1 && "$tmp/t"
    local rc=$?; rm -rf "$tmp"; return $rc
}

echo "Parallel Rooms doctor"
echo "machine"
row "system" "$( (. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME") || uname -s) ($(uname -m))"
row "cores" "$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)"
row "memory" "$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo 2>/dev/null)"
[ -n "${SLURM_JOB_ID:-}" ] && row "SLURM job" "$SLURM_JOB_ID (srun: $(command -v srun || echo none))"

echo "C and OpenMP (rooms 01, 02)"
if command -v "$CC" >/dev/null 2>&1; then
    row "CC=$CC" "$("$CC" --version 2>&1 | first)"
    omp=$(probe_c '#include <stdio.h>
#include <omp.h>
int main(void){printf("%d", _OPENMP);return 0;}' -fopenmp)
    if [ -n "$omp" ]; then row "OpenMP" "yes (_OPENMP $omp)"; else row "OpenMP" "MISSING: $CC -fopenmp does not work"; problems=1; fi
else
    row "CC=$CC" "MISSING (make deps)"; problems=1
fi
for lib in "jansson.h -ljansson jansson (reports)" "ini.h -linih inih (metadata)" "CUnit/Basic.h -lcunit CUnit (make test)"; do
    read -r header flag name _ <<<"$lib"
    if probe_c "#include <$header>
int main(void){return 0;}" "$flag"; then row "$name" "yes"; else row "$name" "MISSING (make deps)"; problems=1; fi
done
if command -v clang >/dev/null 2>&1; then row "clang" "$(clang --version | first)"; else row "clang" "not installed (optional: OpenMP race checks)"; fi
archer=$(existing /usr/lib/llvm-*/lib/libarcher.so | tail -n1)
row "Archer (OpenMP TSan)" "${archer:-not found (optional: libomp-dev)}"
if command -v valgrind >/dev/null 2>&1; then row "valgrind" "$(valgrind --version)"; else row "valgrind" "not installed (optional)"; fi

echo "Sandbox (your builds and runs: make grade SANDBOX=auto|on|off)"
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ -x "$top/grading/bin/grade" ] && [ -x "$top/grading/bin/sandbox-init" ]; then
    row "sandbox" "$("$top/grading/bin/grade" --root "$top" --sandbox 2>&1 | first)"
elif command -v bwrap >/dev/null 2>&1; then
    row "sandbox" "bwrap is here (make all, then make doctor again: whether it works)"
else
    row "sandbox" "off: bwrap not found (make deps installs bubblewrap; class grading needs it)"
fi

echo "MPI (rooms 03, 05, 06)"
if command -v "$MPICC" >/dev/null 2>&1 && command -v "$MPIEXEC" >/dev/null 2>&1; then
    # Which MPI, and how the grader starts its ranks: the grader's launchers table answers
    # (grade --launcher) once the grader is built; before that, mpiexec's own first line.
    top=$(cd "$(dirname "$0")/../.." && pwd)
    if [ -x "$top/grading/bin/grade" ] && info=$("$top/grading/bin/grade" --root "$top" --launcher 2>/dev/null); then
        IFS=$'\t' read -r _ flavour words <<<"$info"
        row "MPI" "$flavour ($MPICC, $MPIEXEC)"
        row "ranks launched by" "$words PROGRAM"
    else
        row "MPI" "$("$MPIEXEC" --version 2>&1 | first) ($MPICC, $MPIEXEC; make all, then make doctor again: how the grader launches ranks)"
    fi
    row "MPICC compiles with" "$("$MPICC" -show 2>/dev/null | cut -c1-80 || "$MPICC" --showme 2>/dev/null | cut -c1-80)"
    # The same question room 05 asks (pr.h's pr_mpi_cuda_aware), of one real rank:
    # grading/tools/probe-cuda-aware.c, which the grader asks too for its report.
    tmp=$(mktemp -d)
    if "$MPICC" -I"$(dirname "$0")/../include" -o "$tmp/aware" "$(dirname "$0")/probe-cuda-aware.c" >/dev/null 2>&1 &&
        aware=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 20 "$MPIEXEC" -n 1 "$tmp/aware" 2>/dev/null) &&
        [[ "$aware" =~ ^cuda_aware=([01])\ (.*)$ ]]; then
        row "CUDA-aware MPI" "$([ "${BASH_REMATCH[1]}" = 1 ] && echo yes || echo no) ${BASH_REMATCH[2]}"
        [ "${BASH_REMATCH[1]}" = 1 ] ||
            row "" "(room 05's CUDA-aware paths still run: in the simulator, and on a GPU through pr.h's staging layer, PR_MPI_STAGE=1, which make grade turns on)"
    else
        row "CUDA-aware MPI" "could not ask (a 1-rank test program did not build or run)"
    fi
    rm -rf "$tmp"
    if command -v "$MPICXX" >/dev/null 2>&1; then row "MPICXX" "$MPICXX (nvcc's host compiler for rooms 05, 06)"
    else row "MPICXX" "MISSING: $MPICXX not found (rooms 05, 06 build CUDA + MPI with it)"; fi
else
    row "MPI" "MISSING: $MPICC / $MPIEXEC not found (make deps installs MPICH)"; problems=1
fi

echo "CUDA (rooms 04, 05, 06)"
if command -v "$NVCC" >/dev/null 2>&1; then
    row "nvcc" "$("$NVCC" --version | grep -i release | sed 's/.*release/release/')"
else
    cuda_nvcc=$(existing /usr/local/cuda*/bin/nvcc | head -n1)
    row "nvcc" "not on PATH${cuda_nvcc:+ (found $cuda_nvcc: export PATH=$(dirname "$cuda_nvcc"):\$PATH)}"
fi
cuda_root=$(dirname "$(dirname "$(command -v "$NVCC" 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")
for lib in cublas nccl; do
    if [ -n "$(existing "$cuda_root"/lib64/lib"$lib".so* "$cuda_root"/lib/lib"$lib".so* "$cuda_root"/targets/*/lib/lib"$lib".so* \
                /usr/lib/x86_64-linux-gnu/lib"$lib".so*)" ]; then
        row "$lib" "yes"
    else
        row "$lib" "not found"
    fi
done
if command -v nvidia-smi >/dev/null 2>&1 && gpus=$(nvidia-smi --query-gpu=name,driver_version,memory.total,compute_mode --format=csv,noheader 2>/dev/null) && [ -n "$gpus" ]; then
    while IFS= read -r g; do row "GPU" "$g"; done <<<"$gpus"
    # The two things that stop CUDA programs on a GPU that is there: a driver older than
    # the toolkit needs (CUDA 13 wants driver 580 or newer, CUDA 12 525, CUDA 11 450), and
    # a GPU that admits one process at a time (the grader starts up to 4 ranks on one GPU).
    toolkit=$("$NVCC" --version 2>/dev/null | sed -nE 's/.*release ([0-9]+)\..*/\1/p')
    driver=$(head -n1 <<<"$gpus" | awk -F', ' '{print $2}' | cut -d. -f1)
    case $toolkit in 13) need=580 ;; 12) need=525 ;; 11) need=450 ;; *) need="" ;; esac
    if [ -n "$need" ] && [ -n "$driver" ] && [ "$driver" -lt "$need" ] 2>/dev/null; then
        row "driver" "TOO OLD for CUDA $toolkit: driver $driver, it needs $need or newer, unless the site installs"
        row "" "CUDA's forward-compatibility package (else programs stop with"
        row "" "\"CUDA driver version is insufficient\"): update the driver, or use an older CUDA module"
    fi
    if grep -q 'Exclusive_Process' <<<"$gpus"; then
        row "compute mode" "Exclusive_Process: one process per GPU. Rooms 05 and 06 start up to 4 ranks"
        row "" "on one GPU; here the second one fails (\"busy or unavailable\"): ask for as many GPUs as"
        row "" "ranks, or for NVIDIA MPS (nvidia-cuda-mps-control -d), or GRADE_CUDA=sim"
    fi
else
    if [ -x "$(dirname "$0")/../sim/simcc" ] && command -v g++ >/dev/null 2>&1; then
        row "GPU" "none found: CUDA tasks run in the CPU simulator (grading/sim/simcc)"
    else
        row "GPU" "none found, and no g++ for the CPU simulator: CUDA tasks are SKIP"
    fi
fi
echo
if [ $problems -ne 0 ]; then
    echo "doctor: something the workbook needs is missing: run make deps (as root), or install what is listed"
else
    echo "doctor: everything the CPU rooms need is here"
fi
exit 0
