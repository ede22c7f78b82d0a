/* error.h: the one error idiom of libtopomap.
 *
 * Functions that can fail return -1 (or NULL) and, when given a non-NULL
 * tm_error_t, leave there one line saying what went wrong, naming the
 * file, argument or host at fault.  Only entry points print it.
 */
#ifndef TOPOMAP_ERROR_H
#define TOPOMAP_ERROR_H

typedef struct {
    char text[256];
} tm_error_t;

/* Format a message into errp (may be NULL).  Preserves errno.  Returns -1
 * so that callers can write `return errprintf (errp, ...);`.
 */
int errprintf (tm_error_t *errp, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* Clear errp (may be NULL). */
void errclear (tm_error_t *errp);

#endif
