/*
 * source_dlio.c — DLIO's readers, over the npz and tfrecord kinds' files
 * (ds_npz.c, ds_tfrecord.c).
 *
 *  - npz, as DLIO's PyTorch NPZ reader: each sample is its own file, opened
 *    and read whole (np.load), then the x array found in it.
 *  - tfrecord, as DLIO's TensorFlow reader (tf.data.TFRecordDataset with
 *    buffer_size = transfer_size): a record is read where it lies in its
 *    file in transfer_size requests (option transfer_size; 0 = one
 *    request), and its frame and both CRC-32Cs are checked as TensorFlow's
 *    record reader checks them. Files of many records are opened once, when
 *    the source opens (a TFRecordDataset keeps its file open); a file of one
 *    record is opened per read, as a folder of files is, and read in one
 *    request (the io_uring chain opens, reads and closes it at once).
 *
 * Both find their layout in the dataset's description (dataset.json, one
 * folder above path = DIR/train), which gives every sample's size to the
 * byte; nothing is scanned. The same layout drives virtual time
 * (plan_open/plan_sample): the requests listed there are the reads made
 * here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/dataset.h"
#include "pipeline/dliofmt.h"
#include "pipeline/ds_dlio.h"
#include "pipeline/loader.h"
#include "pipeline/source.h"

/* Files of many records stay open while the source is open, up to this many. */
#define MAX_OPEN_FILES 4096

struct layout {
	uint64_t samples, per;
	uint64_t *off;	/* sample -> offset in its file */
	uint64_t max_len;
	bool fds;	/* records read through open files */
	uint64_t chunk; /* transfer_size */
};

struct dsrc {
	bool tfr;
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
		  bool tfr, char *err, size_t errlen)
{
	memset(L, 0, sizeof(*L));
	if (!m || !m->samples || !m->per_file || !m->bytes) {
		snprintf(err, errlen, "the dataset's description lists no samples");
		return -EINVAL;
	}
	L->samples = m->samples;
	L->per = m->per_file;
	L->fds = tfr && L->per > 1 && m->count <= MAX_OPEN_FILES;
	L->chunk = tfr && L->fds ? cfg->transfer_size : 0;
	if (!(L->off = malloc(L->samples * sizeof(*L->off))))
		return -ENOMEM;
	for (uint64_t j = 0; j < L->samples; j++) {
		L->off[j] = j % L->per ? L->off[j - 1] + m->bytes[j - 1] : 0;
		L->max_len = TS_MAX(L->max_len, (uint64_t)m->bytes[j]);
	}
	return 0;
}

static void dsrc_close(void *st)
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

static int dsrc_open(const struct ts_pipe_cfg *cfg, void **st, bool tfr, char *err, size_t errlen)
{
	const char *name = tfr ? "tfrecord" : "npz";
	if (!cfg->path || !*cfg->path) {
		snprintf(err, errlen, "source '%s' needs option 'path' (DIR/" TS_DLIO_DIR
				      " of a dataset made by 'tiersim dataset make %s')", name, name);
		return -EINVAL;
	}
	struct dsrc *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->tfr = tfr;
	s->dirfd = -1;
	snprintf(s->dir, sizeof(s->dir), "%s", cfg->path);
	char up[4096];
	snprintf(up, sizeof(up), "%s", cfg->path);
	char sub[8192];
	int rc = ts_dataset_open(dirname(up), &s->meta, sub, sizeof(sub));
	if (!rc && s->meta.kind != (tfr ? &ts_dataset_tfrecord : &ts_dataset_npz)) {
		snprintf(sub, sizeof(sub), "%s: a %s dataset, not %s", cfg->path,
			 s->meta.kind->name, name);
		rc = TS_E_FORMAT;
	}
	if (!rc)
		rc = layout(&s->L, &s->meta, cfg, tfr, sub, sizeof(sub));
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
		dsrc_close(s);
		return rc;
	}
	*st = s;
	return 0;
}

static int npz_open(const struct ts_pipe_cfg *cfg, void **st, char *err, size_t errlen)
{
	return dsrc_open(cfg, st, false, err, errlen);
}

static int tfr_open(const struct ts_pipe_cfg *cfg, void **st, char *err, size_t errlen)
{
	return dsrc_open(cfg, st, true, err, errlen);
}

static uint64_t dsrc_count(void *st)
{
	return ((struct dsrc *)st)->L.samples;
}

static uint64_t dsrc_max_len(void *st)
{
	return ((struct dsrc *)st)->L.max_len;
}

