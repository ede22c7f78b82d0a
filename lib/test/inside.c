/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the inside of a node (inside.c) and the mapper's inside
 * pass (mapper_inside.c).
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/inside.h"
#include "lib/inside_hwloc.h"
#include "lib/mapper.h"
#include "lib/test/tap.h"

/* 2 packages x 2 L3 domains x 4 CPUs, numbered in order: CPUs 0-3 one
 * domain, 4-7 the next (package 0), 8-11, 12-15 (package 1).  Figures
 * 2-3 times apart, as on current two-socket nodes.
 */
static inside_t *node16 (void)
{
    int cpu[16], dom[16], pkg[16];
    inside_t *in;

    for (int k = 0; k < 16; k++) {
        cpu[k] = k;
        dom[k] = 100 + k / 4;
        pkg[k] = 7 - k / 8;
    }
    if (!(in = inside_create (16, cpu, dom, pkg, NULL)))
        return NULL;
    in->lat_us[INSIDE_L3] = 0.2;
    in->lat_us[INSIDE_PACKAGE] = 0.4;
    in->lat_us[INSIDE_MACHINE] = 0.6;
    in->bw_MBps[INSIDE_L3] = 20000;
    in->bw_MBps[INSIDE_PACKAGE] = 10000;
    in->bw_MBps[INSIDE_MACHINE] = 7000;
    return in;
}

/* A 5-point halo exchange on a px x py grid, ranks row by row. */
static profile_t *stencil (int px, int py)
{
    int n = px * py, nt = 0;
    profile_entry_t *t = malloc ((size_t)n * 4 * sizeof (*t));
    profile_t *p;

    if (!t)
        return NULL;
    for (int r = 0; r < n; r++) {
        int x = r % px, y = r / px;
        int nb[4] = {x > 0 ? r - 1 : -1, x < px - 1 ? r + 1 : -1, y > 0 ? r - px : -1,
                     y < py - 1 ? r + px : -1};

        for (int k = 0; k < 4; k++)
            if (nb[k] >= 0)
                t[nt++] = (profile_entry_t){r, nb[k], 100, 1 << 20};
    }
    p = profile_create (n, (size_t)nt, t, NULL);
    free (t);
    return p;
}

/* The in-node cost of binding, priced here pair by pair from the levels:
 * what map_inside must report.
 */
static double price (const profile_t *p, const int *node, const inside_t *in, const int *cpus,
                     int cpt)
{
    int n = p->ntasks, *lid = calloc ((size_t)n, sizeof (int)),
        *cnt = calloc ((size_t)n, sizeof (int));
    double cost = 0;

    for (int i = 0; i < n; i++)
        lid[i] = cnt[node[i]]++;
    for (int i = 0; i < n; i++)
        for (size_t e = p->row[i]; e < p->row[i + 1]; e++) {
            int j = p->entries[e].dst, a = -1, b = -1;
            inside_level_t l;

            if (j == i || node[j] != node[i])
                continue;
            for (int k = 0; k < in->ncpus; k++) {
                if (in->cpu[k] == cpus[lid[i] * cpt])
                    a = k;
                if (in->cpu[k] == cpus[lid[j] * cpt])
                    b = k;
            }
            l = inside_level (in, a, b);
            cost += (double)p->entries[e].msgs * in->lat_us[l] * 1e-6 +
                    (double)p->entries[e].bytes / (in->bw_MBps[l] * 1e6);
        }
    free (lid);
    free (cnt);
    return cost;
}

/* Every local id bound to cpt CPUs of one domain of in, no CPU twice, the
 * same CPUs as block's.
 */
