#!/usr/bin/env bash
# check-bench.sh -- make bench never reports a target as met that it did not measure
# (make test).  No GPU here, so the GPU half of the bench is driven with a fake one: an
# `nvidia-smi` that names a GPU and an `nvcc` whose programs print nothing (exit 0) or
# fail (exit 1).  Either way every GPU figure is missing, and the bench must say so:
#   - programs that print nothing: each GPU target row says NOT MEASURED (never "ok",
#     as it did when awk compared the text "nan" with the target), exit 1;
#   - programs that fail: a FAILED row naming the log, exit 1 (a failed run used to
#     leave no row at all and the bench said every target was met, exit 0);
#   - 06 task6's GPU DDP runs that fail: a FAILED row per rank count, exit 1.
#   - a figure left in the output folder by an earlier run does not count;
#   - make gpu-session: its plan (DRY_RUN=1, at most 360 s) and its default part with the
#     fake GPU: every step's output in OUT's archive, budgets kept (below).
# The bench writes into a scratch folder (BENCH_OUT), not build/bench.
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C NO_COLOR=1 BENCH_REPS=1
. grading/tests/lib-test.sh
t_tmpdir; tmp=$T_TMP
said=0
# part_passed TEXT: says TEXT when no check failed since the last part
part_passed() { if [ "$t_failed" -eq "$said" ]; then t_say "$*"; fi; said=$t_failed; }

mkdir -p "$tmp/fake"
printf '#!/bin/sh\necho "GPU 0: Fake GPU for check-bench (UUID: GPU-0)"\n' > "$tmp/fake/nvidia-smi"
# nvcc ... -o OUT ...: OUT becomes a program that prints nothing and exits $FAKE_RC
cat > "$tmp/fake/nvcc" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = -o ] && { out=$2; shift; }; shift; done
printf '#!/bin/sh\nexit ${FAKE_RC:-0}\n' > "$out" && chmod +x "$out"
EOF
chmod +x "$tmp/fake/nvidia-smi" "$tmp/fake/nvcc"

# bench RC ROOM: the bench with the fake GPU whose programs exit RC; output in $tmp/log
bench() {
    PATH=$tmp/fake:$PATH NVCC=$tmp/fake/nvcc FAKE_RC=$1 BENCH_OUT=$tmp/out BENCH_SIM_SLOW=0 \
        bash grading/bench/bench.sh "$2" > "$tmp/log" 2>&1
}

# A figure left from an earlier run must not count in this one.
mkdir -p "$tmp/out"
echo "bench what=copy way=cudaMemcpy n=1 rate=999.0 unit=GB/s ok=1" > "$tmp/out/gpucopy.9.txt"
bench 0 04; rc=$?
if [ $rc -eq 1 ]; then t_pass; else t_fail "GPU programs that print nothing: bench exit $rc, expected 1"; fi
line=$(grep -m1 'device copy, cudaMemcpy' "$tmp/log")
if grep -q 'NOT MEASURED' <<<"$line"; then t_pass; else t_fail "a figure from an earlier run was counted: $line"; fi
for target in '>= 0.90' '>= 0.95' '>= 0.12' '>= 0.30' '>= 0.60' '>= 0.75'; do
    line=$(grep -F " $target " "$tmp/log" | head -n1)
    [ -n "$line" ] || { t_fail "no row with the target $target"; continue; }
    if grep -q 'NOT MEASURED' <<<"$line"; then t_pass; else t_fail "target $target with no figure: $line"; fi
done
if grep -q 'every target measured here was met' "$tmp/log"; then t_fail "the summary says every target was met"; else t_pass; fi
if grep -q 'figure(s) FAILED or NOT MEASURED' "$tmp/log"; then t_pass; else t_fail "no summary line for the missing figures"; fi
if [ -s "$tmp/out/bench.csv" ]; then t_pass; else t_fail "no CSV in BENCH_OUT"; fi
part_passed "a GPU whose programs print nothing: every GPU target NOT MEASURED, exit 1"

