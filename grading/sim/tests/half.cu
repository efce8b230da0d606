// Half precision: __half conversions round to nearest even (ties, subnormals, overflow),
// arithmetic rounds back to half; __half2; bfloat16.
#include "common.h"
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void axpy_half(int n, __half a, const __half *x, __half *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = __hfma(a, x[i], y[i]);
}

int main(void)
{
    // bit patterns of IEEE binary16
    printf("1.0 %04x  2049 %04x  2051 %04x  65520 %04x  1e-7 %04x  -0.5 %04x\n", __half_as_ushort(__float2half(1.0f)),
           __half_as_ushort(__float2half(2049.0f)), __half_as_ushort(__float2half(2051.0f)),
           __half_as_ushort(__float2half(65520.0f)), __half_as_ushort(__float2half(1e-7f)),
           __half_as_ushort(__float2half(-0.5f)));
    printf("back %.8g %.8g\n", __half2float(__ushort_as_half(0x3555)), __half2float(__ushort_as_half(0x0001)));
    const int n = 1000;
    __half *x, *y;
    CHECK(cudaMallocManaged(&x, n * sizeof(__half)));
    CHECK(cudaMallocManaged(&y, n * sizeof(__half)));
    for (int i = 0; i < n; i++) {
        x[i] = __float2half((float)(i % 10));
        y[i] = __float2half(1.0f);
    }
    axpy_half<<<4, 256>>>(n, __float2half(0.5f), x, y);
    CHECK(cudaDeviceSynchronize());
    float sum = 0;
    for (int i = 0; i < n; i++)
        sum += __half2float(y[i]);
    __half2 p = __hmul2(__floats2half2_rn(1.5f, -2.0f), __floats2half2_rn(2.0f, 0.25f));
    __nv_bfloat16 b = __float2bfloat16(3.14159265f);
    printf("axpy sum %.1f half2 %.3f %.3f bf16 %.6g\n", sum, __low2float(p), __high2float(p), __bfloat162float(b));
    return 0;
}
