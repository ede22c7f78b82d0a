/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topomap-probe: measure latency and bandwidth between every pair of nodes
 * of an allocation, and write a netmap.  See topomap-probe(1).
 *
 * Run with one rank per node (two on a node add its intra-node figures):
 *
 *   srun --overlap -N8 -n8 --ntasks-per-node=1 topomap-probe -o net.json
 *
 * The node leaders (lowest rank on each node) meet in rounds of disjoint
 * pairs (lib/schedule.c), so each node takes part in one measurement at a
 * time.  In each pair the lower leader pings: small messages until the 95%
 * confidence interval is narrow enough (lib/stats.c), then for bandwidth a
 * lead message and, unless that alone took long enough to measure (a slow
 * path), a short stream of large messages.  Rank 0 gathers the figures;
 * the pairs whose figures a switch tree cannot explain (lib/pairs.h: most
 * likely slowed by something else on the machine) are measured again and
 * keep their better figures.  Rank 0 infers the topology (lib/topology.c)
 * and writes the netmap (lib/netmap.c).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "lib/doorbell.h"
#include "lib/inside_hwloc.h"
#include "lib/jsonfile.h"
#include "lib/netmap.h"
#include "lib/pairs.h"
#include "lib/sample.h"
#include "lib/schedule.h"
#include "lib/slots_hwloc.h"
#include "lib/stats.h"
#include "lib/topoconf.h"
#include "lib/topology.h"
#include "lib/topology_links.h"

enum {
    EXIT_FAIL = 1,
    EXIT_USAGE = 2,
    EXIT_TIMEOUT = 3,
};

#define NAME_LEN   MPI_MAX_PROCESSOR_NAME
#define BOOT_LEN   40 /* a boot id: 36 characters and a NUL */
#define TAG_PING   11
#define TAG_STREAM 12
#define TAG_ACK    13
#define TAG_TOKEN  14
#define TAG_MORE   15
#define TAG_BIND   16
#define TAG_UPLINK 17
#define TAG_DONE   18
#define WARMUP     2

static const char *prog = "topomap-probe";
static int rank, size;
/* --doubt: a pair costing this many times its minimax path is measured
 * again (lib/pairs.h); 0 never */
static double doubt_ratio = 2;
/* --plan: every pair, the sampling plan (lib/sample.h), or the sampling
 * plan from PLAN_AUTO_HOSTS hosts on */
static enum { PLAN_AUTO, PLAN_ALL, PLAN_SAMPLED } plan = PLAN_AUTO;
static const char *const plan_names[] = {"auto", "all", "sampled", NULL};
#define PLAN_AUTO_HOSTS 64
/* --topology: the site's topology.conf, whose links are measured by two
 * pairs each and its levels by this many pairs at least (lib/topoconf.h)
 * instead of any plan */
static const char *topology;
#define TOPOLOGY_PAIRS 3
/* --inside: read each node with hwloc and measure its levels */
static int inside;
/* --slots (or --inside): read each node's GPU slots with hwloc */
static int slots_read;
/* --no-doorbell: wait between measurements in timed naps alone */
static int no_doorbell;
/* --uplink-s: each stream of the uplink measurement (lib/topology_links.h)
 * runs this long at its pair's own rate, at most UPLINK_MAX_BYTES; 0: no
 * uplink measured.  A round is started only with UPLINK_ROUND_S seconds
 * and ten streams' time of the budget left. */
static double uplink_s = 0.1;
#define UPLINK_MAX_BYTES (32.0 * 1024 * 1024)
#define UPLINK_ROUND_S   1.0
#define UPLINK_NAP_NS    (100 * 1000)

static void usage (FILE *f)
{
    netmap_params_t d;
    netmap_params_default (&d);
    fprintf (f,
             "Usage: %s [OPTIONS] -o FILE\n"
             "Measure latency and bandwidth between the nodes of a Slurm allocation\n"
             "(one MPI rank per node) and write a netmap to FILE.\n"
             "\n"
             "  -o, --output FILE      netmap to write (required)\n"
             "  -s, --lat-size BYTES   ping-pong message size (default %zu)\n"
             "  -b, --bw-size BYTES    bandwidth message size (default %zu)\n"
             "  -m, --bw-messages N    messages per bandwidth stream (default %d)\n"
             "  -e, --bw-enough MS     send a lead message of a quarter of --bw-size\n"
             "                         first; when it alone takes MS milliseconds,\n"
             "                         skip the stream; 0 for no lead (default %g)\n"
             "      --min-samples N    latency samples before testing the CI (default %d)\n"
             "      --max-samples N    cap on latency samples (default %d)\n"
             "  -c, --ci REL           stop when the 95%% CI half-width is under REL\n"
             "                         times the mean (default %g)\n"
             "  -j, --concurrency N    measure at most N pairs at once; 0 for a whole\n"
             "                         round (default %d)\n"
             "  -t, --budget SECONDS   give up after this long (default %g)\n"
             "      --doubt RATIO      measure a pair again when it costs RATIO times\n"
             "                         the path through other hosts; 0 never (default %g)\n"
             "      --plan PLAN        all: every pair; sampled: about n log n pairs, the\n"
             "                         others inferred from the switch tree they show;\n"
             "                         auto: sampled from %d hosts on (default auto)\n"
             "      --topology FILE    the switch tree of FILE, Slurm's topology.conf:\n"
             "                         measure each of its links and %d pairs a level\n"
             "                         at least, give every other pair its level's\n"
             "                         figures or a slow link's (no --plan, no --doubt)\n"
             "      --inside           read each node's CPUs, L3 domains and packages\n"
             "                         (hwloc), and, with two ranks on a node, measure\n"
             "                         between two CPUs of each level; and --slots\n"
             "      --slots            read each node's GPUs and the NICs nearest them\n"
             "                         (hwloc), the node's GPU slots\n"
             "      --no-doorbell      wait for a turn in timed naps only, without the\n"
             "                         doorbells that wake a rank when its turn comes\n"
             "      --uplink-s SECONDS measure each uplink of the tree with every node\n"
             "                         below sending out at once, each for SECONDS at\n"
             "                         its pair's rate; 0 not (default %g)\n"
             "  -v, --verbose          print a summary on standard output\n"
             "  -h, --help             print this help\n"
             "  -V, --version          print the version\n"
             "\n"
             "Exit status: 0 written, 1 failed, 2 bad usage, 3 time budget exceeded.\n",
             prog, d.lat_bytes, d.bw_bytes, d.bw_messages, d.bw_enough_ms, d.min_samples,
             d.max_samples, d.ci_rel, d.concurrency, d.budget_s, doubt_ratio, PLAN_AUTO_HOSTS,
             TOPOLOGY_PAIRS, uplink_s);
}

/* The options usage () describes. */
static const struct option probe_opts[] = {
    {"output", required_argument, 0, 'o'},
    {"lat-size", required_argument, 0, 's'},
    {"bw-size", required_argument, 0, 'b'},
    {"bw-messages", required_argument, 0, 'm'},
    {"min-samples", required_argument, 0, 1},
    {"max-samples", required_argument, 0, 2},
    {"ci", required_argument, 0, 'c'},
    {"budget", required_argument, 0, 't'},
    {"concurrency", required_argument, 0, 'j'},
    {"bw-enough", required_argument, 0, 'e'},
    {"doubt", required_argument, 0, 3},
    {"plan", required_argument, 0, 4},
    {"topology", required_argument, 0, 5},
    {"inside", no_argument, 0, 6},
    {"no-doorbell", no_argument, 0, 7},
    {"uplink-s", required_argument, 0, 8},
    {"slots", no_argument, 0, 9},
    {"verbose", no_argument, 0, 'v'},
    {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, 'V'},
    {0, 0, 0, 0},
};

/* Report a usage or setup error once (from rank 0) and leave. */
static void __attribute__ ((noreturn)) leave (int code, const char *fmt, ...)
{
    if (rank == 0 && fmt) {
        va_list ap;
        fprintf (stderr, "%s: ", prog);
        va_start (ap, fmt);
        vfprintf (stderr, fmt, ap);
        va_end (ap);
        fputc ('\n', stderr);
    }
    MPI_Finalize ();
    exit (code);
}

/* An allocation failed: say so and leave. */
static void __attribute__ ((noreturn)) leave_nomem (void)
{
    leave (EXIT_FAIL, "out of memory");
}

