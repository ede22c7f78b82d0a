/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology_links.c: the links of a site's switch tree as the pairs
 * measured across them tell them (topo_links_fill), the slow ones named
 * (topo_links_slow), the pairs to measure again before one is called
 * slow (topo_links_doubts), and the uplinks measured under load
 * (topo_uplink_plan, topo_uplink_figures).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "lib/topology_links.h"

/* The lowest switch over hosts a != b of t, and its children on their
 * ways up in *ca and *cb. */
static int common_switch (const topo_t *t, const int *depth, int a, int b, int *ca, int *cb)
{
    int x = a, y = b;

    *ca = a;
    *cb = b;
    while (depth[x] > depth[y]) {
        *ca = x;
        x = t->parent[x];
    }
    while (depth[y] > depth[x]) {
        *cb = y;
        y = t->parent[y];
    }
    while (x != y) {
        *ca = x;
        *cb = y;
        x = t->parent[x];
        y = t->parent[y];
    }
    return x;
}

/* The link above vertex v of a tree (a host's own link for a host): the
 * figures of the pairs measured across it at its switch's level, NaN
 * where none was; slow as TOPO_LINK_SLOW says.  No pair beats a link it
 * crosses, so the best pair bounds the link; where three pairs or more
 * cross it, the second best, which one pair measured faster than the
 * link can carry (findings.md, 2026-12-03) cannot lift. */
typedef struct {
    double lat_us, bw_MBps;
    double lat2_us, bw2_MBps; /* the second best */
    int npairs;
    bool slow;
} link_fig_t;

/* A pair's figures into link f's. */
static void link_add (link_fig_t *f, double lat_us, double bw_MBps)
{
    if (f->npairs++ == 0) {
        f->lat_us = lat_us;
        f->bw_MBps = bw_MBps;
        return;
    }
    if (bw_MBps > f->bw_MBps) {
        f->bw2_MBps = f->bw_MBps;
        f->bw_MBps = bw_MBps;
    } else if (isnan (f->bw2_MBps) || bw_MBps > f->bw2_MBps)
        f->bw2_MBps = bw_MBps;
    if (lat_us < f->lat_us) {
        f->lat2_us = f->lat_us;
        f->lat_us = lat_us;
    } else if (isnan (f->lat2_us) || lat_us < f->lat2_us)
        f->lat2_us = lat_us;
}

/* A measured pair: its switch and that switch's children on its ways
 * up, its level, its figures. */
typedef struct {
    int a, b, s, ca, cb, level;
    double lat_us, bw_MBps;
} link_pair_t;

/* Whether the way from host h up to (not into) switch top crosses a slow
 * link. */
static bool crosses_slow (const topo_t *t, const link_fig_t *up, int h, int top)
{
    for (int v = h; v >= 0 && v != top; v = t->parent[v])
        if (up[v].slow)
            return true;
    return false;
}

/* Whether the uplink of vertex v, measured under load, carried
 * TOPO_LINK_SLOW times less than the best of those alike
 * (topo_uplinks_alike). */
static bool slow_under_load (const topo_t *t, const int *below, int v)
{
    double best = NAN;

    if (isnan (t->uplink_MBps[v]))
        return false;
    for (int w = 0; w < t->nvertices; w++)
        if (topo_uplinks_alike (t, below, v, w) && !isnan (t->uplink_MBps[w]))
            best = isnan (best) ? t->uplink_MBps[w] : fmax (best, t->uplink_MBps[w]);
    return t->uplink_MBps[v] * TOPO_LINK_SLOW < best;
}

static int desc_cmp (const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a < b) - (a > b);
}

/* The best of figures v[n] (reordered) that another confirms within
 * TOPO_LINK_SLOW, NaN where none does: one link or pair measured faster
 * than it can carry must not make its healthy peers look slow. */
static double confirmed_best (double *v, int n)
{
    qsort (v, (size_t)n, sizeof (*v), desc_cmp);
    for (int k = 0; k + 1 < n; k++)
        if (v[k + 1] * TOPO_LINK_SLOW >= v[k])
            return v[k];
    return NAN;
}

/* The links of tree t (up[nvertices]) and its levels' medians (lat, bw) as nm's
 * measured pairs tell them, a level at a time from the hosts up: a pair
 * that crosses a slow link below its level tells nothing of the links
 * above it.  -1 on ENOMEM. */
