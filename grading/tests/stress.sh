#!/usr/bin/env bash
# stress.sh [short|long] [--room NN] [--task NN_room/taskK] [--passes N] [--seeds K]
#   -- every reference solution, graded again and again: no flaky solution (make stress).
#
# Two phases, both through the real grader (grading/bin/grade --tasks-from
# solutions --expect pass), so every run is judged the usual way:
#   1. the selected tasks, N passes over all their configurations;
#   2. the CUDA tasks (kind cuda / cuda_mpi) in the CPU simulator (GRADE_CUDA=sim),
#      once per shuffle seed CUDA_SIM_SEED = first..K (the grader hands its
#      environment to the programs), so a barrier that only works in one
#      thread order shows up.
# Modes:  short (under 3 minutes on 2 idle cores): 1 pass, then seed 2 (seed 1 is
#         the simulator's default, already run by the pass) for rooms 04 and 05;
#         long (issue 12's check, "50 runs in a row in every configuration"):
#         50 passes, seeds 1..50 for every CUDA task.  --passes / --seeds override.
# Reference executables are built once (--ref-dir build/stress/ref); a failing
# grader call keeps its report and logs under build/stress/failed/LABEL/.
# Each grader call is one check (grading/tests/lib-test.sh): ok when every run in it
# passed (or was a SKIP the grader accepts); the seed phase is a SKIP when it has no
# simulated task or no seed to run.
# Exit: 0 when every run passed (or was a SKIP the grader accepts), 1 otherwise,
# 2 on a usage error, 130 when interrupted.
set -u
cd "$(dirname "$0")/../.." || exit 2

usage() { echo "usage: stress.sh [short|long] [--room NN] [--task NN_room/taskK] [--passes N] [--seeds K]" >&2; exit 2; }
mode=short room="" task="" passes="" seeds=""
while [ $# -gt 0 ]; do
    case "$1" in
        short|long) mode=$1 ;;
        --room) [ $# -ge 2 ] || usage; room=$2; shift ;;
        --task) [ $# -ge 2 ] || usage; task=$2; shift ;;
        --passes) [ $# -ge 2 ] || usage; passes=$2; shift ;;
        --seeds) [ $# -ge 2 ] || usage; seeds=$2; shift ;;
        -h|--help) usage ;;
        *) echo "stress: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
if [ "$mode" = long ]; then
    passes=${passes:-50} seeds=${seeds:-50} first_seed=1 seed_rooms=""
else
    # Seed 1 is the simulator's default: the pass has just run it.
    passes=${passes:-1} seeds=${seeds:-2} first_seed=2 seed_rooms="04_ 05_"
fi
[[ "$passes" =~ ^[0-9]+$ && "$seeds" =~ ^[0-9]+$ ]] || usage
[ "$seeds" -ge "$first_seed" ] || seeds=$((first_seed - 1))
. grading/tests/lib-test.sh

grade=grading/bin/grade
[ -x "$grade" ] || t_abort "$grade is missing: run make first" 2
filter=()
[ -n "$room" ] && filter+=(--room "$room")
[ -n "$task" ] && filter+=(--task "$task")

out=build/stress
rm -rf "$out"
mkdir -p "$out/ref" "$out/failed"
fails=$out/failures.tsv     # label, task, config, status, message
: > "$fails"
printf 'call\twall_s\tcpu_s\truns\tfailed\n' > "$out/calls.tsv"
runs=0 calls=0 started=$SECONDS

