/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/test/tap.h"
#include "lib/topology.h"

/* Lawrence & Yuan Figure 6: RawRTT (ms) of Figure 1's cluster,
 * hosts 0,1 on switch s0, 2,3 on s1, 4,5 on s2, s0 - s1 - s2.
 */
static const double fig6[36] = {
    0.0,  .131, .157, .156, .173, .175, /**/
    .134, 0.0,  .159, .158, .176, .177, /**/
    .160, .155, 0.0,  .132, .158, .159, /**/
    .159, .159, .132, 0.0,  .159, .159, /**/
    .176, .176, .159, .159, 0.0,  .132, /**/
    .176, .175, .159, .156, .132, 0.0,
};

/* Figure 8: the hop matrix the paper infers from it. */
static const int fig8[36] = {
    0, 1, 2, 2, 3, 3, /**/
    1, 0, 2, 2, 3, 3, /**/
    2, 2, 0, 1, 2, 2, /**/
    2, 2, 1, 0, 2, 2, /**/
    3, 3, 2, 2, 0, 1, /**/
    3, 3, 2, 2, 1, 0,
};

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

/* Whether topo_hops of every pair of t's hosts is h (n*n). */
static int hops_are (const topo_t *t, const int *h)
{
    int n = t->nhosts;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (topo_hops (t, i, j) != h[i * n + j]) {
                diag ("hosts %d and %d: %d hops, expected %d", i, j, topo_hops (t, i, j),
                      h[i * n + j]);
                return 0;
            }
    return 1;
}

static int checks (const topo_t *t)
{
    tm_error_t e;
    if (!t)
        return 0;
    if (topo_check (t, &e) < 0) {
        diag ("%s", e.text);
        return 0;
    }
    return 1;
}

static int same_topo (const topo_t *a, const topo_t *b)
{
    return a && b && a->model == b->model && a->nhosts == b->nhosts &&
           a->nvertices == b->nvertices && a->ngroups == b->ngroups &&
           memcmp (a->parent, b->parent, (size_t)a->nvertices * sizeof (*a->parent)) == 0 &&
           memcmp (a->height, b->height, (size_t)a->nvertices * sizeof (*a->height)) == 0 &&
           memcmp (a->group, b->group, (size_t)a->nhosts * sizeof (*a->group)) == 0;
}

static void test_paper (void)
{
    static const double range[3][2] = {{0.131, 0.134}, {0.155, 0.160}, {0.173, 0.177}};
    int class[36], hops[36], in_range = 1, symmetric = 1;
    double us[36];
    tm_error_t e;
    topo_t *t;

    int nc = topo_ly_classes (6, fig6, NULL, class, &e);
    ok (nc == 3, "Figure 6's RTTs fall into three classes");
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            int k = class[i * 6 + j];
            if (i == j) {
                symmetric &= k == -1;
                continue;
            }
            symmetric &= k == class[j * 6 + i];
            if (k < 0 || k > 2 || fig6[i * 6 + j] < range[k][0] || fig6[i * 6 + j] > range[k][1])
                in_range = 0;
        }
    ok (in_range, "each RTT is in the range §3.2 gives its class: [.131,.134], [.155,.160], "
                  "[.173,.177]");
    ok (symmetric, "classes are symmetric, -1 on the diagonal");
    ok (class[0 * 6 + 1] == 0 && class[2 * 6 + 3] == 0 && class[4 * 6 + 5] == 0,
        "hosts on one switch are in class 0");

    ok (topo_ly_hops (6, fig6, class, nc, hops, &e) == 0, "hop counts are inferred");
    ok (memcmp (hops, fig8, sizeof (hops)) == 0, "they are Figure 8's hop matrix");

    t = topo_ly_tree (6, fig8, &e);
    ok (t && t->model == TOPO_TREE && t->nvertices == 9, "Figure 8 gives a tree of three switches");
    ok (checks (t), "it passes topo_check");
    if (t) {
        int s0 = t->parent[0], s1 = t->parent[2], s2 = t->parent[4];
        ok (t->parent[1] == s0 && t->parent[3] == s1 && t->parent[5] == s2 && s0 != s1 &&
                s1 != s2 && s0 != s2,
            "hosts 0,1 share a switch, 2,3 another and 4,5 a third");
        ok (t->ngroups == 3 && t->group[0] == 0 && t->group[1] == 0 && t->group[2] == 1 &&
                t->group[3] == 1 && t->group[4] == 2 && t->group[5] == 2,
            "groups are the three switches, in order of their lowest host");
        ok (t->parent[s0] == s1 && t->parent[s2] == s1 && t->parent[s1] == -1,
            "Figure 1's chain s0 - s1 - s2, rooted at its centre s1");
        ok (t->height[s0] == 1 && t->height[s1] == 1 && t->height[s2] == 1,
            "every switch has hosts attached: height 1");
        ok (hops_are (t, fig8), "topo_hops gives back Figure 8");
    }
    topo_destroy (t);

    for (int i = 0; i < 36; i++)
        us[i] = fig6[i] * 1000;
    t = topo_infer (6, us, NULL, &e);
    ok (t && t->model == TOPO_TREE && t->nvertices == 9 && t->ngroups == 3,
        "topo_infer finds Figure 1's tree from Figure 6 in microseconds");
    ok (checks (t) && hops_are (t, fig8), "with Figure 8's hops");
    topo_destroy (t);
}

static void test_two_switches (void)
{
    double lat[64];
    int want[64], groups_ok = 1;
    tm_error_t e;
    topo_t *t, *t2;

    /* 9 us on one switch, 45 us across, +-3% on each direction; hosts
     * interleaved: 0,2,4,6 on one switch, 1,3,5,7 on the other (as
     * contrib/topologies/2sw-interleaved.topo, under a core switch). */
    seed = 2;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            lat[i * 8 + j] = i == j ? NAN : (i % 2 == j % 2 ? 9.0 : 45.0) * noise (0.03);
            want[i * 8 + j] = i == j ? 0 : i % 2 == j % 2 ? 1 : 3;
        }
    t = topo_infer (8, lat, NULL, &e);
    ok (t && t->model == TOPO_TREE, "two switches, interleaved hosts, 3%% noise: a tree");
    ok (checks (t), "it passes topo_check");
    if (t) {
        int s0 = t->parent[0], s1 = t->parent[1];
        for (int h = 0; h < 8; h++)
            groups_ok &= t->group[h] == h % 2 && t->parent[h] == (h % 2 ? s1 : s0);
        ok (t->ngroups == 2 && groups_ok, "groups are {0,2,4,6} and {1,3,5,7}");
        ok (t->nvertices == 11 && s0 != s1 && t->parent[s0] == t->parent[s1] &&
                t->parent[t->parent[s0]] == -1,
            "two latency classes are two levels: edge switches under a core, the root");
        ok (t->height[s0] == 1 && t->height[s1] == 1 && t->height[t->parent[s0]] == 2,
            "heights: edge 1, core 2");
        ok (hops_are (t, want), "one switch between hosts of a group, three across");
    }
    t2 = topo_infer (8, lat, NULL, &e);
    ok (same_topo (t, t2), "a second inference gives identical arrays");
    topo_destroy (t);
    topo_destroy (t2);
}

