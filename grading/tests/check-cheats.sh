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
#      rank 0 doing all the work of an MPI task (03 tasks 1 and 3), with or without the
#      other ranks calling the collective: "rank 0 did ... of the computing", "never called
#      MPI"; one GPU thread summing a whole array (04 task2, simulated): "half of the GPU's
#      work was done by ... threads"; an allreduce every micro-step where the task groups
#      them (06 task11), a full allreduce where it reduce-scatters (06 task12);
#      a kernel left empty while the host does its part (04 task10, simulated):
#      "the kernel ... moved ... sectors";
#   5. the draw itself: printed, stored in the report, repeated exactly by SEED=, another
#      seed draws other sizes; a bad SEED is a usage error (exit 2);
#   6. an instructor's private tasks.ini overlay replaces the runs (a replay table built from
#      the workbook's own fails), a bad overlay is a usage error; HIDE_EXPECTED=1 leaves the
#      expected values out of the messages and logs.
# Faked times are check-perf's (its part 3b).
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
python3 grading/tests/cheats/serial-01-task1.py solutions/01_threads/task1.c "$tmp/serial/01_threads/task1.c"
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

# ---- 4b: rank 0 doing all the MPI work ----------------------------------------------
# 03 task1: rank 0 adds up the whole range, the other ranks add nothing and no partial sum
# travels (r0all); the same with the collective still called by every rank, each handing in
# 0 (r0reduce): the messages look right, the computing does not.  03 task3: rank 0 rescales
# the whole array itself; nothing is scattered or gathered.
mkdir -p "$tmp/r0all/03_mpi" "$tmp/r0reduce/03_mpi"
python3 - solutions/03_mpi/task1.c "$tmp/r0all/03_mpi/task1.c" "$tmp/r0reduce/03_mpi/task1.c" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r"static double distributed_sum\(long n\)\n\{.*?\n\}\n", s, flags=re.S)
if not m:
    sys.exit("03_mpi/task1.c: distributed_sum was not found")
body = ("static double distributed_sum(long n)\n{\n    int rank;\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
        "    double total = 0.0;\n    if (rank == 0) /* rank 0 does it all */\n"
        "        for (long i = 0; i < n; i++)\n            total += 0.001 * (double)i;\n%s"
        "    return rank == 0 ? total : 0.0;\n}\n")
open(sys.argv[2], "w").write(s[:m.start()] + body % "" + s[m.end():])
reduce = ("    double local = total, sum = 0.0; /* every rank takes part, the others with 0 */\n"
          "    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    total = sum;\n")
open(sys.argv[3], "w").write(s[:m.start()] + body % reduce + s[m.end():])
EOF
python3 - solutions/03_mpi/task3.c "$tmp/r0all/03_mpi/task3.c" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r"(static void rescale_distributed\(const double \*x, double \*y, long n, int \*counts, int \*displs\)\n\{.*?"
              r"split\(n, size, counts, displs\);\n).*?\n\}\n", s, flags=re.S)
if not m:
    sys.exit("03_mpi/task3.c: rescale_distributed was not found")
cheat = ("static void rescale_serial(const double *x, double *y, long n);\n" + m.group(1) +
         "    if (rank == 0) /* rank 0 rescales it all; nothing travels */\n        rescale_serial(x, y, n);\n}\n")
open(sys.argv[2], "w").write(s[:m.start()] + cheat + s[m.end():])
EOF
# the same rank-0 rescale, with bytes faked on MPI_COMM_SELF (a collective with no peer)
mkdir -p "$tmp/r0self/03_mpi"
python3 - "$tmp/r0all/03_mpi/task3.c" "$tmp/r0self/03_mpi/task3.c" <<'EOF'
import sys
s = open(sys.argv[1]).read()
old = "    if (rank == 0) /* rank 0 rescales it all; nothing travels */\n"
if old not in s:
    sys.exit("no rank-0 rescale to add the fake bytes to")
fake = ("    double *junk = alloc_block((int)n); /* bytes that go nowhere */\n"
        "    MPI_Bcast(junk, (int)n, MPI_DOUBLE, 0, MPI_COMM_SELF);\n"
        "    MPI_Bcast(junk, (int)n, MPI_DOUBLE, 0, MPI_COMM_SELF);\n    free(junk);\n")
open(sys.argv[2], "w").write(s.replace(old, fake + old))
EOF
for f in r0all/03_mpi/task1.c r0reduce/03_mpi/task1.c r0all/03_mpi/task3.c r0self/03_mpi/task3.c; do
    [ -s "$tmp/$f" ] || t_fail "could not write $f (the solution changed?)"
