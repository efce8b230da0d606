/* class-report -- the instructor's class summary.
 *
 * Reads STUDENTS_DIR/<student>/ for every student folder, each holding either
 * grade-report.json (the grader's report, schema parallel-rooms/grade-report/1)
 * or error.txt (one line: why the submission could not be graded), and writes
 *   - a CSV: student, one column per task (workbook order), passed, graded, error,
 *     then a TOTAL row;
 *   - a self-contained HTML page: pass rates per room and task, a student x task
 *     grid, who is stuck where, and the submissions that could not be graded;
 *   - on request (--hints-csv) a CSV of the hint rungs each student opened per task,
 *     read from the progress.json kept from the student's checkout (blank: no record).
 * A report that cannot be read becomes an error row; it never stops the run.
 * Exit status: 0 written; 1 a file could not be written; 2 usage. */
#define _GNU_SOURCE
#include "grades.h"
#include "meta.h"
#include "progress.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define REPORT_SCHEMA "parallel-rooms/grade-report/1"
#define CELL_MISSING ST_COUNT   /* a task the student's report does not have */
#define NOTE_MAX 240            /* bytes kept of a message's first line */
#define WORK_NOTE_MAX 1000      /* bytes kept of a method run's work (and memory counts) */

typedef struct {
    char *name;      /* the student's folder name (untrusted text) */
    char *error;     /* why the submission could not be graded, or NULL */
    int *cells;      /* per workbook task: a grade_status, or CELL_MISSING */
    char **notes;    /* per workbook task: the first line of its message, or NULL */
    int *hints;      /* per workbook task: hint rungs opened (make hint), -1 when unknown */
    double *perf;    /* per workbook task: the perf ratio to the reference (perf.h), -1 when none */
    char *slow;      /* per workbook task: 1 when the perf verdict is SLOW */
    char **work;     /* per workbook task: how the method's run spread the work (work.h), or NULL */
    int graded;      /* workbook tasks the report has */
    int unsandboxed; /* the report's machine.sandbox says "off": its programs ran outside the sandbox */
    int passed;      /* of those, how many PASS */
} student;

typedef struct {
    const workbook *wb;
    const task_meta **tasks;  /* every task, rooms in order, tasks in order */
    int ntasks;
    int *room_start;          /* room r's tasks are tasks[room_start[r] .. room_start[r+1]) */
    student *students;        /* sorted by name */
    int nstudents;
    int ngraded;              /* students with a readable report */
    int nunsandboxed;         /* of those, graded without the sandbox (SANDBOX=off) */
} class_summary;

/* ---- text helpers ------------------------------------------------------------------ */

/* Cuts s to at most max bytes without splitting a UTF-8 sequence. */
static void truncate_utf8(char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max)
        return;
    n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    strcpy(s + n, "...");
}

/* The first line of text, at most NOTE_MAX bytes, as a new string. */
static char *first_line_max(const char *text, size_t max)
{
    char *line = xstrndup(text, strcspn(text, "\r\n"));
    truncate_utf8(line, max);
    return line;
}

static char *first_line(const char *text)
{
    return first_line_max(text, NOTE_MAX);
}

static int percent(int part, int whole)
{
    return whole > 0 ? (int)(100.0 * part / whole + 0.5) : 0;
}

/* ---- the workbook's tasks ------------------------------------------------------------ */

static void flatten_tasks(class_summary *cls, const workbook *wb)
{
    cls->wb = wb;
    cls->room_start = xmalloc((size_t)(wb->nrooms + 1) * sizeof *cls->room_start);
    cls->ntasks = 0;
    for (int r = 0; r < wb->nrooms; r++)
        cls->ntasks += wb->rooms[r].ntasks;
    cls->tasks = xmalloc((size_t)cls->ntasks * sizeof *cls->tasks);
    int k = 0;
    for (int r = 0; r < wb->nrooms; r++) {
        cls->room_start[r] = k;
        for (int i = 0; i < wb->rooms[r].ntasks; i++)
            cls->tasks[k++] = &wb->rooms[r].tasks[i];
    }
    cls->room_start[wb->nrooms] = k;
}

static int task_index(const class_summary *cls, const char *id)
{
    for (int t = 0; t < cls->ntasks; t++)
        if (strcmp(cls->tasks[t]->id, id) == 0)
            return t;
    return -1;
}

/* "PASS" -> ST_PASS, ...; -1 when the name is not a task status. */
static int parse_status(const char *name)
{
    for (int s = 0; s < ST_COUNT; s++)
        if (strcmp(status_name((grade_status)s), name) == 0)
            return s;
    return -1;
}

static const char *cell_name(int cell)
{
    return cell == CELL_MISSING ? "MISSING" : status_name((grade_status)cell);
}

/* ---- reading one student's folder ------------------------------------------------------ */