static int parse_long (const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol (s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_double (const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod (s, &end);
    if (errno || end == s || *end || !isfinite (v) || v <= lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static const char *parse_args (int argc, char **argv, netmap_params_t *p, int *verbose)
{
    const char *out = NULL;
    long v;
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv, ":o:s:b:m:e:c:t:j:vhV", probe_opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 's':
            if (parse_long (optarg, 8, 16L << 20, &v) < 0)
                leave (EXIT_USAGE, "--lat-size: '%s' is not a size from 8 to 16777216", optarg);
            p->lat_bytes = (size_t)v;
            break;
        case 'b':
            if (parse_long (optarg, 1, 1L << 30, &v) < 0)
                leave (EXIT_USAGE, "--bw-size: '%s' is not a size from 1 to 1073741824", optarg);
            p->bw_bytes = (size_t)v;
            break;
        case 'm':
            if (parse_long (optarg, 1, 1024, &v) < 0)
                leave (EXIT_USAGE, "--bw-messages: '%s' is not a number from 1 to 1024", optarg);
            p->bw_messages = (int)v;
            break;
        case 'e':
            if (parse_double (optarg, -1, 60000, &p->bw_enough_ms) < 0 || p->bw_enough_ms < 0)
                leave (EXIT_USAGE,
                       "--bw-enough: '%s' is not a number of milliseconds in [0, 60000]", optarg);
            break;
        case 1:
            if (parse_long (optarg, 2, 100000, &v) < 0)
                leave (EXIT_USAGE, "--min-samples: '%s' is not a number from 2 to 100000", optarg);
            p->min_samples = (int)v;
            break;
        case 2:
            if (parse_long (optarg, 2, 100000, &v) < 0)
                leave (EXIT_USAGE, "--max-samples: '%s' is not a number from 2 to 100000", optarg);
            p->max_samples = (int)v;
            break;
        case 3:
            if (parse_double (optarg, -1, 1000, &doubt_ratio) < 0 ||
                (doubt_ratio != 0 && doubt_ratio < 1))
                leave (EXIT_USAGE, "--doubt: '%s' is not 0 or a ratio in [1, 1000]", optarg);
            break;
        case 4: {
            int k = 0;
            while (plan_names[k] && strcmp (plan_names[k], optarg) != 0)
                k++;
            if (!plan_names[k])
                leave (EXIT_USAGE, "--plan: '%s' is not auto, all or sampled", optarg);
            plan = k == 0 ? PLAN_AUTO : k == 1 ? PLAN_ALL : PLAN_SAMPLED;
            break;
        }
        case 5:
            if (!*optarg)
                leave (EXIT_USAGE, "--topology: no file named");
            topology = optarg;
            break;
        case 6:
            inside = slots_read = 1;
            break;
        case 9:
            slots_read = 1;
            break;
        case 7:
            no_doorbell = 1;
            break;
        case 8:
            if (parse_double (optarg, -1, 10, &uplink_s) < 0 || uplink_s < 0)
                leave (EXIT_USAGE, "--uplink-s: '%s' is not a number of seconds from 0 to 10",
                       optarg);
            break;
        case 'c':
            if (parse_double (optarg, 0, 1, &p->ci_rel) < 0)
                leave (EXIT_USAGE, "--ci: '%s' is not a fraction in (0, 1]", optarg);
            break;
        case 't':
            if (parse_double (optarg, 0, 3600, &p->budget_s) < 0)
                leave (EXIT_USAGE, "--budget: '%s' is not a number of seconds in (0, 3600]",
                       optarg);
            break;
        case 'j':
            if (parse_long (optarg, 0, INT_MAX, &v) < 0)
                leave (EXIT_USAGE, "--concurrency: '%s' is not a number of pairs", optarg);
            p->concurrency = (int)v;
            break;
        case 'v':
            *verbose = 1;
            break;
        case 'h':
            if (rank == 0)
                usage (stdout);
            leave (0, NULL);
        case 'V':
            if (rank == 0)
                printf ("%s %s\n", prog, PACKAGE_VERSION);
            leave (0, NULL);
        case ':':
            leave (EXIT_USAGE, "%s needs a value (see --help)", argv[optind - 1]);
        default:
            leave (EXIT_USAGE, "unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        leave (EXIT_USAGE, "unexpected argument '%s' (see --help)", argv[optind]);
    if (!out)
        leave (EXIT_USAGE, "no output file: give -o FILE (see --help)");
    if (p->min_samples > p->max_samples)
        leave (EXIT_USAGE, "--min-samples %d exceeds --max-samples %d", p->min_samples,
               p->max_samples);
    return out;
}

/* The budget is enforced by an alarm on every rank: whatever a dead or
 * stuck peer does to MPI, the probe ends.  Only async-signal-safe calls.
 */
static void on_alarm (int sig)
{
    static const char msg[] = "topomap-probe: time budget exceeded; no netmap written\n";
    (void)sig;
    if (rank == 0)
        (void)!write (STDERR_FILENO, msg, sizeof (msg) - 1);
    _exit (EXIT_TIMEOUT);
}

/* The kernel's boot id into id (BOOT_LEN bytes), "" when it cannot be
 * read: two hosts with one boot id are one machine.
 */
static void read_boot_id (char *id)
{
    FILE *f = fopen ("/proc/sys/kernel/random/boot_id", "r");

    id[0] = '\0';
    if (!f)
        return;
    if (!fgets (id, BOOT_LEN, f))
        id[0] = '\0';
    id[strcspn (id, "\n")] = '\0';
    fclose (f);
}

/* Can rank 0 create files next to path?  Checked before measuring, so an
 * unwritable output costs no measurement.
 */
static int output_writable (const char *path, char *why, size_t len)
{
    char *tmp = malloc (strlen (path) + 16);
    if (!tmp)
        return snprintf (why, len, "out of memory"), -1;
    sprintf (tmp, "%s.XXXXXX", path);
    int fd = mkstemp (tmp);
    if (fd < 0) {
        snprintf (why, len, "%s: cannot write: %s", path, strerror (errno));
        free (tmp);
        return -1;
    }
    close (fd);
    unlink (tmp);
    free (tmp);
    return 0;
}

typedef struct {
    double lat_us, ci_us, bw_MBps;
    int samples;
    int lead_only; /* the lead message alone measured the bandwidth */
} pair_result_t;

typedef struct {
    int init, resp; /* ranks: the initiator pings, the responder echoes */
    int a, b;       /* their hosts */
    int bind;       /* bound first: the initiator to CPU cpu_init, the
                       responder to cpu_resp (a level inside a node) */
    int cpu_init, cpu_resp;
} pair_t;
_Static_assert(sizeof (pair_t) == 7 * sizeof (int), "pair_t travels as ints");

/* This rank's node as hwloc sees it, where it leads a host or is its
 * second rank; NULL elsewhere or when hwloc could not read it. */
static inside_hw_t *hw;

/* This rank's doorbell (lib/doorbell.h), NULL without one; every rank's
 * address (family 0: none); the generation of the turns, one a call of
 * measure_pairs (every rank makes the same calls); the waits that ended
 * by their MPI message after a nap without a ring: at BELL_MISSES the
 * rings do not reach this rank (a firewall), and it naps as without. */
static doorbell_t *bell;
static doorbell_addr_t *bells;
static uint32_t bell_gen;
static int bell_misses;
#define BELL_MISSES 3
#define NAP_MIN_NS  (20 * 1000)
#define NAP_MAX_NS  (2560 * 1000)

/* Wake rank r for the turn of pair j of this generation: a hint that its
 * MPI message is on its way or it is about to be (lib/doorbell.h). */
static void ring (int r, int j)
{
    if (bell && bells[r].family)
        doorbell_ring (bell, &bells[r], bell_gen, (uint32_t)j);
}

/* Wait for req without spinning: a rank between measurements must leave
 * the CPU to the ranks measuring (they may share cores, as on an emulated
 * cluster).  Naps double from 20 us up to 2.56 ms, so a wait that ends
 * soon costs little latency and a long wait costs little CPU; either way
 * the delay falls before a measurement starts, never inside one.  Waiting
 * for the turn of pair j (j >= 0) with a doorbell, the rank sleeps on it
 * in naps of 2.56 ms from the start: rung for that turn, the pair before
 * has ended, and it waits for req in MPI at once.  The short naps' quick
 * wake-ups would fall into the next pair's first samples (seen: a tenth
 * more samples to the CI at 16 nodes).  (Waking the next pair early,
 * with short naps during the pair before, was tried: it disturbed that
 * pair's bandwidth on shared cores.)
 */
static void wait_quietly (MPI_Request *req, int j)
{
    int done = 0, on_bell = j >= 0 && bell && bell_misses < BELL_MISSES, napped = 0;
    struct timespec nap = {0, on_bell ? NAP_MAX_NS : NAP_MIN_NS};

    for (;;) {
        MPI_Test (req, &done, MPI_STATUS_IGNORE);
        if (done) {
            bell_misses += on_bell && napped;
            return;
        }
        if (!on_bell)
            nanosleep (&nap, NULL);
        else if (doorbell_wait (bell, bell_gen, (uint32_t)j, nap.tv_nsec / 1000) == 1) {
            MPI_Wait (req, MPI_STATUS_IGNORE);
            return;
        }
        napped = 1;
        if (nap.tv_nsec < NAP_MAX_NS)
            nap.tv_nsec *= 2;
    }
}

/* Wait for the token that starts pair j, from rank from. */
static void wait_token (int from, int j)
{
    MPI_Request req;
    MPI_Irecv (NULL, 0, MPI_BYTE, from, TAG_TOKEN, MPI_COMM_WORLD, &req);
    wait_quietly (&req, j);
}

/* Initiator side of one measurement against rank peer. */
static void measure (int peer, const netmap_params_t *p, char *buf, double *rtt, pair_result_t *r)
{
    int n = 0, *flag = (int *)buf;

    *flag = 1;
    for (int i = 0; i < WARMUP; i++) {
        MPI_Send (buf, (int)p->lat_bytes, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD);
        MPI_Recv (buf, (int)p->lat_bytes, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
    }
    while (!stats_enough (rtt, n, p->min_samples, p->max_samples, p->ci_rel)) {
        *flag = 1;
        double t0 = MPI_Wtime ();
        MPI_Send (buf, (int)p->lat_bytes, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD);
        MPI_Recv (buf, (int)p->lat_bytes, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
        rtt[n++] = (MPI_Wtime () - t0) * 1e6;
    }
    *flag = 0;
    MPI_Send (buf, (int)p->lat_bytes, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD);
    r->samples = n;
    r->ci_us = stats_ci95 (rtt, n) / 2;
    r->lat_us = stats_median (rtt, n) / 2;
    /* the ack's trip, taken from the streams' times below: the fastest
     * ping's half, since a median slowed by a busy moment would leave a
     * stream faster than its link */
    double ack_s = n > 0 ? rtt[0] : 0;
    for (int i = 1; i < n; i++)
        ack_s = fmin (ack_s, rtt[i]);
    ack_s *= 0.5e-6;

    /* A lead message: on a slow path it alone lasts long enough to
     * measure, and the stream is skipped.  The responder learns which.
     */
    if (p->bw_enough_ms > 0) {
        size_t lead = netmap_lead_bytes (p);
        double t0 = MPI_Wtime (), dt;
        int more;

        MPI_Send (buf, (int)lead, MPI_BYTE, peer, TAG_STREAM, MPI_COMM_WORLD);
        MPI_Recv (buf, 1, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        dt = MPI_Wtime () - t0 - ack_s;
        more = !netmap_lead_enough (p, dt);
        MPI_Send (&more, 1, MPI_INT, peer, TAG_MORE, MPI_COMM_WORLD);
        if (!more) {
            r->bw_MBps = (double)lead / dt / 1e6;
            r->lead_only = 1;
            return;
        }
    }
    r->lead_only = 0;

    MPI_Request *req = malloc ((size_t)p->bw_messages * sizeof (*req));
    if (!req) {
        fprintf (stderr, "%s: out of memory\n", prog);
        MPI_Abort (MPI_COMM_WORLD, EXIT_FAIL);
    }
    double t0 = MPI_Wtime ();
    for (int i = 0; i < p->bw_messages; i++)
        MPI_Isend (buf, (int)p->bw_bytes, MPI_BYTE, peer, TAG_STREAM, MPI_COMM_WORLD, &req[i]);
    MPI_Waitall (p->bw_messages, req, MPI_STATUSES_IGNORE);
    MPI_Recv (buf, 1, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double dt = MPI_Wtime () - t0 - ack_s;
    free (req);
    if (dt <= 0)
        dt = MPI_Wtime () - t0;
    r->bw_MBps = (double)p->bw_bytes * p->bw_messages / dt / 1e6;
}

/* Responder side of pair j: echo pings until told to stop, then take
 * the stream. */
static void respond (int peer, int j, const netmap_params_t *p, char *buf, char *stream)
{
    MPI_Request first;
    MPI_Irecv (buf, (int)p->lat_bytes, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD, &first);
    wait_quietly (&first, j);
    for (int n = 0;; n++) {
        if (n > 0)
            MPI_Recv (buf, (int)p->lat_bytes, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
        if (*(int *)buf == 0)
            break;
        MPI_Send (buf, (int)p->lat_bytes, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD);
    }
    if (p->bw_enough_ms > 0) {
        int more = 1;

        MPI_Recv (stream, (int)netmap_lead_bytes (p), MPI_BYTE, peer, TAG_STREAM, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
        MPI_Send (buf, 1, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
        MPI_Recv (&more, 1, MPI_INT, peer, TAG_MORE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!more)
            return;
    }
    MPI_Request *req = malloc ((size_t)p->bw_messages * sizeof (*req));
    if (!req) {
        fprintf (stderr, "%s: out of memory\n", prog);
        MPI_Abort (MPI_COMM_WORLD, EXIT_FAIL);
    }
    for (int i = 0; i < p->bw_messages; i++)
        MPI_Irecv (stream + (size_t)i * p->bw_bytes, (int)p->bw_bytes, MPI_BYTE, peer, TAG_STREAM,
                   MPI_COMM_WORLD, &req[i]);
    MPI_Waitall (p->bw_messages, req, MPI_STATUSES_IGNORE);
    MPI_Send (buf, 1, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
    free (req);
}

/* A pair's figures, in this order: latency, its CI, bandwidth, samples,
 * lead only; rank 0 keeps each as an m*m matrix, one after the other
 * (FIG: matrix k of all, mm = m*m).
 */
enum { FIG_LAT, FIG_LAT_CI, FIG_BW, FIG_SAMPLES, FIG_LEAD, FIGS };
#define FIG(all, mm, k) ((all) + (size_t)(k) * (mm))

/* Bind this rank to cpu for pair q and agree with its peer that both
 * are bound: 1 when both are. */
static int bind_pair (const pair_t *q, int cpu)
{
    tm_error_t e;
    int ok = hw && inside_hw_bind (hw, cpu, &e) == 0, other;

    if (hw && !ok)
        fprintf (stderr, "%s: rank %d: %s\n", prog, rank, e.text);
    if (rank == q->init) {
        MPI_Recv (&other, 1, MPI_INT, q->resp, TAG_BIND, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ok = ok && other;
        MPI_Send (&ok, 1, MPI_INT, q->resp, TAG_BIND, MPI_COMM_WORLD);
    } else {
        MPI_Send (&ok, 1, MPI_INT, q->init, TAG_BIND, MPI_COMM_WORLD);
        MPI_Recv (&ok, 1, MPI_INT, q->init, TAG_BIND, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return ok;
}

/* Measure pairs[0..npairs) in their order: pair j's figures into
 * out[FIGS * j ...] on its initiator, zeros elsewhere (summed onto rank
 * 0); a pair to be bound whose ranks could not bind has NaN figures.  Pair j starts once pair j -
 * p->concurrency has finished (a token from its initiator), so at most `concurrency` pairs run at
 * once; 0 means as many as the order lets.  A host is in one pair at a time since it works through
 * its pairs in this order.
 */
static void measure_pairs (const pair_t *pairs, int npairs, const netmap_params_t *p, char *buf,
                           char *stream, double *rtt, double *out)
{
    memset (out, 0, (size_t)npairs * FIGS * sizeof (*out));
    bell_gen++;
    for (int j = 0; j < npairs; j++) {
        const pair_t *q = &pairs[j];
        if (rank == q->init) {
            if (p->concurrency > 0 && j >= p->concurrency)
                wait_token (pairs[j - p->concurrency].init, j);
            ring (q->resp, j);
            pair_result_t r;
            if (q->bind && !bind_pair (q, q->cpu_init))
                out[FIGS * j + FIG_LAT] = out[FIGS * j + FIG_BW] = NAN;
            else {
                measure (q->resp, p, buf, rtt, &r);
                out[FIGS * j + FIG_LAT] = r.lat_us;
                out[FIGS * j + FIG_LAT_CI] = r.ci_us;
                out[FIGS * j + FIG_BW] = r.bw_MBps;
                out[FIGS * j + FIG_SAMPLES] = r.samples;
                out[FIGS * j + FIG_LEAD] = r.lead_only;
            }
            /* the next initiator rung first: awake, it takes the
             * token's connection, often a new one, at once rather than
             * at its next nap */
            if (p->concurrency > 0 && j + p->concurrency < npairs) {
                ring (pairs[j + p->concurrency].init, j + p->concurrency);
                MPI_Send (NULL, 0, MPI_BYTE, pairs[j + p->concurrency].init, TAG_TOKEN,
                          MPI_COMM_WORLD);
            }
        } else if (rank == q->resp) {
            if (!q->bind || bind_pair (q, q->cpu_resp))
                respond (q->init, j, p, buf, stream);
        }
    }
    /* The figures to rank 0 quietly: a rank whose pairs are done naps
     * while the others measure (spinning in a blocking reduce, the ranks
     * outside a batch of the sampling plan slow its pairs).  One pair at
     * a time, the last pair ends last: its initiator rings every rank,
     * itself too, for turn npairs.  Else no ring says when all have
     * ended, and the ranks nap on timers. */
    if (npairs == 0)
        return;
    int rung = p->concurrency == 1;
    if (rung && rank == pairs[npairs - 1].init)
        for (int r = 0; r < size; r++)
            ring (r, npairs);
    MPI_Request req;
    MPI_Ireduce (rank == 0 ? MPI_IN_PLACE : out, out, FIGS * npairs, MPI_DOUBLE, MPI_SUM, 0,
                 MPI_COMM_WORLD, &req);
    wait_quietly (&req, rung ? npairs : -1);
}

/* Rank 0: the figures of pairs[0..npairs) (out, as measure_pairs left
 * them) into both directions of all (FIGS m*m matrices) and measured.
 * Measured again (again), a pair keeps the lower latency with its CI and
 * the higher bandwidth with its lead flag, and the samples of both
 * (something on the machine only ever slows a measurement).
 */
static void store (double *all, int *measured, int m, const pair_t *pairs, int npairs,
                   const double *out, int again)
{
    size_t mm = (size_t)m * (size_t)m;

    for (int j = 0; j < npairs; j++)
        for (int twice = 0; twice < 2; twice++) {
            const double *f = out + FIGS * j;
            size_t i = twice ? (size_t)pairs[j].b * (size_t)m + (size_t)pairs[j].a
                             : (size_t)pairs[j].a * (size_t)m + (size_t)pairs[j].b;
            if (!again || f[FIG_LAT] < FIG (all, mm, FIG_LAT)[i]) {
                FIG (all, mm, FIG_LAT)[i] = f[FIG_LAT];
                FIG (all, mm, FIG_LAT_CI)[i] = f[FIG_LAT_CI];
            }
            if (!again || f[FIG_BW] > FIG (all, mm, FIG_BW)[i]) {
                FIG (all, mm, FIG_BW)[i] = f[FIG_BW];
                FIG (all, mm, FIG_LEAD)[i] = f[FIG_LEAD];
            }
            FIG (all, mm, FIG_SAMPLES)
            [i] = again ? FIG (all, mm, FIG_SAMPLES)[i] + f[FIG_SAMPLES] : f[FIG_SAMPLES];
            measured[i] = again ? 2 : 1;
        }
}

/* The nd pairs of hosts in list (rank 0's; nd too), measured again by
 * every rank (pairs and out: room for them) and stored by rank 0 as
 * measured twice (store). */
static void measure_again (pairs_t *list, int nd, const int *leader, pair_t *pairs,
                           const netmap_params_t *p, char *buf, char *stream, double *rtt,
                           double *out, double *all, int *measured, int m)
{
    MPI_Bcast (&nd, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (nd == 0)
        return;
    MPI_Bcast (list, 2 * nd, MPI_INT, 0, MPI_COMM_WORLD);
    for (int j = 0; j < nd; j++)
        pairs[j] = (pair_t){
            .init = leader[list[j].a], .resp = leader[list[j].b], .a = list[j].a, .b = list[j].b};
    measure_pairs (pairs, nd, p, buf, stream, rtt, out);
    if (rank == 0)
        store (all, measured, m, pairs, nd, out, 1);
}

/* Broadcast from rank 0 without spinning (see wait_quietly): rank 0 may
 * take a while choosing the next pairs, on cores the others share. */
/* --inside: the inside of every host as hwloc sees it on its leader, on rank 0 in
 * insides[0..m) (NULL where not read, with a line saying why); then, on
 * each host with a second rank, its levels measured: leader and second
 * bound to two CPUs of one L3 domain, of two domains of one package, of
 * two packages (inside_level_pair; each level the node has), one level
 * after another, then bound as before.  Every rank calls it. */
static void measure_inside (int m, const int *leader, const int *second, const char *names,
                            const netmap_params_t *p, double t_start, char *buf, char *stream,
                            double *rtt, inside_t **insides)
{
    int mine = -1, part = 0, n = 0, *counts = NULL, *displs = NULL, *data = NULL, *mydata;
    int npairs = 0;
    inside_t *in = NULL;
    pair_t *pairs = NULL;
    int (*levels)[2] = NULL; /* rank 0: host and level of each pair */
    double *out = NULL;
    tm_error_t e;

    for (int h = 0; h < m; h++) {
        if (leader[h] == rank)
            mine = h;
        part |= leader[h] == rank || second[h] == rank;
    }
    if (part && !(hw = inside_hw_open (&e)))
        fprintf (stderr, "%s: %s: %s: %s\n", prog, names + (size_t)rank * NAME_LEN, e.text,
                 mine >= 0 ? "its inside not read" : "its levels not measured");
    if (hw && mine >= 0 && !(in = inside_hw_read (hw, &e)))
        fprintf (stderr, "%s: %s: %s: its inside not read\n", prog, names + (size_t)rank * NAME_LEN,
                 e.text);

    /* each leader's CPUs, their domains and packages, to rank 0 */
    n = in ? in->ncpus : 0;
    if (!(mydata = malloc ((size_t)(3 * n + 1) * sizeof (int))))
        leave_nomem ();
    for (int k = 0; k < n; k++) {
        mydata[k] = in->cpu[k];
        mydata[n + k] = in->l3[k];
        mydata[2 * n + k] = in->package[in->l3[k]];
    }
    if (rank == 0 && (!(counts = malloc ((size_t)size * sizeof (int))) ||
                      !(displs = malloc ((size_t)size * sizeof (int)))))
        leave_nomem ();
    MPI_Gather (&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long total = 0;
        for (int r = 0; r < size; r++) {
            displs[r] = (int)total;
            total += 3L * counts[r];
            counts[r] *= 3;
        }
        if (total > INT_MAX || !(data = malloc ((size_t)(total + 1) * sizeof (int))))
            leave_nomem ();
    }
    MPI_Gatherv (mydata, 3 * n, MPI_INT, data, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    free (mydata);
    inside_destroy (in);

    /* rank 0: the insides, and the pairs of CPUs that measure their levels */
    if (rank == 0) {
        if (!(pairs = malloc ((size_t)m * INSIDE_LEVELS * sizeof (*pairs))) ||
            !(levels = malloc ((size_t)m * INSIDE_LEVELS * sizeof (*levels))))
            leave_nomem ();
        for (int h = 0; h < m; h++) {
            int c = counts[leader[h]] / 3, *d = data + displs[leader[h]];

            insides[h] = NULL;
            if (c == 0)
                continue;
            if (!(insides[h] = inside_create (c, d, d + c, d + 2 * c, &e))) {
                fprintf (stderr, "%s: %s: %s: its inside not read\n", prog,
                         names + (size_t)leader[h] * NAME_LEN, e.text);
                continue;
            }
            for (int l = 0; second[h] != -1 && l < INSIDE_LEVELS; l++) {
                int a, b;
                if (inside_level_pair (insides[h], (inside_level_t)l, &a, &b) < 0)
                    continue;
                pairs[npairs] = (pair_t){.init = leader[h],
                                         .resp = second[h],
                                         .a = h,
                                         .b = h,
                                         .bind = 1,
                                         .cpu_init = insides[h]->cpu[a],
                                         .cpu_resp = insides[h]->cpu[b]};
                levels[npairs][0] = h;
                levels[npairs++][1] = l;
            }
        }
    }
    free (counts);
    free (displs);
    free (data);
    /* the levels in what is left of the budget: at least a quarter of it
     * (a few milliseconds a pair, one pair a node at a time) */
    if (rank == 0 && npairs > 0 && p->budget_s - (MPI_Wtime () - t_start) < p->budget_s / 4) {
        fprintf (stderr,
                 "%s: too little of the budget left: the levels inside the nodes not "
                 "measured\n",
                 prog);
        npairs = 0;
    }
    MPI_Bcast (&npairs, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (npairs > 0) {
        if ((rank != 0 && !(pairs = malloc ((size_t)npairs * sizeof (*pairs)))) ||
            !(out = malloc ((size_t)npairs * FIGS * sizeof (*out))))
            leave_nomem ();
        MPI_Bcast (pairs, npairs * (int)(sizeof (*pairs) / sizeof (int)), MPI_INT, 0,
                   MPI_COMM_WORLD);
        measure_pairs (pairs, npairs, p, buf, stream, rtt, out);
        if (hw && inside_hw_bind (hw, -1, &e) < 0)
            fprintf (stderr, "%s: rank %d: %s\n", prog, rank, e.text);
        for (int j = 0; rank == 0 && j < npairs; j++) {
            inside_t *x = insides[levels[j][0]];
            x->lat_us[levels[j][1]] = out[FIGS * j + FIG_LAT];
            x->bw_MBps[levels[j][1]] = out[FIGS * j + FIG_BW];
        }
    }
    inside_hw_close (hw);
    hw = NULL;
    free (pairs);
    free (levels);
    free (out);
}

static void bcast_quietly (void *data, int count, MPI_Datatype type)
{
    MPI_Request req;

    MPI_Ibcast (data, count, type, 0, MPI_COMM_WORLD, &req);
    wait_quietly (&req, -1);
}

/* The sampling plan (lib/sample.h) over the m node leaders: rank 0
 * chooses each batch of pairs, every rank measures its share, rank 0
 * stores the figures.  The topology found into *topo (rank 0; NULL on
 * other ranks, and when the plan measured every pair after all: that
 * tree is inferred after the full plan's second looks) and in *nbatches
 * the batches.  -1 on rank 0 when it failed, errp saying why.
 */
static int measure_sampled (int m, const int *leader, const netmap_params_t *p,
                            const topo_params_t *tp, char *buf, char *stream, double *rtt,
                            double *all, int *measured, topo_t **topo, int *nbatches,
                            tm_error_t *errp)
{
    size_t mm = (size_t)m * (size_t)m;
    sample_t *sp = NULL;
    pairs_t *q = NULL;
    pair_t *list = NULL;
    double *out = NULL;
    int k = 0, cap = 0;

    *topo = NULL;
    *nbatches = 0;
    if (rank == 0 && !(sp = sample_create (m, FIG (all, mm, FIG_LAT), FIG (all, mm, FIG_BW),
                                           measured, tp, 1, errp)))
        k = -1;
    for (;;) {
        const pairs_t *ask;
        if (rank == 0 && k >= 0) {
            k = sample_next (sp, &ask, errp);
            if (k > cap) {
                pairs_t *nq = realloc (q, (size_t)k * sizeof (*q));
                if (!nq) {
                    errnomem (errp);
                    k = -1;
                } else {
                    q = nq;
                    cap = k;
                }
            }
            if (k > 0) {
                memcpy (q, ask, (size_t)k * sizeof (*q));
                if (pairs_rounds (m, q, k, errp) < 0)
                    k = -1;
            }
        }
        bcast_quietly (&k, 1, MPI_INT);
        if (k <= 0)
            break;
        if (rank != 0 && k > cap) {
            pairs_t *nq = realloc (q, (size_t)k * sizeof (*q));
            if (!nq) {
                fprintf (stderr, "%s: out of memory\n", prog);
                MPI_Abort (MPI_COMM_WORLD, EXIT_FAIL);
            }
            q = nq;
            cap = k;
        }
        bcast_quietly (q, 2 * k, MPI_INT);
        pair_t *nl = realloc (list, (size_t)k * sizeof (*list));
        double *no = realloc (out, (size_t)k * FIGS * sizeof (*out));
        if (nl)
            list = nl;
        if (no)
            out = no;
        if (!nl || !no) {
            fprintf (stderr, "%s: out of memory\n", prog);
            MPI_Abort (MPI_COMM_WORLD, EXIT_FAIL);
        }
        for (int j = 0; j < k; j++)
            list[j] =
                (pair_t){.init = leader[q[j].a], .resp = leader[q[j].b], .a = q[j].a, .b = q[j].b};
        measure_pairs (list, k, p, buf, stream, rtt, out);
        if (rank == 0)
            store (all, measured, m, list, k, out, 0);
        (*nbatches)++;
    }
    if (rank == 0 && k == 0 && sample_measured (sp) < (long)m * (m - 1) / 2 &&
        !(*topo = sample_finish (sp, errp)))
        k = -1;
    sample_destroy (sp);
    free (q);
    free (list);
    free (out);
    return k < 0 ? -1 : 0;
}

/* At most want pairs, and no more than half of left_s seconds takes at
 * pace seconds a pair. */
static int pairs_in_time (int want, double pace, double left_s)
{
    if (pace > 0 && left_s / 2 / pace < want)
        return left_s > 0 ? (int)(left_s / 2 / pace) : 0;
    return want;
}

/* The tree rank 0 infers from the figures, and then the pairs where it
 * may stand on slowed pairs (lib/pairs.h), at most max of them in out[]:
 * those of a host left alone with its two nearest edges (pairs_lone: a
 * busy core slows every pair of one host, which no path shows), then
 * those between sibling edges with few pairs between them (pairs_split:
 * the pairs between two halves of an edge, all slowed, pass for a level),
 * each pair once.  How many.
 */
static int tree_doubts (int m, const topo_params_t *tp, const double *all, const int *measured,
                        int max, pairs_t *out)
{
    size_t mm = (size_t)m * (size_t)m;
    tm_error_t e;
    topo_t *t = topo_infer_net (m, FIG (all, mm, FIG_LAT), FIG (all, mm, FIG_BW), tp, &e);
    int nl = 0, ns = 0, n = 0, *up = NULL;

    if (!t || t->model != TOPO_TREE)
        goto done;
    const double *lat = t->signal == TOPO_SIGNAL_BANDWIDTH ? NULL : FIG (all, mm, FIG_LAT);
    const double *bw = lat ? NULL : FIG (all, mm, FIG_BW);
    if (!(up = malloc ((size_t)t->ngroups * sizeof (*up))))
        leave_nomem ();
    for (int h = 0; h < m; h++)
        up[t->group[h]] = t->parent[h] >= 0 ? t->parent[t->parent[h]] : -1;
    if ((nl = pairs_lone (m, lat, bw, measured, t->group, t->ngroups, max, out, &e)) < 0) {
        fprintf (stderr, "%s: %s: no host alone measured again\n", prog, e.text);
        nl = 0;
    }
    if ((ns = pairs_split (m, lat, bw, measured, t->group, up, t->ngroups, max - nl, out + nl,
                           &e)) < 0) {
        fprintf (stderr, "%s: %s: no split edge measured again\n", prog, e.text);
        ns = 0;
    }
    /* a lone host's pairs with a sibling edge are in both lists */
    n = nl;
    for (int i = nl; i < nl + ns; i++) {
        int twice = 0;
        for (int j = 0; j < nl && !twice; j++)
            twice = out[i].a == out[j].a && out[i].b == out[j].b;
        if (!twice)
            out[n++] = out[i];
    }
done:
    topo_destroy (t);
    free (up);
    return n;
}

/* The pairs in doubt (lib/pairs.h), measured again: at most one in eight
 * (and four), and no more than half the time the budget has left (left_s)
 * at the pace of the first pass (measure_s for nmeasured pairs).  Not after
 * a sampling plan that left pairs out (sampled): it confirmed each of its
 * choices by several hosts, and a sparse set of pairs has few paths to
 * judge a pair by.  After the site's tree (site, rank 0's), which gives no
 * paths, the pairs far below their level instead (topo_links_doubts), in
 * the same time.  First the pairs that break the tree's inequality by
 * far; then, with an allowance of their own (one in sixteen, and four;
 * half the time then left), the pairs where the tree inferred from the
 * figures may stand on slowed pairs (tree_doubts): on a busy machine the
 * first allowance is often spent.  How many pairs of the first kind
 * (rank 0's).
 */
static int remeasure (int m, int nmeasured, int sampled, double measure_s, double left_s,
                      const topo_params_t *tp, const topo_t *site, const int *leader, pair_t *pairs,
                      const netmap_params_t *p, char *buf, char *stream, double *rtt, double *res,
                      double *all, int *measured)
{
    size_t mm = (size_t)m * (size_t)m;
    int nd = 0, nt = 0, allow = 0;
    double pace = nmeasured > 0 ? measure_s / nmeasured : 0, t_end = MPI_Wtime () + left_s;
    pairs_t *doubt = malloc ((size_t)(nmeasured + 4) * sizeof (*doubt));
    tm_error_t e;

    if (!doubt)
        leave_nomem ();
    if (rank == 0 && site && nmeasured > 0) {
        /* the site's tree: a pair far below its level, before it may say
         * a link is slow */
        allow = pairs_in_time (nmeasured, pace, left_s);
        if ((nd = topo_links_doubts (site, FIG (all, mm, FIG_BW), measured, doubt, allow)) < 0 ||
            pairs_rounds (m, doubt, nd, &e) < 0) {
            fprintf (stderr, "%s: no pair measured again\n", prog);
            nd = 0;
        }
        allow = 0;
    } else if (rank == 0 && doubt_ratio > 0 && nmeasured > 0 && !sampled && !topology) {
        allow = pairs_in_time (nmeasured / 8 + 4, pace, left_s);
        if ((nd = pairs_doubt (m, FIG (all, mm, FIG_LAT), FIG (all, mm, FIG_BW), measured,
                               doubt_ratio, allow, doubt, &e)) < 0 ||
            pairs_rounds (m, doubt, nd, &e) < 0) {
            fprintf (stderr, "%s: %s: no pair measured again\n", prog, e.text);
            nd = 0;
        }
    }
    measure_again (doubt, nd, leader, pairs, p, buf, stream, rtt, res, all, measured, m);
    if (rank == 0 && allow > 0) {
        int tree_allow = pairs_in_time (nmeasured / 16 + 4, pace, t_end - MPI_Wtime ());

        if (tree_allow > 0 && (nt = tree_doubts (m, tp, all, measured, tree_allow, doubt)) > 0 &&
            pairs_rounds (m, doubt, nt, &e) < 0) {
            fprintf (stderr, "%s: %s: no pair of the tree measured again\n", prog, e.text);
            nt = 0;
        }
    }
    measure_again (doubt, nt, leader, pairs, p, buf, stream, rtt, res, all, measured, m);
    free (doubt);
    return nd;
}

/* Each host's GPU slots as hwloc sees them on its leader (slots_hw_read),
 * to rank 0 as JSON text: a new array of m (NULL where not read, with a
 * line saying why; all NULL without --slots).  Every rank calls it. */
#define SLOTS_TEXT_MAX (256 << 10)
static slots_t **gather_slots (int m, const int *leader, const char *names)
{
    int mine = 0, len = 0, keep = 1, *counts = NULL, *displs = NULL;
    const char *text = "";
    char *all = NULL;
    json_object *o = NULL;
    slots_t *s = NULL, **slots = calloc ((size_t)m, sizeof (*slots));
    tm_error_t e;

    if (!slots)
        leave_nomem ();
    if (!slots_read)
        return slots;
    for (int h = 0; h < m; h++)
        mine |= leader[h] == rank;
    if (mine && !(s = slots_hw_read (NULL, &e)))
        fprintf (stderr, "%s: %s: %s: its GPU slots not read\n", prog,
                 names + (size_t)rank * NAME_LEN, e.text);
    if (s && (!(o = slots_to_json (s)) ||
              !(text = json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN))))
        leave_nomem ();
    if (strlen (text) > SLOTS_TEXT_MAX) {
        fprintf (stderr, "%s: %s: GPU slots of more than %d bytes: not kept\n", prog,
                 names + (size_t)rank * NAME_LEN, SLOTS_TEXT_MAX);
        text = "";
    }
    len = (int)strlen (text);
    if (rank == 0 && (!(counts = malloc ((size_t)size * sizeof (int))) ||
                      !(displs = malloc ((size_t)size * sizeof (int)))))
        leave_nomem ();
    MPI_Gather (&len, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long total = 0;

        for (int r = 0; r < size; r++) {
            displs[r] = (int)total;
            total += counts[r];
        }
        if (total > INT_MAX) {
            fprintf (stderr, "%s: the nodes' GPU slots take more than %d bytes: not kept\n", prog,
                     INT_MAX);
            keep = 0;
            total = 0;
            for (int r = 0; r < size; r++)
                counts[r] = displs[r] = 0;
        }
        if (!(all = malloc ((size_t)total + 1)))
            leave_nomem ();
    }
    MPI_Bcast (&keep, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv (text, keep ? len : 0, MPI_CHAR, all, counts, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
    json_object_put (o);
    slots_free (s);
    for (int h = 0; rank == 0 && h < m; h++) {
        json_object *x;

        slots[h] = NULL;
        if (counts[leader[h]] == 0)
            continue;
        if (!(x = jsonfile_parse (all + displs[leader[h]], (size_t)counts[leader[h]], &e)) ||
            !(slots[h] = slots_from_json (x, "slots.", &e)))
            fprintf (stderr, "%s: %s: %s: its GPU slots not kept\n", prog,
                     names + (size_t)leader[h] * NAME_LEN, e.text);
        json_object_put (x);
    }
    free (counts);
    free (displs);
    free (all);
    return slots;
}

static void free_nodes (int m, inside_t **insides, slots_t **slots)
{
    for (int h = 0; h < m; h++) {
        inside_destroy (insides[h]);
        slots_free (slots[h]);
    }
    free (insides);
    free (slots);
}

/* What rank 0 measured, for the netmap it writes. */
typedef struct {
    int m, nmeasured, ndoubt, nbatches, nbells, sampled;
    const char *names;          /* every rank's node name, NAME_LEN each */
    const int *leader, *second; /* gather_hosts's */
    const double *all;          /* FIGS m*m matrices */
    const int *measured;        /* times each pair was measured */
    inside_t **insides;         /* taken by the netmap */
    slots_t **slots;            /* likewise */
    double measure_s;
    int uplink_rounds; /* rounds of the uplink measurement */
    double uplink_s;   /* and the time they took */
} measured_t;

/* -v: one line of what was measured and how, and each level's figures of
 * the site's tree. */
static void report (const measured_t *r, const netmap_t *nm, const topoconf_level_t *lv,
                    const char *out)
{
    int m = r->m, lead_only = 0, npairs_all = 0, again = 0;
    size_t mm = (size_t)m * (size_t)m;
    char how[PATH_MAX + 64], slow[1024], up[2048];

    for (int a = 0; a < m; a++)
        for (int b = a; b < m; b++)
            if (a != b || r->second[a] != -1) {
                size_t i = (size_t)a * (size_t)m + (size_t)b;

                npairs_all++;
                lead_only += r->measured[i] > 0 && FIG (r->all, mm, FIG_LEAD)[i] > 0;
                again += a != b && r->measured[i] == 2; /* in doubt, or for the tree */
            }
    if (topology)
        snprintf (how, sizeof (how), "every link of %s", topology);
    else if (r->sampled)
        snprintf (how, sizeof (how), "%d batch%s of the sampling plan", r->nbatches,
                  r->nbatches == 1 ? "" : "es");
    else
        snprintf (how, sizeof (how), "%d rounds", schedule_rounds (m));
    printf ("%s: %d hosts, %s, %d of %d pairs measured, %d pair%s measured again (%d in doubt), "
            "measured in %.3f s, %s model, %d of %d pairs by their lead message alone, "
            "%d of %d ranks woken by doorbells, wrote %s\n",
            prog, m, how, r->nmeasured, npairs_all, again, again == 1 ? "" : "s", r->ndoubt,
            r->measure_s,
            !nm->topo                                   ? "no"
            : nm->topo->model == TOPO_GROUPS            ? "groups"
            : nm->topo->signal == TOPO_SIGNAL_SITE      ? "the site's tree"
            : nm->topo->signal == TOPO_SIGNAL_BANDWIDTH ? "tree (bandwidth)"
                                                        : "tree (latency)",
            lead_only, r->nmeasured, r->nbells, size, out);
    for (int l = 1; topology && l < TOPOCONF_LEVELS; l++)
        if (!isnan (lv[l].lat_us))
            printf ("%s: level %d: latency %.4g us, bandwidth %.4g MB/s\n", prog, l, lv[l].lat_us,
                    lv[l].bw_MBps);
    if (topology && topo_links_slow (nm, slow, sizeof (slow)) > 0)
        printf ("%s: slow links, the pairs across them priced so: %s\n", prog, slow);
    if (topo_uplinks_text (nm, up, sizeof (up)) > 0)
        printf ("%s: uplinks under load, %d round%s in %.3f s: %s\n", prog, r->uplink_rounds,
                r->uplink_rounds == 1 ? "" : "s", r->uplink_s, up);
}

/* Rank 0: the netmap of what was measured, its topology (the site's tree
 * with its levels' figures in lv, the sampling plan's, or inferred now;
 * *site and *topo are taken).  NULL, said on standard error, on failure.
 */
static netmap_t *make_netmap (const measured_t *r, const netmap_params_t *p,
                              const topo_params_t *tp, topo_t **site, topo_t **topo,
                              topoconf_level_t *lv)
{
    int m = r->m;
    size_t mm = (size_t)m * (size_t)m;
    const char **hosts = malloc ((size_t)m * sizeof (char *));
    const char *job = getenv ("SLURM_JOB_ID");
    netmap_t *nm = NULL;
    tm_error_t e;

    if (!hosts) {
        fprintf (stderr, "%s: out of memory\n", prog);
        return NULL;
    }
    for (int h = 0; h < m; h++)
        hosts[h] = r->names + (size_t)r->leader[h] * NAME_LEN;
    if (!(nm = netmap_create (m, hosts, &e))) {
        fprintf (stderr, "%s: %s\n", prog, e.text);
        goto done;
    }
    for (int a = 0; a < m; a++)
        for (int b = 0; b < m; b++) {
            size_t i = (size_t)a * (size_t)m + (size_t)b;
            if (a == b && r->second[a] == -1)
                continue; /* intra-node not measured: stays NaN */
            NETMAP_AT (nm, lat_us, a, b) = FIG (r->all, mm, FIG_LAT)[i];
            NETMAP_AT (nm, lat_ci_us, a, b) = FIG (r->all, mm, FIG_LAT_CI)[i];
            NETMAP_AT (nm, bw_MBps, a, b) = FIG (r->all, mm, FIG_BW)[i];
            NETMAP_AT (nm, samples, a, b) = (int)FIG (r->all, mm, FIG_SAMPLES)[i];
            NETMAP_AT (nm, measured, a, b) = r->measured[i];
        }
    for (int h = 0; h < m; h++) {
        nm->inside[h] = r->insides[h];
        r->insides[h] = NULL;
        nm->slots[h] = r->slots[h];
        r->slots[h] = NULL;
    }
    nm->params = *p;
    nm->measure_s = r->measure_s;
    nm->timestamp = time (NULL);
    if (job && strlen (job) < sizeof (nm->jobid))
        strcpy (nm->jobid, job);
    if (topology) {
        /* the pairs not measured are zeros so far: no netmap without them */
        int filled = topoconf_fill (nm, *site, lv, &e);
        *site = NULL;
        if (filled < 0) {
            fprintf (stderr, "%s: %s: %s\n", prog, topology, e.text);
            netmap_destroy (nm);
            nm = NULL;
            goto done;
        }
    } else
        nm->topo =
            topo_split_one (m, *topo ? *topo : topo_infer_net (m, nm->lat_us, nm->bw_MBps, tp, &e),
                            nm->lat_us, nm->bw_MBps, &e);
    *topo = NULL;
    if (!nm->topo)
        fprintf (stderr, "%s: no topology inferred: %s\n", prog, e.text);
done:
    free (hosts);
    return nm;
}

/* One round of the uplink streams, k..end of the plan (iv: round, src,
 * dst; bytes), this rank receiving stream in and sending stream out (-1:
 * none) in rbuf and sbuf.  One clock times them all, rank 0's: from
 * before the barrier no sender passes to a zero-byte message each
 * receiver sends it once its stream is in, into secs[] on rank 0.  Each
 * time then spans its stream wherever the ranks' clocks stand, and the
 * bytes over a link in that time never exceed its rate (a receiver late
 * out of the barrier, timing itself, read a 25 MB/s link at 30).  Waits
 * in naps of UPLINK_NAP_NS: short enough not to starve a stream (a
 * socket's buffer holds more), long enough to leave the cores to the
 * kernel's forwarding (an emulated cluster's links).
 */
static void uplink_round (const int *leader, int k, int end, const int *iv, const double *bytes,
                          int in, int out, char *rbuf, char *sbuf, double *secs)
{
    int nr = 3 + (rank == 0 ? end - k : 0), nd;
    int *idx = malloc ((size_t)nr * sizeof (*idx));
    MPI_Request *r = malloc ((size_t)nr * sizeof (*r)), breq;
    double t_go;

    if (!idx || !r)
        leave_nomem ();
    /* r: this rank's stream in, out, its message to rank 0, and on rank 0
     * one from each receiver of the round */
    for (int j = 0; j < nr; j++)
        r[j] = MPI_REQUEST_NULL;
    for (int j = k; rank == 0 && j < end; j++)
        MPI_Irecv (NULL, 0, MPI_BYTE, leader[iv[3 * j + 2]], TAG_DONE, MPI_COMM_WORLD,
                   &r[3 + j - k]);
    if (in >= 0)
        MPI_Irecv (rbuf, (int)bytes[in], MPI_BYTE, leader[iv[3 * in + 1]], TAG_UPLINK,
                   MPI_COMM_WORLD, &r[0]);
    MPI_Ibarrier (MPI_COMM_WORLD, &breq);
    wait_quietly (&breq, -1);
    t_go = MPI_Wtime ();
    MPI_Ibarrier (MPI_COMM_WORLD, &breq);
    wait_quietly (&breq, -1);
    if (out >= 0)
        MPI_Isend (sbuf, (int)bytes[out], MPI_BYTE, leader[iv[3 * out + 2]], TAG_UPLINK,
                   MPI_COMM_WORLD, &r[1]);
    struct timespec nap = {0, UPLINK_NAP_NS};
    for (;;) {
        MPI_Testsome (nr, r, &nd, idx, MPI_STATUSES_IGNORE);
        if (nd == MPI_UNDEFINED)
            break;
        for (int i = 0; i < nd; i++)
            if (idx[i] == 0)
                MPI_Isend (NULL, 0, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD, &r[2]);
            else if (idx[i] >= 3)
                secs[k + idx[i] - 3] = MPI_Wtime () - t_go;
        if (nd == 0)
            nanosleep (&nap, NULL);
    }
    free (idx);
    free (r);
}

/* The uplinks of nm's tree (rank 0's; NULL elsewhere) measured under load
 * (lib/topology_links.h), a round at a time while the budget lasts, into
 * nm->topo->uplink_MBps; the rounds measured, and the time they took in
 * *took_s.  Every rank calls it.
 */
static int measure_uplinks (netmap_t *nm, const int *leader, double t_start, double budget_s,
                            double *took_s)
{
    topo_stream_t *s = NULL;
    int ns = 0, rounds = 0;
    double t_begin = MPI_Wtime ();

    *took_s = 0;
    if (rank == 0 && nm && uplink_s > 0 &&
        (ns = topo_uplink_plan (nm, uplink_s, UPLINK_MAX_BYTES, &s)) < 0)
        leave_nomem ();
    bcast_quietly (&ns, 1, MPI_INT);
    if (ns == 0)
        return 0;
    /* the plan to every rank: round, src, dst a stream, and its bytes */
    int *iv = malloc ((size_t)ns * 3 * sizeof (*iv));
    double *bytes = malloc ((size_t)ns * sizeof (*bytes)),
           *secs = calloc ((size_t)ns, sizeof (*secs));
    if (!iv || !bytes || !secs)
        leave_nomem ();
    for (int k = 0; rank == 0 && k < ns; k++) {
        iv[3 * k] = s[k].round;
        iv[3 * k + 1] = s[k].src;
        iv[3 * k + 2] = s[k].dst;
        bytes[k] = s[k].bytes;
    }
    bcast_quietly (iv, 3 * ns, MPI_INT);
    bcast_quietly (bytes, ns, MPI_DOUBLE);
    for (int k = 0; k < ns;) {
        int end = k, go, in = -1, out = -1;
        while (end < ns && iv[3 * end] == iv[3 * k])
            end++;
        go = MPI_Wtime () - t_start + UPLINK_ROUND_S + 10 * uplink_s < budget_s;
        bcast_quietly (&go, 1, MPI_INT);
        if (!go)
            break;
        for (int j = k; j < end; j++) {
            in = leader[iv[3 * j + 2]] == rank ? j : in;
            out = leader[iv[3 * j + 1]] == rank ? j : out;
        }
        char *rbuf = in >= 0 ? malloc ((size_t)bytes[in]) : NULL;
        char *sbuf = out >= 0 ? calloc (1, (size_t)bytes[out]) : NULL;
        if ((in >= 0 && !rbuf) || (out >= 0 && !sbuf))
            leave_nomem ();
        uplink_round (leader, k, end, iv, bytes, in, out, rbuf, sbuf, secs);
        free (rbuf);
        free (sbuf);
        rounds++;
        k = end;
    }
    if (rank == 0 && topo_uplink_figures (nm, s, ns, secs) < 0)
        leave_nomem ();
    *took_s = MPI_Wtime () - t_begin;
    free (s);
    free (iv);
    free (bytes);
    free (secs);
    return rounds;
}

/* Rank 0: nm written to out, and the summary with -v.  The exit status. */
static int write_netmap (const measured_t *r, const netmap_t *nm, const topoconf_level_t *lv,
                         const char *out, int verbose)
{
    tm_error_t e;

    if (netmap_write (nm, out, 0600, &e) < 0) {
        fprintf (stderr, "%s: %s\n", prog, e.text);
        return EXIT_FAIL;
    }
    if (verbose)
        report (r, nm, lv, out);
    return 0;
}

/* The pairs not measured of a site's tree priced again once its uplinks
 * were measured under load, which can tell a slow one the pairs alone did
 * not (lib/topology_links.h); lv[] the levels' figures anew. */
static netmap_t *refill (netmap_t *nm, topoconf_level_t *lv)
{
    double lat[TOPOCONF_LEVELS], bw[TOPOCONF_LEVELS];
    tm_error_t e;

    if (topo_links_fill (nm, nm->topo, TOPOCONF_LEVELS, lat, bw, &e) < 0) {
        fprintf (stderr, "%s: %s: %s\n", prog, topology, e.text);
        netmap_destroy (nm);
        return NULL;
    }
    for (int l = 0; l < TOPOCONF_LEVELS; l++)
        lv[l] = (topoconf_level_t){lat[l], bw[l]};
    return nm;
}

/* Rank 0's netmap (make_netmap), its uplinks measured by every rank, and
 * written: the exit status, on every rank. */
static int finish (measured_t *r, const netmap_params_t *p, const topo_params_t *tp, topo_t **site,
                   topo_t **topo, double t_start, const char *out, int verbose)
{
    topoconf_level_t lv[TOPOCONF_LEVELS];
    netmap_t *nm = rank == 0 ? make_netmap (r, p, tp, site, topo, lv) : NULL;
    int rc;

    r->uplink_rounds = measure_uplinks (nm, r->leader, t_start, p->budget_s, &r->uplink_s);
    if (nm && topology && r->uplink_rounds > 0)
        nm = refill (nm, lv);
    rc = rank != 0 ? 0 : nm ? write_netmap (r, nm, lv, out, verbose) : EXIT_FAIL;
    MPI_Bcast (&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    netmap_destroy (nm);
    return rc;
}

/* Node names as Slurm knows them, else the processor name, of every rank
 * (*namesp, NAME_LEN each); the hosts in order of their lowest rank:
 * (*leaderp)[h] is that rank, (*secondp)[h] the next rank on the same host
 * (for intra-node figures), or -1.  The number of hosts.
 */
static int gather_hosts (char **namesp, int **leaderp, int **secondp)
{
    char *names = calloc ((size_t)size, NAME_LEN), me[NAME_LEN] = "";
    const char *slurm_name = getenv ("SLURMD_NODENAME");
    int m = 0, *leader = malloc ((size_t)size * sizeof (int));
    int *second = malloc ((size_t)size * sizeof (int));

    if (slurm_name && *slurm_name && strlen (slurm_name) < NAME_LEN)
        strcpy (me, slurm_name);
    else {
        int len;
        MPI_Get_processor_name (me, &len);
    }
    if (!names || !leader || !second)
        leave_nomem ();
    MPI_Allgather (me, NAME_LEN, MPI_CHAR, names, NAME_LEN, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) {
        int h;
        for (h = 0; h < m; h++)
            if (strncmp (names + (size_t)leader[h] * NAME_LEN, names + (size_t)r * NAME_LEN,
                         NAME_LEN) == 0)
                break;
        if (h == m) {
            leader[m] = r;
            second[m++] = -1;
        } else if (second[h] == -1)
            second[h] = r;
    }
    *namesp = names;
    *leaderp = leader;
    *secondp = second;
    return m;
}

/* Whether hosts share a machine (emulated nodes: one kernel, one boot
 * id), and so its CPUs: their small pings' latencies follow which ranks
 * share a core, and the inference must not take them for levels. */
static int on_shared_machine (int m, const int *leader)
{
    char boot[BOOT_LEN] = "", *boots = calloc ((size_t)size, BOOT_LEN);
    int shared = 0;

    if (!boots)
        leave_nomem ();
    read_boot_id (boot);
    MPI_Allgather (boot, BOOT_LEN, MPI_CHAR, boots, BOOT_LEN, MPI_CHAR, MPI_COMM_WORLD);
    for (int a = 0; a < m && !shared; a++)
        for (int b = a + 1; b < m && !shared; b++) {
            const char *x = boots + (size_t)leader[a] * BOOT_LEN,
                       *y = boots + (size_t)leader[b] * BOOT_LEN;
            shared = *x && strncmp (x, y, BOOT_LEN) == 0;
        }
    free (boots);
    return shared;
}

/* The doorbells: rank 0's random cookie, each rank's doorbell on its
 * address toward srun's node, every rank's address to every rank.  A rank
 * without one (no such address, --no-doorbell, no randomness) naps on a
 * timer alone.  On rank 0, how many ranks have one.
 */
static int open_doorbells (void)
{
    uint64_t cookie = 0;
    doorbell_addr_t my_bell;
    int nbells;

    if (rank == 0 && !no_doorbell &&
        getrandom (&cookie, sizeof (cookie), GRND_NONBLOCK) != (ssize_t)sizeof (cookie))
        cookie = 0;
    MPI_Bcast (&cookie, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (cookie)
        bell = doorbell_open (getenv ("SLURM_LAUNCH_NODE_IPADDR"), cookie, NULL);
    nbells = bell != NULL;
    doorbell_address (bell, &my_bell);
    if (!(bells = malloc ((size_t)size * sizeof (*bells))))
        leave_nomem ();
    MPI_Allgather (&my_bell, sizeof (my_bell), MPI_BYTE, bells, sizeof (my_bell), MPI_BYTE,
                   MPI_COMM_WORLD);
    MPI_Reduce (rank == 0 ? MPI_IN_PLACE : &nbells, &nbells, 1, MPI_INT, MPI_SUM, 0,
                MPI_COMM_WORLD);
    return nbells;
}

/* --topology: the site's tree over the hosts, read by rank 0 (*sitep),
 * and the pairs that measure its levels, in rounds, for every rank
 * (*pairsp).  Their number.
 */
static int site_levels (int m, const char *names, const int *leader, topo_t **sitep,
                        pairs_t **pairsp)
{
    int max = 4 * m + TOPOLOGY_PAIRS * TOPOCONF_LEVELS, nsite = 0;
    pairs_t *site_pairs = malloc ((size_t)max * sizeof (*site_pairs));
    tm_error_t e = {""};

    if (!site_pairs)
        leave_nomem ();
    if (rank == 0) {
        char **hn = malloc ((size_t)m * sizeof (*hn));
        int n = m;
        topoconf_level_t lv[TOPOCONF_LEVELS];
        if (!hn)
            leave_nomem ();
        for (int h = 0; h < m; h++)
            hn[h] = (char *)names + (size_t)leader[h] * NAME_LEN;
        *sitep = topoconf_read (topology, &n, &hn, lv, &e);
        nsite = *sitep ? topoconf_pairs (*sitep, TOPOLOGY_PAIRS, site_pairs, max, &e) : -1;
        if (nsite > 0 && pairs_rounds (m, site_pairs, nsite, &e) < 0)
            nsite = -1;
        free (hn);
    }
    MPI_Bcast (&nsite, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (nsite < 0)
        leave (EXIT_FAIL, "%s", e.text);
    MPI_Bcast (site_pairs, 2 * nsite, MPI_INT, 0, MPI_COMM_WORLD);
    *pairsp = site_pairs;
    return nsite;
}

/* The pairs of hosts measured, the diagonal's too (rank 0's count, on
 * every rank). */
static int count_measured (int m, const int *measured)
{
    int n = 0;

    for (int a = 0; a < m; a++)
        for (int b = a; b < m; b++)
            n += measured[(size_t)a * (size_t)m + (size_t)b] > 0;
    MPI_Bcast (&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return n;
}

/* Whether the sampling plan left pairs out (rank 0's answer).  One that
 * measured every pair after all (names that do not follow the switches)
 * is looked at again as the full plan is, and its tree inferred after
 * that (measure_sampled made none).
 */
static bool left_pairs_out (int m, const int *measured)
{
    if (rank != 0)
        return true;
    for (int a = 0; a < m; a++)
        for (int b = a + 1; b < m; b++)
            if (measured[(size_t)a * (size_t)m + (size_t)b] <= 0)
                return true;
    return false;
}

/* The first measurements in order (measure_pairs) into pairs: intra-node
 * pairs first, then the pairs that measure the site's levels, or, when
 * every pair is measured (all), the pairs of node leaders round by round;
 * the sampling plan asks for its own later.  Their number.
 */
static int first_pairs (int m, const int *leader, const int *second, const pairs_t *site_pairs,
                        int nsite, int all, int *peer, pair_t *pairs)
{
    int npairs = 0;

    for (int h = 0; h < m; h++)
        if (second[h] != -1)
            pairs[npairs++] = (pair_t){.init = leader[h], .resp = second[h], .a = h, .b = h};
    for (int j = 0; j < nsite; j++)
        pairs[npairs++] = (pair_t){.init = leader[site_pairs[j].a],
                                   .resp = leader[site_pairs[j].b],
                                   .a = site_pairs[j].a,
                                   .b = site_pairs[j].b};
    for (int round = 0; all && round < schedule_rounds (m); round++) {
        schedule_round (m, round, peer);
        for (int h = 0; h < m; h++)
            if (peer[h] > h)
                pairs[npairs++] =
                    (pair_t){.init = leader[h], .resp = leader[peer[h]], .a = h, .b = peer[h]};
    }
    return npairs;
}

int main (int argc, char **argv)
{
    netmap_params_t p;
    int verbose = 0;
    char why[512];

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    netmap_params_default (&p);
    const char *out = parse_args (argc, argv, &p, &verbose);

    signal (SIGALRM, on_alarm);
    alarm ((unsigned)ceil (p.budget_s));
    double t_start = MPI_Wtime ();
    int ok = rank != 0 || output_writable (out, why, sizeof (why)) == 0;
    MPI_Bcast (&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok)
        leave (EXIT_FAIL, "%s", why);

    char *names;
    int *leader, *second, m = gather_hosts (&names, &leader, &second);
    topo_params_t tp;
    topo_params_default (&tp);
    tp.lat_levels = !on_shared_machine (m, leader);
    int nbells = open_doorbells ();

    char *buf = calloc (1, p.lat_bytes > p.bw_bytes ? p.lat_bytes : p.bw_bytes);
    char *stream = malloc (p.bw_bytes * (size_t)p.bw_messages);
    double *rtt = malloc ((size_t)p.max_samples * sizeof (double));
    size_t mm = (size_t)m * (size_t)m;
    /* On rank 0, FIGS m*m matrices: latency, CI, bandwidth, samples, lead
     * only; and how many times each pair was measured. */
    double *all = calloc (FIGS * mm, sizeof (double));
    int *measured = calloc (mm, sizeof (int)), *peer = malloc ((size_t)m * sizeof (int));
    int sampled =
        !topology && (plan == PLAN_SAMPLED || (plan == PLAN_AUTO && m >= PLAN_AUTO_HOSTS));
    if (!buf || !stream || !rtt || !all || !measured || !peer)
        leave_nomem ();

    topo_t *site = NULL;
    pairs_t *site_pairs = NULL;
    int nsite = topology ? site_levels (m, names, leader, &site, &site_pairs) : 0;

    int nbatches = 0;
    pair_t *pairs = calloc ((size_t)m * (size_t)(m + 1) / 2, sizeof (*pairs));
    double *res = malloc (((size_t)m * (size_t)(m + 1) / 2 * FIGS + 1) * sizeof (*res));
    if (!pairs || !res)
        leave_nomem ();
    int npairs =
        first_pairs (m, leader, second, site_pairs, nsite, !sampled && !topology, peer, pairs);
    free (site_pairs);

    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = MPI_Wtime ();
    measure_pairs (pairs, npairs, &p, buf, stream, rtt, res);
    if (rank == 0)
        store (all, measured, m, pairs, npairs, res, 0);
    topo_t *topo = NULL;
    tm_error_t serr = {""};
    if (sampled) {
        ok = measure_sampled (m, leader, &p, &tp, buf, stream, rtt, all, measured, &topo, &nbatches,
                              &serr) == 0;
        MPI_Bcast (&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!ok)
            leave (EXIT_FAIL, "sampling plan: %s", serr.text);
    }
    int nmeasured = count_measured (m, measured);

    int nd = remeasure (m, nmeasured, sampled && left_pairs_out (m, measured), MPI_Wtime () - t0,
                        p.budget_s - (MPI_Wtime () - t_start), &tp, site, leader, pairs, &p, buf,
                        stream, rtt, res, all, measured);
    free (pairs);
    free (res);
    double measure_s = MPI_Wtime () - t0, max_measure_s;

    MPI_Reduce (&measure_s, &max_measure_s, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    /* The nodes' insides, apart from measure_s: the netmap's bound counts
     * the pairs of nodes only. */
    inside_t **insides = calloc ((size_t)m, sizeof (*insides));
    if (!insides)
        leave_nomem ();
    if (inside)
        measure_inside (m, leader, second, names, &p, t_start, buf, stream, rtt, insides);
    slots_t **slots = gather_slots (m, leader, names);

    measured_t r = {.m = m,
                    .nmeasured = nmeasured,
                    .ndoubt = nd,
                    .nbatches = nbatches,
                    .nbells = nbells,
                    .sampled = sampled,
                    .names = names,
                    .leader = leader,
                    .second = second,
                    .all = all,
                    .measured = measured,
                    .insides = insides,
                    .slots = slots,
                    .measure_s = max_measure_s};
    int rc = finish (&r, &p, &tp, &site, &topo, t_start, out, verbose);
    free (names);
    free (leader);
    free (second);
    free (buf);
    free (stream);
    free (rtt);
    free (all);
    free (peer);
    free (measured);
    free_nodes (m, insides, slots);
    topo_destroy (topo);
    topo_destroy (site);
    doorbell_close (bell);
    free (bells);
    MPI_Finalize ();
    return rc;
}
