/*
 * cmdline.h — a subcommand's command line from its option table: the
 * defaults, the parse, --help generated from the table, and the one-line
 * usage errors with exit status 2 that every subcommand gives alike.
 *
 *   static const struct ts_cmdline cl = {
 *       .name = "tiers", .synopsis = "[--capacity SIZE] [--profile FILE]",
 *       .about = "Lists every tier profile ...", .opts = tiers_opts, .max_pos = 0,
 *   };
 *   struct ts_opt_args a;
 *   int rc = ts_cmdline_parse(&cl, &args, argc, argv, &a);
 *   if (rc >= 0)
 *       return rc; // --help printed, or a usage error
 *   ...
 *   ts_opt_free(cl.opts, &args);
 */
#ifndef TS_CMDLINE_H
#define TS_CMDLINE_H

#include <stdio.h>

#include "core/opt.h"
#include "core/ts.h"

struct ts_cmdline {
	const char *name;     /* "run", "trace stats": lines start "tiersim NAME: " */
	const char *synopsis; /* after "usage: tiersim NAME "; more forms on lines of their own */
	const char *about;    /* what the command does, before the options */
	const struct ts_opt *opts;
	const char *tail;     /* after the options (exit statuses, notes), or NULL */
	int max_pos;	      /* positional words allowed; -1 = any number */
};

/* Sets @base to the defaults of c->opts and reads argv[1..argc) into it.
 * Returns -1 to go on, with the positional words in a->pos[0..a->npos);
 * otherwise the exit status to return at once, with the table's strings
 * already freed: TS_EXIT_OK after --help, TS_EXIT_USAGE after one line on
 * stderr naming the option. */
TS_WUR int ts_cmdline_parse(const struct ts_cmdline *c, void *base, int argc, char **argv,
			    struct ts_opt_args *a);
void ts_cmdline_usage(const struct ts_cmdline *c, FILE *f);
/* "tiersim NAME: MESSAGE" on stderr; returns TS_EXIT_USAGE. */
int ts_cmdline_error(const struct ts_cmdline *c, const char *fmt, ...) TS_PRINTF(2, 3);

#endif
