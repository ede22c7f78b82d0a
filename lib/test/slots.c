/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of a GPU node's slots (slots.c) and their reading with hwloc
 * (slots_hwloc.c) from real and hand-written lstopo exports
 * (t/fixtures/hwloc/README).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "lib/error.h"
#include "lib/profile.h"
#include "lib/railmap.h"
#include "lib/slots.h"
#include "lib/slots_hwloc.h"
#include "lib/test/tap.h"

#define FIX TOPOMAP_FIXTURES "/hwloc/"

/* A node of 16 CPUs (cores 0-15), two packages of 8. */
static int cpu16[16], core16[16], pkg0[8], pkg1[8];

static void node16_init (void)
{
    for (int k = 0; k < 16; k++) {
        cpu16[k] = k;
        core16[k] = 100 + k;
    }
    for (int k = 0; k < 8; k++) {
        pkg0[k] = k;
        pkg1[k] = 8 + k;
    }
}

/* A device under package pkg (ids 10, 11) and, sw >= 0, under PCIe
 * switch sw of it (a host bridge 20 + sw, then a bridge 40 + sw). */
static slots_dev_t dev (slots_kind_t kind, const char *busid, const char *name, int pkg, int sw,
                        double link)
{
    slots_dev_t d = {.kind = kind, .link_GBps = link};

    snprintf (d.busid, sizeof (d.busid), "%s", busid);
    snprintf (kind == SLOTS_GPU ? d.name : d.netdev, sizeof (d.name), "%s", name);
    d.path[d.depth++] = 1;
    d.path[d.depth++] = 10 + pkg;
    d.nio = d.depth;
    d.path[d.depth++] = sw >= 0 ? 20 + sw : 30 + (int)strtol (busid + 5, NULL, 16);
    if (sw >= 0)
        d.path[d.depth++] = 40 + sw;
    d.ncpus = 8;
    d.cpu = pkg ? pkg1 : pkg0;
    return d;
}

static slots_t *choose (slots_dev_t *d, int n, tm_error_t *e)
{
    slots_node_t node = {16, cpu16, core16, n, d};

    return slots_choose (&node, e);
}

/* Every NIC serves a slot, and the slots' CPUs do not overlap. */
static bool every_nic_disjoint (const slots_t *s)
{
    for (int n = 0; n < s->nnics; n++) {
        bool used = false;

        for (int k = 0; k < s->nslots; k++)
            for (int j = 0; j < s->slot[k].nnics; j++)
                used |= s->slot[k].nic[j] == n;
        if (!used)
            return false;
    }
    for (int k = 0; k < s->nslots; k++)
        for (int l = k + 1; l < s->nslots; l++)
            for (int a = 0; a < s->slot[k].ncpus; a++)
                for (int b = 0; b < s->slot[l].ncpus; b++)
                    if (s->slot[k].cpu[a] == s->slot[l].cpu[b])
                        return false;
    return true;
}

static const char *nic_of (const slots_t *s, int k, int j)
{
    const slots_dev_t *n;

    if (k >= s->nslots || j >= s->slot[k].nnics)
        return "(none)";
    n = &s->nic[s->slot[k].nic[j]];
    return n->name[0] ? n->name : n->netdev;
}

