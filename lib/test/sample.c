/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/sample.h"
#include "lib/test/tap.h"

static unsigned long long seed;

/* Deterministic uniform number in [0, 1). */
static double urand (void)
{
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(seed >> 11) / 9007199254740992.0;
}

#define AT(m, n, i, j) ((m)[(size_t)(i) * (size_t)(n) + (size_t)(j)])

/* A tree of n hosts: `per` hosts an edge, `edges` edges an aggregation
 * switch (0: two levels); host h sits at position perm[h]. */
typedef struct {
    int n, per, edges, *perm;
    double lat[4], bw[4];
} net_t;

static int level (const net_t *t, int a, int b)
{
    int x = t->perm[a], y = t->perm[b];

    if (x / t->per == y / t->per)
        return 1;
    if (!t->edges || x / (t->per * t->edges) != y / (t->per * t->edges))
        return t->edges ? 3 : 2;
    return 2;
}

/* What the probe measures of pair (a, b): its level's figures within
 * +-rel, both directions alike (one ping-pong measures both). */
static void measure (const net_t *t, double rel, int a, int b, double *lat, double *bw)
{
    int l = level (t, a, b), n = t->n;
    double x = t->lat[l] * (1 + rel * (2 * urand () - 1));
    double y = t->bw[l] * (1 + rel * (2 * urand () - 1));

    AT (lat, n, a, b) = AT (lat, n, b, a) = x;
    AT (bw, n, a, b) = AT (bw, n, b, a) = y;
}

/* Figures of pair (a, b) of a simulated network into both directions of
 * lat and bw (n * n). */
typedef void fill_f (const void *net, int n, int a, int b, double *lat, double *bw);

/* Run the plan over n hosts as the probe would, each pair it asks for
 * filled by fill, the matrices fresh (NaN, nothing measured).  Returns
 * the topology (NULL on error, e says why); *pairs the pairs it asked
 * for, *bad how many of them were no pair of two hosts a < b below n or
 * had been asked for before. */
static topo_t *drive (int n, unsigned s, fill_f *fill, const void *net, double *lat, double *bw,
                      int *measured, long *pairs, int *bad, tm_error_t *e)
{
    int k;
    sample_t *sp;
    const pairs_t *ask;
    topo_t *u = NULL;

    memset (measured, 0, (size_t)n * (size_t)n * sizeof (*measured));
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
        lat[i] = bw[i] = NAN;
    *pairs = 0;
    *bad = 0;
    if (!(sp = sample_create (n, lat, bw, measured, NULL, s, e)))
        return NULL;
    while ((k = sample_next (sp, &ask, e)) > 0)
        for (int i = 0; i < k; i++) {
            int a = ask[i].a, b = ask[i].b;
            if (a < 0 || b >= n || a >= b || AT (measured, n, a, b)) {
                (*bad)++;
                continue;
            }
            fill (net, n, a, b, lat, bw);
            AT (measured, n, a, b) = AT (measured, n, b, a) = 1;
            (*pairs)++;
        }
    if (k == 0)
        u = sample_finish (sp, e);
    sample_destroy (sp);
    return u;
}

/* A tree and its noise, for fill_tree. */
typedef struct {
    const net_t *t;
    double rel;
} noisy_t;

static void fill_tree (const void *net, int n, int a, int b, double *lat, double *bw)
{
    const noisy_t *q = net;
    (void)n;
    measure (q->t, q->rel, a, b, lat, bw);
}

/* Run the plan over t as the probe would (drive). */
static topo_t *run (const net_t *t, double rel, unsigned s, double *lat, double *bw, int *measured,
                    long *pairs, int *again, tm_error_t *e)
{
    noisy_t q = {t, rel};
    return drive (t->n, s, fill_tree, &q, lat, bw, measured, pairs, again, e);
}

/* Whether u puts every pair of hosts as many switches apart as t does;
 * the first pair that it does not, in a diagnostic. */
static int exact (const net_t *t, const topo_t *u)
{
    if (!u || u->model != TOPO_TREE) {
        diag ("%s", u ? "groups, no tree" : "no topology");
        return 0;
    }
    for (int a = 0; a < t->n; a++)
        for (int b = a + 1; b < t->n; b++)
            if (topo_hops (u, a, b) != 2 * level (t, a, b) - 1) {
                diag ("hosts %d and %d: %d switches apart, not %d", a, b, topo_hops (u, a, b),
                      2 * level (t, a, b) - 1);
                return 0;
            }
    return 1;
}

/* A random permutation of n (names that do not follow the switches). */
static int *scramble (int n, int really)
{
    int *p = malloc ((size_t)n * sizeof (*p));

    for (int i = 0; i < n; i++)
        p[i] = i;
    for (int i = n - 1; really && i > 0; i--) {
        int j = (int)(urand () * (i + 1)), x = p[i];
        p[i] = p[j];
        p[j] = x;
    }
    return p;
}

