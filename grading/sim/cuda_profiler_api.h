/* cuda_profiler_api.h for the CUDA CPU simulator: there is no profiler to start or stop. */
#pragma once
static inline cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
static inline cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
