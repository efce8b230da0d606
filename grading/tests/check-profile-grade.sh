#!/usr/bin/env bash
# check-profile-grade.sh -- a simulated CUDA task whose method is "gpu" is built with the
# profiler (simcc --profile); its method run counts its memory accesses beside the
# reference's (terminal, JSON's run "profile"), and its perf verdict comes from those counts
# (perf.h: global traffic, atomics, shared-memory wavefronts), the same at every run:
#   - 04 task2's solution: its counts equal the reference's, perf ok (basis "counts");
#   - an atomic per thread (right result, no tree): SLOW on atomics, FAIL with PERF=required;
#   - adjacent threads reading far apart (uncoalesced): SLOW on global traffic, 8.00x, its
#     line named, twice the same;
#   - one GPU thread doing the whole sum: FAIL, with and without PERF=required;
#   - 04 task9 with y computed on the CPU and a kernel that copies it: FAIL (too little
#     traffic to have done the work);
#   - the other runs switch the profiler off; PERF=off gives no verdict; a task whose method
#     is not "gpu" is not built with the profiler.
set -u
cd "$(dirname "$0")/../.." || exit 2
export NO_COLOR=1 GRADE_CUDA=sim
. grading/tests/lib-test.sh
out=build/profile-grade
rm -rf "$out" && mkdir -p "$out/atomics/04_cuda" "$out/strided/04_cuda" "$out/one/04_cuda"
G=grading/bin/grade
src=solutions/04_cuda/task2.cu
sed -e 's/if (t < s)/if (0)/' -e 's/if (t == 0)/if (1)/' -e 's/part\[0\]);/part[t]);/' "$src" > "$out/atomics/04_cuda/task2.cu"
grep -q 'part\[t\]);' "$out/atomics/04_cuda/task2.cu" || t_abort "the atomic-per-thread version was not made"
# a permutation of the indices: the same sum, adjacent threads gridDim.x elements apart
sed 's/long i = (long)blockIdx.x \* blockDim.x + t;/long i = (long)t * gridDim.x + blockIdx.x;/' "$src" > "$out/strided/04_cuda/task2.cu"
grep -q 'long i = (long)t \* gridDim.x' "$out/strided/04_cuda/task2.cu" || t_abort "the strided version was not made"
python3 - "$src" "$out/one/04_cuda/task2.cu" <<'EOF' || t_abort "the one-thread version was not made"
import sys
s = open(sys.argv[1]).read()
start = s.index("__global__ void sum_kernel")
body = s.index("{", start)
end = s.index("/* ---- no need to change below ---- */")
one = """{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        unsigned long long sum = 0;
        for (long i = 0; i < n; i++)
            sum += x[i];
        atomicAdd(total, sum);
    }
}

"""
open(sys.argv[2], "w").write(s[:body] + one + s[end:])
EOF

# JSON: "status<TAB>verdict<TAB>basis<TAB>measure<TAB>ratio<TAB>profile" of the one task
summary() { python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))["tasks"][0]
p = t.get("perf") or {}
prof = " | ".join(r["profile"] for r in t["runs"] if r.get("profile"))
r = p.get("ratio")
print("\t".join([t["status"], p.get("verdict") or "none", p.get("basis") or "-", p.get("measure") or "-",
                 "-" if r is None else "%.2f" % r, prof]))' "$1"; }
grade() { # NAME FROM [options]: grades 04 task2 into $out/NAME.*
    local name=$1 from=$2; shift 2
    $G --task 04_cuda/task2 --tasks-from "$from" --build-dir "$out/build-$name" --ref-dir "$out/refs" "$@" \
        --json "$out/$name.json" --junit "$out/$name.xml" > "$out/$name.txt" 2>&1
}

