/* SPDX-License-Identifier: GPL-2.0-or-later */
/* place.h: what `srun --topo-map` does before any rank starts, as one
 * decision the SPANK plugin asks for at slurm_spank_init_post_opt.
 *
 *   1. the step srun would run (layout_default) over the allocation;
 *   2. the executable's profile: a file, a cached one (profile_cache), or
 *      none yet, in which case this run records one (mode auto, record);
 *   3. the allocation's netmap: cached per job in netmap_dir and shared by
 *      its steps, else the site's topology.conf with the figures of its
 *      levels (plugstack topology=, no probe), else measured by a nested
 *      `srun --overlap` probe step, one at a time under a lock, and
 *      measured again after the TTL;
 *   4. the plan (map_plan) over srun's own per-node counts, kept only if
 *      it is predicted to beat srun's layout by conf->min_gain, both in
 *      total communication time and at the busiest link, and so in at
 *      least MAP_ODDS_LEVEL of the netmaps drawn from the spread of its
 *      pairs (map_odds: a gain made of pairs that merely measured fast
 *      is not kept); of a profile with a check, made from the traffic both recordings share
 *      (profile_common), binding inside the nodes too, and priced on
 *      each recording whole, the lesser gains counting;
 *   5. a hostfile for SLURM_HOSTFILE, and the plan's PMI_process_mapping
 *      for Slurm's pmi2 plugin, which has none for a hostfile's layout
 *      (layout.h): a pmi2 step whose mapping PMI cannot pass keeps srun's
 *      layout;
 *   6. where the plan may bind (place_bind_why_not: plugstack bind=auto
 *      or always, Slurm's task/affinity, no --cpu-bind of the user's, the
 *      step on every CPU the job has on its nodes, as many on each, an
 *      even count), the CPUs of each rank inside its node (map_inside) as
 *      srun's --cpu-bind value, when it is predicted to beat Slurm's own
 *      binding (bind=auto) or always; the probe then runs two ranks a
 *      node, which read the node with hwloc and measure its levels.  A
 *      node whose CPUs were not read or differ from the others' leaves
 *      the plan across nodes only, with one line saying why.
 *
 * Everything that goes wrong ends in PLACE_DEFAULT with one line saying
 * why: the plugin then leaves srun's placement alone, or fails the step in
 * strict mode.
 */
#ifndef TOPOMAP_PLACE_H
#define TOPOMAP_PLACE_H

#include <sys/types.h>

#include "lib/conf.h"
#include "lib/layout.h"
#include "lib/netmap.h"

/* Environment the plugin sets for the re-executed srun and the tasks. */
#define PLACE_ENV_REEXEC   "TOPOMAP_REEXEC"      /* the hostfile; stops a second round */
#define PLACE_ENV_PROBE    "TOPOMAP_PROBE_STEP"  /* set in the probe step's srun */
#define PLACE_ENV_MODE     "TOPOMAP_MODE"        /* tasks: applied, default, dry-run, record */
#define PLACE_ENV_PLAN     "TOPOMAP_PLAN"        /* tasks: the plan (hostfile) applied */
#define PLACE_ENV_GAIN     "TOPOMAP_GAIN"        /* tasks: predicted gain over srun's layout */
#define PLACE_ENV_REASON   "TOPOMAP_REASON"      /* tasks: why the default placement */
#define PLACE_ENV_RECORDER "TOPOMAP_RECORDER"    /* slurmstepd: preload this into the tasks */
#define PLACE_ENV_PMI      "TOPOMAP_PMI_MAPPING" /* slurmstepd: the plan's PMI_process_mapping */
#define PLACE_ENV_NICS     "TOPOMAP_NICS"        /* task_init: each rank's NIC (railmap_env) */
#define PLACE_ENV_RUNS                                                                             \
    "TOPOMAP_RUNS" /* the re-executed srun: "NAME ARGS", the                                       \
                      profile's runs to add its run to */

#define PLACE_CPU_BIND_MAX 32767 /* the longest --cpu-bind value a plan sets */
#define PLACE_NICS_MAX     32767 /* the longest PLACE_ENV_NICS */

typedef enum {
    PLACE_DEFAULT = 0, /* leave srun's placement (reason says why) */
    PLACE_APPLY,       /* hostfile written: set SLURM_HOSTFILE, re-execute srun */
    PLACE_DRYRUN,      /* a plan was made and reported, nothing placed */
    PLACE_RECORD,      /* default placement, and this run records a profile */
} place_action_t;

