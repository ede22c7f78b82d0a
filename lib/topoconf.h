/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topoconf.h: Slurm's topology.conf, as its topology/tree plugin reads it,
 * in and out of topomap's switch trees.
 *
 *   SwitchName=s1 Nodes=n[1-3] LinkSpeed=...
 *   SwitchName=s3 Switches=s[1-2]
 *
 * One switch a line (a line ending in '\' goes on), keys in any case,
 * '#' to the end of a line a comment; a switch has Nodes= (a leaf) or
 * Switches= (children by name), never both; LinkSpeed= is read and
 * ignored (its units are the site's own: Slurm does not use it either).
 * Host and switch lists are Slurm host lists, through libslurm
 * (lib/compat.h).  Checked on Slurm 22.05.8's
 * src/plugins/topology/tree/topology_tree.c: the same keys and rules,
 * where Slurm only warns of a node under two leaf switches, which topomap
 * refuses, as it refuses a switch under two parents (no tree).
 *
 * The figures of each level are topomap's own, in comments Slurm skips:
 *
 *   #topomap level=1 latency_us=12.5 bandwidth_MBps=117
 *
 * level L: the pairs whose nearest common switch is L switches above a host
 * (topo_t.height; 1: one edge switch).
 */
#ifndef TOPOMAP_TOPOCONF_H
#define TOPOMAP_TOPOCONF_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/netmap.h"
#include "lib/pairs.h"
#include "lib/topology.h"
#include "lib/topology_links.h"

#define TOPOCONF_LEVELS 16 /* levels with figures: 1..TOPOCONF_LEVELS - 1 */

typedef struct {
    double lat_us;  /* one way, NaN where the file gives none */
    double bw_MBps; /* NaN where the file gives none */
} topoconf_level_t;

/* Whether s is a host list as Slurm documents them, checked before
 * libslurm parses it (some releases' parsers never return from others):
 * items of [A-Za-z0-9._-], each perhaps ending in a bracketed range
 * "[1-4,7]" of numbers of 9 digits at most, separated by commas.
 */
bool topoconf_hostlist_ok (const char *s);

/* The switch tree of the topology.conf at path over hosts[0..n) (NULL:
 * every node of the file, in its order; *n set), as a TOPO_TREE: the
 * switches above those hosts, the root their nearest common switch (a
 * switch of its own over the file's roots where they have several).
 * levels[0..TOPOCONF_LEVELS) get the file's figures (index: level).
 * NULL with errp "PATH:LINE: fault" (errno EINVAL) for: a line that is not
 * KEY=VALUE words starting with SwitchName=, an unknown key or one given
 * twice, a bad host list, a switch named twice, with both or neither of
 * Nodes= and Switches=, a child switch not defined or under two parents, a
 * loop, a node under two switches, a host under none; ENOMEM.
 */
topo_t *topoconf_read (const char *path, int *n, char ***hosts, topoconf_level_t *levels,
                       tm_error_t *errp);

/* topoconf_read of text (modified), a topology.conf from source (named in
 * messages in place of a path).  lines[0..nlines), when not NULL, give
 * the source's line of each line of text (text made from another file:
 * messages name that file's lines).
 */
topo_t *topoconf_parse (char *text, const char *source, const int *lines, int nlines, int *n,
                        char ***hosts, topoconf_level_t *levels, tm_error_t *errp);

/* A netmap of hosts[0..n) over tree t (taken: freed on failure too): every
 * pair the figures of its level, none measured (measured 0), intra-node
 * figures not known, made now.  NULL with errp naming the first level some pair
 * needs that levels[] has no figures for (ENODATA), EINVAL, ENOMEM.
 */
netmap_t *topoconf_netmap (topo_t *t, int n, const char *const *hosts,
                           const topoconf_level_t *levels, tm_error_t *errp);

/* Pairs to measure the links of tree t by, when the file gives no
 * figures: below every switch, one host under each child, paired with
 * the children one and two further round the switch (every pair of them
 * where it has five or fewer), so every link is crossed at its switch's
 * level by one pair (two children), two (three), three (four) or four
 * pairs; then up to per_level pairs a level, spread over the level's
 * switches and their children, on hosts in as few pairs as the tree
 * allows (hosts a < b, into out[0..max); 4 * hosts + per_level *
 * TOPOCONF_LEVELS is room enough).  Returns how many; -1 with errp: t is no switch tree or
 * per_level < 1 (EINVAL), more than max pairs (ENOSPC), ENOMEM.
 */
int topoconf_pairs (const topo_t *t, int per_level, pairs_t *out, int max, tm_error_t *errp);

/* Every pair of nm that was not measured (measured 0) given the figures
 * of tree t's links its measured pairs tell: its level's median (of the
 * pairs measured there that cross no slow link), or a slow link's on its
 * way (lib/topology_links.h).  t becomes nm->topo (taken: freed on failure
 * too; the old one freed).  levels (NULL: not wanted) gets those
 * medians, NaN for a level with no pair measured.  -1 with errp: t is no
 * switch tree over nm's hosts, or a level some pair needs has no pair
 * measured (EINVAL, naming the level and a pair), ENOMEM.
 */
int topoconf_fill (netmap_t *nm, topo_t *t, topoconf_level_t *levels, tm_error_t *errp);

/* nm's switch tree as a topology.conf to f: a comment naming source, the
 * figures of each level (the medians of its pairs), then a SwitchName line
 * a switch, edges first, named for their level, "l<level>s<index>" in
 * order of their lowest host; hosts and child switches as compressed host
 * lists.  A switch with hosts and child switches both gets its hosts on a
 * leaf switch of their own.  -1 with errp: no tree in nm (EINVAL), ENOMEM,
 * a write error.
 */
int topoconf_write (FILE *f, const netmap_t *nm, const char *source, tm_error_t *errp);

#endif
