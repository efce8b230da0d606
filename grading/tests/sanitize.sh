#!/usr/bin/env bash
# sanitize.sh -- the reference solutions under sanitizers (make sanitize; issue 12).
#
#   asan+ubsan  every C and MPI solution (kinds c, pthreads, openmp, processes, mpi),
#               gcc/mpicc -fsanitize=address,undefined, in the first and the last
#               configuration of each `runs` line of its tasks.ini (MPI: 3 ranks too),
#               leak detection on;
#   tsan        the OpenMP solutions, clang -fopenmp=libomp -fsanitize=thread with LLVM's
#               Archer tool (OMPT), OMP_NUM_THREADS=2 and 4 (libgomp is not TSan-aware);
#   helgrind    the pthreads solutions under valgrind --tool=helgrind, threads=2 and 4,
#               small sizes;
#   simpp       the CUDA simulator's pre-pass built with ASan+UBSan, run over every .cu;
#   sim         the CUDA solutions (rooms 04, 05, 06) built by grading/sim/simcc with
#               ASan+UBSan and run in the simulator (its fibers tell ASan about their
#               stacks: see CUDA_SIM_ASAN_FIBERS in grading/sim/cuda_sim.h).
#
# A run is clean when it exits 0 (the program's own verdict) and prints no sanitizer
# report.  One line per run as it ends: "sanitize: <tool> <task> [config]: clean" or
# "FAILED" with the report's first lines; then each build or run that failed, named
# again ("sanitize: FAILED: ..."), and grading/tests/lib-test.sh's summary line
# ("sanitize: ok: N passed: all clean ..." and exit 0, or "sanitize: FAILED: K of N"
# and exit 1).  Needs gcc, MPICH (mpicc, mpiexec), clang + libomp-dev (Archer) and
# valgrind: installed with apt-get when missing and running as root, otherwise named.
# Environment: SANITIZE_JOBS (parallel runs; default: the number of cores).
# Works in build/sanitize/ (removed and made afresh every time).
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
start_ns=$(date +%s%N)
export NO_COLOR=1 LC_ALL=C
W=build/sanitize
jobs_max=${SANITIZE_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs_max" -ge 1 ] 2>/dev/null || jobs_max=2

elapsed() { echo $(( ($(date +%s%N) - start_ns) / 1000000000 )); }

# ---------------------------------------------------------------- tools ----
archer_lib() {
    local f
    for f in /usr/lib/llvm-*/lib/libarcher.so; do if [ -e "$f" ] || [ -L "$f" ]; then echo "$f"; fi; done | sort -V | tail -n1
}
missing_packages() {
    local p=()
    command -v gcc >/dev/null 2>&1 || p+=(gcc)
    command -v g++ >/dev/null 2>&1 || p+=(g++)
    { command -v mpicc >/dev/null 2>&1 && command -v mpicxx >/dev/null 2>&1 && command -v mpiexec >/dev/null 2>&1; } ||
        p+=(mpich libmpich-dev)
    command -v clang >/dev/null 2>&1 || p+=(clang)
    [ -n "$(archer_lib)" ] || p+=(libomp-dev)
    command -v valgrind >/dev/null 2>&1 || p+=(valgrind)
    echo "${p[*]}"
}
need=$(missing_packages)
if [ -n "$need" ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        t_say "installing: $need"
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need >/dev/null ||
            { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need >/dev/null; }
        need=$(missing_packages)
    fi
    if [ -n "$need" ]; then
        t_abort "missing tools. Install them with:  sudo apt-get install $need"
    fi
fi
ARCHER=$(archer_lib)
# The LLVM that owns libarcher.so (llvm-14) and its clang: the OpenMP runtime must match.
llvm_dir=${ARCHER%/lib/libarcher.so}
CLANG=clang
[ -x "$llvm_dir/bin/clang" ] && CLANG=$llvm_dir/bin/clang

{ rm -rf "$W" && mkdir -p "$W/bin" "$W/log" "$W/jobs" "$W/res"; } || t_abort "cannot make $W" 2
W_ABS=$(cd "$W" && pwd)

# ------------------------------------------------------- sanitizer options ----
ASAN_BASE="detect_leaks=1:abort_on_error=0:exitcode=86"
UBSAN_OPTS="print_stacktrace=1:halt_on_error=1"
# MPICH (ch4:ucx) leaks in MPI_Init/MPI_Finalize: in its own code, in UCX, and in hwloc's
# plugins (hwloc_opencl, ...), which are unloaded again before the leak check.  Their
# frames are found only by the slow unwinder (the libraries have no frame pointers):
# each suppression names a library of MPI's, never the workbook's code.
cat > "$W/lsan-mpi.supp" <<'EOF'
# LeakSanitizer suppressions for MPI runs only: leaks inside MPI's own libraries.
leak:libmpich
leak:libmpi.so
leak:libopen-pal
leak:libopen-rte
leak:libpmix
leak:libhwloc
leak:libucp
leak:libucs
leak:libuct
leak:libfabric
EOF
ASAN_MPI="$ASAN_BASE:fast_unwind_on_malloc=0"
LSAN_MPI="suppressions=$W_ABS/lsan-mpi.supp:print_suppressions=0"
TSAN_OPTS="ignore_noninstrumented_modules=1 halt_on_error=1 exitcode=66"

# Tasks whose solution kills a child process with raise(SIGSEGV) on purpose (room 02:
# task2's crashing pool worker, task5's isolation demo): ASan must leave SIGSEGV alone
# there, or it reports the deliberate crash and the child exits 86 instead of dying of
# the signal the program checks for.  Bad accesses are still caught by ASan's own
# checks (which need no signal); a wild one still kills the program, and fails the run.
asan_extra() {
    case "$1" in
        02_processes/task2|02_processes/task5) echo ":handle_segv=0" ;;
    esac
}

# ------------------------------------------------------------- the tasks ----
# task_configs: one line per chosen run, "id<TAB>solution<TAB>kind<TAB>config", from the
# grader's own reading of tasks.ini (grade --describe): the first and the last
# configuration of every runs line (every key at its first / last value) and, for MPI,
# the last one with ranks=3 when the line lists 3 ranks.
task_configs() {
    grading/bin/grade --describe | awk -F'\t' -v OFS='\t' '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }   # the columns by name
    {
        k = $c["task"] SUBSEP $c["line"]; cfg = $c["config"]
        if (!(k in first)) { first[k] = cfg; order[++n] = k; id[k] = $c["task"]; sol[k] = $c["solution"]; kind[k] = $c["kind"] }
        last[k] = cfg
        if ((" " cfg " ") ~ / ranks=3 /) three[k] = cfg
    }
    END {
        for (i = 1; i <= n; i++) {
            k = order[i]
            print id[k], sol[k], kind[k], first[k]
            if (last[k] != first[k]) print id[k], sol[k], kind[k], last[k]
            if ((k in three) && three[k] != first[k] && three[k] != last[k]) print id[k], sol[k], kind[k], three[k]
        }
    }'
}

# ------------------------------------------------------------------ jobs ----
# A job is a small bash script in $W/jobs; it runs one build or one sanitizer run,
# keeps the output in $W/log, writes its verdict to $W/res and prints its line.  The
# jobs run in processes of their own: tally_jobs counts their verdicts here.
njobs=0 job_labels=()
cfg_get() { local w; for w in $2; do [ "${w%%=*}" = "$1" ] && { echo "${w#*=}"; return; }; done; }
cfg_args() { local w out=""; for w in $1; do [ "${w%%=*}" = ranks ] || out+=" $w"; done; echo "${out# }"; }
q() { printf '%q ' "$@"; }

# add_job LABEL ENV-ASSIGNMENTS COMMAND...: the command runs with the assignments
# exported, under a time limit (in its own process group, killed as a whole).
add_job() {
    local label=$1 envs=$2; shift 2
    njobs=$((njobs + 1))
    local id; id=$(printf '%03d' "$njobs")
    job_labels[njobs]=$label
    {
        echo "cd $(q "$PWD")"
        echo "log=$(q "$W/log/$id.log") res=$(q "$W/res/$id")"
        [ -n "$envs" ] && echo "export $envs"
        echo "timeout -k 5 ${JOB_TIMEOUT:-90} $(q "$@") </dev/null >\"\$log\" 2>&1; rc=\$?"
        echo "label=$(q "$label")"
        # shellcheck disable=SC2016  # a line of the job script: expanded when it runs
        echo 'verdict "$label" "$rc" "$log" "$res"'
    } > "$W/jobs/$id.sh"
}

# What counts as a report, for every tool.
report_re='ERROR: (AddressSanitizer|LeakSanitizer)|AddressSanitizer:DEADLYSIGNAL|runtime error:|WARNING: ThreadSanitizer|ThreadSanitizer: |SUMMARY: [A-Za-z]*Sanitizer|ERROR SUMMARY: [1-9]|Possible data race|Lock order|cuda-sim: error'
# shellcheck disable=SC2317  # the job scripts call it (export -f)
verdict() {
    local label=$1 rc=$2 log=$3 res=$4 first
    first=$(grep -m1 -n -E "$report_re" "$log" | cut -d: -f1)
    if [ "$rc" -eq 0 ] && [ -z "$first" ]; then
        echo "clean" > "$res"
        echo "sanitize: $label: clean"
        return
    fi
    echo "failed" > "$res"
    local why="exit status $rc"
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why="timed out (${JOB_TIMEOUT:-90} s)"
    {
        echo "sanitize: $label: FAILED ($why; log: $log)"
        if [ -n "$first" ]; then
            sed -n "${first},$((first + 11))p" "$log"
        else
            tail -n 8 "$log"
        fi | sed -e 's/^/    /'
    } | cat   # one write per line, lines of parallel jobs do not mix
}
export -f verdict
export report_re JOB_TIMEOUT

# run_jobs: every job in $W/jobs, $jobs_max at a time; then empties $W/jobs.
run_jobs() {
    local j
    for j in "$W"/jobs/*.sh; do
        [ -e "$j" ] || continue
        while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
        bash "$j" &
    done
    wait
    rm -f "$W"/jobs/*.sh
}

# tally_jobs: one check per job run since the last tally (t_pass when its verdict is
# clean; t_fail, naming it again, when not or when it left none); then starts afresh.
tally_jobs() {
    local n id res
    for ((n = 1; n <= njobs; n++)); do
        id=$(printf '%03d' "$n") res=$W/res/$(printf '%03d' "$n")
        if [ "$(cat "$res" 2>/dev/null)" = clean ]; then
            t_pass
        elif [ -e "$res" ]; then
            t_fail "${job_labels[n]} (log: $W/log/$id.log)"
        else
            t_fail "${job_labels[n]}: no verdict (log: $W/log/$id.log)"
        fi
    done
    njobs=0 job_labels=()
    rm -f "$W"/res/*
}

# ---------------------------------------------------------------- builds ----
# shellcheck disable=SC2054
ASAN_CFLAGS=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -g -O1)
# The grader's own build command for each solution (grade --print-build), under the
# compiler and flags of one sanitizer (CC, GRADE_CFLAGS: the grader's C flags, replaced),
# into $W/b-NAME/bin/ref/TASK: no kind-to-flags table of its own here.
#   print_builds NAME ASSIGNMENTS...   the lines "task<TAB>exe<TAB>words..." into $W/NAME.builds
print_builds() {
    local name=$1; shift
    env "$@" GRADE_CUDA=sim grading/bin/grade --print-build solution --build-dir "$W/b-$name" > "$W/$name.builds" ||
        t_abort "grading/bin/grade --print-build failed ($name)"
}
# add_build NAME TASK EXTRA-WORDS...: a job that runs TASK's printed command for NAME (the
# extra words after it), when there is one.
add_build() {
    local name=$1 id=$2 line words; shift 2
    line=$(awk -F'\t' -v id="$id" '$1 == id' "$W/$name.builds")
    [ -n "$line" ] || { t_fail "no build command for $id ($name)"; return; }
    IFS=$'\t' read -r -a words <<<"$line"
    mkdir -p "$(dirname "${words[1]}")"
    # the grader's profiler build (simcc --profile: ThreadSanitizer's instrumentation) and
    # ASan do not go together; the program is the same without it
    local w kept=()
    for w in "${words[@]:2}"; do [ "$w" = --profile ] || kept+=("$w"); done
    add_job "build $name $id" "" "${kept[@]}" "$@"
}
exe_name() { echo "$W/b-$2/bin/ref/$1"; }

all_configs=$W/configs.tsv
task_configs > "$all_configs" || t_abort "grading/bin/grade --describe failed"

print_builds asan CC=gcc GRADE_CFLAGS="-std=c11 ${ASAN_CFLAGS[*]}"
print_builds tsan CC="$CLANG" GRADE_CFLAGS="-std=c11 -fopenmp=libomp -fsanitize=thread -g -O1"
print_builds plain CC=gcc GRADE_CFLAGS="-std=c11 -g -O1"
print_builds sim
JOB_TIMEOUT=120
# 1. ASan+UBSan builds (gcc, mpicc for MPI), TSan for OpenMP, plain -g for Helgrind
while IFS=$'\t' read -r id _ kind; do
    case "$kind" in c|pthreads|openmp|processes|mpi) ;; *) continue ;; esac
    add_build asan "$id"
    if [ "$kind" = openmp ]; then add_build tsan "$id"; fi
    if [ "$kind" = pthreads ]; then add_build plain "$id"; fi
done < <(cut -f1-3 "$all_configs" | sort -u)
# 2. the pre-pass with ASan+UBSan, and the CUDA solutions through simcc with ASan+UBSan
# (simcc keeps the last -O it is given: -O1 after the grader's -O2)
mkdir -p "$W/bin"
add_job "build asan+ubsan simpp" "" gcc "${ASAN_CFLAGS[@]}" -o "$W/bin/simpp" grading/sim/simpp.c
SIM_X=(-O1 -g -Xcompiler -fsanitize=address -Xcompiler -fsanitize=undefined -Xcompiler -fno-omit-frame-pointer
       -Xcompiler -fno-sanitize-recover=all)
while IFS=$'\t' read -r id _ kind; do
    case "$kind" in cuda|cuda_mpi) add_build sim "$id" "${SIM_X[@]}" ;; esac
done < <(cut -f1-3 "$all_configs" | sort -u)
# simcc builds the plain pre-pass on first use: do it once here, not in parallel builds.
grading/sim/simcc -o "$W/bin/warmup" -c solutions/04_cuda/task1.cu -Igrading/include >/dev/null 2>&1
t_say "building $njobs programs with the sanitizers ..."
run_jobs > "$W/builds.txt"
grep -v ': clean$' "$W/builds.txt"
builds=$njobs
tally_jobs

# ------------------------------------------------------------------ runs ----
JOB_TIMEOUT=60
# run_env KIND CONFIG: the environment of one run (OMP_NUM_THREADS from threads=)
threads_env() { local t; t=$(cfg_get threads "$2"); [ -n "$t" ] && echo "OMP_NUM_THREADS=$t"; }

# 1. ASan+UBSan: every chosen configuration
while IFS=$'\t' read -r id _ kind cfg; do
    exe=$(exe_name "$id" asan)
    [ -x "$exe" ] || continue
    args=$(cfg_args "$cfg")
    tenv=$(threads_env "$kind" "$cfg")
    case "$kind" in
        mpi)
            ranks=$(cfg_get ranks "$cfg"); ranks=${ranks:-1}
            # shellcheck disable=SC2086
            add_job "asan+ubsan $id [$cfg]" "ASAN_OPTIONS=$ASAN_MPI LSAN_OPTIONS=$LSAN_MPI UBSAN_OPTIONS=$UBSAN_OPTS $tenv" \
                mpiexec -n "$ranks" "$exe" $args ;;
        c|pthreads|openmp|processes)
            # shellcheck disable=SC2086
            add_job "asan+ubsan $id [$cfg]" "ASAN_OPTIONS=$ASAN_BASE$(asan_extra "$id") UBSAN_OPTIONS=$UBSAN_OPTS $tenv" \
                "$exe" $args ;;
    esac
done < "$all_configs"

# 2. TSan + Archer: the OpenMP solutions with 2 and 4 threads, at the smaller (last) sizes
while IFS=$'\t' read -r id _ kind cfg; do
    exe=$(exe_name "$id" tsan)
    [ -x "$exe" ] || continue
    # the last configuration of a runs line only (its sizes are the small ones)
    last=$(awk -F'\t' -v id="$id" '$1 == id' "$all_configs" | tail -n1 | cut -f4)
    [ "$cfg" = "$last" ] || continue
    for t in 2 4; do
        c=$(sed -E "s/(^| )threads=[0-9]+/\1threads=$t/" <<<"$cfg")
        # shellcheck disable=SC2086,SC2046
        add_job "tsan $id [$c]" "OMP_TOOL_LIBRARIES=$ARCHER TSAN_OPTIONS='$TSAN_OPTS' OMP_NUM_THREADS=$t" \
            "$exe" $(cfg_args "$c")
    done
done < <(awk -F'\t' '$3 == "openmp"' "$all_configs")

# 3. Helgrind: the pthreads solutions with 2 and 4 threads at small sizes (valgrind runs
#    them ~100x slower).  Sizes beyond tasks.ini's are within each program's own ranges
#    (run it with `help`).
helgrind_cfg() {
    case "$1" in
        01_threads/task1) echo "n=1001 seed=7" ;;
        01_threads/task5) echo "items=23 sleep_ms=1 spin=2000 seed=7" ;;
        06_data_parallel/task2) echo "n=301 batch=29 epochs=2 seed=7" ;;
        *) awk -F'\t' -v id="$1" '$1 == id' "$all_configs" | tail -n1 | cut -f4 | sed -E 's/(^| )threads=[0-9]+//' ;;
    esac
}
while read -r id; do
    exe=$(exe_name "$id" plain)
    [ -x "$exe" ] || continue
    for t in 2 4; do
        c="threads=$t $(helgrind_cfg "$id")"
        # shellcheck disable=SC2086
        add_job "helgrind $id [$c]" "" valgrind --tool=helgrind --error-exitcode=77 -q "$exe" $c
    done
done < <(awk -F'\t' '$3 == "pthreads" { print $1 }' "$all_configs" | sort -u)

# 4. the pre-pass over every CUDA source (solutions, tasks, the simulator's tests), as simcc runs it
if [ -x "$W/bin/simpp" ]; then
    mkdir -p "$W/simpp"
    for cu in solutions/[0-9][0-9]_*/task*.cu [0-9][0-9]_*/task*.cu grading/sim/tests/*.cu; do
        [ -e "$cu" ] || continue
        add_job "asan+ubsan simpp $cu" "ASAN_OPTIONS=$ASAN_BASE UBSAN_OPTIONS=$UBSAN_OPTS" \
            "$W/bin/simpp" "$cu" "$W/simpp/${cu//\//_}.cpp"
    done
fi

# 5. the CUDA solutions in the simulator, built with ASan+UBSan
while IFS=$'\t' read -r id _ kind cfg; do
    exe=$(exe_name "$id" sim)
    [ -x "$exe" ] || continue
    args=$(cfg_args "$cfg")
    case "$kind" in
        cuda)
            # shellcheck disable=SC2086
            add_job "asan+ubsan sim $id [$cfg]" "ASAN_OPTIONS=$ASAN_BASE UBSAN_OPTIONS=$UBSAN_OPTS" "$exe" $args ;;
        cuda_mpi)
            ranks=$(cfg_get ranks "$cfg"); ranks=${ranks:-1}
            # shellcheck disable=SC2086
            add_job "asan+ubsan sim $id [$cfg]" "ASAN_OPTIONS=$ASAN_MPI LSAN_OPTIONS=$LSAN_MPI UBSAN_OPTIONS=$UBSAN_OPTS" \
                mpiexec -n "$ranks" "$exe" $args ;;
    esac
done < "$all_configs"

t_say "$njobs sanitizer runs, $jobs_max at a time ..."
run_jobs
runs=$njobs
tally_jobs

# Nothing of ours may still be running (every run had its own process group and limit).
left=$(pgrep -f "$W_ABS/bin/|$W/bin/" 2>/dev/null | tr '\n' ' ')
if [ -n "$left" ]; then
    t_fail "processes left running: $left (killed)"
    # shellcheck disable=SC2086
    kill -9 $left 2>/dev/null
else
    t_pass
fi

t_say "$runs runs, $builds builds in $(elapsed) s; logs in $W/log"
t_summary sanitize "all clean ($runs runs, $builds builds, nothing left running)"
