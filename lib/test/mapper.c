/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scotch.h>

#include "lib/mapper.h"
#include "lib/mapper_private.h"
#include "lib/netmap.h"
#include "lib/profile.h"
#include "lib/test/tap.h"

/* A small deterministic generator (xorshift64*), so that the random cases
 * are the same on every run.
 */
static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rng (void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static int rng_int (int lo, int hi)
{
    return lo + (int)(rng () % (uint64_t)(hi - lo + 1));
}

static double rng_real (double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rng () >> 11) / 9007199254740992.0);
}

/* A netmap of n hosts h0, h1, ...; figures set by the caller. */
static netmap_t *netmap_of (int n)
{
    char **names = calloc ((size_t)n, sizeof (*names));
    netmap_t *nm;

    for (int i = 0; i < n; i++) {
        names[i] = malloc (16);
        snprintf (names[i], 16, "h%d", i);
    }
    nm = netmap_create (n, (const char *const *)names, NULL);
    for (int i = 0; i < n; i++)
        free (names[i]);
    free (names);
    return nm;
}

static void set_pair (netmap_t *nm, int a, int b, double lat, double bw)
{
    NETMAP_AT (nm, lat_us, a, b) = lat;
    NETMAP_AT (nm, bw_MBps, a, b) = bw;
    NETMAP_AT (nm, lat_us, b, a) = lat;
    NETMAP_AT (nm, bw_MBps, b, a) = bw;
}

/* Every pair of hosts: intra-switch figures when sw[a] == sw[b], else
 * inter; the diagonal left unmeasured (NaN).
 */
static netmap_t *netmap_switches (int n, const int *sw, double lat_in, double bw_in, double lat_out,
                                  double bw_out)
{
    netmap_t *nm = netmap_of (n);

    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            if (sw[a] == sw[b])
                set_pair (nm, a, b, lat_in, bw_in);
            else
                set_pair (nm, a, b, lat_out, bw_out);
        }
    return nm;
}

/* nm's topology: a switch for each group, under a core. */
static void set_groups (netmap_t *nm, int ngroups, const int *group)
{
    int n = nm->n, core = n + ngroups;
    topo_t *t = topo_alloc (TOPO_TREE, n, n + ngroups + 1, NULL);

    for (int h = 0; h < n; h++)
        t->parent[h] = n + group[h];
    for (int g = 0; g < ngroups; g++) {
        t->parent[n + g] = core;
        t->height[n + g] = 1;
    }
    t->height[core] = 2;
    t->ngroups = ngroups;
    memcpy (t->group, group, (size_t)n * sizeof (*group));
    topo_destroy (nm->topo);
    nm->topo = t;
}

/* Triplets, growing. */
typedef struct {
    profile_entry_t *t;
    size_t n, max;
} triplets_t;

static void add (triplets_t *t, int src, int dst, uint64_t msgs, uint64_t bytes)
{
    if (t->n == t->max) {
        t->max = t->max ? 2 * t->max : 64;
        t->t = realloc (t->t, t->max * sizeof (*t->t));
    }
    t->t[t->n++] = (profile_entry_t){src, dst, msgs, bytes};
}

static void add2 (triplets_t *t, int a, int b, uint64_t msgs, uint64_t bytes)
{
    add (t, a, b, msgs, bytes);
    add (t, b, a, msgs, bytes);
}

static profile_t *profile_of (int ntasks, triplets_t *t)
{
    tm_error_t err;
    profile_t *p = profile_create (ntasks, t->n, t->t, &err);

    if (!p)
        diag ("profile_create: %s", err.text);
    free (t->t);
    memset (t, 0, sizeof (*t));
    return p;
}

/* Does every slot get exactly its count from layout node? */
static int fits (const netmap_t *nm, int nslots, const map_slot_t *slots, int ntasks,
                 const int *node)
{
    int *count = calloc ((size_t)nm->n, sizeof (*count));
    int ok = 1;

    for (int r = 0; r < ntasks; r++) {
        if (node[r] < 0 || node[r] >= nm->n) {
            free (count);
            return 0;
        }
        count[node[r]]++;
    }
    for (int s = 0; s < nslots; s++) {
        if (count[slots[s].host] != slots[s].count)
            ok = 0;
        count[slots[s].host] = 0;
    }
    for (int h = 0; h < nm->n; h++)
        if (count[h] != 0)
            ok = 0;
    free (count);
    return ok;
}

static map_candidate_t *cand_named (map_result_t *res, const char *name)
{
    for (int k = 0; k < res->ncandidates; k++)
        if (strcmp (res->cand[k].name, name) == 0)
            return &res->cand[k];
    return NULL;
}

static void test_metrics (void)
{
    map_metric_t m = MAP_LATENCY;
    map_params_t p;

    ok (map_metric_parse ("combined", &m) == 0 && m == MAP_COMBINED, "\"combined\" parses");
    ok (map_metric_parse ("latency", &m) == 0 && m == MAP_LATENCY, "\"latency\" parses");
    ok (map_metric_parse ("bandwidth", &m) == 0 && m == MAP_BANDWIDTH, "\"bandwidth\" parses");
    ok (map_metric_parse ("speed", &m) == -1 && m == MAP_BANDWIDTH,
        "an unknown metric is refused and leaves the result alone");
    ok (map_metric_parse (NULL, &m) == -1, "no metric name is refused");
    ok (strcmp (map_metric_name (MAP_COMBINED), "combined") == 0 &&
            strcmp (map_metric_name (MAP_LATENCY), "latency") == 0 &&
            strcmp (map_metric_name (MAP_BANDWIDTH), "bandwidth") == 0,
        "every metric has its name");
    map_params_default (&p);
    ok (p.metric == MAP_COMBINED && p.refine == 1 && p.exact == 1 && p.previous == NULL,
        "default parameters: combined, exact, refined, no previous plan");
}

static void test_layouts (void)
{
    map_slot_t slots[] = {{5, 2}, {3, 3}, {7, 1}};
    int node[6];
    int block[] = {5, 5, 3, 3, 3, 7};
    int cyclic[] = {5, 3, 7, 5, 3, 3};

    map_layout_block (3, slots, node);
    ok (memcmp (node, block, sizeof (node)) == 0, "block fills each slot in turn");
    map_layout_cyclic (3, slots, node);
    ok (memcmp (node, cyclic, sizeof (node)) == 0,
        "cyclic deals round-robin over the slots with room left");
}

static void test_price (void)
{
    netmap_t *nm = netmap_of (2);
    triplets_t t = {0};
    profile_t *p;
    int node[3] = {0, 1, 1};
    map_candidate_t c = {.node = node};

    set_pair (nm, 0, 1, 10, 100);
    add (&t, 0, 1, 2, 1000000);
    add (&t, 1, 2, 3, 5000);
    add (&t, 2, 2, 4, 4000);
    p = profile_of (3, &t);

    map_price (p, nm, MAP_COMBINED, &c);
    ok (fabs (c.cost_s - (2 * 10e-6 + 1e6 / 100e6)) < 1e-15,
        "combined prices messages by latency and bytes by bandwidth (%g s)", c.cost_s);
    ok (c.internode_bytes == 1000000 && c.internode_msgs == 2,
        "inter-node bytes and messages count the pairs on different nodes only");
    ok (fabs (c.comm_s - 1e6 / 100e6) < 1e-15, "comm_s is inter-node bytes over bandwidth (Eq. 4)");
    ok (fabs (c.link_s - (2 * 10e-6 + 1e6 / 100e6)) < 1e-15,
        "link_s is the busiest node link's inter-node traffic (%g s)", c.link_s);
    map_price (p, nm, MAP_LATENCY, &c);
    ok (fabs (c.cost_s - 2 * 10e-6) < 1e-15, "latency ignores bytes (%g s)", c.cost_s);
    ok (fabs (c.link_s - 2 * 10e-6) < 1e-15, "link_s follows the metric (%g s)", c.link_s);
    ok (fabs (c.comm_s - 1e6 / 100e6) < 1e-15, "comm_s does not depend on the metric");
    map_price (p, nm, MAP_BANDWIDTH, &c);
    ok (fabs (c.cost_s - 1e6 / 100e6) < 1e-15, "bandwidth ignores messages (%g s)", c.cost_s);

    /* Intra-node figures, once measured, are priced. */
    NETMAP_AT (nm, lat_us, 1, 1) = 1;
    NETMAP_AT (nm, bw_MBps, 1, 1) = 1000;
    map_price (p, nm, MAP_COMBINED, &c);
    ok (fabs (c.cost_s - (2 * 10e-6 + 1e6 / 100e6 + 7 * 1e-6 + 9000 / 1e9)) < 1e-15,
        "intra-node traffic is priced by the intra-node figures once measured");
    ok (c.internode_bytes == 1000000, "intra-node traffic is not inter-node");
    ok (fabs (c.link_s - (2 * 10e-6 + 1e6 / 100e6)) < 1e-15, "intra-node traffic loads no link");
    profile_destroy (p);
    netmap_destroy (nm);
}

/* Rank 0 talks to 1 in many small messages, to 2 in a few large ones: the
 * latency metric pairs 0 with 1, the bandwidth metric 0 with 2.
 */
static void test_metric_plans (void)
{
    netmap_t *nm = netmap_of (2);
    map_slot_t slots[] = {{0, 2}, {1, 2}};
    triplets_t t = {0};
    profile_t *p;
    map_params_t params;
    map_result_t res;
    tm_error_t err;
    const int *node;

    set_pair (nm, 0, 1, 50, 100);
    add2 (&t, 0, 1, 100000, 100000);
    add2 (&t, 0, 2, 10, 1000000000);
    add2 (&t, 1, 3, 1, 8);
    add2 (&t, 2, 3, 1, 8);
    p = profile_of (4, &t);
    map_params_default (&params);

    params.metric = MAP_LATENCY;
    ok (map_plan (p, nm, 2, slots, &params, &res, &err) == 0, "plan under latency");
    node = res.cand[res.chosen].node;
    ok (node[0] == node[1] && node[0] != node[2], "latency puts the chatty pair together");
    map_result_free (&res);

    params.metric = MAP_BANDWIDTH;
    ok (map_plan (p, nm, 2, slots, &params, &res, &err) == 0, "plan under bandwidth");
    node = res.cand[res.chosen].node;
    ok (node[0] == node[2] && node[0] != node[1], "bandwidth puts the heavy pair together");
    ok (res.cand[res.chosen].cost_s < cand_named (&res, "block")->cost_s,
        "and that is cheaper than block");
    map_result_free (&res);

    params.metric = MAP_COMBINED;
    ok (map_plan (p, nm, 2, slots, &params, &res, &err) == 0, "plan under combined");
    node = res.cand[res.chosen].node;
    ok (node[0] == node[2], "combined weighs 1 GB at 100 MB/s over 100000 messages at 50 us");
    map_result_free (&res);
    profile_destroy (p);
    netmap_destroy (nm);
}

/* Two 4-rank cliques (A: even ranks, B: odd) on two 4-slot nodes behind a
 * slow link: block splits both cliques, the plan keeps each on one node.
 */
