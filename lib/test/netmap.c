/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json.h>

#include "lib/file.h"
#include "lib/netmap.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"

static int write_str (const char *path, const char *text)
{
    return write_file (path, text, strlen (text), 0644);
}

/* A netmap of n hosts n0.. with every field set to something particular:
 * off-diagonal figures that take 17 digits to write, host 0's intra-node
 * figures measured, the others not, and a topology of model (0: none).
 */
/* Host 2's slots: two GPUs, each with a NIC under its switch, and a
 * 1 GbE port left out; host 0's: none, no GPU. */
static slots_t *make_slots (bool gpus)
{
    static const int cpu[] = {0, 1, 2, 3}, core[] = {0, 1, 2, 3};
    slots_dev_t d[5] = {
        {.kind = SLOTS_GPU,
         .busid = "0000:11:00.0",
         .name = "cuda0",
         .depth = 3,
         .nio = 1,
         .path = {1, 10, 20},
         .ncpus = 2,
         .cpu = cpu},
        {.kind = SLOTS_NIC,
         .busid = "0000:12:00.0",
         .name = "mlx5_0",
         .netdev = "ib0",
         .link_GBps = 32,
         .depth = 3,
         .nio = 1,
         .path = {1, 10, 20},
         .ncpus = 2,
         .cpu = cpu},
        {.kind = SLOTS_GPU,
         .busid = "0000:81:00.0",
         .name = "cuda1",
         .depth = 3,
         .nio = 1,
         .path = {1, 10, 21},
         .ncpus = 2,
         .cpu = cpu + 2},
        {.kind = SLOTS_NIC,
         .busid = "0000:82:00.0",
         .name = "mlx5_1",
         .netdev = "ib1",
         .link_GBps = 32,
         .depth = 3,
         .nio = 1,
         .path = {1, 10, 21},
         .ncpus = 2,
         .cpu = cpu + 2},
        {.kind = SLOTS_NIC,
         .busid = "0000:f0:00.0",
         .netdev = "eno1",
         .link_GBps = 0.25,
         .depth = 2,
         .nio = 1,
         .path = {1, 10},
         .ncpus = 4,
         .cpu = cpu},
    };
    slots_node_t node = {4, cpu, core, gpus ? 5 : 1, gpus ? d : d + 4};

    return slots_choose (&node, NULL);
}

static netmap_t *make_netmap (int n, topo_model_t model)
{
    const char *names[8] = {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"};
    netmap_t *nm = netmap_create (n, names, NULL);

    if (!nm)
        return NULL;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j)
                continue;
            NETMAP_AT (nm, lat_us, i, j) = 1.0 / 3 + i + 0.5 * j;
            NETMAP_AT (nm, lat_ci_us, i, j) = 0.1 * (i + 1) / 7;
            NETMAP_AT (nm, bw_MBps, i, j) = 12345.678 / (1 + i + j);
            NETMAP_AT (nm, samples, i, j) = 5 + i * n + j;
            NETMAP_AT (nm, measured, i, j) = 1 + (i + j == 3);
        }
    NETMAP_AT (nm, measured, 0, 0) = 1;
    NETMAP_AT (nm, lat_us, 0, 0) = 0.25;
    NETMAP_AT (nm, lat_ci_us, 0, 0) = 0.0;
    NETMAP_AT (nm, bw_MBps, 0, 0) = 5000;
    NETMAP_AT (nm, samples, 0, 0) = 17;
    nm->params.lat_bytes = 8;
    nm->params.bw_bytes = 1 << 20;
    nm->params.bw_messages = 4;
    nm->params.bw_enough_ms = 1.5;
    nm->params.concurrency = 3;
    nm->params.min_samples = 7;
    nm->params.max_samples = 99;
    nm->params.ci_rel = 0.015;
    nm->params.budget_s = 2.5;
    nm->measure_s = 1.0 / 7;
    strcpy (nm->jobid, "4242.1");
    nm->timestamp = 1795211090; /* 2026-11-20T21:44:50Z */
    if (model == TOPO_TREE && n == 3) {
        /* hosts 0 and 1 under edge switch 3, host 2 under switch 4 */
        static const int parent[] = {3, 3, 4, 4, -1};
        static const double height[] = {0, 0, 0, 1, 2};
        static const int group[] = {0, 0, 1};
        if (!(nm->topo = topo_alloc (TOPO_TREE, 3, 5, NULL)))
            goto error;
        memcpy (nm->topo->parent, parent, sizeof (parent));
        memcpy (nm->topo->height, height, sizeof (height));
        memcpy (nm->topo->group, group, sizeof (group));
        nm->topo->ngroups = 2;
        nm->topo->signal = TOPO_SIGNAL_BANDWIDTH;
        nm->topo->residual = 0.125;
        nm->topo->uplink_MBps[3] = 1.0 / 3; /* the one uplink: switch 3 to the root */
        /* host 1: 2 packages of 2 L3 domains of 2 CPUs, a package's CPUs
         * not numbered together (as on many two-socket machines), the
         * farthest level not measured
         */
        {
            static const int cpu[] = {0, 1, 2, 3, 8, 9, 10, 11};
            static const int dom[] = {7, 7, 5, 5, 6, 6, 4, 4};
            static const int pkg[] = {1, 1, 0, 0, 1, 1, 0, 0};
            if (!(nm->inside[1] = inside_create (8, cpu, dom, pkg, NULL)))
                goto error;
            nm->inside[1]->lat_us[INSIDE_L3] = 0.125;
            nm->inside[1]->lat_us[INSIDE_PACKAGE] = 1.0 / 3;
            nm->inside[1]->bw_MBps[INSIDE_L3] = 20000;
            nm->inside[1]->bw_MBps[INSIDE_PACKAGE] = 12345.5;
        }
        if (!(nm->slots[0] = make_slots (false)) || !(nm->slots[2] = make_slots (true)))
            goto error;
    } else if (model == TOPO_TREE && n == 1) {
        /* the trivial tree: the one host is the root */
        if (!(nm->topo = topo_alloc (TOPO_TREE, 1, 1, NULL)))
            goto error;
    } else if (model == TOPO_GROUPS && n == 4) {
        /* clusters 4 = {0, 2}, 5 = {1, 3}, root 6 */
        static const int parent[] = {4, 5, 4, 5, 6, 6, -1};
        static const double height[] = {0, 0, 0, 0, 1.5, 2.0 / 3, 7.25};
        static const int group[] = {0, 1, 0, 1};
        if (!(nm->topo = topo_alloc (TOPO_GROUPS, 4, 7, NULL)))
            goto error;
        memcpy (nm->topo->parent, parent, sizeof (parent));
        memcpy (nm->topo->height, height, sizeof (height));
        memcpy (nm->topo->group, group, sizeof (group));
        nm->topo->ngroups = 2;
    }
    return nm;
error:
    netmap_destroy (nm);
    return NULL;
}

