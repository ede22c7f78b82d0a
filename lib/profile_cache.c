/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile_cache.c: the per-user and site profile cache.  See
 * profile_cache.h.
 *
 * Layout: one flat directory of "<key>.n<ntasks>.json" files, nothing
 * else.  Temporary files of profile_write ("<name>.XXXXXX") do not end in
 * ".json" and are never taken for profiles.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file.h"
#include "lib/history.h"
#include "lib/profile_cache.h"

#define PC_SUFFIX     ".json"
#define PC_MAX_COUNTS 8                          /* other task counts named in a mismatch warning */
#define PC_ID_SIZE    (PROFILE_CACHE_ID_MAX + 1) /* an exe id and its NUL */

/* Add a warning to errp, after those already there. */
static void __attribute__ ((format (printf, 2, 3))) pc_warn (tm_error_t *errp, const char *fmt, ...)
{
    char msg[sizeof (errp->text)];
    size_t used;
    va_list ap;

    if (!errp)
        return;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    used = strlen (errp->text);
    if (used == 0)
        memcpy (errp->text, msg, strlen (msg) + 1);
    else if (used + 2 < sizeof (errp->text))
        snprintf (errp->text + used, sizeof (errp->text) - used, "; %.*s",
                  (int)(sizeof (errp->text) - used - 3), msg);
}

/* Absolute, no control character, no ".." component, not too long. */
static bool pc_sane_dir (const char *s)
{
    size_t len;

    if (!s || s[0] != '/' || (len = strlen (s)) >= PATH_MAX - 64)
        return false;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    for (const char *p = s; (p = strstr (p, "..")); p += 2)
        if (p[-1] == '/' && (p[2] == '/' || p[2] == '\0'))
            return false;
    return true;
}

/* dir/name into out (len bytes), dir's trailing slashes dropped. */
static int pc_join (char *out, size_t len, const char *dir, const char *name, tm_error_t *errp)
{
    size_t dlen = strlen (dir);
    int n;

    while (dlen > 1 && dir[dlen - 1] == '/')
        dlen--;
    if (dlen > INT_MAX)
        dlen = INT_MAX;
    if (dlen == 1 && dir[0] == '/')
        dlen = 0;
    n = snprintf (out, len, "%.*s/%s", (int)dlen, dir, name);
    if (n < 0 || (size_t)n >= len) {
        if (len > 0)
            out[0] = '\0';
        errno = ERANGE;
        return errprintf (errp, "%s: path of %s too long", errsafe (dir, PATH_MAX),
                          errsafe (name, PATH_MAX));
    }
    return 0;
}

int profile_cache_user_dir (const char *xdg_cache_home, const char *home, char *out, size_t len,
                            tm_error_t *errp)
{
    char *buf = NULL;
    int rc = -1;

    if (!out || len == 0) {
        errno = EINVAL;
        return errprintf (errp, "profile_cache_user_dir: no buffer");
    }
    out[0] = '\0';
    if (pc_sane_dir (xdg_cache_home))
        return pc_join (out, len, xdg_cache_home, "topomap/profiles", errp);
    if (!pc_sane_dir (home)) {
        struct passwd pw, *res = NULL;
        long size = sysconf (_SC_GETPW_R_SIZE_MAX);
        int err;

        if (size < 1024)
            size = 16384;
        if (!(buf = malloc ((size_t)size))) {
            errno = ENOMEM;
            return errprintf (errp, "profile cache: out of memory");
        }
        err = getpwuid_r (getuid (), &pw, buf, (size_t)size, &res);
        if (!res || !pc_sane_dir (pw.pw_dir)) {
            errno = err ? err : ENOENT;
            errprintf (errp,
                       "profile cache: no home directory for uid %ld (HOME unset or not "
                       "absolute, and none in the password database)",
                       (long)getuid ());
            goto out;
        }
        home = pw.pw_dir;
    }
    rc = pc_join (out, len, home, ".cache/topomap/profiles", errp);
out:
    free (buf);
    return rc;
}

