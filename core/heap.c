/* heap.c — the binary min-heap of heap.h. */
#include <stdlib.h>

#include "heap.h"

static int less(const struct ts_heap_item *a, const struct ts_heap_item *b)
{
	return a->key < b->key || (a->key == b->key && a->tie < b->tie);
}

static void swap(struct ts_heap_item *a, struct ts_heap_item *b)
{
	struct ts_heap_item t = *a;
	*a = *b;
	*b = t;
}

static void sift_down(struct ts_heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && less(&h->v[l], &h->v[m]))
			m = l;
		if (r < h->n && less(&h->v[r], &h->v[m]))
			m = r;
		if (m == i)
			return;
		swap(&h->v[i], &h->v[m]);
		i = m;
	}
}

int ts_heap_reserve(struct ts_heap *h, size_t cap)
{
	if (cap <= h->cap)
		return 0;
	struct ts_heap_item *nv = realloc(h->v, cap * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	h->v = nv;
	h->cap = cap;
	return 0;
}

int ts_heap_push(struct ts_heap *h, uint64_t key, uint64_t tie, void *p)
{
	if (h->n == h->cap) {
		int rc = ts_heap_reserve(h, h->cap ? h->cap * 2 : 64);
		if (rc)
			return rc;
	}
	size_t i = h->n++;
	h->v[i] = (struct ts_heap_item){ key, tie, p };
	while (i && less(&h->v[i], &h->v[(i - 1) / 2])) {
		swap(&h->v[i], &h->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	return 0;
}

struct ts_heap_item ts_heap_pop(struct ts_heap *h)
{
	struct ts_heap_item top = h->v[0];
	h->v[0] = h->v[--h->n];
	sift_down(h, 0);
	return top;
}

void ts_heap_replace_top(struct ts_heap *h, uint64_t key, uint64_t tie)
{
	h->v[0].key = key;
	h->v[0].tie = tie;
	sift_down(h, 0);
}

void ts_heap_free(struct ts_heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
