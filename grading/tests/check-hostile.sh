#!/usr/bin/env bash
# check-hostile.sh -- broken tasks, run through the real grader, get the right status
# quickly and leave nothing running; solutions reject bad arguments with exit 2.
#
# Each hostile program in grading/tests/hostile/ stands in for 01_threads/task1
# (via --tasks-from), so nothing in the learner's working copy is touched.
# --mpi-only: the MPI cases alone (make test-openmpi runs them under Open MPI).
set -u
mpi_only=0
[ "${1:-}" = --mpi-only ] && mpi_only=1
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
GRADE=grading/bin/grade
# shellcheck disable=SC2001  # one sed for every character a regex treats specially
here=$(sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$PWD")  # this checkout's path, as a regex (pgrep -f)
work=build/hostile
rm -rf "$work"
mkdir -p "$work/01_threads"
export NO_COLOR=1 GRADE_TIMEOUT_SCALE=0.2   # task1's 10 s timeout becomes 2 s
# Open MPI starts ranks more slowly than MPICH (and winds a failed job down more slowly
# where its kill delay is not 0, as the grader sets it): it gets twice the time for
# every case (make test-openmpi; the GPU machines have it).
slow=1
[ "$(grading/bin/grade --launcher | cut -f1)" = openmpi ] && slow=2   # the launcher the grader picks

# grade_hostile NAME EXPECTED_STATUS MAX_SECONDS [grep pattern the output must contain]
# The hostile program stands in for TASK (default 01_threads/task1) of workbook ROOT (default .).
grade_hostile() {
    local name=$1 want=$2 max=$(( $3 * slow )) pattern=${4:-}
    local src=grading/tests/hostile/$name.c ext=c
    [ -e "$src" ] || { src=grading/tests/hostile/$name.cu; ext=cu; }
    local task=${TASK:-01_threads/task1} root=${ROOT:-.}
    mkdir -p "$work/${task%/*}"
    # A program that includes a solution gets its text inlined: the learner's build runs in
    # the sandbox, which does not show solutions/ (check-sandbox checks that it does not).
    awk '/^#include "\.\.\/\.\.\/\.\.\/solutions\// { f = $2; gsub(/"/, "", f); sub(/^(\.\.\/)+/, "", f)
                                                   while ((getline l < f) > 0) print l; next } { print }' \
        "$src" > "$work/$task.$ext"
    local start end out status
    start=$(date +%s.%N)
    out=$("$GRADE" --root "$root" --task "$task" --tasks-from "$work" --quiet \
          --json "$work/$name.json" --junit "$work/$name.xml" 2>&1)
    local rc=$?
    end=$(date +%s.%N)
    last_out=$out
    status=$(grep -oE '^  task[0-9]+ +[A-Z_]+' <<<"$out" | awk '{print $2}')
    local took; took=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}')
    if [ "$status" != "$want" ]; then
        t_fail "$name: expected $want, got '${status:-nothing}'"; echo "$out" | head -20
    elif [ "$rc" -ne 1 ]; then
        t_fail "$name: the grader exited $rc, expected 1"
    elif awk -v t="$took" -v m="$max" 'BEGIN {exit !(t > m)}'; then
        t_fail "$name: took $took s, more than $max s"
    elif [ -n "$pattern" ] && ! grep -qE "$pattern" <<<"$out"; then
        t_fail "$name: the report does not say /$pattern/"; echo "$out" | head -20
    else
        t_pass "$name -> $status in $took s"
    fi
    # The grader's own memory stays bounded (it keeps at most 1 MiB of output per run).
    local rss; rss=$(grep -oE '"max_rss_kib": [0-9]+' "$work/$name.json" | grep -oE '[0-9]+$')
    if [ -z "$rss" ] || [ "$rss" -gt 65536 ]; then t_fail "$name: grader peak memory ${rss:-unknown} KiB"; else t_pass; fi
    # the hostile programs' own paths in this checkout, not another one's on the same
    # machine (mpiexec's command line names the program too; the grader runs it by its
    # full path)
    local leftovers="sleep 3127|$here/build/bin/task/01_threads/task1|$here/build/bin/task/04_cuda/task1|$here/grading/tests/mpi-smoke/build/bin/task/|$here/grading/tests/busy-machine/build/bin/task/"
    if pgrep -f "$leftovers" >/dev/null; then
        t_fail "$name: left a process running: $(pgrep -af "$leftovers")"
        pkill -9 -f "$leftovers"
    else
        t_pass
    fi
}

