/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/conf.h"
#include "lib/test/tap.h"

#define PROBE       "/usr/bin/topomap-probe"
#define PROBE_MPICH "/usr/bin/topomap-probe-mpich"
#define RECORDER    "/usr/lib/topomap"

static int is_default (const conf_t *c)
{
    return strcmp (c->cache, "") == 0 && strcmp (c->site_profiles, "") == 0 &&
           strcmp (c->probe, PROBE) == 0 && strcmp (c->probe_mpich, PROBE_MPICH) == 0 &&
           strcmp (c->mpi, "") == 0 && c->probe_ttl == 3600 && c->probe_timeout == 30 &&
           c->min_gain == 0.05 && c->map == CONF_MAP_AUTO && c->profile == PROFILE_MODE_AUTO &&
           strcmp (c->recorder_dir, RECORDER) == 0 && c->bind == CONF_BIND_AUTO && c->verbose == 0;
}

/* Parse one argument over the defaults. */
static int parse1 (conf_t *c, const char *arg, tm_error_t *e)
{
    char *av[] = {(char *)arg};

    conf_default (c, PROBE, PROBE_MPICH, RECORDER);
    e->text[0] = '\0';
    return conf_parse (c, 1, av, e);
}

static void test_defaults (void)
{
    conf_t c;

    conf_default (&c, PROBE, PROBE_MPICH, RECORDER);
    ok (is_default (&c), "defaults: cache and site_profiles unset, the caller's probe and "
                         "recorder_dir, both probes, mpi picked, probe_ttl 3600, probe_timeout 30, "
                         "min_gain 0.05, map auto, profile auto, bind auto, verbose 0");
    conf_default (&c, NULL, NULL, NULL);
    ok (strcmp (c.probe, "") == 0 && strcmp (c.probe_mpich, "") == 0 &&
            strcmp (c.recorder_dir, "") == 0,
        "no caller defaults leave the probes and recorder_dir empty");
    ok (conf_parse (&c, 0, NULL, NULL) == 0, "no arguments are fine");
}

