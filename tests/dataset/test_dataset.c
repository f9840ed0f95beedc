/*
 * test_dataset.c — the generators write what describe promises: sizes to
 * the byte, dimensions, labels, order; same seed gives the same bytes
 * whatever the thread count; JPEGs decode; LMDB holds valid Datums;
 * RecordIO parses through its index; the text corpus keeps its vocabulary.
 */
#include <dirent.h>
#include <lmdb.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "pipeline/dataset.h"
#include "pipeline/datum.h"
#include "pipeline/recordio.h"
#include "pipeline/textgen.h"
#include "tests/dataset/ds_config.h"
#include "tests/tcheck.h"

static char root[] = "/tmp/ts_dataset_XXXXXX";
static tjhandle tjd;

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc(n > 0 ? (size_t)n : 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Decodes @jpg fully; 0 and its dimensions, or -1. */
static int decode(const uint8_t *jpg, size_t len, int *w, int *h)
{
	int sub, cs;
	if (tjDecompressHeader3(tjd, jpg, (unsigned long)len, w, h, &sub, &cs))
		return -1;
	uint8_t *rgb = malloc((size_t)*w * *h * 3);
	int rc = tjDecompress2(tjd, jpg, (unsigned long)len, rgb, *w, 0, *h, TJPF_RGB, 0);
	free(rgb);
	return rc ? -1 : 0;
}

static void rm_rf(const char *path)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", path);
}

/* FNV-1a over every image's stored bytes and dimensions. */
static uint64_t sizes_digest(const struct ts_dataset_meta *a)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (uint64_t i = 0; i < a->samples; i++) {
		uint64_t v = (uint64_t)a->bytes[i] << 32 | (uint64_t)a->width[i] << 16 | a->height[i];
		h = (h ^ v) * 0x100000001b3ULL;
	}
	return h;
}

