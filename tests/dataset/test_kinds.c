/*
 * test_kinds.c — the registry of dataset kinds and the ops contract: the
 * registry refuses an ops table of another version or with a hook missing,
 * naming the kind; every registered kind round-trips describe -> generate ->
 * verify on a small dataset, and verify refuses a dataset that is not what
 * the description says; a kind outside the registry (a null kind, as a new
 * format would be before its registry line) goes through the same driver.
 */
#include <errno.h>
#include <ftw.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/dataset.h"
#include "pipeline/source.h"
#include "tests/dataset/ds_config.h"
#include "tests/tcheck.h"

static char root[] = "/tmp/ts_kinds_XXXXXX";

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

static void rm_rf(const char *p)
{
	nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The largest regular file under the dataset but its manifest. */
static char largest[4096];
static off_t largest_size;
static int find_largest(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	if (flag == FTW_F && strcmp(p + ftw->base, "dataset.json") && sb->st_size > largest_size) {
		largest_size = sb->st_size;
		snprintf(largest, sizeof(largest), "%s", p);
	}
	return 0;
}

/* ---- the registry ------------------------------------------------------- */

/* Every hook and field the check requires, by where it sits in the table. */
static const struct {
	const char *name;
	size_t off, size;
	bool images_only;
} required[] = {
#define F(f, img)                                                                   \
	{ #f, offsetof(struct ts_dataset_ops, f), sizeof(((struct ts_dataset_ops *)0)->f), img }
	F(name, false),	    F(help, false),	F(opts, false),	   F(full_count, false),
	F(unit, false),	    F(source, false),	F(input, false),   F(describe, false),
	F(generate, false), F(verify, false),	F(storage, false), F(sample_name, true),
	F(sample_column, true),
#undef F
};

static void registry(void)
{
	char err[512];
	const struct ts_dataset_ops *k;
	size_t n = 0;

	for (size_t i = 0; (k = ts_dataset_kind_at(i)); i++, n++) {
		CHECK(ts_dataset_check(k, err, sizeof(err)) == 0);
		CHECK(ts_dataset_find(k->name, err, sizeof(err)) == k);
		/* its reader is a loader source, found by its name */
		CHECK(ts_source_check(k->source, err, sizeof(err)) == 0);
		CHECK(ts_source_find(k->source->name, err, sizeof(err)) == k->source);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(ts_dataset_kind_at(j)->name, k->name) != 0);
	}
	CHECK(n >= 4);
	CHECK(ts_dataset_find("imagenet-png", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "imagenet-png") != NULL);
	for (size_t i = 0; (k = ts_dataset_kind_at(i)); i++)
		CHECK(strstr(err, k->name) != NULL); /* the miss lists every known kind */

	/* another version: refused, naming the kind */
	struct ts_dataset_ops bad = *TS_DS_IMAGENET_REC;
	bad.version = TS_DATASET_OPS_VERSION + 1;
	err[0] = 0;
	CHECK(ts_dataset_check(&bad, err, sizeof(err)) == TS_E_VERSION);
	CHECK(strstr(err, "imagenet-rec") != NULL);

	/* each required hook or field missing: refused, naming kind and hook */
	for (size_t i = 0; (k = ts_dataset_kind_at(i)); i++) {
		for (size_t h = 0; h < TS_ARRAY_SIZE(required); h++) {
			bad = *k;
			memset((char *)&bad + required[h].off, 0, required[h].size);
			err[0] = 0;
			int rc = ts_dataset_check(&bad, err, sizeof(err));
			bool images = k->caps & TS_DS_IMAGES;
			if (required[h].images_only && !images) {
				CHECK(rc == 0);
				continue;
			}
			CHECK(rc == -EINVAL);
			CHECK(strstr(err, required[h].name) != NULL);
			if (strcmp(required[h].name, "name"))
				CHECK(strstr(err, k->name) != NULL);
		}
	}
	/* an option it takes must be a kind's own, agree with another kind's
	 * of that name, and lie inside its struct */
	static const struct ts_opt common[] = { { "count", TS_OPT_U64, 0, "0" }, { NULL } };
	static const struct ts_opt other[] = { { "classes", TS_OPT_U64, 0, "7" }, { NULL } };
	static const struct ts_opt list[] = { { "words", TS_OPT_LIST, 0 }, { NULL } };
	bad = *TS_DS_IMAGENET_JPEG;
	bad.opts = common;
	CHECK(ts_dataset_check(&bad, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "'count' is one every kind takes") != NULL);
	bad.opts = other;
	CHECK(ts_dataset_check(&bad, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "'classes' differs") != NULL);
	bad.opts = list;
	CHECK(ts_dataset_check(&bad, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "'words' is not a bool") != NULL);
	bad = *TS_DS_IMAGENET_JPEG;
	bad.opts_size = 8; /* classes lies past it */
	CHECK(ts_dataset_check(&bad, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "'classes' lies outside") != NULL);

	/* a bad table is refused before anything is written */
	struct ts_dataset_config c = cfg_of(3, 1);
	struct ts_dataset_stats st;
	char d[512];
	bad = *TS_DS_IMAGENET_JPEG;
	bad.verify = NULL;
	snprintf(d, sizeof(d), "%s/refused", root);
	CHECK(ts_dataset_make(&bad, &c, d, &st, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "verify") != NULL);
	CHECK(access(d, F_OK) != 0);
}

/* ---- every kind round-trips ---------------------------------------------- */

static void round_trip(const struct ts_dataset_ops *k)
{
	/* small: images, or train words for a text kind */
	struct ts_dataset_config c =
		cfg_of(k->caps & TS_DS_IMAGES ? 7 : !strcmp(k->unit, "files") ? 5 : 4000, 11);
	struct ts_dataset_meta desc, back, other;
	struct ts_dataset_stats st;
	char d[512], err[512];

	snprintf(d, sizeof(d), "%s/%s", root, k->name);
	CHECK(ts_dataset_meta_describe(k, &c, &desc, err, sizeof(err)) == 0);
	CHECK(desc.kind == k);
	CHECK_EQ_U64(desc.count, c.count);
	CHECK(desc.total_bytes > 0);
	CHECK(!(k->caps & TS_DS_IMAGES) || desc.samples == c.count);
	CHECK(access(d, F_OK) != 0); /* describing wrote nothing */

	if (ts_dataset_make(k, &c, d, &st, err, sizeof(err))) {
		fprintf(stderr, "%s: make: %s\n", k->name, err);
		CHECK(0);
		ts_dataset_meta_free(&desc);
		return;
	}
	CHECK_EQ_U64(st.samples, c.count);
	/* what it reads back is what it described */
	CHECK(ts_dataset_open(d, &back, err, sizeof(err)) == 0);
	CHECK(back.kind == k);
	CHECK_EQ_U64(back.samples, desc.samples);
	CHECK_EQ_U64(back.nfiles, desc.nfiles);
	CHECK(back.samples == desc.samples && back.fixed_bytes == desc.fixed_bytes &&
	      !back.bytes == !desc.bytes &&
	      (!desc.samples || !desc.bytes ||
	       !memcmp(back.bytes, desc.bytes, desc.samples * sizeof(*desc.bytes))));
	CHECK(ts_dataset_verify(d, err, sizeof(err)) == 0);
	ts_dataset_meta_free(&back);

	/* the same files against another seed's description: refused */
	c.seed = 12;
	CHECK(ts_dataset_meta_describe(k, &c, &other, err, sizeof(err)) == 0);
	err[0] = 0;
	CHECK(k->verify(&other, d, err, sizeof(err)) != 0);
	CHECK(strstr(err, d) != NULL);
	ts_dataset_meta_free(&other);

	/* the head of its largest file overwritten (a JPEG's markers, LMDB's
	 * meta page, the first record's frame, the first words): refused */
	largest_size = -1;
	nftw(d, find_largest, 16, FTW_PHYS);
	CHECK(largest_size > 64);
	FILE *f = fopen(largest, "r+");
	CHECK(f != NULL);
	if (f) {
		static const char zeros[64];
		CHECK(fwrite(zeros, 1, sizeof(zeros), f) == sizeof(zeros));
		fclose(f);
	}
	err[0] = 0;
	CHECK(ts_dataset_verify(d, err, sizeof(err)) != 0);
	CHECK(strstr(err, d) != NULL);

	/* a file gone: refused, naming it */
	CHECK(unlink(largest) == 0);
	err[0] = 0;
	CHECK(ts_dataset_verify(d, err, sizeof(err)) != 0);
	CHECK(strstr(err, d) != NULL);
	ts_dataset_meta_free(&desc);
	rm_rf(d);
}

/* ---- a kind outside the registry ------------------------------------------ */

/* The null kind: one file of count bytes, byte j being ts_null_byte(0, j). */
static int null_describe(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
		     char *err, size_t errlen)
{
	(void)cfg;
	(void)err;
	(void)errlen;
	meta->files = calloc(1, sizeof(*meta->files));
	if (!meta->files || !(meta->files[0].path = strdup("null.bin")))
		return -ENOMEM;
	meta->nfiles = 1;
	meta->files[0].bytes = meta->count;
	meta->total_bytes = meta->count;
	return 0;
}

static int null_generate(const struct ts_dataset_meta *meta, const struct ts_dataset_config *cfg,
			 const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen)
{
	char p[4096];
	(void)cfg;
	snprintf(p, sizeof(p), "%s/null.bin", dir);
	FILE *f = fopen(p, "wx");
	if (!f)
		return snprintf(err, errlen, "%s: cannot create", p), -errno;
	for (uint64_t j = 0; j < meta->count; j++)
		fputc(ts_null_byte(0, (uint32_t)j), f);
	st->samples = meta->count;
	return fclose(f) ? -errno : 0;
}

static int null_verify(const struct ts_dataset_meta *meta, const char *dir, char *err,
		       size_t errlen)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/null.bin", dir);
	FILE *f = fopen(p, "r");
	uint64_t j = 0;
	int ch;
	if (!f)
		return snprintf(err, errlen, "%s: missing", p), -ENOENT;
	while ((ch = fgetc(f)) != EOF && j < meta->count && ch == ts_null_byte(0, (uint32_t)j))
		j++;
	fclose(f);
	if (j != meta->count || ch != EOF)
		return snprintf(err, errlen, "%s: byte %llu differs", p, (unsigned long long)j),
		       TS_E_CORRUPT;
	return 0;
}

