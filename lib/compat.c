/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compat.c: what differs between Slurm releases, and srun's private
 * interface, in one place (compat.h).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "lib/srunargs.h"
#include "lib/compat.h"

#if HAVE_SLURM_HOSTLIST_PTR
typedef hostlist_t *compat_hostlist_t; /* Slurm 23.11 and later */
#else
typedef hostlist_t compat_hostlist_t; /* a pointer type itself */
#endif

static bool quiet;

void compat_quiet_libslurm (void)
{
    quiet = true;
}

/* slurm_hostlist_create (list); under compat_quiet_libslurm, what libslurm
 * printed meanwhile is kept from standard error, its first line's message
 * (after "error: " and the function's name) in said.
 */
static compat_hostlist_t hostlist_create (const char *list, char *said, size_t saidlen)
{
    compat_hostlist_t hl;
    char buf[512], *line, *msg;
    ssize_t len;
    int saved = -1, fd;

    said[0] = '\0';
    if (!quiet)
        return slurm_hostlist_create (list);
    fflush (stderr);
    if ((fd = memfd_create ("topomap-libslurm", MFD_CLOEXEC)) < 0 || (saved = dup (2)) < 0 ||
        dup2 (fd, 2) < 0) {
        if (fd >= 0)
            close (fd);
        if (saved >= 0)
            close (saved);
        return slurm_hostlist_create (list);
    }
    hl = slurm_hostlist_create (list);
    fflush (stderr);
    dup2 (saved, 2);
    close (saved);
    len = pread (fd, buf, sizeof (buf) - 1, 0);
    close (fd);
    buf[len > 0 ? len : 0] = '\0';
    buf[strcspn (buf, "\n")] = '\0';
    line = (msg = strstr (buf, "error: ")) ? msg + 7 : buf;
    if ((msg = strstr (line, ": ")) && msg[2] && !memchr (line, ' ', (size_t)(msg - line)))
        line = msg + 2;
    len = (ssize_t)strnlen (line, saidlen - 1);
    memcpy (said, line, (size_t)len);
    said[len] = '\0';
    return hl;
}

/* How many names list holds, read leniently (libslurm judges the syntax):
 * each comma-separated entry of a bracket counts as the width of its
 * range, at least one; names with brackets multiply; counting stops past
 * max.  Checked before libslurm sees a list: its parser calls fatal() on
 * more than MAX_RANGES (262 144) entries in one bracket (Slurm 22.05 to
 * 26.05, src/common/hostlist.c, _parse_range_list) and takes time
 * quadratic in the names of one list.
 */
static unsigned long compat_hostlist_count (const char *s, unsigned long max)
{
    unsigned long total = 0, item = 1;

    while (*s && total <= max) {
        if (*s == '[') {
            unsigned long inside = 0;

            for (s++; *s && *s != ']' && inside <= max;) {
                char *end;
                unsigned long lo = strtoul (s, &end, 10), hi = lo;

                if (end > s && *end == '-')
                    hi = strtoul (end + 1, &end, 10);
                inside += hi >= lo && hi - lo < max ? hi - lo + 1 : 1;
                s = end > s ? end : s + 1;
                s += strcspn (s, ",]");
                if (*s == ',')
                    s++;
            }
            item = item > max || inside > max ? max + 1 : item * inside;
            if (*s == ']')
                s++;
        } else if (*s++ == ',') {
            total += item;
            item = 1;
        }
    }
    return total + item;
}

char **compat_hostlist_expand (const char *list, int *n, tm_error_t *errp)
{
    compat_hostlist_t hl;
    char **names = NULL, **more, *h, said[256] = "";
    int max = 0, nomem = 0;

    *n = 0;
    if (list && compat_hostlist_count (list, COMPAT_HOSTLIST_MAX) > COMPAT_HOSTLIST_MAX) {
        char head[48];

        snprintf (head, sizeof (head), "%.40s%s", list, strlen (list) > 40 ? "..." : "");
        errprintf (errp, "'%s': more than %d names in one host list", errsafe (head, 60),
                   COMPAT_HOSTLIST_MAX);
        errno = E2BIG;
        return NULL;
    }
    if (!list || !(hl = hostlist_create (list, said, sizeof (said)))) {
        errprintf (errp, "'%s': not a host list%s%s", list ? errsafe (list, 200) : "(none)",
                   said[0] ? ": " : "", errsafe (said, 200));
        return NULL;
    }
    while ((h = slurm_hostlist_shift (hl))) {
        if (*n == max) {
            if (!(more = realloc (names, (size_t)(max = max ? 2 * max : 16) * sizeof (*names)))) {
                free (h);
                compat_names_free (names, *n);
                names = NULL;
                *n = 0;
                nomem = 1;
                errnomem (errp);
                break;
            }
            names = more;
        }
        names[(*n)++] = h;
    }
    slurm_hostlist_destroy (hl);
    if (*n == 0 && !nomem)
        errprintf (errp, "'%s': an empty host list", errsafe (list, 200));
    return names;
}