static void test_choose (void)
{
    tm_error_t e = {""};
    slots_dev_t d[8];
    slots_t *s;

    /* GPUs given out of PCI order, each with a NIC under its switch */
    d[0] = dev (SLOTS_GPU, "0000:41:00.0", "cuda1", 1, 1, 32);
    d[1] = dev (SLOTS_NIC, "0000:12:00.0", "ib0", 0, 0, 32);
    d[2] = dev (SLOTS_GPU, "0000:11:00.0", "cuda0", 0, 0, 32);
    d[3] = dev (SLOTS_NIC, "0000:42:00.0", "ib1", 1, 1, 32);
    s = choose (d, 4, &e);
    ok (s && s->nslots == 2 && strcmp (s->gpu[s->slot[0].gpu].name, "cuda0") == 0 &&
            strcmp (nic_of (s, 0, 0), "ib0") == 0 && strcmp (nic_of (s, 1, 0), "ib1") == 0 &&
            s->slot[0].nnics == 1 && s->slot[0].near == SLOTS_NEAR_SWITCH,
        "two GPUs in PCI order, each with the NIC under its switch: %s", e.text);
    ok (s && s->slot[0].ncpus == 8 && s->slot[0].cpu[0] == 0 && s->slot[1].cpu[0] == 8 &&
            every_nic_disjoint (s),
        "each slot has its package's 8 CPUs");
    slots_free (s);

    /* four GPUs and two NICs, all on one package, no switch shared */
    d[0] = dev (SLOTS_GPU, "0000:01:00.0", "cuda0", 0, -1, 32);
    d[1] = dev (SLOTS_GPU, "0000:02:00.0", "cuda1", 0, -1, 32);
    d[2] = dev (SLOTS_GPU, "0000:03:00.0", "cuda2", 0, -1, 32);
    d[3] = dev (SLOTS_GPU, "0000:04:00.0", "cuda3", 0, -1, 32);
    d[4] = dev (SLOTS_NIC, "0000:05:00.0", "ib0", 0, -1, 16);
    d[5] = dev (SLOTS_NIC, "0000:05:00.1", "ib1", 0, -1, 16);
    s = choose (d, 6, &e);
    ok (s && s->nslots == 4 && strcmp (nic_of (s, 0, 0), "ib0") == 0 &&
            strcmp (nic_of (s, 1, 0), "ib1") == 0 && strcmp (nic_of (s, 2, 0), "ib0") == 0 &&
            strcmp (nic_of (s, 3, 0), "ib1") == 0 && s->slot[2].near == SLOTS_NEAR_PACKAGE,
        "equally near NICs round robin: ib0 ib1 ib0 ib1 (%s %s %s %s)", nic_of (s, 0, 0),
        nic_of (s, 1, 0), nic_of (s, 2, 0), nic_of (s, 3, 0));
    ok (s && s->slot[0].ncpus == 2 && s->slot[0].cpu[0] == 0 && s->slot[3].cpu[1] == 7 &&
            every_nic_disjoint (s),
        "four slots near one package share its cores two each");
    slots_free (s);

    /* one GPU, two NICs under its switch, a third NIC far away */
    d[0] = dev (SLOTS_GPU, "0000:01:00.0", "cuda0", 0, 0, 32);
    d[1] = dev (SLOTS_NIC, "0000:02:00.0", "ib0", 0, 0, 32);
    d[2] = dev (SLOTS_NIC, "0000:03:00.0", "ib1", 0, 0, 32);
    d[3] = dev (SLOTS_NIC, "0000:81:00.0", "ib2", 1, 5, 32);
    s = choose (d, 4, &e);
    ok (s && s->nslots == 1 && s->slot[0].nnics == 2 && strcmp (nic_of (s, 0, 1), "ib1") == 0 &&
            s->slot[0].near == SLOTS_NEAR_SWITCH &&
            strstr (s->note, "ib2 (0000:81:00.0) serves no GPU: none is as near it as to its own"),
        "a lone GPU takes both NICs under its switch, not the other package's: %s",
        s ? s->note : e.text);
    slots_free (s);
    d[3] = dev (SLOTS_GPU, "0000:81:00.0", "cuda1", 1, 5, 32);
    s = choose (d, 4, &e);
    ok (s && s->nslots == 2 && s->slot[0].nnics == 1 && strcmp (nic_of (s, 0, 0), "ib0") == 0 &&
            s->slot[0].near == SLOTS_NEAR_SWITCH && s->slot[1].nnics == 1 &&
            strcmp (nic_of (s, 1, 0), "ib1") == 0 && s->slot[1].near == SLOTS_NEAR_MACHINE &&
            s->note[0] == '\0',
        "a GPU with no NIC near takes the spare one under the other's switch (%s)",
        nic_of (s, 1, 0));
    slots_free (s);

    /* a management port on a slow link serves no slot */
    d[0] = dev (SLOTS_GPU, "0000:01:00.0", "cuda0", 0, 0, 32);
    d[1] = dev (SLOTS_NIC, "0000:02:00.0", "ib0", 0, 0, 32);
    d[2] = dev (SLOTS_NIC, "0000:f0:00.0", "eno1", 0, 0, 0.25);
    s = choose (d, 3, &e);
    ok (s && s->nnics == 1 && s->slot[0].nnics == 1 && strstr (s->note, "eno1 (0000:f0:00.0)") &&
            strstr (s->note, "0.25 GB/s"),
        "a NIC on a 0.25 GB/s link is left out: %s", s ? s->note : e.text);
    slots_free (s);

    /* no GPU: no slot, said */
    s = choose (d + 1, 2, &e);
    ok (s && s->nslots == 0 && strcmp (s->note, "no GPU") == 0, "no GPU, no slot: %s",
        s ? s->note : e.text);
    slots_free (s);

    /* bad input */
    d[2] = dev (SLOTS_NIC, "0000:02:00.0", "ib9", 0, 0, 32);
    errno = 0;
    ok (!choose (d, 3, &e) && errno == EINVAL && strstr (e.text, "0000:02:00.0: two devices"),
        "a bus id given twice: %s", e.text);
    d[2] = dev (SLOTS_NIC, "0000:03:00.0", "ib9", 0, 0, 32);
    d[2].depth = SLOTS_MAX_DEPTH + 1;
    ok (!choose (d, 3, &e) && strstr (e.text, "0000:03:00.0: a path of 65"), "a path too deep: %s",
        e.text);
    {
        slots_node_t node = {16, cpu16, core16, SLOTS_MAX_DEVICES + 1, d};

        ok (!slots_choose (&node, &e) && strstr (e.text, "at most 256"), "too many devices: %s",
            e.text);
    }
}

