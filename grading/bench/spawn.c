/*
 * spawn.c -- the bench's floor for starting work (make bench): the bare cost of
 * fork + _exit + waitpid, and of pthread_create + pthread_join, with nothing to
 * do in the child.  Each is timed `count` times one by one after a warm-up;
 * one line each (microseconds per start):
 *   bench spawn=fork median_us=95.1 min_us=80.2 max_us=300.4
 * A pool's or a queue's cost per task is compared with these: what it saves.
 *
 *   spawn count=500
 */
#define _GNU_SOURCE
#include "pr.h"

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *nothing(void *arg)
{
    return arg;
}

static double one_fork(void)
{
    double start = pr_now();
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
        perror("spawn: fork");
        exit(1);
    }
    return pr_now() - start;
}

static double one_thread(void)
{
    double start = pr_now();
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) != 0 || pthread_join(t, NULL) != 0) {
        fprintf(stderr, "spawn: pthread_create failed\n");
        exit(1);
    }
    return pr_now() - start;
}

static void report(const char *name, double (*fn)(void), int count, double *times)
{
    for (int i = 0; i < 10; i++)
        fn(); /* warm-up */
    for (int i = 0; i < count; i++)
        times[i] = fn();
    qsort(times, (size_t)count, sizeof *times, compare_doubles);
    printf("bench spawn=%s median_us=%.2f min_us=%.2f max_us=%.2f\n", name, times[count / 2] * 1e6,
           times[0] * 1e6, times[count - 1] * 1e6);
}

int main(int argc, char **argv)
{
    int count = (int)pr_arg_long(argc, argv, "count", 500, 10, 100000);
    pr_args_done(argc, argv);
    double *times = malloc((size_t)count * sizeof *times);
    if (!times)
        return 1;
    report("fork", one_fork, count, times);
    report("thread", one_thread, count, times);
    free(times);
    return 0;
}
