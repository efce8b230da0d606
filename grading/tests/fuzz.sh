#!/usr/bin/env bash
# fuzz.sh [SECONDS] -- fuzzes the grader's two parsers with libFuzzer (make fuzz).
#
#   fuzz_results  a program's stdout -> results_parse, results_compare (grading/src/results.c)
#   fuzz_meta     a tasks.ini        -> room_load, workbook_free         (grading/src/meta.c, inih)
#
# Each harness (grading/tests/fuzz/*.c) is built with clang's
# -fsanitize=fuzzer,address,undefined against the grader's own sources and runs
# for SECONDS (default 30) from its seed corpus (grading/tests/fuzz/corpus_*/,
# never written to: new inputs go to build/fuzz/corpus_*).  A crash, a hang
# (-timeout=5), a leak or more than 1 GiB of memory fails the run (exit 1) and
# leaves its reproducer under build/fuzz/artifacts/; re-run one with
#   build/fuzz/fuzz_results build/fuzz/artifacts/results-crash-...
# Environment: CLANG (default: clang, else clang-14).
set -u
cd "$(dirname "$0")/../.." || exit 2
seconds=${1:-30}
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: fuzz.sh [SECONDS] (a whole number, default 30)" >&2; exit 2; }
. grading/tests/lib-test.sh

clang=${CLANG:-}
if [ -z "$clang" ]; then
    for c in clang clang-14 clang-15 clang-16 clang-13; do
        command -v "$c" >/dev/null 2>&1 && { clang=$c; break; }
    done
fi
[ -n "$clang" ] || { t_skip "no clang (apt-get install clang)"; t_summary; exit; }

out=build/fuzz
mkdir -p "$out/artifacts"
src=grading/tests/fuzz
# Only the sources the two parsers need: util.c for the x* helpers, kinds.c for the
# kinds a tasks.ini may name.  (The rest of the grader's core is not linked, so a
# harness never depends on the runner.)
# shellcheck disable=SC2054 # the commas are part of one option
flags=(-g -O1 -std=c11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -fno-omit-frame-pointer -Igrading/src)
build() { # name, grader sources...
    local name=$1; shift
    if ! "$clang" "${flags[@]}" -o "$out/$name" "$src/$name.c" "$@" -linih -lm 2> "$out/$name.build.log"; then
        if grep -q -e 'libclang_rt.fuzzer' -e 'cannot find.*fuzzer' "$out/$name.build.log"; then
            t_skip "$clang has no libFuzzer runtime (Debian/Ubuntu: apt-get install libclang-rt-dev or clang)"
            t_summary; exit
        fi
        t_fail "$name does not build:"; head -n 20 "$out/$name.build.log"
        t_summary; exit 1
    fi
}
build fuzz_results grading/src/util.c grading/src/results.c
build fuzz_meta grading/src/util.c grading/src/kinds.c grading/src/meta.c

# fuzz_meta writes every input to a file: in memory when /dev/shm is there (10x
# faster), in a folder of its own that goes even when a harness dies (t_tmpdir: removed
# on exit; it stops with status 2 when it cannot make one).
shm=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && shm=/dev/shm
TMPDIR=$shm t_tmpdir pr-fuzz; fuzz_tmp=$T_TMP

# The entries of a folder (ls | wc -l without ls: dot files aside).
count() { local f n=0; for f in "$1"/*; do if [ -e "$f" ] || [ -L "$f" ]; then n=$((n + 1)); fi; done; echo "$n"; }
run() { # name, corpus suffix
    local name=$1 what=$2 work=$out/corpus_$2 log=$out/$1.log rc before after runs art where
    mkdir -p "$work"
    before=$(count "$out/artifacts")
    # Leaks are checked after every input; ASan's own exit code is libFuzzer's.
    TMPDIR=$fuzz_tmp ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
        "$out/$name" "$work" "$src/corpus_$what" -dict="$src/$name.dict" \
        -max_total_time="$seconds" -timeout=5 -rss_limit_mb=1024 -max_len=8192 \
        -artifact_prefix="$out/artifacts/$what-" -print_final_stats=1 > "$log" 2>&1
    rc=$?
    after=$(count "$out/artifacts")
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    if [ $rc -eq 0 ] && [ "$after" -eq "$before" ]; then
        t_pass "$(printf '%-13s %s inputs in %s s, corpus %s files' "$name" "${runs:-?}" "$seconds" \
            "$(count "$work")")"
        return
    fi
    art=$(grep -o "Test unit written to [^ ]*" "$log" | tail -n1 | sed 's/^Test unit written to //')
    # shellcheck disable=SC2012  # the newest by time; libFuzzer's artifact names are plain
    [ -n "$art" ] || art=$(ls -t "$out"/artifacts/"$what"-* 2>/dev/null | head -n1)
    t_fail "$(printf '%-13s %s (exit %d)' "$name" \
        "$(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|property violated' "$log" |
           sed 's/^==[0-9]*==//' | cut -c1-150)" "$rc")"
    where=$(grep -m1 -o -E 'in [A-Za-z_0-9]+ [^ ]*grading/src/[a-z_]+\.c:[0-9]+' "$log" | sed "s|$PWD/||")
    [ -n "$where" ] && echo "      first frame in the grader: $where"
    echo "      reproducer: ${art:-none written}; log: $log; re-run: $out/$name ${art:-<file>}"
}
run fuzz_results results
run fuzz_meta meta

t_summary fuzz "fuzz_results and fuzz_meta, $seconds s each, no crash, hang or leak"
