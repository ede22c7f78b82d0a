/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.c: the shape of the network, inferred from measured latencies
 * and bandwidths.
 *
 * TOPO_TREE follows Lawrence & Yuan (§3): data clustering of the
 * round-trip times (§3.2, Figure 7), hop counts from the smallest gap
 * between classes (§3.2, "Inferring hop-count distances"), and the switch
 * tree from the hop-count matrix (§3.1, Figure 4).  TOPO_GROUPS is
 * average-linkage (UPGMA) clustering of the hosts on measured cost.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/topology.h"

/* Entry (i, j) of an n*n row-major matrix. */
#define AT(m, n, i, j) ((m)[(size_t)(i) * (size_t)(n) + (size_t)(j)])

/* errprintf for bad input or a non-tree: also sets errno to EINVAL, so that
 * callers can tell it from ENOMEM. */
#define errinval(errp, ...) (errno = EINVAL, errprintf ((errp), __VA_ARGS__))

/* §3.2 data clustering, second phase: two adjacent classes stay apart when
 * the distance between their centres is at least this many times the
 * larger intra-class distance (the paper's INTER_THRESHOLD, default 4).
 */
#define LY_INTER_RATIO 4.0

/* No switch tree puts more switches than this between two hosts (IEEE
 * 802.1D spanning trees stay under a few dozen).  A larger hop count means
 * the smallest gap between RTT classes is not the latency of one switch.
 */
#define LY_HOPS_MAX 1024

/* topo_infer tries Lawrence & Yuan's classes up to this many hosts.  They
 * sort all n(n-1)/2 round trips (1.6 s of the 4.2 s topo_infer_net took at
 * 4096 hosts) and need every one within noise of its class, which
 * thousands of measured hosts are not (t/sim/model: never at 4096); the
 * levels of the clustering remain.
 */
#define LY_MAX_HOSTS 1024

/* topo_cluster: the largest gap between successive merge costs separates
 * groups only when it is at least this fraction of the cost above it;
 * otherwise every merge is within noise and all hosts form one group.
 */
#define CLUSTER_MIN_GAP 0.2

/* topo_levels: a merge at least LEVEL_GAP times the lowest of a level
 * starts the next; the merges of one level lie within LEVEL_SPREAD of its
 * lowest.  On the emulated cluster, 1 KiB round trips within a switch
 * differ by up to 2.1 times (two ranks on one core or on two); with 16 KiB
 * its levels, shaped 1 Gbit/s : 300 : 100 Mbit/s, stand 3 to 3.3 apart
 * and spread at most 1.25.
 */
#define LEVEL_GAP    2.5
#define LEVEL_SPREAD 1.5

/* topo_infer: the latencies of a pair in its two directions differ by at
 * most this factor, or the larger is noise. */
#define ASYM_MAX 2.0

void topo_params_default (topo_params_t *p)
{
    p->noise_threshold = 0.05;
    p->inter_threshold = 0.15;
    p->lat_gaps = 1;
}

topo_t *topo_alloc (topo_model_t model, int nhosts, int nvertices, tm_error_t *errp)
{
    topo_t *t;

    if (nhosts < 1 || nvertices < nhosts) {
        errprintf (errp, "topology of %d hosts and %d vertices is impossible", nhosts, nvertices);
        errno = EINVAL;
        return NULL;
    }
    if (!(t = calloc (1, sizeof (*t))))
        goto nomem;
    t->model = model;
    t->nhosts = nhosts;
    t->nvertices = nvertices;
    t->ngroups = 1;
    t->signal = TOPO_SIGNAL_LATENCY;
    t->residual = NAN;
    t->parent = malloc ((size_t)nvertices * sizeof (*t->parent));
    t->height = calloc ((size_t)nvertices, sizeof (*t->height));
    t->group = calloc ((size_t)nhosts, sizeof (*t->group));
    if (!t->parent || !t->height || !t->group)
        goto nomem;
    for (int v = 0; v < nvertices; v++)
        t->parent[v] = -1;
    return t;
nomem:
    topo_destroy (t);
    errnomem (errp);
    errno = ENOMEM;
    return NULL;
}

/* With one root and every parent in range, the vertices form a tree iff
 * every vertex reaches the root.  Marks vertices known to reach it, so the
 * walk is linear in the number of vertices whatever their shape.
 * Returns 0, or -1 (errno ENOMEM or EINVAL for a cycle).
 */
static int topo_reaches_all (const topo_t *t)
{
    char *state = calloc ((size_t)t->nvertices, 1); /* 0 new, 1 on path, 2 reaches root */
    if (!state) {
        errno = ENOMEM;
        return -1;
    }
    for (int v = 0; v < t->nvertices; v++) {
        int u = v;
        while (u != -1 && state[u] == 0) {
            state[u] = 1;
            u = t->parent[u];
        }
        if (u != -1 && state[u] == 1) {
            free (state);
            errno = EINVAL;
            return -1;
        }
        for (u = v; u != -1 && state[u] == 1; u = t->parent[u])
            state[u] = 2;
    }
    free (state);
    return 0;
}

int topo_check (const topo_t *t, tm_error_t *errp)
{
    int roots = 0;

    if (t->model != TOPO_TREE && t->model != TOPO_GROUPS)
        return errprintf (errp, "unknown topology model %d", (int)t->model);
    if (t->nhosts < 1 || t->nvertices < t->nhosts)
        return errprintf (errp, "%d hosts in %d vertices", t->nhosts, t->nvertices);
    /* Every parent in range before any walk up the tree follows them. */
    for (int v = 0; v < t->nvertices; v++) {
        int p = t->parent[v];
        if (p == -1) {
            roots++;
            continue;
        }
        if (p < t->nhosts || p >= t->nvertices || p == v)
            return errprintf (errp, "vertex %d has parent %d, not a switch or cluster", v, p);
    }
    if (topo_reaches_all (t) < 0)
        return errprintf (
            errp, "%s", errno == ENOMEM ? "out of memory" : "the parents form a cycle, not a tree");
    if (roots != 1)
        return errprintf (errp, "%d roots, need exactly one", roots);
    /* A cluster joins two subtrees, so a dendrogram of n hosts has at
     * most 2n-1 vertices.  A switch may have one child (a host alone on
     * its edge switch, a switch over one other in a site's tree), but no
     * vertex lies TOPO_MAX_DEPTH or more below the root.  Either bounds
     * the depth that readers of a topology (and their recursion) meet. */
    if (t->model == TOPO_GROUPS && t->nvertices > 2 * t->nhosts - 1)
        return errprintf (errp, "%d vertices for %d hosts, at most %d in a tree", t->nvertices,
                          t->nhosts, 2 * t->nhosts - 1);
    if (t->model == TOPO_TREE) {
        if (t->nvertices / TOPO_MAX_DEPTH > t->nhosts)
            return errprintf (errp, "%d vertices for %d hosts, at most %d in a tree", t->nvertices,
                              t->nhosts, TOPO_MAX_DEPTH * t->nhosts);
        for (int v = 0; v < t->nvertices; v++) {
            int d = 0;
            for (int u = t->parent[v]; u != -1; u = t->parent[u])
                if (++d >= TOPO_MAX_DEPTH)
                    return errprintf (errp, "%s %d lies %d or more switches below the root",
                                      v < t->nhosts ? "host" : "switch", v, TOPO_MAX_DEPTH);
        }
    }
    if (t->nhosts > 1)
        for (int h = 0; h < t->nhosts; h++)
            if (t->parent[h] == -1)
                return errprintf (errp, "host %d has no parent", h);
    if (t->ngroups < 1 || t->ngroups > t->nhosts)
        return errprintf (errp, "%d groups for %d hosts", t->ngroups, t->nhosts);
    int *used = calloc ((size_t)t->ngroups, sizeof (*used));
    if (!used) {
        errno = ENOMEM;
        return errnomem (errp);
    }
    for (int h = 0; h < t->nhosts; h++) {
        if (t->group[h] < 0 || t->group[h] >= t->ngroups) {
            free (used);
            return errprintf (errp, "host %d in group %d, outside 0..%d", h, t->group[h],
                              t->ngroups - 1);
        }
        used[t->group[h]] = 1;
    }
    for (int g = 0; g < t->ngroups; g++)
        if (!used[g]) {
            free (used);
            return errprintf (errp, "group %d has no host", g);
        }
    free (used);
    return 0;
}

/* Switches (clusters) on the path between vertices a != b, given depths. */
static int path_switches (const int *parent, const int *depth, int a, int b)
{
    int edges = 0;

    while (depth[a] > depth[b]) {
        a = parent[a];
        edges++;
    }
    while (depth[b] > depth[a]) {
        b = parent[b];
        edges++;
    }
    while (a != b) {
        a = parent[a];
        b = parent[b];
        edges += 2;
    }
    return edges - 1;
}

int *topo_depths (const topo_t *t)
{
    int *depth = calloc ((size_t)t->nvertices, sizeof (*depth));

    if (depth)
        for (int v = 0; v < t->nvertices; v++)
            for (int u = t->parent[v]; u >= 0; u = t->parent[u])
                depth[v]++;
    return depth;
}

int topo_level (const topo_t *t, const int *depth, int a, int b)
{
    while (depth[a] > depth[b])
        a = t->parent[a];
    while (depth[b] > depth[a])
        b = t->parent[b];
    while (a != b) {
        a = t->parent[a];
        b = t->parent[b];
    }
    return (int)t->height[a];
}

int topo_hops (const topo_t *t, int a, int b)
{
    int da = 0, db = 0;

    if (a == b)
        return 0;
    for (int u = a; t->parent[u] != -1; u = t->parent[u])
        da++;
    for (int u = b; t->parent[u] != -1; u = t->parent[u])
        db++;
    /* §2 of Lawrence & Yuan: the hop-count distance is the number of switches on
     * the path, one less than its number of edges. */
    int edges = 0;
    while (da > db) {
        a = t->parent[a];
        da--;
        edges++;
    }
    while (db > da) {
        b = t->parent[b];
        db--;
        edges++;
    }
    while (a != b) {
        a = t->parent[a];
        b = t->parent[b];
        edges += 2;
    }
    return edges - 1;
}

