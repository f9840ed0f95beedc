/*
 * sim.c — the sim engine backend: step times from published throughputs,
 * a compute model where none is published, a GPU memory model that fails
 * with OOM where the real frameworks did, and a ring-allreduce model for
 * data-parallel GPUs. All parameters are data in engine/profiles/ (Lua).
 *
 * Throughput of one GPU at batch b follows a saturating curve,
 *     X(b) = X_max * b / (b + b_half),
 * i.e. a step costs a fixed part (launches, per-step host work) plus a part
 * proportional to the batch — why small batches underuse a GPU. Where the
 * profiles hold published figures for this exact combination (framework,
 * network, GPU, mode, precision), X_max is their geometric-mean fit and a
 * correction factor, interpolated in log(batch) between them, makes the
 * curve pass through every one: the published figures come out exactly.
 * Elsewhere X_max = peak FLOP/s x fitted efficiency / FLOPs per sample
 * (profile.c) and the output says "modeled".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/engine_int.h"
#include "engine/netdef.h"
#include "engine/profile.h"

#define MAX_ANCH 64

struct sim {
	struct ts_profiles *prof;
	const struct ts_prof_model *m;
	const struct ts_prof_fw *f;
	const struct ts_prof_gpu *g;
	const struct ts_prof_link *link;
	int prec;
	struct ts_net *net;
	double bh, xmax, flops;
	size_t nanch;
	double ab[MAX_ANCH], acorr[MAX_ANCH];
	const char *asrc;
	double *grad_bytes, *grad_ready; /* per layer, in backward order */
	int ngrad;
	double comm_s;		  /* exposed communication per full step */
	double sigma, mean_scale; /* lognormal jitter, scaled to mean 1 */
};

static double curve(const struct sim *s, double b)
{
	return s->xmax * b / (b + s->bh);
}

/* Correction factor at batch b: piecewise linear in log(b) through the
 * anchors, flat beyond the first and the last. */
static double correction(const struct sim *s, double b)
{
	if (s->nanch == 0)
		return 1.0;
	if (b <= s->ab[0])
		return s->acorr[0];
	for (size_t i = 1; i < s->nanch; i++) {
		if (b <= s->ab[i]) {
			double t = log(b / s->ab[i - 1]) / log(s->ab[i] / s->ab[i - 1]);
			return s->acorr[i - 1] + t * (s->acorr[i] - s->acorr[i - 1]);
		}
	}
	return s->acorr[s->nanch - 1];
}

/* Samples/s of one GPU at batch b. */
static double throughput(const struct sim *s, double b)
{
	return curve(s, b) * correction(s, b);
}

static size_t idx_as(const void *base, const void *elem, size_t size)
{
	return (size_t)((const char *)elem - (const char *)base) / size;
}

static double efficiency(const struct sim *s)
{
	const struct ts_profiles *p = s->prof;
	const struct ts_prof_fw *f = s->f;
	const struct ts_prof_gpu *g = s->g;
	/* an entry without anchors of its own may borrow another's factor */
	if (!p->seen_fw[idx_as(p->fws, f, sizeof(*f))] && *f->efficiency_as &&
	    ts_prof_fw_find(p, f->efficiency_as))
		f = ts_prof_fw_find(p, f->efficiency_as);
	if (!p->seen_gpu[idx_as(p->gpus, g, sizeof(*g))] && *g->efficiency_as &&
	    ts_prof_gpu_find(p, g->efficiency_as))
		g = ts_prof_gpu_find(p, g->efficiency_as);
	return exp(p->mu + p->a_model[idx_as(p->models, s->m, sizeof(*s->m))] +
		   p->a_fw[idx_as(p->fws, f, sizeof(*f))] +
		   p->a_gpu[idx_as(p->gpus, g, sizeof(*g))] + p->a_prec[s->prec]);
}

