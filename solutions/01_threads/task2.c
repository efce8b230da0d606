/*
 * Room 01, task 2: a parallel sum with OpenMP.
 *
 * Add up 0.001 * i for i = 0, 1, ..., n-1, twice:
 *
 *   TODO 1: the way you would write it in real code: one OpenMP loop whose
 *           threads cannot lose each other's additions (result sum_reduction);
 *   TODO 2: by hand, to see what OpenMP did for you in TODO 1: the same total,
 *           without letting OpenMP combine it (result sum_by_hand).
 *
 * The exact answer is 0.001 * n(n-1)/2.  Floating-point addition is not
 * associative, so a parallel sum, which adds in a different order, may differ
 * from the serial one in the last few digits: that is why the results are
 * compared with a small relative tolerance instead of exactly.
 *
 * Read first: README.md, "OpenMP: fork-join with pragmas", "Reductions", "Race conditions and three fixes", "Reductions by hand".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task2 task2.c -lm -pthread -fopenmp
 *   ./task2 threads=4 n=1000000
 * Grade it from the top folder:  make grade TASK=01_threads/task2
 */
#include "pr.h"

#include <omp.h>

/* The serial version: the reference result and the baseline time. */
static double sum_serial(long n)
{
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += 0.001 * (double)i;
    return sum;
}

static double sum_reduction(long n)
{
    //@ TODO 1: Compute the serial version's total with a team of threads.
    //@         Every thread adds into the one accumulator, which is a race
    //@         unless OpenMP knows how the threads' contributions combine: tell
    //@         it, so that no addition is lost and none is counted twice.
    //@ placeholder: double sum = 0.0; /* TODO 1: replace with the parallel loop */
    //@ placeholder: (void)n;          /* (only silences an "unused" warning) */
    //@ solution {
    double sum = 0.0;
#pragma omp parallel for reduction(+ : sum)
    for (long i = 0; i < n; i++)
        sum += 0.001 * (double)i;
    //@ }
    return sum;
}

static double sum_by_hand(long n)
{
    //@ TODO 2: The same total, but this time you build the reduction
    //@         yourself: no reduction clause.  Each thread adds up its share of
    //@         the terms where no other thread can touch it, then contributes
    //@         that subtotal to the shared result exactly once, in a way that
    //@         cannot lose another thread's contribution.  How many protected
    //@         updates does your version make in all?
    //@ placeholder: double sum = 0.0; /* TODO 2: replace with the hand-made reduction */
    //@ placeholder: (void)n;          /* (only silences an "unused" warning) */
    //@ solution {
    double sum = 0.0;
#pragma omp parallel
    {
        double partial = 0.0; // declared inside the region: one per thread
#pragma omp for
        for (long i = 0; i < n; i++)
            partial += 0.001 * (double)i;
#pragma omp atomic
        sum += partial; // once per thread, so the cost of atomic hardly matters
    }
    //@ }
    return sum;
}

/* ---- no need to change below ---- */

/* volatile: every timed run really reads n and really stores its sum, so the
 * optimiser cannot merge the runs into one and leave the timer timing nothing. */
typedef struct {
    volatile long n;
    volatile double sum;
} run_t;

static void run_serial(void *ctx)
{
    run_t *r = ctx;
    r->sum = sum_serial(r->n);
}

static void run_reduction(void *ctx)
{
    run_t *r = ctx;
    r->sum = sum_reduction(r->n);
}

static void run_by_hand(void *ctx)
{
    run_t *r = ctx;
    r->sum = sum_by_hand(r->n);
}

int main(int argc, char **argv)
{
    long n = (long)pr_arg_long(argc, argv, "n", 50000000, 10, 200000000);
    int threads = (int)pr_arg_long(argc, argv, "threads", omp_get_num_procs(), 1, 64);
    pr_args_done(argc, argv);
    omp_set_dynamic(0);
    omp_set_num_threads(threads);

    printf("task2: sum of 0.001*i for i in [0, %ld) with threads=%d\n", n, threads);

    /* Exact in integers (n(n-1)/2 < 2^63 for n <= 2e8), rounded once. */
    long long tri = (long long)n * (n - 1) / 2;
    double exact = 0.001 * (double)tri;

    run_t serial = { .n = n }, red = { .n = n }, hand = { .n = n };
    double t_serial = pr_best_of(3, run_serial, &serial);
    double t_reduction = pr_best_of(3, run_reduction, &red);
    double t_by_hand = pr_best_of(3, run_by_hand, &hand);

    /* Each addition rounds off less than 1e-16 of the running sum, so adding
     * in another order moves the total by far less than 1e-9 of itself (in
     * practice about 1e-13): 1e-9 relative accepts every honest order of
     * additions and still rejects every wrong answer. */
    const double tol = 1e-9;
    printf("  serial sum                   %.17g (exact %.17g)\n", serial.sum, exact);
    pr_check_double("sum with reduction", red.sum, exact, tol);
    pr_check_double("sum by hand", hand.sum, exact, tol);
    pr_result_double("sum_reduction", red.sum, tol);
    pr_result_double("sum_by_hand", hand.sum, tol);

    pr_print_time("serial", t_serial, 0, NULL);
    pr_print_time("reduction", t_reduction, t_serial, "serial");
    pr_print_time("by hand", t_by_hand, t_serial, "serial");
    return pr_finish();
}
