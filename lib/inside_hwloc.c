/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inside_hwloc.c: a node's inside as hwloc sees it (inside_hwloc.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "lib/inside_hwloc.h"

struct inside_hw {
    hwloc_topology_t topo;
    hwloc_bitmap_t saved; /* the binding at open; NULL when hwloc could not tell */
};

inside_hw_t *inside_hw_open (tm_error_t *errp)
{
    inside_hw_t *hw = calloc (1, sizeof (*hw));

    if (!hw) {
        errnomem (errp);
        return NULL;
    }
    if (hwloc_topology_init (&hw->topo) < 0) {
        errprintf (errp, "hwloc: %s", strerror (errno));
        free (hw);
        return NULL;
    }
    if (hwloc_topology_load (hw->topo) < 0) {
        errprintf (errp, "hwloc: cannot read this node's topology: %s", strerror (errno));
        hwloc_topology_destroy (hw->topo);
        free (hw);
        return NULL;
    }
    /* A topology of another machine binds nothing and says it did
     * (hwloc's dummy hooks): not this one's binding to restore, nor to set.
     */
    if (hwloc_topology_is_thissystem (hw->topo) && (hw->saved = hwloc_bitmap_alloc ()) &&
        hwloc_get_cpubind (hw->topo, hw->saved, HWLOC_CPUBIND_PROCESS) < 0) {
        hwloc_bitmap_free (hw->saved);
        hw->saved = NULL;
    }
    return hw;
}

void inside_hw_close (inside_hw_t *hw)
{
    if (!hw)
        return;
    hwloc_bitmap_free (hw->saved);
    hwloc_topology_destroy (hw->topo);
    free (hw);
}

inside_t *inside_hw_read (inside_hw_t *hw, tm_error_t *errp)
{
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset (hw->topo);
    int npu = hwloc_get_nbobjs_by_type (hw->topo, HWLOC_OBJ_PU), n = 0;
    int *cpu, *dom, *pkg;
    inside_t *in = NULL;

    if (npu < 1) {
        errprintf (errp, "hwloc: no CPU in this node's topology");
        return NULL;
    }
    cpu = malloc ((size_t)npu * sizeof (int));
    dom = malloc ((size_t)npu * sizeof (int));
    pkg = malloc ((size_t)npu * sizeof (int));
    if (!cpu || !dom || !pkg) {
        errnomem (errp);
        goto out;
    }
    for (int i = 0; i < npu; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type (hw->topo, HWLOC_OBJ_PU, (unsigned)i), d, p;

        if (!pu || (allowed && !hwloc_bitmap_isset (allowed, pu->os_index)))
            continue;
        if (pu->os_index > (unsigned)INT32_MAX)
            continue;
        if (!(d = hwloc_get_ancestor_obj_by_type (hw->topo, HWLOC_OBJ_L3CACHE, pu)) &&
            !(d = hwloc_get_ancestor_obj_by_type (hw->topo, HWLOC_OBJ_CORE, pu)))
            d = pu;
        p = hwloc_get_ancestor_obj_by_type (hw->topo, HWLOC_OBJ_PACKAGE, pu);
        cpu[n] = (int)pu->os_index;
        dom[n] = (int)d->gp_index;
        pkg[n] = p ? (int)p->gp_index : -1;
        n++;
    }
    if (n == 0)
        errprintf (errp, "hwloc: none of this node's CPUs is allowed");
    else
        in = inside_create (n, cpu, dom, pkg, errp);
out:
    free (cpu);
    free (dom);
    free (pkg);
    return in;
}

int inside_hw_bind (inside_hw_t *hw, int cpu, tm_error_t *errp)
{
    hwloc_bitmap_t set;
    int rc;

    if (!hw->saved)
        return errprintf (errp, "hwloc: this process's binding is not known (a topology of "
                                "another machine, without HWLOC_THISSYSTEM=1): not bound");
    if (cpu < 0)
        return hwloc_set_cpubind (hw->topo, hw->saved, HWLOC_CPUBIND_PROCESS) < 0
                   ? errprintf (errp, "hwloc: restoring the binding: %s", strerror (errno))
                   : 0;
    if (!(set = hwloc_bitmap_alloc ()))
        return errnomem (errp);
    hwloc_bitmap_only (set, (unsigned)cpu);
    rc = hwloc_set_cpubind (hw->topo, set, HWLOC_CPUBIND_PROCESS);
    if (rc < 0)
        errprintf (errp, "hwloc: binding to CPU %d: %s", cpu, strerror (errno));
    hwloc_bitmap_free (set);
    return rc < 0 ? -1 : 0;
}
