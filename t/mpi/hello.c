/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hello: every rank prints where it runs, after a collective that proves the
 * ranks really talk to each other.
 *
 * Each rank prints one line:  rank=R size=N host=HOST sum=S local=L first=F
 * where S is the sum of all ranks, N*(N-1)/2 when communication works, and
 * L and F the size and lowest rank of its MPI_COMM_TYPE_SHARED
 * communicator: the ranks MPI knows to share its node.  With HELLO_SHOW=VAR
 * in its environment, a second line:  show rank=R args=A VAR=VALUE.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main (int argc, char **argv)
{
    int rank, size, len, sum, local, first;
    MPI_Comm node;
    char host[MPI_MAX_PROCESSOR_NAME];
    const char *show;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    MPI_Get_processor_name (host, &len);
    MPI_Allreduce (&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size (node, &local);
    MPI_Allreduce (&rank, &first, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free (&node);
    printf ("rank=%d size=%d host=%s sum=%d local=%d first=%d\n", rank, size, host, sum, local,
            first);
    /* HELLO_SHOW=VAR: also the arguments' count and VAR's value, as the
     * task got them. */
    if ((show = getenv ("HELLO_SHOW")))
        printf ("show rank=%d args=%d %s=%s\n", rank, argc - 1, show,
                getenv (show) ? getenv (show) : "(unset)");
    MPI_Finalize ();
    return 0;
}