void topo_destroy (topo_t *t)
{
    if (!t)
        return;
    int saved = errno;
    free (t->parent);
    free (t->height);
    free (t->group);
    free (t);
    errno = saved;
}

static int params_check (const topo_params_t *p, tm_error_t *errp)
{
    if (!isfinite (p->noise_threshold) || p->noise_threshold < 0)
        return errinval (errp, "noise threshold %g: not a finite number >= 0", p->noise_threshold);
    if (!isfinite (p->inter_threshold) || p->inter_threshold < 0)
        return errinval (errp, "inter-class threshold %g: not a finite number >= 0",
                         p->inter_threshold);
    if (p->lat_gaps != 0 && p->lat_gaps != 1)
        return errinval (errp, "lat_gaps %d: not 0 or 1", p->lat_gaps);
    return 0;
}

/* Off-diagonal entries of m are finite and >= 0; the diagonal is ignored. */
static int matrix_check (int n, const double *m, const char *what, tm_error_t *errp)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && (!isfinite (AT (m, n, i, j)) || AT (m, n, i, j) < 0))
                return errinval (errp, "%s from host %d to host %d is %g: not a finite number >= 0",
                                 what, i, j, AT (m, n, i, j));
    return 0;
}

/* The figure of the pair {i, j}: the mean of both directions.  §3.2
 * measures each direction; averaging them halves the noise and gives every
 * pair one class, which the hop-count matrix needs to be symmetric.
 */
static double pair_mean (int n, const double *m, int i, int j)
{
    return 0.5 * (AT (m, n, i, j) + AT (m, n, j, i));
}

/* out: every pair's pair_mean of m, diagonal 0; out may be m.  In tiles of
 * PAIR_TILE, so that both directions are read from cache (at thousands of
 * hosts a column is a cache miss per entry).
 *
 * With min_rule, for latencies: both directions of a pair measure the same
 * round trip and differ by noise only, which may be large on a busy
 * machine: averaging them copes, and classes wider than noise fall back to
 * clustering.  Noise only adds to a round trip (a rank descheduled, an
 * interrupt), so where one direction is more than ASYM_MAX times the
 * other, the smaller is the pair's.
 */
#define PAIR_TILE 64

static void pair_matrix (int n, const double *m, bool min_rule, double *out)
{
    for (int ib = 0; ib < n; ib += PAIR_TILE)
        for (int jb = ib; jb < n; jb += PAIR_TILE)
            for (int i = ib; i < n && i < ib + PAIR_TILE; i++)
                for (int j = jb > i ? jb : i + 1; j < n && j < jb + PAIR_TILE; j++) {
                    double a = AT (m, n, i, j), b = AT (m, n, j, i), v;
                    if (min_rule && fmax (a, b) > ASYM_MAX * fmin (a, b))
                        v = fmin (a, b);
                    else
                        v = 0.5 * (a + b);
                    AT (out, n, i, j) = AT (out, n, j, i) = v;
                }
    for (int i = 0; i < n; i++)
        AT (out, n, i, i) = 0;
}

struct ly_pair {
    double rtt;
    int i, j;
};

static int ly_pair_cmp (const void *a, const void *b)
{
    const struct ly_pair *x = a, *y = b;

    if (x->rtt != y->rtt)
        return x->rtt < y->rtt ? -1 : 1;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

int topo_ly_classes (int n, const double *rtt, const topo_params_t *p, int *class, tm_error_t *errp)
{
    topo_params_t dflt;
    struct ly_pair *pair = NULL;
    size_t *first = NULL; /* first[k]: index in pair[] of class k's smallest RTT */
    size_t npairs, nclass = 0, x = 0;

    if (n < 1)
        return errinval (errp, "%d hosts: need at least one", n);
    if (!rtt || !class)
        return errinval (errp, "no RTT matrix or no class matrix");
    if (!p) {
        topo_params_default (&dflt);
        p = &dflt;
    }
    if (params_check (p, errp) < 0 || matrix_check (n, rtt, "RTT", errp) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        AT (class, n, i, i) = -1;
    npairs = (size_t)n * (size_t)(n - 1) / 2;
    if (npairs == 0)
        return 0;
    pair = malloc (npairs * sizeof (*pair));
    first = malloc ((npairs + 1) * sizeof (*first));
    if (!pair || !first) {
        free (pair);
        free (first);
        errno = ENOMEM;
        return errnomem (errp);
    }
    /* Figure 7 line (1): sort the RTTs. */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            pair[x++] = (struct ly_pair){pair_mean (n, rtt, i, j), i, j};
    qsort (pair, npairs, sizeof (*pair), ly_pair_cmp);

    /* Lines (4)-(15), raw clustering: a sorted RTT joins the class of the
     * one before it when it exceeds it by less than the measurement noise.
     * The paper's noise is absolute (NUMRTT * 0.001 ms, 5 us for RTTs of
     * 130 to 180 us); here it is relative to the RTT, so that one threshold
     * fits both 2 us fabric latencies and 150 us Ethernet round trips.  Equal
     * RTTs are always one class, zeros included.
     */
    first[nclass++] = 0;
    for (x = 1; x < npairs; x++)
        if (pair[x].rtt - pair[x - 1].rtt > p->noise_threshold * pair[x - 1].rtt)
            first[nclass++] = x;
    first[nclass] = npairs;

    /* Lines (16)-(22), further clustering: merge adjacent classes whose
     * inter-class distance (between centres, the centre being the middle
     * of the class's range) is less than LY_INTER_RATIO times the larger
     * maximum intra-class distance, until no merge happens.  (The text
     * is followed; line (18) of the figure states the test the other way
     * round.)  The paper applies that test alone; with noise of several
     * percent on links whose latencies differ by 40% it merges real
     * classes, so classes also stay apart when their centres differ by
     * inter_threshold of the lower one or more.  After a merge the merged
     * class is tested again against both neighbours.
     */
    for (size_t k = 0; k + 1 < nclass;) {
        double lo0 = pair[first[k]].rtt, hi0 = pair[first[k + 1] - 1].rtt;
        double lo1 = pair[first[k + 1]].rtt, hi1 = pair[first[k + 2] - 1].rtt;
        double c0 = (lo0 + hi0) / 2, inter = (lo1 + hi1) / 2 - c0;
        double intra = fmax (hi0 - lo0, hi1 - lo1);

        if (inter < p->inter_threshold * c0 && inter < LY_INTER_RATIO * intra) {
            memmove (&first[k + 1], &first[k + 2], (nclass - k - 1) * sizeof (*first));
            nclass--;
            if (k > 0)
                k--;
        } else
            k++;
    }

    /* Raw clustering chains: RTTs spread evenly from 10 to 100 us make one
     * class of small steps.  A class stands for one hop count, its RTTs
     * equal up to noise (§3.2).  An RTT farther than inter_threshold from
     * its class's centre is as far as phase 2 keeps classes apart: such a
     * class is not one hop count, and the RTTs are not those of a
     * homogeneous tree of switches.
     */
    for (size_t k = 0; k < nclass; k++) {
        double lo = pair[first[k]].rtt, hi = pair[first[k + 1] - 1].rtt;
        if ((hi - lo) / 2 > p->inter_threshold * (lo + hi) / 2) {
            free (pair);
            free (first);
            return errinval (errp,
                             "RTTs from %g to %g form one class: wider than noise within one "
                             "hop count",
                             lo, hi);
        }
    }
    for (size_t k = 0; k < nclass; k++)
        for (x = first[k]; x < first[k + 1]; x++) {
            AT (class, n, pair[x].i, pair[x].j) = (int)k;
            AT (class, n, pair[x].j, pair[x].i) = (int)k;
        }
    free (pair);
    free (first);
    return (int)nclass;
}

/* Theorem 1 makes the tree of a tree's hop matrix unique, and ly_build
 * finds it; if what it built (parent, n hosts and nsw switches) does not
 * give back every entry of hops, the matrix is no tree's: -1, errp set.
 */
static int ly_gives_back (int n, const int *hops, const int *parent, int nsw, tm_error_t *errp)
{
    int nv = n + nsw, *depth = malloc ((size_t)nv * sizeof (*depth));

    if (!depth) {
        errno = ENOMEM;
        return errnomem (errp);
    }
    for (int v = nv - 1; v >= 0; v--)
        depth[v] = parent[v] == -1 ? 0 : depth[parent[v]] + 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int h = path_switches (parent, depth, i, j);
            if (h != AT (hops, n, i, j)) {
                free (depth);
                return errinval (errp,
                                 "hop matrix is not a tree: %d hops between hosts %d and %d, "
                                 "%d in the tree built from it",
                                 AT (hops, n, i, j), i, j, h);
            }
        }
    free (depth);
    return 0;
}

/* The switch tree of a hop-count matrix, by §3.1's algorithm (Figure 4),
 * checked against the matrix.  On success *parentp holds n + nswitches
 * entries, switches numbered n.. in the order found, the last one the root
 * (so parent[v] > v for all others); returns nswitches.  Returns -1 with
 * errno ENOMEM, or EINVAL and errp set when hops is not a tree's matrix.
 * hops must be symmetric, off-diagonal entries in 1..LY_HOPS_MAX.
 */
static int ly_build (int n, const int *hops, int **parentp, tm_error_t *errp)
{
    int *w = NULL, *node = NULL, *keep = NULL, *parent = NULL;
    long bound = 0;
    int size = n, nsw = 0, cap = 2 * n, rc = -1;

    /* Every switch of a tree whose leaves are hosts lies on the path from
     * host 0 to some host: no tree needs more switches than this. */
    for (int j = 1; j < n; j++)
        bound += AT (hops, n, 0, j);
    w = malloc ((size_t)n * (size_t)n * sizeof (*w));
    node = malloc ((size_t)n * sizeof (*node));
    keep = malloc ((size_t)n * sizeof (*keep));
    parent = malloc ((size_t)cap * sizeof (*parent));
    if (!w || !node || !keep || !parent)
        goto nomem;
    memcpy (w, hops, (size_t)n * (size_t)n * sizeof (*w));
    for (int i = 0; i < n; i++) {
        AT (w, n, i, i) = 0;
        node[i] = i;
        parent[i] = -1;
    }
    /* (4) loop: WorkHC is w, its nodes node[0..size-1]. */
    for (;;) {
        int largest = 0, r = 0, kept = 0, s;

        /* (5), (10): the largest distance, and the lowest node n (here r)
         * that has it. */
        for (int a = 0; a < size; a++)
            for (int b = 0; b < size; b++)
                if (AT (w, n, a, b) > largest) {
                    largest = AT (w, n, a, b);
                    r = a;
                }
        if (largest <= 1 && size == 1)
            break; /* a single host: no switch */
        if (nsw >= bound) {
            rc =
                errinval (errp, "hop matrix is not a tree: it needs more than %ld switches", bound);
            goto done;
        }
        if (n + nsw == cap) {
            int *p2 = realloc (parent, (size_t)cap * 2 * sizeof (*parent));
            if (!p2)
                goto nomem;
            parent = p2;
            cap *= 2;
        }
        s = n + nsw++;
        parent[s] = -1;
        if (largest <= 1) {
            /* (6)-(8): the last switch connects all the nodes left. */
            for (int a = 0; a < size; a++)
                parent[node[a]] = s;
            break;
        }
        /* (11)-(13): r and the nodes one hop from it hang off switch s,
         * which connects to one other switch only (Lemma 1). */
        for (int a = 0; a < size; a++) {
            int in_a = a == r || AT (w, n, r, a) == 1;
            if (in_a)
                parent[node[a]] = s;
            if (a == r || !in_a)
                keep[kept++] = a;
        }
        /* (14): the subtree becomes the leaf s, one switch nearer to every
         * other node than r was.  w is compacted in place: entry (x, y)
         * comes from (keep[x], keep[y]) >= (x, y) in row-major order, and
         * r's row is read through symmetry at a position not yet written.
         */
        for (int x = 0; x < kept; x++) {
            for (int y = 0; y < kept; y++) {
                int ox = keep[x], oy = keep[y], v;
                if (x == y)
                    v = 0;
                else if (ox == r)
                    v = AT (w, n, r, oy) - 1;
                else if (oy == r)
                    v = AT (w, n, ox, r) - 1;
                else
                    v = AT (w, n, ox, oy);
                AT (w, n, x, y) = v;
            }
            node[x] = keep[x] == r ? s : node[keep[x]];
        }
        size = kept;
    }

    if ((rc = ly_gives_back (n, hops, parent, nsw, errp)) < 0)
        goto done;
    *parentp = parent;
    parent = NULL;
    rc = nsw;
    goto done;
nomem:
    errno = ENOMEM;
    rc = errnomem (errp);
done:
    free (w);
    free (node);
    free (keep);
    free (parent);
    return rc;
}

/* Whether the class matrix is an ultrametric: in every triple of hosts the
 * two largest classes are equal.  Pairs are joined in class order (single
 * linkage); when two components join at class k, every pair across them
 * must be of class k, so each pair is checked once.  1 yes, 0 no, -1 ENOMEM.
 */
static int ly_ultrametric (int n, const int *class, int nclasses)
{
    size_t npairs = (size_t)n * (size_t)(n - 1) / 2;
    size_t *start = calloc ((size_t)nclasses + 1, sizeof (*start));
    int *pi = malloc (2 * npairs * sizeof (*pi));
    int *comp = malloc ((size_t)n * sizeof (*comp));
    int *next = malloc ((size_t)n * sizeof (*next));
    int *csize = malloc ((size_t)n * sizeof (*csize));
    int rc = -1;

    if (!start || !pi || !comp || !next || !csize)
        goto done;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            start[AT (class, n, i, j) + 1]++;
    for (int k = 0; k < nclasses; k++)
        start[k + 1] += start[k];
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            size_t x = start[AT (class, n, i, j)]++;
            pi[2 * x] = i;
            pi[2 * x + 1] = j;
        }
    /* start[k] is now the end of class k; pairs are in class order. */
    for (int i = 0; i < n; i++) {
        comp[i] = i; /* component label: a member, the head of its list */
        next[i] = -1;
        csize[i] = 1;
    }
    rc = 1;
    for (size_t x = 0, k = 0; x < npairs && rc; x++) {
        int ci = comp[pi[2 * x]], cj = comp[pi[2 * x + 1]];

        while (x >= start[k])
            k++;
        if (ci == cj)
            continue;
        for (int a = ci; a != -1 && rc; a = next[a])
            for (int b = cj; b != -1; b = next[b])
                if (AT (class, n, a, b) != (int)k) {
                    rc = 0;
                    break;
                }
        if (csize[ci] < csize[cj]) {
            int tmp = ci;
            ci = cj;
            cj = tmp;
        }
        /* Relabel the smaller component cj into ci and splice the lists. */
        int last = cj;
        for (int b = cj; b != -1; b = next[b]) {
            comp[b] = ci;
            last = b;
        }
        next[last] = next[ci];
        next[ci] = cj;
        csize[ci] += csize[cj];
    }
done:
    free (start);
    free (pi);
    free (comp);
    free (next);
    free (csize);
    return rc;
}

