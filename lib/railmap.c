/* SPDX-License-Identifier: GPL-2.0-or-later */
/* railmap.c: each rank's slot, so that heavy partners on different nodes
 * share a rail (railmap.h). */
#include "config.h"

#include "lib/railmap.h"

#include "lib/heap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The NIC a slot's rank uses: its first. */
static const slots_dev_t *slot_nic (const slots_t *s, int k)
{
    return s->slot[k].nnics > 0 ? &s->nic[s->slot[k].nic[0]] : NULL;
}

static const char *nic_rail_name (const slots_dev_t *d)
{
    return d->name[0] ? d->name : d->netdev;
}

/* Index of (name, netdev) in m->nics, added when new; -1 on ENOMEM. */
static int nic_index (railmap_t *m, const slots_dev_t *d)
{
    railmap_nic_t *more;

    for (int i = 0; i < m->nnics; i++)
        if (!strcmp (m->nics[i].name, d->name) && !strcmp (m->nics[i].netdev, d->netdev))
            return i;
    if (!(more = realloc (m->nics, (size_t)(m->nnics + 1) * sizeof (*more))))
        return -1;
    m->nics = more;
    snprintf (more[m->nnics].name, sizeof (more->name), "%s", d->name);
    snprintf (more[m->nnics].netdev, sizeof (more->netdev), "%s", d->netdev);
    return m->nnics++;
}

/* The work: each rank's rail, the ranks of each host, the symmetric
 * bytes between ranks (CSR). */
typedef struct {
    int n;
    int smax; /* slots of the largest host with ranks */
    const int *node;
    int *rail;      /* [n] of the slot each rank is on */
    int **slotrail; /* [nhosts] each slot's rail, -1 for a slot without NIC */
    int *first;     /* [nhosts + 1] host h's ranks: byhost[first[h] .. first[h + 1]) */
    int *byhost;    /* [n] in rank order */
    size_t *adj;    /* [n + 1] */
    int *to;        /* [adj[n]] */
    double *w;      /* [adj[n]] */
} work_t;

static int work_adjacency (work_t *k, const profile_t *p)
{
    size_t *fill;

    if (!(k->adj = calloc ((size_t)k->n + 1, sizeof (*k->adj))))
        return -1;
    for (size_t i = 0; i < p->nentries; i++) {
        const profile_entry_t *e = &p->entries[i];

        if (e->src != e->dst && k->node[e->src] != k->node[e->dst] && e->bytes > 0) {
            k->adj[e->src + 1]++;
            k->adj[e->dst + 1]++;
        }
    }
    for (int r = 0; r < k->n; r++)
        k->adj[r + 1] += k->adj[r];
    if (!(k->to = malloc ((k->adj[k->n] + 1) * sizeof (*k->to))) ||
        !(k->w = malloc ((k->adj[k->n] + 1) * sizeof (*k->w))) ||
        !(fill = malloc ((size_t)k->n * sizeof (*fill))))
        return -1;
    memcpy (fill, k->adj, (size_t)k->n * sizeof (*fill));
    for (size_t i = 0; i < p->nentries; i++) {
        const profile_entry_t *e = &p->entries[i];

        if (e->src != e->dst && k->node[e->src] != k->node[e->dst] && e->bytes > 0) {
            k->to[fill[e->src]] = e->dst;
            k->w[fill[e->src]++] = (double)e->bytes;
            k->to[fill[e->dst]] = e->src;
            k->w[fill[e->dst]++] = (double)e->bytes;
        }
    }
    free (fill);
    return 0;
}

/* Bytes between nodes on different rails (each pair's both directions). */
static uint64_t cross_bytes (const profile_t *p, const work_t *k, const int *rail)
{
    uint64_t sum = 0;

    for (size_t i = 0; i < p->nentries; i++) {
        const profile_entry_t *e = &p->entries[i];

        if (k->node[e->src] != k->node[e->dst] && rail[e->src] != rail[e->dst])
            sum += e->bytes;
    }
    return sum;
}

