/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology_gaps.c: the levels of the clustering by its gaps, for noise
 * that spreads a level wide: the dendrogram cut at its largest gaps, edge
 * clusters mended host by host, each cut's tree kept when topo_fit
 * accepts it.
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

/* The trees of levels by cuts: the dendrogram d (topo_cluster's of x)
 * cut at merges cut[0] < ... < cut[k-1] (merge s lies below cut c when
 * s < c).
 *
 * edge_labels: level 1, the edge (x symmetric).  The clusters of the
 * forest below cut c, numbered in order of their lowest host; then every
 * host goes to the edge cluster of least median figure to it (itself left
 * out), again until none moves (at most LEVEL_SWEEPS times), which brings
 * home a host that noise merged late or into the wrong cluster; a host
 * alone only as EDGE_JOIN says; then edge_merge.  lab[h] the cluster of
 * host h, *m how many.  -1 on ENOMEM.
 *
 * cuts_tree: level l + 1 puts each level-l cluster under the cluster
 * below cut[l] that holds most of its hosts; then one root.  Every level
 * must have fewer clusters than the one below, and the level under the
 * root two or more; levels_merged then merges spurious levels.  NULL
 * with errp set (errno EINVAL: no such tree, ENOMEM).
 */
#define LEVEL_SWEEPS 8

/* edge_labels: a host alone at the cut joins the cluster of its nearest
 * host when that figure is at most EDGE_JOIN times the cluster's own
 * median (a host merged late by noise: one pair measured far off, or its
 * highest figures; 1.39 times its router's seen by mean on a 512-host
 * dragonfly at +-20 %, whose levels stand 1.4 apart); otherwise it is
 * alone on its switch.  So a host alone on a switch is seen as such where
 * the level above costs 1.5 times the edge or more (and none of its pairs
 * reads 1.5 times faster than it is), and is taken into its nearest edge
 * below that.
 *
 * A host slowed itself (a busy core, a slower link of its own) reads
 * slow to its own edge's hosts but still nearer them than anyone: it
 * joins its nearest cluster when that cluster costs at most EDGE_SLOW
 * times the cluster's own median and a level (TOPO_FIT_SEP) less than
 * the next nearest.  A host alone on a switch is as far from every other
 * edge of the level above; one whose switch shares its parent with a
 * single other edge reads as such a slowed host unless that level costs
 * EDGE_SLOW times the edge or more.
 */
#define EDGE_JOIN 1.5
#define EDGE_SLOW 2.0

/* edge_merge: two edge clusters whose median figure between them is at most
 * EDGE_MERGE times the lower of their own are one.  Medians over several
 * pairs: closer than EDGE_JOIN, and under the 1.3 of TOPO_FIT_SEP.
 */
#define EDGE_MERGE 1.15

/* The topmost vertex of the forest of d below cut c that holds vertex v. */
static int cut_top (const topo_t *d, int v, int c)
{
    while (d->parent[v] != -1 && d->parent[v] - d->nhosts < c)
        v = d->parent[v];
    return v;
}

/* The hosts of each cluster q of lab (m0 clusters): member[start[q] ..
 * start[q + 1]), in host order; size[q] their count.
 */
static void edge_members (int n, const int *lab, int m0, int *size, int *start, int *member)
{
    memset (size, 0, (size_t)m0 * sizeof (*size));
    for (int h = 0; h < n; h++)
        size[lab[h]]++;
    start[0] = 0;
    for (int q = 0; q < m0; q++)
        start[q + 1] = start[q] + size[q];
    memset (size, 0, (size_t)m0 * sizeof (*size)); /* counts again as filled */
    for (int h = 0; h < n; h++)
        member[start[lab[h]] + size[lab[h]]++] = h;
}

/* The EDGE_CANDIDATES clusters of least mean figure to the hosts of
 * from[0..nfrom) (itself left out; empty clusters and skip left out),
 * lowest index on ties, into cand; returns how many.  sum: m0 scratch.
 * The medians are priced for these only: a cluster whose one pair was
 * measured far off still ranks among the first few by its mean.
 */
#define EDGE_CANDIDATES 16

