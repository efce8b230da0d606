/*
 * Room 01, task 5: a work queue with a mutex and a condition variable.
 *
 * The main thread puts item numbers 0, 1, ..., items-1 into a queue; `threads`
 * worker threads take them out and process them until the queue is empty and
 * closed.  Two kinds of work go through it, each timed against doing the items
 * one by one: I/O-bound items (each sleeps, like a disk or network wait) and
 * CPU-bound items (each computes and never waits).
 *
 *   TODO 1: adding to the queue, safely while workers take from it, and
 *           without leaving a waiting worker asleep;
 *   TODO 2: taking from the queue: wait as long as there is nothing to take
 *           but more may still come; then take the oldest waiting entry, or
 *           report that the queue is finished.
 * Every result line (io_... and cpu_...) depends on both.
 *
 * Read first: README.md, "A work queue: mutex and condition variable", "I/O-bound and CPU-bound work".
 *
 * Build and run by hand, from the room's folder:
 *   gcc -std=c11 -O2 -Wall -Wextra -I../grading/include -o task5 task5.c -lm -pthread -fopenmp
 *   ./task5 threads=8 items=64
 * Grade it from the top folder:  make grade TASK=01_threads/task5
 */
#include "pr.h"

#include <pthread.h>
#include <unistd.h>

#define MAX_THREADS 64

/* A queue of item numbers.  It is unbounded in the sense that matters here:
 * `items` has room for every item that will ever be pushed, so a push never
 * has to wait for space.  All fields are protected by `lock`. */
typedef struct {
    long *items;              /* items[head .. tail-1] are waiting */
    long capacity;            /* room for this many pushes in all */
    long head, tail;          /* next to pop, next free slot */
    int closed;               /* 1 once no more items will be pushed */
    pthread_mutex_t lock;     /* protects everything above */
    pthread_cond_t not_empty; /* signalled when an item arrives or the queue closes */
} queue_t;

/* Adds `item` at the tail of the queue and wakes one worker that may be
 * waiting for work. */
static void queue_push(queue_t *q, long item)
{
    //@ TODO 1: Append the new entry at the back of the queue.  The queue's
    //@         fields may change only while its mutex is held, and a worker
    //@         asleep on the condition variable must learn that there is
    //@         work.  How many sleepers need waking for one new entry?
    //@ placeholder: (void)q;    /* TODO 1: append, safely */
    //@ placeholder: (void)item;
    //@ solution {
    pthread_mutex_lock(&q->lock);
    if (q->tail == q->capacity) { // cannot happen in this program: a safety net
        fprintf(stderr, "queue_push: queue full\n");
        exit(1);
    }
    q->items[q->tail++] = item;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
    //@ }
}

/* Takes the item at the head of the queue into *item and returns 1.  When the
 * queue is empty it waits, until an item arrives (take it) or the queue is
 * closed: then it returns 0, which tells the worker to stop. */
static int queue_pop(queue_t *q, long *item)
{
    //@ TODO 2: Hand out the entry at the front of the queue, sleeping on the
    //@         condition variable (not spinning) while the queue is empty and
    //@         still open.  Return 1 with an entry, or 0 when the queue is both
    //@         empty and closed.  A wakeup does not promise that there is an
    //@         entry, and every way out of this function must release the mutex.
    //@ placeholder: (void)q;    /* TODO 2: take the front entry, or report closed */
    //@ placeholder: (void)item;
    //@ placeholder: return 0;   /* "closed": for now the workers stop at once */
    //@ solution {
    pthread_mutex_lock(&q->lock);
    while (q->head == q->tail && !q->closed)
        pthread_cond_wait(&q->not_empty, &q->lock);
    if (q->head == q->tail) { // empty, so it must be closed: no more work
        pthread_mutex_unlock(&q->lock);
        return 0;
    }
    *item = q->items[q->head++];
    pthread_mutex_unlock(&q->lock);
    return 1;
    //@ }
}

/* ---- no need to change below ---- */

/* Marks the queue closed and wakes every waiting worker (broadcast: all of
 * them must see it), so that each can find the queue empty and stop. */
static void queue_close(queue_t *q)
{
    pthread_mutex_lock(&q->lock);
    q->closed = 1;
    pthread_cond_broadcast(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
}

static void queue_init(queue_t *q, long capacity)
{
    /* Empty and open: head = tail = 0, closed = 0. */
    *q = (queue_t){ .items = malloc((size_t)capacity * sizeof *q->items), .capacity = capacity };
    if (!q->items) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->not_empty, NULL);
}

static void queue_destroy(queue_t *q)
{
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->not_empty);
    free(q->items);
}

/* The two kinds of work.  Each item's output depends only on the seed and the
 * item number, never on which thread ran it or when. */
enum kind { IO_BOUND, CPU_BOUND };

typedef struct {
    enum kind kind;
    long items, sleep_ms, spin;
    uint64_t seed;
    uint32_t *output; /* output[i]: item i's result */
    char *done;       /* done[i]: 1 once item i has been processed */
} job_t;

