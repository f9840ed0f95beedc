/*
 * ds_dlio.c — DLIO's datasets (the MLPerf Storage workloads' npz and
 * TFRecord files), described, written, verified and read; see ds_dlio.h.
 *
 * Sizes: each sample's payload is drawn from N(record_length,
 * record_length_stdev) with the dataset's seed, sample by sample in
 * storage order, rounded and kept within [1 B, 2 GiB) — DLIO draws its
 * sizes from the same normal distribution (its generators'
 * np.random.normal(record_length, record_length_stdev)). The payload is
 * pseudo-random bytes from the seed and the sample number (xoshiro256**),
 * as DLIO's are random, so nothing compresses or deduplicates them.
 *
 * The readers (DLIO's, as each kind's file says) find their layout in the
 * dataset's description (dataset.json, one folder above path = DIR/train),
 * which gives every sample's size to the byte; nothing is scanned. The same
 * layout drives virtual time (plan_open/plan_sample): the requests listed
 * there are the reads made here.
 */
#include "pipeline/ds_dlio.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/divu.h"
#include "core/rng.h"
#include "pipeline/dliofmt.h"
#include "pipeline/ds_kind.h"
#include "pipeline/loader.h"
#include "tier/fsmeta.h"

#define MAX_PAYLOAD ((1ull << 31) - 4096)
#define CHUNK (256u * 1024)

