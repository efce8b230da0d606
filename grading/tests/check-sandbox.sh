#!/usr/bin/env bash
# check-sandbox.sh -- submissions that cheat or sabotage get FAIL or BUILD_ERROR, never
# PASS, and a solved student graded after a saboteur still passes: the learner's side
# builds and runs in the grader's sandbox (grading/src/sandbox.h).
#
# Each cheat stands in for 01_threads/task1.  It is graded twice where that shows the
# cheat is real: with SANDBOX=off it PASSes (or does its damage), with the sandbox it
# must not.  Then a class: a saboteur, a copier and a solved student, graded one after
# the other, sharing one set of references.
set -u
cd "$(dirname "$0")/../.." || exit 2
top=$PWD
. grading/tests/lib-test.sh
G=$top/grading/bin/grade
export NO_COLOR=1
t_tmpdir pr-sandbox; tmp=$T_TMP
marker=pr-sandbox-sleeper-$$   # the sleep a leftover-making cheat leaves behind
t_cleanup "pkill -f $marker 2>/dev/null"

if ! command -v bwrap >/dev/null 2>&1; then
    t_skip "bwrap is not installed (make deps installs bubblewrap): nothing checked"
    t_summary check-sandbox
    exit
fi
why=$("$G" --sandbox 2>&1) || t_abort "bwrap is installed, but the grader has no sandbox: $why"

# cheat NAME: writes the cheat's task file into $tmp/NAME/01_threads/task1.c (stdin).
cheat() { mkdir -p "$tmp/$1/01_threads"; cat > "$tmp/$1/01_threads/task1.c"; }
# status NAME [GRADE_SANDBOX]: the task's status when graded from $tmp/NAME.
status() {
    GRADE_SANDBOX=${2:-on} "$G" --task 01_threads/task1 --tasks-from "$tmp/$1" --build-dir "$tmp/$1/build" \
        --json "$tmp/$1/r.json" --junit "$tmp/$1/r.xml" --quiet > "$tmp/$1/out.txt" 2>&1
    sed -n 's/.*"status": "\([A-Z_]*\)".*/\1/p' "$tmp/$1/r.json" | head -n1
}
# expect NAME WHAT: FAIL or BUILD_ERROR in the sandbox; with CONTROL=1, right results without
# it: PASS, or a FAIL of the method check alone ("right results, but ..." the work was not
# done by the program: a cheat that only fetches its answer uses next to no CPU).
expect() {
    local name=$1 what=$2 got
    if [ "${CONTROL:-0}" = 1 ]; then
        got=$(status "$name" off)
        if [ "$got" != PASS ] && ! { [ "$got" = FAIL ] && grep -q 'right results, but' "$tmp/$name/out.txt"; }; then
            t_fail "$what: without the sandbox the cheat should get right results (it is real), got '$got'"
        fi
    fi
    got=$(status "$name" on)
    case "$got" in
        FAIL|BUILD_ERROR) t_pass "$what -> $got" ;;
        *) t_fail "$what: got '$got' in the sandbox: $(head -c 600 "$tmp/$name/out.txt")" ;;
    esac
}

# 1. run the reference executable (beside its own: bin/task/ -> bin/ref/) in its place
cheat run_ref <<'EOF'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    (void)argc;
    char self[4096], ref[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0) return 1;
    self[n] = '\0';
    char *at = strstr(self, "/bin/task/");
    if (!at) return 1;
    *at = '\0';
    snprintf(ref, sizeof ref, "%s/bin/ref/%s", self, at + strlen("/bin/task/"));
    execv(ref, argv);
    perror(ref);
    return 1;
}
EOF
CONTROL=1 expect run_ref "runs the reference executable"

# 2. include the reference solution's source
printf '#include "%s/solutions/01_threads/task1.c"\n' "$top" | cheat include_solution
CONTROL=1 expect include_solution "includes the solution's source"

# 3. fetch the answer over the network, from a server the cheater runs (here: on this
#    machine's loopback, serving the reference's output for the arguments it is sent)
if command -v python3 >/dev/null 2>&1; then
    mkdir -p "$tmp/ref" && gcc -std=c11 -O2 -Igrading/include -I01_threads -o "$tmp/ref/task1" \
        solutions/01_threads/task1.c -pthread -lm
    port_file=$tmp/port
    python3 - "$tmp/ref/task1" "$port_file" <<'EOF' &
