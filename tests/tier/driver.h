/*
 * driver.h — a closed-loop load generator for the tier model in virtual
 * time, shared by the tier tests: `qd` workers, each issuing its next
 * request when the previous one completes, as fio does at a fixed iodepth.
 */
#ifndef TS_TEST_TIER_DRIVER_H
#define TS_TEST_TIER_DRIVER_H

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "tests/tmpfile.h"
#include "tier/tier.h"

#define DRV_MAXQD 256

enum drv_pattern { DRV_RANDOM, DRV_SEQ };

struct drv {
	struct ts_tier *t;
	enum ts_tier_op op;
	enum drv_pattern pattern;
	uint64_t bs, span; /* request size, bytes of file space used */
	uint64_t file;
	unsigned qd;
	struct ts_rng rng;
	uint64_t next[DRV_MAXQD]; /* when each worker issues next */
	uint64_t pos[DRV_MAXQD];  /* sequential position of each worker */
	unsigned heap[DRV_MAXQD]; /* workers, earliest next[] first */
	/* results */
	uint64_t last_now; /* issue time of the last request */
	uint64_t issued;
	double lat_sum;
	uint64_t dev_ios;
	uint64_t bound[TS_TIER_BOUND_NR];
	double *lat; /* optional: every latency, ns */
	size_t nlat, caplat;
};

static inline void drv_init(struct drv *d, struct ts_tier *t, enum ts_tier_op op,
			    enum drv_pattern pat, uint64_t bs, unsigned qd, uint64_t start)
{
	memset(d, 0, sizeof(*d));
	d->t = t;
	d->op = op;
	d->pattern = pat;
	d->bs = bs;
	d->qd = qd;
	d->span = 64 * TS_GiB;
	d->file = 1;
	ts_rng_seed(&d->rng, 42);
	for (unsigned i = 0; i < qd; i++) {
		d->heap[i] = i;
		d->next[i] = start;
		/* Sequential workers read their own region, as fio's jobs do. */
		d->pos[i] = (uint64_t)i * (d->span / qd) / bs * bs;
	}
}

/* The workers are a min-heap on next[] (heap[] holds worker numbers), so
 * a step costs O(log qd). */
static inline void drv_sift(struct drv *d, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;
		if (l < d->qd && d->next[d->heap[l]] < d->next[d->heap[m]])
			m = l;
		if (r < d->qd && d->next[d->heap[r]] < d->next[d->heap[m]])
			m = r;
		if (m == i)
			return;
		unsigned t = d->heap[i];
		d->heap[i] = d->heap[m];
		d->heap[m] = t;
		i = m;
	}
}

/* The time the next request would be issued. */
static inline uint64_t drv_now(const struct drv *d)
{
	return d->next[d->heap[0]];
}

/* Issues one request; returns the done record. */
static inline struct ts_tier_done drv_step(struct drv *d)
{
	unsigned w = d->heap[0];
	struct ts_tier_req r = { .op = d->op, .file = d->file, .len = d->bs };
	if (d->pattern == DRV_RANDOM) {
		r.off = ts_rng_below(&d->rng, d->span / d->bs) * d->bs;
	} else {
		r.off = d->pos[w];
		d->pos[w] += d->bs;
	}
	struct ts_tier_done done;
	uint64_t now = d->next[w];
	d->last_now = now;
	uint64_t end = ts_tier_submit(d->t, now, &r, &done);
	d->next[w] = end;
	drv_sift(d, 0);
	d->issued++;
	d->lat_sum += (double)(end - now);
	d->dev_ios += done.dev_ios;
	d->bound[done.bound]++;
	if (d->lat) {
		if (d->nlat == d->caplat) {
			d->caplat = d->caplat ? 2 * d->caplat : 1024;
			d->lat = realloc(d->lat, d->caplat * sizeof(*d->lat));
		}
		d->lat[d->nlat++] = (double)(end - now);
	}
	return done;
}

/* Runs @warm requests, then @n more; returns the rate (requests/s) of the
 * @n measured ones: n / (time of the last issue - time of the first). */
static inline double drv_rate(struct drv *d, uint64_t warm, uint64_t n)
{
	for (uint64_t i = 0; i < warm; i++)
		drv_step(d);
	uint64_t t0 = drv_now(d);
	for (uint64_t i = 0; i < n; i++)
		drv_step(d);
	uint64_t t1 = drv_now(d);
	return (double)n / ((double)(t1 - t0) / 1e9);
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Percentile p (0-100) of the recorded latencies, nearest rank. */
static inline double drv_pct(struct drv *d, double p)
{
	qsort(d->lat, d->nlat, sizeof(*d->lat), cmp_double);
	size_t k = (size_t)(p / 100.0 * (double)d->nlat);
	return d->lat[k < d->nlat ? k : d->nlat - 1];
}

/* The tiers @text declares added to @set, through a file of their own
 * (/tmp/NAME.XXXXXX, removed after). 0, or -1 with a line on stderr. */
static inline int drv_add_tiers(struct ts_tier_set *set, const char *name, const char *text)
{
	char path[128], err[512];
	if (tc_write_tmp(path, sizeof(path), name, text))
		return -1;
	int rc = ts_tier_set_add_file(set, path, err, sizeof(err));
	unlink(path);
	if (rc)
		fprintf(stderr, "%s\n", err);
	return rc ? -1 : 0;
}

#endif
