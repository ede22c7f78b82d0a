/* SPDX-License-Identifier: GPL-2.0-or-later */
/* draw.c: SVG pictures of profiles, netmaps and placements (draw.h). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/draw.h"
#include "lib/file.h"

enum { CELL_MAX = 28, MAP_PX = 448, FONT = 12, MARGIN = 16, LABEL_W = 56 };

/* Viridis, sampled: dark for little, yellow for much. */
static const unsigned char viridis[][3] = {
    { 68, 1, 84 }, { 59, 82, 139 }, { 33, 145, 140 }, { 94, 201, 98 }, { 253, 231, 37 },
};

static void colour (double t, char out[8])
{
    int n = (int)(sizeof (viridis) / sizeof (viridis[0])) - 1, k;
    double f;

    t = t < 0 ? 0 : t > 1 ? 1 : t;
    k = (int)(t * n);
    if (k == n)
        k = n - 1;
    f = t * n - k;
    snprintf (out, 8, "#%02x%02x%02x",
              (unsigned)lround (viridis[k][0] + f * (viridis[k + 1][0] - viridis[k][0])),
              (unsigned)lround (viridis[k][1] + f * (viridis[k + 1][1] - viridis[k][1])),
              (unsigned)lround (viridis[k][2] + f * (viridis[k + 1][2] - viridis[k][2])));
}

/* Text safe inside an SVG element: names come from files. */
static void xml_text (FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs ("&lt;", f);
            break;
        case '>':
            fputs ("&gt;", f);
            break;
        case '&':
            fputs ("&amp;", f);
            break;
        case '"':
            fputs ("&quot;", f);
            break;
        default:
            if ((unsigned char)*s >= 0x20)
                fputc (*s, f);
        }
    }
}

static void text (FILE *f, double x, double y, const char *anchor, int size, const char *weight,
                  const char *s)
{
    fprintf (f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"%s%s%s>", x, y,
             anchor, size, weight ? " font-weight=\"" : "", weight ? weight : "",
             weight ? "\"" : "");
    xml_text (f, s);
    fputs ("</text>\n", f);
}

/* The side of a heatmap cell for n rows, and the size a heatmap takes. */
static double map_cell (int n)
{
    double cell = (double)MAP_PX / n;

    return cell > CELL_MAX ? CELL_MAX : cell;
}

static double map_height (int n)
{
    return 2 * FONT + n * map_cell (n) + 2 * FONT + 4 + 10 + 2 * FONT + 10;
}

static double map_width (int n)
{
    double w = LABEL_W + n * map_cell (n) + 40;

    return w > LABEL_W + 240 ? w : LABEL_W + 240;
}

/* A heatmap of the n x n values v (row = from, column = to) at (x, y),
 * rows and columns in the order ord, labelled lab[ord[i]], on a linear or
 * logarithmic scale; zero (and non-finite) cells are light grey.  Lines
 * separate runs of equal grp[ord[i]] when grp is given.  The logarithmic
 * scale spans at least three decades below the largest value, the linear
 * one starts at zero, so that cells of about equal value look about equal.
 * A legend bar with the range and unit goes below; map_height (n) in all.
 */
