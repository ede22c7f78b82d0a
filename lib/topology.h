/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.h: the shape of the network, inferred from measured latencies.
 *
 * Two models, after Lawrence & Yuan and CloudMap (doc/references.md):
 *
 *  TOPO_TREE    the measurements fit a tree of switches: Lawrence & Yuan's
 *               data clustering of round-trip times, hop-count inference
 *               (smallest gap) and tree reconstruction; or, where links are
 *               shaped per level, the levels of the dendrogram below.
 *  TOPO_GROUPS  they do not (clouds, shaped heterogeneity): average-linkage
 *               hierarchical clustering of the hosts on measured cost gives
 *               a dendrogram, and its top-level split the groups.
 *
 * Both are stored the same way, as a rooted tree over vertices: vertices
 * 0..nhosts-1 are the hosts (leaves), the others are switches (TOPO_TREE)
 * or clusters (TOPO_GROUPS).  parent[v] is -1 for the root only.
 */
#ifndef TOPOMAP_TOPOLOGY_H
#define TOPOMAP_TOPOLOGY_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/pairs.h"

/* No vertex of a switch tree lies this many switches below its root. */
#define TOPO_MAX_DEPTH 64

typedef enum {
    TOPO_TREE = 1,
    TOPO_GROUPS = 2,
} topo_model_t;

/* The measurement a topology was inferred from, or the site's own
 * description of its switches (lib/topoconf.h). */
typedef enum {
    TOPO_SIGNAL_LATENCY = 1,
    TOPO_SIGNAL_BANDWIDTH = 2,
    TOPO_SIGNAL_SITE = 3,
} topo_signal_t;

typedef struct {
    topo_model_t model;
    int nhosts;           /* vertices 0..nhosts-1 are hosts */
    int nvertices;        /* hosts + switches or clusters */
    int *parent;          /* [nvertices]; -1 for the root */
    double *height;       /* [nvertices]; TOPO_GROUPS: merge cost of a
                             cluster (us; s/MB on signal bandwidth), 0
                             for hosts; TOPO_TREE: hop level of a
                             switch above the hosts, the switches on the shortest
                             way down to a host, itself included (1 = edge switch,
                             one that hosts attach to), 0 for hosts */
    int ngroups;          /* hosts in the same group share an edge switch
                             (TOPO_TREE) or a top-level cluster (TOPO_GROUPS) */
    int *group;           /* [nhosts]; 0..ngroups-1, numbered in order of the
                             lowest host of each group */
    topo_signal_t signal; /* what it was inferred from (latency unless
                             topo_infer_net chose bandwidth) */
    double residual;      /* TOPO_TREE: topo_fit's residual on that signal;
                             NaN when not known */
    double *uplink_MBps;  /* [nvertices]: what the link above each vertex
                             carried with every host below it sending out
                             at once (MB/s, the probe's --uplink-s); NaN
                             where not measured, always for the root */
} topo_t;

typedef struct {
    /* Lawrence & Yuan's data clustering (§3.2, Figure 7), with
     * relative thresholds.  Sorted RTTs that exceed the one before by at
     * most noise_threshold of it fall in one class.  Adjacent classes are
     * then merged when their centres differ by less than inter_threshold
     * of the lower one and by less than 4 times the larger spread of the
     * two (the paper's INTER_THRESHOLD).  A class whose RTTs stray more
     * than inter_threshold from its centre is not one hop count: the
     * latencies are then no tree's.  Defaults 0.05 and 0.15.
     */
    double noise_threshold;
    double inter_threshold;
    /* Whether latency may tell levels (1, the default): topo_infer_net
     * then weighs the latencies' tree and their clustering cut at its
     * gaps.  0 where several hosts share one machine's CPUs (emulated
     * nodes): a small ping's latency follows which ranks share a core,
     * and such a pattern can pass for a level; with bandwidths at hand
     * the levels are theirs alone, and the latencies give only groups.
     */
    int lat_levels;
} topo_params_t;

/* A topology with every array allocated: parent -1, height 0, group 0,
 * signal latency, residual NaN.
 * Each array is its own allocation; topo_destroy frees them all.
 */
topo_t *topo_alloc (topo_model_t model, int nhosts, int nvertices, tm_error_t *errp);

/* Check t's structure: a known model, 1 <= nhosts <= nvertices, exactly
 * one root, parents in range, no cycle, hosts are leaves, groups in range
 * and every group used.  Returns 0, or -1 with errp naming the fault.
 */
int topo_check (const topo_t *t, tm_error_t *errp);

/* Default parameters. */
void topo_params_default (topo_params_t *p);