/* Every slot's CPUs are near its GPU as hwloc says (the first object
 * above it that is not I/O). */
static bool cpus_near_gpu (const char *xml, const slots_t *s)
{
    hwloc_topology_t t;
    bool good = true;

    if (hwloc_topology_init (&t) < 0)
        return false;
    hwloc_topology_set_io_types_filter (t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_set_xml (t, xml) < 0 || hwloc_topology_load (t) < 0) {
        hwloc_topology_destroy (t);
        return false;
    }
    for (int k = 0; k < s->nslots && good; k++) {
        hwloc_obj_t pci = hwloc_get_pcidev_by_busidstring (t, s->gpu[s->slot[k].gpu].busid);
        hwloc_obj_t up = pci ? hwloc_get_non_io_ancestor_obj (t, pci) : NULL;

        good = up && s->slot[k].ncpus > 0;
        for (int c = 0; good && c < s->slot[k].ncpus; c++)
            good = hwloc_bitmap_isset (up->cpuset, (unsigned)s->slot[k].cpu[c]);
    }
    hwloc_topology_destroy (t);
    return good;
}

static slots_t *read_fixture (const char *name, char *path, size_t size, tm_error_t *e)
{
    snprintf (path, size, "%s%s", FIX, name);
    return slots_hw_read (path, e);
}

/* A copy of fixture name at out with every from[k] replaced by to[k]. */
static bool variant (const char *name, const char *out, int n, const char *const *from,
                     const char *const *to)
{
    char path[4096], *text = NULL;
    size_t len = 0;
    FILE *f;
    bool good;

    snprintf (path, sizeof (path), "%s%s", FIX, name);
    if (!(f = fopen (path, "r")))
        return false;
    good = getdelim (&text, &len, '\0', f) > 0;
    fclose (f);
    for (int k = 0; good && k < n; k++) {
        char *at;

        while ((at = strstr (text, from[k]))) {
            size_t a = (size_t)(at - text), lf = strlen (from[k]), lt = strlen (to[k]);
            char *t = malloc (strlen (text) - lf + lt + 1);

            if (!t) {
                good = false;
                break;
            }
            memcpy (t, text, a);
            strcpy (t + a, to[k]);
            strcat (t, at + lf);
            free (text);
            text = t;
        }
    }
    if (good && (f = fopen (out, "w"))) {
        good = fputs (text, f) >= 0;
        good &= fclose (f) == 0;
    } else
        good = false;
    free (text);
    return good;
}

/* What hwloc builds without CUDA, NVML or RSMI (Debian's): GPUs with DRM
 * devices only; names a task's environment cannot take; more devices
 * than a node's slots hold. */
