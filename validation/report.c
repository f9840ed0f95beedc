/*
 * report.c — tiersim validate's selection and output (report.h): which
 * cases a command line names, the extra tier profiles the cases bring, and
 * the results as the table, the summary, the verdict per tier and the
 * ratchet, or as JSON.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/paths.h"
#include "pipeline/host.h"
#include "validation/corpus.h"
#include "validation/report.h"

/* ---- Profiles ----------------------------------------------------------- */


/* The first tier name both @a and @b define, or NULL. */
static const char *shared_name(const struct ts_tier_set *a, const struct ts_tier_set *b)
{
	for (size_t i = 0; i < ts_tier_set_count(a); i++) {
		const char *name = ts_tier_set_at(a, i)->name;
		if (ts_tier_set_find(b, name))
			return name;
	}
	return NULL;
}

/* -EEXIST when a tier of @path (found as @rel) is also defined by a
 * profile file added before: one run holds one profile per tier name, so
 * the file loaded last would silently replace the other's tier for every
 * case that names it. */
static int check_names(const char *path, const char *rel, char **added, size_t nadded,
		       char *err, size_t errlen)
{
	struct ts_tier_set *mine = NULL;
	int rc = ts_tier_set_load(path, &mine, err, errlen);
	for (size_t i = 0; !rc && i < nadded; i++) {
		char other[4096];
		struct ts_tier_set *theirs;
		if (ts_data_find(added[i], other, sizeof(other)) ||
		    ts_tier_set_load(other, &theirs, err, errlen))
			continue; /* it loaded when it was added */
		const char *name = shared_name(mine, theirs);
		if (name) {
			snprintf(err, errlen, "profile file %s defines tier '%s', which %s also defines; "
					      "cases run together must not give one tier name two profiles",
				 rel, name, added[i]);
			rc = -EEXIST;
		}
		ts_tier_set_free(theirs);
	}
	if (mine)
		ts_tier_set_free(mine);
	return rc;
}

/* Adds a case's extra profile file to @set once; a file that redefines a
 * tier another case's file defines is refused (check_names). */
int ts_validate_add_profile(struct ts_tier_set *set, const char *rel, char ***added,
			     size_t *nadded, char *err, size_t errlen)
{
	for (size_t i = 0; i < *nadded; i++)
		if (!strcmp((*added)[i], rel))
			return 0;
	char path[4096];
	if (ts_data_find(rel, path, sizeof(path))) {
		snprintf(err, errlen, "profile file %s not found (set TIERSIM_DATADIR to the source "
				      "tree)", rel);
		return -ENOENT;
	}
	int rc = check_names(path, rel, *added, *nadded, err, errlen);
	if (rc)
		return rc;
	rc = ts_tier_set_add_file(set, path, err, errlen);
	if (rc)
		return rc;
	char **nv = realloc(*added, (*nadded + 1) * sizeof(**added));
	if (!nv)
		return -ENOMEM;
	*added = nv;
	if (!(nv[*nadded] = strdup(rel)))
		return -ENOMEM;
	(*nadded)++;
	return 0;
}