/* Infer the topology of n hosts from their symmetric n*n latency matrix
 * (row major, microseconds, diagonal ignored; each pair taken as the mean
 * of its two directions).  Tries TOPO_TREE first (topo_ly_classes,
 * topo_ly_hops, topo_ly_tree; up to 1024 hosts), then the levels of topo_cluster's
 * dendrogram (topo_levels), and falls back to TOPO_GROUPS (topo_cluster)
 * when the latencies form no tree either way; errp is then left saying why,
 * and cleared for a tree.  n == 1 gives a tree of that host alone (its
 * root), n == 2 a tree of one switch.  Returns NULL with errp set and
 * errno EINVAL on invalid input (n < 1, non-finite or negative
 * off-diagonal entries), ENOMEM out of memory.  A pair whose one direction
 * is over twice the other is taken at the smaller: noise only adds.
 */
topo_t *topo_infer (int n, const double *lat_us, const topo_params_t *p, tm_error_t *errp);

/* The steps of Lawrence & Yuan (§3), exposed for tests and for
 * `topomap netmap show`.  rtt is n*n, row major, diagonal ignored; a pair's
 * RTT is the mean of its two directions.  Hop counts are switches on the
 * path between two hosts (§2): 1 for hosts on one switch.  On error these
 * set errno: EINVAL for bad input or latencies that are no tree's, ENOMEM.
 *
 * topo_ly_classes: cluster the RTTs of the pairs (§3.2, Figure 7; see
 *   topo_params_t, p NULL for defaults); class[i*n+j] gets the class index
 *   (0 = smallest RTTs), the same for [j*n+i], -1 on the diagonal.
 *   Returns the number of classes (0 for one host), -1 on error or when a
 *   class is wider than noise.
 * topo_ly_hops: hop count of every pair from the classes; hops[i*n+j], 0
 *   on the diagonal.  When the classes form an ultrametric (in every
 *   triple of hosts the two largest classes are equal: hosts on edge
 *   switches only, links costing per level), each class is a level of
 *   the tree and class k is 2k+1 hops.  Otherwise the paper's heuristic:
 *   the smallest gap between class centres (middles of their ranges) is
 *   one hop, class 0 one hop.  Returns 0 (hops may still be no tree's),
 *   -1 on error.
 * topo_ly_tree: the switch tree of a hop matrix (§3.1, Figure 4), checked
 *   to give back every entry, then rooted at its centre (the middle of a
 *   longest path between hosts: the core of a tree of levels); switches
 *   n.. in the order the algorithm finds them.  NULL with errp set when
 *   the hop matrix is not that of a tree.
 */
int topo_ly_classes (int n, const double *rtt, const topo_params_t *p, int *class,
                     tm_error_t *errp);
int topo_ly_hops (int n, const double *rtt, const int *class, int nclasses, int *hops,
                  tm_error_t *errp);
topo_t *topo_ly_tree (int n, const int *hops, tm_error_t *errp);

/* Average-linkage (UPGMA) hierarchical clustering of n hosts on the cost
 * matrix (any unit, diagonal ignored, the mean of both directions).
 * Vertex n+s is merge s, of the two closest clusters (the lowest pair on
 * ties), its height the average cost between them.  Groups are the
 * clusters below the largest gap between successive merge heights, or one
 * group when that gap is under a fifth of the height above it.  Always
 * succeeds for valid input: n >= 1, entries finite and >= 0.
 */
topo_t *topo_cluster (int n, const double *cost, tm_error_t *errp);

/* A switch tree from the levels of a dendrogram d (topo_cluster's), for
 * links shaped to different rates per level, where a level costs what its
 * slowest link does rather than a number of hops.  Merge costs come in
 * bands: a merge at least 2.5 times the lowest of a band opens the next
 * (noise from scheduling on a busy node reaches 2), one within 1.5 times
 * it is in the band, and one between is neither: no tree.  A merge and its parent in one band
 * are one switch, at level band + 1 (1: the edge).  It is a tree of
 * switches only when every host joins at the edge band and every switch
 * hangs from the band just above its own (hosts on edge switches only,
 * as Lawrence & Yuan assume).  NULL with errp set and errno EINVAL
 * otherwise, ENOMEM out of memory.
 */
topo_t *topo_levels (const topo_t *d, tm_error_t *errp);

/* How well tree t explains a measured matrix x (n*n, row major, diagonal
 * ignored, a pair the mean of its two directions; latency, or seconds per
 * byte): in a tree, pairs as many switches apart measure alike.  Pairs are
 * classed by hop count; *residual is the largest over the classes of the
 * median of |x - m| / m over the class's pairs, m the class's median (each
 * level on its own: the top level's pairs, most of them, must not hide a
 * level the signal does not tell apart); *sep the least ratio of
 * the medians of two successive classes (the larger hop count's over the
 * smaller's; +inf with one class).  Beyond 2^16 pairs, every k-th pair
 * (in the order (0,1), (0,2), ..., (1,2), ...) stands for the others.
 * A pair with an entry NaN was not measured and is left out.
 * Returns the number of classes, -1 with errp set (errno EINVAL: t is no
 * tree of n hosts, x has an entry not NaN, finite and > 0; ENOMEM).
 */
