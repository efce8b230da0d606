/* unit_tests.c -- CUnit tests of the grader's own code: the result-line parser
 * and comparator, the metadata reader, the task generator, the runner
 * against children that hang, crash, flood output, ignore SIGTERM or leave a
 * detached grandchild behind, and the commands made from the kinds and launchers
 * tables (every kind's build command and SKIP reasons, every launcher's argv and
 * environment, pinned word for word).
 *
 * The exit status is the number of failures (capped), read before the registry
 * is cleaned up. */
#define _GNU_SOURCE
#include "gen.h"
#include "grader.h"
#include "meta.h"
#include "perf.h"
#include "results.h"
#include "runner.h"
#include "policy.h"
#include "progress.h"
#include "report.h"
#include "sandbox.h"
#include "toolchain.h"
#include "work.h"

#include <jansson.h>
#include "util.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- results: parsing ---------------------------------------------------------- */

static void test_parse_kinds_of_values(void)
{
    const char *out = "hello\nresult count = 42\nresult sum = 1.5 tol 1e-09\n"
                      "result name = two words\r\nnot a result = 3\n result indented = 1\n";
    result_set set;
    char err[200];
    CU_ASSERT_EQUAL_FATAL(results_parse(out, &set, err, sizeof err), 0);
    CU_ASSERT_EQUAL(set.count, 3);
    const result_line *count = results_find(&set, "count");
    CU_ASSERT_PTR_NOT_NULL_FATAL(count);
    CU_ASSERT_STRING_EQUAL(count->value, "42");
    CU_ASSERT_FALSE(count->has_tol);
    CU_ASSERT_EQUAL(count->line, 2);
    const result_line *sum = results_find(&set, "sum");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    CU_ASSERT_STRING_EQUAL(sum->value, "1.5");
    CU_ASSERT_TRUE(sum->has_tol);
    CU_ASSERT_DOUBLE_EQUAL(sum->tol, 1e-9, 1e-15);
    const result_line *name = results_find(&set, "name");
    CU_ASSERT_PTR_NOT_NULL_FATAL(name);
    CU_ASSERT_STRING_EQUAL(name->value, "two words");
    CU_ASSERT_PTR_NULL(results_find(&set, "indented"));
    results_free(&set);
}

