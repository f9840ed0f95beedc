/* evq.c — the sorted event queue of evq.h. */
#include <stdlib.h>
#include <string.h>

#include "core/evq.h"

static int resize(struct ts_evq *q, size_t cap)
{
	size_t len = q->n - q->head;
	struct ts_heap_item *nv = malloc(cap * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	if (len)
		memcpy(nv, q->v + q->head, len * sizeof(*nv));
	free(q->v);
	q->v = nv;
	q->cap = cap;
	q->head = 0;
	q->n = len;
	return 0;
}

int ts_evq_reserve(struct ts_evq *q, size_t cap)
{
	int rc = ts_heap_reserve(&q->far, cap);
	return rc ? rc : cap <= q->cap ? 0 : resize(q, cap);
}

int ts_evq_push_slow(struct ts_evq *q, uint64_t key, uint64_t tie, void *p)
{
	if (q->n == q->cap) {
		size_t len = q->n - q->head;
		if (q->head >= len + 16) {
			/* the popped front is most of the array: reuse it */
			memmove(q->v, q->v + q->head, len * sizeof(*q->v));
			q->head = 0;
			q->n = len;
		} else {
			int rc = resize(q, q->cap ? 2 * q->cap : 64);
			if (rc)
				return rc;
		}
	}
	size_t k = q->n;
	if (k - q->head > 8 && ts_evq_after(&q->v[k - 9], key, tie))
		return ts_heap_push(&q->far, key, tie, p);
	return ts_evq_push(q, key, tie, p); /* with room, near the back: the inline path */
}

void ts_evq_free(struct ts_evq *q)
{
	ts_heap_free(&q->far);
	free(q->v);
	*q = (struct ts_evq){ 0 };
}
