/*
 * dataset.c — what every dataset kind shares: the registry of kinds (one
 * explicit table, as Lua's linit.c) and through it of their readers by
 * name, the options and their check against a kind, the make driver (an
 * empty directory in, the kind's files and then dataset.json out, nothing
 * left behind on failure) and the dataset.json manifest. Each kind's own
 * knowledge is in its pipeline/ds_<kind>.c; see dataset.h and
 * pipeline/DATASETS.md.
 */
#include "pipeline/dataset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "pipeline/ds_kind.h"
#include "pipeline/source.h"

#define MANIFEST "dataset.json"
#define MANIFEST_VERSION 1

/* The kinds whose files changed layout within manifest version 1: their
 * manifest records the layout ("layout"), and one without it or with
 * another is refused rather than read with this tiersim's sizes and
 * offsets. Other
 * kinds' datasets stay readable. */
static const struct kind_layout {
	const char *kind;
	uint64_t layout;
	const char *what; /* what the current layout has */
} kind_layouts[] = {
	/* 2: numpy's 20-byte zip64 extra field in each local header */
	{ "npz", 2, "numpy's zip64 extra field in each member" },
};

static const struct kind_layout *kind_layout(const char *kind)
{
	for (size_t i = 0; i < TS_ARRAY_SIZE(kind_layouts); i++)
		if (!strcmp(kind_layouts[i].kind, kind))
			return &kind_layouts[i];
	return NULL;
}

static const struct ts_dataset_ops *const kinds[] = {
	&ts_dataset_imagenet_jpeg,
	&ts_dataset_imagenet_lmdb,
	&ts_dataset_imagenet_rec,
	&ts_dataset_ptb_text,
	&ts_dataset_npz,
	&ts_dataset_tfrecord,
	&ts_dataset_jpeg,
	&ts_dataset_png,
	&ts_dataset_hdf5,
};

/* What every kind takes; the other options are a kind's own (ops->opts). */
static const struct ts_opt common_opts[] = {
	{ "count", TS_OPT_U64, offsetof(struct ts_dataset_config, count), "0", 0, 1e9, "",
	  "train samples in the kind's unit (images, words); 0 = the full dataset's" },
	{ "seed", TS_OPT_U64, offsetof(struct ts_dataset_config, seed), "1", 0, 0, "",
	  "generator seed: same seed, same bytes" },
	{ "threads", TS_OPT_U64, offsetof(struct ts_dataset_config, threads), "0", 0, 256, "",
	  "generator threads; 0 = one per online CPU" },
	{ "progress", TS_OPT_BOOL, offsetof(struct ts_dataset_config, progress), "false", 0, 0, "",
	  "progress on stderr (a live line on a terminal, a line per 10% otherwise)" },
};

/* ts_dataset_opts(): common_opts, then the kinds' own, a slot of
 * ts_dataset_config.own each, and the terminator. */
static struct ts_opt all_opts[TS_ARRAY_SIZE(common_opts) + TS_DATASET_OWN_MAX + 1];
static pthread_once_t all_once = PTHREAD_ONCE_INIT;

static bool own_type(enum ts_opt_type t)
{
	return t == TS_OPT_BOOL || t == TS_OPT_U64 || t == TS_OPT_SIZE;
}

static size_t opt_size(const struct ts_opt *o)
{
	return o->type == TS_OPT_BOOL ? sizeof(bool) : sizeof(uint64_t);
}

static void build_opts(void)
{
	size_t n = 0, slot = 0;
	for (size_t i = 0; i < TS_ARRAY_SIZE(common_opts); i++)
		all_opts[n++] = common_opts[i];
	for (size_t k = 0; k < TS_ARRAY_SIZE(kinds); k++) {
		for (const struct ts_opt *o = kinds[k]->opts; o && o->name; o++) {
			/* a kind that breaks the rules is refused by ts_dataset_check
			 * before anything reads its options */
			if (ts_opt_find(all_opts, o->name) || !own_type(o->type) ||
			    slot == TS_DATASET_OWN_MAX)
				continue;
			all_opts[n] = *o;
			all_opts[n++].off = offsetof(struct ts_dataset_config, own) +
					    slot++ * sizeof(uint64_t);
		}
	}
	all_opts[n] = (struct ts_opt){ NULL };
}

