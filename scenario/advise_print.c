/*
 * advise_print.c — advise's result as text (the table per workload in cost
 * order, the recommendation, the money and band lines) and as a plot
 * (advise.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/price.h"
#include "scenario/advise.h"

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

void ts_advise_print(const struct ts_advise *A, FILE *f)
{
	fprintf(f, "advise: %s%s\n", A->rep.title ? A->rep.title : A->base.script,
		A->base.virtual_time ? " (virtual time)" : " (real time)");
	if (A->g.ni)
		fprintf(f, "grid: %zu tiers x %zu instances (tiersim prices), each with its vCPUs "
			   "(decode workers), memory (page-cache model; with mount.fs, block mode, the "
			   "job's memory cgroup), GPUs and host\n",
			A->g.ntiers, A->g.ni);
	else
		fprintf(f, "grid: %zu tiers x %zu vCPU counts x %zu memory sizes; vCPUs = decode "
			   "workers (pipeline.vcpus), memory = page-cache model (mount.mem) or, with "
			   "mount.fs (block mode), the job's memory cgroup\n",
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
int ts_advise_plot(const struct ts_advise *A, const char *path, char *err, size_t errlen)
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
