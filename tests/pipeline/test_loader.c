/*
 * test_loader.c — the loader delivers every sample of an epoch exactly once,
 * in an order that is a permutation of the dataset, with the source's bytes,
 * for each source type and a table of queue depths, worker counts, batch
 * shapes and decode modes. Datasets are made here, in a temporary folder.
 *
 *   test_loader [MAKE_IN [READ_FROM]]
 *       make the datasets in a new folder under MAKE_IN (default $TMPDIR),
 *       and read them from the same folder name under READ_FROM (the
 *       tierfs test makes them in its backing folder and reads the mount)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <lmdb.h>

#include "core/rng.h"
#include "pipeline/datum.h"
#include "pipeline/loader.h"
#include "pipeline/recordio.h"
#include "pipeline/source.h"
#include "tests/tcheck.h"
#include "tests/pipeline/tp.h"

#define NCLASS 5
#define PER_CLASS 23
#define NFILES (NCLASS * PER_CLASS)

static char root[256];
static uint64_t file_sum[NFILES];
static uint32_t file_len[NFILES];
static bool file_jpeg[NFILES];

static uint64_t fnv64(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* A small real JPEG of w × h with a seeded pattern. */
static uint8_t *make_jpeg(uint64_t seed, int w, int h, unsigned long *len)
{
	struct ts_rng r;
	ts_rng_seed(&r, seed);
	uint8_t *rgb = malloc((size_t)w * h * 3);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			for (int c = 0; c < 3; c++)
				rgb[(y * w + x) * 3 + c] =
					(uint8_t)(x * (c + 1) + y * 2 + ts_rng_below(&r, 32));
	tjhandle tj = tjInitCompress();
	uint8_t *jpg = NULL;
	*len = 0;
	if (tjCompress2(tj, rgb, w, 0, h, TJPF_RGB, &jpg, len, TJSAMP_420, 85, 0))
		jpg = NULL;
	tjDestroy(tj);
	free(rgb);
	return jpg;
}

/* ROOT/folder/cNN/fNNNN.jpg: JPEGs of varied sizes (some larger than 64 KiB
 * so that a small slot_size forces the own-buffer path). */
static int make_folder(void)
{
	char path[512];
	snprintf(path, sizeof path, "%s/folder", root);
	if (mkdir(path, 0755))
		return -1;
	for (int c = 0; c < NCLASS; c++) {
		snprintf(path, sizeof path, "%s/folder/c%02d", root, c);
		if (mkdir(path, 0755))
			return -1;
		for (int k = 0; k < PER_CLASS; k++) {
			int i = c * PER_CLASS + k;
			int w = 40 + (i * 37) % 300, h = 30 + (i * 53) % 250;
			unsigned long len;
			uint8_t *jpg = make_jpeg((uint64_t)i, w, h, &len);
			if (!jpg)
				return -1;
			snprintf(path, sizeof path, "%s/folder/c%02d/f%04d.jpg", root, c, i);
			int rc = tp_write_file(path, jpg, len);
			file_sum[i] = fnv64(jpg, len);
			file_len[i] = (uint32_t)len;
			file_jpeg[i] = true;
			tjFree(jpg);
			if (rc)
				return -1;
		}
	}
	return 0;
}

static void jpeg_path(int i, char *out, size_t n)
{
	snprintf(out, n, "%s/folder/c%02d/f%04d.jpg", root, i / PER_CLASS, i);
}

/* ROOT/set.rec + set.idx: record i = IRHeader {label i / PER_CLASS, id i}
 * and the bytes of JPEG i, as im2rec packs them. */
static int make_rec(void)
{
	char rec[400], idx[400];
	snprintf(rec, sizeof rec, "%s/set.rec", root);
	snprintf(idx, sizeof idx, "%s/set.idx", root);
	struct ts_rec_writer w;
	if (ts_rec_writer_open(&w, rec, idx))
		return -1;
	int rc = 0;
	for (int i = 0; i < NFILES && !rc; i++) {
		char p[400];
		size_t n;
		jpeg_path(i, p, sizeof p);
		uint8_t *jpg = tp_read_file(p, &n);
		uint8_t *pl = malloc(n + TS_REC_IRHEADER_SIZE);
		struct ts_rec_irheader h = { .flag = 0, .label = (float)(i / PER_CLASS), .id = (uint64_t)i };
		ts_rec_irheader_pack(&h, pl);
		memcpy(pl + TS_REC_IRHEADER_SIZE, jpg, n);
		rc = ts_rec_writer_add(&w, (uint64_t)i, pl, n + TS_REC_IRHEADER_SIZE);
		free(pl);
		free(jpg);
	}
	return ts_rec_writer_close(&w) || rc ? -1 : 0;
}

