/*
 * test_verdict.c — the verdicts of validation/run.h on hand-made cases: a
 * figure's status from its error and tolerance, the fitting and known-miss
 * cases, same-run cases, the FUSE floor, and the summary that decides
 * validate's exit status: a known miss is a miss (counted outside, with its
 * reason); a case with a known miss and an unexpected one is outside
 * without a reason; same-run cases are not scored.
 */
#include <string.h>

#include "tests/tcheck.h"
#include "validation/run.h"

static struct ts_case_figure fig(double value, double tol, char *known_miss)
{
	return (struct ts_case_figure){ .name = "iops", .metric = TS_METRIC_IOPS, .value = value,
					.unit = "IOPS", .scale = 1, .tolerance = tol,
					.known_miss = known_miss };
}

static void verdicts(void)
{
	struct ts_case check = { .id = "c" }, fit = { .id = "f", .fits = true },
		       same = { .id = "s", .same_run = "f" };
	struct ts_case_figure f = fig(1000, 0.10, NULL), km = fig(1000, 0.10, "a queue model");
	double e = 0;
	/* a table: case, figure, prediction, floor -> status, error */
	struct {
		const struct ts_case *c;
		const struct ts_case_figure *f;
		double pred;
		bool floor;
		enum ts_fig_status want;
		double err;
	} t[] = {
		{ &check, &f, 1100, false, TS_FIG_INSIDE, 0.10 }, /* on the edge: inside */
		{ &check, &f, 899, false, TS_FIG_OUTSIDE, -0.101 },
		{ &check, &f, 1000, true, TS_FIG_FLOOR, 0 },
		{ &fit, &f, 950, false, TS_FIG_FIT, -0.05 },
		{ &fit, &f, 1500, false, TS_FIG_FIT_OFF, 0.5 },
		{ &check, &km, 2000, false, TS_FIG_KNOWN, 1.0 },
		{ &check, &km, 1050, false, TS_FIG_KNOWN_NOW_INSIDE, 0.05 },
		{ &same, &f, 1050, false, TS_FIG_SAME_IN, 0.05 },
		{ &same, &km, 2000, false, TS_FIG_SAME_OUT, 1.0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		enum ts_fig_status st = ts_fig_verdict(t[i].c, t[i].f, t[i].pred, t[i].floor, &e);
		if (st != t[i].want)
			fprintf(stderr, "row %zu: %s, expected %s\n", i, ts_fig_status_name(st),
				ts_fig_status_name(t[i].want));
		CHECK(st == t[i].want);
		CHECK(fabs(e - t[i].err) < 1e-9);
	}
	/* a measured 0 has no relative error: judged inside */
	struct ts_case_figure zero = fig(0, 0.1, NULL);
	CHECK(ts_fig_verdict(&check, &zero, 5, false, &e) == TS_FIG_INSIDE && e == 0);
}

static void summary(void)
{
	struct ts_case_figure figs[2] = { fig(100, 0.1, NULL), fig(100, 0.1, "known") };
	struct ts_case c1 = { .id = "a", .fig = figs, .nfig = 2 };
	struct ts_case c2 = { .id = "b", .fig = figs, .nfig = 2 };
	struct ts_case cf = { .id = "f", .fig = figs, .nfig = 1, .fits = true };
	struct ts_case cn = { .id = "n", .fig = figs, .nfig = 1 };
	struct ts_case cs = { .id = "s", .fig = figs, .nfig = 1, .same_run = "f" };
	struct ts_fig_row f1[2] = { { &figs[0], 105, 0.05, TS_FIG_INSIDE },
				    { &figs[1], 200, 1.0, TS_FIG_KNOWN } };
	/* a known miss and an unexpected miss in one case: outside */
	struct ts_fig_row f2[2] = { { &figs[0], 150, 0.5, TS_FIG_OUTSIDE },
				    { &figs[1], 300, 2.0, TS_FIG_KNOWN } };
	struct ts_fig_row ff[1] = { { &figs[0], 101, 0.01, TS_FIG_FIT } };
	/* a same-run case out of its tolerance: shown, not scored */
	struct ts_fig_row fs[1] = { { &figs[0], 300, 2.0, TS_FIG_SAME_OUT } };
	struct ts_case_row rows[] = {
		{ .c = &c1, .f = f1 },
		{ .c = &c2, .f = f2 },
		{ .c = &cf, .f = ff },
		{ .c = &cn, .needs = "a loader" },
		{ .c = &cs, .f = fs },
	};
	double errs[8];
	struct ts_fig_row *worst[8];
	struct ts_case_outcome o[5];
	size_t nworst;
	struct ts_validate_summary s;
	ts_validate_summarize(rows, 5, NULL, o, &s, errs, worst, &nworst);
	CHECK_EQ_U64(s.v.checks, 2);
	CHECK_EQ_U64(s.v.inside, 0);
	CHECK_EQ_U64(s.v.known, 1);
	CHECK_EQ_U64(s.v.outside, 1);
	CHECK_EQ_U64(s.v.fits, 1);
	CHECK_EQ_U64(s.v.fits_off, 0);
	CHECK_EQ_U64(s.v.not_runnable, 1);
	CHECK_EQ_U64(s.v.same_run, 1);
	CHECK_EQ_U64(s.same_inside, 0);
	CHECK(o[0].outcome == TS_OUTCOME_KNOWN && o[1].outcome == TS_OUTCOME_OUTSIDE &&
	      o[4].outcome == TS_OUTCOME_SAME_RUN);
	CHECK_EQ_U64(s.nerr, 4); /* the same-run figure is not in the median */
	CHECK_EQ_U64(nworst, 4);
	CHECK(worst[0]->error == 2.0 && worst[3]->error == 0.05);
	CHECK(fabs(s.median - 0.75) < 1e-12); /* |errors| 0.05 0.5 1 2 */
	CHECK(!ts_validate_passed(&s));
	/* the unexpected miss gone: known misses alone pass without a ratchet,
	 * counted outside */
	f2[0] = (struct ts_fig_row){ &figs[0], 105, 0.05, TS_FIG_INSIDE };
	ts_validate_summarize(rows, 5, NULL, o, &s, errs, worst, &nworst);
	CHECK_EQ_U64(s.v.outside, 0);
	CHECK_EQ_U64(s.v.known, 2);
	CHECK_EQ_U64(s.v.inside, 0);
	CHECK(ts_validate_passed(&s));
	/* ... but not against a ratchet that had one of them inside */
	char id_a[] = "a", *ids[] = { id_a };
	struct ts_ratchet r = { ids, 1 };
	ts_validate_summarize(rows, 5, &r, o, &s, errs, worst, &nworst);
	CHECK(!ts_validate_passed(&s) && s.v.fell == 1);
	/* a fit no longer reproduced fails the run */
	ff[0].st = TS_FIG_FIT_OFF;
	ts_validate_summarize(rows, 5, NULL, o, &s, errs, worst, &nworst);
	CHECK(!ts_validate_passed(&s));
}

int main(void)
{
	verdicts();
	summary();
	return tc_exit();
}
