/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of each rank's slot and NIC by rail (railmap.c), on slots
 * read as a netmap keeps them. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/error.h"
#include "lib/profile.h"
#include "lib/railmap.h"
#include "lib/slots.h"
#include "lib/test/tap.h"

/* Slots of k GPUs, GPU i with NIC i * nnics / k (hsn<j>, or mlx5_<j> with
 * ib<j> when ib). */
static slots_t *node_slots (int k, int nnics, int ib)
{
    char text[4096];
    int len = 0;
    json_object *o;
    slots_t *s;
    tm_error_t e;

    len += snprintf (text + len, sizeof (text) - (size_t)len, "{\"gpus\": [");
    for (int i = 0; i < k; i++)
        len += snprintf (text + len, sizeof (text) - (size_t)len,
                         "%s{\"busid\": \"0000:%02x:00.0\", \"name\": \"cuda%d\", \"nics\": [%d], "
                         "\"near\": \"switch\", \"cpus\": [%d]}",
                         i ? ", " : "", 0x10 + i, i, i * nnics / k, i);
    len += snprintf (text + len, sizeof (text) - (size_t)len, "], \"nics\": [");
    for (int j = 0; j < nnics; j++) {
        char name[16] = "";

        if (ib)
            snprintf (name, sizeof (name), "mlx5_%d", j);
        len += snprintf (text + len, sizeof (text) - (size_t)len,
                         "%s{\"busid\": \"0000:%02x:00.0\", \"name\": \"%s\", \"netdev\": "
                         "\"%s%d\"}",
                         j ? ", " : "", 0x80 + j, name, ib ? "ib" : "hsn", j);
    }
    snprintf (text + len, sizeof (text) - (size_t)len, "], \"note\": \"\"}");
    o = json_tokener_parse (text);
    s = slots_from_json (o, "", &e);
    if (!s)
        diag ("slots_from_json: %s in %s", e.text, text);
    json_object_put (o);
    return s;
}

static profile_t *pairs (int ntasks, int n, const int (*pr)[2])
{
    profile_entry_t t[64];
    tm_error_t e;

    for (int i = 0; i < n; i++)
        t[i] = (profile_entry_t){.src = pr[i][0], .dst = pr[i][1], .msgs = 1, .bytes = 1000};
    return profile_create (ntasks, (size_t)n, t, &e);
}

static const char *hosts[] = {"n1", "n2", "n3", "n4"};

/* Whether every host's ranks use each of its slots' NICs, as evenly as
 * they can (at most one apart). */
static int balanced (const railmap_t *m, const int *node, int nhosts, slots_t *const *sl)
{
    for (int h = 0; h < nhosts; h++) {
        int use[8] = {0}, lo = 1 << 30, hi = 0;

        for (int r = 0; r < m->nranks; r++)
            if (node[r] == h)
                use[sl[h]->slot[m->slot[r]].nic[0]]++;
        for (int j = 0; j < sl[h]->nnics; j++) {
            lo = use[j] < lo ? use[j] : lo;
            hi = use[j] > hi ? use[j] : hi;
        }
        if (hi - lo > 1)
            return 0;
    }
    return 1;
}

static void test_pairs_aligned (void)
{
    /* heavy pairs across nodes at different local ranks: Slurm's order
     * puts them on different rails, the choice on one */
    static const int pr[][2] = {{0, 3}, {3, 0}, {1, 2}, {2, 1}};
    int node[] = {0, 0, 1, 1};
    slots_t *sl[2] = {node_slots (2, 2, 0), node_slots (2, 2, 0)};
    profile_t *p = pairs (4, 4, pr);
    railmap_t m;
    char why[128] = "";
    tm_error_t e;

    ok (railmap_choose (p, node, 2, sl, hosts, &m, why, sizeof (why), &e) == 0,
        "two nodes: chosen");
    ok (m.default_bytes == 4000 && m.node_bytes == 4000 && m.cross_bytes == 0,
        "every byte crossed rails in Slurm's order, none now (%llu, %llu)",
        (unsigned long long)m.default_bytes, (unsigned long long)m.cross_bytes);
    ok (m.nrails == 2 && m.nnics == 2 && balanced (&m, node, 2, sl), "both NICs used on each node");
    ok (!strcmp (m.nics[m.nic[0]].netdev, m.nics[m.nic[3]].netdev) &&
            !strcmp (m.nics[m.nic[1]].netdev, m.nics[m.nic[2]].netdev) &&
            m.nics[m.nic[0]].name[0] == '\0',
        "partners on one interface name: rank 0 and 3 %s, 1 and 2 %s", m.nics[m.nic[0]].netdev,
        m.nics[m.nic[1]].netdev);
    railmap_free (&m);
    profile_destroy (p);

    static const int al[][2] = {{0, 2}, {1, 3}};
    p = pairs (4, 2, al);
    ok (railmap_choose (p, node, 2, sl, hosts, &m, why, sizeof (why), &e) == 0 &&
            m.default_bytes == 0 && m.cross_bytes == 0 && m.slot[0] == 0 && m.slot[1] == 1 &&
            m.slot[2] == 0 && m.slot[3] == 1,
        "partners already on one rail: Slurm's order kept");
    railmap_free (&m);
    profile_destroy (p);
    slots_free (sl[0]);
    slots_free (sl[1]);
}

