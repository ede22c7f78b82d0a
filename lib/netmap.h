/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netmap.h: what the probe measured between the nodes of an allocation,
 * and the JSON file that carries it (written and read with json-c).
 *
 * Matrices are n*n, row major, indexed by host in rank order of the probe.
 * Off-diagonal entries are network figures between two nodes; the diagonal
 * holds intra-node figures (two ranks on one node), NaN where not measured.
 */
#ifndef TOPOMAP_NETMAP_H
#define TOPOMAP_NETMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "lib/error.h"
#include <stdbool.h>

#include "lib/inside.h"
#include "lib/slots.h"
#include "lib/topology.h"

#define NETMAP_SCHEMA 6

/* The figures a netmap, a topology.conf's #topomap comments or plugstack
 * topology_levels= may give, beyond which they are no link's: a latency
 * of at most 1 s one way, a bandwidth of at most 10 TB/s (intra-node
 * copies reach a few tens of GB/s).
 */
#define NETMAP_MAX_LAT_US  1e6
#define NETMAP_MAX_BW_MBPS 1e7

typedef struct {
    size_t lat_bytes;    /* ping-pong message size */
    size_t bw_bytes;     /* bandwidth stream message size */
    int bw_messages;     /* messages per bandwidth stream */
    double bw_enough_ms; /* a lead message of bw_bytes / 4 first: when it
                            alone takes this long, its figure stands and
                            the stream is skipped; 0: no lead, stream */
    int min_samples;     /* latency samples before the CI test */
    int max_samples;     /* cap on latency samples */
    double ci_rel;       /* stop when the 95% CI half-width < ci_rel * mean */
    double budget_s;     /* total time budget */
    int concurrency;     /* pairs measured at once; 0: a whole round */
} netmap_params_t;

typedef struct {
    int n;             /* hosts */
    char **hosts;      /* [n] Slurm node names, probe rank order */
    double *lat_us;    /* [n*n] one-way latency: median round trip / 2 */
    double *lat_ci_us; /* [n*n] 95% CI half-width of lat_us */
    double *bw_MBps;   /* [n*n] bandwidth, 1e6 bytes/s */
    int *samples;      /* [n*n] latency samples taken */
    int *measured;     /* [n*n] times the probe measured the pair: 0 for
                          a pair not measured (its figures inferred
                          from the tree), 2 for one measured again */
    netmap_params_t params;
    double measure_s;  /* wall time spent measuring */
    char jobid[32];    /* Slurm job id, "" when unknown */
    time_t timestamp;  /* when measured */
    topo_t *topo;      /* inferred topology, NULL when none */
    inside_t **inside; /* [n] each host's inside (inside.h), NULL
                          where not read (schema 4) */
    slots_t **slots;   /* [n] each host's GPU slots (slots.h), NULL
                          where not read (schema 6) */
} netmap_t;

#define NETMAP_AT(nm, m, a, b) ((nm)->m[(size_t)(a) * (size_t)(nm)->n + (size_t)(b)])

void netmap_params_default (netmap_params_t *p);

/* A netmap of n hosts (names copied), matrices zeroed, diagonal NaN. */
netmap_t *netmap_create (int n, const char *const *hosts, tm_error_t *errp);
void netmap_destroy (netmap_t *nm);

/* Write nm as JSON to path: a temporary file in the same directory, mode
 * bits mode (the probe's 0600, an export's 0644), then rename, so
 * readers see the old file or the new, never half.
 */
int netmap_write (const netmap_t *nm, const char *path, int mode, tm_error_t *errp);

/* Read and validate a netmap file.  Rejects malformed or truncated JSON, a
 * foreign schema, wrong-sized or non-finite matrices, negative figures,
 * duplicate or empty host names, with a message naming the file and fault.
 */
netmap_t *netmap_read (const char *path, tm_error_t *errp);

/* netmap_read of the open descriptor fd (what names it), at most max
 * bytes (netmap_max_bytes).
 */
netmap_t *netmap_read_fd (int fd, const char *what, size_t max, tm_error_t *errp);

/* The most bytes a netmap of nhosts hosts can reasonably take (what the
 * probe writes, with room to spare), at most the 64 MiB any netmap may.
 */
size_t netmap_max_bytes (int nhosts);

/* Index of host name in nm, -1 if absent. */
int netmap_host_index (const netmap_t *nm, const char *name);

/* Seconds to move msgs messages carrying bytes bytes in all from host a to
 * host b: msgs * latency + bytes / bandwidth.  a == b uses the intra-node
 * figures; where those were not measured, the cost is 0.
 */