static int binding_ok (const map_inside_t *b, const inside_t *in)
{
    int m = b->nlocal * b->cpt, *used = calloc ((size_t)in->ncpus, sizeof (int)), rc = 1;

    for (int k = 0; k < m; k++) {
        int at = -1, first = -1;

        for (int c = 0; c < in->ncpus; c++) {
            if (in->cpu[c] == b->cpus[k])
                at = c;
            if (in->cpu[c] == b->cpus[k - k % b->cpt])
                first = c;
        }
        if (at < 0 || used[at]++ || in->l3[at] != in->l3[first])
            rc = 0;
    }
    for (int k = 0; k < m; k++) {
        int at = -1;

        for (int c = 0; c < in->ncpus; c++)
            if (in->cpu[c] == b->block[k])
                at = c;
        if (at < 0 || used[at]-- != 1)
            rc = 0;
    }
    free (used);
    return rc;
}

static void test_create (void)
{
    static const int cpu[] = {9, 1, 8, 0}, dom[] = {3, 5, 3, 5}, pkg[] = {4, 2, 4, 2};
    static const int two[] = {0, 1}, same[] = {0, 0}, twopkg[] = {0, 1};
    inside_t *in = inside_create (4, cpu, dom, pkg, NULL), *c;
    tm_error_t e = {""};

    ok (in && in->ncpus == 4 && in->cpu[0] == 0 && in->cpu[3] == 9 && in->nl3 == 2 &&
            in->l3[0] == 0 && in->l3[1] == 0 && in->l3[2] == 1 && in->l3[3] == 1 &&
            in->npackages == 2 && in->package[0] == 0 && in->package[1] == 1 &&
            isnan (in->lat_us[0]) && isnan (in->bw_MBps[2]),
        "inside_create sorts the CPUs and numbers domains and packages by first CPU");
    ok (in && inside_check (in, "n", &e) == 0, "what inside_create makes passes inside_check (%s)",
        e.text);
    ok (in && inside_level (in, 0, 1) == INSIDE_L3 && inside_level (in, 1, 2) == INSIDE_MACHINE &&
            inside_nlevels (in) == 3,
        "inside_level: one domain, two packages");
    c = in ? inside_copy (in, NULL) : NULL;
    ok (c && inside_same_shape (in, c), "inside_copy keeps the shape");
    if (c) {
        c->cpu[3] = 10;
        ok (!inside_same_shape (in, c), "another CPU is another shape");
    }
    inside_destroy (c);
    inside_destroy (in);

    {
        /* CPUs 0-7: domains {0,2,4,6} {1,3,5,7} in packages 0 and 1; 8-9
         * a domain of package 0 */
        int c10[10], d10[10], p10[10], a = -1, b = -1;

        for (int k = 0; k < 10; k++) {
            c10[k] = k;
            d10[k] = k < 8 ? k % 2 : 2;
            p10[k] = k < 8 ? k % 2 : 0;
        }
        int rc;

        in = inside_create (10, c10, d10, p10, NULL);
        rc = in ? inside_level_pair (in, INSIDE_L3, &a, &b) : -1;
        ok (rc == 0 && a == 0 && b == 2, "inside_level_pair: one L3 domain: CPUs 0 and 2 (%d, %d)",
            a, b);
        rc = in ? inside_level_pair (in, INSIDE_PACKAGE, &a, &b) : -1;
        ok (rc == 0 && a == 0 && b == 8, "one package, two domains: CPUs 0 and 8 (%d, %d)", a, b);
        rc = in ? inside_level_pair (in, INSIDE_MACHINE, &a, &b) : -1;
        ok (rc == 0 && a == 0 && b == 1, "two packages: CPUs 0 and 1 (%d, %d)", a, b);
        inside_destroy (in);
        in = inside_create (2, two, two, two, NULL);
        ok (in && inside_level_pair (in, INSIDE_L3, &a, &b) < 0 &&
                inside_level_pair (in, INSIDE_PACKAGE, &a, &b) < 0 &&
                inside_level_pair (in, INSIDE_MACHINE, &a, &b) == 0,
            "2 CPUs in 2 packages: the machine level only");
        inside_destroy (in);
    }

    ok (!inside_create (2, same, two, two, &e) && errno == EINVAL && strstr (e.text, "CPU 0 twice"),
        "a CPU twice is refused: %s", e.text);
    ok (!inside_create (2, two, same, twopkg, &e) &&
            strstr (e.text, "CPU 1: its L3 domain is in two packages"),
        "a domain in two packages is refused: %s", e.text);
    ok (!inside_create (0, two, two, two, &e) && strstr (e.text, "0 CPUs, expected 1 to 65536"),
        "no CPU is refused: %s", e.text);
    {
        static const int neg[] = {-1, 0};
        ok (!inside_create (2, neg, two, two, &e) && strstr (e.text, "CPU -1: a negative OS index"),
            "a negative OS index is refused: %s", e.text);
    }
    in = inside_create (2, two, same, same, NULL);
    ok (in && inside_nlevels (in) == 1, "one domain: one level");
    if (in) {
        in->bw_MBps[1] = -3;
        ok (inside_check (in, "node n7", &e) < 0 &&
                strstr (e.text, "node n7: level package: latency nan us, bandwidth -3 MB/s"),
            "inside_check refuses a negative bandwidth: %s", e.text);
    }
    inside_destroy (in);
}