/* Hosts h of a 3-level tree: edge switch h % 4, aggregation (h % 4) % 2. */
static void test_three_levels (void)
{
    double lat[144];
    int want[144], groups_ok = 1;
    tm_error_t e;
    topo_t *t, *t2;

    seed = 3;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            int same_edge = i % 4 == j % 4, same_agg = i % 2 == j % 2;
            double v = same_edge ? 8.5 : same_agg ? 12.0 : 44.0;
            lat[i * 12 + j] = i == j ? NAN : v * noise (0.03);
            want[i * 12 + j] = i == j ? 0 : same_edge ? 1 : same_agg ? 3 : 5;
        }
    t = topo_infer (12, lat, NULL, &e);
    ok (t && t->model == TOPO_TREE, "3-level tree, 8.5/12/44 us, 3%% noise: a tree");
    ok (checks (t), "it passes topo_check");
    if (t) {
        int e0 = t->parent[0], e1 = t->parent[1], e2 = t->parent[2], e3 = t->parent[3];
        int a0 = t->parent[e0], a1 = t->parent[e1];
        for (int h = 0; h < 12; h++)
            groups_ok &= t->group[h] == h % 4 && t->parent[h] == t->parent[h % 4];
        ok (t->ngroups == 4 && groups_ok, "four edge switches of three hosts: {0,4,8} {1,5,9} ...");
        ok (t->nvertices == 19, "seven switches: four edge, two aggregation, one core");
        ok (t->parent[e2] == a0 && t->parent[e3] == a1 && a0 != a1,
            "edges of hosts 0 and 2 share an aggregation switch, of 1 and 3 the other");
        ok (t->parent[a0] == t->parent[a1] && t->parent[a0] >= 12 && t->parent[t->parent[a0]] == -1,
            "the aggregation switches hang off the core, the root");
        ok (t->height[e0] == 1 && t->height[a0] == 2 && t->height[t->parent[a0]] == 3,
            "heights: edge 1, aggregation 2, core 3");
        ok (hops_are (t, want), "topo_hops is 1 on an edge switch, 3 under one aggregation, 5 "
                                "across the core");
    }
    t2 = topo_infer (12, lat, NULL, &e);
    ok (same_topo (t, t2), "a second inference gives identical arrays");
    topo_destroy (t);
    topo_destroy (t2);
}

/* The emulated 3-level tree with 16 KiB pings: links shaped to 1 Gbit/s,
 * 300 and 100 Mbit/s per level price the levels 69, 230 and 690 us, not
 * by hops, and two pairs of an edge read 81 and 93 us (scheduling).
 * Lawrence & Yuan see five classes; the levels of the dendrogram are the
 * tree.
 */
static void test_shaped_levels (void)
{
    double lat[144];
    int groups_ok = 1, cls[144];
    tm_error_t e;
    topo_t *t;

    seed = 11;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            double v = i / 3 == j / 3 ? 69 : i / 6 == j / 6 ? 230 : 690;
            lat[i * 12 + j] = i == j ? NAN : v * noise (0.01);
        }
    lat[4 * 12 + 5] = lat[5 * 12 + 4] = 81.2;
    lat[10 * 12 + 11] = lat[11 * 12 + 10] = 92.8;
    ok (topo_ly_classes (12, lat, NULL, cls, &e) != 3,
        "shaped levels with two slow pairs: not three classes for Lawrence & Yuan");
    t = topo_infer (12, lat, NULL, &e);
    ok (t && t->model == TOPO_TREE && checks (t), "shaped 3-level tree: a tree all the same (%s)",
        e.text);
    if (t) {
        int e0 = t->parent[0], e1 = t->parent[3], e2 = t->parent[6], a0 = t->parent[e0];
        for (int h = 0; h < 12; h++)
            groups_ok &= t->group[h] == h / 3 && t->parent[h] == t->parent[h / 3 * 3];
        ok (t->ngroups == 4 && groups_ok, "four edge switches: {0,1,2} {3,4,5} {6,7,8} {9,10,11}");
        ok (t->nvertices == 19 && t->parent[e1] == a0 && t->parent[e2] != a0 &&
                t->parent[t->parent[e2]] == t->parent[a0] && t->parent[t->parent[a0]] == -1,
            "edges 0 and 1 under one aggregation switch, 2 and 3 under the other, both under "
            "the core");
        ok (t->height[e0] == 1 && t->height[a0] == 2 && t->height[t->parent[a0]] == 3,
            "levels: edge 1, aggregation 2, core 3");
    }
    topo_destroy (t);

    /* Two switches at 1 KiB: pairs within a switch read 7 or 13 us (two
     * ranks on two cores or one), across 44.  Levels closer than 2.5
     * times are noise: no extra edge level splits the switches. */
    double lat8[64];
    seed = 12;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            double v = i % 2 != j % 2 ? 44 : (i + j) % 4 == 0 ? 7 : 13;
            lat8[i * 8 + j] = i == j ? NAN : v * noise (0.02);
        }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < i; j++)
            lat8[i * 8 + j] = lat8[j * 8 + i];
    t = topo_infer (8, lat8, NULL, &e);
    groups_ok = t && t->ngroups == 2;
    for (int h = 0; t && h < 8; h++)
        groups_ok &= t->group[h] == h % 2;
    ok (checks (t) && groups_ok, "bimodal noise within two switches: their two groups (%s)",
        t && t->model == TOPO_TREE ? "tree" : "groups");
    topo_destroy (t);

    /* A host on the aggregation level, beside two edge switches: hosts on
     * edge switches only is no longer true, so no tree by levels. */
    double lat7[49];
    seed = 13;
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++) {
            double v = i == 6 || j == 6 ? 230 : i / 3 == j / 3 ? 69 : 230;
            lat7[i * 7 + j] = i == j ? NAN : v * noise (0.01);
        }
    t = topo_cluster (7, lat7, &e);
    errno = 0;
    topo_t *lv = topo_levels (t, &e);
    ok (!lv && errno == EINVAL && strstr (e.text, "host 6 joins at level 1"),
        "a host above the edge: no tree by levels (%s)", e.text);
    topo_destroy (lv);
    lv = topo_levels (NULL, &e);
    ok (!lv && errno == EINVAL, "topo_levels of no dendrogram: EINVAL (%s)", e.text);
    topo_destroy (t);
}

