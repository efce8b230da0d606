/* sandbox.h -- the learner's side builds and runs where it cannot reach the references.
 *
 * With bubblewrap (bwrap, from the distribution), a learner's build and every run of
 * its program happen in new user, mount, pid, network, IPC and UTS namespaces, as the
 * unprivileged user nobody (65534), with a view of the file system that holds:
 *   read-only   /usr, /etc, /opt and the /bin, /lib... links (compilers, MPI, CUDA,
 *               system libraries), /sys, the folders of tools found elsewhere (MPICC,
 *               NVCC... outside /usr and /opt, and LD_LIBRARY_PATH's), the paths of
 *               GRADE_SANDBOX_BIND (a:b:c), and what the build or run needs: for a build,
 *               the task's folder, grading/include (pr.h) and the room's headers (and the
 *               simulator's driver for a simulated CUDA task); for a run, the program
 *   writable    the build's output folder (a build only), a fresh scratch folder (the
 *               working directory), a private /tmp, /dev/shm
 *   devices     /dev's basic nodes, and the NVIDIA GPU's for a native CUDA task
 * and nothing else: not solutions/, not the reference executables, not the reports or
 * logs, not other students' trees, no network (only a loopback of its own).  The
 * reference side runs outside it, as before.
 *
 * Inside, grading/bin/sandbox-init starts the command and, when it ends, kills what it
 * left running and says so on stderr ("pr-sandbox: N left running", "pr-sandbox: signal
 * S"): sandbox_take_status turns those lines back into the run's result.
 *
 * Under srun, or with GRADE_HOSTS / GRADE_HOSTFILE, MPI tasks' ranks start outside the
 * sandbox (Slurm starts them; ssh needs the network): their builds stay inside, their
 * runs do not, and sandbox_describe says so.
 *
 * GRADE_SANDBOX (make grade SANDBOX=...): auto (the default: on where bwrap works here,
 * off with the reason otherwise), on (grading stops when it cannot be had; class grading
 * asks for this), off. */
#ifndef PR_SANDBOX_H
#define PR_SANDBOX_H

#include "runner.h"
#include "toolchain.h"
#include "util.h"

typedef enum { SANDBOX_AUTO, SANDBOX_ON, SANDBOX_OFF } sandbox_setting;

typedef struct {
    sandbox_setting asked; /* GRADE_SANDBOX */
    int active;            /* the learner's builds and runs go through bwrap */
    char *bwrap;           /* bwrap's path (found on PATH), or NULL */
    char *version;         /* "bubblewrap 0.8.0", or NULL */
    char *init;            /* grading/bin/sandbox-init */
    int as_nobody;         /* in a user namespace as nobody (else: root without capabilities) */
    char *why_not;         /* !active: why (a new string) */
    strlist ro_extra;      /* folders bound read-only besides the system's */
    char *mpi_outside;     /* why MPI tasks' runs are not sandboxed (their ranks are started by
                            * Slurm's srun, or on other hosts: both need the network), or NULL */
} sandbox;

/* What one build or run sees besides the system: read-only and writable paths (each bound
 * at its own place), the working directory (writable), and whether the GPU's devices. */
typedef struct {
    const char *ro[6];
    const char *rw[2];
    const char *cwd;
    int gpu;
} sandbox_view;

/* Reads GRADE_SANDBOX and, unless off, checks that bwrap works here (one sandboxed
 * `true`).  Returns 0; or -1 with *error set (a new string) when GRADE_SANDBOX has a
 * value other than auto, on or off, or is on and no sandbox can be had. */
int sandbox_setup(sandbox *sb, const toolchain *tc, char **error);
void sandbox_free(sandbox *sb);

/* "on (bubblewrap 0.8.0)", "off (GRADE_SANDBOX=off)", "off (bwrap not found ...)": a
 * static or sb-owned string, for the terminal and the reports. */
const char *sandbox_describe(const sandbox *sb);

/* The bwrap command line that runs cmd in view (the words to put before cmd's), into out. */
void sandbox_command(const sandbox *sb, const sandbox_view *view, const strlist *cmd, strlist *out);

/* After a sandboxed run: sandbox-init's closing lines on stderr, taken off it, set res's
 * leftovers (what it left running) and, for a program killed by a signal, RUN_SIGNALED. */
void sandbox_take_status(run_result *res);

#endif
