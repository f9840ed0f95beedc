/*
 * ds_dlio.h — what the DLIO dataset kinds (ds_npz.c, ds_tfrecord.c,
 * ds_jpeg.c, ds_png.c, ds_hdf5.c) share: DLIO's dataset section (num_files_train files of
 * num_samples_per_file samples of record_length ± record_length_stdev
 * bytes) described, generated, verified and read the same way, each kind
 * saying only how a file's bytes are laid out and read (its struct
 * ts_dlio_fmt, the kind's ops data): the hooks below are the kinds' own,
 * taking the format from their own ops (meta->kind, or the source's
 * data). Outside pipeline/ds_*.c only DLIO's own loaders include it
 * (workloads/dlio_loader.c: the file names and the file-system layout
 * below).
 */
#ifndef TS_DS_DLIO_H
#define TS_DS_DLIO_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline/dataset.h"
#include "pipeline/source.h"

/* Where a file's bytes go as they are made: written, or compared. */
struct ts_dlio_sink {
	int (*put)(struct ts_dlio_sink *s, const void *buf, size_t n);
};

struct ts_dlio_fmt {
	const char *ext; /* file name extension: "npz", "tfrecord" */
	/* Bytes a sample of @payload bytes occupies (what a read of it covers). */
	uint64_t (*stored)(uint64_t payload);
	/* Emits file @f of @meta into @s, sample payloads from ts_dlio_payload. */
	int (*emit)(const struct ts_dataset_meta *meta, uint64_t f, struct ts_dlio_sink *s);
	const char *storage; /* how samples are stored, for `tiersim dataset info` */
	/* Samples a file may hold (0: any); npz stores one. */
	uint64_t max_per_file;
	/* The reader. Files of many records are read where each record lies
	 * (TFRecord: in transfer_size requests, files held open); otherwise
	 * each sample's file is read whole (np.load). @find gives the payload
	 * inside what was read, checking its framing. */
	bool records;
	int (*find)(const uint8_t *buf, size_t len, uint64_t *off, uint64_t *n);
	/* Image kinds (jpeg, png, hdf5): a file holds one w x h greyscale
	 * image of DLIO's random pixels (ts_dlio_pixels), its sides drawn as
	 * DLIO's generator draws them (ts_dlio_image_describe). The largest
	 * side the format takes here and why; then either the encoder that
	 * makes file @j (*@out malloc'd, *@len bytes: jpeg, png, one image a
	 * file; the kind's emit is then ts_dlio_encoded_emit) or, for a layout
	 * whose size follows from the sides, the bytes of file @f and in
	 * *@sample those of each of its images (hdf5, whose files hold
	 * samples_per_file images of one size). 0 / NULL otherwise. */
	uint32_t side_max;
	const char *side_why;
	int (*encode)(const struct ts_dataset_meta *meta, uint64_t j, uint8_t **out, size_t *len);
	uint64_t (*image_bytes)(const struct ts_dataset_meta *meta, uint64_t f, uint64_t *sample);
	/* Where sample @j lies in its file, when not right after the
	 * previous one (NULL: from offset 0, one after the other). */
	uint64_t (*sample_off)(const struct ts_dataset_meta *meta, uint64_t j);
};

/* The options of DLIO's dataset section that both kinds take (their
 * struct ts_dataset_ops.opts, into this struct): num_samples_per_file,
 * record_length and record_length_stdev, as describe resolves them
 * (samples_per_file 0 = 1, record_length 0 = the default below). */
struct ts_dlio_dataset_opts {
	uint64_t samples_per_file;
	uint64_t record_length; /* bytes per sample (mean) */
	uint64_t record_stdev;	/* their standard deviation */
};
extern const struct ts_opt ts_dlio_dataset_opts[];

/* record_length when none is given: DLIO's default (64 KiB, its
 * ConfigArguments.record_length). */
#define TS_DLIO_RECORD_LENGTH 65536u

/* The folder every file lies in (DLIO's data_folder/train). */
#define TS_DLIO_DIR "train"

/* The describe, generate, verify and storage hooks of struct ts_dataset_ops. */
TS_WUR int ts_dlio_describe(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
			char *err, size_t errlen);
TS_WUR int ts_dlio_generate(const struct ts_dataset_meta *meta, const struct ts_dataset_config *cfg,
			    const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen);
TS_WUR int ts_dlio_verify(const struct ts_dataset_meta *meta, const char *dir, char *err,
			  size_t errlen);
void ts_dlio_storage(const struct ts_dataset_meta *meta, char *out, size_t n);
/* "train/img_007_of_168.npz", DLIO's name: the index zero-padded to the
 * digits of the file count. */
void ts_dlio_file_name(const struct ts_dataset_meta *meta, const char *ext, uint64_t f,
		       char *out, size_t n);
/* Payload bytes of sample @j (from its stored size). */
uint64_t ts_dlio_payload_len(const struct ts_dlio_fmt *fmt, const struct ts_dataset_meta *meta,
			     uint64_t j);
/* Emits the @n payload bytes of sample @j into @s, and adds them to a
 * running CRC when @crc32 / @crc32c are not NULL. */
TS_WUR int ts_dlio_payload(const struct ts_dataset_meta *meta, uint64_t j, uint64_t n,
			   struct ts_dlio_sink *s, uint32_t *crc32, uint32_t *crc32c);

