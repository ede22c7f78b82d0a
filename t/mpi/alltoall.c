/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alltoall: every rank sends to every other a message of its own size,
 * by MPI_Isend, three times; then an MPI_Bcast from rank 0 and an
 * MPI_Alltoall, which count only when the recorder attributes
 * collectives (TOPOMAP_RECORD_COLLECTIVES=1, its documented model).
 *
 *   alltoall [EXPECT_PREFIX]    writes what it sent (expect.h)
 */
#include <stdlib.h>

#include <mpi.h>

#include "expect.h"

static int count_of (int from, int to, int size)
{
    return (from * size + to) % 7 + 1;
}

int main (int argc, char **argv)
{
    int rank, size;
    int *buf, *cbuf;
    MPI_Request *req;

    MPI_Init (&argc, &argv);
    expect_init ();
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    buf = calloc ((size_t)size * 8, sizeof (int));
    cbuf = calloc ((size_t)size * 8, sizeof (int));
    req = calloc ((size_t)size * 2, sizeof (MPI_Request));
    if (!buf || !cbuf || !req)
        MPI_Abort (MPI_COMM_WORLD, 1);
    for (int it = 0; it < 3; it++) {
        int k = 0;

        for (int j = 0; j < size; j++) {
            if (j == rank)
                continue;
            MPI_Irecv (buf + 8 * j, count_of (j, rank, size), MPI_INT, j, 0, MPI_COMM_WORLD,
                       &req[k++]);
            MPI_Isend (cbuf + 8 * j, count_of (rank, j, size), MPI_INT, j, 0, MPI_COMM_WORLD,
                       &req[k++]);
            expect_send (j, (uint64_t)count_of (rank, j, size) * sizeof (int));
        }
        MPI_Waitall (k, req, MPI_STATUSES_IGNORE);
    }
    MPI_Bcast (buf, 10, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Alltoall (cbuf, 4, MPI_INT, buf, 4, MPI_INT, MPI_COMM_WORLD);
    if (expect_collectives ()) {
        for (int j = 0; j < size; j++) {
            if (j == rank)
                continue;
            if (rank == 0)
                expect_send (j, 10 * sizeof (int));
            expect_send (j, 4 * sizeof (int));
        }
    }

    expect_write (argc > 1 ? argv[1] : NULL);
    free (buf);
    free (cbuf);
    free (req);
    MPI_Finalize ();
    return 0;
}
