/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sample.c: the probe's sampling plan (sample.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sample.h"
#include "lib/stats.h"

#define AT(m, n, i, j)      ((m)[(size_t)(i) * (size_t)(n) + (size_t)(j)])
#define errinval(errp, ...) (errno = EINVAL, errprintf ((errp), __VA_ARGS__))

/* The skeleton is drawn in runs of this many hosts. */
#define SAMPLE_RUN 16
/* Children screened at a switch in one step. */
#define SAMPLE_CHUNK 4
/* A signal tells two levels apart when their figures stand this far
 * apart; a level with no figure yet is taken this far from the level next
 * to it (TOPO_FIT_SEP: levels of an accepted tree stand 1.3 apart). */
#define SAMPLE_SEP     1.25
#define SAMPLE_NEW_SEP 1.3
/* A pair this far (log units) from a level's threshold decides alone:
 * log (1.15); nearer, two more hosts confirm, and while their median is
 * within SAMPLE_CLOSE, log (1.07), two more again, up to SAMPLE_CONFIRM
 * in all. */
#define SAMPLE_CLEAR   0.13976194
#define SAMPLE_CLOSE   0.06765865
#define SAMPLE_CONFIRM 9
/* Pairs of one edge 1.3 times below its level's figure: a level under
 * the edges the skeleton found (-log (sqrt (SAMPLE_NEW_SEP))). */
#define SAMPLE_BELOW (-0.13118)
/* A host is above the root when the median of five pairs or more to
 * hosts under it is 1.25 times the root's level figure: this far above
 * the threshold of a new level, log (1.25 / sqrt (SAMPLE_NEW_SEP)). */
#define SAMPLE_ABOVE 0.09197015
/* Two directions of a pair differ by at most this factor, or the one
 * further off is not the pair's (+-20 % jitter alone reaches 1.5). */
#define SAMPLE_ASYM 1.5
/* Levels whose figures stand less than this far apart on both signals
 * are weak.  Under a switch of at most SAMPLE_ALL_KIDS children, the
 * verification measures a pair between every two (under others, between
 * every two of which one was made after the skeleton). */
#define SAMPLE_WEAK_SEP 1.6
#define SAMPLE_ALL_KIDS 16
/* The skeleton's edges of at most this many hosts are checked for two
 * switches' hosts (every pair of their hosts measured). */
#define SAMPLE_SPLIT_MAX 32
/* Subtrees of at most this many hosts under a switch of a weak level (and
 * at most SAMPLE_ALL_KIDS children) are inferred from all their pairs. */
#define SAMPLE_BLOCK_MAX 32
/* Steps a host waits for more hosts under a child to confirm with. */
#define SAMPLE_WAIT 4
/* The skeleton's tree is the one to place hosts in when topo_fit's
 * residual is at most this (+-20 % jitter gives about 0.1); else every
 * pair is measured. */
#define SAMPLE_RESIDUAL 0.15
/* Level figures are medians of at most about this many pairs. */
#define SAMPLE_FIG_PAIRS 65536
/* Rounds of verification at most (a merge of two switches may leave two
 * of their children to merge in the rounds after). */
#define SAMPLE_ROUNDS 12

typedef struct {
    int *v, n, cap;
} ivec_t;

/* A vertex of the tree being built: hosts 0..n-1, then switches. */
typedef struct {
    int parent;   /* -1 for the root and hosts not placed */
    int level;    /* switches: 1 for an edge; hosts 0 */
    ivec_t kid;   /* switches: children */
    ivec_t under; /* switches: placed hosts below, in increasing order */
    bool rebuilt; /* a block rebuilt or made by one: settled */
    bool skel;    /* the skeleton's (a switch, or a host) */
    bool mixed;   /* an edge whose skeleton hosts stand two levels apart */
    bool checked; /* an edge found one switch (split_edge) */
} vert_t;

/* A host being placed: the switch it is at and what it learnt there. */
typedef struct {
    int at;        /* switch it is at; -1 placed (or in the skeleton); -2
                      to start again at the root, made above it */
    ivec_t tried;  /* children of `at` screened */
    int *rep;      /* the host measured under each (tried's capacity) */
    double *tdist; /* its distance above the level of `at`, NaN until
                      taken with the figures of generation `gen` */
    bool *tout;    /* the child turned down */
    long gen;
    int conf;                 /* child being confirmed, -1 */
    int crep[SAMPLE_CONFIRM]; /* hosts under it measured, the screened one first */
    int ncrep;
    ivec_t weak;  /* turned down on one pair: no host to confirm with */
    ivec_t again; /* screened again since (with another host) */
    bool recheck; /* the nearest children screened again before "none" */
    int wait;     /* steps waited for a child to gain hosts to confirm */
    bool careful; /* placed again: every step confirmed */
    bool founds;  /* under no child of `at`: starts one with the hosts next
                     to it in index order that are near it */
    ivec_t extra; /* hosts under the root measured beside its children */
} pend_t;

struct sample {
    int n;
    double *lat, *bw;
    int *measured;
    topo_params_t tp;
    uint64_t rng;
    enum { ST_SKELETON, ST_SKELETON_READ, ST_PLACE, ST_VERIFY, ST_ALL, ST_ALL_READ, ST_DONE } stage;
    int rounds; /* of verification */
    bool all;   /* every pair measured after all */
    topo_signal_t signal;
    int *skel, nskel, maxskel; /* the skeleton's hosts, and twice as many */
    vert_t *v;
    int nv, capv, root;
    double *fig[2]; /* [level]: median latency, transfer time of the
                       pairs joined there */
    int nlevels;    /* fig has levels 0..nlevels */
    long fig_ndone; /* pairs measured when fig was taken */
    long fig_gen;   /* how many times it was taken */
    double *dfig;   /* [2 * ndone]: done_figures */
    long nfig;
    pend_t *pend;         /* [n] */
    pairs_t *ask;         /* the last batch */
    int *askwho, *askkid; /* per asked pair: the host placed, the child (-1 extra) */
    int nask, capask;
    pairs_t *out;  /* the last batch's pairs not measured before */
    pairs_t *done; /* every pair measured for the plan, in order */
    long ndone, capdone;
};

static uint64_t rnd (sample_t *s)
{
    s->rng = s->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return s->rng >> 33;
}

static int ivec_push (ivec_t *x, int val)
{
    if (x->n == x->cap) {
        int cap = x->cap ? 2 * x->cap : 4;
        int *p = realloc (x->v, (size_t)cap * sizeof (*p));
        if (!p)
            return -1;
        x->v = p;
        x->cap = cap;
    }
    x->v[x->n++] = val;
    return 0;
}

/* Insert val into the increasing x. */
static int ivec_insert (ivec_t *x, int val)
{
    int lo = 0, hi = x->n;

    if (ivec_push (x, val) < 0)
        return -1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (x->v[mid] < val)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove (x->v + lo + 1, x->v + lo, (size_t)(x->n - 1 - lo) * sizeof (int));
    x->v[lo] = val;
    return 0;
}

int sample_skeleton (int n)
{
    int s;

    if (n <= 6)
        return n;
    s = (int)ceil (sqrt ((double)n) * log2 ((double)n) / 3);
    return s < 6 ? 6 : s > n ? n : s;
}

/* The pair's figure on a signal: the mean of its two directions'
 * latencies or transfer times (1 / bandwidth), or where one is over
 * SAMPLE_ASYM times the other, the one something else on the machine cannot have caused:
 * the lower latency (a delay only adds), the longer transfer time (a
 * burst only speeds).  The probe measures both directions at once; a
 * simulator may not.
 */
static double figure (const sample_t *s, topo_signal_t sig, int a, int b)
{
    int n = s->n;
    bool bw = sig == TOPO_SIGNAL_BANDWIDTH;
    double x = bw ? 1 / AT (s->bw, n, a, b) : AT (s->lat, n, a, b);
    double y = bw ? 1 / AT (s->bw, n, b, a) : AT (s->lat, n, b, a);

    if (fmax (x, y) > SAMPLE_ASYM * fmin (x, y))
        return bw ? fmax (x, y) : fmin (x, y);
    return 0.5 * (x + y);
}

static int new_vertex (sample_t *s, int parent, int level)
{
    if (s->nv == s->capv) {
        int cap = 2 * s->capv;
        vert_t *p = realloc (s->v, (size_t)cap * sizeof (*p));
        if (!p)
            return -1;
        s->v = p;
        s->capv = cap;
    }
    memset (&s->v[s->nv], 0, sizeof (s->v[s->nv]));
    s->v[s->nv].parent = parent;
    s->v[s->nv].level = level;
    if (parent >= 0 && ivec_push (&s->v[parent].kid, s->nv) < 0)
        return -1;
    return s->nv++;
}

/* Host h placed under edge switch e. */
static int place (sample_t *s, int h, int e)
{
    s->v[h].parent = e;
    if (ivec_push (&s->v[e].kid, h) < 0)
        return -1;
    for (int u = e; u >= 0; u = s->v[u].parent)
        if (ivec_insert (&s->v[u].under, h) < 0)
            return -1;
    s->pend[h].at = -1;
    return 0;
}

/* The switch joining placed hosts a and b, and in *ca, *cb (may be NULL)
 * its children on their ways up. */
