/*
 * luadata.c — the sandboxed loader of Lua data files (see luadata.h).
 *
 * Declarations are kept in a registry list as { kind, name, line, t } in
 * the order they were made; the C side reads them once the file has run.
 * The line of a declaration is the current line of the file's main chunk
 * when the constructor is called, so that a declaration made inside a
 * helper function (essd() in tier/tiers.lua, add() in anchors.lua) is
 * named by the helper's call.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luadata/luadata.h"

#define LIST_KEY "ts.luadata.list"
#define MAX_INSTR 100000000 /* about a second of Lua */

struct ts_luadata {
	lua_State *L;
	char *path;
	const struct ts_luadata_kind *kinds;
	size_t n;
	int *lines;  /* of each declaration */
	char *text;  /* the file, read when an unknown key needs its line */
	bool noread; /* reading it failed once */
};

/* The current line of the file's main chunk. */
static int main_line(lua_State *L)
{
	lua_Debug ar;
	int line = 0;
	for (int lv = 1; lua_getstack(L, lv, &ar); lv++) {
		if (!lua_getinfo(L, "Sl", &ar))
			break;
		if (ar.currentline > 0)
			line = ar.currentline;
		if (strcmp(ar.what, "main") == 0)
			break;
	}
	return line;
}

/* Appends { kind = @kind, name = @name, line = @line, t = the table at 1 }. */
static void append(lua_State *L, lua_Integer kind, int name, lua_Integer line)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_getfield(L, LUA_REGISTRYINDEX, LIST_KEY);
	lua_Integer n = luaL_len(L, -1);
	if (name) {
		for (lua_Integer i = 1; i <= n; i++) {
			lua_rawgeti(L, -1, i);
			lua_getfield(L, -1, "kind");
			lua_getfield(L, -2, "name");
			bool same = lua_tointeger(L, -2) == kind && lua_rawequal(L, -1, name);
			lua_pop(L, 3);
			if (same) {
				lua_getfield(L, LUA_REGISTRYINDEX, "ts.luadata.kinds");
				const struct ts_luadata_kind *k = lua_touserdata(L, -1);
				luaL_error(L, "%s '%s' is declared twice in this file", k[kind].name,
					   lua_tostring(L, name));
				return;
			}
		}
	}
	lua_createtable(L, 0, 4);
	lua_pushinteger(L, kind);
	lua_setfield(L, -2, "kind");
	if (name)
		lua_pushvalue(L, name);
	else
		lua_pushliteral(L, "");
	lua_setfield(L, -2, "name");
	lua_pushinteger(L, line);
	lua_setfield(L, -2, "line");
	lua_pushvalue(L, 1);
	lua_setfield(L, -2, "t");
	lua_rawseti(L, -2, n + 1);
}

/* kind "name" { ... }: the inner call; upvalues kind, name, line. */
static int l_body(lua_State *L)
{
	append(L, lua_tointeger(L, lua_upvalueindex(1)), lua_upvalueindex(2),
	       lua_tointeger(L, lua_upvalueindex(3)));
	return 0;
}

/* kind "name": upvalue kind. */
static int l_named(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	if (!*name)
		return luaL_error(L, "the name is empty");
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_pushvalue(L, 1);
	lua_pushinteger(L, main_line(L));
	lua_pushcclosure(L, l_body, 3);
	return 1;
}

/* kind { ... }: upvalue kind. */
static int l_unnamed(lua_State *L)
{
	append(L, lua_tointeger(L, lua_upvalueindex(1)), 0, main_line(L));
	return 0;
}

/* The sandbox's globals: the declaration functions and pure functions. */
static void push_sandbox(lua_State *L, const struct ts_luadata_kind *kinds)
{
	static const char *const base[] = { "tonumber", "tostring", "type",  "pairs", "ipairs",
					    "select",	"error",    "assert", "next" };
	static const char *const libs[] = { "math", "string", "table" };
	lua_newtable(L);
	for (size_t i = 0; i < TS_ARRAY_SIZE(base); i++) {
		lua_getglobal(L, base[i]);
		lua_setfield(L, -2, base[i]);
	}
	for (size_t i = 0; i < TS_ARRAY_SIZE(libs); i++) {
		lua_getglobal(L, libs[i]);
		lua_setfield(L, -2, libs[i]);
	}
	for (lua_Integer k = 0; kinds[k].name; k++) {
		lua_pushinteger(L, k);
		lua_pushcclosure(L, kinds[k].named ? l_named : l_unnamed, 1);
		lua_setfield(L, -2, kinds[k].name);
	}
}

static void runaway(lua_State *L, lua_Debug *ar)
{
	lua_getinfo(L, "Sl", ar);
	luaL_error(L, "%s:%d: the file ran for more than %d Lua instructions (a loop that "
		   "never ends?)",
		   ar->short_src, ar->currentline, MAX_INSTR);
}

