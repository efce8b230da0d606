/* util.c -- see util.h. */
#define _GNU_SOURCE
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void out_of_memory(void)
{
    fputs("grade: out of memory\n", stderr);
    exit(3);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        out_of_memory();
    va_end(ap);
    return s;
}

void sb_append(strbuf *sb, const char *data, size_t len)
{
    if (sb->len + len + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 256;
        while (cap < sb->len + len + 1)
            cap *= 2;
        sb->data = xrealloc(sb->data, cap);
        sb->cap = cap;
    }
    memcpy(sb->data + sb->len, data, len);
    sb->len += len;
    sb->data[sb->len] = '\0';
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        out_of_memory();
    sb_append(sb, s, (size_t)n);
    free(s);
}

void sb_free(strbuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

void sl_push_owned(strlist *sl, char *s)
{
    if (sl->count + 2 > sl->cap) {
        sl->cap = sl->cap ? sl->cap * 2 : 8;
        sl->items = xrealloc(sl->items, (size_t)sl->cap * sizeof *sl->items);
    }
    sl->items[sl->count++] = s;
    sl->items[sl->count] = NULL;
}

void sl_push(strlist *sl, const char *s)
{
    sl_push_owned(sl, xstrdup(s));
}

char **sl_argv(strlist *sl)
{
    if (!sl->items) {
        sl->cap = 8;
        sl->items = xmalloc((size_t)sl->cap * sizeof *sl->items);
        sl->items[0] = NULL;
    }
    return sl->items;
}

void sl_free(strlist *sl)
{
    for (int i = 0; i < sl->count; i++)
        free(sl->items[i]);
    free(sl->items);
    sl->items = NULL;
    sl->count = sl->cap = 0;
}

void sl_split_words(strlist *sl, const char *text)
{
    const char *p = text;
    while (p && *p) {
        p += strspn(p, " \t\n");
        size_t n = strcspn(p, " \t\n");
        if (n > 0)
            sl_push_owned(sl, xstrndup(p, n));
        p += n;
    }
}

int make_dirs(const char *path)
{
    char *copy = xstrdup(path);
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            free(copy);
            return -1;
        }
        *p = '/';
    }
    int rc = (mkdir(copy, 0777) != 0 && errno != EEXIST) ? -1 : 0;
    free(copy);
    return rc;
}

/* One folder being emptied by remove_tree: the names of its subfolders, as one scan of it
 * found them, and the next to go into. */
typedef struct {
    char **names;
    size_t count, next;
} rm_level;

/* Empties the folder open as fd of its files (and whatever is not a folder), and lists its
 * subfolders into level (made readable, writable and searchable for us: a folder a program
 * made unreadable goes too).  Returns 0, or -1 when something could not be removed. */
static int rm_scan(int fd, rm_level *level)
{
    memset(level, 0, sizeof *level);
    int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!dir) {
        if (dup_fd >= 0)
            close(dup_fd);
        return -1;
    }
    int rc = 0;
    size_t cap = 0;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (!S_ISDIR(st.st_mode)) {
            if (unlinkat(fd, entry->d_name, 0) != 0 && errno != ENOENT)
                rc = -1;
            continue;
        }
        if ((st.st_mode & 0700) != 0700)
            fchmodat(fd, entry->d_name, st.st_mode | 0700, 0);
        if (level->count == cap) {
            cap = cap ? 2 * cap : 16;
            level->names = xrealloc(level->names, cap * sizeof *level->names);
        }
        level->names[level->count++] = xstrdup(entry->d_name);
    }
    closedir(dir);
    return rc;
}

static void rm_level_free(rm_level *level)
{
    for (size_t i = 0; i < level->count; i++)
        free(level->names[i]);
    free(level->names);
}

/* Depth first, holding two descriptors at most whatever the depth (a tree deeper than the
 * open-file limit, or than PATH_MAX, goes too), and no recursion (nor a C stack to overflow):
 * the folders still to visit are a list of names per level.  Each folder is read once. */
int remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    if ((st.st_mode & 0700) != 0700)
        chmod(path, st.st_mode | 0700);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t depth = 0, cap = 16;
    rm_level *levels = xmalloc(cap * sizeof *levels);
    int rc = rm_scan(fd, &levels[0]);
    for (;;) {
        rm_level *level = &levels[depth];
        if (level->next < level->count) {
            const char *name = level->names[level->next++];
            int child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (child < 0) {
                if (unlinkat(fd, name, AT_REMOVEDIR) != 0)
                    rc = -1;
                continue;
            }
            close(fd);
            fd = child;
            if (++depth == cap) {
                cap *= 2;
                levels = xrealloc(levels, cap * sizeof *levels);
            }
            if (rm_scan(fd, &levels[depth]) != 0)
                rc = -1;
            continue;
        }
        /* this folder is empty (or holds what could not go): up, and remove it */
        rm_level_free(level);
        if (depth == 0)
            break;
        int parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(fd);
        fd = parent;
        depth--;
        if (fd < 0) {
            rc = -1;
            for (size_t d = 0; d <= depth; d++)
                rm_level_free(&levels[d]);
            break;
        }
        if (unlinkat(fd, levels[depth].names[levels[depth].next - 1], AT_REMOVEDIR) != 0)
            rc = -1;
    }
    free(levels);
    if (fd >= 0)
        close(fd);
    if (rmdir(path) != 0)
        rc = -1;
    return rc;
}

int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

char *first_lines(const char *text, int max_lines, size_t max_bytes)
{
    const char *p = text;
    int lines = 0;
    while (*p && lines < max_lines && (size_t)(p - text) < max_bytes) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
        lines++;
    }
    size_t n = (size_t)(p - text);
    if (n > max_bytes)
        n = max_bytes;
    return xstrndup(text, n);
}

int write_file(const char *path, const char *data, size_t len)
{
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        make_dirs(dir);
    }
    free(dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t written = fwrite(data, 1, len, f);
    int rc = (fclose(f) == 0 && written == len) ? 0 : -1;
    return rc;
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 when it is not one. */
static int utf8_sequence(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    int n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0)))
        return 0; /* overlong, or a surrogate */
    if (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90)))
        return 0;
    return n;
}

void text_printable(char *s)
{
    if (!s)
        return;
    for (unsigned char *p = (unsigned char *)s; *p;) {
        int n = utf8_sequence(p);
        if (n == 0 || (n == 1 && ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7F))) {
            *p++ = '?';
            continue;
        }
        p += n;
    }
}
