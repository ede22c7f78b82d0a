/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c: the profile in memory and its file, written and read with
 * json-c.
 *
 * Schema 1.  Every key is required and no other key is allowed:
 *
 *   {
 *     "kind": "topomap-profile",
 *     "schema": 1,
 *     "ntasks": 4,
 *     "exe": {"id": "sha256:...", "path": "/home/me/a.out"},
 *     "mpi": "Open MPI 4.1.6",
 *     "source": "recorder",
 *     "collectives": false,
 *     "record_s": 12.5,
 *     "jobid": "1234",
 *     "timestamp": "2026-11-20T21:44:50Z",
 *     "totals": {"msgs": 20, "bytes": 81920},
 *     "entries": [
 *       [0, 1, 10, 40960],
 *       [1, 0, 10, 40960]
 *     ]
 *   }
 *
 * ntasks       world size, 1 .. PROFILE_MAX_TASKS.
 * exe, mpi,    strings without control characters, "" when unknown.
 *   source
 * collectives  true when collectives were attributed to pairs.
 * record_s     wall time of the recorded run, seconds, finite >= 0.
 * jobid        the Slurm job id, "" when unknown, at most 31 bytes.
 * timestamp    when recorded, UTC, ISO 8601 "YYYY-MM-DDTHH:MM:SSZ".
 * totals       the sums of the messages and bytes of the entries.
 * entries      the sparse matrix, one [src, dst, msgs, bytes] per pair
 *              that talked: ranks in 0 .. ntasks-1 (src == dst is a
 *              self-send, allowed), counts integers in 0 .. 2^63-1 (what
 *              json-c holds), sorted by src then dst, no pair twice, no
 *              all-zero entry and no bytes without a message.
 *
 * Schema 2 is schema 1 with one more key, required there, "check": a
 * later recording of the same program and task count: the plan is made
 * from the traffic the two share and priced on each before it is applied
 * (place.h), so that traffic drawn anew at each run does not pass for
 * traffic that recurs:
 *
 *     "check": {
 *       "record_s": 12.4,
 *       "jobid": "1240",
 *       "timestamp": "2026-11-20T22:01:05Z",
 *       "totals": {"msgs": 20, "bytes": 81920},
 *       "entries": [ ... ]
 *     }
 *
 * each key as above, about that recording.  A profile of one recording is
 * written as schema 1, as before there was a check.
 *
 * The writer refuses a profile that the reader would reject, and writes
 * each entry on one line.
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
#include "lib/profile.h"

#define PROFILE_KIND      "topomap-profile"
#define PROFILE_MAX_BYTES ((size_t)512 * 1024 * 1024)

static const char *const profile_keys[] = {
    "kind",     "schema", "ntasks",    "exe",    "mpi",     "source", "collectives",
    "record_s", "jobid",  "timestamp", "totals", "entries", NULL,
};

static const char *const profile_keys_check[] = {
    "kind",     "schema", "ntasks",    "exe",    "mpi",     "source", "collectives",
    "record_s", "jobid",  "timestamp", "totals", "entries", "check",  NULL,
};

/* The keys of "check": what is the recording's own. */
static const char *const profile_check_keys[] = {
    "record_s", "jobid", "timestamp", "totals", "entries", NULL,
};

static const char *const profile_exe_keys[] = {"id", "path", NULL};
static const char *const profile_totals_keys[] = {"msgs", "bytes", NULL};

/* Checks shared by write and read. */

/* a += b, false when the sum does not fit. */
static bool profile_add (uint64_t *a, uint64_t b)
{
    if (*a > UINT64_MAX - b)
        return false;
    *a += b;
    return true;
}

/* What is wrong with counts of one entry, NULL when nothing. */
static const char *profile_entry_fault (uint64_t msgs, uint64_t bytes)
{
    if (msgs > INT64_MAX)
        return "msgs above 2^63-1, more than a profile file holds";
    if (bytes > INT64_MAX)
        return "bytes above 2^63-1, more than a profile file holds";
    if (msgs == 0 && bytes == 0)
        return "zero messages and bytes (pairs that did not talk are left out)";
    if (msgs == 0)
        return "bytes without a message";
    return NULL;
}

/* Everything the reader requires of p but the timestamp.  Rows are read
 * from row[], not from the src of the entries (see profile.h).
 */
