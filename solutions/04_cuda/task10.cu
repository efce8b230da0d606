/*
 * Room 04, task 10 (stretch): mixed precision.  Half inputs, float sums, and
 * a gradient scaled so that it survives the trip through half.
 *
 * Part 1.  y = W*x, with W (m x k) and x stored in __half (FP16) and y in float.
 * The program runs it twice.  A given kernel keeps everything in half, the
 * running sum too; it runs on the first few rows, to show what that costs.
 * Your kernel keeps the inputs in half and decides how to sum:
 *
 *   TODO 1: every entry of y within a relative 1e-4 of the exact sum of the
 *           same half inputs (computed on the host in double).
 *
 * Part 2.  A gradient of n floats, most of them far below 1e-4, is stored in half
 * and read back as float, first with no scale, then with a scale:
 *
 *   TODO 2: the trip through half: scale, convert, read back, unscale;
 *   TODO 3: the scale itself.
 *
 * Read first: further.md, "Mixed precision: half inputs, float sums" (and its
 * parts on the formats, on sums in half, and on loss scaling).
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O2 -arch=native -I../grading/include -o task10 task10.cu
 *   anywhere:  ../grading/sim/simcc -O2 -I../grading/include -o task10 task10.cu
 *   ./task10 m=4096 k=4096 n=1000000
 * Grade it from the top folder:  make grade TASK=04_cuda/task10
 */
#include "pr.h"

#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define TOL 1e-4       /* the relative error an entry of y may have */
#define HALF_ROWS 32   /* the rows the all-half kernel computes: enough to see it */
#define HALF_MAX 65504 /* the largest finite __half */

/* W is stored column by column: entry (i, j) is Wt[j * m + i], so the threads of a
 * warp, a row each, read neighbouring halves at every step. */
__global__ void matvec_all_half(const __half *Wt, const __half *x, float *y, int m, int rows, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    __half acc = __float2half(0.0f);
    for (int j = 0; j < k; j++)
        acc = __hfma(Wt[(long)j * m + i], x[j], acc); /* product and sum rounded to half */
    y[i] = __half2float(acc);
}

/* One thread per row; launched with at least m threads. */
__global__ void matvec_mixed(const __half *Wt, const __half *x, float *y, int m, int k)
{
    //@ TODO 1: Compute every entry of y, the product of its row of W with x, from
    //@         the same half inputs.  Decide in which type the running sum lives,
    //@         and where each value leaves half, so that every entry stays within
    //@         a relative 1e-4 of the exact sum (the all-half kernel above does
    //@         not).  The layout is the all-half kernel's.  Result lines rows_off
    //@         (must be 0) and y_checksum.
    //@ placeholder: (void)Wt; (void)x; (void)y; (void)m; (void)k; /* TODO 1 */
    //@ solution {
    long row = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m)
        return;
    float sum = 0.0f; /* the products and the sum in float; only the inputs are half */
    for (int j = 0; j < k; j++)
        sum += __half2float(Wt[(long)j * m + row]) * __half2float(x[j]);
    y[row] = sum;
    //@ }
}

/* back[i]: g[i] after a trip through half with the given scale. */
__global__ void through_half(const float *g, float scale, __half *gh, float *back, long n)
{
    //@ TODO 2: Store each gradient value in gh as a half, multiplied by the
    //@         scale, and write into back the value that this half gives back as
    //@         a float, with the scale taken out again.  Must hold: with the
    //@         scale of TODO 3, a value too small for half on its own still comes
    //@         back nonzero and close to g[i].  back was zeroed before the launch.
    //@ placeholder: (void)g; (void)scale; (void)gh; (void)back; (void)n; /* TODO 2 */
    //@ solution {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x; /* the value this thread carries */
    if (i < n) {
        gh[i] = __float2half_rn(g[i] * scale); /* scaled before it is rounded to half */
        back[i] = __half2float(gh[i]) / scale; /* unscaled in float, where it fits */
    }
    //@ }
}

