/* advise.c — advise's filing of rows into workloads and its choice (advise.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/advise.h"
#include "core/units.h"

const char *ts_advise_param(const struct ts_row *w, const char *key)
{
	for (size_t i = 0; i < w->nparams; i++)
		if (!strcmp(w->pkey[i], key))
			return w->pval[i];
	return NULL;
}

/* The grid's keys; an instance grid's instances also set the GPUs and the
 * local disk's size. */
static bool grid_key(const struct ts_advise *A, const char *key)
{
	return !strcmp(key, "mount.tier") || !strcmp(key, "mount.mem") ||
	       !strcmp(key, "pipeline.vcpus") ||
	       (A->g.ni && (!strcmp(key, "engine.gpus") || !strcmp(key, "engine.gpu") ||
				  !strcmp(key, "mount.capacity")));
}

/* The row's own label less its tier prefix and the values of swept grid
 * keys ("vcpus=2 mem=1GiB" from a sweep{} the grid overrides). */
static void base_label(const struct ts_row *w, char *buf, size_t n)
{
	const char *l = w->label ? w->label : "";
	size_t tl = w->tier ? strlen(w->tier) : 0;
	if (tl && !strncmp(l, w->tier, tl) && (l[tl] == ' ' || !l[tl]))
		l += tl + (l[tl] == ' ');
	buf[0] = 0;
	size_t used = 0;
	char *copy = strdup(l);
	if (!copy)
		return;
	for (char *save, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (!strncmp(t, "vcpus=", 6) || !strncmp(t, "mem=", 4) || !strncmp(t, "tier=", 5))
			continue;
		if (used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? " " : "", t);
	}
	free(copy);
}

/* The row's workload; a new one when @create, else -ENOENT if none. */
int ts_advise_workload_of(struct ts_advise *A, const struct ts_row *w, bool create, size_t *out)
{
	char label[512], key[2048];
	base_label(w, label, sizeof(label));
	size_t used = (size_t)snprintf(key, sizeof(key), "%s", label);
	for (size_t i = 0; i < w->nparams && used < sizeof(key); i++)
		if (!grid_key(A, w->pkey[i]))
			used += (size_t)snprintf(key + used, sizeof(key) - used, "|%s=%s", w->pkey[i],
						 w->pval[i]);
	for (size_t i = 0; i < A->nw; i++)
		if (!strcmp(A->w[i].key, key)) {
			*out = i;
			return 0;
		}
	if (!create)
		return -ENOENT;
	struct ts_advise_workload *nw = realloc(A->w, (A->nw + 1) * sizeof(*nw));
	if (!nw)
		return -ENOMEM;
	A->w = nw;
	struct ts_advise_workload *k = &A->w[A->nw];
	memset(k, 0, sizeof(*k));
	k->best = k->rec = TS_ADVISE_NONE;
	char name[512];
	if (label[0])
		snprintf(name, sizeof(name), "%s", label);
	else
		snprintf(name, sizeof(name), "%s %s b%s", ts_advise_param(w, "engine.model") ?: "?",
			 ts_advise_param(w, "engine.mode") ?: "?", ts_advise_param(w, "engine.batch") ?: "?");
	k->key = strdup(key);
	k->name = strdup(name);
	if (!k->key || !k->name) {
		free(k->key);
		free(k->name);
		return -ENOMEM;
	}
	*out = A->nw++;
	return 0;
}

size_t ts_advise_tier_index(const struct ts_advise_grid *g, const char *tier)
{
	for (size_t i = 0; tier && i < g->ntiers; i++)
		if (!strcmp(g->tiers[i], tier))
			return i;
	return TS_ADVISE_NONE;
}

/* Files the rows of grid point (v, m) under their workloads, labelled
 * "workload | 4 vCPU 16GiB ssd-cloud". A configuration a sweep{} ran at
 * several values of a grid key ran identically under the override; only
 * its first row is kept. */
