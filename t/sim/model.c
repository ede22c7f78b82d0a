/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t/sim/model.c: the network model's simulator (make bench: BENCH model).
 *
 * Generates the netmap a probe would measure on a network of known shape,
 * feeds it to the inference the probe runs (topo_infer_net), and says
 * whether the shape came back: the tree exactly (every pair's hop count),
 * and the groups (edge switches) by the adjusted Rand index.  Then the
 * plan made from the measured netmap against the plan made from the true
 * one, both priced on the true one.
 *
 * Networks (hosts on edge switches; "levels" as topo_t counts them):
 *   ft2-full    2-level fat tree, 32 hosts a leaf (radix-64 leaf switches,
 *               half of the ports up), full bisection: one bandwidth
 *               everywhere, latency 1.0 / 1.5 us by level
 *   ft2-taper   the same, uplinks 3:1 tapered: 12 000 / 4 000 MB/s
 *   ft3-full    3-level fat tree, 4 leaves a pod: 1.0 / 1.5 / 2.0 us
 *   ft3-taper   uplinks 2:1 at each level: 12 000 / 6 000 / 3 000 MB/s
 *   dragonfly   4 hosts a router, 8 routers a group, all-to-all inside a
 *               group, global links between: 1.0 / 1.4 / 2.2 us,
 *               12 000 / 10 000 / 3 000 MB/s (taken as a tree of router,
 *               group and system)
 *   cloud       racks of 16 hosts whose pairs differ at random (latency
 *               20-60 us between racks, 10-20 within; bandwidth likewise):
 *               no tree; the groups should be the racks
 * Noise (--noise X, default 0.2): every directed figure times a factor in
 * 1 +- X; 0.5 % of latencies 2-4 times (outliers); 1 % of bandwidths
 * 1.5-2.5 times (a token bucket's burst).
 *
 * Plans (--plan, "all,sampled" by default): "all" measures every pair
 * and infers as the probe does; "sampled" runs the probe's sampling plan
 * (lib/sample.h), each pair it asks for read from the measured netmap,
 * and pairs_measured says how many it asked for.  time_s is the
 * inference's time (for "sampled", the plan's own: choosing pairs,
 * placing hosts, filling the rest), not the measuring.  "medians" is
 * "all" with every pair's figures then replaced by the medians of the
 * pairs between its two groups: the most a plan could know that measures
 * a few pairs a pair of groups, where no tree explains the rest (a
 * cloud's plan_cost_vs_true under it is the price of not measuring every
 * pair; make bench prints it).
 *
 * A flat switch of L edges costs a host about L / 2 pairs to find its
 * edge whatever the plan: two hosts' figures cannot tell sibling edges
 * apart.  Hence 32 hosts a leaf in the two-level fat trees (128 leaves at
 * 4096 hosts, as radix-64 leaf switches build them), not 16 (256 leaves,
 * over 8 N log2 N pairs for any plan).
 *
 * Usage: model [--nodes N[,N...]] [--topo T[,T...]] [--plan P[,P]]
 *              [--noise X] [--seed S]
 * Exit 1 when a fat tree or the dragonfly does not come back exactly.
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/mapper.h"
#include "lib/netmap.h"
#include "lib/profile.h"
#include "lib/sample.h"
#include "lib/stats.h"
#include "lib/topology.h"

static uint64_t rng_state = 1;

static double urand (void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* A network: n hosts, the edge switch of each and the switch above it
 * (up to three levels: edge, aggregation, top), and the true figures by
 * the level joining two hosts.
 */
typedef struct {
    const char *name;
    int per_edge, edges_per_agg; /* 0: two levels only */
    double lat[4], bw[4];        /* by level joining: 1 edge, 2, 3 */
    bool tree;                   /* a tree to find (not a cloud) */
} net_t;

static const net_t nets[] = {
    {"ft2-full", 32, 0, {0, 1.0, 1.5, 0}, {0, 12000, 12000, 0}, true},
    {"ft2-taper", 32, 0, {0, 1.0, 1.5, 0}, {0, 12000, 4000, 0}, true},
    {"ft3-full", 16, 4, {0, 1.0, 1.5, 2.0}, {0, 12000, 12000, 12000}, true},
    {"ft3-taper", 16, 4, {0, 1.0, 1.5, 2.0}, {0, 12000, 6000, 3000}, true},
    {"dragonfly", 4, 8, {0, 1.0, 1.4, 2.2}, {0, 12000, 10000, 3000}, true},
    {"cloud", 16, 0, {0}, {0}, false},
};

static int level_of (const net_t *t, int a, int b)
{
    if (a / t->per_edge == b / t->per_edge)
        return 1;
    if (!t->edges_per_agg)
        return 2;
    return a / (t->per_edge * t->edges_per_agg) == b / (t->per_edge * t->edges_per_agg) ? 2 : 3;
}

/* The true netmap of n hosts on t (cloud: drawn once from the seed). */
static netmap_t *net_true (const net_t *t, int n)
{
    char **names = malloc ((size_t)n * sizeof (*names));
    netmap_t *nm;

    for (int h = 0; h < n; h++) {
        names[h] = malloc (16);
        snprintf (names[h], 16, "n%d", h);
    }
    nm = netmap_create (n, (const char *const *)names, NULL);
    for (int h = 0; h < n; h++)
        free (names[h]);
    free (names);
    if (!nm)
        return NULL;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            double lat, bw;
            if (t->tree) {
                lat = t->lat[level_of (t, a, b)];
                bw = t->bw[level_of (t, a, b)];
            } else if (a / t->per_edge == b / t->per_edge) {
                lat = 10 + 10 * urand ();
                bw = 1000 + 1000 * urand ();
            } else {
                lat = 20 + 40 * urand ();
                bw = 100 + 400 * urand ();
            }
            NETMAP_AT (nm, lat_us, a, b) = NETMAP_AT (nm, lat_us, b, a) = lat;
            NETMAP_AT (nm, bw_MBps, a, b) = NETMAP_AT (nm, bw_MBps, b, a) = bw;
            NETMAP_AT (nm, samples, a, b) = NETMAP_AT (nm, samples, b, a) = 5;
        }
    return nm;
}

/* The netmap a probe would measure: each directed figure with noise. */
static netmap_t *net_measure (const netmap_t *truth, double noise)
{
    int n = truth->n;
    netmap_t *nm = netmap_create (n, (const char *const *)truth->hosts, NULL);

    if (!nm)
        return NULL;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            double lat = NETMAP_AT (truth, lat_us, a, b), bw = NETMAP_AT (truth, bw_MBps, a, b);
            if (a == b)
                continue;
            lat *= 1 + noise * (2 * urand () - 1);
            bw *= 1 + noise * (2 * urand () - 1);
            if (urand () < 0.005)
                lat *= 2 + 2 * urand ();
            if (urand () < 0.01)
                bw *= 1.5 + urand ();
            NETMAP_AT (nm, lat_us, a, b) = lat;
            NETMAP_AT (nm, bw_MBps, a, b) = bw;
            NETMAP_AT (nm, samples, a, b) = 5;
        }
    return nm;
}