static void test_parse_rejects_malformed(void)
{
    result_set set;
    char err[200] = "";
    CU_ASSERT_EQUAL(results_parse("result = 3\n", &set, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 1"));
    results_free(&set);
    CU_ASSERT_EQUAL(results_parse("x\nresult a 3\n", &set, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 2"));
    results_free(&set);
    CU_ASSERT_EQUAL(results_parse("result a = 1\nresult a = 1\n", &set, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "twice"));
    results_free(&set);
    CU_ASSERT_EQUAL(results_parse("result a =   \n", &set, err, sizeof err), -1);
    results_free(&set);
    /* No result lines at all is not an error for the parser (the grader treats it). */
    CU_ASSERT_EQUAL(results_parse("", &set, err, sizeof err), 0);
    CU_ASSERT_EQUAL(set.count, 0);
    results_free(&set);
}

/* ---- results: comparing ----------------------------------------------------------- */

static int compare_texts(const char *expected_out, const char *got_out, char **message)
{
    result_set want, got;
    char err[200];
    CU_ASSERT_EQUAL_FATAL(results_parse(expected_out, &want, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(results_parse(got_out, &got, err, sizeof err), 0);
    int problems = results_compare(&want, &got, message);
    results_free(&want);
    results_free(&got);
    return problems;
}

static void test_compare_equal(void)
{
    char *msg = (char *)"unset";
    CU_ASSERT_EQUAL(compare_texts("result a = 7\nresult s = ok\nresult x = 2.0 tol 1e-6\n",
                                  "chatter\nresult x = 2.0000001\nresult a = 7\nresult s = ok\n", &msg), 0);
    CU_ASSERT_PTR_NULL(msg);
}

static void test_compare_names_key_expected_got(void)
{
    char *msg = NULL;
    CU_ASSERT_EQUAL(compare_texts("result count = 100\n", "result count = 99\n", &msg), 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'count'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "expected 100"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "got 99"));
    free(msg);
}

static void test_compare_missing_and_extra(void)
{
    char *msg = NULL;
    CU_ASSERT_EQUAL(compare_texts("result a = 1\nresult b = 2\n", "result a = 1\nresult c = 3\n", &msg), 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'b' missing"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'c' = 3"));
    free(msg);
}

static void test_compare_integers_and_strings_exactly(void)
{
    char *msg = NULL;
    CU_ASSERT_EQUAL(compare_texts("result n = 10\n", "result n = 10.0\n", &msg), 1);
    free(msg);
    CU_ASSERT_EQUAL(compare_texts("result n = 10\n", "result n = 010\n", &msg), 0);
    CU_ASSERT_EQUAL(compare_texts("result w = abc\n", "result w = abd\n", &msg), 1);
    free(msg);
    /* Without a declared tolerance a float is compared as a string. */
    CU_ASSERT_EQUAL(compare_texts("result f = 0.5\n", "result f = 0.50000001\n", &msg), 1);
    free(msg);
}

static void test_compare_float_tolerance(void)
{
    char *msg = NULL;
    /* relative to |expected| when that is above 1 */
    CU_ASSERT_EQUAL(compare_texts("result x = 1000 tol 1e-3\n", "result x = 1000.9\n", &msg), 0);
    CU_ASSERT_EQUAL(compare_texts("result x = 1000 tol 1e-3\n", "result x = 1001.1\n", &msg), 1);
    free(msg);
    /* absolute when |expected| <= 1 */
    CU_ASSERT_EQUAL(compare_texts("result x = 0 tol 1e-6\n", "result x = 5e-7\n", &msg), 0);
    CU_ASSERT_EQUAL(compare_texts("result x = 0 tol 1e-6\n", "result x = 2e-6\n", &msg), 1);
    free(msg);
    /* NaN and non-numbers never match; the task cannot loosen the tolerance */
    CU_ASSERT_EQUAL(compare_texts("result x = 1 tol 1e-6\n", "result x = nan\n", &msg), 1);
    free(msg);
    CU_ASSERT_EQUAL(compare_texts("result x = 1 tol 1e-6\n", "result x = one\n", &msg), 1);
    free(msg);
    CU_ASSERT_EQUAL(compare_texts("result x = 1 tol 1e-6\n", "result x = 2 tol 10\n", &msg), 1);
    free(msg);
}

/* ---- metadata ---------------------------------------------------------------------- */

static void test_expand_runs_product(void)
{
    run_config *cfgs = NULL;
    int n = 0;
    char err[200];
    CU_ASSERT_EQUAL_FATAL(expand_runs("threads=1,2,3 n=10,11 seed=7", &cfgs, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 6);
    CU_ASSERT_STRING_EQUAL(cfgs[0].label, "threads=1 n=10 seed=7");
    CU_ASSERT_STRING_EQUAL(cfgs[5].label, "threads=3 n=11 seed=7");
    CU_ASSERT_STRING_EQUAL(config_get(&cfgs[1], "n"), "11");
    CU_ASSERT_PTR_NULL(config_get(&cfgs[1], "ranks"));
    CU_ASSERT_EQUAL(expand_runs("ranks=4", &cfgs, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL(n, 7);
    CU_ASSERT_EQUAL(expand_runs("threads", &cfgs, &n, err, sizeof err), -1);
    CU_ASSERT_EQUAL(expand_runs("n=1,,2", &cfgs, &n, err, sizeof err), -1);
    CU_ASSERT_EQUAL(expand_runs("n=1 n=2", &cfgs, &n, err, sizeof err), -1);
    CU_ASSERT_EQUAL(expand_runs("9x=1", &cfgs, &n, err, sizeof err), -1);
    CU_ASSERT_EQUAL(n, 7);
    workbook wb = { 0 };
    room_meta room = { 0 };
    task_meta task = { 0 };
    task.configs = cfgs;
    task.nconfigs = n;
    room.tasks = &task;
    room.ntasks = 1;
    wb.rooms = xmalloc(sizeof room);
    wb.rooms[0] = room;
    wb.rooms[0].tasks = xmalloc(sizeof task);
    wb.rooms[0].tasks[0] = task;
    wb.nrooms = 1;
    workbook_free(&wb);
}

static char *write_temp(const char *text)
{
    char *path = xstrdup("/tmp/pr-unit-XXXXXX");
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    return path;
}

static int load_ini(const char *text, room_meta *room, char *err, size_t errlen)
{
    char *path = write_temp(text);
    int rc = room_load(path, "07_test", room, err, errlen);
    unlink(path);
    free(path);
    return rc;
}

static void free_room(room_meta *room)
{
    workbook wb = { room, 1 };
    room_meta *copy = xmalloc(sizeof *copy);
    *copy = *room;
    wb.rooms = copy;
    workbook_free(&wb);
}

static void test_room_load(void)
{
    room_meta room;
    char err[400] = "";
    int rc = load_ini("[room]\ntitle = Test room\n\n[task10]\ntitle = Ten\nsource = task10.c\nkind = c\n"
                      "runs = n=1\n\n[task2]\ntitle = Two\nsource = task2.c\nkind = openmp\n"
                      "runs = threads=1,2 n=5\nruns = threads=3 n=6\ntimeout = 2.5\nlibs = -lcublas\nhint1 = first part\n"
                      "  second part\nhint2 = the structure\nhint3 = nearly the code\n",
                      &room, err, sizeof err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(room.title, "Test room");
    CU_ASSERT_EQUAL_FATAL(room.ntasks, 2);
    /* task2 sorts before task10 */
    CU_ASSERT_STRING_EQUAL(room.tasks[0].id, "07_test/task2");
    CU_ASSERT_EQUAL_FATAL(room.tasks[0].nconfigs, 3);
    /* each configuration knows its runs line (grade --describe tells scripts) */
    CU_ASSERT_EQUAL(room.tasks[0].nrun_lines, 2);
    CU_ASSERT_EQUAL(room.tasks[0].configs[0].line, 1);
    CU_ASSERT_EQUAL(room.tasks[0].configs[1].line, 1);
    CU_ASSERT_EQUAL(room.tasks[0].configs[2].line, 2);
    CU_ASSERT_STRING_EQUAL(room.tasks[0].configs[2].label, "threads=3 n=6");
    CU_ASSERT_DOUBLE_EQUAL(room.tasks[0].timeout, 2.5, 1e-12);
    CU_ASSERT_EQUAL(room.tasks[0].nhints, 3);
    CU_ASSERT_STRING_EQUAL(room.tasks[0].hints[0], "first part second part");
    CU_ASSERT_STRING_EQUAL(room.tasks[0].hints[2], "nearly the code");
    CU_ASSERT_STRING_EQUAL(room.tasks[0].libs, "-lcublas");
    CU_ASSERT_PTR_NULL(room.tasks[1].libs);
    /* the kind's row, found once at load */
    CU_ASSERT(room.tasks[0].kind_entry == kind_lookup("openmp") && task_kind(&room.tasks[0]) == kind_lookup("openmp"));
    CU_ASSERT(room.tasks[1].kind_entry == kind_lookup("c"));
    CU_ASSERT_DOUBLE_EQUAL(room.tasks[1].timeout, 10.0, 1e-12);
    CU_ASSERT_EQUAL(room.tasks[1].nhints, 1); /* a default hint */
    CU_ASSERT_PTR_NOT_NULL(room.tasks[1].hints[0]);
    free_room(&room);
}

/* The hints from ROOT/solutions/ROOM/hints.ini, beside ROOT/ROOM/tasks.ini: read, continued,
 * a gap refused, a hint in both files refused, an unknown key or task refused. */
static void write_hints_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

static void test_room_hints_file(void)
{
    char root[] = "/tmp/pr-unit-hints-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
    char *room_dir = xasprintf("%s/07_test", root), *sol = xasprintf("%s/solutions", root);
    char *sol_room = xasprintf("%s/solutions/07_test", root);
    char *ini = xasprintf("%s/tasks.ini", room_dir), *hints = xasprintf("%s/hints.ini", sol_room);
    CU_ASSERT_FATAL(mkdir(room_dir, 0700) == 0 && mkdir(sol, 0700) == 0 && mkdir(sol_room, 0700) == 0);
    const char *tasks = "[task1]\ntitle = One\nsource = task1.c\nkind = c\nruns = n=1\n";
    struct {
        const char *tasks_extra, *hints, *err; /* err: NULL when it loads */
    } cases[] = {
        { "", "[task1]\nhint1 = the idea\n  continued\nhint2 = the code\n", NULL },
        { "", "[task1]\nhint2 = the code\n", "has hint2 but no hint1" },
        { "hint1 = in tasks.ini\n", "[task1]\nhint1 = again\n", "hint1 is in tasks.ini too" },
        { "", "[task1]\nruns = n=2\n", "unknown key 'runs'" },
        { "", "[task9]\nhint1 = x\n", "[task9]: the room's tasks.ini has no such task" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = xasprintf("%s%s", tasks, cases[i].tasks_extra);
        write_hints_file(ini, text);
        write_hints_file(hints, cases[i].hints);
        room_meta room;
        char err[400] = "";
        int rc = room_load(ini, "07_test", &room, err, sizeof err);
        if (!cases[i].err) {
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT_EQUAL(room.tasks[0].nhints, 2);
            CU_ASSERT_STRING_EQUAL(room.tasks[0].hints[0], "the idea continued");
            CU_ASSERT_STRING_EQUAL(room.tasks[0].hints[1], "the code");
        } else {
            CU_ASSERT_NOT_EQUAL(rc, 0);
            CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].err));
            if (!strstr(err, cases[i].err))
                fprintf(stderr, "case %zu: %s\n", i, err);
        }
        free_room(&room);
        free(text);
    }
    unlink(ini), unlink(hints), rmdir(sol_room), rmdir(sol), rmdir(room_dir), rmdir(root);
    free(room_dir), free(sol), free(sol_room), free(ini), free(hints);
}

/* The hint ladder has no gaps, and the old single `hint` key is not silently ignored. */
static void test_room_load_hint_ladder(void)
{
    room_meta room;
    char err[400] = "";
    CU_ASSERT_EQUAL(load_ini("[task1]\ntitle = A\nsource = a.c\nkind = c\nruns = n=1\nhint1 = a\nhint3 = c\n",
                             &room, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "has hint3 but no hint2"));
    free_room(&room);
    CU_ASSERT_EQUAL(load_ini("[task1]\ntitle = A\nsource = a.c\nkind = c\nruns = n=1\nhint = a\n", &room, err,
                             sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown key 'hint'"));
    free_room(&room);
    CU_ASSERT_EQUAL(load_ini("[task1]\ntitle = A\nsource = a.c\nkind = c\nruns = n=1\nhint0 = a\n", &room, err,
                             sizeof err), -1);
    free_room(&room);
}

static void test_room_load_errors(void)
{
    room_meta room;
    char err[400] = "";
    CU_ASSERT_EQUAL(load_ini("[task1]\ntitle = A\nsource = a.c\nkind = fortran\nruns = n=1\n", &room, err, sizeof err), -1);
    /* the known kinds, as the table has them (a new kind touches only its row and its test) */
    char *names = kind_names(), *want = xasprintf("unknown kind 'fortran' (known: %s)", names);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(names, "pthreads openmp"));
    free(names), free(want);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, ":4:")); /* the line of the kind */
    free_room(&room);
    /* A malformed line before it: that line is the first error, with its own number. */
    CU_ASSERT_EQUAL(load_ini("garbage line\n[task1]\ntitle = A\nsource = a.c\nkind = fortran\nruns = n=1\n", &room,
                             err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, ":1: not a valid INI line"));
    free_room(&room);
    CU_ASSERT_EQUAL(load_ini("[task1]\ntitle = A\nsource = a.c\nkind = c\n", &room, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "has no runs"));
    free_room(&room);
    CU_ASSERT_EQUAL(load_ini("[task1]\ntitel = A\n", &room, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown key 'titel'"));
    free_room(&room);
    CU_ASSERT_EQUAL(load_ini("[task1]\ntitle = A\nsource = a.c\nkind = c\nruns = n=1\ntimeout = -3\n", &room, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "timeout"));
    free_room(&room);
    CU_ASSERT_EQUAL(load_ini("[bogus]\nx = 1\n", &room, err, sizeof err), -1);
    free_room(&room);
}

/* The perf keys: one configuration, both perf and perf_time, a limit in range. */
static void test_room_load_perf(void)
{
    room_meta room;
    char err[400] = "";
    const char *base = "[task1]\ntitle = A\nsource = a.c\nkind = c\nruns = n=1\n";
    char *ini = xasprintf("%sperf = threads=2 n=99\nperf_time = by hand | reduction\nperf_limit = 1.25\n"
                          "perf_hint = why\n  it is slow\n", base);
    CU_ASSERT_EQUAL_FATAL(load_ini(ini, &room, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(room.tasks[0].perf->label, "threads=2 n=99");
    CU_ASSERT_STRING_EQUAL(room.tasks[0].perf_time, "by hand | reduction");
    CU_ASSERT_DOUBLE_EQUAL(room.tasks[0].perf_limit, 1.25, 1e-12);
    CU_ASSERT_STRING_EQUAL(room.tasks[0].perf_hint, "why it is slow");
    free_room(&room);
    free(ini);
    /* the collectives a ranks method asks for */
    ini = xasprintf("%smethod_calls = MPI_Reduce_scatter MPI_Allgatherv\nmethod_collectives = 1.2\n", base);
    CU_ASSERT_EQUAL_FATAL(load_ini(ini, &room, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(room.tasks[0].method_calls, "MPI_Reduce_scatter MPI_Allgatherv");
    CU_ASSERT_DOUBLE_EQUAL(room.tasks[0].method_collectives, 1.2, 1e-12);
    free_room(&room);
    free(ini);
    /* without perf keys: no verdict, and the default limit */
    CU_ASSERT_EQUAL_FATAL(load_ini(base, &room, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(room.tasks[0].perf);
    CU_ASSERT_DOUBLE_EQUAL(room.tasks[0].perf_limit, 1.5, 1e-12);
    free_room(&room);
    const char *bad[][2] = {
        { "perf = threads=1,2 n=5\nperf_time = x\n", "is not one configuration" },
        { "perf = threads=2\n", "has perf but no perf_time" },
        { "perf_time = x\n", "has perf_time but no perf" },
        { "perf = n=5\nperf_time = x\nperf_limit = 0.5\n", "perf_limit '0.5'" },
        { "method_collectives = 0.9\n", "method_collectives '0.9'" },
        { "method_calls = MPI_Bcast; rm\n", "is not a list of MPI function names" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ini = xasprintf("%s%s", base, bad[i][0]);
        CU_ASSERT_EQUAL(load_ini(ini, &room, err, sizeof err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i][1]));
        if (!strstr(err, bad[i][1]))
            fprintf(stderr, "\n  perf case %zu: %s\n", i, err);
        free_room(&room);
        free(ini);
    }
}

/* A shorter grading (make gpu-session): --max-ranks leaves out the configurations above it,
 * --first-config keeps each task's first; tasks without ranks keep theirs under --max-ranks. */
static void test_select_configs(void)
{
    room_meta room;
    char err[400] = "";
    const char *ini = "[task1]\ntitle = A\nsource = a.c\nkind = mpi\nruns = ranks=1,2,3,4 n=5,7\n"
                      "method = ranks\nmethod_run = ranks=4 n=99\n\n"
                      "[task2]\ntitle = B\nsource = b.c\nkind = openmp\nruns = threads=1,2 n=5\n";
    CU_ASSERT_EQUAL_FATAL(load_ini(ini, &room, err, sizeof err), 0);
    workbook wb = { &room, 1 };
    workbook_select_configs(&wb, 2, 0);
    task_meta *t = &room.tasks[0];
    CU_ASSERT_EQUAL(t->nconfigs, 4);
    for (int c = 0; c < t->nconfigs; c++)
        CU_ASSERT(atoi(config_get(&t->configs[c], "ranks")) <= 2);
    CU_ASSERT_STRING_EQUAL(t->configs[0].label, "ranks=1 n=5");
    CU_ASSERT_STRING_EQUAL(t->configs[3].label, "ranks=2 n=7");
    CU_ASSERT(t->overlaid);
    CU_ASSERT_PTR_NOT_NULL(t->method_run); /* the method's run stays */
    CU_ASSERT_EQUAL(room.tasks[1].nconfigs, 2);
    CU_ASSERT(!room.tasks[1].overlaid);
    workbook_select_configs(&wb, 0, 1);
    CU_ASSERT_EQUAL(t->nconfigs, 1);
    CU_ASSERT_STRING_EQUAL(t->configs[0].label, "ranks=1 n=5");
    CU_ASSERT_EQUAL(room.tasks[1].nconfigs, 1);
    CU_ASSERT(room.tasks[1].overlaid);
    free_room(&room);
}

/* Fresh data at every grading: lo..hi values drawn from the grading's seed, the same seed
 * drawing the same values; ranges and method keys checked at load. */
static void test_room_load_draws(void)
{
    room_meta room;
    char err[400] = "";
    const char *ini = "[task1]\ntitle = A\nsource = a.c\nkind = openmp\n"
                      "runs = threads=1,2 n=90..200 seed=1..999999999,1..999999999\n"
                      "method = threads\nmethod_run = threads=2 n=1000..2000\n";
    CU_ASSERT_EQUAL_FATAL(load_ini(ini, &room, err, sizeof err), 0);
    task_meta *t = &room.tasks[0];
    CU_ASSERT_EQUAL_FATAL(t->nconfigs, 4);
    CU_ASSERT(config_has_draw(&t->configs[0]));
    CU_ASSERT_STRING_EQUAL(t->method, "threads");
    workbook wb = { &room, 1 };
    workbook_draw(&wb, 42);
    CU_ASSERT(!config_has_draw(&t->configs[0]) && !config_has_draw(t->method_run));
    char *first[4];
    for (int c = 0; c < 4; c++) {
        long long n = atoll(config_get(&t->configs[c], "n")), seed = atoll(config_get(&t->configs[c], "seed"));
        CU_ASSERT(n >= 90 && n <= 200 && n % 2 != 0 && n % 3 != 0);
        CU_ASSERT(seed >= 1 && seed <= 999999999 && seed % 2 != 0 && seed % 3 != 0);
        first[c] = xstrdup(t->configs[c].label);
    }
    /* one draw per value: the two seeds differ, and each is the same for every thread count */
    CU_ASSERT_STRING_NOT_EQUAL(config_get(&t->configs[0], "seed"), config_get(&t->configs[1], "seed"));
    CU_ASSERT_STRING_EQUAL(config_get(&t->configs[0], "seed"), config_get(&t->configs[2], "seed"));
    CU_ASSERT_STRING_EQUAL(config_get(&t->configs[0], "n"), config_get(&t->configs[3], "n"));
    long long m = atoll(config_get(t->method_run, "n"));
    CU_ASSERT(m >= 1000 && m <= 2000);
    CU_ASSERT_STRING_EQUAL(config_get(t->method_run, "threads"), "2");
    free_room(&room);
    /* the same seed draws the same again; another seed draws otherwise */
    room_meta again, other;
    CU_ASSERT_EQUAL_FATAL(load_ini(ini, &again, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(load_ini(ini, &other, err, sizeof err), 0);
    workbook wa = { &again, 1 }, wo = { &other, 1 };
    workbook_draw(&wa, 42);
    workbook_draw(&wo, 43);
    int differ = 0;
    for (int c = 0; c < 4; c++) {
        CU_ASSERT_STRING_EQUAL(again.tasks[0].configs[c].label, first[c]);
        differ += strcmp(other.tasks[0].configs[c].label, first[c]) != 0;
        free(first[c]);
    }
    CU_ASSERT_EQUAL(differ, 4);
    free_room(&again);
    free_room(&other);
    /* a value is a function of seed, task, line, key and place, and is uneven */
    CU_ASSERT_EQUAL(draw_value(7, "01_a/task1", 1, "n", 0, 10, 15), draw_value(7, "01_a/task1", 1, "n", 0, 10, 15));
    for (int s = 1; s < 200; s++) {
        long long v = draw_value((uint64_t)s, "01_a/task1", 1, "n", s % 3, 10, 15);
        CU_ASSERT(v == 11 || v == 13);
    }
    const char *base = "[task1]\ntitle = A\nsource = a.c\nkind = openmp\n";
    const char *bad[][2] = {
        { "runs = n=5..3\n", "has a range that is not lo..hi" },
        { "runs = n=1..4\n", "has a range that is not lo..hi" },
        { "runs = n=a..9\n", "has a range that is not lo..hi" },
        { "runs = n=1..9999999999999\n", "has a range that is not lo..hi" },
        { "runs = n=9223372036854775807..9223372036854775807\n", "has a range that is not lo..hi" },
        { "runs = n=99999999999999999999..5\n", "has a range that is not lo..hi" },
        { "runs = n=1\nmethod = magic\n", "method 'magic' is not one the grader checks" },
        { "runs = n=1\nmethod = processes\nmethod_run = threads=2 n=5\n", "workers=2 or more" },
        { "runs = n=1\nmethod = threads\n", "no method_run (or perf)" },
        { "runs = n=1\nmethod = threads\nmethod_run = threads=1 n=5\n", "threads=2 or more" },
        { "runs = n=1\nmethod_run = threads=1,2\n", "method_run 'threads=1,2' is not one configuration" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *text = xasprintf("%s%s", base, bad[i][0]);
        CU_ASSERT_EQUAL(load_ini(text, &room, err, sizeof err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i][1]));
        if (!strstr(err, bad[i][1]))
            fprintf(stderr, "\n  draw case %zu: %s\n", i, err);
        free_room(&room);
        free(text);
    }
}

/* The timing protocol: "time <name> <seconds> s", as pr_print_time prints it. */
static void test_results_timing(void)
{
    const char *out = "task2: sum\n  time serial                    0.003417 s\n"
                      "  time by hand                   0.001626 s   (2.10x speedup vs serial)\n"
                      "  time pipeline, 2 stages, per epoch   1.5e-03 s\n"
                      "result sum = 5 tol 1e-9\ntime  by   hand 9 s\n  time broken 0.1s\n  time neg -1 s\n";
    double t = -1;
    CU_ASSERT_EQUAL(results_timing(out, "serial", &t), 1);
    CU_ASSERT_DOUBLE_EQUAL(t, 0.003417, 1e-12);
    CU_ASSERT_EQUAL(results_timing(out, "by hand", &t), 1); /* the first line of that name */
    CU_ASSERT_DOUBLE_EQUAL(t, 0.001626, 1e-12);
    CU_ASSERT_EQUAL(results_timing(out, "pipeline, 2 stages, per epoch", &t), 1);
    CU_ASSERT_DOUBLE_EQUAL(t, 1.5e-3, 1e-12);
    CU_ASSERT_EQUAL(results_timing(out, "by", &t), 0);      /* a name is matched whole */
    CU_ASSERT_EQUAL(results_timing(out, "broken", &t), 0);  /* "0.1s" is not "<seconds> s" */
    CU_ASSERT_EQUAL(results_timing(out, "neg", &t), 0);     /* no negative times */
    CU_ASSERT_EQUAL(results_timing(out, "sum", &t), 0);     /* result lines are not timings */
    CU_ASSERT_EQUAL(results_timing("", "serial", &t), 0);
}

static void test_perf_median(void)
{
    double v[] = { 3, 1, 2 }, spread;
    CU_ASSERT_DOUBLE_EQUAL(perf_median(v, 3, &spread), 2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(spread, 1.0, 1e-12);
    double w[] = { 4, 1, 3, 2 };
    CU_ASSERT_DOUBLE_EQUAL(perf_median(w, 4, &spread), 2.5, 1e-12);
    CU_ASSERT_EQUAL(perf_mode_parse("required"), PERF_MODE_REQUIRED);
    CU_ASSERT_EQUAL(perf_mode_parse("off"), PERF_MODE_OFF);
    CU_ASSERT_EQUAL(perf_mode_parse("yes"), -1);
    CU_ASSERT_STRING_EQUAL(perf_verdict_name(PERF_SLOW), "slow");
    /* twice the reference's time is SLOW on a quiet machine, not judged on a busy one */
    double task_t[3] = { 2.0, 2.1, 2.2 }, quiet[3] = { 1.0, 1.05, 1.1 }, busy[3] = { 1.0, 1.1, 3.5 };
    double fast[3] = { 1.0, 1.1, 1.2 };
    CU_ASSERT_EQUAL(perf_judge(task_t, quiet, 3, 1.5), PERF_SLOW);
    CU_ASSERT_EQUAL(perf_judge(task_t, busy, 3, 1.5), PERF_NA);
    CU_ASSERT_EQUAL(perf_judge(fast, quiet, 3, 1.5), PERF_OK);
    CU_ASSERT_EQUAL(perf_judge(fast, busy, 3, 1.5), PERF_OK);
    /* far slower than even the busy reference's slowest run: SLOW all the same */
    double very[3] = { 50.0, 51.0, 52.0 };
    CU_ASSERT_EQUAL(perf_judge(very, busy, 3, 1.5), PERF_SLOW);
    CU_ASSERT_PTR_NULL(perf_verdict_name(PERF_NONE));
}

/* ---- the generator ------------------------------------------------------------------- */

static char *generate(const char *solution, int *rc, char *err, size_t errlen)
{
    FILE *in = fmemopen((void *)solution, strlen(solution), "r");
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    *rc = gen_task(in, "sol.c", out, err, errlen);
    fclose(in);
    fclose(out);
    return buf;
}

static void test_gen_replaces_blocks(void)
{
    char err[300] = "";
    int rc;
    char *task = generate("int main(void)\n{\n    //@ TODO 1: sum it\n    //@\n"
                          "    //@ placeholder: int s = 0; /* TODO 1 */\n    //@ solution {\n"
                          "    int s = 42;\n    //@ }\n    return s;\n}\n",
                          &rc, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(task, "int main(void)\n{\n    // TODO 1: sum it\n    //\n"
                                 "    int s = 0; /* TODO 1 */\n    return s;\n}\n");
    free(task);
}

/* A bug hunt: the task gets the buggy line, or nothing for a missing one, and no marker. */
static void test_gen_bug_blocks(void)
{
    char err[300] = "";
    int rc;
    char *task = generate("a();\n    //@ bug: total = part;\n    //@ solution {\n    total += part;\n    //@ }\n"
                          "    //@ bug:\n    //@ solution {\n    __syncthreads();\n    //@ }\nb();\n",
                          &rc, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(task, "a();\n    total = part;\nb();\n");
    free(task);
}

/* A task file equal to what the generator makes of its solution is untouched. */
static void test_gen_task_untouched(void)
{
    char *solution = write_temp("int x;\n//@ TODO: set y\n//@ placeholder: int y = 0;\n//@ solution {\nint y = 1;\n//@ }\n");
    char *task = write_temp("int x;\n// TODO: set y\nint y = 0;\n");
    CU_ASSERT_EQUAL(gen_task_untouched(solution, task), 1);
    char *edited = write_temp("int x;\n// TODO: set y\nint y = 1;\n");
    CU_ASSERT_EQUAL(gen_task_untouched(solution, edited), 0);
    char *longer = write_temp("int x;\n// TODO: set y\nint y = 0;\n\n");
    CU_ASSERT_EQUAL(gen_task_untouched(solution, longer), 0);
    char *shorter = write_temp("int x;\n");
    CU_ASSERT_EQUAL(gen_task_untouched(solution, shorter), 0);
    CU_ASSERT_EQUAL(gen_task_untouched(solution, "/nonexistent/task.c"), -1);
    /* A bug hunt's solution is known by its bug marker: graded even when untouched. */
    char *hunt = write_temp("int x;\n//@ bug: int y = 0;\n//@ solution {\nint y = 1;\n//@ }\n");
    CU_ASSERT_EQUAL(gen_is_bug_hunt(hunt), 1);
    CU_ASSERT_EQUAL(gen_is_bug_hunt(solution), 0);
    CU_ASSERT_EQUAL(gen_is_bug_hunt("/nonexistent/solution.c"), -1);
    unlink(hunt);
    free(hunt);
    char *files[] = { solution, task, edited, longer, shorter };
    for (int i = 0; i < 5; i++) {
        unlink(files[i]);
        free(files[i]);
    }
}

static void test_gen_errors(void)
{
    char err[300] = "";
    int rc;
    free(generate("int x;\n", &rc, err, sizeof err));
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no '//@ solution {' block"));
    free(generate("//@ solution {\nint x;\n", &rc, err, sizeof err));
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "sol.c:1:"));
    free(generate("//@ solution {\n//@ solution {\n//@ }\n", &rc, err, sizeof err));
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "sol.c:2:"));
    free(generate("//@ }\n", &rc, err, sizeof err));
    CU_ASSERT_EQUAL(rc, -1);
    free(generate("//@ solution {\n//@ TODO inside\n//@ }\n", &rc, err, sizeof err));
    CU_ASSERT_EQUAL(rc, -1);
}

/* ---- the runner ------------------------------------------------------------------------ */

static void run_sh(const char *script, double timeout, size_t cap, run_result *res)
{
    char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
    run_request req = { .argv = argv, .timeout = timeout, .kill_grace = 0.5, .output_cap = cap };
    run_process(&req, res);
}

static int alive(pid_t pid)
{
    return kill(pid, 0) == 0 || errno != ESRCH;
}

static void test_runner_exit_and_output(void)
{
    run_result res;
    run_sh("echo out; echo err >&2; exit 3", 5, 4096, &res);
    CU_ASSERT_EQUAL(res.outcome, RUN_EXITED);
    CU_ASSERT_EQUAL(res.exit_code, 3);
    CU_ASSERT_STRING_EQUAL(res.out, "out\n");
    CU_ASSERT_STRING_EQUAL(res.err, "err\n");
    CU_ASSERT_EQUAL(res.leftovers, 0);
    run_result_free(&res);
}

static void test_runner_stdin_is_empty(void)
{
    run_result res;
    run_sh("cat; echo done", 5, 4096, &res);
    CU_ASSERT_EQUAL(res.outcome, RUN_EXITED);
    CU_ASSERT_STRING_EQUAL(res.out, "done\n");
    run_result_free(&res);
}

static void test_runner_timeout(void)
{
    run_result res;
    double start = now_seconds();
    run_sh("while :; do :; done", 0.5, 4096, &res);
    double took = now_seconds() - start;
    CU_ASSERT_EQUAL(res.outcome, RUN_TIMEOUT);
    CU_ASSERT(took >= 0.5 && took < 3.0);
    run_result_free(&res);
}

static void test_runner_ignores_sigterm(void)
{
    run_result res;
    double start = now_seconds();
    run_sh("trap '' TERM; echo $$; while :; do :; done", 0.3, 4096, &res);
    double took = now_seconds() - start;
    CU_ASSERT_EQUAL(res.outcome, RUN_TIMEOUT);
    /* SIGTERM ignored: SIGKILL after the 0.5 s grace */
    CU_ASSERT(took >= 0.8 && took < 4.0);
    pid_t pid = (pid_t)atoi(res.out);
    CU_ASSERT(pid > 0 && !alive(pid));
    run_result_free(&res);
}

static void test_runner_crash(void)
{
    run_result res;
    run_sh("kill -SEGV $$", 5, 4096, &res);
    CU_ASSERT_EQUAL(res.outcome, RUN_SIGNALED);
    CU_ASSERT_EQUAL(res.signal, SIGSEGV);
    char *text = run_describe(&res, 5);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "SIGSEGV"));
    free(text);
    run_result_free(&res);
}

static void test_runner_output_flood(void)
{
    run_result res;
    double start = now_seconds();
    run_sh("yes flooding", 30, 64 * 1024, &res);
    CU_ASSERT_EQUAL(res.outcome, RUN_OUTPUT_LIMIT);
    CU_ASSERT(res.out_len + res.err_len <= 64 * 1024);
    CU_ASSERT(now_seconds() - start < 5);
    run_result_free(&res);
    /* one endless line, no newline at all */
    run_sh("yes | tr -d '\\n'", 30, 64 * 1024, &res);
    CU_ASSERT_EQUAL(res.outcome, RUN_OUTPUT_LIMIT);
    CU_ASSERT(res.out_len <= 64 * 1024);
    CU_ASSERT_EQUAL(res.leftovers, 0);
    run_result_free(&res);
}

static void test_runner_detached_grandchild(void)
{
    run_result res;
    /* setsid: the grandchild leaves the run's session and process group. */
    run_sh("setsid sleep 300 & echo $!", 5, 4096, &res);
    CU_ASSERT_EQUAL(res.outcome, RUN_EXITED);
    CU_ASSERT_EQUAL(res.exit_code, 0);
    CU_ASSERT(res.leftovers >= 1);
    pid_t pid = (pid_t)atoi(res.out);
    CU_ASSERT(pid > 0 && !alive(pid));
    run_result_free(&res);
}

static void test_runner_grandchild_in_group_holding_pipe(void)
{
    run_result res;
    double start = now_seconds();
    /* The grandchild keeps stdout open: the runner must not wait for it. */
    run_sh("sleep 300 & echo $!", 5, 4096, &res);
    CU_ASSERT(now_seconds() - start < 3);
    CU_ASSERT(res.leftovers >= 1);
    pid_t pid = (pid_t)atoi(res.out);
    CU_ASSERT(pid > 0 && !alive(pid));
    run_result_free(&res);
}

static void test_runner_start_failure(void)
{
    char *argv[] = { "/nonexistent/program", NULL };
    run_request req = { .argv = argv, .timeout = 5, .kill_grace = 0.5, .output_cap = 4096 };
    run_result res;
    run_process(&req, &res);
    CU_ASSERT_EQUAL(res.outcome, RUN_START_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.start_error, "/nonexistent/program"));
    run_result_free(&res);
}

static void test_runner_environment_and_cwd(void)
{
    char *env[] = { "PR_UNIT_VALUE=xyz", NULL };
    char *argv[] = { "/bin/sh", "-c", "echo $PR_UNIT_VALUE; pwd", NULL };
    run_request req = { .argv = argv, .env_extra = env, .cwd = "/tmp", .timeout = 5, .kill_grace = 0.5, .output_cap = 4096 };
    run_result res;
    run_process(&req, &res);
    CU_ASSERT_STRING_EQUAL(res.out, "xyz\n/tmp\n");
    CU_ASSERT_PTR_NULL(getenv("PR_UNIT_VALUE"));
    run_result_free(&res);
}

/* A descriptor the grader holds open (no close-on-exec: a report, a script's log) does not
 * reach the program: it sees its three streams only. */
static void test_runner_no_inherited_descriptors(void)
{
    int fd = open("/dev/null", O_WRONLY);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(dup2(fd, 57) == 57);
    close(fd);
    char *argv[] = { "/bin/ls", "-1", "/proc/self/fd", NULL }; /* ls's own: 0, 1, 2 and the folder's */
    run_request req = { .argv = argv, .timeout = 5, .kill_grace = 0.5, .output_cap = 4096 };
    run_result res;
    run_process(&req, &res);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.out, "2\n"));
    CU_ASSERT_PTR_NULL(strstr(res.out, "57\n"));
    run_result_free(&res);
    close(57);
}

/* ---- judging a run ------------------------------------------------------------------------ */

/* The runner measures the work from outside: two busy processes, each its own CPU time. */
static void test_runner_measures_work(void)
{
    /* each loop counts to a fixed number: CPU time, however busy the machine is */
    char *argv[] = { "/bin/sh", "-c",
                     "spin() { i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done; }; spin & spin & wait", NULL };
    run_request req = { .argv = argv, .timeout = 60, .kill_grace = 0.5, .output_cap = 4096, .measure_work = 1 };
    run_result res;
    run_process(&req, &res);
    CU_ASSERT_EQUAL(res.outcome, RUN_EXITED);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res.work);
    const run_work *w = res.work;
    CU_ASSERT(w->cpu > 0.05);
    CU_ASSERT(w->samples > 0);
    CU_ASSERT_FATAL(w->nthreads >= 2 && w->nprocs >= 2);
    /* both loops seen, each with a large part of the whole (the parent shell: next to none) */
    CU_ASSERT(w->thread_cpu[1] > 0.25 * w->cpu);
    CU_ASSERT(w->thread_cpu[0] >= w->thread_cpu[1]);
    run_result_free(&res);
    CU_ASSERT_PTR_NULL(res.work);
    /* not asked: not measured */
    run_sh("true", 5, 4096, &res);
    CU_ASSERT_PTR_NULL(res.work);
    run_result_free(&res);
}

static run_work make_work(double cpu, int n, const double *threads)
{
    run_work w;
    memset(&w, 0, sizeof w);
    w.cpu = cpu;
    w.nthreads = n;
    for (int i = 0; i < n; i++)
        w.thread_cpu[i] = threads[i];
    w.samples = 10;
    return w;
}

/* The method check: against the reference's busy threads (or processes), with words that
 * say what to change. */
static void test_work_check(void)
{
    run_work ref = make_work(1.0, 3, (double[]){ 0.5, 0.45, 0.004 });
    run_work good = make_work(0.9, 2, (double[]){ 0.5, 0.3 });
    CU_ASSERT_PTR_NULL(work_check(&good, &ref, 2, 0));
    char *summary = work_summary(&ref);
    CU_ASSERT_STRING_EQUAL(summary, "2 threads, 52/47 % of 1.00 s CPU");
    free(summary);
    run_work serial = make_work(0.9, 2, (double[]){ 0.89, 0.003 });
    char *why = work_check(&serial, &ref, 2, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "one thread did 100 % of the work"));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "ran serially; with threads=2, each of the 2 threads should do a share"));
    free(why);
    run_work lopsided = make_work(1.0, 2, (double[]){ 0.7, 0.08 });
    why = work_check(&lopsided, &ref, 2, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "not spread as asked (threads=2): the busiest threads did 90/10 %"));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "the reference's 52/47 %"));
    free(why);
    run_work none = make_work(0.004, 1, (double[]){ 0.003 });
    why = work_check(&none, &ref, 2, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "did not come from the work"));
    free(why);
    /* fewer threads than asked: the missing ones did nothing */
    run_work three = make_work(1.0, 3, (double[]){ 0.4, 0.3, 0.3 });
    CU_ASSERT_PTR_NOT_NULL(why = work_check(&good, &three, 3, 0));
    free(why);
    /* threads started afresh for each timed run (4 runs of 2): one thread a run doing both
     * halves shows the busy ones and then nothing */
    run_work runs = make_work(1.0, 9, (double[]){ 0.6, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05 });
    run_work one_a_run = make_work(1.0, 5, (double[]){ 0.6, 0.1, 0.1, 0.1, 0.1 });
    CU_ASSERT_PTR_NULL(work_check(&runs, &runs, 2, 0));
    CU_ASSERT_PTR_NOT_NULL(why = work_check(&one_a_run, &runs, 2, 0));
    free(why);
    /* one short-lived worker the sampler never saw is not the method's fault; two are */
    run_work one_unseen = make_work(1.0, 8, (double[]){ 0.6, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05 });
    run_work two_unseen = make_work(1.0, 7, (double[]){ 0.6, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05 });
    CU_ASSERT_PTR_NULL(work_check(&one_unseen, &runs, 2, 0));
    CU_ASSERT_PTR_NOT_NULL(why = work_check(&two_unseen, &runs, 2, 0));
    free(why);
    /* without the reference's figures: an even share of the task's own time */
    CU_ASSERT_PTR_NULL(work_check(&good, NULL, 2, 0));
    CU_ASSERT_PTR_NOT_NULL(why = work_check(&serial, NULL, 2, 0));
    free(why);
    /* processes: the same rule over each process's own CPU time */
    run_work ref_p = make_work(1.0, 1, (double[]){ 1.0 }), parent_only = make_work(1.0, 1, (double[]){ 1.0 });
    ref_p.nprocs = 3, ref_p.proc_cpu[0] = 0.5, ref_p.proc_cpu[1] = 0.25, ref_p.proc_cpu[2] = 0.24;
    parent_only.nprocs = 2, parent_only.proc_cpu[0] = 0.98, parent_only.proc_cpu[1] = 0.001;
    CU_ASSERT_PTR_NULL(work_check(&ref_p, &ref_p, 2, 1));
    why = work_check(&parent_only, &ref_p, 2, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "one process did 100 % of the work"));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "with workers=2, each of the 2 processes"));
    free(why);
    summary = work_summary(&ref_p);
    CU_ASSERT_STRING_EQUAL(summary, "1 thread, 100 % in 3 processes, 51/25/24 % of 1.00 s CPU");
    free(summary);
    /* one thread in each process: the processes alone */
    run_work pool = make_work(1.0, 3, (double[]){ 0.5, 0.25, 0.24 });
    pool.nprocs = 3, pool.proc_cpu[0] = 0.5, pool.proc_cpu[1] = 0.25, pool.proc_cpu[2] = 0.24;
    summary = work_summary(&pool);
    CU_ASSERT_STRING_EQUAL(summary, "3 processes, 51/25/24 % of 1.00 s CPU");
    free(summary);
}

