// Kernel templates: arguments deduced from the launch's arguments (as in a call, through
// const and with conversions of the other parameters), given explicitly, and a non-type
// template parameter; and an overloaded kernel.
#include "common.h"

template <typename T> __global__ void scale(T *x, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

template <class T> __global__ void add(const T *x, T *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] += x[i];
}

template <int BLOCK> __global__ void sum(const float *x, float *out, int n)
{
    __shared__ float part[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    part[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if ((int)threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

/* Reads its shared memory before writing it: on a GPU, whatever was there; here the
 * poison (0xff bytes: -1), in every block, also in a template kernel's (GCC puts those
 * outside the shared section) and for every declarator. */
template <int N> __global__ void stale(int *out)
{
    __shared__ int a[N], b; /* two names, one declaration */
    out[2 * blockIdx.x] = a[threadIdx.x];
    if (threadIdx.x == 0) out[2 * blockIdx.x + 1] = b;
    __syncthreads();
    a[threadIdx.x] = 7;
    b = 7;
}

__global__ void fill(float *x, int n) { if ((int)threadIdx.x < n) x[threadIdx.x] = 1.0f; }
__global__ void fill(double *x, int n) { if ((int)threadIdx.x < n) x[threadIdx.x] = 2.0; }

int main(void)
{
    const size_t n = 1000; /* a size_t for the int parameter, as course code does */
    float *dx, *dy, *dsum;
    double *dd;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMalloc(&dd, n * sizeof(double)));
    CHECK(cudaMalloc(&dsum, sizeof(float)));
    float h[n];
    for (size_t i = 0; i < n; i++) h[i] = (float)(i % 10);
    CHECK(cudaMemcpy(dx, h, sizeof h, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, h, sizeof h, cudaMemcpyHostToDevice));
    int g = (int)((n + 255) / 256);
    scale<<<g, 256>>>(dx, 2.0f, n);         /* T = float, deduced */
    scale<float><<<g, 256>>>(dy, 0.5f, n);  /* T = float, given */
    add<<<2, 128>>>(dx, dy, n);             /* T = float from float * and const T * */
    CHECK(cudaMemset(dsum, 0, sizeof(float)));
    sum<256><<<g, 256>>>(dy, dsum, n);
    CHECK(cudaGetLastError());
    float s;
    CHECK(cudaMemcpy(&s, dsum, sizeof s, cudaMemcpyDeviceToHost));
    fill<<<1, 1024>>>(dd, n);               /* the double overload */
    scale<<<g, 256>>>(dd, 1.5, n);          /* T = double */
    double hd[n];
    CHECK(cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost));
    double sd = 0;
    for (size_t i = 0; i < n; i++) sd += hd[i];
    int *dst, hst[6];
    CHECK(cudaMalloc(&dst, sizeof hst));
    stale<1><<<3, 1>>>(dst);
    CHECK(cudaMemcpy(hst, dst, sizeof hst, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dst));
    printf("sum %.1f double %.1f stale %d %d %d %d %d %d\n", s, sd, hst[0], hst[1], hst[2], hst[3], hst[4], hst[5]);
    CHECK(cudaFree(dx)); CHECK(cudaFree(dy)); CHECK(cudaFree(dd)); CHECK(cudaFree(dsum));
    return 0;
}