static int join (const sample_t *s, int a, int b, int *ca, int *cb)
{
    int pa = a, pb = b;

    a = s->v[a].parent;
    b = s->v[b].parent;
    while (a != b) {
        if (s->v[a].level <= s->v[b].level) {
            pa = a;
            a = s->v[a].parent;
        } else {
            pb = b;
            b = s->v[b].parent;
        }
    }
    if (ca)
        *ca = pa;
    if (cb)
        *cb = pb;
    return a;
}

static int join_level (const sample_t *s, int a, int b)
{
    return s->v[join (s, a, b, NULL, NULL)].level;
}

/* The figures of the pairs measured, done[k]'s in dfig[2 * k ...] (both
 * signals): taken once, as the pairs are spread over n * n matrices.
 * Returns 0, -1 on ENOMEM. */
static int done_figures (sample_t *s)
{
    if (s->nfig < s->ndone) {
        double *f = realloc (s->dfig, (size_t)s->capdone * 2 * sizeof (*f));
        if (!f)
            return -1;
        s->dfig = f;
    }
    for (; s->nfig < s->ndone; s->nfig++) {
        int a = s->done[s->nfig].a, b = s->done[s->nfig].b;
        s->dfig[2 * s->nfig] = figure (s, TOPO_SIGNAL_LATENCY, a, b);
        s->dfig[2 * s->nfig + 1] = figure (s, TOPO_SIGNAL_BANDWIDTH, a, b);
    }
    return 0;
}

/* fig[][level]: the median figures of the measured pairs of placed hosts
 * joined at that level (beyond SAMPLE_FIG_PAIRS pairs, every k-th), NaN
 * for a level with none.  Taken again when forced, when the root moved up,
 * or when a quarter more pairs have been measured since. */
static int level_figures (sample_t *s, bool force)
{
    int top = s->v[s->root].level, rc = -1;
    long stride = s->ndone / SAMPLE_FIG_PAIRS + 1;
    size_t *count, *at;
    double *val;
    int *lev;

    if (!force && top == s->nlevels && s->ndone < s->fig_ndone + s->fig_ndone / 4 + 64)
        return 0;
    if (done_figures (s) < 0)
        return -1;
    count = calloc ((size_t)top + 2, sizeof (*count));
    at = calloc ((size_t)top + 2, sizeof (*at));
    val = malloc (((size_t)s->ndone + 1) * sizeof (*val));
    lev = malloc (((size_t)s->ndone + 1) * sizeof (*lev));
    if (!count || !at || !val || !lev)
        goto done;
    for (int g = 0; g < 2; g++) {
        double *f = realloc (s->fig[g], ((size_t)top + 1) * sizeof (*f));
        if (!f)
            goto done;
        s->fig[g] = f;
    }
    for (long k = 0; k < s->ndone; k++) {
        int a = s->done[k].a, b = s->done[k].b;
        lev[k] = k % stride == 0 && s->v[a].parent >= 0 && s->v[b].parent >= 0
                     ? join_level (s, a, b)
                     : -1;
        if (lev[k] >= 0)
            count[lev[k] + 1]++;
    }
    for (int l = 0; l <= top; l++)
        count[l + 1] += count[l];
    for (int g = 0; g < 2; g++) {
        memcpy (at, count, ((size_t)top + 2) * sizeof (*at));
        for (long k = 0; k < s->ndone; k++)
            if (lev[k] >= 0)
                val[at[lev[k]]++] = s->dfig[2 * k + g];
        for (int l = 0; l <= top; l++)
            s->fig[g][l] = stats_median (val + count[l], (int)(count[l + 1] - count[l]));
    }
    s->nlevels = top;
    s->fig_ndone = s->ndone;
    s->fig_gen++;
    rc = 0;
done:
    free (count);
    free (at);
    free (val);
    free (lev);
    return rc;
}

static double fig_at (const sample_t *s, int g, int l)
{
    return l >= 0 && l <= s->nlevels ? s->fig[g][l] : NAN;
}

/* The figures of level l and of the level below on signal g (0 latency,
 * 1 transfer time) into *hi and *lo, a level with none yet taken
 * SAMPLE_NEW_SEP from its neighbour.  false where neither has one. */
static bool level_band (const sample_t *s, int g, int l, double *hi, double *lo)
{
    *hi = fig_at (s, g, l);
    *lo = l > 1 ? fig_at (s, g, l - 1) : NAN;
    if (isnan (*hi))
        *hi = *lo * SAMPLE_NEW_SEP;
    if (isnan (*lo))
        *lo = *hi / SAMPLE_NEW_SEP;
    return !isnan (*hi);
}

/* How far pair (a, b) measures above the threshold of level l: the
 * geometric mean of the figures of levels l and l - 1 (a level with none
 * yet taken SAMPLE_NEW_SEP from its neighbour), in log units; negative:
 * nearer than l, the pair's hosts are under one child of a switch of
 * level l.  On every signal whose two figures stand SAMPLE_SEP apart
 * the largest (a burst can make a far pair's bandwidth look near, its
 * latency stays), else on the one that separates them best.  Where hosts
 * share a machine (topo_params_t.lat_levels 0), on bandwidth alone.
 */
static double dist_of (const sample_t *s, int l, const double *f)
{
    double d = -INFINITY, weak = NAN, weaksep = 0;

    for (int g = s->tp.lat_levels ? 0 : 1; g < 2; g++) {
        double hi, lo, dg;
        if (!level_band (s, g, l, &hi, &lo))
            continue;
        dg = log (f[g]) - 0.5 * (log (hi) + log (lo));
        if (hi >= SAMPLE_SEP * lo)
            d = fmax (d, dg);
        else if (hi / lo > weaksep) {
            weaksep = hi / lo;
            weak = dg;
        }
    }
    return isfinite (d) ? d : isnan (weak) ? 0 : weak;
}

/* dist on the one signal that tells level l from the one below best. */
static double dist_best (const sample_t *s, int l, int a, int b)
{
    double best = 0, d = 0;

    for (int g = s->tp.lat_levels ? 0 : 1; g < 2; g++) {
        double hi, lo;
        if (level_band (s, g, l, &hi, &lo) && hi / lo > best) {
            best = hi / lo;
            d = log (figure (s, g ? TOPO_SIGNAL_BANDWIDTH : TOPO_SIGNAL_LATENCY, a, b)) -
                0.5 * (log (hi) + log (lo));
        }
    }
    return d;
}

static double dist (const sample_t *s, int l, int a, int b)
{
    double f[2] = {figure (s, TOPO_SIGNAL_LATENCY, a, b), figure (s, TOPO_SIGNAL_BANDWIDTH, a, b)};
    return dist_of (s, l, f);
}

/* The placed host under switch c whose index is nearest h's (skip 0),
 * or the skip-th after it in index order, round. */
