#!/usr/bin/env bash
# check-class-attacks.sh -- one class, four saboteurs beside a solved student, graded with
# JOBS=2 as root and again as an unprivileged user (nobody), with TMPDIR and CLASS_OUT on a
# small tmpfs (never the real disk):
#   dora  fills her run's space (files of 16 MiB until the write fails);
#   sam   starts and joins 250 threads over and over;
#   tess  makes a folder tree 150,000 deep, holding an open file per level while it can;
#   zip   hands in a .tar.gz with 512 MiB of zeros beside a task file.
# The solved student (ann) passes every task of room 01; each saboteur's task fails, and
# the class run ends; fewer than 100 files stay behind on the tmpfs.  Needs root (the
# tmpfs mount, and setpriv for the unprivileged run): elsewhere it says so and checks nothing.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
export NO_COLOR=1
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
    t_say "not root (or no setpriv): the attacks on class grading are not checked here"
    t_summary check-class-attacks "not run"
    exit 0
fi
t_tmpdir pr-class-attacks; tmp=$T_TMP
make --no-print-directory pristine >/dev/null || t_abort "make pristine failed"

subs=$tmp/subs
mkdir -p "$subs"
# student NAME: room 01 untouched (each task file as the workbook ships it)
student() {
    mkdir -p "$subs/$1/01_threads"
    cp build/pristine/01_threads/task*.c "$subs/$1/01_threads/"
}
student ann
cp solutions/01_threads/task*.c "$subs/ann/01_threads/"

student dora
cat > "$subs/dora/01_threads/task1.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(void)
{
    static char block[1 << 20];
    for (int i = 0; i < 100000; i++) {
        char name[32];
        snprintf(name, sizeof name, "fill%d", i);
        int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) {
            perror(name);
            return 0;
        }
        for (int k = 0; k < 16; k++)
            if (write(fd, block, sizeof block) != (ssize_t)sizeof block) {
                perror(name);
                close(fd);
                return 0;
            }
        close(fd);
    }
    return 0;
}
EOF

student sam
cat > "$subs/sam/01_threads/task2.c" <<'EOF'
#include <pthread.h>
#include <time.h>
static void *idle(void *arg) { return arg; }
int main(void)
{
    time_t end = time(NULL) + 2;
    while (time(NULL) < end) {
        pthread_t t[250];
        int n = 0;
        for (int i = 0; i < 250; i++)
            n += pthread_create(&t[n], NULL, idle, NULL) == 0;
        for (int i = 0; i < n; i++)
            pthread_join(t[i], NULL);
    }
    return 0;
}
EOF

student tess
cat > "$subs/tess/01_threads/task3.c" <<'EOF'
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
int main(void)
{
    for (int i = 0; i < 150000; i++) {
        if (mkdir("d", 0700) != 0 || chdir("d") != 0)
            return 0;
        (void)open(".", O_RDONLY | O_DIRECTORY); /* kept open, while the limit allows */
    }
    return 0;
}
EOF

mkdir -p "$tmp/zip/parallel-rooms/01_threads"
cp build/pristine/01_threads/task*.c "$tmp/zip/parallel-rooms/01_threads/"
cp solutions/01_threads/task4.c "$tmp/zip/parallel-rooms/01_threads/"
truncate -s 512M "$tmp/zip/parallel-rooms/zeros.bin"
tar -czf "$subs/zip.tar.gz" -C "$tmp/zip" parallel-rooms
rm -rf "$tmp/zip"

chmod -R a+rX "$subs"
chmod 755 "$tmp"
sandbox=on
grading/bin/grade --sandbox >/dev/null 2>&1 || sandbox=off

# attack AS: grades the class on a fresh 1 GiB tmpfs as root or as nobody; checks the table
attack() {
    local as=$1 fs=$tmp/fs-$1 rc left
    mkdir -p "$fs"
    if ! mount -t tmpfs -o size=1g,mode=1777 tmpfs "$fs"; then
        t_fail "as $as: could not mount a tmpfs for the scratch space"
        return
    fi
    mkdir -p "$fs/tmp" "$fs/out"
    chmod 1777 "$fs/tmp" "$fs/out"
    local run=(env TMPDIR="$fs/tmp" CLASS_OUT="$fs/out" ROOM=01 JOBS=2 "SANDBOX=$sandbox" PERF=off
               bash grading/tools/grade-class.sh "$subs")
    if [ "$as" = nobody ]; then
        chown 65534:65534 "$fs/tmp" "$fs/out"
        run=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$fs/out" "${run[@]}")
    fi
    timeout 900 "${run[@]}" > "$tmp/$as.log" 2>&1
    rc=$?
    local csv=$fs/out/class.csv
    local ann; ann=$(grep '^ann,' "$csv" 2>/dev/null | cut -d, -f1-9) # room 01's 8 tasks
    if [ "$as" = nobody ] && ! grep -q 'one student at a time, not JOBS=2: not root' "$tmp/$as.log"; then
        t_fail "as nobody, JOBS=2: the class run does not say it grades one student at a time: $(head -3 "$tmp/$as.log")"
    fi
    if [ $rc -eq 0 ] && [ "$ann" = "ann,PASS,PASS,PASS,PASS,PASS,PASS,PASS,PASS" ]; then
        t_pass "as $as, JOBS=2: the solved student passes 8 of 8 beside four saboteurs"
    else
        t_fail "as $as, JOBS=2: exit $rc, ann: '${ann:-no row}'; $(tail -4 "$tmp/$as.log" | tr '\n' ' ')"
    fi
    # dora really filled her space: the grader says so, in her report
    if grep -qs 'ran out of space' "$fs/out/students/dora/grade.log"; then
        t_pass "as $as: dora's run ran out of its own space, and her report says so"
    else
        t_fail "as $as: dora's report does not say she ran out of space: $(grep -m2 -A3 task1 "$fs/out/students/dora/grade.log" 2>/dev/null | tr '\n' ' ')"
    fi
    local s want
    for s in dora:2 sam:3 tess:4; do
        want=${s#*:}
        if grep "^${s%%:*}," "$csv" 2>/dev/null | cut -d, -f"$want" | grep -qvx PASS; then
            t_pass "as $as: ${s%%:*}'s attack fails her own task"
        else
            t_fail "as $as: ${s%%:*}'s row: $(grep "^${s%%:*}," "$csv" 2>/dev/null)"
        fi
    done
    if grep -q '^zip,.*PASS' "$csv" 2>/dev/null; then
        t_pass "as $as: the archive with 512 MiB of zeros is graded (its solved task passes)"
    else
        t_fail "as $as: zip's row: $(grep '^zip,' "$csv" 2>/dev/null)"
    fi
    # What stays behind: the class's reports and reference builds live under out/; the
    # scratch space (TMPDIR) must be empty of the runs' files.
    left=$(find "$fs/tmp" -mindepth 1 2>/dev/null | wc -l)
    if [ "$left" -lt 100 ]; then
        t_pass "as $as: $left files left in the scratch space"
    else
        t_fail "as $as: $left files left in the scratch space, for example $(find "$fs/tmp" -mindepth 1 | head -3 | tr '\n' ' ')"
    fi
    if pgrep -u 65534 -f "$fs" >/dev/null 2>&1 || pgrep -f "$fs/out/students" >/dev/null 2>&1; then
        t_fail "as $as: processes of the class run are still running"
    fi
    umount -l "$fs" 2>/dev/null
}
attack root
attack nobody
t_summary check-class-attacks "four saboteurs beside a solved student, as root and as nobody: the solved student passes, nothing fills, little is left"
