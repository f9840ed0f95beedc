/*
 * dataset.h — look-alikes of the datasets the study trained on, generated
 * locally and deterministically from a seed, and their metadata at any size
 * without writing a byte (the virtual mode predicts a full ImageNet epoch
 * from ts_dataset_meta_describe() alone).
 *
 * Kinds and what lands in DIR (see pipeline/DATASETS.md for the details and
 * the sources of every figure):
 *
 *   imagenet-jpeg  train/<wnid>/<wnid>_<n>.JPEG  (and val/<wnid>/ILSVRC2012_val_<8 digits>.JPEG)
 *                  class-per-folder tree of real JPEG files, ImageFolder style
 *   imagenet-lmdb  train_lmdb/{data,lock}.mdb     Caffe convert_imageset --shuffle
 *                  --resize_height=256 --resize_width=256: key "%08d_<wnid>/<file>",
 *                  value a Datum (datum.h); raw BGR CHW, or the JPEG with --encoded
 *   imagenet-rec   train.rec + train.idx          MXNet im2rec --resize 480 --quality 90:
 *                  IRHeader + JPEG, shorter side 480 (recordio.h)
 *   ptb-text       ptb.{train,valid,test}.txt     PennTreeBank-like word corpus
 *   npz            train/img_<i>_of_<n>.npz       DLIO's npz: numpy savez (a zip of x.npy, y.npy)
 *   tfrecord       train/img_<i>_of_<n>.tfrecord  DLIO's tfrecord: framed tf.train.Examples
 *   jpeg, png      train/img_<i>_of_<n>.jpeg|png  DLIO's images: one greyscale image each, Pillow's
 *   hdf5           train/img_<i>_of_<n>.hdf5      DLIO's hdf5: h5py's file of one 'records' image
 *
 * plus dataset.json (kind, count, seed, the kind's options, sizes, version)
 * in every DIR. Each kind is a struct ts_dataset_ops (below) in its own
 * pipeline/ds_<kind>.c.
 *
 * Sample numbering: "image" i (0 <= i < count) is the i-th file of the
 * train tree in sorted order (class-major), images count .. count+val-1 the
 * val tree; LMDB and RecordIO store the train images in a seeded shuffled
 * order, as convert_imageset --shuffle and im2rec (shuffle on by default)
 * do. meta->order[j] names the image stored j-th.
 */
#ifndef TS_DATASET_H
#define TS_DATASET_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/opt.h"
#include "core/ts.h"

struct ts_dataset_ops;
struct ts_source_ops;

/*
 * Full sizes. ILSVRC2012: 1,281,167 train and 50,000 val images in 1,000
 * classes (image-net.org ILSVRC2012 page; TFDS catalog "imagenet2012").
 * PTB (Mikolov's simple-examples ptb.*.txt, `wc -w`): 887,521 train,
 * 70,390 valid, 78,669 test words; 10,000-word vocabulary.
 */
#define TS_IMAGENET_TRAIN 1281167ULL
#define TS_IMAGENET_VAL 50000ULL
#define TS_IMAGENET_CLASSES 1000u
#define TS_PTB_TRAIN_WORDS 887521ULL
#define TS_PTB_VALID_WORDS 70390ULL
#define TS_PTB_TEST_WORDS 78669ULL
#define TS_PTB_VOCAB 10000u

/* Caffe's LMDB images: 256 x 256 x 3 = 196,608 bytes of pixels. */
#define TS_LMDB_SIDE 256
#define TS_LMDB_PIXELS (TS_LMDB_SIDE * TS_LMDB_SIDE * 3)
/* im2rec --resize: the shorter side of every RecordIO image. */
#define TS_REC_SHORT_SIDE 480

/* Room for the kinds' own options in a struct ts_dataset_config: one slot
 * per distinct name among the registered kinds. */
#define TS_DATASET_OWN_MAX 16

/* What to generate; driven by ts_dataset_opts() (opt.h). Zero it before
 * ts_opt_defaults(): fields outside the table default to zero. */
