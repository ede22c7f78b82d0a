/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/exeid.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"

static char realdir[PATH_MAX];

static int write_str (const char *path, const char *text, mode_t mode)
{
    return write_file (path, text, strlen (text), mode);
}

static int copy_file (const char *from, const char *to)
{
    size_t len;
    char *buf = read_file (from, &len);
    int rc;

    if (!buf)
        return -1;
    rc = write_file (to, buf, len, 0755);
    free (buf);
    return rc;
}

static int have (const char *cmd)
{
    char path[PATH_MAX];

    return exeid_resolve (cmd, NULL, getenv ("PATH"), path, sizeof (path), NULL) == 0;
}

static const char hello_c[] = "#include <stdio.h>\n"
                              "int main (void) { puts (\"hello\"); return 0; }\n";
static const char other_c[] = "#include <stdio.h>\n"
                              "int main (void) { puts (\"hello, world\"); return 1; }\n";

/* Compile text in dir/<name>.c to dir/<name> with gcc and up to three more
 * arguments (NULL-terminated).
 */
static int compile (const char *name, const char *text, const char *a1, const char *a2,
                    const char *a3)
{
    char src[PATH_MAX], out[PATH_MAX], file[64];
    const char *argv[12] = {"gcc", "-O1", "-o", out, src};
    int i = 5;

    snprintf (file, sizeof (file), "%s.c", name);
    in_dir (src, file);
    in_dir (out, name);
    if (write_str (src, text, 0644) < 0)
        return -1;
    if (a1)
        argv[i++] = a1;
    if (a2)
        argv[i++] = a2;
    if (a3)
        argv[i++] = a3;
    argv[i] = NULL;
    return run (argv);
}

/* Remove the section header table from the ELF64 file at path, so that
 * readers must use the program headers (a "super-stripped" file).
 */
static int drop_section_headers (const char *path)
{
    size_t len;
    char *buf = read_file (path, &len);
    int rc = -1;

    if (buf && len >= sizeof (Elf64_Ehdr) && buf[EI_CLASS] == ELFCLASS64 &&
        buf[EI_DATA] == ELFDATA2LSB) {
        memset (buf + offsetof (Elf64_Ehdr, e_shoff), 0, 8);
        memset (buf + offsetof (Elf64_Ehdr, e_shnum), 0, 2);
        memset (buf + offsetof (Elf64_Ehdr, e_shstrndx), 0, 2);
        rc = write_file (path, buf, len, 0755);
    }
    free (buf);
    return rc;
}

