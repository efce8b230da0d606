/* Hostile task: a tree of folders deeper than PATH_MAX (450 x 11 bytes) in its working folder, the last
 * one unreadable, then nothing printed.  Expected: FAIL, and the scratch folder removed
 * all the same. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
    for (int i = 0; i < 450; i++) {
        if (mkdir("dddddddddd", 0755) != 0 || chdir("dddddddddd") != 0)
            break;
    }
    int fd = open("data", O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) {
        if (write(fd, "x", 1) < 0) { /* nothing */ }
        close(fd);
    }
    chmod(".", 0);
    return 0;
}
