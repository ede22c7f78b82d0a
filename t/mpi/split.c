/* SPDX-License-Identifier: GPL-2.0-or-later */
/* split: talks over communicators whose ranks are not the world's.  The
 * world splits by parity with keys reversed (sub-rank 0 is the highest
 * world rank of its colour); each sub-ring sends to its next; a duplicate
 * of the world carries one more ring; and when both colours exist, an
 * intercommunicator between them carries one message from each rank to
 * remote rank (sub-rank mod remote size).  The program works out every
 * world rank by its own arithmetic, not through MPI groups.
 *
 *   split [EXPECT_PREFIX]    writes what it sent (expect.h)
 */
#include <stdlib.h>

#include <mpi.h>

#include "expect.h"

/* World rank of sub-rank s of colour c (ranks of parity c, descending). */
static int world_of (int c, int s, int size)
{
    int top = (size - 1) % 2 == c ? size - 1 : size - 2;

    return top - 2 * s;
}

static int members (int c, int size)
{
    return (size - c + 1) / 2;
}

int main (int argc, char **argv)
{
    int rank, size, color, sub, q;
    char buf[64] = {0};
    MPI_Comm half, dup;

    MPI_Init (&argc, &argv);
    expect_init ();
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    color = rank % 2;
    MPI_Comm_split (MPI_COMM_WORLD, color, -rank, &half);
    MPI_Comm_rank (half, &sub);
    q = members (color, size);
    if (world_of (color, sub, size) != rank)
        MPI_Abort (MPI_COMM_WORLD, 2);

    if (q > 1) {
        int next = (sub + 1) % q, prev = (sub + q - 1) % q;

        MPI_Sendrecv (buf, sub + 1, MPI_CHAR, next, 0, buf + 32, prev + 1, MPI_CHAR, prev, 0, half,
                      MPI_STATUS_IGNORE);
        expect_send (world_of (color, next, size), (uint64_t)sub + 1);
    }

    MPI_Comm_dup (MPI_COMM_WORLD, &dup);
    MPI_Sendrecv (buf, 3, MPI_SHORT, (rank + 2) % size, 1, buf + 32, 3, MPI_SHORT,
                  (rank + size - 2) % size, 1, dup, MPI_STATUS_IGNORE);
    expect_send ((rank + 2) % size, 3 * sizeof (short));

    if (size > 1) {
        int other = 1 - color, rq = members (other, size), rsize, nrecv = 0;
        MPI_Comm inter;
        MPI_Request r;

        MPI_Intercomm_create (half, 0, MPI_COMM_WORLD, world_of (other, 0, size), 7, &inter);
        MPI_Comm_remote_size (inter, &rsize);
        if (rsize != rq)
            MPI_Abort (MPI_COMM_WORLD, 3);
        MPI_Isend (buf, 2, MPI_DOUBLE, sub % rq, 2, inter, &r);
        expect_send (world_of (other, sub % rq, size), 2 * sizeof (double));
        for (int t = 0; t < rq; t++)
            if (t % q == sub)
                nrecv++;
        for (int i = 0; i < nrecv; i++)
            MPI_Recv (buf + 32, 2, MPI_DOUBLE, MPI_ANY_SOURCE, 2, inter, MPI_STATUS_IGNORE);
        MPI_Wait (&r, MPI_STATUS_IGNORE);
        MPI_Comm_free (&inter);
    }

    expect_write (argc > 1 ? argv[1] : NULL);
    MPI_Comm_free (&dup);
    MPI_Comm_free (&half);
    MPI_Finalize ();
    return 0;
}
