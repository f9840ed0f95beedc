/*
 * record.c — tiersim record's report on what it recorded: the trace's
 * summary, its wake file or CPU samples, and with tiers to predict, the
 * replay per tier from the set-up every prediction shares (setup.c), with
 * the probe rule when a second recording is given (replay.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "traces/replay/replay.h"
#include "traces/stats.h"

/* The text: the summary, the waits, the predictions. */
static void record_print(FILE *f, const struct ts_record_report *r, struct ts_replay_set *s,
			 const struct ts_replay_set *probe, const struct ts_trace_stats *st,
			 const struct ts_replay_result *res)
{
	char b1[32], b2[32];
	fprintf(f, "recorded %s on %s into %s (the command exited %d)\n\n", r->data,
		s->t.hdr.tier, r->trace, r->exit_status);
	ts_trace_stats_print(f, st, &s->t, 5);
	if (s->cfg.wakes)
		fprintf(f, "\nwake file %s.wakes: %zu threads, %zu wakes between them; of the "
			   "time between a thread's requests and wakes (%s), %s was waiting on "
			   "another thread (the wake rule)\n",
			r->trace, s->wk.nthreads, s->wk.nwakes,
			ts_fmt_duration(b1, sizeof(b1), res[0].think_ns),
			ts_fmt_duration(b2, sizeof(b2), res[0].waited_ns));
	else
		fprintf(f, "\nCPU samples on %zu of %zu records; of the gaps between a thread's "
			   "requests (%s), %s were waiting (elastic in replay)\n",
			s->t.ncpu, s->t.nrecs, ts_fmt_duration(b1, sizeof(b1), res[0].think_ns),
			ts_fmt_duration(b2, sizeof(b2), res[0].waited_ns));
	if (!r->ntiers)
		return;
	fprintf(f, "\npredicted per tier (%s%s%s%s):\n\n",
		s->cfg.wakes ? "the wake rule: each wait follows the thread that ended it"
		: s->cfg.closed_loop ? "closed loop: the trace has no CPU samples"
				     : "work kept, waiting elastic",
		probe ? "; each the larger of the predictions from this run and from the probe "
			"run on "
		      : "",
		probe ? probe->t.hdr.tier : "", probe ? ", marked (probe)" : "");
	ts_replay_print(f, res, r->ntiers + 1);
}

int ts_record_report(const struct ts_record_report *r, FILE *f, json_t **json, char *err,
		     size_t errlen)
{
	struct ts_replay_cfg cfg = { .speed = 1.0 };
	struct ts_replay_from from = { .trace = r->trace, .tiers = r->ntiers > 0,
				       .profile = r->profile };
	struct ts_replay_set s, ps;
	struct ts_trace_stats *st = NULL;
	struct ts_replay_result *res = NULL;
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
	if (json) {
		*json = json_pack("{ss ss si so}", "trace", r->trace, "tier", s.t.hdr.tier,
				  "exit_status", r->exit_status, "summary",
				  ts_trace_stats_json(st, &s.t));
		if (*json && r->probe)
			json_object_set_new(*json, "probe", json_pack("{ss ss}", "trace", r->probe,
								      "tier", ps.t.hdr.tier));
		if (*json && r->ntiers)
			json_object_set_new(*json, "predict", ts_replay_json(res, r->ntiers + 1));
		if (!*json) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
		goto out;
	}
	record_print(f, r, &s, r->probe ? &ps : NULL, st, res);
out:
	free(res);
	ts_trace_stats_free(st);
	ts_replay_close(&s);
	ts_replay_close(&ps);
	return rc;
}
