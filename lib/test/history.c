/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The runs of a profile (history.h): names, the file and its bounds, and
 * the verdict on synthetic histories: noise, other arguments, a network
 * that changes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/history.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"

#define ID   "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ARGS "00112233aabbccdd"

static void add (history_t *h, history_layout_t l, double s, const char *args)
{
    history_run_t *r = &h->run[h->nruns++];

    r->time = 1764637200 + h->nruns;
    r->layout = l;
    r->elapsed_s = s;
    snprintf (r->args, sizeof (r->args), "%s", args);
}

static void test_names (void)
{
    char name[300], a[HISTORY_ARGS + 1], b[HISTORY_ARGS + 1];
    char *argv1[] = {"-n", "5"}, *argv2[] = {"-n5"}, *argv3[] = {"-n", "6"};
    tm_error_t e;

    ok (history_name (ID, 16, name, sizeof (name), &e) == 0 && history_name_ok (name) &&
            !strcmp (name + strlen (name) - 9, ".n16.runs"),
        "the history's name is the profile's key, .runs for .json: %s", name);
    ok (history_name ("nonsense", 16, name, sizeof (name), &e) < 0, "not for a bad exe id: %s",
        e.text);
    ok (!history_name_ok ("../x.runs") && !history_name_ok (".x.runs") &&
            !history_name_ok ("x.json") && !history_name_ok ("a/b.runs"),
        "names with a slash, a leading dot or another suffix are refused");
    history_args_hash (2, argv1, a);
    history_args_hash (1, argv2, b);
    ok (history_args_ok (a) && strcmp (a, b) != 0, "arguments hash apart however they split: %s %s",
        a, b);
    history_args_hash (2, argv3, b);
    ok (strcmp (a, b) != 0 && !history_args_ok ("0011") && !history_args_ok ("00112233AABBCCDD"),
        "another argument, another hash; short or upper-case hashes refused");
}

static void test_file (void)
{
    char path[PATH_MAX], name[300];
    history_t h;
    history_run_t r = {.time = 1764637200, .layout = HISTORY_PLAN, .elapsed_s = 1.25};
    tm_error_t e;
    int fd = open (dir, O_RDONLY | O_DIRECTORY);

    memcpy (r.args, ARGS, sizeof (r.args));
    history_name (ID, 16, name, sizeof (name), &e);
    ok (history_readat (fd, name, "h", getuid (), &h, &e) == 0 && h.nruns == 0,
        "no history yet: none, no error");
    for (int i = 0; i < HISTORY_MAX + 3; i++) {
        r.elapsed_s = i;
        r.layout = (history_layout_t)(i % 3);
        if (history_addat (fd, name, "h", getuid (), &r, &e) < 0)
            break;
    }
    ok (history_readat (fd, name, "h", getuid (), &h, &e) == 0 && h.nruns == HISTORY_MAX &&
            h.run[0].elapsed_s == 3 && h.run[HISTORY_MAX - 1].elapsed_s == HISTORY_MAX + 2 &&
            h.run[0].layout == HISTORY_SRUN && h.run[1].layout == HISTORY_PLAN &&
            h.run[2].layout == HISTORY_RECORDED && !strcmp (h.run[0].args, ARGS) &&
            h.run[0].time == 1764637200,
        "runs added past %d: the oldest dropped, the rest read back as written", HISTORY_MAX);
    {
        struct stat st;

        int rc = fstatat (fd, name, &st, 0);

        ok (rc == 0 && (st.st_mode & 0777) == 0600 && st.st_size < HISTORY_MAX_BYTES / 2,
            "the file is 0600 and %lld bytes, within its bound", (long long)st.st_size);
    }
    /* A link planted at the name is replaced, never followed. */
    write_file (in_dir (path, "target"), "x", 1, 0600);
    unlinkat (fd, name, 0);
    symlinkat ("target", fd, name);
    ok (history_readat (fd, name, "h", getuid (), &h, &e) < 0, "a link is not read: %s", e.text);
    ok (history_addat (fd, name, "h", getuid (), &r, &e) == 0 &&
            history_readat (fd, name, "h", getuid (), &h, &e) == 0 && h.nruns == 1,
        "a run added where a link stood starts the history anew");
    {
        size_t len;
        char *t = read_file (in_dir (path, "target"), &len);

        ok (t && len == 1 && t[0] == 'x', "and the link's target is untouched");
        free (t);
    }
    close (fd);
}

