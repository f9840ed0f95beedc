/*
 * ds_ptb_text.c — the ptb-text kind: a PennTreeBank-like word corpus in
 * the shape of Mikolov's preprocessed PTB (simple-examples/data), as
 * ptb.{train,valid,test}.txt (textgen.h); --count is the train words, and
 * valid and test keep the real corpus's proportions to it.
 *
 * Its reader, the loader source "text": a word-level language-model corpus
 * read as TensorFlow's PTB tutorial reads it (tensorflow/models
 * tutorials/rnn/ptb/reader.py): the file is split into words with "<eos>"
 * at each line end (the reader replaces "\n" by "<eos>" and splits on
 * spaces, which is the same for PTB's " word word \n" lines; here a word
 * touching the line end stays a word of its own), words are numbered by
 * falling frequency (ties by spelling), the id stream is cut into `batch`
 * rows of batch_len = len / batch ids, and step i of an epoch is columns
 * [i*seq_len, (i+1)*seq_len) of every row, with its target shifted one word
 * on. epoch_size = (batch_len - 1) / seq_len steps.
 *
 * Sample k = step k / batch, row k % batch, so the loader's batch k is
 * exactly the reader's step k. Each sample is seq_len + 1 token ids
 * (uint32): the input and, shifted by one, the target.
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
#include "pipeline/ds_kind.h"
#include "pipeline/loader.h"
#include "pipeline/source.h"
#include "pipeline/textgen.h"

static const char *const split_file[3] = { "ptb.train.txt", "ptb.valid.txt", "ptb.test.txt" };

static int ptb_describe(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
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

static const struct ts_opt text_opts[] = { { NULL } };


/* ---- the reader: source "text" ----------------------------------------- */

struct word {
	uint32_t name; /* offset in text->names */
	uint32_t count;
	uint32_t id;
};

struct text {
	char *path;
	char *names;
	size_t names_len, names_cap;
	struct word *w;
	uint32_t nw, cap_w;
	uint32_t *hash; /* open addressing: index + 1 into w, 0 = empty */
	uint32_t hcap;
	uint32_t *ids;	/* the corpus as word indices, then ids */
	uint64_t len, cap_ids;
	uint32_t *by_id; /* id → word index */
	uint64_t rows, batch_len, steps, seq;
};

