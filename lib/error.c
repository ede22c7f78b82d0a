/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/error.h"

/* The bytes of the control character at s (C0, DEL, or a C1 as UTF-8
 * writes it), else 0. */
static size_t control_at (const unsigned char *s)
{
    if (*s < 0x20 || *s == 0x7f)
        return 1;
    return s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f ? 2 : 0;
}

/* Append to dst (at *o) the part [from, to) of raw as escaped: each control
 * byte as \xNN; a unit that would straddle a bound is left out. */
static void escaped_part (const char *raw, size_t from, size_t to, char *dst, size_t *o)
{
    size_t p = 0, c;

    for (const unsigned char *s = (const unsigned char *)raw; *s && p < to; s += c ? c : 1) {
        size_t unit = (c = control_at (s)) ? 4 * c : 1;

        if (p >= from && p + unit <= to) {
            if (!c)
                dst[(*o)++] = (char)*s;
            for (size_t k = 0; k < c; k++)
                *o += (size_t)snprintf (dst + *o, 5, "\\x%02x", s[k]);
        }
        p += unit;
    }
}

int errprintf (tm_error_t *errp, const char *fmt, ...)
{
    enum { CAP = sizeof (errp->text) - 1, HEAD = CAP / 3, TAIL = CAP - HEAD - 3 };
    char raw[8192];
    size_t len = 0, o = 0, c;
    int saved = errno;
    va_list ap;

    if (!errp)
        return -1;
    va_start (ap, fmt);
    vsnprintf (raw, sizeof (raw), fmt, ap);
    va_end (ap);
    for (const unsigned char *s = (const unsigned char *)raw; *s; s += c ? c : 1)
        len += (c = control_at (s)) ? 4 * c : 1;
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
