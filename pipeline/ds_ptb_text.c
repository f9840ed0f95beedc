/*
 * ds_ptb_text.c — the ptb-text kind: a PennTreeBank-like word corpus in
 * the shape of Mikolov's preprocessed PTB (simple-examples/data), as
 * ptb.{train,valid,test}.txt (textgen.h); --count is the train words, and
 * valid and test keep the real corpus's proportions to it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/dataset.h"
#include "pipeline/ds_kind.h"
#include "pipeline/textgen.h"

static const char *const split_file[3] = { "ptb.train.txt", "ptb.valid.txt", "ptb.test.txt" };

static int text_plan(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
		     char *err, size_t errlen)
{
	static const uint64_t full[3] = { TS_PTB_TRAIN_WORDS, TS_PTB_VALID_WORDS,
					  TS_PTB_TEST_WORDS };
	struct ts_vocab v;
	int rc;

	(void)cfg;
	if ((rc = ts_vocab_init(&v, TS_PTB_VOCAB)))
		return ts_ds_fail(err, errlen, rc, "vocabulary: %s", ts_strerror(rc));
	for (unsigned s = 0; s < 3; s++) {
		struct ts_text_counts c;
		/* valid and test keep the real corpus's proportions */
		uint64_t words = s == 0 ? meta->count
					: (meta->count * full[s] + full[0] / 2) / full[0];
		if (words == 0)
			words = 1;
		rc = ts_text_write(NULL, &v, meta->seed, s, words, &c);
		if (!rc)
			rc = ts_ds_add_file(meta, split_file[s], c.bytes, false);
		if (rc) {
			ts_ds_fail(err, errlen, rc, "describing ptb-text: %s", ts_strerror(rc));
			break;
		}
		meta->words[s] = c.words;
		meta->lines[s] = c.lines;
	}
	ts_vocab_free(&v);
	return rc;
}

static int text_generate(const struct ts_dataset_meta *meta, const struct ts_dataset_config *cfg,
			 const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen)
{
	struct ts_vocab v;
	char path[4096];
	int rc;

	(void)cfg;
	if ((rc = ts_vocab_init(&v, TS_PTB_VOCAB)))
		return ts_ds_fail(err, errlen, rc, "vocabulary: %s", ts_strerror(rc));
	for (unsigned s = 0; s < 3 && !rc; s++) {
		struct ts_text_counts c;
		snprintf(path, sizeof(path), "%s/%s", dir, meta->files[s].path);
		FILE *f = fopen(path, "wx");
		if (!f) {
			rc = ts_ds_fail(err, errlen, -errno, "%s: %s", path, ts_strerror(-errno));
			break;
		}
		rc = ts_text_write(f, &v, meta->seed, s, meta->words[s], &c);
		if (fclose(f) && !rc)
			rc = -errno;
		if (rc) {
			ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
			break;
		}
		if (c.bytes != meta->files[s].bytes)
			rc = ts_ds_fail(err, errlen, TS_E_CORRUPT,
					"%s: wrote %" PRIu64 " bytes where the model says %" PRIu64
					" (generator bug)",
					path, c.bytes, meta->files[s].bytes);
		if (s == 0)
			st->samples = c.words; /* train words, as --count */
	}
	st->threads = 1;
	ts_vocab_free(&v);
	return rc;
}

/* Each split, byte for byte what its seed makes. */
static int text_verify(const struct ts_dataset_meta *meta, const char *dir, char *err,
		       size_t errlen)
{
	struct ts_vocab v;
	char path[4096];
	int rc;

	if ((rc = ts_vocab_init(&v, TS_PTB_VOCAB)))
		return ts_ds_fail(err, errlen, rc, "vocabulary: %s", ts_strerror(rc));
	for (unsigned s = 0; s < 3 && !rc; s++) {
		struct ts_text_counts c;
		char *want = NULL;
		size_t wlen = 0, len;
		uint8_t *got;
		snprintf(path, sizeof(path), "%s/%s", dir, meta->files[s].path);
		if ((rc = ts_ds_slurp(path, &got, &len))) {
			ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
			break;
		}
		FILE *f = open_memstream(&want, &wlen);
		rc = f ? ts_text_write(f, &v, meta->seed, s, meta->words[s], &c) : -errno;
		if (f && fclose(f) && !rc)
			rc = -errno;
		if (rc)
			ts_ds_fail(err, errlen, rc, "%s: regenerating it: %s", path, ts_strerror(rc));
		else if (len != meta->files[s].bytes || len != wlen)
			rc = ts_ds_fail(err, errlen, TS_E_TRUNCATED,
					"%s: %zu bytes where the description says %" PRIu64, path,
					len, meta->files[s].bytes);
		else if (memcmp(got, want, len))
			rc = ts_ds_fail(err, errlen, TS_E_CORRUPT,
					"%s: differs from the text of seed %" PRIu64, path,
					meta->seed);
		free(want);
		free(got);
	}
	ts_vocab_free(&v);
	return rc;
}

static void text_storage(const struct ts_dataset_meta *meta, char *out, size_t n)
{
	(void)meta;
	snprintf(out, n, "one sentence per line, a %u-word vocabulary (incl. <unk> and N)",
		 TS_PTB_VOCAB);
}

static const char *const text_opts[] = { NULL };

const struct ts_dataset_ops ts_dataset_ptb_text = {
	.name = "ptb-text",
	.version = TS_DATASET_OPS_VERSION,
	.caps = 0,
	.help = "PennTreeBank-like ptb.{train,valid,test}.txt",
	.opts = text_opts,
	.full_count = TS_PTB_TRAIN_WORDS,
	.unit = "words",
	.source = "text",
	.input = "ptb.train.txt",
	.plan = text_plan,
	.generate = text_generate,
	.verify = text_verify,
	.storage = text_storage,
};