static int edge_nearest (const double *x, int n, const int *from, int nfrom, const int *lab, int m0,
                         const int *size, double *sum, int skip, int *cand)
{
    int nc = 0;

    memset (sum, 0, (size_t)m0 * sizeof (*sum));
    for (int f = 0; f < nfrom; f++)
        for (int j = 0; j < n; j++)
            if (j != from[f])
                sum[lab[j]] += AT (x, n, from[f], j);
    for (int q = 0; q < m0; q++) {
        int p;
        if (q == skip || size[q] == 0 || (nfrom == 1 && size[q] == 1 && lab[from[0]] == q))
            continue;
        double mq = sum[q] / size[q];
        if (nc == EDGE_CANDIDATES && !(mq < sum[cand[nc - 1]] / size[cand[nc - 1]]))
            continue;
        p = nc < EDGE_CANDIDATES ? nc++ : nc - 1;
        while (p > 0 && mq < sum[cand[p - 1]] / size[cand[p - 1]]) {
            cand[p] = cand[p - 1];
            p--;
        }
        cand[p] = q;
    }
    return nc;
}

/* The median figure between the hosts of clusters q and r (members as
 * edge_members lists them), val room for their pairs.
 */
static double edge_between (const double *x, int n, const int *start, const int *member, int q,
                            int r, double *val)
{
    size_t k = 0, t = 0,
           all = (size_t)(start[q + 1] - start[q]) * (size_t)(start[r + 1] - start[r]);
    size_t stride = all > FIT_MAX_PAIRS ? (all + FIT_MAX_PAIRS - 1) / FIT_MAX_PAIRS : 1;

    for (int a = start[q]; a < start[q + 1]; a++)
        for (int b = start[r]; b < start[r + 1]; b++, t++)
            if (t % stride == 0)
                val[k++] = AT (x, n, member[a], member[b]);
    return stats_median (val, (int)k);
}

/* The median figure within cluster q, NaN for one host; as edge_between. */
static double edge_within (const double *x, int n, const int *start, const int *member, int q,
                           double *val)
{
    size_t k = 0, t = 0, s = (size_t)(start[q + 1] - start[q]), all = s < 2 ? 0 : s * (s - 1) / 2;
    size_t stride = all > FIT_MAX_PAIRS ? (all + FIT_MAX_PAIRS - 1) / FIT_MAX_PAIRS : 1;

    for (int a = start[q]; a < start[q + 1]; a++)
        for (int b = a + 1; b < start[q + 1]; b++, t++)
            if (t % stride == 0)
                val[k++] = AT (x, n, member[a], member[b]);
    return k ? stats_median (val, (int)k) : NAN;
}

/* Two edge clusters of two hosts or more whose median figure between them
 * is at most EDGE_MERGE times the lower of their own medians are one edge
 * that a pair measured far off split (the clustering's average let it):
 * merged, each into the nearest such, until none is left.
 */
static void edge_merge (const double *x, int n, int *lab, int m0, int *size, int *start,
                        int *member, double *val, double *intra, double *sum)
{
    for (bool merged = true; merged;) {
        merged = false;
        edge_members (n, lab, m0, size, start, member);
        for (int q = 0; q < m0; q++) {
            int best = -1, cand[EDGE_CANDIDATES], nc;
            double bestmed = INFINITY;
            if (size[q] < 2)
                continue;
            nc = edge_nearest (x, n, member + start[q], size[q], lab, m0, size, sum, q, cand);
            for (int i = 0; i < nc; i++) {
                int r = cand[i];
                double med;
                if (size[r] < 2)
                    continue;
                med = edge_between (x, n, start, member, q, r, val);
                if (med < bestmed || (med == bestmed && r < best)) {
                    bestmed = med;
                    best = r;
                }
            }
            if (best < 0 || !(bestmed <= EDGE_MERGE * fmin (intra[q], intra[best])))
                continue;
            /* one cluster now: best's hosts to q, q's own median again */
            for (int a = start[best]; a < start[best + 1]; a++)
                lab[member[a]] = q;
            edge_members (n, lab, m0, size, start, member);
            intra[q] = edge_within (x, n, start, member, q, val);
            merged = true;
        }
    }
}

