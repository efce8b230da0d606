#!/usr/bin/env bash
# check-generated-negative.sh -- check-generated must fail where it should: on a clone
# of the committed workbook, (1) a solution with no tasks.ini entry (generated and
# committed, but never graded), (2) a committed task that differs from its generated
# form, (3) a task longer than 300 lines, (4) a task with no solution.  Each is planted
# alone and committed.
set -u
cd "$(dirname "$0")/../.."
top=$PWD
tmp=$(mktemp -d /tmp/pr-gen-neg-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "check-generated-negative: FAILED: $*"; failures=$((failures + 1)); }

# plant NAME SHELL-COMMAND EXPECTED-MESSAGE: a fresh clone, the change committed, and
# check-generated must exit non-zero saying EXPECTED-MESSAGE.
plant() {
    local name=$1 change=$2 want=$3 wb=$tmp/$1 out
    git clone -q "$top" "$wb" || { fail "$name: cannot clone"; return; }
    mkdir -p "$wb/grading/bin" && cp "$top"/grading/bin/grade "$top"/grading/bin/prgen "$wb/grading/bin/"
    (cd "$wb" && eval "$change" && git add -A && git -c user.name=t -c user.email=t@t commit -qm plant) ||
        { fail "$name: cannot plant it"; return; }
    out=$(cd "$wb" && bash grading/check-generated.sh 2>&1) && { fail "$name: check-generated passed: $out"; return; }
    grep -qF -- "$want" <<<"$out" || fail "$name: check-generated did not say '$want': $out"
}

plant orphan 'cp solutions/01_threads/task1.c solutions/01_threads/task99.c &&
              grading/bin/prgen solutions/01_threads/task99.c > 01_threads/task99.c' \
      "solutions/01_threads/task99.c has no entry in its room's tasks.ini"
plant edited 'echo "/* edited */" >> 01_threads/task1.c' \
      "the committed 01_threads/task1.c differs from what its solution generates"
plant long 'for i in $(seq 300); do echo "/* padding $i */"; done >> solutions/01_threads/task2.c &&
           grading/bin/prgen solutions/01_threads/task2.c > 01_threads/task2.c' \
      "01_threads/task2.c has 421 lines, more than 300"
plant unsolved 'cp 01_threads/task1.c 01_threads/task98.c' \
      "01_threads/task98.c has no committed solution"

[ $failures -eq 0 ] && echo "check-generated-negative: an orphan solution, an edited task, a task over 300 lines and an unsolved task each fail check-generated"
exit $((failures > 0))
