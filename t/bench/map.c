/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t/bench/map.c: benchmark of the mapper on synthetic cases.
 *
 *   map [--large] [--ranks N[,N...]] [--pattern P[,P...]] [--topo T[,T...]]
 *       [--slots-per-node K] [--dump DIR]
 *
 * For every size, pattern and topology it plans once with map_plan() and
 * prints one line
 *
 *   BENCH map ranks=N pattern=P topo=T time_s=X scotch_s=Xs repair_s=Xr
 *             refine_s=Xf multisection_s=Xm cost_vs_block=Y cyclic=Yc
 *             random=Yr scotch_repaired=Ysr greedy=Yg scotch=Ys
 *             scotch_overfull=K multisection=Ym
 *   BENCH map_best ranks=N pattern=P topo=T best=S chosen=C
 *
 * time_s is map_plan's own planning time, and of it scotch_s Scotch's
 * mapping, repair_s the capacity repair, refine_s the refinement of it and
 * of the other starts, multisection_s (within refine_s) making and refining
 * the multisection start (the rest builds the graph and prices the
 * candidates); best is the start the plan came from (scotch, greedy,
 * multisection, block, cyclic), chosen the candidate map_plan's guard
 * chose (topomap, block, cyclic); every other figure is a
 * layout's cost under the model (combined metric) over block's:
 *   cost_vs_block  the "topomap" candidate (Scotch, exact capacities,
 *                  refinement)
 *   cyclic         srun's cyclic layout
 *   random         a random capacity-respecting permutation (fixed seed)
 *   scotch_repaired  Scotch's mapping (CloudMap's method) made to fit the
 *                  capacities by the repair topomap applies, not refined
 *                  (exact = 1, refine = 0): the fair peer
 *   greedy         an MPIPP-style greedy baseline (below)
 *   scotch         plain Scotch (exact = 0, refine = 0), priced as it is:
 *                  it may break the capacities, and scotch_overfull beside
 *                  it counts the nodes it gives more ranks than their
 *                  slots, a layout no user could run when above 0
 *   multisection   the multisection start (mapper_multisection.c), made to
 *                  fit and refined; "none" where the nodes are no tree
 * The exit status is 1 when a case has cost_vs_block above 1, above
 * scotch_repaired, above multisection, or above scotch where
 * scotch_overfull is 0, or planned
 * longer than its target (256 ranks: 10 ms, 4096: 1 s, 65536: 5 s; the
 * next size up for other counts), with the reason on stderr.
 *
 * Sizes: 256 and 4096 ranks by default; --large adds 65536.  Nodes take
 * 16 ranks (256 ranks: 16 nodes, 4096: 256 nodes); 65536 ranks take 64
 * per node, 1024 nodes, since 4096 nodes would make each netmap matrix
 * 16.7 M entries (half a gigabyte for the four) and a probe of 8.4 M
 * pairs that no allocation would run.  --slots-per-node overrides both.
 *
 * Patterns (messages and bytes per neighbour and direction; NPB shapes
 * approximate the neighbour sets of the kernels, not their exact volumes):
 *   stencil2d  5-point halo exchange on a near-square 2-D process grid
 *   stencil3d  7-point halo exchange on a near-cubic 3-D process grid
 *   ring       periodic 1-D neighbours
 *   bt         NPB BT/SP: the multi-partition on a q x q grid (q^2 ranks,
 *              q the nearest square root), each cell exchanging with its
 *              x, y and z sweep neighbours: (+-1, 0), (0, +-1) and the
 *              diagonal (+1, -1), (-1, +1), periodic
 *   lu         NPB LU: 2-D grid, the wavefront pipeline (many small
 *              messages east and south, then west and north) plus a
 *              few large halo exchanges with the 4 neighbours
 *   cg         NPB CG: nprows x npcols grid (npcols = nprows or
 *              2 nprows), recursive-doubling exchanges within each row
 *              (partners at column distances 1, 2, 4, ...) and the
 *              transpose exchange between (r, c) and its mirror
 *   random     6 random partners per rank, random volumes
 * Topologies (hosts n0, n1, ... in srun's order):
 *   2switch    two switches, host h on switch h mod 2 (names interleaved
 *              across the switches, so block and cyclic spread neighbours
 *              over the slow uplink): 2 us / 10 GB/s within a switch,
 *              10 us / 1 GB/s across
 *   tree3      a 3-level tree: racks of 8 hosts, pods of 4 racks, a core;
 *              1.5 us / 12 GB/s within a rack, 4 us / 6 GB/s within a pod,
 *              8 us / 2 GB/s across pods; hosts listed rack after rack
 *   cloud      every pair drawn at random: 20..200 us, 0.2..2 GB/s
 * All with intra-node figures measured (0.3 us, 30 GB/s; cloud 1 us,
 * 8 GB/s).  T+node (2switch+node, ...) adds the inside of the nodes: 2
 * packages of 4 L3 domains of 2 CPUs, 0.2 us / 40 GB/s within an L3
 * domain, 0.35 us / 25 GB/s within a package, 0.6 us / 15 GB/s across
 * (2-3 times apart, as on current two-socket parts), and prices the plan
 * with the inside pass against block with block core binding: its own
 * line, see run_node_case.
 *
 * Greedy (after MPIPP's heuristic): ranks are placed one at a time, next
 * the unplaced rank with the most traffic to placed ones (at first, the
 * one with the most traffic); it goes to the node with room that adds
 * least cost to what is placed, among the nodes of its placed neighbours
 * and the node with room nearest the node of its heaviest one (at first,
 * the node with most room).
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/heap.h"
#include "lib/mapper.h"
#include "lib/netmap.h"
#include "lib/profile.h"

static uint64_t rng_state;

static uint64_t rng (void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static double rng_real (double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rng () >> 11) / 9007199254740992.0);
}

static double now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *xmalloc (size_t n)
{
    void *p = malloc (n ? n : 1);

    if (!p) {
        fprintf (stderr, "map: out of memory\n");
        exit (2);
    }
    return p;
}

/* Triplets */

typedef struct {
    profile_entry_t *t;
    size_t n, max;
} triplets_t;

static void add (triplets_t *t, int src, int dst, uint64_t msgs, uint64_t bytes)
{
    if (src == dst)
        return;
    if (t->n == t->max) {
        t->max = t->max ? 2 * t->max : 1024;
        if (!(t->t = realloc (t->t, t->max * sizeof (*t->t)))) {
            fprintf (stderr, "map: out of memory\n");
            exit (2);
        }
    }
    t->t[t->n++] = (profile_entry_t){src, dst, msgs, bytes};
}

static void add2 (triplets_t *t, int a, int b, uint64_t msgs, uint64_t bytes)
{
    add (t, a, b, msgs, bytes);
    add (t, b, a, msgs, bytes);
}

/* Factor n into d near-equal factors (products of its prime factors). */
static void factor (int n, int d, int *f)
{
    for (int k = 0; k < d; k++)
        f[k] = 1;
    for (int p = 2; n > 1;) {
        if (n % p == 0) {
            int small = 0;
            for (int k = 1; k < d; k++)
                if (f[k] < f[small])
                    small = k;
            f[small] *= p;
            n /= p;
        } else
            p++;
    }
}

static int isqrt (int n)
{
    int q = (int)sqrt ((double)n);

    while (q * q > n)
        q--;
    while ((q + 1) * (q + 1) <= n)
        q++;
    return q;
}

static profile_t *make_profile (const char *pattern, int n)
{
    triplets_t t = {0};
    tm_error_t err;
    profile_t *p;

    if (strcmp (pattern, "stencil2d") == 0 || strcmp (pattern, "lu") == 0) {
        int f[2];
        factor (n, 2, f);
        int px = f[0], py = f[1];
        for (int y = 0; y < py; y++)
            for (int x = 0; x < px; x++) {
                int i = y * px + x;
                if (strcmp (pattern, "stencil2d") == 0) {
                    if (x + 1 < px)
                        add2 (&t, i, i + 1, 100, 100 * 32768);
                    if (y + 1 < py)
                        add2 (&t, i, i + px, 100, 100 * 32768);
                } else {
                    /* wavefront: small messages east and south, then back */
                    if (x + 1 < px) {
                        add2 (&t, i, i + 1, 5000, 5000 * 320);
                        add2 (&t, i, i + 1, 20, 20 * 65536);
                    }
                    if (y + 1 < py) {
                        add2 (&t, i, i + px, 5000, 5000 * 320);
                        add2 (&t, i, i + px, 20, 20 * 65536);
                    }
                }
            }
    } else if (strcmp (pattern, "stencil3d") == 0) {
        int f[3];
        factor (n, 3, f);
        int px = f[0], py = f[1], pz = f[2];
        for (int z = 0; z < pz; z++)
            for (int y = 0; y < py; y++)
                for (int x = 0; x < px; x++) {
                    int i = (z * py + y) * px + x;
                    if (x + 1 < px)
                        add2 (&t, i, i + 1, 100, 100 * 16384);
                    if (y + 1 < py)
                        add2 (&t, i, i + px, 100, 100 * 16384);
                    if (z + 1 < pz)
                        add2 (&t, i, i + px * py, 100, 100 * 16384);
                }
    } else if (strcmp (pattern, "ring") == 0) {
        for (int i = 0; i < n; i++)
            add2 (&t, i, (i + 1) % n, 1000, 1000 * 4096);
    } else if (strcmp (pattern, "bt") == 0) {
        int q = isqrt (n);
        for (int r = 0; r < q; r++)
            for (int c = 0; c < q; c++) {
                int i = r * q + c;
                add2 (&t, i, r * q + (c + 1) % q, 200, 200 * 40960);
                add2 (&t, i, ((r + 1) % q) * q + c, 200, 200 * 40960);
                add2 (&t, i, ((r + 1) % q) * q + (c + q - 1) % q, 200, 200 * 40960);
            }
    } else if (strcmp (pattern, "cg") == 0) {
        int k = 0;
        while ((1 << (k + 1)) <= n)
            k++;
        int nprows = 1 << (k / 2), npcols = n / nprows;
        for (int r = 0; r < nprows; r++)
            for (int c = 0; c < npcols; c++) {
                int i = r * npcols + c;
                for (int d = 1; d < npcols; d <<= 1) {
                    int j = r * npcols + (c ^ d);
                    if (j > i && j < n)
                        add2 (&t, i, j, 150, 150 * 57344);
                }
                /* transpose partner */
                int tr, tc;
                if (npcols == nprows) {
                    tr = c;
                    tc = r;
                } else {
                    tr = c / 2;
                    tc = 2 * r + c % 2;
                }
                int j = tr * npcols + tc;
                if (j > i && j < n)
                    add2 (&t, i, j, 75, 75 * 57344);
            }
    } else if (strcmp (pattern, "random") == 0) {
        rng_state = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) {
                int j = (int)(rng () % (uint64_t)n);
                uint64_t m = 1 + rng () % 1000;
                add2 (&t, i, j, m, m * (64 + rng () % 65536));
            }
    } else {
        fprintf (stderr, "map: unknown pattern %s\n", pattern);
        exit (2);
    }
    p = profile_create (n, t.n, t.t, &err);
    free (t.t);
    if (!p) {
        fprintf (stderr, "map: profile: %s\n", err.text);
        exit (2);
    }
    return p;
}

