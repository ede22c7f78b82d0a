/* SPDX-License-Identifier: GPL-2.0-or-later */
/* draw.c: SVG pictures of profiles, netmaps and placements (draw.h).
 *
 * Every heatmap reads the same way: rows send, columns receive, the axes
 * say so, each title beside its labels; bright (yellow) is the better or
 * the more, dark the worse or the less, and what has no value (never
 * talked, not measured) is the black ground, beyond the dark end, so the
 * most stands out the most; each cell names its row, column and value
 * when pointed at (<title>).  Bytes in KiB and MiB, as the text says
 * them.  Matrices larger than
 * DRAW_CELLS rows are drawn in blocks of consecutive rows (ranks, or hosts
 * in switch order), so that any size makes a picture of the same size.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/draw.h"
#include "lib/file.h"
#include "lib/jsonfile.h"

enum { CELL_MAX = 28, MAP_PX = 448, FONT = 12, MARGIN = 16, LABEL_W = 72, AXIS_W = 18 };

/* A row's or column's label is cut to this many characters, as LABEL_W
 * holds them.
 */
#define LABEL_CHARS 11

/* Viridis, sampled: dark for little, yellow for much. */
static const unsigned char viridis[][3] = {
    {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37},
};

/* The ground: no value, darker than the scale's dark end. */
static const char NONE[] = "#000000";

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

/* Text at (x, y); rotated a quarter turn anticlockwise when vertical. */
static void text_at (FILE *f, double x, double y, const char *anchor, int size, const char *weight,
                     int vertical, const char *s)
{
    fprintf (f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"", x, y, anchor,
             size);
    if (weight)
        fprintf (f, " font-weight=\"%s\"", weight);
    if (vertical)
        fprintf (f, " transform=\"rotate(-90 %.1f %.1f)\"", x, y);
    fputc ('>', f);
    xml_text (f, s);
    fputs ("</text>\n", f);
}

static void text (FILE *f, double x, double y, const char *anchor, int size, const char *weight,
                  const char *s)
{
    text_at (f, x, y, anchor, size, weight, 0, s);
}

/* About how wide chars characters are in sans-serif of size points. */
static double chars_width (size_t chars, int size)
{
    return 0.62 * size * (double)chars;
}

/* v in a person's units: bytes as KiB, MiB, GiB (powers of 1024, as
 * topomap profile show), microseconds as us or ms, anything else with
 * three figures.
 */
enum unit { UNIT_BYTES, UNIT_US, UNIT_MBPS };

/* v and its unit, to three figures or whole ("1000 B", not "1e+03 B"). */
static void figure (char *buf, size_t len, double v, const char *unit)
{
    snprintf (buf, len, v >= 100 ? "%.0f %s" : "%.3g %s", v, unit);
}

