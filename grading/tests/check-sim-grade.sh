#!/usr/bin/env bash
# check-sim-grade.sh -- the grader's sim mode end to end: the CUDA fixture
# (grading/tests/gpu-smoke) graded with GRADE_CUDA=sim, so it runs in the CUDA CPU
# simulator even where a GPU is present: its solution must PASS (shown as
# "PASS (simulated)", mode "sim" in the report), its generated task FAIL in every run;
# a task that uses cuBLAS PASSes (simulated too), one that uses cuFFT is SKIP with the
# simulator's reason; a host
# dereference of a device pointer is CRASH with the simulator's message.
set -u
cd "$(dirname "$0")/../.." || exit 2
export NO_COLOR=1 GRADE_CUDA=sim
root=grading/tests/gpu-smoke
out=build/sim-grade
. grading/tests/lib-test.sh
rm -rf "$out" && mkdir -p "$out/task/99_smoke" "$out/cublas/99_smoke" "$out/cufft/99_smoke" "$out/deref/99_smoke"

grading/bin/prgen "$root/solutions/99_smoke/task1.cu" -o "$out/task/99_smoke/task1.cu" || t_abort "prgen failed on the fixture"
if text=$(grading/bin/grade --root "$root" --tasks-from "$root/solutions" --expect pass --json "$out/pass.json" --junit "$out/pass.xml" 2>&1); then
    t_pass
else
    t_fail "the fixture's solution does not pass in the simulator: $text"
fi
if grep -q 'PASS (simulated)' <<<"$text"; then t_pass; else t_fail "the terminal does not say PASS (simulated)"; fi
if grep -q '"mode": "sim"' "$out/pass.json"; then t_pass; else t_fail "the report's mode is not sim"; fi
if grep -q '"cuda": "sim"' "$out/pass.json"; then t_pass; else t_fail "the report's machine.cuda is not sim"; fi
if grading/bin/grade --root "$root" --tasks-from "$out/task" --expect fail --quiet --json "$out/fail.json" --junit "$out/fail.xml" >/dev/null; then
    t_pass
else
    t_fail "the fixture's untouched task does not fail in every run in the simulator"
fi

# The learner's build, in the sandbox where there is one, is linked with the runtime that
# simcc keeps compiled (grading/bin/simrt/, made by the grader outside the sandbox): the
# runtime's run_block is a strong symbol in the program, not a weak copy of its own.
rm -rf "$out/keep"
if grading/bin/grade --root "$root" --tasks-from "$root/solutions" --build-dir "$out/keep" --quiet >/dev/null 2>&1 &&
    nm -C "$out/keep/bin/task/99_smoke/task1" 2>/dev/null | grep -qE '^[0-9a-f]+ T cuda_sim::run_block\('; then
    t_pass "the learner's build is linked with the runtime compiled once"
else
    t_fail "the learner's build does not use the runtime compiled once: $(nm -C "$out/keep/bin/task/99_smoke/task1" 2>&1 | grep 'run_block(' | head -2)"
fi

# cuBLAS is simulated (grading/sim/cublas_v2.h): a task that includes it still PASSes.
{ echo '#include <cublas_v2.h>'; cat "$root/solutions/99_smoke/task1.cu"; } > "$out/cublas/99_smoke/task1.cu"
text=$(grading/bin/grade --root "$root" --tasks-from "$out/cublas" --quiet --json "$out/cublas.json" --junit "$out/cublas.xml" 2>&1)
if grep -q '  task1 *PASS (simulated)' <<<"$text"; then
    t_pass
else
    t_fail "a task including <cublas_v2.h> does not pass in the simulator: $text"
fi

# A task that uses cuFFT cannot run in the simulator: SKIP, with the simulator's reason.
{ echo '#include <cufft.h>'; cat "$root/solutions/99_smoke/task1.cu"; } > "$out/cufft/99_smoke/task1.cu"
text=$(grading/bin/grade --root "$root" --tasks-from "$out/cufft" --quiet --json "$out/cufft.json" --junit "$out/cufft.xml" 2>&1)
if grep -q '  task1 *SKIP' <<<"$text" && grep -q 'not simulated' <<<"$text"; then
    t_pass
else
    t_fail "a task using cuFFT is not refused by name: $text"
fi

# A host dereference of a device pointer: CRASH, with the simulator's explanation.
sed 's|    CHECK(cudaEventRecord(start));|    CHECK(cudaEventRecord(start)); if (n == 1000) printf("%f\\n", dx[0]);|' \
    "$root/solutions/99_smoke/task1.cu" > "$out/deref/99_smoke/task1.cu"
