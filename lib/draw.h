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

/* The bytes each rank sent to each other rank, on a logarithmic colour
 * scale; a profile of at most DRAW_MAX_RANKS tasks (its n x n matrix is
 * held whole: 1 GiB at the most).
 */
#define DRAW_MAX_RANKS 11585
int draw_profile (const profile_t *p, const char *title, const char *path, tm_error_t *errp);

/* Latency and bandwidth between the hosts, hosts ordered by their inferred
 * group (switch or cluster), groups outlined.
 */
int draw_netmap (const netmap_t *nm, const char *title, const char *path, tm_error_t *errp);

/* The block candidate of res (srun's layout) and the chosen one, side by
 * side: which ranks each node runs, nodes grouped as the netmap infers
 * their switches, and the bytes between nodes under each layout, with the
 * share that crosses groups and the predicted communication time.
 */
int draw_placement (const profile_t *p, const netmap_t *nm, const map_result_t *res,
                    const char *path, tm_error_t *errp);

#endif
