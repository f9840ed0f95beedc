/*
 * recorded.c — the trace's own figures on a replay's definitions: the
 * rules of rules.c run on the recorded times, so think time and waiting
 * mean the same in the "recorded" column as in a prediction's.
 */
#include <stdlib.h>

#include "core/units.h"
#include "traces/replay/replay_int.h"

int ts_replay_recorded(const struct ts_trace *t, struct ts_replay_result *res)
{
	return ts_replay_recorded_wakes(t, NULL, res);
}

int ts_replay_recorded_wakes(const struct ts_trace *tr, const struct ts_wakes *wakes,
			     struct ts_replay_result *res)
{
	struct augmented aug = {0};
	const struct ts_trace *t = tr;
	struct rthreads ps;
	int ret;

	if (wakes) {
		if ((ret = replay_augment(tr, wakes, &aug)))
			return ret;
		t = &aug.t;
	}
	ret = replay_rthreads_build(t, &ps);
	if (wakes && !ret && (ret = replay_augment_resolve(&aug, &ps)))
		replay_rthreads_free(&ps);
	/* the wait rule's split, for the waiting row (with a wake file, the
	 * wake rule's sleeps instead, as in ts_replay_virtual); times stay as
	 * recorded */
	struct ts_replay_cfg cfg = {
	    .speed = 1.0, .rt_ns = ts_trace_floor_ns(t), .closed_loop = wakes != NULL};
	uint64_t *ends = NULL, *issued = NULL, *completed = NULL;

	replay_result_init(res, "recorded");
	res->outside = aug.outside;
	res->tied = aug.moved + aug.tied;
	if (ret) {
		replay_augmented_free(&aug);
		return ret;
	}
	ends = calloc(ps.n ? ps.n : 1, sizeof(*ends));
	issued = calloc(t->nrecs ? t->nrecs : 1, sizeof(*issued));
	completed = calloc(t->nrecs ? t->nrecs : 1, sizeof(*completed));
	if (!ends || !issued || !completed) {
		free(ends);
		free(issued);
		free(completed);
		replay_rthreads_free(&ps);
		replay_augmented_free(&aug);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nrecs; i++) {
		issued[i] = t->recs[i].submit_ns - ps.t0 + 1;
		completed[i] = TS_MAX(t->recs[i].complete_ns, t->recs[i].submit_ns) - ps.t0 + 1;
	}
	/* replay times are the recorded ones (from t0, +1 so none is 0): the
	 * think times come out on the same definitions as a replay's */
	for (size_t k = 0; k < ps.n; k++)
		ends[k] = ps.p[k].rec_end - ps.t0 + 1;
	uint64_t end = 0, first = UINT64_MAX;
	for (size_t k = 0; k < ps.n; k++) {
		struct cursor c;
		replay_cursor_start(&c, &ps.p[k], t, ps.t0, 1, 1.0);
		c.completed = completed; /* the in-flight rule gives the recorded issues */
		do {
			(void)replay_schedule(&ps, t, &c, ends, issued, NULL, &cfg, 1.0);
			const struct ts_trace_rec *r = &t->recs[c.p->idx[c.i]];
			uint64_t done = TS_MAX(r->complete_ns, r->submit_ns);
			if (!(r->flags & REC_F_WAKE)) {
				first = TS_MIN(first, r->submit_ns);
				replay_result_add(res, r->op, done - r->submit_ns, replay_rec_bytes(r));
				res->errors += r->result < 0;
			}
			end = TS_MAX(end, done);
			if (!replay_cursor_advance(&c, t, r->submit_ns - ps.t0 + 1, done - ps.t0 + 1, &cfg,
					    1.0))
				break;
		} while (1);
		res->think_ns += c.think_ns;
		res->waited_ns += c.waited_ns;
	}
	res->total_ns = t->nrecs ? end - ps.t0 : 0;
	res->lead_ns = first != UINT64_MAX ? first - ps.t0 : 0;
	res->trail_ns = replay_trail_ns(&ps, t, wakes, ends, completed);
	free(ends);
	free(issued);
	free(completed);
	replay_rthreads_free(&ps);
	replay_augmented_free(&aug);
	return 0;
}
