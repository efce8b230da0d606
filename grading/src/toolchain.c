/* toolchain.c -- see toolchain.h. */
#define _GNU_SOURCE
#include "toolchain.h"
#include "policy.h"
#include "runner.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const default_cflags = "-std=c11 -O2 -g -Wall -Wextra";
/* nvcc's -arch when CUDA_ARCH is unset: the GPU of this machine */
static const char *const default_cuda_arch = "native";

const char *run_mode_name(run_mode mode)
{
    return mode == MODE_SIM ? "sim" : "native";
}

static char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return xstrdup(v && *v ? v : fallback);
}

/* The path of program `name` (looked up in PATH unless it has a slash) in buf;
 * 1 when it is an executable file. */
static int find_program(const char *name, char *buf, size_t size)
{
    if (!name || !*name)
        return 0;
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 && snprintf(buf, size, "%s", name) < (int)size;
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char *copy = xstrdup(path);
    int found = 0;
    for (char *dir = strtok(copy, ":"); dir && !found; dir = strtok(NULL, ":")) {
        char *candidate = xasprintf("%s/%s", *dir ? dir : ".", name);
        found = access(candidate, X_OK) == 0 && snprintf(buf, size, "%s", candidate) < (int)size;
        free(candidate);
    }
    free(copy);
    return found;
}

int program_exists(const char *name)
{
    char path[4096];
    return find_program(name, path, sizeof path);
}

char *program_output(char *const argv[])
{
    if (!program_exists(argv[0]))
        return NULL;
    run_request req = { .argv = argv, .timeout = 10.0, .kill_grace = POLICY_KILL_GRACE, .output_cap = 64 * 1024 };
    run_result res;
    run_process(&req, &res);
    char *out = NULL;
    if (res.outcome == RUN_EXITED && res.exit_code == 0)
        out = xstrdup(res.out);
    run_result_free(&res);
    return out;
}

char *toolchain_check_hosts(void)
{
    const char *hosts = getenv("GRADE_HOSTS"), *file = getenv("GRADE_HOSTFILE");
    int have_hosts = hosts && *hosts, have_file = file && *file;
    if (have_hosts && have_file)
        return xstrdup("HOSTS and HOSTFILE: give one of them, not both");
    if (have_file && access(file, R_OK) != 0)
        return xasprintf("HOSTFILE=%s: no such readable file (one host name per line)", file);
    if (have_hosts) {
        /* Host names, addresses and Open MPI's name:slots, separated by commas. */
        for (const char *c = hosts; *c; c++)
            if (!(isalnum((unsigned char)*c) || strchr(".-_:,", *c)))
                return xasprintf("HOSTS=%s: a comma-separated list of host names, like HOSTS=node1,node2", hosts);
        if (hosts[0] == ',' || strstr(hosts, ",,") || hosts[strlen(hosts) - 1] == ',')
            return xasprintf("HOSTS=%s: an empty host name in the list", hosts);
    }
    const launcher *chosen = launcher_from_environment(getenv("MPIEXEC"));
    if ((have_hosts || have_file) && chosen && chosen->no_hosts)
        return xstrdup(chosen->no_hosts);
    return NULL;
}

/* The MPI's flavour and version, and the launcher that starts its ranks: the one the
 * environment chose (toolchain_detect), else the MPI's own mpiexec's row. */
static void detect_mpi(toolchain *tc)
{
    tc->have_mpi = program_exists(tc->mpicc) && program_exists(tc->mpiexec);
    if (!tc->have_mpi) {
        tc->mpi_version = xstrdup("none");
        return;
    }
    /* The flavour from mpiexec, also when another launcher (srun) starts the ranks: then
     * from the mpiexec that belongs to MPICC (mpicc.openmpi: mpiexec.openmpi, as Debian and
     * Ubuntu name them side by side), or the one on PATH. */
    const launcher *chosen = tc->launcher;
    char *asked = chosen ? mpi_sibling(tc->mpicc, "mpiexec") : xstrdup(tc->mpiexec);
    char *argv[] = { asked, "--version", NULL };
    char *text = program_output(argv);
    free(asked);
    const launcher *own = launcher_from_version(text);
    tc->launcher_recognised = own != NULL;
    tc->mpi_version = own ? own->version(text) : xstrdup("unknown MPI");
    free(text);
    if (!own)
        own = &launchers[0]; /* an MPI that names no row: launched as the first row's */
    if (chosen && chosen->pmi_for)
        tc->pmi = chosen->pmi_for(own->pmi);
    if (!chosen)
        tc->launcher = own;
    char *with = NULL;
    if (chosen)
        with = xasprintf("%s, launched by %s", tc->mpi_version, chosen->name);
    else if (tc->hosts)
        with = xasprintf("%s, on hosts %s", tc->mpi_version, tc->hosts);
    else if (tc->hostfile)
        with = xasprintf("%s, on the hosts in %s", tc->mpi_version, tc->hostfile);
    if (with) {
        free(tc->mpi_version);
        tc->mpi_version = with;
    }
}

