/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.c: the shape of the network, the base the inference stands
 * on: the tree itself (made, checked, walked, destroyed) and the checks
 * and pair means of the measured matrices that every part shares.  The
 * parts (topology_ly.c, topology_cluster.c, topology_fit.c,
 * topology_gaps.c) use only this; topology_infer.c tries them in turn.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/topology.h"
#include "lib/topology_private.h"

/* topo_pair_matrix: the latencies of a pair in its two directions differ
 * by at most this factor, or the larger is noise. */
#define ASYM_MAX 2.0

void topo_params_default (topo_params_t *p)
{
    p->noise_threshold = 0.05;
    p->inter_threshold = 0.15;
    p->lat_levels = 1;
}

topo_t *topo_alloc (topo_model_t model, int nhosts, int nvertices, tm_error_t *errp)
{
    topo_t *t;

    if (nhosts < 1 || nvertices < nhosts) {
        errprintf (errp, "topology of %d hosts and %d vertices is impossible", nhosts, nvertices);
        errno = EINVAL;
        return NULL;
    }
    if (!(t = calloc (1, sizeof (*t))))
        goto nomem;
    t->model = model;
    t->nhosts = nhosts;
    t->nvertices = nvertices;
    t->ngroups = 1;
    t->signal = TOPO_SIGNAL_LATENCY;
    t->residual = NAN;
    t->parent = malloc ((size_t)nvertices * sizeof (*t->parent));
    t->height = calloc ((size_t)nvertices, sizeof (*t->height));
    t->group = calloc ((size_t)nhosts, sizeof (*t->group));
    t->uplink_MBps = malloc ((size_t)nvertices * sizeof (*t->uplink_MBps));
    if (!t->parent || !t->height || !t->group || !t->uplink_MBps)
        goto nomem;
    for (int v = 0; v < nvertices; v++) {
        t->parent[v] = -1;
        t->uplink_MBps[v] = NAN;
    }
    return t;
nomem:
    topo_destroy (t);
    errnomem (errp);
    errno = ENOMEM;
    return NULL;
}

/* With one root and every parent in range, the vertices form a tree iff
 * every vertex reaches the root.  Marks vertices known to reach it, so the
 * walk is linear in the number of vertices whatever their shape.
 * Returns 0, or -1 (errno ENOMEM or EINVAL for a cycle).
 */
static int topo_reaches_all (const topo_t *t)
{
    char *state = calloc ((size_t)t->nvertices, 1); /* 0 new, 1 on path, 2 reaches root */
    if (!state) {
        errno = ENOMEM;
        return -1;
    }
    for (int v = 0; v < t->nvertices; v++) {
        int u = v;
        while (u != -1 && state[u] == 0) {
            state[u] = 1;
            u = t->parent[u];
        }
        if (u != -1 && state[u] == 1) {
            free (state);
            errno = EINVAL;
            return -1;
        }
        for (u = v; u != -1 && state[u] == 1; u = t->parent[u])
            state[u] = 2;
    }
    free (state);
    return 0;
}

