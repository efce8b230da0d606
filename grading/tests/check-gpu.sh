#!/usr/bin/env bash
# check-gpu.sh -- the grader's native CUDA path on a real GPU: a tiny CUDA
# workbook (grading/tests/gpu-smoke) graded with nvcc (CUDA_ARCH, native by
# default): its solution must PASS, its generated task FAIL; then
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck on the solution.
# Without a GPU it says SKIP and succeeds: nothing was checked.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
if ! nvidia-smi -L >/dev/null 2>&1; then
    t_skip "no NVIDIA GPU here (nothing checked)"
    t_summary; exit
fi
export NO_COLOR=1
root=grading/tests/gpu-smoke
out=build/gpu-smoke
rm -rf "$out" && mkdir -p "$out/99_smoke"
grading/bin/prgen "$root/solutions/99_smoke/task1.cu" -o "$out/99_smoke/task1.cu" || t_abort "prgen failed on the fixture"
if grading/bin/grade --root "$root" --tasks-from "$root/solutions" --expect pass --werror --quiet \
    --json "$out/pass.json" --junit "$out/pass.xml"; then
    t_pass "the fixture's solution PASSes natively"
else
    t_fail "the fixture's solution does not PASS natively (report: $out/pass.json)"
fi
if grading/bin/grade --root "$root" --tasks-from "$out" --expect fail --werror --quiet \
    --json "$out/fail.json" --junit "$out/fail.xml"; then
    t_pass "the fixture's generated task FAILs natively"
else
    t_fail "the fixture's generated task does not FAIL natively (report: $out/fail.json)"
fi
exe=$root/build/bin/ref/99_smoke/task1
if command -v compute-sanitizer >/dev/null 2>&1; then
    for tool in memcheck racecheck synccheck initcheck; do
        log=$(compute-sanitizer --tool "$tool" --error-exitcode 3 "$exe" n=100003 seed=7 2>&1); rc=$?
        line="compute-sanitizer $tool: $(grep -E 'SUMMARY' <<<"$log" | tail -n1)"
        if [ $rc -eq 0 ]; then
            t_pass "$line"
        else
            t_fail "$line (exit $rc)"; echo "$log" | tail -20
        fi
    done
else
    t_skip "compute-sanitizer not found: sanitizer runs not done"
fi
t_summary check-gpu "the native CUDA path works on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)"