/* The scale for a gradient whose largest magnitude is gmax (> 0). */
static float choose_scale(float gmax)
{
    //@ TODO 3: Return the scale: a power of two, so that scaling and unscaling
    //@         are exact, and the largest one that keeps gmax times it at most
    //@         HALF_MAX, so that no value overflows while the small ones move as
    //@         far as they can from zero.  Result lines underflow_scaled,
    //@         overflow_scaled and imprecise_scaled (all must be 0).
    //@ placeholder: (void)gmax; return 1.0f; /* TODO 3 */
    //@ solution {
    float scale = 1.0f;
    while (gmax * scale > HALF_MAX) /* too large even unscaled: shrink */
        scale *= 0.5f;
    while (gmax * (2.0f * scale) <= HALF_MAX) /* room for one more doubling */
        scale *= 2.0f;
    return scale;
    //@ }
}

/* ---- no need to change below ---- */

/* The trip through half at a scale, and what it did to the gradient. */
typedef struct {
    long underflow; /* nonzero values that came back as 0 */
    long overflow;  /* values that came back infinite or NaN */
    long imprecise; /* values off by more than half's rounding (2^-11 relative) */
} trip_counts;

static trip_counts trip(const float *dg, __half *dgh, float *dback, float *back, const float *g, long n, float scale,
                        int tpb)
{
    CHECK(cudaMemset(dback, 0, n * sizeof(float)));
    through_half<<<(unsigned)((n + tpb - 1) / tpb), tpb>>>(dg, scale, dgh, dback, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(back, dback, n * sizeof(float), cudaMemcpyDeviceToHost));
    trip_counts c = { 0, 0, 0 };
    for (long i = 0; i < n; i++) {
        double want = g[i], got = back[i];
        if (!isfinite(got))
            c.overflow++;
        else if (got == 0 && want != 0)
            c.underflow++;
        else if (fabs(got - want) > ldexp(fabs(want), -11))
            c.imprecise++;
    }
    return c;
}

/* Rows whose sum is off by more than TOL relative; *worst gets the largest error. */
static long rows_off(const float *y, const double *exact, int rows, double *worst)
{
    long off = 0;
    *worst = 0;
    for (int i = 0; i < rows; i++) {
        double err = fabs(y[i] - exact[i]) / fmax(fabs(exact[i]), 1e-30);
        off += err > TOL;
        *worst = fmax(*worst, err);
    }
    return off;
}

