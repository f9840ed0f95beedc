/*
 * ds_imagenet_jpeg.c — the imagenet-jpeg kind: the ILSVRC2012 train tar
 * extracted, a class-per-folder tree of JPEG files (ImageFolder), with
 * --val N also val/<wnid>/ILSVRC2012_val_<8 digits>.JPEG sorted into class
 * folders. Sizes and settings: pipeline/DATASETS.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/files.h"
#include "pipeline/dataset.h"
#include "pipeline/ds_image.h"
#include "pipeline/ds_kind.h"

static void jpeg_size(const struct ts_dataset_meta *meta, uint32_t img,
		      const struct ts_ds_plan *p, uint32_t *bytes, uint16_t *w, uint16_t *h)
{
	(void)meta;
	(void)img;
	*bytes = p->jpeg.target;
	*w = (uint16_t)p->w;
	*h = (uint16_t)p->h;
}

/* The image files are not listed (there may be 1.3M of them), only counted. */
static int jpeg_files(struct ts_dataset_meta *meta)
{
	meta->total_bytes += meta->sample_bytes;
	return 0;
}

static int jpeg_make(struct ts_jpeggen *jg, const struct ts_dataset_meta *meta, uint32_t img,
		     const struct ts_ds_plan *p, struct ts_ds_sample *s)
{
	const uint8_t *jpg;
	size_t len;
	int rc;

	(void)meta;
	(void)img;
	if ((rc = ts_jpeggen_make(jg, &p->jpeg, &jpg, &len, &s->jr)))
		return rc;
	s->requal = s->jr.quality != p->jpeg.quality;
	s->buf = malloc(len);
	if (!s->buf)
		return -ENOMEM;
	memcpy(s->buf, jpg, len);
	s->len = len;
	return 0;
}

struct tree {
	const struct ts_dataset_meta *meta;
	const char *dir;
};

static int tree_open(const struct ts_dataset_meta *meta, const char *dir, void **w, char *err,
		     size_t errlen)
{
	char path[4096], cls[10];
	int rc;

	for (int split = 0; split < 2; split++) {
		if (split == 1 && !meta->val)
			break;
		snprintf(path, sizeof(path), "%s/%s", dir, split ? "val" : "train");
		if ((rc = ts_ds_mkdir(path)))
			return ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
		for (uint32_t c = 0; c < meta->classes; c++) {
			ts_dataset_class_name(c, cls);
			snprintf(path, sizeof(path), "%s/%s/%s", dir, split ? "val" : "train", cls);
			if ((rc = ts_ds_mkdir(path)))
				return ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
		}
	}
	struct tree *t = malloc(sizeof(*t));
	if (!t)
		return ts_ds_fail(err, errlen, -ENOMEM, "out of memory");
	t->meta = meta;
	t->dir = dir;
	*w = t;
	return 0;
}

static int write_file(const char *path, const uint8_t *b, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int rc;

	if (fd < 0)
		return -errno;
	rc = ts_write_all(fd, b, n);
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

static int tree_put(void *w, uint64_t j, const uint8_t *b, size_t len, char *err,
		    size_t errlen)
{
	const struct tree *t = w;
	const struct ts_dataset_meta *meta = t->meta;
	char path[4096], rel[160];
	int rc;

	ts_dataset_sample_path(meta, meta->order[j], rel, sizeof(rel));
	snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
	if (len != meta->bytes[j])
		return ts_ds_fail(err, errlen, TS_E_CORRUPT,
				  "%s: made %zu bytes where the model says %" PRIu32
				  " (generator bug)",
				  path, len, meta->bytes[j]);
	if ((rc = write_file(path, b, len)))
		return ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
	return 0;
}

static int tree_close(void *w, bool ok, char *err, size_t errlen)
{
	(void)ok;
	(void)err;
	(void)errlen;
	free(w);
	return 0;
}

static const struct ts_ds_image_kind jpeg_images = {
	.size = jpeg_size,
	.files = jpeg_files,
	.make = jpeg_make,
	.open = tree_open,
	.put = tree_put,
	.close = tree_close,
};

static int jpeg_plan(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
		     char *err, size_t errlen)
{
	return ts_ds_image_plan(&jpeg_images, cfg, meta, err, errlen);
}

static int jpeg_generate(const struct ts_dataset_meta *meta, const struct ts_dataset_config *cfg,
			 const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen)
{
	return ts_ds_image_generate(&jpeg_images, meta, cfg, dir, st, err, errlen);
}

/* Every file: there, its size, a JPEG of the planned dimensions. */
static int jpeg_verify(const struct ts_dataset_meta *meta, const char *dir, char *err,
		       size_t errlen)
{
	char path[4096], rel[160];

	for (uint64_t j = 0; j < meta->samples; j++) {
		uint8_t *b;
		size_t len;
		uint32_t w, h;
		ts_dataset_sample_path(meta, meta->order[j], rel, sizeof(rel));
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		int rc = ts_ds_slurp(path, &b, &len);
		if (rc)
			return ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
		if (len != meta->bytes[j])
			rc = ts_ds_fail(err, errlen, TS_E_TRUNCATED,
					"%s: %zu bytes where the description says %" PRIu32, path,
					len, meta->bytes[j]);
		else if (ts_ds_jpeg_dims(b, len, &w, &h) || w != meta->width[j] ||
			 h != meta->height[j])
			rc = ts_ds_fail(err, errlen, TS_E_CORRUPT,
					"%s: not a %ux%u JPEG as described", path, meta->width[j],
					meta->height[j]);
		free(b);
		if (rc)
			return rc;
	}
	return 0;
}

static void jpeg_sample_name(const struct ts_dataset_meta *meta, uint64_t j, char *out,
			     size_t n)
{
	ts_dataset_sample_path(meta, meta->order[j], out, n);
}

static void jpeg_storage(const struct ts_dataset_meta *meta, char *out, size_t n)
{
	(void)meta;
	snprintf(out, n, "one JPEG file per image, a folder per class (ImageFolder)");
}

static const char *const jpeg_opts[] = { "val", "classes", NULL };

const struct ts_dataset_ops ts_dataset_imagenet_jpeg = {
	.name = "imagenet-jpeg",
	.version = TS_DATASET_OPS_VERSION,
	.caps = TS_DS_IMAGES,
	.help = "class-per-folder tree of JPEG files (train/, val/ with --val)",
	.opts = jpeg_opts,
	.full_count = TS_IMAGENET_TRAIN,
	.unit = "images",
	.source = "folder",
	.input = "train",
	.sample_column = "path",
	.plan = jpeg_plan,
	.generate = jpeg_generate,
	.verify = jpeg_verify,
	.sample_name = jpeg_sample_name,
	.storage = jpeg_storage,
};
