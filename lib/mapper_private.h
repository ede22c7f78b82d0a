/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mapper_private.h: what the parts of the mapper share (mapper.c: the
 * interface, pricing and the guard; mapper_graph.c: the profile's graph
 * and a layout's cost over it; mapper_scotch.c: the initial mapping by
 * Scotch and its error hooks; mapper_refine.c: exact capacities,
 * refinement, the greedy start).  Calls go from mapper.c down to the
 * others, and from them to mapper_graph.c only.  Not for callers of the
 * mapper.
 *
 * Inside the mapper a layout is a slot index per rank (0..nslots-1), not a
 * netmap host index: slots are the nodes of the step, in srun's order.
 */
#ifndef TOPOMAP_MAPPER_PRIVATE_H
#define TOPOMAP_MAPPER_PRIVATE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "lib/mapper.h"

/* What rank i sends to neighbour j (out) and receives from it (in). */
typedef struct {
    double out_msgs;
    double out_bytes;
    double in_msgs;
    double in_bytes;
} map_weight_t;

/* The profile as an undirected graph: row i lists the ranks that rank i
 * sends to or receives from, sorted, without i itself; what i sends to
 * itself is kept apart (priced on i's node).
 */
typedef struct {
    int n;
    size_t *row;        /* [n + 1] */
    int *col;           /* [row[n]] */
    map_weight_t *w;    /* [row[n]] */
    double *self_msgs;  /* [n] */
    double *self_bytes; /* [n] */
} map_graph_t;

/* The cost model over the slots of one step. */
typedef struct {
    const netmap_t *nm;
    int nslots;
    const int *host;            /* [nslots] netmap host of each slot */
    const int *cap;             /* [nslots] ranks each slot takes */
    int use_lat;                /* the metric prices messages */
    int use_bw;                 /* the metric prices bytes */
    double typ_lat_s;           /* mean latency between two slots, seconds */
    double typ_s_per_byte;      /* mean 1 / bandwidth between two slots */
    struct map_pair_figs *pair; /* [nslots * nslots] slot pair figures for
                                   map_pair_cost, or NULL (too many slots) */
} map_model_t;

/* The figures map_cost_hosts uses for one pair of slots x, y, looked up
 * once: latency in us (0 where the metric drops it or it was not measured)
 * and bandwidth in bytes/s (+inf likewise), from x to y (out) and from y
 * to x (in).  Then every term of map_cost_hosts is the same IEEE operation
 * on the same numbers, or adds 0: the cost is the same to the last bit.
 * Both directions in one entry: pricing a rank's moves reads the rows of
 * its two slots only, which stay in cache, not a column of the table.
 */
struct map_pair_figs {
    double out_lat_us;
    double out_bw_Bps;
    double in_lat_us;
    double in_bw_Bps;
};

/* The largest slot count with a pair table: 2048 slots, 128 MiB (as much
 * again as the netmap of 2048 nodes).
 */
#define MAP_PAIR_TABLE_MAX 2048

/* Seconds to move msgs messages of bytes bytes in all from host ha to host
 * hb under the metric: netmap_cost() without its checks, terms dropped by
 * the metric, intra-node figures not measured (NaN) costing nothing.
 */
static inline double map_cost_hosts (const map_model_t *m, int ha, int hb, double msgs,
                                     double bytes)
{
    const netmap_t *nm = m->nm;
    size_t k = (size_t)ha * (size_t)nm->n + (size_t)hb;
    double c = 0;

    if (m->use_lat && msgs != 0) {
        double lat = nm->lat_us[k];
        if (!isnan (lat))
            c += msgs * lat * 1e-6;
    }
    if (m->use_bw && bytes != 0) {
        double bw = nm->bw_MBps[k];
        if (!isnan (bw))
            c += bytes / (bw * 1e6);
    }
    return c;
}

/* The cost of the traffic between a rank on slot x and a neighbour on
 * slot y, both directions, w seen from the first rank.
 */
static inline double map_pair_cost (const map_model_t *m, int x, int y, const map_weight_t *w)
{
    int hx, hy;

    if (m->pair) {
        const struct map_pair_figs *e = &m->pair[(size_t)x * (size_t)m->nslots + (size_t)y];

        return (w->out_msgs * e->out_lat_us * 1e-6 + w->out_bytes / e->out_bw_Bps) +
               (w->in_msgs * e->in_lat_us * 1e-6 + w->in_bytes / e->in_bw_Bps);
    }
    hx = m->host[x];
    hy = m->host[y];
    return map_cost_hosts (m, hx, hy, w->out_msgs, w->out_bytes) +
           map_cost_hosts (m, hy, hx, w->in_msgs, w->in_bytes);
}

