/* SPDX-License-Identifier: GPL-2.0-or-later */
/* import.c: every import format of `topomap profile import` (a CSV or
 * whitespace matrix, TreeMatch .mat, Open MPI's monitoring output, and the
 * guess among them).  The input's first byte picks the format, the rest
 * is the file.
 */
#include "config.h"

#include "fuzz/fuzz.h"
#include "lib/profile.h"

static const profile_format_t formats[] = {
    PROFILE_FMT_AUTO,
    PROFILE_FMT_MATRIX,
    PROFILE_FMT_MAT,
    PROFILE_FMT_OMPI,
};

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    profile_format_t fmt;
    profile_t *p;
    tm_error_t e;

    if (size < 1)
        return 0;
    fmt = formats[data[0] % (sizeof (formats) / sizeof (formats[0]))];
    if (!(p = profile_import (fuzz_path (data + 1, size - 1), fmt, &e)))
        return 0;
    /* The export is dense, ntasks squared: a rank named 444444 makes a
     * profile that big, rightly, and its export takes as long. */
    if (p->ntasks <= 1024)
        profile_export_csv (p, fuzz_sink (), "bytes", &e);
    profile_destroy (p);
    return 0;
}
