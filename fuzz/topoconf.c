/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topoconf.c: the topology.conf reader (topoconf_read: Slurm's
 * SwitchName= lines, host lists through libslurm, topomap's figures of
 * each level), then what is done with a file that reads: its netmap and
 * the topology.conf written back, which must read again as the same tree.
 * The plugin reads the file plugstack topology= names (topomap.so(8)).
 */
#include "config.h"

#include "fuzz/fuzz.h"
#include "lib/compat.h"
#include "lib/topoconf.h"

FUZZ_SLURM_HOSTLIST

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    const char *path = fuzz_path (data, size);
    topoconf_level_t levels[TOPOCONF_LEVELS];
    char **hosts = NULL, *text = NULL, back[64];
    size_t len = 0;
    int n = 0, fd;
    topo_t *t;
    netmap_t *nm;
    tm_error_t e;
    FILE *f;

    /* at most 64 nodes: a netmap is n * n */
    if (!(t = topoconf_read (path, &n, &hosts, levels, &e)) || n > 64) {
        topo_destroy (t);
        compat_names_free (hosts, n);
        return 0;
    }
    for (int l = 1; l < TOPOCONF_LEVELS; l++)
        if (levels[l].lat_us != levels[l].lat_us)
            levels[l] = (topoconf_level_t){1.0 * l, 100.0 / l};
    nm = topoconf_netmap (t, n, (const char *const *)hosts, levels, &e);
    if (!nm)
        abort (); /* every level has figures */
    if (!(f = open_memstream (&text, &len)) || topoconf_write (f, nm, "fuzz", &e) < 0)
        abort ();
    fclose (f);
    /* what was written reads back */
    if ((fd = memfd_create ("fuzz-back", MFD_CLOEXEC)) < 0 || write (fd, text, len) != (ssize_t)len)
        abort ();
    snprintf (back, sizeof (back), "/proc/self/fd/%d", fd);
    char **hosts2 = NULL;
    int n2 = 0;
    topo_t *t2 = topoconf_read (back, &n2, &hosts2, levels, &e);
    if (!t2 || n2 != n || t2->ngroups != nm->topo->ngroups)
        abort ();
    topo_destroy (t2);
    compat_names_free (hosts2, n2);
    close (fd);
    free (text);
    netmap_destroy (nm);
    compat_names_free (hosts, n);
    return 0;
}
