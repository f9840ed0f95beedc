/*
 * test_loop.c — the loop-device hop's statistic (disk/loop.h,
 * ts_loop_hop_of), exactly, on made-up latencies: a constant hop, a batch
 * disturbed by load on one side, a hop below zero clamped, the batch the
 * reported medians come from, a remainder left out, and no batch at all.
 * (The size and window parts a request is charged: test_tier_rule.c.)
 * (The measurement itself, with a loop device: tests/disk/hop.sh.)
 */
#include <stdint.h>
#include <string.h>

#include "disk/loop.h"
#include "tests/tcheck.h"

#define N (TS_LOOP_HOP_BATCHES * TS_LOOP_HOP_PAIRS)

/* direct latencies of 200 us + a spread, loop ones @hop later */
static void fill(uint64_t *l, uint64_t *d, size_t n, uint64_t hop)
{
	for (size_t i = 0; i < n; i++) {
		d[i] = 200000 + (i * 7919) % 5000;
		l[i] = d[i] + hop;
	}
}

int main(void)
{
	uint64_t l[N + 3], d[N + 3], lm, dm;

	/* A constant 30 us between the two paths is 30 us. */
	fill(l, d, N, 30000);
	CHECK_EQ_U64(ts_loop_hop_of(l, d, N, TS_LOOP_HOP_BATCHES, &lm, &dm), 30000);
	CHECK_EQ_U64(lm - dm, 30000);

	/* One batch of loop reads slowed by 1 ms (another process's burst)
	 * and one of direct reads: the median of the batches' differences
	 * stays 30 us. */
	fill(l, d, N, 30000);
	for (size_t i = 0; i < TS_LOOP_HOP_PAIRS; i++) {
		l[i] += 1000000;
		d[2 * TS_LOOP_HOP_PAIRS + i] += 1000000;
	}
	CHECK_EQ_U64(ts_loop_hop_of(l, d, N, TS_LOOP_HOP_BATCHES, &lm, &dm), 30000);

	/* Batches whose differences are 10, 20, 30, 40, 50 us: 30 us, the
	 * medians reported from that batch. */
	fill(l, d, N, 0);
	for (size_t b = 0; b < TS_LOOP_HOP_BATCHES; b++)
		for (size_t i = 0; i < TS_LOOP_HOP_PAIRS; i++)
			l[b * TS_LOOP_HOP_PAIRS + i] = d[b * TS_LOOP_HOP_PAIRS + i] +
						       ((b * 3) % TS_LOOP_HOP_BATCHES + 1) * 10000;
	CHECK_EQ_U64(ts_loop_hop_of(l, d, N, TS_LOOP_HOP_BATCHES, &lm, &dm), 30000);
	CHECK_EQ_U64(lm - dm, 30000);
	CHECK(dm >= 200000 && dm < 205000);

	/* The loop device faster than the direct path (noise around no hop):
	 * 0, never a negative charge. */
	fill(d, l, N, 4000); /* loop = direct - 4 us */
	CHECK_EQ_U64(ts_loop_hop_of(l, d, N, TS_LOOP_HOP_BATCHES, NULL, NULL), 0);

	/* Even batch counts take the lower middle difference. */
	fill(l, d, 40, 0);
	for (size_t i = 0; i < 40; i++)
		l[i] = d[i] + (i < 10 ? 10000 : i < 20 ? 40000 : i < 30 ? 20000 : 30000);
	CHECK_EQ_U64(ts_loop_hop_of(l, d, 40, 4, NULL, NULL), 20000);

	/* A remainder that does not fill a batch is left out: 3 pairs past
	 * the batches with a 1 s hop change nothing. */
	fill(l, d, N + 3, 25000);
	for (size_t i = N; i < N + 3; i++)
		l[i] += TS_NS_PER_S;
	CHECK_EQ_U64(ts_loop_hop_of(l, d, N + 3, TS_LOOP_HOP_BATCHES, NULL, NULL), 25000);

	/* Fewer pairs than batches, or no batch: 0, medians 0. */
	lm = dm = 1;
	CHECK_EQ_U64(ts_loop_hop_of(l, d, 3, TS_LOOP_HOP_BATCHES, &lm, &dm), 0);
	CHECK_EQ_U64(lm, 0);
	CHECK_EQ_U64(dm, 0);
	CHECK_EQ_U64(ts_loop_hop_of(l, d, N, 0, NULL, NULL), 0);

	return tc_exit();
}