static void test_ring (void)
{
    /* a ring over 4 nodes of 2 ranks, block: each node's ranks talk to the
     * node before and the node after, on opposite local ranks */
    int pr[16][2], n = 0, node[8];
    slots_t *sl[4];
    profile_t *p;
    railmap_t m;
    char why[128];
    tm_error_t e;

    for (int r = 0; r < 8; r++) {
        pr[n][0] = r, pr[n++][1] = (r + 1) % 8;
        pr[n][0] = (r + 1) % 8, pr[n++][1] = r;
        node[r] = r / 2;
    }
    for (int h = 0; h < 4; h++)
        sl[h] = node_slots (2, 2, 1);
    p = pairs (8, n, (const int (*)[2])pr);
    ok (railmap_choose (p, node, 4, sl, hosts, &m, why, sizeof (why), &e) == 0, "ring: chosen");
    ok (m.default_bytes == 8000 && m.cross_bytes == 0,
        "ring: its 8000 bytes between nodes crossed rails, now %llu",
        (unsigned long long)m.cross_bytes);
    ok (balanced (&m, node, 4, sl) && !strcmp (m.nics[0].name, "mlx5_0") &&
            !strcmp (m.nics[0].netdev, "ib0"),
        "ring: both NICs of every node used, named by fabric device and interface");
    railmap_free (&m);
    profile_destroy (p);
    for (int h = 0; h < 4; h++)
        slots_free (sl[h]);
}

static void test_shared_nics (void)
{
    /* 4 GPUs sharing 2 NICs (LLNL Tioga's kind), 4 ranks a node, and 3
     * ranks on a node of 2 slots */
    static const int pr[][2] = {{0, 7}, {1, 6}, {2, 5}, {3, 4}};
    int node[] = {0, 0, 0, 0, 1, 1, 1, 1}, node3[] = {0, 0, 0, 1, 1, 1};
    slots_t *sl[2] = {node_slots (4, 2, 0), node_slots (4, 2, 0)};
    slots_t *two[2] = {node_slots (2, 2, 0), node_slots (2, 2, 0)};
    profile_t *p = pairs (8, 4, pr);
    railmap_t m;
    char why[128];
    tm_error_t e;

    ok (railmap_choose (p, node, 2, sl, hosts, &m, why, sizeof (why), &e) == 0 &&
            m.default_bytes == 4000 && m.cross_bytes == 0 && balanced (&m, node, 2, sl),
        "4 GPUs on 2 NICs: partners on one rail, each NIC two ranks");
    railmap_free (&m);
    profile_destroy (p);
    static const int p3[][2] = {{0, 5}, {1, 4}, {2, 3}};
    p = pairs (6, 3, p3);
    ok (railmap_choose (p, node3, 2, two, hosts, &m, why, sizeof (why), &e) == 0 &&
            m.cross_bytes == 0 && balanced (&m, node3, 2, two),
        "3 ranks on 2 slots: no slot takes more than 2 (default %llu, now %llu)",
        (unsigned long long)m.default_bytes, (unsigned long long)m.cross_bytes);
    railmap_free (&m);
    profile_destroy (p);
    for (int h = 0; h < 2; h++) {
        slots_free (sl[h]);
        slots_free (two[h]);
    }
}

