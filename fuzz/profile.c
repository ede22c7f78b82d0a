/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c: the profile reader (profile_read: JSON, the sparse matrix),
 * then a profile's display and, of one with a check, the traffic both
 * recordings share (what the plan is made from).  The plugin reads profiles from the user's
 * cache, a site directory and --topo-profile=PATH.
 */
#include "config.h"

#include <errno.h>

#include "fuzz/fuzz.h"
#include "lib/profile.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    profile_t *p;
    tm_error_t e;

    if (!(p = profile_read (fuzz_path (data, size), &e)))
        return 0;
    for (int r = 0; r < p->ntasks; r++)
        for (size_t i = p->row[r]; i < p->row[r + 1]; i++)
            if (p->entries[i].src != r || profile_get (p, r, p->entries[i].dst) != &p->entries[i])
                abort (); /* the rows must be what the header says */
    profile_show (fuzz_sink (), p, "fuzz", 10);
    if (p->recheck) {
        /* What a plan is made from: never more than the first sent;
         * none only where the two share no pair. */
        profile_t *c = profile_common (p, p->recheck, &e);

        if (c ? c->total_bytes > p->total_bytes || c->total_msgs > p->total_msgs ||
                    c->nentries > p->nentries
              : errno != ENODATA)
            abort ();
        profile_destroy (c);
    }
    profile_destroy (p);
    return 0;
}
