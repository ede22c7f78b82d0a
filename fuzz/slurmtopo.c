/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurmtopo.c: slurmctld's topology as the plugin reads it (scontrol show
 * topology's lines, lib/slurmtopo.h): the ranks of a step's nodes, and
 * the topology.conf made of it, which topoconf reads as any other.  The
 * text comes from slurmctld, but is read as untrusted all the same.
 */
#include "config.h"

#include "fuzz/fuzz.h"
#include "lib/compat.h"
#include "lib/slurmtopo.h"
#include "lib/topoconf.h"

FUZZ_SLURM_HOSTLIST

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static char *nodes[] = {"n1", "n2",  "n3",  "n4",  "n5",  "n6",  "n7",  "n8",
                            "n9", "n10", "n11", "n12", "n13", "n14", "n15", "n16"};
    char *text = fuzz_text (data, size), *conf = NULL, name[64], why[256];
    topoconf_level_t levels[TOPOCONF_LEVELS];
    char **hosts = nodes;
    int rank[16], n = 16, rc;
    tm_error_t e;
    topo_t *t;

    rc = slurmtopo_ranks (text, "", 16, nodes, rank, name, sizeof (name), why, sizeof (why), &e);
    if (rc < -1 || rc > SLURMTOPO_UNKNOWN)
        abort ();
    for (int i = 0; rc == SLURMTOPO_RANKED && i < 16; i++)
        if (rank[i] < 0)
            abort ();
    if (slurmtopo_conf (text, &conf, &e) == 0) {
        if ((t = topoconf_parse (conf, "fuzz", NULL, 0, &n, &hosts, levels, &e)))
            topo_destroy (t);
        free (conf);
    }
    free (text);
    return 0;
}