/* ROOT/lmdb (encoded Datums holding JPEG i) and ROOT/lmdbraw (raw Datums,
 * 3 × 24 × 20 BGR planes), keys "%08d" so that key order is sample order. */
static uint64_t raw_sum[NFILES];

static int make_lmdb(bool raw)
{
	char dir[400];
	snprintf(dir, sizeof dir, "%s/%s", root, raw ? "lmdbraw" : "lmdb");
	if (mkdir(dir, 0755))
		return -1;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	if (mdb_env_create(&env) || mdb_env_set_mapsize(env, 256 << 20) ||
	    mdb_env_open(env, dir, 0, 0664) || mdb_txn_begin(env, NULL, 0, &txn) ||
	    mdb_dbi_open(txn, NULL, 0, &dbi))
		return -1;
	int rc = 0;
	for (int i = 0; i < NFILES && !rc; i++) {
		struct ts_datum d;
		uint8_t *jpg = NULL, px[3 * 24 * 20];
		size_t n = 0;
		if (raw) {
			for (size_t k = 0; k < sizeof px; k++)
				px[k] = (uint8_t)(k * 3 + (size_t)i * 11);
			raw_sum[i] = fnv64(px, sizeof px);
			ts_datum_init_raw(&d, 3, 24, 20, px, i / PER_CLASS);
		} else {
			char p[400];
			jpeg_path(i, p, sizeof p);
			jpg = tp_read_file(p, &n);
			ts_datum_init_encoded(&d, jpg, n, i / PER_CLASS);
		}
		size_t sz = ts_datum_encoded_size(&d);
		uint8_t *val = malloc(sz);
		char key[16];
		snprintf(key, sizeof key, "%08d", i);
		MDB_val k = { strlen(key), key }, v = { sz, val };
		if (ts_datum_encode(&d, val, sz) != (ssize_t)sz || mdb_put(txn, dbi, &k, &v, 0))
			rc = -1;
		free(val);
		free(jpg);
	}
	rc |= mdb_txn_commit(txn);
	mdb_env_close(env);
	return rc ? -1 : 0;
}

/* The words of the corpus, in order, "<eos>" at line ends. */
#define NWORDS 2400
static char corpus_words[NWORDS][8];
static int ncorpus;

static int make_text(void)
{
	char path[512];
	snprintf(path, sizeof path, "%s/corpus.txt", root);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	struct ts_rng r;
	ts_rng_seed(&r, 7);
	ncorpus = 0;
	while (ncorpus < NWORDS - 20) {
		int n = 3 + (int)ts_rng_below(&r, 15);
		fputc(' ', f);
		for (int k = 0; k < n; k++) {
			/* Zipf-ish: small numbers are frequent. */
			unsigned v = (unsigned)(ts_rng_below(&r, 50) * ts_rng_below(&r, 50) / 40);
			snprintf(corpus_words[ncorpus++], 8, "w%u", v);
			fprintf(f, "%s ", corpus_words[ncorpus - 1]);
		}
		fputc('\n', f);
		snprintf(corpus_words[ncorpus++], 8, "<eos>");
	}
	return fclose(f);
}

struct run_cfg {
	const char *source;
	unsigned qd, vcpus, batch, prefetch, epochs;
	bool shuffle, drop_last;
	const char *decode;
	const char *slot_size;
	uint64_t count; /* null source */
	bool open_uring, registered;
	const char *path; /* under the test folder, for rec and lmdb */
};

static int set(struct ts_pipe_cfg *c, const char *k, const char *v)
{
	char err[256];
	int rc = ts_opt_set(ts_pipe_opts, c, k, v, err, sizeof err);
	if (rc)
		fprintf(stderr, "set %s=%s: %s\n", k, v, err);
	return rc;
}

