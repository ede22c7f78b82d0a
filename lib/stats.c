/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "lib/stats.h"

double stats_t975 (int df)
{
    static const double t[] = {
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    };
    if (df < 1)
        return INFINITY;
    if (df <= 30)
        return t[df - 1];
    return 1.960 + 2.5 / df; /* within 0.002 of the exact quantile past 30 */
}

double stats_mean (const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return n > 0 ? s / n : NAN;
}

/* v reordered so that v[q] is the q-th smallest, those before it no
 * larger, those after no smaller (Hoare's selection: the medians of the
 * sampling plan's levels are of a hundred thousand pairs, and it takes
 * them often). */
static void select_q (double *v, int n, int q)
{
    int lo = 0, hi = n - 1;

    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (q <= j)
            hi = j;
        else if (q >= i)
            lo = i;
        else
            break;
    }
}

double stats_median (double *v, int n)
{
    double below;

    if (n < 1)
        return NAN;
    select_q (v, n, n / 2);
    if (n % 2)
        return v[n / 2];
    below = v[0]; /* the largest of those before v[n / 2] */
    for (int i = 1; i < n / 2; i++)
        below = v[i] > below ? v[i] : below;
    return (below + v[n / 2]) / 2;
}

double stats_ci95 (const double *v, int n)
{
    if (n < 2)
        return INFINITY;
    double m = stats_mean (v, n), ss = 0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - m) * (v[i] - m);
    return stats_t975 (n - 1) * sqrt (ss / (n - 1)) / sqrt (n);
}

int stats_enough (const double *v, int n, int min, int max, double rel)
{
    if (n >= max)
        return 1;
    if (n < min || n < 2)
        return 0;
    return stats_ci95 (v, n) < rel * stats_mean (v, n);
}
