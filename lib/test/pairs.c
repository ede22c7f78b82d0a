/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/pairs.h"
#include "lib/test/tap.h"

static unsigned long long seed;

/* Deterministic uniform number in [0, 1). */
static double urand (void)
{
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(seed >> 11) / 9007199254740992.0;
}

/* A factor within +-rel of 1. */
static double noise (double rel)
{
    return 1 + rel * (2 * urand () - 1);
}

#define N           12
#define AT(m, i, j) ((m)[(i)*N + (j)])

/* 3level-12: hosts in 4 edges of 3, edges 0-1 and 2-3 under one
 * aggregation switch each; the level of the pair's top switch (1, 2, 3).
 */
static int level (int a, int b)
{
    return a / 3 == b / 3 ? 1 : a / 6 == b / 6 ? 2 : 3;
}

/* Figures of a three-level tree, within +-rel of 10/30/45 us and
 * 120/35/12 MB/s per level, both directions alike; every pair measured.
 */
static void tree (double rel, double *lat, double *bw, int *measured)
{
    static const double l[] = {0, 10, 30, 45}, w[] = {0, 120, 35, 12};

    for (int a = 0; a < N; a++)
        for (int b = a; b < N; b++) {
            double x = a == b ? 2 : l[level (a, b)] * noise (rel);
            double y = a == b ? 5000 : w[level (a, b)] * noise (rel);
            AT (lat, a, b) = AT (lat, b, a) = x;
            AT (bw, a, b) = AT (bw, b, a) = y;
            AT (measured, a, b) = AT (measured, b, a) = 1;
        }
}

static void test_doubt (void)
{
    double lat[N * N], bw[N * N];
    int measured[N * N], np, clean = 1;
    pairs_t out[N * N];
    tm_error_t e;

    for (seed = 1; seed <= 5; seed++) {
        tree (0.2, lat, bw, measured);
        np = pairs_doubt (N, lat, bw, measured, 2, N * N, out, &e);
        if (np != 0) {
            diag ("seed %llu: %d pairs in doubt, the first %d-%d", seed, np, out[0].a, out[0].b);
            clean = 0;
        }
    }
    ok (clean, "+-20 %% noise on a three-level tree: no pair in doubt (5 seeds)");

    /* one edge pair's bandwidth cut to a tenth and one pair's latency
     * across two edges five times: those two, the bandwidth's first (the
     * farther off: about 10 against 5) */
    seed = 7;
    tree (0.2, lat, bw, measured);
    AT (bw, 3, 5) = AT (bw, 5, 3) = 12;
    AT (lat, 1, 4) = AT (lat, 4, 1) = 150;
    np = pairs_doubt (N, lat, bw, measured, 2, N * N, out, &e);
    ok (np == 2 && out[0].a == 3 && out[0].b == 5 && out[1].a == 1 && out[1].b == 4,
        "a slowed edge pair and a slowed latency are in doubt, farthest off first (%d: %d-%d)", np,
        np > 0 ? out[0].a : -1, np > 0 ? out[0].b : -1);
    ok (pairs_doubt (N, lat, bw, measured, 2, 1, out, &e) == 1 && out[0].a == 3 && out[0].b == 5,
        "at most max pairs, the farthest off");
    ok (pairs_doubt (N, NULL, bw, measured, 2, N * N, out, &e) == 1 &&
            pairs_doubt (N, lat, NULL, measured, 2, N * N, out, &e) == 1 && out[0].a == 1,
        "each signal alone finds its own slowed pair");
    ok (pairs_doubt (N, lat, bw, measured, 20, N * N, out, &e) == 0,
        "at ratio 20 neither is in doubt");
    /* one direction slowed: the pair's lower latency is its figure */
    tree (0, lat, bw, measured);
    AT (lat, 2, 9) = 400;
    ok (pairs_doubt (N, lat, NULL, measured, 2, N * N, out, &e) == 0,
        "a latency slowed one way only is no doubt: the pair takes the lower");
    AT (bw, 0, 1) = 10;
    ok (pairs_doubt (N, NULL, bw, measured, 2, N * N, out, &e) == 1 && out[0].a == 0 &&
            out[0].b == 1,
        "a bandwidth slowed one way: the mean transfer time puts the pair in doubt");

    /* pairs not measured: never in doubt, never a path */
    tree (0, lat, bw, measured);
    AT (bw, 3, 5) = AT (bw, 5, 3) = 28;
    AT (measured, 3, 4) = AT (measured, 4, 3) = 0;
    AT (measured, 4, 5) = AT (measured, 5, 4) = 0;
    ok (pairs_doubt (N, NULL, bw, measured, 2, N * N, out, &e) == 0,
        "with its edge's other pairs not measured, a slow pair has no path to doubt it by");
    AT (measured, 3, 4) = AT (measured, 4, 3) = 1;
    AT (measured, 3, 5) = AT (measured, 5, 3) = 0;
    AT (bw, 4, 5) = AT (bw, 5, 4) = 28;
    np = pairs_doubt (N, NULL, bw, measured, 2, N * N, out, &e);
    ok (np == 0, "a pair not measured is never in doubt, nor a path (%d)", np);

    ok (pairs_doubt (N, lat, bw, measured, 0.5, N, out, &e) < 0 && errno == EINVAL,
        "a ratio below 1 is refused");
    ok (pairs_doubt (0, lat, bw, measured, 2, N, out, &e) < 0 && errno == EINVAL,
        "no hosts is refused");
    ok (pairs_doubt (1, lat, bw, measured, 2, 1, out, &e) == 0, "one host: no pair");
}