static void describe_model(void)
{
	struct ts_dataset_meta a, b;
	struct ts_dataset_config c = cfg_of(0, 1);
	char err[256];

	/* full size: 1,281,167 images in 1,000 classes, ~140 GB of JPEG */
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_JPEG, &c, &a, err, sizeof(err)) == 0);
	/* every image's size and dimensions, to the byte, as the size model
	 * drew them before its draws were made cheaper (guide buckets, the
	 * settings' pick as a count, the rounding without a branch, the
	 * lognormal from tables with libm's value where it decides): a
	 * change of the stream changes every printed figure */
	CHECK_EQ_U64(a.sample_bytes, 139894845988ULL);
	CHECK_EQ_U64(sizes_digest(&a), 0x4ed5305542a61294ULL);
	CHECK_EQ_U64(a.count, 1281167);
	CHECK_EQ_U64(a.classes, 1000);
	CHECK_NEAR(a.total_bytes, 140e9, 0.01);
	uint64_t per[1000] = { 0 }, wsum = 0, hsum = 0;
	for (uint64_t i = 0; i < a.samples; i++) {
		per[a.img_label[i]]++;
		wsum += a.width[i];
		hsum += a.height[i];
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int k = 0; k < 1000; k++) {
		lo = per[k] < lo ? per[k] : lo;
		hi = per[k] > hi ? per[k] : hi;
	}
	CHECK(lo >= 700 && hi <= 1320); /* ILSVRC2012: 732 .. 1,300 per class */
	CHECK_NEAR((double)wsum / a.samples, 469, 0.02); /* average 469x387 */
	CHECK_NEAR((double)hsum / a.samples, 387, 0.02);
	/* the path's length, computed, is the path's: every class, file
	 * numbers of 1 to 4 digits */
	char rel[160];
	for (uint64_t i = 0; i < a.samples; i += 3) {
		ts_dataset_sample_path(&a, i, rel, sizeof(rel));
		CHECK_EQ_U64(ts_dataset_sample_path_len(&a, i), strlen(rel));
	}
	ts_dataset_meta_free(&a);
	c = cfg_of(3000, 1);
	cfg_set(&c, "val", "2000"); /* and the val tree's names */
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_JPEG, &c, &a, err, sizeof(err)) == 0);
	CHECK(a.samples == 5000);
	for (uint64_t i = 0; i < a.samples; i++) {
		ts_dataset_sample_path(&a, i, rel, sizeof(rel));
		CHECK_EQ_U64(ts_dataset_sample_path_len(&a, i), strlen(rel));
	}
	ts_dataset_meta_free(&a);

	c = cfg_of(0, 1);
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_REC, &c, &a, err, sizeof(err)) == 0);
	CHECK_NEAR(a.files[0].bytes, 93e9, 0.01); /* train.rec: the study's 93 GB */
	CHECK_EQ_U64(a.sample_bytes, 93055859748ULL);
	CHECK_EQ_U64(sizes_digest(&a), 0xcd15d83aad933971ULL);
	ts_dataset_meta_free(&a);

	/* raw LMDB: 196,608 pixel bytes + the Datum fields per entry */
	c = cfg_of(3000, 1);
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_LMDB, &c, &a, err, sizeof(err)) == 0);
	/* label < 128: a 1-byte varint, else 2 */
	uint64_t bad = 0;
	for (uint64_t j = 0; j < a.samples; j++)
		bad += a.bytes[j] != (a.label[j] < 128 ? 196624u : 196625u);
	CHECK_EQ_U64(bad, 0);
	ts_dataset_meta_free(&a);

	/* at 3,000 images the mean is within 5% of ImageNet's 109,274 B */
	c = cfg_of(3000, 5);
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_JPEG, &c, &a, err, sizeof(err)) == 0);
	CHECK_NEAR((double)a.sample_bytes / a.samples, 109274, 0.05);
	CHECK_EQ_U64(a.classes, 300);
	/* deterministic; another seed differs */
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_JPEG, &c, &b, err, sizeof(err)) == 0);
	CHECK(memcmp(a.bytes, b.bytes, a.samples * 4) == 0);
	CHECK(memcmp(a.img_fileno, b.img_fileno, a.samples * 4) == 0);
	ts_dataset_meta_free(&b);
	c.seed = 6;
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_JPEG, &c, &b, err, sizeof(err)) == 0);
	CHECK(memcmp(a.bytes, b.bytes, a.samples * 4) != 0);
	ts_dataset_meta_free(&b);
	ts_dataset_meta_free(&a);

	/* refused configurations, each with a line saying why */
	c = cfg_of(10, 1);
	cfg_set(&c, "val", "5");
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_LMDB, &c, &a, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "--val") != NULL);
	c = cfg_of(10, 1);
	cfg_set(&c, "classes", "11");
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_JPEG, &c, &a, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "--classes 11") != NULL);
	c = cfg_of(10, 1);
	cfg_set(&c, "encoded", "true");
	CHECK(ts_dataset_meta_describe(TS_DS_PTB_TEXT, &c, &a, err, sizeof(err)) == -EINVAL);
}

/* Every file of @meta in @dir: exact size, decodes to its dimensions. */
static void check_jpeg_tree(const char *dir, const struct ts_dataset_meta *m)
{
	char rel[160], path[512];
	double sum = 0;

	for (uint64_t i = 0; i < m->samples; i++) {
		size_t len;
		int w, h;
		ts_dataset_sample_path(m, i, rel, sizeof(rel));
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		uint8_t *b = slurp(path, &len);
		CHECK(b != NULL);
		if (!b)
			continue;
		CHECK_EQ_U64(len, m->bytes[i]);
		CHECK(decode(b, len, &w, &h) == 0);
		CHECK(w == m->width[i] && h == m->height[i]);
		sum += (double)len;
		free(b);
	}
	/* 30 images: the mean stays within 45% of 109,274 B */
	CHECK_NEAR(sum / (double)m->samples, 109274, 0.45);
}

static int same_tree(const char *a, const char *b)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "diff -r -q -x dataset.json '%s' '%s' >/dev/null", a, b);
	return system(cmd) == 0;
}

