#!/usr/bin/env bash
# test-fresh.sh -- the README's commands on a machine that has only what a fresh Debian 12
# has (make test-fresh; FRESH=grade for the make grade parts only, which CI runs).
#
# A minimal Debian 12 root file system is made with debootstrap from the distribution's
# packages (cached in build/fresh/base.tar.gz for the next run), and the checkout (its
# committed and untracked files, not build/) is copied into two copies of it:
#   1. as root, with nothing installed but make (the one thing the README says to install
#      by hand): `make grade` must install the rest itself (gcc, jansson, inih, MPICH) and
#      grade every task, the MPI rooms included (no SKIP); then, unless FRESH=grade,
#      `make test` must pass ("make test: all checks passed");
#   2. as an unprivileged user, where the administrator installed gcc and make only (a
#      cluster login node): `make grade` must fetch jansson and inih into the checkout
#      (build/deps) by itself, build the grader against them and grade the rooms that
#      need nothing else, naming MPI as missing.
# Each copy is run as the root of a mount namespace made by bubblewrap (as root: pivot_root,
# with the host's /dev and /sys and a new /proc), not a chroot: the kernel refuses user
# namespaces inside a chroot, so the grader's own sandbox could not work there. Nothing
# is mounted outside the namespace. Needs root, debootstrap and bubblewrap (installed if
# missing) and the network to the Debian mirror (DEBIAN_MIRROR, default http://deb.debian.org/debian);
# without root: SKIP. Takes about 3 minutes with FRESH=grade; the whole run adds make
# test's own time (see CONTRIBUTING.md).
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
export LC_ALL=C
top=$(pwd)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=$top/build/fresh
part=${FRESH:-all}

if [ "$(id -u)" -ne 0 ]; then
    t_skip "needs root (debootstrap and chroot)"; t_summary; exit
fi
if ! command -v debootstrap >/dev/null 2>&1 || ! command -v bwrap >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap bubblewrap >/dev/null 2>&1 ||
            { apt-get update -q >/dev/null 2>&1 &&
              DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap bubblewrap >/dev/null 2>&1; }
    fi
    if ! command -v debootstrap >/dev/null 2>&1 || ! command -v bwrap >/dev/null 2>&1; then
        t_skip "debootstrap and bubblewrap are not installed and could not be"; t_summary; exit
    fi
fi

# Scratch roots live under build/fresh; a root's mounts go before the root does.
mkdir -p "$cache" || t_abort "cannot create $cache"
roots=()
unmount_all() {  # ROOT: every mount under it, deepest first
    local m
    findmnt -rno TARGET | awk -v r="$1/" 'index($0, r) == 1' | sort -r | while read -r m; do
        umount "$m" 2>/dev/null || umount -l "$m"
    done
}
remove_roots() {
    local r
    for r in ${roots[@]+"${roots[@]}"}; do
        unmount_all "$r"
        if findmnt -rno TARGET | awk -v r="$r/" 'index($0, r) == 1' | grep -q .; then
            echo "test-fresh: $r still has mounts: not removed" >&2
        else
            rm -rf "$r"
        fi
    done
}
t_cleanup remove_roots

base=$cache/base.tar.gz
if [ ! -s "$base" ]; then
    t_say "debootstrap --variant=minbase bookworm (cached in build/fresh for the next run)"
    rm -rf "$cache/base"
    roots+=("$cache/base")
    if ! debootstrap --variant=minbase bookworm "$cache/base" "$mirror" >"$cache/debootstrap.log" 2>&1; then
        tail -5 "$cache/debootstrap.log"; t_abort "debootstrap failed (log: build/fresh/debootstrap.log)"
    fi
    if ! tar -C "$cache/base" -czf "$base.part" . || ! mv "$base.part" "$base"; then
        t_abort "cannot write $base"
    fi
    rm -rf "$cache/base"
fi

