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

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_median (double *v, int n)
{
    if (n < 1)
        return NAN;
    qsort (v, (size_t)n, sizeof (*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
