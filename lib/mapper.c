/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mapper.c: the mapper's interface -- metrics, validation, srun's layouts,
 * pricing, the plan and its guard, --explain.
 *
 * The plan (map_plan):
 *   1. Scotch's dual recursive bipartitioning of the profile's graph onto
 *      a target built from the measured distances (mapper_scotch.c).
 *   2. Exact capacities: ranks move out of over-full slots, each time the
 *      move that costs least (mapper_refine.c).
 *   3. Refinement on the true cost model: where the group of ranks of
 *      each node goes (swaps of whole groups), then swaps and moves of
 *      single ranks (mapper_refine.c).  A greedy layout, and block and
 *      cyclic when they price below, are refined the same way; the
 *      cheapest result is the "topomap" candidate (map_compute).
 *   4. The guard: that plan, srun's block and cyclic layouts and a
 *      previous plan are priced under the model (map_price), and the
 *      cheapest that gives every slot exactly its count is chosen, block
 *      on a tie, so the choice never prices above block.  The model adds
 *      up pairs as if each had the network to itself, but the pairs of a
 *      node share its link, those leaving a switch share its uplink, and
 *      a bulk-synchronous step waits for the busiest: so a candidate must
 *      also load the busiest link (link_s: of a node, or the uplink of a
 *      group of the netmap's topology) less than block does.  Otherwise
 *      moving traffic between slow nodes prices below block and runs
 *      slower (a ring on cloud-8: every layout waits on the slowest
 *      node's link).  A pair an uplink limits holds its hosts' links only
 *      for its latency and its bytes at their own rate: the uplink is its
 *      bottleneck.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <scotch.h>

#include "lib/mapper.h"
#include "lib/mapper_private.h"
#include "lib/topology_links.h"

/* Metrics and parameters */

static const char *const map_metric_names[] = {
    [MAP_COMBINED] = "combined",
    [MAP_LATENCY] = "latency",
    [MAP_BANDWIDTH] = "bandwidth",
};

int map_metric_parse (const char *name, map_metric_t *m)
{
    if (!name)
        return -1;
    for (int i = 0; i < 3; i++)
        if (strcmp (name, map_metric_names[i]) == 0) {
            if (m)
                *m = (map_metric_t)i;
            return 0;
        }
    return -1;
}

const char *map_metric_name (map_metric_t m)
{
    if ((int)m < 0 || (int)m > MAP_BANDWIDTH)
        return "unknown";
    return map_metric_names[m];
}

void map_params_default (map_params_t *p)
{
    memset (p, 0, sizeof (*p));
    p->metric = MAP_COMBINED;
    p->previous = NULL;
    p->refine = 1;
    p->exact = 1;
    p->seed = 1;
}

/* Validation */

static const char *map_host_name (const netmap_t *nm, int h)
{
    return nm->hosts && nm->hosts[h] ? nm->hosts[h] : "(unnamed)";
}

/* The figures of one pair of slot hosts (a may equal b): off the diagonal
 * finite and positive; on it NaN (not measured) or finite, latency >= 0
 * and bandwidth > 0.
 */
static int map_check_pair (const netmap_t *nm, int a, int b, tm_error_t *errp)
{
    double lat = NETMAP_AT (nm, lat_us, a, b);
    double bw = NETMAP_AT (nm, bw_MBps, a, b);

    if (a == b) {
        if (!isnan (lat) && (!isfinite (lat) || lat < 0))
            return errprintf (errp, "netmap: intra-node latency of host %s is %g us",
                              map_host_name (nm, a), lat);
        if (!isnan (bw) && (!isfinite (bw) || bw <= 0))
            return errprintf (errp, "netmap: intra-node bandwidth of host %s is %g MB/s",
                              map_host_name (nm, a), bw);
        return 0;
    }
    if (!isfinite (lat) || lat <= 0)
        return errprintf (errp,
                          "netmap: latency from host %s to %s is %g us, need a finite figure > 0",
                          map_host_name (nm, a), map_host_name (nm, b), lat);
    if (!isfinite (bw) || bw <= 0)
        return errprintf (
            errp, "netmap: bandwidth from host %s to %s is %g MB/s, need a finite figure > 0",
            map_host_name (nm, a), map_host_name (nm, b), bw);
    return 0;
}

int map_validate (const profile_t *p, const netmap_t *nm, int nslots, const map_slot_t *slots,
                  tm_error_t *errp)
{
    int *seen = NULL;
    long long total = 0;
    int rc = -1;

    if (!p)
        return errprintf (errp, "no profile");
    if (!nm || nm->n < 1 || !nm->lat_us || !nm->bw_MBps)
        return errprintf (errp, "no netmap");
    if (nslots < 1 || !slots)
        return errprintf (errp, "no slots: the step has no nodes");
    if (p->ntasks < 1 || !p->row)
        return errprintf (errp, "profile: %d tasks", p->ntasks);
    if (p->nentries == 0 || !p->entries)
        return errprintf (errp, "profile: empty, no point-to-point traffic between its %d ranks",
                          p->ntasks);
    if (!(seen = malloc ((size_t)nm->n * sizeof (*seen))))
        return errnomem (errp);
    for (int h = 0; h < nm->n; h++)
        seen[h] = -1;
    for (int s = 0; s < nslots; s++) {
        int h = slots[s].host;
        if (h < 0 || h >= nm->n) {
            errprintf (errp, "slot %d: host index %d out of range, the netmap has %d hosts", s, h,
                       nm->n);
            goto out;
        }
        if (seen[h] != -1) {
            errprintf (errp, "slots %d and %d: both name host %s", seen[h], s,
                       map_host_name (nm, h));
            goto out;
        }
        seen[h] = s;
        if (slots[s].count < 1) {
            errprintf (errp, "slot %d (host %s): %d ranks, need at least 1", s,
                       map_host_name (nm, h), slots[s].count);
            goto out;
        }
        total += slots[s].count;
    }
    if (total != p->ntasks) {
        errprintf (errp,
                   "the step's %d nodes take %lld ranks but the profile has %d "
                   "(recorded for another task count)",
                   nslots, total, p->ntasks);
        goto out;
    }
    for (int s = 0; s < nslots; s++)
        for (int t = 0; t < nslots; t++)
            if (map_check_pair (nm, slots[s].host, slots[t].host, errp) < 0)
                goto out;
    rc = 0;
out:
    free (seen);
    return rc;
}

/* srun's layouts */

/* srun's block (cyclic = 0) or cyclic layout in slot indices. */
static void map_slots_of (int nslots, const map_slot_t *slots, int cyclic, int *slot)
{
    int maxcount = 0, r = 0;

    if (!cyclic) {
        for (int s = 0; s < nslots; s++)
            for (int k = 0; k < slots[s].count; k++)
                slot[r++] = s;
        return;
    }
    for (int s = 0; s < nslots; s++)
        if (slots[s].count > maxcount)
            maxcount = slots[s].count;
    for (int round = 0; round < maxcount; round++)
        for (int s = 0; s < nslots; s++)
            if (round < slots[s].count)
                slot[r++] = s;
}

static void map_layout (int nslots, const map_slot_t *slots, int cyclic, int *node)
{
    int ntasks = 0;

    map_slots_of (nslots, slots, cyclic, node);
    for (int s = 0; s < nslots; s++)
        ntasks += slots[s].count;
    for (int r = 0; r < ntasks; r++)
        node[r] = slots[node[r]].host;
}

void map_layout_block (int nslots, const map_slot_t *slots, int *node)
{
    map_layout (nslots, slots, 0, node);
}

void map_layout_cyclic (int nslots, const map_slot_t *slots, int *node)
{
    map_layout (nslots, slots, 1, node);
}

/* Pricing */

static void map_model_metric (map_model_t *m, map_metric_t metric)
{
    m->use_lat = metric != MAP_BANDWIDTH;
    m->use_bw = metric != MAP_LATENCY;
}

/* A group of the netmap's topology (the hosts of an edge switch of a tree,
 * or of a top-level cluster) shares one uplink to the others when every
 * pair across its edge measures under this fraction of both ends' own
 * links (a host's fastest pair): the uplink, not the hosts, limits them.
 * Otherwise, as on one switch, a group has no link of its own.
 */
#define MAP_UPLINK_RATIO 0.5

/* The groups of nm's topology, when it has several (else NULL). */
static const topo_t *map_groups (const netmap_t *nm)
{
    const topo_t *t = nm->topo;

    return t && t->nhosts == nm->n && t->ngroups > 1 ? t : NULL;
}

/* What pricing needs of the netmap's links, found from the netmap alone
 * (map_links_find), once for all of map_plan's candidates: for each group
 * of its topology whether the group sends and receives through an uplink
 * of its own (MAP_UPLINK_RATIO), and each host's own link rate (its
 * fastest pair either way, MB/s; 0 when none was measured); both NULL when
 * the topology has no groups.  Where the probe measured uplinks under
 * load (topo_t.uplink_MBps), the depth of every vertex, to find the
 * uplinks a pair crosses, and per group whether its own uplink is one of
 * them (then priced as its bytes against that capacity, not as the sum
 * of its pairs' times); NULL otherwise.
 */
typedef struct {
    double *rate;
    char *shared;
    int *depth;
    char *measured;
} map_links_t;

static void map_links_free (map_links_t *l)
{
    free (l->rate);
    free (l->shared);
    free (l->depth);
    free (l->measured);
    l->rate = NULL;
    l->shared = NULL;
    l->depth = NULL;
    l->measured = NULL;
}

/* Whether tree t has an uplink measured under load. */
static bool map_has_uplinks (const topo_t *t)
{
    for (int v = 0; t->model == TOPO_TREE && v < t->nvertices; v++)
        if (!isnan (t->uplink_MBps[v]))
            return true;
    return false;
}

/* -1 (ENOMEM) when out of memory. */
static int map_links_find (const netmap_t *nm, map_links_t *l)
{
    const topo_t *t = map_groups (nm);
    int n = nm->n;

    l->rate = NULL;
    l->shared = NULL;
    l->depth = NULL;
    l->measured = NULL;
    if (!t)
        return 0;
    if (!(l->rate = malloc ((size_t)n * sizeof (*l->rate))) ||
        !(l->shared = malloc ((size_t)t->ngroups))) {
        map_links_free (l);
        errno = ENOMEM;
        return -1;
    }
    for (int h = 0; h < n; h++) {
        l->rate[h] = 0;
        for (int o = 0; o < n; o++) {
            double out = NETMAP_AT (nm, bw_MBps, h, o), in = NETMAP_AT (nm, bw_MBps, o, h);

            if (o != h && isfinite (out))
                l->rate[h] = fmax (l->rate[h], out);
            if (o != h && isfinite (in))
                l->rate[h] = fmax (l->rate[h], in);
        }
    }
    for (int g = 0; g < t->ngroups; g++)
        l->shared[g] = 1;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            double bw = NETMAP_AT (nm, bw_MBps, a, b);
            if (t->group[a] != t->group[b] && isfinite (bw) &&
                bw >= MAP_UPLINK_RATIO * fmin (l->rate[a], l->rate[b]))
                l->shared[t->group[a]] = l->shared[t->group[b]] = 0;
        }
    /* a site's tree: an edge switch whose uplink the probe found slow
     * (lib/topology_links.h) has it for its bottleneck, whatever the
     * ratio says of a link half as fast as its nodes' */
    if (t->model == TOPO_TREE && t->signal == TOPO_SIGNAL_SITE) {
        bool *slow = topo_links_flags (nm);
        for (int h = 0; slow && h < n; h++)
            if (t->parent[h] >= 0 && slow[t->parent[h]])
                l->shared[t->group[h]] = 1;
        free (slow);
    }
    if (map_has_uplinks (t)) {
        if (!(l->depth = topo_depths (t)) || !(l->measured = calloc ((size_t)t->ngroups, 1))) {
            map_links_free (l);
            errno = ENOMEM;
            return -1;
        }
        for (int h = 0; h < n; h++)
            if (!isnan (t->uplink_MBps[t->parent[h]]))
                l->measured[t->group[h]] = 1;
    }
    return 0;
}

/* The bytes of a pair from a to b on every measured uplink it crosses:
 * out of the switches above a, into those above b, up to their nearest
 * common switch (exclusive).
 */
static void map_uplinks_load (const topo_t *t, const int *depth, int a, int b, double bytes,
                              double *vout, double *vin)
{
    while (a != b)
        if (depth[a] >= depth[b]) {
            if (!isnan (t->uplink_MBps[a]))
                vout[a] += bytes;
            a = t->parent[a];
        } else {
            if (!isnan (t->uplink_MBps[b]))
                vin[b] += bytes;
            b = t->parent[b];
        }
}

/* The time a pair's traffic from a to b holds host h's own link (h is a
 * or b) when an uplink, not h's link, limits the pair: the pair's
 * latency, and its bytes at h's own rate, never more than the pair's
 * whole time.  The uplink is charged that whole time; charging it to the
 * host's link as well would count the one bottleneck twice, and make the
 * host whose ranks sit at a group's edge look like the busiest link.
 */
static double map_cost_own_link (const map_model_t *m, int a, int b, double rate, double msgs,
                                 double bytes, double time)
{
    double c = 0, lat = NETMAP_AT (m->nm, lat_us, a, b);

    if (m->use_lat && msgs != 0 && !isnan (lat))
        c += msgs * lat * 1e-6;
    if (m->use_bw && bytes != 0)
        c += rate > 0 ? bytes / (rate * 1e6) : time;
    return fmin (c, time);
}

/* map_price with the netmap's links found (map_links_find). */
static int map_price_links (const profile_t *p, const netmap_t *nm, map_metric_t metric,
                            const map_links_t *l, map_candidate_t *c)
{
    map_model_t m = {.nm = nm};
    const char *shared = l->shared;
    const topo_t *t = shared ? map_groups (nm) : NULL;
    int ng = t ? t->ngroups : 0, nv = l->depth ? t->nvertices : 0;
    double cost = 0, comm = 0, *out, *in, *gout, *gin, *vout, *vin;
    uint64_t bytes = 0, msgs = 0;

    /* Per host and per group: the model's time of what it sends and what
     * it receives over the network, through its own link or its uplink;
     * per vertex of a tree with uplinks measured, the bytes on its uplink.
     */
    if (!(out = calloc (2 * (size_t)nm->n + 2 * (size_t)ng + 2 * (size_t)nv, sizeof (*out)))) {
        errno = ENOMEM;
        return -1;
    }
    in = out + nm->n;
    gout = in + nm->n;
    gin = gout + ng;
    vout = gin + ng;
    vin = vout + nv;
    map_model_metric (&m, metric);
    for (size_t k = 0; k < p->nentries; k++) {
        const profile_entry_t *e = &p->entries[k];
        int a = c->node[e->src], b = c->node[e->dst];
        double time = map_cost_hosts (&m, a, b, (double)e->msgs, (double)e->bytes);
        double time_a = time, time_b = time;

        cost += time;
        if (a == b)
            continue;
        bytes += e->bytes;
        msgs += e->msgs;
        comm += (double)e->bytes / (NETMAP_AT (nm, bw_MBps, a, b) * 1e6);
        if (t && t->group[a] != t->group[b]) {
            if (shared[t->group[a]] || shared[t->group[b]]) {
                time_a = map_cost_own_link (&m, a, b, l->rate[a], (double)e->msgs, (double)e->bytes,
                                            time);
                time_b = map_cost_own_link (&m, a, b, l->rate[b], (double)e->msgs, (double)e->bytes,
                                            time);
            }
            gout[t->group[a]] += time;
            gin[t->group[b]] += time;
            if (l->depth)
                map_uplinks_load (t, l->depth, a, b, (double)e->bytes, vout, vin);
        }
        out[a] += time_a;
        in[b] += time_b;
    }
    c->cost_s = cost;
    c->comm_s = comm;
    c->internode_bytes = bytes;
    c->internode_msgs = msgs;
    c->link_s = 0;
    for (int h = 0; h < nm->n; h++)
        c->link_s = fmax (c->link_s, fmax (out[h], in[h]));
    for (int g = 0; g < ng; g++)
        if (shared[g] && !(l->measured && l->measured[g]))
            c->link_s = fmax (c->link_s, fmax (gout[g], gin[g]));
    for (int v = 0; v < nv; v++)
        if (!isnan (t->uplink_MBps[v]))
            c->link_s = fmax (c->link_s, fmax (vout[v], vin[v]) / (t->uplink_MBps[v] * 1e6));
    free (out);
    return 0;
}

int map_price (const profile_t *p, const netmap_t *nm, map_metric_t metric, map_candidate_t *c)
{
    map_links_t links;
    int rc;

    if (map_links_find (nm, &links) < 0)
        return -1;
    rc = map_price_links (p, nm, metric, &links, c);
    map_links_free (&links);
    return rc;
}

/* The odds */

double map_gain (double cost, double base)
{
    return base > 0 ? 1.0 - cost / base : 0.0;
}

static int map_u64_cmp (const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

    return a < b ? -1 : a > b;
}

static int map_double_cmp (const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return a < b ? -1 : a > b;
}

/* The pairs of distinct hosts that layouts node and base use for the
 * traffic of runs, as a * n + b with a < b, sorted, each once: their
 * count, -1 on ENOMEM.
 */
static long map_used_pairs (const profile_t *const *runs, int nruns, int n, const int *node,
                            const int *base, uint64_t **pairs)
{
    size_t m = 0, k = 0;
    uint64_t *u;

    for (int r = 0; r < nruns; r++)
        m += 2 * runs[r]->nentries;
    if (!(u = malloc ((m ? m : 1) * sizeof (*u))))
        return -1;
    for (int r = 0; r < nruns; r++)
        for (size_t e = 0; e < runs[r]->nentries; e++)
            for (int l = 0; l < 2; l++) {
                const int *L = l ? base : node;
                int a = L[runs[r]->entries[e].src], b = L[runs[r]->entries[e].dst];

                if (a != b)
                    u[k++] = a < b ? (uint64_t)a * (uint64_t)n + (uint64_t)b
                                   : (uint64_t)b * (uint64_t)n + (uint64_t)a;
            }
    qsort (u, k, sizeof (*u), map_u64_cmp);
    m = 0;
    for (size_t i = 0; i < k; i++)
        if (m == 0 || u[i] != u[m - 1])
            u[m++] = u[i];
    *pairs = u;
    return (long)m;
}

/* How many netmaps map_odds draws for a step whose runs have entries
 * directed pairs in all: MAP_ODDS_DRAWS, fewer for the largest steps (a
 * few tenths of a second at 65536 ranks), never under 40.
 */
static int map_odds_draws (size_t entries)
{
    double d = 4e7 / (2.0 * (double)(entries ? entries : 1));

    return d >= MAP_ODDS_DRAWS ? MAP_ODDS_DRAWS : d <= 40 ? 40 : (int)d;
}

int map_odds (const profile_t *const *runs, int nruns, netmap_t *nm, const netmap_spread_t *s,
              map_metric_t metric, const int *node, const int *base, double min_gain,
              map_odds_t *out, tm_error_t *errp)
{
    struct drawn {
        int a, b;
        uint32_t stratum;
        size_t count;
        double lat[2], bw[2]; /* the figures to give back */
    } *d = NULL;
    map_links_t links = {.rate = NULL};
    uint64_t *pairs = NULL, rng = 0x746f706f6d6170u; /* "topomap" */
    size_t nd = 0, entries = 0;
    double *g = NULL, *lg, *up = NULL; /* the uplinks as measured */
    topo_t *t = nm->topo && nm->topo->model == TOPO_TREE ? nm->topo : NULL;
    long np;
    int draws, lose, rc = -1, n = nm->n;

    memset (out, 0, sizeof (*out));
    for (int r = 0; r < nruns; r++)
        entries += runs[r]->nentries;
    if ((np = map_used_pairs (runs, nruns, n, node, base, &pairs)) < 0 ||
        !(d = malloc ((size_t)(np ? np : 1) * sizeof (*d))) || map_links_find (nm, &links) < 0)
        goto nomem;
    for (long i = 0; i < np; i++) {
        struct drawn *x = &d[nd];

        x->a = (int)(pairs[i] / (uint64_t)n);
        x->b = (int)(pairs[i] % (uint64_t)n);
        if (!(x->count = netmap_spread_alike (s, x->a, x->b, &x->stratum)))
            continue;
        x->lat[0] = NETMAP_AT (nm, lat_us, x->a, x->b);
        x->lat[1] = NETMAP_AT (nm, lat_us, x->b, x->a);
        x->bw[0] = NETMAP_AT (nm, bw_MBps, x->a, x->b);
        x->bw[1] = NETMAP_AT (nm, bw_MBps, x->b, x->a);
        nd++;
    }
    if (nd == 0) {
        rc = 0;
        goto done;
    }
    draws = map_odds_draws (entries);
    if (!(g = malloc (2 * (size_t)draws * sizeof (*g))) ||
        (t && !(up = malloc ((size_t)t->nvertices * sizeof (*up)))))
        goto nomem;
    if (t)
        memcpy (up, t->uplink_MBps, (size_t)t->nvertices * sizeof (*up));
    lg = g + draws;
    for (int k = 0; k < draws; k++) {
        for (size_t i = 0; i < nd; i++) {
            double lat[2], bw[2];

            netmap_spread_draw (s, d[i].stratum, d[i].count, &rng, lat, bw);
            NETMAP_AT (nm, lat_us, d[i].a, d[i].b) = lat[0];
            NETMAP_AT (nm, lat_us, d[i].b, d[i].a) = lat[1];
            NETMAP_AT (nm, bw_MBps, d[i].a, d[i].b) = bw[0];
            NETMAP_AT (nm, bw_MBps, d[i].b, d[i].a) = bw[1];
        }
        if (t)
            netmap_spread_draw_uplinks (s, up, &rng, t->uplink_MBps);
        g[k] = lg[k] = INFINITY;
        for (int r = 0; r < nruns; r++) {
            map_candidate_t pc = {.node = (int *)node}, bc = {.node = (int *)base};

            if (map_price_links (runs[r], nm, metric, &links, &pc) < 0 ||
                map_price_links (runs[r], nm, metric, &links, &bc) < 0)
                goto restore;
            g[k] = fmin (g[k], map_gain (pc.cost_s, bc.cost_s));
            lg[k] = fmin (lg[k], map_gain (pc.link_s, bc.link_s));
        }
        out->wins += g[k] >= min_gain && lg[k] >= min_gain;
    }
    out->draws = draws;
    qsort (g, (size_t)draws, sizeof (*g), map_double_cmp);
    qsort (lg, (size_t)draws, sizeof (*lg), map_double_cmp);
    /* the most draws a winning plan may lose: past them, the ranges start */
    lose = (int)floor ((1 - MAP_ODDS_LEVEL) * draws);
    out->gain_lo = g[lose];
    out->gain_hi = g[draws - 1 - lose];
    out->link_lo = lg[lose];
    out->link_hi = lg[draws - 1 - lose];
    rc = 0;
restore:
    for (size_t i = 0; i < nd; i++) {
        NETMAP_AT (nm, lat_us, d[i].a, d[i].b) = d[i].lat[0];
        NETMAP_AT (nm, lat_us, d[i].b, d[i].a) = d[i].lat[1];
        NETMAP_AT (nm, bw_MBps, d[i].a, d[i].b) = d[i].bw[0];
        NETMAP_AT (nm, bw_MBps, d[i].b, d[i].a) = d[i].bw[1];
    }
    if (t)
        memcpy (t->uplink_MBps, up, (size_t)t->nvertices * sizeof (*up));
    if (rc < 0)
        goto nomem;
    goto done;
nomem:
    errnomem (errp);
    rc = -1;
done:
    map_links_free (&links);
    free (pairs);
    free (d);
    free (g);
    free (up);
    return rc;
}

/* The plan */

static double map_now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The slot pair table of m (struct map_pair_figs): NULL in m->pair, and
 * 0, when there are more than MAP_PAIR_TABLE_MAX slots or a figure the
 * table could not reproduce to the last bit (infinite, or a bandwidth of
 * 0 or less); -1 when out of memory.
 */
static int map_model_pairs (map_model_t *m)
{
    const netmap_t *nm = m->nm;
    size_t n = (size_t)m->nslots;
    struct map_pair_figs *t;

    m->pair = NULL;
    if (m->nslots > MAP_PAIR_TABLE_MAX)
        return 0;
    if (!(t = malloc (n * n * sizeof (*t)))) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
            double lat = NETMAP_AT (nm, lat_us, m->host[a], m->host[b]);
            double bw = NETMAP_AT (nm, bw_MBps, m->host[a], m->host[b]);

            if (isinf (lat) || isinf (bw) || bw <= 0) {
                free (t);
                return 0;
            }
            t[a * n + b].out_lat_us = m->use_lat && !isnan (lat) ? lat : 0;
            t[a * n + b].out_bw_Bps = m->use_bw && !isnan (bw) ? bw * 1e6 : INFINITY;
        }
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
            t[a * n + b].in_lat_us = t[b * n + a].out_lat_us;
            t[a * n + b].in_bw_Bps = t[b * n + a].out_bw_Bps;
        }
    m->pair = t;
    return 0;
}

