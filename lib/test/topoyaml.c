/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of lib/topoyaml.c: Slurm's topology.yaml (trees, blocks and
 * their aggregates, the topology picked) as a topology.conf, and every
 * fault named by the file's line.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/topoyaml.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"

/* The shape topomap-cluster --slurm-topology=yaml writes, and a block
 * topology as topology.yaml(5) gives one. */
static const char two[] = "- topology: blocks\n"
                          "  block:\n"
                          "    block_sizes: [2, 4]\n"
                          "    blocks:\n"
                          "      - block: b1\n"
                          "        nodes: n[1-2]\n"
                          "      - block: b2\n"
                          "        nodes: n[3-4]\n"
                          "      - block: b3\n"
                          "        nodes:\n"
                          "          - n5\n"
                          "          - n6\n"
                          "- topology: tree\n"
                          "  cluster_default: true\n"
                          "  tree:\n"
                          "    switches:\n"
                          "      - switch: core\n"
                          "        children: s[1-2]\n"
                          "      - switch: s1\n"
                          "        nodes: n[1,3,5,7]\n"
                          "      - switch: s2\n"
                          "        nodes: n[2,4,6,8]\n"
                          "- topology: flat\n"
                          "  flat: true\n";

static int conf_is (const char *text, const char *name, const char *want, const char *wantlines)
{
    char *conf = NULL, got[256] = "";
    int *lines = NULL, nlines = 0, rc, same;
    tm_error_t e = {{0}};

    rc = topoyaml_conf (text, strlen (text), "t.yaml", name, &conf, &lines, &nlines, &e);
    if (rc < 0) {
        diag ("%s", e.text);
        return 0;
    }
    int n = 0;

    for (int i = 0; conf[i]; i++)
        if (conf[i] == '\n') {
            snprintf (got + strlen (got), sizeof (got) - strlen (got), "%s%d", n ? "," : "",
                      n < nlines ? lines[n] : -1);
            n++;
        }
    same = !strcmp (conf, want) && !strcmp (got, wantlines) && n == nlines;
    if (!same)
        diag ("got:\n%s(lines %s)", conf, got);
    free (conf);
    free (lines);
    return same;
}

static int fails (const char *text, const char *name, int err, const char *want)
{
    char *conf = NULL;
    int *lines = NULL, nlines = 0, rc;
    tm_error_t e = {{0}};

    rc = topoyaml_conf (text, strlen (text), "t.yaml", name, &conf, &lines, &nlines, &e);
    if (rc == 0) {
        free (conf);
        free (lines);
        return 0;
    }
    if (errno != err || !strstr (e.text, want))
        diag ("errno %d: %s", errno, e.text);
    return errno == err && strstr (e.text, want) != NULL;
}

/* A text grown by printf, for the large shapes (free it). */
static char *text_of (FILE *f, char **buf)
{
    fclose (f);
    return *buf;
}

