/* Hostile task: 50000 result lines, each with a name of its own (just under the output
 * cap).  Expected: FAIL quickly ("more than 1000 result lines"), not a grader that spends
 * seconds comparing every name with every other. */
#include <stdio.h>

int main(void)
{
    for (int i = 0; i < 50000; i++)
        printf("result r%d = 1\n", i);
    return 0;
}
