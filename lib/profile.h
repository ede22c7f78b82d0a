/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.h: the communication profile of an executable -- messages and
 * bytes of point-to-point traffic between every pair of world ranks of one
 * run -- and the JSON file that carries it (written and read with json-c).
 *
 * After CloudMap §II-B and §IV-B: point-to-point only by default, counted
 * at the sender, stable across runs of the same executable and task count.
 * The matrices are sparse and directed: row i lists what rank i sent, one
 * entry per destination, sorted by destination, no zero entries.
 */
#ifndef TOPOMAP_PROFILE_H
#define TOPOMAP_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "lib/error.h"

#define PROFILE_SCHEMA       1 /* a profile of one recording */
#define PROFILE_SCHEMA_CHECK 2 /* one with its check (profile.c) */
#define PROFILE_MAX_TASKS    (1 << 24)

/* One sparse matrix entry (in rows, src is the row's rank), or a triplet
 * on input.  Counts fit in 63 bits in a file.
 */
typedef struct {
    int src;        /* sending world rank */
    int dst;        /* receiving world rank */
    uint64_t msgs;  /* messages sent */
    uint64_t bytes; /* bytes sent */
} profile_entry_t;

typedef struct profile {
    int ntasks;               /* world size of the recorded run */
    size_t nentries;          /* nonzero (src, dst) pairs */
    size_t *row;              /* [ntasks + 1]: row i is entries[row[i] .. row[i+1]) */
    profile_entry_t *entries; /* [nentries], by src then dst */
    uint64_t total_msgs;      /* sums over entries */
    uint64_t total_bytes;
    char *exe_id;            /* executable identity (exeid.h), "" if unknown */
    char *exe_path;          /* where it was when recorded, "" if unknown */
    char *mpi;               /* MPI library that recorded it, "" if unknown */
    char *source;            /* "recorder", "import:csv", "import:mat",
                                "import:ompi-monitoring" */
    int collectives;         /* 1 if collectives were attributed to pairs */
    double record_s;         /* wall time of the recorded run, 0 if unknown */
    char jobid[32];          /* Slurm job id, "" when unknown */
    time_t timestamp;        /* when recorded */
    struct profile *recheck; /* a later recording of the same program
                                and task count: the plan is made from
                                what the two share and priced on each
                                (place.h), or NULL:
                                its matrix, totals, record_s, jobid and
                                timestamp count, nothing else; it has no
                                check of its own.  profile_destroy frees
                                it with p */
} profile_t;

/* A profile of ntasks ranks from n triplets in any order: duplicates are
 * summed, zero entries dropped, rows sorted.  Strings start out "" and
 * timestamp as now.  Fails (EINVAL) on ntasks outside 1..PROFILE_MAX_TASKS,
 * a rank out of range, or bytes carried by no message.
 */
profile_t *profile_create (int ntasks, size_t n, const profile_entry_t *t, tm_error_t *errp);
void profile_destroy (profile_t *p);

/* Replace one of the string fields of p (exe_id, exe_path, mpi, source). */
int profile_set_string (char **field, const char *value, tm_error_t *errp);

/* The entry (src, dst) or NULL when they did not talk: binary search. */
const profile_entry_t *profile_get (const profile_t *p, int src, int dst);

/* How alike the traffic of a and b is, 0 to 1: the sum over pairs of the
 * lesser of the pair's two shares of its own profile's bytes (so that a
 * longer or shorter run of the same pattern is alike); 1 when neither
 * sent anything, 0 when one of them did not.  Of a profile and its
 * check: how much of the traffic recurred.
 */
double profile_recurring (const profile_t *a, const profile_t *b);

