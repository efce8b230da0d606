#!/usr/bin/env bash
# check-cuda-probe.sh -- the sandbox's CUDA probe and its fallback (make check-sandbox).
# There is no GPU here, so the test fakes one: an `nvidia-smi` that names a GPU, and an
# `nvcc` whose programs are shell scripts.  The probe's program (probe.cu) says
# "cuda-probe ok" only where it can see a marker file outside the sandbox, so it fails
# inside the sandbox and runs outside, as a CUDA program does where the sandbox hides the
# GPU's devices.  Every other program prints "result where = inside|outside".
#   - grade --sandbox (make doctor's line) names the fallback: CUDA runs are not sandboxed;
#   - a native CUDA task (the gpu-smoke fixture) is graded with its runs outside the
#     sandbox: the learner's side prints where=outside, as the reference does, so it PASSes;
#     the grading's header says why;
#   - GRADE_SANDBOX=on (class grading) refuses, naming the cause, exit 2;
#   - a probe that passes keeps the runs inside: the same task FAILs (where=inside);
#   - GRADE_SANDBOX_CUDA_PROBE=0 skips the probe.
set -u
cd "$(dirname "$0")/../.." || exit 2
export NO_COLOR=1 LC_ALL=C
. grading/tests/lib-test.sh
if ! grading/bin/grade --sandbox >/dev/null 2>&1; then
    t_skip "no sandbox here ($(grading/bin/grade --sandbox 2>&1 | head -n1)): the CUDA probe has nothing to probe"
    t_summary; exit
fi
# not under /tmp: the sandbox has a /tmp of its own, which would hide the fake nvcc
TMPDIR=/var/tmp t_tmpdir; tmp=$T_TMP
mkdir -p "$tmp/fake"
touch "$tmp/marker"
printf '#!/bin/sh\necho "Fake GPU for check-cuda-probe"\n' > "$tmp/fake/nvidia-smi"
# The fake nvcc: ... -o OUT ... SOURCE.cu -> OUT, a shell script (see above).
cat > "$tmp/fake/nvcc" <<EOF
#!/bin/sh
out= src=
while [ \$# -gt 0 ]; do case "\$1" in -o) out=\$2; shift ;; *.cu) src=\$1 ;; esac; shift; done
[ -n "\$out" ] || exit 1
case "\$src" in
*/probe.cu)
    if [ "\${FAKE_PROBE:-}" = ok ]; then
        body='echo cuda-probe ok'
    else
        body='if [ -e $tmp/marker ]; then echo cuda-probe ok; else echo "CUDA error: no CUDA-capable device is detected"; exit 1; fi'
    fi ;;
*) body='if [ -e $tmp/marker ]; then echo "result where = outside"; else echo "result where = inside"; fi' ;;
esac
printf '#!/bin/sh\n%s\n' "\$body" > "\$out" && chmod +x "\$out"
EOF
chmod +x "$tmp/fake/nvidia-smi" "$tmp/fake/nvcc"
cp -r grading/tests/gpu-smoke "$tmp/wb"
rm -rf "$tmp/wb/build"
mkdir -p "$tmp/task/99_smoke"
cp "$tmp/wb/solutions/99_smoke/task1.cu" "$tmp/task/99_smoke/task1.cu"

fake() { env PATH="$tmp/fake:$PATH" NVCC="$tmp/fake/nvcc" CUDA_ARCH=sm_90 GRADE_CUDA= "$@"; }

line=$(fake grading/bin/grade --sandbox 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q 'CUDA runs are not: a tiny CUDA program fails inside it (CUDA error: no CUDA-capable device is detected' <<<"$line"; then
    t_pass "grade --sandbox (make doctor) names the fallback: $line"
else
    t_fail "grade --sandbox with a probe that fails inside: exit $rc: $line"
fi

grade_fixture() {  # grade_fixture NAME [VAR=VALUE...]: the fixture's task graded natively, report in $tmp/NAME.*
    local name=$1; shift
    fake "$@" grading/bin/grade --root "$tmp/wb" --tasks-from "$tmp/task" --build-dir "$tmp/build-$name" \
        --json "$tmp/$name.json" --junit "$tmp/$name.xml" > "$tmp/$name.log" 2>&1
}
grade_fixture fallback; rc=$?
if [ $rc -eq 0 ] && grep -q 'PASS' "$tmp/fallback.log" && grep -q '"status": "PASS"' "$tmp/fallback.json"; then
    t_pass "the probe fails inside the sandbox: the CUDA task's runs go outside it, PASS"
else
    t_fail "the fallback: exit $rc: $(head -n 5 "$tmp/fallback.log")"
fi
if grep -q 'sandbox: on (.*CUDA runs are not: ' "$tmp/fallback.log"; then
    t_pass "the grading's header says why the CUDA runs are outside the sandbox"
else
    t_fail "no notice of the fallback in the header: $(head -n 1 "$tmp/fallback.log")"
fi
if grep -q 'CUDA runs are not' "$tmp/fallback.json"; then t_pass; else t_fail "the JSON report does not name the fallback"; fi

line=$(fake GRADE_SANDBOX=on grading/bin/grade --sandbox 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q 'SANDBOX=on, but CUDA runs are not' <<<"$line"; then
    t_pass "SANDBOX=on (class grading) refuses, exit 2: $line"
else
    t_fail "SANDBOX=on with a failing probe: exit $rc: $line"
fi
grade_fixture on GRADE_SANDBOX=on; rc=$?
if [ $rc -eq 2 ] && grep -q 'SANDBOX=on, but CUDA runs are not' "$tmp/on.log"; then
    t_pass "grading with SANDBOX=on refuses too"
else
    t_fail "grading with SANDBOX=on and a failing probe: exit $rc: $(head -n 3 "$tmp/on.log")"
fi

# The probe passes: the runs stay inside, where the fake programs say so (and FAIL).
line=$(fake FAKE_PROBE=ok grading/bin/grade --sandbox 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q 'CUDA: a CUDA program runs inside it (probed)' <<<"$line"; then
    t_pass "a probe that passes: $line"
else
    t_fail "grade --sandbox with a probe that passes: exit $rc: $line"
fi
grade_fixture inside FAKE_PROBE=ok; rc=$?
if grep -q '"status": "FAIL"' "$tmp/inside.json" && grep -q 'where' "$tmp/inside.log"; then
    t_pass "a probe that passes: the CUDA runs stay in the sandbox (the fake task sees it and FAILs)"
else
    t_fail "a probe that passes: exit $rc: $(head -n 5 "$tmp/inside.log")"
fi
line=$(fake GRADE_SANDBOX_CUDA_PROBE=0 grading/bin/grade --sandbox 2>&1)
if ! grep -q 'CUDA' <<<"$line"; then t_pass "GRADE_SANDBOX_CUDA_PROBE=0: not probed"; else t_fail "GRADE_SANDBOX_CUDA_PROBE=0: $line"; fi

t_summary check-cuda-probe "a CUDA program that fails inside the sandbox sends CUDA runs outside, with a notice; SANDBOX=on refuses"
