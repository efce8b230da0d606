/* results.c -- see results.h. */
#define _GNU_SOURCE
#include "results.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "result "

static int is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':' || c == '-';
}

/* Parses the whole of s as a finite-or-not double; 1 on success. */
static int parse_double(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    *out = strtod(s, &end);
    return end != s && *end == '\0';
}

static int parse_integer(const char *s, long long *out)
{
    char *end = NULL;
    errno = 0;
    *out = strtoll(s, &end, 10);
    return end != s && *end == '\0' && errno == 0;
}

static void push(result_set *set, result_line item)
{
    set->items = xrealloc(set->items, (size_t)(set->count + 1) * sizeof *set->items);
    set->items[set->count++] = item;
}

/* Parses one line (without its newline) known to start with PREFIX. */
static int parse_line(const char *line, size_t len, int lineno, result_set *set, char *err, size_t errlen)
{
    char *copy = xstrndup(line, len);
    /* Tolerate a carriage return and trailing spaces. */
    size_t n = strlen(copy);
    while (n > 0 && (copy[n - 1] == '\r' || copy[n - 1] == ' ' || copy[n - 1] == '\t'))
        copy[--n] = '\0';
    const char *p = copy + strlen(PREFIX);
    while (*p == ' ')
        p++;
    const char *name_start = p;
    while (is_name_char(*p))
        p++;
    size_t name_len = (size_t)(p - name_start);
    while (*p == ' ')
        p++;
    if (name_len == 0 || *p != '=') {
        snprintf(err, errlen, "line %d: malformed result line (want 'result <name> = <value>'): %.80s",
                 lineno, copy);
        free(copy);
        return -1;
    }
    p++;
    while (*p == ' ')
        p++;
    result_line item = { 0 };
    item.name = xstrndup(name_start, name_len);
    item.line = lineno;
    /* An optional " tol <number>" at the end. */
    const char *tol_at = NULL;
    for (const char *q = strstr(p, " tol "); q; q = strstr(q + 1, " tol "))
        tol_at = q;
    double tol = 0;
    if (tol_at && parse_double(tol_at + 5, &tol) && tol >= 0 && isfinite(tol)) {
        item.has_tol = 1;
        item.tol = tol;
        const char *value_end = tol_at;
        while (value_end > p && value_end[-1] == ' ')
            value_end--;
        item.value = xstrndup(p, (size_t)(value_end - p));
    } else {
        item.value = xstrdup(p);
    }
    free(copy);
    if (item.value[0] == '\0') {
        snprintf(err, errlen, "line %d: result '%s' has no value", lineno, item.name);
        free(item.name);
        free(item.value);
        return -1;
    }
    if (set->count >= RESULTS_MAX) {
        /* (a flood of distinct names would make the duplicate check quadratic) */
        snprintf(err, errlen, "line %d: more than %d result lines", lineno, RESULTS_MAX);
        free(item.name);
        free(item.value);
        return -1;
    }
    if (results_find(set, item.name)) {
        snprintf(err, errlen, "line %d: result '%s' printed twice", lineno, item.name);
        free(item.name);
        free(item.value);
        return -1;
    }
    push(set, item);
    return 0;
}

int results_parse(const char *text, result_set *set, char *err, size_t errlen)
{
    set->items = NULL;
    set->count = 0;
    int lineno = 0;
    const char *p = text;
    while (p && *p) {
        lineno++;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len >= strlen(PREFIX) && strncmp(p, PREFIX, strlen(PREFIX)) == 0 &&
            parse_line(p, len, lineno, set, err, errlen) != 0)
            return -1;
        p = nl ? nl + 1 : NULL;
    }
    return 0;
}

const result_line *results_find(const result_set *set, const char *name)
{
    for (int i = 0; i < set->count; i++)
        if (strcmp(set->items[i].name, name) == 0)
            return &set->items[i];
    return NULL;
}

void results_free(result_set *set)
{
    for (int i = 0; i < set->count; i++) {
        free(set->items[i].name);
        free(set->items[i].value);
    }
    free(set->items);
    set->items = NULL;
    set->count = 0;
}

