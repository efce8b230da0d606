/* sandbox.c -- bubblewrap around the learner's builds and runs (see sandbox.h). */
#define _GNU_SOURCE
#include "sandbox.h"

#include "policy.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The system's folders, bound read-only (or, where they are links into /usr, linked). */
static const char *const system_paths[] = { "/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib64", "/lib32",
                                            "/libx32", NULL };

/* The path of a program named as on a command line (found on PATH, links not resolved), or
 * NULL. */
static char *find_program(const char *name)
{
    if (!name || !*name)
        return NULL;
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    char *copy = xstrdup(path), *save = NULL, *found = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *candidate = xasprintf("%s/%s", *dir ? dir : ".", name);
        if (access(candidate, X_OK) == 0)
            found = candidate;
        else
            free(candidate);
    }
    free(copy);
    return found;
}

/* 1 when a is b or a folder above it ("/a" and "/a/b"), 0 otherwise. */
static int path_within(const char *inner, const char *outer)
{
    size_t n = strlen(outer);
    while (n > 1 && outer[n - 1] == '/')
        n--;
    return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

/* Adds dir to the folders bound read-only, unless the system's binds already hold it or it
 * would show the workbook (the solutions, the references) or a home folder: a folder that
 * holds the workbook, one inside it, and a home folder or one above it are never bound. */
static void add_extra(sandbox *sb, const toolchain *tc, const char *dir)
{
    char *real = realpath(dir, NULL);
    if (!real)
        return;
    const char *home = getenv("HOME");
    char *home_real = home && *home ? realpath(home, NULL) : NULL;
    int skip = strcmp(real, "/") == 0 || (tc->root && (path_within(real, tc->root) || path_within(tc->root, real))) ||
               (home_real && path_within(home_real, real)); /* a home folder, or one above it */
    free(home_real);
    for (int i = 0; !skip && system_paths[i]; i++)
        skip = path_within(real, system_paths[i]);
    for (int i = 0; !skip && i < sb->ro_extra.count; i++)
        skip = path_within(real, sb->ro_extra.items[i]);
    if (!skip)
        sl_push(&sb->ro_extra, real);
    free(real);
}

/* The tools' folders outside the system's (an MPI module in /apps/mpich/4.1: its bin/, and
 * lib/, include/, share/... beside it; a wrapper in ~/bin: ~/bin, and where its link
 * points), LD_LIBRARY_PATH's folders, and GRADE_SANDBOX_BIND's. */
static void find_extras(sandbox *sb, const toolchain *tc)
{
    const char *tools[] = { tc->cc, tc->mpicc, tc->mpicxx, tc->mpiexec, tc->nvcc };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        char *found = find_program(tools[i]);
        if (!found)
            continue;
        char *real = realpath(found, NULL);
        char *slash = strrchr(found, '/');
        if (slash && slash != found) {
            *slash = '\0';
            add_extra(sb, tc, found); /* the folder the tool was found in */
        }
        if (real && (slash = strrchr(real, '/')) != NULL && slash != real) {
            *slash = '\0';
            add_extra(sb, tc, real); /* where it really is */
            if ((slash = strrchr(real, '/')) != NULL && slash != real) {
                *slash = '\0'; /* its installation, bin/'s parent: what the tools there read */
                const char *parts[] = { "lib", "lib64", "libexec", "include", "share", "etc" };
                for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
                    char *part = xasprintf("%s/%s", real, parts[k]);
                    add_extra(sb, tc, part);
                    free(part);
                }
            }
        }
        free(found), free(real);
    }
    const char *lists[] = { getenv("LD_LIBRARY_PATH"), getenv("GRADE_SANDBOX_BIND") };
    for (size_t l = 0; l < 2; l++) {
        if (!lists[l])
            continue;
        char *copy = xstrdup(lists[l]), *save = NULL;
        for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
            if (*dir)
                add_extra(sb, tc, dir);
        free(copy);
    }
}

static void push2(strlist *l, const char *a, const char *b)
{
    sl_push(l, a);
    sl_push(l, b);
}

