#!/usr/bin/env bash
# check-data-safety.sh [--committed] -- nothing a learner (or a student) wrote is lost:
# make reset, grade, clean, generate and grade-class never delete or overwrite a
# learner's file without a byte-identical copy in NN_room/.backups/.
#
# Works on a throwaway clone of this workbook (never on this checkout): the
# committed files, plus this checkout's Makefile and grading/ as they are now
# (so uncommitted changes to the scripts are what is tested; --committed: the
# committed ones).  There it edits task files as a learner would (a comment
# added, a task solved, a note of their own), runs each command and compares
# checksums of every file outside build/, grading/bin/ and .git/ before and after.
# Exit 0: every check passed; 1: a violation (named); 2: could not set up.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
src=$PWD
committed=0
[ "${1:-}" = --committed ] && committed=1

if ! { command -v git >/dev/null 2>&1 && git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1; }; then
    t_skip "not a git checkout (the check works on a clone)"
    t_summary; exit
fi

t_tmpdir data-safety; tmp=$T_TMP   # (removed on exit, read-only files too)
wb=$tmp/wb
git clone -q "$src" "$wb" || t_abort "cannot clone $src" 2
if [ $committed -eq 0 ]; then
    # The working tree's Makefile and grading/ (tracked and new files, not ignored ones).
    (cd "$src" && git ls-files -z -c -o --exclude-standard -- Makefile grading) |
        while IFS= read -r -d '' f; do
            if [ -e "$src/$f" ]; then mkdir -p "$wb/$(dirname "$f")" && cp -p "$src/$f" "$wb/$f"; else rm -f "$wb/$f"; fi
        done
fi
cd "$wb" || t_abort "cannot enter the clone" 2
# The clone's own identity, so that git works wherever this runs (CI has none).
git config user.email data-safety@localhost; git config user.name data-safety
if ! make -s all > "$tmp/make-all.log" 2>&1; then
    tail -n 15 "$tmp/make-all.log"; t_abort "cannot build the grader in the clone (above)" 2
fi
export NO_COLOR=1

