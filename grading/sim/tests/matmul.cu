// Tiled matrix multiply on a 2-D grid (16x16 tiles, sizes not multiples of 16) vs a CPU reference.
#include "common.h"
#define TILE 16

__global__ void matmul(int m, int k, int n, const float *A, const float *B, float *C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (k + TILE - 1) / TILE; t++) {
        int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < m && ac < k) ? A[row * k + ac] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (br < k && col < n) ? B[br * n + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < TILE; j++)
            acc += As[threadIdx.y][j] * Bs[j][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n)
        C[row * n + col] = acc;
}

int main(void)
{
    const int m = 70, k = 45, n = 53;
    float *A = (float *)malloc(m * k * sizeof(float)), *B = (float *)malloc(k * n * sizeof(float));
    float *C = (float *)malloc(m * n * sizeof(float));
    for (int i = 0; i < m * k; i++) A[i] = (float)((i * 7) % 11 - 5);
    for (int i = 0; i < k * n; i++) B[i] = (float)((i * 5) % 13 - 6);
    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, m * k * sizeof(float)));
    CHECK(cudaMalloc(&dB, k * n * sizeof(float)));
    CHECK(cudaMalloc(&dC, m * n * sizeof(float)));
    CHECK(cudaMemcpy(dA, A, m * k * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B, k * n * sizeof(float), cudaMemcpyHostToDevice));
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    matmul<<<grid, block>>>(m, k, n, dA, dB, dC);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(C, dC, m * n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    double trace = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float r = 0;
            for (int p = 0; p < k; p++) r += A[i * k + p] * B[p * n + j];
            wrong += C[i * n + j] != r; /* small integers: exact */
            if (i == j) trace += C[i * n + j];
        }
    printf("wrong %d trace %.0f\n", wrong, trace);
    CHECK(cudaFree(dA)); CHECK(cudaFree(dB)); CHECK(cudaFree(dC));
    free(A); free(B); free(C);
    return wrong != 0;
}
