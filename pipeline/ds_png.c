/*
 * ds_png.c — the png kind: DLIO's PNG dataset, one greyscale image per file
 * as DLIO 2.0.0's generator writes it (data_generator/png_generator.py:
 * random uint8 pixels, Image.fromarray(...).save(f, format='PNG',
 * bits=8)), byte for byte as Pillow 9.4 writes an 8-bit greyscale PNG
 * (PIL/PngImagePlugin.py _save, libImaging/ZipEncode.c):
 *
 *  - the signature, IHDR (width, height, depth 8, colour type 0, no
 *    interlace), the IDAT chunks, IEND; nothing else (no dpi, no text);
 *  - each row filtered with the one of None, Up, Sub and Paeth (tried in
 *    that order, a later one only when strictly better) whose bytes, read
 *    as signed, have the least absolute sum: libpng's heuristic as Pillow
 *    applies it, Average only with optimize=True;
 *  - the rows deflated by zlib at level 6 (Pillow's compress_level -1),
 *    strategy Z_FILTERED (Pillow's default for filtered PNG rows), window
 *    15, memLevel 9;
 *  - the zlib stream cut into IDAT chunks of ImageFile._save's buffer,
 *    max(ImageFile.MAXBLOCK = 65,536, 4 x width) bytes, the last shorter.
 *
 * tests/dataset/test_dlio_libs.sh checks the files against Pillow's own
 * output for the same pixels. Pixels and sides are the image kinds'
 * (ds_dlio.c, as ds_jpeg.c says); a file's size is the encoder's, so
 * describing a dataset encodes every image: about 4 ms of CPU for 338 x 338
 * on the build host (`tiersim dataset info png --count 400
 * --record_length 114660`: 1.5-1.9 s, 3 runs; Pillow's saves of 400 such
 * images of numpy's draws: 1.9 s). Their mean size is Pillow's: 114,746.1 B
 * over 400 files either way (DLIO's seed 10 for Pillow's).
 *
 * Its reader, the loader source "png", reads each file whole. DLIO's
 * ImageReader (np.asarray(Image.open(f))) and the requests it makes are
 * pipeline/dliochain.h's, which model Pillow's 64 KiB IDAT chunks: wider
 * images (above 16,384 pixels, whose chunks Pillow makes larger) are
 * refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pipeline/dataset.h"
#include "pipeline/dliofmt.h"
#include "pipeline/ds_dlio.h"
#include "pipeline/ds_kind.h"

#define PNG_MAXBLOCK 65536u		/* PIL/ImageFile.py MAXBLOCK */
#define PNG_SIDE_MAX (PNG_MAXBLOCK / 4) /* widest image whose IDAT chunks are MAXBLOCK */
#define PNG_LEVEL 6    /* zlib's Z_DEFAULT_COMPRESSION, Pillow's compress_level -1 */
#define PNG_MEMLEVEL 9 /* ZipEncode.c deflateInit2 */
#define PNG_WBITS 15

static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static uint64_t png_stored(uint64_t n)
{
	return n;
}

static unsigned cost(const uint8_t *b, size_t n)
{
	unsigned s = 0;
	for (size_t i = 0; i < n; i++)
		s += b[i] < 128 ? b[i] : 256u - b[i];
	return s;
}

/* Row @cur (after @prev, zeros for the first) filtered into @out: the
 * filter type, then @w bytes (ZipEncode.c's choice, above). */
