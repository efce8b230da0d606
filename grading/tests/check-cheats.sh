#!/usr/bin/env bash
# check-cheats.sh -- a PASS means a parallel program did the work.  Task files written as a
# student who wants the points without the work would write them, generated here, graded
# as that student's own, and none may PASS; each message must name what was missing:
#   1. replay tables: the reference's whole output for every configuration grade --describe
#      lists (01 task1, 02 task1, 03 task1), graded at another draw: the sizes and seeds
#      differ, the results do not match;
#   2. the same replay at the very draw it is graded at (a student who guessed the seed):
#      where the method is checked (01 tasks 1 and 2), "did not come from the work";
#   3. a harvest of the "expected" values that FAIL messages print (01 task2), replayed at
#      a fresh draw;
#   4. serial code in a threads task (01 task1, 01 task2): "one thread did ... of the work";
#      the whole sum in the parent of a processes task (02 task1): "one process did ...";
#   5. the draw itself: printed, stored in the report, repeated exactly by SEED=, another
#      seed draws other sizes; a bad SEED is a usage error (exit 2).
# Faked times are check-perf's (its part 3b).  Not yet checked, because the grader does
# not check them yet: rank 0 doing all the MPI work, one GPU thread doing a whole sum.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
t_tmpdir pr-cheats; tmp=$T_TMP
G=grading/bin/grade
[ -x "$G" ] || t_abort "build the grader first (make all)"

# "task<TAB>status<TAB>message" of each task of a JSON report
statuses() {
    python3 - "$1" <<'EOF'
import json, sys
for t in json.load(open(sys.argv[1]))["tasks"]:
    print("%s\t%s\t%s" % (t["id"], t["status"], (t.get("message") or "").replace("\n", " ")))
EOF
}

# grade_as NAME SEED TASKS...: grades $tmp/NAME as a student's tree at draw SEED
grade_as() {
    local name=$1 seed=$2
    shift 2
    $G --tasks-from "$tmp/$name" --seed "$seed" --quiet --task "$(IFS=,; echo "$*")" \
        --json "$tmp/$name.json" --junit "$tmp/$name.xml" > "$tmp/$name.log" 2>&1
}

# expect_fail NAME ID WORDS WHAT: the task ID of report NAME is not PASS, and its message
# holds WORDS (a grep -E pattern)
expect_fail() {
    local line status message
    line=$(statuses "$tmp/$1.json" | awk -F'\t' -v id="$2" '$1 == id')
    status=$(cut -f2 <<<"$line")
    message=$(cut -f3 <<<"$line")
    if [ -z "$line" ]; then
        t_fail "$4: $2 was not graded: $(tail -5 "$tmp/$1.log")"
    elif [ "$status" = PASS ]; then
        t_fail "$4: $2 PASSES"
    elif ! grep -qE "$3" <<<"$message"; then
        t_fail "$4: $2 is $status, but its message does not say /$3/: $message"
    else
        t_pass "$4: $2 is $status: $(cut -c1-110 <<<"$message")"
    fi
}

