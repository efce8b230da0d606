/* meta.c -- see meta.h. */
#define _GNU_SOURCE
#include "meta.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONFIGS 256

const kind_info *task_kind(const task_meta *task)
{
    if (task->kind_entry)
        return task->kind_entry;
    const kind_info *kind = kind_lookup(task->kind);
    if (!kind) {
        fprintf(stderr, "grade: task %s has kind '%s', which is not in the kinds table\n",
                task->id ? task->id : "(made by hand)", task->kind ? task->kind : "(none)");
        exit(2);
    }
    return kind;
}

static void config_free(run_config *cfg)
{
    free(cfg->label);
    for (int i = 0; i < cfg->nkeys; i++) {
        free(cfg->keys[i]);
        free(cfg->values[i]);
    }
    free(cfg->keys);
    free(cfg->values);
    free(cfg->slots);
}

const run_config *task_method_config(const task_meta *task)
{
    return task->method_run ? task->method_run : task->perf;
}

const char *config_get(const run_config *cfg, const char *key)
{
    for (int i = 0; i < cfg->nkeys; i++)
        if (strcmp(cfg->keys[i], key) == 0)
            return cfg->values[i];
    return NULL;
}

static int valid_key(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

/* "lo..hi" -> 1 with the bounds; -1 for a range that is not one this file allows; 0 for
 * any other value (a plain value). */
static int draw_range(const char *value, long long *lo, long long *hi)
{
    const char *dots = strstr(value, "..");
    if (!dots)
        return 0;
    char *end = NULL;
    if (!isdigit((unsigned char)value[0]) || !isdigit((unsigned char)dots[2]))
        return -1;
    errno = 0;
    *lo = strtoll(value, &end, 10);
    if (end != dots || errno != 0)
        return -1;
    *hi = strtoll(dots + 2, &end, 10);
    if (*end != '\0' || errno != 0 || *lo < 0 || *lo > DRAW_MAX || *hi < 0 || *hi > DRAW_MAX)
        return -1;
    /* at least six numbers (both bounds in range: no overflow): some of them neither 2 nor 3 divides */
    return *hi - *lo >= 5 ? 1 : -1;
}

int config_has_draw(const run_config *cfg)
{
    long long lo, hi;
    for (int k = 0; k < cfg->nkeys; k++)
        if (draw_range(cfg->values[k], &lo, &hi) == 1)
            return 1;
    return 0;
}

/* SplitMix64's finaliser: a well-mixed 64-bit value from any other. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The draw's value for one slot: a function of the grading's seed, the task, the runs line,
 * the key and the value's place in its list, and of nothing else (the same SEED draws the
 * same value, whatever else is graded).  An integer in [lo, hi] that neither 2 nor 3 divides,
 * so that a drawn size never splits evenly over 2, 3 or 4 workers. */
long long draw_value(uint64_t seed, const char *task_id, int line, const char *key, int slot, long long lo,
                     long long hi)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a over "task|line|key|slot" */
    char *what = xasprintf("%s|%d|%s|%d", task_id, line, key, slot);
    for (const char *c = what; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    free(what);
    uint64_t span = (uint64_t)(hi - lo) + 1;
    long long v = lo + (long long)(mix64(h ^ mix64(seed)) % span);
    while (v % 2 == 0 || v % 3 == 0)
        v = v + 1 > hi ? lo : v + 1;
    return v;
}

/* The configuration with its ranges drawn: values and label rewritten in place. */
static void config_draw(run_config *cfg, uint64_t seed, const char *task_id)
{
    strbuf label = { 0 };
    for (int k = 0; k < cfg->nkeys; k++) {
        long long lo, hi;
        if (draw_range(cfg->values[k], &lo, &hi) == 1) {
            free(cfg->values[k]);
            cfg->values[k] = xasprintf("%lld", draw_value(seed, task_id, cfg->line, cfg->keys[k],
                                                          cfg->slots ? cfg->slots[k] : 0, lo, hi));
        }
        sb_printf(&label, "%s%s=%s", k ? " " : "", cfg->keys[k], cfg->values[k]);
    }
    free(cfg->label);
    cfg->label = label.data;
}

void workbook_draw(workbook *wb, uint64_t seed)
{
    for (int r = 0; r < wb->nrooms; r++)
        for (int i = 0; i < wb->rooms[r].ntasks; i++) {
            task_meta *t = &wb->rooms[r].tasks[i];
            for (int c = 0; c < t->nconfigs; c++)
                config_draw(&t->configs[c], seed, t->id);
            if (t->perf)
                config_draw(t->perf, seed, t->id);
            if (t->method_run)
                config_draw(t->method_run, seed, t->id);
        }
}

void workbook_select_configs(workbook *wb, int max_ranks, int first_only)
{
    for (int r = 0; r < wb->nrooms; r++)
        for (int i = 0; i < wb->rooms[r].ntasks; i++) {
            task_meta *t = &wb->rooms[r].tasks[i];
            int kept = 0;
            for (int c = 0; c < t->nconfigs; c++) {
                const char *ranks = config_get(&t->configs[c], "ranks");
                int keep = !(first_only && kept > 0) && !(max_ranks > 0 && ranks && atoi(ranks) > max_ranks);
                if (keep)
                    t->configs[kept++] = t->configs[c];
                else
                    config_free(&t->configs[c]);
            }
            if (kept < t->nconfigs)
                t->overlaid = 1; /* the report says the configurations are not the workbook's */
            t->nconfigs = kept;
        }
}

int expand_runs(const char *spec, run_config **configs, int *nconfigs, char *err, size_t errlen)
{
    strlist words = { 0 };
    sl_split_words(&words, spec);
    if (words.count == 0) {
        snprintf(err, errlen, "empty runs line");
        sl_free(&words);
        return -1;
    }
    int nkeys = words.count;
    char **keys = xmalloc((size_t)nkeys * sizeof *keys);
    strlist *values = xmalloc((size_t)nkeys * sizeof *values);
    memset(values, 0, (size_t)nkeys * sizeof *values);
    int status = 0;
    long total = 1;
    for (int k = 0; k < nkeys; k++) {
        const char *word = words.items[k];
        const char *eq = strchr(word, '=');
        keys[k] = NULL;
        if (!eq || !valid_key(word, (size_t)(eq - word))) {
            snprintf(err, errlen, "runs: '%s' is not key=value[,value...]", word);
            status = -1;
            nkeys = k;
            break;
        }
        keys[k] = xstrndup(word, (size_t)(eq - word));
        for (int j = 0; j < k; j++)
            if (strcmp(keys[j], keys[k]) == 0) {
                snprintf(err, errlen, "runs: key '%s' given twice", keys[k]);
                status = -1;
            }
        const char *p = eq + 1;
        for (;;) {
            size_t n = strcspn(p, ",");
            if (n == 0) {
                snprintf(err, errlen, "runs: '%s' has an empty value", word);
                status = -1;
                break;
            }
            sl_push_owned(&values[k], xstrndup(p, n));
            long long lo, hi;
            int range = draw_range(values[k].items[values[k].count - 1], &lo, &hi);
            if (range < 0) {
                snprintf(err, errlen, "runs: '%s' has a range that is not lo..hi with 0 <= lo and lo + 5 <= hi "
                                      "<= 999999999999", word);
                status = -1;
                break;
            }
            if (p[n] == '\0')
                break;
            p += n + 1;
        }
        total *= values[k].count;
        if (status != 0) {
            nkeys = k + 1;
            break;
        }
        if (total > MAX_CONFIGS) {
            snprintf(err, errlen, "runs: more than %d configurations in one line", MAX_CONFIGS);
            status = -1;
            nkeys = k + 1;
            break;
        }
    }
    if (status == 0) {
        /* Odometer over the value lists: the first key changes slowest. */
        int *idx = xmalloc((size_t)nkeys * sizeof *idx);
        for (int k = 0; k < nkeys; k++)
            idx[k] = 0;
        for (long c = 0; c < total; c++) {
            run_config cfg = { 0 };
            cfg.nkeys = nkeys;
            cfg.keys = xmalloc((size_t)nkeys * sizeof *cfg.keys);
            cfg.values = xmalloc((size_t)nkeys * sizeof *cfg.values);
            cfg.slots = xmalloc((size_t)nkeys * sizeof *cfg.slots);
            strbuf label = { 0 };
            for (int k = 0; k < nkeys; k++) {
                cfg.keys[k] = xstrdup(keys[k]);
                cfg.values[k] = xstrdup(values[k].items[idx[k]]);
                cfg.slots[k] = idx[k];
                sb_printf(&label, "%s%s=%s", k ? " " : "", keys[k], cfg.values[k]);
            }
            cfg.label = label.data;
            *configs = xrealloc(*configs, (size_t)(*nconfigs + 1) * sizeof **configs);
            (*configs)[(*nconfigs)++] = cfg;
            for (int k = nkeys - 1; k >= 0; k--) {
                if (++idx[k] < values[k].count)
                    break;
                idx[k] = 0;
            }
        }
        free(idx);
    }
    for (int k = 0; k < nkeys; k++) {
        free(keys[k]);
        sl_free(&values[k]);
    }
    free(keys);
    free(values);
    sl_free(&words);
    return status;
}

/* ---- reading tasks.ini ------------------------------------------------------ */

typedef struct {
    room_meta *room;
    const char *path;
    char *err;
    size_t errlen;
    int failed;
    strlist runs_lines;  /* per task, parallel to room->tasks: collected then expanded */
    FILE *file;
    int lineno;          /* lines read so far: the line inih is handling */
    int fail_line;
    char fail_msg[400];
    int overlay;         /* reading the private overlay (meta_set_overlay), not tasks.ini */
    char *replaced;      /* overlay: per task, 1 once its runs lines were replaced */
} parse_state;

/* The private tasks.ini overlay (GRADE_TASKS_OVERLAY), or NULL. */
static char *overlay_path;

void meta_set_overlay(const char *path)
{
    free(overlay_path);
    overlay_path = path && *path ? xstrdup(path) : NULL;
}

/* inih's reader, counting lines (inih counts one line per call too), so that an
 * error found by the handler gets its own line number. */
static char *read_line(char *str, int num, void *stream)
{
    parse_state *st = stream;
    char *s = fgets(str, num, st->file);
    if (s)
        st->lineno++;
    return s;
}

static task_meta *task_for_section(parse_state *st, const char *section)
{
    room_meta *room = st->room;
    for (int i = 0; i < room->ntasks; i++)
        if (strcmp(room->tasks[i].name, section) == 0)
            return &room->tasks[i];
    room->tasks = xrealloc(room->tasks, (size_t)(room->ntasks + 1) * sizeof *room->tasks);
    task_meta *t = &room->tasks[room->ntasks++];
    memset(t, 0, sizeof *t);
    t->name = xstrdup(section);
    t->room = xstrdup(room->dir);
    t->id = xasprintf("%s/%s", room->dir, section);
    t->timeout = 10;
    t->perf_limit = 1.5;
    sl_push(&st->runs_lines, "");
    return t;
}

/* Sets *field, or appends a continuation line to it. */
static void set_text(char **field, const char *value)
{
    if (*field) {
        char *joined = xasprintf("%s %s", *field, value);
        free(*field);
        *field = joined;
    } else {
        *field = xstrdup(value);
    }
}

static int fail(parse_state *st, const char *fmt, const char *a, const char *b)
{
    if (!st->failed) {
        snprintf(st->fail_msg, sizeof st->fail_msg, fmt, a, b);
        st->fail_line = st->lineno;
        st->failed = 1;
    }
    return 0;
}

static int on_ini_entry(void *user, const char *section, const char *name, const char *value);

/* The hints live apart from tasks.ini, beside the solutions (solutions/NN_room/hints.ini), so
 * that a learner who reads the room's files does not read the ladder's last rungs too: its
 * sections are the room's tasks, its keys hint1 .. hint9 (continued on indented lines). */
static int on_hints_entry(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    task_meta *t = NULL;
    for (int i = 0; i < st->room->ntasks; i++)
        if (strcmp(st->room->tasks[i].name, section) == 0)
            t = &st->room->tasks[i];
    if (!t)
        return fail(st, "[%s]: the room's tasks.ini has no such task%s", section, "");
    if (strncmp(name, "hint", 4) != 0 || name[4] < '1' || name[4] > '0' + MAX_HINTS || name[5])
        return fail(st, "[%s]: unknown key '%s' (a hints file holds hint1..hint9)", section, name);
    int h = name[4] - '1';
    if (st->replaced[(t - st->room->tasks) * MAX_HINTS + h])
        return fail(st, "[%s]: %s is in tasks.ini too (keep a task's hints in one place)", section, name);
    set_text(&t->hints[h], value);
    return 1;
}

/* The overlay's sections are [NN_room/taskK]: this room's replace the keys they name, of a
 * task the room has; runs lines replace all of the task's own. */
static int on_overlay_entry(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    const char *slash = strchr(section, '/');
    if (!slash || strncmp(section, "room", 4) == 0)
        return fail(st, "overlay section [%s]%s: want [NN_room/taskK]", section, "");
    if ((size_t)(slash - section) != strlen(st->room->dir) || strncmp(section, st->room->dir, strlen(st->room->dir)) != 0)
        return 1; /* another room's */
    const char *task = slash + 1;
    int index = -1;
    for (int i = 0; i < st->room->ntasks; i++)
        if (strcmp(st->room->tasks[i].name, task) == 0)
            index = i;
    if (index < 0)
        return fail(st, "overlay section [%s]: the workbook has no such task%s", section, "");
    static const char *const allowed[] = { "runs", "timeout", "perf", "perf_limit", "perf_repeats", "method",
                                           "method_run", NULL };
    int ok = 0;
    for (int i = 0; allowed[i]; i++)
        ok |= strcmp(name, allowed[i]) == 0;
    if (!ok)
        return fail(st, "overlay [%s]: key '%s' cannot be overlaid (these can: runs timeout perf perf_limit "
                        "perf_repeats method method_run)", section, name);
    task_meta *t = &st->room->tasks[index];
    t->overlaid = 1;
    if (strcmp(name, "runs") == 0 && !st->replaced[index]) {
        st->replaced[index] = 1;
        for (int c = 0; c < t->nconfigs; c++)
            config_free(&t->configs[c]);
        free(t->configs);
        t->configs = NULL;
        t->nconfigs = 0;
        t->nrun_lines = 0;
        free(st->runs_lines.items[index]);
        st->runs_lines.items[index] = xstrdup("");
    }
    if (strcmp(name, "method") == 0) {
        free(t->method);
        t->method = NULL;
    }
    return on_ini_entry(user, task, name, value);
}

static int on_ini_entry(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    if (strcmp(section, "room") == 0) {
        if (strcmp(name, "title") == 0) {
            set_text(&st->room->title, value);
            return 1;
        }
        return fail(st, "[room]: unknown key '%s'%s (known: title)", name, "");
    }
    if (strncmp(section, "task", 4) != 0 || !valid_key(section, strlen(section)))
        return fail(st, "unknown section [%s]%s (want [room] or [taskN])", section, "");
    task_meta *t = task_for_section(st, section);
    int index = (int)(t - st->room->tasks);
    if (strcmp(name, "title") == 0)
        set_text(&t->title, value);
    else if (strncmp(name, "hint", 4) == 0 && name[4] >= '1' && name[4] <= '0' + MAX_HINTS && !name[5])
        set_text(&t->hints[name[4] - '1'], value);
    else if (strcmp(name, "libs") == 0)
        set_text(&t->libs, value);
    else if (strcmp(name, "source") == 0) {
        free(t->source);
        t->source = xstrdup(value);
    } else if (strcmp(name, "kind") == 0) {
        const kind_info *kind = kind_lookup(value);
        if (!kind) {
            char *known = kind_names(), *what = xasprintf("unknown kind '%s' (known: %s)", value, known);
            int result = fail(st, "[%s]: %s", section, what);
            free(known), free(what);
            return result;
        }
        free(t->kind);
        t->kind = xstrdup(value);
        t->kind_entry = kind;
    } else if (strcmp(name, "timeout") == 0) {
        char *end = NULL;
        double seconds = strtod(value, &end);
        if (end == value || *end != '\0' || !(seconds > 0 && seconds <= 3600))
            return fail(st, "[%s]: timeout '%s' is not a number of seconds in (0, 3600]", section, value);
        t->timeout = seconds;
    } else if (strcmp(name, "runs") == 0) {
        char *line = st->runs_lines.items[index];
        st->runs_lines.items[index] = line[0] ? xasprintf("%s | %s", line, value) : xstrdup(value);
        free(line);
        char err[300];
        int before = t->nconfigs;
        if (expand_runs(value, &t->configs, &t->nconfigs, err, sizeof err) != 0)
            return fail(st, "[%s]: %s", section, err);
        t->nrun_lines++;
        for (int c = before; c < t->nconfigs; c++)
            t->configs[c].line = t->nrun_lines;
    } else if (strcmp(name, "perf") == 0 || strcmp(name, "method_run") == 0) {
        run_config **where = name[0] == 'p' ? &t->perf : &t->method_run;
        char err[300];
        run_config *configs = NULL;
        int n = 0;
        if (expand_runs(value, &configs, &n, err, sizeof err) != 0 || n != 1) {
            for (int c = 0; c < n; c++)
                config_free(&configs[c]);
            free(configs);
            return fail(st, name[0] == 'p' ? "[%s]: perf '%s' is not one configuration (key=value, one value each)"
                                           : "[%s]: method_run '%s' is not one configuration (key=value, one value each)",
                        section, value);
        }
        if (*where) {
            config_free(*where);
            free(*where);
        }
        configs[0].line = name[0] == 'p' ? 0 : -1; /* its own draws (meta.h) */
        *where = configs;
    } else if (strcmp(name, "method") == 0) {
        if (strcmp(value, "threads") != 0 && strcmp(value, "processes") != 0 && strcmp(value, "ranks") != 0 &&
            strcmp(value, "gpu") != 0)
            return fail(st, "[%s]: method '%s' is not one the grader checks (known: threads processes ranks gpu)",
                        section, value);
        set_text(&t->method, value);
    } else if (strcmp(name, "method_calls") == 0) {
        for (const char *p = value; *p; p++)
            if (!(isalnum((unsigned char)*p) || *p == '_' || *p == ' '))
                return fail(st, "[%s]: method_calls '%s' is not a list of MPI function names", section, value);
        set_text(&t->method_calls, value);
    } else if (strcmp(name, "method_collectives") == 0) {
        char *end = NULL;
        double limit = strtod(value, &end);
        if (end == value || *end != '\0' || !(limit >= 1 && limit <= 100))
            return fail(st, "[%s]: method_collectives '%s' is not a ratio in [1, 100]", section, value);
        t->method_collectives = limit;
    } else if (strcmp(name, "perf_time") == 0) {
        set_text(&t->perf_time, value);
    } else if (strcmp(name, "perf_hint") == 0) {
        set_text(&t->perf_hint, value);
    } else if (strcmp(name, "perf_repeats") == 0) {
        char *end = NULL;
        long repeats = strtol(value, &end, 10);
        if (end == value || *end != '\0' || repeats < 1 || repeats > 1000)
            return fail(st, "[%s]: perf_repeats '%s' is not a whole number from 1 to 1000", section, value);
        t->perf_repeats = (int)repeats;
    } else if (strcmp(name, "perf_limit") == 0) {
        char *end = NULL;
        double limit = strtod(value, &end);
        if (end == value || *end != '\0' || !(limit >= 1 && limit <= 100))
            return fail(st, "[%s]: perf_limit '%s' is not a ratio in [1, 100]", section, value);
        t->perf_limit = limit;
    } else {
        return fail(st, "[%s]: unknown key '%s' (known: title source kind runs timeout hint1..hint9 libs "
                        "perf perf_time perf_limit perf_repeats perf_hint method method_run method_calls "
                        "method_collectives)", section, name);
    }
    return 1;
}

static int compare_tasks(const void *a, const void *b)
{
    const task_meta *x = a, *y = b;
    /* task2 before task10 */
    size_t lx = strlen(x->name), ly = strlen(y->name);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->name, y->name);
}

