/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of lib/file.c: replacement that never writes through a link
 * or into a FIFO, files made and opened relative to a directory handle,
 * and the ownership checks of the cache and of the site's paths.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"
#include "lib/test/swap.h"

/* Some checks need another user's files: root makes them with chown. */
#define OTHER_UID 65534

static int slurp_is (const char *path, const char *want)
{
    char *buf = NULL;
    size_t len;
    int same;

    if (file_slurp (path, 1 << 20, &buf, &len, NULL) < 0)
        return 0;
    same = len == strlen (want) && !memcmp (buf, want, len);
    free (buf);
    return same;
}

static void on_alarm (int sig)
{
    (void)sig;
    /* A test that blocked: fail the whole program rather than hang. */
    static const char msg[] = "not ok - a file operation blocked for 10 s\n";
    write (STDOUT_FILENO, msg, sizeof (msg) - 1);
    _exit (1);
}

static void test_replace (void)
{
    char path[PATH_MAX], target[PATH_MAX], fifo[PATH_MAX], names[1024];
    struct stat st;
    tm_error_t e = {""};

    in_dir (path, "plain");
    ok (file_replace (path, "one\n", 4, 0640, &e) == 0 && slurp_is (path, "one\n"),
        "file_replace writes a new file");
    ok (stat (path, &st) == 0 && (st.st_mode & 07777) == 0640,
        "with the mode asked for despite umask 077");
    ok (file_replace (path, "two\n", 4, 0600, &e) == 0 && slurp_is (path, "two\n"),
        "and replaces an existing one");

    /* A link at the target: the link is replaced, its target untouched. */
    in_dir (target, "victim");
    write_file (target, "precious\n", 9, 0644);
    in_dir (path, "link");
    ok (symlink (target, path) == 0, "a symbolic link to another file is made");
    ok (file_replace (path, "plan\n", 5, 0600, &e) == 0, "file_replace over the link succeeds");
    ok (lstat (path, &st) == 0 && S_ISREG (st.st_mode) && slurp_is (path, "plan\n"),
        "the link is now a regular file holding the new text");
    ok (slurp_is (target, "precious\n"), "the link's target is untouched");

    /* A dangling link: replaced as well, nothing created at its target. */
    in_dir (path, "dangling");
    in_dir (target, "nowhere");
    symlink (target, path);
    ok (file_replace (path, "x", 1, 0600, &e) == 0 && access (target, F_OK) < 0,
        "a dangling link is replaced, its target not created");

    /* A FIFO: refused at once, left as it is. */
    in_dir (fifo, "fifo");
    if (mkfifo (fifo, 0600) == 0) {
        errno = 0;
        alarm (10);
        ok (file_replace (fifo, "x", 1, 0600, &e) < 0 && errno == EINVAL && strstr (e.text, "FIFO"),
            "file_replace over a FIFO fails at once: %s", e.text);
        alarm (0);
        ok (lstat (fifo, &st) == 0 && S_ISFIFO (st.st_mode), "the FIFO is left a FIFO");
        unlink (fifo);
    } else
        ok (1, "# SKIP mkfifo: %s", strerror (errno));

    /* A directory, /dev/null: refused, nothing left behind. */
    in_dir (path, "sub");
    mkdir (path, 0700);
    ok (file_replace (path, "x", 1, 0600, &e) < 0 && errno == EISDIR, "a directory is refused: %s",
        e.text);
    rmdir (path);
    if (getuid () == 0)
        ok (file_replace ("/dev/null", "x", 1, 0600, &e) < 0 && errno == EINVAL &&
                stat ("/dev/null", &st) == 0 && S_ISCHR (st.st_mode),
            "as root, /dev/null is refused and stays a device: %s", e.text);
    list_dir (dir, names, sizeof (names));
    ok (!strstr (names, ".plain.") && !strstr (names, ".fifo.") && !strstr (names, ".sub."),
        "no temporary file is left (%s)", names);
    ok (file_is_stdout ("-") && file_is_stdout ("/dev/stdout") && !file_is_stdout ("/dev/stderr") &&
            !file_is_stdout ("./-"),
        "only - and /dev/stdout name standard output");
}

