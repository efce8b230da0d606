#!/usr/bin/env bash
# test-openmpi.sh -- the grader's Open MPI path, beside the MPICH the workbook uses by
# default (make test-openmpi; CI runs it).  GPU machines often have Open MPI only, so
# rooms 03, 05 and 06 must grade the same under it.
#
# Open MPI comes from the distribution (openmpi-bin, libopenmpi-dev) and is used by its
# suffixed names: the grader is given MPICC=mpicc.openmpi only, as a user would, and
# must find mpicxx.openmpi and mpiexec.openmpi beside it (the report must name Open
# MPI).  Installing it must not change which MPI `mpicc` is: before apt-get runs, the
# alternatives mpi, mpirun and mpi-<arch> are pinned (manual mode) to what they are
# now, and the test checks that `mpicc` is still the same after.
# Then, through the real grader with Open MPI (as root: --oversubscribe and leave to run
# as root, which the grader adds):
#   - the solutions of rooms 03 (every configuration: up to 4 ranks on the cores there are,
#     --oversubscribe), 05 (CUDA simulated, simcc -ccbin mpicxx.openmpi; at up to 2 ranks)
#     and 06 (each task's first configuration: check-solutions grades them all under MPICH) PASS;
#   - the untouched tasks of rooms 03 and 05 FAIL, at their first configuration
#     (grade --first-config: check-tasks grades every configuration under MPICH), and
#     quickly: the grader sets Open MPI's kill delay to 0 (OMPI_MCA_odls_base_sigkill_timeout),
#     without which every failing run waits 2 s (06 is left out to keep CI short);
#   - the MPI hostile fixtures (check-hostile.sh --mpi-only): a deadlock and a spin
#     TIMEOUT, a dying rank CRASH, a rank that skips MPI_Finalize FAIL, and the
#     fixture's solution PASS at 1 to 4 ranks;
#   - make doctor and make bench ROOM=03 take Open MPI's mpiexec from MPICC alone;
#   - nothing left running (no orted, no task processes).
# Without root and without Open MPI: SKIP (exit 0), saying what to install.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
export NO_COLOR=1 LC_ALL=C
out=build/test-openmpi
rm -rf "$out" && mkdir -p "$out"

if ! command -v mpicc.openmpi >/dev/null 2>&1 || ! command -v mpiexec.openmpi >/dev/null 2>&1; then
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        t_skip "Open MPI is not installed (Debian/Ubuntu: apt-get install openmpi-bin libopenmpi-dev)"
        t_summary; exit
    fi
    before=$(readlink -f "$(command -v mpicc 2>/dev/null)" 2>/dev/null)
    # Pin the MPI alternatives as they are, so that Open MPI's higher priority does not
    # take over `mpicc` and `mpiexec` for everything else.
    arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
    for alt in mpi mpirun "mpi-$arch"; do
        now=$(update-alternatives --query "$alt" 2>/dev/null | sed -n 's/^Value: //p')
        [ -n "$now" ] && update-alternatives --set "$alt" "$now" >/dev/null
    done
    t_say "installing openmpi-bin libopenmpi-dev"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q openmpi-bin libopenmpi-dev >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q openmpi-bin libopenmpi-dev >/dev/null; } ||
        t_abort "could not install Open MPI"
    after=$(readlink -f "$(command -v mpicc 2>/dev/null)" 2>/dev/null)
    if [ "$before" = "$after" ]; then
        t_pass "installing Open MPI left mpicc as it was ($after)"
    else
        t_fail "installing Open MPI changed mpicc from $before to $after"
    fi
fi
export MPICC=mpicc.openmpi
unset MPICXX MPIEXEC
version=$(mpiexec.openmpi --version 2>&1 | head -n1)
t_say "$version (mpicc stays $(readlink -f "$(command -v mpicc)"))"

make -s all >/dev/null || t_abort "make all"
make -s pristine >/dev/null || t_abort "make pristine"
grade=grading/bin/grade

# grade_check LABEL EXPECT TASKS_FROM ROOM [OPTION...]: the grader's own --expect check
grade_check() {
    local label=$1 expect=$2 from=$3 room=$4 t0=$SECONDS
    shift 4
    "$grade" --room "$room" --tasks-from "$from" --expect "$expect" --quiet --build-dir "$out/grade" "$@" \
        --json "$out/$label.json" --junit "$out/$label.xml" > "$out/$label.log" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
        t_fail "$label: the grader exited $rc:"; grep -vE '^ +(ok|PASS)' "$out/$label.log" | head -20
    elif ! grep -q '"mpi": "Open MPI' "$out/$label.json"; then
        t_fail "$label: the report does not name Open MPI: $(grep -m1 '"mpi"' "$out/$label.json")"
    else
        t_pass "$label: $(tail -n 3 "$out/$label.log" | grep -m1 -E 'tasks? in') ($((SECONDS - t0)) s)"
    fi
}
grade_check solutions-03 pass solutions 03
grade_check solutions-05 pass solutions 05 --max-ranks 2
grade_check solutions-06 pass solutions 06 --max-ranks 2 --first-config
grade_check untouched-03 fail build/pristine 03 --first-config
grade_check untouched-05 fail build/pristine 05 --first-config

# The MPI hostile fixtures (grading/tests/mpi-smoke) and the fixture's solution at
# 1 to 4 ranks, under Open MPI: check-hostile's MPI part (which asks MPIEXEC for the
# flavour to size its time allowances).
MPIEXEC=mpiexec.openmpi bash grading/tests/check-hostile.sh --mpi-only | sed 's/^/  /'
if [ "${PIPESTATUS[0]}" -eq 0 ]; then
    t_pass "check-hostile --mpi-only under Open MPI"
else
    t_fail "check-hostile --mpi-only under Open MPI"
fi

# make doctor and make bench find the same Open MPI from MPICC alone (the grader's
# launchers table, asked with grade --launcher and --launch): the doctor names
# mpiexec.openmpi, and a short bench of room 03 runs under it (its machine line names
# Open MPI, not MPICH).
doc=$(bash grading/tools/doctor.sh 2>&1)
if grep -qE '^  MPI +Open MPI .*mpiexec\.openmpi' <<<"$doc"; then
    t_pass "make doctor with MPICC=mpicc.openmpi names mpiexec.openmpi"
else
    t_fail "make doctor with MPICC=mpicc.openmpi: $(grep -m1 -E '^  MPI ' <<<"$doc")"
fi
if BENCH_REPS=1 bash grading/bench/bench.sh 03 > "$out/bench.log" 2>&1; then
    if grep -q '^Machine: .*Open MPI [0-9]' build/bench/bench.md; then
        t_pass "make bench ROOM=03 with MPICC=mpicc.openmpi: $(grep -m1 -o 'Open MPI [0-9][0-9.]*' build/bench/bench.md)"
    else
        t_fail "make bench with MPICC=mpicc.openmpi: $(grep -m1 '^Machine' build/bench/bench.md)"
    fi
else
    t_fail "make bench ROOM=03 under Open MPI:"; tail -n 5 "$out/bench.log"
fi

sleep 0.5
left=$(pgrep -af 'orted|prterun|/build/test-openmpi/' | grep -v pgrep)
if [ -z "$left" ]; then
    t_pass
else
    t_fail "left running: $left"; pkill -9 -f 'orted|/build/test-openmpi/'
fi

t_say "logs in $out/"
t_summary test-openmpi "rooms 03, 05, 06 grade under Open MPI as under MPICH, nothing left running"