static int profile_check (const profile_t *p, tm_error_t *errp)
{
    const char *const names[] = {"exe.id", "exe.path", "mpi", "source"};
    const char *const strings[] = {p->exe_id, p->exe_path, p->mpi, p->source};
    uint64_t msgs = 0, bytes = 0;
    size_t jobid_len;

    if (p->ntasks < 1 || p->ntasks > PROFILE_MAX_TASKS)
        return errprintf (errp, "ntasks: %d, expected 1 to %d", p->ntasks, PROFILE_MAX_TASKS);
    if (!p->row || (p->nentries > 0 && !p->entries))
        return errprintf (errp, "entries: no matrix");
    if (p->row[0] != 0 || p->row[p->ntasks] != p->nentries)
        return errprintf (errp, "entries: row[] does not index the %zu entries", p->nentries);
    for (int i = 0; i < p->ntasks; i++)
        if (p->row[i + 1] < p->row[i])
            return errprintf (errp, "entries: row %d ends before it starts", i);
    for (int i = 0; i < p->ntasks; i++) {
        for (size_t k = p->row[i]; k < p->row[i + 1]; k++) {
            const profile_entry_t *e = &p->entries[k];
            const char *fault;

            if (e->dst < 0 || e->dst >= p->ntasks)
                return errprintf (errp, "entries[%zu]: dst %d out of range 0 to %d", k, e->dst,
                                  p->ntasks - 1);
            if (k > p->row[i] && e->dst <= e[-1].dst)
                return errprintf (errp, "entries[%zu]: (%d, %d) %s", k, i, e->dst,
                                  e->dst == e[-1].dst ? "appears twice" : "out of order");
            if ((fault = profile_entry_fault (e->msgs, e->bytes)))
                return errprintf (errp, "entries[%zu]: (%d, %d): %s", k, i, e->dst, fault);
            /* Each <= 2^63-1: a sum of two fits, the check catches the rest. */
            if (!profile_add (&msgs, e->msgs) || !profile_add (&bytes, e->bytes) ||
                msgs > INT64_MAX || bytes > INT64_MAX)
                return errprintf (errp, "totals: above 2^63-1, more than a profile file holds");
        }
    }
    if (msgs != p->total_msgs)
        return errprintf (errp, "totals.msgs: %" PRIu64 ", but the entries sum to %" PRIu64,
                          p->total_msgs, msgs);
    if (bytes != p->total_bytes)
        return errprintf (errp, "totals.bytes: %" PRIu64 ", but the entries sum to %" PRIu64,
                          p->total_bytes, bytes);
    for (size_t s = 0; s < sizeof (names) / sizeof (names[0]); s++) {
        if (!strings[s])
            return errprintf (errp, "%s: missing", names[s]);
        if (jsonfile_has_control (strings[s], strlen (strings[s])))
            return errprintf (errp, "%s: control character", names[s]);
    }
    if (p->collectives != 0 && p->collectives != 1)
        return errprintf (errp, "collectives: %d, expected 0 or 1", p->collectives);
    if (!isfinite (p->record_s) || p->record_s < 0)
        return errprintf (errp, "record_s: not a finite number >= 0");
    jobid_len = strnlen (p->jobid, sizeof (p->jobid));
    if (jobid_len == sizeof (p->jobid))
        return errprintf (errp, "jobid: longer than %zu bytes", sizeof (p->jobid) - 1);
    if (jsonfile_has_control (p->jobid, jobid_len))
        return errprintf (errp, "jobid: control character");
    if (p->recheck) {
        tm_error_t e;

        if (p->recheck->recheck)
            return errprintf (errp, "check: has a check of its own");
        if (p->recheck->ntasks != p->ntasks)
            return errprintf (errp, "check: %d tasks, the profile %d", p->recheck->ntasks,
                              p->ntasks);
        if (profile_check (p->recheck, &e) < 0)
            return errprintf (errp, "check.%s", e.text);
    }
    return 0;
}

/* In memory */

/* A profile of ntasks ranks with room for nentries entries, rows empty,
 * strings "", timestamp now.
 */
