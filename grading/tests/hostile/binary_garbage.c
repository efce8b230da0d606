/* 100 KB of random bytes (NULs and invalid UTF-8 included), then a clean exit. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    srand(7);
    for (int i = 0; i < 100000; i++)
        putchar(rand() & 0xff);
    return 0;
}
