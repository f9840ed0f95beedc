/*
 * test_luadata.c — the Lua data-file loader: declarations and their lines,
 * the sandbox (no io, os, require, load; text chunks only) and unknown keys
 * named with file, line and the known keys; the typed getters and the
 * evidence schema in both its forms.
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luadata/luadata.h"
#include "tests/tcheck.h"

static const char *const box_keys[] = { "size", "colour", "inner", "ev", "num", NULL };
static const struct ts_luadata_kind kinds[] = {
	{ .name = "box", .named = true, .keys = box_keys },
	{ .name = "note", .keys = NULL }, /* keys left to the caller */
	{ NULL },
};

static char path[64];

/* Writes @text to a new temporary file at path; the previous one, which
 * one_box's callers leave, is removed first. */
static void write_text(const char *text)
{
	if (path[0])
		unlink(path);
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
				       "(known: size, colour, inner, ev, num)", NULL });
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

/* Loads @text (one box "b" declaration on line @line) and pushes its table. */
static struct ts_luadata *one_box(const char *text, struct ts_luadata_decl *decl, int *t)
{
	struct ts_luadata *d = NULL;
	char err[512] = "";
	write_text(text);
	CHECK(ts_luadata_load(path, kinds, &d, err, sizeof(err)) == 0 && d);
	if (!d)
		return NULL;
	*t = ts_luadata_push(d, 0, decl);
	return d;
}

/* The typed getters: a value of the wrong type is refused with the file
 * and line, never read as "" or 0. */
static void test_typed(void)
{
	struct ts_luadata_decl decl;
	char buf[8], err[512];
	double x = -1;
	bool had;
	int t;
	struct ts_luadata *d = one_box("\nbox 'b' { colour = 5, size = 'big', num = 2.5 }\n", &decl, &t);
	if (!d)
		return;
	CHECK(ts_luadata_get_str(d, &decl, t, "colour", buf, sizeof(buf), err, sizeof(err)) ==
	      TS_E_PROFILE);
	CHECK(strstr(err, path) && strstr(err, ":2: box 'b': colour is a number, not a string"));
	CHECK(ts_luadata_get_num(d, &decl, t, "size", &had, &x, err, sizeof(err)) == TS_E_PROFILE);
	CHECK(strstr(err, ":2: box 'b': size is a string, not a number") != NULL);
	CHECK(ts_luadata_get_num(d, &decl, t, "num", &had, &x, err, sizeof(err)) == 0 && had);
	CHECK(x == 2.5);
	CHECK(ts_luadata_get_num(d, &decl, t, "inner", &had, &x, err, sizeof(err)) == 0 && !had);
	strcpy(buf, "x");
	CHECK(ts_luadata_get_str(d, &decl, t, "inner", buf, sizeof(buf), err, sizeof(err)) == 0);
	CHECK(!strcmp(buf, "")); /* not set */
	ts_luadata_free(d);
	d = one_box("box 'b' { colour = 'much too long' }\n", &decl, &t);
	if (!d)
		return;
	CHECK(ts_luadata_get_str(d, &decl, t, "colour", buf, sizeof(buf), err, sizeof(err)) ==
	      TS_E_PROFILE);
	CHECK(strstr(err, "colour is longer than 7 bytes") != NULL);
	ts_luadata_free(d);
}

/* One evidence entry at box.ev, read in @flags's form: 0 or the error. */
static int ev_of(const char *entry, unsigned flags, struct ts_luadata_ev *ev, char *err)
{
	char text[512];
	struct ts_luadata_decl decl;
	int t;
	snprintf(text, sizeof(text), "box 'b' { ev = %s }\n", entry);
	struct ts_luadata *d = one_box(text, &decl, &t);
	if (!d)
		return -1;
	lua_getfield(ts_luadata_state(d), t, "ev");
	int rc = ts_luadata_get_ev(d, &decl, -1, "ev", flags, NULL, ev, err, 512);
	ts_luadata_free(d);
	return rc;
}

/* The evidence schema in both forms: what each reads, and what each refuses. */
static void test_evidence(void)
{
	struct ts_luadata_ev ev = { 0 };
	char err[512];

	CHECK(ev_of("{ 'assumed', 'why', case = 'c-1', range = { 0.5, 2 } }", 0, &ev, err) == 0);
	CHECK(ev.label == TS_LUADATA_ASSUMED && !strcmp(ev.source, "why") &&
	      ev.fit_case && !strcmp(ev.fit_case, "c-1") && ev.has_range && ev.lo == 0.5 &&
	      ev.hi == 2);
	CHECK(ev_of("{ 'spec', 'table 3' }", 0, &ev, err) == 0);
	CHECK(ev.label == TS_LUADATA_SPEC && !ev.fit_case && !ev.has_range);
	CHECK(ev_of("{ 3.5, 'assumed', 'why', low = 3, high = 4 }", TS_LUADATA_EV_VALUE, &ev,
		    err) == 0);
	CHECK(ev.value == 3.5 && ev.label == TS_LUADATA_ASSUMED && ev.lo == 3 && ev.hi == 4);
	CHECK(ev_of("{ 7, 'measured', 'run 12' }", TS_LUADATA_EV_VALUE, &ev, err) == 0);
	CHECK(ev.value == 7 && !ev.has_range && ev.lo == 7 && ev.hi == 7);
	ts_luadata_ev_free(&ev);

	static const struct {
		const char *entry;
		unsigned flags;
		const char *want;
	} bad[] = {
		{ "'spec'", 0, "ev: expected { \"measured\"" },
		{ "{ 'guessed', 'x' }", 0, "ev: missing its label" },
		{ "{ 'spec' }", 0, "ev: missing its source" },
		{ "{ 'spec', 'x', cases = 'c' }", 0, "ev: unknown key" },
		{ "{ 'spec', 'x', case = 4 }", 0, "ev: case is a number, not a string" },
		{ "{ 'assumed', 'x' }", 0, "ev: an assumed value needs its range" },
		{ "{ 'spec', 'x', range = { 2, 3 } }", 0, "ev: range: expected { LO, HI }" },
		{ "{ 'x', 'spec', 'y' }", TS_LUADATA_EV_VALUE, "ev: missing its value" },
		{ "{ 1, 'spec' }", TS_LUADATA_EV_VALUE, "ev: missing its source" },
		{ "{ 1, 'assumed', 'y', low = 0.5 }", TS_LUADATA_EV_VALUE,
		  "ev: an assumed value needs low = and high =" },
		{ "{ 1, 'spec', 'y', low = 2 }", TS_LUADATA_EV_VALUE, "ev: needs 0 <= low <= value" },
		{ "{ 1, 'spec', 'y', high = 'max' }", TS_LUADATA_EV_VALUE, "ev: low = and high = are" },
		{ "{ 1, 'spec', 'y', case = 'c' }", TS_LUADATA_EV_VALUE, "ev: unknown key" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		int rc = ev_of(bad[i].entry, bad[i].flags, &ev, err);
		if (rc != TS_E_PROFILE || !strstr(err, bad[i].want) || !strstr(err, ":1: box 'b': "))
			fprintf(stderr, "evidence case %zu: %d \"%s\"\n", i, rc, err);
		CHECK(rc == TS_E_PROFILE && strstr(err, bad[i].want) && strstr(err, ":1: box 'b': "));
		CHECK(!ev.source && !ev.fit_case); /* nothing left behind */
	}
	unlink(path);
}

int main(void)
{
	test_declarations();
	test_refused();
	test_bytecode();
	test_typed();
	test_evidence();
	return tc_exit();
}