static int same (double a, double b)
{
    return (isnan (a) && isnan (b)) || a == b;
}

/* The first field in which a and b differ, NULL when they are equal. */
static const char *netmap_diff (const netmap_t *a, const netmap_t *b)
{
    static char what[64];
    int n = a->n;

    if (a->n != b->n)
        return "n";
    for (int i = 0; i < n; i++)
        if (strcmp (a->hosts[i], b->hosts[i]) != 0)
            return "hosts";
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            snprintf (what, sizeof (what), "[%d][%d]", i, j);
            if (!same (NETMAP_AT (a, lat_us, i, j), NETMAP_AT (b, lat_us, i, j)))
                return strcat (what, " latency");
            if (!same (NETMAP_AT (a, lat_ci_us, i, j), NETMAP_AT (b, lat_ci_us, i, j)))
                return strcat (what, " latency CI");
            if (!same (NETMAP_AT (a, bw_MBps, i, j), NETMAP_AT (b, bw_MBps, i, j)))
                return strcat (what, " bandwidth");
            if (NETMAP_AT (a, samples, i, j) != NETMAP_AT (b, samples, i, j))
                return strcat (what, " samples");
        }
    if (a->params.lat_bytes != b->params.lat_bytes || a->params.bw_bytes != b->params.bw_bytes ||
        a->params.bw_messages != b->params.bw_messages ||
        a->params.bw_enough_ms != b->params.bw_enough_ms ||
        a->params.concurrency != b->params.concurrency ||
        a->params.min_samples != b->params.min_samples ||
        a->params.max_samples != b->params.max_samples || a->params.ci_rel != b->params.ci_rel ||
        a->params.budget_s != b->params.budget_s)
        return "params";
    if (a->measure_s != b->measure_s)
        return "measure_s";
    if (strcmp (a->jobid, b->jobid) != 0)
        return "jobid";
    if (a->timestamp != b->timestamp)
        return "timestamp";
    if (!a->topo != !b->topo)
        return "topology presence";
    if (a->topo) {
        const topo_t *s = a->topo, *t = b->topo;
        if (s->model != t->model || s->nhosts != t->nhosts || s->nvertices != t->nvertices ||
            s->ngroups != t->ngroups)
            return "topology sizes";
        for (int v = 0; v < s->nvertices; v++)
            if (s->parent[v] != t->parent[v] || s->height[v] != t->height[v] ||
                !(s->uplink_MBps[v] == t->uplink_MBps[v] ||
                  (isnan (s->uplink_MBps[v]) && isnan (t->uplink_MBps[v]))))
                return "topology vertices";
        for (int h = 0; h < s->nhosts; h++)
            if (s->group[h] != t->group[h])
                return "topology groups";
        if (s->signal != t->signal ||
            !(s->residual == t->residual || (isnan (s->residual) && isnan (t->residual))))
            return "topology signal and residual";
    }
    for (int i = 0; i < n; i++) {
        const inside_t *s = a->inside[i], *t = b->inside[i];

        if (!s != !t)
            return "inside presence";
        if (s && !inside_same_shape (s, t))
            return "inside CPUs";
        for (int l = 0; s && l < INSIDE_LEVELS; l++)
            if (!same (s->lat_us[l], t->lat_us[l]) || !same (s->bw_MBps[l], t->bw_MBps[l]))
                return "inside figures";
    }
    for (int i = 0; i < n; i++) {
        const slots_t *s = a->slots[i], *t = b->slots[i];

        if (!s != !t)
            return "slots presence";
        if (!s)
            continue;
        if (s->nslots != t->nslots || s->nnics != t->nnics || strcmp (s->note, t->note) != 0)
            return "slots counts or note";
        for (int k = 0; k < s->nnics; k++)
            if (strcmp (s->nic[k].busid, t->nic[k].busid) != 0 ||
                strcmp (s->nic[k].name, t->nic[k].name) != 0 ||
                strcmp (s->nic[k].netdev, t->nic[k].netdev) != 0)
                return "slots NICs";
        for (int k = 0; k < s->nslots; k++)
            if (strcmp (s->gpu[k].busid, t->gpu[k].busid) != 0 ||
                strcmp (s->gpu[k].name, t->gpu[k].name) != 0 ||
                s->slot[k].nnics != t->slot[k].nnics || s->slot[k].near != t->slot[k].near ||
                s->slot[k].ncpus != t->slot[k].ncpus ||
                memcmp (s->slot[k].nic, t->slot[k].nic, (size_t)s->slot[k].nnics * sizeof (int)) ||
                memcmp (s->slot[k].cpu, t->slot[k].cpu, (size_t)s->slot[k].ncpus * sizeof (int)))
                return "slots";
    }
    return NULL;
}

static void test_create (void)
{
    const char *names[] = {"a", "b", "a"};
    const char *empty[] = {"a", ""};
    const char *null[] = {"a", NULL};
    netmap_params_t p;
    netmap_t *nm;
    tm_error_t e;

    netmap_params_default (&p);
    ok (p.lat_bytes == 1024 && p.bw_bytes == 262144 && p.bw_messages == 1 && p.bw_enough_ms == 2 &&
            p.concurrency == 0 && p.min_samples == 5 && p.max_samples == 200 && p.ci_rel == 0.03 &&
            p.budget_s == 10,
        "netmap_params_default gives the documented defaults");

    nm = netmap_create (2, names, &e);
    ok (nm && nm->n == 2 && strcmp (nm->hosts[1], "b") == 0 && nm->hosts[0] != names[0],
        "netmap_create copies the host names");
    ok (nm && isnan (NETMAP_AT (nm, lat_us, 1, 1)) && isnan (NETMAP_AT (nm, lat_ci_us, 0, 0)) &&
            isnan (NETMAP_AT (nm, bw_MBps, 1, 1)) && NETMAP_AT (nm, samples, 1, 1) == 0,
        "netmap_create leaves the diagonal not measured");
    ok (nm && NETMAP_AT (nm, lat_us, 0, 1) == 0 && NETMAP_AT (nm, bw_MBps, 1, 0) == 0 &&
            NETMAP_AT (nm, samples, 0, 1) == 0,
        "netmap_create zeroes the off-diagonal entries");
    ok (nm && nm->params.max_samples == 200 && !nm->topo && nm->jobid[0] == '\0',
        "netmap_create sets default params, no topology and no job id");
    ok (nm && netmap_host_index (nm, "b") == 1 && netmap_host_index (nm, "c") == -1 &&
            netmap_host_index (nm, NULL) == -1,
        "netmap_host_index finds a host and returns -1 for others");
    netmap_destroy (nm);

    errno = 0;
    ok (!netmap_create (0, names, &e) && errno == EINVAL && strstr (e.text, "at least one"),
        "netmap_create rejects zero hosts");
    ok (!netmap_create (2, NULL, &e) && errno == EINVAL, "netmap_create rejects NULL host names");
    ok (!netmap_create (2, empty, &e) && strstr (e.text, "hosts[1]: empty name"),
        "netmap_create rejects an empty host name");
    ok (!netmap_create (2, null, &e) && strstr (e.text, "hosts[1]: empty name"),
        "netmap_create rejects a NULL host name");
    ok (!netmap_create (3, names, &e) && strstr (e.text, "hosts: 'a' appears twice"),
        "netmap_create rejects a duplicate host name: %s", e.text);

    errno = 42;
    netmap_destroy (NULL);
    ok (errno == 42, "netmap_destroy accepts NULL and preserves errno");
}