int ts_validate_load_profiles(struct ts_case **all, size_t n, size_t refused, FILE *f,
			      const char *who, struct ts_tier_set **set,
			      struct ts_host_set **hosts, char ***added, size_t *nadded)
{
	char err[1024];
	if (ts_tier_set_load_default(set, err, sizeof(err))) {
		fprintf(f, "%s: %s\n", who, err);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (all[i]->profile &&
		    ts_validate_add_profile(*set, all[i]->profile, added, nadded, err, sizeof(err))) {
			fprintf(f, "%s: %s: %s\n", who, all[i]->path, err);
			refused++;
		}
	if (refused) {
		fprintf(f, "%s: %zu file%s refused; nothing was run\n", who, refused,
			refused > 1 ? "s" : "");
		return -1;
	}
	if (ts_host_set_load_default(hosts, err, sizeof(err))) {
		fprintf(f, "%s: %s\n", who, err);
		return -1;
	}
	if (ts_validate_fit_rule(*set, *hosts, all, n, f)) {
		fprintf(f, "%s: the corpus and the profiles' evidence disagree (above); nothing "
			   "was run\n", who);
		return -1;
	}
	return 0;
}

int ts_validate_select_rows(struct ts_case **all, size_t n, char *const *sel, size_t nsel,
			    const char *skip_tag, struct ts_case_row **rows, size_t *nrows,
			    const char **unmatched)
{
	bool *used = calloc(nsel + 1, sizeof(*used));
	int rc = 0;
	*unmatched = NULL;
	*nrows = 0;
	if (!used || !(*rows = calloc(n + 1, sizeof(**rows)))) {
		free(used);
		return -ENOMEM;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		if (!ts_validate_selected(all[i], sel, nsel, used, skip_tag))
			continue;
		struct ts_case_row *r = &(*rows)[(*nrows)++];
		r->c = all[i];
		r->needs = ts_case_needs(r);
		if (!r->needs && !(r->f = calloc(all[i]->nfig, sizeof(*r->f))))
			rc = -ENOMEM;
	}
	for (size_t i = 0; !rc && i < nsel && !*unmatched; i++)
		if (!used[i])
			*unmatched = sel[i];
	free(used);
	return rc;
}

/* ---- The ratchet -------------------------------------------------------------- */

void ts_validate_baseline_path(const char *given, bool shipped, const char *dir, char *buf,
			       size_t len)
{
	const char *slash = strrchr(dir, '/');
	if (given)
		snprintf(buf, len, "%s", given);
	else if (shipped)
		snprintf(buf, len, "%.*s/baseline", slash ? (int)(slash - dir) : 1,
			 slash ? dir : ".");
	else if (len)
		buf[0] = 0;
}

int ts_validate_ratchet_load(const char *path, bool missing_ok, struct ts_case *const *all,
			     size_t n, FILE *f, const char *who, struct ts_ratchet *r)
{
	char err[1024];
	if (ts_ratchet_load(path, missing_ok, r, err, sizeof(err))) {
		fprintf(f, "%s: %s\n", who, err);
		return -1;
	}
	for (size_t i = 0; i < r->n; i++)
		if (!ts_validate_in_corpus(all, n, r->ids[i])) {
			fprintf(f, "%s: %s: case '%s' is not in the corpus (a case leaves the "
				   "baseline with --record-baseline); nothing was run\n",
				who, path, r->ids[i]);
			return -1;
		}
	return 0;
}

/* ---- Judging ------------------------------------------------------------------ */

int ts_validate_judge(struct ts_case_row *rows, size_t n, const struct ts_ratchet *ratchet,
		      struct ts_validate_judged *j)
{
	size_t nfig = 0;
	for (size_t i = 0; i < n; i++)
		nfig += rows[i].c->nfig;
	memset(j, 0, sizeof(*j));
	j->errs = calloc(nfig + 1, sizeof(*j->errs));
	j->worst = calloc(nfig + 1, sizeof(*j->worst));
	j->o = calloc(n + 1, sizeof(*j->o));
	if (!j->errs || !j->worst || !j->o) {
		ts_validate_judged_free(j);
		return -ENOMEM;
	}
	ts_validate_summarize(rows, n, ratchet, j->o, &j->s, j->errs, j->worst, &j->nworst);
	return 0;
}

void ts_validate_judged_free(struct ts_validate_judged *j)
{
	free(j->errs);
	free(j->worst);
	free(j->o);
	j->errs = NULL;
	j->worst = NULL;
	j->o = NULL;
}

/* ---- Output ---------------------------------------------------------------- */

static const char *role_name(const struct ts_case *c)
{
	return c->fits ? "fits" : c->same_run ? "same-run" : "checks";
}

static void fmt_val(char *buf, size_t n, double v)
{
	if (v >= 100)
		snprintf(buf, n, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

static const struct ts_case_row *row_of(struct ts_case_row *rows, size_t n, const struct ts_fig_row *f)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].f && f >= rows[i].f && f < rows[i].f + rows[i].c->nfig)
			return &rows[i];
	return NULL;
}