text=$(grading/bin/grade --root "$root" --tasks-from "$out/deref" --quiet --json "$out/deref.json" --junit "$out/deref.xml" 2>&1)
if grep -q 'CRASH' <<<"$text" && grep -q 'dereferenced device pointer' <<<"$text"; then
    t_pass
else
    t_fail "a host dereference of a device pointer is not CRASH with the simulator's message: $text"
fi

# CUDA + MPI: a device pointer handed to an MPI that is not CUDA-aware kills the rank
# in the simulator as on a GPU (room 05, task 1, told the MPI is CUDA-aware when it is not,
# with the simulator's stand-in for a CUDA-aware MPI off); with it on, both paths pass.
aware_src=solutions/05_cuda_mpi/task1.cu
if [ -e "$aware_src" ] && command -v mpiexec >/dev/null 2>&1; then
    if grading/sim/simcc -ccbin "${MPICXX:-mpicxx}" -Igrading/include -o "$out/aware" "$aware_src" 2>"$out/aware.err"; then
        PR_MPI_STAGE=0 PR_CUDA_AWARE=1 timeout 60 mpiexec -n 2 "$out/aware" n=1001 >"$out/aware.out" 2>&1
        rc=$?
        if [ $rc -ne 0 ] && grep -q 'dereferenced device pointer' "$out/aware.out"; then
            t_pass
        else
            t_fail "a device pointer passed to MPI (PR_MPI_STAGE=0 PR_CUDA_AWARE=1, simulated) did not crash with the simulator's message (exit $rc)"
        fi
        if timeout 60 mpiexec -n 2 "$out/aware" n=1001 >"$out/aware.out" 2>&1 &&
            grep -q 'total (CUDA-aware) .* ok' "$out/aware.out" && grep -q 'simulated CUDA-aware MPI' "$out/aware.out"; then
            t_pass
        else
            t_fail "room 05 task 1 (simulated) does not run and pass its CUDA-aware path with 2 ranks: $(tail -3 "$out/aware.out")"
        fi
        if PR_CUDA_AWARE=0 timeout 60 mpiexec -n 2 "$out/aware" n=1001 >"$out/aware.out" 2>&1; then
            t_pass
        else
            t_fail "room 05 task 1 (simulated, staged) does not pass with 2 ranks"
        fi
    else
        t_fail "simcc -ccbin mpicxx does not build $aware_src: $(head -3 "$out/aware.err")"
    fi
fi

# The same sources build unchanged with the real nvcc, warning-free (a compile check:
# no GPU needed): the fixtures, and every CUDA solution of the rooms with its task.
if command -v nvcc >/dev/null 2>&1; then
    # every CUDA solution, and its task as generated (not the learner's copy), too
    cuda_files=("$root/solutions/99_smoke/task1.cu" "$out/task/99_smoke/task1.cu" grading/sim/tests/cunit_sim.cu)
    for sol in solutions/[0-9][0-9]_*/task*.cu; do
        [ -e "$sol" ] || continue
        generated=$out/pristine/${sol#solutions/}
        mkdir -p "$(dirname "$generated")"
        grading/bin/prgen "$sol" -o "$generated" || t_fail "prgen $sol"
        cuda_files+=("$sol" "$generated")
    done
    for f in "${cuda_files[@]}"; do
        host=() # CUDA + MPI (rooms 05, 06): MPI's C++ wrapper is nvcc's host compiler
        grep -q '^#define PR_MPI' "$f" && host=(-ccbin "${MPICXX:-mpicxx}")
        room=$(basename "$(dirname "$f")") # a room's own headers, as the grader adds -I ROOT/NN_room
        case $room in [0-9][0-9]_*) [ -d "$room" ] && host+=(-I"$room") ;; esac
        if nvcc "${host[@]}" -arch=sm_75 -Wno-deprecated-gpu-targets -Werror=all-warnings -Igrading/include -c -o /dev/null "$f" 2>"$out/nvcc.err"; then
            t_pass
        else
            t_fail "nvcc does not compile $f:"; head -5 "$out/nvcc.err"
        fi
    done
else
    t_skip "the nvcc compile check of the fixtures: nvcc not found"
fi

t_summary check-sim-grade "sim mode: PASS (simulated), untouched task FAIL, cuBLAS PASS, cuFFT SKIP with the reason, host dereference CRASH, device pointer to MPI CRASH"
