/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurmtopo.h: the order in which Slurm lays a step's tasks out over its
 * nodes where it ranks them by its topology.
 *
 * Slurm 26.05 ranks a job's nodes by the topology of the job's partition
 * when it allocates them (select/cons_tres job_test.c,
 * topology_g_get_rank; not with SelectTypeParameters=CR_NO_DIST_TOPO_BLOCK)
 * and then picks a step's nodes and lays a block step's tasks out over
 * them in rank order, ties in allocation order (stepmgr.c
 * _pick_step_nodes, slurm_step_layout.c _task_layout_topo).  The ranks:
 *   topology/tree   the place of the node's leaf switch (Level=0) among
 *                   the leaf switches, from 1, in slurmctld's order (its
 *                   configuration's); 0 under none
 *   topology/block  the node's base block's BlockIndex (from 0); 0 in none
 *   topology/flat   names in natural order, which is allocation order
 * TopologyParam=SwitchAsNodeRank (tree) and BlockAsNodeRank (block)
 * reorder slurmctld's node table itself, so that the allocation's node
 * list no longer gives its order; ring and torus3d rank otherwise.  Those
 * are not predicted.
 *
 * The topology is read as slurm_print_topo_info_msg prints it (scontrol
 * show topology), one switch or block a line:
 *   SwitchName=s1 Level=0 LinkSpeed=1 Nodes=n[1,3]
 *   SwitchName=top Level=1 LinkSpeed=1 Nodes=n[1-4] Switches=s[1-2]
 *   BlockName=b1 BlockIndex=0 Nodes=n[1-4] BlockSize=4
 *   AggregatedBlock=b1-2 BlockIndex=2 Nodes=n[1-8] BlockSize=8
 * (tree: 26.05's topology_tree.c, block: topology_block.c).
 */
#ifndef TOPOMAP_SLURMTOPO_H
#define TOPOMAP_SLURMTOPO_H

#include <stddef.h>

#include "lib/error.h"

/* How Slurm orders a step's nodes (slurmtopo_ranks). */
typedef enum {
    SLURMTOPO_ALLOC = 0,  /* allocation order */
    SLURMTOPO_RANKED = 1, /* the topology's ranks */
    SLURMTOPO_UNKNOWN = 2 /* not predicted */
} slurmtopo_order_t;

/* The ranks Slurm gives nodes[0..n) (the allocation, in its order) by the
 * topology printed in text (NULL or "": topology/flat), under
 * TopologyParam param (NULL: none), into rank[n].  Returns
 * SLURMTOPO_RANKED with rank filled; SLURMTOPO_ALLOC; SLURMTOPO_UNKNOWN
 * with why saying which rule is not predicted; in all three name (namelen
 * bytes) says which order it is for people ("topology order
 * (topology/tree)").  -1 with errp "topology line L: fault" for a line
 * that is not KEY=VALUE words of one kind, a tree line without a Level,
 * a block line without a BlockIndex, a bad number or host list; ENOMEM.
 */
int slurmtopo_ranks (const char *text, const char *param, int n, char *const *nodes, int *rank,
                     char *name, size_t namelen, char *why, size_t whylen, tm_error_t *errp);

/* The topology printed in text as a topology.conf of switches
 * (lib/topoconf.h), for topomap's netmaps, into *conf (a new string):
 * a tree's switches as they are (Slurm prints a switch's nodes beneath it
 * too; a leaf keeps its own); blocks as a tree, each base block a leaf
 * switch of its nodes, each aggregated block a switch over the blocks
 * within it that no smaller aggregate holds, each named b<BlockIndex>.  -1 with errp: no switch or
 * block (ENOENT: topology/flat, none), a kind it cannot say (ENOTSUP), a line
 * as slurmtopo_ranks refuses it (EINVAL), ENOMEM.
 */
int slurmtopo_conf (const char *text, char **conf, tm_error_t *errp);

#endif