static void test_createat (void)
{
    char name[NAME_MAX + 1], name2[NAME_MAX + 1], path[PATH_MAX];
    struct stat st;
    tm_error_t e = {""};
    int dfd = open (dir, O_RDONLY | O_DIRECTORY);

    ok (file_createat (dfd, "job7.", ".hosts", "n1\n", 3, 0600, name, sizeof (name), &e) == 0,
        "file_createat makes a file: %s", name);
    ok (file_created_name (name, "job7.", ".hosts"), "its name is prefix, 6 random, suffix");
    ok (fstatat (dfd, name, &st, 0) == 0 && (st.st_mode & 07777) == 0600 &&
            slurp_is (in_dir (path, name), "n1\n"),
        "mode 0600, the data in it");
    ok (file_createat (dfd, "job7.", ".hosts", "", 0, 0600, name2, sizeof (name2), &e) == 0 &&
            strcmp (name, name2),
        "a second one gets another name");
    ok (!file_created_name ("job7.abc.hosts", "job7.", ".hosts") &&
            !file_created_name ("job7.ab/cde.hosts", "job7.", ".hosts") &&
            !file_created_name ("job8.abcdef.hosts", "job7.", ".hosts") &&
            !file_created_name ("../x/job7.abcdef.hosts", "job7.", ".hosts"),
        "file_created_name refuses other names");
    unlinkat (dfd, name, 0);
    unlinkat (dfd, name2, 0);
    close (dfd);
}

static void test_openat_own (void)
{
    char path[PATH_MAX], target[PATH_MAX];
    tm_error_t e = {""};
    int dfd = open (dir, O_RDONLY | O_DIRECTORY), fd;
    uid_t me = getuid ();

    fd = file_openat_own (dfd, "lock", "lock", O_RDWR | O_CREAT, 0600, me, &e);
    ok (fd >= 0, "file_openat_own creates a missing file");
    close (fd);

    in_dir (target, "mine");
    write_file (target, "keep\n", 5, 0644);
    symlink (target, in_dir (path, "alink"));
    ok (file_openat_own (dfd, "alink", "alink", O_WRONLY | O_CREAT | O_TRUNC, 0600, me, &e) < 0 &&
            strstr (e.text, "symbolic link"),
        "a link is refused: %s", e.text);
    ok (slurp_is (target, "keep\n"), "its target is not truncated");

    if (mkfifo (in_dir (path, "ffifo"), 0600) == 0) {
        alarm (10);
        ok (file_openat_own (dfd, "ffifo", "ffifo", O_RDWR | O_CREAT, 0600, me, &e) < 0 &&
                errno == EINVAL,
            "a FIFO is refused without blocking: %s", e.text);
        ok (file_openat_own (dfd, "ffifo", "ffifo", O_WRONLY, 0600, me, &e) < 0,
            "even opened write-only with no reader: %s", e.text);
        alarm (0);
    } else
        ok (1, "# SKIP mkfifo: %s", strerror (errno));

    {
        char hard[PATH_MAX];

        in_dir (target, "precious");
        write_file (target, "mine\n", 5, 0644);
        if (link (target, in_dir (hard, "hardlog")) == 0) {
            ok (file_openat_own (dfd, "hardlog", "hardlog", O_WRONLY | O_CREAT | O_TRUNC, 0600, me,
                                 &e) < 0 &&
                    strstr (e.text, "hard links"),
                "a hard link to another file is not opened to write: %s", e.text);
            ok (slurp_is (target, "mine\n"), "and that file is not truncated");
            fd = file_openat_own (dfd, "hardlog", "hardlog", O_RDONLY, 0, me, &e);
            ok (fd >= 0, "it may be read");
            close (fd);
        } else
            ok (1, "# SKIP link: %s", strerror (errno));
    }
    if (me == 0) {
        in_dir (path, "theirs");
        write_file (path, "theirs\n", 7, 0644);
        chown (path, OTHER_UID, OTHER_UID);
        ok (file_openat_own (dfd, "theirs", "theirs", O_WRONLY | O_TRUNC, 0600, me, &e) < 0 &&
                errno == EPERM && strstr (e.text, "owned by uid 65534"),
            "another user's file is refused: %s", e.text);
        ok (slurp_is (path, "theirs\n"), "and not truncated");
    } else
        ok (1, "# SKIP another user's file needs root to make");
    close (dfd);
}

