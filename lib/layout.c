/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layout.c: srun's default step layout and the hostfile.  See layout.h.
 *
 * layout_default follows Slurm 22.05.8 step by step (file:line in the
 * comments refer to that tree, research notes §1.3):
 *
 *   _opt_verify (opt.c:1194-1297)     derived -n, -N shrunk to -n,
 *                                     --ntasks-per-node dropped on mismatch
 *   _set_ntasks (srun_job.c:1627)     -n from -c and the allocation's CPUs
 *   launch.c:200-260, 408-426         step min/max nodes, cpu_count, default
 *                                     distribution
 *   step_mgr.c:1503-1581, 833-932     node count raised to hold cpu_count on
 *                                     equal nodes; the first nodes picked
 *   step_mgr.c:2748-2780              the step's cpus per task
 *   slurm_step_layout.c:404-520       tasks each node can take
 *   slurm_step_layout.c:629-760       block (fake cyclic, or pack) and cyclic
 *
 * The per-node counts of block and cyclic come in closed form rather than
 * round by round, so that a large step costs O(nodes log cpus): the
 * rounds of both fill every node up to a limit, one task per node and
 * round in node order ("water filling"), and block's over-subscription
 * then deals the rest one per node and round.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "lib/layout.h"

/* How much of an untrusted string goes into a message. */
#define LAYOUT_QUOTE_MAX 64

/* A reason for people into why, as snprintf would; returns 1. */
static int __attribute__ ((format (printf, 3, 4)))
layout_why (char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;

    if (why && whylen > 0) {
        va_start (ap, fmt);
        vsnprintf (why, whylen, fmt, ap);
        va_end (ap);
    }
    return 1;
}

/* The allocation */

void layout_alloc_destroy (layout_alloc_t *a)
{
    if (!a)
        return;
    if (a->nodes)
        for (int i = 0; i < a->nnodes; i++)
            free (a->nodes[i]);
    free (a->nodes);
    free (a->cpus);
    free (a);
}

static int layout_cmp_names (const void *x, const void *y)
{
    return strcmp (*(char *const *)x, *(char *const *)y);
}

layout_alloc_t *layout_alloc_create (int nnodes, const char *const *nodes,
                                     const char *cpus_per_node, tm_error_t *errp)
{
    layout_alloc_t *a = NULL;
    char **sorted = NULL;
    char q[LAYOUT_QUOTE_MAX * 4 + 8];

    if (nnodes < 1 || !nodes || !cpus_per_node) {
        errno = EINVAL;
        errprintf (errp, "allocation: no nodes");
        return NULL;
    }
    if (!(a = calloc (1, sizeof (*a))) || !(a->nodes = calloc ((size_t)nnodes, sizeof (char *))) ||
        !(a->cpus = calloc ((size_t)nnodes, sizeof (int)))) {
        errprintf (errp, "allocation: out of memory");
        goto error;
    }
    a->nnodes = nnodes;
    for (int i = 0; i < nnodes; i++) {
        if (!nodes[i] || nodes[i][0] == '\0') {
            errno = EINVAL;
            errprintf (errp, "allocation: node %d of %d has no name", i, nnodes);
            goto error;
        }
        if (!(a->nodes[i] = strdup (nodes[i]))) {
            errprintf (errp, "allocation: out of memory");
            goto error;
        }
    }
    if (!(sorted = malloc ((size_t)nnodes * sizeof (char *)))) {
        errprintf (errp, "allocation: out of memory");
        goto error;
    }
    memcpy (sorted, a->nodes, (size_t)nnodes * sizeof (char *));
    qsort (sorted, (size_t)nnodes, sizeof (char *), layout_cmp_names);
    for (int i = 1; i < nnodes; i++)
        if (strcmp (sorted[i - 1], sorted[i]) == 0) {
            errno = EINVAL;
            errprintf (errp, "allocation: node '%s' is listed twice",
                       errquote (sorted[i], LAYOUT_QUOTE_MAX, q, sizeof (q)));
            goto error;
        }
    free (sorted);
    sorted = NULL;
    if (layout_parse_cpus (cpus_per_node, nnodes, a->cpus, errp) < 0)
        goto error;
    return a;
error:
    free (sorted);
    layout_alloc_destroy (a);
    return NULL;
}

