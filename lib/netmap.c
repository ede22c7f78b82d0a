/* netmap.c: the netmap file, written and read with json-c.
 *
 * Schema 1.  Every key is required and no other key is allowed:
 *
 *   {
 *     "schema": 1,
 *     "kind": "topomap-netmap",
 *     "hosts": ["n0", "n1", ...],
 *     "latency_us": [[...], ...],
 *     "latency_ci_us": [[...], ...],
 *     "bandwidth_MBps": [[...], ...],
 *     "samples": [[...], ...],
 *     "params": {"lat_bytes": 1024, "bw_bytes": 262144, "bw_messages": 1,
 *                "min_samples": 5, "max_samples": 200, "ci_rel": 0.03,
 *                "budget_s": 10},
 *     "measure_s": 3.25,
 *     "jobid": "1234",
 *     "timestamp": "2026-11-20T21:44:50Z",
 *     "topology": null or {
 *       "model": "tree" or "groups",
 *       "nvertices": V,
 *       "parent": [V integers],
 *       "height": [V numbers],
 *       "ngroups": G,
 *       "group": [n integers]
 *     }
 *   }
 *
 * hosts     n >= 1 distinct, non-empty names without control characters,
 *           in probe rank order; they index the matrices.
 * matrices  n rows of n entries, row i from host i to host columns j.
 *           latency_us, latency_ci_us: finite numbers >= 0 (microseconds);
 *           bandwidth_MBps: finite numbers > 0 (1e6 bytes/s); samples:
 *           integers >= 0.  On the diagonal (intra-node figures) the three
 *           figures may be null: not measured, NaN in memory.
 * params    how the probe measured (netmap_params_t): integers >= 0,
 *           max_samples >= min_samples; ci_rel, budget_s finite >= 0.
 * measure_s wall time spent measuring, seconds, finite >= 0.
 * jobid     the Slurm job id, "" when unknown, at most 31 bytes.
 * timestamp when measured, UTC, ISO 8601 "YYYY-MM-DDTHH:MM:SSZ".
 * topology  the inferred topo_t (lib/topology.h): vertices 0..n-1 are the
 *           hosts, parent -1 for the root only; it must pass topo_check().
 *
 * The writer refuses a netmap that the reader would reject.  It writes
 * hosts, each matrix row and each topology array on one line, numbers in
 * the fewest digits that read back exactly.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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
#include <unistd.h>

#include <json.h>

#include "lib/netmap.h"

#define NETMAP_KIND      "topomap-netmap"
#define NETMAP_MAX_BYTES (64 * 1024 * 1024)
#define NETMAP_TIME_FMT  "%Y-%m-%dT%H:%M:%SZ"

static const char *const netmap_keys[] = {
    "schema",         "kind",     "hosts",  "latency_us", "latency_ci_us",
    "bandwidth_MBps", "samples",  "params", "measure_s",  "jobid",
    "timestamp",      "topology", NULL,
};

static const char *const netmap_param_keys[] = {
    "lat_bytes",   "bw_bytes", "bw_messages", "min_samples",
    "max_samples", "ci_rel",   "budget_s",    "concurrency", NULL,
};

static const char *const netmap_topo_keys[] = {
    "model", "nvertices", "parent", "height", "ngroups", "group", NULL,
};

void netmap_params_default (netmap_params_t *p)
{
    p->lat_bytes = 1024;
    p->bw_bytes = 262144;
    p->bw_messages = 1;
    p->min_samples = 5;
    p->max_samples = 200;
    p->ci_rel = 0.03;
    p->budget_s = 10;
    p->concurrency = 0;
}

/* Checks shared by create, write and read. */

static bool netmap_has_control (const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return true;
    return false;
}

/* s itself when it is safe to quote in a one-line message. */
static const char *netmap_quote (const char *s)
{
    size_t len = strlen (s);

    if (len > 64 || netmap_has_control (s, len))
        return "(unprintable)";
    return s;
}

static int netmap_cmp_names (const void *a, const void *b)
{
    return strcmp (*(const char *const *)a, *(const char *const *)b);
}

static int netmap_check_hosts (int n, const char *const *hosts, tm_error_t *errp)
{
    const char **sorted = NULL;
    int err = EINVAL;
    int rc = -1;

    if (n < 1) {
        errprintf (errp, "hosts: %d hosts, need at least one", n);
        goto out;
    }
    if (!hosts) {
        errprintf (errp, "hosts: no host names");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        if (!hosts[i] || hosts[i][0] == '\0') {
            errprintf (errp, "hosts[%d]: empty name", i);
            goto out;
        }
        if (netmap_has_control (hosts[i], strlen (hosts[i]))) {
            errprintf (errp, "hosts[%d]: control character in name", i);
            goto out;
        }
    }
    if (!(sorted = malloc ((size_t)n * sizeof (*sorted)))) {
        errprintf (errp, "out of memory");
        err = ENOMEM;
        goto out;
    }
    memcpy (sorted, hosts, (size_t)n * sizeof (*sorted));
    qsort (sorted, (size_t)n, sizeof (*sorted), netmap_cmp_names);
    for (int i = 1; i < n; i++)
        if (strcmp (sorted[i - 1], sorted[i]) == 0) {
            errprintf (errp, "hosts: '%s' appears twice", netmap_quote (sorted[i]));
            goto out;
        }
    rc = 0;
out:
    free (sorted);
    if (rc < 0)
        errno = err;
    return rc;
}

