/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json.h>

#include "lib/profile.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"

static const char *write_str (const char *name, const char *text)
{
    static char path[PATH_MAX];

    in_dir (path, name);
    if (write_file (path, text, strlen (text), 0644) < 0)
        diag ("cannot write %s: %s", path, strerror (errno));
    return path;
}

/* Four ranks with every field set to something particular: a pair each
 * way between 0 and 1, a light pair 1 -> 2, a heavy pair 2 -> 3 and a
 * self-send of 3.
 */
static profile_t *make_profile (void)
{
    const profile_entry_t t[] = {
        {2, 3, 10, 1 << 20}, {1, 0, 5, 2048}, {3, 3, 1, 8}, {0, 1, 5, 2048}, {1, 2, 3, 1000},
    };
    profile_t *p = profile_create (4, sizeof (t) / sizeof (t[0]), t, NULL);

    if (!p)
        return NULL;
    if (profile_set_string (&p->exe_id, "sha256:0123abcd", NULL) < 0 ||
        profile_set_string (&p->exe_path, "/home/me/a.out", NULL) < 0 ||
        profile_set_string (&p->mpi, "Open MPI 4.1.6", NULL) < 0 ||
        profile_set_string (&p->source, "recorder", NULL) < 0) {
        profile_destroy (p);
        return NULL;
    }
    p->collectives = 1;
    p->record_s = 1.0 / 3;
    strcpy (p->jobid, "4242.1");
    p->timestamp = 1795211090; /* 2026-11-20T21:44:50Z */
    return p;
}

/* The first field in which a and b differ, NULL when they are equal. */
static const char *profile_diff (const profile_t *a, const profile_t *b)
{
    static char what[64];

    if (a->ntasks != b->ntasks)
        return "ntasks";
    if (a->nentries != b->nentries)
        return "nentries";
    for (int i = 0; i <= a->ntasks; i++)
        if (a->row[i] != b->row[i])
            return "row";
    for (size_t k = 0; k < a->nentries; k++) {
        const profile_entry_t *x = &a->entries[k], *y = &b->entries[k];

        snprintf (what, sizeof (what), "entries[%zu]", k);
        if (x->src != y->src || x->dst != y->dst || x->msgs != y->msgs || x->bytes != y->bytes)
            return what;
    }
    if (a->total_msgs != b->total_msgs || a->total_bytes != b->total_bytes)
        return "totals";
    if (strcmp (a->exe_id, b->exe_id) != 0 || strcmp (a->exe_path, b->exe_path) != 0)
        return "exe";
    if (strcmp (a->mpi, b->mpi) != 0)
        return "mpi";
    if (strcmp (a->source, b->source) != 0)
        return "source";
    if (a->collectives != b->collectives)
        return "collectives";
    if (a->record_s != b->record_s)
        return "record_s";
    if (strcmp (a->jobid, b->jobid) != 0)
        return "jobid";
    if (a->timestamp != b->timestamp)
        return "timestamp";
    return NULL;
}

static int has_entry (const profile_t *p, size_t k, int src, int dst, uint64_t msgs, uint64_t bytes)
{
    const profile_entry_t *e = &p->entries[k];

    return k < p->nentries && e->src == src && e->dst == dst && e->msgs == msgs &&
           e->bytes == bytes;
}

static void test_create (void)
{
    const profile_entry_t t[] = {
        {2, 1, 1, 10}, {0, 3, 2, 20}, {2, 1, 3, 30}, {0, 0, 1, 5},
        {1, 2, 0, 0},  {3, 0, 4, 0},  {0, 3, 0, 0},  {2, 0, 1, 1},
    };
    const profile_entry_t out[] = {{0, 4, 1, 1}};
    const profile_entry_t neg[] = {{-1, 0, 1, 1}};
    const profile_entry_t big[] = {{0, 1, 1, UINT64_MAX}, {0, 1, 1, 1}};
    profile_t *p;
    time_t now = time (NULL);
    tm_error_t e;

    p = profile_create (4, sizeof (t) / sizeof (t[0]), t, &e);
    ok (p && p->ntasks == 4 && p->nentries == 5, "profile_create keeps 5 of 8 triplets");
    if (!p)
        return;
    ok (has_entry (p, 0, 0, 0, 1, 5) && has_entry (p, 1, 0, 3, 2, 20) &&
            has_entry (p, 2, 2, 0, 1, 1) && has_entry (p, 3, 2, 1, 4, 40) &&
            has_entry (p, 4, 3, 0, 4, 0),
        "profile_create sorts by src then dst and sums duplicates");
    ok (!profile_get (p, 1, 2), "profile_create drops an all-zero triplet");
    ok (profile_get (p, 3, 0) && profile_get (p, 3, 0)->bytes == 0,
        "profile_create keeps messages that carried no bytes");
    ok (profile_get (p, 0, 0) && profile_get (p, 0, 0)->msgs == 1,
        "profile_create keeps a self-send");
    ok (p->row[0] == 0 && p->row[1] == 2 && p->row[2] == 2 && p->row[3] == 4 && p->row[4] == 5,
        "row[] indexes each rank's entries, an empty row for rank 1");
    ok (p->total_msgs == 12 && p->total_bytes == 66, "totals are the sums over the entries");
    ok (p->exe_id && !p->exe_id[0] && !p->exe_path[0] && !p->mpi[0] && !p->source[0] &&
            !p->jobid[0] && p->collectives == 0 && p->record_s == 0,
        "strings start out empty, collectives off and record_s 0");
    ok (p->timestamp >= now && p->timestamp <= now + 5, "the timestamp starts out as now");

    ok (profile_get (p, 2, 1) == &p->entries[3] && profile_get (p, 2, 0) == &p->entries[2] &&
            profile_get (p, 0, 3) == &p->entries[1],
        "profile_get finds the first, middle and last entries of a row");
    ok (!profile_get (p, 2, 2) && !profile_get (p, 1, 0) && !profile_get (p, 0, 2),
        "profile_get returns NULL for pairs that did not talk");
    ok (!profile_get (p, 4, 0) && !profile_get (p, 0, -1) && !profile_get (NULL, 0, 0),
        "profile_get returns NULL out of range and without a profile");

    ok (profile_set_string (&p->mpi, "MPICH 4.2", &e) == 0 && strcmp (p->mpi, "MPICH 4.2") == 0,
        "profile_set_string replaces a string");
    ok (profile_set_string (&p->mpi, NULL, &e) == 0 && strcmp (p->mpi, "") == 0,
        "profile_set_string of NULL gives the empty string");
    ok (profile_set_string (NULL, "x", &e) < 0 && errno == EINVAL,
        "profile_set_string rejects no field");
    profile_destroy (p);

    p = profile_create (3, 0, NULL, &e);
    ok (p && p->nentries == 0 && p->entries && p->row[3] == 0 && p->total_bytes == 0,
        "profile_create of no triplets gives an empty profile");
    profile_destroy (p);

    errno = 0;
    ok (!profile_create (0, 0, NULL, &e) && errno == EINVAL && strstr (e.text, "ntasks: 0"),
        "profile_create rejects zero tasks: %s", e.text);
    errno = 0;
    ok (!profile_create (4, 1, out, &e) && errno == EINVAL &&
            strstr (e.text, "triplet 0: (0, 4) out of range 0 to 3"),
        "profile_create rejects a rank out of range: %s", e.text);
    ok (!profile_create (4, 1, neg, &e) && errno == EINVAL && strstr (e.text, "(-1, 0)"),
        "profile_create rejects a negative rank: %s", e.text);
    ok (!profile_create (4, 1, NULL, &e) && errno == EINVAL,
        "profile_create rejects NULL triplets");
    errno = 0;
    ok (!profile_create (2, 2, big, &e) && errno == EOVERFLOW && strstr (e.text, "(0, 1)"),
        "profile_create refuses duplicates whose sum overflows: %s", e.text);
    {
        const profile_entry_t nomsg[] = {{0, 1, 0, 8}};

        errno = 0;
        ok (!profile_create (2, 1, nomsg, &e) && errno == EINVAL &&
                strstr (e.text, "(0, 1): 8 bytes in no message"),
            "profile_create refuses bytes carried by no message: %s", e.text);
    }

    errno = 42;
    profile_destroy (NULL);
    ok (errno == 42, "profile_destroy accepts NULL and preserves errno");
}

