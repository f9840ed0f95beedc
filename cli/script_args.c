/* script_args.c — what run, compare and advise share on their command line (see script_args.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/commands.h"
#include "core/interrupt.h"
#include "cli/script_args.h"

int ts_script_args(const struct ts_cmdline *c, const struct ts_opt_args *a,
		   const struct ts_script_out *out, size_t max_kv, const char *example,
		   struct ts_runner_opts *o)
{
	for (int i = 0; i < a->npos; i++) {
		const char *w = a->pos[i];
		if (!o->script && !strchr(w, '=')) {
			o->script = w;
		} else if (strchr(w, '=')) {
			if (o->nkv == max_kv)
				return ts_cmdline_error(c, "at most %zu key=value arguments", max_kv);
			o->kv[o->nkv++] = w;
		} else {
			return ts_cmdline_error(c, "unexpected argument '%s' (parameters are "
						   "key=value)", w);
		}
	}
	if (!o->script)
		return ts_cmdline_error(c, "no scenario given (e.g. %s)", example);
	if (out->plot) {
		const char *ext = strrchr(out->plot, '.');
		if (!ext || (strcasecmp(ext, ".svg") && strcasecmp(ext, ".png")))
			return ts_cmdline_error(c, "--plot %s: the file must end in .svg or .png",
						out->plot);
	}
	if (out->instance) {
		if (o->nkv == max_kv)
			return ts_cmdline_error(c, "at most %zu key=value arguments", max_kv);
		snprintf(o->instance_kv, sizeof(o->instance_kv), "instance.name=%s", out->instance);
		o->kv[o->nkv++] = o->instance_kv;
	}
	o->workdir = out->workdir;
	o->quiet = out->quiet;
	return -1;
}

FILE *ts_script_table_stream(const struct ts_script_out *out)
{
	bool busy = (out->json && !strcmp(out->json, "-")) || (out->csv && !strcmp(out->csv, "-"));
	return busy ? stderr : stdout;
}

int ts_script_write(const struct ts_cmdline *c, const struct ts_report *r,
		    const struct ts_script_out *out, int status)
{
	int rc;
	if (out->json && (rc = ts_report_write_json(r, out->json))) {
		fprintf(stderr, "tiersim %s: --json %s: %s\n", c->name, out->json, ts_strerror(rc));
		status = status ? status : TS_EXIT_FAIL;
	}
	if (out->csv && (rc = ts_report_write_csv(r, out->csv))) {
		fprintf(stderr, "tiersim %s: --csv %s: %s\n", c->name, out->csv, ts_strerror(rc));
		status = status ? status : TS_EXIT_FAIL;
	}
	return status;
}

int ts_script_fail(const char *cmd, int rc, bool usage, const char *err)
{
	if (rc == -EINTR) {
		fprintf(stderr, "tiersim %s: interrupted by signal %d; stopping and unmounting\n",
			cmd, (int)ts_interrupted);
		return TS_EXIT_INTERRUPT;
	}
	if (rc != TS_E_LUA) /* a script's message and traceback are printed */
		fprintf(stderr, "tiersim %s: %s\n", cmd, err[0] ? err : ts_strerror(rc));
	return usage ? TS_EXIT_USAGE : TS_EXIT_FAIL;
}
