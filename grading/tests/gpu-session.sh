#!/usr/bin/env bash
# gpu-session.sh [--debs DIR] [--part essential|grade|sanitize|bench|all] [--dry-run] -- what only a
# machine with an NVIDIA GPU can check.  For maintainers and instructors; make gpu-session.
#
# Maintainers often get a GPU node only for a short interactive slot (a quarter of an hour,
# start-up included, at most 10 minutes a command), so the default part, essential, fits in
# at most 6 minutes on an H100, with room to run it again:
#   build      the grader built (make all) and its unit tests;
#   probe      the sandbox's CUDA probe (grade --sandbox): a CUDA program runs inside the
#              sandbox, or CUDA runs go outside it with a notice (README, "Grading in a sandbox");
#   room04     room 04's solutions PASS natively (CUDA_ARCH=native unless set);
#   room05-06  rooms 05 and 06's solutions PASS natively, at 1 and 2 ranks (grade --max-ranks 2);
#   untouched  rooms 04-06's untouched tasks FAIL, one configuration each (grade --first-config);
#   sanitize   compute-sanitizer memcheck on every CUDA solution, one configuration each;
#   figures    the figures the lessons quote: 04 task1 and task4 at their default sizes (warm
#              copies from pageable and pinned memory, task 4's crossover), the matmul ladder
#              (tasks 7 and 8, 4096^3) against cuBLAS.
# Each step has a time budget (seconds on an H100, times GPU_SESSION_SCALE, default 1) and is
# stopped when it runs past it: the part never runs longer than its plan.  --dry-run (make
# gpu-session DRY_RUN=1) prints the plan and each step's budget, and needs no GPU.
# The longer parts, for a longer slot: grade (rooms 04-06 whole, 05 and 06 at 1..4 ranks;
# room 05's figures; the staging layer; check-gpu), sanitize (memcheck, racecheck and
# synccheck over every CUDA solution), bench (make bench ROOM=04 and ROOM=06); all: the three.
# Every part first lists the machine (the inventory).  --debs DIR: Debian .debs of what the
# machine lacks (jansson, inih, CUnit; bubblewrap for the sandbox), unpacked into
# build/debs-root, not into /.
# The log streams to $OUT/log-PART.txt ($OUT: the folder to copy back from a remote GPU node;
# else build/gpu-session); each step's whole output, its reports, sanitizer logs and figures go
# to build/gpu-session/PART/, packed after every step into $OUT/gpu-session-PART.tgz: two
# files, easy to copy back.  Each step says ok or FAILED; the last line counts them
# (grading/tests/lib-test.sh's summary line).  Exit 0 when every step was ok, 1 otherwise,
# 2 on misuse, 3 when there is no GPU (nothing checked).
# (the steps are called by name: shellcheck takes them for unreachable code)
# shellcheck disable=SC2317
set -u
cd "$(dirname "$0")/../.." || exit 2
usage() { echo "usage: gpu-session.sh [--debs DIR] [--part essential|grade|sanitize|bench|all] [--dry-run]" >&2; exit 2; }
debs="" part=essential dry=${DRY_RUN:-} one_step=""
while [ $# -gt 0 ]; do
    case "$1" in
        --debs) [ $# -ge 2 ] || { echo "gpu-session: --debs needs a folder" >&2; exit 2; }; debs=$2; shift ;;
        --part) [ $# -ge 2 ] || { echo "gpu-session: --part needs essential, grade, sanitize, bench or all" >&2; exit 2; }
                case "$2" in essential|grade|sanitize|bench|all) part=$2 ;;
                    *) echo "gpu-session: bad --part '$2': one of essential, grade, sanitize, bench, all" >&2; exit 2 ;; esac
                shift ;;
        --dry-run) dry=1 ;;
        --run-step) [ $# -ge 2 ] || usage; one_step=$2; shift ;;  # (internal: one step, under its budget)
        *) usage ;;
    esac
    shift