# ---- 1 and 2: replay tables ----------------------------------------------------
# A program that prints, for its own arguments (and rank count), the reference's output
# recorded at draw SEED: the table is built the way a student could, from grade --describe
# and the reference built from the checkout.
make_replay() { # ID SEED OUT.c
    local id=$1 seed=$2 out=$3 exe mpi
    mpi=$($G --describe --task "$id" | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["mpi"]; exit }')
    IFS=$'\t' read -r -a words < <($G --print-build solution --task "$id" --build-dir "$tmp/refbuild")
    exe=${words[1]}
    mkdir -p "$(dirname "$exe")"
    "${words[@]:2}" > /dev/null 2>&1 || { t_fail "the reference of $id does not build"; return 1; }
    : > "$tmp/table.tsv"
    while IFS= read -r config; do
        local ranks=1 args=() threads=""
        for kv in $config; do
            case "$kv" in
                ranks=*) ranks=${kv#ranks=} ;;
                threads=*) threads=${kv#threads=}; args+=("$kv") ;;
                *) args+=("$kv") ;;
            esac
        done
        local output
        if [ "$mpi" = yes ]; then
            output=$(timeout 60 $G --launch "$ranks" -- "$exe" "${args[@]}" 2>/dev/null)
        else
            output=$(OMP_NUM_THREADS=${threads:-1} timeout 60 "$exe" "${args[@]}" 2>/dev/null)
        fi
        printf '%s\t%s\t%s\n' "$ranks" "${args[*]}" "$(base64 -w0 <<<"$output")" >> "$tmp/table.tsv"
    done < <($G --describe --seed "$seed" --task "$id" | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { print $c["config"] } $c["method_run"] != "-" && !m++ { print $c["method_run"] }')
    python3 - "$tmp/table.tsv" "$mpi" > "$out" <<'EOF'
import base64, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
mpi = sys.argv[2] == "yes"
def c(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
print("/* replayed output: no work done */")
print("#include <stdio.h>\n#include <string.h>")
if mpi:
    print("#include <mpi.h>")
print("static const char *table[][3] = {")
for ranks, args, out in rows:
    print("    { %s, %s, %s }," % (c(ranks), c(args), c(base64.b64decode(out).decode(errors="replace"))))
print("};")
print("int main(int argc, char **argv)\n{\n    char key[4096] = \"\", ranks[16] = \"1\";\n    int rank = 0;")
if mpi:
    print("    int size;\n    MPI_Init(&argc, &argv);\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
          "    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    snprintf(ranks, sizeof ranks, \"%d\", size);")
print("    for (int i = 1; i < argc; i++) {\n        if (i > 1) strcat(key, \" \");\n"
      "        strncat(key, argv[i], 100);\n    }")
print("    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++)\n"
      "        if (rank == 0 && strcmp(table[t][0], ranks) == 0 && strcmp(table[t][1], key) == 0)\n"
      "            fputs(table[t][2], stdout);")
if mpi:
    print("    MPI_Finalize();")
print("    return 0;\n}")
EOF
}

replay_ids=(01_threads/task1 02_processes/task1)
if command -v mpicc >/dev/null 2>&1; then replay_ids+=(03_mpi/task1); else t_skip "no mpicc: no MPI replay table"; fi
for id in "${replay_ids[@]}"; do
    mkdir -p "$tmp/replay/${id%/*}"
    make_replay "$id" 1111 "$tmp/replay/$id.c" || continue
done
grade_as replay 2222 "${replay_ids[@]}"
for id in "${replay_ids[@]}"; do
    expect_fail replay "$id" "expected|missing" "a replay table graded at another draw"
done

# 2. at the draw it was recorded at, where the method is checked: not the work
mkdir -p "$tmp/sameseed/01_threads"
make_replay 01_threads/task1 3333 "$tmp/sameseed/01_threads/task1.c"
make_replay 01_threads/task2 3333 "$tmp/sameseed/01_threads/task2.c"
grade_as sameseed 3333 01_threads/task1 01_threads/task2
for id in 01_threads/task1 01_threads/task2; do
    expect_fail sameseed "$id" "did not come from the work|one thread did" "a replay table at the very draw graded"
done

# ---- 3: a harvest of the FAIL messages' expected values ---------------------------
# The untouched task, graded once: each run's message says "expected X"; a task that prints
# those values for those arguments, graded at a fresh draw.
mkdir -p "$tmp/untouched"
bash grading/tools/pristine.sh "$tmp/untouched" > /dev/null 2>&1 || t_abort "pristine.sh failed"
echo "/* started */" >> "$tmp/untouched/01_threads/task2.c" # touched, so that it is graded
$G --tasks-from "$tmp/untouched" --seed 4444 --quiet --task 01_threads/task2 --json "$tmp/harvest.json" \
    --junit "$tmp/harvest.xml" > /dev/null 2>&1
mkdir -p "$tmp/harvested/01_threads"
python3 - "$tmp/harvest.json" > "$tmp/harvested/01_threads/task2.c" <<'EOF'
import json, re, sys
runs = json.load(open(sys.argv[1]))["tasks"][0]["runs"]
print('#include <stdio.h>\n#include <string.h>\nint main(int argc, char **argv)\n{\n    char key[4096] = "";')
print('    for (int i = 1; i < argc; i++) { if (i > 1) strcat(key, " "); strncat(key, argv[i], 100); }')
for r in runs:
    args = " ".join(w for w in r["config"].split() if not w.startswith("ranks="))
    found = re.findall(r"result '?([\w.:-]+)'?[^\n]*?expected ([-+0-9.eE]+)", r.get("message") or "")
    body = "".join('printf("result %s = %s\\n"); ' % (k, v) for k, v in found)
    print('    if (strcmp(key, "%s") == 0) { %s}' % (args, body))
print("    return 0;\n}")
EOF
if grep -q 'printf("result' "$tmp/harvested/01_threads/task2.c"; then t_pass; else
    t_fail "no expected value harvested from the FAIL messages: $(head -c 600 "$tmp/harvest.json")"; fi
grade_as harvested 5555 01_threads/task2
expect_fail harvested 01_threads/task2 "expected|missing" "expected values harvested from FAIL messages, at a fresh draw"

# ---- 4: serial code in a threads task ---------------------------------------------
mkdir -p "$tmp/serial/01_threads"
grep -v 'pragma omp' solutions/01_threads/task2.c > "$tmp/serial/01_threads/task2.c"
python3 - solutions/01_threads/task1.c > "$tmp/serial/01_threads/task1.c" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
# every chunk squared in turn by the calling thread: no thread is started
s2 = re.sub(r"for \(int t = 0; t < threads; t\+\+\) \{\s*int err = pthread_create\(&tid\[t\], NULL, square_chunk, &chunk\[t\]\);"
            r".*?pthread_join\(tid\[t\], NULL\);",
            "(void)tid;\n    for (int t = 0; t < threads; t++)\n        square_chunk(&chunk[t]);", s, flags=re.S)
if s2 == s:
    sys.exit("01_threads/task1.c: its thread loops were not found")
print(s2, end="")
EOF
[ -s "$tmp/serial/01_threads/task1.c" ] || t_fail "could not write a serial 01 task1 (the solution changed?)"
# 02 task1: the parent sums the whole array itself, as many children as asked sit idle
mkdir -p "$tmp/serial/02_processes"
python3 - solutions/02_processes/task1.c > "$tmp/serial/02_processes/task1.c" <<'EOF'
import sys
s = open(sys.argv[1]).read()
head = "static int sum_with_processes(const int64_t *a, long n, int workers, int64_t *total, int *ok)\n{\n"
if head not in s:
    sys.exit("02_processes/task1.c: sum_with_processes was not found")
cheat = ("static int64_t sum_serial(const int64_t *a, long n);\n" + head +
         "    *total = sum_serial(a, n); /* the parent does it all */\n    *ok = workers;\n    return 0;\n")
print(s.replace(head, cheat), end="")
EOF
[ -s "$tmp/serial/02_processes/task1.c" ] || t_fail "could not write a one-process 02 task1 (the solution changed?)"
grade_as serial 6666 01_threads/task1 01_threads/task2 02_processes/task1
for id in 01_threads/task1 01_threads/task2; do
    expect_fail serial "$id" "right results, but one thread did [0-9]+ % of the work.*ran serially" "serial code in a threads task"
done
expect_fail serial 02_processes/task1 "right results, but one process did [0-9]+ % of the work.*ran serially" \
    "the whole sum in the parent, no child doing a share"
# the solutions themselves, at the same draws: the check fails them for the cheat, not the draw
$G --tasks-from solutions --seed 6666 --quiet --task 01_threads/task1,01_threads/task2,02_processes/task1 \
    --json "$tmp/honest.json" --junit "$tmp/honest.xml" > "$tmp/honest.log" 2>&1
if [ "$(statuses "$tmp/honest.json" | cut -f2 | sort -u)" = PASS ]; then t_pass; else
    t_fail "the solutions do not pass at the draw the serial ones failed: $(statuses "$tmp/honest.json")"; fi
if grep -q 'work: [0-9]* threads, ' "$tmp/honest.log" || grep -q '"work"' "$tmp/honest.json"; then t_pass; else
    t_fail "the report does not show the work: $(head -20 "$tmp/honest.log")"; fi

# ---- 5: the draw --------------------------------------------------------------------
configs() { python3 -c 'import json,sys; print(" | ".join(r["config"] for t in json.load(open(sys.argv[1]))["tasks"] for r in t["runs"]))' "$1"; }
seed_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["draw"]["seed"])' "$1"; }
for run in a b; do
    GRADE_SEED=777 $G --tasks-from solutions --task 03_mpi/task1,01_threads/task2 --quiet --json "$tmp/draw-$run.json" \
        --junit "$tmp/draw-$run.xml" > "$tmp/draw-$run.log" 2>&1
