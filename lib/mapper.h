/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mapper.h: choose a node for every rank of a step.
 *
 * Inputs: a profile (what each pair of ranks sends), a netmap (what each
 * pair of nodes costs) and slots (the step's nodes in srun's order and how
 * many ranks each takes).  After CloudMap §IV-C (Scotch dual recursive
 * bipartitioning onto the measured network), then exact capacities, then
 * swap refinement on the true cost model, then a guard that prices srun's
 * own layouts and keeps the cheapest, never one that loads the busiest
 * link (of a node, or a switch's uplink) as much as block or more.
 *
 * Cost model: ranks i, j on nodes a, b cost
 *     msgs(i,j) * lat(a,b) + bytes(i,j) / bw(a,b)        (combined)
 * or only the first term (latency) or only the second (bandwidth); pairs
 * on one node are priced from the netmap's intra-node figures (0 where
 * those were not measured).  Seconds of communication, summed over every
 * directed pair of the profile.
 */
#ifndef TOPOMAP_MAPPER_H
#define TOPOMAP_MAPPER_H

#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/inside.h"
#include "lib/netmap.h"
#include "lib/profile.h"

typedef enum {
    MAP_COMBINED = 0,
    MAP_LATENCY,
    MAP_BANDWIDTH,
} map_metric_t;

/* "combined", "latency", "bandwidth" <-> map_metric_t; parse returns -1
 * when unknown.
 */
int map_metric_parse (const char *name, map_metric_t *m);
const char *map_metric_name (map_metric_t m);

/* One node of the step: netmap host index and the ranks it takes. */
typedef struct {
    int host;
    int count;
} map_slot_t;

/* A layout priced under the cost model. */
typedef struct {
    char name[16];            /* "topomap", "scotch", "block", "cyclic", "previous" */
    int *node;                /* [ntasks] netmap host index of each rank */
    double cost_s;            /* predicted communication time (model) */
    double comm_s;            /* CloudMap Eq. 4: inter-node bytes / bandwidth */
    uint64_t internode_bytes; /* CloudMap Eq. 2 */
    uint64_t internode_msgs;
    double link_s; /* the busiest link: the model's time of what
                      one node, or one group of the netmap's
                      topology behind an uplink of its own, sends
                      or receives over the network, the most of
                      any */
} map_candidate_t;

typedef struct {
    int ntasks;
    map_metric_t metric;
    int ncandidates;
    map_candidate_t *cand;      /* the plan first, then block, cyclic, previous */
    int chosen;                 /* index of the cheapest in cand that loads the
                                   busiest link less than block; block on a tie */
    double time_s;              /* wall time spent planning */
    double scotch_s;            /* of it: Scotch's mapping (on big steps, the
                                   greedy start is made and refined beside
                                   it, on a thread of its own), */
    double repair_s;            /* making it fit the capacities, */
    double refine_s;            /* refining it and the other starts, */
    double multisection_s;      /* of it: the multisection start, made and
                                   refined, or found not to be had */
    double multisection_cost_s; /* that start's cost, refined; NaN where the
                                   nodes are no tree, it could not be made,
                                   or the plan is not refined with exact
                                   capacities */
    const char *best;           /* the start the plan comes from: "scotch",
                                   "greedy", "multisection", "block", "cyclic" */
} map_result_t;

typedef struct {
    map_metric_t metric;
    const int *previous; /* [ntasks] a previous plan to price, or NULL */
    int refine;          /* swap refinement after Scotch (default 1) */
    int exact;           /* exact capacities (default 1); 0: Scotch as is */
    unsigned seed;       /* Scotch's random seed, fixed for determinism */
} map_params_t;

void map_params_default (map_params_t *p);

/* Check that profile, netmap and slots fit together: slots name distinct
 * hosts of nm with counts >= 1 that add up to the profile's task count; nm
 * has finite, positive figures for every pair of slot hosts; the profile
 * is not empty.  -1 with errp naming the fault.
 */
int map_validate (const profile_t *p, const netmap_t *nm, int nslots, const map_slot_t *slots,
                  tm_error_t *errp);

/* Plan: validate, map with Scotch, fix capacities, refine, price the
 * candidates, choose.  Every candidate gives each slot exactly its count.
 * Deterministic for the same inputs and parameters.  Returns 0 and fills
 * res, or -1 with errp set (res untouched).
 */
int map_plan (const profile_t *p, const netmap_t *nm, int nslots, const map_slot_t *slots,
              const map_params_t *params, map_result_t *res, tm_error_t *errp);
void map_result_free (map_result_t *res);

/* Price a layout: fills cost_s, comm_s, internode_bytes, internode_msgs
 * and link_s of c.  -1 (ENOMEM) when out of memory.
 */
int map_price (const profile_t *p, const netmap_t *nm, map_metric_t metric, map_candidate_t *c);

/* A layout of cost cost's gain over one of cost base: the share of base
 * it saves, 0 when base is not above 0. */
double map_gain (double cost, double base);

/* The odds that layout node beats base (both [ntasks], nm's hosts) as
 * the network really is, not only as it measured: both priced again on
 * netmaps drawn from nm's spread s (netmap_spread_draw: each pair the two
 * layouts use takes the figures of a measured pair alike;
 * netmap_spread_draw_uplinks: each uplink measured under load the figure
 * of an uplink alike), the same draws
 * for both, on each of runs (a profile's recordings; a draw's gain is the
 * least over them).  A gain is the share of base's cost node saves, in
 * total and at the busiest link.  nm's figures are changed while it
 * draws and given back before it returns.  Deterministic.  draws 0 in out
 * when no pair the layouts use has pairs alike to draw from (the figures
 * stand as they are).  -1 with errp on ENOMEM.
 */