/* ---- image kinds ---------------------------------------------------------- */

/* describe for an image kind: every file one image, each side apart from
 * N(int(sqrt(record_length)), record_length_stdev / (2 sqrt(record_length)))
 * cut as int() does and at least 1 (DLIO's data_generator.py
 * get_dimension, config.py), width then height from the dataset's seed
 * (not numpy's stream), each file's bytes from the format's image_bytes. */
TS_WUR int ts_dlio_image_describe(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
				  char *err, size_t errlen);
/* The emit hook of a kind with an encoder: file @f as it encodes it,
 * refused (TS_E_CORRUPT) unless of the bytes describe found. */
TS_WUR int ts_dlio_encoded_emit(const struct ts_dataset_meta *meta, uint64_t f,
				struct ts_dlio_sink *s);
/* Sample @j's width x height pixels, row by row, into @s: uniform over
 * 0-254 as np.random.randint(255) draws them, each from 16 of the
 * sample's pseudo-random bits (ts_dlio_payload). */
TS_WUR int ts_dlio_pixels(const struct ts_dataset_meta *meta, uint64_t j, struct ts_dlio_sink *s);
/* The same pixels in memory: *@px (malloc'd, width x height bytes). */
TS_WUR int ts_dlio_pixels_alloc(const struct ts_dataset_meta *meta, uint64_t j, uint8_t **px);

/* The hooks of a DLIO kind's reader (struct ts_source_ops), whose data is
 * the kind's struct ts_dataset_ops: one list for both kinds' tables. */
#define TS_DLIO_READER_HOOKS                                                              \
	.version = TS_SOURCE_VERSION, .caps = TS_SRC_EXTENTS, .open = ts_dlio_open,       \
	.count = ts_dlio_count, .max_len = ts_dlio_max_len, .extent = ts_dlio_extent,     \
	.unwrap = ts_dlio_unwrap, .describe = ts_dlio_describe_sample, .close = ts_dlio_close, \
	.plan_open = ts_dlio_plan_open, .plan_sample = ts_dlio_plan_sample,               \
	.plan_close = ts_dlio_plan_close, .plan_prefetch = ts_dlio_plan_prefetch,             \
	.plan_reads = ts_dlio_plan_reads, .plan_runs = ts_dlio_plan_runs
int ts_dlio_open(const struct ts_source_ops *self, const struct ts_pipe_cfg *cfg, void **st,
		 char *err, size_t errlen);
uint64_t ts_dlio_count(void *st);
uint64_t ts_dlio_max_len(void *st);
int ts_dlio_extent(void *st, uint64_t i, struct ts_extent *x);
int ts_dlio_unwrap(void *st, uint64_t i, uint8_t *buf, uint32_t len, struct ts_payload *pl);
void ts_dlio_describe_sample(void *st, uint64_t i, char *buf, size_t n);
void ts_dlio_close(void *st);
int ts_dlio_plan_open(const struct ts_source_ops *self, struct ts_vsource *vs, char *err,
		      size_t errlen);
void ts_dlio_plan_sample(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out);
void ts_dlio_plan_close(struct ts_vsource *vs);
void ts_dlio_plan_prefetch(const struct ts_vsource *vs, uint64_t i);
int ts_dlio_plan_reads(const struct ts_vsource *vs, uint64_t i, uint64_t n, struct ts_vread *out);
int ts_dlio_plan_runs(const struct ts_vsource *vs, uint64_t *per, uint64_t *len);

/* ---- the file system under a dataset (virtual time) ---------------------- */

/*
 * Where a DLIO dataset's files lie in the file system under it, for the
 * lookups an open makes (tier/fsmeta.h's rule: each folder's blocks and
 * each window of the inode table read the first time, nothing after).
 * The tree is numbered depth first in sorted order, as mkfs.ext4 -d
 * numbers it and as a generator writing the files in order does: from
 * first_inode
 * lost+found, dataset.json, train/ (first_inode + 2), then train/'s files
 * in storage order (file f at train/'s + 1 + f); the dataset's folder
 * holds train/ and dataset.json, train/ the files' names (linear folders,
 * ts_fsmeta_dir_blocks). Every virtual reader of a DLIO dataset charges
 * its opens through it: the source's plan (ts_dlio_plan_sample, the
 * project's loader) and DLIO's PyTorch and TensorFlow loaders
 * (workloads/dlio_loader.c), so one dataset's opens cost the same in
 * each, and what tierfs charges for them.
 */
struct ts_fsmeta_params;
struct ts_dlio_fs {
	uint64_t dir_ino; /* train/'s inode rank; 0: no file system */
	uint32_t dir_blocks, top_blocks;
};
/* The id the rule knows train/ by (a file's is 2 + its number). */
#define TS_DLIO_DIR_KEY (UINT64_MAX - 2)
/* @m's layout in file system @fs (NULL: none, every open a bare metadata
 * request). */
void ts_dlio_fs_layout(const struct ts_fsmeta_params *fs, const struct ts_dataset_meta *m,
		       struct ts_dlio_fs *out);
/* The open of file @f: a TS_VIO_META request on file id f + 2 with the
 * nodes its lookups name (ino 0 with no file system). */
struct ts_vio ts_dlio_fs_open(const struct ts_dlio_fs *L, uint64_t f);

#endif
