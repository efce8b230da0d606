/* toolchain.h -- compilers, MPI launcher and GPU: what this machine has, and
 * the commands that build and launch a task of each kind.
 *
 * Environment overrides: CC, MPICC, MPICXX, MPIEXEC, MPIEXEC_FLAGS, NVCC, CUDA_ARCH
 * (MPICXX and MPIEXEC default to the ones that belong to MPICC: mpi_sibling),
 * GRADE_CFLAGS (replaces the default C flags), GRADE_CUDA=sim (simulate CUDA
 * tasks even on a GPU machine).  Inside a SLURM allocation
 * (SLURM_JOB_ID set, srun on PATH) and with MPIEXEC unset (or srun), MPI tasks are
 * launched with `srun --overcommit -n R` instead of mpiexec (with --mpi=pmi2 for
 * MPICH, --mpi=pmix for Open MPI where srun offers it).  GRADE_HOSTS=a,b or
 * GRADE_HOSTFILE=f spread mpiexec's ranks over other machines (MPICH: -hosts / -f,
 * Open MPI: --host / --hostfile). */
#ifndef PR_TOOLCHAIN_H
#define PR_TOOLCHAIN_H

#include "meta.h"
#include "util.h"

typedef struct {
    char *cc, *mpicc, *mpiexec, *nvcc, *cuda_arch;
    char *mpicxx;            /* MPI's C++ wrapper: nvcc's (or simcc's) -ccbin for CUDA + MPI tasks */
    strlist cflags;          /* for C tasks */
    strlist mpiexec_flags;   /* from MPIEXEC_FLAGS */
    int werror;              /* add -Werror (the maintainers' checks) */
    char *include_dir;       /* absolute path of grading/ (pr.h) */
    char *root;              /* the workbook's absolute path: ROOT/NN_room holds a room's own
                              * headers (its shared scaffolding), on every build's -I path */
    int have_cc, have_mpi, have_nvcc, have_gpu;
    char *simcc;             /* grading/simcc (the CUDA CPU simulator's compiler driver), or NULL */
    int force_sim;           /* GRADE_CUDA=sim: simulate even where a GPU is present */
    int mpi_is_openmpi;
    int use_srun;            /* inside a SLURM allocation: launch ranks with srun */
    char *srun_mpi;          /* srun's --mpi= (the PMI the MPI speaks: pmi2 for MPICH, pmix for
                              * Open MPI where srun has it), or NULL for the site's default */
    char *hosts;             /* GRADE_HOSTS (make grade HOSTS=a,b): mpiexec's hosts, or NULL */
    char *hostfile;          /* GRADE_HOSTFILE (make grade HOSTFILE=f): mpiexec's host file, or NULL */
    char *mpi_version;       /* "MPICH 4.0.2", "Open MPI 4.1.4", or "none" */
    char *gpu_name;          /* first GPU's name, or NULL */
    int cuda_aware;          /* the report's cuda_aware_mpi: 1, 0, or -1 (could not ask) */
    int cores;
} toolchain;

/* The MPI tool ("mpiexec", "mpicxx") that belongs to the compiler wrapper mpicc:
 * in its folder and with its suffix (/opt/m/bin/mpicc: /opt/m/bin/mpiexec;
 * mpicc.openmpi: mpiexec.openmpi, as Debian and Ubuntu name them side by side)
 * where that program exists, else the plain name (found on PATH).  A new string.
 * grading/lib.sh has a shell copy for make doctor and make bench. */
char *mpi_sibling(const char *mpicc, const char *tool);

/* Checks GRADE_HOSTS and GRADE_HOSTFILE; NULL when they are fine (or unset),
 * else a one-line error (a new string). */
char *toolchain_check_hosts(void);

/* Fills tc from the environment and by asking the tools (each query is a short
 * run under the runner's limits).  root is the workbook's absolute path. */
void toolchain_detect(toolchain *tc, const char *root);
void toolchain_free(toolchain *tc);

/* Asks the MPI, with one real rank, what room 05's programs ask (pr.h's
 * pr_mpi_cuda_aware, PR_CUDA_AWARE honoured): 1 CUDA-aware, 0 not, -1 when the
 * question could not be asked (no MPI; the probe did not build or run).
 * toolchain_detect asks only where CUDA tasks run natively (a GPU, no GRADE_CUDA=sim);
 * elsewhere the answer is 0: in the simulator no MPI is CUDA-aware. */
int toolchain_ask_cuda_aware(const toolchain *tc);

/* Why a task of this kind cannot run here (a new string), or NULL when it can.
 * *needs_gpu is set to 1 when the only thing missing is a GPU (or nvcc). */
char *toolchain_skip_reason(const toolchain *tc, const task_meta *task, int *needs_gpu);
/* How a task runs: "native", or "sim" for a CUDA task (kind cuda or cuda_mpi)
 * built with grading/simcc and run on the CPU (no usable GPU, or GRADE_CUDA=sim). */
const char *toolchain_mode(const toolchain *tc, const task_meta *task);

/* The command that compiles `source` into `exe`: the task's own file, pr.h's folder and
 * the room's folder in the workbook (ROOT/NN_room) on the include path, so a task file
 * graded from elsewhere (--tasks-from) still gets the workbook's room header. */
void build_command(const toolchain *tc, const task_meta *task, const char *source, const char *exe,
                   strlist *argv);
/* The command that runs `exe` in configuration cfg (through mpiexec for MPI
 * kinds), and the environment it needs (OMP_NUM_THREADS=threads). */
void launch_command(const toolchain *tc, const task_meta *task, const run_config *cfg, const char *exe,
                    strlist *argv, strlist *env);

/* 1 when the task runs under mpiexec (the MPI kinds). */
int task_uses_launcher(const task_meta *task);
/* 1 when the task is CUDA code (kinds cuda, cuda_mpi, nccl). */
int task_uses_cuda(const task_meta *task);

/* Looks a program up in PATH (or checks a path with a slash); 1 if executable. */
int program_exists(const char *name);

#endif
