/* launchers.c -- see launchers.h. */
#define _GNU_SOURCE
#include "launchers.h"
#include "toolchain.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- shared by the rows ------------------------------------------------------------ */

static void push_flags(const launch_request *req, strlist *argv)
{
    for (int i = 0; req->flags && i < req->flags->count; i++)
        sl_push(argv, req->flags->items[i]);
}

/* program -n R, then the hosts with hosts_flag or the host file with hostfile_flag. */
static void push_mpiexec_ranks(const launch_request *req, const char *hosts_flag, const char *hostfile_flag,
                               strlist *argv)
{
    sl_push(argv, req->program);
    sl_push(argv, "-n");
    sl_push(argv, req->ranks);
    if (req->hosts) {
        sl_push(argv, hosts_flag);
        sl_push(argv, req->hosts);
    } else if (req->hostfile) {
        sl_push(argv, hostfile_flag);
        sl_push(argv, req->hostfile);
    }
}

/* The number after number_after on the first line of text holding line_mark, where that
 * first such line has it (1..64); else 0. */
static int marked_signal(const char *text, const char *line_mark, const char *number_after)
{
    const char *at = text ? strstr(text, line_mark) : NULL;
    if (!at)
        return 0;
    const char *line_end = strchr(at, '\n');
    const char *sig = strstr(at, number_after);
    if (!sig || (line_end && sig > line_end))
        return 0;
    int number = atoi(sig + strlen(number_after));
    return number > 0 && number < 65 ? number : 0;
}

/* ---- MPICH's Hydra mpiexec --------------------------------------------------------- */

static char *hydra_version(const char *text)
{
    /* "HYDRA build details:\n    Version:    4.0.2\n ..." */
    const char *v = strstr(text, "Version:");
    if (v) {
        v += strlen("Version:");
        v += strspn(v, " \t");
    }
    size_t n = v ? strcspn(v, " \n") : 0;
    return n ? xasprintf("MPICH %.*s", (int)n, v) : xstrdup("MPICH");
}

static void hydra_command(const launch_request *req, strlist *argv, strlist *env)
{
    (void)env;
    push_mpiexec_ranks(req, "-hosts", "-f", argv);
    if (req->preload) {
        sl_push(argv, "-genv");
        sl_push(argv, "LD_PRELOAD");
        sl_push(argv, req->preload);
    }
    push_flags(req, argv);
}

/* "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)",
 * on stdout */
static int hydra_signal(const char *text)
{
    return marked_signal(text, "EXIT STRING:", "(signal ");
}

/* ---- Open MPI's mpiexec ------------------------------------------------------------ */

static char *openmpi_version(const char *text)
{
    /* "mpiexec (OpenRTE) 4.1.4", "mpiexec (Open MPI) 5.0.3" */
    const char *digits = strpbrk(text, "0123456789");
    size_t n = digits ? strcspn(digits, " \n") : 0;
    return n ? xasprintf("Open MPI %.*s", (int)n, digits) : xstrdup("Open MPI");
}

