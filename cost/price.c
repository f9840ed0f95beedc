/*
 * price.c — price profiles (see price.h): reading cost/prices.lua and the
 * files users add, checking every price has its label, source and date,
 * and turning an instance and a volume into dollars per hour.
 *
 * A band sums the low ends and the high ends of the prices it adds: the
 * prices of one configuration are not known to move together, so the band
 * is the widest the ranges allow.
 */
#include <ctype.h>
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "luadata/luadata.h"
#include "cost/price.h"

static const char *const inst_keys[] = { "desc",      "provider",  "region", "shape",
					 "vcpus",     "mem_gib",   "gpus",   "gpu",
					 "host",      "local_disk", "ebs",   "hourly",
					 NULL };
static const char *const vol_keys[] = { "desc",	    "provider",	   "region",	  "tiers",
					"gib_month", "iops_month", "mibps_month", NULL };
static const char *const disk_keys[] = { "tier", "count", "gib", NULL };
static const char *const ebs_keys[] = { "iops", "mbps", "max_iops", "max_mbps", "burst_s", NULL };

enum { K_INST, K_VOL };
static const struct ts_luadata_kind kinds[] = {
	[K_INST] = { .name = "instance", .named = true, .keys = inst_keys },
	[K_VOL] = { .name = "volume", .named = true, .keys = vol_keys },
	{ NULL },
};

struct ts_price_set {
	struct ts_instance *in;
	size_t nin;
	struct ts_volume *vol;
	size_t nvol;
};

static void price_free(struct ts_price *p)
{
	free(p->what);
	free(p->date);
	memset(p, 0, sizeof(*p));
}

static void inst_clear(void *p)
{
	struct ts_instance *in = p;
	free(in->name);
	free(in->provider);
	free(in->region);
	free(in->shape);
	free(in->gpu);
	free(in->host);
	free(in->where);
	free(in->disk_tier);
	struct ts_ebs_num *e[] = { &in->ebs.iops, &in->ebs.mbps, &in->ebs.max_iops,
				   &in->ebs.max_mbps, &in->ebs.burst_s };
	for (size_t i = 0; i < TS_ARRAY_SIZE(e); i++)
		free(e[i]->what);
	price_free(&in->hourly);
	memset(in, 0, sizeof(*in));
}

static void vol_clear(void *p)
{
	struct ts_volume *v = p;
	free(v->name);
	free(v->provider);
	free(v->region);
	free(v->where);
	for (size_t i = 0; i < v->ntiers; i++)
		free(v->tiers[i]);
	free(v->tiers);
	price_free(&v->gib_month);
	price_free(&v->iops_month);
	price_free(&v->mibps_month);
	memset(v, 0, sizeof(*v));
}

void ts_price_set_free(struct ts_price_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nin; i++)
		inst_clear(&s->in[i]);
	for (size_t i = 0; i < s->nvol; i++)
		vol_clear(&s->vol[i]);
	free(s->in);
	free(s->vol);
	free(s);
}

/* ---- Reading a file ----------------------------------------------------------- */

#define FAIL TS_LUADATA_FAIL

/* Number @key of table @t (a dotted @what for messages) into @out, which
 * must be >= 0; @integer: a whole number. Missing leaves @out alone unless
 * @need. */
static int get_count(struct ts_luadata_rd *r, int t, const char *what, const char *key, bool need,
		     bool integer, double *out)
{
	int ty = lua_getfield(r->L, t, key);
	int rc = 0;
	if (ty == LUA_TNUMBER) {
		double v = lua_tonumber(r->L, -1);
		if (!(v >= 0) || !isfinite(v) || (integer && v != floor(v)))
			rc = FAIL(r, "%s must be %s, not %g", what,
				  integer ? "a whole number >= 0" : "a number >= 0", v);
		else
			*out = v;
	} else if (ty != LUA_TNIL) {
		rc = FAIL(r, "%s is a %s, not a number", what, lua_typename(r->L, ty));
	} else if (need) {
		rc = FAIL(r, "missing %s = N", what);
	}
	lua_pop(r->L, 1);
	return rc;
}