static void test_arguments (void)
{
    char *av[] = {
        "cache=/var/cache/topomap",
        "site_profiles=/etc/topomap/profiles",
        "probe=/opt/bin/topomap-probe",
        "probe_mpich=/opt/bin/topomap-probe-mpich",
        "mpi=pmi2",
        "probe_ttl=0",
        "min_gain=0.25",
        "map=latency",
        "profile=record",
        "verbose=3",
        "recorder_dir=/opt/lib/topomap",
        "probe_timeout=86400",
        "topology=/etc/slurm/topology.conf",
    };
    tm_error_t e;
    conf_t c;

    conf_default (&c, PROBE, PROBE_MPICH, RECORDER);
    ok (conf_parse (&c, (int)(sizeof (av) / sizeof (av[0])), av, &e) == 0,
        "every argument at once is accepted");
    ok (strcmp (c.cache, "/var/cache/topomap") == 0, "cache= sets the netmap cache");
    ok (strcmp (c.site_profiles, "/etc/topomap/profiles") == 0,
        "site_profiles= sets the site profile directory");
    ok (strcmp (c.probe, "/opt/bin/topomap-probe") == 0, "probe= sets the probe over pmix");
    ok (strcmp (c.probe_mpich, "/opt/bin/topomap-probe-mpich") == 0,
        "probe_mpich= sets the probe over pmi2");
    ok (strcmp (c.mpi, "pmi2") == 0, "mpi= sets the probe's --mpi type");
    ok (c.probe_ttl == 0, "probe_ttl=0 is accepted");
    ok (c.min_gain == 0.25, "min_gain= sets the least gain");
    ok (c.map == CONF_MAP_LATENCY, "map= sets the default map mode");
    ok (c.profile == PROFILE_MODE_RECORD, "profile= sets the default profile mode");
    ok (c.verbose == 3, "verbose= sets the level");
    ok (strcmp (c.recorder_dir, "/opt/lib/topomap") == 0, "recorder_dir= sets the recorder dir");
    ok (c.probe_timeout == 86400, "probe_timeout=86400 is accepted");
    ok (strcmp (c.topology, "/etc/slurm/topology.conf") == 0,
        "topology= names the site's topology.conf");
    ok (parse1 (&c, "topology=auto", &e) == 0 && strcmp (c.topology, "auto") == 0,
        "topology=auto is accepted");
    ok (parse1 (&c, "topology=none", &e) == 0 && strcmp (c.topology, "none") == 0,
        "topology=none is accepted");
    ok (parse1 (&c, "topology=topology.conf", &e) < 0 &&
            strstr (e.text, "topology=topology.conf: expected an absolute path"),
        "a relative topology= is refused: %s", e.text);
    ok (parse1 (&c, "topology_levels=1:12.5:117,3:45:12", &e) == 0 && c.level_lat_us[1] == 12.5 &&
            c.level_bw_MBps[1] == 117 && c.level_lat_us[3] == 45 && c.level_bw_MBps[3] == 12 &&
            c.level_lat_us[2] == 0 && c.level_bw_MBps[2] == 0,
        "topology_levels= gives levels 1 and 3 their figures, 2 none");
    {
        static const struct {
            const char *arg, *want;
        } bad[] = {
            {"topology_levels=0:1:1", "LEVEL 1 to 15"},
            {"topology_levels=16:1:1", "LEVEL 1 to 15"},
            {"topology_levels=1:1", "expected LEVEL:LATENCY_US:BANDWIDTH_MBPS"},
            {"topology_levels=1:0:5", "level 1: a latency above 0 and at most 1e+06 us"},
            {"topology_levels=1:nan:5", "level 1: a latency above 0"},
            {"topology_levels=2:3:1e308", "level 2: a bandwidth above 0 and at most 1e+07 MB/s"},
            {"topology_levels=2:3:4x", "expected LEVEL:LATENCY_US:BANDWIDTH_MBPS"},
            {"topology_levels=1:1:1,1:2:2", "level 1 is given twice"},
            {"topology_levels=1:1:1,", "expected LEVEL"},
        };
        for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++)
            ok (parse1 (&c, bad[i].arg, &e) < 0 && strstr (e.text, bad[i].want),
                "%s is refused: %s", bad[i].arg, e.text);
    }

    ok (parse1 (&c, "probe_ttl=2147483647", &e) == 0 && c.probe_ttl == 2147483647,
        "probe_ttl up to INT_MAX is accepted");
    ok (parse1 (&c, "probe_pairs=1", &e) == 0 && c.probe_pairs == 1, "probe_pairs=1 is accepted");
    ok (parse1 (&c, "probe_pairs=-1", &e) < 0 && strstr (e.text, "probe_pairs=-1"),
        "probe_pairs=-1 is refused: %s", e.text);
    conf_default (&c, NULL, NULL, NULL);
    ok (strcmp (c.probe_plan, "auto") == 0, "probe_plan is auto by default");
    ok (parse1 (&c, "probe_plan=sampled", &e) == 0 && strcmp (c.probe_plan, "sampled") == 0 &&
            parse1 (&c, "probe_plan=all", &e) == 0 && strcmp (c.probe_plan, "all") == 0,
        "probe_plan=sampled and probe_plan=all are accepted");
    ok (parse1 (&c, "probe_plan=some", &e) < 0 && strstr (e.text, "probe_plan=some") &&
            strstr (e.text, "expected auto, all or sampled"),
        "probe_plan=some is refused: %s", e.text);
    ok (parse1 (&c, "probe_timeout=1", &e) == 0 && c.probe_timeout == 1,
        "probe_timeout=1 is accepted");
    ok (parse1 (&c, "min_gain=0.05", &e) == 0 && c.min_gain == 0.05,
        "min_gain=0.05 reads exactly as 0.05");
    ok (parse1 (&c, "min_gain=0", &e) == 0 && c.min_gain == 0, "min_gain=0 is accepted");
    ok (parse1 (&c, "min_gain=1", &e) == 0 && c.min_gain == 1, "min_gain=1 is accepted");
    ok (parse1 (&c, "min_gain=1.000", &e) == 0 && c.min_gain == 1, "min_gain=1.000 is accepted");
    ok (parse1 (&c, "min_gain=.5", &e) == 0 && c.min_gain == 0.5, "min_gain=.5 is accepted");
    ok (parse1 (&c, "min_gain=0.1", &e) == 0 && c.min_gain == 0.1,
        "min_gain=0.1 reads exactly as 0.1");
    ok (parse1 (&c, "min_gain=0.12345678901234567890", &e) == 0 && c.min_gain > 0.1234567890123 &&
            c.min_gain < 0.1234567890124,
        "min_gain with many decimals is accepted");
    ok (parse1 (&c, "verbose=0", &e) == 0 && c.verbose == 0, "verbose=0 is accepted");
    ok (parse1 (&c, "bind=no", &e) == 0 && c.bind == CONF_BIND_NO &&
            parse1 (&c, "bind=auto", &e) == 0 && c.bind == CONF_BIND_AUTO &&
            parse1 (&c, "bind=always", &e) == 0 && c.bind == CONF_BIND_ALWAYS,
        "bind=no, bind=auto and bind=always are accepted");
    ok (parse1 (&c, "bind=cores", &e) < 0 && strstr (e.text, "bind=cores") &&
            strstr (e.text, "expected auto, always or no"),
        "bind=cores is refused: %s", e.text);
    ok (c.cache_sticky == 0 && parse1 (&c, "cache_sticky=yes", &e) == 0 && c.cache_sticky == 1 &&
            parse1 (&c, "cache_sticky=no", &e) == 0 && c.cache_sticky == 0,
        "cache_sticky is no by default; yes and no are accepted");
    ok (parse1 (&c, "cache_sticky=1", &e) < 0 && strstr (e.text, "expected yes or no"),
        "cache_sticky=1 is refused: %s", e.text);
    ok (c.cache_max_files == 1000 && c.cache_max_mib == 1024 &&
            parse1 (&c, "cache_max_files=5", &e) == 0 && c.cache_max_files == 5 &&
            parse1 (&c, "cache_max_mib=64", &e) == 0 && c.cache_max_mib == 64,
        "cache_max_files and cache_max_mib: 1000 files, 1024 MiB by default; set");
    ok (parse1 (&c, "cache_max_files=0", &e) < 0 && strstr (e.text, "1..1000000") &&
            parse1 (&c, "cache_max_mib=2000000", &e) < 0 && strstr (e.text, "1..1048576"),
        "a bound of 0 files or beyond the range is refused: %s", e.text);
    ok (parse1 (&c, "mpi=pmix_v4", &e) == 0 && strcmp (c.mpi, "pmix_v4") == 0,
        "mpi=pmix_v4 is accepted");
    ok (parse1 (&c, "cache=/", &e) == 0 && strcmp (c.cache, "/") == 0, "cache=/ is accepted");

    for (int m = CONF_MAP_AUTO; m <= CONF_MAP_DRYRUN; m++) {
        char arg[64];

        snprintf (arg, sizeof (arg), "map=%s", conf_map_mode_name ((conf_map_mode_t)m));
        ok (parse1 (&c, arg, &e) == 0 && c.map == (conf_map_mode_t)m, "%s is accepted", arg);
    }
    for (int m = PROFILE_MODE_AUTO; m <= PROFILE_MODE_OFF; m++) {
        char arg[64];

        snprintf (arg, sizeof (arg), "profile=%s", conf_profile_mode_name ((conf_profile_mode_t)m));
        ok (parse1 (&c, arg, &e) == 0 && c.profile == (conf_profile_mode_t)m, "%s is accepted",
            arg);
    }
}