static void test_openat_trusted (void)
{
    char path[PATH_MAX], target[PATH_MAX];
    tm_error_t e = {""};
    int dfd = open (dir, O_RDONLY | O_DIRECTORY), fd;
    uid_t me = getuid ();

    write_file (in_dir (path, "site.json"), "{}\n", 3, 0644);
    fd = file_openat_trusted (dfd, "site.json", "site.json", me, &e);
    ok (fd >= 0, "a 0644 file of one's own is trusted");
    close (fd);
    chmod (path, 0664);
    ok (file_openat_trusted (dfd, "site.json", "site.json", me, &e) < 0 && errno == EPERM &&
            strstr (e.text, "writable by its group"),
        "a group-writable one is not: %s", e.text);
    chmod (path, 0646);
    ok (file_openat_trusted (dfd, "site.json", "site.json", me, &e) < 0 &&
            strstr (e.text, "writable by others"),
        "nor an other-writable one: %s", e.text);
    ok (file_openat_trusted (dfd, "absent", "absent", me, &e) < 0 && errno == ENOENT,
        "an absent file says ENOENT: %s", e.text);
    in_dir (target, "site.json");
    symlink (target, in_dir (path, "slink"));
    ok (file_openat_trusted (dfd, "slink", "slink", me, &e) < 0 && strstr (e.text, "symbolic link"),
        "a link is not followed: %s", e.text);
    if (mkfifo (in_dir (path, "tfifo"), 0600) == 0) {
        alarm (10);
        ok (file_openat_trusted (dfd, "tfifo", "tfifo", me, &e) < 0 && errno == EINVAL,
            "a FIFO is refused without blocking: %s", e.text);
        alarm (0);
    } else
        ok (1, "# SKIP mkfifo: %s", strerror (errno));
    if (me == 0) {
        write_file (in_dir (path, "others"), "{}\n", 3, 0644);
        chown (path, OTHER_UID, OTHER_UID);
        fd = file_openat_trusted (dfd, "others", "others", OTHER_UID, &e);
        ok (fd >= 0, "a user trusts a file of theirs");
        close (fd);
        ok (file_openat_trusted (dfd, "others", "others", 1234, &e) < 0 && errno == EPERM &&
                strstr (e.text, "owned by uid 65534, not root nor 1234"),
            "another user does not: %s", e.text);
    } else
        ok (1, "# SKIP another user's file needs root to make");
    close (dfd);
}

static void test_private_dir (void)
{
    char path[PATH_MAX];
    tm_error_t e = {""};
    uid_t me = getuid ();
    int fd;

    mkdir (in_dir (path, "priv"), 0700);
    fd = file_open_private_dir (AT_FDCWD, path, "priv", me, &e);
    ok (fd >= 0, "a 0700 directory of one's own is accepted");
    close (fd);
    chmod (path, 0755);
    fd = file_open_private_dir (AT_FDCWD, path, "priv", me, &e);
    ok (fd >= 0, "so is a 0755 one");
    close (fd);
    chmod (path, 0777);
    ok (file_open_private_dir (AT_FDCWD, path, "priv", me, &e) < 0 && strstr (e.text, "0777"),
        "a world-writable one is refused: %s", e.text);
    chmod (path, 0770);
    ok (file_open_private_dir (AT_FDCWD, path, "priv", me, &e) < 0,
        "a group-writable one is refused: %s", e.text);
    chmod (path, 0700);
    {
        char link[PATH_MAX];

        symlink (path, in_dir (link, "privlink"));
        ok (file_open_private_dir (AT_FDCWD, link, "privlink", me, &e) < 0 &&
                strstr (e.text, "link"),
            "a link to it is refused: %s", e.text);
    }
    if (me == 0) {
        chown (in_dir (path, "priv"), OTHER_UID, OTHER_UID);
        ok (file_open_private_dir (AT_FDCWD, path, "priv", me, &e) < 0 &&
                strstr (e.text, "owned by uid 65534"),
            "another user's is refused: %s", e.text);
    } else
        ok (1, "# SKIP another user's directory needs root to make");
}

/* The user's cache held by a walk from /: the reproduction of a group
 * member's link swapped in above the cache, and a directory made.
 */
