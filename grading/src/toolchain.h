/* toolchain.h -- compilers, MPI launcher and GPU: what this machine has, and
 * the commands that build and launch a task of each kind.  What a kind needs is a row
 * in kinds.h's table; how a launcher starts ranks is a row in launchers.h's.
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

#include "kinds.h"
#include "launchers.h"
#include "meta.h"
#include "util.h"

/* How a task runs: natively, or in the CUDA CPU simulator (a CUDA kind the simulator
 * can build, where no GPU and nvcc are, or GRADE_CUDA=sim). */
typedef enum { MODE_NATIVE, MODE_SIM } run_mode;
/* "native" or "sim": the name the reports write (and GRADE_CUDA=sim asks for). */
const char *run_mode_name(run_mode mode);

typedef struct {
    char *cc, *mpicc, *mpiexec, *nvcc, *cuda_arch;
    char *mpicxx;            /* MPI's C++ wrapper: nvcc's (or simcc's) -ccbin for CUDA + MPI tasks */
    strlist cflags;          /* for C tasks */
    strlist mpiexec_flags;   /* from MPIEXEC_FLAGS */
    int werror;              /* add -Werror (the maintainers' checks) */
    int racecheck;           /* this build with the race checker (simcc --racecheck): set on a copy
                              * for the race checker's own run (grader.c's race_check) */
    int racecheck_asked;     /* GRADE_RACECHECK=1 (make grade RACECHECK=1): each simulated CUDA task
                              * of one process run once more under the race checker */
    char *grading_dir;       /* absolute path of grading/: include/ (pr.h), sim/ (simcc), tools/ */
    char *include_dir;       /* absolute path of grading/include/ (pr.h, what every task includes) */
    char *root;              /* the workbook's absolute path: ROOT/NN_room holds a room's own
                              * headers (its shared scaffolding), on every build's -I path */
    int have_cc, have_mpi, have_nvcc, have_gpu;
    char *simcc;             /* grading/sim/simcc (the CUDA CPU simulator's compiler driver), or NULL */
    int force_sim;           /* GRADE_CUDA=sim: simulate even where a GPU is present */
    const launcher *launcher; /* what starts an MPI task's ranks (launchers.h), chosen by
                               * toolchain_detect; NULL (no MPI, or never detected): the table's
                               * first row, MPICH's Hydra */
    int launcher_recognised; /* mpiexec --version named its MPI (not a wrapper of unknown ways) */
    char *pmi;               /* the PMI the launcher starts ranks with (srun's --mpi=: pmi2 for MPICH,
                              * pmix for Open MPI where srun has it), or NULL for the site's default */
    char *hosts;             /* GRADE_HOSTS (make grade HOSTS=a,b): mpiexec's hosts, or NULL */
    char *hostfile;          /* GRADE_HOSTFILE (make grade HOSTFILE=f): mpiexec's host file, or NULL */
    char *mpi_version;       /* "MPICH 4.0.2", "Open MPI 4.1.4", or "none" */
    char *gpu_name;          /* first GPU's name, or NULL */
    int cuda_aware;          /* the report's cuda_aware_mpi: 1, 0, or -1 (could not ask) */
    const char *mpi_gpu_path; /* how room 05/06's device pointers reach MPI (the report's
                               * mpi_gpu_path): "cuda-aware", "staging-layer" (pr_mpi_gpu.h,
                               * PR_MPI_STAGE=1), "simulator", or "none" */
    int mpi_stage;           /* 1: runs of tasks that hand MPI device pointers get PR_MPI_STAGE=1
                              * (a GPU whose MPI is not CUDA-aware, PR_MPI_STAGE not set to 0) */
    int cores;
} toolchain;

/* The MPI tool ("mpiexec", "mpicxx") that belongs to the compiler wrapper mpicc:
 * in its folder and with its suffix (/opt/m/bin/mpicc: /opt/m/bin/mpiexec;
 * mpicc.openmpi: mpiexec.openmpi, as Debian and Ubuntu name them side by side)
 * where that program exists, else the plain name (found on PATH).  A new string.
 * grading/tools/lib.sh has a shell copy for make doctor and make bench. */
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

