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
    long index;  /* BlockIndex=, Level= */
    char *nodes; /* into the line, NULL when none */
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

    *l = (line_t){KIND_NONE, false, 0, NULL};
    for (char *w = strtok_r (text, " \t\r", &save); w; w = strtok_r (NULL, " \t\r", &save)) {
        char *eq = strchr (w, '=');

        if (!eq || eq == w)
            return errprintf (errp, "topology line %d: '%s': not KEY=VALUE", lineno,
                              errsafe (w, 60));
        *eq++ = '\0';
        if (nword++ == 0) {
            if (!strcasecmp (w, "SwitchName"))
                l->kind = KIND_TREE;
            else if (!strcasecmp (w, "BlockName") || !strcasecmp (w, "AggregatedBlock")) {
                l->kind = KIND_BLOCK;
                l->ranks = !strcasecmp (w, "BlockName");
            } else {
                snprintf (why, whylen,
                          "Slurm's topology is of a kind whose order is not predicted "
                          "(%s=)",
                          errsafe (w, 40));
                return 1;
            }
        } else if (!strcasecmp (w, "Nodes"))
            l->nodes = eq;
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
    int lineno = 0, leaf = 0, rc = -1;

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
        errno = ENOMEM;
        errprintf (errp, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++)
        by_name[i] = (named_t){nodes[i], i};
    qsort (by_name, (size_t)n, sizeof (*by_name), named_cmp);
    for (char *s = copy, *end; s; s = end) {
        line_t l;
        int prc;

        if ((end = strchr (s, '\n')))
            *end++ = '\0';
        lineno++;
        if ((prc = parse_line (s, lineno, &l, why, whylen, errp)) < 0) {
            errno = EINVAL;
            goto out;
        }
        if (prc > 0) {
            snprintf (name, namelen, "an order not predicted");
            rc = SLURMTOPO_UNKNOWN;
            goto out;
        }
        if (l.kind == KIND_NONE)
            continue;
        if (kind != KIND_NONE && l.kind != kind) {
            errno = EINVAL;
            errprintf (errp, "topology line %d: a %s line among %s lines", lineno,
                       l.kind == KIND_TREE ? "switch" : "block",
                       kind == KIND_TREE ? "switch" : "block");
            goto out;
        }
        kind = l.kind;
        if (!l.ranks || !l.nodes)
            continue;
        if (rank_nodes (&l, lineno, kind == KIND_TREE ? ++leaf : (int)l.index, by_name, n, ranked,
                        rank, errp) < 0) {
            errno = EINVAL;
            goto out;
        }
    }
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
