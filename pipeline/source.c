/*
 * source.c — checking a source's ops, the virtual-time helpers the image
 * sources share, and the null source the loader is tested against. Each
 * other source is in its dataset kind's file (pipeline/ds_<kind>.c) and
 * found by name through the kinds' registry (dataset.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/dataset.h"
#include "pipeline/loader.h"
#include "pipeline/source.h"

int ts_source_check(const struct ts_source_ops *ops, char *err, size_t errlen)
{
	const char *name = ops->name ? ops->name : "(unnamed)";
	if (ops->version != TS_SOURCE_VERSION) {
		snprintf(err, errlen, "source '%s': ops version %u, this build knows %u", name,
			 ops->version, TS_SOURCE_VERSION);
		return TS_E_VERSION;
	}
	const char *missing = NULL;
	if (!ops->name)
		missing = "name";
	else if (!ops->open)
		missing = "open";
	else if (!ops->count)
		missing = "count";
	else if (!ops->max_len)
		missing = "max_len";
	else if (!ops->describe)
		missing = "describe";
	else if (!ops->close)
		missing = "close";
	else if ((ops->caps & TS_SRC_EXTENTS) && !ops->extent)
		missing = "extent";
	else if (!(ops->caps & TS_SRC_EXTENTS) && !ops->fetch)
		missing = "fetch";
	int plans = !!ops->plan_open + !!ops->plan_sample + !!ops->plan_close;
	if (!missing && plans && plans != 3)
		missing = !ops->plan_open ? "plan_open" : !ops->plan_sample ? "plan_sample" : "plan_close";
	if (missing) {
		snprintf(err, errlen, "source '%s': hook '%s' is missing", name, missing);
		return -EINVAL;
	}
	return 0;
}

/*
 * The null source: cfg->count samples of cfg->sample_size bytes, made in
 * memory. Byte j of sample i is ts_null_byte(i, j), so a test can check every
 * byte it gets without a second copy of the data.
 */
struct null_src {
	uint64_t count, size;
};

static int null_open(const struct ts_source_ops *self, const struct ts_pipe_cfg *cfg, void **st,
		     char *err, size_t errlen)
{
	(void)self;
	if (!cfg->count || !cfg->sample_size) {
		snprintf(err, errlen, "source 'null' needs count and sample_size (both > 0)");
		return -EINVAL;
	}
	if (cfg->sample_size > UINT32_MAX) {
		snprintf(err, errlen, "option 'sample_size': at most 4 GiB per sample");
		return -EINVAL;
	}
	struct null_src *s = malloc(sizeof *s);
	if (!s)
		return -ENOMEM;
	s->count = cfg->count;
	s->size = cfg->sample_size;
	*st = s;
	return 0;
}

static uint64_t null_count(void *st)
{
	return ((struct null_src *)st)->count;
}

static uint64_t null_max_len(void *st)
{
	return ((struct null_src *)st)->size;
}

static int null_fetch(void *st, uint64_t i, void *buf, uint32_t cap, uint32_t *len,
		      int32_t *label)
{
	struct null_src *s = st;
	if (s->size > cap)
		return -ENOBUFS;
	uint8_t *b = buf;
	for (uint32_t j = 0; j < s->size; j++)
		b[j] = ts_null_byte(i, j);
	*len = (uint32_t)s->size;
	*label = (int32_t)(i % 1000);
	return 0;
}

static void null_describe(void *st, uint64_t i, char *buf, size_t n)
{
	snprintf(buf, n, "null sample %llu", (unsigned long long)i);
}

static void null_close(void *st)
{
	free(st);
}

/* Virtual: nothing is read and nothing decoded. */
static int null_plan_open(const struct ts_source_ops *self, struct ts_vsource *vs, char *err,
			  size_t errlen)
{
	void *st;
	int rc = null_open(self, vs->cfg, &st, err, errlen);
	if (rc)
		return rc;
	vs->count = null_count(st);
	vs->max_len = null_max_len(st);
	vs->st = NULL;
	free(st);
	return 0;
}

static void null_plan_sample(const struct ts_vsource *vs, uint64_t i, struct ts_vsample *out)
{
	*out = (struct ts_vsample){ .work = TS_VWORK_NONE, .len = vs->max_len };
}

/* ---- virtual time helpers shared by the sources ------------------------- */

int ts_vsource_images(struct ts_vsource *vs, bool packed, char *err, size_t errlen)
{
	const struct ts_dataset_meta *m = vs->meta;
	if (!m || !m->samples) {
		snprintf(err, errlen, "the dataset's description lists no images");
		return -EINVAL;
	}
	uint64_t n = m->count; /* the training images come first */
	if (vs->cfg->count && vs->cfg->count < n)
		n = vs->cfg->count;
	vs->count = n;
	vs->max_len = 0;
	for (uint64_t j = 0; j < n; j++)
		vs->max_len = TS_MAX(vs->max_len, (uint64_t)m->bytes[j]);
	if (!packed)
		return 0;
	uint64_t *off = malloc((m->samples + 1) * sizeof(*off));
	if (!off)
		return -ENOMEM;
	off[0] = 0;
	for (uint64_t j = 0; j < m->samples; j++)
		off[j + 1] = off[j] + m->bytes[j];
	vs->st = off;
	return 0;
}

void ts_vsource_packed(const struct ts_vsource *vs, uint64_t i, uint8_t work,
		       struct ts_vsample *out)
{
	const struct ts_dataset_meta *m = vs->meta;
	const uint64_t *off = vs->st;
	*out = (struct ts_vsample){ .n = 1, .work = work, .width = m->width[i],
				    .height = m->height[i], .len = m->bytes[i] };
	out->io[0] = (struct ts_vio){ .op = TS_VIO_READ, .file = 1, .off = off[i],
				      .len = m->bytes[i], .size = off[m->samples] };
}

void ts_vsource_free(struct ts_vsource *vs)
{
	free(vs->st);
	vs->st = NULL;
}

const struct ts_source_ops ts_source_null = {
	.name = "null",
	.version = TS_SOURCE_VERSION,
	.caps = 0,
	.open = null_open,
	.count = null_count,
	.max_len = null_max_len,
	.fetch = null_fetch,
	.describe = null_describe,
	.close = null_close,
	.plan_open = null_plan_open,
	.plan_sample = null_plan_sample,
	.plan_close = ts_vsource_free,
};
