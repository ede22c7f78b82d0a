/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of place_decide without Slurm, as any user: the Slurm
 * look-ups of place_in_t are callbacks of the test's, the job's
 * netmap is put ahead in the netmap directory (job<ID>.json, the user's,
 * younger than probe_ttl) so that no probe runs, or "srun" is a script of
 * the test's that writes one; profiles are t/fixtures' or made here.
 * Every file lives in one scratch directory, removed at the end.
 *
 * topomap.so(8), FALLING BACK: which of its lines place_decide reaches
 * here, and in which test.
 *
 *   reached here
 *     a layout srun's options make unpredictable (plane distribution,
 *     node count ranges)                        test_step
 *     a step on one node                        test_step
 *     an executable that links no MPI topomap knows (no recording)
 *                                               test_record
 *     no profile (one is recorded), a corrupt one, or one recorded for
 *     another task count                        test_profile, test_record
 *     a cache that cannot be written (no netmap directory, no profile
 *     cache, a netmap directory at its bounds)  test_netmap_cached,
 *                                               test_profile_named,
 *                                               test_record
 *     a probe, recorder or site profile directory others could have
 *     written                                   test_probe, test_record,
 *                                               test_profile_named
 *     a SLURM_JOB_ID that is not a number       test_step
 *     the probe missing, failing, or outliving probe_timeout
 *                                               test_probe (srun is a
 *                                               script of the test's)
 *     a mapper error                            test_profile (a profile
 *                                               of no traffic)
 *     a plan predicted to gain less than min_gain in total or at the
 *     busiest link                              test_gain, test_record
 *     a --mpi=pmi2 step whose plan PMI cannot describe, nor a plan of
 *     consecutive ranks a node that gains min_gain
 *                                               test_pmi2
 *     a block step whose order Slurm takes from a topology whose order
 *     topomap does not predict                  test_step (order_unknown,
 *                                               which the plugin fills)
 *
 *   not reached here: the SPANK plugin (spank/topomap.c, post_opt_local)
 *   decides these from srun's options and environment before it calls
 *   place_decide, which has no input for them; they need srun in a job
 *     srun outside an allocation; srun inside a job step; a SLURM_HOSTFILE
 *     the user set; -w/--nodelist, -m/--distribution, -x or -r given;
 *     --segment (25.05) or --async (26.05) given; a heterogeneous step
 *   Strict mode's failing of the step and --topo-map=off are the
 *   plugin's too (pass () exits srun on any PLACE_DEFAULT; off returns
 *   before place_decide): test_modes checks what place_decide gives them.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/exeid.h"
#include "lib/history.h"
#include "lib/layout.h"
#include "lib/netmap.h"
#include "lib/mapper.h"
#include "lib/place.h"
#include "lib/profile.h"
#include "lib/profile_cache.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"

#ifndef TOPOMAP_FIXTURES
#error "TOPOMAP_FIXTURES: the directory of t/fixtures"
#endif
#define HALO   TOPOMAP_FIXTURES "/halo2d-16.json"
#define NET    TOPOMAP_FIXTURES "/net-2sw8.json"
#define INSIDE TOPOMAP_FIXTURES "/net-inside.json"
#define PAIRS  TOPOMAP_FIXTURES "/pairs-128.json"
#define RAILS  TOPOMAP_FIXTURES "/net-rails.json"
#define RING8  TOPOMAP_FIXTURES "/ring-8.json"

#define OTHER_UID 65534
#define JOB       "42"

/* What place_decide said under srun -v, and always. */
static char said[65536], noted[8192];

static void __attribute__ ((format (printf, 3, 0)))
append (char *buf, size_t size, const char *fmt, va_list ap)
{
    size_t len = strlen (buf);

    if (len + 2 >= size)
        return;
    vsnprintf (buf + len, size - len - 1, fmt, ap);
    strcat (buf, "\n");
}

static void __attribute__ ((format (printf, 1, 2))) say (const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    append (said, sizeof (said), fmt, ap);
    va_end (ap);
}

static void __attribute__ ((format (printf, 1, 2))) note (const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    append (noted, sizeof (noted), fmt, ap);
    va_end (ap);
}

/* Whether line is one whole line of buf. */
static int has_line (const char *buf, const char *line)
{
    size_t n = strlen (line);

    for (const char *p = buf; (p = strstr (p, line)); p++)
        if ((p == buf || p[-1] == '\n') && p[n] == '\n')
            return 1;
    return 0;
}

/* Slurm's job table: job 5 ended, every other pending or running. */
static int job_alive (void *arg, unsigned long id)
{
    (void)arg;
    return id != 5;
}

/* The site's topology (site_netmap): what site_mode says; by default
 * (topology "") only where Slurm has a tree (slurm_tree), as the plugin's
 * does. */
enum { SITE_NETMAP, SITE_BAD, SITE_NODATA, SITE_SMALL };
static int site_mode, slurm_tree, site_asked;

static netmap_t *site_netmap (const char *topology, const layout_alloc_t *alloc, char *path,
                              size_t len, char **text, tm_error_t *errp)
{
    (void)alloc;
    site_asked++;
    if (!topology[0] && !slurm_tree) {
        errprintf (errp, "Slurm has no topology of switches or blocks");
        errno = ENOENT;
        return NULL;
    }
    topology = topology[0] ? topology : "auto";
    snprintf (path, len, "%s", "/etc/slurm/topology.conf");
    if (site_mode == SITE_NETMAP)
        return netmap_read (NET, errp);
    if (site_mode == SITE_SMALL)
        return netmap_read (INSIDE, errp);
    if (site_mode == SITE_NODATA) {
        *text = strdup ("SwitchName=s1 Nodes=n[1-8]\n");
        errprintf (errp, "/etc/slurm/topology.conf gives no figures of level 1");
        errno = ENODATA;
        return NULL;
    }
    errprintf (errp, "%s: line 3: unknown key 'Linkspeed'", topology);
    errno = EINVAL;
    return NULL;
}

/* The test's state: the directories, and one step's input. */
static char netmaps[512], cache[512], recdir[512], bin[512];
static char netmap_file[600], fake_srun[600], probe[600], mpiapp[600];
static int netmap_fd = -1, cache_fd = -1;
static conf_t c;
static conf_profile_t prof;
static layout_alloc_t *alloc;
static layout_request_t req;
static place_in_t in;
static place_out_t out;

static int copy_file (const char *from, const char *to, mode_t mode)
{
    size_t len;
    char *text = read_file (from, &len);
    int rc = text ? write_file (to, text, len, mode) : -1;

    free (text);
    return rc;
}

/* The allocation: nnodes nodes n1.. of cpus (SLURM_JOB_CPUS_PER_NODE). */
static void set_alloc (int nnodes, const char *cpus)
{
    char names[16][8];
    const char *nodes[16];

    for (int i = 0; i < nnodes; i++) {
        snprintf (names[i], sizeof (names[i]), "n%d", i + 1);
        nodes[i] = names[i];
    }
    layout_alloc_destroy (alloc);
    alloc = layout_alloc_create (nnodes, nodes, cpus, NULL);
    in.alloc = alloc;
}

/* The job's netmap, measured now, from the fixture at from. */
static void put_netmap (const char *from)
{
    copy_file (from, netmap_file, 0600);
}

/* A fresh step: 16 tasks, 2 a node on n1..n8, the halo profile by its
 * path, the 8-node netmap cached, no binding, auto. */
static void step (void)
{
    conf_default (&c, "", "", recdir);
    memset (&prof, 0, sizeof (prof));
    prof.mode = PROFILE_MODE_PATH;
    snprintf (prof.value, sizeof (prof.value), "%s", HALO);
    set_alloc (8, "2(x8)");
    req = (layout_request_t){.ntasks = 16, .ntasks_set = 1, .nodes_min = 8};
    in = (place_in_t){
        .conf = &c,
        .map = CONF_MAP_AUTO,
        .profile = &prof,
        .jobid = JOB,
        .alloc_nodelist = "n[1-8]",
        .alloc = alloc,
        .req = &req,
        .order_name = "allocation order",
        .exe = NULL,
        .exe_error = "no such file",
        .user_cache = cache,
        .user_cache_fd = cache_fd,
        .user_cache_error = "",
        .netmap_dir = netmaps,
        .netmap_dirfd = netmap_fd,
        .netmap_dir_error = "",
        .job_alive = job_alive,
        .uid = getuid (),
        .srun = fake_srun,
        .mpi = NULL,
        .slurm_mpi = NULL,
        .site_netmap = site_netmap,
        .say = say,
        .note = note,
        .cpu_bind = NULL,
        .task_affinity = 0,
    };
    put_netmap (NET);
    said[0] = noted[0] = '\0';
}