static void set_pair (netmap_t *nm, int a, int b, double lat, double bw)
{
    NETMAP_AT (nm, lat_us, a, b) = lat;
    NETMAP_AT (nm, bw_MBps, a, b) = bw;
    NETMAP_AT (nm, lat_us, b, a) = lat;
    NETMAP_AT (nm, bw_MBps, b, a) = bw;
}

static netmap_t *make_netmap (const char *topo, int h)
{
    char **names = xmalloc ((size_t)h * sizeof (*names));
    tm_error_t err;
    netmap_t *nm;
    int cloud = strcmp (topo, "cloud") == 0;

    memset (names, 0, (size_t)h * sizeof (*names));
    for (int i = 0; i < h; i++) {
        names[i] = xmalloc (16);
        snprintf (names[i], 16, "n%d", i);
    }
    nm = netmap_create (h, (const char *const *)names, &err);
    for (int i = 0; i < h; i++)
        free (names[i]);
    free (names);
    if (!nm) {
        fprintf (stderr, "map: netmap: %s\n", err.text);
        exit (2);
    }
    rng_state = 0x2545f4914f6cdd1dULL ^ (uint64_t)h;
    for (int a = 0; a < h; a++) {
        set_pair (nm, a, a, cloud ? 1 : 0.3, cloud ? 8000 : 30000);
        for (int b = a + 1; b < h; b++) {
            if (strcmp (topo, "2switch") == 0) {
                if (a % 2 == b % 2)
                    set_pair (nm, a, b, 2, 10000);
                else
                    set_pair (nm, a, b, 10, 1000);
            } else if (strcmp (topo, "tree3") == 0) {
                if (a / 8 == b / 8)
                    set_pair (nm, a, b, 1.5, 12000);
                else if (a / 32 == b / 32)
                    set_pair (nm, a, b, 4, 6000);
                else
                    set_pair (nm, a, b, 8, 2000);
            } else if (cloud) {
                set_pair (nm, a, b, rng_real (20, 200), rng_real (200, 2000));
            } else {
                fprintf (stderr, "map: unknown topology %s\n", topo);
                exit (2);
            }
        }
    }
    return nm;
}

