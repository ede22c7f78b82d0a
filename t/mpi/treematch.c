/* SPDX-License-Identifier: GPL-2.0-or-later */
/* treematch.c: the rank order an MPI's own topology-aware reordering
 * chooses for a profile, the peer the benchmark puts beside topomap's plan
 * (t/bench/peer).
 *
 *   treematch MATRIX HOSTFILE
 *
 * MATRIX is a profile's bytes, row i to column j, as `topomap profile
 * export --what bytes` writes it, for as many ranks as the step has.  Every
 * rank gives MPI_Dist_graph_create its row (its out-edges, weighted by
 * bytes) with reorder = 1: Open MPI's topo/treematch component
 * (OMPI_MCA_topo=treematch) may then hand each process another rank in the
 * new communicator.  (Not MPI_Dist_graph_create_adjacent: treematch
 * implements only MPI_Dist_graph_create, and Open MPI's base component,
 * which never reorders, serves the other.)  The application rank r of the
 * graph runs on the host of the process that got rank r, so rank 0 writes
 * HOSTFILE: one host a line, in application rank order, as srun's
 * -m arbitrary and `topomap plan --price` read it.  It prints
 *
 *   treematch ranks=N moved=M across_nodes=K
 *
 * M ranks the MPI gave another rank, K of them to a process on another
 * host than the one srun's order had put that rank on (0: reordered
 * within nodes only, or not at all).  Exit 1 on bad input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* The n x n matrix in path: n lines of n finite figures >= 0, separated
 * by commas; or NULL with a message (rank 0 reads).
 */
static double *read_matrix (const char *path, int n)
{
    FILE *f = fopen (path, "r");
    double *m = calloc ((size_t)n * (size_t)n, sizeof (*m));
    char *line = NULL;
    size_t cap = 0;
    int row = 0;

    if (!f || !m) {
        fprintf (stderr, "treematch: %s: cannot read\n", path);
        goto fail;
    }
    while (getline (&line, &cap, f) > 0) {
        char *p = line, *end;
        int col = 0;

        if (row == n) {
            fprintf (stderr, "treematch: %s:%d: more than %d rows\n", path, row + 1, n);
            goto fail;
        }
        for (;;) {
            double v = strtod (p, &end);
            if (end == p || !isfinite (v) || v < 0 || col == n) {
                fprintf (stderr, "treematch: %s:%d: expected %d figures >= 0 and commas\n", path,
                         row + 1, n);
                goto fail;
            }
            m[(size_t)row * n + col++] = v;
            if (*end != ',')
                break;
            p = end + 1;
        }
        if ((*end != '\n' && *end != '\0') || col != n) {
            fprintf (stderr, "treematch: %s:%d: expected %d figures >= 0 and commas\n", path,
                     row + 1, n);
            goto fail;
        }
        row++;
    }
    if (row != n) {
        fprintf (stderr, "treematch: %s: %d rows, not %d\n", path, row, n);
        goto fail;
    }
    free (line);
    fclose (f);
    return m;
fail:
    free (line);
    if (f)
        fclose (f);
    free (m);
    return NULL;
}

int main (int argc, char **argv)
{
    int rank, size, ok = 1, newrank, nout = 0, len;
    int *out, *outw;
    double *m = NULL, max = 0;
    char host[MPI_MAX_PROCESSOR_NAME] = "", *hosts = NULL;
    int *newof = NULL;
    MPI_Comm graph;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0)
            fprintf (stderr, "usage: treematch MATRIX HOSTFILE\n");
        MPI_Finalize ();
        return 2;
    }
    if (rank == 0 && !(m = read_matrix (argv[1], size)))
        ok = 0;
    MPI_Bcast (&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        MPI_Finalize ();
        return 1;
    }
    if (rank != 0 && !(m = malloc ((size_t)size * (size_t)size * sizeof (*m))))
        MPI_Abort (MPI_COMM_WORLD, 1);
    MPI_Bcast (m, size * size, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    /* Weights: bytes scaled to 1 .. 2^20 (MPI's are ints). */
    for (int k = 0; k < size * size; k++)
        if (m[k] > max)
            max = m[k];
    out = malloc ((size_t)size * sizeof (*out));
    outw = malloc ((size_t)size * sizeof (*outw));
    if (!out || !outw)
        MPI_Abort (MPI_COMM_WORLD, 1);
    for (int j = 0; j < size; j++) {
        double o = m[(size_t)rank * size + j];
        if (j != rank && o > 0) {
            out[nout] = j;
            outw[nout++] = 1 + (int)(o / max * (1 << 20));
        }
    }
    MPI_Dist_graph_create (MPI_COMM_WORLD, 1, &rank, &nout, out, outw, MPI_INFO_NULL, 1, &graph);
    MPI_Comm_rank (graph, &newrank);
    MPI_Get_processor_name (host, &len);

    if (rank == 0 && (!(hosts = calloc ((size_t)size, sizeof (host))) ||
                      !(newof = malloc ((size_t)size * sizeof (int)))))
        MPI_Abort (MPI_COMM_WORLD, 1);
    MPI_Gather (host, (int)sizeof (host), MPI_CHAR, hosts, (int)sizeof (host), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    MPI_Gather (&newrank, 1, MPI_INT, newof, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        char **at = calloc ((size_t)size, sizeof (*at));
        int moved = 0, across = 0;
        FILE *f = fopen (argv[2], "w");

        if (!at || !f) {
            fprintf (stderr, "treematch: %s: cannot write\n", argv[2]);
            MPI_Abort (MPI_COMM_WORLD, 1);
        }
        for (int p = 0; p < size; p++) {
            at[newof[p]] = hosts + (size_t)p * sizeof (host);
            if (newof[p] != p) {
                moved++;
                across += strcmp (hosts + (size_t)p * sizeof (host),
                                  hosts + (size_t)newof[p] * sizeof (host)) != 0;
            }
        }
        for (int r = 0; r < size; r++)
            fprintf (f, "%s\n", at[r]);
        if (fclose (f) != 0) {
            fprintf (stderr, "treematch: %s: cannot write\n", argv[2]);
            MPI_Abort (MPI_COMM_WORLD, 1);
        }
        printf ("treematch ranks=%d moved=%d across_nodes=%d\n", size, moved, across);
        free (at);
    }
    MPI_Comm_free (&graph);
    free (out);
    free (outw);
    free (m);
    free (hosts);
    free (newof);
    MPI_Finalize ();
    return 0;
}