void ts_validate_print(FILE *out, struct ts_case_row *rows, size_t n,
		       const struct ts_validate_summary *s, struct ts_fig_row **worst,
		       size_t nworst, bool real)
{
	fprintf(out, "%-44s %-7s %-9s %12s %12s %-6s %8s %6s  %s\n", "case", "role", "figure", "measured",
	       real ? "emulated" : "predicted", "unit", "error", "tol", "status");
	for (size_t i = 0; i < n; i++) {
		struct ts_case_row *r = &rows[i];
		if (r->needs || r->failed)
			continue;
		for (size_t k = 0; k < r->c->nfig; k++) {
			struct ts_fig_row *f = &r->f[k];
			char m[32], p[32], e[16], t[16];
			fmt_val(m, sizeof(m), f->fig->value);
			fmt_val(p, sizeof(p), f->predicted);
			snprintf(e, sizeof(e), "%+.1f%%", 100 * f->error);
			snprintf(t, sizeof(t), "%.0f%%", 100 * f->fig->tolerance);
			fprintf(out, "%-44s %-7s %-9s %12s %12s %-6s %8s %6s  %s\n", k ? "" : r->c->id,
			       k ? "" : role_name(r->c), f->fig->name, m, p,
			       f->fig->unit, e, t, ts_fig_status_name(f->st));
		}
	}
	if (s->v.not_runnable) {
		fprintf(out, "\nnot runnable yet (counted apart, never as passing):\n");
		for (size_t i = 0; i < n; i++)
			if (rows[i].needs)
				fprintf(out, "  %-40s %-8s not runnable yet: needs %s\n", rows[i].c->id,
				       ts_case_level_name(rows[i].c->level), rows[i].needs);
	}
	const struct ts_verdict *v = &s->v;
	fprintf(out, "\nsummary: %zu checking cases ran: %zu inside tolerance, %zu outside (%zu known "
	       "misses with their reason, %zu without); median |error| %.1f%% over %zu figures\n",
	       v->checks, v->inside, v->known + v->outside, v->known, v->outside, 100 * s->median,
	       s->nerr);
	fprintf(out, "         %zu fitting cases (%zu reproduced by their profile), %zu not runnable "
	       "yet, %zu failed to run\n",
	       v->fits, v->fits - v->fits_off, v->not_runnable, v->failed);
	if (v->same_run)
		fprintf(out, "         %zu same-run checks (same volume, session or run as a fit; not "
		       "scored), %zu inside\n",
		       v->same_run, s->same_inside);
	if (s->floor)
		fprintf(out, "         %zu latency figures not judged: the model's target is below the "
		       "FUSE round trip this host adds\n",
		       s->floor);
	if (nworst) {
		fprintf(out, "worst %s:\n", nworst < 5 ? "figures" : "five");
		for (size_t i = 0; i < nworst && i < 5; i++) {
			const struct ts_case_row *r = row_of(rows, n, worst[i]);
			fprintf(out, "  %-40s %-9s %+7.1f%%  %s\n", r ? r->c->id : "?", worst[i]->fig->name,
			       100 * worst[i]->error,
			       worst[i]->fig->known_miss ? worst[i]->fig->known_miss
			       : worst[i]->st == TS_FIG_INSIDE ? "inside its tolerance"
							  : "no reason recorded");
		}
	}
}

/* Scored checking cases that ran on @tier. */
static size_t checks_on(const struct ts_case_row *rows, size_t n, const char *tier)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		enum ts_outcome o = rows[i].outcome.outcome;
		const char *t = ts_case_tier(rows[i].c);
		k += (o == TS_OUTCOME_INSIDE || o == TS_OUTCOME_KNOWN || o == TS_OUTCOME_OUTSIDE) &&
		     t && !strcmp(t, tier);
	}
	return k;
}

void ts_validate_print_verdict(FILE *out, const struct ts_case_row *rows, size_t n,
			       const struct ts_validate_summary *s,
			       const struct ts_ratchet *ratchet, const char *baseline,
			       const struct ts_tier_set *set)
{
	const struct ts_verdict *v = &s->v;
	fprintf(out, "independent checks per tier (checking cases that ran):");
	for (size_t t = 0; t < ts_tier_set_count(set); t++) {
		const char *name = ts_tier_set_at(set, t)->name;
		fprintf(out, "%s %s %zu", t ? "," : "", name, checks_on(rows, n, name));
	}
	fprintf(out, "\n");
	if (!ratchet) {
		fprintf(out, "ratchet: none (no baseline file given)\n");
		return;
	}
	fprintf(out, "ratchet: %zu inside against %zu in %s", v->inside, v->baseline, baseline);
	for (int fell = 1; fell >= 0; fell--) {
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			bool listed = ts_ratchet_has(ratchet, rows[i].c->id);
			bool in = rows[i].outcome.outcome == TS_OUTCOME_INSIDE;
			if (fell ? listed && !in : in && !listed) {
				fprintf(out, "%s %s", any ? "," : fell ? "; fell out:" : "; new inside:",
				       rows[i].c->id);
				any = true;
			}
		}
	}
	fprintf(out, "\n");
	if (v->inside < v->baseline)
		fprintf(out, "FAIL: fewer cases inside than the baseline lists\n");
	else if (v->rose)
		fprintf(out, "(more cases inside than recorded: tiersim validate --record-baseline keeps "
		       "them)\n");
}