static int near_host (const sample_t *s, int c, int h, int skip)
{
    const ivec_t *u = &s->v[c].under;
    int lo = 0, hi = u->n, best;

    if (u->n == 0)
        return -1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (u->v[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* lo: first index above h; its neighbour below may be nearer */
    if (lo == u->n || (lo > 0 && h - u->v[lo - 1] <= u->v[lo] - h))
        lo--;
    best = (lo + skip) % u->n;
    return u->v[best];
}

static int ask (sample_t *s, int who, int kid, int a, int b)
{
    if (s->nask == s->capask) {
        int cap = s->capask ? 2 * s->capask : 64;
        pairs_t *p = realloc (s->ask, (size_t)cap * sizeof (*p));
        int *w = p ? realloc (s->askwho, (size_t)cap * sizeof (*w)) : NULL;
        int *k = w ? realloc (s->askkid, (size_t)cap * sizeof (*k)) : NULL;
        if (p)
            s->ask = p;
        if (w)
            s->askwho = w;
        if (k)
            s->askkid = k;
        if (!p || !w || !k)
            return -1;
        s->capask = cap;
    }
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    s->ask[s->nask] = (pairs_t){a, b};
    s->askwho[s->nask] = who;
    s->askkid[s->nask++] = kid;
    return 0;
}

/* Every pair of hosts h[0..k) (h NULL: hosts 0..k-1) not measured yet
 * asked for, for no host in particular.  Returns how many, -1 on ENOMEM. */
static int ask_every_pair (sample_t *s, const int *h, int k)
{
    int asked = 0;

    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++) {
            int a = h ? h[i] : i, b = h ? h[j] : j;
            if (AT (s->measured, s->n, a, b) > 0 || AT (s->measured, s->n, b, a) > 0)
                continue;
            if (ask (s, -1, -1, a, b) < 0)
                return -1;
            asked++;
        }
    return asked;
}

sample_t *sample_create (int n, double *lat_us, double *bw_MBps, int *measured,
                         const topo_params_t *tp, unsigned seed, tm_error_t *errp)
{
    sample_t *s;
    int *pick;

    if (n < 2 || !lat_us || !bw_MBps || !measured) {
        errinval (errp, "sampling plan: %d hosts or a matrix missing", n);
        return NULL;
    }
    if (!(s = calloc (1, sizeof (*s))))
        goto nomem;
    s->n = n;
    s->lat = lat_us;
    s->bw = bw_MBps;
    s->measured = measured;
    if (tp)
        s->tp = *tp;
    else
        topo_params_default (&s->tp);
    s->rng = (uint64_t)seed * 2654435761ULL + 12345;
    s->nskel = sample_skeleton (n);
    s->maxskel = 2 * s->nskel < n ? 2 * s->nskel : n;
    s->capv = 2 * n + 16;
    s->v = calloc ((size_t)s->capv, sizeof (*s->v));
    s->pend = calloc ((size_t)n, sizeof (*s->pend));
    s->skel = malloc ((size_t)s->maxskel * sizeof (*s->skel));
    pick = malloc ((size_t)n * sizeof (*pick));
    if (!s->v || !s->pend || !s->skel || !pick) {
        free (pick);
        goto nomem;
    }
    for (int h = 0; h < n; h++) {
        s->v[h].parent = -1;
        s->pend[h].conf = -1;
        pick[h] = h;
    }
    s->nv = n;
    /* the skeleton: runs of SAMPLE_RUN hosts of consecutive index (names
     * follow racks: most of a run's hosts share a switch with others of
     * it, as the inference needs) at random places of one grid; twice
     * as many drawn, for a skeleton that shows no tree (names that do not
     * follow racks) */
    int run = s->nskel < SAMPLE_RUN ? s->nskel : SAMPLE_RUN, slots = (n + run - 1) / run;
    int off = (int)(rnd (s) % (uint64_t)n), k = 0;
    char *taken = calloc ((size_t)n, 1);
    if (!taken) {
        free (pick);
        goto nomem;
    }
    for (int i = 0; i < slots; i++)
        pick[i] = i;
    for (int i = 0; i < slots && k < s->maxskel; i++) {
        int j = i + (int)(rnd (s) % (uint64_t)(slots - i)), t = pick[i];
        pick[i] = pick[j];
        pick[j] = t;
        for (int h = 0; h < run && k < s->maxskel; h++) {
            int x = (off + pick[i] * run + h) % n; /* the last run wraps round */
            if (!taken[x]) {
                taken[x] = 1;
                s->skel[k++] = x;
            }
        }
    }
    free (taken);
    free (pick);
    return s;
nomem:
    sample_destroy (s);
    errnomem (errp);
    return NULL;
}

/* The skeleton's topology becomes the tree the others are placed in.
 * Returns 1 with a tree of uniform depth, 2 for no tree while the skeleton
 * can grow, 0 when the plan should measure every pair instead, -1 on
 * ENOMEM. */
static int grow_skeleton (sample_t *s, tm_error_t *errp)
{
    int k = s->nskel, rc = -1, *vert = NULL;
    double *lat = malloc ((size_t)k * (size_t)k * sizeof (*lat));
    double *bw = malloc ((size_t)k * (size_t)k * sizeof (*bw));
    topo_t *t = NULL;

    if (!lat || !bw)
        goto nomem;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            AT (lat, k, i, j) = i == j ? 0 : AT (s->lat, s->n, s->skel[i], s->skel[j]);
            AT (bw, k, i, j) = i == j ? 0 : AT (s->bw, s->n, s->skel[i], s->skel[j]);
        }
    if (!(t = topo_infer_net (k, lat, bw, &s->tp, errp))) {
        if (errno == ENOMEM)
            goto nomem;
        rc = 0;
        goto done;
    }
    s->signal = t->signal == TOPO_SIGNAL_BANDWIDTH ? TOPO_SIGNAL_BANDWIDTH : TOPO_SIGNAL_LATENCY;
    if (!(vert = malloc ((size_t)t->nvertices * sizeof (*vert))))
        goto nomem;
    if (t->model == TOPO_TREE) { /* its levels stand apart, as an accepted tree's */
        double res, sep;
        int nc;
        for (int i = 0; i < k; i++)
            for (int j = 0; j < k; j++)
                if (i != j && t->signal == TOPO_SIGNAL_BANDWIDTH)
                    AT (bw, k, i, j) = 1 / AT (bw, k, i, j);
        nc = topo_fit (t, k, t->signal == TOPO_SIGNAL_BANDWIDTH ? bw : lat, &res, &sep, NULL);
        if (nc < 1 || (nc > 1 && sep < TOPO_FIT_SEP) || !(res <= SAMPLE_RESIDUAL))
            t->model = TOPO_GROUPS;
    }
    if (t->model == TOPO_GROUPS) {
        /* no tree, or none that the figures fit closely with levels
         * apart (a cloud's heterogeneity is a plan's to see): a skeleton
         * twice the size, or every pair */
        rc = s->nskel < s->maxskel ? 2 : 0;
        goto done;
    }
    {
        /* hosts on edges only, each switch one level above its children */
        for (int v = 0; v < t->nvertices; v++) {
            int p = t->parent[v];
            if (p >= 0 && (int)t->height[p] != (v < k ? 1 : (int)t->height[v] + 1)) {
                rc = 0;
                goto done;
            }
        }
        /* switches level by level from the top: each parent before its
         * children */
        int top = 0;
        for (int v = k; v < t->nvertices; v++)
            top = (int)t->height[v] > top ? (int)t->height[v] : top;
        for (int l = top; l >= 1; l--)
            for (int v = k; v < t->nvertices; v++) {
                int p = t->parent[v];
                if ((int)t->height[v] != l)
                    continue;
                if ((vert[v] = new_vertex (s, p < 0 ? -1 : vert[p], l)) < 0)
                    goto nomem;
                s->v[vert[v]].skel = true;
                if (p < 0)
                    s->root = vert[v];
            }
        for (int i = 0; i < k; i++) {
            if (place (s, s->skel[i], vert[t->parent[i]]) < 0)
                goto nomem;
            s->v[s->skel[i]].skel = true;
        }
    }
    rc = 1;
    goto done;
nomem:
    errnomem (errp);
done:
    topo_destroy (t);
    free (vert);
    free (lat);
    free (bw);
    return rc;
}

/* Forget what host x learnt at its switch; start at switch at. */
static void pend_reset (pend_t *p, int at)
{
    p->at = at;
    p->tried.n = 0;
    p->conf = -1;
    p->ncrep = 0;
    p->weak.n = 0;
    p->again.n = 0;
    p->recheck = false;
    p->wait = 0;
    p->founds = false;
    p->extra.n = 0;
}

static int tried_push (pend_t *p, int kid, int rep)
{
    int cap = p->tried.cap;

    if (ivec_push (&p->tried, kid) < 0)
        return -1;
    if (p->tried.cap != cap || !p->rep) {
        int *r = realloc (p->rep, (size_t)p->tried.cap * sizeof (*r));
        double *d = r ? realloc (p->tdist, (size_t)p->tried.cap * sizeof (*d)) : NULL;
        bool *o = d ? realloc (p->tout, (size_t)p->tried.cap * sizeof (*o)) : NULL;
        if (r)
            p->rep = r;
        if (d)
            p->tdist = d;
        if (!o)
            return -1;
        p->tout = o;
    }
    p->rep[p->tried.n - 1] = rep;
    p->tdist[p->tried.n - 1] = NAN;
    p->tout[p->tried.n - 1] = false;
    return 0;
}

/* The distance of x's screened entry i above the level of its switch. */
static double tried_dist (const sample_t *s, int x, int i)
{
    pend_t *p = &s->pend[x];

    if (p->gen != s->fig_gen) {
        for (int j = 0; j < p->tried.n; j++)
            p->tdist[j] = NAN;
        p->gen = s->fig_gen;
    }
    if (isnan (p->tdist[i]))
        p->tdist[i] = dist (s, s->v[p->at].level, x, p->rep[i]);
    return p->tdist[i];
}

/* Child c turned down for x. */
static void tried_out (pend_t *p, int c)
{
    for (int i = 0; i < p->tried.n; i++)
        if (p->tried.v[i] == c)
            p->tout[i] = true;
}

static bool ivec_has (const ivec_t *x, int val)
{
    for (int i = 0; i < x->n; i++)
        if (x->v[i] == val)
            return true;
    return false;
}

/* Up to m hosts under switch c not measured with x yet, nearest by index
 * first, into y[]; returns how many. */
static int fresh_hosts (const sample_t *s, int x, int c, int m, int *y)
{
    int k = 0;

    for (int i = 0; i < s->v[c].under.n && k < m; i++) {
        int h = near_host (s, c, x, i);
        if (AT (s->measured, s->n, x, h) <= 0 && AT (s->measured, s->n, h, x) <= 0)
            y[k++] = h;
    }
    return k;
}

/* Up to m hosts under switch c not measured with x yet, spread over c's
 * hosts from a place x and c choose, into y[]; how many.  The hosts of
 * index nearest x's may be misplaced neighbours of x's that came there
 * before it (and drew it after them); hosts spread over c rarely all are. */
static int spread_hosts (const sample_t *s, int x, int c, int m, int *y)
{
    const ivec_t *u = &s->v[c].under;
    uint64_t z = ((uint64_t)x * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)c * 0xBF58476D1CE4E5B9ULL);
    int k = 0, at = u->n > 0 ? (int)((z >> 17) % (uint64_t)u->n) : 0;

    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < u->n && k < m; i++) {
            /* first from scattered places, then in order */
            int h =
                pass
                    ? u->v[i]
                    : u->v[(at + (int)(((uint64_t)i * 0x9E3779B97F4A7C15ULL) >> 40) % u->n) % u->n];
            bool dup = false;
            for (int j = 0; j < k; j++)
                dup |= y[j] == h;
            if (!dup && AT (s->measured, s->n, x, h) <= 0 && AT (s->measured, s->n, h, x) <= 0)
                y[k++] = h;
        }
    return k;
}