const struct ts_opt *ts_dataset_opts(void)
{
	pthread_once(&all_once, build_opts);
	return all_opts;
}

int ts_ds_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

int ts_dataset_check(const struct ts_dataset_ops *ops, char *err, size_t errlen)
{
	const char *name = ops->name ? ops->name : "(unnamed)";
	if (ops->version != TS_DATASET_OPS_VERSION)
		return ts_ds_fail(err, errlen, TS_E_VERSION,
				  "dataset kind '%s': ops version %u, this build knows %u", name,
				  ops->version, TS_DATASET_OPS_VERSION);
	const char *missing = NULL;
	bool images = ops->caps & TS_DS_IMAGES;
	if (!ops->name)
		missing = "name";
	else if (!ops->help)
		missing = "help";
	else if (!ops->opts)
		missing = "opts";
	else if (ops->opts->name && !ops->opts_size)
		missing = "opts_size";
	else if (!ops->full_count)
		missing = "full_count";
	else if (!ops->unit)
		missing = "unit";
	else if (!ops->source)
		missing = "source";
	else if (!ops->input)
		missing = "input";
	else if (!ops->describe)
		missing = "describe";
	else if (!ops->generate)
		missing = "generate";
	else if (!ops->verify)
		missing = "verify";
	else if (!ops->storage)
		missing = "storage";
	else if (images && !ops->sample_name)
		missing = "sample_name";
	else if (images && !ops->sample_column)
		missing = "sample_column";
	if (missing)
		return ts_ds_fail(err, errlen, -EINVAL, "dataset kind '%s': '%s' is missing", name,
				  missing);
	char why[256];
	int rc = ts_source_check(ops->source, why, sizeof(why));
	if (rc)
		return ts_ds_fail(err, errlen, rc, "dataset kind '%s': its reader: %s", name, why);
	for (const struct ts_opt *o = ops->opts; o->name; o++) {
		const struct ts_opt *a = ts_opt_find(ts_dataset_opts(), o->name);
		const char *bad = NULL;
		if (!own_type(o->type))
			bad = "is not a bool, u64 or size";
		else if (o->off + opt_size(o) > ops->opts_size)
			bad = "lies outside its opts_size";
		else if (!a)
			bad = "has no room: more than TS_DATASET_OWN_MAX options in all";
		else if (a < all_opts + TS_ARRAY_SIZE(common_opts))
			bad = "is one every kind takes";
		else if (a->type != o->type || strcmp(a->def ? a->def : "", o->def ? o->def : ""))
			bad = "differs in type or default from another kind's of that name";
		if (bad)
			return ts_ds_fail(err, errlen, -EINVAL, "dataset kind '%s': option '%s' %s",
					  name, o->name, bad);
	}
	return 0;
}

const struct ts_dataset_ops *ts_dataset_kind_at(size_t i)
{
	return i < TS_ARRAY_SIZE(kinds) ? kinds[i] : NULL;
}

const struct ts_dataset_ops *ts_dataset_find(const char *name, char *err, size_t errlen)
{
	char known[256] = "";
	for (size_t i = 0; i < TS_ARRAY_SIZE(kinds); i++) {
		if (name && !strcmp(kinds[i]->name, name))
			return kinds[i];
		size_t used = strlen(known);
		snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", kinds[i]->name);
	}
	ts_ds_fail(err, errlen, TS_E_UNKNOWN, "unknown kind '%s' (known: %s)", name ? name : "",
		   known);
	return NULL;
}