static uint32_t fnv(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static int grow_hash(struct text *t)
{
	uint32_t cap = t->hcap ? t->hcap * 2 : 1 << 14;
	uint32_t *h = calloc(cap, sizeof *h);
	if (!h)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->nw; i++) {
		const char *s = t->names + t->w[i].name;
		uint32_t k = fnv(s, strlen(s)) & (cap - 1);
		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hcap = cap;
	return 0;
}

/* Index of the word s[0..n), added when new; -ENOMEM on failure. */
static int64_t intern(struct text *t, const char *s, size_t n)
{
	if ((uint64_t)(t->nw + 1) * 2 > t->hcap && grow_hash(t))
		return -ENOMEM;
	uint32_t k = fnv(s, n) & (t->hcap - 1);
	while (t->hash[k]) {
		struct word *w = &t->w[t->hash[k] - 1];
		const char *ws = t->names + w->name;
		if (!strncmp(ws, s, n) && ws[n] == 0)
			return t->hash[k] - 1;
		k = (k + 1) & (t->hcap - 1);
	}
	if (t->nw == t->cap_w) {
		uint32_t cap = t->cap_w ? t->cap_w * 2 : 4096;
		struct word *nw = realloc(t->w, cap * sizeof *nw);
		if (!nw)
			return -ENOMEM;
		t->w = nw;
		t->cap_w = cap;
	}
	if (t->names_len + n + 1 > t->names_cap) {
		size_t cap = t->names_cap ? t->names_cap * 2 : 1 << 16;
		while (cap < t->names_len + n + 1)
			cap *= 2;
		char *nn = realloc(t->names, cap);
		if (!nn)
			return -ENOMEM;
		t->names = nn;
		t->names_cap = cap;
	}
	memcpy(t->names + t->names_len, s, n);
	t->names[t->names_len + n] = 0;
	t->w[t->nw] = (struct word){ .name = (uint32_t)t->names_len };
	t->names_len += n + 1;
	t->hash[k] = t->nw + 1;
	return t->nw++;
}

static int push(struct text *t, const char *s, size_t n)
{
	int64_t i = intern(t, s, n);
	if (i < 0)
		return (int)i;
	if (t->len == t->cap_ids) {
		uint64_t cap = t->cap_ids ? t->cap_ids * 2 : 1 << 16;
		uint32_t *ni = realloc(t->ids, cap * sizeof *ni);
		if (!ni)
			return -ENOMEM;
		t->ids = ni;
		t->cap_ids = cap;
	}
	t->ids[t->len++] = (uint32_t)i;
	t->w[i].count++;
	return 0;
}

static int by_freq(const void *a, const void *b, void *arg)
{
	const struct text *t = arg;
	const struct word *x = &t->w[*(const uint32_t *)a];
	const struct word *y = &t->w[*(const uint32_t *)b];
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(t->names + x->name, t->names + y->name);
}

static void text_close(void *st)
{
	struct text *t = st;
	if (!t)
		return;
	free(t->path);
	free(t->names);
	free(t->w);
	free(t->hash);
	free(t->ids);
	free(t->by_id);
	free(t);
}

static int tokenize(struct text *t, const char *buf, size_t n)
{
	size_t i = 0;
	while (i < n) {
		char c = buf[i];
		if (c == '\n') {
			int rc = push(t, "<eos>", 5);
			if (rc)
				return rc;
			i++;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			i++;
		} else {
			size_t j = i;
			while (j < n && buf[j] != ' ' && buf[j] != '\t' && buf[j] != '\r' &&
			       buf[j] != '\n')
				j++;
			int rc = push(t, buf + i, j - i);
			if (rc)
				return rc;
			i = j;
		}
	}
	return 0;
}

static int text_open(const struct ts_source_ops *self, const struct ts_pipe_cfg *cfg,
		     void **st, char *err, size_t errlen)
{
	(void)self;
	if (!cfg->path || !*cfg->path) {
		snprintf(err, errlen, "source 'text' needs option 'path' (a text corpus file)");
		return -EINVAL;
	}
	struct text *t = calloc(1, sizeof *t);
	if (!t || !(t->path = strdup(cfg->path))) {
		free(t);
		return -ENOMEM;
	}
	int rc = 0;
	char *buf = NULL;
	int fd = open(cfg->path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb)) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot open the corpus: %s", cfg->path, ts_strerror(rc));
		goto out;
	}
	if (!(buf = malloc((size_t)sb.st_size + 1))) {
		rc = -ENOMEM;
		goto out;
	}
	size_t got = 0;
	while (got < (size_t)sb.st_size) {
		ssize_t r = pread(fd, buf + got, (size_t)sb.st_size - got, (off_t)got);
		if (r <= 0) {
			rc = r < 0 ? -errno : TS_E_TRUNCATED;
			snprintf(err, errlen, "%s: cannot read the corpus: %s", cfg->path,
				 rc == TS_E_TRUNCATED ? "file shrank while reading" : ts_strerror(rc));
			goto out;
		}
		got += (size_t)r;
	}
	if ((rc = tokenize(t, buf, got)))
		goto out;
	/* Ids by falling frequency, ties by spelling (the PTB reader's rule). */
	uint32_t *order = malloc((t->nw ? t->nw : 1) * sizeof *order);
	t->by_id = order;
	if (!order) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < t->nw; i++)
		order[i] = i;
	qsort_r(order, t->nw, sizeof *order, by_freq, t);
	for (uint32_t id = 0; id < t->nw; id++)
		t->w[order[id]].id = id;
	for (uint64_t i = 0; i < t->len; i++)
		t->ids[i] = t->w[t->ids[i]].id;
	t->rows = cfg->batch;
	t->seq = cfg->seq_len;
	t->batch_len = t->len / t->rows;
	t->steps = t->batch_len ? (t->batch_len - 1) / t->seq : 0;
	if (!t->steps) {
		snprintf(err, errlen,
			 "%s: %llu words are too few for batch %llu x seq_len %llu (need at least "
			 "batch * (seq_len + 1))",
			 cfg->path, (unsigned long long)t->len, (unsigned long long)t->rows,
			 (unsigned long long)t->seq);
		rc = -EINVAL;
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (rc) {
		text_close(t);
		return rc;
	}
	*st = t;
	return 0;
}

