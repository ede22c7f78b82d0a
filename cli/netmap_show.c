/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netmap_show.c: a netmap as people read it (`topomap netmap show`). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/netmap_show.h"
#include "lib/jsonfile.h"
#include "lib/stats.h"
#include "lib/topology_links.h"

static void show_vertex (FILE *f, const netmap_t *nm, int v, int depth)
{
    const topo_t *t = nm->topo;

    fprintf (f, "%*s%s %d (level %.0f):", 4 + 2 * depth, "",
             t->model == TOPO_TREE ? "switch" : "cluster", v - t->nhosts, t->height[v]);
    for (int u = 0; u < t->nhosts; u++)
        if (t->parent[u] == v)
            fprintf (f, " %s", nm->hosts[u]);
    if (t->model == TOPO_GROUPS && t->signal == TOPO_SIGNAL_BANDWIDTH)
        fprintf (f, " (merged at %.1f ms/MB)", 1e3 * t->height[v]);
    else if (t->model == TOPO_GROUPS)
        fprintf (f, " (merged at %.1f us)", t->height[v]);
    fputc ('\n', f);
    for (int u = t->nhosts; u < t->nvertices; u++)
        if (t->parent[u] == v)
            show_vertex (f, nm, u, depth + 1);
}

static void show_matrix (FILE *f, const netmap_t *nm, const double *m, const char *title,
                         const char *fmt)
{
    int w = 8;
    for (int h = 0; h < nm->n; h++)
        if ((int)strlen (nm->hosts[h]) + 1 > w)
            w = (int)strlen (nm->hosts[h]) + 1;
    fprintf (f, "\n%s\n%*s", title, w, "");
    for (int b = 0; b < nm->n; b++)
        fprintf (f, "%*s", w, nm->hosts[b]);
    fputc ('\n', f);
    for (int a = 0; a < nm->n; a++) {
        fprintf (f, "%-*s", w, nm->hosts[a]);
        for (int b = 0; b < nm->n; b++) {
            double x = m[(size_t)a * (size_t)nm->n + (size_t)b];
            if (isnan (x))
                fprintf (f, "%*s", w, "-");
            else
                fprintf (f, fmt, w, x);
        }
        fputc ('\n', f);
    }
}

/* The figures of the pairs in x[0..n) (NaN: not measured): "median (min
 * to max)", or "not measured". */
static void show_spread (FILE *f, const char *what, double *x, long n)
{
    long m = 0;
    double lo = INFINITY, hi = -INFINITY;

    for (long k = 0; k < n; k++)
        if (!isnan (x[k])) {
            lo = fmin (lo, x[k]);
            hi = fmax (hi, x[k]);
            x[m++] = x[k];
        }
    if (m == 0)
        fprintf (f, "  %s not measured", what);
    else
        fprintf (f, "  %s %.1f (%.1f to %.1f)", what, stats_median (x, (int)m), lo, hi);
}

/* In place of the matrices, beyond SHOW_MATRICES_MAX hosts: the pairs by
 * how far apart the model puts them (a tree: the level of their nearest
 * common switch; groups: one group or two; no model: all), each class's
 * latency and bandwidth as median and range, and the nodes' own.
 */
static int show_levels (FILE *f, const netmap_t *nm)
{
    const topo_t *t = nm->topo;
    long n = nm->n, npairs = n * (n - 1) / 2;
    int *depth = t && t->model == TOPO_TREE ? topo_depths (t) : NULL, nclasses = 1;
    int *cls = malloc ((size_t)(npairs > 0 ? npairs : 1) * sizeof (*cls));
    double *lat = malloc ((size_t)(npairs > n ? npairs : n + 1) * sizeof (*lat));
    double *bw = malloc ((size_t)(npairs > n ? npairs : n + 1) * sizeof (*bw));
    int rc = -1;

    if (!cls || !lat || !bw || (t && t->model == TOPO_TREE && !depth)) {
        errno = ENOMEM;
        goto out;
    }
    for (long a = 0, k = 0; a < n; a++)
        for (long b = a + 1; b < n; b++, k++) {
            cls[k] = !t      ? 0
                     : depth ? topo_level (t, depth, (int)a, (int)b) - 1
                             : t->group[a] != t->group[b];
            if (cls[k] < 0)
                cls[k] = 0;
            if (cls[k] + 1 > nclasses)
                nclasses = cls[k] + 1;
        }
    fprintf (f, "\npairs (latency us one way, bandwidth MB/s: median (min to max); "
                "the matrices with --matrices)\n");
    for (int c = 0; c < nclasses; c++) {
        long m = 0;
        char what[64];

        for (long a = 0, k = 0; a < n; a++)
            for (long b = a + 1; b < n; b++, k++)
                if (cls[k] == c) {
                    lat[m] = NETMAP_AT (nm, lat_us, a, b);
                    bw[m++] = NETMAP_AT (nm, bw_MBps, a, b);
                }
        if (m == 0)
            continue;
        if (depth)
            snprintf (what, sizeof (what), "switch level %d", c + 1);
        else if (t)
            snprintf (what, sizeof (what), "%s", c ? "across groups" : "in one group");
        else
            snprintf (what, sizeof (what), "all");
        fprintf (f, "  %-16s %8ld pairs", what, m);
        show_spread (f, "latency", lat, m);
        show_spread (f, "bandwidth", bw, m);
        fputc ('\n', f);
    }
    for (long h = 0; h < n; h++) {
        lat[h] = NETMAP_AT (nm, lat_us, h, h);
        bw[h] = NETMAP_AT (nm, bw_MBps, h, h);
    }
    fprintf (f, "  %-16s %8ld nodes", "intra-node", n);
    show_spread (f, "latency", lat, n);
    show_spread (f, "bandwidth", bw, n);
    fputc ('\n', f);
    rc = 0;
out:
    free (depth);
    free (cls);
    free (lat);
    free (bw);
    return rc;
}

