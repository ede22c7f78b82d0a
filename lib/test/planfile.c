/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of lib/planfile: a plan as hostfile, rankfile, rank order. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/planfile.h"
#include "lib/test/tap.h"

static char dir[256];

static char *slurp (const char *path)
{
    static char buf[4096];
    FILE *f = fopen (path, "r");
    size_t len;

    if (!f)
        return NULL;
    len = fread (buf, 1, sizeof (buf) - 1, f);
    buf[len] = '\0';
    fclose (f);
    return buf;
}

static void test_hostfile (void)
{
    char *names[] = {"n0", "n1", "bad name", "n3"};
    char path[512], other[512];
    struct stat st;
    tm_error_t e;
    char *text;
    int node[2];
    FILE *f;

    snprintf (path, sizeof (path), "%s/hostfile", dir);
    ok (plan_write (path, 0600, PLAN_HOSTFILE, 5, (int[]){3, 0, 0, 1, 3}, 4, names, &e) == 0,
        "a hostfile is written");
    text = slurp (path);
    ok (text && strcmp (text, "n3\nn0\nn0\nn1\nn3\n") == 0, "line r+1 names the node of rank r");
    ok (stat (path, &st) == 0 && (st.st_mode & 07777) == 0600, "the hostfile has mode 0600");
    ok (plan_write (path, 0600, PLAN_HOSTFILE, 2, (int[]){1, 1}, 4, names, &e) == 0 &&
            (text = slurp (path)) && strcmp (text, "n1\nn1\n") == 0,
        "a second hostfile replaces the first");
    ok (plan_write (path, 0600, PLAN_HOSTFILE, 2, (int[]){1, 2}, 4, names, &e) == -1 &&
            strstr (e.text, "node 2") && strstr (e.text, "'bad name'") &&
            strstr (e.text, "space") && strstr (e.text, path),
        "a name a hostfile cannot carry is refused: %s", e.text);
    ok ((text = slurp (path)) && strcmp (text, "n1\nn1\n") == 0,
        "a refused hostfile leaves the old one");
    ok (plan_write (path, 0600, PLAN_HOSTFILE, 2, (int[]){1, 4}, 4, names, &e) == -1 &&
            strstr (e.text, "rank 1 is placed on node 4, outside 0..3"),
        "a node index out of range is refused: %s", e.text);
    ok (plan_write (path, 0600, PLAN_HOSTFILE, 0, (int[]){0}, 4, names, &e) == -1,
        "a hostfile of no ranks is refused");
    snprintf (other, sizeof (other), "%s/missing/hostfile", dir);
    ok (plan_write (other, 0600, PLAN_HOSTFILE, 1, (int[]){0}, 4, names, &e) == -1 &&
            strstr (e.text, other),
        "a hostfile in a missing directory fails naming it: %s", e.text);
    f = fopen (path, "w");
    ok (f && fputs ("\xef\xbb\xbfn1\nn3\n", f) >= 0 && fclose (f) == 0 &&
            plan_read_hostfile (path, 2, 4, names, node, &e) == 0 && node[0] == 1 && node[1] == 3,
        "a byte order mark before a hostfile is skipped");
    f = fopen (path, "w");
    ok (f && fputs ("n1\n\xef\xbb\xbfn3\n", f) >= 0 && fclose (f) == 0 &&
            plan_read_hostfile (path, 2, 4, names, node, &e) == -1 && strstr (e.text, ":2: "),
        "one on a later line is not: %s", e.text);
    unlink (path);
}

static void test_formats (void)
{
    char *names[] = {"n1", "n2"};
    const int node[] = {1, 0, 1, 0, 1};
    char *buf = NULL;
    size_t len = 0;
    plan_format_t fmt;
    FILE *f;
    tm_error_t e;

    ok (plan_format_parse ("rankfile", &fmt) == 0 && fmt == PLAN_RANKFILE &&
            plan_format_parse ("cray", &fmt) == 0 && fmt == PLAN_RANK_ORDER &&
            plan_format_parse ("machinefile", &fmt) == 0 && fmt == PLAN_MACHINEFILE &&
            plan_format_parse ("hostfile", &fmt) == 0 && fmt == PLAN_HOSTFILE,
        "the four formats parse by name");
    ok (plan_format_parse ("mpich", &fmt) == 0 && fmt == PLAN_RANK_ORDER &&
            !strcmp (plan_format_name (fmt), "cray"),
        "mpich, the rank order's former name, is cray");
    ok (plan_format_parse ("nope", &fmt) < 0 && plan_format_parse (NULL, &fmt) < 0,
        "an unknown format does not parse");
    f = open_memstream (&buf, &len);
    ok (f && plan_print (f, PLAN_RANKFILE, 5, node, 2, names, &e) == 0 && fclose (f) == 0 &&
            !strcmp (buf, "rank 0=n2 slot=0\nrank 1=n1 slot=0\nrank 2=n2 slot=1\n"
                          "rank 3=n1 slot=1\nrank 4=n2 slot=2\n"),
        "a rankfile numbers the slots of each node");
    free (buf);
    buf = NULL;
    f = open_memstream (&buf, &len);
    ok (f && plan_print (f, PLAN_RANK_ORDER, 5, node, 2, names, &e) == 0 && fclose (f) == 0 &&
            !strcmp (buf, "1,3,0,2,4\n"),
        "a rank order lists the ranks of each node, node after node");
    free (buf);
    buf = NULL;
    f = open_memstream (&buf, &len);
    ok (f && plan_print (f, PLAN_MACHINEFILE, 5, (int[]){1, 1, 0, 1, 1}, 2, names, &e) == 0 &&
            fclose (f) == 0 && !strcmp (buf, "n2:2\nn1:1\nn2:2\n"),
        "a machine file gives each run of consecutive ranks on a node a line");
    free (buf);
    buf = NULL;
    f = open_memstream (&buf, &len);
    ok (f && plan_print (f, PLAN_MACHINEFILE, 4, (int[]){0, 0, 1, 1}, 2, names, &e) == 0 &&
            fclose (f) == 0 && !strcmp (buf, "n1:2\nn2:2\n"),
        "a block plan is a line a node");
    free (buf);
}

int main (void)
{
    const char *tmp = getenv ("TMPDIR");

    plan (NO_PLAN);
    snprintf (dir, sizeof (dir), "%s/planfile-test.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp (dir)) {
        perror ("mkdtemp");
        return 1;
    }
    test_hostfile ();
    test_formats ();
    rmdir (dir);
    return done_testing ();
}