static void detect_gpu(toolchain *tc)
{
    char *argv[] = { "nvidia-smi", "--query-gpu=name", "--format=csv,noheader", NULL };
    char *text = program_output(argv);
    if (text && *text) {
        size_t n = strcspn(text, "\n");
        if (n > 0) {
            tc->gpu_name = xstrndup(text, n);
            tc->have_gpu = 1;
        }
    }
    free(text);
}

int toolchain_ask_cuda_aware(const toolchain *tc)
{
    if (!tc->have_mpi)
        return -1;
    const char *tmp = getenv("TMPDIR");
    char *dir = xasprintf("%s/grade-aware.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        free(dir);
        return -1;
    }
    /* grading/tools/probe-cuda-aware.c; make doctor runs the same probe */
    char *src = xasprintf("%s/tools/probe-cuda-aware.c", tc->grading_dir), *exe = xasprintf("%s/aware", dir);
    char *inc = xasprintf("-I%s", tc->include_dir);
    int answer = -1;
    if (file_exists(src)) {
        char *build[] = { tc->mpicc, inc, "-o", exe, src, NULL };
        run_request breq = { .argv = build, .cwd = dir, .timeout = 60.0, .kill_grace = POLICY_KILL_GRACE,
                             .output_cap = 64 * 1024 };
        run_result bres;
        run_process(&breq, &bres);
        int built = bres.outcome == RUN_EXITED && bres.exit_code == 0;
        run_result_free(&bres);
        if (built) {
            /* launched as an MPI task with one rank is (mpiexec or srun, flags, hosts) */
            task_meta probe_task = { .kind = "mpi", .kind_entry = kind_lookup("mpi") };
            run_config one = { 0 };
            strlist argv = { 0 }, env = { 0 };
            launch_command(tc, &probe_task, &one, exe, &argv, &env);
            run_request req = { .argv = sl_argv(&argv), .env_extra = env.count ? sl_argv(&env) : NULL,
                                .cwd = dir, .timeout = 30.0, .kill_grace = POLICY_KILL_GRACE, .output_cap = 64 * 1024 };
            run_result res;
            run_process(&req, &res);
            const char *line = res.outcome == RUN_EXITED && res.exit_code == 0 ? strstr(res.out, "cuda_aware=") : NULL;
            if (line && (line[11] == '0' || line[11] == '1'))
                answer = line[11] - '0';
            run_result_free(&res);
            sl_free(&argv);
            sl_free(&env);
        }
    }
    remove_tree(dir);
    free(src), free(exe), free(inc), free(dir);
    return answer;
}

/* How device pointers reach MPI in the runs of room 05 and 06 (pr.h's pr_mpi_gpu_path, as
 * the programs will decide it): on a GPU, the MPI itself where it is CUDA-aware, else
 * pr_mpi_gpu.h's staging layer, which the grader turns on (PR_MPI_STAGE=1) unless the user
 * set PR_MPI_STAGE=0; in the simulator its stand-in, on unless PR_MPI_STAGE=0.
 * PR_CUDA_AWARE=0 keeps device pointers away from MPI everywhere. */
void toolchain_decide_mpi_gpu_path(toolchain *tc)
{
    const char *stage = getenv("PR_MPI_STAGE"), *aware = getenv("PR_CUDA_AWARE");
    int stage_off = stage && strcmp(stage, "0") == 0;
    tc->mpi_stage = 0;
    if (aware && strcmp(aware, "0") == 0)
        tc->mpi_gpu_path = "none";
    else if (!(tc->have_gpu && !tc->force_sim))
        tc->mpi_gpu_path = tc->simcc && !stage_off ? "simulator" : "none";
    else if (tc->cuda_aware == 1)
        tc->mpi_gpu_path = "cuda-aware";
    else if (stage_off)
        tc->mpi_gpu_path = "none";
    else {
        tc->mpi_stage = !(stage && strcmp(stage, "1") == 0); /* already in the environment otherwise */
        tc->mpi_gpu_path = "staging-layer";
    }
}