/* Many random triplets against a dense sum. */
static void test_create_random (void)
{
    enum { N = 13, T = 5000 };
    profile_entry_t *t = malloc (T * sizeof (*t));
    uint64_t msgs[N][N] = {{0}}, bytes[N][N] = {{0}};
    profile_t *p;
    size_t seen = 0;
    int good = 1;

    srand (7);
    for (int k = 0; t && k < T; k++) {
        t[k].src = rand () % N;
        t[k].dst = rand () % N;
        t[k].msgs = (uint64_t)(rand () % 3);
        t[k].bytes = t[k].msgs ? (uint64_t)(rand () % 1000) : 0;
        msgs[t[k].src][t[k].dst] += t[k].msgs;
        bytes[t[k].src][t[k].dst] += t[k].bytes;
    }
    p = t ? profile_create (N, T, t, NULL) : NULL;
    for (int i = 0; p && i < N; i++)
        for (int j = 0; j < N; j++) {
            const profile_entry_t *e = profile_get (p, i, j);

            if (msgs[i][j] || bytes[i][j]) {
                seen++;
                good &= e && e->msgs == msgs[i][j] && e->bytes == bytes[i][j];
            } else
                good &= !e;
        }
    ok (p && good && seen == p->nentries,
        "profile_create of %d random triplets agrees with a dense sum", T);
    profile_destroy (p);
    free (t);

    {
        const profile_entry_t far[] = {{(1 << 20) - 1, 0, 1, 64}, {0, (1 << 20) - 1, 2, 128}};

        p = profile_create (1 << 20, 2, far, NULL);
        ok (p && p->row[1 << 20] == 2 && p->row[1] == 1 &&
                profile_get (p, (1 << 20) - 1, 0)->bytes == 64,
            "profile_create handles 2^20 tasks");
        profile_destroy (p);
    }
}

static void test_round_trip (void)
{
    char path[PATH_MAX], names[1024];
    profile_t *p = make_profile (), *back = NULL;
    const char *diff = "nothing read";
    struct stat st;
    tm_error_t e = {""};
    char *text;
    size_t len;

    in_dir (path, "good.json");
    if (!ok (p && profile_write (p, path, 0644, &e) == 0, "profile_write writes a profile"))
        diag ("%s", e.text);
    if ((back = profile_read (path, &e)))
        diff = profile_diff (p, back);
    else
        diag ("%s", e.text);
    if (!ok (back && !diff, "profile_read gives back every field"))
        diag ("differs in %s", diff);
    ok (stat (path, &st) == 0 && (st.st_mode & 07777) == 0644,
        "the file has mode 0644 despite umask 077");
    ok (list_dir (dir, names, sizeof (names)) == 1 && !strstr (names, ".json."),
        "no temporary file is left beside it (%s)", names);

    text = read_file (path, &len);
    ok (text && strstr (text, "\"kind\":\"topomap-profile\"") && strstr (text, "\"schema\":1"),
        "the file carries kind and schema");
    ok (text && strstr (text, "\"timestamp\":\"2026-11-20T21:44:50Z\""),
        "the timestamp is written in UTC ISO 8601");
    ok (text && strstr (text, "[2, 3, 10, 1048576]") && strstr (text, "[3, 3, 1, 8]"),
        "each entry is written on one line as [src, dst, msgs, bytes]");
    ok (text && strstr (text, "\"collectives\":true") &&
            strstr (text, "\"record_s\":0.3333333333333333,"),
        "collectives is a boolean and record_s reads back exactly");
    ok (text && len > 0 && text[len - 1] == '\n', "the file ends with a newline");
    free (text);

    in_dir (path, "private.json");
    ok (profile_write (p, path, 0600, &e) == 0 && stat (path, &st) == 0 &&
            (st.st_mode & 07777) == 0600,
        "profile_write gives the file the mode asked for, 0600");
    unlink (path);
    profile_destroy (back);

    back = NULL;
    diff = "nothing read";
    profile_destroy (p);
    p = profile_create (1, 0, NULL, NULL);
    in_dir (path, "empty.json");
    if (p && profile_write (p, path, 0644, &e) == 0 && (back = profile_read (path, &e)))
        diff = profile_diff (p, back);
    ok (!diff, "a profile of one rank that sent nothing reads back: %s", diff ? diff : "");
    unlink (path);
    profile_destroy (back);
    profile_destroy (p);
}

