/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the parts of lib/place.c that need no cluster: the choice
 * of the user's netmap directory in a shared site cache, and the names the
 * plugin trusts from its environment.  place_decide itself is driven
 * without Slurm in lib/test/place_decide.c, and through the plugin on the
 * emulated cluster (t/t20*-plugin-*.bats).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/exeid.h"
#include "lib/place.h"
#include "lib/profile.h"
#include "lib/profile_cache.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"

#define OTHER_UID 65534

static void test_names (void)
{
    ok (place_jobid_valid ("1") && place_jobid_valid ("12345678901234567890"),
        "job ids of 1 to 20 digits are valid");
    ok (!place_jobid_valid ("") && !place_jobid_valid (NULL) && !place_jobid_valid ("12a") &&
            !place_jobid_valid ("../1") && !place_jobid_valid ("1 ") &&
            !place_jobid_valid ("123456789012345678901") && !place_jobid_valid ("-1"),
        "anything else is not");
    ok (place_inside_step ("0") && place_inside_step ("17") && place_inside_step ("4294967280"),
        "a step id up to SLURM_MAX_NORMAL_STEP_ID is inside a step");
    ok (!place_inside_step (NULL) && !place_inside_step ("-5") && !place_inside_step ("-6") &&
            !place_inside_step ("-15") && !place_inside_step ("4294967291") &&
            !place_inside_step ("4294967295"),
        "unset, or a special step's id, signed (26.05's batch script: -5) or not, is not");
    ok (place_inside_step ("") && place_inside_step ("-") && place_inside_step ("-16") &&
            place_inside_step ("-0") && place_inside_step ("4294967296") &&
            place_inside_step ("12345678901") && place_inside_step ("5 ") &&
            place_inside_step ("batch"),
        "anything else counts as inside a step");
    ok (place_plan_name ("job42.Ab3xY9.hosts", "42"), "a plan's name of the job is accepted");
    ok (!place_plan_name ("job42.Ab3xY9.hosts", "43") && !place_plan_name ("job42.json", "42") &&
            !place_plan_name ("job42.1234.hosts", "42") &&
            !place_plan_name ("job42.Ab3xY9.hosts", "../42"),
        "other names, or another job's, are not");
}

