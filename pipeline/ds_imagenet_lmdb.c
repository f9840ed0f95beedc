/*
 * ds_imagenet_lmdb.c — the imagenet-lmdb kind: what Caffe's
 * convert_imageset --shuffle --resize_height=256 --resize_width=256 writes,
 * train_lmdb/{data,lock}.mdb with key "%08d_<wnid>/<file>" and a Datum
 * (datum.h) per image: raw BGR CHW pixels, or the JPEG with --encoded.
 *
 * Its reader, the loader source "lmdb": a Caffe LMDB read as Caffe's data
 * layer reads it: one read-only environment, one read transaction and one
 * cursor, walked with MDB_NEXT in key order from MDB_FIRST, in the reader
 * thread (Caffe's DataReader thread; BVLC/caffe src/caffe/util/db_lmdb.cpp
 * opens with MDB_RDONLY | MDB_NOTLS). No shuffling: convert_imageset
 * --shuffle shuffled the keys when it wrote them. Each value is a Datum
 * (datum.h); unwrap hands on its pixels or its encoded image and its label.
 *
 * path: the LMDB folder (holding data.mdb). copy: how a Datum leaves the
 * map (copy_mode, below).
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
#include "pipeline/host.h"
#include "pipeline/loader.h"
#include "pipeline/source.h"

void ts_dataset_lmdb_key(const struct ts_dataset_meta *meta, uint64_t j, char *out, size_t n)
{
	char rel[96];

	/* convert_imageset lists "<wnid>/<file>" relative to the train root */
	ts_dataset_sample_path(meta, meta->order[j], rel, sizeof(rel));
	snprintf(out, n, "%08" PRIu64 "_%s", j, rel + strlen("train/"));
}

/* --encoded: the Datum holds the JPEG file, not pixels. */
static bool is_encoded(const struct ts_dataset_meta *meta)
{
	return ((const struct ts_ds_image_opts *)meta->own)->encoded;
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
		      const struct ts_ds_image_spec *p, uint32_t *bytes, uint16_t *w, uint16_t *h)
{
	bool enc = is_encoded(meta);
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
		     const struct ts_ds_image_spec *p, struct ts_ds_sample *s)
{
	struct ts_datum d;
	uint8_t *chw = NULL;
	int rc;

	if (is_encoded(meta)) {
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
	    d.encoded != is_encoded(meta))
		return ts_ds_fail(err, errlen, TS_E_CORRUPT,
				  "%s: entry %s is not a %s Datum of label %u", path, key,
				  is_encoded(meta) ? "encoded" : "raw", meta->label[j]);
	if (is_encoded(meta)) {
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
		 is_encoded(meta) ? "encoded=true (the JPEG file)" : "raw 3x256x256 BGR pixels");
}

static const struct ts_opt lmdb_opts[] = {
	TS_DS_IMAGE_OPT_CLASSES,
	{ "encoded", TS_OPT_BOOL, offsetof(struct ts_ds_image_opts, encoded), "false", 0, 0, "",
	  "store the JPEG file in the Datum (convert_imageset --encoded)" },
	{ NULL },
};


/* ---- the reader: source "lmdb" ----------------------------------------- */

struct lmdb_src {
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_cursor *cur;
	uint64_t count, max_len;
	uint64_t at; /* entry under the cursor, UINT64_MAX before the first */
	bool libc_copy; /* copy=memcpy */
	char path[4096];
};

/*
 * copy=: how the reader copies a Datum out of LMDB's map (liblmdb hands
 * out pointers into it, and the copy's touches are the page faults).
 * "pages" (the default): a page at a time, in order
 * (ts_copy_in_page_order), the touches of an ERMS memcpy whatever this
 * CPU's. "memcpy": the C library's memcpy, as readers other than Caffe's
 * C++ data layer copy (python3-lmdb's value through ctypes' string_at,
 * Caffe's Datum::ParseFromString of the value): in real time this CPU's
 * own order; in virtual time the host profile's (host_reader).
 */