/* The greedy baseline */

typedef struct {
    int n;
    size_t *row;
    int *col;
    double *om, *ob, *im, *ib; /* out and in messages and bytes */
    double *w;                 /* combined weight at mean figures */
} sgraph_t;

static void sgraph_build (const profile_t *p, double lat_s, double spb, sgraph_t *g)
{
    size_t *fill = calloc ((size_t)p->ntasks + 1, sizeof (*fill)), m = 0;
    int n = p->ntasks;

    g->n = n;
    for (size_t k = 0; k < p->nentries; k++)
        if (p->entries[k].src != p->entries[k].dst) {
            fill[p->entries[k].src + 1]++;
            fill[p->entries[k].dst + 1]++;
            m += 2;
        }
    for (int i = 0; i < n; i++)
        fill[i + 1] += fill[i];
    g->row = xmalloc (((size_t)n + 1) * sizeof (*g->row));
    memcpy (g->row, fill, ((size_t)n + 1) * sizeof (*g->row));
    g->col = xmalloc (m * sizeof (*g->col));
    g->om = calloc (m ? m : 1, sizeof (double));
    g->ob = calloc (m ? m : 1, sizeof (double));
    g->im = calloc (m ? m : 1, sizeof (double));
    g->ib = calloc (m ? m : 1, sizeof (double));
    g->w = xmalloc (m * sizeof (*g->w));
    for (size_t k = 0; k < p->nentries; k++) {
        const profile_entry_t *e = &p->entries[k];
        if (e->src == e->dst)
            continue;
        size_t a = fill[e->src]++, b = fill[e->dst]++;
        g->col[a] = e->dst;
        g->om[a] = (double)e->msgs;
        g->ob[a] = (double)e->bytes;
        g->col[b] = e->src;
        g->im[b] = (double)e->msgs;
        g->ib[b] = (double)e->bytes;
    }
    for (size_t k = 0; k < m; k++)
        g->w[k] = (g->om[k] + g->im[k]) * lat_s + (g->ob[k] + g->ib[k]) * spb;
    free (fill);
}

