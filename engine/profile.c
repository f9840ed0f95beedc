/*
 * profile.c — loading the sim backend's Lua profiles (data files read with
 * luadata/) and fitting the compute efficiency that fills in where no
 * throughput is published.
 *
 * The efficiency fit: every anchor gives the peak throughput its curve
 * implies, X = value x (b + b_half) / b, and from it the fraction of the
 * GPU's peak FLOP/s it achieved, e = X x FLOPs/sample / peak. log e is
 * fitted as mu + a_model + a_framework + a_gpu + a_precision (alternating
 * least squares, i.e. repeated means of the residuals). A combination with
 * no anchor of its own gets the sum of the factors that are known and 0
 * (the average) for the rest — a framework or GPU without anchors of its
 * own may borrow another's factor through efficiency_as.
 */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/paths.h"
#include "luadata/luadata.h"
#include "engine/netdef.h"
#include "engine/profile.h"

static const char *const builtin[] = {
	"engine/profiles/gpus.lua",
	"engine/profiles/models.lua",
	"engine/profiles/frameworks.lua",
	"engine/profiles/anchors.lua",
};

/* The declarations a profile file may make (luadata/luadata.h), with the
 * keys of each. scaling and oom are the multi-GPU and memory checks that
 * tests/engine runs against the model; the sim itself reads the rest.
 * Every published figure (anchor, scaling, oom) carries its evidence in
 * luadata's one schema: evidence = { LABEL, "source", case = , range = }. */
static const char *const gpu_keys[] = { "aliases",     "mem_gib",     "usable_mib",
					"fp32_tflops", "tf32_tflops", "fp16_tflops",
					"mem_gbs",     "link",	      "efficiency_as", NULL };
static const char *const link_keys[] = { "bw_gbs", "lat_us", NULL };
static const char *const model_keys[] = { "aliases", "netdef", "unit", "params",
					  "gmacs",   "b_half", NULL };
static const char *const fw_keys[] = { "aliases",	"precision",	 "efficiency_as",
				       "context_mib",	"state_copies", "act_train",
				       "act_infer",	"allreduce_eff", "allreduce_gbs",
				       "overlap",	"sync_ms",	 "jitter_p99",
				       NULL };
static const char *const anchor_keys[] = { "framework", "model", "gpu",	  "mode",
					   "precision", "batch", "value", "evidence", NULL };
static const char *const scaling_keys[] = { "framework", "model", "gpu",      "precision",
					    "batch",	 "gpus",  "value", "tol",
					    "evidence",	 NULL };
static const char *const oom_keys[] = { "framework", "model", "gpu",	  "mode",
					"batch",     "fits",  "evidence", NULL };

/* --band: for every key above of a gpu, link, model or framework (and an
 * anchor's value), which end of its range is the slow one, from how sim.c
 * uses it; text keys have none. A band end takes the low of a speed and the
 * high of a cost at the slow end, the other at the fast end. Memory figures
 * stay at their values at both ends: they decide only whether a batch fits
 * (the OOM check), and a band end is a run whose samples/s the band reports,
 * so an end that did not fit where the nominal run does would leave the band
 * one-sided. A key missing here is refused at load (fields_check). */
#define SPEED TS_PROF_BAND_SLOW_LOW
#define COST TS_PROF_BAND_SLOW_HIGH
#define MEMORY TS_PROF_BAND_KEEP
static const struct field {
	const char *kind, *key;
	bool text;
	enum ts_prof_band slow;
} fields[] = {
	{ "gpu", "aliases", .text = true },
	{ "gpu", "link", .text = true },
	{ "gpu", "efficiency_as", .text = true },
	{ "gpu", "mem_gib", false, MEMORY },	 /* usable_mib's default */
	{ "gpu", "usable_mib", false, MEMORY }, /* the OOM check's capacity */
	/* the peaks: X_max of the compute model (fp32_tflops also scales b_half
	 * from the V100's, the smaller effect) */
	{ "gpu", "fp32_tflops", false, SPEED },
	{ "gpu", "tf32_tflops", false, SPEED },
	{ "gpu", "fp16_tflops", false, SPEED },
	{ "gpu", "mem_gbs", false, SPEED }, /* a bandwidth (listed; the sim does not read it) */
	{ "link", "bw_gbs", false, SPEED },  /* the ring's rate */
	{ "link", "lat_us", false, COST },   /* x 2(n-1) hops per step */
	{ "model", "aliases", .text = true },
	{ "model", "netdef", .text = true },
	{ "model", "unit", .text = true },
	/* published counts netdef.c's graphs are checked against (more work is
	 * slower; the sim counts its own) */
	{ "model", "params", false, COST },
	{ "model", "gmacs", false, COST },
	/* X(b) = X_max b / (b + b_half): a larger b_half is slower at any batch
	 * where X_max is not fitted on the network's own anchors (a ranged
	 * b_half is one borrowed where no batch table is published) */
	{ "model", "b_half", false, COST },
	{ "framework", "aliases", .text = true },
	{ "framework", "precision", .text = true },
	{ "framework", "efficiency_as", .text = true },
	{ "framework", "context_mib", false, MEMORY },
	{ "framework", "state_copies", false, MEMORY },
	{ "framework", "act_train", false, MEMORY },
	{ "framework", "act_infer", false, MEMORY },
	{ "framework", "allreduce_eff", false, SPEED }, /* x the link's rate */
	{ "framework", "allreduce_gbs", false, SPEED }, /* a cap on the rate */
	{ "framework", "overlap", false, SPEED },	 /* exchange hidden behind backward */
	{ "framework", "sync_ms", false, COST },	 /* per multi-GPU step */
	/* the mean step stays; a wider spread can only add stalls */
	{ "framework", "jitter_p99", false, COST },
	{ "anchor", "value", false, SPEED }, /* samples/s; its range is factors */
};
#undef SPEED
#undef COST
#undef MEMORY

