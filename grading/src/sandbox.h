/* sandbox.h -- the learner's side builds and runs where it cannot reach the references.
 *
 * With bubblewrap (bwrap, from the distribution), a learner's build and every run of
 * its program happen in new user, mount, pid, network, IPC and UTS namespaces, as the
 * unprivileged user nobody (65534), with a view of the file system that holds:
 *   read-only   /usr, /etc, /opt and the /bin, /lib... links (compilers, MPI, CUDA,
 *               system libraries), /sys, the folders of tools found elsewhere (MPICC,
 *               NVCC... outside /usr and /opt: their bin/, and lib/, include/, share/
 *               beside it; LD_LIBRARY_PATH's folders), the paths of GRADE_SANDBOX_BIND
 *               (a:b:c), and what the build or run needs: for a build, the task's folder,
 *               grading/include (pr.h) and the room's headers, one by one (and the
 *               simulator's driver for a simulated CUDA task); for a run, the program
 *   hidden      the workbook, the build and reference folders and GRADE_SANDBOX_HIDE's
 *               (a:b), wherever a folder above is bound; /etc's password hashes and
 *               ssh keys; no home folder, nor a folder above one, is ever bound
 *   writable    the build's output folder (a build only), a fresh scratch folder (the
 *               working directory), a private /tmp and /dev/shm (256 MiB each, where
 *               bwrap can cap them)
 *   devices     /dev's basic nodes, and the NVIDIA GPU's for a native CUDA task
 * and nothing else: not solutions/, not the reference executables, not the reports or
 * logs, not other students' trees, no network (only a loopback of its own).  The
 * environment is cleared but for what compilers, MPI, OpenMP and CUDA read (a list of
 * names and prefixes), and the run's own variables.  The reference side runs outside
 * it, as before.
 *
 * Inside, grading/bin/sandbox-init starts the command and, when it ends, kills what it
 * left running and ends stderr with one line, "pr-sandbox: left=N signal=S":
 * sandbox_take_status turns it back into the run's result.
 *
 * Under srun, or with GRADE_HOSTS / GRADE_HOSTFILE, MPI tasks' ranks start outside the
 * sandbox (Slurm starts them; ssh needs the network): their builds stay inside, their
 * runs do not, and sandbox_describe says so.
 *
 * On a machine with a GPU, sandbox_setup first builds a tiny CUDA program (outside) and runs
 * it inside the sandbox.  Where it fails there but runs outside (a container that hides the
 * GPU's devices, a driver that needs more of /dev), native CUDA tasks' runs go outside the
 * sandbox, their builds stay inside, and sandbox_describe says so.  GRADE_SANDBOX=on (class
 * grading) then refuses, as under srun: SANDBOX=off grades them outside on purpose.
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
    strlist hide;          /* folders never shown, even inside a folder bound read-only (the
                            * workbook, the build and reference folders, GRADE_SANDBOX_HIDE's):
                            * an empty tmpfs covers them */
    int has_size;          /* this bwrap knows --size (0.7 and later): /tmp, /dev/shm and the
                            * working directory are tmpfs of SANDBOX_SPACE bytes each */
    char *mpi_outside;     /* why MPI tasks' runs are not sandboxed (their ranks are started by
                            * Slurm's srun, or on other hosts: both need the network), or NULL */
    char *cuda_outside;    /* why native CUDA tasks' runs are not sandboxed (the probe failed inside
                            * the sandbox and ran outside it), or NULL */
    char *cuda_probe;      /* the CUDA probe's verdict ("a CUDA program runs inside it (probed)"),
                            * or NULL: not probed (no GPU, simulated CUDA, GRADE_SANDBOX_CUDA_PROBE=0) */
} sandbox;

/* The writable space of a sandboxed build or run, each of /tmp, /dev/shm and its working
 * directory: 256 MiB (where bwrap knows --size). */
#define SANDBOX_SPACE_MIB 256
#define SANDBOX_SPACE_TEXT "268435456"

/* What one build or run sees besides the system: read-only and writable paths (each bound
 * at its own place), the working directory (writable), and whether the GPU's devices. */
typedef struct {
    strlist ro, rw;
    const char *cwd;
    int gpu;
} sandbox_view;

/* Reads GRADE_SANDBOX and, unless off, checks that bwrap works here (one sandboxed
 * `true`).  Returns 0; or -1 with *error set (a new string) when GRADE_SANDBOX has a
 * value other than auto, on or off, or is on and no sandbox can be had. */
int sandbox_setup(sandbox *sb, const toolchain *tc, char **error);
void sandbox_free(sandbox *sb);
/* Adds path (when it exists) to the folders no sandboxed build or run ever sees. */
void sandbox_hide(sandbox *sb, const char *path);

/* "on (bubblewrap 0.8.0)", "off (GRADE_SANDBOX=off)", "off (bwrap not found ...)": a
 * static or sb-owned string, for the terminal and the reports. */
const char *sandbox_describe(const sandbox *sb);

/* The bwrap command line that runs cmd in view with the extra variables env ("NAME=VALUE",
 * or NULL), into out. */
void sandbox_command(const sandbox *sb, const sandbox_view *view, const strlist *cmd, const strlist *env,
                     strlist *out);
void sandbox_view_free(sandbox_view *view);

/* After a sandboxed run: sandbox-init's closing line, the last of stderr, taken off it, sets
 * res's leftovers (what it left running) and, for a program killed by a signal,
 * RUN_SIGNALED.  A run that exited 0 without that line (the program stopped sandbox-init)
 * gets exit status 125 and says why. */
void sandbox_take_status(run_result *res);

#endif