int room_load(const char *ini_path, const char *dir, room_meta *room, char *err, size_t errlen)
{
    memset(room, 0, sizeof *room);
    room->dir = xstrdup(dir);
    parse_state st = { room, ini_path, err, errlen, 0, { 0 }, NULL, 0, 0, "", 0, NULL };
    FILE *f = fopen(ini_path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", ini_path);
        return -1;
    }
    st.file = f;
    int line = ini_parse_stream(read_line, &st, on_ini_entry, &st);
    fclose(f);
    const char *read_path = ini_path;
    /* the hints, from ROOT/solutions/DIR/hints.ini where tasks.ini is ROOT/DIR/tasks.ini */
    size_t plen = strlen(ini_path), dlen = strlen(dir);
    char *hints_path = NULL;
    if (plen > dlen + 10 && strcmp(ini_path + plen - 10, "/tasks.ini") == 0 &&
        strncmp(ini_path + plen - 10 - dlen, dir, dlen) == 0 && ini_path[plen - 11 - dlen] == '/')
        hints_path = xasprintf("%.*ssolutions/%s/hints.ini", (int)(plen - 10 - dlen), ini_path, dir);
    if (line == 0 && !st.failed && hints_path && file_exists(hints_path)) {
        read_path = hints_path;
        st.file = fopen(hints_path, "r");
        if (!st.file) {
            snprintf(err, errlen, "%s: cannot open", hints_path);
            sl_free(&st.runs_lines);
            free(hints_path);
            return -1;
        }
        st.path = hints_path;
        st.lineno = 0;
        /* (which hints tasks.ini set: a hint may not come from both) */
        st.replaced = xmalloc((size_t)room->ntasks * MAX_HINTS + 1);
        for (int i = 0; i < room->ntasks; i++)
            for (int h = 0; h < MAX_HINTS; h++)
                st.replaced[i * MAX_HINTS + h] = room->tasks[i].hints[h] != NULL;
        line = ini_parse_stream(read_line, &st, on_hints_entry, &st);
        fclose(st.file);
        free(st.replaced);
        st.replaced = NULL;
        if (line == 0 && !st.failed)
            read_path = ini_path;
    }
    /* the private overlay, over this room's tasks */
    if (line == 0 && !st.failed && overlay_path) {
        read_path = overlay_path;
        st.file = fopen(overlay_path, "r");
        if (!st.file) {
            snprintf(err, errlen, "%s: cannot open the tasks.ini overlay", overlay_path);
            sl_free(&st.runs_lines);
            return -1;
        }
        st.path = overlay_path;
        st.lineno = 0;
        st.overlay = 1;
        st.replaced = xmalloc((size_t)room->ntasks + 1);
        memset(st.replaced, 0, (size_t)room->ntasks + 1);
        line = ini_parse_stream(read_line, &st, on_overlay_entry, &st);
        fclose(st.file);
        free(st.replaced);
    }
    /* The first error wins: a line inih could not read, or one the handler refused. */
    if (st.failed && (line <= 0 || st.fail_line <= line))
        snprintf(err, errlen, "%s:%d: %s", read_path, st.fail_line, st.fail_msg);
    else if (line > 0)
        snprintf(err, errlen, "%s:%d: not a valid INI line (or longer than 200 characters)", read_path, line);
    else if (line < 0)
        snprintf(err, errlen, "%s: cannot read", read_path);
    free(hints_path);
    int status = (line != 0 || st.failed) ? -1 : 0;
    for (int i = 0; status == 0 && i < room->ntasks; i++) {
        task_meta *t = &room->tasks[i];
        t->runs_text = xstrdup(st.runs_lines.items[i]);
        const char *missing = !t->title ? "title" : !t->source ? "source" : !t->kind ? "kind"
                            : t->nconfigs == 0 ? "runs" : NULL;
        if (missing) {
            snprintf(err, errlen, "%s: [%s] has no %s", ini_path, t->name, missing);
            status = -1;
        }
        while (t->nhints < MAX_HINTS && t->hints[t->nhints])
            t->nhints++;
        for (int h = t->nhints; status == 0 && h < MAX_HINTS; h++)
            if (t->hints[h]) {
                snprintf(err, errlen, "%s: [%s] has hint%d but no hint%d (the ladder has no gaps)", ini_path,
                         t->name, h + 1, t->nhints + 1);
                status = -1;
            }
        if (status == 0 && t->nhints == 0)
            t->hints[t->nhints++] = xstrdup("Re-read the TODO comments and the room's README.md.");
        if (status == 0 && (!t->perf) != (!t->perf_time)) {
            snprintf(err, errlen, "%s: [%s] has %s but no %s (a perf verdict needs both)", ini_path, t->name,
                     t->perf ? "perf" : "perf_time", t->perf ? "perf_time" : "perf");
            status = -1;
        }
        if (status == 0 && t->method) {
            const run_config *at = task_method_config(t);
            const char *key = strcmp(t->method, "processes") == 0 ? "workers"
                              : strcmp(t->method, "ranks") == 0   ? "ranks"
                                                                  : "threads";
            const char *asked = at ? config_get(at, key) : NULL;
            if (strcmp(t->method, "gpu") == 0 && at)
                ; /* the GPU's threads are the kernel's own */
            else if (!at || !asked || atoi(asked) < 2) {
                snprintf(err, errlen, "%s: [%s] has method = %s but no method_run (or perf) configuration with "
                         "%s=2 or more to judge it at", ini_path, t->name, t->method, key);
                status = -1;
            }
        }
    }
    if (status == 0 && !room->title)
        room->title = xstrdup(dir);
    sl_free(&st.runs_lines);
    if (room->ntasks > 1)
        qsort(room->tasks, (size_t)room->ntasks, sizeof *room->tasks, compare_tasks);
    return status;
}

