/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile_io.c: profiles in foreign formats (`topomap profile import`,
 * `export`) and for people (`topomap profile show`).
 *
 * Matrix (CSV, CloudMap) and TreeMatch .mat: n lines of n counts, the
 * bytes row rank sent to column rank, separated by commas and/or white
 * space (one comma at most between two counts); blank lines and lines
 * whose first non-blank character is '#' are skipped.  The first row sets
 * n; every row must have n counts and there must be n rows.  Counts are
 * non-negative whole numbers, written as integers or as decimals that are
 * whole ("1.0e6", "2048.0"), below 2^64.  A matrix gives bytes only: each
 * nonzero entry counts as one message.
 *
 * Open MPI monitoring: see io_ompi_line() for the lines and which are
 * taken.
 *
 * Auto: Open MPI's when the first line with something to read is one of
 * its lines (or "# POINT TO POINT"), else a matrix.  Files are read whole,
 * at most 512 MiB, a leading UTF-8 byte order mark skipped; at most 2^20
 * ranks.  Errors name the file and line, and the column or field.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/file.h"
#include "lib/jsonfile.h"
#include "lib/profile.h"

#define IO_MAX_BYTES ((size_t)512 * 1024 * 1024)
#define IO_MAX_TASKS (1 << 20)

int profile_format_parse (const char *name, profile_format_t *fmt)
{
    static const struct {
        const char *name;
        profile_format_t fmt;
    } names[] = {
        {"auto", PROFILE_FMT_AUTO},
        {"json", PROFILE_FMT_JSON},
        {"matrix", PROFILE_FMT_MATRIX},
        {"csv", PROFILE_FMT_MATRIX},
        {"mat", PROFILE_FMT_MAT},
        {"ompi", PROFILE_FMT_OMPI},
        {"ompi-monitoring", PROFILE_FMT_OMPI},
    };

    for (size_t i = 0; name && i < sizeof (names) / sizeof (names[0]); i++)
        if (strcmp (name, names[i].name) == 0) {
            if (fmt)
                *fmt = names[i].fmt;
            return 0;
        }
    errno = EINVAL;
    return -1;
}

/* Reading lines */

typedef struct {
    const char *buf;
    size_t len;
    size_t pos;
    int line; /* number of the line last returned, from 1 */
} io_lines_t;

/* The next line of l in *sp, *np without its "\n" or "\r\n"; false at
 * the end.
 */
static bool io_next_line (io_lines_t *l, const char **sp, size_t *np)
{
    const char *s, *nl;
    size_t n;

    if (l->pos >= l->len)
        return false;
    s = l->buf + l->pos;
    nl = memchr (s, '\n', l->len - l->pos);
    n = nl ? (size_t)(nl - s) : l->len - l->pos;
    l->pos += n + (nl ? 1 : 0);
    l->line++;
    if (n > 0 && s[n - 1] == '\r')
        n--;
    *sp = s;
    *np = n;
    return true;
}

static bool io_blank (char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* True for a line with nothing to read: blank, or a '#' comment. */
static bool io_skip_line (const char *s, size_t n)
{
    size_t i = 0;

    while (i < n && io_blank (s[i]))
        i++;
    return i == n || s[i] == '#';
}

/* Up to 40 bytes of s[0..n) for a message, tabs as spaces, other
 * unprintable bytes as '?'.
 */
static const char *io_quote (const char *s, size_t n, char *buf, size_t size)
{
    size_t k = 0;

    for (size_t i = 0; i < n && k + 4 < size; i++) {
        if (i == 40) {
            memcpy (buf + k, "...", 3);
            k += 3;
            break;
        }
        if (s[i] == '\t')
            buf[k++] = ' ';
        else
            buf[k++] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
    }
    buf[k] = '\0';
    return buf;
}

/* Triplets as they are read */

typedef struct {
    profile_entry_t *v;
    size_t n;
    size_t cap;
} io_trips_t;

static int io_trips_add (io_trips_t *t, int src, int dst, uint64_t msgs, uint64_t bytes)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        profile_entry_t *v;

        if (cap < t->cap || cap > SIZE_MAX / sizeof (*v) ||
            !(v = realloc (t->v, cap * sizeof (*v)))) {
            errno = ENOMEM;
            return -1;
        }
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = (profile_entry_t){.src = src, .dst = dst, .msgs = msgs, .bytes = bytes};
    return 0;
}

