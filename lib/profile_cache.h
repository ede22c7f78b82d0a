/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile_cache.h: where communication profiles are kept between runs, so
 * that the plugin finds the profile of the executable a step runs.
 *
 * Two directories hold profiles: the user's own cache
 * (profile_cache_user_dir), written by the recorder and by `topomap
 * profile import`, and optionally a site directory named in
 * plugstack.conf, kept by the administrators and only read here.  Lookups
 * try the user's cache first.
 *
 * A profile is filed under its key, the identity of its executable
 * (exeid.h) and its task count, as "<exe id, ':' as '-'>.n<ntasks>.json":
 * "build-id:3f0a..." for 64 tasks is "build-id-3f0a....n64.json".  Exe ids
 * come from untrusted places (profile files, command lines), so only ids
 * of the form <scheme>:<body> are accepted, scheme [a-z0-9-] not starting
 * with '-', body [a-z0-9], at most PROFILE_CACHE_ID_MAX bytes: no path
 * separator or dot can reach a file name, and the name maps back to one id.
 *
 * Files are written with profile_write, mode 0600: a temporary file and a
 * rename, so that concurrent writers of one key leave one whole file.
 * Directories the cache creates get mode 0700.  The cache never follows a
 * symbolic link in place of a profile file, and never removes anything
 * but the link itself.
 */
#ifndef TOPOMAP_PROFILE_CACHE_H
#define TOPOMAP_PROFILE_CACHE_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "lib/error.h"
#include "lib/profile.h"

#define PROFILE_CACHE_ID_MAX 160

/* The user's profile cache directory into out (len bytes):
 * <xdg_cache_home>/topomap/profiles when xdg_cache_home (the value of
 * XDG_CACHE_HOME, may be NULL) is sane, else <home>/.cache/topomap/profiles.
 * Sane means absolute, without control characters or a ".." component,
 * as the XDG base directory specification asks; an empty or relative
 * value is ignored.  home (the value of HOME, may be NULL) must be sane
 * too, else the home directory of the real uid is taken from the password
 * database: a caller acting for another user must pass that user's home.
 * Nothing is created.  Fails with ERANGE when len is too small, ENOENT
 * when no home directory is known.
 */
int profile_cache_user_dir (const char *xdg_cache_home, const char *home, char *out, size_t len,
                            tm_error_t *errp);

/* Whether exe_id may key the cache (see above); EINVAL with a message
 * naming the fault otherwise.
 */
int profile_cache_check_id (const char *exe_id, tm_error_t *errp);

/* The file name of the key (exe_id, ntasks) into name (len bytes), and
 * the path of that file in dir into path.  ntasks >= 1.
 */
int profile_cache_key (const char *exe_id, int ntasks, char *name, size_t len, tm_error_t *errp);
int profile_cache_path (const char *dir, const char *exe_id, int ntasks, char *path, size_t len,
                        tm_error_t *errp);

/* File p in dir under its key (p->exe_id, p->ntasks), replacing what was
 * there; the file's path into path (len bytes) when path is not NULL.
 * dir (relative: to the working directory) is walked from / as srun
 * --topo-map walks the user's cache (file_open_trusted_dir, for the
 * effective user): each directory on the way root's or the user's and
 * writable by nobody else, a link followed only when theirs; the missing
 * ones are made 0700 through descriptors.  A dir refused names the
 * directory at fault and why.
 */
int profile_cache_store (const char *dir, const profile_t *p, char *path, size_t len,
                         tm_error_t *errp);

/* profile_cache_store into a site's directory (plugstack site_profiles=)
 * that every user reads: directories made 0755, the file 0644.
 */
int profile_cache_publish (const char *dir, const profile_t *p, char *path, size_t len,
                           tm_error_t *errp);

/* profile_cache_store into the directory dirfd, which dir names: nothing
 * is created, every write relative to the descriptor.
 */
int profile_cache_storeat (int dirfd, const char *dir, const profile_t *p, char *path, size_t len,
                           tm_error_t *errp);

/* The profile of exe_id for ntasks tasks, from the user's cache held by
 * user_fd (named user_dir in messages; -1: none), else from site_dir
 * (NULL, or a directory that may not exist).  A file of the user's cache
 * is read only when it is a regular file of uid's, one of the site's only
 * when it is a regular file of root's or uid's that nobody else may
 * write.  Returns 1 with *pp (profile_destroy it) and its path in path
 * (len bytes, may be NULL) when found, 0 when not, -1 on an invalid
 * exe_id or ntasks.
 *
 * errp is cleared, and on 0 or 1 may then hold warnings for the caller to
 * print, "; "-separated:
 *   - a file under the key that is no profile (profile_read rejects it),
 *     is a symbolic link, not a regular file, not safe to read (owner,
 *     mode), or records another exe id or task count than its name says:
 *     it is ignored and the search goes on;
 *   - when nothing was found for ntasks but a profile of exe_id exists
 *     for other task counts: "profile for <exe id> recorded for 16 tasks,
 *     this step has 8 (not applied)".
 */
int profile_cache_lookup (int user_fd, const char *user_dir, const char *site_dir, uid_t uid,
                          const char *exe_id, int ntasks, profile_t **pp, char *path, size_t len,
                          tm_error_t *errp);

/* Open name in the directory dirfd (path names it) to read: in the
 * user's own cache (site 0) a regular file of uid's (file_openat_own), in
 * the site's one of root's or uid's that nobody else may write
 * (file_openat_trusted).  The descriptor; -1 with errno ENOENT when absent, else errp
 * saying why.
 */
int profile_cache_openat (int dirfd, const char *name, const char *path, int site, uid_t uid,
                          tm_error_t *errp);

/* One file of a cache directory, as profile_cache_list shows it. */
typedef struct {
    const char *name;         /* file name in the directory */
    const char *path;         /* dir/name */
    const char *exe_id;       /* from the name, "" when it is not a key */
    int ntasks;               /* from the name, 0 when it is not a key */
    const char *exe_path;     /* recorded path of the executable, "" if unknown */
    off_t size;               /* bytes */
    const profile_t *profile; /* the profile, NULL when not valid */
    const char *reason;       /* why it is not valid, NULL when valid */
} profile_cache_entry_t;

/* Return 0 to go on listing; any other value stops it. */
typedef int (*profile_cache_list_f) (const profile_cache_entry_t *entry, void *arg);

/* Call cb for every "*.json" file in dir not starting with '.', in name
 * order, each read and checked like a lookup would (entries are valid
 * only during the call).  A missing dir has no entries.  Returns 0, what
 * cb returned when it stopped the listing, or -1 when dir cannot be read.
 */
int profile_cache_list (const char *dir, profile_cache_list_f cb, void *arg, tm_error_t *errp);

/* Remove from dir the profiles named by what: a file name
 * "<key>.n<ntasks>.json" (ntasks 0 or its task count), or an exe id, with
 * ntasks >= 1 for that task count only or 0 for every task count.  A
 * symbolic link is removed, not what it points to.  Returns the number of
 * files removed (0 when none matched), -1 with EINVAL when what is neither
 * a key nor an exe id, or when a file cannot be removed.
 */
int profile_cache_rm (const char *dir, const char *what, int ntasks, tm_error_t *errp);

#endif