int profile_cache_check_id (const char *exe_id, tm_error_t *errp)
{
    const char *colon;
    size_t len;

    if (!exe_id || exe_id[0] == '\0')
        goto empty;
    if ((len = strlen (exe_id)) > PROFILE_CACHE_ID_MAX) {
        errno = EINVAL;
        return errprintf (errp, "exe id: %zu bytes, longer than %d", len, PROFILE_CACHE_ID_MAX);
    }
    for (size_t i = 0; i < len; i++) {
        char c = exe_id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == ':')) {
            errno = EINVAL;
            return errprintf (errp, "exe id: character %#x at %zu not in [a-z0-9-:]",
                              (unsigned)(unsigned char)c, i);
        }
    }
    /* Only now is exe_id safe to quote. */
    errno = EINVAL;
    if (!(colon = strchr (exe_id, ':')) || colon == exe_id)
        return errprintf (errp, "exe id '%s': not <scheme>:<value>", exe_id);
    if (exe_id[0] == '-')
        return errprintf (errp, "exe id '%s': starts with '-'", exe_id);
    if (colon[1] == '\0' || strpbrk (colon + 1, ":-"))
        return errprintf (errp, "exe id '%s': value not [a-z0-9]+", exe_id);
    return 0;
empty:
    errno = EINVAL;
    return errprintf (errp, "exe id: empty");
}

int profile_cache_key (const char *exe_id, int ntasks, char *name, size_t len, tm_error_t *errp)
{
    int n;

    if (!name || len == 0) {
        errno = EINVAL;
        return errprintf (errp, "profile_cache_key: no buffer");
    }
    name[0] = '\0';
    if (profile_cache_check_id (exe_id, errp) < 0)
        return -1;
    if (ntasks < 1) {
        errno = EINVAL;
        return errprintf (errp, "ntasks: %d, need at least 1", ntasks);
    }
    n = snprintf (name, len, "%s.n%d" PC_SUFFIX, exe_id, ntasks);
    if (n < 0 || (size_t)n >= len) {
        name[0] = '\0';
        errno = ERANGE;
        return errprintf (errp, "profile_cache_key: %d bytes, buffer of %zu", n, len);
    }
    /* Only ':' is not allowed in a file name here; the value has no '-'. */
    *strchr (name, ':') = '-';
    return 0;
}

int profile_cache_path (const char *dir, const char *exe_id, int ntasks, char *path, size_t len,
                        tm_error_t *errp)
{
    char name[PROFILE_CACHE_ID_MAX + 32];

    if (!path || len == 0) {
        errno = EINVAL;
        return errprintf (errp, "profile_cache_path: no buffer");
    }
    path[0] = '\0';
    if (!dir || dir[0] == '\0') {
        errno = EINVAL;
        return errprintf (errp, "profile cache: no directory");
    }
    if (profile_cache_key (exe_id, ntasks, name, sizeof (name), errp) < 0)
        return -1;
    return pc_join (path, len, dir, name, errp);
}

/* The exe id (PC_ID_SIZE bytes) and task count of the cache file name
 * name, false when name is not one profile_cache_key gives.
 */
static bool pc_parse_name (const char *name, char *id, int *ntasks)
{
    char check[PROFILE_CACHE_ID_MAX + 32];
    size_t len = strlen (name), slen = strlen (PC_SUFFIX), idlen;
    const char *dot, *dash;
    char *end;
    long n;

    if (len <= slen || len >= sizeof (check) || strcmp (name + len - slen, PC_SUFFIX) != 0)
        return false;
    if (!(dot = memchr (name, '.', len - slen)) || dot[1] != 'n' || dot[2] < '1' || dot[2] > '9')
        return false;
    errno = 0;
    n = strtol (dot + 2, &end, 10);
    if (errno != 0 || n < 1 || n > INT_MAX || strcmp (end, PC_SUFFIX) != 0)
        return false;
    idlen = (size_t)(dot - name);
    if (idlen > PROFILE_CACHE_ID_MAX)
        return false;
    memcpy (id, name, idlen);
    id[idlen] = '\0';
    if (!(dash = strrchr (id, '-')))
        return false;
    id[dash - id] = ':';
    if (profile_cache_key (id, (int)n, check, sizeof (check), NULL) < 0 ||
        strcmp (check, name) != 0)
        return false;
    *ntasks = (int)n;
    return true;
}

