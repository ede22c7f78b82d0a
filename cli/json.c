/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c: topomap's output for scripts.  Each document is what the text
 * says, in figures a script need not parse out of prose: times in
 * seconds, gains and shares as fractions, ratios to block as x/block.
 * A figure the text shows as "-" or does not know is null.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/json.h"
#include "lib/jsonfile.h"

int json_put (FILE *f, json_object *o)
{
    const char *text;

    if (!o) {
        errno = ENOMEM;
        return -1;
    }
    text = json_object_to_json_string_ext (o, JSON_C_TO_STRING_PRETTY |
                                                  JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!text) {
        json_object_put (o);
        errno = ENOMEM;
        return -1;
    }
    fprintf (f, "%s\n", text);
    json_object_put (o);
    if (ferror (f)) {
        errno = EIO;
        return -1;
    }
    return 0;
}

json_object *json_number (double d)
{
    return isfinite (d) ? jsonfile_double (d) : NULL;
}

/* Add to o: key, a number that may be null.  The adds below collect
 * their failures in bad (json-c fails only for memory). */
static void add_num (json_object *o, const char *key, double d, int *bad)
{
    json_object *v = json_number (d);

    *bad |= (isfinite (d) && !v) || jsonfile_add (o, key, v, true) < 0;
}

static void add_str (json_object *o, const char *key, const char *s, int *bad)
{
    *bad |= jsonfile_add (o, key, s ? json_object_new_string (s) : NULL, !s) < 0;
}

static void add_int (json_object *o, const char *key, int64_t i, int *bad)
{
    *bad |= jsonfile_add (o, key, json_object_new_int64 (i), false) < 0;
}

static void add_bool (json_object *o, const char *key, int b, int *bad)
{
    *bad |= jsonfile_add (o, key, json_object_new_boolean (b), false) < 0;
}

static json_object *done (json_object *o, int bad)
{
    if (!bad)
        return o;
    json_object_put (o);
    return NULL;
}

json_object *json_profile_entry (const profile_cache_entry_t *en)
{
    json_object *o = json_object_new_object ();
    char when[32];
    int bad = !o;

    if (bad)
        return NULL;
    add_str (o, "file", en->path, &bad);
    add_bool (o, "valid", !en->reason, &bad);
    add_str (o, "invalid", en->reason, &bad);
    if (en->ntasks > 0)
        add_int (o, "tasks", en->ntasks, &bad);
    else
        add_str (o, "tasks", NULL, &bad);
    add_str (o, "exe_id", en->exe_id[0] ? en->exe_id : NULL, &bad);
    add_str (o, "executable", en->exe_path[0] ? en->exe_path : NULL, &bad);
    add_int (o, "bytes", (int64_t)en->size, &bad);
    add_str (o, "recorded",
             en->profile && jsonfile_format_time (en->profile->timestamp, when, sizeof (when)) == 0
                 ? when
                 : NULL,
             &bad);
    add_str (o, "job", en->profile && en->profile->jobid[0] ? en->profile->jobid : NULL, &bad);
    return done (o, bad);
}

/* x/base, null where base is not positive (the text's "-"). */
static void add_ratio (json_object *o, const char *key, double x, double base, int *bad)
{
    add_num (o, key, base > 0 ? x / base : NAN, bad);
}

static const map_candidate_t *named (const map_result_t *res, const map_candidate_t *c,
                                     const char *name)
{
    for (int k = 0; k < res->ncandidates; k++)
        if (strcmp (res->cand[k].name, name) == 0)
            return &c[k];
    return NULL;
}

/* The candidates of res as priced in c (res->cand, or on a recording). */
static json_object *candidates (const json_explain_t *x, const map_candidate_t *c, int whole)
{
    const map_result_t *res = x->res;
    const map_candidate_t *block = named (res, c, "block");
    json_object *a = json_object_new_array ();
    int bad = !a;

    for (int k = 0; !bad && k < res->ncandidates; k++) {
        json_object *o = json_object_new_object ();
        int priced = k - (res->ncandidates - x->nprices);

        if (!o || jsonfile_add (a, NULL, o, false) < 0) {
            bad = 1;
            break;
        }
        add_str (o, "name", res->cand[k].name, &bad);
        add_bool (o, "chosen", k == res->chosen, &bad);
        add_num (o, "cost_s", c[k].cost_s, &bad);
        add_ratio (o, "cost_vs_block", c[k].cost_s, block ? block->cost_s : 0, &bad);
        add_num (o, "link_s", c[k].link_s, &bad);
        add_ratio (o, "link_vs_block", c[k].link_s, block ? block->link_s : 0, &bad);
        if (!whole)
            continue;
        add_num (o, "comm_s", c[k].comm_s, &bad);
        add_int (o, "internode_bytes", (int64_t)c[k].internode_bytes, &bad);
        add_int (o, "internode_msgs", (int64_t)c[k].internode_msgs, &bad);
        if (priced >= 0)
            add_int (o, "overfull_nodes", x->overfull[priced], &bad);
    }
    return done (a, bad);
}