static uint64_t text_count(void *st)
{
	struct text *t = st;
	return t->steps * t->rows;
}

static uint64_t text_max_len(void *st)
{
	return (((struct text *)st)->seq + 1) * sizeof(uint32_t);
}

static int text_fetch(void *st, uint64_t i, void *buf, uint32_t cap, uint32_t *len,
		      int32_t *label)
{
	struct text *t = st;
	uint64_t step = i / t->rows, row = i % t->rows;
	uint32_t n = (uint32_t)((t->seq + 1) * sizeof(uint32_t));
	if (n > cap)
		return -ENOBUFS;
	memcpy(buf, t->ids + row * t->batch_len + step * t->seq, n);
	*len = n;
	*label = -1;
	return 0;
}

static void text_describe(void *st, uint64_t i, char *buf, size_t n)
{
	struct text *t = st;
	snprintf(buf, n, "%s step %llu row %llu", t->path, (unsigned long long)(i / t->rows),
		 (unsigned long long)(i % t->rows));
}

static const char *text_word(void *st, uint32_t id)
{
	struct text *t = st;
	return id < t->nw ? t->names + t->w[t->by_id[id]].name : NULL;
}

/* Virtual: the corpus is read whole at open (one pread through the mount,
 * which the kernel sends as requests of FUSE's default 32 pages); the
 * steps then come from memory. */
#define TEXT_FUSE_REQ (128u * 1024)

static int text_plan_open(const struct ts_source_ops *self, struct ts_vsource *vs,
		          char *err, size_t errlen)
{
	(void)self;
	const struct ts_dataset_meta *m = vs->meta;
	if (!m || !m->nfiles) {
		snprintf(err, errlen, "the dataset's description lists no corpus file");
		return -EINVAL;
	}
	const struct ts_dataset_file *f = &m->files[0];
	for (size_t i = 0; i < m->nfiles; i++)
		if (strstr(m->files[i].path, "train")) {
			f = &m->files[i];
			break;
		}
	uint64_t rows = vs->cfg->batch, seq = vs->cfg->seq_len;
	uint64_t batch_len = m->count / rows;
	uint64_t steps = batch_len ? (batch_len - 1) / seq : 0;
	if (!steps) {
		snprintf(err, errlen, "%s: %llu words are too few for batch %llu x seq_len %llu",
			 f->path, (unsigned long long)m->count, (unsigned long long)rows,
			 (unsigned long long)seq);
		return -EINVAL;
	}
	vs->count = steps * rows;
	vs->max_len = (seq + 1) * sizeof(uint32_t);
	vs->at_open = (struct ts_vsample){ .n = 1, .work = TS_VWORK_NONE, .len = f->bytes };
	vs->at_open.io[0] = (struct ts_vio){ .op = TS_VIO_READ, .file = 1, .len = f->bytes,
					     .size = f->bytes, .chunk = TEXT_FUSE_REQ };
	return 0;
}

static void text_plan_sample(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out)
{
	*out = (struct ts_vsample){ .work = TS_VWORK_NONE, .len = vs->max_len };
}

const struct ts_source_ops ts_source_text = {
	.name = "text",
	.version = TS_SOURCE_VERSION,
	.caps = TS_SRC_SEQUENTIAL,
	.open = text_open,
	.count = text_count,
	.max_len = text_max_len,
	.fetch = text_fetch,
	.describe = text_describe,
	.word = text_word,
	.close = text_close,
	.plan_open = text_plan_open,
	.plan_sample = text_plan_sample,
	.plan_close = ts_vsource_free,
};

const struct ts_dataset_ops ts_dataset_ptb_text = {
	.name = "ptb-text",
	.version = TS_DATASET_OPS_VERSION,
	.caps = 0,
	.help = "PennTreeBank-like ptb.{train,valid,test}.txt",
	.opts = text_opts,
	.full_count = TS_PTB_TRAIN_WORDS,
	.unit = "words",
	.source = &ts_source_text,
	.input = "ptb.train.txt",
	.describe = ptb_describe,
	.generate = text_generate,
	.verify = text_verify,
	.storage = text_storage,
};
