/*
 * cuda_fp16.h for the CUDA CPU simulator: __half and __half2, IEEE binary16, stored as
 * 16 bits.  Conversions round to nearest even (the _rn forms; the others round so too),
 * arithmetic is done in float and rounded back, as a GPU without native half arithmetic
 * would; NaN and the infinities pass through.  Offered: the conversions, + - * / and the
 * comparisons on __half, __hadd __hsub __hmul __hdiv __hfma __hneg __habs hsqrt, and on
 * __half2 __floats2half2_rn __float2half2_rn __low2float __high2float __hadd2 __hmul2.
 */
#ifndef CUDA_SIM_CUDA_FP16_H
#define CUDA_SIM_CUDA_FP16_H
#include <cmath>
#include <cstdint>
#include <cstring>

static inline unsigned short cuda_sim_float_to_half_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (exp == 0xffu) /* infinity, NaN (kept quiet) */
        return (unsigned short)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0u));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (unsigned short)(sign | 0x7c00u); /* too large: infinity */
    if (e <= 0) { /* subnormal or zero */
        if (e < -10)
            return (unsigned short)sign;
        man |= 0x800000u;
        unsigned shift = (unsigned)(14 - e);
        uint32_t half = man >> shift, rest = man & ((1u << shift) - 1u), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1u)))
            half++;
        return (unsigned short)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (man >> 13), rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        half++; /* may carry into the exponent, up to infinity: right */
    return (unsigned short)(sign | half);
}
static inline float cuda_sim_half_bits_to_float(unsigned short h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, x;
    if (exp == 0x1fu)
        x = sign | 0x7f800000u | (man << 13);
    else if (exp == 0) {
        if (man == 0)
            x = sign;
        else { /* subnormal: normalize */
            int e = -1;
            do {
                man <<= 1;
                e++;
            } while (!(man & 0x400u));
            x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else
        x = sign | ((exp - 15 + 127) << 23) | (man << 13);
    float f;
    memcpy(&f, &x, 4);
    return f;
}

struct __half {
    unsigned short x;
    __half() = default;
    __half(float f) : x(cuda_sim_float_to_half_bits(f)) {}
    __half(double d) : x(cuda_sim_float_to_half_bits((float)d)) {}
    __half(int i) : x(cuda_sim_float_to_half_bits((float)i)) {}
    operator float() const { return cuda_sim_half_bits_to_float(x); }
};
struct __half2 {
    __half x, y;
    __half2() = default;
    __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half half;
typedef __half2 half2;

static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline __half __double2half(double d) { return __half(d); }
static inline float __half2float(__half h) { return (float)h; }
static inline __half __int2half_rn(int i) { return __half(i); }
static inline int __half2int_rn(__half h) { return (int)nearbyintf((float)h); }
static inline int __half2int_rz(__half h) { return (int)(float)h; }
static inline unsigned short __half_as_ushort(__half h) { return h.x; }
static inline __half __ushort_as_half(unsigned short u)
{
    __half h;
    h.x = u;
    return h;
}
static inline short __half_as_short(__half h) { return (short)h.x; }

#define CUDA_SIM_HALF_OP(op)                                                                               \
    static inline __half operator op(__half a, __half b) { return __half((float)a op (float)b); }          \
    static inline __half &operator op##=(__half &a, __half b) { return a = __half((float)a op (float)b); }
CUDA_SIM_HALF_OP(+)
CUDA_SIM_HALF_OP(-)
CUDA_SIM_HALF_OP(*)
CUDA_SIM_HALF_OP(/)
#undef CUDA_SIM_HALF_OP
static inline __half operator-(__half a) { return __ushort_as_half((unsigned short)(a.x ^ 0x8000u)); }
#define CUDA_SIM_HALF_CMP(op) \
    static inline bool operator op(__half a, __half b) { return (float)a op (float)b; }
CUDA_SIM_HALF_CMP(==)
CUDA_SIM_HALF_CMP(!=)
CUDA_SIM_HALF_CMP(<)
CUDA_SIM_HALF_CMP(<=)
CUDA_SIM_HALF_CMP(>)
CUDA_SIM_HALF_CMP(>=)
#undef CUDA_SIM_HALF_CMP

static inline __half __hadd(__half a, __half b) { return a + b; }
static inline __half __hsub(__half a, __half b) { return a - b; }
static inline __half __hmul(__half a, __half b) { return a * b; }
static inline __half __hdiv(__half a, __half b) { return a / b; }
static inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf((float)a, (float)b, (float)c)); }
static inline __half __hneg(__half a) { return -a; }
static inline __half __habs(__half a) { return __ushort_as_half((unsigned short)(a.x & 0x7fffu)); }
static inline __half hsqrt(__half a) { return __half(sqrtf((float)a)); }
static inline bool __heq(__half a, __half b) { return a == b; }
static inline bool __hlt(__half a, __half b) { return a < b; }
static inline bool __hgt(__half a, __half b) { return a > b; }
static inline bool __hisnan(__half a) { return (a.x & 0x7c00u) == 0x7c00u && (a.x & 0x3ffu); }
static inline bool __hisinf(__half a) { return (a.x & 0x7fffu) == 0x7c00u; }

static inline __half2 __floats2half2_rn(float a, float b) { return __half2{ __half(a), __half(b) }; }
static inline __half2 __float2half2_rn(float a) { return __half2{ __half(a), __half(a) }; }
static inline __half2 __halves2half2(__half a, __half b) { return __half2{ a, b }; }
static inline float __low2float(__half2 h) { return (float)h.x; }
static inline float __high2float(__half2 h) { return (float)h.y; }
static inline __half __low2half(__half2 h) { return h.x; }
static inline __half __high2half(__half2 h) { return h.y; }
static inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{ a.x + b.x, a.y + b.y }; }
static inline __half2 __hsub2(__half2 a, __half2 b) { return __half2{ a.x - b.x, a.y - b.y }; }
static inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{ a.x * b.x, a.y * b.y }; }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2{ __hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y) }; }
static inline __half2 __h2div(__half2 a, __half2 b) { return __half2{ a.x / b.x, a.y / b.y }; }
static inline __half2 __hneg2(__half2 a) { return __half2{ -a.x, -a.y }; }
static inline __half2 __habs2(__half2 a) { return __half2{ __habs(a.x), __habs(a.y) }; }
static inline __half2 make_half2(__half a, __half b) { return __half2{ a, b }; }
static inline __half2 __float22half2_rn(float2 f) { return __half2{ __half(f.x), __half(f.y) }; }
static inline float2 __half22float2(__half2 h) { return float2{ (float)h.x, (float)h.y }; }
static inline __half2 __half2half2(__half a) { return __half2{ a, a }; }
static inline __half2 __lowhigh2highlow(__half2 h) { return __half2{ h.y, h.x }; }
static inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2{ a.x, b.x }; }
static inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2{ a.y, b.y }; }
/* __half2 arithmetic, lane by lane, as cuda_fp16.hpp defines it for C++ */
#define CUDA_SIM_HALF2_OP(op)                                                                      \
    static inline __half2 operator op(__half2 a, __half2 b) { return __half2{ a.x op b.x, a.y op b.y }; } \
    static inline __half2 &operator op##=(__half2 &a, __half2 b) { return a = a op b; }
CUDA_SIM_HALF2_OP(+)
CUDA_SIM_HALF2_OP(-)
CUDA_SIM_HALF2_OP(*)
CUDA_SIM_HALF2_OP(/)
#undef CUDA_SIM_HALF2_OP
static inline __half2 operator-(__half2 a) { return __hneg2(a); }
static inline bool operator==(__half2 a, __half2 b) { return a.x == b.x && a.y == b.y; }
static inline bool operator!=(__half2 a, __half2 b) { return !(a == b); }

/* the simulated threads never preempt one another: plain read-modify-writes */
static inline __half atomicAdd(__half *p, __half v)
{
    __half old = *p;
    *p = old + v;
    return old;
}
#endif
