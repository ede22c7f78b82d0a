/* SPDX-License-Identifier: GPL-2.0-or-later */
/* expect.h: what a test program sends, counted by the program itself next
 * to each send, so that a test can compare it with what the PMPI recorder
 * recorded.  expect_write() gathers the counts through PMPI (so a recorder
 * never sees it) and rank 0 writes PREFIX.bytes.csv and PREFIX.msgs.csv:
 * n lines of n comma-separated integers, sender by row, as `topomap
 * profile export` prints them.
 */
#ifndef TOPOMAP_T_EXPECT_H
#define TOPOMAP_T_EXPECT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

static int expect_size, expect_rank;
static uint64_t *expect_msgs, *expect_bytes;

static void expect_init (void)
{
    MPI_Comm_size (MPI_COMM_WORLD, &expect_size);
    MPI_Comm_rank (MPI_COMM_WORLD, &expect_rank);
    expect_msgs = calloc ((size_t)expect_size, sizeof (uint64_t));
    expect_bytes = calloc ((size_t)expect_size, sizeof (uint64_t));
    if (!expect_msgs || !expect_bytes)
        MPI_Abort (MPI_COMM_WORLD, 1);
}

/* This rank sends one message of bytes bytes to world rank dst. */
static void expect_send (int dst, uint64_t bytes)
{
    if (dst < 0 || dst >= expect_size)
        MPI_Abort (MPI_COMM_WORLD, 1);
    expect_msgs[dst]++;
    expect_bytes[dst] += bytes;
}

static void expect_write_one (const char *prefix, const char *what, const uint64_t *all)
{
    char path[4096];
    FILE *f;

    snprintf (path, sizeof (path), "%s.%s.csv", prefix, what);
    if (!(f = fopen (path, "w"))) {
        perror (path);
        MPI_Abort (MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < expect_size; i++)
        for (int j = 0; j < expect_size; j++)
            fprintf (f, "%llu%c",
                     (unsigned long long)all[(size_t)i * (size_t)expect_size + (size_t)j],
                     j + 1 < expect_size ? ',' : '\n');
    if (fclose (f) != 0) {
        perror (path);
        MPI_Abort (MPI_COMM_WORLD, 1);
    }
}

/* Write the expected matrices when prefix is not NULL; collective. */
static void expect_write (const char *prefix)
{
    uint64_t *msgs = NULL, *bytes = NULL;
    size_t n = (size_t)expect_size * (size_t)expect_size;

    if (!prefix)
        return;
    if (expect_rank == 0 &&
        (!(msgs = malloc (n * sizeof (*msgs))) || !(bytes = malloc (n * sizeof (*bytes)))))
        MPI_Abort (MPI_COMM_WORLD, 1);
    PMPI_Gather (expect_msgs, expect_size, MPI_UINT64_T, msgs, expect_size, MPI_UINT64_T, 0,
                 MPI_COMM_WORLD);
    PMPI_Gather (expect_bytes, expect_size, MPI_UINT64_T, bytes, expect_size, MPI_UINT64_T, 0,
                 MPI_COMM_WORLD);
    if (expect_rank == 0) {
        expect_write_one (prefix, "msgs", msgs);
        expect_write_one (prefix, "bytes", bytes);
    }
    free (msgs);
    free (bytes);
    free (expect_msgs);
    free (expect_bytes);
}

/* Whether the recorder attributes collectives in this run. */
static inline int expect_collectives (void)
{
    const char *c = getenv ("TOPOMAP_RECORD_COLLECTIVES");

    return c && c[0] == '1' && c[1] == '\0';
}

#endif
