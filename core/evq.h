/*
 * evq.h — an event queue of heap.h's items: the same pops as a ts_heap, in
 * (key, tie) order, at less cost where most pushes land at or near the
 * back — a discrete-event loop whose events mostly complete in the order
 * they were scheduled (requests through a rate limit, a FIFO of workers).
 * Such a push goes into a sorted array, moving the few items that sort
 * after it; a pop takes the array's front: no sift through log2(n) levels
 * at a mispredicted branch each. A push that sorts further forward (a
 * page-cache hit among reads waiting on the device) goes into a binary
 * heap beside it instead, and a pop takes the smaller of the two fronts.
 *
 *   struct ts_evq q = { 0 };
 *   if (ts_evq_push(&q, t, seq++, ev)) ...   // -ENOMEM
 *   while (ts_evq_len(&q)) { struct ts_heap_item it = ts_evq_pop(&q); ... }
 *   ts_evq_free(&q);
 */
#ifndef TS_EVQ_H
#define TS_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include "core/heap.h"
#include "core/ts.h"

struct ts_evq {
	struct ts_heap_item *v; /* v[head..n): sorted by (key, tie) */
	size_t head, n, cap;
	struct ts_heap far;	/* the pushes that sorted far forward */
};

/* Room for @cap items up front (optional); -ENOMEM. A queue of at most
 * (cap - 16) / 2 items never allocates again. */
TS_WUR int ts_evq_reserve(struct ts_evq *q, size_t cap);
/* ts_evq_push's rarer part (evq.c): room made in a full array, or the
 * push of an item that sorts far forward. */
TS_WUR int ts_evq_push_slow(struct ts_evq *q, uint64_t key, uint64_t tie, void *p);
/* Whether @a sorts after (@key, @tie). */
static inline int ts_evq_after(const struct ts_heap_item *a, uint64_t key, uint64_t tie)
{
	return a->key > key || (a->key == key && a->tie > tie);
}
/* Adds an item; -ENOMEM. Inline: a loop pushes once per event, and the
 * call's register saves were a third of a push's instructions. Its
 * place: at most 8 steps back from the end, else the heap's (the array
 * is sorted: when the item 9 back sorts after it, so do the 8 behind
 * that). The few items it passes move up one as it goes, without a call
 * to memmove. */
TS_WUR static inline int ts_evq_push(struct ts_evq *q, uint64_t key, uint64_t tie, void *p)
{
	size_t k = q->n;
	if (k == q->cap || (k - q->head > 8 && ts_evq_after(&q->v[k - 9], key, tie)))
		return ts_evq_push_slow(q, key, tie, p);
	for (; k > q->head && ts_evq_after(&q->v[k - 1], key, tie); k--)
		q->v[k] = q->v[k - 1];
	q->v[k] = (struct ts_heap_item){ key, tie, p };
	q->n++;
	return 0;
}
static inline size_t ts_evq_len(const struct ts_evq *q)
{
	return q->n - q->head + q->far.n;
}
/* Whether the smallest item is the heap's. */
static inline int ts_evq_far_first(const struct ts_evq *q)
{
	if (!q->far.n)
		return 0;
	if (q->head == q->n)
		return 1;
	const struct ts_heap_item *a = ts_heap_top(&q->far), *b = &q->v[q->head];
	return a->key < b->key || (a->key == b->key && a->tie < b->tie);
}
/* The smallest item; the queue must not be empty. */
static inline const struct ts_heap_item *ts_evq_top(const struct ts_evq *q)
{
	return ts_evq_far_first(q) ? ts_heap_top(&q->far) : &q->v[q->head];
}
/* Removes and returns the smallest item; the queue must not be empty. */
static inline struct ts_heap_item ts_evq_pop(struct ts_evq *q)
{
	return ts_evq_far_first(q) ? ts_heap_pop(&q->far) : q->v[q->head++];
}
void ts_evq_free(struct ts_evq *q);

#endif
