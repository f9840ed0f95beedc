/*
 * lua_opt.h — option tables (core/opt.h) set from Lua tables: a scenario's
 * `pipeline { qd = 32, bs = "1MiB" }` goes through the same table, units
 * and validation as `--qd 32 --bs 1MiB` on the command line.
 */
#ifndef TS_LUA_OPT_H
#define TS_LUA_OPT_H

#include <stddef.h>

#include "core/opt.h"

struct lua_State;

/* Read every key of the Lua table at @idx; unknown keys are errors. @what
 * names the table in messages ("pipeline", "engine"). */
TS_WUR int ts_opt_from_lua(const struct ts_opt *tab, void *base, struct lua_State *L, int idx,
			   const char *what, char *err, size_t errlen);

#endif
