/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exeid.h: which executable a step runs, and with which MPI library.
 *
 * The identity of an executable keys its communication profile (see
 * profile_cache.h): it must survive a copy or a move of the file and
 * change when the program is rebuilt.  It is read from the ELF file with
 * elfutils' libelf; the file is untrusted, and a malformed one gives an
 * error or falls back to a content hash, never a crash.
 *
 * Paths given here are file paths: a command name is resolved first, the
 * way execvp would, with exeid_resolve().
 */
#ifndef TOPOMAP_EXEID_H
#define TOPOMAP_EXEID_H

#include <stddef.h>

#include "lib/error.h"

/* Longest identity exeid_compute() gives, without the NUL:
 * "build-id:" and 2 hex digits for each of at most EXEID_BUILD_ID_MAX bytes.
 */
#define EXEID_BUILD_ID_MIN 8
#define EXEID_BUILD_ID_MAX 64
#define EXEID_MAX          (sizeof ("build-id:") - 1 + 2 * EXEID_BUILD_ID_MAX)

/* The identity of the file at path in id (len bytes with the NUL):
 *
 *   "build-id:<hex>"  the GNU build-id note of an ELF file, looked for in
 *                     its SHT_NOTE sections, then in its PT_NOTE segments
 *                     (a file stripped of section headers).  The linker
 *                     computes it from the output (ld --build-id, the
 *                     default of gcc on most distributions), so a copy,
 *                     a move or a strip keeps it and a rebuild that
 *                     changes the code changes it.  A build-id shorter
 *                     than EXEID_BUILD_ID_MIN or longer than
 *                     EXEID_BUILD_ID_MAX bytes is not trusted.
 *   "sha256:<hex>"    the SHA-256 of the whole file (read in blocks), for
 *                     everything else: scripts, ELF files linked with
 *                     --build-id=none or with an untrusted build-id, and
 *                     ELF files too malformed for libelf.
 *
 * Hex digits are lowercase.  Fails, with a message naming path, when it
 * is missing, not a regular file (FIFOs are refused without blocking) or
 * unreadable, and with ERANGE when len is too small (EXEID_MAX + 1 is
 * always enough).
 */
int exeid_compute (const char *path, char *id, size_t len, tm_error_t *errp);

typedef enum {
    EXEID_MPI_NONE = 0, /* not linked with an MPI library we know */
    EXEID_MPI_OPENMPI,
    EXEID_MPI_MPICH, /* MPICH and the MPICH ABI (Intel MPI, MVAPICH, ...) */
} exeid_mpi_t;

/* The MPI library that the executable at path links, from the DT_NEEDED
 * entries of its dynamic section, in their order; the first that names a
 * library below decides:
 *
 *   Open MPI  libmpi.so.20, libmpi.so.40 (Open MPI 2 to 5), and the
 *             bindings that only Open MPI ships, of any version:
 *             libmpi_mpifh.so, libmpi_usempif08.so,
 *             libmpi_usempi_ignore_tkr.so, libmpi_usempi.so,
 *             libmpi_cxx.so, libmpi_java.so.  A Fortran program linked
 *             with --as-needed may name only one of these.
 *   MPICH     libmpich.so, libmpichfort.so, libmpichcxx.so,
 *             libmpichf90.so and libmpich_*.so (Cray MPICH) of any
 *             version, and the MPICH ABI sonames libmpi.so.12,
 *             libmpifort.so.12, libmpicxx.so.12 (Intel MPI, MVAPICH).
 *
 * Only the executable's own dependencies count, not theirs: a program
 * that reaches MPI through another shared library (a Python interpreter
 * running mpi4py) is EXEID_MPI_NONE, as are scripts, statically linked
 * executables, and any other libmpi.so version (Open MPI 1.x, vendor
 * MPIs).  Fails, naming path, when it is missing, not a regular file,
 * unreadable, or an ELF file whose dynamic section cannot be read.
 */
int exeid_mpi (const char *path, exeid_mpi_t *mpi, tm_error_t *errp);

/* "none", "openmpi", "mpich"; "unknown" for any other value. */
const char *exeid_mpi_name (exeid_mpi_t mpi);

/* The absolute path, symbolic links resolved (realpath), of the file that
 * execvp would run for cmd (argv[0] of a step), in out (len bytes):
 *
 *   cmd with a '/'  that path, relative to cwd unless absolute;
 *   otherwise       the first executable regular file dir/cmd for the
 *                   entries dir of path_env (a PATH value) in order, an
 *                   empty entry meaning cwd and a relative one taken
 *                   from cwd; path_env NULL means the C library's default
 *                   (confstr _CS_PATH), as for execvp.
 *
 * cwd NULL means the working directory of the calling process; given, it
 * must be absolute.  Fails, with a message naming cmd, with ENOENT when
 * nothing matches, EACCES when the file named with a '/' is not an
 * executable regular file, ERANGE when len is too small.
 */
int exeid_resolve (const char *cmd, const char *cwd, const char *path_env, char *out, size_t len,
                   tm_error_t *errp);

#endif
