/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netmap_show.c: a netmap as people read it (`topomap netmap show`). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/jsonfile.h"
#include "lib/netmap.h"

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

/* low[v] = the lowest host under vertex v.  Hosts in increasing order
 * claim their unclaimed ancestors; an ancestor already claimed has a lower
 * host, and so have all above it.  Linear in the vertices.
 */
static int *lowest_hosts (const topo_t *t)
{
    int *low = malloc ((size_t)t->nvertices * sizeof (*low));
    if (!low)
        return NULL;
    for (int v = 0; v < t->nvertices; v++)
        low[v] = -1;
    for (int h = 0; h < t->nhosts; h++)
        for (int u = h; u != -1 && low[u] == -1; u = t->parent[u])
            low[u] = h;
    return low;
}

/* The subtree under v as nested parentheses: hosts first, in index order,
 * then child vertices in order of their lowest host (low[]).  Canonical, so
 * two trees print the same exactly when they are the same.
 */
static void show_nested (FILE *f, const netmap_t *nm, const int *low, int v)
{
    const topo_t *t = nm->topo;
    int first = 1, last = -1;

    if (v < t->nhosts) {
        fputs (nm->hosts[v], f);
        return;
    }
    fputc ('(', f);
    for (int h = 0; h < t->nhosts; h++)
        if (t->parent[h] == v) {
            fprintf (f, first ? "%s" : " %s", nm->hosts[h]);
            first = 0;
        }
    /* Child vertices by increasing lowest host: pick the next each time. */
    for (;;) {
        int next = -1, next_low = t->nhosts;
        for (int u = t->nhosts; u < t->nvertices; u++)
            if (t->parent[u] == v && low[u] > last && low[u] < next_low) {
                next = u;
                next_low = low[u];
            }
        if (next < 0)
            break;
        if (!first)
            fputc (' ', f);
        show_nested (f, nm, low, next);
        first = 0;
        last = next_low;
    }
    fputc (')', f);
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

double netmap_measure_bound (const netmap_t *nm)
{
    const netmap_params_t *p = &nm->params;
    double stream = (double)p->bw_bytes * p->bw_messages, total = 0;
    double lead = p->bw_enough_ms > 0 ? (double)netmap_lead_bytes (p) : 0;

    for (int a = 0; a < nm->n; a++)
        for (int b = a; b < nm->n; b++) {
            int k = NETMAP_AT (nm, samples, a, b), times = NETMAP_AT (nm, measured, a, b);
            double lat = NETMAP_AT (nm, lat_us, a, b), bw = NETMAP_AT (nm, bw_MBps, a, b);
            double sent;
            if (k <= 0 || times <= 0 || !isfinite (lat) || !(bw > 0))
                continue;
            sent = netmap_lead_enough (p, lead / (bw * 1e6)) ? lead : lead + stream;
            total += (double)k * 2 * lat * 1e-6 + times * sent / (bw * 1e6);
        }
    return total;
}

/* "n3 inside: 8 CPUs (0-3,8-11) in 4 L3 domains of 2 packages;
 * l3 0.2 us 40000 MB/s, package ..., machine not measured". */
static void show_inside (FILE *f, const char *host, const inside_t *in)
{
    fprintf (f, "%s inside: %d CPU%s (", host, in->ncpus, in->ncpus == 1 ? "" : "s");
    for (int k = 0, first = 1; k < in->ncpus; k++) {
        int j = k;

        while (j + 1 < in->ncpus && in->cpu[j + 1] == in->cpu[j] + 1)
            j++;
        fprintf (f, first ? "%d" : ",%d", in->cpu[k]);
        if (j > k)
            fprintf (f, "-%d", in->cpu[j]);
        first = 0;
        k = j;
    }
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

int netmap_show (FILE *f, const netmap_t *nm, const char *name)
{
    char when[32] = "unknown time";
    const netmap_params_t *p = &nm->params;
    char concurrency[48] = "a whole round at once", lead[96] = "";

    if (p->concurrency > 0)
        snprintf (concurrency, sizeof (concurrency), "%d pair%s at once", p->concurrency,
                  p->concurrency == 1 ? "" : "s");

    long pairs = 0, measured = 0, again = 0;
    for (int a = 0; a < nm->n; a++)
        for (int b = a + 1; b < nm->n; b++) {
            pairs++;
            measured += NETMAP_AT (nm, measured, a, b) > 0;
            again += NETMAP_AT (nm, measured, a, b) > 1;
        }
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
        int *low = lowest_hosts (t);
        if (!low) {
            errno = ENOMEM;
            return -1;
        }
        for (int v = 0; v < t->nvertices; v++)
            if (t->parent[v] == -1) {
                fprintf (f, "%s: ", t->model == TOPO_TREE ? "tree" : "dendrogram");
                show_nested (f, nm, low, v);
                fputc ('\n', f);
                if (v >= t->nhosts)
                    show_vertex (f, nm, v, 0);
            }
        free (low);
    }
    show_matrix (f, nm, nm->lat_us, "latency (us, one way; diagonal: intra-node)", "%*.1f");
    show_matrix (f, nm, nm->bw_MBps, "bandwidth (MB/s; diagonal: intra-node)", "%*.1f");
    for (int h = 0; h < nm->n; h++)
        if (nm->inside[h])
            show_inside (f, nm->hosts[h], nm->inside[h]);
    return ferror (f) ? -1 : 0;
}
