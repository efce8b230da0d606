#!/usr/bin/env bash
# check-barriers.sh -- every CUDA solution that uses __syncthreads() must NOT pass
# with its barriers removed (graded in the CUDA CPU simulator, whose shuffled thread
# order and poisoned shared memory expose a missing barrier as a GPU would).
# A solution that passes without its barriers has barriers its tests cannot see.  For
# room 04's (one process), the grader's rerun under the race checker must name the race.
set -u
cd "$(dirname "$0")/../.." || exit 2
export NO_COLOR=1 GRADE_CUDA=sim
. grading/tests/lib-test.sh
out=build/no-barriers
rm -rf "$out"
checked=0
for sol in solutions/[0-9][0-9]_*/task*.cu; do
    [ -e "$sol" ] || continue
    grep -q '__syncthreads()' "$sol" || continue
    task=${sol#solutions/}
    id=${task%.cu}
    mkdir -p "$out/$(dirname "$task")"
    sed -e 's/__syncthreads();//g' "$sol" > "$out/$task"
    checked=$((checked + 1))
    line=$(grading/bin/grade --task "$id" --tasks-from "$out" --quiet --json "$out/report.json" \
           --junit "$out/report.xml" 2>&1 | grep -E "^  ${id#*/} ")
    status=$(awk '{print $2}' <<<"$line")
    case "$status" in
        PASS) t_fail "$id passes with its __syncthreads() removed" ;;
        SKIP) t_fail "$id was not graded (SKIP): nothing checked" ;;
        "") t_fail "$id: no status from the grader" ;;
        *) t_pass "$id without its barriers: $status" ;;
    esac
    # a single-process task's failure also names the race (the grader reruns it under the
    # race checker, simcc --racecheck)
    if [ "$status" = FAIL ] && [[ "$id" == 04_* ]]; then
        if grep -q 'the race checker (make grade RACECHECK=1) found a race on shared' "$out/report.json" &&
            grep -qE 'lines task[0-9]+\.cu:[0-9]+ and task[0-9]+\.cu:[0-9]+' "$out/report.json"; then
            t_pass "$id without its barriers: the race checker names the race and its lines"
        else
            t_fail "$id without its barriers: the report does not name the race (the race checker found none)"
        fi
    fi
done
[ $checked -gt 0 ] || t_skip "no CUDA solution uses __syncthreads() yet: nothing to check"
t_summary check-barriers "all $checked CUDA solutions with barriers fail without them"
