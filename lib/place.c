/* SPDX-License-Identifier: GPL-2.0-or-later */
/* place.c: the decision behind `srun --topo-map`.  See place.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/exeid.h"
#include "lib/file.h"
#include "lib/history.h"
#include "lib/mapper.h"
#include "lib/netmap.h"
#include "lib/place.h"
#include "lib/planfile.h"
#include "lib/profile.h"
#include "lib/profile_cache.h"
#include "lib/railmap.h"
#include "lib/recorder.h"
#include "lib/topology_links.h"

static double place_now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void place_default (place_out_t *out, int failed, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static void place_default (place_out_t *out, int failed, const char *fmt, ...)
{
    va_list ap;

    out->action = PLACE_DEFAULT;
    out->failed = failed;
    out->cpu_bind[0] = '\0';
    va_start (ap, fmt);
    vsnprintf (out->reason, sizeof (out->reason), fmt, ap);
    va_end (ap);
}

/* How long the plugin works silently before it says, unasked, what it is
 * doing (srun -v says it at once), and from how many ranks a plan takes
 * about that long. */
#define PLACE_QUIET_S         2.0
#define PLACE_SLOW_PLAN_RANKS 32768

#define SAY(in, ...)                                                                               \
    do {                                                                                           \
        if ((in)->say)                                                                             \
            (in)->say (__VA_ARGS__);                                                               \
    } while (0)

/* The netmap */

/* Remove from the environment every variable that carries one of this
 * plugin's SPANK options (SLURM_SPANK__SLURM_SPANK_OPTION_topomap_*, and
 * _SLURM_SPANK_OPTION_topomap_* as Slurm also sets them): the probe step's
 * srun must not see --topo-map or --topo-profile.  Called in the child.
 */
static void place_unset_options (void)
{
    extern char **environ;
    char name[256];
    int again = 1;

    while (again) {
        again = 0;
        for (char **e = environ; e && *e; e++) {
            const char *eq = strchr (*e, '=');
            size_t len = eq ? (size_t)(eq - *e) : strlen (*e);

            if (len >= sizeof (name))
                continue;
            memcpy (name, *e, len);
            name[len] = '\0';
            if (strstr (name, "_SLURM_SPANK_OPTION_topomap_")) {
                unsetenv (name);
                again = 1;
                break;
            }
        }
    }
}

/* Run the probe step into tmp: srun --overlap, one rank per node of the
 * allocation (two of inside_cpus CPUs each when inside_cpus > 0, bound by
 * nobody but the probe: the CPUs of the node it reads and the levels
 * inside it measures), measuring the levels of the site's topology.conf
 * at topology (NULL: every pair, or the sampling plan), killed at the
 * deadline.  0; -2 when the probe ran and failed (worth running again);
 * -1 otherwise; errp says why.
 */
