/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf.c: plugstack.conf arguments and option values.  See conf.h. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/conf.h"
#include "lib/netmap.h"

#define CONF_WHERE         "plugstack.conf"
#define CONF_QUOTE_MAX     120   /* bytes of an argument shown in a message */
#define CONF_TIMEOUT_MAX   86400 /* a day */
#define CONF_VERBOSE_MAX   3
#define CONF_QUOTE_BUFSIZE (CONF_QUOTE_MAX * 4 + 8)

static const char *const map_mode_names[] = {
    [CONF_MAP_AUTO] = "auto", [CONF_MAP_BANDWIDTH] = "bandwidth", [CONF_MAP_LATENCY] = "latency",
    [CONF_MAP_OFF] = "off",   [CONF_MAP_STRICT] = "strict",       [CONF_MAP_DRYRUN] = "dry-run",
};
#define CONF_MAP_COUNT (int)(sizeof (map_mode_names) / sizeof (map_mode_names[0]))

static const char *const profile_mode_names[] = {
    [PROFILE_MODE_AUTO] = "auto", [PROFILE_MODE_RECORD] = "record", [PROFILE_MODE_OFF] = "off",
    [PROFILE_MODE_PATH] = "path", [PROFILE_MODE_NAME] = "name",
};
#define PROFILE_MODE_COUNT (int)(sizeof (profile_mode_names) / sizeof (profile_mode_names[0]))

static bool conf_has_control (const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

/* Option values */

static int conf_map_lookup (const char *s)
{
    for (int m = 0; m < CONF_MAP_COUNT; m++)
        if (strcmp (s, map_mode_names[m]) == 0)
            return m;
    return -1;
}

int conf_map_mode_parse (const char *s, conf_map_mode_t *m, tm_error_t *errp)
{
    char q[CONF_QUOTE_BUFSIZE];
    int v;

    if (!s || s[0] == '\0' || strcmp (s, "(null)") == 0)
        v = CONF_MAP_AUTO;
    else if ((v = conf_map_lookup (s)) < 0) {
        errno = EINVAL;
        return errprintf (errp,
                          "unknown map mode '%s': expected auto, bandwidth, latency, off, strict "
                          "or dry-run",
                          errquote (s, CONF_QUOTE_MAX, q, sizeof (q)));
    }
    if (m)
        *m = (conf_map_mode_t)v;
    return 0;
}

const char *conf_map_mode_name (conf_map_mode_t m)
{
    if ((int)m < 0 || (int)m >= CONF_MAP_COUNT)
        return "unknown";
    return map_mode_names[m];
}

/* The keyword modes of --topo-profile, -1 for another value. */
static int conf_profile_lookup (const char *s)
{
    for (int m = PROFILE_MODE_AUTO; m <= PROFILE_MODE_OFF; m++)
        if (strcmp (s, profile_mode_names[m]) == 0)
            return m;
    return -1;
}

int conf_profile_parse (const char *s, conf_profile_t *p, tm_error_t *errp)
{
    char q[CONF_QUOTE_BUFSIZE];
    conf_profile_mode_t mode;
    size_t len;
    int kw;

    if (!s || s[0] == '\0' || strcmp (s, "(null)") == 0) {
        mode = PROFILE_MODE_AUTO;
        s = "";
    } else if ((kw = conf_profile_lookup (s)) >= 0) {
        mode = (conf_profile_mode_t)kw;
        s = "";
    } else if (strchr (s, '/')) {
        mode = PROFILE_MODE_PATH;
        if (conf_has_control (s)) {
            errno = EINVAL;
            return errprintf (errp, "profile path '%s' has a control character",
                              errquote (s, CONF_QUOTE_MAX, q, sizeof (q)));
        }
        if ((len = strlen (s)) >= CONF_PATH_MAX) {
            errno = ENAMETOOLONG;
            return errprintf (errp, "profile path '%s' is too long (%zu bytes, at most %d)",
                              errquote (s, CONF_QUOTE_MAX, q, sizeof (q)), len, CONF_PATH_MAX - 1);
        }
    } else {
        mode = PROFILE_MODE_NAME;
        if ((len = strlen (s)) > CONF_PROFILE_NAME_MAX) {
            errno = EINVAL;
            return errprintf (errp, "profile name '%s' is too long (%zu bytes, at most %d)",
                              errquote (s, CONF_QUOTE_MAX, q, sizeof (q)), len,
                              CONF_PROFILE_NAME_MAX);
        }
        if (s[0] == '.') {
            errno = EINVAL;
            return errprintf (errp, "profile name '%s' starts with '.'",
                              errquote (s, CONF_QUOTE_MAX, q, sizeof (q)));
        }
        for (size_t i = 0; i < len; i++) {
            unsigned char ch = (unsigned char)s[i];

            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || strchr ("._+-", ch))) {
                errno = EINVAL;
                return errprintf (errp,
                                  "profile name '%s' has a character outside [A-Za-z0-9._+-] at "
                                  "byte %zu",
                                  errquote (s, CONF_QUOTE_MAX, q, sizeof (q)), i + 1);
            }
        }
    }
    if (p) {
        p->mode = mode;
        snprintf (p->value, sizeof (p->value), "%s", s);
    }
    return 0;
}

