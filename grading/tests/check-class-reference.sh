#!/usr/bin/env bash
# check-class-reference.sh -- a reference that fails during class grading is never the
# student's failure (grading/tools/grade-class.sh):
#   - a reference run that fails once (a stand-in for a busy machine): the student is
#     graded again, alone, and passes; the class table has the PASS;
#   - a reference that fails every time: the class run stops with exit 1, names the task and
#     the cause, and writes no class table;
#   - as an unprivileged user, JOBS=2: one student at a time, with the reason; a starver
#     beside a solved student does not stop it from passing.
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
# 4. as an unprivileged user (nobody), JOBS=2: no cgroups of its own for each run, so the
# students are graded one at a time, and the class run says why.  Beside a solved student, a
# starver (250 threads started and joined over and over, for 1 s a run): the solved student
# passes.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
    u=$tmp/unpriv
    mkdir -p "$u/subs/ann/01_threads" "$u/subs/zed/01_threads" "$u/out"
    cp solutions/01_threads/task1.c "$u/subs/ann/01_threads/task1.c"
    cat > "$u/subs/zed/01_threads/task1.c" <<'EOF'
#include <pthread.h>
#include <time.h>
static void *idle(void *arg) { return arg; }
int main(void)
{
    time_t end = time(NULL) + 1;
    while (time(NULL) < end) {
        pthread_t t[250];
        int n = 0;
        for (int i = 0; i < 250; i++)
            n += pthread_create(&t[n], NULL, idle, NULL) == 0;
        for (int i = 0; i < n; i++)
            pthread_join(t[i], NULL);
    }
    return 0;
}
EOF
    chmod 755 "$tmp"
    chown -R 65534:65534 "$u"
    setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$u" CLASS_OUT="$u/out" TASK=01_threads/task1 JOBS=2 \
        PERF=off SANDBOX=off bash grading/tools/grade-class.sh "$u/subs" > "$tmp/unpriv.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q 'one student at a time, not JOBS=2: not root' "$tmp/unpriv.log" &&
       grep -q '^ann,PASS' "$u/out/class.csv" && grep -q '^zed,FAIL' "$u/out/class.csv"; then
        t_pass "as nobody, JOBS=2: one student at a time, said why; the solved student beside a starver passes"
    else
        t_fail "as nobody, JOBS=2: exit $rc: $(head -3 "$tmp/unpriv.log"); table: $(head -4 "$u/out/class.csv" 2>/dev/null)"
    fi
    chown -R "$(id -u):$(id -g)" "$u"
else
    t_say "not root (or no setpriv): the unprivileged class run is not checked"
fi
t_summary check-class-reference "a failing reference: the student graded again alone, stopping the class if it fails again; without root: one student at a time"
