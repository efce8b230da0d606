#!/usr/bin/env bash
# deps.sh -- what the workbook needs, and installing it.
#
#   deps.sh ensure grade|test|class   check what that job needs; when something is missing,
#                               install it (Debian/Ubuntu, as root) or print what to
#                               install and exit 1
#   deps.sh install all         install everything the rooms can use (root), or print it
#   deps.sh check all           report only (exit 1 when something required is missing)
#   deps.sh flags               the compiler flags for the libraries fetched into the checkout
#
# Without root, a library the grader needs (jansson, inih; CUnit for make test) that the
# machine lacks is fetched from the distribution's own packages into the checkout,
# build/deps/root (apt-get download + dpkg-deb -x, or dnf download + rpm2cpio), and the
# Makefile builds against it (-I, -L and an rpath there): nothing is installed system-wide.
set -u
action=${1:-check}
job=${2:-all}
CC=${CC:-cc}

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
deps_root=$top/build/deps/root
deps_flags() {  # -I/-L/-rpath for $deps_root (the Makefile passes the same)
    local arch d
    arch=$("$CC" -print-multiarch 2>/dev/null)
    printf -- '-I%s/usr/include' "$deps_root"
    for d in ${arch:+"usr/lib/$arch"} usr/lib64 usr/lib; do
        printf -- ' -L%s/%s -Wl,-rpath,%s/%s' "$deps_root" "$d" "$deps_root" "$d"
    done
    echo
}
if [ "$action" = flags ]; then deps_flags; exit 0; fi

missing_pkgs=()   # Debian package names
missing_what=()   # human words

optional_pkgs=()  # extras the rooms do without: installed as root, otherwise only named
optional_what=()

need() { missing_pkgs+=("$1"); missing_what+=("$2"); }
want() { optional_pkgs+=("$1"); optional_what+=("$2"); }

# Compiles a tiny program against a library: the real test of "installed".
can_link() {  # header lib
    local tmp; tmp=$(mktemp -d)
    printf '#include <%s>\nint main(void){return 0;}\n' "$1" > "$tmp/t.c"
    # shellcheck disable=SC2046  # deps_flags prints plain words (the checkout's path aside)
    "$CC" "$tmp/t.c" -o "$tmp/t" $(deps_flags) "$2" >/dev/null 2>&1
    local rc=$?
    rm -rf "$tmp"
    return $rc
}

check_grade() {
    command -v "$CC" >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || need gcc "a C compiler (gcc)"
    command -v make >/dev/null 2>&1 || need make "make"
    if command -v "$CC" >/dev/null 2>&1; then
        can_link jansson.h -ljansson || need libjansson-dev "the jansson JSON library (reports)"
        can_link ini.h -linih || need libinih-dev "the inih INI reader (task metadata)"
        # OpenMP comes with gcc; say so if this compiler lacks it.
        local tmp; tmp=$(mktemp -d)
        printf '#include <omp.h>\nint main(void){return omp_get_max_threads() > 0 ? 0 : 1;}\n' > "$tmp/o.c"
        "$CC" -fopenmp "$tmp/o.c" -o "$tmp/o" >/dev/null 2>&1 || need libgomp1 "OpenMP support for $CC (libgomp)"
        rm -rf "$tmp"
    else
        # Without a compiler nothing can be tried: the libraries come with it.
        need libjansson-dev "the jansson JSON library (reports)"
        need libinih-dev "the inih INI reader (task metadata)"
    fi
    # The sandbox for the learner's builds and runs: make grade does without it, and says so.
    command -v bwrap >/dev/null 2>&1 || want bubblewrap "bubblewrap (make grade builds and runs your tasks in a sandbox with it)"
    # MPI for rooms 03, 05 and 06: installed with the rest as root; without root make grade
    # names it and grades the other rooms (the MPI ones SKIP). The checks need it ($mpi).
    { command -v mpicc && command -v mpiexec; } >/dev/null 2>&1 ||
        "$mpi" "mpich libmpich-dev" "MPI (MPICH: mpicc, mpiexec) for the MPI rooms (03, 05, 06)"
}
mpi=want

check_test() {
    mpi=need # the maintainers' checks grade the MPI rooms too: a SKIP there would check nothing
    check_grade
    command -v git >/dev/null 2>&1 || need git "git (the generated-task check reads the committed files)"
    if command -v "$CC" >/dev/null 2>&1; then
        can_link CUnit/Basic.h -lcunit || need libcunit1-dev "CUnit (the grader's unit tests)"
    else
        need libcunit1-dev "CUnit (the grader's unit tests)"
    fi
    command -v g++ >/dev/null 2>&1 || need g++ "g++ (the CUDA CPU simulator compiles CUDA as C++)"
    command -v unzip >/dev/null 2>&1 || need unzip "unzip (class grading reads .zip submissions)"
    command -v zip >/dev/null 2>&1 || need zip "zip (the class-grading test makes a .zip submission)"
    command -v shellcheck >/dev/null 2>&1 || need shellcheck "shellcheck (make check-shell lints the workbook's scripts)"
    command -v bwrap >/dev/null 2>&1 || need bubblewrap "bubblewrap (check-sandbox grades cheating submissions in the sandbox)"
    command -v python3 >/dev/null 2>&1 || need python3 "python3 (check-sandbox's network cheat talks to a small server)"
}

check_class() {
    check_grade
    command -v python3 >/dev/null 2>&1 || need python3 "python3 (class grading unpacks .tar.gz and .zip submissions with limits)"
    # Class grading runs every student's code in the sandbox, unless SANDBOX=off.
    if [ "${SANDBOX:-}" != off ]; then
        command -v bwrap >/dev/null 2>&1 || need bubblewrap "bubblewrap (class grading's sandbox; SANDBOX=off grades without it)"
    fi
}

