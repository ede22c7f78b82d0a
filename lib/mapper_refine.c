/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mapper_refine.c: exact capacities, swap refinement of ranks and of the
 * groups they form on each node, and a greedy start -- all on the true
 * cost model (mapper.h) and the sparse graph of the profile, so that the
 * gain of moving rank i costs O(deg(i)) and of swapping i and k
 * O(deg(i) + deg(k)).  (Node refinement and the greedy start are
 * described where they are defined, below.)
 *
 * Repair.  Scotch balances loads within a tolerance, so a few nodes may
 * hold a rank or two too many.  Every rank on an over-full node is offered
 * its cheapest destination among the nodes with room: those where its
 * neighbours are, and the node with room nearest its own.  A heap gives
 * the cheapest move of all; stale entries (the destination filled up, a
 * neighbour moved) are recomputed and pushed back.  Each move removes one
 * rank of excess, so at most the excess moves are made; none into a full
 * node.
 *
 * Refinement.  Passes over the ranks in order.  For rank i on node a, the
 * candidate nodes are those of its neighbours, the MAP_CANDIDATES that
 * pull hardest (traffic at mean figures); for each in turn, the exact gain
 * of moving i there.  If the node has room and the move gains, i moves.
 * Otherwise, if i alone would gain there, up to MAP_PARTNERS ranks of that
 * node (in turns, so that successive visits see others) are priced as swap
 * partners; the best strictly improving swap is made.  A pass costs
 * O(sum over ranks of deg * (MAP_CANDIDATES + MAP_PARTNERS)); passes stop
 * when one changes nothing, gains less than MAP_MIN_GAIN of the cost, or
 * after maxpass.  Only strict improvements are taken, so the cost never
 * rises, and nothing depends on time: the result is deterministic.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/heap.h"
#include "lib/mapper_private.h"

#define MAP_CANDIDATES 3
#define MAP_PARTNERS   32
#define MAP_MIN_GAIN   1e-6

/* The exact change of cost when rank i moves to slot b. */
static double map_move_delta (const map_graph_t *g, const map_model_t *m, const int *slot, int i,
                              int b)
{
    int a = slot[i];
    double d = 0;

    if (a == b)
        return 0;
    if (g->self_msgs[i] != 0 || g->self_bytes[i] != 0) {
        int ha = m->host[a], hb = m->host[b];
        d += map_cost_hosts (m, hb, hb, g->self_msgs[i], g->self_bytes[i]) -
             map_cost_hosts (m, ha, ha, g->self_msgs[i], g->self_bytes[i]);
    }
    for (size_t k = g->row[i]; k < g->row[i + 1]; k++) {
        int s = slot[g->col[k]];
        d += map_pair_cost (m, b, s, &g->w[k]) - map_pair_cost (m, a, s, &g->w[k]);
    }
    return d;
}

/* Repair */

typedef struct {
    const map_graph_t *g;
    const map_model_t *m;
    int *slot;
    int *occ;
    int *near;  /* [nslots] cached nearest slot with room, -1 if none */
    int *stamp; /* [nslots] candidate marks */
    int stampval;
    double msgsize; /* mean message size, for distances */
} map_repair_t;

/* The slot with room nearest slot a (lowest index on ties). */
static int map_repair_near (map_repair_t *r, int a)
{
    const map_model_t *m = r->m;
    int best = -1;
    double bestd = 0;

    if (r->near[a] >= 0 && r->occ[r->near[a]] < m->cap[r->near[a]])
        return r->near[a];
    for (int t = 0; t < m->nslots; t++) {
        double d;
        if (t == a || r->occ[t] >= m->cap[t])
            continue;
        d = map_slot_distance (m, r->msgsize, a, t);
        if (best < 0 || d < bestd) {
            best = t;
            bestd = d;
        }
    }
    r->near[a] = best;
    return best;
}

/* The cheapest move of rank i into a slot with room: key the added cost,
 * id the rank, aux the slot (-1 when none has room).
 */
static heap_item_t map_repair_best (map_repair_t *r, int i)
{
    const map_graph_t *g = r->g;
    const map_model_t *m = r->m;
    heap_item_t best = {.key = 0, .id = i, .aux = -1};
    int a = r->slot[i], t;

    if (++r->stampval == 0) {
        memset (r->stamp, 0, (size_t)m->nslots * sizeof (*r->stamp));
        r->stampval = 1;
    }
    r->stamp[a] = r->stampval;
    for (size_t k = g->row[i]; k <= g->row[i + 1]; k++) {
        if (k < g->row[i + 1])
            t = r->slot[g->col[k]];
        else if ((t = map_repair_near (r, a)) < 0)
            break;
        if (r->stamp[t] == r->stampval || r->occ[t] >= m->cap[t])
            continue;
        r->stamp[t] = r->stampval;
        double d = map_move_delta (g, m, r->slot, i, t);
        if (best.aux < 0 || d < best.key || (d == best.key && t < best.aux)) {
            best.key = d;
            best.aux = t;
        }
    }
    return best;
}