static void test_nothing_to_choose (void)
{
    static const int pr[][2] = {{0, 2}, {1, 3}};
    static const int in[][2] = {{0, 1}, {2, 3}};
    int node[] = {0, 0, 1, 1};
    slots_t *one[2] = {node_slots (2, 1, 0), node_slots (2, 1, 0)};
    slots_t *none[2] = {node_slots (2, 2, 0), NULL};
    slots_t *nogpu[2] = {node_slots (2, 2, 0), node_slots (0, 0, 0)};
    profile_t *p = pairs (4, 2, pr), *q = pairs (4, 2, in);
    railmap_t m;
    char why[128] = "";
    tm_error_t e;

    ok (railmap_choose (p, node, 2, one, hosts, &m, why, sizeof (why), &e) == 1 &&
            !strcmp (why, "one rail (hsn0)"),
        "one NIC a node: %s", why);
    ok (railmap_choose (p, node, 2, none, hosts, &m, why, sizeof (why), &e) == 1 &&
            !strcmp (why, "n2 has no GPU slots read"),
        "slots not read: %s", why);
    ok (railmap_choose (p, node, 2, nogpu, hosts, &m, why, sizeof (why), &e) == 1 &&
            !strcmp (why, "n2 has no GPU slots"),
        "no GPU: %s", why);
    ok (railmap_choose (q, node, 2, none + 0, hosts, &m, why, sizeof (why), &e) == 1 || !m.slot,
        "nothing freed twice");
    ok (railmap_choose (q, node, 2, (slots_t *[]){one[0], none[0]}, hosts, &m, why, sizeof (why),
                        &e) == 1 &&
            !strcmp (why, "no bytes between nodes"),
        "pairs inside nodes only: %s", why);
    profile_destroy (p);
    profile_destroy (q);
    slots_free (one[0]);
    slots_free (one[1]);
    slots_free (none[0]);
    slots_free (nogpu[0]);
    slots_free (nogpu[1]);
}