int topo_check (const topo_t *t, tm_error_t *errp)
{
    int roots = 0;

    if (t->model != TOPO_TREE && t->model != TOPO_GROUPS)
        return errprintf (errp, "unknown topology model %d", (int)t->model);
    if (t->nhosts < 1 || t->nvertices < t->nhosts)
        return errprintf (errp, "%d hosts in %d vertices", t->nhosts, t->nvertices);
    /* Every parent in range before any walk up the tree follows them. */
    for (int v = 0; v < t->nvertices; v++) {
        int p = t->parent[v];
        if (p == -1) {
            roots++;
            continue;
        }
        if (p < t->nhosts || p >= t->nvertices || p == v)
            return errprintf (errp, "vertex %d has parent %d, not a switch or cluster", v, p);
    }
    if (topo_reaches_all (t) < 0)
        return errprintf (
            errp, "%s", errno == ENOMEM ? "out of memory" : "the parents form a cycle, not a tree");
    if (roots != 1)
        return errprintf (errp, "%d roots, need exactly one", roots);
    /* A cluster joins two subtrees, so a dendrogram of n hosts has at
     * most 2n-1 vertices.  A switch may have one child (a host alone on
     * its edge switch, a switch over one other in a site's tree), but no
     * vertex lies TOPO_MAX_DEPTH or more below the root.  Either bounds
     * the depth that readers of a topology (and their recursion) meet. */
    if (t->model == TOPO_GROUPS && t->nvertices > 2 * t->nhosts - 1)
        return errprintf (errp, "%d vertices for %d hosts, at most %d in a tree", t->nvertices,
                          t->nhosts, 2 * t->nhosts - 1);
    if (t->model == TOPO_TREE) {
        if (t->nvertices / TOPO_MAX_DEPTH > t->nhosts)
            return errprintf (errp, "%d vertices for %d hosts, at most %d in a tree", t->nvertices,
                              t->nhosts, TOPO_MAX_DEPTH * t->nhosts);
        for (int v = 0; v < t->nvertices; v++) {
            int d = 0;
            for (int u = t->parent[v]; u != -1; u = t->parent[u])
                if (++d >= TOPO_MAX_DEPTH)
                    return errprintf (errp, "%s %d lies %d or more switches below the root",
                                      v < t->nhosts ? "host" : "switch", v, TOPO_MAX_DEPTH);
        }
    }
    if (t->nhosts > 1)
        for (int h = 0; h < t->nhosts; h++)
            if (t->parent[h] == -1)
                return errprintf (errp, "host %d has no parent", h);
    if (t->ngroups < 1 || t->ngroups > t->nhosts)
        return errprintf (errp, "%d groups for %d hosts", t->ngroups, t->nhosts);
    int *used = calloc ((size_t)t->ngroups, sizeof (*used));
    if (!used) {
        return errnomem (errp);
    }
    for (int h = 0; h < t->nhosts; h++) {
        if (t->group[h] < 0 || t->group[h] >= t->ngroups) {
            free (used);
            return errprintf (errp, "host %d in group %d, outside 0..%d", h, t->group[h],
                              t->ngroups - 1);
        }
        used[t->group[h]] = 1;
    }
    for (int g = 0; g < t->ngroups; g++)
        if (!used[g]) {
            free (used);
            return errprintf (errp, "group %d has no host", g);
        }
    free (used);
    return 0;
}

/* Switches (clusters) on the path between vertices a != b, given depths. */
int topo_path_switches (const int *parent, const int *depth, int a, int b)
{
    int edges = 0;

    while (depth[a] > depth[b]) {
        a = parent[a];
        edges++;
    }
    while (depth[b] > depth[a]) {
        b = parent[b];
        edges++;
    }
    while (a != b) {
        a = parent[a];
        b = parent[b];
        edges += 2;
    }
    return edges - 1;
}

int *topo_depths (const topo_t *t)
{
    int *depth = calloc ((size_t)t->nvertices, sizeof (*depth));

    if (depth)
        for (int v = 0; v < t->nvertices; v++)
            for (int u = t->parent[v]; u >= 0; u = t->parent[u])
                depth[v]++;
    return depth;
}

int *topo_hosts_below (const topo_t *t)
{
    int *below = calloc ((size_t)t->nvertices, sizeof (*below));

    if (below)
        for (int h = 0; h < t->nhosts; h++)
            for (int v = h; v >= 0; v = t->parent[v])
                below[v]++;
    return below;
}

bool topo_uplinks_alike (const topo_t *t, const int *below, int v, int w)
{
    return t->parent[v] == t->parent[w] && below[v] == below[w];
}

int topo_level (const topo_t *t, const int *depth, int a, int b)
{
    while (depth[a] > depth[b])
        a = t->parent[a];
    while (depth[b] > depth[a])
        b = t->parent[b];
    while (a != b) {
        a = t->parent[a];
        b = t->parent[b];
    }
    return (int)t->height[a];
}

int topo_hops (const topo_t *t, int a, int b)
{
    int da = 0, db = 0;

    if (a == b)
        return 0;
    for (int u = a; t->parent[u] != -1; u = t->parent[u])
        da++;
    for (int u = b; t->parent[u] != -1; u = t->parent[u])
        db++;
    /* §2 of Lawrence & Yuan: the hop-count distance is the number of switches on
     * the path, one less than its number of edges. */
    int edges = 0;
    while (da > db) {
        a = t->parent[a];
        da--;
        edges++;
    }
    while (db > da) {
        b = t->parent[b];
        db--;
        edges++;
    }
    while (a != b) {
        a = t->parent[a];
        b = t->parent[b];
        edges += 2;
    }
    return edges - 1;
}

void topo_destroy (topo_t *t)
{
    if (!t)
        return;
    int saved = errno;
    free (t->parent);
    free (t->uplink_MBps);
    free (t->height);
    free (t->group);
    free (t);
    errno = saved;
}

