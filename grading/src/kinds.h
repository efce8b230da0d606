/* kinds.h -- the task kinds (tasks.ini's `kind = ...`), one row each in one table:
 * what a task of the kind is built with, whether it runs under the MPI launcher,
 * whether it is CUDA code and whether the CUDA CPU simulator can build it.
 *
 * meta.c accepts exactly the kinds in the table; toolchain.c turns a row's flags
 * into the build command, the launch command and the SKIP reasons.  Adding a kind
 * is one row in kinds.c (and its row in the unit tests' kinds test). */
#ifndef PR_KINDS_H
#define PR_KINDS_H

/* A kind's flags (kind_info.flags). */
enum {
    KIND_MPI = 1u << 0,          /* runs under the MPI launcher (launchers.h); built with mpicc, or
                                  * (CUDA) with MPI's C++ wrapper as the host compiler */
    KIND_CUDA = 1u << 1,         /* CUDA code: built with nvcc on a GPU machine */
    KIND_SIMULABLE = 1u << 2,    /* CUDA code the CPU simulator (grading/sim/simcc) can build */
    KIND_MPI_CXX_HOST = 1u << 3, /* nvcc's (simcc's) host compiler is MPI's C++ wrapper: -ccbin MPICXX */
    KIND_PTHREAD = 1u << 4,      /* linked with -pthread */
    KIND_OPENMP = 1u << 5,       /* compiled with -fopenmp (before -pthread); nvcc: -Xcompiler -fopenmp */
    KIND_CUDA_AWARE = 1u << 6,   /* may hand device pointers to MPI (pr.h's pr_mpi_cuda_aware), so
                                  * PR_CUDA_AWARE=1 on an MPI that is not CUDA-aware crashes it */
};

typedef struct {
    const char *name;      /* as tasks.ini writes it: "openmp" */
    unsigned flags;        /* KIND_* */
    const char *libs;      /* linked after the source in every build ("-lnccl"), or NULL; a task's
                            * own `libs` come after these: in simulated builds only those the
                            * simulator offers (-lnccl), the others in native builds only */
    const char *sim_lacks; /* CUDA code the simulator cannot build: what it lacks, for the SKIP
                            * reason ("cuBLAS"); NULL otherwise (every kind's, since NCCL is
                            * simulated) */
} kind_info;

/* The table, in the order tasks.ini's documentation lists the kinds; nkinds rows. */
extern const kind_info kinds[];
extern const int nkinds;

/* The row named name, or NULL when there is none. */
const kind_info *kind_lookup(const char *name);
/* Every kind's name in table order, separated by spaces ("c pthreads ... nccl"), for
 * messages: a new string. */
char *kind_names(void);

#endif
