/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/layout.h"
#include "lib/test/tap.h"

static char dir[256];

/* "a,b,c" of n ints into buf. */
static const char *show (const int *v, int n, char *buf, size_t size)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && o + 16 < size; i++)
        o += (size_t)snprintf (buf + o, size - o, "%s%d", i ? "," : "", v[i]);
    return buf;
}

static int same (const int *a, const int *b, int n)
{
    return memcmp (a, b, (size_t)n * sizeof (int)) == 0;
}

/* An allocation n0..n<k-1> with CPUs per node cpus ("4(x4)"). */
static layout_alloc_t *alloc (int k, const char *cpus)
{
    char names[64][16];
    const char *p[64];
    tm_error_t e;
    layout_alloc_t *a;

    for (int i = 0; i < k; i++) {
        snprintf (names[i], sizeof (names[i]), "n%d", i);
        p[i] = names[i];
    }
    if (!(a = layout_alloc_create (k, p, cpus, &e)))
        diag ("layout_alloc_create: %s", e.text);
    return a;
}

static layout_request_t req (int ntasks, int ntasks_set, int nodes)
{
    layout_request_t r = {
        .ntasks = ntasks,
        .ntasks_set = ntasks_set,
        .nodes_min = nodes,
        .nodes_max = nodes,
    };
    return r;
}

/* layout_default on allocation (k nodes, cpus) gives ntasks tasks on the
 * first nnodes nodes with counts want[k], numbered cyclic or not.
 */
static void expect (const char *what, int k, const char *cpus, layout_request_t r, int ntasks,
                    int nnodes, int cyclic, const int *want)
{
    layout_alloc_t *a = alloc (k, cpus);
    layout_step_t step;
    int counts[64];
    char why[128], b1[256], b2[256];
    tm_error_t e;
    int rc;

    rc = layout_default (a, &r, &step, counts, why, sizeof (why), &e);
    if (rc != 0)
        diag ("rc %d: %s", rc, rc < 0 ? e.text : why);
    ok (rc == 0 && step.ntasks == ntasks && step.nnodes == nnodes && step.cyclic == cyclic &&
            same (counts, want, k),
        "%s on %d nodes of %s CPUs: %d tasks on %d nodes, %s, counts [%s]", what, k, cpus, ntasks,
        nnodes, cyclic ? "cyclic" : "block", show (want, k, b1, sizeof (b1)));
    if (rc == 0 && !same (counts, want, k))
        diag ("got %d tasks on %d nodes, counts [%s]", step.ntasks, step.nnodes,
              show (counts, k, b2, sizeof (b2)));
    layout_alloc_destroy (a);
}

/* layout_default refuses to predict, saying why (containing word). */
static void unpredicted (const char *what, int k, const char *cpus, layout_request_t r,
                         const char *word)
{
    layout_alloc_t *a = alloc (k, cpus);
    layout_step_t step;
    int counts[64];
    char why[128] = "";
    tm_error_t e = {{0}};
    int rc = layout_default (a, &r, &step, counts, why, sizeof (why), &e);

    ok (rc == 1 && strstr (why, word) != NULL, "%s is not predicted: \"%s\"", what, why);
    layout_alloc_destroy (a);
}

static void test_parse_cpus (void)
{
    int cpus[8], want[8];
    tm_error_t e;

    ok (layout_parse_cpus ("4(x2),2", 3, cpus, &e) == 0 && cpus[0] == 4 && cpus[1] == 4 &&
            cpus[2] == 2,
        "'4(x2),2' is 4,4,2");
    ok (layout_parse_cpus ("8", 1, cpus, &e) == 0 && cpus[0] == 8, "'8' is one node of 8");
    want[0] = 2, want[1] = 16, want[2] = 16, want[3] = 16, want[4] = 1;
    ok (layout_parse_cpus ("2,16(x3),1", 5, cpus, &e) == 0 && same (cpus, want, 5),
        "'2,16(x3),1' is 2,16,16,16,1");
    ok (layout_parse_cpus ("4(x1)", 1, cpus, &e) == 0 && cpus[0] == 4, "a repeat of 1 is accepted");
    ok (layout_parse_cpus ("4(x2),2", 4, cpus, &e) == -1 && errno == EINVAL &&
            strstr (e.text, "3 nodes") && strstr (e.text, "has 4"),
        "too few entries name both counts: %s", e.text);
    ok (layout_parse_cpus ("4(x4)", 2, cpus, &e) == -1 && strstr (e.text, "4 nodes") &&
            strstr (e.text, "has 2"),
        "too many entries name both counts: %s", e.text);
    ok (layout_parse_cpus ("4(x2147483647),4(x2147483647)", 2, cpus, &e) == -1 &&
            strstr (e.text, "4294967294 nodes"),
        "huge repeats are counted without overflow: %s", e.text);

    static const char *bad[] = {
        "",       "0",    "4,0",   "-4",   "+4",    "4 ",          " 4",       "4,",
        ",4",     "4,,4", "4(x0)", "4(x)", "4(2)",  "4(x2",        "4x2",      "4(x-1)",
        "4(x2)x", "a",    "4.0",   "(x2)", "4(X2)", "99999999999", "4(x2),2;",
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        e.text[0] = '\0';
        ok (layout_parse_cpus (bad[i], 2, cpus, &e) == -1 && strstr (e.text, "CPUs per node"),
            "'%s' is refused: %s", bad[i], e.text);
    }
    ok (layout_parse_cpus ("4\n", 1, cpus, &e) == -1 && strstr (e.text, "\\x0a"),
        "a control character in the message is escaped: %s", e.text);
    ok (layout_parse_cpus (NULL, 1, cpus, &e) == -1, "NULL is refused");
    ok (layout_parse_cpus ("4", 0, cpus, &e) == -1, "zero nodes are refused");
}

