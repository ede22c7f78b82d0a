/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurmtopo.c: the order Slurm lays a step out in over a topology
 * (slurmtopo.h).  Keys a line carries beyond those read are passed over:
 * the lines are Slurm's own print, which later releases may extend.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/compat.h"
#include "lib/slurmtopo.h"
#include "lib/topoconf.h"

typedef enum { KIND_NONE, KIND_TREE, KIND_BLOCK } kind_t;

/* An allocation node's name and index, sorted by name for bsearch. */
typedef struct {
    const char *name;
    int i;
} named_t;

static int named_cmp (const void *a, const void *b)
{
    return strcmp (((const named_t *)a)->name, ((const named_t *)b)->name);
}

/* What one line says: its kind, whether it ranks nodes, the rank it
 * gives them (tree: counted by the caller), and its Nodes=.
 */
typedef struct {
    kind_t kind;
    bool ranks;
    long index;     /* BlockIndex=, Level= */
    char *name;     /* SwitchName=, BlockName=, AggregatedBlock= */
    char *nodes;    /* Nodes=; these three into the line, NULL when none */
    char *switches; /* Switches= */
} line_t;

static int number (const char *s, long *v)
{
    char *end;

    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    *v = strtol (s, &end, 10);
    return errno || *end || *v > INT_MAX ? -1 : 0;
}

/* Parse one line (modified in place) into l: 0, 1 when its first key is
 * of a kind not predicted (why set), -1 with errp.
 */
static int parse_line (char *text, int lineno, line_t *l, char *why, size_t whylen,
                       tm_error_t *errp)
{
    char *save = NULL, *idx = NULL;
    int nword = 0;

    *l = (line_t){KIND_NONE, false, 0, NULL, NULL, NULL};
    for (char *w = strtok_r (text, " \t\r", &save); w; w = strtok_r (NULL, " \t\r", &save)) {
        char *eq = strchr (w, '=');

        if (!eq || eq == w)
            return errprintf (errp, "topology line %d: '%s': not KEY=VALUE", lineno,
                              errsafe (w, 60));
        *eq++ = '\0';
        if (nword++ == 0) {
            l->name = eq;
            if (!strcasecmp (w, "SwitchName"))
                l->kind = KIND_TREE;
            else if (!strcasecmp (w, "BlockName") || !strcasecmp (w, "AggregatedBlock")) {
                l->kind = KIND_BLOCK;
                l->ranks = !strcasecmp (w, "BlockName");
            } else {
                snprintf (why, whylen,
                          "Slurm's topology is of a kind topomap does not read "
                          "(%s=)",
                          errsafe (w, 40));
                return 1;
            }
        } else if (!strcasecmp (w, "Nodes"))
            l->nodes = eq;
        else if (!strcasecmp (w, "Switches"))
            l->switches = eq;
        else if ((l->kind == KIND_TREE && !strcasecmp (w, "Level")) ||
                 (l->kind == KIND_BLOCK && !strcasecmp (w, "BlockIndex")))
            idx = eq;
    }
    if (nword == 0)
        return 0;
    if (!idx)
        return errprintf (errp, "topology line %d: no %s=", lineno,
                          l->kind == KIND_TREE ? "Level" : "BlockIndex");
    if (number (idx, &l->index) < 0)
        return errprintf (errp, "topology line %d: '%s': not a number", lineno, errsafe (idx, 40));
    if (l->kind == KIND_TREE)
        l->ranks = l->index == 0;
    if (l->nodes && !topoconf_hostlist_ok (l->nodes))
        return errprintf (errp, "topology line %d: Nodes='%s': not a host list", lineno,
                          errsafe (l->nodes, 60));
    if (l->switches && !topoconf_hostlist_ok (l->switches))
        return errprintf (errp, "topology line %d: Switches='%s': not a list of names", lineno,
                          errsafe (l->switches, 60));
    return 0;
}

/* The next line of *text (advanced past it) that says something, into l:
 * 1, its kind that of the lines before (*kind, set by the first); 2 with
 * why set for a kind topomap does not read; 0 at the end; -1 with errp
 * (EINVAL).
 */