static void test_cliques (void)
{
    netmap_t *nm = netmap_of (2);
    map_slot_t slots[] = {{0, 4}, {1, 4}};
    triplets_t t = {0};
    profile_t *p;
    map_result_t res;
    tm_error_t err;
    map_candidate_t *top, *block;
    int same = 1;

    set_pair (nm, 0, 1, 100, 10);
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++)
            if (a != b && a % 2 == b % 2)
                add (&t, a, b, 1000, 1000000);
    p = profile_of (8, &t);
    ok (map_plan (p, nm, 2, slots, NULL, &res, &err) == 0, "cliques: plan made");
    top = cand_named (&res, "topomap");
    block = cand_named (&res, "block");
    for (int r = 2; r < 8; r++)
        if (top->node[r] != top->node[r % 2])
            same = 0;
    ok (same && top->node[0] != top->node[1], "cliques: each clique on one node");
    ok (top->internode_bytes == 0, "cliques: nothing crosses the slow link");
    ok (top->cost_s < block->cost_s, "cliques: the plan (%g s) is cheaper than block (%g s)",
        top->cost_s, block->cost_s);
    ok (strcmp (res.cand[res.chosen].name, "topomap") == 0 || res.cand[res.chosen].cost_s == 0,
        "cliques: the plan is chosen");
    ok (res.chosen != 1, "cliques: block is not chosen");
    ok (res.time_s >= 0 && res.time_s < 10, "cliques: planning time measured (%g s)", res.time_s);
    map_result_free (&res);
    profile_destroy (p);
    netmap_destroy (nm);
}

/* A 4x4 5-point stencil (16 ranks, 10 messages of 100 kB each way per
 * edge) on 4 nodes of 4 slots under two switches, the nodes listed
 * interleaved (h0, h2 on switch 0; h1, h3 on switch 1).
 *
 * The optimum: each node holds a 2x2 block, which cuts 8 of the 24 edges
 * (no partition of the grid into four sets of 4 cuts fewer); the two
 * blocks of each switch are one half of the grid, so 4 edges cross
 * between the switches (the grid's bisection width: no split into 8 and
 * 8 cuts fewer).  The 4 other cut edges stay within a switch.
 */
static void test_stencil (void)
{
    int sw[] = {0, 1, 0, 1};
    netmap_t *nm = netmap_switches (4, sw, 2, 10000, 20, 1000);
    map_slot_t slots[] = {{0, 4}, {1, 4}, {2, 4}, {3, 4}};
    triplets_t t = {0};
    profile_t *p;
    map_result_t res;
    tm_error_t err;
    map_candidate_t *top;
    int cut = 0, cross = 0;
    double opt;

    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            if (x < 3)
                add2 (&t, y * 4 + x, y * 4 + x + 1, 10, 100000);
            if (y < 3)
                add2 (&t, y * 4 + x, (y + 1) * 4 + x, 10, 100000);
        }
    p = profile_of (16, &t);
    ok (map_plan (p, nm, 4, slots, NULL, &res, &err) == 0, "stencil: plan made");
    top = cand_named (&res, "topomap");
    for (size_t k = 0; k < p->nentries; k++) {
        const profile_entry_t *e = &p->entries[k];
        if (e->src < e->dst && top->node[e->src] != top->node[e->dst]) {
            cut++;
            if (sw[top->node[e->src]] != sw[top->node[e->dst]])
                cross++;
        }
    }
    ok (cut == 8, "stencil: 8 edges between nodes, the optimum (%d)", cut);
    ok (cross == 4, "stencil: 4 edges between the switches, the optimum (%d)", cross);
    opt = 4 * 2 * (10 * 20e-6 + 100000 / 1e9) + 4 * 2 * (10 * 2e-6 + 100000 / 1e10);
    ok (fabs (top->cost_s - opt) < 1e-12, "stencil: cost %g s is the optimum's %g s", top->cost_s,
        opt);
    ok (top->internode_msgs == 160, "stencil: 160 inter-node messages (8 edges, 10 each way)");
    ok (res.cand[res.chosen].cost_s <= opt + 1e-12, "stencil: the chosen plan is optimal");
    map_result_free (&res);
    profile_destroy (p);
    netmap_destroy (nm);
}

/* A ring of 8 ranks, 1 MB each way between neighbours, on 4 nodes of 2
 * slots whose links run at 100, 10, 100 and 10 MB/s (a pair at the slower
 * end's rate), as on a cloud.  Block's ring visits fast and slow nodes in
 * turn: all four links between nodes are slow.  Chaining the slow nodes
 * (h0 h2 h1 h3) makes one of them fast, so the sum of pairs prices it 22%
 * below block; but a slow node still carries two neighbours at 10 MB/s,
 * as under block, and a step of the ring waits for it.  Block stays.
 */
static void test_busiest_link (void)
{
    const double rate[] = {100, 10, 100, 10};
    netmap_t *nm = netmap_of (4);
    map_slot_t slots[] = {{0, 2}, {1, 2}, {2, 2}, {3, 2}};
    triplets_t t = {0};
    profile_t *p;
    map_result_t res;
    tm_error_t err;
    map_candidate_t *top, *block;
    int rc;

    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            set_pair (nm, a, b, 50, fmin (rate[a], rate[b]));
    for (int r = 0; r < 8; r++)
        add2 (&t, r, (r + 1) % 8, 1, 1000000);
    p = profile_of (8, &t);
    ok (map_plan (p, nm, 4, slots, NULL, &res, &err) == 0, "busiest link: plan made");
    top = cand_named (&res, "topomap");
    block = cand_named (&res, "block");
    ok (top->cost_s < 0.8 * block->cost_s, "busiest link: the plan prices %.0f%% below block",
        100 * (1 - top->cost_s / block->cost_s));
    ok (top->link_s >= block->link_s,
        "busiest link: but loads the busiest link no less (%g s, block %g s)", top->link_s,
        block->link_s);
    ok (res.chosen == 1, "busiest link: block is chosen (%s)", res.cand[res.chosen].name);
    map_result_free (&res);

    /* Fast and slow nodes as two groups: pairs across them run at the slow
     * end's own rate, so no uplink limits them, and block stays. */
    set_groups (nm, 2, (const int[]){0, 1, 0, 1});
    rc = map_plan (p, nm, 4, slots, NULL, &res, &err);
    ok (rc == 0 && res.chosen == 1,
        "busiest link: groups of fast and slow nodes are no uplinks; block is chosen (%s)",
        rc == 0 ? res.cand[res.chosen].name : err.text);
    if (rc == 0)
        map_result_free (&res);
    profile_destroy (p);
    netmap_destroy (nm);
}

/* A one-way ring of 8 ranks, 1 MB to the next, on 4 nodes of 2 slots under
 * two switches, names interleaved (h0, h2 | h1, h3), 100 MB/s within a
 * switch and 10 across.  Block crosses the switches at every node; the
 * plan h0 h2 h1 h3 twice only.  Each node still sends one pair across
 * (h2 to h1, h3 to h0): its own link is no less busy.  But the pairs
 * leaving a switch share its uplink: block sends two through it, the plan
 * one.  Known as groups, the uplinks make the plan win.
 */
static void test_uplink (void)
{
    int sw[] = {0, 1, 0, 1};
    netmap_t *nm = netmap_switches (4, sw, 5, 100, 20, 10);
    map_slot_t slots[] = {{0, 2}, {1, 2}, {2, 2}, {3, 2}};
    triplets_t t = {0};
    profile_t *p;
    map_result_t res;
    tm_error_t err;

    for (int r = 0; r < 8; r++)
        add (&t, r, (r + 1) % 8, 1, 1000000);
    p = profile_of (8, &t);
    if (!ok (map_plan (p, nm, 4, slots, NULL, &res, &err) == 0, "uplink: plan made (%s)", err.text))
        goto out;
    ok (res.chosen == 1 &&
            cand_named (&res, "topomap")->cost_s < cand_named (&res, "block")->cost_s,
        "uplink: without groups, the cheaper plan loads a node link as block does: block (%s)",
        res.cand[res.chosen].name);
    map_result_free (&res);
    set_groups (nm, 2, sw);
    if (!ok (map_plan (p, nm, 4, slots, NULL, &res, &err) == 0,
             "uplink: plan made with the switches (%s)", err.text))
        goto out;
    ok (cand_named (&res, "topomap")->link_s < 0.6 * cand_named (&res, "block")->link_s,
        "uplink: the plan loads the busiest uplink half as much as block (%g s, block %g s)",
        cand_named (&res, "topomap")->link_s, cand_named (&res, "block")->link_s);
    ok (strcmp (res.cand[res.chosen].name, "topomap") == 0, "uplink: the plan is chosen (%s)",
        res.cand[res.chosen].name);
    map_result_free (&res);
out:
    profile_destroy (p);
    netmap_destroy (nm);
}

/* A host at a switch's edge sends 1 MB inside its switch and 1 MB across:
 * the uplink (10 MB/s) limits the second pair, the host's own link
 * (100 MB/s) carries its bytes at 100 MB/s.  With the switches known, the
 * busiest link is the uplink, not the host's link charged both pairs'
 * full time; without them, the host's link is charged the pair's time.
 */
static void test_edge_host (void)
{
    int sw[] = {0, 0, 1, 1};
    netmap_t *nm = netmap_switches (4, sw, 5, 100, 20, 10);
    int node[] = {0, 1, 2, 3};
    map_candidate_t c = {.node = node};
    triplets_t t = {0};
    profile_t *p;

    add (&t, 1, 0, 1, 1000000);
    add (&t, 1, 2, 1, 1000000);
    p = profile_of (4, &t);
    map_price (p, nm, MAP_COMBINED, &c);
    ok (fabs (c.link_s - (5e-6 + 0.01 + 20e-6 + 0.1)) < 1e-12,
        "edge host: without switches its link carries both pairs' time (%g s)", c.link_s);
    set_groups (nm, 2, sw);
    map_price (p, nm, MAP_COMBINED, &c);
    ok (fabs (c.link_s - (20e-6 + 0.1)) < 1e-12,
        "edge host: with them the uplink is the busiest link (%g s)", c.link_s);
    ok (fabs (c.cost_s - (5e-6 + 0.01 + 20e-6 + 0.1)) < 1e-12,
        "edge host: the total still prices the pair at the uplink's rate (%g s)", c.cost_s);
    add (&t, 1, 0, 1, 20000000);
    add (&t, 1, 2, 1, 1000000);
    profile_destroy (p);
    p = profile_of (4, &t);
    map_price (p, nm, MAP_COMBINED, &c);
    ok (fabs (c.link_s - (5e-6 + 0.2 + 20e-6 + 0.01)) < 1e-12,
        "edge host: its link is the busiest when it carries more, the uplink's pair at its own "
        "rate (%g s)",
        c.link_s);
    profile_destroy (p);
    netmap_destroy (nm);

    /* Three switches: {h0,h1} behind a slow uplink, {h2,h3} and {h4,h5}
     * linked at their hosts' own rate (no uplink of their own).  h1 sends
     * 1 MB to h2 and h3 sends 1 MB to h4: only the first pair is limited
     * by an uplink, so h2 receives it at its own rate; h4 receives the
     * second at the pair's.
     */
    {
        int sw3[] = {0, 0, 1, 1, 2, 2};
        netmap_t *nm3 = netmap_switches (6, sw3, 5, 100, 5, 100);
        int node3[] = {0, 1, 2, 3, 4, 5};
        map_candidate_t c3 = {.node = node3};

        for (int h = 2; h < 6; h++) {
            set_pair (nm3, 0, h, 20, 10);
            set_pair (nm3, 1, h, 20, 10);
        }
        set_groups (nm3, 3, sw3);
        add (&t, 1, 2, 1, 1000000);
        add (&t, 3, 4, 1, 2000000);
        p = profile_of (6, &t);
        map_price (p, nm3, MAP_BANDWIDTH, &c3);
        ok (fabs (c3.link_s - 0.1) < 1e-12,
            "three switches: the slow uplink is the busiest link (%g s)", c3.link_s);
        NETMAP_AT (nm3, bw_MBps, 1, 2) = 1; /* as an asymmetric CSV may say */
        map_price (p, nm3, MAP_BANDWIDTH, &c3);
        ok (fabs (c3.link_s - 1.0) < 1e-12,
            "three switches: the uplink follows the pair's figure (%g s)", c3.link_s);
        set_pair (nm3, 1, 2, 20, 10);
        profile_destroy (p);
        add (&t, 1, 2, 1, 100000);
        add (&t, 3, 4, 1, 3000000);
        p = profile_of (6, &t);
        map_price (p, nm3, MAP_BANDWIDTH, &c3);
        ok (fabs (c3.link_s - 0.03) < 1e-12,
            "three switches: a host without an uplink of its own pays its pairs in full (%g s)",
            c3.link_s);
        profile_destroy (p);
        netmap_destroy (nm3);
    }
}

