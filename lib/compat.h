/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compat.h: what differs between the Slurm releases topomap runs under
 * (22.05 to 26.05), and srun's private interface, in one place.  The
 * plugin (libtopomap-slurm-plain: libslurm's functions come from srun or
 * slurmstepd) and the command-line tool (libtopomap-slurm, linked with
 * libslurm) use it.  A new
 * Slurm release changes lib/compat.c and m4/x_ac_slurm.m4, nothing else.
 *
 * Compile time (configure, m4/x_ac_slurm.m4):
 *   HAVE_SLURM_HOSTLIST_PTR   the hostlist functions take hostlist_t *.
 *   HAVE_SLURM_FREE_CONF      slurm_free_conf, not slurm_free_ctl_conf.
 *   HAVE_SLURM_TOPO_ORDER     steps laid out in the topology's order
 *                             (SELECT_NO_DIST_TOPO_BLOCK, 26.05+).
 *   HAVE_SLURM_LOAD_TOPO_NAME slurm_load_topo takes a topology's name, and
 *                             partitions have one (25.05+).
 *   HAVE_SLURM_PRINT_TOPO_UNIT, HAVE_SLURM_PRINT_TOPO_NODES
 *                             slurm_print_topo_info_msg's signature: with a
 *                             node list and a unit (25.05+), with a node
 *                             list (23.02 to 24.11), or neither (22.05).
 *
 * Run time, looked up in srun with dlsym (topomap.so(8) lists them and
 * what happens when one is missing):
 *   opt                            srun's option struct, never read here:
 *                                  only handed to libslurm's functions
 *   slurm_option_get, slurm_option_isset, slurm_option_set
 *                                  libslurmfull's getters and setter (the
 *                                  cli_filter plugins' interface)
 *   slurm_option_table_create, slurm_option_table_destroy
 *                                  the getopt table srun parsed its
 *                                  arguments with (Slurm's and the SPANK
 *                                  plugins' options)
 *   slurm_xfree                    frees what those return
 */
#ifndef TOPOMAP_COMPAT_H
#define TOPOMAP_COMPAT_H

#include <stddef.h>

#include <slurm/slurm.h>

#include "lib/error.h"

/* The host names of a Slurm host list ("n[1-4],m2"), expanded by libslurm,
 * in a new array of *n new strings; free with compat_names_free.  NULL,
 * naming the list, when it is not one, or (E2BIG) when it holds more than
 * COMPAT_HOSTLIST_MAX names, counted before libslurm reads it: Slurm's own
 * bound on one range (MAX_RANGE, 64K hosts), more than any leaf switch or
 * allocation of today's largest systems (some tens of thousands of nodes)
 * names in one list, and far below the 262 144 entries of one bracket at
 * which libslurm calls fatal().
 */
#define COMPAT_HOSTLIST_MAX 65536
char **compat_hostlist_expand (const char *list, int *n, tm_error_t *errp);
void compat_names_free (char **names, int n);

/* From now on, what libslurm would print to standard error while it reads
 * a host list is kept from it and said in that list's error instead (its
 * log goes to stderr when nobody set it up: a program of its own, such as
 * the CLI, that is single-threaded).  srun and slurmstepd set their logs
 * up; the plugin never calls this.
 */
void compat_quiet_libslurm (void);

/* names[0..n) as one Slurm host list, sorted, duplicates dropped, ranges
 * compressed ("n[1-4],m2"), in a new string (free()); each name taken as
 * one host, never as a list.  NULL, errp set, out of memory or for n < 1.
 */
char *compat_hostlist_ranged (const char *const *names, int n, tm_error_t *errp);

/* Free what slurm_load_ctl_conf returned (NULL: nothing). */
void compat_conf_free (slurm_conf_t *conf);

/* slurmctld's topology for the job's partition (NULL: the cluster's
 * default) as slurm_print_topo_info_msg prints it (scontrol show topology;
 * lib/slurmtopo.h), into *text (a new string, "" for none: topology/flat);
 * -1 with errp when slurmctld cannot say.  Slurm's own, whichever file it
 * read (topology.conf, topology.yaml) or none on the node (configless).
 */
int compat_topo_text (const char *partition, char **text, tm_error_t *errp);

/* Whether this Slurm lays a job's block steps out in its topology's
 * order (26.05+, lib/slurmtopo.h): 0 when not (an older release, or
 * SelectTypeParameters has CR_NO_DIST_TOPO_BLOCK); 1 with *param
 * TopologyParam (conf's, or NULL); -1 with errp when conf is NULL (no
 * answer from slurmctld).  conf: slurm_load_ctl_conf's.
 */
int compat_topo_order (const slurm_conf_t *conf, const char **param, tm_error_t *errp);

/* Look srun's private interface up; -1, naming the first symbol missing,
 * outside srun or when a Slurm release has dropped one.
 */
int compat_srun_open (tm_error_t *errp);

/* srun's option name (as slurm_option_get knows it) as a string in buf
 * ("" when unset); 1 when srun has a value for it, else 0.
 */
int compat_srun_get (const char *name, char *buf, size_t len);

/* srun's option name as a new string (free()), NULL when unset. */
char *compat_srun_dup (const char *name);

/* Whether the user gave srun the option name. */
int compat_srun_isset (const char *name);

/* Set srun's option name to value, as the command line would; -1 naming
 * it when srun refuses.
 */
int compat_srun_set (const char *name, const char *value, tm_error_t *errp);

/* The index in argv (srun's own, from /proc/self/cmdline) of the step's
 * command, parsed with srun's own option table (lib/srunargs.h).
 */
int compat_srun_command (int argc, char *const argv[], tm_error_t *errp);

#endif
