#!/usr/bin/env bash
# check-deps.sh -- what `make deps` / deps.sh say, on a PATH with parts taken away
# (make test).  deps.sh is only asked to check, so nothing is installed here.
#   - without the optional extras (gnuplot, inotifywait): named as optional, exit 0;
#   - without MPI (mpicc, mpiexec): named as missing with the packages to install, exit 1.
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "check-deps: FAILED: $*"; failures=$((failures + 1)); }

# path_without DIR NAME...: DIR gets a link to every command on PATH but the NAMEs.
path_without() {
    local dir=$1; shift
    mkdir -p "$dir"
    local d f b skip
    IFS=: read -r -a dirs <<< "$PATH"
    for d in "${dirs[@]}"; do
        for f in "$d"/*; do
            [ -x "$f" ] || continue
            b=${f##*/}; skip=0
            for n in "$@"; do case $b in $n) skip=1 ;; esac; done
            [ $skip = 1 ] || [ -e "$dir/$b" ] || ln -s "$f" "$dir/$b"
        done
    done
}

path_without "$tmp/no-extras" gnuplot inotifywait
out=$(PATH=$tmp/no-extras bash grading/deps.sh check all 2>&1); rc=$?
[ $rc -eq 0 ] || fail "without the optional extras deps.sh exited $rc (want 0): $out"
grep -q 'optional, not installed' <<< "$out" && grep -q 'gnuplot-nox' <<< "$out" && grep -q 'inotify-tools' <<< "$out" ||
    fail "the optional extras are not named: $out"

path_without "$tmp/no-mpi" gnuplot inotifywait 'mpicc' 'mpicc.*' 'mpiexec' 'mpiexec.*'
out=$(PATH=$tmp/no-mpi bash grading/deps.sh check all 2>&1); rc=$?
[ $rc -eq 1 ] || fail "without MPI deps.sh exited $rc (want 1): $out"
grep -q 'missing:' <<< "$out" && grep -q 'apt-get install mpich libmpich-dev' <<< "$out" ||
    fail "missing MPI is not named with its packages: $out"

if [ $failures -eq 0 ]; then
    echo "check-deps: ok: optional extras named (exit 0), missing MPI named with its packages (exit 1)"
fi
[ $failures -eq 0 ]