static void test_rejections (void)
{
    char longpath[CONF_PATH_MAX + 16], longmpi[CONF_MPI_MAX + 8];
    static const struct {
        const char *arg, *msg;
    } bad[] = {
        {"cahce=/x", "plugstack.conf: unknown argument 'cahce=/x'"},
        {"=x", "plugstack.conf: unknown argument '=x'"},
        {"Cache=/x", "plugstack.conf: unknown argument 'Cache=/x'"},
        {"cache =/x", "plugstack.conf: unknown argument 'cache =/x'"},
        {"verbose", "plugstack.conf: argument 'verbose' is not key=value"},
        {"", "plugstack.conf: argument '' is not key=value"},
        {"cache=", "plugstack.conf: cache=: empty value"},
        {"probe_ttl=", "plugstack.conf: probe_ttl=: empty value"},
        {"cache=var/cache", "plugstack.conf: cache=var/cache: expected an absolute path"},
        {"site_profiles=./p", "plugstack.conf: site_profiles=./p: expected an absolute path"},
        {"probe=topomap-probe", "plugstack.conf: probe=topomap-probe: expected an absolute path"},
        {"recorder_dir=lib", "plugstack.conf: recorder_dir=lib: expected an absolute path"},
        {"cache=/a\nb", "plugstack.conf: cache=/a\\x0ab: the path has a control character"},
        {"probe=/usr/bin/\x7fx", "plugstack.conf: probe=/usr/bin/\\x7fx: the path has a control "
                                 "character"},
        {"probe_ttl=abc", "plugstack.conf: probe_ttl=abc: expected seconds"},
        {"probe_ttl=-1", "plugstack.conf: probe_ttl=-1: expected seconds"},
        {"probe_ttl=+5", "plugstack.conf: probe_ttl=+5: expected seconds"},
        {"probe_ttl= 5", "plugstack.conf: probe_ttl= 5: expected seconds"},
        {"probe_ttl=5s", "plugstack.conf: probe_ttl=5s: expected seconds"},
        {"probe_ttl=2147483648", "plugstack.conf: probe_ttl=2147483648: expected seconds"},
        {"probe_ttl=1e3", "plugstack.conf: probe_ttl=1e3: expected seconds"},
        {"probe_timeout=0", "plugstack.conf: probe_timeout=0: expected seconds (1..86400)"},
        {"probe_timeout=86401", "plugstack.conf: probe_timeout=86401: expected seconds"},
        {"probe_timeout=x", "plugstack.conf: probe_timeout=x: expected seconds"},
        {"min_gain=abc", "plugstack.conf: min_gain=abc: expected a fraction from 0 to 1"},
        {"min_gain=1.5", "plugstack.conf: min_gain=1.5: expected a fraction"},
        {"min_gain=2", "plugstack.conf: min_gain=2: expected a fraction"},
        {"min_gain=-0.1", "plugstack.conf: min_gain=-0.1: expected a fraction"},
        {"min_gain=5e-2", "plugstack.conf: min_gain=5e-2: expected a fraction"},
        {"min_gain=.", "plugstack.conf: min_gain=.: expected a fraction"},
        {"min_gain=0,05", "plugstack.conf: min_gain=0,05: expected a fraction"},
        {"min_gain=nan", "plugstack.conf: min_gain=nan: expected a fraction"},
        {"min_gain=1.0000000000000001", "plugstack.conf: min_gain=1.0000000000000001: expected"},
        {"map=fast", "plugstack.conf: map=fast: expected auto, bandwidth, latency, off, strict or "
                     "dry-run"},
        {"map=(null)", "plugstack.conf: map=(null): expected auto"},
        {"map=AUTO", "plugstack.conf: map=AUTO: expected auto"},
        {"profile=myprof", "plugstack.conf: profile=myprof: expected auto, record or off"},
        {"profile=/p.json", "plugstack.conf: profile=/p.json: expected auto, record or off"},
        {"verbose=4", "plugstack.conf: verbose=4: expected a level 0..3"},
        {"verbose=-1", "plugstack.conf: verbose=-1: expected a level 0..3"},
        {"verbose=high", "plugstack.conf: verbose=high: expected a level 0..3"},
        {"mpi=pm ix", "plugstack.conf: mpi=pm ix: expected an srun --mpi type"},
        {"mpi=pmix;rm", "plugstack.conf: mpi=pmix;rm: expected an srun --mpi type"},
        {"mpi=--x/y", "plugstack.conf: mpi=--x/y: expected an srun --mpi type"},
    };
    tm_error_t e;
    conf_t c;

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        errno = 0;
        ok (parse1 (&c, bad[i].arg, &e) == -1 && errno == EINVAL &&
                strncmp (e.text, bad[i].msg, strlen (bad[i].msg)) == 0 && is_default (&c),
            "argument %zu is refused: %s", i, e.text);
    }

    memset (longpath, 'a', sizeof (longpath));
    memcpy (longpath, "cache=/", 7);
    longpath[6 + CONF_PATH_MAX] = '\0';
    ok (parse1 (&c, longpath, &e) == -1 && strstr (e.text, "too long (4096 bytes, at most 4095)") &&
            strstr (e.text, "cache=/aaa") && strstr (e.text, "..."),
        "a path of %d bytes is refused, the argument shortened: %s", CONF_PATH_MAX, e.text);
    longpath[6 + CONF_PATH_MAX - 1] = '\0';
    ok (parse1 (&c, longpath, &e) == 0 && strlen (c.cache) == CONF_PATH_MAX - 1,
        "a path of %d bytes is accepted", CONF_PATH_MAX - 1);
    memset (longmpi, 'x', sizeof (longmpi));
    memcpy (longmpi, "mpi=", 4);
    longmpi[4 + CONF_MPI_MAX + 1] = '\0';
    ok (parse1 (&c, longmpi, &e) == -1 && strstr (e.text, "at most 63 bytes"),
        "an mpi type of %d bytes is refused", CONF_MPI_MAX + 1);
    longmpi[4 + CONF_MPI_MAX] = '\0';
    ok (parse1 (&c, longmpi, &e) == 0 && strlen (c.mpi) == CONF_MPI_MAX,
        "an mpi type of %d bytes is accepted", CONF_MPI_MAX);
}

