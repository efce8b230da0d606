#!/usr/bin/env bash
# reset.sh TASK -- restores the untouched task, keeping the learner's file as a
# timestamped backup in NN_room/.backups/.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tools/lib.sh
task=$(resolve_task "${1:-}") || exit 2
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
grading/bin/prgen "solutions/$task" > "$tmp" || exit 1
if [ -e "$task" ] && cmp -s "$tmp" "$task"; then
    echo "reset: $task is already untouched; nothing to do"
    exit 0
fi
if [ -e "$task" ]; then
    backup=$(backup_file "$task") || { echo "reset: could not back up $task; nothing changed" >&2; exit 1; }
    echo "reset: your version is kept as $backup"
fi
cp "$tmp" "$task" && echo "reset: $task is back to its untouched form"