static void test_rounds (void)
{
    pairs_t p[] = {{0, 1}, {0, 2}, {3, 4}, {1, 2}, {2, 5}, {1, 3}, {4, 5}};
    int np = (int)(sizeof (p) / sizeof (p[0])), r, disjoint = 1, order = 1, nr = 0;
    pairs_t q[sizeof (p) / sizeof (p[0])];
    tm_error_t e;

    memcpy (q, p, sizeof (p));
    r = pairs_rounds (6, q, np, &e);
    /* each pair after its hosts' pairs before it: {0-1, 3-4}, {0-2},
     * {1-2}, {2-5, 1-3}, {4-5} */
    ok (r == 5, "pairs_rounds: 5 rounds (%d)", r);
    /* cut q into rounds where a host repeats */
    {
        int busy[6] = {0};
        for (int i = 0; i < np; i++) {
            if (i == 0 || busy[q[i].a] || busy[q[i].b]) {
                memset (busy, 0, sizeof (busy));
                nr++;
            }
            busy[q[i].a] = busy[q[i].b] = 1;
        }
    }
    disjoint = nr == r;
    /* each host meets its pairs in the input order */
    for (int h = 0; h < 6; h++) {
        int k = 0;
        for (int i = 0; i < np; i++)
            if (q[i].a == h || q[i].b == h) {
                while (k < np && p[k].a != h && p[k].b != h)
                    k++;
                if (k == np || p[k].a != q[i].a || p[k].b != q[i].b)
                    order = 0;
                k++;
            }
    }
    ok (disjoint, "the pairs fall in %d runs of disjoint pairs (%d)", r, nr);
    ok (order, "each host meets its pairs in their order");
    ok (q[0].a == 0 && q[0].b == 1 && q[1].a == 3 && q[1].b == 4 && q[2].a == 0 && q[2].b == 2 &&
            q[4].a == 2 && q[4].b == 5 && q[5].a == 1 && q[5].b == 3,
        "the first round is 0-1, 3-4, the second 0-2; 2-5 and 1-3 share the fourth");
    ok (pairs_rounds (6, q, 0, &e) == 0, "no pairs: no rounds");
    q[0] = (pairs_t){2, 2};
    ok (pairs_rounds (6, q, 1, &e) < 0 && errno == EINVAL && strstr (e.text, "pair 0 (2, 2)"),
        "a pair of one host is refused: %s", e.text);
    q[0] = (pairs_t){1, 6};
    ok (pairs_rounds (6, q, 1, &e) < 0 && errno == EINVAL, "a host out of range is refused");
}

