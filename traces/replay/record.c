/*
 * record.c — tiersim record's report on what it recorded: the trace's
 * summary, its wake file or CPU samples, and with tiers to predict, the
 * replay per tier from the set-up every prediction shares (setup.c), with
 * the probe rule when a second recording is given (replay.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ts.h"
#include "core/units.h"
#include "traces/replay/replay.h"
#include "traces/stats.h"

uint64_t ts_replay_from_first(const struct ts_replay_result *r)
{
	return r->total_ns - TS_MIN(r->lead_ns, r->total_ns);
}

/* The median, lowest and highest of @n values @stride apart (sorted in
 * place into @tmp). The median of an even count is the lower middle. */
static void band(const uint64_t *v, size_t n, size_t stride, uint64_t *tmp, uint64_t out[3])
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = v[i * stride];
	qsort(tmp, n, sizeof(*tmp), ts_cmp_u64);
	out[0] = tmp[(n - 1) / 2];
	out[1] = tmp[0];
	out[2] = tmp[n - 1];
}

int ts_replay_runs_alloc(struct ts_replay_runs *rp)
{
	size_t cols = 1 + rp->ntiers;
	rp->rec = calloc(rp->runs, sizeof(*rp->rec));
	rp->pred = calloc(rp->runs * (rp->ntiers ? rp->ntiers : 1), sizeof(*rp->pred));
	rp->lead = calloc(rp->runs * cols, sizeof(*rp->lead));
	rp->trail = calloc(rp->runs * cols, sizeof(*rp->trail));
	return rp->rec && rp->pred && rp->lead && rp->trail ? 0 : -ENOMEM;
}

void ts_replay_runs_free(struct ts_replay_runs *rp)
{
	free(rp->rec);
	free(rp->pred);
	free(rp->lead);
	free(rp->trail);
	rp->rec = rp->pred = rp->lead = rp->trail = NULL;
}

void ts_replay_runs_put(struct ts_replay_runs *rp, size_t run, size_t col,
			const struct ts_replay_result *r)
{
	if (col)
		rp->pred[run * rp->ntiers + col - 1] = ts_replay_from_first(r);
	else
		rp->rec[run] = ts_replay_from_first(r);
	if (rp->lead)
		rp->lead[run * (1 + rp->ntiers) + col] = TS_MIN(r->lead_ns, r->total_ns);
	if (rp->trail) /* never more than the span from the first request */
		rp->trail[run * (1 + rp->ntiers) + col] = TS_MIN(r->trail_ns, ts_replay_from_first(r));
}

/* The combination for column @col (0 the recordings, 1 + i tier i): each
 * run's span from its first request less its exit (its own requests'
 * part), their median in @out->core; the start's and the exit's median,
 * lowest and highest over the runs; @out->run[r] run r's whole span with
 * the start and the exit at their medians. */
struct combined {
	uint64_t core[3], lead[3], trail[3];
	uint64_t run[TS_RECORD_MAX_RUNS];
};

static bool combined_any(const struct ts_replay_runs *rp)
{
	if (!rp->lead || !rp->trail)
		return false;
	for (size_t i = 0; i < rp->runs * (1 + rp->ntiers); i++)
		if (rp->lead[i] || rp->trail[i])
			return true;
	return false;
}

static void combine(const struct ts_replay_runs *rp, size_t col, struct combined *out)
{
	uint64_t tmp[TS_RECORD_MAX_RUNS], core[TS_RECORD_MAX_RUNS];
	size_t cols = 1 + rp->ntiers;
	for (size_t r = 0; r < rp->runs; r++)
		core[r] = (col ? rp->pred[r * rp->ntiers + col - 1] : rp->rec[r]) -
			  rp->trail[r * cols + col];
	band(core, rp->runs, 1, tmp, out->core);
	band(rp->lead + col, rp->runs, cols, tmp, out->lead);
	band(rp->trail + col, rp->runs, cols, tmp, out->trail);
	for (size_t r = 0; r < rp->runs; r++)
		out->run[r] = core[r] + out->lead[0] + out->trail[0];
}

/* @c's whole span (with the start) or its span from the first request:
 * median, lowest and highest (the start and the exit at their ends) */
static void combined_span(const struct combined *c, bool whole, uint64_t out[3])
{
	for (int i = 0; i < 3; i++)
		out[i] = c->core[0] + c->trail[i] + (whole ? c->lead[i] : 0);
}

