/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology_fit.c: how well a tree explains a signal: each pair's figure
 * against the median of the pairs as many switches apart (topo_fit,
 * topo_fit_pairs), and which of two trees to keep.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "lib/topology.h"
#include "lib/topology_private.h"

/* The least of v[0..k) (k > 0). */
double topo_fit_min (const double *v, size_t k)
{
    double m = v[0];

    for (size_t i = 1; i < k; i++)
        m = fmin (m, v[i]);
    return m;
}

/* The fit of np pairs: hop[q] switches apart (-1: left out), figure
 * v[q]; as topo_fit says.  Returns the number of classes, -1 on ENOMEM. */
static int fit_classes (const int *hop, const double *v, size_t np, double *residual, double *sep,
                        tm_error_t *errp)
{
    int maxhop = 0, nclass = 0, rc = -1;
    size_t *count = NULL, *at = NULL;
    double *val = malloc ((np + 1) * sizeof (*val)), *dev = malloc ((np + 1) * sizeof (*dev));
    double *med = NULL;

    for (size_t q = 0; q < np; q++)
        maxhop = hop[q] > maxhop ? hop[q] : maxhop;
    /* the pairs of each hop count together in val, by a counting sort */
    count = calloc ((size_t)maxhop + 2, sizeof (*count));
    at = calloc ((size_t)maxhop + 2, sizeof (*at));
    med = calloc ((size_t)maxhop + 1, sizeof (*med));
    if (!val || !dev || !count || !at || !med)
        goto nomem;
    for (size_t q = 0; q < np; q++)
        if (hop[q] >= 0)
            count[hop[q] + 1]++;
    for (int h = 0; h <= maxhop; h++)
        count[h + 1] += count[h];
    memcpy (at, count, ((size_t)maxhop + 2) * sizeof (*at));
    for (size_t q = 0; q < np; q++)
        if (hop[q] >= 0)
            val[at[hop[q]]++] = v[q];
    *sep = INFINITY;
    for (int h = 0, prev = -1; h <= maxhop; h++) {
        size_t lo = count[h], hi = count[h + 1];
        if (hi == lo)
            continue;
        med[h] = stats_median (val + lo, (int)(hi - lo));
        if (prev >= 0 && med[h] / med[prev] < *sep)
            *sep = med[h] / med[prev];
        prev = h;
        nclass++;
    }
    /* each class on its own: the largest class (the top level's pairs, most
     * of them) must not hide a level the signal does not tell apart */
    *residual = 0;
    for (int h = 0; h <= maxhop; h++) {
        size_t lo = count[h], hi = count[h + 1];
        if (hi == lo)
            continue;
        for (size_t q = lo; q < hi; q++)
            dev[q] = fabs (val[q] - med[h]) / med[h];
        *residual = fmax (*residual, stats_median (dev + lo, (int)(hi - lo)));
    }
    rc = nclass;
    goto done;
nomem:
    errnomem (errp);
done:
    free (val);
    free (dev);
    free (count);
    free (at);
    free (med);
    return rc;
}

/* t checked as a tree of n hosts, and the depth of each of its vertices
 * (a new array); NULL with errp set (EINVAL, ENOMEM). */
static int *fit_depths (const topo_t *t, int n, tm_error_t *errp)
{
    tm_error_t e;
    int *depth;

    if (!t || t->model != TOPO_TREE || t->nhosts != n || n < 2) {
        errinval (errp, "not a switch tree of %d hosts", n);
        return NULL;
    }
    if (topo_check (t, &e) < 0) {
        if (errno == ENOMEM) {
            errnomem (errp);
            errno = ENOMEM;
        } else
            errinval (errp, "not a switch tree of %d hosts", n);
        return NULL;
    }
    if (!(depth = calloc ((size_t)t->nvertices, sizeof (*depth)))) {
        errnomem (errp);
        return NULL;
    }
    for (int v = 0; v < t->nvertices; v++)
        for (int u = v; t->parent[u] != -1; u = t->parent[u])
            depth[v]++;
    return depth;
}

