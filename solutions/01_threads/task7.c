/*
 * Room 01, task 7: SIMD, several numbers in one instruction.
 *
 * Two loops over arrays of doubles, each written plainly (as the compiler
 * compiles it by itself) and vectorised with OpenMP's simd directives:
 *
 *   TODO 1: one array scaled and added to another, element by element,
 *           vectorised (result add_wrong_elements: how many elements of the
 *           output differ from the plain loop's);
 *   TODO 2: the dot product of the two arrays, vectorised (result dot_simd);
 *   TODO 3: TODO 1's work again, shared out among a team of threads, each of
 *           which runs its share in vector lanes (result
 *           add_threads_wrong_elements).
 *
 * Each version runs its loop `reps` times per timing, over arrays small enough
 * to stay in the cache, and is timed against its plain loop.  The results are
 * checked, not the speed: whether the compiler really vectorised your loops, its
 * vectorisation report tells you (README, "Reading the compiler's report").
 *
 * Read first: README.md, "OpenMP: fork-join with pragmas", "Reductions", "SIMD: one instruction, several numbers".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task7 task7.c -lm -pthread -fopenmp
 *   ./task7 threads=2 n=2001
 * Grade it from the top folder:  make grade TASK=01_threads/task7
 */
#include "pr.h"

#include <omp.h>

/* The plain versions: the reference results and the baseline times.  z may
 * overlap x or y as far as the compiler knows, and a sum must be added in
 * order, so at -O2 it leaves both loops scalar. */
static void add_scaled_plain(double *z, const double *x, const double *y, double a, long n)
{
    for (long i = 0; i < n; i++)
        z[i] = a * x[i] + y[i];
}

static double dot_plain(const double *x, const double *y, long n)
{
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += x[i] * y[i];
    return sum;
}

static void add_scaled_simd(double *z, const double *x, const double *y, double a, long n)
{
    //@ TODO 1: The plain loop's work, vectorised: tell the compiler that no
    //@         iteration depends on another (here the output never overlaps
    //@         the inputs), so that it runs several iterations in the lanes of
    //@         one vector instruction, with no check at run time.  Every
    //@         element must come out as the plain loop computes it.
    //@ placeholder: (void)z, (void)x, (void)y, (void)a, (void)n; /* TODO 1: the vectorised loop */
    //@ solution {
#pragma omp simd
    for (long i = 0; i < n; i++)
        z[i] = a * x[i] + y[i];
    //@ }
}

static double dot_simd(const double *x, const double *y, long n)
{
    //@ TODO 2: The plain dot product, vectorised on this one thread.  A sum
    //@         carries a dependence from one iteration to the next, which the
    //@         compiler will not reorder by itself: let each lane keep a
    //@         partial sum of its own, and have the lanes combined at the end.
    //@         The total may differ from the plain one in the last digits only.
    //@ placeholder: double sum = 0.0; /* TODO 2: replace with the vectorised loop */
    //@ placeholder: (void)x, (void)y, (void)n;
    //@ solution {
    double sum = 0.0;
#pragma omp simd reduction(+ : sum)
    for (long i = 0; i < n; i++)
        sum += x[i] * y[i];
    //@ }
    return sum;
}

static void add_scaled_threads_simd(double *z, const double *x, const double *y, double a, long n)
{
    //@ TODO 3: TODO 1's work with both kinds of parallelism: the iterations
    //@         shared out among a team of threads, and each thread's share run
    //@         in vector lanes.  One directive asks for both.  Every element
    //@         must again come out as the plain loop computes it.
    //@ placeholder: (void)z, (void)x, (void)y, (void)a, (void)n; /* TODO 3: the loop on threads and lanes */
    //@ solution {
#pragma omp parallel for simd
    for (long i = 0; i < n; i++)
        z[i] = a * x[i] + y[i];
    //@ }
}

/* ---- no need to change below ---- */

/* One version, run `reps` times per timing.  volatile: every repetition really
 * reads the arrays' addresses and length again, so the optimiser cannot run
 * the loop once and skip the other repetitions. */
typedef struct {
    const double *volatile x, *volatile y;
    double *volatile z;
    volatile long n;
    double a;
    long reps;
    volatile double dot;
} run_t;

static void run_add_plain(void *ctx)
{
    run_t *r = ctx;
    for (long k = 0; k < r->reps; k++)
        add_scaled_plain(r->z, r->x, r->y, r->a, r->n);
}

static void run_add_simd(void *ctx)
{
    run_t *r = ctx;
    for (long k = 0; k < r->reps; k++)
        add_scaled_simd(r->z, r->x, r->y, r->a, r->n);
}