enum kind { K_GPU, K_LINK, K_MODEL, K_FRAMEWORK, K_ANCHOR, K_SCALING, K_OOM };
static const struct ts_luadata_kind kinds[] = {
	[K_GPU] = { .name = "gpu", .named = true, .keys = gpu_keys },
	[K_LINK] = { .name = "link", .named = true, .keys = link_keys },
	[K_MODEL] = { .name = "model", .named = true, .keys = model_keys },
	[K_FRAMEWORK] = { .name = "framework", .named = true, .keys = fw_keys },
	[K_ANCHOR] = { .name = "anchor", .keys = anchor_keys },
	[K_SCALING] = { .name = "scaling", .keys = scaling_keys },
	[K_OOM] = { .name = "oom", .keys = oom_keys },
	{ NULL },
};

int ts_prof_band_dir(const char *kind, const char *key, enum ts_prof_band *out)
{
	size_t n = strcspn(key, "."); /* allreduce_eff.LINK */
	for (size_t i = 0; i < TS_ARRAY_SIZE(fields); i++) {
		const struct field *f = &fields[i];
		if (!f->text && strcmp(f->kind, kind) == 0 && strlen(f->key) == n &&
		    strncmp(f->key, key, n) == 0) {
			*out = f->slow;
			return 0;
		}
	}
	return -ENOENT;
}

/* Every key of a gpu, link, model or framework declaration is in fields[],
 * so a number cannot be added without saying which end is slow. */
static int fields_check(char *err, size_t errlen)
{
	for (int k = K_GPU; k <= K_FRAMEWORK; k++) {
		for (const char *const *key = kinds[k].keys; *key; key++) {
			bool found = false;
			for (size_t i = 0; i < TS_ARRAY_SIZE(fields) && !found; i++)
				found = strcmp(fields[i].kind, kinds[k].name) == 0 &&
					strcmp(fields[i].key, *key) == 0;
			if (!found) {
				snprintf(err, errlen,
					 "engine profiles: %s key '%s' has no --band direction "
					 "(engine/profile.c fields[])",
					 kinds[k].name, *key);
				return TS_E_PROFILE;
			}
		}
	}
	return 0;
}

/* At band end @end (-1 slow, +1 fast), does a number of direction @dir take
 * its high (else its low)? */
static bool band_high(enum ts_prof_band dir, int end)
{
	return (end < 0) == (dir == TS_PROF_BAND_SLOW_HIGH);
}

/* Reading one declaration's table. */
struct lctx {
	lua_State *L;
	struct ts_luadata *d;
	struct ts_luadata_decl decl;
	bool shipped; /* one of builtin[]: every number labelled */
	char *err;
	size_t errlen;
};

#define FAIL(...) ts_luadata_error(c->d, &c->decl, c->err, c->errlen, __VA_ARGS__)

/* A string key: luadata's typed getter (a wrong type or one too long is
 * refused, naming the file and line). */
static int get_str(struct lctx *c, int t, const char *k, char *out, size_t n)
{
	return ts_luadata_get_str(c->d, &c->decl, t, k, out, n, c->err, c->errlen);
}

static int get_num(struct lctx *c, int t, const char *k, double def, double *out)
{
	bool had;
	int rc = ts_luadata_get_num(c->d, &c->decl, t, k, &had, out, c->err, c->errlen);
	if (!rc && !had)
		*out = def;
	return rc;
}