/* One decimal number >= 1 at *p, at most INT_MAX, advancing *p. */
static bool layout_number (const char **p, int *v)
{
    long long x = 0;
    const char *s = *p;

    if (*s < '0' || *s > '9')
        return false;
    while (*s >= '0' && *s <= '9') {
        x = x * 10 + (*s++ - '0');
        if (x > INT_MAX)
            return false;
    }
    if (x < 1)
        return false;
    *v = (int)x;
    *p = s;
    return true;
}

int layout_parse_cpus (const char *s, int nnodes, int *cpus, tm_error_t *errp)
{
    char q[LAYOUT_QUOTE_MAX * 4 + 8];
    const char *p = s;
    long long filled = 0;
    int item = 0;

    if (!s || !cpus || nnodes < 1) {
        errno = EINVAL;
        return errprintf (errp, "CPUs per node: nothing to parse");
    }
    if (*p == '\0') {
        errno = EINVAL;
        return errprintf (errp, "CPUs per node '': empty");
    }
    for (;;) {
        int count, reps = 1;

        item++;
        if (!layout_number (&p, &count)) {
            errno = EINVAL;
            return errprintf (errp, "CPUs per node '%s': item %d: expected a CPU count 1..%d",
                              errquote (s, LAYOUT_QUOTE_MAX, q, sizeof (q)), item, INT_MAX);
        }
        if (*p == '(') {
            p++;
            if (*p++ != 'x' || !layout_number (&p, &reps) || *p++ != ')') {
                errno = EINVAL;
                return errprintf (errp,
                                  "CPUs per node '%s': item %d: expected a repeat count '(xN)', "
                                  "N 1..%d",
                                  errquote (s, LAYOUT_QUOTE_MAX, q, sizeof (q)), item, INT_MAX);
            }
        }
        if (filled + reps <= nnodes)
            for (int k = 0; k < reps; k++)
                cpus[filled + k] = count;
        filled += reps;
        if (*p == '\0')
            break;
        if (*p++ != ',' || *p == '\0') {
            errno = EINVAL;
            return errprintf (errp, "CPUs per node '%s': item %d: expected ',' between items",
                              errquote (s, LAYOUT_QUOTE_MAX, q, sizeof (q)), item);
        }
    }
    if (filled != nnodes) {
        errno = EINVAL;
        return errprintf (errp, "CPUs per node '%s' counts %lld nodes, the node list has %d",
                          errquote (s, LAYOUT_QUOTE_MAX, q, sizeof (q)), filled, nnodes);
    }
    return 0;
}

/* srun's default layout */

typedef enum {
    LAYOUT_DIST_UNSET,
    LAYOUT_DIST_BLOCK,
    LAYOUT_DIST_CYCLIC,
} layout_dist_t;

/* The node-level distribution of s as slurm_option_get prints it (NULL,
 * "block", "cyclic:fcyclic", "block,pack", "nopack", "plane=4", ...), and
 * its pack flag (-1 none, 0 nopack, 1 pack).  1 with why set when the
 * distribution is not one we predict.
 */
static int layout_dist_parse (const char *s, layout_dist_t *dist, int *pack, char *why,
                              size_t whylen)
{
    char q[LAYOUT_QUOTE_MAX * 4 + 8];
    const char *comma, *flag = NULL;
    size_t baselen, nodelen;

    *dist = LAYOUT_DIST_UNSET;
    *pack = -1;
    if (!s || s[0] == '\0')
        return 0;
    if ((comma = strchr (s, ','))) {
        baselen = (size_t)(comma - s);
        flag = comma + 1;
    } else if (strcmp (s, "pack") == 0 || strcmp (s, "nopack") == 0) {
        baselen = 0;
        flag = s;
    } else
        baselen = strlen (s);
    if (flag) {
        if (strcmp (flag, "pack") == 0)
            *pack = 1;
        else if (strcmp (flag, "nopack") == 0)
            *pack = 0;
        else
            return layout_why (why, whylen, "distribution '%s' is not predicted",
                               errquote (s, LAYOUT_QUOTE_MAX, q, sizeof (q)));
    }
    if (baselen == 0)
        return 0;
    nodelen = strcspn (s, ":,");
    if (nodelen == 5 && strncmp (s, "block", 5) == 0)
        *dist = LAYOUT_DIST_BLOCK;
    else if (nodelen == 6 && strncmp (s, "cyclic", 6) == 0)
        *dist = LAYOUT_DIST_CYCLIC;
    else
        return layout_why (why, whylen, "distribution '%s' is not predicted",
                           errquote (s, LAYOUT_QUOTE_MAX, q, sizeof (q)));
    return 0;
}

