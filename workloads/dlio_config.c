/*
 * dlio_config.c — DLIO workload files through libyaml (see dlio_config.h).
 *
 * Defaults are DLIO's (dlio_benchmark/utils/config.py, ConfigArguments):
 * tfrecord, 8 files of 1 sample of 64 KiB, batch 1, 1 read thread, 1 epoch,
 * seed 123, no shuffle (shuffle_size 1024), computation_time 0. Two differ
 * because DLIO leaves them to the framework: transfer_size (None in DLIO)
 * is TensorFlow's TFRecordDataset read buffer when none is given, 256 KiB.
 * prefetch_size is DLIO 2.0.0's 2 (its PyTorch loader's prefetch_factor is
 * ceil(prefetch_size / read_threads), workloads/dlio_loader.h). metric.au is MLPerf
 * Storage's 0.90 when the file gives none.
 */
#include "workloads/dlio_config.h"

#include "core/paths.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#define OFF(f) offsetof(struct ts_dlio_workload, f)

const struct ts_opt ts_dlio_opts[] = {
	{ "model", TS_OPT_STR, OFF(model), "default", 0, 0, "", "the model DLIO imitates" },
	{ "framework", TS_OPT_STR, OFF(framework), "tensorflow", 0, 0, "", "pytorch | tensorflow" },
	{ "dataset.format", TS_OPT_STR, OFF(format), "tfrecord", 0, 0, "",
	  "npz | tfrecord | jpeg | png | hdf5" },
	{ "dataset.num_files_train", TS_OPT_U64, OFF(num_files_train), "8", 1, 1e9, "files", "" },
	{ "dataset.num_samples_per_file", TS_OPT_U64, OFF(num_samples_per_file), "1", 1, 1e7, "",
	  "" },
	{ "dataset.record_length", TS_OPT_DOUBLE, OFF(record_length), "65536", 1, 2147483647.0,
	  "bytes", "mean bytes per sample" },
	{ "dataset.record_length_stdev", TS_OPT_DOUBLE, OFF(record_length_stdev), "0", 0,
	  2147483647.0, "bytes", "" },
	{ "dataset.record_length_resize", TS_OPT_DOUBLE, OFF(record_length_resize), "0", 0,
	  2147483647.0, "bytes",
	  "the image a PyTorch sample hands over, DLIO 2.0.0's resized_image (0: record_length)" },
	{ "dataset.compression", TS_OPT_STR, OFF(compression), "none", 0, 0, "",
	  "none (DLIO's gzip, zip, ... are refused)" },
	{ "dataset.enable_chunking", TS_OPT_BOOL, OFF(enable_chunking), "false", 0, 0, "",
	  "hdf5: false (contiguous records)" },
	{ "reader.data_loader", TS_OPT_STR, OFF(data_loader), "pytorch", 0, 0, "",
	  "pytorch | tensorflow | dali" },
	{ "reader.batch_size", TS_OPT_U64, OFF(batch_size), "1", 1, 1e7, "samples", "per accelerator" },
	{ "reader.read_threads", TS_OPT_U64, OFF(read_threads), "1", 0, 4096, "", "per accelerator" },
	{ "reader.computation_threads", TS_OPT_U64, OFF(computation_threads), "1", 0, 4096, "", "" },
	{ "reader.prefetch_size", TS_OPT_U64, OFF(prefetch_size), "2", 0, 1024, "batches", "" },
	{ "reader.transfer_size", TS_OPT_U64, OFF(transfer_size), "262144", 0, 1u << 30, "bytes",
	  "bytes per read request" },
	{ "reader.file_shuffle", TS_OPT_STR, OFF(file_shuffle), "off", 0, 0, "", "off | seed | random" },
	{ "reader.sample_shuffle", TS_OPT_STR, OFF(sample_shuffle), "off", 0, 0, "",
	  "off | seed | random" },
	{ "reader.preprocess_time", TS_OPT_DOUBLE, OFF(preprocess_time), "0", 0, 1e6, "s",
	  "per sample, in a reader (DLIO's FormatReader.preprocess sleeps it)" },
	{ "reader.read_type", TS_OPT_STR, OFF(read_type), "", 0, 0, "",
	  "memory | on_demand: either given keeps each file open in its reader (DLIO 2.0.0)" },
	{ "reader.shuffle_size", TS_OPT_U64, OFF(shuffle_size), "1024", 0, 1e9, "samples", "" },
	{ "train.epochs", TS_OPT_U64, OFF(epochs), "1", 1, 1e6, "", "" },
	{ "train.computation_time", TS_OPT_DOUBLE, OFF(computation_time), "0", 0, 1e6, "s",
	  "per batch" },
	{ "train.total_training_steps", TS_OPT_INT, OFF(total_training_steps), "-1", -1, 1e12, "",
	  "" },
	{ "train.seed", TS_OPT_U64, OFF(seed), "123", 0, 0, "", "" },
	{ "metric.au", TS_OPT_DOUBLE, OFF(au), "0.90", 0, 1, "", "accelerator utilization to keep" },
	{ NULL },
};

