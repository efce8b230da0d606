#!/usr/bin/env bash
# check-grade-cli.sh -- what the grader tells scripts, checked against what it does:
# --describe names every task of --list; --print-build's commands build the programs
# they name (C, MPI, and CUDA through the simulator) from the file they name; --launch
# starts N ranks; bad values of each are usage errors (exit 2).
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
G=grading/bin/grade
t_tmpdir pr-cli; tmp=$T_TMP

# --describe: a header read by column name, and every task --list shows has a line
desc=$($G --describe) || t_abort "grade --describe failed"
header=$(head -1 <<<"$desc")
for col in task source solution kind mpi cuda sim libs line config; do
    grep -qw "$col" <<<"$header" || t_fail "--describe's header lacks the column $col: $header"
done
missing=0
while read -r id; do
    awk -F'\t' -v id="$id" 'NR > 1 && $1 == id { found = 1 } END { exit !found }' <<<"$desc" ||
        { t_fail "--describe has no line for $id"; missing=1; }
done < <($G --list | awk '$1 ~ /^[0-9][0-9]_[a-z_]+\/task/ { print $1 }')
[ "$missing" = 0 ] && t_pass "--describe has a line for every task of --list"

# --print-build: run the printed words; the program appears where the line says
build_one() {  # WHICH TASK [EXTRA GRADE OPTIONS]: builds it, prints the source it named
    local which=$1 task=$2 line words exe
    shift 2
    line=$(GRADE_CUDA=sim $G --print-build "$which" --task "$task" --build-dir "$tmp/build" "$@") ||
        { t_fail "--print-build $which --task $task failed"; return 1; }
    IFS=$'\t' read -r -a words <<<"$line"
    [ "${words[0]}" = "$task" ] || { t_fail "--print-build names ${words[0]}, not $task"; return 1; }
    exe=${words[1]}
    case "$exe" in "$tmp/build/bin/"*) ;; *) t_fail "$task: the executable $exe is not under --build-dir"; return 1 ;; esac
    mkdir -p "$(dirname "$exe")"
    "${words[@]:2}" > "$tmp/build.log" 2>&1 || { t_fail "$task: the printed command failed: $(tail -3 "$tmp/build.log")"; return 1; }
    [ -x "$exe" ] || { t_fail "$task: the printed command made no $exe"; return 1; }
    printf '%s\n' "${words[@]:2}" | grep -E '\.(c|cu)$'
}
same() {  # GOT WANT WHAT: t_pass WHAT when GOT is WANT
    if [ "$1" = "$2" ]; then t_pass "$3"; else t_fail "$3: got '$1', not '$2'"; fi
}
src=$(build_one solution 01_threads/task1) &&
    same "$src" "$PWD/solutions/01_threads/task1.c" "--print-build solution builds 01_threads/task1 from its solution"
if command -v mpicc >/dev/null 2>&1; then
    build_one solution 03_mpi/task1 >/dev/null && t_pass "--print-build builds an MPI solution"
else
    t_skip "no mpicc: the MPI build is not checked"
fi
build_one solution 04_cuda/task1 >/dev/null && t_pass "--print-build builds a CUDA solution (simulator)"
mkdir -p "$tmp/mine/01_threads" && cp solutions/01_threads/task2.c "$tmp/mine/01_threads/"
src=$(build_one task 01_threads/task2 --tasks-from "$tmp/mine") &&
    same "$src" "$tmp/mine/01_threads/task2.c" "--print-build task takes the file from --tasks-from"

# --launch: N ranks of a program (each prints one line)
if command -v mpiexec >/dev/null 2>&1; then
    n=$(timeout 60 $G --launch 3 -- /bin/echo rank 2>/dev/null | grep -c '^rank$')
    same "$n" 3 "--launch 3 starts 3 ranks"
else
    t_skip "no mpiexec: --launch is not checked"
fi

# usage errors: exit status 2 and the option named
usage() {  # EXPECTED-WORDS ARGS...
    local want=$1 out rc
    shift
    out=$($G "$@" 2>&1); rc=$?
    if [ "$rc" = 2 ] && grep -qF -- "$want" <<<"$out"; then t_pass; else t_fail "grade $*: exit $rc, said: $out"; fi
}
usage "--print-build must be task or solution" --print-build both
usage "--launch 0" --launch 0 -- /bin/true
usage "name the program after --" --launch 2
usage "no task" --print-build solution --task 01_threads/task99

t_summary check-grade-cli "--describe, --print-build and --launch say what the grader does"