/* The busiest link's time of 1 MB from host a to host b alone, in block
 * order on nm's hosts.
 */
static double pair_link_s (netmap_t *nm, int a, int b)
{
    int block[64];
    map_candidate_t c = {.node = block};
    triplets_t t = {0};
    profile_t *p;

    for (int r = 0; r < nm->n; r++)
        block[r] = r;
    add (&t, a, b, 1, 1000000);
    p = profile_of (nm->n, &t);
    map_price (p, nm, MAP_BANDWIDTH, &c);
    profile_destroy (p);
    free (t.t);
    return c.link_s;
}

/* Uplinks measured under load (topo_t.uplink_MBps): two switches of four
 * hosts whose pairs all measure 12.5 MB/s alone, as on a 2:1 fat tree,
 * and uplinks of 25 MB/s.  A ring of 1 MB edges laid across the switches
 * (every edge crosses) loads each uplink with 4 MB: 0.16 s, twice a
 * host's 0.08 s; in block order one edge each way crosses.  Without the
 * capacities both look alike.  In a three-level tree a pair loads the
 * measured uplinks on its way up to their nearest common switch only.
 */
static void test_uplink_capacity (void)
{
    int sw[] = {0, 0, 0, 0, 1, 1, 1, 1};
    netmap_t *nm = netmap_switches (8, sw, 10, 12.5, 20, 12.5);
    int block[] = {0, 1, 2, 3, 4, 5, 6, 7}, across[] = {0, 4, 1, 5, 2, 6, 3, 7};
    map_candidate_t b = {.node = block}, x = {.node = across};
    triplets_t t = {0};
    profile_t *p;

    for (int r = 0; r < 8; r++)
        add (&t, r, (r + 1) % 8, 1, 1000000);
    p = profile_of (8, &t);
    set_groups (nm, 2, sw);
    map_price (p, nm, MAP_BANDWIDTH, &b);
    map_price (p, nm, MAP_BANDWIDTH, &x);
    ok (fabs (b.link_s - 0.08) < 1e-12 && fabs (x.link_s - 0.08) < 1e-12,
        "uplinks: pairs alone cannot tell a ring across the switches (%g s, block %g s)", x.link_s,
        b.link_s);
    nm->topo->uplink_MBps[8] = nm->topo->uplink_MBps[9] = 25;
    map_price (p, nm, MAP_BANDWIDTH, &b);
    map_price (p, nm, MAP_BANDWIDTH, &x);
    ok (fabs (x.link_s - 0.16) < 1e-12,
        "uplinks: measured, the ring across loads each with 4 MB at 25 MB/s (%g s)", x.link_s);
    ok (fabs (b.link_s - 0.08) < 1e-12, "uplinks: in block order a host's link is busiest (%g s)",
        b.link_s);
    netmap_destroy (nm);

    /* hosts 0-7 under edge switches 8-11 (two each), 8 and 9 under
     * aggregation 12, 10 and 11 under 13, the core 14 */
    nm = netmap_switches (8, (int[]){0, 0, 1, 1, 2, 2, 3, 3}, 10, 12.5, 20, 12.5);
    topo_t *u = topo_alloc (TOPO_TREE, 8, 15, NULL);
    for (int h = 0; h < 8; h++) {
        u->parent[h] = 8 + h / 2;
        u->group[h] = h / 2;
    }
    for (int e = 0; e < 4; e++) {
        u->parent[8 + e] = 12 + e / 2;
        u->height[8 + e] = 1;
    }
    u->parent[12] = u->parent[13] = 14;
    u->height[12] = u->height[13] = 2;
    u->height[14] = 3;
    u->ngroups = 4;
    u->uplink_MBps[12] = 10;
    nm->topo = u;
    profile_destroy (p);
    free (t.t);
    double below = pair_link_s (nm, 0, 2), over = pair_link_s (nm, 0, 4);
    ok (fabs (below - 0.08) < 1e-12,
        "uplinks: a pair under one aggregation switch leaves its uplink alone (%g s)", below);
    ok (fabs (over - 0.1) < 1e-12,
        "uplinks: a pair across aggregations loads its uplink, 1 MB at 10 MB/s (%g s)", over);
    netmap_destroy (nm);
}

/* Hsu et al. §4.1-4.2 (processor reordering on a cluster grid): 9
 * processors in 3 clusters of 3, partition factor K = 3.  Each rank X
 * divides its block into K sub-blocks and sends one to each rank of its
 * residue class (X mod 3, the paper's realignment in logical ranks).
 * Without reordering (block) the communication table has |I| = 9 interior
 * and |E| = 18 external messages; the reordering F(X) = floor(X / C) +
 * (X mod C) * K puts rank X in cluster X mod C: |I| = 27, |E| = 0.
 */
static void test_reordering (void)
{
    int sw[] = {0, 1, 2};
    netmap_t *nm = netmap_switches (3, sw, 1, 1000, 50, 100);
    map_slot_t slots[] = {{0, 3}, {1, 3}, {2, 3}};
    triplets_t t = {0};
    profile_t *p;
    map_result_t res;
    tm_error_t err;
    map_candidate_t *top, *block, *chosen;
    int grouped = 1, f_ok = 1;

    for (int x = 0; x < 9; x++)
        for (int k = 0; k < 3; k++)
            add (&t, x, (x % 3) + 3 * k, 1, 1 << 20);
    p = profile_of (9, &t);
    ok (map_plan (p, nm, 3, slots, NULL, &res, &err) == 0, "reordering: plan made");
    top = cand_named (&res, "topomap");
    block = cand_named (&res, "block");
    chosen = &res.cand[res.chosen];
    ok (block->internode_msgs == 18 && p->total_msgs - block->internode_msgs == 9,
        "reordering: block has |E| = 18 external, |I| = 9 interior messages");
    ok (top->internode_msgs == 0 && chosen->internode_msgs == 0,
        "reordering: the plan has |E| = 0 external messages, |I| = 27");
    for (int x = 0; x < 9; x++) {
        int fx = x / 3 + (x % 3) * 3; /* F(X), processor; its cluster F(X) / 3 */
        if (top->node[x] != top->node[x % 3])
            grouped = 0;
        for (int y = 0; y < 9; y++)
            if ((top->node[x] == top->node[y]) != ((fx / 3) == (y / 3 + (y % 3) * 3) / 3))
                f_ok = 0;
    }
    ok (grouped, "reordering: ranks of one residue class share a cluster");
    ok (f_ok, "reordering: the clusters are those of the paper's F(X)");
    map_result_free (&res);
    profile_destroy (p);
    netmap_destroy (nm);
}

/* map_consecutive: a node order for pairs (r, r + 8) of 16 ranks on two
 * switches of four nodes of two: blocks k and k + 4 belong on one switch,
 * which block (nodes in host order) never does. */
static void test_consecutive (void)
{
    int sw[] = {0, 0, 0, 0, 1, 1, 1, 1}, bad[16], runs_ok = 1;
    netmap_t *nm = netmap_switches (8, sw, 5, 120, 50, 12);
    map_slot_t slots[8];
    triplets_t t = {0};
    profile_t *p;
    map_result_t res;
    map_candidate_t cons, block = {.name = "block"};
    tm_error_t err;

    for (int h = 0; h < 8; h++)
        slots[h] = (map_slot_t){h, 2};
    set_groups (nm, 2, sw);
    for (int r = 0; r < 8; r++)
        add2 (&t, r, r + 8, 100, 1 << 20);
    p = profile_of (16, &t);
    ok (map_plan (p, nm, 8, slots, NULL, &res, &err) == 0, "consecutive: plan made");
    ok (map_consecutive (p, nm, MAP_COMBINED, 8, slots, res.cand[0].node, &cons, &err) == 0,
        "consecutive: made from the free plan");
    block.node = malloc (16 * sizeof (int));
    map_layout_block (8, slots, block.node);
    map_price (p, nm, MAP_COMBINED, &block);
    for (int r = 1; r < 16; r++)
        for (int q = 0; q + 1 < r; q++)
            if (cons.node[q] == cons.node[r] && cons.node[r - 1] != cons.node[r])
                runs_ok = 0;
    ok (runs_ok && fits (nm, 8, slots, 16, cons.node),
        "consecutive: each node's ranks in one run, every node its count");
    ok (cons.cost_s < 0.5 * block.cost_s && !strcmp (cons.name, "consecutive"),
        "consecutive: %.3f ms against block's %.3f ms (every pair within a switch)",
        cons.cost_s * 1e3, block.cost_s * 1e3);
    free (cons.node);
    memcpy (bad, res.cand[0].node, sizeof (bad));
    bad[3] = 99;
    ok (map_consecutive (p, nm, MAP_COMBINED, 8, slots, bad, &cons, &err) == -1 &&
            errno == EINVAL && strstr (err.text, "rank 3 of the plan"),
        "consecutive: a plan off the step's nodes: %s", err.text);
    free (block.node);
    map_result_free (&res);
    profile_destroy (p);
    netmap_destroy (nm);
}

static void check_error (int rc, tm_error_t *err, const char *want, const char *what)
{
    ok (rc == -1 && strstr (err->text, want) != NULL, "%s: \"%s\"", what, err->text);
}

