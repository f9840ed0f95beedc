/*
 * advise.h — advise's search and ranking over a grid of disk tier x vCPUs
 * x memory: the grid (advise_run.c), the scenario run at each point and
 * its rows filed (advise_run.c, advise.c), the choice (advise.c) and the
 * result printed (advise_print.c). tiersim advise (cli/cmd_advise.c) reads
 * the command line into these.
 *
 * Every row the scenario produces belongs to a workload: the row's
 * configuration less the three grid keys. Per workload:
 *
 *   best         the highest samples/s on the grid (the cheaper point on a tie);
 *   spread       the run-to-run spread at the best point, (max - min) / max
 *                over the grid's run and the repeats with other seeds;
 *   tolerance    the asked tolerance, relative to the best, raised to the
 *                spread where the spread is larger;
 *   recommended  the cheapest point within the tolerance of the best.
 *
 * "Cheapest" is an order by resources, not by price: fewer vCPUs, then less
 * memory, then the lower disk tier, tiers ordered by their caps at the
 * scenario's capacity (read MB/s, then read IOPS).
 */
#ifndef TS_ADVISE_H
#define TS_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario/report.h"
#include "scenario/runner.h"
#include "tier/tier.h"

struct ts_price_set;
struct ts_instance;

#define TS_ADVISE_AXIS_MAX 16
#define TS_ADVISE_REPEATS_MAX 20
#define TS_ADVISE_NONE ((size_t)-1)

/* The grid's three axes, each in cost order (cheapest first). */
struct ts_advise_grid {
	const char *tiers[TS_RUNNER_MAX_TIERS];
	size_t ntiers;
	uint64_t vcpus[TS_ADVISE_AXIS_MAX];
	size_t nv;
	uint64_t mem[TS_ADVISE_AXIS_MAX]; /* bytes */
	char mem_s[TS_ADVISE_AXIS_MAX][32];
	size_t nm;
	/* --instances: the vCPU axis is these instances (vcpus[v] theirs), the
	 * memory axis one point, each run with instance.name=NAME. */
	const struct ts_instance *inst[TS_ADVISE_AXIS_MAX];
	size_t ni;
};

/* One grid point's result for a workload: a row of the advice report. */
struct ts_advise_point {
	size_t row;	    /* in the advice report */
	size_t v, m, t;	    /* grid indices; t by cost rank is tier_rank[t] */
};

struct ts_advise_workload {
	char *key;	    /* configuration less the grid keys */
	char *name;	    /* "inference", "googlenet train b64" */
	struct ts_advise_point *pts;
	size_t n, cap;
	unsigned tier_rank[TS_RUNNER_MAX_TIERS]; /* 0 = the cheapest tier */
	size_t best, rec;   /* indices into pts; TS_ADVISE_NONE when every point failed */
	double runs[TS_ADVISE_REPEATS_MAX + 1]; /* samples/s at the best point, per seed */
	unsigned nruns;
	double spread_pct, tol_pct;
	/* --band: the recommendation at the slow and the fast end of the
	 * ranged tier parameters; robust when both are rec. */
	bool banded, robust;
	size_t rec_slow, rec_fast;
	/* Priced rows: the cheapest per sample within the tolerance and the
	 * runner-up; the most samples/s per dollar anywhere; the cheapest that
	 * meets --deadline and --budget and its runner-up. TS_ADVISE_NONE: none. */
	size_t money, money2, per_dollar, fit, fit2;
};

struct ts_advise {
	struct ts_runner_opts base; /* script, key=value, workdir, clock */
	struct ts_advise_grid g;
	double tolerance_pct;
	unsigned repeats;
	struct ts_report rep;	    /* every grid point's row */
	struct ts_advise_workload *w;
	size_t nw;
	struct ts_tier_set *tiers;
	struct ts_price_set *prices; /* for --instances */
	double budget, deadline_h;   /* 0 = none */
	unsigned epochs;
	bool usage_error; /* the failure is in the request (key=value, the script's names) */
};

/* The grid's axes from their text, each one line in @err and TS_E_PARSE when
 * wrong: --vcpus "2,4,8" (sorted, distinct, 1..4096); --mem "4GiB,16GiB"
 * (sorted, distinct); --instances "A,B" (the price profiles' instances in
 * resource order, replacing both axes; other failures as their codes);
 * --tolerance "2%" or "2"; --budget "$120" and --deadline "2h" (NULL: none). */