done
grade_as r0all 6666 03_mpi/task1 03_mpi/task3
grade_as r0reduce 6666 03_mpi/task1
grade_as r0self 6666 03_mpi/task3
expect_fail r0all 03_mpi/task1 "right results, but rank [1-9] never called MPI|rank 0 did [0-9]+ % of the computing" \
    "rank 0 adds up everything, no partial sum travels"
expect_fail r0reduce 03_mpi/task1 "right results, but rank 0 did [0-9]+ % of the computing" \
    "rank 0 adds up everything, every rank calls MPI_Reduce"
expect_fail r0all 03_mpi/task3 "right results, but rank [0-9] never called MPI after MPI_Init|rank 1 handed MPI .* the data is meant to travel" \
    "rank 0 rescales the whole array, nothing scattered"
expect_fail r0self 03_mpi/task3 "right results, but rank [0-9] (never called MPI after MPI_Init|handed MPI .* the data is meant to travel)" \
    "rank 0 rescales the whole array, bytes faked on MPI_COMM_SELF"
$G --tasks-from solutions --seed 6666 --quiet --task 03_mpi/task1,03_mpi/task3 \
    --json "$tmp/honest-mpi.json" --junit "$tmp/honest-mpi.xml" > "$tmp/honest-mpi.log" 2>&1
if [ "$(statuses "$tmp/honest-mpi.json" | cut -f2 | sort -u)" = PASS ]; then t_pass; else
    t_fail "the MPI solutions do not pass at the draw the rank-0 ones failed: $(statuses "$tmp/honest-mpi.json")"; fi
if grep -q 'work: 2 ranks, computing [0-9]*/[0-9]* % ' "$tmp/honest-mpi.log" &&
    grep -q '"messages_sent"' "$tmp/honest-mpi.json"; then t_pass; else
    t_fail "the report does not show the ranks' work: $(head -20 "$tmp/honest-mpi.log")"; fi

# ---- 4c: one GPU thread doing a whole sum (simulated CUDA) -----------------------------
# 04 task2: thread 0 of block 0 loops over the whole array; every other thread returns.
mkdir -p "$tmp/onethread/04_cuda"
python3 - solutions/04_cuda/task2.cu "$tmp/onethread/04_cuda/task2.cu" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r"__global__ void sum_kernel\(const unsigned \*x, long n, unsigned long long \*total\)\n\{.*?\n\}\n", s,
              flags=re.S)
if not m:
    sys.exit("04_cuda/task2.cu: sum_kernel was not found")
cheat = ("__global__ void sum_kernel(const unsigned *x, long n, unsigned long long *total)\n{\n"
         "    if (blockIdx.x == 0 && threadIdx.x == 0) { /* one thread adds it all */\n"
         "        unsigned long long s = 0;\n        for (long i = 0; i < n; i++)\n            s += x[i];\n"
         "        *total = s;\n    }\n}\n")
open(sys.argv[2], "w").write(s[:m.start()] + cheat + s[m.end():])
EOF
# the same with every other thread running a short loop of its own (work that looks spread)
mkdir -p "$tmp/onebusy/04_cuda"
sed 's|^    if (blockIdx.x == 0 \&\& threadIdx.x == 0) { /\* one thread adds it all \*/|    for (volatile int k = 0; k < 8; k++) { } /* every thread: a loop of its own */\n&|' \
    "$tmp/onethread/04_cuda/task2.cu" > "$tmp/onebusy/04_cuda/task2.cu"
grep -q 'a loop of its own' "$tmp/onebusy/04_cuda/task2.cu" || t_fail "could not write the dummy-loop 04 task2"
if [ -s "$tmp/onethread/04_cuda/task2.cu" ]; then
    GRADE_CUDA=sim grade_as onebusy 6666 04_cuda/task2
    expect_fail onebusy 04_cuda/task2 "the busiest thread ran [0-9]+ steps where the median one ran" \
        "one GPU thread sums the whole array, the others run a loop of their own (simulated)"
    GRADE_CUDA=sim grade_as onethread 6666 04_cuda/task2
    expect_fail onethread 04_cuda/task2 "right results, but the GPU's work was not spread over its threads: .*ran serially on the GPU" \
        "one GPU thread sums the whole array (simulated)"
    GRADE_CUDA=sim $G --tasks-from solutions --seed 6666 --quiet --task 04_cuda/task2 --json "$tmp/honest-gpu.json" \
        --junit "$tmp/honest-gpu.xml" > "$tmp/honest-gpu.log" 2>&1
    if [ "$(statuses "$tmp/honest-gpu.json" | cut -f2)" = PASS ] &&
        grep -q 'GPU (simulated): [0-9]* kernel launches.*half the work done by' "$tmp/honest-gpu.log"; then t_pass; else
        t_fail "the CUDA solution at that draw: $(statuses "$tmp/honest-gpu.json"; head -12 "$tmp/honest-gpu.log")"; fi
else
    t_fail "could not write a one-thread 04 task2 (the solution changed?)"