static void test_validate (void)
{
    netmap_t *nm = netmap_of (4);
    map_slot_t slots[] = {{0, 2}, {1, 2}};
    map_slot_t bad[2];
    triplets_t t = {0};
    profile_t *p, *empty;
    map_result_t res = {.ntasks = 12345};
    map_params_t params;
    tm_error_t err;
    int prev[4] = {0, 0, 0, 1};

    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            set_pair (nm, a, b, 5, 1000);
    add2 (&t, 0, 1, 1, 100);
    add2 (&t, 2, 3, 1, 100);
    p = profile_of (4, &t);
    empty = profile_of (4, &t);

    ok (map_validate (p, nm, 2, slots, &err) == 0, "validate: a good step passes");
    check_error (map_validate (empty, nm, 2, slots, &err), &err, "empty",
                 "validate: empty profile");
    memcpy (bad, slots, sizeof (bad));
    bad[1].count = 3;
    check_error (map_validate (p, nm, 2, bad, &err), &err, "take 5 ranks but the profile has 4",
                 "validate: task counts disagree, both named");
    bad[1].count = 1;
    check_error (map_validate (p, nm, 2, bad, &err), &err, "take 3 ranks but the profile has 4",
                 "validate: a profile recorded for more tasks");
    memcpy (bad, slots, sizeof (bad));
    bad[1].host = 4;
    check_error (map_validate (p, nm, 2, bad, &err), &err, "host index 4 out of range",
                 "validate: a host past the netmap");
    bad[1].host = -1;
    check_error (map_validate (p, nm, 2, bad, &err), &err, "host index -1 out of range",
                 "validate: a negative host");
    bad[1].host = 0;
    check_error (map_validate (p, nm, 2, bad, &err), &err, "both name host h0",
                 "validate: a host named twice");
    memcpy (bad, slots, sizeof (bad));
    bad[0].count = 0;
    bad[1].count = 4;
    check_error (map_validate (p, nm, 2, bad, &err), &err, "(host h0): 0 ranks",
                 "validate: a slot of no ranks");
    bad[0].count = -2;
    bad[1].count = 6;
    check_error (map_validate (p, nm, 2, bad, &err), &err, "(host h0): -2 ranks",
                 "validate: a slot of negative ranks");
    check_error (map_validate (p, nm, 0, slots, &err), &err, "no slots", "validate: no slots");

    NETMAP_AT (nm, lat_us, 0, 1) = NAN;
    check_error (map_validate (p, nm, 2, slots, &err), &err, "latency from host h0 to h1 is nan",
                 "validate: NaN latency between slot hosts");
    NETMAP_AT (nm, lat_us, 0, 1) = INFINITY;
    check_error (map_validate (p, nm, 2, slots, &err), &err, "latency from host h0 to h1 is inf",
                 "validate: infinite latency");
    NETMAP_AT (nm, lat_us, 0, 1) = -1;
    check_error (map_validate (p, nm, 2, slots, &err), &err, "latency from host h0 to h1 is -1",
                 "validate: negative latency");
    NETMAP_AT (nm, lat_us, 0, 1) = 0;
    check_error (map_validate (p, nm, 2, slots, &err), &err, "latency from host h0 to h1 is 0",
                 "validate: zero latency");
    NETMAP_AT (nm, lat_us, 0, 1) = 5;
    NETMAP_AT (nm, bw_MBps, 1, 0) = 0;
    check_error (map_validate (p, nm, 2, slots, &err), &err, "bandwidth from host h1 to h0 is 0",
                 "validate: zero bandwidth");
    NETMAP_AT (nm, bw_MBps, 1, 0) = NAN;
    check_error (map_validate (p, nm, 2, slots, &err), &err, "bandwidth from host h1 to h0 is nan",
                 "validate: NaN bandwidth");
    NETMAP_AT (nm, bw_MBps, 1, 0) = -INFINITY;
    check_error (map_validate (p, nm, 2, slots, &err), &err, "bandwidth from host h1 to h0 is -inf",
                 "validate: negative infinite bandwidth");
    NETMAP_AT (nm, bw_MBps, 1, 0) = 1000;
    NETMAP_AT (nm, bw_MBps, 1, 1) = 0;
    check_error (map_validate (p, nm, 2, slots, &err), &err, "intra-node bandwidth of host h1",
                 "validate: a measured intra-node bandwidth of 0");
    NETMAP_AT (nm, bw_MBps, 1, 1) = NAN;
    NETMAP_AT (nm, lat_us, 2, 3) = NAN;
    ok (map_validate (p, nm, 2, slots, &err) == 0,
        "validate: bad figures between hosts outside the step do not matter");

    map_params_default (&params);
    bad[0] = (map_slot_t){0, 2};
    bad[1] = (map_slot_t){1, 3};
    check_error (map_plan (p, nm, 2, bad, &params, &res, &err), &err, "the profile has 4",
                 "plan: refuses what validate refuses");
    ok (res.ntasks == 12345 && res.cand == NULL, "plan: leaves the result alone on error");
    params.previous = prev;
    check_error (map_plan (p, nm, 2, slots, &params, &res, &err), &err,
                 "previous plan: host h0 gets 3 ranks, the step gives it 2",
                 "plan: a previous plan that does not fit the step");
    prev[3] = 9;
    check_error (map_plan (p, nm, 2, slots, &params, &res, &err), &err, "host index 9",
                 "plan: a previous plan naming an unknown host");
    profile_destroy (p);
    profile_destroy (empty);
    netmap_destroy (nm);
}

/* A random case: up to maxslots nodes of 1..maxcount ranks on a netmap of
 * a few more hosts with random figures, a random sparse profile.
 */
typedef struct {
    netmap_t *nm;
    profile_t *p;
    int nslots;
    map_slot_t *slots;
} rcase_t;

static void rcase_make (rcase_t *c, int minslots, int maxslots, int maxcount)
{
    int nhosts, ntasks = 0;
    int *perm;
    triplets_t t = {0};

    c->nslots = rng_int (minslots, maxslots);
    nhosts = c->nslots + rng_int (0, 3);
    c->nm = netmap_of (nhosts);
    for (int a = 0; a < nhosts; a++) {
        for (int b = 0; b < nhosts; b++)
            if (a != b) {
                NETMAP_AT (c->nm, lat_us, a, b) = rng_real (1, 100);
                NETMAP_AT (c->nm, bw_MBps, a, b) = rng_real (10, 10000);
            }
        if (rng () % 2) {
            NETMAP_AT (c->nm, lat_us, a, a) = rng_real (0.1, 1);
            NETMAP_AT (c->nm, bw_MBps, a, a) = rng_real (5000, 20000);
        }
    }
    perm = malloc ((size_t)nhosts * sizeof (*perm));
    for (int h = 0; h < nhosts; h++)
        perm[h] = h;
    for (int h = nhosts - 1; h > 0; h--) {
        int k = rng_int (0, h), x = perm[h];
        perm[h] = perm[k];
        perm[k] = x;
    }
    c->slots = malloc ((size_t)c->nslots * sizeof (*c->slots));
    for (int s = 0; s < c->nslots; s++) {
        c->slots[s].host = perm[s];
        c->slots[s].count = rng_int (1, maxcount);
        ntasks += c->slots[s].count;
    }
    free (perm);
    int nent = rng_int (1, 4 * ntasks);
    for (int e = 0; e < nent; e++) {
        int a = rng_int (0, ntasks - 1), b = rng () % 8 == 0 ? a : rng_int (0, ntasks - 1);
        add (&t, a, b, (uint64_t)rng_int (1, 1000), (uint64_t)rng_int (0, 1 << 20));
    }
    c->p = profile_of (ntasks, &t);
}

static void rcase_free (rcase_t *c)
{
    profile_destroy (c->p);
    netmap_destroy (c->nm);
    free (c->slots);
}

static void test_random (void)
{
    int ncases = 300, planned = 0, allfit = 1, neverabove = 1, topo_le_block = 1, prevok = 1;
    int scotch_choice_fits = 1, chosen_min = 1, linkok = 1;

    for (int n = 0; n < ncases; n++) {
        rcase_t c;
        map_params_t params;
        map_result_t res;
        tm_error_t err;
        int *prev = NULL;

        rcase_make (&c, 1, n < 200 ? 8 : 40, n < 200 ? 6 : 24);
        map_params_default (&params);
        params.metric = (map_metric_t)(n % 3);
        if (n % 2) {
            /* a previous plan: a random permutation of block */
            prev = malloc ((size_t)c.p->ntasks * sizeof (*prev));
            map_layout_block (c.nslots, c.slots, prev);
            for (int i = c.p->ntasks - 1; i > 0; i--) {
                int k = rng_int (0, i), x = prev[i];
                prev[i] = prev[k];
                prev[k] = x;
            }
            params.previous = prev;
        }
        if (n % 5 == 4) {
            params.exact = 0;
            params.refine = n % 10 == 9;
        }
        if (map_plan (c.p, c.nm, c.nslots, c.slots, &params, &res, &err) < 0) {
            diag ("case %d: %s", n, err.text);
            rcase_free (&c);
            free (prev);
            continue;
        }
        planned++;
        map_candidate_t *block = cand_named (&res, "block");
        for (int k = 0; k < res.ncandidates; k++) {
            int f = fits (c.nm, c.nslots, c.slots, c.p->ntasks, res.cand[k].node);
            if (!f && !(k == 0 && !params.exact)) {
                diag ("case %d: candidate %s does not fit", n, res.cand[k].name);
                allfit = 0;
            }
            if (f && res.cand[k].cost_s < res.cand[res.chosen].cost_s &&
                res.cand[k].link_s < block->link_s)
                chosen_min = 0;
        }
        if (res.chosen != 1 && res.cand[res.chosen].link_s >= block->link_s)
            linkok = 0;
        if (!fits (c.nm, c.nslots, c.slots, c.p->ntasks, res.cand[res.chosen].node))
            scotch_choice_fits = 0;
        if (res.cand[res.chosen].cost_s > block->cost_s)
            neverabove = 0;
        if (params.exact && params.refine && res.cand[0].cost_s > block->cost_s * (1 + 1e-9)) {
            diag ("case %d: topomap %.17g above block %.17g", n, res.cand[0].cost_s, block->cost_s);
            topo_le_block = 0;
        }
        if (prev && (res.ncandidates != 4 || strcmp (res.cand[3].name, "previous") != 0 ||
                     memcmp (res.cand[3].node, prev, (size_t)c.p->ntasks * sizeof (int)) != 0))
            prevok = 0;
        map_result_free (&res);
        rcase_free (&c);
        free (prev);
    }
    ok (planned == ncases, "random: %d of %d cases planned", planned, ncases);
    ok (allfit, "random: every candidate gives every slot exactly its count");
    ok (scotch_choice_fits, "random: the chosen plan always fits, even without exact capacities");
    ok (neverabove, "random: the guard never returns a plan priced above block");
    ok (chosen_min, "random: the chosen plan is the cheapest that fits and loads the busiest link "
                    "less than block");
    ok (linkok, "random: a plan other than block loads the busiest link less than block");
    ok (topo_le_block, "random: the topomap plan itself is never above block");
    ok (prevok, "random: a previous plan is priced as given");
}