static void combined_print(FILE *f, const struct ts_replay_runs *rp,
			   const struct ts_replay_result *res)
{
	struct combined c;
	uint64_t w[3], o[3];
	char a[32], b[32], x[32], y[32], z[32], u[32];
	combine(rp, 0, &c);
	fprintf(f,
		"combined over the %zu recordings: each predicts from its own requests, the "
		"command's start before them and its exit after its other threads (no tier "
		"moves either; recorded: start %s, %s - %s; exit %s, %s - %s) taken as the "
		"recordings' median; the band: those two at their lowest and highest\n",
		rp->runs, ts_fmt_duration(a, sizeof(a), c.lead[0]),
		ts_fmt_duration(b, sizeof(b), c.lead[1]), ts_fmt_duration(x, sizeof(x), c.lead[2]),
		ts_fmt_duration(y, sizeof(y), c.trail[0]), ts_fmt_duration(z, sizeof(z), c.trail[1]),
		ts_fmt_duration(u, sizeof(u), c.trail[2]));
	if (c.core[0])
		fprintf(f,
			"  the recordings' own requests (from the first, less the exit): median "
			"%s, %+.1f%% to %+.1f%%\n",
			ts_fmt_duration(a, sizeof(a), c.core[0]),
			100.0 * ((double)c.core[1] - (double)c.core[0]) / (double)c.core[0],
			100.0 * ((double)c.core[2] - (double)c.core[0]) / (double)c.core[0]);
	fprintf(f, "  %-18s %12s   %-25s %12s   %s\n", "", "whole span", "band", "from 1st IO",
		"band");
	for (size_t i = 0; i < rp->ntiers; i++) {
		combine(rp, i + 1, &c);
		combined_span(&c, true, w);
		combined_span(&c, false, o);
		snprintf(u, sizeof(u), "%s - %s", ts_fmt_duration(x, sizeof(x), w[1]),
			 ts_fmt_duration(y, sizeof(y), w[2]));
		fprintf(f, "  %-18s %12s   %-25s %12s   %s - %s\n", res[i + 1].what,
			ts_fmt_duration(a, sizeof(a), w[0]), u, ts_fmt_duration(b, sizeof(b), o[0]),
			ts_fmt_duration(x, sizeof(x), o[1]), ts_fmt_duration(z, sizeof(z), o[2]));
	}
}

static json_t *three_json(const uint64_t v[3])
{
	return json_pack("{sI sI sI}", "median_ns", (json_int_t)v[0], "low_ns", (json_int_t)v[1],
			 "high_ns", (json_int_t)v[2]);
}

/* column @col's combination as JSON (NULL: out of memory) */
static json_t *combined_json(const struct ts_replay_runs *rp, size_t col)
{
	struct combined c;
	uint64_t w[3], o[3];
	json_t *runs = json_array();
	combine(rp, col, &c);
	combined_span(&c, true, w);
	combined_span(&c, false, o);
	for (size_t r = 0; runs && r < rp->runs; r++)
		if (json_array_append_new(runs, json_integer((json_int_t)c.run[r]))) {
			json_decref(runs);
			return NULL;
		}
	return json_pack("{so sI sI sI sI sI sI so so}", "total_ns", runs, "median_ns",
			 (json_int_t)w[0], "low_ns", (json_int_t)w[1], "high_ns",
			 (json_int_t)w[2], "from_first_ns", (json_int_t)o[0], "from_first_low_ns",
			 (json_int_t)o[1], "from_first_high_ns", (json_int_t)o[2], "lead_ns",
			 three_json(c.lead), "trail_ns", three_json(c.trail));
}

void ts_replay_runs_print(FILE *f, const struct ts_replay_runs *rp, const char *tier,
			  const struct ts_replay_result *res)
{
	uint64_t tmp[TS_RECORD_MAX_RUNS], b[3];
	char x[32], y[32], z[32];
	band(rp->rec, rp->runs, 1, tmp, b);
	if (!tier) {
		fprintf(f,
			"\n%zu recordings of several tiers: no common median, so no own deviation "
			"(give recordings of one tier for it)\n",
			rp->runs);
		goto predict;
	}
	fprintf(f,
		"\n%zu recordings on %s, each from its first request: span median %s, %s to %s "
		"(%+.1f%% to %+.1f%% of the median: the recording's own deviation, which a "
		"prediction from one run inherits)\n",
		rp->runs, tier, ts_fmt_duration(x, sizeof(x), b[0]),
		ts_fmt_duration(y, sizeof(y), b[1]), ts_fmt_duration(z, sizeof(z), b[2]),
		b[0] ? 100.0 * ((double)b[1] - (double)b[0]) / (double)b[0] : 0.0,
		b[0] ? 100.0 * ((double)b[2] - (double)b[0]) / (double)b[0] : 0.0);
predict:
	if (!rp->ntiers)
		return; /* no --predict: the spread alone */
	fprintf(f, "predicted over the %zu recordings (median, lowest - highest):\n", rp->runs);
	for (size_t i = 0; i < rp->ntiers; i++) {
		band(rp->pred + i, rp->runs, rp->ntiers, tmp, b);
		fprintf(f, "  %-18s %12s   %s - %s\n", res[i + 1].what,
			ts_fmt_duration(x, sizeof(x), b[0]), ts_fmt_duration(y, sizeof(y), b[1]),
			ts_fmt_duration(z, sizeof(z), b[2]));
	}
	if (combined_any(rp))
		combined_print(f, rp, res);
}