char *mpi_sibling(const char *mpicc, const char *tool)
{
    const char *slash = strrchr(mpicc, '/');
    const char *base = slash ? slash + 1 : mpicc;
    if (strncmp(base, "mpicc", 5) == 0) {
        char *sibling = xasprintf("%.*s%s%s", (int)(base - mpicc), mpicc, tool, base + 5);
        if (program_exists(sibling))
            return sibling;
        free(sibling);
    }
    return xstrdup(tool);
}

void toolchain_detect(toolchain *tc, const char *root)
{
    memset(tc, 0, sizeof *tc);
    tc->cc = env_or("CC", "cc");
    tc->mpicc = env_or("MPICC", "mpicc");
    const char *mpicxx = getenv("MPICXX");
    tc->mpicxx = mpicxx && *mpicxx ? xstrdup(mpicxx) : mpi_sibling(tc->mpicc, "mpicxx");
    const char *mpiexec = getenv("MPIEXEC");
    /* A launcher the environment chooses (srun in a Slurm allocation; MPIEXEC=srun is the
     * same as unset there): detect_mpi keeps it; else it picks the MPI's own mpiexec's row. */
    tc->launcher = launcher_from_environment(mpiexec);
    if (mpiexec && *mpiexec)
        tc->mpiexec = xstrdup(mpiexec);
    else
        tc->mpiexec = tc->launcher ? xstrdup(tc->launcher->program) : mpi_sibling(tc->mpicc, "mpiexec");
    const char *hosts = getenv("GRADE_HOSTS"), *hostfile = getenv("GRADE_HOSTFILE");
    tc->hosts = hosts && *hosts ? xstrdup(hosts) : NULL;
    tc->hostfile = hostfile && *hostfile ? xstrdup(hostfile) : NULL;
    tc->nvcc = env_or("NVCC", "nvcc");
    tc->cuda_arch = env_or("CUDA_ARCH", default_cuda_arch);
    const char *cflags = getenv("GRADE_CFLAGS");
    sl_split_words(&tc->cflags, cflags && *cflags ? cflags : default_cflags);
    sl_split_words(&tc->mpiexec_flags, getenv("MPIEXEC_FLAGS"));
    /* pr.h travels with the grader (grading/bin/grade -> grading/include/pr.h), so a
     * workbook given with --root (a test fixture) needs no copy of it. */
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        for (int up = 0; up < 2; up++) {
            char *slash = strrchr(self, '/');
            if (slash)
                *slash = '\0';
        }
        char *header = xasprintf("%s/include/pr.h", self);
        if (file_exists(header))
            tc->grading_dir = xstrdup(self);
        free(header);
    }
    if (!tc->grading_dir)
        tc->grading_dir = xasprintf("%s/grading", root);
    tc->include_dir = xasprintf("%s/include", tc->grading_dir);
    tc->root = xstrdup(root);
    char *simcc = xasprintf("%s/sim/simcc", tc->grading_dir);
    if (access(simcc, X_OK) == 0)
        tc->simcc = simcc;
    else
        free(simcc);
    const char *cuda_mode = getenv("GRADE_CUDA");
    tc->force_sim = cuda_mode && strcmp(cuda_mode, run_mode_name(MODE_SIM)) == 0;
    const char *racecheck = getenv("GRADE_RACECHECK");
    tc->racecheck_asked = racecheck && strcmp(racecheck, "1") == 0;
    tc->have_cc = program_exists(tc->cc);
    tc->have_nvcc = program_exists(tc->nvcc);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    tc->cores = cores > 0 ? (int)cores : 1;
    detect_mpi(tc);
    detect_gpu(tc);
    tc->cuda_aware = tc->have_gpu && !tc->force_sim && tc->have_mpi ? toolchain_ask_cuda_aware(tc) : 0;
    toolchain_decide_mpi_gpu_path(tc);
}

void toolchain_free(toolchain *tc)
{
    free(tc->cc), free(tc->mpicc), free(tc->mpicxx), free(tc->mpiexec), free(tc->nvcc), free(tc->cuda_arch);
    free(tc->include_dir), free(tc->grading_dir), free(tc->root), free(tc->mpi_version), free(tc->gpu_name), free(tc->simcc);
    free(tc->hosts), free(tc->hostfile), free(tc->pmi);
    sl_free(&tc->cflags);
    sl_free(&tc->mpiexec_flags);
}

static int kind_has(const task_meta *task, unsigned flags)
{
    return (task_kind(task)->flags & flags) != 0;
}

int task_uses_cuda(const task_meta *task)
{
    return kind_has(task, KIND_CUDA);
}

