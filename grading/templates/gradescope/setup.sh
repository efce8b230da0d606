#!/usr/bin/env bash
# Gradescope: setup.sh -- run once, as root, when Gradescope builds the autograder's image.
#
# The autograder zip an instructor uploads is a checkout of the workbook with this file and
# run_autograder added at its top (docs/instructors.md, "Gradescope"):
#
#     git archive -o autograder.zip HEAD
#     zip -j autograder.zip grading/templates/gradescope/setup.sh grading/templates/gradescope/run_autograder
#
# Gradescope unpacks it into /autograder/source/, which is then the workbook's checkout (a
# checkout one level down, in source/source/, is found too).  This installs what the workbook
# needs with the workbook's own `make deps` (compilers, OpenMP, MPICH, the grader's libraries,
# bubblewrap, unzip; not the CUDA toolkit: CUDA tasks run in the workbook's CPU simulator) and
# builds the grader.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/source/Makefile" ]; then wb=$here/source; else wb=$here; fi
[ -f "$wb/grading/tools/grade-class.sh" ] ||
    { echo "setup.sh: no workbook checkout beside this file (expected it in $here)" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive
# make deps needs make; the results file is finished with python3.
apt-get update -q
apt-get install -y -q make python3 ca-certificates
make -C "$wb" deps
make -C "$wb" all
# The grader and the reference solutions: readable by the unprivileged user that grades a
# submission where no sandbox can be had (run_autograder), written by no one but root.
chmod -R go+rX,go-w "$wb"