import socket, subprocess, sys
ref, port_file = sys.argv[1], sys.argv[2]
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(port_file, "w").write(str(s.getsockname()[1]))
s.settimeout(120)
while True:
    try: c, _ = s.accept()
    except OSError: break
    args = c.recv(4096).decode().split()
    c.sendall(subprocess.run([ref] + args, capture_output=True).stdout); c.close()
EOF
    server=$!
    t_cleanup "kill $server 2>/dev/null"
    for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
    sed "s/PORT/$(cat "$port_file")/" <<'EOF' | cheat network
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    char args[4096] = "", buf[65536];
    for (int i = 1; i < argc; i++) { strcat(args, argv[i]); strcat(args, " "); }
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT) };
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) { perror("connect"); return 1; }
    send(s, args, strlen(args), 0);
    shutdown(s, SHUT_WR);
    ssize_t n;
    while ((n = recv(s, buf, sizeof buf, 0)) > 0) fwrite(buf, 1, (size_t)n, stdout);
    return 0;
}
EOF
    CONTROL=1 expect network "fetches the answer over the network"
else
    t_skip "no python3: the network cheat's server cannot run"
fi

# 4. the solution, plus a process that outlives the run
{ sed 's/^int main(/static int solution_main(/' solutions/01_threads/task1.c
  cat <<EOF
#include <sys/wait.h>
int main(int argc, char **argv)
{
    if (fork() == 0) { setsid(); execlp("bash", "bash", "-c", "exec -a $marker sleep 300", (char *)NULL); _exit(1); }
    return solution_main(argc, argv);
}
EOF
} | cheat outlives
expect outlives "leaves a process running"
if pgrep -f "$marker" >/dev/null; then t_fail "a process of the run is still alive: $(pgrep -af "$marker")"; else t_pass; fi

# 5. fill the working folder: 1 MiB at a time, up to 320 MiB.  In the sandbox it is a tmpfs
# of 256 MiB of its own: the writes stop there, with "No space left on device", and the file
# system of the grader's TMPDIR (here, as root, a 64 MiB tmpfs, so that a sandbox that
# wrote through to it could not fill a real disk) gets none of it.
cheat fill <<'EOF'
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(void)
{
    static char buf[1 << 20];
    memset(buf, 'x', sizeof buf);
    int fd = open("fill.bin", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    for (int mib = 0; fd >= 0 && mib < 320; mib++)
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) {
            fprintf(stderr, "fill: write after %d MiB: %s\n", mib, strerror(errno));
            return 1;
        }
    printf("fill: wrote 320 MiB\n");
    return 0;
}
EOF
small=""
if [ "$(id -u)" = 0 ] && mkdir -p "$tmp/small" && mount -t tmpfs -o size=64m tmpfs "$tmp/small" 2>/dev/null; then
    small=$tmp/small
    t_cleanup "umount $(printf %q "$small") 2>/dev/null"
fi
got=$(TMPDIR=${small:-${TMPDIR:-/tmp}} status fill)
if [ "$got" = FAIL ] && grep -q 'it ran out of space ("No space left on device")' "$tmp/fill/out.txt" &&
   grep -rq 'fill: write after 256 MiB: No space left on device' "$tmp/fill/build/logs"; then
    t_pass "filling its working folder: FAIL, stopped at 256 MiB, told why"
else
    t_fail "filling its working folder: $got: $(head -c 800 "$tmp/fill/out.txt"); log: $(grep -rh 'fill:' "$tmp/fill/build/logs" 2>/dev/null | head -2)"
fi
if [ -n "$small" ]; then
    used=$(df -k --output=used "$small" | tail -1 | tr -d ' ')
    if [ "$used" -lt 1024 ]; then t_pass; else t_fail "the grader's TMPDIR holds $used kB after the fill"; fi
else
    t_say "not root: the TMPDIR side of the fill test is not checked"
fi

