/*
 * lua_scenario.c — the scenario API a script sees (documented with an
 * example per call in scripts/README.md):
 *
 *   params{...}     the script's parameters, overridable as key=value
 *   dataset{...}    mount{...}    pipeline{...}    engine{...}
 *                   set keys of one section of the current configuration
 *   run{...}        run the current configuration (one row per tier)
 *   preprocess{...} convert the JPEG dataset to an LMDB through the mount
 *   sweep{...}      run every combination of the listed values
 *   report{...}     the report's title
 *   dlio{...}       a DLIO / MLPerf Storage workload (one row; returns its figures)
 *   tiersim         { version, virtual, tiers = {...} }
 *
 * Every table is read through the section's option table, so an unknown key
 * is an error that names the key and lists the known ones. The runner is
 * each function's upvalue; nothing here is a global of the C program.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/interrupt.h"
#include "workloads/dlio_run.h"
#include "scenario/jobs.h"
#include "scenario/lua_opt.h"
#include "tier/tier.h"
#include "scenario/runner.h"

/* What a script asks for: run{} (the job the engine's mode names: train,
 * infer) or preprocess{}. */
enum ts_action { TS_ACT_RUN, TS_ACT_PREPROCESS };

static const struct ts_job_ops *job_of(enum ts_action act)
{
	return act == TS_ACT_RUN ? NULL : ts_job_find("preprocess");
}

#define RUNNER(L) ((struct ts_runner *)lua_touserdata(L, lua_upvalueindex(1)))

/* A Lua scalar as option text; NULL for other types. */
static const char *scalar_text(lua_State *L, int idx, char *buf, size_t n)
{
	switch (lua_type(L, idx)) {
	case LUA_TBOOLEAN:
		return lua_toboolean(L, idx) ? "true" : "false";
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx))
			snprintf(buf, n, "%lld", (long long)lua_tointeger(L, idx));
		else
			snprintf(buf, n, "%.17g", lua_tonumber(L, idx));
		return buf;
	case LUA_TSTRING:
		return lua_tostring(L, idx);
	default:
		return NULL;
	}
}

/* A result row as a Lua table. */
static void push_row(lua_State *L, const struct ts_report *rep, const struct ts_row *w)
{
	lua_createtable(L, 0, 16);
	lua_pushstring(L, w->label ? w->label : "");
	lua_setfield(L, -2, "label");
	lua_pushstring(L, w->tier ? w->tier : "");
	lua_setfield(L, -2, "tier");
	if (w->error) {
		lua_pushstring(L, w->error);
		lua_setfield(L, -2, "error");
	}
	if (w->parts) {
		lua_pushstring(L, w->parts);
		lua_setfield(L, -2, "parts");
	}
	const struct {
		const char *k;
		double v;
	} nums[] = {
		{ "samples_per_s", w->samples_per_s }, { "time", w->time_s },
		{ "au", w->au_pct },		       { "io_stall", w->stall_pct },
		{ "cache_hit", w->cache_hit_pct },     { "read_mb_s", w->read_mb_s },
		{ "write_mb_s", w->write_mb_s },       { "step_p50_ms", w->step_p50_ms },
		{ "served_from_memory", w->memory_pct }, { "device_read_mb_s", w->dev_mb_s },
		{ "step_p99_ms", w->step_p99_ms },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(nums); i++) {
		if (nums[i].v != nums[i].v) /* NaN: not measured */
			continue;
		lua_pushnumber(L, nums[i].v);
		lua_setfield(L, -2, nums[i].k);
	}
	lua_pushinteger(L, (lua_Integer)w->samples);
	lua_setfield(L, -2, "samples");
	lua_pushinteger(L, (lua_Integer)w->iterations);
	lua_setfield(L, -2, "iterations");
	lua_pushinteger(L, (lua_Integer)w->batch);
	lua_setfield(L, -2, "batch");
	(void)rep;
}