static void test_write_refuses (void)
{
    char path[PATH_MAX], names[1024];
    profile_t *p = make_profile (), *back;
    tm_error_t e = {""};
    int before;

    if (!p)
        return;
    in_dir (path, "refuse.json");
    ok (profile_write (p, path, 0644, &e) == 0, "a good profile is written to refuse.json");
    before = list_dir (dir, names, sizeof (names));

    p->entries[0].bytes = (uint64_t)INT64_MAX + 1;
    p->total_bytes += (uint64_t)INT64_MAX + 1 - 2048;
    ok (profile_write (p, path, 0644, &e) < 0 && errno == EINVAL && strstr (e.text, path) &&
            strstr (e.text, "entries[0]: (0, 1): bytes above 2^63-1"),
        "profile_write refuses a count a file cannot hold: %s", e.text);
    p->entries[0].bytes = 2048;
    p->total_bytes = 2048 * 2 + 1000 + (1 << 20) + 8;
    p->entries[0].msgs = 0;
    ok (profile_write (p, path, 0644, &e) < 0 && strstr (e.text, "bytes without a message"),
        "profile_write refuses bytes without a message: %s", e.text);
    p->entries[0].msgs = 5;
    p->total_msgs++;
    ok (profile_write (p, path, 0644, &e) < 0 &&
            strstr (e.text, "totals.msgs: 25, but the entries sum to 24"),
        "profile_write refuses totals that disagree: %s", e.text);
    p->total_msgs--;
    p->entries[2].dst = 0;
    ok (profile_write (p, path, 0644, &e) < 0 &&
            strstr (e.text, "entries[2]: (1, 0) appears twice"),
        "profile_write refuses a pair twice in a row: %s", e.text);
    p->entries[2].dst = 2;
    profile_set_string (&p->exe_path, "/tmp/a\nb", NULL);
    ok (profile_write (p, path, 0644, &e) < 0 && strstr (e.text, "exe.path: control character"),
        "profile_write refuses a control character in a string: %s", e.text);
    profile_set_string (&p->exe_path, "/home/me/a.out", NULL);
    p->record_s = NAN;
    ok (profile_write (p, path, 0644, &e) < 0 && strstr (e.text, "record_s"),
        "profile_write refuses a NaN run time: %s", e.text);
    p->record_s = 1;
    memset (p->jobid, '7', sizeof (p->jobid));
    ok (profile_write (p, path, 0644, &e) < 0 && strstr (e.text, "jobid: longer than 31 bytes"),
        "profile_write refuses an unterminated job id: %s", e.text);
    strcpy (p->jobid, "1");
    p->timestamp = (time_t)1 << 60;
    ok (profile_write (p, path, 0644, &e) < 0 && strstr (e.text, "timestamp"),
        "profile_write refuses a timestamp beyond year 9999: %s", e.text);
    p->timestamp = 0;
    ok (profile_write (p, path, 010000, &e) < 0 && errno == EINVAL && strstr (e.text, "mode"),
        "profile_write refuses a mode that is not permission bits: %s", e.text);

    ok (list_dir (dir, names, sizeof (names)) == before, "refused writes leave no file behind (%s)",
        names);
    back = profile_read (path, &e);
    ok (back && back->record_s != 1, "refused writes leave the old file intact");
    profile_destroy (back);
    profile_destroy (p);
    unlink (path);
}

static void test_write_fails (void)
{
    char path[PATH_MAX], sub[PATH_MAX], names[1024];
    profile_t *p = make_profile ();
    tm_error_t e = {""};
    int before = list_dir (dir, names, sizeof (names));
    struct stat st;

    snprintf (path, sizeof (path), "%s/nonexistent/prof.json", dir);
    ok (profile_write (p, path, 0644, &e) < 0 && errno == ENOENT && strstr (e.text, path),
        "profile_write into a nonexistent directory fails naming the path: %s", e.text);
    ok (stat (in_dir (sub, "nonexistent"), &st) < 0 &&
            list_dir (dir, names, sizeof (names)) == before,
        "and leaves no temporary file anywhere (%s)", names);

    in_dir (sub, "adir");
    mkdir (sub, 0755);
    ok (profile_write (p, sub, 0644, &e) < 0 && errno == EISDIR && strstr (e.text, sub) &&
            strstr (e.text, "is a directory"),
        "profile_write over a directory fails naming it: %s", e.text);
    ok (list_dir (sub, names, sizeof (names)) == 0 &&
            list_dir (dir, names, sizeof (names)) == before + 1,
        "and leaves no temporary file (%s)", names);
    rmdir (sub);

    ok (profile_write (NULL, path, 0644, &e) < 0 && profile_write (p, "", 0644, &e) < 0 &&
            profile_write (p, NULL, 0644, NULL) < 0,
        "profile_write rejects a NULL profile and no path");
    profile_destroy (p);
}

/* Rejections of a valid file edited at a JSON pointer. */
typedef struct {
    int op;
    const char *ptr;   /* SET: where; DEL: object, then key */
    const char *value; /* SET: JSON text; DEL: key */
    const char *want;  /* in the message */
} edit_t;

static const edit_t edits[] = {
    {SET, "/schema", "3", "schema 3, expected 1 or 2"},
    {SET, "/schema", "2", "missing key 'check'"},
    {SET, "/check", "{}", "unknown key 'check'"},
    {SET, "/schema", "\"1\"", "schema: not an integer"},
    {SET, "/kind", "\"topomap-netmap\"", "kind 'topomap-netmap', expected 'topomap-profile'"},
    {SET, "/extra", "1", "unknown key 'extra'"},
    {SET, "/ntasks", "0", "ntasks: 0, too small"},
    {SET, "/ntasks", "4.0", "ntasks: not an integer"},
    {SET, "/ntasks", "3", "entries[3] dst: 3, too large"},
    {SET, "/ntasks", "16777217", "ntasks: 16777217, too large"},
    {SET, "/exe", "\"a.out\"", "exe: not an object"},
    {SET, "/exe/id", "7", "exe.id: not a string"},
    {SET, "/exe/size", "7", "unknown key 'exe.size'"},
    {SET, "/exe/path", "\"a\\u0000b\"", "exe.path: control character"},
    {SET, "/mpi", "null", "mpi: not a string"},
    {SET, "/source", "[]", "source: not a string"},
    {SET, "/collectives", "1", "collectives: not a boolean"},
    {SET, "/record_s", "-1", "record_s: not a finite number >= 0"},
    {SET, "/record_s", "\"long\"", "record_s: not a number"},
    {SET, "/jobid", "\"12345678901234567890123456789012\"", "jobid: longer than 31 bytes"},
    {SET, "/jobid", "\"1\\t2\"", "jobid: control character"},
    {SET, "/timestamp", "\"2026-02-30T00:00:00Z\"", "timestamp: not a UTC time"},
    {SET, "/timestamp", "\"2026-11-20 21:44:50\"", "timestamp: not a UTC time"},
    {SET, "/totals", "[]", "totals: not an object"},
    {SET, "/totals/msgs", "23", "totals.msgs: 23, but the entries sum to 24"},
    {SET, "/totals/bytes", "0", "totals.bytes: 0, but the entries sum to 1053680"},
    {SET, "/totals/bytes", "-1", "totals.bytes: negative"},
    {SET, "/totals/calls", "1", "unknown key 'totals.calls'"},
    {SET, "/entries", "{}", "entries: not an array"},
    {SET, "/entries/0", "7", "entries[0]: not an array"},
    {SET, "/entries/0", "[0, 1, 5]", "entries[0]: 3 items, expected [src, dst, msgs, bytes]"},
    {SET, "/entries/0/0", "4", "entries[0] src: 4, too large"},
    {SET, "/entries/0/1", "-1", "entries[0] dst: negative"},
    {SET, "/entries/0/2", "5.0", "entries[0] msgs: not an integer"},
    {SET, "/entries/0/3", "\"2048\"", "entries[0] bytes: not an integer"},
    {SET, "/entries/0/3", "9223372036854775808", "entries[0] bytes: above 2^63-1"},
    {SET, "/entries/0/3", "18446744073709551616", "entries[0] bytes: above 2^63-1"},
    {SET, "/entries/0", "[0, 1, 0, 2048]", "entries[0]: (0, 1): bytes without a message"},
    {SET, "/entries/0", "[0, 1, 0, 0]", "entries[0]: (0, 1): zero messages and bytes"},
    {SET, "/entries/1", "[0, 1, 5, 2048]", "entries[1]: (0, 1) repeats entries[0] (0, 1)"},
    {SET, "/entries/1", "[0, 0, 5, 2048]",
     "entries[1]: (0, 0) is out of order after entries[0] (0, 1)"},
    {DEL, "", "totals", "missing key 'totals'"},
    {DEL, "", "entries", "missing key 'entries'"},
    {DEL, "", "collectives", "missing key 'collectives'"},
    {DEL, "/exe", "path", "missing key 'exe.path'"},
    {DEL, "/totals", "bytes", "missing key 'totals.bytes'"},
};