static uint32_t process_item(const job_t *job, long i)
{
    pr_rng rng = pr_rng_seed(job->seed, 1000 + (uint64_t)i);
    uint64_t h = pr_rng_next(&rng);
    if (job->kind == IO_BOUND) {
        /* A wait for a disk or a network: the thread sleeps, its core is free. */
        struct timespec ts = { job->sleep_ms / 1000, (job->sleep_ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            continue;
    } else {
        /* Pure computation: keeps a core busy the whole time. */
        for (long k = 0; k < job->spin; k++) {
            h = h * 6364136223846793005ULL + 1442695040888963407ULL;
            h ^= h >> 29;
        }
    }
    return (uint32_t)(h >> 32);
}

static void record(const job_t *job, long i)
{
    job->output[i] = process_item(job, i); /* one writer per index: no race */
    job->done[i] = 1;
}

typedef struct {
    queue_t *q;
    const job_t *job;
} worker_arg_t;

/* Every worker: pop an item, process it, repeat until the queue says closed. */
static void *worker(void *arg)
{
    worker_arg_t *w = arg;
    long item;
    while (queue_pop(w->q, &item))
        record(w->job, item);
    return NULL;
}

/* Starts the workers, pushes every item, closes the queue, waits for them. */
static void run_pool(const job_t *job, int threads)
{
    queue_t q;
    queue_init(&q, job->items);
    worker_arg_t arg = { &q, job };
    pthread_t tid[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        int err = pthread_create(&tid[t], NULL, worker, &arg);
        if (err != 0) {
            fprintf(stderr, "pthread_create: %s\n", strerror(err));
            exit(1);
        }
    }
    for (long i = 0; i < job->items; i++)
        queue_push(&q, i);
    queue_close(&q);
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    queue_destroy(&q);
}

/* For pr_best_of: clears the outputs, then runs serially (threads 0) or on the pool. */
typedef struct {
    const job_t *job;
    int threads;
} run_t;

static void run_one(void *ctx)
{
    run_t *r = ctx;
    memset(r->job->output, 0, (size_t)r->job->items * sizeof *r->job->output);
    memset(r->job->done, 0, (size_t)r->job->items);
    if (r->threads > 0)
        run_pool(r->job, r->threads);
    else /* one by one */
        for (long i = 0; i < r->job->items; i++)
            record(r->job, i);
}

/* Sleeping work is timed once (nothing to warm up, and sleeping more often only
 * makes the program slower); computing work gets a warm-up and the best of 3. */
static double time_run(run_t *r)
{
    if (r->job->kind == CPU_BOUND)
        return pr_best_of(3, run_one, r);
    double start = pr_now();
    run_one(r);
    return pr_now() - start;
}

/* Items done, and the sum of their outputs: neither depends on the order. */
static void tally(const job_t *job, long long *done, long long *sum)
{
    *done = *sum = 0;
    for (long i = 0; i < job->items; i++)
        if (job->done[i]) {
            (*done)++;
            *sum += job->output[i];
        }
}

/* Runs one kind of work serially and with the pool, checks and reports it. */
static void compare(job_t *job, int threads, const char *label, const char *prefix)
{
    run_t serial = { job, 0 }, pool = { job, threads };
    long long exp_done, exp_sum, done, sum;
    double t_serial = time_run(&serial);
    tally(job, &exp_done, &exp_sum);
    double t_pool = time_run(&pool);
    tally(job, &done, &sum);

    char what[64];
    printf("  %s:\n", label);
    snprintf(what, sizeof what, "%s items done", prefix);
    pr_check_int(what, done, exp_done);
    snprintf(what, sizeof what, "%s checksum", prefix);
    pr_check_int(what, sum, exp_sum);
    snprintf(what, sizeof what, "%s_items_done", prefix);
    pr_result_int(what, done);
    snprintf(what, sizeof what, "%s_checksum", prefix);
    pr_result_int(what, sum);
    pr_print_time("one by one", t_serial, 0, NULL);
    snprintf(what, sizeof what, "%d worker%s", threads, threads == 1 ? "" : "s");
    pr_print_time(what, t_pool, t_serial, "one by one");
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    int threads = (int)pr_arg_long(argc, argv, "threads", 8, 1, MAX_THREADS);
    long items = (long)pr_arg_long(argc, argv, "items", 64, 1, 100000);
    long sleep_ms = (long)pr_arg_long(argc, argv, "sleep_ms", 5, 0, 1000);
    long spin = (long)pr_arg_long(argc, argv, "spin", 200000, 0, 100000000);
    uint64_t seed = (uint64_t)pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);

    uint32_t *output = malloc((size_t)items * sizeof *output);
    char *done = malloc((size_t)items);
    if (!output || !done) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    printf("task5: a work queue, %ld items, threads=%d, on %ld core%s (seed %llu)\n", items,
           threads, cores, cores == 1 ? "" : "s", (unsigned long long)seed);

    job_t io = { IO_BOUND, items, sleep_ms, spin, seed, output, done };
    compare(&io, threads, "I/O-bound items (each sleeps)", "io");
    long waiting = threads < items ? (long)threads : items;
    printf("    A sleeping thread needs no core, so up to %ld item%s can wait at the same time:\n"
           "    expect up to about %ldx faster, even on one core.\n",
           waiting, waiting == 1 ? "" : "s", waiting);

    job_t cpu = { CPU_BOUND, items, sleep_ms, spin, seed, output, done };
    compare(&cpu, threads, "CPU-bound items (each computes the whole time)", "cpu");
    long running = threads < cores ? (long)threads : cores;
    printf("    A computing thread needs a core the whole time.  With %d thread%s on %ld core%s,\n"
           "    at most %ld can run at once, so expect at most about %ldx faster;\n"
           "    more threads than cores only take turns.\n",
           threads, threads == 1 ? "" : "s", cores, cores == 1 ? "" : "s", running, running);

    free(output);
    free(done);
    return pr_finish();
}
