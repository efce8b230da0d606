/* policy.c -- see policy.h. */
#include "policy.h"
#include "util.h"

#include <stdlib.h>
#include <unistd.h>

int policy_load(grade_policy *p, char **error)
{
    *error = NULL;
    p->timeout_scale = 1.0;
    p->output_cap = 1024 * 1024;
    p->max_procs = 256;
    p->memory_mib = 0;
    p->stop_after_hang = 1;
    const char *text = getenv("GRADE_TIMEOUT_SCALE");
    if (text && *text) {
        char *end = NULL;
        double scale = strtod(text, &end);
        if (end == text || *end != '\0' || !(scale > 0 && scale <= 100)) {
            *error = xasprintf("GRADE_TIMEOUT_SCALE=%s: must be a number greater than 0 and at most 100", text);
            return -1;
        }
        p->timeout_scale = scale;
    }
    text = getenv("GRADE_OUTPUT_LIMIT");
    if (text && *text) {
        char *end = NULL;
        long long cap = strtoll(text, &end, 10);
        if (end == text || *end != '\0' || cap < 1024 || cap > 1024LL * 1024 * 1024) {
            *error = xasprintf("GRADE_OUTPUT_LIMIT=%s: must be a byte count from 1024 to 1073741824", text);
            return -1;
        }
        p->output_cap = (size_t)cap;
    }
    text = getenv("GRADE_PROCESS_LIMIT");
    long procs = text && *text ? strtol(text, NULL, 10) : 256;
    p->max_procs = procs > 0 ? (int)procs : 256;
    text = getenv("GRADE_MEMORY_LIMIT");
    long mib = text && *text ? strtol(text, NULL, 10) : 0;
    p->memory_mib = mib > 0 ? mib : 0;
    return 0;
}

double policy_build_timeout(const grade_policy *p)
{
    return POLICY_BUILD_TIMEOUT * p->timeout_scale;
}

void policy_limit_program(const grade_policy *p, int cuda, run_request *req)
{
    long m = p->memory_mib;
    if (m <= 0) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        long half = pages > 0 && page > 0 ? (long)((double)pages * (double)page / 2 / (1 << 20)) : 4096;
        m = cuda ? 4096 : 1024;
        if (m > half)
            m = half;
    }
    req->max_procs = p->max_procs;
    req->max_memory = (size_t)m << 20;
    req->limit_address_space = !cuda;
    req->kill_grace = POLICY_KILL_GRACE;
}

const char *policy_stop_reason(const grade_policy *p, run_outcome outcome)
{
    if (!p->stop_after_hang)
        return NULL;
    switch (outcome) {
    case RUN_TIMEOUT:
        return "timed out";
    case RUN_PROCESS_LIMIT:
        return "hit the process limit";
    case RUN_MEMORY_LIMIT:
        return "hit the memory limit";
    default:
        return NULL;
    }
}