int ts_advise_file_rows(struct ts_advise *A, struct ts_report *got, size_t v, size_t m)
{
	for (size_t i = 0; i < got->n; i++) {
		struct ts_row *w = &got->rows[i];
		size_t t = ts_advise_tier_index(&A->g, w->tier), wi;
		if (t == TS_ADVISE_NONE)
			continue;
		int rc = ts_advise_workload_of(A, w, true, &wi);
		if (rc)
			return rc;
		struct ts_advise_workload *k = &A->w[wi];
		bool dup = false;
		for (size_t p = 0; p < k->n; p++)
			dup |= k->pts[p].v == v && k->pts[p].m == m && k->pts[p].t == t;
		if (dup)
			continue;
		if (k->n == k->cap) {
			size_t cap = k->cap ? 2 * k->cap : 16;
			struct ts_advise_point *np = realloc(k->pts, cap * sizeof(*np));
			if (!np)
				return -ENOMEM;
			k->pts = np;
			k->cap = cap;
		}
		char label[768];
		if (A->g.ni)
			snprintf(label, sizeof(label), "%s | %s %s", k->name, A->g.inst[v]->name,
				 A->g.tiers[t]);
		else
			snprintf(label, sizeof(label), "%s | %llu vCPU %s %s", k->name,
				 (unsigned long long)A->g.vcpus[v], A->g.mem_s[m], A->g.tiers[t]);
		struct ts_row *dst = ts_report_add(&A->rep);
		if (!dst)
			return -ENOMEM;
		*dst = *w;
		memset(w, 0, sizeof(*w));
		if ((rc = ts_row_set_str(&dst->label, label)) ||
		    (rc = ts_row_param(dst, "advise.workload", k->name)))
			return rc;
		k->pts[k->n++] = (struct ts_advise_point){ A->rep.n - 1, v, m, t };
	}
	return 0;
}


/* Tiers by their caps at the workload's capacity: read MB/s, then read
 * IOPS; a cap of 0 means none (unlimited) and sorts last. */
static double cap_or_inf(double v)
{
	return v > 0 ? v : INFINITY;
}

int ts_advise_rank_tiers(struct ts_advise *A, struct ts_advise_workload *k, char *err,
			 size_t errlen)
{
	const struct ts_row *w = &A->rep.rows[k->pts[0].row];
	const char *cs = ts_advise_param(w, "mount.capacity");
	uint64_t cap = 0;
	char compact[64] = "";
	size_t j = 0;
	for (const char *c = cs ? cs : ""; *c && j + 1 < sizeof(compact); c++)
		if (*c != ' ')
			compact[j++] = *c;
	compact[j] = 0;
	if (compact[0] && ts_parse_size(compact, &cap))
		cap = 0;
	double bps[TS_RUNNER_MAX_TIERS], iops[TS_RUNNER_MAX_TIERS];
	for (size_t t = 0; t < A->g.ntiers; t++) {
		const struct ts_tier_profile *p;
		struct ts_tier_limits l;
		int rc = ts_tier_set_lookup(A->tiers, A->g.tiers[t], &p, err, errlen);
		if (!rc)
			rc = ts_tier_effective(p, cap, &l, err, errlen);
		if (rc)
			return rc;
		bps[t] = cap_or_inf(l.read_bps > 0 ? l.read_bps : l.bps);
		iops[t] = cap_or_inf(l.read_iops > 0 ? l.read_iops : l.iops);
	}
	for (size_t t = 0; t < A->g.ntiers; t++) {
		unsigned r = 0;
		for (size_t u = 0; u < A->g.ntiers; u++)
			r += bps[u] < bps[t] || (bps[u] == bps[t] && (iops[u] < iops[t] ||
								       (iops[u] == iops[t] && u < t)));
		k->tier_rank[t] = r;
	}
	return 0;
}

/* Cost order: fewer vCPUs, then less memory, then the lower tier. */
int ts_advise_cost_cmp(const struct ts_advise_workload *k, const struct ts_advise_point *a, const struct ts_advise_point *b)
{
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	if (a->m != b->m)
		return a->m < b->m ? -1 : 1;
	unsigned ra = k->tier_rank[a->t], rb = k->tier_rank[b->t];
	return ra < rb ? -1 : ra > rb;
}

