/*
 * cmd_trace.c — `tiersim trace VERB ...`: look inside traces and convert
 * them. dump/undump (the text form), stats, import (fio iolog v2/v3,
 * blkparse text) and export (fio iolog v3, or a perfetto timeline).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "traces/blkparse.h"
#include "traces/iolog.h"
#include "traces/perfetto.h"
#include "traces/stats.h"
#include "traces/text.h"
#include "traces/trace.h"
#include "core/units.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: tiersim trace dump FILE                 print a trace as text\n"
	    "       tiersim trace undump TEXT -o FILE       text form back to a trace\n"
	    "       tiersim trace stats FILE [--json] [--top N] [--interval DUR]\n"
	    "                                             what the trace's workload looks like\n"
	    "       tiersim trace import IOLOG -o FILE      fio iolog v2/v3 or blkparse text\n"
	    "                [--format iolog|blkparse]    (default: guessed from the first line)\n"
	    "       tiersim trace export FILE -o IOLOG [--prefix DIR]\n"
	    "                                             fio iolog v3 for fio --read_iolog; "
	    "names\n"
	    "                                             are DIR/PATH, or relative to fio's cwd\n"
	    "       tiersim trace export FILE --format perfetto -o JSON\n"
	    "                                             a timeline for ui.perfetto.dev: a track "
	    "per\n"
	    "                                             thread, IO slices, gaps as work/waiting\n"
	    "TEXT, IOLOG and the dump output may be - for stdin/stdout.\n",
	    f);
}

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

static int do_dump(int argc, char **argv)
{
	struct ts_trace t;
	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	if (load(argv[1], &t))
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

static int do_undump(int argc, char **argv)
{
	const char *out = NULL, *in = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!in && (argv[i][0] != '-' || !strcmp(argv[i], "-")))
			in = argv[i];
		else {
			usage(stderr);
			return 2;
		}
	}
	if (!in || !out) {
		fprintf(stderr, "tiersim trace undump: needs TEXT and -o FILE\n");
		return 2;
	}
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

static int do_stats(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"top", required_argument, NULL, 'n'},
	    {"interval", required_argument, NULL, 'i'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool json = false;
	uint64_t interval = 0;
	size_t top = 10;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jn:i:h", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'n': {
			uint64_t v;
			if (ts_trace_parse_u64(optarg, SIZE_MAX, &v)) {
				fprintf(stderr,
					"tiersim trace stats: --top %s: expected a whole number "
					"of rows such as 10\n",
					optarg);
				return 2;
			}
			top = (size_t)v;
			break;
		}
		case 'i':
			if (ts_parse_duration(optarg, TS_NS_PER_S, &interval) || !interval) {
				fprintf(stderr,
					"tiersim trace stats: --interval %s: expected a duration "
					"such as 100ms or 1s\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	struct ts_trace t;
	struct ts_trace_stats *s;
	if (load(argv[optind], &t))
		return 1;
	int ret = ts_trace_stats_compute(&t, interval, &s);
	if (ret) {
		fprintf(stderr, "tiersim trace stats: %s: %s%s\n", argv[optind], ts_strerror(ret),
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

/* IN -o OUT [FLAG VAL]; returns 0 or 2 (usage) */
static int in_out(int argc, char **argv, const char **in, const char **out, const char *flag,
		  const char **val)
{
	*in = *out = NULL;
	*val = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			*out = argv[++i];
		else if (!strcmp(argv[i], flag) && i + 1 < argc)
			*val = argv[++i];
		else if (!*in && (argv[i][0] != '-' || !strcmp(argv[i], "-")))
			*in = argv[i];
		else
			return 2;
	}
	return *in && *out ? 0 : 2;
}

static int do_import(int argc, char **argv)
{
	const char *in, *out, *fmt;
	char err[512];
	struct ts_trace t;
	int ret;

	if (in_out(argc, argv, &in, &out, "--format", &fmt)) {
		fprintf(stderr,
			"usage: tiersim trace import IOLOG -o FILE [--format iolog|blkparse]\n");
		return 2;
	}
	FILE *f = strcmp(in, "-") ? fopen(in, "r") : stdin;
	if (!f) {
		fprintf(stderr, "tiersim trace import: %s: %s\n", in, strerror(errno));
		return 1;
	}
	const char *name = f == stdin ? "stdin" : in;
	if (!fmt) {
		/* fio iologs say so on their first line; anything else is taken
		 * for blkparse output */
		int c = getc(f);
		if (c != EOF)
			ungetc(c, f);
		fmt = c == 'f' ? "iolog" : "blkparse";
	}
	if (!strcmp(fmt, "iolog")) {
		struct ts_iolog_info info;
		ret = ts_iolog_import(f, name, &t, &info, err, sizeof(err));
		if (!ret && info.ignored_waits)
			fprintf(stderr,
				"tiersim trace import: %s: ignored %llu wait lines (fio ignores "
				"wait in version 3)\n",
				name, (unsigned long long)info.ignored_waits);
	} else if (!strcmp(fmt, "blkparse")) {
		ret = ts_blkparse_import(f, name, &t, err, sizeof(err));
	} else {
		fprintf(stderr, "tiersim trace import: --format %s: expected iolog or blkparse\n",
			fmt);
		if (f != stdin)
			fclose(f);
		return 2;
	}
	if (f != stdin)
		fclose(f);
	if (ret) {
		fprintf(stderr, "tiersim trace import: %s\n", err);
		return 1;
	}
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

static int do_export(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *prefix = NULL, *fmt = "iolog";
	char err[512];
	struct ts_trace t;
	uint64_t n = 0;
	bool bad = false;

	for (int i = 1; i < argc && !bad; i++) {
		const char **v = !strcmp(argv[i], "-o")		? &out
				 : !strcmp(argv[i], "--prefix") ? &prefix
				 : !strcmp(argv[i], "--format") ? &fmt
								: NULL;
		if (v && i + 1 < argc)
			*v = argv[++i];
		else if (!v && !in && (argv[i][0] != '-' || !strcmp(argv[i], "-")))
			in = argv[i];
		else
			bad = true;
	}
	bool perfetto = !strcmp(fmt, "perfetto");
	if (bad || !in || !out || (!perfetto && strcmp(fmt, "iolog")) || (perfetto && prefix)) {
		fprintf(stderr, "usage: tiersim trace export FILE -o IOLOG [--prefix DIR]\n"
				"       tiersim trace export FILE --format perfetto -o JSON\n");
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
		fprintf(stderr,
			"tiersim trace export: %llu events -> %s (open it in ui.perfetto.dev)\n",
			(unsigned long long)n, out);
	else
		fprintf(stderr,
			"tiersim trace export: %llu IO lines -> %s (replay: %sfio --read_iolog=%s "
			"...)\n",
			(unsigned long long)n, out, prefix ? "" : "cd DIR && ", out);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} verbs[] = {
    {"dump", do_dump},	   {"undump", do_undump}, {"stats", do_stats},
    {"import", do_import}, {"export", do_export},
};

int ts_cmd_trace(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < TS_ARRAY_SIZE(verbs); i++)
		if (!strcmp(argv[1], verbs[i].name))
			return verbs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "tiersim trace: unknown verb \"%s\" (try tiersim trace --help)\n", argv[1]);
	return 2;
}