static void test_cache (void)
{
    char site[PATH_MAX], own[PATH_MAX], sub[PATH_MAX + 32], path[PATH_MAX], note[512];
    uid_t me = getuid ();
    struct stat st;
    tm_error_t e = {""};
    int fd;

    in_dir (site, "site");
    in_dir (own, "home/.cache/topomap/netmaps");
    mkdir (site, 01777);
    chmod (site, 01777);
    snprintf (sub, sizeof (sub), "%s/%lu", site, (unsigned long)me);

    fd = place_cache_open ("", 0, own, me, path, sizeof (path), note, sizeof (note), &e);
    ok (fd >= 0 && !strcmp (path, own) && !note[0],
        "without a site cache, the user's own is made and used");
    ok (stat (own, &st) == 0 && (st.st_mode & 07777) == 0700, "mode 0700");
    close (fd);

    if (stat (site, &st) < 0 || st.st_uid != 0) {
        ok (1, "# SKIP the site cache checks need root, to own the site directory");
        return;
    }
    fd = place_cache_open (site, 0, own, me, path, sizeof (path), note, sizeof (note), &e);
    ok (fd >= 0 && !strcmp (path, own) && strstr (note, "mode 1777") &&
            strstr (note, "cache_sticky=yes") && access (sub, F_OK) < 0,
        "a root 1777 site without cache_sticky=yes: refused, nothing made, and why: %s", note);
    close (fd);
    fd = place_cache_open (site, 1, own, me, path, sizeof (path), note, sizeof (note), &e);
    ok (fd >= 0 && !strcmp (path, sub) && !note[0],
        "with cache_sticky=yes: SITE/UID made and used");
    ok (stat (sub, &st) == 0 && st.st_uid == me && (st.st_mode & 07777) == 0700,
        "SITE/UID is the user's, 0700");
    close (fd);

    /* Another user's directory at the user's name. */
    chown (sub, OTHER_UID, OTHER_UID);
    chmod (sub, 0777);
    fd = place_cache_open (site, 1, own, me, path, sizeof (path), note, sizeof (note), &e);
    ok (fd >= 0 && !strcmp (path, own) && strstr (note, sub) && strstr (note, "owned by uid 65534"),
        "another user's SITE/UID: the user's own cache, and why: %s", note);
    close (fd);
    ok (place_site_dir_open (site, 1, me, path, sizeof (path), &e) < 0 && strstr (e.text, sub),
        "place_site_dir_open names it: %s", e.text);
    rmdir (sub);

    /* A link at the user's name, to a directory of theirs. */
    symlink (own, sub);
    fd = place_cache_open (site, 1, own, me, path, sizeof (path), note, sizeof (note), &e);
    ok (fd >= 0 && !strcmp (path, own) && strstr (note, "link"),
        "a link at SITE/UID is not followed: %s", note);
    close (fd);
    unlink (sub);

    /* The user's own, but others may write it. */
    mkdir (sub, 0700);
    chmod (sub, 0770);
    fd = place_cache_open (site, 1, own, me, path, sizeof (path), note, sizeof (note), &e);
    ok (fd >= 0 && strstr (note, "mode 0770"), "a group-writable SITE/UID is refused: %s", note);
    close (fd);
    rmdir (sub);

    /* SITE itself: another user's, or world-writable without the sticky bit. */
    chown (site, OTHER_UID, OTHER_UID);
    fd = place_cache_open (site, 1, own, me, path, sizeof (path), note, sizeof (note), &e);
    ok (fd >= 0 && strstr (note, "cache=") && strstr (note, "owned by uid 65534"),
        "a SITE of another user's is refused: %s", note);
    close (fd);
    chown (site, 0, 0);
    chmod (site, 0777);
    fd = place_cache_open (site, 1, own, me, path, sizeof (path), note, sizeof (note), &e);
    ok (fd >= 0 && strstr (note, "mode 0777"), "a 0777 SITE without the sticky bit too: %s", note);
    close (fd);
    ok (access (sub, F_OK) < 0, "and nothing is made in it");

    /* As root for another user: SITE/UID of root's is not the user's. */
    {
        char osub[PATH_MAX + 32], oown[PATH_MAX];

        snprintf (osub, sizeof (osub), "%s/%d", site, OTHER_UID);
        in_dir (oown, "other/netmaps");
        chmod (site, 01777);
        mkdir (osub, 0700);
        fd = place_cache_open (site, 1, oown, OTHER_UID, path, sizeof (path), note, sizeof (note),
                               &e);
        ok (strstr (note, osub) && strstr (note, "owned by uid 0, not 65534"),
            "SITE/UID of root's is refused for the user: %s", note);
        if (fd >= 0)
            close (fd);
        chown (osub, OTHER_UID, OTHER_UID);
        fd = place_site_dir_open (site, 1, OTHER_UID, path, sizeof (path), &e);
        ok (fd >= 0 && !strcmp (path, osub), "SITE/UID of the user's, 0700, is taken");
        close (fd);
        rmdir (osub);
        write_file (osub, "x", 1, 0600);
        chown (osub, OTHER_UID, OTHER_UID);
        ok (place_site_dir_open (site, 1, OTHER_UID, path, sizeof (path), &e) < 0 &&
                strstr (e.text, "not a directory"),
            "a file of the user's at SITE/UID is refused: %s", e.text);
        unlink (osub);
        if (mkfifo (osub, 0600) == 0) {
            ok (place_site_dir_open (site, 1, OTHER_UID, path, sizeof (path), &e) < 0,
                "a FIFO at SITE/UID is refused without blocking: %s", e.text);
            unlink (osub);
        }
    }

    /* The user's own cache may not be another's either. */
    chmod (site, 01777);
    chown (own, OTHER_UID, OTHER_UID);
    fd = place_cache_open ("", 0, own, me, path, sizeof (path), note, sizeof (note), &e);
    ok (fd < 0 && strstr (e.text, "owned by uid 65534"), "an own cache of another user's fails: %s",
        e.text);
    chown (own, me, me);
    rmdir (sub);
}

/* Slurm's MpiDefault and PluginDir, as the test sets them. */
static const char *slurm_default, *slurm_plugins;

static void slurm_mpi (const char **mpi_default, const char **plugin_dir)
{
    *mpi_default = slurm_default;
    *plugin_dir = slurm_plugins;
}

