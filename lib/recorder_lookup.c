/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recorder_lookup.c: the recorder for an executable.  See recorder.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/exeid.h"
#include "lib/recorder.h"

int recorder_lookup (const char *exe, const char *dir, char *out, size_t len, tm_error_t *errp)
{
    exeid_mpi_t mpi;
    int n;

    if (exeid_mpi (exe, &mpi, errp) < 0)
        return -1;
    if (mpi == EXEID_MPI_NONE) {
        errno = ENOENT;
        return errprintf (errp, "%s: links no MPI library topomap knows (Open MPI or MPICH)", exe);
    }
    n = snprintf (out, len, "%s/topomap-recorder-%s.so", dir, exeid_mpi_name (mpi));
    if (n < 0 || (size_t)n >= len) {
        errno = ERANGE;
        return errprintf (errp, "%s: recorder path too long", dir);
    }
    if (access (out, R_OK) < 0)
        return errprintf (errp, "%s: no %s recorder for %s: %s", out, exeid_mpi_name (mpi), exe,
                          strerror (errno));
    return 0;
}