/* A 4 x 4 stencil on one node of 16 CPUs: block binds a row to a domain
 * (12 of 24 neighbour pairs cross domains), the plan a 2 x 2 square (8).
 */
static void test_stencil_one_node (void)
{
    inside_t *in = node16 ();
    profile_t *p = stencil (4, 4);
    int node[16] = {0};
    map_inside_t b;
    tm_error_t e = {""};
    int rc = in && p ? map_inside (p, node, in, 1, NULL, &b, &e) : -1;

    ok (rc == 0, "map_inside plans a 4 x 4 stencil on one node (%s)", e.text);
    if (rc == 0) {
        double want = price (p, node, in, b.cpus, 1), blk = price (p, node, in, b.block, 1);

        ok (b.nlocal == 16 && b.cpt == 1 && binding_ok (&b, in),
            "every rank on a CPU of its own, block's CPUs");
        ok (b.changed && b.cost_s < b.block_s, "the plan binds otherwise and costs less: %g < %g",
            b.cost_s, b.block_s);
        ok (fabs (b.cost_s - want) <= 1e-12 * want && fabs (b.block_s - blk) <= 1e-12 * blk,
            "its costs are the pairs' figures by level: %.9g = %.9g, %.9g = %.9g", b.cost_s, want,
            b.block_s, blk);
        ok (b.cost_s <= 0.9 * b.block_s, "the plan saves at least 10 %%: %.3f of block",
            b.cost_s / b.block_s);
        for (int k = 0; k < 16; k++)
            ok (b.block[k] == k, "block binds local id %d to CPU %d", k, k);
        {
            /* Slurm's own: local ids to the packages in turn, CPUs 0, 8,
             * 1, 9, ...: every row's neighbours on two packages */
            int cyc[16];
            double want_cyc;

            for (int k = 0; k < 16; k++)
                cyc[k] = k % 2 * 8 + k / 2;
            want_cyc = price (p, node, in, cyc, 1);
            ok (fabs (b.cyclic_s - want_cyc) <= 1e-12 * want_cyc && b.cyclic_s > b.block_s,
                "Slurm's own binding deals neighbours to both packages: %.9g = %.9g, above "
                "block's %.9g",
                b.cyclic_s, want_cyc, b.block_s);
        }
        map_inside_free (&b);
    }
    profile_destroy (p);
    inside_destroy (in);
}

/* Two nodes with ranks interleaved by the node pass: the local ids'
 * traffic is summed over both, and one list serves both.
 */
