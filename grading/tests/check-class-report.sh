#!/usr/bin/env bash
# check-class-report.sh -- grading/bin/class-report end to end.
#
# Builds a class of students from real grader reports of room 01 -- the solutions
# (every task PASS) and the untouched tasks (every task FAIL) -- plus an error.txt,
# a corrupt report, a report of the wrong schema, a folder with no report, and a
# student whose folder name is HTML (a copy of the solutions' report); runs
# class-report and checks the CSV cell by cell (statuses, passed = PASS cells =
# the report's summary, graded, error, the TOTAL row) and that the HTML page has
# every untrusted text escaped and loads nothing from outside.
# Needs grading/bin/grade and grading/bin/class-report (built by make).
set -u
cd "$(dirname "$0")/../.." || exit 2
export NO_COLOR=1 LC_ALL=C
out=build/class-report-test
students=$out/students
. grading/tests/lib-test.sh
die() { t_abort "$*"; }

for tool in grading/bin/grade grading/bin/class-report; do
    [ -x "$tool" ] || die "$tool is missing: build it first (make)"
done
make --no-print-directory pristine >/dev/null || die "make pristine failed"
{ rm -rf "$out" && mkdir -p "$students"; } || die "cannot create $out"

# ---- the class ------------------------------------------------------------------------
# A folder name cannot hold '/', so no </script>: an opening tag, an attribute that would
# load something, and every character HTML must escape.
hostile='<script>alert(1)&"x'"'"'<img src=x onerror=alert(2)>'
grade_room01() { # grade_room01 TASKS_FROM JSON: the real grader's report of room 01
    grading/bin/grade --room 01 --tasks-from "$1" --quiet --json "$2" --junit "$out/junk.xml" >/dev/null 2>&1
    grep -q '"schema": "parallel-rooms/grade-report/1"' "$2" 2>/dev/null || die "the grader wrote no report for $1"
}
mkdir -p "$students/alice" "$students/bob" "$students/carol" "$students/dave" "$students/erin" \
         "$students/frank" "$students/$hostile"
grade_room01 solutions "$students/alice/grade-report.json"            # (a) every task PASS
# (b) every task started (a line added to the untouched file) and none done: every task FAIL
mkdir -p "$out/started/01_threads"
for f in build/pristine/01_threads/task*; do { cat "$f"; echo "/* started */"; } > "$out/started/01_threads/${f##*/}"; done
grade_room01 "$out/started" "$students/bob/grade-report.json"
echo "empty submission" > "$students/carol/error.txt"                 # (c) the driver's reason
printf '{"schema": "parallel-rooms/grade-report/1", "tasks": [ {"id": ' \
    > "$students/dave/grade-report.json"                               # (d) cut short: not JSON
: # (e) erin: neither a report nor error.txt
sed 's|parallel-rooms/grade-report/1|parallel-rooms/grade-report/0|' \
    "$students/alice/grade-report.json" > "$students/frank/grade-report.json"  # the wrong schema
cp "$students/alice/grade-report.json" "$students/$hostile/"          # (f) a name that is HTML
echo "not a student" > "$students/notes.txt"                          # a file: not a student

html=$out/class.html csv=$out/class.csv
text=$(grading/bin/class-report --root . --students "$students" --csv "$csv" --html "$html" \
       --title 'Class <b>3</b> & "friends"' 2>&1); status=$?
if [ $status -eq 0 ]; then t_pass; else t_fail "class-report exited with $status: $text"; fi
{ [ -s "$csv" ] && [ -s "$html" ]; } || die "class-report wrote no CSV or no HTML: $text"

# ---- reading the CSV --------------------------------------------------------------------
# csv_fields NAME: the fields of NAME's row (the first field; TOTAL for the last row), one
# per line, unquoted.  RFC 4180 as class-report writes it; no field of this class spans lines.
csv_fields() {
    awk -v want="$1" '
        function split_csv(line, f,    n, i, c, q, cur) {
            n = 0; q = 0; cur = ""
            for (i = 1; i <= length(line); i++) {
                c = substr(line, i, 1)
                if (q && c == "\"" && substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ }
                else if (c == "\"") q = !q
                else if (c == "," && !q) { f[++n] = cur; cur = "" }
                else cur = cur c
            }
            f[++n] = cur
            return n
        }
        { sub(/\r$/, ""); n = split_csv($0, f); if (f[1] == want) { for (i = 1; i <= n; i++) print f[i]; exit } }
    ' "$csv"
}
# report_count JSON KEY: a count from the report's "summary" (KEY: total, PASS, FAIL, ...)
report_count() {
    awk -v key="\"$2\":" '/"summary"/ { s = 1 } s && index($0, key) { gsub(/[^0-9]/, ""); print; exit }' "$1"
}