/* Each of the n edits of good rejected by profile_read, naming the file
 * and the fault; name: the edited files' prefix.
 */
static void read_edits (const char *good, const edit_t *edit, size_t n, const char *name)
{
    char path[PATH_MAX];
    profile_t *p;
    tm_error_t e;

    for (size_t k = 0; k < n; k++) {
        int rc;

        snprintf (path, sizeof (path), "%s/%s%zu.json", dir, name, k);
        e.text[0] = '\0';
        p = NULL;
        errno = 0;
        if ((rc = edit_json (good, path, edit[k].op, edit[k].ptr, edit[k].value)) == 0)
            p = profile_read (path, &e);
        ok (rc == 0 && !p && errno == EINVAL && strstr (e.text, path) &&
                strstr (e.text, edit[k].want),
            "profile_read rejects %s%s %s %s: %s", edit[k].ptr, edit[k].op == SET ? "" : "/",
            edit[k].op == SET ? "set to" : edit[k].value,
            edit[k].op == SET ? edit[k].value : "deleted", e.text);
        profile_destroy (p);
        unlink (path);
    }
}

static void test_read_edits (const char *good)
{
    char path[PATH_MAX];
    profile_t *p;
    tm_error_t e;

    read_edits (good, edits, sizeof (edits) / sizeof (edits[0]), "edit");

    /* A self-send is no fault: (0, 0) before (0, 1) with the same counts. */
    in_dir (path, "self.json");
    p = NULL;
    if (edit_json (good, path, SET, "/entries/0", "[0, 0, 5, 2048]") == 0)
        p = profile_read (path, &e);
    ok (p && p->entries[0].src == 0 && p->entries[0].dst == 0 && p->row[1] == 1,
        "profile_read accepts a self-send");
    profile_destroy (p);
    unlink (path);
}

/* make_profile with a check: a second recording that repeats the pairs
 * 0 -> 1 and 1 -> 0, half of 2 -> 3, and sends 3 -> 0 instead of 1 -> 2
 * and 3 -> 3.
 */
static profile_t *make_checked (void)
{
    const profile_entry_t t[] = {
        {0, 1, 5, 2048},
        {1, 0, 5, 2048},
        {2, 3, 5, 1 << 19},
        {3, 0, 2, 4096},
    };
    profile_t *p = make_profile ();

    if (p && !(p->recheck = profile_create (4, sizeof (t) / sizeof (t[0]), t, NULL))) {
        profile_destroy (p);
        return NULL;
    }
    if (p) {
        p->recheck->record_s = 2.5;
        strcpy (p->recheck->jobid, "4243");
        p->recheck->timestamp = 1795214690; /* an hour later */
    }
    return p;
}

static const edit_t check_edits[] = {
    {SET, "/schema", "1", "unknown key 'check'"},
    {SET, "/check", "[]", "check: not an object"},
    {SET, "/check/exe", "{}", "unknown key 'check.exe'"},
    {SET, "/check/entries/0/0", "4", "check.entries[0] src: 4, too large"},
    {SET, "/check/entries/1", "[0, 1, 5, 2048]",
     "check.entries[1]: (0, 1) repeats check.entries[0]"},
    {SET, "/check/totals/msgs", "16", "check.totals.msgs: 16, but the entries sum to 17"},
    {SET, "/check/record_s", "-2", "check.record_s: not a finite number >= 0"},
    {SET, "/check/jobid", "\"1\\t2\"", "check.jobid: control character"},
    {SET, "/check/timestamp", "\"yesterday\"", "check.timestamp: not a UTC time"},
    {DEL, "/check", "entries", "missing key 'check.entries'"},
    {DEL, "/check", "totals", "missing key 'check.totals'"},
};