/* Three edge switches on one core: the smallest gap reads 2 hops between
 * edges, a triangle of switches; the levels read a star.
 */
static void test_star (void)
{
    double lat[81];
    int want[81];
    tm_error_t e;
    topo_t *t;

    seed = 4;
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++) {
            lat[i * 9 + j] = i == j ? 0 : (i / 3 == j / 3 ? 5.0 : 20.0) * noise (0.02);
            want[i * 9 + j] = i == j ? 0 : i / 3 == j / 3 ? 1 : 3;
        }
    t = topo_infer (9, lat, NULL, &e);
    ok (t && t->model == TOPO_TREE && t->nvertices == 13 && t->ngroups == 3,
        "three edge switches on a core: a star of four switches");
    ok (checks (t) && hops_are (t, want), "three hops between edge switches");
    topo_destroy (t);
}

/* Cloud: two groups, latencies spread at random within and across them,
 * which no tree of switches gives.
 */
static void test_cloud (void)
{
    static const int grp[8] = {0, 0, 0, 1, 1, 0, 1, 1};
    double lat[64];
    int groups_ok = 1, heights_ok = 1;
    tm_error_t e;
    topo_t *t, *t2;

    seed = 5;
    for (int i = 0; i < 8; i++) {
        lat[i * 8 + i] = 0;
        for (int j = i + 1; j < 8; j++)
            lat[i * 8 + j] = lat[j * 8 + i] =
                grp[i] == grp[j] ? 20 + 30 * urand () : 150 + 60 * urand ();
    }
    t = topo_infer (8, lat, NULL, &e);
    ok (t && t->model == TOPO_GROUPS, "random cloud latencies: groups, not a tree");
    ok (t && strstr (e.text, "do not form a switch tree") != NULL,
        "errp says why the tree was given up: %s", e.text);
    ok (checks (t), "it passes topo_check");
    if (t) {
        for (int h = 0; h < 8; h++)
            groups_ok &= t->group[h] == grp[h];
        for (int v = 0; v < t->nvertices; v++)
            heights_ok &= isfinite (t->height[v]) && t->height[v] >= 0;
        ok (t->ngroups == 2 && groups_ok, "groups are {0,1,2,5} and {3,4,6,7}");
        ok (t->nvertices == 15 && t->parent[14] == -1, "a dendrogram of 7 merges, last the root");
        ok (heights_ok && t->height[14] >= 150, "merge costs are the heights, root across groups");
    }
    t2 = topo_infer (8, lat, NULL, &e);
    ok (same_topo (t, t2), "a second inference gives identical arrays");
    topo_destroy (t);
    topo_destroy (t2);

    /* 32 hosts: latencies so dense that raw clustering chains each
     * group's into one class, far wider than noise. */
    double big[32 * 32];
    seed = 7;
    for (int i = 0; i < 32; i++) {
        big[i * 32 + i] = 0;
        for (int j = i + 1; j < 32; j++)
            big[i * 32 + j] = big[j * 32 + i] =
                i % 3 == j % 3 ? 20 + 30 * urand () : 150 + 60 * urand ();
    }
    t = topo_infer (32, big, NULL, &e);
    ok (checks (t) && t->model == TOPO_GROUPS && strstr (e.text, "wider than noise"),
        "32 hosts of dense cloud latencies: groups, %s", e.text);
    groups_ok = t != NULL;
    for (int h = 0; t && h < 32; h++)
        groups_ok &= t->group[h] == h % 3;
    ok (groups_ok && t->ngroups == 3, "groups are the hosts equal modulo 3");
    topo_destroy (t);

    /* One switch: everything within noise. */
    seed = 6;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            lat[i * 8 + j] = i == j ? 0 : 10 * noise (0.03);
    t = topo_cluster (8, lat, &e);
    ok (checks (t) && t->model == TOPO_GROUPS && t->ngroups == 1,
        "topo_cluster of latencies within noise: one group");
    topo_destroy (t);
    t = topo_infer (8, lat, NULL, &e);
    ok (checks (t) && t->model == TOPO_TREE && t->nvertices == 9 && t->ngroups == 1,
        "topo_infer of them: one switch");
    topo_destroy (t);
}

