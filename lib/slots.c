/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slots.c: a GPU node's slots from its devices (slots.h). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonfile.h"
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

static int slots_check_node (const slots_node_t *node, tm_error_t *errp)
{
    if (node->ndevs < 0 || node->ndevs > SLOTS_MAX_DEVICES)
        return errprintf (errp, "%d devices: at most %d", node->ndevs, SLOTS_MAX_DEVICES);
    if (node->ncpus < 1 || !node->cpu || !node->core)
        return errprintf (errp, "no CPU the job may use");
    for (int i = 0; i < node->ndevs; i++) {
        const slots_dev_t *d = &node->dev[i];

        if (d->depth < 1 || d->depth > SLOTS_MAX_DEPTH || d->nio < 0 || d->nio > d->depth)
            return errprintf (errp, "%s: a path of %d objects (%d not I/O): 1 to %d",
                              errsafe (d->busid, 20), d->depth, d->nio, SLOTS_MAX_DEPTH);
        if (d->ncpus < 0 || (d->ncpus > 0 && !d->cpu))
            return errprintf (errp, "%s: no CPU list", errsafe (d->busid, 20));
        for (int j = 0; j < i; j++)
            if (strcmp (d->busid, node->dev[j].busid) == 0)
                return errprintf (errp, "%s: two devices at one bus id", errsafe (d->busid, 20));
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

/* A NIC's name: its fabric device, else its network interface. */
static const char *slots_nic_name (const slots_dev_t *d)
{
    return d->name[0] ? d->name : d->netdev;
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

static int slots_cmp_int (const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

/* Where x is in v (n ascending), -1 when it is not. */
static int slots_find (const int *v, int n, int x)
{
    const int *at = n > 0 ? bsearch (&x, v, (size_t)n, sizeof (int), slots_cmp_int) : NULL;

    return at ? (int)(at - v) : -1;
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
    int *cores = malloc (nc * sizeof (int)), *at = malloc (nc * sizeof (int));
    int rc = -1;

    if (!near || !nnear || !tmp || !cores || !at)
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
        /* at[c]: the place of CPU c's core among the set's, in order */
        for (int c = 0; c < nnear[g]; c++) {
            int core = node->core[slots_find (node->cpu, node->ncpus, set[c])], q = 0;

            while (q < ncores && cores[q] != core)
                q++;
            if (q == ncores)
                cores[ncores++] = core;
            at[c] = q;
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
        for (int c = 0; c < nnear[g]; c++)
            if (at[c] >= lo && at[c] < hi)
                sl->cpu[n++] = set[c];
        sl->ncpus = n;
    }
    rc = 0;
out:
    free (near);
    free (nnear);
    free (tmp);
    free (cores);
    free (at);
    return rc;
}

slots_t *slots_choose (const slots_node_t *node, tm_error_t *errp)
{
    slots_t *s;

    if (!node || slots_check_node (node, errp) < 0) {
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

/* JSON, and the checks a reader's input passes */

static const char *const slots_keys[] = {"gpus", "nics", "note", NULL};
static const char *const slots_gpu_keys[] = {"busid", "name", "nics", "near", "cpus", NULL};
static const char *const slots_nic_keys[] = {"busid", "name", "netdev", NULL};

/* A PCI address as hwloc gives it: "dddd:bb:dd.f", the domain of 4 to 8
 * hex digits (busid holds the 16). */
static bool slots_busid_ok (const char *b)
{
    size_t d = strspn (b, "0123456789abcdef");

    return d >= 4 && d <= 8 && b[d] == ':' && strspn (b + d + 1, "0123456789abcdef") == 2 &&
           b[d + 3] == ':' && strspn (b + d + 4, "0123456789abcdef") == 2 && b[d + 6] == '.' &&
           strspn (b + d + 7, "01234567") == 1 && b[d + 8] == '\0';
}

bool slots_name_ok (const char *s)
{
    size_t len = strnlen (s, SLOTS_NAME_MAX);

    return len > 0 && len < SLOTS_NAME_MAX &&
           strspn (s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == len;
}

int slots_check (const slots_t *s, const char *what, tm_error_t *errp)
{
    size_t len;

    if (s->ngpus < 0 || s->ngpus > SLOTS_MAX_DEVICES || s->nnics < 0 ||
        s->nnics > SLOTS_MAX_DEVICES || s->nslots != s->ngpus)
        return errprintf (errp, "%s: %d GPUs, %d NICs, %d slots: 0 to %d, a slot a GPU", what,
                          s->ngpus, s->nnics, s->nslots, SLOTS_MAX_DEVICES);
    for (int k = 0; k < s->ngpus + s->nnics; k++) {
        const slots_dev_t *d = k < s->ngpus ? &s->gpu[k] : &s->nic[k - s->ngpus];
        const char *kind = k < s->ngpus ? "gpus" : "nics";
        int i = k < s->ngpus ? k : k - s->ngpus;

        if (!slots_busid_ok (d->busid))
            return errprintf (errp, "%s.%s[%d].busid: '%s' is not a PCI address dddd:bb:dd.f", what,
                              kind, i, errsafe (d->busid, 20));
        if ((k < s->ngpus || d->name[0]) && !slots_name_ok (d->name))
            return errprintf (errp, "%s.%s[%d].name: '%s' is not 1 to %d letters, digits or _.:-",
                              what, kind, i, errsafe (d->name, SLOTS_NAME_MAX), SLOTS_NAME_MAX - 1);
        if (d->netdev[0] && (k < s->ngpus || !slots_name_ok (d->netdev)))
            return errprintf (errp, "%s.%s[%d].netdev: '%s' is not 1 to %d letters, digits or _.:-",
                              what, kind, i, errsafe (d->netdev, SLOTS_NAME_MAX),
                              SLOTS_NAME_MAX - 1);
        if (k >= s->ngpus && !d->name[0] && !d->netdev[0])
            return errprintf (errp, "%s.nics[%d]: neither a name nor a netdev", what, i);
        for (int j = 0; j < k; j++) {
            const slots_dev_t *o = j < s->ngpus ? &s->gpu[j] : &s->nic[j - s->ngpus];

            if (strcmp (o->busid, d->busid) == 0)
                return errprintf (errp, "%s.%s[%d].busid: %s given twice", what, kind, i, d->busid);
        }
    }
    for (int k = 0; k < s->nslots; k++) {
        const slot_t *sl = &s->slot[k];

        if (sl->gpu != k || sl->nnics < 0 || sl->nnics > s->nnics || sl->near < SLOTS_NEAR_NONE ||
            sl->near > SLOTS_NEAR_SWITCH || (sl->near == SLOTS_NEAR_NONE) != (sl->nnics == 0))
            return errprintf (errp, "%s.gpus[%d]: %d NICs, near '%s'", what, k, sl->nnics,
                              slots_near_name (sl->near));
        for (int j = 0; j < sl->nnics; j++) {
            if (sl->nic[j] < 0 || sl->nic[j] >= s->nnics)
                return errprintf (errp, "%s.gpus[%d].nics[%d]: %d, not a NIC (0 to %d)", what, k, j,
                                  sl->nic[j], s->nnics - 1);
            for (int i = 0; i < j; i++)
                if (sl->nic[i] == sl->nic[j])
                    return errprintf (errp, "%s.gpus[%d].nics: NIC %d twice", what, k, sl->nic[j]);
        }
        if (sl->ncpus < 1 || sl->ncpus > SLOTS_MAX_CPUS)
            return errprintf (errp, "%s.gpus[%d].cpus: %d CPUs, 1 to %d", what, k, sl->ncpus,
                              SLOTS_MAX_CPUS);
        for (int c = 0; c < sl->ncpus; c++)
            if (sl->cpu[c] < 0 || (c > 0 && sl->cpu[c] <= sl->cpu[c - 1]))
                return errprintf (errp, "%s.gpus[%d].cpus[%d]: %d, not ascending from 0", what, k,
                                  c, sl->cpu[c]);
    }
    len = strnlen (s->note, sizeof (s->note));
    if (len == sizeof (s->note) || jsonfile_has_control (s->note, len))
        return errprintf (errp, "%s.note: longer than %zu bytes or a control character", what,
                          sizeof (s->note) - 1);
    return 0;
}

json_object *slots_to_json (const slots_t *s)
{
    json_object *o = json_object_new_object (), *gpus, *nics;

    if (!o || jsonfile_add (o, "gpus", gpus = json_object_new_array (), false) < 0 ||
        jsonfile_add (o, "nics", nics = json_object_new_array (), false) < 0 ||
        jsonfile_add (o, "note", json_object_new_string (s->note), false) < 0)
        goto error;
    for (int k = 0; k < s->nslots; k++) {
        json_object *g = json_object_new_object ();

        if (jsonfile_add (gpus, NULL, g, false) < 0 ||
            jsonfile_add (g, "busid", json_object_new_string (s->gpu[k].busid), false) < 0 ||
            jsonfile_add (g, "name", json_object_new_string (s->gpu[k].name), false) < 0 ||
            jsonfile_add (g, "nics", jsonfile_ints (s->slot[k].nic, (size_t)s->slot[k].nnics),
                          false) < 0 ||
            jsonfile_add (g, "near", json_object_new_string (slots_near_name (s->slot[k].near)),
                          false) < 0 ||
            jsonfile_add (g, "cpus", jsonfile_ints (s->slot[k].cpu, (size_t)s->slot[k].ncpus),
                          false) < 0)
            goto error;
    }
    for (int n = 0; n < s->nnics; n++) {
        json_object *x = json_object_new_object ();

        if (jsonfile_add (nics, NULL, x, false) < 0 ||
            jsonfile_add (x, "busid", json_object_new_string (s->nic[n].busid), false) < 0 ||
            jsonfile_add (x, "name", json_object_new_string (s->nic[n].name), false) < 0 ||
            jsonfile_add (x, "netdev", json_object_new_string (s->nic[n].netdev), false) < 0)
            goto error;
    }
    return o;
error:
    json_object_put (o);
    return NULL;
}

/* The string key of o into buf (size bytes, "" allowed). */
static int slots_json_string (json_object *o, const char *pre, const char *key, char *buf,
                              size_t size, tm_error_t *errp)
{
    json_object *v;

    if (jsonfile_get (o, pre, key, json_type_string, &v, errp) < 0)
        return -1;
    if ((size_t)json_object_get_string_len (v) >= size)
        return errprintf (errp, "%s%s: longer than %zu bytes", pre, key, size - 1);
    if (strlen (json_object_get_string (v)) != (size_t)json_object_get_string_len (v))
        return errprintf (errp, "%s%s: a NUL character", pre, key);
    memcpy (buf, json_object_get_string (v), (size_t)json_object_get_string_len (v));
    buf[json_object_get_string_len (v)] = '\0';
    return 0;
}

/* The array key of o, at most max long, into a new array of ints (*np of
 * them), each in lo..hi. */
static int slots_json_read_ints (json_object *o, const char *pre, const char *key, int max, int lo,
                                 int hi, int **vp, int *np, tm_error_t *errp)
{
    json_object *a;
    size_t n;
    char what[96];

    if (jsonfile_get (o, pre, key, json_type_array, &a, errp) < 0)
        return -1;
    if ((n = json_object_array_length (a)) > (size_t)max)
        return errprintf (errp, "%s%s: %zu entries, at most %d", pre, key, n, max);
    if (!(*vp = calloc (n + 1, sizeof (int))))
        return errnomem (errp);
    for (size_t k = 0; k < n; k++) {
        int64_t x;

        snprintf (what, sizeof (what), "%s%s[%zu]", pre, key, k);
        if (jsonfile_int (json_object_array_get_idx (a, k), what, lo, hi, &x, errp) < 0)
            return -1;
        (*vp)[k] = (int)x;
    }
    *np = (int)n;
    return 0;
}

/* Entry k of a, a device of the array gpus or nics of the slots pre
 * names, into d. */
static int slots_json_dev (json_object *a, const char *pre, bool gpu, size_t k, slots_dev_t *d,
                           tm_error_t *errp)
{
    json_object *e = json_object_array_get_idx (a, k);
    const char *key = gpu ? "gpus" : "nics";
    char what[64];

    snprintf (what, sizeof (what), "%s%s[%zu].", pre, key, k);
    if (!json_object_is_type (e, json_type_object))
        return errprintf (errp, "%s%s[%zu]: not an object", pre, key, k);
    d->kind = gpu ? SLOTS_GPU : SLOTS_NIC;
    return jsonfile_keys (e, what, gpu ? slots_gpu_keys : slots_nic_keys, errp) < 0 ||
                   slots_json_string (e, what, "busid", d->busid, sizeof (d->busid), errp) < 0 ||
                   slots_json_string (e, what, "name", d->name, sizeof (d->name), errp) < 0 ||
                   (!gpu &&
                    slots_json_string (e, what, "netdev", d->netdev, sizeof (d->netdev), errp) < 0)
               ? -1
               : 0;
}

slots_t *slots_from_json (json_object *o, const char *pre, tm_error_t *errp)
{
    json_object *gpus, *nics;
    slots_t *s;
    size_t ng, nn;
    char name[64], what[64];

    /* pre without its dot names the whole */
    snprintf (name, sizeof (name), "%s", pre);
    if (name[0] && name[strlen (name) - 1] == '.')
        name[strlen (name) - 1] = '\0';
    if (!json_object_is_type (o, json_type_object)) {
        errprintf (errp, "%s: neither an object nor null", name);
        return NULL;
    }
    if (jsonfile_keys (o, pre, slots_keys, errp) < 0 ||
        jsonfile_get (o, pre, "gpus", json_type_array, &gpus, errp) < 0 ||
        jsonfile_get (o, pre, "nics", json_type_array, &nics, errp) < 0)
        return NULL;
    if ((ng = json_object_array_length (gpus)) > SLOTS_MAX_DEVICES ||
        (nn = json_object_array_length (nics)) > SLOTS_MAX_DEVICES) {
        errprintf (errp, "%s: more than %d GPUs or NICs", pre, SLOTS_MAX_DEVICES);
        return NULL;
    }
    if (!(s = calloc (1, sizeof (*s))) || !(s->gpu = calloc (ng + 1, sizeof (*s->gpu))) ||
        !(s->nic = calloc (nn + 1, sizeof (*s->nic))) ||
        !(s->slot = calloc (ng + 1, sizeof (*s->slot)))) {
        errnomem (errp);
        goto error;
    }
    s->ngpus = s->nslots = (int)ng;
    s->nnics = (int)nn;
    if (slots_json_string (o, pre, "note", s->note, sizeof (s->note), errp) < 0)
        goto error;
    for (size_t k = 0; k < nn; k++)
        if (slots_json_dev (nics, pre, false, k, &s->nic[k], errp) < 0)
            goto error;
    for (size_t k = 0; k < ng; k++) {
        json_object *e = json_object_array_get_idx (gpus, k);
        slot_t *sl = &s->slot[k];
        char near[16];
        int m;

        if (slots_json_dev (gpus, pre, true, k, &s->gpu[k], errp) < 0)
            goto error;
        snprintf (what, sizeof (what), "%sgpus[%zu].", pre, k);
        sl->gpu = (int)k;
        if (slots_json_read_ints (e, what, "nics", (int)nn, 0, (int)nn - 1, &sl->nic, &sl->nnics,
                                  errp) < 0 ||
            slots_json_read_ints (e, what, "cpus", SLOTS_MAX_CPUS, 0, INT32_MAX, &sl->cpu,
                                  &sl->ncpus, errp) < 0 ||
            slots_json_string (e, what, "near", near, sizeof (near), errp) < 0)
            goto error;
        for (m = SLOTS_NEAR_NONE; m <= SLOTS_NEAR_SWITCH; m++)
            if (strcmp (near, slots_near_name ((slots_near_t)m)) == 0)
                break;
        if (m > SLOTS_NEAR_SWITCH) {
            errprintf (errp, "%snear: '%s', expected switch, package, machine or none", what,
                       errsafe (near, 16));
            goto error;
        }
        sl->near = (slots_near_t)m;
    }
    if (slots_check (s, name, errp) < 0)
        goto error;
    return s;
error:
    slots_free (s);
    return NULL;
}
