/*
 * luadata.h — one loader for the Lua data files of tiersim: tier profiles
 * (tier/tiers.lua), engine profiles (the files of engine/profiles/) and the
 * files users add beside them.
 *
 * A data file is a list of declarations, each a constructor call that
 * records the line it stands on:
 *
 *     gpu "V100" { mem_gib = 16, fp32_tflops = 15.7, ... }    -- a named kind
 *     anchor { framework = "mxnet", model = "vgg16", ... }     -- an unnamed kind
 *
 * It runs in a sandbox: the declaration functions of the kinds the caller
 * names and pure functions only (math, string, table, pairs, tonumber...;
 * no io, os, require, load or dofile), as a text chunk (a precompiled one
 * is refused), with a bound on the instructions it may run. Lua's own
 * errors read "file:line: what".
 *
 * Each declaration's keys are checked against its kind's list once the
 * file has run: an unknown key is an error naming the file, the line of
 * the key (or of the declaration, when the key was set elsewhere, as in a
 * helper function) and the known keys. Nested tables are checked by the
 * caller with ts_luadata_check_keys().
 */
#ifndef TS_LUADATA_H
#define TS_LUADATA_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ts.h"

struct lua_State;

struct ts_luadata_kind {
	const char *name; /* the function the file calls: "tier", "gpu" */
	bool named;	  /* kind "name" { ... }; otherwise kind { ... } */
	const char *const *keys; /* NULL-terminated: the keys its table may hold */
};

/* One declaration, as the file made it. */
struct ts_luadata_decl {
	const struct ts_luadata_kind *kind;
	const char *name; /* "" for an unnamed kind */
	int line;	  /* of the declaration's call in the file's main chunk */
};

struct ts_luadata;

/* Runs @path with the declaration functions of @kinds (ended by a NULL
 * name) and checks every declaration's keys. -ENOENT when the file cannot
 * be read, TS_E_PROFILE for anything wrong in it, -ENOMEM; @err says
 * which, with the file and line. */
TS_WUR int ts_luadata_load(const char *path, const struct ts_luadata_kind *kinds,
			   struct ts_luadata **out, char *err, size_t errlen);
void ts_luadata_free(struct ts_luadata *d);

const char *ts_luadata_path(const struct ts_luadata *d);
/* Declarations in the order the file made them. */
size_t ts_luadata_count(const struct ts_luadata *d);
/* The state the tables live in, for reading their fields. */
struct lua_State *ts_luadata_state(struct ts_luadata *d);
/* Pushes declaration @i's table and fills @out; returns the table's stack
 * index. Pop it (lua_settop) when done. */
int ts_luadata_push(struct ts_luadata *d, size_t i, struct ts_luadata_decl *out);

/* Every key of the table at @idx (a part of @decl's table, reached by the
 * dotted @path, "" for the table itself) must be one of @known. */
TS_WUR int ts_luadata_check_keys(struct ts_luadata *d, const struct ts_luadata_decl *decl,
				 int idx, const char *path, const char *const *known, char *err,
				 size_t errlen);
/* Writes "FILE:LINE: KIND 'NAME': MESSAGE" to @err; returns TS_E_PROFILE. */
int ts_luadata_error(const struct ts_luadata *d, const struct ts_luadata_decl *decl, char *err,
		     size_t errlen, const char *fmt, ...) TS_PRINTF(5, 6);

/* A declaration being read by a profile set: its file and declaration, the
 * state its table lives in, and where an error's one line goes. */
struct ts_luadata_rd {
	struct ts_luadata *d;
	struct ts_luadata_decl decl;
	struct lua_State *L;
	char *err;
	size_t errlen;
};
#define TS_LUADATA_FAIL(r, ...)                                                             \
	ts_luadata_error((r)->d, &(r)->decl, (r)->err, (r)->errlen, __VA_ARGS__)
/* String @key of the table at @t, strdup'd into *@out (left alone when
 * missing); another type is an error, and so is a missing or empty one when
 * @need. -ENOMEM, TS_E_PROFILE or 0. */
TS_WUR int ts_luadata_dup_str(struct ts_luadata_rd *r, int t, const char *key, bool need,
			      char **out);

/* "FILE:LINE" of @decl, malloc'd; NULL when out of memory. */
char *ts_luadata_where(const struct ts_luadata *d, const struct ts_luadata_decl *decl);
/* For the profile sets that keep their declarations in an array whose
 * elements start with their name (a char *): the element of *@arr (*@n of
 * @size bytes) named @name, or a new zeroed one appended, so that a later
 * file's declaration replaces an earlier one. NULL when out of memory. */
void *ts_luadata_slot(void **arr, size_t *n, size_t size, const char *name);

/* ---- typed reads of a declaration's fields (getters.c) ----
 * Each refuses a value of the wrong type with "FILE:LINE: KIND 'NAME':
 * ..." in @err (TS_E_PROFILE); none turns one into an empty or zero one. */

/* The string at @key of the table at @t into @buf (n bytes): "" when the
 * key is not set; longer than @n - 1 bytes is refused too. */
TS_WUR int ts_luadata_get_str(struct ts_luadata *d, const struct ts_luadata_decl *decl, int t,
			      const char *key, char *buf, size_t n, char *err, size_t errlen);
/* The number at @key of the table at @t; *@had says whether it is set
 * (@out untouched when not). */
TS_WUR int ts_luadata_get_num(struct ts_luadata *d, const struct ts_luadata_decl *decl, int t,
			      const char *key, bool *had, double *out, char *err,
			      size_t errlen);

/*
 * The evidence behind a number: one schema — a label, a source, the
 * validation case it was fitted to, and the range it may lie in — written
 * in two forms, which the data files keep:
 *   { LABEL, "source", case = "case-id", range = { LO, HI } }   (tier profiles'
 *     evidence = { FIELD = ... }, an engine figure's evidence = ...: the
 *     number is elsewhere; LO and HI are factors around it, 0 < LO <= 1 <= HI)
 *   { VALUE, LABEL, "source", low = LOW, high = HIGH }            (host profiles,
 *     TS_LUADATA_EV_VALUE: the number itself; LOW and HIGH are bounds,
 *     0 <= LOW <= VALUE <= HIGH, each VALUE when not given)
 * LABEL is "measured", "spec" or "assumed"; an assumed number needs its
 * range.
 */
enum ts_luadata_label { TS_LUADATA_NONE, TS_LUADATA_MEASURED, TS_LUADATA_SPEC, TS_LUADATA_ASSUMED };
const char *ts_luadata_label_name(enum ts_luadata_label l);

struct ts_luadata_ev {
	enum ts_luadata_label label;
	char *source;	/* malloc'd */
	char *fit_case; /* case = "id", malloc'd; NULL when none */
	double value;	/* TS_LUADATA_EV_VALUE: the number */
	bool has_range; /* a range was written */
	double lo, hi;	/* factors (range = ) or bounds (low = , high = ) */
};
#define TS_LUADATA_EV_VALUE 0x1

/* The entry at stack index @idx into @out (freed first), named @what in
 * messages; @extra: more keys the caller reads itself (NULL-terminated, or
 * NULL). */
TS_WUR int ts_luadata_get_ev(struct ts_luadata *d, const struct ts_luadata_decl *decl, int idx,
			     const char *what, unsigned flags, const char *const *extra,
			     struct ts_luadata_ev *out, char *err, size_t errlen);
void ts_luadata_ev_free(struct ts_luadata_ev *e);

#endif
