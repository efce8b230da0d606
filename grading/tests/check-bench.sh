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
#   - make gpu-session's sanitize and bench parts, with the fake GPU (below).
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
    PATH=$tmp/fake:$PATH NVCC=$tmp/fake/nvcc FAKE_RC=$1 BENCH_OUT=$tmp/out \
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

# The maintainers' GPU session script (make gpu-session), whose parts otherwise only run
# on a machine with an NVIDIA GPU: its plumbing with the same fake GPU and a fake compute-sanitizer, under
# Open MPI where it is installed (the GPU machines have it, and run as root): the
# sanitize part runs every CUDA solution (MPI ones at 2 ranks) and keeps the logs, exit 0;
# the bench part keeps each step's output and fails (exit 1); either leaves OUT small
# enough to copy back from a remote GPU node (a log and an archive).
# shellcheck disable=SC2016  # the fake's own script: expanded when it runs
printf '#!/bin/sh\nshift 4; "$@"; rc=$?; echo "========= ERROR SUMMARY: 0 errors"; exit $rc\n' \
    > "$tmp/fake/compute-sanitizer"
chmod +x "$tmp/fake/compute-sanitizer"
mpi=(); command -v mpicc.openmpi >/dev/null 2>&1 && mpi=(MPICC=mpicc.openmpi)
session() {  # session PART: gpu-session.sh with the fake GPU, its OUT in $tmp/session-PART,
             # its archive unpacked into $tmp/session-PART/x (the folder PART inside)
    env PATH="$tmp/fake:$PATH" NVCC="$tmp/fake/nvcc" "${mpi[@]}" OUT="$tmp/session-$1" BENCH_OUT="$tmp/out" \
        bash grading/tests/gpu-session.sh --part "$1" > "$tmp/log" 2>&1
    local rc=$?
    # OUT holds the log and the archive, nothing else: two files to copy back
    local files; files=$(find "$tmp/session-$1" -type f | wc -l)
    if [ "$files" -le 2 ]; then t_pass; else t_fail "gpu-session $1: $files files under OUT (a log and an archive expected)"; fi
    if [ -z "$(find "$tmp/session-$1" -mindepth 2 -type f)" ]; then t_pass; else t_fail "gpu-session $1: files in folders under OUT"; fi
    mkdir -p "$tmp/session-$1/x"
    if tar xzf "$tmp/session-$1/gpu-session-$1.tgz" -C "$tmp/session-$1/x" 2>/dev/null; then
        t_pass
    else
        t_fail "gpu-session $1: no readable OUT/gpu-session-$1.tgz"
    fi
    return $rc
}
session sanitize; rc=$?
x=$tmp/session-sanitize/x/sanitize
if [ $rc -eq 0 ]; then t_pass; else t_fail "gpu-session --part sanitize with a fake GPU: exit $rc: $(tail -n 5 "$tmp/log")"; fi
if grep -qE '^sanitize-gpu: ok: [0-9]+ passed: all clean \([0-9]+ runs\)' "$x/sanitize-gpu.txt" 2>/dev/null; then
    t_pass
else
    t_fail "gpu-session sanitize: no 'all clean' in the archive's sanitize-gpu.txt"
fi
if [ -s "$x/sanitize-gpu-logs/06_data_parallel_task6.memcheck.log" ]; then
    t_pass
else
    t_fail "gpu-session sanitize: 06 task6's memcheck log is not in the archive"
fi
session bench; rc=$?
x=$tmp/session-bench/x/bench
if [ $rc -eq 1 ]; then t_pass; else t_fail "gpu-session --part bench with a fake GPU: exit $rc, expected 1"; fi
for f in bench04.txt bench06.txt bench04/bench.csv bench06/bench.csv; do
    if [ -s "$x/$f" ]; then t_pass; else t_fail "gpu-session bench: $f is missing or empty in the archive"; fi
done
if grep -qE '^gpu-session: FAILED: 2 of [0-9]+$' "$tmp/session-bench/log-bench.txt"; then
    t_pass
else
    t_fail "gpu-session bench: the log's last line: $(tail -n 1 "$tmp/session-bench/log-bench.txt")"
fi
part_passed "gpu-session with a fake GPU${mpi:+ and Open MPI}: sanitize exit 0, bench exit 1, logs and tables in OUT's archive"

t_summary check-bench "a missing or failed figure is never counted as a target met"
