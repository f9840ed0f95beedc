/*
 * ds_imagenet_lmdb.c — the imagenet-lmdb kind: what Caffe's
 * convert_imageset --shuffle --resize_height=256 --resize_width=256 writes,
 * train_lmdb/{data,lock}.mdb with key "%08d_<wnid>/<file>" and a Datum
 * (datum.h) per image: raw BGR CHW pixels, or the JPEG with --encoded.
 */
#include <errno.h>
#include <inttypes.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "pipeline/dataset.h"
#include "pipeline/datum.h"
#include "pipeline/ds_image.h"
#include "pipeline/ds_kind.h"

void ts_dataset_lmdb_key(const struct ts_dataset_meta *meta, uint64_t j, char *out, size_t n)
{
	char rel[96];

	/* convert_imageset lists "<wnid>/<file>" relative to the train root */
	ts_dataset_sample_path(meta, meta->order[j], rel, sizeof(rel));
	snprintf(out, n, "%08" PRIu64 "_%s", j, rel + strlen("train/"));
}

static size_t datum_size(size_t data_len, int32_t label, bool encoded)
{
	struct ts_datum d;

	if (encoded)
		ts_datum_init_encoded(&d, NULL, data_len, label);
	else
		ts_datum_init_raw(&d, 3, TS_LMDB_SIDE, TS_LMDB_SIDE, NULL, label);
	return ts_datum_encoded_size(&d);
}

static void lmdb_size(const struct ts_dataset_meta *meta, uint32_t img,
		      const struct ts_ds_plan *p, uint32_t *bytes, uint16_t *w, uint16_t *h)
{
	bool enc = meta->encoded;
	*bytes = (uint32_t)datum_size(enc ? p->jpeg.target : 0, meta->img_label[img], enc);
	*w = (uint16_t)(enc ? p->w : TS_LMDB_SIDE);
	*h = (uint16_t)(enc ? p->h : TS_LMDB_SIDE);
}

/*
 * LMDB's data.mdb for keys appended in order (convert_imageset's keys
 * start with the zero-padded entry number): 2 meta pages, each value over
 * a page's quarter in its own run of overflow pages (16-byte page header),
 * leaf nodes of 8-byte header + key + 8-byte overflow page number + 2-byte
 * index, leaves split when full, a branch level above. Transactions of
 * 1000 copy-on-write their leaf path; LMDB reuses those pages, so a few
 * spare pages per commit are allowed for. An estimate, flagged as such.
 */
#define LMDB_PAGE 4096
static uint64_t lmdb_estimate(const struct ts_dataset_meta *meta, uint64_t keybytes)
{
	uint64_t pages = 2, leaf_bytes = 0;

	for (uint64_t j = 0; j < meta->samples; j++) {
		uint64_t v = meta->bytes[j];
		if (v > LMDB_PAGE / 4)
			pages += (v + 16 + LMDB_PAGE - 1) / LMDB_PAGE;
	}
	leaf_bytes = keybytes + meta->samples * (8 + 8 + 2);
	uint64_t leaves = (leaf_bytes + (LMDB_PAGE - 16) - 1) / (LMDB_PAGE - 16);
	uint64_t branches = leaves / 100 + 1;
	uint64_t commits = meta->samples / 1000 + 1;
	pages += leaves + branches + 2 * commits / 8 + 4;
	return pages * LMDB_PAGE;
}

static int lmdb_files(struct ts_dataset_meta *meta)
{
	uint64_t keybytes = 0;
	int rc;

	/* ts_dataset_lmdb_key's lengths: "%08j_" and the path after "train/" */
	for (uint64_t j = 0; j < meta->samples; j++) {
		uint64_t d = 1;
		for (uint64_t v = j; v >= 10; v /= 10)
			d++;
		keybytes += TS_MAX(d, 8) + 1 + ts_dataset_sample_path_len(meta, meta->order[j]) -
			    strlen("train/");
	}
	/* lock.mdb: a reader table of 126 slots, 8 KiB on 64-bit Linux */
	if ((rc = ts_ds_add_file(meta, "train_lmdb/data.mdb", lmdb_estimate(meta, keybytes),
				 true)))
		return rc;
	return ts_ds_add_file(meta, "train_lmdb/lock.mdb", 8192, true);
}

