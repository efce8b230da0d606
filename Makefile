# Parallel Rooms -- the workbook's commands.  `make help` lists them.
#
#   make grade [ROOM=01] [TASK=01_threads/task2]   grade your tasks
#   make test                                      the maintainers' checks
#
# Variables: ROOM, TASK, CC, MPICC, MPIEXEC, MPIEXEC_FLAGS, NVCC, CUDA_ARCH,
# GRADE_TIMEOUT_SCALE (multiplies every timeout), NO_COLOR, V=1 (echo commands),
# SANDBOX=auto|on|off (the learner's builds and runs in bubblewrap: auto by default).

SHELL := /bin/bash
# The checks share build/bin: never run them side by side.
.NOTPARALLEL:
.DEFAULT_GOAL := all

ifneq ($(V),1)
Q := @
endif

GRADER_CFLAGS ?= -std=c11 -O2 -g -Wall -Wextra
GRADER_LIBS := -ljansson -linih
# Libraries fetched into the checkout where they could not be installed (no root:
# grading/tools/deps.sh, build/deps/root): searched first, found again at run time (rpath).
GRADER_DEPFLAGS = $(shell $(DEPS) flags)
CORE_SRC := grading/src/util.c grading/src/runner.c grading/src/results.c grading/src/kinds.c \
            grading/src/meta.c grading/src/launchers.c grading/src/toolchain.c grading/src/grades.c \
            grading/src/report.c grading/src/policy.c grading/src/grader.c grading/src/gen.c grading/src/progress.c \
            grading/src/sandbox.c grading/src/perf.c grading/src/work.c
