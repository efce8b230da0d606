/* One line without end: no newline ever comes. */
#include <stdio.h>

int main(void)
{
    for (;;)
        fputs("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", stdout);
}