/* A host's m ranks on the slots of rails sr[0..nslots) (-1: no NIC): at
 * most *cap a slot and *rcap a NIC (a rail), ceil(m / slots) and
 * ceil(m / NICs); count (the slots' counts, then the rails') zeroed. */
static void host_caps (const int *sr, int nslots, int nrails, int m, int *count, int *cap,
                       int *rcap)
{
    int nsl = 0, nr = 0, *rcount = count + nslots;

    memset (count, 0, (size_t)(nslots + nrails) * sizeof (*count));
    for (int t = 0; t < nslots; t++)
        if (sr[t] >= 0) {
            nsl++;
            nr += rcount[sr[t]]++ == 0;
        }
    *cap = (m + nsl - 1) / nsl;
    *rcap = (m + nr - 1) / nr;
    memset (count, 0, (size_t)(nslots + nrails) * sizeof (*count));
}

/* One host's ranks swapped between slots, or moved to a slot with room
 * on a NIC with room, while that takes bytes off the spine: their
 * partners are all on other hosts, whose rails stay as they are
 * meanwhile, so each rank's bytes to each rail (W) hold for the whole
 * visit.  A slot takes at most ceil(ranks / slots), a NIC (a rail) at most
 * ceil(ranks / NICs).  count: the slots' and the rails' counts.  Whether
 * anything moved.
 */
static int refine_host (work_t *k, int h, const slots_t *s, int nrails, int *slot, double *W,
                        int *count)
{
    int m = k->first[h + 1] - k->first[h], cap, rcap, moved = 0;
    const int *rk = k->byhost + k->first[h], *sr = k->slotrail[h];
    int *rcount = count + s->nslots;

    host_caps (sr, s->nslots, nrails, m, count, &cap, &rcap);
    for (int i = 0; i < m; i++) {
        double *wi = W + (size_t)i * (size_t)nrails;

        memset (wi, 0, (size_t)nrails * sizeof (*wi));
        for (size_t e = k->adj[rk[i]]; e < k->adj[rk[i] + 1]; e++)
            wi[k->rail[k->to[e]]] += k->w[e];
        count[slot[rk[i]]]++;
        rcount[k->rail[rk[i]]]++;
    }
    for (int better = 1; better;) {
        better = 0;
        for (int i = 0; i < m; i++) {
            const double *wi = W + (size_t)i * (size_t)nrails;
            int a = rk[i], ra = sr[slot[a]];

            for (int t = 0; t < s->nslots; t++)
                if (sr[t] >= 0 && count[t] < cap && rcount[sr[t]] < rcap && wi[sr[t]] > wi[ra]) {
                    count[slot[a]]--, rcount[ra]--;
                    count[t]++, rcount[sr[t]]++;
                    slot[a] = t;
                    k->rail[a] = ra = sr[t];
                    better = moved = 1;
                }
            for (int j = i + 1; j < m; j++) {
                const double *wj = W + (size_t)j * (size_t)nrails;
                int b = rk[j], rb = sr[slot[b]], t;

                if (ra != rb && wi[rb] + wj[ra] > wi[ra] + wj[rb]) {
                    t = slot[a], slot[a] = slot[b], slot[b] = t;
                    k->rail[a] = rb, k->rail[b] = ra, ra = rb;
                    better = moved = 1;
                }
            }
        }
    }
    return moved;
}

