/*
 * cmd_trace.c — `tiersim trace VERB ...`: look inside traces and convert
 * them. dump/undump (the text form), stats, import (fio iolog v2/v3,
 * blkparse text) and export (fio iolog v3, or a perfetto timeline).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "traces/import.h"
#include "traces/iolog.h"
#include "traces/perfetto.h"
#include "traces/stats.h"
#include "traces/text.h"
#include "traces/trace.h"
#include "core/units.h"

/* Every verb's options; each verb's table names the ones it takes. */
struct trace_args {
	char *out, *format, *prefix;
	bool json;
	uint64_t top, interval; /* rows; ns */
};

#define TA(f) offsetof(struct trace_args, f)
static const struct ts_opt undump_opts[] = {
	{ "out", TS_OPT_STR, TA(out), NULL, 0, 0, "", "the trace to write", "FILE", 'o' },
	{ NULL },
};
static const struct ts_opt stats_opts[] = {
	{ "json", TS_OPT_BOOL, TA(json), "false", 0, 0, "", "JSON instead of the text report",
	  NULL, 'j' },
	{ "top", TS_OPT_U64, TA(top), "10", 0, 0, "rows", "files in the busiest-files table",
	  NULL, 'n' },
	{ "interval", TS_OPT_DURATION, TA(interval), NULL, 1, 0, "",
	  "add a timeline with one slot per interval", "DUR", 'i' },
	{ NULL },
};
static const struct ts_opt import_opts[] = {
	{ "out", TS_OPT_STR, TA(out), NULL, 0, 0, "", "the trace to write", "FILE", 'o' },
	{ "format", TS_OPT_STR, TA(format), NULL, 0, 0, "",
	  "the input's format (default: guessed from the first line)", "iolog|blkparse" },
	{ NULL },
};
static const struct ts_opt export_opts[] = {
	{ "out", TS_OPT_STR, TA(out), NULL, 0, 0, "", "the fio iolog (or the timeline) to write",
	  "FILE", 'o' },
	{ "prefix", TS_OPT_STR, TA(prefix), NULL, 0, 0, "",
	  "file names are DIR/PATH (default: relative to fio's working directory)", "DIR" },
	{ "format", TS_OPT_STR, TA(format), "iolog", 0, 0, "",
	  "iolog (fio iolog v3) or perfetto (a timeline for ui.perfetto.dev: a track per "
	  "thread, IO slices, gaps as work or waiting)", "iolog|perfetto" },
	{ NULL },
};

/* Reads @path; prints the error, or a warning for drops and cut traces. */
static int load(const char *path, struct ts_trace *t)
{
	char err[512], warn[256];
	int ret = ts_trace_read(path, t, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "tiersim trace: %s\n", err);
		return ret;
	}
	if (ts_trace_warning(t, warn, sizeof(warn)))
		fprintf(stderr, "tiersim trace: %s: warning: %s\n", path, warn);
	return 0;
}

static int do_dump(const struct trace_args *o, const char *in)
{
	struct ts_trace t;
	(void)o;
	if (load(in, &t))
		return 1;
	int ret = ts_trace_dump(stdout, &t);
	if (!ret && fflush(stdout))
		ret = -errno;
	ts_trace_free(&t);
	if (ret) {
		fprintf(stderr, "tiersim trace dump: writing stdout: %s\n", ts_strerror(ret));
		return 1;
	}
	return 0;
}

static int do_undump(const struct trace_args *o, const char *in)
{
	const char *out = o->out;
	FILE *f = strcmp(in, "-") ? fopen(in, "r") : stdin;
	if (!f) {
		fprintf(stderr, "tiersim trace undump: %s: %s\n", in, strerror(errno));
		return 1;
	}
	struct ts_trace t;
	char err[512];
	int ret = ts_trace_undump(f, strcmp(in, "-") ? in : "stdin", &t, err, sizeof(err));
	if (f != stdin)
		fclose(f);
	if (ret) {
		fprintf(stderr, "tiersim trace undump: %s\n", err);
		return 1;
	}
	ret = ts_trace_write(&t, out);
	ts_trace_free(&t);
	if (ret) {
		fprintf(stderr, "tiersim trace undump: writing %s: %s\n", out, ts_strerror(ret));
		return 1;
	}
	return 0;
}

static int do_stats(const struct trace_args *a, const char *in)
{
	bool json = a->json;
	uint64_t interval = a->interval;
	size_t top = a->top > SIZE_MAX ? SIZE_MAX : (size_t)a->top;

	struct ts_trace t;
	struct ts_trace_stats *s;
	if (load(in, &t))
		return 1;
	int ret = ts_trace_stats_compute(&t, interval, &s);
	if (ret) {
		fprintf(stderr, "tiersim trace stats: %s: %s%s\n", in, ts_strerror(ret),
			ret == -E2BIG ? " (too many timeline slots: give a longer --interval)"
				      : "");
		ts_trace_free(&t);
		return 1;
	}
	if (json) {
		json_t *o = ts_trace_stats_json(s, &t);
		ret = o ? json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : -1;
		fputc('\n', stdout);
		json_decref(o);
	} else {
		ts_trace_stats_print(stdout, s, &t, top);
	}
	ts_trace_stats_free(s);
	ts_trace_free(&t);
	if (ret || fflush(stdout)) {
		fprintf(stderr, "tiersim trace stats: writing the report failed\n");
		return 1;
	}
	return 0;
}