#define AL(m, i, j) ((m)[(i)*L + (j)])

/* A host whose pairs a busy core slowed: 13 hosts, edges of four (120
 * MB/s within, 30 across); host 12 belongs with hosts 0-3 but its pairs
 * there read 75, and the tree left it alone.  Slowed further, below its
 * pairs to the next edge; and a host alone for real.
 */
static void test_lone (void)
{
    enum { L = 13 };
    double bw[L * L], lat[L * L];
    int measured[L * L], group[L], ngroups = 4;
    pairs_t out[L * L];
    tm_error_t e;
    int np, in0 = 1, in1 = 1;

    for (int a = 0; a < L; a++) {
        group[a] = a < 12 ? a / 4 : 3;
        for (int b = 0; b < L; b++) {
            int same = a / 4 == b / 4 || (a == 12 && b < 4) || (b == 12 && a < 4);
            AL (measured, a, b) = a != b;
            AL (bw, a, b) = a == b ? NAN : same ? 120 : 30;
            AL (lat, a, b) = a == b ? NAN : same ? 10 : 40;
        }
    }
    for (int b = 0; b < 4; b++)
        AL (bw, 12, b) = AL (bw, b, 12) = 75;
    np = pairs_lone (L, NULL, bw, measured, group, ngroups, L * L, out, &e);
    for (int i = 0; i < np; i++) {
        in0 &= i >= 4 || (out[i].a == i && out[i].b == 12);
        in1 &= i < 4 || (out[i].a == i && out[i].b == 12);
    }
    ok (np == 8 && in0 && in1,
        "lone: a host slowed to 1.6 times its edge's figure: its 4 pairs there, then 4 with the "
        "next nearest edge (%d)",
        np);
    ok (pairs_lone (L, NULL, bw, measured, group, ngroups, 3, out, &e) == 3 && out[2].a == 2 &&
            out[2].b == 12,
        "lone: at most max pairs, the nearest edge first");
    ok (pairs_lone (L, lat, NULL, measured, group, ngroups, L * L, out, &e) == 8 && out[0].a == 0 &&
            out[0].b == 12,
        "lone: on latency too (10 within, its own 10)");
    /* slowed to 27 in its own edge, 45 to edge 1 beside it, 12 to edge 2
     * a level up (t1010's 3level-16 under a CPU hog): its own edge second */
    for (int b = 0; b < 12; b++)
        AL (bw, 12, b) = AL (bw, b, 12) = b < 4 ? 27 : b < 8 ? 45 : 12;
    np = pairs_lone (L, NULL, bw, measured, group, ngroups, L * L, out, &e);
    ok (np == 8 && out[0].a == 4 && out[3].a == 7 && out[4].a == 0 && out[7].a == 3,
        "lone: its own edge read below the next: both measured again, the nearer first (%d)", np);
    /* alone for real: 30 to every edge, 4 times an edge's figure */
    for (int b = 0; b < 12; b++)
        AL (bw, 12, b) = AL (bw, b, 12) = 30;
    ok (pairs_lone (L, NULL, bw, measured, group, ngroups, L * L, out, &e) == 8,
        "lone: a host alone for real: its pairs with two edges, once");
    /* no host alone: none */
    group[12] = 0;
    ok (pairs_lone (L, NULL, bw, measured, group, 3, L * L, out, &e) == 0,
        "lone: no host alone: none");
    ok (pairs_lone (L, lat, bw, measured, group, 3, L, out, &e) < 0 && errno == EINVAL,
        "lone: one signal, not two");
    group[12] = 7;
    ok (pairs_lone (L, NULL, bw, measured, group, 3, L, out, &e) < 0 && errno == EINVAL &&
            strstr (e.text, "host 12 in group 7"),
        "lone: a group out of range is refused (%s)", e.text);
}

