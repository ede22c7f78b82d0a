/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netmap_show.h: a netmap as people read it (`topomap netmap show`). */
#ifndef TOPOMAP_CLI_NETMAP_SHOW_H
#define TOPOMAP_CLI_NETMAP_SHOW_H

#include <stdio.h>

#include "lib/netmap.h"

/* The pairs of nm's hosts, and in *measured and *again those the probe
 * measured, and measured more than once (in doubt). */
long netmap_pairs (const netmap_t *nm, long *measured, long *again);

/* Hosts up to which netmap show prints the matrices unasked. */
#define SHOW_MATRICES_MAX 32

/* Print nm for people: header, model, tree or groups, then latency and
 * bandwidth tables, with matrices 1, or beyond SHOW_MATRICES_MAX hosts
 * with matrices -1, the pairs' figures by level.  name labels the netmap.
 * Returns 0, -1 with errno set on an output error or when out of memory.
 */
int netmap_show (FILE *f, const netmap_t *nm, const char *name, int matrices);

#endif