/* Mean latency and mean time per byte between two distinct slots, for the
 * weights and distances given to Scotch (one slot: its own figures, or
 * 1 us and 1 GB/s).
 */
static void map_model_typical (map_model_t *m)
{
    const netmap_t *nm = m->nm;
    double lat = 0, spb = 0;
    size_t npairs = 0;

    for (int a = 0; a < m->nslots; a++)
        for (int b = 0; b < m->nslots; b++) {
            if (a == b)
                continue;
            lat += NETMAP_AT (nm, lat_us, m->host[a], m->host[b]) * 1e-6;
            spb += 1 / (NETMAP_AT (nm, bw_MBps, m->host[a], m->host[b]) * 1e6);
            npairs++;
        }
    if (npairs > 0) {
        m->typ_lat_s = lat / (double)npairs;
        m->typ_s_per_byte = spb / (double)npairs;
    } else {
        m->typ_lat_s = 1e-6;
        m->typ_s_per_byte = 1e-9;
    }
}

/* Does node (hosts, [ntasks]) give every slot exactly its count?  count is
 * scratch of nm->n ints.
 */
static bool map_fits (const netmap_t *nm, int nslots, const map_slot_t *slots, int ntasks,
                      const int *node, int *count, int *badhost, int *badcount)
{
    bool fits = true;

    for (int h = 0; h < nm->n; h++)
        count[h] = 0;
    for (int s = 0; s < nslots; s++)
        count[slots[s].host] = -slots[s].count;
    for (int r = 0; r < ntasks; r++) {
        if (node[r] < 0 || node[r] >= nm->n) {
            *badhost = node[r];
            *badcount = INT_MIN;
            return false;
        }
        count[node[r]]++;
    }
    for (int h = 0; h < nm->n && fits; h++)
        if (count[h] != 0) {
            *badhost = h;
            *badcount = count[h];
            fits = false;
        }
    return fits;
}