/* aliases = { "name", ... }: strings, at most TS_PROF_ALIASES. */
static int get_aliases(struct lctx *c, int t, char al[][TS_PROF_NAME])
{
	lua_State *L = c->L;
	int ty = lua_getfield(L, t, "aliases"), rc = 0;
	size_t n = ty == LUA_TTABLE ? lua_rawlen(L, -1) : 0;

	if (ty != LUA_TNIL && ty != LUA_TTABLE)
		rc = FAIL("aliases is a %s, not a list of names", lua_typename(L, ty));
	else if (n > TS_PROF_ALIASES)
		rc = FAIL("aliases: %zu names, at most %d", n, TS_PROF_ALIASES);
	for (size_t i = 0; i < n && !rc; i++) {
		lua_rawgeti(L, -1, (lua_Integer)i + 1);
		if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) >= TS_PROF_NAME)
			rc = FAIL("aliases[%zu] is not a name (a string under %d bytes)", i + 1,
				  TS_PROF_NAME);
		else
			snprintf(al[i], TS_PROF_NAME, "%s", lua_tostring(L, -1));
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return rc;
}

/* Grow-or-replace by name: returns the slot for an entry named @name. */
static void *slot(void **arr, size_t *n, size_t size, const char *name)
{
	for (size_t i = 0; name && i < *n; i++)
		if (strcasecmp((char *)*arr + i * size, name) == 0)
			return memset((char *)*arr + i * size, 0, size);
	void *a = realloc(*arr, (*n + 1) * size);
	if (!a)
		return NULL;
	*arr = a;
	return memset((char *)a + (*n)++ * size, 0, size);
}

#define TRY(call)                                                              \
	do {                                                                   \
		if ((rc = (call)) < 0)                                         \
			return rc;                                             \
	} while (0)

#define NUM(field, key, def) TRY(get_num(c, t, key, def, &(field)))
#define FIG(field, key, def) TRY(fig_num(c, p, t, key, def, &(field)))

/* The number at stack index @idx, the value of @key of the declaration
 * being read, into *@out, its evidence into @p->figs: { VALUE, LABEL,
 * "source", low = , high = }, luadata's value form as host profiles write
 * it (a wrong type, a missing label or source, an assumed value without
 * low and high: refused naming the file and line). A bare number is
 * refused in the shipped profiles; from a user's it is kept unlabelled,
 * its file:line for a source. */
static int fig_at(struct lctx *c, struct ts_profiles *p, int idx, const char *key, double *out)
{
	struct ts_luadata_ev ev = { 0 };
	int rc;
	if (lua_type(c->L, idx) == LUA_TNUMBER && !c->shipped) {
		ev.value = lua_tonumber(c->L, idx);
		ev.lo = ev.hi = ev.value;
		if (!(ev.source = ts_luadata_where(c->d, &c->decl)))
			return -ENOMEM;
	} else if ((rc = ts_luadata_get_ev(c->d, &c->decl, idx, key, TS_LUADATA_EV_VALUE, NULL,
					   &ev, c->err, c->errlen)) < 0) {
		return rc;
	}
	enum ts_prof_band dir;
	if (ts_prof_band_dir(c->decl.kind->name, key, &dir) < 0) {
		ts_luadata_ev_free(&ev);
		return FAIL("%s has no --band direction (engine/profile.c fields[])", key);
	}
	struct ts_prof_fig *f = realloc(p->figs, (p->nfigs + 1) * sizeof(*f));
	if (!f) {
		ts_luadata_ev_free(&ev);
		return -ENOMEM;
	}
	p->figs = f;
	f += p->nfigs++;
	f->kind = c->decl.kind->name;
	snprintf(f->of, sizeof(f->of), "%s", c->decl.name ? c->decl.name : "");
	snprintf(f->key, sizeof(f->key), "%s", key);
	f->ev = ev;
	f->used = ev.value;
	if (p->band_end && ev.has_range && dir != TS_PROF_BAND_KEEP)
		f->used = band_high(dir, p->band_end) ? ev.hi : ev.lo;
	*out = f->used;
	return 0;
}

/* The number at @key of the table at @t (fig_at), @def when not set. */
static int fig_num(struct lctx *c, struct ts_profiles *p, int t, const char *key, double def,
		   double *out)
{
	int rc = 0;
	if (lua_getfield(c->L, t, key) == LUA_TNIL)
		*out = def;
	else
		rc = fig_at(c, p, -1, key, out);
	lua_pop(c->L, 1);
	return rc;
}

/* A declaration of @kind named @name replaces an earlier one: its figures
 * go too. */