static int link_figures (const netmap_t *nm, const topo_t *t, const int *depth, link_fig_t *up,
                         int nlevels, double *lat, double *bw)
{
    int n = nm->n, nv = t->nvertices, np = 0, rc = -1;
    int *nkids = calloc ((size_t)nv, sizeof (*nkids)), *below = topo_hosts_below (t);
    link_pair_t *pr = NULL;
    double *vl = NULL, *vb = NULL, *vf = malloc (((size_t)nv + 1) * sizeof (*vf));

    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            np += NETMAP_AT (nm, measured, a, b) > 0;
    pr = malloc (((size_t)np + 1) * sizeof (*pr));
    vl = malloc (((size_t)np + 1) * sizeof (*vl));
    vb = malloc (((size_t)np + 1) * sizeof (*vb));
    if (!nkids || !below || !pr || !vl || !vb || !vf)
        goto done;
    for (int v = 0; v < nv; v++) {
        up[v] = (link_fig_t){NAN, NAN, NAN, NAN, 0, false};
        if (t->parent[v] >= 0)
            nkids[t->parent[v]]++;
    }
    np = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            double pl = 0.5 * (NETMAP_AT (nm, lat_us, a, b) + NETMAP_AT (nm, lat_us, b, a));
            double pb = 0.5 * (NETMAP_AT (nm, bw_MBps, a, b) + NETMAP_AT (nm, bw_MBps, b, a));
            int ca, cb, s;
            if (NETMAP_AT (nm, measured, a, b) <= 0 || !isfinite (pl) || !isfinite (pb))
                continue;
            s = common_switch (t, depth, a, b, &ca, &cb);
            pr[np++] = (link_pair_t){a, b, s, ca, cb, (int)t->height[s], pl, pb};
        }
    for (int l = 1; l < nlevels; l++) {
        int m = 0;
        for (int q = 0; q < np; q++) {
            link_pair_t *x = &pr[q];
            if (x->level != l || crosses_slow (t, up, x->a, x->s) ||
                crosses_slow (t, up, x->b, x->s))
                continue;
            link_add (&up[x->ca], x->lat_us, x->bw_MBps);
            link_add (&up[x->cb], x->lat_us, x->bw_MBps);
        }
        for (int v = 0; v < nv; v++)
            if (up[v].npairs >= 3 && t->parent[v] >= 0 && (int)t->height[t->parent[v]] == l) {
                up[v].lat_us = up[v].lat2_us;
                up[v].bw_MBps = up[v].bw2_MBps;
            }
        /* against the level's best link (a median is pulled down by the
         * slow link's own pairs where a switch has few children) that
         * another confirms */
        int nl = 0;
        for (int v = 0; v < nv; v++)
            if (t->parent[v] >= 0 && (int)t->height[t->parent[v]] == l && !isnan (up[v].bw_MBps))
                vf[nl++] = up[v].bw_MBps;
        double ref = confirmed_best (vf, nl);
        for (int v = 0; v < nv; v++)
            if (t->parent[v] >= 0 && (int)t->height[t->parent[v]] == l)
                up[v].slow =
                    nkids[t->parent[v]] >= 3 &&
                    (up[v].bw_MBps * TOPO_LINK_SLOW < ref ||
                     (up[v].bw_MBps * TOPO_LINK_LEANS < ref && slow_under_load (t, below, v)));
        /* the level's medians: of its pairs that cross no slow link,
         * else of them all */
        for (int slow_too = 0; slow_too < 2 && m == 0; slow_too++)
            for (int q = 0; q < np; q++) {
                link_pair_t *x = &pr[q];
                if (x->level != l)
                    continue;
                if (slow_too ||
                    !(crosses_slow (t, up, x->a, x->s) || crosses_slow (t, up, x->b, x->s))) {
                    vl[m] = x->lat_us;
                    vb[m++] = x->bw_MBps;
                }
            }
        lat[l] = stats_median (vl, m);
        bw[l] = stats_median (vb, m);
    }
    lat[0] = bw[0] = NAN;
    rc = 0;
done:
    free (nkids);
    free (below);
    free (pr);
    free (vl);
    free (vb);
    free (vf);
    return rc;
}

