/*
 * source.h — where the loader's samples come from. Every dataset layout is
 * one struct ts_source_ops, written in the file of the dataset kind it
 * reads (pipeline/ds_<kind>.c, beside the kind's writer); the loader never
 * knows which one it drives.
 *
 * Two kinds of source:
 *  - extent sources (TS_SRC_EXTENTS) say where each sample's bytes lie
 *    (a file under the dataset root, or a range of an open file) and the
 *    io_uring reader fetches them;
 *  - copy sources fetch a sample themselves in the reader thread (an LMDB
 *    cursor, a tokenized text corpus, the null source).
 * Either kind may have an unwrap hook that finds the payload inside what was
 * read (a RecordIO frame and header, a Caffe Datum) and says what it is.
 * TS_SRC_SEQUENTIAL marks a source read in its own order only (Caffe's LMDB
 * cursor, a language-model corpus): shuffling it is refused.
 */
#ifndef TS_PIPE_SOURCE_H
#define TS_PIPE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"

struct ts_pipe_cfg;

#define TS_SOURCE_VERSION 1

enum {
	TS_SRC_EXTENTS = 1 << 0,
	TS_SRC_SEQUENTIAL = 1 << 1,
	/* read as a PyTorch DataLoader reads it (torchvision's ImageFolder: a
	 * worker process fetches a batch, collates it into shared memory and
	 * hands it to the main process): a host profile's loader_sample_ns and
	 * loader_batch_ns are charged (ts_decode_cal_for_source) */
	TS_SRC_TORCH = 1 << 2,
};

/* Where sample i lies. Exactly one of rel (a path relative to dirfd) or fd. */
struct ts_extent {
	int dirfd;
	const char *rel; /* stays valid while the source is open */
	int fd;		 /* -1 when rel is used */
	uint64_t off;
	uint32_t len;
	uint32_t chunk; /* 0: one read; else sequential reads of at most this many bytes */
	int32_t label;
};

/* What unwrap found. */
struct ts_payload {
	uint32_t off, len; /* the payload inside the bytes read */
	int32_t label;
	bool pixels;	   /* raw pixels, C × H × W, BGR (Caffe's Datum), not a JPEG */
	uint16_t width, height, channels;
};

/*
 * Virtual time. The same source, described from a dataset's meta
 * (dataset.h) without opening anything: which requests the reader sends
 * the disk for sample i, and what CPU work the sample then costs. The
 * virtual loader (vpipe.h) sends exactly these to the tier model, so each
 * source's IO pattern is written here, beside the code that does it.
 */
enum ts_vio_op { TS_VIO_META, TS_VIO_READ };

/*
 * Copies @n bytes from @src (a memory map) to @dst a page of the source at
 * a time, in page order: the order a reader's copy touches a map on the
 * study's instances, whose CPUs have ERMS (glibc's memcpy is a forward
 * `rep movsb` there). Without ERMS (a KVM guest that hides it, as this
 * project's AMD EPYC build host does) glibc's vector memcpy loads the
 * source's last 128 bytes before its forward loop: the fault on a
 * record's last page reads around it and cuts the readahead windows the
 * forward faults would read (disk/README.md, "The mapped read's touch
 * order"). Sources that copy out of a map use this, so that block mode's
 * reader touches the map as the instance's does.
 */
void ts_copy_in_page_order(void *dst, const void *src, size_t n);

/* pipeline/ds_dlio.c's ts_dlio_plan_sample sets every field by hand (and
 * asserts these members): a new field is set there too. */
struct ts_vio {
	uint8_t op;	/* TS_VIO_* */
	uint64_t file;	/* a file id, unique within the dataset (1 = a packed file) */
	uint64_t off, len;
	uint64_t size;	/* the file's size (readahead stops at its end) */
	uint64_t chunk; /* 0: one request; else sequential requests of this size */
	bool mapped;	/* read through a memory map: page faults (tier/cache.c) */
	/* With mapped: the reader copies the bytes out of the map with a
	 * memcpy that touches their first page, their last, then the rest
	 * (ts_tier_req.tail_first: glibc's without ERMS); false: in page
	 * order (ts_copy_in_page_order, an ERMS memcpy) */
	bool tail_first;
	/* With mapped: the reader's CPU a readahead window
	 * (ts_tier_req.map_window_ns; 0: tier/tier_base.h's), in the padding
	 * after the flags */
	uint32_t map_window_ns;
	/* TS_VIO_META of a file in a folder, for the file-system rule
	 * (tier/fsmeta.h): the file's inode rank (neighbours share blocks),
	 * its folder's id, rank and blocks, and the blocks of the folder
	 * above. ino 0: one metadata request instead. */
	uint64_t ino, dir, dir_ino;
	uint32_t dir_blocks, top_blocks;
};