struct ts_dataset_config {
	uint64_t count;		/* train samples in the kind's unit; 0 = full size */
	uint64_t seed;
	uint64_t threads;	/* generator threads; 0 = online CPUs */
	bool progress;		/* progress line on stderr when it is a terminal */
	/* Not an option: when set and it becomes non-zero (a signal handler's
	 * flag), generation stops at the next sample with -EINTR. */
	volatile sig_atomic_t *stop;
	/* The kinds' own options (struct ts_dataset_ops.opts), where the
	 * table ts_dataset_opts() puts them: set them by name through it. A
	 * kind reads only its own, from meta->own. */
	uint64_t own[TS_DATASET_OWN_MAX];
};
/* The options of a struct ts_dataset_config: those every kind takes
 * (count, seed, threads, progress), then each registered kind's own, one
 * entry per name (several kinds may take one: "classes"). Built once from
 * the kinds' tables. */
const struct ts_opt *ts_dataset_opts(void);

/* One file the generator writes. */
struct ts_dataset_file {
	char *path;		/* relative to DIR */
	uint64_t bytes;
	bool estimated;		/* LMDB files: modeled from the page layout */
};

struct ts_dataset_meta {
	const struct ts_dataset_ops *kind;
	uint64_t seed;
	uint64_t count;		/* train samples: images, or words for ptb-text */
	uint64_t val;		/* val images (imagenet-jpeg) */
	uint32_t classes;
	/* The kind's own options as its describe resolved them (its struct,
	 * laid out by its ops->opts; NULL for a kind without any). */
	void *own;

	/* Images (empty for ptb-text), in storage order, train then val. */
	uint64_t samples;	/* count + val */
	uint32_t *bytes;	/* stored bytes: JPEG file / Datum value / .rec frame */
	uint16_t *width;	/* stored pixel dimensions */
	uint16_t *height;
	uint16_t *label;	/* class, 0 .. classes-1 */
	uint32_t *order;	/* storage index -> image number (identity for jpeg) */
	uint64_t sample_bytes;	/* sum of bytes[] */
	/* Per image in tree numbering (train, then val): its class and the
	 * number in its file name (ts_dataset_sample_path). */
	uint16_t *img_label;
	uint32_t *img_fileno;

	/* Files. imagenet-jpeg lists no image files here (there may be 1.3M
	 * of them; ts_dataset_sample_path names them), only the rest. */
	size_t nfiles;
	struct ts_dataset_file *files;
	uint64_t total_bytes;	/* every file the generator writes but dataset.json */

	/* ptb-text: words, lines and bytes of train/valid/test. */
	uint64_t words[3], lines[3];

	/* npz, tfrecord: count files of per_file samples each (sample j is
	 * record j % per_file of file j / per_file); bytes[] is what a
	 * sample's read covers (the whole .npz, or the TFRecord frame). When
	 * every sample stores the same bytes (record_stdev 0), bytes is NULL
	 * and fixed_bytes says how many (ts_dataset_sample_len): 156.8M bert
	 * samples would hold 627 MB of one number. */
	uint64_t per_file;
	uint32_t fixed_bytes;
};

/* The stored bytes of sample @j of @m (its bytes[j], or the one size of
 * a dataset whose samples all store the same). */
static inline uint64_t ts_dataset_sample_len(const struct ts_dataset_meta *m, uint64_t j)
{
	return m->bytes ? m->bytes[j] : m->fixed_bytes;
}

/*
 * Fills @meta with what generating @kind under @cfg writes: the same
 * per-sample sizes and dimensions, byte for byte (LMDB file sizes are
 * estimates, flagged). No image is encoded. @err gets a one-line reason.
 */
TS_WUR int ts_dataset_meta_describe(const struct ts_dataset_ops *kind,
				    const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
				    char *err, size_t errlen);