int map_repair (const map_graph_t *g, const map_model_t *m, int *slot, tm_error_t *errp)
{
    map_repair_t r = {.g = g, .m = m, .slot = slot};
    heap_t h = {0};
    long long excess = 0;
    int rc = -1;

    r.occ = calloc ((size_t)m->nslots, sizeof (*r.occ));
    r.near = malloc ((size_t)m->nslots * sizeof (*r.near));
    r.stamp = calloc ((size_t)m->nslots, sizeof (*r.stamp));
    if (!r.occ || !r.near || !r.stamp)
        goto nomem;
    for (int s = 0; s < m->nslots; s++)
        r.near[s] = -1;
    for (int i = 0; i < g->n; i++)
        r.occ[slot[i]]++;
    for (int s = 0; s < m->nslots; s++)
        if (r.occ[s] > m->cap[s])
            excess += r.occ[s] - m->cap[s];
    if (excess == 0) {
        rc = 0;
        goto out;
    }
    r.msgsize = map_graph_msgsize (g);
    for (int i = 0; i < g->n; i++)
        if (r.occ[slot[i]] > m->cap[slot[i]] && heap_push (&h, map_repair_best (&r, i)) < 0)
            goto nomem;
    while (excess > 0 && h.n > 0) {
        heap_item_t x = heap_pop (&h);
        int a = slot[x.id];
        if (r.occ[a] <= m->cap[a])
            continue; /* its node is no longer over-full */
        heap_item_t y = map_repair_best (&r, x.id);
        if (y.aux < 0)
            break;
        if (y.aux != x.aux || y.key != x.key) {
            /* stale: take it only if still the cheapest of all */
            if (h.n > 0 && heap_before (&h.e[0], &y)) {
                if (heap_push (&h, y) < 0)
                    goto nomem;
                continue;
            }
        }
        slot[x.id] = y.aux;
        r.occ[a]--;
        r.occ[y.aux]++;
        excess--;
    }
    if (excess > 0) {
        errprintf (errp, "capacities: %lld ranks left without room", excess);
        goto out;
    }
    rc = 0;
    goto out;
nomem:
    errnomem (errp);
out:
    heap_free (&h);
    free (r.occ);
    free (r.near);
    free (r.stamp);
    return rc;
}

/* Refinement */

typedef struct {
    const map_graph_t *g;
    const map_model_t *m;
    int *slot;
    int *occ;     /* [nslots] ranks on each slot */
    int *start;   /* [nslots] where each slot's members begin in mem */
    int *mem;     /* members of each slot, room for max (occ, cap) */
    int *pos;     /* [n] index of each rank in mem */
    int *cursor;  /* [nslots] where the next partner scan starts */
    double *pull; /* [nslots] traffic of the current rank to each slot */
    int *touched; /* slots with pull, at most max degree */
    size_t *adj;  /* [n] 1 + arc index of rank i's neighbours, else 0 */
    double *here; /* [max degree] what each arc of the current rank costs now */
    double eps;   /* least gain worth taking */
} map_refine_t;

/* map_move_delta for the current rank i, its arcs' present costs in
 * r->here and its own traffic's in here_self: the same operations on the
 * same numbers, so the same result to the last bit, without pricing the
 * present again for every candidate slot.
 */
static double map_refine_delta (const map_refine_t *r, int i, int b, double here_self)
{
    const map_graph_t *g = r->g;
    const map_model_t *m = r->m;
    double d = 0;

    if (b == r->slot[i])
        return 0;
    if (g->self_msgs[i] != 0 || g->self_bytes[i] != 0) {
        int hb = m->host[b];
        d += map_cost_hosts (m, hb, hb, g->self_msgs[i], g->self_bytes[i]) - here_self;
    }
    for (size_t k = g->row[i]; k < g->row[i + 1]; k++)
        d += map_pair_cost (m, b, r->slot[g->col[k]], &g->w[k]) - r->here[k - g->row[i]];
    return d;
}

