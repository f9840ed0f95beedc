/* hist.c — log-linear histogram (layout after fio's stat.h, see hist.h). */
#include <string.h>

#include "core/hist.h"

void ts_hist_init(struct ts_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned ts_hist_index(uint64_t v)
{
	if (v < 2 * TS_HIST_VAL)
		return (unsigned)v;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	unsigned error_bits = msb - TS_HIST_BITS;
	unsigned base = (error_bits + 1) << TS_HIST_BITS;
	unsigned offset = (unsigned)((v >> error_bits) & (TS_HIST_VAL - 1));
	unsigned idx = base + offset;
	return idx < TS_HIST_NR ? idx : TS_HIST_NR - 1;
}

uint64_t ts_hist_value(unsigned idx)
{
	if (idx < 2 * TS_HIST_VAL)
		return idx;
	unsigned error_bits = (idx >> TS_HIST_BITS) - 1;
	uint64_t base = 1ULL << (error_bits + TS_HIST_BITS);
	uint64_t k = idx % TS_HIST_VAL;
	return base + ((k << error_bits) + (1ULL << error_bits) / 2);
}

void ts_hist_add(struct ts_hist *h, uint64_t v)
{
	__atomic_fetch_add(&h->bucket[ts_hist_index(v)], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->count, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->sum, v, __ATOMIC_RELAXED);
	uint64_t cur = __atomic_load_n(&h->min, __ATOMIC_RELAXED);
	while (v < cur && !__atomic_compare_exchange_n(&h->min, &cur, v, 1, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
	cur = __atomic_load_n(&h->max, __ATOMIC_RELAXED);
	while (v > cur && !__atomic_compare_exchange_n(&h->max, &cur, v, 1, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

void ts_hist_add_serial(struct ts_hist *h, uint64_t v)
{
	/* One writer at a time: plain read-modify-write, each store atomic so
	 * that a reader never sees a torn value. */
#define BUMP(x, d) __atomic_store_n(&(x), __atomic_load_n(&(x), __ATOMIC_RELAXED) + (d), \
				    __ATOMIC_RELAXED)
	BUMP(h->bucket[ts_hist_index(v)], 1);
	BUMP(h->count, 1);
	BUMP(h->sum, v);
#undef BUMP
	if (v < __atomic_load_n(&h->min, __ATOMIC_RELAXED))
		__atomic_store_n(&h->min, v, __ATOMIC_RELAXED);
	if (v > __atomic_load_n(&h->max, __ATOMIC_RELAXED))
		__atomic_store_n(&h->max, v, __ATOMIC_RELAXED);
}

void ts_hist_snapshot(const struct ts_hist *h, struct ts_hist *out)
{
	for (unsigned i = 0; i < TS_HIST_NR; i++)
		out->bucket[i] = __atomic_load_n(&h->bucket[i], __ATOMIC_RELAXED);
	out->count = 0;
	for (unsigned i = 0; i < TS_HIST_NR; i++)
		out->count += out->bucket[i];
	out->sum = __atomic_load_n(&h->sum, __ATOMIC_RELAXED);
	out->min = __atomic_load_n(&h->min, __ATOMIC_RELAXED);
	out->max = __atomic_load_n(&h->max, __ATOMIC_RELAXED);
}

void ts_hist_merge(struct ts_hist *dst, const struct ts_hist *src)
{
	for (unsigned i = 0; i < TS_HIST_NR; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t ts_hist_percentile(const struct ts_hist *h, double p)
{
	if (!h->count)
		return 0;
	uint64_t want = (uint64_t)((p / 100.0) * (double)h->count + 0.5);
	if (want < 1)
		want = 1;
	if (want > h->count)
		want = h->count;
	uint64_t seen = 0;
	for (unsigned i = 0; i < TS_HIST_NR; i++) {
		seen += h->bucket[i];
		if (seen >= want) {
			uint64_t v = ts_hist_value(i);
			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max;
}

double ts_hist_mean(const struct ts_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}
