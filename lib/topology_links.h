/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology_links.h: the links of a site's switch tree, measured.
 *
 * A site's file (topology.conf, topology.yaml, slurmctld's answer) says
 * which nodes share a switch, not how fast each link is: a degraded cable
 * or a slow node link is in no file.  The probe measures every link
 * (topoconf_pairs); here each link above a vertex (its uplink, a host's
 * own link for a host) gets the best figures of the pairs measured across
 * it at its switch's level (no pair beats a link it crosses; the second
 * best where three pairs or more cross it, so one pair measured too fast
 * cannot lift it), a level at a time from the hosts up, leaving out pairs
 * that cross a slow link below (they tell nothing of the links above it).
 */
#ifndef TOPOMAP_TOPOLOGY_LINKS_H
#define TOPOMAP_TOPOLOGY_LINKS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "lib/netmap.h"
#include "lib/pairs.h"
#include "lib/topology.h"

/* A link is slow where its figure is TOPO_LINK_SLOW times below the best
 * link of its level that another link confirms within TOPO_LINK_SLOW (one
 * link measured faster than it carries names no healthy peer slow), and
 * its switch has three children or more:
 * two pairs through different partners then say which link is slow (with
 * two children, one pair cannot tell which of the two it crossed).  Where
 * its uplink was measured under load (topo_t.uplink_MBps), it is slow as
 * well when that figure is TOPO_LINK_SLOW times below the best of its
 * siblings' with as many hosts below, and its pairs' figure at least
 * TOPO_LINK_LEANS times below the level's best: a load of seconds tells a
 * degraded uplink when the healthy links' few pairs measured low on a
 * busy host, and the pairs still have to agree.
 */
#define TOPO_LINK_SLOW  1.5
#define TOPO_LINK_LEANS 1.2

/* Levels (switch heights) counted: 0 .. TOPO_LINK_LEVELS - 1. */
#define TOPO_LINK_LEVELS 16

/* Every pair of nm not measured (measured 0) given the figures of tree t
 * (over nm's hosts) its measured pairs tell: its level's median, of the
 * pairs measured there that cross no slow link (of them all where every
 * one does), or the figures of a slow link on its way, the worst of them.
 * lat[0..nlevels) and bw[] get those medians, NaN for a level with no pair
 * measured.  -1 with errp: a level some pair needs (below nlevels) has no
 * pair measured (EINVAL, naming the level and a pair), ENOMEM.
 */
int topo_links_fill (netmap_t *nm, const topo_t *t, int nlevels, double *lat, double *bw,
                     tm_error_t *errp);

/* The measured pairs of tree t (measured[n*n] > 0, figures bw_MBps[n*n],
 * either direction) whose bandwidth is TOPO_LINK_SLOW times below the
 * best pair of their level that a pair sharing no host with it confirms
 * within TOPO_LINK_SLOW (one host's pairs measured past its link's rate
 * put no healthy pair in doubt): before a pair may say a link is
 * slow it is measured again (a pair now and then measures at half its
 * rate).  At most max into out[] (a < b), the slowest first.  How many;
 * -1 on ENOMEM.
 */
int topo_links_doubts (const topo_t *t, const double *bw_MBps, const int *measured, pairs_t *out,
                       int max);

/* Which links of nm's tree are slow: a new array over its vertices (the
 * link above each), NULL where nm has no tree over its hosts or on
 * ENOMEM. */
bool *topo_links_flags (const netmap_t *nm);

/* The slow links of nm's tree (a site's, as topo_links_fill priced it) in
 * text[len], "; " between them, each as "the link above n5..n8 (4 nodes):
 * 6.02 MB/s against 23.4 at level 2" (a host's own link: "n5's link"); ""
 * when none or when nm has no tree.  How many, -1 on ENOMEM.
 */
int topo_links_slow (const netmap_t *nm, char *text, size_t len);

/* The probe's uplink measurement (--uplink-s): what each uplink of a tree
 * carries with every host below it sending out at once.  Under each
 * switch with two children or more that are switches, child i's hosts
 * stream to child i+1's (the last's to the first's), host k to host k,
 * so each such uplink carries as many streams out as in, and no stream
 * leaves that switch: the switches of one depth are measured in one
 * round, their links disjoint.  A stream runs seconds at its pair's
 * measured rate (at least TOPO_STREAM_MIN_BYTES, at most max_bytes).
 */
#define TOPO_STREAM_MIN_BYTES (64 * 1024)
typedef struct {
    int round;    /* the depth of the switch the stream stays under */
    int src, dst; /* hosts */
    int from, to; /* the children of that switch they sit under */
    double bytes;
} topo_stream_t;

/* The streams over nm's tree (a TOPO_TREE over its hosts), by round, in a
 * new array *out (NULL when none).  How many; 0 without such a tree; -1
 * on ENOMEM.
 */
int topo_uplink_plan (const netmap_t *nm, double seconds, double max_bytes, topo_stream_t **out);

/* Each measured uplink's figure into nm->topo->uplink_MBps from the
 * streams' times (secs[k], from their round's start to the last byte;
 * not above 0: failed, and its switches stay unmeasured): a child's
 * bytes out over the longest of its streams out, likewise in, the better
 * of the two (each a lower bound of a link used both ways at once; a
 * slow link slows both).  With two children, a slow uplink slows its
 * sibling's figures too: a pair of links measured against each other
 * cannot tell which is slow.  0, -1 on ENOMEM.
 */
int topo_uplink_figures (netmap_t *nm, const topo_stream_t *s, int ns, const double *secs);

/* The uplinks of nm's tree measured under load in text[len], "; " between
 * them, each as "the link above n5..n8 (4 nodes): 23.9 MB/s"; "" when
 * none.  How many.
 */
int topo_uplinks_text (const netmap_t *nm, char *text, size_t len);

#endif
