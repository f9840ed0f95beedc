/*
 * cmd_dataset.c — `tiersim dataset make|info`: generate the study's dataset
 * look-alikes and show what a dataset (made, or only described) holds.
 *
 *   tiersim dataset make KIND --out DIR [--count N] [--seed S] [--val N]
 *                        [--classes N] [--encoded] [--threads N] [--quiet]
 *   tiersim dataset info DIR|KIND [--count N] [--seed S] ...
 *   tiersim dataset list DIR|KIND [...]   one line per sample (text form)
 *   tiersim dataset verify DIR            check the files against dataset.json
 *
 * What differs between kinds comes from their ops (pipeline/dataset.h).
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmdline.h"
#include "core/interrupt.h"
#include "cli/commands.h"
#include "core/units.h"
#include "pipeline/dataset.h"

/* The command line: the generator's options (ts_dataset_opts(), less
 * progress, which --quiet turns off) and make's own. */
struct ds_args {
	struct ts_dataset_config cfg; /* first: ts_dataset_opts()' offsets apply here */
	char *out;
	bool quiet;
};

static const struct ts_opt ds_own_opts[] = {
	{ "out", TS_OPT_STR, offsetof(struct ds_args, out), NULL, 0, 0, "",
	  "make: where to write (created; must be empty)", "DIR" },
	{ "quiet", TS_OPT_BOOL, offsetof(struct ds_args, quiet), "false", 0, 0, "",
	  "make: no progress" },
	{ NULL },
};

static const struct ts_cmdline ds_cmdline = {
	.name = "dataset",
	.synopsis = "make KIND --out DIR [OPTIONS]\n"
		    "       tiersim dataset info DIR|KIND [OPTIONS]\n"
		    "       tiersim dataset list DIR|KIND [OPTIONS]\n"
		    "       tiersim dataset verify DIR",
	.about = "Generates look-alikes of the datasets the study used, deterministically\n"
		 "from a seed, or shows a dataset's sizes (for a KIND, without writing it);\n"
		 "list prints one line per sample in storage order: index, file or key,\n"
		 "bytes, width, height, label; verify reads a made dataset back and checks\n"
		 "every sample against its description.\n",
	.max_pos = 2, /* ACTION and KIND or DIR */
};

/* What --help ends with: the kinds, from their ops (malloc'd). */
static char *kinds_tail(void)
{
	size_t n = 0, cap = 4096;
	char *t = malloc(cap);
	if (!t)
		return NULL;
	n += (size_t)snprintf(t + n, cap - n, "kinds:\n");
	const struct ts_dataset_ops *k;
	for (size_t i = 0; (k = ts_dataset_kind_at(i)) && n < cap; i++)
		n += (size_t)snprintf(t + n, cap - n, "  %-14s %s\n", k->name, k->help);
	if (n < cap)
		snprintf(t + n, cap - n, "\nSizes, resolutions and their sources: "
					 "pipeline/DATASETS.md.\n");
	return t;
}

/* ts_dataset_opts() less progress, then ds_own_opts: one table (malloc'd). */
static struct ts_opt *ds_table(void)
{
	size_t n = 0, k = 0;
	for (const struct ts_opt *o = ts_dataset_opts(); o->name; o++)
		n++;
	struct ts_opt *t = calloc(n + TS_ARRAY_SIZE(ds_own_opts), sizeof(*t));
	for (const struct ts_opt *o = ts_dataset_opts(); t && o->name; o++)
		if (strcmp(o->name, "progress"))
			t[k++] = *o;
	for (size_t i = 0; t && i < TS_ARRAY_SIZE(ds_own_opts); i++)
		t[k++] = ds_own_opts[i];
	return t;
}

static int usage_error(const char *fmt, ...) TS_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tiersim dataset: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see 'tiersim dataset --help'\n");
	return TS_EXIT_USAGE;
}