/* Hosts' slots and rails; 1 with why when a host cannot choose. */
static int work_rails (work_t *k, railmap_t *out, int nhosts, slots_t *const *slots,
                       const char *const *hosts, char (**rails)[SLOTS_NAME_MAX], char *why,
                       size_t whylen)
{
    for (int h = 0; h < nhosts; h++) {
        const slots_t *s = slots[h];
        int any = 0;

        if (k->first[h + 1] == k->first[h])
            continue;
        if (!s || s->nslots == 0) {
            snprintf (why, whylen, "%s has no GPU slots%s", hosts[h], s ? "" : " read");
            return 1;
        }
        if (!(k->slotrail[h] = malloc ((size_t)s->nslots * sizeof (int))))
            return -1;
        if (s->nslots > k->smax)
            k->smax = s->nslots;
        for (int t = 0; t < s->nslots; t++) {
            const slots_dev_t *d = slot_nic (s, t);
            int r = 0;

            k->slotrail[h][t] = -1;
            if (!d)
                continue;
            while (r < out->nrails && strcmp ((*rails)[r], nic_rail_name (d)))
                r++;
            if (r == out->nrails) {
                char (*more)[SLOTS_NAME_MAX] = realloc (*rails, (size_t)(r + 1) * sizeof (*more));

                if (!more)
                    return -1;
                *rails = more;
                snprintf (more[r], sizeof (more[r]), "%s", nic_rail_name (d));
                out->nrails++;
            }
            k->slotrail[h][t] = r;
            any = 1;
        }
        if (!any) {
            snprintf (why, whylen, "%s has no NIC near a GPU", hosts[h]);
            return 1;
        }
    }
    if (out->nrails < 2) {
        snprintf (why, whylen, out->nrails ? "one rail (%s)" : "no ranks",
                  *rails ? (*rails)[0] : "");
        return 1;
    }
    return 0;
}

/* Each host's ranks on its slots in local order, as without topomap
 * (a slot without NIC passed over). */
static void work_default (work_t *k, int nhosts, slots_t *const *slots, int *slot)
{
    for (int h = 0; h < nhosts; h++) {
        int m = k->first[h + 1] - k->first[h], nsl = 0, t;

        if (m == 0)
            continue;
        for (t = 0; t < slots[h]->nslots; t++)
            nsl += k->slotrail[h][t] >= 0;
        for (int i = 0; i < m; i++) {
            int want = (int)((long)i * nsl / m), seen = -1;

            for (t = 0; t < slots[h]->nslots; t++)
                if (k->slotrail[h][t] >= 0 && ++seen == want)
                    break;
            slot[k->byhost[k->first[h] + i]] = t;
            k->rail[k->byhost[k->first[h] + i]] = k->slotrail[h][t];
        }
    }
}

static int work_hosts (work_t *k, int nhosts)
{
    int *fill;

    if (!(k->first = calloc ((size_t)nhosts + 1, sizeof (*k->first))) ||
        !(k->byhost = malloc ((size_t)k->n * sizeof (*k->byhost))) ||
        !(k->slotrail = calloc ((size_t)nhosts, sizeof (*k->slotrail))) ||
        !(k->rail = malloc ((size_t)k->n * sizeof (*k->rail))))
        return -1;
    for (int r = 0; r < k->n; r++)
        k->first[k->node[r] + 1]++;
    for (int h = 0; h < nhosts; h++)
        k->first[h + 1] += k->first[h];
    if (!(fill = malloc ((size_t)nhosts * sizeof (*fill))))
        return -1;
    memcpy (fill, k->first, (size_t)nhosts * sizeof (*fill));
    for (int r = 0; r < k->n; r++)
        k->byhost[fill[k->node[r]]++] = r;
    free (fill);
    return 0;
}

static void work_free (work_t *k, int nhosts)
{
    for (int h = 0; k->slotrail && h < nhosts; h++)
        free (k->slotrail[h]);
    free (k->slotrail);
    free (k->first);
    free (k->byhost);
    free (k->rail);
    free (k->adj);
    free (k->to);
    free (k->w);
}