static void sgraph_free (sgraph_t *g)
{
    free (g->row);
    free (g->col);
    free (g->om);
    free (g->ob);
    free (g->im);
    free (g->ib);
    free (g->w);
}

static double host_cost (const netmap_t *nm, int a, int b, double msgs, double bytes)
{
    double lat = NETMAP_AT (nm, lat_us, a, b), bw = NETMAP_AT (nm, bw_MBps, a, b), c = 0;

    if (!isnan (lat))
        c += msgs * lat * 1e-6;
    if (!isnan (bw))
        c += bytes / (bw * 1e6);
    return c;
}

static void greedy (const profile_t *p, const netmap_t *nm, int nslots, const map_slot_t *slots,
                    int *node)
{
    int n = p->ntasks;
    double lat = 0, spb = 0;
    size_t npairs = 0;
    heap_t heap = {0};
    sgraph_t g;

    for (int a = 0; a < nslots; a++)
        for (int b = 0; b < nslots; b++)
            if (a != b) {
                lat += NETMAP_AT (nm, lat_us, slots[a].host, slots[b].host) * 1e-6;
                spb += 1 / (NETMAP_AT (nm, bw_MBps, slots[a].host, slots[b].host) * 1e6);
                npairs++;
            }
    if (npairs) {
        lat /= (double)npairs;
        spb /= (double)npairs;
    }
    sgraph_build (p, lat, spb, &g);

    int *slot = xmalloc ((size_t)n * sizeof (*slot));
    int *room = xmalloc ((size_t)nslots * sizeof (*room));
    int *mark = calloc ((size_t)nslots, sizeof (*mark));
    double *key = calloc ((size_t)n, sizeof (*key)), *total = calloc ((size_t)n, sizeof (*total));
    if (heap_reserve (&heap, (size_t)n + g.row[n] + 1) < 0) {
        fprintf (stderr, "map: out of memory\n");
        exit (2);
    }
    int stamp = 0;

    for (int s = 0; s < nslots; s++)
        room[s] = slots[s].count;
    for (int i = 0; i < n; i++) {
        slot[i] = -1;
        for (size_t k = g.row[i]; k < g.row[i + 1]; k++)
            total[i] += g.w[k];
        /* the key: traffic to placed ranks, then (scaled below any of
         * that) total traffic */
        heap_push (&heap, (heap_item_t){-total[i] * 1e-30, i, 0});
    }
    while (heap.n > 0) {
        heap_item_t x = heap_pop (&heap);
        int i = x.id, best = -1, heavy = -1;
        double bestc = 0, heavyw = -1;

        if (slot[i] >= 0 || -x.key != key[i] + total[i] * 1e-30)
            continue; /* placed, or a stale key */
        stamp++;
        /* candidate nodes: of placed neighbours, and the nearest to the
         * heaviest one (or the roomiest) */
        for (size_t k = g.row[i]; k <= g.row[i + 1]; k++) {
            int t;
            if (k < g.row[i + 1]) {
                int j = g.col[k];
                if (slot[j] < 0)
                    continue;
                t = slot[j];
                if (g.w[k] > heavyw) {
                    heavyw = g.w[k];
                    heavy = t;
                }
            } else {
                t = -1;
                double d = 0;
                for (int s = 0; s < nslots; s++) {
                    if (room[s] == 0)
                        continue;
                    double ds = -(double)room[s];
                    if (heavy >= 0)
                        ds = host_cost (nm, slots[heavy].host, slots[s].host, 1, 65536);
                    if (t < 0 || ds < d) {
                        t = s;
                        d = ds;
                    }
                }
            }
            if (t < 0 || room[t] == 0 || mark[t] == stamp)
                continue;
            mark[t] = stamp;
            double c = 0;
            for (size_t e = g.row[i]; e < g.row[i + 1]; e++) {
                int j = g.col[e];
                if (slot[j] < 0)
                    continue;
                c += host_cost (nm, slots[t].host, slots[slot[j]].host, g.om[e], g.ob[e]) +
                     host_cost (nm, slots[slot[j]].host, slots[t].host, g.im[e], g.ib[e]);
            }
            if (best < 0 || c < bestc) {
                best = t;
                bestc = c;
            }
        }
        slot[i] = best;
        room[best]--;
        for (size_t k = g.row[i]; k < g.row[i + 1]; k++) {
            int j = g.col[k];
            if (slot[j] >= 0)
                continue;
            key[j] += g.w[k];
            heap_push (&heap, (heap_item_t){-(key[j] + total[j] * 1e-30), j, 0});
        }
    }
    for (int i = 0; i < n; i++)
        node[i] = slots[slot[i]].host;
    free (slot);
    free (room);
    free (mark);
    free (key);
    free (total);
    heap_free (&heap);
    sgraph_free (&g);
}