static int do_import(const struct trace_args *o, const char *in)
{
	const char *out = o->out, *fmt = o->format;
	char err[512];
	struct ts_trace t;
	int ret;

	FILE *f = strcmp(in, "-") ? fopen(in, "r") : stdin;
	if (!f) {
		fprintf(stderr, "tiersim trace import: %s: %s\n", in, strerror(errno));
		return 1;
	}
	const char *name = f == stdin ? "stdin" : in;
	uint64_t waits;
	ret = ts_trace_import(f, name, fmt, &t, &waits, err, sizeof(err));
	if (f != stdin)
		fclose(f);
	if (ret) {
		fprintf(stderr, "tiersim trace import: %s\n", err);
		return ret == -ENOTSUP ? 2 : 1;
	}
	if (waits)
		fprintf(stderr, "tiersim trace import: %s: ignored %llu wait lines (fio ignores "
				"wait in version 3)\n", name, (unsigned long long)waits);
	ret = ts_trace_write(&t, out);
	size_t n = t.nrecs;
	ts_trace_free(&t);
	if (ret) {
		fprintf(stderr, "tiersim trace import: writing %s: %s\n", out, ts_strerror(ret));
		return 1;
	}
	fprintf(stderr, "tiersim trace import: %s: %zu ops -> %s\n", name, n, out);
	return 0;
}

static int do_export(const struct trace_args *o, const char *in)
{
	const char *out = o->out, *prefix = o->prefix, *fmt = o->format ? o->format : "iolog";
	char err[512];
	struct ts_trace t;
	uint64_t n = 0;
	bool perfetto = !strcmp(fmt, "perfetto");

	if (!perfetto && strcmp(fmt, "iolog")) {
		fprintf(stderr, "tiersim trace export: --format %s: expected iolog or perfetto\n", fmt);
		return 2;
	}
	if (perfetto && prefix) {
		fprintf(stderr, "tiersim trace export: --prefix is for --format iolog\n");
		return 2;
	}
	if (load(in, &t))
		return 1;
	FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		fprintf(stderr, "tiersim trace export: %s: %s\n", out, strerror(errno));
		ts_trace_free(&t);
		return 1;
	}
	int ret = perfetto ? ts_trace_export_perfetto(f, &t, &n, err, sizeof(err))
			   : ts_iolog_export(f, &t, prefix, &n, err, sizeof(err));
	ts_trace_free(&t);
	if ((f != stdout ? fclose(f) : fflush(f)) && !ret) {
		snprintf(err, sizeof(err), "%s: %s", out, strerror(errno));
		ret = -EIO;
	}
	if (ret) {
		fprintf(stderr, "tiersim trace export: %s: %s\n", in, err);
		return 1;
	}
	if (perfetto)
		fprintf(stderr, "tiersim trace export: %llu events -> %s (open it in ui.perfetto.dev)\n",
			(unsigned long long)n, out);
	else
		fprintf(stderr,
			"tiersim trace export: %llu IO lines -> %s (replay: %sfio --read_iolog=%s "
			"...)\n",
			(unsigned long long)n, out, prefix ? "" : "cd DIR && ", out);
	return 0;
}

/* A verb: its command line, the one input it reads (@in names it in
 * messages) and whether it writes -o. */
static const struct verb {
	struct ts_cmdline cl;
	const char *in;
	bool need_out;
	int (*fn)(const struct trace_args *o, const char *in);
} verbs[] = {
	{ { .name = "trace dump", .synopsis = "FILE", .about = "Prints a trace as text.\n",
	    .max_pos = 1 }, "FILE", false, do_dump },
	{ { .name = "trace undump", .synopsis = "TEXT -o FILE",
	    .about = "Reads the text form back into a trace (TEXT may be - for stdin).\n",
	    .opts = undump_opts, .max_pos = 1 }, "TEXT", true, do_undump },
	{ { .name = "trace stats", .synopsis = "FILE [--json] [--top N] [--interval DUR]",
	    .about = "What the trace's workload looks like: sizes, sequentiality, threads, "
		     "files.\n", .opts = stats_opts, .max_pos = 1 }, "FILE", false, do_stats },
	{ { .name = "trace import", .synopsis = "IOLOG -o FILE [--format iolog|blkparse]",
	    .about = "Imports a fio iolog (v2/v3) or blkparse text (IOLOG may be - for "
		     "stdin).\n", .opts = import_opts, .max_pos = 1 }, "IOLOG", true, do_import },
	{ { .name = "trace export",
	    .synopsis = "FILE -o IOLOG [--prefix DIR]\n"
			"       tiersim trace export FILE --format perfetto -o JSON",
	    .about = "Writes a fio iolog v3 for fio --read_iolog, or a perfetto timeline (the "
		     "output may be - for stdout).\n", .opts = export_opts, .max_pos = 1 }, "FILE", true, do_export },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tiersim trace VERB ...\n");
	for (size_t i = 0; i < TS_ARRAY_SIZE(verbs); i++)
		fprintf(f, "  tiersim %s %s\n      %s", verbs[i].cl.name, verbs[i].cl.synopsis,
			verbs[i].cl.about);
	fprintf(f, "'tiersim trace VERB --help' lists a verb's options.\n");
}

static int run_verb(const struct verb *v, int argc, char **argv)
{
	struct trace_args o = { 0 };
	struct ts_opt_args a;
	int rc = ts_cmdline_parse(&v->cl, &o, argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (a.npos != 1 || (v->need_out && !o.out))
		rc = ts_cmdline_error(&v->cl, "needs %s%s", v->in,
				      v->need_out ? " and -o FILE" : "");
	else
		rc = v->fn(&o, a.pos[0]);
	ts_opt_free(v->cl.opts, &o);
	return rc;
}

int ts_cmd_trace(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < TS_ARRAY_SIZE(verbs); i++)
		if (!strcmp(argv[1], verbs[i].cl.name + strlen("trace ")))
			return run_verb(&verbs[i], argc - 1, argv + 1);
	fprintf(stderr, "tiersim trace: unknown verb \"%s\" (try tiersim trace --help)\n", argv[1]);
	return 2;
}