static void null_storage(const struct ts_dataset_meta *meta, char *out, size_t n)
{
	(void)meta;
	snprintf(out, n, "one file of pattern bytes");
}

static const struct ts_opt null_opts[] = { { NULL } };

static const struct ts_dataset_ops null_kind = {
	.name = "null",
	.version = TS_DATASET_OPS_VERSION,
	.help = "pattern bytes",
	.opts = null_opts,
	.full_count = 4096,
	.unit = "bytes",
	.source = &ts_source_null,
	.input = "null.bin",
	.describe = null_describe,
	.generate = null_generate,
	.verify = null_verify,
	.storage = null_storage,
};

static void unregistered(void)
{
	struct ts_dataset_config c = cfg_of(0, 1);
	struct ts_dataset_meta m;
	struct ts_dataset_stats st;
	char d[512], p[600], err[512];

	snprintf(d, sizeof(d), "%s/null", root);
	CHECK(ts_dataset_check(&null_kind, err, sizeof(err)) == 0);
	CHECK(ts_dataset_meta_describe(&null_kind, &c, &m, err, sizeof(err)) == 0);
	CHECK_EQ_U64(m.count, 4096); /* count 0 is the full size */
	CHECK(null_kind.verify(&m, d, err, sizeof(err)) == -ENOENT);
	CHECK(ts_dataset_make(&null_kind, &c, d, &st, err, sizeof(err)) == 0);
	CHECK(null_kind.verify(&m, d, err, sizeof(err)) == 0);
	ts_dataset_meta_free(&m);
	snprintf(p, sizeof(p), "%s/dataset.json", d);
	CHECK(access(p, F_OK) == 0);
	/* an option the kind does not take is refused, naming who takes it */
	cfg_set(&c, "encoded", "true");
	CHECK(ts_dataset_meta_describe(&null_kind, &c, &m, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "--encoded is for imagenet-lmdb") != NULL);
	/* its manifest names a kind this build does not register */
	CHECK(ts_dataset_open(d, &m, err, sizeof(err)) == TS_E_FORMAT);
	CHECK(strstr(err, "unknown kind 'null'") != NULL && strstr(err, "imagenet-jpeg") != NULL);
	ts_dataset_meta_free(&m);
	rm_rf(d);
}

int main(void)
{
	const struct ts_dataset_ops *k;

	if (!mkdtemp(root))
		return 1;
	registry();
	for (size_t i = 0; (k = ts_dataset_kind_at(i)); i++)
		round_trip(k);
	unregistered();
	rm_rf(root);
	return tc_exit();
}