int topo_fit (const topo_t *t, int n, const double *x, double *residual, double *sep,
              tm_error_t *errp);

/* topo_fit over the pairs p[0..np) of hosts below n alone, x[k] the figure
 * of pair k (the mean of its directions, or as the caller takes them),
 * without an n*n matrix: for a plan that measured few of them.  Beyond
 * 2^16 pairs, every k-th stands for the others.  -1 with errp set (EINVAL:
 * t is no tree of n hosts, a pair or figure out of range; ENOMEM).
 */
int topo_fit_pairs (const topo_t *t, int n, const pairs_t *p, const double *x, long np,
                    double *residual, double *sep, tm_error_t *errp);

/* topo_fit's acceptance of a tree inferred from bandwidth: at least two
 * classes, residual at most TOPO_FIT_RESIDUAL, classes at least
 * TOPO_FIT_SEP apart.  With +-20 % jitter a class's median absolute
 * deviation is about 0.1 of its median; beside a busy host (+-30 %, one
 * aggregation's pairs 1.3 times the other's) the true tree's reaches
 * 0.26.
 */
#define TOPO_FIT_RESIDUAL 0.3
#define TOPO_FIT_SEP      1.3

/* The topology of n hosts from both signals of a netmap (bw_MBps NULL:
 * latency alone).  Candidates: topo_infer's tree on the latencies; and on
 * the latencies and on the transfer times (1 / bandwidth), the levels of
 * their clustering cut at its largest gaps, each host then moved to the
 * edge switch it is nearest on average (noise merges some late or into
 * the wrong cluster), accepted when topo_fit explains the signal within
 * TOPO_FIT_RESIDUAL and its levels stand TOPO_FIT_SEP apart.  The tree
 * that tells most levels apart wins, then the one of more switches, then
 * the one that fits best; the result's signal and residual say which and
 * how well.  With lat_levels 0 and bandwidths given, the latencies are no
 * candidate beyond a tree of one switch.  With no tree, topo_infer's
 * groups (the latencies' clustering where their tree is no candidate), or
 * the transfer times' clustering where its groups stand apart as
 * topo_split_one's must, errp saying why no tree.  Errors as
 * topo_infer's, and bandwidths must be finite and > 0 off the diagonal.
 */
topo_t *topo_infer_net (int n, const double *lat_us, const double *bw_MBps, const topo_params_t *p,
                        tm_error_t *errp);

/* A topology t of one group (a tree of one switch) inferred from the
 * figures of n hosts, or the transfer times' groups where those stand
 * apart (every pair across costs more than every pair within) and further
 * than t's: when the ranks of many nodes share a machine's CPUs, every
 * round trip waits alike and latency shows no switch.  For the netmap a
 * probe writes; topo_infer_net's own callers (the sampling plan) take
 * one switch as it is.  Returns t or the groups (t freed); NULL with errp
 * on ENOMEM (t freed).  bw_MBps NULL, or a pair without finite figures
 * (latency >= 0, bandwidth > 0): t.
 */
topo_t *topo_split_one (int n, topo_t *t, const double *lat_us, const double *bw_MBps,
                        tm_error_t *errp);

/* Hop distance between hosts a and b in t: the number of switches
 * (clusters) on the path between them, as Lawrence & Yuan §2 counts it; 1 for
 * hosts on one switch, 0 when a == b.
 */
int topo_hops (const topo_t *t, int a, int b);

/* The subtree of t under vertex v as nested parentheses of names (of
 * the hosts): hosts first, then child vertices in order of their lowest
 * host.  Canonical: two trees print the same exactly when they are the
 * same.  -1 (ENOMEM) when out of memory.
 */
int topo_nested (FILE *f, const topo_t *t, const char *const *names, int v);

/* The depth of every vertex of t below its root (a new array, to free);
 * NULL on ENOMEM. */
int *topo_depths (const topo_t *t);

/* The count of hosts under every vertex of t, a host counting 1 (a new
 * array, to free); NULL on ENOMEM. */
int *topo_hosts_below (const topo_t *t);

/* Whether uplinks v and w of t are alike: under one switch, as many hosts
 * below each (below from topo_hosts_below), as a fat tree builds them. */
bool topo_uplinks_alike (const topo_t *t, const int *below, int v, int w);

/* The height (topo_t.height: 1 an edge switch) of the nearest common
 * switch of hosts a and b of a TOPO_TREE, depth from topo_depths. */
int topo_level (const topo_t *t, const int *depth, int a, int b);

void topo_destroy (topo_t *t);

#endif
