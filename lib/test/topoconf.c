/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/compat.h"
#include "lib/error.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"
#include "lib/topoconf.h"

/* contrib/topologies/3level-12.topo as Slurm's topology.conf, with some
 * of what Slurm's parser allows: keys in any case, comments, a line
 * continued, LinkSpeed. */
static const char three_level[] = "# 3level-12\n"
                                  "#topomap level=1 latency_us=10 bandwidth_MBps=120\n"
                                  "#topomap level=2 latency_us=30 bandwidth_MBps=35\n"
                                  "#topomap level=3 latency_us=45 bandwidth_MBps=12\n"
                                  "SwitchName=e1 Nodes=n[1-3]   # first edge\n"
                                  "switchname=e2 nodes=n[4-6] LinkSpeed=100\n"
                                  "SwitchName=e3 \\\n"
                                  "  Nodes=n[7-9]\n"
                                  "SwitchName=e4 Nodes=n[10-12]\n"
                                  "SwitchName=agg1 Switches=e[1-2]\n"
                                  "SwitchName=agg2 Switches=e[3-4]\n"
                                  "SwitchName=core Switches=agg[1-2]\n";

static char conf[PATH_MAX];

static topo_t *read_text (const char *text, int *n, char ***hosts, topoconf_level_t *levels,
                          tm_error_t *e)
{
    write_file (conf, text, strlen (text), 0644);
    return topoconf_read (conf, n, hosts, levels, e);
}

/* The canonical nested form of t over names, as netmap show prints it. */
static char *nested (topo_t *t, int n, char **names)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    int root = -1;

    (void)n;
    for (int v = 0; v < t->nvertices && root < 0; v++)
        if (t->parent[v] == -1)
            root = v;
    if (!f || root < 0 || t->model != TOPO_TREE ||
        topo_nested (f, t, (const char *const *)names, root) < 0) {
        if (f)
            fclose (f);
        free (buf);
        return strdup ("(no tree)");
    }
    fclose (f);
    return buf;
}

static void test_read (void)
{
    topoconf_level_t lv[TOPOCONF_LEVELS];
    char **hosts = NULL, *s;
    int n = 0;
    tm_error_t e = {""};
    topo_t *t = read_text (three_level, &n, &hosts, lv, &e);

    ok (t && n == 12 && !strcmp (hosts[0], "n1") && !strcmp (hosts[11], "n12"),
        "every node of the file, in its order, without a host list (%s)", e.text);
    s = t ? nested (t, n, hosts) : strdup ("");
    ok (!strcmp (s, "(((n1 n2 n3) (n4 n5 n6)) ((n7 n8 n9) (n10 n11 n12)))"),
        "the three-level tree: %s", s);
    free (s);
    ok (t && t->nvertices == 19 && t->ngroups == 4 && t->height[12] == 1 && t->height[18] == 3 &&
            t->signal == TOPO_SIGNAL_SITE,
        "7 switches, 4 groups, the edge at level 1 and the core at 3, from the site");
    ok (lv[1].lat_us == 10 && lv[2].bw_MBps == 35 && lv[3].lat_us == 45 && isnan (lv[4].lat_us),
        "the figures of levels 1 to 3, none for level 4");

    netmap_t *nm = t ? topoconf_netmap (t, n, (const char *const *)hosts, lv, &e) : NULL;
    ok (nm && NETMAP_AT (nm, lat_us, 0, 2) == 10 && NETMAP_AT (nm, bw_MBps, 0, 4) == 35 &&
            NETMAP_AT (nm, lat_us, 11, 0) == 45 && NETMAP_AT (nm, measured, 0, 1) == 0 &&
            isnan (NETMAP_AT (nm, lat_us, 3, 3)),
        "its netmap: each pair its level's figures, none measured (%s)", e.text);

    /* written and read back: the same tree, and the same text again */
    char out1[PATH_MAX], out2[PATH_MAX], *text1 = NULL, *text2 = NULL;
    size_t len;
    snprintf (out1, sizeof (out1), "%s/out1.conf", dir);
    snprintf (out2, sizeof (out2), "%s/out2.conf", dir);
    FILE *f = fopen (out1, "w");
    int rc = nm ? topoconf_write (f, nm, "test", &e) : -1;
    fclose (f);
    text1 = read_file (out1, &len);
    ok (rc == 0 && text1 && strstr (text1, "\nSwitchName=l1s1 Nodes=n[1-3]\n") &&
            strstr (text1, "\nSwitchName=l1s4 Nodes=n[10-12]\n") &&
            strstr (text1, "\nSwitchName=l2s2 Switches=l1s[3-4]\n") &&
            strstr (text1, "\nSwitchName=l3s1 Switches=l2s[1-2]\n") &&
            strstr (text1, "\n#topomap level=2 latency_us=30 bandwidth_MBps=35\n"),
        "written: switches named for their level, compressed lists, the levels' figures");
    char **hosts2 = NULL;
    int n2 = 0;
    topo_t *t2 = topoconf_read (out1, &n2, &hosts2, lv, &e);
    s = t2 ? nested (t2, n2, hosts2) : strdup ("");
    ok (!strcmp (s, "(((n1 n2 n3) (n4 n5 n6)) ((n7 n8 n9) (n10 n11 n12)))"),
        "read back, the same tree: %s (%s)", s, e.text);
    free (s);
    netmap_t *nm2 = t2 ? topoconf_netmap (t2, n2, (const char *const *)hosts2, lv, &e) : NULL;
    f = fopen (out2, "w");
    rc = nm2 ? topoconf_write (f, nm2, "test", &e) : -1;
    fclose (f);
    text2 = read_file (out2, &len);
    ok (rc == 0 && text1 && text2 && !strcmp (text1, text2),
        "topology.conf -> netmap -> topology.conf -> netmap -> topology.conf: the same text");
    free (text1);
    free (text2);
    netmap_destroy (nm);
    netmap_destroy (nm2);
    compat_names_free (hosts2, n2);
    compat_names_free (hosts, n);

    /* some hosts: the tree above them only, the root their nearest switch */
    const char *some[] = {"n5", "n1", "n2"};
    char **hp = (char **)some;
    n = 3;
    t = read_text (three_level, &n, &hp, lv, &e);
    s = t ? nested (t, n, (char **)some) : strdup ("");
    ok (!strcmp (s, "((n5) (n1 n2))") && t && t->nvertices == 6,
        "three hosts under agg1: agg1 the root over two edges: %s (%s)", s, e.text);
    free (s);
    topo_destroy (t);

    /* two roots: a switch over them */
    n = 3;
    const char *two[] = {"a1", "b1", "b2"};
    hp = (char **)two;
    t = read_text ("SwitchName=x Nodes=a[1-2]\nSwitchName=y Nodes=b[1-2]\n", &n, &hp, lv, &e);
    s = t ? nested (t, n, (char **)two) : strdup ("");
    ok (!strcmp (s, "((a1) (b1 b2))") && t && t->height[t->nvertices - 1] == 2,
        "hosts under two roots: a switch of its own over them: %s (%s)", s, e.text);
    free (s);
    topo_destroy (t);

    /* one leaf switch: the tree is that switch */
    n = 2;
    hp = (char **)some + 1;
    t = read_text (three_level, &n, &hp, lv, &e);
    ok (t && t->nvertices == 3 && t->parent[2] == -1, "two hosts of one edge: one switch");
    topo_destroy (t);

    /* a byte order mark, as some editors write, is not part of the first key */
    n = 0;
    hp = NULL;
    t = read_text ("\xef\xbb\xbfSwitchName=s1 Nodes=n[1-2]\n", &n, &hp, lv, &e);
    ok (t && n == 2, "a file that starts with a byte order mark reads (%s)", t ? "" : e.text);
    topo_destroy (t);
    for (int i = 0; hp && i < n; i++)
        free (hp[i]);
    free (hp);
}