/* Entry [i][j] of matrix key: finite on the diagonal unless NaN, >= 0,
 * and > 0 when positive is set.
 */
static int netmap_check_entry (const netmap_t *nm, const char *key, const double *m, bool positive,
                               int i, int j, tm_error_t *errp)
{
    double x = m[(size_t)i * (size_t)nm->n + (size_t)j];
    const char *fault = NULL;

    if (i == j && isnan (x))
        return 0;
    if (!isfinite (x))
        fault = "not a finite number";
    else if (x < 0)
        fault = "negative";
    else if (positive && x == 0)
        fault = "zero, must be > 0";
    if (!fault)
        return 0;
    return errprintf (errp, "%s[%d][%d]: %s (%s to %s)", key, i, j, fault, nm->hosts[i],
                      nm->hosts[j]);
}

static int netmap_check_params (const netmap_params_t *p, tm_error_t *errp)
{
    if ((uintmax_t)p->lat_bytes >= INT64_MAX)
        return errprintf (errp, "params.lat_bytes: too large");
    if ((uintmax_t)p->bw_bytes >= INT64_MAX)
        return errprintf (errp, "params.bw_bytes: too large");
    if (p->bw_messages < 0)
        return errprintf (errp, "params.bw_messages: negative");
    if (p->concurrency < 0)
        return errprintf (errp, "params.concurrency: negative");
    if (p->min_samples < 0)
        return errprintf (errp, "params.min_samples: negative");
    if (p->max_samples < p->min_samples)
        return errprintf (errp, "params.max_samples: %d, less than min_samples %d", p->max_samples,
                          p->min_samples);
    if (!isfinite (p->ci_rel) || p->ci_rel < 0)
        return errprintf (errp, "params.ci_rel: not a finite number >= 0");
    if (!isfinite (p->budget_s) || p->budget_s < 0)
        return errprintf (errp, "params.budget_s: not a finite number >= 0");
    return 0;
}

static int netmap_check_topo (const netmap_t *nm, tm_error_t *errp)
{
    const topo_t *t = nm->topo;
    tm_error_t e;

    if (t->nhosts != nm->n)
        return errprintf (errp, "topology: %d hosts, expected %d", t->nhosts, nm->n);
    if (topo_check (t, &e) < 0)
        return errprintf (errp, "topology: %s", e.text);
    for (int v = 0; v < t->nvertices; v++)
        if (!isfinite (t->height[v]) || t->height[v] < 0)
            return errprintf (errp, "topology.height[%d]: not a finite number >= 0", v);
    return 0;
}

/* Everything the reader requires of a netmap, but the timestamp. */
static int netmap_check (const netmap_t *nm, tm_error_t *errp)
{
    int n = nm->n;
    size_t jobid_len;

    if (netmap_check_hosts (n, (const char *const *)nm->hosts, errp) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (netmap_check_entry (nm, "latency_us", nm->lat_us, false, i, j, errp) < 0 ||
                netmap_check_entry (nm, "latency_ci_us", nm->lat_ci_us, false, i, j, errp) < 0 ||
                netmap_check_entry (nm, "bandwidth_MBps", nm->bw_MBps, true, i, j, errp) < 0)
                return -1;
            if (NETMAP_AT (nm, samples, i, j) < 0)
                return errprintf (errp, "samples[%d][%d]: negative (%s to %s)", i, j, nm->hosts[i],
                                  nm->hosts[j]);
        }
    if (netmap_check_params (&nm->params, errp) < 0)
        return -1;
    if (!isfinite (nm->measure_s) || nm->measure_s < 0)
        return errprintf (errp, "measure_s: not a finite number >= 0");
    jobid_len = strnlen (nm->jobid, sizeof (nm->jobid));
    if (jobid_len == sizeof (nm->jobid))
        return errprintf (errp, "jobid: longer than %zu bytes", sizeof (nm->jobid) - 1);
    if (netmap_has_control (nm->jobid, jobid_len))
        return errprintf (errp, "jobid: control character");
    if (nm->topo && netmap_check_topo (nm, errp) < 0)
        return -1;
    return 0;
}

netmap_t *netmap_create (int n, const char *const *hosts, tm_error_t *errp)
{
    netmap_t *nm = NULL;
    size_t nn;

    if (netmap_check_hosts (n, hosts, errp) < 0)
        return NULL;
    nn = (size_t)n * (size_t)n;
    if ((size_t)n > SIZE_MAX / (size_t)n || nn > SIZE_MAX / sizeof (double)) {
        errprintf (errp, "hosts: %d hosts, too many", n);
        errno = ENOMEM;
        return NULL;
    }
    if (!(nm = calloc (1, sizeof (*nm))))
        goto nomem;
    nm->n = n;
    if (!(nm->hosts = calloc ((size_t)n, sizeof (*nm->hosts))))
        goto nomem;
    for (int i = 0; i < n; i++)
        if (!(nm->hosts[i] = strdup (hosts[i])))
            goto nomem;
    nm->lat_us = calloc (nn, sizeof (*nm->lat_us));
    nm->lat_ci_us = calloc (nn, sizeof (*nm->lat_ci_us));
    nm->bw_MBps = calloc (nn, sizeof (*nm->bw_MBps));
    nm->samples = calloc (nn, sizeof (*nm->samples));
    if (!nm->lat_us || !nm->lat_ci_us || !nm->bw_MBps || !nm->samples)
        goto nomem;
    for (int i = 0; i < n; i++) {
        NETMAP_AT (nm, lat_us, i, i) = NAN;
        NETMAP_AT (nm, lat_ci_us, i, i) = NAN;
        NETMAP_AT (nm, bw_MBps, i, i) = NAN;
    }
    netmap_params_default (&nm->params);
    return nm;
nomem:
    netmap_destroy (nm);
    errprintf (errp, "out of memory");
    errno = ENOMEM;
    return NULL;
}