/* Whether out[0..np) holds pair a-b. */
static int has_pair (const pairs_t *out, int np, int a, int b)
{
    for (int i = 0; i < np; i++)
        if (out[i].a == a && out[i].b == b)
            return 1;
    return 0;
}

/* Edges split by slowed pairs: 3level-12 (edges 0-2, 3-5 under one
 * aggregation switch, 6-8, 9-11 under the other) with host 0's pairs in
 * its edge slowed to 40 MB/s, about the level above (35), so that a tree
 * puts host 0 on an edge of its own. */
static void test_split (void)
{
    double lat[N * N], bw[N * N];
    int measured[N * N], group[N], np;
    int up4[] = {100, 100, 101, 101}, up5[] = {100, 100, 100, 101, 101};
    pairs_t out[N * N];
    tm_error_t e;

    tree (0, lat, bw, measured);
    for (int h = 0; h < N; h++)
        group[h] = h / 3;
    ok (pairs_split (N, NULL, bw, measured, group, up4, 4, N * N, out, &e) == 0,
        "split: edges of three hosts under each switch: none (9 pairs between two)");
    AT (bw, 0, 1) = AT (bw, 1, 0) = AT (bw, 0, 2) = AT (bw, 2, 0) = 40;
    /* host 0 alone; its edge's other two, and hosts 3-5, beside it */
    for (int h = 0; h < N; h++)
        group[h] = h == 0 ? 0 : h < 3 ? 1 : (h + 3) / 3;
    np = pairs_split (N, NULL, bw, measured, group, up5, 5, N * N, out, &e);
    ok (np == 5 && has_pair (out, np, 0, 1) && has_pair (out, np, 0, 2) &&
            has_pair (out, np, 0, 3) && has_pair (out, np, 0, 5),
        "split: host 0 and the edges beside it of 2 and 3 hosts: 5 pairs (%d)", np);
    np = pairs_split (N, NULL, bw, measured, group, up5, 5, 2, out, &e);
    ok (np == 2 && has_pair (out, np, 0, 1) && has_pair (out, np, 0, 2),
        "split: at most max pairs, the closest edges' first (%d)", np);
    ok (pairs_split (N, lat, NULL, measured, group, up5, 5, N * N, out, &e) == 5,
        "split: on latency too");
    up5[2] = 102; /* hosts 3-5 under a switch of their own */
    np = pairs_split (N, NULL, bw, measured, group, up5, 5, N * N, out, &e);
    ok (np == 2 && has_pair (out, np, 0, 1), "split: only sibling edges (%d)", np);
    up5[0] = -1;
    ok (pairs_split (N, NULL, bw, measured, group, up5, 5, N * N, out, &e) == 0,
        "split: an edge at the root has no siblings");
    up5[0] = 100;
    AT (measured, 0, 1) = AT (measured, 1, 0) = AT (measured, 0, 2) = AT (measured, 2, 0) = 0;
    ok (pairs_split (N, NULL, bw, measured, group, up5, 5, N * N, out, &e) == 0,
        "split: two edges with no pair measured between them: none");
    ok (pairs_split (N, NULL, bw, measured, group, up5, 5, 0, out, &e) == 0, "split: max 0");
    ok (pairs_split (N, lat, bw, measured, group, up5, 5, N, out, &e) < 0 && errno == EINVAL,
        "split: one signal, not two");
    ok (pairs_split (N, NULL, bw, measured, group, NULL, 5, N, out, &e) < 0 && errno == EINVAL,
        "split: no switches above the edges is refused");
    group[11] = 5;
    ok (pairs_split (N, NULL, bw, measured, group, up5, 5, N, out, &e) < 0 && errno == EINVAL &&
            strstr (e.text, "host 11 in group 5"),
        "split: a group out of range is refused (%s)", e.text);
}

int main (void)
{
    test_doubt ();
    test_rounds ();
    test_lone ();
    test_split ();
    return done_testing ();
}
