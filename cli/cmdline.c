/* cmdline.c — a subcommand's command line from its option table (see cmdline.h). */
#include <stdarg.h>
#include <stdio.h>

#include "cli/cmdline.h"
#include "cli/commands.h"

void ts_cmdline_usage(const struct ts_cmdline *c, FILE *f)
{
	fprintf(f, "usage: tiersim %s %s\n", c->name, c->synopsis);
	if (c->about)
		fprintf(f, "\n%s", c->about);
	if (c->opts && c->opts->name) {
		fprintf(f, "\noptions:\n");
		ts_opt_help_args(f, c->opts);
	}
	if (c->tail)
		fprintf(f, "\n%s", c->tail);
}

int ts_cmdline_error(const struct ts_cmdline *c, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tiersim %s: ", c->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return TS_EXIT_USAGE;
}

int ts_cmdline_parse(const struct ts_cmdline *c, void *base, int argc, char **argv,
		     struct ts_opt_args *a)
{
	static const struct ts_opt none[] = { { NULL } };
	const struct ts_opt *tab = c->opts ? c->opts : none;
	char err[512];
	int rc = ts_opt_defaults(tab, base, err, sizeof(err));
	if (rc) { /* a table whose default does not parse: a bug, said as such */
		fprintf(stderr, "tiersim %s: default of %s\n", c->name, err);
		ts_opt_free(tab, base);
		return TS_EXIT_FAIL;
	}
	rc = ts_opt_parse_args(tab, base, argc, argv, 0, a, err, sizeof(err));
	if (!rc && a->help) {
		ts_cmdline_usage(c, stdout);
		ts_opt_free(tab, base);
		return TS_EXIT_OK;
	}
	if (!rc && c->max_pos >= 0 && a->npos > c->max_pos) {
		snprintf(err, sizeof(err), "unexpected argument '%s'", a->pos[c->max_pos]);
		rc = TS_E_PARSE;
	}
	if (rc) {
		ts_opt_free(tab, base);
		if (rc == -ENOMEM) {
			fprintf(stderr, "tiersim %s: out of memory\n", c->name);
			return TS_EXIT_FAIL;
		}
		return ts_cmdline_error(c, "%s%s%s%s", err, rc == TS_E_UNKNOWN ? " (tiersim " : "",
					rc == TS_E_UNKNOWN ? c->name : "",
					rc == TS_E_UNKNOWN ? " --help lists the options)" : "");
	}
	return -1;
}
