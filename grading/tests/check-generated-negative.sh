#!/usr/bin/env bash
# check-generated-negative.sh -- check-generated must fail where it should: on a clone
# of the committed workbook, (1) a solution with no tasks.ini entry (generated and
# committed, but never graded), (2) a committed task that differs from its generated
# form, (3) a task longer than 300 lines, (4) a task with no solution.  Each is planted
# alone and committed.
set -u
cd "$(dirname "$0")/../.." || exit 2
top=$PWD
. grading/tests/lib-test.sh
t_tmpdir pr-gen-neg; tmp=$T_TMP

# plant NAME SHELL-COMMAND EXPECTED-MESSAGE: a fresh clone, the change committed, and
# check-generated must exit non-zero saying EXPECTED-MESSAGE.
plant() {
    local name=$1 change=$2 want=$3 wb=$tmp/$1 out
    git clone -q "$top" "$wb" || { t_fail "$name: cannot clone"; return; }
    mkdir -p "$wb/grading/bin" && cp "$top"/grading/bin/grade "$top"/grading/bin/prgen "$wb/grading/bin/"
    (cd "$wb" && eval "$change" && git add -A && git -c user.name=t -c user.email=t@t commit -qm plant) ||
        { t_fail "$name: cannot plant it"; return; }
    out=$(cd "$wb" && bash grading/tools/check-generated.sh 2>&1) && { t_fail "$name: check-generated passed: $out"; return; }
    if grep -qF -- "$want" <<<"$out"; then t_pass; else t_fail "$name: check-generated did not say '$want': $out"; fi
}

plant orphan 'cp solutions/01_threads/task1.c solutions/01_threads/task99.c &&
              grading/bin/prgen solutions/01_threads/task99.c > 01_threads/task99.c' \
      "solutions/01_threads/task99.c has no entry in its room's tasks.ini"
plant edited 'echo "/* edited */" >> 01_threads/task1.c' \
      "the committed 01_threads/task1.c differs from what its solution generates"
# shellcheck disable=SC2016  # the plant's own shell expands it, in the clone
plant long 'for i in $(seq 300); do echo "/* padding $i */"; done >> solutions/01_threads/task2.c &&
           grading/bin/prgen solutions/01_threads/task2.c > 01_threads/task2.c' \
      "01_threads/task2.c has 421 lines, more than 300"
plant unsolved 'cp 01_threads/task1.c 01_threads/task98.c' \
      "01_threads/task98.c has no committed solution"

t_summary check-generated-negative "an orphan solution, an edited task, a task over 300 lines and an unsolved task each fail check-generated"