# Every file outside build/, grading/bin/ and .git/ of folder $1 (default: the
# clone), as "sha256  path" (symbolic links as "link -> target").
snapshot() {
    (cd "${1:-$wb}" && find . \( -path ./build -o -path ./grading/bin -o -path ./.git \) -prune -o -type f -print0 |
        LC_ALL=C sort -z | xargs -0r sha256sum) 2>/dev/null
    (cd "${1:-$wb}" && find . \( -path ./build -o -path ./grading/bin -o -path ./.git \) -prune -o \
        -type l -printf 'link %p -> %l\n' | LC_ALL=C sort)
}
# The differences between two snapshots, as "changed|removed|new: path" (at most 5).
snap_diff() {
    diff <(sed 's/^[0-9a-f]*  //; s/^link //' "$1" | sort) <(sed 's/^[0-9a-f]*  //; s/^link //' "$2" | sort) |
        sed -n 's/^< /removed: /p; s/^> /new: /p' | head -n 5
    join -j 2 <(awk '{print $1, $2}' "$1" | sort -k2) <(awk '{print $1, $2}' "$2" | sort -k2) |
        awk '$2 != $3 {print "changed: " $1}' | head -n 5
}
# The snapshot without the paths matching an extended regex (what a step may change).
without() { grep -v -E "$1" "$2"; }
# 1 when some file in dir $1 holds exactly the content of file $2.
has_copy() {
    local f
    for f in "$1"/*; do [ -f "$f" ] && cmp -s "$f" "$2" && return 0; done
    return 1
}
# Runs make, keeping its output in $tmp/LABEL.log.  make's own status is 2 whenever
# a command fails (a task that FAILs included): callers check what happened instead.
run_make() { # label, make arguments...
    local label=$1; shift
    make --no-print-directory "$@" > "$tmp/$label.log" 2>&1
}

# ---- a learner's edits ---------------------------------------------------------------
echo "/* my note: try a chunk per thread */" >> 01_threads/task1.c          # a comment
cp solutions/01_threads/task2.c 01_threads/task2.c                          # a solved task
echo "// learner: shared memory first" >> 04_cuda/task2.cu
echo "/* learner: remember the remainder */" >> 03_mpi/task1.c
echo "things to ask the instructor" > 01_threads/my-notes.txt               # a file of their own
mkdir -p 01_threads/.backups
echo "an older backup" > 01_threads/.backups/task3.c.20240101-000000        # backups already there
for f in 01_threads/task1.c 01_threads/task2.c 04_cuda/task2.cu 03_mpi/task1.c; do cp "$f" "$tmp/mine.${f//\//_}"; done
mine() { echo "$tmp/mine.${1//\//_}"; }
snapshot > "$tmp/s0"

# ---- make grade: changes no file outside build/ ---------------------------------------
grade_ok=1
for sel in "ROOM=01" "TASK=03_mpi/task1" "TASK=04_cuda/task2" "TASK=05_cuda_mpi/task1"; do
    rm -f build/grade-report.json
    run_make "grade-${sel//\//_}" grade "$sel"
    if [ ! -s build/grade-report.json ] || ! grep -q -E '^[0-9]+ tasks? in ' "$tmp/grade-${sel//\//_}.log"; then
        t_fail "make grade $sel did not grade: $(grep -m1 -v '^ *$' "$tmp/grade-${sel//\//_}.log")"; grade_ok=0
    fi
done
snapshot > "$tmp/s1"
if cmp -s "$tmp/s0" "$tmp/s1"; then
    [ $grade_ok -eq 1 ] && t_pass "make grade (ROOM=01, an MPI, a CUDA and a CUDA+MPI task) changed no file"
else
    t_fail "make grade changed files: $(snap_diff "$tmp/s0" "$tmp/s1" | tr '\n' ' ')"
fi

# ---- make reset ----------------------------------------------------------------------
t=01_threads/task1.c
run_make reset1 reset TASK=01_threads/task1
if ! cmp -s "$t" <(grading/bin/prgen solutions/$t); then t_fail "make reset left $t not untouched"
elif ! has_copy 01_threads/.backups "$(mine $t)"; then t_fail "make reset: no byte-identical backup of the learner's $t"
else t_pass "make reset TASK=01_threads/task1: untouched again, the learner's version in .backups/"; fi
snapshot > "$tmp/s2"
others=$(snap_diff "$tmp/s1" "$tmp/s2" | grep -v -E "^(changed: \./01_threads/task1\.c|new: \./01_threads/\.backups/task1\.c\.)")
if [ -z "$others" ]; then t_pass "make reset changed nothing else"; else t_fail "make reset also changed: ${others//$'\n'/ }"; fi

# The same task edited and reset again within the second: the first backup survives.
echo "/* second attempt */" >> "$t"; cp "$t" "$tmp/second"
run_make reset2 reset TASK=01_threads/task1
run_make reset3 reset TASK=01_threads/task1   # untouched now: nothing to do
n=0; for f in 01_threads/.backups/task1.c.*; do if [ -e "$f" ]; then n=$((n + 1)); fi; done
if has_copy 01_threads/.backups "$(mine $t)" && has_copy 01_threads/.backups "$tmp/second" && [ "$n" -eq 2 ]; then
    t_pass "make reset twice in a row: both versions kept ($n backups), a third reset of an untouched task kept nothing new"
else
    t_fail "make reset twice in a row: expected both versions in 2 backups, found $n: $(ls 01_threads/.backups)"
fi
# A task the learner deleted comes back; nothing to back up.
rm 01_threads/task4.c
run_make reset4 reset TASK=01_threads/task4
if cmp -s 01_threads/task4.c <(grading/bin/prgen solutions/01_threads/task4.c); then
    t_pass "make reset of a deleted task restores it"
else
    t_fail "make reset of a deleted task did not restore it"
fi
# A bad TASK: exit 2 and nothing changed.
snapshot > "$tmp/s3a"
make --no-print-directory reset TASK=01_threads/task99 > "$tmp/reset-bad.log" 2>&1; rc=$?
snapshot > "$tmp/s3b"
if [ $rc -eq 2 ] && cmp -s "$tmp/s3a" "$tmp/s3b"; then
    t_pass "make reset TASK=<no such task>: exit 2, nothing changed"
else
    t_fail "make reset TASK=<no such task>: exit $rc (want 2), changes: $(snap_diff "$tmp/s3a" "$tmp/s3b" | tr '\n' ' ')"
fi
# No room for a backup (.backups is a file): the task must stay as it is.
echo "/* edit */" >> 02_processes/task1.c; cp 02_processes/task1.c "$tmp/p1"
echo "not a folder" > 02_processes/.backups
make --no-print-directory reset TASK=02_processes/task1 > "$tmp/reset-nobackup.log" 2>&1; rc=$?
if cmp -s 02_processes/task1.c "$tmp/p1" && [ $rc -ne 0 ]; then
    t_pass "make reset when no backup can be made: fails (exit $rc), the learner's file unchanged"
else
    t_fail "make reset when no backup can be made: exit $rc, and the learner's 02_processes/task1.c was overwritten"
fi
rm -f 02_processes/.backups

# ---- make clean ----------------------------------------------------------------------
snapshot > "$tmp/s4"
run_make clean clean
snapshot > "$tmp/s5"
if [ -e build ] || [ -e grading/bin ]; then t_fail "make clean left build/ or grading/bin/"
elif cmp -s "$tmp/s4" "$tmp/s5"; then t_pass "make clean: every task, note and .backups/ file intact"
else t_fail "make clean touched files: $(snap_diff "$tmp/s4" "$tmp/s5" | tr '\n' ' ')"; fi
make -s all > "$tmp/make-all2.log" 2>&1 || t_fail "make all after make clean failed"

# ---- make generate ---------------------------------------------------------------------
# Edited and not committed: 01_threads/task2.c (solved), 04_cuda/task2.cu, 03_mpi/task1.c,
# 02_processes/task1.c.  Committed by the learner (git is a backup too): 01_threads/task5.c.
echo "/* committed by the learner */" >> 01_threads/task5.c; cp 01_threads/task5.c "$tmp/c5"
{ git add 01_threads/task5.c && git commit -q -m "learner's work"; } || t_fail "git commit in the clone failed"
snapshot > "$tmp/s6"
run_make generate generate
gen_ok=1
for f in 01_threads/task2.c 04_cuda/task2.cu 03_mpi/task1.c; do
    if cmp -s "$f" "$(mine "$f")"; then continue; fi
    if ! has_copy "$(dirname "$f")/.backups" "$(mine "$f")"; then t_fail "make generate overwrote $f with no backup"; gen_ok=0; fi
done
if ! cmp -s 02_processes/task1.c "$tmp/p1" && ! has_copy 02_processes/.backups "$tmp/p1"; then
    t_fail "make generate overwrote 02_processes/task1.c with no backup"; gen_ok=0
fi
[ $gen_ok -eq 1 ] && t_pass "make generate: every learner-edited task unchanged or backed up byte-identical"
if cmp -s 01_threads/task5.c "$tmp/c5" || has_copy 01_threads/.backups "$tmp/c5"; then
    t_pass "make generate: a task the learner committed is unchanged or backed up"
elif git show HEAD:01_threads/task5.c | cmp -s - "$tmp/c5"; then
    t_pass "make generate: a task the learner committed was overwritten, still in git (HEAD) (note: not in .backups/)"
else
    t_fail "make generate: the learner's committed 01_threads/task5.c is lost"
fi
snapshot > "$tmp/s7"
lost=$(snap_diff "$tmp/s6" "$tmp/s7" | grep -E '^removed: ' | grep -v -E '^removed: \./[0-9]{2}_[^/]*/task')
if [ -z "$lost" ] && [ -f 01_threads/my-notes.txt ] && [ -f 01_threads/.backups/task3.c.20240101-000000 ]; then
    t_pass "make generate: the learner's notes and older backups intact"
else
    t_fail "make generate removed: ${lost//$'\n'/ }"
fi
# No room for a backup (.backups is a file): an edited task must not be overwritten.
echo "/* edit */" >> 02_processes/task3.c; cp 02_processes/task3.c "$tmp/p3"
mv 02_processes/.backups "$tmp/p-backups" 2>/dev/null
echo "not a folder" > 02_processes/.backups
make --no-print-directory generate > "$tmp/generate-nobackup.log" 2>&1; rc=$?
if cmp -s 02_processes/task3.c "$tmp/p3"; then
    t_pass "make generate when no backup can be made: the learner's 02_processes/task3.c unchanged (exit $rc)"
else
    t_fail "make generate when no backup can be made (02_processes/.backups is a file): 02_processes/task3.c overwritten, no backup (exit $rc: $(grep -m1 -i 'backup' "$tmp/generate-nobackup.log"))"
fi
rm -f 02_processes/.backups

# ---- make grade-class -------------------------------------------------------------------
# Two students: a folder (a clone with edits, plus a Makefile of their own and a task
# that is a link to the instructor's file) and the same as a .tar.gz.
subs=$tmp/submissions
mkdir -p "$subs"
git clone -q "$src" "$subs/alice"
rm -rf "$subs/alice/.git"
cp solutions/01_threads/task2.c "$subs/alice/01_threads/task2.c"
echo "/* alice */" >> "$subs/alice/01_threads/task1.c"
echo 'grade:; @echo all passed' > "$subs/alice/Makefile"
ln -sf "$wb/01_threads/task3.c" "$subs/alice/01_threads/task3.c"
(cd "$tmp" && cp -r "$subs/alice" bob && echo "/* bob */" >> bob/01_threads/task4.c &&
    tar -czf "$subs/bob.tar.gz" bob && rm -rf bob)
chmod -R a-w "$subs"   # a student's folder must not even need to be writable
snapshot "$subs" > "$tmp/sub0"
snapshot > "$tmp/s8"
JOBS=2 run_make grade-class grade-class SUBMISSIONS="$subs" ROOM=01
grep -q 'students in' "$tmp/grade-class.log" || t_fail "make grade-class did not finish: $(tail -n 2 "$tmp/grade-class.log" | tr '\n' ' ')"
snapshot "$subs" > "$tmp/sub1"
snapshot > "$tmp/s9"
if cmp -s "$tmp/sub0" "$tmp/sub1"; then
    t_pass "make grade-class: the submissions folder unchanged"
else
    t_fail "make grade-class changed the submissions: $(snap_diff "$tmp/sub0" "$tmp/sub1" | tr '\n' ' ')"
fi
if cmp -s "$tmp/s8" "$tmp/s9"; then
    t_pass "make grade-class: the instructor's own files unchanged"
else
    t_fail "make grade-class changed the instructor's files: $(snap_diff "$tmp/s8" "$tmp/s9" | tr '\n' ' ')"
fi
chmod -R u+w "$subs"
# Submissions kept inside grade-class's own output folder (CLASS_OUT/students): they must survive.
mkdir -p build/class/students
cp -r "$subs/alice" build/class/students/carol
snapshot build/class/students | grep -F ' ./carol/' > "$tmp/sub2"
make --no-print-directory grade-class SUBMISSIONS=build/class/students TASK=01_threads/task2 \
    > "$tmp/grade-class-inside.log" 2>&1; rc=$?
if (cd build/class/students 2>/dev/null && sha256sum --quiet -c "$tmp/sub2" >/dev/null 2>&1); then
    t_pass "make grade-class SUBMISSIONS=build/class/students (inside its output folder): submissions kept (exit $rc)"
else
    t_fail "make grade-class SUBMISSIONS=build/class/students (inside its output folder build/class) deleted or changed the submissions (exit $rc)"
fi

t_summary check-data-safety "nothing a learner wrote was lost"
