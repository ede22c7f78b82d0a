/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "lib/error.h"
#include "lib/test/tap.h"

int main (void)
{
    tm_error_t e;
    char longarg[400];

    plan (NO_PLAN);

    errno = 64;
    ok (errprintf (&e, "%s: line %d: bad rate", "net.json", 3) == -1, "errprintf returns -1");
    ok (errno == 64, "errprintf preserves errno");
    ok (strcmp (e.text, "net.json: line 3: bad rate") == 0, "errprintf formats the message");

    ok (errprintf (NULL, "nowhere %d", 1) == -1, "errprintf accepts a NULL error buffer");

    memset (longarg, 'x', sizeof (longarg) - 1);
    longarg[sizeof (longarg) - 1] = '\0';
    errprintf (&e, "%s", longarg);
    ok (strlen (e.text) == sizeof (e.text) - 1, "a long message is truncated to the buffer");

    errno = 0;
    ok (errnomem (&e) == -1 && errno == ENOMEM && !strcmp (e.text, "out of memory"),
        "errnomem says out of memory, errno ENOMEM");
    ok (errnomem (NULL) == -1 && errno == ENOMEM, "errnomem accepts a NULL error buffer");

    errclear (&e);
    ok (e.text[0] == '\0', "errclear empties the message");
    errclear (NULL);
    ok (1, "errclear accepts NULL");

    return done_testing ();
}
