/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topomap.so: the SPANK plugin.  Glue only: every decision lives in lib/
 * (lib/place.c).  See topomap.so(8).
 *
 *   srun (local)        --topo-map, --topo-profile; at init_post_opt, ask
 *                       place_decide, then set SLURM_HOSTFILE and execute
 *                       srun again, or record, or leave srun alone; at
 *                       exit, file a recorded profile.
 *   sbatch, salloc      --topo-profile (and --topo-map) hold for every
 *                       srun of the job, through Slurm's SLURM_SPANK_*
 *                       environment.
 *   slurmstepd (remote) at init_post_opt, give Slurm's pmi2 plugin the
 *                       placed step's PMI_process_mapping; at task_init,
 *                       set each task's NIC where the plan chose it, and
 *                       preload the recorder into the tasks of a recording
 *                       step.
 *
 * No callback returns an error: an error could leave a job pending or
 * drain a node.  Strict mode fails a step by ending srun at
 * init_post_opt, before the step exists.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "lib/conf.h"
#include "lib/exeid.h"
#include "lib/file.h"
#include "lib/history.h"
#include "lib/layout.h"
#include "lib/place.h"
#include "lib/slurmtopo.h"
#include "lib/profile_cache.h"
#include "lib/railmap.h"
#include "lib/recorder.h"
#include "lib/srunargs.h"
#include "lib/stepopts.h"
#include "lib/compat.h"
#include "lib/topoconf.h"
#include "lib/topoyaml.h"

SPANK_PLUGIN (topomap, 1);

static struct {
    int disabled; /* plugstack.conf arguments were bad */
    conf_t conf;
    int map_given;
    char *map_arg;
    int profile_given;
    char *profile_arg;
    int verbose;      /* srun -v, or verbose= in plugstack.conf */
    int recording;    /* this srun records: file the profile at exit */
    int record_check; /* as the check of the cached one (place.h) */
    char record[4096];
    char exe[4096];
    int ntasks;
    char user_cache[4096];
    int user_cache_fd;           /* user_cache held from cache_open to exit, or -1 */
    tm_error_t user_cache_error; /* why it is -1 */
    char hostfile[4096];         /* the re-executed srun's plan: removed at exit */
    int set_vars;                /* this srun set the variables of exported[] */
    char note[512];              /* why the site cache was not used, said with the outcome */
    char args[HISTORY_ARGS + 1]; /* the hash of the step's arguments, "" unknown */
    char history[256];           /* the profile's runs, to add this run to at exit */
    history_layout_t layout;     /* the layout this run has */
    double t0;                   /* when the run was decided (CLOCK_MONOTONIC) */
} tm;

static int opt_map (int val, const char *arg, int remote)
{
    free (tm.map_arg);
    tm.map_arg = arg ? strdup (arg) : NULL;
    tm.map_given = 1;
    return 0;
}

static int opt_profile (int val, const char *arg, int remote)
{
    free (tm.profile_arg);
    tm.profile_arg = arg ? strdup (arg) : NULL;
    tm.profile_given = 1;
    return 0;
}

static struct spank_option options[] = {
    {"topo-map", "MODE",
     "place ranks by the measured network and the program's communication profile; "
     "MODE: auto (default), bandwidth, latency, off, strict, dry-run",
     2, 0, opt_map},
    {"topo-profile", "auto|record|off|PATH|NAME",
     "communication profile to place by: auto (cached, recorded when missing), record, off, "
     "a file or a cached name",
     1, 0, opt_profile},
    SPANK_OPTIONS_TABLE_END};

/* Every line the plugin logs goes through here: what it says may hold
 * paths, names and values the user chose, so control characters are
 * escaped (errquote) before Slurm's log or a terminal sees them.
 */
#define LOG_MAX 1200
static void vlog (int error, const char *fmt, va_list ap)
{
    char buf[LOG_MAX + 1], safe[4 * LOG_MAX + 8];

    vsnprintf (buf, sizeof (buf), fmt, ap);
    errquote (buf, LOG_MAX, safe, sizeof (safe));
    if (error)
        slurm_error ("%s", safe);
    else
        slurm_info ("%s", safe);
}

