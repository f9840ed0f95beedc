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

#include "commands.h"
#include "core/units.h"
#include "pipeline/dataset.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tiersim dataset make KIND --out DIR [OPTIONS]\n"
		"       tiersim dataset info DIR|KIND [OPTIONS]\n"
		"       tiersim dataset list DIR|KIND [OPTIONS]\n"
		"       tiersim dataset verify DIR\n\n"
		"Generates look-alikes of the datasets the study used, deterministically\n"
		"from a seed, or shows a dataset's sizes (for a KIND, without writing it);\n"
		"list prints one line per sample in storage order: index, file or key,\n"
		"bytes, width, height, label; verify reads a made dataset back and checks\n"
		"every sample against its description.\n\n"
		"kinds:\n");
	const struct ts_dataset_ops *k;
	for (size_t i = 0; (k = ts_dataset_kind_at(i)); i++)
		fprintf(f, "  %-14s %s\n", k->name, k->help);
	fprintf(f, "\noptions:\n"
		   "  --out DIR          make: where to write (created; must be empty)\n"
		   "  --quiet            make: no progress\n");
	for (const struct ts_opt *o = ts_dataset_opts; o->name; o++) {
		if (!strcmp(o->name, "progress"))
			continue;
		char flag[40], takers[160] = "";
		for (size_t i = 0; (k = ts_dataset_kind_at(i)); i++) {
			for (size_t j = 0; k->opts[j]; j++) {
				size_t used = strlen(takers);
				if (!strcmp(k->opts[j], o->name))
					snprintf(takers + used, sizeof(takers) - used, "%s%s",
						 used ? ", " : "", k->name);
			}
		}
		snprintf(flag, sizeof(flag), "--%s%s", o->name, o->type == TS_OPT_BOOL ? "" : " N");
		fprintf(f, "  %-18s %s%s%s [default %s]\n", flag, takers, takers[0] ? ": " : "",
			o->help, o->def);
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

	char how[160];
	bool estimated = false;

	printf("kind          %s (%s)\n", m->kind->name,
	       on_disk ? "on disk, from dataset.json" : "described: nothing written");
	printf("seed          %" PRIu64 "\n", m->seed);
	m->kind->storage(m, how, sizeof(how));
	printf("stored as     %s\n", how);
	if (m->per_file) { /* files of samples (npz, tfrecord) */
		printf("samples       %" PRIu64 " in %" PRIu64 " files, %s stored\n", m->samples,
		       m->count, ts_fmt_size(a, sizeof(a), m->sample_bytes));
	} else if (!(m->kind->caps & TS_DS_IMAGES)) {
		for (size_t s = 0; s < m->nfiles && s < 3; s++)
			printf("%-13s %" PRIu64 " words, %" PRIu64 " lines, %s\n", m->files[s].path,
			       m->words[s], m->lines[s], ts_fmt_size(a, sizeof(a), m->files[s].bytes));
	} else {
		printf("images        %" PRIu64 " train", m->count);
		if (m->val)
			printf(" + %" PRIu64 " val", m->val);
		printf(", %" PRIu32 " classes\n", m->classes);
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
	for (size_t i = 0; i < m->nfiles; i++) {
		if (m->per_file && i == 3 && m->nfiles > 4) { /* 'list' has them all */
			printf("file          ... %zu more\n", m->nfiles - 3);
			break;
		}
		printf("file          %s  %" PRIu64 " bytes%s\n", m->files[i].path,
		       m->files[i].bytes, m->files[i].estimated ? " (estimated)" : "");
		estimated |= m->files[i].estimated;
	}
	printf("total         %s (%" PRIu64 " bytes)%s\n", ts_fmt_size(a, sizeof(a), m->total_bytes),
	       m->total_bytes, estimated ? " (file sizes estimated)" : "");
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
	const struct ts_dataset_ops *kind;
	const char *out = NULL, *kname = NULL;
	bool quiet = false;
	char err[512], sz[32];
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	if (ts_opt_defaults(ts_dataset_opts, &cfg, err, sizeof(err)))
		return TS_EXIT_FAIL;
	if ((rc = parse(argc, argv, 2, &cfg, &out, &quiet, &kname)))
		return rc;
	if (!kname) {
		ts_dataset_find(NULL, err, sizeof(err));
		return usage_error("make needs a KIND (%s", strstr(err, "known: ") + 7);
	}
	if (!(kind = ts_dataset_find(kname, err, sizeof(err))))
		return usage_error("%s", err);
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

static void print_list(const struct ts_dataset_meta *m)
{
	char name[192];

	if (m->per_file) {
		printf("# index\tfile\tbytes\n");
		for (uint64_t j = 0; j < m->samples; j++)
			printf("%" PRIu64 "\t%s\t%" PRIu32 "\n", j, m->files[j / m->per_file].path,
			       m->bytes[j]);
		return;
	}
	if (!(m->kind->caps & TS_DS_IMAGES)) {
		for (size_t i = 0; i < m->nfiles && i < 3; i++)
			printf("%zu\t%s\t%" PRIu64 "\t%" PRIu64 " words\t%" PRIu64 " lines\n", i,
			       m->files[i].path, m->files[i].bytes, m->words[i], m->lines[i]);
		return;
	}
	printf("# index\t%s\tbytes\twidth\theight\tlabel\n", m->kind->sample_column);
	for (uint64_t j = 0; j < m->samples; j++) {
		m->kind->sample_name(m, j, name, sizeof(name));
		printf("%" PRIu64 "\t%s\t%" PRIu32 "\t%u\t%u\t%u\n", j, name, m->bytes[j],
		       m->width[j], m->height[j], m->label[j]);
	}
}

static int cmd_info(int argc, char **argv, bool list)
{
	struct ts_dataset_config cfg;
	struct ts_dataset_meta meta;
	const struct ts_dataset_ops *kind;
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
		print_list(&meta);
	else
		print_info(&meta, on_disk);
	ts_dataset_meta_free(&meta);
	return TS_EXIT_OK;
}

static int cmd_verify(int argc, char **argv)
{
	struct ts_dataset_config cfg;
	const char *out = NULL, *dir = NULL;
	bool quiet = false;
	char err[512];
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	if (ts_opt_defaults(ts_dataset_opts, &cfg, err, sizeof(err)))
		return TS_EXIT_FAIL;
	if ((rc = parse(argc, argv, 2, &cfg, &out, &quiet, &dir)))
		return rc;
	if (!dir || out)
		return usage_error("verify takes a DIR and no options");
	if ((rc = ts_dataset_verify(dir, err, sizeof(err)))) {
		fprintf(stderr, "tiersim dataset: %s\n", err);
		return TS_EXIT_FAIL;
	}
	printf("%s: every file as dataset.json describes it\n", dir);
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
	if (!strcmp(argv[1], "verify"))
		return cmd_verify(argc, argv);
	return usage_error("unknown action '%s' (make, info, list or verify)", argv[1]);
}
