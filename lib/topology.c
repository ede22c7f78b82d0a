/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.c: the shape of the network, inferred from measured latencies
 * and bandwidths: the tree itself, the checks of the input the parts
 * share, and the inference that tries them in turn (topo_infer,
 * topo_infer_net).  The parts: topology_ly.c, topology_cluster.c,
 * topology_fit.c, topology_gaps.c.
 *
 * TOPO_TREE follows Lawrence & Yuan (§3): data clustering of the
 * round-trip times (§3.2, Figure 7), hop counts from the smallest gap
 * between classes (§3.2, "Inferring hop-count distances"), and the switch
 * tree from the hop-count matrix (§3.1, Figure 4).  TOPO_GROUPS is
 * average-linkage (UPGMA) clustering of the hosts on measured cost.
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

/* topo_infer tries Lawrence & Yuan's classes up to this many hosts.  They
 * sort all n(n-1)/2 round trips (1.6 s of the 4.2 s topo_infer_net took at
 * 4096 hosts) and need every one within noise of its class, which
 * thousands of measured hosts are not (t/sim/model: never at 4096); the
 * levels of the clustering remain.
 */
#define LY_MAX_HOSTS 1024

/* topo_infer: the latencies of a pair in its two directions differ by at
 * most this factor, or the larger is noise. */
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
    if (!t->parent || !t->height || !t->group)
        goto nomem;
    for (int v = 0; v < nvertices; v++)
        t->parent[v] = -1;
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

/* topo_infer's checks of its input: 0, or -1 with errp set and errno
 * EINVAL; *p the parameters to use (dflt when p is NULL).
 */
static int infer_check (int n, const double *lat_us, const topo_params_t **p, topo_params_t *dflt,
                        tm_error_t *errp)
{
    if (n < 1)
        return errinval (errp, "%d hosts: need at least one", n);
    if (!lat_us)
        return errinval (errp, "no latency matrix");
    if (!*p) {
        topo_params_default (dflt);
        *p = dflt;
    }
    if (topo_params_check (*p, errp) < 0 || topo_matrix_check (n, lat_us, "latency", errp) < 0)
        return -1;
    return 0;
}

/* topo_infer past its checks, on sym (topo_pair_matrix's of the latencies, by
 * its min_rule) of n >= 2 hosts. */
static topo_t *infer_sym (int n, const double *sym, const topo_params_t *p, tm_error_t *errp)
{
    int *class = NULL, *hops = NULL;
    topo_t *t = NULL;
    tm_error_t why = {""};
    int nc;

    if (n <= LY_MAX_HOSTS) {
        class = malloc ((size_t)n * (size_t)n * sizeof (*class));
        hops = malloc ((size_t)n * (size_t)n * sizeof (*hops));
        if (!class || !hops) {
            errnomem (errp);
            goto done;
        }
    }

    /* Lawrence & Yuan: classes, hops, tree.  Any step failing for want of
     * a tree (EINVAL) falls back to clustering; ENOMEM fails. */
    if (n > LY_MAX_HOSTS)
        errinval (&why, "over %d hosts, not tried", LY_MAX_HOSTS);
    else if ((nc = topo_ly_classes (n, sym, p, class, &why)) >= 0 &&
             topo_ly_hops (n, sym, class, nc, hops, &why) == 0 &&
             (t = topo_ly_tree (n, hops, &why))) {
        errclear (errp);
        goto done;
    }
    if (errno == ENOMEM) {
        errprintf (errp, "%s", why.text);
        goto done;
    }
    if (!(t = topo_cluster (n, sym, errp)))
        goto done;
    /* Shaped links: the levels of the dendrogram may still be a tree's. */
    {
        tm_error_t whylv = {""};
        topo_t *lv = topo_levels (t, &whylv);

        if (lv) {
            topo_destroy (t);
            t = lv;
            errclear (errp);
            goto done;
        }
        if (errno == ENOMEM) {
            topo_destroy (t);
            t = NULL;
            errprintf (errp, "%s", whylv.text);
            goto done;
        }
        errprintf (errp,
                   "latencies do not form a switch tree (%s; by levels: %s): hosts grouped by "
                   "clustering",
                   why.text, whylv.text);
    }
done:
    free (class);
    free (hops);
    return t;
}

