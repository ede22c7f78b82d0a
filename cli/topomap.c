/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topomap: the command-line front end.  See topomap(1).
 *
 *   topomap netmap show|draw|export|import ...
 *   topomap profile show|export|import|list|rm|draw ...
 *   topomap plan --profile P --netmap N [...]
 *   topomap recorder [--libdir DIR] EXE
 *
 * Parses its arguments and calls libtopomap; prints errors, one line each.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/compat.h"
#include "cli/draw.h"
#include "cli/json.h"
#include "cli/netmap_show.h"
#include "lib/exeid.h"
#include "lib/file.h"
#include "lib/history.h"
#include "lib/jsonfile.h"
#include "lib/mapper.h"
#include "lib/netmap.h"
#include "lib/planfile.h"
#include "lib/railmap.h"
#include "lib/profile.h"
#include "lib/profile_cache.h"
#include "lib/recorder.h"
#include "lib/topoconf.h"
#include "lib/topoyaml.h"

enum {
    EXIT_FAIL = 1,
    EXIT_USAGE = 2,
};

static const char *prog = "topomap";

/* Each command's own help: `topomap CMD --help`.  Its usage, what it does
 * and its options; topomap(1) has the whole story.
 */
static const struct {
    const char *cmd;
    const char *synopsis; /* after "topomap " */
    const char *summary;  /* a line of the whole usage */
    const char *text;     /* what it does, its options */
} helps[] = {
    {"netmap show", "netmap show [--matrices | --json] FILE",
     "print a netmap: hosts, topology, matrices",
     "Print a netmap: the job and when it was measured, the probe's parameters,\n"
     "the pairs measured, the topology model (switch tree or groups) and the\n"
     "latency (us, one way) and bandwidth (MB/s) matrices; the diagonal holds\n"
     "intra-node figures, '-' where not measured.  Beyond 32 hosts, each level's\n"
     "pairs in a line in place of the matrices.\n"
     "  --matrices  the matrices however many hosts\n"
     "  --json      all but the matrices, as one JSON document (topomap(1))\n"},
    {"netmap draw", "netmap draw -o OUT.svg FILE", "picture a netmap's matrices",
     "Draw the netmap's latency and bandwidth matrices as heatmaps, hosts grouped\n"
     "by switch, bright: faster in both, into OUT.svg (written whole or not at all).\n"
     "  -o, --output OUT.svg  the picture to write\n"},
    {"netmap export", "netmap export [--format slurm-topology] [-o OUT] FILE",
     "its switch tree as Slurm's topology.conf",
     "Write the netmap's switch tree as Slurm's topology.conf, each level's\n"
     "figures in #topomap comments, to standard output or OUT.\n"
     "  -f, --format slurm-topology  the only format (the default)\n"
     "  -o, --output OUT             the file to write (- : standard output)\n"},
    {"netmap import", "netmap import [--hosts LIST] -o OUT TOPOLOGY.CONF",
     "a netmap of a topology.conf's tree and figures",
     "Make a netmap of a topology.conf's switch tree, every pair at the figures\n"
     "of its level from the file's #topomap level= comments; nothing measured.\n"
     "  -H, --hosts LIST  a Slurm host list: the netmap's nodes (default: every\n"
     "                    node of the file, in its order)\n"
     "  -o, --output OUT  the netmap to write\n"},
    {"profile show", "profile show [--top N] [--json] FILE",
     "print a profile: totals, heaviest pairs",
     "Print a profile: executable, MPI, task count, when and how it was\n"
     "recorded, totals, the heaviest pairs by bytes and how uneven the pattern\n"
     "is; of a profile with a check, how much of the traffic recurred.\n"
     "  -t, --top N   how many pairs to list (default 10, 0 to 1000000)\n"
     "  --json        one JSON document (topomap(1))\n"},
    {"profile export", "profile export [--what bytes|msgs] FILE", "print a profile's matrix as CSV",
     "Print the profile's matrix as CSV: a line per sending rank, a column per\n"
     "receiving rank.\n"
     "  -w, --what bytes|msgs  bytes (the default) or messages\n"},
    {"profile import",
     "profile import [--format F] [--exe EXE] [--cache DIR | --site DIR | -o OUT] FILE",
     "file a profile, a matrix, a TreeMatch .mat or Open MPI monitoring output in the cache",
     "File a profile in the user's cache (or write it to OUT) and print where it\n"
     "went.  FILE is a profile the recorder wrote, or one of the formats below\n"
     "(guessed from the content unless --format says); - : standard input.\n"
     "  -f, --format F  json: a profile the recorder wrote;\n"
     "                  matrix (or csv): an n x n matrix of bytes, commas or blanks;\n"
     "                  mat: TreeMatch's .mat; ompi (or ompi-monitoring): Open MPI's\n"
     "                  monitoring output\n"
     "  -e, --exe EXE   whose profile it is (its identity keys the cache; needed to\n"
     "                  file a foreign format there)\n"
     "  -C, --cache DIR the cache to file it in (files 0600, directories 0700)\n"
     "  --site DIR      the site's profile directory (files 0644, directories 0755)\n"
     "                  (either refused where srun --topo-map would not trust it:\n"
     "                  a directory others may write, or another's, on the way)\n"
     "  -o, --output OUT  write it to OUT instead\n"},
    {"profile list", "profile list [--cache DIR] [--site DIR] [--noheader | --json]",
     "the cached profiles",
     "List the cached profiles: task count, when recorded, file, executable; a\n"
     "file that is no valid profile with the reason.\n"
     "  -C, --cache DIR  the cache to list (default: the user's)\n"
     "  -S, --site DIR   the site's profile directory too, after the user's\n"
     "  --noheader       no header line\n"
     "  --json           a JSON array, an object a file (topomap(1))\n"},
    {"profile rm", "profile rm [--cache DIR] [--ntasks N] KEY|EXE_ID|EXE", "remove cached profiles",
     "Remove cached profiles: of an executable (its path or identity) for every\n"
     "task count or for N only, or one file by its name (KEY).\n"
     "  -C, --cache DIR  the cache (default: the user's)\n"
     "  -n, --ntasks N   that task count only\n"},
    {"profile draw", "profile draw -o OUT.svg FILE", "picture a profile's matrix",
     "Draw the bytes each rank sent to each other rank as a heatmap (logarithmic\n"
     "colours, bright: more; black: never talked; beyond 128 ranks, blocks of\n"
     "ranks) into OUT.svg.\n"
     "  -o, --output OUT.svg  the picture to write\n"},
    {"plan",
     "plan --profile P --netmap N [--slots NODE:N,...] [--metric M]\n"
     "[--format F[,F...]] [-o OUT] [--explain [--json]] [--svg OUT.svg] [-v]\n"
     "[--price scotch|NAME=HOSTFILE]...",
     "place the ranks of P on the nodes of N",
     "Choose a node of the netmap N for every rank of the profile P, priced by\n"
     "the cost model; srun's block and cyclic layouts are priced too and the\n"
     "cheapest that also loads the busiest link less than block wins.\n"
     "  -p, --profile P    the profile (- : standard input, for one of P and N)\n"
     "  -N, --netmap N     the netmap\n"
     "  -s, --slots NODE:COUNT,...  the step's nodes in srun's order and their ranks\n"
     "                     (default: every node of N, as srun's block spreads them)\n"
     "  -m, --metric M     combined (default: msgs x latency + bytes / bandwidth),\n"
     "                     latency or bandwidth\n"
     "  -f, --format F     hostfile (default: a node a line, rank order, for srun -m\n"
     "                     arbitrary), rankfile (Open MPI: mpirun --rankfile F up to\n"
     "                     4.x, --map-by rankfile:file=F from 5.0), cray (Cray\n"
     "                     MPICH's MPICH_RANK_ORDER; mpich, its former name),\n"
     "                     machinefile (MPICH's Hydra: mpiexec -f F); several:\n"
     "                     -o is a prefix, the format's name its suffix\n"
     "  -o, --output OUT   where the plan goes (default: standard output)\n"
     "  -x, --explain      every candidate: cost_ms (the model's predicted\n"
     "                     communication time), internode_MB, internode_msgs, comm_s\n"
     "                     (bytes over bandwidth), vs_block, link_ms (its busiest\n"
     "                     link), link_vs (that against block)\n"
     "  --json             --explain as one JSON document (topomap(1))\n"
     "  --svg OUT.svg      srun's block layout beside the plan, as a picture\n"
     "  --price scotch|NAME=HOSTFILE  (with --explain) price another layout too\n"
     "  -v, --verbose      how long planning took, step by step\n"},
    {"recorder", "recorder [--libdir DIR] EXE", "the PMPI recorder to preload into EXE",
     "Print the PMPI recorder library to preload (LD_PRELOAD) into EXE: the one\n"
     "built for the MPI EXE links, Open MPI or MPICH.\n"
     "  -L, --libdir DIR  where the recorders are (default: the installed ones)\n"},
};