static int place_probe (const place_in_t *in, const char *probe, const char *mpitype,
                        const char *topology, int inside_cpus, const char *tmp, int logfd,
                        const char *log, double deadline, tm_error_t *errp)
{
    const conf_t *c = in->conf;
    char nodes[32], ranks[32], cpus[32], budget[32], pairs[32], mpi[96], nodelist[8192];
    double left = deadline - place_now ();
    int budget_s = left > 3 ? (int)(left * 2 / 3) : 1;
    int status = 0;
    pid_t pid;

    snprintf (nodes, sizeof (nodes), "%d", in->alloc->nnodes);
    snprintf (ranks, sizeof (ranks), "%d", in->alloc->nnodes * (inside_cpus > 0 ? 2 : 1));
    snprintf (cpus, sizeof (cpus), "--cpus-per-task=%d", inside_cpus > 0 ? inside_cpus : 1);
    snprintf (budget, sizeof (budget), "%d", budget_s);
    snprintf (pairs, sizeof (pairs), "%d", c->probe_pairs);
    snprintf (mpi, sizeof (mpi), "--mpi=%s", mpitype);
    if (snprintf (nodelist, sizeof (nodelist), "--nodelist=%s", in->alloc_nodelist) >=
        (int)sizeof (nodelist))
        return errprintf (errp, "the allocation's node list is too long");
    char *argv[32];
    int argc = 0;

    argv[argc++] = (char *)in->srun;
    argv[argc++] = "--overlap";
    argv[argc++] = "--job-name=topomap-probe";
    argv[argc++] = "-N";
    argv[argc++] = nodes;
    argv[argc++] = "-n";
    argv[argc++] = ranks;
    argv[argc++] = inside_cpus > 0 ? "--ntasks-per-node=2" : "--ntasks-per-node=1";
    if (inside_cpus > 0) {
        argv[argc++] = cpus;
        argv[argc++] = "--cpu-bind=none";
    }
    argv[argc++] = mpi;
    argv[argc++] = nodelist;
    argv[argc++] = "--quiet";
    argv[argc++] = (char *)probe;
    argv[argc++] = "-o";
    argv[argc++] = (char *)tmp;
    argv[argc++] = "-t";
    argv[argc++] = budget;
    argv[argc++] = "-j";
    argv[argc++] = pairs;
    argv[argc++] = "--plan";
    argv[argc++] = (char *)c->probe_plan;
    if (topology) { /* the site's tree: its levels measured, no plan */
        argv[argc++] = "--topology";
        argv[argc++] = (char *)topology;
    }
    /* the nodes' GPU slots always: the NICs are chosen on any step */
    argv[argc++] = inside_cpus > 0 ? "--inside" : "--slots";
    argv[argc] = NULL;

    if ((pid = fork ()) < 0)
        return errprintf (errp, "cannot start the probe: %s", strerror (errno));
    if (pid == 0) {
        sigset_t none;
        int fd;

        /* srun blocks these before plugins run; the probe must not. */
        sigemptyset (&none);
        sigprocmask (SIG_SETMASK, &none, NULL);
        dup2 (logfd, 1);
        dup2 (logfd, 2);
        if ((fd = open ("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
            dup2 (fd, 0);
        setenv (PLACE_ENV_PROBE, "1", 1);
        place_unset_options ();
        /* The step's own geometry must not leak into the probe step. */
        unsetenv ("SLURM_NTASKS");
        unsetenv ("SLURM_NPROCS");
        unsetenv ("SLURM_NTASKS_PER_NODE");
        unsetenv ("SLURM_DISTRIBUTION");
        unsetenv ("SRUN_CPUS_PER_TASK");
        unsetenv ("SLURM_CPUS_PER_TASK");
        unsetenv ("SLURM_CPU_BIND");
        unsetenv ("SLURM_HOSTFILE");
        execv (in->srun, argv);
        _exit (127);
    }
    /* A probe that takes a while says so once, unasked (srun -v has
     * said it already). */
    double started = place_now ();

    for (bool told = in->say != NULL || !in->note;;) {
        pid_t w = waitpid (pid, &status, WNOHANG);

        if (w == pid)
            break;
        if (!told && place_now () - started > PLACE_QUIET_S) {
            in->note ("topomap: probing the network of %d nodes before the step starts",
                      in->alloc->nnodes);
            told = true;
        }
        if (w < 0 && errno != EINTR)
            return errprintf (errp, "waiting for the probe: %s", strerror (errno));
        if (place_now () > deadline) {
            kill (pid, SIGTERM);
            usleep (500000);
            kill (pid, SIGKILL);
            waitpid (pid, &status, 0);
            return errprintf (errp, "the probe took longer than %d s (probe_timeout)",
                              c->probe_timeout);
        }
        usleep (20000);
    }
    if (WIFEXITED (status) && WEXITSTATUS (status) == 127)
        return errprintf (errp, "cannot run %s", in->srun);
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0) {
        errprintf (errp, "the probe failed (%s %d), see %s", WIFEXITED (status) ? "exit" : "signal",
                   WIFEXITED (status) ? WEXITSTATUS (status) : WTERMSIG (status), log);
        return -2;
    }
    return 0;
}

/* Under srun -v, the last lines (at most 10, of the log's last 2 KiB) of
 * the probe's log, after the probe failed: what the nested step said, which
 * the user's terminal never gets.
 */
static void place_say_log (const place_in_t *in, int logfd, const char *log)
{
    char buf[2048], q[4 * 160 + 8], *p, *end, *save = NULL;
    struct stat st;
    off_t from;
    ssize_t n;
    int lines = 0;

    if (!in->say || fstat (logfd, &st) < 0 || st.st_size <= 0)
        return;
    from = st.st_size > (off_t)sizeof (buf) - 1 ? st.st_size - (off_t)(sizeof (buf) - 1) : 0;
    if ((n = pread (logfd, buf, sizeof (buf) - 1, from)) <= 0)
        return;
    buf[n] = '\0';
    for (end = buf + n; end > buf && end[-1] == '\n'; end--)
        *(end - 1) = '\0';
    for (p = end; p > buf; p--)
        if (p[-1] == '\n' && ++lines == 10)
            break;
    if (p == buf && from > 0) /* the first line is cut: skip it */
        p += strcspn (p, "\n");
    SAY (in, "topomap: the probe's log %s ends:", log);
    for (char *l = strtok_r (p, "\n", &save); l; l = strtok_r (NULL, "\n", &save))
        SAY (in, "topomap:   %s", errquote (l, 160, q, sizeof (q)));
}

/* Whether nm has every node of the allocation. */
static int place_covers (const netmap_t *nm, const layout_alloc_t *a, tm_error_t *errp)
{
    for (int i = 0; i < a->nnodes; i++)
        if (netmap_host_index (nm, a->nodes[i]) < 0)
            return errprintf (errp, "has no node %s", a->nodes[i]);
    return 0;
}

/* Whether Slurm's PluginDir (dirs, ':'-separated; NULL unknown: yes) has
 * the mpi plugin of type.
 */
static int place_mpi_installed (const char *dirs, const char *type)
{
    char path[CONF_PATH_MAX + 64];
    const char *d = dirs;

    if (!dirs || !dirs[0])
        return 1;
    while (*d) {
        size_t n = strcspn (d, ":");

        if (n > 0 && n < CONF_PATH_MAX &&
            snprintf (path, sizeof (path), "%.*s/mpi_%s.so", (int)n, d, type) <
                (int)sizeof (path) &&
            access (path, R_OK) == 0)
            return 1;
        d += n + (d[n] == ':');
    }
    return 0;
}

int place_probe_pick (const place_in_t *in, char *probe, size_t probelen, char *mpi, size_t mpilen,
                      tm_error_t *errp)
{
    const conf_t *c = in->conf;
    const char *type = NULL, *from = NULL, *path, *mpi_default = NULL, *plugin_dir = NULL;
    exeid_mpi_t family = EXEID_MPI_NONE;

    if (in->slurm_mpi)
        in->slurm_mpi (&mpi_default, &plugin_dir);
    if (c->mpi[0])
        type = c->mpi, from = "plugstack mpi=";
    else if (in->mpi && in->mpi[0] && strcmp (in->mpi, "none"))
        type = in->mpi, from = "the step's --mpi";
    else if (mpi_default && mpi_default[0] && strcmp (mpi_default, "none"))
        type = mpi_default, from = "MpiDefault";
    else {
        if (in->exe)
            exeid_mpi (in->exe, &family, NULL);
        type = family == EXEID_MPI_MPICH ? "pmi2" : "pmix";
        if (!place_mpi_installed (plugin_dir, type))
            type = !strcmp (type, "pmix") ? "pmi2" : "pmix";
        from = "the executable";
    }
    if (!conf_mpi_valid (type))
        return errprintf (errp, "%s is not an --mpi type", from);
    if (!place_mpi_installed (plugin_dir, type))
        return errprintf (errp, "Slurm has no mpi_%s plugin in %s (--mpi=%s from %s)", type,
                          plugin_dir, type, from);
    if (!strcmp (type, "pmix"))
        path = c->probe;
    else if (!strcmp (type, "pmi2"))
        path = c->probe_mpich;
    else
        return errprintf (errp,
                          "no probe for --mpi=%s (from %s): topomap's probes run over "
                          "pmix (Open MPI) and pmi2 (MPICH)",
                          type, from);
    if (!path[0])
        return errprintf (errp, "no probe for --mpi=%s: this topomap was built without %s", type,
                          !strcmp (type, "pmi2") ? "MPICH" : "Open MPI");
    if (snprintf (probe, probelen, "%s", path) >= (int)probelen ||
        snprintf (mpi, mpilen, "%s", type) >= (int)mpilen)
        return errprintf (errp, "the probe's path is too long");
    return 0;
}

/* Remove the temporary files a probe killed at its deadline left beside
 * name (file_replace's ".NAME.XXXXXX"), in the directory dirfd.
 */
static void place_remove_leftovers (int dirfd, const char *name)
{
    char prefix[NAME_MAX + 3];
    struct dirent *de;
    DIR *d;

    snprintf (prefix, sizeof (prefix), ".%s.", name);
    if (!(d = file_dir_stream (dirfd)))
        return;
    while ((de = readdir (d)))
        if (file_created_name (de->d_name, prefix, ""))
            unlinkat (dirfd, de->d_name, 0);
    closedir (d);
}

/* The job a file of a netmap directory belongs to: job<ID>.json, its
 * .lock and .log, the plans job<ID>.<random>.hosts, the probe's and the
 * site topology's temporary files .job<ID>.json.*; 0 for any other name.
 */
static unsigned long place_file_job (const char *name)
{
    unsigned long id = 0;
    const char *s = name + (name[0] == '.');

    if (strncmp (s, "job", 3) != 0)
        return 0;
    for (s += 3; *s >= '0' && *s <= '9' && id < 100000000000UL; s++)
        id = id * 10 + (unsigned long)(*s - '0');
    return *s == '.' ? id : 0;
}

/* A file's age in seconds, never below 0: a file's time can run ahead of
 * time() (the kernel's fine-grained file times, a shared file system's
 * clock), and a TTL of 0 must still mean "always stale". */
static time_t place_age (const struct stat *st, time_t now)
{
    return now > st->st_mtime ? now - st->st_mtime : 0;
}

int place_cache_tidy (int dfd, unsigned long jobid, int ttl, place_alive_f alive, void *arg,
                      long *files, long long *bytes)
{
    time_t now = time (NULL);
    struct dirent *de;
    int removed = 0;
    DIR *d;

    *files = 0;
    *bytes = 0;
    if (!(d = file_dir_stream (dfd)))
        return -1;
    while ((de = readdir (d))) {
        unsigned long id = place_file_job (de->d_name);
        struct stat st;

        if (!strcmp (de->d_name, ".") || !strcmp (de->d_name, "..") ||
            fstatat (dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        /* A finished job's file, older than a netmap may be reused. */
        if (id && id != jobid && !S_ISDIR (st.st_mode) && place_age (&st, now) >= ttl && alive &&
            alive (arg, id) == 0 && unlinkat (dfd, de->d_name, 0) == 0) {
            removed++;
            continue;
        }
        (*files)++;
        *bytes += S_ISREG (st.st_mode) ? (long long)st.st_size : 0;
    }
    closedir (d);
    return removed;
}

/* The names of a job's files in the netmap directory, and their paths. */
typedef struct {
    char name[64], lock[80], log[80], prefix[80];
    char path[4096], logpath[4096];
} place_files_t;

/* A job's first step: finished jobs' files go, and the new job's three
 * (netmap, lock, log) must fit the directory's bounds. */
static int place_netmap_room (const place_in_t *in, const place_files_t *f, tm_error_t *errp)
{
    const conf_t *c = in->conf;
    struct stat st;
    long files;
    long long bytes;
    int gone;

    if (fstatat (in->netmap_dirfd, f->lock, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
        return 0;
    gone = place_cache_tidy (in->netmap_dirfd, strtoul (in->jobid, NULL, 10), c->probe_ttl,
                             in->job_alive, in->job_alive_arg, &files, &bytes);
    if (gone > 0)
        SAY (in, "topomap: %s: removed %d file%s of finished jobs", in->netmap_dir, gone,
             gone == 1 ? "" : "s");
    if (gone >= 0 && (files + 3 > c->cache_max_files || bytes >> 20 >= c->cache_max_mib))
        return errprintf (errp,
                          "%s holds %ld files of %lld MiB, the bound is %d files of %d MiB "
                          "(cache_max_files, cache_max_mib): no room for this job's netmap",
                          in->netmap_dir, files, bytes >> 20, c->cache_max_files, c->cache_max_mib);
    return 0;
}

/* The job's lock, held: its descriptor, or -1 when another step's probe
 * holds it past probe_timeout. */
static int place_netmap_lock (const place_in_t *in, const place_files_t *f, tm_error_t *errp)
{
    double t0 = place_now ();
    tm_error_t e;
    int fd;

    if ((fd = file_openat_own (in->netmap_dirfd, f->lock, f->lock, O_RDWR | O_CREAT, 0600, in->uid,
                               &e)) < 0)
        return errprintf (errp, "%s/%s", in->netmap_dir, e.text);
    while (flock (fd, LOCK_EX | LOCK_NB) < 0) {
        if (errno != EWOULDBLOCK)
            errprintf (errp, "%s/%s: %s", in->netmap_dir, f->lock, strerror (errno));
        else if (place_now () - t0 > in->conf->probe_timeout)
            errprintf (errp, "%s/%s: another step's probe holds the lock", in->netmap_dir, f->lock);
        else {
            usleep (50000);
            continue;
        }
        close (fd);
        return -1;
    }
    return fd;
}

/* The job's netmap from an earlier step, when fresh and over the step's
 * nodes, else NULL (said under srun -v). */
static netmap_t *place_netmap_cached (const place_in_t *in, const place_files_t *f, size_t cap)
{
    netmap_t *nm = NULL;
    struct stat st;
    time_t age;
    tm_error_t e;
    int fd;

    if ((fd = file_openat_own (in->netmap_dirfd, f->name, f->name, O_RDONLY, 0, in->uid, &e)) < 0) {
        if (errno != ENOENT)
            SAY (in, "topomap: cached netmap %s/%s: ignored, probing again", in->netmap_dir,
                 e.text);
        return NULL;
    }
    if (fstat (fd, &st) == 0 && (age = place_age (&st, time (NULL))) < in->conf->probe_ttl) {
        if ((nm = netmap_read_fd (fd, f->path, cap, &e)) && place_covers (nm, in->alloc, &e) == 0)
            SAY (in, "topomap: netmap %s, measured %lld s ago", f->path, (long long)age);
        else {
            SAY (in, "topomap: cached netmap not used: %s", e.text);
            netmap_destroy (nm);
            nm = NULL;
        }
    }
    close (fd);
    return nm;
}

/* The site's tree and the figures of its levels: no probe at all.
 * Without figures, the probe measures its links: site names the file it
 * reads (written as sitename, when Slurm's own topology, for the caller
 * to remove), else site is "".  By default (topology unset) Slurm's
 * topology where it has one; a cluster without says nothing.
 */
static netmap_t *place_netmap_site (const place_in_t *in, const place_files_t *f, char *site,
                                    size_t sitelen, char *sitename, size_t namelen)
{
    const conf_t *c = in->conf;
    const bool dflt = !c->topology[0];
    const char *how = dflt ? "auto (the default)" : c->topology;
    char *text = NULL;
    netmap_t *nm;
    tm_error_t e;
    bool nodata;

    nm = in->site_netmap (c->topology, in->alloc, site, sitelen, &text, &e);
    if (!nm && dflt && errno == ENOENT) {
        site[0] = '\0';
        return NULL;
    }
    nodata = !nm && errno == ENODATA;
    if (nm && place_covers (nm, in->alloc, &e) == 0) {
        SAY (in, "topomap: netmap of %s (topology=%s): %d switches over %d nodes, no probe", site,
             how, nm->topo->nvertices - nm->topo->nhosts, nm->n);
        free (text);
        return nm;
    }
    /* Slurm's topology as a topology.conf, for the probe to read. */
    if (nodata && text &&
        file_createat (in->netmap_dirfd, f->prefix, ".topology.conf", text, strlen (text), 0600,
                       sitename, namelen, &e) < 0) {
        nodata = false;
        sitename[0] = '\0';
    } else if (nodata && text &&
               snprintf (site, sitelen, "%s/%s", in->netmap_dir, sitename) >= (int)sitelen) {
        nodata = false;
        errprintf (&e, "%s: path too long", in->netmap_dir);
    }
    free (text);
    if (nodata)
        SAY (in, "topomap: topology=%s: %s; the probe measures its links", how, e.text);
    else {
        site[0] = '\0';
        if (dflt)
            SAY (in, "topomap: topology=%s not used: %s; probing every pair", how, e.text);
        else if (in->note)
            in->note ("topomap: topology=%s not used: %s; probing every pair", how, e.text);
    }
    netmap_destroy (nm);
    return NULL;
}

/* The probe's run, into a file nobody can guess (made here, replaced by
 * the probe), read and kept as the job's netmap.  An MPI job can die
 * while it starts, for reasons of its own: a probe that failed in the
 * first half of probe_timeout runs once more, in the time left, without
 * the nodes' insides (two ranks a node ask more of Slurm and of the MPI
 * than one).
 */
static netmap_t *place_netmap_probed (const place_in_t *in, const place_files_t *f,
                                      const char *topology, int inside_cpus, size_t cap,
                                      tm_error_t *errp)
{
    const int dfd = in->netmap_dirfd;
    char probe[CONF_PATH_MAX], mpitype[CONF_MPI_MAX + 1], tmp[NAME_MAX + 1], tmppath[4096];
    double start = place_now (), deadline = start + in->conf->probe_timeout;
    int logfd = -1, fd = -1, made = 0, rc;
    netmap_t *nm = NULL;
    tm_error_t e, first;

    if (place_probe_pick (in, probe, sizeof (probe), mpitype, sizeof (mpitype), errp) < 0)
        return NULL;
    if (file_trusted (probe, in->uid, 0, &e) < 0) {
        if (errno == EPERM)
            errprintf (errp, "the probe %s is not safe to run: %s", probe, e.text);
        else
            errprintf (errp, "the probe %s", e.text);
        return NULL;
    }
    if ((logfd = file_openat_own (dfd, f->log, f->log, O_RDWR | O_CREAT | O_TRUNC, 0600, in->uid,
                                  &e)) < 0 ||
        fchmod (logfd, 0600) < 0) {
        errprintf (errp, "%s/%s", in->netmap_dir, logfd < 0 ? e.text : strerror (errno));
        goto out;
    }
    if (file_createat (dfd, f->prefix, "", "", 0, 0600, tmp, sizeof (tmp), &e) < 0) {
        errprintf (errp, "%s/%s", in->netmap_dir, e.text);
        goto out;
    }
    made = 1;
    snprintf (tmppath, sizeof (tmppath), "%s/%s", in->netmap_dir, tmp);
    SAY (in, "topomap: probing %d nodes with %s over --mpi=%s", in->alloc->nnodes, probe, mpitype);
    rc = place_probe (in, probe, mpitype, topology, inside_cpus, tmppath, logfd, f->logpath,
                      deadline, &first);
    if (rc == -2 && place_now () - start < in->conf->probe_timeout / 2.0) {
        SAY (in, "topomap: %s; probing again%s", first.text,
             inside_cpus > 0 ? ", one rank a node" : "");
        rc = place_probe (in, probe, mpitype, topology, 0, tmppath, logfd, f->logpath, deadline,
                          errp);
    } else if (rc < 0)
        errprintf (errp, "%s", first.text);
    if (rc < 0) {
        place_say_log (in, logfd, f->logpath);
        goto out;
    }
    if ((fd = file_openat_own (dfd, tmp, tmppath, O_RDONLY, 0, in->uid, errp)) < 0)
        goto out;
    if (fchmod (fd, 0600) < 0) {
        errprintf (errp, "the probe's netmap %s: %s", tmppath, strerror (errno));
        goto out;
    }
    if (!(nm = netmap_read_fd (fd, tmppath, cap, errp)))
        goto out;
    if (place_covers (nm, in->alloc, &e) < 0) {
        errprintf (errp, "the probe's netmap %s", e.text);
        netmap_destroy (nm);
        nm = NULL;
        goto out;
    }
    if (renameat (dfd, tmp, dfd, f->name) < 0)
        SAY (in, "topomap: cannot keep the netmap as %s: %s", f->path, strerror (errno));
    else
        made = 0;
    SAY (in, "topomap: probe done in %.2f s", place_now () - start);
    if (topology) {
        char slow[1024];
        if (topo_links_slow (nm, slow, sizeof (slow)) > 0)
            SAY (in, "topomap: measured slower than the site's topology says: %s", slow);
    }
out:
    if (made) {
        unlinkat (dfd, tmp, 0);
        place_remove_leftovers (dfd, tmp);
    }
    if (fd >= 0)
        close (fd);
    if (logfd >= 0)
        close (logfd);
    return nm;
}

/* The job's netmap: an earlier step's while younger than the TTL, else
 * the site's topology's, else a new probe's.  One probe at a time per
 * job: a lock file, waited for up to the probe timeout.  Every file is
 * opened in the checked directory netmap_dirfd, as a regular file of the
 * user's (file_openat_own): a cached netmap that is not is ignored and
 * replaced.
 */
static netmap_t *place_netmap (const place_in_t *in, int inside_cpus, tm_error_t *errp)
{
    const size_t cap = netmap_max_bytes (in->alloc->nnodes);
    char site[CONF_PATH_MAX] = "", sitename[NAME_MAX + 1] = "";
    netmap_t *nm = NULL;
    place_files_t f;
    int fd;

    snprintf (f.name, sizeof (f.name), "job%s.json", in->jobid);
    snprintf (f.lock, sizeof (f.lock), "%s.lock", f.name);
    snprintf (f.log, sizeof (f.log), "%s.log", f.name);
    snprintf (f.prefix, sizeof (f.prefix), ".%s.probe.", f.name);
    if (snprintf (f.path, sizeof (f.path), "%s/%s", in->netmap_dir, f.name) >=
            (int)sizeof (f.path) ||
        snprintf (f.logpath, sizeof (f.logpath), "%s/%s", in->netmap_dir, f.log) >=
            (int)sizeof (f.logpath)) {
        errprintf (errp, "%s: path too long", in->netmap_dir);
        return NULL;
    }
    if (in->netmap_dirfd < 0) {
        errprintf (errp, "%s", in->netmap_dir_error ? in->netmap_dir_error : "no directory");
        return NULL;
    }
    if (place_netmap_room (in, &f, errp) < 0 || (fd = place_netmap_lock (in, &f, errp)) < 0)
        return NULL;
    if (!(nm = place_netmap_cached (in, &f, cap)) && strcmp (in->conf->topology, "none") != 0 &&
        in->site_netmap)
        nm = place_netmap_site (in, &f, site, sizeof (site), sitename, sizeof (sitename));
    if (!nm)
        nm = place_netmap_probed (in, &f, site[0] ? site : NULL, inside_cpus, cap, errp);
    if (sitename[0])
        unlinkat (in->netmap_dirfd, sitename, 0);
    close (fd);
    return nm;
}

static int place_dir_at (int dirfd, const char *name, const char *path, uid_t uid, int create,
                         tm_error_t *errp)
{
    int fd = file_open_private_dir (dirfd, name, path, uid, errp);

    if (fd >= 0 || errno != ENOENT || !create)
        return fd;
    if (mkdirat (dirfd, name, 0700) < 0 && errno != EEXIST) {
        if (errno == EACCES)
            return errprintf (errp,
                              "%s: missing, and only root may make it (topomap-prolog, "
                              "topomap-admin(7))",
                              path);
        return errprintf (errp, "%s: cannot create: %s", path, strerror (errno));
    }
    return file_open_private_dir (dirfd, name, path, uid, errp);
}

int place_site_dir_open (const char *site, int sticky, uid_t uid, char *path, size_t len,
                         tm_error_t *errp)
{
    char sub[32];
    tm_error_t e;
    int sfd, fd;

    snprintf (sub, sizeof (sub), "%lu", (unsigned long)uid);
    if (snprintf (path, len, "%s/%s", site, sub) >= (int)len)
        return errprintf (errp, "cache=%s: path too long", site);
    if (file_trusted (site, uid, sticky ? FILE_STICKY_OK : 0, &e) < 0)
        return errprintf (errp, "cache=%s: %s%s", site, e.text,
                          !sticky && file_trusted (site, uid, FILE_STICKY_OK, NULL) == 0
                              ? " (a sticky cache lets any user take another's directory: "
                                "cache_sticky=yes allows it, topomap-admin(7))"
                              : "");
    if ((sfd = open (site, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return errprintf (errp, "cache=%s: %s", site, strerror (errno));
    fd = place_dir_at (sfd, sub, path, uid, 1, errp);
    close (sfd);
    return fd;
}

int place_cache_open (const char *site, int sticky, const char *own, uid_t uid, char *path,
                      size_t len, char *note, size_t notelen, tm_error_t *errp)
{
    tm_error_t e;
    int fd;

    note[0] = '\0';
    if (site && site[0]) {
        if ((fd = place_site_dir_open (site, sticky, uid, path, len, &e)) >= 0)
            return fd;
        snprintf (note, notelen, "%s", e.text);
    }
    if (snprintf (path, len, "%s", own) >= (int)len)
        return errprintf (errp, "%s: path too long", own);
    return file_open_trusted_dir (own, uid, 0700, errp);
}

/* The profile */

/* Whether the site's profiles could only have been put there by root
 * (or the user): else they are not read at all.
 */
static int place_site_trusted (const place_in_t *in, tm_error_t *errp)
{
    tm_error_t e;

    if (!in->conf->site_profiles[0] || file_trusted (in->conf->site_profiles, in->uid, 0, &e) == 0)
        return 0;
    return errprintf (errp, "site_profiles=%s is not safe to read: %s", in->conf->site_profiles,
                      e.text);
}

/* The profile named by a NAME: a file NAME.json in the user's cache (a
 * file of theirs), else in the site directory (one of root's or theirs
 * nobody else may write).
 */
static profile_t *place_profile_named (const place_in_t *in, tm_error_t *errp)
{
    const char *dirs[] = {in->user_cache, in->conf->site_profiles};
    char name[NAME_MAX + 1], path[8192];
    profile_t *p;

    if (snprintf (name, sizeof (name), "%s.json", in->profile->value) >= (int)sizeof (name)) {
        errprintf (errp, "--topo-profile=%s: name too long", in->profile->value);
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        int dfd = i == 0 ? in->user_cache_fd : -1, fd;

        if (!dirs[i] || !dirs[i][0])
            continue;
        if (i == 0 && dfd < 0) {
            errprintf (errp, "the profile cache %s", in->user_cache_error);
            return NULL;
        }
        if (i == 1) {
            if (place_site_trusted (in, errp) < 0)
                return NULL;
            if ((dfd = open (dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                continue;
        }
        snprintf (path, sizeof (path), "%s/%s", dirs[i], name);
        fd = profile_cache_openat (dfd, name, path, i, in->uid, errp);
        if (fd < 0 && errno != ENOENT) {
            if (i == 1)
                close (dfd);
            return NULL;
        }
        if (i == 1)
            close (dfd);
        if (fd >= 0) {
            p = profile_read_fd (fd, path, errp);
            close (fd);
            return p;
        }
    }
    errprintf (errp, "no profile named %s in %s%s%s", in->profile->value, in->user_cache,
               in->conf->site_profiles[0] ? " or " : "", in->conf->site_profiles);
    return NULL;
}

/* Set out up for a recording run of the step; check: the recording is to
 * check the cached profile of one (place_file_recording).  -1 when it
 * cannot record: out is then PLACE_DEFAULT, failed, saying why.
 */
static int place_record (const place_in_t *in, place_out_t *out, const char *why, int check)
{
    char prefix[64], name[NAME_MAX + 1];
    tm_error_t e;
    int rc;

    if (recorder_lookup (in->exe, in->conf->recorder_dir, out->recorder, sizeof (out->recorder),
                         &e) < 0) {
        place_default (out, 1, "%s, and cannot record one: %s", why, e.text);
        return -1;
    }
    if (file_trusted (out->recorder, in->uid, 0, &e) < 0) {
        place_default (out, 1, "%s, and cannot record one: recorder_dir=%s is not safe to load: %s",
                       why, in->conf->recorder_dir, e.text);
        return -1;
    }
    if (in->user_cache_fd < 0) {
        place_default (out, 1, "%s, and cannot record one: %s", why, in->user_cache_error);
        return -1;
    }
    /* Where rank 0 puts the profile: a name nobody can guess, made here,
     * replaced by the recorder. */
    snprintf (prefix, sizeof (prefix), ".record-job%s.", in->jobid);
    rc = file_createat (in->user_cache_fd, prefix, ".json", "", 0, 0600, name, sizeof (name), &e);
    if (rc < 0 || snprintf (out->record, sizeof (out->record), "%s/%s", in->user_cache, name) >=
                      (int)sizeof (out->record)) {
        place_default (out, 1, "%s, and cannot record one: %s/%s", why, in->user_cache,
                       rc < 0 ? e.text : "path too long");
        return -1;
    }
    out->action = PLACE_RECORD;
    out->failed = 0;
    out->record_check = check;
    snprintf (out->reason, sizeof (out->reason), "%s: recording %s", why,
              check ? "a second, so that only traffic that recurs places ranks" : "one");
    return 0;
}

/* The plan's PMI_process_mapping into buf: each rank on the index of its
 * node among the step's nodes, in allocation order (the slots, which hold
 * netmap host indexes).
 */
static int place_pmi_mapping (const netmap_t *nm, const int *node, int ntasks,
                              const map_slot_t *slots, int nslots, char *buf, size_t len,
                              tm_error_t *errp)
{
    int *slot_of = malloc ((size_t)nm->n * sizeof (*slot_of));
    int *step_node = malloc ((size_t)ntasks * sizeof (*step_node)), rc = -1;

    if (!slot_of || !step_node)
        errnomem (errp);
    else {
        for (int h = 0; h < nm->n; h++)
            slot_of[h] = -1;
        for (int i = 0; i < nslots; i++)
            slot_of[slots[i].host] = i;
        for (int r = 0; r < ntasks; r++)
            step_node[r] = slot_of[node[r]];
        rc = layout_pmi_mapping (ntasks, step_node, buf, len, errp);
    }
    free (step_node);
    free (slot_of);
    return rc;
}

/* The decision */

/* The gains of layout node over srun's (base) on each recording of a
 * profile with a check, each whole, into g[2] and lg[2] (the busiest
 * link).  -1 (ENOMEM) when out of memory.
 */
static int place_check_gains (const profile_t *p, const netmap_t *nm, map_metric_t metric,
                              int *node, int *base, double g[2], double lg[2])
{
    const profile_t *runs[2] = {p, p->recheck};

    for (int i = 0; i < 2; i++) {
        map_candidate_t pc = {.node = node}, bc = {.node = base};

        if (map_price (runs[i], nm, metric, &pc) < 0 || map_price (runs[i], nm, metric, &bc) < 0)
            return -1;
        g[i] = map_gain (pc.cost_s, bc.cost_s);
        lg[i] = map_gain (pc.link_s, bc.link_s);
    }
    return 0;
}

/* The odds of layout node against srun's layout base (map_odds) on the
 * netmap's spread s into o: priced on each recording of a profile with a
 * check, else on from.  -1 (ENOMEM).
 */
static int place_odds (const place_in_t *in, const profile_t *p, const profile_t *from,
                       netmap_t *nm, const netmap_spread_t *s, map_metric_t metric, const int *node,
                       const int *base, map_odds_t *o)
{
    const profile_t *runs[2] = {p->recheck ? p : from, p->recheck};

    return map_odds (runs, p->recheck ? 2 : 1, nm, s, metric, node, base, in->conf->min_gain, o,
                     NULL);
}

/* Whether a plan gains min_gain in enough draws of the spread (in all,
 * where there were none to draw).
 */
static bool place_odds_win (const map_odds_t *o)
{
    return o->draws == 0 || o->wins >= MAP_ODDS_LEVEL * o->draws;
}

static void place_odds_set (place_out_t *out, const map_odds_t *o)
{
    out->draws = o->draws;
    out->wins = o->wins;
    out->gain_lo = o->gain_lo;
    out->gain_hi = o->gain_hi;
    out->link_lo = o->link_lo;
    out->link_hi = o->link_hi;
}

/* A gain g with its interval [lo, hi] over the draws where there were
 * any, into buf: "9.0% (-3.0% to 21.0%)", else "9.0%".
 */
static const char *place_gain_text (double g, int draws, double lo, double hi, char *buf,
                                    size_t len)
{
    if (draws)
        snprintf (buf, len, "%.1f%% (%.1f%% to %.1f%%)", 100 * g, 100 * lo, 100 * hi);
    else
        snprintf (buf, len, "%.1f%%", 100 * g);
    return buf;
}

/* out's gains, in total into gt and at the busiest link into lt, each
 * of len bytes, as place_gain_text writes them. */
static void place_gains_text (const place_out_t *out, char *gt, char *lt, size_t len)
{
    place_gain_text (out->gain, out->draws, out->gain_lo, out->gain_hi, gt, len);
    place_gain_text (out->link_gain, out->draws, out->link_lo, out->link_hi, lt, len);
}

/* When the plan's PMI-2 mapping is too long (nopmi says so): the best
 * plan of consecutive ranks a node (map_consecutive), priced as the plan
 * is against srun's layout base.  1 with cons filled and out's gains set
 * when it reaches min_gain in total and at the busiest link (one -v line);
 * 0 when it does not, nopmi[len] then saying so too; -1 with nopmi the
 * fault.
 */
static int place_consecutive (const place_in_t *in, const profile_t *p, const profile_t *from,
                              netmap_t *nm, const netmap_spread_t *s, const map_params_t *params,
                              int nslots, const map_slot_t *slots, const map_candidate_t *plan,
                              const map_candidate_t *base, map_candidate_t *cons, place_out_t *out,
                              char *nopmi, size_t len)
{
    double g, lg;
    size_t used = strlen (nopmi);
    map_odds_t o = {0};
    char gt[64], lt[64];
    tm_error_t e;

    if (map_consecutive (from, nm, params->metric, nslots, slots, plan->node, cons, &e) < 0) {
        snprintf (nopmi, len, "the mapper: %s", e.text);
        return -1;
    }
    g = map_gain (cons->cost_s, base->cost_s);
    lg = map_gain (cons->link_s, base->link_s);
    if (p->recheck) {
        double cg[2], clg[2];

        if (place_check_gains (p, nm, params->metric, cons->node, base->node, cg, clg) < 0) {
            snprintf (nopmi, len, "the mapper: pricing the profile's recordings: out of memory");
            return -1;
        }
        g = cg[0] < cg[1] ? cg[0] : cg[1];
        lg = clg[0] < clg[1] ? clg[0] : clg[1];
    }
    if (g >= in->conf->min_gain && lg >= in->conf->min_gain &&
        place_odds (in, p, from, nm, s, params->metric, cons->node, base->node, &o) < 0) {
        snprintf (nopmi, len, "the mapper: the odds of the profile's plan: out of memory");
        return -1;
    }
    place_gain_text (g, o.draws, o.gain_lo, o.gain_hi, gt, sizeof (gt));
    place_gain_text (lg, o.draws, o.link_lo, o.link_hi, lt, sizeof (lt));
    if (g < in->conf->min_gain || lg < in->conf->min_gain || !place_odds_win (&o)) {
        snprintf (nopmi + used, len - used,
                  "; the best plan of consecutive ranks a node gains %s, %s at the busiest link%s",
                  gt, lt, place_odds_win (&o) ? "" : ": not significant");
        return 0;
    }
    if (place_pmi_mapping (nm, cons->node, p->ntasks, slots, nslots, out->pmi_mapping,
                           sizeof (out->pmi_mapping), &e) < 0) {
        snprintf (nopmi + used, len - used,
                  "; nor that of the best plan of consecutive ranks a "
                  "node: %s",
                  e.text);
        return 0;
    }
    SAY (in,
         "topomap: %s; the best plan of consecutive ranks a node, whose mapping fits, gains "
         "%s, %s at the busiest link",
         nopmi, gt, lt);
    out->gain = g;
    out->link_gain = lg;
    place_odds_set (out, &o);
    return 1;
}

const char *place_bind_why_not (const place_in_t *in, const int *counts, int cpt, int *loud)
{
    const layout_alloc_t *a = in->alloc;
    int cpus = 0;

    *loud = 0;
    if (in->conf->bind == CONF_BIND_NO)
        return "plugstack bind=no";
    if (in->cpu_bind) {
        *loud = 1;
        return in->cpu_bind;
    }
    if (in->task_affinity != 1)
        return in->task_affinity == 0
                   ? "Slurm does not bind tasks (TaskPlugin without task/affinity)"
                   : "whether Slurm binds tasks is unknown";
    /* the probe runs two ranks of half the CPUs on every node of the job */
    for (int i = 0; i < a->nnodes; i++) {
        if (counts[i] > 0 && (long)counts[i] * cpt != a->cpus[i])
            return "the step does not take every CPU the job has on its nodes";
        if (cpus && a->cpus[i] != cpus)
            return "the job has unequal CPU counts on its nodes";
        cpus = a->cpus[i];
    }
    if (cpus < 2)
        return "one CPU a node";
    if (cpus % 2)
        return "an odd count of CPUs a node (the probe's two ranks take half each)";
    return NULL;
}

/* The plan node[] (netmap hosts) of the step of counts[] tasks on the
 * allocation's nodes, bound inside its nodes: out->cpu_bind
 * and out->bind_gain, the gain over Slurm's own binding.  0 when it binds;
 * 1 when Slurm's own binding is as good (bind=auto: Slurm's stays); -2
 * for a reason of the step's or the site's, -1 for a fault of a node's,
 * errp saying why (a line for srun -v, a line always).
 */
static int place_bind (const place_in_t *in, const int *counts, const profile_t *p,
                       const netmap_t *nm, const int *node, int cpt, const map_params_t *params,
                       place_out_t *out, tm_error_t *errp)
{
    const layout_alloc_t *a = in->alloc;
    map_inside_t b = {0};
    int rc;

    /* the CPUs the probe read must be the job's: a step's list outside its
     * CPUs fails the launch (_validate_map).  The plan's nodes are the
     * step's (it keeps srun's count on each). */
    for (int i = 0; i < a->nnodes; i++) {
        int h = counts[i] > 0 ? netmap_host_index (nm, a->nodes[i]) : -1;

        if (h >= 0 && nm->inside[h] && nm->inside[h]->ncpus != a->cpus[i]) {
            errprintf (errp, "%s: the probe read %d CPUs, the job has %d there", a->nodes[i],
                       nm->inside[h]->ncpus, a->cpus[i]);
            return -2;
        }
    }
    if ((rc = map_inside_netmap (p, nm, node, cpt, params, &b, errp)) < 0)
        return rc;
    if (in->conf->bind != CONF_BIND_ALWAYS && !(b.cost_s < b.cyclic_s)) {
        errprintf (errp, "Slurm's own binding (the packages in turn) is as good");
        rc = 1;
    } else if (map_inside_cpu_bind (&b, out->cpu_bind, sizeof (out->cpu_bind)) < 0) {
        errprintf (errp, "the binding of %d local tasks is longer than %d bytes", b.nlocal,
                   PLACE_CPU_BIND_MAX);
        rc = -2;
    } else
        out->bind_gain = b.cyclic_s > 0 ? 1.0 - b.cost_s / b.cyclic_s : 0.0;
    map_inside_free (&b);
    return rc;
}

/* What place_decide works with, step after step.  Each step returns 0 to
 * go on, or 1 when it has decided (out says what).
 */
typedef struct {
    const place_in_t *in;
    place_out_t *out;
    layout_step_t step;
    int *counts;       /* [nnodes] srun's tasks a node */
    int *order;        /* [nnodes] the nodes in srun's order */
    map_slot_t *slots; /* the step's nodes in that order */
    int nslots;
    int cpt, loud, inside_cpus; /* place_bind_why_not's verdict */
    const char *nobind;
    int unchecked;         /* a dry run of a profile without its check */
    profile_t *p, *common; /* the profile; what both recordings share */
    const profile_t *from; /* what the plan is made from */
    netmap_t *nm;
    netmap_spread_t *spread; /* of nm's figures as measured */
    map_params_t params;
    map_result_t res;
    map_candidate_t cons; /* the plan of consecutive ranks, for pmi2 */
    const map_candidate_t *plan, *base;
    int apply;
    int unsure;                 /* the plan's gain does not hold across the
                                   netmap's spread */
    char history[NAME_MAX + 1]; /* the profile's runs in the user's cache */
    history_verdict_t learned;  /* what they say of placed runs */
    char nopmi[384];            /* why pmi2 cannot take the plan */
    char *nics;                 /* each rank's NIC (out->nics), NULL for none */
    int slot_bound;             /* nics binds each rank to its slot's CPUs */
    double nic_gain;
    double t0;
} place_run_t;

/* 1. The step srun would run: its layout, its nodes in srun's order, and
 * whether the plan may bind. */
static int decide_step (place_run_t *r)
{
    const place_in_t *in = r->in;
    const layout_alloc_t *a = in->alloc;
    char why[256], list[512];
    int rc, len = 0;
    tm_error_t e;

    if ((rc = layout_default (a, in->req, &r->step, r->counts, why, sizeof (why), &e)) < 0) {
        place_default (r->out, 1, "the step's geometry: %s", e.text);
        return 1;
    }
    if (rc > 0) {
        place_default (r->out, 0, "srun's layout cannot be predicted: %s", why);
        return 1;
    }
    /* Which of the step's nodes and in which order: Slurm's topology's
     * (26.05+) must be known (*AsNodeRank reorder even a cyclic step's). */
    if (in->order_unknown) {
        place_default (r->out, 0, "srun's layout cannot be predicted: %s", in->order_unknown);
        return 1;
    }
    if (!(r->order = malloc ((size_t)a->nnodes * sizeof (*r->order))) ||
        layout_node_order (a->nnodes, r->step.topo ? in->req->node_rank : NULL, r->order) < 0) {
        place_default (r->out, 1, "out of memory");
        return 1;
    }
    r->out->ntasks = r->step.ntasks;
    list[0] = '\0';
    for (int i = 0; i < a->nnodes; i++) {
        int k = r->order[i];

        if (r->counts[k] == 0)
            continue;
        r->nslots++;
        if (len < (int)sizeof (list) - 64)
            len += snprintf (list + len, sizeof (list) - (size_t)len, "%s%s:%d", len ? "," : "",
                             a->nodes[k], r->counts[k]);
    }
    SAY (in, "topomap: step of %d tasks on %d nodes (%s%s%s): %s", r->step.ntasks, r->nslots,
         r->step.cyclic ? "cyclic" : "block", r->step.topo ? " in " : "",
         r->step.topo ? in->order_name : "", list);
    if (r->nslots < 2) {
        place_default (r->out, 0, "the step runs on one node");
        return 1;
    }
    /* Whether the plan may bind: then the probe reads the nodes' CPUs. */
    r->cpt = in->req->cpus_per_task > 0 ? in->req->cpus_per_task : 1;
    if (!(r->nobind = place_bind_why_not (in, r->counts, r->cpt, &r->loud)))
        for (int i = 0; i < a->nnodes; i++)
            if (r->counts[i] > 0)
                r->inside_cpus = a->cpus[i] / 2;
    return 0;
}

/* 2a. The profile of the executable in the caches, or a recording of one:
 * one recording cannot tell traffic that recurs from traffic a program
 * draws anew at each run (HPCC's random rings), so the recorder's
 * profiles in the user's cache get a second, their check.  Profiles of
 * other sources (imports of foreign formats) and the site's are the
 * user's and the site's word.  A dry run reports what the one recording
 * gives; when a second cannot be recorded, the one places.
 */
static int decide_profile_cached (place_run_t *r)
{
    const place_in_t *in = r->in;
    char id[EXEID_MAX + 1], why[512], found[4096] = "", mine[4096];
    int ntasks = r->step.ntasks, rc;
    tm_error_t e;

    if (!in->exe) {
        place_default (r->out, 1, "the step's executable is unknown%s%s", in->exe_error ? ": " : "",
                       in->exe_error ? in->exe_error : "");
        return 1;
    }
    if (exeid_compute (in->exe, id, sizeof (id), &e) < 0) {
        place_default (r->out, 1, "%s", e.text);
        return 1;
    }
    if (history_name (id, ntasks, r->history, sizeof (r->history), &e) < 0)
        r->history[0] = '\0';
    if (in->profile->mode == PROFILE_MODE_RECORD) {
        place_record (in, r->out, "--topo-profile=record", 0);
        return 1;
    }
    if (place_site_trusted (in, &e) < 0) {
        place_default (r->out, 1, "%s", e.text);
        return 1;
    }
    if (in->user_cache_fd < 0) {
        place_default (r->out, 1, "the profile cache %s", in->user_cache_error);
        return 1;
    }
    rc = profile_cache_lookup (in->user_cache_fd, in->user_cache, in->conf->site_profiles, in->uid,
                               id, ntasks, &r->p, found, sizeof (found), &e);
    if (rc < 0) {
        place_default (r->out, 1, "%s", e.text);
        return 1;
    }
    if (e.text[0])
        SAY (in, "topomap: %s", e.text);
    if (rc == 0) {
        snprintf (why, sizeof (why), "no profile of %s for %d tasks yet", in->exe, ntasks);
        place_record (in, r->out, why, 0);
        return 1;
    }
    if (r->p->recheck || strcmp (r->p->source, "recorder") != 0 ||
        profile_cache_path (in->user_cache, id, ntasks, mine, sizeof (mine), &e) < 0 ||
        strcmp (found, mine) != 0)
        return 0;
    snprintf (why, sizeof (why), "the profile of %s for %d tasks has one recording", in->exe,
              ntasks);
    if (in->map == CONF_MAP_DRYRUN)
        r->unchecked = 1;
    else if (place_record (in, r->out, why, 1) == 0)
        return 1;
    else {
        SAY (in, "topomap: %s: placing by the one recording", r->out->reason);
        memset (r->out, 0, sizeof (*r->out));
        r->out->ntasks = ntasks;
    }
    return 0;
}

/* 2. The profile, and what the plan is made from: of a profile with a
 * check, the traffic both recordings share, so that only traffic that
 * recurs places ranks (HPCC's random rings, drawn anew at each run, do
 * not). */
static int decide_profile (place_run_t *r)
{
    const place_in_t *in = r->in;
    tm_error_t e;

    switch (in->profile->mode) {
    case PROFILE_MODE_OFF:
        place_default (r->out, 0, "no profile (--topo-profile=off)");
        return 1;
    case PROFILE_MODE_PATH:
        if (!(r->p = profile_read (in->profile->value, &e))) {
            place_default (r->out, 1, "%s", e.text);
            return 1;
        }
        break;
    case PROFILE_MODE_NAME:
        if (!(r->p = place_profile_named (in, &e))) {
            place_default (r->out, 1, "%s", e.text);
            return 1;
        }
        break;
    case PROFILE_MODE_AUTO:
    case PROFILE_MODE_RECORD:
        if (decide_profile_cached (r))
            return 1;
        break;
    }
    if (r->p->ntasks != r->step.ntasks) {
        place_default (r->out, 1, "the profile was recorded for %d tasks, this step has %d",
                       r->p->ntasks, r->step.ntasks);
        return 1;
    }
    r->from = r->p;
    if (r->p->recheck) {
        if (!(r->common = profile_common (r->p, r->p->recheck, &e))) {
            if (errno == ENODATA)
                place_default (r->out, 0, "%s", e.text);
            else
                place_default (r->out, 1, "the profile's check: %s", e.text);
            return 1;
        }
        r->from = r->common;
    }
    return 0;
}

/* What the runs of the profile say of a plan the model would apply
 * (history_judge, on the runs with this step's arguments): placed runs
 * not faster than srun's by more than their spread keep srun's layout,
 * until HISTORY_RETRY runs under it have passed; a run due as a control
 * runs under srun's layout.  A history that cannot be read is one line
 * and no verdict.
 */
static void place_learned (place_run_t *r)
{
    const place_in_t *in = r->in;
    history_t *h;
    tm_error_t e;

    if (!r->history[0] || !in->args || in->user_cache_fd < 0 || !(h = malloc (sizeof (*h))))
        return;
    if (history_readat (in->user_cache_fd, r->history, r->history, in->uid, h, &e) < 0)
        SAY (in, "topomap: the runs of the profile not read: %s", e.text);
    else {
        history_judge (h, in->args, &r->learned);
        if (r->learned.placed < 2 || r->learned.srun < 2)
            SAY (in,
                 "topomap: runs of this step: %d placed, %d under srun's layout: too few to "
                 "compare%s",
                 r->learned.placed, r->learned.srun,
                 r->learned.control ? ", this one under srun's layout" : "");
        else
            SAY (in,
                 "topomap: runs of this step, placed %.3f s against srun's layout %.3f s "
                 "(medians of %d and %d, spread %.3f s)%s",
                 r->learned.placed_s, r->learned.srun_s, r->learned.placed, r->learned.srun,
                 r->learned.spread_s,
                 r->learned.keep                     ? ": keeping srun's layout"
                 : r->learned.control                ? ": this one under srun's layout"
                 : r->learned.since >= HISTORY_RETRY ? ": trying the plan again"
                                                     : "");
        r->apply = !r->learned.keep && !r->learned.control;
    }
    free (h);
}

/* 3 and 4. The netmap, and the plan over srun's own counts on the tree's
 * figures where the tree fits (lib/netmap.h), weighed against srun's
 * layout: the mapper's choice, or when that is srun's own layout, the
 * topomap plan it turned down.  It is applied when it gains min_gain in
 * total and at the busiest link; of a profile with a check, priced on
 * each recording whole, the lesser gains counting.
 */
static int decide_plan (place_run_t *r)
{
    const place_in_t *in = r->in;
    const layout_alloc_t *a = in->alloc;
    place_out_t *out = r->out;
    int srun_cand = -1;
    tm_error_t e;

    if (!(r->nm = place_netmap (in, r->inside_cpus, &e))) {
        place_default (out, 1, "no netmap: %s", e.text);
        return 1;
    }
    if (!(r->spread = netmap_spread_new (r->nm, &e)) || netmap_plan_figures (r->nm, &e) < 0) {
        place_default (out, 1, "the netmap: %s", e.text);
        return 1;
    }
    /* The slots in srun's order, so that the mapper's block candidate is
     * srun's layout, the topology's order included. */
    r->nslots = 0;
    for (int i = 0; i < a->nnodes; i++) {
        if (r->counts[r->order[i]] == 0)
            continue;
        r->slots[r->nslots].host = netmap_host_index (r->nm, a->nodes[r->order[i]]);
        r->slots[r->nslots++].count = r->counts[r->order[i]];
    }
    map_params_default (&r->params);
    r->params.metric = in->map == CONF_MAP_LATENCY     ? MAP_LATENCY
                       : in->map == CONF_MAP_BANDWIDTH ? MAP_BANDWIDTH
                                                       : MAP_COMBINED;
    /* A plan that takes a while says so first, unasked, as the probe does;
     * its time grows with the ranks (BENCH map: 4096 ranks in at most
     * 0.12 s, 65536 in 1.6 to 3.5 s on two cores).
     */
    if (!in->say && in->note && r->from->ntasks >= PLACE_SLOW_PLAN_RANKS)
        in->note ("topomap: planning the placement of %d ranks on %d nodes before the step "
                  "starts",
                  r->from->ntasks, r->nslots);
    if (map_plan (r->from, r->nm, r->nslots, r->slots, &r->params, &r->res, &e) < 0) {
        place_default (out, 1, "the mapper: %s", e.text);
        return 1;
    }
    for (int i = 0; i < r->res.ncandidates; i++)
        if (!strcmp (r->res.cand[i].name, r->step.cyclic ? "cyclic" : "block"))
            srun_cand = i;
    if (srun_cand < 0) {
        place_default (out, 1, "the mapper priced no %s layout",
                       r->step.cyclic ? "cyclic" : "block");
        return 1;
    }
    r->plan = &r->res.cand[r->res.chosen == srun_cand ? 0 : r->res.chosen];
    r->base = &r->res.cand[srun_cand];
    out->gain = map_gain (r->plan->cost_s, r->base->cost_s);
    out->link_gain = map_gain (r->plan->link_s, r->base->link_s);
    SAY (in,
         "topomap: planned in %.3f s%s: predicted %.3f ms against srun's %.3f ms, "
         "busiest link %.3f ms against %.3f ms",
         r->res.time_s, r->common ? " from the traffic both recordings of the profile share" : "",
         r->plan->cost_s * 1e3, r->base->cost_s * 1e3, r->plan->link_s * 1e3,
         r->base->link_s * 1e3);
    if (r->p->recheck) {
        double g[2], lg[2];

        if (place_check_gains (r->p, r->nm, r->params.metric, r->plan->node, r->base->node, g, lg) <
            0) {
            place_default (out, 1, "the mapper: pricing the profile's recordings: out of memory");
            return 1;
        }
        SAY (in,
             "topomap: the plan priced on the profile's recording and on its check (job %s, "
             "%.1f%% of the traffic recurring): gain %.1f%% and %.1f%%, %.1f%% and %.1f%% at the "
             "busiest link",
             r->p->recheck->jobid[0] ? r->p->recheck->jobid : "unknown",
             100 * profile_recurring (r->p, r->p->recheck), 100 * g[0], 100 * g[1], 100 * lg[0],
             100 * lg[1]);
        out->gain = g[0] < g[1] ? g[0] : g[1];
        out->link_gain = lg[0] < lg[1] ? lg[0] : lg[1];
    }
    r->apply = r->res.chosen != srun_cand && out->gain >= in->conf->min_gain &&
               out->link_gain >= in->conf->min_gain;
    if (r->apply || in->map == CONF_MAP_DRYRUN) {
        map_odds_t o;

        if (place_odds (in, r->p, r->from, r->nm, r->spread, r->params.metric, r->plan->node,
                        r->base->node, &o) < 0) {
            place_default (out, 1, "the mapper: the odds of the plan: out of memory");
            return 1;
        }
        place_odds_set (out, &o);
        if (out->draws)
            SAY (in,
                 "topomap: the plan and srun's layout priced again on %d netmaps drawn from "
                 "the spread of pairs alike: gain %.1f%% to %.1f%%, %.1f%% to %.1f%% at the "
                 "busiest link; min_gain in %d of them",
                 out->draws, 100 * out->gain_lo, 100 * out->gain_hi, 100 * out->link_lo,
                 100 * out->link_hi, out->wins);
        r->unsure = r->apply && !place_odds_win (&o);
        r->apply = r->apply && !r->unsure;
    }
    if (r->apply)
        place_learned (r);
    return 0;
}

/* The PMI mapping of a plan for Slurm's pmi2 plugin (only it needs one,
 * place.h); a plan whose mapping is too long gives way to the best plan
 * whose nodes each hold consecutive ranks, one block a node, when that
 * gains enough. */
static int decide_pmi (place_run_t *r)
{
    place_out_t *out = r->out;
    tm_error_t e;
    int rc;

    r->nopmi[0] = '\0';
    if (!r->apply || !r->in->mpi || strcmp (r->in->mpi, "pmi2") != 0 ||
        place_pmi_mapping (r->nm, r->res.cand[r->res.chosen].node, r->res.ntasks, r->slots,
                           r->nslots, out->pmi_mapping, sizeof (out->pmi_mapping), &e) == 0)
        return 0;
    if (errno != E2BIG) {
        place_default (out, 1, "%s", e.text);
        return 1;
    }
    snprintf (r->nopmi, sizeof (r->nopmi),
              "--mpi=pmi2 could not tell the ranks which of them share a node: %s", e.text);
    r->apply = 0;
    if ((rc = place_consecutive (r->in, r->p, r->from, r->nm, r->spread, &r->params, r->nslots,
                                 r->slots, r->plan, r->base, &r->cons, out, r->nopmi,
                                 sizeof (r->nopmi))) < 0) {
        place_default (out, 1, "%s", r->nopmi);
        return 1;
    }
    if (rc == 1) {
        r->plan = &r->cons;
        r->apply = 1;
        r->nopmi[0] = '\0';
    }
    return 0;
}

/* Each rank's node, GPU and NIC in one -v line (the ranks that fit). */
static void say_nics (const place_in_t *in, const railmap_t *m, const int *node, const netmap_t *nm)
{
    char list[640];
    int len = 0, r;

    for (r = 0; r < m->nranks; r++) {
        const railmap_nic_t *c = &m->nics[m->nic[r]];
        int n = snprintf (list + len, sizeof (list) - (size_t)len, "%s%d %s %s %s", r ? ", " : "",
                          r, nm->hosts[node[r]], railmap_gpu (nm->slots[node[r]], m->slot[r]),
                          c->name[0] ? c->name : c->netdev);

        if (n < 0 || n >= (int)sizeof (list) - len) {
            list[len] = '\0';
            break;
        }
        len += n;
    }
    SAY (in, "topomap: rank, node, GPU and NIC: %s%s", list, r < m->nranks ? ", ..." : "");
}

/* The slots whose CPUs each rank is bound to (railmap_env): those of the
 * step's first node, when Slurm may be left to bind (decide_step's
 * verdict), the probe read on every node of the step the CPUs the job
 * has there (a job without the whole node or a cgroup would see the
 * node's), and every node's slots have the same CPUs.  NULL, why saying
 * why, else.
 */
static const slots_t *slot_cpus (const place_run_t *r, char *why, size_t len)
{
    const layout_alloc_t *a = r->in->alloc;
    const slots_t *first = NULL;

    if (r->nobind) {
        snprintf (why, len, "%s", r->nobind);
        return NULL;
    }
    for (int i = 0; i < a->nnodes; i++) {
        int h = r->counts[i] > 0 ? netmap_host_index (r->nm, a->nodes[i]) : -1;
        const slots_t *s = h >= 0 ? r->nm->slots[h] : NULL;

        if (h < 0)
            continue;
        if (!s) {
            snprintf (why, len, "%s has no GPU slots read", a->nodes[i]);
            return NULL;
        }
        if (!r->nm->inside[h] || r->nm->inside[h]->ncpus != a->cpus[i]) {
            snprintf (why, len, "%s: the netmap has not the %d CPUs the job has there", a->nodes[i],
                      a->cpus[i]);
            return NULL;
        }
        first = first ? first : s;
        for (int k = 0; k < s->nslots && s->nslots == first->nslots; k++)
            if (s->slot[k].ncpus != first->slot[k].ncpus ||
                memcmp (s->slot[k].cpu, first->slot[k].cpu,
                        (size_t)s->slot[k].ncpus * sizeof (int))) {
                snprintf (why, len, "%s's GPU %d has other CPUs than on the first node",
                          a->nodes[i], k);
                return NULL;
            }
        if (s->nslots != first->nslots) {
            snprintf (why, len, "%s has %d GPUs, the first node %d", a->nodes[i], s->nslots,
                      first->nslots);
            return NULL;
        }
    }
    return first;
}

/* 5b. Each rank's NIC, on the layout that runs (the plan's when it is
 * applied, else srun's): on nodes of several rails, the slot choice that
 * takes the most bytes between nodes off the spine (railmap.h), kept when
 * it takes min_gain of those that cross rails in Slurm's order.  Nothing
 * here fails a step: without a choice the MPI picks its NICs.
 */
static int decide_nics (place_run_t *r)
{
    const place_in_t *in = r->in;
    const int *node = r->apply ? r->plan->node : r->base->node;
    railmap_t m;
    const slots_t *cpus;
    char why[256], nocpus[256], env[PLACE_NICS_MAX + 1];
    tm_error_t e;
    int rc;

    if (in->gpu_bind) {
        SAY (in,
             "topomap: no NIC chosen: Slurm binds each task's GPU (--%s), the MPI takes the NIC "
             "near it",
             in->gpu_bind);
        return 0;
    }
    rc = railmap_choose (r->from, node, r->nm->n, r->nm->slots, (const char *const *)r->nm->hosts,
                         &m, why, sizeof (why), &e);
    if (rc != 0) {
        SAY (in, "topomap: no NIC chosen: %s", rc < 0 ? e.text : why);
        return 0;
    }
    r->nic_gain = m.default_bytes ? 1.0 - (double)m.cross_bytes / (double)m.default_bytes : 0;
    SAY (in,
         "topomap: bytes between nodes crossing rails (%d): %.1f%% in Slurm's order, %.1f%% by "
         "rail, gain %.1f%%",
         m.nrails, 100.0 * (double)m.default_bytes / (double)m.node_bytes,
         100.0 * (double)m.cross_bytes / (double)m.node_bytes, 100 * r->nic_gain);
    if (m.default_bytes == 0 || r->nic_gain < in->conf->min_gain) {
        SAY (in, "topomap: no NIC chosen: below min_gain (%.1f%%)", 100 * in->conf->min_gain);
        railmap_free (&m);
        return 0;
    }
    cpus = slot_cpus (r, nocpus, sizeof (nocpus));
    /* the NICs without the CPUs where both do not fit */
    if ((rc = railmap_env (&m, cpus, env, sizeof (env), &e)) < 0 && cpus) {
        snprintf (nocpus, sizeof (nocpus), "%s", e.text);
        cpus = NULL;
        rc = railmap_env (&m, NULL, env, sizeof (env), &e);
    }
    if (rc < 0)
        SAY (in, "topomap: no NIC chosen: %s", e.text);
    else if (!(r->nics = strdup (env)))
        SAY (in, "topomap: no NIC chosen: out of memory");
    else {
        say_nics (in, &m, node, r->nm);
        if (cpus)
            SAY (in, "topomap: each rank bound to the CPUs of its GPU, GPU by GPU: %s",
                 strrchr (env, ';') + 1);
        else
            SAY (in, "topomap: the CPU binding stays Slurm's: %s", nocpus);
        r->slot_bound = cpus != NULL;
    }
    railmap_free (&m);
    return 0;
}

/* 6. The binding inside the nodes (made before step 5: a dry run reports
 * it too), then the verdict: a dry run's line, or srun's layout kept. */
static int decide_bind (place_run_t *r)
{
    const place_in_t *in = r->in;
    place_out_t *out = r->out;
    char nobind_line[512] = "", gt[64], lt[64], unsure[160], learned[200], control[200];
    tm_error_t e;
    int rc;

    if (r->slot_bound)
        ; /* decide_nics bound them */
    else if (r->nobind && r->loud)
        snprintf (nobind_line, sizeof (nobind_line),
                  "topomap: %s: it stands, and the plan places ranks across nodes only", r->nobind);
    else if (r->nobind)
        SAY (in, "topomap: no CPU binding: %s", r->nobind);
    else if ((rc = place_bind (in, r->counts, r->from, r->nm, r->plan->node, r->cpt, &r->params,
                               out, &e)) == -2 ||
             rc == 1)
        SAY (in, "topomap: no CPU binding: %s", e.text);
    else if (rc < 0)
        snprintf (nobind_line, sizeof (nobind_line),
                  "topomap: no CPU binding: %s: the plan places ranks across nodes only", e.text);
    else
        SAY (in,
             "topomap: each rank bound inside its node, --cpu-bind=%.80s%s: predicted gain "
             "%.1f%% over Slurm's own binding for the pairs inside the nodes",
             out->cpu_bind, strlen (out->cpu_bind) > 80 ? "..." : "", 100 * out->bind_gain);
    if (nobind_line[0] && in->note && (r->apply || in->map == CONF_MAP_DRYRUN))
        in->note ("%s", nobind_line);
    place_gains_text (out, gt, lt, sizeof (gt));
    snprintf (unsure, sizeof (unsure),
              "not significant: min_gain in %d of %d netmaps drawn from the spread of pairs "
              "alike, %d needed",
              out->wins, out->draws, (int)ceil (MAP_ODDS_LEVEL * out->draws));
    snprintf (learned, sizeof (learned),
              "placed runs %.3f s against srun's %.3f s (%d and %d runs): keeping srun's "
              "layout, the plan tried again after %d more runs under it",
              r->learned.placed_s, r->learned.srun_s, r->learned.placed, r->learned.srun,
              HISTORY_RETRY - r->learned.since);
    snprintf (control, sizeof (control),
              "a control run, to time srun's layout against the plan's (gain %s): %d placed "
              "and %d under srun's layout so far",
              gt, r->learned.placed, r->learned.srun);
    if (in->map == CONF_MAP_DRYRUN) {
        out->action = PLACE_DRYRUN;
        snprintf (out->reason, sizeof (out->reason),
                  "dry run: the %s plan would gain %s over srun's layout, %s at the "
                  "busiest link%s (%.300s)",
                  r->plan->name, gt, lt,
                  r->p->recheck ? ", the lesser on the profile's recording and on its check"
                  : r->unchecked
                      ? " by the profile's one recording (the next run records its check)"
                      : "",
                  r->apply             ? "would be applied"
                  : r->nopmi[0]        ? r->nopmi
                  : r->unsure          ? unsure
                  : r->learned.keep    ? learned
                  : r->learned.control ? "a control run under srun's layout is due"
                                       : "below min_gain");
        return 1;
    }
    if (!r->apply && (r->learned.keep || r->learned.control)) {
        place_default (out, 0, "%s", r->learned.keep ? learned : control);
        return 1;
    }
    if (r->nopmi[0]) {
        place_default (out, 0, "%s", r->nopmi);
        return 1;
    }
    if (!r->apply && r->unsure) {
        place_default (out, 0, "the plan's predicted gain%s, %s, %s at the busiest link, is %s",
                       r->p->recheck ? ", the lesser on the profile's recording and on its check"
                                     : "",
                       gt, lt, unsure);
        return 1;
    }
    if (!r->apply) {
        place_default (out, 0,
                       "the plan's predicted gain%s, %.1f%%, %.1f%% at the busiest link, is "
                       "below min_gain (%.1f%%)",
                       r->p->recheck ? ", the lesser on the profile's recording and on its check"
                                     : "",
                       100 * out->gain, 100 * out->link_gain, 100 * in->conf->min_gain);
        return 1;
    }
    return 0;
}

/* 5. The hostfile of the plan, made in the netmap directory, applied. */
static int decide_hostfile (place_run_t *r)
{
    const place_in_t *in = r->in;
    place_out_t *out = r->out;
    char prefix[64], name[NAME_MAX + 1], gt[64], lt[64], *text = NULL;
    size_t len = 0;
    tm_error_t e;
    int rc;

    snprintf (prefix, sizeof (prefix), "job%s.", in->jobid);
    rc = plan_text (&text, &len, PLAN_HOSTFILE, r->res.ntasks, r->plan->node, r->nm->n,
                    r->nm->hosts, &e);
    if (rc == 0)
        rc = file_createat (in->netmap_dirfd, prefix, ".hosts", text, len, 0600, name,
                            sizeof (name), &e);
    free (text);
    if (rc < 0) {
        place_default (out, 1, "the plan in %s: %s", in->netmap_dir, e.text);
        return 1;
    }
    if (snprintf (out->hostfile, sizeof (out->hostfile), "%s/%s", in->netmap_dir, name) >=
        (int)sizeof (out->hostfile)) {
        unlinkat (in->netmap_dirfd, name, 0);
        place_default (out, 1, "%s: path too long", in->netmap_dir);
        return 1;
    }
    out->action = PLACE_APPLY;
    place_gains_text (out, gt, lt, sizeof (gt));
    snprintf (out->reason, sizeof (out->reason),
              "placed %d ranks on %d nodes%s, predicted gain %s, %s at the busiest link%s (%.2f s)",
              r->res.ntasks, r->nslots, out->cpu_bind[0] ? " and bound them inside" : "", gt, lt,
              r->nics ? ", each rank's NIC by rail" : "", place_now () - r->t0);
    return 1;
}

void place_decide (const place_in_t *in, place_out_t *out)
{
    static int (*const steps[]) (place_run_t *) = {
        decide_step, decide_profile, decide_plan,     decide_pmi,
        decide_nics, decide_bind,    decide_hostfile,
    };
    place_run_t r = {.in = in, .out = out, .t0 = place_now ()};
    int n = in->alloc->nnodes;

    memset (out, 0, sizeof (*out));
    if (!place_jobid_valid (in->jobid)) {
        char q[96];

        place_default (out, 1, "SLURM_JOB_ID '%s' is not a job id",
                       errquote (in->jobid ? in->jobid : "", 20, q, sizeof (q)));
        return;
    }
    if (in->map == CONF_MAP_OFF) {
        place_default (out, 0, "--topo-map=off");
        return;
    }
    if (!(r.counts = calloc ((size_t)n, sizeof (*r.counts))) ||
        !(r.slots = calloc ((size_t)n, sizeof (*r.slots))))
        place_default (out, 1, "out of memory");
    else
        for (size_t k = 0; k < sizeof (steps) / sizeof (steps[0]) && steps[k](&r) == 0; k++)
            ;
    /* NICs for a plan applied, or srun's layout kept for what it gains. */
    if (r.nics && (out->action == PLACE_APPLY || (out->action == PLACE_DEFAULT && !out->failed))) {
        snprintf (out->nics, sizeof (out->nics), "%s", r.nics);
        out->nic_gain = r.nic_gain;
    }
    free (r.nics);
    /* Every run under srun's layout or a plan joins the profile's runs. */
    if (r.history[0] && in->args && in->user_cache_fd >= 0 && out->action != PLACE_DRYRUN)
        snprintf (out->history, sizeof (out->history), "%s", r.history);
    map_result_free (&r.res);
    free (r.cons.node);
    profile_destroy (r.common);
    profile_destroy (r.p);
    netmap_spread_free (r.spread);
    netmap_destroy (r.nm);
    free (r.slots);
    free (r.counts);
    free (r.order);
}

int place_plan_name (const char *name, const char *jobid)
{
    char prefix[64];

    if (!place_jobid_valid (jobid))
        return 0;
    snprintf (prefix, sizeof (prefix), "job%s.", jobid);
    return file_created_name (name, prefix, ".hosts");
}

int place_jobid_valid (const char *s)
{
    size_t n = s ? strspn (s, "0123456789") : 0;

    return n > 0 && n <= 20 && s[n] == '\0';
}

int place_inside_step (const char *s)
{
    const unsigned long long max_normal = 0xfffffff0ULL, all = 0xffffffffULL;
    unsigned long long v;
    int neg;
    size_t n;

    if (!s)
        return 0;
    neg = s[0] == '-';
    n = strspn (s + neg, "0123456789");
    if (n == 0 || n > 10 || s[neg + n] != '\0')
        return 1;
    v = strtoull (s + neg, NULL, 10);
    if (neg) /* a special id printed as int: -1 .. -15 */
        return !(v >= 1 && v <= all - max_normal);
    return v <= max_normal || v > all;
}

int place_file_recording (const char *record, const char *exe, int ntasks, int user_fd,
                          const char *user_cache, int check, char *msg, size_t msglen,
                          tm_error_t *errp)
{
    const char *name = strrchr (record, '/') ? strrchr (record, '/') + 1 : record;
    char id[EXEID_MAX + 1], stored[4096];
    profile_t *p = NULL, *first = NULL;
    tm_error_t w;
    int rc = -1, fd;

    if ((fd = file_openat_own (user_fd, name, record, O_RDONLY, 0, getuid (), errp)) < 0)
        return -1;
    p = profile_read_fd (fd, record, errp);
    close (fd);
    if (!p)
        goto out;
    if (p->ntasks != ntasks) {
        errprintf (errp, "%s: recorded %d tasks, the step had %d", record, p->ntasks, ntasks);
        goto out;
    }
    /* Filed under the identity the plugin looks up: the step's command,
     * even when the ranks ran another program it started.
     */
    if (exeid_compute (exe, id, sizeof (id), errp) < 0 ||
        profile_set_string (&p->exe_id, id, errp) < 0 ||
        profile_set_string (&p->exe_path, exe, errp) < 0)
        goto out;
    /* The check of the first recording, when that is still one the
     * recorder filed alone (another srun may have filed in between).  A
     * check that sent nothing point to point (a run that only started,
     * as with --help) is no run of the same work: not kept, nor a second
     * check in place of one.  A first that sent nothing, or one of
     * collectives where this has none or the other way round (the user
     * changed TOPOMAP_RECORD_COLLECTIVES), is replaced. */
    if (check &&
        profile_cache_lookup (user_fd, user_cache, NULL, getuid (), id, ntasks, &first, NULL, 0,
                              &w) == 1 &&
        !strcmp (first->source, "recorder") && first->total_bytes > 0 &&
        first->collectives == p->collectives) {
        if (first->recheck || p->total_bytes == 0) {
            snprintf (msg, msglen,
                      first->recheck ? "the profile of %s for %d tasks has its check already "
                                       "(another srun filed it): this recording is not kept"
                                     : "the second recording of %s for %d tasks sent nothing point "
                                       "to point: not kept as the profile's check",
                      exe, ntasks);
            rc = 0;
            goto out;
        }
        first->recheck = p;
        p = first;
        first = NULL;
    }
    if (profile_cache_storeat (user_fd, user_cache, p, stored, sizeof (stored), errp) < 0)
        goto out;
    if (p->recheck)
        snprintf (msg, msglen,
                  "recorded a second profile of %s for %d tasks, to plan from what recurs: "
                  "%.1f%% of the traffic recurs in it: %s",
                  exe, ntasks, 100 * profile_recurring (p, p->recheck), stored);
    else {
        char runs[NAME_MAX + 1];

        /* A new profile: the runs of the one it replaced are not its own. */
        if (history_name (id, ntasks, runs, sizeof (runs), &w) == 0)
            unlinkat (user_fd, runs, 0);
        snprintf (msg, msglen, "recorded the profile of %s for %d tasks: %s", exe, ntasks, stored);
    }
    rc = 0;
out:
    unlinkat (user_fd, name, 0);
    profile_destroy (first);
    profile_destroy (p);
    return rc;
}