/* Other names DLIO reads for the same keys. */
static const struct {
	const char *alias, *key;
} aliases[] = {
	{ "model.name", "model" },
	{ "dataset.record_length_bytes", "dataset.record_length" },
	{ "dataset.record_length_bytes_stdev", "dataset.record_length_stdev" },
	/* DLIO's LoadConfig after 2.0.0 reads record_length_bytes_resize into
	 * record_length_resize, the name 2.0.0 read (the shipped unet3d_h100/a100
	 * files, from a later commit, name it so) */
	{ "dataset.record_length_bytes_resize", "dataset.record_length_resize" },
	{ "seed", "train.seed" },
};

/* Keys DLIO knows that tiersim does not model: accepted as they are
 * (a name ending in '.' stands for its whole section). */
static const char *const unmodeled[] = {
	"workflow.", "checkpoint.", "profiling.", "output.", "evaluation.", "model.",
	"dataset.data_folder", "dataset.num_files_eval", "dataset.file_prefix",
	"dataset.chunk_size", "dataset.compression_level",
	"dataset.num_subfolders_train", "dataset.num_subfolders_eval", "reader.batch_size_eval",
	"reader.dont_use_mmap", "reader.file_access", "train.epoch",
	"train.computation_time_stdev", "train.seed_change_epoch", "reader.preprocess_time_stdev",
};

/* Sections whose keys are read; any other mapping is unknown. */
static const char *const sections[] = { "dataset", "reader", "train", "metric", "model",
					"workflow", "checkpoint", "profiling", "output",
					"evaluation" };

static bool is_unmodeled(const char *key)
{
	for (size_t i = 0; i < TS_ARRAY_SIZE(unmodeled); i++) {
		size_t n = strlen(unmodeled[i]);
		if (unmodeled[i][n - 1] == '.' ? !strncmp(key, unmodeled[i], n)
					       : !strcmp(key, unmodeled[i]))
			return true;
	}
	return false;
}

static const char *canonical(const char *key)
{
	for (size_t i = 0; i < TS_ARRAY_SIZE(aliases); i++)
		if (!strcmp(key, aliases[i].alias))
			return aliases[i].key;
	return key;
}

static const char *type_name(enum ts_opt_type t)
{
	switch (t) {
	case TS_OPT_BOOL: return "a boolean";
	case TS_OPT_STR: return "a string";
	case TS_OPT_DOUBLE: return "a number";
	default: return "an integer";
	}
}

struct walk {
	const char *path;
	yaml_document_t *doc;
	struct ts_dlio_workload *w;
	FILE *warn;
	char *err;
	size_t errlen;
	size_t resize_line[2]; /* record_length_resize's, record_length_bytes_resize's */
};

