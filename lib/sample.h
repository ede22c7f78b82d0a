/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sample.h: the probe's sampling plan: O(N log N) pairs, chosen as it
 * goes, and the others inferred from the switch tree they reveal.
 *
 * 1. A skeleton: every pair among sample_skeleton(n) hosts, in runs of
 *    consecutive index (names follow racks), and topo_infer_net over
 *    them: a tree of switches whose levels stand apart and fit closely
 *    (else a skeleton twice the size, else every pair).
 * 2. Every other host descends that tree from its root.  At a switch it
 *    is measured against one host under each child (children holding a
 *    host whose index is nearest its own first, a few children a step)
 *    until one figure is below the switch's level: under the geometric
 *    mean of that level's figure and the next one down.  A figure near
 *    that threshold is confirmed by more hosts under the same child, their
 *    median deciding (up to nine).  Under no child, the host hangs from the
 *    switch (an edge), or founds a subtree the skeleton did not see with
 *    the hosts next to it in index order that are clearly near it; at the
 *    root, beyond its level from most hosts, a new root above it.
 * 3. A verification: sibling subtrees that are one merged, mixed edges of
 *    the skeleton split, small subtrees under levels that stand less than
 *    1.6 apart inferred again from all their pairs, hosts whose pairs
 *    contradict their place placed again.
 * 4. sample_finish: every pair not measured takes the median figures of
 *    the measured pairs as far apart in the tree.
 *
 * Finding its edge switch among L switches under one parent costs a host
 * about L / 2 pairs whatever the plan (two hosts' figures alone cannot
 * tell sibling switches apart): the plan costs n times the switches
 * under each switch on the way down, halved, plus the skeleton.  Where
 * the skeleton shows no tree, or a level below its edges (names that do
 * not follow the switches), every pair is measured.
 */
#ifndef TOPOMAP_SAMPLE_H
#define TOPOMAP_SAMPLE_H

#include "lib/error.h"
#include "lib/pairs.h"
#include "lib/topology.h"

typedef struct sample sample_t;

/* The skeleton's size for n hosts: n up to 6, else max(6, sqrt(n) log2(n) / 3)
 * (16 hosts: 6, 32: 10, 512: 68, 4096: 256). */
int sample_skeleton (int n);

/* A plan over n >= 2 hosts whose figures the caller keeps in lat_us,
 * bw_MBps and measured (n * n, row major, netmap's layout): the plan
 * reads the pairs it asked for there, and sample_finish fills the rest.
 * tp: topo_infer_net's parameters (NULL: defaults).  seed draws the
 * skeleton.  NULL with errp set on bad arguments (EINVAL) or ENOMEM.
 */
sample_t *sample_create (int n, double *lat_us, double *bw_MBps, int *measured,
                         const topo_params_t *tp, unsigned seed, tm_error_t *errp);

/* The next pairs to measure, in *pairs (the plan's array, valid until
 * the next call).  Before the next call the caller measures each, writes
 * both directions of lat_us and bw_MBps and sets measured > 0.  Returns
 * how many; 0 when the plan is complete; -1 with errp set (ENOMEM, or
 * EINVAL when a pair asked for was not measured or has a figure that is
 * not finite and > 0).
 */
int sample_next (sample_t *s, const pairs_t **pairs, tm_error_t *errp);

/* Once sample_next returned 0: the topology found, and every pair not
 * measured (measured <= 0, off the diagonal) filled in both matrices.  The
 * topology's residual is topo_fit's over the measured pairs alone.
 * The caller owns the result.  NULL with errp set on ENOMEM or when
 * called early (EINVAL).
 */
topo_t *sample_finish (sample_t *s, tm_error_t *errp);

/* Pairs measured so far (each pair once, whatever its directions). */
long sample_measured (const sample_t *s);

void sample_destroy (sample_t *s);

#endif
