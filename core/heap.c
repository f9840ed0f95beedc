/* heap.c — the binary min-heap of heap.h. */
#include <stdlib.h>

#include "core/heap.h"

static int less(const struct ts_heap_item *a, const struct ts_heap_item *b)
{
	return a->key < b->key || (a->key == b->key && a->tie < b->tie);
}

/* The item @x goes into the hole at @i and rises to its place. */
static void sift_up(struct ts_heap *h, size_t i, struct ts_heap_item x)
{
	while (i && less(&x, &h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

/* The item @x replaces the top. Bottom-up (Floyd): the hole at the top
 * sinks along the smaller children to a leaf, then @x rises from there —
 * about half the comparisons of sinking @x itself, as an item put at the
 * top mostly belongs near the bottom. Any correct heap pops the same order:
 * items compare by (key, tie), and items equal in both are interchangeable
 * to every caller. */
static void sift_top(struct ts_heap *h, struct ts_heap_item x)
{
	size_t i = 0, n = h->n;
	for (;;) {
		size_t l = 2 * i + 1;
		if (l >= n)
			break;
		size_t m = l + 1 < n && less(&h->v[l + 1], &h->v[l]) ? l + 1 : l;
		h->v[i] = h->v[m];
		i = m;
	}
	sift_up(h, i, x);
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
	sift_up(h, i, (struct ts_heap_item){ key, tie, p });
	return 0;
}

struct ts_heap_item ts_heap_pop(struct ts_heap *h)
{
	struct ts_heap_item top = h->v[0];
	if (--h->n)
		sift_top(h, h->v[h->n]);
	return top;
}

void ts_heap_replace_top(struct ts_heap *h, uint64_t key, uint64_t tie)
{
	sift_top(h, (struct ts_heap_item){ key, tie, h->v[0].p });
}

void ts_heap_free(struct ts_heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
