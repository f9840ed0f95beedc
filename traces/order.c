/*
 * order.c — a trace's records in submit order, all together or thread by
 * thread (order.h). Below stats.c and the reader's fill of unread CPU
 * clocks (cpu_fill.c), which both walk records in these orders.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "traces/order.h"

static int cmp_submit(const void *a, const void *b, void *arg)
{
	const struct ts_trace *t = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t x = t->recs[i].submit_ns, y = t->recs[j].submit_ns;
	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

size_t *ts_trace_order(const struct ts_trace *t)
{
	size_t *idx = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*idx));
	if (!idx)
		return NULL;
	bool sorted = true;
	for (size_t i = 0; i < t->nrecs; i++) {
		idx[i] = i;
		if (i && t->recs[i].submit_ns < t->recs[i - 1].submit_ns)
			sorted = false;
	}
	if (!sorted)
		qsort_r(idx, t->nrecs, sizeof(*idx), cmp_submit, (void *)t);
	return idx;
}

struct by_thread {
	uint32_t tid;
	size_t rank, idx; /* rank: in submit order */
};

static int cmp_by_thread(const void *a, const void *b)
{
	const struct by_thread *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

size_t *ts_trace_thread_order(const struct ts_trace *t)
{
	size_t *ord = ts_trace_order(t);
	struct by_thread *by = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*by));
	if (!ord || !by) {
		free(ord);
		free(by);
		return NULL;
	}
	for (size_t i = 0; i < t->nrecs; i++)
		by[i] = (struct by_thread){.tid = t->recs[ord[i]].tid, .rank = i, .idx = ord[i]};
	qsort(by, t->nrecs, sizeof(*by), cmp_by_thread);
	for (size_t i = 0; i < t->nrecs; i++)
		ord[i] = by[i].idx;
	free(by);
	return ord;
}