static void test_bad_input (void)
{
    double lat[9] = {0, 10, 10, 10, 0, 10, 10, 10, 0};
    static const int not_tree[9] = {0, 1, 2, 1, 0, 1, 2, 1, 0};
    tm_error_t e;
    topo_t *t;

    e.text[0] = '\0';
    ok (topo_infer (0, lat, NULL, &e) == NULL && e.text[0], "0 hosts are refused: %s", e.text);
    lat[1] = NAN;
    e.text[0] = '\0';
    ok (topo_infer (3, lat, NULL, &e) == NULL && strstr (e.text, "host 0 to host 1"),
        "a NaN latency is refused: %s", e.text);
    lat[1] = -1;
    e.text[0] = '\0';
    ok (topo_infer (3, lat, NULL, &e) == NULL && strstr (e.text, "host 0 to host 1"),
        "a negative latency is refused: %s", e.text);
    lat[1] = 10;
    t = topo_infer (3, lat, NULL, &e);
    lat[1] = 25;
    topo_t *asym = topo_infer (3, lat, NULL, &e);
    ok (t && same_topo (t, asym),
        "one direction over twice the other: the pair is taken at the smaller (%s)", e.text);
    topo_destroy (t);
    topo_destroy (asym);
    lat[1] = 10;
    ok (topo_infer (3, NULL, NULL, &e) == NULL, "no matrix is refused");
    topo_params_t p;
    topo_params_default (&p);
    p.noise_threshold = -1;
    e.text[0] = '\0';
    ok (topo_infer (3, lat, &p, &e) == NULL && e.text[0], "a negative threshold is refused: %s",
        e.text);
    e.text[0] = '\0';
    ok (topo_ly_tree (3, not_tree, &e) == NULL &&
            strncmp (e.text, "hop matrix is not a tree", 24) == 0,
        "topo_ly_tree refuses a hop matrix no tree has: %s", e.text);
    e.text[0] = '\0';
    ok (topo_cluster (0, lat, &e) == NULL && e.text[0], "topo_cluster refuses 0 hosts");

    t = topo_infer (1, lat, NULL, &e);
    ok (checks (t) && t->model == TOPO_TREE && t->nvertices == 1 && t->parent[0] == -1 &&
            t->ngroups == 1 && topo_hops (t, 0, 0) == 0,
        "1 host: a tree of that host alone");
    topo_destroy (t);
    t = topo_cluster (1, lat, &e);
    ok (checks (t) && t->nvertices == 1, "topo_cluster of 1 host: that host alone");
    topo_destroy (t);

    lat[1] = 12;
    lat[3] = 11.8;
    double two[4] = {NAN, 12, 11.8, NAN};
    t = topo_infer (2, two, NULL, &e);
    ok (checks (t) && t->model == TOPO_TREE && t->nvertices == 3 && t->parent[0] == 2 &&
            t->parent[1] == 2 && t->parent[2] == -1 && t->height[2] == 1 &&
            topo_hops (t, 0, 1) == 1 && t->ngroups == 1,
        "2 hosts: one switch");
    topo_destroy (t);
}

static void test_check (void)
{
    tm_error_t e;
    topo_t *t = topo_alloc (TOPO_TREE, 3, 5, &e);

    /* hosts 0 and 1 under switch 3; host 2 and switch 3 under root 4 */
    t->parent[0] = 3;
    t->parent[1] = 3;
    t->parent[2] = 4;
    t->parent[3] = 4;
    ok (topo_check (t, &e) == 0, "topo_check accepts hosts under a switch under a root");
    t->parent[3] = 7;
    ok (topo_check (t, &e) < 0 && strstr (e.text, "vertex 3"),
        "a parent out of range is refused before any walk: %s", e.text);
    t->parent[3] = 4;
    t->parent[4] = 3;
    ok (topo_check (t, &e) < 0 && strstr (e.text, "cycle"), "a cycle is refused: %s", e.text);
    t->parent[4] = -1;
    t->parent[0] = 1;
    ok (topo_check (t, &e) < 0, "a host under a host is refused");
    topo_destroy (t);

    /* 2 hosts under switch 2 under root 3: a switch of one child, as a
     * site's tree may have; as groups, more than a dendrogram can have */
    t = topo_alloc (TOPO_TREE, 2, 4, &e);
    t->parent[0] = 2;
    t->parent[1] = 2;
    t->parent[2] = 3;
    ok (topo_check (t, &e) == 0, "a switch of one child is a tree's: %s", e.text);
    t->model = TOPO_GROUPS;
    ok (topo_check (t, &e) < 0 && strstr (e.text, "at most 3"),
        "more vertices than a dendrogram of 2 hosts can have are refused: %s", e.text);
    topo_destroy (t);
    /* a chain of switches: TOPO_MAX_DEPTH below the root is too deep */
    t = topo_alloc (TOPO_TREE, 2, 1 + TOPO_MAX_DEPTH, &e);
    t->parent[0] = t->parent[1] = 2;
    for (int v = 2; v < TOPO_MAX_DEPTH; v++)
        t->parent[v] = v + 1;
    ok (topo_check (t, &e) == 0, "a host %d switches below the root: %s", TOPO_MAX_DEPTH - 1,
        e.text);
    topo_destroy (t);
    t = topo_alloc (TOPO_TREE, 2, 2 + TOPO_MAX_DEPTH, &e);
    t->parent[0] = t->parent[1] = 2;
    for (int v = 2; v < 1 + TOPO_MAX_DEPTH; v++)
        t->parent[v] = v + 1;
    ok (topo_check (t, &e) < 0 && strstr (e.text, "host 0 lies 64 or more switches below"),
        "a host %d switches below the root is refused: %s", TOPO_MAX_DEPTH, e.text);
    topo_destroy (t);
    /* ... and so is a chain of switches with no host below it (a
     * netmap's: show recursed once a level) */
    t = topo_alloc (TOPO_TREE, 2, 4 + TOPO_MAX_DEPTH, &e);
    t->parent[0] = t->parent[1] = 2;
    t->parent[2] = -1;
    for (int v = 3; v < 4 + TOPO_MAX_DEPTH; v++)
        t->parent[v] = v - 1;
    ok (topo_check (t, &e) < 0 && strstr (e.text, "switch 66 lies 64 or more switches below"),
        "a chain of switches hanging %d deep is refused: %s", TOPO_MAX_DEPTH + 1, e.text);
    topo_destroy (t);
    topo_destroy (NULL);
    ok (1, "topo_destroy accepts NULL");
}

/* The 3-level tree of test_shaped_levels: the level (1 edge, 2
 * aggregation, 3 core) joining hosts at positions pi and pj.
 */
static int level_of (int pi, int pj)
{
    return pi / 3 == pj / 3 ? 1 : pi / 6 == pj / 6 ? 2 : 3;
}

