// The integer intrinsics (24-bit products, high halves, min/max by type, averages, sums of
// absolute differences, bit reversal, byte permutes, funnel shifts) and the rounding-mode
// square roots, reciprocals and fused multiply-adds, against values worked out by hand from
// the CUDA Math API's definitions.
#include "common.h"
#include <climits>

__global__ void ints(long long *o)
{
    int k = 0;
    o[k++] = __mul24(0x01000001, 3);                 // 3: only the low 24 bits of a count
    o[k++] = __mul24(-5, 7);                         // -35
    o[k++] = __mul24(0x00800000, 2);                 // -16777216: bit 23 is the sign
    o[k++] = __umul24(0x01000002u, 0x01000003u);     // 6
    o[k++] = __umul24(0xffffffu, 0xffffffu);         // 4261412865: the low 32 bits of (2^24-1)^2
    o[k++] = __umulhi(0xffffffffu, 0xffffffffu);     // 4294967294
    o[k++] = __mulhi(-1, 1);                         // -1
    o[k++] = (long long)__umul64hi(1ull << 63, 4);   // 2
    o[k++] = __mul64hi(-2, 1ll << 62);               // -1
    o[k++] = umin(3u, 5u) * 10 + umax(3u, 5u);       // 35
    o[k++] = llmin(-3, 2) * 10 + llmax(-3, 2);       // -28
    o[k++] = (long long)ullmax(1ull << 40, 5);       // 1099511627776
    o[k++] = __hadd(INT_MAX, INT_MAX);               // 2147483647: no overflow
    o[k++] = __rhadd(1, 2);                          // 2
    o[k++] = __uhadd(0xffffffffu, 1u);               // 2147483648
    o[k++] = __sad(-3, 4, 10);                       // 17
    o[k++] = __usad(2u, 9u, 1u);                     // 8
    o[k++] = __brev(1u);                             // 2147483648
    o[k++] = (long long)(__brevll(1ull) >> 60);      // 8
    o[k++] = __clzll(1) * 100 + __ffsll(1ll << 32);  // 6333
    o[k++] = __byte_perm(0x33221100u, 0x77665544u, 0x0123u); // 1122867 (0x00112233)
    o[k++] = __byte_perm(0x33221100u, 0x77665544u, 0x7654u); // 2003195204 (0x77665544)
    o[k++] = __funnelshift_l(0xf0000000u, 1u, 4);    // 31
    o[k++] = __funnelshift_r(0xfu, 1u, 4);           // 268435456
    o[k++] = __funnelshift_lc(0xf0000000u, 1u, 40);  // 4026531840: the shift clamped to 32
    o[k++] = __funnelshift_rc(0xf0000000u, 1u, 40);  // 1
    o[k] = LLONG_MIN;
}

__global__ void rounded(int *o)
{
    float e = 1.0f + 1.0f / 8388608.0f; // 1 + 2^-23
    o[0] = __fsqrt_ru(2.0f) > __fsqrt_rd(2.0f);
    o[1] = __fsqrt_rn(4.0f) == 2.0f && __fsqrt_rz(2.0f) == __fsqrt_rd(2.0f);
    o[2] = __frcp_ru(3.0f) > __frcp_rd(3.0f) && __frcp_rn(4.0f) == 0.25f;
    o[3] = __fmaf_ru(e, e, -1.0f) > __fmaf_rz(e, e, -1.0f) && __fmaf_rz(e, e, -1.0f) == 2.0f / 8388608.0f;
    o[4] = __dsqrt_ru(2.0) > __dsqrt_rd(2.0) && __drcp_rn(8.0) == 0.125;
    o[5] = __fma_rd(1.0, 1.0, 1e-300) == 1.0 && __fma_ru(1.0, 1.0, 1e-300) > 1.0;
}

int main()
{
    long long *o, h[64];
    int *r, hr[6];
    CHECK(cudaMalloc(&o, sizeof h));
    CHECK(cudaMalloc(&r, sizeof hr));
    ints<<<1, 1>>>(o);
    rounded<<<1, 1>>>(r);
    CHECK(cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hr, r, sizeof hr, cudaMemcpyDeviceToHost));
    for (int k = 0; h[k] != LLONG_MIN; k++)
        printf("%s%lld", k ? " " : "", h[k]);
    printf("\nrounded %d %d %d %d %d %d\n", hr[0], hr[1], hr[2], hr[3], hr[4], hr[5]);
    return 0;
}