/* Raises the runner's error; "interrupted" when a signal stopped it. */
static int raise_exec(lua_State *L, int rc, const char *err)
{
	if (rc == -EINTR || ts_interrupted)
		return luaL_error(L, "interrupted");
	return luaL_error(L, "%s", err[0] ? err : ts_strerror(rc));
}

static int set_section(lua_State *L, const char *name)
{
	struct ts_runner *R = RUNNER(L);
	luaL_checktype(L, 1, LUA_TTABLE);
	if (!strcmp(name, "pipeline")) {
		/* These follow from the other sections. */
		static const char *const derived[][2] = {
			{ "path", "dataset{dir=...} or dataset{kind=...}" },
			{ "batch", "engine{batch=..., gpus=...}" },
		};
		for (size_t i = 0; i < TS_ARRAY_SIZE(derived); i++) {
			if (lua_getfield(L, 1, derived[i][0]) != LUA_TNIL)
				return luaL_error(L, "pipeline: '%s' is set by %s", derived[i][0],
						  derived[i][1]);
			lua_pop(L, 1);
		}
	}
	void *base;
	const struct ts_opt *tab = ts_scn_section(&R->cfg, name, &base);
	char err[768];
	if (ts_opt_from_lua(tab, base, L, 1, name, err, sizeof(err)))
		return luaL_error(L, "%s", err);
	/* A tier name is checked here, so that a typo names this line rather
	 * than the run{} that would mount it; one from an extra profile file
	 * is known only to the mount. */
	const struct ts_scn_mount *m = &R->cfg.mnt;
	const struct ts_tier_profile *p;
	if (base == m && lua_getfield(L, 1, "tier") != LUA_TNIL && strcmp(m->tier, "none") &&
	    !(m->profile && *m->profile) &&
	    ts_tier_set_lookup(R->env.tiers, m->tier, &p, err, sizeof(err)))
		return luaL_error(L, "mount: %s", err);
	if (base == m && lua_getfield(L, 1, "cache") != LUA_TNIL && !ts_scn_cache_known(m->cache))
		return luaL_error(L, "mount: cache '%s' is not cold, warm or written", m->cache);
	return 0;
}

/* instance "NAME" or instance{ name = "NAME" }: the run is priced as that
 * instance and takes its vCPUs, memory, GPUs and host here; what the script
 * sets after this call overrides them. */
static int l_instance(lua_State *L)
{
	struct ts_runner *R = RUNNER(L);
	const char *name;
	if (lua_type(L, 1) == LUA_TTABLE) {
		lua_getfield(L, 1, "name");
		lua_pushnil(L);
		while (lua_next(L, 1)) {
			lua_pop(L, 1);
			if (lua_type(L, -1) != LUA_TSTRING || strcmp(lua_tostring(L, -1), "name"))
				return luaL_error(L, "instance: the only key is name (the instance)");
		}
		name = lua_tostring(L, -1);
		if (!name)
			return luaL_error(L, "instance: expected instance{ name = \"NAME\" }");
	} else {
		name = luaL_checkstring(L, 1);
	}
	const struct ts_instance *in;
	char err[1024], sub[256];
	int rc = ts_runner_instance(R, name, &in, err, sizeof(err));
	if (!rc && (rc = ts_opt_set(ts_scn_instance_opts, &R->cfg.inst, "name", name, sub,
				    sizeof(sub))))
		snprintf(err, sizeof(err), "%s", sub);
	if (!rc)
		rc = ts_scn_apply_instance(&R->cfg, in, err, sizeof(err));
	if (rc)
		return luaL_error(L, "instance: %s", err);
	return 0;
}

static int l_dataset(lua_State *L) { return set_section(L, "dataset"); }
static int l_mount(lua_State *L) { return set_section(L, "mount"); }
static int l_pipeline(lua_State *L) { return set_section(L, "pipeline"); }
static int l_engine(lua_State *L) { return set_section(L, "engine"); }

static void push_rows(lua_State *L, struct ts_runner *R, size_t first)
{
	lua_createtable(L, (int)(R->report.n - first), 0);
	for (size_t i = first; i < R->report.n; i++) {
		push_row(L, &R->report, &R->report.rows[i]);
		lua_rawseti(L, -2, (lua_Integer)(i - first + 1));
	}
}

