/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf.h: the plugin's plugstack.conf arguments, and the values of its
 * srun/sbatch options (--topo-map, --topo-profile).
 *
 *   optional /usr/lib/x86_64-linux-gnu/slurm/topomap.so cache=/var/cache/topomap \
 *       site_profiles=/etc/topomap/profiles probe=/usr/bin/topomap-probe mpi=pmix \
 *       probe_ttl=3600 probe_timeout=30 min_gain=0.05 map=auto profile=auto \
 *       recorder_dir=/usr/lib/topomap verbose=1
 *
 * Every argument is key=value, each key at most once:
 *
 *   cache=DIR          netmaps of allocations and their locks; default "",
 *                      which the plugin resolves to the user's cache
 *                      ($XDG_CACHE_HOME/topomap/netmaps or
 *                      ~/.cache/topomap/netmaps): it runs as the user in srun
 *   cache_sticky=yes|no  whether cache=DIR may be world-writable and sticky
 *                      (1777), each user making DIR/<uid> on first use:
 *                      then anyone may take another's name first, and that
 *                      user's steps go without the site cache.  Default
 *                      no: DIR is root's and not writable by others, and
 *                      topomap-prolog makes DIR/<uid>
 *   cache_max_files=N  at most N files (1..1000000) in the user's netmap
 *                      directory (DIR/<uid>, or their own): a job's first
 *                      step that would pass it keeps srun's layout, with
 *                      one line; default 1000
 *   cache_max_mib=N    likewise at most N MiB there (1..1048576); default
 *                      1024
 *   site_profiles=DIR  site profile directory, read only; default "" (none)
 *   probe=FILE         the probe run over --mpi=pmix (topomap-probe, built
 *                      with Open MPI); default from the caller (the build)
 *   probe_mpich=FILE   the probe run over --mpi=pmi2 (topomap-probe-mpich);
 *                      default from the caller
 *   mpi=TYPE           srun --mpi type of the probe step; default "",
 *                      picked per step (place_probe_pick);
 *                      [A-Za-z0-9_.-], at most CONF_MPI_MAX bytes
 *   probe_ttl=SECONDS  reuse a netmap this long, 0 never; default 3600
 *   probe_timeout=SECONDS  give up on the probe after this; 1..86400,
 *                      default 30
 *   probe_pairs=N      pairs the probe measures at once (its --concurrency);
 *                      0, the default, a whole round
 *   probe_plan=PLAN    the probe's --plan: all (every pair), sampled (the
 *                      pairs a sampling plan chooses, the others inferred
 *                      from the switch tree) or auto (sampled from 64
 *                      nodes on); default auto
 *   min_gain=FRACTION  least predicted gain over srun's layout for a plan
 *                      to be applied, a decimal 0..1; default 0.05
 *   map=MODE           default of --topo-map: auto, bandwidth, latency, off,
 *                      strict or dry-run; default auto
 *   profile=MODE       default of --topo-profile: auto, record or off;
 *                      default auto
 *   recorder_dir=DIR   where topomap-recorder-<mpi>.so live; default from
 *                      the caller (the build)
 *   topology=FILE|auto|none
 *                      the site's switch tree in Slurm's topology.conf
 *                      (lib/topoconf.h), with the figures of its levels:
 *                      the netmap without a probe; FILE.yaml: Slurm's
 *                      topology.yaml (lib/topoyaml.h); auto: the
 *                      topology.conf beside slurm.conf when TopologyPlugin
 *                      is topology/tree, else slurmctld's topology; none:
 *                      the probe infers the tree; default "": as auto
 *                      where Slurm has a topology, else none, silently
 *   topology_levels=L:LAT:BW[,...]
 *                      the figures of the topology's levels where its
 *                      file gives none (slurmctld's topology never does):
 *                      level L (1 to CONF_LEVELS - 1: pairs whose nearest
 *                      common switch is L switches above a host) costs LAT
 *                      us one way (0 to 1e6) and BW MB/s (0 to 1e7, both
 *                      above 0); default none: the probe measures them
 *   bind=MODE          auto: a plan also binds each rank to CPUs chosen
 *                      inside its node (lib/mapper.h, map_inside) when
 *                      Slurm binds tasks (task/affinity), the step takes
 *                      every CPU the job has on its nodes, the user gave
 *                      no --cpu-bind, and the binding is predicted to beat
 *                      Slurm's own; always: the last not asked; no: never;
 *                      default auto
 *   verbose=LEVEL      0..3; default 0
 *
 * Paths (DIR, FILE) are absolute, without control characters, shorter
 * than CONF_PATH_MAX.  Numbers are plain decimal: no sign, no spaces, no
 * exponent, '.' whatever the locale.  An empty value is an error.
 */
#ifndef TOPOMAP_CONF_H
#define TOPOMAP_CONF_H

#include "lib/error.h"

#define CONF_PATH_MAX         4096
#define CONF_MPI_MAX          63
#define CONF_PROFILE_NAME_MAX 128

typedef enum {
    CONF_MAP_AUTO = 0,  /* map when a profile and a netmap are at hand */
    CONF_MAP_BANDWIDTH, /* as auto, the cost model counting bandwidth only */
    CONF_MAP_LATENCY,   /* as auto, the cost model counting latency only */
    CONF_MAP_OFF,       /* do nothing */
    CONF_MAP_STRICT,    /* as auto, but fail the step when no plan applies */
    CONF_MAP_DRYRUN,    /* plan and report, apply nothing */
} conf_map_mode_t;

typedef enum {
    PROFILE_MODE_AUTO = 0, /* use the cached profile, record one when none */
    PROFILE_MODE_RECORD,   /* record this run's profile */
    PROFILE_MODE_OFF,      /* neither use nor record */
    PROFILE_MODE_PATH,     /* use the profile file value */
    PROFILE_MODE_NAME,     /* use the cached profile named value */
} conf_profile_mode_t;

typedef enum {
    CONF_BIND_NO = 0,
    CONF_BIND_AUTO,   /* bind where predicted to beat Slurm's own binding */
    CONF_BIND_ALWAYS, /* bind wherever the plan may */
} conf_bind_t;

/* Levels of a topology that topology_levels= may give figures to: 1 up to
 * this, less one (TOPOCONF_LEVELS). */
#define CONF_LEVELS 16

typedef struct {
    char cache[CONF_PATH_MAX]; /* "" = the user's cache, resolved by the plugin */
    int cache_sticky;          /* a 1777 cache= allowed */
    int cache_max_files;       /* bounds of a user's netmap directory */
    int cache_max_mib;
    char site_profiles[CONF_PATH_MAX]; /* "" = none */
    char probe[CONF_PATH_MAX];         /* over pmix */
    char probe_mpich[CONF_PATH_MAX];   /* over pmi2 */
    char mpi[CONF_MPI_MAX + 1];        /* "" = picked per step */
    int probe_ttl;                     /* seconds >= 0 */
    int probe_timeout;                 /* seconds 1..86400 */
    int probe_pairs;                   /* probe --concurrency, 0 a whole round */
    char probe_plan[8];                /* probe --plan: "auto", "all" or "sampled" */
    double min_gain;                   /* 0..1 */
    conf_map_mode_t map;
    conf_profile_mode_t profile; /* AUTO, RECORD or OFF */
    char recorder_dir[CONF_PATH_MAX];
    char topology[CONF_PATH_MAX];      /* a file, "auto", "none", or "" (see above) */
    double level_lat_us[CONF_LEVELS];  /* topology_levels=: one-way latency */
    double level_bw_MBps[CONF_LEVELS]; /* and bandwidth of level 1.. (0: none) */
    conf_bind_t bind;
    int verbose; /* 0..3 */
} conf_t;

/* Whether s can be an srun --mpi type: [A-Za-z0-9_.-], 1..CONF_MPI_MAX
 * bytes.
 */
int conf_mpi_valid (const char *s);

/* The defaults above into c; probe_default, probe_mpich_default and
 * recorder_dir_default (may be NULL: "") come from the build
 * (TOPOMAP_BINDIR "/topomap-probe" ...).
 */
void conf_default (conf_t *c, const char *probe_default, const char *probe_mpich_default,
                   const char *recorder_dir_default);

/* Parse the plugstack.conf arguments av[0..ac-1] over c (set it with
 * conf_default first).  On error, -1 with errp naming the argument, e.g.
 * "plugstack.conf: unknown argument 'cahce=/x'", "plugstack.conf:
 * probe_ttl=abc: expected seconds", and c untouched.
 */
int conf_parse (conf_t *c, int ac, char **av, tm_error_t *errp);

/* --topo-map's value: NULL, "" and "(null)" (srun's value for an option
 * given without its optional argument, research §4) are auto; else one of
 * "auto", "bandwidth", "latency", "off", "strict", "dry-run".  -1 with
 * errp naming the value otherwise.
 */
int conf_map_mode_parse (const char *s, conf_map_mode_t *m, tm_error_t *errp);
const char *conf_map_mode_name (conf_map_mode_t m);

/* --topo-profile's value. */
typedef struct {
    conf_profile_mode_t mode;
    char value[CONF_PATH_MAX]; /* PATH: the path; NAME: the name; else "" */
} conf_profile_t;

/* NULL, "" and "(null)" are auto; "auto", "record", "off" the keywords
 * (case matters); a value containing '/' is a PATH (no control characters,
 * shorter than CONF_PATH_MAX; a relative path is relative to srun's
 * working directory); anything else a NAME of a cached profile:
 * [A-Za-z0-9._+-], 1..CONF_PROFILE_NAME_MAX bytes, not starting with '.'.
 * -1 with errp naming the value and the fault otherwise.
 */
int conf_profile_parse (const char *s, conf_profile_t *p, tm_error_t *errp);
const char *conf_profile_mode_name (conf_profile_mode_t m);

#endif
