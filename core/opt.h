/*
 * opt.h — one option table per module drives the command line, the Lua
 * setters, validation and --help alike (the shape of fio's options.c).
 *
 *   struct cfg { uint64_t qd; uint64_t bs; char *tier; };
 *   static const struct ts_opt cfg_opts[] = {
 *       { "qd", TS_OPT_U64, offsetof(struct cfg, qd), "32", 1, 4096, "", "queue depth" },
 *       { "bs", TS_OPT_SIZE, offsetof(struct cfg, bs), "4k", 512, 0, "bytes", "IO size" },
 *       { "tier", TS_OPT_STR, offsetof(struct cfg, tier), "ssd-cloud", 0, 0, "", "tier name" },
 *       { NULL },
 *   };
 *
 * min/max of 0/0 mean "no bound". Strings are heap copies owned by the
 * struct; ts_opt_free() releases them. The Lua setters (a table of
 * options from a scenario) are in cli/lua_opt.h: core/ knows no Lua.
 */
#ifndef TS_OPT_H
#define TS_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ts.h"

enum ts_opt_type {
	TS_OPT_BOOL,	 /* bool */
	TS_OPT_INT,	 /* int64_t */
	TS_OPT_U64,	 /* uint64_t */
	TS_OPT_DOUBLE,	 /* double */
	TS_OPT_SIZE,	 /* uint64_t bytes, accepts units */
	TS_OPT_RATE,	 /* uint64_t bytes/s, accepts units */
	TS_OPT_DURATION, /* uint64_t ns, bare number = seconds */
	TS_OPT_STR,	 /* char * */
};

struct ts_opt {
	const char *name;
	enum ts_opt_type type;
	size_t off;
	const char *def; /* default as text, NULL = zero/NULL */
	double min, max;
	const char *unit;
	const char *help;
};

/* Set every option to its default. */
TS_WUR int ts_opt_defaults(const struct ts_opt *tab, void *base, char *err, size_t errlen);
/* Set one option from text. Unknown names and bad values are errors whose
 * message names the option and lists what is accepted. */
TS_WUR int ts_opt_set(const struct ts_opt *tab, void *base, const char *name, const char *val,
		      char *err, size_t errlen);
/* "name=value" form. */
TS_WUR int ts_opt_set_kv(const struct ts_opt *tab, void *base, const char *kv, char *err,
			 size_t errlen);
/* One "--name[=value]" command-line argument at argv[*i] ("--name value" and a
 * bare "--flag" for booleans too; dashes in the name stand for underscores).
 * Advances *i past what it used. */
TS_WUR int ts_opt_set_arg(const struct ts_opt *tab, void *base, int argc, char **argv, int *i,
			  char *err, size_t errlen);
const struct ts_opt *ts_opt_find(const struct ts_opt *tab, const char *name);
/* The option names, ", "-separated, for "unknown option" messages. */
void ts_opt_known(const struct ts_opt *tab, char *buf, size_t n);
/* Copies every option of @src to @dst, strings duplicated (@dst's are not
 * freed first: give a zeroed or freed @dst). -ENOMEM. */
TS_WUR int ts_opt_copy(const struct ts_opt *tab, void *dst, const void *src);
/* Current value as text (for reports and --help). */
char *ts_opt_get(const struct ts_opt *o, const void *base, char *buf, size_t n);
void ts_opt_help(FILE *f, const struct ts_opt *tab);
void ts_opt_free(const struct ts_opt *tab, void *base);

#endif