static double seconds (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Issue 62: shapes of a few hundred KB that took libyaml and the
 * expansion of aliases minutes or gigabytes.  Each is refused, by the
 * file's line, at once.
 */
static void test_bombs (void)
{
    const char head[] = "- topology: t\n  tree:\n    switches:\n      - switch: s0\n";
    char *buf = NULL, *text;
    size_t len = 0;
    FILE *f;
    double t0;
    int rc;

    /* One 18 KB host list, aliased a thousand times: 18 MB written out. */
    f = open_memstream (&buf, &len);
    fprintf (f, "%s        nodes: [&a 'n1", head);
    for (int i = 2; i <= 3200; i++)
        fprintf (f, ",n%d", i);
    fprintf (f, "'");
    for (int i = 0; i < 1000; i++)
        fprintf (f, ", *a");
    fprintf (f, "]\n");
    text = text_of (f, &buf);
    ok (fails (text, NULL, EINVAL,
               "t.yaml:5: more than 16 MiB of switches and nodes (an alias counts at its "
               "expanded size)"),
        "an alias counts at its expanded size: a %zu-byte file of 18 MB is refused", len);
    free (text);

    /* More anchors and aliases than a topology needs: libyaml looks each
     * alias up among all anchors. */
    buf = NULL;
    f = open_memstream (&buf, &len);
    fprintf (f, "%s        nodes: [n0", head);
    for (int i = 1; i <= 1025; i++)
        fprintf (f, ", &a%d n%d", i, i);
    fprintf (f, "]\n");
    text = text_of (f, &buf);
    ok (fails (text, NULL, EINVAL, "t.yaml:5: more than 1024 anchors and aliases"),
        "more than 1024 anchors and aliases are refused");
    free (text);

    /* 80 000 lists in one another (160 KB): refused before libyaml's
     * loader, which is quadratic in the depth. */
    buf = NULL;
    f = open_memstream (&buf, &len);
    fprintf (f, "- topology: t\n  tree: ");
    for (int i = 0; i < 80000; i++)
        fputc ('[', f);
    for (int i = 0; i < 80000; i++)
        fputc (']', f);
    fputc ('\n', f);
    text = text_of (f, &buf);
    t0 = seconds ();
    rc = fails (text, NULL, EINVAL, "t.yaml:2: lists and mappings nested more than 64 deep");
    t0 = seconds () - t0;
    ok (rc && t0 < 1.0, "80 000 levels of nesting are refused in %.3f s (under 1 s)", t0);
    free (text);
    ok (conf_is ("- topology: t\n  tree:\n    switches:\n      - switch: s0\n        nodes: &a "
                 "[n1, n2]\n      - {switch: top, children: [s0]}\n",
                 NULL, "SwitchName=s0 Nodes=n1,n2\nSwitchName=top Switches=s0\n", "4,6"),
        "an anchor within bounds reads as before");
}

int main (void)
{
    char path[PATH_MAX], *conf = NULL, **hosts = NULL;
    topoconf_level_t levels[TOPOCONF_LEVELS];
    tm_error_t e = {{0}};
    topo_t *t;
    int n = 0;

    plan (NO_PLAN);
    ok (conf_is (two, NULL,
                 "SwitchName=core Switches=s[1-2]\nSwitchName=s1 Nodes=n[1,3,5,7]\n"
                 "SwitchName=s2 Nodes=n[2,4,6,8]\n",
                 "17,19,21"),
        "the cluster default: a tree's switches, each from its line");
    ok (conf_is (
            two, "blocks",
            "SwitchName=b1 Nodes=n[1-2]\nSwitchName=b2 Nodes=n[3-4]\nSwitchName=b3 Nodes=n5,n6\n"
            "SwitchName=topomap-agg4-0 Switches=b1,b2\nSwitchName=topomap-agg4-1 Switches=b3\n"
            "SwitchName=topomap-blocks Switches=topomap-agg4-0,topomap-agg4-1\n",
            "5,7,9,3,3,3"),
        "blocks: each a leaf, aggregates of block_sizes over consecutive blocks, one top");
    ok (conf_is ("- topology: b\n  block:\n    blocks:\n      - block: x\n        nodes: n1\n",
                 NULL, "SwitchName=x Nodes=n1\n", "4"),
        "the only topology is the default; one block without sizes is the tree");
    ok (conf_is ("#topomap level=1 latency_us=8 bandwidth_MBps=118\n"
                 "- topology: b\n  block:\n    blocks:\n      - block: x\n        nodes: n1\n"
                 "  #topomap level=2 latency_us=9 bandwidth_MBps=1\n#topomapx\n"
                 "#topomap level=2 latency_us=21 bandwidth_MBps=48",
                 NULL,
                 "SwitchName=x Nodes=n1\n#topomap level=1 latency_us=8 bandwidth_MBps=118\n"
                 "#topomap level=2 latency_us=21 bandwidth_MBps=48\n",
                 "5,1,9"),
        "the levels' figures: '#topomap ' comments at a line's start, each from its line");
    ok (conf_is ("\xef\xbb\xbf#topomap level=1 latency_us=8 bandwidth_MBps=118\n"
                 "- topology: b\n  block:\n    blocks:\n      - block: x\n        nodes: n1\n",
                 NULL, "SwitchName=x Nodes=n1\n#topomap level=1 latency_us=8 bandwidth_MBps=118\n",
                 "5,1"),
        "a byte order mark before the first line's figures");
    ok (fails (two, "flat", ENOENT, "t.yaml:23: topology flat is flat: no switches or blocks"),
        "a flat topology has no switches");
    ok (fails (two, "nosuch", ENOENT, "t.yaml: no topology named nosuch"), "an unknown name");
    ok (fails ("- topology: a\n  tree: {switches: []}\n- topology: b\n  flat: true\n", NULL, ENOENT,
               "no topology with cluster_default: true"),
        "two topologies and no default");
    ok (fails ("- topology: t\n  tree:\n    switches:\n      - switch: s1\n        nodes: [n1\n",
               NULL, EINVAL, "t.yaml:6: "),
        "malformed YAML: its line");
    ok (fails ("topology: t\n", NULL, EINVAL, "t.yaml:1: not a list of topologies"),
        "a mapping at the top");
    ok (fails ("- topology: t\n  tree:\n    switches:\n      - switch: s1\n        nodes: n1\n"
               "        children: s2\n",
               NULL, EINVAL, "t.yaml:4: switch s1: both children and nodes"),
        "a switch with nodes and children");
    ok (fails ("- topology: t\n  tree:\n    switches:\n      - nodes: n1\n", NULL, EINVAL,
               "t.yaml:4: a switch without a name"),
        "a switch without a name");
    ok (fails ("- topology: t\n  tree:\n    switches:\n      - switch: s1\n        nodes: n1 n2\n",
               NULL, EINVAL, "t.yaml:5: nodes 'n1 n2': a blank"),
        "a host list with a blank");
    ok (fails ("- topology: t\n  block:\n    block_sizes: [2, 6]\n    blocks:\n      - block: b\n"
               "        nodes: n1\n",
               NULL, EINVAL, "t.yaml:3: block_sizes: 6 is not a power-of-two multiple of 2"),
        "block sizes that do not nest");
    ok (fails ("- topology: t\n  ring:\n    rings: []\n", NULL, ENOENT, "is ring"),
        "a ring has no switches");

    test_bombs ();

    /* The whole read: faults topoconf_parse finds, named by the file's line. */
    if (scratch_dir ("topoyaml-test") < 0)
        return done_testing ();
    in_dir (path, "topology.yaml");
    write_file (path, two, strlen (two), 0644);
    t = topoyaml_read (path, NULL, &n, &hosts, levels, &conf, &e);
    ok (t && n == 8 && conf && strstr (conf, "SwitchName=core"),
        "topoyaml_read: the tree over its 8 nodes: %s", t ? "" : e.text);
    topo_destroy (t);
    free (conf);
    for (int i = 0; i < n; i++)
        free (hosts[i]);
    free (hosts);
    {
        static const char twice[] = "- topology: b\n  block:\n    blocks:\n      - block: b1\n"
                                    "        nodes: n[1-2]\n      - block: b2\n"
                                    "        nodes: n[2-3]\n";
        char want[PATH_MAX + 32];

        write_file (path, twice, strlen (twice), 0644);
        hosts = NULL;
        t = topoyaml_read (path, NULL, &n, &hosts, levels, NULL, &e);
        snprintf (want, sizeof (want), "%s:6:", path);
        ok (!t && strstr (e.text, want) && strstr (e.text, "n2"),
            "a node in two blocks: the file's line of the second: %s", e.text);
    }
    write_file (path, "\x01\x02", 2, 0644);
    hosts = NULL;
    ok (!topoyaml_read (path, NULL, &n, &hosts, levels, NULL, &e) && strstr (e.text, path),
        "binary: named: %s", e.text);
    remove_tree (dir);
    return done_testing ();
}