static unsigned digits(uint64_t v)
{
	unsigned d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

void ts_dlio_file_name(const struct ts_dataset_meta *meta, const char *ext, uint64_t f,
		       char *out, size_t n)
{
	snprintf(out, n, TS_DLIO_DIR "/img_%0*" PRIu64 "_of_%" PRIu64 ".%s",
		 (int)digits(meta->count), f, meta->count, ext);
}

/* DLIO's dataset section: the options both kinds take. */
const struct ts_opt ts_dlio_dataset_opts[] = {
	{ "samples_per_file", TS_OPT_U64, offsetof(struct ts_dlio_dataset_opts, samples_per_file), "0", 0,
	  1e7, "", "samples per file (DLIO num_samples_per_file); 0 = 1" },
	{ "record_length", TS_OPT_SIZE, offsetof(struct ts_dlio_dataset_opts, record_length), "0", 0,
	  2147483647.0, "bytes",
	  "mean bytes per sample (DLIO record_length); 0 = 64 KiB, DLIO's default" },
	{ "record_stdev", TS_OPT_SIZE, offsetof(struct ts_dlio_dataset_opts, record_stdev), "0", 0,
	  2147483647.0, "bytes", "standard deviation of the sample size (DLIO record_length_stdev)" },
	{ NULL },
};

/* The kind's file format: its ops' data. */
static const struct ts_dlio_fmt *fmt_of(const struct ts_dataset_meta *meta)
{
	return meta->kind->data;
}

/* A drawn size as a sample's payload: rounded, within [1 B, MAX_PAYLOAD]. */
static uint64_t payload_of(double v)
{
	return v < 1 ? 1 : v > (double)MAX_PAYLOAD ? MAX_PAYLOAD : (uint64_t)llround(v);
}

int ts_dlio_describe(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta, char *err,
		 size_t errlen)
{
	const struct ts_dlio_fmt *fmt = fmt_of(meta);
	(void)cfg;
	if (!fmt) /* every other hook runs on a meta this one filled */
		return ts_ds_fail(err, errlen, -EINVAL,
				  "dataset kind '%s': no DLIO file format (its ops' data)",
				  meta->kind->name);
	struct ts_dlio_dataset_opts *o = meta->own;
	meta->per_file = o->samples_per_file;
	if (fmt->max_per_file && meta->per_file > fmt->max_per_file)
		return ts_ds_fail(err, errlen, -EINVAL,
				  "%s: --samples_per_file %" PRIu64 ": this kind stores at most %"
				  PRIu64 " sample%s per file",
				  meta->kind->name, meta->per_file, fmt->max_per_file,
				  fmt->max_per_file == 1 ? "" : "s");
	if (!meta->per_file)
		meta->per_file = 1;
	o->samples_per_file = meta->per_file;
	if (!o->record_length)
		o->record_length = TS_DLIO_RECORD_LENGTH;
	uint64_t files = meta->count, per = meta->per_file;
	if (per > UINT32_MAX / files)
		return ts_ds_fail(err, errlen, -EINVAL,
				  "%" PRIu64 " files x %" PRIu64 " samples per file: more than "
				  "%u samples",
				  files, per, UINT32_MAX);
	if (o->record_length > MAX_PAYLOAD)
		return ts_ds_fail(err, errlen, -EINVAL, "--record_length %" PRIu64
				  " is more than a sample may hold (%llu bytes)",
				  o->record_length, MAX_PAYLOAD);
	meta->samples = files * per;
	struct ts_rng r;
	ts_rng_seed(&r, meta->seed);
	double mu = (double)o->record_length, sd = (double)o->record_stdev;
	/* One size for all (sd 0): kept once, not per sample (meta->fixed_bytes). */
	if (!(sd > 0))
		meta->fixed_bytes = (uint32_t)fmt->stored(payload_of(mu));
	/* read at random by a shuffled epoch's plan: on huge pages */
	else if (!(meta->bytes = ts_malloc_huge(meta->samples * sizeof(*meta->bytes))))
		return -ENOMEM;
	char path[256];
	for (uint64_t f = 0; f < files; f++) {
		uint64_t fbytes = (uint64_t)meta->fixed_bytes * per;
		for (uint64_t k = 0; meta->bytes && k < per; k++) {
			uint64_t s = fmt->stored(payload_of(mu + sd * ts_rng_normal(&r)));
			meta->bytes[f * per + k] = (uint32_t)s;
			fbytes += s;
		}
		meta->sample_bytes += fbytes;
		ts_dlio_file_name(meta, fmt->ext, f, path, sizeof(path));
		int rc = ts_ds_add_file(meta, path, fbytes, false);
		if (rc)
			return ts_ds_fail(err, errlen, rc, "describing %s: %s", path, ts_strerror(rc));
	}
	return 0;
}

uint64_t ts_dlio_payload_len(const struct ts_dlio_fmt *fmt, const struct ts_dataset_meta *meta,
			     uint64_t j)
{
	/* stored(n) = n + a framing that grows with the digits of n: search
	 * the framing sizes a sample can have */
	uint64_t s = ts_dataset_sample_len(meta, j);
	for (uint64_t k = 0; k < 512 && k < s; k++)
		if (fmt->stored(s - k) == s)
			return s - k;
	return 0;
}

int ts_dlio_payload(const struct ts_dataset_meta *meta, uint64_t j, uint64_t n,
		    struct ts_dlio_sink *s, uint32_t *crc32, uint32_t *crc32c)
{
	static _Thread_local uint64_t buf[CHUNK / 8];
	struct ts_rng r;
	ts_rng_seed(&r, meta->seed ^ (0x9e3779b97f4a7c15ull * (j + 1)));
	for (uint64_t done = 0; done < n;) {
		size_t len = (size_t)TS_MIN((uint64_t)CHUNK, n - done);
		for (size_t w = 0; w < (len + 7) / 8; w++)
			buf[w] = ts_rng_u64(&r);
		if (crc32)
			*crc32 = ts_crc32(*crc32, buf, len);
		if (crc32c)
			*crc32c = ts_crc32c(*crc32c, buf, len);
		int rc = s ? s->put(s, buf, len) : 0;
		if (rc)
			return rc;
		done += len;
	}
	return 0;
}

/* ---- image kinds ------------------------------------------------------------ */

static uint64_t isqrt(uint64_t n)
{
	uint64_t d = (uint64_t)sqrt((double)n);
	while (d * d > n)
		d--;
	while ((d + 1) * (d + 1) <= n)
		d++;
	return d;
}

/* One side as DLIO draws it: max(int(N(@dim, @sd)), 1). */
static double side(double dim, double sd, struct ts_rng *r)
{
	double v = sd > 0 ? dim + sd * ts_rng_normal(r) : dim;
	return v < 1 ? 1 : trunc(v);
}

int ts_dlio_image_describe(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
			   char *err, size_t errlen)
{
	int rc = ts_dlio_describe(cfg, meta, err, errlen);
	if (rc)
		return rc;
	const struct ts_dlio_fmt *fmt = fmt_of(meta);
	meta->width = malloc(meta->samples * sizeof(*meta->width));
	meta->height = malloc(meta->samples * sizeof(*meta->height));
	/* each image stores its own size, whatever record_stdev */
	if (!meta->bytes)
		meta->bytes = malloc(meta->samples * sizeof(*meta->bytes));
	meta->fixed_bytes = 0;
	if (!meta->width || !meta->height || !meta->bytes)
		return ts_ds_fail(err, errlen, -ENOMEM, "%" PRIu64 " image sizes: out of memory",
				  meta->samples);
	const struct ts_dlio_dataset_opts *o = meta->own;
	/* config.py: dimension = int(sqrt(record_length)), dimension_stdev =
	 * record_length_stdev / 2 / sqrt(record_length) */
	double rl = (double)o->record_length, dim = (double)isqrt(o->record_length);
	double sd = (double)o->record_stdev / 2.0 / sqrt(rl);
	struct ts_rng r;
	ts_rng_seed(&r, meta->seed);
	meta->sample_bytes = meta->total_bytes = 0;
	uint64_t per = meta->per_file; /* 1 but for hdf5 */
	for (uint64_t f = 0; f < meta->count; f++) { /* a file's images share their sides */
		double w = side(dim, sd, &r), h = side(dim, sd, &r);
		if (w > fmt->side_max || h > fmt->side_max)
			return ts_ds_fail(err, errlen, -EINVAL, "%s: an image of %.0f x %.0f "
					  "(record_length %" PRIu64 ", record_stdev %" PRIu64 "): "
					  "more than %u pixels a side (%s)",
					  meta->files[f].path, w, h, o->record_length,
					  o->record_stdev, fmt->side_max, fmt->side_why);
		for (uint64_t j = f * per; j < (f + 1) * per; j++) {
			meta->width[j] = (uint16_t)w;
			meta->height[j] = (uint16_t)h;
		}
		uint64_t len = 0, each = 0;
		if (fmt->encode) { /* the encoder's size; one image a file */
			uint8_t *b = NULL;
			size_t n = 0;
			rc = fmt->encode(meta, f, &b, &n);
			free(b);
			len = each = n;
		} else {
			len = fmt->image_bytes(meta, f, &each);
		}
		if (rc)
			return ts_ds_fail(err, errlen, rc, "%s: encoding its image: %s",
					  meta->files[f].path, ts_strerror(rc));
		for (uint64_t j = f * per; j < (f + 1) * per; j++)
			meta->bytes[j] = (uint32_t)each;
		meta->files[f].bytes = len;
		meta->sample_bytes += each * per;
		meta->total_bytes += len;
	}
	return 0;
}

int ts_dlio_encoded_emit(const struct ts_dataset_meta *meta, uint64_t f, struct ts_dlio_sink *s)
{
	uint8_t *b = NULL;
	size_t n = 0;
	int rc = fmt_of(meta)->encode(meta, f, &b, &n);
	if (!rc && n != meta->bytes[f])
		rc = TS_E_CORRUPT; /* not what describe encoded */
	if (!rc)
		rc = s->put(s, b, n);
	free(b);
	return rc;
}

/* Pixels from pairs of random bytes, passed on to @to. */
struct px_sink {
	struct ts_dlio_sink s;
	struct ts_dlio_sink *to;
};

static int put_px(struct ts_dlio_sink *s, const void *buf, size_t n)
{
	static _Thread_local uint8_t px[CHUNK / 2];
	const uint8_t *b = buf;
	/* ts_dlio_payload's pieces are CHUNK bytes but the last, all even */
	for (size_t i = 0; i < n / 2; i++)
		px[i] = (uint8_t)(((uint32_t)b[2 * i] | (uint32_t)b[2 * i + 1] << 8) * 255u >> 16);
	return ((struct px_sink *)s)->to->put(((struct px_sink *)s)->to, px, n / 2);
}

int ts_dlio_pixels(const struct ts_dataset_meta *meta, uint64_t j, struct ts_dlio_sink *s)
{
	struct px_sink p = { .s.put = put_px, .to = s };
	uint64_t n = (uint64_t)meta->width[j] * meta->height[j];
	return ts_dlio_payload(meta, j, 2 * n, &p.s, NULL, NULL);
}

struct mem_sink {
	struct ts_dlio_sink s;
	uint8_t *buf;
	size_t at;
};

static int put_mem(struct ts_dlio_sink *s, const void *buf, size_t n)
{
	struct mem_sink *m = (struct mem_sink *)s;
	memcpy(m->buf + m->at, buf, n);
	m->at += n;
	return 0;
}

int ts_dlio_pixels_alloc(const struct ts_dataset_meta *meta, uint64_t j, uint8_t **px)
{
	struct mem_sink m = { .s.put = put_mem };
	if (!(m.buf = malloc((size_t)meta->width[j] * meta->height[j] + 1)))
		return -ENOMEM;
	int rc = ts_dlio_pixels(meta, j, &m.s);
	if (rc) {
		free(m.buf);
		m.buf = NULL;
	}
	*px = m.buf;
	return rc;
}

/* ---- generate and verify: one emitter, two sinks ----------------------------- */

struct file_sink {
	struct ts_dlio_sink s;
	FILE *f;
	uint64_t at;	  /* bytes through the sink */
	uint64_t differs; /* verify: first differing offset + 1 */
	uint8_t *cmp;
};

static int put_write(struct ts_dlio_sink *s, const void *buf, size_t n)
{
	struct file_sink *fs = (struct file_sink *)s;
	if (fwrite(buf, 1, n, fs->f) != n)
		return -errno ? -errno : -EIO;
	fs->at += n;
	return 0;
}

static int put_compare(struct ts_dlio_sink *s, const void *buf, size_t n)
{
	struct file_sink *fs = (struct file_sink *)s;
	for (size_t done = 0; done < n;) {
		size_t len = TS_MIN((size_t)CHUNK, n - done);
		size_t got = fread(fs->cmp, 1, len, fs->f);
		if (got < len || memcmp(fs->cmp, (const uint8_t *)buf + done, len)) {
			size_t k = 0;
			while (k < got && fs->cmp[k] == ((const uint8_t *)buf)[done + k])
				k++;
			fs->differs = fs->at + k + 1;
			return got < len ? TS_E_TRUNCATED : TS_E_CORRUPT;
		}
		done += len;
		fs->at += len;
	}
	return 0;
}

struct job {
	const struct ts_dlio_fmt *fmt;
	const struct ts_dataset_meta *meta;
	const struct ts_dataset_config *cfg;
	const char *dir;
	bool verify;
	pthread_mutex_t mu;
	uint64_t next, done_samples;
	int rc;
	char *err;
	size_t errlen;
};

static int one_file(struct job *J, uint64_t f, uint8_t *cmp)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", J->dir, J->meta->files[f].path);
	struct file_sink fs = { .s.put = J->verify ? put_compare : put_write, .cmp = cmp };
	fs.f = fopen(path, J->verify ? "rb" : "wbx");
	int rc = fs.f ? 0 : -errno;
	if (fs.f) {
		setvbuf(fs.f, NULL, _IOFBF, 1 << 20);
		rc = J->fmt->emit(J->meta, f, &fs.s);
		if (!rc && J->verify && fgetc(fs.f) != EOF)
			rc = TS_E_FORMAT;
		if (fclose(fs.f) && !rc)
			rc = -errno;
	}
	if (!rc)
		return 0;
	pthread_mutex_lock(&J->mu);
	if (!J->rc) {
		J->rc = rc;
		if (rc == TS_E_CORRUPT || rc == TS_E_TRUNCATED)
			ts_ds_fail(J->err, J->errlen, rc, "%s: %s at byte %" PRIu64
				   " (not what seed %" PRIu64 " makes)", path,
				   rc == TS_E_CORRUPT ? "differs" : "ends", fs.differs - 1,
				   J->meta->seed);
		else if (rc == TS_E_FORMAT)
			ts_ds_fail(J->err, J->errlen, rc, "%s: longer than its %" PRIu64
				   " bytes", path, J->meta->files[f].bytes);
		else
			ts_ds_fail(J->err, J->errlen, rc, "%s: %s", path, ts_strerror(rc));
	}
	pthread_mutex_unlock(&J->mu);
	return rc;
}

