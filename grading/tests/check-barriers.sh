#!/usr/bin/env bash
# check-barriers.sh -- every CUDA solution that uses __syncthreads() must NOT pass
# with its barriers removed (graded in the CUDA CPU simulator, whose shuffled thread
# order and poisoned shared memory expose a missing barrier as a GPU would).
# A solution that passes without its barriers has barriers its tests cannot see.  For
# room 04's (one process), the grader's run under the race checker (asked for: RACECHECK=1)
# must name the race; unasked, the grader must not name it (a bug hunt is hunted).
set -u
cd "$(dirname "$0")/../.." || exit 2
export NO_COLOR=1 GRADE_CUDA=sim GRADE_RACECHECK=1  # asked: the race checker runs after a failure
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
    # asked, a single-process task's failure also names the race (the grader runs it under
    # the race checker, simcc --racecheck)
    if [ "$status" = FAIL ] && [[ "$id" == 04_* ]]; then
        if grep -q 'the race checker (make grade RACECHECK=1) found a race on shared memory' "$out/report.json" &&
            grep -qE 'by thread \([0-9]+,[0-9]+,[0-9]+\) of block \([0-9]+,[0-9]+,[0-9]+\) at task[0-9]+\.cu:[0-9]+, a (read|write) of [0-9]+ bytes by thread \([0-9]+,[0-9]+,[0-9]+\) at task[0-9]+\.cu:[0-9]+' "$out/report.json"; then
            t_pass "$id without its barriers: the race checker names the race and its lines"
        else
            t_fail "$id without its barriers: the report does not name the race (the race checker found none)"
        fi
        if [ "$checked" -eq 1 ]; then  # unasked (one task: it costs a grading): no race named, the way offered
            GRADE_RACECHECK='' grading/bin/grade --task "$id" --tasks-from "$out" --quiet --json "$out/unasked.json" \
                --junit "$out/unasked.xml" >/dev/null 2>&1
            if grep -q "the race checker can look: make grade TASK=$id RACECHECK=1" "$out/unasked.json" &&
                ! grep -q 'found a race' "$out/unasked.json"; then
                t_pass "$id without its barriers, RACECHECK not set: the race checker offered, no race named"
            else
                t_fail "$id without its barriers, RACECHECK not set: the report names a race, or does not offer the race checker"
            fi
        fi
    fi
done
[ $checked -gt 0 ] || t_skip "no CUDA solution uses __syncthreads() yet: nothing to check"
t_summary check-barriers "all $checked CUDA solutions with barriers fail without them"
