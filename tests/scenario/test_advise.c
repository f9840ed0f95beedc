/*
 * test_advise.c — advise's choice (scenario/advise.h) on a hand-made grid
 * of 2 vCPU counts x 1 memory size x 2 tiers, without running a scenario:
 * the best point is the fastest (the cheaper one on a tie), the
 * recommendation the cheapest point within the tolerance of the best, the
 * tolerance rises to the run-to-run spread where that is larger, and a
 * failed row is never chosen. Then the grid's axes read from their text
 * (sorted, distinct, refused with one line) and the tiers checked.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/advise.h"
#include "tests/tcheck.h"

/* A grid point's row: samples/s @sps (NaN: an OOM row). */
static size_t point(struct ts_advise *A, struct ts_advise_workload *k, size_t v, size_t t,
		    double sps)
{
	struct ts_row *w = ts_report_add(&A->rep);
	CHECK(w != NULL);
	if (isnan(sps))
		CHECK(ts_row_set_str(&w->error, "OOM: on purpose") == 0);
	else
		w->samples_per_s = sps;
	k->pts[k->n] = (struct ts_advise_point){ A->rep.n - 1, v, 0, t };
	return k->n++;
}

static void setup(struct ts_advise *A, struct ts_advise_workload *k, double tol)
{
	memset(A, 0, sizeof(*A));
	memset(k, 0, sizeof(*k));
	ts_report_init(&A->rep);
	A->g.tiers[0] = "ultra-cloud";
	A->g.tiers[1] = "nvme-local";
	A->g.ntiers = 2;
	A->g.vcpus[0] = 4;
	A->g.vcpus[1] = 8;
	A->g.nv = 2;
	A->g.nm = 1;
	A->tolerance_pct = tol;
	k->pts = calloc(8, sizeof(*k->pts));
	k->cap = 8;
	k->best = k->rec = TS_ADVISE_NONE;
	k->tier_rank[0] = 0; /* ultra-cloud is the cheaper tier */
	k->tier_rank[1] = 1;
}

static void teardown(struct ts_advise *A, struct ts_advise_workload *k)
{
	free(k->pts);
	ts_report_free(&A->rep);
}