static void drop_figs(struct ts_profiles *p, const char *kind, const char *name)
{
	size_t keep = 0;
	for (size_t i = 0; i < p->nfigs; i++) {
		if (strcmp(p->figs[i].kind, kind) == 0 && strcasecmp(p->figs[i].of, name) == 0)
			ts_luadata_ev_free(&p->figs[i].ev);
		else
			p->figs[keep++] = p->figs[i];
	}
	p->nfigs = keep;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* allreduce_eff: a number, or { link = number, ..., default = number },
 * each number as fig_at reads it. */
static int read_eff(struct lctx *c, struct ts_profiles *p, int t, struct ts_prof_fw *f)
{
	lua_State *L = c->L;
	int ty = lua_getfield(L, t, "allreduce_eff"), e = lua_gettop(L), rc = 0;
	f->allreduce_eff = 1.0;
	bool per_link = ty == LUA_TTABLE && lua_rawgeti(L, e, 1) == LUA_TNIL;
	lua_settop(L, e);
	if (ty == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	if (!per_link) {
		rc = fig_at(c, p, e, "allreduce_eff", &f->allreduce_eff);
		lua_pop(L, 1);
		return rc;
	}
	/* The links in name order, not lua_next's (a string hash's order that
	 * differs from run to run): the figures list the same way each time. */
	char links[TS_ARRAY_SIZE(f->eff_link) + 2][TS_PROF_NAME];
	size_t nl = 0;
	lua_pushnil(L);
	while (lua_next(L, e)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) >= TS_PROF_NAME)
			return FAIL("allreduce_eff: a table of link = number with a default");
		if (nl == TS_ARRAY_SIZE(links))
			return FAIL("allreduce_eff names more than %zu links",
				    TS_ARRAY_SIZE(f->eff_link));
		snprintf(links[nl++], TS_PROF_NAME, "%s", lua_tostring(L, -1));
	}
	qsort(links, nl, sizeof(links[0]), by_name);
	f->allreduce_eff = -1;
	for (size_t i = 0; i < nl; i++) {
		char key[TS_PROF_NAME + 16], link[TS_PROF_NAME];
		double v;
		memcpy(link, links[i], sizeof(link));
		lua_getfield(L, e, link);
		snprintf(key, sizeof(key), "allreduce_eff.%s", link);
		if ((rc = fig_at(c, p, lua_gettop(L), key, &v)) < 0)
			return rc;
		if (strcmp(link, "default") == 0) {
			f->allreduce_eff = v;
		} else if (f->neff_link < (int)TS_ARRAY_SIZE(f->eff_link)) {
			snprintf(f->eff_link[f->neff_link].link, TS_PROF_NAME, "%s", link);
			f->eff_link[f->neff_link++].eff = v;
		} else {
			return FAIL("allreduce_eff names more than %zu links",
				    TS_ARRAY_SIZE(f->eff_link));
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	if (f->allreduce_eff < 0)
		return FAIL("allreduce_eff: a table of link = number needs a default");
	return 0;
}

double ts_prof_fw_allreduce_eff(const struct ts_prof_fw *f, const char *link)
{
	for (int k = 0; k < f->neff_link; k++)
		if (strcasecmp(f->eff_link[k].link, link) == 0)
			return f->eff_link[k].eff;
	return f->allreduce_eff;
}

/* evidence = { LABEL, "source", case = "ID", range = { LO, HI } } of the
 * figure at @t: luadata's schema in its factor form, as tier profiles
 * write it; a figure without one is refused. */
static int get_evidence(struct lctx *c, int t, struct ts_luadata_ev *ev)
{
	int rc;
	if (lua_getfield(c->L, t, "evidence") == LUA_TNIL)
		rc = FAIL("needs evidence = { \"measured\"|\"spec\"|\"assumed\", \"source\" }: "
			  "where the figure was published (an assumed one with its range = "
			  "{ LO, HI })");
	else
		rc = ts_luadata_get_ev(c->d, &c->decl, -1, "evidence", 0, NULL, ev, c->err,
				       c->errlen);
	lua_pop(c->L, 1);
	return rc;
}

/* The names a figure is of (framework, model, gpu, and mode and precision
 * where its kind has them): strings, each of which the profiles read so
 * far must know. */
static int get_names(struct lctx *c, const struct ts_profiles *p, int t, char *fw, char *model,
		     char *gpu, char *mode, char *prec)
{
	int rc;
	TRY(get_str(c, t, "framework", fw, TS_PROF_NAME));
	TRY(get_str(c, t, "model", model, TS_PROF_NAME));
	TRY(get_str(c, t, "gpu", gpu, TS_PROF_NAME));
	if (mode)
		TRY(get_str(c, t, "mode", mode, 8));
	if (prec)
		TRY(get_str(c, t, "precision", prec, 8));
	const char *unknown = !ts_prof_fw_find(p, fw)	   ? "framework"
			    : !ts_prof_model_find(p, model) ? "model"
			    : !ts_prof_gpu_find(p, gpu)	   ? "gpu"
							   : NULL;
	if (unknown)
		return FAIL("%s/%s/%s names an unknown %s", fw, model, gpu, unknown);
	if (mode && strcmp(mode, "train") && strcmp(mode, "infer"))
		return FAIL("needs mode train or infer");
	if (prec && *prec && ts_prof_precision(prec) < 0)
		return FAIL("needs precision fp32, tf32 or amp");
	return 0;
}

/* scaling { } or oom { } at @t into a new check of @p. */
static int read_check(struct lctx *c, struct ts_profiles *p, int t, bool oom)
{
	struct ts_prof_check *k = slot((void **)&p->checks, &p->nchecks, sizeof(*k), NULL);
	int rc;
	if (!k)
		return -ENOMEM;
	k->oom = oom;
	snprintf(k->mode, sizeof(k->mode), "train");
	TRY(get_names(c, p, t, k->framework, k->model, k->gpu, oom ? k->mode : NULL,
		      oom ? NULL : k->precision));
	NUM(k->batch, "batch", 0);
	if (oom) {
		NUM(k->fits, "fits", 0);
		k->gpus = 1;
		if (k->batch < 1 || k->fits < 1 || k->fits >= k->batch)
			return FAIL("needs batch (that did not fit) > fits (that did) >= 1");
	} else {
		NUM(k->gpus, "gpus", 0);
		NUM(k->value, "value", 0);
		NUM(k->tol, "tol", 0);
		if (k->batch < 1 || k->gpus < 2 || k->value <= 0 || k->tol <= 0 ||
		    ts_prof_precision(k->precision) < 0)
			return FAIL("needs precision, batch >= 1, gpus >= 2, value > 0 and tol > 0");
	}
	return get_evidence(c, t, &k->ev);
}

/* The declaration's table at @t into @p.
 *
 * Why one long function: one switch with a case per declaration kind (gpu,
 * link, model, framework, anchor, ...), each reading that kind's fields; the
 * cases share nothing but the reader, so its length is the number of kinds.
 */
static int read_entry(struct lctx *c, struct ts_profiles *p, int t)
{
	lua_State *L = c->L;
	const char *name = c->decl.name;
	int rc;
	if (c->decl.kind - kinds < K_ANCHOR)
		drop_figs(p, c->decl.kind->name, name);
	switch ((enum kind)(c->decl.kind - kinds)) {
	case K_GPU: {
		struct ts_prof_gpu *g = slot((void **)&p->gpus, &p->ngpus, sizeof(*g), name);
		if (!g)
			return -ENOMEM;
		snprintf(g->name, sizeof(g->name), "%s", name);
		TRY(get_aliases(c, t, g->aliases));
		TRY(get_str(c, t, "link", g->link, sizeof(g->link)));
		TRY(get_str(c, t, "efficiency_as", g->efficiency_as, sizeof(g->efficiency_as)));
		FIG(g->mem_gib, "mem_gib", 0);
		FIG(g->usable_mib, "usable_mib", g->mem_gib * 1024);
		FIG(g->fp32_tflops, "fp32_tflops", 0);
		FIG(g->tf32_tflops, "tf32_tflops", 0);
		FIG(g->fp16_tflops, "fp16_tflops", 0);
		FIG(g->mem_gbs, "mem_gbs", 0);
		if (g->fp32_tflops <= 0 || g->usable_mib <= 0)
			return FAIL("needs fp32_tflops and mem_gib > 0");
		break;
	}
	case K_LINK: {
		struct ts_prof_link *l = slot((void **)&p->links, &p->nlinks, sizeof(*l), name);
		if (!l)
			return -ENOMEM;
		snprintf(l->name, sizeof(l->name), "%s", name);
		FIG(l->bw_gbs, "bw_gbs", 0);
		FIG(l->lat_us, "lat_us", 0);
		if (l->bw_gbs <= 0)
			return FAIL("needs bw_gbs > 0");
		break;
	}
	case K_MODEL: {
		struct ts_prof_model *m = slot((void **)&p->models, &p->nmodels, sizeof(*m), name);
		if (!m)
			return -ENOMEM;
		snprintf(m->name, sizeof(m->name), "%s", name);
		TRY(get_aliases(c, t, m->aliases));
		TRY(get_str(c, t, "netdef", m->netdef, sizeof(m->netdef)));
		TRY(get_str(c, t, "unit", m->unit, sizeof(m->unit)));
		FIG(m->params, "params", 0);
		FIG(m->gmacs, "gmacs", 0);
		FIG(m->b_half, "b_half", 0);
		if (!*m->netdef || m->b_half <= 0)
			return FAIL("needs netdef and b_half > 0");
		break;
	}
	case K_FRAMEWORK: {
		struct ts_prof_fw *f = slot((void **)&p->fws, &p->nfws, sizeof(*f), name);
		if (!f)
			return -ENOMEM;
		snprintf(f->name, sizeof(f->name), "%s", name);
		TRY(get_aliases(c, t, f->aliases));
		TRY(get_str(c, t, "precision", f->precision, sizeof(f->precision)));
		TRY(get_str(c, t, "efficiency_as", f->efficiency_as, sizeof(f->efficiency_as)));
		FIG(f->context_mib, "context_mib", 0);
		FIG(f->state_copies, "state_copies", 3);
		FIG(f->act_train, "act_train", 1);
		lua_getfield(L, t, "act_infer");
		bool all = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "all") == 0;
		lua_pop(L, 1);
		if (all)
			f->act_infer = -1;
		else
			FIG(f->act_infer, "act_infer", 1);
		if ((rc = read_eff(c, p, t, f)) < 0)
			return rc;
		FIG(f->allreduce_gbs, "allreduce_gbs", 0);
		FIG(f->overlap, "overlap", 0);
		FIG(f->sync_ms, "sync_ms", 0);
		FIG(f->jitter_p99, "jitter_p99", 1);
		bool eff_ok = f->allreduce_eff > 0;
		for (int k = 0; k < f->neff_link; k++)
			eff_ok &= f->eff_link[k].eff > 0;
		if (!eff_ok || f->jitter_p99 < 1 || ts_prof_precision(f->precision) < 0)
			return FAIL("allreduce_eff must be > 0, jitter_p99 >= 1, precision fp32, "
				    "tf32 or amp");
		break;
	}
	case K_ANCHOR: {
		struct ts_prof_anchor *a = slot((void **)&p->anchors, &p->nanchors, sizeof(*a), NULL);
		if (!a)
			return -ENOMEM;
		TRY(get_names(c, p, t, a->framework, a->model, a->gpu, a->mode, a->precision));
		NUM(a->batch, "batch", 0);
		NUM(a->value, "value", 0);
		if (a->batch < 1 || a->value <= 0 || ts_prof_precision(a->precision) < 0)
			return FAIL("needs framework, model, gpu, mode (train|infer), precision, "
				    "batch >= 1 and value > 0");
		TRY(get_evidence(c, t, &a->ev));
		enum ts_prof_band dir;
		if (ts_prof_band_dir("anchor", "value", &dir) < 0)
			return FAIL("value has no --band direction (engine/profile.c fields[])");
		a->band_value = a->value;
		if (p->band_end && a->ev.has_range) {
			a->band_value *= band_high(dir, p->band_end) ? a->ev.hi : a->ev.lo;
			a->moved = a->ev.lo != a->ev.hi;
		}
		return 0;
	}
	case K_SCALING:
	case K_OOM: /* checks for the tests, not part of the model */
		return read_check(c, p, t, c->decl.kind == &kinds[K_OOM]);
	}
	return 0;
}

static int load_file(struct ts_profiles *p, const char *path, bool shipped, char *err,
		     size_t errlen)
{
	struct ts_luadata *d;
	int rc = ts_luadata_load(path, kinds, &d, err, errlen);
	if (rc) {
		char why[512];
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "engine profile %s", why);
		return rc;
	}
	size_t n = ts_luadata_count(d);
	if (n == 0) {
		snprintf(err, errlen,
			 "engine profile %s: declares nothing (write gpu \"NAME\" { ... }, link, "
			 "model, framework \"NAME\" { ... } or anchor { ... })",
			 path);
		ts_luadata_free(d);
		return TS_E_PROFILE;
	}
	/* Figures last, so that they may name what the same file declares. */
	lua_State *L = ts_luadata_state(d);
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		for (size_t i = 0; i < n && rc == 0; i++) {
			struct lctx c = {
				.L = L, .d = d, .shipped = shipped, .err = err, .errlen = errlen
			};
			int t = ts_luadata_push(d, i, &c.decl);
			if ((c.decl.kind - kinds >= K_ANCHOR) == (pass == 1))
				rc = read_entry(&c, p, t);
			lua_settop(L, 0);
		}
	}
	ts_luadata_free(d);
	return rc;
}