static int copy_mode(const struct ts_pipe_cfg *cfg, bool *libc, char *err, size_t errlen)
{
	const char *c = cfg->copy && *cfg->copy ? cfg->copy : "pages";
	*libc = !strcmp(c, "memcpy");
	if (*libc || !strcmp(c, "pages"))
		return 0;
	snprintf(err, errlen, "option 'copy': '%s' is not pages or memcpy (how the lmdb source "
			      "copies a Datum out of the map)", c);
	return -EINVAL;
}

/*
 * The run's host (cfg->host, "NAME" or "NAME/LIBRARY") as the map's reader:
 * with @libc, whether the C library's memcpy touches a copy's last page
 * before the rest (the profile's copy_tail_first: *@tail_first), and the
 * reader's CPU a readahead window (its map_window_ns: *@mw; 0, the page
 * cache's own figure, where it has none). A host that says nothing copies
 * in order: a profile without the field, or this-machine without `tiersim
 * hosts measure`'s file (which writes it from CPUID). With @libc an
 * unknown profile is an error naming option 'host'; without, the profile
 * is read only for its map_window_ns, and a host that cannot be read
 * (unknown, or this-machine unmeasured) leaves the page cache's figure.
 */
static int host_reader(const struct ts_pipe_cfg *cfg, bool libc, bool *tail_first, uint64_t *mw,
		       char *err, size_t errlen)
{
	const char *spec = cfg->host && *cfg->host ? cfg->host : TS_HOST_THIS;
	char name[256];
	struct ts_host_set *set;

	*tail_first = false;
	*mw = 0;
	snprintf(name, sizeof name, "%.*s", (int)strcspn(spec, "/"), spec);
	int rc = ts_host_set_load_for(spec, &set, err, errlen);
	if (rc && !libc)
		return 0;
	if (rc)
		return rc;
	if (libc)
		rc = ts_host_copy_tail_first(set, name, tail_first, err, errlen);
	if (!rc || rc == -ENODATA)
		rc = ts_host_map_window(set, name, mw, err, errlen);
	ts_host_set_free(set);
	if (rc == -ENODATA || (rc == -ENOENT && (!libc || !strcmp(name, TS_HOST_THIS))))
		return 0;
	if (rc) {
		char why[1024];
		snprintf(why, sizeof why, "%s", err);
		snprintf(err, errlen, "option 'host' (for the map's reader): %s", why);
	}
	return rc;
}

static void lmdb_close(void *st)
{
	struct lmdb_src *s = st;
	if (!s)
		return;
	if (s->cur)
		mdb_cursor_close(s->cur);
	if (s->txn)
		mdb_txn_abort(s->txn);
	if (s->env)
		mdb_env_close(s->env);
	free(s);
}

/* LMDB returns positive errnos and its own codes; ours are -errno. */
static int lmdb_err(int rc)
{
	return rc > 0 && rc < 4096 ? -rc : -EIO;
}

static int lmdb_open(const struct ts_source_ops *self, const struct ts_pipe_cfg *cfg,
		     void **st, char *err, size_t errlen)
{
	(void)self;
	if (!cfg->path || !*cfg->path) {
		snprintf(err, errlen, "source 'lmdb' needs option 'path' (an LMDB folder)");
		return -EINVAL;
	}
	struct lmdb_src *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	snprintf(s->path, sizeof s->path, "%s", cfg->path);
	int rc = copy_mode(cfg, &s->libc_copy, err, errlen);
	if (rc) {
		free(s);
		return rc;
	}
	const char *what = "mdb_env_create";
	rc = mdb_env_create(&s->env);
	if (!rc) {
		what = "mdb_env_open";
		rc = mdb_env_open(s->env, s->path, MDB_RDONLY | MDB_NOTLS, 0664);
		if (rc == EACCES || rc == EROFS) {
			/* No lock file can be made (read-only folder): read without
			 * one; nothing writes the set while it is read. */
			rc = mdb_env_open(s->env, s->path, MDB_RDONLY | MDB_NOTLS | MDB_NOLOCK,
					  0664);
		}
	}
	if (!rc) {
		what = "mdb_txn_begin";
		rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->txn);
	}
	if (!rc) {
		what = "mdb_dbi_open";
		rc = mdb_dbi_open(s->txn, NULL, 0, &s->dbi);
	}
	MDB_stat ms;
	if (!rc) {
		what = "mdb_stat";
		rc = mdb_stat(s->txn, s->dbi, &ms);
	}
	if (!rc) {
		what = "mdb_cursor_open";
		rc = mdb_cursor_open(s->txn, s->dbi, &s->cur);
	}
	if (rc) {
		snprintf(err, errlen, "%s: %s: %s", cfg->path, what, mdb_strerror(rc));
		lmdb_close(s);
		return lmdb_err(rc);
	}
	s->count = ms.ms_entries;
	if (!s->count) {
		snprintf(err, errlen, "%s: the LMDB holds no entries", cfg->path);
		lmdb_close(s);
		return -ENOENT;
	}
	/* Values are not all the same size (encoded Datums): take the first
	 * one's size as the slot hint; larger ones get their own buffer. */
	MDB_val k, v;
	rc = mdb_cursor_get(s->cur, &k, &v, MDB_FIRST);
	if (rc) {
		snprintf(err, errlen, "%s: first entry: %s", cfg->path, mdb_strerror(rc));
		lmdb_close(s);
		return lmdb_err(rc);
	}
	s->max_len = v.mv_size;
	s->at = 0;
	*st = s;
	return 0;
}