static int edge_labels (const double *x, const topo_t *d, int c, int *lab, int *m)
{
    int n = d->nhosts, m0 = 0, *size = NULL, *dense = NULL, *start = NULL, *member = NULL;
    int *next = NULL, rc = -1;
    double *val = NULL, *intra = NULL, *sum = NULL;
    size_t nval = (size_t)n;

    size = calloc ((size_t)n + 1, sizeof (*size));
    dense = malloc ((size_t)d->nvertices * sizeof (*dense));
    start = malloc (((size_t)n + 1) * sizeof (*start));
    member = malloc ((size_t)n * sizeof (*member));
    next = malloc ((size_t)n * sizeof (*next));
    intra = malloc ((size_t)n * sizeof (*intra));
    sum = malloc ((size_t)n * sizeof (*sum));
    if (!size || !dense || !start || !member || !next || !intra || !sum)
        goto done;
    for (int v = 0; v < d->nvertices; v++)
        dense[v] = -1;
    for (int h = 0; h < n; h++) {
        int v = cut_top (d, h, c);
        if (dense[v] < 0)
            dense[v] = m0++;
        lab[h] = dense[v];
        size[lab[h]]++;
    }
    /* room for a row, or the pairs edge_within and edge_between take */
    if (nval < FIT_MAX_PAIRS + 1)
        nval = FIT_MAX_PAIRS + 1;
    if (!(val = malloc (nval * sizeof (*val))))
        goto done;
    /* intra[q]: the median figure within cut cluster q, NaN for one host */
    edge_members (n, lab, m0, size, start, member);
    for (int q = 0; q < m0; q++)
        intra[q] = edge_within (x, n, start, member, q, val);
    /* sweeps: every host to the cluster of least median figure to it (the
     * median: one pair measured far off, as a busy machine gives, must not
     * move a host), all hosts against the same clusters, then moved */
    for (int sweep = 0; sweep < LEVEL_SWEEPS; sweep++) {
        int moved = 0;
        edge_members (n, lab, m0, size, start, member);
        for (int h = 0; h < n; h++) {
            int best = lab[h], cand[EDGE_CANDIDATES + 1], alone = size[lab[h]] == 1;
            int ncand = edge_nearest (x, n, &h, 1, lab, m0, size, sum, -1, cand);
            double bestmed = INFINITY, nextmed = INFINITY;
            cand[ncand++] = lab[h];
            for (int i = 0; i < ncand; i++) {
                int q = cand[i];
                size_t k = 0;
                for (int a = start[q]; a < start[q + 1]; a++)
                    if (member[a] != h)
                        val[k++] = AT (x, n, h, member[a]);
                if (k == 0)
                    continue;
                /* a host alone at the cut by its nearest host there: noise
                 * slows a pair far more often than it speeds one, and
                 * with two or three hosts a median is a mean */
                double med = alone ? topo_fit_min (val, k) : stats_median (val, (int)k);
                if (med < bestmed || (med == bestmed && q < best)) {
                    nextmed = bestmed;
                    bestmed = med;
                    best = q;
                } else if (med < nextmed)
                    nextmed = med;
            }
            /* a host alone joins a cluster only as one of its own, or as
             * a slowed one; a host alone on its switch is its own edge */
            if (alone && !(bestmed <= EDGE_JOIN * intra[best]) &&
                !(bestmed <= EDGE_SLOW * intra[best] && TOPO_FIT_SEP * bestmed <= nextmed))
                best = lab[h];
            next[h] = best;
            moved += best != lab[h];
        }
        memcpy (lab, next, (size_t)n * sizeof (*lab));
        if (!moved)
            break;
    }
    edge_merge (x, n, lab, m0, size, start, member, val, intra, sum);
    /* renumber the clusters left, in order of their lowest host */
    for (int q = 0; q < m0; q++)
        dense[q] = -1;
    *m = 0;
    for (int h = 0; h < n; h++) {
        if (dense[lab[h]] < 0)
            dense[lab[h]] = (*m)++;
        lab[h] = dense[lab[h]];
    }
    rc = 0;
done:
    if (rc < 0)
        errno = ENOMEM;
    free (size);
    free (dense);
    free (start);
    free (member);
    free (next);
    free (val);
    free (intra);
    free (sum);
    return rc;
}

