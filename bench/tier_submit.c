/*
 * tier_submit.c — how fast the tier model answers: ts_tier_submit calls per
 * second for several tiers and stacks, single-threaded and from several
 * threads at once (tierfs calls it from every FUSE worker and needs well
 * over 100k per second), plus the memory copy rate the page-cache model
 * charges hits at, measured here beside its built-in figure.
 *
 *   bench/tier_submit [seconds-per-case]      (default 0.5)
 *
 * Figures are wall-clock measurements on this machine: compare them within
 * one run, not across machines.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/rng.h"
#include "tier/tier.h"

static double secs = 0.5;

struct stack {
	const char *tier;
	uint64_t mem;
	const char *what;
};

static struct ts_tier *make(struct ts_tier_set *set, const struct stack *s)
{
	char err[256];
	struct ts_tier_cfg cfg = { .profile = ts_tier_set_find(set, s->tier), .mem = s->mem, .seed = 1 };
	struct ts_tier *t;
	if (!cfg.profile || ts_tier_new(&cfg, &t, err, sizeof(err))) {
		fprintf(stderr, "tier_submit: %s: %s\n", s->tier, cfg.profile ? err : "unknown tier");
		exit(1);
	}
	return t;
}

struct worker {
	struct ts_tier *t;
	uint64_t file, ops;
	double until;
};

/* Random 4 KiB reads with a 1-in-8 write, at the real clock, as tierfs
 * submits them (it does not sleep here: only the model is measured). */
static void *work(void *arg)
{
	struct worker *w = arg;
	struct ts_rng r;
	ts_rng_seed(&r, w->file);
	uint64_t stop = ts_now_ns() + (uint64_t)(w->until * 1e9);
	for (;;) {
		for (int i = 0; i < 256; i++) {
			struct ts_tier_req q = { .op = ts_rng_below(&r, 8) ? TS_TIER_READ : TS_TIER_WRITE,
						 .file = w->file,
						 .off = ts_rng_below(&r, 1 << 18) * 4096,
						 .len = 4096 };
			ts_tier_submit(w->t, ts_now_ns(), &q, NULL);
		}
		w->ops += 256;
		if (ts_now_ns() >= stop)
			break;
	}
	return NULL;
}

static double rate(struct ts_tier *t, int threads)
{
	pthread_t th[16];
	struct worker w[16];
	uint64_t t0 = ts_now_ns(), ops = 0;
	for (int i = 0; i < threads; i++) {
		w[i] = (struct worker){ .t = t, .file = (uint64_t)i + 1, .until = secs };
		if (pthread_create(&th[i], NULL, work, &w[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		ops += w[i].ops;
	}
	return (double)ops / ((double)(ts_now_ns() - t0) / 1e9);
}

/* Best of five copies of 256 MiB in 64 KiB blocks, one thread. */
static double memcpy_rate(void)
{
	const size_t sz = 256u << 20, blk = 64u << 10;
	char *a = malloc(sz), *b = malloc(sz);
	double best = 0;
	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	memset(a, 1, sz);
	memset(b, 2, sz);
	for (int k = 0; k < 5; k++) {
		uint64_t t0 = ts_now_ns();
		for (size_t o = 0; o < sz; o += blk)
			memcpy(b + o, a + o, blk);
		double r = (double)sz / ((double)(ts_now_ns() - t0) / 1e9);
		best = r > best ? r : best;
	}
	volatile char sink = b[sz / 2];
	(void)sink;
	free(a);
	free(b);
	return best;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		secs = atof(argv[1]);
	if (!(secs > 0)) {
		fprintf(stderr, "usage: tier_submit [seconds-per-case]\n");
		return 2;
	}
	struct ts_tier_set *set;
	char err[512];
	if (ts_tier_set_load_default(&set, err, sizeof(err))) {
		fprintf(stderr, "tier_submit: %s\n", err);
		return 1;
	}
	static const struct stack stacks[] = {
		{ "unlimited", 0, "no caps, no latency, no cache" },
		{ "ssd-cloud", 0, "caps + lognormal latency" },
		{ "aws-gp2", 0, "caps + burst bucket + I/O merging" },
		{ "ssd-cloud", TS_GiB, "as ssd-cloud + 1 GiB page cache" },
	};
	double base = 0;
	printf("%-11s %-36s %8s %14s %14s %9s\n", "tier", "stack", "threads", "submits/s",
	       "vs unlimited", "vs 100k/s");
	for (size_t i = 0; i < TS_ARRAY_SIZE(stacks); i++) {
		for (int th = 1; th <= 4; th *= 4) {
			struct ts_tier *t = make(set, &stacks[i]);
			double r = rate(t, th);
			if (i == 0 && th == 1)
				base = r;
			printf("%-11s %-36s %8d %14.0f %14.2f %9.1f\n", stacks[i].tier,
			       stacks[i].what, th, r, r / base, r / 1e5);
			ts_tier_free(t);
		}
	}
	double mc = memcpy_rate();
	printf("\nmemcpy, 64 KiB blocks, one thread: %.2f GB/s; the page-cache model's "
	       "built-in hit rate is 10.00 GB/s (ratio %.2f)\n",
	       mc / 1e9, mc / 10e9);
	ts_tier_set_free(set);
	return 0;
}