static void push3(strlist *l, const char *a, const char *b, const char *c)
{
    sl_push(l, a);
    sl_push(l, b);
    sl_push(l, c);
}

/* What the programs inside may read of the grader's environment: what compilers, MPI,
 * OpenMP, CUDA and the simulator read (names, and prefixes ending in '_'); nothing else
 * (an instructor's tokens, paths of the workbook). */
static const char *const env_names[] = { "PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH",
                                         "CPLUS_INCLUDE_PATH", "LANG", "LANGUAGE", "TZ", "CC", "CXX", "MPICC",
                                         "MPICXX", "NVCC", "CUDA_ARCH", "USER", "LOGNAME", NULL };
static const char *const env_prefixes[] = { "LC_", "OMP_", "GOMP_", "KMP_", "MPI", "OMPI_", "PMIX_", "PMI_",
                                            "HYDRA_", "I_MPI_", "UCX_", "FI_", "HWLOC_", "CUDA_", "NVIDIA_",
                                            "NCCL_", "SIMCC_", "PR_", NULL };

static int env_allowed(const char *entry)
{
    size_t n = strcspn(entry, "=");
    for (int i = 0; env_names[i]; i++)
        if (strlen(env_names[i]) == n && strncmp(entry, env_names[i], n) == 0)
            return 1;
    for (int i = 0; env_prefixes[i]; i++)
        if (strncmp(entry, env_prefixes[i], strlen(env_prefixes[i])) == 0)
            return 1;
    return 0;
}

static void push_setenv(strlist *out, const char *entry)
{
    size_t n = strcspn(entry, "=");
    if (entry[n] != '=')
        return;
    sl_push(out, "--setenv");
    sl_push_owned(out, xstrndup(entry, n));
    sl_push(out, entry + n + 1);
}

/* Files of /etc no build or run needs and none may read (bound read-only, /etc shows them to
 * a sandbox whose user is root outside): covered by an empty file or folder. */
static const char *const etc_secrets[] = { "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
                                           "/etc/sudoers", NULL };
static const char *const etc_secret_dirs[] = { "/etc/ssh", "/etc/sudoers.d", "/etc/ssl/private", NULL };

extern char **environ;

