/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recorder.h: which PMPI recorder to preload into an executable.
 *
 * The recorder (recorder/recorder.c) is built once per MPI, since Open MPI and
 * MPICH differ in ABI, as DIR/topomap-recorder-<mpi>.so; the executable's
 * own DT_NEEDED entries say which MPI it links (exeid_mpi).
 *
 * Environment the recorder reads in the ranks:
 *   TOPOMAP_RECORD               file the profile is written to (by rank 0,
 *                                at MPI_Finalize); unset or empty: off
 *   TOPOMAP_RECORD_COLLECTIVES   "1": attribute collectives to pairs
 */
#ifndef TOPOMAP_RECORDER_H
#define TOPOMAP_RECORDER_H

#include <stddef.h>

#include "lib/error.h"

#define RECORDER_ENV             "TOPOMAP_RECORD"
#define RECORDER_ENV_COLLECTIVES "TOPOMAP_RECORD_COLLECTIVES"

/* The recorder in dir for the executable at exe, in out (len bytes).
 * Fails, naming exe, when it links no MPI we know, and naming the library
 * when dir has no recorder for that MPI (not built: configure did not
 * find it).
 */
int recorder_lookup (const char *exe, const char *dir, char *out, size_t len, tm_error_t *errp);

#endif