static void test_round_trip (const char *name, int n, topo_model_t model, const char *what)
{
    char path[PATH_MAX], names[1024];
    netmap_t *nm = make_netmap (n, model), *back = NULL;
    const char *diff = "nothing read";
    struct stat st;
    tm_error_t e = {""};

    in_dir (path, name);
    if (!ok (nm && netmap_write (nm, path, 0644, &e) == 0, "netmap_write writes %s", what))
        diag ("%s", e.text);
    if ((back = netmap_read (path, &e)))
        diff = netmap_diff (nm, back);
    else
        diag ("%s", e.text);
    if (!ok (back && !diff, "netmap_read gives back every field of %s", what))
        diag ("differs in %s", diff);
    ok (stat (path, &st) == 0 && (st.st_mode & 07777) == 0644,
        "the file of %s has mode 0644 despite umask 077", what);
    ok (list_dir (dir, names, sizeof (names)) >= 1 && !strstr (names, ".json."),
        "no temporary file is left beside %s (%s)", name, names);
    netmap_destroy (nm);
    netmap_destroy (back);
}

static void test_layout (void)
{
    char path[PATH_MAX];
    netmap_t *nm = make_netmap (3, TOPO_TREE);
    char *text = NULL;
    size_t len;

    in_dir (path, "layout.json");
    if (nm && netmap_write (nm, path, 0644, NULL) == 0)
        text = read_file (path, &len);
    ok (text && strstr (text, "\"schema\":6,") && strstr (text, "\"kind\":\"topomap-netmap\","),
        "the file carries schema and kind");
    ok (text &&
            strstr (text, "\"measured\":[\n    [1, 1, 1],\n    [1, 0, 2],\n    [1, 2, 0]\n  ],"),
        "how often each pair was measured is written, a row a line");
    ok (text && strstr (text, "\"timestamp\":\"2026-11-20T21:44:50Z\""),
        "the timestamp is written in UTC ISO 8601");
    ok (text && strstr (text, "[1.3333333333333333, null, 2.333333333333333]"),
        "an unmeasured diagonal entry is written as null");
    ok (text && strstr (text, "[0.25, 0.8333333333333333, 1.3333333333333333]"),
        "a matrix row is written on one line, in the fewest digits that read back exactly");
    ok (text && strstr (text, "\"hosts\":[\"n0\", \"n1\", \"n2\"]"), "hosts are one line");
    ok (text && strstr (text, "\"model\":\"tree\"") && strstr (text, "\"parent\":[3, 3, 4, 4, -1]"),
        "the topology is written with its model and parents");
    ok (text && strstr (text, "\"signal\":\"bandwidth\",") && strstr (text, "\"residual\":0.125"),
        "the topology's signal and residual are written, the residual in its fewest digits");
    ok (text && text[len - 1] == '\n', "the file ends with a newline");
    free (text);
    netmap_destroy (nm);
}

static void test_cost (void)
{
    netmap_t *nm = make_netmap (3, 0);
    double c;

    NETMAP_AT (nm, lat_us, 0, 1) = 2.0;
    NETMAP_AT (nm, bw_MBps, 0, 1) = 1000.0;
    c = netmap_cost (nm, 0, 1, 3, 1e6);
    ok (fabs (c - (3 * 2e-6 + 1e6 / 1e9)) < 1e-15,
        "netmap_cost is msgs * latency + bytes / bandwidth between two hosts (%.17g)", c);
    ok (netmap_cost (nm, 0, 1, 0, 0) == 0, "nothing to send costs nothing");
    c = netmap_cost (nm, 0, 0, 4, 1e6);
    ok (fabs (c - (4 * 0.25e-6 + 1e6 / 5e9)) < 1e-15,
        "netmap_cost uses the intra-node figures when a == b (%.17g)", c);
    ok (netmap_cost (nm, 2, 2, 5, 1e6) == 0, "netmap_cost is 0 for a == b not measured");
    errno = 0;
    ok (isnan (netmap_cost (nm, 0, 3, 1, 1)) && errno == EINVAL,
        "netmap_cost of a host out of range is NaN with EINVAL");
    netmap_destroy (nm);
}

/* The lower bound of the probe's time: samples x round trip, plus the
 * lead message and the stream over the bandwidth, the stream left out
 * where the lead alone took bw_enough_ms.
 */
static void test_bound (void)
{
    netmap_t *nm = make_netmap (3, 0);
    double b, ping = 0;

    /* Pairs 0-1 and 1-2 at 1 and 100 MB/s; 0-2 and the diagonal unmeasured. */
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) {
            NETMAP_AT (nm, samples, a, c) = 0;
            NETMAP_AT (nm, measured, a, c) = 1;
        }
    NETMAP_AT (nm, samples, 0, 1) = 10;
    NETMAP_AT (nm, lat_us, 0, 1) = 50;
    NETMAP_AT (nm, bw_MBps, 0, 1) = 1;
    NETMAP_AT (nm, samples, 1, 2) = 20;
    NETMAP_AT (nm, lat_us, 1, 2) = 5;
    NETMAP_AT (nm, bw_MBps, 1, 2) = 100;
    ping = 10 * 2 * 50e-6 + 20 * 2 * 5e-6;
    nm->params.bw_bytes = 400000;
    nm->params.bw_messages = 1;
    nm->params.bw_enough_ms = 0;
    b = netmap_measure_bound (nm);
    ok (fabs (b - (ping + 400000 / 1e6 + 400000 / 1e8)) < 1e-12,
        "bound without a lead: pings and the whole stream of every pair (%g s)", b);
    nm->params.bw_enough_ms = 50;
    b = netmap_measure_bound (nm);
    ok (netmap_lead_bytes (&nm->params) == 100000 &&
            fabs (b - (ping + 100000 / 1e6 + 500000 / 1e8)) < 1e-12,
        "bound with a lead: the slow pair's lead alone (100 ms), the fast pair's lead and "
        "stream (%g s)",
        b);
    NETMAP_AT (nm, measured, 1, 2) = 2;
    b = netmap_measure_bound (nm);
    ok (fabs (b - (ping + 100000 / 1e6 + 2 * 500000 / 1e8)) < 1e-12,
        "bound of a pair measured twice: its samples once (all of both), its lead and stream "
        "twice (%g s)",
        b);
    NETMAP_AT (nm, measured, 1, 2) = 0;
    b = netmap_measure_bound (nm);
    ok (fabs (b - (10 * 2 * 50e-6 + 100000 / 1e6)) < 1e-12,
        "bound without the pair not measured (%g s)", b);
    NETMAP_AT (nm, measured, 1, 2) = 1;
    nm->params.bw_bytes = 3;
    ok (netmap_lead_bytes (&nm->params) == 1, "a lead message is at least one byte");
    /* The fuzzer's reproducer: "samples":[[1073741824]] overflowed k * 2. */
    NETMAP_AT (nm, samples, 0, 1) = 1073741824;
    NETMAP_AT (nm, samples, 1, 2) = 0;
    nm->params.bw_enough_ms = 0;
    b = netmap_measure_bound (nm);
    ok (fabs (b - (1073741824.0 * 2 * 50e-6 + 3 / 1e6)) < 1e-6,
        "bound of 2^30 samples: no integer overflow (%g s)", b);
    netmap_destroy (nm);
}

