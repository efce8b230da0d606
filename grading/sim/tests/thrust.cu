// Thrust beside hand-written kernels: device_vector, raw pointers into a kernel, device_ptr over cudaMalloc,
// a transform with a functor, a reduction, a sort, an inclusive scan, and a kernel result read by Thrust
// without an explicit synchronization (the default stream orders them on a GPU).  Then sorts of random
// data, negative numbers among them (int and float keys, ascending and descending, by key, on the device
// and the host), each checked against std::sort: sorted, and the same values.
#include <algorithm>
#include <cstdio>
#include <vector>
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

static unsigned lcg = 2024;
static int next_random() { lcg = lcg * 1664525u + 1013904223u; return (int)(lcg >> 8) % 100000 - 50000; }

template <class T> static int differ(const thrust::host_vector<T> &got, std::vector<T> want) {
    std::sort(want.begin(), want.end());
    int bad = got.size() != want.size();
    for (size_t i = 0; i < want.size() && i < got.size(); i++) bad += got[i] != want[i];
    return bad;
}

// Sorts of n random values; prints the wrong elements of each and returns their sum.
static int random_sorts(int n) {
    std::vector<int> in(n), idx(n);
    std::vector<float> fin(n);
    for (int i = 0; i < n; i++) { in[i] = next_random(); fin[i] = next_random() / 64.0f; idx[i] = i; }
    thrust::device_vector<int> d(in.begin(), in.end());
    thrust::sort(d.begin(), d.end());
    int bad_int = differ<int>(d, in);
    thrust::device_vector<float> f(fin.begin(), fin.end());
    thrust::sort(f.begin(), f.end());
    int bad_float = differ<float>(f, fin);
    thrust::device_vector<int> down(in.begin(), in.end());
    thrust::sort(down.begin(), down.end(), thrust::greater<int>());
    thrust::host_vector<int> up(down.rbegin(), down.rend());
    int bad_greater = differ<int>(up, in);
    // by key: the keys sorted, each value the index its key came from, each index once
    thrust::device_vector<int> k(in.begin(), in.end()), v(idx.begin(), idx.end());
    thrust::sort_by_key(k.begin(), k.end(), v.begin());
    thrust::host_vector<int> hk = k, hv = v;
    int bad_key = differ<int>(hk, in);
    std::vector<int> seen(hv.begin(), hv.end());
    std::sort(seen.begin(), seen.end());
    for (int i = 0; i < n; i++) bad_key += seen[i] != i || hv[i] < 0 || hv[i] >= n || in[hv[i]] != hk[i];
    thrust::host_vector<int> h(in.begin(), in.end());
    thrust::sort(h.begin(), h.end());
    int bad_host = differ<int>(h, in);
    int lo = d[0], hi = d[n - 1];
    printf("sort %d random ints %d..%d: wrong int %d float %d greater %d by_key %d host %d\n", n, lo, hi, bad_int,
           bad_float, bad_greater, bad_key, bad_host);
    return bad_int + bad_float + bad_greater + bad_key + bad_host;
}

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
    bad += random_sorts(5000);
    return bad != 0;
}