static int set_scalar(struct walk *W, const char *key, const char *val, size_t line)
{
	const struct ts_opt *o = ts_opt_find(ts_dlio_opts, canonical(key));
	if (!o) {
		if (!is_unmodeled(key) && W->warn)
			fprintf(W->warn, "tiersim dlio: warning: %s:%zu: unknown key '%s' ignored\n",
				W->path, line, key);
		return 0;
	}
	/* DLIO 2.0.0 reads record_length_resize alone, later DLIO
	 * record_length_bytes_resize alone: with both, which one a run used
	 * depends on its DLIO */
	if (!strcmp(o->name, "dataset.record_length_resize")) {
		bool bytes = strcmp(key, o->name) != 0;
		W->resize_line[bytes] = line;
		if (W->resize_line[!bytes]) {
			snprintf(W->err, W->errlen,
				 "%s:%zu: dataset.%s and dataset.%s (line %zu) both given: DLIO 2.0.0 "
				 "reads record_length_resize, later DLIO record_length_bytes_resize; "
				 "give one",
				 W->path, line, bytes ? "record_length_bytes_resize" : "record_length_resize",
				 bytes ? "record_length_resize" : "record_length_bytes_resize",
				 W->resize_line[!bytes]);
			return TS_E_PARSE;
		}
	}
	char sub[256];
	int rc = ts_opt_set(ts_dlio_opts, W->w, o->name, val, sub, sizeof(sub));
	if (rc)
		snprintf(W->err, W->errlen, "%s:%zu: key '%s': '%s' is not %s%s", W->path, line, key,
			 val, type_name(o->type),
			 o->min || o->max ? " in range" : "");
	return rc;
}

static int walk_map(struct walk *W, yaml_node_t *map, const char *prefix)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(W->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(W->doc, p->value);
		size_t line = k->start_mark.line + 1;
		if (k->type != YAML_SCALAR_NODE) {
			snprintf(W->err, W->errlen, "%s:%zu: a key must be a name", W->path, line);
			return TS_E_PARSE;
		}
		char key[256];
		snprintf(key, sizeof(key), "%s%s%s", prefix, *prefix ? "." : "",
			 (const char *)k->data.scalar.value);
		const struct ts_opt *o = ts_opt_find(ts_dlio_opts, canonical(key));
		if (v->type == YAML_SCALAR_NODE) {
			int rc = set_scalar(W, key, (const char *)v->data.scalar.value, line);
			if (rc)
				return rc;
			continue;
		}
		bool section = false;
		for (size_t i = 0; !*prefix && i < TS_ARRAY_SIZE(sections); i++)
			section |= !strcmp(key, sections[i]);
		if (o && !(section && v->type == YAML_MAPPING_NODE)) {
			snprintf(W->err, W->errlen, "%s:%zu: key '%s' takes %s, not a %s", W->path, line,
				 key, type_name(o->type),
				 v->type == YAML_MAPPING_NODE ? "mapping" : "list");
			return TS_E_PARSE;
		}
		/* a run's resolved config.yaml nests everything under workload: */
		bool top = !*prefix && !strcmp(key, "workload");
		if (v->type == YAML_MAPPING_NODE && (section || top)) {
			int rc = walk_map(W, v, top ? "" : key);
			if (rc)
				return rc;
		} else if (!is_unmodeled(key) && W->warn) {
			fprintf(W->warn, "tiersim dlio: warning: %s:%zu: unknown key '%s' ignored\n",
				W->path, line, key);
		}
	}
	return 0;
}

