/* SPDX-License-Identifier: GPL-2.0-or-later */
/* msgrate: a small-message rate microbenchmark for the recorder's
 * overhead.  Ranks pair up, r with r + N/2 (on another node under srun's
 * block layout); each pair exchanges windows of WINDOW 8-byte messages,
 * Isend and Irecv, for ITERS windows.  An odd last rank sits out.  Prints
 * the slowest rank's time: "msgrate ranks=N msgs=M time_s=T".  With
 * --bind, each rank first binds itself to CPU SLURM_LOCALID modulo the
 * CPUs it may use, so that two ranks of a node never share one.
 *
 * With --ab the windows come in blocks, QUADS quads of blocks A B B A or,
 * where ITERS is below 4 * QUADS, a block a window (ITERS rounded down
 * to whole quads): in A blocks the program calls PMPI_Isend, in B blocks
 * MPI_Isend.  Without a preloaded interposer the two are one function
 * (Open MPI's and MPICH's MPI_Isend is a weak alias of PMPI_Isend);
 * with one, B goes through it and A does not, in the same process, on
 * the same CPUs, moments apart.  Each block's time is the slowest rank's;
 * the line adds "direct_s=Ta wrapped_s=Tb ab=R": the sums of the A and of
 * the B blocks, and R the median over the quads of B's time over A's
 * (not on one rank alone).
 *
 *   msgrate [--bind] [--ab] [ITERS]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

enum { WINDOW = 64, QUADS = 512 };

static int bind_cpu (void)
{
    const char *id = getenv ("SLURM_LOCALID");
    cpu_set_t allowed, one;
    int k = id ? atoi (id) : 0, n;

    if (sched_getaffinity (0, sizeof (allowed), &allowed) != 0 || (n = CPU_COUNT (&allowed)) == 0) {
        perror ("msgrate: sched_getaffinity");
        return -1;
    }
    k %= n;
    CPU_ZERO (&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET (c, &allowed) && k-- == 0) {
            CPU_SET (c, &one);
            break;
        }
    if (sched_setaffinity (0, sizeof (one), &one) != 0) {
        perror ("msgrate: sched_setaffinity");
        return -1;
    }
    return 0;
}

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main (int argc, char **argv)
{
    int bind = 0, ab = 0, a = 1;
    int rank, size, peer, iters = 2000, nblocks = 0, nquads = 0, block = 1;
    char sbuf[WINDOW][8] = {{0}}, rbuf[WINDOW][8];
    MPI_Request req[2 * WINDOW];
    double t, tmax, t0 = 0, *blk = NULL, *blkmax = NULL;

    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp (argv[a], "--bind"))
            bind = 1;
        else if (!strcmp (argv[a], "--ab"))
            ab = 1;
        else {
            fprintf (stderr, "usage: msgrate [--bind] [--ab] [ITERS]\n");
            return 2;
        }
    }
    if (a < argc)
        iters = atoi (argv[a]);
    if (bind && bind_cpu () != 0)
        return 1;
    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    peer = rank < size / 2 ? rank + size / 2 : rank - size / 2;
    if (size % 2 && rank == size - 1)
        peer = size;
    if (iters < 1)
        iters = 1;
    if (ab) {
        block = iters / (4 * QUADS) > 1 ? iters / (4 * QUADS) : 1;
        nquads = iters / block / 4 > 1 ? iters / block / 4 : 1;
        nblocks = 4 * nquads;
        iters = nblocks * block;
        blk = calloc ((size_t)nblocks, sizeof (*blk));
        blkmax = calloc ((size_t)nblocks, sizeof (*blkmax));
        if (!blk || !blkmax) {
            fprintf (stderr, "msgrate: out of memory\n");
            MPI_Abort (MPI_COMM_WORLD, 1);
        }
    }
    MPI_Barrier (MPI_COMM_WORLD);
    t = MPI_Wtime ();
    if (peer < size) {
        for (int it = 0; it < iters; it++) {
            int b = it / block, direct = ab && (b % 4 == 0 || b % 4 == 3);

            if (ab && it % block == 0)
                t0 = MPI_Wtime ();
            for (int w = 0; w < WINDOW; w++) {
                MPI_Irecv (rbuf[w], 8, MPI_CHAR, peer, w, MPI_COMM_WORLD, &req[w]);
                if (direct)
                    PMPI_Isend (sbuf[w], 8, MPI_CHAR, peer, w, MPI_COMM_WORLD, &req[WINDOW + w]);
                else
                    MPI_Isend (sbuf[w], 8, MPI_CHAR, peer, w, MPI_COMM_WORLD, &req[WINDOW + w]);
            }
            MPI_Waitall (2 * WINDOW, req, MPI_STATUSES_IGNORE);
            if (ab && it % block == block - 1)
                blk[b] = MPI_Wtime () - t0;
        }
    }
    t = MPI_Wtime () - t;
    MPI_Reduce (&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (ab)
        MPI_Reduce (blk, blkmax, nblocks, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf ("msgrate ranks=%d msgs=%lld time_s=%.6f", size,
                (long long)iters * WINDOW * (size - size % 2), tmax);
        if (ab && size >= 2) {
            double ta = 0, tb = 0, *q = blk;

            for (int i = 0; i < nquads; i++) {
                const double *x = &blkmax[4 * i];
                ta += x[0] + x[3];
                tb += x[1] + x[2];
                q[i] = (x[1] + x[2]) / (x[0] + x[3]);
            }
            qsort (q, (size_t)nquads, sizeof (*q), cmp_double);
            printf (" direct_s=%.6f wrapped_s=%.6f ab=%.6f", ta, tb,
                    nquads % 2 ? q[nquads / 2] : (q[nquads / 2 - 1] + q[nquads / 2]) / 2);
        }
        printf ("\n");
    }
    free (blk);
    free (blkmax);
    MPI_Finalize ();
    return 0;
}