void ts_dataset_meta_free(struct ts_dataset_meta *meta);
/* @meta as tiersim dataset info prints it (@on_disk: read from a DIR, not
 * described from a kind; ds_info.c), and per sample as tiersim dataset list
 * does. */
void ts_dataset_print_info(FILE *f, const struct ts_dataset_meta *meta, bool on_disk);
void ts_dataset_print_list(FILE *f, const struct ts_dataset_meta *meta);

/* "n01530575"-style name of class @c (stable, seed-independent). */
void ts_dataset_class_name(uint32_t c, char out[10]);
/* Path under DIR of image @img (tree numbering): "train/<wnid>/<wnid>_<n>.JPEG". */
void ts_dataset_sample_path(const struct ts_dataset_meta *meta, uint64_t img, char *out,
			    size_t n);
/* strlen of the path ts_dataset_sample_path() writes (with room), without
 * formatting it: describing an ImageNet-sized LMDB sums 1.28M key lengths. */
size_t ts_dataset_sample_path_len(const struct ts_dataset_meta *meta, uint64_t img);
/* Key of the j-th LMDB entry: "%08d_<wnid>/<file>", as convert_imageset. */
void ts_dataset_lmdb_key(const struct ts_dataset_meta *meta, uint64_t j, char *out, size_t n);

/* Generation progress and result. */
struct ts_dataset_stats {
	uint64_t samples;	/* images (or train words) written */
	uint64_t bytes;		/* bytes written (files, not counting dataset.json) */
	uint64_t ns;		/* wall time */
	uint64_t pad_bytes;	/* JPEG padding (COM segments) added to hit target sizes */
	uint64_t encodes;	/* JPEG encodes the size searches took */
	uint64_t requality;	/* images whose quality was lowered to fit their size */
	unsigned threads;
};

/*
 * Writes the dataset into @dir (created if missing, refused unless empty)
 * and then its dataset.json, last: a directory without one is incomplete.
 * Returns 0 or -errno/TS_E_* (-EINTR when cfg->stop was raised); @err gets
 * one line naming the file and what to do.
 */
TS_WUR int ts_dataset_make(const struct ts_dataset_ops *kind, const struct ts_dataset_config *cfg,
			   const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen);

/* Reads DIR/dataset.json back into @meta (then describes it again). */
TS_WUR int ts_dataset_open(const char *dir, struct ts_dataset_meta *meta, char *err,
			   size_t errlen);

/* Opens DIR and checks every file its kind wrote against the description:
 * 0, or the first difference (TS_E_CORRUPT, TS_E_TRUNCATED, -errno) with a
 * line naming the file. */
TS_WUR int ts_dataset_verify(const char *dir, char *err, size_t errlen);

/*
 * Dataset kinds. Each kind is one file (pipeline/ds_<kind>.c): its writer
 * (the struct ts_dataset_ops below) and its reader (the struct
 * ts_source_ops that .source points to, pipeline/source.h) together, and
 * one line in the registry in dataset.c; what every kind shares (options,
 * the manifest, the make driver) stays in dataset.c. The loader never sees
 * a kind: it reads the kind's files through its source.
 */
#define TS_DATASET_OPS_VERSION 1

enum {
	/* Samples are images: meta's per-sample arrays (bytes, width, height,
	 * label, order) are filled, and a loader decodes what it reads. */
	TS_DS_IMAGES = 1 << 0,
	/* Samples are stored in a seeded shuffled order (meta->order), as
	 * convert_imageset --shuffle and im2rec store them. */
	TS_DS_SHUFFLED = 1 << 1,
};

