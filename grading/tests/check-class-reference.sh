#!/usr/bin/env bash
# check-class-reference.sh -- a reference that fails during class grading is never the
# student's failure (grading/tools/grade-class.sh):
#   - a reference run that fails once (a stand-in for a busy machine): the student is
#     graded again, alone, and passes; the class table has the PASS;
#   - a reference that fails every time: the class run stops with exit 1, names the task and
#     the cause, and writes no class table;
# The stand-in: the class's kept reference executable (CLASS_OUT/ref/NN_room/taskK, kept
# while newer than its source) replaced by a script that fails (once, or always) and
# otherwise runs the real one.  One task (01_threads/task1), two solved students.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
export NO_COLOR=1
t_tmpdir pr-class-ref; tmp=$T_TMP
subs=$tmp/subs out=$tmp/out
for s in ann bob; do
    mkdir -p "$subs/$s/01_threads"
    cp solutions/01_threads/task1.c "$subs/$s/01_threads/task1.c"
done
class() { # LOG: grades the class into $out (SANDBOX as the machine allows), exit status
    local sandbox=on
    grading/bin/grade --sandbox >/dev/null 2>&1 || sandbox=off
    CLASS_OUT=$out TASK=01_threads/task1 JOBS=2 SANDBOX=$sandbox PERF=off \
        bash grading/tools/grade-class.sh "$subs" > "$1" 2>&1
}

# 1. as it should be: builds the references into $out/ref
class "$tmp/first.log"
rc=$?
ref=$out/ref/01_threads/task1
if [ $rc -eq 0 ] && [ -x "$ref" ] && grep -q '^ann,PASS' "$out/class.csv"; then
    t_pass
else
    t_abort "the class run itself failed (exit $rc): $(tail -5 "$tmp/first.log")"
fi
mv "$ref" "$ref.real"

# 2. the reference fails at its first run only
cat > "$ref" <<EOF
#!/bin/sh
if mkdir "$tmp/failed-once" 2>/dev/null; then echo "a stand-in for a busy machine" >&2; exit 3; fi
exec "$ref.real" "\$@"
EOF
chmod +x "$ref"
class "$tmp/once.log"
rc=$?
if [ $rc -eq 0 ] && grep -q 'a reference solution failed while students were graded side by side; grading [a-z]* again, alone' "$tmp/once.log" &&
   grep -q 'graded again, alone: the references passed' "$tmp/once.log" &&
   grep -q '^ann,PASS' "$out/class.csv" && grep -q '^bob,PASS' "$out/class.csv"; then
    t_pass "a reference that failed once: that student graded again, alone; both PASS"
else
    t_fail "a reference that failed once: exit $rc: $(tail -6 "$tmp/once.log"); table: $(head -4 "$out/class.csv" 2>/dev/null)"
fi

# 3. the reference fails every time
cat > "$ref" <<EOF
#!/bin/sh
echo "a stand-in for a broken reference" >&2
exit 3
EOF
chmod +x "$ref"
class "$tmp/always.log"
rc=$?
if [ $rc -eq 1 ] && grep -q 'a reference solution failed again with [a-z]* graded alone, so the class run stops here' "$tmp/always.log" &&
   grep -q '01_threads/task1: .*the reference solution failed here' "$tmp/always.log" && [ ! -e "$out/class.csv" ]; then
    t_pass "a reference that always fails: the class run stops, naming the task and the cause, with no table"
else
    t_fail "a reference that always fails: exit $rc (want 1): $(tail -8 "$tmp/always.log"); table: $(ls "$out")"
fi
# (As an unprivileged user, JOBS=2, beside saboteurs: check-class-attacks.sh.)
t_summary check-class-reference "a failing reference: the student graded again alone, stopping the class if it fails again"
