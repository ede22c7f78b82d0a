/* SPDX-License-Identifier: GPL-2.0-or-later */
/* support.h: what the unit tests share beyond tap.h.  Include after
 * tap.h; one test program each.
 *
 *   scratch_dir ("netmap-test")   makes $TMPDIR/netmap-test.XXXXXX in dir
 *   in_dir (buf, "x.json")        dir/x.json, in buf (PATH_MAX bytes)
 *   write_file, read_file         whole files; list_dir, remove_tree
 *   edit_json                     a JSON file with one value set or deleted
 *   run                           a command's exit status, output discarded
 */
#ifndef TOPOMAP_TEST_SUPPORT_H
#define TOPOMAP_TEST_SUPPORT_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json.h>

static char dir[256];

/* Make a fresh directory NAME.XXXXXX under $TMPDIR (else /tmp) into dir;
 * 0, or -1 after a failed check saying why.
 */
static inline int scratch_dir (const char *name)
{
    const char *tmpdir = getenv ("TMPDIR");
    int len =
        snprintf (dir, sizeof (dir), "%s/%s.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp", name);

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

/* Write to path the JSON document in good with one edit: SET puts the
 * JSON text value at pointer ptr; DEL deletes key value from the object at
 * ptr.  0, or -1.
 */
enum { SET, DEL };

static inline int edit_json (const char *good, const char *path, int op, const char *ptr,
                             const char *value)
{
    json_object *o = json_object_from_file (good), *v = NULL;
    int rc = -1;

    if (o && op == SET) {
        if ((v = json_tokener_parse (value)) || strcmp (value, "null") == 0)
            rc = json_pointer_set (&o, ptr, v);
        if (rc < 0)
            json_object_put (v);
    } else if (o && json_pointer_get (o, ptr, &v) == 0) {
        json_object_object_del (v, value);
        rc = 0;
    }
    if (rc == 0)
        rc = json_object_to_file_ext (path, o, JSON_C_TO_STRING_PRETTY);
    json_object_put (o);
    return rc;
}

/* Run argv (argv[0] looked up in PATH), output discarded; 0 if it exits 0. */
static inline int run (const char *const *argv)
{
    pid_t pid;
    int status;

    fflush (stdout);
    if ((pid = fork ()) < 0)
        return -1;
    if (pid == 0) {
        int fd = open ("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2 (fd, STDOUT_FILENO);
            dup2 (fd, STDERR_FILENO);
        }
        execvp (argv[0], (char *const *)argv);
        _exit (127);
    }
    if (waitpid (pid, &status, 0) < 0)
        return -1;
    return WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : -1;
}

#endif