static void test_trusted_dir (void)
{
    char top[PATH_MAX], cache[PATH_MAX + 32], made[PATH_MAX + 32], link[PATH_MAX + 32],
        evil[PATH_MAX], via[PATH_MAX + 64];
    tm_error_t e = {""};
    uid_t me = getuid ();
    int fd;

    if (file_trusted (dir, me, 0, &e) < 0) {
        ok (1, "# SKIP %s is not trusted here: %s", dir, e.text);
        return;
    }
    mkdir (in_dir (top, "home"), 0755);
    snprintf (cache, sizeof (cache), "%s/cache", top);
    mkdir (cache, 0700);
    fd = file_open_trusted_dir (cache, me, 0, &e);
    ok (fd >= 0, "a private directory under trusted ones is opened: %s", fd < 0 ? e.text : "");
    if (fd >= 0)
        close (fd);
    snprintf (made, sizeof (made), "%s/cache/topomap/profiles", top);
    ok (file_open_trusted_dir (made, me, 0, &e) < 0 && errno == ENOENT,
        "a missing one is not made without create_mode: %s", e.text);
    fd = file_open_trusted_dir (made, me, 0700, &e);
    ok (fd >= 0 && access (made, F_OK) == 0, "with it, the missing directories are made");
    if (fd >= 0)
        close (fd);
    chmod (top, 0775);
    ok (file_open_trusted_dir (cache, me, 0, &e) < 0 && strstr (e.text, "home: mode 0775") &&
            strstr (e.text, "its group"),
        "a group-writable directory above the cache is refused, named: %s", e.text);
    chmod (top, 0755);
    chmod (cache, 0770);
    ok (file_open_trusted_dir (cache, me, 0, &e) < 0 && strstr (e.text, "cache: mode 0770"),
        "so is a group-writable cache: %s", e.text);
    chmod (cache, 0700);
    /* A link of the user's own to the cache: followed, its target checked. */
    snprintf (link, sizeof (link), "%s/link", top);
    symlink ("cache", link);
    fd = file_open_trusted_dir (link, me, 0, &e);
    ok (fd >= 0, "a link of the user's to a good directory is followed: %s", fd < 0 ? e.text : "");
    if (fd >= 0)
        close (fd);
    /* ... a link to a directory others may write is not. */
    mkdir (in_dir (evil, "evil"), 0777);
    chmod (evil, 0777);
    snprintf (via, sizeof (via), "%s/evil-link", top);
    symlink (evil, via);
    ok (file_open_trusted_dir (via, me, 0, &e) < 0 && strstr (e.text, "evil: mode 0777"),
        "a link to a world-writable directory is refused at its target: %s", e.text);
    if (me == 0) {
        char theirs[PATH_MAX + 64];

        /* Another user's link in place of the cache, as a group member
         * could plant it above a group-writable parent. */
        snprintf (theirs, sizeof (theirs), "%s/theirs", top);
        symlink ("cache", theirs);
        lchown (theirs, OTHER_UID, OTHER_UID);
        ok (file_open_trusted_dir (theirs, me, 0, &e) < 0 &&
                strstr (e.text, "a symbolic link owned by uid 65534"),
            "another user's link is not followed: %s", e.text);
        chown (cache, OTHER_UID, OTHER_UID);
        ok (file_open_trusted_dir (cache, me, 0, &e) < 0 && strstr (e.text, "owned by uid 65534"),
            "another user's cache is refused: %s", e.text);
        fd = file_open_trusted_dir (cache, OTHER_UID, 0, &e);
        ok (fd >= 0, "for that user it is theirs, under root's directories: %s",
            fd < 0 ? e.text : "");
        if (fd >= 0)
            close (fd);
        chown (cache, 0, 0);
    } else
        ok (1, "# SKIP another user's link needs root to make");
    ok (file_open_trusted_dir ("relative/dir", me, 0, &e) < 0 && strstr (e.text, "absolute"),
        "a relative path is refused: %s", e.text);
}

/* Directories made by a walk from /: through descriptors, the mode asked
 * whatever the umask, and a link swapped in for one just made not
 * followed nor its target's mode changed.
 */
static void test_made_dir (void)
{
    char top[PATH_MAX], made[PATH_MAX + 32], target[PATH_MAX];
    tm_error_t e = {""};
    struct stat st;
    int fd;

    if (file_trusted (dir, getuid (), 0, &e) < 0) {
        ok (1, "# SKIP %s is not trusted here: %s", dir, e.text);
        return;
    }
    mkdir (in_dir (top, "made"), 0755);
    chmod (top, 0755);
    snprintf (made, sizeof (made), "%s/site/profiles", top);
    fd = file_open_trusted_dir (made, getuid (), 0755, &e);
    ok (fd >= 0 && stat (made, &st) == 0 && (st.st_mode & 07777) == 0755 &&
            stat (in_dir (target, "made/site"), &st) == 0 && (st.st_mode & 07777) == 0755,
        "the directories made have the mode asked (0755) under umask 077: %s",
        fd < 0 ? e.text : "");
    if (fd >= 0)
        close (fd);
    mkdir (in_dir (target, "victim"), 0700);
    chmod (target, 0700);
    swap_to = target;
    snprintf (made, sizeof (made), "%s/swapped/profiles", top);
    fd = file_open_trusted_dir (made, getuid (), 0755, &e);
    swap_to = NULL;
    ok (fd < 0 && strstr (e.text, "swapped: replaced by a link"),
        "a link swapped in for a directory just made is not followed: %s",
        fd < 0 ? e.text : "opened");
    if (fd >= 0)
        close (fd);
    ok (stat (target, &st) == 0 && (st.st_mode & 07777) == 0700,
        "and the link's target keeps its mode (0700)");
    snprintf (made, sizeof (made), "%s/swapped/profiles", top);
    ok (access (made, F_OK) < 0, "nothing is made in the link's target");
}