json_t *ts_replay_runs_json(const struct ts_replay_runs *rp, const struct ts_replay_result *res)
{
	uint64_t tmp[TS_RECORD_MAX_RUNS], b[3];
	/* the combination only where the text has it: a start or an exit */
	bool any = combined_any(rp);
	json_t *rec = json_array(), *tiers = json_array();
	json_t *o = json_pack("{sI so so}", "runs", (json_int_t)rp->runs, "recorded_ns", rec,
			      "predict", tiers);
	if (!o)
		return NULL;
	for (size_t r = 0; r < rp->runs; r++)
		json_array_append_new(rec, json_integer((json_int_t)rp->rec[r]));
	for (size_t i = 0; i < rp->ntiers; i++) {
		json_t *all = json_array();
		for (size_t r = 0; r < rp->runs; r++)
			json_array_append_new(
			    all, json_integer((json_int_t)rp->pred[r * rp->ntiers + i]));
		band(rp->pred + i, rp->runs, rp->ntiers, tmp, b);
		json_t *t = json_pack("{ss so sI sI sI}", "tier", res[i + 1].what, "total_ns", all,
				      "median_ns", (json_int_t)b[0], "low_ns", (json_int_t)b[1],
				      "high_ns", (json_int_t)b[2]);
		if (t && any)
			json_object_set_new(t, "combined", combined_json(rp, i + 1));
		json_array_append_new(tiers, t);
	}
	if (any)
		json_object_set_new(o, "combined", combined_json(rp, 0));
	return o;
}

