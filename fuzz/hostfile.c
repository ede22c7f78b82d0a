/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostfile.c: the hostfile reader (plan_read_hostfile: a node a line,
 * rank order), as `topomap plan --price NAME=HOSTFILE` reads a user's
 * file, for 16 ranks over the nodes n1 .. n8.  A file it accepts names a
 * node of those for every rank and, written back as a hostfile, is the
 * same text (a leading UTF-8 byte order mark and a missing last newline
 * apart).
 */
#include "config.h"

#include "fuzz/fuzz.h"
#include "lib/file.h"
#include "lib/planfile.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static char *names[] = {"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"};
    const char *path = fuzz_path (data, size);
    int node[16];
    char *text = NULL;
    size_t len = 0, bom;
    tm_error_t e;

    if (plan_read_hostfile (path, 16, 8, names, node, &e) < 0)
        return 0;
    for (int r = 0; r < 16; r++)
        if (node[r] < 0 || node[r] >= 8)
            abort ();
    if (plan_text (&text, &len, PLAN_HOSTFILE, 16, node, 8, names, &e) < 0)
        abort ();
    bom = file_bom ((const char *)data, size);
    data += bom;
    size -= bom;
    if (!(len == size || (len == size + 1 && text[size] == '\n')) || memcmp (text, data, size) != 0)
        abort ();
    free (text);
    return 0;
}