const char *conf_profile_mode_name (conf_profile_mode_t m)
{
    if ((int)m < 0 || (int)m >= PROFILE_MODE_COUNT)
        return "unknown";
    return profile_mode_names[m];
}

/* plugstack.conf arguments */

/* One argument key=val (arg is the whole of it) into c; -1 with errp. */
typedef int (*conf_set_f) (conf_t *c, const char *val, const char *arg, tm_error_t *errp);

static int __attribute__ ((format (printf, 3, 4)))
conf_fail (tm_error_t *errp, const char *arg, const char *fmt, ...)
{
    char q[CONF_QUOTE_BUFSIZE], why[sizeof (errp->text)];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (why, sizeof (why), fmt, ap);
    va_end (ap);
    errno = EINVAL;
    return errprintf (errp, CONF_WHERE ": %s: %s", errquote (arg, CONF_QUOTE_MAX, q, sizeof (q)),
                      why);
}

/* Plain decimal digits, lo..hi. */
static bool conf_int (const char *s, long lo, long hi, int *v)
{
    long long x = 0;

    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        x = x * 10 + (*s - '0');
        if (x > hi)
            return false;
    }
    if (x < lo)
        return false;
    *v = (int)x;
    return true;
}

/* A plain decimal fraction ("0.05", "1", ".5", "0."), 0..1, read without
 * the locale and correctly rounded: digits after the 15th decimal are
 * checked, and count only to refuse what exceeds 1.
 */
static bool conf_fraction (const char *s, double *v)
{
    long long mant = 0, scale = 1;
    bool digits = false, beyond = false;
    int decimals = 0;

    for (; *s >= '0' && *s <= '9'; s++) {
        mant = mant * 10 + (*s - '0');
        digits = true;
        if (mant > 1)
            return false;
    }
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++) {
            digits = true;
            if (decimals < 15) {
                mant = mant * 10 + (*s - '0');
                scale *= 10;
                decimals++;
            } else if (*s != '0')
                beyond = true;
        }
    if (*s || !digits || mant > scale || (mant == scale && beyond))
        return false;
    *v = (double)mant / (double)scale;
    return true;
}

static int conf_path (char *dst, const char *val, const char *arg, tm_error_t *errp)
{
    size_t len = strlen (val);

    if (val[0] != '/')
        return conf_fail (errp, arg, "expected an absolute path");
    if (conf_has_control (val))
        return conf_fail (errp, arg, "the path has a control character");
    if (len >= CONF_PATH_MAX)
        return conf_fail (errp, arg, "the path is too long (%zu bytes, at most %d)", len,
                          CONF_PATH_MAX - 1);
    memcpy (dst, val, len + 1);
    return 0;
}

static int conf_set_cache (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    return conf_path (c->cache, val, arg, errp);
}

static int conf_set_site_profiles (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    return conf_path (c->site_profiles, val, arg, errp);
}

static int conf_set_probe (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    return conf_path (c->probe, val, arg, errp);
}

static int conf_set_probe_mpich (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    return conf_path (c->probe_mpich, val, arg, errp);
}

static int conf_set_recorder_dir (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    return conf_path (c->recorder_dir, val, arg, errp);
}

static int conf_set_topology (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (!strcmp (val, "auto") || !strcmp (val, "none")) {
        strcpy (c->topology, val);
        return 0;
    }
    return conf_path (c->topology, val, arg, errp);
}