if [ $mpi_only -eq 0 ]; then
    grade_hostile spin         TIMEOUT     6  'timeout'
    grade_hostile ignore_term  TIMEOUT     7  'timeout'
    grade_hostile null_deref   CRASH       8  'SIGSEGV'
    grade_hostile syntax_error BUILD_ERROR 8  'error'
    grade_hostile flood        FAIL        8  'output'
    grade_hostile grandchild   FAIL        14 'left [0-9]+ process'
    grade_hostile abort        CRASH       8  'SIGABRT'
    grade_hostile endless_line FAIL        8  'output'
    grade_hostile binary_garbage FAIL      8  'result'
    grade_hostile close_stdout FAIL        8  'result'
    grade_hostile read_stdin   FAIL        8  'result'
    # Runs happen in a scratch folder that is removed afterwards: nothing lands in the workbook.
    grade_hostile write_cwd    FAIL        8  'result'
    grade_hostile many_results FAIL        8  'more than 1000 result lines'
    grade_hostile bad_text     FAIL        8  'result'
    if grep -q $'\x1b' <<<"$last_out" || grep -q $'\x1b' "$work/bad_text.json" "$work/bad_text.xml"; then
        t_fail "bad_text: an escape character reached the grader's output or reports"
    elif command -v python3 >/dev/null 2>&1 && ! python3 -c 'import json, sys, xml.dom.minidom
json.load(open(sys.argv[1])); xml.dom.minidom.parse(sys.argv[2])' "$work/bad_text.json" "$work/bad_text.xml" 2>/dev/null; then
        t_fail "bad_text: the reports are no longer valid JSON and XML"
    else
        t_pass "bad_text: reports valid, no escape character shown"
    fi
    scratch_before=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'pr-run-*' 2>/dev/null | wc -l)
    grade_hostile deep_dirs    FAIL        15 'result'
    scratch_after=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'pr-run-*' 2>/dev/null | wc -l)
    if [ "$scratch_after" -le "$scratch_before" ]; then t_pass "deep_dirs: its scratch folder went"
    else t_fail "deep_dirs: a scratch folder stayed ($scratch_before before, $scratch_after after)"; fi
    # A task "file" that is a FIFO is never opened (it would block the grader): BUILD_ERROR.
    rm -f "$work/01_threads/task1.c" && mkfifo "$work/01_threads/task1.c"
    out=$(timeout 30 "$GRADE" --task 01_threads/task1 --tasks-from "$work" --quiet \
          --json "$work/fifo.json" --junit "$work/fifo.xml" 2>&1); rc=$?
    if [ $rc -eq 1 ] && grep -q 'not a regular file' <<<"$out"; then t_pass "a FIFO as the task file -> BUILD_ERROR"
    else t_fail "a FIFO as the task file: exit $rc: $(head -c 400 <<<"$out")"; fi
    rm -f "$work/01_threads/task1.c"
    if find . /tmp -maxdepth 3 -name 'hostile-junk-*' 2>/dev/null | grep -q .; then
        t_fail "write_cwd: its files were left behind: $(find . /tmp -maxdepth 3 -name 'hostile-junk-*' | head -3)"
    else
        t_pass
    fi
    # A fork bomb meets the process limit (a pids cgroup as root, RLIMIT_NPROC otherwise, and
    # the watchdog); a memory hog the memory limit (RLIMIT_AS and the watchdog). Each costs one run.
    GRADE_PROCESS_LIMIT=128 grade_hostile fork_bomb FAIL 15 'processes at once'
    # (At task1's real 10 s timeout: a slow 2-core machine was seen backing fresh memory at
    # about 300 MB/s, and 512 MiB then takes longer than this script's 2 s.)
    GRADE_TIMEOUT_SCALE=1 GRADE_MEMORY_LIMIT=512 grade_hostile memory_hog FAIL 15 'memory'
    # The default limit (1024 MiB for a CPU task; GRADE_MEMORY_LIMIT empty means the
    # default) stops it before the task's real 10 s timeout.  (Not at this script's 0.2
    # scale: a slow machine backs fresh memory slowly, and 1 GiB once took over 2 s in CI.)
    GRADE_TIMEOUT_SCALE=1 GRADE_MEMORY_LIMIT='' grade_hostile memory_hog FAIL 15 'more than [0-9]+ MiB of memory'
    # CUDA programs cannot have RLIMIT_AS (the CUDA runtime reserves huge address ranges):
    # the watchdog alone must stop a simulated CUDA task's memory hog.
    GRADE_MEMORY_LIMIT=512 TASK=04_cuda/task1 grade_hostile memory_hog_cuda FAIL 30 'memory'
fi