struct ts_dataset_ops {
	const char *name;	/* KIND: "imagenet-jpeg"; in dataset.json and scenarios */
	unsigned version;	/* TS_DATASET_OPS_VERSION */
	unsigned caps;		/* TS_DS_* */
	const char *help;	/* one line for --help: what it holds, what it imitates */
	/* The kind's own options besides those every kind takes (count, seed,
	 * threads, progress): its table (opt.h; types bool, u64 or size) into
	 * a struct of opts_size bytes that describe finds in meta->own and
	 * may resolve (a default that depends on others). Any other option
	 * set off its default is refused naming the kinds that take it;
	 * dataset.json records these. Kinds that take the same name agree on
	 * its type and default. */
	const struct ts_opt *opts;
	size_t opts_size;
	uint64_t full_count;	/* count when --count is 0: the real dataset's */
	const char *unit;	/* what count counts: "images", "words" */
	/* Its reader: the loader source that reads it, in the kind's file. */
	const struct ts_source_ops *source;
	const char *input;	/* what that source opens, relative to DIR */
	const char *sample_column; /* TS_DS_IMAGES: what sample_name gives ("path") */
	/* The kind's own state, for hooks that several kinds share: every hook
	 * gets its own ops as meta->kind and reaches this as meta->kind->data
	 * (the image kinds: their struct ts_ds_image_kind; the DLIO kinds:
	 * their struct ts_dlio_fmt). */
	const void *data;

	/* Fills @meta with what generate writes, writing nothing: sizes to the
	 * byte, files and total_bytes (estimates flagged). On entry kind, seed,
	 * count (full_count for 0) and own are set from @cfg and the rest is
	 * zero; on failure the caller frees @meta. */
	int (*describe)(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta, char *err,
		    size_t errlen);
	/* Writes what @meta describes into @dir (exists, empty); the caller
	 * writes dataset.json after it and removes everything on failure.
	 * Counts into @st (samples, threads, JPEG figures); stops with -EINTR
	 * when cfg->stop is raised. */
	int (*generate)(const struct ts_dataset_meta *meta, const struct ts_dataset_config *cfg,
			const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen);
	/* Reads back what generate wrote into @dir and checks it against
	 * @meta: every sample's size, order, label and dimensions. */
	int (*verify)(const struct ts_dataset_meta *meta, const char *dir, char *err,
		      size_t errlen);
	/* TS_DS_IMAGES: the name of stored sample @j ("train/n01440764/..."). */
	void (*sample_name)(const struct ts_dataset_meta *meta, uint64_t j, char *out, size_t n);
	/* One line on how samples are stored, for `tiersim dataset info`. */
	void (*storage)(const struct ts_dataset_meta *meta, char *out, size_t n);
};

/* The registered kind called @name; NULL and "unknown kind 'x' (known: ...)"
 * in @err (may be NULL) otherwise. */
const struct ts_dataset_ops *ts_dataset_find(const char *name, char *err, size_t errlen);
/* The @i-th registered kind, NULL past the last. */
const struct ts_dataset_ops *ts_dataset_kind_at(size_t i);
/* 0, or TS_E_VERSION / -EINVAL with a line naming the kind and what is
 * wrong (a version this build does not know, a missing hook or field). */
TS_WUR int ts_dataset_check(const struct ts_dataset_ops *ops, char *err, size_t errlen);

extern const struct ts_dataset_ops ts_dataset_imagenet_jpeg;
extern const struct ts_dataset_ops ts_dataset_imagenet_lmdb;
extern const struct ts_dataset_ops ts_dataset_imagenet_rec;
extern const struct ts_dataset_ops ts_dataset_ptb_text;
extern const struct ts_dataset_ops ts_dataset_npz;
extern const struct ts_dataset_ops ts_dataset_tfrecord;
extern const struct ts_dataset_ops ts_dataset_jpeg;
extern const struct ts_dataset_ops ts_dataset_png;
extern const struct ts_dataset_ops ts_dataset_hdf5;

/* The built-in kinds, for code that needs one in particular. */
#define TS_DS_IMAGENET_JPEG (&ts_dataset_imagenet_jpeg)
#define TS_DS_IMAGENET_LMDB (&ts_dataset_imagenet_lmdb)
#define TS_DS_IMAGENET_REC (&ts_dataset_imagenet_rec)
#define TS_DS_PTB_TEXT (&ts_dataset_ptb_text)

#endif