static void test_parse (void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"{\"schema\": 1, \"runs\": []}", "h: schema 1, this topomap reads 2"},
        {"{\"schema\": 2}", "h: missing key 'runs'"},
        {"{\"schema\": 2, \"runs\": [1]}", "h: runs[0]: not an object"},
        {"{\"schema\": 2, \"runs\": [{\"time\": \"2026-12-02T01:00:00Z\", \"layout\": \"best\", "
         "\"elapsed_s\": 1, \"args\": \"00112233aabbccdd\"}]}",
         "h: runs[0].layout: not \"srun\", \"plan\" or \"recorded\""},
        {"{\"schema\": 2, \"runs\": [{\"time\": \"2026-12-02T01:00:00Z\", \"layout\": \"plan\", "
         "\"elapsed_s\": -1, \"args\": \"00112233aabbccdd\"}]}",
         "h: runs[0].elapsed_s: not 0 to a year"},
        {"{\"schema\": 2, \"runs\": [{\"time\": \"2026-12-02T01:00:00Z\", \"layout\": \"plan\", "
         "\"elapsed_s\": 1, \"args\": \"../../etc\"}]}",
         "h: runs[0].args: not 16 hex digits"},
        {"{\"schema\": 2, \"runs\": [{\"time\": \"yesterday\", \"layout\": \"plan\", "
         "\"elapsed_s\": 1, \"args\": \"00112233aabbccdd\"}]}",
         "h: runs[0].time: not YYYY-MM-DDTHH:MM:SSZ"},
    };
    history_t h;
    tm_error_t e;
    char many[8192];
    size_t len = 0;

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        int rc = history_parse (bad[i].text, strlen (bad[i].text), "h", &h, &e);

        ok (rc < 0 && h.nruns == 0 && strstr (e.text, bad[i].want) == e.text,
            "refused, saying why: %s", e.text);
    }
    len += (size_t)snprintf (many, sizeof (many), "{\"schema\": 2, \"runs\": [");
    for (int i = 0; i <= HISTORY_MAX; i++)
        len += (size_t)snprintf (many + len, sizeof (many) - len,
                                 "%s{\"time\": \"2026-12-02T01:00:00Z\", \"layout\": \"srun\", "
                                 "\"elapsed_s\": 1, \"args\": \"00112233aabbccdd\"}",
                                 i ? ", " : "");
    len += (size_t)snprintf (many + len, sizeof (many) - len, "]}");
    ok (history_parse (many, len, "h", &h, &e) < 0 && strstr (e.text, "33 runs, more than 32"),
        "more runs than kept: refused: %s", e.text);
}

