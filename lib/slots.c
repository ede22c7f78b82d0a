/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slots.c: a GPU node's slots from its devices (slots.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/slots.h"

const char *slots_near_name (slots_near_t near)
{
    switch (near) {
    case SLOTS_NEAR_SWITCH:
        return "switch";
    case SLOTS_NEAR_PACKAGE:
        return "package";
    case SLOTS_NEAR_MACHINE:
        return "machine";
    default:
        return "none";
    }
}

void slots_free (slots_t *s)
{
    if (!s)
        return;
    for (int k = 0; k < s->nslots; k++) {
        free (s->slot[k].nic);
        free (s->slot[k].cpu);
    }
    free (s->slot);
    free (s->gpu);
    free (s->nic);
    free (s);
}

static int slots_check (const slots_node_t *node, tm_error_t *errp)
{
    if (node->ndevs < 0 || node->ndevs > SLOTS_MAX_DEVICES)
        return errprintf (errp, "%d devices: at most %d", node->ndevs, SLOTS_MAX_DEVICES);
    if (node->ncpus < 1 || !node->cpu || !node->core)
        return errprintf (errp, "no CPU the job may use");
    for (int i = 0; i < node->ndevs; i++) {
        const slots_dev_t *d = &node->dev[i];

        if (d->depth < 1 || d->depth > SLOTS_MAX_DEPTH || d->nio < 0 || d->nio > d->depth)
            return errprintf (errp, "%s: a path of %d objects (%d not I/O): 1 to %d",
                              errsafe (d->busid, 16), d->depth, d->nio, SLOTS_MAX_DEPTH);
        if (d->ncpus < 0 || (d->ncpus > 0 && !d->cpu))
            return errprintf (errp, "%s: no CPU list", errsafe (d->busid, 16));
        for (int j = 0; j < i; j++)
            if (strcmp (d->busid, node->dev[j].busid) == 0)
                return errprintf (errp, "%s: two devices at one bus id", errsafe (d->busid, 16));
    }
    return 0;
}

static int slots_cmp_busid (const void *a, const void *b)
{
    return strcmp (((const slots_dev_t *)a)->busid, ((const slots_dev_t *)b)->busid);
}

/* How deep the paths of a and b run together: the deeper, the nearer. */
static int slots_meet (const slots_dev_t *a, const slots_dev_t *b)
{
    int l = 0;

    while (l < a->depth && l < b->depth && a->path[l] == b->path[l])
        l++;
    return l;
}

static slots_near_t slots_near (const slots_dev_t *a, const slots_dev_t *b)
{
    int l = slots_meet (a, b);

    if (l > a->nio && l > b->nio)
        return SLOTS_NEAR_SWITCH;
    return l >= 2 ? SLOTS_NEAR_PACKAGE : SLOTS_NEAR_MACHINE;
}

/* A NIC's name: its network interface, else its fabric device. */
static const char *slots_nic_name (const slots_dev_t *d)
{
    return d->netdev[0] ? d->netdev : d->name;
}

/* Add a clause to s->note, "; " between clauses; what does not fit is
 * cut. */
static void __attribute__ ((format (printf, 2, 3))) slots_note (slots_t *s, const char *fmt, ...)
{
    size_t len = strlen (s->note);
    va_list ap;

    if (len + 3 >= sizeof (s->note))
        return;
    if (len)
        len += (size_t)snprintf (s->note + len, sizeof (s->note) - len, "; ");
    va_start (ap, fmt);
    vsnprintf (s->note + len, sizeof (s->note) - len, fmt, ap);
    va_end (ap);
}

/* s->nic: the node's NICs in PCI order but those on links well below the
 * fastest, which the note names. */
static void slots_take_nics (const slots_node_t *node, slots_t *s)
{
    double fastest = 0;

    for (int i = 0; i < node->ndevs; i++)
        if (node->dev[i].kind == SLOTS_NIC && node->dev[i].link_GBps > fastest)
            fastest = node->dev[i].link_GBps;
    for (int i = 0; i < node->ndevs; i++) {
        const slots_dev_t *d = &node->dev[i];

        if (d->kind != SLOTS_NIC)
            continue;
        if (d->link_GBps > 0 && d->link_GBps < SLOTS_NIC_LINK_RATIO * fastest) {
            slots_note (s, "%s (%s) left out: a %.3g GB/s PCIe link against %.3g",
                        slots_nic_name (d), d->busid, d->link_GBps, fastest);
            continue;
        }
        s->nic[s->nnics++] = *d;
    }
    qsort (s->nic, (size_t)s->nnics, sizeof (*s->nic), slots_cmp_busid);
}