/* A rank record as the MPI layer writes it. */
static void write_rank(const char *dir, int r, const char *line)
{
    char path[256];
    snprintf(path, sizeof path, "%s/rank.%d", dir, r);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(line, f);
    fclose(f);
}

static void test_work_check_ranks(void)
{
    char dir[] = "/tmp/pr-unit-ranks-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    run_work ref = { 0 }, task = { 0 };
    /* the reference: rank 0 computes 0.6 s (its block and the serial check), rank 1 0.3 s;
     * both hand in a 2 MB block */
    write_rank(dir, 0, "rank=0 compute=0.6 mpi=0.01 sends=0 bytes_sent=0 recvs=0 bytes_recv=0 collectives=3 "
                       "bytes_coll=2000000 finalized=1\n");
    write_rank(dir, 1, "rank=1 compute=0.3 mpi=0.3 sends=1 bytes_sent=24 recvs=0 bytes_recv=0 collectives=3 "
                       "bytes_coll=2000000 finalized=1\n");
    work_read_ranks(dir, "rank", &ref);
    CU_ASSERT_EQUAL(ref.nranks, 2);
    CU_ASSERT(ref.ranks[1].seen && ref.ranks[1].ended);
    CU_ASSERT_DOUBLE_EQUAL(ref.ranks[0].compute, 0.6, 1e-9);
    CU_ASSERT_EQUAL(ref.ranks[1].bytes_coll, 2000000);
    CU_ASSERT_EQUAL(ref.ranks[1].sends, 1);
    char *summary = work_summary(&ref);
    CU_ASSERT_STRING_EQUAL(summary, "2 ranks, computing 67/33 % of 0.90 s CPU outside MPI; messages sent 0/1, "
                                    "collectives 3/3, 4.0 MB handed to MPI");
    free(summary);
    CU_ASSERT_PTR_NULL(work_check_ranks(&ref, &ref, 2));
    /* rank 0 computes it all; rank 1 still calls the collectives, with the same bytes */
    task = ref;
    task.ranks[0].compute = 0.9, task.ranks[1].compute = 0.004;
    char *why = work_check_ranks(&task, &ref, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "rank 0 did 100 % of the computing"));
    free(why);
    /* rank 1 hands MPI next to nothing: the data did not travel */
    task = ref;
    task.ranks[1].bytes_coll = 16, task.ranks[1].bytes_sent = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_ranks(&task, &ref, 2));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "rank 1 handed MPI 16 B where the reference's rank 1 handed it 2.0 MB"));
    free(why);
    /* rank 1 never calls MPI */
    task = ref;
    task.ranks[1].sends = task.ranks[1].colls = 0, task.ranks[1].bytes_sent = task.ranks[1].bytes_coll = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_ranks(&task, &ref, 2));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "rank 1 never called MPI after MPI_Init"));
    free(why);
    /* a rank that ends without MPI_Finalize (_exit: its start line only) */
    write_rank(dir, 1, "rank=1 started=1\n");
    work_read_ranks(dir, "rank", &task);
    CU_ASSERT(task.ranks[1].seen && !task.ranks[1].ended);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_ranks(&task, &ref, 2));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "rank 1 stopped before MPI_Finalize"));
    free(why);
    /* no MPI at all (a program that reads its rank from the launcher's variables) */
    run_work none = { 0 };
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_ranks(&none, &ref, 2));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "never started MPI"));
    free(why);
    /* a record of a rank that did not run (one the program wrote) */
    run_work extra = ref;
    extra.nranks = 3;
    extra.ranks[2] = ref.ranks[1];
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_ranks(&extra, &ref, 2));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "name 3 ranks where 2 ran"));
    free(why);
    /* not measured on the reference's side (srun, other hosts): nothing judged */
    CU_ASSERT_PTR_NULL(work_check_ranks(&none, &none, 2));
    /* too little computing to judge the shares: only the messages count */
    run_work small = ref, small_task = ref;
    small.ranks[0].compute = 0.004, small.ranks[1].compute = 0.002;
    small_task.ranks[0].compute = 0.006, small_task.ranks[1].compute = 0;
    CU_ASSERT_PTR_NULL(work_check_ranks(&small_task, &small, 2));
    /* method_calls and method_collectives: the collectives the task is about */
    write_rank(dir, 0, "rank=0 compute=0.6 collectives=3 bytes_coll=2000000 calls=MPI_Reduce_scatter,MPI_Allgatherv "
                       "finalized=1\n");
    write_rank(dir, 1, "rank=1 compute=0.3 collectives=3 bytes_coll=2000000 calls=MPI_Reduce_scatter,MPI_Allgatherv "
                       "finalized=1\n");
    run_work zero = { 0 }, full = { 0 };
    work_read_ranks(dir, "rank", &zero);
    CU_ASSERT_STRING_EQUAL(zero.ranks[1].calls, "MPI_Reduce_scatter,MPI_Allgatherv");
    CU_ASSERT_PTR_NULL(work_check_calls(&zero, &zero, "MPI_Reduce_scatter MPI_Allgatherv", 1.2));
    full = zero;
    snprintf(full.ranks[1].calls, sizeof full.ranks[1].calls, "MPI_Allreduce,MPI_Allgatherv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_calls(&full, &zero, "MPI_Reduce_scatter MPI_Allgatherv", 0));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "rank 1 never called MPI_Reduce_scatter"));
    free(why);
    CU_ASSERT_PTR_NULL(work_check_calls(&full, &zero, "MPI_Allgatherv", 0));
    /* a name only as part of another (MPI_Allgather in MPI_Allgatherv) does not count */
    snprintf(full.ranks[0].calls, sizeof full.ranks[0].calls, "MPI_Allgatherv");
    snprintf(zero.ranks[0].calls, sizeof zero.ranks[0].calls, "MPI_Allgather");
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_calls(&full, &zero, "MPI_Allgather", 0));
    free(why);
    full = zero;
    full.ranks[0].colls = 12; /* four times the reference's 3 */
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_calls(&full, &zero, NULL, 1.5));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "rank 0 took part in 12 collectives where the reference's rank 0 took part in 3"));
    free(why);
    full.ranks[0].colls = 5; /* within 1.5 times and 2 */
    CU_ASSERT_PTR_NULL(work_check_calls(&full, &zero, NULL, 1.5));
    /* a record with junk is read as far as it goes */
    write_rank(dir, 0, "rank=0 compute=nan sends=x junk finalized=1\n");
    work_read_ranks(dir, "rank", &task);
    CU_ASSERT(task.ranks[0].compute == 0 && task.ranks[0].sends == 0 && task.ranks[0].ended);
    char rm[64];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(rm), 0);
}