/* Numbers */

static bool io_digit (char c)
{
    return c >= '0' && c <= '9';
}

/* The count written in s[0..n): decimal digits with an optional fraction
 * and exponent, whole, >= 0 and below 2^64.  Exact (no floating point,
 * so 2^64-1 and 1.5e3 read right) and the same in every locale.  NULL on
 * success, else what is wrong.
 */
static const char *io_count (const char *s, size_t n, uint64_t *xp)
{
    size_t i = 0, int0, nint, frac0 = 0, nfrac = 0, ndigits, first, keep;
    long long exp = 0, e10;
    uint64_t x = 0;

    if (i < n && s[i] == '-')
        return "negative";
    if (i < n && s[i] == '+')
        i++;
    for (int0 = i; i < n && io_digit (s[i]); i++)
        ;
    nint = i - int0;
    if (i < n && s[i] == '.') {
        for (frac0 = ++i; i < n && io_digit (s[i]); i++)
            ;
        nfrac = i - frac0;
    }
    if (nint + nfrac == 0)
        return "not a number";
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        bool neg = false;
        size_t e0;

        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            neg = s[i++] == '-';
        for (e0 = i; i < n && io_digit (s[i]); i++)
            if (exp < 1000000000)
                exp = exp * 10 + (s[i] - '0');
        if (i == e0)
            return "not a number";
        if (neg)
            exp = -exp;
    }
    if (i < n)
        return "not a number";
        /* The digits d of integer and fraction part, value d * 10^e10. */
#define IO_DIGIT(k) ((k) < nint ? s[int0 + (k)] : s[frac0 + (k)-nint])
    ndigits = nint + nfrac;
    e10 = exp - (long long)nfrac;
    for (first = 0; first < ndigits && IO_DIGIT (first) == '0'; first++)
        ;
    keep = ndigits;
    if (first < ndigits && e10 < 0) {
        /* Whole only when the last -e10 digits are zeros. */
        if ((unsigned long long)-e10 >= ndigits - first)
            return "not a whole number";
        keep = ndigits - (size_t)-e10;
        for (size_t k = keep; k < ndigits; k++)
            if (IO_DIGIT (k) != '0')
                return "not a whole number";
    }
    for (size_t k = first; k < keep; k++) {
        unsigned d = (unsigned)(IO_DIGIT (k) - '0');

        if (x > (UINT64_MAX - d) / 10)
            return "too large, 2^64 or more";
        x = x * 10 + d;
    }
#undef IO_DIGIT
    for (long long k = 0; x > 0 && k < e10; k++) {
        if (x > UINT64_MAX / 10)
            return "too large, 2^64 or more";
        x *= 10;
    }
    *xp = x;
    return NULL;
}

/* Matrices */

static bool io_sep (char c)
{
    return io_blank (c) || c == ',';
}