/* The screened children in weak that have a host not measured with x yet
 * are screened again (once).  Returns how many, -1 on ENOMEM. */
static int screen_again (sample_t *s, int x)
{
    pend_t *p = &s->pend[x];
    int k = 0, y;

    for (int i = 0; i < p->weak.n; i++) {
        int c = p->weak.v[i];
        if (ivec_has (&p->again, c) || fresh_hosts (s, x, c, 1, &y) < 1)
            continue;
        for (int j = 0; j < p->tried.n; j++)
            if (p->tried.v[j] == c) {
                p->tried.v[j] = p->tried.v[--p->tried.n];
                p->rep[j] = p->rep[p->tried.n];
                p->tdist[j] = p->tdist[p->tried.n];
                p->tout[j] = p->tout[p->tried.n];
                break;
            }
        if (ivec_push (&p->again, c) < 0)
            return -1;
        k++;
    }
    p->weak.n = 0;
    return k;
}

/* A new chain of switches under v (levels below v's down to an edge), x
 * on its edge. */
static int new_subtree (sample_t *s, int x, int v)
{
    s->v[v].rebuilt = false; /* a new child: to be looked at again */
    for (int l = s->v[v].level - 1; l >= 1; l--)
        if ((v = new_vertex (s, v, l)) < 0)
            return -1;
    return place (s, x, v);
}

/* A new root above the present one, x under a new chain beside it. */
static int new_root (sample_t *s, int x)
{
    int old = s->root, r = new_vertex (s, -1, s->v[old].level + 1);

    if (r < 0)
        return -1;
    s->v[old].parent = r;
    if (ivec_push (&s->v[r].kid, old) < 0)
        return -1;
    for (int i = 0; i < s->v[old].under.n; i++)
        if (ivec_push (&s->v[r].under, s->v[old].under.v[i]) < 0)
            return -1;
    s->root = r;
    for (int h = 0; h < s->n; h++) /* the others at the old root start again */
        if (h != x && s->pend[h].at == old) {
            s->pend[h].at = -2;
            s->pend[h].founds = false;
        }
    return new_subtree (s, x, r);
}

static int ask_pair (sample_t *s, int x, int kid, int y)
{
    return ask (s, x, kid, x, y);
}

/* Screen the next children of x's switch, those holding a host of index
 * nearest x's first, each against such a host not measured with x yet
 * where there is one.  Returns how many were asked, -1 on ENOMEM. */
static int screen (sample_t *s, int x)
{
    pend_t *p = &s->pend[x];
    const ivec_t *kid = &s->v[p->at].kid;
    int pick[SAMPLE_CHUNK], gap[SAMPLE_CHUNK], np = 0;

    for (int i = 0; i < kid->n; i++) {
        int c = kid->v[i], y, d;
        if (c < s->n || ivec_has (&p->tried, c) || (y = near_host (s, c, x, 0)) < 0)
            continue;
        d = abs (y - x);
        if (np < SAMPLE_CHUNK || d < gap[np - 1]) {
            int j = np < SAMPLE_CHUNK ? np++ : np - 1;
            while (j > 0 && gap[j - 1] > d) {
                pick[j] = pick[j - 1];
                gap[j] = gap[j - 1];
                j--;
            }
            pick[j] = c;
            gap[j] = d;
        }
    }
    for (int i = 0; i < np; i++) {
        int y;
        if (fresh_hosts (s, x, pick[i], 1, &y) < 1)
            y = near_host (s, pick[i], x, 0);
        if (ask_pair (s, x, pick[i], y) < 0)
            return -1;
    }
    return np;
}

/* Up to m hosts under switch c measured with x, into y[]; how many. */
static int measured_under (const sample_t *s, int x, int c, int *y, int m)
{
    int k = 0;

    for (int i = 0; i < s->v[c].under.n && k < m; i++) {
        int h = s->v[c].under.v[i];
        if (AT (s->measured, s->n, x, h) > 0 || AT (s->measured, s->n, h, x) > 0)
            y[k++] = h;
    }
    return k;
}

/* Median of x's distances above level l to hosts y[0..m), m <= 64. */
static double median_dist (const sample_t *s, int l, int x, const int *y, int m)
{
    double d[64];

    for (int i = 0; i < m; i++)
        d[i] = dist (s, l, x, y[i]);
    return stats_median (d, m);
}

/* Host x under no child, it seems: first another host under each of the
 * three nearest (one pair may be an outlier).  How many pairs it asked
 * for, -1 on ENOMEM. */
static int step_recheck (sample_t *s, int x)
{
    pend_t *p = &s->pend[x];

    p->recheck = true;
    for (int k = 0; k < 3; k++) {
        int c = -1;
        double cd = INFINITY, d;
        for (int i = 0; i < p->tried.n; i++)
            if (!ivec_has (&p->weak, p->tried.v[i]) && !ivec_has (&p->again, p->tried.v[i]) &&
                (d = tried_dist (s, x, i)) < cd) {
                cd = d;
                c = p->tried.v[i];
            }
        if (c >= 0 && ivec_push (&p->weak, c) < 0)
            return -1;
    }
    return screen_again (s, x);
}

/* Host x above the root: most hosts beyond its level make a new root,
 * once five pairs tell.  Whether it asked for pairs or made the root
 * (*rc: step's return then). */
static bool step_above_root (sample_t *s, int x, int *rc)
{
    pend_t *p = &s->pend[x];
    int v = s->root, l = s->v[v].level, h[64], nh = 0, y[5], ny;

    for (int i = 0; i < p->tried.n && nh < 61; i++)
        h[nh++] = p->rep[i];
    for (int i = 0; i < p->extra.n; i++)
        h[nh++] = p->extra.v[i];
    if (nh < 5 && p->extra.n == 0 && (ny = fresh_hosts (s, x, v, 5 - nh, y)) > 0) {
        *rc = 0;
        for (int i = 0; i < ny && *rc == 0; i++)
            *rc = ask_pair (s, x, -1, y[i]) < 0 ? -1 : 0;
        return true;
    }
    if (nh >= 3 && median_dist (s, l + 1, x, h, nh) > SAMPLE_ABOVE) {
        *rc = new_root (s, x);
        return true;
    }
    return false;
}

/* Host x's next move: descend, place, make a switch, or ask for pairs.
 * Returns 0, -1 on ENOMEM. */
static int step (sample_t *s, int x)
{
    pend_t *p = &s->pend[x];

    if (p->at == -2)
        pend_reset (p, s->root);
    for (;;) {
        int v = p->at, l = s->v[v].level, best = -1, brep = -1, asked, y[5], ny;
        double bd = INFINITY;

        if (l == 1 && v != s->root)
            return place (s, x, v);
        /* a confirmation done: the median decides, or two more pairs */
        if (p->conf >= 0 && p->ncrep > 1) {
            int c = p->conf;
            double med = median_dist (s, l, x, p->crep, p->ncrep);
            if (p->ncrep + 2 <= SAMPLE_CONFIRM &&
                (fabs (med) < SAMPLE_CLOSE || (p->careful && p->ncrep < 5)) &&
                (ny = spread_hosts (s, x, c, 2, y)) > 0) {
                for (int i = 0; i < ny; i++)
                    if (ask_pair (s, x, c, y[i]) < 0)
                        return -1;
                return 0;
            }
            p->conf = -1;
            p->ncrep = 0;
            /* still near the threshold when no more hosts are asked: not
             * this child (a wrong descent draws x's neighbours after it; a
             * host under none founds a subtree the verification merges) */
            if (med < -SAMPLE_CLOSE) {
                pend_reset (p, c);
                continue;
            }
            tried_out (p, c);
        }
        for (int i = 0; i < p->tried.n; i++) {
            double d;
            if (p->tout[i] || (d = tried_dist (s, x, i)) >= bd)
                continue;
            bd = d;
            best = p->tried.v[i];
            brep = p->rep[i];
        }
        if (best >= 0 && bd < SAMPLE_CLEAR) {
            if (bd < -SAMPLE_CLEAR && !p->careful) {
                pend_reset (p, best);
                continue;
            }
            if ((ny = spread_hosts (s, x, best, 2, y)) > 0) {
                p->conf = best;
                p->crep[0] = brep;
                p->ncrep = 1;
                for (int i = 0; i < ny; i++)
                    if (ask_pair (s, x, best, y[i]) < 0)
                        return -1;
                return 0;
            }
            /* every host under it measured already: their median decides
             * (under a child just made, with fewer than three, after a few
             * steps in which it may gain hosts; the verification undoes a
             * wrong choice) */
            int h[SAMPLE_CONFIRM], m = measured_under (s, x, best, h, SAMPLE_CONFIRM);
            if (m < 3 && p->wait < SAMPLE_WAIT && !p->careful) {
                p->wait++;
                return 0;
            }
            if (m > 0 && median_dist (s, l, x, h, m) < (m >= 3 ? 0 : -SAMPLE_CLEAR)) {
                pend_reset (p, best);
                continue;
            }
            if (!ivec_has (&p->again, best) && ivec_push (&p->weak, best) < 0)
                return -1;
            tried_out (p, best);
            continue;
        }
        if ((asked = screen (s, x)) < 0)
            return -1;
        if (asked > 0)
            return 0;
        if ((asked = screen_again (s, x)) < 0)
            return -1;
        if (asked > 0)
            continue;
        if (!p->recheck) {
            if ((asked = step_recheck (s, x)) < 0)
                return -1;
            if (asked > 0)
                continue;
        }
        if (v == s->root && step_above_root (s, x, &asked))
            return asked;
        if (l == 1)
            return place (s, x, v);
        p->founds = true; /* found_children, with the others under none */
        return 0;
    }
}

