/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file.h: whole-file reads and atomic replacement, for every file topomap
 * keeps (netmaps, profiles, plans).
 */
#ifndef TOPOMAP_FILE_H
#define TOPOMAP_FILE_H

#include <dirent.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/error.h"

/* Whether path names standard output on a command line: "-" or
 * "/dev/stdout".  The only paths written in place.
 */
int file_is_stdout (const char *path);

/* Replace path with len bytes of data: write a temporary file beside it
 * (an unpredictable name, O_EXCL|O_NOFOLLOW, mode bits mode), fsync,
 * rename over path.  Readers see the old file or the new, never half; on
 * failure nothing is left behind.  A symbolic link at path is replaced,
 * never followed: its target is untouched.  Anything else but a regular
 * file there is refused at once without being opened: a directory with
 * EISDIR, a FIFO, device or socket with EINVAL.  "-" and "/dev/stdout"
 * (file_is_stdout) are written to standard output.
 */
int file_replace (const char *path, const char *data, size_t len, int mode, tm_error_t *errp);

/* file_replace of name (no '/') in the directory dirfd; what names the
 * file in messages (the path it stands for).
 */
int file_replaceat (int dirfd, const char *name, const char *what, const char *data, size_t len,
                    int mode, tm_error_t *errp);

/* A new file in the directory dirfd named prefix, six random characters
 * of [A-Za-z0-9], then suffix; created O_EXCL|O_NOFOLLOW with mode bits
 * mode, len bytes of data written and synced.  Its name (without the
 * directory) in name.  On failure nothing is left behind.
 */
int file_createat (int dirfd, const char *prefix, const char *suffix, const char *data, size_t len,
                   int mode, char *name, size_t namelen, tm_error_t *errp);

/* Whether name is prefix, six characters of [A-Za-z0-9], suffix: a name
 * file_createat could have made.
 */
int file_created_name (const char *name, const char *prefix, const char *suffix);

/* Open name in the directory dirfd with flags (O_NOFOLLOW, O_NONBLOCK and
 * O_CLOEXEC added; mode for O_CREAT), and keep it only when it is a
 * regular file owned by uid, with no other name when opened to write: a
 * link, FIFO, device, another's file or a hard link is refused (ELOOP,
 * EINVAL, EPERM) without blocking or being written.
 * O_TRUNC is applied only after that check.  The descriptor, or -1.
 */
int file_openat_own (int dirfd, const char *name, const char *what, int flags, int mode, uid_t uid,
                     tm_error_t *errp);

/* Open name in the directory dirfd (what names it) to read, as a file
 * another may have put there for uid to trust: a regular file of root's or
 * uid's that neither its group nor others may write.  A link, FIFO or device
 * is refused without blocking.  The descriptor, or -1 with errno and errp.
 */
int file_openat_trusted (int dirfd, const char *name, const char *what, uid_t uid,
                         tm_error_t *errp);

/* A stream over the entries of the directory dirfd, from its first
 * (closedir it; dirfd stays open and usable, but shares the stream's
 * position: read dirfd's entries only through the stream), or NULL with
 * errno.
 */
DIR *file_dir_stream (int dirfd);

/* file_replace (file_replaceat) with o as pretty-printed JSON and a final
 * newline. */
struct json_object;
int file_replace_json (const char *path, struct json_object *o, int mode, tm_error_t *errp);
int file_replaceat_json (int dirfd, const char *name, const char *what, struct json_object *o,
                         int mode, tm_error_t *errp);

/* The whole of the regular file path, at most max bytes, NUL-terminated,
 * in *bufp (free it) with its length in *lenp.  Refuses FIFOs, devices
 * and directories without blocking on them.
 */
int file_slurp (const char *path, size_t max, char **bufp, size_t *lenp, tm_error_t *errp);

/* file_slurp of the open descriptor fd (what names it in messages). */
int file_slurp_fd (int fd, const char *what, size_t max, char **bufp, size_t *lenp,
                   tm_error_t *errp);

/* The length of the UTF-8 byte order mark that text (len bytes) starts
 * with, as spreadsheets and some editors write: 3, else 0.
 */
size_t file_bom (const char *text, size_t len);

/* Open the directory dir (O_DIRECTORY|O_NOFOLLOW) and keep it only when
 * it is owned by uid and neither group nor others may write it.  The
 * descriptor, or -1 with errp naming dir and the fault.
 */
int file_open_private_dir (int atfd, const char *dir, const char *what, uid_t uid,
                           tm_error_t *errp);

/* Open the directory path (absolute) walking from / one component at a
 * time with openat(O_NOFOLLOW|O_DIRECTORY), each directory on the way
 * owned by root or uid and writable by nobody else (root's and sticky
 * allowed, /tmp), the last uid's own and writable by nobody else: sshd's
 * StrictModes, held by a descriptor so that nothing swapped after the
 * check is used.  A symbolic link on the way is followed only when root
 * or uid owns it (the directory holding it is checked).  With create_mode
 * non-zero, missing directories are made with that mode whatever the
 * umask, through descriptors (mkdirat, openat O_NOFOLLOW, checked to be
 * the effective user's, fchmod): one swapped for a link or another's
 * directory after it was made is refused, never followed nor moded.  The
 * descriptor, or -1 with errp naming path, the component and the fault.
 */
int file_open_trusted_dir (const char *path, uid_t uid, int create_mode, tm_error_t *errp);

/* Whether path, and every directory above it, could only have been put
 * there by root or uid, as sshd's StrictModes asks: each owned by root or
 * uid and writable by neither group nor others; a directory above path
 * may be world-writable when it is root's and sticky (/tmp), and so may
 * path itself with FILE_STICKY_OK in flags.  Both the path as written
 * (each link on it owned by root or uid, in a directory so checked) and
 * the path with its links resolved are checked.  0, or -1 with errp
 * naming the first component at fault.
 */
#define FILE_STICKY_OK 1
int file_trusted (const char *path, uid_t uid, int flags, tm_error_t *errp);

#endif