static void test_determinism (void)
{
    rcase_t c;
    map_result_t r1, r2, r3;
    map_params_t params;
    tm_error_t err;
    int same = 1;

    rng_state = 12345;
    rcase_make (&c, 8, 12, 16);
    map_params_default (&params);
    ok (map_plan (c.p, c.nm, c.nslots, c.slots, &params, &r1, &err) == 0 &&
            map_plan (c.p, c.nm, c.nslots, c.slots, &params, &r2, &err) == 0,
        "determinism: planned twice (%d ranks on %d nodes)", c.p->ntasks, c.nslots);
    for (int k = 0; k < r1.ncandidates; k++)
        if (memcmp (r1.cand[k].node, r2.cand[k].node, (size_t)c.p->ntasks * sizeof (int)) != 0 ||
            r1.cand[k].cost_s != r2.cand[k].cost_s)
            same = 0;
    ok (same && r1.chosen == r2.chosen, "determinism: the same inputs give the same plan");
    params.seed = 77;
    ok (map_plan (c.p, c.nm, c.nslots, c.slots, &params, &r3, &err) == 0 &&
            fits (c.nm, c.nslots, c.slots, c.p->ntasks, r3.cand[0].node),
        "determinism: another seed plans too, and fits");
    map_result_free (&r1);
    map_result_free (&r2);
    map_result_free (&r3);
    rcase_free (&c);
}

/* More nodes than the distance-aware target takes: Scotch maps onto a
 * weighted complete graph, the refinement places ranks on the network.
 */
static void test_many_nodes (void)
{
    int n = 1030;
    netmap_t *nm = netmap_of (n);
    map_slot_t *slots = malloc ((size_t)n * sizeof (*slots));
    triplets_t t = {0};
    profile_t *p;
    map_result_t res;
    tm_error_t err;
    int ntasks = 0;

    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            set_pair (nm, a, b, a / 64 == b / 64 ? 2 : 10, a / 64 == b / 64 ? 10000 : 1000);
    /* interleaved: slot s is host (s * 64) % n ... a permutation */
    for (int s = 0; s < n; s++) {
        slots[s].host = (int)(((long)s * 67) % n);
        slots[s].count = 1 + s % 2;
        ntasks += slots[s].count;
    }
    for (int r = 0; r < ntasks; r++)
        add2 (&t, r, (r + 1) % ntasks, 10, 10000);
    p = profile_of (ntasks, &t);
    ok (map_plan (p, nm, n, slots, NULL, &res, &err) == 0, "many nodes: plan made (%d nodes)", n);
    ok (fits (nm, n, slots, ntasks, res.cand[0].node), "many nodes: capacities exact");
    ok (res.cand[0].cost_s < cand_named (&res, "block")->cost_s,
        "many nodes: the plan (%g s) is cheaper than block (%g s)", res.cand[0].cost_s,
        cand_named (&res, "block")->cost_s);
    map_result_free (&res);
    profile_destroy (p);
    netmap_destroy (nm);
    free (slots);
}

/* A step big enough that the mapper refines its starts on two threads
 * (MAP_THREAD_MIN_RANKS): the greedy start beside Scotch, and on switches
 * (tree: 16 switches of 16 nodes, one partner a rank, which keeps the
 * V-cycles short) Scotch's start beside the multisection's once the
 * greedy one is done.  The plan is the same every time, never costs more
 * than Scotch's mapping made to fit (exact, not refined), and the stage
 * times add up to no more than the whole.
 */
static void large_step_case (const char *name, bool tree)
{
    int n = 256, per = 16, ntasks = n * per;
    netmap_t *nm = netmap_of (n);
    map_slot_t *slots = malloc ((size_t)n * sizeof (*slots));
    triplets_t t = {0};
    profile_t *p;
    map_result_t r1, r2, rep;
    map_params_t params;
    tm_error_t err;

    rng_state = 4242;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (tree)
                set_pair (nm, a, b, a / 16 == b / 16 ? 2 : 20, a / 16 == b / 16 ? 10000 : 1000);
            else
                set_pair (nm, a, b, rng_real (20, 200), rng_real (200, 2000));
    for (int s = 0; s < n; s++)
        slots[s] = (map_slot_t){.host = s, .count = per};
    for (int r = 0; r < ntasks; r++)
        for (int k = 0; k < (tree ? 1 : 3); k++)
            add2 (&t, r, rng_int (0, ntasks - 1), (uint64_t)rng_int (1, 50),
                  (uint64_t)rng_int (1000, 100000));
    p = profile_of (ntasks, &t);
    map_params_default (&params);
    ok (map_plan (p, nm, n, slots, &params, &r1, &err) == 0 &&
            map_plan (p, nm, n, slots, &params, &r2, &err) == 0,
        "large step, %s: planned twice (%d ranks on %d nodes)", name, ntasks, n);
    ok (memcmp (r1.cand[0].node, r2.cand[0].node, (size_t)ntasks * sizeof (int)) == 0 &&
            r1.cand[0].cost_s == r2.cand[0].cost_s && r1.chosen == r2.chosen,
        "large step, %s: the same plan both times", name);
    ok (fits (nm, n, slots, ntasks, r1.cand[0].node), "large step, %s: capacities exact", name);
    ok (isnan (r1.multisection_cost_s) == !tree, "large step, %s: the multisection %s", name,
        tree ? "priced" : "not made");
    params.refine = 0;
    ok (map_plan (p, nm, n, slots, &params, &rep, &err) == 0 &&
            fits (nm, n, slots, ntasks, rep.cand[0].node),
        "large step, %s: Scotch's mapping made to fit, not refined, fits", name);
    ok (r1.cand[0].cost_s <= rep.cand[0].cost_s,
        "large step, %s: the plan (%g s) costs no more than repaired Scotch (%g s)", name,
        r1.cand[0].cost_s, rep.cand[0].cost_s);
    ok (r1.scotch_s > 0 && r1.repair_s >= 0 && r1.refine_s > 0 &&
            r1.scotch_s + r1.repair_s + r1.refine_s <= r1.time_s && rep.refine_s == 0,
        "large step, %s: stage times %.3f + %.3f + %.3f s within %.3f s, none refining unrefined",
        name, r1.scotch_s, r1.repair_s, r1.refine_s, r1.time_s);
    map_result_free (&r1);
    map_result_free (&r2);
    map_result_free (&rep);
    profile_destroy (p);
    netmap_destroy (nm);
    free (slots);
}

/* The node refinement's helper thread (map_refine_nodes, a groups' graph
 * of 65 536 arcs or more): with and without it, the same layout to the
 * last rank, and never dearer than the start.  Built by hand: ns nodes of
 * per ranks, every talking rank talking to about deg others.  Random
 * figures, or (ties) switches of 16 nodes where only the ranks of even
 * nodes talk: the silent groups are alike, so many swaps gain exactly as
 * much, and the first best must win as in one pass.  The helper must have
 * run where two CPUs are ours.
 */
static void node_helper_case (const char *name, int ns, int per, int deg, bool ties)
{
    int n = ns * per;
    netmap_t *nm = netmap_of (ns);
    int *host = malloc ((size_t)ns * sizeof (*host)), *cap = malloc ((size_t)ns * sizeof (*cap));
    int *start = malloc ((size_t)n * sizeof (*start)), *one = malloc ((size_t)n * sizeof (*one));
    int *two = malloc ((size_t)n * sizeof (*two));
    char *link = calloc ((size_t)n * (size_t)n, 1);
    map_graph_t g = {.n = n};
    map_model_t m = {.nm = nm, .nslots = ns, .use_lat = 1, .use_bw = 1};
    cpu_set_t cpus;
    tm_error_t err;
    size_t narcs = 0;
    int rc1, rc2, ncpus = 1;

    if (sched_getaffinity (0, sizeof (cpus), &cpus) == 0)
        ncpus = CPU_COUNT (&cpus);
    rng_state = 777;
    for (int a = 0; a < ns; a++) {
        host[a] = a;
        cap[a] = per;
        for (int b = 0; b < ns; b++)
            if (a != b && ties)
                set_pair (nm, a, b, a / 16 == b / 16 ? 2 : 20, a / 16 == b / 16 ? 10000 : 1000);
            else if (a != b)
                set_pair (nm, a, b, rng_real (5, 100), rng_real (100, 5000));
    }
    m.host = host;
    m.cap = cap;
    m.typ_lat_s = 50e-6;
    m.typ_s_per_byte = 1 / 1e9;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < deg / 2; k++) {
            int j = rng_int (0, n - 1);
            if (ties && ((i / per) % 2 || (j / per) % 2))
                continue;
            if (j != i && !link[(size_t)i * n + j])
                link[(size_t)i * n + j] = link[(size_t)j * n + i] = 1, narcs += 2;
        }
    g.row = calloc ((size_t)n + 1, sizeof (*g.row));
    g.col = malloc (narcs * sizeof (*g.col));
    g.w = malloc (narcs * sizeof (*g.w));
    g.self_msgs = calloc ((size_t)n, sizeof (*g.self_msgs));
    g.self_bytes = calloc ((size_t)n, sizeof (*g.self_bytes));
    for (int i = 0; i < n; i++) {
        g.row[i + 1] = g.row[i];
        for (int j = 0; j < n; j++)
            if (link[(size_t)i * n + j]) {
                /* the same figures from both ends, out and in swapped */
                int lo = i < j ? i : j, hi = i < j ? j : i;
                double mm = 1 + (lo * 7 + hi) % 50, bb = 1000.0 * (1 + (lo * 13 + hi * 3) % 97);
                g.col[g.row[i + 1]] = j;
                g.w[g.row[i + 1]++] = (map_weight_t){mm, bb, mm, bb};
            }
    }
    for (int i = 0; i < n; i++)
        start[i] = one[i] = two[i] = i / per;
    rc1 = map_refine_nodes (&g, &m, one, 12, false, &err);
    rc2 = map_refine_nodes (&g, &m, two, 12, true, &err);
    ok (rc1 == 0 && (rc2 == 1 || (ncpus < 2 && rc2 == 0)),
        "node helper, %s: refined without and with it (%zu rank arcs, %d CPUs, helper %s)", name,
        narcs, ncpus, rc2 == 1 ? "ran" : "did not run");
    ok (memcmp (one, two, (size_t)n * sizeof (*one)) == 0,
        "node helper, %s: the same layout with the helper as without", name);
    ok (map_graph_cost (&g, &m, two) < map_graph_cost (&g, &m, start),
        "node helper, %s: cheaper than the start (%g < %g s)", name, map_graph_cost (&g, &m, two),
        map_graph_cost (&g, &m, start));
    map_graph_free (&g);
    netmap_destroy (nm);
    free (host);
    free (cap);
    free (start);
    free (one);
    free (two);
    free (link);
}

static void test_node_helper (void)
{
    node_helper_case ("random figures", 320, 8, 80, false);
    node_helper_case ("ties", 640, 4, 320, true);
}

