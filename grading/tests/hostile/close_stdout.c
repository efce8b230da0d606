/* Closes its stdout first, then runs on for a moment and exits 0. */
#include <time.h>
#include <unistd.h>

int main(void)
{
    close(STDOUT_FILENO);
    struct timespec pause = { 0, 50 * 1000 * 1000 };
    nanosleep(&pause, NULL);
    return 0;
}
