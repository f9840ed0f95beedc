/*
 * ds_jpeg.c — the jpeg kind: DLIO's JPEG dataset, one greyscale image per
 * file as DLIO 2.0.0's generator writes it (data_generator/
 * jpeg_generator.py: random uint8 pixels, Image.fromarray(...).save(f,
 * format='JPEG'): Pillow's baseline JPEG at its default quality, 75).
 *
 * Images. As DLIO's generator draws them (data_generator.py
 * get_dimension, config.py): each file's two sides apart, each from
 * N(int(sqrt(record_length)), record_length_stdev / (2 sqrt(record_length)))
 * truncated toward zero as int() does and at least 1; square, of side
 * int(sqrt(record_length)), when the stdev is 0. The draws are the
 * dataset seed's (not numpy's stream: DLIO's seed 10 is not reproduced),
 * width then height, file by file.
 *
 * Sizes. A file is the image encoded as Pillow encodes it (libjpeg-turbo,
 * quality 75, greyscale, JFIF), nothing added, so its size is the
 * encoder's: describing a dataset encodes every image (Pillow takes 0.86 ms
 * of CPU for 338 x 338 on the build host, about 7.5 ns a pixel). Pixels are
 * uniform over 0-254 as np.random.randint(255) draws them, each from 16 of
 * the sample's pseudo-random bits (ds_dlio.c). The encoded size follows the
 * pixels' variance: 0-255, or 0-254 with one value drawn twice as often
 * (bytes modulo 255), make 338 x 338 files about 0.12% larger (30 of
 * Pillow's each: 65,437 B uniform 0-254, 65,518 B modulo 255, 65,515 B
 * 0-255), which moves half of them past 64 KiB and a read more in
 * Pillow's chain. tests/cli/test_dlio.sh compares the sizes with
 * Pillow's; bench/dlio_peer.sh's j50 row with DLIO's generator's.
 *
 * Its reader, the loader source "jpeg", reads each file whole. DLIO's
 * ImageReader (np.asarray(Image.open(f))) and the requests it makes are
 * pipeline/dliochain.h's, which DLIO's PyTorch loader here issues
 * (workloads/dlio_loader.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "core/rng.h"
#include "pipeline/dataset.h"
#include "pipeline/ds_dlio.h"
#include "pipeline/ds_kind.h"

#define JPEG_QUALITY 75 /* Pillow's default (PIL/JpegImagePlugin.py) */
#define JPEG_SIDE_MAX 65535u /* a JPEG's side, and what meta->width holds */

static uint64_t isqrt(uint64_t n)
{
	uint64_t d = (uint64_t)sqrt((double)n);
	while (d * d > n)
		d--;
	while ((d + 1) * (d + 1) <= n)
		d++;
	return d;
}

/* A sample's stored bytes are its record length until describe encodes
 * it (below). */
