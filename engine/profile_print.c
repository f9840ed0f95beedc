/*
 * profile_print.c — the sim backend's profiles as `tiersim engines` lists
 * them: the GPUs, frameworks and networks with how many published figures
 * each has, or every published figure with its evidence (label, range,
 * case and source), the columns `tiersim tiers --evidence` gives a tier.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/profile.h"

/* How many anchors name @gpu, @fw or @model (whichever is not NULL). */
static size_t anchors_of(const struct ts_profiles *p, const struct ts_prof_gpu *gpu,
			 const struct ts_prof_fw *fw, const struct ts_prof_model *model)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nanchors; i++) {
		const struct ts_prof_anchor *a = &p->anchors[i];
		n += (!gpu || ts_prof_gpu_find(p, a->gpu) == gpu) &&
		     (!fw || ts_prof_fw_find(p, a->framework) == fw) &&
		     (!model || ts_prof_model_find(p, a->model) == model);
	}
	return n;
}

static void fmt_tflops(char *buf, size_t n, double v)
{
	if (v > 0)
		snprintf(buf, n, "%.4g", v);
	else
		snprintf(buf, n, "-");
}

static int print_table(FILE *f, const struct ts_profiles *p)
{
	fprintf(f, "%-11s %7s %7s %7s %7s %6s  %-8s %7s\n", "gpu", "MiB", "FP32", "TF32",
		"FP16", "GB/s", "link", "anchors");
	for (size_t i = 0; i < p->ngpus; i++) {
		const struct ts_prof_gpu *g = &p->gpus[i];
		char t32[16], t16[16];
		fmt_tflops(t32, sizeof(t32), g->tf32_tflops);
		fmt_tflops(t16, sizeof(t16), g->fp16_tflops);
		fprintf(f, "%-11s %7.0f %7.4g %7s %7s %6.0f  %-8s %7zu\n", g->name, g->usable_mib,
			g->fp32_tflops, t32, t16, g->mem_gbs, g->link, anchors_of(p, g, NULL, NULL));
	}
	fprintf(f, "\n%-16s %-9s %7s  %s\n", "framework", "precision", "anchors", "efficiency");
	for (size_t i = 0; i < p->nfws; i++) {
		const struct ts_prof_fw *w = &p->fws[i];
		size_t n = anchors_of(p, NULL, w, NULL);
		fprintf(f, "%-16s %-9s %7zu  %s%s\n", w->name, w->precision, n,
			n ? "fitted on its anchors" : *w->efficiency_as ? "as " : "the average",
			n ? "" : w->efficiency_as);
	}
	fprintf(f, "\n%-16s %-16s %7s %7s\n", "model", "netdef", "b_half", "anchors");
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct ts_prof_model *m = &p->models[i];
		fprintf(f, "%-16s %-16s %7.3g %7zu\n", m->name, m->netdef, m->b_half,
			anchors_of(p, NULL, NULL, m));
	}
	size_t oom = 0;
	for (size_t i = 0; i < p->nchecks; i++)
		oom += p->checks[i].oom;
	fprintf(f, "\nTFLOPS peak, MiB usable; %zu published throughputs (anchors), %zu multi-GPU "
		   "and %zu memory checks:\n'tiersim engines --evidence' lists each with its "
		   "label and source.\n",
		p->nanchors, p->nchecks - oom, oom);
	return 0;
}

/* One figure: an anchor's or a check's range is factors (x0.9-x1.1), a
 * declaration number's bounds (0.5-1); with it the end of the range that
 * --band's slow end takes (ts_prof_band_dir of @kind @key: low, high, or
 * kept for a memory figure), "-" for none (a check is not run). */
static int ev_line(FILE *f, const char *kind, const char *key, const char *what,
		   const char *value, const struct ts_luadata_ev *ev, bool bounds)
{
	char range[40] = "-";
	const char *slow = "-";
	enum ts_prof_band dir;
	if (ev->has_range) {
		snprintf(range, sizeof(range), bounds ? "%.4g-%.4g" : "x%.3g-x%.3g", ev->lo,
			 ev->hi);
		if (key && ts_prof_band_dir(kind, key, &dir) == 0)
			slow = dir == TS_PROF_BAND_SLOW_LOW ? "low"
			     : dir == TS_PROF_BAND_SLOW_HIGH ? "high" : "kept";
	}
	return fprintf(f, "%-9s %-52s %-16s %-9s %-11s %-5s %-6s %s\n", kind, what, value,
		       ts_luadata_label_name(ev->label), range, slow,
		       ev->fit_case ? ev->fit_case : "-", ev->source) < 0
		       ? -EIO
		       : 0;
}

static int print_evidence(FILE *f, const struct ts_profiles *p)
{
	int rc = 0;
	fprintf(f, "%-9s %-52s %-16s %-9s %-11s %-5s %-6s %s\n", "figure", "of", "value", "label",
		"range", "slow", "case", "source");
	for (size_t i = 0; i < p->nfigs && !rc; i++) {
		const struct ts_prof_fig *g = &p->figs[i];
		char what[2 * TS_PROF_NAME + 2], v[40];
		snprintf(what, sizeof(what), "%s %s", g->of, g->key);
		snprintf(v, sizeof(v), "%.10g", g->ev.value);
		rc = ev_line(f, g->kind, g->key, what, v, &g->ev, true);
	}
	for (size_t i = 0; i < p->nanchors && !rc; i++) {
		const struct ts_prof_anchor *a = &p->anchors[i];
		char what[256], v[40];
		snprintf(what, sizeof(what), "%s %s %s %s %s b%.0f", a->framework, a->model, a->gpu,
			 a->mode, a->precision, a->batch);
		snprintf(v, sizeof(v), "%.5g/s", a->value);
		rc = ev_line(f, "anchor", "value", what, v, &a->ev, false);
	}
	for (size_t i = 0; i < p->nchecks && !rc; i++) {
		const struct ts_prof_check *k = &p->checks[i];
		char what[256], v[40];
		if (k->oom) {
			snprintf(what, sizeof(what), "%s %s %s %s b%.0f", k->framework, k->model,
				 k->gpu, k->mode, k->batch);
			snprintf(v, sizeof(v), "OOM (b%.0f fits)", k->fits);
		} else {
			snprintf(what, sizeof(what), "%s %s %s x%.0f %s b%.0f", k->framework,
				 k->model, k->gpu, k->gpus, k->precision, k->batch);
			snprintf(v, sizeof(v), "%.5g/s +-%.0f%%", k->value, k->tol * 100);
		}
		rc = ev_line(f, k->oom ? "oom" : "scaling", NULL, what, v, &k->ev, false);
	}
	return rc;
}

int ts_profiles_print(FILE *f, const struct ts_profiles *p, bool evidence)
{
	int rc = evidence ? print_evidence(f, p) : print_table(f, p);
	return rc ? rc : fflush(f) ? -EIO : 0;
}