/* The null source, then each kind's reader, in the registry's order. */
const struct ts_source_ops *ts_source_find(const char *name, char *err, size_t errlen)
{
	char known[128] = "";
	const struct ts_dataset_ops *k;
	for (size_t i = 0;; i++) {
		const struct ts_source_ops *s = i ? (k = ts_dataset_kind_at(i - 1)) ? k->source : NULL
						  : &ts_source_null;
		if (!s)
			break;
		if (!strcmp(s->name, name))
			return s;
		size_t used = strlen(known);
		snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", s->name);
	}
	snprintf(err, errlen, "option 'source': unknown source '%s' (known: %s)", name, known);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Describe                                                            */
/* ------------------------------------------------------------------ */

int ts_ds_add_file(struct ts_dataset_meta *meta, const char *path, uint64_t bytes, bool est)
{
	/* the array doubles at each power of two: a kind of 500,000 files
	 * (DLIO's cosmoflow) is described in linear time */
	size_t n = meta->nfiles;
	if (!(n & (n - 1))) {
		struct ts_dataset_file *f = realloc(meta->files, (n ? 2 * n : 1) * sizeof(*f));
		if (!f)
			return -ENOMEM;
		meta->files = f;
	}
	struct ts_dataset_file *f = meta->files;
	f[meta->nfiles].path = strdup(path);
	if (!f[meta->nfiles].path)
		return -ENOMEM;
	f[meta->nfiles].bytes = bytes;
	f[meta->nfiles].estimated = est;
	meta->nfiles++;
	meta->total_bytes += bytes;
	return 0;
}

int ts_ds_mkdir(const char *path)
{
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

int ts_ds_slurp(const char *path, uint8_t **buf, size_t *len)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb)) {
		rc = -errno;
		goto out;
	}
	uint8_t *b = malloc(sb.st_size > 0 ? (size_t)sb.st_size : 1);
	size_t got = 0;
	if (!b) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, b + got, (size_t)sb.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			free(b);
			goto out;
		}
		got += (size_t)n;
	}
	*buf = b;
	*len = got;
out:
	close(fd);
	return rc;
}

static bool takes(const struct ts_dataset_ops *kind, const char *name)
{
	return ts_opt_find(kind->opts, name) != NULL;
}

/* An option that is neither common nor the kind's own must stay at its
 * default; the message names the kinds that take it. */
static int check_opts(const struct ts_dataset_ops *kind, const struct ts_dataset_config *cfg,
		      char *err, size_t errlen)
{
	struct ts_dataset_config def;
	const struct ts_opt *all = ts_dataset_opts();
	int rc;

	memset(&def, 0, sizeof(def));
	if ((rc = ts_opt_defaults(all, &def, err, errlen)))
		return rc;
	for (const struct ts_opt *o = all + TS_ARRAY_SIZE(common_opts); o->name; o++) {
		if (takes(kind, o->name) ||
		    !memcmp((const char *)cfg + o->off, (const char *)&def + o->off, opt_size(o)))
			continue;
		char takers[256] = "";
		for (size_t i = 0; i < TS_ARRAY_SIZE(kinds); i++) {
			size_t used = strlen(takers);
			if (takes(kinds[i], o->name))
				snprintf(takers + used, sizeof(takers) - used, "%s%s",
					 used ? ", " : "", kinds[i]->name);
		}
		return ts_ds_fail(err, errlen, -EINVAL, "--%s is for %s; %s does not take it",
				  o->name, takers[0] ? takers : "no kind", kind->name);
	}
	return 0;
}

/* The kind's own options from @cfg, into its own struct (meta->own). */
static int own_from(const struct ts_dataset_ops *kind, const struct ts_dataset_config *cfg,
		    struct ts_dataset_meta *meta)
{
	if (!kind->opts->name)
		return 0;
	if (!(meta->own = calloc(1, kind->opts_size)))
		return -ENOMEM;
	for (const struct ts_opt *o = kind->opts; o->name; o++)
		memcpy((char *)meta->own + o->off,
		       (const char *)cfg + ts_opt_find(ts_dataset_opts(), o->name)->off, opt_size(o));
	return 0;
}

int ts_dataset_meta_describe(const struct ts_dataset_ops *kind,
			     const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
			     char *err, size_t errlen)
{
	int rc;

	memset(meta, 0, sizeof(*meta));
	if (!kind)
		return ts_ds_fail(err, errlen, TS_E_UNKNOWN, "no dataset kind given");
	if ((rc = ts_dataset_check(kind, err, errlen)) || (rc = check_opts(kind, cfg, err, errlen)))
		return rc;
	meta->kind = kind;
	meta->seed = cfg->seed;
	meta->count = cfg->count ? cfg->count : kind->full_count;
	if ((rc = own_from(kind, cfg, meta)) || (rc = kind->describe(cfg, meta, err, errlen))) {
		if (rc == -ENOMEM)
			ts_ds_fail(err, errlen, rc, "describing %s: %s", kind->name, ts_strerror(rc));
		ts_dataset_meta_free(meta);
		return rc;
	}
	return 0;
}