static void test_check (void)
{
    char path[PATH_MAX];
    profile_t *p = make_checked (), *back = NULL, *q;
    const char *diff = "nothing read";
    tm_error_t e = {""};
    char *text;
    size_t len;

    if (!ok (p != NULL, "a profile with a check is made"))
        return;
    in_dir (path, "checked.json");
    if (!ok (profile_write (p, path, 0600, &e) == 0, "profile_write writes a profile with a check"))
        diag ("%s", e.text);
    if ((back = profile_read (path, &e)) && back->recheck)
        diff = profile_diff (p, back) ? profile_diff (p, back)
                                      : profile_diff (p->recheck, back->recheck);
    else
        diag ("%s", e.text);
    ok (back && back->recheck && !diff && !back->recheck->recheck,
        "profile_read gives back the profile and its check's matrix, totals, record_s, jobid and "
        "timestamp%s%s",
        diff ? ": differs in " : "", diff ? diff : "");
    text = read_file (path, &len);
    ok (text && strstr (text, "\"schema\":2") && strstr (text, "\"check\":{") &&
            strstr (text, "\"timestamp\":\"2026-11-20T22:44:50Z\"") &&
            !strstr (strstr (text, "\"check\":{"), "\"exe\""),
        "the file is schema 2, and its check holds only what is the recording's own");
    free (text);
    {
        /* 0 -> 1 and 1 -> 0 each 2048 B in both, their lesser share the
         * first's; 2 -> 3 2^20 B in the first, 2^19 in the check, its
         * lesser share the check's. */
        double want = 2 * 2048.0 / (double)p->total_bytes +
                      (double)(1 << 19) / (double)p->recheck->total_bytes;
        profile_t *twice = make_profile ();

        for (size_t k = 0; twice && k < twice->nentries; k++)
            twice->entries[k].bytes *= 2;
        if (twice)
            twice->total_bytes *= 2;
        ok (fabs (profile_recurring (p, p->recheck) - want) < 1e-12 &&
                fabs (profile_recurring (p->recheck, p) - want) < 1e-12 &&
                profile_recurring (p, p) == 1.0 && twice &&
                fabs (profile_recurring (p, twice) - 1.0) < 1e-12,
            "profile_recurring: each pair's lesser share of its own profile's bytes, summed; a "
            "pattern sent twice over is alike");
        profile_destroy (twice);
    }

    {
        /* The pairs both sent on, 0 -> 1, 1 -> 0 and 2 -> 3, each at the
         * lesser of its shares (2 -> 3: 2^19 of the check's 532 480 B is
         * 1 037 469.54 of the first's 1 053 680; 5 of its 17 messages 7.06
         * of 24); in the check's scale the first's 2048 B of 0 -> 1 are
         * 1034.96 B, its 5 of 24 messages 3.54. */
        const profile_entry_t *x;
        profile_t *c = profile_common (p, p->recheck, &e), *d = profile_common (p->recheck, p, &e);

        ok (c && c->nentries == 3 && (x = profile_get (c, 0, 1)) && x->bytes == 2048 &&
                x->msgs == 5 && (x = profile_get (c, 1, 0)) && x->bytes == 2048 &&
                (x = profile_get (c, 2, 3)) && x->bytes == 1037470 && x->msgs == 7 && !c->recheck &&
                c->ntasks == 4 && !strcmp (c->jobid, p->jobid) && !strcmp (c->exe_id, p->exe_id) &&
                !strcmp (c->source, "recorder") && c->collectives == 1 &&
                c->timestamp == p->timestamp &&
                fabs ((double)c->total_bytes / (double)p->total_bytes -
                      profile_recurring (p, p->recheck)) < 1e-6,
            "profile_common: the pairs both sent on, each at its lesser share, in the first's "
            "scale; the first's strings and times, no check; its bytes the recurring share");
        ok (d && d->nentries == 3 && (x = profile_get (d, 0, 1)) && x->bytes == 1035 &&
                x->msgs == 4 && (x = profile_get (d, 2, 3)) && x->bytes == 524288 && x->msgs == 5 &&
                !strcmp (d->jobid, "4243"),
            "profile_common the other way: in the check's scale");
        profile_destroy (c);
        profile_destroy (d);
        {
            /* Counts a double holds only rounded: the first's own. */
            const profile_entry_t big[] = {{0, 1, (1ULL << 62) + 1, (1ULL << 63) - 10}};
            profile_t *a = profile_create (2, 1, big, &e), *b = profile_create (2, 1, big, &e);

            c = a && b ? profile_common (a, b, &e) : NULL;
            ok (c && c->nentries == 1 && c->entries[0].bytes == (1ULL << 63) - 10 &&
                    c->entries[0].msgs == (1ULL << 62) + 1,
                "profile_common keeps counts past 2^53 exact where they are the lesser");
            profile_destroy (a);
            profile_destroy (b);
            profile_destroy (c);
        }
        {
            /* Recordings that share no pair, or one that sent nothing. */
            const profile_entry_t one[] = {{0, 1, 10, 1}}, other[] = {{1, 0, 10, 1}};
            profile_t *a = profile_create (2, 1, one, &e), *b = profile_create (2, 1, other, &e),
                      *none = profile_create (2, 0, NULL, &e);

            ok (a && b && !profile_common (a, b, &e) && errno == ENODATA &&
                    !strcmp (e.text, "none of the traffic of the profile's recording recurs in "
                                     "its check"),
                "profile_common of recordings that share no pair: none, and why: %s", e.text);
            ok (a && none && !profile_common (none, a, &e) && errno == ENODATA &&
                    !strcmp (e.text, "a recording of the profile sent nothing point to point") &&
                    !profile_common (a, none, &e) && errno == ENODATA,
                "profile_common of a recording that sent nothing: none, and why: %s", e.text);
            profile_destroy (a);
            profile_destroy (b);
            profile_destroy (none);
        }
        c = profile_create (3, 0, NULL, NULL);
        ok (c && !profile_common (p, c, &e) && errno == EINVAL &&
                strstr (e.text, "profiles of 4 and 3 tasks share no traffic"),
            "profile_common refuses profiles of other task counts: %s", e.text);
        profile_destroy (c);
    }

    read_edits (path, check_edits, sizeof (check_edits) / sizeof (check_edits[0]), "check");

    /* The writer refuses what the reader would. */
    q = p->recheck;
    p->recheck = profile_create (3, 0, NULL, NULL);
    ok (p->recheck && profile_write (p, path, 0600, &e) < 0 &&
            strstr (e.text, "check: 3 tasks, the profile 4"),
        "profile_write refuses a check of another task count: %s", e.text);
    profile_destroy (p->recheck);
    p->recheck = q;
    q->recheck = make_profile ();
    ok (profile_write (p, path, 0600, &e) < 0 && strstr (e.text, "check: has a check of its own"),
        "profile_write refuses a check with a check: %s", e.text);
    unlink (path);
    profile_destroy (back);
    profile_destroy (p);
}

static void test_read_file (const char *good)
{
    char path[PATH_MAX];
    char *text;
    size_t len = 0;
    tm_error_t e;
    int fd;

    in_dir (path, "nonexistent.json");
    errno = 0;
    ok (!profile_read (path, &e) && errno == ENOENT && strstr (e.text, path) &&
            strstr (e.text, strerror (ENOENT)),
        "profile_read of a nonexistent file fails naming it: %s", e.text);

    ok (!profile_read (write_str ("text.json", "profile\n"), &e) && strstr (e.text, "text.json") &&
            strstr (e.text, "not valid JSON"),
        "profile_read rejects a file that is not JSON: %s", e.text);

    text = read_file (good, &len);
    ok (text && len > 100, "the good file is read as text");
    if (!text)
        return;
    in_dir (path, "cut.json");
    write_file (path, text, len / 2, 0644);
    ok (!profile_read (path, &e) && strstr (e.text, path) &&
            strstr (e.text, "not valid JSON: truncated at line"),
        "profile_read rejects a file cut in half, with the line: %s", e.text);
    text[len - 1] = 'x';
    write_file (path, text, len, 0644);
    ok (!profile_read (path, &e) && strstr (e.text, "not valid JSON") && strstr (e.text, "at line"),
        "profile_read rejects data after the JSON document: %s", e.text);
    free (text);

    ok (!profile_read (write_str ("bad.json", "{\n\"kind\":\n\"topomap-profile\",,\n}\n"), &e) &&
            strstr (e.text, "not valid JSON") && strstr (e.text, "at line 3"),
        "profile_read names the line of a syntax error: %s", e.text);
    ok (!profile_read (write_str ("empty.json", ""), &e) && strstr (e.text, "empty file"),
        "profile_read rejects an empty file: %s", e.text);
    ok (!profile_read (write_str ("array.json", "[1, 2]\n"), &e) &&
            strstr (e.text, "not a JSON object"),
        "profile_read rejects a JSON array: %s", e.text);
    ok (!profile_read (dir, &e) && strstr (e.text, "not a regular file"),
        "profile_read rejects a directory: %s", e.text);

    in_dir (path, "huge.json");
    fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    errno = 0;
    ok (fd >= 0 && ftruncate (fd, 512 * 1024 * 1024 + 1) == 0 && close (fd) == 0 &&
            !profile_read (path, &e) && errno == EFBIG &&
            strstr (e.text, "larger than the limit of 512 MiB"),
        "profile_read refuses a file over 512 MiB: %s", e.text);
    errno = 0;
    ok (!profile_import (path, PROFILE_FMT_AUTO, &e) && errno == EFBIG &&
            strstr (e.text, "larger than the limit"),
        "profile_import refuses a file over 512 MiB: %s", e.text);
    unlink (path);

    ok (!profile_read (NULL, &e) && !profile_read ("", NULL), "profile_read rejects no path");
}

