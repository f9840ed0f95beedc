/*
 * test_replay_setup.c — the one replay set-up from a trace (traces/replay
 * setup.c), without a command line: the tier model as the recording ran it,
 * the overrides over it (a bad one refused as such), a missing wake file
 * refused, predictions deterministic, and the probe rule taking the larger
 * of two predictions, marked. On traces/samples/seqread-1m.ssd-cloud.trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "tests/tcheck.h"
#include "traces/replay/replay.h"

int main(void)
{
	const char *root = getenv("TS_SOURCE_ROOT");
	char trace[4096], err[512];
	snprintf(trace, sizeof(trace), "%s/traces/samples/seqread-1m.ssd-cloud.trace",
		 root ? root : ".");
	struct ts_replay_cfg cfg = { .speed = 1.0 };
	struct ts_replay_from from = { .trace = trace, .tiers = true };
	struct ts_replay_set s, p;

	/* as recorded: the model's floor and the wait rule's round trip are the
	 * recording's; no wake file beside it */
	CHECK(ts_replay_open(&s, &from, &cfg, err, sizeof(err)) == 0);
	CHECK(s.cfg.tier.floor_ns == s.rec_floor && s.cfg.rt_ns == s.rec_floor);
	CHECK(s.cfg.wakes == NULL && !s.bad_override);
	CHECK(s.no_cpu == !s.t.cpu && s.cfg.closed_loop == !s.t.cpu);
	struct ts_replay_result a, b;
	CHECK(ts_replay_predict(&s, "ssd-cloud", &a, err, sizeof(err)) == 0);
	CHECK(ts_replay_predict(&s, "ssd-cloud", &b, err, sizeof(err)) == 0);
	CHECK(a.total_ns == b.total_ns && a.ops == b.ops && a.total_ns > 0);
	CHECK(!strcmp(a.what, "ssd-cloud"));
	CHECK(ts_replay_predict(&s, "no-such-tier", &b, err, sizeof(err)) != 0);
	ts_replay_close(&s);

	/* an override over the recording's; a bad one is the request's fault */
	from.over[1] = "1GiB";
	CHECK(ts_replay_open(&s, &from, &cfg, err, sizeof(err)) == 0);
	CHECK(s.cfg.tier.mem == TS_GiB);
	ts_replay_close(&s);
	from.over[1] = "lots";
	CHECK(ts_replay_open(&s, &from, &cfg, err, sizeof(err)) != 0);
	CHECK(s.bad_override && !strncmp(err, "--mem:", 6));
	ts_replay_close(&s);
	from.over[1] = NULL;

	/* a wake file asked for and missing: refused, not ignored */
	from.wakes = "/nonexistent/x.wakes";
	CHECK(ts_replay_open(&s, &from, &cfg, err, sizeof(err)) != 0);
	CHECK(!s.bad_override);
	ts_replay_close(&s);
	from.wakes = NULL;

	/* the probe rule: a floor of 50 ms taken off every modeled latency
	 * makes the first recording's prediction faster; the probe's (the
	 * recording's own floor) is then the larger, and taken */
	from.over[3] = "50ms";
	CHECK(ts_replay_open(&s, &from, &cfg, err, sizeof(err)) == 0);
	from.over[3] = NULL;
	CHECK(ts_replay_open(&p, &from, &cfg, err, sizeof(err)) == 0);
	struct ts_replay_result fast, slow, got;
	CHECK(ts_replay_predict(&s, "ssd-cloud", &fast, err, sizeof(err)) == 0);
	CHECK(ts_replay_predict(&p, "ssd-cloud", &slow, err, sizeof(err)) == 0);
	CHECK(fast.total_ns < slow.total_ns);
	CHECK(ts_replay_predict_probe(&s, &p, "ssd-cloud", &got, err, sizeof(err)) == 0);
	CHECK(got.total_ns == slow.total_ns && !strcmp(got.what, "ssd-cloud (probe)"));
	CHECK(ts_replay_predict_probe(&p, &s, "ssd-cloud", &got, err, sizeof(err)) == 0);
	CHECK(got.total_ns == slow.total_ns && !strcmp(got.what, "ssd-cloud"));
	CHECK(ts_replay_predict_probe(&s, NULL, "ssd-cloud", &got, err, sizeof(err)) == 0);
	CHECK(got.total_ns == fast.total_ns);
	ts_replay_close(&s);
	ts_replay_close(&p);
	return tc_exit();
}
