#!/usr/bin/env bash
# generate.sh -- (maintainers) rewrites every task from its solution.  A task file
# with changes of its own (it differs from the committed copy, or there is no git)
# is backed up to NN_room/.backups/ first: nothing a learner wrote is lost.
set -eu
cd "$(dirname "$0")/../.."
. grading/tools/lib.sh
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
status=0
for sol in $(list_solutions); do
    task=${sol#solutions/}
    mkdir -p "$(dirname "$task")"
    grading/bin/prgen "$sol" > "$tmp"
    if [ -e "$task" ] && ! cmp -s "$tmp" "$task"; then
        if ! git rev-parse -q --verify HEAD >/dev/null 2>&1 || ! git diff --quiet HEAD -- "$task" 2>/dev/null; then
            # Never overwrite a file that could not be backed up (set -e does not see
            # a failure inside "$(...)" in echo's arguments).
            if ! backup=$(backup_file "$task"); then
                echo "generate: could not back up $task: left as it is" >&2
                status=1
                continue
            fi
            echo "generate: $task has its own changes: kept as $backup"
        fi
    fi
    if [ ! -e "$task" ] || ! cmp -s "$tmp" "$task"; then
        cp "$tmp" "$task"
        echo "generate: wrote $task"
    fi
done
exit $status
