/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf.c: the plugstack.conf argument parser (conf_parse) and the values
 * of --topo-map and --topo-profile.  The input's lines are the arguments;
 * the first is also given to both option parsers.
 */
#include "config.h"

#include "fuzz/fuzz.h"
#include "lib/conf.h"

#define ARGS_MAX 64

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *text = fuzz_text (data, size), *av[ARGS_MAX], *save = NULL;
    conf_map_mode_t mode;
    conf_profile_t profile;
    conf_t c;
    tm_error_t e;
    int ac = 0;

    for (char *a = strtok_r (text, "\n", &save); a && ac < ARGS_MAX;
         a = strtok_r (NULL, "\n", &save))
        av[ac++] = a;
    conf_default (&c, "/usr/bin/topomap-probe", "/usr/bin/topomap-probe-mpich", "/usr/lib/topomap");
    (void)conf_parse (&c, ac, av, &e);
    if (ac > 0) {
        (void)conf_map_mode_parse (av[0], &mode, &e);
        (void)conf_profile_parse (av[0], &profile, &e);
        (void)conf_mpi_valid (av[0]);
    }
    free (text);
    return 0;
}