int map_overfull (const netmap_t *nm, int nslots, const map_slot_t *slots, int ntasks,
                  const int *node)
{
    int *room = calloc ((size_t)nm->n, sizeof (*room)), over = 0;

    if (!room) {
        errno = ENOMEM;
        return -1;
    }
    for (int s = 0; s < nslots; s++)
        room[slots[s].host] = slots[s].count;
    for (int r = 0; r < ntasks; r++)
        over += --room[node[r]] == -1;
    free (room);
    return over;
}

static int map_candidate_init (map_candidate_t *c, const char *name, int ntasks)
{
    memset (c, 0, sizeof (*c));
    snprintf (c->name, sizeof (c->name), "%s", name);
    c->node = malloc ((size_t)ntasks * sizeof (*c->node));
    return c->node ? 0 : -1;
}

void map_result_free (map_result_t *res)
{
    if (!res)
        return;
    if (res->cand)
        for (int k = 0; k < res->ncandidates; k++)
            free (res->cand[k].node);
    free (res->cand);
    memset (res, 0, sizeof (*res));
}

#define MAP_MAXPASS 12

/* Refine a layout that fits: the groups, then the ranks (helper: see
 * map_refine_nodes).
 */
static int map_polish (const map_graph_t *g, const map_model_t *m, int *slot, bool helper,
                       tm_error_t *errp)
{
    if (map_refine_nodes (g, m, slot, MAP_MAXPASS, helper, errp) < 0 ||
        map_refine (g, m, slot, MAP_MAXPASS, errp) < 0)
        return -1;
    return 0;
}