/* profile_cache_store with the modes of the directories it makes and of
 * the file.  dir is walked from / as srun --topo-map walks the user's
 * cache (file_open_trusted_dir, for the effective user): a directory it
 * would not trust is refused, and those made are made through
 * descriptors.
 */
static int pc_store (const char *dir, const profile_t *p, int dirmode, int mode, char *path,
                     size_t len, tm_error_t *errp)
{
    char file[PATH_MAX], name[PATH_MAX], abs[PATH_MAX], cwd[PATH_MAX];
    tm_error_t e;
    int dfd, rc;

    if (path && len > 0)
        path[0] = '\0';
    if (!p) {
        errno = EINVAL;
        return errprintf (errp, "profile_cache_store: no profile");
    }
    if (profile_cache_key (p->exe_id, p->ntasks, name, sizeof (name), &e) < 0 ||
        profile_cache_path (dir, p->exe_id, p->ntasks, file, sizeof (file), &e) < 0)
        return errprintf (errp, "profile cache %s: %s", dir ? errsafe (dir, PATH_MAX) : "(none)",
                          e.text);
    if (dir[0] != '/' && !getcwd (cwd, sizeof (cwd)))
        return errprintf (errp, "%s: %s", errsafe (dir, PATH_MAX), strerror (errno));
    if (snprintf (abs, sizeof (abs), "%s%s%s", dir[0] == '/' ? "" : cwd, dir[0] == '/' ? "" : "/",
                  dir) >= (int)sizeof (abs)) {
        errno = ENAMETOOLONG;
        return errprintf (errp, "%s: path too long", errsafe (dir, PATH_MAX));
    }
    if ((dfd = file_open_trusted_dir (abs, geteuid (), dirmode, errp)) < 0)
        return -1;
    rc = profile_writeat (p, dfd, name, file, mode, errp);
    close (dfd);
    if (rc < 0)
        return -1;
    if (path && len > 0) {
        if (strlen (file) >= len) {
            errno = ERANGE;
            return errprintf (errp, "%s: stored, but the path is longer than %zu bytes", file,
                              len - 1);
        }
        memcpy (path, file, strlen (file) + 1);
    }
    return 0;
}

int profile_cache_store (const char *dir, const profile_t *p, char *path, size_t len,
                         tm_error_t *errp)
{
    return pc_store (dir, p, 0700, 0600, path, len, errp);
}

int profile_cache_publish (const char *dir, const profile_t *p, char *path, size_t len,
                           tm_error_t *errp)
{
    return pc_store (dir, p, 0755, 0644, path, len, errp);
}

int profile_cache_storeat (int dirfd, const char *dir, const profile_t *p, char *path, size_t len,
                           tm_error_t *errp)
{
    char name[PATH_MAX], file[PATH_MAX];
    tm_error_t e;

    if (path && len > 0)
        path[0] = '\0';
    if (!p) {
        errno = EINVAL;
        return errprintf (errp, "profile_cache_storeat: no profile");
    }
    if (profile_cache_key (p->exe_id, p->ntasks, name, sizeof (name), &e) < 0 ||
        profile_cache_path (dir, p->exe_id, p->ntasks, file, sizeof (file), &e) < 0)
        return errprintf (errp, "profile cache %s: %s", errsafe (dir, PATH_MAX), e.text);
    if (profile_writeat (p, dirfd, name, file, 0600, errp) < 0)
        return -1;
    if (path && len > 0)
        snprintf (path, len, "%s", file);
    return 0;
}

/* Whether p is what the key (exe_id, ntasks) names. */
static bool pc_matches (const profile_t *p, const char *exe_id, int ntasks)
{
    return p->ntasks == ntasks && p->exe_id && strcmp (p->exe_id, exe_id) == 0;
}

/* The profile in the file path (lstat st) keyed (exe_id, ntasks), NULL
 * with the reason in why when it is not one.
 */