static void test_whole_line (void)
{
    char *dup[] = {"cache=/a", "verbose=1", "cache=/b"};
    char *later_bad[] = {"cache=/a", "verbose=2", "probe_ttl=x"};
    char *null_arg[] = {"cache=/a", NULL};
    tm_error_t e;
    conf_t c;

    conf_default (&c, PROBE, PROBE_MPICH, RECORDER);
    ok (conf_parse (&c, 3, dup, &e) == -1 &&
            strcmp (e.text, "plugstack.conf: cache=/b: cache= is given twice") == 0 &&
            is_default (&c),
        "a key given twice is refused and nothing is set: %s", e.text);
    ok (conf_parse (&c, 3, later_bad, &e) == -1 && strstr (e.text, "probe_ttl=x") &&
            is_default (&c),
        "an error in a later argument leaves the configuration untouched");
    ok (conf_parse (&c, 2, null_arg, &e) == -1 && strstr (e.text, "argument 2 is missing"),
        "a NULL argument is refused: %s", e.text);
    ok (conf_parse (&c, 1, NULL, &e) == -1, "arguments without a vector are refused");
    ok (conf_parse (NULL, 0, NULL, &e) == -1, "no configuration is refused");
    ok (conf_parse (&c, 3, later_bad, NULL) == -1, "errors without an error buffer are fine");
}