check_all() {
    check_test
    # Optional extras, installed by `make deps` only: the bench's plots, make watch's inotify.
    command -v gnuplot >/dev/null 2>&1 || want gnuplot-nox "gnuplot (make bench's plots)"
    command -v inotifywait >/dev/null 2>&1 || want inotify-tools "inotifywait (make watch without polling)"
}

case "$job" in
    grade) check_grade ;;
    test) check_test ;;
    class) check_class ;;
    all) check_all ;;
    *) echo "deps.sh: unknown job '$job' (grade, test, class or all)" >&2; exit 2 ;;
esac

# Fedora's names for the Debian packages named here.
fedora() {
    echo "$1" | sed -e 's/libjansson-dev/jansson-devel/; s/libinih-dev/inih-devel/; s/libcunit1-dev/CUnit-devel/;
        s/libmpich-dev/mpich-devel/; s/libgomp1/libgomp/; s/gnuplot-nox/gnuplot/; s/shellcheck/ShellCheck/'
}

# The libraries that can be fetched into the checkout (a package with headers and a .so).
fetchable() { case "$1" in libjansson-dev|libinih-dev|libcunit1-dev) return 0 ;; esac; return 1; }

# Fetches the Debian packages named (and the libraries they depend on that are not
# installed) into build/deps/root; returns 1 where that is not possible.
fetch_debian() {
    command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 || return 1
    local dl=$top/build/deps/debs get=() p d
    for p in "$@"; do
        get+=("$p")
        while read -r d; do
            dpkg -s "$d" >/dev/null 2>&1 || get+=("$d")
        done < <(apt-cache depends --no-recommends --no-suggests "$p" 2>/dev/null | awk '$1 == "Depends:" && $2 !~ /^</ { print $2 }')
    done
    mkdir -p "$dl" "$deps_root" || return 1
    echo "deps: fetching ${get[*]} with apt-get download into build/deps (nothing is installed system-wide)"
    (cd "$dl" && apt-get download "${get[@]}") || return 1
    for p in "$dl"/*.deb; do dpkg-deb -x "$p" "$deps_root" || return 1; done
}
fetch_fedora() {  # the same with dnf (Fedora, RHEL, Rocky): Debian names in, Fedora's used
    command -v dnf >/dev/null 2>&1 && command -v rpm2cpio >/dev/null 2>&1 && command -v cpio >/dev/null 2>&1 || return 1
    local dl=$top/build/deps/rpms p
    mkdir -p "$dl" "$deps_root" || return 1
    # shellcheck disable=SC2046  # fedora prints the package names as words
    dnf download --resolve --destdir "$dl" $(fedora "$*") || return 1
    for p in "$dl"/*.rpm; do (cd "$deps_root" && rpm2cpio "$p" | cpio -idm --quiet) || return 1; done
}

# Not root: the missing libraries come into the checkout, then everything is checked again.
if [ "$action" = ensure ] && [ "$(id -u)" != 0 ]; then
    libs=()
    for p in "${missing_pkgs[@]}"; do fetchable "$p" && libs+=("$p"); done
    if [ ${#libs[@]} -gt 0 ]; then
        if fetch_debian "${libs[@]}" || fetch_fedora "${libs[@]}"; then
            missing_pkgs=() missing_what=() optional_pkgs=() optional_what=()
            case "$job" in grade) check_grade ;; test) check_test ;; class) check_class ;; all) check_all ;; esac
        else
            echo "deps: could not fetch ${libs[*]} into build/deps (neither apt-get download nor dnf download worked here)." >&2
            echo "deps: ask for them to be installed, load them as modules, or build jansson and inih from their sources" >&2
            echo "      with --prefix=$deps_root (the Makefile looks there)." >&2
        fi
    fi
fi

if [ "$action" != check ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    all=("${missing_pkgs[@]}" "${optional_pkgs[@]}")
    [ ${#all[@]} -eq 0 ] && { [ "$action" = install ] && echo "deps: everything is installed"; exit 0; }
    echo "deps: missing:"
    for w in "${missing_what[@]}" "${optional_what[@]}"; do echo "  - $w"; done
    # (an entry may name two packages: "mpich libmpich-dev")
    read -r -a apt_pkgs <<<"${all[*]}"
    echo "deps: installing with apt-get: ${apt_pkgs[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q "${apt_pkgs[@]}"; then
        { apt-get update -q && apt-get install -y -q "${apt_pkgs[@]}"; } || { echo "deps: apt-get failed" >&2; exit 1; }
    fi
    exit 0
fi

if [ ${#optional_pkgs[@]} -gt 0 ]; then
    echo "deps: optional, not installed (the grading goes on without them; what needs one is skipped):"
    for w in "${optional_what[@]}"; do echo "  - $w"; done
    echo "  to add them:  sudo apt-get install ${optional_pkgs[*]}   (Fedora/RHEL: sudo dnf install $(fedora "${optional_pkgs[*]}"))"
fi
if [ ${#missing_pkgs[@]} -eq 0 ]; then
    [ "$action" = install ] && echo "deps: everything required is installed"
    exit 0
fi

echo "deps: missing:"
for w in "${missing_what[@]}"; do echo "  - $w"; done
pkgs="${missing_pkgs[*]}"
cat >&2 <<MSG
deps: please install them, then run the command again:
  Debian/Ubuntu:  sudo apt-get install $pkgs
  Fedora/RHEL:    sudo dnf install $(fedora "$pkgs")
  a cluster:      module load gcc mpich   (names differ per site: module avail)
MSG
exit 1