static int slots_add_nic (slot_t *sl, int nic)
{
    int *v = realloc (sl->nic, (size_t)(sl->nnics + 1) * sizeof (int));

    if (!v)
        return -1;
    v[sl->nnics++] = nic;
    sl->nic = v;
    return 0;
}

/* Each GPU its nearest NICs (slots.h): load[] counts the slots of each. */
static int slots_pair (slots_t *s)
{
    int *best = calloc ((size_t)s->ngpus + 1, sizeof (int));
    int *order = calloc ((size_t)s->ngpus + 1, sizeof (int));
    int *load = calloc ((size_t)s->nnics + 1, sizeof (int));
    int rc = -1;

    if (!best || !order || !load)
        goto out;
    for (int g = 0; g < s->ngpus; g++) {
        order[g] = g;
        for (int n = 0; n < s->nnics; n++) {
            int l = slots_meet (&s->gpu[g], &s->nic[n]);

            if (l > best[g])
                best[g] = l;
        }
    }
    /* nearest pairs first, then in slot order: an insertion sort, stable */
    for (int i = 1; i < s->ngpus; i++)
        for (int j = i; j > 0 && best[order[j]] > best[order[j - 1]]; j--) {
            int t = order[j];

            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int i = 0; i < s->ngpus && s->nnics > 0; i++) {
        int g = order[i], pick = -1;

        for (int n = 0; n < s->nnics; n++)
            if (slots_meet (&s->gpu[g], &s->nic[n]) == best[g] &&
                (pick < 0 || load[n] < load[pick]))
                pick = n;
        if (slots_add_nic (&s->slot[g], pick) < 0)
            goto out;
        load[pick]++;
    }
    for (int n = 0; n < s->nnics; n++) {
        int pick = -1;

        if (load[n] > 0)
            continue;
        for (int g = 0; g < s->ngpus; g++)
            if (slots_meet (&s->gpu[g], &s->nic[n]) == best[g] &&
                (pick < 0 || s->slot[g].nnics < s->slot[pick].nnics))
                pick = g;
        if (pick < 0) {
            slots_note (s, "%s (%s) serves no GPU: none is as near it as to its own",
                        slots_nic_name (&s->nic[n]), s->nic[n].busid);
            continue;
        }
        if (slots_add_nic (&s->slot[pick], n) < 0)
            goto out;
        load[n]++;
    }
    for (int g = 0; g < s->ngpus; g++) {
        slot_t *sl = &s->slot[g];

        sl->near = SLOTS_NEAR_NONE;
        for (int k = 0; k < sl->nnics; k++) {
            slots_near_t near = slots_near (&s->gpu[g], &s->nic[sl->nic[k]]);

            if (sl->near == SLOTS_NEAR_NONE || near < sl->near)
                sl->near = near;
        }
    }
    rc = 0;
out:
    free (best);
    free (order);
    free (load);
    return rc;
}

