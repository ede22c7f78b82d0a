/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "lib/schedule.h"

int schedule_rounds (int m)
{
    if (m < 2)
        return 0;
    return m % 2 ? m : m - 1;
}

/* Circle method on k = m rounded up to even: node k-1 stays fixed, the
 * others rotate; in round r, k-1 meets r, and (r+i) meets (r-i) mod (k-1).
 * With m odd, node k-1 is the phantom whose partner gets the bye.
 */
int schedule_round (int m, int r, int *peer)
{
    if (m < 1 || r < 0 || r >= schedule_rounds (m))
        return -1;
    int k = m + m % 2, pairs = 0;
    for (int i = 0; i < m; i++)
        peer[i] = -1;
    for (int i = 0; i < k / 2; i++) {
        int a = i == 0 ? k - 1 : (r + i) % (k - 1);
        int b = (r - i + (k - 1)) % (k - 1);
        if (a >= m || b >= m)
            continue;
        peer[a] = b;
        peer[b] = a;
        pairs++;
    }
    return pairs;
}