static int setu(struct ts_pipe_cfg *c, const char *k, uint64_t v)
{
	char b[32];
	snprintf(b, sizeof b, "%llu", (unsigned long long)v);
	return set(c, k, b);
}

static int make_cfg(struct ts_pipe_cfg *c, const struct run_cfg *r, const char *path)
{
	char err[256];
	if (ts_opt_defaults(ts_pipe_opts, c, err, sizeof err))
		return -1;
	int rc = set(c, "source", r->source) | set(c, "path", path ? path : "") |
		 setu(c, "qd", r->qd) | setu(c, "vcpus", r->vcpus) | setu(c, "batch", r->batch) |
		 setu(c, "prefetch", r->prefetch) | setu(c, "epochs", r->epochs) |
		 set(c, "shuffle", r->shuffle ? "1" : "0") |
		 set(c, "drop_last", r->drop_last ? "1" : "0") | set(c, "decode", r->decode) |
		 set(c, "keep_raw", "1") | set(c, "out_size", "32") | set(c, "resize", "40") |
		 set(c, "open_uring", r->open_uring ? "1" : "0") |
		 set(c, "registered", r->registered ? "1" : "0");
	if (r->slot_size)
		rc |= set(c, "slot_size", r->slot_size);
	if (r->count)
		rc |= setu(c, "count", r->count) | set(c, "sample_size", "3000");
	return rc;
}

/* Every sample seen exactly once. */
static bool once(const uint8_t *seen, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (seen[i] != 1)
			return false;
	return true;
}

/* Runs one configuration; checks every batch. Returns the order of epoch 0
 * (caller frees) for the determinism checks. */