static profile_t *io_matrix (const char *path, const char *buf, size_t len, tm_error_t *errp)
{
    io_lines_t l = {.buf = buf, .len = len};
    io_trips_t t = {0};
    profile_t *p = NULL;
    const char *s;
    size_t n;
    char q[48];
    int cols = -1, rows = 0;
    tm_error_t e;

    while (io_next_line (&l, &s, &n)) {
        size_t i = 0;
        int col = 0;

        if (io_skip_line (s, n))
            continue;
        if (cols >= 0 && rows == cols) {
            errprintf (errp, "%s:%d: row %d, but rows have %d columns: the matrix must be square",
                       path, l.line, rows + 1, cols);
            goto einval;
        }
        while (i < n && io_blank (s[i]))
            i++;
        while (i < n) {
            size_t t0 = i;
            const char *fault;
            uint64_t x;

            if (s[i] == ',') {
                errprintf (errp, "%s:%d: column %d: empty field", path, l.line, col + 1);
                goto einval;
            }
            while (i < n && !io_sep (s[i]))
                i++;
            if ((fault = io_count (s + t0, i - t0, &x))) {
                errprintf (errp, "%s:%d: column %d: '%s': %s", path, l.line, col + 1,
                           io_quote (s + t0, i - t0, q, sizeof (q)), fault);
                goto einval;
            }
            if (col >= IO_MAX_TASKS) {
                errprintf (errp, "%s:%d: more than %d columns", path, l.line, IO_MAX_TASKS);
                goto einval;
            }
            if (x > 0 && io_trips_add (&t, rows, col, 1, x) < 0) {
                errprintf (errp, "%s: out of memory", path);
                goto error;
            }
            col++;
            /* A separator: blanks with at most one comma among them. */
            while (i < n && io_blank (s[i]))
                i++;
            if (i < n && s[i] == ',') {
                i++;
                while (i < n && io_blank (s[i]))
                    i++;
                if (i == n) {
                    errprintf (errp, "%s:%d: column %d: empty field after the last comma", path,
                               l.line, col + 1);
                    goto einval;
                }
            }
        }
        if (cols < 0)
            cols = col;
        else if (col != cols) {
            errprintf (errp, "%s:%d: row %d has %d columns, expected %d like the first row", path,
                       l.line, rows + 1, col, cols);
            goto einval;
        }
        rows++;
    }
    if (cols < 0) {
        errprintf (errp, "%s: no matrix rows: empty, or only blank and comment lines", path);
        goto einval;
    }
    if (rows != cols) {
        errprintf (errp, "%s: %d rows of %d columns: the matrix must be square", path, rows, cols);
        goto einval;
    }
    if (!(p = profile_create (cols, t.n, t.v, &e))) {
        errprintf (errp, "%s: %s", path, e.text);
        goto error;
    }
    free (t.v);
    return p;
einval:
    errno = EINVAL;
error:
    free (t.v);
    return NULL;
}

/* Open MPI monitoring */

#define IO_MAX_FIELDS 10

typedef struct {
    const char *s;
    size_t n;
} io_field_t;

/* Split s[0..n) at runs of blanks into at most max fields; max + 1 when
 * there are more.
 */
static int io_split (const char *s, size_t n, io_field_t *f, int max)
{
    int nf = 0;
    size_t i = 0;

    for (;;) {
        size_t start;

        while (i < n && io_blank (s[i]))
            i++;
        if (i == n)
            return nf;
        start = i;
        if (nf == max)
            return max + 1;
        while (i < n && !io_blank (s[i]))
            i++;
        f[nf].s = s + start;
        f[nf].n = i - start;
        nf++;
    }
}

static bool io_is (io_field_t f, const char *word)
{
    return f.n == strlen (word) && memcmp (f.s, word, f.n) == 0;
}

/* f as a decimal integer <= max, digits only; NULL or what is wrong. */
static const char *io_uint (io_field_t f, uint64_t max, uint64_t *xp)
{
    uint64_t x = 0;

    if (f.n == 0)
        return "not a number";
    for (size_t i = 0; i < f.n; i++) {
        unsigned d;

        if (!io_digit (f.s[i]))
            return "not a non-negative integer";
        d = (unsigned)(f.s[i] - '0');
        if (x > (max - d) / 10)
            return "too large";
        x = x * 10 + d;
    }
    *xp = x;
    return NULL;
}