static void map_refine_move (map_refine_t *r, int i, int b)
{
    int a = r->slot[i];
    int last = r->mem[r->start[a] + r->occ[a] - 1];

    /* out of a: the last member takes i's place */
    r->mem[r->pos[i]] = last;
    r->pos[last] = r->pos[i];
    r->occ[a]--;
    /* into b */
    r->pos[i] = r->start[b] + r->occ[b];
    r->mem[r->pos[i]] = i;
    r->occ[b]++;
    r->slot[i] = b;
}

static void map_refine_swap (map_refine_t *r, int i, int k)
{
    int pi = r->pos[i], pk = r->pos[k], a = r->slot[i];

    r->mem[pi] = k;
    r->mem[pk] = i;
    r->pos[i] = pk;
    r->pos[k] = pi;
    r->slot[i] = r->slot[k];
    r->slot[k] = a;
}

/* The best swap partner for rank i (on a) on slot b, given dm, the gain
 * of moving i alone to b.  Returns the partner, -1 if no swap gains.
 */
static int map_refine_partner (map_refine_t *r, int i, int b, double dm, double *gain)
{
    const map_graph_t *g = r->g;
    const map_model_t *m = r->m;
    int a = r->slot[i], best = -1, n = r->occ[b];
    int scan = n < MAP_PARTNERS ? n : MAP_PARTNERS;
    double bestd = -r->eps;

    for (size_t k = g->row[i]; k < g->row[i + 1]; k++)
        r->adj[g->col[k]] = k + 1;
    for (int t = 0; t < scan; t++) {
        int k = r->mem[r->start[b] + (r->cursor[b] + t) % n];
        double d = dm + map_move_delta (g, m, r->slot, k, a);
        if (r->adj[k]) {
            const map_weight_t *w = &g->w[r->adj[k] - 1];
            d += map_pair_cost (m, b, a, w) + map_pair_cost (m, a, b, w) -
                 map_pair_cost (m, a, a, w) - map_pair_cost (m, b, b, w);
        }
        if (d < bestd) {
            bestd = d;
            best = k;
        }
    }
    r->cursor[b] = (r->cursor[b] + scan) % (n > 0 ? n : 1);
    for (size_t k = g->row[i]; k < g->row[i + 1]; k++)
        r->adj[g->col[k]] = 0;
    *gain = -bestd;
    return best;
}

/* Try to improve rank i: returns the gain, 0 if nothing changed. */
static double map_refine_rank (map_refine_t *r, int i)
{
    const map_graph_t *g = r->g;
    const map_model_t *m = r->m;
    int a = r->slot[i], ntouched = 0, cand[MAP_CANDIDATES], ncand = 0;
    double here_self = 0;

    for (size_t k = g->row[i]; k < g->row[i + 1]; k++) {
        int s = r->slot[g->col[k]];
        if (s == a)
            continue;
        if (r->pull[s] == 0)
            r->touched[ntouched++] = s;
        /* a floor keeps nodes whose traffic the means price at 0 */
        r->pull[s] += map_typical_weight (m, &g->w[k]) + 1e-300;
    }
    /* the MAP_CANDIDATES slots that pull hardest, lowest index on ties */
    for (int c = 0; c < MAP_CANDIDATES && c < ntouched; c++) {
        int best = -1;
        for (int t = 0; t < ntouched; t++) {
            int s = r->touched[t];
            if (r->pull[s] < 0)
                continue; /* taken */
            if (best < 0 || r->pull[s] > r->pull[best] || (r->pull[s] == r->pull[best] && s < best))
                best = s;
        }
        cand[ncand++] = best;
        r->pull[best] = -1;
    }
    for (int t = 0; t < ntouched; t++)
        r->pull[r->touched[t]] = 0;

    if (ncand > 0) {
        if (g->self_msgs[i] != 0 || g->self_bytes[i] != 0)
            here_self =
                map_cost_hosts (m, m->host[a], m->host[a], g->self_msgs[i], g->self_bytes[i]);
        for (size_t k = g->row[i]; k < g->row[i + 1]; k++)
            r->here[k - g->row[i]] = map_pair_cost (m, a, r->slot[g->col[k]], &g->w[k]);
    }
    for (int c = 0; c < ncand; c++) {
        int b = cand[c], k;
        double dm = map_refine_delta (r, i, b, here_self), gain;
        if (r->occ[b] < m->cap[b]) {
            if (dm < -r->eps) {
                map_refine_move (r, i, b);
                return -dm;
            }
            continue;
        }
        if (!(dm < 0))
            continue;
        if ((k = map_refine_partner (r, i, b, dm, &gain)) >= 0) {
            map_refine_swap (r, i, k);
            return gain;
        }
    }
    return 0;
}