static int lmdb_make(struct ts_jpeggen *jg, const struct ts_dataset_meta *meta, uint32_t img,
		     const struct ts_ds_plan *p, struct ts_ds_sample *s)
{
	struct ts_datum d;
	uint8_t *chw = NULL;
	int rc;

	if (meta->encoded) {
		const uint8_t *jpg;
		size_t jlen;
		if ((rc = ts_jpeggen_make(jg, &p->jpeg, &jpg, &jlen, &s->jr)))
			return rc;
		s->requal = s->jr.quality != p->jpeg.quality;
		ts_datum_init_encoded(&d, jpg, jlen, meta->img_label[img]);
	} else {
		/* convert_imageset --resize_height=256 --resize_width=256: the
		 * picture is drawn at 256x256 directly */
		if ((rc = ts_jpeggen_pixels(jg, p->jpeg.seed, TS_LMDB_SIDE, TS_LMDB_SIDE,
					    p->lmdb_grain)))
			return rc;
		chw = malloc(TS_LMDB_PIXELS);
		if (!chw)
			return -ENOMEM;
		ts_datum_rgb_to_chw_bgr(jg->rgb, TS_LMDB_SIDE, TS_LMDB_SIDE, chw);
		ts_datum_init_raw(&d, 3, TS_LMDB_SIDE, TS_LMDB_SIDE, chw, meta->img_label[img]);
	}
	s->len = ts_datum_encoded_size(&d);
	s->buf = malloc(s->len);
	ssize_t n = s->buf ? ts_datum_encode(&d, s->buf, s->len) : -ENOMEM;
	free(chw);
	return n < 0 ? (int)n : 0;
}

struct db {
	const struct ts_dataset_meta *meta;
	char path[4096]; /* DIR/train_lmdb */
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
};

static int lmdb_fail(char *err, size_t errlen, const char *path, int rc, const char *what)
{
	return ts_ds_fail(err, errlen, -EIO, "%s: LMDB %s: %s", path, what, mdb_strerror(rc));
}

static int db_open(const struct ts_dataset_meta *meta, const char *dir, void **w, char *err,
		   size_t errlen)
{
	struct db *k = calloc(1, sizeof(*k));
	int rc;

	if (!k)
		return ts_ds_fail(err, errlen, -ENOMEM, "out of memory");
	k->meta = meta;
	*w = k;
	snprintf(k->path, sizeof(k->path), "%s/train_lmdb", dir);
	if ((rc = ts_ds_mkdir(k->path)))
		return ts_ds_fail(err, errlen, rc, "%s: %s", k->path, ts_strerror(rc));
	/* the map is address space, not disk: leave room over the estimate */
	uint64_t map = meta->files[0].bytes + meta->files[0].bytes / 2 + 64 * TS_MiB;
	map = (map + LMDB_PAGE - 1) / LMDB_PAGE * LMDB_PAGE;
	if ((rc = mdb_env_create(&k->env)))
		return lmdb_fail(err, errlen, k->path, rc, "env_create");
	if ((rc = mdb_env_set_mapsize(k->env, map)) ||
	    (rc = mdb_env_open(k->env, k->path, 0, 0664)))
		return lmdb_fail(err, errlen, k->path, rc, "open");
	return 0;
}

static int db_put(void *w, uint64_t j, const uint8_t *b, size_t len, char *err, size_t errlen)
{
	struct db *k = w;
	const struct ts_dataset_meta *meta = k->meta;
	char key[160];
	MDB_val kv, val;
	int rc;

	if (len != meta->bytes[j])
		return ts_ds_fail(err, errlen, TS_E_CORRUPT,
				  "%s: entry %" PRIu64 " is %zu bytes where the model says %" PRIu32
				  " (generator bug)",
				  k->path, j, len, meta->bytes[j]);
	/* convert_imageset commits every 1000 puts */
	if (!k->txn) {
		if ((rc = mdb_txn_begin(k->env, NULL, 0, &k->txn)))
			return lmdb_fail(err, errlen, k->path, rc, "txn_begin");
		if ((rc = mdb_dbi_open(k->txn, NULL, 0, &k->dbi)))
			return lmdb_fail(err, errlen, k->path, rc, "dbi_open");
	}
	ts_dataset_lmdb_key(meta, j, key, sizeof(key));
	kv.mv_data = key;
	kv.mv_size = strlen(key);
	val.mv_data = (void *)b;
	val.mv_size = len;
	if ((rc = mdb_put(k->txn, k->dbi, &kv, &val, 0)))
		return lmdb_fail(err, errlen, k->path, rc, "put");
	if ((j + 1) % 1000 == 0) {
		rc = mdb_txn_commit(k->txn);
		k->txn = NULL;
		if (rc)
			return lmdb_fail(err, errlen, k->path, rc, "commit");
	}
	return 0;
}

static int db_close(void *w, bool ok, char *err, size_t errlen)
{
	struct db *k = w;
	int rc = 0;

	if (k->txn) {
		if (ok) {
			rc = mdb_txn_commit(k->txn);
			if (rc)
				rc = lmdb_fail(err, errlen, k->path, rc, "commit");
		} else {
			mdb_txn_abort(k->txn);
		}
	}
	if (k->env)
		mdb_env_close(k->env);
	free(k);
	return rc;
}

static const struct ts_ds_image_kind lmdb_images = {
	.size = lmdb_size,
	.files = lmdb_files,
	.make = lmdb_make,
	.open = db_open,
	.put = db_put,
	.close = db_close,
};

static int lmdb_plan(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
		     char *err, size_t errlen)
{
	return ts_ds_image_plan(&lmdb_images, cfg, meta, err, errlen);
}