int ts_dlio_load(const char *path, struct ts_dlio_workload *w, FILE *warn, char *err,
		 size_t errlen)
{
	memset(w, 0, sizeof(*w));
	int rc = ts_opt_defaults(ts_dlio_opts, w, err, errlen);
	if (rc)
		return rc;
	FILE *f = fopen(path, "rb");
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, ts_strerror(rc));
		return rc;
	}
	yaml_parser_t p;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&p)) {
		fclose(f);
		return -ENOMEM;
	}
	yaml_parser_set_input_file(&p, f);
	if (!yaml_parser_load(&p, &doc)) {
		snprintf(err, errlen, "%s:%zu:%zu: malformed YAML: %s%s%s", path,
			 p.problem_mark.line + 1, p.problem_mark.column + 1,
			 p.problem ? p.problem : "?", p.context ? " " : "",
			 p.context ? p.context : "");
		yaml_parser_delete(&p);
		fclose(f);
		return TS_E_PARSE;
	}
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		snprintf(err, errlen, "%s:%zu: a workload is a mapping of sections (dataset:, "
				      "reader:, train:, metric:)", path,
			 root ? root->start_mark.line + 1 : 1);
		rc = TS_E_PARSE;
	} else {
		struct walk W = { path, &doc, w, warn, err, errlen, { 0, 0 } };
		rc = walk_map(&W, root, "");
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	fclose(f);
	return rc;
}

int ts_dlio_override(struct ts_dlio_workload *w, const char *arg, char *err, size_t errlen)
{
	const char *s = arg;
	while (*s == '+')
		s++;
	if (!strncmp(s, "workload.", 9))
		s += 9;
	const char *eq = strchr(s, '=');
	if (!eq || eq == s) {
		snprintf(err, errlen, "%s: an override is ++workload.SECTION.KEY=VALUE", arg);
		return TS_E_PARSE;
	}
	char key[256];
	snprintf(key, sizeof(key), "%.*s", (int)(eq - s), s);
	const char *k = canonical(key);
	const struct ts_opt *o = ts_opt_find(ts_dlio_opts, k);
	if (!o) {
		if (is_unmodeled(key))
			return 0;
		snprintf(err, errlen, "%s: unknown key '%s' ('tiersim dlio --help' lists them)", arg,
			 key);
		return TS_E_UNKNOWN;
	}
	char sub[256];
	int rc = ts_opt_set(ts_dlio_opts, w, o->name, eq + 1, sub, sizeof(sub));
	if (rc)
		snprintf(err, errlen, "%s: key '%s': '%s' is not %s%s", arg, key, eq + 1,
			 type_name(o->type), o->min || o->max ? " in range" : "");
	return rc;
}

static bool one_of(const char *v, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v && !strcmp(v, set[i]))
			return true;
	return false;
}