/* A start of the refinement: the greedy layout (greedy set) or the layout
 * already in slot, refined in place; rc and e say how it went.  The greedy
 * start and Scotch's may run on threads of their own (map_start_run, see
 * map_starts_t), and say when they are done; a start refined while no
 * other runs may use a helper thread.
 */
typedef struct {
    const map_graph_t *g;
    const map_model_t *m;
    int *slot;
    int greedy;
    bool helper;
    int rc;
    tm_error_t e;
    atomic_bool done;
} map_start_t;

static void *map_start_run (void *arg)
{
    map_start_t *s = arg;

    s->rc = (s->greedy && map_greedy (s->g, s->m, s->slot, &s->e) < 0) ||
                    map_polish (s->g, s->m, s->slot, s->helper, &s->e) < 0
                ? -1
                : 0;
    atomic_store (&s->done, true);
    return NULL;
}

/* Steps of this many ranks or more make and refine the greedy start on a
 * thread of its own, beside Scotch; where the nodes form a tree and that
 * start is done, Scotch's layout is then refined on another, beside the
 * making and refining of the multisection's.  Each start is refined
 * alone, from the same inputs, and the results are compared in the same
 * order, so the plan is the same as one thread's.  Below, a thread costs
 * more than it saves.
 */
#define MAP_THREAD_MIN_RANKS 4096

