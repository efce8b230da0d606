#!/usr/bin/env bash
# check-learner-loop.sh -- the learner's commands, on a throwaway clone of the
# committed workbook: make progress names the next task and counts what passed;
# make diff shows an edit; make watch grades again when the file is saved (the
# polling path, and inotify where inotifywait is installed); V=1 shows the
# grader's commands; GRADESCOPE= writes results.json; bad TASK names (and make bench
# with an unknown ROOM) exit 2; an untouched task is NOT STARTED; the hint ladder
# shows one rung at a time; a FAIL points to the next rung; escaped means every task.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/pr-loop-XXXXXX)
trap 'pkill -f "$tmp/wb/grading/watch.sh" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "check-learner-loop: FAILED: $*"; failures=$((failures + 1)); }
git clone -q . "$tmp/wb" || { echo "check-learner-loop: cannot clone"; exit 1; }
cd "$tmp/wb"
export NO_COLOR=1
make --no-print-directory all >/dev/null 2>&1 || { echo "check-learner-loop: make all failed"; exit 1; }

# progress: nothing yet; then task1 solved and graded, task2 graded untouched.
make --no-print-directory progress | grep -q 'nothing graded yet' || fail "progress before any grading"
cp solutions/01_threads/task1.c 01_threads/task1.c
make --no-print-directory grade TASK=01_threads/task1 >/dev/null 2>&1 || fail "the solved task1 does not pass"
make --no-print-directory grade TASK=01_threads/task2 >/dev/null 2>&1 && fail "the untouched task2 passes"
out=$(make --no-print-directory progress)
grep -q '01_threads  *1 of [0-9]* tasks pass' <<<"$out" || fail "progress does not count task1: $out"
grep -q 'next: make grade TASK=01_threads/task2' <<<"$out" || fail "progress does not name task2 next: $out"

# An untouched task is NOT STARTED: neither built nor run, one line, and make's own
# error line does not follow the grader's summary when a person types make grade
# (MAKELEVEL 0); the exit status stays non-zero.
top_make() { env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make --no-print-directory "$@"; }
out=$(top_make grade TASK=01_threads/task4 2>&1); rc=$?
[ $rc -ne 0 ] || fail "make grade of an untouched task exited 0"
grep -q 'task4 *NOT STARTED' <<<"$out" || fail "the untouched task4 is not NOT STARTED: $out"
grep -q 'runs passed' <<<"$out" && fail "the untouched task4 was run: $out"
grep -q '\*\*\*' <<<"$out" && fail "make's error line follows a failing make grade: $out"
# Quietly stopping make races with make reaping its child: a few more tries catch that.
for try in 1 2 3 4; do
    out=$(top_make grade TASK=01_threads/task4 2>&1); rc=$?
    [ $rc -ne 0 ] || fail "make grade of an untouched task exited 0 (try $try)"
    grep -q '\*\*\*' <<<"$out" && fail "make's error line follows a failing make grade (try $try): $out"
done
grep -q '"NOT_STARTED": 1' build/grade-report.json || fail "the JSON report does not count NOT_STARTED"