int ts_validate_print_json(FILE *out, struct ts_case_row *rows, size_t n,
			   const struct ts_validate_summary *s, bool real)
{
	json_t *cases = json_array();
	for (size_t i = 0; i < n; i++) {
		struct ts_case_row *r = &rows[i];
		json_t *c = json_pack("{s:s, s:s, s:s, s:s}", "id", r->c->id, "level",
				      ts_case_level_name(r->c->level), "role", role_name(r->c),
				      "source", r->c->source);
		if (r->needs) {
			json_object_set_new(c, "status", json_string("not runnable yet"));
			json_object_set_new(c, "needs", json_string(r->needs));
		} else if (r->failed) {
			json_object_set_new(c, "status", json_string("failed to run"));
		} else {
			json_t *figs = json_array();
			for (size_t k = 0; k < r->c->nfig; k++) {
				struct ts_fig_row *f = &r->f[k];
				json_t *o = json_pack("{s:s, s:f, s:f, s:s, s:f, s:f, s:s}", "metric",
						      f->fig->name, "measured", f->fig->value,
						      real ? "emulated" : "predicted", f->predicted,
						      "unit", f->fig->unit, "error", f->error,
						      "tolerance", f->fig->tolerance, "status",
						      ts_fig_status_name(f->st));
				if (f->fig->known_miss)
					json_object_set_new(o, "known_miss",
							    json_string(f->fig->known_miss));
				json_array_append_new(figs, o);
			}
			json_object_set_new(c, "figures", figs);
		}
		json_array_append_new(cases, c);
	}
	const struct ts_verdict *v = &s->v;
	json_t *root = json_pack(
		"{s:o, s:{s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
		"s:b}}",
		"cases", cases, "summary", "checking_cases", (json_int_t)v->checks,
		"inside_tolerance", (json_int_t)v->inside, "outside_tolerance",
		(json_int_t)(v->known + v->outside), "known_misses", (json_int_t)v->known,
		"unexplained_misses", (json_int_t)v->outside, "median_abs_error", s->median,
		"fitting_cases", (json_int_t)v->fits, "fits_reproduced",
		(json_int_t)(v->fits - v->fits_off), "not_runnable", (json_int_t)v->not_runnable,
		"failed", (json_int_t)v->failed, "same_run_checks", (json_int_t)v->same_run,
		"same_run_inside", (json_int_t)s->same_inside, "baseline_inside",
		(json_int_t)v->baseline, "fell_out", (json_int_t)v->fell, "pass", v->pass);
	if (!root)
		return -ENOMEM;
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) ? -EIO : 0;
	fputc('\n', out);
	json_decref(root);
	return rc;
}

/* ---- Selecting cases ---------------------------------------------------------- */

bool ts_validate_in_corpus(struct ts_case *const *all, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i]->id, id))
			return true;
	return false;
}

static bool has_tag(const struct ts_case *c, const char *tag)
{
	for (size_t i = 0; tag && i < c->ntags; i++)
		if (!strcmp(c->tags[i], tag))
			return true;
	return false;
}

bool ts_validate_selected(const struct ts_case *c, char *const *sel, size_t nsel, bool *used,
			  const char *skip_tag)
{
	if (has_tag(c, skip_tag))
		return false;
	if (!nsel)
		return true;
	bool any = false;
	for (size_t i = 0; i < nsel; i++) {
		if (!strncmp(sel[i], "tag:", 4)) {
			if (has_tag(c, sel[i] + 4))
				any = used[i] = true;
			continue;
		}
		const char *b = strrchr(sel[i], '/') ? strrchr(sel[i], '/') + 1 : sel[i];
		char id[256];
		snprintf(id, sizeof(id), "%s", b);
		size_t l = strlen(id);
		if (l > 5 && !strcmp(id + l - 5, ".json"))
			id[l - 5] = 0;
		if (!fnmatch(id, c->id, 0)) {
			used[i] = true;
			any = true;
		}
	}
	return any;
}