/* Years 0000-0999 are read, so they are written too, zero-padded. */
static void test_old_years (void)
{
    static const struct {
        time_t t;
        const char *text;
    } years[] = {
        {-62167219200, "0000-01-01T00:00:00Z"},
        {-30610224001, "0999-12-31T23:59:59Z"},
        {-59011459200, "0100-01-01T00:00:00Z"},
    };
    char path[PATH_MAX], *text = NULL;
    size_t len;

    for (size_t i = 0; i < sizeof (years) / sizeof (years[0]); i++) {
        netmap_t *nm = make_netmap (2, 0), *back = NULL;
        tm_error_t e = {""};
        char want[64];

        nm->timestamp = years[i].t;
        in_dir (path, "old.json");
        snprintf (want, sizeof (want), "\"%s\"", years[i].text);
        if (!ok (netmap_write (nm, path, 0644, &e) == 0, "a netmap of %s is written",
                 years[i].text))
            diag ("%s", e.text);
        ok (file_slurp (path, 1 << 20, &text, &len, NULL) == 0 && strstr (text, want),
            "its timestamp is written %s", years[i].text);
        free (text);
        text = NULL;
        ok ((back = netmap_read (path, NULL)) && back->timestamp == years[i].t,
            "and read back as the same time");
        netmap_destroy (back);
        netmap_destroy (nm);
    }
    unlink (path);
}

static void test_write_refuses (void)
{
    char path[PATH_MAX], names[1024];
    netmap_t *nm = make_netmap (3, TOPO_TREE), *back;
    tm_error_t e = {""};
    int before;

    in_dir (path, "refuse.json");
    ok (netmap_write (nm, path, 0644, &e) == 0, "a good netmap is written to refuse.json");
    before = list_dir (dir, names, sizeof (names));

    NETMAP_AT (nm, lat_us, 0, 1) = INFINITY;
    ok (netmap_write (nm, path, 0644, &e) < 0 && errno == EINVAL && strstr (e.text, path) &&
            strstr (e.text, "latency_us[0][1]: not a finite number (n0 to n1)"),
        "netmap_write refuses an infinite latency, naming the hosts: %s", e.text);
    NETMAP_AT (nm, lat_us, 0, 1) = 1;
    NETMAP_AT (nm, lat_ci_us, 2, 1) = NAN;
    ok (netmap_write (nm, path, 0644, &e) < 0 && strstr (e.text, "latency_ci_us[2][1]") &&
            strstr (e.text, "n2 to n1"),
        "netmap_write refuses a NaN off the diagonal: %s", e.text);
    NETMAP_AT (nm, lat_ci_us, 2, 1) = 1;
    NETMAP_AT (nm, bw_MBps, 1, 2) = 0;
    ok (netmap_write (nm, path, 0644, &e) < 0 && strstr (e.text, "bandwidth_MBps[1][2]: zero"),
        "netmap_write refuses a zero bandwidth it could not read back: %s", e.text);
    NETMAP_AT (nm, bw_MBps, 1, 2) = 1;
    nm->topo->parent[4] = 3;
    ok (netmap_write (nm, path, 0644, &e) < 0 && strstr (e.text, "topology") &&
            strstr (e.text, "cycle"),
        "netmap_write refuses an invalid topology: %s", e.text);
    nm->topo->parent[4] = -1;
    nm->timestamp = (time_t)1 << 60;
    ok (netmap_write (nm, path, 0644, &e) < 0 && strstr (e.text, "timestamp"),
        "netmap_write refuses a timestamp beyond year 9999: %s", e.text);

    ok (list_dir (dir, names, sizeof (names)) == before, "refused writes leave no file behind (%s)",
        names);
    back = netmap_read (path, &e);
    ok (back && NETMAP_AT (back, lat_us, 0, 1) != 1, "refused writes leave the old file intact");
    netmap_destroy (back);
    netmap_destroy (nm);
}

static void test_write_fails (void)
{
    char path[PATH_MAX], sub[PATH_MAX], names[1024];
    netmap_t *nm = make_netmap (2, 0);
    tm_error_t e = {""};
    int before = list_dir (dir, names, sizeof (names));
    struct stat st;

    snprintf (path, sizeof (path), "%s/nonexistent/net.json", dir);
    ok (netmap_write (nm, path, 0644, &e) < 0 && errno == ENOENT && strstr (e.text, path) &&
            strstr (e.text, strerror (ENOENT)),
        "netmap_write into a nonexistent directory fails naming the path: %s", e.text);
    ok (stat (in_dir (sub, "nonexistent"), &st) < 0, "and creates nothing");

    snprintf (path, sizeof (path), "%s/layout.json/net.json", dir);
    ok (netmap_write (nm, path, 0644, &e) < 0 && strstr (e.text, path) &&
            strstr (e.text, strerror (ENOTDIR)),
        "netmap_write below a regular file fails naming the path: %s", e.text);

    in_dir (sub, "adir");
    mkdir (sub, 0755);
    ok (netmap_write (nm, sub, 0644, &e) < 0 && errno == EISDIR && strstr (e.text, sub) &&
            strstr (e.text, "is a directory"),
        "netmap_write over a directory fails naming it: %s", e.text);
    ok (list_dir (sub, names, sizeof (names)) == 0 &&
            list_dir (dir, names, sizeof (names)) == before + 1,
        "and leaves no temporary file (%s)", names);

    in_dir (sub, "readonly");
    mkdir (sub, 0555);
    snprintf (path, sizeof (path), "%s/readonly/net.json", dir);
    /* Root writes anywhere: as root, try it as nobody in a child. */
    int forked = geteuid () == 0;
    pid_t pid = forked ? fork () : 0;
    if (pid == 0) {
        if (forked && (setgid (65534) < 0 || setuid (65534) < 0))
            _exit (2);
        int failed =
            netmap_write (nm, path, 0644, &e) < 0 && errno == EACCES && strstr (e.text, path);
        if (forked)
            _exit (failed ? 0 : 1);
        ok (failed && list_dir (sub, names, sizeof (names)) == 0,
            "netmap_write into an unwritable directory fails and leaves nothing: %s", e.text);
    } else {
        int status = -1;
        waitpid (pid, &status, 0);
        ok (pid > 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0 &&
                list_dir (sub, names, sizeof (names)) == 0,
            "netmap_write into an unwritable directory fails for a user and leaves nothing");
    }

    ok (netmap_write (NULL, path, 0644, &e) < 0 && netmap_write (nm, "", 0644, &e) < 0,
        "netmap_write rejects a NULL netmap and an empty path");
    netmap_destroy (nm);
}