static void test_trusted (void)
{
    char sub[PATH_MAX], file[PATH_MAX + 16], link[PATH_MAX];
    tm_error_t e = {""};
    uid_t me = getuid ();
    struct stat st;

    mkdir (in_dir (sub, "site"), 0755);
    snprintf (file, sizeof (file), "%s/probe", sub);
    write_file (file, "#!/bin/sh\n", 10, 0644);
    chmod (file, 0755);
    /* The scratch directory's parents are the test's: trusted when /tmp
     * or $TMPDIR is, as it is on Debian (root's, 1777). */
    if (file_trusted (dir, me, 0, &e) < 0) {
        ok (1, "# SKIP %s is not trusted here: %s", dir, e.text);
        return;
    }
    ok (file_trusted (file, me, 0, &e) == 0, "a 0755 file in a 0755 directory is trusted");
    chmod (file, 0757);
    ok (file_trusted (file, me, 0, &e) < 0 && strstr (e.text, "writable by others") &&
            strstr (e.text, file),
        "a world-writable file is refused, named: %s", e.text);
    chmod (file, 0775);
    ok (file_trusted (file, me, 0, &e) < 0 && strstr (e.text, "its group"),
        "a group-writable one too: %s", e.text);
    chmod (file, 0755);
    chmod (sub, 0777);
    ok (file_trusted (file, me, 0, &e) < 0 && strstr (e.text, sub) && !strstr (e.text, file),
        "a file under a world-writable directory is refused, the directory named: %s", e.text);
    chmod (sub, 01777);
    ok (file_trusted (sub, me, 0, &e) < 0,
        "a sticky world-writable directory is refused as the path itself: %s", e.text);
    if (stat (sub, &st) == 0 && st.st_uid == 0) {
        ok (file_trusted (file, me, 0, &e) == 0,
            "root's sticky directory above the path is accepted, as /tmp is");
        ok (file_trusted (sub, me, FILE_STICKY_OK, &e) == 0,
            "and as the path itself with FILE_STICKY_OK");
    } else
        ok (1, "# SKIP a sticky directory of root's needs root to make");
    chmod (sub, 0755);
    snprintf (link, sizeof (link), "%s/probe-link", dir);
    symlink (file, link);
    chmod (file, 0777);
    ok (file_trusted (link, me, 0, &e) < 0 && strstr (e.text, file),
        "a link is judged by what it names: %s", e.text);
    chmod (file, 0755);
    /* A good file reached through a link in a directory others may
     * write: they could point the link elsewhere after the check. */
    {
        char open_dir[PATH_MAX], via[PATH_MAX + 16];

        mkdir (in_dir (open_dir, "open"), 0755);
        chmod (open_dir, 0777);
        snprintf (via, sizeof (via), "%s/probe", open_dir);
        symlink (file, via);
        ok (file_trusted (via, me, 0, &e) < 0 && strstr (e.text, open_dir),
            "a link in a world-writable directory is refused, though its target is good: %s",
            e.text);
        unlink (via);
        rmdir (open_dir);
    }
    if (me == 0) {
        chown (file, OTHER_UID, OTHER_UID);
        ok (file_trusted (file, me, 0, &e) < 0 && strstr (e.text, "owned by uid 65534"),
            "another user's file is refused: %s", e.text);
    } else
        ok (file_trusted (file, OTHER_UID, 0, &e) < 0,
            "a file of neither root nor the user is refused: %s", e.text);
}

static void test_bom (void)
{
    ok (file_bom ("\xef\xbb\xbf{}", 5) == 3, "a byte order mark is 3 bytes");
    ok (file_bom ("\xef\xbb\xbf", 2) == 0 && file_bom ("", 0) == 0,
        "a text shorter than the mark has none");
    ok (file_bom ("\xef\xbb{}", 4) == 0 && file_bom ("{}", 2) == 0,
        "neither has a text that starts otherwise");
}

int main (void)
{
    plan (NO_PLAN);
    test_bom ();
    umask (077);
    signal (SIGALRM, on_alarm);
    if (scratch_dir ("file-test") < 0)
        return done_testing ();
    test_replace ();
    test_createat ();
    test_openat_own ();
    test_openat_trusted ();
    test_private_dir ();
    test_trusted ();
    test_trusted_dir ();
    test_made_dir ();
    remove_tree (dir);
    return done_testing ();
}
