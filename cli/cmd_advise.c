/*
 * cmd_advise.c — `tiersim advise SCRIPT.lua [--tiers ...] [--vcpus ...]
 * [--mem ...] [--tolerance 2%]`: the smallest instance that loses nothing
 * measurable for a scenario.
 *
 * The scenario runs once per point of the grid disk tier x vCPUs x memory
 * (vCPUs = pipeline.vcpus, the decode workers; memory = mount.mem, the
 * page-cache model's size), each point a command-line override of the
 * script, through the same runner as `tiersim run` (virtual time unless
 * --real). Every row the script produces belongs to a workload: the row's
 * configuration less the three grid keys. Per workload:
 *
 *   best         the highest samples/s on the grid;
 *   spread       the run-to-run spread at the best point, (max - min) / max
 *                over the grid's run and --repeats more runs with other
 *                seeds (mount.seed: the tier's latency draws; pipeline.seed:
 *                the shuffle) — the smallest difference that is measurable;
 *   tolerance    --tolerance, relative to the best, raised to the spread
 *                where the spread is larger;
 *   recommended  the cheapest point within the tolerance of the best.
 *
 * "Cheapest" there is an order by resources: fewer vCPUs, then less memory,
 * then the lower disk tier, tiers ordered by their caps at the scenario's
 * capacity (read MB/s, then read IOPS). With an instance (--instance, or
 * the grid of --instances, which replaces the vCPU and memory axes by whole
 * instances in that order) every row is priced (cost/), and advise says
 * beside it which point within the tolerance costs least per epoch (per
 * sample: the same order) and what the runner-up costs, and which point
 * gives the most samples/s per dollar anywhere. --deadline and --budget
 * (with --epochs) ask for the cheapest point that finishes that many
 * epochs in that time within that money, whatever its samples/s.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/interrupt.h"
#include "cost/price.h"
#include "tier/tier.h"
#include "scenario/advise.h"
#include "scenario/runner.h"
#include "cli/script_args.h"
#include "core/units.h"

/* The command line. --vcpus, --mem and --tolerance are read by this file's
 * parsers (sorted, distinct axes; a percentage). */
struct advise_args {
	struct ts_opt_list tiers;
	char *vcpus, *mem, *tolerance, *instances, *budget, *deadline;
	uint64_t repeats, epochs;
	struct ts_script_out out;
	bool virtual_time, real, band;
};

#define AA(f) offsetof(struct advise_args, f)
static const struct ts_opt advise_opts[] = {
	{ "tiers", TS_OPT_LIST, AA(tiers), "nvme-local,ssd-cloud,ultra-cloud", 0,
	  TS_RUNNER_MAX_TIERS, "", "disk tiers (tiersim tiers lists them)" },
	{ "vcpus", TS_OPT_STR, AA(vcpus), NULL, 0, 0, "",
	  "vCPU counts (default 2,4,8,16 per GPU of the scenario)", "N,N,..." },
	{ "mem", TS_OPT_STR, AA(mem), NULL, 0, 0, "",
	  "memory sizes (default 4,16,30,60 GiB per GPU; gn5 gives a P100 30 or 60 GiB)",
	  "S,S,..." },
	{ "tolerance", TS_OPT_STR, AA(tolerance), "2%", 0, 0, "",
	  "how much below the best still counts as no loss; raised to the run-to-run spread "
	  "where that is larger", "P%" },
	{ "instances", TS_OPT_STR, AA(instances), NULL, 0, 0, "",
	  "instances of the price profiles (tiersim prices) as the grid's axis instead of "
	  "--vcpus and --mem: each brings its vCPUs, memory, GPUs and host, and prices its rows",
	  "A,B,..." },
	{ "budget", TS_OPT_STR, AA(budget), NULL, 0, 0, "",
	  "priced rows: the most --epochs may cost, in US dollars", "$" },
	{ "deadline", TS_OPT_STR, AA(deadline), NULL, 0, 0, "",
	  "priced rows: the time --epochs must finish in (2h, 90m, 3600s)", "TIME" },
	{ "epochs", TS_OPT_U64, AA(epochs), "1", 1, 100000, "epochs",
	  "epochs --budget and --deadline are for" },
	{ "repeats", TS_OPT_U64, AA(repeats), "3", 0, TS_ADVISE_REPEATS_MAX, "runs",
	  "reruns of each workload's best point with other seeds to measure the spread "
	  "(0 = do not measure)" },
	TS_SCRIPT_OUT_OPTS(struct advise_args, out,
			   "samples/s per tier x vCPU at each workload's recommended memory, with "
			   "gnuplot (.svg or .png)"),
	{ "virtual", TS_OPT_BOOL, AA(virtual_time), "false", 0, 0, "",
	  "predict in virtual time (the default)" },
	{ "real", TS_OPT_BOOL, AA(real), "false", 0, 0, "",
	  "run in real time through tierfs mounts (small grids)" },
	{ "band", TS_OPT_BOOL, AA(band), "false", 0, 0, "",
	  "also at both ends of every ranged tier parameter (tiersim tiers --evidence): the "
	  "recommendation is robust only when it is the same at both" },
	{ NULL },
};