/* Rejections of a valid file edited at a JSON pointer. */
static const struct {
    int op;
    const char *ptr;   /* SET: where; DEL: object, then key */
    const char *value; /* SET: JSON text; DEL: key */
    const char *want;  /* in the message */
} edits[] = {
    {SET, "/schema", "7", "schema 7, expected 1 to 6"},
    {SET, "/schema", "0", "schema 0, expected 1 to 6"},
    {SET, "/schema", "5", "unknown key 'slots'"},
    {SET, "/schema", "4", "unknown key 'slots'"},
    {SET, "/schema", "3", "unknown key 'inside'"},
    {SET, "/schema", "2", "unknown key 'measured'"},
    {SET, "/schema", "1", "unknown key 'measured'"},
    {DEL, "", "measured", "missing key 'measured'"},
    {SET, "/measured/1", "[1, 0]", "measured: row 1 has 2 entries, expected 3"},
    {SET, "/measured/0/2", "-1", "measured[0][2]: negative (n0 to n2)"},
    {SET, "/measured/0/2", "1.5", "measured[0][2]: not an integer"},
    {SET, "/measured/0/2", "2", "measured[0][2]: 2, but 1 from n2 to n0"},
    {SET, "/measured/1/1", "1", "measured[1][1]: 1, but n1's intra-node figures are null"},
    {SET, "/schema", "\"1\"", "schema: not an integer"},
    {SET, "/kind", "\"topomap-profile\"", "kind 'topomap-profile', expected 'topomap-netmap'"},
    {SET, "/latency_us/1", "[1, 2, 3, 4]", "latency_us: row 1 has 4 entries, expected 3"},
    {SET, "/samples/2", "[1, 2]", "samples: row 2 has 2 entries, expected 3"},
    {SET, "/bandwidth_MBps", "[[null, 2, 3], [4, null, 6]]", "bandwidth_MBps: 2 rows, expected 3"},
    {SET, "/latency_ci_us/1", "7", "latency_ci_us: row 1 is not an array"},
    {SET, "/latency_ci_us/0/1", "\"fast\"", "latency_ci_us[0][1]: not a finite number"},
    {SET, "/bandwidth_MBps/2/1", "1e999", "bandwidth_MBps[2][1]: not a finite number"},
    {SET, "/latency_us/0/2", "null", "latency_us[0][2]: not a finite number"},
    {SET, "/latency_us/1/1", "true", "latency_us[1][1]: not a finite number"},
    {SET, "/latency_us/1/0", "-0.5", "latency_us[1][0]: negative"},
    {SET, "/latency_ci_us/2/2", "-1", "latency_ci_us[2][2]: negative"},
    {SET, "/bandwidth_MBps/0/2", "0", "bandwidth_MBps[0][2]: zero, must be > 0"},
    {SET, "/bandwidth_MBps/0/1", "1e308", "bandwidth_MBps[0][1]: 1e+308, above 1e+07 (n0 to n1)"},
    {SET, "/latency_us/2/1", "2e6", "latency_us[2][1]: 2e+06, above 1e+06"},
    {SET, "/samples/0/1", "2.5", "samples[0][1]: not an integer"},
    {SET, "/samples/0/1", "-1", "samples[0][1]: negative"},
    {SET, "/hosts/2", "\"n1\"", "hosts: 'n1' appears twice"},
    {SET, "/hosts/0", "\"\"", "hosts[0]: empty name"},
    {SET, "/hosts/0", "\"n\\u0000x\"", "hosts[0]: control character"},
    {SET, "/hosts/1", "7", "hosts[1]: not a string"},
    {SET, "/hosts", "{}", "hosts: not an array"},
    {SET, "/hosts", "[]", "hosts: empty"},
    {SET, "/params/max_samples", "2", "params.max_samples: 2, less than min_samples 7"},
    {SET, "/params/lat_bytes", "-8", "params.lat_bytes: negative"},
    {SET, "/params/bw_bytes", "18446744073709551615", "params.bw_bytes: above 2^63-1, too large"},
    {SET, "/params/ci_rel", "\"small\"", "params.ci_rel: not a number"},
    {SET, "/params/bogus", "1", "unknown key 'params.bogus'"},
    {SET, "/params/bw_enough_ms", "-1", "params.bw_enough_ms: not a finite number >= 0"},
    {SET, "/params/bw_enough_ms", "\"soon\"", "params.bw_enough_ms: not a number"},
    {SET, "/measure_s", "-1", "measure_s: not a finite number >= 0"},
    {SET, "/jobid", "\"12345678901234567890123456789012\"", "jobid: longer than 31 bytes"},
    {SET, "/jobid", "\"12\\n3\"", "jobid: control character"},
    {SET, "/timestamp", "\"yesterday\"", "timestamp: not a UTC time"},
    {SET, "/timestamp", "\"2026-02-30T00:00:00Z\"", "timestamp: not a UTC time"},
    {SET, "/timestamp", "\"2026-11-20 21:44:50Z\"", "timestamp: not a UTC time"},
    {SET, "/extra", "1", "unknown key 'extra'"},
    {SET, "/topology", "[]", "topology: not null or an object"},
    {SET, "/topology/model", "\"ring\"", "topology.model: 'ring', expected 'tree' or 'groups'"},
    {SET, "/topology/parent", "[3, 3, 4, 4, 3]", "topology: the parents form a cycle, not a tree"},
    {SET, "/topology/parent/0", "9", "topology: vertex 0 has parent 9"},
    {SET, "/topology/parent/1", "1", "topology: vertex 1 has parent 1"},
    {SET, "/topology/parent", "[3, 3, 4, 4]", "topology.parent: 4 entries, expected nvertices 5"},
    {SET, "/topology/nvertices", "2", "topology.nvertices: 2, too small"},
    {SET, "/topology/group/2", "5", "topology: host 2 in group 5"},
    {SET, "/topology/group", "[0, 1]", "topology.group: 2 entries, expected 3"},
    {SET, "/topology/ngroups", "9", "topology.ngroups: 9, too large"},
    {SET, "/topology/height/3", "null", "topology.height[3]: not a finite number"},
    {SET, "/topology/height/3", "1e30", "topology.height[3]: not a whole number from 1 to 64"},
    {SET, "/topology/height/4", "2147483647",
     "topology.height[4]: not a whole number from 1 to 64"},
    {SET, "/topology/height/4", "4e8", "topology.height[4]: not a whole number from 1 to 64"},
    {SET, "/topology/height/4", "1.5", "topology.height[4]: not a whole number from 1 to 64"},
    {SET, "/topology/height/3", "0", "topology.height[3]: not a whole number from 1 to 64"},
    {SET, "/topology/height/0", "1", "topology.height[0]: not 0, a host's"},
    {DEL, "", "measure_s", "missing key 'measure_s'"},
    {DEL, "", "topology", "missing key 'topology'"},
    {DEL, "", "kind", "missing key 'kind'"},
    {DEL, "/params", "budget_s", "missing key 'params.budget_s'"},
    {DEL, "/topology", "group", "missing key 'topology.group'"},
    {SET, "/topology/signal", "\"noise\"",
     "topology.signal: 'noise', expected 'latency', 'bandwidth' or 'site'"},
    {SET, "/topology/residual", "-1", "topology.residual: below 0"},
    {SET, "/topology/residual", "\"small\"", "topology.residual: not a finite number"},
    {DEL, "/topology", "signal", "missing key 'topology.signal'"},
    {DEL, "/topology", "residual", "missing key 'topology.residual'"},
    {DEL, "/topology", "uplink_MBps", "missing key 'topology.uplink_MBps'"},
    {SET, "/topology/uplink_MBps", "[1, 2]", "topology.uplink_MBps: 2 entries, expected 5"},
    {SET, "/topology/uplink_MBps/4", "5", "topology.uplink_MBps[4]: not null, the root's"},
    {SET, "/topology/uplink_MBps/3", "0",
     "topology.uplink_MBps[3]: not a number above 0 and at most 1e+07, or null"},
    {SET, "/topology/uplink_MBps/2", "2e7",
     "topology.uplink_MBps[2]: not a number above 0 and at most 1e+07, or null"},
    {SET, "/topology/uplink_MBps/0", "\"fast\"", "topology.uplink_MBps[0]: not a finite number"},
    {DEL, "", "inside", "missing key 'inside'"},
    {SET, "/inside", "[null, null]", "inside: 2 entries, expected 3"},
    {SET, "/inside/0", "7", "inside[0]: neither an object nor null"},
    {SET, "/inside/1/cpus", "[]", "inside[1].cpus: 0 CPUs, expected 1 to 65536"},
    {SET, "/inside/1/cpus/1", "0", "inside[1]: CPU OS indexes not ascending at 0"},
    {SET, "/inside/1/cpus/0", "-1", "inside[1].cpus[0]: negative"},
    {SET, "/inside/1/l3", "[0, 0, 1, 1, 2, 2, 3]", "inside[1].l3: 7 entries, expected 8"},
    {SET, "/inside/1/l3/0", "1", "inside[1]: CPU 0: L3 domain 1 out of order"},
    {SET, "/inside/1/l3/7", "8", "inside[1].l3[7]: 8, too large"},
    {SET, "/inside/1/package", "[0, 1, 0]", "inside[1].package: 3 entries, expected 4"},
    {SET, "/inside/1/package/0", "1", "inside[1]: L3 domain 0: package 1 out of order"},
    {SET, "/inside/1/latency_us/0", "-1", "inside[1]: level l3: latency -1 us"},
    {SET, "/inside/1/latency_us/1", "0", "inside[1]: level package: latency 0 us"},
    {SET, "/inside/1/bandwidth_MBps/1", "0",
     "inside[1]: level package: latency 0.333333 us, "
     "bandwidth 0 MB/s"},
    {SET, "/inside/1/bandwidth_MBps", "[1, 2]", "inside[1].bandwidth_MBps: 2 entries, expected 3"},
    {SET, "/inside/1/latency_us/2", "\"far\"", "inside[1].latency_us[2]: not a finite number"},
    {SET, "/inside/1/cores", "[]", "unknown key 'inside[1].cores'"},
    {DEL, "/inside/1", "package", "missing key 'inside[1].package'"},
    {DEL, "", "slots", "missing key 'slots'"},
    {SET, "/slots", "[null]", "slots: 1 entries, expected 3"},
    {SET, "/slots/1", "[]", "slots[1]: neither an object nor null"},
    {SET, "/slots/2/gpus/0/busid", "\"11:00.0\"",
     "slots[2].gpus[0].busid: '11:00.0' is not a PCI address"},
    {SET, "/slots/2/gpus/1/name", "\"cuda1;id\"",
     "slots[2].gpus[1].name: 'cuda1;id' is not 1 to 31 letters, digits or _.:-"},
    {SET, "/slots/2/gpus/1/name", "\"\"", "slots[2].gpus[1].name: '' is not 1 to 31"},
    {SET, "/slots/2/nics/0/netdev", "\"ib0\\n\"", "slots[2].nics[0].netdev: 'ib0\\x0a' is not"},
    {SET, "/slots/2/nics/0/netdev", "\"ib0\\u0000x\"", "slots[2].nics[0].netdev: a NUL character"},
    {SET, "/slots/2/nics/1", "{\"busid\": \"0000:82:00.0\", \"name\": \"\", \"netdev\": \"\"}",
     "slots[2].nics[1]: neither a name nor a netdev"},
    {SET, "/slots/2/gpus/0/name", "\"cuda0_and_a_name_of_32_bytes_xxx\"",
     "slots[2].gpus[0].name: longer than 31 bytes"},
    {SET, "/slots/2/nics/1/busid", "\"0000:11:00.0\"",
     "slots[2].nics[1].busid: 0000:11:00.0 given twice"},
    {SET, "/slots/2/gpus/0/nics", "[2]", "slots[2].gpus[0].nics[0]: 2, too large"},
    {SET, "/slots/2/gpus/0/nics", "[0, 0]", "slots[2].gpus[0].nics: NIC 0 twice"},
    {SET, "/slots/2/gpus/0/near", "\"far\"", "slots[2].gpus[0].near: 'far', expected"},
    {SET, "/slots/2/gpus/0/near", "\"none\"", "slots[2].gpus[0]: 1 NICs, near 'none'"},
    {SET, "/slots/2/gpus/0/cpus", "[1, 0]", "slots[2].gpus[0].cpus[1]: 0, not ascending"},
    {SET, "/slots/2/gpus/0/cpus", "[]", "slots[2].gpus[0].cpus: 0 CPUs, 1 to 65536"},
    {SET, "/slots/2/gpus/0/rail", "0", "unknown key 'slots[2].gpus[0].rail'"},
    {SET, "/slots/2/note", "\"a\\tb\"", "slots[2].note: longer than 255 bytes or a control"},
    {DEL, "/slots/2", "nics", "missing key 'slots[2].nics'"},
};

