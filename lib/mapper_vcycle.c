/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mapper_vcycle.c: V-cycles on a k-way partition (KaFFPa's global search;
 * doc/references.md).
 *
 * The graph is coarsened by heavy-edge matching that pairs only ranks of
 * one part, so the partition carries to every level unchanged; then, from
 * the coarsest level down, k-way FM moves vertices (at coarse levels,
 * clusters of ranks) to the neighbouring part that lowers the cut most,
 * in passes rolled back to their best balanced prefix; coarse levels may
 * leave a part over by one vertex's weight, the finest may not.  Moving a
 * cluster escapes the local optimum that moving single ranks, Scotch's
 * last step, stops in.  Each cycle coarsens anew (a random matching
 * order); the partition of least cut is kept, the one given included.
 * No part grows beyond the larger of its size before and its capacity,
 * so the caller's repair has no more to do than before.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/heap.h"
#include "lib/mapper_private.h"

typedef struct {
    int n;
    int *xadj, *adj; /* [n + 1], [xadj[n]] */
    int64_t *load;   /* [xadj[n]] */
    int *vw;         /* [n] ranks in each vertex */
    int *part;       /* [n] */
    int *cmap;       /* [n] its vertex one level up, or NULL at the top */
} map_vc_level_t;

static void map_vc_level_free (map_vc_level_t *l)
{
    free (l->xadj);
    free (l->adj);
    free (l->load);
    free (l->vw);
    free (l->part);
    free (l->cmap);
    memset (l, 0, sizeof (*l));
}

