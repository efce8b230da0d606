// A host thread waits for a stream callback without synchronizing (as NVIDIA's
// simpleCallback does): the work and the callback must still run.
#include <cstdio>
#include <pthread.h>
#include <cuda_runtime.h>

__global__ void add_one(int *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        d[i] += 1;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int called = 0;

static void CUDART_CB on_done(cudaStream_t, cudaError_t status, void *arg)
{
    pthread_mutex_lock(&mu);
    called = status == cudaSuccess ? *(int *)arg : -1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

int main()
{
    const int n = 1000;
    int *h, *d;
    cudaMallocHost(&h, n * sizeof(int));
    cudaMalloc(&d, n * sizeof(int));
    for (int i = 0; i < n; i++)
        h[i] = i;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMemcpyAsync(d, h, n * sizeof(int), cudaMemcpyHostToDevice, s);
    add_one<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s);
    static int token = 42;
    cudaStreamAddCallback(s, on_done, &token, 0);
    pthread_mutex_lock(&mu); // no synchronization: the callback must come by itself
    while (!called)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += h[i];
    printf("callback %d sum %ld\n", called, sum);
    cudaStreamDestroy(s);
    cudaFree(d);
    cudaFreeHost(h);
    return 0;
}
