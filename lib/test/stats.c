/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <math.h>
#include <stddef.h>

#include "lib/stats.h"
#include "lib/test/tap.h"

/* An element with its key among other fields, as the sampling plan's. */
typedef struct {
    int tag[3];
    double key, other;
} elem_t;

/* stats_select on structs, for every q of lists 1 to 60 long with
 * repeats: element q's key is the q-th of a sort, none before it larger,
 * none after smaller, and every element's other fields travel with it.
 */
static void test_select (void)
{
    elem_t e[60];
    unsigned x = 11;
    int bad = 0;

    for (int n = 1; n <= 60 && !bad; n++)
        for (int q = 0; q < n && !bad; q++) {
            int below = 0, equal = 0;
            for (int i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                e[i] = (elem_t){{i, -i, 2 * i}, (double)((x >> 16) % 9), (double)i};
            }
            double keys[60];
            for (int i = 0; i < n; i++)
                keys[i] = e[i].key;
            stats_select (e, n, sizeof (*e), offsetof (elem_t, key), q);
            for (int i = 0; i < n; i++) {
                below += keys[i] < e[q].key;
                equal += keys[i] == e[q].key;
                if ((i < q && e[i].key > e[q].key) || (i > q && e[i].key < e[q].key) ||
                    e[i].tag[1] != -e[i].tag[0] || e[i].tag[2] != 2 * e[i].tag[0] ||
                    e[i].other != e[i].tag[0] || keys[e[i].tag[0]] != e[i].key)
                    bad = 1000 * n + q;
            }
            if (!(below <= q && q < below + equal))
                bad = 1000 * n + q;
        }
    ok (!bad, "stats_select on structs: the q-th key at q, partitioned, fields kept (%d)", bad);
}

int main (void)
{
    double v[] = {5, 1, 4, 2, 3};
    double even[] = {4, 1, 3, 2};
    double flat[] = {10, 10, 10, 10, 10};
    double noisy[] = {10, 20, 5, 30, 1};

    plan (NO_PLAN);
    ok (fabs (stats_t975 (1) - 12.706) < 1e-9, "t quantile for 1 degree of freedom is 12.706");
    ok (fabs (stats_t975 (10) - 2.228) < 1e-9, "t quantile for 10 degrees of freedom is 2.228");
    ok (fabs (stats_t975 (120) - 1.980) < 0.003, "t quantile for 120 degrees is near 1.980");
    ok (isinf (stats_t975 (0)), "t quantile without degrees of freedom is infinite");
    ok (stats_mean (v, 5) == 3, "the mean of 1..5 is 3");
    ok (fabs (stats_ci95 (v, 5) - 2.776 * sqrt (2.5) / sqrt (5)) < 1e-9,
        "the CI half-width of 1..5 is t(4) s / sqrt(n)");
    ok (isinf (stats_ci95 (v, 1)), "one sample has an infinite CI");
    ok (stats_median (v, 5) == 3, "the median of an odd count is the middle value");
    ok (stats_median (even, 4) == 2.5, "the median of an even count averages the middle two");
    ok (isnan (stats_median (v, 0)), "the median of nothing is NaN");
    {
        /* shuffled lists with repeats: the median a sort gives */
        double big[1001], sorted[1001];
        unsigned x = 7;
        int bad = 0;
        for (int n = 1; n <= 1001 && !bad; n += 37) {
            for (int i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                big[i] = sorted[i] = (double)((x >> 16) % 50);
            }
            for (int i = 1; i < n; i++) /* insertion sort: the reference */
                for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
                    double t = sorted[j];
                    sorted[j] = sorted[j - 1];
                    sorted[j - 1] = t;
                }
            double want = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
            bad = stats_median (big, n) != want ? n : 0;
        }
        ok (!bad, "the median of shuffled lists with repeats, 1 to 1001 long, as sorted (%d)", bad);
    }
    ok (!stats_enough (flat, 2, 3, 100, 0.03), "fewer than the minimum samples are not enough");
    ok (stats_enough (flat, 3, 3, 100, 0.03), "identical samples past the minimum are enough");
    ok (!stats_enough (noisy, 5, 3, 100, 0.03), "noisy samples under the cap are not enough");
    ok (stats_enough (noisy, 5, 3, 5, 0.03), "noisy samples at the cap are enough");
    test_select ();
    return done_testing ();
}