static void test_plain_scotch (void)
{
    rcase_t c;
    map_params_t params;
    map_result_t res;
    tm_error_t err;

    rng_state = 999;
    rcase_make (&c, 4, 10, 10);
    map_params_default (&params);
    params.exact = 0;
    params.refine = 0;
    ok (map_plan (c.p, c.nm, c.nslots, c.slots, &params, &res, &err) == 0,
        "plain scotch: plan made");
    ok (res.ncandidates == 3 && strcmp (res.cand[0].name, "scotch") == 0 &&
            strcmp (res.cand[1].name, "block") == 0 && strcmp (res.cand[2].name, "cyclic") == 0,
        "plain scotch: candidates scotch, block, cyclic");
    ok (fits (c.nm, c.nslots, c.slots, c.p->ntasks, res.cand[res.chosen].node),
        "plain scotch: the chosen candidate fits");
    map_result_free (&res);
    rcase_free (&c);
}

static void test_explain (void)
{
    netmap_t *nm = netmap_of (2);
    map_slot_t slots[] = {{1, 2}, {0, 2}};
    triplets_t t = {0};
    profile_t *p;
    map_result_t res;
    tm_error_t err;
    char *buf = NULL;
    size_t len = 0;
    FILE *f;

    set_pair (nm, 0, 1, 30, 100);
    add2 (&t, 0, 2, 10, 1000000);
    add2 (&t, 1, 3, 10, 1000000);
    p = profile_of (4, &t);
    ok (map_plan (p, nm, 2, slots, NULL, &res, &err) == 0, "explain: plan made");
    f = open_memstream (&buf, &len);
    ok (map_explain (f, &res, nm) == 0, "explain: printed");
    fclose (f);
    ok (strstr (buf, "topomap") && strstr (buf, "block") && strstr (buf, "cyclic"),
        "explain: lists the candidates");
    ok (strstr (buf, "* topomap") || strstr (buf, "* cyclic"), "explain: marks the chosen one");
    ok (strstr (buf, "cost_ms") && strstr (buf, "internode_MB") && strstr (buf, "vs_block") &&
            strstr (buf, "link_ms"),
        "explain: has cost, inter-node traffic, busiest link and ratio columns");
    ok (strstr (buf, "h0 ") && strstr (buf, "h1 "), "explain: names the nodes of the chosen plan");
    diag ("%s", buf);
    free (buf);
    {
        /* Priced on the profile itself, each candidate's cost is its own. */
        char want[64];
        int all = 1;

        buf = NULL;
        f = open_memstream (&buf, &len);
        ok (map_explain_on (f, &res, p, nm) == 0, "explain on another profile: printed");
        fclose (f);
        for (int k = 0; k < res.ncandidates; k++) {
            snprintf (want, sizeof (want), "%c %-10s %14.3f ", k == res.chosen ? '*' : ' ',
                      res.cand[k].name, res.cand[k].cost_s * 1e3);
            all = all && strstr (buf, want);
        }
        ok (all && strstr (buf, "vs_block") && strstr (buf, "link_vs"),
            "explain on the plan's own profile: every candidate at its own cost, the choice "
            "marked");
        diag ("%s", buf);
        free (buf);
    }
    {
        /* Beyond MAP_EXPLAIN_NODES nodes, how many take how many ranks. */
        netmap_t *many = netmap_of (40);
        int node[81];
        map_candidate_t c = {.name = "block", .node = node};
        map_result_t r = {.ntasks = 81, .ncandidates = 1, .cand = &c, .chosen = 0};

        for (int k = 0; k < 81; k++)
            node[k] = k < 3 ? 7 : (k - 3) / 2 + (k - 3 >= 14);
        buf = NULL;
        f = open_memstream (&buf, &len);
        ok (map_explain (f, &r, many) == 0, "explain at 40 nodes: printed");
        fclose (f);
        ok (strstr (buf, "\n  40 nodes: 1 with 3 ranks, 39 with 2 ranks\n") && !strstr (buf, "h7 "),
            "explain at 40 nodes: a line of how many nodes take how many ranks, not a line a node");
        diag ("%s", buf);
        free (buf);
        netmap_destroy (many);
    }
    map_result_free (&res);
    map_result_free (&res);
    ok (res.cand == NULL, "map_result_free twice is harmless");
    map_result_free (NULL);
    profile_destroy (p);
    netmap_destroy (nm);
}

/* The multisection start.  8 nodes of 4 slots in a tree: racks of 2
 * nodes (1 us), pods of 2 racks (4 us), a core (16 us).  32 ranks form 4
 * cliques of 8 talking hard (rank r in clique 3r mod 4, so that block
 * mixes them), cliques 0 and 1, and 2 and 3, talking a little: the best
 * plan puts each clique on a rack and each talking pair of cliques in a
 * pod.  A line of 4 nodes and a cloud are no trees: no multisection.
 */
static void test_multisection (void)
{
    netmap_t *nm = netmap_of (8), *line = netmap_of (4), *cloud = netmap_of (5);
    map_slot_t slots[8], few[4], some[5];
    triplets_t t = {0};
    profile_t *p, *q, *r;
    map_result_t res;
    tm_error_t err;
    map_candidate_t *top;
    int racks = 1, pods = 1;

    for (int a = 0; a < 8; a++) {
        slots[a] = (map_slot_t){a, 4};
        set_pair (nm, a, a, 0.3, 30000);
        for (int b = a + 1; b < 8; b++)
            set_pair (nm, a, b,
                      a / 2 == b / 2   ? 1
                      : a / 4 == b / 4 ? 4
                                       : 16,
                      a / 2 == b / 2   ? 10000
                      : a / 4 == b / 4 ? 5000
                                       : 1000);
    }
    for (int a = 0; a < 32; a++)
        for (int b = a + 1; b < 32; b++) {
            int ca = 3 * a % 4, cb = 3 * b % 4;
            if (ca == cb)
                add2 (&t, a, b, 100, 1000000);
            else if (ca / 2 == cb / 2 && a % 3 == 0)
                add2 (&t, a, b, 10, 100000);
        }
    p = profile_of (32, &t);
    if (!ok (map_plan (p, nm, 8, slots, NULL, &res, &err) == 0, "multisection: plan made (%s)",
             err.text))
        return;
    top = cand_named (&res, "topomap");
    for (int a = 0; a < 32; a++)
        for (int b = 0; b < 32; b++) {
            int ca = 3 * a % 4, cb = 3 * b % 4;
            if (ca == cb && top->node[a] / 2 != top->node[b] / 2)
                racks = 0;
            if (ca / 2 == cb / 2 && top->node[a] / 4 != top->node[b] / 4)
                pods = 0;
        }
    ok (isfinite (res.multisection_cost_s) && res.multisection_s > 0,
        "multisection: the tree gives a multisection start (%g s, in %g s)",
        res.multisection_cost_s, res.multisection_s);
    ok (res.multisection_cost_s >= top->cost_s - 1e-15,
        "multisection: the plan (%g s) costs no more than it", top->cost_s);
    ok (racks && pods, "multisection: each clique on a rack, each talking pair in a pod");
    ok (res.best && (strcmp (res.best, "scotch") == 0 || strcmp (res.best, "greedy") == 0 ||
                     strcmp (res.best, "multisection") == 0),
        "multisection: the plan names its start (%s)", res.best ? res.best : "(null)");
    map_result_free (&res);

    for (int a = 0; a < 4; a++) {
        few[a] = (map_slot_t){a, 2};
        for (int b = a + 1; b < 4; b++)
            set_pair (line, a, b, 2.0 * (b - a), 1000.0 / (b - a));
    }
    add2 (&t, 0, 7, 10, 1000);
    q = profile_of (8, &t);
    ok (map_plan (q, line, 4, few, NULL, &res, &err) == 0 && isnan (res.multisection_cost_s),
        "multisection: a line of nodes is no tree, no multisection start");
    map_result_free (&res);

    for (int a = 0; a < 5; a++) {
        some[a] = (map_slot_t){a, 1};
        for (int b = a + 1; b < 5; b++)
            set_pair (cloud, a, b, 10 + 7 * a + 3 * b, 100 + 50 * a);
    }
    add2 (&t, 0, 4, 10, 1000);
    r = profile_of (5, &t);
    ok (map_plan (r, cloud, 5, some, NULL, &res, &err) == 0 && isnan (res.multisection_cost_s),
        "multisection: nor is a cloud");
    map_result_free (&res);
    profile_destroy (p);
    profile_destroy (q);
    profile_destroy (r);
    netmap_destroy (nm);
    netmap_destroy (line);
    netmap_destroy (cloud);
}

/* A symmetric graph for map_vcycle: n vertices, up to 16 edges each. */
typedef struct {
    int n, xadj[257], adj[256 * 16], load[256 * 16];
} vc_graph_t;

static void vc_build (vc_graph_t *g, int n, int (*w) (int, int, void *), void *arg)
{
    int k = 0;

    g->n = n;
    for (int a = 0; a < n; a++) {
        g->xadj[a] = k;
        for (int b = 0; b < n; b++) {
            int l = a == b ? 0 : w (a < b ? a : b, a < b ? b : a, arg);
            if (l > 0 && k < 256 * 16) {
                g->adj[k] = b;
                g->load[k++] = l;
            }
        }
    }
    g->xadj[n] = k;
}

static long long vc_cut (const vc_graph_t *g, const int *part)
{
    long long cut = 0;

    for (int a = 0; a < g->n; a++)
        for (int q = g->xadj[a]; q < g->xadj[a + 1]; q++)
            if (part[g->adj[q]] != part[a])
                cut += g->load[q];
    return cut;
}

/* Cliques of `size` (heavy) joined in a ring by light edges. */
static int vc_cliques (int a, int b, void *arg)
{
    int size = *(int *)arg;

    if (a / size == b / size)
        return 100;
    return b == a + size ? 1 : 0;
}

/* Each vertex with 3 partners drawn from a fixed sequence, loads 1..99. */
static int vc_random (int a, int b, void *arg)
{
    (void)arg;
    unsigned h = (unsigned)a * 2654435761u ^ (unsigned)b * 40503u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return h % 16 == 0 ? (int)(1 + h / 16 % 99) : 0;
}

