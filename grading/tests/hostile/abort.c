/* Gives up with abort(): SIGABRT. */
#include <stdlib.h>

int main(void)
{
    abort();
}
