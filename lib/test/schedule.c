/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdlib.h>

#include "lib/schedule.h"
#include "lib/test/tap.h"

/* Check the schedule for m nodes: every pair exactly once, each round a
 * matching, the documented number of rounds and byes.
 */
static void check (int m)
{
    int rounds = schedule_rounds (m);
    int *seen = calloc ((size_t)(m * m), sizeof (int));
    int *peer = malloc ((size_t)m * sizeof (int));
    int matching = 1, byes_ok = 1, once = 1;

    for (int r = 0; r < rounds; r++) {
        int pairs = schedule_round (m, r, peer), byes = 0, counted = 0;
        for (int i = 0; i < m; i++) {
            if (peer[i] == -1) {
                byes++;
                continue;
            }
            if (peer[i] < 0 || peer[i] >= m || peer[i] == i || peer[peer[i]] != i)
                matching = 0;
            else if (i < peer[i]) {
                seen[i * m + peer[i]]++;
                counted++;
            }
        }
        if (byes != m % 2 || pairs != counted)
            byes_ok = 0;
    }
    for (int a = 0; a < m; a++)
        for (int b = a + 1; b < m; b++)
            if (seen[a * m + b] != 1)
                once = 0;
    ok (rounds == (m < 2 ? 0 : m % 2 ? m : m - 1), "%d nodes take %d rounds", m, rounds);
    ok (matching, "%d nodes: in every round each node meets at most one other", m);
    ok (byes_ok, "%d nodes: %d bye per round", m, m % 2);
    ok (once, "%d nodes: every pair meets exactly once", m);
    free (seen);
    free (peer);
}

int main (void)
{
    int peer[4];

    plan (NO_PLAN);
    for (int m = 1; m <= 17; m++)
        check (m);
    check (64);
    check (257);
    ok (schedule_round (4, 3, peer) == -1, "a round past the last is refused");
    ok (schedule_round (4, -1, peer) == -1, "a negative round is refused");
    ok (schedule_round (0, 0, peer) == -1, "zero nodes are refused");
    return done_testing ();
}
