/* SPDX-License-Identifier: GPL-2.0-or-later */
/* draw: SVG pictures of what topomap measured, recorded and decided, for
 * people to look at: heatmaps of a profile and of a netmap, and the rank
 * placement of srun's layout next to topomap's.
 *
 * Each writes a whole SVG document to path through file_replace (mode
 * 0644): the file appears complete or not at all.  0, or -1 with errp set.
 */
#ifndef TOPOMAP_DRAW_H
#define TOPOMAP_DRAW_H

#include "lib/error.h"
#include "lib/mapper.h"
#include "lib/netmap.h"
#include "lib/profile.h"

/* A heatmap has at most DRAW_CELLS rows: beyond, a cell is a block of
 * consecutive ranks or nodes.
 */
#define DRAW_CELLS 128

/* The bytes each rank sent to each other rank, on a logarithmic colour
 * scale, titled by the program, the job and when it was recorded.
 */
int draw_profile (const profile_t *p, const char *path, tm_error_t *errp);

/* Latency and bandwidth between the hosts, hosts ordered by their inferred
 * group (switch or cluster), groups outlined; bright is fast in both.
 */
int draw_netmap (const netmap_t *nm, const char *path, tm_error_t *errp);

/* The block candidate of res (srun's layout) and the chosen one, side by
 * side: which ranks each node runs, nodes grouped as the netmap infers
 * their switches, and the bytes between nodes under each layout on one
 * colour scale, with the share that crosses groups and the cost model's
 * communication time.
 */
int draw_placement (const profile_t *p, const netmap_t *nm, const map_result_t *res,
                    const char *path, tm_error_t *errp);

#endif
