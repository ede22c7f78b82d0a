/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mapper_multisection.c: an initial layout by multisection (global
 * multisection, after Faraj et al. and Schulz & Träff, KaHIP's process
 * mapping; doc/references.md).
 *
 * Where the step's nodes form a tree, the ranks are partitioned along it
 * from the top: into the top-level groups (the slots behind one switch,
 * say) in proportion to their slots, then each group's share into its
 * subgroups, down to the nodes.  A tree here is what the distances say:
 * every pair of slots at one of a few levels, and the slots closer than
 * each level falling into groups whose members are all that close (an
 * ultrametric: nodes, racks, pods).  A site's topology and the probe's
 * inferred tree give such netmaps; a cloud does not, and keeps Scotch's
 * start alone.
 *
 * The levels: the slots' distances (one mean-sized message each way, as
 * Scotch's target has them), sorted, split where one exceeds the one
 * before by more than MAP_LEVEL_GAP (measured netmaps spread within a
 * level), at most MAP_LEVELS_MAX of them.
 *
 * Each partition weighs an edge by what cutting it at that level costs
 * beyond keeping it one level down: its traffic priced at the level's
 * figures less at the figures of the level below (one node's, for the
 * lowest).  Summed over the levels at which an edge is cut, these give
 * its cost, so each partition minimises its share of the model's cost.
 * Scotch's dual recursive bipartitioning instead bisects the whole target
 * at once, with one distance table scaled to integers, and its first cut
 * need not follow the tree's top level when the slots are not a power of
 * two per group.
 *
 * The partitions are Scotch's own k-way mapping onto a weighted complete
 * graph of the groups (map_scotch_part), its quality strategy: the
 * partitioner the project already links, with part sizes in proportion
 * to the slots.  Each is then V-cycled (mapper_vcycle.c): Scotch's
 * partitions of random traffic cut 2-3 % more than KaHIP's KaFFPa, which
 * is no dependency, and the cycles close that gap (doc/findings.md).  The
 * sizes are Scotch's balance, within about 1 %: the caller repairs the
 * counts as it does Scotch's mapping.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mapper_private.h"

#define MAP_LEVEL_GAP       1.3       /* a distance this much above the one before starts a level */
#define MAP_LEVELS_MAX      6         /* more levels than this: no tree */
#define MAP_MS_LOAD_MAX     (1 << 23) /* bound on the sum of a partition's edge loads */
#define MAP_MS_CYCLES       4         /* V-cycles on each partition */
#define MAP_MS_CYCLES_RANKS 16384     /* ranks up to which V-cycles run */
#define MAP_MS_CYCLES_PARTS 64 /* and none into more parts (Scotch's k-way refinement stands) */

typedef struct {
    const map_graph_t *g;
    const map_model_t *m;
    unsigned seed;
    int nlev;                         /* levels between distinct slots: 1..nlev */
    unsigned char *lev;               /* [nslots * nslots] level of each pair, 0 on the diagonal */
    double lat_s[MAP_LEVELS_MAX + 1]; /* each level's latency (s), 0 where the metric drops it */
    double spb[MAP_LEVELS_MAX + 1];   /* and seconds per byte */
    int *slot;                        /* the layout made */
    int *local;                       /* [n] a rank's index in the part being split, or -1 */
    int *xadj, *adj, *load, *part;    /* the part's graph, and Scotch's answer */
} map_ms_t;

typedef struct {
    double d;
    int a, b;
} map_ms_pair_t;

static int map_ms_pair_cmp (const void *x, const void *y)
{
    const map_ms_pair_t *p = x, *q = y;

    return (p->d > q->d) - (p->d < q->d);
}

/* The level figures of slots a and b (a == b: one node's), both
 * directions averaged, so that an edge weighs the same from either end.
 */
static void map_ms_figures (map_ms_t *s, int l, int a, int b)
{
    const map_model_t *m = s->m;
    int ha = m->host[a], hb = m->host[b];

    s->lat_s[l] = 0.5 * (map_cost_hosts (m, ha, hb, 1, 0) + map_cost_hosts (m, hb, ha, 1, 0));
    s->spb[l] = 0.5 * (map_cost_hosts (m, ha, hb, 0, 1) + map_cost_hosts (m, hb, ha, 0, 1));
}