static bool same(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* Collect this combination's anchors, sorted by batch; fit X_max to them. */
static void anchor_curve(struct sim *s, const char *mode)
{
	const struct ts_profiles *p = s->prof;
	for (size_t k = 0; k < p->nanchors; k++) {
		const struct ts_prof_anchor *a = &p->anchors[k];
		if (ts_prof_fw_find(p, a->framework) != s->f ||
		    ts_prof_model_find(p, a->model) != s->m || ts_prof_gpu_find(p, a->gpu) != s->g ||
		    !same(a->mode, mode) || ts_prof_precision(a->precision) != s->prec)
			continue;
		size_t i = 0;
		while (i < s->nanch && s->ab[i] < a->batch)
			i++;
		if (i < s->nanch && s->ab[i] == a->batch) {
			s->acorr[i] = a->band_value; /* a later profile replaces the figure */
		} else if (s->nanch < MAX_ANCH) {
			memmove(&s->ab[i + 1], &s->ab[i], (s->nanch - i) * sizeof(double));
			memmove(&s->acorr[i + 1], &s->acorr[i], (s->nanch - i) * sizeof(double));
			s->ab[i] = a->batch;
			s->acorr[i] = a->band_value;
			s->nanch++;
		}
		s->asrc = a->ev.source;
	}
	if (!s->nanch)
		return;
	double lsum = 0;
	for (size_t i = 0; i < s->nanch; i++)
		lsum += log(s->acorr[i] * (s->ab[i] + s->bh) / s->ab[i]);
	s->xmax = exp(lsum / (double)s->nanch);
	for (size_t i = 0; i < s->nanch; i++)
		s->acorr[i] /= curve(s, s->ab[i]);
}

/* Bytes one GPU needs: weights (and their gradients and momentum in
 * training), activations per sample x batch, and the framework's context. */
static double memory_needed(const struct sim *s, bool train, double batch)
{
	const struct ts_net *n = s->net;
	double act_bytes = s->prec == 2 ? 2.0 : 4.0;
	double w = (double)(train ? n->params : n->params_infer) * 4.0 *
		   (train ? s->f->state_copies : 1.0);
	double act;
	if (train)
		act = s->f->act_train * (double)n->act_train;
	else if (s->f->act_infer < 0)
		act = (double)n->act_infer;
	else
		act = s->f->act_infer * (double)n->act_max_pair;
	return s->f->context_mib * TS_MiB + w + act * act_bytes * batch;
}

/*
 * The gradient timeline of backward: layers in reverse order, each taking a
 * share of the backward time proportional to its multiply-adds, each
 * gradient ready when its layer is done. An LSTM's gradients are summed over
 * all time steps, so they are all ready only at the end.
 */
static int grad_timeline(struct sim *s)
{
	const struct ts_net *n = s->net;
	int cnt = n->kind == TS_NET_CNN ? n->nlayers : 1;
	s->grad_bytes = calloc((size_t)cnt, sizeof(double));
	s->grad_ready = calloc((size_t)cnt, sizeof(double));
	if (!s->grad_bytes || !s->grad_ready)
		return -ENOMEM;
	if (n->kind != TS_NET_CNN) {
		s->grad_bytes[0] = (double)n->params * 4.0;
		s->grad_ready[0] = 1.0;
		s->ngrad = 1;
		return 0;
	}
	double cum = 0;
	for (int k = n->nlayers - 1; k >= 0; k--) {
		const struct ts_layer *l = &n->layers[k];
		uint64_t p = ts_layer_params(n, l);
		cum += (double)ts_layer_macs(n, l);
		if (!p)
			continue;
		s->grad_bytes[s->ngrad] = (double)p * 4.0; /* FP32 gradients */
		s->grad_ready[s->ngrad++] = cum;
	}
	for (int i = 0; i < s->ngrad; i++)
		s->grad_ready[i] /= cum > 0 ? cum : 1;
	return 0;
}

/*
 * Exposed communication of one data-parallel training step. A ring
 * allreduce moves 2(n-1)/n of the gradient bytes over each GPU's link in
 * 2(n-1) hops. With overlap 1 each layer's exchange starts as soon as its
 * gradient is ready and the link is free (layer-wise reduction), and only
 * what runs past the end of backward is exposed; with overlap 0 the whole
 * exchange follows backward; in between, the mix. Backward takes 2/3 of a
 * training step (it computes gradients for inputs and for weights).
 */
static double comm_exposed(const struct sim *s, uint64_t n, double compute_s)
{
	if (n < 2)
		return 0;
	double hops = 2.0 * (double)(n - 1);
	double bw = s->link->bw_gbs * ts_prof_fw_allreduce_eff(s->f, s->link->name);
	if (s->f->allreduce_gbs > 0 && s->f->allreduce_gbs < bw)
		bw = s->f->allreduce_gbs; /* the framework, not the link, sets the rate */
	bw *= 1e9;
	double t_bwd = compute_s * 2.0 / 3.0, link = 0, total = 0;
	for (int i = 0; i < s->ngrad; i++) {
		double t = hops / (double)n * s->grad_bytes[i] / bw;
		double ready = s->grad_ready[i] * t_bwd;
		link = (link > ready ? link : ready) + t;
		total += t;
	}
	double layerwise = link > t_bwd ? link - t_bwd : 0;
	double lat = hops * s->link->lat_us * 1e-6;
	return s->f->overlap * layerwise + (1 - s->f->overlap) * total + lat +
	       s->f->sync_ms * 1e-3;
}

/* @name into the list @buf ("a, b"); one that does not fit is left out. */
static void add_name(char *buf, size_t n, const char *name)
{
	size_t used = strlen(buf);
	if (used + strlen(name) + 3 < n)
		snprintf(buf + used, n - used, "%s%s", used ? ", " : "", name);
}

/* Is @f a figure of the @kind declaration named @name? */
static bool fig_of(const struct ts_prof_fig *f, const char *kind, const char *name)
{
	return strcmp(f->kind, kind) == 0 && strcasecmp(f->of, name) == 0;
}

/* A framework figure of the gradient exchange (the others: memory, jitter). */
static bool exchange_key(const char *key)
{
	return strcmp(key, "overlap") == 0 || strcmp(key, "sync_ms") == 0 ||
	       strncmp(key, "allreduce_", 10) == 0;
}

/* Does this run's exchange read exchange figure @key? allreduce_eff.LINK
 * only where LINK is this run's link, the default where it has none. */
static bool exchange_reads(const struct sim *s, const char *key)
{
	if (strncmp(key, "allreduce_eff.", 14))
		return true;
	bool own = false;
	for (int k = 0; k < s->f->neff_link; k++)
		own |= strcasecmp(s->f->eff_link[k].link, s->link->name) == 0;
	return strcasecmp(key + 14, own ? s->link->name : "default") == 0;
}

/* --band: the ranged figures that move at the band's ends and that this run
 * reads, into @buf (the same list at either end).
 * Its GPU's, network's and framework's (the framework's exchange figures
 * and the link's only where a training step exchanges gradients); the
 * anchors its curve passes through; where it is modeled, the b_half and
 * peaks of networks and GPUs with anchors, which move the efficiency fit. */
static void band_names(const struct sim *s, bool train, bool exchange, char *buf, size_t n)
{
	const struct ts_profiles *p = s->prof;
	char name[2 * TS_PROF_NAME + 2];
	buf[0] = 0;
	for (size_t i = 0; i < p->nfigs; i++) {
		const struct ts_prof_fig *f = &p->figs[i];
		enum ts_prof_band dir;
		if (!f->ev.has_range || !(f->ev.lo < f->ev.hi) ||
		    ts_prof_band_dir(f->kind, f->key, &dir) < 0 || dir == TS_PROF_BAND_KEEP)
			continue; /* the same at both ends */
		bool fitted = false; /* a figure of the efficiency fit, for a modeled run */
		if (!s->nanch && strcmp(f->kind, "model") == 0 && strcmp(f->key, "b_half") == 0) {
			const struct ts_prof_model *m = ts_prof_model_find(p, f->of);
			fitted = m && p->seen_model[idx_as(p->models, m, sizeof(*m))];
		} else if (!s->nanch && strcmp(f->kind, "gpu") == 0 && strstr(f->key, "_tflops")) {
			const struct ts_prof_gpu *g = ts_prof_gpu_find(p, f->of);
			fitted = g && p->seen_gpu[idx_as(p->gpus, g, sizeof(*g))];
		}
		bool fw = fig_of(f, "framework", s->f->name);
		bool reads = fitted || fig_of(f, "gpu", s->g->name) || fig_of(f, "model", s->m->name) ||
			     (fw && !exchange_key(f->key)) ||
			     (exchange && fw && exchange_reads(s, f->key)) ||
			     (exchange && fig_of(f, "link", s->link->name));
		if (!reads)
			continue;
		snprintf(name, sizeof(name), "%s %s", f->of, f->key);
		add_name(buf, n, name);
	}
	for (size_t k = 0; k < p->nanchors; k++) {
		const struct ts_prof_anchor *a = &p->anchors[k];
		char an[6 * TS_PROF_NAME];
		if (!a->moved)
			continue;
		bool own = ts_prof_fw_find(p, a->framework) == s->f &&
			   ts_prof_model_find(p, a->model) == s->m &&
			   ts_prof_gpu_find(p, a->gpu) == s->g &&
			   same(a->mode, train ? "train" : "infer") &&
			   ts_prof_precision(a->precision) == s->prec;
		if (!s->nanch || !own)
			continue;
		snprintf(an, sizeof(an), "anchor %s %s %s %s %s b%.0f", a->framework, a->model,
			 a->gpu, a->mode, a->precision, a->batch);
		add_name(buf, n, an);
	}
}

static void sim_free(struct sim *s)
{
	if (!s)
		return;
	ts_net_free(s->net);
	ts_profiles_free(s->prof);
	free(s->grad_bytes);
	free(s->grad_ready);
	free(s);
}

static int lookup(struct ts_engine *e, struct sim *s, char *err, size_t errlen)
{
	const struct ts_engine_cfg *c = &e->cfg;
	s->m = ts_prof_model_find(s->prof, c->model);
	s->f = ts_prof_fw_find(s->prof, c->framework);
	s->g = ts_prof_gpu_find(s->prof, c->gpu);
	if (!s->m || !s->f || !s->g) {
		const char *what = !s->m ? "model" : !s->f ? "framework" : "gpu";
		const char *val = !s->m ? c->model : !s->f ? c->framework : c->gpu;
		size_t used = (size_t)snprintf(err, errlen, "engine option '%s': unknown %s '%s' (known:",
					       what, what, val);
		size_t cnt = !s->m ? s->prof->nmodels : !s->f ? s->prof->nfws : s->prof->ngpus;
		for (size_t i = 0; i < cnt && used < errlen; i++) {
			const char *nm = !s->m ? s->prof->models[i].name
				       : !s->f ? s->prof->fws[i].name : s->prof->gpus[i].name;
			used += (size_t)snprintf(err + used, errlen - used, " %s", nm);
		}
		if (used < errlen)
			snprintf(err + used, errlen - used, ")");
		return TS_E_UNKNOWN;
	}
	const char *prec = *c->precision ? c->precision : s->f->precision;
	s->prec = ts_prof_precision(prec);
	if (s->prec < 0) {
		snprintf(err, errlen, "engine option 'precision': '%s' is not fp32, tf32 or amp", prec);
		return TS_E_PARSE;
	}
	const char *link = *c->link ? c->link : s->g->link;
	s->link = ts_prof_link_find(s->prof, link);
	if (!s->link) {
		snprintf(err, errlen, "engine option 'link': unknown interconnect '%s' (see "
			 "engine/profiles/gpus.lua)", link);
		return TS_E_UNKNOWN;
	}
	int rc = ts_net_build(s->m->netdef, &s->net);
	if (rc < 0) {
		snprintf(err, errlen, "engine model %s: no layer graph '%s'", s->m->name,
			 s->m->netdef);
		return rc == -ENOMEM ? rc : TS_E_PROFILE;
	}
	return 0;
}

/*
 * Why one long function: the engine's set-up in order (profiles, hold-out,
 * anchors or the modeled efficiency, the info it reports, the memory check),
 * each step using what the one before found.
 */
static int sim_init(struct ts_engine *e, char *err, size_t errlen)
{
	struct sim *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "engine: out of memory");
		return -ENOMEM;
	}
	e->priv = s;
	int rc = ts_profiles_load_band(e->cfg.profile, e->cfg.band_end, &s->prof, err, errlen);
	if (rc == 0)
		rc = lookup(e, s, err, errlen);
	if (rc < 0)
		return rc;

	bool train = e->mode == TS_ENGINE_TRAIN;
	double b = (double)e->cfg.batch;
	const char *hold = e->cfg.hold_out ? e->cfg.hold_out : "";
	if (*hold) {
		if (strcmp(hold, "batch") && strcmp(hold, "combination")) {
			snprintf(err, errlen, "engine option 'hold_out': '%s' is not batch or combination",
				 hold);
			return TS_E_PARSE;
		}
		size_t dropped = 0;
		rc = ts_profiles_hold_out(s->prof, s->f, s->m, s->g, train ? "train" : "infer", s->prec,
					  strcmp(hold, "batch") == 0 ? b : 0, &dropped, err, errlen);
		if (rc < 0)
			return rc;
		if (dropped == 0) {
			snprintf(err, errlen,
				 "engine option 'hold_out=%s': no published figure of %s %s on %s (%s, "
				 "%s)%s to hold out",
				 hold, s->f->name, s->m->name, s->g->name, train ? "train" : "infer",
				 s->prec == 0 ? "fp32" : s->prec == 1 ? "tf32" : "amp",
				 strcmp(hold, "batch") == 0 ? " at this batch" : "");
			return TS_E_UNKNOWN;
		}
	}
	struct ts_engine_info *i = &e->info;
	s->bh = ts_prof_b_half(s->prof, s->m, s->g);
	rc = ts_net_flops(s->m->netdef, train, &s->flops);
	if (rc < 0)
		return rc;
	rc = grad_timeline(s);
	if (rc < 0)
		return rc;
	anchor_curve(s, train ? "train" : "infer");
	double eff = 0;
	if (s->nanch == 0) {
		eff = efficiency(s);
		s->xmax = ts_prof_peak(s->g, s->prec) * eff / s->flops;
	}

	snprintf(i->model, sizeof(i->model), "%s", s->m->name);
	snprintf(i->gpu, sizeof(i->gpu), "%s", s->g->name);
	snprintf(i->framework, sizeof(i->framework), "%s", s->f->name);
	snprintf(i->link, sizeof(i->link), "%s", s->link->name);
	snprintf(i->precision, sizeof(i->precision), "%s",
		 s->prec == 0 ? "fp32" : s->prec == 1 ? "tf32" : "amp");
	i->mode = e->mode;
	i->gpus = e->cfg.gpus;
	i->batch = e->cfg.batch;

	if (s->nanch) {
		bool exact = false;
		for (size_t k = 0; k < s->nanch; k++)
			exact |= s->ab[k] == b;
		i->basis = exact ? TS_BASIS_ANCHORED : TS_BASIS_INTERPOLATED;
		if (exact)
			snprintf(i->source, sizeof(i->source), "%s", s->asrc);
		else
			snprintf(i->source, sizeof(i->source), "%s batch %.0f..%.0f of %s",
				 b < s->ab[0] || b > s->ab[s->nanch - 1] ? "extrapolated from"
									 : "interpolated between",
				 s->ab[0], s->ab[s->nanch - 1], s->asrc);
	} else {
		i->basis = TS_BASIS_MODELED;
		snprintf(i->source, sizeof(i->source),
			 "modeled: %.2f GFLOP/sample, peak %.1f TFLOPS %s, fitted efficiency %.3f, "
			 "b_half %.1f (engine/profiles)",
			 s->flops / 1e9, ts_prof_peak(s->g, s->prec) / 1e12, i->precision, eff, s->bh);
	}

	if (*hold) {
		size_t used = strlen(i->source);
		snprintf(i->source + used, sizeof(i->source) - used, "; own figures held out (%s)",
			 hold);
	}

	if (e->cfg.band_end)
		band_names(s, train, train && e->cfg.gpus > 1, i->band, sizeof(i->band));

	double x1 = throughput(s, b);
	double compute_s = b / x1;
	s->comm_s = train ? comm_exposed(s, e->cfg.gpus, compute_s) : 0;
	i->samples_per_s_1gpu = x1;
	i->samples_per_s = b * (double)e->cfg.gpus / (compute_s + s->comm_s);
	i->compute_ns = (uint64_t)llround(compute_s * 1e9);
	i->comm_ns = (uint64_t)llround(s->comm_s * 1e9);
	i->mem_bytes = (uint64_t)memory_needed(s, train, b);
	i->mem_capacity = (uint64_t)(s->g->usable_mib * TS_MiB);
	i->jitter_p99 = s->f->jitter_p99;
	s->sigma = log(s->f->jitter_p99) / TS_Z99;
	s->mean_scale = exp(-s->sigma * s->sigma / 2);

	if (i->mem_bytes > i->mem_capacity) {
		double per = (memory_needed(s, train, b + 1) - memory_needed(s, train, b));
		double fit = floor(((double)i->mem_capacity - memory_needed(s, train, 0)) / per);
		snprintf(err, errlen,
			 "engine: %s %s at batch %.0f needs %.1f GiB on %s (%.1f GiB usable): out of "
			 "GPU memory; the largest batch that fits is about %.0f (framework %s)",
			 s->m->name, train ? "training" : "inference", b,
			 (double)i->mem_bytes / TS_GiB, s->g->name,
			 (double)i->mem_capacity / TS_GiB, fit > 0 ? fit : 0, s->f->name);
		return TS_E_GPU_OOM;
	}
	return 0;
}

static int sim_step(struct ts_engine *e, uint64_t samples, uint64_t *compute_ns,
		    uint64_t *comm_ns)
{
	struct sim *s = e->priv;
	double j = s->sigma > 0 ? exp(s->sigma * ts_rng_normal(&e->rng)) * s->mean_scale : 1.0;
	double t = samples == e->cfg.batch ? (double)e->info.compute_ns
					   : (double)samples / throughput(s, (double)samples) * 1e9;
	*compute_ns = (uint64_t)llround(t * j);
	*comm_ns = e->info.comm_ns;
	return 0;
}

static void sim_cleanup(struct ts_engine *e)
{
	sim_free(e->priv);
	e->priv = NULL;
}

const struct ts_engine_ops ts_engine_sim_ops = {
	.name = "sim",
	.version = TS_ENGINE_OPS_VERSION,
	.flags = TS_ENGINE_VIRTUAL,
	.help = "step times from published throughputs and a compute/memory/allreduce model "
		"(engine/profiles/ (Lua))",
	.init = sim_init,
	.step = sim_step,
	.cleanup = sim_cleanup,
};