static void test_vcycle (void)
{
    static vc_graph_t g;
    int size = 8, part[256], again[256], start[256], cap[4], sizes[4];
    long long before, after;
    tm_error_t err;
    bool together = true, fits = true;

    /* two cliques of 8 split across both parts: V-cycles put each in one */
    vc_build (&g, 16, vc_cliques, &size);
    for (int i = 0; i < 16; i++)
        part[i] = i % 2;
    cap[0] = cap[1] = 8;
    before = vc_cut (&g, part);
    ok (map_vcycle (16, g.xadj, g.adj, g.load, 2, cap, 1, 4, part, &err) == 0, "vcycle: runs (%s)",
        err.text);
    for (int i = 0; i < 16; i++)
        together = together && part[i] == part[i / 8 * 8];
    after = vc_cut (&g, part);
    ok (together && part[0] != part[8] && after == 16,
        "vcycle: two cliques split over two parts come together (cut %lld -> %lld: the 8 "
        "light edges, both ways)",
        before, after);

    /* four cliques of 6, scrambled over four parts */
    size = 6;
    vc_build (&g, 24, vc_cliques, &size);
    for (int i = 0; i < 24; i++)
        part[i] = (5 * i + i / 6) % 4;
    for (int c = 0; c < 4; c++)
        cap[c] = 6;
    before = vc_cut (&g, part);
    ok (map_vcycle (24, g.xadj, g.adj, g.load, 4, cap, 1, 4, part, &err) == 0,
        "vcycle: four scrambled cliques");
    after = vc_cut (&g, part);
    together = true;
    for (int i = 0; i < 24; i++)
        together = together && part[i] == part[i / 6 * 6];
    ok (together && after == 36,
        "vcycle: each clique in one part (cut %lld -> %lld: the 18 light edges, both ways)", before,
        after);
    memset (sizes, 0, sizeof (sizes));
    for (int i = 0; i < 24; i++)
        sizes[part[i]]++;
    ok (sizes[0] == 6 && sizes[1] == 6 && sizes[2] == 6 && sizes[3] == 6,
        "vcycle: and every part keeps its 6 (%d %d %d %d)", sizes[0], sizes[1], sizes[2], sizes[3]);

    /* a random graph from blocks, one part over its capacity: never a
     * larger cut, no part beyond the larger of its size and capacity, the
     * same result from the same seed
     */
    vc_build (&g, 200, vc_random, NULL);
    for (int i = 0; i < 200; i++)
        start[i] = i < 53 ? 0 : i < 100 ? 1 : i < 150 ? 2 : 3;
    for (int c = 0; c < 4; c++)
        cap[c] = 50;
    memcpy (part, start, sizeof (start));
    memcpy (again, start, sizeof (start));
    before = vc_cut (&g, start);
    ok (map_vcycle (200, g.xadj, g.adj, g.load, 4, cap, 7, 4, part, &err) == 0 &&
            map_vcycle (200, g.xadj, g.adj, g.load, 4, cap, 7, 4, again, &err) == 0,
        "vcycle: a random graph (%d arcs)", g.xadj[200]);
    after = vc_cut (&g, part);
    memset (sizes, 0, sizeof (sizes));
    for (int i = 0; i < 200; i++)
        sizes[part[i]]++;
    for (int c = 0; c < 4; c++)
        fits = fits && sizes[c] <= (c == 0 ? 53 : 50);
    ok (after < before, "vcycle: its cut falls (%lld -> %lld)", before, after);
    ok (fits, "vcycle: no part beyond the larger of its size and capacity (%d %d %d %d)", sizes[0],
        sizes[1], sizes[2], sizes[3]);
    ok (memcmp (part, again, sizeof (part)) == 0, "vcycle: the same seed, the same partition");
    memcpy (again, part, sizeof (part));
    ok (map_vcycle (200, g.xadj, g.adj, g.load, 4, cap, 8, 0, again, &err) == 0 &&
            memcmp (part, again, sizeof (part)) == 0,
        "vcycle: no cycles leave the partition as it is");
}

static void test_scotch_errors (void)
{
    map_scotch_error_clear ();
    SCOTCH_errorPrint ("graphMap: invalid %s (%d)", "thing", 3);
    SCOTCH_errorPrint ("second");
    SCOTCH_errorPrintW ("a warning");
    ok (strcmp (map_scotch_error (), "graphMap: invalid thing (3)") == 0,
        "Scotch's first error lands in the mapper's buffer");
    map_scotch_error_clear ();

    /* An error inside libscotch: a graph whose arcs do not match. */
    SCOTCH_Graph graf;
    SCOTCH_Num vert[] = {0, 1, 1}, edge[] = {1};
    FILE *tmp = tmpfile ();
    int saved = dup (2), rc;
    long len;

    if (!tmp || saved < 0) {
        ok (0, "a temporary file for stderr");
        return;
    }
    fflush (stderr);
    dup2 (fileno (tmp), 2);
    SCOTCH_graphInit (&graf);
    rc = SCOTCH_graphBuild (&graf, 0, 2, vert, NULL, NULL, NULL, 1, edge, NULL);
    if (rc == 0)
        rc = SCOTCH_graphCheck (&graf);
    SCOTCH_graphExit (&graf);
    fflush (stderr);
    dup2 (saved, 2);
    close (saved);
    fseek (tmp, 0, SEEK_END);
    len = ftell (tmp);
    fclose (tmp);
    ok (rc != 0 && strcmp (map_scotch_error (), "failed without saying why") != 0,
        "libscotch's own errors land there too (\"%s\")", map_scotch_error ());
    ok (len == 0, "and nothing is printed on stderr");
    map_scotch_error_clear ();
}

/* The odds (map_odds, netmap_spread): a plan made of pairs that merely
 * measured fast does not hold across the spread of pairs alike; one made
 * of the netmap's structure does, and the netmap is given back as it was.
 */
static profile_t *ring_profile (int n)
{
    triplets_t t = {0};

    for (int i = 0; i < n; i++)
        add2 (&t, i, (i + 1) % n, 100, 1 << 20);
    return profile_of (n, &t);
}

static void odds_case (netmap_t *nm, const char *what, bool structure)
{
    int n = nm->n;
    profile_t *p = ring_profile (n);
    map_slot_t *slots = calloc ((size_t)n, sizeof (*slots));
    double *before = malloc (2 * (size_t)n * (size_t)n * sizeof (*before));
    map_params_t params;
    map_result_t res;
    map_odds_t o, o2;
    netmap_spread_t *s;
    const profile_t *runs[1] = {p};
    map_candidate_t *block, *plan;
    double gain;
    tm_error_t err;

    for (int i = 0; i < n; i++)
        slots[i] = (map_slot_t){i, 1};
    memcpy (before, nm->lat_us, (size_t)n * (size_t)n * sizeof (*before));
    memcpy (before + (size_t)n * (size_t)n, nm->bw_MBps, (size_t)n * (size_t)n * sizeof (*before));
    map_params_default (&params);
    s = netmap_spread_new (nm, &err);
    ok (s != NULL, "%s: the spread is made", what);
    ok (map_plan (p, nm, n, slots, &params, &res, &err) == 0, "%s: planned", what);
    block = cand_named (&res, "block");
    plan = cand_named (&res, "topomap");
    gain = 1 - plan->cost_s / block->cost_s;
    ok (gain >= 0.05, "%s: the plan is predicted to gain %.1f%% over block", what, 100 * gain);
    ok (map_odds (runs, 1, nm, s, MAP_COMBINED, plan->node, block->node, 0.05, &o, &err) == 0,
        "%s: the odds are priced", what);
    ok (o.draws == MAP_ODDS_DRAWS, "%s: %d netmaps drawn", what, o.draws);
    /* The plan took the pairs that measured fast; the draws forget which
     * those were, so the plan's gain among them is lower than predicted. */
    ok (o.gain_lo <= o.gain_hi && o.link_lo <= o.link_hi && o.gain_lo < gain,
        "%s: predicted %.1f%%, %.1f%% to %.1f%% across the draws", what, 100 * gain,
        100 * o.gain_lo, 100 * o.gain_hi);
    if (structure)
        ok (o.wins >= MAP_ODDS_LEVEL * o.draws && o.gain_lo >= 0.8 * gain && o.link_lo >= 0.05,
            "%s: the plan holds: min_gain in %d of %d draws, the low end near the gain", what,
            o.wins, o.draws);
    else
        ok (o.wins < MAP_ODDS_LEVEL * o.draws && o.gain_lo < 0.05,
            "%s: the plan does not hold: min_gain in %d of %d draws", what, o.wins, o.draws);
    /* The ranges start where the decision does: a min_gain just above
     * either low end loses the odds. */
    map_odds (runs, 1, nm, s, MAP_COMBINED, plan->node, block->node, o.gain_lo + 1e-9, &o2, &err);
    ok (o2.wins < MAP_ODDS_LEVEL * o2.draws, "%s: min_gain above the gain's low end: %d of %d",
        what, o2.wins, o2.draws);
    map_odds (runs, 1, nm, s, MAP_COMBINED, plan->node, block->node, o.link_lo + 1e-9, &o2, &err);
    ok (o2.wins < MAP_ODDS_LEVEL * o2.draws,
        "%s: min_gain above the busiest link's low end: %d of %d", what, o2.wins, o2.draws);
    ok (!memcmp (before, nm->lat_us, (size_t)n * (size_t)n * sizeof (*before)) &&
            !memcmp (before + (size_t)n * (size_t)n, nm->bw_MBps,
                     (size_t)n * (size_t)n * sizeof (*before)),
        "%s: the netmap's figures are given back", what);
    map_odds (runs, 1, nm, s, MAP_COMBINED, plan->node, block->node, 0.05, &o2, &err);
    ok (!memcmp (&o, &o2, sizeof (o)), "%s: the odds are the same again", what);
    map_result_free (&res);
    netmap_spread_free (s);
    profile_destroy (p);
    free (slots);
    free (before);
}

/* Uplinks measured under load are drawn from their siblings alike: four
 * leaves of three hosts whose pairs all read alike, uplinks of 15 to 30
 * MB/s.  A ring laid across the leaves loads each uplink with 3 MB, so its
 * busiest link is the slowest uplink drawn; in block order a host's link
 * (0.08 s).  The busiest link's gain then has a range, the figures are
 * given back, and an uplink with no sibling alike keeps its own. */
static void test_odds_uplinks (void)
{
    int sw[12], block[12], across[12];
    netmap_t *nm;
    triplets_t t = {0};
    profile_t *p;
    netmap_spread_t *s;
    map_odds_t o = {0};
    tm_error_t err;
    double up[17], drawn[17];
    uint64_t rng = 1;
    int seen[17][4] = {{0}}, lone = 1, all = 1;

    for (int h = 0; h < 12; h++) {
        sw[h] = h / 3;
        block[h] = h;
        across[h] = (h % 4) * 3 + h / 4;
        add (&t, h, (h + 1) % 12, 1, 1000000);
    }
    nm = netmap_switches (12, sw, 10, 12.5, 20, 12.5);
    for (int a = 0; a < 12; a++)
        for (int b = 0; b < 12; b++)
            NETMAP_AT (nm, measured, a, b) = a != b;
    p = profile_of (12, &t);
    set_groups (nm, 4, sw);
    for (int g = 0; g < 4; g++)
        nm->topo->uplink_MBps[12 + g] = 15 + 5 * g;
    memcpy (up, nm->topo->uplink_MBps, sizeof (up));
    s = netmap_spread_new (nm, &err);
    int rc = s ? map_odds ((const profile_t *const[]){p}, 1, nm, s, MAP_BANDWIDTH, across, block,
                           0.05, &o, &err)
               : -1;
    ok (rc == 0 && o.draws == MAP_ODDS_DRAWS && o.link_lo < o.link_hi && o.link_hi < 0,
        "uplinks drawn: the ring across the leaves, %.1f%% to %.1f%% at the busiest link",
        100 * o.link_lo, 100 * o.link_hi);
    ok (!memcmp (up, nm->topo->uplink_MBps, sizeof (up)), "uplinks drawn: given back");
    for (int k = 0; s && k < 400; k++) {
        memcpy (drawn, up, sizeof (drawn));
        netmap_spread_draw_uplinks (s, up, &rng, drawn);
        for (int g = 0; g < 4; g++)
            seen[12 + g][(int)(drawn[12 + g] - 15) / 5]++;
    }
    for (int g = 0; g < 4; g++)
        for (int v = 0; v < 4; v++)
            all &= seen[12 + g][v] > 0;
    ok (all, "uplinks drawn: each leaf's takes every sibling's figure in 400 draws");
    netmap_spread_free (s);
    /* one leaf of two hosts: its uplink has no sibling alike */
    sw[11] = 3;
    sw[10] = 3;
    sw[9] = 2;
    set_groups (nm, 4, sw);
    for (int g = 0; g < 4; g++)
        nm->topo->uplink_MBps[12 + g] = 15 + 5 * g;
    memcpy (up, nm->topo->uplink_MBps, sizeof (up));
    s = netmap_spread_new (nm, &err);
    for (int k = 0; s && k < 100; k++) {
        memcpy (drawn, up, sizeof (drawn));
        netmap_spread_draw_uplinks (s, up, &rng, drawn);
        lone &= drawn[15] == 30 && drawn[14] == 25;
    }
    ok (s && lone, "uplinks drawn: leaves of four and of two hosts keep their own figures");
    netmap_spread_free (s);
    netmap_destroy (nm);
    profile_destroy (p);
    free (t.t);
}