static void heatmap (FILE *f, double x, double y, int n, const double *v, const int *ord,
                       char *const *lab, const int *grp, int logscale, const char *title,
                       const char *unit)
{
    double lo = INFINITY, hi = -INFINITY, cell = map_cell (n);
    char c[8], buf[128];
    int every;

    every = cell >= FONT ? 1 : (int)ceil (FONT / cell);
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
        if (isfinite (v[i]) && v[i] > 0) {
            lo = fmin (lo, v[i]);
            hi = fmax (hi, v[i]);
        }
    if (isfinite (lo))
        lo = logscale ? fmin (lo, hi / 1e3) : 0;
    text (f, x, y + FONT, "start", FONT + 2, "bold", title);
    y += 2 * FONT;
    x += LABEL_W;
    for (int i = 0; i < n; i++) {
        if (i % every == 0) {
            text (f, x - 4, y + i * cell + cell / 2 + FONT / 3.0, "end", FONT - 2, NULL,
                  lab[ord[i]]);
            text (f, x + i * cell + cell / 2, y + n * cell + FONT + 2, "middle", FONT - 2, NULL,
                  lab[ord[i]]);
        }
        for (int j = 0; j < n; j++) {
            double w = v[(size_t)ord[i] * (size_t)n + (size_t)ord[j]];

            if (!isfinite (w) || w <= 0 || !isfinite (lo))
                snprintf (c, sizeof (c), "#eeeeee");
            else if (hi <= lo)
                colour (1, c);
            else
                colour (logscale ? log (w / lo) / log (hi / lo) : (w - lo) / (hi - lo), c);
            fprintf (f,
                     "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
                     x + j * cell, y + i * cell, cell + 0.3, cell + 0.3, c);
        }
    }
    if (grp)
        for (int i = 1; i < n; i++)
            if (grp[ord[i]] != grp[ord[i - 1]])
                fprintf (f,
                         "<path d=\"M%.1f %.1f h%.1f M%.1f %.1f v%.1f\" stroke=\"white\" "
                         "stroke-width=\"2\"/>\n",
                         x, y + i * cell, n * cell, x + i * cell, y, n * cell);
    fprintf (f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
             "stroke=\"#444\"/>\n", x, y, n * cell, n * cell);
    y += n * cell + 2 * FONT + 4;
    /* Legend. */
    for (int k = 0; k < 50; k++) {
        colour (k / 49.0, c);
        fprintf (f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"10\" fill=\"%s\"/>\n",
                 x + k * 4.0, y, 4.3, c);
    }
    if (isfinite (lo)) {
        snprintf (buf, sizeof (buf), "%.3g", lo);
        text (f, x, y + 10 + FONT + 2, "start", FONT - 2, NULL, buf);
        snprintf (buf, sizeof (buf), "%.3g", hi);
        text (f, x + 200, y + 10 + FONT + 2, "end", FONT - 2, NULL, buf);
        snprintf (buf, sizeof (buf), "%s%s", unit, logscale ? ", log scale" : "");
        text (f, x + 100, y + 10 + 2 * FONT + 4, "middle", FONT - 2, NULL, buf);
    } else
        text (f, x, y + 10 + FONT + 2, "start", FONT - 2, NULL, "nothing recorded");
}

static void svg_open (FILE *f, double w, double h)
{
    fprintf (f,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
             "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
             "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
             w, h, w, h);
}

/* Finish the document in the memory stream and write it to path. */
static int svg_close (FILE *f, char **buf, size_t *len, const char *path, tm_error_t *errp)
{
    int rc;

    fputs ("</svg>\n", f);
    if (fclose (f) != 0) {
        free (*buf);
        return errprintf (errp, "%s: out of memory", path);
    }
    rc = file_replace (path, *buf, *len, 0644, errp);
    free (*buf);
    return rc;
}

int draw_profile (const profile_t *p, const char *title, const char *path, tm_error_t *errp)
{
    int n = p->ntasks, *ord = NULL;
    char **lab = NULL, *buf = NULL;
    double *v = NULL;
    size_t len = 0;
    FILE *f;

    if (n < 1)
        return errprintf (errp, "%s: the profile has no tasks", path);
    if (n > DRAW_MAX_RANKS)
        return errprintf (errp, "%s: the profile has %d tasks: at most %d are drawn", path, n,
                          DRAW_MAX_RANKS);
    v = calloc ((size_t)n * (size_t)n, sizeof (*v));
    ord = calloc ((size_t)n, sizeof (*ord));
    lab = calloc ((size_t)n, sizeof (*lab));
    if (!v || !ord || !lab)
        goto nomem;
    for (int i = 0; i < n; i++) {
        ord[i] = i;
        if (!(lab[i] = malloc (16)))
            goto nomem;
        snprintf (lab[i], 16, "%d", i);
    }
    for (size_t k = 0; k < p->nentries; k++)
        v[(size_t)p->entries[k].src * (size_t)n + (size_t)p->entries[k].dst] =
            (double)p->entries[k].bytes;
    if (!(f = open_memstream (&buf, &len)))
        goto nomem;
    svg_open (f, MARGIN * 2 + map_width (n), MARGIN * 2 + map_height (n) + FONT);
    heatmap (f, MARGIN, MARGIN, n, v, ord, lab, NULL, 1, title, "bytes, rank to rank");
    for (int i = 0; i < n; i++)
        free (lab[i]);
    free (lab);
    free (ord);
    free (v);
    return svg_close (f, &buf, &len, path, errp);
nomem:
    if (lab)
        for (int i = 0; i < n; i++)
            free (lab[i]);
    free (lab);
    free (ord);
    free (v);
    return errprintf (errp, "out of memory");
}

