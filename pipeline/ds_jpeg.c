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
 * width then height, file by file (ds_dlio.c, as for png and hdf5).
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
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "pipeline/dataset.h"
#include "pipeline/ds_dlio.h"
#include "pipeline/ds_kind.h"

#define JPEG_QUALITY 75 /* Pillow's default (PIL/JpegImagePlugin.py) */
#define JPEG_SIDE_MAX 65535u /* a JPEG's side, and what meta->width holds */

/* A sample's stored bytes are its record length until describe encodes
 * it (ts_dlio_image_describe). */
static uint64_t jpeg_stored(uint64_t n)
{
	return n;
}

/* Encodes sample @j's image into *@out (malloc'd, *@len bytes). */
static int encode(const struct ts_dataset_meta *meta, uint64_t j, uint8_t **out, size_t *len)
{
	int w = meta->width[j], h = meta->height[j];
	uint8_t *px = NULL;
	unsigned long n = tjBufSize(w, h, TJSAMP_GRAY);
	*out = malloc(n);
	tjhandle tj = tjInitCompress();
	int rc = *out && tj ? 0 : -ENOMEM;
	if (!rc)
		rc = ts_dlio_pixels_alloc(meta, j, &px);
	if (!rc && tjCompress2(tj, px, w, 0, h, TJPF_GRAY, out, &n, TJSAMP_GRAY, JPEG_QUALITY,
			       TJFLAG_NOREALLOC))
		rc = TS_E_CORRUPT;
	*len = n;
	if (tj)
		tjDestroy(tj);
	free(px);
	if (rc) {
		free(*out);
		*out = NULL;
	}
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
	.emit = ts_dlio_encoded_emit,
	.storage = "greyscale baseline JPEG of random pixels, quality 75 (Pillow's)",
	.max_per_file = 1,
	.records = false,
	.find = jpeg_find,
	.side_max = JPEG_SIDE_MAX,
	.side_why = "a JPEG's limit",
	.encode = encode,
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
	.describe = ts_dlio_image_describe,
	.generate = ts_dlio_generate,
	.verify = ts_dlio_verify,
	.storage = ts_dlio_storage,
};

const struct ts_source_ops ts_source_jpeg = {
	.name = "jpeg",
	.data = &ts_dataset_jpeg,
	TS_DLIO_READER_HOOKS,
};