/* The three starts (scotch, greedy, multisection) and the threads that
 * Scotch's and the greedy one may run on.
 */
typedef struct {
    map_start_t st[3];
    pthread_t thread[2];
    bool on[2];
} map_starts_t;

/* Whether no start but k runs on a thread now. */
static bool map_starts_alone (map_starts_t *s, int k)
{
    for (int j = 0; j < 2; j++)
        if (j != k && s->on[j] && !atomic_load (&s->st[j].done))
            return false;
    return true;
}

/* map_multisection's word that the nodes form a tree: where the greedy
 * start had a thread and is done, Scotch's layout goes to a thread of its
 * own (two threads at most at any time).
 */
static void map_starts_beside (void *arg)
{
    map_starts_t *s = arg;

    if (s->on[1] && atomic_load (&s->st[1].done))
        s->on[0] = pthread_create (&s->thread[0], NULL, map_start_run, &s->st[0]) == 0;
}

static void map_starts_join (map_starts_t *s)
{
    for (int k = 0; k < 2; k++)
        if (s->on[k]) {
            pthread_join (s->thread[k], NULL);
            s->on[k] = false;
        }
}

/* Refine the starts, Scotch's repaired layout in st[0].slot: 1 when the
 * multisection's was made, 0 when not (no tree, or Scotch failed on a
 * part: the others stand without it), -1 with errp.  Each start's own
 * failure is left in its rc and e.
 */