/* A netmap tree with hosts and a switch under one switch: written with an
 * extra leaf for the hosts. */
static void test_write_mixed (void)
{
    const char *names[] = {"h1", "h2", "h3"};
    netmap_t *nm = netmap_create (3, names, NULL);
    static const int parent[] = {3, 3, 4, 4, -1};
    char *buf = NULL;
    size_t len = 0;
    tm_error_t e = {""};
    FILE *f;

    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            if (a != b) {
                NETMAP_AT (nm, lat_us, a, b) = a / 2 == b / 2 ? 5 : 9;
                NETMAP_AT (nm, bw_MBps, a, b) = a / 2 == b / 2 ? 100 : 40;
            }
    f = open_memstream (&buf, &len);
    ok (topoconf_write (f, nm, "x", &e) < 0 && errno == EINVAL && strstr (e.text, "no topology"),
        "no tree, nothing written: %s", e.text);
    nm->topo = topo_alloc (TOPO_TREE, 3, 5, NULL);
    memcpy (nm->topo->parent, parent, sizeof (parent));
    nm->topo->height[3] = 1;
    nm->topo->height[4] = 1;
    nm->topo->ngroups = 2;
    nm->topo->group[2] = 1;
    ok (topoconf_write (f, nm, "x", &e) == 0, "a tree is written");
    fclose (f);
    ok (buf && strstr (buf, "\nSwitchName=l1s1 Nodes=h[1-2]\n") &&
            strstr (buf, "\nSwitchName=l1s3 Nodes=h3\n") &&
            strstr (buf, "\nSwitchName=l1s2 Switches=l1s[1,3]\n"),
        "the hosts of a switch that has a child switch too go on a leaf of their own");
    free (buf);
    nm->topo->model = TOPO_GROUPS;
    f = open_memstream (&buf, &len);
    ok (topoconf_write (f, nm, "x", &e) < 0 && strstr (e.text, "groups, not a switch tree"),
        "groups are refused: %s", e.text);
    fclose (f);
    free (buf);
    netmap_destroy (nm);
}