/* The chosen plan's ranks a node, in the netmap's host order. */
static json_object *nodes (const json_explain_t *x)
{
    const int *node = x->res->cand[x->res->chosen].node;
    int n = x->nm->n, *count = calloc ((size_t)(n > 0 ? n : 1), sizeof (*count));
    json_object *a = json_object_new_array ();
    int bad = !a || !count;

    for (int r = 0; !bad && r < x->res->ntasks; r++)
        if (node[r] >= 0 && node[r] < n)
            count[node[r]]++;
    for (int h = 0; !bad && h < n; h++) {
        json_object *o;

        if (!count[h])
            continue;
        if (!(o = json_object_new_object ()) || jsonfile_add (a, NULL, o, false) < 0) {
            bad = 1;
            break;
        }
        add_str (o, "host", x->nm->hosts && x->nm->hosts[h] ? x->nm->hosts[h] : NULL, &bad);
        add_int (o, "ranks", count[h], &bad);
    }
    free (count);
    if (!a)
        return NULL;
    return done (a, bad);
}

static json_object *recording (const json_explain_t *x, const profile_t *p, int i, int *bad)
{
    json_object *o = json_object_new_object ();

    if (!o) {
        *bad = 1;
        return NULL;
    }
    add_str (o, "of", i ? "check" : "recording", bad);
    add_str (o, "job", p->jobid[0] ? p->jobid : NULL, bad);
    *bad |= jsonfile_add (o, "candidates", candidates (x, x->on[i], 0), false) < 0;
    return o;
}

static json_object *odds (const json_explain_t *x, int *bad)
{
    const map_odds_t *d = x->odds;
    json_object *o = json_object_new_object (), *g = json_object_new_array (),
                *l = json_object_new_array ();

    if (!o || !g || !l) {
        json_object_put (o);
        json_object_put (g);
        json_object_put (l);
        *bad = 1;
        return NULL;
    }
    add_int (o, "draws", d->draws, bad);
    add_int (o, "wins", d->wins, bad);
    add_num (o, "min_gain", x->min_gain, bad);
    *bad |= jsonfile_add (g, NULL, json_number (d->gain_lo), true) < 0 ||
            jsonfile_add (g, NULL, json_number (d->gain_hi), true) < 0 ||
            jsonfile_add (l, NULL, json_number (d->link_lo), true) < 0 ||
            jsonfile_add (l, NULL, json_number (d->link_hi), true) < 0;
    json_object_set_serializer (g, jsonfile_inline, NULL, NULL);
    json_object_set_serializer (l, jsonfile_inline, NULL, NULL);
    *bad |= jsonfile_add (o, "gain", g, false) < 0;
    *bad |= jsonfile_add (o, "link_gain", l, false) < 0;
    add_bool (o, "significant", d->wins >= MAP_ODDS_LEVEL * d->draws, bad);
    return o;
}

json_object *json_plan_explain (const json_explain_t *x)
{
    const map_result_t *res = x->res;
    json_object *o = json_object_new_object ();
    int bad = !o;

    if (bad)
        return NULL;
    add_int (o, "schema", JSON_SCHEMA, &bad);
    add_int (o, "ntasks", res->ntasks, &bad);
    add_str (o, "metric", map_metric_name (res->metric), &bad);
    add_num (o, "planned_s", res->time_s, &bad);
    add_str (o, "chosen", res->cand[res->chosen].name, &bad);
    add_num (o, "recurring", x->recurring, &bad);
    bad |= jsonfile_add (o, "candidates", candidates (x, res->cand, 1), false) < 0;
    bad |= jsonfile_add (o, "nodes", nodes (x), false) < 0;
    if (x->on[0]) {
        json_object *a = json_object_new_array ();

        bad |= jsonfile_add (o, "recordings", a, false) < 0;
        if (a) {
            bad |= jsonfile_add (a, NULL, recording (x, x->p, 0, &bad), false) < 0;
            bad |= jsonfile_add (a, NULL, recording (x, x->p->recheck, 1, &bad), false) < 0;
        }
    } else
        bad |= jsonfile_add (o, "recordings", NULL, true) < 0;
    if (x->inside) {
        json_object *b = json_object_new_object ();

        bad |= jsonfile_add (o, "binding", b, false) < 0;
        if (b) {
            add_str (b, "cpu_bind", x->cpu_bind, &bad);
            add_num (b, "cost_s", x->inside->cost_s, &bad);
            add_num (b, "block_s", x->inside->block_s, &bad);
        }
    } else
        bad |= jsonfile_add (o, "binding", NULL, true) < 0;
    bad |= jsonfile_add (o, "odds", x->odds && x->odds->draws ? odds (x, &bad) : NULL,
                         !(x->odds && x->odds->draws)) < 0;
    return done (o, bad);
}