static int map_starts_run (map_starts_t *s, unsigned seed, map_result_t *r, tm_error_t *errp)
{
    const map_graph_t *g = s->st[0].g;
    const map_model_t *m = s->st[0].m;
    double t = map_now ();
    int ms;

    if ((ms = map_multisection (g, m, seed, s->st[2].slot, map_starts_beside, s, &s->st[2].e)) < 0)
        ms = 0;
    if (ms) {
        if (map_repair (g, m, s->st[2].slot, errp) < 0)
            return -1;
        s->st[2].helper = map_starts_alone (s, 2);
        map_start_run (&s->st[2]);
    }
    r->multisection_s = map_now () - t;
    for (int k = 0; k < 2; k++)
        if (!s->on[k]) {
            s->st[k].helper = map_starts_alone (s, k);
            map_start_run (&s->st[k]);
        }
    map_starts_join (s);
    return ms;
}

/* The topomap (or with exact = 0, plain scotch) layout in slot indices.
 *
 * Scotch's layout, made to fit (the repaired Scotch mapping), is the first
 * candidate and the price to beat.  Refined, it is the plan on most
 * networks.  Where the nodes form a tree, the multisection layout
 * (mapper_multisection.c), made to fit and refined, is priced beside it.
 * Refinement is local, though, and recursive bisection cannot chain
 * groups across a network without structure (a cloud), so with exact
 * capacities and refinement a greedy layout is refined too, and srun's
 * block and cyclic layouts when they price below the best so far.  A
 * layout replaces the best only when strictly cheaper: the result is
 * never worse than the repaired Scotch mapping, nor than block.
 */
static int map_compute (const map_graph_t *g, map_model_t *m, int nslots, const map_slot_t *slots,
                        const map_params_t *params, int *slot, map_result_t *r, tm_error_t *errp)
{
    static const char *const start_name[] = {"scotch", "greedy", "multisection"};
    map_starts_t s = {.st = {{.g = g, .m = m}, {.g = g, .m = m, .greedy = 1}, {.g = g, .m = m}}};
    map_start_t *st = s.st;
    int *alt = NULL, rc = -1, ms = 0;
    double best, t = map_now ();

    r->multisection_cost_s = NAN;
    r->best = "scotch";
    if (params->exact && params->refine) {
        if (!(alt = malloc (3 * (size_t)g->n * sizeof (*alt)))) {
            return errnomem (errp);
        }
        for (int k = 0; k < 3; k++)
            st[k].slot = alt + (size_t)k * (size_t)g->n;
        if (g->n >= MAP_THREAD_MIN_RANKS)
            s.on[1] = pthread_create (&s.thread[1], NULL, map_start_run, &st[1]) == 0;
    }
    if (map_scotch (g, m, params->seed, slot, errp) < 0)
        goto out;
    r->scotch_s = map_now () - t;
    t = map_now ();
    if (!params->exact) {
        rc = params->refine ? map_refine (g, m, slot, MAP_MAXPASS, errp) : 0;
        r->refine_s = map_now () - t;
        goto out;
    }
    if (map_repair (g, m, slot, errp) < 0)
        goto out;
    r->repair_s = map_now () - t;
    if (!params->refine) {
        rc = 0;
        goto out;
    }
    t = map_now ();
    best = map_graph_cost (g, m, slot);
    /* The repaired Scotch layout, the multisection layout where the nodes
     * are a tree, and the greedy one, each refined.
     */
    memcpy (st[0].slot, slot, (size_t)g->n * sizeof (*slot));
    if ((ms = map_starts_run (&s, params->seed, r, errp)) < 0)
        goto out;
    for (int k = 0; k < 3; k++) {
        double c;
        if (k == 2 && !ms)
            continue;
        if (st[k].rc < 0) {
            errprintf (errp, "%s", st[k].e.text);
            goto out;
        }
        c = map_graph_cost (g, m, st[k].slot);
        if (k == 2)
            r->multisection_cost_s = c;
        if (c < best) {
            best = c;
            r->best = start_name[k];
            memcpy (slot, st[k].slot, (size_t)g->n * sizeof (*slot));
        }
    }
    /* srun's block and cyclic layouts, refined when they price below. */
    for (int cyclic = 0; cyclic < 2; cyclic++) {
        double c;
        map_slots_of (nslots, slots, cyclic, alt);
        if (!(map_graph_cost (g, m, alt) < best))
            continue;
        if (map_polish (g, m, alt, true, errp) < 0)
            goto out;
        if ((c = map_graph_cost (g, m, alt)) < best) {
            best = c;
            r->best = cyclic ? "cyclic" : "block";
            memcpy (slot, alt, (size_t)g->n * sizeof (*slot));
        }
    }
    r->refine_s = map_now () - t;
    rc = 0;
out:
    map_starts_join (&s);
    free (alt);
    return rc;
}