static void test_hwloc_edges (void)
{
    char dir[] = "/tmp/slots-test.XXXXXX", out[4200];
    tm_error_t e = {""};
    slots_t *s;

    if (!mkdtemp (dir)) {
        ok (0, "a temporary directory: %s", strerror (errno));
        return;
    }
    snprintf (out, sizeof (out), "%s/drm.xml", dir);
    {
        static const char *const from[] = {"name=\"cuda", "name=\"nvml", "0302 [10de:2330]"};
        static const char *const to[] = {"name=\"card", "name=\"card", "0300 [10de:2330]"};

        s = variant ("dgx-h100-like.xml", out, 2, from, to) ? slots_hw_read (out, &e) : NULL;
        ok (s && s->nslots == 8 && strcmp (s->gpu[0].name, "card0") == 0 &&
                strcmp (nic_of (s, 7, 0), "mlx5_7") == 0,
            "3-D controllers with DRM devices only are GPUs, named by their first (%s)",
            s ? s->gpu[0].name : e.text);
        slots_free (s);
        s = variant ("dgx-h100-like.xml", out, 3, from, to) ? slots_hw_read (out, &e) : NULL;
        ok (s && s->nslots == 0 && strcmp (s->note, "no GPU") == 0,
            "VGA controllers with DRM devices only (a BMC's graphics) are not (%s)",
            s ? s->note : e.text);
        slots_free (s);
    }
    {
        static const char *const from[] = {"name=\"ibp19s0\"", "name=\"mlx5_1\""};
        static const char *const to[] = {"name=\"ib+19\"", "name=\"mlx5_1 $(id)\""};

        s = variant ("dgx-h100-like.xml", out, 2, from, to) ? slots_hw_read (out, &e) : NULL;
        ok (s && s->nslots == 8 && strcmp (nic_of (s, 0, 0), "mlx5_0") == 0 &&
                s->nic[s->slot[0].nic[0]].netdev[0] == '\0' &&
                strcmp (nic_of (s, 1, 0), "ibp35s0") == 0 &&
                s->nic[s->slot[1].nic[0]].name[0] == '\0',
            "a name a task's environment cannot take is dropped, the NIC kept by its other (%s, "
            "%s)",
            nic_of (s, 0, 0), s ? nic_of (s, 1, 0) : e.text);
        slots_free (s);
    }
    {
        FILE *f;

        snprintf (out, sizeof (out), "%s/many.xml", dir);
        if ((f = fopen (out, "w"))) {
            fputs ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM "
                   "\"hwloc2.dtd\">\n<topology version=\"2.0\">\n<object type=\"Machine\" "
                   "os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" "
                   "allowed_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" "
                   "allowed_nodeset=\"0x1\" gp_index=\"1\">\n<object type=\"NUMANode\" "
                   "os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" "
                   "complete_nodeset=\"0x1\" gp_index=\"2\" local_memory=\"1073741824\"/>\n"
                   "<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" "
                   "nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"3\"/>\n"
                   "<object type=\"Bridge\" gp_index=\"4\" bridge_type=\"0-1\" depth=\"0\" "
                   "bridge_pci=\"0000:[01-ff]\">\n",
                   f);
            for (int k = 0; k < 300; k++)
                fprintf (f,
                         "<object type=\"PCIDev\" gp_index=\"%d\" pci_busid=\"0000:%02x:%02x.%d\" "
                         "pci_type=\"0200 [15b3:101e] [0000:0000] 00\">\n<object type=\"OSDev\" "
                         "gp_index=\"%d\" name=\"eth%d\" osdev_type=\"2\"/>\n</object>\n",
                         10 + 2 * k, 1 + k / 32, k % 32, 0, 11 + 2 * k, k);
            fputs ("</object>\n</object>\n</topology>\n", f);
            fclose (f);
        }
        s = slots_hw_read (out, &e);
        ok (!s && strstr (e.text, "many.xml: more than 256 GPUs and NICs"),
            "300 NICs are more than a node's slots hold: %s", e.text);
        slots_free (s);
    }
    unlink (out);
    snprintf (out, sizeof (out), "%s/drm.xml", dir);
    unlink (out);
    rmdir (dir);
}