static uint64_t lmdb_count(void *st)
{
	return ((struct lmdb_src *)st)->count;
}

static uint64_t lmdb_max_len(void *st)
{
	/* The first value's size: raw Datums are all one size; a larger
	 * encoded one is fetched again into a buffer of its own. */
	return ((struct lmdb_src *)st)->max_len;
}

void ts_copy_in_page_order(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	while (n) {
		/* to the end of the source's page: one page a memcpy */
		size_t k = TS_MIN(n, 4096 - (size_t)((uintptr_t)s % 4096));
		memcpy(d, s, k);
		d += k;
		s += k;
		n -= k;
	}
}

static int lmdb_fetch(void *st, uint64_t i, void *buf, uint32_t cap, uint32_t *len,
		      int32_t *label)
{
	struct lmdb_src *s = st;
	MDB_val k, v;
	int rc;
	if (i == s->at)
		rc = mdb_cursor_get(s->cur, &k, &v, MDB_GET_CURRENT);
	else if (i == 0)
		rc = mdb_cursor_get(s->cur, &k, &v, MDB_FIRST);
	else if (i == s->at + 1)
		rc = mdb_cursor_get(s->cur, &k, &v, MDB_NEXT);
	else
		return -EINVAL; /* a sequential source is read in order only */
	if (rc)
		return rc == MDB_NOTFOUND ? TS_E_TRUNCATED : lmdb_err(rc);
	s->at = i;
	if (v.mv_size > cap) {
		*len = (uint32_t)TS_MIN(v.mv_size, (size_t)UINT32_MAX);
		return -ENOBUFS;
	}
	/* the Datum out of the map: its pages in order (source.h), or as
	 * this CPU's memcpy touches them (copy=memcpy) */
	if (s->libc_copy)
		memcpy(buf, v.mv_data, v.mv_size);
	else
		ts_copy_in_page_order(buf, v.mv_data, v.mv_size);
	*len = (uint32_t)v.mv_size;
	*label = -1;
	return 0;
}

static int lmdb_unwrap(void *st, uint64_t i, uint8_t *buf, uint32_t len, struct ts_payload *pl)
{
	struct ts_datum d;
	int rc = ts_datum_decode(&d, buf, len);
	if (rc)
		return rc;
	if (!(d.has & TS_DATUM_HAS_DATA))
		return TS_E_CORRUPT;
	pl->off = (uint32_t)(d.data - buf);
	pl->len = (uint32_t)d.data_len;
	pl->label = d.label;
	pl->pixels = !d.encoded;
	if (pl->pixels) {
		if (d.channels <= 0 || d.height <= 0 || d.width <= 0 || d.channels > 4 ||
		    d.height > 65535 || d.width > 65535)
			return TS_E_CORRUPT;
		pl->channels = (uint16_t)d.channels;
		pl->height = (uint16_t)d.height;
		pl->width = (uint16_t)d.width;
	}
	return 0;
}