# The simulated tasks (kind cuda or cuda_mpi) as NN_room/taskK, within the
# selection (and, in short mode, rooms 04 and 05 only).
sim_tasks() {
    local t dir
    grading/bin/grade --describe | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                                         $c["sim"] == "yes" && !seen[$1]++ { print $1 }' |
    while read -r t; do
        dir=${t%%/*}
        if [ -n "$seed_rooms" ]; then
            case " $seed_rooms " in *" ${dir:0:3} "*) ;; *) continue ;; esac
        fi
        if [ -n "$room" ]; then case "$dir" in "$room"|"$room"_*) ;; *) continue ;; esac; fi
        if [ -z "$task" ]; then echo "$t"; continue; fi
        # --task accepts 04/task2 or 04_cuda/task2 (with or without .cu).
        local want_room=${task%%/*} want_name=${task#*/}
        want_name=${want_name%.c}; want_name=${want_name%.cu}
        case "${t%%/*}" in "$want_room"|"$want_room"_*) [ "${t#*/}" = "$want_name" ] && echo "$t" ;; esac
    done
}

# CPU seconds used by finished children so far (bash's `times`, second line: user, system).
child_cpu() {
    times > "$out/.times"   # not in a subshell: the children are this shell's
    REPLY=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } } END { printf "%d", t }' "$out/.times")
}

