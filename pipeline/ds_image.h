/*
 * ds_image.h — the ImageNet look-alike the image kinds share: one seeded
 * spec per image (resolution, JPEG settings, target sizes), the class
 * layout, and the generation driver (worker threads make samples into a
 * window, the calling thread writes them out strictly in storage order).
 * An image kind (pipeline/ds_imagenet_*.c) says only how one image is
 * stored: its size, its bytes, and the writer that files them.
 */
#ifndef TS_DS_IMAGE_H
#define TS_DS_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"
#include "pipeline/dataset.h"
#include "pipeline/jpeggen.h"

/* Everything about one image, drawn from its own seeded stream. */
struct ts_ds_image_spec {
	uint32_t w, h;			/* the original's pixels */
	struct ts_jpeg_params jpeg;	/* the original file */
	struct ts_jpeg_params rec;	/* its im2rec --resize 480 copy */
	double lmdb_grain;		/* raw LMDB pixels: grain amplitude */
};

/* The image kinds' own options (their struct ts_dataset_ops.opts, into
 * this struct; each kind's table lists those it takes): val images
 * (imagenet-jpeg), classes (describe resolves 0 to min(1000, ceil(count /
 * 10))), encoded Datums (imagenet-lmdb). */
struct ts_ds_image_opts {
	uint64_t val;
	uint64_t classes;
	bool encoded;
};
#define TS_DS_IMAGE_OPT_CLASSES                                                           \
	{ "classes", TS_OPT_U64, offsetof(struct ts_ds_image_opts, classes), "0", 0,          \
	  TS_IMAGENET_CLASSES, "", "image classes; 0 = min(1000, ceil(count / 10))" }

/* One sample made by a worker. */
struct ts_ds_sample {
	uint8_t *buf;			/* malloc'd; the driver frees it */
	size_t len;
	struct ts_jpeg_result jr;	/* of the JPEG encode, when there was one */
	bool requal;			/* the quality was lowered to fit the size */
};

/* How an image kind stores its images. Every hook is required. */
struct ts_ds_image_kind {
	/* Stored bytes and pixel dimensions of image @img drawn as @p: of
	 * @p it reads w, h and jpeg's width, height and target, and rec's
	 * when size_rec is set (describe draws no more than that). */
	void (*size)(const struct ts_dataset_meta *meta, uint32_t img, const struct ts_ds_image_spec *p,
		     uint32_t *bytes, uint16_t *w, uint16_t *h);
	bool size_rec;
	/* After every sample has its size: the kind's files (ts_ds_add_file). */
	int (*files)(struct ts_dataset_meta *meta);
	/* In a worker thread: the stored bytes of image @img into @s. */
	int (*make)(struct ts_jpeggen *jg, const struct ts_dataset_meta *meta, uint32_t img,
		    const struct ts_ds_image_spec *p, struct ts_ds_sample *s);
	/* In the calling thread: open the writer, put stored sample @j (in
	 * order, exactly meta->bytes[j] long or it is a generator bug), close
	 * (@ok false: abandon, the caller removes the files). */
	int (*open)(const struct ts_dataset_meta *meta, const char *dir, void **w, char *err,
		    size_t errlen);
	int (*put)(void *w, uint64_t j, const uint8_t *buf, size_t len, char *err,
		   size_t errlen);
	int (*close)(void *w, bool ok, char *err, size_t errlen);
};

/* The describe and generate hooks of an image kind's struct ts_dataset_ops,
 * whose data is how it stores images (its struct ts_ds_image_kind). */
TS_WUR int ts_ds_image_describe(const struct ts_dataset_config *cfg,
				struct ts_dataset_meta *meta, char *err, size_t errlen);
TS_WUR int ts_ds_image_generate(const struct ts_dataset_meta *meta,
				const struct ts_dataset_config *cfg, const char *dir,
				struct ts_dataset_stats *st, char *err, size_t errlen);

/* Decodes the JPEG header of @jpg: 0 and its dimensions, or TS_E_CORRUPT. */
TS_WUR int ts_ds_jpeg_dims(const uint8_t *jpg, size_t len, uint32_t *w, uint32_t *h);

#endif
