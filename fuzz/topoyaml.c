/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topoyaml.c: Slurm's topology.yaml reader (topoyaml_read: libyaml, a
 * tree's switches or blocks and their aggregates as a topology.conf),
 * then the netmap of what reads.  The plugin reads the file plugstack
 * topology=FILE.yaml names (topomap.so(8)).
 */
#include "config.h"

#include "fuzz/fuzz.h"
#include "lib/compat.h"
#include "lib/topoyaml.h"

FUZZ_SLURM_HOSTLIST

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    const char *path = fuzz_path (data, size);
    topoconf_level_t levels[TOPOCONF_LEVELS];
    char **hosts = NULL, *conf = NULL;
    int n = 0;
    topo_t *t;
    netmap_t *nm;
    tm_error_t e;

    /* at most 64 nodes: a netmap is n * n */
    if (!(t = topoyaml_read (path, NULL, &n, &hosts, levels, &conf, &e)) || n > 64) {
        topo_destroy (t);
        compat_names_free (hosts, n);
        free (conf);
        return 0;
    }
    if (!conf)
        abort (); /* a tree that reads has its text */
    for (int l = 1; l < TOPOCONF_LEVELS; l++)
        levels[l] = (topoconf_level_t){1.0 * l, 100.0 / l};
    if (!(nm = topoconf_netmap (t, n, (const char *const *)hosts, levels, &e)))
        abort (); /* every level has figures */
    netmap_destroy (nm);
    compat_names_free (hosts, n);
    free (conf);
    return 0;
}