/* "YYYY", "YYYY-MM" or "YYYY-MM-DD". */
static bool is_date(const char *s)
{
	static const char *const shapes[] = { "dddd", "dddd-dd", "dddd-dd-dd" };
	for (size_t k = 0; k < TS_ARRAY_SIZE(shapes); k++) {
		const char *p = shapes[k], *q = s;
		while (*p && *q && (*p == 'd' ? isdigit((unsigned char)*q) : *p == *q))
			p++, q++;
		if (!*p && !*q)
			return true;
	}
	return false;
}

static const char price_form[] = "{ VALUE, \"spec\"|\"assumed\", \"source\", date = "
				 "\"YYYY-MM-DD\" [, low = , high = ] }";

/* steps = { { FROM, PRICE }, ... } at the top of the stack's table @e. */
static int get_steps(struct ts_luadata_rd *r, int e, const char *key, struct ts_price *p)
{
	lua_State *L = r->L;
	int ty = lua_getfield(L, e, "steps");
	int rc = 0;
	if (ty == LUA_TNIL)
		goto out;
	if (ty != LUA_TTABLE) {
		rc = FAIL(r, "%s.steps is a %s, not { { FROM, PRICE }, ... }", key,
			  lua_typename(L, ty));
		goto out;
	}
	lua_Integer n = luaL_len(L, -1);
	if (n > TS_PRICE_STEPS) {
		rc = FAIL(r, "%s.steps: at most %d steps", key, TS_PRICE_STEPS);
		goto out;
	}
	double last = 0;
	for (lua_Integer i = 1; i <= n && !rc; i++) {
		lua_rawgeti(L, -1, i);
		bool ok = lua_type(L, -1) == LUA_TTABLE;
		double from = 0, v = 0;
		if (ok) {
			lua_rawgeti(L, -1, 1);
			lua_rawgeti(L, -2, 2);
			ok = lua_type(L, -2) == LUA_TNUMBER && lua_type(L, -1) == LUA_TNUMBER;
			from = lua_tonumber(L, -2);
			v = lua_tonumber(L, -1);
			lua_pop(L, 2);
		}
		if (!ok || !(from > last) || !(v >= 0))
			rc = FAIL(r, "%s.steps[%lld]: expected { FROM, PRICE } with FROM rising above "
				     "%g and PRICE >= 0",
				  key, (long long)i, last);
		p->steps[i - 1].from = from;
		p->steps[i - 1].v = v;
		last = from;
		lua_pop(L, 1);
	}
	p->nsteps = (int)n;
out:
	lua_pop(L, 1);
	return rc;
}

/* PRICE at @key of table @t; @need: missing is an error.
 *
 * Why one long function: it reads one price's fields in order (value, label,
 * source, date, low/high, included, steps), each refused with the key's name
 * on one path that restores the Lua stack (out:).
 */
