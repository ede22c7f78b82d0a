/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netmap_spread.c: how far a netmap's figures can be trusted, from the
 * spread of pairs its structure says are alike.
 *
 * One measurement of a pair is one draw from what that pair would measure:
 * pairs that shared a link inside a probe round, or ran while the host was
 * busy, read slow or fast by chance.  A plan that puts its heavy partners
 * on the pairs that merely measured fast predicts a gain the run does not
 * see.  So the guard prices the plan and srun's layout again on netmaps
 * drawn from the measured one (mapper.c, map_odds): each pair takes the
 * figures of a measured pair alike, chosen at random.  Structure the
 * netmap knows survives a draw; a gain that chased single pairs does not.
 *
 * Pairs alike, finest first, the first with NETMAP_ALIKE_MIN measured
 * pairs counting:
 *   a tree: the pairs through one switch between the same two of its
 *           children (hosts on the switch itself count as one child);
 *           then the pairs meeting at the same level; in a site's tree
 *           whose links were measured, each of these apart by the slow
 *           links it crosses (lib/topology_links.h);
 *   groups: the pairs between the same two groups (or within one);
 *           then all pairs within a group, or all between groups;
 *   no structure, or one group, or one switch: every pair.
 * With fewer, a pair keeps its own figures.
 *
 * A pair far slower than the pairs alike at the finest stratum of a tree
 * or of groups (NETMAP_NOISE_RATIO), where those read alike within
 * NETMAP_NOISE_TIGHT, while each of its hosts has another pair there that
 * reads as the rest, is left out of the draws: those other pairs show
 * every link it crosses carrying their figures, so it read a transient (a
 * busy core, a burst), not the network.  A slow link or a slow node slows
 * every pair across it, and stays; so do the slow pairs of a stratum whose
 * figures spread wide (shared memory's noise, where slow pairs are part
 * of what a measurement gives).
 *
 * A tree's uplinks measured under load (topo_t.uplink_MBps) are drawn too,
 * each from the figures of those alike (topo_uplinks_alike), slow or not
 * alike (NETMAP_ALIKE_MIN of them counting),
 * so that the busiest link's gain has a range as the total's does.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/netmap.h"
#include "lib/stats.h"
#include "lib/topology_links.h"

typedef struct {
    uint64_t key;  /* level << 56 | the stratum at that level */
    uint64_t slow; /* the slow links the pair crosses, hashed; 0: none */
    size_t entry;  /* into figs */
} spread_key_t;

struct netmap_spread {
    int n;
    const topo_t *topo; /* nm's, NULL for none or no groups to tell */
    int *depth;         /* [topo->nvertices] of a tree */
    bool *slow;         /* [topo->nvertices] of a site's tree, or NULL */
    size_t nentries;    /* measured pairs */
    double *figs;       /* [4 * nentries] lat a-b, lat b-a, bw a-b, bw b-a */
    size_t nkeys;       /* those drawn, at both levels */
    spread_key_t *keys; /* [nkeys] sorted: each pair drawn at both levels */
    int nups;           /* uplinks drawn */
    int *ups;           /* [nups] vertices, siblings alike consecutive */
    int *up_first;      /* [nups] the first of each one's alike in ups */
    int *up_count;      /* [nups] how many alike */
};

#define SPREAD_LEVEL_SHIFT 56

/* The child of switch v on the way down to host h (h itself where it
 * hangs from v), as one key: hosts on v alike, 0; a child switch c, c + 1.
 */
static uint64_t spread_child (const netmap_spread_t *s, int v, int h)
{
    const topo_t *t = s->topo;
    int u = h;

    while (t->parent[u] != v)
        u = t->parent[u];
    return u < t->nhosts ? 0 : (uint64_t)u + 1;
}

