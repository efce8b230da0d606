#!/usr/bin/env bash
# grade-class.sh SUBMISSIONS -- grades a whole class (make grade-class).
#
# Every entry of SUBMISSIONS is one student's checkout of the workbook: a folder,
# a .tar.gz/.tgz or a .zip.  Of each, only the task files (NN_room/taskK.c or .cu,
# regular files, at most 1 MiB) are copied into a fresh folder (from an archive, only they
# are unpacked: grading/tools/unpack.py); everything else
# the student changed -- the Makefile, the grader, tasks.ini, the solutions -- is
# never read.  Each student is then graded by this workbook's own grader, with
# its usual isolation and timeouts, against this workbook's solutions.  Students
# are graded side by side (JOBS at a time), sharing one set of reference builds.
#
# Environment: JOBS (default: half the cores, at least 1), ROOM / TASK (grade
# only those), CLASS_OUT (default build/class), GRADE_TIMEOUT_SCALE as usual,
# SANDBOX=off (grade without the sandbox: said in every report and the summary),
# SEED=N (the draw of sizes and seeds, the same for every student; default: a fresh one),
# OVERLAY=file (a private tasks.ini overlay: the graded sizes and ranges, never shown to a
# student's program), HIDE_EXPECTED=1 (the reports name the failing configuration and result
# line, but not the expected value),
# PERF=on|off|required (the perf verdict, as make grade's; default on: keep JOBS times
# 2, the threads or ranks of a perf run, within the cores, or the graders side by side
# slow each other's perf runs down).
# Output under CLASS_OUT: students/NAME/{grade-report.json, grade-report.xml,
# results.json (Gradescope's), grade.log, progress.json when the checkout had one}
# or students/NAME/error.txt, class.csv, hints.csv, work.csv and summary.html.
#
# Each student's builds and programs run in the grader's sandbox (bubblewrap: no
# solutions, no references, no other students, no network); without one this stops,
# unless SANDBOX=off.  The sandbox is no defence against kernel exploits (README).
set -u
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
. grading/tools/lib.sh

die() { echo "grade-class: $*" >&2; exit 2; }
subs=${1:-}
[ -n "$subs" ] || die "usage: make grade-class SUBMISSIONS=folder (one folder, .tar.gz or .zip per student)"
[ -d "$subs" ] || die "SUBMISSIONS=$subs: no such folder"
subs=$(cd "$subs" && pwd)
cores=$(nproc 2>/dev/null || echo 1)
jobs=${JOBS:-$(( cores / 2 > 0 ? cores / 2 : 1 ))}
{ [[ "$jobs" =~ ^[1-9][0-9]*$ ]] && [ "$jobs" -le 64 ]; } || die "JOBS=$jobs: a number of students graded at once, from 1 to 64"
# One student's processes must not starve another's: as root, every run has cgroups of its
# own (its processes and memory capped).  Without them, the students' runs share one user's
# process limit, and one student can take it all: then they are graded one at a time.
if [ "$jobs" -gt 1 ] && ! { [ "$(id -u)" = 0 ] && { [ -w /sys/fs/cgroup/cgroup.procs ] || [ -w /sys/fs/cgroup/pids/cgroup.procs ]; }; }; then
    echo "grade-class: one student at a time, not JOBS=$jobs: $(if [ "$(id -u)" = 0 ]; then echo "no writable cgroups here"; else echo "not root, so no cgroups of its own for each run"; fi), and one student's processes could starve another's (grade as root to grade side by side)"
    jobs=1
fi
out=${CLASS_OUT:-build/class}
filter=()
[ -n "${ROOM:-}" ] && filter+=(--room "$ROOM")
[ -n "${TASK:-}" ] && filter+=(--task "$TASK")
# A bad ROOM or TASK: one line and what exists, before any work.
if [ -n "${ROOM:-}" ] && [ ! -f "$ROOM/tasks.ini" ] && ! compgen -G "${ROOM}_*/tasks.ini" >/dev/null; then
    rooms=""
    for d in [0-9][0-9]_*/; do if [ -d "$d" ]; then rooms+="${d%/} "; fi; done
    echo "grade-class: no room '$ROOM'. These exist: $rooms" >&2
    exit 2
fi
[ -z "${TASK:-}" ] || resolve_task "$TASK" >/dev/null || exit 2

case "${PERF:-}" in
    ""|on|off|required) [ -z "${PERF:-}" ] || export GRADE_PERF=$PERF ;;
    *) die "PERF=$PERF: on (the default), off or required" ;;
esac