static void jpeg_tree(void)
{
	struct ts_dataset_config c = cfg_of(24, 42);
	struct ts_dataset_meta m, o;
	struct ts_dataset_stats st;
	char d1[256], d2[256], d3[256], err[512];

	cfg_set(&c, "val", "6");
	cfg_set(&c, "classes", "4");
	snprintf(d1, sizeof(d1), "%s/jpeg1", root);
	snprintf(d2, sizeof(d2), "%s/jpeg2", root);
	snprintf(d3, sizeof(d3), "%s/jpeg3", root);
	CHECK(ts_dataset_make(TS_DS_IMAGENET_JPEG, &c, d1, &st, err, sizeof(err)) == 0);
	CHECK_EQ_U64(st.samples, 30);
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_JPEG, &c, &m, err, sizeof(err)) == 0);
	check_jpeg_tree(d1, &m);
	char p[512], cls[10];
	ts_dataset_class_name(0, cls);
	CHECK(strcmp(cls, "n01440764") == 0);
	snprintf(p, sizeof(p), "%s/val/%s", d1, cls);
	CHECK(access(p, F_OK) == 0);
	/* the manifest reads back to the same description */
	CHECK(ts_dataset_open(d1, &o, err, sizeof(err)) == 0);
	CHECK_EQ_U64(o.total_bytes, m.total_bytes);
	CHECK(o.samples == m.samples && memcmp(o.bytes, m.bytes, m.samples * 4) == 0);
	ts_dataset_meta_free(&o);
	ts_dataset_meta_free(&m);

	/* same seed, one thread: the same bytes; another seed: others */
	c.threads = 1;
	CHECK(ts_dataset_make(TS_DS_IMAGENET_JPEG, &c, d2, &st, err, sizeof(err)) == 0);
	CHECK(same_tree(d1, d2));
	c.threads = 2;
	c.seed = 43;
	CHECK(ts_dataset_make(TS_DS_IMAGENET_JPEG, &c, d3, &st, err, sizeof(err)) == 0);
	CHECK(!same_tree(d1, d3));

	/* a raised stop flag ends generation with -EINTR and no manifest */
	volatile sig_atomic_t stop = 1;
	char d4[256];
	snprintf(d4, sizeof(d4), "%s/jpeg4", root);
	c.stop = &stop;
	CHECK(ts_dataset_make(TS_DS_IMAGENET_JPEG, &c, d4, &st, err, sizeof(err)) == -EINTR);
	CHECK(strstr(err, "interrupted") != NULL);
	snprintf(p, sizeof(p), "%s/dataset.json", d4);
	CHECK(access(p, F_OK) != 0);
	c.stop = NULL;
	rm_rf(d4);

	/* a failed make (here a file size limit, as a full disk would) removes
	 * what it wrote, and the directories it created */
	struct rlimit lim;
	char d5[256];
	snprintf(d5, sizeof(d5), "%s/jpeg5/made", root);
	CHECK(getrlimit(RLIMIT_FSIZE, &lim) == 0);
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit small = { 4096, lim.rlim_max };
	CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
	CHECK(ts_dataset_make(TS_DS_IMAGENET_JPEG, &c, d5, &st, err, sizeof(err)) == -EFBIG);
	CHECK(strstr(err, "removed what was written") != NULL);
	snprintf(p, sizeof(p), "%s/jpeg5", root);
	CHECK(access(p, F_OK) != 0);
	/* into an empty directory it was given: that stays, emptied */
	CHECK(mkdir(p, 0755) == 0);
	CHECK(ts_dataset_make(TS_DS_IMAGENET_LMDB, &c, p, &st, err, sizeof(err)) < 0);
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	CHECK(rmdir(p) == 0);

	/* a non-empty directory is refused, naming it */
	CHECK(ts_dataset_make(TS_DS_IMAGENET_JPEG, &c, d3, &st, err, sizeof(err)) == -EEXIST);
	CHECK(strstr(err, d3) != NULL);
	/* a manifest from elsewhere is refused */
	snprintf(p, sizeof(p), "%s/dataset.json", d3);
	FILE *f = fopen(p, "w");
	fputs("{\"format\": \"tiersim-dataset\", \"version\": 99}", f);
	fclose(f);
	CHECK(ts_dataset_open(d3, &o, err, sizeof(err)) == TS_E_VERSION);
	CHECK(strstr(err, "dataset.json") != NULL);
	rm_rf(d2);
	rm_rf(d3);
}

