// workrec.cu -- the work record (PR_SIM_WORK).  A thread's work is 1 plus its loop ticks:
// a for loop ticks at each pass through its body, a while or do-while loop at each test
// of its condition, in the kernel and in its __device__ functions.  The record holds the
// fewest threads that did half the work, the largest launch and the bytes copied each
// way.  Host loops count nothing.  run.sh checks the record's line.
#include <cstdio>

__device__ int twice(int k)
{
    int s = 0;
    int j = 0;
    do {
        s += k;
    } while (++j < 2); // 2 iterations
    return s;
}

// thread 0 of block 0 loops n times; every other thread runs once
__global__ void one_does_all(const int *x, int *out, int n)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int s = 0;
        for (int i = 0; i < n; i++)
            s += x[i];
        *out = s;
    }
}

// every thread: one element, and a __device__ call with 2 iterations
__global__ void each_one(const int *x, int *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = 0;
    while (k < 0) // never true: 1 evaluation, one tick
        k++;
    if (i < n)
        y[i] = twice(x[i]);
}

int main()
{
    const int n = 4096;
    int *h = new int[n], *x, *y, *out;
    for (int i = 0; i < n; i++) // host: no ticks
        h[i] = i % 7;
    cudaMalloc(&x, n * sizeof(int));
    cudaMalloc(&y, n * sizeof(int));
    cudaMalloc(&out, sizeof(int));
    cudaMemcpy(x, h, n * sizeof(int), cudaMemcpyHostToDevice);
    one_does_all<<<16, 256>>>(x, out, n);
    each_one<<<32, 128>>>(x, y, n);
    int s = 0;
    cudaMemcpy(&s, out, sizeof s, cudaMemcpyDeviceToHost);
    cudaMemcpy(y, x, 64, cudaMemcpyDeviceToDevice);
    printf("sum %d\n", s);
    return 0;
}