/* The monitoring output of Open MPI 3.0 and later, written by
 * ompi/mca/common/monitoring/common_monitoring.c and
 * common_monitoring_coll.c at MPI_Finalize (pml_monitoring_enable_output)
 * or to <filename>.<rank>.prof, one file per rank:
 *
 *   # POINT TO POINT
 *   E <tab> sender <tab> receiver <tab> N bytes <tab> M msgs sent <tab> histogram
 *   I <tab> sender <tab> receiver <tab> N bytes <tab> M msgs sent [<tab> histogram]
 *   # OSC
 *   S <tab> sender <tab> peer <tab> N bytes <tab> M msgs sent
 *   R <tab> receiver <tab> peer <tab> N bytes <tab> M msgs sent
 *   # COLLECTIVES
 *   C <tab> sender <tab> receiver <tab> N bytes <tab> M msgs sent
 *   D <tab> communicator name <tab> procs: world ranks
 *   O2A|A2O|A2A <tab> rank <tab> N bytes <tab> M msgs sent
 *
 * E   messages through the PML with tags >= 0: the application's own
 *     point-to-point.  With pml_monitoring_enable=1 (no filtering) every
 *     PML message, collectives' too, is counted under E.  The histogram
 *     is 66 comma-separated counts of messages by log2 size.
 * I   messages through the PML with tags < 0 (pml_monitoring_enable=2):
 *     the point-to-point traffic that collectives and protocols are
 *     built on in this run, by the algorithms the coll component chose.
 * S/R one-sided data sent to and received from peer.
 * C   collective data attributed to the peer by the coll layer, the
 *     same traffic as I seen from above.
 * D and O2A/A2O/A2A  per communicator collective totals, not pairs.
 *
 * Only E lines are taken: a profile is user point-to-point traffic
 * (profile.h), which is E.  I would add collectives decomposed by one
 * run's algorithms and C would count them a second time; one-sided
 * traffic is not point-to-point.  So the profile says collectives: no
 * (unless the run did not filter, which the output does not tell).  All
 * other lines are still checked, and their ranks count: ntasks is 1 +
 * the highest rank on any line, as the output has no world size.  Every
 * E line of a pair is summed, so phases and per-rank files may be
 * concatenated.  Development versions before 3.0 wrote I and E the other
 * way round; their output would import collectives only.
 *
 * Returns 1 for a line that was taken or checked, or -1 with the fault.
 */
static int io_ompi_line (const char *s, size_t n, io_trips_t *t, int *maxrank, const char **fault,
                         char *what, size_t size)
{
    static const char *const pairs[] = {"E", "I", "S", "R", "C"};
    static const char *const colls[] = {"O2A", "A2O", "A2A"};
    io_field_t f[IO_MAX_FIELDS];
    int nf = io_split (s, n, f, IO_MAX_FIELDS);
    int at, nranks = 0;
    uint64_t rank[2], bytes, msgs;

    *fault = NULL;
    what[0] = '\0';
    if (nf == 0)
        return 1;
    if (io_is (f[0], "D"))
        return nf >= 2 ? 1 : (*fault = "a D line without a communicator", -1);
    for (size_t k = 0; k < sizeof (pairs) / sizeof (pairs[0]); k++)
        if (io_is (f[0], pairs[k]))
            nranks = 2;
    for (size_t k = 0; k < sizeof (colls) / sizeof (colls[0]); k++)
        if (io_is (f[0], colls[k]))
            nranks = 1;
    if (nranks == 0) {
        *fault = "not an Open MPI monitoring line";
        return -1;
    }
    /* kind, ranks, N "bytes", M "msgs" "sent", and for E and I a histogram */
    at = 1 + nranks;
    if (nf < at + 5 || nf > at + 6 || !io_is (f[at + 1], "bytes") || !io_is (f[at + 3], "msgs") ||
        !io_is (f[at + 4], "sent")) {
        *fault = nranks == 2 ? "expected '<kind> <sender> <receiver> <n> bytes <m> msgs sent'"
                             : "expected '<kind> <rank> <n> bytes <m> msgs sent'";
        return -1;
    }
    if (nf == at + 6) {
        const io_field_t h = f[at + 5];

        if (!io_is (f[0], "E") && !io_is (f[0], "I")) {
            *fault = "data after 'msgs sent'";
            return -1;
        }
        for (size_t i = 0; i < h.n; i++)
            if (!io_digit (h.s[i]) && h.s[i] != ',') {
                *fault = "histogram: not comma-separated counts";
                return -1;
            }
    }
    for (int r = 0; r < nranks; r++) {
        if ((*fault = io_uint (f[1 + r], IO_MAX_TASKS - 1, &rank[r]))) {
            snprintf (what, size, "rank '%.*s'", (int)(f[1 + r].n < 24 ? f[1 + r].n : 24),
                      f[1 + r].s);
            if (strcmp (*fault, "too large") == 0)
                *fault = "above the limit of 2^20 tasks";
            return -1;
        }
        if ((int)rank[r] > *maxrank)
            *maxrank = (int)rank[r];
    }
    if ((*fault = io_uint (f[at], UINT64_MAX, &bytes))) {
        snprintf (what, size, "bytes");
        return -1;
    }
    if ((*fault = io_uint (f[at + 2], UINT64_MAX, &msgs))) {
        snprintf (what, size, "msgs");
        return -1;
    }
    if (msgs == 0 && bytes > 0) {
        *fault = "bytes without a message";
        return -1;
    }
    if (io_is (f[0], "E") && io_trips_add (t, (int)rank[0], (int)rank[1], msgs, bytes) < 0) {
        *fault = "out of memory";
        return -1;
    }
    return 1;
}