static void test_work_check_gpu(void)
{
    char dir[] = "/tmp/pr-unit-gpu-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char path[256];
    /* two processes (ranks), one record each, added up */
    snprintf(path, sizeof path, "%s/gpu.101", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("launches=2 threads=200000 units=400000 max_units=9 median_units=2 half_threads=100000 grid=391,1,1 "
          "block=256,1,1 h2d=400000 d2h=8 d2d=0\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/gpu.102", dir);
    f = fopen(path, "w");
    fputs("launches=1 threads=1024 units=1024 max_units=1 median_units=1 half_threads=512 grid=4,2,1 block=16,16,1 "
          "h2d=10 d2h=20 d2d=30\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/rank.0", dir); /* another prefix: not read */
    f = fopen(path, "w");
    fputs("launches=9 threads=9 units=9 max_units=9 median_units=9 half_threads=9 grid=1,1,1 block=1,1,1 h2d=0 "
          "d2h=0 d2d=0\n", f);
    fclose(f);
    run_work ref = { 0 };
    work_read_gpu(dir, "gpu", &ref);
    CU_ASSERT_EQUAL(ref.gpu.seen, 2);
    CU_ASSERT_EQUAL(ref.gpu.launches, 3);
    CU_ASSERT_EQUAL(ref.gpu.threads, 201024);
    CU_ASSERT_EQUAL(ref.gpu.half_threads, 100512);
    CU_ASSERT_EQUAL(ref.gpu.h2d, 400010);
    CU_ASSERT_EQUAL(ref.gpu.d2d, 30);
    CU_ASSERT(ref.gpu.grid[0] == 391 && ref.gpu.block[0] == 256);
    char *summary = work_gpu_summary(&ref);
    CU_ASSERT_STRING_EQUAL(summary, "GPU (simulated): 3 kernel launches, the largest 391 blocks of 256; half the work "
                                    "done by 101k of 201k threads, the busiest ran 9 steps, the median one 2; copied "
                                    "400.0 kB to the GPU, 28 B back");
    free(summary);
    CU_ASSERT_PTR_NULL(work_check_gpu(&ref, &ref));
    CU_ASSERT_EQUAL(ref.gpu.max_units, 9); /* the record where the busiest stands out most */
    CU_ASSERT_EQUAL(ref.gpu.median_units, 2);
    /* one thread did half the work (a tiny grid) */
    run_work task = ref;
    task.gpu.half_threads = 1;
    char *why = work_check_gpu(&task, &ref);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "busiest thread ran 9 loop steps, and half of all the work was done by 1 of "
                                      "201k threads (the reference's: by 101k)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "ran serially on the GPU"));
    free(why);
    /* one thread loops over everything, the many others idle: half the work looks spread */
    task = ref;
    task.gpu.max_units = 100005, task.gpu.median_units = 2;
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_gpu(&task, &ref));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "the busiest thread ran 100005 steps where the median one ran 2 (in the "
                                      "reference: 9 and 2)"));
    free(why);
    task.gpu.max_units = 128; /* 64 times the median: within */
    CU_ASSERT_PTR_NULL(work_check_gpu(&task, &ref));
    /* a grid-stride loop over fewer threads than the reference's, 512 or more doing half: fine */
    task.gpu.half_threads = 512;
    CU_ASSERT_PTR_NULL(work_check_gpu(&task, &ref));
    task.gpu.half_threads = 511;
    CU_ASSERT_PTR_NOT_NULL(why = work_check_gpu(&task, &ref));
    free(why);
    /* a small reference: an eighth of its threads */
    run_work small = ref, small_task = ref;
    small.gpu.half_threads = 80;
    small_task.gpu.half_threads = 10;
    CU_ASSERT_PTR_NULL(work_check_gpu(&small_task, &small));
    small_task.gpu.half_threads = 9;
    CU_ASSERT_PTR_NOT_NULL(why = work_check_gpu(&small_task, &small));
    free(why);
    /* a record more than the processes (one the program wrote) */
    task = ref;
    task.gpu.seen = 3;
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_gpu(&task, &ref));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "records of your run were 3 where its processes were 2"));
    free(why);
    /* no kernel at all; no record (ended through _exit); no record of the reference's */
    task = ref;
    task.gpu.launches = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_gpu(&task, &ref));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "launched no kernel"));
    free(why);
    run_work none = { 0 };
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_gpu(&none, &ref));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "left no record"));
    free(why);
    CU_ASSERT_PTR_NULL(work_check_gpu(&none, &none));
    CU_ASSERT_PTR_NULL(work_gpu_summary(&none));
    char rm[64];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(rm), 0);
}

/* The perf verdict of a simulated CUDA task from its memory counts (work_counts_slow). */
static void test_work_counts_slow(void)
{
    gpu_work ref = { 0 }, t;
    ref.mem_seen = 1;
    ref.ld_requests = 100, ref.ld_sectors = 400, ref.st_requests = 10, ref.st_sectors = 40;
    ref.sh_ld_requests = 50, ref.sh_ld_wavefronts = 50, ref.sh_st_requests = 50, ref.sh_st_wavefronts = 50;
    ref.atomics = 10;
    const char *measure = NULL;
    double ratio = 0;
    /* the same counts: not slow, the global traffic's ratio 1 */
    CU_ASSERT_EQUAL(work_counts_slow(&ref, &ref, 1.5, &measure, &ratio), 0);
    CU_ASSERT_STRING_EQUAL(measure, "global memory traffic");
    CU_ASSERT_DOUBLE_EQUAL(ratio, 1.0, 1e-12);
    /* uncoalesced loads: 8 times the sectors, 3.6 times the traffic with the stores */
    t = ref, t.ld_sectors = 3200;
    CU_ASSERT_EQUAL(work_counts_slow(&t, &ref, 1.5, &measure, &ratio), 1);
    CU_ASSERT_STRING_EQUAL(measure, "global memory traffic");
    CU_ASSERT_DOUBLE_EQUAL(ratio, 3240.0 / 440.0, 1e-9);
    /* at the limit exactly: not slow; just over it: slow */
    t = ref, t.ld_sectors = 660 - 40; /* 660 sectors in all: 1.5 x 440 */
    CU_ASSERT_EQUAL(work_counts_slow(&t, &ref, 1.5, &measure, &ratio), 0);
    t.ld_sectors++;
    CU_ASSERT_EQUAL(work_counts_slow(&t, &ref, 1.5, &measure, &ratio), 1);
    /* atomics: a few more are slack, an atomic per element is not */
    t = ref, t.atomics = 15 + WORK_ATOMIC_SLACK;
    CU_ASSERT_EQUAL(work_counts_slow(&t, &ref, 1.5, &measure, &ratio), 0);
    t.atomics = 2560;
    CU_ASSERT_EQUAL(work_counts_slow(&t, &ref, 1.5, &measure, &ratio), 1);
    CU_ASSERT_STRING_EQUAL(measure, "atomics");
    CU_ASSERT_DOUBLE_EQUAL(ratio, 256.0, 1e-9);
    /* shared memory: a 32-way conflict on the loads; fewer wavefronts (no shared memory) is fine */
    t = ref, t.sh_ld_wavefronts = 50 * 32;
    CU_ASSERT_EQUAL(work_counts_slow(&t, &ref, 1.5, &measure, &ratio), 1);
    CU_ASSERT_STRING_EQUAL(measure, "shared-memory wavefronts");
    CU_ASSERT_DOUBLE_EQUAL(ratio, 1650.0 / 100.0, 1e-9);
    t = ref, t.sh_ld_requests = t.sh_ld_wavefronts = t.sh_st_requests = t.sh_st_wavefronts = 0;
    CU_ASSERT_EQUAL(work_counts_slow(&t, &ref, 1.5, &measure, &ratio), 0);
    /* against a reference without shared memory: conflicts per request */
    gpu_work plain = ref;
    plain.sh_ld_requests = plain.sh_ld_wavefronts = plain.sh_st_requests = plain.sh_st_wavefronts = 0;
    t = ref;
    CU_ASSERT_EQUAL(work_counts_slow(&t, &plain, 1.5, &measure, &ratio), 0);
    t.sh_st_wavefronts = 50 * 4;
    CU_ASSERT_EQUAL(work_counts_slow(&t, &plain, 1.5, &measure, &ratio), 1);
    CU_ASSERT_STRING_EQUAL(measure, "shared-memory wavefronts per request");
    CU_ASSERT_DOUBLE_EQUAL(ratio, 2.5, 1e-9);
    /* a larger limit lets 8 times the traffic pass */
    t = ref, t.ld_sectors = 3200;
    CU_ASSERT_EQUAL(work_counts_slow(&t, &ref, 10, &measure, &ratio), 0);
    /* the method check's floor: a sixteenth of the reference's traffic is enough, less is not */
    CU_ASSERT_PTR_NULL(work_check_traffic(&ref, &ref));
    t = ref, t.ld_sectors = 20, t.st_sectors = 8; /* 28 of 440: 28 x 16 = 448, not below */
    CU_ASSERT_PTR_NULL(work_check_traffic(&t, &ref));
    t.st_sectors = 7; /* 27 x 16 = 432: below */
    char *low = work_check_traffic(&t, &ref);
    CU_ASSERT_PTR_NOT_NULL(low);
    free(low);
    t = ref, t.ld_sectors = 10, t.st_sectors = 10; /* 20 of 440 */
    char *why = work_check_traffic(&t, &ref);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "moved 20 sectors of GPU memory where the reference's moved 440"));
    free(why);
    t.mem_seen = 0; /* not profiled: nothing to judge */
    CU_ASSERT_PTR_NULL(work_check_traffic(&t, &ref));
    /* atomics: none where the reference made some FAILs; fewer, more, or none on both sides pass */
    gpu_work ra = ref;
    ra.atomics = 391;
    t = ra;
    CU_ASSERT_PTR_NULL(work_check_atomics(&t, &ra));
    t.atomics = 1;
    CU_ASSERT_PTR_NULL(work_check_atomics(&t, &ra));
    t.atomics = 100000;
    CU_ASSERT_PTR_NULL(work_check_atomics(&t, &ra));
    t.atomics = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_atomics(&t, &ra));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "made no atomic operation where the reference's made 391"));
    free(why);
    ra.atomics = 0;
    CU_ASSERT_PTR_NULL(work_check_atomics(&t, &ra));
    ra.atomics = 391, t.mem_seen = 0;
    CU_ASSERT_PTR_NULL(work_check_atomics(&t, &ra));
    /* kernel by kernel, from the profile lines: an emptied kernel whose part the CPU did */
    char dir[] = "/tmp/pr-unit-kernels-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char *path = xasprintf("%s/prof.1", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("profile matvec launches=1 ld_sectors=5000 st_sectors=100 worst=-\n"
          "profile through_half launches=1 ld_sectors=900 st_sectors=980 worst=-\n"
          "profile tiny launches=1 ld_sectors=10 st_sectors=0 worst=-\n"
          "profile through_half launches=1 ld_sectors=1 st_sectors=1 worst=-\n", f);
    fclose(f);
    run_work rw = { 0 }, tw = { 0 };
    work_read_profile(dir, "prof", &rw);
    CU_ASSERT_EQUAL(rw.gpu.nkernels, 3);
    CU_ASSERT_STRING_EQUAL(rw.gpu.kernel[1].name, "through_half");
    CU_ASSERT_EQUAL(rw.gpu.kernel[1].sectors, 1882);
    CU_ASSERT_PTR_NULL(work_check_kernels(&rw.gpu, &rw.gpu));
    tw = rw;
    tw.gpu.kernel[1].sectors = 0;
    tw.gpu.kernel[2].sectors = 0; /* under WORK_KERNEL_MIN_SECTORS in the reference: not judged */
    CU_ASSERT_PTR_NOT_NULL_FATAL(why = work_check_kernels(&tw.gpu, &rw.gpu));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "the kernel through_half moved 0 sectors of GPU memory where the reference's moved 1882"));
    free(why);
    tw.gpu.kernel[1].sectors = 118; /* 118 x 16 = 1888: not below */
    CU_ASSERT_PTR_NULL(work_check_kernels(&tw.gpu, &rw.gpu));
    unlink(path);
    rmdir(dir);
    free(path);
}

static void test_judge_run(void)
{
    result_set want;
    char err[100];
    CU_ASSERT_EQUAL_FATAL(results_parse("result a = 1\n", &want, err, sizeof err), 0);
    run_result res = { 0 };
    char *msg = NULL;
    res.outcome = RUN_EXITED;
    res.out = "result a = 1\n";
    res.err = "";
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 0, &msg), ST_PASS);
    CU_ASSERT_PTR_NULL(msg);
    res.exit_code = 1;
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 0, &msg), ST_FAIL);
    free(msg);
    res.exit_code = 0;
    res.leftovers = 1;
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 0, &msg), ST_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "left 1 process"));
    free(msg);
    res.leftovers = 0;
    res.out = "result a = 2\n";
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 0, &msg), ST_FAIL);
    free(msg);
    res.out = "";
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 0, &msg), ST_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "missing"));
    free(msg);
    res.outcome = RUN_TIMEOUT;
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 0, &msg), ST_TIMEOUT);
    CU_ASSERT_PTR_NULL(strstr(msg, "deadlock"));
    free(msg);
    /* Under mpiexec a hang is named for what it most likely is. */
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 1, &msg), ST_TIMEOUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "likely a deadlock"));
    free(msg);
    res.outcome = RUN_SIGNALED;
    res.signal = SIGABRT;
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 0, &msg), ST_CRASH);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "SIGABRT"));
    free(msg);
    res.outcome = RUN_OUTPUT_LIMIT;
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 0, &msg), ST_FAIL);
    free(msg);
    /* Under mpiexec a rank's signal arrives as the launcher's exit status and words. */
    res.outcome = RUN_EXITED;
    res.exit_code = 11;
    res.out = "";
    res.err = "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)\n";
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 1, &msg), ST_CRASH);
    CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, "SIGSEGV"));
    free(msg);
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 0, &msg), ST_FAIL); /* not launched by mpiexec */
    free(msg);
    /* Hydra hanging up on the other ranks after one exited with an error: not a crash. */
    res.exit_code = 1;
    res.out = "result a = 1\n";
    res.err = "pr.h: this rank ended without calling MPI_Finalize\n"
              "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Hangup (signal 1)\n";
    res.err_len = strlen(res.err);
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 1, &msg), ST_FAIL);
    CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, "MPI_Finalize"));
    free(msg);
    /* The CUDA simulator's own stop is said as such, not as the program's own check. */
    res.exit_code = 70;
    res.out = "";
    res.err = "cuda-sim: error: __syncthreads() reached by 3 of 4 threads of block 0\n";
    res.err_len = strlen(res.err);
    CU_ASSERT_EQUAL(judge_run(&res, 1, &want, 0, &msg), ST_FAIL);
    CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, "stopped by the CUDA simulator: __syncthreads() reached"));
    CU_ASSERT_PTR_NULL(msg && strstr(msg, "its own check"));
    free(msg);
    results_free(&want);
}

static void test_launcher_signal(void)
{
    CU_ASSERT_EQUAL(launcher_reported_signal("x\nYOUR APPLICATION TERMINATED WITH THE EXIT STRING: Aborted (signal 6)\n"), 6);
    CU_ASSERT_EQUAL(launcher_reported_signal("mpiexec noticed that process rank 1 with PID 0 on node n1 exited on "
                                             "signal 11 (Segmentation fault).\n"), 11);
    CU_ASSERT_EQUAL(launcher_reported_signal("srun: error: node7: task 3: Segmentation fault\n"
                                             "srun: error: node7: task 0: Terminated\n"), 11);
    CU_ASSERT_EQUAL(launcher_reported_signal("srun: error: node7: task 0: Terminated\n"), 0);
    CU_ASSERT_EQUAL(launcher_reported_signal("srun: error: Unable to allocate resources\n"), 0);
    CU_ASSERT_EQUAL(launcher_reported_signal("EXIT STRING: Terminated\n"), 0);
    CU_ASSERT_EQUAL(launcher_reported_signal(""), 0);
    CU_ASSERT_EQUAL(launcher_reported_signal(NULL), 0);
}

/* CUDA failures that are the machine's, not the code's, named from what a run printed. */
static void test_gpu_failure_cause(void)
{
    const char *c = gpu_failure_cause("", "task1.cu:210: cudaMalloc(&d, bytes) failed: CUDA-capable device(s) "
                                          "is/are busy or unavailable\n");
    CU_ASSERT_PTR_NOT_NULL(c && strstr(c, "Exclusive_Process"));
    c = gpu_failure_cause("task2.cu:88: cudaGetDeviceCount(&n) failed: CUDA driver version is insufficient for "
                          "CUDA runtime version\n", NULL);
    CU_ASSERT_PTR_NOT_NULL(c && strstr(c, "driver is older"));
    CU_ASSERT_PTR_NULL(gpu_failure_cause("task1.cu:12: cudaMalloc failed: out of memory\n", ""));
    CU_ASSERT_PTR_NULL(gpu_failure_cause(NULL, NULL));
}

/* A toolchain as detection would leave it, without asking the machine. */
static void fake_toolchain(toolchain *tc, int have_gpu)
{
    memset(tc, 0, sizeof *tc);
    tc->cc = xstrdup("cc");
    tc->mpicc = xstrdup("mpicc");
    tc->mpicxx = xstrdup("mpicxx");
    tc->mpiexec = xstrdup("mpiexec");
    tc->nvcc = xstrdup("nvcc");
    tc->cuda_arch = xstrdup("native");
    tc->grading_dir = xstrdup("/w/grading");
    tc->include_dir = xstrdup("/w/grading/include");
    tc->root = xstrdup("/w");
    tc->simcc = xstrdup("/w/grading/sim/simcc");
    tc->mpi_version = xstrdup("MPICH 4.0.2");
    tc->have_cc = tc->have_mpi = tc->have_nvcc = 1;
    tc->have_gpu = have_gpu;
    tc->cores = 2;
}

static int has_word(const strlist *l, const char *word)
{
    for (int i = 0; i < l->count; i++)
        if (strcmp(l->items[i], word) == 0)
            return 1;
    return 0;
}

