// Kernels, an extern __shared__ array and a launch in a header: simcc's pre-pass rewrites
// local headers too (cuhlaunch.cu includes this one).
#pragma once
template <class T> __global__ void block_sums(const T *x, T *out)
{
    extern __shared__ unsigned char cuh_raw[];
    T *part = reinterpret_cast<T *>(cuh_raw);
    part[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        T s = 0;
        for (unsigned i = 0; i < blockDim.x; i++)
            s += part[i];
        out[blockIdx.x] = s;
    }
}
template <class T> inline void launch_block_sums(const T *x, T *out, int blocks, int threads)
{
    block_sums<<<blocks, threads, threads * sizeof(T)>>>(x, out);
}
