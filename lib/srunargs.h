/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srunargs.h: srun's own command line, read as srun reads it.
 *
 * srun takes its options with getopt_long over the option table and
 * option string that libslurm's slurm_option_table_create builds: Slurm's
 * options and every SPANK plugin's, the string starting with "+" so that
 * the first argument that is neither an option nor an option's value ends
 * them, as "--" does.  That argument is the step's command: its program,
 * or the configuration file of --multi-prog (srun/libsrun/opt.c,
 * _opt_args; Slurm 22.05 to 26.05).  Which options take a value differs
 * between Slurm versions and sites (their SPANK plugins), so the caller
 * passes the table srun itself uses; t/fixtures/srun-options-* hold those
 * of Slurm's releases for the unit tests.
 */
#ifndef TOPOMAP_SRUNARGS_H
#define TOPOMAP_SRUNARGS_H

#include <getopt.h>
#include <stddef.h>

#include "lib/error.h"

/* The index in argv (argc entries, argv[0] srun itself) of the step's
 * command under optstring and longopts, as getopt_long finds it.  The
 * caller's optind, optarg, opterr and optopt are kept, not glibc's hidden
 * state of a parse under way: srun's own parse ends before this runs.
 * Fails, naming the argument, on an option the table does not have, an
 * ambiguous abbreviation, an option without its value or with one it
 * does not take, or no command.
 */
int srunargs_command (int argc, char *const argv[], const char *optstring,
                      const struct option *longopts, tm_error_t *errp);

/* The NUL-separated arguments in buf (len bytes, as /proc/PID/cmdline
 * holds them) as a NULL-terminated vector of pointers into buf, which
 * must stay; its length in *argc.  NULL, with errno, when out of memory or
 * buf is empty or does not end in a NUL.  Free the vector with free().
 */
char **srunargs_split (char *buf, size_t len, int *argc);

/* The whole of the file at path (a /proc/PID/cmdline), in a new buffer
 * (free() it) of *len bytes, NUL-terminated beyond them.  NULL, naming
 * path, when it cannot be read.
 */
char *srunargs_read (const char *path, size_t *len, tm_error_t *errp);

#endif
