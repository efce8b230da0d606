/* progress.c -- see progress.h. */
#define _GNU_SOURCE
#include "progress.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The file's tasks object (a new reference), or a new empty one when the file is
 * missing or not ours. */
static json_t *load_tasks(const char *path)
{
    json_t *root = json_load_file(path, 0, NULL);
    json_t *tasks = NULL;
    const char *schema = json_string_value(json_object_get(root, "schema"));
    if (schema && strcmp(schema, PROGRESS_SCHEMA) == 0 && json_is_object(json_object_get(root, "tasks")))
        tasks = json_incref(json_object_get(root, "tasks"));
    json_decref(root);
    return tasks ? tasks : json_object();
}

/* The entry of task id in tasks (a borrowed reference), made empty when missing
 * or not an object: its other fields (hints opened) survive a new status. */
static json_t *task_entry(json_t *tasks, const char *id)
{
    json_t *entry = json_object_get(tasks, id);
    if (!json_is_object(entry)) {
        entry = json_object();
        json_object_set_new(tasks, id, entry);
    }
    return entry;
}

/* Writes tasks (a reference it takes over) as the progress file at path. */
static int save_tasks(json_t *tasks, const char *path)
{
    json_t *root = json_pack("{s:s, s:o}", "schema", PROGRESS_SCHEMA, "tasks", tasks);
    int rc = json_dump_file(root, path, JSON_INDENT(2)) == 0 ? 0 : -1;
    json_decref(root);
    return rc;
}

int progress_record(const grade_report *rep, const char *path)
{
    json_t *tasks = load_tasks(path);
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    for (int i = 0; i < rep->ntasks; i++) {
        const task_report *tr = &rep->tasks[i];
        json_t *entry = task_entry(tasks, tr->meta->id);
        json_object_set_new(entry, "status", json_string(status_name(tr->status)));
        json_object_set_new(entry, "when", json_string(stamp));
    }
    return save_tasks(tasks, path);
}

int progress_hints_opened(const char *path, const char *id)
{
    json_t *tasks = load_tasks(path);
    json_int_t opened = json_integer_value(json_object_get(json_object_get(tasks, id), "hints"));
    json_decref(tasks);
    return opened > 0 && opened <= 1000 ? (int)opened : 0;
}

int progress_record_hints(const char *path, const char *id, int opened)
{
    json_t *tasks = load_tasks(path);
    json_t *entry = task_entry(tasks, id);
    if (opened > json_integer_value(json_object_get(entry, "hints")))
        json_object_set_new(entry, "hints", json_integer(opened));
    return save_tasks(tasks, path);
}

/* The recorded status of a task, or NULL when it was never graded. */
static const char *status_of(json_t *tasks, const char *id)
{
    return json_string_value(json_object_get(json_object_get(tasks, id), "status"));
}

int progress_print(const workbook *wb, const char *path)
{
    if (!file_exists(path)) {
        printf("progress: nothing graded yet. Start with: make grade TASK=%s\n",
               wb->nrooms && wb->rooms[0].ntasks ? wb->rooms[0].tasks[0].id : "?");
        return 0;
    }
    json_error_t error;
    json_t *root = json_load_file(path, 0, &error);
    if (!root) {
        fprintf(stderr, "progress: %s: %s (delete it to start the record afresh)\n", path, error.text);
        return 2;
    }
    json_t *tasks = json_object_get(root, "tasks");
    int escaped = 0, passed = 0, total = 0;
    const task_meta *next = NULL;
    const char *next_status = NULL;
    for (int r = 0; r < wb->nrooms; r++) {
        const room_meta *room = &wb->rooms[r];
        int room_passed = 0, room_graded = 0;
        for (int i = 0; i < room->ntasks; i++) {
            const char *status = status_of(tasks, room->tasks[i].id);
            room_graded += status != NULL;
            if (status && strcmp(status, "PASS") == 0) {
                room_passed++;
            } else if (!next) {
                next = &room->tasks[i];
                next_status = status;
            }
        }
        passed += room_passed;
        total += room->ntasks;
        int done = room_passed == room->ntasks;
        escaped += done;
        printf("  %-20s %s %d of %d tasks pass%s\n", room->dir, done ? "escaped" : "       ", room_passed,
               room->ntasks, room_graded == 0 ? " (not graded yet)" : room_graded < room->ntasks ? " (some not graded yet)" : "");
    }
    printf("progress: %d of %d rooms escaped, %d of %d tasks pass\n", escaped, wb->nrooms, passed, total);
    if (next)
        printf("next: make grade TASK=%s   (%s; %s)\n", next->id, next->title,
               !next_status ? "not graded yet"
               : strcmp(next_status, "NOT_STARTED") == 0 ? "not started" : next_status);
    else
        printf("every room escaped: well done\n");
    json_decref(root);
    return 0;
}
