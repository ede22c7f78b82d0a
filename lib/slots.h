/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slots.h: a GPU node's slots -- a GPU, the NIC or NICs nearest it and
 * the CPUs near both -- chosen from the node's devices, for ranks to be
 * placed on (node, slot) and bound to their GPU, NIC and cores.
 * slots_hwloc.h reads the devices with hwloc; this decides.
 *
 * Where two devices meet is where their paths from the machine down part:
 * under one PCIe switch or host bridge (SLOTS_NEAR_SWITCH), in one
 * package or group (SLOTS_NEAR_PACKAGE), or in the machine only.  Each GPU takes the least used of
 * its nearest NICs, nearest pairs first, so equally near NICs are spread round robin; a NIC still
 * unused then joins the GPU it is as near as that GPU's own (two NICs under one switch with one GPU
 * both serve it), else serves none (the note says so).  NICs on PCIe links below
 * SLOTS_NIC_LINK_RATIO of the fastest NIC's (a management port) are not the job's network and serve
 * no slot.
 */
#ifndef TOPOMAP_SLOTS_H
#define TOPOMAP_SLOTS_H

#include <stdbool.h>

#include "lib/error.h"

#define SLOTS_MAX_DEVICES    256
#define SLOTS_MAX_DEPTH      64
#define SLOTS_MAX_CPUS       65536 /* as INSIDE_MAX_CPUS */
#define SLOTS_NIC_LINK_RATIO 0.5
#define SLOTS_NAME_MAX       32 /* a device name's bytes, with its NUL */

typedef enum {
    SLOTS_GPU,
    SLOTS_NIC,
} slots_kind_t;

typedef enum {
    SLOTS_NEAR_NONE = 0, /* no NIC */
    SLOTS_NEAR_MACHINE,
    SLOTS_NEAR_PACKAGE,
    SLOTS_NEAR_SWITCH,
} slots_near_t;

/* A device as the reader saw it. */
typedef struct {
    slots_kind_t kind;
    char busid[20];              /* PCI address "dddd:bb:dd.f" */
    char name[SLOTS_NAME_MAX];   /* a GPU's device ("cuda0", "rsmi0"); a NIC's
                                    fabric device ("mlx5_0"), "" when it has
                                    none */
    char netdev[SLOTS_NAME_MAX]; /* a NIC's network interface ("ib0"), "" for none */
    double link_GBps;            /* its PCIe link, 0 when not known */
    int depth;                   /* entries in path */
    int nio;                     /* path[nio..] are I/O objects (bridges), the
                                    entries before them the machine, package, ... */
    int path[SLOTS_MAX_DEPTH];   /* ids of its ancestors from the machine
                                    down, the device's parent last */
    int ncpus;
    const int *cpu; /* [ncpus] OS indexes of the CPUs near it,
                       ascending */
} slots_dev_t;

/* What the node offers: the CPUs the job may use, the core of each, and
 * its devices. */
typedef struct {
    int ncpus;
    const int *cpu;  /* [ncpus] OS indexes, ascending */
    const int *core; /* [ncpus] an identifier of each one's core */
    int ndevs;
    const slots_dev_t *dev;
} slots_node_t;

typedef struct {
    int gpu; /* index into slots_t.gpu */
    int nnics;
    int *nic;          /* [nnics] indexes into slots_t.nic */
    slots_near_t near; /* where its NICs meet its GPU */
    int ncpus;
    int *cpu; /* [ncpus] OS indexes, ascending: the CPUs
                 near its GPU and NICs, its share of those
                 where several slots are near the same */
} slot_t;

typedef struct {
    int nslots; /* one a GPU, in the GPUs' PCI order */
    slot_t *slot;
    int ngpus;
    slots_dev_t *gpu; /* [ngpus] in PCI order (cpu not kept) */
    int nnics;
    slots_dev_t *nic; /* [nnics] in PCI order, the job's only */
    char note[256];   /* why there are no slots; NICs left out or unused */
} slots_t;

/* The slots of node.  No GPU is no slot (nslots 0, note saying so), not
 * an error; more than SLOTS_MAX_DEVICES devices, a path deeper than
 * SLOTS_MAX_DEPTH or a bus id given twice is EINVAL.
 */
slots_t *slots_choose (const slots_node_t *node, tm_error_t *errp);
void slots_free (slots_t *s);

/* Whether s can name a device: 1 to SLOTS_NAME_MAX - 1 letters, digits
 * or "_.:-" (names end up in tasks' environment).
 */
bool slots_name_ok (const char *s);

/* Whether s is a slots_t a reader may take: every index, name and CPU
 * list in range (what names s in messages).
 */
int slots_check (const slots_t *s, const char *what, tm_error_t *errp);

/* s as JSON, as the netmap keeps it per host (schema 6), NULL on ENOMEM:
 *
 *   {"gpus": [{"busid": "0000:12:00.0", "name": "cuda0", "nics": [0],
 *              "near": "switch", "cpus": [0, 1]}, ...],
 *    "nics": [{"busid": "0000:13:00.0", "name": "mlx5_0",
 *              "netdev": "ibp19s0"}, ...],
 *    "note": "..."}
 *
 * gpus: the slots, one a GPU; nics: the NICs they use, by index.
 * slots_from_json reads it back, refusing what slots_check would; pre
 * names o in messages ("slots[3].").
 */
struct json_object;
struct json_object *slots_to_json (const slots_t *s);
slots_t *slots_from_json (struct json_object *o, const char *pre, tm_error_t *errp);

/* "switch", "package", "machine" or "none". */
const char *slots_near_name (slots_near_t near);

#endif
