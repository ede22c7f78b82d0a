/* SPDX-License-Identifier: GPL-2.0-or-later */
/* miniapp: the communication of a stencil code, a ring and an all-to-all
 * code, timed, for the demo and the application benchmark.
 *
 *   miniapp [-p PATTERN] [-d NX,NY[,NZ]] [-g PX,PY[,PZ]] [-b BYTES]
 *           [-c COMPUTE_US] [-n STEPS] [-w WARMUP] [-r SEED]
 *
 * PATTERN
 *   halo2d   (default) a 5-point halo exchange on a NX x NY domain of
 *            doubles (default 4096,1536), split over a PX x PY grid of
 *            ranks (default: the grid with the least halo per rank, as a
 *            stencil code chooses it for its domain), non-periodic; a face
 *            carries the cells of that side of a rank's block.
 *   halo3d   the same on a NX x NY x NZ domain (default 256,256,256), a
 *            7-point stencil.
 *   ring     each rank sends BYTES (default 262144) to rank+1 and receives
 *            from rank-1, around the ring; with -r SEED (not 0), around a
 *            ring through the ranks in an order drawn from SEED, the same
 *            in every rank: a program whose pairs differ from run to run,
 *            as HPCC's random rings do.
 *   alltoall MPI_Alltoall of BYTES per pair (default 16384).
 *
 * Each step computes for COMPUTE_US microseconds (default 0), then
 * communicates.  After WARMUP steps (default 2), STEPS steps (default 50)
 * are timed, and rank 0 prints one line:
 *
 *   miniapp pattern=P ranks=N grid=PXxPY bytes_per_step=B steps=S time_s=T
 *
 * T is the slowest rank's time; bytes_per_step is what all ranks send in
 * one step.  Exit status 0, or 2 for bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

enum { MAXD = 3 };

static int usage (int rank, const char *why)
{
    if (rank == 0)
        fprintf (stderr,
                 "miniapp: %s\n"
                 "usage: miniapp [-p halo2d|halo3d|ring|alltoall] [-d NX,NY[,NZ]] "
                 "[-g PX,PY[,PZ]] [-b BYTES] [-c COMPUTE_US] [-n STEPS] [-w WARMUP] [-r SEED]\n",
                 why);
    MPI_Finalize ();
    return 2;
}

/* Up to n positive integers separated by commas; the count read, or -1. */
static int parse_list (const char *s, long *v, int n)
{
    int k = 0;
    char *end;

    while (k < n) {
        v[k] = strtol (s, &end, 10);
        if (end == s || v[k] <= 0)
            return -1;
        k++;
        if (*end == '\0')
            return k;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
    return -1;
}

/* The grid of nd dimensions with size ranks that sends the fewest halo
 * cells per rank for the domain dom: what a stencil code picks.
 */
static void best_grid (int size, int nd, const long *dom, int *grid)
{
    double best = -1;
    int g[MAXD];

    for (g[0] = 1; g[0] <= size; g[0]++) {
        if (size % g[0])
            continue;
        for (g[1] = 1; g[1] <= size / g[0]; g[1]++) {
            if ((size / g[0]) % g[1])
                continue;
            g[2] = size / g[0] / g[1];
            if (nd == 2 && g[2] != 1)
                continue;
            double halo = 0;
            for (int d = 0; d < nd; d++) {
                if (g[d] == 1)
                    continue;
                double face = 1;
                for (int e = 0; e < nd; e++)
                    if (e != d)
                        face *= (double)dom[e] / g[e];
                halo += 2 * face;
            }
            if (best < 0 || halo < best) {
                best = halo;
                memcpy (grid, g, sizeof (g));
            }
        }
    }
}

/* The ranks before and after rank on a ring through the size ranks in an
 * order drawn from seed: a Fisher-Yates shuffle with xorshift64, the same
 * in every rank.
 */
static void ring_order (unsigned long seed, int size, int rank, int *next, int *prev)
{
    unsigned long long x = seed * 0x9e3779b97f4a7c15ULL + 1;
    int *order = malloc ((size_t)size * sizeof (*order));

    if (!order)
        MPI_Abort (MPI_COMM_WORLD, 1);
    for (int i = 0; i < size; i++)
        order[i] = i;
    for (int i = size - 1; i > 0; i--) {
        int j, t;

        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        j = (int)(x % (unsigned long long)(i + 1));
        t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < size; i++)
        if (order[i] == rank) {
            *next = order[(i + 1) % size];
            *prev = order[(i + size - 1) % size];
        }
    free (order);
}

static void compute (double us)
{
    double end = MPI_Wtime () + us * 1e-6;

    while (us > 0 && MPI_Wtime () < end)
        ;
}

int main (int argc, char **argv)
{
    int rank, size, opt, nd = 2, grid[MAXD] = {1, 1, 1}, have_grid = 0;
    long dom[MAXD] = {4096, 1536, 1}, bytes = -1, steps = 50, warmup = 2, v[MAXD];
    unsigned long seed = 0;
    double compute_us = 0;
    const char *pattern = "halo2d";
    char *end;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);

    int have_dom = 0;
    while ((opt = getopt (argc, argv, "p:d:g:b:c:n:w:r:")) != -1) {
        switch (opt) {
        case 'p':
            pattern = optarg;
            break;
        case 'd':
            if ((have_dom = parse_list (optarg, v, MAXD)) < 2)
                return usage (rank, "-d: NX,NY or NX,NY,NZ, positive");
            for (int d = 0; d < MAXD; d++)
                dom[d] = d < have_dom ? v[d] : 1;
            break;
        case 'g':
            if ((have_grid = parse_list (optarg, v, MAXD)) < 2)
                return usage (rank, "-g: PX,PY or PX,PY,PZ, positive");
            for (int d = 0; d < have_grid; d++)
                grid[d] = (int)v[d];
            break;
        case 'b':
            if ((bytes = strtol (optarg, &end, 10)) <= 0 || *end)
                return usage (rank, "-b: a positive byte count");
            break;
        case 'c':
            if ((compute_us = strtod (optarg, &end)) < 0 || *end)
                return usage (rank, "-c: microseconds, not negative");
            break;
        case 'n':
            if ((steps = strtol (optarg, &end, 10)) <= 0 || *end)
                return usage (rank, "-n: a positive step count");
            break;
        case 'w':
            if ((warmup = strtol (optarg, &end, 10)) < 0 || *end)
                return usage (rank, "-w: a step count, not negative");
            break;
        case 'r':
            if (optarg[0] == '-' || (seed = strtoul (optarg, &end, 10), *end) || !optarg[0])
                return usage (rank, "-r: a seed, a whole number");
            break;
        default:
            return usage (rank, "unknown option");
        }
    }
    if (optind < argc)
        return usage (rank, "unexpected argument");

    int halo = !strcmp (pattern, "halo2d") || !strcmp (pattern, "halo3d");
    int ring = !strcmp (pattern, "ring"), a2a = !strcmp (pattern, "alltoall");
    if (!halo && !ring && !a2a)
        return usage (rank, "-p: halo2d, halo3d, ring or alltoall");

    MPI_Comm comm = MPI_COMM_WORLD;
    int nb[2 * MAXD];
    long face[MAXD] = {0, 0, 0};
    if (halo) {
        int periods[MAXD] = {0, 0, 0};

        nd = pattern[4] == '3' ? 3 : 2;
        if (nd == 3 && !have_dom)
            dom[0] = dom[1] = dom[2] = 256;
        if (have_dom && have_dom != nd)
            return usage (rank, "-d: one size per dimension of the pattern");
        if (have_grid && have_grid != nd)
            return usage (rank, "-g: one count per dimension of the pattern");
        if (!have_grid)
            best_grid (size, nd, dom, grid);
        long prod = 1;
        for (int d = 0; d < nd; d++)
            prod *= grid[d];
        if (prod != size)
            return usage (rank, "-g: the grid's product must be the number of ranks");
        MPI_Cart_create (MPI_COMM_WORLD, nd, grid, periods, 0, &comm);
        for (int d = 0; d < nd; d++) {
            MPI_Cart_shift (comm, d, 1, &nb[2 * d], &nb[2 * d + 1]);
            face[d] = 1;
            for (int e = 0; e < nd; e++)
                if (e != d)
                    face[d] *= dom[e] / grid[e];
        }
    } else if (bytes < 0)
        bytes = ring ? 262144 : 16384;
    if (seed && !ring)
        return usage (rank, "-r: for -p ring only");
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (seed)
        ring_order (seed, size, rank, &next, &prev);

    /* Buffers: per face for the halos, one message for the ring, one per
     * rank for the all-to-all.
     */
    size_t len = 0;
    if (halo)
        for (int d = 0; d < nd; d++)
            len = (size_t)face[d] * sizeof (double) > len ? (size_t)face[d] * sizeof (double) : len;
    else
        len = (size_t)bytes * (a2a ? (size_t)size : 1);
    char *sbuf = calloc (2 * MAXD, len), *rbuf = calloc (2 * MAXD, len);
    if (!sbuf || !rbuf)
        MPI_Abort (MPI_COMM_WORLD, 1);

    long sent = 0;
    double t0 = 0;
    for (long s = 0; s < warmup + steps; s++) {
        if (s == warmup) {
            MPI_Barrier (MPI_COMM_WORLD);
            t0 = MPI_Wtime ();
            sent = 0;
        }
        compute (compute_us);
        if (halo) {
            MPI_Request req[4 * MAXD];
            int n = 0;
            for (int k = 0; k < 2 * nd; k++) {
                int cnt = (int)face[k / 2];
                MPI_Irecv (rbuf + k * len, cnt, MPI_DOUBLE, nb[k], k ^ 1, comm, &req[n++]);
                MPI_Isend (sbuf + k * len, cnt, MPI_DOUBLE, nb[k], k, comm, &req[n++]);
                if (nb[k] != MPI_PROC_NULL)
                    sent += (long)cnt * (long)sizeof (double);
            }
            MPI_Waitall (n, req, MPI_STATUSES_IGNORE);
        } else if (ring) {
            MPI_Sendrecv (sbuf, (int)bytes, MPI_BYTE, next, 0, rbuf, (int)bytes, MPI_BYTE, prev, 0,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sent += bytes;
        } else {
            MPI_Alltoall (sbuf, (int)bytes, MPI_BYTE, rbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
            sent += bytes * (size - 1);
        }
    }
    double t = MPI_Wtime () - t0, tmax;
    long total;
    MPI_Reduce (&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce (&sent, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        char g[64] = "-";
        if (halo)
            snprintf (g, sizeof (g), nd == 2 ? "%dx%d" : "%dx%dx%d", grid[0], grid[1], grid[2]);
        printf ("miniapp pattern=%s ranks=%d grid=%s bytes_per_step=%ld steps=%ld time_s=%.6f\n",
                pattern, size, g, steps ? total / steps : 0, steps, tmax);
    }
    free (sbuf);
    free (rbuf);
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free (&comm);
    MPI_Finalize ();
    return 0;
}
