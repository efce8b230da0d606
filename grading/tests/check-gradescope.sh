#!/usr/bin/env bash
# check-gradescope.sh -- Gradescope's run_autograder (grading/templates/gradescope/) on a
# fake /autograder layout (AUTOGRADER_ROOT in a scratch folder, source/ this checkout):
# a solved submission (room 01's solutions, as a .zip of a checkout), a broken one (a task
# that does not compile), two hostile ones (a task that writes a forged results.json and
# prints a fake score, with its own grader and results.json in the submission; a task that
# runs forever, graded without the sandbox), a serial 01 task1 graded with a private tasks.ini
# overlay and the expected values hidden, one with no task file and an empty one.
# Checks that every run leaves a valid results.json with the expected score and output,
# and that no submission could forge its score.  Only room 01 (or one of its tasks) is
# graded, to stay quick.
set -u
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
. grading/tests/lib-test.sh
t_tmpdir pr-gradescope; work=$T_TMP

make --no-print-directory all pristine >/dev/null || t_abort "make (the grader) or make pristine failed"
command -v python3 >/dev/null 2>&1 || t_abort "python3 is needed (make deps installs it)"
template=$root/grading/templates/gradescope/run_autograder
[ -x "$template" ] || t_abort "$template is missing or not executable"
bash -n grading/templates/gradescope/setup.sh || t_fail "setup.sh does not parse"

# case NAME [ENV=VALUE...]: runs run_autograder on $work/NAME/submission (made by the
# caller) with a fresh results/ folder; its output in $work/NAME/log.
run_case() {
    local name=$1; shift
    local ag=$work/$name start=$SECONDS rc
    mkdir -p "$ag/submission" "$ag/results"
    ln -sfn "$root" "$ag/source"
    env "$@" AUTOGRADER_ROOT="$ag" bash "$template" > "$ag/log" 2>&1
    rc=$?
    t_say "$name: run_autograder took $((SECONDS - start)) s (exit $rc): $(grep -m1 'score' "$ag/log")"
    [ $rc -eq 0 ] || t_fail "$name: run_autograder exited $rc: $(tail -n5 "$ag/log")"
}
# field NAME EXPRESSION: a value of NAME's results.json (Python, r = the parsed file)
field() {
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
        "$work/$1/results/results.json" "$2" 2>/dev/null
}
# expect NAME SCORE MAX_SCORE TEXT: valid JSON, the scores, TEXT in the output (task outputs too)
expect() {
    local name=$1 score=$2 max=$3 text=$4 file=$work/$1/results/results.json got
    if [ ! -s "$file" ]; then t_fail "$name: no results.json: $(tail -n5 "$work/$name/log")"; return; fi
    if python3 -m json.tool "$file" >/dev/null 2>&1; then t_pass; else t_fail "$name: results.json is not JSON"; return; fi
    got="$(field "$name" 'r["score"]') of $(field "$name" 'r.get("max_score")')"
    if [ "$got" = "$score of $max" ]; then t_pass; else t_fail "$name: expected score $score of $max, got $got"; fi
    if field "$name" 'r["output"] + "".join(t["output"] for t in r.get("tests", []))' | grep -q -- "$text"; then
        t_pass
    else
        t_fail "$name: results.json's output does not say '$text': $(field "$name" 'r["output"]')"
    fi
}

# Solved: room 01's solutions in a checkout wrapped in one folder, zipped.
mkdir -p "$work/zip/parallel-rooms/01_threads" "$work/solved/submission"
cp build/pristine/01_threads/task*.c "$work/zip/parallel-rooms/01_threads/"
cp solutions/01_threads/task*.c "$work/zip/parallel-rooms/01_threads/"
echo "# a student's checkout" > "$work/zip/parallel-rooms/README.md"
(cd "$work/zip" && zip -qr "$work/solved/submission/submission.zip" .)
ntasks=$(find solutions/01_threads -name 'task*.c' | wc -l)
run_case solved GRADE_ROOM=01
expect solved "$ntasks" "$ntasks" "Only room 01 is graded"
if [ "$(field solved 'sum(t["status"] == "passed" for t in r["tests"])')" = "$ntasks" ]; then t_pass
else t_fail "solved: not every test passed"; fi

# Broken: the room folders only, task1 does not compile.
mkdir -p "$work/broken/submission/01_threads"
cp build/pristine/01_threads/task*.c "$work/broken/submission/01_threads/"
printf 'int main(void) { return 0 }\n' > "$work/broken/submission/01_threads/task1.c"
run_case broken GRADE_TASK=01_threads/task1
expect broken 0 1 BUILD_ERROR