int results_value_matches(const result_line *expected, const char *got_value)
{
    if (expected->has_tol) {
        double want, got;
        if (!parse_double(expected->value, &want) || !parse_double(got_value, &got))
            return strcmp(expected->value, got_value) == 0;
        if (isnan(want) || isnan(got))
            return 0;
        if (isinf(want) || isinf(got))
            return want == got;
        double scale = fabs(want) > 1.0 ? fabs(want) : 1.0;
        return fabs(got - want) <= expected->tol * scale;
    }
    long long want_int, got_int;
    if (parse_integer(expected->value, &want_int))
        return parse_integer(got_value, &got_int) && got_int == want_int;
    return strcmp(expected->value, got_value) == 0;
}

#define MAX_DESCRIBED 4

/* results_hide_expected: the expected values are left out of the messages. */
static int hide_expected;

void results_hide_expected(int hide)
{
    hide_expected = hide;
}

int results_compare(const result_set *expected, const result_set *got, char **message)
{
    strbuf sb = { 0 };
    int problems = 0;
    for (int i = 0; i < expected->count; i++) {
        const result_line *want = &expected->items[i];
        const result_line *have = results_find(got, want->name);
        if (have && results_value_matches(want, have->value))
            continue;
        if (++problems > MAX_DESCRIBED)
            continue;
        if (hide_expected && !have)
            sb_printf(&sb, "%sresult '%s' missing", sb.len ? "\n" : "", want->name);
        else if (hide_expected)
            sb_printf(&sb, "%sresult '%s': got %s, which is not the expected value", sb.len ? "\n" : "", want->name,
                      have->value);
        else if (!have)
            sb_printf(&sb, "%sresult '%s' missing: expected %s", sb.len ? "\n" : "", want->name, want->value);
        else if (want->has_tol)
            sb_printf(&sb, "%sresult '%s': expected %s (within %g relative), got %s", sb.len ? "\n" : "",
                      want->name, want->value, want->tol, have->value);
        else
            sb_printf(&sb, "%sresult '%s': expected %s, got %s", sb.len ? "\n" : "", want->name, want->value,
                      have->value);
    }
    for (int i = 0; i < got->count; i++) {
        if (results_find(expected, got->items[i].name))
            continue;
        if (++problems > MAX_DESCRIBED)
            continue;
        sb_printf(&sb, "%sresult '%s' = %s is not one the reference prints", sb.len ? "\n" : "",
                  got->items[i].name, got->items[i].value);
    }
    if (problems > MAX_DESCRIBED)
        sb_printf(&sb, "\n(and %d more)", problems - MAX_DESCRIBED);
    if (problems && hide_expected)
        sb_printf(&sb, "\n(the expected values are hidden in this grading)");
    *message = problems ? sb.data : NULL;
    if (!problems)
        sb_free(&sb);
    return problems;
}

/* Splits line[0..len) into words (at most max), in place in a copy; returns how many. */
static int split_words(char *copy, char **words, int max)
{
    int n = 0;
    for (char *p = strtok(copy, " \t\r"); p && n < max; p = strtok(NULL, " \t\r"))
        words[n++] = p;
    return n;
}

int results_timing(const char *text, const char *name, double *seconds)
{
    char want[256];
    char *wanted_words[32];
    snprintf(want, sizeof want, "%s", name);
    int nwant = split_words(want, wanted_words, 32);
    if (nwant == 0)
        return 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len < 512) {
            char *copy = xstrndup(p, len);
            char *w[64];
            int n = split_words(copy, w, 64);
            /* time, the name's words, a number, "s", then nothing or more words */
            if (n >= nwant + 3 && strcmp(w[0], "time") == 0 && strcmp(w[nwant + 2], "s") == 0) {
                int same = 1;
                for (int i = 0; i < nwant && same; i++)
                    same = strcmp(w[1 + i], wanted_words[i]) == 0;
                double v;
                if (same && parse_double(w[nwant + 1], &v) && isfinite(v) && v >= 0) {
                    *seconds = v;
                    free(copy);
                    return 1;
                }
            }
            free(copy);
        }
        p = nl ? nl + 1 : NULL;
    }
    return 0;
}
