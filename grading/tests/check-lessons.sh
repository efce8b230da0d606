#!/usr/bin/env bash
# check-lessons.sh -- the lessons' limits (grading/tools/lesson-stats.py --check): room 04's
# README at most 9,000 words of prose, rooms 04-06 at most 18 words a sentence, every task's
# reading path at most 150 lines, every link and "Read first" title landing on a heading.
# First the check itself, on a small made-up room: it must fail on each kind of problem.
set -u
cd "$(dirname "$0")/../.." || exit 2
tool=grading/tools/lesson-stats.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
room=$tmp/04_made_up
mkdir -p "$room"
{
    echo "# Room 04: made up"
    echo "## Reading path"
    echo "| task | read first |"
    echo "|---|---|"
    echo "| task1 | [Long](#long), [Gone](#gone) |"
    echo "## Long"
    for i in $(seq 1 160); do echo "Line $i of a long section. It says one thing."; done
    echo "## Short"
    echo "See [the long one](#long)."
} >"$room/README.md"
printf '/*\n * Read first: README.md, "Short", "Not a heading".\n */\nint main(void) { return 0; }\n' >"$room/task1.cu"
printf '/*\n * Read first: README.md, "Short".\n */\nint main(void) { return 0; }\n' >"$room/task2.cu"
bad=0
out=$(python3 "$tool" --check --root "$tmp" 04_made_up 2>&1)
rc=$?
for want in "task1's reading path is 161 lines, above 150" "the link (#gone) lands on no heading" \
            "names 'Not a heading'" "task2 has no row in the reading path" \
            "task1.cu: its 'Read first' line and its reading-path row differ"; do
    if ! grep -qF "$want" <<<"$out"; then
        echo "check-lessons: FAIL: the made-up room's problem \"$want\" was not reported"
        bad=1
    fi
done
[ $rc -eq 1 ] || { echo "check-lessons: FAIL: --check exited $rc on a broken room, not 1"; bad=1; }
# mended, it passes
sed -i 's/, \[Gone\](#gone)//; s/| task1 | \[Long\](#long)/| task1 | [Short](#short)/' "$room/README.md"
echo "| task2 | [Short](#short) |" >"$tmp/row"
sed -i "/^| task1 /r $tmp/row" "$room/README.md"
sed -i 's/, "Not a heading"//' "$room/task1.cu"
if ! out=$(python3 "$tool" --check --root "$tmp" 04_made_up 2>&1); then
    echo "check-lessons: FAIL: the mended made-up room still fails:"
    echo "$out"
    bad=1
fi
[ $bad -eq 0 ] || exit 1
# then the workbook's own lessons
mkdir -p build
if ! python3 "$tool" --check >build/lesson-stats.txt 2>&1; then
    grep '^lesson-stats:' build/lesson-stats.txt
    echo "check-lessons: FAIL: the lessons break a limit (all figures: build/lesson-stats.txt)"
    exit 1
fi
longest=$(grep '^READ' build/lesson-stats.txt | sort -k4 -n | tail -n 1)
echo "check-lessons: ok: room 04's README $(grep -o '^04_[a-z_]*/README.md: [0-9]* words' build/lesson-stats.txt | grep -o '[0-9]* words') of prose, the longest reading path: ${longest#READ }"
