/* SPDX-License-Identifier: GPL-2.0-or-later */
/* heap.h: a binary min-heap of (key, id, aux) items, for the mapper's
 * orders (repair by least added cost, greedy by most traffic: push -key).
 * Ties go to the smaller id, so orders are deterministic.
 */
#ifndef TOPOMAP_HEAP_H
#define TOPOMAP_HEAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    double key;
    int id;
    int aux; /* the caller's: carried along, not compared */
} heap_item_t;

typedef struct {
    heap_item_t *e;
    size_t n, max;
} heap_t; /* {0} is an empty heap */

/* Whether x comes out before y: smaller key, then smaller id. */
bool heap_before (const heap_item_t *x, const heap_item_t *y);

/* Room for max items in all, so that pushes up to it cannot fail. */
int heap_reserve (heap_t *h, size_t max);

/* Add x, growing as needed: 0, or -1 out of memory (h unchanged). */
int heap_push (heap_t *h, heap_item_t x);

/* Take the first item out; h must not be empty. */
heap_item_t heap_pop (heap_t *h);

void heap_free (heap_t *h);

#endif