static void test_faults (void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"SwitchName=s1 Nodes=n1 oops\n", ":1: 'oops': not KEY=VALUE"},
        {"SwitchName=s1 Nodes=n1 Colour=red\n", ":1: unknown key 'Colour'"},
        {"BlockName=b1 Nodes=n1\n", ":1: BlockName: topology/block's file"},
        {"Nodes=n1 SwitchName=s1\n", ":1: Nodes= before SwitchName="},
        {"SwitchName=s1 Nodes=n1 nodes=n2\n", ":1: Nodes= given twice"},
        {"# x\nSwitchName=s1 Nodes=n1 Switches=s2\n",
         ":2: switch 's1' has both Nodes= and Switches="},
        {"SwitchName=s1\n", ":1: switch 's1' has neither Nodes= nor Switches="},
        {"SwitchName=s1 Nodes=n1\nSwitchName=s1 Nodes=n2\n",
         ":2: switch 's1' already defined on line 1"},
        {"SwitchName=s1 Nodes=n1\nSwitchName=t Switches=s[1-2]\n",
         ":2: switch 't': child switch 's2' is not defined"},
        {"SwitchName=s1 Nodes=n1\nSwitchName=t Switches=t,s1\n",
         ":2: switch 't': child switch 't' is itself"},
        {"SwitchName=s1 Nodes=n1\nSwitchName=a Switches=s1\nSwitchName=b Switches=s1\n",
         ":3: switch 's1' is under both 'a' (line 2) and 'b'"},
        {"SwitchName=s1 Nodes=n1\nSwitchName=a Switches=b\nSwitchName=b Switches=a\n", ": a loop"},
        {"SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n2\n",
         ":2: node 'n2' is under both switch 's1' (line 1) and 's2'"},
        {"SwitchName=s1 Nodes=n[3-1]\n", ":1: Nodes='n[3-1]': not a host list"},
        {"# nothing\n", ": no SwitchName= line"},
        {"#topomap level=0 latency_us=1 bandwidth_MBps=1\nSwitchName=s1 Nodes=n1\n",
         ":1: level=0: not a level from 1 to 15"},
        {"#topomap level=1 latency_us=-1 bandwidth_MBps=1\nSwitchName=s1 Nodes=n1\n",
         ":1: latency_us=-1: not a number above 0 and at most 1e+06"},
        {"#topomap level=1 latency_us=1 bandwidth_MBps=1e308\nSwitchName=s1 Nodes=n1\n",
         ":1: bandwidth_MBps=1e308: not a number above 0 and at most 1e+07"},
        {"#topomap level=1 latency_us=1\nSwitchName=s1 Nodes=n1\n",
         ":1: the figures of a level need"},
        {"SwitchName=s1 Nodes=n1\x01\n", ":1: a control character"},
        {"SwitchName=s1 Nodes=n1,n'2\n", ":1: Nodes='n1,n'2': not a host list"},
        {"SwitchName=s[1] Nodes=n1\n", ":1: SwitchName='s[1]': not a name ([A-Za-z0-9._-]"},
        /* checked before libslurm: 24.11.5's parser never returns */
        {"SwitchName=a Nodes=h[0hNam-30000000010073709551615]5]\n",
         ":1: Nodes='h[0hNam-30000000010073709551615]5]': not a host list"},
        {"SwitchName=a Nodes=h[1-2\n", ":1: Nodes='h[1-2': not a host list"},
        {"SwitchName=a Nodes=h[1-2]111111111111\n",
         ":1: Nodes='h[1-2]111111111111': not a host list"},
        {"SwitchName=a Nodes=h,,g\n", ":1: Nodes='h,,g': not a host list"},
        {"SwitchName=a Nodes=n1\nSwitchName=b Switches=a[\n", ":2: Switches='a[': not a host list"},
        /* libslurm gives a longer number back as another */
        {"SwitchName=s1 Nodes=n1234567890123456789[1-2]\n",
         ":1: Nodes=: 'n12345678901234567891' is not a node name"},
    };
    topoconf_level_t lv[TOPOCONF_LEVELS];
    tm_error_t e;

    for (size_t k = 0; k < sizeof (bad) / sizeof (bad[0]); k++) {
        char **hosts = NULL;
        int n = 0;
        topo_t *t;
        e.text[0] = '\0';
        t = read_text (bad[k].text, &n, &hosts, lv, &e);
        ok (!t && errno == EINVAL && strstr (e.text, conf) == e.text &&
                strstr (e.text, bad[k].want),
            "refused, naming the file, line and fault: %s", e.text);
        topo_destroy (t);
        compat_names_free (hosts, n);
    }
    char **hp;
    int n = 2;
    const char *gone[] = {"n1", "x7"};
    hp = (char **)gone;
    ok (!read_text (three_level, &n, &hp, lv, &e) && errno == EINVAL &&
            strstr (e.text, ": node 'x7' is under no switch"),
        "a host of the allocation under no switch is refused: %s", e.text);
    write_file (conf, "SwitchName=s1 Nodes=n1\0", 23, 0644);
    hp = NULL;
    ok (!topoconf_read (conf, &n, &hp, lv, &e) && strstr (e.text, "a NUL byte"),
        "a NUL byte is refused: %s", e.text);
    hp = NULL;
    ok (!topoconf_read ("/nonexistent/topology.conf", &n, &hp, lv, &e) &&
            strstr (e.text, "/nonexistent/topology.conf"),
        "a missing file is named: %s", e.text);
    /* levels without figures */
    topo_t *t;
    const char *three[] = {"n1", "n2", "n3"};
    hp = (char **)three;
    n = 3;
    t = read_text ("SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n3\nSwitchName=r "
                   "Switches=s[1-2]\n#topomap level=1 latency_us=2 bandwidth_MBps=9\n",
                   &n, &hp, lv, &e);
    ok (t && !topoconf_netmap (t, 3, three, lv, &e) && errno == ENODATA &&
            strstr (e.text, "level 2 (n1 to n3) has no figures"),
        "a level without figures: no netmap, naming it: %s", e.text);
}

