/* progress.h -- the learner's progress across grading runs (make progress).
 *
 * Each `make grade` of the learner's own tasks (not a maintainer's check, not
 * another folder's tasks) records every graded task's status and time in
 * build/progress.json ({"schema": "parallel-rooms/progress/1", "tasks": {id:
 * {"status", "when", "hints"}}}), so that grading one task at a time still adds
 * up to the whole picture.  "hints" is how many levels of the task's hint ladder
 * the learner has opened (make hint); a class report reads it back. */
#ifndef PR_PROGRESS_H
#define PR_PROGRESS_H

#include "grades.h"
#include "meta.h"

#define PROGRESS_SCHEMA "parallel-rooms/progress/1"

/* Merges the statuses of rep into the progress file at path (created if missing). */
int progress_record(const grade_report *rep, const char *path);

/* How many hint levels of task id were opened (0 when none, or no file). */
int progress_hints_opened(const char *path, const char *id);

/* Records that `opened` levels of task id's hints have been seen (never lowers it). */
int progress_record_hints(const char *path, const char *id, int opened);

/* Prints rooms escaped, tasks passed and the next task to do; returns 0, or 2
 * with a message when the file is unreadable. */
int progress_print(const workbook *wb, const char *path);

#endif
