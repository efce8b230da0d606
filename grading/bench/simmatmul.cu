// simmatmul.cu -- the CUDA CPU simulator's speed on a kernel with barriers (make bench).
//
// C = A * B with 32x32 shared-memory tiles: every thread loads one element of each tile,
// waits at a barrier, adds 32 products, and waits again, ten times.  The work is that of
// NVIDIA's matrixMul sample at its default size (A 320x320, B 320x640, one warm-up launch
// and 300 timed ones), written afresh here, so that make bench needs no copy of the samples.
// Prints "  time simulated matmul  S s" (all 301 launches) and checks every element of C.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <sys/time.h>

#define TILE 32

__global__ void tiled_matmul(const float *a, const float *b, float *c, int n_inner, int n_cols)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n_inner; t += TILE) {
        ta[threadIdx.y][threadIdx.x] = a[row * n_inner + t + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n_cols + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n_cols + col] = acc;
}

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
    int launches = argc > 1 ? atoi(argv[1]) : 301;
    if (launches < 1 || launches > 100000) {
        fprintf(stderr, "simmatmul: launches must be 1 to 100000\n");
        return 2;
    }
    const int rows = 320, inner = 320, cols = 640;
    size_t na = (size_t)rows * inner, nb = (size_t)inner * cols, nc = (size_t)rows * cols;
    float *ha = (float *)malloc(na * sizeof(float)), *hb = (float *)malloc(nb * sizeof(float));
    float *hc = (float *)malloc(nc * sizeof(float));
    for (size_t i = 0; i < na; i++)
        ha[i] = (float)(i % 7) - 3.0f;
    for (size_t i = 0; i < nb; i++)
        hb[i] = (float)(i % 5) * 0.5f - 1.0f;
    float *da, *db, *dc;
    cudaMalloc(&da, na * sizeof(float));
    cudaMalloc(&db, nb * sizeof(float));
    cudaMalloc(&dc, nc * sizeof(float));
    cudaMemcpy(da, ha, na * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb, nb * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(TILE, TILE), grid(cols / TILE, rows / TILE);
    double t0 = now();
    for (int i = 0; i < launches; i++)
        tiled_matmul<<<grid, block>>>(da, db, dc, inner, cols);
    cudaDeviceSynchronize();
    double t = now() - t0;
    cudaMemcpy(hc, dc, nc * sizeof(float), cudaMemcpyDeviceToHost);
    long wrong = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            float want = 0.0f;
            for (int k = 0; k < inner; k++)
                want += ha[(size_t)r * inner + k] * hb[(size_t)k * cols + c];
            float got = hc[(size_t)r * cols + c], d = got - want;
            if (d > 1e-3f || d < -1e-3f)
                wrong++;
        }
    printf("launches %d, elements wrong %ld\n", launches, wrong);
    printf("  time simulated matmul  %.3f s\n", t);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    free(ha);
    free(hb);
    free(hc);
    return wrong ? 1 : 0;
}