/* topology_levels=L:LAT:BW[,L:LAT:BW...], each level once. */
static int conf_set_levels (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    double lat[CONF_LEVELS] = {0}, bw[CONF_LEVELS] = {0};
    const char *p = val;

    for (;;) {
        char *end;
        long l;
        double x, y;

        errno = 0;
        l = strtol (p, &end, 10);
        if (end == p || *end != ':' || errno || l < 1 || l >= CONF_LEVELS)
            return conf_fail (errp, arg, "expected LEVEL:LATENCY_US:BANDWIDTH_MBPS, LEVEL 1 to %d",
                              CONF_LEVELS - 1);
        if (lat[l] > 0)
            return conf_fail (errp, arg, "level %ld is given twice", l);
        p = end + 1;
        x = strtod (p, &end);
        if (end == p || *end != ':')
            return conf_fail (errp, arg, "expected LEVEL:LATENCY_US:BANDWIDTH_MBPS");
        if (!isfinite (x) || !(x > 0 && x <= NETMAP_MAX_LAT_US))
            return conf_fail (errp, arg, "level %ld: a latency above 0 and at most %g us", l,
                              NETMAP_MAX_LAT_US);
        p = end + 1;
        y = strtod (p, &end);
        if (end == p || (*end != ',' && *end))
            return conf_fail (errp, arg, "expected LEVEL:LATENCY_US:BANDWIDTH_MBPS");
        if (!isfinite (y) || !(y > 0 && y <= NETMAP_MAX_BW_MBPS))
            return conf_fail (errp, arg, "level %ld: a bandwidth above 0 and at most %g MB/s", l,
                              NETMAP_MAX_BW_MBPS);
        lat[l] = x;
        bw[l] = y;
        if (!*end)
            break;
        p = end + 1;
    }
    memcpy (c->level_lat_us, lat, sizeof (lat));
    memcpy (c->level_bw_MBps, bw, sizeof (bw));
    return 0;
}