grade solution solutions --expect pass --perf on
rc=$?
IFS=$'\t' read -r status verdict basis measure ratio p < <(summary "$out/solution.json")
if [ $rc -eq 0 ] && [[ "$p" =~ ^global\ loads\ ([0-9.]+)\ sectors/request\ \(reference\ ([0-9.]+)\) ]] &&
   [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && [[ "$p" =~ atomics\ ([0-9]+)\ \(reference\ ([0-9]+)\) ]] &&
   [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && grep -q '^ *memory (simulated, counted by the grader): ' "$out/solution.txt" &&
   [ "$verdict/$basis/$ratio" = "ok/counts/1.00" ]; then
    t_pass "the solution: its counts equal the reference's, perf ok from the counts ($p)"
else
    t_fail "the solution: exit $rc, $status, perf $verdict/$basis/$ratio, profile '$p': $(tail -n 5 "$out/solution.txt")"
fi
# only the method run was counted: every other run had the profiler off
n=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["tasks"][0]; print(sum(1 for r in t["runs"] if r.get("profile")), len(t["runs"]))' "$out/solution.json")
if [ "${n% *}" = 1 ] && [ "${n#* }" -gt 1 ]; then t_pass; else t_fail "runs with counts, runs: $n (want 1 of several)"; fi
# the grader's commands: the profiler on (its output file) at the two method runs, off at the rest
v=$($G --task 04_cuda/task2 --tasks-from solutions --build-dir "$out/build-verbose" --verbose --perf off 2>&1)
on=$(grep -o 'CUDA_SIM_PROFILE_OUT=' <<<"$v" | wc -l) off=$(grep -o 'CUDA_SIM_PROFILE=0' <<<"$v" | wc -l)
if [ "$on" = 2 ] && [ "$off" -ge 2 ]; then t_pass; else t_fail "--verbose: the profiler on at $on runs (want 2), off at $off"; fi
# and off means off: the program prints no counts
exe=$out/build-verbose/bin/task/04_cuda/task2
if [ -x "$exe" ] && "$exe" n=1000 tpb=64 seed=3 2>&1 >/dev/null | grep -q '^profile sum_kernel ' &&
   ! CUDA_SIM_PROFILE=0 "$exe" n=1000 tpb=64 seed=3 2>&1 >/dev/null | grep -q '^profile '; then
    t_pass
else
    t_fail "$exe: counts without CUDA_SIM_PROFILE=0, none with it: not so"
fi

grade atomics "$out/atomics" --expect pass --perf on
rc=$?
IFS=$'\t' read -r status verdict basis measure ratio p < <(summary "$out/atomics.json")
if [ $rc -eq 0 ] && [ "$verdict/$basis/$measure" = "slow/counts/atomics" ] && grep -q 'PASS SLOW (simulated)' "$out/atomics.txt" &&
   grep -q 'why: ' "$out/atomics.txt" && [[ "$p" =~ atomics\ ([0-9]+)\ \(reference\ ([0-9]+)\) ]] &&
   [ "${BASH_REMATCH[1]}" -gt $((50 * BASH_REMATCH[2])) ]; then
    t_pass "an atomic per thread: PASS SLOW (simulated), on atomics ($ratio x)"
else
    t_fail "an atomic per thread: exit $rc, $status, perf $verdict/$basis/$measure $ratio, profile '$p'"
fi
grade atomics-req "$out/atomics" --perf required
IFS=$'\t' read -r status verdict basis measure ratio p < <(summary "$out/atomics-req.json")
if [ "$status" = FAIL ] && grep -q "too slow (PERF=required): .* the reference's atomics (simulated)" "$out/atomics-req.txt"; then
    t_pass "an atomic per thread, PERF=required: FAIL, with the measure named"
else
    t_fail "an atomic per thread, PERF=required: $status: $(grep -A2 task2 "$out/atomics-req.txt" | head -5)"
fi
if grep -q '<property name="perf_measure" value="atomics (simulated)"/>' "$out/atomics.xml"; then t_pass; else t_fail "JUnit: no perf_measure property"; fi

ratios=""
for k in 1 2; do
    grade "strided$k" "$out/strided" --expect pass --perf on
    IFS=$'\t' read -r status verdict basis measure ratio p < <(summary "$out/strided$k.json")
    ratios+=" $ratio"
    if [ "$verdict/$measure" = "slow/global memory traffic" ] && grep -q 'your costliest access: task2.cu:' "$out/strided$k.txt"; then
        t_pass "uncoalesced reads (grading $k): SLOW on global traffic, $ratio x, the line named"
    else
        t_fail "uncoalesced reads (grading $k): $status, perf $verdict/$measure $ratio: $(grep -A3 task2 "$out/strided$k.txt" | head -6)"
    fi
done
if [ "$ratios" = " 8.00 8.00" ]; then t_pass; else t_fail "the counted ratios of two gradings:$ratios (want 8.00 twice: 32 sectors a request against 4)"; fi

for mode in on required; do
    grade "one-$mode" "$out/one" --perf $mode
    IFS=$'\t' read -r status verdict basis measure ratio p < <(summary "$out/one-$mode.json")
    if [ "$status" = FAIL ]; then t_pass; else t_fail "one GPU thread doing the sum, PERF=$mode: $status (want FAIL)"; fi
done

# The CPU does the work: 04 task9 with y computed on the host (as main does anyway), put at
# the end of W's device copy, and a kernel that only copies it into y.  Its threads all
# "work", one step each; its kernels move a few percent of the reference's traffic: FAIL.
mkdir -p "$out/cpu/04_cuda"
python3 - solutions/04_cuda/task9.cu "$out/cpu/04_cuda/task9.cu" <<'PYEOF' || t_abort "the CPU-does-it version was not made"
import sys
s = open(sys.argv[1]).read()
start = s.index("__global__ void matvec_coalesced")
body = s.index("{", start)
end = s.index("/* ---- no need to change below")
copy = """{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    (void)x, (void)b;
    if (i < m)
        y[i] = W[(long)m * k - m + i];
}

"""
s = s[:body] + copy + s[end:]
anchor = "    CHECK(cudaMemcpy(db, b, m * sizeof(float), cudaMemcpyHostToDevice));\n"
assert anchor in s
s = s.replace(anchor, anchor + "    if ((long)m * k >= m)\n        CHECK(cudaMemcpy(dW + sw - m, y_cpu, m * sizeof(float), cudaMemcpyHostToDevice));\n")
open(sys.argv[2], "w").write(s)
PYEOF
$G --task 04_cuda/task9 --tasks-from "$out/cpu" --build-dir "$out/build-cpu" --ref-dir "$out/refs" --perf on \
    --json "$out/cpu.json" --junit "$out/cpu.xml" > "$out/cpu.txt" 2>&1
if grep -q 'task9 *FAIL' "$out/cpu.txt" && grep -q 'too little to have done the work' "$out/cpu.txt"; then
    t_pass "the CPU computes y, a kernel copies it: FAIL, too little GPU memory traffic"
else
    t_fail "the CPU computes y, a kernel copies it: $(grep -A3 'task9' "$out/cpu.txt" | head -6)"
fi

grade off solutions --expect pass --perf off
IFS=$'\t' read -r status verdict basis measure ratio p < <(summary "$out/off.json")
if [ "$verdict" = none ] && [ -n "$p" ]; then t_pass; else t_fail "PERF=off: perf $verdict (want none), profile '$p'"; fi

# the builds: --profile where the method is "gpu", not for the bug hunt (no method)
b2=$(GRADE_CUDA=sim $G --print-build task --task 04_cuda/task2 --build-dir "$out/pb")
b6=$(GRADE_CUDA=sim $G --print-build task --task 04_cuda/task6 --build-dir "$out/pb")
if [[ "$b2" == *$'\t--profile\t'* ]] && [[ "$b6" != *--profile* ]]; then t_pass; else t_fail "--print-build: task2 '$b2', task6 '$b6'"; fi
t_summary check-profile-grade "a simulated CUDA task's memory counts beside the reference's, and its perf verdict from them"
