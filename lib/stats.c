/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static double key_at (const unsigned char *b, long i, size_t size, size_t off)
{
    double v;

    memcpy (&v, b + (size_t)i * size + off, sizeof (v));
    return v;
}

static void swap_at (unsigned char *b, long i, long j, size_t size)
{
    unsigned char *x = b + (size_t)i * size, *y = b + (size_t)j * size;

    for (size_t k = 0; k < size; k++) {
        unsigned char t = x[k];
        x[k] = y[k];
        y[k] = t;
    }
}

/* Hoare's selection: the sampling plan takes medians of a hundred thousand
 * pairs, and often. */
void stats_select (void *base, long n, size_t size, size_t off, long q)
{
    unsigned char *b = base;
    long lo = 0, hi = n - 1;

    while (lo < hi) {
        double pivot = key_at (b, lo + (hi - lo) / 2, size, off);
        long i = lo, j = hi;
        while (i <= j) {
            while (key_at (b, i, size, off) < pivot)
                i++;
            while (key_at (b, j, size, off) > pivot)
                j--;
            if (i <= j)
                swap_at (b, i++, j--, size);
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
    stats_select (v, n, sizeof (*v), 0, n / 2);
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
