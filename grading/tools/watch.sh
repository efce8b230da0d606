#!/usr/bin/env bash
# watch.sh TASK -- grades TASK now and again every time its file is saved, until
# Ctrl-C.  Uses inotifywait (inotify-tools) where it is installed, and otherwise
# looks at the file's modification time twice a second.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tools/lib.sh
task=$(resolve_task "${1:-}") || exit 2
[ -e "$task" ] || { echo "watch: $task does not exist (make reset TASK=${task%.*})" >&2; exit 2; }
id=${task%.*}
grade() {
    echo "---- $(date +%H:%M:%S) grading $id (Ctrl-C to stop)"
    grading/bin/grade --task "$id" "${GRADE_ARGS[@]}"
}
GRADE_ARGS=()
[ "${V:-}" = 1 ] && GRADE_ARGS+=(--verbose)
ipid=""
# Ctrl-C (or TERM) stops the watch and the inotifywait it started.
stop() { [ -z "$ipid" ] || kill "$ipid" 2>/dev/null; echo; echo "watch: stopped"; exit 0; }
trap stop INT TERM
stamp() { stat -c '%.9Y %s %i' "$task" 2>/dev/null; } # changes when the file is written or replaced
grade
if command -v inotifywait >/dev/null 2>&1 && [ -z "${WATCH_POLL:-}" ]; then
    echo "watch: waiting for $task to be saved (inotify)"
    # Editors save by writing the file or by replacing it: watch the folder.  inotifywait
    # runs beside the loop (a trap waits for a command in the foreground to end, and
    # inotifywait would not end); the loop reads its events, and a signal ends the read.
    exec 3< <(exec inotifywait -m -q -e close_write -e moved_to -e create --format %f "$(dirname "$task")" 2>/dev/null)
    ipid=$!
    while read -r name <&3; do
        [ "$name" = "$(basename "$task")" ] || continue
        sleep 0.2 # let the editor finish (some write twice), and take that save's other events
        while read -r -t 0.05 _ <&3; do :; done
        if [ -e "$task" ]; then grade; fi
    done
    exec 3<&-
    ipid=""
    echo "watch: inotifywait stopped; falling back to polling"
fi
echo "watch: waiting for $task to be saved (checking twice a second)"
last=$(stamp)
while :; do
    sleep 0.5
    now=$(stamp)
    if [ -n "$now" ] && [ "$now" != "$last" ]; then
        last=$now
        grade
    fi
done