struct cut_vote {
    int c, v; /* a host's cluster, and its vertex below the next cut */
};

static int cut_vote_cmp (const void *a, const void *b)
{
    const struct cut_vote *x = a, *y = b;

    return x->c != y->c ? (x->c > y->c) - (x->c < y->c) : (x->v > y->v) - (x->v < y->v);
}

/* t (cuts_tree's: switch heights its levels) with its spurious levels
 * merged.  Levels L and L + 1 are one where every switch of L + 1 either
 * sits over one switch that is no chain, or only over chains (a chain: a
 * switch over one switch and no host): such cuts merge one subtree's
 * children at L and another's at L + 1, a figure that differs between
 * subtrees at one level (a busy host read one aggregation's leaves 1.3
 * times nearer than the other's), which no switch of the network tells.
 * A switch over a single child beside others (a sampled tree's lone
 * edge) stays.  NULL on ENOMEM (t freed).
 */
static topo_t *levels_merged (topo_t *t, tm_error_t *errp)
{
    for (;;) {
        int n = t->nhosts, nv = t->nvertices, top = 0, m = 0, merge = 0;
        int *kids = calloc ((size_t)nv, sizeof (*kids)), *renum = NULL;
        topo_t *u = NULL;

        if (!kids || !(renum = malloc ((size_t)nv * sizeof (*renum)))) {
            free (kids);
            errnomem (errp);
            topo_destroy (t);
            return NULL;
        }
        /* kids[s]: its children, n + 1 more for a host among them; a
         * chain has 1 */
        for (int v = 0; v < nv; v++) {
            if (t->parent[v] >= 0)
                kids[t->parent[v]] += v < n ? n + 1 : 1;
            top = (int)fmax (top, t->height[v]);
        }
        /* the highest level L that is one with L + 1 */
        for (int L = top - 1; L >= 1 && !merge; L--) {
            bool one = true;
            for (int v = n; v < nv && one; v++)
                if ((int)t->height[v] == L) {
                    int up = t->parent[v];
                    one = up >= 0 && (kids[up] == 1 ? kids[v] != 1 : kids[v] == 1);
                }
            merge = one ? L : 0;
        }
        if (merge) {
            /* L's chains and the single-child switches of L + 1 go */
            for (int v = 0; v < nv; v++) {
                int h = (int)t->height[v];
                bool gone = v >= n && kids[v] == 1 && (h == merge || h == merge + 1);
                renum[v] = gone ? -1 : m++;
            }
            u = topo_alloc (TOPO_TREE, n, m, errp);
        }
        for (int v = 0; u && v < nv; v++) {
            int p = t->parent[v];
            while (p >= 0 && renum[p] < 0)
                p = t->parent[p];
            if (renum[v] >= 0) {
                u->parent[renum[v]] = p < 0 ? -1 : renum[p];
                u->height[renum[v]] = t->height[v] - (t->height[v] > merge);
            }
        }
        if (u) {
            u->ngroups = t->ngroups;
            memcpy (u->group, t->group, (size_t)n * sizeof (*u->group));
        }
        free (kids);
        free (renum);
        if (!merge)
            return t;
        topo_destroy (t);
        if (!u)
            return NULL;
        t = u;
    }
}