static const struct ts_cmdline advise_cmdline = {
	.name = "advise",
	.synopsis = "SCRIPT.lua [key=value ...] [--tiers A,B,...] [--vcpus 2,4,...]\n"
		    "                      [--mem 4GiB,16GiB,...] [--tolerance 2%] [options]",
	.about = "Runs every configuration of SCRIPT on the grid disk tier x vCPUs x memory and\n"
		 "recommends, per workload, the cheapest grid point whose samples/s is within the\n"
		 "tolerance of the best. vCPUs are the decode workers (pipeline.vcpus), memory\n"
		 "the page-cache model (mount.mem). Example:\n"
		 "  tiersim advise scripts/main.lua --vcpus 2,4,8 --mem 4GiB,16GiB,60GiB\n",
	.opts = advise_opts,
	.tail = "Cheapest = fewer vCPUs, then less memory, then the tier with the lower caps\n"
		"(read MB/s, then IOPS): an order by resources. With --instance or --instances\n"
		"the rows are priced and advise also names the point within the tolerance that\n"
		"costs least per epoch, its runner-up, and the most samples/s per dollar.\n"
		"exit status: 0 done, 1 the scenario failed, 2 bad command line, 130 interrupted.\n",
	.max_pos = -1,
};

/* ---- The command line ------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* "2,4,8" → sorted, distinct, > 0. */
static int parse_vcpus(const char *arg, struct ts_advise_grid *g, char *err, size_t errlen)
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
	qsort(g->vcpus, g->nv, sizeof(g->vcpus[0]), cmp_u64);
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

static int parse_mem(const char *arg, struct ts_advise_grid *g, char *err, size_t errlen)
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
static int parse_instances(struct ts_advise *A, const char *arg, char *err, size_t errlen)
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
static int parse_money(struct ts_advise *A, const struct advise_args *args, char *err,
		       size_t errlen)
{
	A->epochs = (unsigned)args->epochs;
	if (args->budget) {
		const char *b = args->budget + (args->budget[0] == '$');
		char *end;
		A->budget = strtod(b, &end);
		if (end == b || *end || !(A->budget > 0)) {
			snprintf(err, errlen, "--budget %s: expected dollars above 0, e.g. 120",
				 args->budget);
			return TS_E_PARSE;
		}
	}
	if (args->deadline) {
		uint64_t ns;
		if (ts_parse_duration(args->deadline, 1000000000ull, &ns) || !ns) {
			snprintf(err, errlen, "--deadline %s: expected a time such as 2h or 90min",
				 args->deadline);
			return TS_E_PARSE;
		}
		A->deadline_h = (double)ns / 3600e9;
	}
	return 0;
}

