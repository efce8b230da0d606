// workrec.cu -- the work record (PR_SIM_WORK).  A thread's work is 1 plus its ticks: a
// for loop ticks at each pass through its body, a while or do-while loop at each test of
// its condition, a label at each pass, a function at each call (the kernel's own too).  The record holds the
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

__device__ int depth(int k) // k + 1 calls
{
    return k > 0 ? 1 + depth(k - 1) : 0;
}

// thread 0: a goto loop (101 passes through its label) and a recursion (11 calls)
__global__ void by_goto(int *out)
{
    if (threadIdx.x != 0)
        return;
    int i = 0;
again:
    if (i < 100) {
        i++;
        goto again;
    }
    *out = i + depth(10);
}

int main()
{
    const int n = 4096;
    int *h = new int[n], *x, *y, *out;
    for (int i = 0; i < n; i++) // host: no ticks
        h[i] = i % 7;
    cudaMalloc(&x, n * sizeof(int));
    cudaMalloc(&y, n * sizeof(int));
    cudaMalloc(&out, 2 * sizeof(int));
    cudaMemcpy(x, h, n * sizeof(int), cudaMemcpyHostToDevice);
    one_does_all<<<16, 256>>>(x, out, n);
    each_one<<<32, 128>>>(x, y, n);
    by_goto<<<1, 32>>>(out + 1);
    cudaDeviceSynchronize();
    by_goto<<<0, 32>>>(out); // an invalid launch: not counted
    int s = 0;
    cudaMemcpy(&s, out, sizeof s, cudaMemcpyDeviceToHost);
    cudaMemcpy(y, x, 64, cudaMemcpyDeviceToDevice);
    printf("sum %d\n", s);
    return 0;
}