void ts_dataset_meta_free(struct ts_dataset_meta *meta)
{
	free(meta->bytes);
	free(meta->width);
	free(meta->height);
	free(meta->label);
	free(meta->order);
	free(meta->img_label);
	free(meta->img_fileno);
	free(meta->own);
	for (size_t i = 0; i < meta->nfiles; i++)
		free(meta->files[i].path);
	free(meta->files);
	memset(meta, 0, sizeof(*meta));
}

/* ------------------------------------------------------------------ */
/* Make                                                                */
/* ------------------------------------------------------------------ */

/* Undoes a failed make: what it wrote into @dir (empty before), and the
 * directories it created for it (@made, from ts_mkdir_p). */
static void unmake_dir(const char *dir, const char *made)
{
	/* best effort: the error being reported matters more */
	if (made[0])
		ts_remove_tree(made, 0);
	else
		ts_remove_tree(dir, TS_RM_KEEP_TOP);
}

/* 0 if @dir is empty (or missing: then it is created, and @made says from where). */
static int prepare_dir(const char *dir, char *made, char *err, size_t errlen)
{
	int rc = ts_mkdir_p(dir, 0755, made, PATH_MAX);
	if (rc)
		return ts_ds_fail(err, errlen, rc, "%s: cannot create: %s", dir, ts_strerror(rc));
	DIR *d = opendir(dir);
	if (!d)
		return ts_ds_fail(err, errlen, -errno, "%s: %s", dir, ts_strerror(-errno));
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			ts_ds_fail(err, errlen, -EEXIST,
			     "%s is not empty (holds %s); remove it or choose another --out", dir,
			     e->d_name);
			closedir(d); /* frees e */
			return -EEXIST;
		}
	}
	closedir(d);
	return 0;
}

static json_t *json_u64(uint64_t v)
{
	return v <= INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

static int get_u64(json_t *o, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(o, key);
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v)) { /* seeds above 2^63 */
		char *end;
		errno = 0;
		*out = strtoull(json_string_value(v), &end, 10);
		return *end || errno ? TS_E_FORMAT : 0;
	}
	return TS_E_FORMAT;
}

static int write_manifest(const struct ts_dataset_meta *meta, const char *dir,
			  struct ts_dataset_stats *st, char *err, size_t errlen)
{
	char path[4096], seed[24];
	json_t *root = json_object(), *files = json_array(), *gen = json_object();
	uint64_t total = 0;
	int rc = 0;