static void test_alloc (void)
{
    const char *names[] = {"n0", "n1", "n2"};
    const char *dup[] = {"n0", "n1", "n0"};
    const char *empty[] = {"n0", "", "n2"};
    layout_alloc_t *a;
    tm_error_t e;

    a = layout_alloc_create (3, names, "4(x2),2", &e);
    ok (a && a->nnodes == 3 && strcmp (a->nodes[2], "n2") == 0 && a->nodes[2] != names[2] &&
            a->cpus[0] == 4 && a->cpus[2] == 2,
        "an allocation copies its names and expands its CPUs");
    layout_alloc_destroy (a);
    ok (!layout_alloc_create (3, dup, "4(x3)", &e) && strstr (e.text, "'n0' is listed twice"),
        "a node listed twice is refused: %s", e.text);
    ok (!layout_alloc_create (3, empty, "4(x3)", &e) && strstr (e.text, "node 1"),
        "a node without a name is refused: %s", e.text);
    ok (!layout_alloc_create (3, names, "4(x2)", &e) && strstr (e.text, "has 3"),
        "CPUs for too few nodes are refused: %s", e.text);
    ok (!layout_alloc_create (0, names, "4", &e), "an allocation of no nodes is refused");
    layout_alloc_destroy (NULL);
    ok (1, "layout_alloc_destroy (NULL) is harmless");
}

/* The worked examples of research §1.3 (4 nodes of 4 CPUs unless said). */
static void test_research_examples (void)
{
    layout_request_t r;

    expect ("srun -n 6", 4, "4(x4)", req (6, 1, 4), 6, 4, 0, (int[]){2, 2, 1, 1});
    expect ("srun -N2 -n6", 4, "4(x4)", req (6, 1, 2), 6, 2, 0, (int[]){3, 3, 0, 0});
    expect ("srun in sbatch -N4", 4, "4(x4)", req (4, 0, 4), 4, 4, 1, (int[]){1, 1, 1, 1});
    expect ("srun in sbatch -N4 (ntasks before _opt_verify)", 4, "4(x4)", req (1, 0, 4), 4, 4, 1,
            (int[]){1, 1, 1, 1});
    expect ("srun in sbatch -N4 -n16", 4, "4(x4)", req (16, 1, 4), 16, 4, 0, (int[]){4, 4, 4, 4});
    r = req (8, 1, 2);
    r.tasks_per_node = 4;
    expect ("srun in sbatch -N2 --ntasks-per-node=4", 2, "4(x2)", r, 8, 2, 0, (int[]){4, 4});
    r = req (1, 0, 2);
    r.tasks_per_node = 4;
    expect ("srun --ntasks-per-node=4 in sbatch -N2 (no SLURM_NTASKS)", 2, "4(x2)", r, 8, 2, 0,
            (int[]){4, 4});
    expect ("srun -n2 in 4 nodes (nodes shrunk to 2)", 4, "4(x4)", req (2, 1, 4), 2, 2, 1,
            (int[]){1, 1, 0, 0});
    expect ("srun -n2 in 4 nodes (after _opt_verify)", 4, "4(x4)", req (2, 1, 2), 2, 2, 1,
            (int[]){1, 1, 0, 0});
    r = req (4, 1, 2);
    r.cpus_per_task = 2;
    expect ("srun -n4 -c2", 2, "4(x2)", r, 4, 2, 0, (int[]){2, 2});
    r = req (2, 0, 2);
    r.cpus_per_task = 2;
    expect ("srun -c2 without -n", 2, "4(x2)", r, 4, 2, 0, (int[]){2, 2});
}

