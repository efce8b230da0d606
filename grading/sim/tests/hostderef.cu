// Host code reading a device pointer: must fault with a clear message.
#include "common.h"

int main(void)
{
    int *d;
    CHECK(cudaMalloc(&d, 100 * sizeof(int)));
    CHECK(cudaMemset(d, 0, 100 * sizeof(int)));
    printf("reading d[3] on the host\n");
    fflush(stdout);
    volatile int v = d[3];
    printf("read %d: not caught\n", v);
    return 0;
}
