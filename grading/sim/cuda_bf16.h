/*
 * cuda_bf16.h for the CUDA CPU simulator: __nv_bfloat16, the upper 16 bits of a float,
 * rounded to nearest even; arithmetic in float, rounded back.  Offered: the conversions,
 * + - * / and the comparisons, __hadd __hmul __hfma on it.
 */
#ifndef CUDA_SIM_CUDA_BF16_H
#define CUDA_SIM_CUDA_BF16_H
#include <cmath>
#include <cstdint>
#include <cstring>

struct __nv_bfloat16 {
    unsigned short x;
    __nv_bfloat16() = default;
    __nv_bfloat16(float f)
    {
        uint32_t u;
        memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u)
            x = (unsigned short)((u >> 16) | 0x40u); /* NaN stays NaN */
        else
            x = (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
    __nv_bfloat16(double d) : __nv_bfloat16((float)d) {}
    operator float() const
    {
        uint32_t u = (uint32_t)x << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
};
typedef __nv_bfloat16 nv_bfloat16;
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
static inline float __bfloat162float(__nv_bfloat16 b) { return (float)b; }
#define CUDA_SIM_BF16_OP(op)                                                                                          \
    static inline __nv_bfloat16 operator op(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a op (float)b); } \
    static inline __nv_bfloat16 &operator op##=(__nv_bfloat16 &a, __nv_bfloat16 b) { return a = __nv_bfloat16((float)a op (float)b); }
CUDA_SIM_BF16_OP(+)
CUDA_SIM_BF16_OP(-)
CUDA_SIM_BF16_OP(*)
CUDA_SIM_BF16_OP(/)
#undef CUDA_SIM_BF16_OP
#define CUDA_SIM_BF16_CMP(op) \
    static inline bool operator op(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a op (float)b; }
CUDA_SIM_BF16_CMP(==)
CUDA_SIM_BF16_CMP(!=)
CUDA_SIM_BF16_CMP(<)
CUDA_SIM_BF16_CMP(<=)
CUDA_SIM_BF16_CMP(>)
CUDA_SIM_BF16_CMP(>=)
#undef CUDA_SIM_BF16_CMP
static inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return a + b; }
static inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return a * b; }
static inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
    return __nv_bfloat16(fmaf((float)a, (float)b, (float)c));
}
#endif