# new_root NAME: a fresh copy of the base, with the checkout in /work/rooms; prints its path.
new_root() {
    local r=$cache/$1
    unmount_all "$r"; rm -rf "$r"
    mkdir -p "$r" && tar -C "$r" -xzf "$base" || return 1
    mkdir -p "$r/work/rooms"
    git ls-files -co --exclude-standard -z | grep -zv '^build/' |
        tar --null -T - -cf - | tar -C "$r/work/rooms" -xf - || return 1
    cp -a .git "$r/work/rooms/.git" || return 1
    cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null
    echo "$r"
}
in_root() {  # ROOT COMMAND: runs it with ROOT as /, as root, with a plain environment
    bwrap --bind "$1" / --dev-bind /dev /dev --proc /proc --bind /sys /sys --perms 1777 --tmpfs /dev/shm --perms 1777 --tmpfs /tmp \
        --die-with-parent /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive /bin/bash -c "$2"
}

# 1. As root: the README's commands on a bare machine.
roots+=("$cache/root")
r=$(new_root root) || t_abort "cannot make the root copy"
log=$cache/root-grade.log
t_say "as root: apt-get install make, then make grade (installs the rest)"
in_root "$r" "apt-get install -y -q make >/dev/null 2>&1 && cd /work/rooms && make grade" >"$log" 2>&1
rc=$?
# make grade fails (exit 1, or 130 stopped quietly) while tasks are untouched: the set-up is
# judged by what it printed.
if grep -q 'deps: installing with apt-get: .*gcc' "$log" && grep -q 'libjansson-dev\|mpich' "$log"; then
    t_pass "as root, make grade installed its packages itself (gcc, MPICH, the grader's libraries)"
else
    t_fail "as root, make grade did not install its packages (exit $rc); log: build/fresh/root-grade.log"
fi
summary=$(grep -E '^[0-9]+ tasks in ' "$log" | tail -1)
ntasks=$(git ls-files '0[1-6]_*/task*.c' '0[1-6]_*/task*.cu' | wc -l)
if [ -n "$summary" ] && grep -q "^$ntasks tasks in" <<<"$summary" && ! grep -q 'SKIP' <<<"$summary" &&
   ! grep -q 'no MPI here' "$log"; then
    t_pass "as root, make grade graded all $ntasks tasks, the MPI rooms included ($summary)"
else
    t_fail "as root, make grade: '${summary:-no summary}' (want $ntasks tasks, no SKIP); log: build/fresh/root-grade.log"
fi
if [ "$part" != grade ]; then
    log=$cache/root-test.log
    t_say "as root: make test (the whole of it)"
    in_root "$r" "cd /work/rooms && make test" >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^make test: all checks passed' "$log"; then
        t_pass "as root, make test installed what it needs and passed"
    else
        t_fail "as root, make test: exit $rc; log: build/fresh/root-test.log"; tail -5 "$log"
    fi
fi
unmount_all "$r"

# 2. Without root: gcc and make only, as on a cluster's login node.
roots+=("$cache/user")
r=$(new_root user) || t_abort "cannot make the unprivileged copy"
log=$cache/user-grade.log
in_root "$r" "apt-get install -y -q make gcc >/dev/null 2>&1 && useradd -m learner && chown -R learner /work/rooms" ||
    t_abort "cannot install gcc and make in the unprivileged copy"
t_say "as a user without root (gcc and make installed): make grade"
in_root "$r" "su learner -c 'cd /work/rooms && make grade'" >"$log" 2>&1
rc=$?
if grep -q 'deps: fetching libjansson-dev libinih-dev' "$log" && [ -x "$r/work/rooms/grading/bin/grade" ] &&
   [ -d "$r/work/rooms/build/deps/root/usr/include" ] &&
   ! in_root "$r" "dpkg -s libjansson-dev" >/dev/null 2>&1; then
    t_pass "without root, make grade fetched jansson and inih into build/deps and built the grader against them"
else
    t_fail "without root, make grade did not fetch its libraries (exit $rc); log: build/fresh/user-grade.log"
fi
if grep -qE '^[0-9]+ tasks in ' "$log" && grep -q 'MPI (MPICH' "$log" && grep -q 'mpich libmpich-dev' "$log"; then
    t_pass "without root, make grade graded what it could and named MPI with its packages"
else
    t_fail "without root, make grade did not grade, or did not name MPI; log: build/fresh/user-grade.log"
fi
unmount_all "$r"

t_summary test-fresh "the README's commands on a bare Debian 12 (as root, and without root)"
