/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exeid.c: executable identity and MPI flavour, read with elfutils' libelf,
 * hashed with nettle.  See exeid.h.
 *
 * Files are opened without blocking (a FIFO is refused, not waited on) and
 * read with ELF_C_READ: libelf then reads what it needs with pread instead
 * of mapping the file, so a file truncated under us gives an error rather
 * than SIGBUS.  Everything libelf hands back is bounds-checked by it
 * (gelf_getnote, elf_strptr, elf_getdata_rawchunk); what we compute from
 * raw dynamic entries ourselves is checked here.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "lib/exeid.h"

#define EXEID_BLOCK (64 * 1024)

static void exeid_hex (const unsigned char *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 0xf];
    }
    out[2 * n] = '\0';
}

/* close(), keeping errno. */
static void exeid_close (int fd)
{
    int saved = errno;

    if (fd >= 0)
        close (fd);
    errno = saved;
}

/* An open descriptor on the regular file path. */
static int exeid_open (const char *path, tm_error_t *errp)
{
    struct stat st;
    int fd;

    if (!path || path[0] == '\0') {
        errno = EINVAL;
        return errprintf (errp, "exeid: no path");
    }
    if ((fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
        return errprintf (errp, "%s: %s", errsafe (path, PATH_MAX), strerror (errno));
    if (fstat (fd, &st) < 0) {
        errprintf (errp, "%s: %s", errsafe (path, PATH_MAX), strerror (errno));
        goto error;
    }
    if (!S_ISREG (st.st_mode)) {
        errno = EINVAL;
        errprintf (errp, "%s: not a regular file", errsafe (path, PATH_MAX));
        goto error;
    }
    return fd;
error:
    exeid_close (fd);
    return -1;
}

/* The ELF descriptor of fd; NULL when the file is not an ELF object (a
 * script, an archive) or libelf cannot read its header, NULL with *failed
 * set and errp filled when libelf itself is unusable.
 */
static Elf *exeid_elf (int fd, const char *path, tm_error_t *errp, int *failed)
{
    Elf *elf;

    *failed = 0;
    if (elf_version (EV_CURRENT) == EV_NONE) {
        *failed = 1;
        errno = ENOSYS;
        errprintf (errp, "%s: libelf: %s", errsafe (path, PATH_MAX), elf_errmsg (-1));
        return NULL;
    }
    if (!(elf = elf_begin (fd, ELF_C_READ, NULL)))
        return NULL;
    if (elf_kind (elf) != ELF_K_ELF) {
        elf_end (elf);
        return NULL;
    }
    return elf;
}

/* The GNU build-id in the notes of data, into id (EXEID_BUILD_ID_MAX
 * bytes), its length in *n.  Notes of an untrusted length are passed over.
 */
static bool exeid_note_build_id (Elf_Data *data, unsigned char *id, size_t *n)
{
    GElf_Nhdr nh;
    size_t offset = 0, next, name_off, desc_off;

    if (!data || !data->d_buf || (data->d_type != ELF_T_NHDR && data->d_type != ELF_T_NHDR8))
        return false;
    while (offset < data->d_size &&
           (next = gelf_getnote (data, offset, &nh, &name_off, &desc_off)) > offset) {
        const char *name = (const char *)data->d_buf + name_off;

        offset = next;
        if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != sizeof (ELF_NOTE_GNU) ||
            memcmp (name, ELF_NOTE_GNU, sizeof (ELF_NOTE_GNU)) != 0)
            continue;
        if (nh.n_descsz < EXEID_BUILD_ID_MIN || nh.n_descsz > EXEID_BUILD_ID_MAX)
            continue;
        memcpy (id, (const char *)data->d_buf + desc_off, nh.n_descsz);
        *n = nh.n_descsz;
        return true;
    }
    return false;
}

/* The build-id of elf from its note sections, else its note segments. */
static bool exeid_build_id (Elf *elf, unsigned char *id, size_t *n)
{
    Elf_Scn *scn = NULL;
    size_t phnum;

    while ((scn = elf_nextscn (elf, scn))) {
        GElf_Shdr sh;

        if (!gelf_getshdr (scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        if (exeid_note_build_id (elf_getdata (scn, NULL), id, n))
            return true;
    }
    if (elf_getphdrnum (elf, &phnum) < 0)
        return false;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        Elf_Data *data;

        if (!gelf_getphdr (elf, (int)i, &ph) || ph.p_type != PT_NOTE || ph.p_filesz == 0)
            continue;
        if (ph.p_offset > INT64_MAX || ph.p_filesz > SIZE_MAX)
            continue;
        data = elf_getdata_rawchunk (elf, (int64_t)ph.p_offset, (size_t)ph.p_filesz,
                                     ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
        if (exeid_note_build_id (data, id, n))
            return true;
    }
    return false;
}

/* The SHA-256 of the whole of fd, in hex, into out (65 bytes). */
static int exeid_sha256 (int fd, const char *path, char *out, tm_error_t *errp)
{
    struct sha256_ctx ctx;
    uint8_t digest[SHA256_DIGEST_SIZE];
    unsigned char *buf;
    off_t offset = 0;

    if (!(buf = malloc (EXEID_BLOCK))) {
        errno = ENOMEM;
        return errprintf (errp, "%s: out of memory", errsafe (path, PATH_MAX));
    }
    sha256_init (&ctx);
    for (;;) {
        ssize_t r = pread (fd, buf, EXEID_BLOCK, offset);

        if (r < 0) {
            if (errno == EINTR)
                continue;
            errprintf (errp, "%s: %s", errsafe (path, PATH_MAX), strerror (errno));
            free (buf);
            return -1;
        }
        if (r == 0)
            break;
        sha256_update (&ctx, (size_t)r, buf);
        offset += r;
    }
    free (buf);
    sha256_digest (&ctx, sizeof (digest), digest);
    exeid_hex (digest, sizeof (digest), out);
    return 0;
}

int exeid_compute (const char *path, char *id, size_t len, tm_error_t *errp)
{
    unsigned char bid[EXEID_BUILD_ID_MAX];
    char text[EXEID_MAX + 1];
    size_t n = 0;
    bool found = false;
    Elf *elf;
    int fd, failed, rc = -1;

    if (!id || len == 0) {
        errno = EINVAL;
        return errprintf (errp, "exeid_compute: no buffer for the identity");
    }
    id[0] = '\0';
    if ((fd = exeid_open (path, errp)) < 0)
        return -1;
    elf = exeid_elf (fd, path, errp, &failed);
    if (failed)
        goto out;
    if (elf) {
        found = exeid_build_id (elf, bid, &n);
        elf_end (elf);
    }
    if (found) {
        memcpy (text, "build-id:", sizeof ("build-id:"));
        exeid_hex (bid, n, text + sizeof ("build-id:") - 1);
    } else {
        memcpy (text, "sha256:", sizeof ("sha256:"));
        if (exeid_sha256 (fd, path, text + sizeof ("sha256:") - 1, errp) < 0)
            goto out;
    }
    if (strlen (text) >= len) {
        errno = ERANGE;
        errprintf (errp, "%s: identity longer than %zu bytes", errsafe (path, PATH_MAX), len - 1);
        goto out;
    }
    memcpy (id, text, strlen (text) + 1);
    rc = 0;
out:
    exeid_close (fd);
    return rc;
}

/* The MPI library that the DT_NEEDED name soname stands for. */
static exeid_mpi_t exeid_classify (const char *soname)
{
    static const char *const ompi_only[] = {
        "libmpi_mpifh",
        "libmpi_usempif08",
        "libmpi_usempi_ignore_tkr",
        "libmpi_usempi",
        "libmpi_cxx",
        "libmpi_java",
        NULL,
    };
    static const char *const mpich[] = {
        "libmpich", "libmpichfort", "libmpichcxx", "libmpichf90", NULL,
    };
    const char *base = strrchr (soname, '/');
    const char *so;
    char name[64];
    long major = -1;
    size_t blen;

    base = base ? base + 1 : soname;
    if (!(so = strstr (base, ".so")) || (so[3] != '\0' && so[3] != '.'))
        return EXEID_MPI_NONE;
    blen = (size_t)(so - base);
    if (blen == 0 || blen >= sizeof (name))
        return EXEID_MPI_NONE;
    memcpy (name, base, blen);
    name[blen] = '\0';
    if (so[3] == '.') {
        const char *d = so + 4;

        for (major = 0; *d >= '0' && *d <= '9' && major < 100000; d++)
            major = major * 10 + (*d - '0');
        if (d == so + 4 || (*d != '\0' && *d != '.'))
            major = -1;
    }
    for (int i = 0; ompi_only[i]; i++)
        if (strcmp (name, ompi_only[i]) == 0)
            return EXEID_MPI_OPENMPI;
    for (int i = 0; mpich[i]; i++)
        if (strcmp (name, mpich[i]) == 0)
            return EXEID_MPI_MPICH;
    if (strncmp (name, "libmpich_", 9) == 0)
        return EXEID_MPI_MPICH;
    if (strcmp (name, "libmpi") == 0 && (major == 20 || major == 40))
        return EXEID_MPI_OPENMPI;
    if ((strcmp (name, "libmpi") == 0 || strcmp (name, "libmpifort") == 0 ||
         strcmp (name, "libmpicxx") == 0) &&
        major == 12)
        return EXEID_MPI_MPICH;
    return EXEID_MPI_NONE;
}

/* The DT_NEEDED entries of the dynamic section scn, through its string
 * table; the first that names an MPI library sets *mpi.
 */
static int exeid_needed_scn (Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, exeid_mpi_t *mpi)
{
    Elf_Data *data = elf_getdata (scn, NULL);
    size_t size = gelf_fsize (elf, ELF_T_DYN, 1, EV_CURRENT);

    if (!data || size == 0)
        return -1;
    for (size_t i = 0; i < data->d_size / size; i++) {
        GElf_Dyn dyn;
        const char *name;

        if (i > INT_MAX || !gelf_getdyn (data, (int)i, &dyn))
            return -1;
        if (dyn.d_tag == DT_NULL)
            break;
        if (dyn.d_tag != DT_NEEDED)
            continue;
        if (!(name = elf_strptr (elf, sh->sh_link, dyn.d_un.d_val)))
            return -1;
        if ((*mpi = exeid_classify (name)) != EXEID_MPI_NONE)
            return 0;
    }
    return 0;
}

/* The file offset of virtual address addr, through the PT_LOAD segments. */
static bool exeid_vaddr_offset (Elf *elf, size_t phnum, GElf_Addr addr, GElf_Off *off)
{
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;

        if (!gelf_getphdr (elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (addr >= ph.p_vaddr && addr - ph.p_vaddr < ph.p_filesz) {
            *off = ph.p_offset + (addr - ph.p_vaddr);
            return *off >= ph.p_offset;
        }
    }
    return false;
}

/* The DT_NEEDED entries of the PT_DYNAMIC segment, for a file without
 * section headers: the string table is found through DT_STRTAB, an
 * address, and DT_STRSZ.
 */
static int exeid_needed_phdr (Elf *elf, exeid_mpi_t *mpi)
{
    size_t phnum, size = gelf_fsize (elf, ELF_T_DYN, 1, EV_CURRENT);
    GElf_Addr strtab = 0;
    GElf_Xword strsz = 0;
    GElf_Off stroff;
    Elf_Data *dyn = NULL, *str;
    size_t ndyn = 0;

    if (size == 0 || elf_getphdrnum (elf, &phnum) < 0)
        return -1;
    for (size_t i = 0; i < phnum && i <= INT_MAX; i++) {
        GElf_Phdr ph;

        if (!gelf_getphdr (elf, (int)i, &ph) || ph.p_type != PT_DYNAMIC)
            continue;
        if (ph.p_offset > INT64_MAX || ph.p_filesz > SIZE_MAX)
            return -1;
        if (!(dyn =
                  elf_getdata_rawchunk (elf, (int64_t)ph.p_offset, (size_t)ph.p_filesz, ELF_T_DYN)))
            return -1;
        break;
    }
    if (!dyn)
        return 0; /* statically linked */
    ndyn = dyn->d_size / size;
    for (size_t i = 0; i < ndyn && i <= INT_MAX; i++) {
        GElf_Dyn d;

        if (!gelf_getdyn (dyn, (int)i, &d))
            return -1;
        if (d.d_tag == DT_NULL)
            break;
        if (d.d_tag == DT_STRTAB)
            strtab = d.d_un.d_ptr;
        else if (d.d_tag == DT_STRSZ)
            strsz = d.d_un.d_val;
    }
    if (strsz == 0 || strsz > SIZE_MAX || !exeid_vaddr_offset (elf, phnum, strtab, &stroff) ||
        stroff > INT64_MAX)
        return -1;
    if (!(str = elf_getdata_rawchunk (elf, (int64_t)stroff, (size_t)strsz, ELF_T_BYTE)))
        return -1;
    for (size_t i = 0; i < ndyn && i <= INT_MAX; i++) {
        GElf_Dyn d;
        const char *name;

        if (!gelf_getdyn (dyn, (int)i, &d))
            return -1;
        if (d.d_tag == DT_NULL)
            break;
        if (d.d_tag != DT_NEEDED)
            continue;
        if (d.d_un.d_val >= str->d_size)
            return -1;
        name = (const char *)str->d_buf + d.d_un.d_val;
        if (!memchr (name, '\0', str->d_size - d.d_un.d_val))
            return -1;
        if ((*mpi = exeid_classify (name)) != EXEID_MPI_NONE)
            return 0;
    }
    return 0;
}

int exeid_mpi (const char *path, exeid_mpi_t *mpi, tm_error_t *errp)
{
    Elf_Scn *scn = NULL;
    Elf *elf;
    size_t shnum;
    bool sections = false;
    int fd, failed, elf_err, rc = -1;

    if (!mpi) {
        errno = EINVAL;
        return errprintf (errp, "exeid_mpi: no result pointer");
    }
    *mpi = EXEID_MPI_NONE;
    if ((fd = exeid_open (path, errp)) < 0)
        return -1;
    if (!(elf = exeid_elf (fd, path, errp, &failed))) {
        rc = failed ? -1 : 0;
        goto out;
    }
    if (elf_getshdrnum (elf, &shnum) < 0)
        goto malformed;
    while ((scn = elf_nextscn (elf, scn))) {
        GElf_Shdr sh;

        if (!gelf_getshdr (scn, &sh))
            goto malformed;
        if (sh.sh_type != SHT_DYNAMIC)
            continue;
        sections = true;
        if (exeid_needed_scn (elf, scn, &sh, mpi) < 0)
            goto malformed;
        if (*mpi != EXEID_MPI_NONE)
            break;
    }
    if (!sections && exeid_needed_phdr (elf, mpi) < 0)
        goto malformed;
    rc = 0;
    goto out;
malformed:
    *mpi = EXEID_MPI_NONE;
    elf_err = elf_errno ();
    errno = ENOEXEC;
    errprintf (errp, "%s: cannot read the dynamic section: %s", errsafe (path, PATH_MAX),
               elf_err ? elf_errmsg (elf_err) : "malformed entries");
out:
    elf_err = errno;
    elf_end (elf);
    errno = elf_err;
    exeid_close (fd);
    return rc;
}

const char *exeid_mpi_name (exeid_mpi_t mpi)
{
    switch (mpi) {
    case EXEID_MPI_NONE:
        return "none";
    case EXEID_MPI_OPENMPI:
        return "openmpi";
    case EXEID_MPI_MPICH:
        return "mpich";
    }
    return "unknown";
}

/* dir/name into buf (PATH_MAX bytes), false when too long. */
static bool exeid_join (char *buf, const char *dir, size_t dlen, const char *name)
{
    int n;

    while (dlen > 1 && dir[dlen - 1] == '/')
        dlen--;
    if (dlen >= PATH_MAX)
        return false;
    n = snprintf (buf, PATH_MAX, "%.*s/%s", (int)dlen, dir, name);
    return n > 0 && n < PATH_MAX;
}

static bool exeid_runnable (const char *path)
{
    struct stat st;

    return stat (path, &st) == 0 && S_ISREG (st.st_mode) && access (path, X_OK) == 0;
}

/* The first executable regular file dir/cmd for the entries of path_env
 * into cand (PATH_MAX bytes); relative and empty entries are taken from
 * cwd, skipped when cwd is NULL.
 */
static bool exeid_search (const char *cmd, const char *cwd, const char *path_env, char *cand)
{
    char dir[PATH_MAX];
    const char *p = path_env, *end;

    for (;; p = end + 1) {
        size_t elen;

        if (!(end = strchr (p, ':')))
            end = p + strlen (p);
        elen = (size_t)(end - p);
        if (elen > 0 && p[0] == '/') {
            if (exeid_join (cand, p, elen, cmd) && exeid_runnable (cand))
                return true;
        } else if (cwd && elen < PATH_MAX) {
            int n = elen == 0 ? snprintf (dir, sizeof (dir), "%s", cwd)
                              : snprintf (dir, sizeof (dir), "%s/%.*s", cwd, (int)elen, p);

            if (n > 0 && n < (int)sizeof (dir) && exeid_join (cand, dir, strlen (dir), cmd) &&
                exeid_runnable (cand))
                return true;
        }
        if (*end == '\0')
            return false;
    }
}

int exeid_resolve (const char *cmd, const char *cwd, const char *path_env, char *out, size_t len,
                   tm_error_t *errp)
{
    char here[PATH_MAX], cand[PATH_MAX];
    char *defpath = NULL, *real = NULL;
    int rc = -1;

    if (!out || len == 0) {
        errno = EINVAL;
        return errprintf (errp, "exeid_resolve: no buffer for the path");
    }
    out[0] = '\0';
    if (!cmd || cmd[0] == '\0') {
        errno = ENOENT;
        return errprintf (errp, "exeid_resolve: no command");
    }
    if (strlen (cmd) >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return errprintf (errp, "%s: %s", errsafe (cmd, PATH_MAX), strerror (errno));
    }
    if (cwd && cwd[0] != '/') {
        errno = EINVAL;
        return errprintf (errp, "%s: working directory '%s' is not absolute",
                          errsafe (cmd, PATH_MAX), errsafe (cwd, PATH_MAX));
    }
    /* Our own working directory only when needed: it may be gone. */
    if (!cwd && cmd[0] != '/') {
        if (getcwd (here, sizeof (here)))
            cwd = here;
        else if (strchr (cmd, '/'))
            return errprintf (errp, "%s: working directory: %s", errsafe (cmd, PATH_MAX),
                              strerror (errno));
    }

    if (strchr (cmd, '/')) {
        struct stat st;

        if (cmd[0] == '/')
            snprintf (cand, sizeof (cand), "%s", cmd);
        else if (!exeid_join (cand, cwd, strlen (cwd), cmd)) {
            errno = ENAMETOOLONG;
            return errprintf (errp, "%s: %s", errsafe (cmd, PATH_MAX), strerror (errno));
        }
        if (stat (cand, &st) < 0)
            return errprintf (errp, "%s: %s", errsafe (cmd, PATH_MAX), strerror (errno));
        if (!S_ISREG (st.st_mode)) {
            errno = EACCES;
            return errprintf (errp, "%s: not a regular file", errsafe (cmd, PATH_MAX));
        }
        if (access (cand, X_OK) < 0) {
            errno = EACCES;
            return errprintf (errp, "%s: not executable", errsafe (cmd, PATH_MAX));
        }
    } else {
        if (!path_env) {
            size_t n = confstr (_CS_PATH, NULL, 0);

            if (n == 0 || !(defpath = malloc (n))) {
                errno = ENOMEM;
                return errprintf (errp, "%s: out of memory", errsafe (cmd, PATH_MAX));
            }
            confstr (_CS_PATH, defpath, n);
            path_env = defpath;
        }
        if (!exeid_search (cmd, cwd, path_env, cand)) {
            errno = ENOENT;
            errprintf (errp, "%s: command not found in PATH", errsafe (cmd, PATH_MAX));
            goto out;
        }
    }
    if (!(real = realpath (cand, NULL))) {
        errprintf (errp, "%s: %s", errsafe (cmd, PATH_MAX), strerror (errno));
        goto out;
    }
    if (strlen (real) >= len) {
        errno = ERANGE;
        errprintf (errp, "%s: resolved path longer than %zu bytes", errsafe (cmd, PATH_MAX),
                   len - 1);
        goto out;
    }
    memcpy (out, real, strlen (real) + 1);
    rc = 0;
out:
    free (real);
    free (defpath);
    return rc;
}