/* topo_ly_hops's arguments, checked. */
static int ly_hops_check (int n, const double *rtt, const int *class, int nclasses, const int *hops,
                          tm_error_t *errp)
{
    if (n < 1)
        return errinval (errp, "%d hosts: need at least one", n);
    if (!rtt || !class || !hops)
        return errinval (errp, "no RTT, class or hop matrix");
    if (matrix_check (n, rtt, "RTT", errp) < 0)
        return -1;
    if (nclasses < (n > 1) || (size_t)nclasses > (size_t)n * (size_t)(n - 1) / 2)
        return errinval (errp, "%d classes for %d hosts", nclasses, n);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int k = AT (class, n, i, j);
            if (k < 0 || k >= nclasses || AT (class, n, j, i) != k)
                return errinval (errp, "hosts %d and %d are in classes %d and %d, not one of 0..%d",
                                 i, j, k, AT (class, n, j, i), nclasses - 1);
        }
    return 0;
}

/* §3.2: the RTTs of a class are replaced by its centre, the middle of the
 * range it covers ([0.173, 0.177] is centred at 0.175), into centre[];
 * each class must have a pair and lie above the one before. */
static int ly_centres (int n, const double *rtt, const int *class, int nclasses, double *centre,
                       tm_error_t *errp)
{
    double *lo = malloc ((size_t)nclasses * sizeof (*lo)),
           *hi = malloc ((size_t)nclasses * sizeof (*hi));
    int rc = 0;

    if (!lo || !hi) {
        free (lo);
        free (hi);
        errno = ENOMEM;
        return errnomem (errp);
    }
    for (int k = 0; k < nclasses; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int k = AT (class, n, i, j);
            double v = pair_mean (n, rtt, i, j);
            lo[k] = fmin (lo[k], v);
            hi[k] = fmax (hi[k], v);
        }
    for (int k = 0; k < nclasses && rc == 0; k++) {
        centre[k] = (lo[k] + hi[k]) / 2;
        if (lo[k] > hi[k])
            rc = errinval (errp, "class %d has no pair of hosts", k);
        else if (k > 0 && !(centre[k] > centre[k - 1]))
            rc = errinval (errp, "class %d, centred at %g, is not above class %d at %g", k,
                           centre[k], k - 1, centre[k - 1]);
    }
    free (lo);
    free (hi);
    return rc;
}

int topo_ly_hops (int n, const double *rtt, const int *class, int nclasses, int *hops,
                  tm_error_t *errp)
{
    double *centre = NULL;
    int *chops = NULL;
    int rc = -1, um;

    if (ly_hops_check (n, rtt, class, nclasses, hops, errp) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        AT (hops, n, i, i) = 0;
    if (n == 1)
        return 0;
    centre = malloc ((size_t)nclasses * sizeof (*centre));
    chops = malloc ((size_t)nclasses * sizeof (*chops));
    if (!centre || !chops)
        goto nomem;
    if ((rc = ly_centres (n, rtt, class, nclasses, centre, errp)) < 0)
        goto done;
    rc = -1;

    /* §3.2's heuristic needs one latency per switch, and hosts two
     * switches apart (its conditions, end of §3.2).  Neither holds in a
     * tree whose hosts hang off edge switches only and whose links cost
     * more the higher they are (8.5 us on one edge switch, 12 us under one
     * aggregation switch, 44 us across the core): gaps are not multiples
     * of one switch, hosts are 1, 3 or 5 switches apart, and the smallest
     * gap reads 1, 2 and 11, which no tree has.
     *
     * In such a tree the class of a pair is the level of the switch where
     * their paths meet, so the classes form an ultrametric: in every
     * triple of hosts the two largest classes are equal.  Then each class
     * is a level of the tree, and class k is 2k+1 switches, k up from the
     * edge and k down.  That is always a tree's hop matrix (a switch with
     * a single switch below it stands where no two hosts meet at its
     * level: their latencies still cross it).  The smallest gap could
     * read some ultrametrics as a tree too, two edge switches linked
     * directly rather than through a core, or chains of switches that
     * only a per-switch latency would show; the latencies cannot tell
     * these apart, and hosts on edge switches only is how fabrics (and
     * the emulated clusters in contrib/topologies) are built.
     *
     * Classes that are no ultrametric (hosts hang off switches at several
     * depths, as in the paper's Figure 1) take the paper's reading.
     */
    if ((um = ly_ultrametric (n, class, nclasses)) < 0)
        goto nomem;
    if (um) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j)
                    AT (hops, n, i, j) = 2 * AT (class, n, i, j) + 1;
        rc = 0;
        goto done;
    }

    /* §3.2, inferring hop-count distances: the smallest gap between the
     * centres of adjacent classes is the time of one switch, the smallest
     * RTTs are one switch apart, and
     *   hops[k] = hops[k-1] + floor ((centre[k] - centre[k-1] + gap/2) / gap).
     */
    double gap = INFINITY;
    for (int k = 1; k < nclasses; k++)
        gap = fmin (gap, centre[k] - centre[k - 1]);
    chops[0] = 1;
    for (int k = 1; k < nclasses; k++) {
        double inc = floor ((centre[k] - centre[k - 1] + gap / 2) / gap);
        if (chops[k - 1] + inc > LY_HOPS_MAX) {
            rc = errinval (errp,
                           "the smallest gap between RTT classes (%g) puts class %d more than "
                           "%d switches away: it is not the latency of one switch",
                           gap, k, LY_HOPS_MAX);
            goto done;
        }
        chops[k] = chops[k - 1] + (int)inc;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j)
                AT (hops, n, i, j) = chops[AT (class, n, i, j)];
    rc = 0;
    goto done;