/* A site's tree whose links the probe measured (lib/topology_links.h):
 * the pairs across a slow link are alike among themselves only, so a
 * draw keeps them slow. */
static void test_odds_slow_link (void)
{
    int n = 16, sw[16];
    netmap_t *nm = netmap_of (n);
    netmap_spread_t *s;
    uint32_t st0, st1;
    tm_error_t err;

    for (int h = 0; h < n; h++)
        sw[h] = h / 4;
    set_groups (nm, 4, sw);
    nm->topo->signal = TOPO_SIGNAL_SITE;
    /* every pair in a leaf, and n1, n5, n9, n13 between the leaves, as
     * topoconf_pairs measures them; leaf 2's uplink at half the rate */
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            bool across = sw[a] != sw[b], slow = across && (sw[a] == 1 || sw[b] == 1);
            set_pair (nm, a, b, across ? 40 : 20, slow ? 6 : 12);
            NETMAP_AT (nm, measured, a, b) = NETMAP_AT (nm, measured, b, a) =
                !across || (a % 4 == 0 && b % 4 == 0);
        }
    s = netmap_spread_new (nm, &err);
    ok (s && netmap_spread_alike (s, 0, 5, &st0) == 3 && netmap_spread_alike (s, 0, 9, &st1) == 3 &&
            st0 != st1,
        "a site's tree: the pairs across its slow link are alike among themselves");
    netmap_spread_free (s);

    /* leaf 2's four ranks send to leaf 1's: its uplink, half its nodes'
     * rate (MAP_UPLINK_RATIO's edge), is the busiest link once the probe
     * has found it slow, and not by the ratio alone */
    triplets_t tr = {0};
    int node[16];
    for (int i = 0; i < 4; i++)
        add2 (&tr, 4 + i, i, 1, 6 << 20);
    profile_t *p = profile_of (n, &tr);
    for (int i = 0; i < n; i++)
        node[i] = i;
    map_candidate_t c = {.node = node};
    int rc = map_price (p, nm, MAP_BANDWIDTH, &c);
    ok (rc == 0 && fabs (c.link_s - 4 * 1.048576) < 1e-6,
        "a site's slow uplink is the busiest link: %.3f s", c.link_s);
    nm->topo->signal = TOPO_SIGNAL_LATENCY;
    s = netmap_spread_new (nm, &err);
    ok (s && netmap_spread_alike (s, 0, 5, &st0) == 6,
        "an inferred tree: every pair of the level alike, as before");
    netmap_spread_free (s);
    rc = map_price (p, nm, MAP_BANDWIDTH, &c);
    ok (rc == 0 && fabs (c.link_s - 1.048576) < 1e-6,
        "an inferred tree: the ratio alone, the nodes' links the busiest: %.3f s", c.link_s);
    profile_destroy (p);
    netmap_destroy (nm);
}

/* A pair far slower than its leaf, whose hosts' other pairs there read
 * full rate, is a transient: left out of the draws, and the plan holds
 * (t2000's sampled probe: one leaf pair at 1452 us and 15.2 MB/s against
 * 20 us and 105).  A slow host, every pair of its own slow, is the
 * network and stays. */
static void test_odds_noise (void)
{
    int n = 8, sw[8];
    netmap_t *nm = netmap_of (n);
    netmap_spread_t *s;
    uint32_t st;
    tm_error_t err;

    for (int h = 0; h < n; h++)
        sw[h] = h % 2;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            double f = rng_real (0.9, 1.1);

            set_pair (nm, a, b, sw[a] == sw[b] ? 20 * f : 80 * f,
                      sw[a] == sw[b] ? 105 * f : 10 * f);
            /* 21 of 28 pairs, as a sampling plan measures some */
            NETMAP_AT (nm, measured, a, b) = NETMAP_AT (nm, measured, b, a) = (a + 2 * b) % 3 != 0;
        }
    set_groups (nm, 2, sw);
    set_pair (nm, 2, 6, 1452, 15.2);
    s = netmap_spread_new (nm, &err);
    ok (s && netmap_spread_alike (s, 0, 2, &st) == 4 && netmap_spread_alike (s, 2, 6, &st) == 4 &&
            netmap_spread_alike (s, 1, 3, &st) == 5,
        "a pair slower than its leaf, its hosts' other pairs full rate: not drawn");
    netmap_spread_free (s);
    odds_case (nm, "two switches, one pair read slow once", true);

    /* h0 slow on every pair: the slowest are its own, and its leaf's other
     * hosts have no pair alike of h0's at the rest's rate */
    set_pair (nm, 2, 6, 20, 105);
    for (int b = 1; b < n; b++)
        set_pair (nm, 0, b, sw[b] == 0 ? 200 : 300, sw[b] == 0 ? 15 : 5);
    s = netmap_spread_new (nm, &err);
    ok (s && netmap_spread_alike (s, 0, 2, &st) == 5 && netmap_spread_alike (s, 0, 1, &st) == 11,
        "a slow host: every pair of its drawn");
    netmap_spread_free (s);

    /* the leaf's pairs spread wide (0.55 to 1.6 times, as shared memory's
     * figures do): a slow pair is what a measurement there gives, drawn */
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (sw[a] == sw[b])
                set_pair (nm, a, b, 20, 105 * (a == 0 ? 0.55 : b % 4 == 0 ? 1.6 : 1));
    set_pair (nm, 2, 6, 1452, 15.2);
    s = netmap_spread_new (nm, &err);
    ok (s && netmap_spread_alike (s, 2, 6, &st) == 5, "a leaf spread wide: its slow pair drawn");
    netmap_spread_free (s);

    /* the leaf alike again, and no structure to tell which pairs are alike
     * (a cloud): pairs differ for real, every one drawn */
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (sw[a] == sw[b])
                set_pair (nm, a, b, 20, 105);
    set_pair (nm, 2, 6, 1452, 15.2);
    topo_destroy (nm->topo);
    nm->topo = NULL;
    s = netmap_spread_new (nm, &err);
    ok (s && netmap_spread_alike (s, 2, 4, &st) == 21, "no structure: every pair drawn");
    netmap_spread_free (s);
    netmap_destroy (nm);
}

static void test_odds (void)
{
    int n = 16, sw[16];
    netmap_t *nm = netmap_of (n);
    netmap_spread_t *s;
    uint32_t st0, st1, st2;
    map_odds_t o;
    tm_error_t err;

    /* Alike links measured 5 to 22 MB/s, as pairs that shared an uplink
     * inside a probe round do (issue 59): no structure to keep. */
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            set_pair (nm, a, b, rng_real (45, 55), rng_real (5, 22));
            NETMAP_AT (nm, measured, a, b) = NETMAP_AT (nm, measured, b, a) = 1;
        }
    odds_case (nm, "alike pairs, noisy", false);
    netmap_destroy (nm);

    /* Two switches, hosts interleaved, ten times slower across, +-15 %. */
    for (int h = 0; h < n; h++)
        sw[h] = h % 2;
    nm = netmap_of (n);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            double f = rng_real (0.85, 1.15);

            set_pair (nm, a, b, sw[a] == sw[b] ? 20 * f : 80 * f,
                      sw[a] == sw[b] ? 100 * f : 10 * f);
            NETMAP_AT (nm, measured, a, b) = NETMAP_AT (nm, measured, b, a) = 1;
        }
    set_groups (nm, 2, sw);
    s = netmap_spread_new (nm, &err);
    ok (netmap_spread_alike (s, 0, 2, &st0) == 28 && netmap_spread_alike (s, 1, 3, &st1) == 28 &&
            netmap_spread_alike (s, 0, 1, &st2) == 64 && st0 != st1 && st1 != st2,
        "a tree: pairs alike are those of one switch, or between the same two");
    ok (netmap_spread_alike (s, 4, 4, &st0) == 0, "a host alone has no pairs alike");
    netmap_spread_free (s);
    odds_case (nm, "two switches, interleaved", true);

    /* Figures no probe measured (a site's levels): they stand. */
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            NETMAP_AT (nm, measured, a, b) = 0;
    s = netmap_spread_new (nm, &err);
    {
        profile_t *p = ring_profile (n);
        const profile_t *runs[1] = {p};
        int *block = malloc ((size_t)n * sizeof (*block)),
            *other = malloc ((size_t)n * sizeof (*other));

        for (int i = 0; i < n; i++) {
            block[i] = i;
            other[i] = (i % 2) * (n / 2) + i / 2;
        }
        ok (map_odds (runs, 1, nm, s, MAP_COMBINED, other, block, 0.05, &o, &err) == 0 &&
                o.draws == 0 && o.wins == 0,
            "figures not measured are not drawn: they stand");
        free (block);
        free (other);
        profile_destroy (p);
    }
    netmap_spread_free (s);
    netmap_destroy (nm);
}

int main (void)
{
    plan (NO_PLAN);
    test_metrics ();
    test_layouts ();
    test_price ();
    test_metric_plans ();
    test_cliques ();
    test_stencil ();
    test_multisection ();
    test_vcycle ();
    test_busiest_link ();
    test_uplink ();
    test_edge_host ();
    test_uplink_capacity ();
    test_reordering ();
    test_consecutive ();
    test_odds ();
    test_odds_slow_link ();
    test_odds_uplinks ();
    test_odds_noise ();
    test_validate ();
    test_random ();
    test_determinism ();
    test_many_nodes ();
    large_step_case ("random", false);
    large_step_case ("switches", true);
    test_node_helper ();
    test_plain_scotch ();
    test_explain ();
    test_scotch_errors ();
    return done_testing ();
}
