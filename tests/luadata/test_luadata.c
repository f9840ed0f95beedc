/*
 * test_luadata.c — the Lua data-file loader: declarations and their lines,
 * the sandbox (no io, os, require, load; text chunks only) and unknown keys
 * named with file, line and the known keys.
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luadata/luadata.h"
#include "tcheck.h"

static const char *const box_keys[] = { "size", "colour", "inner", NULL };
static const struct ts_luadata_kind kinds[] = {
	{ .name = "box", .named = true, .keys = box_keys },
	{ .name = "note", .keys = NULL }, /* keys left to the caller */
	{ NULL },
};

static char path[64];

static void write_text(const char *text)
{
	strcpy(path, "/tmp/tiersim-luadata-XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

/* Loads @text; expects failure with every one of @want in the message. */
static void refused(const char *text, int want_rc, const char *const *want)
{
	struct ts_luadata *d = NULL;
	char err[512] = "";
	write_text(text);
	CHECK(ts_luadata_load(path, kinds, &d, err, sizeof(err)) == want_rc && !d);
	CHECK(strstr(err, path) != NULL && !strchr(err, '\n'));
	for (; *want; want++)
		if (!strstr(err, *want)) {
			fprintf(stderr, "'%s' not in: %s\n", *want, err);
			tc_failures++;
		}
	unlink(path);
}

static void test_declarations(void)
{
	write_text("-- two boxes and a note\n"
		   "local function big(n) box(n) { size = 10 } end\n"
		   "box \"a\" { size = 1,\n"
		   "  colour = 'red' }\n"
		   "big(\"b\")\n"
		   "note { anything = true }\n");
	struct ts_luadata *d = NULL;
	char err[512] = "";
	CHECK(ts_luadata_load(path, kinds, &d, err, sizeof(err)) == 0);
	if (!d)
		return;
	CHECK(ts_luadata_count(d) == 3);
	lua_State *L = ts_luadata_state(d);
	struct ts_luadata_decl decl;
	int t = ts_luadata_push(d, 0, &decl);
	lua_getfield(L, t, "colour");
	CHECK(strcmp(decl.kind->name, "box") == 0 && strcmp(decl.name, "a") == 0 && decl.line == 3);
	CHECK(strcmp(lua_tostring(L, -1), "red") == 0);
	lua_settop(L, 0);
	ts_luadata_push(d, 1, &decl);
	CHECK(strcmp(decl.name, "b") == 0 && decl.line == 5); /* the helper's call */
	lua_settop(L, 0);
	t = ts_luadata_push(d, 2, &decl);
	CHECK(strcmp(decl.kind->name, "note") == 0 && decl.name[0] == 0 && decl.line == 6);
	/* the caller checks what the kind leaves open */
	static const char *const note_keys[] = { "text", NULL };
	CHECK(ts_luadata_check_keys(d, &decl, t, "", note_keys, err, sizeof(err)) == TS_E_PROFILE);
	CHECK(strstr(err, ":6: note: unknown key 'anything' (known: text)") != NULL);
	lua_settop(L, 0);
	ts_luadata_free(d);
	unlink(path);
}

static void test_refused(void)
{
	/* the line of the key, not of the declaration */
	refused("box \"a\" {\n  size = 1,\n  color = 'red',\n}\n", TS_E_PROFILE,
		(const char *const[]){ ":3: box 'a': unknown key 'color'",
				       "(known: size, colour, inner)", NULL });
	/* set in a helper: the declaration's line */
	refused("local function mk(n) box(n) { colr = 1 } end\n\nmk('z')\n", TS_E_PROFILE,
		(const char *const[]){ ":3: box 'z': unknown key 'colr'", NULL });
	refused("box 'a' { size = 1 }\nbox 'a' { size = 2 }\n", TS_E_PROFILE,
		(const char *const[]){ ":2:", "box 'a' is declared twice", NULL });
	refused("box 'a' { 1, 2 }\n", TS_E_PROFILE,
		(const char *const[]){ ":1: box 'a':", "without a key", NULL });
	refused("box 'a' 'b'\n", TS_E_PROFILE, (const char *const[]){ ":1:", "table expected", NULL });
	refused("box '' { }\n", TS_E_PROFILE, (const char *const[]){ ":1:", "empty", NULL });
	/* the sandbox */
	static const char *const calls[] = { "io.open('/etc/passwd')", "os.exit(3)",
					     "require('os')",	       "load('return 1')()",
					     "dofile('/etc/passwd')",  "loadfile('/etc/passwd')" };
	for (size_t i = 0; i < TS_ARRAY_SIZE(calls); i++) {
		char text[128];
		snprintf(text, sizeof(text), "\n%s\n", calls[i]);
		refused(text, TS_E_PROFILE, (const char *const[]){ ":2:", "nil value", NULL });
	}
	refused("while true do end\n", TS_E_PROFILE, (const char *const[]){ "instructions", NULL });
	refused("box 'a' {\n", TS_E_PROFILE, (const char *const[]){ ":2:", "expected", NULL });
}

/* A precompiled chunk is refused: data files are text. */
static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud)
{
	(void)L;
	return fwrite(p, 1, sz, ud) == sz ? 0 : 1;
}

static void test_bytecode(void)
{
	lua_State *L = luaL_newstate();
	CHECK(luaL_loadstring(L, "box 'a' { size = 1 }") == LUA_OK);
	strcpy(path, "/tmp/tiersim-luadata-XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "wb");
	CHECK(f && lua_dump(L, dump_writer, f, 1) == 0);
	fclose(f);
	lua_close(L);
	struct ts_luadata *d = NULL;
	char err[512] = "";
	CHECK(ts_luadata_load(path, kinds, &d, err, sizeof(err)) == TS_E_PROFILE && !d);
	CHECK(strstr(err, path) && strstr(err, "binary chunk"));
	unlink(path);
	CHECK(ts_luadata_load("/nonexistent/x.lua", kinds, &d, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "/nonexistent/x.lua") != NULL);
}

int main(void)
{
	test_declarations();
	test_refused();
	test_bytecode();
	return tc_exit();
}