nomem:
    errno = ENOMEM;
    rc = errnomem (errp);
done:
    free (centre);
    free (chops);
    return rc;
}

/* The centre of the tree: the middle vertex of a longest path between two
 * hosts (the lowest such pair), the one nearer to the lower host when the
 * path has two middles.  depth is that of the tree as built.
 */
static int ly_centre (int n, const int *hops, const int *parent, const int *depth)
{
    int a = 0, b = 1, da, db, u;

    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (AT (hops, n, i, j) > AT (hops, n, a, b)) {
                a = i;
                b = j;
            }
    /* Path a .. lca .. b of da + db edges; its middle is (da+db)/2 from a. */
    int x = a, y = b;
    while (depth[x] > depth[y])
        x = parent[x];
    while (depth[y] > depth[x])
        y = parent[y];
    while (x != y) {
        x = parent[x];
        y = parent[y];
    }
    da = depth[a] - depth[x];
    db = depth[b] - depth[x];
    int k = (da + db) / 2;
    if (k <= da)
        for (u = a; k > 0; k--)
            u = parent[u];
    else
        for (u = b, k = da + db - k; k > 0; k--)
            u = parent[u];
    return u;
}

topo_t *topo_ly_tree (int n, const int *hops, tm_error_t *errp)
{
    int *parent = NULL, *depth = NULL, *lvl = NULL, *gid = NULL;
    topo_t *t = NULL;
    int nsw, nv;

    if (n < 1) {
        errinval (errp, "%d hosts: need at least one", n);
        return NULL;
    }
    if (!hops) {
        errinval (errp, "no hop matrix");
        return NULL;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int h = AT (hops, n, i, j);
            if (h != AT (hops, n, j, i)) {
                errinval (errp,
                          "hop matrix is not symmetric: hosts %d and %d are %d and %d hops apart",
                          i, j, h, AT (hops, n, j, i));
                return NULL;
            }
            if (h < 1 || h > LY_HOPS_MAX) {
                errinval (errp, "hosts %d and %d are %d hops apart, not 1..%d", i, j, h,
                          LY_HOPS_MAX);
                return NULL;
            }
        }
    if ((nsw = ly_build (n, hops, &parent, errp)) < 0)
        return NULL;
    nv = n + nsw;
    depth = malloc ((size_t)nv * sizeof (*depth));
    lvl = malloc ((size_t)nv * sizeof (*lvl));
    gid = malloc ((size_t)nv * sizeof (*gid));
    if (!depth || !lvl || !gid) {
        errno = ENOMEM;
        errnomem (errp);
        goto done;
    }
    if (nsw > 0) {
        /* Figure 4 roots the tree at the last switch it finds, an end of
         * the tree for a chain of switches.  Switches have no direction;
         * rooting at the centre makes a core switch the root, and the
         * level of a switch its distance up from the hosts. */
        for (int v = nv - 1; v >= 0; v--)
            depth[v] = parent[v] == -1 ? 0 : depth[parent[v]] + 1;
        int prev = -1, u = ly_centre (n, hops, parent, depth);
        while (u != -1) {
            int up = parent[u];
            parent[u] = prev;
            prev = u;
            u = up;
        }
    }
    /* height: switches on the shortest way down to a host, itself
     * included; 1 for a switch hosts attach to. */
    for (int v = 0; v < nv; v++)
        lvl[v] = v < n ? 0 : nv;
    for (int h = 0; h < n; h++)
        for (int u = parent[h], d = 1; u != -1 && d < lvl[u]; u = parent[u], d++)
            lvl[u] = d;
    if (!(t = topo_alloc (TOPO_TREE, n, nv, errp)))
        goto done;
    for (int v = 0; v < nv; v++) {
        t->parent[v] = parent[v];
        t->height[v] = lvl[v];
        gid[v] = -1;
    }
    /* Groups: hosts on one edge switch, in order of their lowest host. */
    t->ngroups = 0;
    for (int h = 0; h < n; h++) {
        int s = n > 1 ? parent[h] : 0;
        if (gid[s] == -1)
            gid[s] = t->ngroups++;
        t->group[h] = gid[s];
    }
    errno = 0;
    if (topo_check (t, errp) < 0) {
        topo_destroy (t);
        t = NULL;
        if (errno != ENOMEM)
            errno = EINVAL;
    }
done:
    free (parent);
    free (depth);
    free (lvl);
    free (gid);
    return t;
}

/* Nearest active neighbour of slot i in d: lowest slot among ties. */
static void cluster_nearest (int n, const double *d, const char *active, int i, int *nn,
                             double *nnd)
{
    nn[i] = -1;
    nnd[i] = INFINITY;
    for (int j = 0; j < n; j++)
        if (j != i && active[j] && (nn[i] == -1 || AT (d, n, i, j) < nnd[i])) {
            nn[i] = j;
            nnd[i] = AT (d, n, i, j);
        }
}

/* Cut the dendrogram t of n hosts at the largest gap between successive
 * merge costs (merge[0..n-1)): merges up to the gap form the groups.  A
 * gap smaller than CLUSTER_MIN_GAP of the cost above it is noise: one
 * group.  gid: room for 2n-1 vertices.
 */
static void cluster_cut (topo_t *t, int n, const double *merge, int *gid)
{
    int cut = n - 1; /* merges 0..cut-1 form the groups */
    double best = 0;

    for (int s = 0; s + 1 < n - 1; s++) {
        double g = merge[s + 1] - merge[s];
        if (g > best) {
            best = g;
            cut = s + 1;
        }
    }
    if (cut < n - 1 && !(best >= CLUSTER_MIN_GAP * merge[cut]))
        cut = n - 1;
    for (int v = 0; v < 2 * n - 1; v++)
        gid[v] = -1;
    t->ngroups = 0;
    for (int h = 0; h < n; h++) {
        int u = h;
        while (t->parent[u] != -1 && t->parent[u] < n + cut)
            u = t->parent[u];
        if (gid[u] == -1)
            gid[u] = t->ngroups++;
        t->group[h] = gid[u];
    }
}

topo_t *topo_cluster (int n, const double *cost, tm_error_t *errp)
{
    double *d = NULL, *nnd = NULL, *merge = NULL;
    int *nn = NULL, *vid = NULL, *size = NULL, *gid = NULL;
    char *active = NULL;
    topo_t *t = NULL;

    if (n < 1) {
        errinval (errp, "%d hosts: need at least one", n);
        return NULL;
    }
    if (!cost) {
        errinval (errp, "no cost matrix");
        return NULL;
    }
    if (matrix_check (n, cost, "cost", errp) < 0)
        return NULL;
    if (!(t = topo_alloc (TOPO_GROUPS, n, 2 * n - 1, errp)))
        return NULL;
    if (n == 1)
        return t;
    d = malloc ((size_t)n * (size_t)n * sizeof (*d));
    nnd = malloc ((size_t)n * sizeof (*nnd));
    merge = malloc ((size_t)n * sizeof (*merge));
    nn = malloc ((size_t)n * sizeof (*nn));
    vid = malloc ((size_t)n * sizeof (*vid));
    size = malloc ((size_t)n * sizeof (*size));
    gid = malloc ((size_t)(2 * n - 1) * sizeof (*gid));
    active = malloc ((size_t)n);
    if (!d || !nnd || !merge || !nn || !vid || !size || !gid || !active)
        goto nomem;
    pair_matrix (n, cost, false, d);
    for (int i = 0; i < n; i++) {
        active[i] = 1;
        vid[i] = i;
        size[i] = 1;
    }
    for (int i = 0; i < n; i++)
        cluster_nearest (n, d, active, i, nn, nnd);

    /* Agglomerate: merge the two closest clusters (slot a < b, the lowest
     * pair among equal costs; a cluster's slot is its lowest host) into
     * vertex n + s in slot a.  Average linkage: the cost between clusters
     * is the mean cost over their pairs of hosts (Lance-Williams update).
     * Nearest neighbours are kept per slot and rescanned only when theirs
     * is merged, which is O(n^2) in practice.
     */
    for (int s = 0; s < n - 1; s++) {
        int a = -1, b, v = n + s;
        for (int i = 0; i < n; i++)
            if (active[i] && (a == -1 || nnd[i] < nnd[a]))
                a = i;
        b = nn[a];
        if (b < a) {
            int tmp = a;
            a = b;
            b = tmp;
        }
        t->parent[vid[a]] = v;
        t->parent[vid[b]] = v;
        t->height[v] = merge[s] = AT (d, n, a, b);
        for (int k = 0; k < n; k++)
            if (active[k] && k != a && k != b) {
                double dk =
                    (size[a] * AT (d, n, a, k) + size[b] * AT (d, n, b, k)) / (size[a] + size[b]);
                AT (d, n, a, k) = dk;
                AT (d, n, k, a) = dk;
            }
        size[a] += size[b];
        active[b] = 0;
        vid[a] = v;
        cluster_nearest (n, d, active, a, nn, nnd);
        for (int k = 0; k < n; k++) {
            if (!active[k] || k == a)
                continue;
            if (nn[k] == a || nn[k] == b)
                cluster_nearest (n, d, active, k, nn, nnd);
            else if (AT (d, n, a, k) < nnd[k] || (AT (d, n, a, k) == nnd[k] && a < nn[k])) {
                /* d is symmetric: row a, not column a, in cache */
                nn[k] = a;
                nnd[k] = AT (d, n, a, k);
            }
        }
    }

    cluster_cut (t, n, merge, gid);
    goto done;
nomem:
    topo_destroy (t);
    t = NULL;
    errno = ENOMEM;
    errnomem (errp);
done:
    free (d);
    free (nnd);
    free (merge);
    free (nn);
    free (vid);
    free (size);
    free (gid);
    free (active);
    return t;
}

/* t if it passes topo_check, else NULL with errp set and errno EINVAL (or
 * ENOMEM), t destroyed.
 */