int ts_luadata_error(const struct ts_luadata *d, const struct ts_luadata_decl *decl, char *err,
		     size_t errlen, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (decl->kind->named)
		snprintf(err, errlen, "%s:%d: %s '%s': %s", d->path, decl->line, decl->kind->name,
			 decl->name, msg);
	else
		snprintf(err, errlen, "%s:%d: %s: %s", d->path, decl->line, decl->kind->name, msg);
	return TS_E_PROFILE;
}

int ts_luadata_dup_str(struct ts_luadata_rd *r, int t, const char *key, bool need, char **out)
{
	int ty = lua_getfield(r->L, t, key);
	int rc = 0;
	if (ty == LUA_TSTRING && (!need || *lua_tostring(r->L, -1))) {
		if (!(*out = strdup(lua_tostring(r->L, -1))))
			rc = -ENOMEM;
	} else if (ty == LUA_TNIL || ty == LUA_TSTRING) {
		if (need)
			rc = TS_LUADATA_FAIL(r, "missing %s = \"...\"", key);
	} else {
		rc = TS_LUADATA_FAIL(r, "%s is a %s, not a string", key, lua_typename(r->L, ty));
	}
	lua_pop(r->L, 1);
	return rc;
}

char *ts_luadata_where(const struct ts_luadata *d, const struct ts_luadata_decl *decl)
{
	size_t n = strlen(d->path) + 16;
	char *w = malloc(n);
	if (w)
		snprintf(w, n, "%s:%d", d->path, decl->line);
	return w;
}

void *ts_luadata_slot(void **arr, size_t *n, size_t size, const char *name)
{
	for (size_t i = 0; i < *n; i++) {
		char *have = *(char **)((char *)*arr + i * size);
		if (!strcmp(have, name))
			return (char *)*arr + i * size;
	}
	void *a = realloc(*arr, (*n + 1) * size);
	if (!a)
		return NULL;
	*arr = a;
	return memset((char *)a + (*n)++ * size, 0, size);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = 0, cap = 0;
	char *s = NULL;
	for (;;) {
		if (cap - n < 4096) {
			char *ns = realloc(s, cap + 65536);
			if (!ns) {
				free(s);
				fclose(f);
				return NULL;
			}
			s = ns;
			cap += 65536;
		}
		size_t got = fread(s + n, 1, cap - n - 1, f);
		n += got;
		if (!got)
			break;
	}
	s[n] = 0;
	fclose(f);
	return s;
}

/* Whether @line (up to a newline) sets @key: the name, as a whole word,
 * then '=' (not '=='), outside a -- comment. */
static bool sets_key(const char *line, const char *key)
{
	size_t kl = strlen(key);
	const char *end = strchr(line, '\n');
	const char *comment = strstr(line, "--");
	if (!end)
		end = line + strlen(line);
	if (comment && comment < end)
		end = comment;
	for (const char *p = line; p + kl <= end; p++) {
		if (strncmp(p, key, kl) != 0)
			continue;
		bool word_before = p > line && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
						 (p[-1] >= 'A' && p[-1] <= 'Z') ||
						 (p[-1] >= '0' && p[-1] <= '9'));
		const char *q = p + kl;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (!word_before && q < end && *q == '=' && (q + 1 >= end || q[1] != '='))
			return true;
	}
	return false;
}

/* The line that sets @key in @decl: the first from the declaration's line
 * up to the next declaration's; the declaration's own line when none does
 * (the key was set elsewhere, e.g. in a helper function). */
static int key_line(struct ts_luadata *d, const struct ts_luadata_decl *decl, const char *key)
{
	if (!d->text && !d->noread && !(d->text = read_text(d->path)))
		d->noread = true;
	if (!d->text)
		return decl->line;
	int stop = 0;
	for (size_t i = 0; i < d->n; i++)
		if (d->lines[i] > decl->line && (!stop || d->lines[i] < stop))
			stop = d->lines[i];
	const char *p = d->text;
	for (int ln = 1; *p && (!stop || ln < stop); ln++) {
		if (ln >= decl->line && sets_key(p, key))
			return ln;
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return decl->line;
}

int ts_luadata_check_keys(struct ts_luadata *d, const struct ts_luadata_decl *decl, int idx,
			  const char *path, const char *const *known, char *err, size_t errlen)
{
	lua_State *L = d->L;
	idx = lua_absindex(L, idx);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING) {
			lua_pop(L, 1);
			return ts_luadata_error(d, decl, err, errlen,
						"%s%sa value without a key; use named keys", path,
						*path ? ": " : "");
		}
		const char *k = lua_tostring(L, -1);
		bool ok = false;
		for (const char *const *p = known; *p && !ok; p++)
			ok = strcmp(*p, k) == 0;
		if (ok)
			continue;
		char list[512] = "";
		size_t used = 0;
		for (const char *const *p = known; *p && used < sizeof(list); p++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 used ? ", " : "", *p);
		struct ts_luadata_decl at = *decl;
		at.line = key_line(d, decl, k);
		int rc = ts_luadata_error(d, &at, err, errlen, "unknown key '%s%s%s' (known: %s)",
					  path, *path ? "." : "", k, list);
		lua_pop(L, 1);
		return rc;
	}
	return 0;
}

