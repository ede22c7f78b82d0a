/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lib/stepopts: which steps the plugin leaves to srun, and
 * how --export lets its variables through.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stepopts.h"
#include "lib/test/tap.h"

/* The reason stepopts_refused gives for s, or "" when it may be placed. */
static const char *why (const stepopts_t *s, bool *fault)
{
    static char buf[256];
    const char *r = stepopts_refused (s, buf, sizeof (buf), fault);

    return r ? r : "";
}

static void test_refused (void)
{
    const stepopts_t base = {.jobid = "42"};
#define FLAG(f) #f, offsetof(stepopts_t, f)
    static const struct {
        const char *field;
        size_t at;
        const char *reason;
    } one[] = {
        {FLAG (nodelist), "-w/--nodelist given"},
        {FLAG (distribution), "-m/--distribution given"},
        {FLAG (het_group), "a heterogeneous step"},
        {FLAG (exclude), "-x or -r given"},
        {FLAG (relative), "-x or -r given"},
        {FLAG (segment), "--segment given"},
        {FLAG (async), "--async given"},
    };
#undef FLAG
    stepopts_t s = base;
    bool fault = true;

    ok (!strcmp (why (&s, &fault), "") && !fault, "a step in a job, no option: placed");
    s.jobid = NULL;
    ok (!strcmp (why (&s, &fault), "srun outside an allocation") && !fault,
        "outside an allocation: srun's, not a fault");
    s.jobid = "12x\n";
    ok (!strcmp (why (&s, &fault), "SLURM_JOB_ID '12x\\x0a' is not a job id") && fault,
        "a job id that is none: a fault, quoted: %s", why (&s, &fault));
    s = base;
    s.step_id = "3";
    ok (!strcmp (why (&s, &fault), "srun inside a job step"), "inside a job step");
    s.step_id = "-2"; /* the batch step, as an int */
    ok (!strcmp (why (&s, &fault), ""), "in the batch script (a special step id): placed");
    s = base;
    s.hostfile = "/home/u/hosts";
    ok (!strcmp (why (&s, &fault), "SLURM_HOSTFILE is set by the user"), "the user's hostfile");
    s = base;
    s.het_size = "2";
    ok (!strcmp (why (&s, &fault), "a heterogeneous step"), "a heterogeneous job");
    for (size_t k = 0; k < sizeof (one) / sizeof (one[0]); k++) {
        s = base;
        *(bool *)((char *)&s + one[k].at) = true;
        ok (!strcmp (why (&s, &fault), one[k].reason) && !fault, "%s: %s", one[k].field,
            one[k].reason);
    }
    s = base;
    s.nodelist = s.async = true;
    s.hostfile = "h";
    ok (!strcmp (why (&s, &fault), "SLURM_HOSTFILE is set by the user"),
        "of several, the first in the order of the checks is said");
}

static void test_export (void)
{
    static const char *const names[] = {"TOPOMAP_A", "TOPOMAP_B"};
    static const struct {
        const char *list;
        bool all;
    } lists[] = {
        {"ALL", true},
        {"all", true},
        {"HOME,ALL", true},
        {"NONE", false},
        {"NONE,ALL", false},
        {"ALL,NONE", true},
        {"HOME", false},
        {"", false},
        {"\"LEFT=x,ALL\"", false},
        {"LEFT='a,ALL',B", false},
        {"'ALL'", true},
        {"HOME,\"ALL\"", true},
        {"ALLX,HOME", false},
        {"PATH=/a:ALL", false},
    };
    int bad = 0;
    char *v;

    for (size_t k = 0; k < sizeof (lists) / sizeof (lists[0]); k++)
        if (stepopts_export_all (lists[k].list) != lists[k].all) {
            diag ("--export=%s: expected %s", lists[k].list, lists[k].all ? "all" : "not all");
            bad++;
        }
    ok (!bad, "an ALL before any NONE passes everything, quoted items as srun splits them");
    errno = EINVAL;
    ok (!stepopts_export_with ("HOME,ALL", names, 2) && errno == 0,
        "a list that passes everything is left as it is");
    v = stepopts_export_with ("HOME", names, 2);
    ok (v && !strcmp (v, "TOPOMAP_A,TOPOMAP_B,HOME"), "the plugin's names come first: %s", v);
    free (v);
    v = stepopts_export_with ("NONE", names, 2);
    ok (v && !strcmp (v, "TOPOMAP_A,TOPOMAP_B,NONE"), "before a NONE too: %s", v);
    free (v);
    v = stepopts_export_with ("\"LEFT=x,ALL\"", names, 1);
    ok (v && !strcmp (v, "TOPOMAP_A,\"LEFT=x,ALL\""), "a quoted value kept whole: %s", v);
    free (v);
}

int main (void)
{
    plan (NO_PLAN);
    test_refused ();
    test_export ();
    return done_testing ();
}