static void openmpi_command(const launch_request *req, strlist *argv, strlist *env)
{
    push_mpiexec_ranks(req, "--host", "--hostfile", argv);
    /* Open MPI refuses more ranks than cores, and root, unless told. */
    sl_push(argv, "--oversubscribe");
    /* Open MPI binds each rank to a core (to a socket from 3 ranks): a rank's OpenMP threads
     * then share one core (room 05's CPU baselines, run beside MPI).  Unbound, as under
     * MPICH's Hydra: the operating system places ranks and threads. */
    int user_binds = 0;
    for (int i = 0; req->flags && i < req->flags->count; i++)
        user_binds |= strncmp(req->flags->items[i], "--bind-to", 9) == 0 || strcmp(req->flags->items[i], "--map-by") == 0;
    if (!user_binds) { /* MPIEXEC_FLAGS chose */
        sl_push(argv, "--bind-to");
        sl_push(argv, "none");
    }
    /* When a rank exits non-zero, Open MPI 4 waits odls_base_sigkill_timeout
     * seconds (1) before SIGTERM to the others and again before SIGKILL: 2 s
     * of every failing run spent waiting (0.3 s with 0).  A learner's failing
     * task is the common case, so no wait, unless the user chose one. */
    if (!getenv("OMPI_MCA_odls_base_sigkill_timeout"))
        sl_push(env, "OMPI_MCA_odls_base_sigkill_timeout=0");
    if (geteuid() == 0) {
        sl_push(env, "OMPI_ALLOW_RUN_AS_ROOT=1");
        sl_push(env, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
    }
    if (req->preload) {
        sl_push(argv, "-x");
        sl_push_owned(argv, xasprintf("LD_PRELOAD=%s", req->preload));
    }
    push_flags(req, argv);
}

/* "... process rank 1 with PID 0 on node x exited on signal 11 (Segmentation fault)." */
static int openmpi_signal(const char *text)
{
    return marked_signal(text, "exited on signal ", "exited on signal ");
}

/* ---- Slurm's srun ------------------------------------------------------------------ */

/* MPIEXEC=srun (or a path to it) asks for srun by name. */
static int names_srun(const char *mpiexec)
{
    if (!mpiexec)
        return 0;
    const char *slash = strrchr(mpiexec, '/');
    return strcmp(slash ? slash + 1 : mpiexec, "srun") == 0;
}

/* Inside a Slurm allocation (SLURM_JOB_ID, srun on PATH) with MPIEXEC unset, or set to
 * srun by name. */
static int srun_chosen(const char *mpiexec)
{
    const char *job = getenv("SLURM_JOB_ID");
    return (!(mpiexec && *mpiexec) || names_srun(mpiexec)) && job && *job && program_exists("srun");
}

/* MPICH's ranks find each other through PMI-2, which every srun has; Open MPI (4 and 5)
 * through PMIx only, where srun has that plugin (`srun --mpi=list`); else the site's
 * MpiDefault decides (NULL). */
static char *srun_pmi_for(const char *mpi_pmi)
{
    if (strcmp(mpi_pmi, "pmi2") == 0)
        return xstrdup(mpi_pmi);
    char *argv[] = { "srun", "--mpi=list", NULL };
    char *text = program_output(argv);
    int offered = text && strstr(text, mpi_pmi) != NULL;
    free(text);
    return offered ? xstrdup(mpi_pmi) : NULL;
}

static void srun_command(const launch_request *req, strlist *argv, strlist *env)
{
    (void)env;
    sl_push(argv, req->program);
    sl_push(argv, "--overcommit");         /* 4 ranks in an allocation of fewer cores */
    sl_push(argv, "--kill-on-bad-exit=1"); /* a dying rank ends the step at once */
    /* Without a PMI that the MPI speaks every rank starts as a lone "rank 0 of 1".
     * MPIEXEC_FLAGS="--mpi=..." chooses another. */
    int flags_choose = 0;
    for (int i = 0; req->flags && i < req->flags->count; i++)
        flags_choose |= strncmp(req->flags->items[i], "--mpi", 5) == 0;
    if (req->pmi && !flags_choose)
        sl_push_owned(argv, xasprintf("--mpi=%s", req->pmi));
    sl_push(argv, "-n");
    sl_push(argv, req->ranks);
    push_flags(req, argv); /* hosts: Slurm places the ranks on the allocation's nodes */
}

/* "srun: error: node1: task 1: Segmentation fault" (the signal's description);
 * Terminated and Killed are srun's own clean-up of the other tasks. */
static int srun_signal(const char *text)
{
    for (const char *at = text ? strstr(text, "srun: error: ") : NULL; at; at = strstr(at + 1, "srun: error: ")) {
        const char *task = strstr(at, ": task ");
        const char *line_end = strchr(at, '\n');
        if (!task || (line_end && task > line_end))
            continue;
        const char *words = strchr(task + strlen(": task "), ':');
        if (!words || (line_end && words > line_end))
            continue;
        words += 2;
        size_t len = line_end ? (size_t)(line_end - words) : strlen(words);
        for (int sig = 1; sig < 65; sig++) {
            const char *name = strsignal(sig);
            if (name && strlen(name) == len && strncmp(name, words, len) == 0 && sig != SIGTERM && sig != SIGKILL)
                return sig;
        }
    }
    return 0;
}

/* ---- the table --------------------------------------------------------------------- */

static const char *const hydra_marks[] = { "HYDRA", NULL };
static const char *const openmpi_marks[] = { "Open MPI", "OpenRTE", NULL };

const launcher launchers[] = {
    { .name = "hydra", .version_marks = hydra_marks, .version = hydra_version, .pmi = "pmi2",
      .command = hydra_command, .reported_signal = hydra_signal },
    { .name = "openmpi", .version_marks = openmpi_marks, .version = openmpi_version, .pmi = "pmix",
      .command = openmpi_command, .reported_signal = openmpi_signal },
    { .name = "srun", .chosen_by_environment = srun_chosen, .program = "srun", .pmi_for = srun_pmi_for,
      .no_hosts = "HOSTS/HOSTFILE are for mpiexec: inside a Slurm allocation srun places the ranks on the "
                  "allocation's nodes (set MPIEXEC=mpiexec to use HOSTS there anyway)",
      .command = srun_command, .reported_signal = srun_signal },
};
const int nlaunchers = (int)(sizeof launchers / sizeof launchers[0]);

const launcher *launcher_lookup(const char *name)
{
    for (int i = 0; name && i < nlaunchers; i++)
        if (strcmp(launchers[i].name, name) == 0)
            return &launchers[i];
    return NULL;
}

const launcher *launcher_from_environment(const char *mpiexec)
{
    for (int i = 0; i < nlaunchers; i++)
        if (launchers[i].chosen_by_environment && launchers[i].chosen_by_environment(mpiexec))
            return &launchers[i];
    return NULL;
}

const launcher *launcher_from_version(const char *text)
{
    for (int i = 0; text && i < nlaunchers; i++)
        for (const char *const *mark = launchers[i].version_marks; mark && *mark; mark++)
            if (strstr(text, *mark))
                return &launchers[i];
    return NULL;
}

int launcher_reported_signal(const char *text)
{
    for (int i = 0; i < nlaunchers; i++) {
        int sig = launchers[i].reported_signal ? launchers[i].reported_signal(text) : 0;
        if (sig)
            return sig;
    }
    return 0;
}