static int read_action(lua_State *L, int idx, enum ts_action act, struct ts_scn_run *run,
		       char *err, size_t errlen)
{
	memset(run, 0, sizeof(*run));
	const struct ts_opt *tab = act == TS_ACT_RUN ? ts_scn_run_opts : ts_scn_preprocess_opts;
	int rc = ts_opt_defaults(ts_scn_run_opts, run, err, errlen);
	if (!rc)
		rc = ts_opt_defaults(ts_scn_preprocess_opts, run, err, errlen);
	if (!rc && !lua_isnoneornil(L, idx))
		rc = ts_opt_from_lua(tab, run, L, idx, act == TS_ACT_RUN ? "run" : "preprocess",
				     err, errlen);
	return rc;
}

static void free_action(struct ts_scn_run *run)
{
	ts_opt_free(ts_scn_run_opts, run);
	run->label = NULL; /* in both tables */
	ts_opt_free(ts_scn_preprocess_opts, run);
}

static int do_action(lua_State *L, enum ts_action act)
{
	struct ts_runner *R = RUNNER(L);
	struct ts_scn_run run;
	char err[1024] = "";
	if (read_action(L, 1, act, &run, err, sizeof(err))) {
		free_action(&run);
		return luaL_error(L, "%s", err);
	}
	size_t first = R->report.n;
	int rc = ts_runner_exec(R, job_of(act), &run, &first, err, sizeof(err));
	free_action(&run);
	if (rc)
		return raise_exec(L, rc, err);
	push_rows(L, R, first);
	return 1;
}

static int l_run(lua_State *L) { return do_action(L, TS_ACT_RUN); }
static int l_preprocess(lua_State *L) { return do_action(L, TS_ACT_PREPROCESS); }

/* sweep{ pipeline = { vcpus = {1, 2} }, mount = { mem = {"1GiB", "8GiB"} },
 *        run = {...} | preprocess = {...} }
 * Runs every combination, the last key varying fastest; each row is named
 * by the values it ran with. */
#define SWEEP_MAX_AXES 8
struct axis {
	const char *section, *key;
	lua_Integer n; /* values, in holder[i] */
};

static const char *const sweep_sections[] = { "dataset", "mount", "pipeline", "engine" };

/* Every top-level key of the sweep table (at 1) is a section or the
 * action; sets *@act. Raises a Lua error otherwise. */
static int sweep_action(lua_State *L, enum ts_action *act)
{
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		if (lua_type(L, -2) == LUA_TNUMBER) { /* the ordered form, read below */
			lua_pop(L, 1);
			continue;
		}
		const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
		bool ok = k && (!strcmp(k, "run") || !strcmp(k, "preprocess"));
		for (size_t i = 0; k && i < TS_ARRAY_SIZE(sweep_sections); i++)
			ok |= !strcmp(k, sweep_sections[i]);
		if (!ok)
			return luaL_error(L, "sweep: unknown section '%s' (known: dataset, mount, "
					  "pipeline, engine, run, preprocess)", k ? k : "?");
		lua_pop(L, 1);
	}
	bool has_run = lua_getfield(L, 1, "run") != LUA_TNIL;
	bool has_pre = lua_getfield(L, 1, "preprocess") != LUA_TNIL;
	lua_pop(L, 2);
	if (has_run && has_pre)
		return luaL_error(L, "sweep: give either run or preprocess, not both");
	*act = has_pre ? TS_ACT_PREPROCESS : TS_ACT_RUN;
	return 0;
}

/* The ordered form: { "engine.gpus", {1, 2, 4} }, ... in the array part of
 * the table at 1; each values array goes to holder[axis]. */