bench 1 04; rc=$?
if [ $rc -eq 1 ]; then t_pass; else t_fail "GPU programs that fail: bench exit $rc, expected 1"; fi
if grep -qE 'FAILED: .*gpucheck\.txt' "$tmp/log"; then t_pass; else t_fail "a failing gpubench: no FAILED row: $(grep -A3 '== 04' "$tmp/log")"; fi
part_passed "a GPU whose programs fail: a FAILED row naming the log, exit 1"

bench 1 06; rc=$?
if [ $rc -eq 1 ]; then t_pass; else t_fail "06 with GPU DDP runs that fail: bench exit $rc, expected 1"; fi
n=$(grep -cE '06 task6 GPU DDP, [1-4] rank\(s\) .*FAILED: see' "$tmp/log")
if [ "$n" -eq 4 ]; then t_pass; else t_fail "06 task6: $n FAILED rows for 1..4 ranks, expected 4: $(grep 'task6' "$tmp/log")"; fi
if grep -qE '06 task3 DDP, 2 rank\(s\).* s ' "$tmp/log"; then t_pass; else t_fail "06 task3's CPU DDP rows are missing"; fi
part_passed "GPU DDP runs that fail: a FAILED row for each rank count, exit 1"

# The maintainers' GPU session script (make gpu-session), whose steps otherwise only run on
# a machine with an NVIDIA GPU.  Its plan first: DRY_RUN=1 needs no GPU, and the default
# part's budgets fit one short slot (at most 360 s).
plan=$(DRY_RUN=1 bash grading/tests/gpu-session.sh 2>&1); rc=$?
total=$(awk '$1 == "total" { print $2 }' <<<"$plan")
if [ $rc -eq 0 ] && [ -n "$total" ] && [ "$total" -le 360 ]; then
    t_pass
else
    t_fail "make gpu-session DRY_RUN=1: exit $rc, total '${total}' (at most 360 expected): $plan"
fi
steps=$(grep -cE '^  [a-z0-9-]+ +[0-9]+  ' <<<"$plan")
if [ "$steps" -ge 8 ]; then t_pass; else t_fail "the plan lists $steps steps: $plan"; fi
plan=$(DRY_RUN=1 GPU_SESSION_SCALE=2 bash grading/tests/gpu-session.sh --part grade 2>&1)
if grep -qE '^  grade05 +300  ' <<<"$plan"; then t_pass; else t_fail "GPU_SESSION_SCALE=2 does not double the budgets: $plan"; fi
if DRY_RUN=1 GPU_SESSION_SCALE=0 bash grading/tests/gpu-session.sh >/dev/null 2>&1; [ $? -eq 2 ]; then
    t_pass
else
    t_fail "GPU_SESSION_SCALE=0 is not refused (exit 2)"
fi
part_passed "make gpu-session DRY_RUN=1: the default part's plan, at most 360 s, without a GPU"

# Its plumbing with the same fake GPU and a fake compute-sanitizer, under Open MPI where it is
# installed (the GPU machines have it, and run as root).  The fake programs print nothing, so
# the grading and figure steps FAIL (exit 1); sanitize runs every CUDA solution (MPI ones at
# 2 ranks), clean.  OUT holds a log and an archive with every step's output, nothing else.
# shellcheck disable=SC2016  # the fake's own script: expanded when it runs
printf '#!/bin/sh\nshift 4; "$@"; rc=$?; echo "========= ERROR SUMMARY: 0 errors"; exit $rc\n' \
    > "$tmp/fake/compute-sanitizer"
