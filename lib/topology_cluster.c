/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology_cluster.c: average-linkage (UPGMA) clustering of the hosts on
 * measured cost (TOPO_GROUPS), and the levels of its dendrogram as a tree
 * (topo_levels).
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

/* topo_cluster: the largest gap between successive merge costs separates
 * groups only when it is at least this fraction of the cost above it;
 * otherwise every merge is within noise and all hosts form one group.
 */
#define CLUSTER_MIN_GAP 0.2

/* topo_levels: a merge at least LEVEL_GAP times the lowest of a level
 * starts the next; the merges of one level lie within LEVEL_SPREAD of its
 * lowest.  On the emulated cluster, 1 KiB round trips within a switch
 * differ by up to 2.1 times (two ranks on one core or on two); with 16 KiB
 * its levels, shaped 1 Gbit/s : 300 : 100 Mbit/s, stand 3 to 3.3 apart
 * and spread at most 1.25.
 */
#define LEVEL_GAP    2.5
#define LEVEL_SPREAD 1.5

/* Nearest active neighbour of slot i in d: lowest slot among ties. */
static void cluster_nearest (int n, const double *d, const char *active, int i, int *nn,
                             double *nnd)
{
    nn[i] = -1;
    nnd[i] = INFINITY;
    for (int j = 0; j < n; j++)
        if (j != i && active[j] && (nn[i] == -1 || AT (d, n, i, j) < nnd[i])) {
            nn[i] = j;
            nnd[i] = AT (d, n, i, j);
        }
}

/* Cut the dendrogram t of n hosts at the largest gap between successive
 * merge costs (merge[0..n-1)): merges up to the gap form the groups.  A
 * gap smaller than CLUSTER_MIN_GAP of the cost above it is noise: one
 * group.  gid: room for 2n-1 vertices.
 */
static void cluster_cut (topo_t *t, int n, const double *merge, int *gid)
{
    int cut = n - 1; /* merges 0..cut-1 form the groups */
    double best = 0;

    for (int s = 0; s + 1 < n - 1; s++) {
        double g = merge[s + 1] - merge[s];
        if (g > best) {
            best = g;
            cut = s + 1;
        }
    }
    if (cut < n - 1 && !(best >= CLUSTER_MIN_GAP * merge[cut]))
        cut = n - 1;
    for (int v = 0; v < 2 * n - 1; v++)
        gid[v] = -1;
    t->ngroups = 0;
    for (int h = 0; h < n; h++) {
        int u = h;
        while (t->parent[u] != -1 && t->parent[u] < n + cut)
            u = t->parent[u];
        if (gid[u] == -1)
            gid[u] = t->ngroups++;
        t->group[h] = gid[u];
    }
}