int map_refine (const map_graph_t *g, const map_model_t *m, int *slot, int maxpass,
                tm_error_t *errp)
{
    map_refine_t r = {.g = g, .m = m, .slot = slot};
    size_t n = (size_t)g->n, maxdeg = 0, room = 0;
    double cost;
    int rc = -1;

    if (g->n < 2 || m->nslots < 2)
        return 0;
    cost = map_graph_cost (g, m, slot);
    if (!(cost > 0))
        return 0;
    r.eps = cost * 1e-12;
    for (int i = 0; i < g->n; i++)
        if (g->row[i + 1] - g->row[i] > maxdeg)
            maxdeg = g->row[i + 1] - g->row[i];
    r.occ = calloc ((size_t)m->nslots, sizeof (*r.occ));
    r.start = malloc ((size_t)m->nslots * sizeof (*r.start));
    r.cursor = calloc ((size_t)m->nslots, sizeof (*r.cursor));
    r.pull = calloc ((size_t)m->nslots, sizeof (*r.pull));
    r.touched = malloc ((maxdeg ? maxdeg : 1) * sizeof (*r.touched));
    r.here = malloc ((maxdeg ? maxdeg : 1) * sizeof (*r.here));
    r.pos = malloc (n * sizeof (*r.pos));
    r.adj = calloc (n, sizeof (*r.adj));
    if (!r.occ || !r.start || !r.cursor || !r.pull || !r.touched || !r.here || !r.pos || !r.adj)
        goto nomem;
    for (int i = 0; i < g->n; i++)
        r.occ[slot[i]]++;
    for (int s = 0; s < m->nslots; s++) {
        r.start[s] = (int)room;
        room += (size_t)(r.occ[s] > m->cap[s] ? r.occ[s] : m->cap[s]);
    }
    if (!(r.mem = malloc (room * sizeof (*r.mem))))
        goto nomem;
    memset (r.occ, 0, (size_t)m->nslots * sizeof (*r.occ));
    for (int i = 0; i < g->n; i++) {
        int s = slot[i];
        r.pos[i] = r.start[s] + r.occ[s]++;
        r.mem[r.pos[i]] = i;
    }
    for (int pass = 0; pass < maxpass; pass++) {
        double gain = 0;
        for (int i = 0; i < g->n; i++)
            gain += map_refine_rank (&r, i);
        if (!(gain > 0) || gain < MAP_MIN_GAIN * cost)
            break;
        cost -= gain;
    }
    rc = 0;
    goto out;
nomem:
    errnomem (errp);
out:
    free (r.occ);
    free (r.start);
    free (r.mem);
    free (r.pos);
    free (r.cursor);
    free (r.pull);
    free (r.touched);
    free (r.here);
    free (r.adj);
    return rc;
}

/* Node refinement: which node each group of ranks goes to.
 *
 * Once every node holds exactly its count, the ranks on one node form a
 * group (CloudMap §VI-C: the intra-node mapping); where the groups go is
 * the inter-node mapping, a quadratic assignment of groups to nodes.  The
 * groups' traffic collapses into a graph of one vertex per group, and
 * swapping two groups of equal size (the nodes' counts) is priced on it
 * as swapping two ranks is on the profile's.  The candidates for group a
 * are the nodes nearest those of the MAP_NODE_PULL groups it talks to
 * most (MAP_NEAR of them each, by the distance of a mean-sized message),
 * and those nodes themselves.
 */

#define MAP_NODE_PULL 2
#define MAP_NEAR      8

