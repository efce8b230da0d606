#!/usr/bin/env bash
# check-builds.sh -- the grader builds a task's reference and the learner's program side by
# side (grader.c: reference_build_start), and still tells the two apart:
#   - both builds run at once: each waits (up to 20 s) for the other to start, and says
#     whether it saw it; the task PASSes;
#   - a reference that does not build: BUILD_ERROR, "the reference solution does not build",
#     with the compiler's words about the solution's file;
#   - a learner's file that does not build, beside a good reference: BUILD_ERROR with the
#     compiler's words about the learner's file, and no word of the reference.
# A one-task workbook in a temporary folder (--root), C, built by a stand-in compiler
# (CC) that marks its start and waits for the other build before it calls the real one.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
export NO_COLOR=1
t_tmpdir pr-builds; tmp=$T_TMP
wb=$tmp/wb
mkdir -p "$wb/98_builds" "$wb/solutions/98_builds" "$tmp/task/98_builds" "$tmp/fake" "$tmp/marks"
cat > "$wb/98_builds/tasks.ini" <<'EOF'
; A one-task workbook: the grader's two builds side by side (check-builds.sh).  Not a room.
[room]
title = Build fixture (not a room)

[task1]
title   = Sum of 1..n
source  = task1.c
kind    = c
runs    = n=10,1000
timeout = 20
hint1   = (a test fixture)
EOF
cat > "$wb/solutions/98_builds/task1.c" <<'EOF'
#include "pr.h"

int main(int argc, char **argv)
{
    long long n = pr_arg_long(argc, argv, "n", 10, 1, 1000000);
    pr_args_done(argc, argv);
    long long sum = 0;
    for (long long i = 1; i <= n; i++)
        sum += i;
    pr_check_int("sum", sum, n * (n + 1) / 2);
    pr_result_int("sum", sum);
    return pr_finish();
}
EOF
cp "$wb/solutions/98_builds/task1.c" "$tmp/task/98_builds/task1.c"
# The stand-in compiler: marks its start (named after the side its source is on), waits for
# the other side's mark, notes whether it came, then compiles for real.
cat > "$tmp/fake/cc" <<EOF
#!/bin/sh
side=task
case "\$*" in *"$wb/solutions/"*) side=ref ;; esac
other=ref; [ \$side = ref ] && other=task
: > "$tmp/marks/\$side.started"
i=0
while [ ! -e "$tmp/marks/\$other.started" ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
if [ -e "$tmp/marks/\$other.started" ]; then echo yes > "$tmp/marks/\$side.saw"; else echo no > "$tmp/marks/\$side.saw"; fi
exec cc "\$@"
EOF
chmod +x "$tmp/fake/cc"

grade() {  # NAME: the fixture graded into $tmp/NAME.log and $tmp/NAME.json; exit status
    rm -f "$tmp/marks"/*
    CC="$tmp/fake/cc" GRADE_SANDBOX=off PERF=off grading/bin/grade --root "$wb" --tasks-from "$tmp/task" \
        --build-dir "$tmp/build-$1" --json "$tmp/$1.json" --junit "$tmp/$1.xml" > "$tmp/$1.log" 2>&1
}

grade both; rc=$?
if [ $rc -eq 0 ] && grep -q '"status": "PASS"' "$tmp/both.json" &&
   [ "$(cat "$tmp/marks/ref.saw" 2>/dev/null)" = yes ] && [ "$(cat "$tmp/marks/task.saw" 2>/dev/null)" = yes ]; then
    t_pass "the reference and the learner's program were built at the same time, and the task PASSes"
else
    t_fail "two builds at once: exit $rc, the reference's build saw the other: $(cat "$tmp/marks/ref.saw" 2>/dev/null)," \
        "the task's: $(cat "$tmp/marks/task.saw" 2>/dev/null); $(tail -3 "$tmp/both.log")"
fi

cp "$wb/solutions/98_builds/task1.c" "$tmp/good.c"
echo 'int broken_reference(void) { return missing_name; }' >> "$wb/solutions/98_builds/task1.c"
grade ref; rc=$?
if [ $rc -ne 0 ] && grep -q '"status": "BUILD_ERROR"' "$tmp/ref.json" &&
   grep -q 'the reference solution does not build' "$tmp/ref.log" && grep -q 'missing_name' "$tmp/ref.log"; then
    t_pass "a reference that does not build: BUILD_ERROR, named as the workbook's, with the compiler's words"
else
    t_fail "a broken reference: exit $rc: $(head -8 "$tmp/ref.log")"
fi
cp "$tmp/good.c" "$wb/solutions/98_builds/task1.c"

echo 'int broken_task(void) { return learners_typo; }' >> "$tmp/task/98_builds/task1.c"
grade task; rc=$?
if [ $rc -ne 0 ] && grep -q '"status": "BUILD_ERROR"' "$tmp/task.json" && grep -q 'learners_typo' "$tmp/task.log" &&
   ! grep -q 'reference' "$tmp/task.log"; then
    t_pass "a learner's file that does not build: BUILD_ERROR with the compiler's words, the reference not blamed"
else
    t_fail "a broken task: exit $rc: $(head -8 "$tmp/task.log")"
fi
t_summary check-builds