static int sweep_axes_ordered(lua_State *L, struct ts_runner *R, int holder, struct axis *ax,
			      size_t *nax)
{
	lua_Integer na = luaL_len(L, 1);
	for (lua_Integer i = 1; i <= na; i++) {
		lua_geti(L, 1, i);
		int e = lua_gettop(L);
		if (!lua_istable(L, e) || lua_geti(L, e, 1) != LUA_TSTRING ||
		    lua_geti(L, e, 2) != LUA_TTABLE)
			return luaL_error(
			    L, "sweep: entry %d: expected { \"section.key\", {values} }", (int)i);
		const char *sk = lua_tostring(L, e + 1);
		const char *dot = strchr(sk, '.');
		char sec[32];
		if (!dot || (size_t)(dot - sk) >= sizeof(sec))
			return luaL_error(L, "sweep: entry %d: '%s' is not section.key", (int)i, sk);
		memcpy(sec, sk, (size_t)(dot - sk));
		sec[dot - sk] = 0;
		const char *secname = NULL;
		for (size_t k = 0; k < TS_ARRAY_SIZE(sweep_sections); k++)
			if (!strcmp(sec, sweep_sections[k]))
				secname = sweep_sections[k];
		void *base;
		const struct ts_opt *tab = secname ? ts_scn_section(&R->cfg, secname, &base) : NULL;
		const struct ts_opt *o = tab ? ts_opt_find(tab, dot + 1) : NULL;
		if (!o)
			return luaL_error(L, "sweep: entry %d: unknown key '%s'", (int)i, sk);
		if (!strcmp(sec, "pipeline") && (!strcmp(o->name, "path") || !strcmp(o->name, "batch")))
			return luaL_error(L,
					  "sweep: pipeline.%s follows from dataset{} and engine{}; "
					  "sweep those instead",
					  o->name);
		if (luaL_len(L, e + 2) < 1)
			return luaL_error(L, "sweep: %s: expected a list of values", sk);
		if (*nax == SWEEP_MAX_AXES)
			return luaL_error(L, "sweep: at most %d keys", SWEEP_MAX_AXES);
		ax[*nax] = (struct axis){secname, o->name, luaL_len(L, e + 2)};
		lua_pushvalue(L, e + 2);
		lua_rawseti(L, holder, (lua_Integer)++ * nax);
		lua_settop(L, holder);
	}
	return 0;
}

/* The named form: sections in the order dataset, mount, pipeline, engine,
 * and keys in their option table's order (a Lua table's own order is not
 * stable from run to run). */
static int sweep_axes_named(lua_State *L, struct ts_runner *R, int holder, struct axis *ax,
			    size_t *nax)
{
	for (size_t s = 0; s < TS_ARRAY_SIZE(sweep_sections); s++) {
		const char *sec = sweep_sections[s];
		if (lua_getfield(L, 1, sec) == LUA_TNIL) {
			lua_pop(L, 1);
			continue;
		}
		if (!lua_istable(L, -1))
			return luaL_error(L, "sweep: %s: expected a table of key = {values}", sec);
		void *base;
		const struct ts_opt *tab = ts_scn_section(&R->cfg, sec, &base);
		int st = lua_gettop(L);
		lua_pushnil(L);
		while (lua_next(L, st)) {
			const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
			if (!ts_opt_find(tab, key))
				return luaL_error(L, "sweep: %s: unknown key '%s'", sec, key);
			lua_pop(L, 1);
		}
		/* In the option table's order. */
		for (const struct ts_opt *o = tab; o->name; o++) {
			if (lua_getfield(L, st, o->name) == LUA_TNIL) {
				lua_pop(L, 1);
				continue;
			}
			const char *key = o->name;
			if (!strcmp(sec, "pipeline") && (!strcmp(key, "path") || !strcmp(key, "batch")))
				return luaL_error(L,
						  "sweep: pipeline.%s follows from dataset{} and "
						  "engine{}; sweep those instead",
						  key);
			if (!lua_istable(L, -1) || luaL_len(L, -1) < 1)
				return luaL_error(L, "sweep: %s.%s: expected a list of values", sec,
						  key);
			if (*nax == SWEEP_MAX_AXES)
				return luaL_error(L, "sweep: at most %d keys", SWEEP_MAX_AXES);
			ax[*nax] = (struct axis){sec, key, luaL_len(L, -1)};
			lua_rawseti(L, holder, (lua_Integer)++ * nax);
		}
		lua_pop(L, 1);
	}
	return 0;
}

