/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology_ly.c: Lawrence & Yuan's tree (§3): data clustering of the round
 * trips into classes (§3.2, Figure 7), hop counts from the smallest gap
 * between classes, and the switch tree from the hop counts (§3.1,
 * Figure 4).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "lib/topology.h"
#include "lib/topology_private.h"

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
    if (topo_params_check (p, errp) < 0 || topo_matrix_check (n, rtt, "RTT", errp) < 0)
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
        return errnomem (errp);
    }
    /* Figure 7 line (1): sort the RTTs. */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            pair[x++] = (struct ly_pair){topo_pair_mean (n, rtt, i, j), i, j};
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
        return errnomem (errp);
    }
    for (int v = nv - 1; v >= 0; v--)
        depth[v] = parent[v] == -1 ? 0 : depth[parent[v]] + 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int h = topo_path_switches (parent, depth, i, j);
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
    if (topo_matrix_check (n, rtt, "RTT", errp) < 0)
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
        return errnomem (errp);
    }
    for (int k = 0; k < nclasses; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int k = AT (class, n, i, j);
            double v = topo_pair_mean (n, rtt, i, j);
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
