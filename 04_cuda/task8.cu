/*
 * Room 04, task 8 (stretch): the matmul ladder, step 2: a 2-D tile of C in each
 * thread's registers, with vectorised (float4) loads.
 *
 * C = A*B in float, every matrix stored row by row, as in tasks 3 and 7.  A block of
 * 256 threads computes a 128x128 tile of C; each thread an 8x8 patch of it, 64 sums
 * in registers.  Per step along k a thread reads 8 values of A and 8 of B from shared
 * memory and does 8 x 8 = 64 multiply-adds with them: each value read is used 8 times.
 *
 *   thread t: tr = t / 16, tc = t % 16.  Its 8 rows of the tile: tr*4 .. tr*4+3 and
 *   64 + tr*4 .. 64 + tr*4+3; its 8 columns: tc*4 .. tc*4+3 and 64 + tc*4 .. 64 + tc*4+3.
 *   acc[i][j] is the sum for its i-th row and j-th column, in that order (i, j < 4: the
 *   first group of four).  Four consecutive rows or columns are one float4 in shared
 *   memory; the two groups of four, 64 apart, keep a warp's reads free of bank conflicts.
 *
 *   A slice of the walk along k:  As[p][i] = A(row0 + i, k0 + p)   TRANSPOSED: a column
 *                                 Bs[p][j] = B(k0 + p, col0 + j)   of A's slice is a row
 *                                                                  of As, 4 of it one float4
 *
 *   TODO 1: load4: four consecutive values of a row, with one 16-byte load where
 *           allowed, one by one (zero outside the matrix) where not;
 *   TODO 2: stage_slices: a slice of A (transposed) and of B into shared memory;
 *   TODO 3: the slice's 8 x 8 x BK multiply-adds, from registers.
 *
 * Sizes need not be multiples of anything: where k (for A) or n (for B and C) is not a
 * multiple of 4, rows do not start on 16 bytes and every load is a single value.
 *
 * Read first: README.md, "Functions a kernel calls"; further.md, "Step 2: a 2-D tile
 * and 16-byte loads" (after what task 7 reads).
 *
 * cuBLAS runs in the same program, for comparison (the CPU simulator has it too,
 * computed on the CPU); tasks 3 and 7 at the same m, n, k give the rungs below.  All values are small integers:
 * every entry of every product must equal the CPU's.
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O3 -arch=native -Xcompiler -fopenmp -I../grading/include -o task8 task8.cu -lcublas
 *   anywhere:  ../grading/sim/simcc -O2 -fopenmp -I../grading/include -o task8 task8.cu -lcublas
 *   ./task8 m=4096 n=4096 k=4096          (in the simulator: m=130 n=100 k=36)
 * Grade it from the top folder:  make grade TASK=04_cuda/task8
 */
#include "pr.h"
#include "matmul_ladder.h" /* the CPU's product, the checks, the timing: no need to change */

#include <cuda_runtime.h>
#include <cublas_v2.h>

#define BM 128 /* rows of C per block */
#define BN 128 /* columns of C per block */
#define BK 8   /* the depth of a slice along k */
#define TM 8   /* rows of C per thread */
#define TN 8   /* columns of C per thread */
#define THREADS ((BM / TM) * (BN / TN)) /* 256 a block */
#define AS_PAD 4 /* As's rows padded: the transposed stores of a warp hit 32 banks, not 16 */

/* The four values M(r, c) .. M(r, c + 3) of the rows x cols matrix M (row-major), each 0
 * where it lies outside M.  c is a multiple of 4; M starts on 16 bytes (cudaMalloc). */