static topo_t *cuts_tree (const topo_t *d, const int *lab, int m0, const int *cut, int k,
                          tm_error_t *errp)
{
    int n = d->nhosts, *first = NULL, *m = NULL, *up = NULL, *cl = NULL;
    struct cut_vote *cv = NULL;
    topo_t *t = NULL;
    int nv;

    cv = malloc ((size_t)n * sizeof (*cv));
    first = malloc ((size_t)d->nvertices * sizeof (*first));
    m = calloc ((size_t)k + 2, sizeof (*m));
    up = malloc ((size_t)n * (size_t)(k + 1) * sizeof (*up));
    cl = malloc ((size_t)n * sizeof (*cl));
    if (!cv || !first || !m || !up || !cl) {
        errnomem (errp);
        goto done;
    }
    m[0] = m0;
    memcpy (cl, lab, (size_t)n * sizeof (*cl)); /* each host's level-l cluster */
    /* up[l * n + c]: the level-(l + 1) cluster of level-l cluster c, the
     * vertex below the next cut (or the root) holding most of c's hosts
     * (the lowest on ties): hosts sorted by (cluster, vertex), runs
     * counted */
    for (int l = 0; l < k; l++) {
        int *bestv = up + (size_t)l * (size_t)n;
        for (int h = 0; h < n; h++)
            cv[h] = (struct cut_vote){cl[h], cut_top (d, h, l + 1 < k ? cut[l + 1] : INT_MAX)};
        qsort (cv, (size_t)n, sizeof (*cv), cut_vote_cmp);
        for (int a = 0, bn = 0; a < n;) {
            int b = a;
            while (b < n && cv[b].c == cv[a].c && cv[b].v == cv[a].v)
                b++;
            if (a == 0 || cv[a].c != cv[a - 1].c)
                bn = 0; /* the first run of a cluster */
            if (b - a > bn) {
                bn = b - a;
                bestv[cv[a].c] = cv[a].v;
            }
            a = b;
        }
        /* number the level-(l + 1) clusters in order of their lowest host */
        for (int v = 0; v < d->nvertices; v++)
            first[v] = -1;
        for (int h = 0; h < n; h++) {
            int v = bestv[cl[h]];
            if (first[v] < 0)
                first[v] = m[l + 1]++;
        }
        for (int c = 0; c < m[l]; c++)
            bestv[c] = first[bestv[c]];
        for (int h = 0; h < n; h++)
            cl[h] = bestv[cl[h]];
        if (m[l + 1] >= m[l]) {
            errinval (errp, "level %d has as many switches as the level below", l + 2);
            goto done;
        }
    }
    if (m[k] != 1 || (k > 0 && m[k - 1] < 2)) {
        errinval (errp, "the levels do not end in one root over two switches or more");
        goto done;
    }
    nv = n;
    for (int l = 0; l <= k; l++)
        nv += m[l];
    if (!(t = topo_alloc (TOPO_TREE, n, nv, errp)))
        goto done;
    for (int h = 0, base = n; h < n; h++)
        t->parent[h] = base + lab[h];
    for (int l = 0, base = n; l <= k; base += m[l], l++)
        for (int c = 0; c < m[l]; c++) {
            t->height[base + c] = l + 1;
            t->parent[base + c] = l == k ? -1 : base + m[l] + up[(size_t)l * (size_t)n + (size_t)c];
        }
    t->ngroups = m0;
    memcpy (t->group, lab, (size_t)n * sizeof (*lab));
    if ((t = levels_merged (t, errp)))
        t = topo_tree_checked (t, errp);
done:
    free (cv);
    free (first);
    free (m);
    free (up);
    free (cl);
    return t;
}

/* The levels of the clustering of x (symmetric, diagonal 0; dx its
 * dendrogram, or NULL to make it) by its gaps, for noise that spreads a
 * level wide.  Wherever a merge costs LEVEL_MIN_STEP times the one below
 * and at least nine in ten hosts have joined a cluster below it, the gap
 * may separate two levels.  The LEVEL_TRIES largest such gaps are tried
 * as the cuts of cuts_tree, the largest first, one more at a time; each
 * tree is accepted when topo_fit explains x by it (TOPO_FIT_RESIDUAL,
 * TOPO_FIT_SEP), and topo_keep_better's choice of the accepted ones is
 * the answer: *classes its hop classes, signal sig.  NULL with errp
 * saying why none (errno ENOMEM: out of memory).
 */
#define LEVEL_MIN_STEP 1.05
#define LEVEL_TRIES    6

struct level_gap {
    double ratio;
    int s; /* the first merge above the gap */
};

static int level_gap_cmp (const void *a, const void *b)
{
    const struct level_gap *x = a, *y = b;

    if (x->ratio != y->ratio)
        return x->ratio > y->ratio ? -1 : 1;
    return x->s - y->s;
}

