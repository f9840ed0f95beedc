/*
 * cmd_validate.c — `tiersim validate`: runs the validation cases
 * (validation/cases/NAME.json, validation/README.md) and prints, for every
 * measured figure, what the model predicts, the error and whether it is
 * inside the case's tolerance, then a summary. The cases' runs and
 * verdicts are validation/run.h's; this selects, calls and prints.
 *
 * Before anything runs the corpus and the profiles' evidence labels (tier
 * and host profiles) are checked against each other: a fitted field names
 * its case, and that case is not a checking one.
 *
 * Exit status (validation/ratchet.h): 0 when at least as many of the cases
 * run are inside as the baseline (validation/baseline) lists among them,
 * every figure out of its tolerance carries its reason, every fit is
 * reproduced and every case ran; 1 otherwise or when a case, profile or
 * baseline file is refused; 2 for a bad command line. A known miss is a
 * miss: it is counted outside, with its reason.
 */
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "pipeline/host.h"
#include "core/opt.h"
#include "core/paths.h"
#include "core/units.h"
#include "tier/tier.h"
#include "validation/case.h"
#include "validation/corpus.h"
#include "validation/ratchet.h"
#include "validation/run.h"

struct vcfg {
	bool json;
	struct ts_validate_cfg run;
	char *cases;	       /* folder of case files; NULL = validation/cases */
	char *skip_tag;	       /* cases with this tag are not selected */
	char *baseline;	       /* ratchet file; NULL = validation/baseline with the default corpus */
	bool record;	       /* --record-baseline: write the ratchet from this run */
};

#define OFF(f) offsetof(struct vcfg, f)
static const struct ts_opt vopts[] = {
	{ "json", TS_OPT_BOOL, OFF(json), "false", 0, 0, "", "print the results as JSON" },
	{ "real", TS_OPT_BOOL, OFF(run.real), "false", 0, 0, "",
	  "run disk cases with fio through a tierfs mount instead of in virtual time" },
	{ "cases", TS_OPT_STR, OFF(cases), NULL, 0, 0, "",
	  "folder of case files (default: validation/cases)", "DIR" },
	{ "real_runtime", TS_OPT_DURATION, OFF(run.real_runtime), "5s", 1e8, 3.6e12, "ns",
	  "with --real: the longest fio run per case" },
	{ "real_size", TS_OPT_SIZE, OFF(run.real_size), "64MiB", 4096, 0, "bytes",
	  "with --real: the largest file each fio job covers" },
	{ "skip_tag", TS_OPT_STR, OFF(skip_tag), NULL, 0, 0, "",
	  "leave out the cases carrying this tag (\"slow\": the long workload runs)", "TAG" },
	{ "baseline", TS_OPT_STR, OFF(baseline), NULL, 0, 0, "",
	  "the ratchet: the cases inside at the last record; the run fails when fewer are "
	  "inside (default: validation/baseline with the shipped corpus, none with --cases)",
	  "FILE" },
	{ "record_baseline", TS_OPT_BOOL, OFF(record), "false", 0, 0, "",
	  "write the baseline from this run (every case run, none skipped)" },
	{ NULL },
};
#undef OFF

static const struct ts_cmdline validate_cmdline = {
	.name = "validate",
	.synopsis = "[CASE|GLOB|tag:TAG...] [--json] [--real] [--cases DIR] [--skip-tag TAG]\n"
		    "                [--baseline FILE] [--record-baseline]",
	.about = "Runs the validation cases (real measurements of real systems) and prints\n"
		 "predicted vs measured, the error and whether it is inside the case's\n"
		 "tolerance, then cases inside and outside tolerance (known misses with their\n"
		 "reason), median |error|, the worst five and the checks per tier. Fails when\n"
		 "fewer cases are inside than the baseline (validation/baseline) lists.\n"
		 "CASE is a case id or file; GLOB matches ids (\"ebs-*\"); tag:TAG the cases\n"
		 "carrying TAG. Workload cases with a DLIO run predict it in virtual time.\n",
	.opts = vopts,
	.max_pos = -1,
};

/* ---- Profiles ----------------------------------------------------------- */


