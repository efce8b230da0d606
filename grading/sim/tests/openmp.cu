// CUDA calls from the threads of an OpenMP parallel region, at the same time: in each of 20
// rounds every thread copies its slice of the input to the device, launches a kernel on it and
// copies it back; the main thread then checks every slice.  Built with -Xcompiler -fopenmp (or
// -fopenmp, or compiled so and linked with -lgomp), as nvcc builds such a program.
#include <cstdio>
#include <omp.h>

__global__ void scale(int *a, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] * k + threadIdx.x % 3;
}

int main() {
    const int nt = 4, chunk = 3000, n = nt * chunk, rounds = 20;
    static int in[nt * chunk], back[nt * chunk];
    int *d, wrong = 0, team = 0;
    cudaMalloc(&d, n * sizeof(int));
    omp_set_num_threads(nt);
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) in[i] = i % 1000 - r;
#pragma omp parallel
        {
            int t = omp_get_thread_num();
            if (t == 0) team = omp_get_num_threads();
            int *mine = d + t * chunk;
            cudaMemcpy(mine, in + t * chunk, chunk * sizeof(int), cudaMemcpyHostToDevice);
            scale<<<(chunk + 127) / 128, 128>>>(mine, chunk, t + 2);
            cudaMemcpy(back + t * chunk, mine, chunk * sizeof(int), cudaMemcpyDeviceToHost);
        }
        for (int i = 0; i < n; i++) {
            int t = i / chunk, j = i % chunk;
            wrong += back[i] != in[i] * (t + 2) + j % 128 % 3;
        }
    }
    cudaError_t e = cudaGetLastError();
    cudaFree(d);
    printf("openmp: %d threads, %d rounds, %d wrong, %s\n", team, rounds, wrong, cudaGetErrorString(e));
    return wrong != 0 || e != cudaSuccess;
}
