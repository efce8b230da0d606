/* gen.c -- the task generator (see gen.h for the marker format). */
#define _POSIX_C_SOURCE 200809L
#include "gen.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MARK "//@"

/* If `line` is a marker line, returns the text after "//@" (one space skipped)
 * and sets *indent_len; otherwise NULL. */
static const char *marker_text(const char *line, size_t *indent_len)
{
    size_t i = strspn(line, " \t");
    if (strncmp(line + i, MARK, strlen(MARK)) != 0)
        return NULL;
    *indent_len = i;
    const char *text = line + i + strlen(MARK);
    if (*text == ' ')
        text++;
    return text;
}

/* Copies s without its trailing newline / carriage return / spaces into buf. */
static void chomp_into(char *buf, size_t buflen, const char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n >= buflen)
        n = buflen - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

int gen_task(FILE *in, const char *name, FILE *out, char *err, size_t errlen)
{
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, open_line = 0;
    int in_block = 0, blocks = 0, status = 0;

    while (getline(&line, &cap, in) != -1) {
        lineno++;
        size_t indent = 0;
        const char *text = marker_text(line, &indent);
        char body[4096];
        if (!text) {
            if (!in_block)
                fputs(line, out);
            continue;
        }
        chomp_into(body, sizeof body, text);
        if (strcmp(body, "solution {") == 0) {
            if (in_block) {
                snprintf(err, errlen, "%s:%ld: solution block inside the block opened on line %ld",
                         name, lineno, open_line);
                status = -1;
                break;
            }
            in_block = 1;
            open_line = lineno;
            blocks++;
        } else if (strcmp(body, "}") == 0) {
            if (!in_block) {
                snprintf(err, errlen, "%s:%ld: '//@ }' without an open '//@ solution {'", name, lineno);
                status = -1;
                break;
            }
            in_block = 0;
        } else if (in_block) {
            snprintf(err, errlen, "%s:%ld: marker line inside the solution block opened on line %ld",
                     name, lineno, open_line);
            status = -1;
            break;
        } else if (strncmp(body, "placeholder:", 12) == 0 || strncmp(body, "bug:", 4) == 0) {
            const char *code = strchr(body, ':') + 1;
            if (*code == ' ')
                code++;
            if (body[0] == 'b' && *code == '\0')
                continue; /* the bug is a missing line: the task gets nothing here */
            fprintf(out, "%.*s%s\n", (int)indent, line, code);
        } else if (body[0] == '\0') {
            fprintf(out, "%.*s//\n", (int)indent, line);
        } else {
            fprintf(out, "%.*s// %s\n", (int)indent, line, body);
        }
    }
    free(line);
    if (status == 0 && in_block) {
        snprintf(err, errlen, "%s:%ld: solution block opened here is never closed with '//@ }'", name,
                 open_line);
        status = -1;
    }
    if (status == 0 && blocks == 0) {
        snprintf(err, errlen, "%s: no '//@ solution {' block: the task would equal the solution", name);
        status = -1;
    }
    if (status == 0 && ferror(in)) {
        snprintf(err, errlen, "%s: read error", name);
        status = -1;
    }
    return status;
}

int gen_task_file(const char *solution_path, const char *task_path, char *err, size_t errlen)
{
    FILE *in = fopen(solution_path, "r");
    if (!in) {
        snprintf(err, errlen, "%s: cannot open", solution_path);
        return -1;
    }
    size_t len = strlen(task_path) + 16;
    char *tmp = malloc(len);
    if (!tmp) {
        fclose(in);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(tmp, len, "%s.gen-tmp", task_path);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        snprintf(err, errlen, "%s: cannot write", tmp);
        fclose(in);
        free(tmp);
        return -1;
    }
    int status = gen_task(in, solution_path, out, err, errlen);
    fclose(in);
    if (fclose(out) != 0 && status == 0) {
        snprintf(err, errlen, "%s: write error", tmp);
        status = -1;
    }
    if (status == 0 && rename(tmp, task_path) != 0) {
        snprintf(err, errlen, "%s: cannot rename to %s", tmp, task_path);
        status = -1;
    }
    if (status != 0)
        unlink(tmp);
    free(tmp);
    return status;
}

int gen_task_untouched(const char *solution_path, const char *task_path)
{
    FILE *in = fopen(solution_path, "r");
    if (!in)
        return -1;
    char *made = NULL;
    size_t made_len = 0;
    FILE *out = open_memstream(&made, &made_len);
    char err[300];
    int status = out ? gen_task(in, solution_path, out, err, sizeof err) : -1;
    fclose(in);
    if (out)
        fclose(out);
    FILE *task = status == 0 ? fopen(task_path, "r") : NULL;
    if (!task) {
        free(made);
        return -1;
    }
    /* Compare in pieces: the task file may be anything a learner made of it. */
    int same = 1;
    size_t at = 0, got;
    char buf[8192];
    while (same && (got = fread(buf, 1, sizeof buf, task)) > 0) {
        same = got <= made_len - at && memcmp(buf, made + at, got) == 0;
        at += got;
    }
    same = same && !ferror(task) && at == made_len;
    fclose(task);
    free(made);
    return same;
}

int gen_is_bug_hunt(const char *solution_path)
{
    FILE *in = fopen(solution_path, "r");
    if (!in)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    int found = 0;
    while (!found && getline(&line, &cap, in) != -1) {
        size_t indent;
        const char *text = marker_text(line, &indent);
        found = text && strncmp(text, "bug:", 4) == 0;
    }
    free(line);
    fclose(in);
    return found;
}