mapfile -t header < <(csv_fields student)
mapfile -t task_ids < <(grading/bin/grade --list | awk 'NF && $1 ~ /\// { print $1 }')
ntasks=${#task_ids[@]}
expected_header=$(printf '%s\n' student "${task_ids[@]}" passed graded error)
if [ "$(printf '%s\n' "${header[@]}")" = "$expected_header" ]; then
    t_pass
else
    t_fail "the CSV header is not student, the $ntasks task ids in workbook order, passed, graded, error: ${header[*]}"
fi
if [ "$ntasks" -gt 5 ]; then t_pass; else t_fail "only $ntasks tasks in the workbook: expected every room's"; fi
expected_rows=$(printf '%s\n' "$hostile" alice bob carol dave erin frank TOTAL)
actual_rows=$(for name in "$hostile" alice bob carol dave erin frank TOTAL; do csv_fields "$name" | head -1; done)
if [ "$actual_rows" = "$expected_rows" ]; then t_pass; else t_fail "missing rows: got ${actual_rows//$'\n'/ }"; fi
sorted=$(awk -F, 'NR > 1 { print $1 }' "$csv" | sed 's/^"//; s/"".*//' | head -n -1)
if [ "$sorted" = "$(sort <<<"$sorted")" ]; then t_pass; else t_fail "the student rows are not sorted by name"; fi

# check_graded NAME ROOM01_STATUS: room 01's cells all ROOM01_STATUS, every other MISSING;
# passed = PASS cells = the report's summary PASS; graded = the report's task count.
check_graded() {
    local name=$1 want=$2 json=$students/$1/grade-report.json i cell passes=0
    mapfile -t row < <(csv_fields "$name")
    [ ${#row[@]} -eq $((ntasks + 4)) ] || { t_fail "$name: ${#row[@]} fields, expected $((ntasks + 4))"; return; }
    for ((i = 0; i < ntasks; i++)); do
        cell=${row[i + 1]}
        [ "$cell" = PASS ] && passes=$((passes + 1))
        case ${task_ids[i]} in
        01_*) if [ "$cell" = "$want" ]; then t_pass; else t_fail "$name: ${task_ids[i]} is '$cell', expected $want"; fi ;;
        *) if [ "$cell" = MISSING ]; then t_pass; else t_fail "$name: ${task_ids[i]} is '$cell', expected MISSING (not in the report)"; fi ;;
        esac
    done
    local passed=${row[ntasks + 1]} graded=${row[ntasks + 2]} error=${row[ntasks + 3]}
    if [ "$passed" = "$passes" ]; then t_pass; else t_fail "$name: passed is '$passed' but the row has $passes PASS cells"; fi
    if [ "$passed" = "$(report_count "$json" PASS)" ]; then
        t_pass
    else
        t_fail "$name: passed is '$passed' but the report's summary says PASS $(report_count "$json" PASS)"
    fi
    if [ "$graded" = "$(report_count "$json" total)" ] && [ "$graded" = "$(grep -c '^      "id":' "$json")" ]; then
        t_pass
    else
        t_fail "$name: graded is '$graded' but the report has $(report_count "$json" total) tasks"
    fi
    if [ -z "$error" ]; then t_pass; else t_fail "$name: a graded student with an error: $error"; fi
}
# check_error NAME PATTERN: every task, passed and graded empty; error matches PATTERN.
check_error() {
    local name=$1 pattern=$2
    mapfile -t row < <(csv_fields "$name")
    [ ${#row[@]} -eq $((ntasks + 4)) ] || { t_fail "$name: ${#row[@]} fields, expected $((ntasks + 4))"; return; }
    local cells
    cells=$(printf '%s' "${row[@]:1:ntasks+2}")
    if [ -z "$cells" ]; then t_pass; else t_fail "$name: an error row with task cells or counts: $cells"; fi
    if grep -Eq -- "$pattern" <<<"${row[ntasks + 3]}"; then t_pass; else t_fail "$name: error is '${row[ntasks + 3]}', expected /$pattern/"; fi
}

check_graded alice PASS
check_graded bob FAIL
check_graded "$hostile" PASS
check_error carol '^empty submission$'
check_error dave '^unreadable report: .*line'
check_error erin '^no report: grading did not finish$'
check_error frank '^unreadable report: schema .parallel-rooms/grade-report/0.'
if grep -qF '"<script>alert(1)&""x'"'"'<img src=x onerror=alert(2)>",' "$csv"; then t_pass; else t_fail "the hostile name is not quoted with its quote doubled"; fi

# TOTAL: per task the students with PASS in that column; passed and graded summed; error rows.
mapfile -t total < <(csv_fields TOTAL)
if [ ${#total[@]} -ne $((ntasks + 4)) ]; then
    t_fail "the TOTAL row has ${#total[@]} fields, expected $((ntasks + 4))"
else
    for ((i = 0; i < ntasks; i++)); do
        column_passes=$(awk -F, -v c=$((i + 2)) 'NR > 1 && $c == "PASS"' "$csv" | wc -l)
        want=0; [[ ${task_ids[i]} == 01_* ]] && want=2
        if [ "${total[i + 1]}" = "$column_passes" ] && [ "$column_passes" = "$want" ]; then
            t_pass
        else
            t_fail "TOTAL for ${task_ids[i]} is '${total[i + 1]}': $column_passes PASS in its column, expected $want"
        fi
    done
    n01=$(printf '%s\n' "${task_ids[@]}" | grep -c '^01_')
    if [ "${total[ntasks + 1]}" = $((2 * n01)) ] && [ "${total[ntasks + 2]}" = $((3 * n01)) ] && [ "${total[ntasks + 3]}" = 4 ]; then
        t_pass
    else
        t_fail "TOTAL passed/graded/error are ${total[*]:ntasks+1}, expected $((2 * n01)) $((3 * n01)) 4"
    fi
fi

# ---- the HTML ----------------------------------------------------------------------------
if grep -Eqi '<(script|img)' "$html"; then t_fail "the HTML has an unescaped tag: $(grep -Eio '.{30}<(script|img).{30}' "$html" | head -3)"; else t_pass; fi
if grep -qF '&lt;script&gt;alert(1)&amp;&quot;x&#39;&lt;img src=x onerror=alert(2)&gt;' "$html"; then t_pass; else t_fail "the hostile name is not in the HTML, escaped"; fi
if grep -q '<title>Class &lt;b&gt;3&lt;/b&gt; &amp; &quot;friends&quot; &mdash; 7 students &mdash; ' "$html"; then
    t_pass
else
    t_fail "the page title (escaped, with the class size) is wrong: $(grep -o '<title>.*</title>' "$html")"
fi
# (attribute values dropped first: escaped text may read "src=" but is no attribute)
if sed -E 's/"[^"]*"//g' "$html" | grep -Eqi '<[^>]*(src|href)=|<link|@import|url\('; then
    t_fail "the HTML loads something from outside"
else
    t_pass
fi
for reason in 'empty submission' 'no report: grading did not finish' 'unreadable report: '; do
    if grep -qF "$reason" "$html"; then t_pass; else t_fail "the HTML does not list the error '$reason'"; fi
done
# Only room 01 was graded: its card has the bars, the other rooms say so instead of 0%.
if awk '/<h3>01_threads /,/<\/div>/' "$html" | grep -q 'class="rates"'; then t_pass; else t_fail "room 01's card has no pass rates"; fi
for r in 02_processes 06_data_parallel; do
    if awk "/<h3>$r /,/<\\/div>/" "$html" | grep -q 'not graded in this run'; then
        t_pass
    else
        t_fail "room $r (not graded) is not marked 'not graded in this run' in the HTML"
    fi
done
if grep -q 'title="01_threads/task1: FAIL &mdash; \[threads=' "$html"; then
    t_pass
else
    t_fail "no tooltip with the first message line of a failing task"
fi
if grep -q '>01_threads/task1</td><td><span class="tag fail">FAIL' "$html"; then
    t_pass
else
    t_fail "'who is stuck where' does not show bob stuck on 01_threads/task1"
fi

# ---- usage errors -------------------------------------------------------------------------
text=$(grading/bin/class-report --root . --students "$out/nowhere" --csv "$out/x.csv" --html "$out/x.html" 2>&1)
status=$?
if [ $status -eq 2 ] && [ "$text" = "class-report: --students $out/nowhere: no such folder" ]; then
    t_pass
else
    t_fail "a missing --students folder: exit $status, '$text'"
fi
text=$(grading/bin/class-report --root . --csv "$out/x.csv" --html "$out/x.html" 2>&1); status=$?
if [ $status -eq 2 ] && [ "$(wc -l <<<"$text")" -eq 1 ]; then t_pass; else t_fail "no --students: not a one-line usage error: $text"; fi

t_summary check-class-report "${#task_ids[@]} task columns, 7 students, CSV $csv, HTML $html"