static bool name_is(const char *name, const char aliases[][TS_PROF_NAME], const char *want)
{
	if (strcasecmp(name, want) == 0)
		return true;
	for (int i = 0; i < TS_PROF_ALIASES; i++)
		if (aliases[i][0] && strcasecmp(aliases[i], want) == 0)
			return true;
	return false;
}

#define FIND(arr, n, want)                                                     \
	do {                                                                   \
		for (size_t i = (n); i-- > 0;)                                 \
			if (name_is((arr)[i].name, (arr)[i].aliases, want))    \
				return &(arr)[i];                              \
		return NULL;                                                   \
	} while (0)

const struct ts_prof_gpu *ts_prof_gpu_find(const struct ts_profiles *p, const char *name)
{
	FIND(p->gpus, p->ngpus, name);
}

const struct ts_prof_model *ts_prof_model_find(const struct ts_profiles *p, const char *name)
{
	FIND(p->models, p->nmodels, name);
}

const struct ts_prof_fw *ts_prof_fw_find(const struct ts_profiles *p, const char *name)
{
	FIND(p->fws, p->nfws, name);
}

const struct ts_prof_link *ts_prof_link_find(const struct ts_profiles *p, const char *name)
{
	for (size_t i = p->nlinks; i-- > 0;)
		if (strcasecmp(p->links[i].name, name) == 0)
			return &p->links[i];
	return NULL;
}