void netmap_destroy (netmap_t *nm)
{
    int saved = errno;

    if (!nm)
        return;
    if (nm->hosts)
        for (int i = 0; i < nm->n; i++)
            free (nm->hosts[i]);
    free (nm->hosts);
    free (nm->lat_us);
    free (nm->lat_ci_us);
    free (nm->bw_MBps);
    free (nm->samples);
    topo_destroy (nm->topo);
    free (nm);
    errno = saved;
}

int netmap_host_index (const netmap_t *nm, const char *name)
{
    if (!nm || !name)
        return -1;
    for (int i = 0; i < nm->n; i++)
        if (strcmp (nm->hosts[i], name) == 0)
            return i;
    return -1;
}

double netmap_cost (const netmap_t *nm, int a, int b, double msgs, double bytes)
{
    double lat, bw, cost = 0;

    if (!nm || a < 0 || a >= nm->n || b < 0 || b >= nm->n) {
        errno = EINVAL;
        return NAN;
    }
    lat = NETMAP_AT (nm, lat_us, a, b);
    bw = NETMAP_AT (nm, bw_MBps, a, b);
    /* Only the diagonal may hold NaN: intra-node, not measured. */
    if (!isnan (lat))
        cost += msgs * lat * 1e-6;
    if (!isnan (bw))
        cost += bytes / (bw * 1e6);
    return cost;
}

/* Writing */

/* Serialize an array on one line, "[1.5, 2, null]", inside a pretty file. */
static int netmap_json_inline (json_object *jso, struct printbuf *pb, int level, int flags)
{
    size_t len = json_object_array_length (jso);

    (void)level;
    flags &= ~(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_PRETTY_TAB | JSON_C_TO_STRING_SPACED);
    if (printbuf_strappend (pb, "[") < 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        json_object *e = json_object_array_get_idx (jso, i);
        const char *s = e ? json_object_to_json_string_ext (e, flags) : "null";

        if (!s)
            return -1;
        if (i > 0 && printbuf_strappend (pb, ", ") < 0)
            return -1;
        if (printbuf_memappend (pb, s, (int)strlen (s)) < 0)
            return -1;
    }
    if (printbuf_strappend (pb, "]") < 0)
        return -1;
    return 0;
}

/* A double written in the fewest digits that read back exactly. */
static json_object *netmap_json_double (double d)
{
    char s[40];

    for (int prec = 15; prec <= 17; prec++) {
        snprintf (s, sizeof (s), "%.*g", prec, d);
        if (strtod (s, NULL) == d)
            break;
    }
    for (char *p = s; *p; p++)
        if (*p == ',') /* a locale's decimal comma */
            *p = '.';
    return json_object_new_double_s (d, s);
}

/* Add val (NULL is JSON null when null_ok) to an array or, with key, an
 * object.  Takes val even on failure.
 */
static int netmap_json_add (json_object *to, const char *key, json_object *val, bool null_ok)
{
    int rc;

    if (!val && !null_ok)
        return -1;
    if (key)
        rc = json_object_object_add (to, key, val);
    else
        rc = json_object_array_add (to, val);
    if (rc < 0) {
        json_object_put (val);
        return -1;
    }
    return 0;
}

/* An array on one line of len doubles (NaN as null), or ints. */
static json_object *netmap_json_list (const double *d, const int *iv, size_t len)
{
    json_object *a;

    if (!(a = json_object_new_array ()))
        return NULL;
    json_object_set_serializer (a, netmap_json_inline, NULL, NULL);
    for (size_t k = 0; k < len; k++) {
        json_object *e;
        bool null_ok = false;

        if (iv)
            e = json_object_new_int (iv[k]);
        else if (isnan (d[k])) {
            e = NULL;
            null_ok = true;
        } else
            e = netmap_json_double (d[k]);
        if (netmap_json_add (a, NULL, e, null_ok) < 0) {
            json_object_put (a);
            return NULL;
        }
    }
    return a;
}

static json_object *netmap_json_matrix (int n, const double *d, const int *iv)
{
    json_object *m;

    if (!(m = json_object_new_array ()))
        return NULL;
    for (int i = 0; i < n; i++) {
        size_t off = (size_t)i * (size_t)n;
        json_object *row = netmap_json_list (d ? d + off : NULL, iv ? iv + off : NULL, (size_t)n);

        if (netmap_json_add (m, NULL, row, false) < 0) {
            json_object_put (m);
            return NULL;
        }
    }
    return m;
}

