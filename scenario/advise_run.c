/*
 * advise_run.c — advise's grid (the axes from their text, the tiers), the
 * scenario's runs at every grid point and the reruns that measure the
 * spread (advise.h). tiersim advise (cli/cmd_advise.c) reads the command
 * line into these and prints the result (advise_print.c).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/interrupt.h"
#include "core/ts.h"
#include "core/units.h"
#include "cost/price.h"
#include "scenario/advise.h"
#include "scenario/runner.h"
#include "tier/tier.h"

/* ---- The grid's axes ------------------------------------------------------- */

/* "2,4,8" → sorted, distinct, > 0. */
int ts_advise_grid_vcpus(struct ts_advise_grid *g, const char *arg, char *err, size_t errlen)
{
	const char *p = arg;
	g->nv = 0;
	while (*p) {
		char *end;
		if (!isdigit((unsigned char)*p)) {
			snprintf(err, errlen, "--vcpus %s: expected counts such as 2,4,8", arg);
			return TS_E_PARSE;
		}
		unsigned long long v = strtoull(p, &end, 10);
		if (v == 0 || v > 4096 || (*end && *end != ',')) {
			snprintf(err, errlen, "--vcpus %s: expected counts from 1 to 4096 such as "
					      "2,4,8", arg);
			return TS_E_PARSE;
		}
		if (g->nv == TS_ADVISE_AXIS_MAX) {
			snprintf(err, errlen, "--vcpus %s: at most %d values", arg, TS_ADVISE_AXIS_MAX);
			return TS_E_PARSE;
		}
		g->vcpus[g->nv++] = v;
		p = *end ? end + 1 : end;
	}
	qsort(g->vcpus, g->nv, sizeof(g->vcpus[0]), ts_cmp_u64);
	for (size_t i = 1; i < g->nv; i++)
		if (g->vcpus[i] == g->vcpus[i - 1]) {
			snprintf(err, errlen, "--vcpus %s: %llu is listed twice", arg,
				 (unsigned long long)g->vcpus[i]);
			return TS_E_PARSE;
		}
	if (!g->nv) {
		snprintf(err, errlen, "--vcpus: expected counts such as 2,4,8");
		return TS_E_PARSE;
	}
	return 0;
}

/* Adds a memory size, keeping the axis sorted; the text is what the
 * mount.mem override and the table show. */
static int add_mem(struct ts_advise_grid *g, const char *text, uint64_t bytes)
{
	if (g->nm == TS_ADVISE_AXIS_MAX)
		return -E2BIG;
	size_t i = g->nm;
	for (size_t k = 0; k < g->nm; k++)
		if (g->mem[k] == bytes)
			return -EEXIST;
	while (i > 0 && g->mem[i - 1] > bytes) {
		g->mem[i] = g->mem[i - 1];
		memcpy(g->mem_s[i], g->mem_s[i - 1], sizeof(g->mem_s[i]));
		i--;
	}
	g->mem[i] = bytes;
	snprintf(g->mem_s[i], sizeof(g->mem_s[i]), "%s", text);
	g->nm++;
	return 0;
}

int ts_advise_grid_mem(struct ts_advise_grid *g, const char *arg, char *err, size_t errlen)
{
	char *copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	int rc = 0;
	g->nm = 0;
	for (char *save, *t = strtok_r(copy, ",", &save); t && !rc;
	     t = strtok_r(NULL, ",", &save)) {
		uint64_t b;
		if (strlen(t) >= sizeof(g->mem_s[0]) || ts_parse_size(t, &b) || b == 0) {
			snprintf(err, errlen, "--mem %s: '%s' is not a size such as 16GiB", arg, t);
			rc = TS_E_PARSE;
		} else if ((rc = add_mem(g, t, b))) {
			snprintf(err, errlen, "--mem %s: %s", arg, rc == -EEXIST ?
				 "a size is listed twice" : "at most 16 values");
			rc = TS_E_PARSE;
		}
	}
	if (!rc && !g->nm) {
		snprintf(err, errlen, "--mem: expected sizes such as 4GiB,16GiB");
		rc = TS_E_PARSE;
	}
	free(copy);
	return rc;
}

static int cmp_inst(const void *a, const void *b)
{
	const struct ts_instance *x = *(const struct ts_instance *const *)a;
	const struct ts_instance *y = *(const struct ts_instance *const *)b;
	if (x->vcpus != y->vcpus)
		return x->vcpus < y->vcpus ? -1 : 1;
	if (x->mem_gib != y->mem_gib)
		return x->mem_gib < y->mem_gib ? -1 : 1;
	return (x->hourly.v > y->hourly.v) - (x->hourly.v < y->hourly.v);
}

