/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mapper_graph.c: the profile as the mapper's graph (map_graph_t), and the
 * cost of a layout over it, which the parts of the mapper share.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mapper_private.h"

static int map_weight_cmp (const void *a, const void *b)
{
    const int *x = a, *y = b;

    return (*x > *y) - (*x < *y);
}

typedef struct {
    int col;
    map_weight_t w;
} map_arc_t;

static int map_arc_cmp (const void *a, const void *b)
{
    return map_weight_cmp (&((const map_arc_t *)a)->col, &((const map_arc_t *)b)->col);
}

void map_graph_free (map_graph_t *g)
{
    free (g->row);
    free (g->col);
    free (g->w);
    free (g->self_msgs);
    free (g->self_bytes);
    memset (g, 0, sizeof (*g));
}

/* Symmetrise p: every entry (s, d) becomes an arc of row s (out) and one of
 * row d (in); arcs of one row to one rank are merged.
 */
int map_graph_build (const profile_t *p, map_graph_t *g, tm_error_t *errp)
{
    int n = p->ntasks;
    size_t *fill = NULL;
    map_arc_t *arcs = NULL;
    size_t narcs = 0;

    memset (g, 0, sizeof (*g));
    g->n = n;
    g->row = calloc ((size_t)n + 1, sizeof (*g->row));
    g->self_msgs = calloc ((size_t)n, sizeof (*g->self_msgs));
    g->self_bytes = calloc ((size_t)n, sizeof (*g->self_bytes));
    fill = calloc ((size_t)n + 1, sizeof (*fill));
    if (!g->row || !g->self_msgs || !g->self_bytes || !fill)
        goto nomem;
    for (size_t k = 0; k < p->nentries; k++) {
        const profile_entry_t *e = &p->entries[k];
        if (e->src == e->dst)
            continue;
        fill[e->src + 1]++;
        fill[e->dst + 1]++;
        narcs += 2;
    }
    for (int i = 0; i < n; i++)
        fill[i + 1] += fill[i];
    if (!(arcs = malloc ((narcs ? narcs : 1) * sizeof (*arcs))))
        goto nomem;
    for (size_t k = 0; k < p->nentries; k++) {
        const profile_entry_t *e = &p->entries[k];
        map_arc_t *a;
        if (e->src == e->dst) {
            g->self_msgs[e->src] += (double)e->msgs;
            g->self_bytes[e->src] += (double)e->bytes;
            continue;
        }
        a = &arcs[fill[e->src]++];
        a->col = e->dst;
        a->w = (map_weight_t){(double)e->msgs, (double)e->bytes, 0, 0};
        a = &arcs[fill[e->dst]++];
        a->col = e->src;
        a->w = (map_weight_t){0, 0, (double)e->msgs, (double)e->bytes};
    }
    /* fill[i] is now the end of row i: sort each row, merge duplicates. */
    size_t out = 0, start = 0;
    for (int i = 0; i < n; i++) {
        size_t end = fill[i];
        qsort (arcs + start, end - start, sizeof (*arcs), map_arc_cmp);
        g->row[i] = out;
        for (size_t k = start; k < end; k++) {
            if (out > g->row[i] && arcs[out - 1].col == arcs[k].col) {
                arcs[out - 1].w.out_msgs += arcs[k].w.out_msgs;
                arcs[out - 1].w.out_bytes += arcs[k].w.out_bytes;
                arcs[out - 1].w.in_msgs += arcs[k].w.in_msgs;
                arcs[out - 1].w.in_bytes += arcs[k].w.in_bytes;
            } else
                arcs[out++] = arcs[k];
        }
        start = end;
    }
    g->row[n] = out;
    g->col = malloc ((out ? out : 1) * sizeof (*g->col));
    g->w = malloc ((out ? out : 1) * sizeof (*g->w));
    if (!g->col || !g->w)
        goto nomem;
    for (size_t k = 0; k < out; k++) {
        g->col[k] = arcs[k].col;
        g->w[k] = arcs[k].w;
    }
    free (arcs);
    free (fill);
    return 0;
nomem:
    free (arcs);
    free (fill);
    map_graph_free (g);
    return errnomem (errp);
}

double map_graph_cost (const map_graph_t *g, const map_model_t *m, const int *slot)
{
    double cost = 0;

    for (int i = 0; i < g->n; i++) {
        int a = slot[i], h = m->host[a];
        cost += map_cost_hosts (m, h, h, g->self_msgs[i], g->self_bytes[i]);
        for (size_t k = g->row[i]; k < g->row[i + 1]; k++)
            if (g->col[k] > i)
                cost += map_pair_cost (m, a, slot[g->col[k]], &g->w[k]);
    }
    return cost;
}

double map_graph_msgsize (const map_graph_t *g)
{
    double msgs = 0, bytes = 0;

    for (size_t e = 0; e < g->row[g->n]; e++) {
        msgs += g->w[e].out_msgs;
        bytes += g->w[e].out_bytes;
    }
    return msgs > 0 ? bytes / msgs : 1e3;
}