/* samples/s at @p: as run (@end 0), or at the slow (-1) or fast (+1) end
 * of the band (--band); NaN where there is none. */
static double sps_end(const struct ts_advise *A, const struct ts_advise_point *p, int end)
{
	const struct ts_row *w = &A->rep.rows[p->row];
	if (w->error)
		return NAN;
	if (!end)
		return w->samples_per_s;
	if (!w->band_params)
		return NAN;
	return end < 0 ? w->band_sps_lo : w->band_sps_hi;
}

double ts_advise_sps(const struct ts_advise *A, const struct ts_advise_point *p)
{
	return sps_end(A, p, 0);
}

/* The best point at @end: highest samples/s, the cheaper one on a tie. */
static size_t best_at(const struct ts_advise *A, const struct ts_advise_workload *k, int end)
{
	size_t best = TS_ADVISE_NONE;
	for (size_t i = 0; i < k->n; i++) {
		double s = sps_end(A, &k->pts[i], end);
		if (isnan(s))
			continue;
		double b = best == TS_ADVISE_NONE ? NAN : sps_end(A, &k->pts[best], end);
		if (best == TS_ADVISE_NONE || s > b || (s == b && ts_advise_cost_cmp(k, &k->pts[i], &k->pts[best]) < 0))
			best = i;
	}
	return best;
}

/* The recommendation at @end: the cheapest point within the tolerance of
 * that end's best. */
static size_t choose_at(const struct ts_advise *A, const struct ts_advise_workload *k, int end)
{
	size_t best = best_at(A, k, end), rec = TS_ADVISE_NONE;
	if (best == TS_ADVISE_NONE)
		return TS_ADVISE_NONE;
	double floor = sps_end(A, &k->pts[best], end) * (1.0 - k->tol_pct / 100.0);
	for (size_t i = 0; i < k->n; i++) {
		double s = sps_end(A, &k->pts[i], end);
		if (!isnan(s) && s >= floor && (rec == TS_ADVISE_NONE || ts_advise_cost_cmp(k, &k->pts[i], &k->pts[rec]) < 0))
			rec = i;
	}
	return rec;
}

/* Dollars per sample at @p (the order of $ per epoch), NaN where unpriced. */
static double per_sample(const struct ts_advise *A, const struct ts_advise_point *p)
{
	const struct ts_row *w = &A->rep.rows[p->row];
	return w->error || !(w->samples_per_s > 0) ? NAN : w->cost_hour.v / w->samples_per_s;
}

/* Hours and dollars of --epochs epochs at @p; false where unknown. */
bool ts_advise_epochs_at(const struct ts_advise *A, const struct ts_advise_point *p, double *hours,
		      double *dollars)
{
	const struct ts_row *w = &A->rep.rows[p->row];
	if (w->error || isnan(w->cost_epoch.v) || !(w->cost_hour.v > 0))
		return false;
	*dollars = A->epochs * w->cost_epoch.v;
	*hours = *dollars / w->cost_hour.v;
	return true;
}

/* The priced choices: within the tolerance the cheapest per sample and its
 * runner-up; anywhere the most samples/s per dollar; and with --deadline or
 * --budget the cheapest point that meets both, and its runner-up. */
static void choose_money(struct ts_advise *A, struct ts_advise_workload *k)
{
	k->money = k->money2 = k->per_dollar = k->fit = k->fit2 = TS_ADVISE_NONE;
	if (k->best == TS_ADVISE_NONE)
		return;
	double floor = ts_advise_sps(A, &k->pts[k->best]) * (1.0 - k->tol_pct / 100.0);
	for (size_t i = 0; i < k->n; i++) {
		const struct ts_advise_point *p = &k->pts[i];
		double c = per_sample(A, p);
		if (isnan(c))
			continue;
		if (k->per_dollar == TS_ADVISE_NONE || c < per_sample(A, &k->pts[k->per_dollar]))
			k->per_dollar = i;
		if (ts_advise_sps(A, p) >= floor) {
			if (k->money == TS_ADVISE_NONE || c < per_sample(A, &k->pts[k->money])) {
				k->money2 = k->money;
				k->money = i;
			} else if (k->money2 == TS_ADVISE_NONE || c < per_sample(A, &k->pts[k->money2])) {
				k->money2 = i;
			}
		}
		double h, d;
		if (!(A->deadline_h > 0 || A->budget > 0) || !ts_advise_epochs_at(A, p, &h, &d) ||
		    (A->deadline_h > 0 && h > A->deadline_h) || (A->budget > 0 && d > A->budget))
			continue;
		if (k->fit == TS_ADVISE_NONE || c < per_sample(A, &k->pts[k->fit])) {
			k->fit2 = k->fit;
			k->fit = i;
		} else if (k->fit2 == TS_ADVISE_NONE || c < per_sample(A, &k->pts[k->fit2])) {
			k->fit2 = i;
		}
	}
}