/* "A,B" → instances in resource order (vCPUs, then memory, then price). */
int ts_advise_grid_instances(struct ts_advise *A, const char *arg, char *err, size_t errlen)
{
	int rc = ts_price_load_checked(NULL, NULL, &A->prices, err, errlen);
	if (rc)
		return rc;
	char *copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	struct ts_advise_grid *g = &A->g;
	for (char *save, *t = strtok_r(copy, ",", &save); t && !rc;
	     t = strtok_r(NULL, ",", &save)) {
		const struct ts_instance *in;
		char sub[900];
		if (ts_price_instance(A->prices, t, &in, sub, sizeof(sub))) {
			snprintf(err, errlen, "--instances: %s", sub);
			rc = TS_E_PARSE;
		} else if (g->ni == TS_ADVISE_AXIS_MAX) {
			snprintf(err, errlen, "--instances: at most %d", TS_ADVISE_AXIS_MAX);
			rc = TS_E_PARSE;
		}
		for (size_t i = 0; !rc && i < g->ni; i++)
			if (g->inst[i] == in) {
				snprintf(err, errlen, "--instances: '%s' is listed twice", t);
				rc = TS_E_PARSE;
			}
		if (!rc)
			g->inst[g->ni++] = in;
	}
	free(copy);
	if (!rc && !g->ni) {
		snprintf(err, errlen, "--instances: expected names such as gn5-c8g1.2xlarge");
		rc = TS_E_PARSE;
	}
	if (rc)
		return rc;
	qsort(g->inst, g->ni, sizeof(g->inst[0]), cmp_inst);
	g->nv = g->ni;
	for (size_t i = 0; i < g->ni; i++)
		g->vcpus[i] = (uint64_t)g->inst[i]->vcpus;
	g->nm = 1; /* each instance brings its memory */
	g->mem[0] = 0;
	snprintf(g->mem_s[0], sizeof(g->mem_s[0]), "its own");
	return 0;
}

/* --budget 120 or $120; --deadline 2h. */
int ts_advise_money(struct ts_advise *A, const char *budget, const char *deadline, char *err,
		    size_t errlen)
{
	if (budget) {
		const char *b = budget + (budget[0] == '$');
		char *end;
		A->budget = strtod(b, &end);
		if (end == b || *end || !(A->budget > 0)) {
			snprintf(err, errlen, "--budget %s: expected dollars above 0, e.g. 120",
				 budget);
			return TS_E_PARSE;
		}
	}
	if (deadline) {
		uint64_t ns;
		if (ts_parse_duration(deadline, 1000000000ull, &ns) || !ns) {
			snprintf(err, errlen, "--deadline %s: expected a time such as 2h or 90min",
				 deadline);
			return TS_E_PARSE;
		}
		A->deadline_h = (double)ns / 3600e9;
	}
	return 0;
}

/* "2%", "2" (percent) or "0.5%". */
int ts_advise_tolerance(const char *arg, double *pct, char *err, size_t errlen)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || (*end && strcmp(end, "%")) || !(v >= 0 && v < 100)) {
		snprintf(err, errlen, "--tolerance %s: expected a percentage from 0 to below 100, "
				      "e.g. 2%%", arg);
		return TS_E_PARSE;
	}
	*pct = v;
	return 0;
}
/* ---- Running the script at a grid point -------------------------------------- */

/* Runs the script once with @extra overrides (the grid point, a seed) on
 * @tiers; the rows it produced move to @out. */
static int run_script(struct ts_advise *A, const char *const *tiers, size_t ntiers,
		      const char *const *extra, size_t nextra, bool virtual_time,
		      struct ts_report *out, char *err, size_t errlen)
{
	struct ts_runner_opts o = A->base;
	o.virtual_time = virtual_time;
	o.quiet = A->base.quiet || virtual_time;
	o.ntiers = ntiers;
	for (size_t i = 0; i < ntiers; i++)
		o.tiers[i] = tiers[i];
	for (size_t i = 0; i < nextra; i++) {
		if (o.nkv == TS_RUNNER_MAX_OVERRIDES) {
			snprintf(err, errlen, "too many key=value arguments");
			A->usage_error = true;
			return -E2BIG;
		}
		o.kv[o.nkv++] = extra[i];
	}
	struct ts_runner R;
	bool usage;
	int rc = ts_runner_script(&R, &o, &usage, err, errlen);
	A->usage_error |= usage;
	if (!rc && !out->title && R.report.title && ts_row_set_str(&out->title, R.report.title))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < R.report.n; i++) {
		struct ts_row *w = ts_report_add(out);
		if (!w) {
			rc = -ENOMEM;
			break;
		}
		*w = R.report.rows[i];
		memset(&R.report.rows[i], 0, sizeof(R.report.rows[i]));
	}
	ts_runner_free(&R);
	return rc;
}

/* The overrides of grid point (@v, @m): the vCPUs and memory, or the
 * instance; returns how many. */
