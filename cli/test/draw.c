/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for cli/draw: the pictures are whole SVG documents with a
 * cell per matrix entry that has a value, with that value as its title,
 * on a black ground, the columns' title above the matrix and the colour
 * bar below, a legend that says what dark, bright and black mean, bytes
 * in KiB as the text gives them, names from files escaped, counts that
 * match what was drawn, one colour scale for both layouts of a
 * placement, its diagonal drawn, large matrices in blocks, and nothing
 * left behind when the file cannot be written.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/draw.h"
#include "lib/file.h"
#include "lib/test/tap.h"
#include "lib/test/support.h"

static char *slurp (const char *path)
{
    char *buf = NULL;
    size_t len;
    tm_error_t e;

    if (file_slurp (path, 1 << 24, &buf, &len, &e) < 0)
        diag ("%s", e.text);
    return buf;
}

static int count (const char *s, const char *what)
{
    int n = 0;

    for (const char *p = s; (p = strstr (p, what)); p += strlen (what))
        n++;
    return n;
}

/* The y attribute of the element holding what (its first), or NAN. */
static double y_of (const char *s, const char *what)
{
    const char *at = s ? strstr (s, what) : NULL, *y = NULL;

    for (const char *p = s; at && (p = strstr (p, " y=\"")) && p < at; p++)
        y = p;
    return y ? strtod (y + 4, NULL) : NAN;
}

static int whole_svg (const char *s)
{
    size_t len = strlen (s);

    return !strncmp (s, "<?xml", 5) && strstr (s, "<svg ") && len > 7 &&
           !strcmp (s + len - 7, "</svg>\n") && count (s, "<svg ") == 1;
}

/* 2 switches of 2 hosts, the second host named with XML's special
 * characters; host 3 has no inferred group separation when topo is NULL.
 */
static netmap_t *netmap4 (int with_topo)
{
    const char *names[] = {"a1", "<b&\"2\">", "a3", "b4"};
    netmap_t *nm = netmap_create (4, names, NULL);
    tm_error_t e;

    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int same = (i % 2) == (j % 2);

            NETMAP_AT (nm, lat_us, i, j) = i == j ? 1 : same ? 10 : 100;
            NETMAP_AT (nm, bw_MBps, i, j) = i == j ? 5000 : same ? 1000 : 100;
        }
    if (with_topo) {
        nm->topo = topo_alloc (TOPO_GROUPS, 4, 7, &e);
        nm->topo->ngroups = 2;
        for (int i = 0; i < 4; i++)
            nm->topo->group[i] = i % 2;
        nm->topo->parent[0] = nm->topo->parent[2] = 4;
        nm->topo->parent[1] = nm->topo->parent[3] = 5;
        nm->topo->parent[4] = nm->topo->parent[5] = 6;
        nm->topo->parent[6] = -1;
    }
    return nm;
}