topo_t *topo_infer (int n, const double *lat_us, const topo_params_t *p, tm_error_t *errp)
{
    topo_params_t dflt;
    double *sym;
    topo_t *t;

    if (infer_check (n, lat_us, &p, &dflt, errp) < 0)
        return NULL;
    if (n == 1) {
        errclear (errp);
        return topo_alloc (TOPO_TREE, 1, 1, errp);
    }
    if (!(sym = malloc ((size_t)n * (size_t)n * sizeof (*sym)))) {
        errnomem (errp);
        return NULL;
    }
    topo_pair_matrix (n, lat_us, true, sym);
    t = infer_sym (n, sym, p, errp);
    free (sym);
    return t;
}

/* cost: each pair's transfer time, 1 / bandwidth, the mean of both
 * directions (topo_pair_matrix), diagonal 0. */
static void transfer_costs (int n, const double *bw_MBps, double *cost)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            AT (cost, n, i, j) = i == j ? 0 : 1 / AT (bw_MBps, n, i, j);
    topo_pair_matrix (n, cost, false, cost);
}

/* How far apart groups g of n hosts stand on x (a symmetric matrix): the
 * median of the pairs between groups over that of the pairs within one; 1
 * for one group or none within.  *apart: whether every pair between groups
 * costs more than every pair within one (a split noise alone seldom
 * gives).  -1 on ENOMEM.
 */
static double group_sep (const topo_t *g, int n, const double *x, bool *apart)
{
    double *in, *out, sep = 1;
    long ni = 0, no = 0;

    *apart = false;
    if (g->ngroups < 2)
        return 1;
    in = malloc ((size_t)n * (size_t)n * sizeof (*in));
    out = malloc ((size_t)n * (size_t)n * sizeof (*out));
    if (!in || !out) {
        free (in);
        free (out);
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (g->group[i] == g->group[j])
                in[ni++] = AT (x, n, i, j);
            else
                out[no++] = AT (x, n, i, j);
        }
    if (ni > 0 && no > 0) {
        double mi = stats_median (in, (int)ni), mo = stats_median (out, (int)no), qi = in[0],
               qo = out[0];
        sep = mi > 0 ? mo / mi : 1;
        for (long k = 1; k < ni; k++)
            qi = in[k] > qi ? in[k] : qi;
        for (long k = 1; k < no; k++)
            qo = out[k] < qo ? out[k] : qo;
        *apart = qo > qi;
    }
    free (in);
    free (out);
    return sep;
}

/* Where neither signal fits a tree of levels: the groups lat found (the
 * latencies' clustering on sym, or their tree of one switch), or the
 * transfer times' clustering (cost, NULL for none) where its groups stand
 * apart (group_sep) and further than lat's.  Ranks of several nodes on one
 * CPU delay every round trip alike and hide a switch from the latencies; a
 * slow uplink still shows in the transfer times (doc/findings.md).
 * Returns the one kept, the other freed; NULL with errp set on ENOMEM.
 */
static topo_t *groups_better (int n, topo_t *lat, const double *sym, const double *cost,
                              tm_error_t *errp)
{
    topo_t *bw;
    double slat, sbw;
    bool lapart, bapart;

    if (!cost)
        return lat;
    if (!(bw = topo_cluster (n, cost, errp)))
        goto nomem;
    bw->signal = TOPO_SIGNAL_BANDWIDTH;
    if ((slat = group_sep (lat, n, sym, &lapart)) < 0 ||
        (sbw = group_sep (bw, n, cost, &bapart)) < 0)
        goto nomem;
    if (bapart && sbw > slat) {
        topo_destroy (lat);
        return bw;
    }
    topo_destroy (bw);
    return lat;
nomem:
    topo_destroy (bw);
    topo_destroy (lat);
    errnomem (errp);
    return NULL;
}