/* Runs @run once per combination of the axes' values (the last axis
 * varies fastest), each on a copy of the configuration, labelled by the
 * values. Returns 0 or the error, with a message in @err. */
static int sweep_exec(lua_State *L, struct ts_runner *R, int holder, const struct axis *ax,
		      size_t nax, enum ts_action act, struct ts_scn_run *run, char *err,
		      size_t errlen)
{
	char *base_label = run->label && *run->label ? strdup(run->label) : NULL;
	lua_Integer idx[SWEEP_MAX_AXES] = { 0 };
	int rc = 0;
	bool more = true;
	while (more && !rc) {
		struct ts_scenario saved;
		if (ts_scn_copy(&saved, &R->cfg)) {
			rc = -ENOMEM;
			break;
		}
		char label[512];
		size_t used = (size_t)snprintf(label, sizeof(label), "%s", base_label ? base_label : "");
		for (size_t a = 0; a < nax && !rc; a++) {
			void *base;
			const struct ts_opt *tab = ts_scn_section(&R->cfg, ax[a].section, &base);
			lua_rawgeti(L, holder, (lua_Integer)a + 1);
			lua_rawgeti(L, -1, idx[a] + 1);
			char nb[64];
			const char *v = scalar_text(L, -1, nb, sizeof(nb));
			char sub[512];
			if (!v) {
				snprintf(err, errlen,
					 "sweep: %s.%s: values must be numbers, "
					 "strings or booleans",
					 ax[a].section, ax[a].key);
				rc = TS_E_PARSE;
			} else if ((rc = ts_opt_set(tab, base, ax[a].key, v, sub, sizeof(sub)))) {
				snprintf(err, errlen, "sweep: %s: %s", ax[a].section, sub);
			} else if (used < sizeof(label)) {
				used += (size_t)snprintf(label + used, sizeof(label) - used, "%s%s=%s",
							 used ? " " : "", ax[a].key, v);
			}
			lua_pop(L, 2);
		}
		if (!rc) {
			free(run->label);
			run->label = strdup(label);
			size_t f;
			rc = run->label ? ts_runner_exec(R, job_of(act), run, &f, err, errlen) : -ENOMEM;
		}
		ts_scn_free(&R->cfg);
		R->cfg = saved;
		/* Next combination: the last axis varies fastest. */
		more = false;
		for (size_t a = nax; a-- > 0;) {
			if (++idx[a] < ax[a].n) {
				more = true;
				break;
			}
			idx[a] = 0;
		}
	}
	free(base_label);
	return rc;
}

static int l_sweep(lua_State *L)
{
	struct ts_runner *R = RUNNER(L);
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	struct axis ax[SWEEP_MAX_AXES];
	size_t nax = 0;
	char err[1024] = "";
	enum ts_action act = TS_ACT_RUN;
	sweep_action(L, &act);

	lua_newtable(L); /* holder: the values arrays, by axis */
	int holder = lua_gettop(L);
	sweep_axes_ordered(L, R, holder, ax, &nax); /* these raise on a bad key */
	sweep_axes_named(L, R, holder, ax, &nax);
	if (!nax)
		return luaL_error(L,
				  "sweep: nothing to sweep (e.g. pipeline = { vcpus = {1, 2} })");

	lua_getfield(L, 1, act == TS_ACT_RUN ? "run" : "preprocess");
	struct ts_scn_run run;
	if (read_action(L, lua_gettop(L), act, &run, err, sizeof(err))) {
		free_action(&run);
		return luaL_error(L, "%s", err);
	}
	size_t first = R->report.n;
	int rc = sweep_exec(L, R, holder, ax, nax, act, &run, err, sizeof(err));
	free_action(&run);
	if (rc)
		return raise_exec(L, rc, err);
	push_rows(L, R, first);
	return 1;
}

/* luaL_error() for a bad name=value from the command line: the run exits
 * with the usage status (2) rather than as a failed script. */
