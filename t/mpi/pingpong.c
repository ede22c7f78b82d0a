/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pingpong: round-trip time and bandwidth between ranks 0 and 1.
 *
 *   pingpong [-s BYTES] [-n ITERATIONS]
 *
 * Rank 0 prints one line:
 *   pingpong a=HOST b=HOST bytes=B iters=N rtt_us=X bw_MBps=Y
 * where rtt_us is the median round trip and bw_MBps is 2*B over the median
 * round trip.  Other ranks, if any, wait.  Exit status 2 on bad usage.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static long parse_positive (const char *s, const char *what)
{
    char *end;
    long v = strtol (s, &end, 10);
    if (*s == '\0' || *end != '\0' || v <= 0) {
        fprintf (stderr, "pingpong: %s: '%s' is not a positive number\n", what, s);
        return -1;
    }
    return v;
}

int main (int argc, char **argv)
{
    long bytes = 1024, iters = 200;
    int rank, size, opt, rc = 0;
    char host[MPI_MAX_PROCESSOR_NAME], peer[MPI_MAX_PROCESSOR_NAME];
    int len;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    while ((opt = getopt (argc, argv, "s:n:")) != -1) {
        if (opt == 's')
            bytes = parse_positive (optarg, "-s");
        else if (opt == 'n')
            iters = parse_positive (optarg, "-n");
        else
            bytes = -1;
        if (bytes < 0 || iters < 0) {
            MPI_Finalize ();
            return 2;
        }
    }
    if (size < 2) {
        if (rank == 0)
            fprintf (stderr, "pingpong: needs at least 2 ranks\n");
        MPI_Finalize ();
        return 2;
    }
    MPI_Get_processor_name (host, &len);
    memset (peer, 0, sizeof (peer));
    if (rank < 2)
        MPI_Sendrecv (host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1 - rank, 0, peer,
                      MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);

    char *buf = calloc ((size_t)bytes, 1);
    double *t = calloc ((size_t)iters, sizeof (double));
    if (!buf || !t) {
        fprintf (stderr, "pingpong: out of memory\n");
        MPI_Abort (MPI_COMM_WORLD, 1);
    }
    MPI_Barrier (MPI_COMM_WORLD);
    for (long i = -5; i < iters && rank < 2; i++) { /* 5 warm-up rounds */
        double t0 = MPI_Wtime ();
        if (rank == 0) {
            MPI_Send (buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv (buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv (buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send (buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
        if (i >= 0)
            t[i] = MPI_Wtime () - t0;
    }
    if (rank == 0) {
        qsort (t, (size_t)iters, sizeof (double), cmp_double);
        double med = t[iters / 2];
        printf ("pingpong a=%s b=%s bytes=%ld iters=%ld rtt_us=%.1f bw_MBps=%.1f\n", host, peer,
                bytes, iters, med * 1e6, 2.0 * (double)bytes / med / 1e6);
    }
    free (buf);
    free (t);
    MPI_Barrier (MPI_COMM_WORLD);
    MPI_Finalize ();
    return rc;
}