/* The level of the pair a, b in t: of the figures lv gives each level,
 * 10 * level, as topoconf_netmap sets them. */
static int level_of (const netmap_t *levels_nm, int a, int b)
{
    return (int)(NETMAP_AT (levels_nm, lat_us, a, b) / 10);
}

/* Whether every link below every switch of t is crossed by a pair of
 * p[0..np) at its switch's level: by two, one host of the child in
 * both, where the switch has three children or more. */
static int links_crossed (const topo_t *t, const pairs_t *p, int np)
{
    int *depth = topo_depths (t), ok = depth != NULL;

    for (int v = 0; ok && v < t->nvertices; v++) {
        int s = t->parent[v], nk = 0, across = 0, *hosts = calloc ((size_t)t->nhosts, sizeof (int));
        if (s < 0) {
            free (hosts);
            continue;
        }
        for (int u = 0; u < t->nvertices; u++)
            nk += t->parent[u] == s;
        for (int k = 0; k < np; k++)
            for (int e = 0; e < 2; e++) {
                int h = e ? p[k].b : p[k].a, o = e ? p[k].a : p[k].b, u = h;
                while (u >= 0 && t->parent[u] != s)
                    u = t->parent[u];
                if (u == v && topo_level (t, depth, h, o) == (int)t->height[s]) {
                    across++;
                    hosts[h]++;
                }
            }
        int two = 0;
        for (int h = 0; h < t->nhosts; h++)
            two |= hosts[h] >= 2;
        ok = nk >= 3 ? across >= 2 && two : across >= 1;
        free (hosts);
    }
    free (depth);
    return ok;
}

/* A file without figures: every link and a few pairs a level to measure,
 * and every other pair filled from them. */
static void test_measured (void)
{
    topoconf_level_t lv[TOPOCONF_LEVELS], got[TOPOCONF_LEVELS];
    char **hosts = NULL;
    int n = 0, np, count[4] = {0}, dup = 0, order = 1;
    tm_error_t e = {""};
    pairs_t p[64];
    topo_t *t = read_text (three_level, &n, &hosts, lv, &e);

    /* levels 1..3 cost 10, 20, 30: a pair's figure says its level */
    for (int l = 1; l < TOPOCONF_LEVELS; l++)
        lv[l] = (topoconf_level_t){10.0 * l, 100.0 / l};
    netmap_t *ref = t ? topoconf_netmap (t, n, (const char *const *)hosts, lv, &e) : NULL;
    ok (ref != NULL, "the reference netmap (%s)", e.text);
    if (!ref)
        return;
    np = topoconf_pairs (ref->topo, 3, p, 64, &e);
    for (int k = 0; k < np; k++) {
        int l = level_of (ref, p[k].a, p[k].b);
        count[l >= 1 && l <= 3 ? l : 0]++;
        dup |= p[k].a >= p[k].b;
        order &= k == 0 || l >= level_of (ref, p[k - 1].a, p[k - 1].b);
        for (int j = 0; j < k; j++)
            dup |= p[j].a == p[k].a && p[j].b == p[k].b;
    }
    ok (np == 18 && count[1] == 12 && count[2] == 3 && count[3] == 3 && !dup && order,
        "a cycle of three under each edge switch, three pairs at each level above, none twice, "
        "the levels in order (%d pairs: %d %d %d)",
        np, count[1], count[2], count[3]);
    ok (links_crossed (ref->topo, p, np), "every link crossed at its switch's level");
    ok (topoconf_pairs (ref->topo, 1, p, 64, &e) == 15 && links_crossed (ref->topo, p, 15),
        "one pair a level at least: the links' pairs alone (15)");
    ok (topoconf_pairs (ref->topo, 3, p, 4, &e) < 0 && errno == ENOSPC, "no room for the pairs: %s",
        e.text);
    ok (topoconf_pairs (ref->topo, 0, p, 64, &e) < 0 && errno == EINVAL, "no pair a level: %s",
        e.text);

    /* the pairs measured, 10 % either side of their level's figure */
    np = topoconf_pairs (ref->topo, 3, p, 64, &e);
    netmap_t *nm = netmap_create (n, (const char *const *)hosts, &e);
    for (int k = 0; k < np; k++) {
        int a = p[k].a, b = p[k].b, l = level_of (ref, a, b);
        double f = 1.0 + 0.1 * (k % 3 - 1);
        NETMAP_AT (nm, lat_us, a, b) = NETMAP_AT (nm, lat_us, b, a) = 10.0 * l * f;
        NETMAP_AT (nm, bw_MBps, a, b) = NETMAP_AT (nm, bw_MBps, b, a) = 100.0 / l / f;
        NETMAP_AT (nm, measured, a, b) = NETMAP_AT (nm, measured, b, a) = 1;
    }
    int n2 = 0;
    char **h2 = NULL;
    topo_t *t2 = read_text (three_level, &n2, &h2, lv, &e);
    int rc = topoconf_fill (nm, t2, got, &e), filled = 1, kept = 1, nmeas = 0;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b)
                continue;
            int l = level_of (ref, a, b);
            if (NETMAP_AT (nm, measured, a, b) > 0)
                nmeas++;
            else
                filled &= fabs (NETMAP_AT (nm, lat_us, a, b) - 10.0 * l) < 1e-9 &&
                          fabs (NETMAP_AT (nm, bw_MBps, b, a) - 100.0 / l) < 1e-9;
        }
    for (int k = 0; k < np; k++)
        kept &= NETMAP_AT (nm, lat_us, p[k].a, p[k].b) ==
                10.0 * level_of (ref, p[k].a, p[k].b) * (1.0 + 0.1 * (k % 3 - 1));
    ok (rc == 0 && filled && kept && nmeas == 2 * np,
        "every other pair its level's median, the %d measured kept (%s)", np, e.text);
    ok (rc == 0 && got[1].lat_us == 10 && got[3].lat_us == 30 &&
            fabs (got[2].bw_MBps - 50) < 1e-9 && isnan (got[4].lat_us) && nm->topo == t2 &&
            nm->topo->signal == TOPO_SIGNAL_SITE,
        "the levels' medians, and the site's tree in the netmap");
    char slow[256];
    ok (rc == 0 && topo_links_slow (nm, slow, sizeof (slow)) == 0 && !slow[0],
        "pairs 10 %% either side of their level: no link slow (%s)", slow);
    compat_names_free (h2, n2);
    netmap_destroy (nm);

    /* level 1 measured only: levels 2 and 3 have no figure */
    nm = netmap_create (n, (const char *const *)hosts, &e);
    NETMAP_AT (nm, lat_us, 0, 1) = NETMAP_AT (nm, lat_us, 1, 0) = 10;
    NETMAP_AT (nm, bw_MBps, 0, 1) = NETMAP_AT (nm, bw_MBps, 1, 0) = 100;
    NETMAP_AT (nm, measured, 0, 1) = NETMAP_AT (nm, measured, 1, 0) = 1;
    n2 = 0;
    h2 = NULL;
    t2 = read_text (three_level, &n2, &h2, lv, &e);
    ok (topoconf_fill (nm, t2, NULL, &e) < 0 && errno == EINVAL && !nm->topo &&
            strstr (e.text, "level 2 (n1 to n4): no pair measured"),
        "a level with no pair measured: named (%s)", e.text);
    compat_names_free (h2, n2);
    netmap_destroy (nm);

    /* a leaf of one host: its level has only the pairs the tree has */
    char **hp = NULL;
    n = 0;
    topo_t *t3 = read_text ("SwitchName=s1 Nodes=n1\nSwitchName=s2 Nodes=n[2-3]\n"
                            "SwitchName=r Switches=s[1-2]\n",
                            &n, &hp, lv, &e);
    np = t3 ? topoconf_pairs (t3, 3, p, 64, &e) : -1;
    ok (np == 3 && p[0].a == 1 && p[0].b == 2 && p[1].a == 0 && p[1].b == 1 && p[2].a == 0 &&
            p[2].b == 2,
        "a one-host leaf: n2-n3 at level 1, n1-n2 and n1-n3 at level 2 (%d)", np);
    topo_destroy (t3);
    compat_names_free (hp, n);
    compat_names_free (hosts, 12);
    netmap_destroy (ref);
}