/* MPICXX and MPIEXEC belong to MPICC: same folder, same suffix, where they exist. */
static void test_mpi_sibling(void)
{
    char dir[] = "/tmp/pr-sibling-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    const char *names[] = { "mpicc.fake", "mpiexec.fake", "mpicc", "mpicxx" };
    for (int i = 0; i < 4; i++) {
        char *path = xasprintf("%s/%s", dir, names[i]);
        FILE *f = fopen(path, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fclose(f);
        chmod(path, 0755);
        free(path);
    }
    char *cc = xasprintf("%s/mpicc.fake", dir), *want = xasprintf("%s/mpiexec.fake", dir);
    char *got = mpi_sibling(cc, "mpiexec");
    CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
    got = mpi_sibling(cc, "mpicxx"); /* no mpicxx.fake: the plain name */
    CU_ASSERT_STRING_EQUAL(got, "mpicxx");
    free(got), free(cc), free(want);
    cc = xasprintf("%s/mpicc", dir), want = xasprintf("%s/mpicxx", dir);
    got = mpi_sibling(cc, "mpicxx");
    CU_ASSERT_STRING_EQUAL(got, want);
    free(got), free(cc), free(want);
    /* found on PATH, as Debian's mpicc.openmpi is */
    char *old_path = xstrdup(getenv("PATH") ? getenv("PATH") : "");
    setenv("PATH", dir, 1);
    got = mpi_sibling("mpicc.fake", "mpiexec");
    CU_ASSERT_STRING_EQUAL(got, "mpiexec.fake");
    free(got);
    got = mpi_sibling("cc-wrapper", "mpiexec"); /* not an mpicc: the plain name */
    CU_ASSERT_STRING_EQUAL(got, "mpiexec");
    free(got);
    setenv("PATH", old_path, 1);
    free(old_path);
    for (int i = 0; i < 4; i++) {
        char *path = xasprintf("%s/%s", dir, names[i]);
        unlink(path);
        free(path);
    }
    rmdir(dir);
}

static void test_toolchain_cuda_mpi(void)
{
    toolchain tc;
    task_meta task;
    memset(&task, 0, sizeof task);
    task.kind = "cuda_mpi";
    task.room = "05_x";
    task.libs = "-lnccl -lsurely_not_installed_xyz";

    /* No GPU: simulated, built by simcc with MPI's C++ wrapper as its host compiler. */
    fake_toolchain(&tc, 0);
    int needs_gpu = -1;
    char *why = toolchain_skip_reason(&tc, &task, &needs_gpu);
    CU_ASSERT_PTR_NULL(why);
    free(why);
    CU_ASSERT_EQUAL(toolchain_mode(&tc, &task), MODE_SIM);
    strlist cmd = { 0 };
    build_command(&tc, &task, "t.cu", "t", &cmd);
    CU_ASSERT_STRING_EQUAL(cmd.items[0], "/w/grading/sim/simcc");
    CU_ASSERT(has_word(&cmd, "-ccbin") && has_word(&cmd, "mpicxx"));
    /* of the task's libraries, only those the simulator offers: NCCL (on MPI) */
    CU_ASSERT(has_word(&cmd, "-lnccl"));
    CU_ASSERT(!has_word(&cmd, "-lsurely_not_installed_xyz"));
    /* pr.h's folder and the room's own (its shared header), whatever folder the task came from */
    CU_ASSERT(has_word(&cmd, "-I/w/grading/include") && has_word(&cmd, "-I/w/05_x"));
    sl_free(&cmd);

    /* ... and -lcublas too (grading/sim/cublas_v2.h); -lcufft is left out (simcc refuses it). */
    task.libs = "-lcublas -lnccl -lcufft";
    build_command(&tc, &task, "t.cu", "t", &cmd);
    CU_ASSERT(has_word(&cmd, "-lcublas") && has_word(&cmd, "-lnccl") && !has_word(&cmd, "-lcufft"));
    sl_free(&cmd);
    task.libs = "-lnccl -lsurely_not_installed_xyz";

    /* NCCL tasks are simulated too (grading/sim/nccl.h, on MPI). */
    task.kind = "nccl";
    why = toolchain_skip_reason(&tc, &task, &needs_gpu);
    CU_ASSERT_PTR_NULL(why);
    free(why);
    CU_ASSERT_EQUAL(toolchain_mode(&tc, &task), MODE_SIM);
    toolchain_free(&tc);

    /* A GPU: nvcc, the wrapper again, and a library that is not installed left out. */
    fake_toolchain(&tc, 1);
    task.kind = "cuda_mpi";
    CU_ASSERT_EQUAL(toolchain_mode(&tc, &task), MODE_NATIVE);
    build_command(&tc, &task, "t.cu", "t", &cmd);
    CU_ASSERT_STRING_EQUAL(cmd.items[0], "nvcc");
    CU_ASSERT(has_word(&cmd, "-ccbin") && has_word(&cmd, "mpicxx"));
    CU_ASSERT(!has_word(&cmd, "-lsurely_not_installed_xyz"));
    CU_ASSERT(has_word(&cmd, "-lm"));
    sl_free(&cmd);

    /* HOSTS=a,b: MPICH's mpiexec gets -hosts (Open MPI's --host). */
    tc.hosts = xstrdup("node1,node2");
    task.kind = "mpi";
    run_config cfg = { 0 };
    char *keys[] = { "ranks", "n" }, *values[] = { "3", "7" };
    cfg.keys = keys, cfg.values = values, cfg.nkeys = 2;
    strlist env = { 0 };
    launch_command(&tc, &task, &cfg, "./t", &cmd, &env);
    CU_ASSERT_STRING_EQUAL(cmd.items[0], "mpiexec");
    CU_ASSERT(cmd.count == 7 && strcmp(cmd.items[3], "-hosts") == 0 && strcmp(cmd.items[4], "node1,node2") == 0);
    CU_ASSERT(has_word(&cmd, "n=7") && !has_word(&cmd, "ranks=3"));
    sl_free(&cmd);
    tc.launcher = launcher_lookup("openmpi");
    unsetenv("OMPI_MCA_odls_base_sigkill_timeout");
    launch_command(&tc, &task, &cfg, "./t", &cmd, &env);
    CU_ASSERT(has_word(&cmd, "--host") && has_word(&cmd, "--oversubscribe"));
    /* a failing job is not kept waiting 2 s for Open MPI's kill delay */
    CU_ASSERT(has_word(&env, "OMPI_MCA_odls_base_sigkill_timeout=0"));
    sl_free(&cmd);
    sl_free(&env);

    /* Inside a Slurm allocation srun starts the ranks, with the PMI the MPI speaks. */
    free(tc.hosts), tc.hosts = NULL;
    free(tc.mpiexec), tc.mpiexec = xstrdup("srun");
    tc.launcher = launcher_lookup("srun"), tc.pmi = xstrdup("pmix");
    launch_command(&tc, &task, &cfg, "./t", &cmd, &env);
    CU_ASSERT_STRING_EQUAL(cmd.items[0], "srun");
    CU_ASSERT(has_word(&cmd, "--mpi=pmix") && has_word(&cmd, "--kill-on-bad-exit=1"));
    CU_ASSERT(!has_word(&cmd, "--oversubscribe") && !has_word(&cmd, "--mpi=pmi2"));
    sl_free(&cmd);
    sl_push(&tc.mpiexec_flags, "--mpi=cray_shasta"); /* MPIEXEC_FLAGS chooses: ours is left out */
    launch_command(&tc, &task, &cfg, "./t", &cmd, &env);
    CU_ASSERT(has_word(&cmd, "--mpi=cray_shasta") && !has_word(&cmd, "--mpi=pmix"));
    sl_free(&cmd);
    sl_free(&tc.mpiexec_flags);
    free(tc.pmi), tc.pmi = NULL; /* no PMI srun knows: the site's default */
    launch_command(&tc, &task, &cfg, "./t", &cmd, &env);
    for (int i = 0; i < cmd.count; i++)
        CU_ASSERT(strncmp(cmd.items[i], "--mpi", 5) != 0);
    sl_free(&cmd);
    sl_free(&env);
    task.kind = "cuda_mpi";

    /* A missing MPI is not a missing GPU: a check must not accept that SKIP. */
    tc.have_mpi = 0;
    why = toolchain_skip_reason(&tc, &task, &needs_gpu);
    CU_ASSERT_PTR_NOT_NULL(why);
    CU_ASSERT_EQUAL(needs_gpu, 0);
    free(why);
    toolchain_free(&tc);
}

/* ---- pinned commands: the launchers' argv and environment, every kind's build ------- */

/* Chooses the launcher that starts an MPI task's ranks ("hydra", "openmpi", "srun"), as
 * detection would, with pmi as srun's --mpi= choice (NULL: the site's default). */
static void use_launcher(toolchain *tc, const char *name, const char *pmi)
{
    tc->launcher = launcher_lookup(name);
    tc->launcher_recognised = 1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(tc->launcher);
    free(tc->pmi);
    tc->pmi = pmi ? xstrdup(pmi) : NULL;
    free(tc->mpiexec);
    tc->mpiexec = xstrdup(tc->launcher->program ? tc->launcher->program : "mpiexec");
}

/* A run mode as the reports write it. */
#define MODE_NAME(mode) run_mode_name(mode)

#define WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NO_WORDS ((const char *const[]){ NULL })

/* 1 when got holds exactly the words of want (NULL-terminated); else 0, and both are shown. */
static int words_are(const strlist *got, const char *const *want)
{
    int n = 0;
    while (want[n])
        n++;
    int same = got->count == n;
    for (int i = 0; same && i < n; i++)
        same = strcmp(got->items[i], want[i]) == 0;
    if (!same) {
        fprintf(stderr, "\n    got: ");
        for (int i = 0; i < got->count; i++)
            fprintf(stderr, " %s", got->items[i]);
        fprintf(stderr, "\n    want:");
        for (int i = 0; i < n; i++)
            fprintf(stderr, " %s", want[i]);
        fprintf(stderr, "\n");
    }
    return same;
}

/* launch_command for an MPI task in "ranks=4 n=7" (with threads: "ranks=4 threads=2 n=7"),
 * into fresh argv and env. */
static void launch_four(const toolchain *tc, int threads, strlist *argv, strlist *env)
{
    task_meta task;
    memset(&task, 0, sizeof task);
    task.kind = "mpi";
    char *keys[] = { "ranks", "n" }, *values[] = { "4", "7" };
    char *tkeys[] = { "ranks", "threads", "n" }, *tvalues[] = { "4", "2", "7" };
    run_config cfg = { .label = "ranks=4 n=7", .nkeys = threads ? 3 : 2, .keys = threads ? tkeys : keys,
                       .values = threads ? tvalues : values };
    memset(argv, 0, sizeof *argv);
    memset(env, 0, sizeof *env);
    launch_command(tc, &task, &cfg, "./t", argv, env);
}

/* MPICH's Hydra mpiexec: -n, then -hosts or -f, then MPIEXEC_FLAGS; no environment of its own. */
static void test_launcher_hydra(void)
{
    toolchain tc;
    fake_toolchain(&tc, 0);
    use_launcher(&tc, "hydra", NULL);
    strlist argv, env;
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "4", "./t", "n=7")));
    CU_ASSERT(words_are(&env, NO_WORDS));
    sl_free(&argv), sl_free(&env);
    /* the MPI work layer: loaded into the ranks, not into mpiexec; not through an mpiexec of
     * unknown ways (a wrapper that names no MPI) */
    CU_ASSERT(mpi_layer_applies(&tc));
    tc.launcher_recognised = 0;
    CU_ASSERT(!mpi_layer_applies(&tc));
    tc.launcher_recognised = 1;
    task_meta mpi_task = { .kind = "mpi" };
    char *keys[] = { "ranks" }, *values[] = { "2" };
    run_config two = { .label = "ranks=2", .nkeys = 1, .keys = keys, .values = values };
    memset(&argv, 0, sizeof argv), memset(&env, 0, sizeof env);
    launch_command_layer(&tc, &mpi_task, &two, "./t", "/b/layer.so", &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "2", "-genv", "LD_PRELOAD", "/b/layer.so", "./t")));
    sl_free(&argv), sl_free(&env);
    tc.hosts = xstrdup("node1,node2");
    CU_ASSERT(!mpi_layer_applies(&tc)); /* the records would be written on the other nodes */
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "4", "-hosts", "node1,node2", "./t", "n=7")));
    CU_ASSERT(words_are(&env, NO_WORDS));
    sl_free(&argv), sl_free(&env);
    free(tc.hosts), tc.hosts = NULL;
    tc.hostfile = xstrdup("/w/hosts.txt");
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "4", "-f", "/w/hosts.txt", "./t", "n=7")));
    sl_free(&argv), sl_free(&env);
    sl_split_words(&tc.mpiexec_flags, "-bind-to none");
    launch_four(&tc, 1, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "4", "-f", "/w/hosts.txt", "-bind-to", "none", "./t",
                                     "threads=2", "n=7")));
    CU_ASSERT(words_are(&env, WORDS("OMP_NUM_THREADS=2")));
    sl_free(&argv), sl_free(&env);
    /* grade --launch: the same words before a program of the script's own */
    memset(&argv, 0, sizeof argv), memset(&env, 0, sizeof env);
    launcher_prefix(&tc, "3", &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "3", "-f", "/w/hosts.txt", "-bind-to", "none")));
    CU_ASSERT(words_are(&env, NO_WORDS));
    sl_free(&argv), sl_free(&env);
    toolchain_free(&tc);
    /* A rank's signal, as Hydra says it (on stdout); not the others' words. */
    const launcher *hydra = launcher_lookup("hydra");
    CU_ASSERT_EQUAL(hydra->reported_signal("YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)\n"), 9);
    CU_ASSERT_EQUAL(hydra->reported_signal("EXIT STRING: Terminated\n(signal 15)\n"), 0); /* not on its line */
    CU_ASSERT_EQUAL(hydra->reported_signal("... exited on signal 11 (Segmentation fault).\n"), 0);
    CU_ASSERT_EQUAL(hydra->reported_signal(NULL), 0);
}

/* Open MPI's mpiexec: --host or --hostfile, --oversubscribe, --bind-to none unless MPIEXEC_FLAGS
 * bind, no kill delay unless the user chose one, and (as root) the two variables that let it start. */
static void test_launcher_openmpi(void)
{
    char *was = getenv("OMPI_MCA_odls_base_sigkill_timeout") ? xstrdup(getenv("OMPI_MCA_odls_base_sigkill_timeout"))
                                                             : NULL;
    unsetenv("OMPI_MCA_odls_base_sigkill_timeout");
    int root = geteuid() == 0;
    toolchain tc;
    fake_toolchain(&tc, 0);
    use_launcher(&tc, "openmpi", NULL);
    strlist argv, env;
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "4", "--oversubscribe", "--bind-to", "none", "./t", "n=7")));
    {
        task_meta mpi_task = { .kind = "mpi" };
        char *keys[] = { "ranks" }, *values[] = { "2" };
        run_config two = { .label = "ranks=2", .nkeys = 1, .keys = keys, .values = values };
        strlist a = { 0 }, e = { 0 };
        launch_command_layer(&tc, &mpi_task, &two, "./t", "/b/layer.so", &a, &e);
        CU_ASSERT(words_are(&a, WORDS("mpiexec", "-n", "2", "--oversubscribe", "--bind-to", "none", "-x", "LD_PRELOAD=/b/layer.so", "./t")));
        sl_free(&a), sl_free(&e);
    }
    CU_ASSERT(words_are(&env, root ? WORDS("OMPI_MCA_odls_base_sigkill_timeout=0", "OMPI_ALLOW_RUN_AS_ROOT=1",
                                           "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
                                   : WORDS("OMPI_MCA_odls_base_sigkill_timeout=0")));
    sl_free(&argv), sl_free(&env);
    tc.hosts = xstrdup("node1,node2");
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "4", "--host", "node1,node2", "--oversubscribe", "--bind-to", "none", "./t",
                                     "n=7")));
    sl_free(&argv), sl_free(&env);
    free(tc.hosts), tc.hosts = NULL;
    tc.hostfile = xstrdup("/w/hosts.txt");
    sl_split_words(&tc.mpiexec_flags, "--bind-to none");
    setenv("OMPI_MCA_odls_base_sigkill_timeout", "5", 1); /* the user's own choice: kept */
    launch_four(&tc, 1, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "4", "--hostfile", "/w/hosts.txt", "--oversubscribe",
                                     "--bind-to", "none", "./t", "threads=2", "n=7")));
    CU_ASSERT(words_are(&env, root ? WORDS("OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                                           "OMP_NUM_THREADS=2")
                                   : WORDS("OMP_NUM_THREADS=2")));
    sl_free(&argv), sl_free(&env);
    if (was)
        setenv("OMPI_MCA_odls_base_sigkill_timeout", was, 1);
    else
        unsetenv("OMPI_MCA_odls_base_sigkill_timeout");
    free(was);
    toolchain_free(&tc);
    const launcher *openmpi = launcher_lookup("openmpi");
    CU_ASSERT_EQUAL(openmpi->reported_signal("mpiexec noticed that process rank 1 with PID 0 on node n1 exited on "
                                             "signal 6 (Aborted).\n"), 6);
    CU_ASSERT_EQUAL(openmpi->reported_signal("EXIT STRING: Aborted (signal 6)\n"), 0);
    CU_ASSERT_EQUAL(openmpi->reported_signal(NULL), 0);
}

/* Slurm's srun: --overcommit, --kill-on-bad-exit=1, the PMI the MPI speaks unless
 * MPIEXEC_FLAGS chooses one; hosts are not its business (Slurm places the ranks). */
static void test_launcher_srun(void)
{
    toolchain tc;
    fake_toolchain(&tc, 0);
    use_launcher(&tc, "srun", "pmi2");
    CU_ASSERT(!mpi_layer_applies(&tc)); /* ranks on the allocation's nodes: not measured */
    strlist argv, env;
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("srun", "--overcommit", "--kill-on-bad-exit=1", "--mpi=pmi2", "-n", "4", "./t",
                                     "n=7")));
    CU_ASSERT(words_are(&env, NO_WORDS));
    sl_free(&argv), sl_free(&env);
    tc.hosts = xstrdup("node1,node2");
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("srun", "--overcommit", "--kill-on-bad-exit=1", "--mpi=pmi2", "-n", "4", "./t",
                                     "n=7")));
    CU_ASSERT(words_are(&env, NO_WORDS));
    sl_free(&argv), sl_free(&env);
    free(tc.hosts), tc.hosts = NULL;
    use_launcher(&tc, "srun", NULL); /* no PMI srun knows for this MPI: the site's default */
    launch_four(&tc, 1, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("srun", "--overcommit", "--kill-on-bad-exit=1", "-n", "4", "./t", "threads=2",
                                     "n=7")));
    CU_ASSERT(words_are(&env, WORDS("OMP_NUM_THREADS=2")));
    sl_free(&argv), sl_free(&env);
    use_launcher(&tc, "srun", "pmix");
    sl_split_words(&tc.mpiexec_flags, "--mpi=cray_shasta --exclusive");
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("srun", "--overcommit", "--kill-on-bad-exit=1", "-n", "4", "--mpi=cray_shasta",
                                     "--exclusive", "./t", "n=7")));
    sl_free(&argv), sl_free(&env);
    toolchain_free(&tc);
    /* srun names the signal's description per task; Terminated and Killed are its own clean-up. */
    const launcher *srun = launcher_lookup("srun");
    CU_ASSERT_EQUAL(srun->reported_signal("srun: error: node7: task 0: Terminated\n"
                                          "srun: error: node7: task 2: Aborted\n"), SIGABRT);
    CU_ASSERT_EQUAL(srun->reported_signal("srun: error: node7: task 1: Killed\n"), 0);
    CU_ASSERT_EQUAL(srun->reported_signal("EXIT STRING: Aborted (signal 6)\n"), 0);
    CU_ASSERT_PTR_NOT_NULL(srun->no_hosts); /* HOSTS are refused under it (test_hosts_under_slurm) */
}

