// Thrust beside hand-written kernels: device_vector, raw pointers into a kernel, device_ptr over cudaMalloc,
// a transform with a functor, a reduction, a sort, an inclusive scan, and a kernel result read by Thrust
// without an explicit synchronization (the default stream orders them on a GPU).
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/device_ptr.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <thrust/sequence.h>
#include <thrust/functional.h>

__global__ void fill(int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = (i * 7919) % n;
}
struct twice { __host__ __device__ int operator()(int x) const { return 2 * x; } };

int main() {
    const int n = 1000;
    int bad = 0;
    thrust::device_vector<int> v(n);
    fill<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(v.data()), n);
    thrust::sort(v.begin(), v.end());
    for (int i = 0; i < n; i++) bad += v[i] != i;
    thrust::transform(v.begin(), v.end(), v.begin(), twice());
    long s = thrust::reduce(v.begin(), v.end(), 0L, thrust::plus<long>());
    bad += s != (long)n * (n - 1);
    int *raw;
    cudaMalloc(&raw, n * sizeof(int));
    fill<<<(n + 255) / 256, 256>>>(raw, n);
    thrust::device_ptr<int> p = thrust::device_pointer_cast(raw);
    long s2 = thrust::reduce(p, p + n, 0L);
    bad += s2 != (long)n * (n - 1) / 2;
    thrust::sequence(p, p + n, 1);
    thrust::inclusive_scan(p, p + n, p);
    int last;
    cudaMemcpy(&last, raw + n - 1, sizeof last, cudaMemcpyDeviceToHost);
    bad += last != n * (n + 1) / 2;
    thrust::host_vector<int> h = v;
    bad += h[n - 1] != 2 * (n - 1);
    cudaFree(raw);
    printf("thrust: %s (sum %ld, %ld, scan %d)\n", bad ? "WRONG" : "ok", s, s2, last);
    return bad != 0;
}
