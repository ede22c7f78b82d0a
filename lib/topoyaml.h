/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topoyaml.h: Slurm's topology.yaml (Slurm 25.05 and later; topology.yaml(5)),
 * read with libyaml as Slurm reads it, as the switch tree of a topology.conf
 * (lib/topoconf.h).
 *
 * The file is a list of topologies, each a mapping with "topology" (its
 * name), "cluster_default" and one kind: "tree" (switches: switch,
 * children, nodes), "block" (block_sizes, blocks: block, nodes), or flat,
 * ring, torus3d, which have no switches.  The topology read is the one
 * named, else the first with cluster_default: true, else the only one.
 * A tree's switches become SwitchName= lines as they are; blocks become
 * a tree: each base block a leaf switch of its nodes, each aggregate of
 * block_sizes (power-of-two multiples of the first, over consecutive
 * blocks in the file's order) a switch over the blocks or aggregates
 * within it, and a switch over the top ones when there are several.
 * Host lists are Slurm's ("n[1-4]"), a string or a list of strings.
 */
#ifndef TOPOMAP_TOPOYAML_H
#define TOPOMAP_TOPOYAML_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "lib/topoconf.h"

/* The topology name (NULL: the cluster default) of the topology.yaml text
 * text[0..len) from path, as topology.conf text in *conf (a new string)
 * and, for each of its *nlines lines, the file's line it came from in
 * *lines (a new array).  -1 with errp "PATH:LINE: fault" (errno EINVAL) for YAML
 * that does not parse, a shape topology.yaml(5) does not allow, a name or
 * host list with a blank; ENOENT: no such topology, or one of a kind
 * without switches (flat, ring, torus3d); ENOMEM.
 */
int topoyaml_conf (const char *text, size_t len, const char *path, const char *name, char **conf,
                   int **lines, int *nlines, tm_error_t *errp);

/* Whether path names a topology.yaml rather than a topology.conf: by its
 * name ending in ".yaml", as Slurm names the two. */
bool topoyaml_named (const char *path);

/* topoconf_read (topoconf.h) of the topology.yaml at path (topology name,
 * NULL: the cluster default): the tree over hosts (*n, *hosts as there),
 * levels without figures (the file has none); the topology.conf text in
 * *conf (may be NULL).  Errors name the file's line, as topoyaml_conf's
 * and topoconf_parse's (a node under two switches or blocks, a host under
 * none) do.
 */
topo_t *topoyaml_read (const char *path, const char *name, int *n, char ***hosts,
                       topoconf_level_t *levels, char **conf, tm_error_t *errp);

#endif
