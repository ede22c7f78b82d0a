/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topoyaml.c: Slurm's topology.yaml as a topology.conf.  See topoyaml.h. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "lib/file.h"
#include "lib/topoyaml.h"

#define TOPOYAML_MAX_BYTES (16 * 1024 * 1024)
#define TOPOYAML_MAX_SIZES 16
/* Lists and mappings inside one another: a topology's switch is 5 deep,
 * its nodes 6.  libyaml's loader is quadratic in the depth, and in the
 * anchors and aliases (each looked up among all anchors), so the events
 * are counted first (ty_shape).  A topology needs few anchors, if any. */
#define TOPOYAML_MAX_DEPTH   64
#define TOPOYAML_MAX_ANCHORS 1024

typedef struct {
    yaml_document_t *doc;
    const char *path;
    FILE *out;  /* the topology.conf text */
    int *lines; /* the file's line of each line of out */
    int nlines, cap;
    size_t bytes; /* of out so far: aliases count at their expanded size */
    tm_error_t *errp;
} ty_t;

static int ty_error (ty_t *y, const yaml_node_t *at, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static int ty_error (ty_t *y, const yaml_node_t *at, const char *fmt, ...)
{
    char what[200];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (what, sizeof (what), fmt, ap);
    va_end (ap);
    errno = EINVAL;
    return errprintf (y->errp, "%s:%zu: %s", y->path, at ? at->start_mark.line + 1 : 1, what);
}

/* Room for add more bytes of topology.conf text, at (at) in the file:
 * the text is bounded as the file is, so that an alias, written out once
 * per use, cannot multiply it. */
static int ty_room (ty_t *y, const yaml_node_t *at, size_t add)
{
    if (add > TOPOYAML_MAX_BYTES - y->bytes)
        return ty_error (y, at,
                         "more than %d MiB of switches and nodes (an alias counts at its expanded "
                         "size)",
                         TOPOYAML_MAX_BYTES / (1024 * 1024));
    return 0;
}

/* The value of key in the mapping map, or NULL. */
static yaml_node_t *ty_get (ty_t *y, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node (y->doc, p->key);

        if (k && k->type == YAML_SCALAR_NODE && !strcmp ((char *)k->data.scalar.value, key))
            return yaml_document_get_node (y->doc, p->value);
    }
    return NULL;
}

static const char *ty_scalar (const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A word of a topology.conf line: a name or a host list, no blank nor
 * '=' (which would end it or start another key). */
static int ty_word (ty_t *y, const yaml_node_t *at, const char *what, const char *s)
{
    if (!s || !s[0])
        return ty_error (y, at, "%s: empty", what);
    if (strpbrk (s, " \t\r\n=#"))
        return ty_error (y, at, "%s '%s': a blank, '=' or '#' in it", what, errsafe (s, 64));
    return 0;
}

/* A host list or a list of switch names: a string, or a list of strings
 * joined by commas, into *out (a new string). */
static int ty_list (ty_t *y, yaml_node_t *n, const char *what, char **out)
{
    const char *s = ty_scalar (n);
    size_t len = 0, sum = 0;
    char *buf = NULL;
    FILE *f;

    if (s)
        return ty_word (y, n, what, s) < 0   ? -1
               : (*out = strdup (s)) != NULL ? 0
                                             : errnomem (y->errp);
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return ty_error (y, n, "%s: neither a string nor a list of strings", what);
    if (!(f = open_memstream (&buf, &len)))
        return errnomem (y->errp);
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
        yaml_node_t *e = yaml_document_get_node (y->doc, *i);

        if (!(s = ty_scalar (e)) || ty_word (y, e, what, s) < 0 ||
            ty_room (y, e, (sum += strlen (s) + 1)) < 0) {
            if (!s)
                ty_error (y, e, "%s: an entry that is not a string", what);
            fclose (f);
            free (buf);
            return -1;
        }
        fprintf (f, "%s%s", i == n->data.sequence.items.start ? "" : ",", s);
    }
    if (fclose (f) != 0 || len == 0) {
        free (buf);
        return len == 0 ? ty_error (y, n, "%s: an empty list", what) : errnomem (y->errp);
    }
    *out = buf;
    return 0;
}

/* The next line of out comes from the file's line. */
static int ty_from (ty_t *y, int line)
{
    if (y->nlines == y->cap) {
        int cap = y->cap ? 2 * y->cap : 64, *l = realloc (y->lines, (size_t)cap * sizeof (*l));

        if (!l)
            return errnomem (y->errp);
        y->lines = l;
        y->cap = cap;
    }
    y->lines[y->nlines++] = line;
    return 0;
}