/* place_decide, and what it left: a plan's hostfile is checked and
 * removed. */
static int hostfile_lines;

static void decide (void)
{
    size_t len;
    char *text;

    place_decide (&in, &out);
    hostfile_lines = -1;
    if (out.hostfile[0] && (text = read_file (out.hostfile, &len))) {
        hostfile_lines = 0;
        for (size_t i = 0; i < len; i++)
            hostfile_lines += text[i] == '\n';
        free (text);
        unlink (out.hostfile);
    }
}

/* out's gains as place_decide's lines give them: each with its interval
 * over the netmaps drawn from the spread, where there were any:
 * "G% (lo% to hi%) over srun's layout, L% (lo% to hi%) at the busiest link".
 */
static const char *gains_text_as (const char *over)
{
    static char buf[256];

    if (out.draws)
        snprintf (buf, sizeof (buf),
                  "%.1f%% (%.1f%% to %.1f%%)%s, %.1f%% (%.1f%% to %.1f%%) at the busiest link",
                  100 * out.gain, 100 * out.gain_lo, 100 * out.gain_hi, over, 100 * out.link_gain,
                  100 * out.link_lo, 100 * out.link_hi);
    else
        snprintf (buf, sizeof (buf), "%.1f%%%s, %.1f%% at the busiest link", 100 * out.gain, over,
                  100 * out.link_gain);
    return buf;
}

static const char *gains_text (void)
{
    return gains_text_as (" over srun's layout");
}

static int is_default (int failed, const char *reason)
{
    if (out.action == PLACE_DEFAULT && out.failed == failed && !strcmp (out.reason, reason))
        return 1;
    diag ("action %d failed %d reason: %s", out.action, out.failed, out.reason);
    diag ("expected failed %d: %s", failed, reason);
    return 0;
}

/* The reason of an applied plan of ntasks on nnodes, up to its time. */
static int is_applied (int ntasks, int nnodes, int bound)
{
    char want[512];
    int n = snprintf (want, sizeof (want), "placed %d ranks on %d nodes%s, predicted gain %s (",
                      ntasks, nnodes, bound ? " and bound them inside" : "", gains_text_as (""));

    if (out.action == PLACE_APPLY && !out.failed && !strncmp (out.reason, want, (size_t)n) &&
        strstr (out.reason, " s)") && hostfile_lines == ntasks &&
        place_plan_name (strrchr (out.hostfile, '/') + 1, JOB))
        return 1;
    diag ("action %d reason: %s (hostfile %s, %d lines)", out.action, out.reason, out.hostfile,
          hostfile_lines);
    return 0;
}

static void test_step (void)
{
    step ();
    in.jobid = "4x2";
    decide ();
    ok (is_default (1, "SLURM_JOB_ID '4x2' is not a job id"),
        "a SLURM_JOB_ID that is not a number: srun's layout, failed");

    step ();
    req.distribution = "plane=4";
    decide ();
    ok (is_default (0, "srun's layout cannot be predicted: distribution 'plane=4' is not "
                       "predicted"),
        "a plane distribution: srun's layout cannot be predicted");

    step ();
    req.nodes_min = 4;
    req.nodes_max = 8;
    decide ();
    ok (is_default (0, "srun's layout cannot be predicted: node count range 4-8: srun's choice "
                       "is not predicted"),
        "a node count range: srun's layout cannot be predicted");

    step ();
    req.tasks_per_node = -3;
    decide ();
    ok (out.action == PLACE_DEFAULT && out.failed &&
            !strncmp (out.reason, "the step's geometry: ", 21),
        "a request srun could not have made: failed: %s", out.reason);

    step ();
    in.order_unknown = "TopologyParam=SwitchAsNodeRank reorders the nodes";
    decide ();
    ok (is_default (0, "srun's layout cannot be predicted: TopologyParam=SwitchAsNodeRank "
                       "reorders the nodes"),
        "a block step in an order topomap does not predict: srun's layout");

    step ();
    req.ntasks = 2;
    req.nodes_min = 1;
    decide ();
    ok (is_default (0, "the step runs on one node") && out.ntasks == 2,
        "a step on one node: srun's layout");
    ok (has_line (said, "topomap: step of 2 tasks on 1 nodes (block): n1:2"),
        "srun -v names the step srun would run");
}

static void test_profile (void)
{
    char path[PATH_MAX], want[PATH_MAX + 128];
    profile_entry_t t[] = {{0, 1, 1, 100}, {1, 0, 1, 100}};
    profile_t *p;

    step ();
    prof.mode = PROFILE_MODE_OFF;
    decide ();
    ok (is_default (0, "no profile (--topo-profile=off)"), "--topo-profile=off: srun's layout");

    step ();
    snprintf (prof.value, sizeof (prof.value), "%s", in_dir (path, "none.json"));
    decide ();
    ok (out.action == PLACE_DEFAULT && out.failed && strstr (out.reason, path) &&
            strstr (out.reason, "No such file"),
        "a profile file that is not there: failed, named: %s", out.reason);

    step ();
    in_dir (path, "corrupt.json");
    write_file (path, "{\"kind\": \"topomap-profile\", \"schema\": 1, \"ntasks\": 16,", 50, 0644);
    snprintf (prof.value, sizeof (prof.value), "%s", path);
    decide ();
    ok (out.action == PLACE_DEFAULT && out.failed && !strncmp (out.reason, path, strlen (path)),
        "a corrupt profile: failed, named: %s", out.reason);
    unlink (path);

    step ();
    in_dir (path, "two.json");
    p = profile_create (2, 2, t, NULL);
    profile_write (p, path, 0644, NULL);
    profile_destroy (p);
    snprintf (prof.value, sizeof (prof.value), "%s", path);
    decide ();
    ok (is_default (1, "the profile was recorded for 2 tasks, this step has 16"),
        "a profile of another task count: failed, saying both");
    unlink (path);

    step ();
    in_dir (path, "empty.json");
    p = profile_create (16, 0, NULL, NULL);
    profile_write (p, path, 0644, NULL);
    profile_destroy (p);
    snprintf (prof.value, sizeof (prof.value), "%s", path);
    decide ();
    ok (is_default (1, "the mapper: profile: empty, no point-to-point traffic between its 16 "
                       "ranks"),
        "a profile of no traffic: the mapper's error, failed");
    unlink (path);

    /* a NAME in the user's cache, then in the site directory */
    step ();
    prof.mode = PROFILE_MODE_NAME;
    snprintf (prof.value, sizeof (prof.value), "halo");
    decide ();
    snprintf (want, sizeof (want), "no profile named halo in %s", cache);
    ok (is_default (1, want), "--topo-profile=NAME that is nowhere: %s", out.reason);
}

static void test_profile_named (void)
{
    char path[PATH_MAX], site[PATH_MAX], want[2 * PATH_MAX];

    step ();
    prof.mode = PROFILE_MODE_NAME;
    snprintf (prof.value, sizeof (prof.value), "halo");
    copy_file (HALO, in_dir (path, "cache/halo.json"), 0600);
    decide ();
    ok (is_applied (16, 8, 0), "--topo-profile=halo of the user's cache: the plan applied");
    unlink (path);

    step ();
    prof.mode = PROFILE_MODE_NAME;
    snprintf (prof.value, sizeof (prof.value), "halo");
    in_dir (site, "site-profiles");
    mkdir (site, 0755);
    chmod (site, 0755);
    snprintf (c.site_profiles, sizeof (c.site_profiles), "%s", site);
    copy_file (HALO, in_dir (path, "site-profiles/halo.json"), 0644);
    decide ();
    ok (is_applied (16, 8, 0), "--topo-profile=halo of the site's directory: the plan applied");

    step ();
    prof.mode = PROFILE_MODE_NAME;
    snprintf (prof.value, sizeof (prof.value), "halo");
    snprintf (c.site_profiles, sizeof (c.site_profiles), "%s", site);
    chmod (site, 0777);
    decide ();
    snprintf (want, sizeof (want), "site_profiles=%s is not safe to read: ", site);
    ok (out.action == PLACE_DEFAULT && out.failed && !strncmp (out.reason, want, strlen (want)) &&
            strstr (out.reason, "0777"),
        "a site profile directory others may write: not read, failed: %s", out.reason);
    chmod (site, 0755);
    unlink (path);
    rmdir (site);

    step ();
    prof.mode = PROFILE_MODE_NAME;
    snprintf (prof.value, sizeof (prof.value), "halo");
    in.user_cache_fd = -1;
    in.user_cache_error = "/home/u/.cache/topomap/profiles: owned by uid 65534";
    decide ();
    ok (is_default (1, "the profile cache /home/u/.cache/topomap/profiles: owned by uid 65534"),
        "a profile cache that cannot be opened: failed, saying why");
}