/* Where x is in v (n ascending), -1 when it is not. */
static int slots_find (const int *v, int n, int x)
{
    int lo = 0, hi = n;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;

        if (v[mid] == x)
            return mid;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Into out: the node's CPUs near device a and, when b is not NULL, in b
 * too; their count. */
static int slots_meet_cpus (const slots_node_t *node, const slots_dev_t *a, const int *b, int nb,
                            int *out)
{
    int n = 0;

    for (int k = 0; k < node->ncpus; k++)
        if (slots_find (a->cpu, a->ncpus, node->cpu[k]) >= 0 &&
            (!b || slots_find (b, nb, node->cpu[k]) >= 0))
            out[n++] = node->cpu[k];
    return n;
}

/* Slot g's near CPUs before sharing, into out: its GPU's and its NICs'
 * where they have any in common, else its GPU's, else the node's. */
static int slots_near_cpus (const slots_node_t *node, const slots_t *s, int g, int *out, int *tmp)
{
    const slot_t *sl = &s->slot[g];
    int n = 0, nt = 0;

    for (int k = 0; k < node->ncpus; k++)
        for (int j = 0; j < sl->nnics; j++) {
            const slots_dev_t *nic = &s->nic[sl->nic[j]];

            if (slots_find (nic->cpu, nic->ncpus, node->cpu[k]) >= 0) {
                tmp[nt++] = node->cpu[k];
                break;
            }
        }
    if (nt > 0)
        n = slots_meet_cpus (node, &s->gpu[g], tmp, nt, out);
    if (n == 0)
        n = slots_meet_cpus (node, &s->gpu[g], NULL, 0, out);
    if (n == 0) {
        memcpy (out, node->cpu, (size_t)node->ncpus * sizeof (int));
        n = node->ncpus;
    }
    return n;
}

/* Each slot's CPUs: the near ones, split by whole cores in slot order
 * among the slots near the same (or, fewer cores than slots, a core
 * each in turn). */
static int slots_share_cpus (const slots_node_t *node, slots_t *s)
{
    size_t nc = (size_t)node->ncpus;
    int *near = malloc ((size_t)s->nslots * nc * sizeof (int) + 1);
    int *nnear = calloc ((size_t)s->nslots + 1, sizeof (int));
    int *tmp = malloc (nc * sizeof (int));
    int *cores = malloc (nc * sizeof (int));
    int rc = -1;

    if (!near || !nnear || !tmp || !cores)
        goto out;
    for (int g = 0; g < s->nslots; g++)
        nnear[g] = slots_near_cpus (node, s, g, near + (size_t)g * nc, tmp);
    for (int g = 0; g < s->nslots; g++) {
        const int *set = near + (size_t)g * nc;
        int k = 0, j = 0, ncores = 0, lo, hi, n = 0;
        slot_t *sl = &s->slot[g];

        for (int h = 0; h < s->nslots; h++)
            if (nnear[h] == nnear[g] &&
                memcmp (near + (size_t)h * nc, set, (size_t)nnear[g] * sizeof (int)) == 0) {
                if (h < g)
                    j++;
                k++;
            }
        for (int c = 0; c < nnear[g]; c++) {
            int core = node->core[slots_find (node->cpu, node->ncpus, set[c])], seen = 0;

            for (int q = 0; q < ncores && !seen; q++)
                seen = cores[q] == core;
            if (!seen)
                cores[ncores++] = core;
        }
        if (ncores >= k) {
            lo = j * ncores / k;
            hi = (j + 1) * ncores / k;
        } else {
            lo = j % ncores;
            hi = lo + 1;
        }
        if (!(sl->cpu = malloc ((size_t)nnear[g] * sizeof (int))))
            goto out;
        for (int c = 0; c < nnear[g]; c++) {
            int core = node->core[slots_find (node->cpu, node->ncpus, set[c])];

            for (int q = lo; q < hi; q++)
                if (cores[q] == core) {
                    sl->cpu[n++] = set[c];
                    break;
                }
        }
        sl->ncpus = n;
    }
    rc = 0;
out:
    free (near);
    free (nnear);
    free (tmp);
    free (cores);
    return rc;
}

slots_t *slots_choose (const slots_node_t *node, tm_error_t *errp)
{
    slots_t *s;

    if (!node || slots_check (node, errp) < 0) {
        if (!node)
            errprintf (errp, "slots_choose: no node");
        errno = EINVAL;
        return NULL;
    }
    if (!(s = calloc (1, sizeof (*s))) ||
        !(s->gpu = calloc ((size_t)node->ndevs + 1, sizeof (*s->gpu))) ||
        !(s->nic = calloc ((size_t)node->ndevs + 1, sizeof (*s->nic))))
        goto nomem;
    for (int i = 0; i < node->ndevs; i++)
        if (node->dev[i].kind == SLOTS_GPU)
            s->gpu[s->ngpus++] = node->dev[i];
    qsort (s->gpu, (size_t)s->ngpus, sizeof (*s->gpu), slots_cmp_busid);
    slots_take_nics (node, s);
    if (s->ngpus == 0) {
        snprintf (s->note, sizeof (s->note), "no GPU");
        goto done;
    }
    if (!(s->slot = calloc ((size_t)s->ngpus, sizeof (*s->slot))))
        goto nomem;
    s->nslots = s->ngpus;
    for (int g = 0; g < s->nslots; g++)
        s->slot[g].gpu = g;
    if (slots_pair (s) < 0 || slots_share_cpus (node, s) < 0)
        goto nomem;
done:
    /* the devices' CPU lists are the caller's */
    for (int g = 0; g < s->ngpus; g++) {
        s->gpu[g].ncpus = 0;
        s->gpu[g].cpu = NULL;
    }
    for (int n = 0; n < s->nnics; n++) {
        s->nic[n].ncpus = 0;
        s->nic[n].cpu = NULL;
    }
    return s;
nomem:
    slots_free (s);
    errnomem (errp);
    return NULL;
}