int topo_links_fill (netmap_t *nm, const topo_t *t, int nlevels, double *lat, double *bw,
                     tm_error_t *errp)
{
    int n = nm->n, *depth = topo_depths (t), rc = -1;
    link_fig_t *up = malloc ((size_t)t->nvertices * sizeof (*up));

    if (!depth || !up || link_figures (nm, t, depth, up, nlevels, lat, bw) < 0) {
        errnomem (errp);
        goto done;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            if (NETMAP_AT (nm, measured, a, b) > 0)
                continue;
            int ca, cb, s = common_switch (t, depth, a, b, &ca, &cb), l = (int)t->height[s];
            if (l < 1 || l >= nlevels || isnan (lat[l])) {
                errno = EINVAL;
                errprintf (errp, "level %d (%s to %s): no pair measured", l, nm->hosts[a],
                           nm->hosts[b]);
                goto done;
            }
            double pl = lat[l], pb = bw[l];
            /* a slow link on the way: its figures */
            for (int k = 0; k < 2; k++)
                for (int v = k ? b : a; v != s; v = t->parent[v])
                    if (up[v].slow) {
                        pb = fmin (pb, up[v].bw_MBps);
                        pl = fmax (pl, up[v].lat_us);
                    }
            NETMAP_AT (nm, lat_us, a, b) = NETMAP_AT (nm, lat_us, b, a) = pl;
            NETMAP_AT (nm, bw_MBps, a, b) = NETMAP_AT (nm, bw_MBps, b, a) = pb;
            NETMAP_AT (nm, measured, a, b) = NETMAP_AT (nm, measured, b, a) = 0;
        }
    rc = 0;
done:
    free (depth);
    free (up);
    return rc;
}

/* A measured pair: its hosts, level and bandwidth. */
typedef struct {
    int a, b, level;
    double bw;
} doubt_t;

/* By level, then bandwidth from the best. */
static int doubt_cmp (const void *x, const void *y)
{
    const doubt_t *p = x, *q = y;

    if (p->level != q->level)
        return (p->level > q->level) - (p->level < q->level);
    return (p->bw < q->bw) - (p->bw > q->bw);
}

/* The best of pairs d[n] (one level, sorted) that a pair sharing no host
 * with it confirms within TOPO_LINK_SLOW, NaN where none does: a host's
 * pairs measured past its link's rate confirm each other only. */
static double doubts_best (const doubt_t *d, int n)
{
    for (int k = 0; k < n; k++)
        for (int j = k + 1; j < n && d[j].bw * TOPO_LINK_SLOW >= d[k].bw; j++)
            if (d[j].a != d[k].a && d[j].a != d[k].b && d[j].b != d[k].a && d[j].b != d[k].b)
                return d[k].bw;
    return NAN;
}

/* By bandwidth against its level's best, the worst first. */
static int ratio_cmp (const void *x, const void *y)
{
    const doubt_t *p = x, *q = y;

    return (p->bw > q->bw) - (p->bw < q->bw);
}

int topo_links_doubts (const topo_t *t, const double *bw_MBps, const int *measured, pairs_t *out,
                       int max)
{
    int n = t->nhosts, nd = 0, np = 0, *depth = topo_depths (t), rc = -1;
    doubt_t *d;

    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            np += measured[(size_t)a * (size_t)n + (size_t)b] > 0;
    d = malloc (((size_t)np + 1) * sizeof (*d));
    if (!depth || !d)
        goto done;
    np = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (measured[(size_t)a * (size_t)n + (size_t)b] > 0) {
                int l = topo_level (t, depth, a, b);
                double x = 0.5 * (bw_MBps[(size_t)a * (size_t)n + (size_t)b] +
                                  bw_MBps[(size_t)b * (size_t)n + (size_t)a]);

                if (l >= 0 && l < TOPO_LINK_LEVELS && isfinite (x))
                    d[np++] = (doubt_t){a, b, l, x};
            }
    qsort (d, (size_t)np, sizeof (*d), doubt_cmp);
    /* each level's pairs TOPO_LINK_SLOW below its best, as ratios to it */
    for (int i = 0, j; i < np; i = j) {
        double best;

        for (j = i; j < np && d[j].level == d[i].level; j++)
            ;
        best = doubts_best (d + i, j - i);
        for (int k = i; k < j; k++)
            if (d[k].bw * TOPO_LINK_SLOW < best)
                d[nd++] = (doubt_t){d[k].a, d[k].b, d[k].level, d[k].bw / best};
    }
    qsort (d, (size_t)nd, sizeof (*d), ratio_cmp);
    rc = nd < max ? nd : max;
    for (int k = 0; k < rc; k++)
        out[k] = (pairs_t){d[k].a, d[k].b};
done:
    free (depth);
    free (d);
    return rc;
}