void ts_advise_find_best(struct ts_advise *A, struct ts_advise_workload *k)
{
	k->best = best_at(A, k, 0);
	if (k->best != TS_ADVISE_NONE)
		k->runs[k->nruns++] = ts_advise_sps(A, &k->pts[k->best]);
}

int ts_advise_choose(struct ts_advise *A, struct ts_advise_workload *k)
{
	if (k->best == TS_ADVISE_NONE)
		return 0;
	double lo = k->runs[0], hi = k->runs[0];
	for (unsigned i = 1; i < k->nruns; i++) {
		lo = fmin(lo, k->runs[i]);
		hi = fmax(hi, k->runs[i]);
	}
	k->spread_pct = k->nruns > 1 && hi > 0 ? 100.0 * (hi - lo) / hi : NAN;
	k->tol_pct = isnan(k->spread_pct) ? A->tolerance_pct : fmax(A->tolerance_pct,
								     k->spread_pct);
	k->rec = choose_at(A, k, 0);
	choose_money(A, k);
	struct ts_row *rw = &A->rep.rows[k->pts[k->rec].row];
	struct ts_row *bw = &A->rep.rows[k->pts[k->best].row];
	char tol[32], spread[32];
	snprintf(tol, sizeof(tol), "%.4f%%", k->tol_pct);
	snprintf(spread, sizeof(spread), isnan(k->spread_pct) ? "-" : "%.4f%%", k->spread_pct);
	int rc = 0;
	for (size_t i = 0; i < k->n && !rc; i++) {
		struct ts_row *w = &A->rep.rows[k->pts[i].row];
		w->rel_to = ts_advise_sps(A, &k->pts[k->best]);
		if (!(rc = ts_row_param(w, "advise.tolerance", tol)))
			rc = ts_row_param(w, "advise.spread", spread);
	}
	if (A->base.band) {
		k->banded = true;
		k->rec_slow = choose_at(A, k, -1);
		k->rec_fast = choose_at(A, k, 1);
		k->robust = k->rec_slow == k->rec && k->rec_fast == k->rec;
		if (!rc)
			rc = ts_row_param(rw, "advise.robust", k->robust ? "yes" : "no");
	}
	if (!rc)
		rc = ts_row_param(rw, "advise.choice", k->rec == k->best ? "recommended, best"
								       : "recommended");
	if (!rc && k->rec != k->best)
		rc = ts_row_param(bw, "advise.choice", "best");
	if (!rc && k->money != TS_ADVISE_NONE)
		rc = ts_row_param(&A->rep.rows[k->pts[k->money].row], "advise.money",
				  "least per epoch within the tolerance");
	if (!rc && k->money2 != TS_ADVISE_NONE)
		rc = ts_row_param(&A->rep.rows[k->pts[k->money2].row], "advise.money", "runner-up");
	return rc;
}

/* The workload's points in cost order, the cheapest first (malloc'd). */
size_t *ts_advise_cost_order(const struct ts_advise_workload *k)
{
	size_t *ord = malloc((k->n ? k->n : 1) * sizeof(*ord));
	for (size_t i = 0; ord && i < k->n; i++) {
		size_t j = i;
		while (j > 0 && ts_advise_cost_cmp(k, &k->pts[i], &k->pts[ord[j - 1]]) < 0) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = i;
	}
	return ord;
}

