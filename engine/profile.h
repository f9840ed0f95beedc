/*
 * profile.h — the sim backend's profiles (engine/profiles/ (Lua)) loaded
 * into C: GPUs, links, networks, frameworks and the published anchors, plus
 * the efficiency fit that fills in where nothing is published.
 */
#ifndef TS_ENGINE_PROFILE_H
#define TS_ENGINE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/ts.h"
#include "luadata/luadata.h"

#define TS_PROF_NAME 48
#define TS_PROF_ALIASES 4

struct ts_prof_gpu {
	char name[TS_PROF_NAME], aliases[TS_PROF_ALIASES][TS_PROF_NAME];
	char link[TS_PROF_NAME], efficiency_as[TS_PROF_NAME];
	double mem_gib, usable_mib, fp32_tflops, tf32_tflops, fp16_tflops, mem_gbs;
};

struct ts_prof_link {
	char name[TS_PROF_NAME];
	double bw_gbs, lat_us;
};

struct ts_prof_model {
	char name[TS_PROF_NAME], aliases[TS_PROF_ALIASES][TS_PROF_NAME];
	char netdef[TS_PROF_NAME], unit[16];
	double params, gmacs, b_half; /* params/gmacs 0 = not published */
};

struct ts_prof_fw {
	char name[TS_PROF_NAME], aliases[TS_PROF_ALIASES][TS_PROF_NAME];
	char precision[8], efficiency_as[TS_PROF_NAME];
	double context_mib, state_copies, act_train;
	double act_infer; /* < 0: all layer outputs kept */
	double allreduce_eff; /* for links not in eff_link */
	struct {
		char link[TS_PROF_NAME];
		double eff;
	} eff_link[8];
	int neff_link;
	double allreduce_gbs; /* cap on the exchange rate, GB/s; 0 = none */
	double overlap, sync_ms, jitter_p99;
};

/* A published throughput: samples/s of one GPU at a batch. Its evidence
 * is luadata's schema in its factor form (evidence = { LABEL, "source",
 * case = , range = { LO, HI } }), the range being the factors an assumed
 * figure may be off by. */
struct ts_prof_anchor {
	char framework[TS_PROF_NAME], model[TS_PROF_NAME], gpu[TS_PROF_NAME];
	char mode[8], precision[8];
	double batch, value;
	/* value at the band end: times its range's low or high factor (the
	 * efficiency fit keeps value: through the fit's means a figure moves
	 * the other combinations either way, so only its own curve takes it) */
	double band_value;
	bool moved; /* a band end moved it */
	struct ts_luadata_ev ev;
};

/* A figure the model is checked against, not fitted to (tests/engine):
 * scaling { } = samples/s of @gpus GPUs together, within @tol; oom { } =
 * @batch did not fit in the GPU's memory and @fits did. */
struct ts_prof_check {
	bool oom;
	char framework[TS_PROF_NAME], model[TS_PROF_NAME], gpu[TS_PROF_NAME];
	char mode[8], precision[8];
	double batch, gpus, value, tol, fits;
	struct ts_luadata_ev ev;
};

/* The evidence of one number of a gpu, link, model or framework
 * declaration: luadata's schema in its value form, { VALUE, LABEL,
 * "source", low = , high = }. A user's profile may still write a bare
 * number; it is kept with label TS_LUADATA_NONE and its file:line as the
 * source (the shipped profiles may not). */
struct ts_prof_fig {
	const char *kind; /* "gpu", "link", "model", "framework" */
	char of[TS_PROF_NAME], key[TS_PROF_NAME];
	struct ts_luadata_ev ev;
	double used; /* the value in effect: ev.value, or its low or high at a band end */
};

/* --band: which end of a ranged number is the slow one. Every number a
 * declaration may hold has one (profile.c's table beside the keys; a key
 * without one is a load error). */
enum ts_prof_band {
	TS_PROF_BAND_KEEP,	/* memory only (the OOM check): its value at both ends */
	TS_PROF_BAND_SLOW_LOW,	/* a speed: the low end is the slow one */
	TS_PROF_BAND_SLOW_HIGH, /* a cost: the high end is the slow one */
};

