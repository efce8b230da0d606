/* util.h -- small helpers shared by the grader: memory, strings, files. */
#ifndef PR_UTIL_H
#define PR_UTIL_H

#include <stdarg.h>
#include <stddef.h>

/* Allocation that never returns NULL (the grader exits on out-of-memory). */
void *xmalloc(size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A new string formatted like printf. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable byte buffer, always NUL-terminated. */
typedef struct {
    char *data;
    size_t len, cap;
} strbuf;
void sb_append(strbuf *sb, const char *data, size_t len);
void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(strbuf *sb);

/* A growable list of strings (owned). */
typedef struct {
    char **items;
    int count, cap;
} strlist;
void sl_push(strlist *sl, const char *s);      /* copies s */
void sl_push_owned(strlist *sl, char *s);      /* takes s */
char **sl_argv(strlist *sl);                   /* NULL-terminated view, valid until next push */
void sl_free(strlist *sl);
/* Splits on spaces and tabs (no quoting) and appends the words. */
void sl_split_words(strlist *sl, const char *text);

/* mkdir -p; returns 0 or -1. */
int make_dirs(const char *path);
/* rm -r (does not follow symbolic links); returns 0 or -1. */
int remove_tree(const char *path);
int file_exists(const char *path);
/* Makes text safe to show and to write in JSON and XML, in place: every byte that is not
 * part of valid UTF-8, and every control character but newline and tab (a terminal's
 * escape sequences), becomes '?'. */
void text_printable(char *s);
/* The first `max_lines` lines of text (at most max_bytes), as a new string. */
char *first_lines(const char *text, int max_lines, size_t max_bytes);
/* Writes len bytes to path (creating directories); returns 0 or -1. */
int write_file(const char *path, const char *data, size_t len);
/* Seconds on a monotonic clock. */
double now_seconds(void);

#endif
