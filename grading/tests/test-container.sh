#!/usr/bin/env bash
# test-container.sh -- the workbook's container image (the top Containerfile, which
# .devcontainer/devcontainer.json builds too) built and used as the README says (make
# test-container).
#
# The bare Debian 12 root file system of test-fresh.sh (debootstrap, cached in
# build/fresh/base.tar.gz; made here when missing) is imported into podman as the base image,
# in place of docker.io/library/debian:bookworm, and the Containerfile is built on it
# (--build-arg BASE=...): the packages come from the workbook's own list, as the image a
# learner builds gets them. Then, in containers of that image, as its default user, with a
# copy of the checkout mounted as the README says:
#   - the user is the unprivileged learner, and `deps.sh check all` finds everything;
#   - `make grade TASK=01_threads/task1` builds the grader, reports the untouched task NOT
#     STARTED (a non-zero exit), an edited but unsolved one FAIL, and the solution copied
#     over it PASS, that last run with --security-opt systempaths=unconfined (the README's
#     option for the sandbox), where the sandbox must be on (without it, its line is shown);
#   - `make grade TASK=04_cuda/task1` with the solution copied in: PASS (simulated).
# The images it made are removed on exit. Needs root and podman (installed from Debian's
# packages when missing), and the network to the Debian mirror (DEBIAN_MIRROR); without
# root: SKIP. CONTAINER_STORAGE=vfs uses podman's vfs storage (in build/container) where
# overlay does not work. Takes 1.5 to 2.5 minutes (about 4 with vfs), most of it the
# image's packages.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
export LC_ALL=C
top=$(pwd)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=$top/build/fresh
work=$top/build/container
tag=test-$$
base_img=localhost/rooms-base:$tag
img=localhost/parallel-rooms:$tag

if [ "$(id -u)" -ne 0 ]; then
    t_skip "needs root (podman with the host's network and storage)"; t_summary; exit
fi
apt_install() {  # PACKAGE...: installed from Debian's packages when apt-get is there
    command -v apt-get >/dev/null 2>&1 || return 1
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "$@" >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "$@" >/dev/null 2>&1; }
}
command -v podman >/dev/null 2>&1 || apt_install podman
command -v podman >/dev/null 2>&1 || { t_skip "podman is not installed and could not be"; t_summary; exit; }
mkdir -p "$cache" "$work" || t_abort "cannot create build/fresh and build/container"
t_tmpdir test-container

# The base: the same bare Debian 12 as test-fresh.sh.
base=$cache/base.tar.gz
if [ ! -s "$base" ]; then
    command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
    command -v debootstrap >/dev/null 2>&1 ||
        { t_skip "debootstrap is not installed and could not be"; t_summary; exit; }
    t_say "debootstrap --variant=minbase bookworm (cached in build/fresh for the next run)"
    if ! debootstrap --variant=minbase bookworm "$T_TMP/base" "$mirror" >"$cache/debootstrap.log" 2>&1; then
        tail -5 "$cache/debootstrap.log"; t_abort "debootstrap failed (log: build/fresh/debootstrap.log)"
    fi
    if ! tar -C "$T_TMP/base" -czf "$base.part" . || ! mv "$base.part" "$base"; then
        t_abort "cannot write $base"
    fi
    rm -rf "$T_TMP/base"
fi

# podman: overlay storage unless CONTAINER_STORAGE=vfs (a store of its own under build/container).
pm=(podman)
if [ "${CONTAINER_STORAGE:-}" = vfs ]; then
    pm+=(--storage-driver vfs --root "$work/storage" --runroot "$work/run")
fi
cleanup_images() {
    local c
    for c in $("${pm[@]}" ps -aq --filter "name=rooms-$tag" 2>/dev/null); do "${pm[@]}" rm -f "$c" >/dev/null 2>&1; done
    "${pm[@]}" rmi -f "$img" "$base_img" >/dev/null 2>&1
    if [ "${CONTAINER_STORAGE:-}" = vfs ]; then  # the store is this test's own
        "${pm[@]}" system reset -f >/dev/null 2>&1
        rm -rf "$work/storage" "$work/run"
    fi
    return 0
}
t_cleanup cleanup_images

t_say "podman import build/fresh/base.tar.gz $base_img"
"${pm[@]}" import -q "$base" "$base_img" >"$T_TMP/import.log" 2>&1 ||
    { tail -5 "$T_TMP/import.log"; t_abort "podman import failed (CONTAINER_STORAGE=vfs tries podman's vfs storage)"; }