/* --dump DIR: each case's inputs, for other mappers (doc/findings.md,
 * "KaHIP, side by side"): R-P-T.profile.json and R-P-T.netmap.json
 * (topomap plan --price NAME=HOSTFILE prices a layout on them), and on
 * the trees R-P-T.metis, the communication graph in METIS format, each
 * edge weighing its messages plus its bytes in mean-sized messages;
 * R-P-T.kahip, KaHIP's hierarchy of the nodes (PEs) and its distances (a
 * mean-sized message at each level less within a node, 100 for the
 * lowest); R-P-T.pe-hosts, the host of each PE, one a line, in KaHIP's
 * order.
 */
static const char *dump_dir;

static FILE *dump_open (int n, const char *pattern, const char *topo, const char *suffix)
{
    char path[4096];
    FILE *f;

    snprintf (path, sizeof (path), "%s/%d-%s-%s.%s", dump_dir, n, pattern, topo, suffix);
    if (!(f = fopen (path, "w"))) {
        fprintf (stderr, "map: %s: cannot write\n", path);
        exit (2);
    }
    return f;
}

static void dump_case (int n, const char *pattern, const char *topo, int per, int h,
                       const profile_t *p, const netmap_t *nm)
{
    char path[4096];
    tm_error_t err;
    double msgs = 0, bytes = 0, size, d[4], *acc;
    size_t nedges = 0;
    int tree3 = strcmp (topo, "tree3") == 0, nlev = 0, fan[4], *nb;
    sgraph_t g;
    FILE *f;

    snprintf (path, sizeof (path), "%s/%d-%s-%s.profile.json", dump_dir, n, pattern, topo);
    if (profile_write (p, path, 0644, &err) < 0) {
        fprintf (stderr, "map: %s\n", err.text);
        exit (2);
    }
    snprintf (path, sizeof (path), "%s/%d-%s-%s.netmap.json", dump_dir, n, pattern, topo);
    if (netmap_write (nm, path, 0644, &err) < 0) {
        fprintf (stderr, "map: %s\n", err.text);
        exit (2);
    }
    if (!tree3 && strcmp (topo, "2switch") != 0)
        return;
    /* the levels: a node, then 2switch: a switch, the two; tree3: a rack,
     * a pod, the pods; each named by a pair of hosts at that level */
    int pair[4][2] = {{0, 0}, {0, 2}, {0, 1}, {0, 0}};
    fan[nlev++] = per;
    if (tree3) {
        int tp[4][2] = {{0, 0}, {0, 1}, {0, 8}, {0, 32}};
        memcpy (pair, tp, sizeof (pair));
        fan[nlev++] = h < 8 ? h : 8;
        if (h > 8)
            fan[nlev++] = h / 8 < 4 ? h / 8 : 4;
        if (h > 32)
            fan[nlev++] = h / 32;
    } else {
        fan[nlev++] = h / 2;
        fan[nlev++] = 2;
    }
    for (size_t k = 0; k < p->nentries; k++) {
        msgs += (double)p->entries[k].msgs;
        bytes += (double)p->entries[k].bytes;
    }
    size = msgs > 0 ? bytes / msgs : 1;
    for (int l = 0; l < nlev; l++) {
        int a = pair[l][0], b = pair[l][1];
        d[l] = NETMAP_AT (nm, lat_us, a, b) * 1e-6 + size / (NETMAP_AT (nm, bw_MBps, a, b) * 1e6);
    }
    /* KaHIP's PEs are the nodes, in the hierarchy's order; distances are
     * what a level adds to a node's own figure */
    f = dump_open (n, pattern, topo, "kahip");
    fprintf (f, "--hierarchy_parameter_string=");
    for (int l = 1; l < nlev; l++)
        fprintf (f, "%s%d", l > 1 ? ":" : "", fan[l]);
    fprintf (f, " --distance_parameter_string=");
    for (int l = 1; l < nlev; l++)
        fprintf (f, "%s%ld", l > 1 ? ":" : "", lround (100 * (d[l] - d[0]) / (d[1] - d[0])));
    fprintf (f, "\n");
    fclose (f);
    /* tree3's hosts are in that order; 2switch's PE j is the (j mod h/2)-th
     * host of switch j / (h/2), host 2 (j mod h/2) + j / (h/2) */
    f = dump_open (n, pattern, topo, "pe-hosts");
    for (int j = 0; j < h; j++)
        fprintf (f, "%s\n", nm->hosts[tree3 ? j : 2 * (j % (h / 2)) + j / (h / 2)]);
    fclose (f);
    /* the graph: both directions of a pair summed, in mean-sized messages;
     * sgraph's rows may name a neighbour twice, merged here row by row */
    sgraph_build (p, 1, 1 / size, &g);
    acc = xmalloc ((size_t)n * sizeof (*acc));
    nb = xmalloc ((size_t)n * sizeof (*nb));
    memset (acc, 0, (size_t)n * sizeof (*acc));
    f = dump_open (n, pattern, topo, "metis");
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            fprintf (f, "%d %zu 1\n", n, nedges / 2);
        for (int i = 0; i < n; i++) {
            int nn = 0;
            for (size_t k = g.row[i]; k < g.row[i + 1]; k++) {
                if (!(g.w[k] > 0))
                    continue;
                if (acc[g.col[k]] == 0)
                    nb[nn++] = g.col[k];
                acc[g.col[k]] += g.w[k];
            }
            for (int t = 0; t < nn; t++) {
                if (pass == 1)
                    fprintf (f, "%s%d %ld", t ? " " : "", nb[t] + 1, lround (fmax (1, acc[nb[t]])));
                acc[nb[t]] = 0;
            }
            if (pass == 0)
                nedges += (size_t)nn;
            else
                fprintf (f, "\n");
        }
    }
    fclose (f);
    free (acc);
    free (nb);
    sgraph_free (&g);
}