/* "2%", "2" (percent) or "0.5%". */
static int parse_tolerance(const char *arg, double *pct, char *err, size_t errlen)
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
		      struct ts_report *out, int *status)
{
	struct ts_runner_opts o = A->base;
	o.virtual_time = virtual_time;
	o.quiet = A->base.quiet || virtual_time;
	o.ntiers = ntiers;
	for (size_t i = 0; i < ntiers; i++)
		o.tiers[i] = tiers[i];
	for (size_t i = 0; i < nextra; i++) {
		if (o.nkv == TS_RUNNER_MAX_OVERRIDES) {
			fprintf(stderr, "tiersim advise: too many key=value arguments\n");
			*status = TS_EXIT_USAGE;
			return -E2BIG;
		}
		o.kv[o.nkv++] = extra[i];
	}
	struct ts_runner R;
	int rc = ts_script_run(&R, &o, "advise", status);
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
	if (rc == -ENOMEM && *status == TS_EXIT_OK) {
		fprintf(stderr, "tiersim advise: out of memory\n");
		*status = TS_EXIT_FAIL;
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
static int measure_spread(struct ts_advise *A, int *status)
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
					    &got, status);
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

/* ---- Output ---------------------------------------------------------------------- */

static void fmt(char *b, size_t n, double v, int prec)
{
	if (isnan(v))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.*f", prec, v);
}

static void point_words(const struct ts_advise *A, const struct ts_advise_point *p, char *b, size_t n)
{
	if (A->g.ni)
		snprintf(b, n, "%s (%d vCPU, %.0f GiB), %s", A->g.inst[p->v]->name,
			 A->g.inst[p->v]->vcpus, A->g.inst[p->v]->mem_gib, A->g.tiers[p->t]);
	else
		snprintf(b, n, "%llu vCPU, %s, %s", (unsigned long long)A->g.vcpus[p->v],
			 A->g.mem_s[p->m], A->g.tiers[p->t]);
}

/* "$1.23/epoch [0.98..1.60], $2.30/h" (or per 1,000 steps). */
static void money_words(const struct ts_advise *A, const struct ts_advise_point *p, char *b, size_t n)
{
	const struct ts_row *w = &A->rep.rows[p->row];
	bool ep = !isnan(w->cost_epoch.v);
	const struct ts_cost_band *c = ep ? &w->cost_epoch : &w->cost_ksteps;
	snprintf(b, n, "$%.3g/%s [%.3g..%.3g], $%.3g/h, %.1f samples/s", c->v,
		 ep ? "epoch" : "1k steps", c->low, c->high, w->cost_hour.v, w->samples_per_s);
}

/* The money lines of a priced workload. */
static void print_money(const struct ts_advise *A, const struct ts_advise_workload *k, FILE *f)
{
	if (k->money == TS_ADVISE_NONE)
		return;
	char pw[256], mw[160];
	point_words(A, &k->pts[k->money], pw, sizeof(pw));
	money_words(A, &k->pts[k->money], mw, sizeof(mw));
	fprintf(f, "in money: %s costs least within the tolerance: %s\n", pw, mw);
	if (k->money2 != TS_ADVISE_NONE) {
		point_words(A, &k->pts[k->money2], pw, sizeof(pw));
		money_words(A, &k->pts[k->money2], mw, sizeof(mw));
		fprintf(f, "  runner-up: %s: %s\n", pw, mw);
	}
	if (k->money != k->rec) {
		char rw[256], rm[160];
		point_words(A, &k->pts[k->rec], rw, sizeof(rw));
		money_words(A, &k->pts[k->rec], rm, sizeof(rm));
		fprintf(f, "  the resource order's choice, %s, costs %s: fewer resources, but "
			   "more dollars per sample\n", rw, rm);
	}
	if (k->per_dollar != TS_ADVISE_NONE && k->per_dollar != k->money) {
		point_words(A, &k->pts[k->per_dollar], pw, sizeof(pw));
		money_words(A, &k->pts[k->per_dollar], mw, sizeof(mw));
		fprintf(f, "  most samples/s per dollar anywhere (outside the tolerance): %s: %s\n",
			pw, mw);
	}
	if (!(A->deadline_h > 0 || A->budget > 0))
		return;
	char want[128] = "", tmp[64];
	if (A->deadline_h > 0) {
		snprintf(tmp, sizeof(tmp), " in %.3g h", A->deadline_h);
		strcat(want, tmp);
	}
	if (A->budget > 0) {
		snprintf(tmp, sizeof(tmp), " within $%.6g", A->budget);
		strcat(want, tmp);
	}
	if (k->fit == TS_ADVISE_NONE) {
		fprintf(f, "  %u epoch(s)%s: no grid point does it (or no epoch size is known)\n",
			A->epochs, want);
		return;
	}
	const size_t fits[] = { k->fit, k->fit2 };
	for (size_t i = 0; i < TS_ARRAY_SIZE(fits) && fits[i] != TS_ADVISE_NONE; i++) {
		double h, d;
		point_words(A, &k->pts[fits[i]], pw, sizeof(pw));
		if (ts_advise_epochs_at(A, &k->pts[fits[i]], &h, &d))
			fprintf(f, "  %s %u epoch(s)%s: %s: $%.4g in %.3g h\n",
				i ? "runner-up for" : "cheapest for", A->epochs, want, pw, d, h);
	}
}

/* Robust, or what decides it: the ranged parameters of the tiers whose
 * points change places between the band's ends. */
static void print_robust(const struct ts_advise *A, const struct ts_advise_workload *k, FILE *f)
{
	if (k->robust) {
		fprintf(f, "robust: the same point is recommended at both ends of every ranged "
			   "tier parameter\n");
		return;
	}
	char slow[256] = "no point", fast[256] = "no point";
	if (k->rec_slow != TS_ADVISE_NONE)
		point_words(A, &k->pts[k->rec_slow], slow, sizeof(slow));
	if (k->rec_fast != TS_ADVISE_NONE)
		point_words(A, &k->pts[k->rec_fast], fast, sizeof(fast));
	fprintf(f, "NOT robust: at the slow end of the ranges %s is recommended, at the fast end "
		   "%s;\n  decided by:", slow, fast);
	const size_t pts[] = { k->rec, k->rec_slow, k->rec_fast };
	for (size_t i = 0; i < TS_ARRAY_SIZE(pts); i++) {
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen |= pts[j] != TS_ADVISE_NONE && pts[i] != TS_ADVISE_NONE &&
				k->pts[pts[j]].t == k->pts[pts[i]].t;
		if (pts[i] == TS_ADVISE_NONE || seen)
			continue;
		const struct ts_row *w = &A->rep.rows[k->pts[pts[i]].row];
		fprintf(f, " %s (%s)", A->g.tiers[k->pts[pts[i]].t],
			w->band_params && *w->band_params ? w->band_params : "no ranged parameter");
	}
	fprintf(f, "\n");
}

static void print_workload(const struct ts_advise *A, const struct ts_advise_workload *k, FILE *f)
{
	fprintf(f, "\n%s\n", k->name);
	int tw = 4;
	for (size_t t = 0; t < A->g.ntiers; t++)
		tw = (int)strlen(A->g.tiers[t]) > tw ? (int)strlen(A->g.tiers[t]) : tw;
	bool priced = k->money != TS_ADVISE_NONE;
	bool ep = priced && !isnan(A->rep.rows[k->pts[k->money].row].cost_epoch.v);
	int iw = 0;
	for (size_t i = 0; i < A->g.ni; i++)
		iw = (int)strlen(A->g.inst[i]->name) > iw ? (int)strlen(A->g.inst[i]->name) : iw;
	if (iw)
		fprintf(f, "  %-*s", iw, "instance");
	fprintf(f, "  %5s  %9s  %-*s  %11s  %6s  %10s  %6s", "vCPU", "memory", tw, "tier",
		"samples/s", "AU %", "IO stall %", "rel");
	if (priced)
		fprintf(f, "  %8s  %11s", "$/h", ep ? "$/epoch" : "$/1k steps");
	fputc('\n', f);
	/* In cost order, the cheapest first. */
	size_t *ord = ts_advise_cost_order(k);
	if (!ord)
		return;
	double best = k->best == TS_ADVISE_NONE ? NAN : ts_advise_sps(A, &k->pts[k->best]);
	for (size_t o = 0; o < k->n; o++) {
		size_t i = ord[o];
		const struct ts_advise_point *p = &k->pts[i];
		const struct ts_row *w = &A->rep.rows[p->row];
		if (iw)
			fprintf(f, "  %-*s  %5d  %6.0f GiB  %-*s", iw, A->g.inst[p->v]->name,
				A->g.inst[p->v]->vcpus, A->g.inst[p->v]->mem_gib, tw, A->g.tiers[p->t]);
		else
			fprintf(f, "  %5llu  %9s  %-*s", (unsigned long long)A->g.vcpus[p->v],
				A->g.mem_s[p->m], tw, A->g.tiers[p->t]);
		if (w->error) {
			fprintf(f, "  %s\n", w->error);
			continue;
		}
		char s[32], au[32], st[32], rel[32];
		fmt(s, sizeof(s), w->samples_per_s, 1);
		fmt(au, sizeof(au), w->au_pct, 1);
		fmt(st, sizeof(st), w->stall_pct, 1);
		fmt(rel, sizeof(rel), best > 0 ? w->samples_per_s / best : NAN, 3);
		fprintf(f, "  %11s  %6s  %10s  %6s", s, au, st, rel);
		if (priced) {
			char h[32], c[32];
			double cv = ep ? w->cost_epoch.v : w->cost_ksteps.v;
			fmt(h, sizeof(h), w->cost_hour.v, 2);
			snprintf(c, sizeof(c), isnan(cv) ? "-" : "%.4g", cv);
			fprintf(f, "  %8s  %11s", h, c);
		}
		fprintf(f, "%s%s%s\n", i == k->rec ? "  <- recommended" : "",
			i == k->money ? "  <- least $" : "", i == k->best ? "  (best)" : "");
	}
	free(ord);
	if (k->best == TS_ADVISE_NONE) {
		fprintf(f, "%s: no grid point produced a result\n", k->name);
		return;
	}
	char sp[64];
	if (isnan(k->spread_pct))
		snprintf(sp, sizeof(sp), "not measured (--repeats 0)");
	else
		snprintf(sp, sizeof(sp), "%.2f%% over %u seeds", k->spread_pct, k->nruns);
	fprintf(f, "tolerance %.2f%% of the best (asked %.2f%%; run-to-run spread at the best "
		   "point %s)\n", k->tol_pct, A->tolerance_pct, sp);
	char rw[256], bw[256];
	point_words(A, &k->pts[k->rec], rw, sizeof(rw));
	point_words(A, &k->pts[k->best], bw, sizeof(bw));
	double rs = ts_advise_sps(A, &k->pts[k->rec]);
	if (k->rec == k->best)
		fprintf(f, "%s: %s is the best (%.1f samples/s);", k->name, rw, best);
	else
		fprintf(f, "%s: %s keeps %.1f%% of the best (%s: %.1f samples/s);", k->name, rw,
			100.0 * rs / best, bw, best);
	fprintf(f, " every cheaper grid point loses more than %.2f%%.\n", k->tol_pct);
	if (k->banded)
		print_robust(A, k, f);
	print_money(A, k, f);
	const struct ts_row *w = &A->rep.rows[k->pts[k->rec].row];
	if (w->parts)
		fprintf(f, "parts (recommended point): %s\n", w->parts);
}

static void print_advice(const struct ts_advise *A, FILE *f)
{
	fprintf(f, "advise: %s%s\n", A->rep.title ? A->rep.title : A->base.script,
		A->base.virtual_time ? " (virtual time)" : " (real time)");
	if (A->g.ni)
		fprintf(f, "grid: %zu tiers x %zu instances (tiersim prices), each with its vCPUs "
			   "(decode workers), memory (page-cache model), GPUs and host\n",
			A->g.ntiers, A->g.ni);
	else
		fprintf(f, "grid: %zu tiers x %zu vCPU counts x %zu memory sizes; vCPUs = decode "
			   "workers (pipeline.vcpus), memory = page-cache model (mount.mem)\n",
			A->g.ntiers, A->g.nv, A->g.nm);
	for (size_t i = 0; i < A->nw; i++)
		print_workload(A, &A->w[i], f);
	fprintf(f, "\nrows in cost order: fewer vCPUs, then less memory, then the tier with lower "
		   "caps (read MB/s, IOPS) —\nan order by resources, not by price. rel = samples/s "
		   "/ the workload's best; AU = GPU busy / wall;\nIO stall = GPU waiting for input; "
		   "recommended = the cheapest point within the tolerance of the best.\n");
	for (size_t i = 0; i < A->nw; i++)
		if (A->w[i].money != TS_ADVISE_NONE) {
			fprintf(f, "least $ = the point within the tolerance with the fewest dollars "
				   "per epoch (instance + volume, tiersim prices --evidence);\n[..] = "
				   "the low prices at the fast end to the high prices at the slow "
				   "end.\n");
			break;
		}
}

/* The plot: every grid point would be too many bars to read, so per
 * workload it shows the tier x vCPU points at the recommended memory size,
 * in cost order ("inference 4v ssd-cloud"). The rows are shallow copies of
 * the report's with their own labels. */
static int plot_advice(const struct ts_advise *A, const char *path, char *err, size_t errlen)
{
	struct ts_report pr;
	ts_report_init(&pr);
	pr.script = A->rep.script;
	pr.virtual_time = A->rep.virtual_time;
	pr.rows = calloc(A->rep.n ? A->rep.n : 1, sizeof(*pr.rows));
	char **labels = calloc(A->rep.n ? A->rep.n : 1, sizeof(*labels));
	int rc = pr.rows && labels ? 0 : -ENOMEM;
	if (!rc && !(pr.title = strdup("tiersim advise: tier x vCPU at the recommended memory")))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < A->nw; i++) {
		const struct ts_advise_workload *k = &A->w[i];
		size_t *ord = k->rec == TS_ADVISE_NONE ? NULL : ts_advise_cost_order(k);
		for (size_t o = 0; ord && o < k->n && !rc; o++) {
			const struct ts_advise_point *p = &k->pts[ord[o]];
			if (p->m != k->pts[k->rec].m)
				continue;
			char *l;
			if (asprintf(&l, "%s %lluv %s", k->name, (unsigned long long)A->g.vcpus[p->v],
				     A->g.tiers[p->t]) < 0) {
				rc = -ENOMEM;
				break;
			}
			labels[pr.n] = l;
			pr.rows[pr.n] = A->rep.rows[p->row];
			pr.rows[pr.n++].label = l;
		}
		if (k->rec != TS_ADVISE_NONE && !ord)
			rc = -ENOMEM;
		free(ord);
	}
	if (!rc)
		rc = ts_report_plot(&pr, path, err, errlen);
	else
		snprintf(err, errlen, "--plot %s: out of memory", path);
	for (size_t i = 0; labels && i < pr.n; i++)
		free(labels[i]);
	free(labels);
	free(pr.rows);
	free(pr.title);
	return rc;
}