static void student_init(student *st, const char *name, int ntasks)
{
    memset(st, 0, sizeof *st);
    st->name = xstrdup(name);
    st->cells = xmalloc((size_t)ntasks * sizeof *st->cells);
    st->notes = xmalloc((size_t)ntasks * sizeof *st->notes);
    st->hints = xmalloc((size_t)ntasks * sizeof *st->hints);
    st->perf = xmalloc((size_t)ntasks * sizeof *st->perf);
    st->slow = xmalloc((size_t)ntasks);
    st->work = xmalloc((size_t)ntasks * sizeof *st->work);
    for (int t = 0; t < ntasks; t++) {
        st->cells[t] = CELL_MISSING;
        st->notes[t] = NULL;
        st->work[t] = NULL;
        st->hints[t] = -1;
        st->perf[t] = -1;
        st->slow[t] = 0;
    }
}

static void student_free(student *st, int ntasks)
{
    for (int t = 0; t < ntasks; t++)
        free(st->notes[t]), free(st->work[t]);
    free(st->notes);
    free(st->work);
    free(st->hints);
    free(st->perf);
    free(st->slow);
    free(st->cells);
    free(st->name);
    free(st->error);
}

/* Forgets whatever a half-read report filled in: the student becomes an error row. */
static void student_set_error(student *st, int ntasks, char *error)
{
    for (int t = 0; t < ntasks; t++) {
        st->cells[t] = CELL_MISSING;
        free(st->notes[t]);
        st->notes[t] = NULL;
        free(st->work[t]);
        st->work[t] = NULL;
        st->perf[t] = -1;
        st->slow[t] = 0;
    }
    st->graded = st->passed = 0;
    free(st->error);
    st->error = error;
}

/* The first line of error.txt (the driver's reason), as a new string. */
static char *read_error_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return xasprintf("error.txt: %s", strerror(errno));
    char line[1024] = "";
    if (!fgets(line, sizeof line, f))
        line[0] = '\0';
    fclose(f);
    char *reason = first_line(line);
    if (*reason)
        return reason;
    free(reason);
    return xstrdup("error.txt is empty (no reason given)");
}

/* One entry of the report's "tasks": fills the student's cell for it.
 * Returns NULL, or what is wrong with the entry (a new string). */
static char *read_task(const class_summary *cls, student *st, json_t *task, size_t i)
{
    const char *id = json_string_value(json_object_get(task, "id"));
    const char *status = json_string_value(json_object_get(task, "status"));
    if (!id || !status)
        return xasprintf("task %zu has no id or status", i + 1);
    int cell = parse_status(status);
    if (cell < 0)
        return xasprintf("task %s has an unknown status '%s'", id, status);
    int t = task_index(cls, id);
    if (t < 0) {
        fprintf(stderr, "class-report: %s: ignoring task '%s' (not in the workbook)\n", st->name, id);
        return NULL;
    }
    if (st->cells[t] != CELL_MISSING)
        return xasprintf("task %s appears twice", id);
    st->cells[t] = cell;
    st->graded++;
    st->passed += cell == ST_PASS;
    const char *message = json_string_value(json_object_get(task, "message"));
    if (message && *message)
        st->notes[t] = first_line(message);
    /* the perf verdict (untrusted: only a sane ratio is taken) */
    json_t *perf = json_object_get(task, "perf");
    const char *verdict = json_string_value(json_object_get(perf, "verdict"));
    double ratio = json_number_value(json_object_get(perf, "ratio"));
    if (json_is_number(json_object_get(perf, "ratio")) && ratio > 0 && ratio < 1e6)
        st->perf[t] = ratio;
    st->slow[t] = verdict && strcmp(verdict, "slow") == 0 && cell == ST_PASS;
    /* the method's run (untrusted: its summary, one line, cut) */
    size_t r;
    json_t *run;
    json_array_foreach(json_object_get(task, "runs"), r, run) {
        json_t *work = json_object_get(run, "work");
        const char *summary = json_string_value(json_object_get(work, "summary"));
        if (summary && json_string_value(json_object_get(work, "method")) && !st->work[t]) {
            /* a simulated CUDA task's memory counts beside the reference's, after it */
            const char *memory = json_string_value(json_object_get(run, "profile"));
            char *both = memory ? xasprintf("%s; memory (simulated): %s", summary, memory) : NULL;
            st->work[t] = first_line_max(both ? both : summary, WORK_NOTE_MAX);
            free(both);
        }
    }
    return NULL;
}

/* Returns NULL, or what is wrong with the report (a new string). */
static char *read_report_json(const class_summary *cls, student *st, json_t *root)
{
    const char *schema = json_string_value(json_object_get(root, "schema"));
    if (!json_is_object(root) || !schema)
        return xstrdup("no schema: not a grade report");
    if (strcmp(schema, REPORT_SCHEMA) != 0)
        return xasprintf("schema '%s', expected %s", schema, REPORT_SCHEMA);
    json_t *tasks = json_object_get(root, "tasks");
    if (!json_is_array(tasks))
        return xstrdup("no \"tasks\" array");
    const char *sandbox = json_string_value(json_object_get(json_object_get(root, "machine"), "sandbox"));
    st->unsandboxed = !sandbox || strncmp(sandbox, "on", 2) != 0;
    size_t i;
    json_t *task;
    json_array_foreach(tasks, i, task) {
        char *problem = json_is_object(task) ? read_task(cls, st, task, i)
                                             : xasprintf("task %zu is not an object", i + 1);
        if (problem)
            return problem;
    }
    return NULL;
}

