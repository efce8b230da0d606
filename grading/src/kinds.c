/* kinds.c -- see kinds.h. */
#include "kinds.h"
#include "util.h"

#include <string.h>

const kind_info kinds[] = {
    { "c", 0, NULL, NULL },
    { "pthreads", KIND_PTHREAD, NULL, NULL },
    { "openmp", KIND_OPENMP | KIND_PTHREAD, NULL, NULL },
    { "processes", KIND_PTHREAD, NULL, NULL },
    { "mpi", KIND_MPI, NULL, NULL },
    /* CUDA kinds: host code with OpenMP too, for the multi-threaded CPU baselines the
     * programs time beside the GPU (guarded by _OPENMP: a build without it still works) */
    { "cuda", KIND_CUDA | KIND_SIMULABLE | KIND_OPENMP, NULL, NULL },
    { "cuda_mpi", KIND_CUDA | KIND_SIMULABLE | KIND_MPI | KIND_MPI_CXX_HOST | KIND_CUDA_AWARE | KIND_OPENMP, NULL,
      NULL },
    /* NCCL: simulated on MPI (grading/sim/nccl.h), so simcc builds it as it does cuda_mpi */
    { "nccl", KIND_CUDA | KIND_SIMULABLE | KIND_MPI | KIND_MPI_CXX_HOST | KIND_OPENMP, "-lnccl", NULL },
};
const int nkinds = (int)(sizeof kinds / sizeof kinds[0]);

const kind_info *kind_lookup(const char *name)
{
    for (int i = 0; name && i < nkinds; i++)
        if (strcmp(kinds[i].name, name) == 0)
            return &kinds[i];
    return NULL;
}

char *kind_names(void)
{
    strbuf sb = { 0 };
    for (int i = 0; i < nkinds; i++)
        sb_printf(&sb, "%s%s", i ? " " : "", kinds[i].name);
    return sb.data;
}
