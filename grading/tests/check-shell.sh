#!/usr/bin/env bash
# check-shell.sh [--list] -- shellcheck over every shell script of the workbook (make test).
#
# The scripts are found, not listed by hand: every file git tracks or would track (git
# ls-files: new files too, not ignored ones; where this is no git checkout, every file
# outside build/ and .git/) that is named *.sh or *.slurm, or whose first line is a sh
# or bash #!, or that says "# shellcheck shell=" near its top (the sourced ones).  shellcheck -x follows what they source; .shellcheckrc at
# the top holds the project's settings.  Installs nothing: without shellcheck it says
# how to get it and exits 1 (make test's `deps.sh ensure test` installs it as root).
# --list: print the scripts and stop.
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh

is_shell_script() {
    if [ ! -f "$1" ] || [ -L "$1" ]; then return 1; fi
    case $1 in *.sh | *.slurm) return 0 ;; esac
    local first
    IFS= read -r first <"$1" 2>/dev/null
    [[ $first =~ ^\#!\ *(/usr/bin/env\ +|/usr/bin/|/bin/)(ba)?sh([[:space:]]|$) ]] && return 0
    head -n 5 "$1" | grep -qE '^# shellcheck shell=(ba)?sh'
}

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t candidates < <(git ls-files -c -o --exclude-standard)  # tracked, and new ones
else
    mapfile -t candidates < <(find . \( -path ./build -o -path ./.git \) -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort)
fi
scripts=()
for f in "${candidates[@]}"; do
    if [ -e "$f" ] && is_shell_script "$f"; then scripts+=("$f"); fi
done

if [ "${1:-}" = --list ]; then
    printf '%s\n' "${scripts[@]}"
    exit 0
fi
[ ${#scripts[@]} -gt 0 ] || t_abort "no shell scripts found"
if ! command -v shellcheck >/dev/null 2>&1; then
    t_fail "shellcheck is not installed: sudo apt-get install shellcheck (Fedora: sudo dnf install ShellCheck), or make deps"
    t_summary
    exit 1
fi

# One run over them all (one line a finding), then the scripts with findings again in
# the tool's own format, which shows each line.
version=$(shellcheck --version | sed -n 's/^version: //p')
findings=$(shellcheck -x -f gcc "${scripts[@]}" 2>&1)
mapfile -t failing < <(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: .*/\1/p' <<<"$findings" | LC_ALL=C sort -u)
if [ -n "$findings" ] && [ ${#failing[@]} -eq 0 ]; then
    t_fail "shellcheck $version failed: $findings"
else
    [ ${#failing[@]} -eq 0 ] || shellcheck -x "${failing[@]}"
    for f in "${scripts[@]}"; do
        if printf '%s\n' "${failing[@]}" | grep -qxF -- "$f"; then
            t_fail "$f: $(grep -c "^$f:" <<<"$findings") finding(s)"
        else
            t_pass
        fi
    done
fi
t_summary check-shell "shellcheck $version finds nothing in these scripts"
