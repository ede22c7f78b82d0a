/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mapper_scotch.c: the initial layout, by Scotch's dual recursive
 * bipartitioning of the profile's graph onto the step's nodes (after
 * CloudMap §IV-C).
 *
 * Source graph: a vertex per rank, an edge per pair of ranks that talk
 * (both directions summed, what a rank sends itself left out), weighted
 * by what the metric prices at the network's mean figures:
 *     combined   msgs * mean latency + bytes * mean (1 / bandwidth)
 *     latency    msgs * mean latency
 *     bandwidth  bytes * mean (1 / bandwidth)
 * scaled to integers that keep every sum Scotch forms (edge load times
 * distance, over all edges) within SCOTCH_Num.  Ranks that talk to no one
 * are vertices without edges.
 *
 * Target architecture: a decomposition-defined architecture built by
 * SCOTCH_archBuild2 from the complete graph of the slots, vertex weights
 * the slot counts, edge weights the measured distance between the two
 * nodes (the cost of one mean-sized message each way, averaged, scaled to
 * 1..MAP_DIST_MAX).  Why this one:
 *   - it takes the measured distances as they are, on any network: a
 *     switch tree, groups, or a cloud whose pairs differ at random;
 *   - its vertex weights give slots of different counts proportional
 *     shares, which the complete-graph and tree-leaf architectures
 *     without weights do not;
 *   - SCOTCH_archTleaf needs a tree of uniform fan-out with one cost per
 *     level, which measured netmaps seldom are and which the complete
 *     graph already describes when they are;
 *   - deco 2 (SCOTCH_archBuild2) builds in about 1 ms for 256 nodes and
 *     25 ms for 1024, where deco 1 (SCOTCH_archBuild0), which computes
 *     every distance by graph traversal, takes 20 ms and 1 s; mappings
 *     onto either priced within a few per cent of each other in
 *     t/bench/map.c, neither always ahead.
 * Beyond MAP_DECO_MAX slots the complete graph grows too large (n^2
 * edges), and the target is then SCOTCH_archCmpltw, a weighted complete
 * graph without distances: Scotch then keeps talkative ranks together,
 * and the node refinement and the greedy start (mapper_refine.c), on the
 * true cost model, place the groups on the network.
 *
 * Scotch runs in a context of its own with one thread (it neither starts
 * threads inside srun nor changes the caller's CPU affinity), its random
 * generator seeded from params->seed and reset: the same inputs give the
 * same mapping.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scotch.h>

#include "lib/mapper_private.h"

/* Scotch's error hooks.
 *
 * libscotch reports errors by calling SCOTCH_errorPrint() and warnings by
 * SCOTCH_errorPrintW(), which the program linking it defines (Scotch's
 * libscotcherr defines them to print on stderr).  The mapper runs inside
 * srun, so it defines them here instead: the first error of a call is
 * kept for map_scotch_error() to turn into a tm_error_t, warnings are
 * dropped.  The executable or plugin that links libtopomap must export
 * these three symbols (a version script must list them) and must not link
 * -lscotcherr or -lscotcherrexit.
 */

static _Thread_local char map_scotch_msg[192];

void SCOTCH_errorProg (const char *const name)
{
    (void)name;
}

void SCOTCH_errorPrint (const char *const fmt, ...)
{
    va_list ap;

    if (map_scotch_msg[0] != '\0')
        return;
    va_start (ap, fmt);
    vsnprintf (map_scotch_msg, sizeof (map_scotch_msg), fmt, ap);
    va_end (ap);
    if (map_scotch_msg[0] == '\0')
        snprintf (map_scotch_msg, sizeof (map_scotch_msg), "unknown error");
}

void SCOTCH_errorPrintW (const char *const fmt, ...)
{
    (void)fmt;
}

void map_scotch_error_clear (void)
{
    map_scotch_msg[0] = '\0';
}

const char *map_scotch_error (void)
{
    return map_scotch_msg[0] != '\0' ? map_scotch_msg : "failed without saying why";
}

#define MAP_DECO_MAX  1024      /* slots up to which the target has distances */
#define MAP_DIST_MAX  128       /* largest distance given to Scotch */
#define MAP_LOAD_MAX  (1 << 23) /* bound on the sum of the source's edge loads */
#define MAP_IMBALANCE 0.01      /* Scotch's load imbalance ratio */

/* Dual recursive bipartitioning proper (CloudMap §IV-C), the quality
 * variant, without Scotch's final k-way refinement: with deco 2 that
 * refinement computes distances move by move, and took 12 s of 20 for
 * 65536 ranks of random traffic on 1024 nodes (bisection alone: 2.5 s),
 * while the layouts the mapper's own refinement made from bisection alone
 * priced lower (t/bench/map.c; equal below 4096 ranks).
 */
#define MAP_STRATEGY (SCOTCH_STRATQUALITY | SCOTCH_STRATRECURSIVE)

typedef struct {
    SCOTCH_Context ctx;
    SCOTCH_Graph src, src_ctx, tgt, tgt_ctx;
    SCOTCH_Arch arch;
    SCOTCH_Strat strat;
    bool ctx_ok, src_ok, src_ctx_ok, tgt_ok, tgt_ctx_ok, arch_ok, strat_ok;
    SCOTCH_Num *verttab, *edgetab, *edlotab;               /* source graph */
    SCOTCH_Num *tverttab, *tvelotab, *tedgetab, *tedlotab; /* target graph */
    SCOTCH_Num *parttab;
} map_scotch_t;

static void map_scotch_free (map_scotch_t *sc)
{
    /* Graphs bound to the context go before their originals and the
     * context itself.
     */
    if (sc->src_ctx_ok)
        SCOTCH_graphExit (&sc->src_ctx);
    if (sc->tgt_ctx_ok)
        SCOTCH_graphExit (&sc->tgt_ctx);
    if (sc->arch_ok)
        SCOTCH_archExit (&sc->arch);
    if (sc->src_ok)
        SCOTCH_graphExit (&sc->src);
    if (sc->tgt_ok)
        SCOTCH_graphExit (&sc->tgt);
    if (sc->strat_ok)
        SCOTCH_stratExit (&sc->strat);
    if (sc->ctx_ok)
        SCOTCH_contextExit (&sc->ctx);
    free (sc->verttab);
    free (sc->edgetab);
    free (sc->edlotab);
    free (sc->tverttab);
    free (sc->tvelotab);
    free (sc->tedgetab);
    free (sc->tedlotab);
    free (sc->parttab);
}

static int map_scotch_fail (const char *what, tm_error_t *errp)
{
    return errprintf (errp, "scotch: %s: %s", what, map_scotch_error ());
}

/* Build the source graph of n vertices and narcs arcs from sc's verttab,
 * edgetab and edlotab, and bind it to sc's context; what names it in
 * messages.
 */
static int map_scotch_bind_source (map_scotch_t *sc, int n, size_t narcs, const char *what,
                                   tm_error_t *errp)
{
    char msg[64];

    if (SCOTCH_graphInit (&sc->src) != 0)
        return map_scotch_fail ("graph init", errp);
    sc->src_ok = true;
    snprintf (msg, sizeof (msg), "building %s", what);
    if (SCOTCH_graphBuild (&sc->src, 0, n, sc->verttab, NULL, NULL, NULL, (SCOTCH_Num)narcs,
                           sc->edgetab, sc->edlotab) != 0)
        return map_scotch_fail (msg, errp);
    if (SCOTCH_graphInit (&sc->src_ctx) != 0)
        return map_scotch_fail ("graph init", errp);
    sc->src_ctx_ok = true;
    snprintf (msg, sizeof (msg), "binding %s", what);
    if (SCOTCH_contextBindGraph (&sc->ctx, &sc->src, &sc->src_ctx) != 0)
        return map_scotch_fail (msg, errp);
    return 0;
}

static int map_scotch_source (map_scotch_t *sc, const map_graph_t *g, const map_model_t *m,
                              tm_error_t *errp)
{
    size_t narcs = 0;
    double wsum = 0, scale = 0;

    for (size_t k = 0; k < g->row[g->n]; k++) {
        double w = map_typical_weight (m, &g->w[k]);
        if (w > 0) {
            narcs++;
            wsum += w;
        }
    }
    if (narcs >= (size_t)SCOTCH_NUMMAX || g->n >= SCOTCH_NUMMAX)
        return errprintf (errp, "scotch: the profile's graph is too large (%zu edges)", narcs);
    sc->verttab = malloc (((size_t)g->n + 1) * sizeof (*sc->verttab));
    sc->edgetab = malloc ((narcs ? narcs : 1) * sizeof (*sc->edgetab));
    sc->edlotab = malloc ((narcs ? narcs : 1) * sizeof (*sc->edlotab));
    if (!sc->verttab || !sc->edgetab || !sc->edlotab) {
        return errnomem (errp);
    }
    if (wsum > 0 && narcs < MAP_LOAD_MAX)
        scale = (double)(MAP_LOAD_MAX - narcs) / wsum;
    narcs = 0;
    for (int i = 0; i < g->n; i++) {
        sc->verttab[i] = (SCOTCH_Num)narcs;
        for (size_t k = g->row[i]; k < g->row[i + 1]; k++) {
            double w = map_typical_weight (m, &g->w[k]);
            if (!(w > 0))
                continue;
            sc->edgetab[narcs] = g->col[k];
            sc->edlotab[narcs] = 1 + (SCOTCH_Num)floor (w * scale);
            narcs++;
        }
    }
    sc->verttab[g->n] = (SCOTCH_Num)narcs;
    return map_scotch_bind_source (sc, g->n, narcs, "the profile's graph", errp);
}

/* The distance between slots a and b: one mean-sized message each way,
 * averaged.
 */
static double map_scotch_distance (const map_model_t *m, double msgsize, int a, int b)
{
    return 0.5 * map_slot_distance (m, msgsize, a, b);
}

static int map_scotch_target (map_scotch_t *sc, const map_graph_t *g, const map_model_t *m,
                              tm_error_t *errp)
{
    int n = m->nslots;
    size_t narcs = (size_t)n * (size_t)(n - 1), k = 0;
    double msgsize, dmax = 0;

    if (!(sc->tvelotab = malloc ((size_t)n * sizeof (*sc->tvelotab)))) {
        return errnomem (errp);
    }
    for (int s = 0; s < n; s++)
        sc->tvelotab[s] = m->cap[s];
    if (SCOTCH_archInit (&sc->arch) != 0)
        return map_scotch_fail ("architecture init", errp);
    sc->arch_ok = true;
    if (n > MAP_DECO_MAX) {
        if (SCOTCH_archCmpltw (&sc->arch, n, sc->tvelotab) != 0)
            return map_scotch_fail ("building the weighted complete graph of the nodes", errp);
        return 0;
    }

    /* The mean message size, for the distance of the combined metric. */
    msgsize = map_graph_msgsize (g);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            double d = map_scotch_distance (m, msgsize, a, b);
            if (d > dmax)
                dmax = d;
        }
    sc->tverttab = malloc (((size_t)n + 1) * sizeof (*sc->tverttab));
    sc->tedgetab = malloc ((narcs ? narcs : 1) * sizeof (*sc->tedgetab));
    sc->tedlotab = malloc ((narcs ? narcs : 1) * sizeof (*sc->tedlotab));
    if (!sc->tverttab || !sc->tedgetab || !sc->tedlotab) {
        return errnomem (errp);
    }
    for (int a = 0; a < n; a++) {
        sc->tverttab[a] = (SCOTCH_Num)k;
        for (int b = 0; b < n; b++) {
            double d;
            if (a == b)
                continue;
            d = dmax > 0 ? map_scotch_distance (m, msgsize, a, b) / dmax : 1;
            sc->tedgetab[k] = b;
            sc->tedlotab[k] = (SCOTCH_Num)fmax (1, lround (d * MAP_DIST_MAX));
            k++;
        }
    }
    sc->tverttab[n] = (SCOTCH_Num)k;
    if (SCOTCH_graphInit (&sc->tgt) != 0)
        return map_scotch_fail ("graph init", errp);
    sc->tgt_ok = true;
    if (SCOTCH_graphBuild (&sc->tgt, 0, n, sc->tverttab, NULL, sc->tvelotab, NULL, (SCOTCH_Num)k,
                           sc->tedgetab, sc->tedlotab) != 0)
        return map_scotch_fail ("building the graph of the nodes", errp);
    if (SCOTCH_graphInit (&sc->tgt_ctx) != 0)
        return map_scotch_fail ("graph init", errp);
    sc->tgt_ctx_ok = true;
    if (SCOTCH_contextBindGraph (&sc->ctx, &sc->tgt, &sc->tgt_ctx) != 0)
        return map_scotch_fail ("binding the graph of the nodes", errp);
    if (SCOTCH_archBuild2 (&sc->arch, &sc->tgt_ctx, 0, NULL) != 0)
        return map_scotch_fail ("building the architecture of the nodes", errp);
    return 0;
}

