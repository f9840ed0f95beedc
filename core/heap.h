/*
 * heap.h — a binary min-heap of (key, tie, pointer) items, ordered by key
 * and then by tie, so that equal keys pop in a fixed order (a discrete-event
 * loop stays deterministic). Used for free-slot times, completion times and
 * event queues; the caller owns what the pointers point at.
 *
 *   struct ts_heap h = { 0 };
 *   if (ts_heap_push(&h, t, seq, ev)) ...   // -ENOMEM
 *   while (h.n) { struct ts_heap_item it = ts_heap_pop(&h); ... }
 *   ts_heap_free(&h);
 */
#ifndef TS_HEAP_H
#define TS_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"

struct ts_heap_item {
	uint64_t key;
	uint64_t tie; /* breaks equal keys: smaller first */
	void *p;
};

struct ts_heap {
	struct ts_heap_item *v;
	size_t n, cap;
};

/* Room for @cap items up front (optional); -ENOMEM. */
TS_WUR int ts_heap_reserve(struct ts_heap *h, size_t cap);
TS_WUR int ts_heap_push(struct ts_heap *h, uint64_t key, uint64_t tie, void *p);
/* The smallest item; the heap must not be empty. */
static inline const struct ts_heap_item *ts_heap_top(const struct ts_heap *h)
{
	return &h->v[0];
}
/* Removes and returns the smallest item; the heap must not be empty. */
struct ts_heap_item ts_heap_pop(struct ts_heap *h);
/* Gives the smallest item a new key (and tie) and restores the order:
 * one sift instead of a pop and a push. */
void ts_heap_replace_top(struct ts_heap *h, uint64_t key, uint64_t tie);
void ts_heap_free(struct ts_heap *h);

#endif