static int get_price(struct ts_luadata_rd *r, int t, const char *key, bool need, struct ts_price *p)
{
	lua_State *L = r->L;
	int base = lua_gettop(L), rc = 0;
	int ty = lua_getfield(L, t, key);
	if (ty == LUA_TNIL) {
		if (need)
			rc = FAIL(r, "missing %s = %s", key, price_form);
		goto out;
	}
	if (ty != LUA_TTABLE) {
		rc = FAIL(r, "%s: expected %s, not a %s", key, price_form, lua_typename(L, ty));
		goto out;
	}
	int e = lua_gettop(L);
	lua_pushnil(L);
	while (lua_next(L, e)) {
		lua_pop(L, 1);
		static const char *const named[] = { "date", "low", "high", "included", "steps" };
		bool ok = lua_type(L, -1) == LUA_TNUMBER && lua_tointeger(L, -1) >= 1 &&
			  lua_tointeger(L, -1) <= 3;
		for (size_t k = 0; !ok && k < TS_ARRAY_SIZE(named); k++)
			ok = lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), named[k]);
		if (!ok) {
			lua_pushvalue(L, -1);
			const char *bad = luaL_tolstring(L, -1, NULL);
			rc = FAIL(r, "%s: unknown key '%s' (a price is %s)", key, bad, price_form);
			goto out;
		}
	}
	price_free(p);
	lua_rawgeti(L, e, 1);
	bool isnum = lua_type(L, -1) == LUA_TNUMBER;
	p->v = lua_tonumber(L, -1);
	lua_rawgeti(L, e, 2);
	const char *label = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
	p->label = !strcmp(label, "spec")      ? TS_PRICE_SPEC
		   : !strcmp(label, "assumed") ? TS_PRICE_ASSUMED
					       : TS_PRICE_NONE;
	lua_rawgeti(L, e, 3);
	const char *what = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
	lua_getfield(L, e, "date");
	const char *date = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
	if (!isnum || !(p->v >= 0) || !isfinite(p->v)) {
		rc = FAIL(r, "%s: missing its value (first: dollars, >= 0)", key);
		goto out;
	}
	if (p->label == TS_PRICE_NONE) {
		rc = FAIL(r, "%s: missing its label (second: \"spec\", a published price, or "
			     "\"assumed\")",
			  key);
		goto out;
	}
	if (!*what) {
		rc = FAIL(r, "%s: missing its source (third: the price list and its address, or "
			     "why it is assumed)",
			  key);
		goto out;
	}
	if (!date) {
		rc = FAIL(r, "%s: missing its date (date = \"YYYY-MM-DD\": when the price held)",
			  key);
		goto out;
	}
	if (!is_date(date)) {
		rc = FAIL(r, "%s: date = \"%s\" is not YYYY, YYYY-MM or YYYY-MM-DD", key, date);
		goto out;
	}
	if (!(p->what = strdup(what)) || !(p->date = strdup(date))) {
		rc = -ENOMEM;
		goto out;
	}
	double lo = -1, hi = -1;
	char sub[64];
	snprintf(sub, sizeof(sub), "%s.low", key);
	if ((rc = get_count(r, e, sub, "low", false, false, &lo)))
		goto out;
	snprintf(sub, sizeof(sub), "%s.high", key);
	if ((rc = get_count(r, e, sub, "high", false, false, &hi)))
		goto out;
	snprintf(sub, sizeof(sub), "%s.included", key);
	if ((rc = get_count(r, e, sub, "included", false, false, &p->included)))
		goto out;
	if (p->label == TS_PRICE_ASSUMED && (lo < 0 || hi < 0)) {
		rc = FAIL(r, "%s: an assumed price needs low = and high =", key);
		goto out;
	}
	p->low = lo < 0 ? p->v : lo;
	p->high = hi < 0 ? p->v : hi;
	if (p->low > p->v || p->high < p->v) {
		rc = FAIL(r, "%s: needs low <= value <= high (got %g, %g, %g)", key, p->low, p->v,
			  p->high);
		goto out;
	}
	if ((rc = get_steps(r, e, key, p)))
		goto out;
	p->set = true;
out:
	lua_settop(L, base);
	return rc;
}

static int read_disk(struct ts_luadata_rd *r, int t, struct ts_instance *in)
{
	lua_State *L = r->L;
	int ty = lua_getfield(L, t, "local_disk");
	int rc = 0;
	if (ty == LUA_TNIL)
		goto out;
	if (ty != LUA_TTABLE) {
		rc = FAIL(r, "local_disk is a %s, not { tier = , count = , gib = }",
			  lua_typename(L, ty));
		goto out;
	}
	int d = lua_gettop(L);
	double count = 0;
	if ((rc = ts_luadata_check_keys(r->d, &r->decl, d, "local_disk", disk_keys, r->err,
					r->errlen)) ||
	    (rc = ts_luadata_dup_str(r, d, "tier", true, &in->disk_tier)) ||
	    (rc = get_count(r, d, "local_disk.count", "count", true, true, &count)) ||
	    (rc = get_count(r, d, "local_disk.gib", "gib", true, false, &in->disk_gib)))
		goto out;
	if (count < 1 || !(in->disk_gib > 0))
		rc = FAIL(r, "local_disk: count and gib must be above 0");
	in->disk_count = (int)count;
out:
	lua_pop(L, 1);
	return rc;
}

