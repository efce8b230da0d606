/*
 * simpp -- the CUDA simulator's pre-pass (built by grading/sim/simcc on first use).
 *
 *   simpp IN.cu OUT.cpp
 *
 * Copies IN to OUT, starting with  #line 1 "IN"  and changing only:
 *   kernel<<<grid, block[, shmem[, stream]]>>>(args)
 *       -> kernel << ::cuda_sim::cfg(grid, block[, shmem[, stream]])(args)
 *   extern __shared__ T name[];
 *       -> extern __sim_extern_shared__ T name[] __asm__("cuda_sim_dynamic_shared");
 * Comments, string and character literals are left alone.  Nothing moves to another
 * line, so the compiler's line numbers are the user's.  Exit 1 on an unterminated
 * launch (with file:line), 2 on usage or I/O errors.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *src;
static size_t len, pos;
static FILE *out;
static const char *name;

static int is_id(int c) { return isalnum(c) || c == '_'; }

static int line_of(size_t at)
{
    int line = 1;
    for (size_t i = 0; i < at && i < len; i++)
        line += src[i] == '\n';
    return line;
}

/* Copies a comment or literal starting at pos (if there is one); returns 1 if it did. */
static int copy_literal(void)
{
    char c = src[pos];
    if (c == '/' && pos + 1 < len && src[pos + 1] == '/') {
        while (pos < len && src[pos] != '\n') {
            if (src[pos] == '\\' && pos + 1 < len && src[pos + 1] == '\n')
                fputc(src[pos++], out);
            fputc(src[pos++], out);
        }
        return 1;
    }
    if (c == '/' && pos + 1 < len && src[pos + 1] == '*') {
        fputs("/*", out);
        pos += 2;
        while (pos < len && !(src[pos] == '*' && pos + 1 < len && src[pos + 1] == '/'))
            fputc(src[pos++], out);
        if (pos < len) {
            fputs("*/", out);
            pos += 2;
        }
        return 1;
    }
    if (c == 'R' && pos + 1 < len && src[pos + 1] == '"' && (pos == 0 || !is_id(src[pos - 1]))) {
        /* raw string R"delim( ... )delim" */
        size_t d = pos + 2;
        while (d < len && src[d] != '(' && d - pos < 20)
            d++;
        if (d < len && src[d] == '(') {
            char close[24];
            size_t dl = d - (pos + 2);
            close[0] = ')';
            memcpy(close + 1, src + pos + 2, dl);
            close[dl + 1] = '"';
            close[dl + 2] = '\0';
            char *end = strstr(src + d, close);
            size_t stop = end ? (size_t)(end - src) + dl + 2 : len;
            fwrite(src + pos, 1, stop - pos, out);
            pos = stop;
            return 1;
        }
    }
    if (c == '"' || (c == '\'' && !(pos > 0 && isxdigit((unsigned char)src[pos - 1]) &&
                                     pos + 1 < len && isxdigit((unsigned char)src[pos + 1])))) {
        /* (a ' between hex digits is a C++14 digit separator: 1'000'000) */
        fputc(src[pos++], out);
        while (pos < len && src[pos] != c && src[pos] != '\n') {
            if (src[pos] == '\\' && pos + 1 < len)
                fputc(src[pos++], out);
            fputc(src[pos++], out);
        }
        if (pos < len && src[pos] == c)
            fputc(src[pos++], out);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: simpp IN.cu OUT.cpp\n");
        return 2;
    }
    name = argv[1];
    FILE *in = fopen(name, "rb");
    if (!in) {
        perror(name);
        return 2;
    }
    size_t cap = 1 << 16;
    src = malloc(cap + 1);
    size_t got;
    while ((got = fread(src + len, 1, cap - len, in)) > 0) {
        len += got;
        if (len == cap)
            src = realloc(src, (cap *= 2) + 1);
    }
    fclose(in);
    src[len] = '\0';
    out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 2;
    }
    fputs("#line 1 \"", out);
    for (const char *p = name; *p; p++) {
        if (*p == '"' || *p == '\\')
            fputc('\\', out);
        fputc(*p, out);
    }
    fputs("\"\n", out);

    int in_launch = 0, depth = 0, want_label = 0, label_depth = 0;
    size_t launch_at = 0;
    char last_id[64] = "";
    while (pos < len) {
        if (copy_literal())
            continue;
        char c = src[pos];
        if (is_id(c) && (pos == 0 || !is_id(src[pos - 1]))) {
            size_t s = pos;
            while (pos < len && is_id(src[pos]))
                pos++;
            size_t n = pos - s;
            if (n == 6 && !memcmp(src + s, "extern", 6)) {
                size_t k = pos;
                while (k < len && isspace((unsigned char)src[k]))
                    k++;
                if (len - k >= 10 && !memcmp(src + k, "__shared__", 10) && !is_id(src[k + 10])) {
                    fwrite(src + s, 1, k - s, out);
                    fputs("__sim_extern_shared__", out);
                    pos = k + 10;
                    want_label = 1;
                    label_depth = depth;
                    continue;
                }
            }
            fwrite(src + s, 1, n, out);
            if (n < sizeof last_id) {
                memcpy(last_id, src + s, n);
                last_id[n] = '\0';
            } else {
                last_id[0] = '\0';
            }
            continue;
        }
        if (!in_launch && c == '<' && len - pos >= 3 && src[pos + 1] == '<' && src[pos + 2] == '<' &&
            strcmp(last_id, "operator") != 0) {
            fputs(" << ::cuda_sim::cfg(", out);
            pos += 3;
            in_launch = 1;
            launch_at = pos;
            depth = 0;
            continue;
        }
        if (in_launch && depth == 0 && c == '>' && len - pos >= 3 && src[pos + 1] == '>' && src[pos + 2] == '>') {
            fputc(')', out);
            pos += 3;
            in_launch = 0;
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}')
            depth--;
        else if (c == ';' && want_label && depth == label_depth) {
            fputs(" __asm__(\"cuda_sim_dynamic_shared\")", out);
            want_label = 0;
        }
        if (in_launch && (c == ';' || depth < 0)) {
            fprintf(stderr, "%s:%d: error: kernel launch '<<<' without its closing '>>>'\n", name,
                    line_of(launch_at));
            return 1;
        }
        if (!isspace((unsigned char)c))
            last_id[0] = '\0';
        fputc(c, out);
        pos++;
    }
    if (in_launch) {
        fprintf(stderr, "%s:%d: error: kernel launch '<<<' without its closing '>>>'\n", name, line_of(launch_at));
        return 1;
    }
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 2;
    }
    return 0;
}
