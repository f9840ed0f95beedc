/*
 * getters.c — typed reads of a declaration's fields (luadata.h): a string,
 * a number, and the evidence behind a number in its two written forms. A
 * value of the wrong type is refused with the file and the declaration's
 * line, never taken as empty or zero.
 */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luadata/luadata.h"

int ts_luadata_get_str(struct ts_luadata *d, const struct ts_luadata_decl *decl, int t,
		       const char *key, char *buf, size_t n, char *err, size_t errlen)
{
	lua_State *L = ts_luadata_state(d);
	int ty = lua_getfield(L, t, key), rc = 0;
	size_t len = 0;
	const char *s = ty == LUA_TSTRING ? lua_tolstring(L, -1, &len) : "";

	if (ty != LUA_TNIL && ty != LUA_TSTRING)
		rc = ts_luadata_error(d, decl, err, errlen, "%s is a %s, not a string", key,
				      lua_typename(L, ty));
	else if (len >= n)
		rc = ts_luadata_error(d, decl, err, errlen, "%s is longer than %zu bytes", key,
				      n - 1);
	else
		snprintf(buf, n, "%s", s);
	lua_pop(L, 1);
	return rc;
}

int ts_luadata_get_num(struct ts_luadata *d, const struct ts_luadata_decl *decl, int t,
		       const char *key, bool *had, double *out, char *err, size_t errlen)
{
	lua_State *L = ts_luadata_state(d);
	int ty = lua_getfield(L, t, key), rc = 0;

	*had = ty != LUA_TNIL;
	if (ty == LUA_TNUMBER)
		*out = lua_tonumber(L, -1);
	else if (*had)
		rc = ts_luadata_error(d, decl, err, errlen, "%s is a %s, not a number", key,
				      lua_typename(L, ty));
	lua_pop(L, 1);
	return rc;
}

const char *ts_luadata_label_name(enum ts_luadata_label l)
{
	static const char *const n[] = { "-", "measured", "spec", "assumed" };
	return l <= TS_LUADATA_ASSUMED ? n[l] : "?";
}

static enum ts_luadata_label label_of(lua_State *L, int idx)
{
	const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : "";
	return !strcmp(s, "measured") ? TS_LUADATA_MEASURED
	       : !strcmp(s, "spec")   ? TS_LUADATA_SPEC
	       : !strcmp(s, "assumed") ? TS_LUADATA_ASSUMED
				       : TS_LUADATA_NONE;
}

void ts_luadata_ev_free(struct ts_luadata_ev *e)
{
	free(e->source);
	free(e->fit_case);
	memset(e, 0, sizeof(*e));
}

/* Whether @key (on the stack top) is one an entry of @form may hold: its
 * positions, its named keys, or one of the caller's @extra. */
static bool entry_key(lua_State *L, bool value_form, const char *const *extra)
{
	if (lua_type(L, -1) == LUA_TNUMBER) {
		lua_Integer i = lua_tointeger(L, -1);
		return i >= 1 && i <= (value_form ? 3 : 2);
	}
	if (lua_type(L, -1) != LUA_TSTRING)
		return false;
	const char *k = lua_tostring(L, -1);
	if (value_form ? !strcmp(k, "low") || !strcmp(k, "high")
		       : !strcmp(k, "case") || !strcmp(k, "range"))
		return true;
	for (; extra && *extra; extra++)
		if (!strcmp(k, *extra))
			return true;
	return false;
}