int task_uses_launcher(const task_meta *task)
{
    return kind_has(task, KIND_MPI);
}

char *toolchain_skip_reason(const toolchain *tc, const task_meta *task, int *needs_gpu)
{
    const kind_info *kind = task_kind(task);
    *needs_gpu = 0;
    if ((kind->flags & KIND_MPI) && !tc->have_mpi)
        return xasprintf("no MPI here (%s / %s not found): `make deps` installs MPICH", tc->mpicc,
                         tc->mpiexec);
    if ((kind->flags & KIND_MPI_CXX_HOST) && !program_exists(tc->mpicxx))
        return xasprintf("no MPI C++ compiler wrapper (%s not found; set MPICXX): CUDA code with MPI is "
                         "built with it as nvcc's host compiler", tc->mpicxx);
    if (!(kind->flags & KIND_CUDA) || toolchain_mode(tc, task) == MODE_SIM)
        return NULL;
    if (tc->have_gpu && tc->have_nvcc)
        return NULL;
    const char *missing = tc->have_gpu ? "nvcc not found" : "no GPU found";
    *needs_gpu = 1;
    if (!(kind->flags & KIND_SIMULABLE))
        return xasprintf("needs an NVIDIA GPU and nvcc (%s): the CPU simulator does not do %s", missing,
                         kind->sim_lacks ? kind->sim_lacks : kind->name);
    return xasprintf("needs an NVIDIA GPU and nvcc (%s), or the CPU simulator (grading/sim/simcc, not found)",
                     missing);
}

run_mode toolchain_mode(const toolchain *tc, const task_meta *task)
{
    if (kind_has(task, KIND_SIMULABLE) && tc->simcc && (tc->force_sim || !(tc->have_gpu && tc->have_nvcc)))
        return MODE_SIM;
    return MODE_NATIVE;
}

/* Is the library of a -lNAME word installed?  An optional library (NCCL, say)
 * is left out of the link where it is missing: the task finds its header
 * missing too (__has_include) and says SKIP for that part.  Looked for where the
 * C compiler looks (gcc -print-file-name) and in the CUDA toolkit beside nvcc.
 * Anything other than -lNAME is always kept. */
static int library_found(const toolchain *tc, const char *word)
{
    if (strncmp(word, "-l", 2) != 0 || !word[2])
        return 1;
    char *file = xasprintf("lib%s.so", word + 2);
    char *flag = xasprintf("-print-file-name=%s", file);
    char *argv[] = { tc->cc, flag, NULL };
    char *where = program_output(argv);
    int found = where && where[0] == '/';
    free(where);
    free(flag);
    char nvcc_path[4096];
    if (!found && find_program(tc->nvcc, nvcc_path, sizeof nvcc_path)) {
        static const char *const dirs[] = { "../lib64", "../lib", "../targets/x86_64-linux/lib",
                                            "../targets/sbsa-linux/lib" };
        char *slash = strrchr(nvcc_path, '/');
        if (slash)
            *slash = '\0';
        for (size_t d = 0; d < sizeof dirs / sizeof dirs[0] && !found; d++) {
            char *candidate = xasprintf("%s/%s/%s", nvcc_path, dirs[d], file);
            found = file_exists(candidate);
            free(candidate);
        }
    }
    free(file);
    return found;
}

/* Is a -lNAME word one the CUDA simulator stands in for?  NCCL (grading/sim/nccl.h, on
 * MPI) and cuBLAS (grading/sim/cublas_v2.h): simcc accepts both.  Others (-lcufft ...) it
 * refuses, so they are left out. */
static int simulator_offers(const char *word)
{
    return strcmp(word, "-lnccl") == 0 || strcmp(word, "-lcublas") == 0;
}

int toolchain_profiles(const toolchain *tc, const task_meta *task)
{
    return toolchain_mode(tc, task) == MODE_SIM && task->method && strcmp(task->method, "gpu") == 0;
}