static json_object *netmap_json_params (const netmap_params_t *p)
{
    json_object *o;

    if (!(o = json_object_new_object ()))
        return NULL;
    if (netmap_json_add (o, "lat_bytes", json_object_new_int64 ((int64_t)p->lat_bytes), false) <
            0 ||
        netmap_json_add (o, "bw_bytes", json_object_new_int64 ((int64_t)p->bw_bytes), false) < 0 ||
        netmap_json_add (o, "bw_messages", json_object_new_int (p->bw_messages), false) < 0 ||
        netmap_json_add (o, "min_samples", json_object_new_int (p->min_samples), false) < 0 ||
        netmap_json_add (o, "max_samples", json_object_new_int (p->max_samples), false) < 0 ||
        netmap_json_add (o, "ci_rel", netmap_json_double (p->ci_rel), false) < 0 ||
        netmap_json_add (o, "budget_s", netmap_json_double (p->budget_s), false) < 0 ||
        netmap_json_add (o, "concurrency", json_object_new_int (p->concurrency), false) < 0) {
        json_object_put (o);
        return NULL;
    }
    return o;
}

static json_object *netmap_json_topo (const topo_t *t)
{
    json_object *o;
    const char *model = t->model == TOPO_TREE ? "tree" : "groups";

    if (!(o = json_object_new_object ()))
        return NULL;
    if (netmap_json_add (o, "model", json_object_new_string (model), false) < 0 ||
        netmap_json_add (o, "nvertices", json_object_new_int (t->nvertices), false) < 0 ||
        netmap_json_add (o, "parent", netmap_json_list (NULL, t->parent, (size_t)t->nvertices),
                         false) < 0 ||
        netmap_json_add (o, "height", netmap_json_list (t->height, NULL, (size_t)t->nvertices),
                         false) < 0 ||
        netmap_json_add (o, "ngroups", json_object_new_int (t->ngroups), false) < 0 ||
        netmap_json_add (o, "group", netmap_json_list (NULL, t->group, (size_t)t->nhosts), false) <
            0) {
        json_object_put (o);
        return NULL;
    }
    return o;
}

/* The JSON document of a checked netmap, NULL when out of memory. */
static json_object *netmap_to_json (const netmap_t *nm, const char *timestamp)
{
    json_object *o, *hosts, *topo = NULL;

    if (!(o = json_object_new_object ()))
        return NULL;
    if (netmap_json_add (o, "schema", json_object_new_int (NETMAP_SCHEMA), false) < 0 ||
        netmap_json_add (o, "kind", json_object_new_string (NETMAP_KIND), false) < 0 ||
        netmap_json_add (o, "hosts", hosts = json_object_new_array (), false) < 0)
        goto error;
    json_object_set_serializer (hosts, netmap_json_inline, NULL, NULL);
    for (int i = 0; i < nm->n; i++)
        if (netmap_json_add (hosts, NULL, json_object_new_string (nm->hosts[i]), false) < 0)
            goto error;
    if (netmap_json_add (o, "latency_us", netmap_json_matrix (nm->n, nm->lat_us, NULL), false) <
            0 ||
        netmap_json_add (o, "latency_ci_us", netmap_json_matrix (nm->n, nm->lat_ci_us, NULL),
                         false) < 0 ||
        netmap_json_add (o, "bandwidth_MBps", netmap_json_matrix (nm->n, nm->bw_MBps, NULL),
                         false) < 0 ||
        netmap_json_add (o, "samples", netmap_json_matrix (nm->n, NULL, nm->samples), false) < 0 ||
        netmap_json_add (o, "params", netmap_json_params (&nm->params), false) < 0 ||
        netmap_json_add (o, "measure_s", netmap_json_double (nm->measure_s), false) < 0 ||
        netmap_json_add (o, "jobid", json_object_new_string (nm->jobid), false) < 0 ||
        netmap_json_add (o, "timestamp", json_object_new_string (timestamp), false) < 0)
        goto error;
    if (nm->topo && !(topo = netmap_json_topo (nm->topo)))
        goto error;
    if (netmap_json_add (o, "topology", topo, true) < 0)
        goto error;
    return o;
error:
    json_object_put (o);
    return NULL;
}

static int netmap_write_all (int fd, const char *s, size_t len)
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

