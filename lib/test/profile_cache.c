/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/exeid.h"
#include "lib/profile.h"
#include "lib/profile_cache.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"
#include "lib/test/swap.h"

/* profile_cache_lookup of the user's cache at user (NULL or missing:
 * none), as the plugin makes it: the directory held open.
 */
static int lookup (const char *user, const char *site, const char *id, int ntasks, profile_t **pp,
                   char *path, size_t len, tm_error_t *e)
{
    int fd = user ? open (user, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1, rc;

    rc = profile_cache_lookup (fd, user, site, getuid (), id, ntasks, pp, path, len, e);
    if (fd >= 0)
        close (fd);
    return rc;
}

static int write_str (const char *path, const char *text)
{
    return write_file (path, text, strlen (text), 0644);
}

static int copy_file (const char *from, const char *to, mode_t mode)
{
    FILE *f = fopen (from, "r");
    char *buf;
    long len;
    int rc = -1;

    if (!f)
        return -1;
    fseek (f, 0, SEEK_END);
    len = ftell (f);
    rewind (f);
    if ((buf = malloc ((size_t)len + 1)) && fread (buf, 1, (size_t)len, f) == (size_t)len)
        rc = write_file (to, buf, (size_t)len, mode);
    free (buf);
    fclose (f);
    return rc;
}

static mode_t mode_of (const char *path)
{
    struct stat st;

    return lstat (path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

/* Compile text into the program dir/name with gcc and one more argument. */
static int compile (const char *name, const char *text, const char *arg)
{
    char src[PATH_MAX], out[PATH_MAX], file[64];
    const char *argv[] = {"gcc", "-O1", "-o", out, src, arg, NULL};

    snprintf (file, sizeof (file), "%s.c", name);
    in_dir (src, file);
    in_dir (out, name);
    if (write_str (src, text) < 0)
        return -1;
    return run (argv);
}

/* A profile of ntasks ranks for exe_id, its traffic and job id set by tag. */
static profile_t *make_profile (const char *exe_id, int ntasks, int tag)
{
    profile_entry_t t[] = {
        {0, 1, (uint64_t)tag + 1, 1000 * ((uint64_t)tag + 1)},
        {1, 0, 2, 64},
        {ntasks - 1, 0, (uint64_t)tag + 3, 7},
    };
    char jobid[32];
    profile_t *p = profile_create (ntasks, 3, t, NULL);

    snprintf (jobid, sizeof (jobid), "%d", 1000 + tag);
    if (!p || profile_set_string (&p->exe_id, exe_id, NULL) < 0 ||
        profile_set_string (&p->exe_path, "/home/me/a.out", NULL) < 0 ||
        profile_set_string (&p->source, "recorder", NULL) < 0) {
        profile_destroy (p);
        return NULL;
    }
    snprintf (p->jobid, sizeof (p->jobid), "%s", jobid);
    p->timestamp = 1795211090;
    return p;
}

static int same_profile (const profile_t *a, const profile_t *b)
{
    if (!a || !b || a->ntasks != b->ntasks || a->nentries != b->nentries ||
        strcmp (a->exe_id, b->exe_id) != 0 || strcmp (a->jobid, b->jobid) != 0 ||
        a->total_bytes != b->total_bytes)
        return 0;
    for (size_t i = 0; i < a->nentries; i++)
        if (a->entries[i].src != b->entries[i].src || a->entries[i].dst != b->entries[i].dst ||
            a->entries[i].msgs != b->entries[i].msgs || a->entries[i].bytes != b->entries[i].bytes)
            return 0;
    return 1;
}

static void test_user_dir (void)
{
    char out[PATH_MAX], want[PATH_MAX + 64];
    struct passwd *pw = getpwuid (getuid ());
    tm_error_t e = {""};

    ok (profile_cache_user_dir ("/x/cache", "/home/u", out, sizeof (out), &e) == 0 &&
            strcmp (out, "/x/cache/topomap/profiles") == 0,
        "an absolute XDG_CACHE_HOME is used: %s", out);
    ok (profile_cache_user_dir ("/x/cache//", "/home/u", out, sizeof (out), &e) == 0 &&
            strcmp (out, "/x/cache/topomap/profiles") == 0,
        "trailing slashes of XDG_CACHE_HOME are dropped");
    ok (profile_cache_user_dir (NULL, "/home/u", out, sizeof (out), &e) == 0 &&
            strcmp (out, "/home/u/.cache/topomap/profiles") == 0,
        "without XDG_CACHE_HOME, HOME/.cache is used: %s", out);
    ok (profile_cache_user_dir ("", "/home/u", out, sizeof (out), &e) == 0 &&
            strcmp (out, "/home/u/.cache/topomap/profiles") == 0,
        "an empty XDG_CACHE_HOME is ignored");
    ok (profile_cache_user_dir ("cache", "/home/u", out, sizeof (out), &e) == 0 &&
            strcmp (out, "/home/u/.cache/topomap/profiles") == 0,
        "a relative XDG_CACHE_HOME is ignored");
    ok (profile_cache_user_dir ("/x/../etc", "/home/u", out, sizeof (out), &e) == 0 &&
            strcmp (out, "/home/u/.cache/topomap/profiles") == 0,
        "an XDG_CACHE_HOME with a '..' component is ignored");
    ok (profile_cache_user_dir ("/x/ca\nche", "/home/u", out, sizeof (out), &e) == 0 &&
            strcmp (out, "/home/u/.cache/topomap/profiles") == 0,
        "an XDG_CACHE_HOME with a control character is ignored");
    ok (profile_cache_user_dir ("/x/..cache", "/home/u", out, sizeof (out), &e) == 0 &&
            strcmp (out, "/x/..cache/topomap/profiles") == 0,
        "a name merely starting with '..' is sane");
    ok (profile_cache_user_dir ("/", "/home/u", out, sizeof (out), &e) == 0 &&
            strcmp (out, "/topomap/profiles") == 0,
        "XDG_CACHE_HOME may be the root directory");

    if (pw && pw->pw_dir && pw->pw_dir[0] == '/') {
        snprintf (want, sizeof (want), "%s/.cache/topomap/profiles",
                  strcmp (pw->pw_dir, "/") == 0 ? "" : pw->pw_dir);
        ok (profile_cache_user_dir (NULL, NULL, out, sizeof (out), &e) == 0 &&
                strcmp (out, want) == 0,
            "without HOME the password database gives the home directory: %s", out);
        ok (profile_cache_user_dir ("relative", "also/relative", out, sizeof (out), &e) == 0 &&
                strcmp (out, want) == 0,
            "a relative HOME is ignored too");
    } else {
        ok (1, "# skip no home directory in the password database");
        ok (1, "# skip no home directory in the password database");
    }
    errno = 0;
    ok (profile_cache_user_dir ("/x/cache", NULL, out, 10, &e) < 0 && errno == ERANGE,
        "a buffer too small fails with ERANGE: %s", e.text);
    ok (profile_cache_user_dir ("/x", NULL, NULL, 0, &e) < 0 && errno == EINVAL,
        "no buffer fails with EINVAL");
}

static void test_key (void)
{
    char name[256], path[PATH_MAX], longid[200];
    tm_error_t e = {""};

    ok (profile_cache_key ("sha256:0abc", 8, name, sizeof (name), &e) == 0 &&
            strcmp (name, "sha256-0abc.n8.json") == 0,
        "the key of sha256:0abc for 8 tasks is %s", name);
    ok (profile_cache_key ("build-id:ff01", 16, name, sizeof (name), &e) == 0 &&
            strcmp (name, "build-id-ff01.n16.json") == 0,
        "the key of build-id:ff01 for 16 tasks is %s", name);
    ok (profile_cache_path ("/c/", "build-id:ff01", 2, path, sizeof (path), &e) == 0 &&
            strcmp (path, "/c/build-id-ff01.n2.json") == 0,
        "profile_cache_path puts the key in the directory: %s", path);

    ok (profile_cache_check_id ("../x", &e) < 0 && errno == EINVAL && strstr (e.text, "exe id"),
        "the exe id '../x' is refused: %s", e.text);
    ok (profile_cache_key ("a/b", 4, name, sizeof (name), &e) < 0 && errno == EINVAL &&
            strstr (e.text, "0x2f"),
        "the exe id 'a/b' is refused: %s", e.text);
    ok (profile_cache_check_id ("", &e) < 0 && strstr (e.text, "empty") &&
            profile_cache_check_id (NULL, NULL) < 0,
        "an empty or missing exe id is refused: %s", e.text);
    memset (longid, 'a', sizeof (longid) - 1);
    longid[sizeof (longid) - 1] = '\0';
    memcpy (longid, "sha256:", 7);
    ok (profile_cache_check_id (longid, &e) < 0 && strstr (e.text, "longer than 160"),
        "an exe id over %d bytes is refused: %s", PROFILE_CACHE_ID_MAX, e.text);
    longid[PROFILE_CACHE_ID_MAX] = '\0';
    ok (profile_cache_check_id (longid, &e) == 0, "an exe id of %d bytes is accepted",
        PROFILE_CACHE_ID_MAX);
    ok (profile_cache_check_id ("SHA256:AB", &e) < 0, "upper case is refused: %s", e.text);
    ok (profile_cache_check_id ("sha256", &e) < 0 && strstr (e.text, "<scheme>:<value>"),
        "an exe id without a scheme is refused: %s", e.text);
    ok (profile_cache_check_id ("a:b:c", &e) < 0 && profile_cache_check_id ("a:b-c", &e) < 0 &&
            profile_cache_check_id ("a:", &e) < 0 && profile_cache_check_id (":ab", &e) < 0,
        "a value with ':' or '-', an empty value or scheme are refused: %s", e.text);
    ok (profile_cache_check_id ("-rf:ab", &e) < 0 && strstr (e.text, "starts with '-'"),
        "an exe id starting with '-' is refused: %s", e.text);
    ok (profile_cache_check_id ("a\nb:c", &e) < 0 && !strchr (e.text, '\n'),
        "a control character is refused without being quoted: %s", e.text);
    ok (profile_cache_key ("sha256:ab", 0, name, sizeof (name), &e) < 0 && errno == EINVAL &&
            profile_cache_key ("sha256:ab", -3, name, sizeof (name), &e) < 0,
        "a task count below 1 is refused: %s", e.text);
    ok (profile_cache_key ("sha256:ab", 4, name, 8, &e) < 0 && errno == ERANGE,
        "a buffer too small for the key fails with ERANGE");
}

static void test_round_trip (void)
{
    char user[PATH_MAX], stored[PATH_MAX], found[PATH_MAX], p1[PATH_MAX], names[1024];
    profile_t *p = make_profile ("sha256:00ff", 4, 1), *back = NULL;
    tm_error_t e = {""};
    int rc;

    in_dir (p1, "home");
    in_dir (user, "home/.cache/topomap/profiles");
    rc = profile_cache_store (user, p, stored, sizeof (stored), &e);
    if (!ok (rc == 0, "profile_cache_store files a profile, creating the directories"))
        diag ("%s", e.text);
    ok (strstr (stored, "/home/.cache/topomap/profiles/sha256-00ff.n4.json") != NULL,
        "the profile is stored under its key: %s", stored);
    ok (mode_of (p1) == 0700 && mode_of (in_dir (p1, "home/.cache")) == 0700 &&
            mode_of (in_dir (p1, "home/.cache/topomap")) == 0700 && mode_of (user) == 0700,
        "directories the cache creates have mode 0700 despite umask 022");
    ok (mode_of (stored) == 0600, "the profile file has mode 0600 (%o)", mode_of (stored));
    ok (mode_of (dir) == 0700, "a directory that existed keeps its mode");

    rc = lookup (user, NULL, "sha256:00ff", 4, &back, found, sizeof (found), &e);
    ok (rc == 1 && same_profile (p, back) && strcmp (found, stored) == 0 && e.text[0] == '\0',
        "the lookup finds it again, with its path and no warning");
    profile_destroy (back);
    back = NULL;
    ok (lookup (user, NULL, "sha256:00fe", 4, &back, found, sizeof (found), &e) == 0 && !back &&
            found[0] == '\0' && e.text[0] == '\0',
        "another exe id is not found, quietly");
    ok (lookup (NULL, NULL, "sha256:00ff", 4, &back, NULL, 0, &e) == 0 &&
            lookup (in_dir (p1, "nonexistent"), NULL, "sha256:00ff", 4, &back, NULL, 0, &e) == 0 &&
            e.text[0] == '\0',
        "no directory, or one that does not exist, finds nothing quietly");
    ok (lookup (user, NULL, "../x", 4, &back, NULL, 0, &e) < 0 && errno == EINVAL &&
            strstr (e.text, "exe id"),
        "a lookup with a bad exe id fails: %s", e.text);

    p->source[0] = 'R';
    ok (profile_cache_store (user, p, NULL, 0, &e) == 0 &&
            lookup (user, NULL, "sha256:00ff", 4, &back, NULL, 0, &e) == 1 &&
            strcmp (back->source, "Recorder") == 0,
        "storing under a key again replaces the profile");
    profile_destroy (back);
    ok (list_dir (user, names, sizeof (names)) == 1 && !strstr (names, ".json."),
        "no temporary file is left beside the profile (%s)", names);
    profile_destroy (p);

    p = make_profile ("", 4, 1);
    ok (profile_cache_store (user, p, NULL, 0, &e) < 0 && errno == EINVAL &&
            strstr (e.text, "exe id: empty"),
        "a profile without executable identity is not stored: %s", e.text);
    profile_destroy (p);
    ok (profile_cache_store (user, NULL, NULL, 0, &e) < 0 && errno == EINVAL,
        "storing no profile fails with EINVAL");

    p = make_profile ("sha256:01", 2, 0);
    in_dir (p1, "plainfile");
    write_str (p1, "x");
    ok (profile_cache_store (p1, p, NULL, 0, &e) < 0 && errno == ENOTDIR && strstr (e.text, p1) &&
            strstr (e.text, "not a directory"),
        "a cache directory that is a file is refused: %s", e.text);
    in_dir (p1, "plainfile/sub/dir");
    ok (profile_cache_store (p1, p, NULL, 0, &e) < 0 && strstr (e.text, "plainfile: not a "),
        "a cache directory under a file is refused: %s", e.text);
    in_dir (p1, "linked-cache");
    if (symlink (user, p1) == 0)
        ok (profile_cache_store (p1, p, NULL, 0, &e) == 0 && mode_of (user) == 0700,
            "a symbolic link to a directory is a cache directory");
    else
        ok (1, "# skip cannot make a symbolic link");
    profile_destroy (p);
}

static void test_exeid_keys (void)
{
    static const char one_c[] = "int main (void) { return 1; }\n";
    static const char two_c[] = "int main (void) { return 2; }\n";
    char cache[PATH_MAX], exe[PATH_MAX], copy[PATH_MAX], id[EXEID_MAX + 1], id2[EXEID_MAX + 1];
    char path[PATH_MAX];
    profile_t *p = NULL, *back = NULL;
    tm_error_t e = {""};

    if (exeid_resolve ("gcc", NULL, getenv ("PATH"), path, sizeof (path), NULL) < 0) {
        ok (1, "# skip gcc not found: no checks with executables");
        return;
    }
    in_dir (cache, "exe-cache");
    in_dir (exe, "prog");
    in_dir (copy, "elsewhere");
    mkdir (copy, 0755);
    in_dir (copy, "elsewhere/prog-copy");

    ok (compile ("prog", one_c, "-Wl,--build-id") == 0 &&
            exeid_compute (exe, id, sizeof (id), &e) == 0 && strncmp (id, "build-id:", 9) == 0,
        "a program built with a build-id is identified by it: %s", id);
    p = make_profile (id, 4, 0);
    ok (p && profile_cache_store (cache, p, NULL, 0, &e) == 0, "its profile is stored");
    ok (copy_file (exe, copy, 0755) == 0 && exeid_compute (copy, id2, sizeof (id2), &e) == 0 &&
            lookup (cache, NULL, id2, 4, &back, NULL, 0, &e) == 1 && same_profile (p, back),
        "a copy of the program elsewhere finds the profile");
    profile_destroy (back);
    back = NULL;
    profile_destroy (p);
    ok (compile ("prog", two_c, "-Wl,--build-id") == 0 &&
            exeid_compute (exe, id2, sizeof (id2), &e) == 0 && strcmp (id, id2) != 0 &&
            lookup (cache, NULL, id2, 4, &back, NULL, 0, &e) == 0 && !back,
        "the program rebuilt with changed code does not find it");

    ok (compile ("prog", one_c, "-Wl,--build-id=none") == 0 &&
            exeid_compute (exe, id, sizeof (id), &e) == 0 && strncmp (id, "sha256:", 7) == 0,
        "a program built without a build-id is identified by sha256");
    p = make_profile (id, 8, 1);
    ok (p && profile_cache_store (cache, p, NULL, 0, &e) == 0 && copy_file (exe, copy, 0755) == 0 &&
            exeid_compute (copy, id2, sizeof (id2), &e) == 0 &&
            lookup (cache, NULL, id2, 8, &back, NULL, 0, &e) == 1 && same_profile (p, back),
        "a copy of a program without build-id finds its profile");
    profile_destroy (back);
    back = NULL;
    profile_destroy (p);
    ok (compile ("prog", two_c, "-Wl,--build-id=none") == 0 &&
            exeid_compute (exe, id2, sizeof (id2), &e) == 0 &&
            lookup (cache, NULL, id2, 8, &back, NULL, 0, &e) == 0,
        "rebuilt without a build-id and changed, it does not");
    profile_destroy (back);
}

static void test_bad_files (void)
{
    char user[PATH_MAX], site[PATH_MAX], path[PATH_MAX], other[PATH_MAX];
    profile_t *pa = make_profile ("sha256:aa", 4, 1), *ps = make_profile ("sha256:aa", 4, 2);
    profile_t *back = NULL;
    tm_error_t e = {""};
    int rc;

    in_dir (user, "bad-user");
    in_dir (site, "bad-site");
    ok (profile_cache_store (site, ps, NULL, 0, &e) == 0, "a profile is stored in a site cache");
    rc = lookup (user, site, "sha256:aa", 4, &back, path, sizeof (path), &e);
    ok (rc == 1 && same_profile (back, ps) && strncmp (path, site, strlen (site)) == 0 &&
            e.text[0] == '\0',
        "without a user profile, the site profile is found");
    profile_destroy (back);
    back = NULL;

    ok (profile_cache_store (user, pa, NULL, 0, &e) == 0, "a profile is stored in the user cache");
    rc = lookup (user, site, "sha256:aa", 4, &back, path, sizeof (path), &e);
    ok (rc == 1 && same_profile (back, pa) && strncmp (path, user, strlen (user)) == 0,
        "the user's profile comes before the site's");
    profile_destroy (back);
    back = NULL;

    profile_cache_path (user, "sha256:aa", 4, path, sizeof (path), NULL);
    write_str (path, "{\"kind\": \"topomap-profile\", \"schema\": 1, \"ntas");
    rc = lookup (user, site, "sha256:aa", 4, &back, NULL, 0, &e);
    ok (rc == 1 && same_profile (back, ps) && strstr (e.text, path) && strstr (e.text, "ignored"),
        "a corrupt user profile is ignored with a warning and the site's used: %s", e.text);
    profile_destroy (back);
    back = NULL;
    rc = lookup (user, NULL, "sha256:aa", 4, &back, NULL, 0, &e);
    ok (rc == 0 && !back && strstr (e.text, path) && strstr (e.text, "(ignored)"),
        "a corrupt profile alone is not found, with the warning");

    /* A valid profile of another executable under this key. */
    back = make_profile ("sha256:bb", 4, 3);
    profile_cache_store (user, back, other, sizeof (other), NULL);
    profile_destroy (back);
    back = NULL;
    rename (other, path);
    rc = lookup (user, NULL, "sha256:aa", 4, &back, NULL, 0, &e);
    ok (rc == 0 && !back && strstr (e.text, "records sha256:bb for 4 tasks") &&
            strstr (e.text, "not what its name says"),
        "a profile of another executable under the key is ignored: %s", e.text);

    unlink (path);
    if (symlink (other, path) == 0 || symlink ("/etc/passwd", path) == 0) {
        rc = lookup (user, site, "sha256:aa", 4, &back, NULL, 0, &e);
        ok (rc == 1 && same_profile (back, ps) && strstr (e.text, "symbolic link"),
            "a symbolic link in place of a profile is not followed: %s", e.text);
        profile_destroy (back);
        back = NULL;
        unlink (path);
    } else
        ok (1, "# skip cannot make a symbolic link");
    mkdir (path, 0700);
    rc = lookup (user, NULL, "sha256:aa", 4, &back, NULL, 0, &e);
    ok (rc == 0 && strstr (e.text, "not a regular file"),
        "a directory in place of a profile is ignored: %s", e.text);
    rmdir (path);

    profile_destroy (pa);
    profile_destroy (ps);
}

static void test_ntasks_mismatch (void)
{
    char user[PATH_MAX], site[PATH_MAX];
    profile_t *p16 = make_profile ("sha256:cc", 16, 0), *p4 = make_profile ("sha256:cc", 4, 0);
    profile_t *p32 = make_profile ("sha256:cc", 32, 0), *back = NULL;
    tm_error_t e = {""};
    int rc;

    in_dir (user, "nt-user");
    in_dir (site, "nt-site");
    profile_cache_store (user, p16, NULL, 0, NULL);
    rc = lookup (user, site, "sha256:cc", 8, &back, NULL, 0, &e);
    ok (rc == 0 && !back &&
            strcmp (e.text,
                    "profile for sha256:cc recorded for 16 tasks, this step has 8 (not applied)") ==
                0,
        "a profile for another task count is reported, not applied: %s", e.text);
    profile_cache_store (site, p4, NULL, 0, NULL);
    profile_cache_store (site, p16, NULL, 0, NULL);
    profile_cache_store (site, p32, NULL, 0, NULL);
    rc = lookup (user, site, "sha256:cc", 8, &back, NULL, 0, &e);
    ok (rc == 0 && strstr (e.text, "recorded for 4, 16 and 32 tasks, this step has 8"),
        "every other task count in both caches is named once: %s", e.text);
    rc = lookup (user, site, "sha256:cd", 8, &back, NULL, 0, &e);
    ok (rc == 0 && e.text[0] == '\0', "the profiles of other executables are not mentioned");
    rc = lookup (user, site, "sha256:cc", 32, &back, NULL, 0, &e);
    ok (rc == 1 && back && back->ntasks == 32 && e.text[0] == '\0',
        "the profile for the step's task count is found from the site cache");
    profile_destroy (back);
    profile_destroy (p4);
    profile_destroy (p16);
    profile_destroy (p32);
}

struct seen {
    int n;
    char names[16][128];
    char reasons[16][256];
    int ntasks[16];
    int valid[16];
};

static int collect (const profile_cache_entry_t *entry, void *arg)
{
    struct seen *s = arg;

    if (s->n == 16)
        return 7;
    snprintf (s->names[s->n], sizeof (s->names[0]), "%s", entry->name);
    snprintf (s->reasons[s->n], sizeof (s->reasons[0]), "%s", entry->reason ? entry->reason : "");
    s->ntasks[s->n] = entry->ntasks;
    s->valid[s->n] = entry->profile != NULL && entry->reason == NULL &&
                     strcmp (entry->exe_path, "/home/me/a.out") == 0 && entry->size > 0 &&
                     strstr (entry->path, entry->name) != NULL;
    s->n++;
    return 0;
}

static int stop_at_first (const profile_cache_entry_t *entry, void *arg)
{
    (void)entry;
    (*(int *)arg)++;
    return 42;
}

static void test_list_rm (void)
{
    char cache[PATH_MAX], path[PATH_MAX], other[PATH_MAX], names[1024];
    profile_t *p = make_profile ("sha256:dd", 4, 0), *q = make_profile ("build-id:0102", 2, 0);
    struct seen s = {0};
    tm_error_t e = {""};
    int calls = 0, rc;

    in_dir (cache, "list");
    profile_cache_store (cache, p, NULL, 0, NULL);
    profile_cache_store (cache, q, NULL, 0, NULL);
    /* The profile for 4 tasks copied under the key for 8: foreign. */
    profile_cache_path (cache, "sha256:dd", 4, path, sizeof (path), NULL);
    profile_cache_path (cache, "sha256:dd", 8, other, sizeof (other), NULL);
    copy_file (path, other, 0600);
    in_dir (path, "list/sha256-ee.n2.json");
    write_str (path, "not json");
    in_dir (path, "list/README.json");
    write_str (path, "{}");
    in_dir (path, "list/notes.txt");
    write_str (path, "not listed");
    in_dir (path, "list/.hidden.json");
    write_str (path, "not listed");
    in_dir (path, "list/sha256-dd.n4.json.AbC123");
    write_str (path, "a temporary file");

    rc = profile_cache_list (cache, collect, &s, &e);
    ok (rc == 0 && s.n == 5, "profile_cache_list shows the five .json files (%d)", s.n);
    ok (strcmp (s.names[0], "README.json") == 0 && strstr (s.reasons[0], "name is not"),
        "a file whose name is not a key is shown as not valid: %s", s.reasons[0]);
    ok (strcmp (s.names[1], "build-id-0102.n2.json") == 0 && s.valid[1] && s.ntasks[1] == 2,
        "a good profile is shown valid with its task count, path, size and time");
    ok (strcmp (s.names[2], "sha256-dd.n4.json") == 0 && s.valid[2], "entries are in name order");
    ok (strcmp (s.names[3], "sha256-dd.n8.json") == 0 && !s.valid[3] &&
            strstr (s.reasons[3], "not what its name says"),
        "a profile under another key is shown as not valid: %s", s.reasons[3]);
    ok (strcmp (s.names[4], "sha256-ee.n2.json") == 0 && !s.valid[4] && s.ntasks[4] == 2 &&
            s.reasons[4][0] && !strstr (s.reasons[4], cache),
        "a corrupt profile is shown with the reason, without the path: %s", s.reasons[4]);
    ok (profile_cache_list (cache, stop_at_first, &calls, &e) == 42 && calls == 1,
        "a callback stops the listing with its value");
    s.n = 0;
    in_dir (path, "nonexistent");
    ok (profile_cache_list (path, collect, &s, &e) == 0 && s.n == 0,
        "a cache that does not exist lists nothing");
    in_dir (path, "list/notes.txt");
    ok (profile_cache_list (path, collect, &s, &e) < 0 && strstr (e.text, path),
        "a cache that is not a directory cannot be listed: %s", e.text);

    ok (profile_cache_rm (cache, "sha256:dd", 0, &e) == 2 &&
            list_dir (cache, names, sizeof (names)) == 6 && !strstr (names, "sha256-dd.n4.json ") &&
            !strstr (names, "sha256-dd.n8.json"),
        "removing an exe id removes it for every task count, nothing else (%s)", names);
    ok (profile_cache_rm (cache, "build-id:0102", 4, &e) == 0 &&
            profile_cache_rm (cache, "build-id:0102", 2, &e) == 1,
        "removing an exe id for one task count removes that one only");
    ok (profile_cache_rm (cache, "sha256-ee.n2.json", 0, &e) == 1 &&
            profile_cache_rm (cache, "sha256-ee.n2.json", 0, &e) == 0,
        "a profile is removed by its file name, once");
    ok (profile_cache_rm (cache, "sha256-ee.n2.json", 3, &e) < 0 && errno == EINVAL,
        "a file name with another task count is refused: %s", e.text);
    ok (profile_cache_rm (cache, "../list/x.n2.json", 0, &e) < 0 && errno == EINVAL &&
            profile_cache_rm (cache, "README.json", 0, &e) < 0 &&
            profile_cache_rm (cache, "../x", 0, &e) < 0 &&
            profile_cache_rm (cache, "a/b", 2, &e) < 0,
        "what is neither a key nor an exe id is refused: %s", e.text);
    ok (profile_cache_rm (cache, "sha256:dd", -1, &e) < 0 && errno == EINVAL,
        "a negative task count is refused");

    in_dir (other, "outside.json");
    write_str (other, "precious");
    profile_cache_path (cache, "sha256:ff", 2, path, sizeof (path), NULL);
    if (symlink (other, path) == 0)
        ok (profile_cache_rm (cache, "sha256:ff", 0, &e) == 1 && access (other, F_OK) == 0 &&
                access (path, F_OK) < 0,
            "removing a symbolic link removes the link, not what it points to");
    else
        ok (1, "# skip cannot make a symbolic link");
    in_dir (path, "nonexistent");
    ok (profile_cache_rm (path, "sha256:dd", 0, &e) == 0,
        "removing from a cache that does not exist removes nothing");

    profile_destroy (p);
    profile_destroy (q);
}

#define WRITERS 4
#define ROUNDS  100

static void test_concurrent (void)
{
    char cache[PATH_MAX], names[1024];
    profile_t *p[WRITERS], *back = NULL;
    pid_t pid[WRITERS];
    int looked = 0, bad_lookups = 0, bad_children = 0, equal = 0, running;
    tm_error_t e = {""};

    in_dir (cache, "concurrent");
    for (int i = 0; i < WRITERS; i++)
        p[i] = make_profile ("sha256:1234", 3, i);
    /* One profile there before, so that every lookup must find one. */
    profile_cache_store (cache, p[0], NULL, 0, NULL);

    fflush (stdout);
    for (int i = 0; i < WRITERS; i++) {
        if ((pid[i] = fork ()) == 0) {
            int failed = 0;
            for (int r = 0; r < ROUNDS; r++)
                if (profile_cache_store (cache, p[i], NULL, 0, NULL) < 0)
                    failed++;
            for (int k = 0; k < WRITERS; k++)
                profile_destroy (p[k]);
            _exit (failed ? 1 : 0);
        }
    }
    do {
        running = 0;
        for (int i = 0; i < WRITERS; i++) {
            int status;

            if (pid[i] <= 0)
                continue;
            if (waitpid (pid[i], &status, WNOHANG) == 0)
                running++;
            else {
                if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
                    bad_children++;
                pid[i] = 0;
            }
        }
        if (lookup (cache, NULL, "sha256:1234", 3, &back, NULL, 0, &e) != 1 || e.text[0] != '\0')
            bad_lookups++;
        profile_destroy (back);
        back = NULL;
        looked++;
    } while (running > 0);

    ok (bad_children == 0, "%d writers each store a profile under one key %d times", WRITERS,
        ROUNDS);
    ok (bad_lookups == 0, "every one of %d lookups during the writes finds a whole profile",
        looked);
    if (lookup (cache, NULL, "sha256:1234", 3, &back, NULL, 0, &e) == 1)
        for (int i = 0; i < WRITERS; i++)
            equal += same_profile (back, p[i]);
    ok (equal == 1, "the file left is exactly one of the writers' profiles");
    ok (list_dir (cache, names, sizeof (names)) == 1, "no temporary file is left (%s)", names);
    profile_destroy (back);
    for (int i = 0; i < WRITERS; i++)
        profile_destroy (p[i]);
}

/* topomap profile import --site as root: the directories it makes are
 * made and moded through descriptors, and one swapped for a link is left
 * alone, its target's mode too.
 */
static void test_publish_race (void)
{
    char site[PATH_MAX], target[PATH_MAX];
    profile_t *p = make_profile ("sha256:62", 2, 0);
    tm_error_t e = {""};
    struct stat st;
    int rc;

    mkdir (in_dir (target, "victim"), 0700);
    chmod (target, 0700);
    in_dir (site, "apps/profiles");
    swap_to = target;
    rc = profile_cache_publish (site, p, NULL, 0, &e);
    swap_to = NULL;
    ok (rc < 0, "publishing where a made directory is swapped for a link fails: %s",
        rc < 0 ? e.text : "published");
    ok (stat (target, &st) == 0 && (st.st_mode & 07777) == 0700,
        "the link's target keeps its mode (0700)");
    profile_destroy (p);
}

int main (void)
{

    plan (NO_PLAN);
    umask (022);
    if (scratch_dir ("profile-cache-test") < 0)
        return done_testing ();

    test_user_dir ();
    test_key ();
    test_round_trip ();
    test_exeid_keys ();
    test_bad_files ();
    test_ntasks_mismatch ();
    test_list_rm ();
    test_concurrent ();
    test_publish_race ();

    remove_tree (dir);
    return done_testing ();
}