topo_t *topo_infer_net (int n, const double *lat_us, const double *bw_MBps, const topo_params_t *p,
                        tm_error_t *errp)
{
    topo_t *lat = NULL, *best = NULL, *cand;
    tm_error_t why = {""}, whylat = {""}, whybw = {""};
    double *sym = NULL, *cost = NULL, sep;
    int kbest = 0, k;
    bool best_ok = false, lat_tells;
    topo_params_t dflt;

    if (infer_check (n, lat_us, &p, &dflt, errp) < 0)
        return NULL;
    if (n == 1)
        return topo_infer (n, lat_us, p, errp);
    if (bw_MBps && topo_matrix_check (n, bw_MBps, "bandwidth", errp) < 0)
        return NULL;
    for (int i = 0; bw_MBps && i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && !isfinite (1 / AT (bw_MBps, n, i, j))) {
                errinval (errp, "bandwidth from host %d to host %d is %g: too small", i, j,
                          AT (bw_MBps, n, i, j));
                return NULL;
            }
    if (!(sym = malloc ((size_t)n * (size_t)n * sizeof (*sym))))
        goto nomem;
    topo_pair_matrix (n, lat_us, true, sym);
    if (!(lat = infer_sym (n, sym, p, errp)))
        goto fail;

    /* The latencies' tree as topo_infer found it, their levels by gaps,
     * the transfer times' levels by gaps: topo_keep_better's choice.  (The
     * first may fail topo_fit: Lawrence & Yuan's classes can split levels
     * the figures do not tell apart.)  Where latency may not tell levels,
     * the transfer times' alone; a latency tree of one switch claims no
     * level and stays. */
    lat_tells = p->lat_levels || !bw_MBps;
    if (lat->model == TOPO_TREE && (lat_tells || lat->ngroups == 1)) {
        if ((k = topo_fit (lat, n, sym, &lat->residual, &sep, &why)) < 0 && errno == ENOMEM)
            goto nomem;
        best = lat;
        kbest = k < 0 ? 0 : k;
        best_ok = k >= 0 && topo_fit_accepts (k, lat->residual, sep);
        lat = NULL;
    }
    if (lat_tells) {
        /* topo_infer's groups are the latencies' dendrogram */
        const topo_t *dlat = lat && lat->model == TOPO_GROUPS ? lat : NULL;
        if ((cand = topo_infer_by_gaps (n, sym, dlat, TOPO_SIGNAL_LATENCY, &k, &whylat)))
            topo_keep_better (&best, &kbest, &best_ok, cand, k);
        else if (errno == ENOMEM)
            goto nomem;
    }
    if (bw_MBps) {
        if (!(cost = malloc ((size_t)n * (size_t)n * sizeof (*cost))))
            goto nomem;
        transfer_costs (n, bw_MBps, cost);
        if ((cand = topo_infer_by_gaps (n, cost, NULL, TOPO_SIGNAL_BANDWIDTH, &k, &whybw)))
            topo_keep_better (&best, &kbest, &best_ok, cand, k);
        else if (errno == ENOMEM)
            goto nomem;
    }
    if (best) {
        topo_destroy (lat);
        free (sym);
        free (cost);
        errclear (errp);
        return best;
    }
    /* a latency tree of levels not to be trusted: the latencies' groups */
    if (!lat_tells && lat->model == TOPO_TREE) {
        topo_destroy (lat);
        if (!(lat = topo_cluster (n, sym, errp)))
            goto fail;
        errinval (errp, "latency not weighed for levels: hosts share a machine's CPUs");
    }
    if (lat->model == TOPO_GROUPS) {
        tm_error_t keep = errp ? *errp : (tm_error_t){""};
        if (!(lat = groups_better (n, lat, sym, cost, errp)))
            goto fail;
        if (errp)
            *errp = keep;
    }
    free (sym);
    free (cost);
    /* groups, as topo_infer said, and why no tree */
    if (errp && (whylat.text[0] || whybw.text[0])) {
        tm_error_t first = *errp;
        errprintf (errp, "%s%s%s%s%s", first.text, whylat.text[0] ? "; " : "", whylat.text,
                   whybw.text[0] ? "; " : "", whybw.text);
    }
    return lat;
nomem:
    errnomem (errp);
fail:
    topo_destroy (lat);
    topo_destroy (best);
    free (sym);
    free (cost);
    return NULL;
}

topo_t *topo_split_one (int n, topo_t *t, const double *lat_us, const double *bw_MBps,
                        tm_error_t *errp)
{
    double *sym = NULL, *cost = NULL;

    if (!t || t->ngroups != 1 || n < 2 || !bw_MBps)
        return t;
    /* every pair's figures, as measured or filled in */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && !(isfinite (AT (lat_us, n, i, j)) && AT (lat_us, n, i, j) >= 0 &&
                            AT (bw_MBps, n, i, j) > 0 && isfinite (1 / AT (bw_MBps, n, i, j))))
                return t;
    if (!(sym = malloc ((size_t)n * (size_t)n * sizeof (*sym))) ||
        !(cost = malloc ((size_t)n * (size_t)n * sizeof (*cost)))) {
        free (sym);
        topo_destroy (t);
        errnomem (errp);
        return NULL;
    }
    topo_pair_matrix (n, lat_us, true, sym);
    transfer_costs (n, bw_MBps, cost);
    t = groups_better (n, t, sym, cost, errp);
    free (sym);
    free (cost);
    return t;
}
