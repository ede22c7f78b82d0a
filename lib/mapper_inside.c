/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mapper_inside.c: the inside pass -- after the mapper chose each rank's
 * node, the CPUs each rank runs on there (mapper.h, map_inside).
 *
 * srun binds by local task id, with one list for every node of the step
 * (--cpu-bind=map_cpu:C0,C1,... binds the task of local id k to Ck on
 * each node), and numbers a node's tasks in rank order.  So the pass
 * chooses one list for the traffic of every node at once: the graph of
 * local ids, a pair (k, l) weighing what the ranks of local ids k and l
 * send each other summed over the nodes, mapped onto the node's L3
 * domains by map_plan itself, on a netmap of the domains whose figures
 * are the inside's levels.  A domain takes the units (groups of cpt CPUs
 * of one domain) that srun's block binding would use there: the plan
 * moves ranks between the CPUs block uses, never to others.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mapper.h"
#include "lib/stats.h"

/* The units of in: groups of cpt CPUs of one domain, a domain's CPUs in
 * ascending order (a domain's CPUs past its last whole group make none),
 * the units by their first CPU (srun's block binding takes them in this
 * order).  unit_cpu[u * cpt ..] are unit u's CPU indexes into in->cpu
 * (room for ncpus); returns the count, -1 when out of memory.
 */
static int inside_units (const inside_t *in, int cpt, int *unit_cpu)
{
    int nunits = 0, *have = calloc ((size_t)in->nl3, sizeof (int));
    int *fill = calloc ((size_t)in->nl3, sizeof (int)),
        *at = malloc ((size_t)in->nl3 * sizeof (int));

    if (!have || !fill || !at) {
        nunits = -1;
        goto out;
    }
    for (int k = 0; k < in->ncpus; k++)
        have[in->l3[k]]++;
    for (int k = 0; k < in->ncpus; k++) {
        int d = in->l3[k];

        if (fill[d] >= have[d] / cpt * cpt)
            continue; /* past the domain's last whole unit */
        if (fill[d] % cpt == 0)
            at[d] = nunits++;
        unit_cpu[(size_t)at[d] * (size_t)cpt + (size_t)(fill[d] % cpt)] = k;
        fill[d]++;
    }
out:
    free (have);
    free (fill);
    free (at);
    return nunits;
}

/* Slurm's own binding of a step that takes every CPU (task/affinity's
 * auto binding: lllp_cyclic for the arbitrary distribution of a
 * hostfile, SchedMD's dist_tasks.c): local ids dealt to the packages in
 * turn, each taking its package's next unit; a package without one left
 * is passed over.  cyc[k]: the unit of local id k.
 */
static int inside_cyclic (const inside_t *in, int cpt, const int *unit_cpu, int nunits, int nlocal,
                          int *cyc)
{
    int *next = calloc ((size_t)in->npackages, sizeof (int)), pkg = 0;

    if (!next)
        return -1;
    for (int k = 0; k < nlocal; k++) {
        int u = -1;

        for (int tries = 0; tries < in->npackages && u < 0;
             tries++, pkg = (pkg + 1) % in->npackages)
            /* the package's next unit, from where it left off */
            for (int v = next[pkg]; v < nunits; v++)
                if (in->package[in->l3[unit_cpu[(size_t)v * (size_t)cpt]]] == pkg) {
                    u = v;
                    next[pkg] = v + 1;
                    break;
                }
        cyc[k] = u;
    }
    free (next);
    return 0;
}

void map_inside_free (map_inside_t *out)
{
    free (out->cpus);
    free (out->block);
    memset (out, 0, sizeof (*out));
}

/* The netmap of in's L3 domains (host d: domain d), the inside's figures
 * between them; a level not measured is NaN there, which the slots of
 * the plan (dom[0..nslots)) must not need.
 */