done
$G --tasks-from solutions --task 03_mpi/task1,01_threads/task2 --json "$tmp/draw-c.json" --junit "$tmp/draw-c.xml" \
    > "$tmp/draw-c.log" 2>&1
if [ "$(configs "$tmp/draw-a.json")" = "$(configs "$tmp/draw-b.json")" ] && [ "$(seed_of "$tmp/draw-a.json")" = 777 ]; then
    t_pass "SEED=777 draws the same sizes twice and stores the seed"
else
    t_fail "SEED=777 twice: $(configs "$tmp/draw-a.json") against $(configs "$tmp/draw-b.json")"
fi
if [ "$(configs "$tmp/draw-a.json")" != "$(configs "$tmp/draw-c.json")" ]; then t_pass "a fresh grading draws other sizes"; else
    t_fail "a fresh grading drew the sizes of SEED=777: $(configs "$tmp/draw-c.json")"; fi
seed=$(seed_of "$tmp/draw-c.json")
if grep -q "^draw: SEED=$seed " "$tmp/draw-c.log"; then t_pass "the draw is printed: SEED=$seed"; else
    t_fail "no 'draw: SEED=$seed' line: $(head -3 "$tmp/draw-c.log")"; fi
if grep -q 'n=[0-9]*[024680] ' <<<"$(configs "$tmp/draw-c.json") "; then t_fail "an even size was drawn: $(configs "$tmp/draw-c.json")"; else t_pass; fi
for bad in 0 abc 1000000000 -5; do
    GRADE_SEED=$bad $G --list > /dev/null 2> "$tmp/bad.err"
    rc=$?
    if [ $rc = 2 ] && grep -q 'SEED.*from 1 to 999999999' "$tmp/bad.err"; then t_pass; else
        t_fail "SEED=$bad: exit $rc, $(cat "$tmp/bad.err")"; fi
done

t_summary check-cheats "replayed output, harvested expected values and serial threads code do not PASS; the draw repeats"