static void test_two_nodes (void)
{
    inside_t *in = node16 ();
    profile_t *p = stencil (8, 4);
    int node[32];
    map_inside_t b;
    tm_error_t e = {""};
    int rc;

    /* columns 0-3 on node 5, 4-7 on node 2: each node a 4 x 4 block */
    for (int r = 0; r < 32; r++)
        node[r] = r % 8 < 4 ? 5 : 2;
    rc = in && p ? map_inside (p, node, in, 1, NULL, &b, &e) : -1;
    ok (rc == 0 && b.nlocal == 16 && binding_ok (&b, in), "two nodes: one binding (%s)", e.text);
    if (rc == 0) {
        double want = price (p, node, in, b.cpus, 1);

        ok (fabs (b.cost_s - want) <= 1e-12 * want && b.cost_s < b.block_s,
            "priced over both nodes: %.9g = %.9g, below block's %.9g", b.cost_s, want, b.block_s);
        map_inside_free (&b);
    }
    profile_destroy (p);
    inside_destroy (in);
}

static void test_faults (void)
{
    inside_t *in = node16 ();
    profile_t *p = stencil (6, 3), *q = stencil (2, 4);
    int node[18] = {0};
    map_inside_t b;
    tm_error_t e = {""};

    ok (in && p && map_inside (p, node, in, 1, NULL, &b, &e) < 0 && errno == EINVAL &&
            strstr (e.text, "18 ranks on a node, but its 16 CPUs make 16 of 1 CPUs in one L3"),
        "more ranks on a node than units: %s", e.text);
    ok (in && p && map_inside (p, node, in, 3, NULL, &b, &e) < 0 &&
            strstr (e.text, "its 16 CPUs make 4 of 3 CPUs"),
        "3 CPUs a task: a domain of 4 makes one unit: %s", e.text);
    if (in)
        in->lat_us[INSIDE_MACHINE] = NAN;
    ok (in && q && map_inside (q, node, in, 1, NULL, &b, &e) == 0 && !b.changed,
        "8 ranks in one package: the farthest level not needed (%s)", e.text);
    map_inside_free (&b);
    ok (in && q && map_inside (q, node, in, 2, NULL, &b, &e) < 0 && errno == ENODATA &&
            strstr (e.text, "the figures between two CPUs of two packages were not measured"),
        "8 ranks of 2 CPUs span the packages, whose figures are missing: %s", e.text);
    profile_destroy (p);
    profile_destroy (q);
    inside_destroy (in);
}

/* Tasks of 2 CPUs; a machine numbering packages' CPUs alternately. */
static void test_units (void)
{
    int cpu[16], dom[16], pkg[16], node[8] = {0};
    inside_t *in;
    profile_t *p = stencil (4, 2);
    map_inside_t b;
    tm_error_t e = {""};

    for (int k = 0; k < 16; k++) {
        cpu[k] = k;
        pkg[k] = k % 2;               /* even CPUs package 0 */
        dom[k] = k % 2 + 2 * (k / 8); /* {0,2,4,6} {1,3,5,7} {8,10,..} {9,11,..} */
    }
    in = inside_create (16, cpu, dom, pkg, NULL);
    if (in) {
        for (int l = 0; l < INSIDE_LEVELS; l++) {
            in->lat_us[l] = 0.2 * (l + 1);
            in->bw_MBps[l] = 20000.0 / (l + 1);
        }
    }
    ok (in && p && map_inside (p, node, in, 2, NULL, &b, &e) == 0 && b.cpt == 2 && b.nlocal == 8 &&
            binding_ok (&b, in),
        "tasks of 2 CPUs each take 2 CPUs of one domain (%s)", e.text);
    if (in && p && b.cpus) {
        /* block: units by first CPU: {0,2} {1,3} {4,6} {5,7} ... */
        ok (b.block[0] == 0 && b.block[1] == 2 && b.block[2] == 1 && b.block[3] == 3 &&
                b.block[4] == 4 && b.block[5] == 6,
            "block takes units in the order of their first CPU: %d,%d %d,%d %d,%d", b.block[0],
            b.block[1], b.block[2], b.block[3], b.block[4], b.block[5]);
        ok (fabs (b.cost_s - price (p, node, in, b.cpus, 2)) <= 1e-12 * b.cost_s &&
                b.cost_s <= b.block_s,
            "priced by each task's first CPU, never above block: %.9g <= %.9g", b.cost_s,
            b.block_s);
    }
    map_inside_free (&b);
    profile_destroy (p);
    inside_destroy (in);
}