static int refine (work_t *k, int nhosts, slots_t *const *slots, int nrails, int *slot)
{
    int mmax = 0;
    double *W;
    int *count;

    for (int h = 0; h < nhosts; h++)
        if (k->first[h + 1] - k->first[h] > mmax)
            mmax = k->first[h + 1] - k->first[h];
    W = malloc ((size_t)mmax * (size_t)nrails * sizeof (*W));
    count = malloc ((size_t)(k->smax + nrails) * sizeof (*count));
    if (!W || !count) {
        free (W);
        free (count);
        return -1;
    }
    for (int pass = 0, moved = 1; moved && pass < RAILMAP_PASSES; pass++) {
        moved = 0;
        for (int h = 0; h < nhosts; h++)
            if (k->first[h + 1] > k->first[h])
                moved |= refine_host (k, h, slots[h], nrails, slot, W, count);
    }
    free (W);
    free (count);
    return 0;
}

/* A rank's pull toward a rail, from its partners on hosts placed. */
typedef struct {
    double w;
    int i, r;
} pull_t;

static int pull_cmp (const void *a, const void *b)
{
    const pull_t *x = a, *y = b;

    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return x->i != y->i ? (x->i < y->i ? -1 : 1) : (x->r > y->r) - (x->r < y->r);
}

/* Host h's ranks on slots, each pulled to its placed partners' rails,
 * heaviest pulls first, where its slots and NICs have room; the rest in
 * local order on what is left.  count as refine_host's. */
static int place_host (work_t *k, int h, const slots_t *s, int nrails, const char *done, int *slot,
                       int *count)
{
    int m = k->first[h + 1] - k->first[h], cap, rcap, np = 0;
    const int *rk = k->byhost + k->first[h], *sr = k->slotrail[h];
    int *rcount = count + s->nslots;
    pull_t *pull;
    size_t npull = 0;

    for (int i = 0; i < m; i++)
        npull += k->adj[rk[i] + 1] - k->adj[rk[i]];
    if (!(pull = malloc ((npull + 1) * sizeof (*pull))))
        return -1;
    host_caps (sr, s->nslots, nrails, m, count, &cap, &rcap);
    for (int i = 0; i < m; i++) {
        slot[rk[i]] = -1;
        for (size_t e = k->adj[rk[i]]; e < k->adj[rk[i] + 1]; e++)
            if (done[k->node[k->to[e]]])
                pull[np++] = (pull_t){k->w[e], i, k->rail[k->to[e]]};
    }
    qsort (pull, (size_t)np, sizeof (*pull), pull_cmp);
    for (int q = 0; q < np; q++) {
        int a = rk[pull[q].i], t = 0;

        while (t < s->nslots && (sr[t] != pull[q].r || count[t] >= cap || rcount[sr[t]] >= rcap))
            t++;
        if (slot[a] < 0 && t < s->nslots) {
            slot[a] = t, k->rail[a] = sr[t];
            count[t]++, rcount[sr[t]]++;
        }
    }
    /* the others in local order: a slot with room on a NIC with room, else
     * a slot with room (there is one: cap * nsl >= m) */
    for (int i = 0; i < m; i++) {
        int a = rk[i], t, any = -1;

        for (t = 0; slot[a] < 0 && t < s->nslots; t++)
            if (sr[t] >= 0 && count[t] < cap) {
                any = any < 0 ? t : any;
                if (rcount[sr[t]] < rcap)
                    break;
            }
        if (slot[a] >= 0)
            continue;
        t = t < s->nslots ? t : any;
        slot[a] = t, k->rail[a] = sr[t];
        count[t]++, rcount[sr[t]]++;
    }
    free (pull);
    return 0;
}

/* A start that follows the traffic: hosts in turn, each the one of most
 * bytes to those placed (a heap of stale-checked entries), placed by
 * place_host; a host with none placed near, as without topomap would. */