# The hint ladder: one rung at a time, remembered; LEVEL=n and ALL=1; a bad LEVEL is exit 2.
rungs=$(grading/bin/grade --hint 01_threads/task4 --all --no-record | grep -c '^hint [0-9]* of ')
[ "$rungs" -ge 3 ] || fail "01_threads/task4 has $rungs hint rungs, expected at least 3"
make --no-print-directory hint TASK=01_threads/task4 | grep -q "^hint 1 of $rungs (the idea)" || fail "the first make hint is not rung 1"
make --no-print-directory hint TASK=01_threads/task4 | grep -q "^hint 2 of $rungs (the structure)" || fail "the second make hint is not rung 2"
make --no-print-directory hint TASK=01_threads/task4 LEVEL=1 | grep -q "^hint 1 of $rungs" || fail "LEVEL=1 does not show rung 1"
make --no-print-directory hint TASK=01_threads/task4 LEVEL=99 >/dev/null 2>&1; [ $? -eq 2 ] || fail "LEVEL=99: not exit 2"
grep -A3 '"01_threads/task4"' build/progress.json | grep -q '"hints": 2' || fail "progress.json does not remember 2 hints opened"
# A started task that fails: no hint printed unasked, only where the next rung is.
echo "/* started */" >> 01_threads/task4.c
out=$(make --no-print-directory grade TASK=01_threads/task4 2>&1)
grep -q "stuck? make hint TASK=01_threads/task4 (hint 3 of $rungs)" <<<"$out" || fail "no pointer to hint 3 after a FAIL: $out"
grep -q '^ *hint' <<<"$out" && fail "make grade printed a hint unasked: $out"
out=$(make --no-print-directory hint TASK=01_threads/task4 ALL=1)
[ "$(grep -c '^hint [0-9]* of ' <<<"$out")" = "$rungs" ] || fail "ALL=1 does not show every rung: $out"
grep -A3 '"01_threads/task4"' build/progress.json | grep -q "\"hints\": $rungs" || fail "ALL=1 is not remembered as every rung opened"
# One task graded, and it passes: its room is not 'escaped', the others were not graded.
out=$(make --no-print-directory grade TASK=01_threads/task1 2>&1)
grep -q 'escaped!' <<<"$out" && fail "a room is called escaped after one of its tasks was graded: $out"
grep -q '01_threads: 1 graded task passes; [0-9]* of [0-9]* not graded in this run' <<<"$out" || fail "one graded task: $out"

# diff: the solved task differs from its untouched form; task3 does not.
make --no-print-directory diff TASK=01_threads/task1 | grep -q '^+.*pthread_create' || fail "diff does not show the edit"
make --no-print-directory diff TASK=01_threads/task3 | grep -q 'is untouched' || fail "diff of an untouched task"
make --no-print-directory diff TASK=01_threads/nope >/dev/null 2>&1; [ $? -eq 2 ] || fail "diff of an unknown task: not exit 2"
# bench with a room it has nothing for: a clear line and exit 2, before measuring anything
out=$(make --no-print-directory bench ROOM=7 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q 'ROOM=7: no such room to bench' <<<"$out" || fail "make bench ROOM=7: exit $rc: $out"

# V=1 and GRADESCOPE=
out=$(make --no-print-directory grade TASK=01_threads/task1 V=1 GRADESCOPE="$tmp/results.json" 2>&1)
grep -q '^    \$ .*build/bin/task/01_threads/task1 threads=' <<<"$out" || fail "V=1 does not show the run commands"
grep -q '"score": 1' "$tmp/results.json" 2>/dev/null || fail "GRADESCOPE= did not write a score of 1"

# watch: grades once at start, then again after each save.
watch_once() { # mode: poll or inotify
    local log=$tmp/watch-$1.log
    if [ "$1" = poll ]; then WATCH_POLL=1 bash grading/watch.sh 01_threads/task3 >"$log" 2>&1 &
    else bash grading/watch.sh 01_threads/task3 >"$log" 2>&1 & fi
    local pid=$!
    sleep 4
    echo "/* saved once */" >> 01_threads/task3.c
    sleep 5
    echo "/* saved twice */" >> 01_threads/task3.c
    sleep 5
    kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null # (background jobs ignore SIGINT)
    local runs; runs=$(grep -c '^---- .* grading 01_threads/task3' "$log")
    [ "$runs" -eq 3 ] || fail "watch ($1): graded $runs times, expected 3 (start and two saves): $(tail -3 "$log")"
    grep -q "watch: stopped" "$log" || fail "watch ($1) did not stop when told to"
}
watch_once poll
if command -v inotifywait >/dev/null 2>&1; then watch_once inotify; else echo "check-learner-loop: inotifywait not installed: the polling watch was checked"; fi

[ $failures -eq 0 ] && echo "check-learner-loop: progress, diff, watch, V=1 and GRADESCOPE= work as a learner would use them"
exit $((failures > 0))
