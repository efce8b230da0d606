#!/usr/bin/env bash
# check-generated.sh -- the committed tasks equal what the generator makes of the
# committed solutions, every solution has its tasks.ini entry, and no task file is
# longer than 300 lines.  It reads the files
# from git's HEAD commit, never the working copy, so a learner's edits cannot make it fail.
set -u
cd "$(dirname "$0")/../.." || exit 2
if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
    echo "check-generated: SKIP: not a git checkout with a commit, so the committed tasks cannot be told apart from edited ones"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 count=0
committed=$(git ls-tree -r --name-only HEAD)
mapfile -t solutions < <(grep -E '^solutions/[0-9][0-9]_[^/]+/task[^/]*\.(c|cu)$' <<<"$committed")
mapfile -t tasks < <(grep -E '^[0-9][0-9]_[^/]+/task[^/]*\.(c|cu)$' <<<"$committed")
mapfile -t inis < <(grep -E '^[0-9][0-9]_[^/]+/tasks\.ini$' <<<"$committed")
for sol in "${solutions[@]}"; do
    task=${sol#solutions/}
    count=$((count + 1))
    git show "HEAD:$sol" > "$tmp/solution"
    if ! grading/bin/prgen "$tmp/solution" > "$tmp/generated" 2> "$tmp/err"; then
        echo "check-generated: $sol: $(sed 's|^prgen: [^:]*:|line |' "$tmp/err")"
        bad=1; continue
    fi
    if ! grep -qx "$task" <<<"$committed"; then
        echo "check-generated: $sol has no committed task $task (run make generate and commit)"
        bad=1; continue
    fi
    git show "HEAD:$task" > "$tmp/committed"
    if ! cmp -s "$tmp/generated" "$tmp/committed"; then
        echo "check-generated: the committed $task differs from what its solution generates:"
        diff -u --label "$task (committed)" --label "$task (generated)" "$tmp/committed" "$tmp/generated" | head -40
        bad=1
    fi
    if ! git diff --quiet HEAD -- "$sol" 2>/dev/null; then
        echo "check-generated: note: $sol has uncommitted changes (run make generate, then commit both)"
    fi
done
for task in "${tasks[@]}"; do
    grep -qx "solutions/$task" <<<"$committed" || { echo "check-generated: $task has no committed solution"; bad=1; }
    # A task file holds what the learner works on and reads; shared scaffolding goes
    # into a room header (docs/ARCHITECTURE.md, "Add a room header").
    lines=$(git show "HEAD:$task" | wc -l)
    [ "$lines" -le 300 ] || { echo "check-generated: $task has $lines lines, more than 300: move its scaffolding into a room header"; bad=1; }
done
# Every committed solution has its entry in the committed tasks.ini of its room: one
# without is generated and committed but never graded.  The grader reads the entries
# (grade --describe), from the committed tasks.ini files only.
mkdir -p "$tmp/root"
for ini in "${inis[@]}"; do
    mkdir -p "$tmp/root/${ini%/tasks.ini}"
    git show "HEAD:$ini" > "$tmp/root/$ini"
done
if ! grading/bin/grade --root "$tmp/root" --describe > "$tmp/describe" 2> "$tmp/err"; then
    echo "check-generated: the committed tasks.ini files do not load: $(cat "$tmp/err")"; bad=1
else
    for sol in "${solutions[@]}"; do
        cut -f3 "$tmp/describe" | grep -qx "$sol" ||
            { echo "check-generated: $sol has no entry in its room's tasks.ini, so it is never graded"; bad=1; }
    done
fi
if [ "$count" -eq 0 ]; then
    echo "check-generated: no committed solutions found"; exit 1
fi
[ $bad -eq 0 ] && echo "check-generated: all $count committed tasks equal their generated form"
exit $bad