static int dsrc_extent(void *st, uint64_t i, struct ts_extent *x)
{
	struct dsrc *s = st;
	uint64_t f = i / s->L.per;
	x->dirfd = s->dirfd;
	x->rel = s->L.fds ? NULL : file_rel(s, f);
	x->fd = s->L.fds ? s->fd[f] : -1;
	x->off = s->L.off[i];
	x->len = s->meta.bytes[i];
	x->chunk = (uint32_t)s->L.chunk;
	x->label = 0; /* DLIO labels every sample 0 */
	return 0;
}

/* The payload inside a sample read whole: x of an npz, the image of a
 * TFRecord's Example (its frame and CRCs checked first). */
static int dsrc_unwrap(void *st, uint64_t i, uint8_t *buf, uint32_t len, struct ts_payload *pl)
{
	(void)i;
	uint64_t off, n;
	int rc = ((struct dsrc *)st)->tfr ? ts_tfr_check(buf, len, &off, &n)
					  : ts_npz_find_x(buf, len, &off, &n);
	if (rc)
		return rc;
	pl->off = (uint32_t)off;
	pl->len = (uint32_t)n;
	pl->label = 0;
	return 0;
}

static void dsrc_describe(void *st, uint64_t i, char *buf, size_t n)
{
	struct dsrc *s = st;
	uint64_t f = i / s->L.per;
	if (s->tfr)
		snprintf(buf, n, "%s/%s record %" PRIu64 " (offset %" PRIu64 ")", s->dir,
			 file_rel(s, f), i % s->L.per, s->L.off[i]);
	else
		snprintf(buf, n, "%s/%s", s->dir, file_rel(s, f));
}

/* ---- virtual time: the same requests ---------------------------------------- */

static int plan_open(struct ts_vsource *vs, bool tfr, char *err, size_t errlen)
{
	struct layout *L = malloc(sizeof(*L));
	if (!L)
		return -ENOMEM;
	int rc = layout(L, vs->meta, vs->cfg, tfr, err, errlen);
	if (rc) {
		free(L);
		return rc;
	}
	vs->count = L->samples;
	vs->max_len = L->max_len;
	vs->st = L;
	return 0;
}

static int npz_plan_open(struct ts_vsource *vs, char *err, size_t errlen)
{
	return plan_open(vs, false, err, errlen);
}

static int tfr_plan_open(struct ts_vsource *vs, char *err, size_t errlen)
{
	return plan_open(vs, true, err, errlen);
}

/* File ids: 2 + the file's number (1 names a packed file elsewhere). */
static void dsrc_plan_sample(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out)
{
	const struct layout *L = vs->st;
	const struct ts_dataset_meta *m = vs->meta;
	uint64_t f = i / L->per;
	uint64_t len = m->bytes[i];
	*out = (struct ts_vsample){ .work = TS_VWORK_NONE, .len = len };
	if (!L->fds)
		out->io[out->n++] = (struct ts_vio){ .op = TS_VIO_META, .file = f + 2 };
	out->io[out->n++] = (struct ts_vio){ .op = TS_VIO_READ, .file = f + 2, .off = L->off[i],
					     .len = len, .size = m->files[f].bytes,
					     .chunk = L->chunk };
}

static void dsrc_plan_close(struct ts_vsource *vs)
{
	struct layout *L = vs->st;
	if (L)
		free(L->off);
	free(L);
	vs->st = NULL;
}

const struct ts_source_ops ts_source_npz = {
	.name = "npz",
	.version = TS_SOURCE_VERSION,
	.caps = TS_SRC_EXTENTS,
	.open = npz_open,
	.count = dsrc_count,
	.max_len = dsrc_max_len,
	.extent = dsrc_extent,
	.unwrap = dsrc_unwrap,
	.describe = dsrc_describe,
	.close = dsrc_close,
	.plan_open = npz_plan_open,
	.plan_sample = dsrc_plan_sample,
	.plan_close = dsrc_plan_close,
};

const struct ts_source_ops ts_source_tfrecord = {
	.name = "tfrecord",
	.version = TS_SOURCE_VERSION,
	.caps = TS_SRC_EXTENTS,
	.open = tfr_open,
	.count = dsrc_count,
	.max_len = dsrc_max_len,
	.extent = dsrc_extent,
	.unwrap = dsrc_unwrap,
	.describe = dsrc_describe,
	.close = dsrc_close,
	.plan_open = tfr_plan_open,
	.plan_sample = dsrc_plan_sample,
	.plan_close = dsrc_plan_close,
};