int main(int argc, char **argv)
{
    int m = (int)pr_arg_long(argc, argv, "m", 4096, 1, 65536);
    int k = (int)pr_arg_long(argc, argv, "k", 4096, 1, 65536);
    long n = (long)pr_arg_long(argc, argv, "n", 1000000, 1, 1L << 26);
    int tpb = (int)pr_arg_long(argc, argv, "tpb", 256, 32, 1024);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    if ((long)m * k > (1L << 28)) {
        fprintf(stderr, "%s: bad arguments m=%d k=%d: m*k must be at most 268435456\n", pr_program_name(argv[0]), m, k);
        return 2;
    }
    printf("task10: y = W*x (W %dx%d in half), a gradient of %ld values through half, tpb=%d\n", m, k, n, tpb);

    /* Part 1: W and x in [0, 1), rounded to half; the exact sums of those halves */
    long sw = (long)m * k;
    int rows = m < HALF_ROWS ? m : HALF_ROWS;
    __half *Wt = (__half *)malloc(sw * sizeof(__half)), *x = (__half *)malloc(k * sizeof(__half));
    float *yh = (float *)malloc(rows * sizeof(float)), *y = (float *)malloc(m * sizeof(float));
    double *exact = (double *)calloc(m, sizeof(double));
    if (!Wt || !x || !yh || !y || !exact) {
        fprintf(stderr, "task10: out of memory\n");
        return 1;
    }
    pr_rng rng = pr_rng_seed((uint64_t)seed, 0);
    for (long e = 0; e < sw; e++)
        Wt[e] = __float2half((float)pr_rng_double(&rng, 0, 1));
    for (int j = 0; j < k; j++)
        x[j] = __float2half((float)pr_rng_double(&rng, 0, 1));
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++)
            exact[i] += (double)__half2float(Wt[(long)j * m + i]) * __half2float(x[j]);

    __half *dWt, *dx;
    float *dyh, *dy;
    CHECK(cudaMalloc(&dWt, sw * sizeof(__half)));
    CHECK(cudaMalloc(&dx, k * sizeof(__half)));
    CHECK(cudaMalloc(&dyh, rows * sizeof(float)));
    CHECK(cudaMalloc(&dy, m * sizeof(float)));
    CHECK(cudaMemcpy(dWt, Wt, sw * sizeof(__half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dx, x, k * sizeof(__half), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dy, 0, m * sizeof(float)));
    matvec_all_half<<<(rows + tpb - 1) / tpb, tpb>>>(dWt, dx, dyh, m, rows, k);
    CHECK(cudaGetLastError());
    matvec_mixed<<<(m + tpb - 1) / tpb, tpb>>>(dWt, dx, dy, m, k);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(yh, dyh, rows * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(y, dy, m * sizeof(float), cudaMemcpyDeviceToHost));

    double worst_half, worst_mixed, checksum = 0;
    long off_half = rows_off(yh, exact, rows, &worst_half);
    long off_mixed = rows_off(y, exact, m, &worst_mixed);
    for (int i = 0; i < m; i++)
        checksum += y[i];
    printf("  row 0: exact %.6f, all half %.6f, your kernel %.6f\n", exact[0], yh[0], y[0]);
    printf("  all half:    %ld of the first %d rows off by more than %g (worst %.2e)\n", off_half, rows, TOL,
           worst_half);
    printf("  your kernel: %ld of %d rows off by more than %g (worst %.2e)\n", off_mixed, m, TOL, worst_mixed);
    pr_check_int("y: rows off", off_mixed, 0);
    pr_result_int("rows_off", off_mixed);
    pr_result_double("y_checksum", checksum, 1e-5);

    /* Part 2: a gradient of either sign whose magnitudes span 28 powers of two, below
     * 2^top, top drawn from -20 .. -6 (half's smallest nonzero value is 2^-24, its
     * smallest full-precision one 2^-14) */
    float *g = (float *)malloc(n * sizeof(float)), *back = (float *)malloc(n * sizeof(float));
    if (!g || !back) {
        fprintf(stderr, "task10: out of memory\n");
        return 1;
    }
    float gmax = 0;
    long bf16_zero = 0;
    int top = (int)pr_rng_range(&rng, -20, -6);
    for (long i = 0; i < n; i++) {
        g[i] = (float)ldexp(pr_rng_double(&rng, 1, 2), top - 28 + (int)pr_rng_range(&rng, 0, 27));
        if (pr_rng_range(&rng, 0, 1))
            g[i] = -g[i];
        gmax = fmaxf(gmax, fabsf(g[i]));
        bf16_zero += __bfloat162float(__float2bfloat16(g[i])) == 0.0f;
    }
    float *dg, *dback;
    __half *dgh;
    CHECK(cudaMalloc(&dg, n * sizeof(float)));
    CHECK(cudaMalloc(&dgh, n * sizeof(__half)));
    CHECK(cudaMalloc(&dback, n * sizeof(float)));
    CHECK(cudaMemcpy(dg, g, n * sizeof(float), cudaMemcpyHostToDevice));
    float scale = choose_scale(gmax);
    trip_counts plain = trip(dg, dgh, dback, back, g, n, 1.0f, tpb);
    trip_counts scaled = trip(dg, dgh, dback, back, g, n, scale, tpb);
    printf("  gradient: largest |g| %.3e, scale %.6g (2^%d)\n", gmax, scale, (int)log2f(scale));
    printf("  no scale:   %ld of %ld values became 0, %ld lost precision, %ld overflowed\n", plain.underflow, n,
           plain.imprecise, plain.overflow);
    printf("  with scale: %ld became 0, %ld lost precision, %ld overflowed\n", scaled.underflow, scaled.imprecise,
           scaled.overflow);
    printf("  (in bfloat16, with no scale: %ld became 0: it has float's range)\n", bf16_zero);
    pr_check_int("gradient: underflows", scaled.underflow, 0);
    pr_check_int("gradient: overflows", scaled.overflow, 0);
    pr_check_int("gradient: imprecise", scaled.imprecise, 0);
    pr_result_int("underflow_unscaled", plain.underflow);
    pr_result_int("underflow_scaled", scaled.underflow);
    pr_result_int("overflow_scaled", scaled.overflow);
    pr_result_int("imprecise_scaled", scaled.imprecise);

    CHECK(cudaFree(dWt));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dyh));
    CHECK(cudaFree(dy));
    CHECK(cudaFree(dg));
    CHECK(cudaFree(dgh));
    CHECK(cudaFree(dback));
    free(Wt), free(x), free(yh), free(y), free(exact), free(g), free(back);
    return pr_finish();
}