/* A synopsis, its further lines indented by indent. */
static void put_synopsis (FILE *f, const char *syn, int indent)
{
    for (int n; (n = (int)strcspn (syn, "\n")), syn[n]; syn += n + 1)
        fprintf (f, "%.*s\n%*s", n, syn, indent, "");
    fputs (syn, f);
}

/* The whole usage: every command's synopsis and summary. */
static void usage (FILE *f)
{
    for (size_t k = 0; k < sizeof (helps) / sizeof (helps[0]); k++) {
        fprintf (f, "%s %s ", k ? "      " : "Usage:", prog);
        put_synopsis (f, helps[k].synopsis, 15);
        fprintf (f, "\n           %s\n", helps[k].summary);
    }
    fprintf (f,
             "       %s --help | --version\n"
             "A FILE of - is standard input.  Each command's options: %s COMMAND --help.\n"
             "See topomap(1).\n",
             prog, prog);
}

/* The help of the command argv[0] [argv[1]] names, or the whole usage. */
static void help (int argc, char **argv)
{
    for (size_t k = 0; k < sizeof (helps) / sizeof (helps[0]); k++) {
        const char *c = helps[k].cmd, *sp = strchr (c, ' ');
        size_t len = sp ? (size_t)(sp - c) : strlen (c);

        if (strlen (argv[0]) == len && !strncmp (argv[0], c, len) &&
            (!sp || (argc > 1 && !strcmp (argv[1], sp + 1)))) {
            printf ("Usage: %s ", prog);
            put_synopsis (stdout, helps[k].synopsis, 12);
            printf ("\n%sSee topomap(1).\n", helps[k].text);
            return;
        }
    }
    usage (stdout);
}

/* Report a failure of a library call, the way every command does:
 * "topomap: CMD: FILE[:LINE]: fault", the library naming the file.
 */
/* A file name as errprintf shows it: one line, however it was named. */
/* Inputs read whole into memory under a descriptor's path (input()),
 * and the names they were given, which messages show in their place. */
static struct {
    char path[32];
    const char *name;
} spooled[8];
static int nspooled;

/* The name a path input() returned was given as. */
static const char *given_name (const char *path)
{
    for (int i = 0; i < nspooled; i++)
        if (!strcmp (path, spooled[i].path))
            return spooled[i].name;
    return path;
}

static const char *shown (const char *path)
{
    static tm_error_t e;

    errprintf (&e, "%s", given_name (path));
    return e.text;
}

static int fail (const char *cmd, const tm_error_t *e)
{
    for (int i = 0; i < nspooled; i++) {
        size_t n = strlen (spooled[i].path);

        if (!strncmp (e->text, spooled[i].path, n) && e->text[n] == ':') {
            tm_error_t named;

            errprintf (&named, "%s%s", errsafe (spooled[i].name, PATH_MAX), e->text + n);
            fprintf (stderr, "%s: %s: %s\n", prog, cmd, named.text);
            return EXIT_FAIL;
        }
    }
    fprintf (stderr, "%s: %s: %s\n", prog, cmd, e->text);
    return EXIT_FAIL;
}

static int bad_usage (const char *cmd, const char *what)
{
    fprintf (stderr, "%s: %s: %s (see '%s %s --help')\n", prog, cmd, what, prog, cmd);
    return EXIT_USAGE;
}

/* getopt_long for the command cmd, its complaints in the style of every
 * other usage error (bad_usage): an unknown option, or one without its
 * value, then '?'.
 */
static int next_option (const char *cmd, int argc, char **argv, const char *shortopts,
                        const struct option *longopts)
{
    const char *arg;
    char spec[32], name[64], quoted[4 * sizeof (name) + 8], what[sizeof (quoted) + 32];
    int c;

    snprintf (spec, sizeof (spec), ":%s", shortopts);
    opterr = 0;
    if ((c = getopt_long (argc, argv, spec, longopts, NULL)) != '?' && c != ':')
        return c;
    arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    if (!strncmp (arg, "--", 2))
        snprintf (name, sizeof (name), "%.*s", (int)strcspn (arg, "="), arg);
    else
        snprintf (name, sizeof (name), "-%c", optopt > ' ' && optopt < 127 ? optopt : '?');
    snprintf (what, sizeof (what), "%s: %s",
              errquote (name, sizeof (name) - 1, quoted, sizeof (quoted)),
              c == ':' ? "needs a value" : "unknown option");
    bad_usage (cmd, what);
    return '?';
}

/* Flush stdout and report an output error naming what was printed. */
static int finish_output (const char *what)
{
    if (fflush (stdout) != 0 || ferror (stdout)) {
        fprintf (stderr, "%s: %s: %s\n", prog, what, strerror (errno));
        return EXIT_FAIL;
    }
    return 0;
}

/* The most any reader takes (a profile); standard input read past it is
 * refused.
 */
#define INPUT_MAX_BYTES ((size_t)512 * 1024 * 1024)

/* Read fd (name in messages) whole into a file in memory: its descriptor,
 * or -1 with errp when it cannot be read or passes INPUT_MAX_BYTES. */
static int spool (int fd, const char *name, tm_error_t *errp)
{
    static char chunk[65536];
    size_t total = 0;
    int mfd = memfd_create ("topomap-input", MFD_CLOEXEC);

    if (mfd < 0)
        return errprintf (errp, "%s: %s", name, strerror (errno));
    for (;;) {
        ssize_t n = read (fd, chunk, sizeof (chunk));

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (n > 0 && write (mfd, chunk, (size_t)n) != n)) {
            errprintf (errp, "%s: %s", name, strerror (errno));
            break;
        }
        if (n == 0)
            return mfd;
        if ((total += (size_t)n) > INPUT_MAX_BYTES) {
            errprintf (errp, "%s: larger than the limit of %zu MiB", name,
                       INPUT_MAX_BYTES / (1024 * 1024));
            break;
        }
    }
    close (mfd);
    return -1;
}

/* The descriptor a path names: /dev/stdin, /dev/fd/N, /proc/self/fd/N;
 * -1 for any other path. */
static int named_fd (const char *path)
{
    int n = -1, len = 0;

    if (!strcmp (path, "/dev/stdin"))
        return STDIN_FILENO;
    if ((sscanf (path, "/dev/fd/%d%n", &n, &len) == 1 ||
         sscanf (path, "/proc/self/fd/%d%n", &n, &len) == 1) &&
        path[len] == '\0' && n >= 0)
        return n;
    return -1;
}

/* A file argument.  The readers take regular files only, so "-"
 * (standard input) and a path naming a pipe, FIFO or terminal are read
 * whole into a file in memory first: "-" becomes "/dev/stdin"; a
 * descriptor's path (bash's <(...), /dev/stdin) names the copy under the
 * same descriptor; another path, a descriptor's path messages show as
 * the name given.  Any other path is the readers' to open or refuse.
 * NULL, with errp, when it cannot be read, or "-" is given twice.
 */