static void read_report(const class_summary *cls, student *st, const char *path)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    char *problem = root ? read_report_json(cls, st, root)
                         : xasprintf("%s (line %d)", jerr.text, jerr.line);
    if (problem) {
        char *error = xasprintf("unreadable report: %s", problem);
        truncate_utf8(error, NOTE_MAX);
        student_set_error(st, cls->ntasks, error);
        free(problem);
    }
    json_decref(root);
}

/* The hint rungs the student opened, from the progress record of their checkout
 * (build/progress.json, copied as progress.json): untrusted, so only whole numbers
 * within the task's ladder are taken. */
static void read_hints(const class_summary *cls, student *st, const char *path)
{
    json_t *root = json_load_file(path, 0, NULL);
    const char *schema = json_string_value(json_object_get(root, "schema"));
    json_t *tasks = json_object_get(root, "tasks");
    if (schema && strcmp(schema, PROGRESS_SCHEMA) == 0 && json_is_object(tasks)) {
        for (int t = 0; t < cls->ntasks; t++) {
            json_t *opened = json_object_get(json_object_get(tasks, cls->tasks[t]->id), "hints");
            json_int_t n = json_is_integer(opened) ? json_integer_value(opened) : 0;
            st->hints[t] = n < 0 ? 0 : n > cls->tasks[t]->nhints ? cls->tasks[t]->nhints : (int)n;
        }
    }
    json_decref(root);
}

/* error.txt wins over a report: the driver wrote it because grading went wrong. */
static void read_student(const class_summary *cls, student *st, const char *dir)
{
    char *error_path = xasprintf("%s/%s/error.txt", dir, st->name);
    char *report_path = xasprintf("%s/%s/grade-report.json", dir, st->name);
    if (file_exists(error_path))
        st->error = read_error_file(error_path);
    else if (file_exists(report_path))
        read_report(cls, st, report_path);
    else
        st->error = xstrdup("no report: grading did not finish");
    char *progress_path = xasprintf("%s/%s/progress.json", dir, st->name);
    if (!st->error && file_exists(progress_path))
        read_hints(cls, st, progress_path);
    free(progress_path);
    free(error_path);
    free(report_path);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sub-folders of dir, sorted by name (bytewise, as LC_ALL=C sort does). */
static int list_student_folders(const char *dir, strlist *names)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        char *path = xasprintf("%s/%s", dir, entry->d_name);
        struct stat sb;
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
            sl_push(names, entry->d_name);
        free(path);
    }
    closedir(d);
    if (names->count > 1)
        qsort(names->items, (size_t)names->count, sizeof *names->items, compare_names);
    return 0;
}

static int load_class(class_summary *cls, const char *dir)
{
    strlist names = { 0 };
    if (list_student_folders(dir, &names) != 0)
        return -1;
    cls->nstudents = names.count;
    cls->students = xmalloc((size_t)names.count * sizeof *cls->students);
    cls->ngraded = cls->nunsandboxed = 0;
    for (int s = 0; s < names.count; s++) {
        student_init(&cls->students[s], names.items[s], cls->ntasks);
        read_student(cls, &cls->students[s], dir);
        cls->ngraded += cls->students[s].error == NULL;
        cls->nunsandboxed += cls->students[s].error == NULL && cls->students[s].unsandboxed;
    }
    sl_free(&names);
    return 0;
}

/* ---- class-wide numbers ------------------------------------------------------------ */

/* Graded students whose task t is PASS. */
static int task_passes(const class_summary *cls, int t)
{
    int n = 0;
    for (int s = 0; s < cls->nstudents; s++)
        n += !cls->students[s].error && cls->students[s].cells[t] == ST_PASS;
    return n;
}

static int escaped_room(const class_summary *cls, const student *st, int r)
{
    if (st->error)
        return 0;
    for (int t = cls->room_start[r]; t < cls->room_start[r + 1]; t++)
        if (st->cells[t] != ST_PASS)
            return 0;
    return 1;
}

static int room_escapes(const class_summary *cls, int r)
{
    int n = 0;
    for (int s = 0; s < cls->nstudents; s++)
        n += escaped_room(cls, &cls->students[s], r);
    return n;
}

/* How many graded students' reports have any task of room r (0: the room was
 * left out of this class grading, e.g. by ROOM=). */
static int room_graded(const class_summary *cls, int r)
{
    int n = 0;
    for (int s = 0; s < cls->nstudents; s++) {
        const student *st = &cls->students[s];
        if (st->error)
            continue;
        for (int t = cls->room_start[r]; t < cls->room_start[r + 1]; t++)
            if (st->cells[t] != CELL_MISSING) {
                n++;
                break;
            }
    }
    return n;
}

