/* SPDX-License-Identifier: GPL-2.0-or-later */
/* swap.h: the race of issue 62 in a unit test.  A user who may write the
 * parent swaps each directory for a link to one of theirs the moment it
 * is made: these stand in for libc's mkdirat and mkdir, so the library's
 * calls come here.  swap_to: the link's target, NULL for no swap.
 * Include once, in a test that needs it.
 */
#ifndef TOPOMAP_TEST_SWAP_H
#define TOPOMAP_TEST_SWAP_H

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *swap_to;

int mkdirat (int dirfd, const char *name, mode_t mode)
{
    int rc = (int)syscall (SYS_mkdirat, dirfd, name, mode);

    if (rc == 0 && swap_to && unlinkat (dirfd, name, AT_REMOVEDIR) == 0)
        symlinkat (swap_to, dirfd, name);
    return rc;
}

int mkdir (const char *path, mode_t mode)
{
    return mkdirat (AT_FDCWD, path, mode);
}

#endif
