/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topoconf.c: Slurm's topology.conf in and out (topoconf.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lib/compat.h"
#include "lib/file.h"
#include "lib/stats.h"
#include "lib/topoconf.h"

#define TOPOCONF_MAX_BYTES (16 * 1024 * 1024)
#define TOPOCONF_MAX_NODES (1 << 20)
/* Switches above one another: real trees have a few levels, and slurmctld
 * gives up after 21 passes (topology_tree.c, "not a tree"), which a chain
 * listed top first needs one a level.  Checked first: the walks up the
 * tree are quadratic in a chain's length. */
#define TOPOCONF_MAX_LEVELS 64
#define FIGURES_TAG         "#topomap "

typedef struct {
    char *name;     /* SwitchName */
    int line;       /* where it is defined */
    char *nodes;    /* Nodes=, NULL when none */
    char *switches; /* Switches=, NULL when none */
    int parent;     /* index of the switch whose child it is, -1 */
    bool used;      /* above a host of the allocation */
} sw_t;

typedef struct {
    const char *path;
    const int *lines; /* [nlines] the source's line of each line, or NULL */
    int nlines;
    sw_t *sw;
    int nsw, maxsw;
    tm_error_t *errp;
} conf_t;

/* Whether s is a name Slurm's host lists write back as they read it: a
 * node's or a switch's, [A-Za-z0-9._-] only, and no run of more than 9
 * digits (libslurm reads a number beyond an unsigned long as another:
 * "n12345678901234567890123" comes back "n00001844674407370955161"; and
 * 24.11.5 gave n777777777777773 back otherwise too, which 9 digits do
 * not: fuzz-topoconf in its root).
 */