static int arg_error(lua_State *L, const char *fmt, ...)
{
	RUNNER(L)->usage_error = true;
	va_list ap;
	va_start(ap, fmt);
	luaL_where(L, 1);
	lua_pushvfstring(L, fmt, ap);
	va_end(ap);
	lua_concat(L, 2);
	return lua_error(L);
}

/* params{ name = default, ... }: the script's parameters. A command-line
 * name=value replaces the default, converted to the default's type. */
static int l_params(lua_State *L)
{
	struct ts_runner *R = RUNNER(L);
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_newtable(L);
	int out = lua_gettop(L);
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		if (lua_type(L, -2) != LUA_TSTRING)
			return luaL_error(L, "params: keys must be names");
		const char *key = lua_tostring(L, -2);
		const char *ov = NULL;
		for (size_t i = 0; i < R->o.nkv; i++) {
			const char *kv = R->o.kv[i];
			size_t kl = strcspn(kv, "=");
			if (!strchr(kv, '.') || strchr(kv, '.') > kv + kl) {
				if (strlen(key) == kl && !strncmp(kv, key, kl)) {
					ov = kv + kl + 1;
					R->kv_used[i] = true;
				}
			}
		}
		lua_pushvalue(L, -2);
		if (!ov) {
			lua_pushvalue(L, -2);
		} else {
			switch (lua_type(L, -2)) {
			case LUA_TNUMBER:
				if (!lua_stringtonumber(L, ov))
					return arg_error(L, "parameter %s=%s: expected a number", key,
							 ov);
				if (lua_isinteger(L, -3) && !lua_isinteger(L, -1))
					return arg_error(L, "parameter %s=%s: expected an integer",
							 key, ov);
				break;
			case LUA_TBOOLEAN:
				if (!strcmp(ov, "true") || !strcmp(ov, "1") || !strcmp(ov, "yes"))
					lua_pushboolean(L, 1);
				else if (!strcmp(ov, "false") || !strcmp(ov, "0") || !strcmp(ov, "no"))
					lua_pushboolean(L, 0);
				else
					return arg_error(L, "parameter %s=%s: expected true or false",
							 key, ov);
				break;
			default:
				lua_pushstring(L, ov);
				break;
			}
		}
		lua_settable(L, out);
		lua_pop(L, 1);
	}
	R->params_seen = true;
	for (size_t i = 0; i < R->o.nkv; i++) {
		const char *kv = R->o.kv[i];
		size_t kl = strcspn(kv, "=");
		const char *dot = strchr(kv, '.');
		if (R->kv_used[i] || (dot && dot < kv + kl))
			continue;
		char names[512] = "";
		size_t used = 0;
		lua_pushnil(L);
		while (lua_next(L, 1)) {
			if (used < sizeof(names))
				used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
							 used ? ", " : "", lua_tostring(L, -2));
			lua_pop(L, 1);
		}
		char bad[128];
		snprintf(bad, sizeof(bad), "%.*s", (int)(kl < 100 ? kl : 100), kv);
		return arg_error(L, "unknown parameter '%s' on the command line (this script's "
				 "parameters: %s; configuration keys are section.key, e.g. "
				 "engine.batch=32)", bad, names);
	}
	lua_pushvalue(L, out);
	return 1;
}

/* report{ title = "..." } */
static int l_report(lua_State *L)
{
	struct ts_runner *R = RUNNER(L);
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
		if (strcmp(k, "title"))
			return luaL_error(L, "report: unknown key '%s' (known: title)", k);
		if (ts_row_set_str(&R->report.title, luaL_checkstring(L, -1)))
			return luaL_error(L, "report: out of memory");
		lua_pop(L, 1);
	}
	return 0;
}

/* dlio{ workload = "unet3d_h100", tier = "nvme-local", accelerators = 4,
 *       find_max = false, mem = "0", overrides = { "reader.read_threads=8" } }
 * A DLIO workload in the runner's clock (tiersim run --virtual), as
 * `tiersim dlio` runs it (workloads/DLIO.md); returns { accelerators, au (%),
 * samples_per_s, mib_per_s, epochs, found }. */