	snprintf(seed, sizeof(seed), "%" PRIu64, meta->seed);
	json_object_set_new(root, "format", json_string("tiersim-dataset"));
	json_object_set_new(root, "version", json_integer(MANIFEST_VERSION));
	json_object_set_new(root, "tool", json_string("tiersim " TS_VERSION));
	json_object_set_new(root, "kind", json_string(meta->kind->name));
	if (kind_layout(meta->kind->name))
		json_object_set_new(root, "layout", json_u64(kind_layout(meta->kind->name)->layout));
	json_object_set_new(root, "count", json_u64(meta->count));
	json_object_set_new(root, "seed", meta->seed <= INT64_MAX ? json_integer((json_int_t)meta->seed)
								   : json_string(seed));
	/* the kind's own options, as describe resolved them */
	for (const struct ts_opt *o = meta->kind->opts; o->name; o++) {
		const void *v = (const char *)meta->own + o->off;
		json_object_set_new(root, o->name,
				    o->type == TS_OPT_BOOL ? json_boolean(*(const bool *)v)
							   : json_u64(*(const uint64_t *)v));
	}
	if (meta->samples)
		json_object_set_new(root, "sample_bytes", json_u64(meta->sample_bytes));
	/* what the file list leaves out (the image files of a tree) */
	total = meta->total_bytes;
	for (size_t i = 0; i < meta->nfiles; i++)
		total -= meta->files[i].bytes;
	for (size_t i = 0; i < meta->nfiles; i++) {
		struct stat sb;
		snprintf(path, sizeof(path), "%s/%s", dir, meta->files[i].path);
		if (stat(path, &sb)) {
			rc = ts_ds_fail(err, errlen, -errno, "%s: %s", path, ts_strerror(-errno));
			goto out;
		}
		json_t *f = json_object();
		json_object_set_new(f, "path", json_string(meta->files[i].path));
		json_object_set_new(f, "bytes", json_u64((uint64_t)sb.st_size));
		json_array_append_new(files, f);
		total += (uint64_t)sb.st_size;
	}
	json_object_set_new(root, "files", files);
	files = NULL;
	json_object_set_new(root, "total_bytes", json_u64(total));
	st->bytes = total; /* as written (LMDB's differ from the estimate) */
	double secs = (double)st->ns / 1e9;
	json_object_set_new(gen, "threads", json_integer(st->threads));
	json_object_set_new(gen, "seconds", json_real(secs));
	json_object_set_new(gen, "samples_per_s", json_real(secs > 0 ? st->samples / secs : 0));
	json_object_set_new(gen, "jpeg_pad_bytes", json_u64(st->pad_bytes));
	json_object_set_new(gen, "jpeg_encodes", json_u64(st->encodes));
	json_object_set_new(gen, "jpeg_quality_lowered", json_u64(st->requality));
	json_object_set_new(root, "generated", gen);
	gen = NULL;
	snprintf(path, sizeof(path), "%s/" MANIFEST, dir);
	if (json_dump_file(root, path, JSON_INDENT(2)))
		rc = ts_ds_fail(err, errlen, -EIO, "%s: cannot write", path);
out:
	json_decref(files);
	json_decref(gen);
	json_decref(root);
	return rc;
}

int ts_dataset_make(const struct ts_dataset_ops *kind, const struct ts_dataset_config *cfg,
		    const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen)
{
	struct ts_dataset_meta meta;
	uint64_t t0 = ts_now_ns();
	char made[PATH_MAX];
	int rc;

	memset(st, 0, sizeof(*st));
	if ((rc = ts_dataset_meta_describe(kind, cfg, &meta, err, errlen)))
		return rc;
	if ((rc = prepare_dir(dir, made, err, errlen)))
		goto out;
	rc = kind->generate(&meta, cfg, dir, st, err, errlen);
	st->ns = ts_now_ns() - t0;
	st->bytes = meta.total_bytes;
	if (!rc)
		rc = write_manifest(&meta, dir, st, err, errlen);
	/* a failure (a full disk) leaves nothing half-made; an interrupted make
	 * is kept, and its message says it is incomplete */
	if (rc && rc != -EINTR) {
		unmake_dir(dir, made);
		size_t n = strlen(err);
		snprintf(err + n, errlen - n, "; removed what was written");
	}
out:
	ts_dataset_meta_free(&meta);
	return rc;
}

