/* gen.h -- the task generator: a solution file in, the learner's task out.
 *
 * Marker lines in a solution (leading whitespace allowed, nothing after them):
 *   //@ solution {        starts a solution block: its lines are left out of the task
 *   //@ }                 ends the block
 *   //@ placeholder: CODE the task gets CODE here (at the marker's indentation)
 *   //@ bug: CODE         the same, for a bug hunt: the buggy line the task gets in
 *                         place of the block that follows (no TODO text beside it);
 *                         a bare "//@ bug:" gives nothing (the bug is a missing line)
 *   //@ any other text    the task gets "// any other text" (the TODO text)
 * Everything else is copied unchanged.
 */
#ifndef PR_GEN_H
#define PR_GEN_H

#include <stddef.h>
#include <stdio.h>

/* Writes the task generated from `in` (named `name` in messages) to `out`.
 * Returns 0, or -1 with a "name:line: what is wrong" message in err. */
int gen_task(FILE *in, const char *name, FILE *out, char *err, size_t errlen);

/* The same for a file: reads solution_path, writes task_path (via a temp file and
 * rename, so a half-written task never replaces a good one). */
int gen_task_file(const char *solution_path, const char *task_path, char *err, size_t errlen);

/* 1 when the solution at solution_path is a bug hunt's (it has a "//@ bug:" marker),
 * 0 when not, -1 when it cannot be read. */
int gen_is_bug_hunt(const char *solution_path);

/* 1 when the file at task_path is exactly what the generator makes of solution_path
 * (a task nobody has started), 0 when it differs, -1 when either cannot be read. */
int gen_task_untouched(const char *solution_path, const char *task_path);

#endif