static profile_t *pc_check (const char *path, const struct stat *st, const char *exe_id, int ntasks,
                            tm_error_t *why)
{
    profile_t *p;

    if (S_ISLNK (st->st_mode)) {
        errprintf (why, "a symbolic link");
        return NULL;
    }
    if (!S_ISREG (st->st_mode)) {
        errprintf (why, "not a regular file");
        return NULL;
    }
    if (!(p = profile_read (path, why))) {
        size_t len = strlen (path);

        /* Said without the path, which the caller has. */
        if (strncmp (why->text, path, len) == 0 && strncmp (why->text + len, ": ", 2) == 0)
            memmove (why->text, why->text + len + 2, strlen (why->text + len + 2) + 1);
        return NULL;
    }
    if (!pc_matches (p, exe_id, ntasks)) {
        errprintf (why, "records %s for %d tasks, not what its name says",
                   p->exe_id && p->exe_id[0] ? errsafe (p->exe_id, PATH_MAX) : "no executable",
                   p->ntasks);
        profile_destroy (p);
        return NULL;
    }
    return p;
}

int profile_cache_openat (int dirfd, const char *name, const char *path, int site, uid_t uid,
                          tm_error_t *why)
{
    if (site)
        return file_openat_trusted (dirfd, name, path, uid, why);
    return file_openat_own (dirfd, name, path, O_RDONLY, 0, uid, why);
}

/* Read the profile file name in dirfd (path names it) for the key
 * (exe_id, ntasks): 1 with *pp, 0 when absent, 0 with a warning when it
 * is not a usable profile or not safe to read.
 */
static int pc_try (int dirfd, const char *name, const char *path, int site, uid_t uid,
                   const char *exe_id, int ntasks, profile_t **pp, tm_error_t *warn)
{
    tm_error_t why;
    int fd;

    if ((fd = profile_cache_openat (dirfd, name, path, site, uid, &why)) < 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            pc_warn (warn, "%s (ignored)", why.text);
        return 0;
    }
    *pp = profile_read_fd (fd, path, &why);
    close (fd);
    if (*pp && !pc_matches (*pp, exe_id, ntasks)) {
        errprintf (&why, "%s: records %s for %d tasks, not what its name says", path,
                   (*pp)->exe_id && (*pp)->exe_id[0] ? errsafe ((*pp)->exe_id, PATH_MAX)
                                                     : "no executable",
                   (*pp)->ntasks);
        profile_destroy (*pp);
        *pp = NULL;
    }
    if (!*pp) {
        pc_warn (warn, "%s (ignored)", why.text);
        return 0;
    }
    return 1;
}

/* Add to counts (sorted, unique, at most PC_MAX_COUNTS) the task counts
 * other than ntasks for which the directory cachefd holds a regular file keyed by exe_id.
 */
