/* SPDX-License-Identifier: GPL-2.0-or-later */
/* history.h: the runs srun --topo-map saw of one profile, so that the
 * guard learns from the steps it placed.
 *
 * The cost model can be wrong (a network it cannot see, a topology file
 * that lies); srun's own clock cannot.  Beside each profile of the user's
 * cache, <exe id>.n<ntasks>.runs (a name the cache's listing passes over)
 * keeps the last HISTORY_MAX steps: when each ran, under which layout
 * (srun's own, srun's own under the recorder, or a plan), how long srun
 * took from its decision to its exit, and a hash of the command's
 * arguments, so that only like runs are compared.  Placed runs not faster
 * than srun's by more than their spread make the guard keep srun's layout
 * (history_judge); recordings, slowed by the recorder, are not compared,
 * so the guard itself runs srun's layout now and then to time it against
 * the plan's.  A first recording,
 * which replaces the profile, starts the history anew; `topomap profile
 * rm` removes it with the profile.
 */
#ifndef TOPOMAP_HISTORY_H
#define TOPOMAP_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "lib/error.h"

#define HISTORY_MAX       32    /* runs kept, the oldest dropped */
#define HISTORY_MAX_BYTES 16384 /* a file of HISTORY_MAX runs takes 4 KiB */
#define HISTORY_ARGS      16    /* hex digits of the arguments' hash */
#define HISTORY_SUFFIX    ".runs"

typedef enum {
    HISTORY_SRUN = 0,     /* srun's own layout, no recorder */
    HISTORY_PLAN = 1,     /* a plan applied */
    HISTORY_RECORDED = 2, /* srun's own layout, recording a profile */
} history_layout_t;

typedef struct {
    time_t time;
    history_layout_t layout;
    double elapsed_s;            /* srun's decision to its exit */
    char args[HISTORY_ARGS + 1]; /* history_args_hash */
} history_run_t;

typedef struct {
    int nruns;
    history_run_t run[HISTORY_MAX]; /* oldest first */
} history_t;

/* The history's file name of the profile key (exe_id, ntasks), as
 * profile_cache_key's with HISTORY_SUFFIX for its ".json".  -1 with errp
 * as profile_cache_key's.
 */
int history_name (const char *exe_id, int ntasks, char *name, size_t len, tm_error_t *errp);

/* Whether name is one history_name gives (no '/', no leading '.'). */
bool history_name_ok (const char *name);

/* The hash of a command's arguments argv[0..argc) (after the executable)
 * into out: the first HISTORY_ARGS hex digits of their SHA-256, each
 * argument followed by a NUL.
 */
void history_args_hash (int argc, char *const *argv, char out[HISTORY_ARGS + 1]);

/* Whether s is such a hash. */
bool history_args_ok (const char *s);

/* Parse a history file's text (what names it in messages) into h: schema
 * 2, at most HISTORY_MAX runs, each with its four fields in range.  -1
 * with errp naming the fault.
 */
int history_parse (const char *buf, size_t len, const char *what, history_t *h, tm_error_t *errp);

/* Read the history name in the directory dirfd (what names it), a regular
 * file uid owns (file_openat_own), at most HISTORY_MAX_BYTES.  None yet:
 * 0 and h empty.  -1 with errp.
 */
int history_readat (int dirfd, const char *name, const char *what, uid_t uid, history_t *h,
                    tm_error_t *errp);

/* Append r to the history name in dirfd (a file that cannot be read is
 * started anew), the oldest run dropped past HISTORY_MAX; written whole
 * through file_replaceat, mode 0600.  -1 with errp.
 */
int history_addat (int dirfd, const char *name, const char *what, uid_t uid, const history_run_t *r,
                   tm_error_t *errp);

/* How many runs of h ran under layout. */
int history_count (const history_t *h, history_layout_t layout);

/* What the like runs of h (those with args, recordings left out) say of
 * the plan.  The latest HISTORY_WINDOW runs of each layout are compared
 * by their medians; the placed runs must beat srun's by more than the
 * spread of either (its median absolute deviation), with at least two
 * runs of each.  After HISTORY_RETRY runs under srun's layout since the
 * last placed one, the plan is tried again (the network or the program
 * may have changed).  A plan not kept from is placed, but the next run
 * is a control under srun's layout while fewer than two such runs exist
 * and the placed ones outnumber them (placed and control runs alternate
 * until they can be compared), and after HISTORY_RETRY placed runs since
 * the last under srun's layout (so that srun's figure stays current).
 */
#define HISTORY_WINDOW 8
#define HISTORY_RETRY  8
typedef struct {
    int placed, srun;        /* like runs compared, of each layout */
    double placed_s, srun_s; /* their medians */
    double spread_s;         /* the larger median absolute deviation */
    int since;               /* like runs under srun's layout since the
                                last placed one */
    int placed_since;        /* like placed runs since the last under
                                srun's layout */
    bool keep;               /* keep srun's layout */
    bool control;            /* not kept, but this run is a control
                                under srun's layout */
} history_verdict_t;

void history_judge (const history_t *h, const char *args, history_verdict_t *v);

#endif