/* The levels of the slots' distances into s->lev and the figures of each
 * level (a pair at its median distance).  0 when they are more than
 * MAP_LEVELS_MAX or just one (Scotch's mapping is then the partition), 1,
 * -1 when out of memory.
 */
static int map_ms_levels (map_ms_t *s)
{
    const map_graph_t *g = s->g;
    const map_model_t *m = s->m;
    int n = m->nslots, nlev = 0;
    size_t first = 0, np = (size_t)n * (size_t)(n - 1) / 2, k = 0;
    double msgsize;
    map_ms_pair_t *pr;

    if (!(pr = malloc (np * sizeof (*pr))))
        return -1;
    msgsize = map_graph_msgsize (g);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            pr[k].d = map_slot_distance (m, msgsize, a, b);
            pr[k].a = a;
            pr[k].b = b;
            k++;
        }
    qsort (pr, np, sizeof (*pr), map_ms_pair_cmp);
    for (size_t i = 1; i <= np; i++) {
        if (i < np && !(pr[i].d > MAP_LEVEL_GAP * pr[i - 1].d))
            continue;
        /* pr[first..i) is one level */
        if (++nlev > MAP_LEVELS_MAX)
            break;
        map_ms_figures (s, nlev, pr[first + (i - first) / 2].a, pr[first + (i - first) / 2].b);
        for (size_t q = first; q < i; q++) {
            s->lev[(size_t)pr[q].a * (size_t)n + (size_t)pr[q].b] = (unsigned char)nlev;
            s->lev[(size_t)pr[q].b * (size_t)n + (size_t)pr[q].a] = (unsigned char)nlev;
        }
        first = i;
    }
    map_ms_figures (s, 0, pr[0].a, pr[0].a);
    free (pr);
    s->nlev = nlev;
    return nlev >= 2 && nlev <= MAP_LEVELS_MAX;
}

/* How many partitions of the top level to try, for n ranks: one, and one
 * more per 256 ranks, up to 16, and at most 65536 ranks in all (one try
 * from 65536 ranks), which keeps the planning time targets of
 * t/bench/map.c.
 */
static int map_ms_ntries (int n)
{
    int t = n / 256 + 1;

    if (t > 65536 / n)
        t = 65536 / n;
    return t < 1 ? 1 : t > 16 ? 16 : t;
}

/* How many V-cycles to run on each partition (mapper_vcycle.c) when
 * mapping n ranks: MAP_MS_CYCLES up to MAP_MS_CYCLES_RANKS / MAP_MS_CYCLES
 * ranks, fewer above, none above MAP_MS_CYCLES_RANKS, which keeps the
 * planning time targets of t/bench/map.c.
 */
static int map_ms_ncycles (int n)
{
    int c = MAP_MS_CYCLES_RANKS / (n ? n : 1);

    return c > MAP_MS_CYCLES ? MAP_MS_CYCLES : c;
}

/* Scotch's partition of the part's graph (s->xadj, adj, load) into
 * s->part, ntries times with seeds seed, seed + 1, ...: the first of
 * least cut.
 */
static int map_ms_tries (map_ms_t *s, int nr, int ntries, int ngroups, const int *weight,
                         tm_error_t *errp)
{
    int *best = NULL;
    double bestcut = INFINITY;

    if (ntries > 1 && !(best = malloc ((size_t)(nr ? nr : 1) * sizeof (*best))))
        return errnomem (errp);
    for (int t = 0; t < ntries; t++) {
        double cut = 0;
        if (map_scotch_part (nr, s->xadj, s->adj, s->load, ngroups, weight, s->seed + (unsigned)t,
                             s->part, errp) < 0) {
            free (best);
            return -1;
        }
        if (ntries == 1)
            return 0;
        for (int i = 0; i < nr; i++)
            for (int k = s->xadj[i]; k < s->xadj[i + 1]; k++)
                if (s->part[i] != s->part[s->adj[k]])
                    cut += s->load[k];
        if (cut < bestcut) {
            bestcut = cut;
            memcpy (best, s->part, (size_t)nr * sizeof (*best));
        }
    }
    memcpy (s->part, best, (size_t)nr * sizeof (*best));
    free (best);
    return 0;
}

