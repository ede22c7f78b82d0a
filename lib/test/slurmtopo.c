/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/slurmtopo.h"
#include "lib/test/tap.h"

/* scontrol show topology in the Debian testing root (Slurm 26.05.5),
 * topomap-cluster up --topology 2sw-interleaved.topo --slurm-topology. */
static const char tree[] = "SwitchName=core Level=1 LinkSpeed=1 Nodes=n[1-8] Switches=s1,s2\n"
                           "SwitchName=s1 Level=0 LinkSpeed=1 Nodes=n[1,3,5,7]\n"
                           "SwitchName=s2 Level=0 LinkSpeed=1 Nodes=n[2,4,6,8]\n";

static char *nodes8[] = {"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"};

static const char *show (const int *v, int n, char *buf, size_t size)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && o + 16 < size; i++)
        o += (size_t)snprintf (buf + o, size - o, "%s%d", i ? "," : "", v[i]);
    return buf;
}

/* slurmtopo_ranks of text over nodes8 gives rc and, when ranked, want. */
static void expect (const char *what, const char *text, const char *param, int want_rc,
                    const int *want, const char *word)
{
    int rank[8];
    char name[64], why[256], b1[64], b2[64];
    tm_error_t e = {{0}};
    int rc =
        slurmtopo_ranks (text, param, 8, nodes8, rank, name, sizeof (name), why, sizeof (why), &e);
    const char *said = rc < 0 ? e.text : rc == SLURMTOPO_UNKNOWN ? why : name;

    ok (rc == want_rc && (!want || !memcmp (rank, want, sizeof (rank))) &&
            (!word || strstr (said, word)),
        "%s: %d%s%s (\"%s\")", what, want_rc, want ? " ranks " : "",
        want ? show (want, 8, b1, sizeof (b1)) : "", said);
    if (rc >= 0 && want && memcmp (rank, want, sizeof (rank)))
        diag ("got ranks %s", show (rank, 8, b2, sizeof (b2)));
}

/* slurmtopo_conf of text is want, or fails with errno and word. */
static void expect_conf (const char *what, const char *text, const char *want, int err,
                         const char *word)
{
    char *conf = NULL;
    tm_error_t e = {{0}};
    int rc = slurmtopo_conf (text, &conf, &e);

    if (want) {
        ok (rc == 0 && conf && !strcmp (conf, want), "conf: %s", what);
        if (rc == 0 && strcmp (conf, want))
            diag ("got:\n%s", conf);
        if (rc < 0)
            diag ("%s", e.text);
    } else
        ok (rc == -1 && errno == err && strstr (e.text, word), "conf: %s: \"%s\"", what, e.text);
    free (conf);
}

static void test_conf (void)
{
    expect_conf ("a tree as topology.conf: a leaf's nodes, the others' switches", tree,
                 "SwitchName=core Switches=s1,s2\n"
                 "SwitchName=s1 Nodes=n[1,3,5,7]\n"
                 "SwitchName=s2 Nodes=n[2,4,6,8]\n",
                 0, NULL);
    expect_conf ("blocks as a tree: base blocks leaves, aggregates above the largest within",
                 "BlockName=b1 BlockIndex=0 Nodes=n[1-2] BlockSize=2\n"
                 "BlockName=b2 BlockIndex=1 Nodes=n[3-4] BlockSize=2\n"
                 "BlockName=b3 BlockIndex=2 Nodes=n[5-6] BlockSize=2\n"
                 "BlockName=b4 BlockIndex=3 Nodes=n[7-8] BlockSize=2\n"
                 "AggregatedBlock=b[1-2] BlockIndex=4 Nodes=n[1-4] BlockSize=4\n"
                 "AggregatedBlock=b[3-4] BlockIndex=5 Nodes=n[5-8] BlockSize=4\n"
                 "AggregatedBlock=b[1-4] BlockIndex=6 Nodes=n[1-8] BlockSize=8\n",
                 "SwitchName=b0 Nodes=n[1-2]\n"
                 "SwitchName=b1 Nodes=n[3-4]\n"
                 "SwitchName=b2 Nodes=n[5-6]\n"
                 "SwitchName=b3 Nodes=n[7-8]\n"
                 "SwitchName=b4 Switches=b0,b1\n"
                 "SwitchName=b5 Switches=b2,b3\n"
                 "SwitchName=b6 Switches=b4,b5\n",
                 0, NULL);
    expect_conf ("no topology", "", NULL, ENOENT, "no topology of switches or blocks");
    expect_conf ("a ring", "RingName=r1 RingIndex=0 Nodes=n[1-8]\n", NULL, ENOTSUP, "RingName");
    expect_conf ("a bad line", "SwitchName=s1 Level=x Nodes=n1\n", NULL, EINVAL,
                 "topology line 1: 'x': not a number");
}