static void lmdb(bool encoded)
{
	struct ts_dataset_config c = cfg_of(encoded ? 8 : 12, 9);
	struct ts_dataset_meta m;
	struct ts_dataset_stats st;
	char d[256], p[512], err[512], key[160];
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_cursor *cur;
	MDB_val k, v;
	struct stat sb;

	cfg_set(&c, "encoded", encoded ? "true" : "false");
	snprintf(d, sizeof(d), "%s/lmdb%d", root, encoded);
	CHECK(ts_dataset_make(TS_DS_IMAGENET_LMDB, &c, d, &st, err, sizeof(err)) == 0);
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_LMDB, &c, &m, err, sizeof(err)) == 0);
	snprintf(p, sizeof(p), "%s/train_lmdb", d);
	CHECK(mdb_env_create(&env) == 0);
	CHECK(mdb_env_open(env, p, MDB_RDONLY, 0664) == 0);
	CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
	CHECK(mdb_dbi_open(txn, NULL, 0, &dbi) == 0);
	CHECK(mdb_cursor_open(txn, dbi, &cur) == 0);
	uint64_t j = 0;
	int rc;
	while ((rc = mdb_cursor_get(cur, &k, &v, j ? MDB_NEXT : MDB_FIRST)) == 0) {
		struct ts_datum dt;
		CHECK(j < m.samples);
		if (j >= m.samples)
			break;
		ts_dataset_lmdb_key(&m, j, key, sizeof(key));
		CHECK(k.mv_size == strlen(key) && memcmp(k.mv_data, key, k.mv_size) == 0);
		CHECK_EQ_U64(v.mv_size, m.bytes[j]);
		CHECK(ts_datum_decode(&dt, v.mv_data, v.mv_size) == 0);
		CHECK(dt.label == m.label[j] && dt.encoded == encoded);
		if (encoded) {
			int w, h;
			CHECK(decode(dt.data, dt.data_len, &w, &h) == 0);
			CHECK(w == m.width[j] && h == m.height[j]);
		} else {
			CHECK(dt.channels == 3 && dt.height == 256 && dt.width == 256);
			CHECK_EQ_U64(dt.data_len, 196608);
		}
		j++;
	}
	CHECK(rc == MDB_NOTFOUND);
	CHECK_EQ_U64(j, m.samples);
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	mdb_env_close(env);
	/* the file-size estimate of describe is close */
	snprintf(p, sizeof(p), "%s/train_lmdb/data.mdb", d);
	CHECK(stat(p, &sb) == 0);
	CHECK_NEAR(sb.st_size, m.files[0].bytes, 0.05);
	ts_dataset_meta_free(&m);
	rm_rf(d);
}

static void rec(void)
{
	struct ts_dataset_config c = cfg_of(12, 3);
	struct ts_dataset_meta m;
	struct ts_dataset_stats st;
	struct ts_rec_index ix;
	char d[256], p[512], err[512];
	size_t len;

	snprintf(d, sizeof(d), "%s/rec", root);
	CHECK(ts_dataset_make(TS_DS_IMAGENET_REC, &c, d, &st, err, sizeof(err)) == 0);
	CHECK(ts_dataset_meta_describe(TS_DS_IMAGENET_REC, &c, &m, err, sizeof(err)) == 0);
	snprintf(p, sizeof(p), "%s/train.rec", d);
	uint8_t *b = slurp(p, &len);
	CHECK(b != NULL);
	if (!b)
		return;
	CHECK_EQ_U64(len, m.sample_bytes);
	snprintf(p, sizeof(p), "%s/train.idx", d);
	CHECK(ts_rec_index_load(&ix, p, len, err, sizeof(err)) == 0);
	CHECK_EQ_U64(ix.count, m.samples);
	uint64_t off = 0;
	for (size_t j = 0; j < ix.count && j < m.samples; j++) {
		struct ts_rec_irheader h;
		size_t used, img;
		int w, hh;
		CHECK_EQ_U64(ix.offset[j], off);
		CHECK_EQ_U64(ix.key[j], m.order[j]);
		CHECK_EQ_U64(ix.length[j], m.bytes[j]);
		uint8_t *pl = malloc(ix.length[j]);
		ssize_t n = ts_rec_decode(b + ix.offset[j], ix.length[j], pl, ix.length[j], &used);
		CHECK(n > 0 && used == ix.length[j]);
		CHECK(ts_rec_irheader_unpack(&h, pl, (size_t)n, &img) == 0);
		CHECK(h.id == m.order[j] && h.label == (float)m.label[j] && h.flag == 0);
		CHECK(decode(pl + img, (size_t)n - img, &w, &hh) == 0);
		CHECK(w == m.width[j] && hh == m.height[j]);
		CHECK(w == 480 || hh == 480); /* im2rec --resize 480 */
		free(pl);
		off += m.bytes[j];
	}
	ts_rec_index_free(&ix);
	ts_dataset_meta_free(&m);
	free(b);
	rm_rf(d);
}

