/* test_lua_opt.c — option tables set from Lua tables (scenario/lua_opt.c). */
#include <lauxlib.h>
#include <lualib.h>
#include <stdbool.h>
#include <string.h>

#include "tests/tcheck.h"
#include "scenario/lua_opt.h"

struct cfg {
	uint64_t qd;
	uint64_t bs;
	char *tier;
	bool direct;
};

static const struct ts_opt cfg_opts[] = {
	{ "qd", TS_OPT_U64, offsetof(struct cfg, qd), "32", 1, 4096, "", "queue depth" },
	{ "bs", TS_OPT_SIZE, offsetof(struct cfg, bs), "4k", 512, 0, "bytes", "IO size" },
	{ "tier", TS_OPT_STR, offsetof(struct cfg, tier), "ssd-cloud", 0, 0, "", "tier" },
	{ "direct", TS_OPT_BOOL, offsetof(struct cfg, direct), "true", 0, 0, "", "O_DIRECT" },
	{ NULL },
};

int main(void)
{
	struct cfg c = { 0 };
	char err[256];
	CHECK(ts_opt_defaults(cfg_opts, &c, err, sizeof(err)) == 0);
	lua_State *L = luaL_newstate();
	CHECK(luaL_dostring(L, "return { qd = 8, bs = '1MiB', tier = 'aws-gp2', direct = false }") == 0);
	CHECK(ts_opt_from_lua(cfg_opts, &c, L, -1, "pipeline", err, sizeof(err)) == 0);
	CHECK(c.qd == 8 && c.bs == TS_MiB && !c.direct && strcmp(c.tier, "aws-gp2") == 0);
	lua_pop(L, 1);
	CHECK(luaL_dostring(L, "return { qd = 8, colour = 'red' }") == 0);
	CHECK(ts_opt_from_lua(cfg_opts, &c, L, -1, "pipeline", err, sizeof(err)) == TS_E_UNKNOWN);
	CHECK(strstr(err, "pipeline: unknown key 'colour' (known: qd, bs, tier, direct)") != NULL);
	lua_pop(L, 1);
	CHECK(luaL_dostring(L, "return { qd = 0 }") == 0);
	CHECK(ts_opt_from_lua(cfg_opts, &c, L, -1, "pipeline", err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "pipeline: option 'qd'") != NULL && c.qd == 8);
	lua_pop(L, 1);
	CHECK(luaL_dostring(L, "return { tier = {} }") == 0);
	CHECK(ts_opt_from_lua(cfg_opts, &c, L, -1, "pipeline", err, sizeof(err)) == TS_E_PARSE);
	CHECK(strstr(err, "key 'tier': expected a value, got table") != NULL);
	lua_close(L);
	ts_opt_free(cfg_opts, &c);
	return tc_exit();
}
