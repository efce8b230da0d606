/* Allocates and touches memory without end: the memory limit must stop it.
 * (Volatile stores, one per page: the compiler may not drop them.) */
#include <stdlib.h>

int main(void)
{
    for (;;) {
        volatile char *p = malloc(64 << 20);
        if (!p)
            continue;
        for (long i = 0; i < (64 << 20); i += 4096)
            p[i] = 1;
    }
}
