/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.h: the small statistics of the probe's adaptive sampling, after
 * Lawrence & Yuan (§3.1): take a few samples, then stop as soon
 * as the 95% confidence interval of the mean is narrow enough.
 */
#ifndef TOPOMAP_STATS_H
#define TOPOMAP_STATS_H

#include <stddef.h>

/* Two-sided 95% quantile of Student's t with df degrees of freedom. */
double stats_t975 (int df);

double stats_mean (const double *v, int n);

/* base[0..n), elements of size bytes each with a double at byte offset
 * off, reordered so that element q holds the q-th smallest of them, those
 * before it no larger, those after no smaller.
 */
void stats_select (void *base, long n, size_t size, size_t off, long q);

/* Median of v[0..n-1]; reorders v.  NaN for n < 1. */
double stats_median (double *v, int n);

/* Half-width of the 95% confidence interval of the mean; +inf for n < 2. */
double stats_ci95 (const double *v, int n);

/* Whether n samples are enough: n >= max, or n >= min and the 95% CI
 * half-width is under rel times the mean.
 */
int stats_enough (const double *v, int n, int min, int max, double rel);

#endif