/* Whether tree u gives every pair of t's hosts the hop count of t's shape
 * (1, 3, 5 for levels 1, 2, 3).
 */
static bool tree_exact (const net_t *t, const topo_t *u, int n)
{
    if (!u || u->model != TOPO_TREE)
        return false;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (topo_hops (u, a, b) != 2 * level_of (t, a, b) - 1)
                return false;
    return true;
}

/* Adjusted Rand index of two labelings of n items (Hubert & Arabie). */
static double ari (const int *x, const int *y, int n)
{
    int kx = 0, ky = 0;
    double sij = 0, sa = 0, sb = 0, all = (double)n * (n - 1) / 2, expect, max;
    long *tab, *ra, *cb;

    for (int i = 0; i < n; i++) {
        if (x[i] >= kx)
            kx = x[i] + 1;
        if (y[i] >= ky)
            ky = y[i] + 1;
    }
    tab = calloc ((size_t)kx * (size_t)ky, sizeof (*tab));
    ra = calloc ((size_t)kx, sizeof (*ra));
    cb = calloc ((size_t)ky, sizeof (*cb));
    for (int i = 0; i < n; i++) {
        tab[(size_t)x[i] * (size_t)ky + (size_t)y[i]]++;
        ra[x[i]]++;
        cb[y[i]]++;
    }
    for (size_t k = 0; k < (size_t)kx * (size_t)ky; k++)
        sij += (double)tab[k] * (double)(tab[k] - 1) / 2;
    for (int i = 0; i < kx; i++)
        sa += (double)ra[i] * (double)(ra[i] - 1) / 2;
    for (int j = 0; j < ky; j++)
        sb += (double)cb[j] * (double)(cb[j] - 1) / 2;
    free (tab);
    free (ra);
    free (cb);
    expect = sa * sb / all;
    max = (sa + sb) / 2;
    return max == expect ? 1 : (sij - expect) / (max - expect);
}