static void *worker(void *arg)
{
	struct job *J = arg;
	uint8_t *cmp = J->verify ? malloc(CHUNK) : NULL;
	if (J->verify && !cmp) {
		pthread_mutex_lock(&J->mu);
		J->rc = J->rc ? J->rc : -ENOMEM;
		pthread_mutex_unlock(&J->mu);
		return NULL;
	}
	for (;;) {
		pthread_mutex_lock(&J->mu);
		bool stop = J->rc || J->next >= J->meta->count ||
			    (J->cfg && J->cfg->stop && *J->cfg->stop);
		uint64_t f = J->next++;
		pthread_mutex_unlock(&J->mu);
		if (stop || one_file(J, f, cmp))
			break;
		pthread_mutex_lock(&J->mu);
		J->done_samples++; /* files: the unit of --count */
		pthread_mutex_unlock(&J->mu);
	}
	free(cmp);
	return NULL;
}

static int run(struct job *J, unsigned threads)
{
	pthread_t t[64];
	unsigned n = 0;
	pthread_mutex_init(&J->mu, NULL);
	threads = TS_MAX(1u, TS_MIN(threads, 64u));
	if ((uint64_t)threads > J->meta->count)
		threads = (unsigned)J->meta->count;
	for (; n + 1 < threads; n++)
		if (pthread_create(&t[n], NULL, worker, J))
			break;
	worker(J);
	for (unsigned i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_destroy(&J->mu);
	if (J->cfg && J->cfg->stop && *J->cfg->stop && !J->rc)
		J->rc = -EINTR;
	return n + 1;
}

int ts_dlio_generate(const struct ts_dataset_meta *meta, const struct ts_dataset_config *cfg,
		     const char *dir, struct ts_dataset_stats *st, char *err, size_t errlen)
{
	const struct ts_dlio_fmt *fmt = fmt_of(meta);
	char path[4096];
	snprintf(path, sizeof(path), "%s/" TS_DLIO_DIR, dir);
	int rc = ts_ds_mkdir(path);
	if (rc)
		return ts_ds_fail(err, errlen, rc, "%s: %s", path, ts_strerror(rc));
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	struct job J = { .fmt = fmt, .meta = meta, .cfg = cfg, .dir = dir, .err = err,
			 .errlen = errlen };
	st->threads = (unsigned)run(&J, cfg->threads ? (unsigned)cfg->threads
						     : (unsigned)(cores > 0 ? cores : 1));
	st->samples = J.done_samples;
	if (J.rc == -EINTR)
		ts_ds_fail(err, errlen, -EINTR, "%s: interrupted after %" PRIu64
			   " files; the dataset is incomplete (no dataset.json)", dir,
			   J.done_samples);
	return J.rc;
}

int ts_dlio_verify(const struct ts_dataset_meta *meta, const char *dir, char *err, size_t errlen)
{
	const struct ts_dlio_fmt *fmt = fmt_of(meta);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	struct job J = { .fmt = fmt, .meta = meta, .dir = dir, .verify = true, .err = err,
			 .errlen = errlen };
	run(&J, (unsigned)(cores > 0 ? cores : 1));
	return J.rc;
}

void ts_dlio_storage(const struct ts_dataset_meta *meta, char *out, size_t n)
{
	const char *what = fmt_of(meta)->storage;
	const struct ts_dlio_dataset_opts *o = meta->own;
	snprintf(out, n, "%" PRIu64 " files of %" PRIu64 " samples (%s), %" PRIu64
		 " +- %" PRIu64 " payload bytes each, under " TS_DLIO_DIR "/",
		 meta->count, meta->per_file, what, o->record_length, o->record_stdev);
}

/* ---- the readers ----------------------------------------------------------- */

/* Files of many records stay open while the source is open, up to this many. */
#define MAX_OPEN_FILES 4096

struct layout {
	uint64_t samples, per;
	struct ts_divu per_div; /* i / per and i % per without a divide (core/divu.h) */
	uint64_t *off;	/* sample -> offset in its file (NULL: sizes fixed, off_in_file) */
	uint64_t fixed; /* the samples' one size (meta->fixed_bytes), or 0 */
	uint64_t max_len;
	bool fds;	/* records read through open files */
	struct ts_dlio_fs fs; /* virtual time: the files' lookups (ts_dlio_fs_layout) */
	uint64_t chunk; /* transfer_size */
};

struct dsrc {
	const struct ts_dataset_ops *kind;
	const struct ts_dlio_fmt *fmt;
	struct ts_dataset_meta meta;
	struct layout L;
	char dir[4096]; /* DIR/train */
	int dirfd;
	int *fd;	/* per file, when L.fds */
};

/* File @f's path under DIR/train (the description lists them from DIR). */
static const char *file_rel(const struct dsrc *s, uint64_t f)
{
	return s->meta.files[f].path + strlen(TS_DLIO_DIR "/");
}

static int layout(struct layout *L, const struct ts_dataset_meta *m, const struct ts_pipe_cfg *cfg,
		  const struct ts_dlio_fmt *fmt, char *err, size_t errlen)
{
	bool records = fmt->records;
	memset(L, 0, sizeof(*L));
	if (!m || !m->samples || !m->per_file || (!m->bytes && !m->fixed_bytes)) {
		snprintf(err, errlen, "the dataset's description lists no samples");
		return -EINVAL;
	}
	L->samples = m->samples;
	L->per = m->per_file;
	L->per_div = ts_divu_init(L->per);
	L->fds = records && L->per > 1 && m->count <= MAX_OPEN_FILES;
	L->chunk = records && L->fds ? cfg->transfer_size : 0;
	if (!m->bytes && !fmt->sample_off) { /* one size: offsets computed (off_in_file) */
		L->fixed = L->max_len = m->fixed_bytes;
		return 0;
	}
	if (!(L->off = ts_malloc_huge(L->samples * sizeof(*L->off)))) /* as meta->bytes */
		return -ENOMEM;
	for (uint64_t j = 0; j < L->samples; j++) {
		L->off[j] = fmt->sample_off ? fmt->sample_off(m, j)
			  : j % L->per ? L->off[j - 1] + ts_dataset_sample_len(m, j - 1) : 0;
		L->max_len = TS_MAX(L->max_len, ts_dataset_sample_len(m, j));
	}
	return 0;
}

/* Sample @i's offset in its file. */
static inline uint64_t off_in_file(const struct layout *L, uint64_t i)
{
	return L->off ? L->off[i] : i % L->per * L->fixed;
}

void ts_dlio_close(void *st)
{
	struct dsrc *s = st;
	if (!s)
		return;
	if (s->fd)
		for (uint64_t f = 0; f < s->meta.count; f++)
			if (s->fd[f] >= 0)
				close(s->fd[f]);
	free(s->fd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->L.off);
	ts_dataset_meta_free(&s->meta);
	free(s);
}

int ts_dlio_open(const struct ts_source_ops *self, const struct ts_pipe_cfg *cfg, void **st,
		 char *err, size_t errlen)
{
	const struct ts_dataset_ops *kind = self->data;
	const char *name = kind->name;
	if (!cfg->path || !*cfg->path) {
		snprintf(err, errlen, "source '%s' needs option 'path' (DIR/" TS_DLIO_DIR
				      " of a dataset made by 'tiersim dataset make %s')", name, name);
		return -EINVAL;
	}
	struct dsrc *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->kind = kind;
	s->fmt = kind->data;
	s->dirfd = -1;
	snprintf(s->dir, sizeof(s->dir), "%s", cfg->path);
	char up[4096];
	snprintf(up, sizeof(up), "%s", cfg->path);
	char sub[8192];
	int rc = ts_dataset_open(dirname(up), &s->meta, sub, sizeof(sub));
	if (!rc && s->meta.kind != kind) {
		snprintf(sub, sizeof(sub), "%s: a %s dataset, not %s", cfg->path,
			 s->meta.kind->name, name);
		rc = TS_E_FORMAT;
	}
	if (!rc)
		rc = layout(&s->L, &s->meta, cfg, s->fmt, sub, sizeof(sub));
	if (!rc && (s->dirfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = -errno;
		snprintf(sub, sizeof(sub), "%s: %s", s->dir, ts_strerror(rc));
	}
	if (!rc && s->L.fds) {
		if (!(s->fd = malloc(s->meta.count * sizeof(*s->fd))))
			rc = -ENOMEM;
		for (uint64_t f = 0; !rc && f < s->meta.count; f++)
			s->fd[f] = -1;
		for (uint64_t f = 0; !rc && f < s->meta.count; f++) {
			const char *rel = file_rel(s, f);
			if ((s->fd[f] = openat(s->dirfd, rel, O_RDONLY | O_CLOEXEC)) < 0) {
				rc = -errno;
				snprintf(sub, sizeof(sub), "%s/%s: %s", s->dir, rel, ts_strerror(rc));
			}
		}
	}
	if (rc) {
		snprintf(err, errlen, "source '%s': %s", name, sub);
		ts_dlio_close(s);
		return rc;
	}
	*st = s;
	return 0;
}

uint64_t ts_dlio_count(void *st)
{
	return ((struct dsrc *)st)->L.samples;
}

uint64_t ts_dlio_max_len(void *st)
{
	return ((struct dsrc *)st)->L.max_len;
}

int ts_dlio_extent(void *st, uint64_t i, struct ts_extent *x)
{
	struct dsrc *s = st;
	uint64_t f = i / s->L.per;
	x->dirfd = s->dirfd;
	x->rel = s->L.fds ? NULL : file_rel(s, f);
	x->fd = s->L.fds ? s->fd[f] : -1;
	x->off = off_in_file(&s->L, i);
	x->len = ts_dataset_sample_len(&s->meta, i);
	x->chunk = (uint32_t)s->L.chunk;
	x->label = 0; /* DLIO labels every sample 0 */
	return 0;
}

/* The payload inside a sample read whole: x of an npz, the image of a
 * TFRecord's Example (its frame and CRCs checked first). */
int ts_dlio_unwrap(void *st, uint64_t i, uint8_t *buf, uint32_t len, struct ts_payload *pl)
{
	(void)i;
	uint64_t off, n;
	int rc = ((struct dsrc *)st)->fmt->find(buf, len, &off, &n);
	if (rc)
		return rc;
	pl->off = (uint32_t)off;
	pl->len = (uint32_t)n;
	pl->label = 0;
	return 0;
}

void ts_dlio_describe_sample(void *st, uint64_t i, char *buf, size_t n)
{
	struct dsrc *s = st;
	uint64_t f = i / s->L.per;
	if (s->fmt->records)
		snprintf(buf, n, "%s/%s record %" PRIu64 " (offset %" PRIu64 ")", s->dir,
			 file_rel(s, f), i % s->L.per, off_in_file(&s->L, i));
	else
		snprintf(buf, n, "%s/%s", s->dir, file_rel(s, f));
}

/* ---- virtual time: the same requests ---------------------------------------- */

int ts_dlio_plan_open(const struct ts_source_ops *self, struct ts_vsource *vs, char *err,
		      size_t errlen)
{
	const struct ts_dlio_fmt *fmt = ((const struct ts_dataset_ops *)self->data)->data;
	struct layout *L = malloc(sizeof(*L));
	if (!L)
		return -ENOMEM;
	int rc = layout(L, vs->meta, vs->cfg, fmt, err, errlen);
	if (rc) {
		free(L);
		return rc;
	}
	ts_dlio_fs_layout(vs->fs, vs->meta, &L->fs);
	vs->count = L->samples;
	vs->max_len = L->max_len;
	vs->st = L;
	return 0;
}

/* File ids: 2 + the file's number (1 names a packed file elsewhere). */
void ts_dlio_plan_sample(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out)
{
	const struct layout *L = vs->st;
	const struct ts_dataset_meta *m = vs->meta;
	uint64_t f, k; /* file, and sample in it */
	ts_divu_divmod(&L->per_div, i, &f, &k);
	uint64_t len = ts_dataset_sample_len(m, i);
	uint64_t off = L->off ? L->off[i] : k * L->fixed; /* off_in_file */
	ts_vsample_start(out, TS_VWORK_NONE, 0, 0, len);
	if (!L->fds) /* its open: the lookups of the disk's file system */
		out->io[out->n++] = ts_dlio_fs_open(&L->fs, f);
	/* The read, field by field: a compound literal zeroes the whole
	 * struct first with a `rep stos`, which cost more than the rest of
	 * this. Every field is set below; the same members in a struct of
	 * their own must take the same room, so a field added to struct
	 * ts_vio (pipeline/source.h) stops the build until it is set here
	 * (one small enough to sit in the padding after op excepted). */
	struct vio_fields {
		uint8_t op;
		uint64_t file, off, len, size, chunk;
		bool mapped, tail_first;
		uint32_t map_window_ns;
		uint64_t ino, dir, dir_ino;
		uint32_t dir_blocks, top_blocks;
	};
	_Static_assert(sizeof(struct vio_fields) == sizeof(struct ts_vio) &&
			       offsetof(struct vio_fields, top_blocks) ==
				       offsetof(struct ts_vio, top_blocks),
		       "struct ts_vio changed: set its new fields in ts_dlio_plan_sample");
	struct ts_vio *io = &out->io[out->n++];
	io->op = TS_VIO_READ;
	io->file = f + 2;
	io->off = off;
	io->len = len;
	io->size = m->files[f].bytes;
	io->chunk = L->chunk;
	io->mapped = io->tail_first = false;
	io->map_window_ns = 0;
	io->ino = io->dir = io->dir_ino = 0;
	io->dir_blocks = io->top_blocks = 0;
}

/* Samples [@i, @i + @n)'s reads, as ts_dlio_plan_sample plans them,
 * where that is all it plans: with the records read through open files
 * (L->fds), no sample plans an open of its own. */
int ts_dlio_plan_reads(const struct ts_vsource *vs, uint64_t i, uint64_t n, struct ts_vread *out)
{
	const struct layout *L = vs->st;
	if (!L->fds)
		return 0;
	uint64_t f, k; /* file, and sample in it, kept as i moves on */
	ts_divu_divmod(&L->per_div, i, &f, &k);
	for (uint64_t j = 0; j < n; j++) {
		out[j].file = f + 2;
		out[j].off = L->off ? L->off[i + j] : k * L->fixed; /* off_in_file */
		out[j].len = ts_dataset_sample_len(vs->meta, i + j);
		if (++k == L->per)
			k = 0, f++;
	}
	return 1;
}

/* ts_dlio_plan_reads's reads as a rule, where the records all store the
 * same bytes at fixed places (no offset table): sample i's read is
 * file i / per's at (i % per) x fixed, fixed bytes (its
 * ts_dataset_sample_len: meta's fixed_bytes, no table of sizes). */
int ts_dlio_plan_runs(const struct ts_vsource *vs, uint64_t *per, uint64_t *len)
{
	const struct layout *L = vs->st;
	if (!L->fds || L->off || vs->meta->bytes || !L->per || !L->fixed ||
	    L->fixed != vs->meta->fixed_bytes)
		return 0;
	*per = L->per;
	*len = L->fixed;
	return 1;
}

/* What planning sample @i reads: a shuffled epoch reads it at random. */
void ts_dlio_plan_prefetch(const struct ts_vsource *vs, uint64_t i)
{
	const struct layout *L = vs->st;
	if (!L->off || !vs->meta->bytes)
		return; /* nothing per sample to read */
	__builtin_prefetch(&vs->meta->bytes[i]);
	__builtin_prefetch(&L->off[i]);
}

void ts_dlio_fs_layout(const struct ts_fsmeta_params *fs, const struct ts_dataset_meta *m,
		       struct ts_dlio_fs *out)
{
	*out = (struct ts_dlio_fs){ 0 };
	if (!fs)
		return;
	uint64_t names = 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		const char *path = m->files[f].path, *base = path ? strrchr(path, '/') : NULL;
		names += base ? strlen(base + 1) : path ? strlen(path) : 0;
	}
	out->dir_ino = fs->first_inode + 2; /* after lost+found and dataset.json */
	out->dir_blocks = (uint32_t)ts_fsmeta_dir_blocks(fs, m->nfiles, names);
	out->top_blocks = (uint32_t)ts_fsmeta_dir_blocks(fs, 2, strlen(TS_DLIO_DIR) +
								strlen("dataset.json"));
}

struct ts_vio ts_dlio_fs_open(const struct ts_dlio_fs *L, uint64_t f)
{
	struct ts_vio io = { .op = TS_VIO_META, .file = f + 2 };
	if (L->dir_ino) {
		io.ino = L->dir_ino + 1 + f;
		io.dir = TS_DLIO_DIR_KEY;
		io.dir_ino = L->dir_ino;
		io.dir_blocks = L->dir_blocks;
		io.top_blocks = L->top_blocks;
	}
	return io;
}

void ts_dlio_plan_close(struct ts_vsource *vs)
{
	struct layout *L = vs->st;
	if (L)
		free(L->off);
	free(L);
	vs->st = NULL;
}
