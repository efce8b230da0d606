/* cuda_runtime.h for the CUDA CPU simulator (grading/sim/simcc): everything is in cuda_sim.h. */
#include "cuda_sim.h"