/* Every launcher in the table has its test above: adding a row means adding its test. */
static void test_launchers_all_tested(void)
{
    static const char *const tested[] = { "hydra", "openmpi", "srun" };
    CU_ASSERT_EQUAL(nlaunchers, (int)(sizeof tested / sizeof tested[0]));
    for (int i = 0; i < nlaunchers; i++) {
        int found = 0;
        for (size_t t = 0; t < sizeof tested / sizeof tested[0]; t++)
            found |= strcmp(launchers[i].name, tested[t]) == 0;
        if (!found)
            fprintf(stderr, "\n    launcher %s has no test of its argv and env\n", launchers[i].name);
        CU_ASSERT(found);
        /* a row is chosen one way or the other, and can launch */
        CU_ASSERT((launchers[i].chosen_by_environment != NULL) != (launchers[i].version_marks != NULL));
        CU_ASSERT_PTR_NOT_NULL(launchers[i].command);
        CU_ASSERT(!launchers[i].version_marks || (launchers[i].version && launchers[i].pmi));
        CU_ASSERT(!launchers[i].chosen_by_environment || launchers[i].program);
    }
}

/* A fake MPI in a folder of its own: mpicc, mpiexec printing `version`, and (slurm) an
 * srun whose --mpi=list prints `plugins`. */
static char *fake_mpi(const char *version, const char *plugins)
{
    char *dir = xstrdup("/tmp/pr-fake-mpi-XXXXXX");
    if (!mkdtemp(dir))
        return dir;
    const char *names[] = { "mpicc", "mpiexec", "srun" };
    for (int i = 0; i < 3; i++) {
        if (i == 2 && !plugins)
            continue;
        char *path = xasprintf("%s/%s", dir, names[i]);
        char *text = i == 0 ? xstrdup("#!/bin/sh\nexit 0\n")
                            : xasprintf("#!/bin/sh\nprintf '%s'\n", i == 1 ? version : plugins);
        write_file(path, text, strlen(text));
        chmod(path, 0755);
        free(path), free(text);
    }
    return dir;
}

/* The variables a toolchain's detection reads, saved and unset; restored (and freed) after. */
static const char *const detect_vars[] = { "PATH", "MPICC", "MPICXX", "MPIEXEC", "MPIEXEC_FLAGS", "SLURM_JOB_ID",
                                           "GRADE_HOSTS", "GRADE_HOSTFILE", "GRADE_CUDA", NULL };
#define NDETECT_VARS (sizeof detect_vars / sizeof detect_vars[0] - 1)

static void save_detect_vars(char **saved)
{
    for (size_t i = 0; i < NDETECT_VARS; i++) {
        saved[i] = getenv(detect_vars[i]) ? xstrdup(getenv(detect_vars[i])) : NULL;
        unsetenv(detect_vars[i]);
    }
}

static void restore_detect_vars(char **saved)
{
    for (size_t i = 0; i < NDETECT_VARS; i++) {
        if (saved[i])
            setenv(detect_vars[i], saved[i], 1);
        else
            unsetenv(detect_vars[i]);
        free(saved[i]);
    }
}

/* toolchain_detect with PATH holding only dir, and the given environment ("NAME=value"
 * words; every other variable the launcher choice reads unset). */
static void detect_in(toolchain *tc, const char *dir, const char *const *vars)
{
    char *saved[NDETECT_VARS];
    save_detect_vars(saved);
    setenv("PATH", dir, 1);
    for (int i = 0; vars[i]; i++) {
        char *name = xstrndup(vars[i], strcspn(vars[i], "="));
        setenv(name, vars[i] + strlen(name) + 1, 1);
        free(name);
    }
    char *top = realpath(".", NULL);
    toolchain_detect(tc, top);
    free(top);
    restore_detect_vars(saved);
}

static void remove_fake_mpi(char *dir)
{
    remove_tree(dir);
    free(dir);
}

/* Which launcher detection picks, and the MPI flavour the report names: from
 * `mpiexec --version`, and srun inside a Slurm allocation. */
static void test_launcher_detection(void)
{
    toolchain tc;
    strlist argv, env;
    char *dir = fake_mpi("HYDRA build details:\\n    Version:                                 4.0.2\\n", NULL);
    detect_in(&tc, dir, WORDS("GRADE_HOSTS=a,b"));
    CU_ASSERT_STRING_EQUAL(tc.mpi_version, "MPICH 4.0.2, on hosts a,b");
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "4", "-hosts", "a,b", "./t", "n=7")));
    sl_free(&argv), sl_free(&env), toolchain_free(&tc);
    remove_fake_mpi(dir);

    dir = fake_mpi("mpiexec (OpenRTE) 4.1.4\\n\\nReport bugs to http://www.open-mpi.org/community/help/\\n", NULL);
    detect_in(&tc, dir, WORDS("GRADE_HOSTFILE=/etc/hostname"));
    CU_ASSERT_STRING_EQUAL(tc.mpi_version, "Open MPI 4.1.4, on the hosts in /etc/hostname");
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "4", "--hostfile", "/etc/hostname", "--oversubscribe",
                                     "--bind-to", "none", "./t", "n=7")));
    sl_free(&argv), sl_free(&env), toolchain_free(&tc);
    remove_fake_mpi(dir);

    /* Slurm: srun starts the ranks; the flavour still from the MPI's own mpiexec. */
    dir = fake_mpi("mpiexec (Open MPI) 5.0.3\\n", "MPI plugin types are...\\n\\tnone\\n\\tpmi2\\n\\tpmix\\n");
    detect_in(&tc, dir, WORDS("SLURM_JOB_ID=42"));
    CU_ASSERT_STRING_EQUAL(tc.mpi_version, "Open MPI 5.0.3, launched by srun");
    CU_ASSERT_STRING_EQUAL(tc.mpiexec, "srun");
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("srun", "--overcommit", "--kill-on-bad-exit=1", "--mpi=pmix", "-n", "4", "./t",
                                     "n=7")));
    CU_ASSERT(words_are(&env, NO_WORDS));
    sl_free(&argv), sl_free(&env), toolchain_free(&tc);
    remove_fake_mpi(dir);

    /* An srun without PMIx: Open MPI's ranks get the site's default, MPICH's PMI-2 regardless. */
    dir = fake_mpi("mpiexec (Open MPI) 5.0.3\\n", "MPI plugin types are...\\n\\tnone\\n\\tpmi2\\n");
    char *srun = xasprintf("%s/srun", dir), *mpiexec_var = xasprintf("MPIEXEC=%s", srun);
    detect_in(&tc, dir, WORDS("SLURM_JOB_ID=42", mpiexec_var)); /* MPIEXEC=srun by name: the same */
    CU_ASSERT_STRING_EQUAL(tc.mpi_version, "Open MPI 5.0.3, launched by srun");
    CU_ASSERT_STRING_EQUAL(tc.mpiexec, srun);
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS(srun, "--overcommit", "--kill-on-bad-exit=1", "-n", "4", "./t", "n=7")));
    sl_free(&argv), sl_free(&env), toolchain_free(&tc);
    free(srun), free(mpiexec_var);
    remove_fake_mpi(dir);

    dir = fake_mpi("HYDRA build details:\\n    Version:  4.2.0\\n", "MPI plugin types are...\\n\\tnone\\n");
    detect_in(&tc, dir, WORDS("SLURM_JOB_ID=42"));
    CU_ASSERT_STRING_EQUAL(tc.mpi_version, "MPICH 4.2.0, launched by srun");
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("srun", "--overcommit", "--kill-on-bad-exit=1", "--mpi=pmi2", "-n", "4", "./t",
                                     "n=7")));
    sl_free(&argv), sl_free(&env), toolchain_free(&tc);
    /* MPIEXEC=mpiexec inside the allocation: the MPI's own launcher after all; HOSTS allowed */
    detect_in(&tc, dir, WORDS("SLURM_JOB_ID=42", "MPIEXEC=mpiexec"));
    CU_ASSERT_STRING_EQUAL(tc.mpi_version, "MPICH 4.2.0");
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "4", "./t", "n=7")));
    sl_free(&argv), sl_free(&env), toolchain_free(&tc);
    remove_fake_mpi(dir);

    /* An mpiexec that names neither: launched as MPICH's is. */
    dir = fake_mpi("some other mpiexec 1.0\\n", NULL);
    detect_in(&tc, dir, WORDS("GRADE_HOSTS=a"));
    CU_ASSERT_STRING_EQUAL(tc.mpi_version, "unknown MPI, on hosts a");
    launch_four(&tc, 0, &argv, &env);
    CU_ASSERT(words_are(&argv, WORDS("mpiexec", "-n", "4", "-hosts", "a", "./t", "n=7")));
    sl_free(&argv), sl_free(&env), toolchain_free(&tc);
    remove_fake_mpi(dir);
}

/* HOSTS/HOSTFILE inside a Slurm allocation where srun would launch: refused. */
static void test_hosts_under_slurm(void)
{
    char *dir = fake_mpi("HYDRA\\n", "none\\n");
    char *saved[NDETECT_VARS];
    save_detect_vars(saved);
    setenv("PATH", dir, 1);
    setenv("SLURM_JOB_ID", "42", 1);
    setenv("GRADE_HOSTS", "a,b", 1);
    char *why = toolchain_check_hosts();
    CU_ASSERT_PTR_NOT_NULL(why && strstr(why, "HOSTS/HOSTFILE are for mpiexec: inside a Slurm allocation srun"));
    free(why);
    setenv("MPIEXEC", "mpiexec", 1);
    why = toolchain_check_hosts();
    CU_ASSERT_PTR_NULL(why);
    free(why);
    restore_detect_vars(saved);
    remove_fake_mpi(dir);
}

/* Every kind as it builds, runs and skips: the build command on a GPU machine (native)
 * and on one without (the simulator where the kind can be simulated), with and without
 * -Werror; the launcher and CUDA questions; the run mode. */
static void test_kinds_build_commands(void)
{
#define I_PATHS "-I/w/grading/include", "-I/w/01_x"
    static const struct {
        const char *kind;
        int launcher, cuda;
        const char *sim_mode;         /* toolchain_mode without a GPU */
        const char *native[20], *sim[20], *werror[20];
    } want[] = {
        { "c", 0, 0, "native",
          { "cc", "-std=c11", "-O2", I_PATHS, "-o", "t", "t.src", "-lm" },
          { "cc", "-std=c11", "-O2", I_PATHS, "-o", "t", "t.src", "-lm" },
          { "cc", "-std=c11", "-O2", "-Werror", I_PATHS, "-o", "t", "t.src", "-lm" } },
        { "pthreads", 0, 0, "native",
          { "cc", "-std=c11", "-O2", I_PATHS, "-o", "t", "t.src", "-pthread", "-lm" },
          { "cc", "-std=c11", "-O2", I_PATHS, "-o", "t", "t.src", "-pthread", "-lm" },
          { "cc", "-std=c11", "-O2", "-Werror", I_PATHS, "-o", "t", "t.src", "-pthread", "-lm" } },
        { "openmp", 0, 0, "native",
          { "cc", "-std=c11", "-O2", I_PATHS, "-o", "t", "t.src", "-fopenmp", "-pthread", "-lm" },
          { "cc", "-std=c11", "-O2", I_PATHS, "-o", "t", "t.src", "-fopenmp", "-pthread", "-lm" },
          { "cc", "-std=c11", "-O2", "-Werror", I_PATHS, "-o", "t", "t.src", "-fopenmp", "-pthread", "-lm" } },
        { "processes", 0, 0, "native",
          { "cc", "-std=c11", "-O2", I_PATHS, "-o", "t", "t.src", "-pthread", "-lm" },
          { "cc", "-std=c11", "-O2", I_PATHS, "-o", "t", "t.src", "-pthread", "-lm" },
          { "cc", "-std=c11", "-O2", "-Werror", I_PATHS, "-o", "t", "t.src", "-pthread", "-lm" } },
        { "mpi", 1, 0, "native",
          { "mpicc", "-std=c11", "-O2", I_PATHS, "-o", "t", "t.src", "-lm" },
          { "mpicc", "-std=c11", "-O2", I_PATHS, "-o", "t", "t.src", "-lm" },
          { "mpicc", "-std=c11", "-O2", "-Werror", I_PATHS, "-o", "t", "t.src", "-lm" } },
        { "cuda", 0, 1, "sim",
          { "nvcc", "-O2", "-arch=native", I_PATHS, "-o", "t", "t.src", "-Xcompiler", "-fopenmp", "-lm" },
          { "/w/grading/sim/simcc", "-O2", I_PATHS, "-o", "t", "t.src", "-fopenmp", "-lm" },
          { "nvcc", "-O2", "-arch=native", "-Werror=all-warnings", I_PATHS, "-o", "t", "t.src", "-Xcompiler",
            "-fopenmp", "-lm" } },
        { "cuda_mpi", 1, 1, "sim",
          { "nvcc", "-O2", "-arch=native", "-ccbin", "mpicxx", I_PATHS, "-o", "t", "t.src", "-Xcompiler", "-fopenmp",
            "-lm" },
          { "/w/grading/sim/simcc", "-O2", "-ccbin", "mpicxx", I_PATHS, "-o", "t", "t.src", "-fopenmp", "-lm" },
          { "nvcc", "-O2", "-arch=native", "-Werror=all-warnings", "-ccbin", "mpicxx", I_PATHS, "-o", "t", "t.src",
            "-Xcompiler", "-fopenmp", "-lm" } },
        { "nccl", 1, 1, "sim",
          { "nvcc", "-O2", "-arch=native", "-ccbin", "mpicxx", I_PATHS, "-o", "t", "t.src", "-Xcompiler", "-fopenmp",
            "-lnccl", "-lm" },
          { "/w/grading/sim/simcc", "-O2", "-ccbin", "mpicxx", I_PATHS, "-o", "t", "t.src", "-fopenmp", "-lnccl",
            "-lm" },
          { "nvcc", "-O2", "-arch=native", "-Werror=all-warnings", "-ccbin", "mpicxx", I_PATHS, "-o", "t", "t.src",
            "-Xcompiler", "-fopenmp", "-lnccl", "-lm" } },
    };
#undef I_PATHS
    /* every row of the kinds table, and no other */
    CU_ASSERT_EQUAL(nkinds, (int)(sizeof want / sizeof want[0]));
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        CU_ASSERT(kind_lookup(want[k].kind) == &kinds[k]);
    CU_ASSERT_PTR_NULL(kind_lookup("fortran"));
    toolchain gpu, cpu;
    fake_toolchain(&gpu, 1);
    fake_toolchain(&cpu, 0);
    sl_split_words(&gpu.cflags, "-std=c11 -O2");
    sl_split_words(&cpu.cflags, "-std=c11 -O2");
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        task_meta task;
        memset(&task, 0, sizeof task);
        task.kind = (char *)want[k].kind;
        task.room = "01_x";
        CU_ASSERT_EQUAL(task_uses_launcher(&task), want[k].launcher);
        CU_ASSERT_EQUAL(task_uses_cuda(&task), want[k].cuda);
        CU_ASSERT_STRING_EQUAL(MODE_NAME(toolchain_mode(&gpu, &task)), "native");
        CU_ASSERT_STRING_EQUAL(MODE_NAME(toolchain_mode(&cpu, &task)), want[k].sim_mode);
        strlist cmd = { 0 };
        build_command(&gpu, &task, "t.src", "t", &cmd);
        CU_ASSERT(words_are(&cmd, want[k].native));
        sl_free(&cmd);
        build_command(&cpu, &task, "t.src", "t", &cmd);
        CU_ASSERT(words_are(&cmd, want[k].sim));
        sl_free(&cmd);
        gpu.werror = 1;
        build_command(&gpu, &task, "t.src", "t", &cmd);
        CU_ASSERT(words_are(&cmd, want[k].werror));
        sl_free(&cmd);
        gpu.werror = 0;
        /* -Werror never reaches the simulator */
        cpu.werror = 1;
        build_command(&cpu, &task, "t.src", "t", &cmd);
        if (strcmp(want[k].sim_mode, "sim") == 0)
            CU_ASSERT(words_are(&cmd, want[k].sim));
        sl_free(&cmd);
        cpu.werror = 0;
        /* a program that is not MPI runs bare; one that is, under the launcher */
        char *keys[] = { "ranks", "n" }, *values[] = { "2", "7" };
        run_config cfg = { .label = "ranks=2 n=7", .nkeys = 2, .keys = keys, .values = values };
        strlist env = { 0 };
        launch_command(&cpu, &task, &cfg, "./t", &cmd, &env);
        CU_ASSERT(words_are(&cmd, want[k].launcher ? WORDS("mpiexec", "-n", "2", "./t", "n=7") : WORDS("./t", "n=7")));
        sl_free(&cmd), sl_free(&env);
    }
    /* a task's libraries: the simulator is given -lnccl and -lcublas (it simulates both), not the others */
    task_meta task;
    memset(&task, 0, sizeof task);
    task.kind = "cuda";
    task.room = "01_x";
    task.libs = "-lnccl -lcublas -lcufft";
    strlist cmd = { 0 };
    build_command(&cpu, &task, "t.src", "t", &cmd);
    CU_ASSERT(words_are(&cmd, WORDS("/w/grading/sim/simcc", "-O2", "-I/w/grading/include", "-I/w/01_x", "-o", "t",
                                    "t.src", "-fopenmp", "-lnccl", "-lcublas", "-lm")));
    sl_free(&cmd);
    /* the simulator's race checker: the same build, --racecheck added */
    task.libs = NULL;
    cpu.racecheck = 1;
    build_command(&cpu, &task, "t.src", "t", &cmd);
    CU_ASSERT(words_are(&cmd, WORDS("/w/grading/sim/simcc", "-O2", "--racecheck", "-I/w/grading/include", "-I/w/01_x",
                                    "-o", "t", "t.src", "-fopenmp", "-lm")));
    sl_free(&cmd);
    cpu.racecheck = 0;
    toolchain_free(&gpu);
    toolchain_free(&cpu);
}