/* The direction of @key ("allreduce_eff.LINK" as allreduce_eff) of a
 * declaration of @kind ("gpu", "link", "model", "framework", "anchor" for
 * an anchor's value): 0, or -ENOENT where the table has none. */
TS_WUR int ts_prof_band_dir(const char *kind, const char *key, enum ts_prof_band *out);

struct ts_profiles {
	struct ts_prof_gpu *gpus;
	struct ts_prof_link *links;
	struct ts_prof_model *models;
	struct ts_prof_fw *fws;
	struct ts_prof_anchor *anchors;
	struct ts_prof_check *checks;
	struct ts_prof_fig *figs; /* in file order, those replaced by name dropped */
	size_t ngpus, nlinks, nmodels, nfws, nanchors, nchecks, nfigs;
	int band_end; /* -1 slow, +1 fast: ranged numbers at that end (--band); 0 their values */
	/* log-efficiency fit: log(achieved / peak) = mu + a_model + a_fw + a_gpu + a_prec */
	double mu, *a_model, *a_fw, *a_gpu, a_prec[3];
	bool *seen_model, *seen_fw, *seen_gpu; /* has anchors of its own */
};

/* Load the built-in profiles and then @extra (NULL or "" = none); later
 * entries with the same name replace earlier ones, anchors add up. */
TS_WUR int ts_profiles_load(const char *extra, struct ts_profiles **out, char *err,
			    size_t errlen);
/* The same at a band end (@band_end -1 slow, +1 fast, 0 = ts_profiles_load):
 * every ranged number (an anchor's value too) at its low or high, whichever
 * ts_prof_band_dir says is that end; memory figures keep their values. */
TS_WUR int ts_profiles_load_band(const char *extra, int band_end, struct ts_profiles **out,
				 char *err, size_t errlen);
void ts_profiles_free(struct ts_profiles *p);

/* Leave out the anchors of one combination (framework, model, GPU, mode,
 * precision), every batch or only @batch when it is > 0, and fit the
 * efficiency again without them; *@dropped says how many went. */
TS_WUR int ts_profiles_hold_out(struct ts_profiles *p, const struct ts_prof_fw *f,
				const struct ts_prof_model *m, const struct ts_prof_gpu *g,
				const char *mode, int prec, double batch, size_t *dropped,
				char *err, size_t errlen);

const struct ts_prof_gpu *ts_prof_gpu_find(const struct ts_profiles *p, const char *name);
const struct ts_prof_link *ts_prof_link_find(const struct ts_profiles *p, const char *name);
const struct ts_prof_model *ts_prof_model_find(const struct ts_profiles *p, const char *name);
const struct ts_prof_fw *ts_prof_fw_find(const struct ts_profiles *p, const char *name);

/* The framework's allreduce efficiency on link @link. */
double ts_prof_fw_allreduce_eff(const struct ts_prof_fw *f, const char *link);

/* Index of a precision name: 0 fp32, 1 tf32, 2 amp; -1 unknown. */
int ts_prof_precision(const char *name);
/* Peak FLOP/s of @g at precision index @prec (falls back to FP32). */
double ts_prof_peak(const struct ts_prof_gpu *g, int prec);
/* The model's saturation batch on GPU @g: b_half (fitted on a V100) scaled
 * by the FP32 peak of @g over the V100's (both from gpus.lua). */
double ts_prof_b_half(const struct ts_profiles *p, const struct ts_prof_model *m,
		      const struct ts_prof_gpu *g);

/* The profiles as a table (GPUs, frameworks, models, how many figures),
 * or with @evidence every published figure with its label, range, the end
 * of it --band's slow end takes, case and source, as `tiersim tiers
 * --evidence` lists a tier's. 0 or -EIO. */
TS_WUR int ts_profiles_print(FILE *f, const struct ts_profiles *p, bool evidence);

#endif