/* The graph of the groups of slot (one vertex per slot). */
static int map_graph_collapse (const map_graph_t *g, const map_model_t *m, const int *slot,
                               map_graph_t *q, tm_error_t *errp)
{
    int ns = m->nslots;
    size_t *fill = NULL, narcs = 0, out = 0, start = 0;
    int *col = NULL;
    map_weight_t *w = NULL;

    memset (q, 0, sizeof (*q));
    q->n = ns;
    q->row = calloc ((size_t)ns + 1, sizeof (*q->row));
    q->self_msgs = calloc ((size_t)ns, sizeof (*q->self_msgs));
    q->self_bytes = calloc ((size_t)ns, sizeof (*q->self_bytes));
    fill = calloc ((size_t)ns + 1, sizeof (*fill));
    if (!q->row || !q->self_msgs || !q->self_bytes || !fill)
        goto nomem;
    for (int i = 0; i < g->n; i++) {
        int a = slot[i];
        q->self_msgs[a] += g->self_msgs[i];
        q->self_bytes[a] += g->self_bytes[i];
        for (size_t k = g->row[i]; k < g->row[i + 1]; k++) {
            if (slot[g->col[k]] == a) {
                /* each directed pair is one rank's out once */
                q->self_msgs[a] += g->w[k].out_msgs;
                q->self_bytes[a] += g->w[k].out_bytes;
            } else {
                fill[a + 1]++;
                narcs++;
            }
        }
    }
    for (int a = 0; a < ns; a++)
        fill[a + 1] += fill[a];
    col = malloc ((narcs ? narcs : 1) * sizeof (*col));
    w = malloc ((narcs ? narcs : 1) * sizeof (*w));
    if (!col || !w)
        goto nomem;
    for (int i = 0; i < g->n; i++) {
        int a = slot[i];
        for (size_t k = g->row[i]; k < g->row[i + 1]; k++) {
            int c = slot[g->col[k]];
            if (c == a)
                continue;
            col[fill[a]] = c;
            w[fill[a]++] = g->w[k];
        }
    }
    /* fill[a] is the end of row a: merge the arcs to each group */
    int *last = malloc ((size_t)ns * sizeof (*last));
    if (!last)
        goto nomem;
    for (int c = 0; c < ns; c++)
        last[c] = -1;
    q->col = malloc ((narcs ? narcs : 1) * sizeof (*q->col));
    q->w = malloc ((narcs ? narcs : 1) * sizeof (*q->w));
    if (!q->col || !q->w) {
        free (last);
        goto nomem;
    }
    for (int a = 0; a < ns; a++) {
        size_t end = fill[a];
        q->row[a] = out;
        for (size_t k = start; k < end; k++) {
            int c = col[k];
            if (last[c] >= 0 && (size_t)last[c] >= q->row[a]) {
                map_weight_t *x = &q->w[last[c]];
                x->out_msgs += w[k].out_msgs;
                x->out_bytes += w[k].out_bytes;
                x->in_msgs += w[k].in_msgs;
                x->in_bytes += w[k].in_bytes;
            } else {
                last[c] = (int)out;
                q->col[out] = c;
                q->w[out++] = w[k];
            }
        }
        start = end;
    }
    q->row[ns] = out;
    free (last);
    free (fill);
    free (col);
    free (w);
    return 0;
nomem:
    free (fill);
    free (col);
    free (w);
    map_graph_free (q);
    return errnomem (errp);
}

/* near[y * MAP_NEAR ..]: the slots nearest slot y, nearest first, -1
 * where there are fewer.
 */
static int *map_near_slots (const map_graph_t *g, const map_model_t *m)
{
    int ns = m->nslots;
    int *near = malloc ((size_t)ns * MAP_NEAR * sizeof (*near));
    double d[MAP_NEAR], msgsize;

    if (!near)
        return NULL;
    msgsize = map_graph_msgsize (g);
    for (int y = 0; y < ns; y++) {
        int *v = &near[(size_t)y * MAP_NEAR], nv = 0;
        for (int z = 0; z < ns; z++) {
            double dz;
            int p;
            if (z == y)
                continue;
            dz = map_slot_distance (m, msgsize, y, z);
            if (nv == MAP_NEAR && !(dz < d[nv - 1]))
                continue;
            p = nv < MAP_NEAR ? nv++ : nv - 1;
            while (p > 0 && dz < d[p - 1]) {
                d[p] = d[p - 1];
                v[p] = v[p - 1];
                p--;
            }
            d[p] = dz;
            v[p] = z;
        }
        for (int k = nv; k < MAP_NEAR; k++)
            v[k] = -1;
    }
    return near;
}

/* What the arcs of vertex i and its own traffic cost with i on slot b
 * and every other vertex where pos has it.
 */
static double map_arcs_cost (const map_graph_t *q, const map_model_t *m, const int *pos, int i,
                             int b)
{
    double c = 0;

    if (q->self_msgs[i] != 0 || q->self_bytes[i] != 0)
        c += map_cost_hosts (m, m->host[b], m->host[b], q->self_msgs[i], q->self_bytes[i]);
    for (size_t k = q->row[i]; k < q->row[i + 1]; k++)
        c += map_pair_cost (m, b, pos[q->col[k]], &q->w[k]);
    return c;
}

/* The node refinement's state: where each group is, which group each
 * slot holds, and what each group's arcs cost where it is (cur), so that
 * pricing a swap computes only the new costs of the two groups' arcs.
 * cur is made afresh at every pass and kept by each swap.
 */
typedef struct {
    const map_graph_t *q;
    const map_model_t *m;
    int *pos;    /* [ns] slot of each group */
    int *at;     /* [ns] group on each slot */
    double *cur; /* [ns] map_arcs_cost of each group where it is */
    size_t *adj; /* [ns] 1 + arc index of the current group's neighbours, else 0 */
} map_nodes_t;

