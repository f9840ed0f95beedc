/*
 * ds_imagenet_rec.c — the imagenet-rec kind: what MXNet's tools/im2rec.py
 * --resize 480 --quality 90 writes from a shuffled list, train.rec (an
 * IRHeader and the JPEG, shorter side 480, per record; recordio.h) and its
 * train.idx of "key\toffset" lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pipeline/dataset.h"
#include "pipeline/ds_image.h"
#include "pipeline/ds_kind.h"
#include "pipeline/recordio.h"

static void rec_size(const struct ts_dataset_meta *meta, uint32_t img,
		     const struct ts_ds_plan *p, uint32_t *bytes, uint16_t *w, uint16_t *h)
{
	(void)meta;
	(void)img;
	*bytes = (uint32_t)ts_rec_frame_size(TS_REC_IRHEADER_SIZE + p->rec.target);
	*w = (uint16_t)p->rec.width;
	*h = (uint16_t)p->rec.height;
}

static int rec_files(struct ts_dataset_meta *meta)
{
	uint64_t idxbytes = 0, off = 0;
	char line[48];
	int rc;

	for (uint64_t j = 0; j < meta->samples; j++) {
		idxbytes += (uint64_t)snprintf(line, sizeof(line), "%" PRIu32 "\t%" PRIu64 "\n",
					       meta->order[j], off);
		off += meta->bytes[j];
	}
	if ((rc = ts_ds_add_file(meta, "train.rec", meta->sample_bytes, false)))
		return rc;
	return ts_ds_add_file(meta, "train.idx", idxbytes, false);
}

static int rec_make(struct ts_jpeggen *jg, const struct ts_dataset_meta *meta, uint32_t img,
		    const struct ts_ds_plan *p, struct ts_ds_sample *s)
{
	struct ts_rec_irheader h = {
		.flag = 0, .label = (float)meta->img_label[img], .id = img, .id2 = 0
	};
	const uint8_t *jpg;
	size_t jlen;
	int rc;

	if ((rc = ts_jpeggen_make(jg, &p->rec, &jpg, &jlen, &s->jr)))
		return rc;
	s->requal = s->jr.quality != p->rec.quality;
	s->len = TS_REC_IRHEADER_SIZE + jlen;
	s->buf = malloc(s->len);
	if (!s->buf)
		return -ENOMEM;
	ts_rec_irheader_pack(&h, s->buf);
	memcpy(s->buf + TS_REC_IRHEADER_SIZE, jpg, jlen);
	return 0;
}

struct pack {
	const struct ts_dataset_meta *meta;
	char path[4096]; /* DIR/train.rec */
	struct ts_rec_writer rec;
};

static int pack_open(const struct ts_dataset_meta *meta, const char *dir, void **w, char *err,
		     size_t errlen)
{
	char idx[4096];
	int rc;
	struct pack *k = calloc(1, sizeof(*k));

	if (!k)
		return ts_ds_fail(err, errlen, -ENOMEM, "out of memory");
	k->meta = meta;
	snprintf(k->path, sizeof(k->path), "%s/train.rec", dir);
	snprintf(idx, sizeof(idx), "%s/train.idx", dir);
	if ((rc = ts_rec_writer_open(&k->rec, k->path, idx))) {
		ts_ds_fail(err, errlen, rc, "%s: %s", k->path, ts_strerror(rc));
		int r2 = ts_rec_writer_close(&k->rec);
		(void)r2; /* the open error is the one to report */
		free(k);
		return rc;
	}
	*w = k;
	return 0;
}

static int pack_put(void *w, uint64_t j, const uint8_t *b, size_t len, char *err,
		    size_t errlen)
{
	struct pack *k = w;
	uint64_t before = k->rec.offset;
	int rc;

	if ((rc = ts_rec_writer_add(&k->rec, k->meta->order[j], b, len)))
		return ts_ds_fail(err, errlen, rc, "%s: %s", k->path, ts_strerror(rc));
	if (k->rec.offset - before != k->meta->bytes[j])
		return ts_ds_fail(err, errlen, TS_E_CORRUPT,
				  "%s: record %" PRIu64 " is %" PRIu64
				  " bytes where the model says %" PRIu32 " (generator bug)",
				  k->path, j, k->rec.offset - before, k->meta->bytes[j]);
	return 0;
}

static int pack_close(void *w, bool ok, char *err, size_t errlen)
{
	struct pack *k = w;
	int rc = ts_rec_writer_close(&k->rec);

	if (rc && ok)
		rc = ts_ds_fail(err, errlen, rc, "%s: %s", k->path, ts_strerror(rc));
	free(k);
	return ok ? rc : 0;
}

static const struct ts_ds_image_kind rec_images = {
	.size = rec_size,
	.files = rec_files,
	.make = rec_make,
	.open = pack_open,
	.put = pack_put,
	.close = pack_close,
};