static void test_env (void)
{
    static const int pr[][2] = {{0, 3}, {1, 2}};
    int node[] = {0, 0, 1, 1};
    slots_t *sl[2] = {node_slots (2, 2, 1), node_slots (2, 2, 1)};
    profile_t *p = pairs (4, 2, pr);
    railmap_t m;
    char why[128], buf[256], small[16];
    railmap_nic_t nic;
    tm_error_t e;
    int same = 1, slot, *cpu, ncpus;

    railmap_choose (p, node, 2, sl, hosts, &m, why, sizeof (why), &e);
    ok (railmap_env (&m, NULL, buf, sizeof (buf), &e) == 0 &&
            !strncmp (buf, "mlx5_0/ib0,mlx5_1/ib1;", 22) && !strchr (buf + 22, ';'),
        "the variable: %s", buf);
    for (int r = 0; r < 4; r++)
        same &= railmap_env_nic (buf, r, &nic, &slot, &cpu, &ncpus, &e) == 0 && slot == m.slot[r] &&
                !strcmp (nic.name, m.nics[m.nic[r]].name) &&
                !strcmp (nic.netdev, m.nics[m.nic[r]].netdev) && !cpu && ncpus == 0;
    ok (same, "each rank reads back its NIC and slot, no CPUs");
    errno = 0;
    ok (railmap_env (&m, NULL, small, sizeof (small), &e) < 0 && errno == E2BIG,
        "too long for its buffer: %s", e.text);
    /* with the slots' CPUs: slot k's is CPU k (node_slots) */
    same = 1;
    ok (railmap_env (&m, sl[0], buf, sizeof (buf), &e) == 0 && !strcmp (strrchr (buf, ';'), ";0/1"),
        "with the slots' CPUs: %s", buf);
    for (int r = 0; r < 4; r++) {
        same &= railmap_env_nic (buf, r, &nic, &slot, &cpu, &ncpus, &e) == 0 && slot == m.slot[r] &&
                ncpus == 1 && cpu[0] == slot;
        free (cpu);
    }
    ok (same, "each rank reads back its slot's CPUs");
    {
        int c0[] = {0, 1, 2, 3, 8}, c1[] = {4, 5, 6, 7, 9, 10, 11}, *k0 = sl[0]->slot[0].cpu,
            *k1 = sl[0]->slot[1].cpu;

        sl[0]->slot[0].cpu = c0, sl[0]->slot[0].ncpus = 5;
        sl[0]->slot[1].cpu = c1, sl[0]->slot[1].ncpus = 7;
        ok (railmap_env (&m, sl[0], buf, sizeof (buf), &e) == 0 &&
                !strcmp (strrchr (buf, ';'), ";0-3,8/4-7,9-11") &&
                railmap_env_nic (buf, 0, &nic, &slot, &cpu, &ncpus, &e) == 0 &&
                ncpus == (slot ? 7 : 5) &&
                !memcmp (cpu, slot ? c1 : c0, (size_t)ncpus * sizeof (int)),
            "CPUs as ranges, read back: %s", buf);
        free (cpu);
        sl[0]->slot[0].cpu = k0, sl[0]->slot[0].ncpus = 1;
        sl[0]->slot[1].cpu = k1, sl[0]->slot[1].ncpus = 1;
    }
    railmap_free (&m);
    profile_destroy (p);
    slots_free (sl[0]);
    slots_free (sl[1]);

    ok (railmap_env_nic ("-/hsn0,-/hsn1;1:3,0:0", 0, &nic, &slot, &cpu, &ncpus, &e) == 0 &&
            !nic.name[0] && !strcmp (nic.netdev, "hsn1") && slot == 3,
        "no fabric device: '-'");
    ok (railmap_env_nic ("a/b;0:2,0:0;0/1/0-2,5,7-8,65535", 0, &nic, &slot, &cpu, &ncpus, &e) ==
                0 &&
            ncpus == 7 && cpu[0] == 0 && cpu[2] == 2 && cpu[3] == 5 && cpu[4] == 7 && cpu[5] == 8 &&
            cpu[6] == 65535,
        "slot 2's CPUs as ranges: %d", ncpus);
    free (cpu);
    static const char *badcpus[] = {
        "a/b;0:1;0",    "a/b;0:0;",     "a/b;0:0;0/",    "a/b;0:0;1,0",   "a/b;0:0;0,0",
        "a/b;0:0;2-1",  "a/b;0:0;0-",   "a/b;0:0;-1",    "a/b;0:0;65536", "a/b;0:0;0 ",
        "a/b;0:0;0;1",  "a/b;0:0;0,,1", "a/b;0:0;0-1-2", "a/b;0:0;0-2,2", "a/b;0:0;+1",
        "a/b;0:0;0//1", "a/b;0:0,;0",   "a/b;0:0;0/x",
    };
    {
        /* CPUs of 257 slots */
        char many[8 + 2 * (SLOTS_MAX_DEVICES + 1)] = "a/b;0:0;";

        for (int k = 0; k <= SLOTS_MAX_DEVICES; k++)
            strcat (many, k ? "/0" : "0");
        ok (railmap_env_nic (many, 0, &nic, &slot, &cpu, &ncpus, &e) < 0 && !cpu &&
                strstr (e.text, "CPUs of more than 256 slots"),
            "CPUs of 257 slots refused: %s", e.text);
        many[strlen (many) - 2] = '\0';
        ok (railmap_env_nic (many, 0, &nic, &slot, &cpu, &ncpus, &e) == 0 && ncpus == 1,
            "of 256 taken");
        free (cpu);
    }
    for (size_t i = 0; i < sizeof (badcpus) / sizeof (badcpus[0]); i++) {
        ok (railmap_env_nic (badcpus[i], 0, &nic, &slot, &cpu, &ncpus, &e) < 0 && !cpu &&
                ncpus == 0,
            "'%s' refused: %s", badcpus[i], e.text);
    }
    static const char *bad[] = {
        "mlx5_0/ib0;1:0",  "mlx5_0/ib0;0:0,", "mlx5_0/ib0",
        "mlx5_0;0:0",      "-/-;0:0",         "a$b/ib0;0:0",
        "mlx5_0/ib0;-1:0", "mlx5_0/ib0;0x:0", "mlx5_0/ib0;",
        "/ib0;0:0",        "mlx5_0/ib 0;0:0", "x/y;99999999999999999999:0",
        "x/y;0",           "x/y;0:",          "x/y;0:-1",
        "x/y;0:256",       "x/y;0:1x",        "x/y;0:99999999999999999999",
        "x/y; 0:0",        "x/y;+0:0",        "x/y;0:0,,0:0",
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++)
        ok (railmap_env_nic (bad[i], 0, &nic, &slot, &cpu, &ncpus, &e) < 0, "'%s' refused: %s",
            bad[i], e.text);
    ok (railmap_env_nic ("a/b;0:0,0:1", 2, &nic, &slot, &cpu, &ncpus, &e) < 0 &&
            strstr (e.text, "no NIC for rank 2"),
        "a rank past the list: %s", e.text);
}

int main (void)
{
    test_pairs_aligned ();
    test_ring ();
    test_shared_nics ();
    test_nothing_to_choose ();
    test_env ();
    return done_testing ();
}