/* Every pair's figures in nm (both directions) replaced by the medians of
 * the measured pairs between its hosts' groups (group[h] < ng).  -1 when
 * out of memory.
 */
static int group_medians (netmap_t *nm, const int *group, int ng)
{
    size_t n = (size_t)nm->n, classes = (size_t)ng * (size_t)ng;
    size_t *start = calloc (classes + 1, sizeof (*start)), *fill = NULL;
    double *lat = NULL, *bw = NULL;
    int rc = -1;

    if (!start || !(fill = calloc (classes, sizeof (*fill))) ||
        !(lat = malloc (n * n * sizeof (*lat))) || !(bw = malloc (n * n * sizeof (*bw))))
        goto out;
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++)
            if (a != b)
                start[(size_t)group[a] * (size_t)ng + (size_t)group[b] + 1]++;
    for (size_t c = 0; c < classes; c++)
        start[c + 1] += start[c];
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++)
            if (a != b) {
                size_t c = (size_t)group[a] * (size_t)ng + (size_t)group[b],
                       k = start[c] + fill[c]++;
                lat[k] = nm->lat_us[a * n + b];
                bw[k] = nm->bw_MBps[a * n + b];
            }
    for (size_t c = 0; c < classes; c++)
        if (start[c + 1] > start[c]) {
            int k = (int)(start[c + 1] - start[c]);
            double ml = stats_median (lat + start[c], k), mb = stats_median (bw + start[c], k);
            lat[start[c]] = ml;
            bw[start[c]] = mb;
        }
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++)
            if (a != b) {
                size_t c = (size_t)group[a] * (size_t)ng + (size_t)group[b];
                nm->lat_us[a * n + b] = lat[start[c]];
                nm->bw_MBps[a * n + b] = bw[start[c]];
            }
    rc = 0;
out:
    free (start);
    free (fill);
    free (lat);
    free (bw);
    return rc;
}

/* A 2-D stencil of n ranks, one a host: the profile the plans are for. */
static profile_t *stencil (int n)
{
    int cols = (int)sqrt ((double)n);
    size_t k = 0, cap = (size_t)n * 4;
    profile_entry_t *tr;
    profile_t *p;

    while (n % cols)
        cols--;
    tr = malloc (cap * sizeof (*tr));
    for (int r = 0; r < n; r++) {
        int x = r % cols, y = r / cols, rows = n / cols;
        int nb[4] = {y * cols + (x + 1) % cols, y * cols + (x + cols - 1) % cols,
                     ((y + 1) % rows) * cols + x, ((y + rows - 1) % rows) * cols + x};
        for (int d = 0; d < 4; d++)
            if (nb[d] != r)
                tr[k++] = (profile_entry_t){r, nb[d], 100, 100 * 65536};
    }
    p = profile_create (n, k, tr, NULL);
    free (tr);
    return p;
}

/* The plan made from measured, priced on truth, over the plan made from
 * truth; NaN when a plan fails.
 */
static double plan_vs_true (const netmap_t *truth, const netmap_t *measured)
{
    int n = truth->n;
    map_slot_t *slots = malloc ((size_t)n * sizeof (*slots));
    profile_t *p = stencil (n);
    map_result_t rt = {0}, rm = {0};
    map_candidate_t c = {0};
    double r = NAN;
    tm_error_t e;

    for (int h = 0; h < n; h++)
        slots[h] = (map_slot_t){.host = h, .count = 1};
    if (p && map_plan (p, truth, n, slots, NULL, &rt, &e) == 0 &&
        map_plan (p, measured, n, slots, NULL, &rm, &e) == 0) {
        c = rm.cand[0];
        if (map_price (p, truth, rt.metric, &c) == 0 && rt.cand[0].cost_s > 0)
            r = c.cost_s / rt.cand[0].cost_s;
    }
    map_result_free (&rt);
    map_result_free (&rm);
    profile_destroy (p);
    free (slots);
    return r;
}

