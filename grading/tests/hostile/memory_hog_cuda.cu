/* A CUDA task (simulated without a GPU) that allocates host memory without end:
 * RLIMIT_AS cannot guard CUDA programs, the memory watchdog must.
 * (Volatile stores, one per page: the compiler may not drop them.) */
#include <cstdlib>
#include <cuda_runtime.h>

int main()
{
    int *d = nullptr;
    cudaMalloc(&d, 1024);
    for (;;) {
        volatile char *p = (volatile char *)malloc(64 << 20);
        if (!p)
            continue;
        for (long i = 0; i < (64 << 20); i += 4096)
            p[i] = 1;
    }
}