int conf_mpi_valid (const char *s)
{
    size_t len = strlen (s);

    return len > 0 && len <= CONF_MPI_MAX &&
           strspn (s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == len;
}

static int conf_set_mpi (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (!conf_mpi_valid (val))
        return conf_fail (errp, arg,
                          "expected an srun --mpi type: [A-Za-z0-9_.-], at most %d bytes",
                          CONF_MPI_MAX);
    memcpy (c->mpi, val, strlen (val) + 1);
    return 0;
}

static int conf_set_probe_ttl (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (!conf_int (val, 0, INT_MAX, &c->probe_ttl))
        return conf_fail (errp, arg, "expected seconds (0..%d)", INT_MAX);
    return 0;
}

static int conf_set_probe_timeout (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (!conf_int (val, 1, CONF_TIMEOUT_MAX, &c->probe_timeout))
        return conf_fail (errp, arg, "expected seconds (1..%d)", CONF_TIMEOUT_MAX);
    return 0;
}

static int conf_set_probe_pairs (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (!conf_int (val, 0, INT_MAX, &c->probe_pairs))
        return conf_fail (errp, arg, "expected a count of pairs (0: a whole round)");
    return 0;
}

static int conf_set_probe_plan (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (strcmp (val, "auto") != 0 && strcmp (val, "all") != 0 && strcmp (val, "sampled") != 0)
        return conf_fail (errp, arg, "expected auto, all or sampled");
    snprintf (c->probe_plan, sizeof (c->probe_plan), "%s", val);
    return 0;
}

static int conf_set_min_gain (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (!conf_fraction (val, &c->min_gain))
        return conf_fail (errp, arg, "expected a fraction from 0 to 1, such as 0.05");
    return 0;
}

static int conf_set_map (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    int m = conf_map_lookup (val);

    if (m < 0)
        return conf_fail (errp, arg, "expected auto, bandwidth, latency, off, strict or dry-run");
    c->map = (conf_map_mode_t)m;
    return 0;
}

static int conf_set_profile (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    int m = conf_profile_lookup (val);

    if (m < 0)
        return conf_fail (errp, arg, "expected auto, record or off");
    c->profile = (conf_profile_mode_t)m;
    return 0;
}

static int conf_set_bind (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (strcmp (val, "auto") == 0)
        c->bind = CONF_BIND_AUTO;
    else if (strcmp (val, "always") == 0)
        c->bind = CONF_BIND_ALWAYS;
    else if (strcmp (val, "no") == 0)
        c->bind = CONF_BIND_NO;
    else
        return conf_fail (errp, arg, "expected auto, always or no");
    return 0;
}

static int conf_set_cache_sticky (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (strcmp (val, "yes") == 0)
        c->cache_sticky = 1;
    else if (strcmp (val, "no") == 0)
        c->cache_sticky = 0;
    else
        return conf_fail (errp, arg, "expected yes or no");
    return 0;
}

static int conf_set_cache_max_files (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (!conf_int (val, 1, 1000000, &c->cache_max_files))
        return conf_fail (errp, arg, "expected a count of files 1..1000000");
    return 0;
}

static int conf_set_cache_max_mib (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (!conf_int (val, 1, 1048576, &c->cache_max_mib))
        return conf_fail (errp, arg, "expected MiB 1..1048576");
    return 0;
}

static int conf_set_verbose (conf_t *c, const char *val, const char *arg, tm_error_t *errp)
{
    if (!conf_int (val, 0, CONF_VERBOSE_MAX, &c->verbose))
        return conf_fail (errp, arg, "expected a level 0..%d", CONF_VERBOSE_MAX);
    return 0;
}

static const struct {
    const char *key;
    conf_set_f set;
} conf_keys[] = {
    {"cache", conf_set_cache},
    {"cache_sticky", conf_set_cache_sticky},
    {"cache_max_files", conf_set_cache_max_files},
    {"cache_max_mib", conf_set_cache_max_mib},
    {"site_profiles", conf_set_site_profiles},
    {"probe", conf_set_probe},
    {"probe_mpich", conf_set_probe_mpich},
    {"mpi", conf_set_mpi},
    {"probe_ttl", conf_set_probe_ttl},
    {"probe_timeout", conf_set_probe_timeout},
    {"probe_pairs", conf_set_probe_pairs},
    {"probe_plan", conf_set_probe_plan},
    {"min_gain", conf_set_min_gain},
    {"map", conf_set_map},
    {"profile", conf_set_profile},
    {"recorder_dir", conf_set_recorder_dir},
    {"topology", conf_set_topology},
    {"topology_levels", conf_set_levels},
    {"bind", conf_set_bind},
    {"verbose", conf_set_verbose},
};
#define CONF_NKEYS (sizeof (conf_keys) / sizeof (conf_keys[0]))

void conf_default (conf_t *c, const char *probe_default, const char *probe_mpich_default,
                   const char *recorder_dir_default)
{
    memset (c, 0, sizeof (*c));
    snprintf (c->probe, sizeof (c->probe), "%s", probe_default ? probe_default : "");
    snprintf (c->probe_mpich, sizeof (c->probe_mpich), "%s",
              probe_mpich_default ? probe_mpich_default : "");
    c->probe_ttl = 3600;
    c->probe_timeout = 30;
    c->cache_max_files = 1000;
    c->cache_max_mib = 1024;
    snprintf (c->probe_plan, sizeof (c->probe_plan), "auto");
    c->min_gain = 0.05;
    c->map = CONF_MAP_AUTO;
    c->profile = PROFILE_MODE_AUTO;
    c->bind = CONF_BIND_AUTO;
    snprintf (c->recorder_dir, sizeof (c->recorder_dir), "%s",
              recorder_dir_default ? recorder_dir_default : "");
    c->verbose = 0;
}

int conf_parse (conf_t *c, int ac, char **av, tm_error_t *errp)
{
    char q[CONF_QUOTE_BUFSIZE];
    bool seen[CONF_NKEYS] = {false};
    conf_t *next;
    int rc = -1;

    if (!c || ac < 0 || (ac > 0 && !av)) {
        errno = EINVAL;
        return errprintf (errp, CONF_WHERE ": no arguments to parse");
    }
    if (!(next = malloc (sizeof (*next))))
        return errprintf (errp, CONF_WHERE ": out of memory");
    memcpy (next, c, sizeof (*next));
    for (int i = 0; i < ac; i++) {
        const char *arg = av[i], *eq;
        size_t k, keylen;

        if (!arg) {
            errno = EINVAL;
            errprintf (errp, CONF_WHERE ": argument %d is missing", i + 1);
            goto out;
        }
        if (!(eq = strchr (arg, '='))) {
            errno = EINVAL;
            errprintf (errp, CONF_WHERE ": argument '%s' is not key=value",
                       errquote (arg, CONF_QUOTE_MAX, q, sizeof (q)));
            goto out;
        }
        keylen = (size_t)(eq - arg);
        for (k = 0; k < CONF_NKEYS; k++)
            if (strlen (conf_keys[k].key) == keylen && strncmp (arg, conf_keys[k].key, keylen) == 0)
                break;
        if (k == CONF_NKEYS) {
            errno = EINVAL;
            errprintf (errp, CONF_WHERE ": unknown argument '%s'",
                       errquote (arg, CONF_QUOTE_MAX, q, sizeof (q)));
            goto out;
        }
        if (seen[k]) {
            conf_fail (errp, arg, "%s= is given twice", conf_keys[k].key);
            goto out;
        }
        seen[k] = true;
        if (eq[1] == '\0') {
            conf_fail (errp, arg, "empty value");
            goto out;
        }
        if (conf_keys[k].set (next, eq + 1, arg, errp) < 0)
            goto out;
    }
    memcpy (c, next, sizeof (*c));
    rc = 0;
out:
    free (next);
    return rc;
}