static const char *input (const char *arg, tm_error_t *errp)
{
    static bool taken;
    struct stat st;
    int fd, mfd, to;

    if (!strcmp (arg, "-")) {
        if (taken) {
            errprintf (errp, "-: standard input can be read only once");
            return NULL;
        }
        taken = true;
        if (fstat (STDIN_FILENO, &st) < 0) {
            errprintf (errp, "standard input: %s", strerror (errno));
            return NULL;
        }
        if (S_ISREG (st.st_mode))
            return "/dev/stdin";
        if ((mfd = spool (STDIN_FILENO, "standard input", errp)) < 0)
            return NULL;
        if (dup2 (mfd, STDIN_FILENO) < 0) {
            errprintf (errp, "standard input: %s", strerror (errno));
            close (mfd);
            return NULL;
        }
        close (mfd);
        return "/dev/stdin";
    }
    if (stat (arg, &st) < 0 || !(S_ISFIFO (st.st_mode) || S_ISCHR (st.st_mode)))
        return arg;
    if (nspooled == (int)(sizeof (spooled) / sizeof (spooled[0]))) {
        errprintf (errp, "%s: too many inputs that are no files", errsafe (arg, PATH_MAX));
        return NULL;
    }
    if ((fd = open (arg, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0) {
        errprintf (errp, "%s: %s", errsafe (arg, PATH_MAX), strerror (errno));
        return NULL;
    }
    mfd = spool (fd, errsafe (arg, PATH_MAX), errp);
    close (fd);
    if (mfd < 0)
        return NULL;
    if ((to = named_fd (arg)) >= 0) {
        if (dup2 (mfd, to) < 0) {
            errprintf (errp, "%s: %s", errsafe (arg, PATH_MAX), strerror (errno));
            close (mfd);
            return NULL;
        }
        close (mfd);
        return arg;
    }
    /* Kept open for the readers, who open its path. */
    snprintf (spooled[nspooled].path, sizeof (spooled[nspooled].path), "/dev/fd/%d", mfd);
    spooled[nspooled].name = arg;
    return spooled[nspooled++].path;
}

/* draw -o OUT.svg FILE: the arguments of the draw commands; the operand's
 * index, or -1 after reporting a usage error.
 */
static int draw_args (const char *cmd, int argc, char **argv, const char **outp)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    int c;

    *outp = NULL;
    while ((c = next_option (cmd, argc, argv, "o:", longopts)) != -1) {
        if (c != 'o')
            return -1;
        *outp = optarg;
    }
    if (!*outp || argc - optind != 1) {
        bad_usage (cmd, "expected -o OUT.svg and one FILE");
        return -1;
    }
    return optind;
}

/* netmap export [--format slurm-topology] [-o OUT] FILE */
static int netmap_export_cmd (int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    const char *out = "-", *file;
    char *text = NULL;
    size_t len = 0;
    netmap_t *nm;
    tm_error_t e;
    FILE *f;
    int c, rc;

    while ((c = next_option ("netmap export", argc, argv, "f:o:", longopts)) != -1) {
        if (c == 'o')
            out = optarg;
        else if (c != 'f' || strcmp (optarg, "slurm-topology") != 0)
            return c == 'f' ? bad_usage ("netmap export", "--format: only slurm-topology")
                            : EXIT_USAGE;
    }
    if (argc - optind != 1)
        return bad_usage ("netmap export", "expected one FILE");
    if (!(file = input (argv[optind], &e)))
        return fail ("netmap export", &e);
    if (!(nm = netmap_read (file, &e)))
        return fail ("netmap export", &e);
    if (!(f = open_memstream (&text, &len))) {
        netmap_destroy (nm);
        fprintf (stderr, "%s: netmap export: %s\n", prog, strerror (errno));
        return EXIT_FAIL;
    }
    rc = topoconf_write (f, nm, given_name (file), &e);
    if (fclose (f) != 0 && rc == 0)
        rc = errprintf (&e, "%s", strerror (errno));
    if (rc == 0 && file_replace (out, text, len, 0644, &e) < 0)
        rc = -1;
    if (rc < 0)
        fprintf (stderr, "%s: netmap export: %s: %s\n", prog, shown (file), e.text);
    free (text);
    netmap_destroy (nm);
    return rc < 0 ? EXIT_FAIL : 0;
}

/* netmap import [--hosts LIST] -o OUT TOPOLOGY.CONF */
static int netmap_import_cmd (int argc, char **argv)
{
    static const struct option longopts[] = {
        {"hosts", required_argument, NULL, 'H'},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *list = NULL, *file;
    char **hosts = NULL;
    int n = 0, c, rc = EXIT_FAIL;
    topoconf_level_t levels[TOPOCONF_LEVELS];
    netmap_t *nm = NULL;
    topo_t *t;
    tm_error_t e;

    while ((c = next_option ("netmap import", argc, argv, "H:o:", longopts)) != -1) {
        if (c == 'o')
            out = optarg;
        else if (c == 'H')
            list = optarg;
        else
            return EXIT_USAGE;
    }
    if (!out || argc - optind != 1)
        return bad_usage ("netmap import", "expected -o OUT and one TOPOLOGY.CONF");
    if (list && !topoconf_hostlist_ok (list)) {
        char quoted[4 * 64 + 8], what[sizeof (quoted) + 64];

        snprintf (what, sizeof (what), "--hosts '%s': not a Slurm host list",
                  errquote (list, 64, quoted, sizeof (quoted)));
        return bad_usage ("netmap import", what);
    }
    if (!(file = input (argv[optind], &e)))
        return fail ("netmap import", &e);
    if (list && !(hosts = compat_hostlist_expand (list, &n, &e))) {
        fprintf (stderr, "%s: netmap import: --hosts: %s\n", prog, e.text);
        return EXIT_USAGE;
    }
    if (!(t = topoyaml_named (given_name (file))
                  ? topoyaml_read (file, NULL, &n, &hosts, levels, NULL, &e)
                  : topoconf_read (file, &n, &hosts, levels, &e)))
        fail ("netmap import", &e);
    else if (!(nm = topoconf_netmap (t, n, (const char *const *)hosts, levels, &e))) {
        const char *hint = errno == ENODATA ? ": give them in the file, or measure them "
                                              "(topomap-probe(1) --topology)"
                                            : "";

        fprintf (stderr, "%s: netmap import: %s: %s%s\n", prog, shown (file), e.text, hint);
    } else if (netmap_write (nm, out, 0644, &e) < 0)
        fprintf (stderr, "%s: netmap import: %s\n", prog, e.text);
    else
        rc = 0;
    netmap_destroy (nm);
    compat_names_free (hosts, n);
    return rc;
}

static int netmap_cmd (int argc, char **argv)
{
    static const struct option show[] = {
        {"json", no_argument, NULL, 'J'}, {"matrices", no_argument, NULL, 'M'}, {NULL, 0, NULL, 0}};
    const char *out, *file;
    netmap_t *nm;
    tm_error_t e;
    int rc, i, c, json = 0, matrices = -1;

    if (argc >= 1 && !strcmp (argv[0], "export"))
        return netmap_export_cmd (argc, argv);
    if (argc >= 1 && !strcmp (argv[0], "import"))
        return netmap_import_cmd (argc, argv);

    if (argc >= 1 && !strcmp (argv[0], "draw")) {
        if ((i = draw_args ("netmap draw", argc, argv, &out)) < 0)
            return EXIT_USAGE;
        if (!(file = input (argv[i], &e)))
            return fail ("netmap draw", &e);
        if (!(nm = netmap_read (file, &e)))
            return fail ("netmap draw", &e);
        rc = draw_netmap (nm, out, &e) < 0 ? fail ("netmap draw", &e) : 0;
        netmap_destroy (nm);
        return rc;
    }
    if (argc < 1 || strcmp (argv[0], "show") != 0) {
        fprintf (stderr,
                 "%s: netmap: unknown or missing command%s%s (expected show, draw, export or "
                 "import)\n",
                 prog, argc ? " " : "", argc ? argv[0] : "");
        return EXIT_USAGE;
    }
    while ((c = next_option ("netmap show", argc, argv, "", show)) != -1) {
        if (c == 'J')
            json = 1;
        else if (c == 'M')
            matrices = 1;
        else
            return EXIT_USAGE;
    }
    if (json && matrices == 1)
        return bad_usage ("netmap show", "--json has no matrices: the netmap file holds them");
    if (argc - optind != 1)
        return bad_usage ("netmap show", "expected one FILE");
    if (!(file = input (argv[optind], &e)))
        return fail ("netmap show", &e);
    if (!(nm = netmap_read (file, &e)))
        return fail ("netmap show", &e);
    if (json)
        rc = json_put (stdout, json_netmap_show (nm)) < 0 ? EXIT_FAIL : 0;
    else
        rc = netmap_show (stdout, nm, given_name (file), matrices) < 0 ? EXIT_FAIL : 0;
    if (rc)
        fprintf (stderr, "%s: netmap show: %s\n", prog, strerror (errno));
    else
        rc = finish_output ("netmap show");
    netmap_destroy (nm);
    return rc;
}

static int profile_draw_cmd (int argc, char **argv)
{
    const char *out, *file;
    profile_t *p;
    tm_error_t e;
    int rc, i;

    if ((i = draw_args ("profile draw", argc, argv, &out)) < 0)
        return EXIT_USAGE;
    if (!(file = input (argv[i], &e)))
        return fail ("profile draw", &e);
    if (!(p = profile_read (file, &e)))
        return fail ("profile draw", &e);
    rc = draw_profile (p, out, &e) < 0 ? fail ("profile draw", &e) : 0;
    profile_destroy (p);
    return rc;
}

/* The runs srun saw of the profile file, from the history beside it:
 * allocated (free it), or NULL with why ("" when file names no history:
 * not a .json file, standard input, none there). */
static history_t *runs_of (const char *file, char *why, size_t len)
{
    const char *slash = strrchr (file, '/'), *base = slash ? slash + 1 : file;
    size_t n = strlen (base);
    char dir[4096], name[NAME_MAX + 1];
    history_t *h = malloc (sizeof (*h));
    int fd;
    tm_error_t e;

    why[0] = '\0';
    if (!h || strcmp (file, "-") == 0 || n <= 5 || strcmp (base + n - 5, ".json") != 0 ||
        snprintf (dir, sizeof (dir), "%.*s", slash ? (int)(slash - file) : 1, slash ? file : ".") >=
            (int)sizeof (dir) ||
        snprintf (name, sizeof (name), "%.*s%s", (int)n - 5, base, HISTORY_SUFFIX) >=
            (int)sizeof (name) ||
        (fd = open (dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        free (h);
        return NULL;
    }
    if (history_readat (fd, name, name, getuid (), h, &e) < 0) {
        snprintf (why, len, "%s", e.text);
        free (h);
        h = NULL;
    }
    close (fd);
    return h;
}

/* The runs kept beside the profile file (history.h), when there are
 * any: how many under each layout (recordings apart), and for the arguments of the latest,
 * the medians history_judge compares and their ratio.
 */
static void show_runs (const history_t *h, const char *why)
{
    history_verdict_t v;

    if (why[0])
        printf ("runs: not read: %s\n", why);
    if (!h || h->nruns == 0)
        return;
    printf ("runs: %d kept, %d recorded, %d under srun's layout, %d placed\n", h->nruns,
            history_count (h, HISTORY_RECORDED), history_count (h, HISTORY_SRUN),
            history_count (h, HISTORY_PLAN));
    history_judge (h, h->run[h->nruns - 1].args, &v);
    if (v.placed && v.srun)
        printf ("like the latest: placed %.3f s against srun's layout %.3f s (medians of %d "
                "and %d, spread %.3f s): speedup %.2fx%s\n",
                v.placed_s, v.srun_s, v.placed, v.srun, v.spread_s,
                v.placed_s > 0 ? v.srun_s / v.placed_s : 0, v.keep ? ", srun's layout kept" : "");
}

static int profile_show_cmd (int argc, char **argv)
{
    static const struct option longopts[] = {
        {"top", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'J'},
        {NULL, 0, NULL, 0},
    };
    int top = 10, c, json = 0;
    const char *file;
    char *end, why[sizeof (((tm_error_t *)0)->text)];
    history_t *h;
    tm_error_t e;

    while ((c = next_option ("profile show", argc, argv, "t:", longopts)) != -1) {
        if (c == 'J') {
            json = 1;
            continue;
        }
        if (c != 't')
            return EXIT_USAGE;
        errno = 0;
        long v = strtol (optarg, &end, 10);
        if (errno || *end || end == optarg || v < 0 || v > 1000000)
            return bad_usage ("profile show", "--top: expected a count from 0 to 1000000");
        top = (int)v;
    }
    if (argc - optind != 1)
        return bad_usage ("profile show", "expected one FILE");
    if (!(file = input (argv[optind], &e)))
        return fail ("profile show", &e);
    profile_t *p = profile_read (file, &e);
    if (!p)
        return fail ("profile show", &e);
    h = runs_of (file, why, sizeof (why));
    int rc;
    if (json) {
        if (why[0])
            fprintf (stderr, "%s: profile show: runs not read: %s\n", prog, why);
        rc = json_put (stdout, json_profile_show (p, top, h)) < 0 ? EXIT_FAIL : 0;
    } else if (!(rc = profile_show (stdout, p, given_name (file), top) < 0 ? EXIT_FAIL : 0))
        show_runs (h, why);
    free (h);
    if (rc)
        fprintf (stderr, "%s: profile show: %s\n", prog, strerror (errno));
    else
        rc = finish_output ("profile show");
    profile_destroy (p);
    return rc;
}

static int profile_export_cmd (int argc, char **argv)
{
    static const struct option longopts[] = {
        {"what", required_argument, NULL, 'w'},
        {NULL, 0, NULL, 0},
    };
    const char *what = "bytes", *file;
    int c, rc;
    tm_error_t e;

    while ((c = next_option ("profile export", argc, argv, "w:", longopts)) != -1) {
        if (c != 'w')
            return EXIT_USAGE;
        what = optarg;
    }
    if (strcmp (what, "bytes") != 0 && strcmp (what, "msgs") != 0)
        return bad_usage ("profile export", "--what: expected bytes or msgs");
    if (argc - optind != 1)
        return bad_usage ("profile export", "expected one FILE");
    if (!(file = input (argv[optind], &e)))
        return fail ("profile export", &e);
    profile_t *p = profile_read (file, &e);
    if (!p)
        return fail ("profile export", &e);
    rc = profile_export_csv (p, stdout, what, &e) < 0 ? fail ("profile export", &e)
                                                      : finish_output ("profile export");
    profile_destroy (p);
    return rc;
}

/* The user's profile cache: --cache DIR, else from XDG_CACHE_HOME or HOME.
 * Of the user's own, a warning when it is there but srun --topo-map would
 * refuse it (file_open_trusted_dir, as the plugin opens it).
 */
static int cache_dir (const char *cmd, const char *given, char *out, size_t len, tm_error_t *e)
{
    tm_error_t why;
    int fd;

    if (given) {
        if (snprintf (out, len, "%s", given) >= (int)len) {
            errno = ERANGE;
            return errprintf (e, "%s: path too long", given);
        }
        return 0;
    }
    if (profile_cache_user_dir (getenv ("XDG_CACHE_HOME"), getenv ("HOME"), out, len, e) < 0)
        return -1;
    if ((fd = file_open_trusted_dir (out, getuid (), 0, &why)) >= 0)
        close (fd);
    else if (errno != ENOENT)
        fprintf (stderr, "%s: %s: warning: srun --topo-map will not use this cache: %s\n", prog,
                 cmd, why.text);
    return 0;
}

static int profile_import_cmd (int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'}, {"exe", required_argument, NULL, 'e'},
        {"cache", required_argument, NULL, 'C'},  {"site", required_argument, NULL, 'S'},
        {"output", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0},
    };
    profile_format_t fmt = PROFILE_FMT_AUTO;
    const char *exe = NULL, *out = NULL, *cache = NULL, *site = NULL, *file;
    char id[EXEID_MAX + 1], dir[4096], stored[4096];
    int c, rc = EXIT_FAIL;
    profile_t *p;
    tm_error_t e;

    while ((c = next_option ("profile import", argc, argv, "f:e:C:o:", longopts)) != -1) {
        switch (c) {
        case 'f':
            if (profile_format_parse (optarg, &fmt) < 0)
                return bad_usage ("profile import",
                                  "--format: expected auto, json, matrix, csv, mat or "
                                  "ompi-monitoring");
            break;
        case 'e':
            exe = optarg;
            break;
        case 'C':
            cache = optarg;
            break;
        case 'S':
            site = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        default:
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1)
        return bad_usage ("profile import", "expected one FILE");
    if (!!out + !!cache + !!site > 1)
        return bad_usage ("profile import", "--cache, --site and -o exclude each other");
    if (!(file = input (argv[optind], &e)))
        return fail ("profile import", &e);
    if (!(p = profile_import (file, fmt, &e)))
        return fail ("profile import", &e);
    if (exe && (exeid_compute (exe, id, sizeof (id), &e) < 0 ||
                profile_set_string (&p->exe_id, id, &e) < 0 ||
                profile_set_string (&p->exe_path, exe, &e) < 0))
        goto out;
    if (out) {
        if (profile_write (p, out, 0644, &e) < 0)
            goto out;
    } else {
        if (p->exe_id[0] == '\0') {
            errprintf (&e, "%s: no executable identity: say whose profile it is with --exe EXE",
                       file);
            goto out;
        }
        if (site ? profile_cache_publish (site, p, stored, sizeof (stored), &e) < 0
                 : cache_dir ("profile import", cache, dir, sizeof (dir), &e) < 0 ||
                       profile_cache_store (dir, p, stored, sizeof (stored), &e) < 0) {
            if (errno == EPERM) {
                tm_error_t why = e;

                errprintf (&e, "%s (srun --topo-map would not trust it)", why.text);
            }
            goto out;
        }
        if (site && file_trusted (site, 0, 0, &e) < 0)
            fprintf (
                stderr,
                "%s: profile import: warning: only your own srun --topo-map will read it: %s\n",
                prog, e.text);
        printf ("%s\n", stored);
        if (finish_output ("profile import"))
            goto out;
    }
    rc = 0;
out:
    if (rc)
        fail ("profile import", &e);
    profile_destroy (p);
    return rc;
}

/* A line of profile list: RECORDED is when the profile says it was
 * recorded (a file's own time is when it was copied or filed). */
static int list_one (const profile_cache_entry_t *en, void *arg)
{
    char when[32] = "-";

    if (arg) /* --json: 1 stops the listing, out of memory */
        return jsonfile_add (arg, NULL, json_profile_entry (en), false) < 0;
    if (en->profile && jsonfile_format_time (en->profile->timestamp, when, sizeof (when)) < 0)
        snprintf (when, sizeof (when), "-");
    if (en->reason)
        printf ("%-6s %s  %s  invalid: %s\n", "-", when, en->path, en->reason);
    else
        printf ("%-6d %s  %s  %s\n", en->ntasks, when, en->path,
                en->exe_path[0] ? en->exe_path : "(executable unknown)");
    return ferror (stdout) ? 1 : 0; /* said by finish_output */
}

static int profile_list_cmd (int argc, char **argv)
{
    static const struct option longopts[] = {
        {"cache", required_argument, NULL, 'C'},
        {"site", required_argument, NULL, 'S'},
        {"noheader", no_argument, NULL, 'H'},
        {"json", no_argument, NULL, 'J'},
        {NULL, 0, NULL, 0},
    };
    const char *cache = NULL, *site = NULL;
    char dir[4096];
    int c, header = 1, json = 0, rc;
    json_object *all = NULL;
    tm_error_t e;

    while ((c = next_option ("profile list", argc, argv, "C:S:", longopts)) != -1) {
        if (c == 'C')
            cache = optarg;
        else if (c == 'S')
            site = optarg;
        else if (c == 'H')
            header = 0;
        else if (c == 'J')
            json = 1;
        else
            return EXIT_USAGE;
    }
    if (argc != optind)
        return bad_usage ("profile list", "no operands expected");
    if (json && !header)
        return bad_usage ("profile list", "--json has no header to leave out");
    if (json && !(all = json_object_new_array ())) {
        fprintf (stderr, "%s: profile list: out of memory\n", prog);
        return EXIT_FAIL;
    }
    if (cache_dir ("profile list", cache, dir, sizeof (dir), &e) < 0) {
        json_object_put (all);
        return fail ("profile list", &e);
    }
    if (header && !all)
        printf ("TASKS  RECORDED              FILE  EXECUTABLE\n");
    if ((rc = profile_cache_list (dir, list_one, all, &e)) == 0 && site)
        rc = profile_cache_list (site, list_one, all, &e);
    if (rc == -1) {
        json_object_put (all);
        return fail ("profile list", &e);
    }
    if (all && rc) {
        json_object_put (all);
        fprintf (stderr, "%s: profile list: out of memory\n", prog);
        return EXIT_FAIL;
    }
    if (all && json_put (stdout, all) < 0 && errno == ENOMEM) {
        fprintf (stderr, "%s: profile list: out of memory\n", prog);
        return EXIT_FAIL;
    }
    return finish_output ("profile list");
}

static int profile_rm_cmd (int argc, char **argv)
{
    static const struct option longopts[] = {
        {"cache", required_argument, NULL, 'C'},
        {"ntasks", required_argument, NULL, 'n'},
        {NULL, 0, NULL, 0},
    };
    const char *cache = NULL, *what;
    char dir[4096], id[EXEID_MAX + 1];
    int c, ntasks = 0, n;
    char *end;
    tm_error_t e;

    while ((c = next_option ("profile rm", argc, argv, "C:n:", longopts)) != -1) {
        if (c == 'C')
            cache = optarg;
        else if (c == 'n') {
            errno = 0;
            long v = strtol (optarg, &end, 10);
            if (errno || *end || end == optarg || v < 1 || v > PROFILE_MAX_TASKS)
                return bad_usage ("profile rm", "--ntasks: expected a task count");
            ntasks = (int)v;
        } else
            return EXIT_USAGE;
    }
    if (argc - optind != 1)
        return bad_usage ("profile rm", "expected one KEY, EXE_ID or EXE");
    what = argv[optind];
    /* An executable's path stands for its identity. */
    if (strchr (what, '/')) {
        if (exeid_compute (what, id, sizeof (id), &e) < 0)
            return fail ("profile rm", &e);
        what = id;
    }
    if (cache_dir ("profile rm", cache, dir, sizeof (dir), &e) < 0 ||
        (n = profile_cache_rm (dir, what, ntasks, &e)) < 0)
        return fail ("profile rm", &e);
    if (n == 0) {
        fprintf (stderr, "%s: profile rm: no profile of %s in %s\n", prog, what, dir);
        return EXIT_FAIL;
    }
    return 0;
}

static int profile_cmd (int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn) (int argc, char **argv);
    } cmds[] = {
        {"show", profile_show_cmd}, {"export", profile_export_cmd}, {"import", profile_import_cmd},
        {"list", profile_list_cmd}, {"rm", profile_rm_cmd},         {"draw", profile_draw_cmd},
    };

    if (argc < 1)
        return bad_usage ("profile", "missing command (show, export, import, list, rm, draw)");
    for (size_t i = 0; i < sizeof (cmds) / sizeof (cmds[0]); i++)
        if (!strcmp (argv[0], cmds[i].name))
            return cmds[i].fn (argc, argv);
    fprintf (stderr, "%s: profile: unknown command '%s' (see '%s --help')\n", prog, argv[0], prog);
    return EXIT_USAGE;
}

/* --slots NODE:N,...: nodes of nm and their rank counts, in this order.
 * -2 (said) on an argument that is not that, -1 out of memory. */
static int parse_slots (const char *arg, const netmap_t *nm, map_slot_t **slotsp, int *np)
{
    char *copy = strdup (arg), *save = NULL, *tok, quoted[4 * 64 + 8], what[sizeof (quoted) + 64];
    map_slot_t *slots = calloc ((size_t)nm->n, sizeof (*slots));
    int n = 0, rc = -2;

    if (!copy || !slots) {
        fprintf (stderr, "%s: plan: out of memory\n", prog);
        rc = -1;
        goto out;
    }
    what[0] = '\0';
    for (tok = strtok_r (copy, ",", &save); tok && !what[0]; tok = strtok_r (NULL, ",", &save)) {
        char *colon = strrchr (tok, ':'), *end;
        long v = 0;

        errquote (tok, 64, quoted, sizeof (quoted));
        if (colon && colon != tok) {
            errno = 0;
            v = strtol (colon + 1, &end, 10);
            *colon = '\0';
        }
        if (!colon || colon == tok)
            snprintf (what, sizeof (what), "--slots: '%s': expected NODE:COUNT", quoted);
        else if (errno || *end || end == colon + 1 || v < 1 || v > PROFILE_MAX_TASKS)
            snprintf (what, sizeof (what), "--slots: '%s': expected a count of ranks", quoted);
        else if (n == nm->n)
            snprintf (what, sizeof (what), "--slots: more nodes than the netmap has");
        else if ((slots[n].host = netmap_host_index (nm, tok)) < 0)
            snprintf (what, sizeof (what), "--slots: node '%s' is not in the netmap",
                      errquote (tok, 64, quoted, sizeof (quoted)));
        else
            slots[n++].count = (int)v;
    }
    if (!what[0] && n == 0)
        snprintf (what, sizeof (what), "--slots: no nodes");
    if (what[0]) {
        bad_usage ("plan", what);
        goto out;
    }
    *slotsp = slots;
    *np = n;
    slots = NULL;
    rc = 0;
out:
    free (copy);
    free (slots);
    return rc;
}

/* Without --slots: every node of nm in order, the ranks spread as srun's
 * block layout spreads them over equal nodes (the first ones one more).
 */
static map_slot_t *even_slots (const netmap_t *nm, int ntasks, int *np)
{
    int n = nm->n < ntasks ? nm->n : ntasks;
    map_slot_t *slots = calloc ((size_t)n, sizeof (*slots));

    if (!slots)
        return NULL;
    for (int i = 0; i < n; i++) {
        slots[i].host = i;
        slots[i].count = ntasks / n + (i < ntasks % n);
    }
    *np = n;
    return slots;
}

/* Whether a candidate of res is named name. */
static int price_named (const map_result_t *res, const char *name)
{
    for (int k = 0; k < res->ncandidates; k++)
        if (!strcmp (res->cand[k].name, name))
            return 1;
    return 0;
}

/* --price scotch: CloudMap's method, plain Scotch on the netmap (exact
 * capacities off, no refinement), as candidate "scotch".
 */
static int price_scotch (const profile_t *p, const netmap_t *nm, int nslots,
                         const map_slot_t *slots, const map_params_t *base, const map_result_t *res,
                         map_candidate_t *c, tm_error_t *errp)
{
    map_params_t params = *base;
    map_result_t plain = {0};
    tm_error_t e;

    if (price_named (res, "scotch")) {
        errprintf (errp, "--price: a candidate is named 'scotch' already");
        return -2;
    }
    params.exact = 0;
    params.refine = 0;
    if (map_plan (p, nm, nslots, slots, &params, &plain, &e) < 0)
        return errprintf (errp, "--price scotch: %s", e.text);
    *c = plain.cand[0];
    plain.cand[0].node = NULL;
    snprintf (c->name, sizeof (c->name), "scotch");
    map_result_free (&plain);
    return 0;
}

/* Whether --price's argument arg is neither scotch nor NAME=HOSTFILE: says
 * why (bad usage).  A NAME taken is found as the layouts are priced.
 */
static int price_arg_bad (const char *arg)
{
    const char *eq = strchr (arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : 0;
    char quoted[4 * 64 + 8], what[sizeof (quoted) + 128];

    if (strcmp (arg, "scotch") != 0 &&
        (!eq || len == 0 || len >= sizeof (((map_candidate_t *)0)->name) ||
         strspn (arg, "abcdefghijklmnopqrstuvwxyz"
                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                      "0123456789_-") != len)) {
        snprintf (what, sizeof (what),
                  "--price '%s': expected scotch or NAME=HOSTFILE, NAME of 1 to %zu letters, "
                  "digits, _ or -",
                  errquote (arg, 64, quoted, sizeof (quoted)),
                  sizeof (((map_candidate_t *)0)->name) - 1);
        bad_usage ("plan", what);
        return 1;
    }
    return 0;
}

/* --price NAME=HOSTFILE: the layout srun -m arbitrary would run from
 * HOSTFILE, as candidate NAME.
 */
static int price_hostfile (const char *arg, const profile_t *p, const netmap_t *nm,
                           const map_result_t *res, map_metric_t metric, map_candidate_t *c,
                           tm_error_t *errp)
{
    const char *eq = strchr (arg, '='), *hostfile;
    size_t len = (size_t)(eq - arg); /* price_arg_bad checked the form */

    memcpy (c->name, arg, len);
    c->name[len] = '\0';
    if (price_named (res, c->name)) {
        errprintf (errp, "--price: a candidate is named '%s' already", c->name);
        return -2;
    }
    if (!(c->node = malloc ((size_t)p->ntasks * sizeof (*c->node))))
        return errnomem (errp);
    if (!(hostfile = input (eq + 1, errp)) ||
        plan_read_hostfile (hostfile, p->ntasks, nm->n, nm->hosts, c->node, errp) < 0 ||
        map_price (p, nm, metric, c) < 0) {
        if (errno == ENOMEM)
            errnomem (errp);
        free (c->node);
        c->node = NULL;
        return -1;
    }
    return 0;
}

#define PLAN_FORMATS_WANTED "--format: expected hostfile, rankfile, cray or machinefile"

/* --price: how many layouts topomap plan prices beside its own. */
#define PLAN_PRICES     8
#define PLAN_PRICES_STR "8"

/* For --explain of a profile with a check: each candidate priced on
 * each recording whole, as the plugin weighs a plan made from the
 * traffic they share (place.h).
 */
static int explain_recordings (const profile_t *p, const netmap_t *nm, const map_result_t *res)
{
    if (!p->recheck)
        return 0;
    printf ("on the profile's recording (job %s)\n", p->jobid[0] ? p->jobid : "unknown");
    if (map_explain_on (stdout, res, p, nm) < 0)
        goto fail;
    printf ("on the profile's check (job %s, %.1f%% of the traffic recurring)\n",
            p->recheck->jobid[0] ? p->recheck->jobid : "unknown",
            100 * profile_recurring (p, p->recheck));
    if (map_explain_on (stdout, res, p->recheck, nm) < 0)
        goto fail;
    return 0;
fail:
    fprintf (stderr, "%s: plan: %s\n", prog, strerror (errno));
    return -1;
}

/* --explain, where the netmap knows the nodes' insides: the binding the
 * plugin would give the plan (one CPU a task). */
static void explain_inside (const profile_t *p, const netmap_t *nm, const int *node,
                            const map_params_t *params)
{
    char bind[8192];
    map_inside_t b;
    tm_error_t e;
    int rc = map_inside_netmap (p, nm, node, 1, params, &b, &e);

    if (rc == -2)
        return;
    if (rc < 0)
        printf ("inside the nodes: no binding: %s\n", e.text);
    else if (map_inside_cpu_bind (&b, bind, sizeof (bind)) < 0)
        printf ("inside the nodes: a binding of %d local tasks, too long to show\n", b.nlocal);
    else
        printf ("inside the nodes: --cpu-bind=%s: the pairs inside them %.3f ms against block "
                "binding's %.3f ms\n",
                bind, b.cost_s * 1e3, b.block_s * 1e3);
    map_inside_free (&b);
}

/* The plugin's default min_gain, for --explain's verdicts. */
#define PLAN_MIN_GAIN 0.05

/* --explain: each rank's NIC by rail on the chosen layout, as the plugin
 * would choose it (railmap.h), m filled when it would (0), else why says
 * why not (1; -1 out of memory). */
static int plan_nics (const profile_t *p, const netmap_t *nm, const int *node, railmap_t *m,
                      char *why, size_t len)
{
    tm_error_t e;
    int rc;

    if ((rc = railmap_choose (p, node, nm->n, nm->slots, (const char *const *)nm->hosts, m, why,
                              len, &e)) != 0)
        return rc < 0 ? (fprintf (stderr, "%s: plan: %s\n", prog, e.text), -1) : 1;
    if (m->default_bytes == 0 ||
        1.0 - (double)m->cross_bytes / (double)m->default_bytes < PLAN_MIN_GAIN) {
        snprintf (why, len,
                  "%.1f%% of the bytes between nodes cross rails in Slurm's order, %.1f%% by "
                  "rail: below min_gain",
                  100.0 * (double)m->default_bytes / (double)m->node_bytes,
                  100.0 * (double)m->cross_bytes / (double)m->node_bytes);
        railmap_free (m);
        return 1;
    }
    return 0;
}

/* --explain's NICs as text: the shares, then rank, node, GPU and NIC
 * (the first PLAN_NICS_SHOWN ranks). */
#define PLAN_NICS_SHOWN 64
static int explain_nics (const profile_t *p, const netmap_t *nm, const int *node)
{
    char why[256];
    railmap_t m;
    int rc = plan_nics (p, nm, node, &m, why, sizeof (why));

    if (rc != 0) {
        if (rc > 0)
            printf ("NICs: the MPI's own: %s\n", why);
        return rc < 0 ? -1 : 0;
    }
    printf ("NICs by rail (%d rails): %.1f%% of the bytes between nodes cross rails in Slurm's "
            "order, %.1f%% by rail\nrank node GPU NIC:",
            m.nrails, 100.0 * (double)m.default_bytes / (double)m.node_bytes,
            100.0 * (double)m.cross_bytes / (double)m.node_bytes);
    for (int r = 0; r < m.nranks && r < PLAN_NICS_SHOWN; r++) {
        const railmap_nic_t *c = &m.nics[m.nic[r]];

        printf ("%s %d %s %s %s", r ? "," : "", r, nm->hosts[node[r]],
                railmap_gpu (nm->slots[node[r]], m.slot[r]), c->name[0] ? c->name : c->netdev);
    }
    printf ("%s\n", m.nranks > PLAN_NICS_SHOWN ? ", ..." : "");
    railmap_free (&m);
    return 0;
}

/* topomap plan's arguments. */
typedef struct {
    const char *pfile, *nfile, *slotarg, *out, *svg, *prices[PLAN_PRICES];
    plan_format_t fmts[4];
    int nfmts, nprices, explain, json, verbose;
    map_params_t params;
} plan_args_t;

/* --format F[,F...] into a->fmts: 0, or a usage error's exit status. */
static int plan_formats (const char *arg, plan_args_t *a)
{
    char copy[64], *save = NULL;

    if (snprintf (copy, sizeof (copy), "%s", arg) >= (int)sizeof (copy))
        return bad_usage ("plan", PLAN_FORMATS_WANTED);
    for (char *t = strtok_r (copy, ",", &save); t; t = strtok_r (NULL, ",", &save)) {
        if (a->nfmts == 4 || plan_format_parse (t, &a->fmts[a->nfmts]) < 0)
            return bad_usage ("plan", PLAN_FORMATS_WANTED);
        for (int i = 0; i < a->nfmts; i++)
            if (a->fmts[i] == a->fmts[a->nfmts])
                return bad_usage ("plan", "--format: a format named twice");
        a->nfmts++;
    }
    if (a->nfmts == 0)
        return bad_usage ("plan", PLAN_FORMATS_WANTED);
    if (a->nfmts > 1 && !a->out)
        return bad_usage ("plan", "several formats need -o PREFIX");
    return 0;
}

/* topomap plan's options into a: 0, or a usage error's exit status. */
static int plan_args (int argc, char **argv, plan_args_t *a)
{
    static const struct option longopts[] = {
        {"profile", required_argument, NULL, 'p'}, {"netmap", required_argument, NULL, 'N'},
        {"slots", required_argument, NULL, 's'},   {"metric", required_argument, NULL, 'm'},
        {"format", required_argument, NULL, 'f'},  {"output", required_argument, NULL, 'o'},
        {"explain", no_argument, NULL, 'x'},       {"json", no_argument, NULL, 'J'},
        {"svg", required_argument, NULL, 'S'},     {"price", required_argument, NULL, 'P'},
        {"verbose", no_argument, NULL, 'v'},       {NULL, 0, NULL, 0},
    };
    const char *fmtarg = "hostfile";
    int c;

    memset (a, 0, sizeof (*a));
    map_params_default (&a->params);
    while ((c = next_option ("plan", argc, argv, "p:N:s:m:f:o:xv", longopts)) != -1) {
        switch (c) {
        case 'p':
            a->pfile = optarg;
            break;
        case 'N':
            a->nfile = optarg;
            break;
        case 's':
            a->slotarg = optarg;
            break;
        case 'm':
            if (map_metric_parse (optarg, &a->params.metric) < 0)
                return bad_usage ("plan", "--metric: expected combined, latency or bandwidth");
            break;
        case 'f':
            fmtarg = optarg;
            break;
        case 'o':
            a->out = optarg;
            break;
        case 'x':
            a->explain = 1;
            break;
        case 'J':
            a->json = 1;
            break;
        case 'S':
            a->svg = optarg;
            break;
        case 'P':
            if (a->nprices == PLAN_PRICES)
                return bad_usage ("plan", "--price: at most " PLAN_PRICES_STR " layouts");
            if (price_arg_bad (optarg))
                return EXIT_USAGE;
            a->prices[a->nprices++] = optarg;
            break;
        case 'v':
            a->verbose = 1;
            break;
        default:
            return EXIT_USAGE;
        }
    }
    if (argc != optind)
        return bad_usage ("plan", "no operands expected");
    if (!a->pfile || !a->nfile)
        return bad_usage ("plan", "expected --profile P and --netmap N");
    if (a->nprices && !a->explain)
        return bad_usage ("plan", "--price needs --explain");
    if (a->json && !a->explain)
        return bad_usage ("plan", "--json needs --explain");
    return plan_formats (fmtarg, a);
}

/* --price: the layouts a->prices priced beside res's candidates, and in
 * overfull how many nodes each gives more ranks than their slots.  -2
 * (said) when a layout's name is taken, -1 on other faults.
 */
static int plan_prices (const plan_args_t *a, const profile_t *from, const netmap_t *nm, int nslots,
                        const map_slot_t *slots, map_result_t *res, int *overfull)
{
    map_candidate_t *more =
        realloc (res->cand, (size_t)(res->ncandidates + a->nprices) * sizeof (*more));
    tm_error_t e;

    if (!more) {
        fprintf (stderr, "%s: plan: out of memory\n", prog);
        return -1;
    }
    res->cand = more;
    for (int i = 0; i < a->nprices; i++) {
        map_candidate_t *pc = &res->cand[res->ncandidates];
        int bad;

        memset (pc, 0, sizeof (*pc));
        if (strcmp (a->prices[i], "scotch") != 0)
            bad = price_hostfile (a->prices[i], from, nm, res, a->params.metric, pc, &e);
        else
            bad = price_scotch (from, nm, nslots, slots, &a->params, res, pc, &e);
        if (bad == -2) {
            bad_usage ("plan", e.text);
            return -2;
        }
        if (bad) {
            fail ("plan", &e);
            return -1;
        }
        res->ncandidates++;
        if ((overfull[i] = map_overfull (nm, nslots, slots, from->ntasks, pc->node)) < 0) {
            fprintf (stderr, "%s: plan: out of memory\n", prog);
            return -1;
        }
    }
    return 0;
}

/* The chosen plan in each format: to standard output, or -o OUT (a prefix
 * with several formats). */
static int plan_output (const plan_args_t *a, const map_result_t *res, const netmap_t *nm)
{
    const int *node = res->cand[res->chosen].node;
    tm_error_t e;

    for (int i = 0; i < a->nfmts; i++) {
        char path[4096];

        if (!a->out) {
            if (a->explain) {
                fprintf (stderr,
                         "%s: plan: the plan itself is written with -o OUT beside "
                         "--explain; not written\n",
                         prog);
                return 0;
            }
            if (plan_print (stdout, a->fmts[i], res->ntasks, node, nm->n, nm->hosts, &e) < 0)
                return fail ("plan", &e);
            if (finish_output ("plan"))
                return EXIT_FAIL;
            continue;
        }
        if (snprintf (path, sizeof (path), "%s%s%s", a->out, a->nfmts > 1 ? "." : "",
                      a->nfmts > 1 ? plan_format_name (a->fmts[i]) : "") >= (int)sizeof (path)) {
            fprintf (stderr, "%s: plan: -o %s: path too long\n", prog, a->out);
            return EXIT_FAIL;
        }
        if (plan_write (path, 0644, a->fmts[i], res->ntasks, node, nm->n, nm->hosts, &e) < 0)
            return fail ("plan", &e);
    }
    return 0;
}

/* --explain's odds: the topomap plan against block priced again on the
 * netmaps drawn from the spread of pairs alike (map_odds), as the plugin
 * prices a plan against srun's layout, with the plugin's default
 * min_gain.  1 when priced, 0 when there is no plan or block to price.
 */
static int plan_odds (const profile_t *p, const profile_t *from, netmap_t *nm,
                      const netmap_spread_t *s, const map_result_t *res, map_metric_t metric,
                      map_odds_t *o)
{
    const profile_t *runs[2] = {p->recheck ? p : from, p->recheck};
    const map_candidate_t *plan = NULL, *block = NULL;
    tm_error_t e;

    memset (o, 0, sizeof (*o));
    for (int i = 0; i < res->ncandidates; i++) {
        if (!strcmp (res->cand[i].name, "topomap"))
            plan = &res->cand[i];
        if (!strcmp (res->cand[i].name, "block"))
            block = &res->cand[i];
    }
    if (!plan || !block)
        return 0;
    if (map_odds (runs, p->recheck ? 2 : 1, nm, s, metric, plan->node, block->node, PLAN_MIN_GAIN,
                  o, &e) < 0) {
        fail ("plan", &e);
        return -1;
    }
    return 1;
}

static void explain_odds (const map_odds_t *o)
{
    if (!o->draws)
        printf ("the netmap's figures were not measured pair by pair: no spread to draw from\n");
    else
        printf ("across %d netmaps drawn from the spread of pairs alike: topomap against block "
                "gains %.1f%% to %.1f%%, %.1f%% to %.1f%% at the busiest link; %.0f%% or more "
                "in total and at the busiest link in %d of them (%s)\n",
                o->draws, 100 * o->gain_lo, 100 * o->gain_hi, 100 * o->link_lo, 100 * o->link_hi,
                100 * PLAN_MIN_GAIN, o->wins,
                o->wins >= MAP_ODDS_LEVEL * o->draws ? "significant" : "not significant");
}

/* --explain --json: what the text below says, as one document. */
static int plan_explain_json (const plan_args_t *a, const profile_t *p, const profile_t *from,
                              netmap_t *nm, const map_result_t *res, const int *overfull,
                              const map_odds_t *odds)
{
    json_explain_t x = {.res = res,
                        .nm = nm,
                        .p = p,
                        .overfull = overfull,
                        .nprices = a->nprices,
                        .odds = odds,
                        .min_gain = PLAN_MIN_GAIN};
    map_candidate_t *on = NULL;
    map_inside_t b;
    railmap_t m;
    char bind[8192], why[256];
    tm_error_t e;
    int rc = EXIT_FAIL, inside, nics = 1;

    x.recurring = from != p ? profile_recurring (p, p->recheck) : NAN;
    if (p->recheck) {
        if (!(on = calloc (2 * (size_t)res->ncandidates, sizeof (*on))))
            goto nomem;
        for (int k = 0; k < 2 * res->ncandidates; k++) {
            on[k].node = res->cand[k % res->ncandidates].node;
            if (map_price (k < res->ncandidates ? p : p->recheck, nm, res->metric, &on[k]) < 0)
                goto nomem;
        }
        x.on[0] = on;
        x.on[1] = on + res->ncandidates;
    }
    inside = map_inside_netmap (from, nm, res->cand[res->chosen].node, 1, &a->params, &b, &e);
    if (inside == 0) {
        x.inside = &b;
        x.cpu_bind = map_inside_cpu_bind (&b, bind, sizeof (bind)) == 0 ? bind : NULL;
    }
    if ((nics = plan_nics (from, nm, res->cand[res->chosen].node, &m, why, sizeof (why))) < 0)
        goto out;
    x.nics = nics == 0 ? &m : NULL;
    x.nics_why = why;
    if (json_put (stdout, json_plan_explain (&x)) < 0)
        fprintf (stderr, "%s: plan: %s\n", prog, strerror (errno));
    else
        rc = finish_output ("plan");
out:
    if (nics == 0)
        railmap_free (&m);
    if (inside == 0)
        map_inside_free (&b);
    free (on);
    return rc;
nomem:
    fprintf (stderr, "%s: plan: out of memory\n", prog);
    free (on);
    return EXIT_FAIL;
}

/* --explain: every candidate, the recordings, the binding, what cannot run. */
static int plan_explain (const plan_args_t *a, const profile_t *p, const profile_t *from,
                         netmap_t *nm, const netmap_spread_t *spread, const map_result_t *res,
                         int nslots, const int *overfull)
{
    map_odds_t odds;
    int priced = plan_odds (p, from, nm, spread, res, a->params.metric, &odds);

    if (priced < 0)
        return EXIT_FAIL;
    if (a->json)
        return plan_explain_json (a, p, from, nm, res, overfull, priced ? &odds : NULL);
    if (from != p)
        printf ("planned from the traffic both recordings of the profile share: %.1f%% of its "
                "recording's bytes\n",
                100 * profile_recurring (p, p->recheck));
    if (map_explain (stdout, res, nm) < 0 || explain_recordings (p, nm, res) < 0)
        return EXIT_FAIL;
    explain_inside (from, nm, res->cand[res->chosen].node, &a->params);
    if (explain_nics (from, nm, res->cand[res->chosen].node) < 0)
        return EXIT_FAIL;
    for (int i = 0; i < a->nprices; i++)
        if (overfull[i] > 0)
            printf ("%s puts more ranks than their slots on %d of %d nodes: it cannot run\n",
                    res->cand[res->ncandidates - a->nprices + i].name, overfull[i], nslots);
    if (priced)
        explain_odds (&odds);
    return finish_output ("plan");
}

static int plan_cmd (int argc, char **argv)
{
    int nslots = 0, rc, bad = 0, overfull[PLAN_PRICES];
    const char *pfile, *nfile;
    plan_args_t a;
    map_slot_t *slots = NULL;
    map_result_t res = {0};
    profile_t *p = NULL, *common = NULL;
    const profile_t *from;
    netmap_t *nm = NULL;
    netmap_spread_t *spread = NULL;
    tm_error_t e;

    if ((rc = plan_args (argc, argv, &a)) != 0)
        return rc;
    rc = EXIT_FAIL;
    if (!(pfile = input (a.pfile, &e)) || !(nfile = input (a.nfile, &e)) ||
        !(p = profile_read (pfile, &e)) || !(nm = netmap_read (nfile, &e)) ||
        !(spread = netmap_spread_new (nm, &e)) || netmap_plan_figures (nm, &e) < 0) {
        fail ("plan", &e);
        goto out;
    }
    if (a.slotarg ? (bad = parse_slots (a.slotarg, nm, &slots, &nslots)) < 0
                  : !(slots = even_slots (nm, p->ntasks, &nslots))) {
        rc = a.slotarg && bad == -2 ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    /* Of a profile with a check, the plan is made from the traffic both
     * recordings share, as the plugin makes it. */
    from = p;
    if (p->recheck) {
        if (!(common = profile_common (p, p->recheck, &e))) {
            const char *hint = errno == ENODATA ? ": nothing to plan from" : "";

            fprintf (stderr, "%s: plan: %s: %s%s\n", prog, shown (pfile), e.text, hint);
            goto out;
        }
        from = common;
    }
    if (map_plan (from, nm, nslots, slots, &a.params, &res, &e) < 0) {
        fail ("plan", &e);
        goto out;
    }
    if (a.nprices && (bad = plan_prices (&a, from, nm, nslots, slots, &res, overfull)) < 0) {
        rc = bad == -2 ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    if (a.verbose)
        fprintf (stderr,
                 "topomap plan: %d ranks on %d nodes planned in %.3f s: Scotch %.3f s, "
                 "capacity repair %.3f s, refinement %.3f s\n",
                 res.ntasks, nslots, res.time_s, res.scotch_s, res.repair_s, res.refine_s);
    if (a.explain && plan_explain (&a, p, from, nm, spread, &res, nslots, overfull))
        goto out;
    if (a.svg && draw_placement (from, nm, &res, a.svg, &e) < 0) {
        fail ("plan", &e);
        goto out;
    }
    rc = plan_output (&a, &res, nm);
out:
    map_result_free (&res);
    free (slots);
    profile_destroy (common);
    profile_destroy (p);
    netmap_spread_free (spread);
    netmap_destroy (nm);
    return rc;
}

static int recorder_cmd (int argc, char **argv)
{
    static const struct option longopts[] = {
        {"libdir", required_argument, NULL, 'L'},
        {NULL, 0, NULL, 0},
    };
    const char *dir = TOPOMAP_PKGLIBDIR;
    char path[4096];
    int c;
    tm_error_t e;

    while ((c = next_option ("recorder", argc, argv, "L:", longopts)) != -1) {
        if (c != 'L')
            return EXIT_USAGE;
        dir = optarg;
    }
    if (argc - optind != 1)
        return bad_usage ("recorder", "expected one EXE");
    if (recorder_lookup (argv[optind], dir, path, sizeof (path), &e) < 0)
        return fail ("recorder", &e);
    printf ("%s\n", path);
    return finish_output ("recorder");
}

int main (int argc, char **argv)
{
    compat_quiet_libslurm ();
    if (argc < 2) {
        usage (stderr);
        return EXIT_USAGE;
    }
    if (!strcmp (argv[1], "-h") || !strcmp (argv[1], "--help")) {
        usage (stdout);
        return finish_output ("--help");
    }
    /* -h or --help after a command, before any "--": that command's help
     * (the whole usage after a command it does not know). */
    for (int i = 2; i < argc && strcmp (argv[i], "--"); i++)
        if (!strcmp (argv[i], "--help") || !strcmp (argv[i], "-h")) {
            help (argc - 1, argv + 1);
            return finish_output ("--help");
        }
    if (!strcmp (argv[1], "-V") || !strcmp (argv[1], "--version")) {
        printf ("%s %s, built for %s\n", prog, PACKAGE_VERSION, TOPOMAP_BUILT_FOR);
        return finish_output ("--version");
    }
    if (!strcmp (argv[1], "netmap"))
        return netmap_cmd (argc - 2, argv + 2);
    if (!strcmp (argv[1], "profile"))
        return profile_cmd (argc - 2, argv + 2);
    if (!strcmp (argv[1], "plan"))
        return plan_cmd (argc - 1, argv + 1);
    if (!strcmp (argv[1], "recorder"))
        return recorder_cmd (argc - 1, argv + 1);
    fprintf (stderr, "%s: unknown command '%s' (see '%s --help')\n", prog, argv[1], prog);
    return EXIT_USAGE;
}