/* One dlio{} key into @o: the run's option table, less what the runner
 * decides. */
static int dlio_key(struct ts_dlio_opts *o, const char *k, const char *v, char *err,
		    size_t errlen)
{
	/* The command's own outputs and clock: here the report holds the row and
	 * the runner sets the clock, so these would be dropped unsaid. */
	static const char *const not_here[] = { "json", "virtual", "quiet", "cheapest",
						"instance" };
	for (size_t i = 0; i < TS_ARRAY_SIZE(not_here); i++)
		if (!strcmp(k, not_here[i])) {
			snprintf(err, errlen, "'%s' is not a dlio{} key (%s)", k,
				 i == 1	  ? "the runner's --virtual sets the clock"
				 : i >= 3 ? "tiersim dlio's own"
					  : "the run's row goes to the report");
			return -EINVAL;
		}
	return ts_opt_set(ts_dlio_run_opts, o, k, v, err, errlen);
}

static int l_dlio(lua_State *L)
{
	struct ts_runner *R = RUNNER(L);
	luaL_checktype(L, 1, LUA_TTABLE);
	enum { MAXW = 64 };
	char words[MAXW][512];
	const char *ovs[MAXW];
	char err[2048] = "";
	struct ts_dlio_opts o;
	memset(&o, 0, sizeof(o));
	if (ts_opt_defaults(ts_dlio_run_opts, &o, err, sizeof(err)))
		return luaL_error(L, "dlio: %s", err);
	int rc = 0;
	lua_pushnil(L);
	while (!rc && lua_next(L, 1)) {
		if (lua_type(L, -2) != LUA_TSTRING) {
			ts_opt_free(ts_dlio_run_opts, &o);
			return luaL_error(L, "dlio: keys are names (workload, tier, accelerators, ...)");
		}
		const char *k = lua_tostring(L, -2);
		if (!strcmp(k, "workload")) {
			o.workload = lua_tostring(L, -1);
			if (!o.workload || lua_type(L, -1) != LUA_TSTRING) {
				ts_opt_free(ts_dlio_run_opts, &o);
				return luaL_error(L, "dlio: workload is a name or a .yaml path");
			}
		} else if (!strcmp(k, "overrides")) {
			if (!lua_istable(L, -1)) {
				ts_opt_free(ts_dlio_run_opts, &o);
				return luaL_error(L, "dlio: overrides is a list of \"SECTION.KEY=VALUE\"");
			}
			for (lua_Integer i = 1; o.noverrides < MAXW; i++) {
				lua_rawgeti(L, -1, i);
				const char *ov = lua_tostring(L, -1);
				if (ov)
					snprintf(words[o.noverrides], sizeof(words[0]), "%s", ov);
				lua_pop(L, 1);
				if (!ov)
					break;
				ovs[o.noverrides] = words[o.noverrides];
				o.noverrides++;
			}
		} else {
			const char *v = lua_isboolean(L, -1) ? (lua_toboolean(L, -1) ? "true" : "false")
							      : luaL_tolstring(L, -1, NULL);
			rc = dlio_key(&o, k, v, err, sizeof(err));
			if (!lua_isboolean(L, -1))
				lua_pop(L, 1); /* luaL_tolstring's copy */
		}
		lua_pop(L, 1);
	}
	if (rc) {
		lua_pop(L, 1); /* the key lua_next left */
	} else if (!o.tier || !o.workload) {
		snprintf(err, sizeof(err), "dlio{} needs workload = NAME and tier = T");
		rc = -EINVAL;
	}
	o.overrides = ovs;
	/* the job kind runs it and makes the row (dlio_job.c) */
	struct ts_dlio_job_out out = { 0 };
	if (!rc)
		rc = ts_runner_job(R, &ts_job_dlio, o.tier, &o, &out, err, sizeof(err));
	ts_opt_free(ts_dlio_run_opts, &o);
	if (rc)
		return luaL_error(L, "dlio: %s", err[0] ? err : ts_strerror(rc));
	const struct ts_dlio_result r = out.r;
	bool found = out.found;
	lua_createtable(L, 0, 6);
	lua_pushboolean(L, found);
	lua_setfield(L, -2, "found");
	lua_pushinteger(L, (lua_Integer)r.n);
	lua_setfield(L, -2, "accelerators");
	lua_pushnumber(L, 100 * r.au);
	lua_setfield(L, -2, "au");
	lua_pushnumber(L, r.samples_s);
	lua_setfield(L, -2, "samples_per_s");
	lua_pushnumber(L, r.mib_s);
	lua_setfield(L, -2, "mib_per_s");
	lua_pushinteger(L, (lua_Integer)r.epochs);
	lua_setfield(L, -2, "epochs");
	return 1;
}

