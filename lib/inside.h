/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inside.h: the inside of a node -- the CPUs a job may use there, the L3
 * domains and packages they belong to, and what moving data between two
 * ranks on two of them costs at each level -- as the probe reads it with
 * hwloc (inside_hwloc.h) and measures it, and the netmap keeps it per host
 * (schema 4).
 *
 * Levels, nearest first: two CPUs of one L3 domain (INSIDE_L3), of two L3
 * domains of one package (INSIDE_PACKAGE), of two packages
 * (INSIDE_MACHINE).  A node without L3 caches that hwloc reports counts
 * each core as its own domain; one package, one level fewer measured.
 */
#ifndef TOPOMAP_INSIDE_H
#define TOPOMAP_INSIDE_H

#include <stdbool.h>

#include "lib/error.h"

#define INSIDE_LEVELS   3
#define INSIDE_MAX_CPUS 65536
#define INSIDE_MAX_L3   1024 /* the inside pass plans on an nl3 x nl3 netmap */

typedef enum {
    INSIDE_L3 = 0,
    INSIDE_PACKAGE = 1,
    INSIDE_MACHINE = 2,
} inside_level_t;

typedef struct {
    int ncpus; /* CPUs the job may use on the node, >= 1 */
    int *cpu;  /* [ncpus] their OS indexes (what
                  --cpu-bind names), ascending */
    int *l3;   /* [ncpus] L3 domain of each, 0..nl3-1,
                  numbered in the order of their first
                  CPU */
    int nl3;
    int *package; /* [nl3] package of each domain,
                     0..npackages-1 likewise */
    int npackages;
    double lat_us[INSIDE_LEVELS];  /* one-way latency between ranks on two
                                      CPUs of the level; NaN: not measured */
    double bw_MBps[INSIDE_LEVELS]; /* bandwidth likewise, 1e6 bytes/s */
} inside_t;

/* The names of the levels: "l3", "package", "machine". */
const char *inside_level_name (inside_level_t l);

/* An inside of ncpus CPUs: cpu[k] the OS index, dom[k] an identifier of
 * its L3 domain and pkg[k] of its package (any integers; renumbered),
 * sorted by OS index; figures NaN.  Fails (EINVAL) on no CPU or more
 * than INSIDE_MAX_CPUS, more than INSIDE_MAX_L3 domains, a negative or
 * repeated OS index, or a domain in two packages.
 */
inside_t *inside_create (int ncpus, const int *cpu, const int *dom, const int *pkg,
                         tm_error_t *errp);
inside_t *inside_copy (const inside_t *in, tm_error_t *errp);
void inside_destroy (inside_t *in);

/* Check what a reader filled in: the shapes, OS indexes ascending and
 * >= 0, domains numbered by first CPU, packages likewise, figures NaN or
 * finite (latency and bandwidth > 0).  what names the node in messages.
 */
int inside_check (const inside_t *in, const char *what, tm_error_t *errp);

/* The level at which CPUs k and l (indexes into cpu) meet. */
inside_level_t inside_level (const inside_t *in, int k, int l);

/* The level at which L3 domains a and b meet. */
inside_level_t inside_domains_level (const inside_t *in, int a, int b);

/* Whether a and b have the same CPUs in the same domains and packages
 * (figures aside): nodes between which one binding list can be shared.
 */
bool inside_same_shape (const inside_t *a, const inside_t *b);

/* Two CPUs (indexes into in->cpu, a < b) that meet at level l, for the
 * probe to measure it: the first CPU, in OS order, that meets an earlier
 * one at level l, and the first of those (for a package, the first of its
 * package, which is in another domain).  -1 when the node has no such
 * pair (or out of memory).
 */
int inside_level_pair (const inside_t *in, inside_level_t l, int *a, int *b);

/* The levels present: 1 for one domain, 2 for one package, else 3. */
int inside_nlevels (const inside_t *in);

#endif
