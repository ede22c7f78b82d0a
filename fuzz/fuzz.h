/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.h: what the libFuzzer harnesses share.
 *
 *   fuzz_path (data, size)  the input as a regular file, by a path the
 *                           readers open as they open a user's file
 *   fuzz_text (data, size)  the input as a NUL-terminated string (free it)
 *   fuzz_sink ()            a stream to print into, its output dropped
 *   FUZZ_SLURM_HOSTLIST     in a harness whose reader parses host lists
 *                           with libslurm: its known leak suppressed
 *
 * One harness per reader of input a user controls; each includes this
 * once.  Build and run them with `make fuzz` (fuzz/Makefile.am).
 */
#ifndef TOPOMAP_FUZZ_H
#define TOPOMAP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* A memfd is a regular file without a directory: each input is written
 * over the last, and the reader opens /proc/self/fd/N as it opens any path
 * (open, fstat: a regular file, read).  NULL when it cannot be written.
 */
static const char *fuzz_path (const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];

    if (fd < 0) {
        if ((fd = memfd_create ("fuzz-input", MFD_CLOEXEC)) < 0)
            abort ();
        snprintf (path, sizeof (path), "/proc/self/fd/%d", fd);
    }
    if (ftruncate (fd, 0) < 0 || (size && pwrite (fd, data, size, 0) != (ssize_t)size))
        abort ();
    return path;
}

static char *fuzz_text (const uint8_t *data, size_t size)
{
    char *s = malloc (size + 1);

    if (!s)
        abort ();
    memcpy (s, data, size);
    s[size] = '\0';
    return s;
}

static FILE *fuzz_sink (void)
{
    static FILE *f;

    if (!f && !(f = fopen ("/dev/null", "w")))
        abort ();
    return f;
}

/* Slurm 22.05.8's host list parser leaks the copy of a range it refuses
 * (src/common/hostlist.c, _parse_single_range; 24.11.5 frees it): only
 * libslurm's own frames lie below slurm_hostlist_create_dims.
 */
#define FUZZ_SLURM_HOSTLIST                                                                        \
    const char *__lsan_default_suppressions (void);                                                \
    const char *__lsan_default_suppressions (void)                                                 \
    {                                                                                              \
        return "leak:slurm_hostlist_create_dims\n";                                                \
    }

#endif