/* Fill k nodes of limits lim[] with n <= sum(lim) tasks, one per node and
 * round in node order, a node taking part in rounds 0..lim[i]-1: the rounds
 * of _task_layout_cyclic, and of _task_layout_block before it
 * over-subscribes.
 */
static void layout_fill (int k, const long long *lim, long long n, int *t)
{
    long long lo = 0, hi = 0, sum = 0;

    for (int i = 0; i < k; i++)
        if (lim[i] > hi)
            hi = lim[i];
    /* the most whole rounds R with sum(min(lim, R)) <= n */
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2, s = 0;

        for (int i = 0; i < k; i++)
            s += lim[i] < mid ? lim[i] : mid;
        if (s <= n)
            lo = mid;
        else
            hi = mid - 1;
    }
    for (int i = 0; i < k; i++) {
        t[i] = (int)(lim[i] < lo ? lim[i] : lo);
        sum += t[i];
    }
    /* the last, partial round: the first nodes with room */
    for (int i = 0; i < k && sum < n; i++)
        if (lim[i] > lo) {
            t[i]++;
            sum++;
        }
}

/* Tasks per node of n tasks on k nodes able to take cap[] tasks each
 * (slurm_step_layout.c:629-760).
 */
static void layout_spread (int k, const long long *cap, long long n, layout_dist_t dist, bool pack,
                           long long *lim, int *t)
{
    long long total = 0, extra;

    for (int i = 0; i < k; i++)
        total += cap[i];
    extra = n > total ? n - total : 0;
    if (dist == LAYOUT_DIST_CYCLIC) {
        /* over-subscription from the start: cap + ceil(extra / k) each */
        long long over = (extra + k - 1) / k;

        for (int i = 0; i < k; i++)
            lim[i] = cap[i] + over;
        layout_fill (k, lim, n, t);
        return;
    }
    if (pack) {
        /* one task per node, then fill node by node, then round-robin */
        long long left = n;

        for (int i = 0; i < k; i++) {
            t[i] = left > 0 ? 1 : 0;
            left -= t[i];
        }
        for (int i = 0; i < k && left > 0; i++) {
            long long add = cap[i] - t[i] < left ? cap[i] - t[i] : left;

            t[i] += (int)add;
            left -= add;
        }
        for (int i = 0; i < k; i++)
            t[i] += (int)(left / k + (i < left % k ? 1 : 0));
        return;
    }
    /* fake cyclic up to the capacities, then one per node and round */
    layout_fill (k, cap, n - extra, t);
    for (int i = 0; i < k; i++)
        t[i] += (int)(extra / k + (i < extra % k ? 1 : 0));
}

static int layout_int_cmp (const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;

    return (a > b) - (a < b);
}

/* Nodes by rank, then allocation order (slurm_step_layout.c
 * _cmp_node_rank); qsort_r is not C11, so the pairs are sorted whole. */
typedef struct {
    int rank, index;
} layout_ranked_t;

static int layout_ranked_cmp (const void *x, const void *y)
{
    const layout_ranked_t *a = x, *b = y;

    if (a->rank != b->rank)
        return (a->rank > b->rank) - (a->rank < b->rank);
    return (a->index > b->index) - (a->index < b->index);
}

int layout_node_order (int n, const int *node_rank, int *order)
{
    layout_ranked_t *v;

    for (int i = 0; i < n; i++)
        order[i] = i;
    if (!node_rank || n < 2)
        return 0;
    if (!(v = malloc ((size_t)n * sizeof (*v)))) {
        errno = ENOMEM;
        return -1;
    }
    for (int i = 0; i < n; i++)
        v[i] = (layout_ranked_t){node_rank[i], i};
    qsort (v, (size_t)n, sizeof (*v), layout_ranked_cmp);
    for (int i = 0; i < n; i++)
        order[i] = v[i].index;
    free (v);
    return 0;
}

