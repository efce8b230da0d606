#!/usr/bin/env bash
# check-perf.sh -- the perf verdict (grading/src/perf.h) says what it should:
#   1. every task with a perf configuration names timings its solution prints (run
#      natively below; a CUDA task's names are looked for in its source, since the
#      simulator does not time them);
#   2. each solution, graded as a learner's task with PERF=required, passes with a
#      verdict "ok" (never SLOW against itself), PERF_REPEAT times (default 1; the
#      figures for 20 repetitions are in docs/benchmarks.md); simulated tasks are judged
#      from their memory counts instead (check-profile-grade.sh);
#   3. deliberately slow but correct versions (grading/tests/perf/*.patch, applied to
#      copies of the solutions: a critical section on every addition, a process per
#      item, an allreduce per parameter in DDP) get SLOW, and FAIL with PERF=required; a slow CUDA kernel
#      in the simulator (a divergent tree: its warps issue shared-memory requests for a few
#      working lanes) gets SLOW from its counts;
#   3b. the same slow versions printing times 1000 times too short stay SLOW (the grader's
#      own clock, perf.c's confirmed_time), and no solution's times are ever corrected;
#   4. PERF=off measures nothing; a bad PERF value is a usage error (exit 2).
# Each grading takes each task's first configuration only (grade --first-config): the
# verdict is its perf run's, and check-solutions grades every configuration.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
t_tmpdir pr-perf; tmp=$T_TMP
G=grading/bin/grade
[ -x "$G" ] || t_abort "build the grader first (make all)"
repeat=${PERF_REPEAT:-1}
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || t_abort "PERF_REPEAT=$repeat: a number of repetitions, 1 or more"

# verdicts JSON: "task<TAB>status<TAB>perf verdict<TAB>ratio<TAB>mode" per task of a report
verdicts() {
    python3 - "$1" <<'EOF'
import json, sys
for t in json.load(open(sys.argv[1]))["tasks"]:
    p = t.get("perf") or {}
    r = p.get("ratio")
    print("%s\t%s\t%s\t%s\t%s" % (t["id"], t["status"], p.get("verdict", "none"), "-" if r is None else "%.2f" % r,
                            t["mode"]))
EOF
}