/* A schema 1 file, from before topologies had a signal and a residual:
 * read as latency, residual not known.
 */
static void test_read_schema1 (const char *good)
{
    char p1[PATH_MAX], p2[PATH_MAX], p3[PATH_MAX];
    netmap_t *nm = NULL;
    tm_error_t e = {""};

    snprintf (p1, sizeof (p1), "%s/schema1a.json", dir);
    snprintf (p2, sizeof (p2), "%s/schema1b.json", dir);
    snprintf (p3, sizeof (p3), "%s/schema1c.json", dir);
    if (edit_json (good, p3, DEL, "", "slots") == 0 && edit_json (p3, p1, SET, "/schema", "5") == 0)
        nm = netmap_read (p1, &e);
    ok (nm && !nm->slots[0] && !nm->slots[2] && nm->topo && nm->topo->uplink_MBps[3] > 0,
        "netmap_read reads schema 5: no host's slots (%s)", e.text);
    netmap_destroy (nm);
    nm = NULL;
    if (edit_json (p1, p3, DEL, "/topology", "uplink_MBps") == 0 &&
        edit_json (p3, p2, SET, "/schema", "4") == 0)
        nm = netmap_read (p2, &e);
    ok (nm && nm->topo && isnan (nm->topo->uplink_MBps[3]) && nm->inside[1],
        "netmap_read reads schema 4: no uplink measured (%s)", e.text);
    netmap_destroy (nm);
    nm = NULL;
    if (edit_json (p2, p3, DEL, "", "inside") == 0 && edit_json (p3, p1, SET, "/schema", "3") == 0)
        nm = netmap_read (p1, &e);
    ok (nm && !nm->inside[0] && !nm->inside[1] && !nm->inside[2],
        "netmap_read reads schema 3: no host's inside (%s)", e.text);
    netmap_destroy (nm);
    nm = NULL;
    if (edit_json (p1, p3, SET, "/schema", "2") == 0 &&
        edit_json (p3, p2, DEL, "", "measured") == 0)
        nm = netmap_read (p2, &e);
    ok (nm && nm->topo && nm->topo->signal == TOPO_SIGNAL_BANDWIDTH &&
            NETMAP_AT (nm, measured, 0, 2) == 1 && NETMAP_AT (nm, measured, 2, 1) == 1 &&
            NETMAP_AT (nm, measured, 0, 0) == 1 && NETMAP_AT (nm, measured, 1, 1) == 0,
        "netmap_read reads schema 2: every pair measured once, a null diagonal not at all (%s)",
        e.text);
    netmap_destroy (nm);
    nm = NULL;
    if (edit_json (good, p3, SET, "/topology/signal", "\"site\"") == 0)
        nm = netmap_read (p3, &e);
    ok (nm && nm->topo && nm->topo->signal == TOPO_SIGNAL_SITE,
        "netmap_read reads a tree from the site's topology.conf (%s)", e.text);
    netmap_destroy (nm);
    nm = NULL;
    ok (edit_json (p2, p1, SET, "/topology/signal", "\"site\"") == 0 && !netmap_read (p1, &e) &&
            strstr (e.text, "topology.signal: 'site', expected 'latency', 'bandwidth'"),
        "schema 2 has no site signal: %s", e.text);
    if (edit_json (p2, p1, SET, "/schema", "1") == 0 &&
        edit_json (p1, p3, DEL, "/topology", "signal") == 0 &&
        edit_json (p3, p2, DEL, "/topology", "residual") == 0)
        nm = netmap_read (p2, &e);
    ok (nm && nm->topo && nm->topo->model == TOPO_TREE && nm->topo->signal == TOPO_SIGNAL_LATENCY &&
            isnan (nm->topo->residual),
        "netmap_read reads schema 1: a tree from latency, residual not known (%s)", e.text);
    netmap_destroy (nm);
    unlink (p1);
    unlink (p2);
    unlink (p3);
}

