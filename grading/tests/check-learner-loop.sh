#!/usr/bin/env bash
# check-learner-loop.sh -- the learner's commands, on a throwaway clone of the
# committed workbook: make progress names the next task and counts what passed;
# make diff shows an edit; make watch grades again when the file is saved (the
# polling path, and inotify where inotifywait is installed); V=1 shows the
# grader's commands; GRADESCOPE= writes results.json; bad TASK names (and make bench
# with an unknown ROOM) exit 2.
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
grep -q '01_threads  *1 of 5 tasks pass' <<<"$out" || fail "progress does not count task1: $out"
grep -q 'next: make grade TASK=01_threads/task2' <<<"$out" || fail "progress does not name task2 next: $out"

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