static void test_more (void)
{
    layout_request_t r;

    r = req (3, 1, 4);
    expect ("srun -n3 in 4 nodes", 4, "4(x4)", r, 3, 3, 1, (int[]){1, 1, 1, 0});
    r = req (1, 1, 4);
    expect ("srun -n1", 4, "4(x4)", r, 1, 1, 1, (int[]){1, 0, 0, 0});
    r = req (2, 0, 2);
    r.cpus_per_task = 3;
    expect ("srun -c3 without -n", 2, "4(x2)", r, 2, 2, 1, (int[]){1, 1});
    r = req (6, 1, 2);
    r.tasks_per_node = 2;
    expect ("--ntasks-per-node=2 that does not match -n6 -N2 is dropped", 2, "4(x2)", r, 6, 2, 0,
            (int[]){3, 3});
    r = req (4, 1, 2);
    r.cpus_per_task = 2;
    r.tasks_per_node = 2;
    expect ("-n4 -c2 --ntasks-per-node=2", 2, "8(x2)", r, 4, 2, 0, (int[]){2, 2});
    /* slurm_step_layout.c:473-483 caps the tasks of a node at
     * ntasks-per-node times cpus-per-task, not at ntasks-per-node */
    r = req (5, 1, 2);
    r.cpus_per_task = 2;
    r.tasks_per_node = 2;
    expect ("-n5 -c2 --ntasks-per-node=2 (cap 2 x 2)", 2, "8,2", r, 5, 2, 0, (int[]){4, 1});

    /* heterogeneous CPUs on every node of the allocation */
    expect ("srun -n10", 3, "4(x2),2", req (10, 1, 3), 10, 3, 0, (int[]){4, 4, 2});
    expect ("srun -n9", 3, "4(x2),2", req (9, 1, 3), 9, 3, 0, (int[]){4, 3, 2});
    expect ("srun -n5", 3, "2,4(x2)", req (5, 1, 3), 5, 3, 0, (int[]){2, 2, 1});
    expect ("srun -n7", 3, "2,4(x2)", req (7, 1, 3), 7, 3, 0, (int[]){2, 3, 2});
    r = req (4, 1, 2);
    r.cpus_per_task = 3;
    expect ("-n4 -c3 on 8,4 (cpus per task falls back to 1)", 2, "8,4", r, 4, 2, 0, (int[]){2, 2});
    r = req (3, 1, 2);
    r.cpus_per_task = 3;
    expect ("-n3 -c3 on 8,4 (3 CPUs per task)", 2, "8,4", r, 3, 2, 0, (int[]){2, 1});
    r = req (3, 0, 3);
    r.cpus_per_task = 2;
    expect ("-c2 without -n on 4,4,2", 3, "4(x2),2", r, 5, 3, 0, (int[]){2, 2, 1});

    /* overcommit and over-subscription */
    r = req (20, 1, 4);
    r.overcommit = 1;
    expect ("srun -O -n20", 4, "4(x4)", r, 20, 4, 0, (int[]){5, 5, 5, 5});
    r = req (14, 1, 3);
    r.overcommit = 1;
    expect ("srun -O -n14", 3, "4(x2),2", r, 14, 3, 0, (int[]){6, 5, 3});
    r = req (10, 1, 2);
    r.overcommit = 1;
    expect ("srun -O -n10 (block)", 2, "4,1", r, 10, 2, 0, (int[]){7, 3});
    r.distribution = "cyclic";
    expect ("srun -O -n10 -m cyclic", 2, "4,1", r, 10, 2, 1, (int[]){6, 4});
    r = req (7, 1, 2);
    r.tasks_per_node = 3;
    expect ("-n7 -N2 --ntasks-per-node=3 over-subscribes past 3 per node", 2, "4(x2)", r, 7, 2, 0,
            (int[]){4, 3});
    r = req (5, 1, 2);
    r.overcommit = 1;
    r.cpus_per_task = 4;
    expect ("-O -n5 -c4", 2, "4(x2)", r, 5, 2, 0, (int[]){3, 2});

    /* distributions */
    r = req (6, 1, 4);
    r.distribution = "cyclic";
    expect ("srun -n6 -m cyclic", 4, "4(x4)", r, 6, 4, 1, (int[]){2, 2, 1, 1});
    r.distribution = "block:cyclic";
    expect ("srun -n6 -m block:cyclic", 4, "4(x4)", r, 6, 4, 0, (int[]){2, 2, 1, 1});
    r.distribution = "cyclic:fcyclic,nopack";
    expect ("srun -n6 -m cyclic:fcyclic,nopack", 4, "4(x4)", r, 6, 4, 1, (int[]){2, 2, 1, 1});
    r.distribution = "block,pack";
    expect ("srun -n6 -m block,pack", 4, "4(x4)", r, 6, 4, 0, (int[]){3, 1, 1, 1});
    r.distribution = "pack";
    expect ("srun -n6 -m pack", 4, "4(x4)", r, 6, 4, 0, (int[]){3, 1, 1, 1});
    r.distribution = NULL;
    r.pack_nodes = 1;
    expect ("srun -n6 under CR_PACK_NODES", 4, "4(x4)", r, 6, 4, 0, (int[]){3, 1, 1, 1});
    r.distribution = "nopack";
    expect ("srun -n6 -m nopack under CR_PACK_NODES", 4, "4(x4)", r, 6, 4, 0, (int[]){2, 2, 1, 1});
    r.distribution = "cyclic";
    expect ("srun -n6 -m cyclic under CR_PACK_NODES", 4, "4(x4)", r, 6, 4, 1, (int[]){2, 2, 1, 1});
    r = req (20, 1, 4);
    r.overcommit = 1;
    r.distribution = "block,pack";
    expect ("srun -O -n20 -m block,pack", 4, "4(x4)", r, 20, 4, 0, (int[]){5, 5, 5, 5});
    r = req (3, 1, 4);
    r.distribution = "block,pack";
    expect ("srun -n3 -m block,pack", 4, "4(x4)", r, 3, 3, 0, (int[]){1, 1, 1, 0});
}