chmod +x "$tmp/fake/compute-sanitizer"
mpi=(); command -v mpicc.openmpi >/dev/null 2>&1 && mpi=(MPICC=mpicc.openmpi)
session() {  # session PART [VAR=VALUE...]: gpu-session.sh with the fake GPU, its OUT in $tmp/session-PART,
             # its archive unpacked into $tmp/session-PART/x (the folder PART inside)
    local p=$1; shift
    rm -rf "$tmp/session-$p"
    env PATH="$tmp/fake:$PATH" NVCC="$tmp/fake/nvcc" "${mpi[@]}" OUT="$tmp/session-$p" BENCH_OUT="$tmp/out" "$@" \
        bash grading/tests/gpu-session.sh --part "$p" > "$tmp/log" 2>&1
    local rc=$?
    # OUT holds the log and the archive, nothing else: two files to copy back
    local files; files=$(find "$tmp/session-$p" -type f | wc -l)
    if [ "$files" -le 2 ]; then t_pass; else t_fail "gpu-session $p: $files files under OUT (a log and an archive expected)"; fi
    if [ -z "$(find "$tmp/session-$p" -mindepth 2 -type f)" ]; then t_pass; else t_fail "gpu-session $p: files in folders under OUT"; fi
    mkdir -p "$tmp/session-$p/x"
    if tar xzf "$tmp/session-$p/gpu-session-$p.tgz" -C "$tmp/session-$p/x" 2>/dev/null; then
        t_pass
    else
        t_fail "gpu-session $p: no readable OUT/gpu-session-$p.tgz"
    fi
    return $rc
}
session essential; rc=$?
x=$tmp/session-essential/x/essential
log=$tmp/session-essential/log-essential.txt
if [ $rc -eq 1 ]; then t_pass; else t_fail "gpu-session with a fake GPU: exit $rc, expected 1: $(tail -n 5 "$tmp/log")"; fi
for f in build.txt probe.txt room04.txt room04-1.json room04-4.json room05-06-1.json room05-06-4.json untouched-1.json untouched-3.json sanitize.txt figures.txt; do
    if [ -s "$x/$f" ]; then t_pass; else t_fail "gpu-session: $f is missing or empty in the archive"; fi
done
if grep -qE '^sanitize-gpu: ok: [0-9]+ passed: all clean \([0-9]+ runs\)' "$x/sanitize.txt" 2>/dev/null &&
   [ -s "$x/sanitize-logs/06_data_parallel_task6.memcheck.log" ]; then
    t_pass
else
    t_fail "gpu-session: the sanitize step is not 'all clean', or 06 task6's memcheck log is not in the archive"
fi
if grep -q 'printed no figures' "$x/figures.txt" && grep -q 'FAILED: figures' "$log"; then
    t_pass
else
    t_fail "gpu-session: figures that were never printed did not fail the figures step: $(grep figures "$log")"
fi
if grep -qE '^gpu-session: ok: build \(' "$log" && grep -qE '^gpu-session: FAILED: room04 ' "$log"; then
    t_pass
else
    t_fail "gpu-session: the steps' verdicts: $(grep -E '^gpu-session: ' "$log")"
fi
if grep -qE '^gpu-session: FAILED: [0-9]+ of 7$' "$log"; then
    t_pass
else
    t_fail "gpu-session: the log's last line: $(tail -n 1 "$log")"
fi
# a step that runs past its budget is stopped, and said so; the build's stops the session
session essential GPU_SESSION_SCALE=0.02; rc=$?
log=$tmp/session-essential/log-essential.txt
if [ $rc -eq 1 ] && grep -q 'FAILED: build: stopped at its budget of 1 s' "$log" && grep -q 'nothing more can run' "$log"; then
    t_pass
else
    t_fail "gpu-session GPU_SESSION_SCALE=0.02: exit $rc: $(grep -E 'gpu-session: ' "$log")"
fi
part_passed "gpu-session with a fake GPU${mpi:+ and Open MPI}: every step's output in OUT's archive, FAIL where nothing was printed, budgets kept"

t_summary check-bench "a missing or failed figure is never counted as a target met"