static int is_room_dir(const char *name)
{
    return isdigit((unsigned char)name[0]) && isdigit((unsigned char)name[1]) && name[2] == '_';
}

static int compare_rooms(const void *a, const void *b)
{
    return strcmp(((const room_meta *)a)->dir, ((const room_meta *)b)->dir);
}

int workbook_load(const char *root, workbook *wb, char *err, size_t errlen)
{
    memset(wb, 0, sizeof *wb);
    DIR *d = opendir(root);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open the workbook folder", root);
        return -1;
    }
    struct dirent *entry;
    int status = 0;
    while ((entry = readdir(d)) != NULL) {
        if (!is_room_dir(entry->d_name))
            continue;
        char *ini = xasprintf("%s/%s/tasks.ini", root, entry->d_name);
        if (file_exists(ini)) {
            wb->rooms = xrealloc(wb->rooms, (size_t)(wb->nrooms + 1) * sizeof *wb->rooms);
            if (room_load(ini, entry->d_name, &wb->rooms[wb->nrooms++], err, errlen) != 0)
                status = -1;
        }
        free(ini);
        if (status != 0)
            break;
    }
    closedir(d);
    if (wb->nrooms > 1)
        qsort(wb->rooms, (size_t)wb->nrooms, sizeof *wb->rooms, compare_rooms);
    return status;
}

void workbook_free(workbook *wb)
{
    for (int r = 0; r < wb->nrooms; r++) {
        room_meta *room = &wb->rooms[r];
        for (int i = 0; i < room->ntasks; i++) {
            task_meta *t = &room->tasks[i];
            free(t->id), free(t->room), free(t->name), free(t->title), free(t->source);
            free(t->kind), free(t->runs_text), free(t->libs), free(t->perf_time), free(t->perf_hint);
            if (t->perf)
                config_free(t->perf);
            free(t->perf);
            if (t->method_run)
                config_free(t->method_run);
            free(t->method_run);
            free(t->method), free(t->method_calls);
            for (int h = 0; h < MAX_HINTS; h++)
                free(t->hints[h]);
            for (int c = 0; c < t->nconfigs; c++)
                config_free(&t->configs[c]);
            free(t->configs);
        }
        free(room->tasks);
        free(room->dir);
        free(room->title);
    }
    free(wb->rooms);
    wb->rooms = NULL;
    wb->nrooms = 0;
}