# One grader call: label, then extra grader options.  Counts its runs and
# records every run that is not PASS (or SKIP) in $fails.
grade_once() {
    local label=$1 json=$out/$1.json rc before
    shift
    local t0=$SECONDS cpu0 cpu1 nruns=$runs
    before=$(wc -l < "$fails")
    child_cpu; cpu0=$REPLY
    "$grade" --tasks-from solutions --expect pass --quiet --json "$json" --junit "$out/$label.xml" \
        --build-dir "$out/grade" --ref-dir "$out/ref" "$@" > "$out/$label.log" 2>&1
    rc=$?
    child_cpu; cpu1=$REPLY
    calls=$((calls + 1))
    [ $rc -eq 130 ] && { report; t_abort "interrupted" 130; }
    # A usage error (a bad --room or --task): the grader's own message, once.
    [ $rc -eq 2 ] && { head -n 3 "$out/$label.log" >&2; t_abort "the grader refused the selection (above)" 2; }
    if [ ! -s "$json" ]; then
        printf '%s\t%s\t%s\t%s\t%s\n' "$label" "(grader)" "-" "NO_REPORT" "exit $rc, no report: $(tail -n1 "$out/$label.log")" >> "$fails"
    else
        # jansson's indented report: a run's "config" comes before its "status"
        # and "message"; a task's own status comes before its runs.
        runs=$((runs + $(awk -v label="$label" -v fails="$fails" '
            function str(line) { sub(/^[^:]*: "?/, "", line); sub(/"?,?[ \t]*$/, "", line); return line }
            /^      "id": /        { id = str($0); cfg = ""; next }
            /"config": /           { cfg = str($0); n++; next }
            /"status": / && cfg != "" { st = str($0); if (st != "PASS" && st != "SKIP") want_msg = 1; next }
            /"message": / && cfg == "" { tmsg = str($0); next }
            /"message": / && cfg != "" {
                m = str($0); if (m == "null") m = "(task) " tmsg
                if (want_msg) printf "%s\t%s\t%s\t%s\t%s\n", label, id, cfg, st, m >> fails
                want_msg = 0; cfg = "" }
            END { print n + 0 }' "$json")))
        if [ $rc -ne 0 ] && [ "$(wc -l < "$fails")" -eq "$before" ]; then
            printf '%s\t%s\t%s\t%s\t%s\n' "$label" "(check)" "-" "EXIT_$rc" \
                "$(grep -m1 -E '^check:' "$out/$label.log")" >> "$fails"
        fi
    fi
    printf '%s\t%d\t%d\t%d\t%d\n' "$label" $((SECONDS - t0)) $((cpu1 - cpu0)) $((runs - nruns)) \
        $(($(wc -l < "$fails") - before)) >> "$out/calls.tsv"
    if [ "$(wc -l < "$fails")" -gt "$before" ]; then
        mkdir -p "$out/failed/$label"
        mv "$json" "$out/$label.xml" "$out/$label.log" "$out/failed/$label/" 2>/dev/null
        cp -r "$out/grade/logs" "$out/failed/$label/" 2>/dev/null
        t_fail "$label: $(($(wc -l < "$fails") - before)) failing runs (kept in $out/failed/$label/)"
    else
        rm -f "$json" "$out/$label.xml" "$out/$label.log"
        t_pass
    fi
}

# Per task: which configurations failed, how often, in which calls; then the counts.
report() {
    local nfail
    nfail=$(wc -l < "$fails")
    if [ "$nfail" -gt 0 ]; then
        t_say "failures by task and configuration:"
        awk -F'\t' '{ key = $2 " [" $3 "]"; n[key]++; st[key] = st[key] (index(st[key], $4) ? "" : " " $4)
                      if (length(calls[key]) < 60) calls[key] = calls[key] (calls[key] ? "," : "") $1
                      if (!(key in msg)) msg[key] = $5 }
             END { for (k in n) printf "  %s: %d failed (%s; %s): %s\n", k, n[k], substr(st[k], 2), calls[k], substr(msg[k], 1, 140) }' \
            "$fails" | LC_ALL=C sort
    fi
    t_say "$mode: $runs runs in $calls grader calls, $nfail failed, $((SECONDS - started)) s" \
          "($passes passes, simulator seeds $first_seed..$seeds)"
}

t_say "$mode: $passes passes over the solutions${filter[*]:+ (${filter[*]})}, then simulator seeds $first_seed..$seeds"
if [ "$mode" = long ]; then
    # Measured on 2 cores: about 150 s a pass over the whole workbook, 40 s a seed over its CUDA tasks.
    t_say "estimate for the whole workbook on 2 cores: about $(( (150 * passes + 40 * (seeds - first_seed + 1)) / 60 )) min" \
          "(a better one after the first pass)"
fi
for ((p = 1; p <= passes; p++)); do
    t0=$SECONDS
    grade_once "pass$p" "${filter[@]}"
    if [ "$p" -eq 1 ] && [ "$passes" -gt 1 ]; then
        each=$((SECONDS - t0))
        # shellcheck disable=SC2017  # a seed costs about a quarter of a pass, in whole seconds
        t_say "pass 1 took $each s; estimated total $(( (each * passes + each / 4 * (seeds - first_seed + 1)) / 60 + 1 )) min"
    fi
done

mapfile -t cuda < <(sim_tasks)
if [ "$seeds" -ge "$first_seed" ] && [ ${#cuda[@]} -gt 0 ]; then
    # Whole rooms where every task of the room is simulated, single tasks otherwise.
    selections=()
    for r in $(printf '%s\n' "${cuda[@]}" | cut -d/ -f1 | sort -u); do
        total=$(grading/bin/grade --describe --room "$r" | awk -F'\t' 'NR > 1 && !seen[$1]++' | wc -l)
        mine=$(printf '%s\n' "${cuda[@]}" | grep -c "^$r/")
        if [ -z "$task" ] && [ "$total" -eq "$mine" ]; then
            selections+=("--room $r")
        else
            for t in $(printf '%s\n' "${cuda[@]}" | grep "^$r/"); do selections+=("--task $t"); done
        fi
    done
    t_say "simulator seeds $first_seed..$seeds over ${#cuda[@]} CUDA tasks (${selections[*]})"
    for ((s = first_seed; s <= seeds; s++)); do
        for sel in "${selections[@]}"; do
            # $sel is "--room X" or "--task X": split on purpose.
            # shellcheck disable=SC2086
            CUDA_SIM_SEED=$s GRADE_CUDA=sim grade_once "seed$s-$(echo "${sel#--* }" | tr / _)" $sel
        done
    done
elif [ "$seeds" -lt "$first_seed" ]; then
    t_skip "simulator seeds: none asked for (--seeds $seeds; the first is $first_seed)"
else
    t_skip "simulator seeds: no simulated CUDA task in the selection"
fi

report
t_summary stress "$mode: $runs runs in $calls grader calls, none failed"
