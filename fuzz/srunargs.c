/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srunargs.c: srun's command line as the plugin reads it from
 * /proc/self/cmdline (srunargs_split) and the search for the step's
 * command in it (srunargs_command), with a table of srun's options of the
 * kinds Slurm has: flags, options with a value, with an optional value.
 */
#include "config.h"

#include <getopt.h>

#include "fuzz/fuzz.h"
#include "lib/srunargs.h"

static const char optstring[] = "+A:b:c:D:e:HI::J:kKlm:n:N:o:Op:Qst:uvw:x:XZ";
static const struct option table[] = {
    {"account", required_argument, NULL, 'A'},   {"cpus-per-task", required_argument, NULL, 'c'},
    {"chdir", required_argument, NULL, 'D'},     {"distribution", required_argument, NULL, 'm'},
    {"exclusive", optional_argument, NULL, 256}, {"immediate", optional_argument, NULL, 'I'},
    {"label", no_argument, NULL, 'l'},           {"mpi", required_argument, NULL, 257},
    {"multi-prog", no_argument, NULL, 258},      {"nodes", required_argument, NULL, 'N'},
    {"ntasks", required_argument, NULL, 'n'},    {"overlap", no_argument, NULL, 259},
    {"topo-map", optional_argument, NULL, 260},  {"topo-profile", required_argument, NULL, 261},
    {"verbose", no_argument, NULL, 'v'},         {NULL, 0, NULL, 0},
};

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *buf = fuzz_text (data, size), **argv;
    tm_error_t e;
    int argc;

    if ((argv = srunargs_split (buf, size, &argc))) {
        int cmd = srunargs_command (argc, argv, optstring, table, &e);

        if (cmd >= argc)
            abort (); /* the command is one of the words */
        free (argv);
    }
    free (buf);
    return 0;
}