int ts_luadata_load(const char *path, const struct ts_luadata_kind *kinds,
		    struct ts_luadata **out, char *err, size_t errlen)
{
	struct ts_luadata *d = calloc(1, sizeof(*d));
	lua_State *L = d ? luaL_newstate() : NULL;
	int rc = 0;
	*out = NULL;
	if (!L || !(d->path = strdup(path))) {
		if (L)
			lua_close(L);
		free(d);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	d->L = L;
	d->kinds = kinds;
	luaL_requiref(L, "_G", luaopen_base, 1);
	luaL_requiref(L, "math", luaopen_math, 1);
	luaL_requiref(L, "string", luaopen_string, 1);
	luaL_requiref(L, "table", luaopen_table, 1);
	lua_settop(L, 0);
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, LIST_KEY);
	lua_pushlightuserdata(L, (void *)kinds);
	lua_setfield(L, LUA_REGISTRYINDEX, "ts.luadata.kinds");

	/* Data with a little arithmetic: one that runs away is stopped
	 * rather than hanging whoever loads it. */
	lua_sethook(L, runaway, LUA_MASKCOUNT, MAX_INSTR);
	int lrc = luaL_loadfilex(L, path, "t");
	if (lrc == LUA_ERRFILE) {
		snprintf(err, errlen, "%s: cannot read the file (%s)", path, lua_tostring(L, -1));
		rc = -ENOENT;
		goto out;
	}
	if (lrc == LUA_OK) {
		push_sandbox(L, kinds);
		lua_setupvalue(L, -2, 1);
		lrc = lua_pcall(L, 0, 0, 0);
	}
	if (lrc != LUA_OK) {
		/* Lua's message reads "file:line: what", but for a refused
		 * binary chunk, which names no file. */
		const char *msg = lua_tostring(L, -1) ? lua_tostring(L, -1) : "the file raised an error";
		bool named = strstr(msg, path) || !strncmp(msg, "...", 3);
		snprintf(err, errlen, "%s%s%s", named ? "" : path, named ? "" : ": ", msg);
		rc = lrc == LUA_ERRMEM ? -ENOMEM : TS_E_PROFILE;
		goto out;
	}
	lua_sethook(L, NULL, 0, 0);
	lua_getfield(L, LUA_REGISTRYINDEX, LIST_KEY);
	d->n = (size_t)luaL_len(L, -1);
	lua_pop(L, 1);
	if (!(d->lines = calloc(d->n + 1, sizeof(*d->lines)))) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	for (size_t i = 0; i < d->n; i++) {
		struct ts_luadata_decl decl;
		ts_luadata_push(d, i, &decl);
		lua_pop(L, 1);
		d->lines[i] = decl.line;
	}
	for (size_t i = 0; i < d->n && !rc; i++) {
		struct ts_luadata_decl decl;
		int t = ts_luadata_push(d, i, &decl);
		if (decl.kind->keys)
			rc = ts_luadata_check_keys(d, &decl, t, "", decl.kind->keys, err, errlen);
		lua_settop(L, 0);
	}
out:
	if (rc) {
		ts_luadata_free(d);
		return rc;
	}
	lua_settop(L, 0);
	*out = d;
	return 0;
}

int ts_luadata_push(struct ts_luadata *d, size_t i, struct ts_luadata_decl *out)
{
	lua_State *L = d->L;
	lua_getfield(L, LUA_REGISTRYINDEX, LIST_KEY);
	lua_rawgeti(L, -1, (lua_Integer)i + 1);
	lua_remove(L, -2);
	int e = lua_gettop(L);
	lua_getfield(L, e, "kind");
	lua_getfield(L, e, "name");
	lua_getfield(L, e, "line");
	out->kind = &d->kinds[lua_tointeger(L, -3)];
	out->name = lua_tostring(L, -2); /* kept alive by the list */
	out->line = (int)lua_tointeger(L, -1);
	lua_pop(L, 3);
	lua_getfield(L, e, "t");
	lua_remove(L, e);
	return lua_gettop(L);
}

const char *ts_luadata_path(const struct ts_luadata *d)
{
	return d->path;
}

size_t ts_luadata_count(const struct ts_luadata *d)
{
	return d->n;
}

lua_State *ts_luadata_state(struct ts_luadata *d)
{
	return d->L;
}

void ts_luadata_free(struct ts_luadata *d)
{
	if (!d)
		return;
	if (d->L)
		lua_close(d->L);
	free(d->path);
	free(d->lines);
	free(d->text);
	free(d);
}