int ts_prof_precision(const char *name)
{
	static const char *const names[] = { "fp32", "tf32", "amp" };
	for (int i = 0; i < 3; i++)
		if (strcasecmp(name, names[i]) == 0)
			return i;
	return -1;
}

double ts_prof_peak(const struct ts_prof_gpu *g, int prec)
{
	double t = g->fp32_tflops;
	if (prec == 1 && g->tf32_tflops > 0)
		t = g->tf32_tflops;
	else if (prec == 2 && g->fp16_tflops > 0)
		t = g->fp16_tflops;
	return t * 1e12;
}

/* One anchor as an observation of log efficiency; index of each factor. */
struct obs {
	double y;
	int m, f, g, pr;
};

/* Which entries of a factor group have observations. */
static void mark_seen(bool *seen, size_t cnt, const struct obs *o, size_t n, int which)
{
	for (size_t k = 0; k < n; k++) {
		int idx = which == 0 ? o[k].m : which == 1 ? o[k].f : which == 2 ? o[k].g : o[k].pr;
		if ((size_t)idx < cnt)
			seen[idx] = true;
	}
}

/* Shift a factor group to mean 0 over the entries that have anchors and set
 * the others to exactly 0, so an entry without anchors gets the average. */
static void center(struct ts_profiles *p, double *a, const bool *seen, size_t cnt)
{
	double sum = 0;
	size_t k = 0;
	for (size_t j = 0; j < cnt; j++)
		if (seen[j])
			sum += a[j], k++;
	double mean = k ? sum / (double)k : 0;
	for (size_t j = 0; j < cnt; j++)
		a[j] = seen[j] ? a[j] - mean : 0;
	p->mu += mean;
}