static topo_t *tree_checked (topo_t *t, tm_error_t *errp)
{
    if (topo_check (t, errp) < 0) {
        int saved = errno == ENOMEM ? ENOMEM : EINVAL;
        topo_destroy (t);
        errno = saved;
        return NULL;
    }
    return t;
}

/* The switch tree of dendrogram d (n hosts) whose merge s lies in band
 * band[s] of nb: a merge and its parent in one band are one switch, at
 * level band + 1.  NULL with errp set and errno EINVAL when it is no tree
 * of levels (a host above the edge band, a switch skipping a band),
 * ENOMEM out of memory.
 */
static topo_t *levels_tree (const topo_t *d, const int *band, int nb, tm_error_t *errp)
{
    int n = d->nhosts, nm = n - 1, nsw = 0, *rep = NULL, *id = NULL, *gid = NULL;
    topo_t *t = NULL;

    rep = malloc ((size_t)nm * sizeof (*rep));
    id = malloc ((size_t)nm * sizeof (*id));
    gid = malloc ((size_t)nm * sizeof (*gid));
    if (!rep || !id || !gid) {
        errno = ENOMEM;
        errnomem (errp);
        goto done;
    }

    /* A merge and its parent in one band are one switch: rep[s] is the
     * topmost merge of its switch.  Merges run bottom up, so walk down. */
    for (int s = nm - 1; s >= 0; s--) {
        int up = d->parent[n + s];
        rep[s] = up != -1 && band[up - n] == band[s] ? rep[up - n] : s;
    }

    /* Hosts on edge switches only, every level on every way up: each host
     * hangs from band 0, and each switch from the band above its own. */
    for (int h = 0; h < n; h++)
        if (band[d->parent[h] - n] != 0) {
            errinval (errp, "host %d joins at level %d, not at the edge", h,
                      band[d->parent[h] - n]);
            goto done;
        }
    for (int s = 0; s < nm; s++) {
        int up = d->parent[n + rep[s]];
        if (rep[s] == s && (up == -1 ? band[s] != nb - 1 : band[up - n] != band[s] + 1)) {
            errinval (errp, "a switch at level %d skips a level", band[s]);
            goto done;
        }
    }

    /* The tree: a switch per topmost merge, numbered bottom up; groups are
     * the edge switches, in order of their lowest host. */
    for (int s = 0; s < nm; s++)
        id[s] = rep[s] == s ? n + nsw++ : -1;
    if (!(t = topo_alloc (TOPO_TREE, n, n + nsw, errp)))
        goto done;
    for (int h = 0; h < n; h++)
        t->parent[h] = id[rep[d->parent[h] - n]];
    for (int s = 0; s < nm; s++) {
        int up = d->parent[n + s];
        if (rep[s] != s)
            continue;
        t->parent[id[s]] = up == -1 ? -1 : id[rep[up - n]];
        t->height[id[s]] = band[s] + 1;
    }
    for (int s = 0; s < nm; s++)
        gid[s] = -1;
    t->ngroups = 0;
    for (int h = 0; h < n; h++) {
        int e = rep[d->parent[h] - n];
        if (gid[e] == -1)
            gid[e] = t->ngroups++;
        t->group[h] = gid[e];
    }
    t = tree_checked (t, errp);
done:
    free (rep);
    free (id);
    free (gid);
    return t;
}

/* Whether d is a dendrogram topo_cluster made of two hosts or more. */
static int levels_check (const topo_t *d, tm_error_t *errp)
{
    if (!d || d->model != TOPO_GROUPS || d->nhosts < 2 || d->nvertices != 2 * d->nhosts - 1)
        return errinval (errp, "not a dendrogram of two hosts or more");
    for (int s = 0; s < d->nhosts - 1; s++) {
        double h = d->height[d->nhosts + s], below = s ? d->height[d->nhosts + s - 1] : 0;
        if (!(h > 0) || h < below)
            return errinval (errp, "merge %d costs %g, not above 0 and the merge before", s, h);
    }
    return 0;
}

topo_t *topo_levels (const topo_t *d, tm_error_t *errp)
{
    int n, nm, nb = 0, *band = NULL;
    double lo = 0;
    topo_t *t = NULL;

    if (levels_check (d, errp) < 0)
        return NULL;
    n = d->nhosts;
    nm = n - 1;
    if (!(band = malloc ((size_t)nm * sizeof (*band)))) {
        errno = ENOMEM;
        errnomem (errp);
        return NULL;
    }
    /* Bands of merge costs: merge s (vertex n + s) opens a new one when it
     * costs LEVEL_GAP times the lowest of the band below; within a band
     * merges cost at most LEVEL_SPREAD times its lowest. */
    for (int s = 0; s < nm; s++) {
        double h = d->height[n + s];
        if (s == 0 || h >= LEVEL_GAP * lo) {
            nb++;
            lo = h;
        } else if (h > LEVEL_SPREAD * lo) {
            errinval (errp, "a merge at %g us is neither the level of %g us nor the next", h, lo);
            goto done;
        }
        band[s] = nb - 1;
    }
    t = levels_tree (d, band, nb, errp);
done:
    free (band);
    return t;
}

/* topo_infer's checks of its input: 0, or -1 with errp set and errno
 * EINVAL; *p the parameters to use (dflt when p is NULL).
 */
static int infer_check (int n, const double *lat_us, const topo_params_t **p, topo_params_t *dflt,
                        tm_error_t *errp)
{
    if (n < 1)
        return errinval (errp, "%d hosts: need at least one", n);
    if (!lat_us)
        return errinval (errp, "no latency matrix");
    if (!*p) {
        topo_params_default (dflt);
        *p = dflt;
    }
    if (params_check (*p, errp) < 0 || matrix_check (n, lat_us, "latency", errp) < 0)
        return -1;
    return 0;
}

/* topo_infer past its checks, on sym (pair_matrix's of the latencies, by
 * its min_rule) of n >= 2 hosts. */
static topo_t *infer_sym (int n, const double *sym, const topo_params_t *p, tm_error_t *errp)
{
    int *class = NULL, *hops = NULL;
    topo_t *t = NULL;
    tm_error_t why = {""};
    int nc;

    if (n <= LY_MAX_HOSTS) {
        class = malloc ((size_t)n * (size_t)n * sizeof (*class));
        hops = malloc ((size_t)n * (size_t)n * sizeof (*hops));
        if (!class || !hops) {
            errno = ENOMEM;
            errnomem (errp);
            goto done;
        }
    }

    /* Lawrence & Yuan: classes, hops, tree.  Any step failing for want of
     * a tree (EINVAL) falls back to clustering; ENOMEM fails. */
    if (n > LY_MAX_HOSTS)
        errinval (&why, "over %d hosts, not tried", LY_MAX_HOSTS);
    else if ((nc = topo_ly_classes (n, sym, p, class, &why)) >= 0 &&
             topo_ly_hops (n, sym, class, nc, hops, &why) == 0 &&
             (t = topo_ly_tree (n, hops, &why))) {
        errclear (errp);
        goto done;
    }
    if (errno == ENOMEM) {
        errprintf (errp, "%s", why.text);
        goto done;
    }
    if (!(t = topo_cluster (n, sym, errp)))
        goto done;
    /* Shaped links: the levels of the dendrogram may still be a tree's. */
    {
        tm_error_t whylv = {""};
        topo_t *lv = topo_levels (t, &whylv);

        if (lv) {
            topo_destroy (t);
            t = lv;
            errclear (errp);
            goto done;
        }
        if (errno == ENOMEM) {
            topo_destroy (t);
            t = NULL;
            errprintf (errp, "%s", whylv.text);
            goto done;
        }
        errprintf (errp,
                   "latencies do not form a switch tree (%s; by levels: %s): hosts grouped by "
                   "clustering",
                   why.text, whylv.text);
    }
done:
    free (class);
    free (hops);
    return t;
}

topo_t *topo_infer (int n, const double *lat_us, const topo_params_t *p, tm_error_t *errp)
{
    topo_params_t dflt;
    double *sym;
    topo_t *t;

    if (infer_check (n, lat_us, &p, &dflt, errp) < 0)
        return NULL;
    if (n == 1) {
        errclear (errp);
        return topo_alloc (TOPO_TREE, 1, 1, errp);
    }
    if (!(sym = malloc ((size_t)n * (size_t)n * sizeof (*sym)))) {
        errno = ENOMEM;
        errnomem (errp);
        return NULL;
    }
    pair_matrix (n, lat_us, true, sym);
    t = infer_sym (n, sym, p, errp);
    free (sym);
    return t;
}

/* The fit of a tree to a signal */

