/* grades.c -- see grades.h. */
#include "grades.h"

static const char *const names[ST_COUNT] = { "PASS", "SKIP", "FAIL", "TIMEOUT", "CRASH", "BUILD_ERROR",
                                              "NOT_STARTED" };

const char *status_name(grade_status st)
{
    return st >= 0 && st < ST_COUNT ? names[st] : "?";
}

const char *perf_verdict_name(perf_verdict v)
{
    static const char *const perf_names[] = { NULL, "ok", "slow", "n/a", "failed" };
    return v >= PERF_NONE && v <= PERF_FAILED ? perf_names[v] : NULL;
}