static void test_format_parse (void)
{
    const char *names[] = {"auto", "matrix", "csv", "mat", "ompi", "ompi-monitoring"};
    const profile_format_t want[] = {PROFILE_FMT_AUTO, PROFILE_FMT_MATRIX, PROFILE_FMT_MATRIX,
                                     PROFILE_FMT_MAT,  PROFILE_FMT_OMPI,   PROFILE_FMT_OMPI};
    profile_format_t fmt;
    int good = 1;

    for (size_t k = 0; k < sizeof (names) / sizeof (names[0]); k++) {
        fmt = (profile_format_t)-1;
        good &= profile_format_parse (names[k], &fmt) == 0 && fmt == want[k];
    }
    ok (good, "profile_format_parse knows auto, matrix, csv, mat, ompi and ompi-monitoring");
    ok (profile_format_parse ("CSV", &fmt) < 0 && profile_format_parse (NULL, &fmt) < 0 &&
            errno == EINVAL,
        "profile_format_parse rejects other names");
}

static void test_import_matrix (void)
{
    profile_t *p;
    tm_error_t e = {""};
    const char *path;
    char none[PATH_MAX];

    path = write_str ("cloudmap.csv", "# bytes from row to column\r\n"
                                      "0, 100,0\r\n"
                                      "\r\n"
                                      "1.0e3 ,0 ,  2048.0\r\n"
                                      "   # indented comment\n"
                                      "0\t9007199254740993 0\n");
    p = profile_import (path, PROFILE_FMT_MATRIX, &e);
    if (!ok (p && p->ntasks == 3 && p->nentries == 4, "a CSV matrix imports as 3 ranks, 4 pairs"))
        diag ("%s", e.text);
    ok (p && has_entry (p, 0, 0, 1, 1, 100) && has_entry (p, 1, 1, 0, 1, 1000) &&
            has_entry (p, 2, 1, 2, 1, 2048) && has_entry (p, 3, 2, 1, 1, 9007199254740993u),
        "its counts read exactly, one message per nonzero entry, 2^53+1 and 1.0e3 included");
    ok (p && strcmp (p->source, "import:csv") == 0 && p->collectives == 0,
        "a CSV import says source import:csv");
    profile_destroy (p);

    path = write_str ("bom.csv", "\xef\xbb\xbf"
                                 "0,7\n7,0\n");
    p = profile_import (path, PROFILE_FMT_AUTO, &e);
    ok (p && p->ntasks == 2 && p->total_bytes == 14,
        "a CSV that starts with a UTF-8 byte order mark imports: %s", p ? "" : e.text);
    profile_destroy (p);

    path = write_str ("max.csv", "0 18446744073709551615\n0 0\n");
    p = profile_import (path, PROFILE_FMT_MATRIX, &e);
    ok (p && p->total_bytes == UINT64_MAX, "a count of 2^64-1 imports: %s", p ? "" : e.text);
    profile_destroy (p);

    path = write_str ("tm.mat", "0 5 0 0\n5 0 7 0\n0 7 0 9\n0 0 9 0\n");
    p = profile_import (path, PROFILE_FMT_MAT, &e);
    ok (p && p->ntasks == 4 && p->nentries == 6 && p->total_bytes == 42 && p->total_msgs == 6 &&
            strcmp (p->source, "import:mat") == 0,
        "a TreeMatch .mat imports with source import:mat");
    profile_destroy (p);
    p = profile_import (path, PROFILE_FMT_AUTO, &e);
    ok (p && p->nentries == 6 && strcmp (p->source, "import:csv") == 0,
        "auto reads a whitespace matrix as a matrix");
    profile_destroy (p);

    static const struct {
        const char *text;
        const char *want;
    } bad[] = {
        {"0 1 2\n3 4\n5 6 7\n", ":2: row 2 has 2 columns, expected 3 like the first row"},
        {"0 1\n1 0 1\n", ":2: row 2 has 3 columns, expected 2"},
        {"0,1\n-5,0\n", ":2: column 1: '-5': negative"},
        {"0 1\n1 x\n", ":2: column 2: 'x': not a number"},
        {"0 1\n1 0x10\n", ":2: column 2: '0x10': not a number"},
        {"0 1\n1 nan\n", ":2: column 2: 'nan': not a number"},
        {"0 1.5\n1 0\n", ":1: column 2: '1.5': not a whole number"},
        {"0 1e-3\n1 0\n", ":1: column 2: '1e-3': not a whole number"},
        {"0 18446744073709551616\n1 0\n",
         ":1: column 2: '18446744073709551616': too large, 2^64 or more"},
        {"0 2e19\n1 0\n", ":1: column 2: '2e19': too large"},
        {"0 1\n1 0\n1 1\n", ":3: row 3, but rows have 2 columns: the matrix must be square"},
        {"0 1 2\n3 4 5\n", ": 2 rows of 3 columns: the matrix must be square"},
        {"0,,1\n", ":1: column 2: empty field"},
        {"0,1,\n", ":1: column 3: empty field after the last comma"},
        {"# nothing\n\n", ": no matrix rows"},
        {"", ": no matrix rows"},
    };
    for (size_t k = 0; k < sizeof (bad) / sizeof (bad[0]); k++) {
        char name[32], want[PATH_MAX + 128];

        snprintf (name, sizeof (name), "bad%zu.csv", k);
        path = write_str (name, bad[k].text);
        snprintf (want, sizeof (want), "%s%s", path, bad[k].want);
        errno = 0;
        p = profile_import (path, PROFILE_FMT_MATRIX, &e);
        ok (!p && errno == EINVAL && strstr (e.text, want),
            "profile_import rejects a bad matrix: %s", e.text);
        profile_destroy (p);
        unlink (path);
    }

    errno = 0;
    ok (!profile_import (in_dir (none, "none.csv"), PROFILE_FMT_AUTO, &e) && errno == ENOENT &&
            strstr (e.text, "none.csv"),
        "profile_import of a nonexistent file fails naming it: %s", e.text);
    ok (!profile_import (path, (profile_format_t)42, &e) && errno == EINVAL &&
            strstr (e.text, "unknown import format"),
        "profile_import rejects an unknown format");
}

