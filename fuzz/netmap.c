/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netmap.c: the netmap reader (netmap_read_fd: JSON, the measured
 * matrices, the inferred topology), then what is done with a netmap that
 * reads: its display and the cost of every pair.  The plugin reads
 * netmaps from a cache a user may share (topomap.so(8)).
 */
#include "config.h"

#include "cli/netmap_show.h"
#include "fuzz/fuzz.h"

#include <fcntl.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    const char *path = fuzz_path (data, size);
    netmap_t *nm;
    tm_error_t e;
    int fd;

    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
        abort ();
    nm = netmap_read_fd (fd, "fuzz", netmap_max_bytes (64), &e);
    close (fd);
    if (!nm)
        return 0;
    netmap_show (fuzz_sink (), nm, "fuzz", nm->n % 2 ? -1 : 0);
    for (int a = 0; a < nm->n; a++) {
        if (netmap_host_index (nm, nm->hosts[a]) < 0)
            abort (); /* every host read must be found by its name */
        for (int b = 0; b < nm->n; b++)
            (void)netmap_cost (nm, a, b, 1.0, 4096.0);
    }
    (void)netmap_measure_bound (nm);
    netmap_destroy (nm);
    return 0;
}