/* Adds a case's extra profile file to @set once. */
static int add_profile(struct ts_tier_set *set, const char *rel, char ***added, size_t *nadded,
		       char *err, size_t errlen)
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
	int rc = ts_tier_set_add_file(set, path, err, errlen);
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

static void print_text(struct ts_case_row *rows, size_t n, const struct ts_validate_summary *s,
		       struct ts_fig_row **worst, size_t nworst, bool real)
{
	printf("%-44s %-7s %-9s %12s %12s %-6s %8s %6s  %s\n", "case", "role", "figure", "measured",
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
			printf("%-44s %-7s %-9s %12s %12s %-6s %8s %6s  %s\n", k ? "" : r->c->id,
			       k ? "" : role_name(r->c), f->fig->name, m, p,
			       f->fig->unit, e, t, ts_fig_status_name(f->st));
		}
	}
	if (s->v.not_runnable) {
		printf("\nnot runnable yet (counted apart, never as passing):\n");
		for (size_t i = 0; i < n; i++)
			if (rows[i].needs)
				printf("  %-40s %-8s not runnable yet: needs %s\n", rows[i].c->id,
				       ts_case_level_name(rows[i].c->level), rows[i].needs);
	}
	const struct ts_verdict *v = &s->v;
	printf("\nsummary: %zu checking cases ran: %zu inside tolerance, %zu outside (%zu known "
	       "misses with their reason, %zu without); median |error| %.1f%% over %zu figures\n",
	       v->checks, v->inside, v->known + v->outside, v->known, v->outside, 100 * s->median,
	       s->nerr);
	printf("         %zu fitting cases (%zu reproduced by their profile), %zu not runnable "
	       "yet, %zu failed to run\n",
	       v->fits, v->fits - v->fits_off, v->not_runnable, v->failed);
	if (v->same_run)
		printf("         %zu same-run checks (same volume, session or run as a fit; not "
		       "scored), %zu inside\n",
		       v->same_run, s->same_inside);
	if (s->floor)
		printf("         %zu latency figures not judged: the model's target is below the "
		       "FUSE round trip this host adds\n",
		       s->floor);
	if (nworst) {
		printf("worst %s:\n", nworst < 5 ? "figures" : "five");
		for (size_t i = 0; i < nworst && i < 5; i++) {
			const struct ts_case_row *r = row_of(rows, n, worst[i]);
			printf("  %-40s %-9s %+7.1f%%  %s\n", r ? r->c->id : "?", worst[i]->fig->name,
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

static void print_verdict(const struct ts_case_row *rows, size_t n,
			  const struct ts_validate_summary *s, const struct ts_ratchet *ratchet,
			  const char *baseline, const struct ts_tier_set *set)
{
	const struct ts_verdict *v = &s->v;
	printf("independent checks per tier (checking cases that ran):");
	for (size_t t = 0; t < ts_tier_set_count(set); t++) {
		const char *name = ts_tier_set_at(set, t)->name;
		printf("%s %s %zu", t ? "," : "", name, checks_on(rows, n, name));
	}
	printf("\n");
	if (!ratchet) {
		printf("ratchet: none (no baseline file given)\n");
		return;
	}
	printf("ratchet: %zu inside against %zu in %s", v->inside, v->baseline, baseline);
	for (int fell = 1; fell >= 0; fell--) {
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			bool listed = ts_ratchet_has(ratchet, rows[i].c->id);
			bool in = rows[i].outcome.outcome == TS_OUTCOME_INSIDE;
			if (fell ? listed && !in : in && !listed) {
				printf("%s %s", any ? "," : fell ? "; fell out:" : "; new inside:",
				       rows[i].c->id);
				any = true;
			}
		}
	}
	printf("\n");
	if (v->inside < v->baseline)
		printf("FAIL: fewer cases inside than the baseline lists\n");
	else if (v->rose)
		printf("(more cases inside than recorded: tiersim validate --record-baseline keeps "
		       "them)\n");
}

static int print_json(struct ts_case_row *rows, size_t n, const struct ts_validate_summary *s, bool real)
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
	int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) ? -EIO : 0;
	putchar('\n');
	json_decref(root);
	return rc;
}

/* ---- The command ------------------------------------------------------------ */

static bool in_corpus(struct ts_case **all, size_t n, const char *id)
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

