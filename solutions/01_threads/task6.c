/*
 * Room 01, task 6: bug hunt -- statistics of exam scores with pthreads.
 *
 * The program summarises n exam scores (integers from 0 to 100, drawn
 * from a seed): how many there are, their total and mean, the lowest and the
 * highest, and how many fall in each of ten bands (0-9, 10-19, ..., 90-100).
 * Several POSIX threads share the work: each one summarises its own share of
 * the scores, then folds that summary into one shared summary, under a mutex.
 *
 * It checks itself against a serial pass over the same scores: every figure
 * must match exactly, and the bands together must hold every score.  Each
 * figure is printed beside the expected one (the bands as a table), and the
 * program exits non-zero when one is wrong.
 *
 * There is no TODO here.  The program is complete and compiles without a
 * warning, but it has ONE bug that makes it fail grading.  Find it, explain
 * it, and fix it with the smallest change you can.
 *
 * Read first: README.md, "pthreads: create, join and chunks", "Race conditions and three fixes", "Reductions by hand", "Task 6: bug hunt, exam statistics".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task6 task6.c -lm -pthread -fopenmp
 *   ./task6 threads=4 n=1000003
 * Grade it from the top folder:  make grade TASK=01_threads/task6
 */
#include "pr.h"

#include <pthread.h>
#include <unistd.h>

#define MAX_THREADS 64
#define BANDS 10 /* 0-9, 10-19, ..., 80-89, and 90-100 */

/* A summary of some scores. */
typedef struct {
    long long count;      /* how many scores */
    long long total;      /* their sum */
    int lowest, highest;  /* the smallest and largest score seen */
    long long band[BANDS]; /* band[b]: how many scores fall in band b */
} summary_t;

/* The summary of no scores at all. */
static void summary_clear(summary_t *s)
{
    s->count = 0;
    s->total = 0;
    s->lowest = 101; /* above any score, so the first one replaces it */
    s->highest = -1; /* below any score */
    for (int b = 0; b < BANDS; b++)
        s->band[b] = 0;
}

static int band_of(int score)
{
    return score >= 100 ? BANDS - 1 : score / 10; /* 100 joins the 90s */
}

/* Adds one score to a summary. */
static void summary_add(summary_t *s, int score)
{
    s->count++;
    s->total += score;
    if (score < s->lowest)
        s->lowest = score;
    if (score > s->highest)
        s->highest = score;
    s->band[band_of(score)]++;
}

/* Folds the summary `part` into `whole`: afterwards `whole` summarises the
 * scores of both. */
static void summary_fold(summary_t *whole, const summary_t *part)
{
    whole->count += part->count;
    whole->total += part->total;
    if (part->lowest < whole->lowest)
        whole->lowest = part->lowest;
    if (part->highest > whole->highest)
        whole->highest = part->highest;
    for (int b = 0; b < BANDS; b++) {
        //@ bug: whole->band[b] = part->band[b];
        //@ solution {
        /* (The bug hunt's bug: each fold replaced the counts, so the last thread to fold won.
         * With one thread its fold is the whole answer, so the runs leave out threads=1.) */
        whole->band[b] += part->band[b];
        //@ }
    }
}

/* What one thread needs: the scores, which of them are its own, and where
 * the shared summary and its mutex are. */
typedef struct {
    const int *score;
    long n;
    int id, threads; /* this thread takes the scores id, id + threads, ... */
    summary_t *shared;
    pthread_mutex_t *lock;
} share_t;

/* The body of every thread: summarise its own scores privately (no locking
 * needed), then fold that summary into the shared one, once, under the lock. */
static void *summarise_share(void *arg)
{
    const share_t *sh = arg;
    summary_t mine;
    summary_clear(&mine);
    for (long i = sh->id; i < sh->n; i += sh->threads)
        summary_add(&mine, sh->score[i]);

    pthread_mutex_lock(sh->lock);
    summary_fold(sh->shared, &mine);
    pthread_mutex_unlock(sh->lock);
    return NULL;
}