static netmap_t *inside_netmap (const inside_t *in, int nslots, const int *dom, tm_error_t *errp)
{
    const char **names = calloc ((size_t)in->nl3, sizeof (*names));
    char *buf = malloc ((size_t)in->nl3 * 16);
    netmap_t *nm = NULL;

    if (!names || !buf) {
        errnomem (errp);
        goto out;
    }
    for (int d = 0; d < in->nl3; d++) {
        snprintf (buf + (size_t)d * 16, 16, "l3-%d", d);
        names[d] = buf + (size_t)d * 16;
    }
    if (!(nm = netmap_create (in->nl3, names, errp)))
        goto out;
    for (int a = 0; a < in->nl3; a++)
        for (int b = 0; b < in->nl3; b++) {
            inside_level_t l = inside_domains_level (in, a, b);

            NETMAP_AT (nm, lat_us, a, b) = in->lat_us[l];
            NETMAP_AT (nm, bw_MBps, a, b) = in->bw_MBps[l];
            NETMAP_AT (nm, measured, a, b) = !isnan (in->lat_us[l]);
        }
    for (int s = 0; s < nslots; s++)
        for (int t = 0; t < nslots; t++) {
            inside_level_t l = inside_domains_level (in, dom[s], dom[t]);

            if (s != t && (isnan (in->lat_us[l]) || isnan (in->bw_MBps[l]))) {
                errprintf (errp, "the figures between two CPUs of %s were not measured",
                           l == INSIDE_PACKAGE ? "one package" : "two packages");
                errno = ENODATA;
                netmap_destroy (nm);
                nm = NULL;
                goto out;
            }
        }
out:
    free (names);
    free (buf);
    return nm;
}

/* The cost of local ids on domains dom[] (a candidate of the inner
 * problem), NaN when a pair that talks meets at a level not measured.
 */
static int inside_price (const profile_t *lp, const netmap_t *nm, const inside_t *in,
                         map_metric_t metric, const int *dom, double *cost)
{
    map_candidate_t c = {.node = (int *)dom};

    for (int i = 0; i < lp->ntasks; i++)
        for (size_t e = lp->row[i]; e < lp->row[i + 1]; e++) {
            inside_level_t l = inside_domains_level (in, dom[i], dom[lp->entries[e].dst]);

            if (dom[i] != dom[lp->entries[e].dst] &&
                (isnan (in->lat_us[l]) || isnan (in->bw_MBps[l]))) {
                *cost = NAN;
                return 0;
            }
        }
    if (map_price (lp, nm, metric, &c) < 0)
        return -1;
    *cost = c.cost_s;
    return 0;
}

/* The slots: the domains of block's units, in the order block fills them
 * (dom[s], slots[s]; slot_of_dom[d], every entry set); each local id's
 * domain under block (ldom) and Slurm's cyclic (cdom, cyc: its units).
 * The number of slots.
 */
static int inside_slots (const inside_t *in, int cpt, const int *unit_cpu, const int *cyc,
                         int nlocal, int *slot_of_dom, int *dom, map_slot_t *slots, int *ldom,
                         int *cdom)
{
    int nslots = 0;

    for (int d = 0; d < in->nl3; d++)
        slot_of_dom[d] = -1;
    for (int k = 0; k < nlocal; k++) {
        int d = in->l3[unit_cpu[(size_t)k * (size_t)cpt]];

        if (slot_of_dom[d] < 0) {
            slot_of_dom[d] = nslots;
            dom[nslots] = d;
            slots[nslots].host = d;
            nslots++;
        }
        slots[slot_of_dom[d]].count++;
        ldom[k] = d;
        cdom[k] = in->l3[unit_cpu[(size_t)cyc[k] * (size_t)cpt]];
    }
    return nslots;
}

/* What the local ids (lid) send each other, summed over the nodes: a new
 * array of *nt entries, NULL out of memory. */
static profile_entry_t *inside_traffic (const profile_t *p, const int *node, const int *lid,
                                        size_t *nt)
{
    profile_entry_t *t = malloc ((p->nentries ? p->nentries : 1) * sizeof (*t));

    *nt = 0;
    for (int i = 0; t && i < p->ntasks; i++)
        for (size_t e = p->row[i]; e < p->row[i + 1]; e++) {
            const profile_entry_t *x = &p->entries[e];

            if (x->dst != i && node[x->dst] == node[i])
                t[(*nt)++] = (profile_entry_t){lid[i], lid[x->dst], x->msgs, x->bytes};
        }
    return t;
}

/* The plan of domains c as CPUs: block's units handed out again, a
 * domain's to its local ids in order (ldom: each local id's domain under
 * block), into out->cpus. */
static int inside_hand_out (const map_candidate_t *c, int nl3, const int *ldom, map_inside_t *out,
                            tm_error_t *errp)
{
    int nlocal = out->nlocal, cpt = out->cpt, *cur = calloc ((size_t)nl3, sizeof (int));

    if (!cur) {
        return errnomem (errp);
    }
    for (int k = 0; k < nlocal; k++) {
        int d = c->node[k], u;

        /* the next of block's units in domain d */
        while (cur[d] < nlocal && ldom[cur[d]] != d)
            cur[d]++;
        if (cur[d] >= nlocal) {
            free (cur);
            return errprintf (errp, "the plan puts more ranks on L3 domain %d than block does", d);
        }
        u = cur[d]++;
        memcpy (out->cpus + (size_t)k * (size_t)cpt, out->block + (size_t)u * (size_t)cpt,
                (size_t)cpt * sizeof (int));
    }
    free (cur);
    out->cost_s = c->cost_s;
    out->changed = memcmp (out->cpus, out->block, (size_t)nlocal * (size_t)cpt * sizeof (int));
    return 0;
}