/* A netmap whose pairs are alike but measured 5 to 22 MB/s (pairs that
 * shared an uplink inside a probe round): the plan chases the pairs that
 * measured fast and is predicted to gain, but not across the spread of
 * pairs alike, so srun's layout is kept, saying why (issue 59).
 */
static void test_unsure (void)
{
    uint64_t x = 88172645463325252u;
    netmap_t *nm = netmap_read (NET, NULL);
    char want[768];

    topo_destroy (nm->topo);
    nm->topo = NULL;
    for (int a = 0; a < nm->n; a++)
        for (int b = 0; b < nm->n; b++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            if (a == b)
                continue;
            NETMAP_AT (nm, bw_MBps, a, b) = 5 + 17 * (double)(x % 1000) / 1000;
            NETMAP_AT (nm, lat_us, a, b) = 50;
            NETMAP_AT (nm, measured, a, b) = 1;
        }
    step ();
    ok (netmap_write (nm, netmap_file, 0600, NULL) == 0, "a netmap of alike pairs, noisy");
    in.say = say;
    decide ();
    snprintf (want, sizeof (want),
              "the plan's predicted gain, %s, is not significant: min_gain in %d of %d netmaps "
              "drawn from the spread of pairs alike, %d needed",
              gains_text_as (""), out.wins, out.draws, (int)ceil (MAP_ODDS_LEVEL * out.draws));
    ok (is_default (0, want) && out.gain >= c.min_gain && out.link_gain >= c.min_gain &&
            out.draws == MAP_ODDS_DRAWS,
        "a plan predicted to gain %.1f%% from pairs that measured fast: srun's layout kept",
        100 * out.gain);
    ok (strstr (said, "topomap: the plan and srun's layout priced again on 200 netmaps drawn") !=
            NULL,
        "srun -v gives the gain's interval over the draws");
    netmap_destroy (nm);
}

static void test_gain (void)
{
    char want[512];

    step ();
    decide ();
    ok (is_applied (16, 8, 0) && out.ntasks == 16 && out.gain >= c.min_gain &&
            out.link_gain >= c.min_gain && !out.pmi_mapping[0] && !out.cpu_bind[0],
        "the halo on two groups of switches: the plan applied: %s", out.reason);
    ok (strstr (said, "topomap: netmap ") && strstr (said, ", measured "),
        "srun -v: the cached netmap is used, no probe");

    step ();
    c.min_gain = 0.99;
    decide ();
    snprintf (want, sizeof (want),
              "the plan's predicted gain, %.1f%%, %.1f%% at the busiest link, is below min_gain "
              "(99.0%%)",
              100 * out.gain, 100 * out.link_gain);
    ok (is_default (0, want) && out.gain > 0, "a gain below min_gain: srun's layout kept: %s",
        out.reason);

    step ();
    in.map = CONF_MAP_STRICT;
    c.min_gain = 0.99;
    decide ();
    ok (is_default (0, want),
        "--topo-map=strict: place_decide's outcome as auto (the plugin fails the step)");

    step ();
    in.map = CONF_MAP_DRYRUN;
    decide ();
    ok (out.action == PLACE_DRYRUN && !out.hostfile[0] && hostfile_lines == -1,
        "--topo-map=dry-run: PLACE_DRYRUN, no hostfile");
    snprintf (want, sizeof (want), "dry run: the topomap plan would gain %s (would be applied)",
              gains_text ());
    ok (!strcmp (out.reason, want) && out.draws == MAP_ODDS_DRAWS &&
            out.wins >= MAP_ODDS_LEVEL * out.draws,
        "and says what would be applied, with the gain's interval over the draws: %s", out.reason);

    step ();
    in.map = CONF_MAP_DRYRUN;
    c.min_gain = 0.99;
    decide ();
    snprintf (want, sizeof (want), "dry run: the topomap plan would gain %s (below min_gain)",
              gains_text ());
    ok (out.action == PLACE_DRYRUN && !strcmp (out.reason, want),
        "a dry run below min_gain says so: %s", out.reason);

    step ();
    in.map = CONF_MAP_LATENCY;
    decide ();
    ok (out.action == PLACE_APPLY || (out.action == PLACE_DEFAULT && !out.failed),
        "--topo-map=latency plans by latency alone: %s", out.reason);
    step ();
    in.map = CONF_MAP_BANDWIDTH;
    decide ();
    ok (out.action == PLACE_APPLY || (out.action == PLACE_DEFAULT && !out.failed),
        "--topo-map=bandwidth by bandwidth alone: %s", out.reason);
}

static void test_modes (void)
{
    char strict[sizeof (out.reason)];

    /* Strict mode: the same fallback, its fault flag as auto's; the
     * plugin's pass () ends srun on any PLACE_DEFAULT. */
    step ();
    in.map = CONF_MAP_STRICT;
    req.distribution = "plane=4";
    decide ();
    snprintf (strict, sizeof (strict), "%s", out.reason);
    ok (out.action == PLACE_DEFAULT && !out.failed,
        "--topo-map=strict: a fallback is PLACE_DEFAULT, which the plugin turns into a failure");
    step ();
    req.distribution = "plane=4";
    decide ();
    ok (!strcmp (out.reason, strict), "with the reason auto gives: %s", strict);

    /* --topo-map=off: the plugin returns before place_decide; given to it,
     * it plans nothing either. */
    conf_map_mode_t m = CONF_MAP_AUTO;
    ok (conf_map_mode_parse ("off", &m, NULL) == 0 && m == CONF_MAP_OFF,
        "--topo-map=off is CONF_MAP_OFF, which the plugin stops at before place_decide");
    step ();
    in.map = CONF_MAP_OFF;
    decide ();
    ok (is_default (0, "--topo-map=off") && hostfile_lines == -1,
        "given to place_decide, --topo-map=off keeps srun's layout and plans nothing");
}

