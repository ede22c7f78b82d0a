/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pairs.h: the probe's lists of pairs beyond "every pair once"
 * (lib/schedule.h): the pairs whose figures are in doubt and are measured
 * again, in rounds of disjoint pairs.
 *
 * A figure is in doubt where it breaks the ultrametric inequality of a
 * switch tree by far: in a tree, the cost between hosts a and b is at most
 * the larger cost of any path a - c - ... - b.  A busy machine, a burst on
 * a link or a scheduler's hiccup slow a single measurement; they do not
 * speed one.  So a pair that costs ratio times the minimax path over the
 * other pairs (the subdominant ultrametric, from the minimum spanning
 * tree) was most likely slowed, and its second measurement decides.
 */
#ifndef TOPOMAP_PAIRS_H
#define TOPOMAP_PAIRS_H

#include "lib/error.h"

typedef struct {
    int a, b; /* hosts, a < b */
} pairs_t;

/* The pairs in doubt among n hosts (n * n matrices, row a from host a;
 * diagonals ignored): measured[a * n + b] > 0 and the pair's latency
 * (lat_us) or transfer time (1 / bw_MBps; either matrix may be NULL)
 * is more than ratio times the minimax path between a and b over the
 * measured pairs; the two directions of a pair are taken together (the
 * lower latency, the mean transfer time).  At most max of them, the
 * farthest off first, in out[].  Returns how many; -1 with errp set on
 * bad arguments (EINVAL) or ENOMEM.
 */
int pairs_doubt (int n, const double *lat_us, const double *bw_MBps, const int *measured,
                 double ratio, int max, pairs_t *out, tm_error_t *errp);

/* The pairs of the hosts a switch tree leaves alone on an edge switch:
 * host h alone in its group (group[h] < ngroups: the tree's edges), the
 * pairs of h and every host of its PAIRS_LONE_NEAR nearest groups (two
 * hosts or more; nearest by h's best pair into each, on one signal: the
 * lower latency of lat_us, or the mean transfer time of bw_MBps, the one
 * not NULL), the nearest first, at most max of them in out[].  A busy core
 * that slows all of one host's pairs sets it apart where no figure can
 * show it: its pairs in its own edge may read slower than those to the
 * next edge, so its edge is either of the nearest two, and only a second
 * measurement decides.  A host alone on its switch for real costs those
 * pairs once.  Returns how many; -1 with errp set on bad arguments
 * (EINVAL) or ENOMEM.
 */
#define PAIRS_LONE_NEAR 2

int pairs_lone (int n, const double *lat_us, const double *bw_MBps, const int *measured,
                const int *group, int ngroups, int max, pairs_t *out, tm_error_t *errp);

/* The pairs between sibling edges of a switch tree that together have
 * few pairs: edges q and r (group[h] < ngroups) under one switch (up[q] ==
 * up[r] >= 0, up[q] the switch above edge q, -1 at the root) with
 * size(q) * size(r) <= PAIRS_SPLIT_FEW; the pairs of the closest two edges
 * first (the median figure between their hosts, on lat_us or bw_MBps: the
 * one not NULL, as pairs_lone), at most max pairs in out[].  Slowed pairs,
 * every pair between two halves of one edge, pass for a level of their
 * own when they are few (two hosts and two: four pairs); no figure tells
 * such a split from a real one, and a second measurement decides.
 * Returns how many; -1 with errp set on bad arguments (EINVAL) or ENOMEM.
 */
#define PAIRS_SPLIT_FEW 4

int pairs_split (int n, const double *lat_us, const double *bw_MBps, const int *measured,
                 const int *group, const int *up, int ngroups, int max, pairs_t *out,
                 tm_error_t *errp);

/* Reorder p[0..np) (hosts below n) into rounds of disjoint pairs, the
 * rounds in order: each pair in the round after the later of its two
 * hosts' pairs before it, so each host meets its pairs in their order.  Returns the number of
 * rounds; -1 with errp set on bad arguments (EINVAL) or ENOMEM.
 */
int pairs_rounds (int n, pairs_t *p, int np, tm_error_t *errp);

#endif