/* ---- The command ------------------------------------------------------------------ */

static void advise_free(struct ts_advise *A)
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
static int default_grid(struct ts_advise *A, bool need_v, bool need_m, int *status)
{
	uint64_t gpus = 1;
	struct ts_report got;
	ts_report_init(&got);
	int rc = run_script(A, A->g.tiers, 1, NULL, 0, true, &got, status);
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

/* The command line into @A and @args. Returns -1 to go on, or the exit
 * status after --help or one line. */
static int advise_args(struct ts_advise *A, struct advise_args *args, int argc, char **argv)
{
	const struct ts_cmdline *cl = &advise_cmdline;
	struct ts_opt_args a;
	char err[1024] = "";
	int rc = ts_cmdline_parse(cl, args, argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (args->real && args->virtual_time)
		return ts_cmdline_error(cl, "give --virtual or --real, not both");
	A->base.virtual_time = !args->real;
	if (args->band && args->real)
		return ts_cmdline_error(cl, "--band runs in virtual time; it cannot go with --real");
	A->base.band = args->band;
	A->repeats = (unsigned)args->repeats;
	/* The grid's overrides and the seeds take 8 of the runner's key=value. */
	if ((rc = ts_script_args(cl, &a, &args->out, TS_RUNNER_MAX_OVERRIDES - 8,
				 "tiersim advise scripts/main.lua", &A->base)) >= 0)
		return rc;
	/* The grid keys belong to the grid. */
	for (size_t i = 0; i < A->base.nkv; i++) {
		const char *kv = A->base.kv[i];
		size_t kl = strcspn(kv, "=");
		if ((kl == 14 && !strncmp(kv, "pipeline.vcpus", kl)) ||
		    (kl == 9 && !strncmp(kv, "mount.mem", kl)) ||
		    (kl == 10 && !strncmp(kv, "mount.tier", kl)))
			return ts_cmdline_error(cl, "%.*s is a grid axis; give it as --%s", (int)kl,
						kv, kl == 14 ? "vcpus" : kl == 9 ? "mem" : "tiers");
	}
	if (args->instances && (args->vcpus || args->mem || args->out.instance))
		return ts_cmdline_error(cl, "--instances is the grid's axis instead of --vcpus, "
					    "--mem and --instance; give one of them");
	if ((args->budget || args->deadline) && !args->instances && !args->out.instance)
		return ts_cmdline_error(cl, "--budget and --deadline need prices: give --instance "
					    "NAME or --instances A,B,...");
	if ((args->vcpus && parse_vcpus(args->vcpus, &A->g, err, sizeof(err))) ||
	    (args->mem && parse_mem(args->mem, &A->g, err, sizeof(err))) ||
	    parse_tolerance(args->tolerance, &A->tolerance_pct, err, sizeof(err)) ||
	    parse_money(A, args, err, sizeof(err)))
		return ts_cmdline_error(cl, "%s", err);
	if (args->instances) {
		if ((rc = parse_instances(A, args->instances, err, sizeof(err))))
			return rc == TS_E_PARSE ? ts_cmdline_error(cl, "%s", err)
						: (fprintf(stderr, "tiersim advise: %s\n", err),
						   TS_EXIT_FAIL);
	}
	return -1;
}

/* The grid's tiers: each known, a disk model, listed once. Returns -1 to go
 * on, or the exit status after one line. */
static int advise_tiers(struct ts_advise *A, const struct ts_opt_list *tiers)
{
	char err[1024] = "";
	int rc = ts_tier_set_load_default(&A->tiers, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "tiersim advise: %s\n", err);
		return TS_EXIT_FAIL;
	}
	for (size_t i = 0; i < tiers->n && !rc; i++) {
		const char *t = tiers->v[i];
		const struct ts_tier_profile *p;
		if (!strcmp(t, "none"))
			snprintf(err, sizeof(err), "--tiers: 'none' reads without a disk model; "
				 "advise compares disk tiers (tiersim tiers lists them)");
		else if (ts_advise_tier_index(&A->g, t) != TS_ADVISE_NONE)
			snprintf(err, sizeof(err), "--tiers: '%s' is listed twice", t);
		else if (!ts_tier_set_lookup(A->tiers, t, &p, err, sizeof(err)))
			A->g.tiers[A->g.ntiers++] = t;
		rc = A->g.ntiers == i + 1 ? 0 : TS_E_PARSE;
	}
	if (rc)
		return ts_cmdline_error(&advise_cmdline, "%s", err);
	return -1;
}

/* The command line's key=value and the work directory, checked before
 * anything runs. Returns -1 to go on, or the exit status. */
static int advise_check(struct ts_advise *A)
{
	struct ts_runner R;
	struct ts_runner_opts o = A->base;
	char err[1024] = "";
	o.ntiers = A->g.ntiers;
	memcpy(o.tiers, A->g.tiers, sizeof(o.tiers));
	int rc = ts_runner_init(&R, &o, err, sizeof(err));
	ts_runner_free(&R);
	if (!rc)
		return -1;
	fprintf(stderr, "tiersim advise: %s\n", err[0] ? err : ts_strerror(rc));
	return rc == TS_E_UNKNOWN || rc == TS_E_PARSE ? TS_EXIT_USAGE : TS_EXIT_FAIL;
}

/* The grid: one run of the script per vCPU x memory point, on every tier. */
static int run_grid(struct ts_advise *A, int *status)
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
					&got, status);
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
			fprintf(stderr, "tiersim advise: workload '%s' ran at %zu of %zu grid points; "
					"the script must run the same configurations at every vCPU "
					"count, memory size and tier\n", A->w[i].name, A->w[i].n,
				npoints * A->g.ntiers);
			*status = TS_EXIT_FAIL;
			return -EINVAL;
		}
	return 0;
}