static void lmdb_describe(void *st, uint64_t i, char *buf, size_t n)
{
	struct lmdb_src *s = st;
	snprintf(buf, n, "%s entry %llu", s->path, (unsigned long long)i);
}

/* Virtual: the cursor reads each Datum where it lies in data.mdb, in key
 * order; a raw Datum costs the transform only, an encoded one a decode.
 * The reads are page faults on LMDB's map (liblmdb maps data.mdb and
 * hands out pointers into it): one mapped read of the Datum, which the
 * page-cache model serves with the kernel's read-around for faults and
 * its async marker (tier/cache.c, mapped_read), not read()'s readahead;
 * with copy=memcpy on a host whose memcpy copies tail first, the Datum's
 * first page, its last, then the rest (ts_vio.tail_first). */
static int lmdb_plan_open(const struct ts_source_ops *self, struct ts_vsource *vs,
		          char *err, size_t errlen)
{
	(void)self;
	bool libc;
	int rc = copy_mode(vs->cfg, &libc, err, errlen);
	if (!rc)
		rc = host_reader(vs->cfg, libc, &vs->tail_first, &vs->map_window_ns, err, errlen);
	if (rc || (rc = ts_vsource_images(vs, true, err, errlen)))
		return rc;
	/* Where data.mdb holds each value (lmdb_estimate): a value over a
	 * page's quarter starts its own run of overflow pages, after the
	 * 16-byte page header, the runs in key order after the two meta
	 * pages, so that a Datum of 196,649 bytes spans 49 pages and the next
	 * starts on a page of its own, as the map's faults and readahead see
	 * it. Left out: the leaf and branch pages between the runs (one leaf
	 * for about 100 keys) and values of a quarter page or less (in the
	 * leaves): each takes a page of its own here. */
	uint64_t *off = vs->st, pg = 2;
	for (uint64_t j = 0; j < vs->meta->samples; j++) {
		off[j] = pg * LMDB_PAGE + 16;
		pg += (vs->meta->bytes[j] + 16 + LMDB_PAGE - 1) / LMDB_PAGE;
	}
	off[vs->meta->samples] = pg * LMDB_PAGE;
	return 0;
}

static void lmdb_plan_sample(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out)
{
	ts_vsource_packed(vs, i, is_encoded(vs->meta) ? TS_VWORK_JPEG : TS_VWORK_PIXELS, out);
	out->io[0].mapped = true;
	out->io[0].tail_first = vs->tail_first;
	out->io[0].map_window_ns = (uint32_t)TS_MIN(vs->map_window_ns, UINT32_MAX);
}

const struct ts_source_ops ts_source_lmdb = {
	.name = "lmdb",
	.version = TS_SOURCE_VERSION,
	.caps = TS_SRC_SEQUENTIAL,
	.open = lmdb_open,
	.count = lmdb_count,
	.max_len = lmdb_max_len,
	.fetch = lmdb_fetch,
	.unwrap = lmdb_unwrap,
	.describe = lmdb_describe,
	.close = lmdb_close,
	.plan_open = lmdb_plan_open,
	.plan_sample = lmdb_plan_sample,
	.plan_close = ts_vsource_free,
};

const struct ts_dataset_ops ts_dataset_imagenet_lmdb = {
	.name = "imagenet-lmdb",
	.version = TS_DATASET_OPS_VERSION,
	.caps = TS_DS_IMAGES | TS_DS_SHUFFLED,
	.help = "Caffe LMDB of 256x256 Datum records (convert_imageset)",
	.opts = lmdb_opts,
	.opts_size = sizeof(struct ts_ds_image_opts),
	.full_count = TS_IMAGENET_TRAIN,
	.unit = "images",
	.source = &ts_source_lmdb,
	.input = "train_lmdb",
	.sample_column = "key",
	.data = &lmdb_images,
	.describe = ts_ds_image_describe,
	.generate = ts_ds_image_generate,
	.verify = lmdb_verify,
	.sample_name = ts_dataset_lmdb_key,
	.storage = lmdb_storage,
};
