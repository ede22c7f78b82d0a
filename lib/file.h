/* file.h: whole-file reads and atomic replacement, for every file topomap
 * keeps (netmaps, profiles, plans).
 */
#ifndef TOPOMAP_FILE_H
#define TOPOMAP_FILE_H

#include <stddef.h>

#include "lib/error.h"

/* Replace path with len bytes of data: write a temporary file in the same
 * directory (O_EXCL, mode bits mode), fsync, rename over path.  Readers see
 * the old file or the new, never half; on failure nothing is left behind.
 * A path that is a character device or FIFO, or a link to one or to a
 * regular file (/dev/null, /dev/stdout), is written through as it is, not
 * replaced; a directory is an error (EISDIR), and so is a block device or
 * socket (EINVAL).
 */
int file_replace (const char *path, const char *data, size_t len, int mode, tm_error_t *errp);

/* file_replace with o as pretty-printed JSON and a final newline. */
struct json_object;
int file_replace_json (const char *path, struct json_object *o, int mode, tm_error_t *errp);

/* The whole of the regular file path, at most max bytes, NUL-terminated,
 * in *bufp (free it) with its length in *lenp.  Refuses FIFOs, devices
 * and directories without blocking on them.
 */
int file_slurp (const char *path, size_t max, char **bufp, size_t *lenp, tm_error_t *errp);

/* Make dir and its missing parents, mode bits mode for those it creates;
 * an existing non-directory on the way is an error (ENOTDIR).
 */
int file_mkdirs (const char *dir, int mode, tm_error_t *errp);

#endif
