/*
 * lua_tier.c — the tier profiles, for scripts that pick tiers or size
 * disks by their limits:
 *
 *   for _, name in ipairs(tiers.list()) do ... end
 *   local l = tiers.limits("ssd-cloud", "500GiB")  -- l.iops, l.read_bps, ...
 *
 * The runner (and its tier set) is each function's upvalue.
 */
#include <lauxlib.h>
#include <lua.h>

#include "core/opt.h"
#include "tier/tier.h"
#include "scenario/runner.h"
#include "core/units.h"

#define RUNNER(L) ((struct ts_runner *)lua_touserdata(L, lua_upvalueindex(1)))

static int l_list(lua_State *L)
{
	struct ts_runner *R = RUNNER(L);
	size_t n = ts_tier_set_count(R->env.tiers);
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		lua_pushstring(L, ts_tier_set_at(R->env.tiers, i)->name);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

static int l_limits(lua_State *L)
{
	struct ts_runner *R = RUNNER(L);
	const char *name = luaL_checkstring(L, 1);
	uint64_t cap = 0;
	if (!lua_isnoneornil(L, 2)) {
		const char *c = luaL_checkstring(L, 2); /* numbers convert to text too */
		if (ts_parse_size(c, &cap))
			return luaL_error(L, "tiers.limits: cannot parse capacity '%s' "
					  "(expected a size such as 500GiB)", c);
	}
	const struct ts_tier_profile *p;
	char err[512];
	if (ts_tier_set_lookup(R->env.tiers, name, &p, err, sizeof(err)))
		return luaL_error(L, "tiers.limits: %s", err);
	struct ts_tier_limits l;
	if (ts_tier_effective(p, cap, &l, err, sizeof(err)))
		return luaL_error(L, "tiers.limits: %s", err);
	lua_createtable(L, 0, 12);
	const struct {
		const char *k;
		double v;
	} f[] = {
		{ "capacity", (double)l.capacity }, { "iops", l.iops },
		{ "read_iops", l.read_iops },	    { "write_iops", l.write_iops },
		{ "bps", l.bps },		    { "read_bps", l.read_bps },
		{ "write_bps", l.write_bps },	    { "burst_iops", l.burst_iops },
		{ "burst_bps", l.burst_bps },	    { "parallel", (double)l.parallel },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(f); i++) {
		lua_pushnumber(L, f[i].v);
		lua_setfield(L, -2, f[i].k);
	}
	lua_pushstring(L, p->desc ? p->desc : "");
	lua_setfield(L, -2, "desc");
	lua_pushstring(L, p->source ? p->source : "");
	lua_setfield(L, -2, "source");
	return 1;
}

void ts_lua_open_tiers(lua_State *L, struct ts_runner *R)
{
	static const luaL_Reg fns[] = {
		{ "list", l_list },
		{ "limits", l_limits },
		{ NULL, NULL },
	};
	lua_createtable(L, 0, 2);
	lua_pushlightuserdata(L, R);
	luaL_setfuncs(L, fns, 1);
	lua_setglobal(L, "tiers");
}