int main (void)
{
    char path[PATH_MAX], *s;
    tm_error_t e;

    plan (NO_PLAN);
    if (scratch_dir ("draw-test") < 0)
        return done_testing ();

    /* A ring of 8 ranks: 8 nonzero cells of 64. */
    profile_entry_t ring[8];
    for (int r = 0; r < 8; r++)
        ring[r] = (profile_entry_t){r, (r + 1) % 8, 10, (uint64_t)1000 * (r + 1)};
    profile_t *p = profile_create (8, 8, ring, &e);
    profile_set_string (&p->exe_path, "/bin/ring <8>", &e);
    snprintf (p->jobid, sizeof (p->jobid), "42");
    in_dir (path, "profile.svg");
    ok (draw_profile (p, path, &e) == 0, "a profile is drawn");
    s = slurp (path);
    ok (s && whole_svg (s), "the profile's picture is one whole SVG document");
    ok (s && count (s, "<rect x=") == 1 + 8 + 1 + 50 + 1,
        "a ground, a cell per pair that talked, a frame, a colour bar and a swatch");
    ok (s && count (s, "fill=\"#000000\"") == 2 && strstr (s, ">black: never talked<"),
        "pairs that never talked are the black ground, beyond the dark end, and the legend says "
        "so");
    ok (s && count (s, "<title>") == 1 + 8 && strstr (s, "<title>0 to 1: 1000 B</title>") &&
            strstr (s, "<title>7 to 0: 7.81 KiB</title>") &&
            strstr (s, "<title>black: never talked</title>"),
        "each cell names its row, column and value, the ground what it means");
    ok (s && strstr (s, ">sending rank<") && strstr (s, ">receiving rank<"),
        "the axes say who sends and who receives");
    ok (s && y_of (s, ">receiving rank<") < y_of (s, "fill=\"#000000\"") &&
            y_of (s, ">dark: fewer") > y_of (s, "fill=\"#000000\"") + 8 * 28,
        "the columns' title is above the matrix (%.0f, the matrix at %.0f), the legend below",
        y_of (s, ">receiving rank<"), y_of (s, "fill=\"#000000\""));
    ok (s && strstr (s, ">dark: fewer, bright: more (logarithmic scale)<") && strstr (s, ">8 B<") &&
            strstr (s, ">7.81 KiB<"),
        "the legend gives its ends in bytes (KiB, as the text) and what dark and bright mean");
    ok (s && strstr (s, ">Communication of ring &lt;8&gt;, 8 ranks, job 42, recorded ") &&
            !strstr (s, "ring <8>") && !strstr (s, "/bin/"),
        "the title names the program and the job, escaped, not a path");
    free (s);

    /* 65 536 ranks in a ring: drawn in blocks of 512, in little memory. */
    {
        int big = 65536;
        profile_entry_t *ents = calloc ((size_t)big, sizeof (*ents));
        struct rusage ru;

        for (int r = 0; ents && r < big; r++)
            ents[r] = (profile_entry_t){r, (r + 1) % big, 1, 4096};
        profile_t *pb = ents ? profile_create (big, (size_t)big, ents, &e) : NULL;
        in_dir (path, "big.svg");
        ok (pb && draw_profile (pb, path, &e) == 0, "a profile of 65536 ranks is drawn");
        s = slurp (path);
        ok (s && strstr (s, ">bytes between blocks of 512 ranks<") && strstr (s, ">0-511<") &&
                count (s, "<rect x=") <= DRAW_CELLS * DRAW_CELLS + 53,
            "in blocks of 512 ranks, at most %d x %d cells", DRAW_CELLS, DRAW_CELLS);
        ok (getrusage (RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss < 400 * 1024,
            "within 400 MiB (%ld KiB at the most)", ru.ru_maxrss);
        free (s);
        profile_destroy (pb);
        free (ents);
    }

    /* The netmap: two heatmaps, the odd name escaped. */
    netmap_t *nm = netmap4 (1);
    in_dir (path, "netmap.svg");
    ok (draw_netmap (nm, path, &e) == 0, "a netmap is drawn");
    s = slurp (path);
    ok (s && whole_svg (s), "the netmap's picture is one whole SVG document");
    ok (s && count (s, "<rect x=") == 2 * (1 + 16 + 1 + 50 + 1), "it has two 4 x 4 heatmaps");
    ok (s && count (s, ">from node<") == 2 && count (s, ">to node<") == 2 &&
            count (s, ">dark: slower, bright: faster<") == 2,
        "both say which way they read, and bright is fast in both");
    ok (s && strstr (s, ">100 us<") && strstr (s, ">0 us<") &&
            strstr (s, ">100 us<") < strstr (s, ">0 us<") && strstr (s, ">5 GB/s<"),
        "latency's dark end is its highest, in us; bandwidth's bright end its highest");
    ok (s && strstr (s, ">Network of 4 nodes, "), "the title names the network, not a file");
    ok (s && strstr (s, "&lt;b&amp;&quot;2&quot;&gt;") && !strstr (s, "<b&"),
        "host names are escaped");
    ok (s && strstr (s, "ordered and outlined by cluster"), "it says how hosts are ordered");
    free (s);

    /* A placement: 4 ranks in pairs 0-1 and 2-3, each pair on one host (block),
     * nothing; on hosts 0,1 and 2,3 they cross the groups (odd, even).
     */
    profile_entry_t pairs[] = {{0, 1, 5, 5000}, {1, 0, 5, 5000}, {2, 3, 5, 5000}, {3, 2, 5, 5000}};
    profile_t *p4 = profile_create (4, 4, pairs, &e);
    int block[] = {0, 0, 1, 1}, plan_[] = {0, 1, 2, 3};
    map_candidate_t cand[2] = {
        {.name = "topomap", .node = plan_, .cost_s = 0.001},
        {.name = "block", .node = block, .cost_s = 0.004},
    };
    map_result_t res = {.ntasks = 4, .ncandidates = 2, .cand = cand, .chosen = 0};
    in_dir (path, "place.svg");
    ok (draw_placement (p4, nm, &res, path, &e) == 0, "a placement is drawn");
    s = slurp (path);
    ok (s && whole_svg (s), "the placement's picture is one whole SVG document");
    ok (s && strstr (s, "predicted gain 75.0%: the cost model's time"),
        "it states the predicted gain as the model's");
    ok (s && count (s, ">dark: fewer, bright: more (logarithmic scale)<") == 2 &&
            count (s, ">9.77 KiB<") == 2 && count (s, ">5 B<") == 2,
        "both layouts' bytes on one scale: the same ends under each");
    ok (s && count (s, "<title>a1 to a1: 9.77 KiB</title>") == 1 &&
            count (s, "<title>a1 to &lt;b&amp;&quot;2&quot;&gt;: 4.88 KiB</title>") == 1 &&
            strstr (s, "(the diagonal: inside one)"),
        "the diagonal holds what ranks send inside their node: block's pairs, each on its node");
    ok (s && strstr (s, ">0.0% of the bytes cross clusters<"),
        "block's pairs on one host cross nothing");
    ok (s && strstr (s, ">100.0% of the bytes cross clusters<"),
        "the plan's pairs split across groups cross everything");
    free (s);

    /* No block candidate: refused. */
    res.ncandidates = 1;
    ok (draw_placement (p4, nm, &res, path, &e) < 0 && strstr (e.text, "no block layout"),
        "a plan without srun's layout to compare is refused: %s", e.text);
    res.ncandidates = 2;

    /* Unwritable: an error naming the path, nothing left behind. */
    in_dir (path, "missing/x.svg");
    ok (draw_profile (p, path, &e) < 0 && strstr (e.text, "missing"),
        "an unwritable path is an error naming it: %s", e.text);
    in_dir (path, "missing");
    ok (access (path, F_OK) < 0, "nothing is created on failure");

    /* Without an inferred topology: one group, still drawn. */
    netmap_t *flat = netmap4 (0);
    in_dir (path, "flat.svg");
    ok (draw_placement (p4, flat, &res, path, &e) == 0,
        "a netmap without topology draws one group");
    s = slurp (path);
    ok (s && strstr (s, "no topology") == NULL && count (s, ">switch 1<") == 2,
        "both layouts show the single group");
    free (s);

    remove_tree (dir);
    profile_destroy (p);
    profile_destroy (p4);
    netmap_destroy (nm);
    netmap_destroy (flat);
    return done_testing ();
}