/* A 2:1 fat tree whose file knows no fault: leaf l2's uplink runs at a
 * quarter of its rate and n14's own link at a quarter of its leaf mates'.
 * Measured across every link, the two are found and every pair not
 * measured gets what its way allows; a tree of two leaves, one slow,
 * cannot say which. */
static void test_slow_links (void)
{
    static const char fat[] = "SwitchName=l1 Nodes=n[1-4]\nSwitchName=l2 Nodes=n[5-8]\n"
                              "SwitchName=l3 Nodes=n[9-12]\nSwitchName=l4 Nodes=n[13-16]\n"
                              "SwitchName=core Switches=l[1-4]\n";
    topoconf_level_t lv[TOPOCONF_LEVELS], got[TOPOCONF_LEVELS];
    char **hosts = NULL, text[1024];
    int n = 0, np, exact = 1, kept = 1;
    tm_error_t e = {""};
    pairs_t p[64];
    topo_t *t = read_text (fat, &n, &hosts, lv, &e);
    netmap_t *nm = t ? netmap_create (n, (const char *const *)hosts, &e) : NULL;

    ok (nm != NULL, "the fat tree (%s)", e.text);
    if (!nm)
        return;
        /* a pair's bandwidth: its slowest link; node links 12.5 MB/s (n14's
         * 3), leaf uplinks 25 (l2's 6.25) */
#define NODE_BW(h) ((h) == 13 ? 3.0 : 12.5)
#define LEAF_BW(h) ((h) / 4 == 1 ? 6.25 : 25.0)
#define TRUE_BW(a, b)                                                                              \
    fmin (fmin (NODE_BW (a), NODE_BW (b)),                                                         \
          (a) / 4 == (b) / 4 ? INFINITY : fmin (LEAF_BW (a), LEAF_BW (b)))
    np = topoconf_pairs (t, 3, p, 64, &e);
    int burst = -1; /* the first pair across l2's uplink, measured at twice its rate */
    for (int k = 0; k < np; k++) {
        int a = p[k].a, b = p[k].b;
        if (burst < 0 && a / 4 != b / 4 && (a / 4 == 1 || b / 4 == 1))
            burst = k;
        NETMAP_AT (nm, lat_us, a, b) = NETMAP_AT (nm, lat_us, b, a) = a / 4 == b / 4 ? 10 : 20;
        NETMAP_AT (nm, bw_MBps, a, b) = NETMAP_AT (nm, bw_MBps, b, a) =
            TRUE_BW (a, b) * (k == burst ? 2 : 1);
        NETMAP_AT (nm, measured, a, b) = NETMAP_AT (nm, measured, b, a) = 1;
    }
    int rc = topoconf_fill (nm, t, got, &e);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            bool fast = burst >= 0 && a == p[burst].a && b == p[burst].b;
            exact &= NETMAP_AT (nm, bw_MBps, a, b) == TRUE_BW (a, b) * (fast ? 2 : 1);
            kept &= NETMAP_AT (nm, lat_us, a, b) == (a / 4 == b / 4 ? 10 : 20);
        }
    ok (rc == 0 && np == 30 && burst >= 0 && exact && kept,
        "every pair its slowest link's figure, one of l2's three measured too fast not lifting "
        "it, the latencies their levels' (%d pairs, %s)",
        np, e.text);
    ok (rc == 0 && got[1].bw_MBps == 12.5 && got[2].bw_MBps == 12.5,
        "the levels' medians from the pairs that cross no slow link");
    ok (rc == 0 && topo_links_slow (nm, text, sizeof (text)) == 2 &&
            !strcmp (text, "n14's link: 3 MB/s against 12.5 at level 1; the link above n5..n8 "
                           "(4 nodes): 6.25 MB/s against 12.5 at level 2"),
        "the slow links named with their figures: %s", text);
    /* n9's link measured past its rate: two of its three pairs at 20 */
    double lat1[TOPOCONF_LEVELS], bw1[TOPOCONF_LEVELS];
    for (int b = 9; b <= 10; b++) {
        NETMAP_AT (nm, bw_MBps, 8, b) = NETMAP_AT (nm, bw_MBps, b, 8) = 20;
        NETMAP_AT (nm, measured, 8, b) = NETMAP_AT (nm, measured, b, 8) = 1;
    }
    ok (rc == 0 && topo_links_fill (nm, nm->topo, TOPOCONF_LEVELS, lat1, bw1, &e) == 0 &&
            topo_links_slow (nm, text, sizeof (text)) == 2 &&
            !strcmp (text, "n14's link: 3 MB/s against 12.5 at level 1; the link above n5..n8 "
                           "(4 nodes): 6.25 MB/s against 12.5 at level 2"),
        "n9's link measured at 20 makes no healthy node link slow: %s", text);
    /* nor puts healthy pairs in doubt: n9's two pairs share n9 */
    pairs_t dp[256];
    int nd = topo_links_doubts (nm->topo, nm->bw_MBps, nm->measured, dp, 256), fooled = 0, n14 = 0;
    for (int k = 0; k < nd; k++) {
        fooled += dp[k].a / 4 == dp[k].b / 4 && dp[k].a != 13 && dp[k].b != 13;
        n14 += dp[k].a / 4 == dp[k].b / 4 && (dp[k].a == 13 || dp[k].b == 13);
    }
    ok (nd > 0 && fooled == 0 && n14 > 0,
        "n9's pairs at 20 put no healthy pair inside a leaf in doubt, n14's still (%d of %d, %d)",
        fooled, nd, n14);