/* The first task, in workbook order, graded and not PASS or SKIP (a SKIP is the
 * machine's doing, a missing task the report's); -1 when there is none. */
static int stuck_task(const class_summary *cls, const student *st)
{
    for (int t = 0; t < cls->ntasks; t++)
        if (st->cells[t] != ST_PASS && st->cells[t] != ST_SKIP && st->cells[t] != CELL_MISSING)
            return t;
    return -1;
}

/* Graded students stuck on task t. */
static int stuck_count(const class_summary *cls, int t)
{
    int n = 0;
    for (int s = 0; s < cls->nstudents; s++)
        n += !cls->students[s].error && stuck_task(cls, &cls->students[s]) == t;
    return n;
}

/* ---- CSV (RFC 4180) ------------------------------------------------------------------ */

static void csv_field(FILE *f, const char *text)
{
    if (strpbrk(text, ",\"\r\n") == NULL) {
        fputs(text, f);
        return;
    }
    fputc('"', f);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static void csv_student_row(FILE *f, const class_summary *cls, const student *st)
{
    csv_field(f, st->name);
    for (int t = 0; t < cls->ntasks; t++)
        fprintf(f, ",%s%s", st->error ? "" : cell_name(st->cells[t]), !st->error && st->slow[t] ? " SLOW" : "");
    if (st->error) {
        fputs(",,,", f);
        csv_field(f, st->error);
    } else {
        fprintf(f, ",%d,%d,", st->passed, st->graded);
    }
    fputs("\r\n", f);
}

/* TOTAL: per task the students who passed it; passed and graded summed over the
 * class; error: how many submissions could not be graded. */
static void csv_total_row(FILE *f, const class_summary *cls)
{
    int passed = 0, graded = 0;
    for (int s = 0; s < cls->nstudents; s++) {
        passed += cls->students[s].passed;
        graded += cls->students[s].graded;
    }
    fputs("TOTAL", f);
    for (int t = 0; t < cls->ntasks; t++)
        fprintf(f, ",%d", task_passes(cls, t));
    fprintf(f, ",%d,%d,%d\r\n", passed, graded, cls->nstudents - cls->ngraded);
}

/* Opens path for writing, making its folder first (like the grader's reports). */
static FILE *open_output(const char *path)
{
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        make_dirs(dir);
    }
    free(dir);
    return fopen(path, "w");
}

/* The hints table: a row per graded student, a column per task (rungs opened,
 * blank without a record), and their total. */
static int write_hints_csv(const class_summary *cls, const char *path)
{
    FILE *f = open_output(path);
    if (!f)
        return -1;
    fputs("student", f);
    for (int t = 0; t < cls->ntasks; t++) {
        fputc(',', f);
        csv_field(f, cls->tasks[t]->id);
    }
    fputs(",total\r\n", f);
    for (int s = 0; s < cls->nstudents; s++) {
        const student *st = &cls->students[s];
        if (st->error)
            continue;
        csv_field(f, st->name);
        int total = 0, known = 0;
        for (int t = 0; t < cls->ntasks; t++) {
            if (st->hints[t] < 0) {
                fputc(',', f);
                continue;
            }
            fprintf(f, ",%d", st->hints[t]);
            total += st->hints[t];
            known = 1;
        }
        if (known)
            fprintf(f, ",%d\r\n", total);
        else
            fputs(",\r\n", f);
    }
    return fclose(f) == 0 ? 0 : -1;
}

static int write_csv(const class_summary *cls, const char *path)
{
    FILE *f = open_output(path);
    if (!f)
        return -1;
    fputs("student", f);
    for (int t = 0; t < cls->ntasks; t++) {
        fputc(',', f);
        csv_field(f, cls->tasks[t]->id);
    }
    fputs(",passed,graded,error\r\n", f);
    for (int s = 0; s < cls->nstudents; s++)
        csv_student_row(f, cls, &cls->students[s]);
    csv_total_row(f, cls);
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- HTML ---------------------------------------------------------------------------- */

/* Text for an element or a quoted attribute: names and messages are untrusted. */
static void html_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        case '\n': case '\t': fputc(' ', f); break;
        default:
            fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
        }
    }
}

static const char *const cell_letters[ST_COUNT + 1] = { "P", "S", "F", "T", "C", "B", "N", "&ndash;" };
static const char *const cell_classes[ST_COUNT + 1] = { "pass", "skip", "fail", "timeout",
                                                        "crash", "build", "notstarted", "missing" };