int map_plan (const profile_t *p, const netmap_t *nm, int nslots, const map_slot_t *slots,
              const map_params_t *params, map_result_t *res, tm_error_t *errp)
{
    double t0 = map_now ();
    map_params_t defaults;
    map_graph_t g = {0};
    map_model_t m = {0};
    map_result_t r = {0};
    int *host = NULL, *cap = NULL, *slot = NULL, *count = NULL;
    map_links_t links = {.rate = NULL};
    int ntasks, badhost, badcount, block;
    bool fits[4] = {false};

    if (!params) {
        map_params_default (&defaults);
        params = &defaults;
    }
    if (!res)
        return errprintf (errp, "no result to fill");
    if ((int)params->metric < 0 || (int)params->metric > MAP_BANDWIDTH)
        return errprintf (errp, "unknown metric %d", (int)params->metric);
    if (map_validate (p, nm, nslots, slots, errp) < 0)
        return -1;
    ntasks = p->ntasks;
    host = malloc ((size_t)nslots * sizeof (*host));
    cap = malloc ((size_t)nslots * sizeof (*cap));
    slot = malloc ((size_t)ntasks * sizeof (*slot));
    count = malloc ((size_t)nm->n * sizeof (*count));
    if (!host || !cap || !slot || !count)
        goto nomem;
    if (params->previous &&
        !map_fits (nm, nslots, slots, ntasks, params->previous, count, &badhost, &badcount)) {
        int want = 0;
        for (int s = 0; s < nslots; s++)
            if (slots[s].host == badhost)
                want = slots[s].count;
        if (badcount == INT_MIN)
            errprintf (errp, "previous plan: host index %d out of range", badhost);
        else
            errprintf (errp, "previous plan: host %s gets %d ranks, the step gives it %d",
                       map_host_name (nm, badhost), want + badcount, want);
        goto error;
    }
    for (int s = 0; s < nslots; s++) {
        host[s] = slots[s].host;
        cap[s] = slots[s].count;
    }
    m.nm = nm;
    m.nslots = nslots;
    m.host = host;
    m.cap = cap;
    map_model_metric (&m, params->metric);
    map_model_typical (&m);
    if (map_model_pairs (&m) < 0)
        goto nomem;
    if (map_graph_build (p, &g, errp) < 0)
        goto error;
    if (map_compute (&g, &m, nslots, slots, params, slot, &r, errp) < 0)
        goto error;

    r.ntasks = ntasks;
    r.metric = params->metric;
    r.ncandidates = params->previous ? 4 : 3;
    if (!(r.cand = calloc ((size_t)r.ncandidates, sizeof (*r.cand))))
        goto nomem;
    if (map_candidate_init (&r.cand[0], params->exact ? "topomap" : "scotch", ntasks) < 0 ||
        map_candidate_init (&r.cand[1], "block", ntasks) < 0 ||
        map_candidate_init (&r.cand[2], "cyclic", ntasks) < 0 ||
        (params->previous && map_candidate_init (&r.cand[3], "previous", ntasks) < 0))
        goto nomem;
    for (int i = 0; i < ntasks; i++)
        r.cand[0].node[i] = host[slot[i]];
    map_layout_block (nslots, slots, r.cand[1].node);
    map_layout_cyclic (nslots, slots, r.cand[2].node);
    if (params->previous)
        memcpy (r.cand[3].node, params->previous, (size_t)ntasks * sizeof (int));

    /* The guard: price every candidate; the cheapest that fits and loads
     * the busiest link less than block wins, block unless another is
     * strictly cheaper.
     */
    block = 1;
    r.chosen = block;
    if (map_links_find (nm, &links) < 0)
        goto nomem;
    for (int k = 0; k < r.ncandidates; k++) {
        if (map_price_links (p, nm, params->metric, &links, &r.cand[k]) < 0)
            goto nomem;
        fits[k] = map_fits (nm, nslots, slots, ntasks, r.cand[k].node, count, &badhost, &badcount);
    }
    for (int k = 0; k < r.ncandidates; k++)
        if (k != block && fits[k] && r.cand[k].cost_s < r.cand[r.chosen].cost_s &&
            r.cand[k].link_s < r.cand[block].link_s)
            r.chosen = k;
    r.time_s = map_now () - t0;
    *res = r;
    free (m.pair);
    map_graph_free (&g);
    map_links_free (&links);
    free (host);
    free (cap);
    free (slot);
    free (count);
    errclear (errp);
    return 0;
nomem:
    errnomem (errp);
error:
    map_result_free (&r);
    free (m.pair);
    map_graph_free (&g);
    map_links_free (&links);
    free (host);
    free (cap);
    free (slot);
    free (count);
    return -1;
}

/* Consecutive plans */

/* Passes of the node-order search, and the slots up to which it tries
 * every pair of places (beyond: neighbouring places only), and its time. */
#define MAP_CONS_PASSES   8
#define MAP_CONS_ALLPAIRS 64
#define MAP_CONS_SECONDS  0.5

typedef struct {
    double key;
    int slot;
} map_keyed_t;

static int map_keyed_cmp (const void *a, const void *b)
{
    const map_keyed_t *x = a, *y = b;

    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->slot > y->slot) - (x->slot < y->slot);
}

/* Block over the slots taken in the order ord[nslots]. */
static void map_fill_order (int nslots, const map_slot_t *slots, const int *ord, int *node)
{
    int r = 0;

    for (int k = 0; k < nslots; k++)
        for (int c = 0; c < slots[ord[k]].count; c++)
            node[r++] = slots[ord[k]].host;
}

int map_consecutive (const profile_t *p, const netmap_t *nm, map_metric_t metric, int nslots,
                     const map_slot_t *slots, const int *plan, map_candidate_t *out,
                     tm_error_t *errp)
{
    int ntasks = p->ntasks, *slot_of = NULL, *ord = NULL, *count = NULL, rc = -1;
    map_keyed_t *key = NULL;
    map_links_t links = {.rate = NULL};
    double t0 = map_now (), best;

    memset (out, 0, sizeof (*out));
    if (!(slot_of = malloc ((size_t)nm->n * sizeof (*slot_of))) ||
        !(ord = malloc ((size_t)nslots * sizeof (*ord))) ||
        !(count = calloc ((size_t)nslots, sizeof (*count))) ||
        !(key = calloc ((size_t)nslots, sizeof (*key))) ||
        map_candidate_init (out, "consecutive", ntasks) < 0 || map_links_find (nm, &links) < 0) {
        errnomem (errp);
        goto out;
    }
    for (int h = 0; h < nm->n; h++)
        slot_of[h] = -1;
    for (int s = 0; s < nslots; s++)
        slot_of[slots[s].host] = s;
    /* The nodes in the order of the mean rank the plan puts on each. */
    for (int r = 0; r < ntasks; r++) {
        int s = plan[r] >= 0 && plan[r] < nm->n ? slot_of[plan[r]] : -1;

        if (s < 0 || ++count[s] > slots[s].count) {
            errno = EINVAL;
            errprintf (errp, "rank %d of the plan is on no node of the step's, or one too many", r);
            goto out;
        }
        key[s].key += r;
    }
    for (int s = 0; s < nslots; s++)
        if (count[s] != slots[s].count) {
            errno = EINVAL;
            errprintf (errp, "the plan gives %s %d ranks, the step %d",
                       map_host_name (nm, slots[s].host), count[s], slots[s].count);
            goto out;
        }
    for (int s = 0; s < nslots; s++) {
        key[s].key = count[s] ? key[s].key / count[s] : 0;
        key[s].slot = s;
    }
    qsort (key, (size_t)nslots, sizeof (*key), map_keyed_cmp);
    for (int k = 0; k < nslots; k++)
        ord[k] = key[k].slot;
    map_fill_order (nslots, slots, ord, out->node);
    if (map_price_links (p, nm, metric, &links, out) < 0)
        goto nomem;
    best = out->cost_s;
    /* Swaps of two nodes' places while the cost falls. */
    for (int pass = 0; pass < MAP_CONS_PASSES; pass++) {
        bool improved = false;

        for (int i = 0; i + 1 < nslots; i++)
            for (int j = i + 1; j < nslots && (nslots <= MAP_CONS_ALLPAIRS || j == i + 1); j++) {
                int t = ord[i];

                if (map_now () - t0 > MAP_CONS_SECONDS)
                    goto priced;
                ord[i] = ord[j], ord[j] = t;
                map_fill_order (nslots, slots, ord, out->node);
                if (map_price_links (p, nm, metric, &links, out) < 0)
                    goto nomem;
                if (out->cost_s < best * (1 - 1e-12)) {
                    best = out->cost_s;
                    improved = true;
                } else
                    ord[j] = ord[i], ord[i] = t;
            }
        if (!improved)
            break;
    }
priced:
    map_fill_order (nslots, slots, ord, out->node);
    if (map_price_links (p, nm, metric, &links, out) < 0)
        goto nomem;
    rc = 0;
    goto out;
nomem:
    errnomem (errp);
out:
    if (rc < 0) {
        free (out->node);
        out->node = NULL;
    }
    free (slot_of);
    free (ord);
    free (count);
    free (key);
    map_links_free (&links);
    return rc;
}