fi
# 04 task2 with a plain += where each block adds its sum into the total: the simulator runs one
# block at a time, so nothing is lost there, but on a GPU updates are: no atomic, FAIL.
mkdir -p "$tmp/plainadd/04_cuda"
sed 's|^        atomicAdd(total, (unsigned long long)part\[0\]);|        *total += part[0]; /* not atomic */|' \
    solutions/04_cuda/task2.cu > "$tmp/plainadd/04_cuda/task2.cu"
if grep -q 'not atomic' "$tmp/plainadd/04_cuda/task2.cu"; then
    GRADE_CUDA=sim grade_as plainadd 6666 04_cuda/task2
    expect_fail plainadd 04_cuda/task2 "right results, but your kernels made no atomic operation where the reference's made [0-9]+" \
        "a plain += of each block's sum, no atomic (simulated)"
else
    t_fail "could not write a plain-add 04 task2 (the solution changed?)"
fi

# ---- 4c': a kernel left empty while the CPU does its part (simulated CUDA, kernel by kernel) ---
# 04 task10: TODO 2's kernel does nothing, and the scaffolding makes the trip through half
# on the host; the other kernel's traffic hides it in the totals.
mkdir -p "$tmp/hostpart/04_cuda"
python3 - solutions/04_cuda/task10.cu "$tmp/hostpart/04_cuda/task10.cu" <<'PY'
import sys
s = open(sys.argv[1]).read()
body = "    long i = blockIdx.x * (long)blockDim.x + threadIdx.x; /* the value this thread carries */"
a = s.find(body)
b = s.find("    //@ }", a)
old = ("    CHECK(cudaMemcpy(back, dback, n * sizeof(float), cudaMemcpyDeviceToHost));\n"
       "    trip_counts c = { 0, 0, 0 };\n")
if a < 0 or b < 0 or old not in s:
    sys.exit("04_cuda/task10.cu: the trip through half was not found")
s = s[:a] + "    (void)g; (void)scale; (void)gh; (void)back; (void)n;\n" + s[b:]
s = s.replace(old, old.replace("    trip_counts", "    for (long i = 0; i < n; i++) /* on the host */\n"
                               "        back[i] = __half2float(__float2half_rn(g[i] * scale)) / scale;\n"
                               "    trip_counts"))
open(sys.argv[2], "w").write(s)
PY
if [ -s "$tmp/hostpart/04_cuda/task10.cu" ]; then
    GRADE_CUDA=sim grade_as hostpart 6666 04_cuda/task10
    expect_fail hostpart 04_cuda/task10 "the kernel through_half moved [0-9]+ sectors of GPU memory where the reference's moved" \
        "one kernel left empty, its part done on the host (simulated)"
else
    t_fail "could not write the host-side 04 task10"
fi

# ---- 4d: the collectives a task is about (tasks.ini's method_calls, method_collectives) ---
# 06 task11 with an allreduce every micro-step (the same numbers, none of the saving), and
# 06 task12 with a full allreduce in place of the reduce-scatter (no sharding of the sums).
mkdir -p "$tmp/collectives/06_data_parallel"
python3 - solutions/06_data_parallel/task11.c solutions/06_data_parallel/task12.c "$tmp/collectives/06_data_parallel" <<'PY'
import sys
s = open(sys.argv[1]).read()
old = "        int ends_group = (micro + 1) % accum == 0 || start + size == n;\n"
if old not in s:
    sys.exit("06_data_parallel/task11.c: the end of a group was not found")
extra = ("        { /* an allreduce every micro-step */\n            static double *every;\n"
         "            if (!every)\n                every = calloc((size_t)L->count + 1, sizeof *every);\n"
         "            MPI_Allreduce(w->acc, every, (int)L->count + 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n        }\n")
open(sys.argv[3] + "/task11.c", "w").write(s.replace(old, old + extra))
s = open(sys.argv[2]).read()
old = "    MPI_Reduce_scatter(z->local, z->mine, z->counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n"
if old not in s:
    sys.exit("06_data_parallel/task12.c: the reduce-scatter was not found")
full = ("    { /* a full allreduce, then this rank's slice */\n        static double *all;\n"
        "        if (!all)\n            all = calloc((size_t)L->count, sizeof *all);\n"
        "        MPI_Allreduce(z->local, all, (int)L->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n"
        "        memcpy(z->mine, all + z->displs[z->rank], (size_t)mine * sizeof(double));\n    }\n")
open(sys.argv[3] + "/task12.c", "w").write(s.replace(old, full))
PY
if [ -s "$tmp/collectives/06_data_parallel/task12.c" ]; then
    grade_as collectives 6666 06_data_parallel/task11 06_data_parallel/task12
    expect_fail collectives 06_data_parallel/task11 "took part in [0-9]+ collectives where the reference's rank [0-9] took part in [0-9]+" \
        "an allreduce every micro-step in the gradient accumulation task"
    expect_fail collectives 06_data_parallel/task12 "never called MPI_Reduce_scatter, which the task is about" \
        "a full allreduce in the ZeRO task"