/* One sample's read, where its plan is that read alone (plan_reads). */
struct ts_vread {
	uint64_t file, off, len; /* as its struct ts_vio's */
};

enum ts_vwork {
	TS_VWORK_NONE,	 /* bytes delivered as read */
	TS_VWORK_JPEG,	 /* decode + resize + crop + flip + normalize */
	TS_VWORK_PIXELS, /* raw pixels: the transform without a decode */
};

#define TS_VIO_MAX 2
struct ts_vsample {
	unsigned n;		    /* requests, issued one after the other */
	struct ts_vio io[TS_VIO_MAX]; /* io[n..]: unset, never read */
	uint8_t work;		    /* TS_VWORK_* */
	uint16_t width, height;	    /* stored image */
	uint64_t len;		    /* bytes delivered (sizes the read buffer) */
};

/* Sets @s to a sample of no requests yet, leaving io[] as it was: a plan
 * runs per sample read, and zeroing the whole struct (~200 bytes, a
 * `rep stos`) cost more than the rest of planning. */
static inline void ts_vsample_start(struct ts_vsample *s, uint8_t work, uint16_t width,
				    uint16_t height, uint64_t len)
{
	s->n = 0;
	s->work = work;
	s->width = width;
	s->height = height;
	s->len = len;
}

struct ts_dataset_meta;
struct ts_fsmeta_params;
struct ts_vsource {
	uint64_t count;		 /* samples per epoch */
	uint64_t max_len;	 /* largest sample */
	struct ts_vsample at_open; /* what opening the source reads (n = 0: nothing) */
	const struct ts_dataset_meta *meta;
	const struct ts_pipe_cfg *cfg;
	/* The disk's file system (tier/fsmeta.h): a source of a file per
	 * sample sizes its folders and numbers its inodes with it; NULL: the
	 * disk models none, and an open is one metadata request. */
	const struct ts_fsmeta_params *fs;
	/* The source's mapped reads copy tail first (struct ts_vio's
	 * tail_first); plan_open sets it (the lmdb source: from its copy=
	 * and the host profile's copy_tail_first). */
	bool tail_first;
	/* The source's mapped reads' reader CPU a window (struct ts_vio's
	 * map_window_ns); plan_open sets it (the lmdb source: from the host
	 * profile's map_window_ns; 0 where it has none). */
	uint64_t map_window_ns;
	void *st;		 /* the source's own */
};

struct ts_source_ops {
	const char *name;
	unsigned version; /* TS_SOURCE_VERSION */
	unsigned caps;	  /* TS_SRC_* */
	/* The source's own state, for hooks that several sources share: open
	 * and plan_open get their ops as @self (DLIO's readers: their kind). */
	const void *data;
	/* Opens the dataset named by cfg->path. Errors name the file. */
	int (*open)(const struct ts_source_ops *self, const struct ts_pipe_cfg *cfg, void **st,
		    char *err, size_t errlen);
	uint64_t (*count)(void *st);
	/* Largest sample in bytes (sizes the read buffers). */
	uint64_t (*max_len)(void *st);
	/* Extent sources: where sample i lies. */
	int (*extent)(void *st, uint64_t i, struct ts_extent *x);
	/* Optional: the payload inside the @len bytes read for sample i (buf
	 * may be rewritten in place). TS_E_CORRUPT, TS_E_FORMAT or
	 * TS_E_TRUNCATED when malformed. */
	int (*unwrap)(void *st, uint64_t i, uint8_t *buf, uint32_t len, struct ts_payload *pl);
	/* Copy sources: writes sample i (the next one for sequential sources,
	 * whose i still counts up from 0 each epoch) into buf of @cap bytes.
	 * -ENOBUFS with *len = the size needed when it does not fit; the
	 * loader then asks for the same i again with a buffer that size. */
	int (*fetch)(void *st, uint64_t i, void *buf, uint32_t cap, uint32_t *len,
		     int32_t *label);
	/* A name for sample i in messages: a file path, "file.rec record 12". */
	void (*describe)(void *st, uint64_t i, char *buf, size_t n);
	/* Text sources: the word for a token id. Optional. */
	const char *(*word)(void *st, uint32_t id);
	void (*close)(void *st);