static uint64_t map_vc_rand (uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* The level above f: heavy-edge matching within parts, in a random order.
 * 1 made, 0 too little to gain (f stays the top), -1 out of memory.
 */
static int map_vc_coarsen (map_vc_level_t *f, map_vc_level_t *c, int maxvw, uint64_t *rng)
{
    int n = f->n, nc = 0, *order = NULL, *mark = NULL;
    int rc = -1;

    memset (c, 0, sizeof (*c));
    order = malloc ((size_t)n * sizeof (*order));
    f->cmap = malloc ((size_t)n * sizeof (*f->cmap));
    if (!order || !f->cmap)
        goto out;
    for (int i = 0; i < n; i++) {
        order[i] = i;
        f->cmap[i] = -1;
    }
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(map_vc_rand (rng) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int q = 0; q < n; q++) {
        int v = order[q], best = -1;
        int64_t bestload = -1;
        if (f->cmap[v] >= 0)
            continue;
        for (int k = f->xadj[v]; k < f->xadj[v + 1]; k++) {
            int u = f->adj[k];
            if (f->cmap[u] < 0 && u != v && f->part[u] == f->part[v] && f->load[k] > bestload &&
                f->vw[u] + f->vw[v] <= maxvw) {
                bestload = f->load[k];
                best = u;
            }
        }
        f->cmap[v] = nc;
        if (best >= 0)
            f->cmap[best] = nc;
        nc++;
    }
    if (nc > n - n / 10) {
        free (f->cmap);
        f->cmap = NULL;
        rc = 0;
        goto out;
    }
    c->n = nc;
    c->xadj = calloc ((size_t)nc + 1, sizeof (*c->xadj));
    c->adj = malloc ((size_t)(f->xadj[n] ? f->xadj[n] : 1) * sizeof (*c->adj));
    c->load = malloc ((size_t)(f->xadj[n] ? f->xadj[n] : 1) * sizeof (*c->load));
    c->vw = calloc ((size_t)nc, sizeof (*c->vw));
    c->part = malloc ((size_t)nc * sizeof (*c->part));
    mark = malloc ((size_t)nc * sizeof (*mark));
    if (!c->xadj || !c->adj || !c->load || !c->vw || !c->part || !mark)
        goto out;
    for (int i = 0; i < nc; i++)
        mark[i] = -1;
    /* the members of each coarse vertex, by counting sort, into order */
    for (int v = 0; v < n; v++)
        c->xadj[f->cmap[v] + 1]++;
    for (int i = 0; i < nc; i++)
        c->xadj[i + 1] += c->xadj[i];
    for (int v = 0; v < n; v++)
        order[c->xadj[f->cmap[v]]++] = v;
    /* the edges of each coarse vertex, merged */
    int narcs = 0;
    for (int i = 0, q = 0; i < nc; i++) {
        int first = narcs;
        for (; q < n && f->cmap[order[q]] == i; q++) {
            int v = order[q];
            c->vw[i] += f->vw[v];
            c->part[i] = f->part[v];
            for (int k = f->xadj[v]; k < f->xadj[v + 1]; k++) {
                int u = f->cmap[f->adj[k]];
                if (u == i)
                    continue;
                if (mark[u] < first) {
                    mark[u] = narcs;
                    c->adj[narcs] = u;
                    c->load[narcs++] = f->load[k];
                } else {
                    c->load[mark[u]] += f->load[k];
                }
            }
        }
        c->xadj[i] = first;
    }
    c->xadj[nc] = narcs;
    rc = 1;
out:
    free (order);
    free (mark);
    if (rc != 1)
        map_vc_level_free (c);
    return rc;
}

typedef struct {
    int k, tol, slack;
    const int64_t *maxw; /* [k] */
    int64_t *pw;         /* [k] */
    int64_t *conn;       /* [n * k] each vertex's load to each part */
    unsigned char *lock; /* [n] */
    int *moved, *from;   /* the pass's moves */
    heap_t *heap;        /* [k]: the vertices of each part by best gain */
} map_vc_fm_t;

/* v's best move: the neighbouring part of most gain; -1 when none. */
static int map_vc_best (const map_vc_level_t *l, const map_vc_fm_t *fm, int v, int64_t *gain)
{
    const int64_t *cv = fm->conn + (size_t)v * (size_t)fm->k;
    int a = l->part[v], best = -1;

    for (int b = 0; b < fm->k; b++)
        if (b != a && cv[b] > 0 && (best < 0 || cv[b] > cv[best]) &&
            fm->pw[b] + l->vw[v] <= fm->maxw[b] + fm->tol + fm->slack)
            best = b;
    if (best >= 0)
        *gain = cv[best] - cv[a];
    return best;
}

static int map_vc_push (const map_vc_level_t *l, map_vc_fm_t *fm, int v)
{
    int64_t gain;
    int b = map_vc_best (l, fm, v, &gain);

    if (b < 0 || fm->lock[v])
        return 0;
    return heap_push (&fm->heap[l->part[v]],
                      (heap_item_t){.key = -(double)gain, .id = v, .aux = b});
}

/* A part over its bound (maxw and the level's tolerance), or -1. */
static int map_vc_over (const map_vc_fm_t *fm)
{
    int over = -1;

    for (int p = 0; p < fm->k; p++)
        if (fm->pw[p] > fm->maxw[p] + fm->tol)
            over = p;
    return over;
}

/* Vertex v from part a to part b, its neighbours' loads to each part with it. */
static void map_vc_move (map_vc_level_t *l, map_vc_fm_t *fm, int v, int a, int b)
{
    size_t k = (size_t)fm->k;

    l->part[v] = b;
    fm->pw[a] -= l->vw[v];
    fm->pw[b] += l->vw[v];
    for (int q = l->xadj[v]; q < l->xadj[v + 1]; q++) {
        fm->conn[(size_t)l->adj[q] * k + (size_t)a] -= l->load[q];
        fm->conn[(size_t)l->adj[q] * k + (size_t)b] += l->load[q];
    }
}

/* One FM pass on level l: 1 it moved something, 0 not, -1 out of memory.
 * While a part is over its bound the moves come out of it; a prefix
 * counts only where none is.
 */
static int map_vc_pass (map_vc_level_t *l, map_vc_fm_t *fm)
{
    int n = l->n, k = fm->k, nmoved = 0, bestprefix = 0, limit = n / 8 + 16;
    int over = map_vc_over (fm);
    int64_t sum = 0, bestsum = over < 0 ? 0 : INT64_MIN;

    for (int p = 0; p < k; p++)
        fm->heap[p].n = 0;
    memset (fm->lock, 0, (size_t)n);
    for (int v = 0; v < n; v++)
        if (map_vc_push (l, fm, v) < 0)
            return -1;
    while (nmoved - bestprefix < limit) {
        int src = -1;
        if (over >= 0) {
            src = fm->heap[over].n ? over : -1;
        } else {
            for (int p = 0; p < k; p++)
                if (fm->heap[p].n &&
                    (src < 0 || heap_before (&fm->heap[p].e[0], &fm->heap[src].e[0])))
                    src = p;
        }
        if (src < 0)
            break;
        heap_item_t it = heap_pop (&fm->heap[src]);
        int v = it.id, a = l->part[v], b;
        int64_t gain;
        if (fm->lock[v] || a != src)
            continue;
        b = map_vc_best (l, fm, v, &gain);
        if (b != it.aux || -(double)gain != it.key) {
            if (map_vc_push (l, fm, v) < 0)
                return -1;
            continue;
        }
        fm->lock[v] = 1;
        map_vc_move (l, fm, v, a, b);
        fm->moved[nmoved] = v;
        fm->from[nmoved++] = a;
        sum += gain;
        for (int q = l->xadj[v]; q < l->xadj[v + 1]; q++)
            if (map_vc_push (l, fm, l->adj[q]) < 0)
                return -1;
        over = map_vc_over (fm);
        if (over < 0 && sum > bestsum) {
            bestsum = sum;
            bestprefix = nmoved;
        }
    }
    /* back to the best prefix */
    while (nmoved > bestprefix) {
        int v = fm->moved[--nmoved];
        map_vc_move (l, fm, v, l->part[v], fm->from[nmoved]);
    }
    return bestprefix > 0;
}

/* FM passes on level l until one gains nothing (at most 8). */
static int map_vc_refine (map_vc_level_t *l, int k, const int64_t *maxw, int fine)
{
    map_vc_fm_t fm = {.k = k, .maxw = maxw};
    int n = l->n, rc = -1, slack = 1;

    fm.pw = calloc ((size_t)k, sizeof (*fm.pw));
    fm.conn = calloc ((size_t)n * (size_t)k, sizeof (*fm.conn));
    fm.lock = malloc ((size_t)n);
    fm.moved = malloc ((size_t)n * sizeof (*fm.moved));
    fm.from = malloc ((size_t)n * sizeof (*fm.from));
    fm.heap = calloc ((size_t)k, sizeof (*fm.heap));
    if (!fm.pw || !fm.conn || !fm.lock || !fm.moved || !fm.from || !fm.heap)
        goto out;
    for (int v = 0; v < n; v++) {
        fm.pw[l->part[v]] += l->vw[v];
        if (l->vw[v] > slack)
            slack = l->vw[v];
        for (int q = l->xadj[v]; q < l->xadj[v + 1]; q++)
            fm.conn[(size_t)v * (size_t)k + (size_t)l->part[l->adj[q]]] += l->load[q];
    }
    fm.slack = slack;
    fm.tol = fine ? 0 : slack;
    for (int pass = 0; pass < 8; pass++) {
        int g = map_vc_pass (l, &fm);
        if (g < 0)
            goto out;
        if (g == 0)
            break;
    }
    rc = 0;
out:
    if (fm.heap)
        for (int p = 0; p < k; p++)
            heap_free (&fm.heap[p]);
    free (fm.heap);
    free (fm.pw);
    free (fm.conn);
    free (fm.lock);
    free (fm.moved);
    free (fm.from);
    return rc;
}

#define MAP_VC_LEVELS 32

/* The cut of part over the graph, or -1 when some part exceeds maxw. */
static int64_t map_vc_cut (int n, const int *xadj, const int *adj, const int *load, int k,
                           const int64_t *maxw, const int *part, int64_t *pw)
{
    int64_t cut = 0;

    memset (pw, 0, (size_t)k * sizeof (*pw));
    for (int i = 0; i < n; i++) {
        pw[part[i]]++;
        for (int q = xadj[i]; q < xadj[i + 1]; q++)
            if (part[adj[q]] != part[i])
                cut += load[q];
    }
    for (int p = 0; p < k; p++)
        if (pw[p] > maxw[p])
            return -1;
    return cut;
}

int map_vcycle (int n, const int *xadj, const int *adj, const int *load, int k, const int *cap,
                unsigned seed, int ncycles, int *part, tm_error_t *errp)
{
    map_vc_level_t lv[MAP_VC_LEVELS];
    int64_t *maxw = NULL, *pw = NULL, bestcut;
    uint64_t rng = 0x2545f4914f6cdd1dULL ^ seed;
    int nlv = 0, rc = -1;

    memset (lv, 0, sizeof (lv));
    maxw = calloc ((size_t)k, sizeof (*maxw));
    pw = calloc ((size_t)k, sizeof (*pw));
    if (!maxw || !pw) {
        free (maxw);
        free (pw);
        return errnomem (errp);
    }
    for (int i = 0; i < n; i++)
        maxw[part[i]]++;
    for (int p = 0; p < k; p++)
        if (maxw[p] < cap[p])
            maxw[p] = cap[p];
    bestcut = map_vc_cut (n, xadj, adj, load, k, maxw, part, pw);
    int maxvw = n / (8 * k) > 1 ? n / (8 * k) : 1;
    for (int cyc = 0; cyc < ncycles; cyc++) {
        map_vc_level_t *f = &lv[0];
        nlv = 1; /* freed from here on, however far it got */
        f->n = n;
        f->xadj = malloc (((size_t)n + 1) * sizeof (*f->xadj));
        f->adj = malloc ((size_t)(xadj[n] ? xadj[n] : 1) * sizeof (*f->adj));
        f->load = malloc ((size_t)(xadj[n] ? xadj[n] : 1) * sizeof (*f->load));
        f->vw = malloc ((size_t)n * sizeof (*f->vw));
        f->part = malloc ((size_t)n * sizeof (*f->part));
        if (!f->xadj || !f->adj || !f->load || !f->vw || !f->part)
            goto nomem;
        memcpy (f->xadj, xadj, ((size_t)n + 1) * sizeof (*xadj));
        memcpy (f->adj, adj, (size_t)xadj[n] * sizeof (*adj));
        for (int q = 0; q < xadj[n]; q++)
            f->load[q] = load[q];
        for (int i = 0; i < n; i++) {
            f->vw[i] = 1;
            f->part[i] = part[i];
        }
        while (nlv < MAP_VC_LEVELS && lv[nlv - 1].n > 4 * k + 16) {
            int c = map_vc_coarsen (&lv[nlv - 1], &lv[nlv], maxvw, &rng);
            if (c < 0)
                goto nomem;
            if (c == 0)
                break;
            nlv++;
        }
        for (int i = nlv - 1; i >= 0; i--) {
            if (i < nlv - 1)
                for (int v = 0; v < lv[i].n; v++)
                    lv[i].part[v] = lv[i + 1].part[lv[i].cmap[v]];
            if (map_vc_refine (&lv[i], k, maxw, i == 0) < 0)
                goto nomem;
        }
        int64_t cut = map_vc_cut (n, xadj, adj, load, k, maxw, lv[0].part, pw);
        if (cut >= 0 && cut < bestcut) {
            bestcut = cut;
            memcpy (part, lv[0].part, (size_t)n * sizeof (*part));
        }
        for (int i = 0; i < nlv; i++)
            map_vc_level_free (&lv[i]);
        nlv = 0;
    }
    rc = 0;
    goto out;
nomem:
    errnomem (errp);
out:
    for (int i = 0; i < nlv; i++)
        map_vc_level_free (&lv[i]);
    free (maxw);
    free (pw);
    return rc;
}