void build_command(const toolchain *tc, const task_meta *task, const char *source, const char *exe,
                   strlist *argv)
{
    const kind_info *kind = task_kind(task);
    run_mode mode = toolchain_mode(tc, task);
    if (mode == MODE_SIM) {
        sl_push(argv, tc->simcc);
        sl_push(argv, "-O2");
        /* (one process only: under MPICH a program built with it crashed at exit) */
        if (tc->racecheck && !(kind->flags & KIND_MPI))
            sl_push(argv, "--racecheck");
        else if (toolchain_profiles(tc, task)) {
            sl_push(argv, "--profile");
            sl_push(argv, "--no-occupancy"); /* the grader reads the memory counts only */
        }
    } else if (kind->flags & KIND_CUDA) {
        sl_push(argv, tc->nvcc);
        sl_push(argv, "-O2");
        sl_push_owned(argv, xasprintf("-arch=%s", tc->cuda_arch));
        if (tc->werror)
            sl_push(argv, "-Werror=all-warnings");
    } else {
        sl_push(argv, kind->flags & KIND_MPI ? tc->mpicc : tc->cc);
        for (int i = 0; i < tc->cflags.count; i++)
            sl_push(argv, tc->cflags.items[i]);
        if (tc->werror)
            sl_push(argv, "-Werror");
    }
    if (kind->flags & KIND_MPI_CXX_HOST) {
        /* MPI's wrapper as the host compiler: it knows mpi.h and the MPI libraries. */
        sl_push(argv, "-ccbin");
        sl_push(argv, tc->mpicxx);
    }
    sl_push_owned(argv, xasprintf("-I%s", tc->include_dir));
    if (tc->root && task->room)
        sl_push_owned(argv, xasprintf("-I%s/%s", tc->root, task->room));
    sl_push(argv, "-o");
    sl_push(argv, exe);
    sl_push(argv, source);
    if (kind->flags & KIND_OPENMP) {
        /* nvcc hands it to the host compiler, which compiles and links the host code;
         * simcc takes -fopenmp itself */
        if (mode == MODE_NATIVE && (kind->flags & KIND_CUDA))
            sl_push(argv, "-Xcompiler");
        sl_push(argv, "-fopenmp");
    }
    if (kind->flags & KIND_PTHREAD)
        sl_push(argv, "-pthread");
    if (kind->libs)
        sl_split_words(argv, kind->libs);
    /* Native builds: the libraries that are installed.  Simulated builds: only those the
     * simulator offers (cuBLAS: grading/sim/cublas_v2.h; NCCL: nccl.h); the task leaves
     * out the parts that need the others (CUDA_SIM guards them). */
    if (task->libs) {
        strlist libs = { 0 };
        sl_split_words(&libs, task->libs);
        for (int i = 0; i < libs.count; i++)
            if (mode == MODE_SIM ? simulator_offers(libs.items[i]) : library_found(tc, libs.items[i]))
                sl_push(argv, libs.items[i]);
        sl_free(&libs);
    }
    sl_push(argv, "-lm");
}

static void launcher_prefix_preload(const toolchain *tc, const char *ranks, const char *preload, strlist *argv,
                                    strlist *env)
{
    const launcher *l = tc->launcher ? tc->launcher : &launchers[0];
    launch_request req = { .program = tc->mpiexec, .ranks = ranks ? ranks : "1", .hosts = tc->hosts,
                           .hostfile = tc->hostfile, .flags = &tc->mpiexec_flags, .pmi = tc->pmi,
                           .preload = preload };
    l->command(&req, argv, env);
}

void launcher_prefix(const toolchain *tc, const char *ranks, strlist *argv, strlist *env)
{
    launcher_prefix_preload(tc, ranks, NULL, argv, env);
}

int mpi_layer_applies(const toolchain *tc)
{
    /* (an MPIEXEC the grader does not recognise may not take -genv or -x) */
    return tc->launcher && tc->launcher_recognised && !tc->launcher->chosen_by_environment && !tc->hosts &&
           !tc->hostfile;
}

void launch_command(const toolchain *tc, const task_meta *task, const run_config *cfg, const char *exe,
                    strlist *argv, strlist *env)
{
    launch_command_layer(tc, task, cfg, exe, NULL, argv, env);
}

void launch_command_layer(const toolchain *tc, const task_meta *task, const run_config *cfg, const char *exe,
                          const char *layer, strlist *argv, strlist *env)
{
    if (task_uses_launcher(task))
        launcher_prefix_preload(tc, config_get(cfg, "ranks"), layer, argv, env);
    sl_push(argv, exe);
    for (int i = 0; i < cfg->nkeys; i++)
        if (strcmp(cfg->keys[i], "ranks") != 0)
            sl_push_owned(argv, xasprintf("%s=%s", cfg->keys[i], cfg->values[i]));
    const char *threads = config_get(cfg, "threads");
    if (threads)
        sl_push_owned(env, xasprintf("OMP_NUM_THREADS=%s", threads));
    /* natively on a GPU whose MPI is not CUDA-aware: pr_mpi_gpu.h's staging layer */
    if (tc->mpi_stage && (task_kind(task)->flags & KIND_CUDA_AWARE))
        sl_push(env, "PR_MPI_STAGE=1");
}