/* Hosts ordered by group, then by index; grp[i] the group of host i. */
static int *host_order (const netmap_t *nm, int **grpp)
{
    int n = nm->n, *ord = calloc ((size_t)n, sizeof (*ord)), *grp = calloc ((size_t)n, sizeof (*grp));
    int k = 0, ngroups = nm->topo ? nm->topo->ngroups : 1;

    if (!ord || !grp) {
        free (ord);
        free (grp);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        grp[i] = nm->topo ? nm->topo->group[i] : 0;
    for (int g = 0; g < ngroups; g++)
        for (int i = 0; i < n; i++)
            if (grp[i] == g)
                ord[k++] = i;
    *grpp = grp;
    return ord;
}

int draw_netmap (const netmap_t *nm, const char *title, const char *path, tm_error_t *errp)
{
    int n = nm->n, *ord, *grp = NULL;
    char *buf = NULL, t[256];
    size_t len = 0;
    double w, h;
    FILE *f;

    if (!(ord = host_order (nm, &grp)))
        return errprintf (errp, "out of memory");
    if (!(f = open_memstream (&buf, &len))) {
        free (ord);
        free (grp);
        return errprintf (errp, "out of memory");
    }
    w = map_width (n);
    h = map_height (n);
    svg_open (f, MARGIN * 3 + 2 * w, MARGIN * 2 + h + 3 * FONT + 10);
    text (f, MARGIN, MARGIN + FONT, "start", FONT + 4, "bold", title);
    snprintf (t, sizeof (t), "%d hosts, measured in %.2f s%s%s; %s", n, nm->measure_s,
              nm->jobid[0] ? ", job " : "", nm->jobid,
              !nm->topo ? "no topology inferred"
              : nm->topo->model == TOPO_TREE ? "hosts ordered and outlined by switch"
                                             : "hosts ordered and outlined by cluster");
    text (f, MARGIN, MARGIN + 2 * FONT + 6, "start", FONT, NULL, t);
    heatmap (f, MARGIN, MARGIN + 3 * FONT + 10, n, nm->lat_us, ord, nm->hosts, grp, 0,
             "latency (one way)", "us");
    heatmap (f, 2 * MARGIN + w, MARGIN + 3 * FONT + 10, n, nm->bw_MBps, ord, nm->hosts, grp, 0,
             "bandwidth", "MB/s");
    free (ord);
    free (grp);
    return svg_close (f, &buf, &len, path, errp);
}

/* A node's box in a group: its width and row height. */
static const double BOX_W = 104, ROW_H = FONT + 6;

/* The height of a layout panel: its three lines of text, the boxes of the
 * groups (the largest group's nodes stacked), then the heatmap.
 */
static double panel_height (const netmap_t *nm, const int *grp)
{
    int ngroups = nm->topo ? nm->topo->ngroups : 1, most = 0;

    for (int g = 0; g < ngroups; g++) {
        int members = 0;

        for (int h = 0; h < nm->n; h++)
            members += grp[h] == g;
        most = members > most ? members : most;
    }
    return 4 * FONT + 14 + FONT + 8 + most * (ROW_H + 4) + 2 + 10 + map_height (nm->n);
}

/* One layout: the groups as boxes of nodes listing their ranks, then the
 * node-to-node bytes under the layout (panel_height tall).
 */
static void layout_panel (FILE *f, double x, double y, const profile_t *p, const netmap_t *nm,
                            const int *ord, const int *grp, const map_candidate_t *c,
                            const char *title)
{
    int n = nm->n, ngroups = nm->topo ? nm->topo->ngroups : 1;
    double *v = calloc ((size_t)n * (size_t)n, sizeof (*v)), gx = x, gh = 0;
    uint64_t cross = 0, total = 0;
    char t[512];

    if (!v)
        return;
    for (int r = 0; r < p->ntasks; r++)
        for (size_t k = p->row[r]; k < p->row[r + 1]; k++) {
            const profile_entry_t *e = &p->entries[k];
            int a = c->node[e->src], b = c->node[e->dst];

            total += e->bytes;
            if (a != b)
                v[(size_t)a * (size_t)n + (size_t)b] += (double)e->bytes;
            if (grp[a] != grp[b])
                cross += e->bytes;
        }
    text (f, x, y + FONT + 2, "start", FONT + 2, "bold", title);
    snprintf (t, sizeof (t), "%.1f%% of the bytes cross %s",
              total ? 100.0 * (double)cross / (double)total : 0.0,
              nm->topo && nm->topo->model == TOPO_GROUPS ? "clusters" : "switches");
    text (f, x, y + 2 * FONT + 8, "start", FONT, NULL, t);
    snprintf (t, sizeof (t), "predicted communication time %.3g ms", c->cost_s * 1e3);
    text (f, x, y + 3 * FONT + 12, "start", FONT, NULL, t);
    y += 4 * FONT + 14;
    /* Groups side by side, their nodes stacked. */
    for (int g = 0; g < ngroups; g++) {
        int members = 0;
        double ny = y + FONT + 8;

        for (int i = 0; i < n; i++)
            members += grp[ord[i]] == g;
        if (!members)
            continue;
        for (int i = 0; i < n; i++) {
            int h = ord[i], len = 0;
            char ranks[256] = "";

            if (grp[h] != g)
                continue;
            for (int r = 0; r < p->ntasks && len < (int)sizeof (ranks) - 8; r++)
                if (c->node[r] == h)
                    len += snprintf (ranks + len, sizeof (ranks) - (size_t)len, "%s%d",
                                     len ? " " : "", r);
            fprintf (f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"3\" "
                     "fill=\"#f4f4f4\" stroke=\"#999\"/>\n", gx + 6, ny, BOX_W - 12, ROW_H);
            text (f, gx + 10, ny + FONT + 1, "start", FONT - 1, "bold", nm->hosts[h]);
            text (f, gx + BOX_W - 10, ny + FONT + 1, "end", FONT - 1, NULL, ranks);
            ny += ROW_H + 4;
        }
        snprintf (t, sizeof (t), "%s %d", nm->topo && nm->topo->model == TOPO_GROUPS ? "cluster"
                                                                                  : "switch", g + 1);
        fprintf (f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"6\" "
                 "fill=\"none\" stroke=\"#3b528b\" stroke-width=\"1.5\"/>\n", gx, y, BOX_W,
                 ny - y + 2);
        text (f, gx + BOX_W / 2, y + FONT + 2, "middle", FONT - 1, NULL, t);
        gh = ny - y + 2 > gh ? ny - y + 2 : gh;
        gx += BOX_W + 10;
    }
    heatmap (f, x, y + gh + 10, n, v, ord, nm->hosts, grp, 1, "bytes between nodes", "bytes");
    free (v);
}

int draw_placement (const profile_t *p, const netmap_t *nm, const map_result_t *res,
                    const char *path, tm_error_t *errp)
{
    int *ord, *grp = NULL, block = -1, ngroups = nm->topo ? nm->topo->ngroups : 1;
    double w;
    char *buf = NULL, t[256];
    size_t len = 0;
    FILE *f;

    for (int k = 0; k < res->ncandidates; k++)
        if (!strcmp (res->cand[k].name, "block"))
            block = k;
    if (block < 0)
        return errprintf (errp, "the plan has no block layout to compare with");
    if (res->ntasks != p->ntasks)
        return errprintf (errp, "the plan has %d ranks, the profile %d", res->ntasks, p->ntasks);
    if (!(ord = host_order (nm, &grp)))
        return errprintf (errp, "out of memory");
    if (!(f = open_memstream (&buf, &len))) {
        free (ord);
        free (grp);
        return errprintf (errp, "out of memory");
    }
    w = map_width (nm->n);
    if (w < ngroups * (BOX_W + 10) + 20)
        w = ngroups * (BOX_W + 10) + 20;
    w += 80;
    svg_open (f, 2 * w + MARGIN, 3 * FONT + 16 + panel_height (nm, grp) + 2 * MARGIN);
    fprintf (f, "<g transform=\"translate(%d,%d)\">\n", MARGIN, MARGIN);
    snprintf (t, sizeof (t), "%d ranks on %d nodes: srun's layout and topomap's", p->ntasks,
              nm->n);
    text (f, 0, FONT + 4, "start", FONT + 4, "bold", t);
    snprintf (t, sizeof (t), "predicted gain %.1f%%",
              100.0 * (1 - res->cand[res->chosen].cost_s / res->cand[block].cost_s));
    text (f, 0, 2 * FONT + 12, "start", FONT, NULL, t);
    layout_panel (f, 0, 3 * FONT + 16, p, nm, ord, grp, &res->cand[block], "srun's layout (block)");
    layout_panel (f, w, 3 * FONT + 16, p, nm, ord, grp, &res->cand[res->chosen],
                  res->chosen == block ? "topomap: keeps srun's layout" : "topomap's plan");
    fputs ("</g>\n", f);
    free (ord);
    free (grp);
    return svg_close (f, &buf, &len, path, errp);
}