int map_inside (const profile_t *p, const int *node, const inside_t *in, int cpt,
                const map_params_t *params, map_inside_t *out, tm_error_t *errp)
{
    int n = p->ntasks, nlocal = 0, nunits, nslots = 0, rc = -1, maxnode = 0;
    int *lid = NULL, *count = NULL, *unit_cpu = NULL, *slot_of_dom = NULL, *dom = NULL;
    int *ldom = NULL, *cyc = NULL, *cdom = NULL;
    profile_entry_t *t = NULL;
    profile_t *lp = NULL;
    netmap_t *nm = NULL;
    map_slot_t *slots = NULL;
    map_result_t res = {0};
    map_params_t inner;
    size_t nt = 0;

    memset (out, 0, sizeof (*out));
    if (cpt < 1 || cpt > in->ncpus)
        return errprintf (errp, "%d CPUs a task, on a node of %d", cpt, in->ncpus);
    for (int i = 0; i < n; i++) {
        if (node[i] < 0)
            return errprintf (errp, "rank %d: no node", i);
        if (node[i] > maxnode)
            maxnode = node[i];
    }
    /* the inner problem: the caller's metric and seed, exact capacities,
     * refined, no previous plan (the caller's is of nodes) */
    map_params_default (&inner);
    if (params) {
        inner.metric = params->metric;
        inner.seed = params->seed;
    }
    /* local ids: a node's ranks numbered in rank order */
    if (!(lid = malloc ((size_t)n * sizeof (int))) ||
        !(count = calloc ((size_t)maxnode + 1, sizeof (int))) ||
        !(unit_cpu = malloc ((size_t)in->ncpus * sizeof (int))))
        goto nomem;
    for (int i = 0; i < n; i++) {
        lid[i] = count[node[i]]++;
        if (lid[i] + 1 > nlocal)
            nlocal = lid[i] + 1;
    }
    if ((nunits = inside_units (in, cpt, unit_cpu)) < 0)
        goto nomem;
    if (nlocal > nunits) {
        errno = EINVAL;
        errprintf (errp, "%d ranks on a node, but its %d CPUs make %d of %d CPUs in one L3 domain",
                   nlocal, in->ncpus, nunits, cpt);
        goto out;
    }
    out->nlocal = nlocal;
    out->cpt = cpt;
    if (!(out->cpus = malloc ((size_t)nlocal * (size_t)cpt * sizeof (int))) ||
        !(out->block = malloc ((size_t)nlocal * (size_t)cpt * sizeof (int))) ||
        !(cyc = malloc ((size_t)nlocal * sizeof (int))))
        goto nomem;
    for (int k = 0; k < nlocal * cpt; k++)
        out->block[k] = out->cpus[k] = in->cpu[unit_cpu[k]];
    if (inside_cyclic (in, cpt, unit_cpu, nunits, nlocal, cyc) < 0)
        goto nomem;

    /* the slots: the domains of block's units, in the order block fills
     * them; each local id's domain under block (ldom) and Slurm's (cdom)
     */
    if (!(slot_of_dom = malloc ((size_t)in->nl3 * sizeof (int))) ||
        !(dom = malloc ((size_t)in->nl3 * sizeof (int))) ||
        !(slots = calloc ((size_t)in->nl3, sizeof (*slots))) ||
        !(ldom = malloc ((size_t)nlocal * sizeof (int))) ||
        !(cdom = malloc ((size_t)nlocal * sizeof (int))))
        goto nomem;
    nslots = inside_slots (in, cpt, unit_cpu, cyc, nlocal, slot_of_dom, dom, slots, ldom, cdom);

    if (!(t = inside_traffic (p, node, lid, &nt)))
        goto nomem;
    if (nt == 0) { /* nothing talks inside a node: block, at no cost */
        rc = 0;
        goto out;
    }
    if (!(lp = profile_create (nlocal, nt, t, errp)) ||
        !(nm = inside_netmap (in, nslots, dom, errp)))
        goto out;
    if (inside_price (lp, nm, in, inner.metric, ldom, &out->block_s) < 0 ||
        inside_price (lp, nm, in, inner.metric, cdom, &out->cyclic_s) < 0)
        goto nomem;
    out->cost_s = out->block_s;
    if (nslots < 2) { /* one domain: nothing to choose */
        rc = 0;
        goto out;
    }
    if (map_plan (lp, nm, nslots, slots, &inner, &res, errp) < 0)
        goto out;
    /* the plan: Scotch's, made exact and refined (res.cand[0]) when it
     * is cheaper than block; block's units handed out again, a domain's
     * to its local ids in order
     */
    if (res.cand[0].cost_s < out->block_s &&
        inside_hand_out (&res.cand[0], in->nl3, ldom, out, errp) < 0)
        goto out;
    rc = 0;
    goto out;
nomem:
    errnomem (errp);
out:
    if (rc < 0)
        map_inside_free (out);
    free (lid);
    free (count);
    free (unit_cpu);
    free (slot_of_dom);
    free (dom);
    free (slots);
    free (ldom);
    free (cyc);
    free (cdom);
    free (t);
    profile_destroy (lp);
    netmap_destroy (nm);
    map_result_free (&res);
    return rc;
}

