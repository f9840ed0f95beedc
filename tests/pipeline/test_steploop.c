/*
 * test_steploop.c — the consumer's step loop (pipeline/steploop.h) in
 * virtual time, over a scripted source: a step starts at max(ready, the
 * previous step's last end) for every rank; the batch is released when its
 * step starts; the limit, the source's end, a step_end that stops, a run
 * that fails (its batch released at its ready time) and a Ctrl-C each end
 * the loop as documented.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "core/interrupt.h"
#include "pipeline/steploop.h"
#include "tests/tcheck.h"

#define MAXB 16

/* Batches in order: rank, ready. */
struct script {
	uint64_t n, next;
	uint64_t rank[MAXB], ready[MAXB];
	uint64_t free_at[MAXB]; /* what take was told */
	uint64_t released[MAXB];
	uint64_t nrel;
	bool fail_release; /* every release fails, saying so */
};

static int s_take(void *self, uint64_t free_at, struct ts_take *b, char *err, size_t errlen)
{
	struct script *s = self;
	(void)err, (void)errlen;
	if (s->next == s->n)
		return 0;
	s->free_at[s->next] = free_at;
	*b = (struct ts_take){ .rank = s->rank[s->next], .seq = s->next, .ready = s->ready[s->next],
			       .n = 4 };
	s->next++;
	return 1;
}

static int s_release(void *self, const struct ts_take *b, uint64_t t, char *err, size_t errlen)
{
	struct script *s = self;
	CHECK_EQ_U64(b->seq, s->nrel);
	s->released[s->nrel++] = t;
	if (s->fail_release) {
		snprintf(err, errlen, "release failed");
		return -EBADF;
	}
	return 0;
}

struct counts {
	uint64_t taken, steps, stop_at, fail_at;
	uint64_t start[MAXB], end[MAXB]; /* per take */
	uint64_t step_end[MAXB];	 /* per whole step */
};

static int c_run(void *self, const struct ts_take *b, uint64_t free_at, struct ts_step_span *sp,
		 char *err, size_t errlen)
{
	struct counts *c = self;
	if (b->seq == c->fail_at) {
		snprintf(err, errlen, "step %llu failed", (unsigned long long)b->seq);
		return -EIO;
	}
	/* a step of 10 + its rank from max(ready, free_at) */
	sp->start = b->ready > free_at ? b->ready : free_at;
	sp->end = sp->start + 10 + b->rank;
	return 0;
}

static int c_taken(void *self, const struct ts_take *b, const struct ts_step_span *sp, char *err,
		   size_t errlen)
{
	struct counts *c = self;
	(void)err, (void)errlen;
	c->start[b->seq] = sp->start;
	c->end[b->seq] = sp->end;
	c->taken++;
	return 0;
}

static int c_step_end(void *self, const struct ts_take *b, const struct ts_step_span *sp,
		      uint64_t end, char *err, size_t errlen)
{
	struct counts *c = self;
	(void)b, (void)sp, (void)err, (void)errlen;
	c->step_end[c->steps++] = end;
	return c->steps == c->stop_at;
}

static int run(struct script *s, struct counts *c, uint64_t ranks, uint64_t limit, bool custom,
	       struct ts_steploop *L, char *err, size_t errlen)
{
	struct ts_steploop_src src = { s_take, s_release, s };
	struct ts_steploop_ops ops = { .run = custom ? c_run : NULL, .taken = c_taken,
				       .step_end = c_step_end, .self = c };
	*L = (struct ts_steploop){ .src = &src, .ops = &ops, .ranks = ranks, .limit = limit,
				   .t0 = 5, .step_ns = 7 };
	return ts_steploop_run(L, err, errlen);
}

