/* SPDX-License-Identifier: GPL-2.0-or-later */
/* error.h: the one error idiom of libtopomap.
 *
 * Functions that can fail return -1 (or NULL) and, when given a non-NULL
 * tm_error_t, leave there one line saying what went wrong, naming the
 * file, argument or host at fault.  Only entry points print it.
 */
#ifndef TOPOMAP_ERROR_H
#define TOPOMAP_ERROR_H

#include <stddef.h>

typedef struct {
    char text[256];
} tm_error_t;

/* Format a message into errp (may be NULL).  Preserves errno.  Returns -1
 * so that callers can write `return errprintf (errp, ...);`.  The message
 * stays one line whatever it quotes (control characters and bytes that
 * are no UTF-8 escaped as \xNN),
 * and one too long for text loses its middle, never its end, where the
 * fault is said.
 */
int errprintf (tm_error_t *errp, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* errprintf (errp, "out of memory") with errno ENOMEM: the one way an
 * allocation's failure is said.  Returns -1.
 */
int errnomem (tm_error_t *errp);

/* Untrusted text in a one-line message.  errquote copies s into buf (size
 * bytes), control characters and bytes >= 0x7f escaped as \xNN, cut with
 * "..." after max bytes; size 4 * max + 8 is always enough.  errsafe
 * returns s itself, or "(too long)" beyond max bytes, for errprintf (which
 * escapes what it holds).
 */
const char *errquote (const char *s, size_t max, char *buf, size_t size);
const char *errsafe (const char *s, size_t max);

/* Clear errp (may be NULL). */
void errclear (tm_error_t *errp);

#endif