int ts_dataset_open(const char *dir, struct ts_dataset_meta *meta, char *err, size_t errlen)
{
	struct ts_dataset_config cfg = { 0 };
	const struct ts_dataset_ops *kind;
	char path[4096], why[256];
	json_error_t je;
	json_t *root, *v;
	uint64_t total, version = 0;
	int rc;

	memset(meta, 0, sizeof(*meta));
	/* options the manifest does not record (another kind's) stay at their defaults */
	if ((rc = ts_opt_defaults(ts_dataset_opts(), &cfg, err, errlen)))
		return rc;
	snprintf(path, sizeof(path), "%s/" MANIFEST, dir);
	root = json_load_file(path, 0, &je);
	if (!root) {
		if (access(path, F_OK))
			return ts_ds_fail(err, errlen, -ENOENT,
				    "%s: no such file; is %s a dataset made by `tiersim dataset make`?",
				    path, dir);
		return ts_ds_fail(err, errlen, TS_E_PARSE, "%s:%d: %s", path, je.line, je.text);
	}
	v = json_object_get(root, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), "tiersim-dataset")) {
		rc = ts_ds_fail(err, errlen, TS_E_FORMAT, "%s: not a tiersim dataset manifest", path);
		goto out;
	}
	if (get_u64(root, "version", &version) || version != MANIFEST_VERSION) {
		rc = ts_ds_fail(err, errlen, TS_E_VERSION,
			  "%s: manifest version %" PRIu64 " is not %d; regenerate the dataset",
			  path, version, MANIFEST_VERSION);
		goto out;
	}
	v = json_object_get(root, "kind");
	if (!json_is_string(v) || !(kind = ts_dataset_find(json_string_value(v), why, sizeof(why)))) {
		rc = ts_ds_fail(err, errlen, TS_E_FORMAT, "%s: \"kind\": %s", path,
				json_is_string(v) ? why : "missing");
		goto out;
	}
	const struct kind_layout *kl = kind_layout(kind->name);
	if (kl) {
		uint64_t layout = 0;
		if (!json_object_get(root, "layout") || get_u64(root, "layout", &layout) ||
		    layout != kl->layout) {
			rc = ts_ds_fail(err, errlen, TS_E_VERSION,
					"%s: a %s dataset of an older tiersim (its \"layout\" is not %" PRIu64
					": %s); regenerate the dataset",
					path, kind->name, kl->layout, kl->what);
			goto out;
		}
	}
	if (get_u64(root, "count", &cfg.count) || get_u64(root, "seed", &cfg.seed) ||
	    get_u64(root, "total_bytes", &total)) {
		rc = ts_ds_fail(err, errlen, TS_E_FORMAT,
				"%s: \"count\", \"seed\" or \"total_bytes\" is missing or not a "
				"number",
				path);
		goto out;
	}
	for (const struct ts_opt *k = kind->opts; k->name; k++) {
		const struct ts_opt *o = ts_opt_find(ts_dataset_opts(), k->name);
		void *p = (char *)&cfg + o->off;
		json_t *j = json_object_get(root, o->name);
		bool ok = o->type == TS_OPT_BOOL ? json_is_boolean(j) : !get_u64(root, o->name, p);
		if (!ok) {
			rc = ts_ds_fail(err, errlen, TS_E_FORMAT,
					"%s: \"%s\" (an option of %s) is missing or not a %s", path,
					o->name, kind->name,
					o->type == TS_OPT_BOOL ? "boolean" : "number");
			goto out;
		}
		if (o->type == TS_OPT_BOOL)
			*(bool *)p = json_is_true(j);
	}
	if ((rc = ts_dataset_meta_describe(kind, &cfg, meta, err, errlen)))
		goto out;
	/* the files as they are on disk (LMDB's are only estimated by describe) */
	json_t *files = json_object_get(root, "files");
	size_t i;
	json_t *f;
	json_array_foreach(files, i, f) {
		const char *p = json_string_value(json_object_get(f, "path"));
		uint64_t bytes;
		if (!p || get_u64(f, "bytes", &bytes))
			continue;
		for (size_t k = 0; k < meta->nfiles; k++) {
			if (strcmp(meta->files[k].path, p) == 0 && meta->files[k].estimated) {
				meta->total_bytes += bytes - meta->files[k].bytes;
				meta->files[k].bytes = bytes;
				meta->files[k].estimated = false;
			}
		}
	}
	if (meta->total_bytes != total) {
		rc = ts_ds_fail(err, errlen, TS_E_FORMAT,
			  "%s: total_bytes %" PRIu64 " differs from the %" PRIu64
			  " this tiersim would make; regenerate it with this version",
			  path, total, meta->total_bytes);
		ts_dataset_meta_free(meta);
	}
out:
	json_decref(root);
	return rc;
}
int ts_dataset_verify(const char *dir, char *err, size_t errlen)
{
	struct ts_dataset_meta meta;
	int rc = ts_dataset_open(dir, &meta, err, errlen);

	if (rc)
		return rc;
	rc = meta.kind->verify(&meta, dir, err, errlen);
	ts_dataset_meta_free(&meta);
	return rc;
}