#define MAP_ODDS_DRAWS 200
#define MAP_ODDS_LEVEL 0.95 /* the share of draws a plan must win */
typedef struct {
    int draws;               /* netmaps drawn (0: none to draw) */
    int wins;                /* of them, those in which node gains min_gain
                                over base in total and at the busiest link */
    double gain_lo, gain_hi; /* the gain in total: its 5th and 95th
                                percentiles over the draws (1 -
                                MAP_ODDS_LEVEL), so a winning plan's lo
                                is min_gain or more */
    double link_lo, link_hi; /* the same at the busiest link */
} map_odds_t;

int map_odds (const profile_t *const *runs, int nruns, netmap_t *nm, const netmap_spread_t *s,
              map_metric_t metric, const int *node, const int *base, double min_gain,
              map_odds_t *out, tm_error_t *errp);

/* The best plan, from plan (nm's hosts, [ntasks], every slot exactly its
 * count), whose nodes each hold consecutive ranks: a node order, block
 * over it, which MPICH's PMI-1 mapping says in one block a node however
 * many ranks there are.  The nodes start in the order of the mean rank
 * plan gives each; swaps of two nodes' places are kept while they lower
 * the cost (every pair up to 64 nodes, neighbours beyond; half a second at
 * most).  Fills out ("consecutive", node allocated: free out->node), priced
 * as map_price does.  -1 with errp: plan does not fit the slots (EINVAL),
 * ENOMEM.
 */
int map_consecutive (const profile_t *p, const netmap_t *nm, map_metric_t metric, int nslots,
                     const map_slot_t *slots, const int *plan, map_candidate_t *out,
                     tm_error_t *errp);

/* srun's layouts over slots: block fills each slot in turn; cyclic deals
 * ranks round-robin over the slots with room left.  node is [ntasks].
 */
void map_layout_block (int nslots, const map_slot_t *slots, int *node);
void map_layout_cyclic (int nslots, const map_slot_t *slots, int *node);

/* The nodes to which layout node (hosts, [ntasks]) gives more ranks than
 * their slots' counts, a node of no slot counting as one of count 0: 0 for
 * a layout that can run.  -1 (ENOMEM) when out of memory.
 */
int map_overfull (const netmap_t *nm, int nslots, const map_slot_t *slots, int ntasks,
                  const int *node);

/* The inside pass (mapper_inside.c): the CPUs of each rank on its node,
 * after the nodes.  srun binds by local task id (a node's ranks numbered
 * in rank order) with one list for every node, so the pass chooses one
 * list for the traffic of all nodes at once, over the units (groups of
 * cpt CPUs of one L3 domain) block binding uses: block binds local id k
 * to the k-th unit in CPU order.  It also prices Slurm's own binding of
 * such a step (task/affinity's auto binding, lllp_cyclic: local ids dealt
 * to the packages in turn), which is what the ranks get when the plan
 * does not bind.  Pairs on one node cost by the level at which their CPUs
 * meet (the inside's figures); pairs on two nodes are not its concern.
 */
typedef struct {
    int nlocal;      /* local task ids: the most ranks a node takes */
    int cpt;         /* CPUs per task */
    int *cpus;       /* [nlocal * cpt] the plan: local id k's CPUs (OS
                        indexes) at k * cpt */
    int *block;      /* [nlocal * cpt] block binding likewise */
    double cost_s;   /* the in-node pairs' cost under the plan */
    double block_s;  /* the same under block */
    double cyclic_s; /* under Slurm's own binding; NaN where pairs meet
                        at a level not measured */
    int changed;     /* the plan binds differently from block */
} map_inside_t;

/* The inside pass for the step of profile p whose rank i runs on node
 * node[i] (any ids >= 0; equal ids, one node), every node of inside in.
 * The plan is block's binding unless another is cheaper.  params: the
 * metric and seed (NULL: defaults).  -1 with errp set when the nodes take
 * more ranks than in has units (EINVAL), or the figures of a level block's
 * units span were not measured (ENODATA).
 */
int map_inside (const profile_t *p, const int *node, const inside_t *in, int cpt,
                const map_params_t *params, map_inside_t *out, tm_error_t *errp);
void map_inside_free (map_inside_t *out);

/* map_inside for the plan node[] (nm's host indexes) with nm's insides:
 * every node of the plan must have one, all of one shape (one list serves
 * all); each level's figures are the median of the nodes'.  -1 with errp
 * naming the node at fault; -2, errp saying why, when the step is not one
 * to bind: no node of the plan has an inside, or the step's ranks take
 * more units than a node has.
 */
int map_inside_netmap (const profile_t *p, const netmap_t *nm, const int *node, int cpt,
                       const map_params_t *params, map_inside_t *out, tm_error_t *errp);

/* The binding as srun's --cpu-bind value into buf[len]: "map_cpu:C0,C1,..."
 * for one CPU a task, "mask_cpu:0xM0,..." for several.  -1 when it does
 * not fit ("" in buf).
 */
int map_inside_cpu_bind (const map_inside_t *b, char *buf, size_t len);

/* --explain: the candidates, their predicted costs and the choice, and
 * the ranks each node of it takes; beyond MAP_EXPLAIN_NODES nodes, how
 * many nodes take how many ranks. */
#define MAP_EXPLAIN_NODES 32
int map_explain (FILE *f, const map_result_t *res, const netmap_t *nm);

/* --explain of a profile with a check: each of res's candidates priced on
 * p (one of its recordings whole, where the plan was made from what they
 * share), cost and busiest link with their ratios to block, the choice
 * marked.  -1 (ENOMEM, EINVAL).
 */
int map_explain_on (FILE *f, const map_result_t *res, const profile_t *p, const netmap_t *nm);

#endif