static profile_t *io_ompi (const char *path, const char *buf, size_t len, tm_error_t *errp)
{
    io_lines_t l = {.buf = buf, .len = len};
    io_trips_t t = {0};
    profile_t *p = NULL;
    const char *s, *fault;
    size_t n;
    int maxrank = -1;
    char q[48], what[64];
    tm_error_t e;

    while (io_next_line (&l, &s, &n)) {
        if (io_skip_line (s, n))
            continue;
        if (io_ompi_line (s, n, &t, &maxrank, &fault, what, sizeof (what)) < 0) {
            if (strcmp (fault, "out of memory") == 0) {
                errprintf (errp, "%s: out of memory", path);
                goto error;
            }
            if (what[0])
                errprintf (errp, "%s:%d: %s: %s", path, l.line, what, fault);
            else
                errprintf (errp, "%s:%d: %s: '%s'", path, l.line, fault,
                           io_quote (s, n, q, sizeof (q)));
            errno = EINVAL;
            goto error;
        }
    }
    if (maxrank < 0) {
        errprintf (errp, "%s: no Open MPI monitoring lines", path);
        errno = EINVAL;
        goto error;
    }
    if (!(p = profile_create (maxrank + 1, t.n, t.v, &e))) {
        errprintf (errp, "%s: %s", path, e.text);
        goto error;
    }
    if (profile_set_string (&p->mpi, "Open MPI", errp) < 0) {
        profile_destroy (p);
        p = NULL;
    }
error:
    free (t.v);
    return p;
}

/* topomap's own JSON when the first character after blanks is '{' (no
 * other format starts so), Open MPI's when the first line with something
 * to read is a monitoring line, else a matrix.
 */
static profile_format_t io_guess (const char *buf, size_t len)
{
    static const char *const kinds[] = {"E", "I", "S", "R", "C", "D", "O2A", "A2O", "A2A"};
    io_lines_t l = {.buf = buf, .len = len};
    const char *s;
    size_t n, blanks = 0;

    while (blanks < len && strchr (" \t\r\n", buf[blanks]) && buf[blanks])
        blanks++;
    if (blanks < len && buf[blanks] == '{')
        return PROFILE_FMT_JSON;
    while (io_next_line (&l, &s, &n)) {
        if (n >= 16 && memcmp (s, "# POINT TO POINT", 16) == 0)
            return PROFILE_FMT_OMPI;
        if (io_skip_line (s, n))
            continue;
        for (size_t k = 0; k < sizeof (kinds) / sizeof (kinds[0]); k++) {
            size_t kn = strlen (kinds[k]);

            if (n > kn && memcmp (s, kinds[k], kn) == 0 && io_blank (s[kn]))
                return PROFILE_FMT_OMPI;
        }
        break;
    }
    return PROFILE_FMT_MATRIX;
}

