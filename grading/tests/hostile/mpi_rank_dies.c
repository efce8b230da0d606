/* Hostile MPI task: the last rank dereferences NULL while the others wait in a
 * barrier.  Expected: CRASH (SIGSEGV, as the launcher reports it), nothing left. */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1) {
        int *volatile p = NULL;
        return *p;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
