/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inside.c: the inside of a node (inside.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/inside.h"

const char *inside_level_name (inside_level_t l)
{
    switch (l) {
    case INSIDE_L3:
        return "l3";
    case INSIDE_PACKAGE:
        return "package";
    case INSIDE_MACHINE:
        return "machine";
    }
    return "?";
}

static inside_t *inside_alloc (int ncpus, int nl3)
{
    inside_t *in = calloc (1, sizeof (*in));

    if (!in)
        return NULL;
    in->ncpus = ncpus;
    in->nl3 = nl3;
    in->cpu = calloc ((size_t)ncpus, sizeof (int));
    in->l3 = calloc ((size_t)ncpus, sizeof (int));
    in->package = calloc ((size_t)(nl3 > 0 ? nl3 : 1), sizeof (int));
    if (!in->cpu || !in->l3 || !in->package) {
        inside_destroy (in);
        return NULL;
    }
    for (int l = 0; l < INSIDE_LEVELS; l++)
        in->lat_us[l] = in->bw_MBps[l] = NAN;
    return in;
}

void inside_destroy (inside_t *in)
{
    if (!in)
        return;
    free (in->cpu);
    free (in->l3);
    free (in->package);
    free (in);
}

typedef struct {
    int cpu, dom, pkg;
} inside_triple_t;

static int inside_triple_cmp (const void *a, const void *b)
{
    const inside_triple_t *x = a, *y = b;

    return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* The index of id in ids[0..*n), appended when new; -1 when ids is full. */
static int inside_number (int *ids, int *n, int id)
{
    for (int k = 0; k < *n; k++)
        if (ids[k] == id)
            return k;
    ids[*n] = id;
    return (*n)++;
}

inside_t *inside_create (int ncpus, const int *cpu, const int *dom, const int *pkg,
                         tm_error_t *errp)
{
    inside_triple_t *t = NULL;
    int *doms = NULL, *pkgs = NULL, *dompkg = NULL, ndom = 0, npkg = 0;
    inside_t *in = NULL;

    if (ncpus < 1 || ncpus > INSIDE_MAX_CPUS) {
        errno = EINVAL;
        errprintf (errp, "%d CPUs, expected 1 to %d", ncpus, INSIDE_MAX_CPUS);
        return NULL;
    }
    if (!(t = malloc ((size_t)ncpus * sizeof (*t))) ||
        !(doms = malloc ((size_t)ncpus * sizeof (int))) ||
        !(pkgs = malloc ((size_t)ncpus * sizeof (int))) ||
        !(dompkg = malloc ((size_t)ncpus * sizeof (int))))
        goto nomem;
    for (int k = 0; k < ncpus; k++)
        t[k] = (inside_triple_t){cpu[k], dom[k], pkg[k]};
    qsort (t, (size_t)ncpus, sizeof (*t), inside_triple_cmp);
    for (int k = 0; k < ncpus; k++) {
        if (t[k].cpu < 0 || (k > 0 && t[k].cpu == t[k - 1].cpu)) {
            errno = EINVAL;
            errprintf (errp, t[k].cpu < 0 ? "CPU %d: a negative OS index" : "CPU %d twice",
                       t[k].cpu);
            goto out;
        }
    }
    /* Domains in the order of their first CPU, packages in the order of
     * their first domain: the numbering inside_check asks of a file.
     * Quadratic in the domains, which a node has at most a few dozen of.
     */
    for (int k = 0; k < ncpus; k++) {
        int before = ndom, d = inside_number (doms, &ndom, t[k].dom);

        if (d == before)
            dompkg[d] = t[k].pkg;
        else if (dompkg[d] != t[k].pkg) {
            errno = EINVAL;
            errprintf (errp, "CPU %d: its L3 domain is in two packages", t[k].cpu);
            goto out;
        }
    }
    if (ndom > INSIDE_MAX_L3) {
        errno = EINVAL;
        errprintf (errp, "%d L3 domains, at most %d", ndom, INSIDE_MAX_L3);
        goto out;
    }
    if (!(in = inside_alloc (ncpus, ndom)))
        goto nomem;
    for (int d = 0; d < ndom; d++)
        in->package[d] = inside_number (pkgs, &npkg, dompkg[d]);
    in->npackages = npkg;
    for (int k = 0; k < ncpus; k++) {
        in->cpu[k] = t[k].cpu;
        in->l3[k] = inside_number (doms, &ndom, t[k].dom);
    }
    goto out;
nomem:
    errnomem (errp);
out:
    free (t);
    free (doms);
    free (pkgs);
    free (dompkg);
    return in;
}

inside_t *inside_copy (const inside_t *in, tm_error_t *errp)
{
    inside_t *c = inside_alloc (in->ncpus, in->nl3);

    if (!c) {
        errnomem (errp);
        return NULL;
    }
    memcpy (c->cpu, in->cpu, (size_t)in->ncpus * sizeof (int));
    memcpy (c->l3, in->l3, (size_t)in->ncpus * sizeof (int));
    memcpy (c->package, in->package, (size_t)in->nl3 * sizeof (int));
    c->npackages = in->npackages;
    memcpy (c->lat_us, in->lat_us, sizeof (c->lat_us));
    memcpy (c->bw_MBps, in->bw_MBps, sizeof (c->bw_MBps));
    return c;
}

int inside_check (const inside_t *in, const char *what, tm_error_t *errp)
{
    int next;

    errno = EINVAL;
    if (in->ncpus < 1 || in->ncpus > INSIDE_MAX_CPUS)
        return errprintf (errp, "%s: %d CPUs, expected 1 to %d", what, in->ncpus, INSIDE_MAX_CPUS);
    if (in->nl3 < 1 || in->nl3 > in->ncpus || in->npackages < 1 || in->npackages > in->nl3)
        return errprintf (errp, "%s: %d L3 domains and %d packages for %d CPUs", what, in->nl3,
                          in->npackages, in->ncpus);
    if (in->nl3 > INSIDE_MAX_L3)
        return errprintf (errp, "%s: %d L3 domains, at most %d", what, in->nl3, INSIDE_MAX_L3);
    next = 0;
    for (int k = 0; k < in->ncpus; k++) {
        if (in->cpu[k] < 0 || (k > 0 && in->cpu[k] <= in->cpu[k - 1]))
            return errprintf (errp, "%s: CPU OS indexes not ascending at %d", what, in->cpu[k]);
        if (in->l3[k] < 0 || in->l3[k] > next || in->l3[k] >= in->nl3)
            return errprintf (errp, "%s: CPU %d: L3 domain %d out of order", what, in->cpu[k],
                              in->l3[k]);
        if (in->l3[k] == next)
            next++;
    }
    if (next != in->nl3)
        return errprintf (errp, "%s: %d L3 domains, %d with CPUs", what, in->nl3, next);
    next = 0;
    for (int d = 0; d < in->nl3; d++) {
        if (in->package[d] < 0 || in->package[d] > next || in->package[d] >= in->npackages)
            return errprintf (errp, "%s: L3 domain %d: package %d out of order", what, d,
                              in->package[d]);
        if (in->package[d] == next)
            next++;
    }
    if (next != in->npackages)
        return errprintf (errp, "%s: %d packages, %d with L3 domains", what, in->npackages, next);
    for (int l = 0; l < INSIDE_LEVELS; l++) {
        double lat = in->lat_us[l], bw = in->bw_MBps[l];

        if ((!isnan (lat) && !(isfinite (lat) && lat > 0)) ||
            (!isnan (bw) && !(isfinite (bw) && bw > 0)))
            return errprintf (errp, "%s: level %s: latency %g us, bandwidth %g MB/s", what,
                              inside_level_name ((inside_level_t)l), lat, bw);
    }
    errno = 0;
    return 0;
}

inside_level_t inside_domains_level (const inside_t *in, int a, int b)
{
    if (a == b)
        return INSIDE_L3;
    return in->package[a] == in->package[b] ? INSIDE_PACKAGE : INSIDE_MACHINE;
}

inside_level_t inside_level (const inside_t *in, int k, int l)
{
    return inside_domains_level (in, in->l3[k], in->l3[l]);
}

bool inside_same_shape (const inside_t *a, const inside_t *b)
{
    return a->ncpus == b->ncpus && a->nl3 == b->nl3 && a->npackages == b->npackages &&
           memcmp (a->cpu, b->cpu, (size_t)a->ncpus * sizeof (int)) == 0 &&
           memcmp (a->l3, b->l3, (size_t)a->ncpus * sizeof (int)) == 0 &&
           memcmp (a->package, b->package, (size_t)a->nl3 * sizeof (int)) == 0;
}

int inside_level_pair (const inside_t *in, inside_level_t l, int *a, int *b)
{
    /* first[x]: the first CPU of domain x (L3) or package x (the others),
     * -1 before it; a pair completes at the first CPU that meets an
     * earlier one at level l */
    int nx = l == INSIDE_L3 ? in->nl3 : in->npackages, *first = malloc ((size_t)nx * sizeof (int));
    int rc = -1;

    if (!first)
        return -1;
    for (int x = 0; x < nx; x++)
        first[x] = -1;
    for (int k = 0; k < in->ncpus && rc < 0; k++) {
        int d = in->l3[k], x = l == INSIDE_L3 ? d : in->package[d];

        if (l == INSIDE_MACHINE) {
            if (k > 0 && in->package[d] != in->package[in->l3[0]]) {
                *a = 0;
                *b = k;
                rc = 0;
            }
        } else if (first[x] < 0)
            first[x] = k;
        else if (l == INSIDE_L3 || in->l3[first[x]] != d) {
            *a = first[x];
            *b = k;
            rc = 0;
        }
    }
    free (first);
    return rc;
}

int inside_nlevels (const inside_t *in)
{
    return in->nl3 == 1 ? 1 : in->npackages == 1 ? 2 : 3;
}
