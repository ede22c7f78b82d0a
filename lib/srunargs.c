/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srunargs.c: srun's own command line, read as srun reads it (srunargs.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/srunargs.h"

/* Longest command line srunargs_read takes: far above Linux's ARG_MAX
 * (a quarter of an 8 MiB stack limit by default).
 */
#define SRUNARGS_MAX (64u << 20)

/* What is wrong with the argument word that getopt_long refused: for a
 * long option, looked up as getopt_long does (the exact name, else a
 * unique prefix); for a short one, by getopt's optopt.
 */
static const char *fault (const char *word, int opt, const char *optstring,
                          const struct option *longopts)
{
    const struct option *hit = NULL;
    size_t len;
    int n = 0;

    if (strncmp (word, "--", 2) != 0)
        return opt > 0 && opt != ':' && opt != '+' && strchr (optstring, opt)
                   ? "needs a value"
                   : "not an option srun has";
    word += 2;
    len = strcspn (word, "=");
    for (const struct option *o = longopts; o->name; o++) {
        if (strncmp (o->name, word, len) != 0)
            continue;
        if (strlen (o->name) == len) {
            hit = o, n = 1;
            break;
        }
        hit = o, n++;
    }
    if (n == 0)
        return "not an option srun has";
    if (n > 1)
        return "an abbreviation of more than one option";
    if (word[len] == '=' && hit->has_arg == no_argument)
        return "takes no value";
    return "needs a value";
}

int srunargs_command (int argc, char *const argv[], const char *optstring,
                      const struct option *longopts, tm_error_t *errp)
{
    int save_ind = optind, save_err = opterr, save_opt = optopt, c, at, cmd = -1;
    char *save_arg = optarg, **copy;

    if (argc < 1 || !argv || !optstring || !longopts)
        return errprintf (errp, "srun's command line or option table is missing");
    /* getopt_long may permute the vector it is given: give it a copy. */
    if (!(copy = calloc ((size_t)argc + 1, sizeof (*copy))))
        return errnomem (errp);
    memcpy (copy, argv, (size_t)argc * sizeof (*copy));
    optind = 0; /* glibc: start over, as srun's _set_options does */
    opterr = 0;
    for (;;) {
        at = optind ? optind : 1;
        c = getopt_long (argc, copy, optstring, longopts, NULL);
        if (c == -1)
            break;
        if (c == '?' || c == ':') {
            const char *word = at < argc ? argv[at] : "";

            errprintf (errp, "srun's argument '%s': %s", errsafe (word, 64),
                       fault (word, optopt, optstring, longopts));
            goto out;
        }
    }
    if (optind >= argc) {
        errprintf (errp, "srun's command line names no command");
        goto out;
    }
    cmd = optind;
out:
    free (copy);
    optind = save_ind;
    opterr = save_err;
    optopt = save_opt;
    optarg = save_arg;
    return cmd;
}

char **srunargs_split (char *buf, size_t len, int *argc)
{
    size_t n = 0, i;
    char **argv, *p;

    if (!buf || len == 0 || buf[len - 1] != '\0') {
        errno = EINVAL;
        return NULL;
    }
    for (i = 0; i < len; i++)
        n += buf[i] == '\0';
    if (n >= (size_t)INT_MAX || !(argv = calloc (n + 1, sizeof (*argv))))
        return NULL;
    for (i = 0, p = buf; p < buf + len; p += strlen (p) + 1)
        argv[i++] = p;
    argv[i] = NULL;
    *argc = (int)i;
    return argv;
}

char *srunargs_read (const char *path, size_t *len, tm_error_t *errp)
{
    size_t size = 4096, have = 0;
    char *buf = NULL, *more;
    ssize_t n;
    int fd;

    if ((fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
        errprintf (errp, "%s: %s", path, strerror (errno));
        return NULL;
    }
    for (;;) {
        if (have + 1 >= size || !buf) {
            if (buf)
                size *= 2;
            if (size > SRUNARGS_MAX || !(more = realloc (buf, size))) {
                errprintf (errp, "%s: %s", path,
                           size > SRUNARGS_MAX ? "too long" : "out of memory");
                goto fail;
            }
            buf = more;
        }
        n = read (fd, buf + have, size - have - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            errprintf (errp, "%s: %s", path, strerror (errno));
            goto fail;
        }
        if (n == 0)
            break;
        have += (size_t)n;
    }
    close (fd);
    buf[have] = '\0';
    *len = have;
    return buf;
fail:
    close (fd);
    free (buf);
    return NULL;
}
