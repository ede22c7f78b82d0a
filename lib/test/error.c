/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "lib/error.h"
#include "lib/test/tap.h"

int main (void)
{
    tm_error_t e;
    char longarg[2000];

    plan (NO_PLAN);

    errno = 64;
    ok (errprintf (&e, "%s: line %d: bad rate", "net.json", 3) == -1, "errprintf returns -1");
    ok (errno == 64, "errprintf preserves errno");
    ok (strcmp (e.text, "net.json: line 3: bad rate") == 0, "errprintf formats the message");

    ok (errprintf (NULL, "nowhere %d", 1) == -1, "errprintf accepts a NULL error buffer");

    memset (longarg, 'x', sizeof (longarg) - 1);
    longarg[sizeof (longarg) - 1] = '\0';
    longarg[0] = '/';
    errprintf (&e, "%s/net.json: not valid JSON: truncated at line 6", longarg);
    ok (strlen (e.text) == sizeof (e.text) - 1 && !strncmp (e.text, "/xxx", 4) &&
            strstr (e.text, "xxx...xxx") &&
            !strcmp (e.text + strlen (e.text) - 39,
                     "/net.json: not valid JSON: truncated at line 6" + 7),
        "a long message keeps its start and its end, its middle cut: %.20s...%s", e.text,
        e.text + strlen (e.text) - 30);

    errprintf (&e, "%s: bad", "a\nb\033[31mc\x7f\xc2\x9b\xc3\xa9");
    ok (!strcmp (e.text, "a\\x0ab\\x1b[31mc\\x7f\\xc2\\x9b\xc3\xa9: bad"),
        "control characters are escaped, C1 ones in UTF-8 too, other UTF-8 kept: %s", e.text);
    errprintf (&e, "%s: bad", "a\x9b[31m\xff\xc3");
    ok (!strcmp (e.text, "a\\x9b[31m\\xff\\xc3: bad"),
        "bytes that are no UTF-8 are escaped, a lone C1 among them: %s", e.text);
    {
        static char huge[20000];

        memset (huge, 'p', sizeof (huge) - 1);
        errprintf (&e, "%s: the fault", huge);
        ok (!strcmp (e.text + strlen (e.text) - 11, ": the fault"),
            "a message longer than any path keeps its end too");
    }
    memset (longarg, '\n', sizeof (longarg) - 1);
    errprintf (&e, "%s: the fault", longarg);
    ok (strlen (e.text) < sizeof (e.text) && strstr (e.text, "\\x0a...\\x0a") &&
            !strcmp (e.text + strlen (e.text) - 11, ": the fault"),
        "escapes are not cut in two, and the fault stays");

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