static int fit_dbl_cmp (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The least of v[0..k) (k > 0). */
static double fit_min (const double *v, size_t k)
{
    double m = v[0];

    for (size_t i = 1; i < k; i++)
        m = fmin (m, v[i]);
    return m;
}

/* The median of v[0..k) (k > 0), v reordered. */
static double fit_median (double *v, size_t k)
{
    if (k <= 32)
        for (size_t i = 1; i < k; i++) /* insertion sort: the short lists of edge_labels */
            for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
                double t = v[j];
                v[j] = v[j - 1];
                v[j - 1] = t;
            }
    else
        qsort (v, k, sizeof (*v), fit_dbl_cmp);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* topo_fit prices at most this many pairs, every k-th of them beyond. */
#define FIT_MAX_PAIRS (1 << 16)

/* The fit of np pairs: hop[q] switches apart (-1: left out), figure
 * v[q]; as topo_fit says.  Returns the number of classes, -1 on ENOMEM. */
static int fit_classes (const int *hop, const double *v, size_t np, double *residual, double *sep,
                        tm_error_t *errp)
{
    int maxhop = 0, nclass = 0, rc = -1;
    size_t *count = NULL, *at = NULL;
    double *val = malloc ((np + 1) * sizeof (*val)), *dev = malloc ((np + 1) * sizeof (*dev));
    double *med = NULL;

    for (size_t q = 0; q < np; q++)
        maxhop = hop[q] > maxhop ? hop[q] : maxhop;
    /* the pairs of each hop count together in val, by a counting sort */
    count = calloc ((size_t)maxhop + 2, sizeof (*count));
    at = calloc ((size_t)maxhop + 2, sizeof (*at));
    med = calloc ((size_t)maxhop + 1, sizeof (*med));
    if (!val || !dev || !count || !at || !med)
        goto nomem;
    for (size_t q = 0; q < np; q++)
        if (hop[q] >= 0)
            count[hop[q] + 1]++;
    for (int h = 0; h <= maxhop; h++)
        count[h + 1] += count[h];
    memcpy (at, count, ((size_t)maxhop + 2) * sizeof (*at));
    for (size_t q = 0; q < np; q++)
        if (hop[q] >= 0)
            val[at[hop[q]]++] = v[q];
    *sep = INFINITY;
    for (int h = 0, prev = -1; h <= maxhop; h++) {
        size_t lo = count[h], hi = count[h + 1];
        if (hi == lo)
            continue;
        med[h] = fit_median (val + lo, hi - lo);
        if (prev >= 0 && med[h] / med[prev] < *sep)
            *sep = med[h] / med[prev];
        prev = h;
        nclass++;
    }
    /* each class on its own: the largest class (the top level's pairs, most
     * of them) must not hide a level the signal does not tell apart */
    *residual = 0;
    for (int h = 0; h <= maxhop; h++) {
        size_t lo = count[h], hi = count[h + 1];
        if (hi == lo)
            continue;
        for (size_t q = lo; q < hi; q++)
            dev[q] = fabs (val[q] - med[h]) / med[h];
        *residual = fmax (*residual, fit_median (dev + lo, hi - lo));
    }
    rc = nclass;
    goto done;
nomem:
    errno = ENOMEM;
    errnomem (errp);
done:
    free (val);
    free (dev);
    free (count);
    free (at);
    free (med);
    return rc;
}

/* t checked as a tree of n hosts, and the depth of each of its vertices
 * (a new array); NULL with errp set (EINVAL, ENOMEM). */
static int *fit_depths (const topo_t *t, int n, tm_error_t *errp)
{
    tm_error_t e;
    int *depth;

    if (!t || t->model != TOPO_TREE || t->nhosts != n || n < 2) {
        errinval (errp, "not a switch tree of %d hosts", n);
        return NULL;
    }
    if (topo_check (t, &e) < 0) {
        if (errno == ENOMEM) {
            errnomem (errp);
            errno = ENOMEM;
        } else
            errinval (errp, "not a switch tree of %d hosts", n);
        return NULL;
    }
    if (!(depth = calloc ((size_t)t->nvertices, sizeof (*depth)))) {
        errno = ENOMEM;
        errnomem (errp);
        return NULL;
    }
    for (int v = 0; v < t->nvertices; v++)
        for (int u = v; t->parent[u] != -1; u = t->parent[u])
            depth[v]++;
    return depth;
}

int topo_fit (const topo_t *t, int n, const double *x, double *residual, double *sep,
              tm_error_t *errp)
{
    int *depth = NULL, *hop = NULL, rc = -1;
    size_t npairs, stride, k = 0, q = 0;
    double *val = NULL;

    if (!(depth = fit_depths (t, n, errp)))
        return -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && !isnan (AT (x, n, i, j)) &&
                !(isfinite (AT (x, n, i, j)) && AT (x, n, i, j) > 0)) {
                free (depth);
                return errinval (errp, "figure from host %d to host %d is %g: not finite and > 0",
                                 i, j, AT (x, n, i, j));
            }
    npairs = (size_t)n * (size_t)(n - 1) / 2;
    stride = (npairs + FIT_MAX_PAIRS - 1) / FIT_MAX_PAIRS;
    npairs = (npairs + stride - 1) / stride; /* those priced: k % stride == 0 */
    hop = malloc (npairs * sizeof (*hop));
    val = malloc (npairs * sizeof (*val));
    if (!hop || !val) {
        errno = ENOMEM;
        errnomem (errp);
        goto done;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++, k++)
            if (k % stride == 0) {
                /* a pair not measured (NaN) is in no class */
                val[q] = pair_mean (n, x, i, j);
                hop[q] = isnan (val[q]) ? -1 : path_switches (t->parent, depth, i, j);
                q++;
            }
    rc = fit_classes (hop, val, npairs, residual, sep, errp);
done:
    free (depth);
    free (hop);
    free (val);
    return rc;
}

int topo_fit_pairs (const topo_t *t, int n, const pairs_t *p, const double *x, long np,
                    double *residual, double *sep, tm_error_t *errp)
{
    size_t stride = np > FIT_MAX_PAIRS ? ((size_t)np + FIT_MAX_PAIRS - 1) / FIT_MAX_PAIRS : 1;
    size_t m = ((size_t)np + stride - 1) / stride, q = 0;
    int *depth = NULL, *hop = NULL, rc = -1;
    double *val = NULL;

    if (np < 0)
        return errinval (errp, "%ld pairs", np);
    if (!(depth = fit_depths (t, n, errp)))
        return -1;
    hop = malloc ((m + 1) * sizeof (*hop));
    val = malloc ((m + 1) * sizeof (*val));
    if (!hop || !val) {
        errno = ENOMEM;
        errnomem (errp);
        goto done;
    }
    for (long k = 0; k < np; k += (long)stride, q++) {
        if (p[k].a < 0 || p[k].a >= n || p[k].b < 0 || p[k].b >= n || p[k].a == p[k].b ||
            !(isfinite (x[k]) && x[k] > 0)) {
            errinval (errp, "pair %ld (hosts %d, %d) or its figure %g out of range", k, p[k].a,
                      p[k].b, x[k]);
            goto done;
        }
        hop[q] = path_switches (t->parent, depth, p[k].a, p[k].b);
        val[q] = x[k];
    }
    rc = fit_classes (hop, val, q, residual, sep, errp);
done:
    free (depth);
    free (hop);
    free (val);
    return rc;
}

/* Whether topo_fit accepts a tree of k hop classes, residual res, levels
 * sep apart, as explaining its signal.
 */
static bool fit_accepts (int k, double res, double sep)
{
    return k >= 2 && res <= TOPO_FIT_RESIDUAL && sep >= TOPO_FIT_SEP;
}

/* Of *best (kbest hop classes, accepted by topo_fit or not: *best_ok) and
 * cand (k classes, accepted), the tree to take in *best: an accepted tree
 * over one that is not; then the one that tells more levels apart; then
 * the better fit.  The other is destroyed.
 */
static void keep_better (topo_t **best, int *kbest, bool *best_ok, topo_t *cand, int k)
{
    if (*best && *best_ok && !(k > *kbest || (k == *kbest && cand->residual < (*best)->residual))) {
        topo_destroy (cand);
        return;
    }
    topo_destroy (*best);
    *best = cand;
    *kbest = k;
    *best_ok = true;
}

/* The trees of levels by cuts: the dendrogram d (topo_cluster's of x)
 * cut at merges cut[0] < ... < cut[k-1] (merge s lies below cut c when
 * s < c).
 *
 * edge_labels: level 1, the edge (x symmetric).  The clusters of the
 * forest below cut c, numbered in order of their lowest host; then every
 * host goes to the edge cluster of least median figure to it (itself left
 * out), again until none moves (at most LEVEL_SWEEPS times), which brings
 * home a host that noise merged late or into the wrong cluster; a host
 * alone only as EDGE_JOIN says; then edge_merge.  lab[h] the cluster of
 * host h, *m how many.  -1 on ENOMEM.
 *
 * cuts_tree: level l + 1 puts each level-l cluster under the cluster
 * below cut[l] that holds most of its hosts; then one root.  Every level
 * must have fewer clusters than the one below, and the level under the
 * root two or more.  NULL with errp set (errno EINVAL: no such tree,
 * ENOMEM).
 */
#define LEVEL_SWEEPS 8

/* edge_labels: a host alone at the cut joins the cluster of its nearest
 * host when that figure is at most EDGE_JOIN times the cluster's own
 * median (a host merged late by noise: one pair measured far off, or its
 * highest figures; 1.39 times its router's seen by mean on a 512-host
 * dragonfly at +-20 %, whose levels stand 1.4 apart); otherwise it is
 * alone on its switch.  So a host alone on a switch is seen as such where
 * the level above costs 1.5 times the edge or more (and none of its pairs
 * reads 1.5 times faster than it is), and is taken into its nearest edge
 * below that.
 */
#define EDGE_JOIN 1.5

/* edge_merge: two edge clusters whose median figure between them is at most
 * EDGE_MERGE times the lower of their own are one.  Medians over several
 * pairs: closer than EDGE_JOIN, and under the 1.3 of TOPO_FIT_SEP.
 */
#define EDGE_MERGE 1.15

/* The topmost vertex of the forest of d below cut c that holds vertex v. */
static int cut_top (const topo_t *d, int v, int c)
{
    while (d->parent[v] != -1 && d->parent[v] - d->nhosts < c)
        v = d->parent[v];
    return v;
}

/* The hosts of each cluster q of lab (m0 clusters): member[start[q] ..
 * start[q + 1]), in host order; size[q] their count.
 */
static void edge_members (int n, const int *lab, int m0, int *size, int *start, int *member)
{
    memset (size, 0, (size_t)m0 * sizeof (*size));
    for (int h = 0; h < n; h++)
        size[lab[h]]++;
    start[0] = 0;
    for (int q = 0; q < m0; q++)
        start[q + 1] = start[q] + size[q];
    memset (size, 0, (size_t)m0 * sizeof (*size)); /* counts again as filled */
    for (int h = 0; h < n; h++)
        member[start[lab[h]] + size[lab[h]]++] = h;
}

/* The EDGE_CANDIDATES clusters of least mean figure to the hosts of
 * from[0..nfrom) (itself left out; empty clusters and skip left out),
 * lowest index on ties, into cand; returns how many.  sum: m0 scratch.
 * The medians are priced for these only: a cluster whose one pair was
 * measured far off still ranks among the first few by its mean.
 */
#define EDGE_CANDIDATES 16