int netmap_write (const netmap_t *nm, const char *path, tm_error_t *errp)
{
    const int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE;
    json_object *root = NULL;
    char *tmp = NULL;
    int fd = -1;
    bool made = false;
    int rc = -1;
    const char *text;
    char timestamp[32];
    struct tm tm;
    tm_error_t e;
    size_t len = 0;

    if (!nm || !path || path[0] == '\0') {
        errprintf (errp, "netmap_write: no netmap or no path");
        errno = EINVAL;
        return -1;
    }
    if (netmap_check (nm, &e) < 0) {
        errprintf (errp, "%s: %s", path, e.text);
        errno = EINVAL;
        goto out;
    }
    if (!gmtime_r (&nm->timestamp, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900 ||
        strftime (timestamp, sizeof (timestamp), NETMAP_TIME_FMT, &tm) != 20) {
        errprintf (errp, "%s: timestamp: out of range", path);
        errno = EINVAL;
        goto out;
    }
    if (!(root = netmap_to_json (nm, timestamp)) ||
        !(text = json_object_to_json_string_ext (root, flags))) {
        errprintf (errp, "%s: out of memory", path);
        errno = ENOMEM;
        goto out;
    }
    len = strlen (path) + sizeof (".XXXXXX");
    if (!(tmp = malloc (len))) {
        errprintf (errp, "%s: out of memory", path);
        errno = ENOMEM;
        goto out;
    }
    snprintf (tmp, len, "%s.XXXXXX", path);
    if ((fd = mkstemp (tmp)) < 0) {
        errprintf (errp, "%s: cannot create a temporary file: %s", path, strerror (errno));
        goto out;
    }
    made = true;
    if (fchmod (fd, 0644) < 0 || netmap_write_all (fd, text, strlen (text)) < 0 ||
        netmap_write_all (fd, "\n", 1) < 0 || fsync (fd) < 0) {
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
    json_object_put (root);
    return rc;
}

/* Reading */

/* The whole of a regular file of at most NETMAP_MAX_BYTES, NUL-terminated. */
static int netmap_slurp (const char *path, char **bufp, size_t *lenp, tm_error_t *errp)
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
    if (st.st_size > NETMAP_MAX_BYTES) {
        errprintf (errp, "%s: %jd bytes, larger than the limit of %d MiB", path,
                   (intmax_t)st.st_size, NETMAP_MAX_BYTES / (1024 * 1024));
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

static int netmap_line_of (const char *buf, size_t off)
{
    int line = 1;

    for (size_t i = 0; i < off; i++)
        if (buf[i] == '\n')
            line++;
    return line;
}

/* Parse buf as one JSON document: strict, UTF-8, nothing but white space
 * after it.  Messages do not name the file.
 */
static json_object *netmap_parse (const char *buf, size_t len, tm_error_t *errp)
{
    struct json_tokener *tok = NULL;
    json_object *o = NULL;
    enum json_tokener_error err;
    size_t end;

    if (len == 0) {
        errprintf (errp, "not valid JSON: empty file");
        goto error;
    }
    if (!(tok = json_tokener_new ())) {
        errprintf (errp, "out of memory");
        goto error;
    }
    json_tokener_set_flags (tok, JSON_TOKENER_STRICT
#ifdef JSON_TOKENER_VALIDATE_UTF8
                                     | JSON_TOKENER_VALIDATE_UTF8
#endif
    );
    o = json_tokener_parse_ex (tok, buf, (int)len);
    err = json_tokener_get_error (tok);
#if JSON_C_VERSION_NUM >= ((0 << 16) | (15 << 8))
    end = json_tokener_get_parse_end (tok);
#else
    end = (size_t)tok->char_offset;
#endif
    if (err == json_tokener_continue) {
        errprintf (errp, "not valid JSON: truncated at line %d", netmap_line_of (buf, len));
        goto error;
    }
    if (err != json_tokener_success) {
        errprintf (errp, "not valid JSON: %s at line %d", json_tokener_error_desc (err),
                   netmap_line_of (buf, end));
        goto error;
    }
    for (size_t i = end; i < len; i++)
        if (!strchr (" \t\r\n", buf[i]) || buf[i] == '\0') {
            errprintf (errp, "not valid JSON: data after the end at line %d",
                       netmap_line_of (buf, i));
            goto error;
        }
    if (!json_object_is_type (o, json_type_object)) {
        errprintf (errp, "not a JSON object");
        goto error;
    }
    json_tokener_free (tok);
    return o;
error:
    json_object_put (o);
    if (tok)
        json_tokener_free (tok);
    errno = EINVAL;
    return NULL;
}

static int netmap_json_keys (json_object *o, const char *prefix, const char *const *keys,
                             tm_error_t *errp)
{
    json_object_object_foreach (o, key, val)
    {
        int k = 0;

        (void)val;
        while (keys[k] && strcmp (keys[k], key) != 0)
            k++;
        if (!keys[k])
            return errprintf (errp, "unknown key '%s%s'", prefix, netmap_quote (key));
    }
    return 0;
}

/* The value of key in o, which must be of type; *vp NULL for JSON null. */
static int netmap_json_get (json_object *o, const char *prefix, const char *key, json_type type,
                            json_object **vp, tm_error_t *errp)
{
    static const char *const names[] = {
        [json_type_null] = "null",        [json_type_boolean] = "a boolean",
        [json_type_double] = "a number",  [json_type_int] = "an integer",
        [json_type_object] = "an object", [json_type_array] = "an array",
        [json_type_string] = "a string",
    };
    json_object *v;

    if (!json_object_object_get_ex (o, key, &v))
        return errprintf (errp, "missing key '%s%s'", prefix, key);
    if (json_object_is_type (v, type) ||
        (type == json_type_double && json_object_is_type (v, json_type_int))) {
        *vp = v;
        return 0;
    }
    return errprintf (errp, "%s%s: not %s", prefix, key, names[type]);
}

/* An integer in lo..hi.  json-c reads an integer beyond int64 as
 * INT64_MAX: a hi below that rejects it.
 */
static int netmap_json_int (json_object *v, const char *what, int64_t lo, int64_t hi, int64_t *xp,
                            tm_error_t *errp)
{
    int64_t x;

    if (!json_object_is_type (v, json_type_int))
        return errprintf (errp, "%s: not an integer", what);
    x = json_object_get_int64 (v);
    if (x < lo)
        return lo == 0 ? errprintf (errp, "%s: negative", what)
                       : errprintf (errp, "%s: %" PRId64 ", too small", what, x);
    if (x > hi)
        return errprintf (errp, "%s: too large", what);
    *xp = x;
    return 0;
}

/* A finite number; null gives NaN when null_ok. */
static int netmap_json_number (json_object *v, const char *what, bool null_ok, double *xp,
                               tm_error_t *errp)
{
    double x;

    if (!v && null_ok) {
        *xp = NAN;
        return 0;
    }
    if (!json_object_is_type (v, json_type_double) && !json_object_is_type (v, json_type_int))
        return errprintf (errp, "%s: not a finite number", what);
    x = json_object_get_double (v);
    if (!isfinite (x))
        return errprintf (errp, "%s: not a finite number", what);
    *xp = x;
    return 0;
}

/* Matrix key of o: n rows of n entries. */
static int netmap_json_shape (json_object *o, const char *key, int n, json_object **mp,
                              tm_error_t *errp)
{
    json_object *m;
    size_t rows;

    if (netmap_json_get (o, "", key, json_type_array, &m, errp) < 0)
        return -1;
    rows = json_object_array_length (m);
    if (rows != (size_t)n)
        return errprintf (errp, "%s: %zu rows, expected %d", key, rows, n);
    for (int i = 0; i < n; i++) {
        json_object *row = json_object_array_get_idx (m, (size_t)i);
        size_t len;

        if (!json_object_is_type (row, json_type_array))
            return errprintf (errp, "%s: row %d is not an array", key, i);
        len = json_object_array_length (row);
        if (len != (size_t)n)
            return errprintf (errp, "%s: row %d has %zu entries, expected %d", key, i, len, n);
    }
    *mp = m;
    return 0;
}

/* Fill d (numbers, null allowed on the diagonal) or iv (integers) from a
 * matrix checked by netmap_json_shape.
 */
static int netmap_json_fill (json_object *m, const char *key, int n, double *d, int *iv,
                             tm_error_t *errp)
{
    char what[64];

    for (int i = 0; i < n; i++) {
        json_object *row = json_object_array_get_idx (m, (size_t)i);

        for (int j = 0; j < n; j++) {
            json_object *v = json_object_array_get_idx (row, (size_t)j);
            size_t k = (size_t)i * (size_t)n + (size_t)j;
            int64_t x;

            snprintf (what, sizeof (what), "%s[%d][%d]", key, i, j);
            if (iv) {
                if (netmap_json_int (v, what, INT_MIN, INT_MAX, &x, errp) < 0)
                    return -1;
                iv[k] = (int)x;
            } else if (netmap_json_number (v, what, i == j, &d[k], errp) < 0)
                return -1;
        }
    }
    return 0;
}

/* The hosts array: n names, pointers into o. */
static int netmap_json_hosts (json_object *o, const char ***namesp, int *np, tm_error_t *errp)
{
    json_object *a;
    const char **names = NULL;
    size_t n;

    if (netmap_json_get (o, "", "hosts", json_type_array, &a, errp) < 0)
        return -1;
    n = json_object_array_length (a);
    if (n < 1)
        return errprintf (errp, "hosts: empty");
    if (n > INT_MAX)
        return errprintf (errp, "hosts: too many");
    if (!(names = calloc (n, sizeof (*names)))) {
        errprintf (errp, "out of memory");
        goto error;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *v = json_object_array_get_idx (a, i);

        if (!json_object_is_type (v, json_type_string)) {
            errprintf (errp, "hosts[%zu]: not a string", i);
            goto error;
        }
        names[i] = json_object_get_string (v);
        if (strlen (names[i]) != (size_t)json_object_get_string_len (v)) {
            errprintf (errp, "hosts[%zu]: control character in name", i);
            goto error;
        }
    }
    *namesp = names;
    *np = (int)n;
    return 0;
error:
    free (names);
    return -1;
}

static int netmap_json_params_read (json_object *o, netmap_params_t *p, tm_error_t *errp)
{
    const char *pre = "params.";
    json_object *po, *v;
    int64_t x;

    if (netmap_json_get (o, "", "params", json_type_object, &po, errp) < 0 ||
        netmap_json_keys (po, pre, netmap_param_keys, errp) < 0)
        return -1;
    if (netmap_json_get (po, pre, "lat_bytes", json_type_int, &v, errp) < 0 ||
        netmap_json_int (v, "params.lat_bytes", 0, INT64_MAX - 1, &x, errp) < 0)
        return -1;
    if ((uint64_t)x > SIZE_MAX)
        return errprintf (errp, "params.lat_bytes: too large");
    p->lat_bytes = (size_t)x;
    if (netmap_json_get (po, pre, "bw_bytes", json_type_int, &v, errp) < 0 ||
        netmap_json_int (v, "params.bw_bytes", 0, INT64_MAX - 1, &x, errp) < 0)
        return -1;
    if ((uint64_t)x > SIZE_MAX)
        return errprintf (errp, "params.bw_bytes: too large");
    p->bw_bytes = (size_t)x;
    if (netmap_json_get (po, pre, "bw_messages", json_type_int, &v, errp) < 0 ||
        netmap_json_int (v, "params.bw_messages", 0, INT_MAX, &x, errp) < 0)
        return -1;
    p->bw_messages = (int)x;
    if (netmap_json_get (po, pre, "concurrency", json_type_int, &v, errp) < 0 ||
        netmap_json_int (v, "params.concurrency", 0, INT_MAX, &x, errp) < 0)
        return -1;
    p->concurrency = (int)x;
    if (netmap_json_get (po, pre, "min_samples", json_type_int, &v, errp) < 0 ||
        netmap_json_int (v, "params.min_samples", 0, INT_MAX, &x, errp) < 0)
        return -1;
    p->min_samples = (int)x;
    if (netmap_json_get (po, pre, "max_samples", json_type_int, &v, errp) < 0 ||
        netmap_json_int (v, "params.max_samples", 0, INT_MAX, &x, errp) < 0)
        return -1;
    p->max_samples = (int)x;
    if (netmap_json_get (po, pre, "ci_rel", json_type_double, &v, errp) < 0 ||
        netmap_json_number (v, "params.ci_rel", false, &p->ci_rel, errp) < 0)
        return -1;
    if (netmap_json_get (po, pre, "budget_s", json_type_double, &v, errp) < 0 ||
        netmap_json_number (v, "params.budget_s", false, &p->budget_s, errp) < 0)
        return -1;
    return 0;
}

/* Strictly "YYYY-MM-DDTHH:MM:SSZ", a real UTC time. */
static int netmap_parse_time (const char *s, time_t *tp)
{
    static const char pattern[] = "dddd-dd-ddTdd:dd:ddZ";
    struct tm tm = {0}, back;
    time_t t;

    if (strlen (s) != sizeof (pattern) - 1)
        return -1;
    for (size_t i = 0; pattern[i]; i++)
        if (pattern[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != pattern[i])
            return -1;
    if (sscanf (s, "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    back = tm;
    t = timegm (&tm);
    /* timegm normalizes out-of-range fields: a real time comes back unchanged. */
    if (!gmtime_r (&t, &tm) || tm.tm_year != back.tm_year || tm.tm_mon != back.tm_mon ||
        tm.tm_mday != back.tm_mday || tm.tm_hour != back.tm_hour || tm.tm_min != back.tm_min ||
        tm.tm_sec != back.tm_sec)
        return -1;
    *tp = t;
    return 0;
}

/* An array key of o with len integers (iv) or numbers (d) in it. */
static int netmap_json_topo_list (json_object *o, const char *key, size_t len, int64_t lo, int *iv,
                                  double *d, tm_error_t *errp)
{
    json_object *a;
    char what[64];
    size_t have;

    if (netmap_json_get (o, "topology.", key, json_type_array, &a, errp) < 0)
        return -1;
    have = json_object_array_length (a);
    if (have != len)
        return errprintf (errp, "topology.%s: %zu entries, expected %zu", key, have, len);
    for (size_t k = 0; k < len; k++) {
        json_object *v = json_object_array_get_idx (a, k);
        int64_t x;

        snprintf (what, sizeof (what), "topology.%s[%zu]", key, k);
        if (iv) {
            if (netmap_json_int (v, what, lo, INT_MAX, &x, errp) < 0)
                return -1;
            iv[k] = (int)x;
        } else if (netmap_json_number (v, what, false, &d[k], errp) < 0)
            return -1;
    }
    return 0;
}

static int netmap_json_topo_read (json_object *o, int n, topo_t **tp, tm_error_t *errp)
{
    const char *pre = "topology.";
    json_object *to, *v;
    topo_t *t = NULL;
    topo_model_t model;
    const char *s;
    int64_t nvertices, ngroups;
    tm_error_t e;

    if (!json_object_object_get_ex (o, "topology", &to))
        return errprintf (errp, "missing key 'topology'");
    if (!to) {
        *tp = NULL;
        return 0;
    }
    if (!json_object_is_type (to, json_type_object))
        return errprintf (errp, "topology: not null or an object");
    if (netmap_json_keys (to, pre, netmap_topo_keys, errp) < 0 ||
        netmap_json_get (to, pre, "model", json_type_string, &v, errp) < 0)
        return -1;
    s = json_object_get_string (v);
    if (strcmp (s, "tree") == 0)
        model = TOPO_TREE;
    else if (strcmp (s, "groups") == 0)
        model = TOPO_GROUPS;
    else
        return errprintf (errp, "topology.model: '%s', expected 'tree' or 'groups'",
                          netmap_quote (s));
    if (netmap_json_get (to, pre, "nvertices", json_type_int, &v, errp) < 0 ||
        netmap_json_int (v, "topology.nvertices", n, INT_MAX, &nvertices, errp) < 0 ||
        netmap_json_get (to, pre, "ngroups", json_type_int, &v, errp) < 0 ||
        netmap_json_int (v, "topology.ngroups", 1, n, &ngroups, errp) < 0)
        return -1;
    /* Sizes agree with the arrays before anything is allocated for them. */
    if (netmap_json_get (to, pre, "parent", json_type_array, &v, errp) < 0)
        return -1;
    if (json_object_array_length (v) != (size_t)nvertices)
        return errprintf (errp, "topology.parent: %zu entries, expected nvertices %" PRId64,
                          json_object_array_length (v), nvertices);
    if (!(t = topo_alloc (model, n, (int)nvertices, &e)))
        return errprintf (errp, "topology: %s", e.text);
    t->ngroups = (int)ngroups;
    if (netmap_json_topo_list (to, "parent", (size_t)nvertices, -1, t->parent, NULL, errp) < 0 ||
        netmap_json_topo_list (to, "height", (size_t)nvertices, 0, NULL, t->height, errp) < 0 ||
        netmap_json_topo_list (to, "group", (size_t)n, 0, t->group, NULL, errp) < 0) {
        topo_destroy (t);
        return -1;
    }
    *tp = t;
    return 0;
}

/* A netmap from a parsed document.  Messages do not name the file. */
static netmap_t *netmap_from_json (json_object *o, tm_error_t *errp)
{
    netmap_t *nm = NULL;
    const char **names = NULL;
    json_object *v, *lat, *ci, *bw, *samples;
    const char *s;
    int64_t x;
    int n = 0;
    int err = EINVAL;

    if (netmap_json_get (o, "", "kind", json_type_string, &v, errp) < 0)
        goto error;
    s = json_object_get_string (v);
    if (strcmp (s, NETMAP_KIND) != 0) {
        errprintf (errp, "kind '%s', expected '%s'", netmap_quote (s), NETMAP_KIND);
        goto error;
    }
    if (netmap_json_get (o, "", "schema", json_type_int, &v, errp) < 0 ||
        netmap_json_int (v, "schema", INT64_MIN, INT64_MAX, &x, errp) < 0)
        goto error;
    if (x != NETMAP_SCHEMA) {
        errprintf (errp, "schema %" PRId64 ", expected %d", x, NETMAP_SCHEMA);
        goto error;
    }
    if (netmap_json_keys (o, "", netmap_keys, errp) < 0 ||
        netmap_json_hosts (o, &names, &n, errp) < 0)
        goto error;
    /* Shapes first: they bound what netmap_create allocates. */
    if (netmap_json_shape (o, "latency_us", n, &lat, errp) < 0 ||
        netmap_json_shape (o, "latency_ci_us", n, &ci, errp) < 0 ||
        netmap_json_shape (o, "bandwidth_MBps", n, &bw, errp) < 0 ||
        netmap_json_shape (o, "samples", n, &samples, errp) < 0)
        goto error;
    if (!(nm = netmap_create (n, names, errp))) {
        err = errno;
        goto error;
    }
    if (netmap_json_fill (lat, "latency_us", n, nm->lat_us, NULL, errp) < 0 ||
        netmap_json_fill (ci, "latency_ci_us", n, nm->lat_ci_us, NULL, errp) < 0 ||
        netmap_json_fill (bw, "bandwidth_MBps", n, nm->bw_MBps, NULL, errp) < 0 ||
        netmap_json_fill (samples, "samples", n, NULL, nm->samples, errp) < 0 ||
        netmap_json_params_read (o, &nm->params, errp) < 0)
        goto error;
    if (netmap_json_get (o, "", "measure_s", json_type_double, &v, errp) < 0 ||
        netmap_json_number (v, "measure_s", false, &nm->measure_s, errp) < 0)
        goto error;
    if (netmap_json_get (o, "", "jobid", json_type_string, &v, errp) < 0)
        goto error;
    if ((size_t)json_object_get_string_len (v) >= sizeof (nm->jobid)) {
        errprintf (errp, "jobid: longer than %zu bytes", sizeof (nm->jobid) - 1);
        goto error;
    }
    if (netmap_has_control (json_object_get_string (v), (size_t)json_object_get_string_len (v))) {
        errprintf (errp, "jobid: control character");
        goto error;
    }
    strcpy (nm->jobid, json_object_get_string (v));
    if (netmap_json_get (o, "", "timestamp", json_type_string, &v, errp) < 0)
        goto error;
    if (netmap_parse_time (json_object_get_string (v), &nm->timestamp) < 0) {
        errprintf (errp, "timestamp: not a UTC time YYYY-MM-DDTHH:MM:SSZ");
        goto error;
    }
    if (netmap_json_topo_read (o, n, &nm->topo, errp) < 0 || netmap_check (nm, errp) < 0)
        goto error;
    free (names);
    return nm;
error:
    free (names);
    netmap_destroy (nm);
    errno = err;
    return NULL;
}

netmap_t *netmap_read (const char *path, tm_error_t *errp)
{
    char *buf = NULL;
    size_t len = 0;
    json_object *o = NULL;
    netmap_t *nm = NULL;
    tm_error_t e;
    int saved;

    if (!path || path[0] == '\0') {
        errprintf (errp, "netmap_read: no path");
        errno = EINVAL;
        return NULL;
    }
    if (netmap_slurp (path, &buf, &len, errp) < 0)
        goto out;
    if (!(o = netmap_parse (buf, len, &e)) || !(nm = netmap_from_json (o, &e)))
        errprintf (errp, "%s: %s", path, e.text);
out:
    saved = errno;
    free (buf);
    json_object_put (o);
    errno = saved;
    return nm;
}