static profile_t *profile_new (int ntasks, size_t nentries, tm_error_t *errp)
{
    profile_t *p = NULL;

    if (ntasks < 1 || ntasks > PROFILE_MAX_TASKS) {
        errprintf (errp, "ntasks: %d, expected 1 to %d", ntasks, PROFILE_MAX_TASKS);
        errno = EINVAL;
        return NULL;
    }
    if (nentries > SIZE_MAX / sizeof (*p->entries)) {
        errprintf (errp, "entries: %zu, too many", nentries);
        errno = ENOMEM;
        return NULL;
    }
    if (!(p = calloc (1, sizeof (*p))))
        goto nomem;
    p->ntasks = ntasks;
    /* At least one, so that entries is never NULL. */
    if (!(p->row = calloc ((size_t)ntasks + 1, sizeof (*p->row))) ||
        !(p->entries = malloc ((nentries ? nentries : 1) * sizeof (*p->entries))))
        goto nomem;
    if (!(p->exe_id = strdup ("")) || !(p->exe_path = strdup ("")) || !(p->mpi = strdup ("")) ||
        !(p->source = strdup ("")))
        goto nomem;
    p->timestamp = time (NULL);
    return p;
nomem:
    profile_destroy (p);
    errnomem (errp);
    errno = ENOMEM;
    return NULL;
}

/* Rows and totals of p from its nentries sorted entries. */
static int profile_index (profile_t *p, tm_error_t *errp)
{
    p->total_msgs = 0;
    p->total_bytes = 0;
    memset (p->row, 0, ((size_t)p->ntasks + 1) * sizeof (*p->row));
    for (size_t k = 0; k < p->nentries; k++) {
        p->row[p->entries[k].src + 1]++;
        if (!profile_add (&p->total_msgs, p->entries[k].msgs) ||
            !profile_add (&p->total_bytes, p->entries[k].bytes)) {
            errno = EOVERFLOW;
            return errprintf (errp, "totals: above 2^64-1");
        }
    }
    for (int i = 0; i < p->ntasks; i++)
        p->row[i + 1] += p->row[i];
    return 0;
}

static int profile_cmp_entries (const void *a, const void *b)
{
    const profile_entry_t *x = a, *y = b;

    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return 0;
}

profile_t *profile_create (int ntasks, size_t n, const profile_entry_t *t, tm_error_t *errp)
{
    profile_t *p = NULL;
    profile_entry_t *v;
    size_t k = 0;

    if (n > 0 && !t) {
        errprintf (errp, "profile_create: no triplets");
        errno = EINVAL;
        return NULL;
    }
    if (!(p = profile_new (ntasks, n, errp)))
        return NULL;
    v = p->entries;
    for (size_t i = 0; i < n; i++) {
        if (t[i].src < 0 || t[i].src >= ntasks || t[i].dst < 0 || t[i].dst >= ntasks) {
            errprintf (errp, "triplet %zu: (%d, %d) out of range 0 to %d", i, t[i].src, t[i].dst,
                       ntasks - 1);
            errno = EINVAL;
            goto error;
        }
        v[i] = t[i];
    }
    qsort (v, n, sizeof (*v), profile_cmp_entries);
    /* Sum runs of one pair into their first, keep those not all zero. */
    for (size_t i = 0; i < n;) {
        profile_entry_t e = v[i++];

        for (; i < n && v[i].src == e.src && v[i].dst == e.dst; i++)
            if (!profile_add (&e.msgs, v[i].msgs) || !profile_add (&e.bytes, v[i].bytes)) {
                errprintf (errp, "triplets (%d, %d): sum above 2^64-1", e.src, e.dst);
                errno = EOVERFLOW;
                goto error;
            }
        if (e.msgs == 0 && e.bytes != 0) {
            errprintf (errp, "triplets (%d, %d): %" PRIu64 " bytes in no message", e.src, e.dst,
                       e.bytes);
            errno = EINVAL;
            goto error;
        }
        if (e.msgs != 0)
            v[k++] = e;
    }
    p->nentries = k;
    if (k > 0 && k < n) {
        /* Give back what the dropped and summed triplets took. */
        profile_entry_t *shrunk = realloc (v, k * sizeof (*v));
        if (shrunk)
            p->entries = shrunk;
    }
    if (profile_index (p, errp) < 0)
        goto error;
    return p;
error:
    profile_destroy (p);
    return NULL;
}