void compat_names_free (char **names, int n)
{
    for (int i = 0; names && i < n; i++)
        free (names[i]);
    free (names);
}

char *compat_hostlist_ranged (const char *const *names, int n, tm_error_t *errp)
{
    compat_hostlist_t hl;
    char *buf = NULL, *more;
    size_t len = 256;

    if (n < 1 || !(hl = slurm_hostlist_create (NULL))) {
        errprintf (errp, n < 1 ? "no host to list" : "out of memory");
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (slurm_hostlist_push_host (hl, names[i]) != 1) {
            errprintf (errp, "'%s': not a host name", errsafe (names[i], 200));
            slurm_hostlist_destroy (hl);
            return NULL;
        }
    slurm_hostlist_uniq (hl);
    /* slurm_hostlist_ranged_string: -1 when buf is too small */
    for (;; len *= 2) {
        if (len > ((size_t)1 << 28) || !(more = realloc (buf, len))) {
            free (buf);
            buf = NULL;
            errnomem (errp);
            break;
        }
        buf = more;
        if (slurm_hostlist_ranged_string (hl, len, buf) >= 0)
            break;
    }
    slurm_hostlist_destroy (hl);
    return buf;
}

void compat_conf_free (slurm_conf_t *conf)
{
    if (!conf)
        return;
#if HAVE_SLURM_FREE_CONF
    slurm_free_conf (conf); /* Slurm 26.05 and later */
#else
    slurm_free_ctl_conf (conf);
#endif
}

/* The name of partition's topology (Slurm 25.05+: several, one a
 * partition), NULL for the cluster's default, into *name (new string). */
static int compat_topo_name (const char *partition, char **name, tm_error_t *errp)
{
    *name = NULL;
#if HAVE_SLURM_LOAD_TOPO_NAME
    partition_info_msg_t *parts = NULL;

    if (!partition || !partition[0])
        return 0;
    if (slurm_load_partitions ((time_t)0, &parts, SHOW_ALL) != SLURM_SUCCESS)
        return errprintf (errp, "slurmctld's partitions: %s", slurm_strerror (errno));
    for (uint32_t i = 0; i < parts->record_count; i++) {
        const partition_info_t *pi = &parts->partition_array[i];

        if (pi->name && !strcmp (pi->name, partition) && pi->topology_name &&
            pi->topology_name[0] && !(*name = strdup (pi->topology_name))) {
            slurm_free_partition_info_msg (parts);
            return errnomem (errp);
        }
    }
    slurm_free_partition_info_msg (parts);
#else
    (void)partition;
    (void)errp;
#endif
    return 0;
}

int compat_topo_text (const char *partition, char **text, tm_error_t *errp)
{
    topo_info_response_msg_t *topo = NULL;
    char *name = NULL, *len = NULL, *buf = NULL;
    size_t size = 0;
    FILE *f;
    int rc = -1;

    *text = NULL;
    if (compat_topo_name (partition, &name, errp) < 0)
        return -1;
#if HAVE_SLURM_LOAD_TOPO_NAME
    rc = slurm_load_topo (&topo, name);
#else
    rc = slurm_load_topo (&topo);
#endif
    if (rc != SLURM_SUCCESS) {
        rc = errprintf (errp, "slurmctld's topology%s%s: %s", name ? " " : "",
                        name ? errsafe (name, 60) : "", slurm_strerror (errno));
        goto out;
    }
    rc = -1;
    if (!(f = open_memstream (&buf, &size))) {
        errnomem (errp);
        goto out;
    }
    /* Whole lines: SLURM_TOPO_LEN would cut them (topology_tree.c). */
    if ((len = getenv ("SLURM_TOPO_LEN")) && !(len = strdup (len))) {
        fclose (f);
        errnomem (errp);
        goto out;
    }
    unsetenv ("SLURM_TOPO_LEN");
    if (topo)
#if HAVE_SLURM_PRINT_TOPO_UNIT
        slurm_print_topo_info_msg (f, topo, NULL, NULL, 0); /* 25.05 and later */
#elif HAVE_SLURM_PRINT_TOPO_NODES
        slurm_print_topo_info_msg (f, topo, NULL, 0); /* 23.02 to 24.11 */
#else
        slurm_print_topo_info_msg (f, topo, 0);
#endif
    if (len)
        setenv ("SLURM_TOPO_LEN", len, 1);
    if (fclose (f) != 0 || !buf) {
        errnomem (errp);
        goto out;
    }
    *text = buf;
    buf = NULL;
    rc = 0;
out:
    free (buf);
    free (len);
    free (name);
    if (topo)
        slurm_free_topo_info_msg (topo);
    return rc;
}

int compat_topo_order (const slurm_conf_t *conf, const char **param, tm_error_t *errp)
{
    *param = NULL;
#if HAVE_SLURM_TOPO_ORDER
    if (!conf)
        return errprintf (errp, "Slurm's configuration is not known");
    if (conf->select_type_param & SELECT_NO_DIST_TOPO_BLOCK)
        return 0;
    *param = conf->topology_param;
    return 1;
#else
    (void)conf;
    (void)errp;
    return 0;
#endif
}

/* srun's private interface, the same signatures from 22.05 to 26.05
 * (src/common/slurm_opt.c, src/common/xmalloc.h).
 */
static struct {
    void *opt;
    char *(*get) (void *opt, const char *name);
    bool (*isset) (void *opt, const char *name);
    int (*set) (void *opt, const char *name, const char *value, bool early);
    struct option *(*table_create) (void *opt, char **optstring);
    void (*table_destroy) (struct option *table);
    void (*xfree) (void **p);
} srun;

int compat_srun_open (tm_error_t *errp)
{
    static const char *const names[] = {
        "opt",
        "slurm_option_get",
        "slurm_option_isset",
        "slurm_option_set",
        "slurm_xfree",
        "slurm_option_table_create",
        "slurm_option_table_destroy",
    };
    void *sym[sizeof (names) / sizeof (names[0])];

    for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++)
        if (!(sym[i] = dlsym (RTLD_DEFAULT, names[i])))
            return errprintf (errp, "srun has no %s", names[i]);
    srun.opt = sym[0];
    *(void **)&srun.get = sym[1];
    *(void **)&srun.isset = sym[2];
    *(void **)&srun.set = sym[3];
    *(void **)&srun.xfree = sym[4];
    *(void **)&srun.table_create = sym[5];
    *(void **)&srun.table_destroy = sym[6];
    return 0;
}

