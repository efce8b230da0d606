#pragma once
/* vector_types.h for the CUDA CPU simulator: int2, float4, dim3 ... are in cuda_sim.h (a
 * .cpp file that includes this one gets them too). */
#include "cuda_sim.h"