/* The change of cost when group a (its neighbours marked in adj) and
 * group b swap slots.
 */
static double map_group_swap_delta (const map_nodes_t *s, int a, int b)
{
    const map_model_t *m = s->m;
    int x = s->pos[a], y = s->pos[b];
    double d = map_arcs_cost (s->q, m, s->pos, a, y) - s->cur[a] +
               map_arcs_cost (s->q, m, s->pos, b, x) - s->cur[b];

    if (s->adj[b]) {
        /* above, a on y priced the arc with b still there, and b on x
         * with a still there */
        const map_weight_t *w = &s->q->w[s->adj[b] - 1];
        d += map_pair_cost (m, y, x, w) + map_pair_cost (m, x, y, w) - map_pair_cost (m, x, x, w) -
             map_pair_cost (m, y, y, w);
    }
    return d;
}

/* Groups a and b swap slots: the neighbours' cur follow their arc to the
 * group that moved; a's and b's are priced again.
 */
static void map_group_swap (map_nodes_t *s, int a, int b)
{
    const map_graph_t *q = s->q;
    const map_model_t *m = s->m;
    int x = s->pos[a], y = s->pos[b];

    s->pos[a] = y;
    s->pos[b] = x;
    s->at[y] = a;
    s->at[x] = b;
    for (int v = 0; v < 2; v++) {
        int g = v ? b : a, from = v ? y : x, to = v ? x : y;
        for (size_t k = q->row[g]; k < q->row[g + 1]; k++) {
            int c = q->col[k];
            if (c != a && c != b)
                s->cur[c] += map_pair_cost (m, to, s->pos[c], &q->w[k]) -
                             map_pair_cost (m, from, s->pos[c], &q->w[k]);
        }
    }
    s->cur[a] = map_arcs_cost (q, m, s->pos, a, y);
    s->cur[b] = map_arcs_cost (q, m, s->pos, b, x);
}

/* The first of the candidates b[0..nb) whose swap with group a gains
 * most, if it gains more than eps: *best its change of cost, the group
 * returned (-1 if none).
 */
static int map_group_best (const map_nodes_t *s, int a, const int *b, int nb, double eps,
                           double *best)
{
    int bestb = -1;

    *best = -eps;
    for (int c = 0; c < nb; c++) {
        double d = map_group_swap_delta (s, a, b[c]);
        if (d < *best) {
            *best = d;
            bestb = b[c];
        }
    }
    return bestb;
}

/* A second thread prices the later half of each group's candidates while
 * the caller prices the first: the state is only read meanwhile, and the
 * halves are joined as one pass over all would have chosen (the later
 * half wins only when strictly better), so the plan is the same with or
 * without it.  Groups come one after another, tens of microseconds each,
 * so the two threads meet by spinning on two counters (posted, finished),
 * yielding the CPU after MAP_SPINS turns.  Used only where the graph of
 * the groups has MAP_HELPER_MIN_ARCS arcs or more, two CPUs are ours and
 * no other thread of the mapper runs (the caller says).
 */
#define MAP_HELPER_MIN_ARCS (1 << 16)
#define MAP_SPINS           4096

typedef struct {
    const map_nodes_t *s;
    double eps;
    pthread_t thread;
    atomic_uint posted;   /* the last work posted */
    atomic_uint finished; /* the last work done */
    atomic_bool quit;
    int a, nb; /* the work: candidates b[0..nb) of group a */
    const int *b;
    double best; /* the result */
    int bestb;
} map_helper_t;

/* Spin until *v equals val (until_equal) or differs from it (not), or
 * quit is set.
 */
static void map_helper_wait (atomic_uint *v, unsigned val, bool until_equal, atomic_bool *quit)
{
    for (int spins = 0; (atomic_load_explicit (v, memory_order_acquire) == val) != until_equal;) {
        if (quit && atomic_load_explicit (quit, memory_order_acquire))
            return;
        if (++spins >= MAP_SPINS) {
            sched_yield ();
            spins = 0;
        }
    }
}

static void *map_helper_run (void *arg)
{
    map_helper_t *h = arg;

    for (unsigned seen = 0;;) {
        /* until there is work past seen, or the end */
        map_helper_wait (&h->posted, seen, false, &h->quit);
        if (atomic_load_explicit (&h->quit, memory_order_acquire))
            return NULL;
        seen = atomic_load_explicit (&h->posted, memory_order_acquire);
        h->bestb = map_group_best (h->s, h->a, h->b, h->nb, h->eps, &h->best);
        atomic_store_explicit (&h->finished, seen, memory_order_release);
    }
}