# Hostile: task1 writes a forged results.json where the autograder keeps it, and a file
# beside it, and prints a score; the submission brings its own grader and results.json.
forge() { # forge NAME: a task1.c that forges NAME's results
    local results=$work/$1/results
    cat <<EOF
#include <stdio.h>
int main(void)
{
    const char *forged = "{\"score\": 100, \"max_score\": 1, \"output\": \"forged\", \"tests\": []}\n";
    FILE *f = fopen("$results/results.json", "w");
    if (f) { fputs(forged, f); fclose(f); }
    f = fopen("$results/forged", "w");
    if (f) { fputs("forged\n", f); fclose(f); }
    fputs(forged, stdout);
    return 0;
}
EOF
}
mkdir -p "$work/hostile/submission/01_threads" "$work/hostile/submission/grading/bin"
cp build/pristine/01_threads/task*.c "$work/hostile/submission/01_threads/"
forge hostile > "$work/hostile/submission/01_threads/task1.c"
printf '{"score": 100, "output": "forged", "tests": []}\n' > "$work/hostile/submission/results.json"
printf '#!/bin/sh\necho "every task PASS"\n' > "$work/hostile/submission/grading/bin/grade"
chmod +x "$work/hostile/submission/grading/bin/grade"
ln -s "$root/solutions/01_threads/task2.c" "$work/hostile/submission/01_threads/task2.c.link"
run_case hostile GRADE_TASK=01_threads/task1
expect hostile 0 1 FAIL
if [ ! -e "$work/hostile/results/forged" ]; then t_pass; else t_fail "hostile: its task wrote into results/"; fi

# Hostile, graded without the sandbox (as where the container allows none): task1 forges,
# task2 runs forever.  Both fail, the output says there was no sandbox, nothing forged.
mkdir -p "$work/forever/submission/01_threads"
cp build/pristine/01_threads/task*.c "$work/forever/submission/01_threads/"
forge forever > "$work/forever/submission/01_threads/task1.c"
printf 'int main(void) { for (;;) { } }\n' > "$work/forever/submission/01_threads/task2.c"
# (the scratch folder opened for passing through: only results/ itself stands in the way)
chmod go+x "$work" && mkdir -p "$work/forever/results" && chmod go+x "$work/forever"
run_case forever SANDBOX=off GRADE_TASK=01_threads/task2 GRADE_TIMEOUT_SCALE=0.5
expect forever 0 1 TIMEOUT
expect forever 0 1 "WITHOUT the sandbox"
run_case forever SANDBOX=off GRADE_TASK=01_threads/task1
expect forever 0 1 FAIL
if [ "$(id -u)" = 0 ]; then
    # as root, run_autograder grades as nobody: the forged file could not be written
    if [ ! -e "$work/forever/results/forged" ]; then t_pass; else t_fail "forever: its task wrote into results/"; fi
else
    t_skip "not root: run_autograder grades as this user, who owns results/ (it only overwrites a forgery)"
fi

# A cheat: 01 task1 that starts no thread (right results, serial), graded with the
# instructor's private overlay and the expected values hidden: FAIL for the method; the
# feedback shows no expected value, and says the overlay was used.
mkdir -p "$work/serial/submission/01_threads"
cp build/pristine/01_threads/task*.c "$work/serial/submission/01_threads/"
python3 grading/tests/cheats/serial-01-task1.py solutions/01_threads/task1.c "$work/serial/submission/01_threads/task1.c" ||
    t_fail "could not write a serial 01 task1"
echo "int broken = ;" >> "$work/serial/submission/01_threads/task2.c" # (task2: not graded here)
printf '[01_threads/task1]\nruns = threads=1,2 n=99991..199999 seed=1..999999999\nmethod_run = threads=2 n=19999991 seed=7\n' \
    > "$work/overlay.ini"
chmod 644 "$work/overlay.ini"; chmod 755 "$work"
run_case serial GRADE_TASK=01_threads/task1 GRADE_TASKS_OVERLAY="$work/overlay.ini" GRADE_HIDE_EXPECTED=1
expect serial 0 1 "one thread did [0-9]* % of the work"
expect serial 0 1 "private tasks.ini overlay"
if field serial 'r["output"] + "".join(t["output"] for t in r.get("tests", []))' | grep -q 'threads=2 n=19999991 seed=7\]'; then
    t_pass "serial: graded at the overlay's sizes"; else t_fail "serial: not at the overlay's sizes: $(field serial 'r["output"]')"; fi
# the same submission with task1 wrong: the line is named, its expected value is not
printf '#include <stdio.h>\nint main(void) { printf("result sum_of_squares = 1\\n"); return 0; }\n' \
    > "$work/serial/submission/01_threads/task1.c"
run_case serial GRADE_TASK=01_threads/task1 GRADE_HIDE_EXPECTED=1
expect serial 0 1 "result 'sum_of_squares': got 1, which is not the expected value"
if field serial 'r["output"] + "".join(t["output"] for t in r.get("tests", []))' | grep -q 'expected [0-9]'; then
    t_fail "serial: an expected value in the feedback: $(field serial 'r["output"]')"; else t_pass; fi

# No task file: a checkout of something else.  Empty: nothing at all.
mkdir -p "$work/notasks/submission/src"
echo 'int main(void) { return 0; }' > "$work/notasks/submission/src/main.c"
run_case notasks GRADE_ROOM=01
expect notasks 0 None "not a workbook"
run_case empty GRADE_ROOM=01
expect empty 0 None "empty"

# Nothing left running from the submissions.
sleep 1
if pgrep -f "$work" >/dev/null; then t_fail "processes left running: $(pgrep -af "$work")"; else t_pass; fi

t_summary check-gradescope "solved, broken, hostile, endless, serial (overlay, hidden values), task-less and empty submissions: valid results.json, \
scores as expected, nothing forged"