double netmap_cost (const netmap_t *nm, int a, int b, double msgs, double bytes);

/* Per level l in [1, max) of tree t over nm's hosts (topo_level; depth
 * from topo_depths), the medians of its pairs' latency and bandwidth, each
 * pair the mean of its two directions, into lat[l] and bw[l] (lat[0],
 * bw[0] and a level without pairs NaN).  0, -1 on ENOMEM.
 */
int netmap_level_medians (const netmap_t *nm, const topo_t *t, const int *depth, int max,
                          double *lat, double *bw);

/* A netmap whose switch tree fits its figures (residual at most
 * NETMAP_PLAN_RESIDUAL) planned on the tree's figures: each pair between
 * two hosts within NETMAP_PLAN_BAND of the medians of the pairs joined at
 * its level (netmap_level_medians), or faster than them (a burst only speeds, a delay only
 * adds), takes those medians; a pair slower than the band keeps its own (a
 * degraded link stays seen).  The mapper would otherwise chase the noise
 * of single measurements: simulated at +-20 % with bursts, plans made on
 * the raw figures cost up to 1.06 times those made on the true ones, on
 * the tree's figures 1.00 (t/sim/model).  Changes nm in place (not to be
 * written back: the figures are no longer what was measured).  Returns 1
 * when it did, 0 for no tree or a looser fit (a cloud's pairs differ for
 * real), -1 on ENOMEM.
 */
#define NETMAP_PLAN_RESIDUAL 0.15
#define NETMAP_PLAN_BAND     0.25
int netmap_plan_figures (netmap_t *nm, tm_error_t *errp);

/* How far nm's figures can be trusted (netmap_spread.c): the measured
 * pairs, grouped by what nm's structure says is alike (a tree's switch and
 * the two of its children a pair runs between, then its level; groups;
 * else every pair), for drawing netmaps whose figures a measurement could
 * as well have given.  Made from the figures as measured, before
 * netmap_plan_figures.  NULL with errp on ENOMEM.
 */
#define NETMAP_ALIKE_MIN 3
/* A pair alike to others that reads this many times slower than their
 * median, in latency or transfer time, while its hosts' other pairs alike
 * do not and the pairs alike are within NETMAP_NOISE_TIGHT of their median
 * (the median of each one's relative distance), is a transient and not
 * drawn (netmap_spread.c).  Shared memory's figures spread 0.13 to 0.29 in
 * transfer time, a network's 0.05 (findings.md). */
#define NETMAP_NOISE_RATIO 2
#define NETMAP_NOISE_TIGHT 0.1
typedef struct netmap_spread netmap_spread_t;
netmap_spread_t *netmap_spread_new (const netmap_t *nm, tm_error_t *errp);
void netmap_spread_free (netmap_spread_t *s);

/* The measured pairs alike to pair a, b (the finest stratum with at least
 * NETMAP_ALIKE_MIN of them): their count, *stratum naming them; 0 when
 * there are too few (the pair keeps its own figures) or a == b.
 */
size_t netmap_spread_alike (const netmap_spread_t *s, int a, int b, uint32_t *stratum);

/* One pair of those count alike in stratum, chosen by the generator *rng
 * (a state any number seeds), read either way: its latency and bandwidth
 * from a to b and back into lat[2], bw[2].
 */
void netmap_spread_draw (const netmap_spread_t *s, uint32_t stratum, size_t count, uint64_t *rng,
                         double lat[2], double bw[2]);

/* Each uplink of the tree's measured under load (topo_t.uplink_MBps) that
 * is one of NETMAP_ALIKE_MIN alike or more, itself counted (the same
 * switch above, as many hosts below, slow or not alike) takes the figure
 * of one of them, chosen by *rng, from measured[nvertices] into
 * uplink_MBps[nvertices]; the other entries are left as they are.
 */
void netmap_spread_draw_uplinks (const netmap_spread_t *s, const double *measured, uint64_t *rng,
                                 double *uplink_MBps);

/* The lead message the probe sends before its stream (bw_enough_ms), and
 * whether one that took lead_s seconds measured enough alone.
 */
size_t netmap_lead_bytes (const netmap_params_t *p);
int netmap_lead_enough (const netmap_params_t *p, double lead_s);

/* The least time the probe's measurements in nm could have taken, one
 * pair after another: for every pair measured, its samples times its round
 * trip, plus what it streamed over its bandwidth: the lead message, and
 * the stream unless the lead alone took bw_enough_ms.
 */
double netmap_measure_bound (const netmap_t *nm);

#endif