static bool map_helper_start (map_helper_t *h, const map_nodes_t *s, double eps)
{
    cpu_set_t cpus;

    if (s->q->row[s->q->n] < MAP_HELPER_MIN_ARCS ||
        sched_getaffinity (0, sizeof (cpus), &cpus) != 0 || CPU_COUNT (&cpus) < 2)
        return false;
    memset (h, 0, sizeof (*h));
    h->s = s;
    h->eps = eps;
    atomic_init (&h->posted, 0);
    atomic_init (&h->finished, 0);
    atomic_init (&h->quit, false);
    return pthread_create (&h->thread, NULL, map_helper_run, h) == 0;
}

static void map_helper_stop (map_helper_t *h)
{
    atomic_store_explicit (&h->quit, true, memory_order_release);
    pthread_join (h->thread, NULL);
}

int map_refine_nodes (const map_graph_t *g, const map_model_t *m, int *slot, int maxpass,
                      bool helper, tm_error_t *errp)
{
    int ns = m->nslots;
    map_graph_t q = {0};
    map_nodes_t s = {.q = &q, .m = m};
    map_helper_t h;
    int *near = NULL, cand[MAP_NODE_PULL * (MAP_NEAR + 1)];
    double cost, eps;
    unsigned posted = 0;
    int rc = -1;

    if (ns < 2 || g->n < 2)
        return 0;
    if (map_graph_collapse (g, m, slot, &q, errp) < 0)
        return -1;
    s.pos = malloc ((size_t)ns * sizeof (*s.pos));
    s.at = malloc ((size_t)ns * sizeof (*s.at));
    s.cur = malloc ((size_t)ns * sizeof (*s.cur));
    s.adj = calloc ((size_t)ns, sizeof (*s.adj));
    if (!s.pos || !s.at || !s.cur || !s.adj || !(near = map_near_slots (g, m))) {
        errnomem (errp);
        goto out;
    }
    for (int a = 0; a < ns; a++)
        s.pos[a] = s.at[a] = a;
    cost = map_graph_cost (&q, m, s.pos);
    eps = cost * 1e-12;
    helper = helper && cost > 0 && map_helper_start (&h, &s, eps);
    for (int pass = 0; pass < maxpass && cost > 0; pass++) {
        double gain = 0;
        for (int a = 0; a < ns; a++)
            s.cur[a] = map_arcs_cost (&q, m, s.pos, a, s.pos[a]);
        for (int a = 0; a < ns; a++) {
            int x = s.pos[a], pull[MAP_NODE_PULL], npull = 0, ncand = 0, bestb;
            double pw[MAP_NODE_PULL], best;

            /* the groups a talks to most, lowest index on ties */
            for (size_t k = q.row[a]; k < q.row[a + 1]; k++) {
                double w = map_typical_weight (m, &q.w[k]);
                int p;
                s.adj[q.col[k]] = k + 1;
                if (npull == MAP_NODE_PULL && !(w > pw[npull - 1]))
                    continue;
                p = npull < MAP_NODE_PULL ? npull++ : npull - 1;
                while (p > 0 && w > pw[p - 1]) {
                    pw[p] = pw[p - 1];
                    pull[p] = pull[p - 1];
                    p--;
                }
                pw[p] = w;
                pull[p] = q.col[k];
            }
            for (int c = 0; c < npull; c++) {
                int y = s.pos[pull[c]];
                for (int t = -1; t < MAP_NEAR; t++) {
                    int z = t < 0 ? y : near[(size_t)y * MAP_NEAR + (size_t)t];
                    if (z < 0)
                        break;
                    if (z != x && m->cap[z] == m->cap[x])
                        cand[ncand++] = s.at[z];
                }
            }
            if (helper && ncand >= 2) {
                int half = ncand / 2;
                h.a = a;
                h.b = cand + half;
                h.nb = ncand - half;
                atomic_store_explicit (&h.posted, ++posted, memory_order_release);
                bestb = map_group_best (&s, a, cand, half, eps, &best);
                map_helper_wait (&h.finished, posted, true, NULL);
                if (h.bestb >= 0 && h.best < best) {
                    best = h.best;
                    bestb = h.bestb;
                }
            } else
                bestb = map_group_best (&s, a, cand, ncand, eps, &best);
            for (size_t k = q.row[a]; k < q.row[a + 1]; k++)
                s.adj[q.col[k]] = 0;
            if (bestb >= 0) {
                map_group_swap (&s, a, bestb);
                gain -= best;
            }
        }
        if (!(gain > 0) || gain < MAP_MIN_GAIN * cost)
            break;
        cost -= gain;
    }
    if (helper)
        map_helper_stop (&h);
    for (int i = 0; i < g->n; i++)
        slot[i] = s.pos[slot[i]];
    rc = helper ? 1 : 0;
out:
    map_graph_free (&q);
    free (s.pos);
    free (s.at);
    free (s.cur);
    free (s.adj);
    free (near);
    return rc;
}