static int founder_cmp (const void *x, const void *y, void *arg)
{
    const sample_t *s = arg;
    int a = *(const int *)x, b = *(const int *)y;

    if (s->pend[a].at != s->pend[b].at)
        return s->pend[a].at - s->pend[b].at;
    return a - b;
}

/* The hosts under no child of their switch (p->founds), by switch and in
 * index order, into f; how many. */
static int founders (sample_t *s, int *f)
{
    int k = 0;

    for (int x = 0; x < s->n; x++)
        if (s->pend[x].at >= 0 && s->pend[x].founds)
            f[k++] = x;
    qsort_r (f, (size_t)k, sizeof (*f), founder_cmp, s);
    return k;
}

/* The founders: each next to the one before it under the same switch
 * (names follow racks) is asked for that pair, where not measured yet.
 * Returns 0, -1 on ENOMEM. */
static int ask_founders (sample_t *s, int *f)
{
    int k = founders (s, f);

    for (int i = 1; i < k; i++)
        if (s->pend[f[i]].at == s->pend[f[i - 1]].at &&
            AT (s->measured, s->n, f[i - 1], f[i]) <= 0 &&
            AT (s->measured, s->n, f[i], f[i - 1]) <= 0 && ask (s, -1, -1, f[i - 1], f[i]) < 0)
            return -1;
    return 0;
}

/* The founders, with their pairs to the one before each measured: a run
 * of founders under one switch whose successive pairs are clearly nearer
 * than its level on the signal that tells it best (SAMPLE_CLEAR: one pair
 * decides) makes one new child there (a chain of switches down to an edge);
 * each founder goes on in it, placed at once where it is an edge.  Two
 * runs that are one subtree (names that do not follow racks, a pair that
 * measured far) are siblings for the verification to merge.  Returns 0,
 * -1 on ENOMEM. */
static int found_children (sample_t *s, int *f)
{
    int k = founders (s, f);

    for (int i = 0, e; i < k; i = e) {
        int v = s->pend[f[i]].at, c;
        for (e = i + 1; e < k && s->pend[f[e]].at == v &&
                        (AT (s->measured, s->n, f[e - 1], f[e]) > 0 ||
                         AT (s->measured, s->n, f[e], f[e - 1]) > 0) &&
                        dist_best (s, s->v[v].level, f[e - 1], f[e]) < -SAMPLE_CLEAR;
             e++)
            ;
        if (new_subtree (s, f[i], v) < 0)
            return -1;
        for (c = s->v[f[i]].parent; s->v[c].parent != v; c = s->v[c].parent)
            ;
        for (int j = i + 1; j < e; j++) {
            pend_reset (&s->pend[f[j]], c);
            if (s->v[c].level == 1 && place (s, f[j], c) < 0)
                return -1;
        }
    }
    return 0;
}

/* The pairs asked for are measured: each to the host that asked. */
static int read_asked (sample_t *s, tm_error_t *errp)
{
    int n = s->n;

    for (int i = 0; i < s->nask; i++) {
        int a = s->ask[i].a, b = s->ask[i].b, who = s->askwho[i], kid = s->askkid[i];
        int other = a == who ? b : a;
        pend_t *p;

        if (AT (s->measured, n, a, b) <= 0 && AT (s->measured, n, b, a) <= 0)
            return errinval (errp, "sampling plan: the pair of hosts %d and %d was not measured", a,
                             b);
        for (int d = 0; d < 2; d++) {
            double l = d ? AT (s->lat, n, b, a) : AT (s->lat, n, a, b);
            double w = d ? AT (s->bw, n, b, a) : AT (s->bw, n, a, b);
            if (!(isfinite (l) && l > 0 && isfinite (w) && w > 0 && isfinite (1 / w)))
                return errinval (errp,
                                 "sampling plan: hosts %d and %d measured %g us, %g MB/s: not "
                                 "finite and > 0",
                                 a, b, l, w);
        }
        if (who < 0)
            continue;
        p = &s->pend[who];
        if (kid < 0) {
            if (ivec_push (&p->extra, other) < 0)
                goto nomem;
        } else if (p->conf == kid && p->ncrep < SAMPLE_CONFIRM)
            p->crep[p->ncrep++] = other;
        else if (tried_push (p, kid, other) < 0)
            goto nomem;
    }
    return 0;
nomem:
    return errnomem (errp);
}

static int pair_cmp (const void *x, const void *y)
{
    const pairs_t *p = x, *q = y;
    return p->a != q->a ? p->a - q->a : p->b - q->b;
}

/* The asked pairs not measured yet go out, and into the list of pairs
 * measured. */
static int ask_out (sample_t *s, const pairs_t **pairs, tm_error_t *errp)
{
    int k = 0, j = 0;

    if (s->ndone + s->nask > s->capdone) {
        long cap = 2 * (s->ndone + s->nask) + 64;
        pairs_t *d = realloc (s->done, (size_t)cap * sizeof (*d));
        if (!d) {
            return errnomem (errp);
        }
        s->done = d;
        s->capdone = cap;
    }
    free (s->out);
    if (!(s->out = malloc (((size_t)s->nask + 1) * sizeof (*s->out)))) {
        return errnomem (errp);
    }
    for (int i = 0; i < s->nask; i++) {
        int a = s->ask[i].a, b = s->ask[i].b;
        if (AT (s->measured, s->n, a, b) > 0 || AT (s->measured, s->n, b, a) > 0)
            continue;
        s->out[k++] = s->ask[i];
    }
    /* each pair once, though two hosts (or checks) asked for it */
    qsort (s->out, (size_t)k, sizeof (*s->out), pair_cmp);
    for (int i = 0; i < k; i++)
        if (j == 0 || pair_cmp (&s->out[i], &s->out[j - 1]) != 0)
            s->out[j++] = s->out[i];
    for (int i = 0; i < j; i++)
        s->done[s->ndone++] = s->out[i];
    *pairs = s->out;
    return j;
}

static void ivec_remove (ivec_t *x, int val)
{
    for (int i = 0; i < x->n; i++)
        if (x->v[i] == val) {
            memmove (x->v + i, x->v + i + 1, (size_t)(x->n - i - 1) * sizeof (int));
            x->n--;
            return;
        }
}

/* Take placed host x out of the tree, to be placed again. */
static void detach (sample_t *s, int x)
{
    int e = s->v[x].parent;

    ivec_remove (&s->v[e].kid, x);
    for (int u = e; u >= 0; u = s->v[u].parent)
        ivec_remove (&s->v[u].under, x);
    s->v[x].parent = -1;
    pend_reset (&s->pend[x], s->root);
    s->pend[x].careful = true;
}

/* Sibling switch gone joins keep: its children and hosts move over. */
static int merge (sample_t *s, int keep, int gone)
{
    vert_t *g = &s->v[gone];

    for (int i = 0; i < g->kid.n; i++) {
        s->v[g->kid.v[i]].parent = keep;
        if (ivec_push (&s->v[keep].kid, g->kid.v[i]) < 0)
            return -1;
    }
    for (int i = 0; i < g->under.n; i++)
        if (ivec_insert (&s->v[keep].under, g->under.v[i]) < 0)
            return -1;
    ivec_remove (&s->v[g->parent].kid, gone);
    g->kid.n = g->under.n = 0;
    g->parent = -1;
    s->v[keep].rebuilt = false; /* new hosts: to be looked at again */
    return 0;
}

/* What the measured pairs say of one pair of sibling subtrees, or of one
 * host's pairs joined at one level. */
typedef struct {
    int key[3];
    double val, hi;
} note_t;

/* nt[0..k) in order of their keys (each in [0, range)): a counting sort a
 * key, least significant first (a verify round sorts a note or two for
 * every pair measured: at 4096 nodes a comparison sort of them took a
 * third of the plan's time).  tmp holds k notes.  Returns 0, -1 on
 * ENOMEM. */
static int sort_notes (note_t *nt, note_t *tmp, long k, int range)
{
    long *at = malloc (((size_t)range + 1) * sizeof (*at));

    if (!at)
        return -1;
    for (int key = 2; key >= 0; key--) {
        memset (at, 0, ((size_t)range + 1) * sizeof (*at));
        for (long i = 0; i < k; i++)
            at[nt[i].key[key] + 1]++;
        if (at[1] == k) /* one value: nothing to move */
            continue;
        for (int r = 0; r < range; r++)
            at[r + 1] += at[r];
        for (long i = 0; i < k; i++)
            tmp[at[nt[i].key[key]]++] = nt[i];
        memcpy (nt, tmp, (size_t)k * sizeof (*nt));
    }
    free (at);
    return 0;
}

/* nt[0..m) reordered so that nt[q] is the note of q-th smallest val. */
static void select_val (note_t *nt, long m, long q)
{
    stats_select (nt, m, sizeof (*nt), offsetof (note_t, val), q);
}

