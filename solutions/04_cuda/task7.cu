/*
 * Room 04, task 7 (stretch): the matmul ladder, step 1: several outputs per thread,
 * kept in registers (1-D register blocking).
 *
 * C = A*B in float, every matrix stored row by row, as in task 3.  Task 3's tiled
 * kernel gives each thread ONE entry of C, and so reads two values from shared
 * memory for every multiply-add.  Here a block of 64 x 8 threads computes a 64x64
 * tile of C, and each thread a strip of TM = 8 entries of one column of it:
 *
 *        the block's 64x64 tile of C          one slice of the walk along k:
 *        +--+--+--+- ... -+--+                   As: the tile's 64 rows of A, BK = 8 columns
 *        |  |  |  |       |  |  <- rows 0..7:    Bs: BK = 8 rows of B, the tile's 64 columns
 *        |  |  |  |       |  |     threadIdx.y = 0
 *        +--+--+--+- ... -+--+                per slice, a thread reads each value of B
 *        |  |  |  |       |  |  <- rows 8..15  it needs ONCE, into a register, and uses
 *        ...                                   it for its 8 entries (8 multiply-adds)
 *         ^ column threadIdx.x
 *
 *   TODO 1: the walk along the inner dimension: stage each slice in shared memory,
 *           then add its terms to the thread's TM running sums, held in registers;
 *   TODO 2: the TM sums stored into C.
 *
 * Sizes need not be multiples of 64 or 8.
 *
 * Read first: README.md, "Matrix multiply: tiling and cuBLAS", "Functions a kernel calls";
 * further.md, "Count the loads per multiply-add", "Step 1: a strip of outputs per thread".
 *
 * cuBLAS (the top of the ladder; the CPU simulator has it too, computed on the CPU)
 * runs in the same program, for comparison; task 3 at the same m, n, k gives the rung
 * below (its tiled kernel is not repeated here: it is task 3's answer).
 * All values are small integers: every entry of every product must equal the CPU's.
 *
 * Build and run by hand, from the room's folder:
 *   on a GPU:  nvcc -O3 -arch=native -Xcompiler -fopenmp -I../grading/include -o task7 task7.cu -lcublas
 *   anywhere:  ../grading/sim/simcc -O2 -fopenmp -I../grading/include -o task7 task7.cu -lcublas
 *   ./task7 m=4096 n=4096 k=4096          (in the simulator: m=130 n=97 k=64)
 * Grade it from the top folder:  make grade TASK=04_cuda/task7
 */
#include "pr.h"
#include "matmul_ladder.h" /* the CPU's product, the checks, the timing: no need to change */

#include <cuda_runtime.h>
#include <cublas_v2.h>

#define BM 64 /* rows of C per block */
#define BN 64 /* columns of C per block: blockDim.x */
#define BK 8  /* the depth of a slice along k */
#define TM 8  /* entries of C per thread: blockDim.y = BM / TM */

/* M's element (r, c), or 0 outside its rows x cols (M row-major, cols values a row). */
__device__ float entry_or_zero(const float *M, int rows, int cols, int r, int c)
{
    return r < rows && c < cols ? M[(long)r * cols + c] : 0.0f;
}

/* C = A*B; A is m x k, B is k x n, C is m x n, row-major.  Block (BN, BM / TM) threads;
 * thread (tx, ty) computes rows row0 + ty*TM .. + TM-1 of column col0 + tx of C. */
__global__ void matmul_strip(const float *A, const float *B, float *C, int m, int n, int k)
{
    /* The slice at k0.  Aligned to 16 bytes, so that the compiler may fetch four values
     * of a row of As, which a thread reads one after the other, with one load. */
    __shared__ __align__(16) float As[BM][BK]; /* As[i][p]: A's row row0 + i, column k0 + p */
    __shared__ __align__(16) float Bs[BK][BN]; /* Bs[p][j]: B's row k0 + p, column col0 + j */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    /* Who loads what: the 512 threads, numbered row by row, load one element of each
     * slice, As[ar][ac] and Bs[br][bc]; neighbours load neighbouring addresses. */
    const int id = ty * BN + tx;
    const int ar = id / BK, ac = id % BK;
    const int br = id / BN, bc = id % BN;
    float acc[TM]; /* this thread's TM running sums: registers, not memory */
    for (int i = 0; i < TM; i++)
        acc[i] = 0.0f;

    //@ TODO 1: Walk along the inner dimension one slice of BK at a time.  For each
    //@         slice: the block stages the slice of A and of B in As and Bs (each
    //@         thread the one element of each that ar, ac and br, bc name; 0 outside
    //@         a matrix); then the thread adds the slice's terms to each of its TM
    //@         sums, reading each value of Bs it needs once into a register and using
    //@         it TM times.  Must hold: no entry of As or Bs is read before it is
    //@         written, nor overwritten while another thread may still read it; every
    //@         thread reaches every barrier.
    //@ placeholder: (void)A; (void)B; (void)k; (void)As[0][0]; (void)Bs[0][0]; /* TODO 1: the walk along k */
    //@ placeholder: (void)(ar + ac + br + bc);
    //@ solution {
    for (int k0 = 0; k0 < k; k0 += BK) {
        As[ar][ac] = entry_or_zero(A, m, k, row0 + ar, k0 + ac);
        Bs[br][bc] = entry_or_zero(B, k, n, k0 + br, col0 + bc);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BK; p++) {
            float b = Bs[p][tx];
#pragma unroll
            for (int i = 0; i < TM; i++)
                acc[i] += As[ty * TM + i][p] * b;
        }
        __syncthreads();
    }
    //@ }

    //@ TODO 2: Store the thread's TM sums in their entries of C (see the comment
    //@         above the kernel), only those that lie inside C.
    //@ placeholder: (void)C; (void)m; (void)n; (void)row0; (void)col0; (void)acc[0]; /* TODO 2: the store */
    //@ solution {
    const int col = col0 + tx;
    for (int i = 0; i < TM; i++) {
        int row = row0 + ty * TM + i;
        if (row < m && col < n)
            C[(long)row * n + col] = acc[i];
    }
    //@ }
}

/* ---- no need to change below ---- */

static void run_strip(const float *A, const float *B, float *C, int m, int n, int k)
{
    dim3 grid((unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM));
    matmul_strip<<<grid, dim3(BN, BM / TM)>>>(A, B, C, m, n, k);
}

int main(int argc, char **argv)
{
    int m = (int)pr_arg_long(argc, argv, "m", 1024, 1, 8192);
    int n = (int)pr_arg_long(argc, argv, "n", 1024, 1, 8192);
    int k = (int)pr_arg_long(argc, argv, "k", 1024, 1, 8192);
    int reps = (int)pr_arg_long(argc, argv, "reps", 10, 1, 1000);
    long long seed = pr_arg_long(argc, argv, "seed", 1, 0, 1000000000);
    pr_args_done(argc, argv);
    printf("task7: C = A*B (%dx%d times %dx%d), one strip of %d entries a thread\n", m, k, k, n, TM);

    return ladder_run("strip", run_strip, m, n, k, reps, seed, "task 3");
}
