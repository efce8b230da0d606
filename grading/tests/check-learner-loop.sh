#!/usr/bin/env bash
# check-learner-loop.sh -- the learner's commands, on a throwaway clone of the
# committed workbook: make progress names the next task and counts what passed;
# make diff shows an edit; make watch grades again when the file is saved (the
# polling path, and inotify where inotifywait is installed); V=1 shows the
# grader's commands; GRADESCOPE= writes results.json; bad TASK names (and make bench
# with an unknown ROOM) exit 2; an untouched task is NOT STARTED; the hint ladder
# shows one rung at a time; a FAIL points to the next rung; escaped means every task.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
t_tmpdir pr-loop; tmp=$T_TMP
t_cleanup "pkill -f $(printf %q "$tmp/wb/grading/tools/watch.sh") 2>/dev/null"
git clone -q . "$tmp/wb" || t_abort "cannot clone"
cd "$tmp/wb" || t_abort "cannot enter the clone"
export NO_COLOR=1
make --no-print-directory all >/dev/null 2>&1 || t_abort "make all failed"

# progress: nothing yet; then task1 solved and graded, task2 graded untouched.
if make --no-print-directory progress | grep -q 'nothing graded yet'; then t_pass; else t_fail "progress before any grading"; fi
cp solutions/01_threads/task1.c 01_threads/task1.c
if make --no-print-directory grade TASK=01_threads/task1 >/dev/null 2>&1; then t_pass; else t_fail "the solved task1 does not pass"; fi
if make --no-print-directory grade TASK=01_threads/task2 >/dev/null 2>&1; then t_fail "the untouched task2 passes"; else t_pass; fi
out=$(make --no-print-directory progress)
if grep -q '01_threads  *1 of [0-9]* tasks pass' <<<"$out"; then t_pass; else t_fail "progress does not count task1: $out"; fi
if grep -q 'next: make grade TASK=01_threads/task2' <<<"$out"; then t_pass; else t_fail "progress does not name task2 next: $out"; fi

# An untouched task is NOT STARTED: neither built nor run, one line, and make's own
# error line does not follow the grader's summary when a person types make grade
# (MAKELEVEL 0); the exit status stays non-zero.
top_make() { env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make --no-print-directory "$@"; }
out=$(top_make grade TASK=01_threads/task4 2>&1); rc=$?
if [ $rc -ne 0 ]; then t_pass; else t_fail "make grade of an untouched task exited 0"; fi
if grep -q 'task4 *NOT STARTED' <<<"$out"; then t_pass; else t_fail "the untouched task4 is not NOT STARTED: $out"; fi
if grep -q 'runs passed' <<<"$out"; then t_fail "the untouched task4 was run: $out"; else t_pass; fi
# (Only where SIGINT reaches make: a test started as a background job of a script, SIGINT
# ignored, has a make that cannot be stopped quietly, as below.)
ign=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status 2>/dev/null)
if [ -n "$ign" ] && [ $((0x$ign & 2)) -ne 0 ]; then
    t_skip "SIGINT is ignored in this test's process (a background job): make's error line cannot be silenced here"
else
    if grep -q '\*\*\*' <<<"$out"; then t_fail "make's error line follows a failing make grade: $out"; else t_pass; fi
    # Quietly stopping make races with make reaping its child: a few more tries catch that.
    for try in 1 2 3 4; do
        out=$(top_make grade TASK=01_threads/task4 2>&1); rc=$?
        if [ $rc -ne 0 ]; then t_pass; else t_fail "make grade of an untouched task exited 0 (try $try)"; fi
        if grep -q '\*\*\*' <<<"$out"; then t_fail "make's error line follows a failing make grade (try $try): $out"; else t_pass; fi
    done
fi
# A make started with SIGINT ignored (a background job of a script) cannot be stopped
# quietly: the failure must still show in its exit status.
out=$( (trap '' INT; top_make grade TASK=01_threads/task4) 2>&1); rc=$?
if [ $rc -ne 0 ]; then t_pass; else t_fail "make grade of an untouched task, started with SIGINT ignored, exited 0: $out"; fi
if grep -q '"NOT_STARTED": 1' build/grade-report.json; then t_pass; else t_fail "the JSON report does not count NOT_STARTED"; fi

