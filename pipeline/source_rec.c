/*
 * source_rec.c — a packed record file read through its index, as MXNet's
 * ImageRecordIter reads an im2rec .rec/.idx pair: the .idx gives each
 * record's offset, the record's extent runs to the next offset, and the
 * io_uring reader fetches exactly that range. unwrap reassembles the frame
 * (recordio.h) and skips the IRHeader to the encoded image.
 *
 * path: the .rec file (its index is the same name with .idx), or a folder
 * holding train.rec + train.idx.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/dataset.h"
#include "pipeline/loader.h"
#include "pipeline/recordio.h"
#include "pipeline/source.h"

struct rec {
	int fd;
	char rec_path[4088], idx_path[4096];
	struct ts_rec_index ix;
	uint64_t max_len;
};

static void rec_close(void *st)
{
	struct rec *r = st;
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	ts_rec_index_free(&r->ix);
	free(r);
}

static int rec_open(const struct ts_pipe_cfg *cfg, void **st, char *err, size_t errlen)
{
	if (!cfg->path || !*cfg->path) {
		snprintf(err, errlen, "source 'rec' needs option 'path' (a .rec file)");
		return -EINVAL;
	}
	struct rec *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	struct stat sb;
	const char *p = cfg->path;
	size_t pl = strlen(p);
	int w;
	if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
		w = snprintf(r->rec_path, sizeof r->rec_path, "%s/train.rec", p);
	else
		w = snprintf(r->rec_path, sizeof r->rec_path, "%s", p);
	pl = strlen(r->rec_path);
	if (w < 0 || (size_t)w >= sizeof r->rec_path - 4) {
		snprintf(err, errlen, "%s: path too long", p);
		rec_close(r);
		return -ENAMETOOLONG;
	}
	if (pl > 4 && !strcmp(r->rec_path + pl - 4, ".rec"))
		snprintf(r->idx_path, sizeof r->idx_path, "%.*s.idx", (int)(pl - 4), r->rec_path);
	else
		snprintf(r->idx_path, sizeof r->idx_path, "%s.idx", r->rec_path);
	r->fd = open(r->rec_path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &sb)) {
		int rc = -errno;
		snprintf(err, errlen, "%s: cannot open the record file: %s", r->rec_path,
			 ts_strerror(rc));
		rec_close(r);
		return rc;
	}
	char sub[512] = "";
	int rc = ts_rec_index_load(&r->ix, r->idx_path, (uint64_t)sb.st_size, sub, sizeof sub);
	if (rc) {
		if (rc == -ENOENT)
			snprintf(err, errlen,
				 "%s: index missing (a .rec is read through its .idx, as im2rec "
				 "writes both; rebuild it with 'tiersim dataset make imagenet-rec')",
				 r->idx_path);
		else
			snprintf(err, errlen, "%s: %s", r->idx_path, sub[0] ? sub : ts_strerror(rc));
		rec_close(r);
		return rc;
	}
	if (!r->ix.count) {
		snprintf(err, errlen, "%s: the index lists no records", r->idx_path);
		rec_close(r);
		return -ENOENT;
	}
	for (size_t i = 0; i < r->ix.count; i++) {
		if (r->ix.length[i] > TS_REC_MAX_LEN + 8 + 3) {
			snprintf(err, errlen, "%s: record %zu is %llu bytes, more than a record holds",
				 r->idx_path, i, (unsigned long long)r->ix.length[i]);
			rec_close(r);
			return TS_E_FORMAT;
		}
		if (r->ix.length[i] > r->max_len)
			r->max_len = r->ix.length[i];
	}
	*st = r;
	return 0;
}

static uint64_t rec_count(void *st)
{
	return ((struct rec *)st)->ix.count;
}

static uint64_t rec_max_len(void *st)
{
	return ((struct rec *)st)->max_len;
}

static int rec_extent(void *st, uint64_t i, struct ts_extent *x)
{
	struct rec *r = st;
	x->dirfd = -1;
	x->rel = NULL;
	x->fd = r->fd;
	x->off = r->ix.offset[i];
	x->len = (uint32_t)r->ix.length[i];
	x->label = -1;
	return 0;
}

static int rec_unwrap(void *st, uint64_t i, uint8_t *buf, uint32_t len, struct ts_payload *pl)
{
	size_t used;
	ssize_t n = ts_rec_decode(buf, len, buf, len, &used);
	if (n < 0)
		return (int)n;
	struct ts_rec_irheader h;
	size_t img;
	int rc = ts_rec_irheader_unpack(&h, buf, (size_t)n, &img);
	if (rc)
		return rc;
	pl->off = (uint32_t)img;
	pl->len = (uint32_t)((size_t)n - img);
	pl->label = (int32_t)h.label;
	return 0;
}

static void rec_describe(void *st, uint64_t i, char *buf, size_t n)
{
	struct rec *r = st;
	snprintf(buf, n, "%s record %llu (key %llu, offset %llu)", r->rec_path,
		 (unsigned long long)i, (unsigned long long)r->ix.key[i],
		 (unsigned long long)r->ix.offset[i]);
}

/* Virtual: one read per record, where the index says it lies. */
static int rec_plan_open(struct ts_vsource *vs, char *err, size_t errlen)
{
	return ts_vsource_images(vs, true, err, errlen);
}

static void rec_plan_sample(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out)
{
	ts_vsource_packed(vs, i, TS_VWORK_JPEG, out);
}

const struct ts_source_ops ts_source_rec = {
	.name = "rec",
	.version = TS_SOURCE_VERSION,
	.caps = TS_SRC_EXTENTS,
	.open = rec_open,
	.count = rec_count,
	.max_len = rec_max_len,
	.extent = rec_extent,
	.unwrap = rec_unwrap,
	.describe = rec_describe,
	.close = rec_close,
	.plan_open = rec_plan_open,
	.plan_sample = rec_plan_sample,
	.plan_close = ts_vsource_free,
};
