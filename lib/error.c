/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* The unit of text at s, its bytes in *n, and whether it is escaped: a
 * control character (C0, DEL, or C1 as UTF-8 writes it), or a byte that
 * starts no UTF-8 sequence (escaped alone). */
static bool escaped_at (const unsigned char *s, size_t *n)
{
    size_t len = *s < 0x80                  ? 1
                 : *s >= 0xc2 && *s <= 0xdf ? 2
                 : *s >= 0xe0 && *s <= 0xef ? 3
                 : *s >= 0xf0 && *s <= 0xf4 ? 4
                                            : 0;

    for (size_t k = 1; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xbf) /* (a NUL ends it too) */
            len = 0;
    *n = len ? len : 1;
    return len == 0 || (len == 1 && (*s < 0x20 || *s == 0x7f)) ||
           (len == 2 && s[0] == 0xc2 && s[1] <= 0x9f);
}

/* Append to dst (at *o) the part [from, to) of raw as escaped: each byte
 * of an escaped unit as \xNN; a unit that would straddle a bound is left
 * out. */
static void escaped_part (const char *raw, size_t from, size_t to, char *dst, size_t *o)
{
    size_t p = 0, n;

    for (const unsigned char *s = (const unsigned char *)raw; *s && p < to; s += n) {
        bool esc = escaped_at (s, &n);
        size_t unit = esc ? 4 * n : n;

        if (p >= from && p + unit <= to)
            for (size_t k = 0; k < n; k++) {
                if (esc)
                    *o += (size_t)snprintf (dst + *o, 5, "\\x%02x", s[k]);
                else
                    dst[(*o)++] = (char)s[k];
            }
        p += unit;
    }
}

int errprintf (tm_error_t *errp, const char *fmt, ...)
{
    enum { CAP = sizeof (errp->text) - 1, HEAD = CAP / 3, TAIL = CAP - HEAD - 3 };
    char buf[8192], *raw = buf;
    size_t len = 0, o = 0, n;
    int saved = errno, need;
    va_list ap;

    if (!errp)
        return -1;
    va_start (ap, fmt);
    need = vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    if (need >= (int)sizeof (buf) && (raw = malloc ((size_t)need + 1))) {
        va_start (ap, fmt);
        vsnprintf (raw, (size_t)need + 1, fmt, ap);
        va_end (ap);
    } else if (!raw)
        raw = buf; /* its start, then */
    for (const unsigned char *s = (const unsigned char *)raw; *s; s += n)
        len += escaped_at (s, &n) ? 4 * n : n;
    /* One line, its start (the command, the file) and its end (the fault)
     * kept whole when it is too long: the middle cut. */
    if (len <= CAP)
        escaped_part (raw, 0, len, errp->text, &o);
    else {
        escaped_part (raw, 0, HEAD, errp->text, &o);
        memcpy (errp->text + o, "...", 3);
        o += 3;
        escaped_part (raw, len - TAIL, len, errp->text, &o);
    }
    errp->text[o] = '\0';
    if (raw != buf)
        free (raw);
    errno = saved;
    return -1;
}

int errnomem (tm_error_t *errp)
{
    errprintf (errp, "out of memory");
    errno = ENOMEM;
    return -1;
}

void errclear (tm_error_t *errp)
{
    if (errp)
        errp->text[0] = '\0';
}

const char *errquote (const char *s, size_t max, char *buf, size_t size)
{
    size_t o = 0;

    for (size_t i = 0; s[i] && o + 8 < size; i++) {
        unsigned char ch = (unsigned char)s[i];

        if (i >= max) {
            memcpy (buf + o, "...", 3);
            o += 3;
            break;
        }
        if (ch < 0x20 || ch >= 0x7f)
            o += (size_t)snprintf (buf + o, size - o, "\\x%02x", ch);
        else
            buf[o++] = (char)ch;
    }
    buf[o] = '\0';
    return buf;
}

const char *errsafe (const char *s, size_t max)
{
    return strlen (s) > max ? "(too long)" : s;
}