static void test_read_edits (const char *good)
{
    char path[PATH_MAX];
    tm_error_t e;

    for (size_t k = 0; k < sizeof (edits) / sizeof (edits[0]); k++) {
        netmap_t *nm = NULL;
        int rc;

        snprintf (path, sizeof (path), "%s/edit%zu.json", dir, k);
        e.text[0] = '\0';
        rc = edit_json (good, path, edits[k].op, edits[k].ptr, edits[k].value);
        if (rc == 0)
            nm = netmap_read (path, &e);
        ok (rc == 0 && !nm && strstr (e.text, path) && strstr (e.text, edits[k].want),
            "netmap_read rejects %s %s: %s", edits[k].ptr,
            edits[k].op == SET ? edits[k].value : "deleted", e.text);
        netmap_destroy (nm);
        unlink (path);
    }
}

static void test_read_file (const char *good)
{
    char path[PATH_MAX];
    char *text;
    size_t len = 0;
    netmap_t *nm;
    tm_error_t e;
    int fd;

    in_dir (path, "nonexistent.json");
    errno = 0;
    ok (!netmap_read (path, &e) && errno == ENOENT && strstr (e.text, path) &&
            strstr (e.text, strerror (ENOENT)),
        "netmap_read of a nonexistent file fails naming it: %s", e.text);

    in_dir (path, "text.json");
    write_str (path, "this is not JSON\n");
    ok (!netmap_read (path, &e) && strstr (e.text, path) && strstr (e.text, "not valid JSON"),
        "netmap_read rejects a file that is not JSON: %s", e.text);

    text = read_file (good, &len);
    ok (text && len > 100, "the good file is read as text");
    if (!text)
        return;
    write_file (path, text, len / 2, 0644);
    nm = netmap_read (path, &e);
    ok (!nm && strstr (e.text, path) && strstr (e.text, "not valid JSON: truncated"),
        "netmap_read rejects a file cut in half: %s", e.text);
    netmap_destroy (nm);

    write_file (path, text, len - 3, 0644);
    ok (!netmap_read (path, &e) && strstr (e.text, "truncated"),
        "netmap_read rejects a file missing its last bytes: %s", e.text);

    text[len - 1] = 'x';
    write_file (path, text, len, 0644);
    ok (!netmap_read (path, &e) && strstr (e.text, "not valid JSON"),
        "netmap_read rejects data after the JSON document: %s", e.text);

    text[len - 1] = '\0';
    write_file (path, text, len, 0644);
    ok (!netmap_read (path, &e) && strstr (e.text, "not valid JSON"),
        "netmap_read rejects a NUL byte after the JSON document: %s", e.text);
    free (text);

    write_file (path, "", 0, 0644);
    ok (!netmap_read (path, &e) && strstr (e.text, path) && strstr (e.text, "empty file"),
        "netmap_read rejects an empty file: %s", e.text);

    write_str (path, "[1, 2]\n");
    ok (!netmap_read (path, &e) && strstr (e.text, "not a JSON object"),
        "netmap_read rejects a JSON array: %s", e.text);

    write_str (path, "{\"kind\": \"topomap-netmap\", \"schema\": 1, \"hosts\": [\"\xff\"]}");
    ok (!netmap_read (path, &e) && strstr (e.text, "not valid JSON"),
        "netmap_read rejects invalid UTF-8: %s", e.text);

    write_str (path, "{\"kind\": \"topomap-netmap\", \"schema\": 1, \"schema\": 1,}");
    ok (!netmap_read (path, &e) && strstr (e.text, "not valid JSON"),
        "netmap_read rejects a trailing comma: %s", e.text);
    unlink (path);

    ok (!netmap_read (dir, &e) && strstr (e.text, dir) && strstr (e.text, "not a regular file"),
        "netmap_read rejects a directory: %s", e.text);

    in_dir (path, "fifo");
    if (mkfifo (path, 0600) == 0) {
        ok (!netmap_read (path, &e) && strstr (e.text, "not a regular file"),
            "netmap_read rejects a FIFO without waiting for a writer: %s", e.text);
        unlink (path);
    } else
        ok (1, "netmap_read rejects a FIFO # SKIP mkfifo: %s", strerror (errno));

    in_dir (path, "huge.json");
    fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ok (fd >= 0 && ftruncate (fd, 64 * 1024 * 1024 + 1) == 0 && close (fd) == 0 &&
            !netmap_read (path, &e) && errno == EFBIG && strstr (e.text, path) &&
            strstr (e.text, "larger than the limit of 64 MiB"),
        "netmap_read refuses a file over 64 MiB: %s", e.text);
    unlink (path);

    ok (!netmap_read (NULL, &e) && !netmap_read ("", NULL), "netmap_read rejects no path");
}

