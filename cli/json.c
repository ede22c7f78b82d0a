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
#include "cli/netmap_show.h"
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

static void add_time (json_object *o, const char *key, time_t t, int *bad)
{
    char when[32];

    add_str (o, key, jsonfile_format_time (t, when, sizeof (when)) == 0 ? when : NULL, bad);
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
    if (en->profile)
        add_time (o, "recorded", en->profile->timestamp, &bad);
    else
        add_str (o, "recorded", NULL, &bad);
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

/* Each rank's NIC by rail, and the bytes between nodes crossing rails. */
static json_object *nics (const json_explain_t *x, int *bad)
{
    const railmap_t *m = x->nics;
    const int *node = x->res->cand[x->res->chosen].node;
    json_object *o = json_object_new_object (), *a = json_object_new_array ();

    if (!o || !a) {
        json_object_put (o);
        json_object_put (a);
        *bad = 1;
        return NULL;
    }
    if (jsonfile_add (o, "ranks", a, false) < 0) {
        json_object_put (o);
        *bad = 1;
        return NULL;
    }
    add_int (o, "rails", m->nrails, bad);
    add_int (o, "node_bytes", (int64_t)m->node_bytes, bad);
    add_int (o, "default_bytes", (int64_t)m->default_bytes, bad);
    add_int (o, "cross_bytes", (int64_t)m->cross_bytes, bad);
    for (int r = 0; !*bad && r < m->nranks; r++) {
        json_object *e = json_object_new_object ();
        const railmap_nic_t *c = &m->nics[m->nic[r]];

        if (!e || jsonfile_add (a, NULL, e, false) < 0) {
            *bad = 1;
            break;
        }
        add_int (e, "rank", r, bad);
        add_str (e, "node", x->nm->hosts[node[r]], bad);
        add_int (e, "slot", m->slot[r], bad);
        add_str (e, "gpu", railmap_gpu (x->nm->slots[node[r]], m->slot[r]), bad);
        add_str (e, "name", c->name[0] ? c->name : NULL, bad);
        add_str (e, "netdev", c->netdev[0] ? c->netdev : NULL, bad);
    }
    return o;
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
    bad |= jsonfile_add (o, "nics", x->nics ? nics (x, &bad) : NULL, !x->nics) < 0;
    add_str (o, "nics_why", x->nics ? NULL : x->nics_why, &bad);
    return done (o, bad);
}

/* The model's vertices above the hosts: a switch (tree) or cluster
 * (groups) an object, with its parent's id, level (tree: hops above the
 * hosts; groups: merge cost) and the hosts hanging from it. */
static json_object *vertices (const netmap_t *nm, int *bad)
{
    const topo_t *t = nm->topo;
    json_object *a = json_object_new_array ();

    for (int v = t->nhosts; a && !*bad && v < t->nvertices; v++) {
        json_object *o = json_object_new_object (), *hosts = json_object_new_array ();

        *bad |= !o || !hosts || jsonfile_add (a, NULL, o, false) < 0;
        if (*bad) {
            json_object_put (hosts);
            break;
        }
        add_int (o, "id", v - t->nhosts, bad);
        if (t->parent[v] >= 0)
            add_int (o, "parent", t->parent[v] - t->nhosts, bad);
        else
            add_str (o, "parent", NULL, bad);
        add_num (o, "level", t->height[v], bad);
        for (int h = 0; h < t->nhosts; h++)
            if (t->parent[h] == v)
                *bad |=
                    jsonfile_add (hosts, NULL, json_object_new_string (nm->hosts[h]), false) < 0;
        json_object_set_serializer (hosts, jsonfile_inline, NULL, NULL);
        *bad |= jsonfile_add (o, "hosts", hosts, false) < 0;
    }
    *bad |= !a;
    return a;
}

static json_object *model (const netmap_t *nm, int *bad)
{
    static const char *const signal[] = {[TOPO_SIGNAL_LATENCY] = "latency",
                                         [TOPO_SIGNAL_BANDWIDTH] = "bandwidth",
                                         [TOPO_SIGNAL_SITE] = "site"};
    const topo_t *t = nm->topo;
    json_object *o = json_object_new_object (), *groups = json_object_new_array ();

    if (!o || !groups) {
        json_object_put (o);
        json_object_put (groups);
        *bad = 1;
        return NULL;
    }
    add_str (o, "kind", t->model == TOPO_TREE ? "tree" : "groups", bad);
    add_str (o, "from",
             t->signal >= TOPO_SIGNAL_LATENCY && t->signal <= TOPO_SIGNAL_SITE ? signal[t->signal]
                                                                               : NULL,
             bad);
    add_num (o, "residual", t->model == TOPO_TREE ? t->residual : NAN, bad);
    for (int g = 0; !*bad && g < t->ngroups; g++) {
        json_object *hosts = json_object_new_array ();

        *bad |= jsonfile_add (groups, NULL, hosts, false) < 0;
        if (hosts)
            json_object_set_serializer (hosts, jsonfile_inline, NULL, NULL);
        for (int h = 0; !*bad && h < t->nhosts; h++)
            if (t->group[h] == g)
                *bad |=
                    jsonfile_add (hosts, NULL, json_object_new_string (nm->hosts[h]), false) < 0;
    }
    *bad |= jsonfile_add (o, "groups", groups, false) < 0;
    *bad |= jsonfile_add (o, t->model == TOPO_TREE ? "switches" : "clusters", vertices (nm, bad),
                          false) < 0;
    return o;
}

json_object *json_netmap_show (const netmap_t *nm)
{
    json_object *o = json_object_new_object (), *hosts = json_object_new_array (),
                *insides = json_object_new_array (), *pairs = json_object_new_object (),
                *slots = json_object_new_array ();
    long measured, again, npairs = netmap_pairs (nm, &measured, &again);
    int bad = !o || !hosts || !insides || !pairs || !slots;

    if (bad) {
        json_object_put (o);
        json_object_put (hosts);
        json_object_put (insides);
        json_object_put (pairs);
        json_object_put (slots);
        return NULL;
    }
    add_int (o, "schema", JSON_SCHEMA, &bad);
    add_str (o, "job", nm->jobid[0] ? nm->jobid : NULL, &bad);
    add_time (o, "made", nm->timestamp, &bad);
    add_num (o, "measure_s", measured ? nm->measure_s : NAN, &bad);
    add_num (o, "measure_bound_s", measured ? netmap_measure_bound (nm) : NAN, &bad);
    for (int h = 0; !bad && h < nm->n; h++)
        bad |= jsonfile_add (hosts, NULL, json_object_new_string (nm->hosts[h]), false) < 0;
    json_object_set_serializer (hosts, jsonfile_inline, NULL, NULL);
    bad |= jsonfile_add (o, "hosts", hosts, false) < 0;
    add_int (pairs, "all", npairs, &bad);
    add_int (pairs, "measured", measured, &bad);
    add_int (pairs, "measured_again", again, &bad);
    bad |= jsonfile_add (o, "pairs", pairs, false) < 0;
    bad |= jsonfile_add (o, "model", nm->topo ? model (nm, &bad) : NULL, !nm->topo) < 0;
    for (int h = 0; !bad && h < nm->n; h++) {
        const inside_t *in = nm->inside[h];
        json_object *i;

        if (!in)
            continue;
        bad |= !(i = json_object_new_object ()) || jsonfile_add (insides, NULL, i, false) < 0;
        if (bad)
            break;
        add_str (i, "host", nm->hosts[h], &bad);
        add_int (i, "cpus", in->ncpus, &bad);
        add_int (i, "l3_domains", in->nl3, &bad);
        add_int (i, "packages", in->npackages, &bad);
    }
    bad |= jsonfile_add (o, "insides", insides, false) < 0;
    bad |= jsonfile_add (o, "slots", slots, false) < 0;
    for (int h = 0; !bad && h < nm->n; h++) {
        json_object *i;

        if (!nm->slots[h])
            continue;
        if (!(i = slots_to_json (nm->slots[h]))) {
            bad = 1;
            break;
        }
        add_str (i, "host", nm->hosts[h], &bad);
        bad |= jsonfile_add (slots, NULL, i, false) < 0;
    }
    return done (o, bad);
}

/* s, or NULL (JSON null) for a string not known: NULL or "". */
static const char *known (const char *s)
{
    return s && s[0] ? s : NULL;
}

/* The top heaviest pairs by bytes, ties in rank order, as profile show
 * lists them. */
static json_object *heaviest (const profile_t *p, int top, int *bad)
{
    size_t n = (size_t)top < p->nentries ? (size_t)top : p->nentries;
    profile_entry_t *v = profile_heaviest (p);
    json_object *a = json_object_new_array ();

    if (!v || !a) {
        free (v);
        json_object_put (a);
        *bad = 1;
        return NULL;
    }
    for (size_t k = 0; !*bad && k < n; k++) {
        json_object *o = json_object_new_object ();

        *bad |= !o || jsonfile_add (a, NULL, o, false) < 0;
        if (*bad)
            break;
        add_int (o, "from", v[k].src, bad);
        add_int (o, "to", v[k].dst, bad);
        add_int (o, "bytes", (int64_t)v[k].bytes, bad);
        add_int (o, "msgs", (int64_t)v[k].msgs, bad);
    }
    free (v);
    return a;
}

static json_object *runs (const history_t *h, int *bad)
{
    json_object *o = json_object_new_object (), *l = NULL;
    history_verdict_t v;

    if (!o) {
        *bad = 1;
        return NULL;
    }
    add_int (o, "kept", h->nruns, bad);
    add_int (o, "recorded", history_count (h, HISTORY_RECORDED), bad);
    add_int (o, "srun", history_count (h, HISTORY_SRUN), bad);
    add_int (o, "placed", history_count (h, HISTORY_PLAN), bad);
    if (h->nruns > 0) {
        history_judge (h, h->run[h->nruns - 1].args, &v);
        if (v.placed && v.srun && !(l = json_object_new_object ()))
            *bad = 1;
    }
    if (l) {
        add_int (l, "placed", v.placed, bad);
        add_int (l, "srun", v.srun, bad);
        add_num (l, "placed_s", v.placed_s, bad);
        add_num (l, "srun_s", v.srun_s, bad);
        add_num (l, "spread_s", v.spread_s, bad);
        add_num (l, "speedup", v.placed_s > 0 ? v.srun_s / v.placed_s : NAN, bad);
        add_bool (l, "keep_srun", v.keep, bad);
    }
    *bad |= jsonfile_add (o, "like_latest", l, !l) < 0;
    return o;
}

json_object *json_profile_show (const profile_t *p, int top, const history_t *h)
{
    json_object *o = json_object_new_object ();
    int bad = !o;

    if (bad)
        return NULL;
    add_int (o, "schema", JSON_SCHEMA, &bad);
    add_int (o, "ntasks", p->ntasks, &bad);
    add_str (o, "exe_id", known (p->exe_id), &bad);
    add_str (o, "executable", known (p->exe_path), &bad);
    add_str (o, "mpi", known (p->mpi), &bad);
    add_str (o, "source", known (p->source), &bad);
    add_str (o, "job", p->jobid[0] ? p->jobid : NULL, &bad);
    add_time (o, "recorded", p->timestamp, &bad);
    add_num (o, "record_s", p->record_s > 0 ? p->record_s : NAN, &bad);
    add_bool (o, "collectives", p->collectives, &bad);
    add_int (o, "total_bytes", (int64_t)p->total_bytes, &bad);
    add_int (o, "total_msgs", (int64_t)p->total_msgs, &bad);
    add_int (o, "pairs", (int64_t)p->nentries, &bad);
    bad |= jsonfile_add (o, "heaviest", heaviest (p, top, &bad), false) < 0;
    if (p->recheck) {
        json_object *c = json_object_new_object ();

        bad |= jsonfile_add (o, "check", c, false) < 0;
        if (c) {
            add_str (c, "job", p->recheck->jobid[0] ? p->recheck->jobid : NULL, &bad);
            add_time (c, "recorded", p->recheck->timestamp, &bad);
            add_int (c, "total_bytes", (int64_t)p->recheck->total_bytes, &bad);
            add_num (c, "recurring", profile_recurring (p, p->recheck), &bad);
        }
    } else
        bad |= jsonfile_add (o, "check", NULL, true) < 0;
    bad |= jsonfile_add (o, "runs", h ? runs (h, &bad) : NULL, !h) < 0;
    return done (o, bad);
}
