/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slots_hwloc.h: a node's GPU slots (slots.h) as hwloc sees its devices.
 * In libtopomap-hwloc.
 *
 * A GPU is a PCI 3-D, other display or processing-accelerator device,
 * or a VGA one with a GPU or co-processor OS device other than a DRM card
 * (a server's BMC graphics is VGA with those only; hwloc built without
 * CUDA, NVML or RSMI, as Debian's, sees accelerators by their DRM devices
 * alone).  It is named by that device ("cuda0", "nvml0", "rsmi0"), else
 * its DRM device ("card1"), else its PCI address.  A NIC is a PCI device
 * with a fabric (OpenFabrics) or network OS device, named by the first of
 * each.  Names a task's environment cannot take (slots_name_ok) are
 * dropped.  The CPUs near a device are those of the first object above it
 * that is not I/O, among those the process may use.
 */
#ifndef TOPOMAP_SLOTS_HWLOC_H
#define TOPOMAP_SLOTS_HWLOC_H

#include "lib/error.h"
#include "lib/slots.h"

/* The slots of the machine described by xml (an lstopo export), or of
 * this node when xml is NULL (hwloc's own HWLOC_XMLFILE applying).  NULL
 * with errp naming the fault when hwloc cannot read it.
 */
slots_t *slots_hw_read (const char *xml, tm_error_t *errp);

#endif
