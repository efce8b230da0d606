#!/usr/bin/env bash
# slurm.sh -- a real one-node Slurm on this machine, from the distribution's packages:
# submits the rooms' job scripts and a grading job, checks what they did, and stops
# every daemon it started (also when a step fails).  Needs root (it installs the
# packages and runs the daemons); otherwise it says SKIP.
#
# The daemons use their own configuration, ports and spool folders under a temp
# folder (SLURM_CONF), auth/none and cred/none (no munge), MpiDefault=none (so the
# grader's own --mpi=pmi2 is what makes MPICH ranks find each other), and allow
# oversubscription so that 4 ranks fit on 2 cores.
set -u
cd "$(dirname "$0")/../../.." || exit 2
T_NAME=test-cluster  # make test-cluster: the same name as twohost.sh's lines
. grading/tests/lib-test.sh
if [ "$(id -u)" != 0 ]; then
    t_skip "the Slurm part: needs root (to install and run slurmctld/slurmd)"
    t_summary; exit
fi
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v slurmd >/dev/null 2>&1 || ! command -v sbatch >/dev/null 2>&1; then
    t_say "installing slurmctld slurmd slurm-client"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurmctld slurmd slurm-client >/dev/null ||
        { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurmctld slurmd slurm-client >/dev/null; } ||
        t_abort "could not install Slurm"
fi

# (under /tmp, whatever TMPDIR says: slurmd keeps its sockets there, and a socket's path is short)
TMPDIR=/tmp t_tmpdir pr-slurm; dir=$T_TMP
pids=()
# stop_all: the daemons stopped (also on exit, when a step failed: once is enough).
stop_all() {
    [ ${#pids[@]} -gt 0 ] || return 0
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    sleep 1
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    pkill -9 -f "slurmstepd.*" 2>/dev/null
    pids=()
}
t_cleanup stop_all

host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {printf "%d", $2 / 1024 / 2}' /proc/meminfo)
export SLURM_CONF=$dir/slurm.conf
mkdir -p "$dir/ctld" "$dir/d" "$dir/out"
cat > "$SLURM_CONF" <<CONF
ClusterName=prtest
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/d
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF

slurmctld -D -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 & pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$dir/slurmd.out" 2>&1 & pids+=($!)
t_say "slurmctld (pid ${pids[0]}) and slurmd (pid ${pids[1]}) on $host: $cpus cores, ${mem} MiB"
for _ in $(seq 1 30); do
    sinfo -h -o '%T' 2>/dev/null | grep -qE '^idle' && break
    sleep 1
done
if ! sinfo -h -o '%T' 2>/dev/null | grep -qE '^idle'; then
    t_fail "Slurm did not come up:"; tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" 2>/dev/null
    t_summary; exit 1
fi
sinfo

# Like `sbatch --wait`, but asking every second: sbatch's own wait polls at up to
# 32-second intervals, which made every job here look 30 s longer than it was.
# Prints the job id; returns the job's exit code (from scontrol: this cluster keeps
# no accounting database).
sbatch_wait() {
    local job state code
    job=$(sbatch --parsable "$@") || return 1
    job=${job%%;*}
    echo "$job"
    for _ in $(seq 1 900); do
        state=$(scontrol show job "$job" 2>/dev/null | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2)
        case "$state" in PENDING|RUNNING|CONFIGURING|COMPLETING|"") sleep 1 ;; *) break ;; esac
    done
    code=$(scontrol show job "$job" 2>/dev/null | grep -oE ' ExitCode=[0-9]+' | cut -d= -f2)
    return "${code:-1}"
}
# submit NAME EXPECT_RC PATTERN... -- sbatch arguments
submit() {
    local name=$1 want=$2; shift 2
    local patterns=()
    while [ "$1" != "--" ]; do patterns+=("$1"); shift; done; shift
    local out=$dir/out/$name.out start=$SECONDS job rc attempt
    for attempt in 1 2; do
        job=$(sbatch_wait --output="$out" --time=00:10:00 "$@" 2>"$dir/out/$name.err")
        rc=$?
        # A job whose output is empty never ran our command: Slurm itself failed to
        # start it (seen once in CI, not reproduced since).  Say so, and try once more.
        [ -s "$out" ] && break
        t_say "job $name ($job) produced no output (sbatch exit $rc); Slurm says:"
        scontrol show job "${job%%;*}" 2>/dev/null | grep -oE '(JobState|Reason|ExitCode)=[^ ]*' | tr '\n' ' '
        echo; tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" 2>/dev/null
        [ $attempt = 1 ] && t_say "submitting $name again"
    done
    local ok=1
    if [ "$want" = 0 ] && [ $rc -ne 0 ]; then ok=0; fi
    if [ "$want" = nonzero ] && [ $rc -eq 0 ]; then ok=0; fi
    for p in "${patterns[@]}"; do grep -qE "$p" "$out" 2>/dev/null || { ok=0; t_say "$name: no /$p/ in its output"; }; done
    if [ $ok = 1 ]; then
        t_pass "job $name ran ($((SECONDS - start)) s, exit $rc): $(grep -E '^[0-9]+ tasks? in' "$out" | tail -n1)"
    else
        t_fail "job $name (sbatch exit $rc):"
        for f in "$out" "$dir/out/$name.err" "$dir/slurmctld.log" "$dir/slurmd.log"; do
            echo "--- $f"; tail -15 "$f" 2>/dev/null
        done
    fi
}

