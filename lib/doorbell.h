/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doorbell.h: wake a rank that naps between measurements the moment its
 * turn comes, without making it spin.
 *
 * The probe's ranks wait for their next pair in timed naps (so that nodes
 * sharing cores leave them to the pair measuring), and a nap overshoots
 * the moment the pair before ends by half its length on average.  A
 * doorbell is a UDP socket on the host's address toward the node srun
 * runs on (SLURM_LAUNCH_NODE_IPADDR: an address every node of the job
 * reaches it by, so the others reach this one by it too).  A waiting rank
 * sleeps in the kernel on it for the length of a nap; the rank whose pair
 * ends rings the next one, which wakes at once.  A ring is only a hint:
 * the MPI message it goes with stays the proof that the turn has come, so
 * a ring lost, late, forged or never sent (a firewall) costs no more than
 * the nap it would have cut short.
 *
 * A ring carries the job's cookie (random, from rank 0), the generation
 * and the index of the turn it announces; a datagram of any other size
 * or cookie, or for another turn, is read and dropped.
 */
#ifndef TOPOMAP_DOORBELL_H
#define TOPOMAP_DOORBELL_H

#include <stdint.h>

#include "lib/error.h"

typedef struct doorbell doorbell_t;

/* A doorbell's address as it travels between ranks (MPI_BYTE): the
 * family, the port and the address, in network order; family 0 is none. */
typedef struct {
    unsigned char family; /* 4, 6, or 0: no doorbell */
    unsigned char port[2];
    unsigned char addr[16];
} doorbell_addr_t;

/* A doorbell on this host's address toward the numeric address toward
 * (IPv4 or IPv6, as SLURM_LAUNCH_NODE_IPADDR has it), on a port the
 * kernel picks.  NULL with errp saying why: no such address, no route,
 * no socket. */
doorbell_t *doorbell_open (const char *toward, uint64_t cookie, tm_error_t *errp);

/* Its address, for the others to ring (family 0 for d NULL). */
void doorbell_address (const doorbell_t *d, doorbell_addr_t *a);

/* Ring the doorbell at a for turn (gen, idx).  0, or -1 when it could not
 * be sent (nothing is retried: the waiter's nap still ends). */
int doorbell_ring (doorbell_t *d, const doorbell_addr_t *a, uint32_t gen, uint32_t idx);

/* Sleep until this doorbell is rung for turn (gen, idx) or timeout_us
 * has passed.  1 when rung, 0 when not; other datagrams are dropped and
 * the sleep goes on to its end. */
int doorbell_wait (doorbell_t *d, uint32_t gen, uint32_t idx, long timeout_us);

void doorbell_close (doorbell_t *d);

#endif