# ---- a class: a saboteur, a copier and a solved student, in that order, one at a time ----
subs=$tmp/class-subs out=$tmp/class-out
mkdir -p "$subs/a-saboteur/01_threads" "$subs/b-copier/01_threads" "$subs/c-solved/01_threads"
cp solutions/01_threads/task*.c "$subs/c-solved/01_threads/"
# The saboteur: every file it can reach under the class's output folder (the shared
# references, the others' reports and builds) becomes a script that prints nothing.
sed "s|OUT|$out|" <<'EOF' > "$subs/a-saboteur/01_threads/task1.c"
#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
static int spoil(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (type == FTW_F) {
        FILE *f = fopen(path, "w");
        if (f) { fputs("#!/bin/sh\nexit 0\n", f); fclose(f); chmod(path, 0755); printf("spoiled %s\n", path); }
    }
    return 0;
}
int main(void)
{
    nftw("OUT", spoil, 16, FTW_PHYS);
    FILE *f = fopen("OUT/class.csv", "w");
    if (f) { fputs("sabotaged\n", f); fclose(f); }
    return 0;
}
EOF
# The linker: a real task file of room 02 (where the class script finds the checkout), and
# room 01 as a link to the solutions: the class script must not follow it.
mkdir -p "$subs/b-linker/02_processes"
echo 'int main(void) { return 1; }' > "$subs/b-linker/02_processes/task1.c"
ln -s "$top/solutions/01_threads" "$subs/b-linker/01_threads"
# The hard linker: its task file is another name of the solution's (where the submissions
# lie on the workbook's file system): the class script must not copy it.
mkdir -p "$subs/b-hardlinker/01_threads"
hardlinked=0
ln "$top/solutions/01_threads/task1.c" "$subs/b-hardlinker/01_threads/task1.c" 2>/dev/null && hardlinked=1
# The copier: its build takes the solved student's file from the class's folder.
printf '#include "%s/students/c-solved/tree/01_threads/task1.c"\n' "$out" > "$subs/b-copier/01_threads/task1.c"
CLASS_OUT=$out ROOM=01 JOBS=1 make --no-print-directory grade-class SUBMISSIONS="$subs" > "$tmp/class.log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then t_pass; else t_fail "make grade-class exited $rc: $(tail -5 "$tmp/class.log")"; fi
student_status() {  # NAME TASK
    awk -v t="\"$2\"" '$0 ~ "\"id\": " t { f = 1 } f && /"status":/ { gsub(/[",]/, "", $2); print $2; exit }' \
        "$out/students/$1/grade-report.json" 2>/dev/null
}
got=$(student_status a-saboteur 01_threads/task1)
case "$got" in FAIL|BUILD_ERROR) t_pass "the saboteur -> $got" ;; *) t_fail "the saboteur's task1: '$got'" ;; esac
got=$(student_status b-linker 01_threads/task1)
case "$got" in PASS) t_fail "the linker's room 01, a link to the solutions, passes" ;; *) t_pass "the linker (room 01 a link to the solutions) -> ${got:-not graded}" ;; esac
if [ $hardlinked = 1 ]; then
    got=$(student_status b-hardlinker 01_threads/task1)
    case "$got" in PASS) t_fail "the hard linker's task1, the solution's other name, passes" ;; *) t_pass "the hard linker -> ${got:-not graded}" ;; esac
else
    rmdir "$subs/b-hardlinker/01_threads" "$subs/b-hardlinker" 2>/dev/null
    t_skip "no hard link from $tmp to the workbook (another file system): the hard-link case is not checked"
fi
got=$(student_status b-copier 01_threads/task1)
case "$got" in FAIL|BUILD_ERROR) t_pass "the copier (includes another student's file) -> $got" ;; *) t_fail "the copier's task1: '$got'" ;; esac
bad=0
for f in solutions/01_threads/task*.c; do
    t=${f#solutions/}; t=${t%.c}
    got=$(student_status c-solved "$t")
    [ "$got" = PASS ] || { t_fail "the solved student graded after the saboteur: $t is '$got'"; bad=1; }
done
[ $bad = 0 ] && t_pass "the solved student graded after the saboteur passes every task of room 01"
if grep -q sabotaged "$out/class.csv" 2>/dev/null; then t_fail "the saboteur wrote the class table"; else t_pass; fi
if grep -rqs "^exit 0$" "$out/ref" "$out/students/c-solved"; then
    t_fail "the saboteur changed a reference or another student's files"
else
    t_pass "no reference and no other student's file was changed"
fi
if grep -q "sandbox: on" <<<"$(sed -n 's/.*"sandbox": "\([^"]*\)".*/sandbox: \1/p' "$out/students/c-solved/grade-report.json")"; then
    t_pass "the reports say the sandbox was on"
else
    t_fail "c-solved's report does not say the sandbox was on"
fi

t_summary check-sandbox "cheats and saboteurs get no PASS; the others' grades stand"