static void filter_row(const uint8_t *cur, const uint8_t *prev, size_t w, uint8_t *out,
		       uint8_t *try)
{
	out[0] = 0;
	memcpy(out + 1, cur, w);
	unsigned best = cost(out + 1, w);
	for (int f = 0; f < 3 && best > 0; f++) {
		uint8_t type = f == 0 ? 2 : f == 1 ? 1 : 4; /* Up, Sub, Paeth */
		for (size_t i = 0; i < w; i++) {
			int a = i ? cur[i - 1] : 0, b = prev[i], c = i ? prev[i - 1] : 0, p;
			if (type == 2) {
				p = b;
			} else if (type == 1) {
				p = a;
			} else {
				int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
				p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
			}
			try[i] = (uint8_t)(cur[i] - p);
		}
		unsigned s = cost(try, w);
		if (s < best) {
			best = s;
			out[0] = type;
			memcpy(out + 1, try, w);
		}
	}
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A chunk of @type and @n bytes of @data at @p: 12 + n bytes. */
static size_t chunk(uint8_t *p, const char *type, const uint8_t *data, size_t n)
{
	be32(p, (uint32_t)n);
	memcpy(p + 4, type, 4);
	if (n)
		memmove(p + 8, data, n);
	be32(p + 8 + n, ts_crc32(0, p + 4, 4 + n));
	return 12 + n;
}

/* Encodes sample @j's image into *@out (malloc'd, *@len bytes). */
static int encode(const struct ts_dataset_meta *meta, uint64_t j, uint8_t **out, size_t *len)
{
	size_t w = meta->width[j], h = meta->height[j], row = w + 1;
	uint8_t *px = NULL, *raw = malloc(row * h), *zero = calloc(w + 1, 2), *z = NULL;
	int rc = raw && zero ? ts_dlio_pixels_alloc(meta, j, &px) : -ENOMEM;
	for (size_t y = 0; !rc && y < h; y++)
		filter_row(px + y * w, y ? px + (y - 1) * w : zero, w, raw + y * row, zero + w + 1);
	z_stream zs = {0};
	size_t block = w * 4 > PNG_MAXBLOCK ? w * 4 : PNG_MAXBLOCK, zn = 0;
	if (!rc &&
	    deflateInit2(&zs, PNG_LEVEL, Z_DEFLATED, PNG_WBITS, PNG_MEMLEVEL, Z_FILTERED) != Z_OK)
		rc = -ENOMEM;
	if (!rc) {
		zn = deflateBound(&zs, (uLong)(row * h));
		/* the file: the stream's room plus its framing, the stream at its end */
		size_t cap = sizeof(png_sig) + 25 + (zn / block + 1) * 12 + 12 + zn,
		       from = cap - zn;
		if (!(*out = z = malloc(cap)))
			rc = -ENOMEM;
		if (!rc) {
			zs.next_in = raw;
			zs.avail_in = (uInt)(row * h);
			zs.next_out = z + from;
			zs.avail_out = (uInt)zn;
			if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
				rc = TS_E_CORRUPT;
		}
		zn = zs.total_out;
		deflateEnd(&zs);
		if (!rc) {
			/* cut in place: each chunk's frame before its data, front to back */
			uint8_t ihdr[13] = {0};
			be32(ihdr, (uint32_t)w);
			be32(ihdr + 4, (uint32_t)h);
			ihdr[8] = 8; /* depth; colour type 0, compression, filter, interlace 0 */
			size_t o = sizeof(png_sig);
			memcpy(z, png_sig, o);
			o += chunk(z + o, "IHDR", ihdr, sizeof(ihdr));
			for (size_t at = 0; at < zn; at += block) {
				size_t n = zn - at < block ? zn - at : block;
				o += chunk(z + o, "IDAT", z + from + at, n);
			}
			o += chunk(z + o, "IEND", NULL, 0);
			*len = o;
		}
	}
	free(px);
	free(raw);
	free(zero);
	if (rc) {
		free(z);
		*out = NULL;
	}
	return rc;
}

/* The generic reader's check: the signature first, IEND last. */
static int png_find(const uint8_t *buf, size_t len, uint64_t *off, uint64_t *n)
{
	static const uint8_t iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
	if (len < sizeof(png_sig) + sizeof(iend) || memcmp(buf, png_sig, sizeof(png_sig)) ||
	    memcmp(buf + len - sizeof(iend), iend, sizeof(iend)))
		return TS_E_CORRUPT;
	*off = 0;
	*n = len;
	return 0;
}

static const struct ts_dlio_fmt png_fmt = {
	.ext = "png",
	.stored = png_stored,
	.emit = ts_dlio_encoded_emit,
	.storage = "8-bit greyscale PNG of random pixels, Pillow's filters and deflate",
	.max_per_file = 1,
	.records = false,
	.find = png_find,
	.side_max = PNG_SIDE_MAX,
	.side_why = "Pillow writes wider images in IDAT chunks larger than the 64 KiB modeled",
	.encode = encode,
};

const struct ts_dataset_ops ts_dataset_png = {
	.name = "png",
	.version = TS_DATASET_OPS_VERSION,
	.caps = 0,
	.help = "DLIO PNG files, one greyscale image of random pixels each",
	.opts = ts_dlio_dataset_opts,
	.opts_size = sizeof(struct ts_dlio_dataset_opts),
	/* DLIO's default num_files_train (utils/config.py ConfigArguments) */
	.full_count = 8,
	.unit = "files",
	.source = &ts_source_png,
	.input = TS_DLIO_DIR,
	.data = &png_fmt,
	.describe = ts_dlio_image_describe,
	.generate = ts_dlio_generate,
	.verify = ts_dlio_verify,
	.storage = ts_dlio_storage,
};

const struct ts_source_ops ts_source_png = {
	.name = "png",
	.data = &ts_dataset_png,
	TS_DLIO_READER_HOOKS,
};