/* "n3 inside: 8 CPUs (0-3,8-11) in 4 L3 domains of 2 packages;
 * l3 0.2 us 40000 MB/s, package ..., machine not measured". */
/* CPUs cpu[0..n) ascending as ranges: "0-3,8". */
static void show_cpus (FILE *f, const int *cpu, int n)
{
    for (int k = 0, first = 1; k < n; k++) {
        int j = k;

        while (j + 1 < n && cpu[j + 1] == cpu[j] + 1)
            j++;
        fprintf (f, first ? "%d" : ",%d", cpu[k]);
        if (j > k)
            fprintf (f, "-%d", cpu[j]);
        first = 0;
        k = j;
    }
}

static void show_inside (FILE *f, const char *host, const inside_t *in)
{
    fprintf (f, "%s inside: %d CPU%s (", host, in->ncpus, in->ncpus == 1 ? "" : "s");
    show_cpus (f, in->cpu, in->ncpus);
    fprintf (f, ") in %d L3 domain%s of %d package%s", in->nl3, in->nl3 == 1 ? "" : "s",
             in->npackages, in->npackages == 1 ? "" : "s");
    for (int l = 0; l < INSIDE_LEVELS; l++) {
        const char *name = inside_level_name ((inside_level_t)l);

        if (isnan (in->lat_us[l]) || isnan (in->bw_MBps[l]))
            fprintf (f, "%s %s not measured", l ? "," : ";", name);
        else
            fprintf (f, "%s %s %.2f us %.0f MB/s", l ? "," : ";", name, in->lat_us[l],
                     in->bw_MBps[l]);
    }
    fputc ('\n', f);
}

/* "n1 slots: cuda0 mlx5_0 (switch, CPUs 0-1); .... NOTE", or "n1 slots:
 * none (no GPU)". */
static void show_slots (FILE *f, const char *host, const slots_t *s)
{
    fprintf (f, "%s slots:", host);
    if (s->nslots == 0)
        fprintf (f, " none");
    for (int k = 0; k < s->nslots; k++) {
        const slot_t *sl = &s->slot[k];

        fprintf (f, "%s %s", k ? ";" : "", s->gpu[sl->gpu].name);
        for (int j = 0; j < sl->nnics; j++) {
            const slots_dev_t *n = &s->nic[sl->nic[j]];

            fprintf (f, "%s%s", j ? "," : " ", n->name[0] ? n->name : n->netdev);
        }
        fprintf (f, " (%s, CPUs ", sl->nnics ? slots_near_name (sl->near) : "no NIC");
        show_cpus (f, sl->cpu, sl->ncpus);
        fputc (')', f);
    }
    if (s->note[0])
        fprintf (f, s->nslots ? ". %s" : " (%s)", s->note);
    fputc ('\n', f);
}

long netmap_pairs (const netmap_t *nm, long *measured, long *again)
{
    long pairs = 0;

    *measured = *again = 0;
    for (int a = 0; a < nm->n; a++)
        for (int b = a + 1; b < nm->n; b++) {
            pairs++;
            *measured += NETMAP_AT (nm, measured, a, b) > 0;
            *again += NETMAP_AT (nm, measured, a, b) > 1;
        }
    return pairs;
}

