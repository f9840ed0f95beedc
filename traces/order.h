/*
 * order.h — a trace's records in submit order (order.c).
 */
#ifndef TS_TRACE_ORDER_H
#define TS_TRACE_ORDER_H

#include <stddef.h>

#include "traces/trace.h"

/* Sorted order of @t's records: indices by submit_ns, ties in file order.
 * Returns a malloc'd array of t->nrecs indices, or NULL on ENOMEM. */
size_t *ts_trace_order(const struct ts_trace *t);
/* Record indices by thread (tid ascending), each thread's in submit order
 * (ties in file order); NULL when out of memory. The caller frees it. */
size_t *ts_trace_thread_order(const struct ts_trace *t);

#endif