static int construct (work_t *k, int nhosts, slots_t *const *slots, int nrails, int *slot)
{
    double *acc = calloc ((size_t)nhosts, sizeof (*acc));
    char *done = calloc ((size_t)nhosts, 1);
    int *count = NULL, rc = -1;
    heap_t hp = {0};

    if (!acc || !done || !(count = malloc ((size_t)(k->smax + nrails) * sizeof (*count))) ||
        heap_reserve (&hp, (size_t)nhosts) < 0)
        goto out;
    for (int h = 0; h < nhosts; h++)
        if (k->first[h + 1] > k->first[h])
            heap_push (&hp, (heap_item_t){.key = 0, .id = h});
    while (hp.n > 0) {
        heap_item_t x = heap_pop (&hp);
        int h = x.id;

        if (done[h] || x.key != -acc[h])
            continue;
        if (place_host (k, h, slots[h], nrails, done, slot, count) < 0)
            goto out;
        done[h] = 1;
        for (int r = k->first[h]; r < k->first[h + 1]; r++)
            for (size_t e = k->adj[k->byhost[r]]; e < k->adj[k->byhost[r] + 1]; e++) {
                int g = k->node[k->to[e]];

                if (!done[g]) {
                    acc[g] += k->w[e];
                    if (heap_push (&hp, (heap_item_t){.key = -acc[g], .id = g}) < 0)
                        goto out;
                }
            }
    }
    rc = 0;
out:
    heap_free (&hp);
    free (acc);
    free (done);
    free (count);
    return rc;
}

int railmap_choose (const profile_t *p, const int *node, int nhosts, slots_t *const *slots,
                    const char *const *hosts, railmap_t *out, char *why, size_t whylen,
                    tm_error_t *errp)
{
    work_t k = {.n = p->ntasks, .node = node};
    char (*rails)[SLOTS_NAME_MAX] = NULL;
    int rc, *other = NULL;

    memset (out, 0, sizeof (*out));
    out->nranks = p->ntasks;
    if (work_hosts (&k, nhosts) < 0 ||
        (rc = work_rails (&k, out, nhosts, slots, hosts, &rails, why, whylen)) < 0)
        goto nomem;
    if (rc == 1)
        goto none;
    if (work_adjacency (&k, p) < 0 || !(out->slot = malloc ((size_t)k.n * sizeof (int))) ||
        !(out->nic = malloc ((size_t)k.n * sizeof (int))))
        goto nomem;
    work_default (&k, nhosts, slots, out->slot);
    out->default_bytes = cross_bytes (p, &k, k.rail);
    for (size_t i = 0; i < p->nentries; i++)
        if (node[p->entries[i].src] != node[p->entries[i].dst])
            out->node_bytes += p->entries[i].bytes;
    if (out->node_bytes == 0) {
        snprintf (why, whylen, "no bytes between nodes");
        rc = 1;
        goto none;
    }
    if (refine (&k, nhosts, slots, out->nrails, out->slot) < 0)
        goto nomem;
    out->cross_bytes = cross_bytes (p, &k, k.rail);
    /* a second start, the traffic's, refined too: the better kept */
    if (out->cross_bytes > 0) {
        uint64_t b;

        if (!(other = malloc ((size_t)k.n * sizeof (*other))) ||
            construct (&k, nhosts, slots, out->nrails, other) < 0 ||
            refine (&k, nhosts, slots, out->nrails, other) < 0)
            goto nomem;
        if ((b = cross_bytes (p, &k, k.rail)) < out->cross_bytes) {
            int *t = out->slot;

            out->slot = other, other = t;
            out->cross_bytes = b;
        }
    }
    /* the NICs in the hosts' order, each slot's */
    for (int h = 0; h < nhosts; h++)
        for (int t = 0; k.first[h + 1] > k.first[h] && t < slots[h]->nslots; t++)
            if (slot_nic (slots[h], t) && nic_index (out, slot_nic (slots[h], t)) < 0)
                goto nomem;
    for (int r = 0; r < k.n; r++)
        if ((out->nic[r] = nic_index (out, slot_nic (slots[node[r]], out->slot[r]))) < 0)
            goto nomem;
    work_free (&k, nhosts);
    free (rails);
    free (other);
    return 0;
nomem:
    errprintf (errp, "out of memory choosing each rank's NIC");
    errno = ENOMEM;
    rc = -1;
none:
    work_free (&k, nhosts);
    free (rails);
    free (other);
    railmap_free (out);
    return rc;
}

