/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of lib/srunargs.c: the step's command in srun's argument
 * vector, under the option tables of the Slurm releases topomap supports
 * (t/fixtures/srun-options-*, extracted from each release's
 * src/common/slurm_opt.c) plus topomap's own SPANK options.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/srunargs.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"

#define MAXOPTS 512

static struct option table[MAXOPTS];
static char optstring[2 * MAXOPTS];

/* srun's table as slurm_option_table_create builds it from the release's
 * options, then the SPANK plugins' (topomap's here); long options without
 * a letter get a value of their own above 255.
 */
static int load (const char *version)
{
    char path[4096], line[256], name[128];
    int n = 0, arg;
    char letter;
    FILE *f;

    snprintf (path, sizeof (path), "%s/srun-options-%s", TOPOMAP_FIXTURES, version);
    if (!(f = fopen (path, "r")))
        return -1;
    for (int i = 0; i < MAXOPTS; i++)
        free ((char *)table[i].name);
    memset (table, 0, sizeof (table));
    strcpy (optstring, "+");
    while (fgets (line, sizeof (line), f) && n < MAXOPTS - 3) {
        if (line[0] == '#' || sscanf (line, "%127s %d %c", name, &arg, &letter) != 3)
            continue;
        table[n] = (struct option){strdup (name), arg, NULL, letter == '-' ? 256 + n : letter};
        if (letter != '-') {
            size_t l = strlen (optstring);
            snprintf (optstring + l, sizeof (optstring) - l, "%c%s", letter,
                      arg == 1   ? ":"
                      : arg == 2 ? "::"
                                 : "");
        }
        n++;
    }
    fclose (f);
    table[n] = (struct option){strdup ("topo-map"), optional_argument, NULL, 256 + n};
    n++;
    table[n] = (struct option){strdup ("topo-profile"), required_argument, NULL, 256 + n};
    return n + 1;
}

/* The command's index in the srun command line words (split at spaces),
 * or -1 with the message in e.
 */
static int command (const char *line, tm_error_t *e)
{
    char buf[512], *argv[64], *save = NULL;
    int argc = 0;

    snprintf (buf, sizeof (buf), "%s", line);
    for (char *w = strtok_r (buf, " ", &save); w && argc < 63; w = strtok_r (NULL, " ", &save))
        argv[argc++] = w;
    argv[argc] = NULL;
    return srunargs_command (argc, argv, optstring, table, e);
}

static const struct {
    const char *line;
    int want; /* the command's index */
    const char *what;
} alike[] = {
    {"srun hostname", 1, "a command alone"},
    {"srun -n 4 hostname", 3, "a short option with its value apart"},
    {"srun -n4 -N2 hostname", 3, "short options with their values attached"},
    {"srun -lv -n4 hostname", 3, "short options run together"},
    {"srun --ntasks 4 --mpi pmix ./a.out -n 3", 5, "long options with their values apart"},
    {"srun --ntasks=4 --mpi=pmix ./a.out", 3, "long options with '='"},
    {"srun -J hostname hostname", 3, "a command named like the option value before it"},
    {"srun --job-name hostname -l hostname", 4, "a long option's value named like the command"},
    {"srun -n4 -- -n", 3, "'--' ends the options; the command may look like one"},
    {"srun --multi-prog -n4 multi.conf", 3, "--multi-prog: the configuration file stands first"},
    {"srun --topo-map hostname", 2, "an optional value must be attached: --topo-map hostname"},
    {"srun --topo-map=dry-run --topo-profile auto ./app", 4, "a SPANK option's value apart"},
    {"srun -K hostname", 2, "a short optional value must be attached: -K hostname"},
    {"srun -K1 hostname", 2, "a short optional value attached"},
    {"srun --lab --mp pmix hostname", 4, "long options shortened as getopt_long allows"},
    {"srun ./a.out --ntasks 4 -J x", 1, "options after the command are the command's"},
    {"srun --pty bash", 2, "--pty with no value"},
    {"srun --export=ALL,A=b -n2 ./a", 3, "a value with '=' and ','"},
};

