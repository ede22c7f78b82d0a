/* SPDX-License-Identifier: GPL-2.0-or-later */
/* history.c: the runs srun --topo-map saw of one profile (history.h).
 *
 * The file, written whole each time (file_replaceat):
 *   {"schema": 2, "runs": [
 *     {"time": "2026-12-02T01:00:00Z", "layout": "plan", "elapsed_s": 1.25,
 *      "args": "0123456789abcdef"}, ...]}
 * layout is "srun", "plan" or "recorded".  Schema 1 counted recordings as
 * "srun": its files are not read, and the next run starts them anew.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <nettle/sha2.h>

#include "lib/file.h"
#include "lib/history.h"
#include "lib/jsonfile.h"
#include "lib/profile_cache.h"
#include "lib/stats.h"

#define HISTORY_SCHEMA 2
/* No step of srun's takes a year. */
#define HISTORY_MAX_ELAPSED_S (365.0 * 86400)

int history_name (const char *exe_id, int ntasks, char *name, size_t len, tm_error_t *errp)
{
    size_t n;

    if (profile_cache_key (exe_id, ntasks, name, len, errp) < 0)
        return -1;
    n = strlen (name) - strlen (".json");
    if (n + strlen (HISTORY_SUFFIX) + 1 > len) {
        name[0] = '\0';
        errno = ERANGE;
        return errprintf (errp, "history_name: buffer of %zu", len);
    }
    strcpy (name + n, HISTORY_SUFFIX);
    return 0;
}