static int rec_plan(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
		    char *err, size_t errlen)
{
	return ts_ds_image_plan(&rec_images, cfg, meta, err, errlen);
}

static int rec_generate(const struct ts_dataset_meta *meta, const struct ts_dataset_config *cfg,
			const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen)
{
	return ts_ds_image_generate(&rec_images, meta, cfg, dir, st, err, errlen);
}

/* One record per stored image at the offset train.idx gives, in order, of
 * its size, with the IRHeader of its image and label and a JPEG of its
 * dimensions. */
static int check_record(const struct ts_dataset_meta *meta, uint64_t j, const uint8_t *frame,
			uint64_t len, const char *path, char *err, size_t errlen)
{
	struct ts_rec_irheader h;
	size_t used, img;
	uint32_t w, hh;
	uint8_t *pl = malloc(len);
	int rc = 0;

	if (!pl)
		return ts_ds_fail(err, errlen, -ENOMEM, "out of memory");
	ssize_t n = ts_rec_decode(frame, len, pl, len, &used);
	if (n <= 0 || used != len || ts_rec_irheader_unpack(&h, pl, (size_t)n, &img) ||
	    h.id != meta->order[j] || h.label != (float)meta->label[j])
		rc = ts_ds_fail(err, errlen, TS_E_CORRUPT,
				"%s: record %" PRIu64 " is not image %" PRIu32 " of label %u", path,
				j, meta->order[j], meta->label[j]);
	else if (ts_ds_jpeg_dims(pl + img, (size_t)n - img, &w, &hh) || w != meta->width[j] ||
		 hh != meta->height[j])
		rc = ts_ds_fail(err, errlen, TS_E_CORRUPT,
				"%s: record %" PRIu64 " holds no %ux%u JPEG as described", path, j,
				meta->width[j], meta->height[j]);
	free(pl);
	return rc;
}

static int rec_verify(const struct ts_dataset_meta *meta, const char *dir, char *err,
		      size_t errlen)
{
	char path[4096], idx[4096], why[256];
	struct ts_rec_index ix;
	uint8_t *b;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/train.rec", dir);
	snprintf(idx, sizeof(idx), "%s/train.idx", dir);
	if ((rc = ts_ds_slurp(path, &b, &len)))
		return ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
	if (len != meta->sample_bytes) {
		free(b);
		return ts_ds_fail(err, errlen, TS_E_TRUNCATED,
				  "%s: %zu bytes where the description says %" PRIu64, path, len,
				  meta->sample_bytes);
	}
	if ((rc = ts_rec_index_load(&ix, idx, len, why, sizeof(why)))) {
		free(b);
		return ts_ds_fail(err, errlen, rc, "%s: %s", idx, why);
	}
	if (ix.count != meta->samples)
		rc = ts_ds_fail(err, errlen, TS_E_CORRUPT,
				"%s: %zu records where the description says %" PRIu64, idx,
				ix.count, meta->samples);
	uint64_t off = 0;
	for (size_t j = 0; !rc && j < ix.count; j++) {
		if (ix.offset[j] != off || ix.key[j] != meta->order[j] ||
		    ix.length[j] != meta->bytes[j])
			rc = ts_ds_fail(err, errlen, TS_E_CORRUPT,
					"%s: line %zu is not image %" PRIu32 " at offset %" PRIu64,
					idx, j + 1, meta->order[j], off);
		else
			rc = check_record(meta, j, b + off, ix.length[j], path, err, errlen);
		off += meta->bytes[j];
	}
	ts_rec_index_free(&ix);
	free(b);
	return rc;
}

static void rec_sample_name(const struct ts_dataset_meta *meta, uint64_t j, char *out,
			    size_t n)
{
	snprintf(out, n, "%" PRIu32, meta->order[j]);
}

static void rec_storage(const struct ts_dataset_meta *meta, char *out, size_t n)
{
	(void)meta;
	snprintf(out, n, "RecordIO records of an IRHeader and the JPEG, shorter side %d",
		 TS_REC_SHORT_SIDE);
}

static const char *const rec_opts[] = { "classes", NULL };

const struct ts_dataset_ops ts_dataset_imagenet_rec = {
	.name = "imagenet-rec",
	.version = TS_DATASET_OPS_VERSION,
	.caps = TS_DS_IMAGES | TS_DS_SHUFFLED,
	.help = "MXNet RecordIO train.rec + train.idx (im2rec --resize 480)",
	.opts = rec_opts,
	.full_count = TS_IMAGENET_TRAIN,
	.unit = "images",
	.source = "rec",
	.input = "train.rec",
	.sample_column = "record id",
	.plan = rec_plan,
	.generate = rec_generate,
	.verify = rec_verify,
	.sample_name = rec_sample_name,
	.storage = rec_storage,
};