static void versions_alike (const char *version)
{
    tm_error_t e;
    int got;

    ok (load (version) > 100, "%s: srun's option table loads", version);
    for (size_t i = 0; i < sizeof (alike) / sizeof (alike[0]); i++) {
        got = command (alike[i].line, &e);
        ok (got == alike[i].want, "%s: %s (%s): %d", version, alike[i].what, alike[i].line, got);
    }
    ok (command ("srun -n4 -N2", &e) == -1 && strstr (e.text, "names no command"),
        "%s: no command is an error: %s", version, e.text);
    ok (command ("srun -l -n", &e) == -1 && strstr (e.text, "'-n': needs a value"),
        "%s: a short option without its value is named: %s", version, e.text);
    ok (command ("srun --mpi", &e) == -1 && strstr (e.text, "'--mpi': needs a value"),
        "%s: a long option without its value is named: %s", version, e.text);
    ok (command ("srun --bogus hostname", &e) == -1 &&
            strstr (e.text, "'--bogus': not an option srun has"),
        "%s: an unknown long option is named: %s", version, e.text);
    ok (command ("srun -Y hostname", &e) == -1 && strstr (e.text, "'-Y': not an option srun has"),
        "%s: an unknown short option is named: %s", version, e.text);
    ok (command ("srun --nt 4 hostname", &e) == -1 &&
            strstr (e.text, "'--nt': an abbreviation of more than one option"),
        "%s: an ambiguous abbreviation is named: %s", version, e.text);
    ok (command ("srun --label=1 hostname", &e) == -1 &&
            strstr (e.text, "'--label=1': takes no value"),
        "%s: a value given to an option that takes none is named: %s", version, e.text);
    ok (command ("srun --lab=1 hostname", &e) == -1 && strstr (e.text, "takes no value"),
        "%s: so is one given to its abbreviation: %s", version, e.text);
}

int main (void)
{
    const char *versions[] = {"22.05.8", "24.11.5", "26.05.3"};
    char path[PATH_MAX], mark[] = "mark", *buf, **argv;
    tm_error_t e;
    size_t len;
    int argc;

    plan (NO_PLAN);

    for (size_t i = 0; i < sizeof (versions) / sizeof (versions[0]); i++)
        versions_alike (versions[i]);

    /* Where the releases differ. */
    load ("22.05.8");
    ok (command ("srun --uid 1000 hostname", &e) == 3, "22.05: --uid takes a value");
    ok (command ("srun --pty=yes bash", &e) == -1 && strstr (e.text, "'--pty=yes': takes no value"),
        "22.05: --pty takes no value: %s", e.text);
    load ("24.11.5");
    ok (command ("srun --uid 1000 hostname", &e) == -1 && strstr (e.text, "'--uid'"),
        "24.11: --uid is gone: %s", e.text);
    ok (command ("srun --pty=yes bash", &e) == 2, "24.11: --pty takes an optional value");
    ok (command ("srun --segment 2 hostname", &e) == 3, "24.11: --segment takes a value");
    ok (command ("srun --external-launcher hostname", &e) == 2,
        "24.11: --external-launcher's value is optional");
    load ("26.05.3");
    ok (command ("srun --ignore-signals INT hostname", &e) == 3,
        "26.05: --ignore-signals takes a value");
    ok (command ("srun --parsable hostname", &e) == 2, "26.05: --parsable takes none");

    /* getopt's state is the caller's. */
    optind = 7;
    opterr = 1;
    optarg = mark;
    command ("srun -n 4 hostname", &e);
    ok (optind == 7 && opterr == 1 && optarg == mark, "the caller's getopt state is kept");
    ok (srunargs_command (0, NULL, optstring, table, &e) == -1, "an empty command line is refused");

    /* Splitting and reading /proc/PID/cmdline. */
    {
        char raw[] = "srun\0-n\0004\0./a\0";
        argv = srunargs_split (raw, sizeof (raw) - 1, &argc);
        ok (argv && argc == 4 && !strcmp (argv[2], "4") && !strcmp (argv[3], "./a") && !argv[4],
            "srunargs_split splits at the NULs");
        free (argv);
        ok (!srunargs_split (raw, 6, &argc) && errno == EINVAL,
            "srunargs_split refuses a buffer that does not end in a NUL");
        ok (!srunargs_split (raw, 0, &argc), "srunargs_split refuses an empty buffer");
    }
    if (scratch_dir ("srunargs") < 0)
        return done_testing ();
    {
        /* 5000 arguments, 100 KiB: more than any fixed buffer would hold. */
        size_t n = 5000, at = 0;
        char *big = malloc (n * 21);

        for (size_t i = 0; i < n; i++)
            at += (size_t)sprintf (big + at, "%019zu", i) + 1;
        in_dir (path, "cmdline");
        ok (write_file (path, big, at, 0600) == 0, "a 100 KiB command line written");
        buf = srunargs_read (path, &len, &e);
        argv = buf ? srunargs_split (buf, len, &argc) : NULL;
        ok (argv && len == at && argc == 5000 && !strcmp (argv[4999], "0000000000000004999"),
            "srunargs_read reads it whole: %d arguments", argv ? argc : -1);
        free (argv);
        free (buf);
        free (big);
    }
    in_dir (path, "missing");
    ok (!srunargs_read (path, &len, &e) && strstr (e.text, "missing: No such file"),
        "srunargs_read names a file it cannot open: %s", e.text);
    buf = srunargs_read ("/proc/self/cmdline", &len, &e);
    argv = buf ? srunargs_split (buf, len, &argc) : NULL;
    ok (argv && argc == 1 && strstr (argv[0], "srunargs"),
        "srunargs_read reads /proc/self/cmdline");
    free (argv);
    free (buf);
    remove_tree (dir);

    for (int i = 0; i < MAXOPTS; i++)
        free ((char *)table[i].name);
    return done_testing ();
}