static void test_map_mode (void)
{
    static const struct {
        const char *s;
        conf_map_mode_t m;
    } good[] = {
        {NULL, CONF_MAP_AUTO},
        {"", CONF_MAP_AUTO},
        {"(null)", CONF_MAP_AUTO},
        {"auto", CONF_MAP_AUTO},
        {"bandwidth", CONF_MAP_BANDWIDTH},
        {"latency", CONF_MAP_LATENCY},
        {"off", CONF_MAP_OFF},
        {"strict", CONF_MAP_STRICT},
        {"dry-run", CONF_MAP_DRYRUN},
    };
    static const char *bad[] = {"Auto", "dryrun", "dry_run", "on", " auto", "auto ", "(NULL)"};
    conf_map_mode_t m;
    tm_error_t e;

    for (size_t i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
        m = good[i].m == CONF_MAP_OFF ? CONF_MAP_STRICT : CONF_MAP_OFF;
        ok (conf_map_mode_parse (good[i].s, &m, &e) == 0 && m == good[i].m, "map mode %s%s%s is %s",
            good[i].s ? "'" : "", good[i].s ? good[i].s : "NULL", good[i].s ? "'" : "",
            conf_map_mode_name (good[i].m));
    }
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        m = CONF_MAP_LATENCY;
        errno = 0;
        ok (conf_map_mode_parse (bad[i], &m, &e) == -1 && errno == EINVAL &&
                m == CONF_MAP_LATENCY && strstr (e.text, "unknown map mode") &&
                strstr (e.text, bad[i]) && strstr (e.text, "dry-run"),
            "map mode '%s' is refused: %s", bad[i], e.text);
    }
    ok (conf_map_mode_parse ("x\ty", &m, &e) == -1 && strstr (e.text, "'x\\x09y'"),
        "a control character in a map mode is escaped: %s", e.text);
    ok (strcmp (conf_map_mode_name (CONF_MAP_DRYRUN), "dry-run") == 0 &&
            strcmp (conf_map_mode_name (CONF_MAP_BANDWIDTH), "bandwidth") == 0,
        "map mode names read back");
    ok (strcmp (conf_map_mode_name ((conf_map_mode_t)42), "unknown") == 0,
        "an out-of-range map mode is named unknown");
}