# The rooms' own job scripts grade the (untouched) tasks: the job runs, every task is
# NOT_STARTED but the room's bug hunt, which is graded as it comes and FAILs (the
# grader's solution jobs below build and launch every program).
room_tasks() { grading/bin/grade --list | grep -c "^ *$1/task"; }
room_hunts() { grep -l '^ *//@ bug:' "solutions/$1"/task* | wc -l; }
for job in "room01 01_threads --cpus-per-task=2" "room02 02_processes --cpus-per-task=2" \
           "room03 03_mpi --ntasks=2 --cpus-per-task=1" "room05 05_cuda_mpi --ntasks=2 --cpus-per-task=1"; do
    read -r name room flags <<<"$job"
    n=$(room_tasks "$room") hunts=$(room_hunts "$room")
    # shellcheck disable=SC2086  # the sbatch flags, split on purpose
    submit "$name" nonzero "grading $n tasks" ": $hunts FAIL $((n - hunts)) NOT_STARTED" -- $flags "$room/job.slurm"
done
# A grading job for the instructor: the solutions graded inside an allocation, where the
# grader launches the MPI ranks with srun (at 1 and 2 ranks, the allocation's size;
# check-solutions grades 3 and 4 too).
submit solutions 0 'launched by srun' 'every task passes' -- --ntasks=2 \
    --wrap "NO_COLOR=1 grading/bin/grade --room 03 --max-ranks 2 --tasks-from solutions --expect pass --json build/cluster.json --junit build/cluster.xml"
# The same for CUDA with MPI: simulated ranks (no GPU here) started by srun, at each task's
# first configuration (check-solutions grades every one).
submit solutions05 0 'launched by srun' 'every task passes' -- --ntasks=2 \
    --wrap "NO_COLOR=1 grading/bin/grade --room 05 --first-config --tasks-from solutions --expect pass --json build/cluster05.json --junit build/cluster05.xml"
# MPIEXEC=srun, as the job scripts offer it: the same srun path (its flags, the PMI).
submit solutions-srun 0 'launched by srun' 'every task passes' -- --ntasks=2 --export=ALL,MPIEXEC=srun \
    --wrap "NO_COLOR=1 grading/bin/grade --task 03_mpi/task1 --tasks-from solutions --expect pass --verbose --json build/cluster-srun.json --junit build/cluster-srun.xml"
# make doctor inside a job says how srun will start the ranks.
doctor_wants=('ranks launched by +srun .*--mpi=pmi2') doctor_runs="bash grading/tools/doctor.sh"
# Open MPI under srun, as many clusters have it (installed by make test-openmpi, which CI
# runs first): only PMIx starts its ranks there, so the grader must ask srun for it.
# One task (the tree and ring reductions, at 1 to 4 ranks) shows the launch works.
if command -v mpicc.openmpi >/dev/null 2>&1; then
    submit solutions-openmpi 0 'Open MPI [0-9.]+, launched by srun' 'every task passes' -- --ntasks=2 \
        --wrap "NO_COLOR=1 MPICC=mpicc.openmpi grading/bin/grade --task 03_mpi/task6 --tasks-from solutions --expect pass --json build/cluster-openmpi.json --junit build/cluster-openmpi.xml"
    doctor_wants+=('ranks launched by +srun .*--mpi=pmix') doctor_runs+=" && MPICC=mpicc.openmpi bash grading/tools/doctor.sh"
else
    t_skip "the Open MPI job: mpicc.openmpi is not installed (make test-openmpi installs it)"
fi
submit doctor 0 "${doctor_wants[@]}" -- --ntasks=1 --wrap "$doctor_runs"

stop_all
sleep 1
# Live processes only: a zombie ([slurmstepd] <defunct>) is dead and waits for a parent
# that reaps (in a container whose PID 1 does not, it waits for ever).
left=$(ps -eo pid=,stat=,args= | awk '$2 !~ /^Z/ && /slurmctld|slurmd|slurmstepd/ && !/awk/')
if [ -n "$left" ]; then
    t_fail "Slurm processes left: $left"
else
    t_pass
fi
t_summary test-cluster "Slurm: every job ran and graded as expected; every daemon stopped"
