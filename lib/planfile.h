/* SPDX-License-Identifier: GPL-2.0-or-later */
/* planfile.h: a plan (a node for every rank) as the files launchers read.
 *
 *   PLAN_HOSTFILE   Slurm's arbitrary distribution (SLURM_HOSTFILE, srun
 *                   -m arbitrary): one node name per line, line r+1 for
 *                   rank r.
 *   PLAN_RANKFILE   Open MPI's rankfile (mpirun --rankfile F up to 4.x,
 *                   --map-by rankfile:file=F from 5.0): "rank R=NODE
 *                   slot=S", S counting the ranks of NODE.
 *   PLAN_RANK_ORDER Cray MPICH's MPICH_RANK_ORDER file, read with
 *                   MPICH_RANK_REORDER_METHOD=3: the ranks in the order
 *                   they fill the nodes, node after node in the order
 *                   given, comma-separated on one line.
 *   PLAN_MACHINEFILE  MPICH's Hydra machine file (mpiexec -f F): a line
 *                   "NODE:COUNT" for each run of consecutive ranks on one
 *                   node.  Hydra gives each line's ranks in turn and merges
 *                   a line only into the one just before it, so a node on
 *                   several lines gets a proxy, and a shared-memory
 *                   domain, per line (src/pm/hydra/lib/utils/others.c,
 *                   HYDU_add_to_node_list).
 */
#ifndef TOPOMAP_PLANFILE_H
#define TOPOMAP_PLANFILE_H

#include <stdio.h>

#include "lib/error.h"

typedef enum {
    PLAN_HOSTFILE = 0,
    PLAN_RANKFILE,
    PLAN_RANK_ORDER,
    PLAN_MACHINEFILE,
} plan_format_t;

/* "hostfile", "rankfile", "cray" (or "mpich", its former name),
 * "machinefile" <-> plan_format_t; -1 when unknown.
 */
int plan_format_parse (const char *name, plan_format_t *fmt);
const char *plan_format_name (plan_format_t fmt);

/* Print the plan of ntasks ranks, node[r] an index into names (nnodes of
 * them; order is the nodes' order for PLAN_RANK_ORDER), in fmt to f.
 * Every index is checked against nnodes and every name used against
 * layout_check_name first.
 */
int plan_print (FILE *f, plan_format_t fmt, int ntasks, const int *node, int nnodes,
                char *const *names, tm_error_t *errp);

/* plan_print into a new buffer *bufp (free it) of *lenp bytes. */
int plan_text (char **bufp, size_t *lenp, plan_format_t fmt, int ntasks, const int *node,
               int nnodes, char *const *names, tm_error_t *errp);

/* plan_print into path through a temporary file and a rename, mode. */
int plan_write (const char *path, int mode, plan_format_t fmt, int ntasks, const int *node,
                int nnodes, char *const *names, tm_error_t *errp);

/* Read a PLAN_HOSTFILE of ntasks ranks from path (one node name a line,
 * line r+1 for rank r, as plan_print writes it; Slurm's own reader also
 * takes comments, blank lines and NAME*COUNT, which this one refuses) into
 * node[r], an index into names (nnodes of them).  -1 with errp naming the
 * file, the line and the fault: an empty line, a name not among names, not
 * a node name (layout_check_name), a NUL byte, fewer or more lines than
 * ntasks; errno EINVAL, or the open's or read's.
 */
int plan_read_hostfile (const char *path, int ntasks, int nnodes, char *const *names, int *node,
                        tm_error_t *errp);

#endif