static void log_info (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
static void log_info (const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    vlog (0, fmt, ap);
    va_end (ap);
}

static void log_error (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
static void log_error (const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    vlog (1, fmt, ap);
    va_end (ap);
}

/* The outcome's one line, with the site cache's note when there is one. */
static void outcome (const char *what)
{
    if (tm.note[0])
        log_info ("topomap: %s [site cache not used: %s]", what, tm.note);
    else
        log_info ("topomap: %s", what);
}

int slurm_spank_init (spank_t sp, int ac, char **av)
{
    tm_error_t e;

    conf_default (&tm.conf, TOPOMAP_PROBE, TOPOMAP_PROBE_MPICH, TOPOMAP_PKGLIBDIR);
    if (conf_parse (&tm.conf, ac, av, &e) < 0) {
        log_error ("topomap: %s: plugin disabled", e.text);
        tm.disabled = 1;
        return 0;
    }
    for (struct spank_option *o = options; o->name; o++)
        if (spank_option_register (sp, o) != ESPANK_SUCCESS)
            log_error ("topomap: cannot register --%s", o->name);
    return 0;
}

static void say (const char *fmt, ...)
{
    va_list ap;

    if (!tm.verbose)
        return;
    va_start (ap, fmt);
    vlog (0, fmt, ap);
    va_end (ap);
}

/* An option of srun's as a number (0 when unset). */
static int srun_int (const char *name)
{
    char buf[64];

    compat_srun_get (name, buf, sizeof (buf));
    return atoi (buf);
}

/* The allocation, from SLURM_JOB_NODELIST (libslurm's hostlist) and
 * SLURM_JOB_CPUS_PER_NODE.
 */
static layout_alloc_t *alloc_from_env (tm_error_t *e)
{
    const char *list = getenv ("SLURM_JOB_NODELIST"), *cpus = getenv ("SLURM_JOB_CPUS_PER_NODE");
    layout_alloc_t *a;
    tm_error_t why;
    char **names;
    int n;

    if (!list || !cpus) {
        errprintf (e, "SLURM_JOB_NODELIST or SLURM_JOB_CPUS_PER_NODE is not set");
        return NULL;
    }
    if (!(names = compat_hostlist_expand (list, &n, &why))) {
        errprintf (e, "SLURM_JOB_NODELIST: %s", why.text);
        return NULL;
    }
    a = layout_alloc_create (n, (const char *const *)names, cpus, e);
    compat_names_free (names, n);
    return a;
}

/* srun's own arguments, from /proc/self/cmdline: a NULL-terminated vector
 * into *buf (free both), its length in *argc.
 */
static char **srun_argv (char **buf, int *argc, tm_error_t *e)
{
    size_t len;
    char **argv;

    if (!(*buf = srunargs_read ("/proc/self/cmdline", &len, e)))
        return NULL;
    if (!(argv = srunargs_split (*buf, len, argc))) {
        errprintf (e, "/proc/self/cmdline: %s", len ? strerror (errno) : "empty");
        free (*buf);
        *buf = NULL;
    }
    return argv;
}

/* The step's command (srun's first argument that is neither an option nor
 * an option's value), resolved as srun resolves it: from --chdir when
 * given, else the working directory, along PATH.  A --multi-prog step's
 * is its configuration file: it has no one executable.
 */
static int step_exe (char *out, size_t len, tm_error_t *e)
{
    char *buf, **argv, cwd[4096];
    int argc, cmd, rc = -1;

    if (compat_srun_isset ("multi-prog"))
        return errprintf (e, "a --multi-prog step runs a program per rank");
    if (!(argv = srun_argv (&buf, &argc, e)))
        return -1;
    if ((cmd = compat_srun_command (argc, argv, e)) >= 0) {
        history_args_hash (argc - cmd - 1, argv + cmd + 1, tm.args);
        compat_srun_get ("chdir", cwd, sizeof (cwd));
        rc = exeid_resolve (argv[cmd], cwd[0] == '/' ? cwd : NULL, getenv ("PATH"), out, len, e);
    }
    free (argv);
    free (buf);
    return rc;
}

/* Execute srun again with its own argv, now that SLURM_HOSTFILE is set;
 * returns only when that fails, saying why in e.
 */
static void reexec (tm_error_t *e)
{
    char *buf, **argv;
    int argc;

    if (!(argv = srun_argv (&buf, &argc, e)))
        return;
    fflush (NULL);
    execv ("/proc/self/exe", argv);
    errprintf (e, "%s", strerror (errno));
    free (argv);
    free (buf);
}

/* What the plugin sets for slurmstepd and the tasks. */
static const char *const exported[] = {
    RECORDER_ENV,   PLACE_ENV_RECORDER, PLACE_ENV_MODE, PLACE_ENV_PLAN,
    PLACE_ENV_GAIN, PLACE_ENV_REASON,   PLACE_ENV_PMI,  PLACE_ENV_NICS,
};
#define NEXPORTED (sizeof (exported) / sizeof (exported[0]))

/* srun --export without ALL (or SLURM_EXPORT_ENV) passes the tasks only
 * SLURM_* and the variables it names, up to a NONE: name the plugin's
 * first, so that srun takes their values at launch (launch_slurm.c,
 * _build_user_env).  Only variables this srun set: one inherited from an
 * outer step stays behind as the user asked.
 */
static void export_ours (void)
{
    char *cur, *val;
    tm_error_t e;

    if (!tm.set_vars || compat_srun_open (NULL) < 0 || !(cur = compat_srun_dup ("export")))
        return;
    if ((val = stepopts_export_with (cur, exported, NEXPORTED))) {
        if (compat_srun_set ("export", val, &e) < 0)
            log_error ("topomap: cannot add its variables to --export: %s", e.text);
        free (val);
    } else if (errno == ENOMEM)
        log_error ("topomap: out of memory");
    free (cur);
}

/* The user's profile cache into tm.user_cache, held in tm.user_cache_fd
 * (-1, tm.user_cache_error saying why, when it cannot be trusted).
 */
static int user_cache_open (tm_error_t *e)
{
    tm.user_cache[0] = '\0';
    tm.user_cache_fd = -1;
    if (profile_cache_user_dir (getenv ("XDG_CACHE_HOME"), getenv ("HOME"), tm.user_cache,
                                sizeof (tm.user_cache), e) < 0)
        return -1;
    tm.user_cache_fd = file_open_trusted_dir (tm.user_cache, getuid (), 0700, &tm.user_cache_error);
    return 0;
}

static double now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* This run joins the profile's runs name at exit, under layout. */
static void run_track (const char *name, history_layout_t layout)
{
    snprintf (tm.history, sizeof (tm.history), "%s", name);
    tm.layout = layout;
    tm.t0 = now ();
}

/* At exit: this run added to the profile's runs.  srun's exit status is
 * not the plugin's to see: a run that failed counts too. */
static void run_add (void)
{
    history_run_t run = {.time = time (NULL), .layout = tm.layout, .elapsed_s = now () - tm.t0};
    tm_error_t e;

    memcpy (run.args, tm.args, sizeof (run.args));
    if (history_addat (tm.user_cache_fd, tm.history, tm.history, getuid (), &run, &e) < 0)
        log_info ("topomap: this run not added to the profile's runs: %s", e.text);
}

/* The user's profile cache (user_cache_open), and the directory of
 * their netmaps and plans opened (place_cache_open): in the site's cache=,
 * else beside the profiles (.../topomap/netmaps).  A descriptor, its path
 * in path; note says why the site's was not used.
 */
static int cache_open (char *path, size_t len, char *note, size_t notelen, tm_error_t *e)
{
    char own[4096];
    const char *slash;

    if (user_cache_open (e) < 0)
        return -1;
    slash = strrchr (tm.user_cache, '/');
    if (snprintf (own, sizeof (own), "%.*s/netmaps", slash ? (int)(slash - tm.user_cache) : 0,
                  tm.user_cache) >= (int)sizeof (own))
        return errprintf (e, "the netmap directory's path is too long");
    return place_cache_open (tm.conf.cache, tm.conf.cache_sticky, own, getuid (), path, len, note,
                             notelen, e);
}

/* Remove the plan the first round made, named in the second round's
 * TOPOMAP_REEXEC: only a file of a name place_decide gives, in the
 * directory the plugin checked.
 */
static void remove_plan (const char *plan)
{
    const char *slash = strrchr (plan, '/'), *jobid = getenv ("SLURM_JOB_ID");
    char dir[4096], note[512];
    tm_error_t e;
    int fd;

    if (!slash || !jobid || !place_plan_name (slash + 1, jobid)) {
        log_error ("topomap: %s=%s: not a plan of this job's, not removed", PLACE_ENV_REEXEC, plan);
        return;
    }
    if ((fd = cache_open (dir, sizeof (dir), note, sizeof (note), &e)) < 0)
        return;
    if (strlen (dir) == (size_t)(slash - plan) && !strncmp (dir, plan, strlen (dir)))
        unlinkat (fd, slash + 1, 0);
    else
        log_error ("topomap: %s=%s: not in %s, not removed", PLACE_ENV_REEXEC, plan, dir);
    close (fd);
}

/* Slurm's configuration, asked for by slurm_mpi and site_netmap; freed by
 * post_opt_local. */
static slurm_conf_t *ctl;

/* ctl, through Slurm's public configuration call (an RPC to slurmctld)
 * the first time; NULL when slurmctld does not answer.
 */
static slurm_conf_t *slurm_ctl (void)
{
    if (!ctl && slurm_load_ctl_conf ((time_t)0, &ctl) != SLURM_SUCCESS)
        ctl = NULL;
    return ctl;
}

/* slurmctld's topology of the job's partition (compat_topo_text), asked
 * for once by step_order or site_netmap, whichever first; freed by
 * post_opt_local. */
static char *topo_text;
static tm_error_t topo_error;
static int topo_asked;

/* topo_text, NULL with errp saying why slurmctld gave none. */
static const char *slurm_topo (tm_error_t *errp)
{
    if (!topo_asked) {
        topo_asked = 1;
        compat_topo_text (getenv ("SLURM_JOB_PARTITION"), &topo_text, &topo_error);
    }
    if (!topo_text)
        errprintf (errp, "%s", topo_error.text);
    return topo_text;
}

/* The user's jobs slurmctld knows, asked for once when a netmap
 * directory is tidied (job_alive); freed by post_opt_local. */
static job_info_msg_t *jobs;
static int jobs_asked;

/* place_alive_f: a job slurmctld no longer knows has ended (it keeps
 * finished jobs MinJobAge seconds). */
static int job_alive (void *arg, unsigned long id)
{
    (void)arg;
    if (!jobs_asked) {
        jobs_asked = 1;
        if (slurm_load_job_user (&jobs, getuid (), SHOW_ALL) != SLURM_SUCCESS)
            jobs = NULL;
    }
    if (!jobs)
        return -1;
    for (uint32_t i = 0; i < jobs->record_count; i++)
        if (jobs->job_array[i].job_id == id)
            return (jobs->job_array[i].job_state & JOB_STATE_BASE) <= JOB_SUSPENDED;
    return 0;
}

/* MpiDefault and PluginDir, for the probe's --mpi (place_probe_pick):
 * asked only when a probe is to run.
 */
static void slurm_mpi (const char **mpi_default, const char **plugin_dir)
{
    slurm_ctl ();
    *mpi_default = ctl ? ctl->mpi_default : NULL;
    *plugin_dir = ctl ? ctl->plugindir : NULL;
}

/* The path of file name beside slurm.conf (ctl's), in path[len]; -1
 * when ctl names none or it does not fit. */
static int beside_slurm_conf (const char *name, char *path, size_t len)
{
    const char *slash;

    if (!ctl || !ctl->slurm_conf || !(slash = strrchr (ctl->slurm_conf, '/')) ||
        snprintf (path, len, "%.*s/%s", (int)(slash - ctl->slurm_conf), ctl->slurm_conf, name) >=
            (int)len)
        return -1;
    return 0;
}

/* Whether Slurm has a topology of switches or blocks: TopologyPlugin
 * topology/tree or topology/block, or a topology.yaml beside slurm.conf
 * (which Slurm 25.05 and later read first).  Asked before slurmctld's
 * topology is, which on a flat cluster libslurm answers with an error
 * line of its own on srun's standard error. */
static bool slurm_has_tree (void)
{
    char yaml[CONF_PATH_MAX];
    struct stat st;

    if (!slurm_ctl ())
        return false;
    return (ctl->topology_plugin && (!strcmp (ctl->topology_plugin, "topology/tree") ||
                                     !strcmp (ctl->topology_plugin, "topology/block"))) ||
           (beside_slurm_conf ("topology.yaml", yaml, sizeof (yaml)) == 0 && stat (yaml, &st) == 0);
}

/* plugstack topology=: a topology.conf over the allocation's nodes, with
 * the figures of its levels (lib/topoconf.h, or topology_levels=), site
 * then saying which; without them, errno ENODATA and the file's path in
 * site[len] (place.h).  auto: the topology.conf
 * beside slurm.conf where Slurm reads it (TopologyPlugin topology/tree and
 * no topology.yaml, which Slurm 25.05 and later read first), for the
 * figures it may carry; else slurmctld's own topology, a tree or blocks
 * (topology.yaml, configless sites), which has none: *text then holds it
 * as a topology.conf for the probe.
 */
static netmap_t *site_netmap_of (const char *topology, const layout_alloc_t *alloc, char *site,
                                 size_t len, char **text, tm_error_t *errp)
{
    char path[CONF_PATH_MAX], yaml_path[CONF_PATH_MAX], **hosts = alloc->nodes, *copy;
    const char *printed;
    topoconf_level_t levels[TOPOCONF_LEVELS];
    const char *source = path;
    int n = alloc->nnodes, from_file = 1, yaml = 0;
    struct stat st;
    netmap_t *nm;
    topo_t *t;
    tm_error_t e;

    *text = NULL;
    if (strcmp (topology, "auto") != 0)
        snprintf (path, sizeof (path), "%s", topology);
    else {
        if (!slurm_ctl ()) {
            errprintf (errp, "Slurm's configuration: no answer from slurmctld");
            return NULL;
        }
        if (beside_slurm_conf ("topology.conf", path, sizeof (path)) < 0 ||
            beside_slurm_conf ("topology.yaml", yaml_path, sizeof (yaml_path)) < 0)
            from_file = 0;
        else
            from_file = ctl->topology_plugin && !strcmp (ctl->topology_plugin, "topology/tree") &&
                        stat (yaml_path, &st) < 0 && errno == ENOENT && stat (path, &st) == 0;
    }
    if (from_file && file_trusted (path, getuid (), 0, &e) < 0) {
        errprintf (errp, "%s is not safe to read: %s", path, e.text);
        return NULL;
    }
    /* A topology.yaml given: its cluster default, and its text for the
     * probe as with slurmctld's. */
    yaml = from_file && topoyaml_named (path);
    if (yaml)
        t = topoyaml_read (path, NULL, &n, &hosts, levels, text, errp);
    else if (from_file)
        t = topoconf_read (path, &n, &hosts, levels, errp);
    else {
        source = "Slurm's topology";
        if (!(printed = slurm_topo (errp)))
            return NULL;
        if (slurmtopo_conf (printed, text, &e) < 0) {
            if (errno == ENOENT)
                errprintf (errp, "%s (TopologyPlugin %s)", e.text,
                           ctl->topology_plugin ? ctl->topology_plugin : "unset");
            else
                errprintf (errp, "%s", e.text);
            return NULL;
        }
        /* topoconf_parse edits what it reads: the text is kept whole */
        if (!(copy = strdup (*text))) {
            errnomem (errp);
            t = NULL;
        } else
            t = topoconf_parse (copy, source, NULL, 0, &n, &hosts, levels, errp);
        free (copy);
        if (!t) {
            free (*text);
            *text = NULL;
            return NULL;
        }
    }
    if (!t)
        return NULL;
    /* plugstack topology_levels= for the levels the file has no figures of */
    for (int l = 1; l < TOPOCONF_LEVELS && l < CONF_LEVELS; l++) {
        if (isnan (levels[l].lat_us) && tm.conf.level_lat_us[l] > 0)
            levels[l].lat_us = tm.conf.level_lat_us[l];
        if (isnan (levels[l].bw_MBps) && tm.conf.level_bw_MBps[l] > 0)
            levels[l].bw_MBps = tm.conf.level_bw_MBps[l];
    }
    if ((nm = topoconf_netmap (t, n, (const char *const *)hosts, levels, &e)))
        snprintf (site, len, "%s",
                  yaml        ? "the site's topology.yaml"
                  : from_file ? "the site's topology.conf"
                              : "Slurm's topology");
    else {
        int err = errno;
        errprintf (errp, "%s: %s", source, e.text);
        if (err == ENODATA && from_file && !yaml && snprintf (site, len, "%s", path) >= (int)len)
            err = ENAMETOOLONG;
        errno = err;
    }
    if (!nm && errno != ENODATA) {
        free (*text);
        *text = NULL;
    }
    return nm;
}

/* site_netmap_of for place.h; topology "" (the default): as auto where
 * Slurm has a topology, else errno ENOENT (a flat cluster: nothing to
 * say, nothing asked). */
static netmap_t *site_netmap (const char *topology, const layout_alloc_t *alloc, char *site,
                              size_t len, char **text, tm_error_t *errp)
{
    if (!topology[0] && !slurm_has_tree ()) {
        errprintf (errp, "Slurm has no topology of switches or blocks");
        errno = ENOENT;
        return NULL;
    }
    return site_netmap_of (topology[0] ? topology : "auto", alloc, site, len, text, errp);
}

/* How srun orders the step's nodes on this Slurm (lib/slurmtopo.h):
 * *rank (new) the topology's ranks where it lays block steps out by them,
 * else NULL; name says which order for people; why (non-empty) why it is
 * not known.  -1 only when out of memory.
 */
static int step_order (const layout_alloc_t *a, int **rank, char *name, size_t namelen, char *why,
                       size_t whylen)
{
    const char *text, *param;
    tm_error_t e;
    int rc;

    *rank = NULL;
    snprintf (name, namelen, "allocation order");
    why[0] = '\0';
    if ((rc = compat_topo_order (slurm_ctl (), &param, &e)) <= 0 || !(text = slurm_topo (&e))) {
        if (rc != 0)
            snprintf (why, whylen, "%s", e.text);
        return 0;
    }
    if (!(*rank = malloc ((size_t)a->nnodes * sizeof (**rank))))
        return -1;
    rc = slurmtopo_ranks (text, param, a->nnodes, a->nodes, *rank, name, namelen, why, whylen, &e);
    if (rc < 0)
        snprintf (why, whylen, "slurmctld's topology: %s", e.text);
    if (rc != SLURMTOPO_RANKED) {
        free (*rank);
        *rank = NULL;
    }
    return rc < 0 && errno == ENOMEM ? -1 : 0;
}

/* Leave srun alone for the reason given; in strict mode, fail the step. */
static int pass (conf_map_mode_t mode, int failed, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static int pass (conf_map_mode_t mode, int failed, const char *fmt, ...)
{
    char reason[800];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (reason, sizeof (reason), fmt, ap);
    va_end (ap);
    setenv (PLACE_ENV_MODE, "default", 1);
    setenv (PLACE_ENV_REASON, reason, 1);
    tm.set_vars = 1;
    if (mode == CONF_MAP_STRICT) {
        /* srun ignores the error of an optional plugin: strict mode ends
         * srun here, before any allocation or step exists (only srun's
         * own atexit handler runs, and it has nothing to do yet).
         */
        log_error ("topomap: %s (--topo-map=strict)", reason);
        fflush (NULL);
        exit (1);
    }
    if (failed || tm.verbose || tm.note[0]) {
        char line[sizeof (reason) + 32];

        snprintf (line, sizeof (line), "srun's own placement: %s", reason);
        outcome (line);
    }
    return 0;
}

/* The placed run the first round named in TOPOMAP_RUNS ("NAME ARGS"),
 * tracked to join the profile's runs at exit; anything else in it is
 * ignored. */
static void placed_run (void)
{
    const char *runs = getenv (PLACE_ENV_RUNS), *sp;
    char name[256];
    tm_error_t e;

    if (!runs || !(sp = strchr (runs, ' ')) || (size_t)(sp - runs) >= sizeof (name) ||
        !history_args_ok (sp + 1))
        return;
    snprintf (name, sizeof (name), "%.*s", (int)(sp - runs), runs);
    if (!history_name_ok (name) || user_cache_open (&e) < 0 || tm.user_cache_fd < 0)
        return;
    snprintf (tm.args, sizeof (tm.args), "%s", sp + 1);
    run_track (name, HISTORY_PLAN);
}

/* The second round, in the srun executed again with --topo-map:
 * SLURM_HOSTFILE was read by now and must not reach the tasks; the plan
 * is removed at exit.  Without --topo-map the variable is not this
 * plugin's doing, and is dropped.  Whether this is the second round.
 */
static bool second_round (void)
{
    const char *plan = getenv (PLACE_ENV_REEXEC);

    if (!plan)
        return false;
    if (tm.map_given) {
        snprintf (tm.hostfile, sizeof (tm.hostfile), "%s", plan);
        unsetenv ("SLURM_HOSTFILE");
        tm.set_vars = 1; /* by the first round */
        placed_run ();
    }
    unsetenv (PLACE_ENV_REEXEC);
    unsetenv (PLACE_ENV_RUNS);
    return true;
}

/* What slurmctld told this srun, forgotten once the step is decided. */
static void forget_slurm (void)
{
    compat_conf_free (ctl);
    ctl = NULL;
    free (topo_text);
    topo_text = NULL;
    topo_asked = 0;
    slurm_free_job_info_msg (jobs);
    jobs = NULL;
    jobs_asked = 0;
}

/* Steps whose layout a hostfile cannot give, or that are not the user's
 * own to place: pass's status, or -1 when the step may be placed. */
static int step_refused (conf_map_mode_t mode, const char *jobid)
{
    char buf[256];
    bool fault;
    stepopts_t o = {
        .jobid = jobid,
        .step_id = getenv ("SLURM_STEP_ID"),
        .hostfile = getenv ("SLURM_HOSTFILE"),
        .het_size = getenv ("SLURM_HET_SIZE"),
        .nodelist = compat_srun_get ("nodelist", buf, sizeof (buf)),
        .distribution = compat_srun_get ("distribution", buf, sizeof (buf)),
        .het_group = compat_srun_get ("het-group", buf, sizeof (buf)),
        .exclude = compat_srun_get ("exclude", buf, sizeof (buf)),
        .relative = compat_srun_isset ("relative"),
        .segment = compat_srun_isset ("segment"),
        .async = compat_srun_isset ("async"),
    };

    if (!stepopts_refused (&o, buf, sizeof (buf), &fault))
        return -1;
    return pass (mode, fault, "%s", buf);
}

/* The step's geometry from srun's options into req; -1 when its node
 * count (left in buf) cannot be read. */
static int read_request (layout_request_t *req, char *buf, size_t len)
{
    req->ntasks = srun_int ("ntasks");
    req->ntasks_set = compat_srun_isset ("ntasks");
    compat_srun_get ("nodes", buf, len);
    if (sscanf (buf, "%d-%d", &req->nodes_min, &req->nodes_max) < 1)
        return -1;
    req->tasks_per_node = srun_int ("ntasks-per-node");
    if (req->tasks_per_node < 0)
        req->tasks_per_node = 0;
    req->cpus_per_task = srun_int ("cpus-per-task");
    compat_srun_get ("overcommit", buf, len);
    req->overcommit = !strcmp (buf, "set");
    return 0;
}

/* A plan to apply: its hostfile and what the tasks see in the
 * environment, then srun executed again; back here only when that failed
 * (or a signal came first), the environment undone. */
static int apply_plan (conf_map_mode_t mode, const place_out_t *out, int dirfd,
                       layout_alloc_t **alloc)
{
    char ntasks[32], gain[32];
    sigset_t pending;
    tm_error_t e;

    sigpending (&pending);
    if (sigismember (&pending, SIGINT) || sigismember (&pending, SIGTERM)) {
        unlinkat (dirfd, strrchr (out->hostfile, '/') + 1, 0);
        return 0;
    }
    snprintf (ntasks, sizeof (ntasks), "%d", out->ntasks);
    snprintf (gain, sizeof (gain), "%.4f", out->gain);
    setenv ("SLURM_HOSTFILE", out->hostfile, 1);
    setenv ("SLURM_NTASKS", ntasks, 1);
    setenv (PLACE_ENV_REEXEC, out->hostfile, 1);
    setenv (PLACE_ENV_MODE, "applied", 1);
    setenv (PLACE_ENV_PLAN, out->hostfile, 1);
    setenv (PLACE_ENV_GAIN, gain, 1);
    setenv (PLACE_ENV_REASON, out->reason, 1);
    if (out->pmi_mapping[0])
        setenv (PLACE_ENV_PMI, out->pmi_mapping, 1);
    if (out->nics[0])
        setenv (PLACE_ENV_NICS, out->nics, 1);
    if (out->cpu_bind[0]) /* read by the srun executed again as --cpu-bind */
        setenv ("SLURM_CPU_BIND", out->cpu_bind, 1);
    if (out->history[0]) {
        char runs[sizeof (out->history) + sizeof (tm.args) + 1];

        snprintf (runs, sizeof (runs), "%s %s", out->history, tm.args);
        setenv (PLACE_ENV_RUNS, runs, 1);
    }
    outcome (out->reason);
    layout_alloc_destroy (*alloc);
    *alloc = NULL;
    reexec (&e);
    unsetenv ("SLURM_HOSTFILE");
    unsetenv (PLACE_ENV_REEXEC);
    unsetenv (PLACE_ENV_PMI);
    unsetenv (PLACE_ENV_NICS);
    if (out->cpu_bind[0])
        unsetenv ("SLURM_CPU_BIND");
    unsetenv (PLACE_ENV_PLAN);
    unsetenv (PLACE_ENV_GAIN);
    unsetenv (PLACE_ENV_RUNS);
    unlinkat (dirfd, strrchr (out->hostfile, '/') + 1, 0);
    return pass (mode, 1, "cannot execute srun again: %s", e.text);
}

/* What place_decide decided, done: srun's layout, a dry run's line, a
 * recording, or the plan applied.  pass's status. */
static int take_outcome (conf_map_mode_t mode, const place_out_t *out, int dirfd,
                         layout_alloc_t **alloc)
{
    int rc = 0;

    if (out->history[0] && out->action != PLACE_APPLY)
        run_track (out->history, out->action == PLACE_RECORD ? HISTORY_RECORDED : HISTORY_SRUN);
    switch (out->action) {
    case PLACE_DEFAULT:
        if (out->nics[0] && mode != CONF_MAP_STRICT) {
            char line[sizeof (out->reason) + 128];

            setenv (PLACE_ENV_NICS, out->nics, 1);
            snprintf (line, sizeof (line),
                      "each rank's NIC by rail, %.1f%% fewer bytes crossing rails; srun's own "
                      "placement: %s",
                      100 * out->nic_gain, out->reason);
            outcome (line);
            setenv (PLACE_ENV_MODE, "default", 1);
            setenv (PLACE_ENV_REASON, out->reason, 1);
            tm.set_vars = 1;
            break;
        }
        rc = pass (mode, out->failed, "%s", out->reason);
        break;
    case PLACE_DRYRUN:
        setenv (PLACE_ENV_MODE, "dry-run", 1);
        setenv (PLACE_ENV_REASON, out->reason, 1);
        outcome (out->reason);
        break;
    case PLACE_RECORD:
        setenv (RECORDER_ENV, out->record, 1);
        setenv (PLACE_ENV_RECORDER, out->recorder, 1);
        setenv (PLACE_ENV_MODE, "record", 1);
        setenv (PLACE_ENV_REASON, out->reason, 1);
        snprintf (tm.record, sizeof (tm.record), "%s", out->record);
        tm.ntasks = out->ntasks;
        tm.recording = 1;
        tm.record_check = out->record_check;
        outcome (out->reason);
        break;
    case PLACE_APPLY:
        rc = apply_plan (mode, out, dirfd, alloc);
        break;
    }
    return rc;
}

/* Whether a --gpu-bind or --tres-bind value binds no GPU: its GPU part
 * (after "gres/gpu:" in a --tres-bind, up to a '+') says none, or only
 * verbose. */
static int bind_none (const char *val)
{
    const char *gpu = strstr (val, "gres/gpu:");
    char part[256], *save = NULL;
    int other = 0;

    snprintf (part, sizeof (part), "%.*s", (int)strcspn (gpu ? gpu + 9 : val, "+"),
              gpu ? gpu + 9 : val);
    for (char *t = strtok_r (part, ",", &save); t; t = strtok_r (NULL, ",", &save)) {
        if (!strcmp (t, "none"))
            return 1;
        other |= strcmp (t, "verbose") != 0;
    }
    return !other;
}

/* The option by which Slurm binds each task of the step to its GPUs, or
 * NULL: --gpus-per-task, --ntasks-per-gpu and a --tres-per-task of GPUs
 * imply a binding (21.08+, 23.11+; 24.11+ show it as --tres-bind too),
 * --gpu-bind and --tres-bind ask one; a binding of none in either, or of
 * verbose alone, binds none. */
static const char *step_gpu_bind (void)
{
    static const char *const opts[] = {"gpus-per-task", "ntasks-per-gpu", "tres-per-task",
                                       "gpu-bind", "tres-bind"};
    char val[256];

    for (size_t i = 3; i < sizeof (opts) / sizeof (opts[0]); i++)
        if (compat_srun_isset (opts[i]) && compat_srun_get (opts[i], val, sizeof (val)) &&
            bind_none (val))
            return NULL;
    for (size_t i = 0; i < sizeof (opts) / sizeof (opts[0]); i++)
        if (compat_srun_isset (opts[i]) &&
            (i != 2 || (compat_srun_get (opts[i], val, sizeof (val)), strstr (val, "gpu"))))
            return opts[i];
    return NULL;
}

static int post_opt_local (void)
{
    conf_map_mode_t mode = tm.conf.map;
    conf_profile_t profile = {.mode = tm.conf.profile};
    layout_request_t req = {0};
    layout_alloc_t *alloc = NULL;
    char buf[256], netmaps[4096], srun[4096], mpi[64], order_name[64];
    char order_unknown[300] = "";
    int *node_rank = NULL;
    int affinity = -1, user_bind;
    const char *jobid = getenv ("SLURM_JOB_ID");
    place_out_t out;
    place_in_t in;
    tm_error_t e, exe_error, dir_error = {""};
    ssize_t n;
    int rc = 0, dirfd = -1;

    if (second_round ())
        return 0;
    /* A mapping and NICs only this srun's plan may set. */
    unsetenv (PLACE_ENV_PMI);
    unsetenv (PLACE_ENV_NICS);
    if (getenv (PLACE_ENV_PROBE) || !tm.map_given)
        return 0;
    if (tm.map_arg && tm.map_arg[0] && strcmp (tm.map_arg, "(null)") &&
        conf_map_mode_parse (tm.map_arg, &mode, &e) < 0)
        return pass (CONF_MAP_AUTO, 1, "%s", e.text);
    if (mode == CONF_MAP_OFF)
        return 0;
    if (tm.profile_given && conf_profile_parse (tm.profile_arg, &profile, &e) < 0)
        return pass (mode, 1, "%s", e.text);
    if (compat_srun_open (&e) < 0)
        return pass (mode, 1, "srun's options cannot be read: %s", e.text);
    tm.verbose = tm.conf.verbose || srun_int ("verbose") > 0;
    if ((rc = step_refused (mode, jobid)) >= 0)
        return rc;
    if (read_request (&req, buf, sizeof (buf)) < 0)
        return pass (mode, 1, "srun's node count '%s' cannot be read", buf);
    if (!(alloc = alloc_from_env (&e)))
        return pass (mode, 1, "the allocation: %s", e.text);
    if (step_order (alloc, &node_rank, order_name, sizeof (order_name), order_unknown,
                    sizeof (order_unknown)) < 0) {
        rc = pass (mode, 1, "out of memory");
        goto out;
    }
    req.node_rank = node_rank;

    if (step_exe (tm.exe, sizeof (tm.exe), &exe_error) < 0)
        tm.exe[0] = '\0';
    /* Without a directory for netmaps, a step may still record. */
    if ((dirfd = cache_open (netmaps, sizeof (netmaps), tm.note, sizeof (tm.note), &dir_error)) <
            0 &&
        !tm.user_cache[0]) {
        rc = pass (mode, 1, "%s", dir_error.text);
        goto out;
    }
    if (tm.note[0] && mode == CONF_MAP_STRICT) {
        char note[sizeof (tm.note)];

        memcpy (note, tm.note, sizeof (note));
        tm.note[0] = '\0';
        rc = pass (mode, 1, "the site cache: %s", note);
        goto out;
    }
    if ((n = readlink ("/proc/self/exe", srun, sizeof (srun) - 1)) <= 0) {
        rc = pass (mode, 1, "cannot find srun itself: %s", strerror (errno));
        goto out;
    }
    srun[n] = '\0';
    compat_srun_get ("mpi", mpi, sizeof (mpi));
    /* The user's binding, which wins: --cpu-bind or SLURM_CPU_BIND (srun
     * keeps only a map's list of its value after parsing it, so whether
     * it is set is what can be known). */
    user_bind = compat_srun_isset ("cpu-bind");
    if (tm.conf.bind && !user_bind && slurm_ctl ())
        affinity = ctl->task_plugin && strstr (ctl->task_plugin, "affinity") != NULL;

    in = (place_in_t){
        .conf = &tm.conf,
        .map = mode,
        .profile = &profile,
        .jobid = jobid,
        .alloc_nodelist = getenv ("SLURM_JOB_NODELIST"),
        .alloc = alloc,
        .req = &req,
        .order_name = order_name,
        .order_unknown = order_unknown[0] ? order_unknown : NULL,
        .exe = tm.exe[0] ? tm.exe : NULL,
        .exe_error = tm.exe[0] ? NULL : exe_error.text,
        .user_cache = tm.user_cache,
        .user_cache_fd = tm.user_cache_fd,
        .user_cache_error = tm.user_cache_error.text,
        .netmap_dir = netmaps,
        .netmap_dirfd = dirfd,
        .netmap_dir_error = dir_error.text,
        .job_alive = job_alive,
        .uid = getuid (),
        .srun = srun,
        .mpi = mpi[0] ? mpi : NULL,
        .slurm_mpi = slurm_mpi,
        .site_netmap = site_netmap,
        .say = tm.verbose ? say : NULL,
        .note = log_info,
        .cpu_bind = user_bind ? "--cpu-bind given" : NULL,
        .args = tm.args[0] ? tm.args : NULL,
        .task_affinity = affinity,
        .gpu_bind = step_gpu_bind (),
    };
    place_decide (&in, &out);
    tm.set_vars = 1; /* each outcome sets some */
    rc = take_outcome (mode, &out, dirfd, &alloc);
out:
    forget_slurm ();
    if (dirfd >= 0)
        close (dirfd);
    layout_alloc_destroy (alloc);
    free (node_rank);
    return rc;
}

int slurm_spank_local_user_init (spank_t sp, int ac, char **av)
{
    /* srun applies -v after slurm_spank_init_post_opt: this is the first
     * local callback whose verbose messages the user can see. */
    slurm_verbose ("topomap: %s loaded", PACKAGE_STRING);
    return 0;
}

/* Remote, before Slurm's pmi2 plugin reads SLURM_PMI2_PROC_MAPPING (mgr.c:
 * spank_init, then mpi_g_slurmstepd_prefork): a placed step's ranks lie as
 * SLURM_HOSTFILE says, for which the plugin can only say "every rank on a
 * node of its own" (layout.h).  Give it the plan's mapping instead; the
 * tasks never see it.  Each node's pmi2 plugin serves its own copy, and
 * ranks that disagree on which of them share a node hang in MPI_Init: so
 * every node decides alike, from what every node sees alike (the mapping,
 * the step's task and node counts, SLURM_TASKS_PER_NODE).
 */
static void pmi_mapping_remote (spank_t sp)
{
    char want[LAYOUT_PMI_MAPPING_MAX + 1], have[64], alone[64], tpn[4096];
    uint32_t ntasks, nnodes;
    int *node = NULL, *counts = NULL;
    spank_err_t rc;
    tm_error_t e;

    if ((rc = spank_getenv (sp, PLACE_ENV_PMI, want, sizeof (want))) == ESPANK_ENV_NOEXIST)
        return;
    spank_unsetenv (sp, PLACE_ENV_PMI);
    if (spank_getenv (sp, "SLURM_PMI2_PROC_MAPPING", have, sizeof (have)) != ESPANK_SUCCESS)
        return; /* not a pmi2 step, or a mapping Slurm worked out itself */
    if (spank_get_item (sp, S_JOB_TOTAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS ||
        spank_get_item (sp, S_JOB_NNODES, &nnodes) != ESPANK_SUCCESS || ntasks < 1 ||
        ntasks > INT_MAX || nnodes < 1 || nnodes > ntasks)
        return;
    snprintf (alone, sizeof (alone), "(vector,(0,%u,1))", ntasks);
    if (strcmp (have, alone))
        return;
    if (rc != ESPANK_SUCCESS) {
        log_error ("topomap: %s is longer than PMI passes: ranks see no node shared",
                   PLACE_ENV_PMI);
        return;
    }
    if (spank_getenv (sp, "SLURM_TASKS_PER_NODE", tpn, sizeof (tpn)) != ESPANK_SUCCESS) {
        log_error ("topomap: no SLURM_TASKS_PER_NODE to check %s by", PLACE_ENV_PMI);
        return;
    }
    if (!(node = malloc (ntasks * sizeof (*node))) ||
        !(counts = malloc (nnodes * sizeof (*counts)))) {
        log_error ("topomap: %s: out of memory", PLACE_ENV_PMI);
        goto out;
    }
    if (layout_parse_cpus (tpn, (int)nnodes, counts, &e) < 0) {
        log_error ("topomap: SLURM_TASKS_PER_NODE, read as %s: ranks see no node shared", e.text);
        goto out;
    }
    if (layout_pmi_mapping_parse (want, (int)ntasks, node, &e) < 0 ||
        layout_check_ranks ((int)nnodes, counts, (int)ntasks, node, NULL, &e) < 0) {
        log_error ("topomap: %s: %s: ranks see no node shared", PLACE_ENV_PMI, e.text);
        goto out;
    }
    spank_setenv (sp, "SLURM_PMI2_PROC_MAPPING", want, 1);
    slurm_debug ("topomap: SLURM_PMI2_PROC_MAPPING=%s", want);
out:
    free (counts);
    free (node);
}

int slurm_spank_init_post_opt (spank_t sp, int ac, char **av)
{
    int rc;

    if (tm.disabled)
        return 0;
    if (spank_context () == S_CTX_REMOTE) {
        pmi_mapping_remote (sp);
        return 0;
    }
    if (spank_context () != S_CTX_LOCAL)
        return 0;
    rc = post_opt_local ();
    export_ours ();
    return rc;
}

/* The task's variable name, whole, in a new string (free it): NULL when it
 * is not set, or with *toolong set when it is longer than the kernel lets
 * one variable be.
 */
static char *task_getenv (spank_t sp, const char *name, int *toolong)
{
    size_t size = 4096;
    char *buf = NULL, *more;
    spank_err_t rc;

    *toolong = 0;
    for (;;) {
        if (!(more = realloc (buf, size))) {
            free (buf);
            *toolong = 1;
            return NULL;
        }
        buf = more;
        if ((rc = spank_getenv (sp, name, buf, (int)size)) == ESPANK_SUCCESS)
            return buf;
        if (rc != ESPANK_NOSPACE || size > 2 * 131072) {
            free (buf);
            *toolong = rc == ESPANK_NOSPACE;
            return NULL;
        }
        size *= 2;
    }
}

/* name=value in the task, unless the task has name (the user's stands). */
static void task_set_nic (spank_t sp, const char *name, const char *fmt, const char *dev)
{
    char val[2 * SLOTS_NAME_MAX + 8], cur[8];

    if (spank_getenv (sp, name, cur, sizeof (cur)) != ESPANK_ENV_NOEXIST)
        return;
    snprintf (val, sizeof (val), fmt, dev);
    if (spank_setenv (sp, name, val, 1) != ESPANK_SUCCESS)
        log_error ("topomap: cannot set %s=%s", name, val);
}

/* Whether the task's UCX may use shared memory between a node's ranks:
 * UCX_TLS unset, naming an alias that has it (all, sm, shm, mm) or a
 * shared-memory transport (posix, sysv, xpmem; a backslash before a name takes
 * the transport alone, never an alias), or a "^" list leaving it in (not
 * sm, shm, mm, nor both posix and sysv).  Without it, UCX's TCP reaches a
 * node mate held to another rail's interface by no route (the local
 * table sends it by lo), and MPI_Init fails.  An unreadable value: no. */
static bool task_ucx_shm (spank_t sp)
{
    static const char *const alias[] = {"all", "sm", "shm", "mm", NULL};
    static const char *const tl[] = {"posix", "sysv", "xpmem", NULL};
    int toolong, excl, any = 0, mapped = 0;
    char *tls = task_getenv (sp, "UCX_TLS", &toolong), *save = NULL;

    if (!tls || !tls[0]) {
        free (tls);
        return !toolong;
    }
    excl = tls[0] == '^';
    for (char *t = strtok_r (tls + excl, ",", &save); t; t = strtok_r (NULL, ",", &save)) {
        int exact = t[0] == '\\';

        for (int k = excl; alias[k] && !exact; k++)
            any |= !strcmp (t, alias[k]);
        for (int k = 0; tl[k]; k++)
            if (!strcmp (t + exact, tl[k]))
                mapped |= 1 << k;
    }
    free (tls);
    /* excluded: an alias, or posix and sysv (xpmem is seldom there) */
    return excl ? !any && (mapped & 3) != 3 : any || mapped;
}

/* Whether the NIC is up on this node: its fabric device's port 1 ACTIVE,
 * else its interface up with an address.  A netmap of another day, or a
 * rail down, leaves the MPI its own choice. */
static int task_nic_up (const railmap_nic_t *nic)
{
    struct ifaddrs *ifa;
    int up = 0;

    if (nic->name[0]) {
        char path[96], state[64] = "";
        ssize_t n = -1;
        int fd;

        snprintf (path, sizeof (path), "/sys/class/infiniband/%s/ports/1/state", nic->name);
        if ((fd = open (path, O_RDONLY | O_CLOEXEC)) >= 0) {
            n = read (fd, state, sizeof (state) - 1);
            close (fd);
        }
        return n > 0 && strstr (state, "ACTIVE") != NULL;
    }
    if (getifaddrs (&ifa) < 0)
        return 0;
    for (const struct ifaddrs *i = ifa; i && !up; i = i->ifa_next)
        up = !strcmp (i->ifa_name, nic->netdev) && (i->ifa_flags & IFF_UP) && i->ifa_addr &&
             (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6);
    freeifaddrs (ifa);
    return up;
}

/* Whether Open MPI's btl_tcp_if_exclude is set for the task, in its
 * environment or in the parameter files Open MPI reads by default (the
 * system's, Debian's path, and the user's): Open MPI refuses it beside
 * btl_tcp_if_include from any source. */
static int task_ompi_excludes (spank_t sp)
{
    char home[PATH_MAX], user[PATH_MAX + 32], cur[8];
    const char *files[] = {"/etc/openmpi/openmpi-mca-params.conf", user};

    if (spank_getenv (sp, "OMPI_MCA_btl_tcp_if_exclude", cur, sizeof (cur)) != ESPANK_ENV_NOEXIST)
        return 1;
    user[0] = '\0';
    if (spank_getenv (sp, "HOME", home, sizeof (home)) == ESPANK_SUCCESS && home[0] == '/')
        snprintf (user, sizeof (user), "%s/.openmpi/mca-params.conf", home);
    for (size_t f = 0; f < sizeof (files) / sizeof (files[0]); f++) {
        char line[512];
        FILE *fp;
        int found = 0;

        if (!files[f][0] || !(fp = fopen (files[f], "re")))
            continue;
        for (int k = 0; !found && k < 4096 && fgets (line, sizeof (line), fp); k++)
            found = !strncmp (line + strspn (line, " \t"), "btl_tcp_if_exclude",
                              sizeof ("btl_tcp_if_exclude") - 1);
        fclose (fp);
        if (found)
            return 1;
    }
    return 0;
}

/* Slurm's GPU variables, in the order task_gpu reads them. */
#define GPU_VARS 5
static const char *const gpu_vars[GPU_VARS] = {
    "SLURM_STEP_GPUS",  "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
    "ZE_AFFINITY_MASK", "GPU_DEVICE_ORDINAL",
};

/* list split in place at its commas into ent[max]: the count, or -1 when
 * an entry is not a GPU index (1 to 9 digits) or there are over max. */
static int gpu_list (char *list, char **ent, int max)
{
    int n = 0;

    for (char *s = list;; n++) {
        size_t k = strspn (s, "0123456789");

        if (n == max || k == 0 || k > 9 || (s[k] && s[k] != ','))
            return -1;
        ent[n] = s;
        if (!s[k])
            return n + 1;
        s[k] = '\0';
        s += k + 1;
    }
}

/* The rank's GPU.  Slot k is its node's GPU k in PCI order, Slurm's GPU
 * index k in SLURM_STEP_GPUS (gres.conf's order; AutoDetect's is PCI
 * order).  Where the task sees several of the step's GPUs (no per-task
 * binding: --gpus, --gpus-per-node), each of Slurm's GPU variables is
 * reordered so that the slot's GPU stands at the place of the task's
 * local rank (modulo their count), where a program choosing the GPU of its
 * local rank looks, as programs seeing a node's GPUs do; the others stay
 * visible.  All or none: every variable present a list of as many
 * indexes.  0 to go on to the NIC (also without GPUs); -1 with e when the
 * slot's GPU is not the task's or the variables are not Slurm's lists.
 */
static int task_gpu (spank_t sp, int slot, tm_error_t *e)
{
    char *val[GPU_VARS] = {NULL}, *(*ent)[SLOTS_MAX_DEVICES] = NULL, *out = NULL;
    int n = 0, j, at, toolong, rc = -1;
    uint32_t local;

    if (!(val[0] = task_getenv (sp, gpu_vars[0], &toolong)) || !val[0][0]) {
        free (val[0]);
        return toolong ? errprintf (e, "%s is too long", gpu_vars[0]) : 0;
    }
    if (!(ent = calloc (GPU_VARS, sizeof (*ent)))) {
        errprintf (e, "out of memory");
        goto out;
    }
    for (int v = 0; v < GPU_VARS; v++) {
        int c;

        if (v > 0 && !(val[v] = task_getenv (sp, gpu_vars[v], &toolong))) {
            if (toolong) {
                errprintf (e, "%s is too long", gpu_vars[v]);
                goto out;
            }
            continue;
        }
        if ((c = gpu_list (val[v], ent[v], SLOTS_MAX_DEVICES)) < 0 || (v > 0 && c != n)) {
            errprintf (e, "%s is not a list of %s GPU indexes", gpu_vars[v],
                       v > 0 ? "as many" : "Slurm's");
            goto out;
        }
        n = v > 0 ? n : c;
    }
    for (j = 0; j < n && strtol (ent[0][j], NULL, 10) != slot; j++)
        ;
    if (j == n) {
        errprintf (e, "GPU %d is not among the task's %d", slot, n);
        goto out;
    }
    if (spank_get_item (sp, S_TASK_ID, &local) != ESPANK_SUCCESS) {
        errprintf (e, "no local task id");
        goto out;
    }
    if ((at = (int)(local % (uint32_t)n)) == j) {
        rc = 0; /* the slot's GPU stands where the task takes it */
        goto out;
    }
    if (!(out = malloc ((size_t)n * 11))) {
        errprintf (e, "out of memory");
        goto out;
    }
    rc = 0;
    for (int v = 0; v < GPU_VARS; v++) {
        size_t len = 0;
        char *t;

        if (!val[v])
            continue;
        t = ent[v][j], ent[v][j] = ent[v][at], ent[v][at] = t;
        for (int i = 0; i < n; i++)
            len += (size_t)sprintf (out + len, "%s%s", i ? "," : "", ent[v][i]);
        if (spank_setenv (sp, gpu_vars[v], out, 1) != ESPANK_SUCCESS)
            log_error ("topomap: cannot set %s=%s", gpu_vars[v], out);
    }
out:
    for (int v = 0; v < GPU_VARS; v++)
        free (val[v]);
    free (ent);
    free (out);
    return rc;
}

/* Remote: the task onto its slot's CPUs, where srun's plugin found Slurm
 * free to be left to bind (railmap_env's last part).  task_init is the
 * last to set the task's affinity before execve (doc/findings.md); the
 * kernel keeps it within the task's cpuset. */
static void task_bind (uint32_t rank, int slot, const int *cpu, int ncpus)
{
    size_t size = CPU_ALLOC_SIZE (SLOTS_MAX_CPUS);
    cpu_set_t *set = CPU_ALLOC (SLOTS_MAX_CPUS);

    if (!set) {
        log_error ("topomap: rank %u: out of memory: the CPU binding stays Slurm's", rank);
        return;
    }
    CPU_ZERO_S (size, set);
    for (int c = 0; c < ncpus; c++)
        CPU_SET_S (cpu[c], size, set);
    if (sched_setaffinity (0, size, set) != 0)
        log_error ("topomap: rank %u: cannot bind to the CPUs of GPU %d: %s: the CPU binding "
                   "stays Slurm's",
                   rank, slot, strerror (errno));
    CPU_FREE (set);
}

/* Remote: the task's GPU (task_gpu) and NIC, the NIC as UCX reads it, and
 * for a NIC without fabric device (TCP the data path) as Open MPI's TCP
 * transport and libfabric's read it; neither when either cannot be.  Port
 * 1: a multi-port HCA shows each port as a device of its own (mlx5_N).
 * NCCL keeps its own choice: it takes the NIC near the rank's GPU.  The
 * CPUs of the slot (task_bind) where the task's GPU is the slot's. */
static void task_nics (spank_t sp)
{
    railmap_nic_t nic;
    uint32_t rank, local;
    tm_error_t e = {""};
    char *val, cur[8];
    int toolong, slot, *cpu = NULL, ncpus = 0;

    if (!(val = task_getenv (sp, PLACE_ENV_NICS, &toolong)) && !toolong)
        return;
    spank_unsetenv (sp, PLACE_ENV_NICS);
    if (!val)
        errprintf (&e, "longer than a variable may be");
    else if (spank_get_item (sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS)
        errprintf (&e, "no task id");
    else if (railmap_env_nic (val, (int)rank, &nic, &slot, &cpu, &ncpus, &e) == 0) {
        if (!task_nic_up (&nic))
            errprintf (&e, "%s is not up here", nic.name[0] ? nic.name : nic.netdev);
        /* a NIC of the user's: their GPUs and cores too */
        else if (spank_getenv (sp, "UCX_NET_DEVICES", cur, sizeof (cur)) == ESPANK_ENV_NOEXIST &&
                 task_gpu (sp, slot, &e) == 0 && ncpus > 0)
            task_bind (rank, slot, cpu, ncpus);
    }
    free (cpu);
    free (val);
    if (e.text[0]) {
        log_error ("topomap: %s: %s: the MPI chooses the NIC", PLACE_ENV_NICS, e.text);
        return;
    }
    if (nic.name[0] || task_ucx_shm (sp))
        task_set_nic (sp, "UCX_NET_DEVICES", nic.name[0] ? "%s:1" : "%s",
                      nic.name[0] ? nic.name : nic.netdev);
    else if (spank_getenv (sp, "UCX_NET_DEVICES", cur, sizeof (cur)) == ESPANK_ENV_NOEXIST &&
             spank_get_item (sp, S_TASK_ID, &local) == ESPANK_SUCCESS && local == 0)
        log_error ("topomap: UCX_TLS allows no shared memory, or cannot be read: UCX chooses the "
                   "NIC (over TCP, ranks of a node on two rails cannot reach each other)");
    if (!nic.name[0]) {
        if (!task_ompi_excludes (sp))
            task_set_nic (sp, "OMPI_MCA_btl_tcp_if_include", "%s", nic.netdev);
        task_set_nic (sp, "FI_TCP_IFACE", "%s", nic.netdev);
    }
}

/* Remote: preload the recorder into the tasks of a recording step, before
 * whatever LD_PRELOAD the user set, which is kept whole.
 */
static void task_recorder (spank_t sp)
{
    char lib[4096], *cur, *val;
    int toolong;

    if (spank_getenv (sp, PLACE_ENV_RECORDER, lib, sizeof (lib)) != ESPANK_SUCCESS)
        return;
    if (lib[0] != '/' || strpbrk (lib, ": \t\n")) {
        log_error ("topomap: %s=%s: not a library path, not recording", PLACE_ENV_RECORDER, lib);
        return;
    }
    cur = task_getenv (sp, "LD_PRELOAD", &toolong);
    /* One variable of more than MAX_ARG_STRLEN (32 pages) fails the exec. */
    if (toolong || sizeof ("LD_PRELOAD=:") + strlen (lib) + (cur ? strlen (cur) : 0) > 32 * 4096) {
        free (cur);
        log_error ("topomap: LD_PRELOAD is too long to add the recorder to, not recording");
        return;
    }
    if (!(val = malloc (strlen (lib) + (cur ? strlen (cur) : 0) + 2)))
        log_error ("topomap: out of memory, not recording");
    else {
        sprintf (val, "%s%s%s", lib, cur && cur[0] ? ":" : "", cur ? cur : "");
        if (spank_setenv (sp, "LD_PRELOAD", val, 1) != ESPANK_SUCCESS)
            log_error ("topomap: cannot set LD_PRELOAD, not recording");
    }
    free (val);
    free (cur);
}

int slurm_spank_task_init (spank_t sp, int ac, char **av)
{
    if (tm.disabled || !spank_remote (sp))
        return 0;
    task_nics (sp);
    task_recorder (sp);
    return 0;
}

int slurm_spank_exit (spank_t sp, int ac, char **av)
{
    char msg[1024];
    tm_error_t e;

    if (spank_context () == S_CTX_LOCAL) {
        if (tm.recording) {
            if (place_file_recording (tm.record, tm.exe, tm.ntasks, tm.user_cache_fd, tm.user_cache,
                                      tm.record_check, msg, sizeof (msg), &e) == 0)
                log_info ("topomap: %s", msg);
            else
                log_info ("topomap: no profile filed: %s", e.text);
        }
        if (tm.history[0] && tm.user_cache_fd >= 0)
            run_add ();
        if (tm.user_cache[0] && tm.user_cache_fd >= 0) {
            close (tm.user_cache_fd);
            tm.user_cache_fd = -1;
        }
        if (tm.hostfile[0])
            remove_plan (tm.hostfile);
    }
    free (tm.map_arg);
    free (tm.profile_arg);
    tm.map_arg = tm.profile_arg = NULL;
    return 0;
}
