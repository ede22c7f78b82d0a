/* SPDX-License-Identifier: GPL-2.0-or-later */
/* halo2d: a 2-D 5-point halo exchange on a Cartesian grid of the ranks
 * (non-periodic, no reordering), with persistent requests started by
 * MPI_Startall (two rounds, among persistent sends never started), then
 * one more exchange with MPI_Isend.  Rows carry NX
 * doubles, columns NY, so the two directions differ in bytes.
 *
 *   halo2d [EXPECT_PREFIX]    writes what it sent (expect.h)
 */
#include <stdlib.h>

#include <mpi.h>

#include "expect.h"

enum { NX = 100, NY = 60, STEPS = 10, IDLE = 48 };

int main (int argc, char **argv)
{
    int size, dims[2] = {0, 0}, periods[2] = {0, 0};
    int nb[4], len[4], peer = MPI_PROC_NULL;
    double *sbuf[4], *rbuf[4];
    MPI_Request req[8], idle[IDLE];
    MPI_Comm cart;

    MPI_Init (&argc, &argv);
    expect_init ();
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    MPI_Dims_create (size, 2, dims);
    MPI_Cart_create (MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    /* Without reordering, ranks in cart are the world ranks. */
    MPI_Cart_shift (cart, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift (cart, 1, 1, &nb[2], &nb[3]);
    len[0] = len[1] = NY;
    len[2] = len[3] = NX;
    for (int d = 0; d < 4; d++) {
        sbuf[d] = calloc (NX, sizeof (double));
        rbuf[d] = calloc (NX, sizeof (double));
        if (!sbuf[d] || !rbuf[d])
            MPI_Abort (MPI_COMM_WORLD, 1);
        if (nb[d] != MPI_PROC_NULL)
            peer = nb[d];
    }
    /* Two rounds, the second at half the length: requests freed after
     * the first may come back as handles in the second.  Each round also
     * holds IDLE persistent sends it never starts, which send nothing.
     */
    for (int round = 0; round < 2; round++) {
        for (int d = 0; d < 4; d++) {
            MPI_Recv_init (rbuf[d], len[d] >> round, MPI_DOUBLE, nb[d], d ^ 1, cart, &req[2 * d]);
            MPI_Send_init (sbuf[d], len[d] >> round, MPI_DOUBLE, nb[d], d, cart, &req[2 * d + 1]);
        }
        for (int i = 0; i < IDLE; i++)
            MPI_Send_init (sbuf[0], 1, MPI_DOUBLE, peer, 100 + i, cart, &idle[i]);
        for (int s = 0; s < STEPS; s++) {
            MPI_Startall (8, req);
            MPI_Waitall (8, req, MPI_STATUSES_IGNORE);
            for (int d = 0; d < 4; d++)
                if (nb[d] != MPI_PROC_NULL)
                    expect_send (nb[d], (uint64_t)(len[d] >> round) * sizeof (double));
        }
        for (int i = 0; i < 8; i++)
            MPI_Request_free (&req[i]);
        for (int i = 0; i < IDLE; i++)
            MPI_Request_free (&idle[i]);
    }
    for (int d = 0; d < 4; d++) {
        MPI_Irecv (rbuf[d], len[d], MPI_DOUBLE, nb[d], 10 + (d ^ 1), cart, &req[2 * d]);
        MPI_Isend (sbuf[d], len[d], MPI_DOUBLE, nb[d], 10 + d, cart, &req[2 * d + 1]);
        if (nb[d] != MPI_PROC_NULL)
            expect_send (nb[d], (uint64_t)len[d] * sizeof (double));
    }
    MPI_Waitall (8, req, MPI_STATUSES_IGNORE);

    expect_write (argc > 1 ? argv[1] : NULL);
    for (int d = 0; d < 4; d++) {
        free (sbuf[d]);
        free (rbuf[d]);
    }
    MPI_Comm_free (&cart);
    MPI_Finalize ();
    return 0;
}