/* ebs = { KEY = { VALUE, LABEL, "source" }, ... }: luadata's evidence in
 * its value form, one entry per limit (ebs_keys). */
static int read_ebs(struct ts_luadata_rd *r, int t, struct ts_instance *in)
{
	lua_State *L = r->L;
	int base = lua_gettop(L);
	int ty = lua_getfield(L, t, "ebs");
	int rc = 0;
	if (ty == LUA_TNIL)
		goto out;
	if (ty != LUA_TTABLE) {
		rc = FAIL(r, "ebs is a %s, not { iops = , mbps = , max_iops = , max_mbps = , "
			     "burst_s = }", lua_typename(L, ty));
		goto out;
	}
	int e = lua_gettop(L);
	if ((rc = ts_luadata_check_keys(r->d, &r->decl, e, "ebs", ebs_keys, r->err, r->errlen)))
		goto out;
	struct ts_ebs_num *num[] = { &in->ebs.iops, &in->ebs.mbps, &in->ebs.max_iops,
				     &in->ebs.max_mbps, &in->ebs.burst_s };
	for (size_t i = 0; i < TS_ARRAY_SIZE(num) && !rc; i++) {
		char what[32];
		snprintf(what, sizeof(what), "ebs.%s", ebs_keys[i]);
		struct ts_luadata_ev ev = { 0 };
		if (lua_getfield(L, e, ebs_keys[i]) != LUA_TNIL &&
		    !(rc = ts_luadata_get_ev(r->d, &r->decl, -1, what, TS_LUADATA_EV_VALUE, NULL,
					     &ev, r->err, r->errlen))) {
			*num[i] = (struct ts_ebs_num){ .set = true, .v = ev.value, .label = ev.label,
						       .what = ev.source };
			free(ev.fit_case);
		}
		lua_pop(L, 1);
	}
	if (!rc && !in->ebs.iops.set && !in->ebs.mbps.set)
		rc = FAIL(r, "ebs: give iops = or mbps = (the baseline), or leave ebs out");
	else if (!rc && ((in->ebs.max_iops.set && in->ebs.max_iops.v < in->ebs.iops.v) ||
			 (in->ebs.max_mbps.set && in->ebs.max_mbps.v < in->ebs.mbps.v)))
		rc = FAIL(r, "ebs: max_iops and max_mbps must not be below iops and mbps");
	else if (!rc && in->ebs.burst_s.set != (in->ebs.max_iops.set || in->ebs.max_mbps.set))
		rc = FAIL(r, "ebs: burst_s = goes with max_iops = or max_mbps = (a maximum the "
			     "instance holds for burst_s seconds), and only with them");
out:
	lua_settop(L, base);
	return rc;
}

void ts_instance_ebs(const struct ts_instance *in, struct ts_tier_ebs *out)
{
	const struct ts_instance_ebs *e = &in->ebs;
	*out = (struct ts_tier_ebs){
		.iops = e->iops.set ? e->iops.v : 0,
		.bps = e->mbps.set ? e->mbps.v * 1e6 : 0,
		.max_iops = e->max_iops.set ? e->max_iops.v : 0,
		.max_bps = e->max_mbps.set ? e->max_mbps.v * 1e6 : 0,
		.burst_s = e->burst_s.set ? e->burst_s.v : 0,
	};
}