char *compat_srun_dup (const char *name)
{
    char *v = srun.get (srun.opt, name), *copy;

    if (!v)
        return NULL;
    copy = strdup (v);
    srun.xfree ((void **)&v);
    return copy;
}

int compat_srun_get (const char *name, char *buf, size_t len)
{
    char *v = srun.get (srun.opt, name);
    int set = v != NULL;

    snprintf (buf, len, "%s", v ? v : "");
    if (v)
        srun.xfree ((void **)&v);
    return set;
}

int compat_srun_isset (const char *name)
{
    return srun.isset (srun.opt, name);
}

int compat_srun_set (const char *name, const char *value, tm_error_t *errp)
{
    if (srun.set (srun.opt, name, value, false) != 0)
        return errprintf (errp, "srun refuses --%s=%s", name, errsafe (value, 200));
    return 0;
}

int compat_srun_command (int argc, char *const argv[], tm_error_t *errp)
{
    char *optstring = NULL;
    struct option *table = srun.table_create (srun.opt, &optstring);
    int cmd;

    if (!table || !optstring)
        cmd = errprintf (errp, "srun gave no option table");
    else
        cmd = srunargs_command (argc, argv, optstring, table, errp);
    if (table)
        srun.table_destroy (table);
    if (optstring)
        srun.xfree ((void **)&optstring);
    return cmd;
}