topo_t *topo_cluster (int n, const double *cost, tm_error_t *errp)
{
    double *d = NULL, *nnd = NULL, *merge = NULL;
    int *nn = NULL, *vid = NULL, *size = NULL, *gid = NULL;
    char *active = NULL;
    topo_t *t = NULL;

    if (n < 1) {
        errinval (errp, "%d hosts: need at least one", n);
        return NULL;
    }
    if (!cost) {
        errinval (errp, "no cost matrix");
        return NULL;
    }
    if (topo_matrix_check (n, cost, "cost", errp) < 0)
        return NULL;
    if (!(t = topo_alloc (TOPO_GROUPS, n, 2 * n - 1, errp)))
        return NULL;
    if (n == 1)
        return t;
    d = malloc ((size_t)n * (size_t)n * sizeof (*d));
    nnd = malloc ((size_t)n * sizeof (*nnd));
    merge = malloc ((size_t)n * sizeof (*merge));
    nn = malloc ((size_t)n * sizeof (*nn));
    vid = malloc ((size_t)n * sizeof (*vid));
    size = malloc ((size_t)n * sizeof (*size));
    gid = malloc ((size_t)(2 * n - 1) * sizeof (*gid));
    active = malloc ((size_t)n);
    if (!d || !nnd || !merge || !nn || !vid || !size || !gid || !active)
        goto nomem;
    topo_pair_matrix (n, cost, false, d);
    for (int i = 0; i < n; i++) {
        active[i] = 1;
        vid[i] = i;
        size[i] = 1;
    }
    for (int i = 0; i < n; i++)
        cluster_nearest (n, d, active, i, nn, nnd);

    /* Agglomerate: merge the two closest clusters (slot a < b, the lowest
     * pair among equal costs; a cluster's slot is its lowest host) into
     * vertex n + s in slot a.  Average linkage: the cost between clusters
     * is the mean cost over their pairs of hosts (Lance-Williams update).
     * Nearest neighbours are kept per slot and rescanned only when theirs
     * is merged, which is O(n^2) in practice.
     */
    for (int s = 0; s < n - 1; s++) {
        int a = -1, b, v = n + s;
        for (int i = 0; i < n; i++)
            if (active[i] && (a == -1 || nnd[i] < nnd[a]))
                a = i;
        b = nn[a];
        if (b < a) {
            int tmp = a;
            a = b;
            b = tmp;
        }
        t->parent[vid[a]] = v;
        t->parent[vid[b]] = v;
        t->height[v] = merge[s] = AT (d, n, a, b);
        for (int k = 0; k < n; k++)
            if (active[k] && k != a && k != b) {
                double dk =
                    (size[a] * AT (d, n, a, k) + size[b] * AT (d, n, b, k)) / (size[a] + size[b]);
                AT (d, n, a, k) = dk;
                AT (d, n, k, a) = dk;
            }
        size[a] += size[b];
        active[b] = 0;
        vid[a] = v;
        cluster_nearest (n, d, active, a, nn, nnd);
        for (int k = 0; k < n; k++) {
            if (!active[k] || k == a)
                continue;
            if (nn[k] == a || nn[k] == b)
                cluster_nearest (n, d, active, k, nn, nnd);
            else if (AT (d, n, a, k) < nnd[k] || (AT (d, n, a, k) == nnd[k] && a < nn[k])) {
                /* d is symmetric: row a, not column a, in cache */
                nn[k] = a;
                nnd[k] = AT (d, n, a, k);
            }
        }
    }

    cluster_cut (t, n, merge, gid);
    goto done;
nomem:
    topo_destroy (t);
    t = NULL;
    errnomem (errp);
done:
    free (d);
    free (nnd);
    free (merge);
    free (nn);
    free (vid);
    free (size);
    free (gid);
    free (active);
    return t;
}

/* t if it passes topo_check, else NULL with errp set and errno EINVAL (or
 * ENOMEM), t destroyed.
 */
topo_t *topo_tree_checked (topo_t *t, tm_error_t *errp)
{
    if (topo_check (t, errp) < 0) {
        int saved = errno == ENOMEM ? ENOMEM : EINVAL;
        topo_destroy (t);
        errno = saved;
        return NULL;
    }
    return t;
}

/* The switch tree of dendrogram d (n hosts) whose merge s lies in band
 * band[s] of nb: a merge and its parent in one band are one switch, at
 * level band + 1.  NULL with errp set and errno EINVAL when it is no tree
 * of levels (a host above the edge band, a switch skipping a band),
 * ENOMEM out of memory.
 */