static void test_netmap_cached (void)
{
    char want[PATH_MAX + 256], path[PATH_MAX + 64], owner[64];
    uid_t other;
    struct timespec old[2] = {{.tv_sec = time (NULL) - 7200}, {.tv_sec = time (NULL) - 7200}};

    /* Each of these probes; there is no probe (plugstack probe=""). */
    step ();
    put_netmap (INSIDE);
    decide ();
    ok (is_default (1, "no netmap: no probe for --mpi=pmix: this topomap was built without "
                       "Open MPI"),
        "a cached netmap without the step's nodes, and no probe: failed");
    ok (has_line (said, "topomap: cached netmap not used: has no node n3"),
        "srun -v says why the cached netmap was not used");

    step ();
    utimensat (AT_FDCWD, netmap_file, old, 0);
    decide ();
    ok (out.action == PLACE_DEFAULT && strstr (out.reason, "no netmap: no probe for"),
        "a netmap older than probe_ttl is measured again");

    step ();
    c.probe_ttl = 0;
    decide ();
    ok (out.action == PLACE_DEFAULT && strstr (out.reason, "no netmap: no probe for"),
        "probe_ttl=0: never reused");

    step ();
    other = getuid () == OTHER_UID ? OTHER_UID - 1 : OTHER_UID;
    snprintf (owner, sizeof (owner), "owned by uid %lu", (unsigned long)other);
    if (chown (netmap_file, other, other) < 0) {
        ok (1, "# SKIP a netmap of another user's needs root, to give it away");
    } else {
        decide ();
        ok (out.action == PLACE_DEFAULT && strstr (out.reason, "no netmap: no probe for"),
            "a cached netmap of another user's is not read");
        snprintf (want, sizeof (want), "topomap: cached netmap %s/job%s.json: ", netmaps, JOB);
        ok (strstr (said, want) && strstr (said, owner) &&
                strstr (said, ": ignored, probing again"),
            "srun -v says it is ignored");
    }
    unlink (netmap_file);

    step ();
    write_file (netmap_file, "{\"schema\": 1,", 13, 0600);
    decide ();
    ok (out.action == PLACE_DEFAULT && strstr (said, "topomap: cached netmap not used: ") &&
            strstr (out.reason, "no netmap: no probe for"),
        "a corrupt cached netmap is measured again");

    /* The netmap directory. */
    step ();
    in.netmap_dirfd = -1;
    in.netmap_dir_error = "/var/cache/topomap/0: mode 0777";
    decide ();
    ok (is_default (1, "no netmap: /var/cache/topomap/0: mode 0777"),
        "no netmap directory: failed, saying why");

    /* A job's first step tidies the directory and checks its bounds. */
    step ();
    snprintf (path, sizeof (path), "%s/job%s.json.lock", netmaps, JOB);
    unlink (path);
    for (int i = 0; i < 3; i++) {
        char name[PATH_MAX + 32];
        snprintf (name, sizeof (name), "%s/job%d.json", netmaps, 5 + i);
        write_file (name, "x", 1, 0600);
        utimensat (AT_FDCWD, name, old, 0);
    }
    c.cache_max_files = 4;
    decide ();
    snprintf (want, sizeof (want),
              "no netmap: %s holds 3 files of 0 MiB, the bound is 4 files of 1024 MiB "
              "(cache_max_files, cache_max_mib): no room for this job's netmap",
              netmaps);
    ok (is_default (1, want), "a netmap directory at cache_max_files: failed: %s", out.reason);
    snprintf (want, sizeof (want), "topomap: %s: removed 1 file of finished jobs", netmaps);
    ok (has_line (said, want), "an ended job's files were removed first");
    snprintf (path, sizeof (path), "%s/job6.json", netmaps);
    ok (access (path, F_OK) == 0, "a running job's stay");
    unlink (path);
    snprintf (path, sizeof (path), "%s/job7.json", netmaps);
    unlink (path);
}

static void test_site_topology (void)
{
    char list[4096];

    step ();
    unlink (netmap_file);
    snprintf (c.topology, sizeof (c.topology), "auto");
    site_mode = SITE_NETMAP;
    decide ();
    ok (is_applied (16, 8, 0), "the site's topology.conf with figures: planned, no probe");
    ok (strstr (said, "topomap: netmap of /etc/slurm/topology.conf (topology=auto): ") &&
            strstr (said, " over 8 nodes, no probe"),
        "srun -v says the netmap is the site's");

    step ();
    unlink (netmap_file);
    snprintf (c.topology, sizeof (c.topology), "/etc/slurm/topology.conf");
    site_mode = SITE_BAD;
    decide ();
    ok (has_line (noted, "topomap: topology=/etc/slurm/topology.conf not used: "
                         "/etc/slurm/topology.conf: line 3: unknown key 'Linkspeed'; probing "
                         "every pair"),
        "a site topology that cannot be read: one line always, then the probe");

    step ();
    unlink (netmap_file);
    snprintf (c.topology, sizeof (c.topology), "auto");
    site_mode = SITE_SMALL;
    decide ();
    ok (has_line (noted, "topomap: topology=auto not used: has no node n3; probing every pair") &&
            is_default (1, "no netmap: no probe for --mpi=pmix: this topomap was built without "
                           "Open MPI"),
        "a site topology without the step's nodes: one line always, then the probe");

    step ();
    unlink (netmap_file);
    snprintf (c.topology, sizeof (c.topology), "auto");
    site_mode = SITE_NODATA;
    decide ();
    ok (has_line (said, "topomap: topology=auto: /etc/slurm/topology.conf gives no figures of "
                        "level 1; the probe measures its links") &&
            !noted[0],
        "a site tree without figures: the probe is to measure its levels");
    list_dir (netmaps, list, sizeof (list));
    ok (!strstr (list, ".topology.conf"), "Slurm's topology written for the probe is removed: %s",
        list);

    /* topology unset: Slurm's tree where it has one, nothing said where
     * it has none; topology=none: never asked */
    step ();
    unlink (netmap_file);
    c.topology[0] = '\0';
    site_mode = SITE_NODATA;
    decide ();
    ok (!strstr (said, "topology") && !noted[0], "by default, no Slurm tree: nothing said");
    step ();
    unlink (netmap_file);
    c.topology[0] = '\0';
    slurm_tree = 1;
    decide ();
    ok (has_line (said, "topomap: topology=auto (the default): /etc/slurm/topology.conf gives no "
                        "figures of level 1; the probe measures its links") &&
            !noted[0],
        "by default, Slurm's tree: the probe is to measure its links");
    step ();
    unlink (netmap_file);
    c.topology[0] = '\0';
    site_mode = SITE_BAD;
    decide ();
    ok (has_line (said, "topomap: topology=auto (the default) not used: auto: line 3: unknown key "
                        "'Linkspeed'; probing every pair") &&
            !noted[0],
        "by default, Slurm's tree unread: srun -v says why, nothing else");
    step ();
    unlink (netmap_file);
    snprintf (c.topology, sizeof (c.topology), "none");
    site_mode = SITE_NETMAP;
    site_asked = 0;
    decide ();
    ok (site_asked == 0 && !strstr (said, "topology") &&
            is_default (1, "no netmap: no probe for --mpi=pmix: this topomap was built without "
                           "Open MPI"),
        "topology=none: Slurm's tree not asked for, the probe infers one");
    slurm_tree = 0;
}

static int write_script (const char *path, const char *text)
{
    return write_file (path, text, strlen (text), 0755);
}