static double now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The sampling plan (lib/sample.h) run as the probe runs it, each pair
 * it asks for read from the measured netmap (both directions).  Returns
 * the netmap it saw, filled, with its topology in *u, the pairs it
 * measured and the plan's own time (the measuring left out); NULL with
 * errp set.
 */
static netmap_t *sample_run (const netmap_t *measured, const topo_params_t *tp, unsigned seed,
                             topo_t **u, long *pairs, double *dt, tm_error_t *errp)
{
    int n = measured->n, k;
    netmap_t *seen = netmap_create (n, (const char *const *)measured->hosts, errp);
    sample_t *sp = NULL;
    const pairs_t *ask;
    double t0;

    *u = NULL;
    if (!seen)
        return NULL;
    t0 = now ();
    if (!(sp = sample_create (n, seen->lat_us, seen->bw_MBps, seen->measured, tp, seed, errp)))
        goto fail;
    *dt = 0;
    while ((k = sample_next (sp, &ask, errp)) > 0) {
        *dt += now () - t0;
        for (int i = 0; i < k; i++)
            for (int d = 0; d < 2; d++) {
                int a = d ? ask[i].b : ask[i].a, b = d ? ask[i].a : ask[i].b;
                NETMAP_AT (seen, lat_us, a, b) = NETMAP_AT (measured, lat_us, a, b);
                NETMAP_AT (seen, bw_MBps, a, b) = NETMAP_AT (measured, bw_MBps, a, b);
                NETMAP_AT (seen, samples, a, b) = NETMAP_AT (measured, samples, a, b);
                NETMAP_AT (seen, measured, a, b) = 1;
            }
        t0 = now ();
    }
    if (k < 0 || !(*u = sample_finish (sp, errp)))
        goto fail;
    *dt += now () - t0;
    *pairs = sample_measured (sp);
    sample_destroy (sp);
    return seen;
fail:
    sample_destroy (sp);
    netmap_destroy (seen);
    return NULL;
}

static int split (char *s, char **out, int max)
{
    int k = 0;
    for (char *tok = strtok (s, ","); tok && k < max; tok = strtok (NULL, ","))
        out[k++] = tok;
    return k;
}

static void usage (void)
{
    fprintf (
        stderr,
        "usage: model [--nodes N[,N...]] [--topo T[,T...]] [--plan all|sampled|medians[,...]]\n"
        "             [--noise X] [--seed S]\n"
        "topologies: ft2-full ft2-taper ft3-full ft3-taper dragonfly cloud\n");
    exit (2);
}

