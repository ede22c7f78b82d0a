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

void errclear (tm_error_t *errp)
{
    if (errp)
        errp->text[0] = '\0';
}