static void test_fit (void)
{
    double lat[144], res = -1, sep = -1;
    int hops[144], nc;
    tm_error_t e;
    topo_t *t;

    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
            lat[i * 12 + j] = i == j ? NAN : (double[]){0, 69, 230, 690}[level_of (i, j)];
    t = topo_infer (12, lat, NULL, &e);
    nc = topo_fit (t, 12, lat, &res, &sep, &e);
    ok (nc == 3 && res == 0 && fabs (sep - 3) < 1e-12,
        "fit: exact levels, 3 classes, residual 0, the nearest 690/230 apart (%d, %g, %g)", nc, res,
        sep);
    seed = 21;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
            if (i != j)
                lat[i * 12 + j] *= noise (0.2);
    nc = topo_fit (t, 12, lat, &res, &sep, &e);
    ok (nc == 3 && res > 0.03 && res < 0.15 && sep > 2.5,
        "fit: +-20 %% jitter, residual %.3f (about a tenth), classes %.2f apart", res, sep);
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
            hops[i * 12 + j] = i == j ? 0 : 2 * level_of (i, j) - 1;
    ok (hops_are (t, hops), "fit: the tree fitted is the 3-level one");
    /* the same pairs as a list: the same fit; a list of some of them */
    {
        pairs_t p[66];
        double x[66], res2 = -1, sep2 = -1;
        int np = 0;
        for (int i = 0; i < 12; i++)
            for (int j = i + 1; j < 12; j++) {
                p[np] = (pairs_t){i, j};
                x[np++] = 0.5 * (lat[i * 12 + j] + lat[j * 12 + i]);
            }
        nc = topo_fit_pairs (t, 12, p, x, np, &res2, &sep2, &e);
        ok (nc == 3 && res2 == res && sep2 == sep,
            "fit of a pair list: as of the matrix (%d, %g, %g)", nc, res2, sep2);
        nc = topo_fit_pairs (t, 12, p, x, 5, &res2, &sep2, &e);
        ok (nc == 2, "fit of the first five pairs (levels 1 and 2): 2 classes (%d)", nc);
        x[3] = -1;
        errno = 0;
        ok (topo_fit_pairs (t, 12, p, x, np, &res2, &sep2, &e) == -1 && errno == EINVAL &&
                strstr (e.text, "pair 3 (hosts 0, 4)"),
            "fit of a pair list: a figure of -1 refused (%s)", e.text);
        p[2] = (pairs_t){0, 12};
        errno = 0;
        ok (topo_fit_pairs (t, 12, p, x, 3, &res2, &sep2, &e) == -1 && errno == EINVAL,
            "fit of a pair list: a host out of range refused (%s)", e.text);
    }
    lat[1] = 0;
    errno = 0;
    ok (topo_fit (t, 12, lat, &res, &sep, &e) == -1 && errno == EINVAL &&
            strstr (e.text, "host 0 to host 1"),
        "fit: a figure of 0 refused (%s)", e.text);
    errno = 0;
    ok (topo_fit (NULL, 12, lat, &res, &sep, &e) == -1 && errno == EINVAL,
        "fit: no tree refused (%s)", e.text);
    topo_t *g = topo_cluster (12, lat, &e);
    errno = 0;
    ok (topo_fit (g, 12, lat, &res, &sep, &e) == -1 && errno == EINVAL,
        "fit: a dendrogram of groups is no tree (%s)", e.text);
    topo_destroy (g);
    topo_destroy (t);
}

/* Both signals: a 3-level tree of 12 hosts whose names are scrambled
 * across the leaves (host h sits at position perm[h]).  Bandwidths come
 * in three clean classes (120, 35, 7 MB/s, +-10 %); latencies are blurred
 * (6-10 us, but a third of the pairs at 34-45 us, whatever their level):
 * the latencies give no tree, the bandwidths give the configured one.
 * On a full fat tree (one bandwidth everywhere) the latencies decide.
 */
static void test_two_signals (void)
{
    static const int perm[12] = {7, 2, 11, 0, 5, 9, 1, 4, 10, 3, 8, 6};
    double lat[144], bw[144];
    int hops[144];
    tm_error_t e;
    topo_t *t;

    seed = 31;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            int lv = level_of (perm[i], perm[j]);
            hops[i * 12 + j] = i == j ? 0 : 2 * lv - 1;
            if (j < i) {
                lat[i * 12 + j] = lat[j * 12 + i];
                bw[i * 12 + j] = bw[j * 12 + i] * noise (0.02);
                continue;
            }
            lat[i * 12 + j] = i == j            ? NAN
                              : urand () < 0.33 ? 34 + 11 * urand ()
                                                : 6 + 4 * urand ();
            bw[i * 12 + j] = i == j ? NAN : (double[]){0, 120, 35, 7}[lv] * noise (0.1);
        }
    t = topo_infer (12, lat, NULL, &e);
    ok (t && !(t->model == TOPO_TREE && hops_are (t, hops)),
        "two signals: the blurred latencies alone do not give the tree (%s)",
        t && t->model == TOPO_TREE ? "another tree" : "groups");
    topo_destroy (t);
    t = topo_infer_net (12, lat, bw, NULL, &e);
    ok (t && t->model == TOPO_TREE && t->signal == TOPO_SIGNAL_BANDWIDTH && checks (t) &&
            hops_are (t, hops) && t->ngroups == 4,
        "two signals: the bandwidths give the configured tree (%s)", e.text);
    ok (t && t->residual >= 0 && t->residual < TOPO_FIT_RESIDUAL,
        "two signals: the fit's residual %.3f is recorded", t ? t->residual : NAN);
    topo_destroy (t);

    /* full fat tree: clean latency levels, one bandwidth */
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            lat[i * 12 + j] = i == j ? NAN : (double[]){0, 2, 3, 4}[level_of (perm[i], perm[j])];
            bw[i * 12 + j] = i == j ? NAN : 1000 * noise (0.1);
        }
    t = topo_infer_net (12, lat, bw, NULL, &e);
    ok (t && t->model == TOPO_TREE && t->signal == TOPO_SIGNAL_LATENCY && hops_are (t, hops) &&
            t->residual == 0,
        "two signals: one bandwidth everywhere, the latencies decide (%s)", e.text);
    topo_destroy (t);
    t = topo_infer_net (12, lat, NULL, NULL, &e);
    ok (t && t->signal == TOPO_SIGNAL_LATENCY && hops_are (t, hops),
        "two signals: no bandwidths, latency alone");
    topo_destroy (t);
    bw[5] = 0;
    errno = 0;
    t = topo_infer_net (12, lat, bw, NULL, &e);
    ok (!t && errno == EINVAL && strstr (e.text, "bandwidth from host 0 to host 5"),
        "two signals: a bandwidth of 0 refused (%s)", e.text);
    topo_destroy (t);
}

/* Hosts sharing a machine's CPUs: two switches by bandwidth (odd and even
 * hosts, 10:1), and latencies that follow which ranks share a core, a
 * three-level pattern across the switches.  Latency tells levels by
 * default, and its tree (more levels) wins; with lat_levels 0 the levels
 * are the bandwidths' alone, and without them the latencies give groups;
 * alike latencies still give their tree of one switch.
 */
