/* The busy-machine fixture's reference: it takes `nap` milliseconds, as a reference does on a
 * machine so busy that it needs a good part of the time limit, then prints its one result. */
#define _POSIX_C_SOURCE 200809L
#include "pr.h"

#include <time.h>

int main(int argc, char **argv)
{
    long nap = (long)pr_arg_long(argc, argv, "nap", 600, 0, 100000);
    pr_args_done(argc, argv);
    struct timespec t = { nap / 1000, (nap % 1000) * 1000000L };
    nanosleep(&t, NULL);
    //@ TODO: the answer
    //@ placeholder: long answer = 0;
    //@ solution {
    long answer = 42;
    //@ }
    pr_result_int("answer", answer);
    return pr_finish();
}