/* The factor form's range = { LO, HI } at entry @e. */
static int factor_range(struct ts_luadata *d, const struct ts_luadata_decl *decl, int e,
			const char *what, struct ts_luadata_ev *out, char *err, size_t errlen)
{
	lua_State *L = ts_luadata_state(d);
	int ty = lua_getfield(L, e, "range");
	double v[2] = { 0, 0 };
	bool ok = ty == LUA_TTABLE && lua_rawlen(L, -1) == 2;

	for (int k = 0; ok && k < 2; k++) {
		lua_rawgeti(L, -1, k + 1);
		ok = lua_type(L, -1) == LUA_TNUMBER;
		v[k] = ok ? lua_tonumber(L, -1) : 0;
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	if (ty == LUA_TNIL)
		return out->label == TS_LUADATA_ASSUMED
			       ? ts_luadata_error(d, decl, err, errlen,
						  "%s: an assumed value needs its range = { LO, HI } "
						  "(the factors it may be off by, LO <= 1 <= HI)",
						  what)
			       : 0;
	if (!ok || !(v[0] > 0) || v[0] > 1 || v[1] < 1 || !isfinite(v[1]))
		return ts_luadata_error(d, decl, err, errlen,
					"%s: range: expected { LO, HI } with 0 < LO <= 1 <= HI", what);
	out->has_range = true;
	out->lo = v[0];
	out->hi = v[1];
	return 0;
}

/* The value form's low = and high = at entry @e, around out->value. */
static int value_bounds(struct ts_luadata *d, const struct ts_luadata_decl *decl, int e,
			const char *what, struct ts_luadata_ev *out, char *err, size_t errlen)
{
	lua_State *L = ts_luadata_state(d);
	bool hl, hh;
	double lo = out->value, hi = out->value;
	int rc;

	lua_pushvalue(L, e);
	rc = ts_luadata_get_num(d, decl, -1, "low", &hl, &lo, err, errlen);
	if (!rc)
		rc = ts_luadata_get_num(d, decl, -1, "high", &hh, &hi, err, errlen);
	lua_pop(L, 1);
	if (rc)
		return ts_luadata_error(d, decl, err, errlen, "%s: low = and high = are numbers",
					what);
	if (out->label == TS_LUADATA_ASSUMED && (!hl || !hh))
		return ts_luadata_error(d, decl, err, errlen,
					"%s: an assumed value needs low = and high =", what);
	if (!(lo >= 0) || lo > out->value || hi < out->value)
		return ts_luadata_error(d, decl, err, errlen,
					"%s: needs 0 <= low <= value <= high (got %g, %g, %g)", what,
					lo, out->value, hi);
	out->has_range = hl || hh;
	out->lo = lo;
	out->hi = hi;
	return 0;
}

int ts_luadata_get_ev(struct ts_luadata *d, const struct ts_luadata_decl *decl, int idx,
		      const char *what, unsigned flags, const char *const *extra,
		      struct ts_luadata_ev *out, char *err, size_t errlen)
{
	lua_State *L = ts_luadata_state(d);
	bool vf = flags & TS_LUADATA_EV_VALUE;
	int base = lua_gettop(L), e = lua_absindex(L, idx), rc = 0;

	ts_luadata_ev_free(out);
	if (!lua_istable(L, e))
		return ts_luadata_error(
		    d, decl, err, errlen, "%s: expected %s, not a %s", what,
		    vf ? "{ VALUE, \"measured\"|\"spec\"|\"assumed\", \"source\" [, low = , high = ] }"
		       : "{ \"measured\"|\"spec\"|\"assumed\", \"source\" }",
		    luaL_typename(L, e));
	lua_pushnil(L);
	while (lua_next(L, e)) {
		lua_pop(L, 1);
		if (!entry_key(L, vf, extra)) {
			lua_settop(L, base);
			return ts_luadata_error(
			    d, decl, err, errlen, "%s: unknown key (%s)", what,
			    vf ? "a number is { VALUE, LABEL, \"source\", low = , high = }"
			       : "an entry is { LABEL, \"source\", case = \"case-id\", range = { LO, HI } }");
		}
	}
	int at = vf ? 2 : 1; /* the label's position */
	if (vf) {
		lua_rawgeti(L, e, 1);
		out->value = lua_tonumber(L, -1);
		if (lua_type(L, -1) != LUA_TNUMBER)
			rc = ts_luadata_error(d, decl, err, errlen, "%s: missing its value (first: a "
								    "number)", what);
	}
	lua_rawgeti(L, e, at);
	out->label = label_of(L, -1);
	lua_rawgeti(L, e, at + 1);
	const char *src = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
	if (!rc && out->label == TS_LUADATA_NONE)
		rc = ts_luadata_error(d, decl, err, errlen,
				      "%s: missing its label (%s value: \"measured\", \"spec\" or "
				      "\"assumed\")", what, vf ? "second" : "first");
	if (!rc && !*src)
		rc = ts_luadata_error(d, decl, err, errlen,
				      "%s: missing its source (%s value: the measurement, the vendor "
				      "table, or why it is assumed)", what, vf ? "third" : "second");
	if (!rc && !(out->source = strdup(src)))
		rc = -ENOMEM;
	lua_settop(L, base);
	if (!rc && !vf) {
		int ty = lua_getfield(L, e, "case");
		if (ty == LUA_TSTRING && !(out->fit_case = strdup(lua_tostring(L, -1))))
			rc = -ENOMEM;
		else if (ty != LUA_TSTRING && ty != LUA_TNIL)
			rc = ts_luadata_error(d, decl, err, errlen, "%s: case is a %s, not a string",
					      what, lua_typename(L, ty));
		lua_pop(L, 1);
		if (!rc)
			rc = factor_range(d, decl, e, what, out, err, errlen);
	} else if (!rc) {
		rc = value_bounds(d, decl, e, what, out, err, errlen);
	}
	if (rc)
		ts_luadata_ev_free(out);
	return rc;
}
