/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layout.h: the geometry of a job step and the layout srun would give it
 * by itself, and the SLURM_HOSTFILE that replaces that layout.
 *
 * After Slurm 22.05.8's sources: srun's _opt_verify and _set_ntasks,
 * launch.c's step request, slurmctld's _pick_step_nodes and
 * _calc_cpus_per_task, slurm_step_layout.c's block, cyclic and pack
 * layouts, and the hostfile reader (src/api/allocate.c); see
 * doc/design.md for the facts and the releases they were checked on.
 *
 * Node lists are expanded by the caller (libslurm's hostlist functions);
 * this unit takes arrays of node names.  Allocation order is the order of
 * SLURM_JOB_NODELIST, which is also the order of SLURM_JOB_CPUS_PER_NODE;
 * it must be slurmctld's node-table order (true for the usual sorted
 * NodeName=n[1-N] configurations).
 */
#ifndef TOPOMAP_LAYOUT_H
#define TOPOMAP_LAYOUT_H

#include <stddef.h>

#include "lib/error.h"

/* The longest node name a hostfile line can carry: Slurm reads hostfile
 * lines into 1024 bytes, newline and NUL included.
 */
#define LAYOUT_NAME_MAX 1022

/* The allocation: its nodes in allocation order and their CPUs. */
typedef struct {
    int nnodes;
    char **nodes; /* [nnodes] Slurm node names, distinct */
    int *cpus;    /* [nnodes] CPUs allocated on each node, >= 1 */
} layout_alloc_t;

/* An allocation of nnodes nodes (names copied, distinct and non-empty)
 * whose CPUs per node are cpus_per_node in SLURM_JOB_CPUS_PER_NODE form
 * ("4(x2),2").  NULL with errp naming the fault.
 */
layout_alloc_t *layout_alloc_create (int nnodes, const char *const *nodes,
                                     const char *cpus_per_node, tm_error_t *errp);
void layout_alloc_destroy (layout_alloc_t *a);

/* Expand s, a SLURM_JOB_CPUS_PER_NODE value ("4(x2),2" -> 4,4,2), into
 * cpus[nnodes].  Strict: comma-separated items "<count>" or
 * "<count>(x<reps>)", decimal digits only, count >= 1, reps >= 1, and
 * exactly nnodes entries in all.  -1 with errp naming the fault (and both
 * node counts on a mismatch); cpus is then undefined.
 */
int layout_parse_cpus (const char *s, int nnodes, int *cpus, tm_error_t *errp);

/* What the step asks for: srun's options as slurm_option_get() returns
 * them at slurm_spank_init_post_opt (after _opt_verify).  Values from
 * before _opt_verify give the same answer: the adjustments _opt_verify
 * and _set_ntasks make are made again here.  Without ntasks_set, ntasks
 * is derived (from the node count, ntasks-per-node or cpus-per-task and
 * the allocation's CPUs) and the value given is not used.
 */
typedef struct {
    int ntasks;               /* "ntasks", >= 1 */
    int ntasks_set;           /* slurm_option_isset "ntasks": -n, SLURM_NTASKS or SLURM_NPROCS */
    int nodes_min;            /* "nodes" "min" or "min-max", >= 1 (in an allocation */
    int nodes_max;            /* SLURM_JOB_NUM_NODES sets it); nodes_max 0 means nodes_min */
    int tasks_per_node;       /* "ntasks-per-node", 0 unset (srun's -2) */
    int cpus_per_task;        /* "cpus-per-task", 0 unset */
    int overcommit;           /* "overcommit" is set */
    const char *distribution; /* "distribution": NULL unset, "block", "cyclic:block",
                               * "plane=4", "arbitrary", ",pack"/",nopack" flags, ... */
    int pack_nodes;           /* SelectTypeParameters has CR_PACK_NODES (slurm_load_ctl_conf) */
    const int *node_rank;     /* [nnodes of the allocation] each node's topology rank where
                               * Slurm lays steps out in the topology's order (26.05+,
                               * lib/slurmtopo.h); NULL: allocation order */
} layout_request_t;

/* The step srun would run. */
typedef struct {
    int ntasks; /* task count (srun's final -n: export it as SLURM_NTASKS) */
    int nnodes; /* nodes used: the first nnodes of the allocation (of layout_node_order
                 * where the request ranks nodes) */
    int cyclic; /* rank order over those nodes: 1 round-robin among nodes with
                 * room (map_layout_cyclic), 0 contiguous (map_layout_block) */
    int topo;   /* with cyclic 0: contiguous in the topology's order
                 * (layout_node_order of the request's node_rank), not the
                 * allocation's */
} layout_step_t;