static int read_instance(struct ts_luadata_rd *r, int t, void *out)
{
	struct ts_instance *in = out;
	double vcpus = 0, gpus = 0;
	int rc;
	if (!(in->where = ts_luadata_where(r->d, &r->decl)))
		return -ENOMEM;
	if ((rc = ts_luadata_dup_str(r, t, "provider", true, &in->provider)) ||
	    (rc = ts_luadata_dup_str(r, t, "region", true, &in->region)) ||
	    (rc = ts_luadata_dup_str(r, t, "shape", true, &in->shape)) ||
	    (rc = ts_luadata_dup_str(r, t, "gpu", false, &in->gpu)) ||
	    (rc = ts_luadata_dup_str(r, t, "host", false, &in->host)) ||
	    (rc = get_count(r, t, "vcpus", "vcpus", true, true, &vcpus)) ||
	    (rc = get_count(r, t, "mem_gib", "mem_gib", true, false, &in->mem_gib)) ||
	    (rc = get_count(r, t, "gpus", "gpus", false, true, &gpus)) ||
	    (rc = read_ebs(r, t, in)) || (rc = read_disk(r, t, in)) || (rc = get_price(r, t, "hourly", true, &in->hourly)))
		return rc;
	if (vcpus < 1 || vcpus > 4096 || !(in->mem_gib > 0) || gpus > 64)
		return FAIL(r, "vcpus (1..4096), mem_gib (above 0) and gpus (0..64) out of range");
	if (gpus > 0 && !in->gpu)
		return FAIL(r, "missing gpu = \"the GPU model\" for its %g GPUs", gpus);
	in->vcpus = (int)vcpus;
	in->gpus = (int)gpus;
	return 0;
}

