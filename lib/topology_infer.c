/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology_infer.c: the shape of the network inferred from measured
 * latencies and bandwidths, the parts tried in turn (topo_infer,
 * topo_infer_net, topo_split_one) on the base of topology.c.
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
