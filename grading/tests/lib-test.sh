# shellcheck shell=bash
# lib-test.sh -- what the test scripts share (sourced, not run): counting checks, one
# summary line that CI can read, scratch folders removed on exit.
#
#   . grading/tests/lib-test.sh        (T_NAME: the name on every line; default the
#                                       script's file name without .sh)
#   t_pass [MSG]       a check passed; MSG, when given, is printed: "NAME: ok: MSG"
#   t_fail MSG         a check failed: "NAME: FAILED: MSG"
#   t_skip REASON      a check was not made: "NAME: SKIP: REASON"
#   t_say MSG          a line of information: "NAME: MSG" (counts nothing)
#   t_tmpdir [PREFIX]  T_TMP=a new folder under $TMPDIR (default /tmp), removed on exit
#   t_cleanup COMMAND  COMMAND (a string, as for trap) is run on exit, the last added first
#   t_summary [NAME [TEXT]]   one line, and the status to exit with:
#       "NAME: ok: N passed[, K skipped][: TEXT]"   status 0
#       "NAME: FAILED: K of N"                      status 1 (a check failed)
#       "NAME: SKIP: REASON[; REASON...]"           status 0 (every check skipped)
#       "NAME: FAILED: nothing was checked"         status 1 (no check at all)
#   t_abort MSG [STATUS]   t_fail MSG, t_summary, exit STATUS (default 1): set-up failed
#
# A script that stops with a non-zero status before t_summary (set -u on an unset
# variable, a plain exit 1) still ends with a summary line: "NAME: FAILED: stopped
# (exit N) after P passed, K failed".  The cleanup runs from one EXIT trap of the
# script's shell (subshells, $(...) among them, do not run it; one that calls t_cleanup
# or t_tmpdir runs its own list on its exit).  An EXIT trap the script set before
# sourcing this (trap ... EXIT) is kept: it joins the list, first in, so it runs last.
# A script that sources this library sets no EXIT trap of its own afterwards (that
# would replace the list): it calls t_cleanup instead.  t_abort in a subshell ends the
# subshell only.

T_NAME=${T_NAME:-$(basename "$0" .sh)}
# The perf verdict (make grade's default) is check-perf's to test; elsewhere it would only
# add minutes of timing runs to every solved task a test grades.
export GRADE_PERF=${GRADE_PERF:-off}
t_passed=0 t_failed=0 t_skipped=0
t_skips=()
_t_cleanups=() _t_shell=$BASHPID _t_script=$BASHPID _t_summarized=0

t_pass() {
    t_passed=$((t_passed + 1))
    if [ $# -gt 0 ]; then echo "$T_NAME: ok: $*"; fi
    return 0
}
t_fail() {
    t_failed=$((t_failed + 1))
    echo "$T_NAME: FAILED: $*"
    return 0
}
t_skip() {
    t_skipped=$((t_skipped + 1))
    t_skips+=("$*")
    echo "$T_NAME: SKIP: $*"
    return 0
}
t_say() { echo "$T_NAME: $*"; }

t_summary() {
    local name=${1:-$T_NAME} text=${2:-} total=$((t_passed + t_failed)) skips
    _t_summarized=1
    if [ "$t_failed" -gt 0 ]; then
        echo "$name: FAILED: $t_failed of $total"
        return 1
    elif [ "$t_passed" -gt 0 ]; then
        echo "$name: ok: $t_passed passed$([ "$t_skipped" -gt 0 ] && echo ", $t_skipped skipped")${text:+: $text}"
        return 0
    elif [ "$t_skipped" -gt 0 ]; then
        skips=$(printf '; %s' "${t_skips[@]}")
        echo "$name: SKIP: ${skips#; }"
        return 0
    fi
    echo "$name: FAILED: nothing was checked"
    return 1
}

t_abort() {
    t_fail "$1"
    t_summary "$T_NAME"
    exit "${2:-1}"
}

_t_on_exit() {
    local rc=$? i
    for ((i = ${#_t_cleanups[@]} - 1; i >= 0; i--)); do
        eval "${_t_cleanups[i]}" || true
    done
    if [ "$rc" -ne 0 ] && [ "$_t_summarized" = 0 ] && [ "$BASHPID" = "$_t_script" ]; then
        echo "$T_NAME: FAILED: stopped (exit $rc) after $t_passed passed, $t_failed failed"
    fi
    return "$rc"
}

# _t_trap: the EXIT trap is _t_on_exit, and one set before becomes the list's first entry.
# In a subshell the list starts afresh (the inherited one belongs to the script's shell).
_t_trap() {
    local current words
    if [ "$BASHPID" != "$_t_shell" ]; then _t_cleanups=() _t_shell=$BASHPID; fi
    current=$(trap -p EXIT)
    if [ -n "$current" ] && [ "$current" != "trap -- '_t_on_exit' EXIT" ]; then
        # trap -p prints the trap quoted for the shell: "trap -- 'COMMAND' EXIT"
        eval "words=(${current#trap -- })"
        _t_cleanups=("${words[0]}" "${_t_cleanups[@]}")
    fi
    trap _t_on_exit EXIT
}

t_cleanup() {
    _t_trap
    _t_cleanups+=("$1")
}

t_tmpdir() {  # [PREFIX]
    T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/${1:-$T_NAME}.XXXXXX") || t_abort "cannot make a scratch folder" 2
    # (a test may leave read-only files behind: made writable first)
    t_cleanup "chmod -R u+w $(printf %q "$T_TMP") 2>/dev/null; rm -rf $(printf %q "$T_TMP")"
}

_t_trap