#undef TRUE_BW
#undef LEAF_BW
#undef NODE_BW
    netmap_destroy (nm);
    compat_names_free (hosts, n);

    /* the same tree on a busy host: two of the three pairs between healthy
     * leaves measured at 8, so l2's pairs (6.25) are not TOPO_LINK_SLOW
     * below the level's best; the uplinks under load tell it */
    hosts = NULL;
    n = 0;
    t = read_text (fat, &n, &hosts, lv, &e);
    nm = t ? netmap_create (n, (const char *const *)hosts, &e) : NULL;
    np = t ? topoconf_pairs (t, 3, p, 64, &e) : 0;
    int healthy = 0;
    for (int k = 0; nm && k < np; k++) {
        int a = p[k].a, b = p[k].b;
        double bw = 12.5;
        if (a / 4 != b / 4)
            bw = a / 4 == 1 || b / 4 == 1 ? 6.25 : healthy++ ? 8 : 12.5;
        NETMAP_AT (nm, lat_us, a, b) = NETMAP_AT (nm, lat_us, b, a) = a / 4 == b / 4 ? 10 : 20;
        NETMAP_AT (nm, bw_MBps, a, b) = NETMAP_AT (nm, bw_MBps, b, a) = bw;
        NETMAP_AT (nm, measured, a, b) = NETMAP_AT (nm, measured, b, a) = 1;
    }
    ok (nm && healthy == 3 && topoconf_fill (nm, t, got, &e) == 0 &&
            topo_links_slow (nm, text, sizeof (text)) == 0 &&
            NETMAP_AT (nm, bw_MBps, 0, 5) == 7.125,
        "busy host: l2's pairs 1.28 times below the level's, no link named slow, n1-n6 at the "
        "level's median (%s)",
        e.text);
    double lat2[TOPOCONF_LEVELS], bw2[TOPOCONF_LEVELS];
    for (int leaf = 0; nm && leaf < 4; leaf++)
        nm->topo->uplink_MBps[nm->topo->parent[4 * leaf]] = leaf == 1 ? 4.5 : 20 + leaf;
    ok (nm && topo_links_fill (nm, nm->topo, TOPOCONF_LEVELS, lat2, bw2, &e) == 0 &&
            topo_links_slow (nm, text, sizeof (text)) == 1 &&
            !strcmp (text, "the link above n5..n8 (4 nodes): 6.25 MB/s against 8 at level 2") &&
            NETMAP_AT (nm, bw_MBps, 0, 5) == 6.25 && NETMAP_AT (nm, bw_MBps, 0, 10) == 8,
        "busy host: l2's uplink under load 4.5 MB/s against 20 to 23, named slow, the pairs "
        "across it priced at its figure (%s)",
        text);
    for (int leaf = 0; nm && leaf < 4; leaf++)
        nm->topo->uplink_MBps[nm->topo->parent[4 * leaf]] = leaf == 1 ? 4.5 : 20;
    for (int k = 0; nm && k < np; k++)
        if (p[k].a / 4 != p[k].b / 4 && (p[k].a / 4 == 1 || p[k].b / 4 == 1))
            NETMAP_AT (nm, bw_MBps, p[k].a, p[k].b) = NETMAP_AT (nm, bw_MBps, p[k].b, p[k].a) = 7;
    ok (nm && topo_links_fill (nm, nm->topo, TOPOCONF_LEVELS, lat2, bw2, &e) == 0 &&
            topo_links_slow (nm, text, sizeof (text)) == 0,
        "busy host: slow under load, but its pairs (7) not %g times below the level's: not "
        "named (%s)",
        TOPO_LINK_LEANS, text);
    netmap_destroy (nm);
    compat_names_free (hosts, n);

    /* two leaves, l2's uplink slow: one pair a time cannot say which */
    hosts = NULL;
    n = 0;
    t = read_text ("SwitchName=l1 Nodes=n[1-4]\nSwitchName=l2 Nodes=n[5-8]\n"
                   "SwitchName=core Switches=l[1-2]\n",
                   &n, &hosts, lv, &e);
    nm = t ? netmap_create (n, (const char *const *)hosts, &e) : NULL;
    np = t ? topoconf_pairs (t, 3, p, 64, &e) : 0;
    for (int k = 0; nm && k < np; k++) {
        int a = p[k].a, b = p[k].b;
        NETMAP_AT (nm, lat_us, a, b) = NETMAP_AT (nm, lat_us, b, a) = a / 4 == b / 4 ? 10 : 20;
        NETMAP_AT (nm, bw_MBps, a, b) = NETMAP_AT (nm, bw_MBps, b, a) =
            a / 4 == b / 4 ? 12.5 : 6.25;
        NETMAP_AT (nm, measured, a, b) = NETMAP_AT (nm, measured, b, a) = 1;
    }
    ok (nm && topoconf_fill (nm, t, got, &e) == 0 && got[2].bw_MBps == 6.25 &&
            topo_links_slow (nm, text, sizeof (text)) == 0 && !text[0],
        "two leaves: no link named slow, the level's figure is the slow one (%s)", e.text);
    netmap_destroy (nm);
    compat_names_free (hosts, n);
}

