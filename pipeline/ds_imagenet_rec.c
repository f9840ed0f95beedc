/*
 * ds_imagenet_rec.c — the imagenet-rec kind: what MXNet's tools/im2rec.py
 * --resize 480 --quality 90 writes from a shuffled list, train.rec (an
 * IRHeader and the JPEG, shorter side 480, per record; recordio.h) and its
 * train.idx of "key\toffset" lines.
 *
 * Its reader, the loader source "rec": a packed record file read through
 * its index, as MXNet's ImageRecordIter reads an im2rec .rec/.idx pair: the
 * .idx gives each record's offset, the record's extent runs to the next
 * offset, and the io_uring reader fetches exactly that range. unwrap
 * reassembles the frame (recordio.h) and skips the IRHeader to the encoded
 * image.
 *
 * path: the .rec file (its index is the same name with .idx), or a folder
 * holding train.rec + train.idx.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/dataset.h"
#include "pipeline/ds_image.h"
#include "pipeline/ds_kind.h"
#include "pipeline/loader.h"
#include "pipeline/recordio.h"
#include "pipeline/source.h"

static void rec_size(const struct ts_dataset_meta *meta, uint32_t img,
		     const struct ts_ds_image_spec *p, uint32_t *bytes, uint16_t *w, uint16_t *h)
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
		    const struct ts_ds_image_spec *p, struct ts_ds_sample *s)
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
	.size_rec = true,
	.files = rec_files,
	.make = rec_make,
	.open = pack_open,
	.put = pack_put,
	.close = pack_close,
};

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

static const struct ts_opt rec_opts[] = { TS_DS_IMAGE_OPT_CLASSES, { NULL } };


/* ---- the reader: source "rec" ------------------------------------------ */

struct rec {
	int fd;
	char rec_path[4088], idx_path[4096];
	struct ts_rec_index ix;
	uint64_t max_len;
};

static void rec_close(void *st)
{
	struct rec *r = st;
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	ts_rec_index_free(&r->ix);
	free(r);
}

static int rec_open(const struct ts_source_ops *self, const struct ts_pipe_cfg *cfg,
		    void **st, char *err, size_t errlen)
{
	(void)self;
	if (!cfg->path || !*cfg->path) {
		snprintf(err, errlen, "source 'rec' needs option 'path' (a .rec file)");
		return -EINVAL;
	}
	struct rec *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	struct stat sb;
	const char *p = cfg->path;
	size_t pl = strlen(p);
	int w;
	if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
		w = snprintf(r->rec_path, sizeof r->rec_path, "%s/train.rec", p);
	else
		w = snprintf(r->rec_path, sizeof r->rec_path, "%s", p);
	pl = strlen(r->rec_path);
	if (w < 0 || (size_t)w >= sizeof r->rec_path - 4) {
		snprintf(err, errlen, "%s: path too long", p);
		rec_close(r);
		return -ENAMETOOLONG;
	}
	if (pl > 4 && !strcmp(r->rec_path + pl - 4, ".rec"))
		snprintf(r->idx_path, sizeof r->idx_path, "%.*s.idx", (int)(pl - 4), r->rec_path);
	else
		snprintf(r->idx_path, sizeof r->idx_path, "%s.idx", r->rec_path);
	r->fd = open(r->rec_path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &sb)) {
		int rc = -errno;
		snprintf(err, errlen, "%s: cannot open the record file: %s", r->rec_path,
			 ts_strerror(rc));
		rec_close(r);
		return rc;
	}
	char sub[512] = "";
	int rc = ts_rec_index_load(&r->ix, r->idx_path, (uint64_t)sb.st_size, sub, sizeof sub);
	if (rc) {
		if (rc == -ENOENT)
			snprintf(err, errlen,
				 "%s: index missing (a .rec is read through its .idx, as im2rec "
				 "writes both; rebuild it with 'tiersim dataset make imagenet-rec')",
				 r->idx_path);
		else
			snprintf(err, errlen, "%s: %s", r->idx_path, sub[0] ? sub : ts_strerror(rc));
		rec_close(r);
		return rc;
	}
	if (!r->ix.count) {
		snprintf(err, errlen, "%s: the index lists no records", r->idx_path);
		rec_close(r);
		return -ENOENT;
	}
	for (size_t i = 0; i < r->ix.count; i++) {
		if (r->ix.length[i] > TS_REC_MAX_LEN + 8 + 3) {
			snprintf(err, errlen, "%s: record %zu is %llu bytes, more than a record holds",
				 r->idx_path, i, (unsigned long long)r->ix.length[i]);
			rec_close(r);
			return TS_E_FORMAT;
		}
		if (r->ix.length[i] > r->max_len)
			r->max_len = r->ix.length[i];
	}
	*st = r;
	return 0;
}