static topo_t *levels_tree (const topo_t *d, const int *band, int nb, tm_error_t *errp)
{
    int n = d->nhosts, nm = n - 1, nsw = 0, *rep = NULL, *id = NULL, *gid = NULL;
    topo_t *t = NULL;

    rep = malloc ((size_t)nm * sizeof (*rep));
    id = malloc ((size_t)nm * sizeof (*id));
    gid = malloc ((size_t)nm * sizeof (*gid));
    if (!rep || !id || !gid) {
        errnomem (errp);
        goto done;
    }

    /* A merge and its parent in one band are one switch: rep[s] is the
     * topmost merge of its switch.  Merges run bottom up, so walk down. */
    for (int s = nm - 1; s >= 0; s--) {
        int up = d->parent[n + s];
        rep[s] = up != -1 && band[up - n] == band[s] ? rep[up - n] : s;
    }

    /* Hosts on edge switches only, every level on every way up: each host
     * hangs from band 0, and each switch from the band above its own. */
    for (int h = 0; h < n; h++)
        if (band[d->parent[h] - n] != 0) {
            errinval (errp, "host %d joins at level %d, not at the edge", h,
                      band[d->parent[h] - n]);
            goto done;
        }
    for (int s = 0; s < nm; s++) {
        int up = d->parent[n + rep[s]];
        if (rep[s] == s && (up == -1 ? band[s] != nb - 1 : band[up - n] != band[s] + 1)) {
            errinval (errp, "a switch at level %d skips a level", band[s]);
            goto done;
        }
    }

    /* The tree: a switch per topmost merge, numbered bottom up; groups are
     * the edge switches, in order of their lowest host. */
    for (int s = 0; s < nm; s++)
        id[s] = rep[s] == s ? n + nsw++ : -1;
    if (!(t = topo_alloc (TOPO_TREE, n, n + nsw, errp)))
        goto done;
    for (int h = 0; h < n; h++)
        t->parent[h] = id[rep[d->parent[h] - n]];
    for (int s = 0; s < nm; s++) {
        int up = d->parent[n + s];
        if (rep[s] != s)
            continue;
        t->parent[id[s]] = up == -1 ? -1 : id[rep[up - n]];
        t->height[id[s]] = band[s] + 1;
    }
    for (int s = 0; s < nm; s++)
        gid[s] = -1;
    t->ngroups = 0;
    for (int h = 0; h < n; h++) {
        int e = rep[d->parent[h] - n];
        if (gid[e] == -1)
            gid[e] = t->ngroups++;
        t->group[h] = gid[e];
    }
    t = topo_tree_checked (t, errp);
done:
    free (rep);
    free (id);
    free (gid);
    return t;
}

/* Whether d is a dendrogram topo_cluster made of two hosts or more. */
static int levels_check (const topo_t *d, tm_error_t *errp)
{
    if (!d || d->model != TOPO_GROUPS || d->nhosts < 2 || d->nvertices != 2 * d->nhosts - 1)
        return errinval (errp, "not a dendrogram of two hosts or more");
    for (int s = 0; s < d->nhosts - 1; s++) {
        double h = d->height[d->nhosts + s], below = s ? d->height[d->nhosts + s - 1] : 0;
        if (!(h > 0) || h < below)
            return errinval (errp, "merge %d costs %g, not above 0 and the merge before", s, h);
    }
    return 0;
}

topo_t *topo_levels (const topo_t *d, tm_error_t *errp)
{
    int n, nm, nb = 0, *band = NULL;
    double lo = 0;
    topo_t *t = NULL;

    if (levels_check (d, errp) < 0)
        return NULL;
    n = d->nhosts;
    nm = n - 1;
    if (!(band = malloc ((size_t)nm * sizeof (*band)))) {
        errnomem (errp);
        return NULL;
    }
    /* Bands of merge costs: merge s (vertex n + s) opens a new one when it
     * costs LEVEL_GAP times the lowest of the band below; within a band
     * merges cost at most LEVEL_SPREAD times its lowest. */
    for (int s = 0; s < nm; s++) {
        double h = d->height[n + s];
        if (s == 0 || h >= LEVEL_GAP * lo) {
            nb++;
            lo = h;
        } else if (h > LEVEL_SPREAD * lo) {
            errinval (errp, "a merge at %g us is neither the level of %g us nor the next", h, lo);
            goto done;
        }
        band[s] = nb - 1;
    }
    t = levels_tree (d, band, nb, errp);
done:
    free (band);
    return t;
}
