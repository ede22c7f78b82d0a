/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h: what topomap prints for scripts (--json), one JSON document on
 * standard output; the keys are topomap(1)'s, under "schema". */
#ifndef TOPOMAP_CLI_JSON_H
#define TOPOMAP_CLI_JSON_H

#include <json-c/json.h>

#include "lib/history.h"
#include "lib/mapper.h"
#include "lib/netmap.h"
#include "lib/profile_cache.h"
#include "lib/railmap.h"

/* Bumped when a key changes meaning or goes; new keys keep it. */
#define JSON_SCHEMA 1

/* The document o (taken) on f, pretty, with a final newline.  -1 with
 * errno when it cannot be made or written. */
int json_put (FILE *f, json_object *o);

/* A finite number, or JSON null (NULL) for NaN and infinities. */
json_object *json_number (double d);

/* One cache entry of topomap profile list --json. */
json_object *json_profile_entry (const profile_cache_entry_t *en);

/* What topomap plan --explain says, for --json. */
typedef struct {
    const map_result_t *res;
    const netmap_t *nm;
    const profile_t *p;           /* the profile as read */
    double recurring;             /* planned from the traffic recurring in p's
                                     two recordings: that share; NaN otherwise */
    const map_candidate_t *on[2]; /* p's recording and check: every
                                     candidate priced on each, or NULL */
    const int *overfull;          /* [nprices]: nodes given more ranks than slots */
    int nprices;                  /* the last nprices candidates were --price'd */
    const map_inside_t *inside;   /* the binding inside the nodes, or NULL */
    const char *cpu_bind;         /* its --cpu-bind value, or NULL */
    const map_odds_t *odds;       /* the odds against block, or NULL */
    double min_gain;
    const railmap_t *nics; /* each rank's NIC by rail, or NULL */
    const char *nics_why;  /* why none (nics NULL), or NULL */
} json_explain_t;

json_object *json_plan_explain (const json_explain_t *x);

/* What topomap netmap show says of nm, but its matrices (the netmap file
 * holds them): linear in the hosts. */
json_object *json_netmap_show (const netmap_t *nm);

/* What topomap profile show says of p: its top heaviest pairs, and the
 * runs of h (NULL: none read). */
json_object *json_profile_show (const profile_t *p, int top, const history_t *h);

#endif
