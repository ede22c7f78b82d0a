/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inside_hwloc.h: a node's inside (inside.h) as hwloc sees it, and
 * binding the calling process to one of its CPUs.  In libtopomap-hwloc,
 * linked by the probe only: neither the plugin nor the command-line tool
 * needs hwloc.
 *
 * hwloc's own environment applies: HWLOC_XMLFILE or HWLOC_SYNTHETIC
 * describe another machine (the emulated cluster's nodes, by a TaskProlog;
 * topomap-cluster(8)), and HWLOC_THISSYSTEM=1 lets such a description
 * bind this one.
 */
#ifndef TOPOMAP_INSIDE_HWLOC_H
#define TOPOMAP_INSIDE_HWLOC_H

#include "lib/error.h"
#include "lib/inside.h"

typedef struct inside_hw inside_hw_t;

/* Load this node's topology.  NULL with errp set when hwloc cannot. */
inside_hw_t *inside_hw_open (tm_error_t *errp);
void inside_hw_close (inside_hw_t *hw);

/* The CPUs the process may use (hwloc's allowed set: the job's cgroup
 * where it has one), each PU one CPU; its L3 domain (its core when no L3
 * cache covers it) and its package (one for all when hwloc reports
 * none).  Figures NaN.
 */
inside_t *inside_hw_read (inside_hw_t *hw, tm_error_t *errp);

/* Bind the calling process to the CPU of OS index cpu; cpu -1 restores
 * the binding it had at inside_hw_open.  -1 with errp set.
 */
int inside_hw_bind (inside_hw_t *hw, int cpu, tm_error_t *errp);

#endif
