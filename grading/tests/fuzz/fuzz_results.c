/* fuzz_results.c -- libFuzzer harness for the result-line parser (grading/src/results.c).
 *
 * The input is taken as a program's stdout: results_parse reads it, then the
 * parsed set is compared with itself and, both ways, with a fixed reference set.
 * Besides what ASan/UBSan catch, it checks the parser's promises:
 *   - every parsed name and value is non-empty, names are unique;
 *   - a set compared with itself has no problems except NaN values with a
 *     tolerance (NaN never matches, by design);
 *   - results_compare returns a message exactly when it reports problems.
 * Built and run by grading/tests/fuzz.sh. */
#include "results.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char reference_text[] =
    "task2: sum with threads=3\n"
    "result sum_reduction = 500002500.00300002 tol 1e-09\n"
    "result count = 33341\n"
    "result name = ring\n"
    "result zero = 0 tol 0\n";

static result_set reference;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_results: property violated: %s\n", what);
        abort();
    }
}

/* The NaN-with-tolerance values of a set: the only self-mismatches allowed. */
static int nan_values(const result_set *set)
{
    int n = 0;
    for (int i = 0; i < set->count; i++) {
        if (!set->items[i].has_tol)
            continue;
        char *end = NULL;
        double v = strtod(set->items[i].value, &end);
        if (end != set->items[i].value && *end == '\0' && isnan(v))
            n++;
    }
    return n;
}

static void compare_and_free(const result_set *expected, const result_set *got, int want_problems)
{
    char *message = (char *)1;
    int problems = results_compare(expected, got, &message);
    check(problems >= 0, "results_compare returned a negative count");
    check((problems == 0) == (message == NULL), "message given exactly when there are problems");
    if (want_problems >= 0)
        check(problems == want_problems, "a set compared with itself matches (NaN aside)");
    free(message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (reference.count == 0) {
        char err[300] = "";
        if (results_parse(reference_text, &reference, err, sizeof err) != 0 || reference.count != 4) {
            fprintf(stderr, "fuzz_results: the reference set does not parse: %s\n", err);
            abort();
        }
    }
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';

    result_set set = { 0 };
    char err[300] = "";  /* the size grader.c uses */
    int status = results_parse(text, &set, err, sizeof err);
    check(status == 0 || status == -1, "results_parse returns 0 or -1");
    check(status == 0 || err[0] != '\0', "a parse error comes with a message");
    check(strlen(err) < sizeof err, "error message within its buffer");
    for (int i = 0; i < set.count; i++) {
        check(set.items[i].name[0] != '\0', "non-empty name");
        check(set.items[i].value[0] != '\0', "non-empty value");
        check(set.items[i].line >= 1, "line numbers from 1");
        check(!set.items[i].has_tol || (set.items[i].tol >= 0 && isfinite(set.items[i].tol)),
              "a tolerance is finite and >= 0");
        check(results_find(&set, set.items[i].name) == &set.items[i], "names are unique");
    }
    compare_and_free(&set, &set, nan_values(&set));
    compare_and_free(&reference, &set, -1);
    compare_and_free(&set, &reference, -1);
    for (int i = 0; i < set.count && i < 8; i++)
        (void)results_value_matches(&set.items[i], reference.items[i % reference.count].value);
    results_free(&set);
    check(set.items == NULL && set.count == 0, "results_free empties the set");
    free(text);
    return 0;
}
