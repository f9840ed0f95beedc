/*
 * jpeggen.h — synthetic photographs encoded with libjpeg-turbo to an exact
 * file size.
 *
 * A JPEG's size and decode cost come from its pixel count, its sampling and
 * quantization, and how much high-frequency content its entropy coder has
 * to spend bits on. Flat colour decodes far faster than a photo of the same
 * size, so the content here is built like one: a smooth lit background,
 * objects with hard edges and gradients, mid-frequency texture, and fine
 * grain (sensor noise / fur / foliage). The grain amplitude is the knob:
 * at the file's quality it is searched (secant steps on the encoded size)
 * until the file lands within 3% under the target, then COM segments (or
 * 1-3 fill bytes, legal before any marker) pad it to the byte. The search
 * starts from the image alone, so the same seed always gives the same bytes
 * whatever thread made it.
 */
#ifndef TS_JPEGGEN_H
#define TS_JPEGGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"

struct ts_jpeg_params {
	uint32_t width, height;
	uint32_t target;	/* exact file bytes wanted; 0 = as encoded, no padding */
	int quality;		/* 1..100: the file's quantization tables */
	bool subsample;		/* 4:2:0 chroma instead of 4:4:4 */
	bool no_rec_magic;	/* no RecordIO magic at a 4-aligned offset (recordio.h) */
	uint64_t seed;		/* the picture */
};

struct ts_jpeg_result {
	int quality;		/* quality used (lowered if the target was too small) */
	double grain;		/* grain amplitude chosen */
	uint32_t pad;		/* bytes of padding added */
	unsigned encodes;	/* encodes the search took */
};

/* Per-thread generator state: turbojpeg handle and buffers. */
struct ts_jpeggen {
	void *tj;		/* tjhandle (compressor) */
	uint8_t *base;		/* picture without grain, RGB HWC */
	int8_t *grain;		/* grain per sample, RGB HWC */
	uint8_t *rgb;		/* base + amplitude * grain */
	size_t pix_cap;		/* bytes allocated in base/grain/rgb */
	uint8_t *out;		/* the last file made */
	size_t out_cap;
};

TS_WUR int ts_jpeggen_init(struct ts_jpeggen *g);
void ts_jpeggen_fini(struct ts_jpeggen *g);

/*
 * Synthesizes picture @seed at @width x @height with grain amplitude
 * @grain (1.0 is a typical photo's) into g->rgb (RGB HWC, valid until the
 * next call). Used directly for raw pixels (Caffe LMDB).
 */
TS_WUR int ts_jpeggen_pixels(struct ts_jpeggen *g, uint64_t seed, uint32_t width, uint32_t height,
			     double grain);

/*
 * Makes the JPEG file described by @p. *@out points into @g (valid until
 * the next call) and holds exactly p->target bytes when p->target > 0.
 * Errors: -EINVAL (size out of range), -ENOMEM, TS_E_CORRUPT (turbojpeg
 * failed, message lost in its handle), -ERANGE (the target cannot be met:
 * smaller than the smallest encoding, or a RecordIO magic cannot be
 * avoided).
 */
TS_WUR int ts_jpeggen_make(struct ts_jpeggen *g, const struct ts_jpeg_params *p,
			   const uint8_t **out, size_t *len, struct ts_jpeg_result *res);

/*
 * Inserts @pad bytes into the JPEG @jpg (@len bytes, capacity @cap) right
 * after its SOI/APP0 header: COM segments for 4 or more, 0xFF fill bytes
 * for 1-3. Returns the new length or -ENOSPC / TS_E_CORRUPT (not a JPEG).
 */
TS_WUR long ts_jpeg_pad(uint8_t *jpg, size_t len, size_t cap, size_t pad);

#endif
