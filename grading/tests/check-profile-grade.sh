#!/usr/bin/env bash
# check-profile-grade.sh -- make grade PROFILE=1 (GRADE_PROFILE=1): a simulated CUDA task's
# method run is built with the profiler (simcc --profile) on both sides, and its memory
# counts are shown beside the reference's (terminal, JSON's run "profile" and gpu.memory).
# 04 task2's solution must show the reference's own counts; a version where every thread
# adds its value with an atomic (right result, no tree) must show far more atomics than the
# reference; without PROFILE=1 nothing is profiled.
set -u
cd "$(dirname "$0")/../.." || exit 2
export NO_COLOR=1 GRADE_CUDA=sim
. grading/tests/lib-test.sh
out=build/profile-grade
rm -rf "$out" && mkdir -p "$out/atomics/04_cuda"
sed -e 's/if (t < s)/if (0)/' -e 's/if (t == 0)/if (1)/' -e 's/part\[0\]);/part[t]);/' \
    solutions/04_cuda/task2.cu > "$out/atomics/04_cuda/task2.cu"
grep -q 'part\[t\]);' "$out/atomics/04_cuda/task2.cu" || t_abort "the atomic-per-thread version was not made"

# profile JSON: the method run's profile line
profile_of() { python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(" | ".join(r["profile"] for t in d["tasks"] for r in t["runs"] if r.get("profile")))' "$1"; }

GRADE_PROFILE=1 grading/bin/grade --task 04_cuda/task2 --tasks-from solutions --expect pass \
    --json "$out/solution.json" --junit "$out/solution.xml" > "$out/solution.txt" 2>&1
rc=$?
p=$(profile_of "$out/solution.json")
if [ $rc -eq 0 ] && [[ "$p" =~ ^global\ loads\ ([0-9.]+)\ sectors/request\ \(reference\ ([0-9.]+)\) ]] &&
   [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && [[ "$p" =~ atomics\ ([0-9]+)\ \(reference\ ([0-9]+)\) ]] &&
   [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && grep -q '^ *memory (simulated, counted by the grader): ' "$out/solution.txt"; then
    t_pass "the solution, PROFILE=1: its counts equal the reference's ($p)"
else
    t_fail "the solution, PROFILE=1: exit $rc, profile '$p': $(tail -n 5 "$out/solution.txt")"
fi

GRADE_PROFILE=1 grading/bin/grade --task 04_cuda/task2 --tasks-from "$out/atomics" --expect pass \
    --json "$out/atomics.json" --junit "$out/atomics.xml" > "$out/atomics.txt" 2>&1
rc=$?
p=$(profile_of "$out/atomics.json")
if [ $rc -eq 0 ] && [[ "$p" =~ atomics\ ([0-9]+)\ \(reference\ ([0-9]+)\) ]] &&
   [ "${BASH_REMATCH[1]}" -gt $((50 * BASH_REMATCH[2])) ]; then
    t_pass "an atomic per thread, PROFILE=1: PASS, and the atomics stand out ($p)"
else
    t_fail "an atomic per thread, PROFILE=1: exit $rc, profile '$p' (far more atomics than the reference expected)"
fi

grading/bin/grade --task 04_cuda/task2 --tasks-from solutions --expect pass \
    --json "$out/plain.json" --junit "$out/plain.xml" > "$out/plain.txt" 2>&1
if [ -z "$(profile_of "$out/plain.json")" ] && ! grep -q 'memory (simulated' "$out/plain.txt"; then
    t_pass "without PROFILE=1: no counts"
else
    t_fail "without PROFILE=1: counts were shown"
fi
t_summary check-profile-grade "make grade PROFILE=1 shows a simulated task's memory counts beside the reference's"