profile_t *profile_import (const char *path, profile_format_t fmt, tm_error_t *errp)
{
    char *buf = NULL;
    const char *text, *source;
    size_t len = 0;
    profile_t *p = NULL;
    struct stat st;
    int saved;

    if (!path || path[0] == '\0') {
        errprintf (errp, "profile_import: no path");
        errno = EINVAL;
        return NULL;
    }
    if (fmt != PROFILE_FMT_AUTO && fmt != PROFILE_FMT_JSON && fmt != PROFILE_FMT_MATRIX &&
        fmt != PROFILE_FMT_MAT && fmt != PROFILE_FMT_OMPI) {
        errprintf (errp, "%s: unknown import format %d", path, (int)fmt);
        errno = EINVAL;
        return NULL;
    }
    if (file_slurp (path, IO_MAX_BYTES, &buf, &len, errp) < 0)
        return NULL;
    text = buf + file_bom (buf, len);
    len -= (size_t)(text - buf);
    if (fmt == PROFILE_FMT_AUTO)
        fmt = io_guess (text, len);
    if (fmt == PROFILE_FMT_JSON) {
        p = profile_parse (text, len, path, errp);
        source = NULL;
    } else if (fmt == PROFILE_FMT_OMPI) {
        p = io_ompi (path, text, len, errp);
        source = "import:ompi-monitoring";
    } else {
        p = io_matrix (path, text, len, errp);
        source = fmt == PROFILE_FMT_MAT ? "import:mat" : "import:csv";
    }
    if (p && source && profile_set_string (&p->source, source, errp) < 0) {
        profile_destroy (p);
        p = NULL;
    }
    /* A foreign file was recorded when it was last written, as far as we
     * know; our own says when. */
    if (p && source && stat (path, &st) == 0)
        p->timestamp = st.st_mtime;
    saved = errno;
    free (buf);
    errno = saved;
    return p;
}

/* Export */

int profile_export_csv (const profile_t *p, FILE *f, const char *what, tm_error_t *errp)
{
    bool bytes;

    if (!p || !f || !what) {
        errno = EINVAL;
        return errprintf (errp, "profile_export_csv: no profile, stream or quantity");
    }
    if (strcmp (what, "bytes") == 0)
        bytes = true;
    else if (strcmp (what, "msgs") == 0)
        bytes = false;
    else {
        errno = EINVAL;
        return errprintf (errp, "export: '%s': expected bytes or msgs", what);
    }
    errno = 0;
    /* Row by row from the sparse rows: never n*n in memory. */
    for (int i = 0; i < p->ntasks && !ferror (f); i++) {
        size_t k = p->row[i];

        for (int j = 0; j < p->ntasks; j++) {
            uint64_t x = 0;

            if (k < p->row[i + 1] && p->entries[k].dst == j) {
                x = bytes ? p->entries[k].bytes : p->entries[k].msgs;
                k++;
            }
            if (j > 0)
                putc (',', f);
            if (x == 0)
                putc ('0', f);
            else
                fprintf (f, "%" PRIu64, x);
        }
        putc ('\n', f);
    }
    if (fflush (f) != 0 || ferror (f)) {
        if (errno == 0)
            errno = EIO;
        return errprintf (errp, "export: cannot write: %s", strerror (errno));
    }
    return 0;
}

/* Show */

/* bytes in binary units, "1.5 MiB", or "512 B". */
static const char *io_human (uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double x = (double)bytes;
    int u = -1;

    if (bytes < 1024) {
        snprintf (buf, size, "%" PRIu64 " B", bytes);
        return buf;
    }
    while (x >= 1024 && u < 5) {
        x /= 1024;
        u++;
    }
    snprintf (buf, size, "%.1f %s", x, units[u]);
    return buf;
}

/* Heaviest first; ties by src, then dst. */
static int io_cmp_heavy (const void *a, const void *b)
{
    const profile_entry_t *x = a, *y = b;

    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return 0;
}