__device__ float4 load4(const float *M, int rows, int cols, int r, int c)
{
    // TODO 1: Return the four values.  Must hold: one 16-byte load (a float4) where
    //         that is allowed: all four inside M, and their address a multiple of 16
    //         bytes (think of where each row starts); otherwise one value at a time,
    //         never reading outside M, a value outside it being 0.
    (void)M; (void)rows; (void)cols; (void)r; (void)c; /* TODO 1 */
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

/* The slice at k0 of A (rows row0.., columns k0..k0+BK-1) into As, transposed, and of
 * B (rows k0..k0+BK-1, columns col0..) into Bs.  Thread t loads 4 values of each: A's
 * row row0 + ar, columns k0 + ac ..; B's row k0 + br, columns col0 + bc ... */
__device__ void stage_slices(const float *A, const float *B, float As[BK][BM + AS_PAD], float Bs[BK][BN], int m,
                             int n, int k, int row0, int col0, int k0)
{
    const int t = threadIdx.x;
    const int ar = t / 2, ac = (t % 2) * 4;   /* 128 rows x 8: 2 threads a row */
    const int br = t / 32, bc = (t % 32) * 4; /* 8 rows x 128: 32 threads a row */
    // TODO 2: Stage the thread's share of the slice, with load4: its four values of
    //         A into As, transposed (the layout is in the comment at the top); its
    //         four values of B into Bs, as they are, with one 16-byte store.
    (void)A; (void)B; (void)As; (void)Bs; (void)m; (void)n; (void)k; /* TODO 2 */
    (void)(row0 + col0 + k0 + ar + ac + br + bc);
}

/* C = A*B; A is m x k, B is k x n, C is m x n, row-major.  THREADS threads a block.
 * __restrict__: A, B and C do not overlap, so loads may go through the read-only cache. */
__global__ void __launch_bounds__(THREADS)
    matmul_regtile(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m, int n, int k)
{
    __shared__ __align__(16) float As[BK][BM + AS_PAD];
    __shared__ __align__(16) float Bs[BK][BN];
    const int tr = threadIdx.x / (BN / TN), tc = threadIdx.x % (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN]; /* 64 running sums: registers (the loops below are unrolled) */
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < k; k0 += BK) {
        stage_slices(A, B, As, Bs, m, n, k, row0, col0, k0);
        __syncthreads(); /* the slice is whole */
        // TODO 3: Add the slice's terms to the thread's 64 sums.  For each step p of
        //         the slice: first the thread's 8 values of A and its 8 values of B for
        //         that step into registers, each group of four read from shared memory
        //         as one float4; then the 64 multiply-adds, from those registers only.
        (void)tr; (void)tc; /* TODO 3 */
        __syncthreads(); /* everyone is done with the slice before the next is staged */
    }

    /* The 64 sums into C (given): four at a time with one 16-byte store where allowed. */
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int r = row0 + (i < 4 ? tr * 4 + i : BM / 2 + tr * 4 + i - 4);
#pragma unroll
        for (int j0 = 0; j0 < TN; j0 += 4) {
            const int c = col0 + (j0 < 4 ? tc * 4 : BN / 2 + tc * 4);
            if (r < m && c + 3 < n && n % 4 == 0) {
                *(float4 *)&C[(long)r * n + c] = make_float4(acc[i][j0], acc[i][j0 + 1], acc[i][j0 + 2], acc[i][j0 + 3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; j++)
                    if (r < m && c + j < n)
                        C[(long)r * n + c + j] = acc[i][j0 + j];
            }
        }
    }
}

/* ---- no need to change below ---- */

static void run_regtile(const float *A, const float *B, float *C, int m, int n, int k)
{
    dim3 grid((unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM));
    matmul_regtile<<<grid, THREADS>>>(A, B, C, m, n, k);
}

int main(int argc, char **argv)
{
    int m = (int)pr_arg_long(argc, argv, "m", 1024, 1, 8192);
    int n = (int)pr_arg_long(argc, argv, "n", 1024, 1, 8192);
    int k = (int)pr_arg_long(argc, argv, "k", 1024, 1, 8192);
    int reps = (int)pr_arg_long(argc, argv, "reps", 10, 1, 1000);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    printf("task8: C = A*B (%dx%d times %dx%d), an %dx%d tile a thread; 16-byte loads: A %s, B and C %s\n", m, k,
           k, n, TM, TN, k % 4 == 0 ? "yes" : "no (k % 4 != 0)", n % 4 == 0 ? "yes" : "no (n % 4 != 0)");

    return ladder_run("regtile", run_regtile, m, n, k, reps, seed, "tasks 3 and 7");
}