/* Netmaps of probes before the lead message have no bw_enough_ms. */
static void test_read_no_lead (const char *good)
{
    char path[PATH_MAX];
    netmap_t *nm = NULL;
    tm_error_t e;

    in_dir (path, "no-lead.json");
    if (edit_json (good, path, DEL, "/params", "bw_enough_ms") == 0)
        nm = netmap_read (path, &e);
    ok (nm && nm->params.bw_enough_ms == 0,
        "a netmap without params.bw_enough_ms reads, as a probe without a lead message");
    netmap_destroy (nm);
    unlink (path);
}

/* Planning on the tree's figures: two edges of three hosts under a root,
 * each level 10 us / 100 MB/s and 40 us / 10 MB/s within +-10 %, a burst
 * (one pair 2x fast) and a slow link (one pair 3x slow). */
static void test_plan_figures (void)
{
    const char *h[] = {"a1", "a2", "a3", "b1", "b2", "b3"};
    netmap_t *nm = netmap_create (6, h, NULL);
    tm_error_t e;
    int k = 0;

    nm->topo = topo_alloc (TOPO_TREE, 6, 9, NULL);
    for (int v = 0; v < 6; v++)
        nm->topo->parent[v] = 6 + v / 3;
    nm->topo->parent[6] = nm->topo->parent[7] = 8;
    nm->topo->height[6] = nm->topo->height[7] = 1;
    nm->topo->height[8] = 2;
    nm->topo->residual = 0.05;
    for (int a = 0; a < 6; a++)
        for (int b = a + 1; b < 6; b++, k++) {
            int same = a / 3 == b / 3;
            double f = 1 + 0.1 * ((k % 3) - 1);
            NETMAP_AT (nm, lat_us, a, b) = NETMAP_AT (nm, lat_us, b, a) = (same ? 10 : 40) * f;
            NETMAP_AT (nm, bw_MBps, a, b) = NETMAP_AT (nm, bw_MBps, b, a) = (same ? 100 : 10) / f;
        }
    NETMAP_AT (nm, bw_MBps, 0, 3) = NETMAP_AT (nm, bw_MBps, 3, 0) = 20;  /* a burst */
    NETMAP_AT (nm, bw_MBps, 1, 4) = NETMAP_AT (nm, bw_MBps, 4, 1) = 3.3; /* a slow link */
    NETMAP_AT (nm, lat_us, 2, 5) = NETMAP_AT (nm, lat_us, 5, 2) = 160;   /* a delay */
    nm->topo->residual = 0.3;
    ok (netmap_plan_figures (nm, &e) == 0 && NETMAP_AT (nm, bw_MBps, 0, 3) == 20,
        "plan figures: a loose fit (residual 0.3) left as measured");
    nm->topo->residual = 0.05;
    ok (netmap_plan_figures (nm, &e) == 1, "plan figures: a tree that fits is planned on its own");
    int alike = 1;
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++) {
            int same = a / 3 == b / 3;
            if (a == b || (a == 1 && b == 4) || (a == 4 && b == 1) || (a == 2 && b == 5) ||
                (a == 5 && b == 2))
                continue;
            /* every pair as (0, 1) within an edge, as (0, 3) across */
            alike &= NETMAP_AT (nm, lat_us, a, b) == NETMAP_AT (nm, lat_us, 0, same ? 1 : 3) &&
                     NETMAP_AT (nm, bw_MBps, a, b) == NETMAP_AT (nm, bw_MBps, 0, same ? 1 : 3);
        }
    ok (alike && fabs (NETMAP_AT (nm, bw_MBps, 0, 3) - 10) < 1.5 &&
            fabs (NETMAP_AT (nm, lat_us, 0, 1) - 10) < 1.5,
        "plan figures: pairs within the band and the burst take their level's medians "
        "(%g MB/s across, %g us within)",
        NETMAP_AT (nm, bw_MBps, 0, 3), NETMAP_AT (nm, lat_us, 0, 1));
    ok (NETMAP_AT (nm, bw_MBps, 1, 4) == 3.3 && NETMAP_AT (nm, bw_MBps, 4, 1) == 3.3 &&
            NETMAP_AT (nm, lat_us, 2, 5) == 160,
        "plan figures: a slow link and a delay beyond the band are kept");
    topo_destroy (nm->topo);
    nm->topo = NULL;
    ok (netmap_plan_figures (nm, &e) == 0, "plan figures: no tree, nothing done");
    netmap_destroy (nm);
}

int main (void)
{
    char good[PATH_MAX];
    netmap_t *nm;

    plan (NO_PLAN);
    umask (077);
    if (scratch_dir ("netmap-test") < 0)
        return done_testing ();

    test_create ();
    test_round_trip ("tree.json", 3, TOPO_TREE, "a netmap with a tree topology");
    test_round_trip ("groups.json", 4, TOPO_GROUPS, "a netmap with a groups topology");
    test_round_trip ("single.json", 1, TOPO_TREE, "a netmap of one host and a trivial tree");
    test_round_trip ("bare.json", 2, 0, "a netmap of two hosts and no topology");
    test_layout ();
    test_cost ();
    test_bound ();
    test_plan_figures ();
    test_old_years ();
    test_write_refuses ();
    test_write_fails ();

    in_dir (good, "tree.json");
    nm = netmap_read (good, NULL);
    ok (nm != NULL, "the good file for the rejection tests reads");
    netmap_destroy (nm);
    test_read_edits (good);
    test_read_schema1 (good);
    test_read_file (good);
    test_read_no_lead (good);

    remove_tree (dir);
    return done_testing ();
}
