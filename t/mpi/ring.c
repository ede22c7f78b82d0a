/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ring: every rank sends to the next around a ring through each kind of
 * point-to-point send: Sendrecv, Isend, Bsend, Issend, Sendrecv_replace;
 * then through many datatypes in turn, predefined ones and derived ones
 * freed and made again with other sizes (the recorder caches sizes).
 *
 *   ring [EXPECT_PREFIX]    writes what it sent (expect.h)
 */
#include <stdlib.h>

#include <mpi.h>

#include "expect.h"

int main (int argc, char **argv)
{
    int rank, size, next, prev, n, pn;
    int *sbuf, *rbuf;
    char *bbuf;
    int bsize;

    MPI_Init (&argc, &argv);
    expect_init ();
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    n = (rank + 1) * 8;  /* what this rank sends, in ints */
    pn = (prev + 1) * 8; /* what it receives */
    sbuf = calloc ((size_t)(size + 1) * 8, sizeof (int));
    rbuf = calloc ((size_t)(size + 1) * 8, sizeof (int));
    if (!sbuf || !rbuf)
        MPI_Abort (MPI_COMM_WORLD, 1);

    for (int it = 0; it < 5; it++) {
        MPI_Sendrecv (sbuf, n, MPI_INT, next, 1, rbuf, pn, MPI_INT, prev, 1, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
        expect_send (next, (uint64_t)n * sizeof (int));
    }
    for (int it = 0; it < 5; it++) {
        MPI_Request r[2];

        MPI_Irecv (rbuf, prev + 3, MPI_DOUBLE, prev, 2, MPI_COMM_WORLD, &r[0]);
        MPI_Isend (sbuf, rank + 3, MPI_DOUBLE, next, 2, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall (2, r, MPI_STATUSES_IGNORE);
        expect_send (next, (uint64_t)(rank + 3) * sizeof (double));
    }

    MPI_Pack_size (n, MPI_INT, MPI_COMM_WORLD, &bsize);
    bsize += MPI_BSEND_OVERHEAD;
    if (!(bbuf = malloc ((size_t)bsize)))
        MPI_Abort (MPI_COMM_WORLD, 1);
    MPI_Buffer_attach (bbuf, bsize);
    MPI_Bsend (sbuf, n, MPI_INT, next, 3, MPI_COMM_WORLD);
    expect_send (next, (uint64_t)n * sizeof (int));
    MPI_Recv (rbuf, pn, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Buffer_detach (&bbuf, &bsize);
    free (bbuf);

    {
        MPI_Request r;

        MPI_Issend (sbuf, 7, MPI_CHAR, next, 4, MPI_COMM_WORLD, &r);
        expect_send (next, 7);
        MPI_Recv (rbuf, 7, MPI_CHAR, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait (&r, MPI_STATUS_IGNORE);
    }
    MPI_Sendrecv_replace (rbuf, 5, MPI_LONG, next, 5, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect_send (next, 5 * sizeof (long));

    /* More predefined types than the recorder's cache has entries, twice,
     * and derived types whose freed handles the MPI may give out again
     * for a type of another size.
     */
    {
        MPI_Datatype named[] = {MPI_CHAR,       MPI_SHORT,           MPI_INT,
                                MPI_LONG,       MPI_LONG_LONG,       MPI_FLOAT,
                                MPI_DOUBLE,     MPI_LONG_DOUBLE,     MPI_BYTE,
                                MPI_INT8_T,     MPI_INT16_T,         MPI_INT32_T,
                                MPI_INT64_T,    MPI_UINT8_T,         MPI_UINT16_T,
                                MPI_UINT32_T,   MPI_UINT64_T,        MPI_C_BOOL,
                                MPI_WCHAR,      MPI_UNSIGNED,        MPI_2INT,
                                MPI_DOUBLE_INT, MPI_C_DOUBLE_COMPLEX};
        int nnamed = (int)(sizeof (named) / sizeof (named[0]));

        for (int round = 0; round < 2; round++)
            for (int t = 0; t < nnamed; t++) {
                int tsize;
                MPI_Type_size (named[t], &tsize);
                MPI_Sendrecv (sbuf, 2, named[t], next, 6, rbuf, 2, named[t], prev, 6,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                expect_send (next, 2 * (uint64_t)tsize);
            }
        for (int k = 1; k <= 6; k++) {
            MPI_Datatype derived;
            MPI_Type_contiguous (k, k % 2 ? MPI_INT : MPI_DOUBLE, &derived);
            MPI_Type_commit (&derived);
            for (int again = 0; again < 2; again++) {
                MPI_Sendrecv (sbuf, 1, derived, next, 7, rbuf, 1, derived, prev, 7, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE);
                expect_send (next, (uint64_t)k * (k % 2 ? sizeof (int) : sizeof (double)));
            }
            MPI_Type_free (&derived);
        }
    }

    expect_write (argc > 1 ? argv[1] : NULL);
    free (sbuf);
    free (rbuf);
    MPI_Finalize ();
    return 0;
}