/* Sets tc->mpi_gpu_path and tc->mpi_stage from what was detected (have_gpu, force_sim,
 * cuda_aware, simcc) and PR_MPI_STAGE / PR_CUDA_AWARE (toolchain_detect calls it). */
void toolchain_decide_mpi_gpu_path(toolchain *tc);

/* Why a task of this kind cannot run here (a new string), or NULL when it can.
 * *needs_gpu is set to 1 when the only thing missing is a GPU (or nvcc). */
char *toolchain_skip_reason(const toolchain *tc, const task_meta *task, int *needs_gpu);
/* How a task runs: MODE_SIM for a CUDA task whose kind the simulator can build
 * (KIND_SIMULABLE: cuda, cuda_mpi, nccl), built with grading/sim/simcc and run on the CPU (no
 * usable GPU, or GRADE_CUDA=sim); else MODE_NATIVE. */
run_mode toolchain_mode(const toolchain *tc, const task_meta *task);

/* Is the task built with the simulator's profiler (simcc --profile)?  A simulated CUDA task
 * whose method is "gpu": its method run records the memory counts (CUDA_SIM_PROFILE_OUT)
 * that its perf verdict is judged from; its other runs switch the profiler off
 * (CUDA_SIM_PROFILE=0). */
int toolchain_profiles(const toolchain *tc, const task_meta *task);

/* The command that compiles `source` into `exe`: the task's own file, pr.h's folder and
 * the room's folder in the workbook (ROOT/NN_room) on the include path, so a task file
 * graded from elsewhere (--tasks-from) still gets the workbook's room header. */
void build_command(const toolchain *tc, const task_meta *task, const char *source, const char *exe,
                   strlist *argv);
/* The words that start `ranks` ranks of a program (tc->launcher's command: the
 * launcher, its options, hosts and MPIEXEC_FLAGS), and the variables it needs; the
 * program and its arguments come after.  grade --launch gives it to scripts. */
void launcher_prefix(const toolchain *tc, const char *ranks, strlist *argv, strlist *env);
/* The command that runs `exe` in configuration cfg (through the launcher for MPI
 * kinds: tc->launcher's command for `ranks`, hosts and MPIEXEC_FLAGS), and the
 * environment it needs (the launcher's, then OMP_NUM_THREADS=threads). */
void launch_command(const toolchain *tc, const task_meta *task, const run_config *cfg, const char *exe,
                    strlist *argv, strlist *env);
/* launch_command, with the MPI work layer (grading/layer/pr_mpi_work.c, built: `layer`, or
 * NULL for none) loaded into every rank. */
void launch_command_layer(const toolchain *tc, const task_meta *task, const run_config *cfg, const char *exe,
                          const char *layer, strlist *argv, strlist *env);
/* 1 when the MPI work layer can follow the ranks: an MPI's own mpiexec (recognised: Hydra or
 * Open MPI) on this machine.  Not under srun or with HOSTS/HOSTFILE (the ranks' records would
 * be written on other nodes), nor with an MPIEXEC the grader does not recognise. */
int mpi_layer_applies(const toolchain *tc);

/* 1 when the task runs under the MPI launcher (KIND_MPI: mpi, cuda_mpi, nccl). */
int task_uses_launcher(const task_meta *task);
/* 1 when the task is CUDA code (KIND_CUDA: cuda, cuda_mpi, nccl). */
int task_uses_cuda(const task_meta *task);

/* Looks a program up in PATH (or checks a path with a slash); 1 if executable. */
int program_exists(const char *name);
/* Runs a short query (argv[0] looked up as program_exists does; 10 s at most) and
 * returns what it printed on stdout (a new string), or NULL when it is not there,
 * fails or runs too long. */
char *program_output(char *const argv[]);

#endif