/* --explain */

/* Descending ints, for qsort. */
static int cmp_int_down (const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x < y) - (x > y);
}

/* "x/base" to 3 places, "-" when base is 0. */
static void map_ratio (char *buf, size_t size, double x, double base)
{
    if (base > 0)
        snprintf (buf, size, "%.3f", x / base);
    else
        snprintf (buf, size, "-");
}

int map_explain (FILE *f, const map_result_t *res, const netmap_t *nm)
{
    const map_candidate_t *block = NULL, *chosen;
    int *count = NULL;

    if (!f || !res || !res->cand || res->ncandidates < 1 || res->chosen < 0 ||
        res->chosen >= res->ncandidates) {
        errno = EINVAL;
        return -1;
    }
    for (int k = 0; k < res->ncandidates; k++)
        if (strcmp (res->cand[k].name, "block") == 0)
            block = &res->cand[k];
    chosen = &res->cand[res->chosen];
    fprintf (f, "mapping %d ranks, metric %s, planned in %.3f s\n", res->ntasks,
             map_metric_name (res->metric), res->time_s);
    fprintf (f, "  %-10s %14s %14s %14s %12s %9s %12s %9s\n", "candidate", "cost_ms",
             "internode_MB", "internode_msgs", "comm_s", "vs_block", "link_ms", "link_vs");
    for (int k = 0; k < res->ncandidates; k++) {
        const map_candidate_t *c = &res->cand[k];
        char ratio[32], lratio[32];

        map_ratio (ratio, sizeof (ratio), c->cost_s, block ? block->cost_s : 0);
        map_ratio (lratio, sizeof (lratio), c->link_s, block ? block->link_s : 0);
        fprintf (f, "%c %-10s %14.3f %14.3f %14" PRIu64 " %12.6f %9s %12.3f %9s\n",
                 k == res->chosen ? '*' : ' ', c->name, c->cost_s * 1e3,
                 (double)c->internode_bytes / 1e6, c->internode_msgs, c->comm_s, ratio,
                 c->link_s * 1e3, lratio);
    }
    fprintf (f, "chosen: %s\n", chosen->name);
    if (nm && nm->n > 0 && chosen->node) {
        if (!(count = calloc ((size_t)nm->n, sizeof (*count)))) {
            errno = ENOMEM;
            return -1;
        }
        int used = 0;

        for (int r = 0; r < res->ntasks; r++)
            if (chosen->node[r] >= 0 && chosen->node[r] < nm->n)
                used += count[chosen->node[r]]++ == 0;
        if (used <= MAP_EXPLAIN_NODES) {
            fprintf (f, "  %-24s %6s\n", "node", "ranks");
            for (int h = 0; h < nm->n; h++)
                if (count[h] > 0)
                    fprintf (f, "  %-24s %6d\n", map_host_name (nm, h), count[h]);
        } else {
            /* At scale, how many nodes take how many ranks, most first:
             * the counts sorted, then told in runs. */
            qsort (count, (size_t)nm->n, sizeof (*count), cmp_int_down);
            fprintf (f, "  %d nodes:", used);
            for (int h = 0, sep = 0; h < nm->n && count[h] > 0;) {
                int k = h;

                while (k < nm->n && count[k] == count[h])
                    k++;
                fprintf (f, "%s %d with %d rank%s", sep++ ? "," : "", k - h, count[h],
                         count[h] == 1 ? "" : "s");
                h = k;
            }
            fputc ('\n', f);
        }
        free (count);
    }
    if (ferror (f)) {
        errno = EIO;
        return -1;
    }
    return 0;
}

int map_explain_on (FILE *f, const map_result_t *res, const profile_t *p, const netmap_t *nm)
{
    const map_candidate_t *block = NULL;
    map_candidate_t *c;

    if (!f || !res || !res->cand || !p || !nm) {
        errno = EINVAL;
        return -1;
    }
    if (!(c = calloc ((size_t)res->ncandidates, sizeof (*c)))) {
        errno = ENOMEM;
        return -1;
    }
    for (int k = 0; k < res->ncandidates; k++) {
        c[k].node = res->cand[k].node;
        if (map_price (p, nm, res->metric, &c[k]) < 0) {
            free (c);
            errno = ENOMEM;
            return -1;
        }
        if (strcmp (res->cand[k].name, "block") == 0)
            block = &c[k];
    }
    fprintf (f, "  %-10s %14s %9s %12s %9s\n", "candidate", "cost_ms", "vs_block", "link_ms",
             "link_vs");
    for (int k = 0; k < res->ncandidates; k++) {
        char ratio[32], lratio[32];

        map_ratio (ratio, sizeof (ratio), c[k].cost_s, block ? block->cost_s : 0);
        map_ratio (lratio, sizeof (lratio), c[k].link_s, block ? block->link_s : 0);
        fprintf (f, "%c %-10s %14.3f %9s %12.3f %9s\n", k == res->chosen ? '*' : ' ',
                 res->cand[k].name, c[k].cost_s * 1e3, ratio, c[k].link_s * 1e3, lratio);
    }
    free (c);
    if (ferror (f)) {
        errno = EIO;
        return -1;
    }
    return 0;
}
