/*
 * source_lmdb.c — a Caffe LMDB read as Caffe's data layer reads it: one
 * read-only environment, one read transaction and one cursor, walked with
 * MDB_NEXT in key order from MDB_FIRST, in the reader thread (Caffe's
 * DataReader thread; BVLC/caffe src/caffe/util/db_lmdb.cpp opens with
 * MDB_RDONLY | MDB_NOTLS). No shuffling: convert_imageset --shuffle
 * shuffled the keys when it wrote them. Each value is a Datum (datum.h);
 * unwrap hands on its pixels or its encoded image and its label.
 *
 * path: the LMDB folder (holding data.mdb).
 */
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/datum.h"
#include "pipeline/dataset.h"
#include "pipeline/loader.h"
#include "pipeline/source.h"

struct lmdb_src {
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_cursor *cur;
	uint64_t count, max_len;
	uint64_t at; /* entry under the cursor, UINT64_MAX before the first */
	char path[4096];
};

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

static int lmdb_open(const struct ts_pipe_cfg *cfg, void **st, char *err, size_t errlen)
{
	if (!cfg->path || !*cfg->path) {
		snprintf(err, errlen, "source 'lmdb' needs option 'path' (an LMDB folder)");
		return -EINVAL;
	}
	struct lmdb_src *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	snprintf(s->path, sizeof s->path, "%s", cfg->path);
	const char *what = "mdb_env_create";
	int rc = mdb_env_create(&s->env);
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
	memcpy(buf, v.mv_data, v.mv_size);
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
 * The reads are page faults on LMDB's map, and the kernel serves a fault
 * with a read-around window of the file's readahead size (32 pages,
 * 128 KiB, by default), so they reach the mount as requests of 128 KiB
 * one after the other, not one request per Datum. */
static int lmdb_plan_open(struct ts_vsource *vs, char *err, size_t errlen)
{
	return ts_vsource_images(vs, true, err, errlen);
}

static void lmdb_plan_sample(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out)
{
	ts_vsource_packed(vs, i, vs->meta->encoded ? TS_VWORK_JPEG : TS_VWORK_PIXELS, out);
	out->io[0].chunk = 32 * 4096; /* the default ra_pages */
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