void railmap_free (railmap_t *m)
{
    free (m->slot);
    free (m->nic);
    free (m->nics);
    m->slot = m->nic = NULL;
    m->nics = NULL;
    m->nnics = 0;
}

const char *railmap_gpu (const slots_t *s, int slot)
{
    const slots_dev_t *g = &s->gpu[s->slot[slot].gpu];

    return g->name[0] ? g->name : g->busid;
}

/* Slot k's CPUs of s as ranges "0-3,8" at buf + at (snprintf's way). */
static size_t env_cpus (const slot_t *sl, char *buf, size_t len, size_t at)
{
    for (int c = 0; c < sl->ncpus;) {
        int a = sl->cpu[c], b = a;

        while (++c < sl->ncpus && sl->cpu[c] == b + 1)
            b++;
        at += (size_t)snprintf (at < len ? buf + at : NULL, at < len ? len - at : 0,
                                a == b ? "%s%d" : "%s%d-%d", a == sl->cpu[0] ? "" : ",", a, b);
    }
    return at;
}

int railmap_env (const railmap_t *m, const slots_t *cpus, char *buf, size_t len, tm_error_t *errp)
{
    size_t at = 0;
    int n;

    for (int i = 0; i < m->nnics; i++) {
        n = snprintf (at < len ? buf + at : NULL, at < len ? len - at : 0, "%s%s/%s", i ? "," : "",
                      m->nics[i].name[0] ? m->nics[i].name : "-",
                      m->nics[i].netdev[0] ? m->nics[i].netdev : "-");
        at += (size_t)n;
    }
    for (int r = 0; r < m->nranks; r++) {
        n = snprintf (at < len ? buf + at : NULL, at < len ? len - at : 0, "%s%d:%d", r ? "," : ";",
                      m->nic[r], m->slot[r]);
        at += (size_t)n;
    }
    for (int k = 0; cpus && k < cpus->nslots; k++) {
        const slot_t *sl = &cpus->slot[k];

        if (sl->ncpus < 1 || sl->cpu[sl->ncpus - 1] >= SLOTS_MAX_CPUS) {
            errprintf (errp, "slot %d: no CPUs, or one past %d", k, SLOTS_MAX_CPUS - 1);
            errno = EINVAL;
            return -1;
        }
        at += (size_t)snprintf (at < len ? buf + at : NULL, at < len ? len - at : 0, "%s",
                                k ? "/" : ";");
        at = env_cpus (sl, buf, len, at);
    }
    if (at >= len) {
        errprintf (errp, "each rank's NIC%s %zu bytes, more than %zu",
                   cpus ? " and its GPU's CPUs take" : " takes", at, len - 1);
        errno = E2BIG;
        return -1;
    }
    return 0;
}

/* One "name/netdev" of val at *s, into nic. */
static int env_nic (const char **s, railmap_nic_t *nic, tm_error_t *errp)
{
    char *parts[2] = {nic->name, nic->netdev};

    for (int i = 0; i < 2; i++) {
        size_t n = strcspn (*s, i ? ",;" : "/,;");

        if (n == 0 || n >= SLOTS_NAME_MAX || (i == 0 && (*s)[n] != '/')) {
            errprintf (errp, "not NAME/NETDEV at '%.40s'", *s);
            return -1;
        }
        memcpy (parts[i], *s, n);
        parts[i][n] = '\0';
        if (!strcmp (parts[i], "-"))
            parts[i][0] = '\0';
        else if (!slots_name_ok (parts[i])) {
            errprintf (errp, "'%s' is not a device name", parts[i]);
            return -1;
        }
        *s += n + (i == 0);
    }
    if (!nic->name[0] && !nic->netdev[0]) {
        errprintf (errp, "a NIC without a name");
        return -1;
    }
    return 0;
}