static void test_fixtures (void)
{
    char xml[4096], names[512];
    tm_error_t e = {""};
    slots_t *s;
    bool good;

    s = read_fixture ("dgx-h100-like.xml", xml, sizeof (xml), &e);
    good = s && s->nslots == 8 && s->nnics == 8;
    for (int k = 0; good && k < 8; k++) {
        char gpu[16], nic[16];

        snprintf (gpu, sizeof (gpu), "cuda%d", k);
        snprintf (nic, sizeof (nic), "mlx5_%d", k);
        good = strcmp (s->gpu[s->slot[k].gpu].name, gpu) == 0 && s->slot[k].nnics == 1 &&
               strcmp (nic_of (s, k, 0), nic) == 0 && s->slot[k].near == SLOTS_NEAR_SWITCH &&
               s->slot[k].ncpus == 2;
    }
    ok (good && every_nic_disjoint (s) && cpus_near_gpu (xml, s),
        "DGX-H100-like: slot k is cuda k with mlx5_k under its switch and 2 cores of its "
        "package (%s)",
        e.text);
    ok (s && strstr (s->note, "eno1 (0000:f0:00.0) left out: a 0.25 GB/s PCIe link against 63"),
        "its 1 GbE port is not the job's: %s", s ? s->note : e.text);
    slots_free (s);

    s = read_fixture ("dgx-h100-miscabled.xml", xml, sizeof (xml), &e);
    ok (s && s->nslots == 8 && s->nnics == 8 && strcmp (nic_of (s, 2, 0), "mlx5_2") == 0 &&
            s->slot[2].near == SLOTS_NEAR_SWITCH && strcmp (nic_of (s, 3, 0), "mlx5_3") == 0 &&
            s->slot[3].near == SLOTS_NEAR_PACKAGE && s->slot[3].nnics == 1 &&
            strcmp (nic_of (s, 4, 0), "mlx5_4") == 0 && every_nic_disjoint (s) &&
            cpus_near_gpu (xml, s),
        "mis-cabled: cuda3, with no NIC near, takes its package's spare mlx5_3 (%s, %s)",
        nic_of (s, 3, 0), e.text);
    slots_free (s);

    s = read_fixture ("coral-lassen.xml", xml, sizeof (xml), &e);
    good = s && s->nslots == 4 && s->nnics == 4;
    for (int k = 0; good && k < 4; k++) {
        char gpu[16], nic[16];

        snprintf (gpu, sizeof (gpu), "cuda%d", k);
        snprintf (nic, sizeof (nic), "mlx5_%d", k);
        good = strcmp (s->gpu[s->slot[k].gpu].name, gpu) == 0 &&
               strcmp (nic_of (s, k, 0), nic) == 0 && s->slot[k].near == SLOTS_NEAR_PACKAGE;
    }
    ok (good && every_nic_disjoint (s) && cpus_near_gpu (xml, s) &&
            strstr (s->note, "enP5p1s0f0") && strstr (s->note, "enP5p1s0f1"),
        "Lassen: cuda k with mlx5_k of its socket, its Broadcom ports left out (%s)",
        s ? s->note : e.text);
    slots_free (s);

    s = read_fixture ("eas-tioga.xml", xml, sizeof (xml), &e);
    good = s && s->nslots == 8 && s->nnics == 4;
    names[0] = '\0';
    for (int k = 0; good && k < 8; k++) {
        /* rsmi k, in PCI order; the odd ones share a host bridge with hsi k/2 */
        char gpu[16], nic[16];

        snprintf (gpu, sizeof (gpu), "rsmi%d", k);
        snprintf (nic, sizeof (nic), "hsi%d", k / 2);
        good = strcmp (s->gpu[s->slot[k].gpu].name, gpu) == 0 && s->slot[k].nnics == 1 &&
               strcmp (nic_of (s, k, 0), nic) == 0 &&
               s->slot[k].near == (k % 2 ? SLOTS_NEAR_SWITCH : SLOTS_NEAR_PACKAGE);
        snprintf (names + strlen (names), sizeof (names) - strlen (names), " %s", nic_of (s, k, 0));
    }
    ok (good && every_nic_disjoint (s) && cpus_near_gpu (xml, s) && strstr (s->note, "ens2"),
        "Tioga: each NUMA group's two GCDs share its Slingshot NIC:%s; ens2 left out", names);
    slots_free (s);

    s = read_fixture ("nvidiaDGX2.xml", xml, sizeof (xml), &e);
    good = s && s->nslots == 16 && s->nnics == 0;
    for (int k = 0; good && k < 16; k++)
        good = s->slot[k].nnics == 0 && s->slot[k].near == SLOTS_NEAR_NONE;
    ok (good && cpus_near_gpu (xml, s), "DGX-2: 16 GPU slots without NIC, CPUs near each (%s)",
        e.text);
    slots_free (s);

    errno = 0;
    s = read_fixture ("no-such.xml", xml, sizeof (xml), &e);
    ok (!s && strstr (e.text, "no-such.xml"), "a missing export is named: %s", e.text);
}