void profile_destroy (profile_t *p)
{
    int saved = errno;

    if (!p)
        return;
    free (p->row);
    free (p->entries);
    free (p->exe_id);
    free (p->exe_path);
    free (p->mpi);
    free (p->source);
    profile_destroy (p->recheck);
    free (p);
    errno = saved;
}

int profile_set_string (char **field, const char *value, tm_error_t *errp)
{
    char *copy;

    if (!field) {
        errno = EINVAL;
        return errprintf (errp, "profile_set_string: no field");
    }
    if (!(copy = strdup (value ? value : ""))) {
        return errnomem (errp);
    }
    free (*field);
    *field = copy;
    return 0;
}

const profile_entry_t *profile_get (const profile_t *p, int src, int dst)
{
    size_t lo, hi;

    if (!p || src < 0 || src >= p->ntasks || dst < 0 || dst >= p->ntasks)
        return NULL;
    lo = p->row[src];
    hi = p->row[src + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (p->entries[mid].dst == dst)
            return &p->entries[mid];
        if (p->entries[mid].dst < dst)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

double profile_recurring (const profile_t *a, const profile_t *b)
{
    double both = 0;

    if (a->total_bytes == 0 || b->total_bytes == 0)
        return a->total_bytes == b->total_bytes ? 1.0 : 0.0;
    for (int i = 0; i < a->ntasks && i < b->ntasks; i++)
        for (size_t k = a->row[i]; k < a->row[i + 1]; k++) {
            const profile_entry_t *x = &a->entries[k], *y = profile_get (b, i, x->dst);
            double sx, sy;

            if (!y)
                continue;
            sx = (double)x->bytes / (double)a->total_bytes;
            sy = (double)y->bytes / (double)b->total_bytes;
            both += sx < sy ? sx : sy;
        }
    return both;
}

/* x's share of total, in scale's units: 0 when total is 0. */
static double profile_scaled (uint64_t x, uint64_t total, uint64_t scale)
{
    return total ? (double)x / (double)total * (double)scale : 0;
}

profile_t *profile_common (const profile_t *a, const profile_t *b, tm_error_t *errp)
{
    profile_entry_t *t;
    profile_t *c = NULL;
    size_t n = 0;

    if (a->ntasks != b->ntasks) {
        errprintf (errp, "profiles of %d and %d tasks share no traffic", a->ntasks, b->ntasks);
        errno = EINVAL;
        return NULL;
    }
    if (!(t = calloc (a->nentries ? a->nentries : 1, sizeof (*t)))) {
        errnomem (errp);
        return NULL;
    }
    for (size_t k = 0; k < a->nentries; k++) {
        const profile_entry_t *x = &a->entries[k], *y = profile_get (b, x->src, x->dst);
        double bytes, msgs;

        if (!y)
            continue;
        bytes = fmin ((double)x->bytes, profile_scaled (y->bytes, b->total_bytes, a->total_bytes));
        msgs = fmin ((double)x->msgs, profile_scaled (y->msgs, b->total_msgs, a->total_msgs));
        t[n].src = x->src;
        t[n].dst = x->dst;
        /* The first's own counts where the lesser is theirs: a double
         * holds counts past 2^53 only rounded. */
        t[n].bytes = bytes >= (double)x->bytes ? x->bytes : (uint64_t)llround (bytes);
        t[n++].msgs = msgs >= (double)x->msgs ? x->msgs : msgs < 1 ? 1 : (uint64_t)llround (msgs);
    }
    if (n == 0) {
        free (t);
        errprintf (errp, "%s",
                   a->nentries == 0 || b->nentries == 0
                       ? "a recording of the profile sent nothing point to point"
                       : "none of the traffic of the profile's recording recurs in its check");
        errno = ENODATA;
        return NULL;
    }
    if ((c = profile_create (a->ntasks, n, t, errp)) &&
        (profile_set_string (&c->exe_id, a->exe_id, errp) < 0 ||
         profile_set_string (&c->exe_path, a->exe_path, errp) < 0 ||
         profile_set_string (&c->mpi, a->mpi, errp) < 0 ||
         profile_set_string (&c->source, a->source, errp) < 0)) {
        profile_destroy (c);
        c = NULL;
    }
    free (t);
    if (!c)
        return NULL;
    c->collectives = a->collectives;
    c->record_s = a->record_s;
    memcpy (c->jobid, a->jobid, sizeof (c->jobid));
    c->timestamp = a->timestamp;
    return c;
}

/* Writing */

static json_object *profile_json_pair (const char *k1, json_object *v1, const char *k2,
                                       json_object *v2)
{
    json_object *o = json_object_new_object ();

    if (!o || jsonfile_add (o, k1, v1, false) < 0) {
        json_object_put (v2);
        json_object_put (o);
        return NULL;
    }
    if (jsonfile_add (o, k2, v2, false) < 0) {
        json_object_put (o);
        return NULL;
    }
    return o;
}

static json_object *profile_json_entries (const profile_t *p)
{
    json_object *a = json_object_new_array ();

    if (!a)
        return NULL;
    for (int i = 0; i < p->ntasks; i++)
        for (size_t k = p->row[i]; k < p->row[i + 1]; k++) {
            const profile_entry_t *e = &p->entries[k];
            json_object *t = json_object_new_array ();

            if (jsonfile_add (a, NULL, t, false) < 0)
                goto error;
            json_object_set_serializer (t, jsonfile_inline, NULL, NULL);
            if (jsonfile_add (t, NULL, json_object_new_int (i), false) < 0 ||
                jsonfile_add (t, NULL, json_object_new_int (e->dst), false) < 0 ||
                jsonfile_add (t, NULL, json_object_new_int64 ((int64_t)e->msgs), false) < 0 ||
                jsonfile_add (t, NULL, json_object_new_int64 ((int64_t)e->bytes), false) < 0)
                goto error;
        }
    return a;
error:
    json_object_put (a);
    return NULL;
}

/* What is the recording's own in p, added to o: record_s, jobid,
 * timestamp, totals, entries.  -1 when out of memory.
 */
static int profile_json_recording (json_object *o, const profile_t *p, const char *timestamp)
{
    if (jsonfile_add (o, "record_s", jsonfile_double (p->record_s), false) < 0 ||
        jsonfile_add (o, "jobid", json_object_new_string (p->jobid), false) < 0 ||
        jsonfile_add (o, "timestamp", json_object_new_string (timestamp), false) < 0 ||
        jsonfile_add (o, "totals",
                      profile_json_pair ("msgs", json_object_new_int64 ((int64_t)p->total_msgs),
                                         "bytes", json_object_new_int64 ((int64_t)p->total_bytes)),
                      false) < 0 ||
        jsonfile_add (o, "entries", profile_json_entries (p), false) < 0)
        return -1;
    return 0;
}

/* The JSON document of a checked profile, NULL when out of memory.
 * timestamp and check_timestamp are p's and its check's, formatted.
 */
static json_object *profile_to_json (const profile_t *p, const char *timestamp,
                                     const char *check_timestamp)
{
    json_object *o, *c = NULL;

    if (!(o = json_object_new_object ()))
        return NULL;
    if (jsonfile_add (o, "kind", json_object_new_string (PROFILE_KIND), false) < 0 ||
        jsonfile_add (o, "schema",
                      json_object_new_int (p->recheck ? PROFILE_SCHEMA_CHECK : PROFILE_SCHEMA),
                      false) < 0 ||
        jsonfile_add (o, "ntasks", json_object_new_int (p->ntasks), false) < 0 ||
        jsonfile_add (o, "exe",
                      profile_json_pair ("id", json_object_new_string (p->exe_id), "path",
                                         json_object_new_string (p->exe_path)),
                      false) < 0 ||
        jsonfile_add (o, "mpi", json_object_new_string (p->mpi), false) < 0 ||
        jsonfile_add (o, "source", json_object_new_string (p->source), false) < 0 ||
        jsonfile_add (o, "collectives", json_object_new_boolean (p->collectives), false) < 0 ||
        profile_json_recording (o, p, timestamp) < 0)
        goto error;
    if (p->recheck &&
        (!(c = json_object_new_object ()) || jsonfile_add (o, "check", c, false) < 0 ||
         profile_json_recording (c, p->recheck, check_timestamp) < 0))
        goto error;
    return o;
error:
    json_object_put (o);
    return NULL;
}

/* p as the JSON a profile file holds, what naming the file in messages;
 * NULL with errp saying why.
 */
static json_object *profile_json_to_write (const profile_t *p, const char *what, int mode,
                                           tm_error_t *errp)
{
    json_object *root;
    char timestamp[32], check_timestamp[32];
    tm_error_t e;

    if (mode < 0 || mode > 07777) {
        errprintf (errp, "%s: mode %#o is not permission bits", what, (unsigned)mode);
        errno = EINVAL;
        return NULL;
    }
    if (profile_check (p, &e) < 0) {
        errprintf (errp, "%s: %s", what, e.text);
        errno = EINVAL;
        return NULL;
    }
    if (jsonfile_format_time (p->timestamp, timestamp, sizeof (timestamp)) < 0) {
        errprintf (errp, "%s: timestamp: out of range", what);
        errno = EINVAL;
        return NULL;
    }
    if (p->recheck && jsonfile_format_time (p->recheck->timestamp, check_timestamp,
                                            sizeof (check_timestamp)) < 0) {
        errprintf (errp, "%s: check.timestamp: out of range", what);
        errno = EINVAL;
        return NULL;
    }
    if (!(root = profile_to_json (p, timestamp, p->recheck ? check_timestamp : ""))) {
        errprintf (errp, "%s: out of memory", what);
        errno = ENOMEM;
    }
    return root;
}

int profile_write (const profile_t *p, const char *path, int mode, tm_error_t *errp)
{
    json_object *root;
    int rc;

    if (!p || !path || path[0] == '\0') {
        errprintf (errp, "profile_write: no profile or no path");
        errno = EINVAL;
        return -1;
    }
    if (!(root = profile_json_to_write (p, path, mode, errp)))
        return -1;
    rc = file_replace_json (path, root, mode, errp);
    json_object_put (root);
    return rc;
}

int profile_writeat (const profile_t *p, int dirfd, const char *name, const char *what, int mode,
                     tm_error_t *errp)
{
    json_object *root;
    int rc;

    if (!p || !name || strchr (name, '/')) {
        errprintf (errp, "profile_writeat: no profile or not a file name");
        errno = EINVAL;
        return -1;
    }
    if (!(root = profile_json_to_write (p, what, mode, errp)))
        return -1;
    rc = file_replaceat_json (dirfd, name, what, root, mode, errp);
    json_object_put (root);
    return rc;
}

/* Reading */

/* An integer in lo..hi.  json-c holds an integer beyond int64 as INT64_MAX
 * for json_object_get_int64, but json_object_get_uint64 tells them apart.
 */

/* The string key of o, without control characters, copied into *sp. */
static int profile_json_string (json_object *o, const char *prefix, const char *key, char **sp,
                                tm_error_t *errp)
{
    json_object *v = NULL;
    const char *s;

    if (jsonfile_get (o, prefix, key, json_type_string, &v, errp) < 0)
        return -1;
    s = json_object_get_string (v);
    if (jsonfile_has_control (s, (size_t)json_object_get_string_len (v)))
        return errprintf (errp, "%s%s: control character", prefix, key);
    return profile_set_string (sp, s, errp);
}

/* Entry k of the entries array into p->entries[k], checked against the
 * one before it; prefix goes before "entries" in messages.
 */
static int profile_json_entry (json_object *a, const char *prefix, size_t k, profile_t *p,
                               tm_error_t *errp)
{
    static const char *const fields[] = {"src", "dst", "msgs", "bytes"};
    json_object *t = json_object_array_get_idx (a, k);
    profile_entry_t *e = &p->entries[k];
    int64_t x[4];
    const char *fault;
    char what[64];

    if (!json_object_is_type (t, json_type_array))
        return errprintf (errp, "%sentries[%zu]: not an array [src, dst, msgs, bytes]", prefix, k);
    if (json_object_array_length (t) != 4)
        return errprintf (errp, "%sentries[%zu]: %zu items, expected [src, dst, msgs, bytes]",
                          prefix, k, json_object_array_length (t));
    for (int f = 0; f < 4; f++) {
        int64_t hi = f < 2 ? p->ntasks - 1 : INT64_MAX;

        snprintf (what, sizeof (what), "%sentries[%zu] %s", prefix, k, fields[f]);
        if (jsonfile_int (json_object_array_get_idx (t, (size_t)f), what, 0, hi, &x[f], errp) < 0)
            return -1;
    }
    e->src = (int)x[0];
    e->dst = (int)x[1];
    e->msgs = (uint64_t)x[2];
    e->bytes = (uint64_t)x[3];
    if ((fault = profile_entry_fault (e->msgs, e->bytes)))
        return errprintf (errp, "%sentries[%zu]: (%d, %d): %s", prefix, k, e->src, e->dst, fault);
    if (k > 0 && profile_cmp_entries (&e[-1], e) >= 0)
        return errprintf (
            errp, "%sentries[%zu]: (%d, %d) %s %sentries[%zu] (%d, %d)", prefix, k, e->src, e->dst,
            profile_cmp_entries (&e[-1], e) == 0 ? "repeats" : "is out of order after", prefix,
            k - 1, e[-1].src, e[-1].dst);
    return 0;
}

/* A profile of ntasks from what is a recording's own in o (the keys
 * profile_json_recording writes), prefix going before each key in
 * messages; its strings "".
 */
static profile_t *profile_recording_from_json (json_object *o, const char *prefix, int ntasks,
                                               tm_error_t *errp)
{
    profile_t *p = NULL;
    json_object *v = NULL, *totals = NULL, *entries = NULL;
    int64_t msgs, bytes;
    size_t nentries;
    char tp[32], what[48];
    int err = EINVAL;

    if (jsonfile_get (o, prefix, "entries", json_type_array, &entries, errp) < 0)
        goto error;
    /* The entries bound what profile_new allocates: the file holds them. */
    nentries = json_object_array_length (entries);
    if (!(p = profile_new (ntasks, nentries, errp))) {
        err = errno;
        goto error;
    }
    p->nentries = nentries;
    for (size_t k = 0; k < nentries; k++)
        if (profile_json_entry (entries, prefix, k, p, errp) < 0)
            goto error;
    if (profile_index (p, errp) < 0)
        goto error;
    snprintf (tp, sizeof (tp), "%stotals.", prefix);
    if (jsonfile_get (o, prefix, "totals", json_type_object, &totals, errp) < 0 ||
        jsonfile_keys (totals, tp, profile_totals_keys, errp) < 0 ||
        jsonfile_get (totals, tp, "msgs", json_type_int, &v, errp) < 0 ||
        (snprintf (what, sizeof (what), "%smsgs", tp),
         jsonfile_int (v, what, 0, INT64_MAX, &msgs, errp) < 0) ||
        jsonfile_get (totals, tp, "bytes", json_type_int, &v, errp) < 0 ||
        (snprintf (what, sizeof (what), "%sbytes", tp),
         jsonfile_int (v, what, 0, INT64_MAX, &bytes, errp) < 0))
        goto error;
    if ((uint64_t)msgs != p->total_msgs) {
        errprintf (errp, "%smsgs: %" PRId64 ", but the entries sum to %" PRIu64, tp, msgs,
                   p->total_msgs);
        goto error;
    }
    if ((uint64_t)bytes != p->total_bytes) {
        errprintf (errp, "%sbytes: %" PRId64 ", but the entries sum to %" PRIu64, tp, bytes,
                   p->total_bytes);
        goto error;
    }
    if (jsonfile_get (o, prefix, "record_s", json_type_double, &v, errp) < 0)
        goto error;
    p->record_s = json_object_get_double (v);
    if (!isfinite (p->record_s) || p->record_s < 0) {
        errprintf (errp, "%srecord_s: not a finite number >= 0", prefix);
        goto error;
    }
    if (jsonfile_get (o, prefix, "jobid", json_type_string, &v, errp) < 0)
        goto error;
    if ((size_t)json_object_get_string_len (v) >= sizeof (p->jobid)) {
        errprintf (errp, "%sjobid: longer than %zu bytes", prefix, sizeof (p->jobid) - 1);
        goto error;
    }
    if (jsonfile_has_control (json_object_get_string (v), (size_t)json_object_get_string_len (v))) {
        errprintf (errp, "%sjobid: control character", prefix);
        goto error;
    }
    strcpy (p->jobid, json_object_get_string (v));
    if (jsonfile_get (o, prefix, "timestamp", json_type_string, &v, errp) < 0)
        goto error;
    if (jsonfile_parse_time (json_object_get_string (v), &p->timestamp) < 0) {
        errprintf (errp, "%stimestamp: not a UTC time YYYY-MM-DDTHH:MM:SSZ", prefix);
        goto error;
    }
    return p;
error:
    profile_destroy (p);
    errno = err;
    return NULL;
}

/* A profile from a parsed document.  Messages do not name the file. */
static profile_t *profile_from_json (json_object *o, tm_error_t *errp)
{
    profile_t *p = NULL;
    json_object *v = NULL, *exe = NULL, *check = NULL;
    int64_t schema, ntasks;
    const char *s;
    int err = EINVAL;

    if (jsonfile_get (o, "", "kind", json_type_string, &v, errp) < 0)
        goto error;
    s = json_object_get_string (v);
    if (strcmp (s, PROFILE_KIND) != 0) {
        errprintf (errp, "kind '%s', expected '%s'", jsonfile_quote (s), PROFILE_KIND);
        goto error;
    }
    if (jsonfile_get (o, "", "schema", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "schema", INT64_MIN, INT64_MAX, &schema, errp) < 0)
        goto error;
    if (schema != PROFILE_SCHEMA && schema != PROFILE_SCHEMA_CHECK) {
        errprintf (errp, "schema %" PRId64 ", expected %d or %d", schema, PROFILE_SCHEMA,
                   PROFILE_SCHEMA_CHECK);
        goto error;
    }
    if (jsonfile_keys (o, "", schema == PROFILE_SCHEMA ? profile_keys : profile_keys_check, errp) <
            0 ||
        jsonfile_get (o, "", "ntasks", json_type_int, &v, errp) < 0 ||
        jsonfile_int (v, "ntasks", 1, PROFILE_MAX_TASKS, &ntasks, errp) < 0)
        goto error;
    if (!(p = profile_recording_from_json (o, "", (int)ntasks, errp))) {
        err = errno;
        goto error;
    }
    if (jsonfile_get (o, "", "exe", json_type_object, &exe, errp) < 0 ||
        jsonfile_keys (exe, "exe.", profile_exe_keys, errp) < 0 ||
        profile_json_string (exe, "exe.", "id", &p->exe_id, errp) < 0 ||
        profile_json_string (exe, "exe.", "path", &p->exe_path, errp) < 0 ||
        profile_json_string (o, "", "mpi", &p->mpi, errp) < 0 ||
        profile_json_string (o, "", "source", &p->source, errp) < 0)
        goto error;
    if (jsonfile_get (o, "", "collectives", json_type_boolean, &v, errp) < 0)
        goto error;
    p->collectives = json_object_get_boolean (v) ? 1 : 0;
    if (schema == PROFILE_SCHEMA_CHECK) {
        if (jsonfile_get (o, "", "check", json_type_object, &check, errp) < 0 ||
            jsonfile_keys (check, "check.", profile_check_keys, errp) < 0)
            goto error;
        if (!(p->recheck = profile_recording_from_json (check, "check.", (int)ntasks, errp))) {
            err = errno;
            goto error;
        }
    }
    if (profile_check (p, errp) < 0)
        goto error;
    return p;
error:
    profile_destroy (p);
    errno = err;
    return NULL;
}

/* The profile the JSON o holds (taken: put here), what naming its file. */
static profile_t *profile_take_json (json_object *o, const char *what, tm_error_t *errp)
{
    profile_t *p;
    tm_error_t e;
    int saved;

    if (!o)
        return NULL;
    if (!(p = profile_from_json (o, &e)))
        errprintf (errp, "%s: %s", what, e.text);
    saved = errno;
    json_object_put (o);
    errno = saved;
    return p;
}

profile_t *profile_read (const char *path, tm_error_t *errp)
{
    if (!path || path[0] == '\0') {
        errprintf (errp, "profile_read: no path");
        errno = EINVAL;
        return NULL;
    }
    return profile_take_json (jsonfile_read (path, PROFILE_MAX_BYTES, errp), path, errp);
}

profile_t *profile_read_fd (int fd, const char *what, tm_error_t *errp)
{
    return profile_take_json (jsonfile_read_fd (fd, what, PROFILE_MAX_BYTES, errp), what, errp);
}

profile_t *profile_parse (const char *buf, size_t len, const char *what, tm_error_t *errp)
{
    json_object *o;
    tm_error_t e;

    if (!(o = jsonfile_parse (buf, len, &e))) {
        errprintf (errp, "%s: %s", what, e.text);
        return NULL;
    }
    return profile_take_json (o, what, errp);
}