static uint32_t *run_one(const struct run_cfg *r, const char *path, const char *path_kind,
			 uint64_t n_expect)
{
	struct ts_pipe_cfg cfg = { 0 };
	char err[512];
	struct ts_pipe *p;
	if (make_cfg(&cfg, r, path)) {
		CHECK(!"config");
		return NULL;
	}
	int rc = ts_pipe_new(&cfg, &p, err, sizeof err);
	ts_opt_free(ts_pipe_opts, &cfg);
	if (rc) {
		fprintf(stderr, "ts_pipe_new: %s\n", err);
		CHECK(rc == 0);
		return NULL;
	}
	CHECK(ts_pipe_start(p) == 0);
	uint64_t per_epoch = ts_pipe_samples_per_epoch(p);
	uint64_t nb = ts_pipe_batches_per_epoch(p);
	uint64_t n_all = n_expect;
	CHECK_EQ_U64(per_epoch, r->drop_last ? n_all / r->batch * r->batch : n_all);
	uint8_t *seen = calloc(n_all, 1);
	uint32_t *order0 = calloc(n_all, sizeof *order0);
	uint32_t *prev = calloc(n_all, sizeof *prev);
	uint64_t got = 0, batches = 0, pos = 0;
	uint32_t epoch = 0;
	bool text = !strcmp(r->source, "text");
	for (;;) {
		struct ts_batch *b;
		int64_t w = ts_pipe_next_batch(p, &b);
		if (w < 0) {
			fprintf(stderr, "next_batch: %s\n", ts_pipe_error(p));
			CHECK(w >= 0);
			break;
		}
		if (!b)
			break;
		if (b->epoch != epoch) {
			CHECK_EQ_U64(pos, per_epoch);
			CHECK(r->drop_last || once(seen, n_all));
			memset(seen, 0, n_all);
			epoch = b->epoch;
			pos = 0;
		}
		CHECK_EQ_U64(b->seq, batches);
		CHECK_EQ_U64(b->index, batches % nb);
		CHECK_EQ_U64(b->skipped, 0);
		uint64_t want = TS_MIN((uint64_t)r->batch, per_epoch - b->index * (uint64_t)r->batch);
		CHECK_EQ_U64(b->n, want);
		for (uint32_t i = 0; i < b->n; i++) {
			const struct ts_sample *s = &b->s[i];
			if (s->id >= n_all) {
				CHECK(s->id < n_all);
				continue;
			}
			seen[s->id]++;
			if (epoch == 0)
				order0[pos] = (uint32_t)s->id;
			if (epoch == 1)
				prev[pos] = (uint32_t)s->id;
			pos++;
			CHECK(s->raw != NULL);
			if (!s->raw)
				continue;
			if (!strcmp(r->source, "null")) {
				bool ok = s->len == 3000;
				for (uint32_t j = 0; ok && j < s->len; j++)
					ok = ((const uint8_t *)s->raw)[j] == ts_null_byte(s->id, j);
				CHECK(ok);
			} else if (text) {
				/* Step b->index, row i: words back from ids. */
				const uint32_t *tok = s->raw;
				uint64_t rows = r->batch, blen = (uint64_t)ncorpus / rows;
				CHECK_EQ_U64(s->id, b->index * rows + i);
				CHECK_EQ_U64(s->len, 36 * sizeof(uint32_t));
				bool ok = true;
				for (unsigned j = 0; ok && j < 36; j++) {
					const char *wd = ts_pipe_word(p, tok[j]);
					ok = wd && !strcmp(wd, corpus_words[i * blen + b->index * 35 + j]);
				}
				CHECK(ok);
			} else if (path_kind && !strcmp(path_kind, "lmdbraw")) {
				CHECK_EQ_U64(s->len, 3 * 24 * 20);
				CHECK(fnv64(s->raw, s->len) == raw_sum[s->id]);
				CHECK_EQ_U64(s->label, s->id / PER_CLASS);
			} else {
				CHECK_EQ_U64(s->len, file_len[s->id]);
				CHECK(fnv64(s->raw, s->len) == file_sum[s->id]);
				CHECK_EQ_U64(s->label, s->id / PER_CLASS);
			}
			if (b->data) {
				const float *d = b->data + (size_t)i * 3 * 32 * 32;
				bool finite = true;
				for (int j = 0; j < 3 * 32 * 32; j++)
					finite &= d[j] > -3.0f && d[j] < 3.0f;
				CHECK(finite);
			}
		}
		if (!r->shuffle && !text) {
			for (uint32_t i = 0; i < b->n; i++)
				CHECK_EQ_U64(b->s[i].id, b->index * (uint64_t)r->batch + i);
		}
		got += b->n;
		batches++;
		ts_pipe_batch_release(p, b);
	}
	CHECK_EQ_U64(batches, nb * r->epochs);
	CHECK_EQ_U64(got, per_epoch * r->epochs);
	CHECK(r->drop_last || once(seen, n_all));
	if (r->shuffle && r->epochs > 1 && n_all > 16)
		CHECK(memcmp(order0, prev, n_all * sizeof *prev) != 0);
	struct ts_pipe_stats st;
	ts_pipe_stats(p, &st);
	CHECK_EQ_U64(st.samples, got);
	CHECK_EQ_U64(st.errors, 0);
	if (st.errors)
		fprintf(stderr, "first error: %s\n", st.first_error);
	/* Samples larger than a slot get their own buffer beyond the reserve
	 * (a small slot_size; encoded LMDB values, sized from the first one). */
	CHECK(r->slot_size || !strcmp(r->source, "lmdb") || st.mem_peak <= st.mem_reserved);
	CHECK(st.mem_peak > 0);
	CHECK(st.consumer_wait.count == batches);
	/* The prefetch window bounds what is ready ahead of the consumer. */
	CHECK(st.queue_ready_max <= r->prefetch);
	CHECK_EQ_U64(st.series_n, batches);
	for (uint64_t i = 0; i < st.series_n; i++)
		CHECK(st.series_ready[i] <= r->prefetch && (i == 0 || st.series_t_ns[i] >= st.series_t_ns[i - 1]));
	CHECK(st.reader.samples == got);
	CHECK(!strcmp(st.decode_mode, !strcmp(r->decode, "real") ? "real" : "none"));
	char *js = ts_pipe_stats_json(&st);
	CHECK(js && strstr(js, "\"consumer_wait\""));
	free(js);
	ts_pipe_free(p);
	free(seen);
	free(prev);
	return order0;
}