/* One case */

static double target_s (int n)
{
    if (n <= 256)
        return 0.010;
    if (n <= 4096)
        return 1.0;
    return 5.0;
}

static int run_case (int n, const char *pattern, const char *topo, int per)
{
    int h = (n + per - 1) / per, failed = 0, overfull = 0;
    netmap_t *nm = make_netmap (topo, h);
    profile_t *p = make_profile (pattern, n);
    map_slot_t *slots = xmalloc ((size_t)h * sizeof (*slots));
    map_params_t params;
    map_result_t res, plain, repaired;
    tm_error_t err;
    map_candidate_t c = {.node = xmalloc ((size_t)n * sizeof (int))};
    double block, top, cyc, rnd, sco, rep, gre;
    char ms[16];

    for (int s = 0; s < h; s++) {
        slots[s].host = s;
        slots[s].count = s < h - 1 ? per : n - per * (h - 1);
    }
    if (dump_dir)
        dump_case (n, pattern, topo, per, h, p, nm);
    map_params_default (&params);
    if (map_plan (p, nm, h, slots, &params, &res, &err) < 0) {
        fprintf (stderr, "map: ranks=%d pattern=%s topo=%s: %s\n", n, pattern, topo, err.text);
        exit (2);
    }
    block = res.cand[1].cost_s;
    top = res.cand[0].cost_s;
    cyc = res.cand[2].cost_s;

    /* random: a permutation of block */
    map_layout_block (h, slots, c.node);
    rng_state = 0x853c49e6748fea9bULL;
    for (int i = n - 1; i > 0; i--) {
        int k = (int)(rng () % (uint64_t)(i + 1)), x = c.node[i];
        c.node[i] = c.node[k];
        c.node[k] = x;
    }
    map_price (p, nm, MAP_COMBINED, &c);
    rnd = c.cost_s;

    params.refine = 0;
    if (map_plan (p, nm, h, slots, &params, &repaired, &err) < 0) {
        fprintf (stderr, "map: ranks=%d pattern=%s topo=%s: repaired scotch: %s\n", n, pattern,
                 topo, err.text);
        exit (2);
    }
    rep = repaired.cand[0].cost_s;
    params.exact = 0;
    if (map_plan (p, nm, h, slots, &params, &plain, &err) < 0) {
        fprintf (stderr, "map: ranks=%d pattern=%s topo=%s: plain scotch: %s\n", n, pattern, topo,
                 err.text);
        exit (2);
    }
    sco = plain.cand[0].cost_s;
    if ((overfull = map_overfull (nm, h, slots, n, plain.cand[0].node)) < 0) {
        fprintf (stderr, "map: out of memory\n");
        exit (2);
    }

    greedy (p, nm, h, slots, c.node);
    map_price (p, nm, MAP_COMBINED, &c);
    gre = c.cost_s;

    if (isnan (res.multisection_cost_s))
        snprintf (ms, sizeof (ms), "none");
    else
        snprintf (ms, sizeof (ms), "%.4f", res.multisection_cost_s / block);
    printf ("BENCH map ranks=%d pattern=%s topo=%s time_s=%.4f scotch_s=%.4f repair_s=%.4f "
            "refine_s=%.4f multisection_s=%.4f cost_vs_block=%.4f cyclic=%.4f random=%.4f "
            "scotch_repaired=%.4f greedy=%.4f scotch=%.4f scotch_overfull=%d multisection=%s\n",
            n, pattern, topo, res.time_s, res.scotch_s, res.repair_s, res.refine_s,
            res.multisection_s, top / block, cyc / block, rnd / block, rep / block, gre / block,
            sco / block, overfull, ms);
    printf ("BENCH map_best ranks=%d pattern=%s topo=%s best=%s chosen=%s\n", n, pattern, topo,
            res.best, res.cand[res.chosen].name);
    fflush (stdout);
    if (top > block * (1 + 1e-9)) {
        fprintf (stderr,
                 "map: ranks=%d pattern=%s topo=%s: topomap costs %.6g s, above block's %.6g s\n",
                 n, pattern, topo, top, block);
        failed = 1;
    }
    if (top > rep * (1 + 1e-9)) {
        fprintf (stderr,
                 "map: ranks=%d pattern=%s topo=%s: topomap costs %.6g s, above repaired "
                 "Scotch's %.6g s\n",
                 n, pattern, topo, top, rep);
        failed = 1;
    }
    if (top > res.multisection_cost_s * (1 + 1e-9)) {
        fprintf (stderr,
                 "map: ranks=%d pattern=%s topo=%s: topomap costs %.6g s, above the multisection "
                 "start's %.6g s\n",
                 n, pattern, topo, top, res.multisection_cost_s);
        failed = 1;
    }
    if (overfull == 0 && top > sco * (1 + 1e-9)) {
        fprintf (stderr,
                 "map: ranks=%d pattern=%s topo=%s: topomap costs %.6g s, above plain Scotch's "
                 "%.6g s, which fits\n",
                 n, pattern, topo, top, sco);
        failed = 1;
    }
    if (res.time_s > target_s (n)) {
        fprintf (stderr, "map: ranks=%d pattern=%s topo=%s: planning took %.3f s, target %.3f s\n",
                 n, pattern, topo, res.time_s, target_s (n));
        failed = 1;
    }
    map_result_free (&res);
    map_result_free (&plain);
    map_result_free (&repaired);
    free (c.node);
    free (slots);
    profile_destroy (p);
    netmap_destroy (nm);
    return failed;
}

