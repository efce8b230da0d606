#!/usr/bin/env bash
# pristine.sh OUT -- writes every untouched task, generated from its solution,
# to OUT/NN_room/taskK.c (never the learner's files).
set -eu
cd "$(dirname "$0")/../.."
. grading/tools/lib.sh
out=${1:?usage: pristine.sh OUTDIR}
rm -rf "$out"
for sol in $(list_solutions); do
    task=${sol#solutions/}
    mkdir -p "$out/$(dirname "$task")"
    grading/bin/prgen "$sol" -o "$out/$task"
done