done
case "$dry" in ""|0) dry="" ;; 1) ;; *) echo "gpu-session: DRY_RUN=$dry: 1 (print the plan) or 0" >&2; exit 2 ;; esac
scale=${GPU_SESSION_SCALE:-1}
if ! [[ "$scale" =~ ^[0-9]*\.?[0-9]+$ ]] || ! awk -v s="$scale" 'BEGIN { exit !(s > 0 && s <= 100) }'; then
    echo "gpu-session: GPU_SESSION_SCALE=$scale: a number above 0, at most 100 (it multiplies every step's budget)" >&2; exit 2
fi

# The plans: "name budget what" a step, budgets in seconds on an H100 (measured there on
# 2026-11-23 for the older steps; the essential part's are estimates from those runs until a
# GPU runs it: docs/gpu-results.md).
plan_essential=(
    "build 35 the grader built (make all) and its unit tests"
    "probe 10 the sandbox's CUDA probe: a CUDA program inside the sandbox, or the fallback"
    "room04 50 room 04's solutions PASS natively"
    "room05-06 75 rooms 05 and 06's solutions PASS natively at 1 and 2 ranks"
    "untouched 45 rooms 04-06's untouched tasks FAIL, one configuration each"
    "sanitize 65 compute-sanitizer memcheck on every CUDA solution, one configuration each"
    "figures 30 04 task1 and task4 (copies, crossover), tasks 7 and 8 against cuBLAS"
)
plan_grade=(
    "build 50 the grader built (make all) and its unit tests"
    "probe 10 the sandbox's CUDA probe: a CUDA program inside the sandbox, or the fallback"
    "grade04 100 room 04 natively: solutions PASS, untouched tasks FAIL (every configuration)"
    "grade05 150 room 05 natively, 1..4 ranks: solutions PASS, untouched tasks FAIL"
    "grade06 120 room 06 natively, 1..4 ranks: solutions PASS, untouched tasks FAIL"
    "room05-figures 60 room 05's solutions at their default sizes, 1..4 ranks: their own figures"
    "staging-layer 30 pr.h's staging layer: every MPI call on device buffers, 1..4 ranks"
    "check-gpu 30 the smoke fixture natively, compute-sanitizer on it"
)
plan_sanitize=(
    "build 50 the grader built (make all) and its unit tests"
    "sanitize-all 240 compute-sanitizer memcheck, racecheck, synccheck on every CUDA solution"
)
plan_bench=(
    "build 50 the grader built (make all) and its unit tests"
    "bench04 150 make bench ROOM=04: copy, CUB, cuBLAS and the kernels against them"
    "bench06 100 make bench ROOM=06: DDP on the CPU, 06 task6's GPU DDP at 1..4 ranks"
)
case "$part" in
    essential) plan=("${plan_essential[@]}") ;;
    grade) plan=("${plan_grade[@]}") ;;
    sanitize) plan=("${plan_sanitize[@]}") ;;
    bench) plan=("${plan_bench[@]}") ;;
    all) plan=("${plan_grade[@]}" "${plan_sanitize[@]:1}" "${plan_bench[@]:1}") ;;
esac
INVENTORY_BUDGET=5  # the inventory: nvidia-smi, versions (not stopped: it decides whether anything runs)
# budget NAME-BUDGET: a step's budget in whole seconds, scaled (at least 1)
budget() { awk -v b="$1" -v s="$scale" 'BEGIN { v = int(b * s + 0.5); print (v < 1 ? 1 : v) }'; }

if [ -n "$dry" ]; then
    total=$(budget $INVENTORY_BUDGET)
    echo "gpu-session: the plan of part $part (each step stopped at its budget: seconds on an H100${GPU_SESSION_SCALE:+, times GPU_SESSION_SCALE=$scale})"
    printf '  %-15s %6s  %s\n' step budget what inventory "$(budget $INVENTORY_BUDGET)" "the GPU, driver, nvcc, MPI, NCCL, compute-sanitizer, cores"
    for s in "${plan[@]}"; do
        read -r name b what <<<"$s"
        b=$(budget "$b")
        total=$((total + b))
        printf '  %-15s %6s  %s\n' "$name" "$b" "$what"
    done
    printf '  %-15s %6s  %s\n' total "$total" "seconds at most ($((total / 60)) min $((total % 60)) s), with the packing of OUT after each step"
    exit 0
fi