static size_t point_kv(const struct ts_advise *A, size_t v, size_t m, char kv[2][96])
{
	if (A->g.ni) {
		snprintf(kv[0], sizeof(kv[0]), "instance.name=%s", A->g.inst[v]->name);
		return 1;
	}
	snprintf(kv[0], sizeof(kv[0]), "pipeline.vcpus=%llu", (unsigned long long)A->g.vcpus[v]);
	snprintf(kv[1], sizeof(kv[1]), "mount.mem=%s", A->g.mem_s[m]);
	return 2;
}

/* Reruns each workload's best point with seeds 2..repeats+1 (the grid ran
 * with the scenario's seeds, 1 by default). Workloads sharing a best point
 * share its runs. */
static int measure_spread(struct ts_advise *A, char *err, size_t errlen)
{
	for (size_t i = 0; i < A->nw; i++) {
		struct ts_advise_workload *k = &A->w[i];
		if (k->best == TS_ADVISE_NONE || k->nruns > 1)
			continue;
		const struct ts_advise_point *bp = &k->pts[k->best];
		char pkv[2][96];
		size_t np = point_kv(A, bp->v, bp->m, pkv);
		for (unsigned r = 0; r < A->repeats; r++) {
			char s1[48], s2[48];
			snprintf(s1, sizeof(s1), "mount.seed=%u", r + 2);
			snprintf(s2, sizeof(s2), "pipeline.seed=%u", r + 2);
			const char *extra[4];
			size_t ne = 0;
			for (size_t q = 0; q < np; q++)
				extra[ne++] = pkv[q];
			extra[ne++] = s1;
			extra[ne++] = s2;
			struct ts_report got;
			ts_report_init(&got);
			got.virtual_time = A->base.virtual_time;
			int rc = run_script(A, &A->g.tiers[bp->t], 1, extra, ne, A->base.virtual_time,
					    &got, err, errlen);
			/* Every workload whose best is this point takes its row. */
			for (size_t j = 0; !rc && j < got.n; j++) {
				size_t wi;
				/* A row no grid point produced has no workload. */
				if (ts_advise_workload_of(A, &got.rows[j], false, &wi))
					continue;
				struct ts_advise_workload *o = &A->w[wi];
				if (o->best == TS_ADVISE_NONE || o->nruns != r + 1 || o->nruns > TS_ADVISE_REPEATS_MAX)
					continue;
				const struct ts_advise_point *op = &o->pts[o->best];
				double s = got.rows[j].error ? NAN : got.rows[j].samples_per_s;
				if (op->v == bp->v && op->m == bp->m && op->t == bp->t && !isnan(s))
					o->runs[o->nruns++] = s;
			}
			ts_report_free(&got);
			if (rc)
				return rc;
		}
	}
	return 0;
}
/* ---- The grid run ---------------------------------------------------------------- */

void ts_advise_free(struct ts_advise *A)
{
	for (size_t i = 0; i < A->nw; i++) {
		free(A->w[i].key);
		free(A->w[i].name);
		free(A->w[i].pts);
	}
	free(A->w);
	ts_report_free(&A->rep);
	ts_tier_set_free(A->tiers);
	ts_price_set_free(A->prices);
}

/* The default grid scales with the scenario's GPUs: 2, 4, 8, 16 vCPUs and
 * 4, 16, 30, 60 GiB per GPU. Alibaba's gn5 family gives one P100 4, 8 or
 * 28 vCPUs and 30 or 60 GiB (gn5-c4g1, gn5-c8g1; AlibabaCloudDocs/ecs,
 * "Instance families", gn5), so the grid brackets the real shapes and adds
 * smaller ones to show where a workload stops caring. The GPU count comes
 * from a virtual-time run of the script as written. */
static int default_grid(struct ts_advise *A, bool need_v, bool need_m, char *err, size_t errlen)
{
	uint64_t gpus = 1;
	struct ts_report got;
	ts_report_init(&got);
	int rc = run_script(A, A->g.tiers, 1, NULL, 0, true, &got, err, errlen);
	for (size_t i = 0; !rc && i < got.n; i++) {
		const char *g = ts_advise_param(&got.rows[i], "engine.gpus");
		uint64_t n = g ? strtoull(g, NULL, 10) : 1;
		gpus = n > gpus ? n : gpus;
	}
	ts_report_free(&got);
	if (rc)
		return rc;
	static const unsigned per_gpu_v[] = { 2, 4, 8, 16 };
	static const unsigned per_gpu_gib[] = { 4, 16, 30, 60 };
	if (need_v) {
		A->g.nv = 0;
		for (size_t i = 0; i < TS_ARRAY_SIZE(per_gpu_v); i++)
			A->g.vcpus[A->g.nv++] = per_gpu_v[i] * gpus;
	}
	if (need_m) {
		A->g.nm = 0;
		for (size_t i = 0; i < TS_ARRAY_SIZE(per_gpu_gib); i++) {
			char t[32];
			snprintf(t, sizeof(t), "%lluGiB", (unsigned long long)(per_gpu_gib[i] * gpus));
			if ((rc = add_mem(&A->g, t, per_gpu_gib[i] * gpus * TS_GiB)))
				return rc;
		}
	}
	return 0;
}