bool *topo_links_flags (const netmap_t *nm)
{
    const topo_t *t = nm->topo;
    double lat[TOPO_LINK_LEVELS], bw[TOPO_LINK_LEVELS];
    int *depth = NULL;
    link_fig_t *up = NULL;
    bool *slow = NULL;

    if (!t || t->model != TOPO_TREE || t->nhosts != nm->n)
        return NULL;
    if ((depth = topo_depths (t)) && (up = malloc ((size_t)t->nvertices * sizeof (*up))) &&
        link_figures (nm, t, depth, up, TOPO_LINK_LEVELS, lat, bw) == 0 &&
        (slow = malloc ((size_t)t->nvertices * sizeof (*slow))))
        for (int v = 0; v < t->nvertices; v++)
            slow[v] = up[v].slow;
    free (depth);
    free (up);
    return slow;
}

/* The link above vertex v of nm's tree, named in what[len]: "n5's link"
 * for a host, "the link above n5..n8 (4 nodes)" for a switch. */
static void link_name (const netmap_t *nm, int v, char *what, size_t len)
{
    const topo_t *t = nm->topo;
    int lo = -1, hi = -1, count = 0;

    for (int h = 0; h < t->nhosts; h++) {
        int u = h;
        while (u >= 0 && u != v)
            u = t->parent[u];
        if (u == v) {
            lo = lo < 0 ? h : lo;
            hi = h;
            count++;
        }
    }
    if (v < t->nhosts)
        snprintf (what, len, "%s's link", nm->hosts[v]);
    else
        snprintf (what, len, "the link above %s..%s (%d nodes)", nm->hosts[lo], nm->hosts[hi],
                  count);
}

int topo_links_slow (const netmap_t *nm, char *text, size_t len)
{
    const topo_t *t = nm->topo;
    double lat[TOPO_LINK_LEVELS], bw[TOPO_LINK_LEVELS];
    int *depth = NULL, nslow = -1;
    link_fig_t *up = NULL;
    size_t at = 0;

    if (len)
        text[0] = '\0';
    if (!t || t->model != TOPO_TREE || t->nhosts != nm->n)
        return 0;
    if (!(depth = topo_depths (t)) || !(up = malloc ((size_t)t->nvertices * sizeof (*up))) ||
        link_figures (nm, t, depth, up, TOPO_LINK_LEVELS, lat, bw) < 0)
        goto done;
    nslow = 0;
    for (int v = 0; v < t->nvertices; v++) {
        int l;
        char what[160];
        if (!up[v].slow)
            continue;
        link_name (nm, v, what, sizeof (what));
        l = (int)t->height[t->parent[v]];
        if (at < len)
            at += (size_t)snprintf (text + at, len - at, "%s%s: %.3g MB/s against %.3g at level %d",
                                    nslow ? "; " : "", what, up[v].bw_MBps, bw[l], l);
        nslow++;
    }
done:
    free (depth);
    free (up);
    return nslow;
}

/* Streams by round, then by their children and hosts. */
static int stream_cmp (const void *x, const void *y)
{
    const topo_stream_t *a = x, *b = y;

    if (a->round != b->round)
        return a->round < b->round ? -1 : 1;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return (a->src > b->src) - (a->src < b->src);
}

