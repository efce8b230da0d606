#!/usr/bin/env bash
# check-dictation.sh -- (maintainers) how much of each solution its task dictates.
#
# A TODO states the goal, not the code: a learner who types out the comment must
# not pass.  For every task this measures, over the solution's marked blocks
# (//@ solution { ... //@ }), against what the learner reads before asking for
# a second hint -- the task's header comment, its TODO text and hint 1:
#   lines  the block's code lines that appear written out there (spaces ignored);
#   names  the identifiers the blocks use that are named there (C keywords aside).
# The whole workbook must stay within 5% of lines and 45% of names (the targets of
# the exercise set); a room or task on its own is only reported.
#
#   bash grading/tests/check-dictation.sh [ROOM]     (ROOM=03 or 03_mpi: that room only, no verdict)
set -u
cd "$(dirname "$0")/../.." || exit 2
GRADE=${GRADE:-grading/bin/grade}
LINE_TARGET=5
NAME_TARGET=45
room=${1:-}
. grading/tests/lib-test.sh
t_tmpdir; tmp=$T_TMP

ids=$("$GRADE" --list | awk '$1 ~ /^[0-9][0-9]_[^\/]*\/task[0-9]+$/ { print $1 }')
[ -n "$ids" ] || t_abort "the grader lists no tasks" 2
if [ -n "$room" ]; then
    ids=$(awk -v r="$room" '{ split($1, p, "/"); if (p[1] == r || substr(p[1], 1, 2) == sprintf("%02d", r + 0)) print }' <<<"$ids")
    [ -n "$ids" ] || t_abort "no room '$room'" 2
fi

total_lines=0 total_written=0 total_names=0 total_named=0
printf '%-28s %14s %14s\n' task "lines dictated" "names named"
for id in $ids; do
    sol=""
    for f in "solutions/$id".c "solutions/$id".cu; do if [ -e "$f" ]; then sol=$f; break; fi; done
    [ -n "$sol" ] || t_abort "no solution for $id" 2
    # What the learner reads: the header comment, the TODO text, hint 1.
    "$GRADE" --hint "$id" --level 1 --no-record | sed -n 's/^hint 1 of [0-9]* ([^)]*): //p' > "$tmp/read"
    awk '
        NR == 1 || header { print; header = ($0 !~ /\*\//); next }
        /^[ \t]*\/\/@/ {
            t = $0; sub(/^[ \t]*\/\/@ ?/, "", t)
            if (t ~ /^solution \{/ || t ~ /^\}/ || t ~ /^placeholder:/ || t ~ /^bug:/) next
            print t
        }' header=1 "$sol" >> "$tmp/read"
    # The code the learner has to write: the marked blocks, comment lines aside.
    awk '
        /^[ \t]*\/\/@ solution \{/ { inblock = 1; next }
        /^[ \t]*\/\/@ \}/ { inblock = 0; next }
        inblock && !/^[ \t]*(\/\/|\/\*|\*[ \/]|\*$)/ && /[A-Za-z0-9]/ { print }' "$sol" > "$tmp/code"
    read -r lines written names named < <(awk '
        BEGIN {
            split("auto break case char const continue default do double else enum extern float for goto " \
                  "if inline int long register restrict return short signed sizeof static struct switch " \
                  "typedef union unsigned void volatile while _Bool bool true false", kw, " ")
            for (k in kw) keyword[kw[k]] = 1
        }
        FNR == 1 { file++ }
        file == 1 {
            text = text " " $0
            s = $0
            while (match(s, /[A-Za-z_][A-Za-z0-9_]*/)) { said[substr(s, RSTART, RLENGTH)] = 1; s = substr(s, RSTART + RLENGTH) }
            next
        }
        {
            lines++
            line = $0
            gsub(/"([^"\\]|\\.)*"/, "\"\"", line)   # string literals hold no names
            gsub(/\/\*.*\*\//, "", line); sub(/\/\/.*/, "", line)   # nor do comments
            flat = line; gsub(/[ \t]/, "", flat); sub(/^\}/, "", flat); sub(/[;{]+$/, "", flat)
            if (length(flat) >= 6 && index(squeezed(), flat)) written++
            s = line
            while (match(s, /[A-Za-z_][A-Za-z0-9_]*/)) {
                w = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
                if (!(w in keyword)) used[w] = 1
            }
        }
        function squeezed() { if (!done) { flat_text = text; gsub(/[ \t`*]/, "", flat_text); done = 1 } return flat_text }
        END {
            for (w in used) { names++; if (w in said) named++ }
            printf "%d %d %d %d\n", lines, written, names, named
        }' "$tmp/read" "$tmp/code")
    printf '%-28s %6d of %-5d %6d of %-5d\n' "$id" "$written" "$lines" "$named" "$names"
    total_lines=$((total_lines + lines)) total_written=$((total_written + written))
    total_names=$((total_names + names)) total_named=$((total_named + named))
done

pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }'; }
line_pct=$(pct "$total_written" "$total_lines")
name_pct=$(pct "$total_named" "$total_names")
echo "dictation: $line_pct% of solution lines written out (target <= $LINE_TARGET%)," \
     "$name_pct% of the names they use named (target <= $NAME_TARGET%)"
[ -n "$room" ] && exit 0
if awk -v l="$line_pct" -v n="$name_pct" -v lt="$LINE_TARGET" -v nt="$NAME_TARGET" 'BEGIN { exit !(l <= lt && n <= nt) }'; then
    t_pass
else
    t_fail "the TODOs and first hints dictate more than the targets allow"
fi
t_summary check-dictation "within $LINE_TARGET% of lines and $NAME_TARGET% of names"