static const char page_style[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2328;"
    "margin:24px 32px;background:#fff}\n"
    "h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #d0d7de;"
    "padding-bottom:4px}\n"
    ".meta{color:#57606a;margin:0 0 8px}.muted{color:#57606a}\n"
    ".warn{background:#fff8c5;border:1px solid #d4a72c;padding:6px 10px}\n"
    "table{border-collapse:collapse}td,th{padding:3px 8px;text-align:left;vertical-align:middle}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:14px}\n"
    ".card{border:1px solid #d0d7de;border-radius:8px;padding:10px 14px}\n"
    ".card h3{font-size:15px;margin:0 0 6px}\n"
    ".rates{width:100%;table-layout:fixed}.rates td{padding:2px 4px;border-bottom:1px solid #eaeef2}\n"
    ".rates td:nth-child(2){width:110px}.rates td:nth-child(3){width:52px}.rates td:nth-child(4){width:40px}\n"
    ".rates tr.room td{font-weight:600;border-bottom:1px solid #d0d7de}\n"
    ".rates td.task{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}\n"
    ".num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    ".bar{width:100%;height:10px;background:#eaeef2;border-radius:5px;overflow:hidden}\n"
    ".bar span{display:block;height:100%;background:#2da44e}.bar.stuck span{background:#cf222e}\n"
    ".list .bar{width:200px}\n"
    ".grid th,.grid td{border:1px solid #fff;padding:0}.grid thead th{background:#f6f8fa;"
    "text-align:center;font-weight:600;padding:2px 4px}\n"
    ".grid th.name{text-align:left;vertical-align:bottom;padding:0 10px 0 4px;max-width:220px;overflow:hidden;"
    "text-overflow:ellipsis;white-space:nowrap;font-weight:500;background:#fff}\n"
    ".grid td.c{width:24px;height:22px;text-align:center;font-size:12px;font-weight:700;cursor:default}\n"
    ".grid td.num{padding:0 6px}.grid tfoot td{font-size:12px;color:#57606a;text-align:center}\n"
    ".grid tfoot td.label{text-align:left;padding-left:4px}\n"
    ".grid th.gap,.grid td.gap{width:6px;background:#fff}\n"
    ".pass{background:#c6efce;color:#0f5323}.fail{background:#ffc7ce;color:#9c0006}\n"
    ".timeout{background:#ffe2b3;color:#8a4b00}.crash{background:#e4c7f0;color:#5b1a6b}\n"
    ".build{background:#9c0006;color:#fff}.skip{background:#fff4c2;color:#7a5d00}\n"
    ".missing{background:#f2f2f2;color:#9a9a9a}.notstarted{background:#e8eef7;color:#3b5276}\n"
    ".slow{box-shadow:inset 0 -4px 0 #d4a72c}\n"
    ".legend{margin:10px 0 0;display:flex;flex-wrap:wrap;gap:14px;color:#57606a;font-size:13px}\n"
    ".legend b{display:inline-block;width:20px;text-align:center;margin-right:4px;border-radius:3px}\n"
    ".cols{display:flex;gap:48px;flex-wrap:wrap;align-items:flex-start}\n"
    ".list td{border-bottom:1px solid #eaeef2}.errors td{border-bottom:1px solid #eaeef2}\n"
    ".tag{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;font-weight:700}\n";

static void html_head(FILE *f, const class_summary *cls, const char *title, const char *date)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
    html_text(f, title);
    fprintf(f, " &mdash; %d students &mdash; %s</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", cls->nstudents,
            date, page_style);
    html_text(f, title);
    fprintf(f, "</h1>\n<p class=\"meta\">%d student%s: %d graded, %d could not be graded &middot; "
               "%d rooms, %d tasks &middot; generated %s</p>\n",
            cls->nstudents, cls->nstudents == 1 ? "" : "s", cls->ngraded, cls->nstudents - cls->ngraded,
            cls->wb->nrooms, cls->ntasks, date);
    if (cls->nunsandboxed > 0)
        fprintf(f, "<p class=\"warn\">%d of the graded students' programs ran without the sandbox (SANDBOX=off, "
                   "or a grader without one): their code could read the solutions and the references, and "
                   "change what other students were graded against.</p>\n",
                cls->nunsandboxed);
}

/* A bar with "part / whole" and the percentage beside it, as table cells. */
static void html_bar(FILE *f, int part, int whole, const char *kind)
{
    fprintf(f, "<td><div class=\"bar%s\"><span style=\"width:%d%%\"></span></div></td>", kind, percent(part, whole));
    fprintf(f, "<td class=\"num\">%d / %d</td><td class=\"num muted\">%d%%</td>", part, whole,
            percent(part, whole));
}

/* One card per room: the room's escape rate, then each task's pass rate. */
static void html_room_card(FILE *f, const class_summary *cls, int r)
{
    const room_meta *room = &cls->wb->rooms[r];
    fputs("<div class=\"card\"><h3>", f);
    html_text(f, room->dir);
    fputs(" <span class=\"muted\">", f);
    html_text(f, room->title);
    if (cls->ngraded > 0 && room_graded(cls, r) == 0) {
        /* not 0%: nobody was graded on it */
        fputs("</span></h3>\n<p class=\"muted ungraded\">not graded in this run (no report has its tasks)</p></div>\n", f);
        return;
    }
    fputs("</span></h3>\n<table class=\"rates\">\n<tr class=\"room\"><td>escaped</td>", f);
    html_bar(f, room_escapes(cls, r), cls->ngraded, "");
    fputs("</tr>\n", f);
    for (int t = cls->room_start[r]; t < cls->room_start[r + 1]; t++) {
        fputs("<tr><td class=\"task\" title=\"", f);
        html_text(f, cls->tasks[t]->title);
        fputs("\">", f);
        html_text(f, cls->tasks[t]->name);
        fputs(" <span class=\"muted\">", f);
        html_text(f, cls->tasks[t]->title);
        fputs("</span></td>", f);
        html_bar(f, task_passes(cls, t), cls->ngraded, "");
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

static void html_rates(FILE *f, const class_summary *cls)
{
    fputs("<h2>Pass rates</h2>\n<p class=\"muted\">Of the graded students: who escaped each room "
          "(every task PASS), and who passed each task.</p>\n<div class=\"cards\">\n", f);
    for (int r = 0; r < cls->wb->nrooms; r++)
        html_room_card(f, cls, r);
    fputs("</div>\n", f);
}

/* Two header rows: the rooms (spanning their tasks), then the task numbers. */
static void html_grid_header(FILE *f, const class_summary *cls)
{
    fputs("<thead><tr><th class=\"name\" rowspan=\"2\">student</th>", f);
    for (int r = 0; r < cls->wb->nrooms; r++) {
        fprintf(f, "<th class=\"gap\"></th><th colspan=\"%d\" title=\"", cls->wb->rooms[r].ntasks);
        html_text(f, cls->wb->rooms[r].title);
        fprintf(f, "\">%.2s</th>", cls->wb->rooms[r].dir);
    }
    fputs("<th class=\"gap\"></th><th rowspan=\"2\">passed</th></tr>\n<tr>", f);
    for (int r = 0; r < cls->wb->nrooms; r++) {
        fputs("<th class=\"gap\"></th>", f);
        for (int t = cls->room_start[r]; t < cls->room_start[r + 1]; t++) {
            fputs("<th title=\"", f);
            html_text(f, cls->tasks[t]->id);
            fputs(": ", f);
            html_text(f, cls->tasks[t]->title);
            fprintf(f, "\">%s</th>", cls->tasks[t]->name + strcspn(cls->tasks[t]->name, "0123456789"));
        }
    }
    fputs("<th class=\"gap\"></th></tr></thead>\n", f);
}

static void html_cell(FILE *f, const class_summary *cls, const student *st, int t)
{
    int cell = st->cells[t];
    fprintf(f, "<td class=\"c %s%s\" title=\"", cell_classes[cell], st->slow[t] ? " slow" : "");
    html_text(f, cls->tasks[t]->id);
    fprintf(f, ": %s", cell_name(cell));
    if (st->perf[t] > 0)
        fprintf(f, " &mdash; %s%.2fx the reference&#39;s time", st->slow[t] ? "SLOW: " : "perf ", st->perf[t]);
    if (st->notes[t]) {
        fputs(" &mdash; ", f);
        html_text(f, st->notes[t]);
    }
    if (st->hints[t] > 0)
        fprintf(f, " &mdash; %d of %d hints opened", st->hints[t], cls->tasks[t]->nhints);
    fprintf(f, "\">%s", cell_letters[cell]);
    if (st->hints[t] > 0)
        fprintf(f, "<sup>%d</sup>", st->hints[t]);
    fputs("</td>", f);
}

static void html_grid_row(FILE *f, const class_summary *cls, const student *st)
{
    fputs("<tr><th class=\"name\" title=\"", f);
    html_text(f, st->name);
    fputs("\">", f);
    html_text(f, st->name);
    fputs("</th>", f);
    for (int r = 0; r < cls->wb->nrooms; r++) {
        fputs("<td class=\"gap\"></td>", f);
        for (int t = cls->room_start[r]; t < cls->room_start[r + 1]; t++)
            html_cell(f, cls, st, t);
    }
    fprintf(f, "<td class=\"gap\"></td><td class=\"num\">%d / %d</td></tr>\n", st->passed, st->graded);
}

static void html_legend(FILE *f)
{
    fputs("<div class=\"legend\">", f);
    for (int c = 0; c <= CELL_MISSING; c++)
        fprintf(f, "<span><b class=\"%s\">%s</b>%s</span>", cell_classes[c], cell_letters[c], cell_name(c));
    fputs("<span><b class=\"pass slow\">P</b>PASS, but SLOW (perf)</span>", f);
    fputs("<span>(a small number: hint rungs opened; hover over a cell for the task and its first message "
          "line)</span></div>\n", f);
}

static void html_grid(FILE *f, const class_summary *cls)
{
    fputs("<h2>Students &times; tasks</h2>\n<table class=\"grid\">\n", f);
    html_grid_header(f, cls);
    fputs("<tbody>\n", f);
    for (int s = 0; s < cls->nstudents; s++)
        if (!cls->students[s].error)
            html_grid_row(f, cls, &cls->students[s]);
    fputs("</tbody>\n<tfoot><tr><td class=\"label\">passed by</td>", f);
    for (int r = 0; r < cls->wb->nrooms; r++) {
        fputs("<td class=\"gap\"></td>", f);
        for (int t = cls->room_start[r]; t < cls->room_start[r + 1]; t++)
            fprintf(f, "<td>%d</td>", task_passes(cls, t));
    }
    fputs("<td class=\"gap\"></td><td></td></tr></tfoot>\n</table>\n", f);
    html_legend(f);
}

/* Per task: how many graded students are stuck on it (tasks nobody is stuck on left out). */
static void html_stuck_tasks(FILE *f, const class_summary *cls)
{
    fputs("<div><h3>Tasks students are stuck on</h3>\n<table class=\"list\">\n", f);
    /* Escaped every room: every task of the workbook graded and PASS; a student
     * whose graded tasks all pass, with rooms left out of this run, is counted apart. */
    int escaped = 0, all_graded_pass = 0;
    for (int s = 0; s < cls->nstudents; s++) {
        const student *st = &cls->students[s];
        if (st->error || stuck_task(cls, st) >= 0)
            continue;
        if (st->passed == cls->ntasks)
            escaped++;
        else
            all_graded_pass++;
    }
    for (int t = 0; t < cls->ntasks; t++) {
        int n = stuck_count(cls, t);
        if (n == 0)
            continue;
        fputs("<tr><td>", f);
        html_text(f, cls->tasks[t]->id);
        fputs("</td>", f);
        html_bar(f, n, cls->ngraded, " stuck");
        fputs("</tr>\n", f);
    }
    fputs("<tr><td><i>escaped every room</i></td>", f);
    html_bar(f, escaped, cls->ngraded, "");
    fputs("</tr>\n", f);
    if (all_graded_pass) {
        fputs("<tr><td><i>every graded task passes (not every room graded)</i></td>", f);
        html_bar(f, all_graded_pass, cls->ngraded, "");
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

/* What a student with no failing task has done: every task PASS, or some not graded. */
static void html_no_stuck(FILE *f, const class_summary *cls, const student *st)
{
    if (st->passed == cls->ntasks)
        fputs("<td colspan=\"2\"><b>escaped every room</b></td>", f);
    else
        fprintf(f, "<td colspan=\"2\">escaped every graded room <span class=\"muted\">(%d of %d tasks "
                   "PASS; the others SKIP or not in the report)</span></td>",
                st->passed, cls->ntasks);
}

static void html_stuck_students(FILE *f, const class_summary *cls)
{
    fputs("<div><h3>Each student's first task that does not pass</h3>\n<table class=\"list\">\n", f);
    for (int s = 0; s < cls->nstudents; s++) {
        const student *st = &cls->students[s];
        if (st->error)
            continue;
        int t = stuck_task(cls, st);
        fputs("<tr><td>", f);
        html_text(f, st->name);
        fputs("</td>", f);
        if (t < 0) {
            html_no_stuck(f, cls, st);
        } else {
            fputs("<td title=\"", f);
            html_text(f, st->notes[t] ? st->notes[t] : cls->tasks[t]->title);
            fputs("\">", f);
            html_text(f, cls->tasks[t]->id);
            fprintf(f, "</td><td><span class=\"tag %s\">%s</span></td>", cell_classes[st->cells[t]],
                    cell_name(st->cells[t]));
        }
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

static void html_stuck(FILE *f, const class_summary *cls)
{
    fputs("<h2>Who is stuck where</h2>\n<p class=\"muted\">A student is stuck on the first task, in workbook "
          "order, that was graded and neither passed nor was skipped.</p>\n<div class=\"cols\">\n", f);
    html_stuck_tasks(f, cls);
    html_stuck_students(f, cls);
    fputs("</div>\n", f);
}

static void html_errors(FILE *f, const class_summary *cls)
{
    fprintf(f, "<h2>Could not be graded (%d)</h2>\n", cls->nstudents - cls->ngraded);
    if (cls->ngraded == cls->nstudents) {
        fputs("<p class=\"muted\">Every submission was graded.</p>\n", f);
        return;
    }
    fputs("<table class=\"errors\">\n", f);
    for (int s = 0; s < cls->nstudents; s++) {
        if (!cls->students[s].error)
            continue;
        fputs("<tr><td>", f);
        html_text(f, cls->students[s].name);
        fputs("</td><td>", f);
        html_text(f, cls->students[s].error);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static int write_html(const class_summary *cls, const char *path, const char *title)
{
    FILE *f = open_output(path);
    if (!f)
        return -1;
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
    html_head(f, cls, title, date);
    html_rates(f, cls);
    html_grid(f, cls);
    html_stuck(f, cls);
    html_errors(f, cls);
    fputs("</body>\n</html>\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

/* The work table: a row per graded student, a column per task with a method check (tasks.ini's
 * method): how its method run spread the work, as the grader measured it (work.h). */
static int write_work_csv(const class_summary *cls, const char *path)
{
    FILE *f = open_output(path);
    if (!f)
        return -1;
    fputs("student", f);
    for (int t = 0; t < cls->ntasks; t++)
        if (cls->tasks[t]->method) {
            fputc(',', f);
            csv_field(f, cls->tasks[t]->id);
        }
    fputs("\r\n", f);
    for (int s = 0; s < cls->nstudents; s++) {
        const student *st = &cls->students[s];
        if (st->error)
            continue;
        csv_field(f, st->name);
        for (int t = 0; t < cls->ntasks; t++)
            if (cls->tasks[t]->method) {
                fputc(',', f);
                if (st->work[t])
                    csv_field(f, st->work[t]);
            }
        fputs("\r\n", f);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- the command line ------------------------------------------------------------------- */

typedef struct {
    const char *root, *students, *csv, *html, *title, *hints_csv, *work_csv;
} options;

static void usage(FILE *f)
{
    fputs("usage: class-report --root WORKBOOK --students DIR --csv FILE --html FILE [--title TEXT]\n"
          "  --root DIR      the workbook (default .): its rooms give the task columns\n"
          "  --students DIR  one folder per student, each with grade-report.json or error.txt\n"
          "  --csv FILE      the class table: a row per student, then TOTAL\n"
          "  --html FILE     the class summary page (self-contained)\n"
          "  --title TEXT    the page's title (default: Parallel Rooms class summary)\n"
          "  --hints-csv FILE  also the hint rungs each student opened per task\n"
          "  --work-csv FILE   also how each student's method runs spread the work (work.h)\n",
          f);
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("class-report: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    return 2;
}

/* Returns -1 when the options are complete, else the exit status (0 for --help). */
static int parse_options(int argc, char **argv, options *opt)
{
    *opt = (options){ ".", NULL, NULL, NULL, "Parallel Rooms class summary", NULL, NULL };
    const char *flags[] = { "--root", "--students", "--csv", "--html", "--title", "--hints-csv", "--work-csv" };
    const char **slots[] = { &opt->root,  &opt->students,  &opt->csv,     &opt->html,
                             &opt->title, &opt->hints_csv, &opt->work_csv };
    const int nflags = (int)(sizeof flags / sizeof flags[0]);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        int k = 0;
        while (k < nflags && strcmp(argv[i], flags[k]) != 0)
            k++;
        if (k == nflags)
            return usage_error("unknown option '%s' (see class-report --help)", argv[i]);
        if (i + 1 >= argc)
            return usage_error("%s needs a value (see class-report --help)", argv[i]);
        *slots[k] = argv[++i];
    }
    for (int k = 1; k < 4; k++)
        if (!*slots[k])
            return usage_error("%s is required (see class-report --help)", flags[k]);
    return -1;
}

static int is_folder(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static void class_free(class_summary *cls)
{
    for (int s = 0; s < cls->nstudents; s++)
        student_free(&cls->students[s], cls->ntasks);
    free(cls->students);
    free(cls->tasks);
    free(cls->room_start);
}

static int write_outputs(const class_summary *cls, const options *opt)
{
    int status = 0;
    if (write_csv(cls, opt->csv) != 0) {
        fprintf(stderr, "class-report: could not write %s: %s\n", opt->csv, strerror(errno));
        status = 1;
    }
    if (opt->hints_csv && write_hints_csv(cls, opt->hints_csv) != 0) {
        fprintf(stderr, "class-report: could not write %s: %s\n", opt->hints_csv, strerror(errno));
        status = 1;
    }
    if (opt->work_csv && write_work_csv(cls, opt->work_csv) != 0) {
        fprintf(stderr, "class-report: could not write %s: %s\n", opt->work_csv, strerror(errno));
        status = 1;
    }
    if (write_html(cls, opt->html, opt->title) != 0) {
        fprintf(stderr, "class-report: could not write %s: %s\n", opt->html, strerror(errno));
        status = 1;
    }
    if (status == 0)
        printf("class-report: %d students (%d graded, %d could not be graded): %s %s\n", cls->nstudents,
               cls->ngraded, cls->nstudents - cls->ngraded, opt->csv, opt->html);
    return status;
}

int main(int argc, char **argv)
{
    options opt;
    int status = parse_options(argc, argv, &opt);
    if (status >= 0)
        return status;
    if (!is_folder(opt.students))
        return usage_error("--students %s: no such folder", opt.students);
    if (!is_folder(opt.root))
        return usage_error("--root %s: no such folder", opt.root);
    workbook wb;
    char err[600];
    if (workbook_load(opt.root, &wb, err, sizeof err) != 0)
        return usage_error("%s", err);
    if (wb.nrooms == 0)
        return usage_error("no rooms (NN_name/tasks.ini) under %s", opt.root);
    class_summary cls = { 0 };
    flatten_tasks(&cls, &wb);
    if (load_class(&cls, opt.students) != 0) {
        fprintf(stderr, "class-report: %s: %s\n", opt.students, strerror(errno));
        status = 1;
    } else {
        status = write_outputs(&cls, &opt);
    }
    class_free(&cls);
    workbook_free(&wb);
    return status;
}