/* The allocation's n nodes in the order Slurm lays a step out over them
 * where it ranks them by topology: by node_rank, ties in allocation order
 * (slurm_step_layout.c _cmp_node_rank, 26.05), into order[n]; NULL
 * node_rank: allocation order.  -1 (ENOMEM) when out of memory.
 */
int layout_node_order (int n, const int *node_rank, int *order);

/* srun's own layout of the step r in allocation a: the step's task count,
 * its nodes and the tasks each node gets, counts[a->nnodes] (0 on the
 * nodes it does not use).
 *
 * This holds inside an existing allocation, for a single-component step
 * without -w, -F, -x or -r, with no other step of the job running without
 * --overlap, and without memory, GRES, --threads-per-core, --hint,
 * -B/--extra-node-info or one-task-per-core/socket constraints: the caller
 * refuses those (research §1.4).
 *
 * Returns 0 with step and counts filled when the layout is predictable;
 * 1 with a short reason for people in why (whylen bytes) when it is not,
 * or when srun would not run the step at all (distribution plane or
 * arbitrary, a node count range, more nodes than allocated, more CPUs than
 * the nodes have, unequal CPU counts with fewer step nodes than allocated
 * nodes); -1 with errp set on invalid input.  step and counts are
 * undefined unless 0 is returned.
 */
int layout_default (const layout_alloc_t *a, const layout_request_t *r, layout_step_t *step,
                    int *counts, char *why, size_t whylen, tm_error_t *errp);

/* Whether ranks sit exactly as srun's layout would count them: every
 * node_of_rank[r] in 0..nnodes-1 and node i holding counts[i] ranks.
 * names (may be NULL) name the nodes in the message.  -1 with errp naming
 * the first rank or node at fault.
 */
int layout_check_ranks (int nnodes, const int *counts, int ntasks, const int *node_of_rank,
                        char *const *names, tm_error_t *errp);

/* Whether name can stand alone on a SLURM_HOSTFILE line and reach
 * slurmctld as that one node: 1..LAYOUT_NAME_MAX bytes, starting with an
 * ASCII letter or digit, without whitespace, control characters, ',' (a
 * separator), '*' (a repeat count), '#' (a comment) or '[' ']' (hostlist
 * ranges).  -1 with errp naming the name and the fault.
 */
int layout_check_name (const char *name, tm_error_t *errp);

/* PMI_process_mapping, the value by which PMI clients (MPICH's, Open
 * MPI's PMI-2 component) learn which ranks share a node:
 *   "(vector,(N,C,K),...)"  C nodes from node N on, K ranks on each, in
 *                           rank order, the blocks covering every rank.
 * Slurm's pmi2 plugin (setup.c, _get_proc_mapping) has no such value for
 * an arbitrary distribution, which SLURM_HOSTFILE is: it says
 * "(vector,(0,N,1))", every rank on a node of its own, and MPICH then
 * uses no shared memory.  The plugin gives slurmstepd the plan's own
 * (topomap.so(8)).
 *
 * The longest value MPICH's PMI-1 client reads whole from Slurm: 1024
 * bytes less the names Slurm's get_maxes allows (256 for the KVS, 64 for
 * the key) and 30, NUL included (simple_pmi.c, PMI_vallen_max).
 */
#define LAYOUT_PMI_MAPPING_MAX 673

/* The mapping of ntasks ranks, rank r on node node_of_rank[r] (0 up, the
 * step's node index), into buf (len bytes), in the fewest blocks rank
 * order allows.  -1 with errp set (E2BIG: the bytes it needs) when it is
 * longer than len - 1 bytes or than LAYOUT_PMI_MAPPING_MAX.
 */
int layout_pmi_mapping (int ntasks, const int *node_of_rank, char *buf, size_t len,
                        tm_error_t *errp);

/* Read s, a mapping as above, strictly: decimal numbers without signs or
 * spaces, C and K >= 1, blocks covering exactly ntasks ranks, into
 * node_of_rank[ntasks].  -1 with errp naming the fault.
 */
int layout_pmi_mapping_parse (const char *s, int ntasks, int *node_of_rank, tm_error_t *errp);

#endif