/* Whether the figures of levels l and l - 1 stand less than
 * SAMPLE_WEAK_SEP apart on both signals: one pair then says little. */
static bool weak_level (const sample_t *s, int l)
{
    double sep = 0;

    for (int g = 0; g < 2; g++)
        sep = fmax (sep, fig_at (s, g, l) / fig_at (s, g, l - 1));
    return l >= 2 && sep < SAMPLE_WEAK_SEP; /* NaN: not weak */
}

/* Pairs measured between the hosts under switches c1 and c2, counted up
 * to max; up to 3 pairs of them not measured yet in a[], b[] (-1 after
 * the last). */
static int cross_pairs (const sample_t *s, int c1, int c2, int max, int *a, int *b)
{
    int k = 0, f = 0;

    a[0] = b[0] = -1;
    for (int u = 0; u < s->v[c1].under.n; u++)
        for (int w = 0; w < s->v[c2].under.n; w++) {
            int x = s->v[c1].under.v[u], y = s->v[c2].under.v[w];
            if (AT (s->measured, s->n, x, y) > 0 || AT (s->measured, s->n, y, x) > 0) {
                if (++k >= max)
                    return k;
            } else if (f < 3) {
                a[f] = x;
                b[f++] = y;
                if (f < 3)
                    a[f] = b[f] = -1;
            }
        }
    return k;
}

/* Whether the hosts h[0..k) on side 1 and those on side 0 stand a level
 * apart: on one signal, the median figure of the pairs across is
 * SAMPLE_NEW_SEP times that of the pairs within each side (or more).  d:
 * room for k * k figures. */
static bool apart (const sample_t *s, const int *h, const char *side, int k, double *d)
{
    for (int g = 0; g < 2; g++) {
        double m[3];
        for (int w = 0; w < 3; w++) { /* within side 0, side 1, across */
            int q = 0;
            for (int i = 0; i < k; i++)
                for (int j = i + 1; j < k; j++)
                    if (w == 2 ? side[i] != side[j] : side[i] == w && side[j] == w)
                        d[q++] =
                            figure (s, g ? TOPO_SIGNAL_BANDWIDTH : TOPO_SIGNAL_LATENCY, h[i], h[j]);
            m[w] = stats_median (d, q); /* NaN for a side of one host */
        }
        if (!(m[2] < SAMPLE_NEW_SEP * m[0]) && !(m[2] < SAMPLE_NEW_SEP * m[1]) &&
            (!isnan (m[0]) || !isnan (m[1])))
            return true;
    }
    return false;
}

/* The hosts h[0..k) (every pair measured) in two sides, side[i] 1 or 0:
 * the top split of their average-linkage clustering on the distance
 * above level 2.  Returns 1 when the sides stand a level apart (median
 * distance across above 0, and apart), 0 when they do not (median not
 * above 0), 2 in between, -1 on ENOMEM. */
static int two_sides (const sample_t *s, const int *h, int k, char *side)
{
    double *c = malloc ((size_t)k * (size_t)k * sizeof (*c));
    int root = 2 * k - 2, one = -1, m = 0, rc = -1;
    topo_t *t = NULL;

    if (!c)
        return -1;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            AT (c, k, i, j) = i == j ? 0 : exp (dist (s, 2, h[i], h[j]));
    if (!(t = topo_cluster (k, c, NULL)))
        goto done;
    /* side 1: the hosts under one child of the dendrogram's root (the last
     * merge, vertex 2k - 2) */
    for (int v = 0; v < t->nvertices; v++)
        if (t->parent[v] == root) {
            one = v;
            break;
        }
    for (int i = 0; i < k; i++) {
        int u = i;
        while (u != root && u != one)
            u = t->parent[u];
        side[i] = u == one;
    }
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            if (side[i] && !side[j])
                c[m++] = dist (s, 2, h[i], h[j]);
    rc = m == 0 || stats_median (c, m) <= 0 ? 0 : apart (s, h, side, k, c) ? 1 : 2;
done:
    free (c);
    topo_destroy (t);
    return rc;
}

/* Edge e of the skeleton (3 to SAMPLE_SPLIT_MAX hosts): where its
 * skeleton hosts (every pair measured) stand in two sides a level apart,
 * or fewer than three of them leave it open, the pairs of all its hosts
 * not measured yet are asked for; with all measured, two sides a level
 * apart become two edges.  Returns 1 when it asked or split, 0, -1 on
 * ENOMEM. */
static int split_edge (sample_t *s, int e)
{
    int k = s->v[e].under.n, *h = malloc ((size_t)k * sizeof (*h)), ks = 0, asked = 0, rc = -1;
    char *side = calloc ((size_t)k, 1);

    if (!h || !side)
        goto done;
    if (!s->v[e].mixed) {
        for (int i = 0; i < k; i++)
            if (s->v[s->v[e].under.v[i]].skel)
                h[ks++] = s->v[e].under.v[i];
        if (ks >= 3 && (rc = two_sides (s, h, ks, side)) <= 0) {
            s->v[e].checked = rc == 0; /* its skeleton hosts: one switch */
            goto done;
        }
        /* apart, in between, or too few to tell: every pair */
        s->v[e].mixed = true;
    }
    memcpy (h, s->v[e].under.v, (size_t)k * sizeof (*h));
    if ((asked = ask_every_pair (s, h, k)) != 0) {
        rc = asked < 0 ? -1 : 1;
        goto done;
    }
    if ((rc = two_sides (s, h, k, side)) != 1) {
        s->v[e].checked = rc >= 0;
        rc = rc < 0 ? -1 : 0;
        goto done;
    }
    int ne = new_vertex (s, s->v[e].parent, 1);
    if (ne < 0) {
        rc = -1;
        goto done;
    }
    for (int i = 0; i < k; i++)
        if (side[i]) {
            ivec_remove (&s->v[e].kid, h[i]);
            ivec_remove (&s->v[e].under, h[i]);
            s->v[h[i]].parent = ne;
            if (ivec_push (&s->v[ne].kid, h[i]) < 0 || ivec_insert (&s->v[ne].under, h[i]) < 0) {
                rc = -1;
                goto done;
            }
        }
    rc = 1;
done:
    free (h);
    free (side);
    return rc;
}

/* Take down the subtree under switch v: its switches emptied, its hosts
 * off their edges (v and the switches above keep them in `under`). */
static void take_down (sample_t *s, int v)
{
    for (int i = 0; i < s->v[v].kid.n; i++) {
        int c = s->v[v].kid.v[i];
        if (c < s->n)
            s->v[c].parent = -1;
        else {
            take_down (s, c);
            s->v[c].under.n = 0;
            s->v[c].parent = -1;
        }
    }
    s->v[v].kid.n = 0;
}

/* Whether pair (a, b), joined at level l in some tree whose top is level
 * top, measures beyond the band of l: nearer than its threshold, or
 * farther than the next level's. */
static bool misplaced (const sample_t *s, int a, int b, int l, int top)
{
    return (l >= 2 && dist (s, l, a, b) < 0) || (l < top && dist (s, l + 1, a, b) > 0);
}

/* Switch v of a weak level with at most SAMPLE_ALL_KIDS children and 3 to
 * SAMPLE_BLOCK_MAX hosts: every pair of its hosts is measured, and the
 * probe's own inference over them (topo_infer_net), where it finds a
 * tree of v's levels that puts fewer of those pairs beyond their level's
 * band than v's subtree does, replaces it.  Once per switch.  Returns 1
 * when it asked for pairs or rebuilt, 0, -1 on ENOMEM. */
static int rebuild_block (sample_t *s, int v)
{
    int k = s->v[v].under.n, l = s->v[v].level, n = s->n, asked = 0, rc = -1, *h = NULL;
    int *map = NULL;
    double *lat = NULL, *bw = NULL;
    topo_t *t = NULL;

    if (l < 2 || !weak_level (s, l) || s->v[v].kid.n > SAMPLE_ALL_KIDS || k < 3 ||
        k > SAMPLE_BLOCK_MAX)
        return 0;
    if (!(h = malloc ((size_t)k * sizeof (*h))))
        return -1;
    memcpy (h, s->v[v].under.v, (size_t)k * sizeof (*h));
    if ((asked = ask_every_pair (s, h, k)) != 0) {
        rc = asked < 0 ? -1 : 1;
        goto done;
    }
    s->v[v].rebuilt = true; /* whatever comes of it */
    lat = malloc ((size_t)k * (size_t)k * sizeof (*lat));
    bw = malloc ((size_t)k * (size_t)k * sizeof (*bw));
    if (!lat || !bw)
        goto done;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            AT (lat, k, i, j) = i == j ? 0 : AT (s->lat, n, h[i], h[j]);
            AT (bw, k, i, j) = i == j ? 0 : AT (s->bw, n, h[i], h[j]);
        }
    rc = 0;
    t = topo_infer_net (k, lat, bw, &s->tp, NULL);
    if (!t || t->model != TOPO_TREE)
        goto done;
    /* a tree of v's levels, hosts on edges, each switch a level below
     * its parent */
    for (int u = 0; u < t->nvertices; u++) {
        int p = t->parent[u];
        if ((p < 0 && (int)t->height[u] != l) ||
            (p >= 0 && (int)t->height[p] != (u < k ? 1 : (int)t->height[u] + 1)))
            goto done;
    }
    /* and one that explains more of the pairs than the subtree there */
    {
        long now = 0, then = 0;
        for (int i = 0; i < k; i++)
            for (int j = i + 1; j < k; j++) {
                now += misplaced (s, h[i], h[j], (topo_hops (t, i, j) + 1) / 2, l);
                then += misplaced (s, h[i], h[j], join_level (s, h[i], h[j]), l);
            }
        if (now >= then)
            goto done;
    }
    if (!(map = malloc ((size_t)t->nvertices * sizeof (*map))))
        goto nomem;
    take_down (s, v);
    for (int lv = l; lv >= 1; lv--)
        for (int u = k; u < t->nvertices; u++) {
            if ((int)t->height[u] != lv)
                continue;
            if (t->parent[u] < 0)
                map[u] = v;
            else if ((map[u] = new_vertex (s, map[t->parent[u]], lv)) < 0)
                goto nomem;
            else
                s->v[map[u]].rebuilt = true;
        }
    for (int i = 0; i < k; i++) {
        int e = map[t->parent[i]];
        s->v[h[i]].parent = e;
        if (ivec_push (&s->v[e].kid, h[i]) < 0)
            goto nomem;
        for (int u = e; u != v; u = s->v[u].parent)
            if (ivec_insert (&s->v[u].under, h[i]) < 0)
                goto nomem;
    }
    rc = 1;
    goto done;
