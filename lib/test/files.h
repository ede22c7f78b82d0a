/* files.h: a scratch directory and file helpers for the unit tests that
 * read and write files.  Include after tap.h; one test program each.
 *
 *   scratch_dir ("netmap-test")   makes $TMPDIR/netmap-test.XXXXXX in dir
 *   in_dir (buf, "x.json")        dir/x.json, in buf (PATH_MAX bytes)
 *   write_file, read_file         whole files; list_dir, remove_tree
 */
#ifndef TOPOMAP_TEST_FILES_H
#define TOPOMAP_TEST_FILES_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

/* Make a fresh directory NAME.XXXXXX under $TMPDIR (else /tmp) into dir;
 * 0, or -1 after a failed check saying why.
 */
static inline int scratch_dir (const char *name)
{
    const char *tmpdir = getenv ("TMPDIR");
    int len = snprintf (dir, sizeof (dir), "%s/%s.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp",
                        name);

    if (len >= (int)sizeof (dir) || !mkdtemp (dir)) {
        ok (0, "a temporary directory is made in %s: %s", dir, strerror (errno));
        return -1;
    }
    return 0;
}

static inline const char *in_dir (char *buf, const char *name)
{
    snprintf (buf, PATH_MAX, "%s/%s", dir, name);
    return buf;
}

/* Names in directory d but "." and "..", space separated, in buf. */
static inline int list_dir (const char *d, char *buf, size_t size)
{
    DIR *dp = opendir (d);
    struct dirent *de;
    int count = 0;

    buf[0] = '\0';
    if (!dp)
        return -1;
    while ((de = readdir (dp))) {
        if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
            continue;
        count++;
        if (strlen (buf) + strlen (de->d_name) + 2 < size) {
            strcat (buf, de->d_name);
            strcat (buf, " ");
        }
    }
    closedir (dp);
    return count;
}

/* Remove d and everything under it, directories a test made unreadable
 * included.
 */
static inline void remove_tree (const char *d)
{
    DIR *dp = opendir (d);
    struct dirent *de;
    char p[PATH_MAX];
    struct stat st;

    if (!dp)
        return;
    while ((de = readdir (dp))) {
        if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
            continue;
        if (snprintf (p, sizeof (p), "%s/%s", d, de->d_name) >= (int)sizeof (p))
            continue;
        if (lstat (p, &st) == 0 && S_ISDIR (st.st_mode)) {
            chmod (p, 0755);
            remove_tree (p);
        } else
            unlink (p);
    }
    closedir (dp);
    rmdir (d);
}

/* Write len bytes of data to path with mode bits mode; 0 or -1. */
static inline int write_file (const char *path, const void *data, size_t len, mode_t mode)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    const char *p = data;

    if (fd < 0)
        return -1;
    while (len > 0) {
        ssize_t w = write (fd, p, len);
        if (w <= 0) {
            close (fd);
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    if (fchmod (fd, mode) < 0) {
        close (fd);
        return -1;
    }
    return close (fd);
}

/* The whole file, NUL-terminated, its length in *lenp; NULL on failure. */
static inline char *read_file (const char *path, size_t *lenp)
{
    FILE *f = fopen (path, "r");
    char *buf;
    long len;

    if (!f)
        return NULL;
    fseek (f, 0, SEEK_END);
    len = ftell (f);
    rewind (f);
    buf = len < 0 ? NULL : malloc ((size_t)len + 1);
    if (buf && fread (buf, 1, (size_t)len, f) != (size_t)len) {
        free (buf);
        buf = NULL;
    }
    fclose (f);
    if (buf) {
        buf[len] = '\0';
        *lenp = (size_t)len;
    }
    return buf;
}

#endif
