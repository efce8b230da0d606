/* Hostile task: the correct solution, plus a grandchild that leaves the session
 * (setsid) and sleeps on after the program ends.  Expected: FAIL (a process left
 * behind), and no such process alive afterwards. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static void leave_a_sleeper_behind(void)
{
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() == 0) {
            execlp("sleep", "sleep", "3127", (char *)NULL);
            _exit(127);
        }
        _exit(0); /* the grandchild is orphaned */
    }
    waitpid(child, NULL, 0);
}

#define main solution_main
/* check-hostile.sh copies this file to build/hostile/01_threads/task1.c, with the
 * solution's text in place of the #include below (the sandbox shows no solutions/) */
#include "../../../solutions/01_threads/task1.c"
#undef main

int main(int argc, char **argv)
{
    leave_a_sleeper_behind();
    return solution_main(argc, argv);
}