static void test_profile (void)
{
    static const struct {
        const char *s;
        conf_profile_mode_t mode;
        const char *value;
    } good[] = {
        {NULL, PROFILE_MODE_AUTO, ""},
        {"", PROFILE_MODE_AUTO, ""},
        {"(null)", PROFILE_MODE_AUTO, ""},
        {"auto", PROFILE_MODE_AUTO, ""},
        {"record", PROFILE_MODE_RECORD, ""},
        {"off", PROFILE_MODE_OFF, ""},
        {"/home/u/prof.json", PROFILE_MODE_PATH, "/home/u/prof.json"},
        {"./prof.json", PROFILE_MODE_PATH, "./prof.json"},
        {"dir/my prof.json", PROFILE_MODE_PATH, "dir/my prof.json"},
        {"/", PROFILE_MODE_PATH, "/"},
        {"solver", PROFILE_MODE_NAME, "solver"},
        {"my-app_2.0+gcc", PROFILE_MODE_NAME, "my-app_2.0+gcc"},
        {"Auto", PROFILE_MODE_NAME, "Auto"},
        {"a..b", PROFILE_MODE_NAME, "a..b"},
    };
    static const struct {
        const char *s, *msg;
    } bad[] = {
        {".hidden", "profile name '.hidden' starts with '.'"},
        {"..", "profile name '..' starts with '.'"},
        {"my prof", "profile name 'my prof' has a character outside [A-Za-z0-9._+-] at byte 3"},
        {"a:b", "profile name 'a:b' has a character outside"},
        {"a\\b", "profile name 'a\\b' has a character outside"},
        {"a\nb", "profile name 'a\\x0ab' has a character outside"},
        {"caf\xc3\xa9", "profile name 'caf\\xc3\\xa9' has a character outside"},
        {"/tmp/a\tb", "profile path '/tmp/a\\x09b' has a control character"},
    };
    char name[CONF_PROFILE_NAME_MAX + 2], path[CONF_PATH_MAX + 1];
    conf_profile_t p;
    tm_error_t e;

    for (size_t i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
        memset (&p, 'z', sizeof (p));
        ok (conf_profile_parse (good[i].s, &p, &e) == 0 && p.mode == good[i].mode &&
                strcmp (p.value, good[i].value) == 0,
            "profile %s%s%s is %s '%s'", good[i].s ? "'" : "", good[i].s ? good[i].s : "NULL",
            good[i].s ? "'" : "", conf_profile_mode_name (good[i].mode), good[i].value);
    }
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        p.mode = PROFILE_MODE_OFF;
        errno = 0;
        ok (conf_profile_parse (bad[i].s, &p, &e) == -1 && errno == EINVAL &&
                p.mode == PROFILE_MODE_OFF &&
                strncmp (e.text, bad[i].msg, strlen (bad[i].msg)) == 0,
            "profile %zu is refused: %s", i, e.text);
    }
    memset (name, 'n', sizeof (name));
    name[CONF_PROFILE_NAME_MAX] = '\0';
    ok (conf_profile_parse (name, &p, &e) == 0 && p.mode == PROFILE_MODE_NAME &&
            strlen (p.value) == CONF_PROFILE_NAME_MAX,
        "a profile name of %d bytes is accepted", CONF_PROFILE_NAME_MAX);
    name[CONF_PROFILE_NAME_MAX] = 'n';
    name[CONF_PROFILE_NAME_MAX + 1] = '\0';
    ok (conf_profile_parse (name, &p, &e) == -1 &&
            strstr (e.text, "too long (129 bytes, at most 128)"),
        "a profile name of %d bytes is refused: %s", CONF_PROFILE_NAME_MAX + 1, e.text);
    memset (path, 'p', sizeof (path));
    path[0] = '/';
    path[CONF_PATH_MAX - 1] = '\0';
    ok (conf_profile_parse (path, &p, &e) == 0 && p.mode == PROFILE_MODE_PATH &&
            strlen (p.value) == CONF_PATH_MAX - 1,
        "a profile path of %d bytes is accepted", CONF_PATH_MAX - 1);
    path[CONF_PATH_MAX - 1] = 'p';
    path[CONF_PATH_MAX] = '\0';
    errno = 0;
    ok (conf_profile_parse (path, &p, &e) == -1 && errno == ENAMETOOLONG &&
            strstr (e.text, "too long (4096 bytes"),
        "a profile path of %d bytes is refused: %s", CONF_PATH_MAX, e.text);
    ok (conf_profile_parse ("record", NULL, &e) == 0, "a profile value can be checked only");
    ok (strcmp (conf_profile_mode_name (PROFILE_MODE_PATH), "path") == 0 &&
            strcmp (conf_profile_mode_name (PROFILE_MODE_NAME), "name") == 0 &&
            strcmp (conf_profile_mode_name (PROFILE_MODE_RECORD), "record") == 0,
        "profile mode names read back");
    ok (strcmp (conf_profile_mode_name ((conf_profile_mode_t)-1), "unknown") == 0,
        "an out-of-range profile mode is named unknown");
}

int main (void)
{
    plan (NO_PLAN);
    test_defaults ();
    test_arguments ();
    test_rejections ();
    test_whole_line ();
    test_map_mode ();
    test_profile ();
    return done_testing ();
}
