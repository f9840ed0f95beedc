/*
 * tier_target.c — what the tier model says a fio job should achieve: the
 * "target" column of bench/tier_fidelity.sh.
 *
 *   tier_target TIER rw|randrw-kind BS QD SECONDS [CAPACITY]
 *     kind: read, randread, write, randwrite
 *
 * Runs the job as fio's closed loop does (QD requests in flight; each
 * completion issues the next at once) against the same model tierfs uses,
 * in virtual time with no FUSE floor, so the result is what an application
 * on the emulated disk should measure. Prints one line:
 *   iops=N mbps=N p50_ns=N p99_ns=N
 * (MB/s in 10^6 bytes, as fio reports; latency percentiles of completion
 * minus submission, from core/hist.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/rng.h"
#include "core/units.h"
#include "tier/tier.h"

#define FILE_SIZE (256 * TS_MiB) /* the file bench/tier_fidelity.sh uses */
#define MAX_QD 1024

int main(int argc, char **argv)
{
	char err[512];
	struct ts_tier_set *set;
	const struct ts_tier_profile *p;
	struct ts_tier *t;
	uint64_t bs, capacity = 0, secs_ns;

	if (argc < 6) {
		fprintf(stderr, "usage: tier_target TIER read|randread|write|randwrite BS QD SECONDS "
				"[CAPACITY]\n");
		return 2;
	}
	const char *kind = argv[2];
	bool rnd = strncmp(kind, "rand", 4) == 0;
	bool wr = strstr(kind, "write") != NULL;
	int qd = atoi(argv[4]);
	if (ts_parse_size(argv[3], &bs) || bs == 0 || qd < 1 || qd > MAX_QD ||
	    ts_parse_duration(argv[5], TS_NS_PER_S, &secs_ns) ||
	    (argc > 6 && ts_parse_size(argv[6], &capacity))) {
		fprintf(stderr, "tier_target: bad BS, QD, SECONDS or CAPACITY\n");
		return 2;
	}
	if (ts_tier_set_load_default(&set, err, sizeof(err)) ||
	    ts_tier_set_lookup(set, argv[1], &p, err, sizeof(err))) {
		fprintf(stderr, "tier_target: %s\n", err);
		return 1;
	}
	struct ts_tier_cfg cfg = { .profile = p, .capacity = capacity, .seed = 1 };
	if (ts_tier_new(&cfg, &t, err, sizeof(err))) {
		fprintf(stderr, "tier_target: %s\n", err);
		ts_tier_set_free(set);
		return 1;
	}

	struct ts_hist *h = malloc(sizeof(*h));
	uint64_t *done_at = calloc((size_t)qd, sizeof(*done_at));
	uint64_t *issued_at = calloc((size_t)qd, sizeof(*issued_at));
	struct ts_rng rng;
	uint64_t seq_off = 0, n = 0, bytes = 0;

	ts_hist_init(h);
	ts_rng_seed(&rng, 7);
	/* Every slot issues at t = 0; then the earliest completion issues
	 * its slot's next request at its completion time. */
	uint64_t now = 0;
	for (int slot = 0; slot < qd; slot++) {
		uint64_t off = rnd ? ts_rng_below(&rng, FILE_SIZE / bs) * bs : seq_off;
		seq_off = (seq_off + bs) % FILE_SIZE;
		struct ts_tier_req q = { wr ? TS_TIER_WRITE : TS_TIER_READ, 1, off, bs, FILE_SIZE };
		issued_at[slot] = now;
		done_at[slot] = ts_tier_submit(t, now, &q, NULL);
	}
	for (;;) {
		int slot = 0;
		for (int i = 1; i < qd; i++)
			if (done_at[i] < done_at[slot])
				slot = i;
		now = done_at[slot];
		if (now > secs_ns)
			break;
		ts_hist_add(h, now - issued_at[slot]);
		n++;
		bytes += bs;
		uint64_t off = rnd ? ts_rng_below(&rng, FILE_SIZE / bs) * bs : seq_off;
		seq_off = (seq_off + bs) % FILE_SIZE;
		struct ts_tier_req q = { wr ? TS_TIER_WRITE : TS_TIER_READ, 1, off, bs, FILE_SIZE };
		issued_at[slot] = now;
		done_at[slot] = ts_tier_submit(t, now, &q, NULL);
	}
	double secs = (double)secs_ns / 1e9;
	printf("iops=%.1f mbps=%.2f p50_ns=%" PRIu64 " p99_ns=%" PRIu64 "\n", (double)n / secs,
	       (double)bytes / 1e6 / secs, ts_hist_percentile(h, 50), ts_hist_percentile(h, 99));
	free(h);
	free(done_at);
	free(issued_at);
	ts_tier_free(t);
	ts_tier_set_free(set);
	return 0;
}