/* Scotch's context for one call: one thread, its random generator seeded
 * and reset, so that the same inputs give the same result.
 */
static int map_scotch_begin (map_scotch_t *sc, unsigned seed, tm_error_t *errp)
{
    SCOTCH_Num seedval = (SCOTCH_Num)(seed & (unsigned)SCOTCH_NUMMAX);

    memset (sc, 0, sizeof (*sc));
    map_scotch_error_clear ();
    if (SCOTCH_contextInit (&sc->ctx) != 0)
        return map_scotch_fail ("context init", errp);
    sc->ctx_ok = true;
    /* Deterministic is the rule with one thread; ask anyway, and do not
     * fail on a library that does not know the option.
     */
    if (SCOTCH_contextOptionSetNum (&sc->ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0)
        map_scotch_error_clear ();
    if (SCOTCH_contextThreadSpawn (&sc->ctx, 1, NULL) != 0)
        return map_scotch_fail ("context threads", errp);
    SCOTCH_randomSeed (seedval);
    SCOTCH_randomReset ();
    if (SCOTCH_contextRandomClone (&sc->ctx) != 0)
        return map_scotch_fail ("context random generator", errp);
    SCOTCH_contextRandomSeed (&sc->ctx, seedval);
    SCOTCH_contextRandomReset (&sc->ctx);
    if (SCOTCH_stratInit (&sc->strat) != 0)
        return map_scotch_fail ("strategy init", errp);
    sc->strat_ok = true;
    return 0;
}

/* Map the source graph bound to sc's context onto sc->arch, nparts parts,
 * into part[n] (each checked to be in 0..nparts-1).
 */
static int map_scotch_run (map_scotch_t *sc, SCOTCH_Num flags, int n, int nparts, int *part,
                           tm_error_t *errp)
{
    if (SCOTCH_stratGraphMapBuild (&sc->strat, flags, nparts, MAP_IMBALANCE) != 0)
        return map_scotch_fail ("mapping strategy", errp);
    if (!(sc->parttab = malloc ((size_t)(n ? n : 1) * sizeof (*sc->parttab))))
        return errnomem (errp);
    if (SCOTCH_graphMap (&sc->src_ctx, &sc->arch, &sc->strat, sc->parttab) != 0)
        return map_scotch_fail ("mapping", errp);
    for (int i = 0; i < n; i++) {
        if (sc->parttab[i] < 0 || sc->parttab[i] >= nparts)
            return errprintf (errp, "scotch: mapped vertex %d to part %d of %d", i,
                              (int)sc->parttab[i], nparts);
        part[i] = (int)sc->parttab[i];
    }
    return 0;
}

int map_scotch (const map_graph_t *g, const map_model_t *m, unsigned seed, int *slot,
                tm_error_t *errp)
{
    map_scotch_t sc;
    int rc = -1;

    if (m->nslots == 1) {
        for (int i = 0; i < g->n; i++)
            slot[i] = 0;
        return 0;
    }
    if (map_scotch_begin (&sc, seed, errp) == 0 && map_scotch_source (&sc, g, m, errp) == 0 &&
        map_scotch_target (&sc, g, m, errp) == 0 &&
        map_scotch_run (&sc, MAP_STRATEGY, g->n, m->nslots, slot, errp) == 0)
        rc = 0;
    map_scotch_free (&sc);
    return rc;
}

int map_scotch_part (int n, const int *xadj, const int *adj, const int *load, int nparts,
                     const int *weight, unsigned seed, int *part, tm_error_t *errp)
{
    map_scotch_t sc;
    size_t narcs = (size_t)xadj[n];
    int rc = -1;

    if (nparts == 1) {
        for (int i = 0; i < n; i++)
            part[i] = 0;
        return 0;
    }
    if (map_scotch_begin (&sc, seed, errp) < 0)
        goto out;
    sc.verttab = malloc (((size_t)n + 1) * sizeof (*sc.verttab));
    sc.edgetab = malloc ((narcs ? narcs : 1) * sizeof (*sc.edgetab));
    sc.edlotab = malloc ((narcs ? narcs : 1) * sizeof (*sc.edlotab));
    sc.tvelotab = malloc ((size_t)nparts * sizeof (*sc.tvelotab));
    if (!sc.verttab || !sc.edgetab || !sc.edlotab || !sc.tvelotab) {
        errnomem (errp);
        goto out;
    }
    for (int i = 0; i <= n; i++)
        sc.verttab[i] = xadj[i];
    for (size_t k = 0; k < narcs; k++) {
        sc.edgetab[k] = adj[k];
        sc.edlotab[k] = load[k];
    }
    for (int p = 0; p < nparts; p++)
        sc.tvelotab[p] = weight[p];
    if (map_scotch_bind_source (&sc, n, narcs, "a part of the profile's graph", errp) < 0)
        goto out;
    if (SCOTCH_archInit (&sc.arch) != 0) {
        map_scotch_fail ("architecture init", errp);
        goto out;
    }
    sc.arch_ok = true;
    if (SCOTCH_archCmpltw (&sc.arch, nparts, sc.tvelotab) != 0) {
        map_scotch_fail ("building the weighted complete graph of the parts", errp);
        goto out;
    }
    if (map_scotch_run (&sc, SCOTCH_STRATQUALITY, n, nparts, part, errp) == 0)
        rc = 0;
out:
    map_scotch_free (&sc);
    return rc;
}