static bool selected(const struct ts_case *c, char **sel, size_t nsel, bool *used,
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

int ts_cmd_validate(int argc, char **argv)
{
	struct vcfg v;
	char err[1024];
	int ret = TS_EXIT_USAGE;
	char **sel = calloc((size_t)argc, sizeof(*sel));
	bool *used = calloc((size_t)argc, sizeof(*used));
	size_t nsel = 0, nall = 0, nrows = 0, nadded = 0;
	struct ts_case **all = NULL;
	struct ts_case_row *rows = NULL;
	struct ts_tier_set *set = NULL;
	struct ts_host_set *hosts = NULL;
	char **added = NULL;
	glob_t g = { 0 };
	bool have_glob = false, have_ratchet = false;
	struct ts_ratchet ratchet = { 0 };
	char bpath[4200] = "";

	memset(&v, 0, sizeof(v));
	if (!sel || !used) {
		fprintf(stderr, "tiersim validate: out of memory\n");
		goto out;
	}
	struct ts_opt_args a;
	int prc = ts_cmdline_parse(&validate_cmdline, &v, argc, argv, &a);
	if (prc >= 0) {
		free(sel);
		free(used);
		return prc; /* --help, or a usage error already said */
	}
	for (int i = 0; i < a.npos; i++)
		sel[nsel++] = a.pos[i];
	ret = TS_EXIT_FAIL;
	char dir[4096], pat[4200];
	if (v.cases)
		snprintf(dir, sizeof(dir), "%s", v.cases);
	else if (ts_data_find("validation/cases", dir, sizeof(dir))) {
		fprintf(stderr, "tiersim validate: validation/cases not found; set TIERSIM_DATADIR "
				"to the source tree or give --cases DIR\n");
		goto out;
	}
	snprintf(pat, sizeof(pat), "%s/*.json", dir);
	if (glob(pat, 0, NULL, &g) || g.gl_pathc == 0) {
		fprintf(stderr, "tiersim validate: no case files (*.json) in %s\n", dir);
		goto out;
	}
	have_glob = true;

	/* Load every case (the fitted-vs-checking rule spans the corpus). */
	all = calloc(g.gl_pathc, sizeof(*all));
	rows = calloc(g.gl_pathc, sizeof(*rows));
	if (!all || !rows)
		goto out;
	int refused = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (ts_case_load(g.gl_pathv[i], &all[nall], err, sizeof(err))) {
			fprintf(stderr, "tiersim validate: %s\n", err);
			refused++;
			continue;
		}
		for (size_t k = 0; k < nall; k++)
			if (!strcmp(all[k]->id, all[nall]->id)) {
				fprintf(stderr, "tiersim validate: %s: case id '%s' again\n",
					g.gl_pathv[i], all[nall]->id);
				refused++;
			}
		nall++;
	}
	if (ts_tier_set_load_default(&set, err, sizeof(err))) {
		fprintf(stderr, "tiersim validate: %s\n", err);
		goto out;
	}
	for (size_t i = 0; i < nall; i++)
		if (all[i]->profile &&
		    add_profile(set, all[i]->profile, &added, &nadded, err, sizeof(err))) {
			fprintf(stderr, "tiersim validate: %s: %s\n", all[i]->path, err);
			refused++;
		}
	if (refused) {
		fprintf(stderr, "tiersim validate: %d file%s refused; nothing was run\n", refused,
			refused > 1 ? "s" : "");
		goto out;
	}
	if (ts_host_set_load_default(&hosts, err, sizeof(err))) {
		fprintf(stderr, "tiersim validate: %s\n", err);
		goto out;
	}
	if (ts_validate_fit_rule(set, hosts, all, nall, stderr)) {
		fprintf(stderr, "tiersim validate: the corpus and the profiles' evidence disagree "
				"(above); nothing was run\n");
		goto out;
	}
	/* The ratchet: --baseline FILE, or validation/baseline beside the
	 * shipped corpus. */
	if (v.baseline) {
		snprintf(bpath, sizeof(bpath), "%s", v.baseline);
	} else if (!v.cases) {
		const char *slash = strrchr(dir, '/');
		snprintf(bpath, sizeof(bpath), "%.*s/baseline", slash ? (int)(slash - dir) : 1,
			 slash ? dir : ".");
	}
	if (v.record && (nsel || v.skip_tag)) {
		fprintf(stderr, "tiersim validate: --record-baseline records the whole corpus: give no "
				"case, glob, tag or --skip-tag\n");
		ret = TS_EXIT_USAGE;
		goto out;
	}
	if (v.record && !*bpath) {
		fprintf(stderr, "tiersim validate: --record-baseline with --cases needs --baseline FILE\n");
		ret = TS_EXIT_USAGE;
		goto out;
	}
	if (*bpath && !v.record) {
		if (ts_ratchet_load(bpath, !v.baseline, &ratchet, err, sizeof(err))) {
			fprintf(stderr, "tiersim validate: %s\n", err);
			goto out;
		}
		have_ratchet = ratchet.n > 0 || v.baseline;
		for (size_t i = 0; i < ratchet.n; i++)
			if (!in_corpus(all, nall, ratchet.ids[i])) {
				fprintf(stderr, "tiersim validate: %s: case '%s' is not in the corpus (a "
						"case leaves the baseline with --record-baseline); nothing "
						"was run\n", bpath, ratchet.ids[i]);
				goto out;
			}
	}
	for (size_t i = 0; i < nall; i++) {
		if (!selected(all[i], sel, nsel, used, v.skip_tag))
			continue;
		struct ts_case_row *r = &rows[nrows++];
		r->c = all[i];
		r->needs = ts_case_needs(r);
		if (!r->needs && !(r->f = calloc(all[i]->nfig, sizeof(*r->f))))
			goto out;
	}
	for (size_t i = 0; i < nsel; i++)
		if (!used[i]) {
			fprintf(stderr, "tiersim validate: no case matches '%s' (ids are the file "
					"names in %s)\n", sel[i], dir);
			ret = TS_EXIT_USAGE;
			goto out;
		}
	for (size_t i = 0; i < nrows; i++)
		if (!rows[i].needs)
			ts_case_run(&rows[i], set, &v.run);

	size_t nfig = 0;
	for (size_t i = 0; i < nrows; i++)
		nfig += rows[i].c->nfig;
	double *errs = calloc(nfig + 1, sizeof(*errs));
	struct ts_fig_row **worst = calloc(nfig + 1, sizeof(*worst));
	struct ts_case_outcome *o = calloc(nrows + 1, sizeof(*o));
	struct ts_validate_summary s;
	size_t nworst;
	if (!errs || !worst || !o) {
		free(errs);
		free(worst);
		free(o);
		goto out;
	}
	ts_validate_summarize(rows, nrows, have_ratchet ? &ratchet : NULL, o, &s, errs, worst,
			      &nworst);
	if (v.json) {
		if (print_json(rows, nrows, &s, v.run.real))
			fprintf(stderr, "tiersim validate: cannot write the JSON\n");
	} else {
		print_text(rows, nrows, &s, worst, nworst, v.run.real);
		print_verdict(rows, nrows, &s, have_ratchet ? &ratchet : NULL, bpath, set);
	}
	ret = ts_validate_passed(&s) ? TS_EXIT_OK : TS_EXIT_FAIL;
	if (v.record) {
		if (ts_ratchet_save(bpath, o, nrows, err, sizeof(err))) {
			fprintf(stderr, "tiersim validate: %s\n", err);
			ret = TS_EXIT_FAIL;
		} else {
			fprintf(stderr, "tiersim validate: %s: recorded %zu cases inside\n", bpath,
				s.v.inside);
		}
	}
	free(errs);
	free(worst);
	free(o);
out:
	for (size_t i = 0; i < nall; i++)
		ts_case_free(all[i]);
	for (size_t i = 0; rows && i < nrows; i++)
		free(rows[i].f);
	for (size_t i = 0; i < nadded; i++)
		free(added[i]);
	free(added);
	free(all);
	free(rows);
	free(sel);
	free(used);
	ts_tier_set_free(set);
	ts_host_set_free(hosts);
	ts_ratchet_free(&ratchet);
	if (have_glob)
		globfree(&g);
	ts_opt_free(vopts, &v);
	return ret;
}