static void test_unpredicted (void)
{
    layout_request_t r;
    layout_alloc_t *a = alloc (4, "4(x4)");
    layout_step_t step;
    int counts[4];
    char why[8];

    r = req (6, 1, 4);
    r.distribution = "plane=2";
    unpredicted ("-m plane=2", 4, "4(x4)", r, "plane=2");
    r.distribution = "arbitrary";
    unpredicted ("-m arbitrary", 4, "4(x4)", r, "arbitrary");
    r.distribution = "block,weird";
    unpredicted ("an unknown distribution flag", 4, "4(x4)", r, "block,weird");
    r.distribution = "*:block";
    unpredicted ("an unknown node distribution", 4, "4(x4)", r, "*:block");
    r = req (6, 1, 2);
    r.nodes_max = 4;
    unpredicted ("-N2-4", 4, "4(x4)", r, "range 2-4");
    unpredicted ("-N8 in 4 nodes", 4, "4(x4)", req (8, 1, 8), "8 nodes");
    unpredicted ("-n20 on 16 CPUs", 4, "4(x4)", req (20, 1, 4), "srun would fail");
    unpredicted ("-N2 -n10 on nodes of 4 CPUs", 4, "4(x4)", req (10, 1, 2), "srun would fail");
    r = req (6, 1, 2);
    r.cpus_per_task = 4;
    unpredicted ("-n6 -c4 on 2 nodes of 4", 2, "4(x2)", r, "srun would fail");
    /* _set_ntasks counts tasks over the CPUs of the whole allocation */
    r = req (2, 0, 2);
    r.cpus_per_task = 2;
    unpredicted ("-N2 -c2 without -n in 4 nodes (8 tasks of 2 CPUs)", 4, "4(x4)", r,
                 "needs 16 CPUs");
    unpredicted ("-N2 on 3 nodes of unequal CPUs", 3, "4(x2),2", req (6, 1, 2), "unequal");
    unpredicted ("-n11 on 10 unequal CPUs", 3, "4(x2),2", req (11, 1, 3), "srun would fail");
    r = req (1, 0, 2);
    r.tasks_per_node = INT_MAX;
    unpredicted ("a task count past INT_MAX", 2, "4(x2)", r, "4294967294 tasks");
    r = req (6, 1, 4);
    r.distribution = "plane=2";
    ok (layout_default (a, &r, &step, counts, why, sizeof (why), NULL) == 1 &&
            strlen (why) == sizeof (why) - 1,
        "a reason longer than its buffer is cut");
    layout_alloc_destroy (a);
}