# A busy machine (a one-task fixture workbook whose reference sleeps 0.6 s of its 1 s limit):
# a right task that needs 1.4 s gets a second try with three times the time and passes; one
# that never ends is TIMEOUT with a message about the machine, never "likely a deadlock".
if [ $mpi_only -eq 0 ]; then
    mkdir -p "$work/99_busy"
    cp grading/tests/hostile/late.c "$work/99_busy/task1.c"
    if GRADE_TIMEOUT_SCALE=1 "$GRADE" --root grading/tests/busy-machine --task 99_busy/task1 --tasks-from "$work" \
        --quiet --json "$work/late.json" --junit "$work/late.xml" > "$work/late.log" 2>&1; then
        t_pass "late on a busy machine -> PASS on its second try"
    else
        t_fail "late on a busy machine: not PASS: $(head -12 "$work/late.log")"
    fi
    ROOT=grading/tests/busy-machine TASK=99_busy/task1 GRADE_TIMEOUT_SCALE=1 \
        grade_hostile spin TIMEOUT 12 'this machine is busy .*reference took'
    if grep -q 'deadlock' <<<"$last_out"; then t_fail "spin on a busy machine: the message says deadlock"; else t_pass; fi
fi

# MPI: the same grader launching through mpiexec (a one-task fixture workbook).
if command -v mpicc >/dev/null 2>&1 && command -v mpiexec >/dev/null 2>&1; then
    export ROOT=grading/tests/mpi-smoke TASK=99_mpi/task1
    # (the fixture's timeout is 20 s, 4 s at this scale: Open MPI starts slower than MPICH)
    grade_hostile mpi_deadlock  TIMEOUT 10 'timeout'
    grade_hostile mpi_rank_dies CRASH   15 'SIGSEGV'
    grade_hostile spin          TIMEOUT 10 'timeout'
    grade_hostile mpi_no_finalize FAIL  10 'without calling MPI_Finalize'
    unset ROOT TASK
    # and the fixture's own solution passes under mpiexec with 1 to 4 ranks
    if "$GRADE" --root grading/tests/mpi-smoke --tasks-from grading/tests/mpi-smoke/solutions --expect pass \
        --quiet --json "$work/mpi-pass.json" --junit "$work/mpi-pass.xml" >/dev/null; then
        t_pass
    else
        t_fail "the MPI fixture's solution does not pass under mpiexec"
    fi
    # Launchers that get the ranks wrong: one starts every rank alone (srun without the
    # MPI's PMI), one ignores -n.  No run of 2 or more ranks may pass, and the message
    # must say what is wrong.
    for launcher in lone-ranks one-rank; do
        # (the fake launchers live inside the workbook, which the sandbox never shows: off)
        out=$(GRADE_SANDBOX=off MPIEXEC=$PWD/grading/tests/mpi-smoke/$launcher "$GRADE" --root grading/tests/mpi-smoke \
            --tasks-from grading/tests/mpi-smoke/solutions --quiet --build-dir "$work/$launcher" \
            --json "$work/$launcher.json" --junit "$work/$launcher.xml" 2>&1); rc=$?
        if [ $rc -ne 1 ]; then
            t_fail "graded with the launcher $launcher, the grader exited $rc (want 1)"
        elif passed=$(grep -A1 '"config": "ranks=[2-9]' "$work/$launcher.json" | grep -B1 '"status": "PASS"' | grep config); then
            t_fail "with the launcher $launcher a run of 2 or more ranks passed: $passed"
        elif ! grep -q 'ranks, it ran as rank 0 of 1' <<<"$out"; then
            t_fail "with the launcher $launcher the grader does not say what is wrong: $(grep -m1 'reference' <<<"$out")"
        elif [ $launcher = one-rank ]; then
            t_pass "a launcher that ignores -n -> FAIL, \"it ran as rank 0 of 1\""
        else
            t_pass "a launcher that starts lone ranks -> FAIL, \"it ran as rank 0 of 1\""
        fi
    done
else
    t_skip "the MPI cases: mpicc/mpiexec not found (make deps installs MPICH)"
fi

if [ $mpi_only -eq 0 ]; then
    # Every solution rejects a bad argument with one line on stderr and exit status 2.
    # (check-solutions, run before this, built them all.)
    checked=0
    for exe in build/bin/ref/[0-9][0-9]_*/*; do
        [ -x "$exe" ] || continue
        checked=$((checked + 1))
        err=$("$exe" no_such_argument=1 2>&1 >/dev/null); rc=$?
        if [ $rc -ne 2 ] || [ "$(wc -l <<<"$err")" -ne 1 ]; then
            t_fail "$exe no_such_argument=1: exit $rc, stderr: $err"
        else
            t_pass
        fi
        err=$("$exe" seed=-5 threads=0 2>&1 >/dev/null); rc=$?
        if [ $rc -ne 2 ] || ! grep -qE 'must be|unknown' <<<"$err"; then
            t_fail "$exe seed=-5 threads=0: exit $rc, stderr: $err"
        else
            t_pass
        fi
    done

    [ $checked -gt 0 ] || t_fail "no built solutions under build/bin/ref to try bad arguments on (run make check-solutions first)"
fi

if [ $mpi_only -eq 1 ]; then
    t_summary check-hostile "every MPI hostile task got its status, nothing was left running"
else
    t_summary check-hostile "every hostile task got its status, nothing was left running, bad arguments exit 2"
fi