static void run_dot_plain(void *ctx)
{
    run_t *r = ctx;
    for (long k = 0; k < r->reps; k++)
        r->dot = dot_plain(r->x, r->y, r->n);
}

static void run_dot_simd(void *ctx)
{
    run_t *r = ctx;
    for (long k = 0; k < r->reps; k++)
        r->dot = dot_simd(r->x, r->y, r->n);
}

static void run_add_threads_simd(void *ctx)
{
    run_t *r = ctx;
    for (long k = 0; k < r->reps; k++)
        add_scaled_threads_simd(r->z, r->x, r->y, r->a, r->n);
}

/* How many elements of z differ from the plain loop's.  Element by element a
 * vectorised loop does the plain loop's arithmetic, so they agree to the last
 * bit (1e-12 only allows for a compiler that fuses a*x + y into one
 * instruction in one version and not in the other). */
static long wrong_elements(const double *z, const double *z_plain, long n)
{
    long wrong = 0;
    for (long i = 0; i < n; i++)
        if (!pr_close_enough(z[i], z_plain[i], 1e-12))
            wrong++;
    return wrong;
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 2001, 1, 1000000);
    long reps = (long)pr_arg_long(argc, argv, "reps", 20000, 1, 1000000);
    int threads = (int)pr_arg_long(argc, argv, "threads", omp_get_num_procs(), 1, 64);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    omp_set_dynamic(0);
    omp_set_num_threads(threads);

    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *z_plain = malloc((size_t)n * sizeof *z_plain), *z_simd = malloc((size_t)n * sizeof *z_simd);
    double *z_threads = malloc((size_t)n * sizeof *z_threads);
    if (!x || !y || !z_plain || !z_simd || !z_threads) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    /* Every element in [0.5, 1.5): every product is positive, so no sum of
     * them cancels, which keeps the rounding of any order of addition tiny. */
    pr_rng rng = pr_rng_seed(seed, 7);
    for (long i = 0; i < n; i++) {
        x[i] = pr_rng_double(&rng, 0.5, 1.5);
        y[i] = pr_rng_double(&rng, 0.5, 1.5);
        z_plain[i] = z_simd[i] = z_threads[i] = 0.0;
    }
    const double a = 0.75;

    printf("task7: z = a*x + y and the dot product x.y, n=%ld doubles (%.0f KiB per array), "
           "%ld repetitions per timing, threads=%d (seed %llu)\n",
           n, (double)n * sizeof(double) / 1024.0, reps, threads, (unsigned long long)seed);

    run_t add_plain = { x, y, z_plain, n, a, reps, 0.0 }, add_simd = { x, y, z_simd, n, a, reps, 0.0 };
    run_t add_threads = { x, y, z_threads, n, a, reps, 0.0 };
    run_t dot_p = { x, y, NULL, n, a, reps, 0.0 }, dot_s = dot_p;
    double t_add_plain = pr_best_of(3, run_add_plain, &add_plain);
    double t_add_simd = pr_best_of(3, run_add_simd, &add_simd);
    double t_add_threads = pr_best_of(3, run_add_threads_simd, &add_threads);
    double t_dot_plain = pr_best_of(3, run_dot_plain, &dot_p);
    double t_dot_simd = pr_best_of(3, run_dot_simd, &dot_s);

    long wrong = wrong_elements(z_simd, z_plain, n), wrong_threads = wrong_elements(z_threads, z_plain, n);
    /* A vectorised sum adds in another order than the plain loop (lane by
     * lane, then the lanes together).  With positive terms every order lands
     * within n * 2^-53 of the exact sum, relative: about 1.1e-10 for the
     * largest n, and far less in practice.  1e-9 accepts every honest order and
     * still rejects a lost or doubled term (each is over 1/(9n) of the sum). */
    const double tol = 1e-9;
    pr_check_int("add simd: elements wrong", wrong, 0);
    pr_check_int("add threads+simd: wrong", wrong_threads, 0);
    pr_check_double("dot product simd", dot_s.dot, dot_p.dot, tol);
    pr_result_int("add_wrong_elements", wrong);
    pr_result_int("add_threads_wrong_elements", wrong_threads);
    pr_result_double("dot_simd", dot_s.dot, tol);

    pr_print_time("add plain", t_add_plain, 0, NULL);
    pr_print_time("add simd", t_add_simd, t_add_plain, "plain");
    pr_print_time("add threads+simd", t_add_threads, t_add_plain, "plain");
    pr_print_time("dot plain", t_dot_plain, 0, NULL);
    pr_print_time("dot simd", t_dot_simd, t_dot_plain, "plain");

    free(x);
    free(y);
    free(z_plain);
    free(z_simd);
    free(z_threads);
    return pr_finish();
}
