/* prgen -- writes the learner's task generated from a reference solution.
 *
 *   prgen SOLUTION            the task on stdout
 *   prgen SOLUTION -o TASK    the task into TASK (replaced atomically)
 * Exit status: 0 done, 1 a malformed solution, 2 a usage error. */
#include "gen.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    char err[512] = "";
    if (argc == 2 && strcmp(argv[1], "--help") != 0) {
        FILE *in = fopen(argv[1], "r");
        if (!in) {
            fprintf(stderr, "prgen: cannot open %s\n", argv[1]);
            return 2;
        }
        int status = gen_task(in, argv[1], stdout, err, sizeof err);
        fclose(in);
        if (status != 0)
            fprintf(stderr, "prgen: %s\n", err);
        return status == 0 ? 0 : 1;
    }
    if (argc == 4 && strcmp(argv[2], "-o") == 0) {
        if (gen_task_file(argv[1], argv[3], err, sizeof err) != 0) {
            fprintf(stderr, "prgen: %s\n", err);
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "usage: prgen SOLUTION [-o TASK]\n");
    return 2;
}