int main (void)
{
    plan (NO_PLAN);
    expect ("a tree: leaf switches in slurmctld's order", tree, NULL, SLURMTOPO_RANKED,
            (int[]){1, 2, 1, 2, 1, 2, 1, 2}, "topology order (topology/tree)");
    expect ("a node under no leaf ranks 0, a node under two its first leaf",
            "SwitchName=b Level=0 Nodes=n[5-8],n1\nSwitchName=a Level=0 Nodes=n[2-3],n5\n", "",
            SLURMTOPO_RANKED, (int[]){1, 2, 2, 0, 1, 1, 1, 1}, NULL);
    expect ("blocks by BlockIndex; aggregated blocks do not rank",
            "BlockName=b1 BlockIndex=0 Nodes=n[1-2] BlockSize=2\n"
            "BlockName=b2 BlockIndex=1 Nodes=n[3-4] BlockSize=2\n"
            "AggregatedBlock=b1-2 BlockIndex=4 Nodes=n[1-4] BlockSize=4\n"
            "BlockName=b3 BlockIndex=2 Nodes=n[5-8] BlockSize=2\n",
            NULL, SLURMTOPO_RANKED, (int[]){0, 0, 1, 1, 2, 2, 2, 2}, "topology/block");
    expect ("no topology (flat): allocation order", "", NULL, SLURMTOPO_ALLOC, NULL, "flat");
    expect ("NULL text: allocation order", NULL, NULL, SLURMTOPO_ALLOC, NULL, "flat");
    expect ("TopologyParam=SwitchAsNodeRank is not predicted", tree, "SwitchAsNodeRank",
            SLURMTOPO_UNKNOWN, NULL, "SwitchAsNodeRank");
    expect ("BlockAsNodeRank leaves a tree alone", tree, "BlockAsNodeRank,RoutePart",
            SLURMTOPO_RANKED, NULL, NULL);
    expect ("a ring is not predicted", "RingName=r1 RingIndex=0 Nodes=n[1-8]\n", NULL,
            SLURMTOPO_UNKNOWN, NULL, "RingName");
    expect ("a block line among switches",
            "SwitchName=s1 Level=0 Nodes=n1\nBlockName=b BlockIndex=0\n", NULL, -1, NULL,
            "line 2: a block line among switch lines");
    expect ("a switch without Level", "SwitchName=s1 Nodes=n1\n", NULL, -1, NULL,
            "line 1: no Level=");
    expect ("a bad BlockIndex", "BlockName=b BlockIndex=-1 Nodes=n1\n", NULL, -1, NULL,
            "'-1': not a number");
    expect ("a bad host list", "SwitchName=s1 Level=0 Nodes=n[1-\n", NULL, -1, NULL,
            "not a host list");
    expect ("a word that is no KEY=VALUE", "SwitchName=s1 Level=0 junk\n", NULL, -1, NULL,
            "'junk': not KEY=VALUE");
    test_conf ();
    return done_testing ();
}