/* When a plan may bind ranks to CPUs (place_bind_why_not). */
static void test_bind (void)
{
    char *nodes[] = {"n1", "n2", "n3"};
    int cpus[] = {8, 8, 8}, counts[] = {8, 8, 0}, loud = -1;
    layout_alloc_t a = {3, nodes, cpus};
    conf_t c;
    place_in_t in = {.conf = &c, .alloc = &a, .task_affinity = 1};
    const char *why;

    conf_default (&c, NULL, NULL, NULL);
    ok (!place_bind_why_not (&in, counts, 1, &loud) && loud == 0,
        "task/affinity, every CPU of the step's nodes, no --cpu-bind: the plan binds");
    why = place_bind_why_not (&in, counts, 2, &loud);
    ok (why && strstr (why, "does not take every CPU") && !loud,
        "2 CPUs a task, 16 of 8: no binding, said under -v: %s", why);
    counts[1] = 4;
    why = place_bind_why_not (&in, counts, 1, &loud);
    ok (why && strstr (why, "does not take every CPU"), "4 of 8 CPUs on n2: %s", why);
    counts[1] = 8;
    cpus[2] = 4;
    why = place_bind_why_not (&in, counts, 1, &loud);
    ok (why && strstr (why, "unequal CPU counts"),
        "a node of the job outside the step with 4 CPUs, where the probe runs too: %s", why);
    cpus[0] = cpus[1] = cpus[2] = counts[0] = counts[1] = 7;
    why = place_bind_why_not (&in, counts, 1, &loud);
    ok (why && strstr (why, "an odd count of CPUs"), "7 CPUs a node: %s", why);
    cpus[0] = cpus[1] = cpus[2] = counts[0] = counts[1] = 8;
    in.cpu_bind = "--cpu-bind given";
    why = place_bind_why_not (&in, counts, 1, &loud);
    ok (why && !strcmp (why, "--cpu-bind given") && loud == 1,
        "the user's --cpu-bind wins, said always: %s", why);
    in.cpu_bind = NULL;
    in.task_affinity = 0;
    why = place_bind_why_not (&in, counts, 1, &loud);
    ok (why && strstr (why, "without task/affinity") && !loud, "no task/affinity: %s", why);
    in.task_affinity = -1;
    why = place_bind_why_not (&in, counts, 1, &loud);
    ok (why && strstr (why, "unknown"), "Slurm's TaskPlugin unknown: %s", why);
    in.task_affinity = 1;
    c.bind = CONF_BIND_NO;
    why = place_bind_why_not (&in, counts, 1, &loud);
    ok (why && strstr (why, "bind=no"), "plugstack bind=no: %s", why);
    c.bind = CONF_BIND_ALWAYS;
    ok (!place_bind_why_not (&in, counts, 1, &loud), "bind=always: the plan binds");
}