static void test_invalid (void)
{
    layout_alloc_t *a = alloc (2, "4(x2)");
    layout_request_t r = req (4, 1, 2);
    layout_step_t step;
    int counts[2], bad_cpus[2] = {4, 0};
    char why[64];
    tm_error_t e;
    layout_alloc_t b = {.nnodes = 2, .nodes = a->nodes, .cpus = bad_cpus};

    ok (layout_default (NULL, &r, &step, counts, why, sizeof (why), &e) == -1,
        "no allocation is invalid");
    ok (layout_default (a, NULL, &step, counts, why, sizeof (why), &e) == -1,
        "no request is invalid");
    ok (layout_default (&b, &r, &step, counts, why, sizeof (why), &e) == -1 &&
            strstr (e.text, "node 1"),
        "a node of 0 CPUs is invalid: %s", e.text);
    r.ntasks = 0;
    ok (layout_default (a, &r, &step, counts, why, sizeof (why), &e) == -1 &&
            strstr (e.text, "ntasks 0"),
        "0 tasks are invalid: %s", e.text);
    r = req (4, 1, 0);
    ok (layout_default (a, &r, &step, counts, why, sizeof (why), &e) == -1,
        "0 nodes are invalid: %s", e.text);
    r = req (4, 1, 3);
    r.nodes_max = 2;
    ok (layout_default (a, &r, &step, counts, why, sizeof (why), &e) == -1,
        "nodes 3-2 are invalid: %s", e.text);
    r = req (4, 1, 2);
    r.tasks_per_node = -2;
    ok (layout_default (a, &r, &step, counts, why, sizeof (why), &e) == -1,
        "a negative ntasks-per-node is invalid: %s", e.text);
    r = req (4, 1, 2);
    r.cpus_per_task = -1;
    ok (layout_default (a, &r, &step, counts, why, sizeof (why), &e) == -1,
        "a negative cpus-per-task is invalid: %s", e.text);
    layout_alloc_destroy (a);
}

/* Slurm's loops (slurm_step_layout.c), round by round, for tasks n on
 * nodes of capacities cpus[k]: mode 0 block, 1 cyclic, 2 block with pack.
 */
static void slurm_layout (int k, const int *cpus, int n, int mode, int *tasks)
{
    int task_id = 0;

    memset (tasks, 0, (size_t)k * sizeof (int));
    if (mode == 2) {
        for (int i = 0; i < k && task_id < n; i++)
            if (tasks[i] < cpus[i])
                tasks[i]++, task_id++;
        for (int i = 0; i < k && task_id < n; i++)
            while (tasks[i] < cpus[i] && task_id < n)
                tasks[i]++, task_id++;
        while (task_id < n)
            for (int i = 0; i < k && task_id < n; i++)
                tasks[i]++, task_id++;
    } else if (mode == 0) {
        int over = 0;
        for (int j = 0; task_id < n; j++) {
            int space = 0;
            for (int i = 0; i < k && task_id < n; i++)
                if (j < cpus[i] || over) {
                    tasks[i]++, task_id++;
                    if (j + 1 < cpus[i])
                        space = 1;
                }
            if (!space)
                over = 1;
        }
    } else {
        int total = 0, mo = 0, over = 0;
        for (int i = 0; i < k; i++)
            total += cpus[i];
        if (total < n) {
            over = 1;
            mo = (n - total + k - 1) / k;
        }
        for (int j = 0; task_id < n; j++) {
            int space = 0;
            for (int i = 0; i < k && task_id < n; i++)
                if (j < cpus[i] || (over && j < cpus[i] + mo)) {
                    tasks[i]++, task_id++;
                    if (j + 1 < cpus[i])
                        space = 1;
                }
            if (!space)
                over = 1;
        }
    }
}

/* On every node of an allocation with overcommit (one CPU per task), the
 * counts are Slurm's loops over the allocation's CPUs.
 */
static void test_against_slurm_loops (void)
{
    static const char *mode_name[] = {"block", "cyclic", "block,pack"};
    int bad[3] = {0, 0, 0}, runs = 0;
    unsigned seed = 12345;

    for (int trial = 0; trial < 3000; trial++) {
        int k = 1 + (int)((seed = seed * 1103515245 + 12345) >> 16) % 12;
        int cpus[16], want[16], counts[16];
        char spec[256];
        size_t o = 0;
        int mode = trial % 3, n, total = 0;
        layout_alloc_t *a;
        layout_request_t r;
        layout_step_t step;
        char why[128];
        tm_error_t e;

        for (int i = 0; i < k; i++) {
            cpus[i] = 1 + (int)((seed = seed * 1103515245 + 12345) >> 16) % 9;
            total += cpus[i];
            o += (size_t)snprintf (spec + o, sizeof (spec) - o, "%s%d", i ? "," : "", cpus[i]);
        }
        n = k + (int)((seed = seed * 1103515245 + 12345) >> 16) % (2 * total + 1);
        a = alloc (k, spec);
        r = req (n, 1, k);
        r.overcommit = 1;
        r.distribution = mode_name[mode];
        slurm_layout (k, cpus, n, mode, want);
        if (layout_default (a, &r, &step, counts, why, sizeof (why), &e) != 0 || step.ntasks != n ||
            step.nnodes != k || !same (counts, want, k)) {
            if (!bad[mode]++)
                diag ("%s, %d tasks on CPUs %s: wrong counts", mode_name[mode], n, spec);
        }
        runs++;
        layout_alloc_destroy (a);
    }
    for (int m = 0; m < 3; m++)
        ok (bad[m] == 0, "%s counts match Slurm's loops on %d random allocations", mode_name[m],
            runs / 3);
}