int topo_uplink_plan (const netmap_t *nm, double seconds, double max_bytes, topo_stream_t **out)
{
    const topo_t *t = nm->topo;
    int n = nm->n, nv, ns = 0, nkids, maxd = 0, *depth = NULL, *cnt = NULL, *off = NULL,
        *fill = NULL, *list = NULL, *kids = NULL;
    size_t total = 0;
    topo_stream_t *s = NULL;

    *out = NULL;
    if (!t || t->model != TOPO_TREE || t->nhosts != n || !(seconds > 0))
        return 0;
    nv = t->nvertices;
    /* the hosts below each vertex, ascending: list[off[v] .. off[v] + cnt[v]) */
    if (!(depth = topo_depths (t)) || !(cnt = topo_hosts_below (t)) ||
        !(off = calloc ((size_t)nv, sizeof (*off))) ||
        !(fill = calloc ((size_t)nv, sizeof (*fill))) ||
        !(kids = malloc ((size_t)nv * sizeof (*kids)))) {
        ns = -1;
        goto done;
    }
    for (int h = 0; h < n; h++)
        maxd = depth[h] > maxd ? depth[h] : maxd;
    for (int v = 0; v < nv; v++) {
        off[v] = (int)total;
        total += (size_t)cnt[v];
    }
    if (!(list = malloc (total * sizeof (*list))) ||
        !(s = malloc ((size_t)n * (size_t)(maxd + 1) * sizeof (*s)))) {
        ns = -1;
        goto done;
    }
    for (int h = 0; h < n; h++)
        for (int v = h; v >= 0; v = t->parent[v])
            list[off[v] + fill[v]++] = h;
    for (int p = n; p < nv; p++) {
        nkids = 0;
        for (int v = n; v < nv; v++)
            if (t->parent[v] == p && cnt[v] > 0)
                kids[nkids++] = v;
        for (int i = 0; nkids >= 2 && i < nkids; i++) {
            int c = kids[i], d = kids[(i + 1) % nkids], k = cnt[c] < cnt[d] ? cnt[c] : cnt[d];

            for (int j = 0; j < k; j++) {
                int a = list[off[c] + j], b = list[off[d] + j];
                double bytes = NETMAP_AT (nm, bw_MBps, a, b) * 1e6 * seconds;

                s[ns++] = (topo_stream_t){
                    depth[p], a, b, c, d, fmin (fmax (bytes, TOPO_STREAM_MIN_BYTES), max_bytes)};
            }
        }
    }
    qsort (s, (size_t)ns, sizeof (*s), stream_cmp);
    if (ns > 0) {
        *out = s;
        s = NULL;
    }
done:
    free (depth);
    free (cnt);
    free (off);
    free (fill);
    free (list);
    free (kids);
    free (s);
    if (ns < 0)
        errno = ENOMEM;
    return ns;
}

int topo_uplink_figures (netmap_t *nm, const topo_stream_t *s, int ns, const double *secs)
{
    topo_t *t = nm->topo;
    int nv = t->nvertices;
    double *bout, *tout, *bin, *tin;
    char *bad;

    if (!(bout = calloc (4 * (size_t)nv, sizeof (*bout))) || !(bad = calloc ((size_t)nv, 1))) {
        free (bout);
        errno = ENOMEM;
        return -1;
    }
    tout = bout + nv;
    bin = tout + nv;
    tin = bin + nv;
    for (int k = 0; k < ns; k++) {
        if (!(secs[k] > 0) || !isfinite (secs[k])) {
            bad[s[k].from] = bad[s[k].to] = 1;
            continue;
        }
        bout[s[k].from] += s[k].bytes;
        tout[s[k].from] = fmax (tout[s[k].from], secs[k]);
        bin[s[k].to] += s[k].bytes;
        tin[s[k].to] = fmax (tin[s[k].to], secs[k]);
    }
    for (int v = 0; v < nv; v++)
        if (!bad[v] && tout[v] > 0 && tin[v] > 0)
            t->uplink_MBps[v] =
                fmin (fmax (bout[v] / tout[v], bin[v] / tin[v]) / 1e6, NETMAP_MAX_BW_MBPS);
    free (bout);
    free (bad);
    return 0;
}

int topo_uplinks_text (const netmap_t *nm, char *text, size_t len)
{
    const topo_t *t = nm->topo;
    size_t at = 0;
    int count = 0;

    if (len)
        text[0] = '\0';
    for (int v = 0; t && v < t->nvertices; v++) {
        char what[160];

        if (isnan (t->uplink_MBps[v]))
            continue;
        link_name (nm, v, what, sizeof (what));
        if (at < len)
            at += (size_t)snprintf (text + at, len - at, "%s%s: %.3g MB/s", count ? "; " : "", what,
                                    t->uplink_MBps[v]);
        count++;
    }
    return count;
}
