/* probe-cuda-aware.c -- asks the MPI, with one real rank, what room 05's programs
 * ask: is it CUDA-aware?  (pr.h's pr_mpi_cuda_aware; PR_CUDA_AWARE overrides.)
 * Prints one line, "cuda_aware=1 (why)" or "cuda_aware=0 (why)".  Built with mpicc
 * and run with mpiexec -n 1 by make doctor (grading/tools/doctor.sh) and by the grader
 * for its report's machine.cuda_aware_mpi (grading/src/toolchain.c). */
#define PR_MPI
#include "pr.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *why = "";
    int aware = pr_mpi_cuda_aware(&why);
    printf("cuda_aware=%d (%s)\n", aware, why);
    MPI_Finalize();
    return 0;
}
