/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology_private.h: what the parts of the inference share (the base,
 * topology.c; topology_ly.c, topology_cluster.c, topology_fit.c,
 * topology_gaps.c; topology_infer.c over them).  Not for callers of
 * topology.h.
 */
#ifndef TOPOMAP_TOPOLOGY_PRIVATE_H
#define TOPOMAP_TOPOLOGY_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "lib/topology.h"

/* Entry (i, j) of an n*n row-major matrix. */
#define AT(m, n, i, j) ((m)[(size_t)(i) * (size_t)(n) + (size_t)(j)])

/* errprintf for bad input or a non-tree: also sets errno to EINVAL, so that
 * callers can tell it from ENOMEM. */
#define errinval(errp, ...) (errno = EINVAL, errprintf ((errp), __VA_ARGS__))

/* topo_fit prices at most this many pairs, every k-th of them beyond. */
#define FIT_MAX_PAIRS (1 << 16)

/* topology.c, the base */

/* topo_params_check: p's fields in range; -1 with errp set, errno EINVAL. */
int topo_params_check (const topo_params_t *p, tm_error_t *errp);

/* Off-diagonal entries of m are finite and >= 0; the diagonal is ignored. */
int topo_matrix_check (int n, const double *m, const char *what, tm_error_t *errp);

/* The figure of the pair {i, j}: the mean of both directions. */
double topo_pair_mean (int n, const double *m, int i, int j);

/* The symmetric matrix of pairs of m into out (min_rule: the smaller
 * direction where one is ASYM_MAX times the other). */
void topo_pair_matrix (int n, const double *m, bool min_rule, double *out);

/* Switches (clusters) on the path between vertices a != b, given depths. */
int topo_path_switches (const int *parent, const int *depth, int a, int b);

/* topology_cluster.c: t if it passes topo_check, else NULL with errp set
 * and errno EINVAL (or ENOMEM), t destroyed. */
topo_t *topo_tree_checked (topo_t *t, tm_error_t *errp);

/* topology_fit.c */

/* The least of v[0..k) (k > 0). */
double topo_fit_min (const double *v, size_t k);

/* Whether topo_fit accepts a tree of k hop classes, residual res, levels
 * sep apart, as explaining its signal. */
bool topo_fit_accepts (int k, double res, double sep);

/* Of *best and cand (k hop classes), the tree to keep in *best, the other
 * destroyed: cand where *best is none or not accepted (*best_ok), else
 * the one telling more levels, then of more switches, then of the lesser
 * residual. */
void topo_keep_better (topo_t **best, int *kbest, bool *best_ok, topo_t *cand, int k);

/* topology_gaps.c: the levels of the clustering of x by its gaps (dx its
 * dendrogram, or NULL to make it); *classes its hop classes. */
topo_t *topo_infer_by_gaps (int n, const double *x, const topo_t *dx, topo_signal_t sig,
                            int *classes, tm_error_t *errp);

#endif