int main(void)
{
	char err[256];
	struct ts_steploop L;

	/* One rank, the default fixed step of 7 from t0 = 5: a batch ready
	 * early waits for the previous end, one ready late starts then. */
	{
		struct script s = { .n = 3, .ready = { 0, 30, 31 } };
		struct counts c = { 0 };
		CHECK(run(&s, &c, 1, UINT64_MAX, false, &L, err, sizeof(err)) == 0);
		CHECK(L.ended);
		CHECK_EQ_U64(L.steps, 3);
		CHECK_EQ_U64(c.start[0], 5);
		CHECK_EQ_U64(c.end[0], 12);
		CHECK_EQ_U64(c.start[1], 30);
		CHECK_EQ_U64(c.start[2], 37); /* ready at 31, the previous ends at 37 */
		CHECK_EQ_U64(L.end, 44);
		CHECK_EQ_U64(s.free_at[1], 12);
		CHECK_EQ_U64(s.nrel, 3);
		for (int i = 0; i < 3; i++)
			CHECK_EQ_U64(s.released[i], c.start[i]); /* released as its step starts */
	}
	/* Two ranks under a barrier: a step ends at its ranks' last end, and
	 * both ranks of the next start no earlier. */
	{
		struct script s = { .n = 4, .rank = { 0, 1, 1, 0 }, .ready = { 0, 20, 0, 50 } };
		struct counts c = { .fail_at = UINT64_MAX };
		CHECK(run(&s, &c, 2, UINT64_MAX, true, &L, err, sizeof(err)) == 0);
		CHECK_EQ_U64(L.steps, 2);
		CHECK_EQ_U64(c.taken, 4);
		CHECK_EQ_U64(c.start[0], 5);
		CHECK_EQ_U64(c.start[1], 20);
		CHECK_EQ_U64(c.step_end[0], 31); /* rank 1: 20 + 11 */
		CHECK_EQ_U64(s.free_at[2], 31);
		CHECK_EQ_U64(s.free_at[3], 31);
		CHECK_EQ_U64(c.start[2], 31);
		CHECK_EQ_U64(c.start[3], 50);
		CHECK_EQ_U64(c.step_end[1], 60);
	}
	/* The limit stops before a take; step_end's 1 stops at once. */
	{
		struct script s = { .n = 5 };
		struct counts c = { 0 };
		CHECK(run(&s, &c, 1, 2, false, &L, err, sizeof(err)) == 0);
		CHECK(!L.ended);
		CHECK_EQ_U64(s.next, 2);
		struct script s2 = { .n = 5 };
		struct counts c2 = { .stop_at = 3 };
		CHECK(run(&s2, &c2, 1, UINT64_MAX, false, &L, err, sizeof(err)) == 1);
		CHECK_EQ_U64(L.steps, 3);
		CHECK_EQ_U64(s2.next, 3);
	}
	/* A failing step: its batch is released at its ready time, the error
	 * is the step's (a release that fails too does not replace it). */
	{
		struct script s = { .n = 3, .ready = { 0, 40, 0 } };
		struct counts c = { .fail_at = 1 };
		CHECK(run(&s, &c, 1, UINT64_MAX, true, &L, err, sizeof(err)) == -EIO);
		CHECK(strstr(err, "step 1 failed") != NULL);
		CHECK_EQ_U64(s.nrel, 2);
		CHECK_EQ_U64(s.released[1], 40);
		struct script s2 = { .n = 1, .fail_release = true };
		struct counts c2 = { .fail_at = 0 };
		CHECK(run(&s2, &c2, 1, UINT64_MAX, true, &L, err, sizeof(err)) == -EIO);
		CHECK(strstr(err, "step 0 failed") != NULL);
	}
	/* A Ctrl-C: -EINTR, said, nothing more taken. */
	{
		struct script s = { .n = 3 };
		struct counts c = { .fail_at = UINT64_MAX };
		ts_interrupted = 1;
		CHECK(run(&s, &c, 1, UINT64_MAX, true, &L, err, sizeof(err)) == -EINTR);
		ts_interrupted = 0;
		CHECK(strstr(err, "interrupted") != NULL);
		CHECK_EQ_U64(s.next, 0);
	}
	return tc_exit();
}