int ts_dlio_check(const struct ts_dlio_workload *w, const char *path, char *err, size_t errlen)
{
	static const char *const formats[] = { "npz", "tfrecord", "jpeg", "png", "hdf5" };
	static const char *const loaders[] = { "pytorch", "tensorflow", "dali" };
	static const char *const shuffles[] = { "off", "seed", "random" };
	if (!one_of(w->format, formats, TS_ARRAY_SIZE(formats))) {
		snprintf(err, errlen, "%s: dataset.format '%s': tiersim models npz, tfrecord, jpeg, "
				      "png and hdf5",
			 path, w->format ? w->format : "");
		return TS_E_UNKNOWN;
	}
	if (!one_of(w->data_loader, loaders, TS_ARRAY_SIZE(loaders))) {
		snprintf(err, errlen, "%s: reader.data_loader '%s': tiersim models pytorch, "
				      "tensorflow and dali", path, w->data_loader ? w->data_loader : "");
		return TS_E_UNKNOWN;
	}
	if (!one_of(w->file_shuffle, shuffles, TS_ARRAY_SIZE(shuffles)) ||
	    !one_of(w->sample_shuffle, shuffles, TS_ARRAY_SIZE(shuffles))) {
		snprintf(err, errlen, "%s: reader.file_shuffle / sample_shuffle is off, seed or random",
			 path);
		return TS_E_PARSE;
	}
	bool torch_only = strcmp(w->format, "npz") && strcmp(w->format, "tfrecord");
	if (strcmp(w->format, "tfrecord") && strcmp(w->format, "hdf5") && w->num_samples_per_file != 1) {
		snprintf(err, errlen, "%s: dataset.num_samples_per_file %llu: the %s kind stores one "
				      "sample per file", path,
			 (unsigned long long)w->num_samples_per_file, w->format);
		return -EINVAL;
	}
	if (torch_only && strcmp(w->data_loader, "pytorch")) {
		snprintf(err, errlen, "%s: dataset.format %s: tiersim reads it with DLIO's PyTorch "
				      "loader only (reader.data_loader: pytorch)", path, w->format);
		return -EINVAL;
	}
	/* DLIO 2.0.0 keeps files open with either value given (dlio_loader.h);
	 * its DALI loader reads through the same read_index(), which tiersim's
	 * reading of dali (the project's loader) does not model */
	static const char *const read_types[] = { "memory", "on_demand" };
	if (w->read_type && *w->read_type) {
		if (!one_of(w->read_type, read_types, TS_ARRAY_SIZE(read_types))) {
			snprintf(err, errlen, "%s: reader.read_type '%s': DLIO's are memory and "
					      "on_demand", path, w->read_type);
			return TS_E_PARSE;
		}
		if (!strcmp(w->data_loader, "dali")) {
			snprintf(err, errlen, "%s: reader.read_type %s: DLIO 2.0.0's DALI loader then "
					      "keeps each file open in its reader; tiersim models that "
					      "with data_loader pytorch only (leave read_type out)",
				 path, w->read_type);
			return -EINVAL;
		}
	}
	if (strcmp(w->compression, "none")) {
		snprintf(err, errlen, "%s: dataset.compression '%s': tiersim writes DLIO's files "
				      "uncompressed only (none)", path, w->compression);
		return -EINVAL;
	}
	/* hdf5_generator.py calls math.ceil without importing math */
	if (w->enable_chunking && !strcmp(w->format, "hdf5")) {
		snprintf(err, errlen, "%s: dataset.enable_chunking: DLIO 2.0.0's HDF5 generator fails "
				      "with it (NameError: math); tiersim writes contiguous records "
				      "only", path);
		return -EINVAL;
	}
	if (w->au <= 0) {
		snprintf(err, errlen, "%s: metric.au must be above 0", path);
		return -EINVAL;
	}
	return 0;
}

/* The shipped workloads: workloads/dlio/NAME.yaml where tiersim finds its
 * data (core/paths.h: $TIERSIM_DATADIR, the source tree, the installed
 * data directory). */
int ts_dlio_find(const char *name, char *out, size_t n, char *err, size_t errlen)
{
	size_t l = strlen(name);
	if (strchr(name, '/') || (l > 5 && !strcmp(name + l - 5, ".yaml"))) {
		snprintf(out, n, "%s", name);
		return 0;
	}
	char rel[300];
	snprintf(rel, sizeof(rel), "workloads/dlio/%s.yaml", name);
	if (!ts_data_find(rel, out, n))
		return 0;
	char known[1024] = "", dir[4096];
	DIR *dp = ts_data_find("workloads/dlio", dir, sizeof(dir)) ? NULL : opendir(dir);
	struct dirent *e;
	while (dp && (e = readdir(dp))) {
		size_t el = strlen(e->d_name);
		if (el > 5 && !strcmp(e->d_name + el - 5, ".yaml")) {
			size_t used = strlen(known);
			snprintf(known + used, sizeof(known) - used, "%s%.*s", used ? ", " : "",
				 (int)(el - 5), e->d_name);
		}
	}
	if (dp)
		closedir(dp);
	snprintf(err, errlen, "unknown workload '%s' (shipped: %s; or give a .yaml file)", name,
		 known[0] ? known : "none found");
	return TS_E_UNKNOWN;
}

void ts_dlio_free(struct ts_dlio_workload *w)
{
	ts_opt_free(ts_dlio_opts, w);
}
