/* Hostile task: ignores SIGTERM and spins.  Expected: TIMEOUT (SIGKILL after the grace period). */
#include <signal.h>
int main(void)
{
    signal(SIGTERM, SIG_IGN);
    volatile unsigned long n = 0;
    for (;;)
        n++;
}
