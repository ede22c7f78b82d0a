/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netmap.c: the netmap file, written and read with json-c.
 *
 * Schema 6.  Every key is required and no other key is allowed:
 *
 *   {
 *     "schema": 6,
 *     "kind": "topomap-netmap",
 *     "hosts": ["n0", "n1", ...],
 *     "latency_us": [[...], ...],
 *     "latency_ci_us": [[...], ...],
 *     "bandwidth_MBps": [[...], ...],
 *     "samples": [[...], ...],
 *     "measured": [[...], ...],
 *     "params": {"lat_bytes": 1024, "bw_bytes": 262144, "bw_messages": 1,
 *                "bw_enough_ms": 2.0, "min_samples": 5, "max_samples": 200,
 *                "ci_rel": 0.03, "budget_s": 10, "concurrency": 0},
 *     "measure_s": 3.25,
 *     "jobid": "1234",
 *     "timestamp": "2026-11-20T21:44:50Z",
 *     "topology": null or {
 *       "model": "tree" or "groups",
 *       "nvertices": V,
 *       "parent": [V integers],
 *       "height": [V numbers],
 *       "ngroups": G,
 *       "group": [n integers],
 *       "signal": "latency", "bandwidth" or "site" (schema 3: the site's
 *                 topology.conf, lib/topoconf.h),
 *       "residual": a number or null,
 *       "uplink_MBps": [V numbers or nulls]
 *     },
 *     "inside": [null or {
 *       "cpus": [OS indexes], "l3": [a domain per CPU],
 *       "package": [a package per domain],
 *       "latency_us": [3 numbers or nulls], "bandwidth_MBps": [likewise]
 *     }, ...],
 *     "slots": [null or {"gpus": [...], "nics": [...], "note": "..."}, ...]
 *   }
 *
 * hosts     n >= 1 distinct, non-empty names without control characters,
 *           in probe rank order; they index the matrices.
 * matrices  n rows of n entries, row i from host i to host columns j.
 *           latency_us, latency_ci_us: finite numbers >= 0 (microseconds),
 *           at most NETMAP_MAX_LAT_US; bandwidth_MBps: finite numbers > 0
 *           (1e6 bytes/s), at most NETMAP_MAX_BW_MBPS; samples:
 *           integers >= 0.  On the diagonal (intra-node figures) the three
 *           figures may be null: not measured, NaN in memory.  measured:
 *           integers >= 0, how many times the probe measured the pair (0:
 *           its figures were inferred from the tree; 2: measured again, the
 *           better figures kept); symmetric, 0 on a diagonal of nulls.
 * params    how the probe measured (netmap_params_t): integers >= 0,
 *           max_samples >= min_samples; ci_rel, budget_s, bw_enough_ms
 *           finite >= 0 (bw_enough_ms absent: 0, as before it existed).
 * measure_s wall time spent measuring, seconds, finite >= 0.
 * jobid     the Slurm job id, "" when unknown, at most 31 bytes.
 * timestamp when measured, UTC, ISO 8601 "YYYY-MM-DDTHH:MM:SSZ".
 * topology  the inferred topo_t (lib/topology.h): vertices 0..n-1 are the
 *           hosts, parent -1 for the root only; it must pass topo_check().
 *           signal: what it was inferred from; residual: topo_fit's on that
 *           signal, finite >= 0, null when not known.  uplink_MBps: what
 *           the link above each vertex carried with every host below it
 *           sending out at once, finite > 0 and at most NETMAP_MAX_BW_MBPS,
 *           null where not measured and for the root.
 * inside    n entries, host i's inside (lib/inside.h) or null where the
 *           probe did not read it: the CPUs the job may use there, by OS
 *           index, ascending; the L3 domain of each, numbered from 0 in
 *           the order of their first CPU; the package of each domain,
 *           likewise; figures between two CPUs of one L3 domain, of one
 *           package, of two packages, null where not measured.  It must
 *           pass inside_check().
 * slots     n entries, host i's GPU slots (lib/slots.h, slots_to_json) or
 *           null where the probe did not read them; each must pass
 *           slots_check().
 *
 * Schema 5 is read as well, without slots (every host's null); schema 4
 * also without uplink_MBps (every link's null);
 * schema 3 without inside either (every host's null); schemas
 * 1 and 2 too: they have no measured matrix (every
 * pair measured once, a null diagonal entry not at all), and schema 1
 * (before topomap inferred trees from bandwidth too) has neither signal
 * nor residual in its topology (latency, unknown).
 *
 * The writer refuses a netmap that the reader would reject.  It writes
 * hosts, each matrix row and each topology array on one line, numbers in
 * the fewest digits that read back exactly.
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
#include <time.h>

#include <json.h>

#include "lib/file.h"
#include "lib/jsonfile.h"
#include "lib/netmap.h"
#include "lib/stats.h"

#define NETMAP_KIND      "topomap-netmap"
#define NETMAP_MAX_BYTES (64 * 1024 * 1024)

static const char *const netmap_keys[] = {
    "schema",   "kind",     "hosts",  "latency_us", "latency_ci_us", "bandwidth_MBps",
    "samples",  "measured", "params", "measure_s",  "jobid",         "timestamp",
    "topology", "inside",   "slots",  NULL,
};

/* Schemas 4 and 5: the same without slots. */
static const char *const netmap_keys_5[] = {
    "schema",         "kind",      "hosts",    "latency_us", "latency_ci_us",
    "bandwidth_MBps", "samples",   "measured", "params",     "measure_s",
    "jobid",          "timestamp", "topology", "inside",     NULL,
};

/* Schema 3: the same without inside. */
static const char *const netmap_keys_3[] = {
    "schema",   "kind",   "hosts",     "latency_us", "latency_ci_us", "bandwidth_MBps", "samples",
    "measured", "params", "measure_s", "jobid",      "timestamp",     "topology",       NULL,
};

/* Schemas 1 and 2: the same without measured. */
static const char *const netmap_keys_2[] = {
    "schema",         "kind",     "hosts",  "latency_us", "latency_ci_us",
    "bandwidth_MBps", "samples",  "params", "measure_s",  "jobid",
    "timestamp",      "topology", NULL,
};

static const char *const netmap_param_keys[] = {
    "lat_bytes",   "bw_bytes", "bw_messages", "bw_enough_ms", "min_samples",
    "max_samples", "ci_rel",   "budget_s",    "concurrency",  NULL,
};

static const char *const netmap_topo_keys[] = {
    "model", "nvertices", "parent",   "height",      "ngroups",
    "group", "signal",    "residual", "uplink_MBps", NULL,
};

/* Schemas 2 to 4: the same without uplink_MBps. */
static const char *const netmap_topo_keys_4[] = {
    "model", "nvertices", "parent", "height", "ngroups", "group", "signal", "residual", NULL,
};

/* Schema 1's topology keys: the same without signal and residual. */
static const char *const netmap_topo_keys_1[] = {
    "model", "nvertices", "parent", "height", "ngroups", "group", NULL,
};

static const char *const netmap_inside_keys[] = {
    "cpus", "l3", "package", "latency_us", "bandwidth_MBps", NULL,
};

void netmap_params_default (netmap_params_t *p)
{
    p->lat_bytes = 1024;
    p->bw_bytes = 262144;
    p->bw_messages = 1;
    p->bw_enough_ms = 2;
    p->min_samples = 5;
    p->max_samples = 200;
    p->ci_rel = 0.03;
    p->budget_s = 10;
    p->concurrency = 0;
}

size_t netmap_lead_bytes (const netmap_params_t *p)
{
    return p->bw_bytes >= 4 ? p->bw_bytes / 4 : 1;
}

int netmap_lead_enough (const netmap_params_t *p, double lead_s)
{
    return p->bw_enough_ms > 0 && lead_s > 0 && lead_s * 1e3 >= p->bw_enough_ms;
}

/* Checks shared by create, write and read. */

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
        if (jsonfile_has_control (hosts[i], strlen (hosts[i]))) {
            errprintf (errp, "hosts[%d]: control character in name", i);
            goto out;
        }
    }
    if (!(sorted = malloc ((size_t)n * sizeof (*sorted)))) {
        errnomem (errp);
        err = ENOMEM;
        goto out;
    }
    memcpy (sorted, hosts, (size_t)n * sizeof (*sorted));
    qsort (sorted, (size_t)n, sizeof (*sorted), netmap_cmp_names);
    for (int i = 1; i < n; i++)
        if (strcmp (sorted[i - 1], sorted[i]) == 0) {
            errprintf (errp, "hosts: '%s' appears twice", jsonfile_quote (sorted[i]));
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
 * at most max, and > 0 when positive is set.
 */
static int netmap_check_entry (const netmap_t *nm, const char *key, const double *m, bool positive,
                               double max, int i, int j, tm_error_t *errp)
{
    double x = m[(size_t)i * (size_t)nm->n + (size_t)j];
    const char *fault = NULL;
    char above[64];

    if (i == j && isnan (x))
        return 0;
    if (!isfinite (x))
        fault = "not a finite number";
    else if (x < 0)
        fault = "negative";
    else if (positive && x == 0)
        fault = "zero, must be > 0";
    else if (x > max) {
        snprintf (above, sizeof (above), "%g, above %g", x, max);
        fault = above;
    }
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
    if (!isfinite (p->bw_enough_ms) || p->bw_enough_ms < 0)
        return errprintf (errp, "params.bw_enough_ms: not a finite number >= 0");
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
    /* A tree's heights are hop levels, which its readers use as indexes:
     * whole numbers, 0 for hosts, 1 to TOPO_MAX_DEPTH for switches. */
    for (int v = 0; v < t->nvertices; v++) {
        double h = t->height[v];
        int lo = v < t->nhosts ? 0 : 1, hi = v < t->nhosts ? 0 : TOPO_MAX_DEPTH;

        if (t->model != TOPO_TREE && !(isfinite (h) && h >= 0))
            return errprintf (errp, "topology.height[%d]: not a finite number >= 0", v);
        if (t->model == TOPO_TREE && v < t->nhosts && h != 0)
            return errprintf (errp, "topology.height[%d]: not 0, a host's", v);
        if (t->model == TOPO_TREE && !(h >= lo && h <= hi && h == floor (h)))
            return errprintf (errp, "topology.height[%d]: not a whole number from %d to %d", v, lo,
                              hi);
    }
    if (t->signal != TOPO_SIGNAL_LATENCY && t->signal != TOPO_SIGNAL_BANDWIDTH &&
        t->signal != TOPO_SIGNAL_SITE)
        return errprintf (errp, "topology.signal: %d, not latency, bandwidth or site",
                          (int)t->signal);
    if (!isnan (t->residual) && !(isfinite (t->residual) && t->residual >= 0))
        return errprintf (errp, "topology.residual: not a finite number >= 0 or null");
    for (int v = 0; v < t->nvertices; v++) {
        double u = t->uplink_MBps[v];

        if (!isnan (u) && t->parent[v] < 0)
            return errprintf (errp, "topology.uplink_MBps[%d]: not null, the root's", v);
        if (!isnan (u) && !(isfinite (u) && u > 0 && u <= NETMAP_MAX_BW_MBPS))
            return errprintf (
                errp, "topology.uplink_MBps[%d]: not a number above 0 and at most %g, or null", v,
                NETMAP_MAX_BW_MBPS);
    }
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
            if (netmap_check_entry (nm, "latency_us", nm->lat_us, false, NETMAP_MAX_LAT_US, i, j,
                                    errp) < 0 ||
                netmap_check_entry (nm, "latency_ci_us", nm->lat_ci_us, false, NETMAP_MAX_LAT_US, i,
                                    j, errp) < 0 ||
                netmap_check_entry (nm, "bandwidth_MBps", nm->bw_MBps, true, NETMAP_MAX_BW_MBPS, i,
                                    j, errp) < 0)
                return -1;
            if (NETMAP_AT (nm, samples, i, j) < 0)
                return errprintf (errp, "samples[%d][%d]: negative (%s to %s)", i, j, nm->hosts[i],
                                  nm->hosts[j]);
            if (NETMAP_AT (nm, measured, i, j) < 0)
                return errprintf (errp, "measured[%d][%d]: negative (%s to %s)", i, j, nm->hosts[i],
                                  nm->hosts[j]);
            if (NETMAP_AT (nm, measured, i, j) != NETMAP_AT (nm, measured, j, i))
                return errprintf (errp, "measured[%d][%d]: %d, but %d from %s to %s", i, j,
                                  NETMAP_AT (nm, measured, i, j), NETMAP_AT (nm, measured, j, i),
                                  nm->hosts[j], nm->hosts[i]);
            if (i == j && isnan (NETMAP_AT (nm, lat_us, i, i)) && NETMAP_AT (nm, measured, i, i))
                return errprintf (errp,
                                  "measured[%d][%d]: %d, but %s's intra-node figures are null", i,
                                  i, NETMAP_AT (nm, measured, i, i), nm->hosts[i]);
        }
    if (netmap_check_params (&nm->params, errp) < 0)
        return -1;
    if (!isfinite (nm->measure_s) || nm->measure_s < 0)
        return errprintf (errp, "measure_s: not a finite number >= 0");
    jobid_len = strnlen (nm->jobid, sizeof (nm->jobid));
    if (jobid_len == sizeof (nm->jobid))
        return errprintf (errp, "jobid: longer than %zu bytes", sizeof (nm->jobid) - 1);
    if (jsonfile_has_control (nm->jobid, jobid_len))
        return errprintf (errp, "jobid: control character");
    if (nm->topo && netmap_check_topo (nm, errp) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        char what[64];

        snprintf (what, sizeof (what), "inside[%d]", i);
        if (nm->inside[i] && inside_check (nm->inside[i], what, errp) < 0)
            return -1;
        snprintf (what, sizeof (what), "slots[%d]", i);
        if (nm->slots[i] && slots_check (nm->slots[i], what, errp) < 0)
            return -1;
    }
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
    nm->measured = calloc (nn, sizeof (*nm->measured));
    nm->inside = calloc ((size_t)n, sizeof (*nm->inside));
    nm->slots = calloc ((size_t)n, sizeof (*nm->slots));
    if (!nm->lat_us || !nm->lat_ci_us || !nm->bw_MBps || !nm->samples || !nm->measured ||
        !nm->inside || !nm->slots)
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
    errnomem (errp);
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
    free (nm->measured);
    if (nm->inside)
        for (int i = 0; i < nm->n; i++)
            inside_destroy (nm->inside[i]);
    free (nm->inside);
    if (nm->slots)
        for (int i = 0; i < nm->n; i++)
            slots_free (nm->slots[i]);
    free (nm->slots);
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

/* An array on one line of len doubles (NaN as null), or ints. */
static json_object *netmap_json_list (const double *d, const int *iv, size_t len)
{
    json_object *a;

    if (iv)
        return jsonfile_ints (iv, len);
    if (!(a = json_object_new_array ()))
        return NULL;
    json_object_set_serializer (a, jsonfile_inline, NULL, NULL);
    for (size_t k = 0; k < len; k++) {
        bool null_ok = isnan (d[k]);

        if (jsonfile_add (a, NULL, null_ok ? NULL : jsonfile_double (d[k]), null_ok) < 0) {
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

        if (jsonfile_add (m, NULL, row, false) < 0) {
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
    if (jsonfile_add (o, "lat_bytes", json_object_new_int64 ((int64_t)p->lat_bytes), false) < 0 ||
        jsonfile_add (o, "bw_bytes", json_object_new_int64 ((int64_t)p->bw_bytes), false) < 0 ||
        jsonfile_add (o, "bw_messages", json_object_new_int (p->bw_messages), false) < 0 ||
        jsonfile_add (o, "bw_enough_ms", jsonfile_double (p->bw_enough_ms), false) < 0 ||
        jsonfile_add (o, "min_samples", json_object_new_int (p->min_samples), false) < 0 ||
        jsonfile_add (o, "max_samples", json_object_new_int (p->max_samples), false) < 0 ||
        jsonfile_add (o, "ci_rel", jsonfile_double (p->ci_rel), false) < 0 ||
        jsonfile_add (o, "budget_s", jsonfile_double (p->budget_s), false) < 0 ||
        jsonfile_add (o, "concurrency", json_object_new_int (p->concurrency), false) < 0) {
        json_object_put (o);
        return NULL;
    }
    return o;
}

static json_object *netmap_json_topo (const topo_t *t)
{
    json_object *o;
    const char *model = t->model == TOPO_TREE ? "tree" : "groups";
    const char *signal = t->signal == TOPO_SIGNAL_BANDWIDTH ? "bandwidth"
                         : t->signal == TOPO_SIGNAL_SITE    ? "site"
                                                            : "latency";

    if (!(o = json_object_new_object ()))
        return NULL;
    if (jsonfile_add (o, "model", json_object_new_string (model), false) < 0 ||
        jsonfile_add (o, "nvertices", json_object_new_int (t->nvertices), false) < 0 ||
        jsonfile_add (o, "parent", netmap_json_list (NULL, t->parent, (size_t)t->nvertices),
                      false) < 0 ||
        jsonfile_add (o, "height", netmap_json_list (t->height, NULL, (size_t)t->nvertices),
                      false) < 0 ||
        jsonfile_add (o, "ngroups", json_object_new_int (t->ngroups), false) < 0 ||
        jsonfile_add (o, "group", netmap_json_list (NULL, t->group, (size_t)t->nhosts), false) <
            0 ||
        jsonfile_add (o, "signal", json_object_new_string (signal), false) < 0 ||
        /* null only for a residual not known, not for want of memory */
        jsonfile_add (o, "residual", isnan (t->residual) ? NULL : jsonfile_double (t->residual),
                      isnan (t->residual)) < 0 ||
        jsonfile_add (o, "uplink_MBps",
                      netmap_json_list (t->uplink_MBps, NULL, (size_t)t->nvertices), false) < 0) {
        json_object_put (o);
        return NULL;
    }
    return o;
}

static json_object *netmap_json_inside (const inside_t *in)
{
    json_object *o;

    if (!(o = json_object_new_object ()))
        return NULL;
    if (jsonfile_add (o, "cpus", netmap_json_list (NULL, in->cpu, (size_t)in->ncpus), false) < 0 ||
        jsonfile_add (o, "l3", netmap_json_list (NULL, in->l3, (size_t)in->ncpus), false) < 0 ||
        jsonfile_add (o, "package", netmap_json_list (NULL, in->package, (size_t)in->nl3), false) <
            0 ||
        jsonfile_add (o, "latency_us", netmap_json_list (in->lat_us, NULL, INSIDE_LEVELS), false) <
            0 ||
        jsonfile_add (o, "bandwidth_MBps", netmap_json_list (in->bw_MBps, NULL, INSIDE_LEVELS),
                      false) < 0) {
        json_object_put (o);
        return NULL;
    }
    return o;
}

/* The JSON document of a checked netmap, NULL when out of memory. */
static json_object *netmap_to_json (const netmap_t *nm, const char *timestamp)
{
    json_object *o, *hosts, *topo = NULL, *inside, *slots;

    if (!(o = json_object_new_object ()))
        return NULL;
    if (jsonfile_add (o, "schema", json_object_new_int (NETMAP_SCHEMA), false) < 0 ||
        jsonfile_add (o, "kind", json_object_new_string (NETMAP_KIND), false) < 0 ||
        jsonfile_add (o, "hosts", hosts = json_object_new_array (), false) < 0)
        goto error;
    json_object_set_serializer (hosts, jsonfile_inline, NULL, NULL);
    for (int i = 0; i < nm->n; i++)
        if (jsonfile_add (hosts, NULL, json_object_new_string (nm->hosts[i]), false) < 0)
            goto error;
    if (jsonfile_add (o, "latency_us", netmap_json_matrix (nm->n, nm->lat_us, NULL), false) < 0 ||
        jsonfile_add (o, "latency_ci_us", netmap_json_matrix (nm->n, nm->lat_ci_us, NULL), false) <
            0 ||
        jsonfile_add (o, "bandwidth_MBps", netmap_json_matrix (nm->n, nm->bw_MBps, NULL), false) <
            0 ||
        jsonfile_add (o, "samples", netmap_json_matrix (nm->n, NULL, nm->samples), false) < 0 ||
        jsonfile_add (o, "measured", netmap_json_matrix (nm->n, NULL, nm->measured), false) < 0 ||
        jsonfile_add (o, "params", netmap_json_params (&nm->params), false) < 0 ||
        jsonfile_add (o, "measure_s", jsonfile_double (nm->measure_s), false) < 0 ||
        jsonfile_add (o, "jobid", json_object_new_string (nm->jobid), false) < 0 ||
        jsonfile_add (o, "timestamp", json_object_new_string (timestamp), false) < 0)
        goto error;
    if (nm->topo && !(topo = netmap_json_topo (nm->topo)))
        goto error;
    if (jsonfile_add (o, "topology", topo, true) < 0 ||
        jsonfile_add (o, "inside", inside = json_object_new_array (), false) < 0)
        goto error;
    for (int i = 0; i < nm->n; i++) {
        json_object *e = NULL;

        if (nm->inside[i] && !(e = netmap_json_inside (nm->inside[i])))
            goto error;
        if (jsonfile_add (inside, NULL, e, !nm->inside[i]) < 0)
            goto error;
    }
    if (jsonfile_add (o, "slots", slots = json_object_new_array (), false) < 0)
        goto error;
    for (int i = 0; i < nm->n; i++) {
        json_object *e = NULL;

        if (nm->slots[i] && !(e = slots_to_json (nm->slots[i])))
            goto error;
        if (jsonfile_add (slots, NULL, e, !nm->slots[i]) < 0)
            goto error;
    }
    return o;
error:
    json_object_put (o);
    return NULL;
}

int netmap_write (const netmap_t *nm, const char *path, int mode, tm_error_t *errp)
{
    json_object *root = NULL;
    int rc = -1;
    char timestamp[32];
    tm_error_t e;

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
    if (jsonfile_format_time (nm->timestamp, timestamp, sizeof (timestamp)) < 0) {
        errprintf (errp, "%s: timestamp: out of range", path);
        errno = EINVAL;
        goto out;
    }
    if (!(root = netmap_to_json (nm, timestamp))) {
        errprintf (errp, "%s: out of memory", path);
        errno = ENOMEM;
        goto out;
    }
    rc = file_replace_json (path, root, mode, errp);
out:
    json_object_put (root);
    return rc;
}

/* Reading */

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

    if (jsonfile_get (o, "", key, json_type_array, &m, errp) < 0)
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
                if (jsonfile_int (v, what, INT_MIN, INT_MAX, &x, errp) < 0)
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

    if (jsonfile_get (o, "", "hosts", json_type_array, &a, errp) < 0)
        return -1;
    n = json_object_array_length (a);
    if (n < 1)
        return errprintf (errp, "hosts: empty");
    if (n > INT_MAX)
        return errprintf (errp, "hosts: too many");
    if (!(names = calloc (n, sizeof (*names)))) {
        errnomem (errp);
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

    if (jsonfile_get (o, "", "params", json_type_object, &po, errp) < 0 ||
        jsonfile_keys (po, pre, netmap_param_keys, errp) < 0)
        return -1;
    if (jsonfile_get (po, pre, "lat_bytes", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "params.lat_bytes", 0, INT64_MAX - 1, &x, errp) < 0)
        return -1;
    if ((uint64_t)x > SIZE_MAX)
        return errprintf (errp, "params.lat_bytes: too large");
    p->lat_bytes = (size_t)x;
    if (jsonfile_get (po, pre, "bw_bytes", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "params.bw_bytes", 0, INT64_MAX - 1, &x, errp) < 0)
        return -1;
    if ((uint64_t)x > SIZE_MAX)
        return errprintf (errp, "params.bw_bytes: too large");
    p->bw_bytes = (size_t)x;
    if (jsonfile_get (po, pre, "bw_messages", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "params.bw_messages", 0, INT_MAX, &x, errp) < 0)
        return -1;
    p->bw_messages = (int)x;
    /* Absent from netmaps of probes without a lead message. */
    p->bw_enough_ms = 0;
    if (json_object_object_get_ex (po, "bw_enough_ms", NULL) &&
        (jsonfile_get (po, pre, "bw_enough_ms", json_type_double, &v, errp) < 0 ||
         netmap_json_number (v, "params.bw_enough_ms", false, &p->bw_enough_ms, errp) < 0))
        return -1;
    if (jsonfile_get (po, pre, "concurrency", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "params.concurrency", 0, INT_MAX, &x, errp) < 0)
        return -1;
    p->concurrency = (int)x;
    if (jsonfile_get (po, pre, "min_samples", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "params.min_samples", 0, INT_MAX, &x, errp) < 0)
        return -1;
    p->min_samples = (int)x;
    if (jsonfile_get (po, pre, "max_samples", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "params.max_samples", 0, INT_MAX, &x, errp) < 0)
        return -1;
    p->max_samples = (int)x;
    if (jsonfile_get (po, pre, "ci_rel", json_type_double, &v, errp) < 0 ||
        netmap_json_number (v, "params.ci_rel", false, &p->ci_rel, errp) < 0)
        return -1;
    if (jsonfile_get (po, pre, "budget_s", json_type_double, &v, errp) < 0 ||
        netmap_json_number (v, "params.budget_s", false, &p->budget_s, errp) < 0)
        return -1;
    return 0;
}

/* An array key of o with len integers (iv) or numbers (d, null as NaN
 * where null_ok) in it. */
static int netmap_json_topo_list (json_object *o, const char *key, size_t len, int64_t lo, int *iv,
                                  double *d, bool null_ok, tm_error_t *errp)
{
    json_object *a;
    char what[64];
    size_t have;

    if (jsonfile_get (o, "topology.", key, json_type_array, &a, errp) < 0)
        return -1;
    have = json_object_array_length (a);
    if (have != len)
        return errprintf (errp, "topology.%s: %zu entries, expected %zu", key, have, len);
    for (size_t k = 0; k < len; k++) {
        json_object *v = json_object_array_get_idx (a, k);
        int64_t x;

        snprintf (what, sizeof (what), "topology.%s[%zu]", key, k);
        if (iv) {
            if (jsonfile_int (v, what, lo, INT_MAX, &x, errp) < 0)
                return -1;
            iv[k] = (int)x;
        } else if (netmap_json_number (v, what, null_ok, &d[k], errp) < 0)
            return -1;
    }
    return 0;
}

/* Schema 2's signal and residual of a topology. */
static int netmap_json_topo_fit (json_object *to, topo_t *t, int64_t schema, tm_error_t *errp)
{
    json_object *v;
    const char *s;

    if (jsonfile_get (to, "topology.", "signal", json_type_string, &v, errp) < 0)
        return -1;
    s = json_object_get_string (v);
    if (strcmp (s, "latency") == 0)
        t->signal = TOPO_SIGNAL_LATENCY;
    else if (strcmp (s, "bandwidth") == 0)
        t->signal = TOPO_SIGNAL_BANDWIDTH;
    else if (strcmp (s, "site") == 0 && schema >= 3)
        t->signal = TOPO_SIGNAL_SITE;
    else
        return errprintf (errp, "topology.signal: '%s', expected 'latency', 'bandwidth'%s",
                          jsonfile_quote (s), schema >= 3 ? " or 'site'" : "");
    if (!json_object_object_get_ex (to, "residual", &v))
        return errprintf (errp, "missing key 'topology.residual'");
    if (netmap_json_number (v, "topology.residual", true, &t->residual, errp) < 0)
        return -1;
    if (t->residual < 0)
        return errprintf (errp, "topology.residual: below 0");
    return 0;
}

static int netmap_json_topo_read (json_object *o, int n, int64_t schema, topo_t **tp,
                                  tm_error_t *errp)
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
    if (jsonfile_keys (to, pre,
                       schema == 1  ? netmap_topo_keys_1
                       : schema < 5 ? netmap_topo_keys_4
                                    : netmap_topo_keys,
                       errp) < 0 ||
        jsonfile_get (to, pre, "model", json_type_string, &v, errp) < 0)
        return -1;
    s = json_object_get_string (v);
    if (strcmp (s, "tree") == 0)
        model = TOPO_TREE;
    else if (strcmp (s, "groups") == 0)
        model = TOPO_GROUPS;
    else
        return errprintf (errp, "topology.model: '%s', expected 'tree' or 'groups'",
                          jsonfile_quote (s));
    if (jsonfile_get (to, pre, "nvertices", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "topology.nvertices", n, INT_MAX, &nvertices, errp) < 0 ||
        jsonfile_get (to, pre, "ngroups", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "topology.ngroups", 1, n, &ngroups, errp) < 0)
        return -1;
    /* Sizes agree with the arrays before anything is allocated for them. */
    if (jsonfile_get (to, pre, "parent", json_type_array, &v, errp) < 0)
        return -1;
    if (json_object_array_length (v) != (size_t)nvertices)
        return errprintf (errp, "topology.parent: %zu entries, expected nvertices %" PRId64,
                          json_object_array_length (v), nvertices);
    if (!(t = topo_alloc (model, n, (int)nvertices, &e)))
        return errprintf (errp, "topology: %s", e.text);
    t->ngroups = (int)ngroups;
    if (netmap_json_topo_list (to, "parent", (size_t)nvertices, -1, t->parent, NULL, false, errp) <
            0 ||
        netmap_json_topo_list (to, "height", (size_t)nvertices, 0, NULL, t->height, false, errp) <
            0 ||
        netmap_json_topo_list (to, "group", (size_t)n, 0, t->group, NULL, false, errp) < 0 ||
        (schema > 1 && netmap_json_topo_fit (to, t, schema, errp) < 0) ||
        (schema >= 5 && netmap_json_topo_list (to, "uplink_MBps", (size_t)nvertices, 0, NULL,
                                               t->uplink_MBps, true, errp) < 0)) {
        topo_destroy (t);
        return -1;
    }
    *tp = t;
    return 0;
}

/* An array key of o of n integers in lo..hi into iv; len: n. */
static int netmap_json_ints (json_object *o, const char *pre, const char *key, size_t n, int64_t lo,
                             int64_t hi, int *iv, tm_error_t *errp)
{
    json_object *a;
    char what[96];

    if (jsonfile_get (o, pre, key, json_type_array, &a, errp) < 0)
        return -1;
    if (json_object_array_length (a) != n)
        return errprintf (errp, "%s%s: %zu entries, expected %zu", pre, key,
                          json_object_array_length (a), n);
    for (size_t k = 0; k < n; k++) {
        int64_t x;

        snprintf (what, sizeof (what), "%s%s[%zu]", pre, key, k);
        if (jsonfile_int (json_object_array_get_idx (a, k), what, lo, hi, &x, errp) < 0)
            return -1;
        iv[k] = (int)x;
    }
    return 0;
}

/* One host's inside: NULL in *inp for null. */
static int netmap_json_inside_read (json_object *e, int i, inside_t **inp, tm_error_t *errp)
{
    char pre[32];
    json_object *a;
    inside_t *in = NULL;
    size_t ncpus;
    int nl3 = 0, npkg = 0;

    *inp = NULL;
    if (!e)
        return 0;
    snprintf (pre, sizeof (pre), "inside[%d].", i);
    if (!json_object_is_type (e, json_type_object))
        return errprintf (errp, "inside[%d]: neither an object nor null", i);
    if (jsonfile_keys (e, pre, netmap_inside_keys, errp) < 0 ||
        jsonfile_get (e, pre, "cpus", json_type_array, &a, errp) < 0)
        return -1;
    ncpus = json_object_array_length (a);
    if (ncpus < 1 || ncpus > INSIDE_MAX_CPUS)
        return errprintf (errp, "%scpus: %zu CPUs, expected 1 to %d", pre, ncpus, INSIDE_MAX_CPUS);
    if (!(in = calloc (1, sizeof (*in))) || !(in->cpu = calloc (ncpus, sizeof (int))) ||
        !(in->l3 = calloc (ncpus, sizeof (int)))) {
        errnomem (errp);
        goto error;
    }
    in->ncpus = (int)ncpus;
    if (netmap_json_ints (e, pre, "cpus", ncpus, 0, INT_MAX, in->cpu, errp) < 0 ||
        netmap_json_ints (e, pre, "l3", ncpus, 0, (int64_t)ncpus - 1, in->l3, errp) < 0)
        goto error;
    for (size_t k = 0; k < ncpus; k++)
        if (in->l3[k] >= nl3)
            nl3 = in->l3[k] + 1;
    in->nl3 = nl3;
    if (!(in->package = calloc ((size_t)nl3, sizeof (int)))) {
        errnomem (errp);
        goto error;
    }
    if (netmap_json_ints (e, pre, "package", (size_t)nl3, 0, nl3 - 1, in->package, errp) < 0)
        goto error;
    for (int d = 0; d < nl3; d++)
        if (in->package[d] >= npkg)
            npkg = in->package[d] + 1;
    in->npackages = npkg;
    for (int f = 0; f < 2; f++) {
        const char *key = f ? "bandwidth_MBps" : "latency_us";
        double *d = f ? in->bw_MBps : in->lat_us;
        char what[96];

        if (jsonfile_get (e, pre, key, json_type_array, &a, errp) < 0)
            goto error;
        if (json_object_array_length (a) != INSIDE_LEVELS) {
            errprintf (errp, "%s%s: %zu entries, expected %d", pre, key,
                       json_object_array_length (a), INSIDE_LEVELS);
            goto error;
        }
        for (int l = 0; l < INSIDE_LEVELS; l++) {
            snprintf (what, sizeof (what), "%s%s[%d]", pre, key, l);
            if (netmap_json_number (json_object_array_get_idx (a, (size_t)l), what, true, &d[l],
                                    errp) < 0)
                goto error;
        }
    }
    *inp = in;
    return 0;
error:
    inside_destroy (in);
    return -1;
}

/* The array key of o, an entry a host, into *ap. */
static int netmap_json_per_host (json_object *o, const char *key, int n, json_object **ap,
                                 tm_error_t *errp)
{
    if (jsonfile_get (o, "", key, json_type_array, ap, errp) < 0)
        return -1;
    if (json_object_array_length (*ap) != (size_t)n)
        return errprintf (errp, "%s: %zu entries, expected %d", key, json_object_array_length (*ap),
                          n);
    return 0;
}

static int netmap_json_slots_list (json_object *o, netmap_t *nm, tm_error_t *errp)
{
    json_object *a;

    if (netmap_json_per_host (o, "slots", nm->n, &a, errp) < 0)
        return -1;
    for (int i = 0; i < nm->n; i++) {
        json_object *e = json_object_array_get_idx (a, (size_t)i);
        char pre[32];

        snprintf (pre, sizeof (pre), "slots[%d].", i);
        if (e && !(nm->slots[i] = slots_from_json (e, pre, errp)))
            return -1;
    }
    return 0;
}

static int netmap_json_inside_list (json_object *o, netmap_t *nm, tm_error_t *errp)
{
    json_object *a;

    if (netmap_json_per_host (o, "inside", nm->n, &a, errp) < 0)
        return -1;
    for (int i = 0; i < nm->n; i++)
        if (netmap_json_inside_read (json_object_array_get_idx (a, (size_t)i), i, &nm->inside[i],
                                     errp) < 0)
            return -1;
    return 0;
}

/* A netmap from a parsed document.  Messages do not name the file. */
static netmap_t *netmap_from_json (json_object *o, tm_error_t *errp)
{
    netmap_t *nm = NULL;
    const char **names = NULL;
    json_object *v, *lat, *ci, *bw, *samples, *measured = NULL;
    const char *s;
    int64_t x, schema;
    int n = 0;
    int err = EINVAL;

    if (jsonfile_get (o, "", "kind", json_type_string, &v, errp) < 0)
        goto error;
    s = json_object_get_string (v);
    if (strcmp (s, NETMAP_KIND) != 0) {
        errprintf (errp, "kind '%s', expected '%s'", jsonfile_quote (s), NETMAP_KIND);
        goto error;
    }
    if (jsonfile_get (o, "", "schema", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "schema", INT64_MIN, INT64_MAX, &x, errp) < 0)
        goto error;
    if (x < 1 || x > NETMAP_SCHEMA) {
        errprintf (errp, "schema %" PRId64 ", expected 1 to %d", x, NETMAP_SCHEMA);
        goto error;
    }
    schema = x;
    if (jsonfile_keys (o, "",
                       schema < 3    ? netmap_keys_2
                       : schema == 3 ? netmap_keys_3
                       : schema < 6  ? netmap_keys_5
                                     : netmap_keys,
                       errp) < 0 ||
        netmap_json_hosts (o, &names, &n, errp) < 0)
        goto error;
    /* Shapes first: they bound what netmap_create allocates. */
    if (netmap_json_shape (o, "latency_us", n, &lat, errp) < 0 ||
        netmap_json_shape (o, "latency_ci_us", n, &ci, errp) < 0 ||
        netmap_json_shape (o, "bandwidth_MBps", n, &bw, errp) < 0 ||
        netmap_json_shape (o, "samples", n, &samples, errp) < 0 ||
        (schema >= 3 && netmap_json_shape (o, "measured", n, &measured, errp) < 0))
        goto error;
    if (!(nm = netmap_create (n, names, errp))) {
        err = errno;
        goto error;
    }
    if (netmap_json_fill (lat, "latency_us", n, nm->lat_us, NULL, errp) < 0 ||
        netmap_json_fill (ci, "latency_ci_us", n, nm->lat_ci_us, NULL, errp) < 0 ||
        netmap_json_fill (bw, "bandwidth_MBps", n, nm->bw_MBps, NULL, errp) < 0 ||
        netmap_json_fill (samples, "samples", n, NULL, nm->samples, errp) < 0 ||
        (measured && netmap_json_fill (measured, "measured", n, NULL, nm->measured, errp) < 0) ||
        netmap_json_params_read (o, &nm->params, errp) < 0)
        goto error;
    if (jsonfile_get (o, "", "measure_s", json_type_double, &v, errp) < 0 ||
        netmap_json_number (v, "measure_s", false, &nm->measure_s, errp) < 0)
        goto error;
    if (jsonfile_get (o, "", "jobid", json_type_string, &v, errp) < 0)
        goto error;
    if ((size_t)json_object_get_string_len (v) >= sizeof (nm->jobid)) {
        errprintf (errp, "jobid: longer than %zu bytes", sizeof (nm->jobid) - 1);
        goto error;
    }
    if (jsonfile_has_control (json_object_get_string (v), (size_t)json_object_get_string_len (v))) {
        errprintf (errp, "jobid: control character");
        goto error;
    }
    strcpy (nm->jobid, json_object_get_string (v));
    if (jsonfile_get (o, "", "timestamp", json_type_string, &v, errp) < 0)
        goto error;
    if (jsonfile_parse_time (json_object_get_string (v), &nm->timestamp) < 0) {
        errprintf (errp, "timestamp: not a UTC time YYYY-MM-DDTHH:MM:SSZ");
        goto error;
    }
    if (!measured) /* schemas 1 and 2: every figure there measured once */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                NETMAP_AT (nm, measured, i, j) = i != j || !isnan (NETMAP_AT (nm, lat_us, i, i));
    if (netmap_json_topo_read (o, n, schema, &nm->topo, errp) < 0 ||
        (schema >= 4 && netmap_json_inside_list (o, nm, errp) < 0) ||
        (schema >= 6 && netmap_json_slots_list (o, nm, errp) < 0) || netmap_check (nm, errp) < 0)
        goto error;
    free (names);
    return nm;
error:
    free (names);
    netmap_destroy (nm);
    errno = err;
    return NULL;
}

/* The netmap in o (released), read from what. */
static netmap_t *netmap_take (json_object *o, const char *what, tm_error_t *errp)
{
    netmap_t *nm;
    tm_error_t e;
    int saved;

    if (!(nm = netmap_from_json (o, &e)))
        errprintf (errp, "%s: %s", what, e.text);
    saved = errno;
    json_object_put (o);
    errno = saved;
    return nm;
}

netmap_t *netmap_read (const char *path, tm_error_t *errp)
{
    json_object *o;

    if (!path || path[0] == '\0') {
        errprintf (errp, "netmap_read: no path");
        errno = EINVAL;
        return NULL;
    }
    if (!(o = jsonfile_read (path, NETMAP_MAX_BYTES, errp)))
        return NULL;
    return netmap_take (o, path, errp);
}

netmap_t *netmap_read_fd (int fd, const char *what, size_t max, tm_error_t *errp)
{
    json_object *o;

    if (!(o = jsonfile_read_fd (fd, what, max < NETMAP_MAX_BYTES ? max : NETMAP_MAX_BYTES, errp)))
        return NULL;
    return netmap_take (o, what, errp);
}

/* A pair's figures take about 80 bytes as the probe writes them (latency,
 * its interval, bandwidth, samples); a host's name and topology a few
 * hundred, its inside about 12 bytes a CPU: 16 KiB a host holds 1 300.
 */
size_t netmap_max_bytes (int nhosts)
{
    double n = nhosts > 0 ? nhosts : 0, b = 65536 + n * 16384 + n * n * 512;

    return b < NETMAP_MAX_BYTES ? (size_t)b : NETMAP_MAX_BYTES;
}

int netmap_level_medians (const netmap_t *nm, const topo_t *t, const int *depth, int max,
                          double *lat, double *bw)
{
    int n = nm->n, rc = -1;
    size_t npairs = (size_t)n * (size_t)(n - 1) / 2 + 1, q = 0;
    size_t *count = calloc ((size_t)max + 1, sizeof (*count)), *at = NULL;
    double *vl = malloc (npairs * sizeof (*vl)), *vb = malloc (npairs * sizeof (*vb));
    int *level = malloc (npairs * sizeof (*level));

    if (!count || !vl || !vb || !level || !(at = malloc (((size_t)max + 1) * sizeof (*at))))
        goto done;
    /* each pair's level once, then the pairs of each level together in
     * vl and vb, by a counting sort */
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int l = topo_level (t, depth, a, b);
            level[q++] = l;
            if (l >= 1 && l < max)
                count[l]++;
        }
    for (int l = 1; l < max; l++)
        count[l] += count[l - 1];
    at[0] = 0; /* at[l]: where level l starts; count[l]: where it ends */
    for (int l = 1; l < max; l++)
        at[l] = count[l - 1];
    q = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int l = level[q++];
            if (l < 1 || l >= max)
                continue;
            vl[at[l]] = 0.5 * (NETMAP_AT (nm, lat_us, a, b) + NETMAP_AT (nm, lat_us, b, a));
            vb[at[l]++] = 0.5 * (NETMAP_AT (nm, bw_MBps, a, b) + NETMAP_AT (nm, bw_MBps, b, a));
        }
    lat[0] = bw[0] = NAN;
    for (int l = 1; l < max; l++) {
        size_t lo = count[l - 1];
        lat[l] = stats_median (vl + lo, (int)(count[l] - lo));
        bw[l] = stats_median (vb + lo, (int)(count[l] - lo));
    }
    rc = 0;
done:
    free (count);
    free (at);
    free (vl);
    free (vb);
    free (level);
    return rc;
}

int netmap_plan_figures (netmap_t *nm, tm_error_t *errp)
{
    const topo_t *t = nm->topo;
    int n = nm->n, max = 0, *depth = NULL, rc = -1;
    double *med[2] = {NULL, NULL};

    if (!t || t->model != TOPO_TREE || t->nhosts != n || n < 3 ||
        !(t->residual <= NETMAP_PLAN_RESIDUAL))
        return 0;
    for (int v = 0; v < t->nvertices; v++)
        max = (int)t->height[v] + 1 > max ? (int)t->height[v] + 1 : max;
    if (!(depth = topo_depths (t)) || !(med[0] = malloc ((size_t)max * sizeof (double))) ||
        !(med[1] = malloc ((size_t)max * sizeof (double))) ||
        netmap_level_medians (nm, t, depth, max, med[0], med[1]) < 0) {
        errnomem (errp);
        goto done;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int l = topo_level (t, depth, a, b);
            for (int g = 0; g < 2; g++) {
                double *m = g ? nm->bw_MBps : nm->lat_us, c = med[g][l];
                double *x = &m[(size_t)a * (size_t)n + (size_t)b],
                       *y = &m[(size_t)b * (size_t)n + (size_t)a];
                double r = 0.5 * (*x + *y) / c;
                /* faster: lower latency, higher bandwidth */
                if (isfinite (r) && (fabs (r - 1) <= NETMAP_PLAN_BAND || (g ? r > 1 : r < 1)))
                    *x = *y = c;
            }
        }
    rc = 1;
done:
    free (depth);
    free (med[0]);
    free (med[1]);
    return rc;
}

double netmap_measure_bound (const netmap_t *nm)
{
    const netmap_params_t *p = &nm->params;
    double stream = (double)p->bw_bytes * p->bw_messages, total = 0;
    double lead = p->bw_enough_ms > 0 ? (double)netmap_lead_bytes (p) : 0;

    for (int a = 0; a < nm->n; a++)
        for (int b = a; b < nm->n; b++) {
            int k = NETMAP_AT (nm, samples, a, b), times = NETMAP_AT (nm, measured, a, b);
            double lat = NETMAP_AT (nm, lat_us, a, b), bw = NETMAP_AT (nm, bw_MBps, a, b);
            double sent;
            if (k <= 0 || times <= 0 || !isfinite (lat) || !(bw > 0))
                continue;
            sent = netmap_lead_enough (p, lead / (bw * 1e6)) ? lead : lead + stream;
            total += (double)k * 2 * lat * 1e-6 + times * sent / (bw * 1e6);
        }
    return total;
}