int topo_params_check (const topo_params_t *p, tm_error_t *errp)
{
    if (!isfinite (p->noise_threshold) || p->noise_threshold < 0)
        return errinval (errp, "noise threshold %g: not a finite number >= 0", p->noise_threshold);
    if (!isfinite (p->inter_threshold) || p->inter_threshold < 0)
        return errinval (errp, "inter-class threshold %g: not a finite number >= 0",
                         p->inter_threshold);
    if (p->lat_levels != 0 && p->lat_levels != 1)
        return errinval (errp, "lat_levels %d: not 0 or 1", p->lat_levels);
    return 0;
}

/* Off-diagonal entries of m are finite and >= 0; the diagonal is ignored. */
int topo_matrix_check (int n, const double *m, const char *what, tm_error_t *errp)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && (!isfinite (AT (m, n, i, j)) || AT (m, n, i, j) < 0))
                return errinval (errp, "%s from host %d to host %d is %g: not a finite number >= 0",
                                 what, i, j, AT (m, n, i, j));
    return 0;
}

/* The figure of the pair {i, j}: the mean of both directions.  §3.2
 * measures each direction; averaging them halves the noise and gives every
 * pair one class, which the hop-count matrix needs to be symmetric.
 */
double topo_pair_mean (int n, const double *m, int i, int j)
{
    return 0.5 * (AT (m, n, i, j) + AT (m, n, j, i));
}

/* out: every pair's topo_pair_mean of m, diagonal 0; out may be m.  In tiles of
 * PAIR_TILE, so that both directions are read from cache (at thousands of
 * hosts a column is a cache miss per entry).
 *
 * With min_rule, for latencies: both directions of a pair measure the same
 * round trip and differ by noise only, which may be large on a busy
 * machine: averaging them copes, and classes wider than noise fall back to
 * clustering.  Noise only adds to a round trip (a rank descheduled, an
 * interrupt), so where one direction is more than ASYM_MAX times the
 * other, the smaller is the pair's.
 */
#define PAIR_TILE 64

void topo_pair_matrix (int n, const double *m, bool min_rule, double *out)
{
    for (int ib = 0; ib < n; ib += PAIR_TILE)
        for (int jb = ib; jb < n; jb += PAIR_TILE)
            for (int i = ib; i < n && i < ib + PAIR_TILE; i++)
                for (int j = jb > i ? jb : i + 1; j < n && j < jb + PAIR_TILE; j++) {
                    double a = AT (m, n, i, j), b = AT (m, n, j, i), v;
                    if (min_rule && fmax (a, b) > ASYM_MAX * fmin (a, b))
                        v = fmin (a, b);
                    else
                        v = 0.5 * (a + b);
                    AT (out, n, i, j) = AT (out, n, j, i) = v;
                }
    for (int i = 0; i < n; i++)
        AT (out, n, i, i) = 0;
}

/* low[v] = the lowest host under vertex v.  Hosts in increasing order
 * claim their unclaimed ancestors; an ancestor already claimed has a lower
 * host, and so have all above it.  Linear in the vertices.
 */
static int *lowest_hosts (const topo_t *t)
{
    int *low = malloc ((size_t)t->nvertices * sizeof (*low));
    if (!low)
        return NULL;
    for (int v = 0; v < t->nvertices; v++)
        low[v] = -1;
    for (int h = 0; h < t->nhosts; h++)
        for (int u = h; u != -1 && low[u] == -1; u = t->parent[u])
            low[u] = h;
    return low;
}

/* The subtree under v: hosts first, in index order, then child vertices
 * in order of their lowest host (low[]). */
static void nested (FILE *f, const topo_t *t, const char *const *names, const int *low, int v)
{
    int first = 1, last = -1;

    if (v < t->nhosts) {
        fputs (names[v], f);
        return;
    }
    fputc ('(', f);
    for (int h = 0; h < t->nhosts; h++)
        if (t->parent[h] == v) {
            fprintf (f, first ? "%s" : " %s", names[h]);
            first = 0;
        }
    /* Child vertices by increasing lowest host: pick the next each time. */
    for (;;) {
        int next = -1, next_low = t->nhosts;
        for (int u = t->nhosts; u < t->nvertices; u++)
            if (t->parent[u] == v && low[u] > last && low[u] < next_low) {
                next = u;
                next_low = low[u];
            }
        if (next < 0)
            break;
        if (!first)
            fputc (' ', f);
        nested (f, t, names, low, next);
        first = 0;
        last = next_low;
    }
    fputc (')', f);
}

int topo_nested (FILE *f, const topo_t *t, const char *const *names, int v)
{
    int *low = lowest_hosts (t);

    if (!low) {
        errno = ENOMEM;
        return -1;
    }
    nested (f, t, names, low, v);
    free (low);
    return 0;
}