typedef struct {
    const conf_t *conf;
    conf_map_mode_t map;
    const conf_profile_t *profile;
    const char *jobid;          /* SLURM_JOB_ID */
    const char *alloc_nodelist; /* SLURM_JOB_NODELIST, for the probe step */
    const layout_alloc_t *alloc;
    const layout_request_t *req;  /* its node_rank: Slurm's topology's ranks (26.05+) */
    const char *order_name;       /* the order of node_rank, for people ("topology order
                                   * (topology/tree)") */
    const char *order_unknown;    /* why the order of srun's nodes is not known (then
                                   * srun's layout stands), or NULL */
    const char *exe;              /* the step's executable, resolved; NULL unknown */
    const char *exe_error;        /* why exe is NULL, or NULL */
    const char *user_cache;       /* the user's profile cache */
    int user_cache_fd;            /* user_cache, held since file_open_trusted_dir: every
                                   * profile of theirs is read and made relative to it;
                                   * -1 when */
    const char *user_cache_error; /* that failed, saying why */
    const char *netmap_dir;       /* netmaps, locks and plans of the user's jobs */
    int netmap_dirfd;             /* netmap_dir, opened by place_cache_open; -1 when */
    const char *netmap_dir_error; /* that failed, saying why */
    int (*job_alive) (void *arg, unsigned long jobid);
    /* whether a job of the user's is pending or running:
     * 1, 0, or -1 unknown (place_alive_f); NULL unknown */
    void *job_alive_arg;
    uid_t uid;        /* the user's: every file of theirs is checked */
    const char *srun; /* srun to run the probe step with */
    const char *mpi;  /* srun's MPI plugin type (--mpi, MpiDefault); NULL unknown */
    void (*slurm_mpi) (const char **mpi_default, const char **plugin_dir);
    /* Slurm's MpiDefault and PluginDir (':'-
     * separated), asked only when a probe is
     * to run; NULL, or either left NULL: unknown */
    netmap_t *(*site_netmap) (const char *topology, const layout_alloc_t *alloc, char *path,
                              size_t len, char **text, tm_error_t *errp);
    /* conf->topology's netmap over the
     * allocation's nodes (lib/topoconf.h;
     * "auto" resolved); NULL with errp
     * saying why, and errno ENODATA when
     * the topology is a tree over them but
     * lacks a level's figures: path[len]
     * then names its file, or *text (a new
     * string) holds it as a topology.conf
     * (Slurm's own, from slurmctld), which
     * place_decide writes beside the
     * netmap, for the probe's --topology;
     * path[len] says where the netmap came
     * from when there is one; NULL: none */
    void (*say) (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
    /* stage messages for srun -v, or NULL */
    void (*note) (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
    /* a line always shown (a site file not
     * used, and why), or NULL */
    const char *cpu_bind; /* the user's binding of the step, for
                           * people ("--cpu-bind given": the
                           * option or SLURM_CPU_BIND), NULL when
                           * none */
    const char *args;     /* the hash of the command's arguments
                           * (history_args_hash), NULL when unknown: no
                           * runs are kept or judged */
    int task_affinity;    /* Slurm's TaskPlugin binds tasks
                           * (task/affinity): 1, 0 not, -1 unknown */
    const char *gpu_bind; /* the option by which Slurm binds each task's
                           * GPUs ("gpus-per-task"): their NICs are the
                           * MPI's; NULL when none */
} place_in_t;

typedef struct {
    place_action_t action;
    int failed;              /* PLACE_DEFAULT for a fault (strict mode fails) */
    char reason[768];        /* one line for people */
    int ntasks;              /* the step's task count */
    double gain;             /* predicted gain of the plan over srun's layout */
    double link_gain;        /* the same at the busiest link (a node's, or an uplink) */
    int draws;               /* netmaps drawn from the netmap's spread to price
                              * the plan and srun's layout again (map_odds);
                              * 0: none, the figures stand as measured */
    int wins;                /* of them, those the plan gains min_gain in, in
                              * total and at the busiest link */
    double gain_lo, gain_hi; /* gain's 90 % interval over the draws */
    double link_lo, link_hi; /* link_gain's */
    char hostfile[4096];     /* PLACE_APPLY: in netmap_dir, a name place_plan_name accepts */
    char pmi_mapping[LAYOUT_PMI_MAPPING_MAX + 1];
    /* PLACE_APPLY of a --mpi=pmi2 step: the plan's
     * PMI_process_mapping, nodes in allocation order
     * (layout.h); else "" */
    char cpu_bind[PLACE_CPU_BIND_MAX + 1];
    /* PLACE_APPLY that binds: srun's --cpu-bind value,
     * "map_cpu:C0,C1,..." or "mask_cpu:0xM0,..."
     * (one CPU a task, or several), one entry a
     * local task id; else "" */
    char nics[PLACE_NICS_MAX + 1];
    /* PLACE_APPLY, or PLACE_DEFAULT not failed: each rank's NIC
     * (PLACE_ENV_NICS) on a rail-optimised fabric; else "" */
    double nic_gain;     /* the share of the bytes between nodes crossing
                          * rails that nics takes off */
    double bind_gain;    /* the binding's predicted gain over Slurm's own
                          * (map_inside_t.cyclic_s) for the pairs inside
                          * the nodes */
    int record_check;    /* PLACE_RECORD: this recording is to check the
                          * user's cached profile of one (profile.h) */
    char history[256];   /* the profile's runs in the user's cache (a
                          * name history_name gives), to which srun adds
                          * this run at its exit; "" none */
    char record[4096];   /* PLACE_RECORD: where rank 0 writes the profile */
    char recorder[4096]; /* PLACE_RECORD: the recorder to preload */
} place_out_t;

/* The directory of the user's netmaps, locks and plans, as a descriptor;
 * its path in path.  With a site cache (plugstack cache=SITE), SITE/<uid>:
 * SITE and the directories above it only root's or uid's to change
 * (file_trusted; SITE itself may be a sticky root directory, 1777, only
 * with sticky: plugstack cache_sticky=yes); SITE/<uid> made 0700 when
 * missing and SITE lets the user; then taken only when it is a directory,
 * not a link, owned by uid and writable by nobody else.  When any of that
 * fails, or without a site cache, own (the user's own cache, made 0700
 * with its parents, walked from / by file_open_trusted_dir) taken on the
 * same terms; then note says, in one line,
 * why the site cache was not used ("" otherwise).  -1 with errp set when
 * own fails too.
 */
int place_cache_open (const char *site, int sticky, const char *own, uid_t uid, char *path,
                      size_t len, char *note, size_t notelen, tm_error_t *errp);

/* Whether the job jobid of the user's is pending or running: 1, 0, or -1
 * when that is not known. */
typedef int (*place_alive_f) (void *arg, unsigned long jobid);

/* Tidy the user's netmap directory dfd (place_cache_open's): remove the
 * files of jobs (job<ID>.json, .lock, .log, job<ID>.<random>.hosts,
 * .job<ID>.json.*) other than jobid, last changed more than ttl seconds
 * ago, whose job alive says is no longer pending or running (NULL, or -1:
 * none removed); the files left counted into files, their bytes into
 * bytes.  The count removed, or -1 when dfd cannot be read.
 */
int place_cache_tidy (int dfd, unsigned long jobid, int ttl, place_alive_f alive, void *arg,
                      long *files, long long *bytes);

/* The site cache's directory for uid, as place_cache_open opens it; -1
 * with errp naming the directory and the fault.
 */
int place_site_dir_open (const char *site, int sticky, uid_t uid, char *path, size_t len,
                         tm_error_t *errp);

/* The probe step's program and srun --mpi type, for the step in.  The
 * type: plugstack mpi= when given; else the step's --mpi, else MpiDefault
 * (neither "none"); else what the step's executable links: pmi2 for
 * MPICH, pmix otherwise, the other of the two when Slurm's PluginDir has
 * no plugin for it.  The program: the Open MPI probe (plugstack probe=)
 * for pmix, the MPICH probe (probe_mpich=) for pmi2.  -1 with errp naming what is missing: a type
 * no probe speaks, or a plugin PluginDir lacks.
 */
int place_probe_pick (const place_in_t *in, char *probe, size_t probelen, char *mpi, size_t mpilen,
                      tm_error_t *errp);

/* Whether a plan of the step (counts[a->nnodes] tasks a node, cpt CPUs a
 * task) may bind its ranks to CPUs: NULL when it may, else why not, for
 * people.  *loud: the reason is the user's own choice (--cpu-bind),
 * worth a line always; otherwise a matter of the site or the step, for
 * srun -v.
 */
const char *place_bind_why_not (const place_in_t *in, const int *counts, int cpt, int *loud);

/* Decide; never fails: the outcome and its reason are in out. */
void place_decide (const place_in_t *in, place_out_t *out);

/* Whether name (no directory) is one place_decide gives a plan of job
 * jobid: the only files the plugin removes by a name from the
 * environment.
 */
int place_plan_name (const char *name, const char *jobid);

/* Whether s is a job id: 1 to 20 decimal digits. */
int place_jobid_valid (const char *s);

/* Whether SLURM_STEP_ID's value s (NULL: unset) says srun runs inside a
 * job step, where it must not place: a step id up to Slurm's
 * SLURM_MAX_NORMAL_STEP_ID (0xfffffff0), or anything unreadable.  Not
 * the ids of Slurm's special steps above it, printed signed or unsigned:
 * since Slurm 26.05 (commit 87077e7c7d) a batch script has
 * SLURM_STEP_ID=-5 (SLURM_BATCH_SCRIPT), and its sruns start steps of
 * their own as before, when it had none.
 */
int place_inside_step (const char *s);

/* After a recording step: file the profile rank 0 wrote into the file
 * record of the user's cache held by user_fd (named user_cache) under
 * exe's identity (checked against ntasks), and remove record.  With check
 * (place_out_t.record_check), the recording becomes the check of the
 * profile of one recording the recorder filed there before (when it still
 * is one, sent something, and counts collectives as this does), unless
 * it sent nothing point to point or the profile has its check already:
 * then it is not kept.  Otherwise, and without check, it replaces what
 * was filed.  Returns 0 with what in msg, -1 with errp set.  record is
 * removed either way: a recording that cannot be filed is no use later.
 */
int place_file_recording (const char *record, const char *exe, int ntasks, int user_fd,
                          const char *user_cache, int check, char *msg, size_t msglen,
                          tm_error_t *errp);

#endif
