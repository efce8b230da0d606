# shellcheck shell=bash
# job.sh -- the body of every room's job.slurm, sourced by it (so that a `module`
# command the batch shell has stays usable) with PR_ROOM set to the room's number.
# It loads the modules, checks the tools the room needs, prints what the node offers,
# and runs `make grade ROOM=$PR_ROOM`; the job's exit status is make's (non-zero while
# the room is not escaped, so SLURM shows it as FAILED).  What the room needs (MPI, a
# GPU) the grader says: grade --describe.
#
# Environment (set before sbatch; by default sbatch passes it on to the job):
#   PR_MODULES="gcc mpich"   modules to load first (module load $PR_MODULES); default none.
#                            CUDA rooms need the toolkit (nvcc), MPI rooms mpicc and a launcher.
#   GRADE_TIMEOUT_SCALE=2    multiplies every task's time limit; default 2 here, since a
#                            shared node can be slower than a laptop
#   CC=gcc                   the C compiler (default cc)
#   MPICC=mpicc              the MPI C wrapper; MPICXX (its C++ wrapper, nvcc's host compiler
#                            for CUDA with MPI) and MPIEXEC default to the ones beside it
#                            (mpicc.openmpi: mpiexec.openmpi), which inside a job start the
#                            ranks on the job's cores.  MPIEXEC=srun: Slurm's own launcher
#                            (srun --overcommit --kill-on-bad-exit=1 -n RANKS, with the --mpi=
#                            plug-in the MPI speaks: pmi2 for MPICH, pmix for Open MPI)
#   MPIEXEC_FLAGS="..."      extra launcher options ("--mpi=..." picks another srun plug-in;
#                            "--bind-to core" for Open MPI, "-bind-to core" for Hydra)
#   PR_CUDA_AWARE=1 or 0     overrides the programs' question "is this MPI CUDA-aware?"
#                            (05_cuda_mpi/README.md); leave it unset unless the answer is wrong
#   PR_MPI_STAGE=0 or 1      pr.h's staging layer for device buffers handed to an MPI that
#                            is not CUDA-aware (make grade turns it on where needed)
#   GRADE_CUDA=sim           the CUDA CPU simulator even on a GPU node
#   NVCC=nvcc CUDA_ARCH=native   the CUDA compiler and the GPU architecture

room=${PR_ROOM:?job.sh: PR_ROOM, the number of the room, is not set}
fail() { echo "job.slurm: $*" >&2; exit 2; }

if [ -n "${PR_MODULES:-}" ]; then
    type module >/dev/null 2>&1 || fail "PR_MODULES is set but this shell has no 'module' command"
    # shellcheck disable=SC2086  # several module names, split on purpose
    module load ${PR_MODULES}
fi

# The grader first: it knows what the room's tasks need.
make --no-print-directory -s grading/bin/grade >/dev/null || fail "the grader does not build here: run make doctor on this node"
tasks=$(grading/bin/grade --describe --room "$room") || fail "no room $room (grading/bin/grade --list names them)"
# uses COLUMN: some task of the room has "yes" in that column of grade --describe
uses() { awk -F'\t' -v want="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == want) col = i; next }
                                   col && $col == "yes" { found = 1 } END { exit !found }' <<<"$tasks"; }
uses_mpi=0 uses_cuda=0
if uses mpi; then uses_mpi=1; fi
if uses cuda; then uses_cuda=1; fi

cpus=$(nproc)
# OpenMP: the grader sets OMP_NUM_THREADS for every run (its threads=...); this value is
# for programs run by hand.  The OS places threads (binding would pile the 3- and
# 4-thread runs onto the same cores when fewer were given); waiting threads sleep, so
# that threads with work get the cores; exactly the threads asked for.
export OMP_NUM_THREADS="${cpus}" OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}" OMP_DYNAMIC=false
export GRADE_TIMEOUT_SCALE="${GRADE_TIMEOUT_SCALE:-2}"
export NO_COLOR=1 # no colour codes in a log file

echo "job ${SLURM_JOB_ID:-?} on $(hostname): room $room, ${cpus} cores, ${SLURM_NTASKS:-1} task(s) on ${SLURM_JOB_NUM_NODES:-1} node(s)"
echo "CC=${CC:-cc} ($("${CC:-cc}" --version 2>/dev/null | head -n 1)); processes allowed (ulimit -u): $(ulimit -u)"
echo "OMP_PROC_BIND=${OMP_PROC_BIND} OMP_WAIT_POLICY=${OMP_WAIT_POLICY} GRADE_TIMEOUT_SCALE=${GRADE_TIMEOUT_SCALE}"

if [ $uses_mpi = 1 ]; then
    . grading/tools/lib.sh
    export MPICC="${MPICC:-mpicc}"
    export MPIEXEC="${MPIEXEC:-$(mpi_sibling "${MPICC}" mpiexec)}" MPIEXEC_FLAGS="${MPIEXEC_FLAGS:-}"
    need=("${MPICC}" "${MPIEXEC}")
    if [ $uses_cuda = 1 ]; then
        export MPICXX="${MPICXX:-$(mpi_sibling "${MPICC}" mpicxx)}"
        need+=("${MPICXX}")
    fi
    for tool in "${need[@]}"; do
        command -v "${tool}" >/dev/null 2>&1 || fail "${tool} not found: load your cluster's MPI module (PR_MODULES=...)"
    done
    echo "MPICC=${MPICC} ($("${MPICC}" --version 2>/dev/null | head -n 1)) MPIEXEC=${MPIEXEC} MPIEXEC_FLAGS=${MPIEXEC_FLAGS}"
fi
if [ $uses_cuda = 1 ]; then
    echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-(not set)} GRADE_CUDA=${GRADE_CUDA:-(not set)} PR_CUDA_AWARE=${PR_CUDA_AWARE:-(not set)} PR_MPI_STAGE=${PR_MPI_STAGE:-(not set)}"
    if command -v "${NVCC:-nvcc}" >/dev/null 2>&1; then
        "${NVCC:-nvcc}" --version | tail -n 1
    else
        echo "${NVCC:-nvcc}: not found (load the CUDA module with PR_MODULES=\"cuda ...\"?)"
    fi
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi || echo "nvidia-smi failed: no usable GPU on this node?"
    else
        echo "nvidia-smi: not found: no GPU driver on this node"
    fi
    echo "(without a usable GPU the grader runs the CUDA tasks in the CUDA CPU simulator)"
    # compilers, MPI flavour, "CUDA-aware MPI: yes/no (why)", NCCL: for the record only
    [ $uses_mpi = 1 ] && { make --no-print-directory doctor || echo "(make doctor reported a problem; grading anyway)"; }
fi

make grade ROOM="$room"
