/* launchers.h -- the programs that start an MPI task's ranks, one row each in one
 * table: MPICH's Hydra mpiexec, Open MPI's mpiexec, Slurm's srun.  A row says how
 * the launcher is recognised, the command and environment that start R ranks (on
 * given hosts), and how it reports a rank killed by a signal.
 *
 * A launcher is chosen one of two ways (toolchain_detect):
 *   - by the environment, before any MPI is asked: srun inside a Slurm allocation
 *     (SLURM_JOB_ID set, srun on PATH) with MPIEXEC unset or naming srun;
 *   - else by what the MPI's own `mpiexec --version` prints: "HYDRA" (MPICH),
 *     "Open MPI" or "OpenRTE"; rows are asked in table order.  An mpiexec that
 *     names none is launched as the first row's (Hydra's plain `-n R`).
 * The row found from `mpiexec --version` also names the MPI and its version for the
 * report ("MPICH 4.0.2") and says the PMI its ranks speak; a launcher chosen by the
 * environment is handed that PMI (srun --mpi=).
 *
 * Adding a launcher (Flux's `flux run`, HPE's PALS mpiexec, PRRTE's prterun) is one
 * row in launchers.c and its unit test (grading/tests/unit_tests.c), nothing else. */
#ifndef PR_LAUNCHERS_H
#define PR_LAUNCHERS_H

#include "util.h"

/* What one launch asks for: the launcher turns it into words (and variables). */
typedef struct {
    const char *program;  /* what runs: MPIEXEC, the MPI's own mpiexec, or srun */
    const char *ranks;    /* the rank count, "4" */
    const char *hosts;    /* GRADE_HOSTS ("node1,node2"), or NULL */
    const char *hostfile; /* GRADE_HOSTFILE, or NULL (never both: toolchain_check_hosts) */
    const strlist *flags; /* MPIEXEC_FLAGS: the last words before the program's own */
    const char *pmi;      /* the PMI to start ranks with (srun --mpi=), or NULL: the site's default */
    const char *preload;  /* a library every rank loads first (LD_PRELOAD), the launcher itself
                           * not; or NULL.  srun ignores it (see launch_command). */
} launch_request;

typedef struct launcher {
    const char *name;     /* "hydra", "openmpi", "srun"; a launcher chosen by the environment is
                           * named in the report's MPI line ("MPICH 4.0.2, launched by srun") */
    /* -- chosen by the environment (NULL for an MPI's own mpiexec) -- */
    /* 1 when this launcher starts the ranks here; mpiexec is MPIEXEC (or NULL). */
    int (*chosen_by_environment)(const char *mpiexec);
    const char *program;  /* run when MPIEXEC is unset ("srun") */
    /* The PMI to start ranks of an MPI that speaks mpi_pmi with (a new string), or NULL
     * for the site's default.  NULL: the launcher takes no PMI. */
    char *(*pmi_for)(const char *mpi_pmi);
    /* Why GRADE_HOSTS/GRADE_HOSTFILE do not apply (it places the ranks itself), or NULL. */
    const char *no_hosts;
    /* -- recognised from `mpiexec --version` (NULL for a launcher chosen by the environment) -- */
    const char *const *version_marks; /* any of these words in the text: this row; NULL-terminated */
    char *(*version)(const char *text); /* the MPI and its version, "MPICH 4.0.2": a new string */
    const char *pmi;      /* the PMI this MPI's ranks speak ("pmi2", "pmix") */
    /* -- launching -- */
    /* Appends the words before the executable (program, options, -n, hosts, flags) to argv,
     * and the variables the launcher needs to env. */
    void (*command)(const launch_request *req, strlist *argv, strlist *env);
    /* A rank's death by a signal as the launcher reports it in a run's output: the
     * signal number, or 0 when text says none (text may be NULL). */
    int (*reported_signal)(const char *text);
} launcher;

/* The table; nlaunchers rows. */
extern const launcher launchers[];
extern const int nlaunchers;

/* The row named name, or NULL. */
const launcher *launcher_lookup(const char *name);
/* The launcher the environment chooses (mpiexec: MPIEXEC, or NULL), or NULL when the
 * MPI's own mpiexec is to start the ranks. */
const launcher *launcher_from_environment(const char *mpiexec);
/* The row whose MPI `mpiexec --version` printed text, or NULL (text NULL, or no row's mark). */
const launcher *launcher_from_version(const char *text);

/* A rank's death as any launcher in the table reports it in a run's stdout or stderr
 * (rows asked in table order): the signal number, or 0. */
int launcher_reported_signal(const char *text);

#endif
