/* grades.c -- see grades.h. */
#include "grades.h"

static const char *const names[ST_COUNT] = { "PASS", "SKIP", "FAIL", "TIMEOUT", "CRASH", "BUILD_ERROR",
                                              "NOT_STARTED" };

const char *status_name(grade_status st)
{
    return st >= 0 && st < ST_COUNT ? names[st] : "?";
}