static int next_line (char **text, int *lineno, kind_t *kind, line_t *l, char *why, size_t whylen,
                      tm_error_t *errp)
{
    while (*text) {
        char *s = *text, *end = strchr (s, '\n');
        int prc;

        if (end)
            *end++ = '\0';
        *text = end;
        ++*lineno;
        if ((prc = parse_line (s, *lineno, l, why, whylen, errp)) != 0) {
            if (prc < 0)
                errno = EINVAL;
            return prc < 0 ? -1 : 2;
        }
        if (l->kind == KIND_NONE)
            continue;
        if (*kind != KIND_NONE && l->kind != *kind) {
            errno = EINVAL;
            return errprintf (errp, "topology line %d: a %s line among %s lines", *lineno,
                              l->kind == KIND_TREE ? "switch" : "block",
                              *kind == KIND_TREE ? "switch" : "block");
        }
        *kind = l->kind;
        return 1;
    }
    return 0;
}

/* Rank the allocation's nodes that l's host list names and that have
 * none yet (Slurm takes a node's first leaf or block).
 */
static int rank_nodes (const line_t *l, int lineno, int r, const named_t *by_name, int n,
                       bool *ranked, int *rank, tm_error_t *errp)
{
    tm_error_t e;
    char **names;
    int nn;

    if (!(names = compat_hostlist_expand (l->nodes, &nn, &e)))
        return errprintf (errp, "topology line %d: %s", lineno, e.text);
    for (int k = 0; k < nn; k++) {
        named_t key = {names[k], 0};
        const named_t *hit = bsearch (&key, by_name, (size_t)n, sizeof (key), named_cmp);

        if (hit && !ranked[hit->i]) {
            ranked[hit->i] = true;
            rank[hit->i] = r;
        }
    }
    compat_names_free (names, nn);
    return 0;
}

int slurmtopo_ranks (const char *text, const char *param, int n, char *const *nodes, int *rank,
                     char *name, size_t namelen, char *why, size_t whylen, tm_error_t *errp)
{
    kind_t kind = KIND_NONE;
    named_t *by_name = NULL;
    bool *ranked = NULL;
    char *copy = NULL;
    line_t l;
    int lineno = 0, leaf = 0, prc, rc = -1;

    why[0] = '\0';
    snprintf (name, namelen, "allocation order");
    if (n < 1 || !nodes || !rank) {
        errno = EINVAL;
        return errprintf (errp, "no nodes to rank");
    }
    for (int i = 0; i < n; i++)
        rank[i] = 0;
    if (!text || !text[0]) {
        snprintf (name, namelen, "allocation order (topology/flat)");
        return SLURMTOPO_ALLOC;
    }
    if (!(copy = strdup (text)) || !(by_name = malloc ((size_t)n * sizeof (*by_name))) ||
        !(ranked = calloc ((size_t)n, sizeof (*ranked)))) {
        errnomem (errp);
        goto out;
    }
    for (int i = 0; i < n; i++)
        by_name[i] = (named_t){nodes[i], i};
    qsort (by_name, (size_t)n, sizeof (*by_name), named_cmp);
    for (char *s = copy; (prc = next_line (&s, &lineno, &kind, &l, why, whylen, errp)) > 0;) {
        if (prc == 2) {
            snprintf (name, namelen, "an order not predicted");
            rc = SLURMTOPO_UNKNOWN;
            goto out;
        }
        if (!l.ranks || !l.nodes)
            continue;
        if (rank_nodes (&l, lineno, kind == KIND_TREE ? ++leaf : (int)l.index, by_name, n, ranked,
                        rank, errp) < 0) {
            errno = EINVAL;
            goto out;
        }
    }
    if (prc < 0)
        goto out;
    if (kind == KIND_NONE) {
        snprintf (name, namelen, "allocation order (topology/flat)");
        rc = SLURMTOPO_ALLOC;
        goto out;
    }
    snprintf (name, namelen, "topology order (topology/%s)", kind == KIND_TREE ? "tree" : "block");
    rc = SLURMTOPO_RANKED;
    if (param && ((kind == KIND_TREE && strcasestr (param, "SwitchAsNodeRank")) ||
                  (kind == KIND_BLOCK && strcasestr (param, "BlockAsNodeRank")))) {
        snprintf (why, whylen,
                  "TopologyParam=%s orders Slurm's node table by the topology, which the "
                  "allocation's node list does not show",
                  kind == KIND_TREE ? "SwitchAsNodeRank" : "BlockAsNodeRank");
        rc = SLURMTOPO_UNKNOWN;
    }
out:
    free (copy);
    free (by_name);
    free (ranked);
    return rc;
}

/* A block of slurmtopo_conf's: its line and its nodes, sorted. */
typedef struct {
    line_t l;
    char **nodes;
    int n;
} block_t;