/* Every kind's SKIP reason on machines that lack something, word for word. */
static void test_kinds_skip_reasons(void)
{
    static const char *const no_mpi = "no MPI here (mpicc / mpiexec not found): `make deps` installs MPICH";
    static const char *const no_cxx = "no MPI C++ compiler wrapper (/nonexistent/mpicxx not found; set MPICXX): CUDA "
                                      "code with MPI is built with it as nvcc's host compiler";
    static const char *const no_gpu = "needs an NVIDIA GPU and nvcc (no GPU found), or the CPU simulator "
                                      "(grading/sim/simcc, not found)";
    static const char *const no_nvcc = "needs an NVIDIA GPU and nvcc (nvcc not found), or the CPU simulator "
                                       "(grading/sim/simcc, not found)";
    static const struct {
        const char *kind;
        const char *without_mpi, *without_cxx, *without_gpu_or_sim, *without_nvcc_or_sim, *without_gpu;
    } want[] = {
        { "c", NULL, NULL, NULL, NULL, NULL },
        { "pthreads", NULL, NULL, NULL, NULL, NULL },
        { "openmp", NULL, NULL, NULL, NULL, NULL },
        { "processes", NULL, NULL, NULL, NULL, NULL },
        { "mpi", no_mpi, NULL, NULL, NULL, NULL },
        { "cuda", NULL, NULL, no_gpu, no_nvcc, NULL },
        { "cuda_mpi", no_mpi, no_cxx, no_gpu, no_nvcc, NULL },
        { "nccl", no_mpi, no_cxx, no_gpu, no_nvcc, NULL }, /* simulated on MPI (grading/sim/nccl.h) */
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        task_meta task;
        memset(&task, 0, sizeof task);
        task.kind = (char *)want[k].kind;
        task.room = "01_x";
        for (int lack = 0; lack < 5; lack++) {
            toolchain tc;
            fake_toolchain(&tc, lack != 2 && lack != 4);
            const char *expected = NULL;
            int gpu_only = 0;
            switch (lack) {
            case 0: tc.have_mpi = 0, expected = want[k].without_mpi; break;
            case 1: free(tc.mpicxx), tc.mpicxx = xstrdup("/nonexistent/mpicxx"), expected = want[k].without_cxx; break;
            case 2: free(tc.simcc), tc.simcc = NULL, expected = want[k].without_gpu_or_sim; gpu_only = 1; break;
            case 3: free(tc.simcc), tc.simcc = NULL, tc.have_nvcc = 0, expected = want[k].without_nvcc_or_sim;
                    gpu_only = 1; break;
            case 4: expected = want[k].without_gpu; gpu_only = 1; break; /* the simulator is here */
            }
            if (lack != 1) { /* an mpicxx that is surely there */
                free(tc.mpicxx);
                tc.mpicxx = xstrdup("/bin/sh");
            }
            int needs_gpu = -1;
            char *why = toolchain_skip_reason(&tc, &task, &needs_gpu);
            if (expected) {
                CU_ASSERT_PTR_NOT_NULL(why);
                if (why && strcmp(why, expected) != 0)
                    fprintf(stderr, "\n    %s, case %d: got %s\n", want[k].kind, lack, why);
                CU_ASSERT(why && strcmp(why, expected) == 0);
                CU_ASSERT_EQUAL(needs_gpu, gpu_only);
            } else {
                CU_ASSERT_PTR_NULL(why);
                CU_ASSERT_EQUAL(needs_gpu, 0);
            }
            free(why);
            toolchain_free(&tc);
        }
    }
}

/* Every GRADE_* limit, read in one place: defaults, ranges, the rule to stop after a hang. */
static void test_policy(void)
{
    static const char *const names[] = { "GRADE_TIMEOUT_SCALE", "GRADE_OUTPUT_LIMIT", "GRADE_PROCESS_LIMIT",
                                         "GRADE_MEMORY_LIMIT" };
    char *saved[4];
    for (int i = 0; i < 4; i++) {
        saved[i] = getenv(names[i]) ? xstrdup(getenv(names[i])) : NULL;
        unsetenv(names[i]);
    }
    grade_policy p;
    char *error = NULL;
    CU_ASSERT_EQUAL(policy_load(&p, &error), 0);
    CU_ASSERT_PTR_NULL(error);
    CU_ASSERT_DOUBLE_EQUAL(p.timeout_scale, 1.0, 1e-12);
    CU_ASSERT_EQUAL(p.output_cap, 1024 * 1024);
    CU_ASSERT_EQUAL(p.max_procs, 256);
    CU_ASSERT_EQUAL(p.memory_mib, 0);
    CU_ASSERT_DOUBLE_EQUAL(policy_build_timeout(&p), 120.0, 1e-12);
    run_request req = { 0 };
    policy_limit_program(&p, 0, &req);
    CU_ASSERT(req.max_memory > 0 && req.max_memory <= (size_t)1024 << 20 && req.limit_address_space);
    CU_ASSERT_DOUBLE_EQUAL(req.kill_grace, POLICY_KILL_GRACE, 1e-12);
    policy_limit_program(&p, 1, &req); /* CUDA: more memory, no address-space cap */
    CU_ASSERT(req.max_memory <= (size_t)4096 << 20 && !req.limit_address_space);

    setenv("GRADE_TIMEOUT_SCALE", "0.5", 1);
    setenv("GRADE_OUTPUT_LIMIT", "4096", 1);
    setenv("GRADE_PROCESS_LIMIT", "64", 1);
    setenv("GRADE_MEMORY_LIMIT", "300", 1);
    CU_ASSERT_EQUAL_FATAL(policy_load(&p, &error), 0);
    CU_ASSERT_DOUBLE_EQUAL(policy_build_timeout(&p), 60.0, 1e-12);
    CU_ASSERT_EQUAL(p.output_cap, 4096);
    policy_limit_program(&p, 1, &req);
    CU_ASSERT_EQUAL(req.max_procs, 64);
    CU_ASSERT_EQUAL(req.max_memory, (size_t)300 << 20);
    setenv("GRADE_PROCESS_LIMIT", "-3", 1); /* not above 0: the default, as before */
    setenv("GRADE_MEMORY_LIMIT", "", 1);
    CU_ASSERT_EQUAL_FATAL(policy_load(&p, &error), 0);
    CU_ASSERT_EQUAL(p.max_procs, 256);
    CU_ASSERT_EQUAL(p.memory_mib, 0);

    /* out of range: the first one, named with its value */
    setenv("GRADE_TIMEOUT_SCALE", "0", 1);
    setenv("GRADE_OUTPUT_LIMIT", "12", 1);
    CU_ASSERT_EQUAL(policy_load(&p, &error), -1);
    CU_ASSERT_PTR_NOT_NULL(error && strstr(error, "GRADE_TIMEOUT_SCALE=0: must be a number greater than 0"));
    free(error);
    setenv("GRADE_TIMEOUT_SCALE", "2", 1);
    CU_ASSERT_EQUAL(policy_load(&p, &error), -1);
    CU_ASSERT_PTR_NOT_NULL(error && strstr(error, "GRADE_OUTPUT_LIMIT=12: must be a byte count from 1024"));
    free(error);

    /* a hang or a limit stops the task's remaining runs; anything else does not */
    p.stop_after_hang = 1;
    CU_ASSERT_STRING_EQUAL(policy_stop_reason(&p, RUN_TIMEOUT), "timed out");
    CU_ASSERT_STRING_EQUAL(policy_stop_reason(&p, RUN_PROCESS_LIMIT), "hit the process limit");
    CU_ASSERT_STRING_EQUAL(policy_stop_reason(&p, RUN_MEMORY_LIMIT), "hit the memory limit");
    CU_ASSERT_PTR_NULL(policy_stop_reason(&p, RUN_SIGNALED));
    CU_ASSERT_PTR_NULL(policy_stop_reason(&p, RUN_OUTPUT_LIMIT));
    CU_ASSERT_PTR_NULL(policy_stop_reason(&p, RUN_EXITED));
    p.stop_after_hang = 0;
    CU_ASSERT_PTR_NULL(policy_stop_reason(&p, RUN_TIMEOUT));

    for (int i = 0; i < 4; i++) {
        if (saved[i])
            setenv(names[i], saved[i], 1);
        else
            unsetenv(names[i]);
        free(saved[i]);
    }
}

/* Gradescope's file and the progress record, from a report of two tasks. */
static void test_gradescope_and_progress(void)
{
    task_meta metas[3];
    memset(metas, 0, sizeof metas);
    char *ids[] = { "01_x/task1", "01_x/task2", "04_y/task1" }, *kinds[] = { "c", "c", "cuda" };
    grade_status statuses[] = { ST_PASS, ST_FAIL, ST_SKIP };
    task_report trs[3];
    memset(trs, 0, sizeof trs);
    for (int i = 0; i < 3; i++) {
        metas[i].id = ids[i], metas[i].title = "a task", metas[i].kind = kinds[i], metas[i].hints[0] = "a hint";
        metas[i].nhints = 1;
        trs[i].meta = &metas[i], trs[i].status = statuses[i];
    }
    toolchain tc;
    fake_toolchain(&tc, 0);
    grade_report rep = { .tasks = trs, .ntasks = 3, .seconds = 2.4, .tc = &tc, .sandbox = "on (bwrap)", .seed = 42 };
    char *path = write_temp("");
    CU_ASSERT_EQUAL_FATAL(report_write_gradescope(&rep, path), 0);
    json_t *gs = json_load_file(path, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(gs);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(gs, "score")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(gs, "max_score")), 2); /* the SKIP is worth 0 */
    json_t *second = json_array_get(json_object_get(gs, "tests"), 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(second, "status")), "failed");
    /* Never the hint itself, unasked: where the ladder is. */
    CU_ASSERT_PTR_NULL(strstr(json_string_value(json_object_get(second, "output")), "a hint"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_object_get(second, "output")), "make hint TASK=01_x/task2"));
    json_decref(gs);

    /* Two runs: the second grades task2 only; the record keeps task1's PASS. */
    unlink(path);
    CU_ASSERT_EQUAL_FATAL(progress_record(&rep, path), 0);
    trs[1].status = ST_PASS;
    grade_report second_run = { .tasks = &trs[1], .ntasks = 1, .seconds = 1.0, .tc = &tc, .sandbox = "on (bwrap)", .seed = 42 };
    CU_ASSERT_EQUAL_FATAL(progress_record(&second_run, path), 0);
    json_t *progress = json_load_file(path, 0, NULL);
    json_t *tasks = json_object_get(progress, "tasks");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(tasks, "01_x/task1"), "status")), "PASS");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(tasks, "01_x/task2"), "status")), "PASS");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(tasks, "04_y/task1"), "status")), "SKIP");
    json_decref(progress);
    /* Hints opened: recorded per task, never lowered, kept across a new grade. */
    CU_ASSERT_EQUAL(progress_hints_opened(path, "01_x/task2"), 0);
    CU_ASSERT_EQUAL(progress_record_hints(path, "01_x/task2", 2), 0);
    CU_ASSERT_EQUAL(progress_record_hints(path, "01_x/task2", 1), 0);
    CU_ASSERT_EQUAL(progress_record(&second_run, path), 0);
    CU_ASSERT_EQUAL(progress_hints_opened(path, "01_x/task2"), 2);
    CU_ASSERT_EQUAL(progress_hints_opened(path, "01_x/task1"), 0);
    CU_ASSERT_EQUAL(progress_hints_opened("/nonexistent/progress.json", "01_x/task2"), 0);
    unlink(path);
    free(path);
    toolchain_free(&tc);
}

/* Saves an environment variable and unsets it; env_restore puts it back. */
static char *env_take(const char *name)
{
    char *was = getenv(name) ? xstrdup(getenv(name)) : NULL;
    unsetenv(name);
    return was;
}

static void env_restore(const char *name, char *was)
{
    if (was)
        setenv(name, was, 1);
    else
        unsetenv(name);
    free(was);
}

/* How room 05/06's device pointers reach MPI (the report's mpi_gpu_path), and the staging
 * layer (PR_MPI_STAGE=1) given to cuda_mpi runs only on a GPU whose MPI is not CUDA-aware. */
static void test_toolchain_mpi_gpu_path(void)
{
    char *stage = env_take("PR_MPI_STAGE"), *aware = env_take("PR_CUDA_AWARE");
    toolchain tc;
    memset(&tc, 0, sizeof tc);
    tc.simcc = xstrdup("simcc");
    tc.mpiexec = xstrdup("mpiexec");
    toolchain_decide_mpi_gpu_path(&tc); /* no GPU: the simulator's stand-in */
    CU_ASSERT_STRING_EQUAL(tc.mpi_gpu_path, "simulator");
    CU_ASSERT_EQUAL(tc.mpi_stage, 0);
    setenv("PR_MPI_STAGE", "0", 1);
    toolchain_decide_mpi_gpu_path(&tc);
    CU_ASSERT_STRING_EQUAL(tc.mpi_gpu_path, "none");
    unsetenv("PR_MPI_STAGE");
    tc.have_gpu = 1, tc.cuda_aware = 1;
    toolchain_decide_mpi_gpu_path(&tc);
    CU_ASSERT_STRING_EQUAL(tc.mpi_gpu_path, "cuda-aware");
    CU_ASSERT_EQUAL(tc.mpi_stage, 0);
    tc.cuda_aware = 0;
    toolchain_decide_mpi_gpu_path(&tc);
    CU_ASSERT_STRING_EQUAL(tc.mpi_gpu_path, "staging-layer");
    CU_ASSERT_EQUAL(tc.mpi_stage, 1);

    /* the runs of a cuda_mpi task get it; a plain MPI task's do not */
    task_meta task = { .kind = "cuda_mpi", .kind_entry = kind_lookup("cuda_mpi") };
    run_config cfg = { 0 };
    strlist cmd = { 0 }, env = { 0 };
    launch_command(&tc, &task, &cfg, "./t", &cmd, &env);
    CU_ASSERT(has_word(&env, "PR_MPI_STAGE=1"));
    sl_free(&cmd), sl_free(&env);
    task_meta plain = { .kind = "mpi", .kind_entry = kind_lookup("mpi") };
    launch_command(&tc, &plain, &cfg, "./t", &cmd, &env);
    CU_ASSERT(!has_word(&env, "PR_MPI_STAGE=1"));
    sl_free(&cmd), sl_free(&env);

    setenv("PR_MPI_STAGE", "1", 1); /* already set: nothing to add */
    toolchain_decide_mpi_gpu_path(&tc);
    CU_ASSERT_STRING_EQUAL(tc.mpi_gpu_path, "staging-layer");
    CU_ASSERT_EQUAL(tc.mpi_stage, 0);
    setenv("PR_MPI_STAGE", "0", 1);
    toolchain_decide_mpi_gpu_path(&tc);
    CU_ASSERT_STRING_EQUAL(tc.mpi_gpu_path, "none");
    CU_ASSERT_EQUAL(tc.mpi_stage, 0);
    unsetenv("PR_MPI_STAGE");
    setenv("PR_CUDA_AWARE", "0", 1); /* the programs keep device pointers away from MPI */
    toolchain_decide_mpi_gpu_path(&tc);
    CU_ASSERT_STRING_EQUAL(tc.mpi_gpu_path, "none");
    CU_ASSERT_EQUAL(tc.mpi_stage, 0);
    unsetenv("PR_CUDA_AWARE");
    tc.force_sim = 1; /* GRADE_CUDA=sim on a GPU machine */
    toolchain_decide_mpi_gpu_path(&tc);
    CU_ASSERT_STRING_EQUAL(tc.mpi_gpu_path, "simulator");
    toolchain_free(&tc);
    env_restore("PR_MPI_STAGE", stage);
    env_restore("PR_CUDA_AWARE", aware);
}

/* The cuda_aware_mpi probe, asked of the real MPI: MPICH and Open MPI as
 * packaged are not CUDA-aware (0); PR_CUDA_AWARE=1 must come through as 1.
 * The toolchain is the one the grader detects (MPICC, MPIEXEC, the flavour):
 * Open MPI run as root needs the flags and variables the detected flavour adds
 * (a fake MPICH toolchain launched Open MPI bare, which refused to start). */
static void test_toolchain_cuda_aware_probe(void)
{
    toolchain tc;
    char *top = realpath(".", NULL); /* make runs the tests from the top folder */
    CU_ASSERT_PTR_NOT_NULL_FATAL(top);
    toolchain_detect(&tc, top);
    free(top);
    if (!tc.have_mpi) {
        CU_ASSERT_EQUAL(toolchain_ask_cuda_aware(&tc), -1);
        fprintf(stderr, "\n  (no mpicc/mpiexec: only the no-MPI answer was checked) ");
        toolchain_free(&tc);
        return;
    }
    char *was = getenv("PR_CUDA_AWARE") ? xstrdup(getenv("PR_CUDA_AWARE")) : NULL;
    unsetenv("PR_CUDA_AWARE");
    CU_ASSERT_EQUAL(toolchain_ask_cuda_aware(&tc), 0);
    setenv("PR_CUDA_AWARE", "1", 1);
    CU_ASSERT_EQUAL(toolchain_ask_cuda_aware(&tc), 1);
    free(tc.mpicc);
    tc.mpicc = xstrdup("false"); /* the probe does not build: could not ask */
    CU_ASSERT_EQUAL(toolchain_ask_cuda_aware(&tc), -1);
    if (was)
        setenv("PR_CUDA_AWARE", was, 1);
    else
        unsetenv("PR_CUDA_AWARE");
    free(was);
    toolchain_free(&tc);
}

