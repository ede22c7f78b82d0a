/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmimap: which ranks of a step share a node, as Slurm's PMI-2 server tells
 * every rank of an srun --mpi=pmi2 step: its PMI_process_mapping, read with
 * Slurm's own PMI-2 client library (libpmi2).
 *
 * Each rank prints one line, in the form of t/mpi/hello's:
 *   rank=R size=N host=HOST local=L first=F node=K mapping=M
 * where M is the mapping as served, K the node index it gives rank R, and
 * L and F the count and lowest rank of the ranks it puts on node K.  It is
 * the node map an MPICH-family MPI builds from PMI, for the MPIs that keep
 * none of their own (MPICH 5 for ch4:ucx: every rank alone).
 *
 * Exit status 1, with a line on stderr, when PMI fails or the mapping is
 * not "(vector,(N,C,K),...)" covering every rank.
 */
#include <slurm/pmi2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* node_of[r] for ranks 0..size-1 from a PMI vector mapping: blocks of K
 * ranks on each of C nodes from node N on, in rank order, the list taken
 * again from its start while ranks are left (as MPICH reads it).  -1 on a
 * malformed mapping. */
static int parse_mapping (const char *m, int size, int *node_of)
{
    const char *p, *start;
    int r = 0, n, c, k, used;

    if (strncmp (m, "(vector", 7))
        return -1;
    start = m + 7;
    while (r < size) {
        int blocks = 0;
        for (p = start; *p == ','; p += used) {
            if (sscanf (p, ",(%d,%d,%d)%n", &n, &c, &k, &used) != 3 || n < 0 || c < 1 || k < 1)
                return -1;
            for (int i = 0; i < c && r < size; i++)
                for (int j = 0; j < k && r < size; j++)
                    node_of[r++] = n + i;
            blocks++;
        }
        if (strcmp (p, ")") || !blocks)
            return -1;
    }
    return 0;
}

int main (void)
{
    int spawned, size, rank, appnum, found, local = 0, first = -1;
    char mapping[PMI2_MAX_VALLEN + 1] = "", host[256];
    int *node_of;

    if (PMI2_Init (&spawned, &size, &rank, &appnum) != PMI2_SUCCESS || size < 1) {
        fprintf (stderr, "pmimap: PMI2_Init failed (not an srun --mpi=pmi2 step?)\n");
        return 1;
    }
    if (PMI2_Info_GetJobAttr ("PMI_process_mapping", mapping, sizeof (mapping) - 1, &found) !=
            PMI2_SUCCESS ||
        !found) {
        fprintf (stderr, "pmimap: rank %d: no PMI_process_mapping (not an srun --mpi=pmi2 step?)\n",
                 rank);
        return 1;
    }
    if (!(node_of = malloc ((size_t)size * sizeof (*node_of))) ||
        parse_mapping (mapping, size, node_of) < 0) {
        fprintf (stderr, "pmimap: rank %d: cannot read PMI_process_mapping %s\n", rank, mapping);
        return 1;
    }
    for (int r = 0; r < size; r++)
        if (node_of[r] == node_of[rank]) {
            local++;
            if (first < 0)
                first = r;
        }
    if (gethostname (host, sizeof (host)) < 0)
        strcpy (host, "?");
    host[sizeof (host) - 1] = '\0';
    printf ("rank=%d size=%d host=%s local=%d first=%d node=%d mapping=%s\n", rank, size, host,
            local, first, node_of[rank], mapping);
    free (node_of);
    PMI2_Finalize ();
    return 0;
}