static void test_skeleton (void)
{
    ok (sample_skeleton (2) == 2 && sample_skeleton (6) == 6 && sample_skeleton (16) == 6 &&
            sample_skeleton (32) == 10 && sample_skeleton (512) == 68 &&
            sample_skeleton (4096) == 256,
        "skeletons: 2 -> 2, 6 -> 6, 16 -> 6, 32 -> 10, 512 -> 68, 4096 -> 256 hosts");
}

/* Trees of 64 to 192 hosts, names in order and scrambled, each pair's
 * figures within +-15 or 20 % (one draw for both directions, as one
 * ping-pong measures them; levels 1.4 to 1.5 apart need the +-15 % that
 * keeps them apart): each comes back exactly, from fewer pairs than
 * all, none asked twice, every pair not measured filled with its level's
 * median. */
static void test_trees (void)
{
    static const struct {
        int n, per, edges, scrambled;
        double noise, lat[4], bw[4];
        const char *what;
    } cases[] = {
        {64, 16, 0, 0, 0.2, {0, 1.0, 1.5, 0}, {0, 12000, 4000, 0}, "64 hosts, 4 edges, tapered"},
        {64,
         8,
         0,
         1,
         0.15,
         {0, 1.0, 1.5, 0},
         {0, 12000, 12000, 0},
         "64 hosts, 8 edges, scrambled, latency alone"},
        {192,
         16,
         4,
         0,
         0.15,
         {0, 1.0, 1.5, 2.0},
         {0, 12000, 12000, 12000},
         "192 hosts, 3 levels, latency alone"},
        {192,
         8,
         4,
         1,
         0.2,
         {0, 10, 30, 45},
         {0, 120, 35, 12},
         "192 hosts, 3 levels, scrambled, shaped"},
        {128,
         4,
         8,
         0,
         0.15,
         {0, 1.0, 1.4, 2.2},
         {0, 12000, 10000, 3000},
         "128 hosts, a dragonfly's groups"},
    };

    for (size_t c = 0; c < sizeof (cases) / sizeof (cases[0]); c++) {
        int n = cases[c].n, all = 1, twice = 0, filled = 1;
        long most = 0, total = (long)n * (n - 1) / 2;
        double *lat = malloc ((size_t)n * n * sizeof (*lat)),
               *bw = malloc ((size_t)n * n * sizeof (*bw));
        int *measured = malloc ((size_t)n * n * sizeof (*measured));
        net_t t = {n, cases[c].per, cases[c].edges, NULL, {0}, {0}};
        tm_error_t e = {""};

        memcpy (t.lat, cases[c].lat, sizeof (t.lat));
        memcpy (t.bw, cases[c].bw, sizeof (t.bw));
        for (unsigned s = 1; s <= 5; s++) {
            long pairs;
            int again;
            topo_t *u;

            seed = 1000 * c + s;
            t.perm = scramble (n, cases[c].scrambled);
            u = run (&t, cases[c].noise, s, lat, bw, measured, &pairs, &again, &e);
            if (!exact (&t, u)) {
                diag ("%s, seed %u: not the tree%s%s", cases[c].what, s, u ? "" : ": ",
                      u ? "" : e.text);
                all = 0;
            }
            twice += again;
            most = pairs > most ? pairs : most;
            for (int a = 0; u && a < n; a++)
                for (int b = 0; b < n; b++) {
                    double l = AT (lat, n, a, b), w = AT (bw, n, a, b);
                    int lv = level (&t, a, b);
                    if (a == b || AT (measured, n, a, b))
                        continue;
                    /* the median of measured pairs within +-20 % */
                    if (!(fabs (l / t.lat[lv] - 1) <= 0.2 && fabs (w / t.bw[lv] - 1) <= 0.2 &&
                          l == AT (lat, n, b, a)))
                        filled = 0;
                }
            topo_destroy (u);
            free (t.perm);
        }
        ok (all, "%s: the tree in 5 runs of 5", cases[c].what);
        /* scrambled names: the skeleton's runs may see no edge level, and
         * then every pair is measured */
        if (!cases[c].scrambled)
            ok (most < total, "%s: at most %ld of %ld pairs measured", cases[c].what, most, total);
        ok (twice == 0, "%s: no pair asked for twice (%d)", cases[c].what, twice);
        ok (filled, "%s: every pair not measured takes its level's figures, alike both ways",
            cases[c].what);
        free (lat);
        free (bw);
        free (measured);
    }
}

/* Racks of 16 hosts whose pairs differ at random: no tree. */
static void fill_cloud (const void *net, int n, int a, int b, double *lat, double *bw)
{
    int same = a / 16 == b / 16;
    (void)net;
    AT (lat, n, a, b) = AT (lat, n, b, a) = same ? 10 + 10 * urand () : 20 + 40 * urand ();
    AT (bw, n, a, b) = AT (bw, n, b, a) = same ? 1000 + 1000 * urand () : 100 + 400 * urand ();
}

/* A network with no tree: racks whose pairs differ at random.  The plan
 * still ends, with groups or a tree, and fills every pair. */
