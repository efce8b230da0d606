// Device queries.  (Only the fields a simulator and a real GPU share are compared.)
#include "common.h"

int main(void)
{
    int count = 0, dev = -1;
    CHECK(cudaGetDeviceCount(&count));
    CHECK(cudaSetDevice(0));
    CHECK(cudaGetDevice(&dev));
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    printf("count>=1 %d device %d warpSize %d maxThreadsPerBlock %d maxThreadsDim %d %d %d sharedMemPerBlock %zu\n",
           count >= 1, dev, p.warpSize, p.maxThreadsPerBlock, p.maxThreadsDim[0], p.maxThreadsDim[1],
           p.maxThreadsDim[2], p.sharedMemPerBlock);
    fprintf(stderr, "name: %s\n", p.name);
    cudaError_t e = cudaSetDevice(count + 5);
    printf("bad device: %s\n", cudaGetErrorString(e));
    return 0;
}