int topo_fit (const topo_t *t, int n, const double *x, double *residual, double *sep,
              tm_error_t *errp)
{
    int *depth = NULL, *hop = NULL, rc = -1;
    size_t npairs, stride, k = 0, q = 0;
    double *val = NULL;

    if (!(depth = fit_depths (t, n, errp)))
        return -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && !isnan (AT (x, n, i, j)) &&
                !(isfinite (AT (x, n, i, j)) && AT (x, n, i, j) > 0)) {
                free (depth);
                return errinval (errp, "figure from host %d to host %d is %g: not finite and > 0",
                                 i, j, AT (x, n, i, j));
            }
    npairs = (size_t)n * (size_t)(n - 1) / 2;
    stride = (npairs + FIT_MAX_PAIRS - 1) / FIT_MAX_PAIRS;
    npairs = (npairs + stride - 1) / stride; /* those priced: k % stride == 0 */
    hop = malloc (npairs * sizeof (*hop));
    val = malloc (npairs * sizeof (*val));
    if (!hop || !val) {
        errnomem (errp);
        goto done;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++, k++)
            if (k % stride == 0) {
                /* a pair not measured (NaN) is in no class */
                val[q] = topo_pair_mean (n, x, i, j);
                hop[q] = isnan (val[q]) ? -1 : topo_path_switches (t->parent, depth, i, j);
                q++;
            }
    rc = fit_classes (hop, val, npairs, residual, sep, errp);
done:
    free (depth);
    free (hop);
    free (val);
    return rc;
}

int topo_fit_pairs (const topo_t *t, int n, const pairs_t *p, const double *x, long np,
                    double *residual, double *sep, tm_error_t *errp)
{
    size_t stride = np > FIT_MAX_PAIRS ? ((size_t)np + FIT_MAX_PAIRS - 1) / FIT_MAX_PAIRS : 1;
    size_t m = ((size_t)np + stride - 1) / stride, q = 0;
    int *depth = NULL, *hop = NULL, rc = -1;
    double *val = NULL;

    if (np < 0)
        return errinval (errp, "%ld pairs", np);
    if (!(depth = fit_depths (t, n, errp)))
        return -1;
    hop = malloc ((m + 1) * sizeof (*hop));
    val = malloc ((m + 1) * sizeof (*val));
    if (!hop || !val) {
        errnomem (errp);
        goto done;
    }
    for (long k = 0; k < np; k += (long)stride, q++) {
        if (p[k].a < 0 || p[k].a >= n || p[k].b < 0 || p[k].b >= n || p[k].a == p[k].b ||
            !(isfinite (x[k]) && x[k] > 0)) {
            errinval (errp, "pair %ld (hosts %d, %d) or its figure %g out of range", k, p[k].a,
                      p[k].b, x[k]);
            goto done;
        }
        hop[q] = topo_path_switches (t->parent, depth, p[k].a, p[k].b);
        val[q] = x[k];
    }
    rc = fit_classes (hop, val, q, residual, sep, errp);
done:
    free (depth);
    free (hop);
    free (val);
    return rc;
}

/* Whether topo_fit accepts a tree of k hop classes, residual res, levels
 * sep apart, as explaining its signal.
 */
bool topo_fit_accepts (int k, double res, double sep)
{
    return k >= 2 && res <= TOPO_FIT_RESIDUAL && sep >= TOPO_FIT_SEP;
}

/* Of *best (kbest hop classes, accepted by topo_fit or not: *best_ok) and
 * cand (k classes, accepted), the tree to take in *best: an accepted tree
 * over one that is not; then the one that tells more levels apart; then
 * the one of more switches (both accepted: the coarser hides a split
 * its levels tell, one aggregation's leaves as one edge); then the better
 * fit.  The other is destroyed.
 */
void topo_keep_better (topo_t **best, int *kbest, bool *best_ok, topo_t *cand, int k)
{
    bool better;

    if (!*best || !*best_ok)
        better = true;
    else if (k != *kbest)
        better = k > *kbest;
    else if (cand->nvertices != (*best)->nvertices)
        better = cand->nvertices > (*best)->nvertices;
    else
        better = cand->residual < (*best)->residual;
    if (!better) {
        topo_destroy (cand);
        return;
    }
    topo_destroy (*best);
    *best = cand;
    *kbest = k;
    *best_ok = true;
}