static void test_probe (void)
{
    char script[8192], want[2 * PATH_MAX], mode[600], log[600], args[600], *text;
    char list[4096];
    size_t len;

    snprintf (mode, sizeof (mode), "%s/mode", bin);
    snprintf (args, sizeof (args), "%s/args", bin);
    snprintf (script, sizeof (script),
              "#!/bin/sh\n"
              "# srun of the test's: the probe step as %s says; its arguments,\n"
              "# and the topology file given, into %s\n"
              "echo \"$*\" >%s\n"
              "out=\n"
              "while [ $# -gt 0 ]; do\n"
              "    [ \"$1\" = -o ] && out=$2\n"
              "    [ \"$1\" = --topology ] && cat \"$2\" >>%s\n"
              "    shift\n"
              "done\n"
              "case $(cat %s) in\n"
              "ok) cat %s >\"$out\" ;;\n"
              "small) cat %s >\"$out\" ;;\n"
              "bad) echo '{' >\"$out\" ;;\n"
              "fail) echo 'probe: MPI_Init failed on n3'; exit 3 ;;\n"
              "hang) exec sleep 60 ;;\n"
              "esac\n",
              mode, args, args, args, mode, NET, INSIDE);
    write_script (fake_srun, script);
    write_script (probe, "#!/bin/sh\nexit 0\n");
    snprintf (log, sizeof (log), "%s/job%s.json.log", netmaps, JOB);

    step ();
    unlink (netmap_file);
    snprintf (c.probe, sizeof (c.probe), "%s", probe);
    write_file (mode, "ok\n", 3, 0644);
    decide ();
    ok (is_applied (16, 8, 0), "no cached netmap: the probe step measures one, the plan applied");
    snprintf (want, sizeof (want), "topomap: probing 8 nodes with %s over --mpi=pmix", probe);
    ok (has_line (said, want), "srun -v says the probe runs");
    ok (access (netmap_file, F_OK) == 0, "its netmap is kept for the job's next steps");

    /* A plan that may bind, over the site's tree without figures: two
     * ranks a node read the nodes, the probe measures the tree's levels. */
    step ();
    unlink (netmap_file);
    snprintf (c.probe, sizeof (c.probe), "%s", probe);
    snprintf (c.topology, sizeof (c.topology), "auto");
    site_mode = SITE_NODATA;
    in.task_affinity = 1;
    decide ();
    text = read_file (args, &len);
    snprintf (want, sizeof (want),
              "--overlap --job-name=topomap-probe -N 8 -n 16 --ntasks-per-node=2 "
              "--cpus-per-task=1 --cpu-bind=none --mpi=pmix --nodelist=n[1-8] --quiet %s -o %s/"
              ".job" JOB ".json.probe.",
              probe, netmaps);
    ok (text && !strncmp (text, want, strlen (want)) && strstr (text, " --plan auto --topology ") &&
            strstr (text, ".topology.conf --inside\nSwitchName=s1 Nodes=n[1-8]\n"),
        "the probe step: two ranks a node of half their CPUs each, the site's tree as a file: "
        "%s",
        text ? text : "(none)");
    free (text);
    ok (is_applied (16, 8, 0) &&
            has_line (said, "topomap: no CPU binding: the netmap knows no node's CPUs"),
        "a probe that read no node's CPUs: the plan across nodes only");

    step ();
    unlink (netmap_file);
    snprintf (c.probe, sizeof (c.probe), "%s", probe);
    write_file (mode, "small\n", 6, 0644);
    decide ();
    ok (is_default (1, "no netmap: the probe's netmap has no node n3") &&
            access (netmap_file, F_OK) < 0,
        "a probe's netmap without the step's nodes: failed, not kept");

    step ();
    unlink (netmap_file);
    snprintf (c.probe, sizeof (c.probe), "%s", probe);
    write_file (mode, "bad\n", 4, 0644);
    decide ();
    snprintf (want, sizeof (want), "no netmap: %s/.job" JOB ".json.probe.", netmaps);
    ok (out.action == PLACE_DEFAULT && out.failed && !strncmp (out.reason, want, strlen (want)) &&
            access (netmap_file, F_OK) < 0,
        "a probe's netmap that is not one: failed, named: %s", out.reason);
    list_dir (netmaps, list, sizeof (list));
    ok (!strstr (list, ".probe."), "and removed: %s", list);
    unlink (args);

    step ();
    unlink (netmap_file);
    snprintf (c.probe, sizeof (c.probe), "%s", probe);
    write_file (mode, "fail\n", 5, 0644);
    decide ();
    snprintf (want, sizeof (want), "no netmap: the probe failed (exit 3), see %s", log);
    ok (is_default (1, want), "a probe that fails, twice: failed: %s", out.reason);
    snprintf (want, sizeof (want), "topomap: the probe failed (exit 3), see %s; probing again",
              log);
    ok (has_line (said, want), "srun -v: it ran once more");
    ok (has_line (said, "topomap:   probe: MPI_Init failed on n3"),
        "srun -v: the end of the probe's log");
    list_dir (netmaps, list, sizeof (list));
    ok (!strstr (list, ".probe."), "the probe's temporary file is removed: %s", list);

    step ();
    unlink (netmap_file);
    snprintf (c.probe, sizeof (c.probe), "%s", probe);
    c.probe_timeout = 1;
    write_file (mode, "hang\n", 5, 0644);
    decide ();
    ok (is_default (1, "no netmap: the probe took longer than 1 s (probe_timeout)"),
        "a probe outliving probe_timeout: killed, failed");

    /* Another step of the job probes: its lock is held. */
    step ();
    unlink (netmap_file);
    c.probe_timeout = 1;
    {
        char lock[700];
        int fd;

        snprintf (lock, sizeof (lock), "%s.lock", netmap_file);
        fd = open (lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        flock (fd, LOCK_EX);
        decide ();
        close (fd);
        snprintf (want, sizeof (want),
                  "no netmap: %s/job" JOB ".json.lock: another step's probe holds the lock",
                  netmaps);
        ok (is_default (1, want), "another step's probe holding the lock past probe_timeout: "
                                  "failed");
    }

    step ();
    unlink (netmap_file);
    snprintf (c.probe, sizeof (c.probe), "%s", probe);
    in.srun = "/nonexistent/srun";
    decide ();
    ok (is_default (1, "no netmap: cannot run /nonexistent/srun"), "srun that cannot run: failed");

    step ();
    unlink (netmap_file);
    snprintf (c.probe, sizeof (c.probe), "%s", probe);
    chmod (probe, 0777);
    decide ();
    snprintf (want, sizeof (want), "no netmap: the probe %s is not safe to run: ", probe);
    ok (out.action == PLACE_DEFAULT && out.failed && !strncmp (out.reason, want, strlen (want)),
        "a probe others may write is not run: %s", out.reason);
    chmod (probe, 0755);

    step ();
    unlink (netmap_file);
    snprintf (c.probe, sizeof (c.probe), "%s/topomap-probe", netmaps);
    decide ();
    snprintf (want, sizeof (want), "no netmap: the probe %s", c.probe);
    ok (out.action == PLACE_DEFAULT && out.failed && !strncmp (out.reason, want, strlen (want)),
        "a probe that is not there: failed, named: %s", out.reason);
    unlink (log);
}

/* An executable that links Open MPI (a stub libmpi.so.40): 0 or -1. */
static int build_mpiapp (void)
{
    char lib[PATH_MAX], src[PATH_MAX];
    const char *shared[] = {"gcc", "-shared", "-fPIC", "-o", lib, src, "-Wl,-soname,libmpi.so.40",
                            NULL};
    const char *link[] = {"gcc", "-o", mpiapp, src, "-Wl,--no-as-needed", lib, NULL};

    in_dir (lib, "bin/libmpi.so.40");
    in_dir (src, "bin/app.c");
    if (write_file (src, "int main (void) { return 0; }\n", 30, 0644) < 0 || run (shared) < 0 ||
        run (link) < 0)
        return -1;
    return 0;
}

/* The guard that learns (history.h): the profile of mpiapp (exe id id)
 * with its check is in the user's cache, and its plan is applied. */
#define ARGS_A "00112233aabbccdd"
#define ARGS_B "ffffffffffffffff"

static void add_run (const char *runs, history_layout_t layout, double s)
{
    history_run_t r = {.time = time (NULL), .layout = layout, .elapsed_s = s};
    tm_error_t e;

    memcpy (r.args, ARGS_A, sizeof (r.args));
    if (history_addat (cache_fd, runs, runs, getuid (), &r, &e) < 0)
        diag ("history_addat: %s", e.text);
}

static void learned_step (const char *args)
{
    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = mpiapp;
    in.args = args;
    decide ();
}

static void test_learned (const char *id)
{
    char runs[NAME_MAX + 1], want[512];
    tm_error_t e;

    history_name (id, 16, runs, sizeof (runs), &e);
    learned_step (NULL);
    ok (is_applied (16, 8, 0) && !out.history[0],
        "without the arguments' hash no runs are named for srun to add to");
    learned_step (ARGS_A);
    ok (is_applied (16, 8, 0) && !strcmp (out.history, runs) &&
            strstr (said, "topomap: runs of this step: 0 placed, 0 under srun's layout: too few "
                          "to compare"),
        "the decision names the profile's runs, for srun to add this run to: %s", out.history);
    /* The two recordings, then a placed run: the next is a control. */
    add_run (runs, HISTORY_RECORDED, 2.0);
    add_run (runs, HISTORY_RECORDED, 2.1);
    add_run (runs, HISTORY_PLAN, 1.5);
    learned_step (ARGS_A);
    ok (out.action == PLACE_DEFAULT && !out.failed &&
            !strncmp (out.reason, "a control run, to time srun's layout against the plan's (gain ",
                      62) &&
            strstr (out.reason, "): 1 placed and 0 under srun's layout so far") &&
            !strcmp (out.history, runs) &&
            strstr (said, "topomap: runs of this step: 1 placed, 0 under srun's layout: too few "
                          "to compare, this one under srun's layout"),
        "faster than the recordings proves nothing: a control run under srun's layout: %s",
        out.reason);
    /* Two controls faster than the two placed runs. */
    add_run (runs, HISTORY_SRUN, 1.0);
    add_run (runs, HISTORY_PLAN, 1.6);
    add_run (runs, HISTORY_SRUN, 1.02);
    learned_step (ARGS_A);
    snprintf (want, sizeof (want),
              "placed runs 1.550 s against srun's 1.010 s (2 and 2 runs): keeping srun's layout, "
              "the plan tried again after %d more runs under it",
              HISTORY_RETRY - 1);
    ok (is_default (0, want) && !strcmp (out.history, runs) &&
            strstr (said, "topomap: runs of this step, placed 1.550 s against srun's layout "
                          "1.010 s (medians of 2 and 2, spread 0.050 s): keeping srun's layout"),
        "placed runs slower than srun's: srun's layout kept, quoting the figures");
    learned_step (ARGS_B);
    ok (is_applied (16, 8, 0), "runs with other arguments are not compared: the plan applied");
    for (int i = 0; i < HISTORY_RETRY; i++)
        add_run (runs, HISTORY_SRUN, 1.0);
    learned_step (ARGS_A);
    ok (is_applied (16, 8, 0) && strstr (said, ": trying the plan again"),
        "after %d runs under srun's layout, the plan is tried again", HISTORY_RETRY);
    write_file (in_dir (want, "x"), "", 0, 0600);
    unlinkat (cache_fd, runs, 0);
    symlinkat (want, cache_fd, runs);
    learned_step (ARGS_A);
    ok (is_applied (16, 8, 0) && strstr (said, "topomap: the runs of the profile not read: ") &&
            strstr (said, "a symbolic link"),
        "runs behind a link are not read, saying so; the plan stands");
    unlinkat (cache_fd, runs, 0);
    unlink (want);
}

static void test_record (void)
{
    char want[2 * PATH_MAX], id[EXEID_MAX + 1], stored[PATH_MAX], recorder[640];
    profile_t *p;
    tm_error_t e;

    step ();
    prof.mode = PROFILE_MODE_AUTO;
    decide ();
    ok (is_default (1, "the step's executable is unknown: no such file"),
        "--topo-profile=auto of an unknown executable: failed, saying why");

    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = bin;
    decide ();
    ok (out.action == PLACE_DEFAULT && out.failed && strstr (out.reason, bin),
        "an executable that is no file: failed, named: %s", out.reason);

    /* The test program links no MPI. */
    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = "/proc/self/exe";
    decide ();
    ok (is_default (1, "no profile of /proc/self/exe for 16 tasks yet, and cannot record one: "
                       "/proc/self/exe: links no MPI library topomap knows (Open MPI or MPICH)"),
        "no profile, of an executable that links no MPI topomap knows: no recording, failed");

    if (build_mpiapp () < 0) {
        ok (1, "# SKIP gcc cannot build a program linking a stub libmpi.so.40");
        return;
    }
    snprintf (recorder, sizeof (recorder), "%s/topomap-recorder-openmpi.so", recdir);

    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = mpiapp;
    decide ();
    snprintf (want, sizeof (want),
              "no profile of %s for 16 tasks yet, and cannot record one: "
              "%s: no openmpi recorder for %s: No such file or directory",
              mpiapp, recorder, mpiapp);
    ok (is_default (1, want), "no recorder for its MPI: failed: %s", out.reason);

    write_file (recorder, "", 0, 0644);
    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = mpiapp;
    decide ();
    snprintf (want, sizeof (want), "no profile of %s for 16 tasks yet: recording one", mpiapp);
    ok (out.action == PLACE_RECORD && !out.failed && !strcmp (out.reason, want) &&
            !out.record_check && !strcmp (out.recorder, recorder) &&
            !strncmp (out.record, cache, strlen (cache)) &&
            strstr (out.record, "/.record-job42.") && access (out.record, F_OK) == 0 &&
            out.ntasks == 16,
        "no profile: this run records one: %s", out.reason);
    unlink (out.record);

    step ();
    prof.mode = PROFILE_MODE_RECORD;
    in.exe = mpiapp;
    decide ();
    ok (out.action == PLACE_RECORD && !strcmp (out.reason, "--topo-profile=record: recording one"),
        "--topo-profile=record records again: %s", out.reason);
    unlink (out.record);

    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = mpiapp;
    in.user_cache_fd = -1;
    in.user_cache_error = "/home/u/.cache/topomap/profiles: mode 0777";
    decide ();
    ok (is_default (1, "the profile cache /home/u/.cache/topomap/profiles: mode 0777"),
        "a profile cache that cannot be written: failed");

    chmod (recdir, 0777);
    step ();
    prof.mode = PROFILE_MODE_RECORD;
    in.exe = mpiapp;
    decide ();
    snprintf (want, sizeof (want),
              "--topo-profile=record, and cannot record one: recorder_dir=%s is not safe to load: ",
              recdir);
    ok (out.action == PLACE_DEFAULT && out.failed && !strncmp (out.reason, want, strlen (want)),
        "a recorder directory others may write: not loaded, failed: %s", out.reason);
    chmod (recdir, 0755);

    /* The recorder's profile of one recording, in the user's cache. */
    if (exeid_compute (mpiapp, id, sizeof (id), &e) < 0 || !(p = profile_read (HALO, &e)) ||
        profile_set_string (&p->exe_id, id, &e) < 0 ||
        profile_cache_storeat (cache_fd, cache, p, stored, sizeof (stored), &e) < 0) {
        ok (0, "the halo profile is filed under the program's identity: %s", e.text);
        return;
    }
    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = mpiapp;
    decide ();
    snprintf (want, sizeof (want),
              "the profile of %s for 16 tasks has one recording: recording a second, so that "
              "only traffic that recurs places ranks",
              mpiapp);
    ok (out.action == PLACE_RECORD && out.record_check && !strcmp (out.reason, want),
        "a profile without its check: this run records the check: %s", out.reason);
    unlink (out.record);

    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = mpiapp;
    in.map = CONF_MAP_DRYRUN;
    decide ();
    snprintf (want, sizeof (want),
              "dry run: the topomap plan would gain %s by the profile's one recording (the next "
              "run records its check) (would be applied)",
              gains_text ());
    ok (out.action == PLACE_DRYRUN && !strcmp (out.reason, want),
        "a dry run of it reports the one recording's plan: %s", out.reason);

    unlink (recorder);
    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = mpiapp;
    decide ();
    ok (is_applied (16, 8, 0) && strstr (said, ", and cannot record one: ") &&
            strstr (said, ": placing by the one recording") && out.ntasks == 16,
        "its check cannot be recorded: the one recording places, for the step's 16 tasks");

    /* With its check: planned from what both share, priced on each. */
    p->recheck = profile_read (HALO, &e);
    profile_cache_storeat (cache_fd, cache, p, stored, sizeof (stored), &e);
    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = mpiapp;
    decide ();
    ok (is_applied (16, 8, 0) &&
            strstr (said, " from the traffic both recordings of the profile share") &&
            strstr (said, "topomap: the plan priced on the profile's recording and on its check "
                          "(job 1, 100.0% of the traffic recurring)"),
        "a profile with its check: planned from what recurs: %s", out.reason);
    test_learned (id);

    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = mpiapp;
    c.min_gain = 0.99;
    decide ();
    snprintf (want, sizeof (want),
              "the plan's predicted gain, the lesser on the profile's recording and on its "
              "check, %.1f%%, %.1f%% at the busiest link, is below min_gain (99.0%%)",
              100 * out.gain, 100 * out.link_gain);
    ok (is_default (0, want), "and below min_gain says the lesser counted");

    /* A check that shares no pair with the profile. */
    {
        profile_entry_t t[] = {{0, 15, 1, 100}};

        profile_destroy (p->recheck);
        p->recheck = profile_create (16, 1, t, NULL);
        profile_cache_storeat (cache_fd, cache, p, stored, sizeof (stored), &e);
    }
    step ();
    prof.mode = PROFILE_MODE_AUTO;
    in.exe = mpiapp;
    decide ();
    ok (out.action == PLACE_DEFAULT && !out.failed && out.reason[0],
        "a check with no traffic in common: srun's layout, not a fault: %s", out.reason);
    profile_destroy (p);
    unlink (stored);
}

static void test_pmi2 (void)
{
    char want[1024];
    int node_of[128], bytes = 0;
    double free_gain, cons_gain, cons[2];
    tm_error_t e;

    step ();
    in.mpi = "pmi2";
    decide ();
    ok (is_applied (16, 8, 0) && out.pmi_mapping[0] &&
            layout_pmi_mapping_parse (out.pmi_mapping, 16, node_of, &e) == 0,
        "--mpi=pmi2: the plan's PMI_process_mapping: %s", out.pmi_mapping);

    step ();
    in.mpi = "pmix";
    decide ();
    ok (is_applied (16, 8, 0) && !out.pmi_mapping[0], "--mpi=pmix: no mapping");

    /* pairs-128: the free plan's mapping is too long for PMI. */
    step ();
    set_alloc (8, "16(x8)");
    req.ntasks = 128;
    snprintf (prof.value, sizeof (prof.value), "%s", PAIRS);
    in.mpi = "pmi2";
    decide ();
    ok (is_applied (128, 8, 0) && out.pmi_mapping[0] &&
            layout_pmi_mapping_parse (out.pmi_mapping, 128, node_of, &e) == 0,
        "128 ranks in scattered pairs over --mpi=pmi2: a plan of consecutive ranks a node: %s",
        out.reason);
    ok (strstr (said,
                "topomap: --mpi=pmi2 could not tell the ranks which of them share a node: ") &&
            strstr (said,
                    "; the best plan of consecutive ranks a node, whose mapping fits, gains "),
        "srun -v says the free plan's mapping did not fit");
    cons[0] = out.gain;
    cons[1] = out.link_gain;
    cons_gain = cons[0] < cons[1] ? cons[0] : cons[1];

    /* A min_gain the free plan reaches and the consecutive one does not. */
    step ();
    set_alloc (8, "16(x8)");
    req.ntasks = 128;
    snprintf (prof.value, sizeof (prof.value), "%s", PAIRS);
    in.map = CONF_MAP_DRYRUN;
    decide ();
    free_gain = out.gain < out.link_gain ? out.gain : out.link_gain;
    step ();
    set_alloc (8, "16(x8)");
    req.ntasks = 128;
    snprintf (prof.value, sizeof (prof.value), "%s", PAIRS);
    in.mpi = "pmi2";
    c.min_gain = (free_gain + cons_gain) / 2;
    decide ();
    snprintf (want, sizeof (want),
              "--mpi=pmi2 could not tell the ranks which of them share a node: the process "
              "mapping takes %d bytes, more than the 673 PMI passes whole; the best plan of "
              "consecutive ranks a node gains %.1f%%, %.1f%% at the busiest link",
              sscanf (out.reason,
                      "--mpi=pmi2 could not tell the ranks which of them share a "
                      "node: the process mapping takes %d",
                      &bytes) == 1
                  ? bytes
                  : -1,
              100 * cons[0], 100 * cons[1]);
    ok (is_default (0, want) && bytes > 673 && !out.hostfile[0],
        "min_gain %.3f, which the consecutive plan misses: srun's layout: %s", c.min_gain,
        out.reason);

    step ();
    set_alloc (8, "16(x8)");
    req.ntasks = 128;
    snprintf (prof.value, sizeof (prof.value), "%s", PAIRS);
    in.mpi = "pmi2";
    in.map = CONF_MAP_DRYRUN;
    c.min_gain = (free_gain + cons_gain) / 2;
    decide ();
    snprintf (want, sizeof (want), "dry run: the topomap plan would gain %s (--mpi=pmi2 could not",
              gains_text ());
    ok (out.action == PLACE_DRYRUN && !strncmp (out.reason, want, strlen (want)),
        "a dry run of it gives the reason: %s", out.reason);
}

/* A step of 8 tasks on two nodes of 4 CPUs, the profile at path, the
 * netmap from the file net, task/affinity. */
static void bind_step (const char *path, const char *net)
{
    step ();
    set_alloc (2, "4(x2)");
    req = (layout_request_t){.ntasks = 8, .ntasks_set = 1, .nodes_min = 2};
    snprintf (prof.value, sizeof (prof.value), "%s", path);
    put_netmap (net);
    in.task_affinity = 1;
}

/* Whether the binding cpu_bind of 4 local tasks puts tasks k and k + 2
 * on CPUs of one L3 domain (CPUs 0-1, 2-3). */
static int pairs_share_l3 (const char *cpu_bind)
{
    int cpu[4];

    return sscanf (cpu_bind, "map_cpu:%d,%d,%d,%d", &cpu[0], &cpu[1], &cpu[2], &cpu[3]) == 4 &&
           cpu[0] / 2 == cpu[2] / 2 && cpu[1] / 2 == cpu[3] / 2;
}

static void test_bind (void)
{
    char want[1024], path[PATH_MAX], net[PATH_MAX];
    profile_entry_t t[8];
    profile_t *p;

    /* The user's --cpu-bind stands, one line always. */
    step ();
    in.task_affinity = 1;
    in.cpu_bind = "--cpu-bind given";
    decide ();
    ok (is_applied (16, 8, 0) && !out.cpu_bind[0] &&
            has_line (noted, "topomap: --cpu-bind given: it stands, and the plan places ranks "
                             "across nodes only"),
        "the user's --cpu-bind: across nodes only, one line always");

    step ();
    in.task_affinity = 0;
    decide ();
    ok (is_applied (16, 8, 0) && !noted[0] &&
            has_line (said, "topomap: no CPU binding: Slurm does not bind tasks (TaskPlugin "
                            "without task/affinity)"),
        "without task/affinity: no binding, said under -v only");

    step ();
    set_alloc (8, "1(x8)");
    req.ntasks = 8;
    in.task_affinity = 1;
    {
        profile_entry_t u[] = {{0, 4, 100, 1 << 20}, {1, 5, 100, 1 << 20}};

        p = profile_create (8, 2, u, NULL);
        in_dir (path, "pairs8.json");
        profile_write (p, path, 0644, NULL);
        profile_destroy (p);
        snprintf (prof.value, sizeof (prof.value), "%s", path);
    }
    decide ();
    ok (has_line (said, "topomap: no CPU binding: one CPU a node"),
        "one CPU a node: no binding, said under -v: %s", out.reason);

    /* A netmap that has not read the nodes' CPUs. */
    step ();
    in.task_affinity = 1;
    decide ();
    ok (is_applied (16, 8, 0) && !out.cpu_bind[0] &&
            has_line (said, "topomap: no CPU binding: the netmap knows no node's CPUs"),
        "a netmap without the nodes' insides: across nodes only");

    /* 8 ranks in pairs (i, i + 4) on two nodes of 4 CPUs, whose L3 domains
     * alternate. */
    for (int i = 0; i < 4; i++) {
        t[2 * i] = (profile_entry_t){i, i + 4, 100, 1 << 20};
        t[2 * i + 1] = (profile_entry_t){i + 4, i, 100, 1 << 20};
    }
    p = profile_create (8, 8, t, NULL);
    in_dir (path, "pairs8.json");
    profile_write (p, path, 0644, NULL);
    profile_destroy (p);

    bind_step (path, INSIDE);
    c.bind = CONF_BIND_ALWAYS;
    decide ();
    ok (is_applied (8, 2, 1) && !strncmp (out.cpu_bind, "map_cpu:", 8),
        "bind=always, on nodes whose CPUs the probe read: bound inside: %s", out.cpu_bind);
    snprintf (want, sizeof (want), "topomap: each rank bound inside its node, --cpu-bind=%.80s",
              out.cpu_bind);
    ok (strstr (said, want), "srun -v gives the binding and its gain");

    /* bind=auto: each pair's ranks are local tasks k and k + 2, on CPUs
     * of one L3 domain both under block binding and under Slurm's own. */
    bind_step (path, INSIDE);
    decide ();
    ok (is_applied (8, 2, 0) && !out.cpu_bind[0] &&
            has_line (said, "topomap: no CPU binding: Slurm's own binding (the packages in turn) "
                            "is as good"),
        "bind=auto where Slurm's own binding is as good: it stays, said under -v");

    /* L3 domains of CPUs 0-1 and 2-3: Slurm's binding splits each pair. */
    in_dir (net, "net-l3.json");
    edit_json (INSIDE, net, SET, "/inside/0/l3", "[0, 0, 1, 1]");
    edit_json (net, net, SET, "/inside/1/l3", "[0, 0, 1, 1]");
    bind_step (path, net);
    decide ();
    ok (is_applied (8, 2, 1) && pairs_share_l3 (out.cpu_bind) && out.bind_gain > 0,
        "bind=auto where the plan's binding beats Slurm's: bound inside: %s, gain %.1f%%",
        out.cpu_bind, 100 * out.bind_gain);

    /* A node whose CPUs the probe did not read: one line always. */
    edit_json (INSIDE, net, SET, "/inside/1", "null");
    bind_step (path, net);
    decide ();
    ok (is_applied (8, 2, 0) && !out.cpu_bind[0] &&
            has_line (noted, "topomap: no CPU binding: n2's CPUs were not read (the probe's log "
                             "says why): the plan places ranks across nodes only"),
        "a node whose CPUs were not read: across nodes only, one line always");
    unlink (net);

    /* Two tasks a node of 2 CPUs; the probe read 4 there. */
    step ();
    set_alloc (2, "2(x2)");
    req = (layout_request_t){.ntasks = 4, .ntasks_set = 1, .nodes_min = 2};
    {
        profile_entry_t u[] = {{0, 2, 100, 1 << 20}, {1, 3, 100, 1 << 20}};

        p = profile_create (4, 2, u, NULL);
        profile_write (p, path, 0644, NULL);
        profile_destroy (p);
    }
    snprintf (prof.value, sizeof (prof.value), "%s", path);
    put_netmap (INSIDE);
    in.task_affinity = 1;
    decide ();
    ok (out.action == PLACE_APPLY && !out.cpu_bind[0] &&
            has_line (said, "topomap: no CPU binding: n1: the probe read 4 CPUs, the job has 2 "
                            "there"),
        "the probe read other CPUs than the job has: across nodes only: %s", out.reason);
    unlink (path);
}

/* The ';'-separated parts of a TOPOMAP_NICS value, 0 for "". */
static int parts (const char *v)
{
    int n = v[0] != '\0';

    for (; *v; v++)
        n += *v == ';';
    return n;
}

/* A fresh step of RING8's 8 ranks, 2 a node on n1..n4, netmap net cached. */
static void ring8_step (const char *net)
{
    step ();
    set_alloc (4, "2(x4)");
    req.ntasks = 8, req.nodes_min = 4;
    snprintf (prof.value, sizeof (prof.value), "%s", RING8);
    put_netmap (net);
}

/* Each rank's NIC by rail: a ring of 8 ranks on 4 nodes of two rails,
 * where no node plan gains (every pair alike): srun's layout stays, its
 * ranks' NICs chosen, partners across nodes on one rail; a netmap
 * without slots: the plan alone. */
static void test_nics (void)
{
    ring8_step (RAILS);
    decide ();
    ok (out.action == PLACE_DEFAULT && !out.failed &&
            !strcmp (out.nics, "-/hsn0,-/hsn1;1:1,0:0,0:0,1:1,1:1,0:0,0:0,1:1") &&
            out.nic_gain == 1 &&
            has_line (said, "topomap: bytes between nodes crossing rails (2): 100.0% in Slurm's "
                            "order, 0.0% by rail, gain 100.0%") &&
            has_line (said, "topomap: rank, node, GPU and NIC: 0 n1 cuda1 hsn1, 1 n1 cuda0 hsn0, 2 "
                            "n2 cuda0 hsn0, 3 n2 cuda1 hsn1, 4 n3 cuda1 hsn1, 5 n3 cuda0 hsn0, 6 "
                            "n4 cuda0 hsn0, 7 n4 cuda1 hsn1"),
        "a ring on two rails, srun's layout kept: each rank's NIC by rail (%s; %s)", out.nics,
        out.reason);

    ok (has_line (said, "topomap: the CPU binding stays Slurm's: Slurm does not bind tasks "
                        "(TaskPlugin without task/affinity)") &&
            parts (out.nics) == 2,
        "Slurm binds no task: no CPUs with the NICs, said under -v");

    /* Slurm binds and the netmap has each node's 2 CPUs: each rank onto
     * its GPU's (CPU k for GPU k), no binding inside the nodes computed. */
    static const char two[] = "{\"cpus\": [0, 1], \"l3\": [0, 0], \"package\": [0], "
                              "\"latency_us\": [0.2, null, null], "
                              "\"bandwidth_MBps\": [40000, null, null]}";
    char net[PATH_MAX];

    in_dir (net, "net-rails-cpus.json");
    edit_json (RAILS, net, SET, "/inside/0", two);
    for (int h = 1; h < 4; h++) {
        char ptr[16];

        snprintf (ptr, sizeof (ptr), "/inside/%d", h);
        edit_json (net, net, SET, ptr, two);
    }
    ring8_step (net);
    in.task_affinity = 1;
    decide ();
    ok (out.action == PLACE_DEFAULT && !out.failed &&
            !strcmp (out.nics, "-/hsn0,-/hsn1;1:1,0:0,0:0,1:1,1:1,0:0,0:0,1:1;0/1") &&
            !out.cpu_bind[0] &&
            has_line (said, "topomap: each rank bound to the CPUs of its GPU, GPU by GPU: 0/1"),
        "Slurm binds, every node's CPUs read: each rank on its GPU's CPUs (%s)", out.nics);

    /* n3's GPU 1 near another CPU: Slurm's binding stays */
    edit_json (net, net, SET, "/slots/2/gpus/1/cpus", "[0]");
    ring8_step (net);
    in.task_affinity = 1;
    decide ();
    ok (out.nics[0] && parts (out.nics) == 2 &&
            has_line (said, "topomap: the CPU binding stays Slurm's: n3's GPU 1 has other CPUs "
                            "than on the first node"),
        "nodes whose GPUs have other CPUs: Slurm's binding, said under -v");

    /* a node whose CPUs the probe did not read */
    edit_json (net, net, SET, "/slots/2/gpus/1/cpus", "[1]");
    edit_json (net, net, SET, "/inside/3", "null");
    ring8_step (net);
    in.task_affinity = 1;
    decide ();
    ok (out.nics[0] && parts (out.nics) == 2 &&
            has_line (said, "topomap: the CPU binding stays Slurm's: n4: the netmap has not the 2 "
                            "CPUs the job has there"),
        "a node whose CPUs were not read: Slurm's binding, said under -v");
    unlink (net);

    ring8_step (RAILS);
    in.gpu_bind = "gpus-per-task";
    decide ();
    ok (out.action == PLACE_DEFAULT && !out.failed && !out.nics[0] &&
            has_line (said, "topomap: no NIC chosen: Slurm binds each task's GPU "
                            "(--gpus-per-task), the MPI takes the NIC near it"),
        "the same where Slurm binds each task's GPU: its NIC left to the MPI");

    step ();
    decide ();
    ok (out.action == PLACE_APPLY && !out.nics[0] &&
            has_line (said, "topomap: no NIC chosen: n1 has no GPU slots read") &&
            !strstr (out.reason, "NIC"),
        "a netmap without GPU slots: the plan alone, saying why under -v");
}

int main (void)
{
    plan (NO_PLAN);
    umask (022);
    if (scratch_dir ("place-decide-test") < 0)
        return done_testing ();
    chmod (dir, 0755);
    snprintf (netmaps, sizeof (netmaps), "%s/netmaps", dir);
    snprintf (cache, sizeof (cache), "%s/cache", dir);
    snprintf (recdir, sizeof (recdir), "%s/recorders", dir);
    snprintf (bin, sizeof (bin), "%s/bin", dir);
    mkdir (netmaps, 0700);
    mkdir (cache, 0700);
    mkdir (recdir, 0755);
    mkdir (bin, 0755);
    snprintf (netmap_file, sizeof (netmap_file), "%s/job" JOB ".json", netmaps);
    snprintf (fake_srun, sizeof (fake_srun), "%s/srun", bin);
    snprintf (probe, sizeof (probe), "%s/topomap-probe", bin);
    snprintf (mpiapp, sizeof (mpiapp), "%s/mpiapp", bin);
    netmap_fd = open (netmaps, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    cache_fd = open (cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ok (netmap_fd >= 0 && cache_fd >= 0 && access (HALO, R_OK) == 0,
        "the scratch directories and the fixtures are there");

    test_step ();
    test_profile ();
    test_profile_named ();
    test_gain ();
    test_unsure ();
    test_modes ();
    test_netmap_cached ();
    test_site_topology ();
    test_probe ();
    test_record ();
    test_pmi2 ();
    test_bind ();
    test_nics ();

    layout_alloc_destroy (alloc);
    close (netmap_fd);
    close (cache_fd);
    remove_tree (dir);
    ok (access (dir, F_OK) < 0, "nothing is left behind");
    return done_testing ();
}