# One draw of sizes and seeds for the whole class: SEED=N (the instructor's own, which no
# student knows beforehand), else a fresh one.  Every student is graded on the same draw.
if [ -n "${SEED:-}" ]; then
    { [[ "$SEED" =~ ^[1-9][0-9]{0,8}$ ]]; } || die "SEED=$SEED: a whole number from 1 to 999999999"
    export GRADE_SEED=$SEED
    seed_said="the draw SEED=$SEED"
else
    GRADE_SEED=$(( $(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % 999999999 + 1 ))
    export GRADE_SEED
    seed_said="a fresh draw, SEED=$GRADE_SEED (SEED=$GRADE_SEED grades the class on it again)"
fi

# The instructor's private overlay and hidden expected values (the grader checks both).
if [ -n "${OVERLAY:-}" ]; then
    [ -f "$OVERLAY" ] || die "OVERLAY=$OVERLAY: no such file"
    export GRADE_TASKS_OVERLAY=$OVERLAY
    seed_said="$seed_said, with the overlay $OVERLAY"
fi
case "${HIDE_EXPECTED:-}" in
    ""|0) ;;
    1) export GRADE_HIDE_EXPECTED=1 ;;
    *) die "HIDE_EXPECTED=$HIDE_EXPECTED: 1 (or 0, the default)" ;;
esac

# The sandbox: required, unless the instructor says SANDBOX=off.
case "${SANDBOX:-on}" in
    off) export GRADE_SANDBOX=off
         echo "grade-class: SANDBOX=off: students' programs run without the sandbox (every report says so)" ;;
    on|auto|"")
         export GRADE_SANDBOX=on
         sandbox=$(grading/bin/grade --root "$root" --sandbox 2>&1) ||
             die "no sandbox for every run here: ${sandbox#grade: }
  Class grading runs each student's code in a sandbox, so that it cannot read the solutions or
  change what the others are graded against. Install bubblewrap (make deps, as root) and allow
  user namespaces (README: \"Grading in a sandbox\"), or grade without it: SANDBOX=off" ;;
    *) die "SANDBOX=$SANDBOX: on (the default) or off" ;;
esac

