# shellcheck shell=bash
# lib.sh -- shell helpers shared by the workbook's scripts (sourced, not run).

# Every reference solution, as paths relative to the workbook: solutions/NN_room/taskK.c|.cu
list_solutions() {
    local f
    for f in solutions/[0-9][0-9]_*/task*.c solutions/[0-9][0-9]_*/task*.cu; do
        [ -e "$f" ] && echo "$f"
    done | LC_ALL=C sort
}

# Resolves "01_threads/task2", "01/task2" or "01_threads/task2.c" to the task's
# path (01_threads/task2.c); prints the tasks that exist and returns 2 if none matches.
resolve_task() {
    local want=$1 room name sol
    if [ -z "$want" ] || [[ "$want" != */* ]]; then
        echo "TASK must name a task, like TASK=01_threads/task2. These exist:" >&2
        list_solutions | sed -e 's|^solutions/|  |' -e 's|\.cu$||' -e 's|\.c$||' >&2
        return 2
    fi
    room=${want%%/*}; room=${room%/}
    name=${want#*/}; name=${name%.c}; name=${name%.cu}
    for sol in solutions/"$room"*/"$name".c solutions/"$room"*/"$name".cu; do
        if [ -e "$sol" ]; then
            local r=${sol#solutions/}; r=${r%%/*}
            case "$r" in "$room"|"$room"_*) echo "${sol#solutions/}"; return 0 ;; esac
        fi
    done
    echo "no task '$want'. These exist:" >&2
    list_solutions | sed -e 's|^solutions/|  |' -e 's|\.cu$||' -e 's|\.c$||' >&2
    return 2
}

# Copies file into ROOM/.backups/NAME.YYYYmmdd-HHMMSS (never overwriting one) and
# prints the backup's path; fails unless the copy is byte-identical.
backup_file() {
    local file=$1 dir base stamp dest n=1
    dir=$(dirname "$file")/.backups
    base=$(basename "$file")
    stamp=$(date +%Y%m%d-%H%M%S)
    mkdir -p "$dir" || return 1
    dest="$dir/$base.$stamp"
    while [ -e "$dest" ]; do dest="$dir/$base.$stamp-$n"; n=$((n + 1)); done
    { cp -p "$file" "$dest" && cmp -s "$file" "$dest"; } || { echo "backup of $file failed" >&2; return 1; }
    echo "$dest"
}

# The MPI tool that belongs to MPICC, as the grader picks it (toolchain.c: mpi_sibling):
# same folder, same suffix (mpicc.openmpi: mpiexec.openmpi) where it exists, else TOOL.
# The shell copy serves make doctor and make bench, which run before (or without) the grader.
mpi_sibling() {  # mpicc tool
    local dir="" base=$1
    case $1 in */*) dir=${1%/*}/; base=${1##*/} ;; esac
    case $base in mpicc*) command -v "$dir$2${base#mpicc}" >/dev/null 2>&1 && { echo "$dir$2${base#mpicc}"; return; } ;; esac
    echo "$2"
}

# The MPI the grader would use: MPICC (default mpicc), and MPICXX and MPIEXEC where
# they are not set: the ones that belong to MPICC (mpi_sibling).
mpi_defaults() {
    MPICC=${MPICC:-mpicc}
    MPICXX=${MPICXX:-$(mpi_sibling "$MPICC" mpicxx)}
    MPIEXEC=${MPIEXEC:-$(mpi_sibling "$MPICC" mpiexec)}
}

# mpi_run N PROGRAM ARGS...: N ranks, started as the grader starts a task's ranks (its
# launcher table: Hydra, Open MPI with --oversubscribe and leave to run as root, srun
# inside an allocation; MPIEXEC, MPIEXEC_FLAGS and hosts honoured): grade --launch.
mpi_run() {
    local n=$1; shift
    [ -x grading/bin/grade ] || { echo "mpi_run: grading/bin/grade is not built (make all)" >&2; return 2; }
    grading/bin/grade --launch "$n" -- "$@"
}
