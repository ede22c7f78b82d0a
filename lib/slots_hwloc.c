/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slots_hwloc.c: a node's GPU slots as hwloc sees its devices
 * (slots_hwloc.h). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "lib/slots_hwloc.h"

/* A DRM device's name ("card1", "renderD128"), which a server's BMC
 * graphics has too. */
static bool slots_hw_drm (const char *name)
{
    static const char *const drm[] = {"card", "renderD", "controlD"};

    for (size_t k = 0; k < sizeof (drm) / sizeof (drm[0]); k++)
        if (strncmp (name, drm[k], strlen (drm[k])) == 0)
            return true;
    return false;
}

/* Fill d from PCI device pci when it is a GPU or a NIC (slots_hwloc.h);
 * false when it is neither.  Only names a task's environment can take
 * are kept (slots_name_ok); a NIC left with none is no NIC. */
static bool slots_hw_dev (hwloc_obj_t pci, slots_dev_t *d)
{
    unsigned base = pci->attr->pcidev.class_id >> 8, sub = pci->attr->pcidev.class_id & 0xff;
    const char *gpu = NULL, *drm = NULL, *fabric = NULL, *netdev = NULL;
    bool accel = base == 0x12 || (base == 0x03 && sub != 0x00);

    memset (d, 0, sizeof (*d));
    for (hwloc_obj_t o = pci->io_first_child; o; o = o->next_sibling) {
        if (o->type != HWLOC_OBJ_OS_DEVICE || !o->name || !slots_name_ok (o->name))
            continue;
        switch (o->attr->osdev.type) {
        case HWLOC_OBJ_OSDEV_GPU:
        case HWLOC_OBJ_OSDEV_COPROC:
            if (slots_hw_drm (o->name))
                drm = drm ? drm : o->name;
            else
                gpu = gpu ? gpu : o->name;
            break;
        case HWLOC_OBJ_OSDEV_OPENFABRICS:
            fabric = fabric ? fabric : o->name;
            break;
        case HWLOC_OBJ_OSDEV_NETWORK:
            netdev = netdev ? netdev : o->name;
            break;
        default:
            break;
        }
    }
    snprintf (d->busid, sizeof (d->busid), "%04x:%02x:%02x.%01x",
              (unsigned)pci->attr->pcidev.domain, (unsigned)pci->attr->pcidev.bus,
              (unsigned)pci->attr->pcidev.dev, (unsigned)pci->attr->pcidev.func);
    d->link_GBps = pci->attr->pcidev.linkspeed;
    if (accel || ((base == 0x03 || base == 0x12) && gpu)) {
        d->kind = SLOTS_GPU;
        snprintf (d->name, sizeof (d->name), "%s", gpu ? gpu : drm ? drm : d->busid);
        return true;
    }
    if (!fabric && !netdev)
        return false;
    d->kind = SLOTS_NIC;
    snprintf (d->name, sizeof (d->name), "%s", fabric ? fabric : "");
    snprintf (d->netdev, sizeof (d->netdev), "%s", netdev ? netdev : "");
    return true;
}

/* d's path from the machine down to pci's parent; -1 when too deep. */
static int slots_hw_path (hwloc_obj_t pci, slots_dev_t *d)
{
    int n = 0;

    for (hwloc_obj_t o = pci->parent; o; o = o->parent) {
        if (n == SLOTS_MAX_DEPTH)
            return -1;
        d->path[n++] = (int)o->gp_index;
        if (!hwloc_obj_type_is_io (o->type))
            d->nio++;
    }
    for (int k = 0; k < n / 2; k++) {
        int t = d->path[k];

        d->path[k] = d->path[n - 1 - k];
        d->path[n - 1 - k] = t;
    }
    d->depth = n;
    return 0;
}

/* The CPUs in set, as OS indexes ascending, into a new array; -1 on
 * ENOMEM. */