int main (int argc, char **argv)
{
    int sizes[16] = {64, 512}, nsizes = 2, ntopos = 0, nplans = 2, failed = 0;
    char *topos[16], *plans[3] = {"all", "sampled"};
    double noise = 0.2;
    uint64_t seed = 1;

    for (int i = 1; i < argc; i++) {
        char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage ();
        if (strcmp (argv[i], "--nodes") == 0) {
            char *s[16];
            nsizes = split (v, s, 16);
            for (int k = 0; k < nsizes; k++)
                if ((sizes[k] = atoi (s[k])) < 2)
                    usage ();
        } else if (strcmp (argv[i], "--topo") == 0)
            ntopos = split (v, topos, 16);
        else if (strcmp (argv[i], "--plan") == 0) {
            nplans = split (v, plans, 3);
            for (int k = 0; k < nplans; k++)
                if (strcmp (plans[k], "all") != 0 && strcmp (plans[k], "sampled") != 0 &&
                    strcmp (plans[k], "medians") != 0)
                    usage ();
        } else if (strcmp (argv[i], "--noise") == 0)
            noise = atof (v);
        else if (strcmp (argv[i], "--seed") == 0)
            seed = strtoull (v, NULL, 10);
        else
            usage ();
        i++;
    }
    if (ntopos == 0)
        for (size_t k = 0; k < sizeof (nets) / sizeof (nets[0]); k++)
            topos[ntopos++] = (char *)nets[k].name;
    for (int s = 0; s < nsizes; s++)
        for (int q = 0; q < ntopos; q++) {
            const net_t *t = NULL;
            int n = sizes[s], *want;
            netmap_t *truth, *measured;
            tm_error_t e = {""};
            topo_params_t tp;
            topo_t *u;
            double t0, dt, a, cost;
            bool exact;

            for (size_t k = 0; k < sizeof (nets) / sizeof (nets[0]); k++)
                if (strcmp (nets[k].name, topos[q]) == 0)
                    t = &nets[k];
            if (!t)
                usage ();
            rng_state = seed * 1000003 + (uint64_t)n * 31 + (uint64_t)q;
            truth = net_true (t, n);
            measured = truth ? net_measure (truth, noise) : NULL;
            if (!measured) {
                fprintf (stderr, "model: out of memory at %d nodes\n", n);
                return 1;
            }
            want = malloc ((size_t)n * sizeof (*want));
            for (int h = 0; h < n; h++)
                want[h] = h / t->per_edge;
            for (int pl = 0; pl < nplans; pl++) {
                bool sampled = strcmp (plans[pl], "sampled") == 0;
                netmap_t *seen = measured;
                long pairs = (long)n * (n - 1) / 2;

                topo_params_default (&tp);
                if (sampled) {
                    if (!(seen = sample_run (measured, &tp, (unsigned)seed, &u, &pairs, &dt, &e))) {
                        fprintf (stderr, "model: %s at %d nodes: sampling: %s\n", t->name, n,
                                 e.text);
                        return 1;
                    }
                } else {
                    t0 = now ();
                    u = topo_infer_net (n, measured->lat_us, measured->bw_MBps, &tp, &e);
                    dt = now () - t0;
                }
                exact = t->tree && tree_exact (t, u, n);
                a = u ? ari (u->group, want, n) : 0;
                topo_destroy (seen->topo);
                seen->topo = u;
                /* planned as the plugin plans (lib/netmap.h), on a copy of
                 * the figures: every pair's are the next plan's input */
                size_t bytes = (size_t)n * (size_t)n * sizeof (double);
                double *keep = malloc (2 * bytes);
                if (!keep) {
                    fprintf (stderr, "model: out of memory\n");
                    return 1;
                }
                memcpy (keep, seen->lat_us, bytes);
                memcpy (keep + (size_t)n * (size_t)n, seen->bw_MBps, bytes);
                if (netmap_plan_figures (seen, &e) < 0) {
                    fprintf (stderr, "model: %s\n", e.text);
                    return 1;
                }
                if (strcmp (plans[pl], "medians") == 0 && !u) {
                    fprintf (stderr, "model: %s at %d nodes: no groups to take medians of\n",
                             t->name, n);
                    return 1;
                }
                if (strcmp (plans[pl], "medians") == 0 &&
                    group_medians (seen, u->group, u->ngroups) < 0) {
                    fprintf (stderr, "model: out of memory\n");
                    return 1;
                }
                cost = plan_vs_true (truth, seen);
                memcpy (seen->lat_us, keep, bytes);
                memcpy (seen->bw_MBps, keep + (size_t)n * (size_t)n, bytes);
                free (keep);
                printf (
                    "BENCH model nodes=%d topo=%s noise=%.2f plan=%s pairs_measured=%ld "
                    "pairs_total=%lld tree_exact=%d ari=%.4f plan_cost_vs_true=%.4f time_s=%.4f "
                    "model=%s signal=%s residual=%.3f\n",
                    n, t->name, noise, plans[pl], pairs, (long long)n * (n - 1) / 2, exact, a, cost,
                    dt,
                    !u                      ? "none"
                    : u->model == TOPO_TREE ? "tree"
                                            : "groups",
                    u && u->signal == TOPO_SIGNAL_BANDWIDTH ? "bandwidth" : "latency",
                    u ? u->residual : NAN);
                fflush (stdout);
                if (t->tree && !exact) {
                    fprintf (stderr,
                             "model: %s at %d nodes, plan %s: the tree did not come back%s%s\n",
                             t->name, n, plans[pl], e.text[0] ? ": " : "", e.text);
                    failed = 1;
                }
                if (seen != measured)
                    netmap_destroy (seen);
            }
            free (want);
            netmap_destroy (measured);
            netmap_destroy (truth);
        }
    return failed;
}
