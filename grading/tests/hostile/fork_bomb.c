/* A fork bomb: every process forks forever.  The grader's process limit (a pids
 * cgroup as root, RLIMIT_NPROC otherwise, and its watchdog) must stop it. */
#include <unistd.h>

int main(void)
{
    for (;;)
        fork();
}