/* Two ranks' files concatenated, as Open MPI 4 writes them with
 * pml_monitoring_enable=2, plus a second phase of rank 0.
 */
static const char ompi_text[] = "# POINT TO POINT\n"
                                "E\t0\t1\t1024 bytes\t2 msgs sent\t0,0,0,0,0,0,0,0,0,0,2,0\n"
                                "E\t0\t2\t40 bytes\t10 msgs sent\t0,0,10\n"
                                "I\t0\t1\t108 bytes\t27 msgs sent\n"
                                "I\t0\t5\t64 bytes\t1 msgs sent\t0,0,0,0,0,0,1\n"
                                "# OSC\n"
                                "S\t0\t1\t4096 bytes\t1 msgs sent\n"
                                "R\t0\t1\t4096 bytes\t1 msgs sent\n"
                                "# COLLECTIVES\n"
                                "C\t0\t1\t8 bytes\t1 msgs sent\n"
                                "D\tMPI_COMM_WORLD\tprocs: 0,1,2,3,4,5\n"
                                "O2A\t0\t8 bytes\t1 msgs sent\n"
                                "A2O\t0\t0 bytes\t0 msgs sent\n"
                                "A2A\t0\t0 bytes\t0 msgs sent\n"
                                "# POINT TO POINT\n"
                                "E\t1\t0\t2048 bytes\t4 msgs sent\t0\n"
                                "E\t1\t1\t16 bytes\t1 msgs sent\t0\n"
                                "# POINT TO POINT\n"
                                "E\t0\t1\t1024 bytes\t3 msgs sent\t0\n"
                                "E\t0\t3\t0 bytes\t7 msgs sent\t7\n";

static void test_import_ompi (void)
{
    profile_t *p;
    tm_error_t e = {""};
    const char *path = write_str ("prof.all.prof", ompi_text);

    p = profile_import (path, PROFILE_FMT_OMPI, &e);
    if (!ok (p && p->ntasks == 6,
             "Open MPI monitoring output imports with ntasks 1 + highest rank"))
        diag ("%s", e.text);
    ok (p && p->nentries == 5 && has_entry (p, 0, 0, 1, 5, 2048) &&
            has_entry (p, 1, 0, 2, 10, 40) && has_entry (p, 2, 0, 3, 7, 0) &&
            has_entry (p, 3, 1, 0, 4, 2048) && has_entry (p, 4, 1, 1, 1, 16),
        "it takes the E lines, summing those of one pair across phases");
    ok (p && !profile_get (p, 0, 5), "it leaves out the I lines of internal traffic");
    ok (p && strcmp (p->source, "import:ompi-monitoring") == 0 &&
            strcmp (p->mpi, "Open MPI") == 0 && p->collectives == 0,
        "it says source import:ompi-monitoring, mpi Open MPI, no collectives");
    profile_destroy (p);
    p = profile_import (path, PROFILE_FMT_AUTO, &e);
    ok (p && p->ntasks == 6 && p->nentries == 5, "auto recognizes Open MPI monitoring output");
    profile_destroy (p);
    path = write_str ("noheader.prof", "E\t0\t1\t8 bytes\t1 msgs sent\n");
    p = profile_import (path, PROFILE_FMT_AUTO, &e);
    ok (p && p->ntasks == 2 && has_entry (p, 0, 0, 1, 1, 8),
        "auto recognizes an E line without the header");
    profile_destroy (p);

    static const struct {
        const char *text;
        const char *want;
    } bad[] = {
        {"E\t0\t1\t8 bytes\t1 msgs sent\nX\t0\t1\t8 bytes\t1 msgs sent\n",
         ":2: not an Open MPI monitoring line: 'X 0 1 8 bytes 1 msgs sent'"},
        {"[n1:01234] monitoring: flushing\n", ":1: not an Open MPI monitoring line"},
        {"E\t0\t1\t8 bytes\t1 msgs\n", ":1: expected '<kind> <sender> <receiver> <n> bytes"},
        {"E\t0\t1\t8\t1 msgs sent\n", ":1: expected"},
        {"O2A\t0\t1\t8 bytes\t1 msgs sent\n", ":1: expected '<kind> <rank> <n> bytes"},
        {"S\t0\t1\t8 bytes\t1 msgs sent\t0,1\n", ":1: data after 'msgs sent'"},
        {"E\t0\t1\t8 bytes\t1 msgs sent\t0;1\n", ":1: histogram: not comma-separated counts"},
        {"E\t0\t1048576\t8 bytes\t1 msgs sent\n",
         ":1: rank '1048576': above the limit of 2^20 tasks"},
        {"E\t-1\t1\t8 bytes\t1 msgs sent\n", ":1: rank '-1': not a non-negative integer"},
        {"E\t0\t1\t8k bytes\t1 msgs sent\n", ":1: bytes: not a non-negative integer"},
        {"E\t0\t1\t8 bytes\t18446744073709551616 msgs sent\n", ":1: msgs: too large"},
        {"E\t0\t1\t8 bytes\t0 msgs sent\n", ":1: bytes without a message"},
        {"D\n", ":1: a D line without a communicator"},
        {"# POINT TO POINT\n# OSC\n", ": no Open MPI monitoring lines"},
    };
    for (size_t k = 0; k < sizeof (bad) / sizeof (bad[0]); k++) {
        char name[32], want[PATH_MAX + 128];

        snprintf (name, sizeof (name), "bad%zu.prof", k);
        path = write_str (name, bad[k].text);
        snprintf (want, sizeof (want), "%s%s", path, bad[k].want);
        errno = 0;
        p = profile_import (path, PROFILE_FMT_OMPI, &e);
        ok (!p && errno == EINVAL && strstr (e.text, want), "profile_import rejects %s",
            e.text[0] ? e.text : "(no message)");
        profile_destroy (p);
        unlink (path);
    }
}

