/* SPDX-License-Identifier: GPL-2.0-or-later */
/* planfile.c: a plan as the files launchers read.  See planfile.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "lib/layout.h"
#include "lib/planfile.h"

static const char *const plan_names[] = {
    [PLAN_HOSTFILE] = "hostfile",
    [PLAN_RANKFILE] = "rankfile",
    [PLAN_RANK_ORDER] = "cray",
    [PLAN_MACHINEFILE] = "machinefile",
};

int plan_format_parse (const char *name, plan_format_t *fmt)
{
    if (name && !strcmp (name, "mpich"))
        name = plan_names[PLAN_RANK_ORDER];
    for (size_t i = 0; name && i < sizeof (plan_names) / sizeof (plan_names[0]); i++) {
        if (!strcmp (name, plan_names[i])) {
            *fmt = (plan_format_t)i;
            return 0;
        }
    }
    return -1;
}

const char *plan_format_name (plan_format_t fmt)
{
    return (unsigned)fmt < sizeof (plan_names) / sizeof (plan_names[0]) ? plan_names[fmt] : "?";
}

static int plan_check (int ntasks, const int *node, int nnodes, char *const *names,
                       tm_error_t *errp)
{
    if (ntasks < 1 || nnodes < 1 || !node || !names) {
        errno = EINVAL;
        return errprintf (errp, "plan: no ranks or no nodes");
    }
    for (int r = 0; r < ntasks; r++) {
        tm_error_t e;

        if (node[r] < 0 || node[r] >= nnodes) {
            errno = EINVAL;
            return errprintf (errp, "rank %d is placed on node %d, outside 0..%d", r, node[r],
                              nnodes - 1);
        }
        if (layout_check_name (names[node[r]], &e) < 0)
            return errprintf (errp, "node %d: %s", node[r], e.text);
    }
    return 0;
}

int plan_print (FILE *f, plan_format_t fmt, int ntasks, const int *node, int nnodes,
                char *const *names, tm_error_t *errp)
{
    int *slot = NULL, rc = -1;

    if (plan_check (ntasks, node, nnodes, names, errp) < 0)
        return -1;
    switch (fmt) {
    case PLAN_HOSTFILE:
        for (int r = 0; r < ntasks; r++)
            fprintf (f, "%s\n", names[node[r]]);
        break;
    case PLAN_RANKFILE:
        if (!(slot = calloc ((size_t)nnodes, sizeof (*slot)))) {
            errprintf (errp, "plan: out of memory");
            goto out;
        }
        for (int r = 0; r < ntasks; r++)
            fprintf (f, "rank %d=%s slot=%d\n", r, names[node[r]], slot[node[r]]++);
        break;
    case PLAN_RANK_ORDER: {
        int first = 1;

        for (int i = 0; i < nnodes; i++)
            for (int r = 0; r < ntasks; r++)
                if (node[r] == i) {
                    fprintf (f, "%s%d", first ? "" : ",", r);
                    first = 0;
                }
        fputc ('\n', f);
        break;
    }
    case PLAN_MACHINEFILE:
        for (int r = 0, n; r < ntasks; r += n) {
            for (n = 1; r + n < ntasks && node[r + n] == node[r]; n++)
                ;
            fprintf (f, "%s:%d\n", names[node[r]], n);
        }
        break;
    default:
        errno = EINVAL;
        errprintf (errp, "plan: unknown format %d", (int)fmt);
        goto out;
    }
    if (ferror (f)) {
        errprintf (errp, "plan: %s", strerror (errno));
        goto out;
    }
    rc = 0;
out:
    free (slot);
    return rc;
}

int plan_text (char **bufp, size_t *lenp, plan_format_t fmt, int ntasks, const int *node,
               int nnodes, char *const *names, tm_error_t *errp)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f;

    if (!(f = open_memstream (&buf, &len)))
        return errnomem (errp);
    if (plan_print (f, fmt, ntasks, node, nnodes, names, errp) < 0) {
        fclose (f);
        free (buf);
        return -1;
    }
    if (fclose (f) != 0) {
        free (buf);
        return errnomem (errp);
    }
    *bufp = buf;
    *lenp = len;
    return 0;
}

int plan_write (const char *path, int mode, plan_format_t fmt, int ntasks, const int *node,
                int nnodes, char *const *names, tm_error_t *errp)
{
    char *buf = NULL;
    size_t len = 0;
    int rc;
    tm_error_t e;

    if (plan_text (&buf, &len, fmt, ntasks, node, nnodes, names, &e) < 0)
        return errprintf (errp, "%s: %s", path, e.text);
    rc = file_replace (path, buf, len, mode, errp);
    free (buf);
    return rc;
}

int plan_read_hostfile (const char *path, int ntasks, int nnodes, char *const *names, int *node,
                        tm_error_t *errp)
{
    FILE *f = fopen (path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int r = 0, rc = -1;

    if (!f)
        return errprintf (errp, "%s: %s", path, strerror (errno));
    errno = 0;
    while ((got = getline (&line, &cap, f)) > 0) {
        size_t len = (size_t)got - (line[got - 1] == '\n'), bom = r ? 0 : file_bom (line, len);
        tm_error_t e;
        int h;

        memmove (line, line + bom, len - bom); /* a byte order mark: skipped */
        len -= bom;

        errno = EINVAL;
        if (len == 0) {
            errprintf (errp, "%s:%d: an empty line", path, r + 1);
            goto out;
        }
        if (r == ntasks) {
            errprintf (errp, "%s:%d: more lines than the %d ranks", path, r + 1, ntasks);
            goto out;
        }
        if (memchr (line, '\0', len)) {
            errprintf (errp, "%s:%d: a NUL byte", path, r + 1);
            goto out;
        }
        line[len] = '\0';
        if (layout_check_name (line, &e) < 0) {
            errprintf (errp, "%s:%d: %s", path, r + 1, e.text);
            goto out;
        }
        for (h = 0; h < nnodes && strcmp (names[h], line) != 0; h++)
            ;
        if (h == nnodes) {
            errprintf (errp, "%s:%d: node '%s' is not in the netmap", path, r + 1, line);
            goto out;
        }
        node[r++] = h;
        errno = 0;
    }
    if (ferror (f) || (got < 0 && errno == ENOMEM)) {
        errprintf (errp, "%s: %s", path, strerror (errno ? errno : EIO));
        goto out;
    }
    if (r < ntasks) {
        errno = EINVAL;
        errprintf (errp, "%s: %d line%s for %d ranks", path, r, r == 1 ? "" : "s", ntasks);
        goto out;
    }
    rc = 0;
out:
    free (line);
    fclose (f);
    return rc;
}