/* The traffic a and b share, in a's scale: for each pair both sent on,
 * the lesser of its two shares of its own profile's bytes, times a's total
 * bytes, and likewise of messages (one at least, where both sent); nothing
 * of the pairs only one of them sent on.  Of a profile and its check: the
 * traffic that recurs, which a plan is made from (place.h).  Its strings,
 * collectives, record_s, jobid and timestamp are a's; it has no check.
 * Its bytes are profile_recurring (a, b) of a's, to rounding.  Where b
 * sent no bytes at all (only empty messages), no pair has bytes: the
 * messages alone are shared.  Where they share no pair: NULL, errno
 * ENODATA and errp saying why (one of them sent nothing point to point,
 * or none of a's pairs recurs in b), which is a finding, not a fault.
 */
profile_t *profile_common (const profile_t *a, const profile_t *b, tm_error_t *errp);

/* Write p as JSON to path: a temporary file in the same directory, then
 * rename, so readers see the old file or the new, never half.  mode is the
 * new file's permission bits (0644, 0600).
 */
int profile_write (const profile_t *p, const char *path, int mode, tm_error_t *errp);

/* profile_write of name (no '/') in the directory dirfd; what names the
 * file in messages.
 */
int profile_writeat (const profile_t *p, int dirfd, const char *name, const char *what, int mode,
                     tm_error_t *errp);

/* Read and validate a profile file.  Rejects malformed or truncated JSON,
 * another kind or schema, ranks out of range, duplicate or unsorted
 * entries, totals that disagree with the entries, with a message naming
 * the file and the fault.
 */
profile_t *profile_read (const char *path, tm_error_t *errp);

/* profile_read of the open descriptor fd (what names it). */
profile_t *profile_read_fd (int fd, const char *what, tm_error_t *errp);

/* profile_read of the len bytes at buf (what names them). */
profile_t *profile_parse (const char *buf, size_t len, const char *what, tm_error_t *errp);

/* Foreign formats for `topomap profile import|export`. */
typedef enum {
    PROFILE_FMT_AUTO = 0, /* guess from the content */
    PROFILE_FMT_JSON,     /* topomap's own, as profile_read reads it */
    PROFILE_FMT_MATRIX,   /* CSV or whitespace n*n bytes matrix (CloudMap) */
    PROFILE_FMT_MAT,      /* TreeMatch .mat: whitespace n*n matrix */
    PROFILE_FMT_OMPI,     /* Open MPI common/monitoring output: its "E"
                             lines (the application's point-to-point,
                             "E\t<src>\t<dst>\t<bytes> bytes\t<msgs> msgs sent\t<histogram>");
                             other kinds are checked, not counted */
} profile_format_t;

/* Parse a format name ("auto", "json", "matrix", "csv", "mat", "ompi",
 * "ompi-monitoring"), -1 if unknown.
 */
int profile_format_parse (const char *name, profile_format_t *fmt);

/* Import a profile from path in fmt.  Guessed, a file whose first
 * character after blanks (and a UTF-8 byte order mark) is '{' is
 * topomap's own JSON, however broken further on.  Errors name the file,
 * line and field.  A plain matrix gives bytes only; messages are then counted as
 * one per nonzero entry and the profile says so (source "import:csv" or
 * "import:mat").  The timestamp of a foreign format is the file's
 * modification time.
 */
profile_t *profile_import (const char *path, profile_format_t fmt, tm_error_t *errp);

/* Export the bytes (what = "bytes") or messages (what = "msgs") matrix of
 * p as CSV, n lines of n comma-separated integers.
 */
int profile_export_csv (const profile_t *p, FILE *f, const char *what, tm_error_t *errp);

/* p's entries, src filled in, heaviest by bytes first, ties in rank
 * order: allocated (free it), NULL (ENOMEM). */
profile_entry_t *profile_heaviest (const profile_t *p);

/* Print p for people: identity, totals, the heaviest pairs (up to top),
 * and how heterogeneous the pattern is (share of bytes on the heaviest
 * 10 % of pairs, coefficient of variation of per-pair bytes, degree).
 */
int profile_show (FILE *f, const profile_t *p, const char *name, int top);

#endif
