/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/error.h"

int errprintf (tm_error_t *errp, const char *fmt, ...)
{
    int saved = errno;
    if (errp) {
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (errp->text, sizeof (errp->text), fmt, ap);
        va_end (ap);
    }
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
    size_t len = strlen (s);

    if (len > max)
        return "(too long)";
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return "(unprintable)";
    return s;
}