static void fit(struct ts_profiles *p, struct obs *o, size_t n)
{
	p->mu = 0;
	for (int it = 0; it < 200; it++) {
		double s = 0;
		for (size_t k = 0; k < n; k++)
			s += o[k].y - p->a_model[o[k].m] - p->a_fw[o[k].f] - p->a_gpu[o[k].g] -
			     p->a_prec[o[k].pr];
		p->mu = n ? s / (double)n : 0;
		/* each factor in turn: the mean residual of its observations */
		for (int which = 0; which < 4; which++) {
			size_t cnt = which == 0 ? p->nmodels : which == 1 ? p->nfws
				   : which == 2 ? p->ngpus : 3;
			double *a = which == 0 ? p->a_model : which == 1 ? p->a_fw
				  : which == 2 ? p->a_gpu : p->a_prec;
			for (size_t j = 0; j < cnt; j++) {
				double sum = 0;
				size_t c = 0;
				for (size_t k = 0; k < n; k++) {
					int idx = which == 0 ? o[k].m : which == 1 ? o[k].f
						: which == 2 ? o[k].g : o[k].pr;
					if ((size_t)idx != j)
						continue;
					sum += o[k].y - p->mu - p->a_model[o[k].m] - p->a_fw[o[k].f] -
					       p->a_gpu[o[k].g] - p->a_prec[o[k].pr] + a[j];
					c++;
				}
				a[j] = c ? sum / (double)c : 0;
			}
		}
	}
	bool prec_seen[3] = { false, false, false };
	mark_seen(p->seen_model, p->nmodels, o, n, 0);
	mark_seen(p->seen_fw, p->nfws, o, n, 1);
	mark_seen(p->seen_gpu, p->ngpus, o, n, 2);
	mark_seen(prec_seen, 3, o, n, 3);
	center(p, p->a_model, p->seen_model, p->nmodels);
	center(p, p->a_fw, p->seen_fw, p->nfws);
	center(p, p->a_gpu, p->seen_gpu, p->ngpus);
	center(p, p->a_prec, prec_seen, 3);
}

double ts_prof_b_half(const struct ts_profiles *p, const struct ts_prof_model *m,
		      const struct ts_prof_gpu *g)
{
	const struct ts_prof_gpu *ref = ts_prof_gpu_find(p, "V100");
	return ref ? m->b_half * g->fp32_tflops / ref->fp32_tflops : m->b_half;
}