static void text(void)
{
	struct ts_dataset_config c = cfg_of(20000, 4);
	struct ts_dataset_meta m;
	struct ts_dataset_stats st;
	struct ts_vocab v;
	char d[256], p[512], err[512];

	c.threads = 0;
	snprintf(d, sizeof(d), "%s/ptb", root);
	CHECK(ts_dataset_make(TS_DS_PTB_TEXT, &c, d, &st, err, sizeof(err)) == 0);
	CHECK(ts_dataset_meta_describe(TS_DS_PTB_TEXT, &c, &m, err, sizeof(err)) == 0);
	CHECK(ts_vocab_init(&v, TS_PTB_VOCAB) == 0);
	CHECK_EQ_U64(m.words[0], 20000);
	CHECK_EQ_U64(m.words[1], (20000 * 70390 + 887521 / 2) / 887521);
	/* every word from the 10k vocabulary; <unk> and N present */
	uint8_t *seen = calloc(TS_PTB_VOCAB, 1);
	size_t distinct = 0;
	bool unk = false, num = false;
	for (int s = 0; s < 3; s++) {
		size_t len;
		snprintf(p, sizeof(p), "%s/%s", d, m.files[s].path);
		char *t = (char *)slurp(p, &len);
		CHECK(t != NULL);
		if (!t)
			continue;
		CHECK_EQ_U64(len, m.files[s].bytes);
		uint64_t words = 0, lines = 0;
		char *save = NULL, *line;
		t = realloc(t, len + 1);
		t[len] = 0;
		CHECK(len > 2 && t[0] == ' ' && t[len - 1] == '\n' && t[len - 2] == ' ');
		for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *s2 = NULL;
			lines++;
			for (char *w = strtok_r(line, " ", &s2); w; w = strtok_r(NULL, " ", &s2)) {
				uint32_t r = 0;
				while (r < v.size && strcmp(v.word[r], w))
					r++; /* slow, but the corpus is small */
				CHECK(r < v.size);
				if (r < v.size && !seen[r]++)
					distinct++;
				unk |= !strcmp(w, "<unk>");
				num |= !strcmp(w, "N");
				words++;
			}
		}
		CHECK_EQ_U64(words, m.words[s]);
		CHECK_EQ_U64(lines, m.lines[s]);
		free(t);
	}
	CHECK(distinct <= TS_PTB_VOCAB && distinct > 2000);
	CHECK(unk && num);
	/* mean sentence length near the real corpus's 21.1 words */
	CHECK_NEAR((double)m.words[0] / m.lines[0], 21.1, 0.1);
	free(seen);
	ts_vocab_free(&v);
	ts_dataset_meta_free(&m);
	rm_rf(d);
}

int main(void)
{
	if (!mkdtemp(root))
		return 1;
	tjd = tjInitDecompress();
	describe_model();
	jpeg_tree();
	lmdb(false);
	lmdb(true);
	rec();
	text();
	tjDestroy(tjd);
	rm_rf(root);
	return tc_exit();
}