# The tasks with a perf configuration, from the grader's reading of tasks.ini.
mapfile -t perf_tasks < <($G --describe | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["perf"] != "-" && !seen[$1]++ { print $1 "\t" $c["cuda"] "\t" $c["solution"] "\t" $c["perf_time"] }')
[ ${#perf_tasks[@]} -ge 8 ] || t_fail "only ${#perf_tasks[@]} tasks have a perf configuration (want the issue's 8 or more)"
native=() sim=()
for line in "${perf_tasks[@]}"; do
    IFS=$'\t' read -r id cuda solution names <<<"$line"
    if [ "$cuda" = yes ]; then
        sim+=("$id")
        # 1. a CUDA task's timing names appear in its source as printed names
        IFS='|' read -ra parts <<<"$names"
        for n in "${parts[@]}"; do
            n=$(sed 's/^ *//; s/ *$//' <<<"$n")
            if grep -qF "\"$n\"" "$solution"; then t_pass; else t_fail "$id: perf_time '$n' is not a name $solution prints"; fi
        done
    else
        native+=("$id")
    fi
done

# 2. the solutions against themselves
filter=(--task "$(IFS=,; echo "${native[*]}")")
for r in $(seq "$repeat"); do
    if $G --tasks-from solutions --expect pass --perf required --first-config --quiet "${filter[@]}" \
        --json "$tmp/solutions.json" --junit "$tmp/solutions.xml" > "$tmp/solutions.log" 2>&1; then
        t_pass
    else
        t_fail "repetition $r: a solution is not PASS with PERF=required: $(grep -A3 'SLOW\|FAIL' "$tmp/solutions.log" | head -20)"
    fi
    while IFS=$'\t' read -r id status verdict ratio mode; do
        if [ "$verdict" = ok ]; then t_pass; else t_fail "repetition $r: $id against itself: $status, perf $verdict $ratio"; fi
        echo "$r $id $ratio" >> "$tmp/ratios"
    done < <(verdicts "$tmp/solutions.json")
done
[ "$repeat" -gt 1 ] && t_say "ratios of the solutions against themselves over $repeat repetitions (largest first):" &&
    sort -k3 -rn "$tmp/ratios" | head -5 | sed 's/^/    /'

# 3. the slow versions
mkdir -p "$tmp/slow"
cp -r solutions/. "$tmp/slow/"
slow_ids=()
for p in grading/tests/perf/*.patch; do
    git -C "$tmp/slow" apply --unsafe-paths "$PWD/$p" 2>"$tmp/apply.err" ||
        { t_fail "$p no longer applies to its solution: $(head -3 "$tmp/apply.err")"; continue; }
    f=$(sed -n 's|^+++ b/||p' "$p" | head -1)
    slow_ids+=("${f%.*}")
done
filter=(--task "$(IFS=,; echo "${slow_ids[*]}")")
$G --tasks-from "$tmp/slow" --perf on --first-config --quiet "${filter[@]}" --json "$tmp/slow.json" --junit "$tmp/slow.xml" \
    > "$tmp/slow.log" 2>&1
while IFS=$'\t' read -r id status verdict ratio mode; do
    if [ "$mode" = sim ]; then
        basis=$(python3 -c 'import json,sys; print(next((t.get("perf") or {}).get("basis") for t in json.load(open(sys.argv[1]))["tasks"] if t["id"] == sys.argv[2]))' "$tmp/slow.json" "$id")
        if [ "$status" = PASS ] && [ "$verdict" = slow ] && [ "$basis" = counts ]; then t_pass; else t_fail "$id (slow, simulated): $status, perf $verdict from $basis (want PASS, slow from the counts)"; fi
    elif [ "$status" = PASS ] && [ "$verdict" = slow ]; then
        t_pass
    else
        t_fail "$id (slow on purpose): $status, perf $verdict $ratio (want PASS, slow): $(grep -A3 "$(basename "$id")" "$tmp/slow.log" | head -8)"
    fi
done < <(verdicts "$tmp/slow.json")
if grep -q 'PASS SLOW' "$tmp/slow.log" && grep -q 'why: ' "$tmp/slow.log"; then t_pass; else t_fail "the table does not show SLOW with the lesson's reason: $(head -20 "$tmp/slow.log")"; fi
if grep -q '<property name="perf" value="slow"/>' "$tmp/slow.xml"; then t_pass; else t_fail "the JUnit report has no perf property"; fi
# 3b. the same slow versions, printing times a thousand times shorter than they took (one
# #define after pr.h): the grader's own clock keeps them SLOW, and says why
mkdir -p "$tmp/fake"
cp -r "$tmp/slow/." "$tmp/fake/"
fake_ids=()
for id in "${slow_ids[@]}"; do
    f=$tmp/fake/$id.c
    [ -f "$f" ] || continue # a CUDA task: not timed in the simulator
    sed -i 's|^#include "pr.h"$|#include "pr.h"\n#define pr_print_time(what, s, base, name) pr_print_time(what, (s) / 1000, base, name)|' "$f"
    grep -q 'define pr_print_time' "$f" || t_fail "$id: could not fake its printed times (no #include \"pr.h\" line)"
    fake_ids+=("$id")
done
$G --tasks-from "$tmp/fake" --perf on --first-config --quiet --task "$(IFS=,; echo "${fake_ids[*]}")" --json "$tmp/fake.json" \
    --junit "$tmp/fake.xml" > "$tmp/fake.log" 2>&1
while IFS=$'\t' read -r id status verdict ratio mode; do
    if [ "$status" = PASS ] && [ "$verdict" = slow ]; then
        t_pass
    else
        t_fail "$id (slow, printing times 1000 times too short): $status, perf $verdict $ratio (want PASS, slow): $(grep -A3 "$(basename "$id")" "$tmp/fake.log" | head -8)"
    fi
done < <(verdicts "$tmp/fake.json")
if grep -q "the times your program printed were shorter than the grader's clock measured" "$tmp/fake.log"; then t_pass; else t_fail "the faked times are not named: $(head -20 "$tmp/fake.log")"; fi
# and no honest solution was ever corrected
if grep -q "printed were shorter" "$tmp/solutions.log"; then t_fail "a solution's own times were called too short: $(grep -B3 'printed were shorter' "$tmp/solutions.log" | head)"; else t_pass; fi

# PERF=required: SLOW fails (one task is enough: the rule is the same for all)
one=${slow_ids[0]}
if GRADE_PERF=required $G --tasks-from "$tmp/slow" --first-config --quiet --task "$one" --json "$tmp/req.json" --junit "$tmp/req.xml" \
    > "$tmp/req.log" 2>&1; then
    t_fail "PERF=required: the slow $one exits 0"
else
    if grep -q 'too slow (PERF=required)' "$tmp/req.log"; then t_pass; else t_fail "PERF=required: no 'too slow' message: $(cat "$tmp/req.log")"; fi
    if [ "$(verdicts "$tmp/req.json" | cut -f2)" = FAIL ]; then t_pass; else t_fail "PERF=required: the slow $one is not FAIL"; fi
fi
# The class report marks it.
mkdir -p "$tmp/class/students/ann"
cp "$tmp/slow.json" "$tmp/class/students/ann/grade-report.json"
if grading/bin/class-report --root . --students "$tmp/class/students" --csv "$tmp/class/class.csv" \
    --html "$tmp/class/summary.html" --work-csv "$tmp/class/work.csv" > /dev/null 2>&1 &&
    grep -q 'PASS SLOW' "$tmp/class/class.csv" && grep -q 'class="c pass slow"' "$tmp/class/summary.html"; then
    t_pass
else
    t_fail "the class report does not mark SLOW: $(head -3 "$tmp/class/class.csv" 2>/dev/null)"
fi
# and its work CSV carries the simulated task's memory counts beside the reference's
if grep -q 'memory (simulated): global loads [0-9.]* sectors/request (reference [0-9.]*)' "$tmp/class/work.csv"; then
    t_pass
else
    t_fail "the class work CSV lacks the memory counts: $(head -c 600 "$tmp/class/work.csv" 2>/dev/null)"
fi

# 4. on by default (without --expect), PERF=off, bad values
env -u GRADE_PERF $G --tasks-from solutions --quiet --task "${native[0]}" --json "$tmp/on.json" --junit "$tmp/on.xml" \
    > /dev/null 2>&1
if [ "$(verdicts "$tmp/on.json" | cut -f3)" = ok ]; then t_pass; else t_fail "the perf verdict is not on by default: $(verdicts "$tmp/on.json")"; fi
$G --tasks-from solutions --perf off --quiet --task "${native[0]}" --json "$tmp/off.json" --junit "$tmp/off.xml" \
    > /dev/null 2>&1
if [ "$(verdicts "$tmp/off.json" | cut -f3)" = none ]; then t_pass; else t_fail "PERF=off still measured: $(verdicts "$tmp/off.json")"; fi
out=$($G --perf fast --list 2>&1); rc=$?
if [ $rc = 2 ] && grep -q "on, off or required" <<<"$out"; then t_pass; else t_fail "--perf fast: exit $rc: $out"; fi
out=$(GRADE_PERF=maybe $G --list 2>&1); rc=$?
if [ $rc = 2 ] && grep -q "GRADE_PERF" <<<"$out"; then t_pass; else t_fail "GRADE_PERF=maybe: exit $rc: $out"; fi

t_summary check-perf "the perf verdict: solutions ok against themselves, slow versions SLOW (simulated: from the counts)"
