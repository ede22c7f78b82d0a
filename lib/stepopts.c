/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/error.h"
#include "lib/place.h"
#include "lib/stepopts.h"

const char *stepopts_refused (const stepopts_t *s, char *buf, size_t len, bool *fault)
{
    char q[96];

    *fault = false;
    if (!s->jobid)
        snprintf (buf, len, "srun outside an allocation");
    else if (!place_jobid_valid (s->jobid)) {
        *fault = true;
        snprintf (buf, len, "SLURM_JOB_ID '%s' is not a job id",
                  errquote (s->jobid, 20, q, sizeof (q)));
    } else if (place_inside_step (s->step_id))
        snprintf (buf, len, "srun inside a job step");
    else if (s->hostfile)
        snprintf (buf, len, "SLURM_HOSTFILE is set by the user");
    else if (s->nodelist)
        snprintf (buf, len, "-w/--nodelist given");
    else if (s->distribution)
        snprintf (buf, len, "-m/--distribution given");
    else if (s->het_group || s->het_size)
        snprintf (buf, len, "a heterogeneous step");
    else if (s->exclude || s->relative)
        snprintf (buf, len, "-x or -r given");
    /* Options of later releases whose steps a hostfile would not honour;
     * unknown to older ones, never set there. */
    else if (s->segment)
        snprintf (buf, len, "--segment given");
    else if (s->async)
        snprintf (buf, len, "--async given");
    else
        return NULL;
    return buf;
}

bool stepopts_export_all (const char *list)
{
    const char *t = list;
    int single = 0, dbl = 0;

    for (const char *p = list;; p++) {
        if (*p == '\'')
            single = !single;
        else if (*p == '"')
            dbl = !dbl;
        else if (*p == '\0' || (*p == ',' && !single && !dbl)) {
            size_t n = (size_t)(p - t);

            if (n >= 2 && (*t == '\'' || *t == '"') && t[n - 1] == *t)
                t++, n -= 2;
            if (n == 4 && !strncasecmp (t, "NONE", 4))
                return false;
            if (n == 3 && !strncasecmp (t, "ALL", 3))
                return true;
            t = p + 1;
        }
        if (*p == '\0')
            return false;
    }
}

char *stepopts_export_with (const char *list, const char *const *names, size_t n)
{
    size_t size = strlen (list) + 1, len = 0;
    char *val;

    errno = 0;
    if (stepopts_export_all (list))
        return NULL;
    for (size_t i = 0; i < n; i++)
        size += strlen (names[i]) + 1;
    if (!(val = malloc (size)))
        return NULL;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf (val + len, size - len, "%s,", names[i]);
    snprintf (val + len, size - len, "%s", list);
    return val;
}