/* One SwitchName= line, from the file's line of at. */
static int ty_line (ty_t *y, const yaml_node_t *at, const char *name, const char *key,
                    const char *list)
{
    size_t add = strlen (name) + strlen (key) + strlen (list) + 14; /* "SwitchName= =\n" */

    if (ty_room (y, at, add) < 0 || ty_from (y, (int)at->start_mark.line + 1) < 0)
        return -1;
    y->bytes += add;
    fprintf (y->out, "SwitchName=%s %s=%s\n", name, key, list);
    return 0;
}

/* The levels' figures, as topology.conf gives them (topoconf.h): comment
 * lines "#topomap level=L ..." of the file, carried as they are. */
static int ty_figures (ty_t *y, const char *text, size_t len)
{
    static const char tag[] = "#topomap ";
    const char *end = text + len;
    int line = 1;

    for (const char *p = text + file_bom (text, len), *e; p < end; p = e + 1, line++) {
        e = memchr (p, '\n', (size_t)(end - p));
        e = e ? e : end;
        if ((size_t)(e - p) >= sizeof (tag) - 1 && !memcmp (p, tag, sizeof (tag) - 1)) {
            if (ty_from (y, line) < 0)
                return -1;
            fprintf (y->out, "%.*s\n", (int)(e - p), p);
        }
    }
    return 0;
}

