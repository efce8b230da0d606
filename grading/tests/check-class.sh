#!/usr/bin/env bash
# check-class.sh -- make grade-class on a class of synthetic submissions (room 01
# only, to stay quick): solved, untouched (NOT_STARTED), half done (with a record
# of hints opened), broken, hostile, one that
# rewrites the grader, the Makefile, tasks.ini and the solutions to pass
# everything, and submissions that cannot be graded at all.  Checks every
# student's status per task, that the CSV agrees with each student's JSON report,
# that tampering changed nothing, and that nothing is left running.
set -u
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
. grading/tests/lib-test.sh
t_tmpdir pr-class; work=$T_TMP

make --no-print-directory pristine >/dev/null || t_abort "make pristine failed"
subs=$work/submissions
mkdir -p "$subs"
tasks=(task1 task2 task3 task4 task5)
# checkout DIR [solved task names...]: room 01 untouched, with the named tasks solved.
checkout() {
    local dir=$1 t; shift
    mkdir -p "$dir/01_threads"
    cp build/pristine/01_threads/task*.c "$dir/01_threads/"
    for t in "$@"; do cp "solutions/01_threads/$t.c" "$dir/01_threads/"; done
    echo "# a student's checkout" > "$dir/README.md"
}

checkout "$subs/solved" "${tasks[@]}"
checkout "$work/untouched/parallel-rooms"           # wrapped in one folder, as archives often are
tar -czf "$subs/untouched.tar.gz" -C "$work/untouched" parallel-rooms
checkout "$work/half" task1 task2
echo "/* started, not finished */" >> "$work/half/01_threads/task3.c"  # started: graded, FAILs
# The progress record of the checkout: hints opened (one count out of range, one not a number).
mkdir -p "$work/half/build"
printf '{"schema": "parallel-rooms/progress/1", "tasks": {"01_threads/task3": {"status": "FAIL", "hints": 2},
  "01_threads/task4": {"hints": 999}, "01_threads/task5": {"hints": "x"}}}\n' > "$work/half/build/progress.json"
(cd "$work/half" && zip -qr "$subs/half done.zip" .) # a space in the name, too
checkout "$subs/broken" task3 task4 task5
printf 'int main(void) { return 0 }\n' > "$subs/broken/01_threads/task1.c"                        # does not compile
printf '#include <stddef.h>\nint main(void) { volatile int *p = NULL; return *p; }\n' > "$subs/broken/01_threads/task2.c"
checkout "$subs/hostile" task3 task4 task5
cat > "$subs/hostile/01_threads/task1.c" <<'EOF'
#include <stdio.h>
int main(void) { for (;;) fputs("flood flood flood flood flood flood flood flood\n", stdout); }
EOF
cat > "$subs/hostile/01_threads/task2.c" <<'EOF'
#include <unistd.h>
int main(void) { if (fork() == 0) { setsid(); if (fork() == 0) { sleep(300); } _exit(0); } return 0; }
EOF
# The tamperer: a grader that passes everything, a Makefile that says so, solutions
# equal to the untouched tasks, and a tasks.ini with nothing to check.
checkout "$subs/tamperer"
mkdir -p "$subs/tamperer/grading/bin" "$subs/tamperer/solutions/01_threads"
printf '#!/bin/sh\necho "every task PASS"\nexit 0\n' > "$subs/tamperer/grading/bin/grade"
chmod +x "$subs/tamperer/grading/bin/grade"
printf 'grade:\n\t@echo every task PASS\n' > "$subs/tamperer/Makefile"
cp build/pristine/01_threads/task*.c "$subs/tamperer/solutions/01_threads/"
printf '[room]\ntitle = easy\n[task1]\ntitle = x\nsource = task1.c\nkind = c\nruns = n=1\n' > "$subs/tamperer/01_threads/tasks.ini"
ln -s "$root/solutions/01_threads/task3.c" "$subs/tamperer/01_threads/task3.c.link"
mkdir -p "$subs/empty"
echo "not a checkout" > "$subs/notes.txt"
head -c 3000 /dev/urandom > "$subs/corrupt.tar.gz"
mkdir -p "$subs/elsewhere/src" && echo 'int main(void){return 0;}' > "$subs/elsewhere/src/main.c"
# A zip bomb of sorts: a solved checkout with 256 MiB of zeros beside it (some 250 kB packed),
# and a task file that is a symbolic link to a solution: only the task files come out.
checkout "$work/bomb/parallel-rooms" "${tasks[@]}"
truncate -s 256M "$work/bomb/parallel-rooms/zeros.bin"
rm "$work/bomb/parallel-rooms/01_threads/task5.c"
ln -s "$root/solutions/01_threads/task5.c" "$work/bomb/parallel-rooms/01_threads/task5.c"
tar -czf "$subs/bomb.tar.gz" -C "$work/bomb" parallel-rooms
rm -rf "$work/bomb"

