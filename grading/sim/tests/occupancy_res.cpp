// A made-up table of registers and static shared bytes for occupancy.cu's kernels, in the
// form simcc --profile links in from ptxas's report ("NAME REGISTERS SHARED_BYTES" a line,
// NAME demangled).
extern "C" const char *cuda_sim_kernel_resources(void)
{
    return "k_small(float*) 16 0\n"
           "k_regs(float*) 128 0\n"
           "k_odd(float*) 33 0\n"
           "k_shared(float*) 32 48000\n"
           "k_dyn(float*) 32 0\n";
}