/* A vertex's hash, for a set of slow links as the xor of theirs. */
static uint64_t spread_hash (uint64_t v)
{
    uint64_t z = (v + 1) * 0x9e3779b97f4a7c15u;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* The two keys of pair a != b: fine (level 0) and coarse (level 1), and
 * the slow links it crosses (*slow, both keys'). */
static void spread_keys (const netmap_spread_t *s, int a, int b, uint64_t key[2], uint64_t *slow)
{
    const topo_t *t = s->topo;
    uint64_t fine = 0, coarse = 0;

    *slow = 0;

    if (t && t->model == TOPO_TREE) {
        int u = a, w = b;
        uint64_t x, y, nv = (uint64_t)t->nvertices + 1;

        while (s->depth[u] > s->depth[w])
            u = t->parent[u];
        while (s->depth[w] > s->depth[u])
            w = t->parent[w];
        while (u != w) {
            u = t->parent[u];
            w = t->parent[w];
        }
        for (int k = 0; s->slow && k < 2; k++)
            for (int v = k ? b : a; v != u; v = t->parent[v])
                if (s->slow[v])
                    *slow ^= spread_hash ((uint64_t)v);
        x = spread_child (s, u, a);
        y = spread_child (s, u, b);
        fine = ((uint64_t)u * nv + (x < y ? x : y)) * nv + (x < y ? y : x);
        coarse = (uint64_t)t->height[u];
    } else if (t) {
        uint64_t x = (uint64_t)t->group[a], y = (uint64_t)t->group[b];

        fine = (x < y ? x : y) * (uint64_t)t->ngroups + (x < y ? y : x);
        coarse = x != y;
    }
    key[0] = fine;
    key[1] = (uint64_t)1 << SPREAD_LEVEL_SHIFT | coarse;
}

static int spread_key_cmp (const void *x, const void *y)
{
    const spread_key_t *a = x, *b = y;

    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->slow != b->slow)
        return a->slow < b->slow ? -1 : 1;
    return a->entry < b->entry ? -1 : a->entry > b->entry;
}

/* Whether pair a, b was measured, with figures a draw can take. */
static int spread_measured (const netmap_t *nm, int a, int b)
{
    return (NETMAP_AT (nm, measured, a, b) > 0 || NETMAP_AT (nm, measured, b, a) > 0) &&
           isfinite (NETMAP_AT (nm, lat_us, a, b)) && isfinite (NETMAP_AT (nm, lat_us, b, a)) &&
           NETMAP_AT (nm, bw_MBps, a, b) > 0 && NETMAP_AT (nm, bw_MBps, b, a) > 0 &&
           isfinite (NETMAP_AT (nm, bw_MBps, a, b)) && isfinite (NETMAP_AT (nm, bw_MBps, b, a));
}

/* A pair's latency (the lower way) and transfer time (the mean way). */
static void spread_figure (const double *f, double *lat, double *tt)
{
    *lat = fmin (f[0], f[1]);
    *tt = (1 / f[2] + 1 / f[3]) / 2;
}

/* Whether the pairs of keys [i, j) read alike, but for a few: the median
 * of each pair's relative distance from the median, in latency and in
 * transfer time, at most NETMAP_NOISE_TIGHT; the medians in *mlat, *mtt.
 * val: room for j - i. */
static bool spread_tight (const netmap_spread_t *s, size_t i, size_t j, double *val, double *mlat,
                          double *mtt)
{
    int c = (int)(j - i);
    double lat, tt;

    for (int w = 0; w < 2; w++) {
        double *med = w ? mtt : mlat;

        for (size_t m = i; m < j; m++) {
            spread_figure (&s->figs[4 * s->keys[m].entry], &lat, &tt);
            val[m - i] = w ? tt : lat;
        }
        *med = stats_median (val, c);
        for (size_t m = i; m < j; m++) {
            spread_figure (&s->figs[4 * s->keys[m].entry], &lat, &tt);
            val[m - i] = fabs ((w ? tt : lat) / *med - 1);
        }
        if (stats_median (val, c) > NETMAP_NOISE_TIGHT)
            return false;
    }
    return true;
}

/* Leave out of s->keys the pairs that read far slower than the rest of
 * their finest stratum, where the rest read alike, while both their hosts
 * have a pair there that does not (the file's comment).  host: entry k's hosts at 2k and 2k + 1;
 * slowest, val: room for nentries, zeroed; good: for n, zeroed. */
static void spread_drop_noise (netmap_spread_t *s, const int *host, bool *slowest, bool *good,
                               double *val)
{
    size_t i = 0, kept = 0;

    while (i < s->nkeys && s->keys[i].key >> SPREAD_LEVEL_SHIFT == 0) {
        size_t j = i, c;
        double mlat, mtt, lat, tt;

        while (j < s->nkeys && s->keys[j].key == s->keys[i].key &&
               s->keys[j].slow == s->keys[i].slow)
            j++;
        c = j - i;
        if (c >= NETMAP_ALIKE_MIN && c <= INT_MAX && spread_tight (s, i, j, val, &mlat, &mtt)) {
            for (size_t m = i; m < j; m++) {
                size_t e = s->keys[m].entry;

                spread_figure (&s->figs[4 * e], &lat, &tt);
                slowest[e] = lat > NETMAP_NOISE_RATIO * mlat || tt > NETMAP_NOISE_RATIO * mtt;
                if (!slowest[e])
                    good[host[2 * e]] = good[host[2 * e + 1]] = true;
            }
            for (size_t m = i; m < j; m++) {
                size_t e = s->keys[m].entry;

                slowest[e] = slowest[e] && good[host[2 * e]] && good[host[2 * e + 1]];
            }
            for (size_t m = i; m < j; m++)
                good[host[2 * s->keys[m].entry]] = good[host[2 * s->keys[m].entry + 1]] = false;
        }
        i = j;
    }
    for (i = 0; i < s->nkeys; i++)
        if (!slowest[s->keys[i].entry])
            s->keys[kept++] = s->keys[i];
    s->nkeys = kept;
}

/* What makes uplinks alike, for sorting them together. */
typedef struct {
    int parent, below, slow, v;
} spread_up_t;

static int spread_up_cmp (const void *x, const void *y)
{
    const spread_up_t *a = x, *b = y;

    if (a->parent != b->parent)
        return (a->parent > b->parent) - (a->parent < b->parent);
    if (a->below != b->below)
        return (a->below > b->below) - (a->below < b->below);
    if (a->slow != b->slow)
        return a->slow - b->slow;
    return (a->v > b->v) - (a->v < b->v);
}

/* The uplinks of s->topo measured under load, siblings alike consecutive
 * in s->ups; those with fewer than NETMAP_ALIKE_MIN alike left out.  -1
 * on ENOMEM. */
static int spread_uplinks (netmap_spread_t *s)
{
    const topo_t *t = s->topo;
    int nv = t->nvertices, m = 0, kept = 0, rc = -1;
    int *below = topo_hosts_below (t);
    spread_up_t *u = malloc ((size_t)nv * sizeof (*u));

    if (!below || !u)
        goto done;
    for (int v = 0; v < nv; v++)
        if (t->parent[v] >= 0 && !isnan (t->uplink_MBps[v]))
            u[m++] = (spread_up_t){t->parent[v], below[v], s->slow && s->slow[v], v};
    qsort (u, (size_t)m, sizeof (*u), spread_up_cmp);
    if (!(s->ups = malloc (((size_t)m + 1) * sizeof (*s->ups))) ||
        !(s->up_first = malloc (((size_t)m + 1) * sizeof (*s->up_first))) ||
        !(s->up_count = malloc (((size_t)m + 1) * sizeof (*s->up_count))))
        goto done;
    for (int i = 0, j; i < m; i = j) {
        for (j = i + 1;
             j < m && topo_uplinks_alike (t, below, u[i].v, u[j].v) && u[j].slow == u[i].slow; j++)
            ;
        if (j - i < NETMAP_ALIKE_MIN)
            continue;
        for (int k = i; k < j; k++) {
            s->ups[kept] = u[k].v;
            s->up_first[kept] = kept - (k - i);
            s->up_count[kept++] = j - i;
        }
    }
    s->nups = kept;
    rc = 0;
done:
    free (below);
    free (u);
    return rc;
}

netmap_spread_t *netmap_spread_new (const netmap_t *nm, tm_error_t *errp)
{
    netmap_spread_t *s = calloc (1, sizeof (*s));
    const topo_t *t = nm->topo;
    size_t k = 0;
    int *host = NULL;
    bool *slowest = NULL, *good = NULL;
    double *val = NULL;

    if (!s)
        goto nomem;
    s->n = nm->n;
    if (t && t->nhosts == nm->n && (t->model == TOPO_TREE || t->ngroups > 1)) {
        s->topo = t;
        if (t->model == TOPO_TREE && !(s->depth = topo_depths (t)))
            goto nomem;
        /* a site's tree: its slow links, where its links were measured */
        if (t->model == TOPO_TREE && t->signal == TOPO_SIGNAL_SITE)
            s->slow = topo_links_flags (nm);
        if (t->model == TOPO_TREE && spread_uplinks (s) < 0)
            goto nomem;
    }
    for (int a = 0; a < nm->n; a++)
        for (int b = a + 1; b < nm->n; b++)
            s->nentries += spread_measured (nm, a, b);
    if (s->nentries == 0)
        return s;
    s->nkeys = 2 * s->nentries;
    if (!(s->figs = malloc (4 * s->nentries * sizeof (*s->figs))) ||
        !(s->keys = malloc (s->nkeys * sizeof (*s->keys))) ||
        !(host = malloc (2 * s->nentries * sizeof (*host))))
        goto nomem;
    for (int a = 0; a < nm->n; a++)
        for (int b = a + 1; b < nm->n; b++) {
            uint64_t key[2], slow;

            if (!spread_measured (nm, a, b))
                continue;
            s->figs[4 * k] = NETMAP_AT (nm, lat_us, a, b);
            s->figs[4 * k + 1] = NETMAP_AT (nm, lat_us, b, a);
            s->figs[4 * k + 2] = NETMAP_AT (nm, bw_MBps, a, b);
            s->figs[4 * k + 3] = NETMAP_AT (nm, bw_MBps, b, a);
            spread_keys (s, a, b, key, &slow);
            s->keys[2 * k] = (spread_key_t){key[0], slow, k};
            s->keys[2 * k + 1] = (spread_key_t){key[1], slow, k};
            host[2 * k] = a;
            host[2 * k + 1] = b;
            k++;
        }
    qsort (s->keys, s->nkeys, sizeof (*s->keys), spread_key_cmp);
    if (s->topo) {
        if (!(slowest = calloc (s->nentries, sizeof (*slowest))) ||
            !(good = calloc ((size_t)nm->n, sizeof (*good))) ||
            !(val = malloc (s->nentries * sizeof (*val))))
            goto nomem;
        spread_drop_noise (s, host, slowest, good, val);
    }
    free (host);
    free (slowest);
    free (good);
    free (val);
    return s;
nomem:
    free (host);
    free (slowest);
    free (good);
    free (val);
    netmap_spread_free (s);
    errnomem (errp);
    return NULL;
}

void netmap_spread_free (netmap_spread_t *s)
{
    if (!s)
        return;
    free (s->depth);
    free (s->slow);
    free (s->figs);
    free (s->keys);
    free (s->ups);
    free (s->up_first);
    free (s->up_count);
    free (s);
}

/* Whether keys[m] sorts before (key, slow), or with or before it (or_equal). */
static int spread_before (const spread_key_t *k, uint64_t key, uint64_t slow, int or_equal)
{
    if (k->key != key)
        return k->key < key;
    return or_equal ? k->slow <= slow : k->slow < slow;
}

/* The keys equal to (key, slow): [*lo, *lo + count). */
static size_t spread_find (const netmap_spread_t *s, uint64_t key, uint64_t slow, size_t *lo)
{
    size_t l = 0, h = s->nkeys, first;

    while (l < h) {
        size_t m = l + (h - l) / 2;
        if (spread_before (&s->keys[m], key, slow, 0))
            l = m + 1;
        else
            h = m;
    }
    first = l;
    h = s->nkeys;
    while (l < h) {
        size_t m = l + (h - l) / 2;
        if (spread_before (&s->keys[m], key, slow, 1))
            l = m + 1;
        else
            h = m;
    }
    *lo = first;
    return l - first;
}

size_t netmap_spread_alike (const netmap_spread_t *s, int a, int b, uint32_t *stratum)
{
    uint64_t key[2], slow;
    size_t lo, count;

    if (a == b || s->nkeys == 0)
        return 0;
    spread_keys (s, a, b, key, &slow);
    for (int level = 0; level < 2; level++)
        if ((count = spread_find (s, key[level], slow, &lo)) >= NETMAP_ALIKE_MIN) {
            *stratum = (uint32_t)lo;
            return count;
        }
    return 0;
}

/* splitmix64: a small generator whose every draw is the same on every
 * machine, so that a decision is. */
static uint64_t spread_next (uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void netmap_spread_draw (const netmap_spread_t *s, uint32_t stratum, size_t count, uint64_t *rng,
                         double lat[2], double bw[2])
{
    uint64_t r = spread_next (rng);
    const double *f = &s->figs[4 * s->keys[stratum + r % count].entry];
    int flip = (int)(r >> 63); /* which way the drawn pair is read */

    lat[0] = f[flip];
    lat[1] = f[1 - flip];
    bw[0] = f[2 + flip];
    bw[1] = f[3 - flip];
}

void netmap_spread_draw_uplinks (const netmap_spread_t *s, const double *measured, uint64_t *rng,
                                 double *uplink_MBps)
{
    for (int i = 0; i < s->nups; i++)
        uplink_MBps[s->ups[i]] =
            measured[s->ups[s->up_first[i] + (int)(spread_next (rng) % (uint64_t)s->up_count[i])]];
}