static int int_cmp (const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

topo_t *topo_infer_by_gaps (int n, const double *x, const topo_t *dx, topo_signal_t sig,
                            int *classes, tm_error_t *errp)
{
    const char *what = sig == TOPO_SIGNAL_BANDWIDTH ? "bandwidths" : "latencies";
    struct level_gap gap[LEVEL_TRIES];
    int nm = n - 1, ngap = 0, kbest = 0, bestnc = 0, joined = 0, *join = NULL;
    int nedge = 0, edge_cut[LEVEL_TRIES], edge_m[LEVEL_TRIES], *edge_lab[LEVEL_TRIES] = {NULL};
    double bestres = NAN, bestsep = NAN;
    topo_t *made = NULL, *best = NULL;
    bool best_ok = true; /* every tree kept here is accepted */
    const topo_t *d = dx;

    if (!d && !(d = made = topo_cluster (n, x, errp)))
        return NULL;
    /* join[s]: the hosts whose first merge is s */
    if (!(join = calloc ((size_t)nm, sizeof (*join)))) {
        errnomem (errp);
        goto done;
    }
    for (int h = 0; h < n; h++)
        join[d->parent[h] - n]++;
    for (int s = 1; s < nm; s++) {
        struct level_gap g = {d->height[n + s] / d->height[n + s - 1], s};
        joined += join[s - 1];
        if (!(g.ratio >= LEVEL_MIN_STEP) || 10 * joined < 9 * n)
            continue;
        if (ngap == LEVEL_TRIES && level_gap_cmp (&g, &gap[ngap - 1]) > 0)
            continue;
        int p = ngap < LEVEL_TRIES ? ngap++ : ngap - 1;
        while (p > 0 && level_gap_cmp (&g, &gap[p - 1]) < 0) {
            gap[p] = gap[p - 1];
            p--;
        }
        gap[p] = g;
    }
    for (int k = 1; k <= ngap; k++) {
        int cut[LEVEL_TRIES], e0;
        tm_error_t e;
        double res, sep;
        int nc;
        topo_t *t;

        for (int q = 0; q < k; q++)
            cut[q] = gap[q].s;
        qsort (cut, (size_t)k, sizeof (*cut), int_cmp);
        /* the edge of each lowest cut once */
        for (e0 = 0; e0 < nedge && edge_cut[e0] != cut[0]; e0++)
            ;
        if (e0 == nedge) {
            if (!(edge_lab[e0] = malloc ((size_t)n * sizeof (int))) ||
                edge_labels (x, d, cut[0], edge_lab[e0], &edge_m[e0]) < 0)
                goto nomem;
            edge_cut[nedge++] = cut[0];
        }
        if (!(t = cuts_tree (d, edge_lab[e0], edge_m[e0], cut, k, &e))) {
            if (errno == ENOMEM)
                goto nomem;
            continue;
        }
        if ((nc = topo_fit (t, n, x, &res, &sep, &e)) < 0) {
            topo_destroy (t);
            if (errno == ENOMEM)
                goto nomem;
            continue;
        }
        t->signal = sig;
        t->residual = res;
        if (bestnc == 0 || nc > bestnc || (nc == bestnc && res < bestres)) {
            bestnc = nc;
            bestres = res;
            bestsep = sep;
        }
        if (topo_fit_accepts (nc, res, sep))
            topo_keep_better (&best, &kbest, &best_ok, t, nc);
        else
            topo_destroy (t);
    }
    if (best) {
        *classes = kbest;
        goto done;
    }
    if (bestnc > 0)
        errinval (errp,
                  "%s fit no tree of levels (best: %d level%s, residual %.3f, levels %.2f "
                  "times apart)",
                  what, bestnc, bestnc == 1 ? "" : "s", bestres, bestsep);
    else
        errinval (errp, "%s show no gap between levels", what);
    goto done;
nomem:
    errnomem (errp);
    topo_destroy (best);
    best = NULL;
done:
    for (int q = 0; q < LEVEL_TRIES; q++)
        free (edge_lab[q]);
    free (join);
    topo_destroy (made);
    return best;
}
