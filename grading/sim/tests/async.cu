// Asynchrony: kernels, asynchronous copies and memsets, events and host functions are
// queued and run when something synchronizes, in an order that respects streams, events
// and the legacy default stream.  The missing synchronizations show as they do on a GPU.
#include "common.h"
#include <string.h>

__global__ void fill(int *x, int n, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = v;
}

__global__ void add_from(const int *x, int *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += x[i];
}

__global__ void hello(int v) { printf("kernel printf %d\n", v); }

static void note(void *text) { printf("host function: %s\n", (const char *)text); }

static long sum(const int *h, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += h[i];
    return s;
}

int main(void)
{
    const int n = 1000;
    int *x, *y, *pinned;
    CHECK(cudaMalloc(&x, n * sizeof(int)));
    CHECK(cudaMalloc(&y, n * sizeof(int)));
    CHECK(cudaMallocHost(&pinned, n * sizeof(int)));

    // an asynchronous copy into pinned memory, read before and after its stream's synchronization
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    memset(pinned, 0, n * sizeof(int));
    fill<<<4, 256, 0, s>>>(x, n, 3);
    CHECK(cudaMemcpyAsync(pinned, x, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    printf("copy not waited for: sum %ld\n", sum(pinned, n));
    CHECK(cudaStreamSynchronize(s));
    printf("after cudaStreamSynchronize: sum %ld\n", sum(pinned, n));

    // a blocking cudaMemcpy waits for the legacy default stream and the blocking streams
    fill<<<4, 256, 0, s>>>(x, n, 5);
    int h[n];
    CHECK(cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost));
    printf("cudaMemcpy after a blocking stream's kernel: sum %ld\n", sum(h, n));
    // ... but not for a non-blocking stream
    cudaStream_t nb;
    CHECK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    fill<<<4, 256, 0, nb>>>(x, n, 7);
    CHECK(cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost));
    printf("cudaMemcpy after a non-blocking stream's kernel: sum %ld\n", sum(h, n));
    CHECK(cudaStreamSynchronize(nb));

    // two streams: y += x on b must wait for x's fill on a
    cudaStream_t a, b;
    cudaEvent_t ready;
    CHECK(cudaStreamCreate(&a));
    CHECK(cudaStreamCreate(&b));
    CHECK(cudaEventCreate(&ready));
    for (int wait = 0; wait < 2; wait++) {
        CHECK(cudaMemset(x, 0, n * sizeof(int)));
        CHECK(cudaMemset(y, 0, n * sizeof(int)));
        CHECK(cudaDeviceSynchronize());
        fill<<<4, 256, 0, a>>>(x, n, 1);
        CHECK(cudaEventRecord(ready, a));
        if (wait)
            CHECK(cudaStreamWaitEvent(b, ready, 0));
        add_from<<<4, 256, 0, b>>>(x, y, n);
        CHECK(cudaStreamSynchronize(b));
        CHECK(cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost));
        printf("%s: sum %ld\n", wait ? "with cudaStreamWaitEvent" : "without cudaStreamWaitEvent", sum(h, n));
    }
    CHECK(cudaDeviceSynchronize());

    // events: the time is there only once the stop event has run
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    fill<<<4, 256>>>(x, n, 1);
    CHECK(cudaEventRecord(stop));
    float ms = -1;
    cudaError_t early = cudaEventElapsedTime(&ms, start, stop);
    printf("elapsed time before cudaEventSynchronize: %s\n", cudaGetErrorName(early));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("after cudaEventSynchronize: %s\n", ms >= 0 ? "a time" : "no time");

    // a kernel's printf and a host function appear in stream order, at the synchronization
    hello<<<1, 1, 0, s>>>(1);
    CHECK(cudaLaunchHostFunc(s, note, (void *)"after the kernel"));
    printf("host, before cudaStreamSynchronize\n");
    CHECK(cudaStreamSynchronize(s));
    printf("host, after it\n");

    // a kernel never synchronized: its printf never appears, and the simulator says so at exit
    hello<<<1, 1>>>(2);
    printf("main returns\n");
    return 0;
}