static int lmdb_generate(const struct ts_dataset_meta *meta, const struct ts_dataset_config *cfg,
			 const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen)
{
	return ts_ds_image_generate(&lmdb_images, meta, cfg, dir, st, err, errlen);
}

/* One Datum per stored image, under its key, in order, of its size, label
 * and dimensions; nothing more. */
static int check_entry(const struct ts_dataset_meta *meta, uint64_t j, const MDB_val *k,
		       const MDB_val *v, const char *path, char *err, size_t errlen)
{
	char key[160];
	struct ts_datum d;
	uint32_t w = 0, h = 0;

	ts_dataset_lmdb_key(meta, j, key, sizeof(key));
	if (k->mv_size != strlen(key) || memcmp(k->mv_data, key, k->mv_size))
		return ts_ds_fail(err, errlen, TS_E_CORRUPT,
				  "%s: entry %" PRIu64 " has key '%.*s', not '%s'", path, j,
				  (int)(k->mv_size < 100 ? k->mv_size : 100),
				  (const char *)k->mv_data, key);
	if (v->mv_size != meta->bytes[j])
		return ts_ds_fail(err, errlen, TS_E_TRUNCATED,
				  "%s: entry %s is %zu bytes where the description says %" PRIu32,
				  path, key, v->mv_size, meta->bytes[j]);
	if (ts_datum_decode(&d, v->mv_data, v->mv_size) || d.label != meta->label[j] ||
	    d.encoded != meta->encoded)
		return ts_ds_fail(err, errlen, TS_E_CORRUPT,
				  "%s: entry %s is not a %s Datum of label %u", path, key,
				  meta->encoded ? "encoded" : "raw", meta->label[j]);
	if (meta->encoded) {
		if (ts_ds_jpeg_dims(d.data, d.data_len, &w, &h))
			w = h = 0;
	} else if (d.channels == 3 && d.data_len == (size_t)d.height * d.width * 3) {
		w = (uint32_t)d.width;
		h = (uint32_t)d.height;
	}
	if (w != meta->width[j] || h != meta->height[j])
		return ts_ds_fail(err, errlen, TS_E_CORRUPT,
				  "%s: entry %s is not %ux%u as described", path, key,
				  meta->width[j], meta->height[j]);
	return 0;
}

static int lmdb_verify(const struct ts_dataset_meta *meta, const char *dir, char *err,
		       size_t errlen)
{
	char path[4096];
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_cursor *cur = NULL;
	MDB_dbi dbi;
	MDB_val k, v;
	uint64_t j = 0;
	int rc, r;

	snprintf(path, sizeof(path), "%s/train_lmdb", dir);
	if ((r = mdb_env_create(&env)) || (r = mdb_env_open(env, path, MDB_RDONLY, 0664)) ||
	    (r = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) ||
	    (r = mdb_dbi_open(txn, NULL, 0, &dbi)) || (r = mdb_cursor_open(txn, dbi, &cur))) {
		rc = lmdb_fail(err, errlen, path, r, "open");
		goto out;
	}
	rc = 0;
	while (!rc && (r = mdb_cursor_get(cur, &k, &v, j ? MDB_NEXT : MDB_FIRST)) == 0) {
		if (j >= meta->samples)
			rc = ts_ds_fail(err, errlen, TS_E_CORRUPT,
					"%s: more than the %" PRIu64 " entries described", path,
					meta->samples);
		else
			rc = check_entry(meta, j++, &k, &v, path, err, errlen);
	}
	if (!rc && r != MDB_NOTFOUND)
		rc = lmdb_fail(err, errlen, path, r, "cursor_get");
	else if (!rc && j != meta->samples)
		rc = ts_ds_fail(err, errlen, TS_E_TRUNCATED,
				"%s: %" PRIu64 " entries where the description says %" PRIu64, path,
				j, meta->samples);
out:
	if (cur)
		mdb_cursor_close(cur);
	if (txn)
		mdb_txn_abort(txn);
	if (env)
		mdb_env_close(env);
	return rc;
}

static void lmdb_storage(const struct ts_dataset_meta *meta, char *out, size_t n)
{
	snprintf(out, n, "a Caffe Datum per image in one LMDB, %s",
		 meta->encoded ? "encoded=true (the JPEG file)" : "raw 3x256x256 BGR pixels");
}

static const char *const lmdb_opts[] = { "classes", "encoded", NULL };

const struct ts_dataset_ops ts_dataset_imagenet_lmdb = {
	.name = "imagenet-lmdb",
	.version = TS_DATASET_OPS_VERSION,
	.caps = TS_DS_IMAGES | TS_DS_SHUFFLED,
	.help = "Caffe LMDB of 256x256 Datum records (convert_imageset)",
	.opts = lmdb_opts,
	.full_count = TS_IMAGENET_TRAIN,
	.unit = "images",
	.source = "lmdb",
	.input = "train_lmdb",
	.sample_column = "key",
	.plan = lmdb_plan,
	.generate = lmdb_generate,
	.verify = lmdb_verify,
	.sample_name = ts_dataset_lmdb_key,
	.storage = lmdb_storage,
};