/* The uplink measurement over 3level-12 (lib/topology_links.h): under
 * each aggregation its two edges stream to each other, under the core
 * the two aggregations, host k to host k, one round a depth, no host
 * sending or receiving twice in a round; each uplink's figure from its
 * streams' times.
 */
static void test_uplinks (void)
{
    topoconf_level_t lv[TOPOCONF_LEVELS];
    char **hosts = NULL;
    int n = 0, ns, fine = 1;
    tm_error_t e = {""};
    topo_t *t = read_text (three_level, &n, &hosts, lv, &e);
    netmap_t *nm = t ? netmap_create (n, (const char *const *)hosts, &e) : NULL;
    topo_stream_t *s = NULL;

    ok (nm != NULL, "uplinks: 3level-12 (%s)", e.text);
    if (!nm)
        return;
    nm->topo = t;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            if (a != b)
                NETMAP_AT (nm, bw_MBps, a, b) = 12.5;
    ns = topo_uplink_plan (nm, 0.1, 32 << 20, &s);
    int e1 = t->parent[0], e2 = t->parent[3], e3 = t->parent[6], agg1 = t->parent[e1];
    for (int k = 0; k < ns; k++) {
        int sends = 0, gets = 0;
        for (int j = 0; j < ns; j++) {
            sends += s[j].round == s[k].round && s[j].src == s[k].src;
            gets += s[j].round == s[k].round && s[j].dst == s[k].dst;
        }
        fine &= sends == 1 && gets == 1 && s[k].from != s[k].to &&
                t->parent[s[k].from] == t->parent[s[k].to] && s[k].bytes == 1.25e6 &&
                (k == 0 || s[k].round >= s[k - 1].round) &&
                s[k].round == (t->parent[t->parent[s[k].from]] >= 0 ? 1 : 0);
    }
    ok (ns == 24 && fine,
        "uplinks: 24 streams, 12 under the core, 6 under each aggregation, one out and one in "
        "a host a round, 1.25 MB each (%d)",
        ns);
    topo_stream_t *small = NULL;
    ok (topo_uplink_plan (nm, 0.1, 1e6, &small) == 24 && small[0].bytes == 1e6,
        "uplinks: a stream at most max_bytes");
    free (small);
    double *secs = malloc ((size_t)ns * sizeof (*secs));
    for (int k = 0; k < ns; k++)
        secs[k] = s[k].from == e1 || s[k].to == e1 ? 0.8 : s[k].from == e3 ? 0 : 0.2;
    int rc = topo_uplink_figures (nm, s, ns, secs);
    ok (rc == 0 && fabs (t->uplink_MBps[e1] - 4.6875) < 1e-9 &&
            fabs (t->uplink_MBps[e2] - 4.6875) < 1e-9 &&
            fabs (t->uplink_MBps[agg1] - 37.5) < 1e-9 && isnan (t->uplink_MBps[e3]) &&
            isnan (t->uplink_MBps[t->parent[agg1]]) && isnan (t->uplink_MBps[0]),
        "uplinks: 3 x 1.25 MB in 0.8 s, the sibling alike, 6 in 0.2 s; a failed stream, the "
        "root and hosts unmeasured (%g %g %g)",
        t->uplink_MBps[e1], t->uplink_MBps[e2], t->uplink_MBps[agg1]);
    free (secs);
    free (s);
    netmap_destroy (nm);
    compat_names_free (hosts, n);
}

