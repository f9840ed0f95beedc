/*
 * test_replay_index.c — the replay's counts and lookups kept as running
 * values, each checked against the plain scan it replaces on inputs big
 * enough to reach past the scan's limits:
 *  - keyed device draws (tier/device.c, sub_key): a request's count under
 *    its key, exact however many requests the key has (it was taken from
 *    the first 32 requests under the key only);
 *  - the in-flight rule (traces/replay/rules.c, inflight_rel): the oldest
 *    request in flight when the previous one was sent;
 *  - pipe hand-offs (traces/wakes.c, tie_pipes): the reader's previous
 *    hand-off.
 * Exit 0 pass, 1 fail.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/heap.h"
#include "core/rng.h"
#include "tests/tcheck.h"
#include "tier/tier.h"
#include "traces/replay/replay_int.h"
#include "traces/wakes.h"

/* ---- keyed draws past 32 requests under one key ---------------------- */

#define KC_SEEN 32 /* where the count used to stop (tier/device.c's table
		      * starts with 64 slots, at most half full) */
#define KC_N 400   /* requests under one key */
#define KC_OFFS 90 /* distinct offsets they use */

static struct ts_tier_set *kc_set;

static struct ts_tier *kc_model(void)
{
	char err[512];
	const struct ts_tier_profile *p;
	struct ts_tier *t;
	CHECK(ts_tier_set_lookup(kc_set, "keyedcount", &p, err, sizeof(err)) == 0);
	struct ts_tier_cfg cfg = {.profile = p, .seed = 11};
	if (ts_tier_new(&cfg, &t, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	ts_tier_draw_keyed(t, true);
	return t;
}

/* A 4 KiB direct read of file @file at block @blk, issued a second after
 * the last (nothing in flight): its time is its draw. */
static uint64_t kc_read(struct ts_tier *t, uint64_t *now, uint32_t file, uint64_t blk)
{
	struct ts_tier_req q = {
	    .op = TS_TIER_READ, .file = file, .off = blk * 4096, .len = 4096, .direct = true};
	*now += 1000000000ULL;
	return ts_tier_submit(t, *now, &q, NULL) - *now;
}

/* Request j's draw is the (c + 1)-th of its op, file and offset under a
 * key of its own, c its count: how many requests before it under the key
 * had them, past the 32nd too (documented: requests of other offsets move
 * no draw). Fails where the count stops at the first 32 requests. */
static void test_keyed_counts(void)
{
	static uint64_t blk[KC_N], got[KC_N], pre[KC_SEEN];
	static uint32_t file[KC_N];
	struct ts_rng r;
	ts_rng_seed(&r, 3);
	for (unsigned j = 0; j < KC_N; j++) {
		/* the first 32 hold repeats; later ones mostly new offsets */
		blk[j] = j < KC_SEEN ? ts_rng_u64(&r) % 5 : ts_rng_u64(&r) % KC_OFFS;
		file[j] = 1 + (uint32_t)(ts_rng_u64(&r) % 2);
	}
	struct ts_tier *t = kc_model();
	uint64_t now = 0;
	/* another key first, then this one's: a new key starts its counts */
	ts_tier_draw_key(t, 77);
	for (unsigned j = 0; j < KC_SEEN; j++)
		pre[j] = kc_read(t, &now, file[j], blk[j]);
	ts_tier_draw_key(t, 5);
	for (unsigned j = 0; j < KC_N; j++)
		got[j] = kc_read(t, &now, file[j], blk[j]);
	/* back to the first key after the table grew: its counts start anew */
	ts_tier_draw_key(t, 77);
	unsigned again = 0;
	for (unsigned j = 0; j < KC_SEEN; j++)
		again += kc_read(t, &now, file[j], blk[j]) == pre[j];
	ts_tier_free(t);
	CHECK(again == KC_SEEN);

	static unsigned cnt[KC_N];
	unsigned same = 0, past = 0, repeat_past = 0, pairs = 0, pairs_ok = 0;
	for (unsigned j = 0; j < KC_N; j++) {
		unsigned c = 0;
		for (unsigned i = 0; i < j; i++)
			c += blk[i] == blk[j] && file[i] == file[j];
		cnt[j] = c;
		/* two requests of one offset draw alike exactly when their
		 * counts are alike (a latency repeats by chance about never) */
		for (unsigned i = 0; i < j; i++)
			if (blk[i] == blk[j] && file[i] == file[j]) {
				pairs++;
				pairs_ok += (got[i] == got[j]) == (cnt[i] == c);
			}
		struct ts_tier *u = kc_model();
		uint64_t un = 0, want = 0;
		ts_tier_draw_key(u, 5);
		for (unsigned i = 0; i <= c; i++)
			want = kc_read(u, &un, file[j], blk[j]);
		ts_tier_free(u);
		same += got[j] == want;
		past += j >= KC_SEEN;
		/* a repeat past the 32nd: the count's limit in play */
		for (unsigned i = KC_SEEN; i < j; i++)
			if (blk[i] == blk[j] && file[i] == file[j]) {
				repeat_past++;
				break;
			}
	}
	fprintf(stderr, "keyed: %u of %d requests under one key draw as counted; %u past the "
		"32nd, %u of them repeats there; %u of %u pairs of one offset alike as their "
		"counts\n", same, KC_N, past, repeat_past, pairs_ok, pairs);
	CHECK(same == KC_N);
	CHECK(pairs_ok == pairs);
	CHECK(repeat_past > 100); /* the input reaches the limit's case */
	/* and the draws differ where the counts do: the first and the
	 * second of one offset */
	struct ts_tier *u = kc_model();
	uint64_t un = 0;
	ts_tier_draw_key(u, 5);
	uint64_t a = kc_read(u, &un, 1, 1000), b = kc_read(u, &un, 1, 1000);
	ts_tier_free(u);
	CHECK(a != b);
}

/* ---- the in-flight rule's oldest request in flight -------------------- */

/* inflight_rel's rel, rel_m and rel_lo as it computed them, the oldest by
 * a pass over the heap of those in flight. */
static void inflight_ref(const struct ts_trace *t, const struct rthread *p, size_t *rel,
			 uint32_t *rel_m, size_t *rel_lo)
{
	struct ts_heap h = {0};
	size_t last = SIZE_MAX;
	uint64_t done_max = 0, prev = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct ts_trace_rec *r = &t->recs[p->idx[i]];
		size_t lo = SIZE_MAX, m = 0;
		for (size_t e = 0; e < h.n; e++)
			lo = TS_MIN(lo, (size_t)h.v[e].tie);
		while (h.n && ts_heap_top(&h)->key <= r->submit_ns) {
			last = p->idx[ts_heap_pop(&h).tie];
			m++;
		}
		rel[i] = SIZE_MAX;
		rel_m[i] = 0;
		rel_lo[i] = 0;
		if (i && r->submit_ns < done_max && last != SIZE_MAX &&
		    TS_MAX(t->recs[last].complete_ns, t->recs[last].submit_ns) >= prev) {
			rel[i] = last;
			if (m && i - lo <= 64) {
				rel_m[i] = (uint32_t)m;
				rel_lo[i] = lo;
			}
		}
		uint64_t done = TS_MAX(r->complete_ns, r->submit_ns);
		CHECK(ts_heap_push(&h, done, i, NULL) == 0);
		done_max = TS_MAX(done_max, done);
		prev = r->submit_ns;
	}
	ts_heap_free(&h);
}

#define IF_N 6000

/* Three threads, each with up to a few hundred requests in flight: most
 * short, some long (the oldest in flight stays while later ones come and
 * go), a few that complete at once. */
static void test_inflight_oldest(void)
{
	static struct ts_trace_rec recs[IF_N];
	struct ts_trace t;
	memset(&t, 0, sizeof(t));
	struct ts_rng r;
	ts_rng_seed(&r, 9);
	uint64_t at[3] = {1000, 1000, 1000};
	for (size_t i = 0; i < IF_N; i++) {
		unsigned k = (unsigned)(ts_rng_u64(&r) % 3);
		uint64_t kind = ts_rng_u64(&r) % 100, lat;
		at[k] += ts_rng_u64(&r) % 5000;
		if (kind < 3)
			lat = 0;
		else if (kind < 6)
			lat = 20000 + ts_rng_u64(&r) % 130000; /* long in flight */
		else if (kind < 7 && ts_rng_u64(&r) % 8 == 0)
			lat = 300000 + ts_rng_u64(&r) % 700000; /* past 64 ops */
		else
			lat = 1000 + ts_rng_u64(&r) % 40000;
		recs[i] = (struct ts_trace_rec){.submit_ns = at[k],
						.complete_ns = at[k] + lat,
						.length = 4096,
						.file_id = 1,
						.tid = 100 + k,
						.op = TS_OP_READ};
	}
	t.recs = recs;
	t.nrecs = IF_N;
	struct rthreads ps;
	CHECK(replay_rthreads_build(&t, &ps) == 0);
	size_t *rel = malloc(IF_N * sizeof(*rel)), *lo = malloc(IF_N * sizeof(*lo));
	uint32_t *m = malloc(IF_N * sizeof(*m));
	CHECK(rel && lo && m);
	size_t diff = 0, with_m = 0, far = 0;
	for (size_t k = 0; k < ps.n; k++) {
		const struct rthread *p = &ps.p[k];
		inflight_ref(&t, p, rel, m, lo);
		for (size_t i = 0; i < p->n; i++) {
			diff += rel[i] != p->rel[i] || m[i] != p->rel_m[i] || lo[i] != p->rel_lo[i];
			with_m += m[i] > 0;
			far += rel[i] != SIZE_MAX && !m[i];
		}
	}
	fprintf(stderr, "in flight: %zu threads, %d requests, %zu released by rank, %zu by "
		"identity (oldest > 64 back), %zu unlike the scan\n", ps.n, IF_N, with_m, far,
		diff);
	CHECK(ps.n == 3);
	CHECK(diff == 0);
	CHECK(with_m > 1000 && far > 100); /* both cases reached */
	free(rel);
	free(lo);
	free(m);
	replay_rthreads_free(&ps);
}

/* ---- pipe hand-offs: the reader's previous one ------------------------ */

struct pop {
	uint64_t pipe, t_ns, end;
	uint32_t tid;
	bool write;
};

static int pop_cmp(const void *a, const void *b)
{
	const struct pop *x = a, *y = b;
	if (x->write != y->write)
		return x->write ? -1 : 1;
	if (x->write && x->pipe != y->pipe)
		return x->pipe < y->pipe ? -1 : 1;
	uint64_t kx = x->write ? x->end : x->t_ns, ky = y->write ? y->end : y->t_ns;
	return kx < ky ? -1 : kx > ky;
}

/* tie_pipes as it was: the reader's previous hand-off by a scan back. */
static size_t pipes_ref(struct pop *o, size_t n, struct ts_handoff *out)
{
	size_t nw = 0, nh = 0;
	qsort(o, n, sizeof(*o), pop_cmp);
	while (nw < n && o[nw].write)
		nw++;
	for (size_t i = nw; i < n; i++) {
		size_t lo = 0;
		while (lo < nw && (o[lo].pipe < o[i].pipe ||
				   (o[lo].pipe == o[i].pipe && o[lo].end < o[i].end)))
			lo++;
		if (lo == nw || o[lo].pipe != o[i].pipe || o[lo].tid == o[i].tid)
			continue;
		struct ts_handoff h = {.t_ns = o[i].t_ns,
				       .wrote_ns = TS_MIN(o[lo].t_ns, o[i].t_ns),
				       .reader = o[i].tid,
				       .writer = o[lo].tid};
		bool same = false;
		for (size_t k = nh; k-- > 0;)
			if (out[k].reader == h.reader) {
				same = out[k].writer == h.writer && out[k].wrote_ns == h.wrote_ns;
				break;
			}
		if (!same)
			out[nh++] = h;
	}
	return nh;
}

#define PP_THREADS 40
#define PP_OPS 8000

/* Forty threads on six pipes: writes of messages, reads of them in one or
 * two pieces (a header, then its body), readers that had no hand-off for a
 * long while, and reads of a thread's own write. */
static void test_pipe_handoffs(void)
{
	static struct pop ops[PP_OPS];
	static struct ts_handoff want[PP_OPS];
	struct ts_wakes_parser *p;
	CHECK(ts_wakes_parser_new(1000, 0, &p) == 0);
	for (uint32_t k = 1; k < PP_THREADS; k++) {
		struct ts_wakes_event ev = {.t_ns = k, .cur = 1000, .a = 1000, .b = 1000 + k,
					    .type = TS_WAKES_FORK, .str = "w", .len = 1,
					    .tgid = 1000};
		CHECK(ts_wakes_parser_event(p, &ev) == 1);
	}
	struct ts_rng r;
	ts_rng_seed(&r, 21);
	uint64_t end[6] = {0}, rd[6] = {0}, now = 1000;
	size_t n = 0;
	while (n + 3 <= PP_OPS) {
		unsigned q = (unsigned)(ts_rng_u64(&r) % 6);
		now += 1 + ts_rng_u64(&r) % 3000;
		/* a few threads read rarely, so their previous hand-off lies
		 * far back among everyone's */
		uint32_t w = 1000 + (uint32_t)(ts_rng_u64(&r) % PP_THREADS);
		uint32_t rdr = 1000 + (uint32_t)(ts_rng_u64(&r) % (ts_rng_u64(&r) % 10 ? 8 : PP_THREADS));
		uint64_t len = 16 + ts_rng_u64(&r) % 4000;
		end[q] += len;
		ops[n++] = (struct pop){.pipe = 0x7f00 + q, .t_ns = now, .end = end[q], .tid = w,
					.write = true};
		if (ts_rng_u64(&r) % 3 == 0) { /* a header, then the body */
			rd[q] += 8;
			ops[n++] = (struct pop){.pipe = 0x7f00 + q, .t_ns = now + 5, .end = rd[q],
						.tid = rdr};
		}
		rd[q] = end[q];
		ops[n++] = (struct pop){.pipe = 0x7f00 + q, .t_ns = now + 9, .end = rd[q], .tid = rdr};
	}
	/* in the parser in another order than the sorted one */
	for (size_t i = n; i-- > 0;)
		CHECK(ts_wakes_parser_pipe(p, ops[i].write, ops[i].t_ns, ops[i].tid, ops[i].pipe,
					   ops[i].end) == 1);
	size_t nwant = pipes_ref(ops, n, want);
	struct ts_wakes s;
	CHECK(ts_wakes_parser_finish(p, now + 100, &s) == 0);
	ts_wakes_parser_free(p);
	size_t diff = s.nhandoffs != nwant;
	for (size_t i = 0; !diff && i < nwant; i++)
		diff += memcmp(&s.handoffs[i], &want[i], sizeof(want[i])) != 0;
	fprintf(stderr, "pipes: %zu ops, %zu hand-offs (the scan's %zu), %s\n", n, s.nhandoffs,
		nwant, diff ? "unlike" : "alike");
	CHECK(diff == 0);
	CHECK(nwant > 1000 && nwant < n / 2); /* some tied to a header's write */
	ts_wakes_free(&s);
}

int main(void)
{
	char err[512];
	char path[] = "/tmp/ts_keyedcountXXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	FILE *f = fdopen(fd, "w");
	CHECK(f != NULL);
	fputs("tier \"keyedcount\" { desc = \"test\", source = \"test\",\n"
	      "  latency = { read = { p50 = \"1ms\", p99 = \"2ms\" } } }\n", f);
	fclose(f);
	CHECK(ts_tier_set_load_default(&kc_set, err, sizeof(err)) == 0);
	if (ts_tier_set_add_file(kc_set, path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	unlink(path);
	test_keyed_counts();
	ts_tier_set_free(kc_set);
	test_inflight_oldest();
	test_pipe_handoffs();
	return tc_exit();
}