static void test_shared_cpus (void)
{
    enum { N = 8 };
    double lat[N * N], core[N * N], alike[N * N], bw[N * N], flat[N * N];
    topo_params_t p;
    tm_error_t e;
    topo_t *t;
    int even = 1;

    seed = 7;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int c = i / 2 == j / 2 ? 1 : i / 4 == j / 4 ? 2 : 3;
            core[i * N + j] = i == j ? NAN : (double[]){0, 5, 10, 20}[c] * noise (0.02);
            alike[i * N + j] = i == j ? NAN : 5 * noise (0.02);
            bw[i * N + j] = i == j ? NAN : (i % 2 == j % 2 ? 100 : 10) * noise (0.05);
            flat[i * N + j] = i == j ? NAN : 50 * noise (0.05);
        }
    memcpy (lat, core, sizeof (lat));
    t = topo_infer_net (N, lat, bw, NULL, &e);
    ok (t && t->model == TOPO_TREE && t->signal == TOPO_SIGNAL_LATENCY && t->ngroups == 4,
        "shared CPUs: by default the latencies' three levels win (%s)", e.text);
    topo_destroy (t);
    topo_params_default (&p);
    p.lat_levels = 0;
    t = topo_infer_net (N, lat, bw, &p, &e);
    for (int i = 0; t && i < N; i++)
        even &= t->group[i] == t->group[i % 2];
    ok (t && t->model == TOPO_TREE && t->signal == TOPO_SIGNAL_BANDWIDTH && t->ngroups == 2 &&
            even && checks (t),
        "shared CPUs: lat_levels 0, the bandwidths' two switches (%s)", e.text);
    topo_destroy (t);
    errclear (&e);
    t = topo_infer_net (N, lat, flat, &p, &e);
    ok (t && t->model == TOPO_GROUPS && strstr (e.text, "latency not weighed for levels"),
        "shared CPUs: lat_levels 0, one bandwidth everywhere: the latencies' groups, no tree (%s)",
        e.text);
    topo_destroy (t);
    memcpy (lat, alike, sizeof (lat));
    t = topo_infer_net (N, lat, flat, &p, &e);
    ok (t && t->model == TOPO_TREE && t->ngroups == 1 && checks (t),
        "shared CPUs: lat_levels 0, alike latencies: their tree of one switch holds (%s)", e.text);
    topo_destroy (t);
}

/* 8 nodes of 2 CPUs as MPICH's probe measured them on the emulated
 * cluster with Slurm 26.05 (two switches of odd and even hosts, 10:1
 * uplink; doc/findings.md): every round trip waits for a CPU, 100 to
 * 220 us with no pattern, while transfers show the switches, 24 to 103
 * MB/s within one, 7 to 12 across; too spread for levels.  Groups, the
 * transfer times' ones; where latencies also stand apart, theirs stay.
 */
static void test_busy_latency (void)
{
    enum { N = 8 };
    static const double lat26[N * N] = {
        0,     185.8, 121.5, 146.8, 149.1, 195.5, 201.9, 204.3, /**/
        185.8, 0,     126.2, 151.0, 158.5, 145.9, 159.1, 101.2, /**/
        121.5, 126.2, 0,     196.0, 156.3, 177.6, 217.0, 105.9, /**/
        146.8, 151.0, 196.0, 0,     147.1, 181.7, 150.1, 174.2, /**/
        149.1, 158.5, 156.3, 147.1, 0,     149.1, 145.7, 144.7, /**/
        195.5, 145.9, 177.6, 181.7, 149.1, 0,     208.5, 139.0, /**/
        201.9, 159.1, 217.0, 150.1, 145.7, 208.5, 0,     136.6, /**/
        204.3, 101.2, 105.9, 174.2, 144.7, 139.0, 136.6, 0,
    };
    static const double bw26[N * N] = {
        0,    8.6,  25.6, 11.6, 30.3, 9.7,  25.9, 7.6,  /**/
        8.6,  0,    11.3, 30.9, 11.2, 29.4, 8.2,  69.8, /**/
        25.6, 11.3, 0,    9.8,  61.0, 10.7, 70.7, 10.8, /**/
        11.6, 30.9, 9.8,  0,    6.7,  98.3, 11.6, 55.6, /**/
        30.3, 11.2, 61.0, 6.7,  0,    11.0, 92.0, 9.1,  /**/
        9.7,  29.4, 10.7, 98.3, 11.0, 0,    8.7,  30.4, /**/
        25.9, 8.2,  70.7, 11.6, 92.0, 8.7,  0,    11.6, /**/
        7.6,  69.8, 10.8, 55.6, 9.1,  30.4, 11.6, 0,
    };
    double lat[N * N];
    tm_error_t e;
    topo_t *t;
    int even = 1;

    t = topo_infer_net (N, lat26, bw26, NULL, &e);
    for (int i = 0; t && i < N; i++)
        even &= t->group[i] == t->group[i % 2];
    ok (t && t->model == TOPO_GROUPS && t->signal == TOPO_SIGNAL_BANDWIDTH && t->ngroups == 2 &&
            even && checks (t),
        "busy latency: the transfer times' two groups, odd and even hosts (%s)", e.text);
    topo_destroy (t);

    for (int i = 0; i < N * N; i++)
        lat[i] = lat26[i] * ((i / N) % 2 == (i % N) % 2 ? 1 : 4);
    t = topo_infer_net (N, lat, bw26, NULL, &e);
    ok (t && t->signal == TOPO_SIGNAL_LATENCY && t->ngroups == 2,
        "busy latency: latencies 4 times apart across keep their groups (%s)", e.text);
    topo_destroy (t);

    /* alike latencies, a tree of one switch: the transfer times' groups;
     * transfers as spread but at random, none (20 draws; gaps in such
     * noise still make a tree of levels 3 times: doc/findings.md) */
    seed = 71;
    for (int i = 0; i < N * N; i++)
        lat[i] = i / N == i % N ? NAN : 150 * noise (0.02);
    t = topo_infer_net (N, lat, bw26, NULL, &e);
    ok (t && t->model == TOPO_TREE && t->ngroups == 1,
        "busy latency: one switch by latency, as the sampling plan takes it (%s)", e.text);
    t = topo_split_one (N, t, lat, bw26, &e);
    even = 1;
    for (int i = 0; t && i < N; i++)
        even &= t->group[i] == t->group[i % 2];
    ok (t && t->model == TOPO_GROUPS && t->signal == TOPO_SIGNAL_BANDWIDTH && even,
        "busy latency: one switch by latency, the transfer times' two groups (%s)", e.text);
    topo_destroy (t);
    int split = 0;
    for (int sd = 0; sd < 20; sd++) {
        double bw[N * N];
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                bw[i * N + j] = bw[j * N + i] = i == j  ? NAN
                                                : j > i ? 7 + 96 * urand ()
                                                        : bw[j * N + i];
        t = topo_split_one (N, topo_infer_net (N, lat, bw, NULL, &e), lat, bw, &e);
        split += !t || (t->model == TOPO_GROUPS && t->ngroups > 1);
        topo_destroy (t);
    }
    ok (split == 0, "busy latency: transfers at random give no groups (%d of 20 did)", split);
}

