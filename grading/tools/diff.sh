#!/usr/bin/env bash
# diff.sh TASK -- your changes to a task, against its untouched form (generated
# afresh from the solution's markers: never the solution itself).
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tools/lib.sh
task=$(resolve_task "${1:-}") || exit 2
if [ ! -e "$task" ]; then
    echo "diff: $task does not exist (make reset TASK=${task%.*} brings it back)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/untouched/$(dirname "$task")"
grading/bin/prgen "solutions/$task" > "$tmp/untouched/$task" || exit 1
if cmp -s "$tmp/untouched/$task" "$task"; then
    echo "diff: $task is untouched"
    exit 0
fi
colour=never
[ -t 1 ] && [ -z "${NO_COLOR:-}" ] && colour=always
# diff exits 1 when the files differ: that is the normal case here.
(cd "$tmp/untouched" && diff -u --label "untouched/$task" --label "yours/$task" "$task" "$OLDPWD/$task" \
    --color="$colour") || [ $? -eq 1 ]