static void test_cloud (void)
{
    int n = 96, nan = 0, bad;
    double *lat = malloc ((size_t)n * n * sizeof (*lat)),
           *bw = malloc ((size_t)n * n * sizeof (*bw));
    int *measured = malloc ((size_t)n * n * sizeof (*measured));
    long pairs;
    tm_error_t e = {""};
    topo_t *u;

    seed = 99;
    u = drive (n, 3, fill_cloud, NULL, lat, bw, measured, &pairs, &bad, &e);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            nan += a != b && !(AT (lat, n, a, b) > 0 && AT (bw, n, a, b) > 0);
    ok (u && nan == 0, "random racks: a topology, every pair filled (%s)", u ? "" : e.text);
    topo_destroy (u);
    free (lat);
    free (bw);
    free (measured);
}

static void test_faults (void)
{
    int n = 32, k;
    double lat[32 * 32], bw[32 * 32];
    int measured[32 * 32] = {0};
    const pairs_t *ask;
    tm_error_t e = {""};
    sample_t *sp;

    ok (!sample_create (1, lat, bw, measured, NULL, 1, &e) && errno == EINVAL,
        "one host: refused (%s)", e.text);
    ok (!sample_create (4, lat, NULL, measured, NULL, 1, &e) && errno == EINVAL,
        "no bandwidth matrix: refused");
    sp = sample_create (n, lat, bw, measured, NULL, 1, &e);
    ok (sp && !sample_finish (sp, &e) && errno == EINVAL, "finished before the end: refused (%s)",
        e.text);
    k = sample_next (sp, &ask, &e);
    ok (k == 45, "the first pairs are the skeleton's 10 hosts' 45");
    ok (sample_next (sp, &ask, &e) < 0 && errno == EINVAL && strstr (e.text, "was not measured"),
        "a pair asked for and not measured: %s", e.text);
    sample_destroy (sp);

    memset (measured, 0, sizeof (measured));
    sp = sample_create (n, lat, bw, measured, NULL, 1, &e);
    k = sample_next (sp, &ask, &e);
    for (int i = 0; i < k; i++) {
        int a = ask[i].a, b = ask[i].b;
        AT (lat, n, a, b) = AT (lat, n, b, a) = 5;
        AT (bw, n, a, b) = AT (bw, n, b, a) = 100;
        AT (measured, n, a, b) = AT (measured, n, b, a) = 1;
    }
    AT (bw, n, ask[0].a, ask[0].b) = INFINITY;
    ok (sample_next (sp, &ask, &e) < 0 && errno == EINVAL && strstr (e.text, "not finite"),
        "a figure that is not finite: %s", e.text);
    sample_destroy (sp);
    sample_destroy (NULL);
}

/* Up to 6 hosts the skeleton is every host: every pair measured, and the
 * probe's own inference. */
static void test_small (void)
{
    double lat[36], bw[36];
    int measured[36];
    long pairs;
    int again;
    net_t t = {6, 3, 0, NULL, {0, 10, 40, 0}, {0, 120, 12, 0}};
    tm_error_t e;
    topo_t *u;

    seed = 5;
    t.perm = scramble (6, 0);
    u = run (&t, 0.1, 1, lat, bw, measured, &pairs, &again, &e);
    ok (pairs == 15 && exact (&t, u), "6 hosts: all 15 pairs, the tree");
    topo_destroy (u);
    free (t.perm);
}

/* Two switches, names interleaved, 10:1, +-10 %. */
static void fill_two (const void *net, int n, int a, int b, double *lat, double *bw)
{
    int same = a % 2 == b % 2;
    (void)net;
    AT (lat, n, a, b) = AT (lat, n, b, a) = (same ? 10 : 40) * (1 + 0.1 * urand ());
    AT (bw, n, a, b) = AT (bw, n, b, a) = (same ? 120 : 12) * (1 + 0.1 * urand ());
}

/* Every size from 2 to 70 hosts (two switches, names interleaved): the
 * plan ends with a topology, asking only for pairs of two hosts in range
 * that it had not asked for. */
static void test_sizes (void)
{
    int bad = 0, first = 0;

    for (int n = 2; n <= 70 && !bad; n++) {
        double *lat = malloc ((size_t)n * n * sizeof (*lat)),
               *bw = malloc ((size_t)n * n * sizeof (*bw));
        int *measured = malloc ((size_t)n * n * sizeof (*measured));
        long pairs;
        tm_error_t e = {""};
        topo_t *u;

        seed = (unsigned long long)n;
        u = drive (n, (unsigned)n, fill_two, NULL, lat, bw, measured, &pairs, &bad, &e);
        if (!u || (n > 2 && u->ngroups != 2)) {
            diag ("%d hosts: %s", n, u ? "not two groups" : e.text);
            bad = 1;
        }
        if (bad)
            first = n;
        topo_destroy (u);
        free (lat);
        free (bw);
        free (measured);
    }
    ok (!bad, "2 to 70 hosts on two switches: two groups, each pair asked for once (%d)", first);
}

int main (void)
{
    test_skeleton ();
    test_sizes ();
    test_trees ();
    test_cloud ();
    test_faults ();
    test_small ();
    return done_testing ();
}
