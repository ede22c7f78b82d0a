/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file.c: whole-file reads and atomic replacement.  See file.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>

#include "lib/file.h"

static int file_write_all (int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t w = write (fd, s, len);

        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        s += w;
        len -= (size_t)w;
    }
    return 0;
}

int file_is_stdout (const char *path)
{
    return path && (!strcmp (path, "-") || !strcmp (path, "/dev/stdout"));
}

static const char file_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
#define FILE_RANDOM 6

/* FILE_RANDOM unpredictable characters of file_chars into s. */
static int file_random (char *s)
{
    unsigned char r[FILE_RANDOM];
    size_t got = 0;

    while (got < sizeof (r)) {
        ssize_t n = getrandom (r + got, sizeof (r) - got, 0);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)n;
    }
    for (int i = 0; i < FILE_RANDOM; i++)
        s[i] = file_chars[r[i] % (sizeof (file_chars) - 1)];
    return 0;
}

/* Create prefix + random + suffix in dirfd, O_EXCL|O_NOFOLLOW, mode; its
 * name in name.  The descriptor, or -1 with errno set.
 */
static int file_create_unique (int dirfd, const char *prefix, const char *suffix, int mode,
                               char *name, size_t namelen)
{
    size_t plen = strlen (prefix), slen = strlen (suffix);

    if (plen + FILE_RANDOM + slen + 1 > namelen || plen + FILE_RANDOM + slen > NAME_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (int tries = 0; tries < 100; tries++) {
        int fd;

        memcpy (name, prefix, plen);
        if (file_random (name + plen) < 0)
            return -1;
        memcpy (name + plen + FILE_RANDOM, suffix, slen + 1);
        fd = openat (dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                     (mode_t)(mode & 0600));
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/* Close fd with errno kept, on a path that failed after opening it. */
static void file_close_quietly (int fd)
{
    int saved = errno;

    close (fd);
    errno = saved;
}

/* Whether uid owns what st describes; -1 with EPERM and errp otherwise. */
static int file_owned_by (const struct stat *st, uid_t uid, const char *what, tm_error_t *errp)
{
    if (st->st_uid == uid)
        return 0;
    errno = EPERM;
    return errprintf (errp, "%s: owned by uid %lu, not %lu", what, (unsigned long)st->st_uid,
                      (unsigned long)uid);
}

/* Write and sync data into fd, set its mode bits (the umask may have
 * taken some away); close it.  -1 with errno set, fd closed.
 */
static int file_fill (int fd, const char *data, size_t len, int mode)
{
    if (fchmod (fd, (mode_t)mode) < 0 || file_write_all (fd, data, len) < 0 || fsync (fd) < 0) {
        file_close_quietly (fd);
        return -1;
    }
    return close (fd);
}

int file_createat (int dirfd, const char *prefix, const char *suffix, const char *data, size_t len,
                   int mode, char *name, size_t namelen, tm_error_t *errp)
{
    int fd;

    if ((fd = file_create_unique (dirfd, prefix, suffix, mode, name, namelen)) < 0)
        return errprintf (errp, "%s*%s: cannot create: %s", prefix, suffix, strerror (errno));
    if (file_fill (fd, data, len, mode) < 0) {
        int saved = errno;

        unlinkat (dirfd, name, 0);
        errno = saved;
        return errprintf (errp, "%s: cannot write: %s", name, strerror (errno));
    }
    return 0;
}

int file_created_name (const char *name, const char *prefix, const char *suffix)
{
    size_t plen = strlen (prefix), slen = strlen (suffix), len = strlen (name);

    if (len != plen + FILE_RANDOM + slen || strncmp (name, prefix, plen) ||
        strcmp (name + plen + FILE_RANDOM, suffix))
        return 0;
    for (int i = 0; i < FILE_RANDOM; i++)
        if (!name[plen + i] || !strchr (file_chars, name[plen + i]))
            return 0;
    return 1;
}

int file_replaceat (int dirfd, const char *name, const char *what, const char *data, size_t len,
                    int mode, tm_error_t *errp)
{
    char tmp[NAME_MAX + 1], prefix[NAME_MAX + 1];
    struct stat st;
    int fd;

    /* Nothing there, a regular file or a link (replaced, not followed):
     * anything else is refused without being opened. */
    if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG (st.st_mode) &&
        !S_ISLNK (st.st_mode)) {
        if (S_ISDIR (st.st_mode)) {
            errno = EISDIR;
            return errprintf (errp, "%s: is a directory", what);
        }
        errno = EINVAL;
        return errprintf (errp, "%s: not a regular file (a %s): not replaced", what,
                          S_ISFIFO (st.st_mode)   ? "FIFO"
                          : S_ISSOCK (st.st_mode) ? "socket"
                                                  : "device");
    }
    if (snprintf (prefix, sizeof (prefix), ".%s.", name) >= (int)sizeof (prefix) - FILE_RANDOM) {
        errno = ENAMETOOLONG;
        return errprintf (errp, "%s: name too long", what);
    }
    if ((fd = file_create_unique (dirfd, prefix, "", 0600, tmp, sizeof (tmp))) < 0)
        return errprintf (errp, "%s: cannot create a temporary file: %s", what, strerror (errno));
    if (file_fill (fd, data, len, mode) < 0) {
        errprintf (errp, "%s: cannot write %s: %s", what, tmp, strerror (errno));
        goto fail;
    }
    if (renameat (dirfd, tmp, dirfd, name) < 0) {
        errprintf (errp, "%s: cannot rename %s into place: %s", what, tmp, strerror (errno));
        goto fail;
    }
    return 0;
fail : {
    int saved = errno;

    unlinkat (dirfd, tmp, 0);
    errno = saved;
}
    return -1;
}

int file_replace (const char *path, const char *data, size_t len, int mode, tm_error_t *errp)
{
    char dir[PATH_MAX];
    const char *slash, *name;
    int dirfd, rc;

    if (!path || path[0] == '\0') {
        errno = EINVAL;
        return errprintf (errp, "file_replace: no path");
    }
    if (file_is_stdout (path)) {
        if (file_write_all (STDOUT_FILENO, data, len) < 0)
            return errprintf (errp, "%s: cannot write: %s", path, strerror (errno));
        return 0;
    }
    slash = strrchr (path, '/');
    name = slash ? slash + 1 : path;
    if (!slash)
        snprintf (dir, sizeof (dir), ".");
    else if (slash == path)
        snprintf (dir, sizeof (dir), "/");
    else if (snprintf (dir, sizeof (dir), "%.*s", (int)(slash - path), path) >= (int)sizeof (dir)) {
        errno = ENAMETOOLONG;
        return errprintf (errp, "%s: path too long", path);
    }
    if (name[0] == '\0' || !strcmp (name, ".") || !strcmp (name, "..")) {
        errno = EISDIR;
        return errprintf (errp, "%s: is a directory", path);
    }
    if ((dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return errprintf (errp, "%s: cannot create: %s", path, strerror (errno));
    rc = file_replaceat (dirfd, name, path, data, len, mode, errp);
    file_close_quietly (dirfd);
    return rc;
}

int file_openat_own (int dirfd, const char *name, const char *what, int flags, int mode, uid_t uid,
                     tm_error_t *errp)
{
    struct stat st;
    int fd;

    fd = openat (dirfd, name, (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY,
                 (mode_t)mode);
    if (fd < 0)
        return errprintf (errp, "%s: %s", what,
                          errno == ELOOP ? "a symbolic link, not opened" : strerror (errno));
    if (fstat (fd, &st) < 0) {
        errprintf (errp, "%s: %s", what, strerror (errno));
        goto fail;
    }
    if (!S_ISREG (st.st_mode)) {
        errno = EINVAL;
        errprintf (errp, "%s: not a regular file", what);
        goto fail;
    }
    if (file_owned_by (&st, uid, what, errp) < 0)
        goto fail;
    /* A second name elsewhere: a file of the user's linked in, not one
     * made here. */
    if ((flags & O_ACCMODE) != O_RDONLY && st.st_nlink != 1) {
        errno = EPERM;
        errprintf (errp, "%s: has %lu hard links, not written", what, (unsigned long)st.st_nlink);
        goto fail;
    }
    if ((flags & O_TRUNC) && ftruncate (fd, 0) < 0) {
        errprintf (errp, "%s: %s", what, strerror (errno));
        goto fail;
    }
    return fd;
fail:
    file_close_quietly (fd);
    return -1;
}

int file_openat_trusted (int dirfd, const char *name, const char *what, uid_t uid, tm_error_t *errp)
{
    struct stat st;
    int fd;

    if ((fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0)
        return errprintf (errp, "%s: %s", what,
                          errno == ELOOP ? "a symbolic link, not opened" : strerror (errno));
    if (fstat (fd, &st) < 0) {
        errprintf (errp, "%s: %s", what, strerror (errno));
        goto fail;
    }
    errno = EPERM;
    if (!S_ISREG (st.st_mode)) {
        errno = EINVAL;
        errprintf (errp, "%s: not a regular file", what);
    } else if (st.st_uid != 0 && st.st_uid != uid)
        errprintf (errp, "%s: owned by uid %lu, not root nor %lu", what, (unsigned long)st.st_uid,
                   (unsigned long)uid);
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        errprintf (errp, "%s: mode %04o: writable by %s", what, (unsigned)(st.st_mode & 07777),
                   st.st_mode & S_IWOTH ? "others" : "its group");
    else
        return fd;
fail:
    file_close_quietly (fd);
    return -1;
}

DIR *file_dir_stream (int dirfd)
{
    int fd = fcntl (dirfd, F_DUPFD_CLOEXEC, 0);
    DIR *d;

    if (fd < 0)
        return NULL;
    if (!(d = fdopendir (fd))) {
        file_close_quietly (fd);
        return NULL;
    }
    rewinddir (d);
    return d;
}

/* o as pretty-printed JSON with a final newline, in *bufp (free it). */
static int file_json_text (struct json_object *o, const char *what, char **bufp, size_t *lenp,
                           tm_error_t *errp)
{
    const int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE;
    const char *text;
    size_t len;

    if (!(text = json_object_to_json_string_ext (o, flags)) ||
        !(*bufp = malloc ((len = strlen (text)) + 2))) {
        errno = ENOMEM;
        return errprintf (errp, "%s: out of memory", what);
    }
    memcpy (*bufp, text, len);
    (*bufp)[len++] = '\n';
    (*bufp)[len] = '\0';
    *lenp = len;
    return 0;
}

int file_replace_json (const char *path, struct json_object *o, int mode, tm_error_t *errp)
{
    char *buf;
    size_t len;
    int rc;

    if (file_json_text (o, path, &buf, &len, errp) < 0)
        return -1;
    rc = file_replace (path, buf, len, mode, errp);
    free (buf);
    return rc;
}

int file_replaceat_json (int dirfd, const char *name, const char *what, struct json_object *o,
                         int mode, tm_error_t *errp)
{
    char *buf;
    size_t len;
    int rc;

    if (file_json_text (o, what, &buf, &len, errp) < 0)
        return -1;
    rc = file_replaceat (dirfd, name, what, buf, len, mode, errp);
    free (buf);
    return rc;
}

size_t file_bom (const char *text, size_t len)
{
    return len >= 3 && !memcmp (text, "\xef\xbb\xbf", 3) ? 3 : 0;
}

int file_slurp (const char *path, size_t max, char **bufp, size_t *lenp, tm_error_t *errp)
{
    int fd, rc;

    /* O_NONBLOCK: opening a FIFO must not hang before fstat rejects it. */
    if ((fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
        return errprintf (errp, "%s: %s", path, strerror (errno));
    rc = file_slurp_fd (fd, path, max, bufp, lenp, errp);
    file_close_quietly (fd);
    return rc;
}

int file_slurp_fd (int fd, const char *what, size_t max, char **bufp, size_t *lenp,
                   tm_error_t *errp)
{
    struct stat st;
    char *buf = NULL;
    size_t size, len = 0;
    int rc = -1;

    if (fstat (fd, &st) < 0) {
        errprintf (errp, "%s: %s", what, strerror (errno));
        goto out;
    }
    if (!S_ISREG (st.st_mode)) {
        errprintf (errp, "%s: not a regular file", what);
        errno = EINVAL;
        goto out;
    }
    if ((uintmax_t)st.st_size > max) {
        if (max >= 1024 * 1024)
            errprintf (errp, "%s: %jd bytes, larger than the limit of %zu MiB", what,
                       (intmax_t)st.st_size, max / (1024 * 1024));
        else
            errprintf (errp, "%s: %jd bytes, larger than the limit of %zu bytes", what,
                       (intmax_t)st.st_size, max);
        errno = EFBIG;
        goto out;
    }
    size = (size_t)st.st_size;
    if (!(buf = malloc (size + 1))) {
        errprintf (errp, "%s: out of memory", what);
        goto out;
    }
    while (len < size + 1) {
        ssize_t r = read (fd, buf + len, size + 1 - len);

        if (r < 0) {
            if (errno == EINTR)
                continue;
            errprintf (errp, "%s: %s", what, strerror (errno));
            goto out;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    if (len > size) {
        errprintf (errp, "%s: grew while being read", what);
        errno = EAGAIN;
        goto out;
    }
    buf[len] = '\0';
    *bufp = buf;
    *lenp = len;
    buf = NULL;
    rc = 0;
out:
    free (buf);
    return rc;
}

int file_open_private_dir (int atfd, const char *dir, const char *what, uid_t uid, tm_error_t *errp)
{
    struct stat st;
    int fd;

    if ((fd = openat (atfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return errprintf (errp, "%s: %s", what,
                          errno == ELOOP || errno == ENOTDIR ? "not a directory (or a link to one)"
                                                             : strerror (errno));
    if (fstat (fd, &st) < 0) {
        errprintf (errp, "%s: %s", what, strerror (errno));
        goto fail;
    }
    if (file_owned_by (&st, uid, what, errp) < 0)
        goto fail;
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        errno = EPERM;
        errprintf (errp, "%s: mode %04o: others may write it", what,
                   (unsigned)(st.st_mode & 07777));
        goto fail;
    }
    return fd;
fail:
    file_close_quietly (fd);
    return -1;
}

/* file_open_trusted_dir's check of one directory (fd, named comp): on the
 * way owned by root or uid and writable by nobody else, or root's and
 * sticky (/tmp); the last (last) uid's own and writable by nobody else.
 */
static int file_walk_check (int fd, const char *path, const char *comp, uid_t uid, int last,
                            tm_error_t *errp)
{
    struct stat st;

    if (fstat (fd, &st) < 0)
        return errprintf (errp, "%s: %s: %s", path, comp, strerror (errno));
    if (last ? st.st_uid != uid : st.st_uid != 0 && st.st_uid != uid) {
        errno = EPERM;
        return errprintf (errp, "%s: %s: owned by uid %lu, not %s%lu", path, comp,
                          (unsigned long)st.st_uid, last ? "" : "root nor ", (unsigned long)uid);
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (last || st.st_uid != 0 || !(st.st_mode & S_ISVTX))) {
        errno = EPERM;
        return errprintf (errp, "%s: %s: mode %04o: writable by %s", path, comp,
                          (unsigned)(st.st_mode & 07777),
                          st.st_mode & S_IWOTH ? "others" : "its group");
    }
    return 0;
}

/* Make the directory comp in dirfd (path names the whole in messages)
 * with the mode bits mode whatever the umask, and open it: by O_NOFOLLOW,
 * then checked to be a directory of the effective user's before fchmod.
 * What another swaps in after mkdirat (a link, a directory of theirs) is
 * refused and left as it is.  The descriptor, or -1 with errp; errno
 * EEXIST when comp was there already.
 */
static int file_mkdirat (int dirfd, const char *path, const char *comp, int mode, tm_error_t *errp)
{
    struct stat st;
    int fd;

    if (mkdirat (dirfd, comp, (mode_t)mode) < 0) {
        if (errno == EEXIST)
            return -1;
        return errprintf (errp, "%s: cannot create %s: %s", path, comp, strerror (errno));
    }
    if ((fd = openat (dirfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        errprintf (errp, "%s: %s: %s", path, comp,
                   errno == ELOOP || errno == ENOTDIR
                       ? "replaced by a link or a file after it was made: not used"
                       : strerror (errno));
        errno = EPERM;
        return -1;
    }
    if (fstat (fd, &st) < 0) {
        errprintf (errp, "%s: %s: %s", path, comp, strerror (errno));
        file_close_quietly (fd);
        return -1;
    }
    if (st.st_uid != geteuid ()) {
        errprintf (errp, "%s: %s: replaced after it was made (by uid %lu's): not used", path, comp,
                   (unsigned long)st.st_uid);
        close (fd);
        errno = EPERM;
        return -1;
    }
    if (fchmod (fd, (mode_t)mode) < 0) {
        errprintf (errp, "%s: %s: %s", path, comp, strerror (errno));
        file_close_quietly (fd);
        return -1;
    }
    return fd;
}

int file_open_trusted_dir (const char *path, uid_t uid, int create_mode, tm_error_t *errp)
{
    enum { DEPTH = 64, LINKS = 40 };
    int stack[DEPTH], depth = 0, links = 0, rc = -1;
    char *rest, *pos, comp[NAME_MAX + 1] = "/";
    size_t size = 2 * PATH_MAX;

    if (!path || path[0] != '/') {
        errno = EINVAL;
        return errprintf (errp, "%s: not an absolute path", path ? path : "(null)");
    }
    if (strlen (path) >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return errprintf (errp, "%.64s...: path too long", path);
    }
    if (!(rest = malloc (size)))
        return errprintf (errp, "%s: out of memory", path);
    strcpy (rest, path);
    if ((stack[0] = open ("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        errprintf (errp, "/: %s", strerror (errno));
        goto out;
    }
    if (stack[0] >= 0 && file_walk_check (stack[0], path, "/", uid, 0, errp) < 0)
        goto out;
    for (pos = rest;;) {
        char target[PATH_MAX];
        struct stat st;
        size_t len;
        ssize_t n;
        int fd;

        while (*pos == '/')
            pos++;
        if (*pos == '\0')
            break;
        if ((len = strcspn (pos, "/")) > NAME_MAX) {
            errno = ENAMETOOLONG;
            errprintf (errp, "%s: a component is longer than %d bytes", path, NAME_MAX);
            goto out;
        }
        memcpy (comp, pos, len);
        comp[len] = '\0';
        pos += len;
        if (!strcmp (comp, "."))
            continue;
        if (!strcmp (comp, "..")) {
            if (depth > 0)
                close (stack[depth--]);
            continue;
        }
        fd = openat (stack[depth], comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && create_mode) {
            fd = file_mkdirat (stack[depth], path, comp, create_mode, errp);
            if (fd < 0 && errno != EEXIST)
                goto out;
            if (fd < 0) /* made by a concurrent caller: checked as found */
                fd = openat (stack[depth], comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) &&
            fstatat (stack[depth], comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode)) {
            /* A link only root or the user could have made, in a
             * directory so checked: walked to its target. */
            if (st.st_uid != 0 && st.st_uid != uid) {
                errno = EPERM;
                errprintf (errp, "%s: %s: a symbolic link owned by uid %lu, not root nor %lu", path,
                           comp, (unsigned long)st.st_uid, (unsigned long)uid);
                goto out;
            }
            n = readlinkat (stack[depth], comp, target, sizeof (target) - 1);
            if (++links > LINKS || n <= 0 || (size_t)n + strlen (pos) + 2 > size) {
                errno = ELOOP;
                errprintf (errp, "%s: %s: too many or too long symbolic links", path, comp);
                goto out;
            }
            target[n] = '\0';
            memmove (rest + n + 1, pos, strlen (pos) + 1);
            memcpy (rest, target, (size_t)n);
            rest[n] = '/';
            pos = rest;
            if (target[0] == '/')
                while (depth > 0)
                    close (stack[depth--]);
            continue;
        }
        if (fd < 0) {
            errprintf (errp, "%s: %s: %s", path, comp,
                       errno == ENOTDIR || errno == ELOOP ? "not a directory" : strerror (errno));
            goto out;
        }
        if (depth + 1 == DEPTH) {
            close (fd);
            errno = ENAMETOOLONG;
            errprintf (errp, "%s: more than %d directories deep", path, DEPTH - 1);
            goto out;
        }
        stack[++depth] = fd;
        if (file_walk_check (fd, path, comp, uid, 0, errp) < 0)
            goto out;
    }
    if (file_walk_check (stack[depth], path, comp, uid, 1, errp) < 0)
        goto out;
    rc = stack[depth--];
out:
    while (depth >= 0 && stack[depth] >= 0)
        file_close_quietly (stack[depth--]);
    free (rest);
    return rc;
}

/* file_trusted's walk from p (modified) up to /: p itself may not be
 * writable by others at all unless sticky_ok (a sticky root directory),
 * those above it only as a sticky root directory.  With links, each
 * component is taken as it is (lstat): a link needs only a trusted owner
 * (its target is walked apart), the directory holding it is checked next.
 */
static int file_trusted_walk (char *p, uid_t uid, int sticky_ok, int links, tm_error_t *errp)
{
    char *end;

    for (int top = !sticky_ok;; top = 0) {
        struct stat st;
        const char *at = p[0] ? p : "/";

        if ((links ? lstat (at, &st) : stat (at, &st)) < 0)
            return errprintf (errp, "%s: %s", at, strerror (errno));
        if (st.st_uid != 0 && st.st_uid != uid) {
            errno = EPERM;
            return errprintf (errp, "%s: owned by uid %lu, neither root nor %lu", at,
                              (unsigned long)st.st_uid, (unsigned long)uid);
        }
        if (!S_ISLNK (st.st_mode) && (st.st_mode & (S_IWGRP | S_IWOTH)) &&
            (top || !S_ISDIR (st.st_mode) || st.st_uid != 0 || !(st.st_mode & S_ISVTX))) {
            errno = EPERM;
            return errprintf (errp, "%s: mode %04o: writable by %s", at,
                              (unsigned)(st.st_mode & 07777),
                              st.st_mode & S_IWOTH ? "others" : "its group");
        }
        if (!p[0] || !(end = strrchr (p, '/')))
            return 0;
        *end = '\0';
    }
}

int file_trusted (const char *path, uid_t uid, int flags, tm_error_t *errp)
{
    char *copy, *real = NULL;
    size_t len;
    int rc = -1;

    if (!(copy = strdup (path)))
        return errprintf (errp, "%s: out of memory", path);
    /* The path as written, then as resolved: a link on the way must not
     * be one that others can swap after the check. */
    for (len = strlen (copy); len > 1 && copy[len - 1] == '/'; len--)
        copy[len - 1] = '\0';
    if (copy[0] == '/' && file_trusted_walk (copy, uid, flags & FILE_STICKY_OK, 1, errp) < 0)
        goto out;
    if (!(real = realpath (path, NULL))) {
        errprintf (errp, "%s: %s", path, strerror (errno));
        goto out;
    }
    rc = file_trusted_walk (real, uid, flags & FILE_STICKY_OK, 0, errp);
out:
    free (real);
    free (copy);
    return rc;
}
