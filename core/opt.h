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
 * min/max of 0/0 mean "no bound" (for a list: on the number of words).
 * Strings and lists are heap copies owned by the struct; ts_opt_free()
 * releases them. The Lua setters (a table of options from a scenario)
 * are in scenario/lua_opt.h: core/ knows no Lua.
 *
 * The same table is a program's command line (ts_opt_parse_args) and its
 * --help (ts_opt_help_args): "--name VALUE" with the placeholder @meta, the
 * help text, then the default, the range and the unit from the table.
 */
#ifndef TS_OPT_H
#define TS_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/ts.h"

enum ts_opt_type {
	TS_OPT_BOOL,	 /* bool */
	TS_OPT_INT,	 /* int64_t */
	TS_OPT_U64,	 /* uint64_t */
	TS_OPT_DOUBLE,	 /* double */
	TS_OPT_SIZE,	 /* uint64_t bytes, accepts units */
	TS_OPT_RATE,	 /* uint64_t bytes/s, accepts units */
	TS_OPT_DURATION, /* uint64_t ns, bare number = seconds */
	TS_OPT_STR,	 /* char * */
	TS_OPT_LIST,	 /* struct ts_opt_list: comma-separated words; repeating appends */
};

struct ts_opt_list {
	char **v;
	size_t n;
	bool given; /* set explicitly: a further value appends instead of replacing
		     * the default */
};

struct ts_opt {
	const char *name;
	enum ts_opt_type type;
	size_t off;
	const char *def; /* default as text, NULL = zero/NULL */
	double min, max;
	const char *unit;
	const char *help;
	const char *meta; /* the value in --help ("DIR", "FILE|-"); NULL = from the type */
	char alias;	  /* one-letter command-line form ('o' for -o), 0 = none */
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
/*
 * Command lines. ts_opt_parse_args() reads argv[1..argc): "--name=value",
 * "--name value", a bare "--flag" for booleans, "-x value" or "-xvalue" for
 * an option with the alias 'x'; dashes in a name stand for underscores. A
 * lone "-" and every word not starting with '-' are positional, "--" makes
 * the rest positional. Options may follow positionals unless @flags has
 * TS_OPT_ARGS_FIRST, where the first positional word ends the options (a
 * program that hands the rest to a subcommand). "-h" or "--help" anywhere
 * among the options sets @out->help and parses nothing. The positional
 * words are moved to the front, argv[1..1 + npos), in their order,
 * argv[1 + npos] becomes NULL, and @out->pos points at them. Errors name the option as the user wrote it,
 * in one line: "unknown option '--cuont'" (TS_E_UNKNOWN), "--top ten:
 * expected a non-negative integer" (TS_E_PARSE).
 */
enum { TS_OPT_ARGS_FIRST = 1 };
struct ts_opt_args {
	char **pos;
	int npos;
	bool help;
};
TS_WUR int ts_opt_parse_args(const struct ts_opt *tab, void *base, int argc, char **argv,
			     unsigned flags, struct ts_opt_args *out, char *err, size_t errlen);
const struct ts_opt *ts_opt_find(const struct ts_opt *tab, const char *name);
/* The option names, ", "-separated, for "unknown option" messages. */
void ts_opt_known(const struct ts_opt *tab, char *buf, size_t n);
/* Copies every option of @src to @dst, strings duplicated (@dst's are not
 * freed first: give a zeroed or freed @dst). -ENOMEM. */
TS_WUR int ts_opt_copy(const struct ts_opt *tab, void *dst, const void *src);
/* Current value as text (for reports and --help). */
char *ts_opt_get(const struct ts_opt *o, const void *base, char *buf, size_t n);
/* One entry per option: "  name" (name=value form, for -o lists) or
 * "  -x, --name META" (command-line form, with -h, --help last), the help
 * text wrapped, and "[default D; MIN to MAX UNIT]" from the table. */
void ts_opt_help(FILE *f, const struct ts_opt *tab);
void ts_opt_help_args(FILE *f, const struct ts_opt *tab);
void ts_opt_free(const struct ts_opt *tab, void *base);

#endif