int main(void)
{
	struct ts_advise A;
	struct ts_advise_workload k;

	/* cost order: fewer vCPUs first, then the cheaper tier */
	setup(&A, &k, 2.0);
	size_t a = point(&A, &k, 0, 0, 100); /* 4 vCPU ultra */
	size_t b = point(&A, &k, 0, 1, 190); /* 4 vCPU nvme */
	size_t c = point(&A, &k, 1, 0, 120); /* 8 vCPU ultra */
	size_t d = point(&A, &k, 1, 1, 195); /* 8 vCPU nvme: the best */
	CHECK(ts_advise_cost_cmp(&k, &k.pts[a], &k.pts[b]) < 0);
	CHECK(ts_advise_cost_cmp(&k, &k.pts[b], &k.pts[c]) < 0);
	size_t *ord = ts_advise_cost_order(&k);
	CHECK(ord && ord[0] == a && ord[1] == b && ord[2] == c && ord[3] == d);
	free(ord);
	ts_advise_find_best(&A, &k);
	CHECK_EQ_U64(k.best, d);
	CHECK(ts_advise_choose(&A, &k) == 0);
	/* 190 is 2.6% under 195: outside 2%, so the best is also the choice */
	CHECK_EQ_U64(k.rec, d);
	CHECK(isnan(k.spread_pct) && k.tol_pct == 2.0);
	teardown(&A, &k);

	/* a run-to-run spread of 5% raises the tolerance: 4 vCPU nvme is in */
	setup(&A, &k, 2.0);
	point(&A, &k, 0, 0, 100);
	b = point(&A, &k, 0, 1, 190);
	point(&A, &k, 1, 0, 120);
	d = point(&A, &k, 1, 1, 195);
	ts_advise_find_best(&A, &k);
	k.runs[k.nruns++] = 195 * 0.95; /* a repeat with another seed */
	CHECK(ts_advise_choose(&A, &k) == 0);
	CHECK(fabs(k.spread_pct - 5.0) < 1e-9 && fabs(k.tol_pct - 5.0) < 1e-9);
	CHECK_EQ_U64(k.best, d);
	CHECK_EQ_U64(k.rec, b);
	CHECK(!strcmp(ts_advise_param(&A.rep.rows[k.pts[b].row], "advise.choice"),
		      "recommended"));
	CHECK(!strcmp(ts_advise_param(&A.rep.rows[k.pts[d].row], "advise.choice"), "best"));
	teardown(&A, &k);

	/* a tie goes to the cheaper point; a failed row is never chosen */
	setup(&A, &k, 0.0);
	a = point(&A, &k, 0, 0, NAN);
	b = point(&A, &k, 0, 1, 150);
	c = point(&A, &k, 1, 0, 150);
	ts_advise_find_best(&A, &k);
	CHECK_EQ_U64(k.best, b);
	CHECK(ts_advise_choose(&A, &k) == 0);
	CHECK_EQ_U64(k.rec, b);
	teardown(&A, &k);

	/* every point failed: no best, nothing chosen */
	setup(&A, &k, 2.0);
	point(&A, &k, 0, 0, NAN);
	ts_advise_find_best(&A, &k);
	CHECK_EQ_U64(k.best, TS_ADVISE_NONE);
	CHECK(ts_advise_choose(&A, &k) == 0);
	CHECK_EQ_U64(k.rec, TS_ADVISE_NONE);
	teardown(&A, &k);

	/* the axes: sorted, distinct; a bad list refused with one line */
	struct ts_advise_grid g;
	char err[256];
	memset(&g, 0, sizeof(g));
	CHECK(ts_advise_grid_vcpus(&g, "8,2,4", err, sizeof(err)) == 0);
	CHECK(g.nv == 3 && g.vcpus[0] == 2 && g.vcpus[1] == 4 && g.vcpus[2] == 8);
	CHECK(ts_advise_grid_vcpus(&g, "2,2", err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "listed twice") != NULL);
	CHECK(ts_advise_grid_vcpus(&g, "0", err, sizeof(err)) == TS_E_PARSE);
	CHECK(ts_advise_grid_vcpus(&g, "2,x", err, sizeof(err)) == TS_E_PARSE);
	CHECK(ts_advise_grid_mem(&g, "16GiB,4GiB", err, sizeof(err)) == 0);
	CHECK(g.nm == 2 && g.mem[0] == 4ull << 30 && !strcmp(g.mem_s[1], "16GiB"));
	CHECK(ts_advise_grid_mem(&g, "4GiB,4096MiB", err, sizeof(err)) == TS_E_PARSE);
	CHECK(ts_advise_grid_mem(&g, "lots", err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "'lots'") != NULL);
	double pct;
	CHECK(ts_advise_tolerance("2.5%", &pct, err, sizeof(err)) == 0 && pct == 2.5);
	CHECK(ts_advise_tolerance("3", &pct, err, sizeof(err)) == 0 && pct == 3);
	CHECK(ts_advise_tolerance("100%", &pct, err, sizeof(err)) == TS_E_PARSE);
	memset(&A, 0, sizeof(A));
	CHECK(ts_advise_money(&A, "$120", "90min", err, sizeof(err)) == 0);
	CHECK(A.budget == 120 && fabs(A.deadline_h - 1.5) < 1e-12);
	CHECK(ts_advise_money(&A, "-3", NULL, err, sizeof(err)) == TS_E_PARSE);
	CHECK(ts_advise_money(&A, NULL, "soon", err, sizeof(err)) == TS_E_PARSE);

	/* the tiers: known, once, never 'none' */
	const char *tiers[] = { "ssd-cloud", "nvme-local", "ssd-cloud" };
	memset(&A, 0, sizeof(A));
	CHECK(ts_advise_grid_tiers(&A, tiers, 2, err, sizeof(err)) == 0);
	CHECK(A.g.ntiers == 2 && !strcmp(A.g.tiers[1], "nvme-local"));
	ts_advise_free(&A);
	memset(&A, 0, sizeof(A));
	CHECK(ts_advise_grid_tiers(&A, tiers, 3, err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "listed twice") != NULL);
	ts_advise_free(&A);
	memset(&A, 0, sizeof(A));
	const char *bad[] = { "none" };
	CHECK(ts_advise_grid_tiers(&A, bad, 1, err, sizeof(err)) == TS_E_PARSE);
	ts_advise_free(&A);
	return tc_exit();
}