/* No traffic inside the nodes: block, at no cost. */
static void test_no_traffic (void)
{
    inside_t *in = node16 ();
    profile_t *p = stencil (4, 1);
    int node[4] = {0, 1, 2, 3};
    map_inside_t b;

    ok (in && p && map_inside (p, node, in, 1, NULL, &b, NULL) == 0 && b.nlocal == 1 &&
            !b.changed && b.cost_s == 0 && b.cpus[0] == 0,
        "one rank a node: block, cost 0");
    map_inside_free (&b);
    profile_destroy (p);
    inside_destroy (in);
}

/* hwloc's reading of synthetic machines (HWLOC_SYNTHETIC), and binding
 * this process on this machine's first two CPUs. */
static void test_hwloc (void)
{
    inside_hw_t *hw;
    inside_t *in = NULL;
    tm_error_t e = {""};
    cpu_set_t set;

    setenv ("HWLOC_SYNTHETIC", "pack:2 l3:2 core:2 pu:1", 1);
    hw = inside_hw_open (&e);
    if (hw)
        in = inside_hw_read (hw, &e);
    ok (in && in->ncpus == 8 && in->nl3 == 4 && in->npackages == 2 && in->cpu[7] == 7 &&
            in->l3[1] == 0 && in->l3[2] == 1 && in->package[1] == 0 && in->package[2] == 1,
        "hwloc: 2 packages of 2 L3 domains of 2 cores (%s)", e.text);
    ok (hw && inside_hw_bind (hw, 1, &e) < 0 && strstr (e.text, "binding is not known"),
        "a described machine does not bind this one: %s", e.text);
    inside_hw_close (hw);
    inside_destroy (in);
    in = NULL;

    setenv ("HWLOC_SYNTHETIC", "pack:2 core:2 pu:2", 1);
    hw = inside_hw_open (&e);
    if (hw)
        in = inside_hw_read (hw, &e);
    ok (in && in->ncpus == 8 && in->nl3 == 4 && in->npackages == 2 && in->l3[0] == in->l3[1] &&
            in->l3[1] != in->l3[2],
        "no L3 cache: each core is a domain of its 2 hardware threads (%s)", e.text);
    inside_hw_close (hw);
    inside_destroy (in);
    in = NULL;

    setenv ("HWLOC_SYNTHETIC", "pack:2 core:1 pu:1", 1);
    setenv ("HWLOC_THISSYSTEM", "1", 1);
    hw = inside_hw_open (&e);
    if (hw)
        in = inside_hw_read (hw, &e);
    ok (in && in->ncpus == 2 && in->npackages == 2, "2 CPUs in 2 packages (%s)", e.text);
    ok (hw && inside_hw_bind (hw, 1, &e) == 0 && sched_getaffinity (0, sizeof (set), &set) == 0 &&
            CPU_COUNT (&set) == 1 && CPU_ISSET (1, &set),
        "HWLOC_THISSYSTEM=1: bound to CPU 1 (%s)", e.text);
    ok (hw && inside_hw_bind (hw, -1, &e) == 0 && sched_getaffinity (0, sizeof (set), &set) == 0 &&
            CPU_COUNT (&set) == 2,
        "and back to both (%s)", e.text);
    inside_hw_close (hw);
    inside_destroy (in);
    unsetenv ("HWLOC_SYNTHETIC");
    unsetenv ("HWLOC_THISSYSTEM");

    hw = inside_hw_open (&e);
    in = hw ? inside_hw_read (hw, &e) : NULL;
    ok (in && in->ncpus >= 1 && inside_check (in, "this machine", &e) == 0,
        "this machine reads: %d CPUs in %d L3 domains of %d packages", in ? in->ncpus : 0,
        in ? in->nl3 : 0, in ? in->npackages : 0);
    inside_hw_close (hw);
    inside_destroy (in);
}