nomem:
    rc = -1;
done:
    free (h);
    free (map);
    free (lat);
    free (bw);
    topo_destroy (t);
    return rc;
}

/* Whether the skeleton saw a level below its edges (too few hosts of any
 * one switch: names that do not follow the switches), when every pair is
 * measured instead. */
static bool verify_below_edges (const sample_t *s)
{
    long below = 0, edge = 0;

    for (long d = 0; d < s->ndone; d++) {
        int a = s->done[d].a, b = s->done[d].b;
        if (s->v[a].parent < 0 || s->v[a].parent != s->v[b].parent)
            continue;
        edge++;
        below += dist (s, 1, a, b) < SAMPLE_BELOW;
    }
    return below >= 3 && below * 20 >= edge;
}

/* Siblings: a pair between every two under a switch of few children, and
 * between each made since the skeleton and every other, for the merges
 * (two halves of one switch, made apart, may have none).  How many asked,
 * -1 on ENOMEM. */
static int verify_ask_siblings (sample_t *s)
{
    int acts = 0;

    for (int v = s->n; v < s->nv; v++) {
        const ivec_t *kid = &s->v[v].kid;
        if (s->v[v].under.n == 0 || s->v[v].rebuilt)
            continue;
        for (int i = 0; i < kid->n; i++)
            for (int j = i + 1; j < kid->n; j++) {
                int a[3], b[3];
                if (kid->v[i] < s->n || kid->v[j] < s->n || !s->v[kid->v[i]].under.n ||
                    !s->v[kid->v[j]].under.n ||
                    (kid->n > SAMPLE_ALL_KIDS && s->v[kid->v[i]].skel && s->v[kid->v[j]].skel))
                    continue;
                if (cross_pairs (s, kid->v[i], kid->v[j], 1, a, b) == 0 && a[0] >= 0) {
                    if (ask (s, -1, -1, a[0], b[0]) < 0)
                        return -1;
                    acts++;
                }
            }
    }
    return acts;
}

/* Sibling subtrees whose hosts measure clearly nearer than their parent's
 * level merged (the median of three pairs or more, within SAMPLE_CLOSE
 * below the threshold; every pair between them measured, its sign), else
 * two more pairs asked for.  nt, tmp: room for 2 ndone + 1 notes.  How
 * many things it did, -1 on ENOMEM. */
static int verify_merge_siblings (sample_t *s, note_t *nt, note_t *tmp)
{
    long k = 0;
    int acts = 0;

    for (long d = 0; d < s->ndone; d++) {
        int a = s->done[d].a, b = s->done[d].b, ca, cb, j;
        if (s->v[a].parent < 0 || s->v[b].parent < 0)
            continue;
        j = join (s, a, b, &ca, &cb);
        if (s->v[j].level < 2)
            continue;
        nt[k++] = (note_t){{j, ca < cb ? ca : cb, ca < cb ? cb : ca},
                           dist_of (s, s->v[j].level, s->dfig + 2 * d),
                           0};
    }
    if (sort_notes (nt, tmp, k, s->nv) < 0)
        return -1;
    for (long i = 0, e; i < k; i = e) {
        int j = nt[i].key[0], c1 = nt[i].key[1], c2 = nt[i].key[2];
        double med;
        for (e = i; e < k && nt[e].key[0] == j && nt[e].key[1] == c1 && nt[e].key[2] == c2; e++)
            ;
        select_val (nt + i, e - i, (e - i) / 2);
        med = nt[i + (e - i) / 2].val;
        if (s->v[c1].parent != j || s->v[c2].parent != j || med >= (e - i < 3 ? SAMPLE_CLEAR : 0))
            continue;
        int a[3], b[3];
        /* every pair between them measured: the median's sign decides */
        bool exhausted = (cross_pairs (s, c1, c2, 3, a, b), a[0] < 0);
        if ((med < -SAMPLE_CLOSE && (e - i >= 3 || exhausted)) || (med < 0 && exhausted)) {
            if (merge (s, c1, c2) < 0)
                return -1;
            acts++;
            continue;
        }
        /* two more pairs between them, of hosts not measured together */
        int more = 0;
        for (int u = 0; u < s->v[c1].under.n && more < 2; u++)
            for (int w = 0; w < s->v[c2].under.n && more < 2; w++) {
                int ha = s->v[c1].under.v[u], hb = s->v[c2].under.v[w];
                if (AT (s->measured, s->n, ha, hb) > 0 || AT (s->measured, s->n, hb, ha) > 0)
                    continue;
                if (ask (s, -1, -1, ha, hb) < 0)
                    return -1;
                more++;
                break;
            }
        acts += more > 0;
    }
    return acts;
}

/* Hosts: a host whose pairs at some level measure beyond that level's
 * band (or alone on its edge) is placed again.  nt, tmp as above.  How
 * many, -1 on ENOMEM. */
static int verify_hosts (sample_t *s, note_t *nt, note_t *tmp)
{
    long k = 0;
    int acts = 0;

    for (long d = 0; d < s->ndone; d++) {
        int a = s->done[d].a, b = s->done[d].b, l;
        if (s->v[a].parent < 0 || s->v[b].parent < 0)
            continue;
        l = join_level (s, a, b);
        for (int w = 0; w < 2; w++)
            nt[k++] = (note_t){{w ? b : a, l, 0},
                               dist_of (s, l, s->dfig + 2 * d),
                               dist_of (s, l + 1, s->dfig + 2 * d)};
    }
    if (sort_notes (nt, tmp, k, s->nv) < 0)
        return -1;
    for (long i = 0, e; i < k; i = e) {
        int x = nt[i].key[0], l = nt[i].key[1], top = s->v[s->root].level, m;
        double lo, hi, his[8];
        for (e = i; e < k && nt[e].key[0] == x && nt[e].key[1] == l; e++)
            ;
        m = (int)(e - i);
        select_val (nt + i, m, m / 2);
        lo = nt[i + m / 2].val;
        if (m > 8) /* the eight of lowest val first */
            select_val (nt + i, m, 7);
        for (int q = 0; q < m && q < 8; q++)
            his[q] = nt[i + q].hi;
        hi = stats_median (his, m < 8 ? m : 8);
        if (s->v[x].parent < 0 || s->pend[x].careful || s->v[s->v[x].parent].rebuilt)
            continue;
        if (s->v[s->v[x].parent].under.n == 1 || /* alone on its edge */
            (l >= 2 && lo < (m >= 3 ? -SAMPLE_CLOSE : -SAMPLE_CLEAR)) ||
            (l < top && hi > (m >= 3 ? SAMPLE_CLOSE : SAMPLE_CLEAR))) {
            detach (s, x);
            acts++;
        }
    }
    return acts;
}

/* The verification once every host is placed: the siblings' pairs asked
 * for, weak blocks inferred again, the skeleton's edges split where their
 * hosts form two clusters; once those are measured, siblings merged and
 * hosts placed again (verify_merge_siblings, verify_hosts).  Returns how
 * many things it did, -2 when every pair must be measured
 * (verify_below_edges), -1 on ENOMEM. */