/* Greedy start (after MPIPP's heuristic): ranks are placed one at a time,
 * next the unplaced rank with the most traffic (at mean figures) to the
 * placed ones, at first the one with the most traffic of all; it goes to
 * the slot with room where it adds least cost, among the slots of its
 * placed neighbours and the slot with room nearest its heaviest placed
 * neighbour's (for a rank with none placed: the slot with most room).
 * Chaining groups onto the nearest free node is what Scotch's recursive
 * bisection cannot do on networks without structure (clouds).
 */

int map_greedy (const map_graph_t *g, const map_model_t *m, int *slot, tm_error_t *errp)
{
    int n = g->n, ns = m->nslots;
    heap_t heap = {0};
    int *room = malloc ((size_t)ns * sizeof (*room));
    int *stamp = calloc ((size_t)ns, sizeof (*stamp));
    double *key = calloc ((size_t)n, sizeof (*key)), *total = calloc ((size_t)n, sizeof (*total));
    double msgsize;
    int rc = -1;

    /* Every rank once, then once more per edge to a placed rank: pushes
     * cannot fail after this.
     */
    if (!room || !stamp || !key || !total || heap_reserve (&heap, (size_t)n + g->row[n]) < 0) {
        errnomem (errp);
        goto out;
    }
    msgsize = map_graph_msgsize (g);
    for (int s = 0; s < ns; s++)
        room[s] = m->cap[s];
    for (int i = 0; i < n; i++) {
        slot[i] = -1;
        for (size_t k = g->row[i]; k < g->row[i + 1]; k++)
            total[i] += map_typical_weight (m, &g->w[k]);
        /* the key: traffic to placed ranks, then (below any of that)
         * total traffic */
        heap_push (&heap, (heap_item_t){-total[i] * 1e-30, i, 0});
    }
    for (int placed = 1; heap.n > 0;) {
        heap_item_t x = heap_pop (&heap);
        int i = x.id, best = -1, heavy = -1;
        double bestc = 0, heavyw = -1;

        if (slot[i] >= 0 || -x.key != key[i] + total[i] * 1e-30)
            continue; /* placed, or a stale key */
        for (size_t k = g->row[i]; k <= g->row[i + 1]; k++) {
            int t = -1;
            double c;
            if (k < g->row[i + 1]) {
                int j = g->col[k];
                double w = map_typical_weight (m, &g->w[k]);
                if (slot[j] < 0)
                    continue;
                t = slot[j];
                if (w > heavyw) {
                    heavyw = w;
                    heavy = t;
                }
            } else {
                double dt = 0;
                for (int s = 0; s < ns; s++) {
                    double ds;
                    if (room[s] == 0)
                        continue;
                    if (heavy < 0)
                        ds = -(double)room[s];
                    else
                        ds = map_slot_distance (m, msgsize, heavy, s);
                    if (t < 0 || ds < dt) {
                        t = s;
                        dt = ds;
                    }
                }
            }
            if (t < 0 || room[t] == 0 || stamp[t] == placed)
                continue;
            stamp[t] = placed;
            c = 0;
            if (g->self_msgs[i] != 0 || g->self_bytes[i] != 0)
                c += map_cost_hosts (m, m->host[t], m->host[t], g->self_msgs[i], g->self_bytes[i]);
            for (size_t e = g->row[i]; e < g->row[i + 1]; e++)
                if (slot[g->col[e]] >= 0)
                    c += map_pair_cost (m, t, slot[g->col[e]], &g->w[e]);
            if (best < 0 || c < bestc) {
                best = t;
                bestc = c;
            }
        }
        slot[i] = best;
        room[best]--;
        placed++;
        for (size_t k = g->row[i]; k < g->row[i + 1]; k++) {
            int j = g->col[k];
            if (slot[j] >= 0)
                continue;
            key[j] += map_typical_weight (m, &g->w[k]);
            heap_push (&heap, (heap_item_t){-(key[j] + total[j] * 1e-30), j, 0});
        }
    }
    rc = 0;
out:
    free (room);
    free (stamp);
    free (key);
    free (total);
    heap_free (&heap);
    return rc;
}
