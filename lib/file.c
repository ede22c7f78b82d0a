/* file.c: whole-file reads and atomic replacement.  See file.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Write into what path names as it is, for a path that is a character
 * device or FIFO, or a link to one or to a regular file: /dev/null or
 * /dev/stdout are streams, not files to replace (renaming over /dev/null
 * would put a plain file in its place), and a link stays a link.  What the
 * open gave is checked again, and anything else refused.
 */
static int file_write_through (const char *path, const char *data, size_t len, tm_error_t *errp)
{
    int fd = open (path, O_WRONLY | O_NOCTTY | O_CLOEXEC), saved;
    struct stat st;

    if (fd < 0)
        return errprintf (errp, "%s: cannot open: %s", path, strerror (errno));
    if (fstat (fd, &st) < 0)
        goto fail;
    if (!S_ISREG (st.st_mode) && !S_ISCHR (st.st_mode) && !S_ISFIFO (st.st_mode)) {
        close (fd);
        errno = EINVAL;
        return errprintf (errp, "%s: not a regular file, character device or FIFO", path);
    }
    if ((S_ISREG (st.st_mode) && ftruncate (fd, 0) < 0) || file_write_all (fd, data, len) < 0 ||
        (S_ISREG (st.st_mode) && fsync (fd) < 0))
        goto fail;
    if (close (fd) < 0)
        return errprintf (errp, "%s: cannot write: %s", path, strerror (errno));
    return 0;
fail:
    saved = errno;
    close (fd);
    errno = saved;
    return errprintf (errp, "%s: cannot write: %s", path, strerror (errno));
}

int file_replace (const char *path, const char *data, size_t len, int mode, tm_error_t *errp)
{
    char *tmp = NULL;
    size_t tmplen;
    int fd = -1, rc = -1;
    int made = 0;
    struct stat st;

    if (!path || path[0] == '\0') {
        errno = EINVAL;
        return errprintf (errp, "file_replace: no path");
    }
    /* Nothing there, a regular file or a dangling link: replaced.  A
     * directory, or a link to one: refused.  Anything else: written through. */
    if (lstat (path, &st) == 0 && !S_ISREG (st.st_mode)) {
        struct stat to;
        int linked = S_ISLNK (st.st_mode), reached = !linked || stat (path, &to) == 0;

        if (reached && S_ISDIR (linked ? to.st_mode : st.st_mode)) {
            errno = EISDIR;
            return errprintf (errp, "%s: is a directory", path);
        }
        if (reached)
            return file_write_through (path, data, len, errp);
    }
    tmplen = strlen (path) + sizeof (".XXXXXX");
    if (!(tmp = malloc (tmplen))) {
        errprintf (errp, "%s: out of memory", path);
        goto out;
    }
    snprintf (tmp, tmplen, "%s.XXXXXX", path);
    if ((fd = mkostemp (tmp, O_CLOEXEC)) < 0) {
        errprintf (errp, "%s: cannot create a temporary file: %s", path, strerror (errno));
        goto out;
    }
    made = 1;
    if (fchmod (fd, (mode_t)mode) < 0 || file_write_all (fd, data, len) < 0 || fsync (fd) < 0) {
        errprintf (errp, "%s: cannot write %s: %s", path, tmp, strerror (errno));
        goto out;
    }
    if (close (fd) < 0) {
        fd = -1;
        errprintf (errp, "%s: cannot write %s: %s", path, tmp, strerror (errno));
        goto out;
    }
    fd = -1;
    if (rename (tmp, path) < 0) {
        errprintf (errp, "%s: cannot rename %s into place: %s", path, tmp, strerror (errno));
        goto out;
    }
    rc = 0;
out:
    if (rc < 0) {
        int saved = errno;
        if (fd >= 0)
            close (fd);
        if (made)
            unlink (tmp);
        errno = saved;
    }
    free (tmp);
    return rc;
}

int file_replace_json (const char *path, struct json_object *o, int mode, tm_error_t *errp)
{
    const int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE;
    const char *text;
    char *buf;
    size_t len;
    int rc;

    if (!(text = json_object_to_json_string_ext (o, flags))) {
        errno = ENOMEM;
        return errprintf (errp, "%s: out of memory", path);
    }
    len = strlen (text);
    if (!(buf = malloc (len + 2))) {
        errno = ENOMEM;
        return errprintf (errp, "%s: out of memory", path);
    }
    memcpy (buf, text, len);
    buf[len++] = '\n';
    buf[len] = '\0';
    rc = file_replace (path, buf, len, mode, errp);
    free (buf);
    return rc;
}

int file_slurp (const char *path, size_t max, char **bufp, size_t *lenp, tm_error_t *errp)
{
    struct stat st;
    char *buf = NULL;
    size_t size, len = 0;
    int fd, rc = -1;

    /* O_NONBLOCK: opening a FIFO must not hang before fstat rejects it. */
    if ((fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
        return errprintf (errp, "%s: %s", path, strerror (errno));
    if (fstat (fd, &st) < 0) {
        errprintf (errp, "%s: %s", path, strerror (errno));
        goto out;
    }
    if (!S_ISREG (st.st_mode)) {
        errprintf (errp, "%s: not a regular file", path);
        errno = EINVAL;
        goto out;
    }
    if ((uintmax_t)st.st_size > max) {
        errprintf (errp, "%s: %jd bytes, larger than the limit of %zu MiB", path,
                   (intmax_t)st.st_size, max / (1024 * 1024));
        errno = EFBIG;
        goto out;
    }
    size = (size_t)st.st_size;
    if (!(buf = malloc (size + 1))) {
        errprintf (errp, "%s: out of memory", path);
        goto out;
    }
    while (len < size + 1) {
        ssize_t r = read (fd, buf + len, size + 1 - len);

        if (r < 0) {
            if (errno == EINTR)
                continue;
            errprintf (errp, "%s: %s", path, strerror (errno));
            goto out;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    if (len > size) {
        errprintf (errp, "%s: grew while being read", path);
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
    if (fd >= 0) {
        int saved = errno;
        close (fd);
        errno = saved;
    }
    return rc;
}

/* Make path a directory, mode bits mode if it is created here. */
static int file_mkdir1 (const char *path, int mode, tm_error_t *errp)
{
    struct stat st;

    if (stat (path, &st) == 0) {
        if (S_ISDIR (st.st_mode))
            return 0;
        errno = ENOTDIR;
        return errprintf (errp, "%s: not a directory", path);
    }
    if (errno != ENOENT)
        return errprintf (errp, "%s: %s", path, strerror (errno));
    if (mkdir (path, (mode_t)mode) == 0) {
        /* The umask may have taken bits away; the mode is ours to set. */
        if (chmod (path, (mode_t)mode) < 0)
            return errprintf (errp, "%s: %s", path, strerror (errno));
        return 0;
    }
    if (errno == EEXIST && stat (path, &st) == 0 && S_ISDIR (st.st_mode))
        return 0; /* made by a concurrent caller */
    return errprintf (errp, "%s: cannot create: %s", path, strerror (errno));
}

int file_mkdirs (const char *dir, int mode, tm_error_t *errp)
{
    char buf[4096];
    size_t len = strlen (dir);

    if (len == 0 || len >= sizeof (buf)) {
        errno = ENAMETOOLONG;
        return errprintf (errp, "directory name empty or too long");
    }
    memcpy (buf, dir, len + 1);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;

            *p = '\0';
            if (p[-1] != '/' && file_mkdir1 (buf, mode, errp) < 0)
                return -1;
            *p = c;
            if (c == '\0')
                return 0;
        }
    }
}
