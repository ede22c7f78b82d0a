/* hello: every rank prints where it runs, after a collective that proves the
 * ranks really talk to each other.
 *
 * Each rank prints one line:  rank=R size=N host=HOST sum=S
 * where S is the sum of all ranks, N*(N-1)/2 when communication works.
 */
#include <mpi.h>
#include <stdio.h>

int main (int argc, char **argv)
{
    int rank, size, len, sum;
    char host[MPI_MAX_PROCESSOR_NAME];

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    MPI_Get_processor_name (host, &len);
    MPI_Allreduce (&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf ("rank=%d size=%d host=%s sum=%d\n", rank, size, host, sum);
    MPI_Finalize ();
    return 0;
}