/* What srun and slurmctld work out for a step, stage after stage. */
typedef struct {
    layout_dist_t dist;
    int pack;
    long long n;              /* tasks */
    bool ntasks_set, uniform; /* uniform: every node has the same CPUs */
    long long cpu_sum, cpu_count;
    int nmin, nmax, nh, tpn, c; /* nodes asked, had; tasks a node; CPUs a task */
    int smin, smax, k, cpt;     /* the step's node range, nodes, CPUs a task */
} layout_calc_t;

/* The allocation and the request, checked; the CPUs' sum. */
static int layout_check (const layout_alloc_t *a, const layout_request_t *r, layout_calc_t *x,
                         tm_error_t *errp)
{
    x->uniform = true;
    for (int i = 0; i < a->nnodes; i++) {
        if (a->cpus[i] < 1) {
            errno = EINVAL;
            return errprintf (errp, "step layout: node %d of the allocation has %d CPUs", i,
                              a->cpus[i]);
        }
        if (a->cpus[i] != a->cpus[0])
            x->uniform = false;
        x->cpu_sum += a->cpus[i];
    }
    if (r->ntasks < 1 || r->nodes_min < 1 || (r->nodes_max != 0 && r->nodes_max < r->nodes_min) ||
        r->tasks_per_node < 0 || r->cpus_per_task < 0) {
        errno = EINVAL;
        return errprintf (errp,
                          "step layout: invalid request (ntasks %d, nodes %d-%d, "
                          "ntasks-per-node %d, cpus-per-task %d)",
                          r->ntasks, r->nodes_min, r->nodes_max, r->tasks_per_node,
                          r->cpus_per_task);
    }
    return 0;
}

/* The step's task and node counts as srun settles them. */
static int layout_counts (const layout_alloc_t *a, const layout_request_t *r, layout_calc_t *x,
                          char *why, size_t whylen)
{
    int J = a->nnodes;

    x->n = r->ntasks;
    x->ntasks_set = r->ntasks_set != 0;
    x->nmin = r->nodes_min;
    x->nmax = r->nodes_max;
    x->tpn = r->tasks_per_node;
    x->c = r->cpus_per_task;
    /* _opt_verify (opt.c:1194-1297), nodes always set in an allocation */
    if ((x->nmin == x->nmax || x->nmax == 0) && !x->ntasks_set) {
        x->n = x->nmin;
        if (x->tpn) {
            x->n *= x->tpn;
            x->ntasks_set = true; /* implicit */
        }
    }
    if (r->ntasks_set) {
        if (x->n < x->nmax)
            x->nmax = (int)x->n;
        if (x->n < x->nmin) {
            x->nmin = (int)x->n;
            if (x->nmax && x->nmin > x->nmax)
                x->nmax = x->nmin;
        }
        if (x->tpn && x->tpn != x->n / x->nmin)
            x->tpn = 0;
    }
    if (x->nmax == 0)
        x->nmax = x->nmin; /* srun_job.c:402-403 */
    if (x->nmin != x->nmax)
        return layout_why (why, whylen, "node count range %d-%d: srun's choice is not predicted",
                           x->nmin, x->nmax);
    if (x->nmin > J)
        return layout_why (why, whylen, "the step asks for %d nodes, the allocation has %d",
                           x->nmin, J);
    x->nh = x->nmax < J ? x->nmax : J; /* srun_job.c:404-406 */
    /* _set_ntasks (srun_job.c:1627-1648) */
    if (!x->ntasks_set) {
        long long cnt = 0;

        if (x->c)
            for (int i = 0; i < J; i++)
                cnt += a->cpus[i] / x->c;
        x->n = cnt > x->nh ? cnt : x->nh;
    }
    if (x->n > INT_MAX)
        return layout_why (why, whylen, "the step would have %lld tasks", x->n);
    return 0;
}

/* The step request (launch.c:200-260, 408-426), its nodes (step_mgr.c:
 * 1503-1581, _opt_node_cnt, 1695-1752) and its CPUs a task
 * (_calc_cpus_per_task, step_mgr.c:2748-2780).
 */