int netmap_show (FILE *f, const netmap_t *nm, const char *name, int matrices)
{
    char when[32] = "unknown time";
    const netmap_params_t *p = &nm->params;
    char concurrency[48] = "a whole round at once", lead[96] = "";

    if (p->concurrency > 0)
        snprintf (concurrency, sizeof (concurrency), "%d pair%s at once", p->concurrency,
                  p->concurrency == 1 ? "" : "s");

    long measured, again, pairs = netmap_pairs (nm, &measured, &again);
    if (jsonfile_format_time (nm->timestamp, when, sizeof (when)) < 0)
        snprintf (when, sizeof (when), "(time out of range)");
    /* A netmap nothing was measured for (made from a topology.conf) has
     * no probe to tell of: its figures are the file's.
     */
    if (pairs > 0 && measured == 0) {
        fprintf (f, "netmap %s: %d hosts, job %s, made %s, nothing measured\n", name, nm->n,
                 nm->jobid[0] ? nm->jobid : "unknown", when);
    } else {
        fprintf (f, "netmap %s: %d hosts, job %s, measured %s in %.3f s\n", name, nm->n,
                 nm->jobid[0] ? nm->jobid : "unknown", when, nm->measure_s);
        if (p->bw_enough_ms > 0)
            snprintf (lead, sizeof (lead), "lead %zu B, enough after %g ms, then ",
                      netmap_lead_bytes (p), p->bw_enough_ms);
        fprintf (f,
                 "probe: ping-pong %zu B, %d to %d samples to a 95%% CI within %g%%; "
                 "%sstream %d x %zu B; %s; budget %g s\n",
                 p->lat_bytes, p->min_samples, p->max_samples, p->ci_rel * 100, lead,
                 p->bw_messages, p->bw_bytes, concurrency, p->budget_s);
        double bound = netmap_measure_bound (nm);
        if (bound > 0)
            fprintf (f, "measuring: %.3f s against a lower bound of %.3f s (ratio %.2f)\n",
                     nm->measure_s, bound, nm->measure_s / bound);
    }
    if (pairs > 0) {
        fprintf (f, "pairs: %ld of %ld measured", measured, pairs);
        if (measured < pairs)
            fprintf (f, ", the others' figures from the tree");
        if (again > 0)
            fprintf (f, "; %ld measured again, in doubt (the better figures kept)", again);
        fputc ('\n', f);
    }
    if (!nm->topo)
        fprintf (f, "model: none\n");
    else {
        const topo_t *t = nm->topo;
        fprintf (f, "model: %s, %d %s, %d group%s:",
                 t->model == TOPO_GROUPS && t->signal == TOPO_SIGNAL_BANDWIDTH
                     ? "groups (hierarchical clustering on transfer time)"
                 : t->model == TOPO_GROUPS       ? "groups (hierarchical clustering on latency)"
                 : t->signal == TOPO_SIGNAL_SITE ? "tree (the site's topology.conf)"
                 : t->signal == TOPO_SIGNAL_BANDWIDTH ? "tree (the bandwidths fit a switch tree)"
                                                      : "tree (the latencies fit a switch tree)",
                 t->nvertices - t->nhosts,
                 t->model == TOPO_TREE ? (t->nvertices - t->nhosts == 1 ? "switch" : "switches")
                                       : (t->nvertices - t->nhosts == 1 ? "cluster" : "clusters"),
                 t->ngroups, t->ngroups == 1 ? "" : "s");
        for (int g = 0; g < t->ngroups; g++) {
            fprintf (f, " [");
            for (int h = 0, first = 1; h < t->nhosts; h++)
                if (t->group[h] == g) {
                    fprintf (f, first ? "%s" : " %s", nm->hosts[h]);
                    first = 0;
                }
            fprintf (f, "]");
        }
        fputc ('\n', f);
        if (t->model == TOPO_TREE && !isnan (t->residual))
            fprintf (f,
                     "fit: residual %.3f on %s (on its worst level, the median deviation of a "
                     "pair from the median of pairs as many switches apart)\n",
                     t->residual, t->signal == TOPO_SIGNAL_BANDWIDTH ? "bandwidth" : "latency");
        if (t->signal == TOPO_SIGNAL_SITE) {
            char slow[1024];
            if (topo_links_slow (nm, slow, sizeof (slow)) > 0)
                fprintf (f, "slow links (measured): %s\n", slow);
        }
        {
            char up[2048];
            if (topo_uplinks_text (nm, up, sizeof (up)) > 0)
                fprintf (f, "uplinks under load (every host below sending out at once): %s\n", up);
        }
        for (int v = 0; v < t->nvertices; v++)
            if (t->parent[v] == -1) {
                fprintf (f, "%s: ", t->model == TOPO_TREE ? "tree" : "dendrogram");
                if (topo_nested (f, t, (const char *const *)nm->hosts, v) < 0)
                    return -1;
                fputc ('\n', f);
                if (v >= t->nhosts)
                    show_vertex (f, nm, v, 0);
            }
    }
    if (matrices < 0 ? nm->n <= SHOW_MATRICES_MAX : matrices) {
        show_matrix (f, nm, nm->lat_us, "latency (us, one way; diagonal: intra-node)", "%*.1f");
        show_matrix (f, nm, nm->bw_MBps, "bandwidth (MB/s; diagonal: intra-node)", "%*.1f");
    } else if (show_levels (f, nm) < 0)
        return -1;
    for (int h = 0; h < nm->n; h++)
        if (nm->inside[h])
            show_inside (f, nm->hosts[h], nm->inside[h]);
    /* each host's GPU slots; where none has a GPU, one line says so */
    int read = 0, gpus = 0;

    for (int h = 0; h < nm->n; h++)
        if (nm->slots[h]) {
            read++;
            gpus += nm->slots[h]->nslots > 0;
        }
    if (read && !gpus)
        fprintf (f, "slots: no GPU on the %d host%s read\n", read, read > 1 ? "s" : "");
    for (int h = 0; gpus && h < nm->n; h++)
        if (nm->slots[h])
            show_slots (f, nm->hosts[h], nm->slots[h]);
    return ferror (f) ? -1 : 0;
}