/* Scotch's partition of ranks[nr] into ngroups parts of sizes in
 * proportion to weight, each edge weighed by what cutting it at level l
 * costs beyond level l - 1: into s->part.  The top level's cut weighs
 * most, and Scotch's partitions of it differ by several per cent from
 * seed to seed: it is tried map_ms_ntries times.
 */
static int map_ms_partition (map_ms_t *s, const int *ranks, int nr, int l, int ngroups,
                             const int *weight, tm_error_t *errp)
{
    const map_graph_t *g = s->g;
    double dlat = fmax (0, s->lat_s[l] - s->lat_s[l - 1]);
    double dspb = fmax (0, s->spb[l] - s->spb[l - 1]), sum = 0, scale = 0;
    int narcs = 0, ncycles = map_ms_ncycles (g->n), rc;

    for (int i = 0; i < nr; i++)
        s->local[ranks[i]] = i;
    for (int pass = 0; pass < 2; pass++) {
        narcs = 0;
        for (int i = 0; i < nr; i++) {
            int r = ranks[i];
            s->xadj[i] = narcs;
            for (size_t k = g->row[r]; k < g->row[r + 1]; k++) {
                const map_weight_t *w = &g->w[k];
                double c = (w->out_msgs + w->in_msgs) * dlat + (w->out_bytes + w->in_bytes) * dspb;
                if (s->local[g->col[k]] < 0 || !(c > 0))
                    continue;
                if (pass == 0) {
                    sum += c;
                } else {
                    s->adj[narcs] = s->local[g->col[k]];
                    s->load[narcs] = 1 + (int)floor (c * scale);
                }
                narcs++;
            }
        }
        s->xadj[nr] = narcs;
        if (sum > 0 && narcs < MAP_MS_LOAD_MAX)
            scale = (double)(MAP_MS_LOAD_MAX - narcs) / sum;
    }
    rc = map_ms_tries (s, nr, l == s->nlev ? map_ms_ntries (s->g->n) : 1, ngroups, weight, errp);
    if (rc == 0 && ngroups <= MAP_MS_CYCLES_PARTS && ncycles > 0)
        rc = map_vcycle (nr, s->xadj, s->adj, s->load, ngroups, weight, s->seed, ncycles, s->part,
                         errp);
    for (int i = 0; i < nr; i++)
        s->local[ranks[i]] = -1;
    return rc;
}

/* Split ranks[nr] over slots[ns], whose pairs are all at level l or
 * below: the slots' groups at levels below l, then each group's share
 * within it.  1 done, 0 the slots are no tree, -1 with errp.
 */