static int layout_nodes (const layout_alloc_t *a, const layout_request_t *r, layout_calc_t *x,
                         char *why, size_t whylen)
{
    int J = a->nnodes;

    x->smax = x->nh;
    x->smin = x->nmin < x->nh ? x->nmin : x->nh;
    x->cpu_count = r->overcommit ? x->smin : x->c ? x->n * x->c : x->n;
    if (x->dist == LAYOUT_DIST_UNSET)
        x->dist = x->n <= x->smin ? LAYOUT_DIST_CYCLIC : LAYOUT_DIST_BLOCK;
    if (x->uniform) {
        long long need = (x->cpu_count + a->cpus[0] - 1) / a->cpus[0];

        if (need > x->smin) {
            if (need > x->smax)
                return layout_why (why, whylen,
                                   "the step needs %lld CPUs, %d nodes of %d CPUs have %lld: "
                                   "srun would fail",
                                   x->cpu_count, x->smax, a->cpus[0],
                                   (long long)x->smax * a->cpus[0]);
            x->smin = (int)need;
        }
    } else if (x->smin < J)
        return layout_why (why, whylen,
                           "%d of %d nodes with unequal CPU counts: slurmctld's choice is "
                           "not predicted",
                           x->smin, J);
    else if (x->cpu_count > x->cpu_sum)
        return layout_why (why, whylen,
                           "the step needs %lld CPUs, the allocation has %lld: srun would "
                           "fail",
                           x->cpu_count, x->cpu_sum);
    x->k = x->smin;
    x->cpt = 0;
    if (x->cpu_count % x->n == 0) {
        long long left = x->n;

        x->cpt = x->cpu_count / x->n < 1 ? 1 : (int)(x->cpu_count / x->n);
        for (int i = 0; i < J && x->cpt; i++) {
            if (x->cpt > a->cpus[i])
                x->cpt = 0;
            else
                left -= a->cpus[i] / x->cpt;
        }
        if (left > 0)
            x->cpt = 0;
    }
    if (x->cpt < 1)
        x->cpt = 1; /* _init_task_layout */
    return 0;
}

int layout_default (const layout_alloc_t *a, const layout_request_t *r, layout_step_t *step,
                    int *counts, char *why, size_t whylen, tm_error_t *errp)
{
    layout_calc_t x = {0};
    int rc, J, *order = NULL, *t = NULL;
    long long *cap = NULL, *lim = NULL;
    bool topo;

    if (why && whylen > 0)
        why[0] = '\0';
    if (!a || !r || !step || !counts || !a->cpus || a->nnodes < 1) {
        errno = EINVAL;
        return errprintf (errp, "step layout: no allocation");
    }
    J = a->nnodes;
    if ((rc = layout_check (a, r, &x, errp)) != 0)
        return rc;
    if (layout_dist_parse (r->distribution, &x.dist, &x.pack, why, whylen))
        return 1;
    if ((rc = layout_counts (a, r, &x, why, whylen)) != 0 ||
        (rc = layout_nodes (a, r, &x, why, whylen)) != 0)
        return rc;
    rc = -1;
    if (!(cap = calloc ((size_t)x.k, sizeof (*cap))) ||
        !(lim = calloc ((size_t)x.k, sizeof (*lim))) ||
        !(order = malloc ((size_t)J * sizeof (*order))) ||
        !(t = calloc ((size_t)x.k, sizeof (*t))) ||
        layout_node_order (J, r->node_rank, order) < 0) {
        errprintf (errp, "step layout: out of memory");
        goto out;
    }
    /* The step's nodes: the first k in the topology's order where Slurm
     * ranks them (stepmgr.c _pick_step_nodes, 26.05), else in allocation
     * order (a job's later steps on some of its nodes start where the last
     * left off, next_step_node_inx, which is not known here); a cyclic
     * step deals over them in allocation order, a block one in the
     * topology's (slurm_step_layout.c _task_layout_topo, which never
     * packs).
     */
    topo = r->node_rank && x.dist != LAYOUT_DIST_CYCLIC;
    if (r->node_rank && !topo)
        qsort (order, (size_t)x.k, sizeof (*order), layout_int_cmp);
    /* tasks each node can take (slurm_step_layout.c:464-486) */
    for (int i = 0; i < x.k; i++) {
        cap[i] = a->cpus[order[i]] / x.cpt;
        if (cap[i] == 0)
            cap[i] = 1;
        if (x.tpn && cap[i] > (long long)x.tpn * x.cpt)
            cap[i] = (long long)x.tpn * x.cpt;
    }
    for (int i = 0; i < J; i++)
        counts[i] = 0;
    layout_spread (x.k, cap, x.n, x.dist, !topo && (x.pack == 1 || (x.pack == -1 && r->pack_nodes)),
                   lim, t);
    for (int i = 0; i < x.k; i++)
        counts[order[i]] = t[i];
    step->ntasks = (int)x.n;
    step->nnodes = x.k;
    step->cyclic = x.dist == LAYOUT_DIST_CYCLIC;
    step->topo = topo;
    rc = 0;
out:
    free (cap);
    free (lim);
    free (order);
    free (t);
    return rc;
}