bool history_name_ok (const char *name)
{
    size_t n = strlen (name), s = strlen (HISTORY_SUFFIX);

    if (n <= s || n > 255 || name[0] == '.' || strcmp (name + n - s, HISTORY_SUFFIX) != 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_", name[i]))
            return false;
    return true;
}

void history_args_hash (int argc, char *const *argv, char out[HISTORY_ARGS + 1])
{
    struct sha256_ctx ctx;
    uint8_t d[SHA256_DIGEST_SIZE];

    sha256_init (&ctx);
    for (int i = 0; i < argc; i++)
        sha256_update (&ctx, strlen (argv[i]) + 1, (const uint8_t *)argv[i]);
    sha256_digest (&ctx, sizeof (d), d);
    for (int i = 0; i < HISTORY_ARGS / 2; i++)
        snprintf (out + 2 * i, 3, "%02x", d[i]);
}

bool history_args_ok (const char *s)
{
    size_t n = strlen (s);

    return n == HISTORY_ARGS && strspn (s, "0123456789abcdef") == n;
}

static const char *const history_layouts[] = {
    [HISTORY_SRUN] = "srun", [HISTORY_PLAN] = "plan", [HISTORY_RECORDED] = "recorded"};
#define HISTORY_LAYOUTS ((int)(sizeof (history_layouts) / sizeof (history_layouts[0])))

/* Run k of the array runs into r; messages name it "runs[k]". */
static int history_parse_run (json_object *o, int k, history_run_t *r, tm_error_t *errp)
{
    static const char *const keys[] = {"time", "layout", "elapsed_s", "args", NULL};
    char prefix[32];
    json_object *v;
    const char *s;

    snprintf (prefix, sizeof (prefix), "runs[%d].", k);
    if (!json_object_is_type (o, json_type_object))
        return errprintf (errp, "runs[%d]: not an object", k);
    if (jsonfile_keys (o, prefix, keys, errp) < 0 ||
        jsonfile_get (o, prefix, "time", json_type_string, &v, errp) < 0)
        return -1;
    if (jsonfile_parse_time (json_object_get_string (v), &r->time) < 0)
        return errprintf (errp, "%stime: not YYYY-MM-DDTHH:MM:SSZ", prefix);
    if (jsonfile_get (o, prefix, "layout", json_type_string, &v, errp) < 0)
        return -1;
    s = json_object_get_string (v);
    for (r->layout = 0; (int)r->layout < HISTORY_LAYOUTS; r->layout++)
        if (!strcmp (s, history_layouts[r->layout]))
            break;
    if ((int)r->layout == HISTORY_LAYOUTS)
        return errprintf (errp, "%slayout: not \"srun\", \"plan\" or \"recorded\"", prefix);
    if (jsonfile_get (o, prefix, "elapsed_s", json_type_double, &v, errp) < 0)
        return -1;
    r->elapsed_s = json_object_get_double (v);
    if (!(r->elapsed_s >= 0 && r->elapsed_s <= HISTORY_MAX_ELAPSED_S))
        return errprintf (errp, "%selapsed_s: not 0 to a year", prefix);
    if (jsonfile_get (o, prefix, "args", json_type_string, &v, errp) < 0)
        return -1;
    s = json_object_get_string (v);
    if (!history_args_ok (s))
        return errprintf (errp, "%sargs: not %d hex digits", prefix, HISTORY_ARGS);
    memcpy (r->args, s, HISTORY_ARGS + 1);
    return 0;
}

/* history_parse, its messages not naming the file. */
static int history_parse_json (const char *buf, size_t len, history_t *h, tm_error_t *errp)
{
    static const char *const keys[] = {"schema", "runs", NULL};
    json_object *o, *v;
    int64_t schema;
    size_t n;
    int rc = -1;

    if (!(o = jsonfile_parse (buf, len, errp)))
        return -1;
    if (jsonfile_keys (o, "", keys, errp) < 0 ||
        jsonfile_get (o, "", "schema", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "schema", 1, INT32_MAX, &schema, errp) < 0)
        goto out;
    if (schema != HISTORY_SCHEMA) {
        errprintf (errp, "schema %lld, this topomap reads %d", (long long)schema, HISTORY_SCHEMA);
        goto out;
    }
    if (jsonfile_get (o, "", "runs", json_type_array, &v, errp) < 0)
        goto out;
    if ((n = json_object_array_length (v)) > HISTORY_MAX) {
        errprintf (errp, "%zu runs, more than %d", n, HISTORY_MAX);
        goto out;
    }
    for (size_t k = 0; k < n; k++)
        if (history_parse_run (json_object_array_get_idx (v, k), (int)k, &h->run[k], errp) < 0)
            goto out;
    h->nruns = (int)n;
    rc = 0;
out:
    json_object_put (o);
    return rc;
}

int history_parse (const char *buf, size_t len, const char *what, history_t *h, tm_error_t *errp)
{
    tm_error_t e;

    h->nruns = 0;
    if (history_parse_json (buf, len, h, &e) < 0) {
        h->nruns = 0;
        errno = EINVAL;
        return errprintf (errp, "%s: %s", what, e.text);
    }
    return 0;
}

int history_readat (int dirfd, const char *name, const char *what, uid_t uid, history_t *h,
                    tm_error_t *errp)
{
    char *buf;
    size_t len;
    int fd, rc;

    h->nruns = 0;
    if ((fd = file_openat_own (dirfd, name, what, O_RDONLY, 0, uid, errp)) < 0)
        return errno == ENOENT ? 0 : -1;
    rc = file_slurp_fd (fd, what, HISTORY_MAX_BYTES, &buf, &len, errp);
    close (fd);
    if (rc < 0)
        return -1;
    rc = history_parse (buf, len, what, h, errp);
    free (buf);
    return rc;
}

static json_object *history_json (const history_t *h)
{
    json_object *o = json_object_new_object (), *runs = json_object_new_array ();
    bool ok = o && runs && jsonfile_add (o, "schema", json_object_new_int (HISTORY_SCHEMA), 0) == 0;

    for (int k = 0; ok && k < h->nruns; k++) {
        const history_run_t *r = &h->run[k];
        json_object *x = json_object_new_object ();
        char t[32];

        ok = x && jsonfile_format_time (r->time, t, sizeof (t)) == 0 &&
             jsonfile_add (x, "time", json_object_new_string (t), 0) == 0 &&
             jsonfile_add (x, "layout", json_object_new_string (history_layouts[r->layout]), 0) ==
                 0 &&
             jsonfile_add (x, "elapsed_s", jsonfile_double (r->elapsed_s), 0) == 0 &&
             jsonfile_add (x, "args", json_object_new_string (r->args), 0) == 0;
        if (jsonfile_add (runs, NULL, x, 0) < 0)
            ok = false;
    }
    if (!ok || jsonfile_add (o, "runs", runs, 0) < 0) {
        if (!ok)
            json_object_put (runs);
        json_object_put (o);
        return NULL;
    }
    return o;
}

int history_addat (int dirfd, const char *name, const char *what, uid_t uid, const history_run_t *r,
                   tm_error_t *errp)
{
    history_t *h = malloc (sizeof (*h));
    json_object *o;
    int rc;

    if (!h)
        return errnomem (errp);
    if (history_readat (dirfd, name, what, uid, h, errp) < 0)
        h->nruns = 0; /* replaced whole, a link never followed */
    if (h->nruns == HISTORY_MAX) {
        memmove (h->run, h->run + 1, (HISTORY_MAX - 1) * sizeof (*h->run));
        h->nruns--;
    }
    h->run[h->nruns++] = *r;
    if (!(o = history_json (h))) {
        free (h);
        return errnomem (errp);
    }
    rc = file_replaceat_json (dirfd, name, what, o, 0600, errp);
    json_object_put (o);
    free (h);
    return rc;
}

/* The median absolute deviation of v[0..n) from its median m. */
static double history_mad (const double *v, int n, double m)
{
    double d[HISTORY_WINDOW];

    for (int i = 0; i < n; i++)
        d[i] = fabs (v[i] - m);
    return stats_median (d, n);
}

int history_count (const history_t *h, history_layout_t layout)
{
    int n = 0;

    for (int k = 0; k < h->nruns; k++)
        n += h->run[k].layout == layout;
    return n;
}

void history_judge (const history_t *h, const char *args, history_verdict_t *v)
{
    double t[2][HISTORY_WINDOW], med[2], mad[2];
    int n[2] = {0, 0};

    memset (v, 0, sizeof (*v));
    for (int k = h->nruns - 1; k >= 0; k--) {
        const history_run_t *r = &h->run[k];
        int l = r->layout == HISTORY_PLAN;

        if (r->layout == HISTORY_RECORDED || strcmp (r->args, args) != 0)
            continue;
        if (!l && n[1] == 0)
            v->since++;
        if (l && n[0] == 0)
            v->placed_since++;
        if (n[l] < HISTORY_WINDOW)
            t[l][n[l]++] = r->elapsed_s;
    }
    v->srun = n[0];
    v->placed = n[1];
    if (n[0] >= 2 && n[1] >= 2) {
        for (int l = 0; l < 2; l++) {
            med[l] = stats_median (t[l], n[l]);
            mad[l] = history_mad (t[l], n[l], med[l]);
        }
        v->srun_s = med[0];
        v->placed_s = med[1];
        v->spread_s = fmax (mad[0], mad[1]);
        v->keep = v->placed_s >= v->srun_s - v->spread_s && v->since < HISTORY_RETRY;
    }
    v->control = !v->keep && (v->srun < 2 ? v->placed > v->srun : v->placed_since >= HISTORY_RETRY);
}