profile_entry_t *profile_heaviest (const profile_t *p)
{
    profile_entry_t *v = malloc ((p->nentries ? p->nentries : 1) * sizeof (*v));

    if (!v) {
        errno = ENOMEM;
        return NULL;
    }
    for (int i = 0; i < p->ntasks; i++)
        for (size_t k = p->row[i]; k < p->row[i + 1]; k++) {
            v[k] = p->entries[k];
            v[k].src = i;
        }
    qsort (v, p->nentries, sizeof (*v), io_cmp_heavy);
    return v;
}

static const char *io_or (const char *s, const char *otherwise)
{
    return s && s[0] ? s : otherwise;
}

/* Heterogeneity is judged by the coefficient of variation (standard
 * deviation over mean) of the bytes of the talking pairs: below 0.25 the
 * pairs carry about the same (a halo exchange on a regular grid), below 1
 * they differ but no pair dominates, from 1 on a few pairs carry most of
 * the traffic -- where placement matters most.
 */
#define IO_CV_UNIFORM  0.25
#define IO_CV_MODERATE 1.0

/* A line of profile_show: label, when r was recorded, in which job, and
 * how long the run took, as far as r knows. */
static void io_recording (FILE *f, const char *label, const profile_t *r)
{
    char when[32];

    if (jsonfile_format_time (r->timestamp, when, sizeof (when)) < 0)
        snprintf (when, sizeof (when), "(time out of range)");
    fprintf (f, "  %-13s %s%s%s", label, when, r->jobid[0] ? ", job " : "", r->jobid);
    if (r->record_s > 0)
        fprintf (f, ", run of %.1f s", r->record_s);
    fprintf (f, "\n");
}

/* profile_show's head: what the profile is, when it was recorded (and
 * checked), its totals. */
static void io_show_head (FILE *f, const profile_t *p, const char *name)
{
    char h[32];
    /* A matrix of bytes carries no counts: its import takes one message a
     * talking pair, which is no recording's. */
    bool counted = !p->source ||
                   (strcmp (p->source, "import:csv") != 0 && strcmp (p->source, "import:mat") != 0);

    fprintf (f, "profile %s\n", io_or (name, "(unnamed)"));
    fprintf (f, "  ntasks        %d\n", p->ntasks);
    fprintf (f, "  executable    %s\n", io_or (p->exe_id, "unknown"));
    fprintf (f, "  path          %s\n", io_or (p->exe_path, "unknown"));
    fprintf (f, "  mpi           %s\n", io_or (p->mpi, "unknown"));
    fprintf (f, "  source        %s\n", io_or (p->source, "unknown"));
    io_recording (f, "recorded at", p);
    fprintf (f, "  collectives   %s\n",
             p->collectives ? "yes, attributed to pairs" : "no, point-to-point only");
    if (p->recheck) {
        io_recording (f, "checked at", p->recheck);
        fprintf (f,
                 "  recurring     %.1f%% of the traffic, each pair's lesser share of its "
                 "run's bytes (the check's: %s)\n",
                 100 * profile_recurring (p, p->recheck),
                 io_human (p->recheck->total_bytes, h, sizeof (h)));
    }
    fprintf (f, "totals\n");
    if (counted)
        fprintf (f, "  messages      %" PRIu64 "\n", p->total_msgs);
    else
        fprintf (f, "  messages      %" PRIu64 " (not in the file: one a talking pair assumed)\n",
                 p->total_msgs);
    fprintf (f, "  bytes         %" PRIu64 " (%s)\n", p->total_bytes,
             io_human (p->total_bytes, h, sizeof (h)));
    if (counted && p->total_msgs > 0)
        fprintf (f, "  per message   %s on average\n",
                 io_human (p->total_bytes / p->total_msgs, h, sizeof (h)));
}

/* The top heaviest of the ne pairs v (sorted heaviest first), of sum bytes. */
static void io_show_heaviest (FILE *f, const profile_entry_t *v, size_t ne, size_t top, double sum)
{
    size_t shown = top < ne ? top : ne;
    char h[32];

    fprintf (f, "heaviest pairs (directed, by bytes, self-sends included)\n");
    fprintf (f, "  %8s    %-8s %20s %-12s %14s %7s\n", "src", "dst", "bytes", "", "msgs", "share");
    for (size_t k = 0; k < shown; k++) {
        char paren[40];

        snprintf (paren, sizeof (paren), "(%s)", io_human (v[k].bytes, h, sizeof (h)));
        fprintf (f, "  %8d -> %-8d %20" PRIu64 " %-12s %14" PRIu64 " %6.1f%%\n", v[k].src, v[k].dst,
                 v[k].bytes, paren, v[k].msgs, sum > 0 ? 100.0 * (double)v[k].bytes / sum : 0.0);
    }
}

