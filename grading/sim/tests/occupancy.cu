// Occupancy (simcc --profile): the blocks that fit on one multiprocessor, from each kernel's
// registers and shared memory.  run.sh links occupancy_res.cpp, a made-up table of
// registers and static shared bytes (as ptxas would report them), and checks the lines
// against these counts, worked by hand with the CUDA occupancy calculator's rules.
// An H100's SM: 2048 threads (64 warps), 32 blocks, 65,536 registers given to a warp 256
// at a time, 233,472 shared bytes with 1,024 more kept per block, in steps of 128 bytes.
//   k_small:  64 threads (2 warps), 16 registers: 32 blocks (the block limit), 64 warps: 1.00
//   k_regs:   256 threads (8 warps), 128 registers: 4,096 a warp, 16 warps: 2 blocks, 0.25
//   k_odd:    256 threads, 33 registers: 1,056 a warp, rounded up to 1,280: 51 warps fit,
//             6 blocks of 8: 48 warps, 0.75
//   k_shared: 128 threads (4 warps), 48,000 static bytes + 1,024 kept = 49,024 (a multiple
//             of 128): 4 blocks (196,096 bytes), 16 warps, 0.25
//   k_dyn:    1,024 threads (32 warps), 32 registers, 20,000 dynamic bytes: the threads
//             allow 2 blocks (the registers 2 too, the shared memory 11): 64 warps, 1.00
// A T4's SM (CUDA_SIM_GPU=T4): 1,024 threads (32 warps), 16 blocks, no bytes kept:
//   k_regs: still 2 blocks of 8 warps, 16 of 32 warps: 0.50
#include <cstdio>

__global__ void k_small(float *x) { x[threadIdx.x] += 1; }
__global__ void k_regs(float *x) { x[threadIdx.x] += 1; }
__global__ void k_odd(float *x) { x[threadIdx.x] += 1; }
__global__ void k_shared(float *x) { x[threadIdx.x] += 1; }
__global__ void k_dyn(float *x) { x[threadIdx.x] += 1; }

int main()
{
    float *x;
    cudaMalloc(&x, 1024 * sizeof(float));
    cudaMemset(x, 0, 1024 * sizeof(float));
    k_small<<<1, 64>>>(x);
    k_regs<<<1, 256>>>(x);
    k_odd<<<1, 256>>>(x);
    k_shared<<<1, 128>>>(x);
    k_dyn<<<1, 1024, 20000>>>(x);
    float h;
    cudaMemcpy(&h, x, sizeof h, cudaMemcpyDeviceToHost);
    printf("x[0] %g\n", h);
    cudaFree(x);
    return 0;
}