/* Invalid UTF-8 and control characters (but newline and tab) become '?'; valid text stays. */
static void test_text_printable(void)
{
    char a[] = "ok \xc3\xa9 \xe2\x82\xac\n\ttab";
    text_printable(a);
    CU_ASSERT_STRING_EQUAL(a, "ok \xc3\xa9 \xe2\x82\xac\n\ttab");
    char b[] = "\x1b[2Jx\xff\xc3(\x7f\xe2\x82";
    text_printable(b);
    CU_ASSERT_STRING_EQUAL(b, "?[2Jx?\?(???"); /* (?\? : no trigraph) */
    char c[] = "\xed\xa0\x80\xf4\x90\x80\x80"; /* a surrogate, and past U+10FFFF */
    text_printable(c);
    CU_ASSERT_PTR_NULL(strpbrk(c, "\xed\xf4"));
    text_printable(NULL);
}

/* ---- sandbox ----------------------------------------------------------------------- */

/* sandbox-init's closing lines come off stderr and into the result; anything else stays. */
static void take(const char *err, run_outcome outcome, int code, run_result *res)
{
    memset(res, 0, sizeof *res);
    res->outcome = outcome;
    res->exit_code = code;
    res->err = xstrdup(err);
    res->err_len = strlen(err);
    res->out = xstrdup("");
    sandbox_take_status(res);
}

static void test_sandbox_take_status(void)
{
    run_result r;
    take("oops\n\npr-sandbox: left=2 signal=11\n", RUN_EXITED, 139, &r);
    CU_ASSERT_EQUAL(r.outcome, RUN_SIGNALED);
    CU_ASSERT_EQUAL(r.signal, 11);
    CU_ASSERT_EQUAL(r.leftovers, 2);
    CU_ASSERT_STRING_EQUAL(r.err, "oops\n");
    CU_ASSERT_EQUAL(r.err_len, 5);
    run_result_free(&r);
    /* a last line without its newline keeps it unwritten */
    take("half a line\npr-sandbox: left=0 signal=6\n", RUN_EXITED, 134, &r);
    CU_ASSERT_EQUAL(r.outcome, RUN_SIGNALED);
    CU_ASSERT_EQUAL(r.signal, 6);
    CU_ASSERT_EQUAL(r.leftovers, 0);
    CU_ASSERT_STRING_EQUAL(r.err, "half a line");
    run_result_free(&r);
    /* a clean exit: the line goes, nothing else changes */
    take("\npr-sandbox: left=0 signal=0\n", RUN_EXITED, 0, &r);
    CU_ASSERT_EQUAL(r.outcome, RUN_EXITED);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    CU_ASSERT_STRING_EQUAL(r.err, "");
    run_result_free(&r);
    /* the program's own lines count for nothing: only the last line is read */
    take("pr-sandbox: left=-1000 signal=0\npr-sandbox: left=1 signal=0\n", RUN_EXITED, 0, &r);
    CU_ASSERT_EQUAL(r.leftovers, 1);
    run_result_free(&r);
    take("pr-sandbox: left=-5 signal=0\n", RUN_EXITED, 0, &r);
    CU_ASSERT_EQUAL(r.leftovers, 0);
    CU_ASSERT_NOT_EQUAL(r.exit_code, 0); /* not sandbox-init's: its line is missing */
    run_result_free(&r);
    /* no closing line after exit 0: sandbox-init was stopped; not a clean run */
    take("all fine\n", RUN_EXITED, 0, &r);
    CU_ASSERT_EQUAL(r.exit_code, 125);
    run_result_free(&r);
    /* a timeout stays a timeout (sandbox-init was killed with the rest) */
    take("", RUN_TIMEOUT, 0, &r);
    CU_ASSERT_EQUAL(r.outcome, RUN_TIMEOUT);
    run_result_free(&r);
}

static int word_at(const strlist *l, const char *a, const char *b, const char *c)
{
    for (int i = 0; i + 2 < l->count; i++)
        if (strcmp(l->items[i], a) == 0 && strcmp(l->items[i + 1], b) == 0 && (!c || strcmp(l->items[i + 2], c) == 0))
            return i;
    return -1;
}

/* The bwrap command: namespaces, nobody, the view's paths, the scratch folder as the working
 * directory, hidden folders covered, a cleared environment with the run's variables, / read-only
 * after every bind, then sandbox-init and the command. */
static void test_sandbox_command(void)
{
    sandbox sb = { 0 };
    sb.active = 1;
    sb.as_nobody = 1;
    sb.bwrap = xstrdup("/usr/bin/bwrap");
    sb.init = xstrdup("/w/grading/bin/sandbox-init");
    sl_push(&sb.ro_extra, "/apps/mpich/bin");
    sl_push(&sb.hide, "/opt/class"); /* under /opt, which is bound: covered */
    sl_push(&sb.hide, "/w");         /* under nothing bound: nothing to cover */
    sandbox_view v = { 0 };
    sl_push(&v.ro, "/w/01_x");
    sl_push(&v.ro, "/w/grading/include");
    sl_push(&v.rw, "/w/build/bin/task/01_x");
    v.cwd = "/tmp/pr-run-1";
    strlist cmd = { 0 }, env = { 0 }, out = { 0 };
    sl_push(&cmd, "cc");
    sl_push(&cmd, "-o");
    sl_push(&cmd, "t");
    sl_push(&env, "OMP_NUM_THREADS=3");
    setenv("PR_UNIT_SECRET_TOKEN_X", "hush", 1); /* not on the allow-list */
    setenv("OMPI_MCA_unit_x", "1", 1);           /* on it (a prefix) */
    sandbox_command(&sb, &v, &cmd, &env, &out);
    unsetenv("OMPI_MCA_unit_x");
    CU_ASSERT_STRING_EQUAL(out.items[0], "/usr/bin/bwrap");
    const char *flags[] = { "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent",
                            "--clearenv" };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        CU_ASSERT(has_word(&out, flags[i]));
    CU_ASSERT(word_at(&out, "--uid", "65534", NULL) >= 0);
    CU_ASSERT(word_at(&out, "--ro-bind", "/w/01_x", "/w/01_x") >= 0);
    CU_ASSERT(word_at(&out, "--ro-bind", "/w/grading/include", "/w/grading/include") >= 0);
    CU_ASSERT(word_at(&out, "--ro-bind-try", "/apps/mpich/bin", "/apps/mpich/bin") >= 0);
    CU_ASSERT(word_at(&out, "--bind", "/w/build/bin/task/01_x", "/w/build/bin/task/01_x") >= 0);
    CU_ASSERT(word_at(&out, "--bind", "/tmp/pr-run-1", "/tmp/pr-run-1") >= 0);
    CU_ASSERT(word_at(&out, "--chdir", "/tmp/pr-run-1", NULL) >= 0);
    CU_ASSERT(word_at(&out, "--tmpfs", "/opt/class", NULL) >= 0);
    CU_ASSERT(word_at(&out, "--tmpfs", "/w", NULL) < 0);
    CU_ASSERT(word_at(&out, "--setenv", "OMP_NUM_THREADS", "3") >= 0);
    CU_ASSERT(word_at(&out, "--setenv", "OMPI_MCA_unit_x", "1") >= 0);
    CU_ASSERT(word_at(&out, "--setenv", "PR_UNIT_SECRET_TOKEN_X", NULL) >= 0); /* PR_ is the workbook's own */
    CU_ASSERT(!has_word(&out, "HOME=/root"));
    /* the covers come before the view's binds, which they must not hide */
    CU_ASSERT(word_at(&out, "--tmpfs", "/opt/class", NULL) < word_at(&out, "--ro-bind", "/w/01_x", "/w/01_x"));
    /* nothing is bound writable but the view's two; / goes read-only after every bind */
    int writable = 0, last_bind = -1, remount = -1;
    for (int i = 0; i < out.count; i++) {
        if (strcmp(out.items[i], "--bind") == 0)
            writable++;
        if (strstr(out.items[i], "bind") && out.items[i][0] == '-')
            last_bind = i;
        if (strcmp(out.items[i], "--remount-ro") == 0)
            remount = i;
    }
    CU_ASSERT_EQUAL(writable, 2);
    CU_ASSERT(remount > last_bind);
    CU_ASSERT(!has_word(&out, "/w/solutions"));
    /* the end: -- sandbox-init cc -o t */
    CU_ASSERT_STRING_EQUAL(out.items[out.count - 5], "--");
    CU_ASSERT_STRING_EQUAL(out.items[out.count - 4], "/w/grading/bin/sandbox-init");
    CU_ASSERT_STRING_EQUAL(out.items[out.count - 3], "cc");
    CU_ASSERT_STRING_EQUAL(out.items[out.count - 1], "t");
    sl_free(&out);
    /* a variable off the list stays outside */
    setenv("UNIT_INSTRUCTOR_TOKEN", "hush", 1);
    sandbox_command(&sb, &v, &cmd, NULL, &out);
    unsetenv("UNIT_INSTRUCTOR_TOKEN");
    unsetenv("PR_UNIT_SECRET_TOKEN_X");
    CU_ASSERT(word_at(&out, "--setenv", "UNIT_INSTRUCTOR_TOKEN", NULL) < 0);
    CU_ASSERT(!has_word(&out, "hush") || word_at(&out, "--setenv", "PR_UNIT_SECRET_TOKEN_X", "hush") >= 0);
    sl_free(&out);
    /* root where user namespaces are forbidden: no capabilities instead of nobody */
    sb.as_nobody = 0;
    sandbox_command(&sb, &v, &cmd, NULL, &out);
    CU_ASSERT(word_at(&out, "--cap-drop", "ALL", NULL) >= 0);
    CU_ASSERT(!has_word(&out, "--unshare-user"));
    sl_free(&out);
    sl_free(&cmd);
    sl_free(&env);
    sandbox_view_free(&v);
    sandbox_free(&sb);
}

/* remove_tree: a tree deeper than the open-file limit (lowered here to 64) and than PATH_MAX,
 * a folder with no permissions, a folder of many files: all of it goes, nothing is left. */
static void test_remove_tree_deep(void)
{
    char top[] = "/tmp/pr-rmtree-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(top));
    int fd = open(top, O_RDONLY | O_DIRECTORY);
    CU_ASSERT_FATAL(fd >= 0);
    int made = 0;
    for (int i = 0; i < 3000; i++) { /* 3000 levels of "dd": 9000 bytes of path */
        if (mkdirat(fd, "dd", 0700) != 0)
            break;
        if (i % 500 == 0) { /* a few files on the way */
            int f = openat(fd, "file", O_WRONLY | O_CREAT, 0600);
            if (f >= 0)
                close(f);
        }
        int next = openat(fd, "dd", O_RDONLY | O_DIRECTORY);
        close(fd);
        fd = next;
        if (fd < 0)
            break;
        made++;
    }
    CU_ASSERT_EQUAL(made, 3000);
    if (fd >= 0)
        close(fd);
    char *wide = xasprintf("%s/wide", top);
    mkdir(wide, 0700);
    for (int i = 0; i < 2000; i++) {
        char *f = xasprintf("%s/f%d", wide, i);
        write_file(f, "x", 1);
        free(f);
    }
    char *locked = xasprintf("%s/wide/locked", top), *inner = xasprintf("%s/wide/locked/inner", top);
    mkdir(locked, 0700);
    write_file(inner, "y", 1);
    chmod(locked, 0); /* no permissions at all */
    struct rlimit was;
    getrlimit(RLIMIT_NOFILE, &was);
    struct rlimit low = { 64, was.rlim_max };
    setrlimit(RLIMIT_NOFILE, &low);
    int rc = remove_tree(top);
    setrlimit(RLIMIT_NOFILE, &was);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_FALSE(file_exists(top));
    free(wide), free(locked), free(inner);
}

int main(void)
{
    if (runner_init() != 0) {
        fprintf(stderr, "unit-tests: cannot become a child subreaper\n");
        return 1;
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    struct {
        const char *suite;
        const char *name;
        void (*fn)(void);
    } tests[] = {
        { "results", "parse kinds of values", test_parse_kinds_of_values },
        { "results", "parse rejects malformed lines", test_parse_rejects_malformed },
        { "results", "compare equal", test_compare_equal },
        { "results", "compare names key, expected, got", test_compare_names_key_expected_got },
        { "results", "compare missing and extra keys", test_compare_missing_and_extra },
        { "results", "integers and strings exactly", test_compare_integers_and_strings_exactly },
        { "results", "float tolerance from the reference", test_compare_float_tolerance },
        { "metadata", "runs expand to a product", test_expand_runs_product },
        { "metadata", "tasks.ini loads", test_room_load },
        { "metadata", "the hints from solutions/ROOM/hints.ini", test_room_hints_file },
        { "metadata", "tasks.ini errors name file and line", test_room_load_errors },
        { "metadata", "the hint ladder: hint1..hintN, no gaps", test_room_load_hint_ladder },
        { "metadata", "the perf keys", test_room_load_perf },
        { "metadata", "lo..hi drawn from the grading's seed; method keys", test_room_load_draws },
        { "metadata", "--max-ranks and --first-config select configurations", test_select_configs },
        { "results", "the timing protocol", test_results_timing },
        { "perf", "medians, spreads, modes", test_perf_median },
        { "generator", "blocks become TODOs and placeholders", test_gen_replaces_blocks },
        { "generator", "bug hunts: the buggy line, no marker", test_gen_bug_blocks },
        { "generator", "a task still as generated is untouched", test_gen_task_untouched },
        { "generator", "malformed markers are errors", test_gen_errors },
        { "runner", "exit status and output", test_runner_exit_and_output },
        { "runner", "stdin is /dev/null", test_runner_stdin_is_empty },
        { "runner", "a spinning child times out", test_runner_timeout },
        { "runner", "a child ignoring SIGTERM is killed", test_runner_ignores_sigterm },
        { "runner", "a crash names its signal", test_runner_crash },
        { "runner", "an output flood is stopped", test_runner_output_flood },
        { "runner", "a detached grandchild is found and killed", test_runner_detached_grandchild },
        { "runner", "a grandchild holding the pipe", test_runner_grandchild_in_group_holding_pipe },
        { "runner", "a program that cannot start", test_runner_start_failure },
        { "runner", "environment and working directory", test_runner_environment_and_cwd },
        { "runner", "no descriptor of the grader's reaches the program", test_runner_no_inherited_descriptors },
        { "runner", "the work measured from outside", test_runner_measures_work },
        { "grader", "the method check: threads and processes", test_work_check },
        { "grader", "the method check: MPI ranks, from the MPI layer's records", test_work_check_ranks },
        { "grader", "the method check: simulated CUDA, from the simulator's record", test_work_check_gpu },
        { "grader", "the perf verdict of a simulated CUDA task, from its memory counts", test_work_counts_slow },
        { "grader", "judging a run", test_judge_run },
        { "grader", "remove_tree: deeper than the open-file limit, locked folders, many files", test_remove_tree_deep },
        { "grader", "a rank's signal from the MPI launcher", test_launcher_signal },
        { "grader", "a GPU failure that is the machine's: old driver, exclusive GPU", test_gpu_failure_cause },
        { "toolchain", "CUDA + MPI: simulated or native, libraries, skips", test_toolchain_cuda_mpi },
        { "toolchain", "MPICXX and MPIEXEC that belong to MPICC", test_mpi_sibling },
        { "toolchain", "the CUDA-aware MPI probe", test_toolchain_cuda_aware_probe },
        { "toolchain", "how device pointers reach MPI, and the staging layer", test_toolchain_mpi_gpu_path },
        { "toolchain", "every kind's build command, native and simulated", test_kinds_build_commands },
        { "toolchain", "every kind's SKIP reasons", test_kinds_skip_reasons },
        { "launchers", "MPICH's Hydra mpiexec: argv and env for 4 ranks", test_launcher_hydra },
        { "launchers", "Open MPI's mpiexec: argv and env for 4 ranks", test_launcher_openmpi },
        { "launchers", "Slurm's srun: argv and env for 4 ranks", test_launcher_srun },
        { "launchers", "detection: mpiexec --version, Slurm", test_launcher_detection },
        { "launchers", "HOSTS under Slurm's srun", test_hosts_under_slurm },
        { "launchers", "every launcher in the table is tested", test_launchers_all_tested },
        { "policy", "every GRADE_* limit, the build timeout, when to stop", test_policy },
        { "report", "Gradescope's results.json and the progress record", test_gradescope_and_progress },
        { "grader", "messages become printable UTF-8", test_text_printable },
        { "sandbox", "sandbox-init's closing lines become the run's result", test_sandbox_take_status },
        { "sandbox", "the bwrap command: namespaces, the view, / read-only", test_sandbox_command },
    };
    CU_pSuite suite = NULL;
    const char *current = NULL;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (!current || strcmp(current, tests[i].suite) != 0) {
            suite = CU_add_suite(tests[i].suite, NULL, NULL);
            current = tests[i].suite;
        }
        if (!suite || !CU_add_test(suite, tests[i].name, tests[i].fn)) {
            CU_cleanup_registry();
            return 1;
        }
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    unsigned failed_suites = CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    if (failures > 0 || failed_suites > 0)
        fprintf(stderr, "unit-tests: %u assertion failure(s)\n", failures);
    return failures > 0 || failed_suites > 0 ? 1 : 0;
}