static int verify (sample_t *s)
{
    note_t *nt = NULL, *tmp = NULL;
    int acts = 0, r;

    if (level_figures (s, true) < 0)
        return -1;
    s->nask = 0;
    if (verify_below_edges (s))
        return -2;
    if ((acts = verify_ask_siblings (s)) < 0)
        return -1;
    /* blocks: small subtrees under a weak level inferred from all their
     * pairs */
    for (int v = s->n, nv = s->nv; v < nv; v++) {
        if (s->v[v].under.n == 0 || s->v[v].rebuilt)
            continue;
        if ((r = rebuild_block (s, v)) < 0)
            return -1;
        acts += r;
    }
    /* the skeleton's edges (its inference saw a few hosts of each): every
     * pair of their hosts measured, and one whose hosts form two clusters a
     * level apart is split */
    for (int e = s->n, nv = s->nv; e < nv; e++) {
        if (s->v[e].level != 1 || !s->v[e].skel || s->v[e].rebuilt || s->v[e].checked ||
            s->v[e].under.n < 3 || s->v[e].under.n > SAMPLE_SPLIT_MAX)
            continue;
        if ((r = split_edge (s, e)) < 0)
            return -1;
        acts += r;
    }
    if (s->nask) /* measured first */
        return acts;
    if (!(nt = malloc (((size_t)s->ndone * 2 + 1) * sizeof (*nt))) ||
        !(tmp = malloc (((size_t)s->ndone * 2 + 1) * sizeof (*tmp))) ||
        (r = verify_merge_siblings (s, nt, tmp)) < 0 ||
        ((acts += r) > 0 && level_figures (s, true) < 0) || (r = verify_hosts (s, nt, tmp)) < 0) {
        free (nt);
        free (tmp);
        return -1;
    }
    free (nt);
    free (tmp);
    return acts + r;
}

/* One step of every host not placed, until one asks for a pair or all are
 * placed.  Returns the number of hosts not placed, -1 on ENOMEM. */
static int place_step (sample_t *s, tm_error_t *errp)
{
    int left, *f = malloc ((size_t)s->n * sizeof (*f));

    if (!f || level_figures (s, false) < 0)
        goto nomem;
    do {
        s->nask = 0;
        left = 0;
        if (found_children (s, f) < 0)
            goto nomem;
        for (int x = 0; x < s->n; x++)
            if (s->pend[x].at != -1) {
                if (!s->pend[x].founds && step (s, x) < 0)
                    goto nomem;
                left += s->pend[x].at != -1;
            }
        if (ask_founders (s, f) < 0)
            goto nomem;
    } while (s->nask == 0 && left > 0);
    free (f);
    return left;
nomem:
    free (f);
    return errnomem (errp);
}

int sample_next (sample_t *s, const pairs_t **pairs, tm_error_t *errp)
{
    int rc;

    *pairs = NULL;
    for (;;)
        switch (s->stage) {
        case ST_SKELETON:
            s->nask = 0;
            if (ask_every_pair (s, s->skel, s->nskel) < 0)
                goto nomem;
            s->stage = ST_SKELETON_READ;
            if ((rc = ask_out (s, pairs, errp)) != 0)
                return rc;
            break;
        case ST_SKELETON_READ:
            if (read_asked (s, errp) < 0)
                return -1;
            if ((rc = grow_skeleton (s, errp)) < 0)
                return -1;
            if (rc == 2) {
                s->nskel = s->maxskel;
                s->stage = ST_SKELETON;
                break;
            }
            s->stage = rc ? ST_PLACE : ST_ALL;
            s->all = !rc;
            for (int x = 0; rc && x < s->n; x++)
                if (s->v[x].parent < 0)
                    pend_reset (&s->pend[x], s->root);
                else
                    s->pend[x].at = -1;
            s->nask = 0;
            break;
        case ST_PLACE:
            if (read_asked (s, errp) < 0 || (rc = place_step (s, errp)) < 0)
                return -1;
            if (rc == 0)
                s->stage = ST_VERIFY;
            if ((rc = ask_out (s, pairs, errp)) != 0)
                return rc;
            break; /* every pair asked was measured: on */
        case ST_VERIFY:
            if (read_asked (s, errp) < 0)
                return -1;
            if (s->rounds++ == SAMPLE_ROUNDS) {
                s->stage = ST_DONE;
                break;
            }
            if ((rc = verify (s)) == -2) {
                s->all = true;
                s->stage = ST_ALL;
                break;
            }
            if (rc < 0)
                goto nomem;
            if (rc == 0) {
                s->stage = ST_DONE;
                break;
            }
            for (int x = 0; x < s->n; x++)
                if (s->pend[x].at != -1)
                    s->stage = ST_PLACE; /* hosts to place again */
            if ((rc = ask_out (s, pairs, errp)) != 0)
                return rc;
            break;
        case ST_ALL:
            s->nask = 0;
            if (ask_every_pair (s, NULL, s->n) < 0)
                goto nomem;
            s->stage = ST_ALL_READ;
            if ((rc = ask_out (s, pairs, errp)) != 0)
                return rc;
            break;
        case ST_ALL_READ:
            if (read_asked (s, errp) < 0)
                return -1;
            s->stage = ST_DONE;
            s->nask = 0;
            break;
        case ST_DONE:
            if (s->nask && read_asked (s, errp) < 0)
                return -1;
            s->nask = 0;
            return 0;
        }
nomem:
    return errnomem (errp);
}

/* The level nearest l with figures (level_figures'). */
static int level_known (const sample_t *s, int l)
{
    for (int d = 0; d <= s->nlevels; d++) {
        if (l - d >= 0 && !isnan (s->fig[0][l - d]))
            return l - d;
        if (l + d <= s->nlevels && !isnan (s->fig[0][l + d]))
            return l + d;
    }
    return -1;
}

/* The tree as a topo_t: hosts first, then s's switches that have hosts
 * under them (merges, blocks rebuilt and hosts placed again leave some
 * without), in their order. */
static topo_t *finish_topo (sample_t *s, tm_error_t *errp)
{
    int n = s->n, nv = n, ng = 0, *id = malloc ((size_t)s->nv * sizeof (*id)), *gid;
    topo_t *t = NULL;

    gid = malloc ((size_t)s->nv * sizeof (*gid));
    if (!id || !gid) {
        errnomem (errp);
        goto done;
    }
    for (int v = 0; v < s->nv; v++) {
        id[v] = v < n ? v : s->v[v].under.n > 0 ? nv++ : -1;
        gid[v] = -1;
    }
    if (!(t = topo_alloc (TOPO_TREE, n, nv, errp)))
        goto done;
    for (int v = 0; v < s->nv; v++)
        if (id[v] >= 0) {
            t->parent[id[v]] = s->v[v].parent < 0 ? -1 : id[s->v[v].parent];
            t->height[id[v]] = s->v[v].level;
        }
    for (int h = 0; h < n; h++) {
        int e = s->v[h].parent;
        if (gid[e] < 0)
            gid[e] = ng++;
        t->group[h] = gid[e];
    }
    t->ngroups = ng;
    t->signal = s->signal;
done:
    free (id);
    free (gid);
    return t;
}

topo_t *sample_finish (sample_t *s, tm_error_t *errp)
{
    int n = s->n;
    double *x = NULL, sep;
    topo_t *t = NULL;

    if (s->stage != ST_DONE) {
        errinval (errp, "sampling plan: not complete");
        return NULL;
    }
    if (s->all) /* every pair measured: the probe's own inference */
        return topo_infer_net (n, s->lat, s->bw, &s->tp, errp);
    /* the pairs not measured: their level's medians */
    if (level_figures (s, true) < 0)
        goto nomem;
    /* edge by edge: the hosts of one edge join a host at one level */
    for (int a = 0; a < n; a++)
        for (int e = n; e < s->nv; e++) {
            const ivec_t *u = &s->v[e].under;
            int l;
            if (s->v[e].level != 1 || u->n == 0 || u->v[u->n - 1] <= a)
                continue;
            if ((l = level_known (s, join_level (s, a, u->v[u->n - 1]))) < 0) {
                errinval (errp, "sampling plan: no pair measured to fill the others from");
                goto fail;
            }
            for (int i = u->n - 1; i >= 0 && u->v[i] > a; i--) {
                int b = u->v[i];
                if (AT (s->measured, n, a, b) > 0 || AT (s->measured, n, b, a) > 0)
                    continue;
                AT (s->lat, n, a, b) = AT (s->lat, n, b, a) = s->fig[0][l];
                AT (s->bw, n, a, b) = AT (s->bw, n, b, a) = 1 / s->fig[1][l];
            }
        }
    if (!(t = finish_topo (s, errp)))
        goto fail;
    /* how well the tree explains the measured pairs alone */
    if (!(x = malloc (((size_t)s->ndone + 1) * sizeof (*x))))
        goto nomem;
    for (long d = 0; d < s->ndone; d++)
        x[d] = figure (s, s->signal, s->done[d].a, s->done[d].b);
    if (topo_fit_pairs (t, n, s->done, x, s->ndone, &t->residual, &sep, errp) < 0)
        goto fail;
    free (x);
    errclear (errp);
    return t;
nomem:
    errnomem (errp);
fail:
    topo_destroy (t);
    free (x);
    return NULL;
}

long sample_measured (const sample_t *s)
{
    return s->ndone;
}

void sample_destroy (sample_t *s)
{
    if (!s)
        return;
    for (int v = 0; v < s->nv; v++) {
        free (s->v[v].kid.v);
        free (s->v[v].under.v);
    }
    for (int h = 0; s->pend && h < s->n; h++) {
        free (s->pend[h].tried.v);
        free (s->pend[h].rep);
        free (s->pend[h].tdist);
        free (s->pend[h].tout);
        free (s->pend[h].extra.v);
        free (s->pend[h].weak.v);
        free (s->pend[h].again.v);
    }
    free (s->v);
    free (s->pend);
    free (s->skel);
    free (s->fig[0]);
    free (s->fig[1]);
    free (s->ask);
    free (s->askwho);
    free (s->askkid);
    free (s->out);
    free (s->done);
    free (s->dfig);
    free (s);
}