/* Checks and the hostfile */

int layout_check_ranks (int nnodes, const int *counts, int ntasks, const int *node_of_rank,
                        char *const *names, tm_error_t *errp)
{
    char q[LAYOUT_QUOTE_MAX * 4 + 8];
    int *have;

    if (nnodes < 1 || ntasks < 1 || !counts || !node_of_rank) {
        errno = EINVAL;
        return errprintf (errp, "rank check: no ranks or no nodes");
    }
    if (!(have = calloc ((size_t)nnodes, sizeof (int))))
        return errprintf (errp, "rank check: out of memory");
    for (int rank = 0; rank < ntasks; rank++) {
        int node = node_of_rank[rank];

        if (node < 0 || node >= nnodes) {
            free (have);
            errno = EINVAL;
            return errprintf (errp, "rank %d is placed on node %d, outside 0..%d", rank, node,
                              nnodes - 1);
        }
        have[node]++;
    }
    for (int i = 0; i < nnodes; i++)
        if (have[i] != counts[i]) {
            int got = have[i];

            free (have);
            errno = EINVAL;
            if (names && names[i])
                return errprintf (errp, "node %s gets %d rank%s, srun's layout gives it %d",
                                  errquote (names[i], LAYOUT_QUOTE_MAX, q, sizeof (q)), got,
                                  got == 1 ? "" : "s", counts[i]);
            return errprintf (errp, "node %d gets %d rank%s, srun's layout gives it %d", i, got,
                              got == 1 ? "" : "s", counts[i]);
        }
    free (have);
    return 0;
}

int layout_check_name (const char *name, tm_error_t *errp)
{
    char q[LAYOUT_QUOTE_MAX * 4 + 8];
    size_t len;

    if (!name || name[0] == '\0') {
        errno = EINVAL;
        return errprintf (errp, "node name is empty");
    }
    if ((len = strlen (name)) > LAYOUT_NAME_MAX) {
        errno = EINVAL;
        return errprintf (errp, "node name '%s' is too long for a hostfile (%zu > %d bytes)",
                          errquote (name, LAYOUT_QUOTE_MAX, q, sizeof (q)), len, LAYOUT_NAME_MAX);
    }
    if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') ||
          (name[0] >= '0' && name[0] <= '9'))) {
        errno = EINVAL;
        return errprintf (errp, "node name '%s' does not start with a letter or digit",
                          errquote (name, LAYOUT_QUOTE_MAX, q, sizeof (q)));
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)name[i];

        if (ch <= 0x20 || ch == 0x7f) {
            errno = EINVAL;
            return errprintf (errp, "node name '%s' has a space or control character at byte %zu",
                              errquote (name, LAYOUT_QUOTE_MAX, q, sizeof (q)), i + 1);
        }
        if (strchr (",*#[]", ch)) {
            errno = EINVAL;
            return errprintf (errp, "node name '%s' has a '%c', which a hostfile cannot carry",
                              errquote (name, LAYOUT_QUOTE_MAX, q, sizeof (q)), ch);
        }
    }
    return 0;
}

/* Append one formatted piece of a mapping: into buf while it fits, and
 * always counted in *used.
 */
