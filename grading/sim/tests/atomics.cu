// A histogram with atomicAdd on shared and global memory, plus atomicMax/Min/CAS/Exch
// and the atomicAdd overloads (unsigned, unsigned long long, float, double).
#include "common.h"
#define BINS 16

__global__ void histogram(const unsigned *x, int n, unsigned *hist)
{
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[x[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

struct Stats { int mx, mn, cas_winners, tok, olds; unsigned long long ull; float f; double d; };

__global__ void others(Stats *s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; /* 0..1023 */
    atomicMax(&s->mx, (i * 37) % 1000);
    atomicMin(&s->mn, 500 - i);
    if (atomicCAS(&s->cas_winners, 0, i + 1) == 0) atomicAdd(&s->cas_winners, 1 << 20); /* one winner */
    atomicAdd(&s->olds, atomicExch(&s->tok, i + 1)); /* olds + final tok = 1 + 2 + ... + 1024 */
    atomicAdd(&s->ull, 1ull << 33);
    atomicAdd(&s->f, 0.5f);
    atomicAdd(&s->d, 0.25);
}

int main(void)
{
    const int n = 100000;
    unsigned *x = (unsigned *)malloc(n * sizeof(unsigned)), expect[BINS] = {0}, hist[BINS];
    for (int i = 0; i < n; i++) { x[i] = (unsigned)(i * 2654435761u); expect[x[i] % BINS]++; }
    unsigned *dx, *dh;
    CHECK(cudaMalloc(&dx, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dh, BINS * sizeof(unsigned)));
    CHECK(cudaMemcpy(dx, x, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dh, 0, BINS * sizeof(unsigned)));
    histogram<<<30, 128>>>(dx, n, dh);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hist, dh, sizeof hist, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int b = 0; b < BINS; b++) wrong += hist[b] != expect[b];
    printf("histogram wrong %d bin0 %u\n", wrong, hist[0]);
    Stats s = {-1, 1 << 30, 0, 0, 0, 0, 0.0f, 0.0}, *ds;
    CHECK(cudaMalloc(&ds, sizeof(Stats)));
    CHECK(cudaMemcpy(ds, &s, sizeof s, cudaMemcpyHostToDevice));
    others<<<4, 256>>>(ds);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&s, ds, sizeof s, cudaMemcpyDeviceToHost));
    printf("max %d min %d cas %d exch %d ull %llu f %.1f d %.2f\n", s.mx, s.mn, s.cas_winners >> 20, s.olds + s.tok,
           s.ull, s.f, s.d);
    CHECK(cudaFree(dx)); CHECK(cudaFree(dh)); CHECK(cudaFree(ds));
    free(x);
    return wrong != 0;
}
