/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.h: a minimal Test Anything Protocol producer for unit tests.
 *
 *   plan (NO_PLAN);  ok (cond, "sentence %d", x);  done_testing ();
 *
 * Every check is a sentence saying what holds.  done_testing() prints the
 * plan when none was given and returns the exit status: 0 only when every
 * check passed and the count matched the plan.
 */
#ifndef TOPOMAP_TAP_H
#define TOPOMAP_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NO_PLAN (-1)

static int tap_planned = NO_PLAN;
static int tap_run;
static int tap_failed;

static inline void plan (int n)
{
    tap_planned = n;
    if (n != NO_PLAN)
        printf ("1..%d\n", n);
}

static inline int __attribute__ ((format (printf, 4, 5)))
tap_ok (int cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    tap_run++;
    if (!cond)
        tap_failed++;
    printf ("%sok %d - ", cond ? "" : "not ", tap_run);
    va_start (ap, fmt);
    vprintf (fmt, ap);
    va_end (ap);
    printf ("\n");
    if (!cond)
        printf ("#   failed at %s:%d\n", file, line);
    fflush (stdout);
    return cond;
}

#define ok(cond, ...) tap_ok (!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline void __attribute__ ((format (printf, 1, 2))) diag (const char *fmt, ...)
{
    va_list ap;
    printf ("# ");
    va_start (ap, fmt);
    vprintf (fmt, ap);
    va_end (ap);
    printf ("\n");
}

static inline int done_testing (void)
{
    if (tap_planned == NO_PLAN)
        printf ("1..%d\n", tap_run);
    else if (tap_planned != tap_run) {
        diag ("planned %d checks, ran %d", tap_planned, tap_run);
        return 1;
    }
    return tap_failed ? 1 : 0;
}

#endif