/* Levels under +-20 % noise, closer than topo_levels' 2.5: a dragonfly
 * of 128 hosts (4 a router, 8 routers a group; 1.0, 1.4, 2.2 us) comes
 * back exactly from latency by its gaps, and a two-level fat tree whose
 * latencies are alike (one bandwidth per level, 3:1) from bandwidth.
 */
static void test_noisy_levels (void)
{
    enum { N = 128 };
    static double lat[N * N], bw[N * N];
    static int hops[N * N];
    tm_error_t e;
    topo_t *t;

    seed = 41;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int lv = i / 4 == j / 4 ? 1 : i / 32 == j / 32 ? 2 : 3;
            hops[i * N + j] = i == j ? 0 : 2 * lv - 1;
            lat[i * N + j] = i == j ? NAN : (double[]){0, 1.0, 1.4, 2.2}[lv] * noise (0.2);
            bw[i * N + j] = i == j ? NAN : 10000 * noise (0.2);
        }
    t = topo_infer (N, lat, NULL, &e);
    ok (t && !(t->model == TOPO_TREE && hops_are (t, hops)),
        "noisy levels: topo_infer alone does not find the dragonfly's three levels");
    topo_destroy (t);
    t = topo_infer_net (N, lat, bw, NULL, &e);
    ok (t && t->model == TOPO_TREE && t->signal == TOPO_SIGNAL_LATENCY && checks (t) &&
            hops_are (t, hops) && t->ngroups == 32,
        "noisy levels: the dragonfly's routers, groups and root from latency (%s)", e.text);
    topo_destroy (t);
    topo_params_t p;
    topo_params_default (&p);
    p.lat_levels = 0;
    t = topo_infer_net (N, lat, bw, &p, &e);
    ok (t && !(t->model == TOPO_TREE && hops_are (t, hops)),
        "noisy levels: with lat_levels 0 (hosts sharing CPUs) the latencies tell no levels");
    topo_destroy (t);
    p.lat_levels = 2;
    errno = 0;
    t = topo_infer_net (N, lat, bw, &p, &e);
    ok (!t && errno == EINVAL && strstr (e.text, "lat_levels 2"),
        "noisy levels: lat_levels 2 refused (%s)", e.text);

    seed = 42;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int lv = i / 16 == j / 16 ? 1 : 2;
            hops[i * N + j] = i == j ? 0 : 2 * lv - 1;
            lat[i * N + j] = i == j ? NAN : 1.2 * noise (0.2);
            bw[i * N + j] = i == j ? NAN : (lv == 1 ? 12000 : 4000) * noise (0.2);
        }
    t = topo_infer_net (N, lat, bw, NULL, &e);
    ok (t && t->model == TOPO_TREE && t->signal == TOPO_SIGNAL_BANDWIDTH && checks (t) &&
            hops_are (t, hops) && t->ngroups == 8,
        "noisy levels: a tapered fat tree with one latency everywhere, from bandwidth (%s)",
        e.text);
    topo_destroy (t);

    /* no levels at all: every pair at random */
    seed = 43;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            lat[i * N + j] = i == j ? NAN : 1 + 9 * urand ();
            bw[i * N + j] = i == j ? NAN : 100 + 900 * urand ();
        }
    t = topo_infer_net (N, lat, bw, NULL, &e);
    ok (t && t->model == TOPO_GROUPS && strstr (e.text, "fit"),
        "noisy levels: pairs at random fit no tree: groups (%s)", e.text);
    topo_destroy (t);
}

/* A host alone on its switch stays its own edge: three switches of four
 * hosts and one of a single host (1.0 us within a switch, 3.0 across),
 * +-20 % noise.  And topo_fit over more pairs than it prices (400 hosts:
 * 79 800 pairs, every second one priced).
 */
static void test_lone_host (void)
{
    enum { N = 13 };
    double lat[N * N], bw[N * N], res, sep;
    int hops[N * N], ok_all = 1;
    tm_error_t e;
    topo_t *t;

    for (unsigned long long sd = 51; sd < 56; sd++) {
        seed = sd;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                int same = i / 4 == j / 4;
                hops[i * N + j] = i == j ? 0 : same ? 1 : 3;
                lat[i * N + j] = i == j ? NAN : (same ? 1.0 : 3.0) * noise (0.2);
                bw[i * N + j] = i == j ? NAN : 1000 * noise (0.2);
            }
        t = topo_infer_net (N, lat, bw, NULL, &e);
        if (!(t && t->model == TOPO_TREE && hops_are (t, hops) && t->ngroups == 4 &&
              t->group[12] == 3)) {
            diag ("seed %llu: %s", sd, t ? "another tree" : e.text);
            ok_all = 0;
        }
        topo_destroy (t);
    }
    ok (ok_all, "lone host: a switch of one host stays its own edge, five seeds of noise");

    enum { M = 400 };
    static double big[M * M];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++)
            big[i * M + j] = i == j ? 0 : i / 20 == j / 20 ? 2 : 6;
    t = topo_infer (M, big, NULL, &e);
    ok (t && topo_fit (t, M, big, &res, &sep, &e) == 2 && res == 0 && sep == 3,
        "fit: 400 hosts, every second pair priced: 2 classes, residual 0, 3 apart (%s)", e.text);
    topo_destroy (t);
}

/* Whether topo_infer_net finds 3level-12 and 3level-16 (leaves of 3 and
 * 4 hosts, two leaves an aggregation) on seeds [from, to) where a leaf's
 * pairs read leaf MB/s (+-leaf_noise), pairs across leaves agg[0] under
 * the first aggregation and agg[1] under the other (+-agg_noise), and
 * pairs across aggregations 12.3 (+-5 %).
 */