static int edge_nearest (const double *x, int n, const int *from, int nfrom, const int *lab, int m0,
                         const int *size, double *sum, int skip, int *cand)
{
    int nc = 0;

    memset (sum, 0, (size_t)m0 * sizeof (*sum));
    for (int f = 0; f < nfrom; f++)
        for (int j = 0; j < n; j++)
            if (j != from[f])
                sum[lab[j]] += AT (x, n, from[f], j);
    for (int q = 0; q < m0; q++) {
        int p;
        if (q == skip || size[q] == 0 || (nfrom == 1 && size[q] == 1 && lab[from[0]] == q))
            continue;
        double mq = sum[q] / size[q];
        if (nc == EDGE_CANDIDATES && !(mq < sum[cand[nc - 1]] / size[cand[nc - 1]]))
            continue;
        p = nc < EDGE_CANDIDATES ? nc++ : nc - 1;
        while (p > 0 && mq < sum[cand[p - 1]] / size[cand[p - 1]]) {
            cand[p] = cand[p - 1];
            p--;
        }
        cand[p] = q;
    }
    return nc;
}

/* The median figure between the hosts of clusters q and r (members as
 * edge_members lists them), val room for their pairs.
 */
static double edge_between (const double *x, int n, const int *start, const int *member, int q,
                            int r, double *val)
{
    size_t k = 0, t = 0,
           all = (size_t)(start[q + 1] - start[q]) * (size_t)(start[r + 1] - start[r]);
    size_t stride = all > FIT_MAX_PAIRS ? (all + FIT_MAX_PAIRS - 1) / FIT_MAX_PAIRS : 1;

    for (int a = start[q]; a < start[q + 1]; a++)
        for (int b = start[r]; b < start[r + 1]; b++, t++)
            if (t % stride == 0)
                val[k++] = AT (x, n, member[a], member[b]);
    return fit_median (val, k);
}

/* The median figure within cluster q, NaN for one host; as edge_between. */
static double edge_within (const double *x, int n, const int *start, const int *member, int q,
                           double *val)
{
    size_t k = 0, t = 0, s = (size_t)(start[q + 1] - start[q]), all = s < 2 ? 0 : s * (s - 1) / 2;
    size_t stride = all > FIT_MAX_PAIRS ? (all + FIT_MAX_PAIRS - 1) / FIT_MAX_PAIRS : 1;

    for (int a = start[q]; a < start[q + 1]; a++)
        for (int b = a + 1; b < start[q + 1]; b++, t++)
            if (t % stride == 0)
                val[k++] = AT (x, n, member[a], member[b]);
    return k ? fit_median (val, k) : NAN;
}

/* Two edge clusters of two hosts or more whose median figure between them
 * is at most EDGE_MERGE times the lower of their own medians are one edge
 * that a pair measured far off split (the clustering's average let it):
 * merged, each into the nearest such, until none is left.
 */
static void edge_merge (const double *x, int n, int *lab, int m0, int *size, int *start,
                        int *member, double *val, double *intra, double *sum)
{
    for (bool merged = true; merged;) {
        merged = false;
        edge_members (n, lab, m0, size, start, member);
        for (int q = 0; q < m0; q++) {
            int best = -1, cand[EDGE_CANDIDATES], nc;
            double bestmed = INFINITY;
            if (size[q] < 2)
                continue;
            nc = edge_nearest (x, n, member + start[q], size[q], lab, m0, size, sum, q, cand);
            for (int i = 0; i < nc; i++) {
                int r = cand[i];
                double med;
                if (size[r] < 2)
                    continue;
                med = edge_between (x, n, start, member, q, r, val);
                if (med < bestmed || (med == bestmed && r < best)) {
                    bestmed = med;
                    best = r;
                }
            }
            if (best < 0 || !(bestmed <= EDGE_MERGE * fmin (intra[q], intra[best])))
                continue;
            /* one cluster now: best's hosts to q, q's own median again */
            for (int a = start[best]; a < start[best + 1]; a++)
                lab[member[a]] = q;
            edge_members (n, lab, m0, size, start, member);
            intra[q] = edge_within (x, n, start, member, q, val);
            merged = true;
        }
    }
}

static int edge_labels (const double *x, const topo_t *d, int c, int *lab, int *m)
{
    int n = d->nhosts, m0 = 0, *size = NULL, *dense = NULL, *start = NULL, *member = NULL;
    int *next = NULL, rc = -1;
    double *val = NULL, *intra = NULL, *sum = NULL;
    size_t nval = (size_t)n;

    size = calloc ((size_t)n + 1, sizeof (*size));
    dense = malloc ((size_t)d->nvertices * sizeof (*dense));
    start = malloc (((size_t)n + 1) * sizeof (*start));
    member = malloc ((size_t)n * sizeof (*member));
    next = malloc ((size_t)n * sizeof (*next));
    intra = malloc ((size_t)n * sizeof (*intra));
    sum = malloc ((size_t)n * sizeof (*sum));
    if (!size || !dense || !start || !member || !next || !intra || !sum)
        goto done;
    for (int v = 0; v < d->nvertices; v++)
        dense[v] = -1;
    for (int h = 0; h < n; h++) {
        int v = cut_top (d, h, c);
        if (dense[v] < 0)
            dense[v] = m0++;
        lab[h] = dense[v];
        size[lab[h]]++;
    }
    /* room for a row, or the pairs edge_within and edge_between take */
    if (nval < FIT_MAX_PAIRS + 1)
        nval = FIT_MAX_PAIRS + 1;
    if (!(val = malloc (nval * sizeof (*val))))
        goto done;
    /* intra[q]: the median figure within cut cluster q, NaN for one host */
    edge_members (n, lab, m0, size, start, member);
    for (int q = 0; q < m0; q++)
        intra[q] = edge_within (x, n, start, member, q, val);
    /* sweeps: every host to the cluster of least median figure to it (the
     * median: one pair measured far off, as a busy machine gives, must not
     * move a host), all hosts against the same clusters, then moved */
    for (int sweep = 0; sweep < LEVEL_SWEEPS; sweep++) {
        int moved = 0;
        edge_members (n, lab, m0, size, start, member);
        for (int h = 0; h < n; h++) {
            int best = lab[h], cand[EDGE_CANDIDATES + 1], alone = size[lab[h]] == 1;
            int ncand = edge_nearest (x, n, &h, 1, lab, m0, size, sum, -1, cand);
            double bestmed = INFINITY;
            cand[ncand++] = lab[h];
            for (int i = 0; i < ncand; i++) {
                int q = cand[i];
                size_t k = 0;
                for (int a = start[q]; a < start[q + 1]; a++)
                    if (member[a] != h)
                        val[k++] = AT (x, n, h, member[a]);
                if (k == 0)
                    continue;
                /* a host alone at the cut by its nearest host there: noise
                 * slows a pair far more often than it speeds one, and
                 * with two or three hosts a median is a mean */
                double med = alone ? fit_min (val, k) : fit_median (val, k);
                if (med < bestmed || (med == bestmed && q < best)) {
                    bestmed = med;
                    best = q;
                }
            }
            /* a host alone joins a cluster only as one of its own: a host
             * alone on its switch is its own edge */
            if (alone && !(bestmed <= EDGE_JOIN * intra[best]))
                best = lab[h];
            next[h] = best;
            moved += best != lab[h];
        }
        memcpy (lab, next, (size_t)n * sizeof (*lab));
        if (!moved)
            break;
    }
    edge_merge (x, n, lab, m0, size, start, member, val, intra, sum);
    /* renumber the clusters left, in order of their lowest host */
    for (int q = 0; q < m0; q++)
        dense[q] = -1;
    *m = 0;
    for (int h = 0; h < n; h++) {
        if (dense[lab[h]] < 0)
            dense[lab[h]] = (*m)++;
        lab[h] = dense[lab[h]];
    }
    rc = 0;
done:
    if (rc < 0)
        errno = ENOMEM;
    free (size);
    free (dense);
    free (start);
    free (member);
    free (next);
    free (val);
    free (intra);
    free (sum);
    return rc;
}

struct cut_vote {
    int c, v; /* a host's cluster, and its vertex below the next cut */
};

static int cut_vote_cmp (const void *a, const void *b)
{
    const struct cut_vote *x = a, *y = b;

    return x->c != y->c ? (x->c > y->c) - (x->c < y->c) : (x->v > y->v) - (x->v < y->v);
}

static topo_t *cuts_tree (const topo_t *d, const int *lab, int m0, const int *cut, int k,
                          tm_error_t *errp)
{
    int n = d->nhosts, *first = NULL, *m = NULL, *up = NULL, *cl = NULL;
    struct cut_vote *cv = NULL;
    topo_t *t = NULL;
    int nv;

    cv = malloc ((size_t)n * sizeof (*cv));
    first = malloc ((size_t)d->nvertices * sizeof (*first));
    m = calloc ((size_t)k + 2, sizeof (*m));
    up = malloc ((size_t)n * (size_t)(k + 1) * sizeof (*up));
    cl = malloc ((size_t)n * sizeof (*cl));
    if (!cv || !first || !m || !up || !cl) {
        errno = ENOMEM;
        errnomem (errp);
        goto done;
    }
    m[0] = m0;
    memcpy (cl, lab, (size_t)n * sizeof (*cl)); /* each host's level-l cluster */
    /* up[l * n + c]: the level-(l + 1) cluster of level-l cluster c, the
     * vertex below the next cut (or the root) holding most of c's hosts
     * (the lowest on ties): hosts sorted by (cluster, vertex), runs
     * counted */
    for (int l = 0; l < k; l++) {
        int *bestv = up + (size_t)l * (size_t)n;
        for (int h = 0; h < n; h++)
            cv[h] = (struct cut_vote){cl[h], cut_top (d, h, l + 1 < k ? cut[l + 1] : INT_MAX)};
        qsort (cv, (size_t)n, sizeof (*cv), cut_vote_cmp);
        for (int a = 0, bn = 0; a < n;) {
            int b = a;
            while (b < n && cv[b].c == cv[a].c && cv[b].v == cv[a].v)
                b++;
            if (a == 0 || cv[a].c != cv[a - 1].c)
                bn = 0; /* the first run of a cluster */
            if (b - a > bn) {
                bn = b - a;
                bestv[cv[a].c] = cv[a].v;
            }
            a = b;
        }
        /* number the level-(l + 1) clusters in order of their lowest host */
        for (int v = 0; v < d->nvertices; v++)
            first[v] = -1;
        for (int h = 0; h < n; h++) {
            int v = bestv[cl[h]];
            if (first[v] < 0)
                first[v] = m[l + 1]++;
        }
        for (int c = 0; c < m[l]; c++)
            bestv[c] = first[bestv[c]];
        for (int h = 0; h < n; h++)
            cl[h] = bestv[cl[h]];
        if (m[l + 1] >= m[l]) {
            errinval (errp, "level %d has as many switches as the level below", l + 2);
            goto done;
        }
    }
    if (m[k] != 1 || (k > 0 && m[k - 1] < 2)) {
        errinval (errp, "the levels do not end in one root over two switches or more");
        goto done;
    }
    nv = n;
    for (int l = 0; l <= k; l++)
        nv += m[l];
    if (!(t = topo_alloc (TOPO_TREE, n, nv, errp)))
        goto done;
    for (int h = 0, base = n; h < n; h++)
        t->parent[h] = base + lab[h];
    for (int l = 0, base = n; l <= k; base += m[l], l++)
        for (int c = 0; c < m[l]; c++) {
            t->height[base + c] = l + 1;
            t->parent[base + c] = l == k ? -1 : base + m[l] + up[(size_t)l * (size_t)n + (size_t)c];
        }
    t->ngroups = m0;
    memcpy (t->group, lab, (size_t)n * sizeof (*lab));
    t = tree_checked (t, errp);
done:
    free (cv);
    free (first);
    free (m);
    free (up);
    free (cl);
    return t;
}