static void pc_other_counts (int cachefd, const char *exe_id, int ntasks, int *counts, int *n,
                             bool *more)
{
    char id[PC_ID_SIZE];
    struct dirent *de;
    DIR *dp;

    if (cachefd < 0 || !(dp = file_dir_stream (cachefd)))
        return;
    while ((de = readdir (dp))) {
        struct stat st;
        int nt, i;

        if (!pc_parse_name (de->d_name, id, &nt) || nt == ntasks || strcmp (id, exe_id) != 0)
            continue;
        if (fstatat (dirfd (dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG (st.st_mode))
            continue;
        for (i = 0; i < *n && counts[i] < nt; i++)
            ;
        if (i < *n && counts[i] == nt)
            continue;
        if (*n == PC_MAX_COUNTS) {
            *more = true;
            continue;
        }
        memmove (counts + i + 1, counts + i, (size_t)(*n - i) * sizeof (int));
        counts[i] = nt;
        (*n)++;
    }
    closedir (dp);
}

static void pc_warn_counts (tm_error_t *warn, const char *exe_id, int ntasks, const int *counts,
                            int n, bool more)
{
    char list[PC_MAX_COUNTS * 16 + 16] = "";
    size_t used = 0;

    for (int i = 0; i < n; i++) {
        const char *sep = i == 0 ? "" : (i == n - 1 && !more) ? " and " : ", ";
        used += (size_t)snprintf (list + used, sizeof (list) - used, "%s%d", sep, counts[i]);
    }
    if (more)
        snprintf (list + used, sizeof (list) - used, " and more");
    pc_warn (warn, "profile for %s recorded for %s tasks, this step has %d (not applied)", exe_id,
             list, ntasks);
}

int profile_cache_lookup (int user_fd, const char *user_dir, const char *site_dir, uid_t uid,
                          const char *exe_id, int ntasks, profile_t **pp, char *path, size_t len,
                          tm_error_t *errp)
{
    const char *dirs[] = {user_dir, site_dir};
    int fds[] = {user_fd, -1}, rc = 0;
    char name[PATH_MAX], file[PATH_MAX];
    int counts[PC_MAX_COUNTS], n = 0;
    bool more = false;
    tm_error_t e;

    errclear (errp);
    if (path && len > 0)
        path[0] = '\0';
    if (!pp) {
        errno = EINVAL;
        return errprintf (errp, "profile_cache_lookup: no result pointer");
    }
    *pp = NULL;
    if (profile_cache_key (exe_id, ntasks, name, sizeof (name), &e) < 0)
        return errprintf (errp, "profile cache lookup: %s", e.text);
    if (site_dir && site_dir[0])
        fds[1] = open (site_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int i = 0; i < 2 && rc == 0; i++) {
        if (fds[i] < 0)
            continue;
        if (profile_cache_path (dirs[i] ? dirs[i] : "", exe_id, ntasks, file, sizeof (file), &e) <
            0) {
            pc_warn (errp, "%s (ignored)", e.text);
            continue;
        }
        if ((rc = pc_try (fds[i], name, file, i, uid, exe_id, ntasks, pp, errp)) == 1 && path &&
            len > 0) {
            if (strlen (file) >= len) {
                profile_destroy (*pp);
                *pp = NULL;
                errno = ERANGE;
                rc = errprintf (errp, "%s: path longer than %zu bytes", file, len - 1);
            } else
                memcpy (path, file, strlen (file) + 1);
        }
    }
    if (rc == 0) {
        for (int i = 0; i < 2; i++)
            pc_other_counts (fds[i], exe_id, ntasks, counts, &n, &more);
        if (n > 0)
            pc_warn_counts (errp, exe_id, ntasks, counts, n, more);
    }
    if (fds[1] >= 0)
        close (fds[1]);
    return rc;
}

static int pc_cmp_names (const void *a, const void *b)
{
    return strcmp (*(char *const *)a, *(char *const *)b);
}

/* The names in dp that list shows, sorted, in *namesp (free each and it). */
static int pc_names (DIR *dp, char ***namesp, size_t *np)
{
    char **names = NULL;
    size_t n = 0, size = 0, slen = strlen (PC_SUFFIX);
    struct dirent *de;

    while ((de = readdir (dp))) {
        size_t len = strlen (de->d_name);

        if (de->d_name[0] == '.' || len <= slen || strcmp (de->d_name + len - slen, PC_SUFFIX) != 0)
            continue;
        if (n == size) {
            size_t nsize = size ? 2 * size : 16;
            char **grown = realloc (names, nsize * sizeof (*names));
            if (!grown)
                goto nomem;
            names = grown;
            size = nsize;
        }
        if (!(names[n] = strdup (de->d_name)))
            goto nomem;
        n++;
    }
    if (n > 0)
        qsort (names, n, sizeof (*names), pc_cmp_names);
    *namesp = names;
    *np = n;
    return 0;
nomem:
    for (size_t i = 0; i < n; i++)
        free (names[i]);
    free (names);
    errno = ENOMEM;
    return -1;
}

int profile_cache_list (const char *dir, profile_cache_list_f cb, void *arg, tm_error_t *errp)
{
    char **names = NULL;
    size_t n = 0;
    DIR *dp;
    int rc = 0;

    if (!dir || dir[0] == '\0' || !cb) {
        errno = EINVAL;
        return errprintf (errp, "profile_cache_list: no directory or no callback");
    }
    if (!(dp = opendir (dir))) {
        if (errno == ENOENT)
            return 0;
        return errprintf (errp, "%s: %s", errsafe (dir, PATH_MAX), strerror (errno));
    }
    if (pc_names (dp, &names, &n) < 0) {
        closedir (dp);
        return errprintf (errp, "%s: out of memory", errsafe (dir, PATH_MAX));
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        char path[PATH_MAX], id[PC_ID_SIZE] = "";
        profile_cache_entry_t entry = {.name = names[i], .path = path, .exe_id = id};
        profile_t *p = NULL;
        struct stat st;
        tm_error_t why = {""};
        int nt = 0;

        if (pc_join (path, sizeof (path), dir, names[i], NULL) < 0 ||
            fstatat (dirfd (dp), names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue; /* gone since readdir */
        entry.size = st.st_size;
        if (!pc_parse_name (names[i], id, &nt)) {
            id[0] = '\0';
            nt = 0;
            errprintf (&why, "name is not <exe id>.n<ntasks>%s", PC_SUFFIX);
        } else
            p = pc_check (path, &st, id, nt, &why);
        entry.ntasks = nt;
        entry.profile = p;
        entry.exe_path = p && p->exe_path ? p->exe_path : "";
        entry.reason = p ? NULL : why.text;
        rc = cb (&entry, arg);
        profile_destroy (p);
    }
    for (size_t i = 0; i < n; i++)
        free (names[i]);
    free (names);
    closedir (dp);
    return rc;
}

/* Remove name from the directory dp of dir: 1 removed, 0 absent. */
/* Remove the profile name in dp, and its runs (history.h) with it. */
static int pc_unlink (DIR *dp, const char *dir, const char *name, tm_error_t *errp)
{
    char runs[NAME_MAX + 1];
    size_t n = strlen (name) - strlen (PC_SUFFIX);

    if (n + strlen (HISTORY_SUFFIX) < sizeof (runs)) {
        snprintf (runs, sizeof (runs), "%.*s%s", (int)n, name, HISTORY_SUFFIX);
        unlinkat (dirfd (dp), runs, 0);
    }
    if (unlinkat (dirfd (dp), name, 0) == 0)
        return 1;
    if (errno == ENOENT)
        return 0;
    return errprintf (errp, "%s/%s: cannot remove: %s", errsafe (dir, PATH_MAX), name,
                      strerror (errno));
}

int profile_cache_rm (const char *dir, const char *what, int ntasks, tm_error_t *errp)
{
    char name[PROFILE_CACHE_ID_MAX + 32], id[PC_ID_SIZE];
    size_t len, slen = strlen (PC_SUFFIX);
    struct dirent *de;
    bool every = false;
    int nt, count = 0;
    tm_error_t e;
    DIR *dp;

    if (!dir || dir[0] == '\0' || !what) {
        errno = EINVAL;
        return errprintf (errp, "profile_cache_rm: no directory or nothing to remove");
    }
    if (ntasks < 0) {
        errno = EINVAL;
        return errprintf (errp, "ntasks: %d, negative", ntasks);
    }
    len = strlen (what);
    if (len > slen && strcmp (what + len - slen, PC_SUFFIX) == 0) {
        if (!pc_parse_name (what, id, &nt)) {
            errno = EINVAL;
            return errprintf (errp, "'%s': not a profile file name <exe id>.n<ntasks>%s",
                              errsafe (what, PATH_MAX), PC_SUFFIX);
        }
        if (ntasks != 0 && ntasks != nt) {
            errno = EINVAL;
            return errprintf (errp, "%s: the profile for %d tasks, not %d", what, nt, ntasks);
        }
        snprintf (name, sizeof (name), "%s", what);
    } else if (profile_cache_check_id (what, &e) < 0) {
        return errprintf (errp, "'%s': neither a profile file name nor an exe id: %s",
                          errsafe (what, PATH_MAX), e.text);
    } else if (ntasks > 0) {
        if (profile_cache_key (what, ntasks, name, sizeof (name), errp) < 0)
            return -1;
    } else
        every = true;

    if (!(dp = opendir (dir))) {
        if (errno == ENOENT)
            return 0;
        return errprintf (errp, "%s: %s", errsafe (dir, PATH_MAX), strerror (errno));
    }
    if (!every)
        count = pc_unlink (dp, dir, name, errp);
    else
        while (count >= 0 && (de = readdir (dp))) {
            int rc;

            if (!pc_parse_name (de->d_name, id, &nt) || strcmp (id, what) != 0)
                continue;
            if ((rc = pc_unlink (dp, dir, de->d_name, errp)) < 0)
                count = -1;
            else
                count += rc;
        }
    closedir (dp);
    return count;
}