static int cmd_make(struct ds_args *args, const char *kname)
{
	struct ts_dataset_config cfg = args->cfg;
	struct ts_dataset_stats st;
	const struct ts_dataset_ops *kind;
	const char *out = args->out;
	bool quiet = args->quiet;
	char err[512], sz[32];
	int rc;

	if (!kname) {
		ts_dataset_find("", err, sizeof(err));
		return usage_error("make needs a KIND (%s", strstr(err, "known: ") + 7);
	}
	if (!(kind = ts_dataset_find(kname, err, sizeof(err))))
		return usage_error("%s", err);
	if (!out)
		return usage_error("make needs --out DIR");
	cfg.progress = !quiet;
	/* Ctrl-C stops the workers and says what is left behind */
	ts_interrupt_install();
	cfg.stop = &ts_interrupted;
	rc = ts_dataset_make(kind, &cfg, out, &st, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "tiersim dataset: %s\n", err);
		return rc == -EINTR ? TS_EXIT_INTERRUPT
		       : rc == -EINVAL ? TS_EXIT_USAGE : TS_EXIT_FAIL;
	}
	double secs = (double)st.ns / 1e9;
	printf("%s: %" PRIu64 " %s, %s in %s; %.1f s on %u thread%s, %.0f %s/s", kname,
	       st.samples, kind->unit, ts_fmt_size(sz, sizeof(sz), st.bytes), out, secs,
	       st.threads, st.threads == 1 ? "" : "s",
	       secs > 0 ? (double)st.samples / secs : 0.0, kind->unit);
	if (st.encodes)
		printf("; %.2f encodes/image, JPEG padding %.2f%% of bytes, quality lowered for "
		       "%" PRIu64 " to fit",
		       (double)st.encodes / (double)st.samples,
		       st.bytes ? 100.0 * (double)st.pad_bytes / (double)st.bytes : 0.0,
		       st.requality);
	printf("\n");
	return TS_EXIT_OK;
}

static int cmd_info(struct ds_args *args, const char *action, const char *what, bool list)
{
	struct ts_dataset_config cfg = args->cfg;
	struct ts_dataset_meta meta;
	const struct ts_dataset_ops *kind;
	bool on_disk;
	char err[512];
	struct stat sb;
	int rc;

	if (!what)
		return usage_error("%s needs a DIR or a KIND", action);
	if (args->out)
		return usage_error("--out is for make");

	kind = ts_dataset_find(what, err, sizeof(err));
	on_disk = !kind;
	if (on_disk && stat(what, &sb))
		return usage_error("'%s' is neither a kind (%s nor a directory", what,
				   strstr(err, "known: ") + 7);
	rc = on_disk ? ts_dataset_open(what, &meta, err, sizeof(err))
		     : ts_dataset_meta_describe(kind, &cfg, &meta, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "tiersim dataset: %s\n", err);
		return rc == -EINVAL ? TS_EXIT_USAGE : TS_EXIT_FAIL;
	}
	if (list)
		ts_dataset_print_list(stdout, &meta);
	else
		ts_dataset_print_info(stdout, &meta, on_disk);
	ts_dataset_meta_free(&meta);
	return TS_EXIT_OK;
}

static int cmd_verify(struct ds_args *args, const char *dir)
{
	char err[512];
	if (!dir)
		return usage_error("verify needs a DIR");
	if (args->out)
		return usage_error("--out is for make");
	if (ts_dataset_verify(dir, err, sizeof(err))) {
		fprintf(stderr, "tiersim dataset: %s\n", err);
		return TS_EXIT_FAIL;
	}
	printf("%s: every file as dataset.json describes it\n", dir);
	return TS_EXIT_OK;
}

int ts_cmd_dataset(int argc, char **argv)
{
	struct ds_args args = { 0 };
	struct ts_opt_args a;
	struct ts_opt *tab = ds_table();
	if (!tab) {
		fprintf(stderr, "tiersim dataset: out of memory\n");
		return TS_EXIT_FAIL;
	}
	struct ts_cmdline cl = ds_cmdline;
	char *tail = kinds_tail();
	cl.opts = tab;
	cl.tail = tail;
	bool help = argc >= 2 && !strcmp(argv[1], "help");
	int rc = argc < 2 ? TS_EXIT_USAGE
		 : help	  ? TS_EXIT_OK
			  : ts_cmdline_parse(&cl, &args, argc, argv, &a);
	if (argc < 2 || help)
		ts_cmdline_usage(&cl, help ? stdout : stderr);
	else if (rc >= 0)
		; /* --help, or a usage error already said */
	else if (!a.npos)
		rc = usage_error("no action given (make, info, list or verify)");
	else if (!strcmp(a.pos[0], "make"))
		rc = cmd_make(&args, a.npos > 1 ? a.pos[1] : NULL);
	else if (!strcmp(a.pos[0], "info") || !strcmp(a.pos[0], "list"))
		rc = cmd_info(&args, a.pos[0], a.npos > 1 ? a.pos[1] : NULL,
			      !strcmp(a.pos[0], "list"));
	else if (!strcmp(a.pos[0], "verify"))
		rc = cmd_verify(&args, a.npos > 1 ? a.pos[1] : NULL);
	else
		rc = usage_error("unknown action '%s' (make, info, list or verify)", a.pos[0]);
	ts_opt_free(tab, &args);
	free(tab);
	free(tail);
	return rc;
}