static int str_cmp (const void *a, const void *b)
{
    return strcmp (*(char *const *)a, *(char *const *)b);
}

/* Whether sorted a[0..na) lies within sorted b[0..nb). */
static bool subset (char **a, int na, char **b, int nb)
{
    int j = 0;

    for (int i = 0; i < na; i++) {
        while (j < nb && strcmp (b[j], a[i]) < 0)
            j++;
        if (j == nb || strcmp (b[j], a[i]))
            return false;
    }
    return true;
}

/* Blocks as a tree of switches into f: each base block a leaf, each
 * aggregated block a switch over the blocks it holds that no smaller
 * aggregate holds; named b<BlockIndex> (Slurm names aggregates as host
 * lists, "b[1-2]", which are no switch names). */
static int blocks_conf (block_t *b, int nb, FILE *f, tm_error_t *errp)
{
    int *parent = malloc ((size_t)(nb ? nb : 1) * sizeof (*parent));

    if (!parent)
        return errnomem (errp);
    for (int i = 0; i < nb; i++) {
        parent[i] = -1;
        for (int j = 0; j < nb; j++)
            if (j != i && !b[j].l.ranks && b[j].n > b[i].n &&
                (parent[i] < 0 || b[j].n < b[parent[i]].n) &&
                subset (b[i].nodes, b[i].n, b[j].nodes, b[j].n))
                parent[i] = j;
    }
    for (int i = 0; i < nb; i++) {
        bool first = true;

        if (b[i].l.ranks) {
            fprintf (f, "SwitchName=b%ld Nodes=%s\n", b[i].l.index, b[i].l.nodes);
            continue;
        }
        for (int j = 0; j < nb; j++)
            if (parent[j] == i) {
                if (first)
                    fprintf (f, "SwitchName=b%ld Switches=b%ld", b[i].l.index, b[j].l.index);
                else
                    fprintf (f, ",b%ld", b[j].l.index);
                first = false;
            }
        if (!first)
            fputc ('\n', f);
    }
    free (parent);
    return 0;
}

int slurmtopo_conf (const char *text, char **conf, tm_error_t *errp)
{
    kind_t kind = KIND_NONE;
    block_t *b = NULL;
    char *copy = NULL, *buf = NULL, why[128];
    size_t size = 0;
    line_t l;
    int lineno = 0, nb = 0, prc, rc = -1;
    FILE *f = NULL;

    *conf = NULL;
    if (!(copy = strdup (text ? text : "")) || !(f = open_memstream (&buf, &size))) {
        errnomem (errp);
        goto out;
    }
    for (char *s = copy; (prc = next_line (&s, &lineno, &kind, &l, why, sizeof (why), errp)) > 0;) {
        if (prc == 2) {
            errno = ENOTSUP;
            errprintf (errp, "%s", why);
            goto out;
        }
        if (kind == KIND_TREE) {
            /* Slurm prints a switch's nodes below it too: a leaf's only */
            if (l.switches)
                fprintf (f, "SwitchName=%s Switches=%s\n", l.name, l.switches);
            else if (l.nodes)
                fprintf (f, "SwitchName=%s Nodes=%s\n", l.name, l.nodes);
            continue;
        }
        if (!l.nodes)
            continue;
        block_t *more = realloc (b, (size_t)(nb + 1) * sizeof (*b));
        tm_error_t e;

        if (!more) {
            errnomem (errp);
            goto out;
        }
        b = more;
        b[nb].l = l;
        if (!(b[nb].nodes = compat_hostlist_expand (l.nodes, &b[nb].n, &e))) {
            errno = EINVAL;
            errprintf (errp, "topology line %d: %s", lineno, e.text);
            goto out;
        }
        qsort (b[nb].nodes, (size_t)b[nb].n, sizeof (char *), str_cmp);
        nb++;
    }
    if (prc < 0)
        goto out;
    if (kind == KIND_NONE) {
        errno = ENOENT;
        errprintf (errp, "Slurm has no topology of switches or blocks");
        goto out;
    }
    if (kind == KIND_BLOCK && blocks_conf (b, nb, f, errp) < 0)
        goto out;
    if (fclose (f) != 0) {
        f = NULL;
        errnomem (errp);
        goto out;
    }
    f = NULL;
    *conf = buf;
    buf = NULL;
    rc = 0;
out:
    if (f)
        fclose (f);
    free (buf);
    free (copy);
    for (int i = 0; i < nb; i++)
        compat_names_free (b[i].nodes, b[i].n);
    free (b);
    return rc;
}