else
    t_fail "could not write the collective cheats of 06 tasks 11 and 12"
fi

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

# ---- 6: the instructor's private overlay and hidden expected values --------------------
# An overlay replaces a task's runs (and perf, method_run): --describe and the grading use
# its sizes; a replay table built from the workbook's own tasks.ini matches none of them.
cat > "$tmp/overlay.ini" <<'EOF'
; the instructor's graded sizes, kept outside the workbook
[03_mpi/task1]
runs = ranks=2,3 n=7000001..7999999
[01_threads/task2]
runs = threads=2 n=333331..444443
EOF
$G --describe --task 03_mpi/task1,01_threads/task2 --tasks-overlay "$tmp/overlay.ini" --seed 5 > "$tmp/ov.describe" 2>&1
ov_configs=$(awk -F'\t' 'NR > 1 { print $10 }' "$tmp/ov.describe" | sort -u | tr '\n' '|')
if grep -qE '^ranks=2 n=7[0-9]{6}\|ranks=3 n=7[0-9]{6}\|threads=2 n=[34][0-9]{5}\|$' <<<"$ov_configs"; then
    t_pass "the overlay's runs replace the workbook's: $ov_configs"
else
    t_fail "--describe with the overlay: $ov_configs ($(head -3 "$tmp/ov.describe"))"
fi
# the replay table of part 1 (built from the workbook's own runs), graded with the overlay
GRADE_TASKS_OVERLAY="$tmp/overlay.ini" grade_as replay 5 03_mpi/task1
expect_fail replay 03_mpi/task1 "result '[a-z_]+' missing" "a replay table against the instructor's overlay"
if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["draw"]["overlay"] is True else 1)' \
    "$tmp/replay.json"; then t_pass; else t_fail "the report does not say an overlay was used"; fi
# a key the overlay may not change, and a task the workbook lacks: exit 2, file and line named
printf '[01_threads/task2]\ntitle = Easy points\n' > "$tmp/bad-overlay.ini"
printf '[01_threads/task99]\nruns = threads=2 n=5\n' > "$tmp/bad-overlay2.ini"
for bad in bad-overlay bad-overlay2; do
    $G --list --tasks-overlay "$tmp/$bad.ini" > /dev/null 2> "$tmp/$bad.err"
    rc=$?
    if [ $rc = 2 ] && grep -q "$bad.ini:2: overlay" "$tmp/$bad.err"; then t_pass; else
        t_fail "overlay $bad: exit $rc, $(cat "$tmp/$bad.err")"; fi
done
$G --list --tasks-overlay "$tmp/no-such.ini" > /dev/null 2> "$tmp/nofile.err"
rc=$?
if [ $rc = 2 ] && grep -q 'no-such.ini: no such file' "$tmp/nofile.err"; then t_pass; else
    t_fail "a missing overlay: exit $rc, $(cat "$tmp/nofile.err")"; fi
# HIDE_EXPECTED=1: the harvest of part 3 finds no value to copy; the line that failed is named
GRADE_HIDE_EXPECTED=1 $G --tasks-from "$tmp/untouched" --task 01_threads/task2 --quiet --seed 5 --json "$tmp/hidden.json" \
    --junit "$tmp/hidden.xml" --build-dir "$tmp/hidden-build" > "$tmp/hidden.log" 2>&1
hidden=$(statuses "$tmp/hidden.json")
if grep -q "result '[a-z_]*'" <<<"$hidden" && ! grep -qi 'expected [0-9-]' <<<"$hidden" &&
    grep -q 'expected values are hidden' <<<"$hidden" && ! grep -rq "reference's result lines" "$tmp/hidden-build/logs" &&
    grep -q '"expected_hidden": true' "$tmp/hidden.json"; then
    t_pass "HIDE_EXPECTED=1 names the failing line, not its value: $(cut -c1-100 <<<"$hidden")"
else
    t_fail "HIDE_EXPECTED=1: $hidden"
fi
GRADE_HIDE_EXPECTED=yes $G --list > /dev/null 2> "$tmp/hide.err"
rc=$?
if [ $rc = 2 ] && grep -q 'GRADE_HIDE_EXPECTED.*0 or 1' "$tmp/hide.err"; then t_pass; else
    t_fail "GRADE_HIDE_EXPECTED=yes: exit $rc, $(cat "$tmp/hide.err")"; fi

t_summary check-cheats "replayed output, harvested expected values, serial threads code, rank 0 doing all and one GPU thread doing all do not PASS; the draw repeats"
