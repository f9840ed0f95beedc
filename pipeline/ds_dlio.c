/*
 * ds_dlio.c — DLIO's datasets (the MLPerf Storage workloads' npz and
 * TFRecord files), planned, written and verified; see ds_dlio.h.
 *
 * Sizes: each sample's payload is drawn from N(record_length,
 * record_length_stdev) with the dataset's seed, sample by sample in
 * storage order, rounded and kept within [1 B, 2 GiB) — DLIO draws its
 * sizes from the same normal distribution (its generators'
 * np.random.normal(record_length, record_length_stdev)). The payload is
 * pseudo-random bytes from the seed and the sample number (xoshiro256**),
 * as DLIO's are random, so nothing compresses or deduplicates them.
 */
#include "pipeline/ds_dlio.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rng.h"
#include "pipeline/dliofmt.h"
#include "pipeline/ds_kind.h"

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

/* The kind's file format: its ops' data. */
static const struct ts_dlio_fmt *fmt_of(const struct ts_dataset_meta *meta)
{
	return meta->kind->data;
}

int ts_dlio_plan(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta, char *err,
		 size_t errlen)
{
	const struct ts_dlio_fmt *fmt = fmt_of(meta);
	(void)cfg;
	if (!fmt) /* every other hook runs on a meta this one filled */
		return ts_ds_fail(err, errlen, -EINVAL,
				  "dataset kind '%s': no DLIO file format (its ops' data)",
				  meta->kind->name);
	if (!meta->per_file)
		meta->per_file = 1;
	if (!meta->record_length)
		meta->record_length = TS_DLIO_RECORD_LENGTH;
	uint64_t files = meta->count, per = meta->per_file;
	if (per > UINT32_MAX / files)
		return ts_ds_fail(err, errlen, -EINVAL,
				  "%" PRIu64 " files x %" PRIu64 " samples per file: more than "
				  "%u samples",
				  files, per, UINT32_MAX);
	if (meta->record_length > MAX_PAYLOAD)
		return ts_ds_fail(err, errlen, -EINVAL, "--record_length %" PRIu64
				  " is more than a sample may hold (%llu bytes)",
				  meta->record_length, MAX_PAYLOAD);
	meta->samples = files * per;
	if (!(meta->bytes = malloc(meta->samples * sizeof(*meta->bytes))))
		return -ENOMEM;
	struct ts_rng r;
	ts_rng_seed(&r, meta->seed);
	double mu = (double)meta->record_length, sd = (double)meta->record_stdev;
	char path[256];
	for (uint64_t f = 0; f < files; f++) {
		uint64_t fbytes = 0;
		for (uint64_t k = 0; k < per; k++) {
			double v = sd > 0 ? mu + sd * ts_rng_normal(&r) : mu;
			uint64_t n = v < 1 ? 1 : v > (double)MAX_PAYLOAD ? MAX_PAYLOAD
									 : (uint64_t)llround(v);
			uint64_t s = fmt->stored(n);
			meta->bytes[f * per + k] = (uint32_t)s;
			meta->sample_bytes += s;
			fbytes += s;
		}
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
	uint64_t s = meta->bytes[j];
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
	snprintf(out, n, "%" PRIu64 " files of %" PRIu64 " samples (%s), %" PRIu64
		 " +- %" PRIu64 " payload bytes each, under " TS_DLIO_DIR "/",
		 meta->count, meta->per_file, what, meta->record_length, meta->record_stdev);
}