void ts_lua_open_scenario(lua_State *L, struct ts_runner *R)
{
	static const luaL_Reg fns[] = {
		{ "params", l_params },	  { "dataset", l_dataset }, { "mount", l_mount },
		{ "pipeline", l_pipeline }, { "engine", l_engine },   { "run", l_run },
		{ "preprocess", l_preprocess }, { "sweep", l_sweep }, { "report", l_report },
		{ "dlio", l_dlio }, { "instance", l_instance }, { NULL, NULL },
	};
	lua_pushglobaltable(L);
	lua_pushlightuserdata(L, R);
	luaL_setfuncs(L, fns, 1);
	lua_pop(L, 1);

	lua_createtable(L, 0, 4);
	lua_pushstring(L, TS_VERSION);
	lua_setfield(L, -2, "version");
	lua_pushboolean(L, R->o.virtual_time);
	lua_setfield(L, -2, "virtual");
	lua_createtable(L, (int)R->o.ntiers, 0);
	for (size_t i = 0; i < R->o.ntiers; i++) {
		lua_pushstring(L, R->o.tiers[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "tiers");
	lua_setglobal(L, "tiersim");
}

/* ---- The script ------------------------------------------------------------- */

static int traceback(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);
	if (!msg)
		msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	luaL_traceback(L, L, msg, 1);
	return 1;
}

/* Lets a long-running script notice Ctrl-C between configurations. */
static void interrupt_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	if (ts_interrupted)
		luaL_error(L, "interrupted");
}

int ts_runner_script(struct ts_runner *R, const struct ts_runner_opts *o, bool *usage, char *err,
		     size_t errlen)
{
	*usage = false;
	int rc = ts_runner_init(R, o, err, errlen);
	if (rc) {
		*usage = rc == TS_E_UNKNOWN || rc == TS_E_PARSE;
		return rc;
	}
	rc = ts_runner_run(R, err, errlen);
	if (rc == -EINTR || ts_interrupted)
		return -EINTR;
	if (rc == TS_E_LUA) /* the message and traceback are printed */
		*usage = R->usage_error;
	return rc;
}

int ts_runner_run(struct ts_runner *R, char *err, size_t errlen)
{
	R->L = luaL_newstate();
	if (!R->L)
		return -ENOMEM;
	lua_State *L = R->L;
	luaL_openlibs(L);
	ts_lua_open_scenario(L, R);
	ts_lua_open_tiers(L, R);
	lua_sethook(L, interrupt_hook, LUA_MASKCOUNT, 10000);

	lua_pushcfunction(L, traceback);
	int h = lua_gettop(L);
	int rc = luaL_loadfile(L, R->o.script);
	if (rc == LUA_OK)
		rc = lua_pcall(L, 0, 0, h);
	if (rc != LUA_OK) {
		if (ts_interrupted)
			return -EINTR;
		const char *msg = lua_tostring(L, -1);
		/* The first line names SCRIPT:LINE; the traceback follows. */
		fprintf(stderr, "tiersim: %s\n", msg ? msg : "error");
		return TS_E_LUA;
	}
	if (!R->report.n) {
		snprintf(err, errlen, "%s ran no configuration (call run{}, preprocess{} or sweep{})",
			 R->o.script);
		return -ENODATA;
	}
	return 0;
}
