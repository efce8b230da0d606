// Vector add with a grid-stride loop (fewer threads than elements), checked exactly.
#include "common.h"

__global__ void add(int n, const int *a, const int *b, int *c)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

int main(void)
{
    const int n = 100003;
    int *a = (int *)malloc(n * sizeof(int)), *b = (int *)malloc(n * sizeof(int)), *c = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) { a[i] = i; b[i] = 3 * i + 1; c[i] = -1; }
    int *da, *db, *dc;
    CHECK(cudaMalloc(&da, n * sizeof(int)));
    CHECK(cudaMalloc(&db, n * sizeof(int)));
    CHECK(cudaMalloc(&dc, n * sizeof(int)));
    CHECK(cudaMemcpy(da, a, n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, n * sizeof(int), cudaMemcpyHostToDevice));
    add<<<40, 128>>>(n, da, db, dc);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c, dc, n * sizeof(int), cudaMemcpyDeviceToHost));
    long long wrong = 0, sum = 0;
    for (int i = 0; i < n; i++) { wrong += c[i] != 4 * i + 1; sum += c[i]; }
    printf("wrong %lld sum %lld\n", wrong, sum);
    CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dc));
    free(a); free(b); free(c);
    return wrong != 0;
}
