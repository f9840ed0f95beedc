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
 * Exit status: 0 when every checking figure is inside its tolerance or a
 * recorded known miss and every fit is reproduced; 1 otherwise or when a
 * case or profile file is refused; 2 for a bad command line.
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

#include "cmdline.h"
#include "commands.h"
#include "pipeline/host.h"
#include "opt.h"
#include "paths.h"
#include "units.h"
#include "tier/tier.h"
#include "validation/case.h"
#include "validation/run.h"

struct vcfg {
	bool json;
	struct ts_validate_cfg run;
	char *cases;	       /* folder of case files; NULL = validation/cases */
	char *skip_tag;	       /* cases with this tag are not selected */
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
	{ NULL },
};
#undef OFF

static const struct ts_cmdline validate_cmdline = {
	.name = "validate",
	.synopsis = "[CASE|GLOB|tag:TAG...] [--json] [--real] [--cases DIR] [--skip-tag TAG]",
	.about = "Runs the validation cases (real measurements of real systems) and prints\n"
		 "predicted vs measured, the error and whether it is inside the case's\n"
		 "tolerance, then cases inside tolerance, median |error| and the worst five.\n"
		 "CASE is a case id or file; GLOB matches ids (\"ebs-*\"); tag:TAG the cases\n"
		 "carrying TAG. Workload cases with a DLIO run predict it in virtual time.\n",
	.opts = vopts,
	.max_pos = -1,
};

/* Whether case @c can run here, and if not what it needs. */
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
			       k ? "" : r->c->fits ? "fits" : "checks", f->fig->name, m, p,
			       f->fig->unit, e, t, ts_fig_status_name(f->st));
		}
	}
	if (s->not_runnable) {
		printf("\nnot runnable yet (counted apart, never as passing):\n");
		for (size_t i = 0; i < n; i++)
			if (rows[i].needs)
				printf("  %-40s %-8s not runnable yet: needs %s\n", rows[i].c->id,
				       ts_case_level_name(rows[i].c->level), rows[i].needs);
	}
	printf("\nsummary: %zu checking cases ran, %zu inside tolerance, %zu known misses, %zu "
	       "outside tolerance; median |error| %.1f%% over %zu figures\n",
	       s->checks, s->checks_inside, s->known, s->outside, 100 * s->median, s->nerr);
	printf("         %zu fitting cases (%zu reproduced by their profile), %zu not runnable "
	       "yet, %zu failed to run\n",
	       s->fits, s->fits_ok, s->not_runnable, s->failed);
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

static int print_json(struct ts_case_row *rows, size_t n, const struct ts_validate_summary *s, bool real)
{
	json_t *cases = json_array();
	for (size_t i = 0; i < n; i++) {
		struct ts_case_row *r = &rows[i];
		json_t *c = json_pack("{s:s, s:s, s:s, s:s}", "id", r->c->id, "level",
				      ts_case_level_name(r->c->level), "role",
				      r->c->fits ? "fits" : "checks", "source", r->c->source);
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
	json_t *root = json_pack(
		"{s:o, s:{s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:I}}", "cases", cases, "summary",
		"checking_cases", (json_int_t)s->checks, "inside_tolerance",
		(json_int_t)s->checks_inside, "known_misses", (json_int_t)s->known,
		"outside_tolerance", (json_int_t)s->outside, "median_abs_error", s->median,
		"fitting_cases", (json_int_t)s->fits, "fits_reproduced", (json_int_t)s->fits_ok,
		"not_runnable", (json_int_t)s->not_runnable, "failed", (json_int_t)s->failed);
	if (!root)
		return -ENOMEM;
	int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) ? -EIO : 0;
	putchar('\n');
	json_decref(root);
	return rc;
}

/* ---- The command ------------------------------------------------------------ */

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
	bool have_glob = false;

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
	struct ts_validate_summary s;
	size_t nworst;
	if (!errs || !worst) {
		free(errs);
		free(worst);
		goto out;
	}
	ts_validate_summarize(rows, nrows, &s, errs, worst, &nworst);
	if (v.json) {
		if (print_json(rows, nrows, &s, v.run.real))
			fprintf(stderr, "tiersim validate: cannot write the JSON\n");
	} else {
		print_text(rows, nrows, &s, worst, nworst, v.run.real);
	}
	free(errs);
	free(worst);
	ret = ts_validate_passed(&s) ? TS_EXIT_OK : TS_EXIT_FAIL;
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
	if (have_glob)
		globfree(&g);
	ts_opt_free(vopts, &v);
	return ret;
}