# What it takes to run a container here: nothing, or the host's own limits where podman's
# default (the highest) may not be set, or runc where crun refuses this machine's cgroups.
nofile=$(ulimit -Hn) nproc=$(ulimit -Hu) pidmax=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
[ "$nofile" = unlimited ] && nofile=1048576
{ [ "$nproc" = unlimited ] || [ "$nproc" -gt "$pidmax" ]; } && nproc=$pidmax
limits=(--ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc")
opts=()
runs() { "${pm[@]}" run --rm "${opts[@]}" "$base_img" true >"$T_TMP/probe.log" 2>&1; }
if ! runs; then
    opts=("${limits[@]}")
    if ! runs; then
        command -v runc >/dev/null 2>&1 || apt_install runc
        pm+=(--runtime runc)
        runs || { tail -3 "$T_TMP/probe.log"; t_skip "podman cannot run a container on this machine"; t_summary; exit; }
    fi
fi
t_say "podman runs containers here with: ${pm[*]:1} ${opts[*]}"

# The image, built as the README says, on the bare Debian (--layers=false: no intermediate
# images left behind; the final one is removed on exit).
log=$work/build.log
t_say "podman build -f Containerfile --build-arg BASE=$base_img (log: build/container/build.log)"
start=$SECONDS
if "${pm[@]}" build "${opts[@]}" --layers=false --build-arg "BASE=$base_img" -t "$img" -f Containerfile . \
    >"$log" 2>&1; then
    t_pass "the image builds from the Containerfile on a bare Debian 12 ($((SECONDS - start)) s)"
else
    tail -15 "$log"; t_abort "podman build failed; log: build/container/build.log"
fi

# A copy of the checkout (committed and untracked files, not build/), owned by the image's
# learner (uid 1000), mounted as the README says.
src=$T_TMP/rooms
mkdir -p "$src"
git ls-files -co --exclude-standard -z | grep -zv '^build/' | tar --null -T - -cf - | tar -C "$src" -xf - ||
    t_abort "cannot copy the checkout"
if ! cp -a .git "$src/.git" || ! chown -R 1000:1000 "$src"; then t_abort "cannot copy .git or chown the copy"; fi
n=0
extra=()
in_image() {  # COMMAND [LOG]: run in a container of the image, as its default user, the copy mounted
    n=$((n + 1))
    "${pm[@]}" run --rm "${opts[@]}" ${extra[@]+"${extra[@]}"} --name "rooms-$tag-$n" -v "$src:/work/rooms" \
        -w /work/rooms "$img" bash -c "$1" >"${2:-/dev/null}" 2>&1
}

who=$(in_image 'id -un; id -u' "$T_TMP/who" && cat "$T_TMP/who")
if [ "$(head -1 <<<"$who")" = learner ] && [ "$(tail -1 <<<"$who")" != 0 ]; then
    t_pass "the image's default user is the unprivileged learner"
else
    t_fail "the image's default user is '$who', not learner"
fi
# shellcheck disable=SC2016  # expanded in the container
if in_image 'bash /opt/parallel-rooms/deps.sh check all && for p in gcc g++ make mpicc mpiexec bwrap git python3; do
                  command -v $p >/dev/null || { echo "no $p"; exit 1; }; done' "$work/deps.log"; then
    t_pass "everything the rooms use is in the image (deps.sh check all; gcc, g++, MPICH, bwrap, git, python3)"
else
    t_fail "the image lacks something: $(tail -3 "$work/deps.log" | tr '\n' ' ')"
fi

# make grade: the grader built in the container, the task graded three ways.
status_of() {  # LOG TASK: the status the grader gave the task
    grep -E "^\[ *[0-9]+/[0-9]+\] $2 " "$1" |
        grep -oE 'NOT STARTED|PASS \(simulated\)|PASS|FAIL|BUILD_ERROR|CRASH|TIMEOUT|SKIP' | head -1
}
task=01_threads/task1
log=$work/grade-untouched.log
in_image "make grade TASK=$task" "$log"
rc=$?
st=$(status_of "$log" "$task")
if [ -x "$src/grading/bin/grade" ] && [ "$st" = "NOT STARTED" ] && [ $rc -ne 0 ]; then
    t_pass "make grade built the grader in the container; the untouched $task is NOT STARTED (exit $rc)"
else
    t_fail "make grade TASK=$task untouched: '${st:-no status}', exit $rc; log: build/container/grade-untouched.log"
fi
sandbox=$(grep -m1 -o 'sandbox: .*' "$log")
t_say "in the container, ${sandbox:-no sandbox line}"
log=$work/grade-unsolved.log
in_image "echo '/* edited */' >> $task.c && make grade TASK=$task" "$log"
rc=$?
st=$(status_of "$log" "$task")
if [ "$st" = FAIL ] && [ $rc -ne 0 ]; then
    t_pass "an edited, unsolved $task FAILs (exit $rc)"
else
    t_fail "make grade TASK=$task unsolved: '${st:-no status}', exit $rc; log: build/container/grade-unsolved.log"
fi
# Solved, with the option the README gives for the sandbox (podman lets /proc be mounted).
log=$work/grade-solved.log
extra=(--security-opt systempaths=unconfined)
in_image "cp solutions/$task.c $task.c && make grade TASK=$task" "$log"
rc=$?
extra=()
st=$(status_of "$log" "$task")
if [ "$st" = PASS ] && [ $rc -eq 0 ]; then
    t_pass "with the solution copied in, $task PASSes"
else
    t_fail "make grade TASK=$task solved: '${st:-no status}', exit $rc; log: build/container/grade-solved.log"
fi
if grep -q 'sandbox: on' "$log"; then
    t_pass "with --security-opt systempaths=unconfined the grader's sandbox is on in the container"
else
    t_fail "with --security-opt systempaths=unconfined: $(grep -m1 -o 'sandbox: .*' "$log" || echo 'no sandbox line')"
fi
task=04_cuda/task1
log=$work/grade-cuda.log
in_image "cp solutions/$task.cu $task.cu && make grade TASK=$task" "$log"
rc=$?
st=$(status_of "$log" "$task")
if [ "$st" = "PASS (simulated)" ] && [ $rc -eq 0 ]; then
    t_pass "with the solution copied in, the CUDA $task PASSes in the simulator"
else
    t_fail "make grade TASK=$task solved: '${st:-no status}', exit $rc; log: build/container/grade-cuda.log"
fi

t_summary test-container "the Containerfile built on a bare Debian 12; a task and a simulated CUDA task graded in it"
