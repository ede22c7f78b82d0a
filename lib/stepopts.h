/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stepopts.h: what srun's options and environment say of a step, for the
 * plugin: whether a hostfile can lay it out, and how its --export list
 * lets the plugin's variables through.  The plugin reads the options
 * (lib/compat.c) and decides here, where the unit tests reach.
 */
#ifndef TOPOMAP_STEPOPTS_H
#define TOPOMAP_STEPOPTS_H

#include <stdbool.h>
#include <stddef.h>

/* A step as srun's environment and options show it. */
typedef struct {
    const char *jobid;    /* SLURM_JOB_ID, NULL outside an allocation */
    const char *step_id;  /* SLURM_STEP_ID, set inside a job step */
    const char *hostfile; /* SLURM_HOSTFILE the user set */
    const char *het_size; /* SLURM_HET_SIZE, set in a heterogeneous job */
    bool nodelist;        /* -w/--nodelist */
    bool distribution;    /* -m/--distribution */
    bool het_group;       /* --het-group */
    bool exclude;         /* -x/--exclude */
    bool relative;        /* -r/--relative */
    bool segment;         /* --segment (Slurm 25.05+) */
    bool async;           /* --async (Slurm 26.05+) */
} stepopts_t;

/* Why the step is not the plugin's to place: a hostfile cannot give its
 * layout, or it is not the user's own step; NULL when it may be placed.
 * The reason, for people, is in buf (len bytes); *fault set when it is a
 * fault (a job id that is none) rather than the user's choice.
 */
const char *stepopts_refused (const stepopts_t *s, char *buf, size_t len, bool *fault);

/* Whether an --export list passes every variable: an ALL before any NONE,
 * its items split and unquoted as srun does (env.c, find_quote_token).
 */
bool stepopts_export_all (const char *list);

/* The --export value that lets the n names through besides what list
 * passes (srun passes the tasks only SLURM_* and what --export names, up
 * to a NONE): the names first, then list; NULL when list passes every
 * variable already (errno 0) or out of memory (errno ENOMEM).
 */
char *stepopts_export_with (const char *list, const char *const *names, size_t n);

#endif
