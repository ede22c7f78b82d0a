/* SPDX-License-Identifier: GPL-2.0-or-later */
/* schedule.h: rounds of disjoint pairs covering every pair of m nodes once
 * (a 1-factorization of the complete graph, by the circle method), so that
 * each node takes part in at most one measurement at a time.
 *
 * m even: m-1 rounds of m/2 pairs.  m odd: m rounds of (m-1)/2 pairs, one
 * node sitting out (a bye) each round.  m == 1: no round.
 */
#ifndef TOPOMAP_SCHEDULE_H
#define TOPOMAP_SCHEDULE_H

/* Number of rounds for m nodes. */
int schedule_rounds (int m);

/* Fill peer[0..m-1] for round r: peer[i] is the node i meets, or -1 for a
 * bye.  Returns the number of pairs, -1 if m < 1 or r is out of range.
 */
int schedule_round (int m, int r, int *peer);

#endif
