/* results.h -- the output protocol: parsing result lines and comparing them.
 *
 * A program prints, on stdout, lines of exactly this form (everything else is
 * ignored):
 *     result <name> = <value>
 *     result <name> = <value> tol <relative tolerance>
 * <name> is letters, digits and _ . : -; <value> is the rest of the line.
 * The reference (solution) side decides how a value is compared:
 *   - with "tol T": as floating point, |got - expected| <= T * max(1, |expected|);
 *   - else, if it is an integer: as an integer, exactly;
 *   - else: as a string, exactly. */
#ifndef PR_RESULTS_H
#define PR_RESULTS_H

#include <stddef.h>

typedef struct {
    char *name;
    char *value;
    int has_tol;
    double tol;
    int line;  /* 1-based line number in the output */
} result_line;

typedef struct {
    result_line *items;
    int count;
} result_set;

/* Parses every result line of `text`.  Returns 0, or -1 on the first malformed
 * result line or duplicated name, with a message in err (the set keeps what
 * was parsed before it). */
/* The most result lines a program may print (the solutions print a few dozen at most). */
#define RESULTS_MAX 1000
int results_parse(const char *text, result_set *set, char *err, size_t errlen);
const result_line *results_find(const result_set *set, const char *name);
void results_free(result_set *set);

/* Compares `got` (the task) with `expected` (the reference).  Returns the number
 * of problems (missing, extra or different results); *message gets a new string
 * describing them (the first few, one per line), or NULL when there are none. */
int results_compare(const result_set *expected, const result_set *got, char **message);
/* From now on, results_compare's messages name the result lines that are wrong or missing,
 * and the learner's own values, but never the expected values (an instructor's choice:
 * grade --hide-expected). */
void results_hide_expected(int hide);

/* Compares one value the way results_compare does: 1 when equal enough. */
int results_value_matches(const result_line *expected, const char *got_value);

/* The timing protocol (pr.h's pr_print_time): a line, leading spaces allowed,
 *     time <name> <seconds> s [anything, e.g. "(1.93x speedup vs serial)"]
 * <name> is free text (words separated by spaces, compared with runs of spaces as one);
 * <seconds> a number, followed by the word "s".  Timings are never compared for
 * correctness; the perf verdict reads them (perf.h).  Returns 1 with *seconds set from
 * the first such line whose name is `name`, else 0. */
int results_timing(const char *text, const char *name, double *seconds);

#endif