# ---- the steps (each runs as its own process: gpu-session.sh --run-step NAME, under its budget;
# called by name, which shellcheck cannot see: SC2317 is off for the file, above)
refs=build/gpu-session/refs
# gradeset LABEL GRADER-OPTIONS... -- GROUP...: one grader a group of tasks (GROUP: --task's list,
# or a room's number), side by side (the machine's cores build while the GPU runs), each with a
# build folder of its own; their outputs shown one after the other.  Fails when one does.
gradeset() {
    local label=$1 opts=() sel g i=0 rc=0 pids=()
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    for g in "$@"; do
        i=$((i + 1))
        if [[ $g == *task* ]]; then sel=(--task "$g"); else sel=(--room "$g"); fi
        grading/bin/grade --werror --seed "$GPU_SESSION_SEED" --ref-dir "$refs" \
            --build-dir "build/gpu-session/build-$label-$i" --json "$keep/$label-$i.json" \
            --junit "$keep/$label-$i.xml" "${opts[@]}" "${sel[@]}" > "$keep/$label-$i.out" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do wait "${pids[$i]}" || rc=1; done
    for i in $(seq 1 ${#pids[@]}); do cat "$keep/$label-$i.out"; done
    return "$rc"
}
step_build() { make -s -j"$(nproc)" all && make -s unit-test DEPS=true; }
step_probe() {
    local line rc
    line=$(grading/bin/grade --sandbox 2>&1); rc=$?
    echo "grade --sandbox: $line"
    case "$line" in
        *"CUDA: a CUDA program runs inside it"*) echo "CUDA tasks' builds and runs are inside the sandbox" ;;
        *"CUDA runs are not:"*) echo "the fallback: CUDA tasks' runs go outside the sandbox, with a notice; class grading refuses without SANDBOX=off" ;;
        off*) echo "no sandbox here (bubblewrap: install it, or pass its .deb with DEBS=)"; return 1 ;;
        *) echo "the probe gave no verdict (exit $rc)"; return 1 ;;
    esac
}
# (the groups: about even shares of the times measured on an H200 on 2026-11-28)
step_room04() {
    gradeset room04 --tasks-from solutions --expect pass -- \
        04_cuda/task1,04_cuda/task8,04_cuda/task10 04_cuda/task2,04_cuda/task6,04_cuda/task9 04_cuda/task3,04_cuda/task7 04_cuda/task4,04_cuda/task5
}
step_room05_06() {
    gradeset room05-06 --tasks-from solutions --expect pass --max-ranks 2 -- \
        05_cuda_mpi/task1,05_cuda_mpi/task2 05_cuda_mpi/task3,05_cuda_mpi/task4 \
        06_data_parallel/task1,06_data_parallel/task2,06_data_parallel/task3,06_data_parallel/task4,06_data_parallel/task5 \
        06_data_parallel/task6,06_data_parallel/task7,06_data_parallel/task8,06_data_parallel/task9,06_data_parallel/task10
}
step_untouched() {
    bash grading/tools/pristine.sh build/pristine || return 1
    gradeset untouched --tasks-from build/pristine --expect fail --first-config -- 04 05 06
}
step_sanitize() {
    local rc
    SANITIZE_GPU_TOOLS=memcheck SANITIZE_GPU_TIMEOUT=40 bash grading/tests/sanitize-gpu.sh; rc=$?
    cp -r build/sanitize-gpu/log "$keep/sanitize-logs" 2>/dev/null
    return "$rc"
}
# The figures the lessons quote, from the solutions themselves at their default sizes (one run
# each: each program warms up and takes the best of its repetitions).
step_figures() {
    local t args rc=0 libs=()
    ldconfig -p 2>/dev/null | grep -q libcublas && libs=(-lcublas)
    # each program, its arguments, and what its figures' lines say
    local -a figs=("task1|-|GPU \+ pinned copies" "task4|-|first wins at|did not win up to"
                   "task7|m=4096 n=4096 k=4096|cuBLAS [0-9.]+ GFLOP/s" "task8|m=4096 n=4096 k=4096|cuBLAS [0-9.]+ GFLOP/s")
    local f want
    for f in "${figs[@]}"; do
        t=${f%%|*} f=${f#*|}; args=${f%%|*} want=${f#*|}
        [ "$args" = - ] && args=""
        echo "-- 04 $t ${args:-(default sizes)}"
        "${NVCC:-nvcc}" -O3 -arch="$CUDA_ARCH" -Xcompiler -fopenmp -Igrading/include -I04_cuda \
            -o "build/gpu-session/fig-$t" "solutions/04_cuda/$t.cu" "${libs[@]}" -lm || { rc=1; continue; }
        # shellcheck disable=SC2086  # args: key=value words
        "build/gpu-session/fig-$t" $args > "build/gpu-session/fig-$t.txt" 2>&1 || rc=1
        cat "build/gpu-session/fig-$t.txt"
        grep -Eq "$want" "build/gpu-session/fig-$t.txt" || { echo "04 $t printed no figures ('$want')"; rc=1; }
    done
    return "$rc"
}
step_grade_room() {  # the longer grade part: room $1 whole, solutions PASS and untouched FAIL
    local rc=0
    make -s check-solutions ROOM="$1" || rc=1
    cp build/check-solutions.json "$keep/room$1-solutions.json" 2>/dev/null
    make -s check-tasks ROOM="$1" || rc=1
    cp build/check-tasks.json "$keep/room$1-tasks.json" 2>/dev/null
    return "$rc"
}
step_grade04() { step_grade_room 04; }
step_grade05() { step_grade_room 05; }
step_grade06() { step_grade_room 06; }
# The figures the grader does not keep (a passing run's output is not logged): room 05's
# solutions at their default sizes, 1..4 ranks sharing the GPU(s).  PR_MPI_STAGE=1: the
# CUDA-aware paths run too, through pr.h's staging layer where the MPI is not CUDA-aware
# (their times labelled so).
step_room05_figures() {
    local t p libs=() rc=0
    ldconfig -p 2>/dev/null | grep -q libnccl && libs=(-lnccl)
    for t in solutions/05_cuda_mpi/task*.cu; do
        "${NVCC:-nvcc}" -O3 -arch="$CUDA_ARCH" -ccbin "$MPICXX" -Xcompiler -fopenmp -Igrading/include -I05_cuda_mpi \
            -o build/gpu-session/figures "$t" "${libs[@]}" || return 1
        for p in 1 2 3 4; do
            echo "-- $t, $p rank(s)"
            PR_MPI_STAGE=1 timeout 120 bash -c '. grading/tools/lib.sh && mpi_run "$@"' mpi_run "$p" build/gpu-session/figures || rc=1
        done
    done
    return "$rc"
}
step_staging_layer() {
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
step_check_gpu() {
    local rc
    make -s check-gpu; rc=$?
    mkdir -p "$keep/gpu-smoke" && cp build/gpu-smoke/*.json "$keep/gpu-smoke/" 2>/dev/null
    return "$rc"
}
step_sanitize_all() {
    local rc
    # 120 s a run (the script's default is 300): one hung run must not eat the part's time
    SANITIZE_GPU_TIMEOUT="${SANITIZE_GPU_TIMEOUT:-120}" make -s sanitize-gpu; rc=$?
    cp -r build/sanitize-gpu/log "$keep/sanitize-gpu-logs" 2>/dev/null
    return "$rc"
}
step_bench_room() {
    local rc bench_out=${BENCH_OUT:-build/bench}
    make -s bench ROOM="$1"; rc=$?
    mkdir -p "$keep/bench$1" && cp "$bench_out"/bench.* "$bench_out"/gpu*.txt "$keep/bench$1/" 2>/dev/null
    return "$rc"
}
step_bench04() { step_bench_room 04; }
step_bench06() { step_bench_room 06; }

keep=build/gpu-session/$part
if [ -n "$one_step" ]; then
    . grading/tools/lib.sh  # mpi_defaults, mpi_run
    mpi_defaults            # MPICC, and the MPICXX and MPIEXEC beside it
    export MPIEXEC
    fn=step_${one_step//-/_}
    declare -F "$fn" >/dev/null || { echo "gpu-session: no step '$one_step'" >&2; exit 2; }
    "$fn"
    exit $?
fi

# ---- the session
. grading/tests/lib-test.sh
out=${OUT:-build/gpu-session}
{ rm -rf "$keep" && mkdir -p "$out" "$keep"; } || t_abort "cannot make $keep and $out" 2
# pack: everything under $keep so far into $out/gpu-session-PART.tgz (again after each
# step: a call cut short at its time limit still brings back what was done)
pack() { tar czf "$out/gpu-session-$part.tgz.new" -C build/gpu-session "$part" &&
         mv "$out/gpu-session-$part.tgz.new" "$out/gpu-session-$part.tgz"; }
exec > >(tee "$out/log-$part.txt") 2>&1
tee_pid=$!
export NO_COLOR=1 LC_ALL=C CUDA_ARCH=${CUDA_ARCH:-native}
# one draw for the whole session: each reference runs once per configuration
export GPU_SESSION_SEED=${GPU_SESSION_SEED:-$(( $(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % 999999999 + 1 ))}
started=$SECONDS

echo "== inventory (part $part; the draw: GPU_SESSION_SEED=$GPU_SESSION_SEED)"
date -u
git log -1 --format='commit %h (%cd)' --date=short 2>/dev/null || echo "commit: not a git checkout"
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || echo "  (with changes not committed: git status --short)"

if ! nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,compute_mode --format=csv; then
    t_skip "no NVIDIA GPU here (nvidia-smi fails): nothing checked"
    t_summary
    exit 3
fi
if [ -n "$debs" ]; then
    root=$PWD/build/debs-root
    mkdir -p "$root"
    set -- "$debs"/*.deb
    [ -e "$1" ] || t_abort "no .deb files in $debs (copy them there first: they are not in git)"
    for f in "$@"; do dpkg -x "$f" "$root" || t_abort "dpkg -x $f"; done
    export CPATH=$root/usr/include${CPATH:+:$CPATH}
    export LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
    export LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export PATH=$PATH:$root/usr/bin  # bwrap, where its .deb came along (the list below shows it)
    echo "  libraries from $debs unpacked into $root"
fi
for p in gcc make nvcc mpicc mpicxx mpiexec compute-sanitizer bwrap; do printf '  %-18s %s\n' "$p" "$(command -v "$p" || echo MISSING)"; done
nvcc --version 2>/dev/null | tail -2
mpiexec --version 2>&1 | head -2
echo "  NCCL: $( (ldconfig -p 2>/dev/null | grep -m1 -o 'libnccl.so[.0-9]*') || echo 'no libnccl in ldconfig')," \
     "header: $(for h in /usr/include/nccl.h /usr/local/cuda/include/nccl.h; do if [ -e "$h" ]; then echo "$h"; break; fi; done)"
echo "  cores: $(nproc), $(head -1 /etc/os-release)"


for s in "${plan[@]}"; do
    read -r name b what <<<"$s"
    b=$(budget "$b")
    echo; echo "== $name: $what (budget $b s; $((SECONDS - started)) s so far)"
    t0=$SECONDS
    timeout -k 10 "$b" bash "$0" --part "$part" --run-step "$name" > "$keep/$name.txt" 2>&1
    rc=$?
    # what to show: the grader's task lines, else the step's last lines
    if grep -qE '^\[ *[0-9]+/[0-9]+\]' "$keep/$name.txt"; then
        grep -E '^\[ *[0-9]+/[0-9]+\]|^grading [0-9]+ task' "$keep/$name.txt" | tail -n 30
    fi
    tail -n 8 "$keep/$name.txt"
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        t_fail "$name: stopped at its budget of $b s (what it had done is in $keep/$name.txt)"
    elif [ $rc -eq 0 ]; then
        t_pass "$name ($((SECONDS - t0)) s of $b)"
    else
        t_fail "$name (exit $rc, $((SECONDS - t0)) s of $b)"
    fi
    pack
    if [ "$name" = build ] && [ $rc -ne 0 ]; then t_say "nothing more can run"; break; fi
done

echo
pack
t_say "$((SECONDS - started)) s; log in $out/log-$part.txt, each step's whole output in $out/gpu-session-$part.tgz"
t_summary gpu-session "part $part: every step ok"
rc=$?
exec >&- 2>&-
wait "$tee_pid" 2>/dev/null  # let tee write the last lines before the call ends
exit $rc