void sandbox_command(const sandbox *sb, const sandbox_view *view, const strlist *cmd, const strlist *env,
                     strlist *out)
{
    sl_push(out, sb->bwrap);
    if (sb->as_nobody) {
        sl_push(out, "--unshare-user");
        push2(out, "--uid", "65534");
        push2(out, "--gid", "65534");
    } else {
        push2(out, "--cap-drop", "ALL"); /* root without a user namespace: no capability left */
    }
    const char *unshare[] = { "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                              "--unshare-cgroup-try", "--die-with-parent", "--clearenv" };
    for (size_t i = 0; i < sizeof unshare / sizeof unshare[0]; i++)
        sl_push(out, unshare[i]);
    for (int i = 0; system_paths[i]; i++) {
        struct stat st;
        if (lstat(system_paths[i], &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlink(system_paths[i], target, sizeof target - 1);
            if (n > 0) {
                target[n] = '\0';
                push3(out, "--symlink", target, system_paths[i]);
            }
        } else if (S_ISDIR(st.st_mode)) {
            push3(out, "--ro-bind", system_paths[i], system_paths[i]);
        }
    }
    push3(out, "--ro-bind-try", "/sys", "/sys"); /* CPU topology (hwloc, OpenMP), the GPU's PCI data */
    for (int i = 0; i < sb->ro_extra.count; i++)
        push3(out, "--ro-bind-try", sb->ro_extra.items[i], sb->ro_extra.items[i]);
    for (int i = 0; etc_secrets[i]; i++)
        if (access(etc_secrets[i], F_OK) == 0)
            push3(out, "--ro-bind", "/dev/null", etc_secrets[i]);
    for (int i = 0; etc_secret_dirs[i]; i++)
        if (access(etc_secret_dirs[i], F_OK) == 0)
            push2(out, "--tmpfs", etc_secret_dirs[i]);
    /* the hidden folders, where a folder bound above holds them */
    for (int i = 0; i < sb->hide.count; i++) {
        int shown = 0;
        for (int k = 0; system_paths[k] && !shown; k++)
            shown = path_within(sb->hide.items[i], system_paths[k]);
        for (int k = 0; k < sb->ro_extra.count && !shown; k++)
            shown = path_within(sb->hide.items[i], sb->ro_extra.items[k]);
        struct stat hidden;
        if (shown && stat(sb->hide.items[i], &hidden) == 0 && !S_ISDIR(hidden.st_mode))
            push3(out, "--ro-bind", "/dev/null", sb->hide.items[i]); /* a file: an empty one over it */
        else if (shown)
            push2(out, "--tmpfs", sb->hide.items[i]);
    }
    push2(out, "--dev", "/dev");
    push2(out, "--proc", "/proc");
    if (sb->has_size)
        push2(out, "--size", SANDBOX_SPACE_TEXT);
    push2(out, "--tmpfs", "/tmp");
    if (sb->has_size) {
        push2(out, "--size", SANDBOX_SPACE_TEXT);
        push2(out, "--tmpfs", "/dev/shm");
    }
    if (view->gpu) {
        glob_t g;
        if (glob("/dev/nvidia*", 0, NULL, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc; i++)
                push3(out, "--dev-bind-try", g.gl_pathv[i], g.gl_pathv[i]);
            globfree(&g);
        }
        push3(out, "--ro-bind-try", "/proc/driver/nvidia", "/proc/driver/nvidia");
    }
    push3(out, "--ro-bind", sb->init, sb->init);
    for (int i = 0; i < view->ro.count; i++)
        push3(out, "--ro-bind", view->ro.items[i], view->ro.items[i]);
    for (int i = 0; i < view->rw.count; i++)
        push3(out, "--bind", view->rw.items[i], view->rw.items[i]);
    /* the working directory: a tmpfs of its own where bwrap can size one (a program that fills
     * it gets "No space left on device", and the disk that holds the grader's TMPDIR stays as
     * it was); else the scratch folder itself */
    if (view->cwd && sb->has_size) {
        push2(out, "--size", SANDBOX_SPACE_TEXT);
        push2(out, "--tmpfs", view->cwd);
    } else if (view->cwd)
        push3(out, "--bind", view->cwd, view->cwd);
    push2(out, "--remount-ro", "/");
    push2(out, "--chdir", view->cwd ? view->cwd : "/tmp");
    for (char **e = environ; e && *e; e++)
        if (env_allowed(*e))
            push_setenv(out, *e);
    for (int i = 0; env && i < env->count; i++)
        push_setenv(out, env->items[i]);
    push3(out, "--setenv", "HOME", "/tmp");
    push3(out, "--setenv", "TMPDIR", "/tmp");
    sl_push(out, "--");
    sl_push(out, sb->init);
    for (int i = 0; i < cmd->count; i++)
        sl_push(out, cmd->items[i]);
}

void sandbox_view_free(sandbox_view *view)
{
    sl_free(&view->ro);
    sl_free(&view->rw);
}

/* One sandboxed `true`: 1 when it ran, else 0 with *why (a new string: bwrap's first line). */
static int sandbox_works(const sandbox *sb, char **why)
{
    strlist cmd = { 0 }, argv = { 0 };
    sl_push(&cmd, "true");
    sandbox_view view = { 0 };
    sandbox_command(sb, &view, &cmd, NULL, &argv);
    run_request req = { .argv = sl_argv(&argv), .timeout = 20.0, .kill_grace = POLICY_KILL_GRACE,
                        .output_cap = 64 * 1024 };
    run_result res;
    run_process(&req, &res);
    int ok = res.outcome == RUN_EXITED && res.exit_code == 0;
    if (!ok) {
        char *line = first_lines(res.err_len ? res.err : res.out, 1, 200);
        line[strcspn(line, "\n")] = '\0';
        *why = res.outcome == RUN_EXITED ? xasprintf("bwrap cannot make a sandbox here: %s", *line ? line : "no reason given")
                                         : xasprintf("bwrap did not finish a test run (%s)", line);
        free(line);
    }
    run_result_free(&res);
    sl_free(&cmd), sl_free(&argv);
    return ok;
}

/* bwrap --version's line ("bubblewrap 0.8.0"), or NULL. */
static char *bwrap_version(const char *bwrap)
{
    char *argv[] = { (char *)bwrap, "--version", NULL };
    char *text = program_output(argv);
    if (!text)
        return NULL;
    text[strcspn(text, "\n")] = '\0';
    return text;
}

/* The CUDA probe: a kernel writes 32 numbers, the host reads them back; "cuda-probe ok", or
 * what failed, on stdout. */
static const char cuda_probe_source[] =
    "#include <cstdio>\n"
    "__global__ void fill(int *p) { p[threadIdx.x] = (int)threadIdx.x + 1; }\n"
    "int main() {\n"
    "    int *d = 0, h[32] = { 0 };\n"
    "    cudaError_t e = cudaMalloc(&d, sizeof h);\n"
    "    if (e == cudaSuccess) { fill<<<1, 32>>>(d); e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost); }\n"
    "    if (e != cudaSuccess) { printf(\"CUDA error: %s\\n\", cudaGetErrorString(e)); return 1; }\n"
    "    for (int i = 0; i < 32; i++)\n"
    "        if (h[i] != i + 1) { printf(\"the kernel's results are wrong\\n\"); return 1; }\n"
    "    printf(\"cuda-probe ok\\n\");\n"
    "    return 0;\n"
    "}\n";

/* Runs the probe program (inside the sandbox when sb, else as it is): 1 when it said "cuda-probe
 * ok", else 0 with *why (a new string: its first line, or how it ended). */
static int cuda_probe_runs(const sandbox *sb, const char *dir, const char *program, char **why)
{
    strlist cmd = { 0 }, argv = { 0 };
    sl_push(&cmd, program);
    sandbox_view view = { .gpu = 1 };
    if (sb) {
        sl_push(&view.ro, dir);
        sandbox_command(sb, &view, &cmd, NULL, &argv);
    }
    run_request req = { .argv = sl_argv(sb ? &argv : &cmd), .timeout = 60.0, .kill_grace = POLICY_KILL_GRACE,
                        .output_cap = 64 * 1024 };
    run_result res;
    run_process(&req, &res);
    if (sb)
        sandbox_take_status(&res);
    int ok = res.outcome == RUN_EXITED && res.exit_code == 0 && res.out && strstr(res.out, "cuda-probe ok");
    if (!ok) {
        char *line = first_lines(res.out_len ? res.out : res.err ? res.err : "", 1, 200);
        line[strcspn(line, "\n")] = '\0';
        char *how = res.outcome == RUN_EXITED && res.exit_code == 0 ? xstrdup("it ended without saying cuda-probe ok")
                                                                     : run_describe(&res, req.timeout);
        *why = xstrdup(*line ? line : how);
        free(line), free(how);
    }
    run_result_free(&res);
    sandbox_view_free(&view);
    sl_free(&cmd), sl_free(&argv);
    return ok;
}

/* On a machine with a GPU (CUDA tasks graded natively): whether a tiny CUDA program, built
 * here with the grader's nvcc, uses the GPU inside the sandbox.  When it does not, but does
 * outside, sb->cuda_outside says why (CUDA tasks' runs then go outside the sandbox).  The
 * probe's verdict, either way, into sb->cuda_probe. */
static void probe_cuda(sandbox *sb, const toolchain *tc)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = xasprintf("%s/pr-cuda-probe-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        sb->cuda_probe = xasprintf("not probed: cannot make %s", dir);
        free(dir);
        return;
    }
    char *source = xasprintf("%s/probe.cu", dir), *program = xasprintf("%s/probe", dir);
    char *arch = xasprintf("-arch=%s", tc->cuda_arch);
    char *build_argv[] = { tc->nvcc, arch, "-o", program, source, NULL };
    run_request req = { .argv = build_argv, .timeout = 180.0, .kill_grace = POLICY_KILL_GRACE,
                        .output_cap = 64 * 1024 };
    run_result res = { 0 };
    int built = write_file(source, cuda_probe_source, sizeof cuda_probe_source - 1) == 0;
    if (built) {
        run_process(&req, &res);
        built = res.outcome == RUN_EXITED && res.exit_code == 0 && access(program, X_OK) == 0;
    }
    char *inside = NULL, *outside = NULL;
    if (!built) {
        char *line = first_lines(res.err_len ? res.err : res.out ? res.out : "", 1, 200);
        line[strcspn(line, "\n")] = '\0';
        sb->cuda_probe = xasprintf("not probed: %s could not build a tiny CUDA program%s%s", tc->nvcc,
                                   *line ? ": " : "", line);
        free(line);
    } else if (cuda_probe_runs(sb, dir, program, &inside)) {
        sb->cuda_probe = xstrdup("a CUDA program runs inside it (probed)");
    } else if (cuda_probe_runs(NULL, dir, program, &outside)) {
        sb->cuda_outside = xasprintf("CUDA runs are not: a tiny CUDA program fails inside it (%s) and runs "
                                     "outside it, so CUDA tasks run outside",
                                     inside);
        sb->cuda_probe = xasprintf("a CUDA program fails inside it: %s", inside);
    } else {
        /* not the sandbox's doing: outside, the GPU fails the same way; the runs stay inside */
        sb->cuda_probe = xasprintf("a tiny CUDA program fails inside and outside it: %s", outside);
    }
    free(inside), free(outside);
    run_result_free(&res);
    remove_tree(dir);
    free(dir), free(source), free(program), free(arch);
}

int sandbox_setup(sandbox *sb, const toolchain *tc, char **error)
{
    memset(sb, 0, sizeof *sb);
    *error = NULL;
    const char *setting = getenv("GRADE_SANDBOX");
    if (!setting || !*setting || strcmp(setting, "auto") == 0)
        sb->asked = SANDBOX_AUTO;
    else if (strcmp(setting, "on") == 0)
        sb->asked = SANDBOX_ON;
    else if (strcmp(setting, "off") == 0)
        sb->asked = SANDBOX_OFF;
    else {
        *error = xasprintf("GRADE_SANDBOX=%s: must be auto, on or off (make grade SANDBOX=on|off)", setting);
        return -1;
    }
    if (sb->asked == SANDBOX_OFF) {
        sb->why_not = xstrdup("SANDBOX=off");
        return 0;
    }
    sb->init = xasprintf("%s/bin/sandbox-init", tc->grading_dir);
    sb->bwrap = find_program("bwrap");
    if (!sb->bwrap)
        sb->why_not = xstrdup("bwrap not found: make deps installs bubblewrap");
    else if (access(sb->init, X_OK) != 0)
        sb->why_not = xasprintf("%s not built: run make", sb->init);
    if (!sb->why_not) {
        find_extras(sb, tc);
        sb->version = bwrap_version(sb->bwrap);
        char *help_argv[] = { sb->bwrap, "--help", NULL };
        char *help = program_output(help_argv);
        sb->has_size = help && strstr(help, "--size") != NULL;
        free(help);
        if (tc->root)
            sandbox_hide(sb, tc->root);
        const char *hide = getenv("GRADE_SANDBOX_HIDE");
        if (hide) {
            char *copy = xstrdup(hide), *save = NULL;
            for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
                sandbox_hide(sb, dir);
            free(copy);
        }
        char *why_nobody = NULL, *why_root = NULL;
        sb->as_nobody = 1;
        if (sandbox_works(sb, &why_nobody)) {
            sb->active = 1;
        } else if (geteuid() == 0) {
            /* root where user namespaces are forbidden: a mount namespace, no capabilities */
            sb->as_nobody = 0;
            if (sandbox_works(sb, &why_root))
                sb->active = 1;
        }
        if (!sb->active)
            sb->why_not = xasprintf("%s (user namespaces may be off: see README.md, \"Grading in a sandbox\")",
                                    why_nobody);
        free(why_nobody), free(why_root);
    }
    if (sb->active && tc->launcher && strcmp(tc->launcher->name, "srun") == 0)
        sb->mpi_outside = xstrdup("MPI runs through srun are not: Slurm starts the ranks");
    else if (sb->active && (tc->hosts || tc->hostfile))
        sb->mpi_outside = xstrdup("MPI runs on other hosts are not: they need the network");
    /* GRADE_SANDBOX_CUDA_PROBE=0: not probed (CUDA runs inside, as before the probe) */
    const char *probe = getenv("GRADE_SANDBOX_CUDA_PROBE");
    if (sb->active && tc->have_gpu && !tc->force_sim && tc->have_nvcc && !(probe && strcmp(probe, "0") == 0))
        probe_cuda(sb, tc);
    if (sb->cuda_outside && sb->asked == SANDBOX_ON) {
        *error = xasprintf("SANDBOX=on, but %s (grade with SANDBOX=off, or fix the GPU's devices inside the "
                           "sandbox: see README.md, \"Grading in a sandbox\")",
                           sb->cuda_outside);
        return -1;
    }
    if (sb->mpi_outside && sb->asked == SANDBOX_ON) {
        *error = xasprintf("SANDBOX=on, but %s (grade it outside Slurm and without HOSTS, or with SANDBOX=auto)",
                           sb->mpi_outside);
        return -1;
    }
    if (!sb->active && sb->asked == SANDBOX_ON) {
        *error = xasprintf("SANDBOX=on, but no sandbox can be had here: %s", sb->why_not);
        return -1;
    }
    return 0;
}

void sandbox_free(sandbox *sb)
{
    free(sb->bwrap), free(sb->version), free(sb->init), free(sb->why_not), free(sb->mpi_outside);
    free(sb->cuda_outside), free(sb->cuda_probe);
    sl_free(&sb->ro_extra);
    sl_free(&sb->hide);
    memset(sb, 0, sizeof *sb);
}

void sandbox_hide(sandbox *sb, const char *path)
{
    char *real = path && *path ? realpath(path, NULL) : NULL;
    if (real && strcmp(real, "/") != 0)
        sl_push(&sb->hide, real);
    free(real);
}

const char *sandbox_describe(const sandbox *sb)
{
    static char text[400];
    if (sb->active)
        snprintf(text, sizeof text, "on (%s%s%s%s%s%s)", sb->version ? sb->version : "bwrap",
                 sb->as_nobody ? "" : ", as root without capabilities", sb->mpi_outside ? "; " : "",
                 sb->mpi_outside ? sb->mpi_outside : "", sb->cuda_outside ? "; " : "",
                 sb->cuda_outside ? sb->cuda_outside : "");
    else
        snprintf(text, sizeof text, "off (%s)", sb->why_not ? sb->why_not : "not asked for");
    return text;
}

/* The last line of text[0, len): its start, or NULL when text does not end with "\n". */
static char *last_line(char *text, size_t len)
{
    if (len == 0 || text[len - 1] != '\n')
        return NULL;
    char *start = text + len - 1;
    while (start > text && start[-1] != '\n')
        start--;
    return start;
}

void sandbox_take_status(run_result *res)
{
    char *line = res->err ? last_line(res->err, res->err_len) : NULL;
    int left = 0, sig = 0, used = 0;
    if (!line || sscanf(line, "pr-sandbox: left=%d signal=%d%n", &left, &sig, &used) != 2 || line[used] != '\n' ||
        left < 0 || sig < 0 || sig > 64) {
        /* no closing line: sandbox-init did not finish (killed at a timeout, or by the program) */
        if (res->outcome == RUN_EXITED && res->exit_code == 0) {
            res->exit_code = 125;
            free(res->err);
            res->err = xstrdup("the sandbox's closing line is missing: the program stopped the grader's "
                               "watch over it");
            res->err_len = strlen(res->err);
        }
        return;
    }
    res->leftovers += left;
    if (sig > 0 && res->outcome == RUN_EXITED) {
        res->outcome = RUN_SIGNALED;
        res->signal = sig;
    }
    /* the line, and the "\n" sandbox-init writes before it (the program's last line may lack one) */
    res->err_len = (size_t)(line - res->err);
    if (res->err_len > 0 && res->err[res->err_len - 1] == '\n')
        res->err_len--;
    res->err[res->err_len] = '\0';
}