static const struct run_cfg table[] = {
	/* source qd vcpus batch prefetch epochs shuffle drop decode slot count uring reg */
	{ "folder", 1, 1, 8, 2, 1, true, false, "none", NULL, 0, true, true },
	{ "folder", 64, 1, 8, 3, 2, true, false, "none", NULL, 0, true, true },
	{ "folder", 1, 4, 16, 2, 1, false, false, "real", NULL, 0, true, true },
	{ "folder", 64, 4, 10, 4, 2, true, true, "real", NULL, 0, true, true },
	{ "folder", 64, 4, 7, 2, 1, true, false, "none", "4k", 0, true, true },
	{ "folder", 16, 1, 32, 1, 2, true, false, "none", NULL, 0, false, false },
	{ "folder", 64, 4, 200, 2, 1, false, false, "none", NULL, 0, true, false },
	{ "null", 1, 1, 8, 2, 2, true, false, "none", NULL, 1000, true, true },
	{ "null", 64, 4, 33, 3, 1, true, true, "none", NULL, 1000, true, true },
	{ "text", 1, 1, 4, 2, 2, false, false, "none", NULL, 0, true, true },
	{ "text", 64, 4, 4, 3, 1, false, false, "none", NULL, 0, true, true },
	{ "rec", 1, 1, 8, 2, 2, true, false, "none", NULL, 0, true, true, "set.rec" },
	{ "rec", 64, 4, 12, 3, 1, true, false, "real", NULL, 0, true, true, "set.rec" },
	{ "rec", 64, 1, 9, 2, 1, false, false, "none", "4k", 0, true, true, "set.rec" },
	{ "lmdb", 1, 1, 8, 2, 2, false, false, "none", NULL, 0, true, true, "lmdb" },
	{ "lmdb", 64, 4, 16, 3, 1, false, false, "real", NULL, 0, true, true, "lmdb" },
	{ "lmdb", 16, 2, 10, 2, 1, false, false, "none", "4k", 0, true, true, "lmdb" },
	{ "lmdb", 1, 4, 10, 2, 1, false, true, "real", NULL, 0, true, true, "lmdbraw" },
};

int main(int argc, char **argv)
{
	const char *tmp = argc > 1 ? argv[1] : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(root, sizeof root, "%s/ts_loader_XXXXXX", tmp);
	if (!mkdtemp(root) || make_folder() || make_text() || make_rec() || make_lmdb(false) ||
	    make_lmdb(true)) {
		perror("making the test datasets");
		return 1;
	}
	char folder[400], text[400];
	/* Where the datasets are read from. */
	char view[300];
	snprintf(view, sizeof view, "%s", root);
	if (argc > 2)
		snprintf(view, sizeof view, "%s/%s", argv[2], strrchr(root, '/') + 1);
	snprintf(folder, sizeof folder, "%s/folder", view);
	snprintf(text, sizeof text, "%s/corpus.txt", view);
	for (size_t i = 0; i < TS_ARRAY_SIZE(table); i++) {
		const struct run_cfg *r = &table[i];
		int before = tc_failures;
		char other[400];
		snprintf(other, sizeof other, "%s/%s", view, r->path ? r->path : "");
		const char *path = !strcmp(r->source, "folder") ? folder
				   : !strcmp(r->source, "text") ? text
				   : !strcmp(r->source, "null") ? NULL
								  : other;
		uint64_t n = !strcmp(r->source, "null")	  ? r->count
			     : !strcmp(r->source, "text") ? (uint64_t)(((ncorpus / r->batch) - 1) / 35) * r->batch
							  : NFILES;
		uint32_t *o1 = run_one(r, path, r->path, n);
		/* Same seed, same order. */
		if (r->shuffle && o1) {
			uint32_t *o2 = run_one(r, path, r->path, n);
			CHECK(o2 && !memcmp(o1, o2, n * sizeof *o1));
			free(o2);
		}
		free(o1);
		fprintf(stderr, "%-7s qd=%-2u vcpus=%u batch=%-3u prefetch=%u epochs=%u shuffle=%d "
				"drop_last=%d decode=%-4s %s\n",
			r->path && !strcmp(r->path, "lmdbraw") ? "lmdbraw" : r->source, r->qd, r->vcpus, r->batch, r->prefetch, r->epochs, r->shuffle,
			r->drop_last, r->decode, tc_failures == before ? "ok" : "FAILED");
	}
	tp_rmrf(root);
	return tc_exit();
}