static void human (double v, enum unit u, char *buf, size_t len)
{
    static const char *const bytes[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int k = 0;

    switch (u) {
    case UNIT_BYTES:
        while (v >= 1024 && k < (int)(sizeof (bytes) / sizeof (bytes[0])) - 1)
            v /= 1024, k++;
        figure (buf, len, v, bytes[k]);
        break;
    case UNIT_US:
        figure (buf, len, v >= 1000 ? v / 1000 : v, v >= 1000 ? "ms" : "us");
        break;
    case UNIT_MBPS:
        figure (buf, len, v >= 1000 ? v / 1000 : v, v >= 1000 ? "GB/s" : "MB/s");
        break;
    }
}

/* The side of a heatmap cell for n rows, and the size a heatmap takes. */
static double map_cell (int n)
{
    double cell = (double)MAP_PX / n;

    return cell > CELL_MAX ? CELL_MAX : cell;
}

static double map_height (int n)
{
    return 2 * FONT + FONT + 4 + LABEL_W + n * map_cell (n) + 8 + 10 + 3 * FONT + 10;
}

static double map_width (int n)
{
    double w = AXIS_W + LABEL_W + n * map_cell (n) + 40;

    return w > AXIS_W + LABEL_W + 360 ? w : AXIS_W + LABEL_W + 360;
}

/* How a heatmap reads. */
typedef struct {
    const char *title;
    const char *rows, *cols; /* the axes: who sends, who receives */
    const char *none;        /* what the ground (a cell without value) means */
    const char *low, *high;  /* the ends of the colour bar, in words */
    enum unit unit;
    int logscale;
    int reverse;   /* the lower the better: low values bright */
    double lo, hi; /* the scale; NAN: from the values */
} heat_t;

/* The scale of values v[0..n*n): the least and greatest positive finite
 * value, the least at most three decades below the greatest on a
 * logarithmic scale, zero on a linear one.  NAN when there is none.
 */
static void scale_of (const double *v, size_t count, int logscale, double *lop, double *hip)
{
    double lo = INFINITY, hi = -INFINITY;

    for (size_t i = 0; i < count; i++)
        if (isfinite (v[i]) && v[i] > 0) {
            lo = fmin (lo, v[i]);
            hi = fmax (hi, v[i]);
        }
    if (!isfinite (lo)) {
        *lop = *hip = NAN;
        return;
    }
    *lop = logscale ? fmin (lo, hi / 1e3) : 0;
    *hip = hi;
}

/* A heatmap of the n x n cells v (row = from, column = to) at (x, y):
 * the columns' title and labels above, the rows' on the left, labelled
 * lab[i] (every few when crowded), lines between runs of equal grp[i]
 * when grp is given; non-positive and non-finite cells the ground (one
 * rectangle under them all), each other cell with its value as a
 * <title>.  The colour bar, its ends in words and units, and what the
 * ground means go below; map_height (n) in all.
 */
static void heatmap (FILE *f, double x, double y, int n, const double *v, char *const *lab,
                     const int *grp, const heat_t *h)
{
    double lo = h->lo, hi = h->hi, cell = map_cell (n), side = n * cell, labels = 0;
    char c[8], a[64], b[64], buf[192];
    int every = cell >= FONT ? 1 : (int)ceil (FONT / cell);

    if (isnan (lo))
        scale_of (v, (size_t)n * (size_t)n, h->logscale, &lo, &hi);
    /* The axes' titles next to their labels, however long those are
     * (what LABEL_W leaves over is left at the bottom). */
    for (int i = 0; i < n; i += every) {
        size_t l = strlen (lab[i]);

        labels = fmax (labels, chars_width (l > LABEL_CHARS ? LABEL_CHARS + 3 : l, FONT - 2));
    }
    labels = fmin (labels + 8, LABEL_W);
    text (f, x, y + FONT, "start", FONT + 2, "bold", h->title);
    y += 2 * FONT;
    x += AXIS_W + LABEL_W;
    text (f, x + side / 2, y + FONT, "middle", FONT - 1, "bold", h->cols);
    y += FONT + 4 + labels;
    text_at (f, x - labels - 4, y + side / 2, "middle", FONT - 1, "bold", 1, h->rows);
    fprintf (f,
             "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
             "<title>",
             x, y, side, side, NONE);
    xml_text (f, h->none);
    fputs ("</title></rect>\n", f);
    for (int i = 0; i < n; i++) {
        if (i % every == 0) {
            char l[LABEL_CHARS + 4];

            snprintf (l, sizeof (l), "%.*s%s", LABEL_CHARS, lab[i],
                      strlen (lab[i]) > LABEL_CHARS ? "..." : "");
            text (f, x - 4, y + i * cell + cell / 2 + FONT / 3.0, "end", FONT - 2, NULL, l);
            text_at (f, x + i * cell + cell / 2 + FONT / 3.0, y - 4, "start", FONT - 2, NULL, 1, l);
        }
        for (int j = 0; j < n; j++) {
            double w = v[(size_t)i * (size_t)n + (size_t)j], t;

            if (!isfinite (w) || w <= 0 || isnan (lo))
                continue;
            t = hi <= lo ? 1 : h->logscale ? log (w / lo) / log (hi / lo) : (w - lo) / (hi - lo);
            colour (h->reverse ? 1 - t : t, c);
            human (w, h->unit, a, sizeof (a));
            fprintf (f,
                     "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
                     "<title>",
                     x + j * cell, y + i * cell, cell + 0.3, cell + 0.3, c);
            xml_text (f, lab[i]);
            fputs (" to ", f);
            xml_text (f, lab[j]);
            fprintf (f, ": %s</title></rect>\n", a);
        }
    }
    if (grp)
        for (int i = 1; i < n; i++)
            if (grp[i] != grp[i - 1])
                fprintf (f,
                         "<path d=\"M%.1f %.1f h%.1f M%.1f %.1f v%.1f\" stroke=\"white\" "
                         "stroke-width=\"2\"/>\n",
                         x, y + i * cell, side, x + i * cell, y, side);
    fprintf (f,
             "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
             "stroke=\"#444\"/>\n",
             x, y, side, side);
    y += side + 8;
    /* The colour bar: dark (worse, less) to bright (better, more). */
    for (int k = 0; k < 50; k++) {
        colour (k / 49.0, c);
        fprintf (f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"10\" fill=\"%s\"/>\n",
                 x + k * 4.0, y, 4.3, c);
    }
    fprintf (f,
             "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\" "
             "stroke=\"#999\"/>\n",
             x + 216, y, NONE);
    text (f, x + 230, y + 9, "start", FONT - 2, NULL, h->none);
    if (isnan (lo)) {
        text (f, x, y + 10 + FONT + 2, "start", FONT - 2, NULL, "nothing to show");
        return;
    }
    human (h->reverse ? hi : lo, h->unit, a, sizeof (a));
    human (h->reverse ? lo : hi, h->unit, b, sizeof (b));
    text (f, x, y + 10 + FONT + 2, "start", FONT - 2, NULL, a);
    text (f, x + 200, y + 10 + FONT + 2, "end", FONT - 2, NULL, b);
    snprintf (buf, sizeof (buf), "dark: %s, bright: %s%s", h->low, h->high,
              h->logscale ? " (logarithmic scale)" : "");
    text (f, x + 100, y + 10 + 2 * FONT + 4, "middle", FONT - 2, NULL, buf);
}

/* Cells for n rows: each of per consecutive rows, nb of them. */
static int cells_for (int n, int *per)
{
    *per = (n + DRAW_CELLS - 1) / DRAW_CELLS;
    return (n + *per - 1) / *per;
}

/* The label of the cell of rows [first, last]: lab of the first, or
 * "first-last" when the cell holds several.
 */
static char *cell_label (const char *first, const char *last, int several)
{
    size_t len = strlen (first) + (several ? strlen (last) + 2 : 1);
    char *s = malloc (len);

    if (s)
        snprintf (s, len, several ? "%s-%s" : "%s", first, several ? last : "");
    return s;
}

static void labels_free (char **lab, int n)
{
    for (int i = 0; lab && i < n; i++)
        free (lab[i]);
    free (lab);
}

/* The n x n matrix v with its rows and columns in the order ord, in nb x nb cells of per rows each:
 * the sum of a cell's values, or their mean over the finite ones (mean set).  Each cell's label
 * from lab, and group from grp (its first row's) into *labp, *grpp, each unless NULL.  NULL out of
 * memory.
 */
static double *binned (const double *v, int n, const int *ord, char *const *lab, const int *grp,
                       int mean, int *nbp, char ***labp, int **grpp)
{
    int per, nb = cells_for (n, &per);
    double *out = calloc ((size_t)nb * (size_t)nb, sizeof (*out));
    int *cnt = mean ? calloc ((size_t)nb * (size_t)nb, sizeof (*cnt)) : NULL;
    char **cl = labp ? calloc ((size_t)nb, sizeof (*cl)) : NULL;
    int *cg = grp && grpp ? calloc ((size_t)nb, sizeof (*cg)) : NULL;

    if (!out || (mean && !cnt) || (labp && !cl) || (grp && grpp && !cg))
        goto nomem;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double w = v[(size_t)ord[i] * (size_t)n + (size_t)ord[j]];
            size_t at = (size_t)(i / per) * (size_t)nb + (size_t)(j / per);

            if (!isfinite (w))
                continue;
            out[at] += w;
            if (mean)
                cnt[at]++;
        }
    for (size_t k = 0; mean && k < (size_t)nb * (size_t)nb; k++)
        out[k] = cnt[k] ? out[k] / cnt[k] : NAN;
    for (int b = 0; b < nb; b++) {
        int first = b * per, last = first + per - 1 < n - 1 ? first + per - 1 : n - 1;

        if (cl && !(cl[b] = cell_label (lab[ord[first]], lab[ord[last]], last > first)))
            goto nomem;
        if (cg)
            cg[b] = grp[ord[first]];
    }
    free (cnt);
    *nbp = nb;
    if (labp)
        *labp = cl;
    if (grpp)
        *grpp = cg;
    return out;
nomem:
    free (out);
    free (cnt);
    labels_free (cl, nb);
    free (cg);
    return NULL;
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

/* The last part of a path. */
static const char *base_name (const char *path)
{
    const char *slash = strrchr (path, '/');

    return slash && slash[1] ? slash + 1 : path;
}

/* ", job J, recorded|measured WHEN" of what has them. */
static void job_and_time (char *buf, size_t len, const char *jobid, time_t when, const char *verb)
{
    char t[32];

    if (jsonfile_format_time (when, t, sizeof (t)) < 0)
        t[0] = '\0';
    snprintf (buf, len, "%s%s%s%s%s", jobid[0] ? ", job " : "", jobid, t[0] ? ", " : "",
              t[0] ? verb : "", t);
}

int draw_profile (const profile_t *p, const char *path, tm_error_t *errp)
{
    int n = p->ntasks, per, nb = cells_for (n, &per);
    char **lab = NULL, *buf = NULL, t[512], when[128];
    double *v = NULL;
    size_t len = 0;
    FILE *f;
    heat_t h = {
        .title = "bytes each rank sent to each rank",
        .rows = "sending rank",
        .cols = "receiving rank",
        .none = "black: never talked",
        .low = "fewer",
        .high = "more",
        .unit = UNIT_BYTES,
        .logscale = 1,
        .lo = NAN,
        .hi = NAN,
    };

    if (n < 1)
        return errprintf (errp, "%s: the profile has no tasks", path);
    v = calloc ((size_t)nb * (size_t)nb, sizeof (*v));
    lab = calloc ((size_t)nb, sizeof (*lab));
    if (!v || !lab)
        goto nomem;
    for (int b = 0; b < nb; b++) {
        char first[16], last[16];
        int l = b * per + per - 1 < n - 1 ? b * per + per - 1 : n - 1;

        snprintf (first, sizeof (first), "%d", b * per);
        snprintf (last, sizeof (last), "%d", l);
        if (!(lab[b] = cell_label (first, last, l > b * per)))
            goto nomem;
    }
    for (size_t k = 0; k < p->nentries; k++)
        v[(size_t)(p->entries[k].src / per) * (size_t)nb + (size_t)(p->entries[k].dst / per)] +=
            (double)p->entries[k].bytes;
    if (per > 1)
        snprintf (t, sizeof (t), "bytes between blocks of %d ranks", per);
    h.title = per > 1 ? t : h.title;
    if (!(f = open_memstream (&buf, &len)))
        goto nomem;
    {
        char head[512];
        double w = map_width (nb);

        job_and_time (when, sizeof (when), p->jobid, p->timestamp, "recorded ");
        snprintf (head, sizeof (head), "Communication of %s, %d ranks%s",
                  p->exe_path && p->exe_path[0] ? base_name (p->exe_path) : "a program", n, when);
        if (w < chars_width (strlen (head), FONT + 4))
            w = chars_width (strlen (head), FONT + 4);
        svg_open (f, MARGIN * 2 + w, MARGIN * 2 + 2 * FONT + 8 + map_height (nb));
        text (f, MARGIN, MARGIN + FONT + 2, "start", FONT + 4, "bold", head);
    }
    heatmap (f, MARGIN, MARGIN + 2 * FONT + 8, nb, v, lab, NULL, &h);
    labels_free (lab, nb);
    free (v);
    return svg_close (f, &buf, &len, path, errp);
nomem:
    labels_free (lab, nb);
    free (v);
    return errnomem (errp);
}

/* Hosts ordered by group, then by index; grp[i] the group of host i. */
static int *host_order (const netmap_t *nm, int **grpp)
{
    int n = nm->n, *ord = calloc ((size_t)n, sizeof (*ord)),
        *grp = calloc ((size_t)n, sizeof (*grp));
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

/* Whether the netmap holds measured pairs (not only a topology's figures). */
static int measured (const netmap_t *nm)
{
    for (size_t k = 0; nm->measured && k < (size_t)nm->n * (size_t)nm->n; k++)
        if (nm->measured[k] > 0)
            return 1;
    return 0;
}

int draw_netmap (const netmap_t *nm, const char *path, tm_error_t *errp)
{
    int n = nm->n, *ord, *grp = NULL, nb = 0, *cg = NULL, meas = measured (nm);
    char *buf = NULL, t[512], when[128], **cl = NULL;
    double *lat = NULL, *bw = NULL, w, h;
    size_t len = 0;
    FILE *f = NULL;
    heat_t hl = {
        .title = "latency, one way",
        .rows = "from node",
        .cols = "to node",
        .none = "black: not measured",
        .low = "slower",
        .high = "faster",
        .unit = UNIT_US,
        .reverse = 1,
        .lo = NAN,
        .hi = NAN,
    };
    heat_t hb = hl;

    hb.title = "bandwidth";
    hb.unit = UNIT_MBPS;
    hb.reverse = 0;
    if (!(ord = host_order (nm, &grp)))
        return errnomem (errp);
    if (!(lat = binned (nm->lat_us, n, ord, nm->hosts, grp, 1, &nb, &cl, &cg)) ||
        !(bw = binned (nm->bw_MBps, n, ord, nm->hosts, NULL, 1, &nb, NULL, NULL)) ||
        !(f = open_memstream (&buf, &len))) {
        free (lat);
        free (bw);
        free (ord);
        free (grp);
        free (cg);
        labels_free (cl, nb);
        return errnomem (errp);
    }
    w = map_width (nb);
    h = map_height (nb);
    svg_open (f, MARGIN * 3 + 2 * w, MARGIN * 2 + h + 3 * FONT + 10);
    job_and_time (when, sizeof (when), nm->jobid, nm->timestamp, meas ? "measured " : "made ");
    snprintf (t, sizeof (t), "Network of %d nodes%s", n, when);
    text (f, MARGIN, MARGIN + FONT, "start", FONT + 4, "bold", t);
    snprintf (t, sizeof (t), "%s%s%s",
              meas ? "measured by topomap-probe" : "figures of a topology file, nothing measured",
              !nm->topo                      ? "; no switches inferred"
              : nm->topo->model == TOPO_TREE ? "; nodes ordered and outlined by switch"
                                             : "; nodes ordered and outlined by cluster",
              nb < n ? "; a cell is the mean of a block of nodes" : "");
    text (f, MARGIN, MARGIN + 2 * FONT + 6, "start", FONT, NULL, t);
    heatmap (f, MARGIN, MARGIN + 3 * FONT + 10, nb, lat, cl, cg, &hl);
    heatmap (f, 2 * MARGIN + w, MARGIN + 3 * FONT + 10, nb, bw, cl, cg, &hb);
    free (lat);
    free (bw);
    free (ord);
    free (grp);
    free (cg);
    labels_free (cl, nb);
    return svg_close (f, &buf, &len, path, errp);
}

/* A node's box in a group: its least width and row height. */
static const double BOX_W = 104, ROW_H = FONT + 6;

/* Groups drawn as boxes of their nodes up to this many nodes; beyond, a
 * line a group lists its ranks, for at most GROUP_LINES groups.
 */
enum { BOX_NODES = 32, GROUP_LINES = 16, RANKS_CHARS = 80 };

/* The ranks of layout c on the hosts for which in (host, arg) holds, as
 * ranges ("0-3 8 12-15"), into buf: cut with "..." when long.
 */
static void rank_ranges (const profile_t *p, const map_candidate_t *c, int (*in) (int, int),
                         int arg, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int r = 0; r < p->ntasks; r++) {
        int last = r;

        if (!in (c->node[r], arg))
            continue;
        while (last + 1 < p->ntasks && in (c->node[last + 1], arg))
            last++;
        if (used + 24 >= len) {
            snprintf (buf + used, len - used, " ...");
            return;
        }
        used += (size_t)snprintf (buf + used, len - used, last > r ? "%s%d-%d" : "%s%d",
                                  used ? " " : "", r, last);
        r = last;
    }
}

static const int *in_grp;

static int is_host (int host, int arg)
{
    return host == arg;
}

static int in_group (int host, int arg)
{
    return in_grp[host] == arg;
}

/* The width of a group's box: its widest node, host name and ranks, under
 * either layout.  Only up to BOX_NODES nodes are drawn as boxes.
 */
static double box_width (const profile_t *p, const netmap_t *nm, const map_candidate_t *a,
                         const map_candidate_t *b)
{
    double w = BOX_W;
    char list[RANKS_CHARS];

    for (int h = 0; nm->n <= BOX_NODES && h < nm->n; h++)
        for (int k = 0; k < 2; k++) {
            double need;

            rank_ranges (p, k ? b : a, is_host, h, list, sizeof (list));
            need = chars_width (strlen (nm->hosts[h]) + strlen (list) + 2, FONT - 1) + 20;
            w = need > w ? need : w;
        }
    return w;
}

/* The height of the groups' part of a layout panel. */
static double groups_height (const netmap_t *nm, const int *grp)
{
    int ngroups = nm->topo ? nm->topo->ngroups : 1, most = 0;

    if (nm->n > BOX_NODES)
        return FONT * ((ngroups < GROUP_LINES ? ngroups : GROUP_LINES + 1) + 1);
    for (int g = 0; g < ngroups; g++) {
        int members = 0;

        for (int h = 0; h < nm->n; h++)
            members += grp[h] == g;
        most = members > most ? members : most;
    }
    return FONT + 8 + most * (ROW_H + 4) + 2;
}

/* The node-to-node bytes of layout c; a node's own, between its ranks,
 * on the diagonal. */
static double *node_bytes (const profile_t *p, const netmap_t *nm, const map_candidate_t *c)
{
    int n = nm->n;
    double *v = calloc ((size_t)n * (size_t)n, sizeof (*v));

    for (int r = 0; v && r < p->ntasks; r++)
        for (size_t k = p->row[r]; k < p->row[r + 1]; k++) {
            const profile_entry_t *e = &p->entries[k];
            int a = c->node[e->src], b = c->node[e->dst];

            v[(size_t)a * (size_t)n + (size_t)b] += (double)e->bytes;
        }
    return v;
}

/* The groups of one layout: boxes of nodes (box_w wide) listing their
 * ranks, or at scale a line a group with its ranks.
 */
static void layout_groups (FILE *f, double x, double y, const profile_t *p, const netmap_t *nm,
                           const int *ord, const int *grp, const map_candidate_t *c, double box_w)
{
    int n = nm->n, ngroups = nm->topo ? nm->topo->ngroups : 1;
    const char *kind = nm->topo && nm->topo->model == TOPO_GROUPS ? "cluster" : "switch";
    double gx = x;
    char t[RANKS_CHARS + 64], list[RANKS_CHARS];

    in_grp = grp;
    for (int g = 0; g < ngroups; g++) {
        int members = 0;
        double ny = y + FONT + 8;

        for (int i = 0; i < n; i++)
            members += grp[ord[i]] == g;
        if (!members)
            continue;
        if (n > BOX_NODES) {
            if (g == GROUP_LINES) {
                snprintf (t, sizeof (t), "... and %d more %ses", ngroups - GROUP_LINES, kind);
                text (f, x, y + FONT * (g + 1), "start", FONT - 1, NULL, t);
                break;
            }
            rank_ranges (p, c, in_group, g, list, sizeof (list));
            snprintf (t, sizeof (t), "%s %d (%d nodes): ranks %s", kind, g + 1, members, list);
            text (f, x, y + FONT * (g + 1), "start", FONT - 1, NULL, t);
            continue;
        }
        for (int i = 0; i < n; i++) {
            int h = ord[i];

            if (grp[h] != g)
                continue;
            rank_ranges (p, c, is_host, h, list, sizeof (list));
            fprintf (f,
                     "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"3\" "
                     "fill=\"#f4f4f4\" stroke=\"#999\"/>\n",
                     gx + 6, ny, box_w - 12, ROW_H);
            text (f, gx + 10, ny + FONT + 1, "start", FONT - 1, "bold", nm->hosts[h]);
            text (f, gx + box_w - 10, ny + FONT + 1, "end", FONT - 1, NULL, list);
            ny += ROW_H + 4;
        }
        snprintf (t, sizeof (t), "%s %d", kind, g + 1);
        fprintf (f,
                 "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"6\" "
                 "fill=\"none\" stroke=\"#3b528b\" stroke-width=\"1.5\"/>\n",
                 gx, y, box_w, ny - y + 2);
        text (f, gx + box_w / 2, y + FONT + 2, "middle", FONT - 1, NULL, t);
        gx += box_w + 10;
    }
}

/* One layout: its title, the share of bytes across groups and the model's
 * time, its groups, then the bytes between nodes on the scale h.
 */
static void layout_panel (FILE *f, double x, double y, const profile_t *p, const netmap_t *nm,
                          const int *ord, const int *grp, const map_candidate_t *c,
                          const double *cells, int nb, char *const *cl, const int *cg,
                          const char *title, const heat_t *h, double box_w)
{
    uint64_t cross = 0, total = 0;
    char t[512];

    for (size_t k = 0; k < p->nentries; k++) {
        const profile_entry_t *e = &p->entries[k];

        total += e->bytes;
        if (grp[c->node[e->src]] != grp[c->node[e->dst]])
            cross += e->bytes;
    }
    text (f, x, y + FONT + 2, "start", FONT + 2, "bold", title);
    snprintf (t, sizeof (t), "%.1f%% of the bytes cross %s",
              total ? 100.0 * (double)cross / (double)total : 0.0,
              nm->topo && nm->topo->model == TOPO_GROUPS ? "clusters" : "switches");
    text (f, x, y + 2 * FONT + 8, "start", FONT, NULL, t);
    if (c->cost_s >= 1)
        snprintf (t, sizeof (t), "the model's communication time: %.3g s", c->cost_s);
    else
        snprintf (t, sizeof (t), "the model's communication time: %.3g ms", c->cost_s * 1e3);
    text (f, x, y + 3 * FONT + 12, "start", FONT, NULL, t);
    y += 4 * FONT + 14;
    layout_groups (f, x, y, p, nm, ord, grp, c, box_w);
    heatmap (f, x, y + groups_height (nm, grp) + 10, nb, cells, cl, cg, h);
}

int draw_placement (const profile_t *p, const netmap_t *nm, const map_result_t *res,
                    const char *path, tm_error_t *errp)
{
    int *ord, *grp = NULL, block = -1, ngroups = nm->topo ? nm->topo->ngroups : 1, nb = 0;
    int *cg = NULL, rc = -1;
    double w, box_w, *vb = NULL, *vc = NULL, *cb = NULL, *cc = NULL, lo1, hi1, lo2, hi2;
    char *buf = NULL, t[256], **cl = NULL;
    size_t len = 0;
    FILE *f = NULL;
    heat_t h = {
        .title = "bytes between nodes (the diagonal: inside one)",
        .rows = "sending node",
        .cols = "receiving node",
        .none = "black: none",
        .low = "fewer",
        .high = "more",
        .unit = UNIT_BYTES,
        .logscale = 1,
    };

    for (int k = 0; k < res->ncandidates; k++)
        if (!strcmp (res->cand[k].name, "block"))
            block = k;
    if (block < 0)
        return errprintf (errp, "the plan has no block layout to compare with");
    if (res->ntasks != p->ntasks)
        return errprintf (errp, "the plan has %d ranks, the profile %d", res->ntasks, p->ntasks);
    if (!(ord = host_order (nm, &grp)))
        return errnomem (errp);
    if (!(vb = node_bytes (p, nm, &res->cand[block])) ||
        !(vc = node_bytes (p, nm, &res->cand[res->chosen])) ||
        !(cb = binned (vb, nm->n, ord, nm->hosts, grp, 0, &nb, &cl, &cg)) ||
        !(cc = binned (vc, nm->n, ord, nm->hosts, NULL, 0, &nb, NULL, NULL)) ||
        !(f = open_memstream (&buf, &len))) {
        errnomem (errp);
        goto out;
    }
    /* One scale for both layouts, so that a colour is the same bytes. */
    scale_of (cb, (size_t)nb * (size_t)nb, 1, &lo1, &hi1);
    scale_of (cc, (size_t)nb * (size_t)nb, 1, &lo2, &hi2);
    h.lo = isnan (lo1) ? lo2 : isnan (lo2) ? lo1 : fmin (lo1, lo2);
    h.hi = isnan (hi1) ? hi2 : isnan (hi2) ? hi1 : fmax (hi1, hi2);
    if (!isnan (h.hi))
        h.lo = fmin (h.lo, h.hi / 1e3);
    if (nb < nm->n) {
        snprintf (t, sizeof (t), "bytes between blocks of nodes (the diagonal: inside one)");
        h.title = t;
    }
    box_w = box_width (p, nm, &res->cand[block], &res->cand[res->chosen]);
    w = map_width (nb);
    if (nm->n <= BOX_NODES && w < ngroups * (box_w + 10) + 20)
        w = ngroups * (box_w + 10) + 20;
    if (nm->n > BOX_NODES && w < chars_width (RANKS_CHARS + 30, FONT - 1))
        w = chars_width (RANKS_CHARS + 30, FONT - 1);
    w += 80;
    svg_open (f, 2 * w + MARGIN,
              3 * FONT + 16 + 4 * FONT + 14 + groups_height (nm, grp) + 10 + map_height (nb) +
                  2 * MARGIN);
    fprintf (f, "<g transform=\"translate(%d,%d)\">\n", MARGIN, MARGIN);
    {
        char head[512];

        snprintf (head, sizeof (head), "%s, %d ranks on %d nodes: srun's layout and topomap's",
                  p->exe_path && p->exe_path[0] ? base_name (p->exe_path) : "a program", p->ntasks,
                  nm->n);
        text (f, 0, FONT + 4, "start", FONT + 4, "bold", head);
        snprintf (head, sizeof (head),
                  "predicted gain %.1f%%: the cost model's time of the transfers, each pair "
                  "priced by the netmap and summed; not a run's time",
                  100.0 * (1 - res->cand[res->chosen].cost_s / res->cand[block].cost_s));
        text (f, 0, 2 * FONT + 12, "start", FONT, NULL, head);
    }
    layout_panel (f, 0, 3 * FONT + 16, p, nm, ord, grp, &res->cand[block], cb, nb, cl, cg,
                  "srun's layout (block)", &h, box_w);
    layout_panel (f, w, 3 * FONT + 16, p, nm, ord, grp, &res->cand[res->chosen], cc, nb, cl, cg,
                  res->chosen == block ? "topomap: keeps srun's layout" : "topomap's plan", &h,
                  box_w);
    fputs ("</g>\n", f);
    rc = svg_close (f, &buf, &len, path, errp);
    f = NULL;
out:
    if (f) {
        fclose (f);
        free (buf);
    }
    free (vb);
    free (vc);
    free (cb);
    free (cc);
    free (ord);
    free (grp);
    free (cg);
    labels_free (cl, nb);
    return rc;
}