int ts_advise_grid_tiers(struct ts_advise *A, const char *const *tiers, size_t n, char *err,
			 size_t errlen)
{
	int rc = ts_tier_set_load_default(&A->tiers, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		const char *t = tiers[i];
		const struct ts_tier_profile *p;
		if (!strcmp(t, "none"))
			snprintf(err, errlen, "--tiers: 'none' reads without a disk model; "
			"advise compares disk tiers (tiersim tiers lists them)");
		else if (ts_advise_tier_index(&A->g, t) != TS_ADVISE_NONE)
			snprintf(err, errlen, "--tiers: '%s' is listed twice", t);
		else if (A->g.ntiers == TS_RUNNER_MAX_TIERS)
			snprintf(err, errlen, "--tiers: at most %d tiers", TS_RUNNER_MAX_TIERS);
		else if (!ts_tier_set_lookup(A->tiers, t, &p, err, errlen))
			A->g.tiers[A->g.ntiers++] = t;
		rc = A->g.ntiers == i + 1 ? 0 : TS_E_PARSE;
	}
	return rc;
}

int ts_advise_check(const struct ts_advise *A, char *err, size_t errlen)
{
	struct ts_runner R;
	struct ts_runner_opts o = A->base;
	o.ntiers = A->g.ntiers;
	memcpy(o.tiers, A->g.tiers, sizeof(o.tiers));
	int rc = ts_runner_init(&R, &o, err, errlen);
	ts_runner_free(&R);
	return rc;
}

/* The grid: one run of the script per vCPU x memory point, on every tier. */
static int run_grid(struct ts_advise *A, char *err, size_t errlen)
{
	size_t npoints = A->g.nv * A->g.nm, done = 0;
	int rc = 0;
	for (size_t v = 0; v < A->g.nv && !rc; v++)
		for (size_t m = 0; m < A->g.nm && !rc; m++) {
			char pkv[2][96];
			size_t np = point_kv(A, v, m, pkv);
			const char *extra[] = { pkv[0], pkv[1] };
			if (!A->base.quiet)
				fprintf(stderr, "advise: [%zu/%zu] %s%s%s on %zu tiers\n", ++done, npoints,
					pkv[0], np > 1 ? ", " : "", np > 1 ? pkv[1] : "", A->g.ntiers);
			struct ts_report got;
			ts_report_init(&got);
			got.virtual_time = A->base.virtual_time;
			rc = run_script(A, A->g.tiers, A->g.ntiers, extra, np, A->base.virtual_time,
					&got, err, errlen);
			if (!rc && !A->rep.title && got.title)
				rc = ts_row_set_str(&A->rep.title, got.title);
			if (!rc)
				rc = ts_advise_file_rows(A, &got, v, m);
			ts_report_free(&got);
		}
	if (rc)
		return rc;
	/* A script that runs other configurations at other grid points leaves
	 * holes: the advice would compare unlike things. */
	for (size_t i = 0; i < A->nw; i++)
		if (A->w[i].n != npoints * A->g.ntiers) {
			snprintf(err, errlen, "workload '%s' ran at %zu of %zu grid points; the script "
					      "must run the same configurations at every vCPU count, "
					      "memory size and tier", A->w[i].name, A->w[i].n,
				 npoints * A->g.ntiers);
			return -EINVAL;
		}
	return 0;
}

int ts_advise_run(struct ts_advise *A, char *err, size_t errlen)
{
	int rc;
	ts_interrupt_install();
	ts_report_init(&A->rep);
	A->rep.virtual_time = A->base.virtual_time;
	if ((rc = ts_row_set_str(&A->rep.script, A->base.script)))
		return rc;
	if ((!A->g.nv || !A->g.nm) && (rc = default_grid(A, !A->g.nv, !A->g.nm, err, errlen)))
		return rc;
	if ((rc = run_grid(A, err, errlen)))
		return rc;
	for (size_t i = 0; i < A->nw; i++) {
		if ((rc = ts_advise_rank_tiers(A, &A->w[i], err, errlen)))
			return rc;
		ts_advise_find_best(A, &A->w[i]);
	}
	if (A->repeats && (rc = measure_spread(A, err, errlen)))
		return rc;
	for (size_t i = 0; i < A->nw; i++)
		if ((rc = ts_advise_choose(A, &A->w[i])))
			return rc;
	return 0;
}