static void test_check_ranks (void)
{
    char *names[] = {"n0", "n1", "n2"};
    int counts[] = {2, 1, 0};
    tm_error_t e;

    ok (layout_check_ranks (3, counts, 3, (int[]){1, 0, 0}, names, &e) == 0,
        "ranks that give each node its count pass");
    ok (layout_check_ranks (3, counts, 3, (int[]){1, 1, 0}, names, &e) == -1 &&
            strstr (e.text, "node n0 gets 1 rank, srun's layout gives it 2"),
        "a node short of its count is named: %s", e.text);
    ok (layout_check_ranks (3, counts, 3, (int[]){0, 0, 2}, NULL, &e) == -1 &&
            strstr (e.text, "node 1 gets 0"),
        "without names the node is numbered: %s", e.text);
    ok (layout_check_ranks (3, counts, 3, (int[]){0, 3, 0}, names, &e) == -1 &&
            strstr (e.text, "rank 1 is placed on node 3, outside 0..2"),
        "a node index out of range is refused: %s", e.text);
    ok (layout_check_ranks (3, counts, 3, (int[]){0, -1, 0}, names, &e) == -1 &&
            strstr (e.text, "rank 1"),
        "a negative node index is refused: %s", e.text);
    ok (layout_check_ranks (3, counts, 2, (int[]){0, 1}, names, &e) == -1,
        "too few ranks are refused: %s", e.text);
    ok (layout_check_ranks (3, counts, 0, (int[]){0}, names, &e) == -1, "no ranks are refused");
}

static void test_check_name (void)
{
    char longname[LAYOUT_NAME_MAX + 2];
    tm_error_t e;

    static const char *good[] = {"n0", "node-17", "a.b_c", "9lives", "N"};
    for (size_t i = 0; i < sizeof (good) / sizeof (good[0]); i++)
        ok (layout_check_name (good[i], &e) == 0, "'%s' can be a hostfile line", good[i]);
    memset (longname, 'a', LAYOUT_NAME_MAX);
    longname[LAYOUT_NAME_MAX] = '\0';
    ok (layout_check_name (longname, &e) == 0, "a name of %d bytes is accepted", LAYOUT_NAME_MAX);
    longname[LAYOUT_NAME_MAX] = 'a';
    longname[LAYOUT_NAME_MAX + 1] = '\0';
    ok (layout_check_name (longname, &e) == -1 && strstr (e.text, "too long"),
        "a name of %d bytes is refused: %s", LAYOUT_NAME_MAX + 1, e.text);

    static const struct {
        const char *name, *fault;
    } bad[] = {
        {"", "empty"},
        {"-n0", "does not start"},
        {"_n0", "does not start"},
        {".n0", "does not start"},
        {"#n0", "does not start"},
        {"n 0", "space"},
        {"n0\t", "space"},
        {"n0\n", "control"},
        {"n\x7f", "control"},
        {"n0,n1", "','"},
        {"n0*3", "'*'"},
        {"n0#x", "'#'"},
        {"n[0-3]", "'['"},
        {"n0]", "']'"},
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        errno = 0;
        e.text[0] = '\0';
        ok (layout_check_name (bad[i].name, &e) == -1 && errno == EINVAL &&
                strstr (e.text, bad[i].fault),
            "name %zu is refused, naming the fault: %s", i, e.text);
    }
    ok (layout_check_name (NULL, &e) == -1, "a NULL name is refused");
}

/* node_of_rank as "(vector,...)" and back, and both refusing what they
 * must.
 */