# The hint ladder: one rung at a time, remembered; LEVEL=n and ALL=1; a bad LEVEL is exit 2.
rungs=$(grading/bin/grade --hint 01_threads/task4 --all --no-record | grep -c '^hint [0-9]* of ')
if [ "$rungs" -ge 3 ]; then t_pass; else t_fail "01_threads/task4 has $rungs hint rungs, expected at least 3"; fi
if make --no-print-directory hint TASK=01_threads/task4 | grep -q "^hint 1 of $rungs (the idea)"; then t_pass; else t_fail "the first make hint is not rung 1"; fi
if make --no-print-directory hint TASK=01_threads/task4 | grep -q "^hint 2 of $rungs (the structure)"; then t_pass; else t_fail "the second make hint is not rung 2"; fi
if make --no-print-directory hint TASK=01_threads/task4 LEVEL=1 | grep -q "^hint 1 of $rungs"; then t_pass; else t_fail "LEVEL=1 does not show rung 1"; fi
make --no-print-directory hint TASK=01_threads/task4 LEVEL=99 >/dev/null 2>&1; rc=$?
if [ $rc -eq 2 ]; then t_pass; else t_fail "LEVEL=99: exit $rc, not 2"; fi
if grep -A3 '"01_threads/task4"' build/progress.json | grep -q '"hints": 2'; then t_pass; else t_fail "progress.json does not remember 2 hints opened"; fi
# A started task that fails: no hint printed unasked, only where the next rung is.
echo "/* started */" >> 01_threads/task4.c
out=$(make --no-print-directory grade TASK=01_threads/task4 2>&1)
if grep -q "stuck? make hint TASK=01_threads/task4 (hint 3 of $rungs)" <<<"$out"; then t_pass; else t_fail "no pointer to hint 3 after a FAIL: $out"; fi
if grep -q '^ *hint' <<<"$out"; then t_fail "make grade printed a hint unasked: $out"; else t_pass; fi
out=$(make --no-print-directory hint TASK=01_threads/task4 ALL=1)
if [ "$(grep -c '^hint [0-9]* of ' <<<"$out")" = "$rungs" ]; then t_pass; else t_fail "ALL=1 does not show every rung: $out"; fi
if grep -A3 '"01_threads/task4"' build/progress.json | grep -q "\"hints\": $rungs"; then t_pass; else t_fail "ALL=1 is not remembered as every rung opened"; fi
# One task graded, and it passes: its room is not 'escaped', the others were not graded.
out=$(make --no-print-directory grade TASK=01_threads/task1 2>&1)
if grep -q 'escaped!' <<<"$out"; then t_fail "a room is called escaped after one of its tasks was graded: $out"; else t_pass; fi
if grep -q '01_threads: 1 graded task passes; [0-9]* of [0-9]* not graded in this run' <<<"$out"; then t_pass; else t_fail "one graded task: $out"; fi

# diff: the solved task differs from its untouched form; task3 does not.
if make --no-print-directory diff TASK=01_threads/task1 | grep -q '^+.*pthread_create'; then t_pass; else t_fail "diff does not show the edit"; fi
if make --no-print-directory diff TASK=01_threads/task3 | grep -q 'is untouched'; then t_pass; else t_fail "diff of an untouched task"; fi
make --no-print-directory diff TASK=01_threads/nope >/dev/null 2>&1; rc=$?
if [ $rc -eq 2 ]; then t_pass; else t_fail "diff of an unknown task: exit $rc, not 2"; fi
# bench with a room it has nothing for: a clear line and exit 2, before measuring anything
out=$(make --no-print-directory bench ROOM=7 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q 'ROOM=7: no such room to bench' <<<"$out"; then t_pass; else t_fail "make bench ROOM=7: exit $rc: $out"; fi

# V=1 and GRADESCOPE=
out=$(make --no-print-directory grade TASK=01_threads/task1 V=1 GRADESCOPE="$tmp/results.json" 2>&1)
if grep -q '^    \$ .*build/bin/task/01_threads/task1 threads=' <<<"$out"; then t_pass; else t_fail "V=1 does not show the run commands"; fi
if grep -q '"score": 1' "$tmp/results.json" 2>/dev/null; then t_pass; else t_fail "GRADESCOPE= did not write a score of 1"; fi

# watch: grades once at start, then again after each save.
watch_once() { # mode: poll or inotify
    local log=$tmp/watch-$1.log
    # by its full path, which the cleanup's pkill names
    if [ "$1" = poll ]; then WATCH_POLL=1 bash "$PWD/grading/tools/watch.sh" 01_threads/task3 >"$log" 2>&1 &
    else bash "$PWD/grading/tools/watch.sh" 01_threads/task3 >"$log" 2>&1 & fi
    local pid=$!
    sleep 4
    echo "/* saved once */" >> 01_threads/task3.c
    sleep 5
    echo "/* saved twice */" >> 01_threads/task3.c
    sleep 5
    kill -TERM $pid 2>/dev/null # (background jobs ignore SIGINT)
    local waited=0
    while kill -0 $pid 2>/dev/null && [ $waited -lt 50 ]; do sleep 0.1; waited=$((waited + 1)); done
    if kill -0 $pid 2>/dev/null; then
        t_fail "watch ($1) still runs 5 s after TERM"; pkill -9 -f "$PWD/grading/tools/watch.sh"
    fi
    wait $pid 2>/dev/null
    local runs; runs=$(grep -c '^---- .* grading 01_threads/task3' "$log")
    if [ "$runs" -eq 3 ]; then t_pass; else t_fail "watch ($1): graded $runs times, expected 3 (start and two saves): $(tail -3 "$log")"; fi
    if grep -q "watch: stopped" "$log"; then t_pass; else t_fail "watch ($1) did not stop when told to"; fi
}
watch_once poll
if command -v inotifywait >/dev/null 2>&1; then watch_once inotify; else t_skip "the inotify watch: inotifywait is not installed (the polling watch was checked)"; fi

t_summary check-learner-loop "progress, diff, watch, V=1 and GRADESCOPE= work as a learner would use them"