static void test_export (void)
{
    profile_t *p = make_profile (), *back = NULL;
    char path[PATH_MAX];
    char *text = NULL;
    size_t len = 0;
    tm_error_t e = {""};
    FILE *f;
    int same = 1;

    if (!p)
        return;
    in_dir (path, "export.csv");
    if ((f = fopen (path, "w"))) {
        ok (profile_export_csv (p, f, "bytes", &e) == 0, "profile_export_csv writes bytes");
        fclose (f);
    }
    text = read_file (path, &len);
    ok (text && strcmp (text, "0,2048,0,0\n2048,0,1000,0\n0,0,0,1048576\n0,0,0,8\n") == 0,
        "the bytes matrix is n lines of n comma-separated integers");
    free (text);

    back = profile_import (path, PROFILE_FMT_AUTO, &e);
    for (int i = 0; back && i < 4; i++)
        for (int j = 0; j < 4; j++) {
            const profile_entry_t *a = profile_get (p, i, j), *b = profile_get (back, i, j);
            same &= (a ? a->bytes : 0) == (b ? b->bytes : 0);
        }
    ok (back && back->ntasks == 4 && same,
        "exported bytes import back as a matrix with the same bytes");
    profile_destroy (back);

    f = fopen (path, "w");
    ok (f && profile_export_csv (p, f, "msgs", &e) == 0, "profile_export_csv writes messages");
    if (f)
        fclose (f);
    text = read_file (path, &len);
    ok (text && strcmp (text, "0,5,0,0\n5,0,3,0\n0,0,0,10\n0,0,0,1\n") == 0,
        "the messages matrix is written the same way");
    free (text);

    errno = 0;
    ok (profile_export_csv (p, stdout, "calls", &e) < 0 && errno == EINVAL &&
            strstr (e.text, "'calls': expected bytes or msgs"),
        "profile_export_csv rejects another quantity: %s", e.text);
    if ((f = fopen ("/dev/full", "w"))) {
        errno = 0;
        ok (profile_export_csv (p, f, "bytes", &e) < 0 && errno == ENOSPC &&
                strstr (e.text, "cannot write"),
            "profile_export_csv reports a write error: %s", e.text);
        fclose (f);
    } else
        ok (1, "profile_export_csv reports a write error # SKIP no /dev/full");
    unlink (path);
    profile_destroy (p);
}

/* What profile_show prints for p, NULL on failure. */
static char *show (const profile_t *p, const char *name, int top)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    int rc;

    if (!f)
        return NULL;
    rc = profile_show (f, p, name, top);
    fclose (f);
    if (rc < 0) {
        free (text);
        return NULL;
    }
    return text;
}

static void test_show (void)
{
    profile_t *p = make_profile ();
    char *text;
    FILE *f;

    text = p ? show (p, "hot.json", 3) : NULL;
    ok (text && strstr (text, "profile hot.json\n") && strstr (text, "ntasks        4\n") &&
            strstr (text, "sha256:0123abcd") && strstr (text, "/home/me/a.out") &&
            strstr (text, "Open MPI 4.1.6") && strstr (text, "recorder"),
        "profile_show prints the identity of the profile");
    ok (text && strstr (text, "2026-11-20T21:44:50Z, job 4242.1") &&
            strstr (text, "collectives   yes"),
        "profile_show prints when, in which job, and whether collectives are in");
    ok (text && strstr (text, "bytes         1053680 (1.0 MiB)") &&
            strstr (text, "messages      24\n"),
        "profile_show prints the totals with binary units");
    ok (text && strstr (text, "talking       5 directed of 16 possible") &&
            strstr (text, "1 self-sends (8 B)") && strstr (text, "1.50 distinct peers per rank"),
        "profile_show prints the talking pairs, self-sends and average degree");
    ok (text && strstr (text, "2 -> 3") && strstr (text, "2 -> 3") < strstr (text, "0 -> 1") &&
            strstr (text, "0 -> 1") < strstr (text, "1 -> 0") && !strstr (text, "1 -> 2"),
        "profile_show lists the top 3 pairs heaviest first, ties by src and dst");
    ok (text && strstr (text, "99.5%") && strstr (text, "1.0 MiB"),
        "the heaviest pair carries its share of the bytes");
    ok (text && strstr (text, "1 of 5 pairs carry 99.5% of the bytes") &&
            strstr (text, "verdict       heterogeneous"),
        "a profile dominated by one pair is heterogeneous");
    free (text);

    text = p ? show (p, "hot.json", 0) : NULL;
    ok (text && !strstr (text, "heaviest pairs") && strstr (text, "verdict") &&
            !strstr (text, "checked at"),
        "profile_show with top 0 leaves out the pairs but not the verdict; no check, no line");
    free (text);
    profile_destroy (p);
    p = make_checked ();
    text = p ? show (p, "checked.json", 0) : NULL;
    ok (text && strstr (text, "checked at    2026-11-20T22:44:50Z, job 4243, run of 2.5 s\n") &&
            strstr (text, "recurring     98.9% of the traffic, each pair's lesser share of its "
                          "run's bytes (the check's: 520.0 KiB)\n"),
        "profile_show says when the check was recorded and how much of the traffic recurred");
    free (text);
    profile_destroy (p);

    {
        const profile_entry_t ring[] = {{0, 1, 1, 1000}, {1, 2, 1, 1000}, {2, 3, 1, 1000},
                                        {3, 0, 1, 1000}, {1, 0, 1, 1100}, {2, 1, 1, 1000},
                                        {3, 2, 1, 900},  {0, 3, 1, 1000}};
        const profile_entry_t mixed[] = {{0, 1, 1, 1000}, {1, 2, 1, 2000}, {2, 3, 1, 3000}};

        p = profile_create (4, 8, ring, NULL);
        text = p ? show (p, NULL, 2) : NULL;
        ok (text && strstr (text, "verdict       uniform") &&
                strstr (text, "2.00 distinct peers per rank on average, 2 at most") &&
                strstr (text, "profile (unnamed)") && strstr (text, "executable    unknown") &&
                strstr (text, "collectives   no"),
            "a ring exchange is uniform, with degree 2 and unknown identity");
        free (text);
        profile_destroy (p);

        p = profile_create (4, 3, mixed, NULL);
        text = p ? show (p, "mixed", 5) : NULL;
        ok (text && strstr (text, "cv            0.41") && strstr (text, "verdict       moderate"),
            "pairs of 1, 2 and 3 kB are moderately heterogeneous");
        free (text);
        profile_destroy (p);
    }

    p = profile_create (2, 0, NULL, NULL);
    text = p ? show (p, "quiet", 5) : NULL;
    ok (text && strstr (text, "no point-to-point traffic recorded") && !strstr (text, "verdict"),
        "profile_show of a silent profile says there is no traffic");
    free (text);

    if ((f = fopen ("/dev/full", "w"))) {
        errno = 0;
        ok (p && profile_show (f, p, "quiet", 5) < 0 && errno == ENOSPC,
            "profile_show returns -1 with errno on an output error");
        fclose (f);
    } else
        ok (1, "profile_show reports an output error # SKIP no /dev/full");
    errno = 0;
    ok (profile_show (stdout, NULL, "x", 1) < 0 && errno == EINVAL,
        "profile_show rejects no profile");
    profile_destroy (p);
}

int main (void)
{
    char good[PATH_MAX];
    profile_t *p;

    plan (NO_PLAN);
    umask (077);
    if (scratch_dir ("profile-test") < 0)
        return done_testing ();

    test_create ();
    test_create_random ();
    test_round_trip ();
    test_write_refuses ();
    test_write_fails ();

    in_dir (good, "good.json");
    p = profile_read (good, NULL);
    ok (p != NULL, "the good file for the rejection tests reads");
    profile_destroy (p);
    test_read_edits (good);
    test_read_file (good);
    test_check ();

    test_format_parse ();
    test_import_matrix ();
    test_import_ompi ();
    test_export ();
    test_show ();

    remove_tree (dir);
    return done_testing ();
}
