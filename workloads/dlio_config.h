/*
 * dlio_config.h — a DLIO workload (argonne-lcf/dlio_benchmark's
 * configs/workload/ files, as MLPerf Storage ships them), read with
 * libyaml into one option table (ts_dlio_opts, keys "section.key" as DLIO
 * names them), with DLIO's defaults for what a file leaves out.
 *
 * Rules: a key tiersim does not know is ignored with a warning naming it
 * and its line; a key DLIO knows that tiersim does not model (workflow.*,
 * checkpoint.*, dataset.data_folder...) is accepted silently (workloads/DLIO.md
 * lists them); a value of the wrong type is refused naming the file, the
 * line and the key. Hydra-style overrides ("++workload.reader.read_threads=4")
 * apply after the file; an unknown key there is refused.
 */
#ifndef TS_DLIO_CONFIG_H
#define TS_DLIO_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/opt.h"
#include "core/ts.h"

struct ts_dlio_workload {
	char *model;		 /* model (or model.name) */
	char *framework;	 /* pytorch | tensorflow */
	/* dataset */
	char *format;		 /* npz | tfrecord | jpeg | png | hdf5 */
	uint64_t num_files_train;
	uint64_t num_samples_per_file;
	double record_length;	 /* bytes (record_length or record_length_bytes) */
	double record_length_stdev;
	/* the array each PyTorch sample hands over, DLIO 2.0.0's resized_image:
	 * side int(sqrt(this)), uint8 (0: record_length's; record_length_
	 * bytes_resize, which unet3d's files name, 2.0.0 does not read) */
	double record_length_resize;
	char *compression;	 /* none: what tiersim writes */
	bool enable_chunking;	 /* hdf5: refused (DLIO 2.0.0's generator fails) */
	/* reader */
	char *data_loader;	 /* pytorch | tensorflow | dali */
	uint64_t batch_size;
	uint64_t read_threads;
	uint64_t computation_threads;
	uint64_t prefetch_size;	 /* batches; 0 = the loader's default */
	uint64_t transfer_size;	 /* bytes per read request (TFRecord) */
	char *file_shuffle;	 /* off | seed | random */
	char *sample_shuffle;
	uint64_t shuffle_size;
	double preprocess_time;	 /* seconds per sample in a reader */
	char *read_type;	 /* "" (not given), memory or on_demand */
	/* train */
	uint64_t epochs;
	double computation_time; /* seconds per batch, per accelerator */
	int64_t total_training_steps; /* -1 = whole epochs */
	uint64_t seed;
	/* metric */
	double au;		 /* the AU a run must keep */
};

extern const struct ts_opt ts_dlio_opts[];

/*
 * Reads @path into @w (defaults first). Warnings (unknown keys) go to
 * @warn, one line each. Returns 0, or TS_E_PARSE (malformed YAML, a wrong
 * type), -errno (the file) with one line in @err naming file and line.
 */
TS_WUR int ts_dlio_load(const char *path, struct ts_dlio_workload *w, FILE *warn, char *err,
			size_t errlen);
/* One override, "[++][workload.]section.key=value". */
TS_WUR int ts_dlio_override(struct ts_dlio_workload *w, const char *arg, char *err,
			    size_t errlen);
/* What tiersim can run: a format it models, sizes and counts > 0. */
TS_WUR int ts_dlio_check(const struct ts_dlio_workload *w, const char *path, char *err,
			 size_t errlen);
/* A shipped workload by name ("unet3d_h100") or a path: the file to read,
 * or TS_E_UNKNOWN with the shipped names listed. */
TS_WUR int ts_dlio_find(const char *name, char *out, size_t n, char *err, size_t errlen);
void ts_dlio_free(struct ts_dlio_workload *w);

#endif