/* Summarises score[0..n-1] into *result with `threads` threads. */
static void parallel_summary(const int *score, long n, int threads, summary_t *result)
{
    pthread_t tid[MAX_THREADS];
    share_t share[MAX_THREADS];
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

    summary_clear(result);
    for (int t = 0; t < threads; t++) {
        share[t] = (share_t){ score, n, t, threads, result, &lock };
        int err = pthread_create(&tid[t], NULL, summarise_share, &share[t]);
        if (err != 0) {
            fprintf(stderr, "pthread_create: %s\n", strerror(err));
            exit(1);
        }
    }
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&lock);
}

/* The serial version: the reference result and the baseline time. */
static void serial_summary(const int *score, long n, summary_t *result)
{
    summary_clear(result);
    for (long i = 0; i < n; i++)
        summary_add(result, score[i]);
}

typedef struct {
    const int *score;
    long n;
    int threads; /* 0: serial */
    summary_t result;
} run_t;

static void run_one(void *ctx)
{
    run_t *r = ctx;
    if (r->threads == 0)
        serial_summary(r->score, r->n, &r->result);
    else
        parallel_summary(r->score, r->n, r->threads, &r->result);
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long default_threads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : cores;
    long n = (long)pr_arg_long(argc, argv, "n", 5000000, 1, 50000000);
    int threads = (int)pr_arg_long(argc, argv, "threads", default_threads, 1, MAX_THREADS);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    int *score = malloc((size_t)n * sizeof *score);
    if (!score) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    /* Scores bunch around 65, as exam scores do: the mean of three draws. */
    pr_rng rng = pr_rng_seed(seed, 6);
    for (long i = 0; i < n; i++)
        score[i] = (int)((pr_rng_range(&rng, 20, 100) + pr_rng_range(&rng, 30, 100) +
                          pr_rng_range(&rng, 40, 100)) / 3);

    printf("task6: statistics of n=%ld exam scores with threads=%d (seed %llu)\n", n, threads,
           (unsigned long long)seed);

    run_t serial = { .score = score, .n = n, .threads = 0 };
    double t_serial = pr_best_of(3, run_one, &serial);
    run_t par = { .score = score, .n = n, .threads = threads };
    double t_parallel = pr_best_of(3, run_one, &par);
    const summary_t *got = &par.result, *want = &serial.result;

    /* The bands, for people to look at. */
    long long band_sum = 0, bands_wrong = 0;
    printf("  band      got        expected\n");
    for (int b = 0; b < BANDS; b++) {
        int ok = got->band[b] == want->band[b];
        printf("  %3d-%-3d %10lld  %10lld  %s\n", 10 * b, b == BANDS - 1 ? 100 : 10 * b + 9,
               got->band[b], want->band[b], ok ? "" : "WRONG");
        band_sum += got->band[b];
        if (!ok)
            bands_wrong++;
    }
    printf("  mean score %.3f (expected %.3f)\n",
           got->count > 0 ? (double)got->total / (double)got->count : 0.0,
           want->count > 0 ? (double)want->total / (double)want->count : 0.0);

    pr_check_int("scores counted", got->count, want->count);
    pr_check_int("total of the scores", got->total, want->total);
    pr_check_int("lowest score", got->lowest, want->lowest);
    pr_check_int("highest score", got->highest, want->highest);
    pr_check_int("scores in the bands", band_sum, n);
    pr_check_int("bands wrong", bands_wrong, 0);
    pr_result_int("count", got->count);
    pr_result_int("total", got->total);
    pr_result_int("lowest", got->lowest);
    pr_result_int("highest", got->highest);
    pr_result_int("scores_in_bands", band_sum);
    pr_result_int("bands_wrong", bands_wrong);

    pr_print_time("serial", t_serial, 0, NULL);
    pr_print_time("pthreads", t_parallel, t_serial, "serial");

    free(score);
    return pr_finish();
}
