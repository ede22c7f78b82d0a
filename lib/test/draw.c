/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lib/draw: the pictures are whole SVG documents with one
 * cell per matrix entry, names from files escaped, counts that match what
 * was drawn, and nothing left behind when the file cannot be written.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/draw.h"
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
    const char *names[] = { "a1", "<b&\"2\">", "a3", "b4" };
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
        ring[r] = (profile_entry_t){ r, (r + 1) % 8, 10, (uint64_t)1000 * (r + 1) };
    profile_t *p = profile_create (8, 8, ring, &e);
    in_dir (path, "profile.svg");
    ok (draw_profile (p, "ring <8>", path, &e) == 0, "a profile is drawn");
    s = slurp (path);
    ok (s && whole_svg (s), "the profile's picture is one whole SVG document");
    ok (s && count (s, "<rect x=") - 50 == 64 + 1, "it has a cell per rank pair, a frame and a legend");
    ok (s && count (s, "fill=\"#eeeeee\"") == 64 - 8, "pairs that never talked are grey");
    ok (s && strstr (s, "ring &lt;8&gt;") && !strstr (s, "ring <8>"), "the title is escaped");
    free (s);

    /* The netmap: two heatmaps, the odd name escaped. */
    netmap_t *nm = netmap4 (1);
    in_dir (path, "netmap.svg");
    ok (draw_netmap (nm, "net", path, &e) == 0, "a netmap is drawn");
    s = slurp (path);
    ok (s && whole_svg (s), "the netmap's picture is one whole SVG document");
    ok (s && count (s, "<rect x=") - 2 * 50 == 2 * (16 + 1), "it has two 4 x 4 heatmaps");
    ok (s && strstr (s, "&lt;b&amp;&quot;2&quot;&gt;") && !strstr (s, "<b&"),
        "host names are escaped");
    ok (s && strstr (s, "ordered and outlined by cluster"), "it says how hosts are ordered");
    free (s);

    /* A placement: 4 ranks in pairs 0-1 and 2-3, each pair on one host (block),
     * nothing; on hosts 0,1 and 2,3 they cross the groups (odd, even).
     */
    profile_entry_t pairs[] = { { 0, 1, 5, 5000 }, { 1, 0, 5, 5000 },
                                { 2, 3, 5, 5000 }, { 3, 2, 5, 5000 } };
    profile_t *p4 = profile_create (4, 4, pairs, &e);
    int block[] = { 0, 0, 1, 1 }, plan_[] = { 0, 1, 2, 3 };
    map_candidate_t cand[2] = {
        { .name = "topomap", .node = plan_, .cost_s = 0.001 },
        { .name = "block", .node = block, .cost_s = 0.004 },
    };
    map_result_t res = { .ntasks = 4, .ncandidates = 2, .cand = cand, .chosen = 0 };
    in_dir (path, "place.svg");
    ok (draw_placement (p4, nm, &res, path, &e) == 0, "a placement is drawn");
    s = slurp (path);
    ok (s && whole_svg (s), "the placement's picture is one whole SVG document");
    ok (s && strstr (s, "predicted gain 75.0%"), "it states the predicted gain");
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
    ok (draw_profile (p, "x", path, &e) < 0 && strstr (e.text, "missing"),
        "an unwritable path is an error naming it: %s", e.text);
    in_dir (path, "missing");
    ok (access (path, F_OK) < 0, "nothing is created on failure");

    /* Without an inferred topology: one group, still drawn. */
    netmap_t *flat = netmap4 (0);
    in_dir (path, "flat.svg");
    ok (draw_placement (p4, flat, &res, path, &e) == 0, "a netmap without topology draws one group");
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