static int read_tiers(struct ts_luadata_rd *r, int t, struct ts_volume *v)
{
	lua_State *L = r->L;
	int ty = lua_getfield(L, t, "tiers");
	int rc = 0;
	if (ty == LUA_TNIL)
		goto out;
	lua_Integer n = ty == LUA_TTABLE ? luaL_len(L, -1) : 0;
	if (ty != LUA_TTABLE || n < 1) {
		rc = FAIL(r, "tiers: expected { \"TIER\", ... } (tiersim tiers lists them)");
		goto out;
	}
	if (!(v->tiers = calloc((size_t)n, sizeof(*v->tiers)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (lua_Integer i = 1; i <= n && !rc; i++) {
		lua_rawgeti(L, -1, i);
		if (lua_type(L, -1) != LUA_TSTRING)
			rc = FAIL(r, "tiers[%lld] is a %s, not a tier name", (long long)i,
				  luaL_typename(L, -1));
		else if (!(v->tiers[v->ntiers++] = strdup(lua_tostring(L, -1))))
			rc = -ENOMEM;
		lua_pop(L, 1);
	}
out:
	lua_pop(L, 1);
	return rc;
}

static int read_volume(struct ts_luadata_rd *r, int t, void *out)
{
	struct ts_volume *v = out;
	int rc;
	if (!(v->where = ts_luadata_where(r->d, &r->decl)))
		return -ENOMEM;
	if ((rc = ts_luadata_dup_str(r, t, "provider", true, &v->provider)) ||
	    (rc = ts_luadata_dup_str(r, t, "region", true, &v->region)) || (rc = read_tiers(r, t, v)) ||
	    (rc = get_price(r, t, "gib_month", true, &v->gib_month)) ||
	    (rc = get_price(r, t, "iops_month", false, &v->iops_month)) ||
	    (rc = get_price(r, t, "mibps_month", false, &v->mibps_month)))
		return rc;
	if (v->gib_month.nsteps || v->mibps_month.nsteps)
		return FAIL(r, "steps = belongs to iops_month only");
	return 0;
}

/* Reads one declaration of a kind whose elements are @size bytes, each
 * starting with its name, into the array *@arr of *@n; one of the same
 * name is replaced. */
static int add_decl(struct ts_luadata_rd *r, int t, void **arr, size_t *n, size_t size,
		    int (*read)(struct ts_luadata_rd *, int, void *), void (*clear)(void *))
{
	union {
		struct ts_instance in;
		struct ts_volume vol;
	} tmp = { 0 };
	char **name = (char **)(void *)&tmp; /* the first member of either */
	int rc = (*name = strdup(r->decl.name)) ? read(r, t, &tmp) : -ENOMEM;
	void *at = rc ? NULL : ts_luadata_slot(arr, n, size, *name);
	if (!rc && !at)
		rc = -ENOMEM;
	if (rc) {
		clear(&tmp);
	} else {
		clear(at);
		memcpy(at, &tmp, size);
	}
	return rc;
}

int ts_price_set_add_file(struct ts_price_set *s, const char *path, char *err, size_t errlen)
{
	struct ts_luadata *d;
	int rc = ts_luadata_load(path, kinds, &d, err, errlen);
	if (rc)
		return rc;
	struct ts_luadata_rd r = { .d = d, .L = ts_luadata_state(d), .err = err, .errlen = errlen };
	for (size_t i = 0; i < ts_luadata_count(d) && !rc; i++) {
		int t = ts_luadata_push(d, i, &r.decl);
		if (r.decl.kind == &kinds[K_INST])
			rc = add_decl(&r, t, (void **)&s->in, &s->nin, sizeof(*s->in), read_instance,
				      inst_clear);
		else
			rc = add_decl(&r, t, (void **)&s->vol, &s->nvol, sizeof(*s->vol), read_volume,
				      vol_clear);
		lua_settop(r.L, 0);
	}
	ts_luadata_free(d);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	return rc;
}

struct ts_price_set *ts_price_set_new(void)
{
	return calloc(1, sizeof(struct ts_price_set));
}

int ts_price_set_load_default(struct ts_price_set **out, char *err, size_t errlen)
{
	char path[4096];
	*out = NULL;
	if (ts_data_find("cost/prices.lua", path, sizeof(path))) {
		snprintf(err, errlen, "cost/prices.lua (the built-in price profiles) not found; set "
				      "TIERSIM_DATADIR to the folder that holds cost/prices.lua");
		return -ENOENT;
	}
	struct ts_price_set *s = ts_price_set_new();
	if (!s)
		return -ENOMEM;
	int rc = ts_price_set_add_file(s, path, err, errlen);
	if (rc) {
		ts_price_set_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* ---- Looking up ---------------------------------------------------------------- */

size_t ts_price_instance_count(const struct ts_price_set *s)
{
	return s->nin;
}

const struct ts_instance *ts_price_instance_at(const struct ts_price_set *s, size_t i)
{
	return i < s->nin ? &s->in[i] : NULL;
}

size_t ts_price_volume_count(const struct ts_price_set *s)
{
	return s->nvol;
}

const struct ts_volume *ts_price_volume_at(const struct ts_price_set *s, size_t i)
{
	return i < s->nvol ? &s->vol[i] : NULL;
}

int ts_price_instance(const struct ts_price_set *s, const char *name,
		      const struct ts_instance **out, char *err, size_t errlen)
{
	for (size_t i = 0; i < s->nin; i++)
		if (!strcmp(s->in[i].name, name)) {
			*out = &s->in[i];
			return 0;
		}
	*out = NULL;
	size_t used = (size_t)snprintf(err, errlen, "instance '%s' has no price profile (known: ",
				       name);
	for (size_t i = 0; i < s->nin && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%s", i ? ", " : "",
					 s->in[i].name);
	if (used < errlen)
		snprintf(err + used, errlen - used, "; 'tiersim prices' lists them)");
	return -ENOENT;
}

const struct ts_volume *ts_price_volume_for_tier(const struct ts_price_set *s, const char *tier)
{
	for (size_t i = s->nvol; i-- > 0;) /* the file added last wins */
		for (size_t k = 0; k < s->vol[i].ntiers; k++)
			if (!strcmp(s->vol[i].tiers[k], tier))
				return &s->vol[i];
	return NULL;
}

int ts_price_set_check(const struct ts_price_set *s, bool (*has_tier)(void *, const char *),
		       bool (*has_host)(void *, const char *), void *ctx, char *err,
		       size_t errlen)
{
	for (size_t i = 0; i < s->nin; i++) {
		const struct ts_instance *in = &s->in[i];
		if (has_tier && in->disk_tier && !has_tier(ctx, in->disk_tier)) {
			snprintf(err, errlen, "%s: instance '%s': local_disk.tier: '%s' is not a tier "
					      "profile (tiersim tiers lists them)",
				 in->where, in->name, in->disk_tier);
			return TS_E_PROFILE;
		}
		if (has_host && in->host && !has_host(ctx, in->host)) {
			snprintf(err, errlen, "%s: instance '%s': host: '%s' is not a host profile "
					      "(tiersim hosts lists them)",
				 in->where, in->name, in->host);
			return TS_E_PROFILE;
		}
	}
	for (size_t i = 0; i < s->nvol; i++)
		for (size_t k = 0; has_tier && k < s->vol[i].ntiers; k++)
			if (!has_tier(ctx, s->vol[i].tiers[k])) {
				snprintf(err, errlen, "%s: volume '%s': tiers: '%s' is not a tier "
						      "profile (tiersim tiers lists them)",
					 s->vol[i].where, s->vol[i].name, s->vol[i].tiers[k]);
				return TS_E_PROFILE;
			}
	return 0;
}

/* ---- Dollars --------------------------------------------------------------------- */

double ts_price_at(const struct ts_price *p, enum ts_price_end end)
{
	if (!p->set)
		return 0;
	return end == TS_PRICE_LOW ? p->low : end == TS_PRICE_HIGH ? p->high : p->v;
}

double ts_price_iops_month(const struct ts_price *p, double iops, enum ts_price_end end)
{
	if (!p->set || iops <= p->included)
		return 0;
	/* Steps scale with the first price's end: a range is on the whole list. */
	double scale = p->v > 0 ? ts_price_at(p, end) / p->v : 0;
	double sum = 0, from = p->included, rate = ts_price_at(p, end);
	for (int i = 0; i <= p->nsteps; i++) {
		double to = i < p->nsteps ? p->steps[i].from : iops;
		if (to > iops)
			to = iops;
		if (to > from)
			sum += (to - from) * rate;
		if (i < p->nsteps) {
			if (p->steps[i].from > from)
				from = p->steps[i].from;
			rate = p->steps[i].v * scale;
		}
	}
	return sum;
}

static double volume_at(const struct ts_volume *v, double gib, double iops, double mibps,
			enum ts_price_end end)
{
	double month = gib * ts_price_at(&v->gib_month, end) +
		       ts_price_iops_month(&v->iops_month, iops, end);
	if (v->mibps_month.set && mibps > v->mibps_month.included)
		month += (mibps - v->mibps_month.included) * ts_price_at(&v->mibps_month, end);
	return month / TS_HOURS_PER_MONTH;
}

void ts_volume_hourly(const struct ts_volume *v, double gib, double iops, double mibps,
		      struct ts_cost_band *out)
{
	out->v = volume_at(v, gib, iops, mibps, TS_PRICE_NOMINAL);
	out->low = volume_at(v, gib, iops, mibps, TS_PRICE_LOW);
	out->high = volume_at(v, gib, iops, mibps, TS_PRICE_HIGH);
}

void ts_instance_hourly(const struct ts_instance *in, struct ts_cost_band *out)
{
	out->v = ts_price_at(&in->hourly, TS_PRICE_NOMINAL);
	out->low = ts_price_at(&in->hourly, TS_PRICE_LOW);
	out->high = ts_price_at(&in->hourly, TS_PRICE_HIGH);
}

/* ---- Listing ------------------------------------------------------------------- */

static const char *label_name(enum ts_price_label l)
{
	return l == TS_PRICE_SPEC ? "spec" : l == TS_PRICE_ASSUMED ? "assumed" : "-";
}

/* "12.3" or "12.3 [10..14]". */
static void fmt_price(char *buf, size_t n, const struct ts_price *p)
{
	if (!p->set) {
		snprintf(buf, n, "-");
		return;
	}
	int k = snprintf(buf, n, "%.4g", p->v);
	if ((p->low != p->v || p->high != p->v) && k > 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, " [%.4g..%.4g]", p->low, p->high);
}

int ts_price_print_table(FILE *f, const struct ts_price_set *s)
{
	char h[64], disk[64];
	fprintf(f, "%-20s %-8s %-12s %5s %6s %-16s %-16s %-18s %s\n", "instance", "provider",
		"region", "vCPU", "GiB", "GPUs", "local disk", "host", "$/hour");
	for (size_t i = 0; i < s->nin; i++) {
		const struct ts_instance *in = &s->in[i];
		char gpus[48] = "-";
		if (in->gpus)
			snprintf(gpus, sizeof(gpus), "%d x %s", in->gpus, in->gpu);
		snprintf(disk, sizeof(disk), "-");
		if (in->disk_tier)
			snprintf(disk, sizeof(disk), "%d x %.0f GiB", in->disk_count, in->disk_gib);
		fmt_price(h, sizeof(h), &in->hourly);
		if (fprintf(f, "%-20s %-8s %-12s %5d %6.0f %-16s %-16s %-18s %s (%s)\n", in->name,
			    in->provider, in->region, in->vcpus, in->mem_gib, gpus, disk,
			    in->host ? in->host : "-", h, in->hourly.date) < 0)
			return -EIO;
	}
	fprintf(f, "\n%-24s %-8s %-12s %-22s %-24s %-24s %s\n", "volume", "provider", "region",
		"$/GiB-month", "$/IOPS-month", "$/MiB/s-month", "tiers");
	for (size_t i = 0; i < s->nvol; i++) {
		const struct ts_volume *v = &s->vol[i];
		char g[64], io[64], mb[64], tiers[256] = "";
		fmt_price(g, sizeof(g), &v->gib_month);
		fmt_price(io, sizeof(io), &v->iops_month);
		fmt_price(mb, sizeof(mb), &v->mibps_month);
		if (v->iops_month.nsteps)
			snprintf(io + strlen(io), sizeof(io) - strlen(io), " +%d steps",
				 v->iops_month.nsteps);
		size_t used = 0;
		for (size_t k = 0; k < v->ntiers && used < sizeof(tiers); k++)
			used += (size_t)snprintf(tiers + used, sizeof(tiers) - used, "%s%s",
						 k ? "," : "", v->tiers[k]);
		if (fprintf(f, "%-24s %-8s %-12s %-22s %-24s %-24s %s\n", v->name, v->provider,
			    v->region, g, io, mb, v->ntiers ? tiers : "(no tier model)") < 0)
			return -EIO;
	}
	fprintf(f, "\nUS dollars; [low..high] where a price is ranged; a month is %.0f hours. "
		   "'tiersim prices --evidence'\nlists every price with its label, date and source.\n",
		TS_HOURS_PER_MONTH);
	return fflush(f) ? -EIO : 0;
}

static int ev_line(FILE *f, const char *who, const char *field, const struct ts_price *p)
{
	if (!p->set)
		return 0;
	char v[64], extra[160] = "";
	fmt_price(v, sizeof(v), p);
	int k = 0;
	if (p->included > 0)
		k = snprintf(extra, sizeof(extra), " above %g", p->included);
	for (int i = 0; i < p->nsteps && k >= 0 && (size_t)k < sizeof(extra); i++)
		k += snprintf(extra + k, sizeof(extra) - (size_t)k, "; %.4g from %g", p->steps[i].v,
			      p->steps[i].from);
	return fprintf(f, "%-24s %-12s %-8s %-10s %s%s  %s\n", who, field, label_name(p->label),
		       p->date, v, extra, p->what) < 0
		       ? -EIO
		       : 0;
}

int ts_price_print_evidence(FILE *f, const struct ts_price_set *s)
{
	int rc = 0;
	fprintf(f, "%-24s %-12s %-8s %-10s %s\n", "instance/volume", "price", "label", "date",
		"$  source");
	for (size_t i = 0; i < s->nin && !rc; i++)
		rc = ev_line(f, s->in[i].name, "hourly", &s->in[i].hourly);
	for (size_t i = 0; i < s->nvol && !rc; i++) {
		rc = ev_line(f, s->vol[i].name, "gib_month", &s->vol[i].gib_month);
		if (!rc)
			rc = ev_line(f, s->vol[i].name, "iops_month", &s->vol[i].iops_month);
		if (!rc)
			rc = ev_line(f, s->vol[i].name, "mibps_month", &s->vol[i].mibps_month);
	}
	return rc ? rc : fflush(f) ? -EIO : 0;
}