/* The distance of slots x and y: one message of msgsize bytes each way. */
static inline double map_slot_distance (const map_model_t *m, double msgsize, int x, int y)
{
    return map_cost_hosts (m, m->host[x], m->host[y], 1, msgsize) +
           map_cost_hosts (m, m->host[y], m->host[x], 1, msgsize);
}

/* What the metric prices of the traffic w at the network's mean figures:
 * the weight of an edge for Scotch, and the pull of a node on a rank.
 */
static inline double map_typical_weight (const map_model_t *m, const map_weight_t *w)
{
    double c = 0;

    if (m->use_lat)
        c += (w->out_msgs + w->in_msgs) * m->typ_lat_s;
    if (m->use_bw)
        c += (w->out_bytes + w->in_bytes) * m->typ_s_per_byte;
    return c;
}

/* mapper_graph.c */

/* The graph of p: every entry (s, d) an arc of row s (out) and one of row
 * d (in), arcs of one row to one rank merged.  -1 with errp set. */
int map_graph_build (const profile_t *p, map_graph_t *g, tm_error_t *errp);

/* Free what g holds (not g); g may be zeroed. */
void map_graph_free (map_graph_t *g);

/* The mean size of g's messages, for distances (1000 bytes where it sends
 * none).
 */
double map_graph_msgsize (const map_graph_t *g);

/* The cost of a slot layout over the graph (what map_price gives). */
double map_graph_cost (const map_graph_t *g, const map_model_t *m, const int *slot);

/* mapper_scotch.c */

/* Forget Scotch's last error; the first error Scotch reported since. */
void map_scotch_error_clear (void);
const char *map_scotch_error (void);

/* An initial layout by Scotch's dual recursive bipartitioning onto the
 * slots; slot[i] for every rank, not necessarily respecting the counts.
 */
int map_scotch (const map_graph_t *g, const map_model_t *m, unsigned seed, int *slot,
                tm_error_t *errp);

/* Partition a graph of n vertices (arcs xadj/adj, both directions, with
 * integer loads load >= 1, every vertex of load 1) into nparts parts whose
 * sizes follow weight[nparts]: Scotch's k-way mapping onto a weighted
 * complete graph, its quality strategy.  part[i] in 0..nparts-1; the
 * sizes are Scotch's balance, not exact.
 */
int map_scotch_part (int n, const int *xadj, const int *adj, const int *load, int nparts,
                     const int *weight, unsigned seed, int *part, tm_error_t *errp);

/* mapper_multisection.c */

/* A layout by multisection, where the slots form a tree (see the file):
 * 1 with slot[i] for every rank, not necessarily respecting the counts;
 * 0 when the slots' distances are no tree (slot then undefined); -1 with
 * errp.  on_tree (when not NULL) is called with arg once the slots are
 * known to form a tree, before the layout is made.
 */
int map_multisection (const map_graph_t *g, const map_model_t *m, unsigned seed, int *slot,
                      void (*on_tree) (void *), void *arg, tm_error_t *errp);

/* V-cycles on the k-way partition part[n] of the graph (xadj, adj, load)
 * into parts of capacity cap[k] (mapper_vcycle.c): 0, -1 with errp.
 */
int map_vcycle (int n, const int *xadj, const int *adj, const int *load, int k, const int *cap,
                unsigned seed, int ncycles, int *part, tm_error_t *errp);

/* mapper_refine.c */

/* Move ranks out of over-full slots into slots with room, each time the
 * move that costs least, until every slot holds exactly its count.
 */
int map_repair (const map_graph_t *g, const map_model_t *m, int *slot, tm_error_t *errp);

/* Swap (and move into free room) ranks while that strictly lowers the
 * cost, at most maxpass passes over the ranks.  Never changes how many
 * ranks a slot holds except to fill room up to its count.
 */
int map_refine (const map_graph_t *g, const map_model_t *m, int *slot, int maxpass,
                tm_error_t *errp);

/* A greedy layout that gives every slot exactly its count (MPIPP-like). */
int map_greedy (const map_graph_t *g, const map_model_t *m, int *slot, tm_error_t *errp);

/* With every slot holding exactly its count: swap the groups of ranks of
 * two slots of equal count while that strictly lowers the cost, at most
 * maxpass passes over the slots.  With helper, a second thread may share
 * the pricing (the caller runs no other thread meanwhile); the result is
 * the same.  Returns 1 when a helper did, 0 when not, -1 on error.
 */
int map_refine_nodes (const map_graph_t *g, const map_model_t *m, int *slot, int maxpass,
                      bool helper, tm_error_t *errp);

#endif
