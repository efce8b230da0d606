/* Hostile task: dereferences NULL.  Expected: CRASH (SIGSEGV). */
#include <stdio.h>
int main(int argc, char **argv)
{
    int *volatile p = NULL;
    (void)argv;
    printf("about to crash\n");
    fflush(stdout);
    return *p + argc;
}
