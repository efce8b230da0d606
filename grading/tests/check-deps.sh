#!/usr/bin/env bash
# check-deps.sh -- what `make deps` / deps.sh say, on a PATH with parts taken away
# (make test).  deps.sh is only asked to check, so nothing is installed here.
#   - without the optional extras (gnuplot, inotifywait): named as optional, exit 0;
#   - without MPI (mpicc, mpiexec): named as missing with the packages to install, exit 1;
#     for make grade's own check, named as optional (installed as root), exit 0;
#   - make doctor with a fake GPU: an old driver, Exclusive_Process mode named.
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C
. grading/tests/lib-test.sh
t_tmpdir; tmp=$T_TMP

# path_without DIR NAME...: DIR gets a link to every command on PATH but the NAMEs.
path_without() {
    local dir=$1; shift
    mkdir -p "$dir"
    local d f b skip
    IFS=: read -r -a dirs <<< "$PATH"
    for d in "${dirs[@]}"; do
        for f in "$d"/*; do
            [ -x "$f" ] || continue
            b=${f##*/}; skip=0
            # shellcheck disable=SC2254  # each NAME is a glob: mpicc.*
            for n in "$@"; do case $b in $n) skip=1 ;; esac; done
            [ $skip = 1 ] || [ -e "$dir/$b" ] || ln -s "$f" "$dir/$b"
        done
    done
}

path_without "$tmp/no-extras" gnuplot inotifywait
out=$(PATH=$tmp/no-extras bash grading/tools/deps.sh check all 2>&1); rc=$?
if [ $rc -eq 0 ]; then t_pass; else t_fail "without the optional extras deps.sh exited $rc (want 0): $out"; fi
if grep -q 'optional, not installed' <<< "$out" && grep -q 'gnuplot-nox' <<< "$out" && grep -q 'inotify-tools' <<< "$out"; then
    t_pass
else
    t_fail "the optional extras are not named: $out"
fi

path_without "$tmp/no-mpi" gnuplot inotifywait 'mpicc' 'mpicc.*' 'mpiexec' 'mpiexec.*'
out=$(PATH=$tmp/no-mpi bash grading/tools/deps.sh check all 2>&1); rc=$?
if [ $rc -eq 1 ]; then t_pass; else t_fail "without MPI deps.sh exited $rc (want 1): $out"; fi
if grep -q 'missing:' <<< "$out" && grep -q 'apt-get install mpich libmpich-dev' <<< "$out"; then
    t_pass
else
    t_fail "missing MPI is not named with its packages: $out"
fi

# make grade's own set-up (deps.sh ensure grade) without MPI: named with its packages as
# something it would install as root, and the grading carries on (exit 0).
out=$(PATH=$tmp/no-mpi bash grading/tools/deps.sh check grade 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q 'MPI (MPICH' <<< "$out" && grep -q 'apt-get install.*mpich libmpich-dev' <<< "$out"; then
    t_pass
else
    t_fail "make grade's check without MPI: exit $rc (want 0, MPI named with its packages): $out"
fi

# make doctor on GPU machines that cannot run the rooms as they are (a fake nvidia-smi
# and nvcc): a driver too old for CUDA 13 and a GPU in Exclusive_Process mode are named.
mkdir -p "$tmp/gpu"
printf '#!/bin/sh\necho "Cuda compilation tools, release 13.0, V13.0.88"\n' > "$tmp/gpu/nvcc"
doctor_with() {  # doctor_with "NAME, DRIVER, MEMORY, MODE": make doctor's CUDA part
    printf '#!/bin/sh\necho "%s"\n' "$1" > "$tmp/gpu/nvidia-smi"
    chmod +x "$tmp/gpu/nvcc" "$tmp/gpu/nvidia-smi"
    PATH=$tmp/gpu:$PATH NVCC=$tmp/gpu/nvcc bash grading/tools/doctor.sh 2>&1 | sed -n '/^CUDA/,$p'
}
out=$(doctor_with "NVIDIA A100, 535.104.05, 40960 MiB, Default")
if grep -q 'TOO OLD for CUDA 13: driver 535, it needs 580' <<< "$out"; then t_pass; else t_fail "doctor, driver 535 with CUDA 13: $out"; fi
if grep -q 'compute mode' <<< "$out"; then t_fail "doctor, Default compute mode named as a problem: $out"; else t_pass; fi
out=$(doctor_with "NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB, Exclusive_Process")
if grep -q 'Exclusive_Process: one process per GPU' <<< "$out"; then t_pass; else t_fail "doctor, Exclusive_Process: $out"; fi
if grep -q 'TOO OLD' <<< "$out"; then t_fail "doctor, driver 580 with CUDA 13 called too old: $out"; else t_pass; fi

t_summary check-deps "optional extras named (exit 0), missing MPI named with its packages (exit 1; for make grade optional, exit 0), make doctor names a driver too old for CUDA 13 and Exclusive_Process mode"