static int ty_tree (ty_t *y, yaml_node_t *tree)
{
    yaml_node_t *sw = ty_get (y, tree, "switches");

    if (!sw || sw->type != YAML_SEQUENCE_NODE)
        return ty_error (y, sw ? sw : tree, "tree: no list of switches");
    for (yaml_node_item_t *i = sw->data.sequence.items.start; i < sw->data.sequence.items.top;
         i++) {
        yaml_node_t *e = yaml_document_get_node (y->doc, *i);
        yaml_node_t *children = ty_get (y, e, "children"), *nodes = ty_get (y, e, "nodes");
        const char *name = ty_scalar (ty_get (y, e, "switch"));
        char *list = NULL;
        int rc;

        if (!e || e->type != YAML_MAPPING_NODE || !name)
            return ty_error (y, e, "a switch without a name (switch:)");
        if (ty_word (y, e, "switch name", name) < 0)
            return -1;
        if (!children == !nodes)
            return ty_error (y, e, "switch %s: %s", name,
                             children ? "both children and nodes" : "neither children nor nodes");
        if (ty_list (y, children ? children : nodes, children ? "children" : "nodes", &list) < 0)
            return -1;
        rc = ty_line (y, e, name, children ? "Switches" : "Nodes", list);
        free (list);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* block_sizes: whole numbers, each a power-of-two multiple of the one
 * before, into sizes[*n]. */
static int ty_sizes (ty_t *y, yaml_node_t *n, long *sizes, int *count)
{
    char *list = NULL, *s, *end;
    int rc = 0;

    *count = 0;
    if (!n)
        return 0;
    if (ty_list (y, n, "block_sizes", &list) < 0)
        return -1;
    for (s = list; *s && rc == 0; s = *end ? end + 1 : end) {
        long v = strtol (s, &end, 10);
        long f = *count ? v / sizes[*count - 1] : 1;

        if (end == s || (*end && *end != ',') || v < 1 || v > 1L << 30)
            rc = ty_error (y, n, "block_sizes: '%s' is not a block size", errsafe (s, 32));
        else if (*count == TOPOYAML_MAX_SIZES)
            rc = ty_error (y, n, "block_sizes: more than %d", TOPOYAML_MAX_SIZES);
        else if (*count && (v % sizes[*count - 1] || f < 2 || (f & (f - 1))))
            rc = ty_error (y, n, "block_sizes: %ld is not a power-of-two multiple of %ld", v,
                           sizes[*count - 1]);
        else
            sizes[(*count)++] = v;
    }
    free (list);
    return rc;
}

static int ty_block (ty_t *y, yaml_node_t *block)
{
    yaml_node_t *bl = ty_get (y, block, "blocks");
    long sizes[TOPOYAML_MAX_SIZES];
    int nsizes, nb, ntop, per;
    const char **names;
    char name[96];

    if (ty_sizes (y, ty_get (y, block, "block_sizes"), sizes, &nsizes) < 0)
        return -1;
    if (!bl || bl->type != YAML_SEQUENCE_NODE ||
        bl->data.sequence.items.top == bl->data.sequence.items.start)
        return ty_error (y, bl ? bl : block, "block: no list of blocks");
    nb = (int)(bl->data.sequence.items.top - bl->data.sequence.items.start);
    if (!(names = calloc ((size_t)nb, sizeof (*names))))
        return errnomem (y->errp);
    for (int b = 0; b < nb; b++) {
        yaml_node_t *e = yaml_document_get_node (y->doc, bl->data.sequence.items.start[b]);
        const char *bname = ty_scalar (ty_get (y, e, "block"));
        char *list = NULL;
        int rc;

        if (!e || e->type != YAML_MAPPING_NODE || !bname) {
            free (names);
            return ty_error (y, e, "a block without a name (block:)");
        }
        if (ty_word (y, e, "block name", bname) < 0 ||
            ty_list (y, ty_get (y, e, "nodes"), "nodes", &list) < 0) {
            free (names);
            return -1;
        }
        names[b] = bname;
        rc = ty_line (y, e, bname, "Nodes", list);
        free (list);
        if (rc < 0) {
            free (names);
            return -1;
        }
    }
    /* Aggregates of consecutive blocks, level by level, then a switch
     * over the top ones: the blocks' tree. */
    ntop = nb;
    for (int k = 1; ntop > 1; k++) {
        int last = k >= nsizes, groups;

        per = last ? ntop : (int)(sizes[k] / sizes[k - 1]);
        groups = (ntop + per - 1) / per;
        for (int g = 0; g < groups; g++) {
            size_t len = 0;
            char *list = NULL;
            FILE *f = open_memstream (&list, &len);

            if (!f) {
                free (names);
                return errnomem (y->errp);
            }
            for (int c = g * per; c < ntop && c < (g + 1) * per; c++) {
                if (k == 1)
                    fprintf (f, "%s%s", c > g * per ? "," : "", names[c]);
                else
                    fprintf (f, "%stopomap-agg%ld-%d", c > g * per ? "," : "", sizes[k - 1], c);
            }
            fclose (f);
            if (last)
                snprintf (name, sizeof (name), "topomap-blocks");
            else
                snprintf (name, sizeof (name), "topomap-agg%ld-%d", sizes[k], g);
            if (!list || ty_line (y, block, name, "Switches", list) < 0) {
                free (list);
                free (names);
                return list ? -1 : errnomem (y->errp);
            }
            free (list);
        }
        ntop = groups;
    }
    free (names);
    return 0;
}

/* The anchor an event defines, or NULL. */
static const void *ty_anchor (const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        return ev->data.scalar.anchor;
    case YAML_SEQUENCE_START_EVENT:
        return ev->data.sequence_start.anchor;
    case YAML_MAPPING_START_EVENT:
        return ev->data.mapping_start.anchor;
    case YAML_ALIAS_EVENT:
        return ev->data.alias.anchor;
    default:
        return NULL;
    }
}

/* The file's shape, counted from libyaml's events before its loader runs:
 * nesting deeper than TOPOYAML_MAX_DEPTH, or more than
 * TOPOYAML_MAX_ANCHORS anchors and aliases, is refused at the line of the
 * one too many.  A syntax error is left to the loader to report.
 */
static int ty_shape (const char *text, size_t len, const char *path, tm_error_t *errp)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    int depth = 0, anchors = 0, rc = 0;

    if (!yaml_parser_initialize (&parser))
        return errnomem (errp);
    yaml_parser_set_input_string (&parser, (const unsigned char *)text, len);
    while (rc == 0 && yaml_parser_parse (&parser, &ev)) {
        yaml_event_type_t type = ev.type;

        depth += type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT;
        depth -= type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT;
        anchors += ty_anchor (&ev) != NULL;
        errno = EINVAL;
        if (depth > TOPOYAML_MAX_DEPTH)
            rc = errprintf (errp, "%s:%zu: lists and mappings nested more than %d deep", path,
                            ev.start_mark.line + 1, TOPOYAML_MAX_DEPTH);
        else if (anchors > TOPOYAML_MAX_ANCHORS)
            rc = errprintf (errp, "%s:%zu: more than %d anchors and aliases", path,
                            ev.start_mark.line + 1, TOPOYAML_MAX_ANCHORS);
        yaml_event_delete (&ev);
        if (type == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete (&parser);
    return rc;
}

int topoyaml_conf (const char *text, size_t len, const char *path, const char *name, char **conf,
                   int **lines, int *nlines, tm_error_t *errp)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_node_t *root, *pick = NULL, *kind;
    ty_t y = {&doc, path, NULL, NULL, 0, 0, 0, errp};
    size_t outlen = 0;
    int ntopo = 0, rc = -1;

    *conf = NULL;
    *lines = NULL;
    *nlines = 0;
    if (ty_shape (text, len, path, errp) < 0)
        return -1;
    if (!yaml_parser_initialize (&parser))
        return errnomem (errp);
    yaml_parser_set_input_string (&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load (&parser, &doc)) {
        errno = EINVAL;
        errprintf (errp, "%s:%zu: %s", path, parser.problem_mark.line + 1,
                   parser.problem ? parser.problem : "not YAML");
        yaml_parser_delete (&parser);
        return -1;
    }
    if (!(root = yaml_document_get_root_node (&doc)) || root->type != YAML_SEQUENCE_NODE) {
        ty_error (&y, root, "not a list of topologies");
        goto out;
    }
    for (yaml_node_item_t *i = root->data.sequence.items.start; i < root->data.sequence.items.top;
         i++, ntopo++) {
        yaml_node_t *t = yaml_document_get_node (&doc, *i);
        const char *tname = ty_scalar (ty_get (&y, t, "topology"));
        const char *def = ty_scalar (ty_get (&y, t, "cluster_default"));

        if (!t || t->type != YAML_MAPPING_NODE || !tname) {
            ty_error (&y, t, "a topology without a name (topology:)");
            goto out;
        }
        if (name ? !strcmp (tname, name) : !pick && def && !strcmp (def, "true"))
            pick = t;
    }
    if (!pick && !name && ntopo == 1)
        pick = yaml_document_get_node (&doc, *root->data.sequence.items.start);
    if (!pick) {
        errno = ENOENT;
        if (name)
            errprintf (errp, "%s: no topology named %s", path, errsafe (name, 64));
        else
            errprintf (errp, "%s: no topology with cluster_default: true", path);
        goto out;
    }
    if (!(y.out = open_memstream (conf, &outlen))) {
        errnomem (errp);
        goto out;
    }
    if ((kind = ty_get (&y, pick, "tree")))
        rc = ty_tree (&y, kind) < 0 ? -1 : ty_figures (&y, text, len);
    else if ((kind = ty_get (&y, pick, "block")))
        rc = ty_block (&y, kind) < 0 ? -1 : ty_figures (&y, text, len);
    else {
        const char *k = ty_get (&y, pick, "flat")      ? "flat"
                        : ty_get (&y, pick, "ring")    ? "ring"
                        : ty_get (&y, pick, "torus3d") ? "torus3d"
                                                       : NULL;

        if (k) {
            errno = ENOENT;
            errprintf (errp, "%s:%zu: topology %s is %s: no switches or blocks", path,
                       pick->start_mark.line + 1, ty_scalar (ty_get (&y, pick, "topology")), k);
        } else
            ty_error (&y, pick, "topology %s: none of tree, block, flat, ring, torus3d",
                      ty_scalar (ty_get (&y, pick, "topology")));
    }
out:
    if (y.out && fclose (y.out) != 0 && rc == 0)
        rc = errnomem (errp);
    if (rc == 0) {
        *lines = y.lines;
        *nlines = y.nlines;
    } else {
        free (*conf);
        *conf = NULL;
        free (y.lines);
    }
    yaml_document_delete (&doc);
    yaml_parser_delete (&parser);
    return rc;
}

bool topoyaml_named (const char *path)
{
    size_t len = strlen (path);

    return len > 5 && !strcmp (path + len - 5, ".yaml");
}

topo_t *topoyaml_read (const char *path, const char *name, int *n, char ***hosts,
                       topoconf_level_t *levels, char **conf, tm_error_t *errp)
{
    char *text = NULL, *copy = NULL, *conftext = NULL;
    int *lines = NULL, nl = 0;
    size_t len;
    topo_t *t = NULL;

    for (int l = 0; l < TOPOCONF_LEVELS; l++)
        levels[l] = (topoconf_level_t){NAN, NAN};
    if (conf)
        *conf = NULL;
    if (file_slurp (path, TOPOYAML_MAX_BYTES, &text, &len, errp) < 0)
        return NULL;
    if (topoyaml_conf (text, len, path, name, &conftext, &lines, &nl, errp) < 0)
        goto out;
    if (!(copy = strdup (conftext))) {
        errnomem (errp);
        goto out;
    }
    if (!(t = topoconf_parse (copy, path, lines, nl, n, hosts, levels, errp)))
        goto out;
    if (conf) {
        *conf = conftext;
        conftext = NULL;
    }
out:
    free (text);
    free (copy);
    free (conftext);
    free (lines);
    return t;
}