/* Split a comma-separated list in place. */
/* The nodes of the +node topologies: 2 packages of 4 L3 domains of 2
 * CPUs (8 L3 domains, as current two-socket parts have), figures 2-3
 * times apart between the levels.
 */
static inside_t *make_inside (void)
{
    int cpu[16], dom[16], pkg[16];
    inside_t *in;

    for (int k = 0; k < 16; k++) {
        cpu[k] = k;
        dom[k] = k / 2;
        pkg[k] = k / 8;
    }
    if (!(in = inside_create (16, cpu, dom, pkg, NULL))) {
        fprintf (stderr, "map: out of memory\n");
        exit (2);
    }
    in->lat_us[INSIDE_L3] = 0.2;
    in->lat_us[INSIDE_PACKAGE] = 0.35;
    in->lat_us[INSIDE_MACHINE] = 0.6;
    in->bw_MBps[INSIDE_L3] = 40000;
    in->bw_MBps[INSIDE_PACKAGE] = 25000;
    in->bw_MBps[INSIDE_MACHINE] = 15000;
    return in;
}

/* A topology T+node: T's network, every node make_inside's.  The plan is
 * made as topomap makes it (map_plan's nodes on T's netmap, its one
 * intra-node figure included; then map_inside's CPUs) and priced, like
 * srun's block with block core binding (local id k on CPU k), in full:
 * pairs on two nodes by the netmap, pairs on one node by the level at
 * which their CPUs meet.
 *
 *   BENCH map ranks=N pattern=P topo=T+node time_s=X inside_s=Xi
 *             cost_vs_block=Y nodes_only=Yn inside_vs_block=Yi
 *             slurm_bind=Ys
 *
 * time_s: map_plan's; inside_s: map_inside's; nodes_only: the plan's
 * nodes with block binding; inside_vs_block: the in-node pairs' cost
 * under the plan's binding over block binding's, both on the plan's
 * nodes; slurm_bind: srun's block nodes with Slurm's own binding of such
 * a step (task/affinity's, the packages in turn), what the ranks get
 * without topomap.  All over block with block binding.  Fails above 1,
 * or above 0.8 for a stencil.
 */
