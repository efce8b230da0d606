/*
 * curand_kernel.h for the CUDA CPU simulator: cuRAND's device API with another generator.
 *
 *   curand_init(seed, subsequence, offset, &state);   one state per thread, as on a GPU
 *   curand(&state)                  32 random bits
 *   curand_uniform(&state)          a float in (0, 1]    (_double: a double)
 *   curand_normal(&state)           a standard normal float, Box-Muller  (_double, _log_normal)
 *
 * The generator is SplitMix64 (Steele, Lea and Flood, 2014), not cuRAND's XORWOW or Philox:
 * the numbers are as random but not the same as a GPU's, so a program must not expect
 * cuRAND's exact values.  The state is a counter: curand_init puts it at
 * mix(seed) + subsequence * 2^64 / golden-ratio-ish stride + offset steps, so skipping ahead
 * is free and different subsequences do not overlap in practice.  Every state type
 * (curandState, curandStatePhilox4_32_10_t, curandStateMRG32k3a) is this one.
 */
#ifndef CUDA_SIM_CURAND_KERNEL_H
#define CUDA_SIM_CURAND_KERNEL_H
#include <cmath>
#include <cstdint>

struct curandStateSim {
    uint64_t counter;
    int has_normal;      /* Box-Muller makes two: the second waits here */
    double normal;
};
typedef curandStateSim curandState;
typedef curandStateSim curandState_t;
typedef curandStateSim curandStateXORWOW;
typedef curandStateSim curandStateXORWOW_t;
typedef curandStateSim curandStatePhilox4_32_10_t;
typedef curandStateSim curandStateMRG32k3a;
typedef curandStateSim curandStateMRG32k3a_t;

static inline uint64_t cuda_sim_curand_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static const uint64_t cuda_sim_curand_gamma = 0x9E3779B97F4A7C15ULL;

static inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                               curandStateSim *state)
{
    state->counter = cuda_sim_curand_mix(seed) + subsequence * 0xD1B54A32D192ED03ULL * 0x10000ULL +
                     offset * cuda_sim_curand_gamma;
    state->has_normal = 0;
    state->normal = 0.0;
}
static inline uint64_t cuda_sim_curand_next(curandStateSim *state)
{
    return cuda_sim_curand_mix(state->counter += cuda_sim_curand_gamma);
}
static inline unsigned int curand(curandStateSim *state) { return (unsigned int)(cuda_sim_curand_next(state) >> 32); }
/* (0, 1], as cuRAND's: never 0 */
static inline float curand_uniform(curandStateSim *state) { return ((float)curand(state) + 1.0f) * 2.3283064e-10f; }
static inline double curand_uniform_double(curandStateSim *state)
{
    return ((double)(cuda_sim_curand_next(state) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}
static inline double curand_normal_double(curandStateSim *state)
{
    if (state->has_normal) {
        state->has_normal = 0;
        return state->normal;
    }
    double u1 = curand_uniform_double(state), u2 = curand_uniform_double(state);
    double r = std::sqrt(-2.0 * std::log(u1)), t = 6.283185307179586 * u2;
    state->normal = r * std::sin(t);
    state->has_normal = 1;
    return r * std::cos(t);
}
static inline float curand_normal(curandStateSim *state) { return (float)curand_normal_double(state); }
static inline float curand_log_normal(curandStateSim *state, float mean, float stddev)
{
    return std::exp(mean + stddev * curand_normal(state));
}
static inline double curand_log_normal_double(curandStateSim *state, double mean, double stddev)
{
    return std::exp(mean + stddev * curand_normal_double(state));
}
static inline void skipahead(unsigned long long n, curandStateSim *state) { state->counter += n * cuda_sim_curand_gamma; }
#endif