static int fit_efficiency(struct ts_profiles *p, char *err, size_t errlen)
{
	p->a_model = calloc(p->nmodels + 1, sizeof(double));
	p->a_fw = calloc(p->nfws + 1, sizeof(double));
	p->a_gpu = calloc(p->ngpus + 1, sizeof(double));
	p->seen_model = calloc(p->nmodels + 1, sizeof(bool));
	p->seen_fw = calloc(p->nfws + 1, sizeof(bool));
	p->seen_gpu = calloc(p->ngpus + 1, sizeof(bool));
	struct obs *o = calloc(p->nanchors + 1, sizeof(*o));
	if (!p->a_model || !p->a_fw || !p->a_gpu || !p->seen_model || !p->seen_fw ||
	    !p->seen_gpu || !o) {
		free(o);
		return -ENOMEM;
	}
	size_t n = 0;
	int rc = 0;
	for (size_t k = 0; k < p->nanchors; k++) {
		const struct ts_prof_anchor *a = &p->anchors[k];
		const struct ts_prof_model *m = ts_prof_model_find(p, a->model);
		const struct ts_prof_fw *f = ts_prof_fw_find(p, a->framework);
		const struct ts_prof_gpu *g = ts_prof_gpu_find(p, a->gpu);
		if (!m || !f || !g) {
			snprintf(err, errlen, "engine profile: anchor %s/%s/%s names an unknown %s",
				 a->framework, a->model, a->gpu,
				 !m ? "model" : !f ? "framework" : "gpu");
			rc = TS_E_PROFILE;
			break;
		}
		double flops;
		rc = ts_net_flops(m->netdef, strcmp(a->mode, "train") == 0, &flops);
		if (rc < 0) {
			snprintf(err, errlen, "engine profile: model %s: no layer graph '%s'",
				 m->name, m->netdef);
			break;
		}
		int pr = ts_prof_precision(a->precision);
		double bh = ts_prof_b_half(p, m, g);
		double xmax = a->value * (a->batch + bh) / a->batch;
		o[n++] = (struct obs){ log(xmax * flops / ts_prof_peak(g, pr)), (int)(m - p->models),
				       (int)(f - p->fws), (int)(g - p->gpus), pr };
	}
	if (rc == 0)
		fit(p, o, n);
	free(o);
	return rc;
}

static void free_fit(struct ts_profiles *p)
{
	free(p->a_model);
	free(p->a_fw);
	free(p->a_gpu);
	free(p->seen_model);
	free(p->seen_fw);
	free(p->seen_gpu);
	p->a_model = p->a_fw = p->a_gpu = NULL;
	p->seen_model = p->seen_fw = p->seen_gpu = NULL;
	p->mu = 0;
	memset(p->a_prec, 0, sizeof(p->a_prec));
}

/* A held-out check asks what the profiles predict where a figure was never
 * published: the figure must take no part in the prediction, neither as a
 * point of its combination's curve (sim.c: anchor_curve) nor through the
 * efficiency factors fitted on every anchor. So the anchors go before the
 * fit is done again, not only from the curve. */
int ts_profiles_hold_out(struct ts_profiles *p, const struct ts_prof_fw *f,
			 const struct ts_prof_model *m, const struct ts_prof_gpu *g, const char *mode,
			 int prec, double batch, size_t *dropped, char *err, size_t errlen)
{
	size_t keep = 0;
	for (size_t k = 0; k < p->nanchors; k++) {
		const struct ts_prof_anchor *a = &p->anchors[k];
		bool match = ts_prof_fw_find(p, a->framework) == f &&
			     ts_prof_model_find(p, a->model) == m && ts_prof_gpu_find(p, a->gpu) == g &&
			     strcmp(a->mode, mode) == 0 && ts_prof_precision(a->precision) == prec &&
			     (batch <= 0 || a->batch == batch);
		if (!match)
			p->anchors[keep++] = *a;
		else
			ts_luadata_ev_free(&p->anchors[k].ev);
	}
	*dropped = p->nanchors - keep;
	p->nanchors = keep;
	free_fit(p);
	return fit_efficiency(p, err, errlen);
}

int ts_profiles_load(const char *extra, struct ts_profiles **out, char *err, size_t errlen)
{
	return ts_profiles_load_band(extra, 0, out, err, errlen);
}

int ts_profiles_load_band(const char *extra, int band_end, struct ts_profiles **out, char *err,
			  size_t errlen)
{
	char path[4096];
	*out = NULL;
	int rc = fields_check(err, errlen);
	if (rc < 0)
		return rc;
	struct ts_profiles *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->band_end = band_end;
	for (size_t i = 0; i < TS_ARRAY_SIZE(builtin) && rc == 0; i++) {
		if (ts_data_find(builtin[i], path, sizeof(path)) < 0) {
			snprintf(err, errlen,
				 "engine profile %s not found (set TIERSIM_DATADIR to the folder "
				 "holding engine/profiles)",
				 builtin[i]);
			rc = -ENOENT;
			break;
		}
		rc = load_file(p, path, true, err, errlen);
	}
	if (rc == 0 && extra && *extra)
		rc = load_file(p, extra, false, err, errlen);
	if (rc == 0)
		rc = fit_efficiency(p, err, errlen);
	if (rc < 0) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "engine profiles: out of memory");
		ts_profiles_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void ts_profiles_free(struct ts_profiles *p)
{
	if (!p)
		return;
	free(p->gpus);
	free(p->links);
	free(p->models);
	free(p->fws);
	for (size_t i = 0; i < p->nanchors; i++)
		ts_luadata_ev_free(&p->anchors[i].ev);
	for (size_t i = 0; i < p->nchecks; i++)
		ts_luadata_ev_free(&p->checks[i].ev);
	for (size_t i = 0; i < p->nfigs; i++)
		ts_luadata_ev_free(&p->figs[i].ev);
	free(p->figs);
	free(p->anchors);
	free(p->checks);
	free_fit(p);
	free(p);
}