/* A CPU number at *s, past it: digits, below SLOTS_MAX_CPUS.  -1 if not. */
static int env_cpu (const char **s)
{
    char *end;
    long v;

    if (**s < '0' || **s > '9')
        return -1;
    errno = 0;
    v = strtol (*s, &end, 10);
    if (errno || v >= SLOTS_MAX_CPUS)
        return -1;
    *s = end;
    return (int)v;
}

/* The last part of val at s: slot want's CPUs into *cpu, *ncpus; every
 * list checked. */
static int env_slot_cpus (const char *s, int want, int **cpu, int *ncpus, tm_error_t *errp)
{
    int k = 0, cap = 0, *more;

    for (;; s++) {
        int last = -1;

        do {
            int a = env_cpu (&s), b = a;

            if (a >= 0 && *s == '-' && s++)
                b = env_cpu (&s);
            if (a <= last || b < a) {
                errprintf (errp, "slot %d's CPUs are not ascending ranges below %d at '%.20s'", k,
                           SLOTS_MAX_CPUS, s);
                return -1;
            }
            for (int c = a; k == want && c <= b; c++) {
                if (*ncpus == cap) {
                    if (!(more =
                              realloc (*cpu, (size_t)(cap = cap ? 2 * cap : 64) * sizeof (int)))) {
                        errprintf (errp, "out of memory");
                        return -1;
                    }
                    *cpu = more;
                }
                (*cpu)[(*ncpus)++] = c;
            }
            last = b;
        } while (*s == ',' && s++);
        if (*s != '/' || !s[1] || k == SLOTS_MAX_DEVICES - 1)
            break;
        k++;
    }
    if (*s == '/' && k == SLOTS_MAX_DEVICES - 1) {
        errprintf (errp, "CPUs of more than %d slots", SLOTS_MAX_DEVICES);
        return -1;
    }
    if (*s) {
        errprintf (errp, "not a CPU list at '%.20s'", s);
        return -1;
    }
    if (want > k) {
        errprintf (errp, "no CPUs for slot %d", want);
        return -1;
    }
    return 0;
}

int railmap_env_nic (const char *val, int rank, railmap_nic_t *nic, int *slot, int **cpu,
                     int *ncpus, tm_error_t *errp)
{
    const char *s = val;
    int nnics = 0, want = -1;
    railmap_nic_t one;

    *cpu = NULL;
    *ncpus = 0;
    do {
        if (env_nic (&s, &one, errp) < 0)
            return -1;
        nnics++;
    } while (*s == ',' && s++);
    if (*s++ != ';') {
        errprintf (errp, "no ';' after the NICs");
        return -1;
    }
    for (int r = 0; *s && *s != ';'; r++) {
        char *end, *end2 = NULL;
        long v, t = -1;

        errno = 0;
        v = strtol (s, &end, 10);
        if (end > s && *end == ':' && end[1] >= '0' && end[1] <= '9')
            t = strtol (end + 1, &end2, 10);
        if (end == s || *s < '0' || *s > '9' || errno || v >= nnics || t < 0 ||
            t >= SLOTS_MAX_DEVICES ||
            (*end2 && *end2 != ';' && (*end2 != ',' || end2[1] < '0' || end2[1] > '9'))) {
            errprintf (errp, "rank %d's entry is not NIC:SLOT, NIC one of the %d", r, nnics);
            return -1;
        }
        if (r == rank) {
            want = (int)v;
            *slot = (int)t;
        }
        s = *end2 == ',' ? end2 + 1 : end2;
    }
    if (want < 0) {
        errprintf (errp, "no NIC for rank %d", rank);
        return -1;
    }
    if (*s == ';' && env_slot_cpus (s + 1, *slot, cpu, ncpus, errp) < 0) {
        free (*cpu);
        *cpu = NULL;
        *ncpus = 0;
        return -1;
    }
    s = val;
    for (int i = 0; i <= want; i++) {
        env_nic (&s, nic, errp);
        s++;
    }
    return 0;
}
