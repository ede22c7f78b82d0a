/* topomap: the command-line front end.  See topomap(1).
 *
 *   topomap netmap show FILE
 *
 * Parses its arguments and calls libtopomap; prints errors, one line each.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/netmap.h"

enum {
    EXIT_FAIL = 1,
    EXIT_USAGE = 2,
};

static const char *prog = "topomap";

static void usage (FILE *f)
{
    fprintf (f,
             "Usage: %s netmap show FILE     print a netmap: hosts, topology, matrices\n"
             "       %s --help | --version\n",
             prog, prog);
}

static int netmap_cmd (int argc, char **argv)
{
    tm_error_t e;

    if (argc < 1 || strcmp (argv[0], "show") != 0) {
        fprintf (stderr, "%s: netmap: unknown or missing command%s%s (expected 'show')\n", prog,
                 argc ? " " : "", argc ? argv[0] : "");
        return EXIT_USAGE;
    }
    if (argc != 2) {
        fprintf (stderr, "%s: netmap show: expected one FILE\n", prog);
        return EXIT_USAGE;
    }
    netmap_t *nm = netmap_read (argv[1], &e);
    if (!nm) {
        fprintf (stderr, "%s: %s\n", prog, e.text);
        return EXIT_FAIL;
    }
    int rc = netmap_show (stdout, nm, argv[1]) < 0 || fflush (stdout) != 0 ? EXIT_FAIL : 0;
    if (rc)
        fprintf (stderr, "%s: netmap show %s: %s\n", prog, argv[1], strerror (errno));
    netmap_destroy (nm);
    return rc;
}

int main (int argc, char **argv)
{
    if (argc < 2) {
        usage (stderr);
        return EXIT_USAGE;
    }
    if (!strcmp (argv[1], "-h") || !strcmp (argv[1], "--help")) {
        usage (stdout);
        return 0;
    }
    if (!strcmp (argv[1], "-V") || !strcmp (argv[1], "--version")) {
        printf ("%s %s\n", prog, PACKAGE_VERSION);
        return 0;
    }
    if (!strcmp (argv[1], "netmap"))
        return netmap_cmd (argc - 2, argv + 2);
    fprintf (stderr, "%s: unknown command '%s' (see '%s --help')\n", prog, argv[1], prog);
    return EXIT_USAGE;
}