static void test_judge (void)
{
    history_t h = {0};
    history_verdict_t v;

    history_judge (&h, ARGS, &v);
    ok (!v.keep && v.placed == 0 && v.srun == 0, "no runs: nothing to keep");

    /* The two recordings, slowed by the recorder, are not compared: the
     * placed runs alternate with control runs under srun's layout. */
    add (&h, HISTORY_RECORDED, 0.070, ARGS);
    add (&h, HISTORY_RECORDED, 0.071, ARGS);
    history_judge (&h, ARGS, &v);
    ok (!v.keep && !v.control && v.srun == 0, "after the recordings: the plan placed");
    add (&h, HISTORY_PLAN, 0.058, ARGS);
    history_judge (&h, ARGS, &v);
    ok (!v.keep && v.control && v.placed == 1 && v.srun == 0,
        "one placed run and none under srun's layout: the next is a control");
    add (&h, HISTORY_SRUN, 0.048, ARGS);
    history_judge (&h, ARGS, &v);
    ok (!v.keep && !v.control && v.placed == 1 && v.srun == 1, "one of each: placed again");
    add (&h, HISTORY_PLAN, 0.060, ARGS);
    history_judge (&h, ARGS, &v);
    ok (!v.keep && v.control, "two placed, one control: a control again");
    add (&h, HISTORY_SRUN, 0.049, ARGS);
    ok (history_count (&h, HISTORY_SRUN) == 2 && history_count (&h, HISTORY_PLAN) == 2 &&
            history_count (&h, HISTORY_RECORDED) == 2,
        "counted by layout: 2 recorded, 2 under srun's, 2 placed");
    history_judge (&h, ARGS, &v);
    ok (v.keep && !v.control && v.placed == 2 && v.srun == 2 && v.placed_s > v.srun_s,
        "two placed runs slower than srun's two: srun's layout kept (%.3f s against %.3f s)",
        v.placed_s, v.srun_s);
    history_judge (&h, "ffffffffffffffff", &v);
    ok (!v.keep && !v.control && v.placed == 0, "runs with other arguments are not compared");

    /* Placed runs faster than the recordings, slower than srun's layout
     * without the recorder: kept once the controls ran. */
    memset (&h, 0, sizeof (h));
    add (&h, HISTORY_RECORDED, 1.30, ARGS);
    add (&h, HISTORY_RECORDED, 1.31, ARGS);
    add (&h, HISTORY_PLAN, 1.06, ARGS);
    add (&h, HISTORY_PLAN, 1.07, ARGS);
    history_judge (&h, ARGS, &v);
    ok (!v.keep && v.control && v.srun == 0, "faster than the recordings proves nothing");
    add (&h, HISTORY_SRUN, 1.00, ARGS);
    add (&h, HISTORY_SRUN, 1.01, ARGS);
    history_judge (&h, ARGS, &v);
    ok (v.keep && v.srun_s < v.placed_s, "against the controls: kept (%.2f s against %.2f s)",
        v.placed_s, v.srun_s);

    /* Faster, but within the spread: kept. */
    memset (&h, 0, sizeof (h));
    add (&h, HISTORY_SRUN, 1.00, ARGS);
    add (&h, HISTORY_SRUN, 1.40, ARGS);
    add (&h, HISTORY_PLAN, 0.95, ARGS);
    add (&h, HISTORY_PLAN, 1.05, ARGS);
    history_judge (&h, ARGS, &v);
    ok (v.keep && v.spread_s > 0.05, "faster by less than the runs' spread: kept (spread %.2f s)",
        v.spread_s);

    /* Faster by more than the spread: placed. */
    memset (&h, 0, sizeof (h));
    add (&h, HISTORY_SRUN, 1.00, ARGS);
    add (&h, HISTORY_SRUN, 1.02, ARGS);
    add (&h, HISTORY_PLAN, 0.70, ARGS);
    add (&h, HISTORY_PLAN, 0.72, ARGS);
    add (&h, HISTORY_PLAN, 0.71, ARGS);
    history_judge (&h, ARGS, &v);
    ok (!v.keep && !v.control && v.placed == 3,
        "placed runs faster beyond the spread: the plan stays");
    for (int i = 3; i < HISTORY_RETRY; i++)
        add (&h, HISTORY_PLAN, 0.71, ARGS);
    history_judge (&h, ARGS, &v);
    ok (!v.keep && v.control && v.placed_since == HISTORY_RETRY,
        "after %d placed runs, a control under srun's layout", HISTORY_RETRY);
    add (&h, HISTORY_SRUN, 1.01, ARGS);
    history_judge (&h, ARGS, &v);
    ok (!v.keep && !v.control && v.placed_since == 0, "and then the plan again");

    /* Slower placed runs, then srun's layout kept run after run: after
     * HISTORY_RETRY of them the plan is tried again; it is now faster
     * (the network changed), and the verdict follows. */
    memset (&h, 0, sizeof (h));
    add (&h, HISTORY_SRUN, 1.0, ARGS);
    add (&h, HISTORY_SRUN, 1.0, ARGS);
    add (&h, HISTORY_PLAN, 1.5, ARGS);
    add (&h, HISTORY_PLAN, 1.6, ARGS);
    for (int i = 0; i < HISTORY_RETRY - 1; i++)
        add (&h, HISTORY_SRUN, 1.0, ARGS);
    history_judge (&h, ARGS, &v);
    ok (v.keep && v.since == HISTORY_RETRY - 1, "kept while fewer than %d runs under srun's",
        HISTORY_RETRY);
    add (&h, HISTORY_SRUN, 1.0, ARGS);
    history_judge (&h, ARGS, &v);
    ok (!v.keep && v.since == HISTORY_RETRY, "after %d, the plan is tried again", HISTORY_RETRY);
    add (&h, HISTORY_PLAN, 0.6, ARGS);
    history_judge (&h, ARGS, &v);
    ok (v.keep && v.since == 0, "one faster try among two slow placed runs: still kept");
    add (&h, HISTORY_PLAN, 0.6, ARGS);
    add (&h, HISTORY_PLAN, 0.6, ARGS);
    history_judge (&h, ARGS, &v);
    ok (!v.keep, "once most placed runs are faster, the plan stays (%.2f s against %.2f s)",
        v.placed_s, v.srun_s);
}

int main (void)
{
    plan (NO_PLAN);
    if (scratch_dir ("history-test") < 0)
        return done_testing ();
    test_names ();
    test_file ();
    test_parse ();
    test_judge ();
    remove_tree (dir);
    return done_testing ();
}