static int run_node_case (int n, const char *pattern, const char *topo, int per)
{
    int h = (n + per - 1) / per, failed = 0;
    netmap_t *nm = make_netmap (topo, h);
    profile_t *p = make_profile (pattern, n);
    inside_t *in = make_inside ();
    map_slot_t *slots = xmalloc ((size_t)h * sizeof (*slots));
    map_params_t params;
    map_result_t res;
    map_inside_t bi, pi;
    map_candidate_t *plan = NULL, *block;
    tm_error_t err;
    double t0, inside_s, base, cost, nodes_only, limit;
    bool stencil = strncmp (pattern, "stencil", 7) == 0;

    for (int s = 0; s < h; s++) {
        slots[s].host = s;
        slots[s].count = s < h - 1 ? per : n - per * (h - 1);
    }
    map_params_default (&params);
    if (map_plan (p, nm, h, slots, &params, &res, &err) < 0) {
        fprintf (stderr, "map: ranks=%d pattern=%s topo=%s+node: %s\n", n, pattern, topo, err.text);
        exit (2);
    }
    plan = &res.cand[0];
    block = &res.cand[1];
    t0 = now ();
    if (map_inside (p, plan->node, in, 1, &params, &pi, &err) < 0) {
        fprintf (stderr, "map: ranks=%d pattern=%s topo=%s+node: inside: %s\n", n, pattern, topo,
                 err.text);
        exit (2);
    }
    inside_s = now () - t0;
    /* planned: now the netmap prices pairs on two nodes only */
    for (int a = 0; a < h; a++)
        set_pair (nm, a, a, NAN, NAN);
    if (map_inside (p, block->node, in, 1, &params, &bi, &err) < 0 ||
        map_price (p, nm, MAP_COMBINED, plan) < 0 || map_price (p, nm, MAP_COMBINED, block) < 0) {
        fprintf (stderr, "map: ranks=%d pattern=%s topo=%s+node: inside: %s\n", n, pattern, topo,
                 err.text);
        exit (2);
    }
    base = block->cost_s + bi.block_s;
    cost = plan->cost_s + pi.cost_s;
    nodes_only = plan->cost_s + pi.block_s;
    printf ("BENCH map ranks=%d pattern=%s topo=%s+node time_s=%.4f inside_s=%.4f "
            "cost_vs_block=%.4f nodes_only=%.4f inside_vs_block=%.4f slurm_bind=%.4f\n",
            n, pattern, topo, res.time_s, inside_s, cost / base, nodes_only / base,
            pi.block_s > 0 ? pi.cost_s / pi.block_s : 1.0, (block->cost_s + bi.cyclic_s) / base);
    fflush (stdout);
    limit = stencil ? 0.8 : 1.0;
    if (cost > base * limit * (1 + 1e-9)) {
        fprintf (stderr,
                 "map: ranks=%d pattern=%s topo=%s+node: the plan costs %.4f of block "
                 "with core binding, above %.1f\n",
                 n, pattern, topo, cost / base, limit);
        failed = 1;
    }
    map_inside_free (&pi);
    map_inside_free (&bi);
    map_result_free (&res);
    free (slots);
    inside_destroy (in);
    profile_destroy (p);
    netmap_destroy (nm);
    return failed;
}

static int split (char *s, char **v, int max)
{
    int n = 0;

    for (char *tok = strtok (s, ","); tok && n < max; tok = strtok (NULL, ","))
        v[n++] = tok;
    return n;
}

static void usage (void)
{
    fprintf (stderr, "usage: map [--large] [--ranks N[,N...]] [--pattern P[,P...]] "
                     "[--topo T[,T...]] [--slots-per-node K] [--dump DIR]\n"
                     "patterns: stencil2d stencil3d ring bt lu cg random\n"
                     "topologies: 2switch tree3 cloud\n");
    exit (2);
}

int main (int argc, char **argv)
{
    char *patterns[16] = {"stencil2d", "stencil3d", "ring", "bt", "lu", "cg", "random"};
    char *topos[8] = {"2switch", "tree3", "cloud"};
    int npatterns = 7, ntopos = 3, nsizes = 2, per = 0, failed = 0;
    int sizes[16] = {256, 4096};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp (a, "--large") == 0)
            sizes[nsizes++] = 65536;
        else if (strcmp (a, "--ranks") == 0 && v) {
            char *s[16];
            nsizes = split (v, s, 16);
            for (int k = 0; k < nsizes; k++)
                if ((sizes[k] = atoi (s[k])) < 1)
                    usage ();
            i++;
        } else if (strcmp (a, "--pattern") == 0 && v) {
            npatterns = split (v, patterns, 16);
            i++;
        } else if (strcmp (a, "--topo") == 0 && v) {
            ntopos = split (v, topos, 8);
            i++;
        } else if (strcmp (a, "--dump") == 0 && v) {
            dump_dir = v;
            i++;
        } else if (strcmp (a, "--slots-per-node") == 0 && v) {
            if ((per = atoi (v)) < 1)
                usage ();
            i++;
        } else
            usage ();
    }
    for (int s = 0; s < nsizes; s++) {
        int k = per;
        if (k == 0)
            k = sizes[s] > 4096 ? 64 : 16;
        for (int t = 0; t < ntopos; t++)
            for (int q = 0; q < npatterns; q++) {
                size_t len = strlen (topos[t]);

                if (len > 5 && strcmp (topos[t] + len - 5, "+node") == 0) {
                    topos[t][len - 5] = '\0';
                    failed |= run_node_case (sizes[s], patterns[q], topos[t], k);
                    topos[t][len - 5] = '+';
                } else
                    failed |= run_case (sizes[s], patterns[q], topos[t], k);
            }
    }
    return failed;
}
