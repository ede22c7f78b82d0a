/* msgrate: a small-message rate microbenchmark for the recorder's
 * overhead.  Ranks pair up, r with r + N/2 (on another node under srun's
 * block layout); each pair exchanges windows of WINDOW 8-byte messages,
 * Isend and Irecv, for ITERS windows.  An odd last rank sits out.  Prints
 * the slowest rank's time: "msgrate ranks=N msgs=M time_s=T".  With
 * --bind, each rank first binds itself to CPU SLURM_LOCALID modulo the
 * CPUs it may use, so that two ranks of a node never share one.
 *
 *   msgrate [--bind] [ITERS]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

enum { WINDOW = 64 };

int main (int argc, char **argv)
{
    int bind = argc > 1 && !strcmp (argv[1], "--bind");
    int rank, size, peer, iters = argc > 1 + bind ? atoi (argv[1 + bind]) : 2000;
    char sbuf[WINDOW][8] = { { 0 } }, rbuf[WINDOW][8];
    MPI_Request req[2 * WINDOW];
    double t, tmax;

    if (bind) {
        const char *id = getenv ("SLURM_LOCALID");
        cpu_set_t allowed, one;
        int k = id ? atoi (id) : 0, n;

        if (sched_getaffinity (0, sizeof (allowed), &allowed) != 0 ||
            (n = CPU_COUNT (&allowed)) == 0) {
            perror ("msgrate: sched_getaffinity");
            return 1;
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
            return 1;
        }
    }
    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    peer = rank < size / 2 ? rank + size / 2 : rank - size / 2;
    if (size % 2 && rank == size - 1)
        peer = size;
    if (iters < 1)
        iters = 1;
    MPI_Barrier (MPI_COMM_WORLD);
    t = MPI_Wtime ();
    if (peer < size) {
        for (int it = 0; it < iters; it++) {
            for (int w = 0; w < WINDOW; w++) {
                MPI_Irecv (rbuf[w], 8, MPI_CHAR, peer, w, MPI_COMM_WORLD, &req[w]);
                MPI_Isend (sbuf[w], 8, MPI_CHAR, peer, w, MPI_COMM_WORLD, &req[WINDOW + w]);
            }
            MPI_Waitall (2 * WINDOW, req, MPI_STATUSES_IGNORE);
        }
    }
    t = MPI_Wtime () - t;
    MPI_Reduce (&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf ("msgrate ranks=%d msgs=%lld time_s=%.6f\n", size,
                (long long)iters * WINDOW * (size - size % 2), tmax);
    MPI_Finalize ();
    return 0;
}