static uint64_t rec_count(void *st)
{
	return ((struct rec *)st)->ix.count;
}

static uint64_t rec_max_len(void *st)
{
	return ((struct rec *)st)->max_len;
}

static int rec_extent(void *st, uint64_t i, struct ts_extent *x)
{
	struct rec *r = st;
	x->dirfd = -1;
	x->rel = NULL;
	x->fd = r->fd;
	x->off = r->ix.offset[i];
	x->len = (uint32_t)r->ix.length[i];
	x->label = -1;
	return 0;
}

static int rec_unwrap(void *st, uint64_t i, uint8_t *buf, uint32_t len, struct ts_payload *pl)
{
	size_t used;
	ssize_t n = ts_rec_decode(buf, len, buf, len, &used);
	if (n < 0)
		return (int)n;
	struct ts_rec_irheader h;
	size_t img;
	int rc = ts_rec_irheader_unpack(&h, buf, (size_t)n, &img);
	if (rc)
		return rc;
	pl->off = (uint32_t)img;
	pl->len = (uint32_t)((size_t)n - img);
	pl->label = (int32_t)h.label;
	return 0;
}

static void rec_describe(void *st, uint64_t i, char *buf, size_t n)
{
	struct rec *r = st;
	snprintf(buf, n, "%s record %llu (key %llu, offset %llu)", r->rec_path,
		 (unsigned long long)i, (unsigned long long)r->ix.key[i],
		 (unsigned long long)r->ix.offset[i]);
}

/* Virtual: one read per record, where the index says it lies. */
static int rec_plan_open(const struct ts_source_ops *self, struct ts_vsource *vs,
		         char *err, size_t errlen)
{
	(void)self;
	return ts_vsource_images(vs, true, err, errlen);
}

static void rec_plan_sample(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out)
{
	ts_vsource_packed(vs, i, TS_VWORK_JPEG, out);
}

const struct ts_source_ops ts_source_rec = {
	.name = "rec",
	.version = TS_SOURCE_VERSION,
	.caps = TS_SRC_EXTENTS,
	.open = rec_open,
	.count = rec_count,
	.max_len = rec_max_len,
	.extent = rec_extent,
	.unwrap = rec_unwrap,
	.describe = rec_describe,
	.close = rec_close,
	.plan_open = rec_plan_open,
	.plan_sample = rec_plan_sample,
	.plan_close = ts_vsource_free,
};

const struct ts_dataset_ops ts_dataset_imagenet_rec = {
	.name = "imagenet-rec",
	.version = TS_DATASET_OPS_VERSION,
	.caps = TS_DS_IMAGES | TS_DS_SHUFFLED,
	.help = "MXNet RecordIO train.rec + train.idx (im2rec --resize 480)",
	.opts = rec_opts,
	.opts_size = sizeof(struct ts_ds_image_opts),
	.full_count = TS_IMAGENET_TRAIN,
	.unit = "images",
	.source = &ts_source_rec,
	.input = "train.rec",
	.sample_column = "record id",
	.data = &rec_images,
	.describe = ts_ds_image_describe,
	.generate = ts_ds_image_generate,
	.verify = rec_verify,
	.sample_name = rec_sample_name,
	.storage = rec_storage,
};