static void test_pmi_mapping (void)
{
    static const struct {
        int n;
        int nodes[16];
        const char *want;
    } cases[] = {
        {16, {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7}, "(vector,(0,8,2))"},
        {8, {0, 1, 2, 3, 0, 1, 2, 3}, "(vector,(0,4,1),(0,4,1))"},
        {8, {0, 1, 0, 1, 2, 3, 2, 3}, "(vector,(0,2,1),(0,4,1),(2,2,1))"},
        {6, {0, 0, 0, 1, 2, 2}, "(vector,(0,1,3),(1,1,1),(2,1,2))"},
        {4, {3, 3, 1, 1}, "(vector,(3,1,2),(1,1,2))"},
        {1, {0}, "(vector,(0,1,1))"},
    };
    char buf[LAYOUT_PMI_MAPPING_MAX + 1];
    int back[1000], nodes[1000];
    tm_error_t e;

    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        int rc = layout_pmi_mapping (cases[i].n, cases[i].nodes, buf, sizeof (buf), &e);
        ok (rc == 0 && !strcmp (buf, cases[i].want), "mapping %zu is %s: %s", i, cases[i].want,
            rc == 0 ? buf : e.text);
        rc = layout_pmi_mapping_parse (buf, cases[i].n, back, &e);
        ok (rc == 0 && same (back, cases[i].nodes, cases[i].n), "mapping %zu reads back", i);
    }

    /* Random layouts of 200 ranks on up to 8 nodes, in runs: read back. */
    srand (7);
    int good = 0, tries = 200;
    for (int t = 0; t < tries; t++) {
        int n = 1 + rand () % 200, node = rand () % 8;
        for (int r = 0; r < n; r++) {
            if (rand () % 4 == 0)
                node = rand () % 8;
            nodes[r] = node;
        }
        if (layout_pmi_mapping (n, nodes, buf, sizeof (buf), &e) == 0)
            good += layout_pmi_mapping_parse (buf, n, back, &e) == 0 && same (back, nodes, n);
        else
            good += errno == E2BIG;
    }
    ok (good == tries, "random layouts read back, or are too long: %d of %d", good, tries);

    /* Too long: 1000 ranks alternating between two nodes apart. */
    for (int r = 0; r < 1000; r++)
        nodes[r] = r % 2 ? 5 : 0;
    ok (layout_pmi_mapping (1000, nodes, buf, sizeof (buf), &e) == -1 && errno == E2BIG &&
            strstr (e.text, "more than the 673 PMI passes whole") && buf[0] == '\0',
        "a mapping longer than PMI passes is refused: %s", e.text);
    ok (layout_pmi_mapping (16, cases[0].nodes, buf, 16, &e) == -1 && errno == E2BIG &&
            strstr (e.text, "takes 16 bytes, more than the 15 given"),
        "a mapping longer than the buffer is refused: %s", e.text);
    nodes[0] = -1;
    ok (layout_pmi_mapping (2, nodes, buf, sizeof (buf), &e) == -1 && errno == EINVAL &&
            strstr (e.text, "rank 0 is on node -1"),
        "a negative node is refused: %s", e.text);
    ok (layout_pmi_mapping (0, nodes, buf, sizeof (buf), &e) == -1, "no ranks are refused");

    static const struct {
        const char *s;
        int n;
        const char *fault;
    } bad[] = {
        {"", 1, "does not start"},
        {"(vector)", 1, "fewer ranks"},
        {"(vector,(0,2,1))", 3, "fewer ranks"},
        {"(vector,(0,2,1),(0,1,1))", 2, "more ranks"},
        {"(vector,(0,2,1)", 2, "does not end"},
        {"(vector,(0,2,1)) ", 2, "does not end"},
        {"(vector,(0,2,1))x", 2, "does not end"},
        {"(vector, (0,2,1))", 2, "does not start with ("},
        {"(vector,(0,0,1))", 1, "no nodes or no ranks"},
        {"(vector,(0,1,0))", 1, "no nodes or no ranks"},
        {"(vector,(-1,1,1))", 1, "three decimal numbers"},
        {"(vector,(01,1,1))", 1, "three decimal numbers"},
        {"(vector,(0x1,1,1))", 1, "three decimal numbers"},
        {"(vector,(0,1))", 1, "three decimal numbers"},
        {"(vector,(0,1,1,1))", 1, "three decimal numbers"},
        {"(vector,(0,99999999999,1))", 1, "three decimal numbers"},
        {"(vector,(2147483647,2,1))", 2, "beyond node 2147483647"},
        {"(vector,(0,2,1073741824))", 2, "more ranks"},
        {"(hostname,(0,1,1))", 1, "does not start"},
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        e.text[0] = '\0';
        ok (layout_pmi_mapping_parse (bad[i].s, bad[i].n, back, &e) == -1 && errno == EINVAL &&
                strstr (e.text, bad[i].fault),
            "mapping '%s' is refused: %s", bad[i].s, e.text);
    }
    ok (layout_pmi_mapping_parse (NULL, 1, back, &e) == -1, "a NULL mapping is refused");
}