/* The binding as srun's --cpu-bind value. */
static void test_cpu_bind (void)
{
    int one[] = {2, 0, 1}, two[] = {0, 2, 5, 9};
    map_inside_t b1 = {.nlocal = 3, .cpt = 1, .cpus = one},
                 b2 = {.nlocal = 2, .cpt = 2, .cpus = two};
    char buf[32], tiny[12];

    ok (map_inside_cpu_bind (&b1, buf, sizeof (buf)) == 0 && !strcmp (buf, "map_cpu:2,0,1"),
        "one CPU a task: %s", buf);
    ok (map_inside_cpu_bind (&b2, buf, sizeof (buf)) == 0 && !strcmp (buf, "mask_cpu:0x5,0x220"),
        "two CPUs a task, masks: %s", buf);
    ok (map_inside_cpu_bind (&b1, tiny, sizeof (tiny)) < 0 && tiny[0] == '\0',
        "a list longer than the buffer: -1, nothing half written");
}

/* map_inside_netmap: the insides of the plan's nodes in a netmap. */
static void test_netmap (void)
{
    const char *hosts[] = {"a", "b", "c"};
    netmap_t *nm = netmap_create (3, hosts, NULL);
    profile_t *p = stencil (4, 3);
    int node[12];
    map_inside_t b;
    tm_error_t e = {""};
    int rc;

    for (int r = 0; r < 12; r++)
        node[r] = r / 4; /* a row a node */
    for (int h = 0; nm && h < 3; h++)
        if ((nm->inside[h] = node16 ()))
            nm->inside[h]->lat_us[INSIDE_MACHINE] = h == 2 ? 9 : 0.6 + h;
    ok (nm && map_inside_netmap (p, nm, node, 1, NULL, &b, &e) == 0 && b.nlocal == 4,
        "three nodes of one shape: one binding (%s)", e.text);
    map_inside_free (&b);
    inside_destroy (nm->inside[1]);
    nm->inside[1] = NULL;
    rc = map_inside_netmap (p, nm, node, 1, NULL, &b, &e);
    ok (rc == -1 && strstr (e.text, "b's CPUs were not read"), "a node not read: %s", e.text);
    node[4] = node[5] = node[6] = node[7] = 0; /* b unused, a takes 8 */
    ok (map_inside_netmap (p, nm, node, 1, NULL, &b, &e) == 0 && b.nlocal == 8,
        "a node the plan does not use need not be read (%s)", e.text);
    map_inside_free (&b);
    nm->inside[2]->cpu[15] = 16;
    rc = map_inside_netmap (p, nm, node, 1, NULL, &b, &e);
    ok (rc == -1 && strstr (e.text, "c's CPUs differ from a's, and one binding serves all nodes"),
        "nodes of two shapes: %s", e.text);
    for (int h = 0; h < 3; h++) {
        inside_destroy (nm->inside[h]);
        nm->inside[h] = NULL;
    }
    rc = map_inside_netmap (p, nm, node, 1, NULL, &b, &e);
    ok (rc == -2 && strstr (e.text, "the netmap knows no node's CPUs"), "no inside at all: -2, %s",
        e.text);
    profile_destroy (p);
    netmap_destroy (nm);
}

int main (void)
{
    plan (NO_PLAN);
    test_cpu_bind ();
    test_netmap ();
    test_create ();
    test_hwloc ();
    test_stencil_one_node ();
    test_two_nodes ();
    test_faults ();
    test_units ();
    test_no_traffic ();
    return done_testing ();
}