static int map_ms_split (map_ms_t *s, int *slots, int ns, int *ranks, int nr, int l,
                         tm_error_t *errp)
{
    const map_model_t *m = s->m;
    size_t n = (size_t)m->nslots;
    int *grp = NULL, *weight = NULL, *nslots = NULL, *tmp = NULL, *first = NULL;
    int ngroups = 0, rc = -1;

    if (ns == 1) {
        for (int i = 0; i < nr; i++)
            s->slot[ranks[i]] = slots[0];
        return 1;
    }
    grp = malloc ((size_t)ns * sizeof (*grp));
    tmp = malloc ((size_t)(ns > nr ? ns : nr) * sizeof (*tmp));
    if (!grp || !tmp)
        goto nomem;
    /* The groups: each slot joins the first group whose first slot is
     * closer than l, and must then be closer than l to all of it.
     */
    for (int i = 0; i < ns; i++) {
        grp[i] = -1;
        for (int j = 0; j < i && grp[i] < 0; j++)
            if (s->lev[(size_t)slots[i] * n + slots[j]] < l)
                grp[i] = grp[j];
        if (grp[i] < 0)
            grp[i] = ngroups++;
        for (int j = 0; j < i; j++) {
            int lv = s->lev[(size_t)slots[i] * n + slots[j]];
            if (lv > l || (grp[j] == grp[i]) != (lv < l)) {
                rc = 0;
                goto out;
            }
        }
    }
    if (ngroups == 1) {
        rc = map_ms_split (s, slots, ns, ranks, nr, l - 1, errp);
        goto out;
    }
    weight = calloc ((size_t)ngroups, sizeof (*weight));
    nslots = calloc ((size_t)ngroups, sizeof (*nslots));
    first = calloc ((size_t)ngroups + 1, sizeof (*first));
    if (!weight || !nslots || !first)
        goto nomem;
    for (int i = 0; i < ns; i++)
        weight[grp[i]] += m->cap[slots[i]];
    if (nr > 0 && map_ms_partition (s, ranks, nr, l, ngroups, weight, errp) < 0)
        goto out;
    /* slots, then ranks, sorted by group, stably */
    for (int i = 0; i < ns; i++)
        nslots[grp[i]]++;
    for (int c = 0; c < ngroups; c++)
        first[c + 1] = first[c] + nslots[c];
    for (int i = 0; i < ns; i++)
        tmp[first[grp[i]]++] = slots[i];
    memcpy (slots, tmp, (size_t)ns * sizeof (*slots));
    memset (weight, 0, (size_t)ngroups * sizeof (*weight)); /* now: ranks per group */
    for (int i = 0; i < nr; i++)
        weight[s->part[i]]++;
    memset (first, 0, ((size_t)ngroups + 1) * sizeof (*first));
    for (int c = 0; c < ngroups; c++)
        first[c + 1] = first[c] + weight[c];
    for (int i = 0; i < nr; i++)
        tmp[first[s->part[i]]++] = ranks[i];
    memcpy (ranks, tmp, (size_t)nr * sizeof (*ranks));
    /* each group's share, within it */
    rc = 1;
    for (int c = 0, si = 0, ri = 0; c < ngroups && rc == 1; c++) {
        rc = map_ms_split (s, slots + si, nslots[c], ranks + ri, weight[c], l - 1, errp);
        si += nslots[c];
        ri += weight[c];
    }
    goto out;
nomem:
    errnomem (errp);
out:
    free (grp);
    free (weight);
    free (nslots);
    free (tmp);
    free (first);
    return rc;
}

int map_multisection (const map_graph_t *g, const map_model_t *m, unsigned seed, int *slot,
                      void (*on_tree) (void *), void *arg, tm_error_t *errp)
{
    map_ms_t s = {.g = g, .m = m, .seed = seed, .slot = slot};
    size_t n = (size_t)g->n, ns = (size_t)m->nslots;
    int *slots = NULL, *ranks = NULL, rc = -1;

    if (m->nslots < 3 || m->nslots > MAP_PAIR_TABLE_MAX)
        return 0;
    s.lev = calloc (ns * ns, sizeof (*s.lev));
    s.local = malloc (n * sizeof (*s.local));
    s.xadj = malloc ((n + 1) * sizeof (*s.xadj));
    s.adj = malloc ((g->row[n] ? g->row[n] : 1) * sizeof (*s.adj));
    s.load = malloc ((g->row[n] ? g->row[n] : 1) * sizeof (*s.load));
    s.part = malloc (n * sizeof (*s.part));
    slots = malloc (ns * sizeof (*slots));
    ranks = malloc (n * sizeof (*ranks));
    if (!s.lev || !s.local || !s.xadj || !s.adj || !s.load || !s.part || !slots || !ranks)
        goto nomem;
    switch (map_ms_levels (&s)) {
    case -1:
        goto nomem;
    case 0:
        rc = 0;
        goto out;
    }
    if (on_tree)
        on_tree (arg);
    for (size_t i = 0; i < n; i++) {
        s.local[i] = -1;
        ranks[i] = (int)i;
    }
    for (size_t i = 0; i < ns; i++)
        slots[i] = (int)i;
    rc = map_ms_split (&s, slots, m->nslots, ranks, g->n, s.nlev, errp);
    goto out;
nomem:
    errnomem (errp);
out:
    free (s.lev);
    free (s.local);
    free (s.xadj);
    free (s.adj);
    free (s.load);
    free (s.part);
    free (slots);
    free (ranks);
    return rc;
}