int map_inside_netmap (const profile_t *p, const netmap_t *nm, const int *node, int cpt,
                       const map_params_t *params, map_inside_t *out, tm_error_t *errp)
{
    int first = -1, unknown = -1, rc = -1;
    char *used = calloc ((size_t)nm->n, 1);
    double *v = malloc ((size_t)nm->n * sizeof (*v));
    inside_t *in = NULL;

    memset (out, 0, sizeof (*out));
    if (!used || !v) {
        errnomem (errp);
        goto out;
    }
    for (int i = 0; i < p->ntasks; i++)
        used[node[i]] = 1;
    for (int h = 0; h < nm->n; h++) {
        if (!used[h])
            continue;
        if (!nm->inside[h])
            unknown = h;
        else if (first < 0)
            first = h;
        else if (!inside_same_shape (nm->inside[first], nm->inside[h])) {
            errprintf (errp, "%s's CPUs differ from %s's, and one binding serves all nodes",
                       nm->hosts[h], nm->hosts[first]);
            goto out;
        }
    }
    if (first < 0) {
        errprintf (errp, "the netmap knows no node's CPUs");
        rc = -2;
        goto out;
    }
    if (unknown >= 0) {
        errprintf (errp, "%s's CPUs were not read (the probe's log says why)", nm->hosts[unknown]);
        goto out;
    }
    /* each level's figures: the median of the nodes' */
    if (!(in = inside_copy (nm->inside[first], errp)))
        goto out;
    for (int l = 0; l < INSIDE_LEVELS; l++)
        for (int f = 0; f < 2; f++) {
            int n = 0;

            for (int h = 0; h < nm->n; h++) {
                double x;

                if (!used[h])
                    continue;
                x = f ? nm->inside[h]->bw_MBps[l] : nm->inside[h]->lat_us[l];
                if (!isnan (x))
                    v[n++] = x;
            }
            (f ? in->bw_MBps : in->lat_us)[l] = n ? stats_median (v, n) : NAN;
        }
    if ((rc = map_inside (p, node, in, cpt, params, out, errp)) < 0 && errno == EINVAL)
        rc = -2; /* the step's ranks and CPUs a task: more than the units */
out:
    inside_destroy (in);
    free (used);
    free (v);
    return rc;
}

int map_inside_cpu_bind (const map_inside_t *b, char *buf, size_t len)
{
    size_t at;
    int cpt = b->cpt;

    at = (size_t)snprintf (buf, len, cpt == 1 ? "map_cpu:" : "mask_cpu:");
    for (int k = 0; k < b->nlocal && at < len; k++) {
        const int *c = b->cpus + (size_t)k * (size_t)cpt;
        int top = 0;

        if (k)
            buf[at++] = ',';
        if (cpt == 1) {
            at += (size_t)snprintf (buf + at, at < len ? len - at : 0, "%d", c[0]);
            continue;
        }
        /* a mask, its highest hex digit first */
        for (int j = 0; j < cpt; j++)
            if (c[j] > top)
                top = c[j];
        at += (size_t)snprintf (buf + at, at < len ? len - at : 0, "0x");
        for (int d = top / 4; d >= 0 && at < len; d--) {
            int digit = 0;

            for (int j = 0; j < cpt; j++)
                if (c[j] / 4 == d)
                    digit |= 1 << (c[j] % 4);
            buf[at++] = "0123456789abcdef"[digit];
        }
    }
    if (at >= len) {
        if (len)
            buf[0] = '\0';
        return -1;
    }
    buf[at] = '\0';
    return 0;
}
