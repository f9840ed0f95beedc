/* lua_opt.c — option tables from Lua tables (see lua_opt.h). */
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>

#include "scenario/lua_opt.h"

int ts_opt_from_lua(const struct ts_opt *tab, void *base, lua_State *L, int idx,
		    const char *what, char *err, size_t errlen)
{
	idx = lua_absindex(L, idx);
	if (!lua_istable(L, idx)) {
		snprintf(err, errlen, "%s: expected a table, got %s", what, luaL_typename(L, idx));
		return TS_E_PARSE;
	}
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		if (lua_type(L, -2) != LUA_TSTRING) {
			snprintf(err, errlen, "%s: keys must be names, got a %s key", what,
				 luaL_typename(L, -2));
			lua_pop(L, 2);
			return TS_E_PARSE;
		}
		const char *key = lua_tostring(L, -2);
		if (!ts_opt_find(tab, key)) {
			char known[512];
			ts_opt_known(tab, known, sizeof(known));
			snprintf(err, errlen, "%s: unknown key '%s' (known: %s)", what, key, known);
			lua_pop(L, 2);
			return TS_E_UNKNOWN;
		}
		char buf[64];
		const char *val;
		if (lua_type(L, -1) == LUA_TBOOLEAN) {
			val = lua_toboolean(L, -1) ? "true" : "false";
		} else if (lua_type(L, -1) == LUA_TNUMBER) {
			if (lua_isinteger(L, -1))
				snprintf(buf, sizeof(buf), "%lld", (long long)lua_tointeger(L, -1));
			else
				snprintf(buf, sizeof(buf), "%.17g", lua_tonumber(L, -1));
			val = buf;
		} else if (lua_type(L, -1) == LUA_TSTRING) {
			val = lua_tostring(L, -1);
		} else {
			snprintf(err, errlen, "%s: key '%s': expected a value, got %s", what, key,
				 luaL_typename(L, -1));
			lua_pop(L, 2);
			return TS_E_PARSE;
		}
		char sub[256];
		int rc = ts_opt_set(tab, base, key, val, sub, sizeof(sub));
		if (rc) {
			snprintf(err, errlen, "%s: %s", what, sub);
			lua_pop(L, 2);
			return rc;
		}
		lua_pop(L, 1);
	}
	return 0;
}
