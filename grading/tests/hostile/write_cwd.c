/* Writes files into its working directory (the grader's scratch folder, removed
 * afterwards) and prints no result lines. */
#include <stdio.h>

int main(void)
{
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "hostile-junk-%d.txt", i);
        FILE *f = fopen(name, "w");
        if (f) {
            fputs("junk\n", f);
            fclose(f);
        }
    }
    return 0;
}