	/* Virtual time (see struct ts_vsource). plan_open fills @vs from
	 * vs->meta and vs->cfg; plan_sample says what sample i costs;
	 * plan_close frees vs->st. All three or none: a source without them
	 * runs only in real time. */
	int (*plan_open)(const struct ts_source_ops *self, struct ts_vsource *vs, char *err,
			 size_t errlen);
	void (*plan_sample)(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out);
	void (*plan_close)(struct ts_vsource *vs);
	/* Optional: sample i will be planned soon; start loading what
	 * plan_sample reads of it (__builtin_prefetch). Answers nothing and
	 * changes nothing. */
	void (*plan_prefetch)(const struct ts_vsource *vs, uint64_t i);
	/* Optional: where plan_sample plans each of samples [i, i + n) as
	 * one TS_VIO_READ and nothing else, that read's file, offset and
	 * length into out[0 .. n), and 1; 0 (out untouched) where it does
	 * not. The same reads plan_sample lists, without the rest of the
	 * plan: for a pass over every sample's stored place. */
	int (*plan_reads)(const struct ts_vsource *vs, uint64_t i, uint64_t n,
			  struct ts_vread *out);
	/* Optional: where plan_reads answers for every sample and names for
	 * sample i the read of file 2 + i / *per at (i % *per) x *len, *len
	 * bytes long (*len >= 1, *per >= 1: records of one size, file after
	 * file), *per and *len, and 1; 0 where not. What plan_reads would
	 * list, as a rule: a pass over every sample's stored place need not
	 * list each. */
	int (*plan_runs)(const struct ts_vsource *vs, uint64_t *per, uint64_t *len);
};

/* Virtual-time helpers for image sources: the training images of vs->meta
 * (at most cfg->count), and for a packed file (@packed) the offset of each
 * record in it (vs->st, freed by ts_vsource_free). */
TS_WUR int ts_vsource_images(struct ts_vsource *vs, bool packed, char *err, size_t errlen);
/* Sample i as one read of its record in the packed file. */
void ts_vsource_packed(const struct ts_vsource *vs, uint64_t i, uint8_t work,
		       struct ts_vsample *out);
void ts_vsource_free(struct ts_vsource *vs);

/* The sources by name: the null source and each dataset kind's reader
 * (struct ts_dataset_ops.source); NULL with a message listing them when
 * unknown. */
const struct ts_source_ops *ts_source_find(const char *name, char *err, size_t errlen);
/* Checks an ops table (version, hooks its kind needs). 0 or TS_E_VERSION /
 * -EINVAL with a message naming the source. */
TS_WUR int ts_source_check(const struct ts_source_ops *ops, char *err, size_t errlen);

/* Byte j of null-source sample i. */
static inline uint8_t ts_null_byte(uint64_t i, uint32_t j)
{
	return (uint8_t)((i * 131u + j * 7u) ^ (i >> 8) ^ (j >> 5));
}

/* The readers, each in its dataset kind's file (pipeline/ds_<kind>.c),
 * and the null source (source.c). */
extern const struct ts_source_ops ts_source_folder;
extern const struct ts_source_ops ts_source_rec;
extern const struct ts_source_ops ts_source_lmdb;
extern const struct ts_source_ops ts_source_text;
extern const struct ts_source_ops ts_source_null;
extern const struct ts_source_ops ts_source_npz;
extern const struct ts_source_ops ts_source_tfrecord;
extern const struct ts_source_ops ts_source_jpeg;
extern const struct ts_source_ops ts_source_png;
extern const struct ts_source_ops ts_source_hdf5;

#endif
