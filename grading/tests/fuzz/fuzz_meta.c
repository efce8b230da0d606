/* fuzz_meta.c -- libFuzzer harness for the tasks.ini reader (grading/src/meta.c, on inih).
 *
 * The input is written to a temporary tasks.ini and loaded with room_load, then
 * everything is freed (LeakSanitizer reports what is not).  Checks the loader's
 * promises too: on success every task has a title, source, kind and at least one
 * configuration; on failure there is a message.  Inputs of odd length are read
 * from a path longer than the grader's 600-byte error buffer (a workbook in a
 * deep folder), since error messages start with the path.  Built and run by
 * grading/tests/fuzz.sh. */
#define _GNU_SOURCE
#include "meta.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char ini_path[64];
static char long_dir[1024], long_path[1100];

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_meta: property violated: %s\n", what);
        abort();
    }
}

static void remove_ini(void)
{
    if (ini_path[0])
        unlink(ini_path);
    if (long_path[0]) {
        unlink(long_path);
        /* the four folders of long_dir, innermost first */
        for (int level = 0; level < 4; level++) {
            rmdir(long_dir);
            char *slash = strrchr(long_dir, '/');
            if (slash)
                *slash = '\0';
        }
    }
}

/* TMPDIR/fuzz-meta-XXXXXX.d/aaa...(200)/bbb...(200)/000...(200)/tasks.ini: over 600 characters. */
static void make_long_dir(void)
{
    char base[80];
    snprintf(base, sizeof base, "%s.d", ini_path);
    snprintf(long_dir, sizeof long_dir, "%s", base);
    check(mkdir(long_dir, 0700) == 0, "mkdir of the long path");
    for (int level = 0; level < 2; level++) {
        size_t n = strlen(long_dir);
        long_dir[n] = '/';
        memset(long_dir + n + 1, 'a' + level, 200);
        long_dir[n + 201] = '\0';
        check(mkdir(long_dir, 0700) == 0, "mkdir of the long path");
    }
    snprintf(long_path, sizeof long_path, "%s/%0200d/tasks.ini", long_dir, 0);
    /* the third level is the file's own folder */
    char *slash = strrchr(long_path, '/');
    *slash = '\0';
    check(mkdir(long_path, 0700) == 0, "mkdir of the long path");
    snprintf(long_dir, sizeof long_dir, "%s", long_path);
    *slash = '/';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ini_path[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(ini_path, sizeof ini_path, "%s/fuzz-meta-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
        int fd = mkstemp(ini_path);
        check(fd >= 0, "mkstemp");
        close(fd);
        make_long_dir();
        atexit(remove_ini);
    }
    const char *path = size % 2 ? long_path : ini_path;
    FILE *f = fopen(path, "wb");
    check(f != NULL, "fopen of the temp tasks.ini");
    check(fwrite(data, 1, size, f) == size, "fwrite");
    fclose(f);

    /* Heap-allocated inside a workbook so that workbook_free frees it all. */
    workbook wb = { 0 };
    wb.rooms = malloc(sizeof *wb.rooms);
    wb.nrooms = 1;
    char err[600] = "";  /* the size main.c uses */
    int status = room_load(path, "01_fuzz", &wb.rooms[0], err, sizeof err);
    check(status == 0 || status == -1, "room_load returns 0 or -1");
    check(status == 0 || err[0] != '\0', "a failed load comes with a message");
    if (status == 0) {
        room_meta *room = &wb.rooms[0];
        check(room->title != NULL, "room title");
        for (int i = 0; i < room->ntasks; i++) {
            task_meta *t = &room->tasks[i];
            check(t->title && t->source && t->kind && t->runs_text, "task fields set");
            check(t->nhints >= 1 && t->nhints <= MAX_HINTS, "a hint ladder of 1 to MAX_HINTS rungs");
            for (int h = 0; h < MAX_HINTS; h++)
                check((h < t->nhints) == (t->hints[h] != NULL), "the ladder's rungs, and nothing past them");
            check(t->nconfigs > 0, "at least one configuration");
            check(t->timeout > 0 && t->timeout <= 3600, "timeout in range");
            for (int c = 0; c < t->nconfigs; c++) {
                const run_config *cfg = &t->configs[c];
                check(cfg->label && cfg->nkeys > 0, "configuration label and keys");
                for (int k = 0; k < cfg->nkeys; k++)
                    check(config_get(cfg, cfg->keys[k]) != NULL, "config_get finds every key");
            }
            check(!t->method || task_method_config(t) != NULL, "a method has a configuration to be judged at");
        }
        /* every lo..hi drawn, at a seed the input chooses */
        uint64_t seed = size;
        for (size_t i = 0; i < size && i < 8; i++)
            seed = seed * 131 + data[i];
        workbook_draw(&wb, seed);
        for (int i = 0; i < room->ntasks; i++) {
            task_meta *t = &room->tasks[i];
            for (int c = 0; c < t->nconfigs; c++)
                check(!config_has_draw(&t->configs[c]) && t->configs[c].label, "every range drawn");
            check(!t->perf || !config_has_draw(t->perf), "the perf configuration drawn");
            check(!t->method_run || !config_has_draw(t->method_run), "the method configuration drawn");
        }
    }
    workbook_free(&wb);
    return 0;
}