static int slots_hw_cpus (hwloc_const_bitmap_t set, int **cpup)
{
    int w = hwloc_bitmap_weight (set), n = 0;
    unsigned i;
    int *cpu;

    if (w < 0)
        w = 0;
    if (!(cpu = malloc ((size_t)w * sizeof (int) + 1)))
        return -1;
    hwloc_bitmap_foreach_begin (i, set)
    {
        if (n < w && i <= (unsigned)INT32_MAX)
            cpu[n++] = (int)i;
    }
    hwloc_bitmap_foreach_end ();
    *cpup = cpu;
    return n;
}

slots_t *slots_hw_read (const char *xml, tm_error_t *errp)
{
    hwloc_topology_t topo;
    hwloc_const_cpuset_t allowed;
    hwloc_bitmap_t set = NULL;
    slots_dev_t *dev = NULL;
    slots_node_t node = {0};
    int *cpu = NULL, *core = NULL, ndev = 0;
    slots_t *s = NULL;
    const char *what = xml ? xml : "this node";

    if (hwloc_topology_init (&topo) < 0) {
        errprintf (errp, "hwloc: %s", strerror (errno));
        return NULL;
    }
    hwloc_topology_set_io_types_filter (topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (xml && hwloc_topology_set_xml (topo, xml) < 0) {
        errprintf (errp, "hwloc: %s: %s", errsafe (xml, 200), strerror (errno));
        goto out;
    }
    if (hwloc_topology_load (topo) < 0) {
        errprintf (errp, "hwloc: cannot read %s's topology: %s", errsafe (what, 200),
                   strerror (errno));
        goto out;
    }
    allowed = hwloc_topology_get_allowed_cpuset (topo);
    if (!(set = hwloc_bitmap_alloc ()) || !(dev = calloc (SLOTS_MAX_DEVICES, sizeof (*dev)))) {
        errnomem (errp);
        goto out;
    }
    if ((node.ncpus = slots_hw_cpus (allowed, &cpu)) < 0 ||
        !(core = malloc ((size_t)node.ncpus * sizeof (int) + 1))) {
        errnomem (errp);
        goto out;
    }
    for (int k = 0; k < node.ncpus; k++) {
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index (topo, (unsigned)cpu[k]), c;

        c = pu ? hwloc_get_ancestor_obj_by_type (topo, HWLOC_OBJ_CORE, pu) : NULL;
        core[k] = c ? (int)c->gp_index : pu ? (int)pu->gp_index : cpu[k];
    }
    for (hwloc_obj_t pci = hwloc_get_next_pcidev (topo, NULL); pci;
         pci = hwloc_get_next_pcidev (topo, pci)) {
        hwloc_obj_t up = hwloc_get_non_io_ancestor_obj (topo, pci);
        slots_dev_t one, *d;

        if (!slots_hw_dev (pci, &one))
            continue;
        if (ndev == SLOTS_MAX_DEVICES) {
            errprintf (errp, "%s: more than %d GPUs and NICs", errsafe (what, 200),
                       SLOTS_MAX_DEVICES);
            goto out;
        }
        d = &dev[ndev];
        *d = one;
        if (slots_hw_path (pci, d) < 0) {
            errprintf (errp, "%s: %s lies deeper than %d objects", errsafe (what, 200), d->busid,
                       SLOTS_MAX_DEPTH);
            goto out;
        }
        hwloc_bitmap_and (set, up && up->cpuset ? up->cpuset : allowed, allowed);
        {
            int *near;

            if ((d->ncpus = slots_hw_cpus (set, &near)) < 0) {
                errnomem (errp);
                goto out;
            }
            d->cpu = near;
        }
        ndev++;
    }
    node.cpu = cpu;
    node.core = core;
    node.ndevs = ndev;
    node.dev = dev;
    s = slots_choose (&node, errp);
out:
    for (int k = 0; dev && k < ndev; k++)
        free ((int *)dev[k].cpu);
    free (dev);
    free (cpu);
    free (core);
    hwloc_bitmap_free (set);
    hwloc_topology_destroy (topo);
    return s;
}