/* Slurm 26.05's topology order (slurm_step_layout.c _task_layout_topo,
 * stepmgr.c _pick_step_nodes): nodes by rank, ties in allocation order. */
static void expect_topo (const char *what, int k, const char *cpus, layout_request_t r,
                         const int *rank, int nnodes, int cyclic, int topo, const int *want)
{
    layout_alloc_t *a = alloc (k, cpus);
    layout_step_t step;
    int counts[64];
    char why[128], b1[256], b2[256];
    tm_error_t e;
    int rc;

    r.node_rank = rank;
    rc = layout_default (a, &r, &step, counts, why, sizeof (why), &e);
    if (rc != 0)
        diag ("rc %d: %s", rc, rc < 0 ? e.text : why);
    ok (rc == 0 && step.nnodes == nnodes && step.cyclic == cyclic && step.topo == topo &&
            same (counts, want, k),
        "topology order: %s: counts [%s]%s", what, show (want, k, b1, sizeof (b1)),
        topo ? " in the topology's order" : "");
    if (rc == 0 && !same (counts, want, k))
        diag ("got counts [%s], topo %d", show (counts, k, b2, sizeof (b2)), step.topo);
    layout_alloc_destroy (a);
}

static void test_topo_order (void)
{
    /* 2sw-interleaved's leaves: n0,n2,n4,n6 under the first switch */
    int leaves[8] = {1, 2, 1, 2, 1, 2, 1, 2}, order[8], want_order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    int r4[4] = {2, 1, 2, 1}, tied[4] = {0, 0, 0, 0};
    layout_request_t r;

    ok (layout_node_order (8, leaves, order) == 0 && same (order, want_order, 8),
        "layout_node_order: by rank, ties in allocation order");
    ok (layout_node_order (4, NULL, order) == 0 && order[0] == 0 && order[3] == 3,
        "layout_node_order without ranks: allocation order");
    /* srun -N8 -n16 in the Debian testing root (Slurm 26.05.5), topology/tree
     * over 2sw-interleaved: SLURM_JOB_CPUS_PER_NODE 4,1,4,1,3,1(x3), tasks
     * 0-3 on n1, 4-7 on n3, 8-10 on n5, 11 on n7, then n2, n4, n6, n8 */
    expect_topo ("the emulated cluster's 16 tasks", 8, "4,1,4,1,3,1(x3)", req (16, 1, 8), leaves, 8,
                 0, 1, (int[]){4, 1, 4, 1, 3, 1, 1, 1});
    /* the last round's extra tasks go to the first nodes in rank order */
    expect_topo ("6 tasks on 4 nodes of 4", 4, "4(x4)", req (6, 1, 4), r4, 4, 0, 1,
                 (int[]){1, 2, 1, 2});
    expect_topo ("ranks all 0: allocation order", 4, "4(x4)", req (6, 1, 4), tied, 4, 0, 1,
                 (int[]){2, 2, 1, 1});
    /* fewer step nodes: the first in rank order */
    expect_topo ("-N2 -n8", 4, "4(x4)", req (8, 1, 2), r4, 2, 0, 1, (int[]){0, 4, 0, 4});
    /* a cyclic step (tasks <= nodes) picks by rank, deals in allocation order */
    expect_topo ("-N2 -n2 (cyclic)", 4, "4(x4)", req (2, 1, 2), r4, 2, 1, 0, (int[]){0, 1, 0, 1});
    /* _task_layout_topo never packs */
    r = req (6, 1, 4);
    r.pack_nodes = 1;
    expect_topo ("CR_PACK_NODES does not apply", 4, "4(x4)", r, r4, 4, 0, 1, (int[]){1, 2, 1, 2});
    r = req (8, 0, 4);
    r.tasks_per_node = 2;
    expect_topo ("--ntasks-per-node=2", 4, "4(x4)", r, r4, 4, 0, 1, (int[]){2, 2, 2, 2});
    r = req (16, 1, 4);
    r.distribution = "cyclic";
    expect_topo ("-m cyclic", 4, "4(x4)", r, r4, 4, 1, 0, (int[]){4, 4, 4, 4});
}

int main (void)
{
    const char *tmp = getenv ("TMPDIR");

    plan (NO_PLAN);
    snprintf (dir, sizeof (dir), "%s/layout-test.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp (dir)) {
        perror ("mkdtemp");
        return 1;
    }
    test_parse_cpus ();
    test_alloc ();
    test_research_examples ();
    test_more ();
    test_unpredicted ();
    test_invalid ();
    test_against_slurm_loops ();
    test_check_ranks ();
    test_check_name ();
    test_pmi_mapping ();
    test_topo_order ();
    rmdir (dir);
    return done_testing ();
}