static int is_hex (const char *s, size_t n)
{
    if (strlen (s) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static void test_sha256 (void)
{
    char path[PATH_MAX], id[EXEID_MAX + 1];
    char *big;
    tm_error_t e = {""};

    in_dir (path, "abc");
    write_str (path, "abc", 0644);
    ok (exeid_compute (path, id, sizeof (id), &e) == 0 &&
            strcmp (id,
                    "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0,
        "a file that is not ELF is identified by the SHA-256 of its content: %s", id);

    in_dir (path, "empty");
    write_str (path, "", 0644);
    ok (exeid_compute (path, id, sizeof (id), &e) == 0 &&
            strcmp (id,
                    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0,
        "an empty file has the SHA-256 of nothing");

    big = malloc (1000000);
    if (big) {
        memset (big, 'a', 1000000);
        in_dir (path, "million");
        write_file (path, big, 1000000, 0644);
        free (big);
    }
    ok (exeid_compute (path, id, sizeof (id), &e) == 0 &&
            strcmp (id,
                    "sha256:cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
        "a file of many blocks is hashed whole (a million 'a')");

    in_dir (path, "script");
    write_str (path, "#!/bin/sh\necho hello\n", 0755);
    ok (exeid_compute (path, id, sizeof (id), &e) == 0 && strncmp (id, "sha256:", 7) == 0 &&
            is_hex (id + 7, 64),
        "a script is identified by sha256 and 64 lowercase hex digits");

    in_dir (path, "elfish");
    write_file (path, "\177ELF\002\001\001", 7, 0755);
    ok (exeid_compute (path, id, sizeof (id), &e) == 0 && strncmp (id, "sha256:", 7) == 0,
        "a file with an ELF magic but no header falls back to sha256");
}

static void test_errors (void)
{
    char path[PATH_MAX], id[EXEID_MAX + 1];
    tm_error_t e = {""};
    exeid_mpi_t mpi;

    in_dir (path, "missing");
    errno = 0;
    ok (exeid_compute (path, id, sizeof (id), &e) < 0 && errno == ENOENT && strstr (e.text, path),
        "exeid_compute of a missing file fails with ENOENT naming it: %s", e.text);
    ok (exeid_mpi (path, &mpi, &e) < 0 && errno == ENOENT && strstr (e.text, path),
        "exeid_mpi of a missing file fails with ENOENT naming it");
    ok (exeid_compute (dir, id, sizeof (id), &e) < 0 && strstr (e.text, "not a regular file"),
        "exeid_compute refuses a directory: %s", e.text);

    in_dir (path, "fifo");
    if (mkfifo (path, 0600) == 0)
        ok (exeid_compute (path, id, sizeof (id), &e) < 0 &&
                strstr (e.text, "not a regular file") && exeid_mpi (path, &mpi, NULL) < 0,
            "a FIFO is refused without blocking on it");
    else
        ok (1, "# skip cannot make a FIFO: %s", strerror (errno));

    in_dir (path, "secret");
    write_str (path, "secret", 0000);
    if (geteuid () != 0)
        ok (exeid_compute (path, id, sizeof (id), &e) < 0 && errno == EACCES &&
                strstr (e.text, path),
            "an unreadable file fails with EACCES naming it: %s", e.text);
    else {
        /* Root reads anything: check as nobody, in a child, the directory
         * opened to it so that only the file's own mode is in the way.
         */
        pid_t pid;
        int status = -1;

        chmod (dir, 0755);
        if ((pid = fork ()) == 0) {
            if (setgroups (0, NULL) < 0 || setresgid (65534, 65534, 65534) < 0 ||
                setresuid (65534, 65534, 65534) < 0)
                _exit (2);
            _exit (exeid_compute (path, id, sizeof (id), NULL) < 0 && errno == EACCES ? 0 : 1);
        }
        if (pid > 0)
            waitpid (pid, &status, 0);
        chmod (dir, 0700);
        ok (pid > 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0,
            "an unreadable file fails with EACCES (checked as nobody)");
    }

    in_dir (path, "abc");
    errno = 0;
    ok (exeid_compute (path, id, 20, &e) < 0 && errno == ERANGE && strstr (e.text, "longer"),
        "a buffer too small for the identity fails with ERANGE: %s", e.text);
    ok (exeid_compute (path, NULL, 0, &e) < 0 && errno == EINVAL,
        "exeid_compute without a buffer fails with EINVAL");
    ok (exeid_compute (NULL, id, sizeof (id), &e) < 0 && errno == EINVAL &&
            exeid_compute ("", id, sizeof (id), NULL) < 0,
        "exeid_compute without a path fails with EINVAL");
    ok (exeid_mpi (path, NULL, &e) < 0 && errno == EINVAL,
        "exeid_mpi without a result pointer fails with EINVAL");
}

static void test_build_id (void)
{
    char hello[PATH_MAX], copy[PATH_MAX], moved[PATH_MAX], path[PATH_MAX];
    char id[EXEID_MAX + 1], id2[EXEID_MAX + 1], id3[EXEID_MAX + 1];
    tm_error_t e = {""};

    if (!have ("gcc")) {
        ok (1, "# skip gcc not found: no build-id checks");
        return;
    }
    in_dir (hello, "hello");
    /* 12 bytes: binutils 2.44 (Debian 13) writes a note of a length
     * that is no multiple of 4 unpadded, which readelf calls invalid too.
     */
    ok (compile ("hello", hello_c, "-Wl,--build-id=0x0123456789abcdef01234567", NULL, NULL) == 0,
        "gcc builds a program with a given build-id");
    ok (exeid_compute (hello, id, sizeof (id), &e) == 0 &&
            strcmp (id, "build-id:0123456789abcdef01234567") == 0,
        "exeid_compute gives the GNU build-id note of an ELF file: %s", id);

    ok (compile ("hello", hello_c, "-Wl,--build-id=sha1", NULL, NULL) == 0 &&
            exeid_compute (hello, id, sizeof (id), &e) == 0 && strncmp (id, "build-id:", 9) == 0 &&
            is_hex (id + 9, 40),
        "a sha1 build-id gives build-id and 40 hex digits: %s", id);

    in_dir (copy, "copy-of-hello");
    ok (copy_file (hello, copy) == 0 && exeid_compute (copy, id2, sizeof (id2), &e) == 0 &&
            strcmp (id, id2) == 0,
        "a copy of the program keeps its identity");
    in_dir (moved, "moved-hello");
    ok (rename (copy, moved) == 0 && exeid_compute (moved, id2, sizeof (id2), &e) == 0 &&
            strcmp (id, id2) == 0,
        "a moved program keeps its identity");
    if (have ("strip")) {
        const char *argv[] = {"strip", moved, NULL};
        ok (run (argv) == 0 && exeid_compute (moved, id2, sizeof (id2), &e) == 0 &&
                strcmp (id, id2) == 0,
            "a stripped copy keeps the identity");
    } else
        ok (1, "# skip strip not found");

    ok (drop_section_headers (moved) == 0 && exeid_compute (moved, id2, sizeof (id2), &e) == 0 &&
            strcmp (id, id2) == 0,
        "a copy without section headers gives the build-id from its PT_NOTE segment: %s", id2);

    ok (compile ("hello", hello_c, "-Wl,--build-id=sha1", NULL, NULL) == 0 &&
            exeid_compute (hello, id2, sizeof (id2), &e) == 0 && strcmp (id, id2) == 0,
        "rebuilding the same source the same way gives the same identity");
    ok (compile ("hello", other_c, "-Wl,--build-id=sha1", NULL, NULL) == 0 &&
            exeid_compute (hello, id2, sizeof (id2), &e) == 0 &&
            strncmp (id2, "build-id:", 9) == 0 && strcmp (id, id2) != 0,
        "rebuilding with changed code gives a new identity");

    ok (compile ("hello", hello_c, "-Wl,--build-id=none", NULL, NULL) == 0 &&
            exeid_compute (hello, id, sizeof (id), &e) == 0 && strncmp (id, "sha256:", 7) == 0,
        "a program linked without a build-id is identified by sha256: %s", id);
    in_dir (copy, "copy-of-nobid");
    ok (copy_file (hello, copy) == 0 && exeid_compute (copy, id2, sizeof (id2), &e) == 0 &&
            strcmp (id, id2) == 0,
        "a copy of a program without build-id keeps its identity");
    ok (compile ("hello", other_c, "-Wl,--build-id=none", NULL, NULL) == 0 &&
            exeid_compute (hello, id3, sizeof (id3), &e) == 0 && strcmp (id, id3) != 0,
        "rebuilding a program without build-id with changed code gives a new identity");

    in_dir (path, "short");
    ok (compile ("short", hello_c, "-Wl,--build-id=0x0102", NULL, NULL) == 0 &&
            exeid_compute (path, id, sizeof (id), &e) == 0 && strncmp (id, "sha256:", 7) == 0,
        "a build-id shorter than %d bytes is not trusted: %s", EXEID_BUILD_ID_MIN, id);
}

/* A program that links a stub library whose soname is soname. */
static int link_soname (const char *soname, exeid_mpi_t *mpi, tm_error_t *errp)
{
    char lib[PATH_MAX], src[PATH_MAX], exe[PATH_MAX], main_c[PATH_MAX], libarg[PATH_MAX + 16];
    const char *shared[] = {"gcc", "-shared", "-fPIC", "-o", lib, src, libarg, NULL};
    const char *link[] = {"gcc", "-o",    exe,      main_c, "-Wl,--no-as-needed",
                          "-L",  realdir, "-lfoo0", lib,    NULL};

    in_dir (lib, soname);
    in_dir (src, "stub.c");
    in_dir (exe, "linked");
    in_dir (main_c, "main.c");
    snprintf (libarg, sizeof (libarg), "-Wl,-soname,%s", soname);
    if (write_str (src, "int stub (void) { return 0; }\n", 0644) < 0 ||
        write_str (main_c, "int main (void) { return 0; }\n", 0644) < 0 || run (shared) < 0 ||
        run (link) < 0)
        return errprintf (errp, "cannot build a program linking %s", soname);
    return exeid_mpi (exe, mpi, errp);
}

static void test_mpi_rule (void)
{
    static const struct {
        const char *soname;
        exeid_mpi_t mpi;
    } t[] = {
        {"libmpi.so.40", EXEID_MPI_OPENMPI},
        {"libmpi.so.20", EXEID_MPI_OPENMPI},
        {"libmpi_mpifh.so.40", EXEID_MPI_OPENMPI},
        {"libmpi_usempif08.so.40", EXEID_MPI_OPENMPI},
        {"libmpi_usempi_ignore_tkr.so.40", EXEID_MPI_OPENMPI},
        {"libmpich.so.12", EXEID_MPI_MPICH},
        {"libmpichfort.so.12", EXEID_MPI_MPICH},
        {"libmpich_cray.so.12", EXEID_MPI_MPICH},
        {"libmpi.so.12", EXEID_MPI_MPICH},
        {"libmpifort.so.12", EXEID_MPI_MPICH},
        {"libmpi.so.1", EXEID_MPI_NONE},
        {"libmpi.so", EXEID_MPI_NONE},
        {"libmpix.so.40", EXEID_MPI_NONE},
        {"libmpifort.so.40", EXEID_MPI_NONE},
    };
    char lib[PATH_MAX], exe[PATH_MAX];
    const char *foo[] = {"gcc", "-shared", "-fPIC", "-o", lib, NULL, "-Wl,-soname,libfoo0.so.1",
                         NULL};
    char src[PATH_MAX];
    tm_error_t e = {""};
    exeid_mpi_t mpi;

    if (!have ("gcc")) {
        ok (1, "# skip gcc not found: no linking checks");
        return;
    }
    /* Every test program also links libfoo0.so.1 first: not MPI, passed over. */
    in_dir (lib, "libfoo0.so");
    in_dir (src, "foo.c");
    foo[5] = src;
    ok (write_str (src, "int foo (void) { return 0; }\n", 0644) == 0 && run (foo) == 0,
        "gcc builds a library that is not MPI");
    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        int rc = link_soname (t[i].soname, &mpi, &e);
        ok (rc == 0 && mpi == t[i].mpi, "a program that links %s is %s (%s)", t[i].soname,
            exeid_mpi_name (t[i].mpi), rc == 0 ? exeid_mpi_name (mpi) : e.text);
    }

    in_dir (exe, "linked");
    mpi = EXEID_MPI_NONE;
    if (link_soname ("libmpi.so.12", &mpi, &e) < 0 || drop_section_headers (exe) < 0)
        snprintf (e.text, sizeof (e.text), "cannot build it");
    else if (exeid_mpi (exe, &mpi, &e) == 0)
        snprintf (e.text, sizeof (e.text), "%s", exeid_mpi_name (mpi));
    ok (mpi == EXEID_MPI_MPICH,
        "a program without section headers is classified from its PT_DYNAMIC segment (%s)", e.text);

    in_dir (exe, "hello");
    ok (compile ("hello", hello_c, NULL, NULL, NULL) == 0 && exeid_mpi (exe, &mpi, &e) == 0 &&
            mpi == EXEID_MPI_NONE,
        "a program that links only libc is not MPI");
    in_dir (exe, "static");
    if (compile ("static", hello_c, "-static", NULL, NULL) == 0)
        ok (exeid_mpi (exe, &mpi, &e) == 0 && mpi == EXEID_MPI_NONE,
            "a statically linked program is not MPI");
    else
        ok (1, "# skip gcc cannot link statically");
}

static void test_mpi_real (const char *compiler, const char *lang, exeid_mpi_t want)
{
    static const char mpi_c[] = "#include <mpi.h>\n"
                                "int main (int argc, char **argv)\n"
                                "{ MPI_Init (&argc, &argv); MPI_Finalize (); return 0; }\n";
    static const char mpi_f90[] = "program hello\n"
                                  "use mpi_f08\n"
                                  "call MPI_Init ()\n"
                                  "call MPI_Finalize ()\n"
                                  "end program\n";
    char src[PATH_MAX], exe[PATH_MAX];
    const char *argv[] = {compiler, "-o", exe, src, NULL};
    tm_error_t e = {""};
    exeid_mpi_t mpi = EXEID_MPI_NONE;
    int rc = -1;

    if (!have (compiler)) {
        ok (1, "# skip %s not found", compiler);
        return;
    }
    in_dir (src, strcmp (lang, "c") == 0 ? "mpi.c" : "mpi.f90");
    in_dir (exe, "mpi");
    unlink (exe);
    if (write_str (src, strcmp (lang, "c") == 0 ? mpi_c : mpi_f90, 0644) == 0 && run (argv) == 0)
        rc = exeid_mpi (exe, &mpi, &e);
    else
        snprintf (e.text, sizeof (e.text), "%s failed", compiler);
    ok (rc == 0 && mpi == want, "a program built with %s is %s (%s)", compiler,
        exeid_mpi_name (want), rc == 0 ? exeid_mpi_name (mpi) : e.text);
}

static void test_mpi_misc (void)
{
    char path[PATH_MAX];
    tm_error_t e = {""};
    exeid_mpi_t mpi = EXEID_MPI_MPICH;

    in_dir (path, "script");
    ok (exeid_mpi (path, &mpi, &e) == 0 && mpi == EXEID_MPI_NONE, "a script is not MPI");
    in_dir (path, "elfish");
    mpi = EXEID_MPI_MPICH;
    ok (exeid_mpi (path, &mpi, &e) == 0 && mpi == EXEID_MPI_NONE,
        "a file with an ELF magic and no header is not MPI");
    ok (strcmp (exeid_mpi_name (EXEID_MPI_NONE), "none") == 0 &&
            strcmp (exeid_mpi_name (EXEID_MPI_OPENMPI), "openmpi") == 0 &&
            strcmp (exeid_mpi_name (EXEID_MPI_MPICH), "mpich") == 0 &&
            strcmp (exeid_mpi_name ((exeid_mpi_t)42), "unknown") == 0,
        "exeid_mpi_name names none, openmpi, mpich, and unknown for others");
}

/* Mutate a real ELF file many ways: every call must return cleanly. */
static void test_malformed (void)
{
    char path[PATH_MAX], id[EXEID_MAX + 1];
    unsigned char *buf;
    char *orig;
    size_t len;
    unsigned long seed = 12345;
    int bad = 0, built = 0, sha = 0;
    tm_error_t e;
    exeid_mpi_t mpi;

    in_dir (path, "hello");
    if (!have ("gcc") || compile ("hello", hello_c, "-Wl,--build-id=sha1", NULL, NULL) < 0 ||
        !(orig = read_file (path, &len))) {
        ok (1, "# skip no ELF file to mutate");
        return;
    }
    if (!(buf = malloc (len))) {
        free (orig);
        return;
    }
    in_dir (path, "mutant");

    /* Truncations. */
    for (size_t cut = 0; cut < len; cut += cut < 128 ? 1 : 97) {
        int rc1, rc2;

        if (write_file (path, orig, cut, 0755) < 0)
            break;
        rc1 = exeid_compute (path, id, sizeof (id), &e);
        rc2 = exeid_mpi (path, &mpi, &e);
        if (rc1 < 0 || (rc2 < 0 && !e.text[0]))
            bad++;
    }
    ok (bad == 0, "every truncation of an ELF file gives an identity and a clean MPI answer");

    /* Random bytes in the headers and note and dynamic areas. */
    bad = 0;
    for (int round = 0; round < 3000; round++) {
        int flips = 1 + round % 8;

        memcpy (buf, orig, len);
        for (int f = 0; f < flips; f++) {
            size_t at;

            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            at = (seed >> 33) % (round % 2 ? 1024 : len);
            buf[at] = (unsigned char)(seed >> 17);
        }
        if (write_file (path, buf, len, 0755) < 0)
            break;
        errclear (&e);
        if (exeid_compute (path, id, sizeof (id), &e) < 0)
            bad++;
        else if (strncmp (id, "build-id:", 9) == 0)
            built++;
        else
            sha++;
        errclear (&e);
        if (exeid_mpi (path, &mpi, &e) < 0 && !e.text[0])
            bad++;
    }
    ok (bad == 0,
        "3000 mutated ELF files never crash and always give an identity (%d by build-id, %d by "
        "sha256)",
        built, sha);
    free (buf);
    free (orig);
}

static void test_resolve (void)
{
    char path[PATH_MAX], out[PATH_MAX], want[PATH_MAX + 16], env[3 * PATH_MAX], cwd[PATH_MAX];
    tm_error_t e = {""};

    mkdir (in_dir (path, "a"), 0755);
    mkdir (in_dir (path, "b"), 0755);
    mkdir (in_dir (path, "c"), 0755);
    mkdir (in_dir (path, "c/tool"), 0755);
    write_str (in_dir (path, "a/tool"), "#!/bin/sh\n", 0644);
    write_str (in_dir (path, "b/tool"), "#!/bin/sh\n", 0755);
    write_str (in_dir (path, "here"), "#!/bin/sh\n", 0755);
    symlink ("b/tool", in_dir (path, "link"));
    snprintf (want, sizeof (want), "%s/b/tool", realdir);

    snprintf (env, sizeof (env), "%s/a:%s/c:%s/b", dir, dir, dir);
    ok (exeid_resolve ("tool", "/", env, out, sizeof (out), &e) == 0 && strcmp (out, want) == 0,
        "a command is found in PATH, passing over a file that is not executable and a directory: "
        "%s",
        out);
    ok (exeid_resolve ("tool", dir, "a:c:b", out, sizeof (out), &e) == 0 && strcmp (out, want) == 0,
        "relative PATH entries are taken from the working directory");
    snprintf (want, sizeof (want), "%s/here", realdir);
    ok (exeid_resolve ("here", dir, "/nonexistent::/usr/bin", out, sizeof (out), &e) == 0 &&
            strcmp (out, want) == 0,
        "an empty PATH entry is the working directory");
    ok (exeid_resolve ("here", dir, "/nonexistent:/usr/bin", out, sizeof (out), &e) < 0 &&
            errno == ENOENT && strstr (e.text, "here") && strstr (e.text, "not found"),
        "a command not in PATH fails with ENOENT naming it: %s", e.text);
    ok (exeid_resolve ("here", NULL, "/nonexistent", out, sizeof (out), &e) < 0 && errno == ENOENT,
        "the working directory is not searched unless PATH says so");

    snprintf (want, sizeof (want), "%s/b/tool", realdir);
    ok (exeid_resolve ("./b/tool", dir, "/nonexistent", out, sizeof (out), &e) == 0 &&
            strcmp (out, want) == 0,
        "a command with a slash is taken from the working directory, not PATH");
    in_dir (path, "b/tool");
    ok (exeid_resolve (path, "/", NULL, out, sizeof (out), &e) == 0 && strcmp (out, want) == 0,
        "an absolute command is itself");
    ok (exeid_resolve ("link", dir, dir, out, sizeof (out), &e) == 0 && strcmp (out, want) == 0,
        "a symbolic link is resolved to the file it names");
    ok (exeid_resolve ("./a/tool", dir, NULL, out, sizeof (out), &e) < 0 && errno == EACCES &&
            strstr (e.text, "./a/tool: not executable"),
        "a file that is not executable fails with EACCES: %s", e.text);
    ok (exeid_resolve ("./c/tool", dir, NULL, out, sizeof (out), &e) < 0 && errno == EACCES &&
            strstr (e.text, "not a regular file"),
        "a directory fails with EACCES: %s", e.text);
    ok (exeid_resolve ("./nosuch", dir, NULL, out, sizeof (out), &e) < 0 && errno == ENOENT &&
            strstr (e.text, "./nosuch"),
        "a missing file fails with ENOENT naming it: %s", e.text);

    ok (exeid_resolve ("sh", "/", NULL, out, sizeof (out), &e) == 0 && out[0] == '/',
        "without PATH the C library's default path is searched: sh is %s", out);
    ok (exeid_resolve ("tool", "relative", "b", out, sizeof (out), &e) < 0 && errno == EINVAL &&
            strstr (e.text, "not absolute"),
        "a relative working directory is refused: %s", e.text);
    ok (exeid_resolve ("", dir, NULL, out, sizeof (out), &e) < 0 && errno == ENOENT &&
            exeid_resolve (NULL, dir, NULL, out, sizeof (out), &e) < 0,
        "an empty command is not found");
    ok (exeid_resolve ("./b/tool", dir, NULL, out, 4, &e) < 0 && errno == ERANGE,
        "a buffer too small for the path fails with ERANGE: %s", e.text);

    if (getcwd (cwd, sizeof (cwd)) && chdir (dir) == 0) {
        ok (exeid_resolve ("./b/tool", NULL, NULL, out, sizeof (out), &e) == 0 &&
                strcmp (out, want) == 0,
            "cwd NULL means the working directory of the process");
        if (chdir (cwd) < 0)
            diag ("cannot go back to %s", cwd);
    } else
        ok (1, "# skip cannot change directory");
}

int main (void)
{

    plan (NO_PLAN);
    umask (022);
    if (scratch_dir ("exeid-test") < 0)
        return done_testing ();
    if (!realpath (dir, realdir)) {
        ok (0, "the temporary directory %s has a real path: %s", dir, strerror (errno));
        return done_testing ();
    }

    test_sha256 ();
    test_errors ();
    test_build_id ();
    test_mpi_rule ();
    test_mpi_real ("mpicc.openmpi", "c", EXEID_MPI_OPENMPI);
    test_mpi_real ("mpicc.mpich", "c", EXEID_MPI_MPICH);
    test_mpi_real ("mpif90.openmpi", "f90", EXEID_MPI_OPENMPI);
    test_mpi_real ("mpif90.mpich", "f90", EXEID_MPI_MPICH);
    test_mpi_misc ();
    test_malformed ();
    test_resolve ();

    remove_tree (dir);
    return done_testing ();
}
