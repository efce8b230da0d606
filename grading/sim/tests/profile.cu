// The profiler (simcc --profile): kernels whose counts follow from the CUDA C++ Programming
// Guide's rules by hand; run.sh checks the lines this program's profile prints.
//   copies of 64 floats, 2 warps: coalesced 4 sectors a request; every 32nd float 32;
//   misaligned by one float 5 (the allocation starts 256-byte aligned, as on a GPU);
//   a 32x32 transpose, block (32,8), 4 rows a thread (8 warps x 4 = 32 requests a side):
//     naive: loads 4 sectors a request (128), stores 32 (1024);
//     tiled through tile[32][32]: global 128 and 128; shared stores 1 wavefront a
//     request, shared loads down a column 32 (a 32-way bank conflict: 1024);
//     padded, tile[32][33]: shared loads 1 wavefront a request (32);
//   a sum of 64 floats: an atomicAdd per element (64 atomics, 31 waiting a warp: 62);
//     a tree in shared memory and one atomicAdd a block (1 atomic);
//   barriers, counted once a warp: the tiled transposes' one, by 8 warps (8); the tree's
//     7 (one after loading, one a step of strides 32 ... 1), by 2 warps (14);
//   partial requests (lanes of the warp left out): the tree's steps at strides 16 to 1
//     (two loads and a store each, lanes 0 to stride-1 of warp 0: 15), then thread 0's
//     load of s[0] and its atomic (2): 17; every other request has all its warp's lanes.
#include <cstdio>

#define N 32

__global__ void copy_coalesced(const float *in, float *out) { int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = in[i]; }
__global__ void copy_strided(const float *in, float *out) { int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = in[i * 32]; }
__global__ void copy_misaligned(const float *in, float *out) { int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = in[i + 1]; }

__global__ void transpose_naive(const float *in, float *out)
{
    int x = threadIdx.x, y = threadIdx.y;
    for (int j = 0; j < N; j += 8)
        out[x * N + (y + j)] = in[(y + j) * N + x];
}

__global__ void transpose_tiled(const float *in, float *out)
{
    __shared__ float tile[N][N];
    int x = threadIdx.x, y = threadIdx.y;
    for (int j = 0; j < N; j += 8)
        tile[y + j][x] = in[(y + j) * N + x];
    __syncthreads();
    for (int j = 0; j < N; j += 8)
        out[(y + j) * N + x] = tile[x][y + j];
}

__global__ void transpose_padded(const float *in, float *out)
{
    __shared__ float tile[N][N + 1];
    int x = threadIdx.x, y = threadIdx.y;
    for (int j = 0; j < N; j += 8)
        tile[y + j][x] = in[(y + j) * N + x];
    __syncthreads();
    for (int j = 0; j < N; j += 8)
        out[(y + j) * N + x] = tile[x][y + j];
}

__global__ void sum_atomic_each(const float *in, float *sum) { atomicAdd(sum, in[threadIdx.x]); }

__global__ void sum_atomic_block(const float *in, float *sum)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    for (int stride = 32; stride > 0; stride /= 2) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(sum, s[0]);
}

int main()
{
    float *in, *out, *sum;
    float h[N * N];
    for (int i = 0; i < N * N; i++)
        h[i] = (float)i;
    cudaMalloc(&in, 64 * 32 * sizeof(float));
    cudaMalloc(&out, N * N * sizeof(float));
    cudaMalloc(&sum, 2 * sizeof(float));
    cudaMemset(in, 0, 64 * 32 * sizeof(float));
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(sum, 0, 2 * sizeof(float));
    copy_coalesced<<<2, 32>>>(in, out);
    copy_strided<<<2, 32>>>(in, out);
    copy_misaligned<<<2, 32>>>(in, out);
    dim3 block(32, 8);
    transpose_naive<<<1, block>>>(in, out);
    transpose_tiled<<<1, block>>>(in, out);
    transpose_padded<<<1, block>>>(in, out);
    float back[N * N];
    cudaMemcpy(back, out, sizeof back, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            wrong += back[r * N + c] != h[c * N + r];
    sum_atomic_each<<<1, 64>>>(in, sum);
    sum_atomic_block<<<1, 64>>>(in, sum + 1);
    float sums[2];
    cudaMemcpy(sums, sum, sizeof sums, cudaMemcpyDeviceToHost);
    printf("transpose wrong %d, sums %g %g\n", wrong, sums[0], sums[1]);
    return 0;
}