/* Runs the grid and chooses; the report is A->rep. */
static int advise_run(struct ts_advise *A, int *status)
{
	int rc;
	ts_interrupt_install();
	ts_report_init(&A->rep);
	A->rep.virtual_time = A->base.virtual_time;
	if ((rc = ts_row_set_str(&A->rep.script, A->base.script)))
		return rc;
	if ((!A->g.nv || !A->g.nm) && (rc = default_grid(A, !A->g.nv, !A->g.nm, status)))
		return rc;
	if ((rc = run_grid(A, status)))
		return rc;
	for (size_t i = 0; i < A->nw; i++) {
		char err[512];
		if ((rc = ts_advise_rank_tiers(A, &A->w[i], err, sizeof(err)))) {
			fprintf(stderr, "tiersim advise: %s\n", err);
			*status = TS_EXIT_FAIL;
			return rc;
		}
		ts_advise_find_best(A, &A->w[i]);
	}
	if (A->repeats && (rc = measure_spread(A, status)))
		return rc;
	for (size_t i = 0; i < A->nw; i++)
		if ((rc = ts_advise_choose(A, &A->w[i])))
			return rc;
	return 0;
}

int ts_cmd_advise(int argc, char **argv)
{
	static struct ts_advise A; /* large (the runner options); one per process */
	struct advise_args args = { 0 };
	char err[1024] = "";
	memset(&A, 0, sizeof(A));
	int status = advise_args(&A, &args, argc, argv);
	if (status < 0)
		status = advise_tiers(&A, &args.tiers);
	if (status < 0)
		status = advise_check(&A);
	if (status >= 0)
		goto out;
	status = TS_EXIT_OK;
	int rc = advise_run(&A, &status);
	if (!rc) {
		print_advice(&A, ts_script_table_stream(&args.out));
		fflush(stdout);
		status = ts_script_write(&advise_cmdline, &A.rep, &args.out, status);
		if (args.out.plot && plot_advice(&A, args.out.plot, err, sizeof(err))) {
			fprintf(stderr, "tiersim advise: %s\n", err);
			status = TS_EXIT_FAIL;
		}
	} else if (rc == -ENOMEM) {
		fprintf(stderr, "tiersim advise: out of memory\n");
		status = TS_EXIT_FAIL;
	}
	if (rc && !status)
		status = TS_EXIT_FAIL;
out:
	advise_free(&A);
	ts_opt_free(advise_opts, &args);
	return status;
}