/* Each further recording of --repeat: its span and its predictions. */
static int repeat_run(const struct ts_record_report *r, struct ts_replay_set *probe,
		      struct ts_replay_runs *rp, size_t run, char *err, size_t errlen)
{
	struct ts_replay_cfg cfg = {.speed = 1.0, .wake_cost_ns = r->wake_cost_ns};
	struct ts_replay_from from = {.trace = r->repeats[run - 1],
				      .lock_wakes_ns = TS_REPLAY_LOCK_WAKES_NS,
				      .tiers = true,
				      .profile = r->profile};
	struct ts_replay_set s;
	struct ts_replay_result own, pred;
	int rc = ts_replay_open(&s, &from, &cfg, err, errlen);
	if (rc)
		return rc;
	memset(&own, 0, sizeof(own));
	if ((rc = ts_replay_recorded_wakes(&s.t, s.cfg.wakes, &own))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	ts_replay_runs_put(rp, run, 0, &own);
	for (size_t i = 0; i < r->ntiers; i++) {
		char sub[400];
		memset(&pred, 0, sizeof(pred));
		if ((rc = ts_replay_predict_probe(&s, probe, r->tiers[i], &pred, sub,
						  sizeof(sub)))) {
			snprintf(err, errlen, "%s: --predict %s: %s", r->repeats[run - 1],
				 r->tiers[i], sub);
			goto out;
		}
		ts_replay_runs_put(rp, run, i + 1, &pred);
	}
out:
	ts_replay_close(&s);
	return rc;
}

/* The text: the summary, the waits, the predictions. */
static void record_print(FILE *f, const struct ts_record_report *r, struct ts_replay_set *s,
			 const struct ts_replay_set *probe, const struct ts_trace_stats *st,
			 const struct ts_replay_result *res, const struct ts_replay_runs *rp)
{
	char b1[32], b2[32];
	fprintf(f, "recorded %s on %s into %s (the command exited %d)\n\n", r->data, s->t.hdr.tier,
		r->trace, r->exit_status);
	ts_trace_stats_print(f, st, &s->t, 5);
	char sl[96] = ""; /* block mode: the command's waits for the device */
	if (s->wk.nsleeps)
		snprintf(sl, sizeof(sl), ", %zu IO sleeps (%" PRIu64 " requests tied to them)",
			 s->wk.nsleeps, res[0].tied);
	if (s->cfg.wakes)
		fprintf(f,
			"\nwake file %s.wakes: %zu threads, %zu wakes between them%s; of the "
			"time between a thread's requests and wakes (%s), %s was waiting on "
			"another thread (the wake rule)\n",
			r->trace, s->wk.nthreads, s->wk.nwakes, sl,
			ts_fmt_duration(b1, sizeof(b1), res[0].think_ns),
			ts_fmt_duration(b2, sizeof(b2), res[0].waited_ns));
	else
		fprintf(f,
			"\nCPU samples on %zu of %zu records; of the gaps between a thread's "
			"requests (%s), %s were waiting (elastic in replay)\n",
			s->t.ncpu, s->t.nrecs, ts_fmt_duration(b1, sizeof(b1), res[0].think_ns),
			ts_fmt_duration(b2, sizeof(b2), res[0].waited_ns));
	if (!r->ntiers) {
		if (rp->runs > 1)
			ts_replay_runs_print(f, rp, s->t.hdr.tier, res);
		return;
	}
	fprintf(f, "\npredicted per tier (%s%s%s%s):\n\n",
		s->cfg.wakes	     ? "the wake rule: each wait follows the thread that ended it"
		: s->cfg.closed_loop ? "closed loop: the trace has no CPU samples"
				     : "work kept, waiting elastic",
		probe ? "; each the larger of the predictions from this run and from the probe "
			"run on "
		      : "",
		probe ? probe->t.hdr.tier : "", probe ? ", marked (probe)" : "");
	ts_replay_print(f, res, r->ntiers + 1);
	if (rp->runs > 1)
		ts_replay_runs_print(f, rp, s->t.hdr.tier, res);
}

int ts_record_report(const struct ts_record_report *r, FILE *f, json_t **json, char *err,
		     size_t errlen)
{
	struct ts_replay_cfg cfg = {.speed = 1.0, .wake_cost_ns = r->wake_cost_ns};
	struct ts_replay_from from = {.trace = r->trace,
				      .lock_wakes_ns = TS_REPLAY_LOCK_WAKES_NS,
				      .tiers = r->ntiers > 0,
				      .profile = r->profile};
	struct ts_replay_set s, ps;
	struct ts_trace_stats *st = NULL;
	struct ts_replay_result *res = NULL;
	struct ts_replay_runs rp = {.runs = 1 + r->nrepeats, .ntiers = r->ntiers};
	int rc = ts_replay_open(&s, &from, &cfg, err, errlen);
	memset(&ps, 0, sizeof(ps));
	if (!rc && r->probe) {
		from.trace = r->probe;
		rc = ts_replay_open(&ps, &from, &cfg, err, errlen);
	}
	if (rc)
		goto out;
	if (s.warn[0])
		fprintf(stderr, "tiersim record: %s: warning: %s\n", r->trace, s.warn);
	if (ts_trace_stats_compute(&s.t, 0, &st) || !(res = calloc(r->ntiers + 1, sizeof(*res))) ||
	    ts_replay_recorded_wakes(&s.t, s.cfg.wakes, &res[0])) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->ntiers; i++) {
		char sub[400];
		if ((rc = ts_replay_predict_probe(&s, r->probe ? &ps : NULL, r->tiers[i],
						  &res[i + 1], sub, sizeof(sub)))) {
			snprintf(err, errlen, "--predict %s: %s", r->tiers[i], sub);
			goto out;
		}
	}
	if (rp.runs > TS_RECORD_MAX_RUNS) {
		snprintf(err, errlen, "--repeat: at most %d runs", TS_RECORD_MAX_RUNS);
		rc = -EINVAL;
		goto out;
	}
	if (ts_replay_runs_alloc(&rp)) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i <= r->ntiers; i++)
		ts_replay_runs_put(&rp, 0, i, &res[i]);
	for (size_t run = 1; run < rp.runs; run++)
		if ((rc = repeat_run(r, r->probe ? &ps : NULL, &rp, run, err, errlen)))
			goto out;
	if (json) {
		*json = json_pack("{ss ss si so}", "trace", r->trace, "tier", s.t.hdr.tier,
				  "exit_status", r->exit_status, "summary",
				  ts_trace_stats_json(st, &s.t));
		if (*json && r->probe)
			json_object_set_new(
			    *json, "probe",
			    json_pack("{ss ss}", "trace", r->probe, "tier", ps.t.hdr.tier));
		if (*json && r->ntiers)
			json_object_set_new(*json, "predict", ts_replay_json(res, r->ntiers + 1));
		if (*json && rp.runs > 1)
			json_object_set_new(*json, "repeat", ts_replay_runs_json(&rp, res));
		if (!*json) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
		goto out;
	}
	record_print(f, r, &s, r->probe ? &ps : NULL, st, res, &rp);
out:
	ts_replay_runs_free(&rp);
	free(res);
	ts_trace_stats_free(st);
	ts_replay_close(&s);
	ts_replay_close(&ps);
	return rc;
}
