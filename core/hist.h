/*
 * hist.h — a log-linear latency histogram with lock-free recording.
 *
 * The layout is fio's (stat.h): values below 128 have a bucket each; above,
 * each power of two is split into 64 buckets, so the relative error of any
 * reported percentile is at most 1/128 (0.78%). 1856 buckets reach 2^34 ns
 * (17 s); larger values land in the last bucket. Recording is one relaxed
 * atomic add per counter, so the FUSE read path never takes a lock for stats.
 */
#ifndef TS_HIST_H
#define TS_HIST_H

#include <stdint.h>

#define TS_HIST_BITS 6
#define TS_HIST_VAL (1 << TS_HIST_BITS)
#define TS_HIST_GROUPS 29
#define TS_HIST_NR (TS_HIST_GROUPS * TS_HIST_VAL)

struct ts_hist {
	uint64_t bucket[TS_HIST_NR];
	uint64_t count;
	uint64_t sum;
	uint64_t min; /* UINT64_MAX when empty */
	uint64_t max;
};

void ts_hist_init(struct ts_hist *h);
/* Thread-safe: relaxed atomics only. */
void ts_hist_add(struct ts_hist *h, uint64_t v);
/* ts_hist_add for a histogram whose writers hold a lock of their own:
 * the same result without atomic read-modify-writes (readers may still
 * snapshot it at any time). */
void ts_hist_add_serial(struct ts_hist *h, uint64_t v);
/* Not atomic with respect to concurrent adds; a consistent-enough copy. */
void ts_hist_snapshot(const struct ts_hist *h, struct ts_hist *out);
void ts_hist_merge(struct ts_hist *dst, const struct ts_hist *src);
/* Value at percentile p in [0, 100]; 0 when empty. */
uint64_t ts_hist_percentile(const struct ts_hist *h, double p);
double ts_hist_mean(const struct ts_hist *h);

unsigned ts_hist_index(uint64_t v);
/* Midpoint value of bucket @idx. */
uint64_t ts_hist_value(unsigned idx);

#endif