static double seconds (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A topology.conf of shape kind and size k, read in *took seconds: NULL
 * with e when refused. */
static topo_t *read_big (const char *kind, int k, double *took, int *n, char ***hosts,
                         tm_error_t *e)
{
    topoconf_level_t lv[TOPOCONF_LEVELS];
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    topo_t *t;

    if (!strcmp (kind, "ranges")) { /* n[1,1,...] */
        fprintf (f, "SwitchName=s0 Nodes=n[1");
        for (int i = 1; i < k; i++)
            fprintf (f, ",1");
        fprintf (f, "]\n");
    } else if (!strcmp (kind, "names")) { /* n1,n2,... */
        fprintf (f, "SwitchName=s0 Nodes=n1");
        for (int i = 2; i <= k; i++)
            fprintf (f, ",n%d", i);
        fprintf (f, "\n");
    } else { /* a chain: each switch over the one before */
        fprintf (f, "SwitchName=s0 Nodes=n1\n");
        for (int i = 1; i < k; i++)
            fprintf (f, "SwitchName=s%d Switches=s%d\n", i, i - 1);
    }
    fclose (f);
    *took = seconds ();
    t = read_text (buf, n, hosts, lv, e);
    *took = seconds () - *took;
    free (buf);
    return t;
}

/* Issue 62: host lists libslurm would end the process on (fatal()) or
 * take minutes over, and a chain of switches quadratic here: each
 * refused by its line and bound, at once; what real sites write reads.
 */
static void test_bounds (void)
{
    char **hosts = NULL;
    tm_error_t e = {""};
    double took;
    topo_t *t;
    int n = 0;

    t = read_big ("ranges", 262145, &took, &n, &hosts, &e);
    ok (!t && strstr (e.text, ":1: Nodes='n[1,1,1,") &&
            strstr (e.text, "': more than 65536 names in one host list"),
        "262 145 ranges in one bracket (libslurm's fatal()) are refused: %s", e.text);
    t = read_big ("names", 200000, &took, &n, &hosts, &e);
    ok (!t && strstr (e.text, ":1: Nodes='n1,n2,") && strstr (e.text, "more than 65536 names") &&
            took < 1.0,
        "200 000 names in one Nodes= list are refused in %.2f s (under 1 s)", took);
    t = read_big ("names", 4096, &took, &n, &hosts, &e);
    ok (t && n == 4096, "4 096 names in one list read: %s", t ? "" : e.text);
    topo_destroy (t);
    for (int i = 0; i < n; i++)
        free (hosts[i]);
    free (hosts);
    hosts = NULL;
    n = 0;
    t = read_big ("chain", 100000, &took, &n, &hosts, &e);
    ok (!t && strstr (e.text, ":1: switch 's0' has more than 64 switches above it") && took < 5.0,
        "a chain of 100 000 switches is refused in %.2f s CPU (under 5 s): %s", took, e.text);
    t = read_big ("chain", 66, &took, &n, &hosts, &e);
    ok (!t && strstr (e.text, "has more than 64 switches above it"),
        "one of 65 switches above a node is refused");
    t = read_big ("chain", 65, &took, &n, &hosts, &e);
    ok (t && n == 1, "one of 64 switches above a node reads: %s", t ? "" : e.text);
    topo_destroy (t);
    for (int i = 0; i < n; i++)
        free (hosts[i]);
    free (hosts);
}

int main (void)
{
    if (scratch_dir ("topoconf-test") < 0)
        return done_testing ();
    in_dir (conf, "topology.conf");
    test_read ();
    test_write_mixed ();
    test_measured ();
    test_slow_links ();
    test_uplinks ();
    test_faults ();
    test_bounds ();
    remove_tree (dir);
    return done_testing ();
}
