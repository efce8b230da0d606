/* Hostile task: prints without end.  Expected: a non-PASS status, quickly, with the
 * grader's memory bounded. */
#include <stdio.h>
int main(void)
{
    for (;;)
        fputs("result flood = 1 and on and on and on and on and on and on and on\n", stdout);
}
