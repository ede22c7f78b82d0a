/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pairs.c: the pairs in doubt, and rounds of disjoint pairs (pairs.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/heap.h"
#include "lib/pairs.h"
#include "lib/stats.h"

#define AT(m, n, i, j) ((m)[(size_t)(i) * (size_t)(n) + (size_t)(j)])

struct doubt {
    double ratio;
    int a, b;
};

static int doubt_cmp (const void *x, const void *y)
{
    const struct doubt *p = x, *q = y;

    if (p->ratio != q->ratio)
        return p->ratio > q->ratio ? -1 : 1;
    return p->a != q->a ? p->a - q->a : p->b - q->b;
}

/* The figure of pair a < b on one signal, NaN where not measured: the
 * lower latency of its two directions, or its mean transfer time.
 */
static double pair_figure (int n, const double *lat, const double *bw, const int *measured, int a,
                           int b)
{
    double x, y;

    if (AT (measured, n, a, b) <= 0 && AT (measured, n, b, a) <= 0)
        return NAN;
    if (lat) {
        x = AT (lat, n, a, b);
        y = AT (lat, n, b, a);
        x = x > 0 && isfinite (x) ? x : INFINITY;
        y = y > 0 && isfinite (y) ? y : INFINITY;
        x = fmin (x, y);
        return isfinite (x) ? x : NAN;
    }
    x = AT (bw, n, a, b);
    y = AT (bw, n, b, a);
    if (!(x > 0 && isfinite (x) && y > 0 && isfinite (y)))
        return NAN;
    return 0.5 * (1 / x + 1 / y);
}

/* For one signal (lat or bw), raise ratio[a * n + b] (a < b) to the pair's
 * figure over its minimax path.  Prim's minimum spanning forest over the
 * measured pairs, O(n^2); then from each host the largest step on the
 * forest's path to every other, one walk each, O(n^2) in all.
 */
static int doubt_signal (int n, const double *lat, const double *bw, const int *measured,
                         double *ratio)
{
    double *key = malloc ((size_t)n * sizeof (*key)), *top = malloc ((size_t)n * sizeof (*top));
    double *x = malloc ((size_t)n * (size_t)n * sizeof (*x));
    int *from = malloc ((size_t)n * sizeof (*from)), *deg = calloc ((size_t)n + 1, sizeof (*deg));
    int *adj = malloc (2 * (size_t)n * sizeof (*adj)),
        *stack = malloc ((size_t)n * sizeof (*stack));
    bool *in = calloc ((size_t)n, sizeof (*in));
    int rc = -1, nedge = 0, (*edge)[2] = malloc ((size_t)n * sizeof (*edge));

    if (!key || !top || !x || !from || !deg || !adj || !stack || !in || !edge)
        goto done;
    for (int a = 0; a < n; a++) {
        AT (x, n, a, a) = NAN;
        for (int b = a + 1; b < n; b++)
            AT (x, n, a, b) = AT (x, n, b, a) = pair_figure (n, lat, bw, measured, a, b);
    }
    /* Prim, restarted at each host not reached (a forest where pairs are
     * missing) */
    for (int a = 0; a < n; a++)
        key[a] = INFINITY;
    for (int reached = 0; reached < n;) {
        int u = -1;
        for (int a = 0; a < n; a++)
            if (!in[a] && (u < 0 || key[a] < key[u]))
                u = a;
        if (!isfinite (key[u]))
            from[u] = -1; /* a new tree */
        else {
            edge[nedge][0] = u;
            edge[nedge++][1] = from[u];
        }
        in[u] = true;
        reached++;
        for (int a = 0; a < n; a++)
            if (!in[a] && AT (x, n, u, a) < key[a]) { /* false for NaN */
                key[a] = AT (x, n, u, a);
                from[a] = u;
            }
    }
    /* the forest's adjacency lists: adj[deg[a] .. deg[a + 1]) */
    for (int e = 0; e < nedge; e++) {
        deg[edge[e][0] + 1]++;
        deg[edge[e][1] + 1]++;
    }
    for (int a = 0; a < n; a++)
        deg[a + 1] += deg[a];
    memcpy (from, deg, (size_t)n * sizeof (*from)); /* fill positions */
    for (int e = 0; e < nedge; e++) {
        adj[from[edge[e][0]]++] = edge[e][1];
        adj[from[edge[e][1]]++] = edge[e][0];
    }
    /* top[b]: the largest step on the path from r to b, NaN off r's tree */
    for (int r = 0; r < n; r++) {
        int sp = 0;
        for (int a = 0; a < n; a++)
            top[a] = NAN;
        top[r] = 0;
        stack[sp++] = r;
        while (sp > 0) {
            int u = stack[--sp];
            for (int i = deg[u]; i < deg[u + 1]; i++) {
                int v = adj[i];
                if (isnan (top[v])) {
                    top[v] = fmax (top[u], AT (x, n, u, v));
                    stack[sp++] = v;
                }
            }
        }
        for (int b = r + 1; b < n; b++)
            if (isfinite (AT (x, n, r, b)) && top[b] > 0)
                AT (ratio, n, r, b) = fmax (AT (ratio, n, r, b), AT (x, n, r, b) / top[b]);
    }
    rc = 0;
done:
    free (key);
    free (top);
    free (x);
    free (from);
    free (deg);
    free (adj);
    free (stack);
    free (in);
    free (edge);
    return rc;
}

int pairs_doubt (int n, const double *lat_us, const double *bw_MBps, const int *measured,
                 double ratio, int max, pairs_t *out, tm_error_t *errp)
{
    double *r;
    struct doubt *d;
    int nd = 0;

    if (n < 1 || !measured || !(ratio >= 1) || max < 0 || (max > 0 && !out)) {
        errno = EINVAL;
        return errprintf (errp, "pairs_doubt: bad arguments");
    }
    if ((size_t)n > SIZE_MAX / sizeof (double) / (size_t)n) {
        return errnomem (errp);
    }
    r = calloc ((size_t)n * (size_t)n, sizeof (*r));
    d = malloc ((size_t)n * (size_t)n / 2 * sizeof (*d) + sizeof (*d));
    if (!r || !d || (lat_us && doubt_signal (n, lat_us, NULL, measured, r) < 0) ||
        (bw_MBps && doubt_signal (n, NULL, bw_MBps, measured, r) < 0)) {
        free (r);
        free (d);
        return errnomem (errp);
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (AT (r, n, a, b) > ratio)
                d[nd++] = (struct doubt){AT (r, n, a, b), a, b};
    qsort (d, (size_t)nd, sizeof (*d), doubt_cmp);
    if (nd > max)
        nd = max;
    for (int i = 0; i < nd; i++)
        out[i] = (pairs_t){d[i].a, d[i].b};
    free (r);
    free (d);
    return nd;
}

/* Whether every host of n is in one of ngroups groups; errp names the
 * first that is not (EINVAL), fn the caller. */
static int groups_check (const char *fn, int n, const int *group, int ngroups, tm_error_t *errp)
{
    for (int h = 0; h < n; h++)
        if (group[h] < 0 || group[h] >= ngroups) {
            errno = EINVAL;
            return errprintf (errp, "%s: host %d in group %d of %d", fn, h, group[h], ngroups);
        }
    return 0;
}

int pairs_lone (int n, const double *lat_us, const double *bw_MBps, const int *measured,
                const int *group, int ngroups, int max, pairs_t *out, tm_error_t *errp)
{
    int *size, np = 0;
    double *best;

    if (n < 1 || !measured || !group || ngroups < 1 || !lat_us == !bw_MBps || max < 0 ||
        (max > 0 && !out)) {
        errno = EINVAL;
        return errprintf (errp, "pairs_lone: bad arguments");
    }
    if (groups_check ("pairs_lone", n, group, ngroups, errp) < 0)
        return -1;
    size = calloc ((size_t)ngroups, sizeof (*size));
    best = malloc ((size_t)ngroups * sizeof (*best));
    if (!size || !best) {
        free (size);
        free (best);
        return errnomem (errp);
    }
    for (int h = 0; h < n; h++)
        size[group[h]]++;
    for (int h = 0; h < n && np < max; h++) {
        if (size[group[h]] != 1)
            continue;
        for (int g = 0; g < ngroups; g++)
            best[g] = INFINITY;
        for (int o = 0; o < n; o++) {
            double f =
                o == h ? NAN
                       : pair_figure (n, lat_us, bw_MBps, measured, h < o ? h : o, h < o ? o : h);
            if (size[group[o]] > 1 && f < best[group[o]])
                best[group[o]] = f;
        }
        for (int k = 0; k < PAIRS_LONE_NEAR; k++) {
            int near = -1;

            for (int g = 0; g < ngroups; g++)
                if (isfinite (best[g]) && (near < 0 || best[g] < best[near]))
                    near = g;
            if (near < 0)
                break;
            best[near] = INFINITY;
            for (int o = 0; o < n && np < max; o++)
                if (group[o] == near)
                    out[np++] = (pairs_t){h < o ? h : o, h < o ? o : h};
        }
    }
    free (size);
    free (best);
    return np;
}

/* The median figure of the measured pairs between the hosts of edges q
 * and r (head/next: each edge's hosts), NaN where none; val: room for
 * them. */
static double split_between (int n, const double *lat, const double *bw, const int *measured,
                             const int *head, const int *next, int q, int r, double *val)
{
    int k = 0;

    for (int a = head[q]; a >= 0; a = next[a])
        for (int b = head[r]; b >= 0; b = next[b]) {
            double f = pair_figure (n, lat, bw, measured, a < b ? a : b, a < b ? b : a);
            if (f == f)
                val[k++] = f;
        }
    return k > 0 ? stats_median (val, k) : NAN;
}

int pairs_split (int n, const double *lat_us, const double *bw_MBps, const int *measured,
                 const int *group, const int *up, int ngroups, int max, pairs_t *out,
                 tm_error_t *errp)
{
    int *size = NULL, *head = NULL, *next = NULL, np = 0, nc = 0;
    double val[PAIRS_SPLIT_FEW];
    heap_t far = {0}; /* the closest max pairs of edges so far, the farthest on top */
    size_t room = (size_t)ngroups * (size_t)ngroups / 2; /* pairs of edges, at most */
    heap_item_t *c = NULL;

    if (n < 1 || !measured || !group || !up || ngroups < 1 || !lat_us == !bw_MBps || max < 0 ||
        (max > 0 && !out)) {
        errno = EINVAL;
        return errprintf (errp, "pairs_split: bad arguments");
    }
    if (groups_check ("pairs_split", n, group, ngroups, errp) < 0)
        return -1;
    if (max == 0)
        return 0;
    size = calloc ((size_t)ngroups, sizeof (*size));
    head = malloc ((size_t)ngroups * sizeof (*head));
    next = malloc ((size_t)n * sizeof (*next));
    if (!size || !head || !next ||
        heap_reserve (&far, (room < (size_t)max ? room : (size_t)max) + 1) < 0) {
        np = errnomem (errp);
        goto done;
    }
    for (int q = 0; q < ngroups; q++)
        head[q] = -1;
    for (int h = n - 1; h >= 0; h--) {
        size[group[h]]++;
        next[h] = head[group[h]];
        head[group[h]] = h;
    }
    /* each pair of sibling edges with few pairs, the max closest kept:
     * each gives one pair at least */
    for (int q = 0; q < ngroups; q++) {
        if (up[q] < 0 || size[q] < 1 || size[q] > PAIRS_SPLIT_FEW)
            continue;
        for (int r = q + 1; r < ngroups; r++) {
            double f;
            if (up[r] != up[q] || size[r] < 1 || size[r] > PAIRS_SPLIT_FEW / size[q])
                continue;
            f = split_between (n, lat_us, bw_MBps, measured, head, next, q, r, val);
            if (f == f) {
                heap_push (&far, (heap_item_t){-f, q, r}); /* room reserved */
                if (far.n > (size_t)max)
                    heap_pop (&far);
            }
        }
    }
    nc = (int)far.n;
    if (!(c = malloc ((size_t)nc * sizeof (*c) + 1))) {
        np = errnomem (errp);
        goto done;
    }
    for (int i = nc - 1; i >= 0; i--)
        c[i] = heap_pop (&far); /* the closest first */
    for (int i = 0; i < nc && np < max; i++)
        for (int a = head[c[i].id]; a >= 0; a = next[a])
            for (int b = head[c[i].aux]; b >= 0 && np < max; b = next[b])
                out[np++] = (pairs_t){a < b ? a : b, a < b ? b : a};
done:
    free (size);
    free (head);
    free (next);
    free (c);
    heap_free (&far);
    return np;
}

int pairs_rounds (int n, pairs_t *p, int np, tm_error_t *errp)
{
    int *next = NULL, *round = NULL, *count = NULL, nrounds = 0;
    pairs_t *sorted = NULL;

    if (n < 1 || np < 0 || (np > 0 && !p)) {
        errno = EINVAL;
        return errprintf (errp, "pairs_rounds: bad arguments");
    }
    for (int i = 0; i < np; i++)
        if (p[i].a < 0 || p[i].a >= n || p[i].b < 0 || p[i].b >= n || p[i].a == p[i].b) {
            errno = EINVAL;
            return errprintf (errp, "pairs_rounds: pair %d (%d, %d) is not two of %d hosts", i,
                              p[i].a, p[i].b, n);
        }
    next = calloc ((size_t)n, sizeof (*next));
    round = malloc ((size_t)np * sizeof (*round) + 1);
    count = calloc ((size_t)np + 2, sizeof (*count));
    sorted = malloc ((size_t)np * sizeof (*sorted) + 1);
    if (!next || !round || !count || !sorted) {
        nrounds = -1;
        errnomem (errp);
        goto done;
    }
    /* next[h]: the round after host h's latest pair so far */
    for (int i = 0; i < np; i++) {
        int a = p[i].a, b = p[i].b;
        round[i] = next[a] > next[b] ? next[a] : next[b];
        next[a] = next[b] = round[i] + 1;
        if (round[i] + 1 > nrounds)
            nrounds = round[i] + 1;
    }
    /* a stable counting sort by round */
    for (int i = 0; i < np; i++)
        count[round[i] + 1]++;
    for (int r = 0; r < nrounds; r++)
        count[r + 1] += count[r];
    for (int i = 0; i < np; i++)
        sorted[count[round[i]]++] = p[i];
    if (np > 0)
        memcpy (p, sorted, (size_t)np * sizeof (*p));
done:
    free (next);
    free (round);
    free (count);
    free (sorted);
    return nrounds;
}
