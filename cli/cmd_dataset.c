/*
 * cmd_dataset.c — `tiersim dataset make|info`: generate the study's dataset
 * look-alikes and show what a dataset (made, or only described) holds.
 *
 *   tiersim dataset make KIND --out DIR [--count N] [--seed S] [--val N]
 *                        [--classes N] [--encoded] [--threads N] [--quiet]
 *   tiersim dataset info DIR|KIND [--count N] [--seed S] ...
 *   tiersim dataset list DIR|KIND [...]   one line per sample (text form)
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

#include "commands.h"
#include "core/units.h"
#include "pipeline/dataset.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tiersim dataset make KIND --out DIR [OPTIONS]\n"
		"       tiersim dataset info DIR|KIND [OPTIONS]\n"
		"       tiersim dataset list DIR|KIND [OPTIONS]\n\n"
		"Generates look-alikes of the datasets the study used, deterministically\n"
		"from a seed, or shows a dataset's sizes (for a KIND, without writing it);\n"
		"list prints one line per sample in storage order: index, file or key,\n"
		"bytes, width, height, label.\n\n"
		"kinds:\n"
		"  imagenet-jpeg  class-per-folder tree of JPEG files (train/, val/ with --val)\n"
		"  imagenet-lmdb  Caffe LMDB of 256x256 Datum records (convert_imageset)\n"
		"  imagenet-rec   MXNet RecordIO train.rec + train.idx (im2rec --resize 480)\n"
		"  ptb-text       PennTreeBank-like ptb.{train,valid,test}.txt\n\n"
		"options:\n"
		"  --out DIR          make: where to write (created; must be empty)\n"
		"  --quiet            make: no progress\n");
	for (const struct ts_opt *o = ts_dataset_opts; o->name; o++) {
		if (!strcmp(o->name, "progress"))
			continue;
		char flag[40];
		snprintf(flag, sizeof(flag), "--%s%s", o->name, o->type == TS_OPT_BOOL ? "" : " N");
		fprintf(f, "  %-18s %s [default %s]\n", flag, o->help, o->def);
	}
	fprintf(f, "\nSizes, resolutions and their sources: pipeline/DATASETS.md.\n");
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

/* Parses argv[first..] into @cfg; *@out / *@quiet for make. */
static int parse(int argc, char **argv, int first, struct ts_dataset_config *cfg,
		 const char **out, bool *quiet, const char **pos)
{
	char err[256];

	for (int i = first; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--", 2)) {
			if (*pos)
				return usage_error("unexpected argument '%s'", a);
			*pos = a;
			continue;
		}
		const char *name = a + 2, *eq = strchr(name, '=');
		char key[32];
		const char *val = NULL;
		size_t kl = eq ? (size_t)(eq - name) : strlen(name);
		if (kl >= sizeof(key))
			return usage_error("unknown option '%s'", a);
		memcpy(key, name, kl);
		key[kl] = 0;
		if (eq)
			val = eq + 1;
		if (!strcmp(key, "quiet") && !eq) {
			*quiet = true;
			continue;
		}
		const struct ts_opt *o = ts_opt_find(ts_dataset_opts, key);
		bool is_out = !strcmp(key, "out");
		if ((!o && !is_out) || !strcmp(key, "progress"))
			return usage_error("unknown option '%s'", a);
		if (!val && o && o->type == TS_OPT_BOOL) {
			val = "true";
		} else if (!val) {
			if (i + 1 >= argc)
				return usage_error("option '%s' needs a value", a);
			val = argv[++i];
		}
		if (is_out) {
			*out = val;
			continue;
		}
		if (ts_opt_set(ts_dataset_opts, cfg, key, val, err, sizeof(err))) {
			const char *why = strstr(err, "': ");
			fprintf(stderr, "tiersim dataset: --%s: %s\n", key, why ? why + 3 : err);
			return TS_EXIT_USAGE;
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void print_info(const struct ts_dataset_meta *m, bool on_disk)
{
	char a[32], b[32], c[32], d[32];

	printf("kind          %s (%s)\n", ts_dataset_kind_name(m->kind),
	       on_disk ? "on disk, from dataset.json" : "described: nothing written");
	printf("seed          %" PRIu64 "\n", m->seed);
	if (m->kind == TS_DS_PTB_TEXT) {
		printf("vocabulary    %u words (incl. <unk> and N)\n", TS_PTB_VOCAB);
		static const char *const split[3] = { "train", "valid", "test" };
		for (int s = 0; s < 3; s++)
			printf("%-13s %" PRIu64 " words, %" PRIu64 " lines, %s\n", split[s],
			       m->words[s], m->lines[s], ts_fmt_size(a, sizeof(a), m->files[s].bytes));
	} else {
		printf("images        %" PRIu64 " train", m->count);
		if (m->val)
			printf(" + %" PRIu64 " val", m->val);
		printf(", %" PRIu32 " classes%s\n", m->classes,
		       m->kind == TS_DS_IMAGENET_LMDB ? (m->encoded ? ", Datum encoded=true (JPEG)"
							   : ", Datum raw 3x256x256 BGR")
						 : "");
		uint32_t *s = malloc(m->samples * sizeof(*s));
		double px = 0, w = 0, h = 0;
		if (s && m->samples) {
			memcpy(s, m->bytes, m->samples * sizeof(*s));
			qsort(s, m->samples, sizeof(*s), cmp_u32);
			for (uint64_t i = 0; i < m->samples; i++) {
				px += (double)m->width[i] * m->height[i];
				w += m->width[i];
				h += m->height[i];
			}
			uint64_t n = m->samples;
			printf("sample bytes  mean %s, p10 %s, p50 %s, p90 %s, max %" PRIu32 "\n",
			       ts_fmt_size(a, sizeof(a), m->sample_bytes / n),
			       ts_fmt_size(b, sizeof(b), s[n / 10]), ts_fmt_size(c, sizeof(c), s[n / 2]),
			       ts_fmt_size(d, sizeof(d), s[n * 9 / 10]), s[n - 1]);
			printf("pixels        mean %.0fx%.0f, %.0f per image\n", w / (double)n,
			       h / (double)n, px / (double)n);
		}
		free(s);
	}
	for (size_t i = 0; i < m->nfiles; i++)
		printf("file          %s  %" PRIu64 " bytes%s\n", m->files[i].path,
		       m->files[i].bytes, m->files[i].estimated ? " (estimated)" : "");
	printf("total         %s (%" PRIu64 " bytes)%s\n", ts_fmt_size(a, sizeof(a), m->total_bytes),
	       m->total_bytes,
	       m->kind == TS_DS_IMAGENET_LMDB && !on_disk ? " (LMDB files estimated)" : "");
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static int cmd_make(int argc, char **argv)
{
	struct ts_dataset_config cfg;
	struct ts_dataset_stats st;
	enum ts_dataset_kind kind;
	const char *out = NULL, *kname = NULL;
	bool quiet = false;
	char err[512], sz[32];
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	if (ts_opt_defaults(ts_dataset_opts, &cfg, err, sizeof(err)))
		return TS_EXIT_FAIL;
	if ((rc = parse(argc, argv, 2, &cfg, &out, &quiet, &kname)))
		return rc;
	if (!kname)
		return usage_error("make needs a KIND (imagenet-jpeg, imagenet-lmdb, "
				   "imagenet-rec, ptb-text)");
	if (ts_dataset_kind_parse(kname, &kind))
		return usage_error("unknown kind '%s' (known: imagenet-jpeg, imagenet-lmdb, "
				   "imagenet-rec, ptb-text)",
				   kname);
	if (!out)
		return usage_error("make needs --out DIR");
	cfg.progress = !quiet;
	/* Ctrl-C stops the workers and says what is left behind */
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	cfg.stop = &interrupted;
	rc = ts_dataset_make(kind, &cfg, out, &st, err, sizeof(err));
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc) {
		fprintf(stderr, "tiersim dataset: %s\n", err);
		return rc == -EINTR ? TS_EXIT_INTERRUPT
		       : rc == -EINVAL ? TS_EXIT_USAGE : TS_EXIT_FAIL;
	}
	double secs = (double)st.ns / 1e9;
	printf("%s: %" PRIu64 " %s, %s in %s; %.1f s on %u thread%s, %.0f %s/s", kname,
	       st.samples, kind == TS_DS_PTB_TEXT ? "train words" : "images",
	       ts_fmt_size(sz, sizeof(sz), st.bytes), out, secs, st.threads,
	       st.threads == 1 ? "" : "s", secs > 0 ? (double)st.samples / secs : 0.0,
	       kind == TS_DS_PTB_TEXT ? "words" : "images");
	if (st.encodes)
		printf("; %.2f encodes/image, JPEG padding %.2f%% of bytes, quality lowered for "
		       "%" PRIu64 " to fit",
		       (double)st.encodes / (double)st.samples,
		       st.bytes ? 100.0 * (double)st.pad_bytes / (double)st.bytes : 0.0,
		       st.requality);
	printf("\n");
	return TS_EXIT_OK;
}

static void print_list(const struct ts_dataset_meta *m)
{
	char name[192];

	if (m->kind == TS_DS_PTB_TEXT) {
		for (size_t i = 0; i < m->nfiles; i++)
			printf("%zu\t%s\t%" PRIu64 "\t%" PRIu64 " words\t%" PRIu64 " lines\n", i,
			       m->files[i].path, m->files[i].bytes, m->words[i], m->lines[i]);
		return;
	}
	printf("# index\t%s\tbytes\twidth\theight\tlabel\n",
	       m->kind == TS_DS_IMAGENET_JPEG   ? "path"
	       : m->kind == TS_DS_IMAGENET_LMDB ? "key"
					       : "record id");
	for (uint64_t j = 0; j < m->samples; j++) {
		if (m->kind == TS_DS_IMAGENET_JPEG)
			ts_dataset_sample_path(m, m->order[j], name, sizeof(name));
		else if (m->kind == TS_DS_IMAGENET_LMDB)
			ts_dataset_lmdb_key(m, j, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "%" PRIu32, m->order[j]);
		printf("%" PRIu64 "\t%s\t%" PRIu32 "\t%u\t%u\t%u\n", j, name, m->bytes[j],
		       m->width[j], m->height[j], m->label[j]);
	}
}

static int cmd_info(int argc, char **argv, bool list)
{
	struct ts_dataset_config cfg;
	struct ts_dataset_meta meta;
	enum ts_dataset_kind kind;
	const char *out = NULL, *what = NULL;
	bool quiet = false, on_disk;
	char err[512];
	struct stat sb;
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	if (ts_opt_defaults(ts_dataset_opts, &cfg, err, sizeof(err)))
		return TS_EXIT_FAIL;
	if ((rc = parse(argc, argv, 2, &cfg, &out, &quiet, &what)))
		return rc;
	if (!what)
		return usage_error("%s needs a DIR or a KIND", argv[1]);
	if (out)
		return usage_error("--out is for make");

	on_disk = ts_dataset_kind_parse(what, &kind) != 0;
	if (on_disk && stat(what, &sb))
		return usage_error("'%s' is neither a kind (imagenet-jpeg, imagenet-lmdb, "
				   "imagenet-rec, ptb-text) nor a directory",
				   what);
	rc = on_disk ? ts_dataset_open(what, &meta, err, sizeof(err))
		     : ts_dataset_meta_describe(kind, &cfg, &meta, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "tiersim dataset: %s\n", err);
		return rc == -EINVAL ? TS_EXIT_USAGE : TS_EXIT_FAIL;
	}
	if (list)
		print_list(&meta);
	else
		print_info(&meta, on_disk);
	ts_dataset_meta_free(&meta);
	return TS_EXIT_OK;
}

int ts_cmd_dataset(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ||
		    (i == 1 && !strcmp(argv[i], "help"))) {
			usage(stdout);
			return TS_EXIT_OK;
		}
	}
	if (argc < 2) {
		usage(stderr);
		return TS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "make"))
		return cmd_make(argc, argv);
	if (!strcmp(argv[1], "info") || !strcmp(argv[1], "list"))
		return cmd_info(argc, argv, !strcmp(argv[1], "list"));
	return usage_error("unknown action '%s' (make, info or list)", argv[1]);
}