static uint64_t jpeg_stored(uint64_t n)
{
	return n;
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

/* Encodes sample @j's image into *@out (malloc'd, *@len bytes). */
static int encode(const struct ts_dataset_meta *meta, uint64_t j, uint8_t **out, unsigned long *len)
{
	int w = meta->width[j], h = meta->height[j];
	uint64_t n = (uint64_t)w * (uint64_t)h;
	struct mem_sink px = { .s.put = put_mem, .buf = malloc(2 * n) };
	*len = tjBufSize(w, h, TJSAMP_GRAY);
	*out = malloc(*len);
	tjhandle tj = tjInitCompress();
	int rc = px.buf && *out && tj ? 0 : -ENOMEM;
	if (!rc)
		rc = ts_dlio_payload(meta, j, 2 * n, &px.s, NULL, NULL);
	/* 0-254 alike, as np.random.randint(255): from 16 random bits each */
	for (uint64_t i = 0; !rc && i < n; i++)
		px.buf[i] = (uint8_t)(((uint32_t)px.buf[2 * i] | (uint32_t)px.buf[2 * i + 1] << 8) *
				      255u >> 16);
	if (!rc && tjCompress2(tj, px.buf, w, 0, h, TJPF_GRAY, out, len, TJSAMP_GRAY, JPEG_QUALITY,
			       TJFLAG_NOREALLOC))
		rc = TS_E_CORRUPT;
	if (tj)
		tjDestroy(tj);
	free(px.buf);
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* One side as DLIO draws it: max(int(N(@dim, @sd)), 1). */
static double side(double dim, double sd, struct ts_rng *r)
{
	double v = sd > 0 ? dim + sd * ts_rng_normal(r) : dim;
	return v < 1 ? 1 : trunc(v);
}

static int jpeg_describe(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta,
			 char *err, size_t errlen)
{
	int rc = ts_dlio_describe(cfg, meta, err, errlen);
	if (rc)
		return rc;
	meta->width = malloc(meta->samples * sizeof(*meta->width));
	meta->height = malloc(meta->samples * sizeof(*meta->height));
	if (!meta->width || !meta->height)
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
	for (uint64_t j = 0; j < meta->samples; j++) { /* one sample a file */
		double w = side(dim, sd, &r), h = side(dim, sd, &r);
		if (w > JPEG_SIDE_MAX || h > JPEG_SIDE_MAX)
			return ts_ds_fail(err, errlen, -EINVAL, "%s: an image of %.0f x %.0f "
					  "(record_length %" PRIu64 ", record_stdev %" PRIu64 "): "
					  "more than a JPEG's %u a side",
					  meta->files[j].path, w, h, o->record_length,
					  o->record_stdev, JPEG_SIDE_MAX);
		meta->width[j] = (uint16_t)w;
		meta->height[j] = (uint16_t)h;
		uint8_t *jpg;
		unsigned long len;
		if ((rc = encode(meta, j, &jpg, &len)))
			return ts_ds_fail(err, errlen, rc, "%s: encoding its image: %s",
					  meta->files[j].path, ts_strerror(rc));
		free(jpg);
		meta->bytes[j] = (uint32_t)len;
		meta->files[j].bytes = len;
		meta->sample_bytes += len;
		meta->total_bytes += len;
	}
	return 0;
}

static int jpeg_emit(const struct ts_dataset_meta *meta, uint64_t f, struct ts_dlio_sink *s)
{
	uint8_t *jpg;
	unsigned long len;
	int rc = encode(meta, f, &jpg, &len);
	if (!rc && len != meta->bytes[f])
		rc = TS_E_CORRUPT; /* not what describe encoded */
	if (!rc)
		rc = s->put(s, jpg, len);
	free(jpg);
	return rc;
}

/* The generic reader's check: one whole JPEG, SOI to EOI. */
static int jpeg_find(const uint8_t *buf, size_t len, uint64_t *off, uint64_t *n)
{
	if (len < 4 || buf[0] != 0xFF || buf[1] != 0xD8 || buf[len - 2] != 0xFF ||
	    buf[len - 1] != 0xD9)
		return TS_E_CORRUPT;
	*off = 0;
	*n = len;
	return 0;
}

static const struct ts_dlio_fmt jpeg_fmt = {
	.ext = "jpeg",
	.stored = jpeg_stored,
	.emit = jpeg_emit,
	.storage = "greyscale baseline JPEG of random pixels, quality 75 (Pillow's)",
	.max_per_file = 1,
	.records = false,
	.find = jpeg_find,
};

const struct ts_dataset_ops ts_dataset_jpeg = {
	.name = "jpeg",
	.version = TS_DATASET_OPS_VERSION,
	.caps = 0,
	.help = "DLIO JPEG files, one greyscale image of random pixels each",
	.opts = ts_dlio_dataset_opts,
	.opts_size = sizeof(struct ts_dlio_dataset_opts),
	/* DLIO's default num_files_train (utils/config.py ConfigArguments) */
	.full_count = 8,
	.unit = "files",
	.source = &ts_source_jpeg,
	.input = TS_DLIO_DIR,
	.data = &jpeg_fmt,
	.describe = jpeg_describe,
	.generate = ts_dlio_generate,
	.verify = ts_dlio_verify,
	.storage = ts_dlio_storage,
};

const struct ts_source_ops ts_source_jpeg = {
	.name = "jpeg",
	.data = &ts_dataset_jpeg,
	TS_DLIO_READER_HOOKS,
};