int profile_show (FILE *f, const profile_t *p, const char *name, int top)
{
    profile_entry_t *v = NULL;
    int *degree = NULL;
    size_t ne, self = 0, k10;
    uint64_t self_bytes = 0, top_bytes = 0;
    double sum = 0, mean, var = 0, cv, possible;
    long long degree_sum = 0;
    int max_degree = 0;
    char h[32];
    int rc = -1;

    if (!f || !p) {
        errno = EINVAL;
        return -1;
    }
    ne = p->nentries;
    if (!(v = profile_heaviest (p)) || !(degree = calloc ((size_t)p->ntasks, sizeof (*degree)))) {
        errno = ENOMEM;
        goto out;
    }
    /* Rows from row[], distinct peers of each rank counted once per pair. */
    for (int i = 0; i < p->ntasks; i++)
        for (size_t k = p->row[i]; k < p->row[i + 1]; k++) {
            int j = p->entries[k].dst;

            sum += (double)p->entries[k].bytes;
            if (i == j) {
                self++;
                self_bytes += p->entries[k].bytes;
            } else if (i < j || !profile_get (p, j, i)) {
                degree[i]++;
                degree[j]++;
            }
        }
    for (int i = 0; i < p->ntasks; i++) {
        degree_sum += degree[i];
        if (degree[i] > max_degree)
            max_degree = degree[i];
    }
    io_show_head (f, p, name);

    possible = (double)p->ntasks * (double)p->ntasks;
    fprintf (f, "pairs\n");
    fprintf (f, "  talking       %zu directed of %.0f possible (%.1f%%), %zu self-sends (%s)\n", ne,
             possible, 100.0 * (double)ne / possible, self, io_human (self_bytes, h, sizeof (h)));
    fprintf (f, "  degree        %.2f distinct peers per rank on average, %d at most\n",
             (double)degree_sum / p->ntasks, max_degree);
    if (ne == 0) {
        fprintf (f, "  no point-to-point traffic recorded\n");
        goto flush;
    }

    if (top > 0)
        io_show_heaviest (f, v, ne, (size_t)top, sum);

    /* Over the ne talking pairs: the heaviest tenth (at least one). */
    k10 = (ne + 9) / 10;
    for (size_t k = 0; k < k10; k++)
        top_bytes += v[k].bytes;
    mean = sum / (double)ne;
    for (size_t k = 0; k < ne; k++)
        var += ((double)v[k].bytes - mean) * ((double)v[k].bytes - mean);
    var /= (double)ne;
    cv = mean > 0 ? sqrt (var) / mean : 0;
    fprintf (f, "heterogeneity (bytes over the %zu talking pairs)\n", ne);
    fprintf (f, "  top 10%%       %zu of %zu pairs carry %.1f%% of the bytes\n", k10, ne,
             sum > 0 ? 100.0 * (double)top_bytes / sum : 0.0);
    fprintf (f, "  cv            %.2f (standard deviation / mean)\n", cv);
    fprintf (f, "  verdict       %s (uniform: cv < %.2f, moderate: < %.2f, else heterogeneous)\n",
             cv < IO_CV_UNIFORM    ? "uniform"
             : cv < IO_CV_MODERATE ? "moderate"
                                   : "heterogeneous",
             IO_CV_UNIFORM, IO_CV_MODERATE);
flush:
    errno = 0;
    if (fflush (f) != 0 || ferror (f)) {
        if (errno == 0)
            errno = EIO;
        goto out;
    }
    rc = 0;
out:
    free (v);
    free (degree);
    return rc;
}