# The workbook's task files, as NN_room/taskK.ext.
mapfile -t task_files < <(list_solutions | sed 's|^solutions/||')
[ ${#task_files[@]} -gt 0 ] || die "this workbook has no solutions/NN_room/taskK files"

mapfile -t entries < <(find "$subs" -mindepth 1 -maxdepth 1 \( -type d -o -type f -o -type l \) | LC_ALL=C sort)
[ ${#entries[@]} -gt 0 ] || die "SUBMISSIONS=$subs is empty: put one folder, .tar.gz or .zip per student in it"

# Each run clears its output folder: the submissions must not be in it (nor it in them).
mkdir -p "$out" || die "cannot write to $out"
out_abs=$(cd "$out" && pwd)
case "$subs/" in "$out_abs"/*) die "SUBMISSIONS=$subs is inside the output folder $out_abs, which every run clears: move the submissions elsewhere" ;; esac
case "$out_abs/" in "$subs"/*) die "the output folder $out_abs (CLASS_OUT) is inside SUBMISSIONS=$subs: choose another CLASS_OUT" ;; esac
rm -rf "$out/students" "$out/class.csv" "$out/hints.csv" "$out/work.csv" "$out/summary.html"
mkdir -p "$out/students" "$out/ref" || die "cannot write to $out"
out=$(cd "$out" && pwd)
# The class's folders are never shown to a student's code, wherever they lie.
export GRADE_SANDBOX_HIDE="$out:$subs"

# A folder name for each student: the entry's name without its archive suffix,
# with anything but letters, digits, '.', '_' and '-' made '_', made unique.
declare -A taken=()
student_name() { # sets REPLY (no subshell: taken[] must remember)
    local base name n=2
    base=$(basename "$1")
    base=${base%.tar.gz}; base=${base%.tgz}; base=${base%.zip}
    base=$(printf '%s' "$base" | tr -c 'A-Za-z0-9._-' '_')
    [ -n "$base" ] && [ "$base" != . ] && [ "$base" != .. ] || base=student
    name=$base
    while [ -n "${taken[$name]:-}" ]; do name=$base-$n; n=$((n + 1)); done
    taken[$name]=1
    REPLY=$name
}

# Unpacks or points at entry $1 under $2/src; echoes the folder to search, or
# writes error.txt into $2 and fails.
unpack() {
    local entry=$1 dir=$2 msg
    mkdir -p "$dir/src"
    if [ -L "$entry" ]; then
        echo "not a folder or archive (a symbolic link)" > "$dir/error.txt"; return 1
    elif [ -d "$entry" ]; then
        if [ ! -r "$entry" ] || [ ! -x "$entry" ]; then echo "unreadable folder" > "$dir/error.txt"; return 1; fi
        echo "$entry"; return 0
    fi
    case "$entry" in
        *.tar.gz|*.tgz|*.zip)
            # Only what the grader reads (the task files, build/progress.json), each at most
            # 1 MiB, never a link, never outside src/: an archive that unpacks to gigabytes
            # costs time, not disk (grading/tools/unpack.py)
            msg=$(timeout 120 python3 grading/tools/unpack.py "$entry" "$dir/src" "${task_files[@]}" build/progress.json 2>&1 >>"$dir/notes.txt") ||
                { grep -m1 . <<<"${msg:-stopped after 120 s}" > "$dir/error.txt"; return 1; } ;;
        *)
            echo "not a folder, .tar.gz or .zip" > "$dir/error.txt"; return 1 ;;
    esac
    echo "$dir/src"
}

# Copies the task files of the checkout found under $1 into $2; fails (with
# error.txt in $3) when there are none.  The checkout's top is the shallowest
# folder holding some NN_room/taskK file (archives often wrap it in one folder).
collect_tasks() {
    local src=$1 tree=$2 dir=$3 rel best="" best_depth=999 hit depth top copied=0
    if [ -z "$(find "$src" -mindepth 1 -print -quit 2>/dev/null)" ]; then
        echo "empty submission" > "$dir/error.txt"; return 1
    fi
    for rel in "${task_files[@]}"; do
        hit=$(find "$src" -type f -path "*/$rel" -printf '%d %p\n' 2>/dev/null | sort -n | head -n1)
        [ -n "$hit" ] || continue
        depth=${hit%% *}
        if [ "$depth" -lt "$best_depth" ]; then best_depth=$depth best=${hit#* }; best=${best%/"$rel"}; fi
    done
    if [ -z "$best" ]; then
        echo "not a workbook: none of its files is a task (NN_room/taskK.c or .cu)" > "$dir/error.txt"; return 1
    fi
    top=$(realpath -e -- "$best") || return 1
    local src_real; src_real=$(realpath -e -- "$src") || return 1
    case "$top/" in "$src_real"/*) ;; *) echo "not a workbook: its files lie outside it" > "$dir/error.txt"; return 1 ;; esac
    for rel in "${task_files[@]}"; do
        if [ ! -f "$top/$rel" ] || [ -L "$top/$rel" ]; then continue; fi
        # Only a file that is really there: no folder on the way may be a link (a link to
        # the solutions, or to another student's tree, would be followed by cp).
        [ "$(realpath -e -- "$top/$rel" 2>/dev/null)" = "$top/$rel" ] ||
            { echo "$rel: reached through a link, not graded" >> "$dir/notes.txt"; continue; }
        # nor a hard link: it may be another file's other name (a solution's)
        [ "$(stat -c %h -- "$top/$rel")" = 1 ] ||
            { echo "$rel: a hard link (another file's name too), not graded" >> "$dir/notes.txt"; continue; }
        if [ "$(stat -c %s "$top/$rel")" -gt 1048576 ]; then
            echo "$rel: larger than 1 MiB, not graded" >> "$dir/notes.txt"; continue
        fi
        mkdir -p "$tree/$(dirname "$rel")"
        cp "$top/$rel" "$tree/$rel" && copied=$((copied + 1))
    done
    echo "$copied" > "$dir/tasks-found"
    # The learner's progress record (hints opened): read as data by class-report, never run.
    local record=$top/build/progress.json
    if [ -f "$record" ] && [ "$(realpath -e -- "$record" 2>/dev/null)" = "$record" ] &&
        [ "$(stat -c %s "$record")" -le 1048576 ]; then
        cp "$record" "$dir/progress.json"
    fi
    return 0
}

# Grades one student into $out/students/NAME; always leaves a `done` file.
grade_student() {
    local entry=$1 name=$2 dir=$out/students/$2 src start=$SECONDS rc
    mkdir -p "$dir"
    if src=$(unpack "$entry" "$dir") && collect_tasks "$src" "$dir/tree" "$dir"; then
        rm -rf "$dir/src" # only the copied task files are kept
        grading/bin/grade --root "$root" --tasks-from "$dir/tree" --build-dir "$dir/build" \
            --ref-dir "$out/ref" --json "$dir/grade-report.json" --junit "$dir/grade-report.xml" \
            --gradescope "$dir/results.json" --quiet "${filter[@]}" > "$dir/grade.log" 2>&1
        rc=$?
        rm -rf "$dir/build/bin" # executables: large, and not needed any more
        if [ $rc -ne 0 ] && [ $rc -ne 1 ] && [ ! -s "$dir/grade-report.json" ]; then
            echo "grading did not finish (grader exit $rc): see grade.log" > "$dir/error.txt"
        fi
    else
        rm -rf "$dir/src"
    fi
    echo $((SECONDS - start)) > "$dir/done"
}

# One line per finished student, with the class's ETA.
finished=0 total=${#entries[@]} started_at=$SECONDS
declare -A reported=()
report_finished() {
    local dir name line secs elapsed eta
    for dir in "$out"/students/*/; do
        name=$(basename "$dir")
        if [ ! -e "$dir/done" ] || [ -n "${reported[$name]:-}" ]; then continue; fi
        reported[$name]=1
        finished=$((finished + 1))
        secs=$(cat "$dir/done")
        if [ -e "$dir/error.txt" ]; then
            line="ERROR: $(cat "$dir/error.txt")"
        else
            line=$(grep -E '^[0-9]+ tasks? in' "$dir/grade.log" | tail -n1)
            line=${line:-"no summary (see $dir/grade.log)"}
        fi
        elapsed=$((SECONDS - started_at))
        eta=$(( finished < total ? elapsed * (total - finished) / finished : 0 ))
        printf '[%d/%d] %-20s %s (%d s)   elapsed %d s, ETA %d s\n' "$finished" "$total" "$name" "$line" "$secs" "$elapsed" "$eta"
    done
}

cleanup_children() {
    echo "grade-class: interrupted: stopping the graders" >&2
    # shellcheck disable=SC2046  # one job's PID a word
    kill -INT $(jobs -p) 2>/dev/null
    wait
    exit 130
}
trap cleanup_children INT TERM

echo "grade-class: ${#entries[@]} submissions from $subs, $jobs at a time (${#filter[@]} filters: ${filter[*]:-none}); results in $out"
echo "grade-class: sizes and seeds: $seed_said"
running=0
declare -A entry_of=()
for entry in "${entries[@]}"; do
    student_name "$entry"
    name=$REPLY
    entry_of[$name]=$entry
    grade_student "$entry" "$name" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
        report_finished
    fi
done
while [ $running -gt 0 ]; do
    wait -n
    running=$((running - 1))
    report_finished
done
report_finished

# A reference that failed (did not build, or a run of it failed) says nothing of the student:
# more likely the machine, busy with the graders side by side.  That student is graded again,
# alone; a reference that fails then too stops the class run, with its cause.
reference_failures() { # DIR: "TASK: first line of its message" of each task whose reference failed
    python3 - "$1/grade-report.json" <<'EOF' 2>/dev/null
import json, sys
try:
    tasks = json.load(open(sys.argv[1])).get("tasks", [])
except (OSError, ValueError, AttributeError):
    sys.exit(0)
for t in tasks:
    if isinstance(t, dict) and t.get("reference_failed") is True:
        message = str(t.get("message") or "").splitlines()
        print("%s: %s" % (t.get("id", "?"), message[0][:300] if message else "(no message)"))
EOF
}
for name in "${!entry_of[@]}"; do
    [ -n "$(reference_failures "$out/students/$name")" ] || continue
    echo "grade-class: $name: a reference solution failed while students were graded side by side; grading $name again, alone"
    rm -rf "${out:?}/students/$name"
    grade_student "${entry_of[$name]}" "$name"
    again=$(reference_failures "$out/students/$name")
    if [ -n "$again" ]; then
        {
            echo "grade-class: a reference solution failed again with $name graded alone, so the class run stops here:"
            while IFS= read -r line; do echo "  $line"; done <<<"$again"
            echo "  No class table was written. This is not the students' doing: a reference that fails alone"
            echo "  points to this machine (too busy or too small: GRADE_TIMEOUT_SCALE=3 gives more time) or to"
            echo "  the workbook (make check-solutions ROOM=NN shows whether its solutions pass here)."
        } >&2
        exit 1
    fi
    echo "grade-class: $name: graded again, alone: the references passed"
done

grading/bin/class-report --root "$root" --students "$out/students" --csv "$out/class.csv" \
    --hints-csv "$out/hints.csv" --work-csv "$out/work.csv" --html "$out/summary.html" || exit 1
echo "grade-class: $total students in $((SECONDS - started_at)) s"
echo "  class table:  $out/class.csv"
echo "  hints opened: $out/hints.csv (from each checkout's build/progress.json; blank where it has none)"
echo "  work spread:  $out/work.csv (where a task's method is checked: each thread's share, as the grader measured it)"
echo "  summary:      $out/summary.html (open it in a browser)"
echo "  per student:  $out/students/NAME/grade-report.json, grade.log"