static bool name_ok (const char *s)
{
    size_t len = strlen (s), run = 0;

    if (len == 0 ||
        strspn (s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != len)
        return false;
    for (; *s; s++)
        if ((run = isdigit ((unsigned char)*s) ? run + 1 : 0) > 9)
            return false;
    return true;
}

/* topoconf.h; 24.11.5's parser never returned from
 * "h[0hNam-30000000010073709551615]5]" (fuzz-topoconf). */
bool topoconf_hostlist_ok (const char *s)
{
    const char *name = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
    bool item = false;

    while (*s) {
        if (strchr (name, *s) && *s) {
            s++;
            item = true;
        } else if (*s == ',' && item) {
            s++;
            item = false;
        } else if (*s == '[') {
            s++;
            for (;;) { /* N or N-N, then ',' or ']' */
                for (int side = 0; side < 2; side++) {
                    size_t d = strspn (s, "0123456789");
                    if (d == 0 || d > 9)
                        return false;
                    s += d;
                    if (side == 1 || *s != '-')
                        break;
                    s++;
                }
                if (*s == ']')
                    break;
                if (*s++ != ',')
                    return false;
            }
            /* a range ends its item: Slurm 24.11 reads a name after it
             * ("h[1-2]111111111111") otherwise than it writes it back */
            if (*++s && *s != ',')
                return false;
            item = true;
        } else
            return false;
    }
    return item;
}

/* name -> index, for bsearch */
typedef struct {
    const char *name;
    int i, line;
} entry_t;

static int entry_cmp (const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    int c = strcmp (x->name, y->name);

    return c ? c : x->i - y->i;
}

static int conf_error (conf_t *c, int line, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static int conf_error (conf_t *c, int line, const char *fmt, ...)
{
    char what[200];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (what, sizeof (what), fmt, ap);
    va_end (ap);
    errno = EINVAL;
    if (line > 0)
        return errprintf (c->errp, "%s:%d: %s", c->path, line, what);
    return errprintf (c->errp, "%s: %s", c->path, what);
}

static int nomem (conf_t *c)
{
    return errnomem (c->errp);
}

/* "#topomap level=L latency_us=X bandwidth_MBps=Y": into levels. */
static int parse_figures (conf_t *c, int line, char *text, topoconf_level_t *levels)
{
    long level = -1;
    double lat = NAN, bw = NAN;
    char *save = NULL;

    for (char *w = strtok_r (text, " \t\r", &save); w; w = strtok_r (NULL, " \t\r", &save)) {
        char *eq = strchr (w, '='), *end;
        if (!eq)
            return conf_error (c, line, "'%s': not KEY=VALUE", errsafe (w, 40));
        *eq++ = '\0';
        errno = 0;
        if (!strcmp (w, "level")) {
            level = strtol (eq, &end, 10);
            if (errno || *end || end == eq || level < 1 || level >= TOPOCONF_LEVELS)
                return conf_error (c, line, "level=%s: not a level from 1 to %d", errsafe (eq, 40),
                                   TOPOCONF_LEVELS - 1);
        } else if (!strcmp (w, "latency_us") || !strcmp (w, "bandwidth_MBps")) {
            double v = strtod (eq, &end),
                   max = w[0] == 'l' ? NETMAP_MAX_LAT_US : NETMAP_MAX_BW_MBPS;
            if (errno || *end || end == eq || !isfinite (v) || v <= 0 || v > max)
                return conf_error (c, line, "%s=%s: not a number above 0 and at most %g", w,
                                   errsafe (eq, 40), max);
            *(w[0] == 'l' ? &lat : &bw) = v;
        } else
            return conf_error (c, line, "unknown key '%s' in the figures of a level",
                               errsafe (w, 40));
    }
    if (level < 0 || isnan (lat) || isnan (bw))
        return conf_error (c, line,
                           "the figures of a level need level=, latency_us= and "
                           "bandwidth_MBps=");
    levels[level] = (topoconf_level_t){lat, bw};
    return 0;
}

/* One logical line's words: SwitchName=X [Nodes=..|Switches=..] [LinkSpeed=..]. */
static int parse_switch (conf_t *c, int line, char *text)
{
    static const char *const keys[] = {"SwitchName", "Nodes", "Switches", "LinkSpeed"};
    char *val[4] = {NULL, NULL, NULL, NULL}, *save = NULL;
    int nword = 0;

    for (char *w = strtok_r (text, " \t\r", &save); w; w = strtok_r (NULL, " \t\r", &save)) {
        char *eq = strchr (w, '=');
        int k;
        if (!eq || eq == w || !eq[1])
            return conf_error (c, line, "'%s': not KEY=VALUE", errsafe (w, 60));
        *eq = '\0';
        for (k = 0; k < 4 && strcasecmp (w, keys[k]); k++)
            ;
        if (k == 4) {
            if (!strcasecmp (w, "BlockName"))
                return conf_error (c, line,
                                   "BlockName: topology/block's file, not a tree of "
                                   "switches");
            return conf_error (c, line, "unknown key '%s'", errsafe (w, 40));
        }
        if (nword++ == 0 && k != 0)
            return conf_error (c, line, "%s= before SwitchName=", keys[k]);
        if (val[k])
            return conf_error (c, line, "%s= given twice", keys[k]);
        val[k] = eq + 1;
    }
    if (nword == 0)
        return 0;
    if (!name_ok (val[0]))
        return conf_error (c, line,
                           "SwitchName='%s': not a name ([A-Za-z0-9._-], numbers "
                           "of 9 digits at most)",
                           errsafe (val[0], 60));
    if (val[1] && val[2])
        return conf_error (c, line,
                           "switch '%s' has both Nodes= and Switches=", errsafe (val[0], 60));
    if (!val[1] && !val[2])
        return conf_error (c, line,
                           "switch '%s' has neither Nodes= nor Switches=", errsafe (val[0], 60));
    if (c->nsw == c->maxsw) {
        int max = c->maxsw ? 2 * c->maxsw : 64;
        sw_t *more = realloc (c->sw, (size_t)max * sizeof (*more));
        if (!more)
            return nomem (c);
        c->sw = more;
        c->maxsw = max;
    }
    sw_t *s = &c->sw[c->nsw];
    *s = (sw_t){strdup (val[0]),
                line,
                val[1] ? strdup (val[1]) : NULL,
                val[2] ? strdup (val[2]) : NULL,
                -1,
                false};
    c->nsw++;
    if (!s->name || (val[1] && !s->nodes) || (val[2] && !s->switches))
        return nomem (c);
    return 0;
}

/* The source's line of the text's line: the same but where a map is given. */
static int conf_line (const conf_t *c, int line)
{
    return c->lines && line >= 1 && line <= c->nlines ? c->lines[line - 1] : line;
}

/* The file's logical lines: comments cut, '\' joins the next line. */
static int parse_text (conf_t *c, char *text, topoconf_level_t *levels)
{
    char *p = text;
    int line = 1;

    p += file_bom (p, strnlen (p, 3));

    while (*p) {
        char *start = p, *w = p;
        int first = conf_line (c, line);
        /* join continued lines in place: a '\' before the newline */
        for (;;) {
            char *nl = strchr (p, '\n');
            char *end = nl ? nl : p + strlen (p);
            size_t len = (size_t)(end - p);
            bool more = len > 0 && p[len - 1] == '\\' && nl;
            memmove (w, p, more ? len - 1 : len);
            w += more ? len - 1 : len;
            if (more)
                *w++ = ' ';
            p = nl ? nl + 1 : end;
            if (nl)
                line++;
            if (!more)
                break;
        }
        *w = '\0';
        if (!strncmp (start, FIGURES_TAG, strlen (FIGURES_TAG))) {
            if (parse_figures (c, first, start + strlen (FIGURES_TAG), levels) < 0)
                return -1;
            continue;
        }
        char *hash = strchr (start, '#');
        if (hash)
            *hash = '\0';
        for (char *q = start; *q; q++)
            if (iscntrl ((unsigned char)*q) && *q != '\t' && *q != '\r')
                return conf_error (c, first, "a control character");
        if (parse_switch (c, first, start) < 0)
            return -1;
    }
    return 0;
}

/* The index of switch name in the sorted idx[0..n), -1. */
static int find (const entry_t *idx, int n, const char *name)
{
    int lo = 0, hi = n - 1;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, cmp = strcmp (idx[mid].name, name);
        if (!cmp) {
            while (mid > 0 && !strcmp (idx[mid - 1].name, name))
                mid--;
            return mid;
        }
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static void conf_free (conf_t *c)
{
    for (int i = 0; i < c->nsw; i++) {
        free (c->sw[i].name);
        free (c->sw[i].nodes);
        free (c->sw[i].switches);
    }
    free (c->sw);
}

/* The switches' parents, checked: children defined, one parent each, no
 * loop.  idx: the switches by name.
 */
static int link_switches (conf_t *c, entry_t *idx)
{
    for (int i = 0; i < c->nsw; i++)
        idx[i] = (entry_t){c->sw[i].name, i, c->sw[i].line};
    qsort (idx, (size_t)c->nsw, sizeof (*idx), entry_cmp);
    for (int k = 1; k < c->nsw; k++)
        if (!strcmp (idx[k].name, idx[k - 1].name))
            return conf_error (c, idx[k].line, "switch '%s' already defined on line %d",
                               errsafe (idx[k].name, 60), idx[k - 1].line);
    for (int i = 0; i < c->nsw; i++) {
        sw_t *s = &c->sw[i];
        char **kids;
        int nk, rc = 0;
        tm_error_t e;

        if (!s->switches)
            continue;
        if (!topoconf_hostlist_ok (s->switches))
            return conf_error (c, s->line, "Switches='%s': not a host list",
                               errsafe (s->switches, 60));
        if (!(kids = compat_hostlist_expand (s->switches, &nk, &e)))
            return errno == ENOMEM ? nomem (c) : conf_error (c, s->line, "Switches=%s", e.text);
        for (int k = 0; k < nk && rc == 0; k++) {
            int j = find (idx, c->nsw, kids[k]);
            if (j < 0 || idx[j].i == i)
                rc = conf_error (c, s->line, "switch '%s': child switch '%s' %s",
                                 errsafe (s->name, 60), errsafe (kids[k], 60),
                                 j < 0 ? "is not defined" : "is itself");
            else if (c->sw[idx[j].i].parent >= 0)
                rc = conf_error (c, s->line, "switch '%s' is under both '%s' (line %d) and '%s'",
                                 errsafe (kids[k], 60),
                                 errsafe (c->sw[c->sw[idx[j].i].parent].name, 40),
                                 c->sw[c->sw[idx[j].i].parent].line, errsafe (s->name, 40));
            else
                c->sw[idx[j].i].parent = i;
        }
        compat_names_free (kids, nk);
        if (rc < 0)
            return -1;
    }
    for (int i = 0; i < c->nsw; i++) {
        int steps = 0, u;

        for (u = c->sw[i].parent; u >= 0; u = c->sw[u].parent)
            if (++steps > TOPOCONF_MAX_LEVELS)
                break;
        if (u < 0)
            continue;
        /* Too deep, or a loop: walked to the end once, then refused. */
        for (steps = 0; u >= 0 && steps <= c->nsw; u = c->sw[u].parent)
            steps++;
        if (u >= 0)
            return conf_error (c, c->sw[i].line, "switch '%s' is above itself: a loop",
                               errsafe (c->sw[i].name, 60));
        return conf_error (c, c->sw[i].line, "switch '%s' has more than %d switches above it",
                           errsafe (c->sw[i].name, 60), TOPOCONF_MAX_LEVELS);
    }
    return 0;
}

/* Every node of the leaf switches with its switch, sorted by name; a node
 * under two is refused.  *nodes, *nn: the entries (names owned by *all).
 */
static int leaf_nodes (conf_t *c, entry_t **nodes, int *nn, char ***all)
{
    int max = 0;

    *nodes = NULL;
    *all = NULL;
    *nn = 0;
    for (int i = 0; i < c->nsw; i++) {
        sw_t *s = &c->sw[i];
        char **names;
        int n;
        tm_error_t e;

        if (!s->nodes)
            continue;
        if (!topoconf_hostlist_ok (s->nodes))
            return conf_error (c, s->line, "Nodes='%s': not a host list", errsafe (s->nodes, 60));
        if (!(names = compat_hostlist_expand (s->nodes, &n, &e)))
            return errno == ENOMEM ? nomem (c) : conf_error (c, s->line, "Nodes=%s", e.text);
        for (int k = 0; k < n; k++)
            if (!name_ok (names[k]) || n > TOPOCONF_MAX_NODES - *nn) {
                int rc = n > TOPOCONF_MAX_NODES - *nn
                             ? conf_error (c, s->line, "more than %d nodes", TOPOCONF_MAX_NODES)
                             : conf_error (c, s->line,
                                           "Nodes=: '%s' is not a node name "
                                           "([A-Za-z0-9._-])",
                                           errsafe (names[k], 60));
                compat_names_free (names, n);
                return rc;
            }
        if (*nn + n > max) {
            max = 2 * (*nn + n);
            entry_t *more = realloc (*nodes, (size_t)max * sizeof (*more));
            char **morenames = realloc (*all, (size_t)max * sizeof (*morenames));
            if (more)
                *nodes = more;
            if (morenames)
                *all = morenames;
            if (!more || !morenames) {
                compat_names_free (names, n);
                return nomem (c);
            }
        }
        for (int k = 0; k < n; k++) {
            (*all)[*nn] = names[k];
            (*nodes)[*nn] = (entry_t){names[k], i, s->line};
            (*nn)++;
        }
        free (names); /* the strings now belong to *all */
    }
    entry_t *sorted = malloc ((size_t)(*nn + 1) * sizeof (*sorted));
    if (!sorted)
        return nomem (c);
    memcpy (sorted, *nodes, (size_t)*nn * sizeof (*sorted));
    qsort (sorted, (size_t)*nn, sizeof (*sorted), entry_cmp);
    for (int k = 1; k < *nn; k++)
        if (!strcmp (sorted[k].name, sorted[k - 1].name)) {
            int a = sorted[k - 1].i, b = sorted[k].i;
            int rc = conf_error (c, c->sw[b].line,
                                 "node '%s' is under both switch '%s' (line %d) "
                                 "and '%s'",
                                 errsafe (sorted[k].name, 60), errsafe (c->sw[a].name, 40),
                                 c->sw[a].line, errsafe (c->sw[b].name, 40));
            free (sorted);
            return rc;
        }
    /* keep the file's order in *all; *nodes sorted for look-ups */
    free (*nodes);
    *nodes = sorted;
    return 0;
}

/* The tree over hosts (their leaf switches in sw_of[]): the used switches,
 * the root their nearest common one.
 */
static topo_t *build_tree (conf_t *c, int n, const int *sw_of)
{
    int *vert = malloc ((size_t)(c->nsw + 1) * sizeof (*vert)), nroots = 0, nv = n, root;
    topo_t *t = NULL;

    if (!vert) {
        nomem (c);
        return NULL;
    }
    for (int h = 0; h < n; h++)
        for (int u = sw_of[h]; u >= 0 && !c->sw[u].used; u = c->sw[u].parent)
            c->sw[u].used = true;
    for (int i = 0; i < c->nsw; i++) {
        vert[i] = c->sw[i].used ? nv++ : -1;
        nroots += c->sw[i].used && c->sw[i].parent < 0;
    }
    root = nroots > 1 ? nv++ : -1; /* over the file's roots */
    if (!(t = topo_alloc (TOPO_TREE, n, nv, c->errp))) {
        free (vert);
        return NULL;
    }
    for (int h = 0; h < n; h++)
        t->parent[h] = vert[sw_of[h]];
    for (int i = 0; i < c->nsw; i++)
        if (vert[i] >= 0)
            t->parent[vert[i]] = c->sw[i].parent >= 0 ? vert[c->sw[i].parent] : root;
    free (vert);
    /* the nearest common switch: drop roots with one child and no host */
    for (;;) {
        int r = -1, kids = 0, child = -1;
        for (int v = 0; v < t->nvertices; v++)
            if (t->parent[v] == -1 && v >= n && r < 0)
                r = v;
        for (int v = 0; v < t->nvertices; v++)
            if (t->parent[v] == r) {
                kids++;
                child = v;
            }
        if (r < 0 || kids != 1 || child < n)
            break;
        t->parent[child] = -1;
        t->parent[r] = -2; /* gone */
    }
    /* renumber the switches left */
    int *renum = malloc ((size_t)t->nvertices * sizeof (*renum)), m = 0;
    if (!renum) {
        topo_destroy (t);
        nomem (c);
        return NULL;
    }
    for (int v = 0; v < t->nvertices; v++)
        renum[v] = t->parent[v] == -2 ? -1 : m++;
    topo_t *u = topo_alloc (TOPO_TREE, n, m, c->errp);
    if (u) {
        u->signal = TOPO_SIGNAL_SITE;
        for (int v = 0; v < t->nvertices; v++)
            if (renum[v] >= 0)
                u->parent[renum[v]] = t->parent[v] < 0 ? -1 : renum[t->parent[v]];
        /* height: the switches on the shortest way down, itself included */
        for (int v = n; v < m; v++)
            u->height[v] = INFINITY;
        for (bool changed = true; changed;) {
            changed = false;
            for (int v = 0; v < m; v++) {
                int p = u->parent[v];
                double h = v < n ? 1 : u->height[v] + 1;
                if (p >= 0 && h < u->height[p]) {
                    u->height[p] = h;
                    changed = true;
                }
            }
        }
        /* groups: hosts of one edge switch, numbered by their lowest host */
        int *gid = malloc ((size_t)m * sizeof (*gid));
        if (!gid) {
            topo_destroy (u);
            u = NULL;
            nomem (c);
        } else {
            for (int v = 0; v < m; v++)
                gid[v] = -1;
            u->ngroups = 0;
            for (int h = 0; h < n; h++) {
                if (gid[u->parent[h]] < 0)
                    gid[u->parent[h]] = u->ngroups++;
                u->group[h] = gid[u->parent[h]];
            }
            free (gid);
        }
    }
    free (renum);
    topo_destroy (t);
    if (u && topo_check (u, c->errp) < 0) {
        topo_destroy (u);
        u = NULL;
    }
    return u;
}

topo_t *topoconf_read (const char *path, int *n, char ***hosts, topoconf_level_t *levels,
                       tm_error_t *errp)
{
    conf_t c = {.path = path, .errp = errp};
    char *text = NULL;
    size_t len;
    topo_t *t = NULL;

    for (int l = 0; l < TOPOCONF_LEVELS; l++)
        levels[l] = (topoconf_level_t){NAN, NAN};
    if (file_slurp (path, TOPOCONF_MAX_BYTES, &text, &len, errp) < 0)
        return NULL;
    if (memchr (text, '\0', len))
        conf_error (&c, 0, "a NUL byte: not a text file");
    else
        t = topoconf_parse (text, path, NULL, 0, n, hosts, levels, errp);
    free (text);
    return t;
}

topo_t *topoconf_parse (char *text, const char *source, const int *lines, int nlines, int *n,
                        char ***hosts, topoconf_level_t *levels, tm_error_t *errp)
{
    conf_t c = {.path = source, .lines = lines, .nlines = nlines, .errp = errp};
    char **all = NULL;
    entry_t *idx = NULL, *nodes = NULL;
    int nn = 0, *sw_of = NULL;
    topo_t *t = NULL;

    for (int l = 0; l < TOPOCONF_LEVELS; l++)
        levels[l] = (topoconf_level_t){NAN, NAN};
    if (parse_text (&c, text, levels) < 0)
        goto done;
    if (c.nsw == 0) {
        conf_error (&c, 0, "no SwitchName= line");
        goto done;
    }
    if (!(idx = malloc ((size_t)c.nsw * sizeof (*idx)))) {
        nomem (&c);
        goto done;
    }
    if (link_switches (&c, idx) < 0 || leaf_nodes (&c, &nodes, &nn, &all) < 0)
        goto done;
    if (!*hosts) { /* every node of the file */
        *hosts = all;
        *n = nn;
        all = NULL;
        if (nn == 0) {
            conf_error (&c, 0, "no node under any switch");
            goto done;
        }
    }
    if (!(sw_of = malloc ((size_t)*n * sizeof (*sw_of)))) {
        nomem (&c);
        goto done;
    }
    for (int h = 0; h < *n; h++) {
        int k = find (nodes, nn, (*hosts)[h]);
        if (k < 0) {
            conf_error (&c, 0, "node '%s' is under no switch", errsafe ((*hosts)[h], 60));
            goto done;
        }
        sw_of[h] = nodes[k].i;
    }
    t = build_tree (&c, *n, sw_of);
done:
    if (all)
        compat_names_free (all, nn);
    free (idx);
    free (nodes);
    free (sw_of);
    conf_free (&c);
    return t;
}

netmap_t *topoconf_netmap (topo_t *t, int n, const char *const *hosts,
                           const topoconf_level_t *levels, tm_error_t *errp)
{
    netmap_t *nm = NULL;
    int *depth = NULL;

    if (!t || t->model != TOPO_TREE || t->nhosts != n) {
        errno = EINVAL;
        errprintf (errp, "not a switch tree of %d hosts", n);
        goto fail;
    }
    if (!(depth = topo_depths (t)) || !(nm = netmap_create (n, hosts, errp))) {
        if (!depth) {
            errnomem (errp);
        }
        goto fail;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int l = topo_level (t, depth, a, b);
            if (l < 1 || l >= TOPOCONF_LEVELS || isnan (levels[l].lat_us)) {
                errno = ENODATA;
                errprintf (errp, "level %d (%s to %s) has no figures", l, hosts[a], hosts[b]);
                goto fail;
            }
            NETMAP_AT (nm, lat_us, a, b) = NETMAP_AT (nm, lat_us, b, a) = levels[l].lat_us;
            NETMAP_AT (nm, bw_MBps, a, b) = NETMAP_AT (nm, bw_MBps, b, a) = levels[l].bw_MBps;
        }
    nm->topo = t;
    nm->timestamp = time (NULL);
    free (depth);
    return nm;
fail:
    free (depth);
    netmap_destroy (nm);
    topo_destroy (t);
    return NULL;
}

/* Per level, the medians of its pairs' figures (netmap_level_medians). */
static int level_figures (const netmap_t *nm, const topo_t *t, const int *depth,
                          topoconf_level_t *levels)
{
    double lat[TOPOCONF_LEVELS], bw[TOPOCONF_LEVELS];

    if (netmap_level_medians (nm, t, depth, TOPOCONF_LEVELS, lat, bw) < 0)
        return -1;
    for (int l = 0; l < TOPOCONF_LEVELS; l++)
        levels[l] = (topoconf_level_t){lat[l], bw[l]};
    return 0;
}

/* The children of switch s, in order of their lowest host, into kid[];
 * how many. */
static int children (const topo_t *t, int s, int *kid)
{
    int nk = 0;

    for (int h = 0; h < t->nhosts; h++) {
        int v = h;
        while (v >= 0 && t->parent[v] != s)
            v = t->parent[v];
        if (v < 0)
            continue;
        int k = 0;
        while (k < nk && kid[k] != v)
            k++;
        if (k == nk)
            kid[nk++] = v;
    }
    return nk;
}

/* The host under vertex v in the fewest pairs so far (uses[]), the lowest
 * of those; with x >= 0, one not yet paired with x in out[0..np). */
static int host_under (const topo_t *t, int v, const int *uses, int x, const pairs_t *out, int np)
{
    int best = -1;

    for (int h = 0; h < t->nhosts; h++) {
        int u = h, paired = 0;
        while (u >= 0 && u != v)
            u = t->parent[u];
        if (u != v || (best >= 0 && uses[h] >= uses[best]))
            continue;
        for (int k = 0; k < np && x >= 0; k++)
            paired |= (out[k].a == x && out[k].b == h) || (out[k].a == h && out[k].b == x);
        if (!paired)
            best = h;
    }
    return best;
}

/* Pair x, y (any order) into out[np] unless they are one host or paired
 * in out[from..np) already (pairs of other levels cannot be the same);
 * uses[] counts each host's pairs.  1 if added, 0 if not, -1 with errp
 * when out is full. */
static int pair_add (int x, int y, int *uses, pairs_t *out, int from, int *np, int max,
                     tm_error_t *errp)
{
    if (x < 0 || y < 0 || x == y)
        return 0;
    if (x > y) {
        int z = x;
        x = y;
        y = z;
    }
    for (int k = from; k < *np; k++)
        if (out[k].a == x && out[k].b == y)
            return 0;
    if (*np == max) {
        errno = ENOSPC;
        return errprintf (errp, "more than %d pairs", max);
    }
    out[(*np)++] = (pairs_t){x, y};
    uses[x]++;
    uses[y]++;
    return 1;
}

int topoconf_pairs (const topo_t *t, int per_level, pairs_t *out, int max, tm_error_t *errp)
{
    int nv, np = 0, *sws = NULL, *kid = NULL, *rep = NULL, *uses = NULL;

    if (!t || t->model != TOPO_TREE || per_level < 1 || max < 0) {
        errno = EINVAL;
        return errprintf (errp, "not a switch tree, or no pairs asked for");
    }
    nv = t->nvertices;
    sws = malloc ((size_t)nv * sizeof (*sws));
    kid = malloc ((size_t)nv * sizeof (*kid));
    rep = malloc ((size_t)nv * sizeof (*rep));
    uses = calloc ((size_t)t->nhosts, sizeof (*uses));
    if (!sws || !kid || !rep || !uses) {
        np = errnomem (errp);
        goto done;
    }
    for (int l = 1; l < TOPOCONF_LEVELS; l++) {
        int ns = 0, got = 0, rc, level = np;
        for (int v = t->nhosts; v < nv; v++)
            if ((int)t->height[v] == l && children (t, v, kid) >= 2)
                sws[ns++] = v;
        /* every link below a switch crossed by pairs to the children one
         * and two further round it (all of them where it has five or
         * fewer; one pair for two children): one host under each child,
         * so the pairs that cross one link share its host and fall in
         * different rounds (pairs_rounds) */
        for (int i = 0; i < ns; i++) {
            int nk = children (t, sws[i], kid);
            for (int k = 0; k < nk; k++)
                rep[k] = host_under (t, kid[k], uses, -1, out, np);
            for (int d = 1; d <= 2; d++)
                for (int k = 0; k < nk; k++) {
                    if ((rc = pair_add (rep[k], rep[(k + d) % nk], uses, out, level, &np, max,
                                        errp)) < 0) {
                        np = -1;
                        goto done;
                    }
                    got += rc;
                }
        }
        /* then up to per_level pairs a level, spread over its switches,
         * on hosts not yet paired where the tree has them: the r-th
         * visit of a switch takes its children r and r + 1 */
        for (int j = 0; j < 2 * per_level * ns && got < per_level; j++) {
            int s = sws[j % ns], r = 1 + j / ns;
            int nk = children (t, s, kid);
            int x = host_under (t, kid[r % nk], uses, -1, out, np);
            if ((rc = pair_add (x, host_under (t, kid[(r + 1) % nk], uses, x, out, np), uses, out,
                                level, &np, max, errp)) < 0) {
                np = -1;
                goto done;
            }
            got += rc;
        }
    }
done:
    free (sws);
    free (kid);
    free (rep);
    free (uses);
    return np;
}

int topoconf_fill (netmap_t *nm, topo_t *t, topoconf_level_t *levels, tm_error_t *errp)
{
    double lat[TOPOCONF_LEVELS], bw[TOPOCONF_LEVELS];

    if (!t || t->model != TOPO_TREE || t->nhosts != nm->n) {
        errno = EINVAL;
        errprintf (errp, "not a switch tree of %d hosts", nm->n);
        topo_destroy (t);
        return -1;
    }
    if (topo_links_fill (nm, t, TOPOCONF_LEVELS, lat, bw, errp) < 0) {
        topo_destroy (t);
        return -1;
    }
    topo_destroy (nm->topo);
    nm->topo = t;
    for (int l = 0; levels && l < TOPOCONF_LEVELS; l++)
        levels[l] = (topoconf_level_t){lat[l], bw[l]};
    return 0;
}

/* Switch v's name: "l<height>s<index>", index in order of lowest host
 * (low[]) among the switches of its height; extra leaf switches after. */
typedef struct {
    int v, height, low;
} swname_t;

static int swname_cmp (const void *a, const void *b)
{
    const swname_t *x = a, *y = b;

    return x->height != y->height ? x->height - y->height : x->low - y->low;
}

int topoconf_write (FILE *f, const netmap_t *nm, const char *source, tm_error_t *errp)
{
    const topo_t *t = nm->topo;
    int n = nm->n, *depth = NULL, *low = NULL, nsw, *extra = NULL, rc = -1;
    swname_t *sw = NULL;
    const char **names = NULL;
    char *list = NULL;
    topoconf_level_t levels[TOPOCONF_LEVELS];

    if (!t || t->model != TOPO_TREE) {
        errno = EINVAL;
        return errprintf (errp, "the netmap has %s, not a switch tree",
                          t ? "groups" : "no topology");
    }
    if ((nsw = t->nvertices - n) < 1) {
        errno = EINVAL;
        return errprintf (errp,
                          "the netmap's tree has no switch (%d host%s): nothing for "
                          "topology.conf",
                          n, n == 1 ? "" : "s");
    }
    depth = topo_depths (t);
    low = malloc ((size_t)t->nvertices * sizeof (*low));
    extra = malloc ((size_t)t->nvertices * sizeof (*extra));
    sw = malloc ((size_t)nsw * sizeof (*sw) + 1);
    names = malloc (((size_t)t->nvertices + 1) * sizeof (*names));
    char (*label)[32] = malloc ((size_t)t->nvertices * 2 * sizeof (*label));
    if (!depth || !low || !extra || !sw || !names || !label ||
        level_figures (nm, t, depth, levels) < 0) {
        errnomem (errp);
        goto done;
    }
    for (int v = 0; v < t->nvertices; v++)
        low[v] = -1;
    for (int h = 0; h < n; h++)
        for (int u = h; u >= 0 && low[u] < 0; u = t->parent[u])
            low[u] = h;
    for (int v = n; v < t->nvertices; v++)
        sw[v - n] = (swname_t){v, (int)t->height[v], low[v]};
    qsort (sw, (size_t)nsw, sizeof (*sw), swname_cmp);
    /* names by height; a switch with hosts and switches both: its hosts
     * on an extra leaf, numbered after the edge switches */
    int per[TOPOCONF_LEVELS + 1] = {0}, nextra = 0;
    for (int k = 0; k < nsw; k++) {
        int v = sw[k].v, h = sw[k].height < TOPOCONF_LEVELS ? sw[k].height : TOPOCONF_LEVELS;
        bool hosts = false, kids = false;
        snprintf (label[v], sizeof (label[v]), "l%ds%d", h, ++per[h]);
        for (int u = 0; u < t->nvertices; u++)
            if (t->parent[u] == v)
                *(u < n ? &hosts : &kids) = true;
        extra[v] = hosts && kids ? nextra++ : -1;
    }
    for (int v = n; v < t->nvertices; v++)
        if (extra[v] >= 0)
            snprintf (label[t->nvertices + v], sizeof (label[0]), "l1s%d", per[1] + 1 + extra[v]);

    fprintf (f, "# topology.conf for Slurm's topology/tree, written by topomap %s\n",
             PACKAGE_VERSION);
    if (t->signal == TOPO_SIGNAL_SITE)
        fprintf (f, "# from %s (%d nodes): the site's switch tree.\n", source, n);
    else
        fprintf (f, "# from %s (%d nodes, job %s): the switch tree the %s fit, residual %.3f.\n",
                 source, n, nm->jobid[0] ? nm->jobid : "unknown",
                 t->signal == TOPO_SIGNAL_BANDWIDTH ? "bandwidths" : "latencies",
                 isnan (t->residual) ? 0.0 : t->residual);
    fprintf (f, "# Switch names are topomap's (l<level>s<index>), not the site's: review before "
                "use.\n");
    for (int l = 1; l < TOPOCONF_LEVELS; l++)
        if (!isnan (levels[l].lat_us))
            fprintf (f, FIGURES_TAG "level=%d latency_us=%.4g bandwidth_MBps=%.4g\n", l,
                     levels[l].lat_us, levels[l].bw_MBps);
    for (int k = 0; k < nsw; k++) {
        int v = sw[k].v, nh = 0, nk = 0;
        tm_error_t e;
        for (int u = 0; u < n; u++)
            if (t->parent[u] == v)
                names[nh++] = nm->hosts[u];
        if (nh > 0) {
            if (!(list = compat_hostlist_ranged (names, nh, &e))) {
                errprintf (errp, "%s", e.text);
                goto done;
            }
            fprintf (f, "SwitchName=%s Nodes=%s\n",
                     extra[v] >= 0 ? label[t->nvertices + v] : label[v], list);
            free (list);
            list = NULL;
        }
        if (nh > 0 && extra[v] < 0)
            continue;
        if (extra[v] >= 0)
            names[nk++] = label[t->nvertices + v];
        for (int u = n; u < t->nvertices; u++)
            if (t->parent[u] == v)
                names[nk++] = label[u];
        if (!(list = compat_hostlist_ranged (names, nk, &e))) {
            errprintf (errp, "%s", e.text);
            goto done;
        }
        fprintf (f, "SwitchName=%s Switches=%s\n", label[v], list);
        free (list);
        list = NULL;
    }
    if (ferror (f)) {
        errprintf (errp, "%s", strerror (errno));
        goto done;
    }
    rc = 0;
done:
    free (depth);
    free (low);
    free (extra);
    free (sw);
    free (names);
    free (label);
    free (list);
    return rc;
}