out=$work/out
start=$SECONDS
CLASS_OUT=$out ROOM=01 JOBS=2 NO_COLOR=1 make --no-print-directory grade-class SUBMISSIONS="$subs" > "$work/class.log" 2>&1
rc=$?
cat "$work/class.log"
if [ $rc -eq 0 ]; then t_pass; else t_fail "make grade-class exited $rc"; fi
entries=("$subs"/*)
t_say "the class of ${#entries[@]} submissions took $((SECONDS - start)) s"

csv=$out/class.csv
[ -s "$csv" ] || t_abort "no $csv"
if [ -s "$out/summary.html" ]; then t_pass; else t_fail "no summary.html"; fi
# expect STUDENT STATUS1..STATUS5 (or "error" and a word of the reason)
row() { grep -E "^\"?$1\"?," "$csv"; }
expect() {
    local who=$1; shift
    local line; line=$(row "$who")
    [ -n "$line" ] || { t_fail "no CSV row for $who"; return; }
    if [ "$1" = error ]; then
        if grep -q -- "$2" <<<"$line"; then t_pass; else t_fail "$who: expected an error row mentioning '$2', got: $line"; fi
        return
    fi
    local got; got=$(cut -d, -f2-6 <<<"$line")
    if [ "$got" = "$1" ]; then t_pass; else t_fail "$who: expected $1, got $got"; fi
}
expect solved "PASS,PASS,PASS,PASS,PASS"
expect untouched "NOT_STARTED,NOT_STARTED,NOT_STARTED,NOT_STARTED,NOT_STARTED"
expect half_done "PASS,PASS,FAIL,NOT_STARTED,NOT_STARTED"
expect broken "BUILD_ERROR,CRASH,PASS,PASS,PASS"
expect hostile "FAIL,FAIL,PASS,PASS,PASS"
expect tamperer "NOT_STARTED,NOT_STARTED,NOT_STARTED,NOT_STARTED,NOT_STARTED"
expect empty error "empty submission"
expect notes.txt error "not a folder"
expect corrupt error "unreadable archive"
expect elsewhere error "not a workbook"
expect bomb "PASS,PASS,PASS,PASS,BUILD_ERROR"  # task5 was a link: not unpacked, missing
if [ -z "$(find "$out/students/bomb" -size +1M -print -quit)" ] && grep -qs 'task5.c: a link or special file, not unpacked' "$out"/students/bomb/notes.txt; then
    t_pass "a 256 MiB member of an archive is never written, a link in it never followed"
else
    t_fail "the bomb: a file over 1 MiB under $out ($(find "$out" -size +1M | head -n 2)), or no note of the link"
fi

# The CSV's passed count agrees with every student's JSON report.
for json in "$out"/students/*/grade-report.json; do
    name=$(basename "$(dirname "$json")")
    from_json=$(grep -A8 '"summary"' "$json" | grep -oE '"PASS": [0-9]+' | grep -oE '[0-9]+')
    header=$(head -n1 "$csv")
    col=$(tr ',' '\n' <<<"$header" | grep -nx passed | cut -d: -f1)
    from_csv=$(row "$name" | cut -d, -f"$col")
    if [ "$from_json" = "$from_csv" ]; then t_pass; else t_fail "$name: $from_json PASS in its JSON report, $from_csv in the CSV"; fi
done
if grep -q '^TOTAL,3,3,4,4,3,' "$csv"; then t_pass; else t_fail "the TOTAL row should count 3,3,4,4,3 students passing (the bomb: 4 tasks): $(grep ^TOTAL "$csv")"; fi

# Hints opened: from the half-done checkout's progress record, clamped to the ladder;
# blank for a student without a record.
hints=$out/hints.csv
if [ -s "$hints" ]; then
    ladder=$(grading/bin/grade --hint 01_threads/task4 --all --no-record | grep -c '^hint ')
    got=$(grep -E '^"?half_done"?,' "$hints" | cut -d, -f2-6)
    if [ "$got" = "0,0,2,$ladder,0" ]; then t_pass; else t_fail "half_done's hints: expected 0,0,2,$ladder,0, got '$got'"; fi
    got=$(grep -E '^solved,' "$hints" | cut -d, -f2-6)
    if [ "$got" = ",,,," ]; then t_pass; else t_fail "solved has no progress record: its hints should be blank, got '$got'"; fi
else
    t_fail "no $hints"
fi

# The work of the method runs (room 01's threads), as the grader measured it: the solved
# student's cells for tasks 1 to 4 say how many threads and their shares; one draw for all.
work_csv=$out/work.csv
if [ -s "$work_csv" ] && head -1 "$work_csv" | grep -q '01_threads/task2' &&
    [ "$(grep -E '^solved,' "$work_csv" | grep -o 'threads, [0-9/.]* % of [0-9.]* s CPU' | wc -l)" -ge 4 ]; then
    t_pass
else
    t_fail "work.csv lacks the solved student's work: $(head -1 "$work_csv" 2>/dev/null) $(grep -E '^solved,' "$work_csv" 2>/dev/null)"
fi
if grep -q 'sizes and seeds: a fresh draw, SEED=[0-9]' "$work/class.log"; then t_pass; else
    t_fail "grade-class does not say which draw it graded on"; fi
seeds=$(grep -ho '"seed": [0-9]*' "$out"/students/*/grade-report.json | sort -u | wc -l)
if [ "$seeds" = 1 ]; then t_pass; else t_fail "the students were graded on $seeds different draws, not one"; fi

# The tamperer's grader and Makefile were never run, and its files were not copied.
if [ ! -e "$out/students/tamperer/tree/grading" ] && [ ! -e "$out/students/tamperer/tree/Makefile" ] &&
    [ ! -e "$out/students/tamperer/tree/solutions" ]; then
    t_pass
else
    t_fail "the tamperer's non-task files were copied"
fi
# Nothing left running: the hostile grandchild (sleep 300) included.
sleep 1
if pgrep -f "$out" >/dev/null || pgrep -x sleep -a 2>/dev/null | grep -q 'sleep 300'; then
    t_fail "processes left running: $(pgrep -af "$out|sleep 300")"
else
    t_pass
fi
# Bad input: one line, exit 2.
make --no-print-directory grade-class SUBMISSIONS=/nonexistent > "$work/bad.log" 2>&1; rc=$?
if [ $rc -eq 2 ] && grep -q "no such folder" "$work/bad.log"; then t_pass; else t_fail "a missing SUBMISSIONS folder: $(cat "$work/bad.log")"; fi
ROOM=77 make --no-print-directory grade-class SUBMISSIONS="$subs" > "$work/bad.log" 2>&1; rc=$?
if [ $rc -eq 2 ] && grep -q "no room '77'" "$work/bad.log"; then t_pass; else t_fail "an unknown ROOM: $(cat "$work/bad.log")"; fi

t_summary check-class "every student and task got its status; CSV, JSON and HTML agree; tampering changed nothing; nothing left running"