/* The levels of the clustering of x (symmetric, diagonal 0; dx its
 * dendrogram, or NULL to make it) by its gaps, for noise that spreads a
 * level wide.  Wherever a merge costs LEVEL_MIN_STEP times the one below
 * and at least nine in ten hosts have joined a cluster below it, the gap
 * may separate two levels.  The LEVEL_TRIES largest such gaps are tried
 * as the cuts of cuts_tree, the largest first, one more at a time; each
 * tree is accepted when topo_fit explains x by it (TOPO_FIT_RESIDUAL,
 * TOPO_FIT_SEP), and the accepted one that tells most levels apart, then
 * fits best, is the answer: *classes its hop classes, signal sig.  NULL
 * with errp saying why none (errno ENOMEM: out of memory).
 */
#define LEVEL_MIN_STEP 1.05
#define LEVEL_TRIES    6

struct level_gap {
    double ratio;
    int s; /* the first merge above the gap */
};

static int level_gap_cmp (const void *a, const void *b)
{
    const struct level_gap *x = a, *y = b;

    if (x->ratio != y->ratio)
        return x->ratio > y->ratio ? -1 : 1;
    return x->s - y->s;
}

static int int_cmp (const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static topo_t *infer_by_gaps (int n, const double *x, const topo_t *dx, topo_signal_t sig,
                              int *classes, tm_error_t *errp)
{
    const char *what = sig == TOPO_SIGNAL_BANDWIDTH ? "bandwidths" : "latencies";
    struct level_gap gap[LEVEL_TRIES];
    int nm = n - 1, ngap = 0, kbest = 0, bestnc = 0, joined = 0, *join = NULL;
    int nedge = 0, edge_cut[LEVEL_TRIES], edge_m[LEVEL_TRIES], *edge_lab[LEVEL_TRIES] = {NULL};
    double bestres = NAN, bestsep = NAN;
    topo_t *made = NULL, *best = NULL;
    bool best_ok = true; /* every tree kept here is accepted */
    const topo_t *d = dx;

    if (!d && !(d = made = topo_cluster (n, x, errp)))
        return NULL;
    /* join[s]: the hosts whose first merge is s */
    if (!(join = calloc ((size_t)nm, sizeof (*join)))) {
        errno = ENOMEM;
        errnomem (errp);
        goto done;
    }
    for (int h = 0; h < n; h++)
        join[d->parent[h] - n]++;
    for (int s = 1; s < nm; s++) {
        struct level_gap g = {d->height[n + s] / d->height[n + s - 1], s};
        joined += join[s - 1];
        if (!(g.ratio >= LEVEL_MIN_STEP) || 10 * joined < 9 * n)
            continue;
        if (ngap == LEVEL_TRIES && level_gap_cmp (&g, &gap[ngap - 1]) > 0)
            continue;
        int p = ngap < LEVEL_TRIES ? ngap++ : ngap - 1;
        while (p > 0 && level_gap_cmp (&g, &gap[p - 1]) < 0) {
            gap[p] = gap[p - 1];
            p--;
        }
        gap[p] = g;
    }
    for (int k = 1; k <= ngap; k++) {
        int cut[LEVEL_TRIES], e0;
        tm_error_t e;
        double res, sep;
        int nc;
        topo_t *t;

        for (int q = 0; q < k; q++)
            cut[q] = gap[q].s;
        qsort (cut, (size_t)k, sizeof (*cut), int_cmp);
        /* the edge of each lowest cut once */
        for (e0 = 0; e0 < nedge && edge_cut[e0] != cut[0]; e0++)
            ;
        if (e0 == nedge) {
            if (!(edge_lab[e0] = malloc ((size_t)n * sizeof (int))) ||
                edge_labels (x, d, cut[0], edge_lab[e0], &edge_m[e0]) < 0)
                goto nomem;
            edge_cut[nedge++] = cut[0];
        }
        if (!(t = cuts_tree (d, edge_lab[e0], edge_m[e0], cut, k, &e))) {
            if (errno == ENOMEM)
                goto nomem;
            continue;
        }
        if ((nc = topo_fit (t, n, x, &res, &sep, &e)) < 0) {
            topo_destroy (t);
            if (errno == ENOMEM)
                goto nomem;
            continue;
        }
        t->signal = sig;
        t->residual = res;
        if (bestnc == 0 || nc > bestnc || (nc == bestnc && res < bestres)) {
            bestnc = nc;
            bestres = res;
            bestsep = sep;
        }
        if (fit_accepts (nc, res, sep))
            keep_better (&best, &kbest, &best_ok, t, nc);
        else
            topo_destroy (t);
    }
    if (best) {
        *classes = kbest;
        goto done;
    }
    if (bestnc > 0)
        errinval (errp,
                  "%s fit no tree of levels (best: %d level%s, residual %.3f, levels %.2f "
                  "times apart)",
                  what, bestnc, bestnc == 1 ? "" : "s", bestres, bestsep);
    else
        errinval (errp, "%s show no gap between levels", what);
    goto done;
nomem:
    errno = ENOMEM;
    errnomem (errp);
    topo_destroy (best);
    best = NULL;
done:
    for (int q = 0; q < LEVEL_TRIES; q++)
        free (edge_lab[q]);
    free (join);
    topo_destroy (made);
    return best;
}

topo_t *topo_infer_net (int n, const double *lat_us, const double *bw_MBps, const topo_params_t *p,
                        tm_error_t *errp)
{
    topo_t *lat = NULL, *best = NULL, *cand;
    tm_error_t why = {""}, whylat = {""}, whybw = {""};
    double *sym = NULL, *cost = NULL, sep;
    int kbest = 0, k;
    bool best_ok = false;
    topo_params_t dflt;

    if (infer_check (n, lat_us, &p, &dflt, errp) < 0)
        return NULL;
    if (n == 1)
        return topo_infer (n, lat_us, p, errp);
    if (bw_MBps && matrix_check (n, bw_MBps, "bandwidth", errp) < 0)
        return NULL;
    for (int i = 0; bw_MBps && i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && !isfinite (1 / AT (bw_MBps, n, i, j))) {
                errinval (errp, "bandwidth from host %d to host %d is %g: too small", i, j,
                          AT (bw_MBps, n, i, j));
                return NULL;
            }
    if (!(sym = malloc ((size_t)n * (size_t)n * sizeof (*sym))))
        goto nomem;
    pair_matrix (n, lat_us, true, sym);
    if (!(lat = infer_sym (n, sym, p, errp)))
        goto fail;

    /* The latencies' tree as topo_infer found it, their levels by gaps,
     * the transfer times' levels by gaps: keep_better's choice.  (The
     * first may fail topo_fit: Lawrence & Yuan's classes can split levels
     * the figures do not tell apart.) */
    if (lat->model == TOPO_TREE) {
        if ((k = topo_fit (lat, n, sym, &lat->residual, &sep, &why)) < 0 && errno == ENOMEM)
            goto nomem;
        best = lat;
        kbest = k < 0 ? 0 : k;
        best_ok = k >= 0 && fit_accepts (k, lat->residual, sep);
        lat = NULL;
    }
    if (p->lat_gaps) {
        /* topo_infer's groups are the latencies' dendrogram */
        const topo_t *dlat = lat && lat->model == TOPO_GROUPS ? lat : NULL;
        if ((cand = infer_by_gaps (n, sym, dlat, TOPO_SIGNAL_LATENCY, &k, &whylat)))
            keep_better (&best, &kbest, &best_ok, cand, k);
        else if (errno == ENOMEM)
            goto nomem;
    }
    if (bw_MBps) {
        if (!(cost = malloc ((size_t)n * (size_t)n * sizeof (*cost))))
            goto nomem;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                AT (cost, n, i, j) = i == j ? 0 : 1 / AT (bw_MBps, n, i, j);
        pair_matrix (n, cost, false, cost);
        if ((cand = infer_by_gaps (n, cost, NULL, TOPO_SIGNAL_BANDWIDTH, &k, &whybw)))
            keep_better (&best, &kbest, &best_ok, cand, k);
        else if (errno == ENOMEM)
            goto nomem;
    }
    free (sym);
    free (cost);
    if (best) {
        topo_destroy (lat);
        errclear (errp);
        return best;
    }
    /* groups, as topo_infer said, and why no tree */
    if (errp && (whylat.text[0] || whybw.text[0])) {
        tm_error_t first = *errp;
        errprintf (errp, "%s%s%s%s%s", first.text, whylat.text[0] ? "; " : "", whylat.text,
                   whybw.text[0] ? "; " : "", whybw.text);
    }
    return lat;
nomem:
    errno = ENOMEM;
    errnomem (errp);
fail:
    topo_destroy (lat);
    topo_destroy (best);
    free (sym);
    free (cost);
    return NULL;
}