static bool busy_aggregations (double leaf_bw, double leaf_noise, const double agg_bw[2],
                               double agg_noise, unsigned long long from, unsigned long long to)
{
    enum { N = 16 };
    static const int nhosts[] = {12, 16}, width[] = {3, 4};
    double lat[N * N], bw[N * N];
    int hops[N * N];
    bool found = true;
    tm_error_t e;

    for (int k = 0; k < 2; k++)
        for (unsigned long long sd = from; sd < to; sd++) {
            int n = nhosts[k], w = width[k];
            seed = sd;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    int leaf = i / w == j / w, agg = i / (2 * w) == j / (2 * w);
                    hops[i * n + j] = i == j ? 0 : leaf ? 1 : agg ? 3 : 5;
                    lat[i * n + j] = i == j ? NAN : (urand () < 0.5 ? 7 : 13) * noise (0.05);
                    bw[i * n + j] = i == j ? NAN
                                    : leaf ? leaf_bw * noise (leaf_noise)
                                    : agg  ? agg_bw[i < 2 * w ? 0 : 1] * noise (agg_noise)
                                           : 12.3 * noise (0.05);
                }
            topo_t *t = topo_infer_net (n, lat, bw, NULL, &e);
            if (!(t && t->model == TOPO_TREE && hops_are (t, hops))) {
                diag ("%d hosts, seed %llu: %s: %s", n, sd, t ? "another tree" : "none", e.text);
                found = false;
            }
            topo_destroy (t);
        }
    return found;
}

/* A busy host (t1010's trees beside a CPU hog): one host's pairs inside
 * its leaf read 66-76 MB/s against the leaf's 110-117, its pairs beyond
 * the leaf what the uplinks allow; latencies at 1 KiB tell no levels.
 * The host is still nearer its leaf than anything else: the tree stays
 * the configured one.  3level-12 (leaves of 3; 300 and 100 Mbit/s) and
 * 3level-16 (leaves of 4; 400 and 100 Mbit/s).
 */
static void test_busy_host (void)
{
    enum { N = 16 };
    static const struct {
        int n, leaf;
        double agg;
    } tree[] = {{12, 3, 37}, {16, 4, 50}};
    double lat[N * N], bw[N * N];
    int hops[N * N], ok_all = 1;
    tm_error_t e;
    topo_t *t;

    for (int k = 0; k < 2; k++)
        for (unsigned long long sd = 81; sd < 86; sd++) {
            int n = tree[k].n, w = tree[k].leaf, slow = w + 2;
            seed = sd;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    int leaf = i / w == j / w, agg = i / (2 * w) == j / (2 * w);
                    hops[i * n + j] = i == j ? 0 : leaf ? 1 : agg ? 3 : 5;
                    lat[i * n + j] = i == j ? NAN : (urand () < 0.5 ? 7 : 13) * noise (0.05);
                    bw[i * n + j] = i == j ? NAN
                                           : (leaf  ? 113
                                              : agg ? tree[k].agg
                                                    : 12.3) *
                                                 noise (0.03);
                    if (leaf && (i == slow || j == slow) && i != j)
                        bw[i * n + j] = 71 * noise (0.07);
                }
            t = topo_infer_net (n, lat, bw, NULL, &e);
            if (!(t && t->model == TOPO_TREE && hops_are (t, hops))) {
                diag ("%d hosts, seed %llu: %s: %s", n, sd, t ? "another tree" : "none", e.text);
                ok_all = 0;
            }
            topo_destroy (t);
        }
    ok (ok_all, "busy host: a host slowed 1.6 times inside its leaf stays in it, 3level-12 and "
                "3level-16, five seeds each");

    /* Host 3 alone on its switch, whose parent holds one other edge
     * ({0,1,2}) at three times the edge's cost: its own edge still. */
    ok_all = 1;
    for (unsigned long long sd = 91; sd < 96; sd++) {
        enum { M = 10 };
        static const int leaf_of[M] = {0, 0, 0, 1, 2, 2, 2, 3, 3, 3};
        seed = sd;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < M; j++) {
                int leaf = leaf_of[i] == leaf_of[j], agg = (i < 4) == (j < 4);
                hops[i * M + j] = i == j ? 0 : leaf ? 1 : agg ? 3 : 5;
                lat[i * M + j] = i == j ? NAN : (urand () < 0.5 ? 7 : 13) * noise (0.05);
                bw[i * M + j] = i == j ? NAN : (leaf ? 113 : agg ? 37 : 12.3) * noise (0.03);
            }
        t = topo_infer_net (M, lat, bw, NULL, &e);
        if (!(t && t->model == TOPO_TREE && hops_are (t, hops))) {
            diag ("seed %llu: %s: %s", sd, t ? "another tree" : "none", e.text);
            ok_all = 0;
        }
        topo_destroy (t);
    }
    ok (ok_all, "busy host: a host alone on its switch beside one edge 3 times nearer stays "
                "alone, five seeds");

    /* One aggregation's leaves read 1.3 times nearer each other than the
     * other's (43 against 33 MB/s, +-15 %; t1010 beside a hog): no level
     * of its own, the configured tree. */
    ok (busy_aggregations (113, 0.1, (const double[]){43, 33}, 0.15, 101, 111),
        "busy host: one aggregation's leaves 1.3 times nearer than the other's add no "
        "level, 3level-12 and 3level-16, ten seeds each");

    /* And the leaves slowed to 60 MB/s (forwarding-bound): one
     * aggregation's leaves 1.5 times apart, the other's 2, the tree that
     * keeps both its leaves over the one that makes it one edge. */
    ok (busy_aggregations (60, 0.2, (const double[]){40, 30}, 0.2, 121, 141),
        "busy host: leaves at 60 MB/s, 1.5 and 2 times their aggregations' pairs: the "
        "tree with every leaf, 3level-12 and 3level-16, twenty seeds each");
}

int main (void)
{
    plan (NO_PLAN);
    test_paper ();
    test_two_switches ();
    test_three_levels ();
    test_shaped_levels ();
    test_fit ();
    test_two_signals ();
    test_noisy_levels ();
    test_shared_cpus ();
    test_busy_latency ();
    test_lone_host ();
    test_busy_host ();
    test_star ();
    test_cloud ();
    test_bad_input ();
    test_check ();
    return done_testing ();
}
