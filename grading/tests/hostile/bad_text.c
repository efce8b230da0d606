/* Hostile task: result values that are not UTF-8 and that hold a terminal's escape
 * sequences (clear the screen, hide text).  Expected: FAIL, the reports still valid JSON
 * and XML, and no escape character in what the grader prints. */
#include <stdio.h>

int main(void)
{
    printf("result sum = \xff\xfe\xc3\x28 bad bytes\n");
    printf("result count = \x1b[2J\x1b[8mhidden\x1b[0m\n");
    fprintf(stderr, "\x1b]0;title\x07 and \xe2\x82 broken\n");
    return 0;
}