TS_WUR int ts_advise_grid_vcpus(struct ts_advise_grid *g, const char *arg, char *err,
				size_t errlen);
TS_WUR int ts_advise_grid_mem(struct ts_advise_grid *g, const char *arg, char *err,
			      size_t errlen);
TS_WUR int ts_advise_grid_instances(struct ts_advise *A, const char *arg, char *err,
				    size_t errlen);
TS_WUR int ts_advise_tolerance(const char *arg, double *pct, char *err, size_t errlen);
TS_WUR int ts_advise_money(struct ts_advise *A, const char *budget, const char *deadline,
			   char *err, size_t errlen);
/* The grid's tiers (borrowed): each a known disk model, listed once
 * (TS_E_PARSE), after loading the tier profiles (another code). */
TS_WUR int ts_advise_grid_tiers(struct ts_advise *A, const char *const *tiers, size_t n,
				char *err, size_t errlen);
/* A->base's key=value and work directory checked before anything runs:
 * 0, or the runner's code (TS_E_UNKNOWN / TS_E_PARSE: the request). */
TS_WUR int ts_advise_check(const struct ts_advise *A, char *err, size_t errlen);
/* The grid run (a default grid of 2..16 vCPUs and 4..60 GiB per GPU for an
 * axis not given), the tiers ranked, the spread measured with A->repeats
 * reruns of each best point, the choice made: A->rep and A->w. Returns 0,
 * -EINTR when a signal stopped it, TS_E_LUA (the script's message printed),
 * or another code with one line in @err; A->usage_error says whether the
 * request was wrong. */
TS_WUR int ts_advise_run(struct ts_advise *A, char *err, size_t errlen);
void ts_advise_free(struct ts_advise *A);
/* The advice per workload, as text; a plot of each workload's tier x vCPU
 * points at its recommended memory (gnuplot, .svg or .png). */
void ts_advise_print(const struct ts_advise *A, FILE *f);
TS_WUR int ts_advise_plot(const struct ts_advise *A, const char *path, char *err, size_t errlen);

/* A row's parameter @key, or NULL. */
const char *ts_advise_param(const struct ts_row *w, const char *key);
/* The row's workload (index into A->w); a new one when @create, else
 * -ENOENT if none. */
TS_WUR int ts_advise_workload_of(struct ts_advise *A, const struct ts_row *w, bool create,
				 size_t *out);
/* @tier's index on the grid, or TS_ADVISE_NONE. */
size_t ts_advise_tier_index(const struct ts_advise_grid *g, const char *tier);
/* Files the rows of grid point (v, m) under their workloads (moved from
 * @got into A->rep), labelled "workload | 4 vCPU 16GiB ssd-cloud". */
TS_WUR int ts_advise_file_rows(struct ts_advise *A, struct ts_report *got, size_t v, size_t m);
/* Ranks the grid's tiers for @k by their caps at its capacity. */
TS_WUR int ts_advise_rank_tiers(struct ts_advise *A, struct ts_advise_workload *k, char *err,
				size_t errlen);
/* Cost order: fewer vCPUs, then less memory, then the lower tier. */
int ts_advise_cost_cmp(const struct ts_advise_workload *k, const struct ts_advise_point *a,
		       const struct ts_advise_point *b);
/* samples/s at @p as run; NaN for a failed row. */
double ts_advise_sps(const struct ts_advise *A, const struct ts_advise_point *p);
/* k->best, and its samples/s as the first of k->runs. */
void ts_advise_find_best(struct ts_advise *A, struct ts_advise_workload *k);
/* The spread from k->runs, the tolerance, the recommendation (and with
 * --band the recommendations at the band's ends), the priced choices (the
 * cheapest per sample within the tolerance and its runner-up, the most
 * samples/s per dollar, the cheapest meeting --deadline and --budget),
 * marked on the rows. */
TS_WUR int ts_advise_choose(struct ts_advise *A, struct ts_advise_workload *k);
/* Hours and dollars of A->epochs epochs at @p; false where unknown. */
bool ts_advise_epochs_at(const struct ts_advise *A, const struct ts_advise_point *p,
			 double *hours, double *dollars);
/* The workload's points in cost order, the cheapest first (malloc'd). */
size_t *ts_advise_cost_order(const struct ts_advise_workload *k);

#endif