static void test_probe_pick (void)
{
    char plugins[PATH_MAX], probe[CONF_PATH_MAX], mpi[CONF_MPI_MAX + 1], path[PATH_MAX];
    conf_t c;
    place_in_t in = {.conf = &c, .slurm_mpi = slurm_mpi};
    tm_error_t e = {""};

    conf_default (&c, "/b/topomap-probe", "/b/topomap-probe-mpich", "/l");
    in_dir (plugins, "plugins");
    mkdir (plugins, 0755);
    write_file (in_dir (path, "plugins/mpi_pmix.so"), "", 0, 0644);
    write_file (in_dir (path, "plugins/mpi_pmi2.so"), "", 0, 0644);
    slurm_plugins = plugins;

    ok (place_probe_pick (&in, probe, sizeof (probe), mpi, sizeof (mpi), &e) == 0 &&
            !strcmp (mpi, "pmix") && !strcmp (probe, "/b/topomap-probe"),
        "no --mpi, no MpiDefault, no MPI known: the Open MPI probe over pmix");
    slurm_default = "none";
    in.mpi = "pmi2";
    ok (place_probe_pick (&in, probe, sizeof (probe), mpi, sizeof (mpi), &e) == 0 &&
            !strcmp (mpi, "pmi2") && !strcmp (probe, "/b/topomap-probe-mpich"),
        "the step's --mpi=pmi2: the MPICH probe over pmi2");
    in.mpi = NULL;
    slurm_default = "pmi2";
    ok (place_probe_pick (&in, probe, sizeof (probe), mpi, sizeof (mpi), &e) == 0 &&
            !strcmp (mpi, "pmi2") && !strcmp (probe, "/b/topomap-probe-mpich"),
        "MpiDefault=pmi2 likewise");
    in.mpi = "pmix";
    ok (place_probe_pick (&in, probe, sizeof (probe), mpi, sizeof (mpi), &e) == 0 &&
            !strcmp (mpi, "pmix") && !strcmp (probe, "/b/topomap-probe"),
        "the step's --mpi before MpiDefault");
    in.mpi = "cray_shasta";
    write_file (in_dir (path, "plugins/mpi_cray_shasta.so"), "", 0, 0644);
    ok (place_probe_pick (&in, probe, sizeof (probe), mpi, sizeof (mpi), &e) < 0 &&
            strstr (e.text, "no probe for --mpi=cray_shasta"),
        "a type no probe speaks: %s", e.text);
    in.mpi = "../../x";
    ok (place_probe_pick (&in, probe, sizeof (probe), mpi, sizeof (mpi), &e) < 0 &&
            strstr (e.text, "not an --mpi type"),
        "a type that is not one: %s", e.text);

    /* A Slurm with pmi2 only (Debian's 26.05). */
    unlink (in_dir (path, "plugins/mpi_pmix.so"));
    in.mpi = "pmix";
    ok (place_probe_pick (&in, probe, sizeof (probe), mpi, sizeof (mpi), &e) < 0 &&
            strstr (e.text, "Slurm has no mpi_pmix plugin") && strstr (e.text, plugins),
        "--mpi=pmix where Slurm has no mpi_pmix: %s", e.text);
    in.mpi = NULL;
    slurm_default = "none";
    ok (place_probe_pick (&in, probe, sizeof (probe), mpi, sizeof (mpi), &e) == 0 &&
            !strcmp (mpi, "pmi2") && !strcmp (probe, "/b/topomap-probe-mpich"),
        "nothing said and only pmi2 there: the MPICH probe over pmi2");

    /* The plugstack's word is final. */
    snprintf (c.mpi, sizeof (c.mpi), "pmix");
    ok (place_probe_pick (&in, probe, sizeof (probe), mpi, sizeof (mpi), &e) < 0 &&
            strstr (e.text, "plugstack mpi="),
        "plugstack mpi=pmix is kept, and named when Slurm lacks it: %s", e.text);
    snprintf (c.mpi, sizeof (c.mpi), "pmi2");
    snprintf (c.probe_mpich, sizeof (c.probe_mpich), "/site/probe");
    ok (place_probe_pick (&in, probe, sizeof (probe), mpi, sizeof (mpi), &e) == 0 &&
            !strcmp (mpi, "pmi2") && !strcmp (probe, "/site/probe"),
        "plugstack probe_mpich= and mpi= are used as given");
    c.mpi[0] = '\0';
    c.probe_mpich[0] = '\0';
    ok (place_probe_pick (&in, probe, sizeof (probe), mpi, sizeof (mpi), &e) < 0 &&
            strstr (e.text, "built without MPICH"),
        "no MPICH probe built: %s", e.text);
}

/* A recording as rank 0 leaves it at path: the recorder's, of 4 ranks,
 * bytes b01 on the pair 0 -> 1 and b23 on 2 -> 3 (0: the pair did not
 * talk), collectives counted or not.
 */
static int write_recording (const char *path, uint64_t b01, uint64_t b23, int collectives)
{
    profile_entry_t t[2];
    size_t n = 0;
    profile_t *p;
    int rc;

    if (b01)
        t[n++] = (profile_entry_t){0, 1, 1, b01};
    if (b23)
        t[n++] = (profile_entry_t){2, 3, 1, b23};
    p = profile_create (4, n, t, NULL);
    if (p)
        p->collectives = collectives;
    rc = p && profile_set_string (&p->source, "recorder", NULL) == 0 &&
                 profile_write (p, path, 0600, NULL) == 0
             ? 0
             : -1;
    profile_destroy (p);
    return rc;
}

/* File the recording at rec (check as given) and read back what the cache
 * holds at stored: NULL when either fails, with the reason in e.
 */
