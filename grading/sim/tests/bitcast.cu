// The bit-reinterpreting intrinsics, and the CUDA Programming Guide's atomicCAS loop that
// adds to a double with them (exact: every addend is a multiple of 1/4).
#include "common.h"

__device__ double cas_add(double *address, double val)
{
    unsigned long long int *address_as_ull = (unsigned long long int *)address;
    unsigned long long int old = *address_as_ull, assumed;
    do {
        assumed = old;
        old = atomicCAS(address_as_ull, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}

__global__ void adds(double *sum)
{
    cas_add(sum, 0.25 * (threadIdx.x % 4 + 1)); /* 0.25, 0.5, 0.75, 1.0, ... */
}

__global__ void bits(long long *out)
{
    out[0] = __double_as_longlong(1.0);
    out[1] = __float_as_int(1.0f);
    out[2] = __float_as_uint(-2.0f);
    out[3] = __longlong_as_double(0x4004000000000000LL) == 2.5;
    out[4] = __int_as_float(0x40490fdb) == 3.14159274f;
    out[5] = signbit(__uint_as_float(0x80000000u)) != 0;
}

int main(void)
{
    double *ds, s = 0.0;
    long long *db, b[6];
    CHECK(cudaMalloc(&ds, sizeof(double)));
    CHECK(cudaMalloc(&db, sizeof b));
    CHECK(cudaMemcpy(ds, &s, sizeof s, cudaMemcpyHostToDevice));
    adds<<<64, 256>>>(ds);
    bits<<<1, 1>>>(db);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&s, ds, sizeof s, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(b, db, sizeof b, cudaMemcpyDeviceToHost));
    printf("sum %.2f\n%llx %llx %llx %lld %lld %lld\n", s, (unsigned long long)b[0], (unsigned long long)b[1],
           (unsigned long long)b[2], b[3], b[4], b[5]);
    CHECK(cudaFree(ds)); CHECK(cudaFree(db));
    return 0;
}
