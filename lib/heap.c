/* SPDX-License-Identifier: GPL-2.0-or-later */
/* heap.c: a binary min-heap.  See heap.h. */
#include "config.h"

#include <stdlib.h>

#include "lib/heap.h"

bool heap_before (const heap_item_t *x, const heap_item_t *y)
{
    return x->key < y->key || (x->key == y->key && x->id < y->id);
}

int heap_reserve (heap_t *h, size_t max)
{
    heap_item_t *e;

    if (max <= h->max)
        return 0;
    if (!(e = realloc (h->e, max * sizeof (*e))))
        return -1;
    h->e = e;
    h->max = max;
    return 0;
}

int heap_push (heap_t *h, heap_item_t x)
{
    size_t i;

    if (h->n == h->max && heap_reserve (h, h->max ? 2 * h->max : 64) < 0)
        return -1;
    i = h->n++;
    while (i > 0 && heap_before (&x, &h->e[(i - 1) / 2])) {
        h->e[i] = h->e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->e[i] = x;
    return 0;
}

heap_item_t heap_pop (heap_t *h)
{
    heap_item_t top = h->e[0], x = h->e[--h->n];
    size_t i = 0;

    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && heap_before (&h->e[c + 1], &h->e[c]))
            c++;
        if (!heap_before (&h->e[c], &x))
            break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (h->n > 0)
        h->e[i] = x;
    return top;
}

void heap_free (heap_t *h)
{
    free (h->e);
    h->e = NULL;
    h->n = h->max = 0;
}