CORE_HDR := $(wildcard grading/src/*.h)
GRADE    := grading/bin/grade
PRGEN    := grading/bin/prgen
UNIT     := grading/bin/unit-tests
CLASS_REPORT := grading/bin/class-report
SANDBOX_INIT := grading/bin/sandbox-init
SIMPP    := grading/bin/simpp
DEPS     := bash grading/tools/deps.sh
DEPS_OK  := grading/bin/.deps-grade-ok

# A failing `make grade` typed by a person ends with the grader's own summary, not make's
# "*** [Makefile:NN: grade] Error 1" under it: make is stopped quietly (SIGINT, which no
# shell reports; exit status 130).  Inside another make or a script's make (MAKELEVEL > 0)
# the failure is passed on as usual.  Only a make that catches SIGINT is stopped so (its
# SigCgt in /proc has SIGINT's bit, 0x2: a make started with SIGINT ignored, as a
# background job of a script is, would not stop, and would exit 0); the recipe's shell
# exits 0 only once make has taken the signal (its handler resets SIGINT: the bit goes);
# make's handler waits for the shell, and a shell gone before that is reaped twice ("wait:
# No child processes") or, under load, lets make exit 0.  Otherwise, and where /proc cannot
# tell within 10 s, the shell exits with the grader's status: make's error line shows, the
# status stays non-zero.
SIGINT_CAUGHT = { cgt=$$(awk '/^SigCgt:/ { print $$2 }' /proc/$$PPID/status 2>/dev/null); [ -n "$$cgt" ] && [ $$((0x$$cgt & 2)) -ne 0 ]; }
QUIET_FAILURE = { rc=$$?; if [ "$(MAKELEVEL)" = 0 ] && $(SIGINT_CAUGHT); then kill -INT $$PPID; \
                    for i in $$(seq 100); do $(SIGINT_CAUGHT) || exit 0; sleep 0.1; done; fi; exit $$rc; }

# ROOM / TASK filters for the grader.
GRADE_FILTER := $(if $(ROOM),--room $(ROOM)) $(if $(TASK),--task $(TASK))
# V=1: the grader prints every command it runs; GRADESCOPE=path: also Gradescope's results.json.
GRADE_OPTS := $(if $(filter 1,$(V)),--verbose) $(if $(GRADESCOPE),--gradescope '$(GRADESCOPE)')

.PHONY: all list grade test test-fresh unit-test check-cheats check-dictation check-lessons check-generated check-solutions check-tasks check-hostile check-sim check-gpu test-cluster test-openmpi check-class check-gradescope check-class-html check-deps check-bench check-shell check-grade-cli check-sandbox sanitize sanitize-gpu gpu-session \
        check-learner-loop stress fuzz check-data-safety test-container lesson-overlap \
        pristine generate doctor deps hint reset grade-class progress watch diff bench clean help

all: $(GRADE) $(PRGEN) $(CLASS_REPORT)

# The grader comes with what its sandbox runs inside (sandbox-init) and the simulator's
# pre-pass (simcc would build it on first use, which a read-only sandbox cannot).
$(GRADE): grading/src/main.c $(CORE_SRC) $(CORE_HDR) | $(DEPS_OK) $(SANDBOX_INIT) $(SIMPP)
	@mkdir -p grading/bin
	$(Q)$(CC) $(GRADER_CFLAGS) -o $@ grading/src/main.c $(CORE_SRC) $(GRADER_DEPFLAGS) $(GRADER_LIBS)

# What make grade needs (a C compiler first of all) is checked, and installed as root,
# before anything is compiled (once: make clean, or removing the stamp, checks again).
$(DEPS_OK):
	$(Q)$(DEPS) ensure grade
	@mkdir -p $(@D) && touch $@

$(SANDBOX_INIT): grading/src/sandbox_init.c | $(DEPS_OK)
	@mkdir -p grading/bin
	$(Q)$(CC) $(GRADER_CFLAGS) -o $@ grading/src/sandbox_init.c

$(SIMPP): grading/sim/simpp.c | $(DEPS_OK)
	@mkdir -p grading/bin
	$(Q)$(CC) -O2 -o $@ grading/sim/simpp.c

$(CLASS_REPORT): grading/src/classreport.c $(CORE_SRC) $(CORE_HDR) | $(DEPS_OK)
	@mkdir -p grading/bin
	$(Q)$(CC) $(GRADER_CFLAGS) -Igrading/src -o $@ grading/src/classreport.c $(CORE_SRC) $(GRADER_DEPFLAGS) $(GRADER_LIBS)

$(PRGEN): grading/src/prgen.c grading/src/gen.c grading/src/gen.h | $(DEPS_OK)
	@mkdir -p grading/bin
	$(Q)$(CC) $(GRADER_CFLAGS) -o $@ grading/src/prgen.c grading/src/gen.c

$(UNIT): grading/tests/unit_tests.c $(CORE_SRC) $(CORE_HDR)
	$(Q)$(DEPS) ensure test
	@mkdir -p grading/bin
	$(Q)$(CC) $(GRADER_CFLAGS) -Igrading/src -o $@ grading/tests/unit_tests.c $(CORE_SRC) $(GRADER_DEPFLAGS) $(GRADER_LIBS) -lcunit

## grade: build and grade your tasks (ROOM=01 or TASK=01_threads/task2 to narrow it;
##        HOSTS=a,b or HOSTFILE=f to spread MPI ranks over machines without Slurm;
##        SANDBOX=off|on: without or only with the sandbox, default auto;
##        RACECHECK=1: each simulated CUDA task (one process) run once more under the race checker;
##        PERF=on|off|required: the perf verdict beside PASS, default on; required: SLOW fails
##        (a simulated CUDA task's: from its memory counts beside the reference's);
##        SEED=N: the draw of sizes and seeds a grading printed, drawn again; default: a fresh draw;
##        HIDE_EXPECTED=1: FAIL messages without the expected values; OVERLAY=file: a private
##        tasks.ini overlay of graded sizes and ranges, for instructors)
grade: $(GRADE)
	$(Q)$(if $(PERF),GRADE_PERF='$(PERF)') $(if $(SEED),GRADE_SEED='$(SEED)') $(if $(HIDE_EXPECTED),GRADE_HIDE_EXPECTED='$(HIDE_EXPECTED)') $(if $(OVERLAY),GRADE_TASKS_OVERLAY='$(abspath $(OVERLAY))') $(if $(HOSTS),GRADE_HOSTS='$(HOSTS)') $(if $(HOSTFILE),GRADE_HOSTFILE='$(HOSTFILE)') $(if $(SANDBOX),GRADE_SANDBOX='$(SANDBOX)') $(if $(RACECHECK),GRADE_RACECHECK='$(RACECHECK)') $(GRADE) $(GRADE_FILTER) $(GRADE_OPTS) \
	    || $(QUIET_FAILURE)

## test: the maintainers' checks: unit tests, generated tasks, solutions PASS, untouched tasks FAIL
TEST_CHECKS = unit-test check-sim check-generated check-solutions check-tasks check-hostile \
	    check-dictation check-lessons check-perf check-cheats check-class check-gradescope check-learner-loop check-data-safety check-deps check-bench check-gpu check-shell check-grade-cli check-sandbox
test:
	$(Q)$(DEPS) ensure test
	$(Q)seed=$${SEED:-$$(( $$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % 999999999 + 1 ))}; \
	echo "make test: check-solutions on two draws from SEED=$$seed, check-tasks on that one (make test SEED=$$seed draws them again)"; \
	for check in $(TEST_CHECKS); do \
	    start=$$(date +%s); \
	    case $$check in check-solutions) draw="SEED=$$seed DRAWS=2" ;; check-tasks) draw=SEED=$$seed ;; *) draw= ;; esac; \
	    $(MAKE) --no-print-directory $$check $$draw || exit 1; \
	    echo "make test: $$check took $$(( $$(date +%s) - start )) s"; \
	done
	@echo "make test: all checks passed"

unit-test: $(UNIT)
	$(Q)$(UNIT)

## check-generated: the committed tasks equal what the generator makes of the committed solutions,
##                  every solution has its tasks.ini entry (and the check fails where it should)
check-generated: $(PRGEN) $(GRADE)
	$(Q)bash grading/tools/check-generated.sh
	$(Q)bash grading/tests/check-generated-negative.sh

## check-perf: the perf verdict: solutions "ok" against themselves (PERF_REPEAT=n times), slow-but-correct
##             versions (grading/tests/perf/*.patch) SLOW, and FAIL with PERF=required; simulated: from the counts
check-perf: $(GRADE) $(CLASS_REPORT)
	$(Q)PERF_REPEAT="$(PERF_REPEAT)" bash grading/tests/check-perf.sh

## check-cheats: replayed output, harvested expected values and serial code in a threads task do not PASS
##               (each message names what was missing); SEED= repeats a draw, a fresh grading draws anew
check-cheats: $(GRADE) $(PRGEN)
	$(Q)bash grading/tests/check-cheats.sh

## check-dictation: the TODOs and first hints write out at most 5% of the solutions' lines and
##                  name at most 45% of their identifiers (a learner who copies a comment must not pass)
check-dictation: $(GRADE)
	$(Q)bash grading/tests/check-dictation.sh
	@mkdir -p build
	$(Q)python3 grading/tools/lesson-overlap.py --max 2.0 > build/lesson-overlap.txt || { cat build/lesson-overlap.txt; exit 1; }
	@tail -n 1 build/lesson-overlap.txt

## check-lessons: the lessons' limits: room 04's README at most 9,000 words of prose, rooms 04-06 at most
##                18 words a sentence, each task's reading path at most 150 lines, every link and
##                "Read first" title on a heading (grading/tools/lesson-stats.py; figures: make lesson-stats)
check-lessons:
	$(Q)bash grading/tests/check-lessons.sh

## lesson-stats: (maintainers) the lessons' words, sentences and reading paths, room by room
lesson-stats:
	$(Q)python3 grading/tools/lesson-stats.py $(if $(ROOM),$(ROOM))

## lesson-overlap: (maintainers) how many of each solution's lines stand verbatim in its lesson's code blocks
lesson-overlap:
	$(Q)python3 grading/tools/lesson-overlap.py $(if $(ROOM),$(ROOM))

## pristine: generate every untouched task into build/pristine/ (never touches your files)
pristine: $(PRGEN)
	$(Q)bash grading/tools/pristine.sh build/pristine

## check-solutions: every reference solution, graded as if a learner wrote it, passes, at DRAWS draws
##                  (default 1; make test: 2): the first at SEED (else a fresh one), each next drawn from it;
##                  the later draws keep the first one's builds (grade --reuse-builds), run the
##                  simulator's threads in another order (CUDA_SIM_SEED=2, 3 ...) and grade each
##                  task's first configuration only (--first-config; the first draw grades them all)
check-solutions: $(GRADE)
	$(Q)seed=$${SEED:-$$(( $$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % 999999999 + 1 ))}; draws=$(or $(DRAWS),1); \
	case $$draws in [1-9]|[1-9][0-9]) ;; *) echo "check-solutions: DRAWS=$$draws: a number of draws, 1 to 99" >&2; exit 2 ;; esac; \
	for i in $$(seq $$draws); do \
	    [ $$draws -eq 1 ] || echo "check-solutions: draw $$i of $$draws: SEED=$$seed"; \
	    reuse=; simseed=; [ $$i -eq 1 ] || { reuse="--reuse-builds --first-config"; simseed=CUDA_SIM_SEED=$${CUDA_SIM_SEED:-$$i}; }; \
	    env $$simseed GRADE_SEED=$$seed $(GRADE) --tasks-from solutions --expect pass --werror $(GRADE_FILTER) --ref-dir build/refs $$reuse \
	        --json build/check-solutions.json --junit build/check-solutions.xml \
	        || { echo "check-solutions: failed at SEED=$$seed $$simseed (make check-solutions SEED=$$seed $$simseed grades that draw again)"; exit 1; }; \
	    seed=$$(( seed * 48271 % 999999999 + 1 )); \
	done

## check-tasks: every untouched task (generated afresh, not your copy) fails in every run, quickly
check-tasks: $(GRADE) pristine
	$(Q)$(if $(SEED),GRADE_SEED='$(SEED)') $(GRADE) --tasks-from build/pristine --expect fail --werror $(GRADE_FILTER) --ref-dir build/refs \
	    --json build/check-tasks.json --junit build/check-tasks.xml

## sanitize: ASan+UBSan over the C and MPI solutions and the simulated CUDA ones, TSan (clang + Archer)
##           over OpenMP, Helgrind over pthreads, the simulator's pre-pass under ASan (CI runs it)
sanitize: $(GRADE)
	$(Q)bash grading/tests/sanitize.sh

## sanitize-gpu: compute-sanitizer (memcheck, racecheck, synccheck) over the CUDA solutions (GPU only; SKIP elsewhere)
sanitize-gpu: $(GRADE)
	$(Q)bash grading/tests/sanitize-gpu.sh

## gpu-session: on a machine with an NVIDIA GPU, the essential checks in at most 6 minutes: rooms 04-06
##              natively (05, 06 at 1 and 2 ranks), untouched tasks FAIL, CUDA in the sandbox, memcheck,
##              the lessons' figures; DRY_RUN=1: the plan and each step's budget (no GPU needed);
##              PART=grade|sanitize|bench|all: the longer parts; DEBS=dir: .debs to unpack; a log and
##              an archive in $OUT
gpu-session:
	$(Q)$(if $(DRY_RUN),DRY_RUN='$(DRY_RUN)') bash grading/tests/gpu-session.sh $(if $(DEBS),--debs $(DEBS)) $(if $(PART),--part $(PART))

## stress: every solution graded again and again (STRESS=short: once, plus a simulator seed;
##         STRESS=long: 50 passes and 50 simulator seeds, hours), ROOM=/TASK= to narrow it,
##         PASSES=N passes over the solutions (PASSES=0: the simulator seeds alone)
stress: $(GRADE)
	$(Q)bash grading/tests/stress.sh $(or $(STRESS),short) $(if $(ROOM),--room $(ROOM)) $(if $(TASK),--task $(TASK)) $(if $(PASSES),--passes $(PASSES))

## fuzz: the result-line parser and the tasks.ini reader under libFuzzer (FUZZ_SECONDS each, default 30)
fuzz:
	$(Q)bash grading/tests/fuzz.sh $(FUZZ_SECONDS)

## check-data-safety: reset, grade, clean, generate and grade-class never lose a learner's file
check-data-safety: $(GRADE)
	$(Q)bash grading/tests/check-data-safety.sh

## check-bench: make bench says NOT MEASURED / FAILED (exit 1) for figures a (fake) GPU did not give
check-bench:
	$(Q)bash grading/tests/check-bench.sh

## check-grade-cli: what grade --describe, --print-build and --launch tell scripts is what the grader does;
##                  the reference and the task built at once, each build failure blamed on the right side
check-grade-cli: $(GRADE)
	$(Q)bash grading/tests/check-grade-cli.sh
	$(Q)bash grading/tests/check-builds.sh

## check-sandbox: cheating and sabotaging submissions get no PASS, and change nothing for the others;
##                a CUDA probe that fails inside the sandbox (a fake GPU) sends CUDA runs outside, with a notice
check-sandbox: $(GRADE) $(CLASS_REPORT)
	$(Q)bash grading/tests/check-sandbox.sh
	$(Q)bash grading/tests/check-cuda-probe.sh

## check-shell: shellcheck over every shell script (found by git ls-files and their #! line)
check-shell:
	$(Q)bash grading/tests/check-shell.sh

## check-deps: make deps names what is missing: optional extras exit 0, required ones exit 1
check-deps:
	$(Q)bash grading/tests/check-deps.sh

## check-learner-loop: make progress, diff, watch, V=1 and GRADESCOPE= on a clone, as a learner uses them
check-learner-loop: $(GRADE)
	$(Q)bash grading/tests/check-learner-loop.sh

## check-class: class grading: the CSV/HTML report on known reports, then a synthetic class graded end to end,
##              then four saboteurs beside a solved student as root and as nobody (check-class-attacks.sh)
check-class: $(GRADE) $(CLASS_REPORT)
	$(Q)bash grading/tests/check-class-report.sh
	$(Q)bash grading/tests/check-class.sh
	$(Q)bash grading/tests/check-class-reference.sh
	$(Q)bash grading/tests/check-class-attacks.sh

## check-gradescope: Gradescope's run_autograder (grading/templates/gradescope) on a fake /autograder:
##                   solved, broken, hostile and empty submissions get a valid results.json, nothing forged
check-gradescope: $(GRADE) $(CLASS_REPORT)
	$(Q)bash grading/tests/check-gradescope.sh

## check-class-html: (not in make test) renders the class summary in headless Chromium: build/class-summary.png
check-class-html: $(GRADE) $(CLASS_REPORT)
	$(Q)bash grading/tests/check-class-html.sh

## check-hostile: broken tasks (hang, crash, flood, leftovers, ...) get the right status, nothing left running
check-hostile: $(GRADE)
	$(Q)bash grading/tests/check-hostile.sh

## check-sim: the CUDA CPU simulator (grading/sim/simcc): its own tests, the grader's sim mode end to end,
##            and every CUDA solution failing without its __syncthreads()
check-sim: $(GRADE) $(PRGEN)
	$(Q)bash grading/sim/tests/run.sh
	@mkdir -p build
	$(Q)grading/sim/simcc -O2 -o build/cunit_sim grading/sim/tests/cunit_sim.cu -lcunit
	$(Q)build/cunit_sim
	$(Q)bash grading/tests/check-sim-grade.sh
	$(Q)bash grading/tests/check-profile-grade.sh
	$(Q)bash grading/tests/check-barriers.sh

## check-gpu: on a machine with an NVIDIA GPU, the grader's native CUDA path and compute-sanitizer (SKIP elsewhere)
check-gpu: $(GRADE) $(PRGEN)
	$(Q)bash grading/tests/check-gpu.sh

## test-cluster: (root) a real one-node Slurm (the rooms' job scripts, a grading job under srun), then
##               two network namespaces as two MPI hosts (SKIP without root)
test-cluster: $(GRADE)
	$(Q)status=0; bash grading/tests/cluster/slurm.sh || status=1; \
	    bash grading/tests/cluster/twohost.sh || status=1; exit $$status

## test-openmpi: rooms 03, 05 and 06 graded under Open MPI (installed beside MPICH as root, with
##               `mpicc` left as it was): solutions PASS, rooms 03, 05 untouched FAIL, MPI hostile cases,
##               make doctor and make bench find Open MPI from MPICC alone
test-openmpi: $(GRADE)
	$(Q)bash grading/tests/test-openmpi.sh

## test-fresh: (root) the README's commands on a bare Debian 12 made with debootstrap: make grade and
##             make test as root, make grade without root (libraries fetched into build/deps);
##             FRESH=grade: the make grade parts only (CI)
test-fresh:
	$(Q)FRESH='$(FRESH)' bash grading/tests/test-fresh.sh

## test-container: (root) the Containerfile built with podman on test-fresh's bare Debian 12, then
##                 make grade in it: a task FAILs edited and PASSes solved, a CUDA task PASSes simulated
test-container:
	$(Q)bash grading/tests/test-container.sh

## generate: (maintainers) rewrite the tasks from the solutions; differing files are backed up first
generate: $(PRGEN)
	$(Q)bash grading/tools/generate.sh

## doctor: what this machine has: compilers, OpenMP, MPI, CUDA, GPU, libraries, cores
doctor:
	$(Q)bash grading/tools/doctor.sh

## deps: install what is missing (Debian/Ubuntu as root), or print what to install
deps:
	$(Q)$(DEPS) install all

## hint: make hint TASK=01_threads/task2: the next rung of the task's hint ladder, from the idea
##       to nearly the code (LEVEL=n: that rung; ALL=1: every rung)
hint: $(GRADE)
	$(Q)if [ -z "$(TASK)" ]; then echo "usage: make hint TASK=01_threads/task2 [LEVEL=n | ALL=1] (make list shows them)" >&2; exit 2; fi
	$(Q)$(GRADE) --hint '$(TASK)' $(if $(LEVEL),--level '$(LEVEL)') $(if $(filter 1,$(ALL)),--all)

## reset: make reset TASK=01_threads/task2 restores the untouched task, keeping yours as a backup
reset: $(PRGEN)
	$(Q)bash grading/tools/reset.sh "$(TASK)"

## list: the rooms and tasks
list: $(GRADE)
	$(Q)$(GRADE) --list

## grade-class: make grade-class SUBMISSIONS=folder [JOBS=n] [ROOM=..]: grade every student's checkout
##               (folder, .tar.gz or .zip) in a clean tree: class.csv, summary.html under build/class
grade-class: $(GRADE) $(CLASS_REPORT)
	$(Q)SANDBOX="$(SANDBOX)" $(DEPS) ensure class
	$(Q)ROOM="$(ROOM)" TASK="$(TASK)" JOBS="$(JOBS)" SANDBOX="$(SANDBOX)" PERF="$(PERF)" SEED="$(SEED)" HIDE_EXPECTED="$(HIDE_EXPECTED)" OVERLAY="$(if $(OVERLAY),$(abspath $(OVERLAY)))" bash grading/tools/grade-class.sh "$(SUBMISSIONS)"

## progress: your rooms escaped, tasks passed and the next task (from your grading runs)
progress: $(GRADE)
	$(Q)$(GRADE) --progress

## watch: make watch TASK=01_threads/task2 grades the task again every time you save it (Ctrl-C stops)
watch: $(GRADE)
	$(Q)$(if $(SEED),GRADE_SEED='$(SEED)') bash grading/tools/watch.sh "$(TASK)"

## diff: make diff TASK=01_threads/task2 shows your changes against the untouched task
diff: $(PRGEN)
	$(Q)bash grading/tools/diff.sh "$(TASK)"

## bench: make bench [ROOM=03]: the solutions at benchmark sizes beside their ceilings (build/bench/)
bench: $(GRADE)
	$(Q)bash grading/bench/bench.sh "$(ROOM)"

## clean: remove build outputs (never your task files or backups)
clean:
	rm -rf build grading/bin

help:
	@echo "Parallel Rooms: make <target>"
	@grep -E '^## ' Makefile | sed -e 's/^## /  /'