/* Ranks' NICs by rail (railmap.c) on 4 nodes of a fixture, ppn ranks
 * each: local rank i of node n sends to local rank (i + 1) % ppn of node
 * n + 1, each partner across nodes at another local rank than its own.
 * Whether partners all share a rail, every node's ranks are on distinct
 * GPUs (as many as it has), use as many of its NICs as they can, as
 * evenly as they can, and lie on the CPUs near their GPU (the slot's).
 */
static bool railmap_fixture (const slots_t *s, int ppn, char *why, size_t len)
{
    enum { NODES = 4 };
    int n = NODES * ppn, node[NODES * 8], np = 0;
    profile_entry_t t[NODES * 8];
    slots_t *const sl[NODES] = {(slots_t *)s, (slots_t *)s, (slots_t *)s, (slots_t *)s};
    const char *hosts[NODES] = {"n1", "n2", "n3", "n4"};
    profile_t *p;
    railmap_t m;
    tm_error_t e;
    bool good;

    for (int r = 0; r < n; r++) {
        node[r] = r / ppn;
        if (r / ppn < NODES - 1)
            t[np++] = (profile_entry_t){.src = r,
                                        .dst = (r / ppn + 1) * ppn + (r % ppn + 1) % ppn,
                                        .msgs = 1,
                                        .bytes = 1000};
    }
    if (!(p = profile_create (n, (size_t)np, t, &e)) ||
        railmap_choose (p, node, NODES, sl, hosts, &m, why, len, &e) != 0) {
        if (!p)
            snprintf (why, len, "%s", e.text);
        profile_destroy (p);
        return false;
    }
    good = m.cross_bytes == 0 && (ppn == 1) == (m.default_bytes == 0);
    for (int h = 0; good && h < NODES; h++) {
        int used[SLOTS_MAX_DEVICES] = {0}, gpus = 0, nics = 0, lo = n, hi = 0;

        for (int r = h * ppn; r < (h + 1) * ppn; r++) {
            gpus += used[m.slot[r]]++ == 0;
            good &= s->slot[m.slot[r]].ncpus > 0;
        }
        good &= gpus == (ppn < s->nslots ? ppn : s->nslots);
        for (int j = 0; j < s->nnics; j++) {
            int c = 0;

            for (int r = h * ppn; r < (h + 1) * ppn; r++)
                c += s->slot[m.slot[r]].nic[0] == j;
            nics += c > 0;
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
        }
        good &= nics == (ppn < s->nnics ? ppn : s->nnics) && hi - lo <= 1;
    }
    snprintf (why, len, "%llu of %llu bytes between nodes crossing rails, %llu in Slurm's order",
              (unsigned long long)m.cross_bytes, (unsigned long long)m.node_bytes,
              (unsigned long long)m.default_bytes);
    railmap_free (&m);
    profile_destroy (p);
    return good;
}

static void test_railmap_fixtures (void)
{
    static const char *const fixtures[] = {"eas-tioga.xml",     "coral-lassen.xml",
                                           "dgx-h100-like.xml", "dgx-h100-miscabled.xml",
                                           "rail-2.xml",        "rail-4.xml"};
    char xml[4096], why[256];
    tm_error_t e = {""};

    for (size_t f = 0; f < sizeof (fixtures) / sizeof (fixtures[0]); f++) {
        slots_t *s = read_fixture (fixtures[f], xml, sizeof (xml), &e);

        for (int ppn = 1; ppn <= 8; ppn *= 2) {
            why[0] = '\0';
            ok (s && railmap_fixture (s, ppn, why, sizeof (why)),
                "%s, %d ranks a node: partners on one rail, distinct GPUs, every NIC its share "
                "(%s)",
                fixtures[f], ppn, s ? why : e.text);
        }
        slots_free (s);
    }
    slots_t *s = read_fixture ("nvidiaDGX2.xml", xml, sizeof (xml), &e);

    ok (s && !railmap_fixture (s, 2, why, sizeof (why)) &&
            !strcmp (why, "n1 has no NIC near a GPU"),
        "DGX-2 (no NIC): no choice, saying why: %s", why);
    slots_free (s);
}

int main (void)
{
    plan (NO_PLAN);
    node16_init ();
    test_choose ();
    test_fixtures ();
    test_hwloc_edges ();
    test_railmap_fixtures ();
    return done_testing ();
}
