/* SPDX-License-Identifier: GPL-2.0-or-later */
/* railmap.h: which of its node's GPU slots, and so which NIC, each rank
 * uses, once its node is known.  On a rail-optimised fabric NIC k of
 * every node sits on rail switch k and rails meet only at a spine that
 * is far thinner than they are, so traffic between ranks on different
 * nodes crosses the spine unless both use the same rail.  A rail is a
 * NIC's name (the first NIC of a slot): mlx5_0, or hsn0 where the NIC has
 * no fabric device, on every node alike, as rail-optimised fabrics are
 * cabled.
 *
 * The choice starts twice: from what a step gets without topomap
 * (Slurm's --gpu-bind=closest under block binding: local rank i on slot
 * i * slots / ranks; the MPI then takes the NIC near the GPU), and from
 * the traffic (hosts in turn, each the one of most bytes to those placed,
 * its ranks on their placed partners' rails, heaviest first).  Each start
 * then swaps ranks of a node between slots while that lowers the bytes
 * between nodes that change rails; the better is kept.  A rank moves only
 * to a slot under ceil(ranks / slots) of its node's ranks on a NIC under
 * ceil(ranks / NICs), and swaps keep the counts: every NIC keeps its share
 * (a node whose slots load a NIC more in Slurm's order may keep that).
 */
#ifndef TOPOMAP_RAILMAP_H
#define TOPOMAP_RAILMAP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/profile.h"
#include "lib/slots.h"

#define RAILMAP_PASSES 32 /* swap passes at most over every node */

typedef struct {
    char name[SLOTS_NAME_MAX];   /* fabric device, "" for none */
    char netdev[SLOTS_NAME_MAX]; /* network interface, "" for none */
} railmap_nic_t;

typedef struct {
    int nranks;
    int *slot; /* [nranks] the slot of its node each rank uses */
    int *nic;  /* [nranks] index into nics */
    int nnics; /* distinct (name, netdev) over the nodes */
    railmap_nic_t *nics;
    int nrails;
    uint64_t node_bytes;    /* bytes between ranks on different nodes */
    uint64_t cross_bytes;   /* of those, between different rails */
    uint64_t default_bytes; /* the same, ranks on slots as without topomap */
} railmap_t;

/* Each rank's slot: p's ranks on hosts node[0..p->ntasks) of slots[]
 * (nhosts entries, NULL where not read).  0 with out filled; 1 when there
 * is nothing to choose, why saying so (a node without slots or NICs near
 * them, one rail, no bytes between nodes); -1 on error (ENOMEM).
 */
int railmap_choose (const profile_t *p, const int *node, int nhosts, slots_t *const *slots,
                    const char *const *hosts, railmap_t *out, char *why, size_t whylen,
                    tm_error_t *errp);
void railmap_free (railmap_t *m);

/* The GPU of slot of s, for people: its device name, else its bus id. */
const char *railmap_gpu (const slots_t *s, int slot);

/* The tasks' variable (PLACE_ENV_NICS): the NICs, then each rank's NIC
 * and slot (its GPU's index on the node), as "name/netdev,...;i:s,j:t,..."
 * with "-" for an empty name; with cpus, a last part ";L0/L1/..." giving
 * each slot's CPUs (cpus's, alike on every node of the step) as ranges
 * "0-3,8", for the task to be bound to its slot's.  -1 with E2BIG when it
 * passes len - 1 bytes.
 */
int railmap_env (const railmap_t *m, const slots_t *cpus, char *buf, size_t len, tm_error_t *errp);

/* Rank's NIC and slot in such a value, and its slot's CPUs (*cpu, *ncpus;
 * NULL and 0 without that part; the caller frees), checked as untrusted
 * input: every name one slots_name_ok accepts or empty, indexes in range,
 * CPU ranges ascending below SLOTS_MAX_CPUS.  -1 naming the fault.
 */
int railmap_env_nic (const char *val, int rank, railmap_nic_t *nic, int *slot, int **cpu,
                     int *ncpus, tm_error_t *errp);

#endif