static void __attribute__ ((format (printf, 4, 5)))
pmi_append (char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (*used < len ? buf + *used : NULL, *used < len ? len - *used : 0, fmt, ap);
    va_end (ap);
    *used += n > 0 ? (size_t)n : 0;
}

int layout_pmi_mapping (int ntasks, const int *node_of_rank, char *buf, size_t len,
                        tm_error_t *errp)
{
    size_t cap = len < LAYOUT_PMI_MAPPING_MAX + 1 ? len : LAYOUT_PMI_MAPPING_MAX + 1, used = 0;
    long start = 0, count = 0, size = 0; /* the open block */

    if (ntasks < 1 || !node_of_rank || !buf || len < 1) {
        errno = EINVAL;
        return errprintf (errp, "process mapping: no ranks or no room");
    }
    pmi_append (buf, cap, &used, "(vector");
    for (int rank = 0, k; rank < ntasks; rank += k) {
        int node = node_of_rank[rank];

        if (node < 0) {
            errno = EINVAL;
            return errprintf (errp, "process mapping: rank %d is on node %d", rank, node);
        }
        for (k = 1; rank + k < ntasks && node_of_rank[rank + k] == node; k++)
            ;
        /* A run of k ranks on the node after the open block's last node,
         * as many as each of its nodes has, extends it.
         */
        if (count && k == size && node == start + count) {
            count++;
            continue;
        }
        if (count)
            pmi_append (buf, cap, &used, ",(%ld,%ld,%ld)", start, count, size);
        start = node, count = 1, size = k;
    }
    pmi_append (buf, cap, &used, ",(%ld,%ld,%ld))", start, count, size);
    if (used >= cap) {
        buf[0] = '\0';
        errno = E2BIG;
        return errprintf (errp, "the process mapping takes %zu bytes, more than the %zu %s", used,
                          cap - 1,
                          cap - 1 == LAYOUT_PMI_MAPPING_MAX ? "PMI passes whole" : "given");
    }
    return 0;
}

int layout_pmi_mapping_parse (const char *s, int ntasks, int *node_of_rank, tm_error_t *errp)
{
    char q[LAYOUT_QUOTE_MAX * 4 + 8];
    const char *p = s, *why = NULL;
    int rank = 0;

    if (!s || ntasks < 1 || !node_of_rank) {
        errno = EINVAL;
        return errprintf (errp, "process mapping: no mapping or no ranks");
    }
    if (strncmp (p, "(vector", 7)) {
        why = "does not start with (vector";
        goto bad;
    }
    for (p += 7; *p == ','; p++) {
        long v[3]; /* first node, nodes, ranks on each */

        if (*++p != '(') {
            why = "a block does not start with (";
            goto bad;
        }
        for (int i = 0; i < 3; i++) {
            char *end;

            /* Decimal only: a PMI client reads a leading 0 as octal. */
            if (!isdigit ((unsigned char)*++p) || (*p == '0' && isdigit ((unsigned char)p[1]))) {
                why = "a block holds something other than three decimal numbers";
                goto bad;
            }
            errno = 0;
            v[i] = strtol (p, &end, 10);
            p = end;
            if (errno || v[i] > INT_MAX || *p != (i < 2 ? ',' : ')')) {
                why = "a block holds something other than three decimal numbers";
                goto bad;
            }
        }
        if (v[1] < 1 || v[2] < 1) {
            why = "a block has no nodes or no ranks";
            goto bad;
        }
        if (v[0] + v[1] - 1 > INT_MAX) {
            why = "a block's nodes go beyond node 2147483647";
            goto bad;
        }
        if ((long long)v[1] * v[2] > ntasks - rank) {
            why = "its blocks cover more ranks than the step has";
            goto bad;
        }
        for (long n = 0; n < v[1]; n++)
            for (long k = 0; k < v[2]; k++)
                node_of_rank[rank++] = (int)(v[0] + n);
    }
    if (*p != ')' || p[1])
        why = "it does not end with the blocks and )";
    else if (rank != ntasks)
        why = "its blocks cover fewer ranks than the step has";
    if (!why)
        return 0;
bad:
    errno = EINVAL;
    return errprintf (errp, "process mapping '%s' for %d ranks: %s",
                      errquote (s, LAYOUT_QUOTE_MAX, q, sizeof (q)), ntasks, why);
}