static profile_t *file_and_read (const char *rec, const char *cache, const char *stored, int check,
                                 char *msg, size_t len, tm_error_t *e)
{
    int fd = open (cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

    msg[0] = '\0';
    rc = place_file_recording (rec, "/proc/self/exe", 4, fd, cache, check, msg, len, e);
    if (fd >= 0)
        close (fd);
    return rc < 0 ? NULL : profile_read (stored, e);
}

/* File the recording at rec as one of 3 tasks. */
static int file_other_count (const char *rec, const char *cache, char *msg, size_t len,
                             tm_error_t *e)
{
    int fd = open (cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

    rc = place_file_recording (rec, "/proc/self/exe", 3, fd, cache, 1, msg, len, e);
    if (fd >= 0)
        close (fd);
    return rc;
}

static void test_file_recording (void)
{
    char cache[PATH_MAX], rec[PATH_MAX], msg[1024], id[EXEID_MAX + 1], stored[PATH_MAX];
    profile_t *p = NULL;
    tm_error_t e = {""}, w;

    in_dir (cache, "profiles");
    mkdir (cache, 0700);
    in_dir (rec, "profiles/.record-job7.x.json");
    if (exeid_compute ("/proc/self/exe", id, sizeof (id), &e) < 0 ||
        profile_cache_path (cache, id, 4, stored, sizeof (stored), &e) < 0) {
        ok (0, "the test program has an identity: %s", e.text);
        return;
    }

    ok (write_recording (rec, 1000, 10, 0) == 0 &&
            (p = file_and_read (rec, cache, stored, 1, msg, sizeof (msg), &e)) && !p->recheck &&
            !strcmp (p->exe_id, id) && access (rec, F_OK) < 0 &&
            strstr (msg, "recorded the profile of /proc/self/exe for 4 tasks: "),
        "a recording to check, with nothing filed, is filed as the profile: %s", msg);
    profile_destroy (p);

    ok (write_recording (rec, 1000, 900, 0) == 0 &&
            (p = file_and_read (rec, cache, stored, 0, msg, sizeof (msg), &e)) && !p->recheck &&
            p->total_bytes == 1900,
        "a recording not to check replaces the profile: %s", msg);
    profile_destroy (p);

    ok (write_recording (rec, 0, 0, 0) == 0 &&
            (p = file_and_read (rec, cache, stored, 1, msg, sizeof (msg), &e)) && !p->recheck &&
            p->total_bytes == 1900 && access (rec, F_OK) < 0 &&
            !strcmp (msg, "the second recording of /proc/self/exe for 4 tasks sent nothing point "
                          "to point: not kept as the profile's check"),
        "one to check that sent nothing is not kept, the profile left as it was: %s", msg);
    profile_destroy (p);

    ok (write_recording (rec, 1000, 10, 0) == 0 &&
            (p = file_and_read (rec, cache, stored, 1, msg, sizeof (msg), &e)) && p->recheck &&
            p->total_bytes == 1900 && p->recheck->total_bytes == 1010 &&
            strstr (msg, "recorded a second profile of /proc/self/exe for 4 tasks, to plan from "
                         "what recurs: 53.6% of the traffic recurs in it: "),
        "a recording to check becomes the check of the profile of one: %s", msg);
    profile_destroy (p);

    ok (write_recording (rec, 5, 5, 0) == 0 &&
            (p = file_and_read (rec, cache, stored, 1, msg, sizeof (msg), &e)) && p->recheck &&
            p->total_bytes == 1900 && p->recheck->total_bytes == 1010 && access (rec, F_OK) < 0 &&
            strstr (msg, "has its check already (another srun filed it): this recording is not "
                         "kept"),
        "one to check a profile that has its check already is not kept: %s", msg);
    profile_destroy (p);

    ok (write_recording (rec, 5, 5, 1) == 0 &&
            (p = file_and_read (rec, cache, stored, 1, msg, sizeof (msg), &e)) && !p->recheck &&
            p->total_bytes == 10 && p->collectives,
        "one that counts collectives where the profile did not replaces it: %s", msg);
    profile_destroy (p);

    ok (write_recording (rec, 0, 0, 1) == 0 &&
            (p = file_and_read (rec, cache, stored, 0, msg, sizeof (msg), &e)) &&
            p->total_bytes == 0 && write_recording (rec, 7, 7, 1) == 0 &&
            (profile_destroy (p),
             p = file_and_read (rec, cache, stored, 1, msg, sizeof (msg), &e)) &&
            !p->recheck && p->total_bytes == 14,
        "one to check a profile that sent nothing replaces it: %s", msg);
    profile_destroy (p);
    p = NULL;

    ok (write_recording (rec, 5, 5, 0) == 0 &&
            file_other_count (rec, cache, msg, sizeof (msg), &e) < 0 &&
            strstr (e.text, "recorded 4 tasks, the step had 3") && access (rec, F_OK) < 0 &&
            (p = profile_read (stored, &w)) && p->total_bytes == 14,
        "a recording of another task count is not filed, and removed; the profile stays: %s",
        e.text);
    profile_destroy (p);
    unlink (rec);
}

/* place_alive_f of the tidy test: job 6 runs, 5 and 7 ended; -1 for all
 * when arg says slurmctld did not answer. */
static int fake_alive (void *arg, unsigned long id)
{
    if (arg)
        return -1;
    return id == 6;
}

static void test_tidy (void)
{
    const char *old[] = {"job5.json",
                         "job5.json.lock",
                         "job5.json.log",
                         "job5.Ab3xYz.hosts",
                         ".job5.json.probe.Qw3rTy",
                         "job6.json",
                         "job8.json",
                         "notes.txt"};
    char d[PATH_MAX], p[PATH_MAX + 64];
    struct timespec then[2] = {{.tv_sec = time (NULL) - 7200}, {.tv_sec = time (NULL) - 7200}};
    long files;
    long long bytes;
    int dfd;

    mkdir (in_dir (d, "tidy"), 0700);
    for (size_t i = 0; i < sizeof (old) / sizeof (old[0]); i++) {
        snprintf (p, sizeof (p), "%s/%s", d, old[i]);
        write_file (p, "0123456789", 10, 0600);
        utimensat (AT_FDCWD, p, then, 0);
    }
    snprintf (p, sizeof (p), "%s/job7.json", d);
    write_file (p, "young", 5, 0600);
    dfd = open (d, O_RDONLY | O_DIRECTORY);
    ok (place_cache_tidy (dfd, 8, 3600, fake_alive, (void *)1, &files, &bytes) == 0 && files == 9 &&
            bytes == 85,
        "slurmctld not answering: nothing removed, 9 files of 85 bytes counted");
    ok (place_cache_tidy (dfd, 8, 3600, fake_alive, NULL, &files, &bytes) == 5 && files == 4 &&
            bytes == 35,
        "the five files of an ended job older than the TTL go; 4 files of 35 bytes stay");
    snprintf (p, sizeof (p), "%s/job5.json", d);
    ok (access (p, F_OK) < 0, "job5.json is gone");
    snprintf (p, sizeof (p), "%s/job6.json", d);
    ok (access (p, F_OK) == 0, "a running job's old netmap stays");
    snprintf (p, sizeof (p), "%s/job7.json", d);
    ok (access (p, F_OK) == 0, "an ended job's netmap younger than the TTL stays");
    snprintf (p, sizeof (p), "%s/job8.json", d);
    ok (access (p, F_OK) == 0, "the step's own job's stays");
    snprintf (p, sizeof (p), "%s/notes.txt", d);
    ok (access (p, F_OK) == 0, "a file of no job's is left alone");
    /* job7.json's time a few seconds ahead of the clock, as the kernel's
     * fine-grained file times or another node's clock can set it */
    snprintf (p, sizeof (p), "%s/job7.json", d);
    then[0].tv_sec = then[1].tv_sec = time (NULL) + 5;
    utimensat (AT_FDCWD, p, then, 0);
    ok (place_cache_tidy (dfd, 8, 0, fake_alive, NULL, &files, &bytes) == 1 && files == 3,
        "probe_ttl=0: an ended job's files go at once, even with a time ahead of the clock");
    close (dfd);
}

int main (void)
{
    plan (NO_PLAN);
    umask (022);
    if (scratch_dir ("place-test") < 0)
        return done_testing ();
    chmod (dir, 0755);
    test_names ();
    test_probe_pick ();
    test_bind ();
    test_cache ();
    test_file_recording ();
    test_tidy ();
    remove_tree (dir);
    return done_testing ();
}
